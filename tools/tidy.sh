#!/usr/bin/env bash
# tidy.sh - example MCP tools that ask before they act: a clean-up that shows what
# it will delete and waits for the user's yes, and a commit message written by the
# client's own model (sampling).
#
# Run it with:
#   mcp-shell-host tools/tidy.sh
#
# A question (mcp_confirm, mcp_sample) that has no answer yet ends the call: the
# client asks its user or model and calls again with the answer, and the tool runs
# again from the top (a client of an older revision is asked while the tool waits).
# So everything before a question must be safe to run twice, and a question's KEY
# names exactly what is asked: here it carries a digest of the files or of the
# diff, so that a different list is a different question, never an old "yes".
#
# This file is sourced by the host: it only defines functions. Functions named
# tool_* become tools; the others are private helpers.

# Deletes the files under a folder that were not modified for some days, once the
# user has confirmed the list.
# @title Clean up old files
# @param dir string Folder to clean, absolute or relative to the host's working directory
# @param olderThanDays integer Delete files not modified for this many days, 1 to 3650
# @annotations {"destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
# @timeout 60
tool_clean_old_files() {
  local dir days key shown
  dir=$(jq -r '.dir' <<<"$1")
  days=$(jq -r '.olderThanDays' <<<"$1")
  if [[ ! -d $dir ]]; then
    echo "no such folder: $dir"
    return 1
  fi
  if ((days < 1 || days > 3650)); then
    echo "olderThanDays must be 1 to 3650"
    return 1
  fi
  local -a files
  mapfile -d '' files < <(find "$dir" -xdev -type f -mtime +"$((days - 1))" -print0 | sort -z)
  if ((${#files[@]} == 0)); then
    echo "Nothing in $dir is older than $days days."
    return 0
  fi
  key="delete-$(printf '%s\0' "${files[@]}" | sha256sum | cut -c1-16)"
  shown=$(printf '%s\n' "${files[@]:0:20}")
  if ((${#files[@]} > 20)); then shown+=$'\n'"... and $((${#files[@]} - 20)) more"; fi
  if ! mcp_confirm "$key" "Delete these ${#files[@]} files from $dir?"$'\n'"$shown"; then
    echo "Nothing deleted: the user did not confirm."
    return 0
  fi
  rm -f -- "${files[@]}"
  echo "Deleted ${#files[@]} files from $dir."
}

# Suggests a commit message for the staged changes of a git repository, written by
# the client's model.
# @title Suggest a commit message
# @param repo string Path of the git working tree
# @annotations {"readOnlyHint": true, "openWorldHint": false}
# @timeout 60
# @sandbox read-only,no-network
tool_suggest_commit_message() {
  local repo diff
  repo=$(jq -r '.repo' <<<"$1")
  diff=$(GIT_OPTIONAL_LOCKS=0 git --no-pager -C "$repo" diff --cached --stat --patch 2>&1 | head -c 20000) || true
  if [[ -z $diff ]]; then
    echo "Nothing is staged in $repo."
    return 1
  fi
  mcp_sample "message-$(sha256sum <<<"$diff" | cut -c1-16)" \
    "Write a commit message for this change: a summary line in the imperative under 72 characters, then a blank line and at most three lines of why."$'\n\n'"$diff" \
    --system "You write concise, factual git commit messages." --max-tokens 300
}
