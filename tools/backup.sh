#!/usr/bin/env bash
# backup.sh - an example long-running MCP tool: a backup that reports its progress
# and runs as a task, so that the client does not wait on one call for minutes.
#
# Run it with:
#   mcp-shell-host tools/backup.sh
#
# A client of MCP 2026-07-28 that takes tasks (the io.modelcontextprotocol/tasks
# extension) gets a task as soon as the tool says `mcp_task`, and polls tasks/get for
# its status (the last mcp_progress) and, once it has ended, its result. Any other
# client gets the result when the backup is done, with progress notifications if it
# asked for them.
#
# This file is sourced by the host: it only defines functions. Functions named
# tool_* become tools; the others are private helpers.

# Archives a folder into a compressed tar file, reporting how many files are done.
# @title Back up a folder
# @param dir string Folder to back up
# @param dest string? Folder to write the archive into (default: the temporary folder)
# @annotations {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}
# @task
# @timeout 3600
tool_backup_folder() {
  local dir dest archive total count=0 name status
  dir=$(jq -r '.dir' <<<"$1")
  dest=$(jq -r '.dest // empty' <<<"$1")
  dest=${dest:-${TMPDIR:-/tmp}}
  if [[ ! -d $dir ]]; then
    echo "no such folder: $dir"
    return 1
  fi
  if [[ ! -d $dest || ! -w $dest ]]; then
    echo "cannot write into $dest"
    return 1
  fi
  local -a files
  mapfile -d '' files < <(cd -- "$dir" && find . -xdev -type f -print0 | sort -z)
  total=${#files[@]}
  # From here on the backup may take long: a client that takes tasks gets one now.
  mcp_task "backing up $total files from $dir"
  archive="$dest/backup-$(basename -- "$(cd -- "$dir" && pwd)")-$(date -u +%Y%m%dT%H%M%SZ).tar.gz"
  # tar -v names each file as it is archived: every 20th becomes a progress report.
  printf '%s\0' "${files[@]}" |
    tar -C "$dir" -czvf "$archive" --null -T - |
    while IFS= read -r name; do
      count=$((count + 1))
      if ((count % 20 == 0 || count == total)); then
        mcp_progress "$count" "$total" "archived $name"
      fi
    done
  status=${PIPESTATUS[1]}
  if ((status != 0)); then
    echo "tar failed (status $status): the archive $archive is incomplete"
    return 1
  fi
  echo "Backed up $total files from $dir to $archive ($(du -h -- "$archive" | cut -f1))."
}
