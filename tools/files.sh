#!/usr/bin/env bash
# files.sh - example MCP server: a read-only view of one directory tree, as tools,
# as resources, and as a code-review prompt whose file names complete.
#
# Run it with:
#   FILES_ROOT=/srv/docs mcp-shell-host tools/files.sh
#   mcp-shell-host tools/files.sh          # serves the current directory
#
# Try it from a terminal:
#   mcp-shell-host read tools/files.sh files:///README.md
#   mcp-shell-host prompt tools/files.sh review_file --args '{"path":"tools/files.sh"}'
#
# The served root is $FILES_ROOT if it is set, otherwise the current directory
# at the time of the call (the host runs tools in its own working directory).
# Every path argument is relative to that root. Anything that would leave the
# root is refused: absolute paths, ".." components, and symlinks (anywhere in
# the path) whose target resolves outside the root. Access always uses the
# fully resolved path, so a symlink is never followed out of the root.
#
# Limits: the checks happen before each access, so a process that can write
# inside the root could swap in a symlink between check and read. Every
# function here runs under `@sandbox read-only,no-network`, so even a hole in
# these checks cannot write a file or reach the network; reads stay possible.
#
# This file is sourced by the host: it only defines functions. Functions named
# tool_* become tools, resource_* resources, prompt_* prompts, complete_* the
# completion of a prompt's arguments or a template's variables; the others are
# private helpers.

# Print the served root as an absolute path with symlinks resolved, or an
# error message and return 1.
files_root() {
  local root
  if ! root=$(realpath -e -- "${FILES_ROOT:-$PWD}" 2>/dev/null) || [[ ! -d $root ]]; then
    echo "the served root ${FILES_ROOT:-$PWD} is not an existing directory (check FILES_ROOT)"
    return 1
  fi
  echo "$root"
}

# Resolve path $1 (relative to the served root) to an absolute path with every
# symlink resolved, and check that it exists and stays inside the root.
# Print the resolved path, or an error message and return 1.
resolve_in_root() {
  local rel=${1:-.} root resolved
  root=$(files_root) || {
    echo "$root"
    return 1
  }
  if [[ $rel == /* ]]; then
    echo "path must be relative to the served root, got the absolute path $rel"
    return 1
  fi
  if [[ /$rel/ == */../* ]]; then
    echo "path must not contain '..' components, got $rel"
    return 1
  fi
  # realpath -m resolves symlinks even when the final target does not exist,
  # so a dangling link that points outside is reported as outside.
  resolved=$(realpath -m -- "$root/$rel")
  # Compare with a trailing slash so that /srv/docs-old is not inside /srv/docs.
  if [[ $resolved/ != "${root%/}/"* ]]; then
    echo "refused: $rel resolves to a location outside the served root"
    return 1
  fi
  if [[ ! -e $resolved ]]; then
    echo "no such file or directory: $rel (use list_dir to see what exists)"
    return 1
  fi
  echo "$resolved"
}

# Print absolute path $1 relative to the served root ("." for the root).
relative_to_root() {
  local root
  root=$(files_root) || return 1
  if [[ $1 == "$root" ]]; then
    echo .
  else
    echo "${1#"${root%/}/"}"
  fi
}

# Succeed if file $1 looks binary: a NUL byte in its first 8000 bytes (the
# same heuristic git uses).
is_binary() {
  local nuls
  nuls=$(head -c 8000 -- "$1" | tr -d -c '\000' | wc -c)
  ((nuls > 0))
}

# List the entries of a directory under the served root, one per line:
# "dir", "file" (with its size) or "link" (a symlink; inspect it with
# file_info), sorted by name.
# @title List directory
# @param path string? Directory relative to the served root (default ".")
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @sandbox read-only,no-network
tool_list_dir() {
  local rel dir type size name count=0 limit=1000
  rel=$(jq -r '.path // empty' <<<"$1")
  rel=${rel:-.}
  dir=$(resolve_in_root "$rel") || {
    echo "$dir"
    return 1
  }
  if [[ ! -d $dir ]]; then
    echo "not a directory: $rel (use read_file or file_info for files)"
    return 1
  fi
  if [[ ! -r $dir || ! -x $dir ]]; then
    echo "permission denied: cannot list $rel"
    return 1
  fi

  # find prints "<type>\t<size>\t<name>" NUL-terminated, so any file name is safe.
  while IFS=$'\t' read -r -d '' type size name; do
    if ((++count > limit)); then
      echo "... (only the first $limit entries are shown)"
      break
    fi
    case $type in
      d) printf 'dir   %s/\n' "$name" ;;
      f) printf 'file  %s (%s bytes)\n' "$name" "$size" ;;
      l) printf 'link  %s\n' "$name" ;;
      *) printf 'other %s\n' "$name" ;;
    esac
  done < <(find "$dir" -mindepth 1 -maxdepth 1 -printf '%y\t%s\t%f\0' | LC_ALL=C sort -z -t $'\t' -k 3)

  if ((count == 0)); then
    echo "(empty directory: $rel)"
  fi
}

# Read a text file under the served root. Output is capped at maxBytes; a
# longer file is cut off with a note saying so. Binary files are described
# instead of printed.
# @title Read file
# @input {"type": "object",
#         "properties": {
#           "path":     {"type": "string", "description": "File path relative to the served root"},
#           "maxBytes": {"type": "integer", "minimum": 1, "maximum": 1048576,
#                        "description": "Print at most this many bytes (default 65536)"}
#         },
#         "required": ["path"],
#         "additionalProperties": false}
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @sandbox read-only,no-network
tool_read_file() {
  local rel max_bytes file size
  # One jq call reads both arguments, each NUL-terminated for `read -d ''`:
  # the path as it is, maxBytes as JSON text so "10" or 2.5 fail the check.
  {
    IFS= read -r -d '' rel
    IFS= read -r -d '' max_bytes
  } < <(jq -j '(.path // "" | tostring), (.maxBytes // 65536 | tojson) | . + "\u0000"' <<<"$1")

  if [[ -z $rel ]]; then
    echo "path is required: a file path relative to the served root"
    return 1
  fi
  if [[ ! $max_bytes =~ ^[0-9]{1,7}$ ]] || ((max_bytes < 1 || max_bytes > 1048576)); then
    echo "maxBytes must be an integer between 1 and 1048576, got $max_bytes"
    return 1
  fi
  file=$(resolve_in_root "$rel") || {
    echo "$file"
    return 1
  }
  if [[ -d $file ]]; then
    echo "$rel is a directory; use list_dir to see its entries"
    return 1
  fi
  if [[ ! -f $file ]]; then
    echo "$rel is not a regular file (device, FIFO or socket); only regular files can be read"
    return 1
  fi
  if [[ ! -r $file ]]; then
    echo "permission denied: cannot read $rel"
    return 1
  fi

  size=$(stat -c %s -- "$file")
  if is_binary "$file"; then
    echo "$rel is a binary file ($size bytes); its content is not shown"
    return 0
  fi
  head -c "$max_bytes" -- "$file"
  if ((size > max_bytes)); then
    printf '\n[truncated: showed the first %d of %d bytes; pass a larger maxBytes to see more]\n' \
      "$max_bytes" "$size"
  fi
}

# Describe a file or directory under the served root: type, size, permissions,
# modification time, whether it is text or binary, and where a symlink points
# (relative to the root).
# @title File info
# @param path string Path relative to the served root
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @sandbox read-only,no-network
tool_file_info() {
  local rel target root type
  rel=$(jq -r '.path // empty' <<<"$1")
  if [[ -z $rel ]]; then
    echo "path is required: a path relative to the served root"
    return 1
  fi
  target=$(resolve_in_root "$rel") || {
    echo "$target"
    return 1
  }
  root=$(files_root) || return 1

  if [[ -d $target ]]; then
    type=directory
  elif [[ -f $target ]]; then
    if is_binary "$target"; then type="regular file (binary)"; else type="regular file (text)"; fi
  else
    type=$(stat -c %F -- "$target") # e.g. "fifo", "socket", "character special file"
  fi

  echo "path: $rel"
  # $target has all symlinks resolved, so test the path as given to see
  # whether it is itself a symlink.
  if [[ -L $root/${rel%/} ]]; then
    echo "symlink to: $(relative_to_root "$target")"
  fi
  echo "type: $type"
  echo "size: $(stat -c %s -- "$target") bytes"
  echo "permissions: $(stat -c %A -- "$target")"
  echo "modified: $(date -r "$target" '+%Y-%m-%d %H:%M:%S %z')"
}

# ---- resources, prompts and completion ---------------------------------------
#
# Two ways to publish the served root as resources:
#  - `mcp-shell-host --resource-dir /srv/docs tools/files.sh` lets the host
#    publish the folder itself: every file is listed as a file:// resource, read
#    by the host, confined to the folder by its own rules (dot files and symlinks
#    out of the folder are never served). Simplest when the folder is fixed and
#    small enough to list.
#  - resource_file below is a URI template instead: it follows FILES_ROOT and
#    the rules of the tools above (a symlink inside the root is followed, dot
#    files are readable), lists nothing (a client reads a path it knows, or
#    completes one with complete_file), and a folder reads as its listing.

# Print relative path $1 as the path part of a URI: every byte outside
# [A-Za-z0-9._~/-] percent-encoded, so "a b.txt" becomes "a%20b.txt".
uri_path() {
  local LC_ALL=C path=$1 out='' c i
  for ((i = 0; i < ${#path}; i++)); do
    c=${path:i:1}
    case $c in
      [A-Za-z0-9._~/-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c" && out+=$c ;;
    esac
  done
  printf '%s\n' "$out"
}

# Print the entries of the served root whose relative path starts with $1, one
# per line, folders with a trailing "/", sorted; at most 1000 (the host sends
# the first 100 and counts the rest in "total"). Dot files only when the typed
# name starts with a dot. Nothing for a path outside the root.
complete_path() {
  local partial=$1 folder='' prefix=$1 dir type name count=0
  if [[ $partial == */* ]]; then
    folder=${partial%/*}/
    prefix=${partial##*/}
  fi
  dir=$(resolve_in_root "${folder:-.}") || return 0
  [[ -d $dir && -r $dir && -x $dir ]] || return 0
  while IFS=$'\t' read -r -d '' type name; do
    [[ $name == "$prefix"* && $name != *$'\n'* ]] || continue
    [[ $name == .* && $prefix != .* ]] && continue
    ((++count > 1000)) && break
    if [[ $type == d ]]; then name+=/; fi
    printf '%s%s\n' "$folder" "$name"
  done < <(find "$dir" -mindepth 1 -maxdepth 1 -printf '%y\t%f\0' | LC_ALL=C sort -z -t $'\t' -k 2)
}

# A file under the served root, by its path relative to the root:
# files:///README.md, files:///src/main.c (spaces and other bytes
# percent-encoded). The same rules as read_file: no absolute path, no "..", no
# symlink out of the root. A folder reads as its listing (as list_dir prints
# it); a file is sent whole with the MIME type of its extension, as text when
# it is UTF-8, else as a blob (up to the host's --max-output).
# @uri files:///{+path}
# @title File under the served root
# @annotations {"audience": ["user", "assistant"]}
# @sandbox read-only,no-network
resource_file() {
  local uri rel file
  {
    IFS= read -r -d '' uri
    IFS= read -r -d '' rel
  } < <(jq -j '(.uri, .variables.path) | tostring | . + "\u0000"' <<<"$1")
  file=$(resolve_in_root "$rel") || {
    echo "$file"
    return 1
  }
  if [[ -d $file ]]; then
    tool_list_dir "$(jq -cn --arg path "$rel" '{path: $path}')"
    return
  fi
  if [[ ! -f $file || ! -r $file ]]; then
    echo "$rel is not a readable regular file"
    return 1
  fi
  mcp_resource "$uri" "" "$file"
}

# Completes the path of files:///{+path} with the names under the served root.
complete_file() {
  complete_path "$(jq -r '.value' <<<"$1")"
}

# Ask for a code review of one file under the served root. The file is
# embedded in the prompt as a resource (files:///PATH), followed by the request.
# @title Review a file
# @arg path File to review, relative to the served root
# @arg focus? What to look at first, e.g. security, performance, readability
# @sandbox read-only,no-network
prompt_review_file() {
  local rel focus file path
  {
    IFS= read -r -d '' rel
    IFS= read -r -d '' focus
  } < <(jq -j '(.path // ""), (.focus // "") | tostring | . + "\u0000"' <<<"$1")
  file=$(resolve_in_root "$rel") || {
    echo "$file"
    return 1
  }
  if [[ ! -f $file || ! -r $file ]]; then
    echo "$rel is not a readable regular file: review_file reviews one file"
    return 1
  fi
  if is_binary "$file"; then
    echo "$rel is a binary file: review_file reviews text"
    return 1
  fi
  path=$(relative_to_root "$file") || return 1
  mcp_resource "files:///$(uri_path "$path")" "" "$file"
  echo "Please review the file $path, embedded above."
  echo "List the problems you find, most important first: bugs, unsafe or surprising"
  echo "behaviour, missing error handling, unclear code. For each, quote the line,"
  echo "say why it is a problem and propose a concrete fix."
  if [[ -n $focus ]]; then
    echo "Look at this first: $focus."
  fi
}

# Completes review_file's arguments: path with the names under the served root,
# focus with a few common review themes.
complete_review_file() {
  local argument value
  {
    IFS= read -r -d '' argument
    IFS= read -r -d '' value
  } < <(jq -j '(.argument, .value) | tostring | . + "\u0000"' <<<"$1")
  case $argument in
    path) complete_path "$value" ;;
    focus)
      local theme
      for theme in correctness security performance readability "error handling" tests; do
        if [[ $theme == "$value"* ]]; then echo "$theme"; fi
      done
      ;;
  esac
}
