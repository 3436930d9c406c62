#!/usr/bin/env bash
# git.sh - example MCP tools that wrap a real command: read-only views of a
# git repository (status and recent history).
#
# Run it with:
#   mcp-shell-host tools/git.sh
#
# The repo argument is a path to a git working tree, absolute or relative to
# the host's working directory. Arguments are always passed to git as separate
# words ("$@"), never pasted into a command string, and paths come after "--"
# so a name starting with "-" cannot be taken for an option.
#
# This file is sourced by the host: it only defines functions. Functions named
# tool_* become tools; the others are private helpers.

# Run git in repository $1 with the remaining arguments, set up for read-only
# use by a program: no pager, no credential prompts, no optional index lock
# (plain `git status` may rewrite the index), no fsmonitor hook from the
# repository's config, and English messages.
git_ro() {
  local repo=$1
  shift
  GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0 LC_ALL=C \
    git --no-pager -C "$repo" -c core.fsmonitor=false "$@"
}

# Check that git is installed and that $1 is a git working tree. Print nothing
# when it is; otherwise print what is wrong and return 1.
require_repo() {
  local repo=$1 answer
  if ! command -v git >/dev/null 2>&1; then
    echo "git is not installed on the server, so git tools cannot run"
    return 1
  fi
  if [[ -z $repo ]]; then
    echo "repo is required: the path of a git working tree"
    return 1
  fi
  if [[ ! -e $repo ]]; then
    echo "repo path does not exist: $repo"
    return 1
  fi
  if [[ ! -d $repo ]]; then
    echo "repo path is not a directory: $repo"
    return 1
  fi
  answer=$(git_ro "$repo" rev-parse --is-inside-work-tree 2>&1)
  case $answer in
    true) return 0 ;;
    false) echo "$repo is a git directory without a working tree (bare repository?); pass a checkout" ;;
    *"not a git repository"*) echo "not a git repository: $repo (pass the path of a git checkout)" ;;
    *) echo "git cannot read $repo: $answer" ;;
  esac
  return 1
}

# Show the current branch and the changed, staged and untracked files of a
# git working tree (git status --short --branch).
# @title Git status
# @param repo string Path of the git working tree
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @timeout 15
# @sandbox read-only,no-network
tool_git_status() {
  local repo output
  repo=$(jq -r '.repo // empty' <<<"$1")
  require_repo "$repo" || return 1
  if ! output=$(git_ro "$repo" status --short --branch 2>&1); then
    echo "git status failed in $repo: $output"
    return 1
  fi
  echo "$output"
  # Only the "## branch" line: nothing to report.
  if [[ $output != *$'\n'* ]]; then
    echo "(working tree clean)"
  fi
}

# Show the most recent commits of a git repository, newest first, one per
# line: short hash, date, author and subject. Optionally only the commits
# that touched one path.
# @title Git log
# @param repo string Path of the git working tree
# @param maxCount integer? Number of commits to show, 1 to 100 (default 10)
# @param path string? Only commits touching this file or directory (relative to repo)
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @timeout 15
# @sandbox read-only,no-network
tool_git_log() {
  local repo max_count path output
  local -a pathspec=()
  # One jq call reads all arguments, each NUL-terminated for `read -d ''`:
  # strings as they are, maxCount as JSON text so "5" or 2.5 fail the check.
  {
    IFS= read -r -d '' repo
    IFS= read -r -d '' max_count
    IFS= read -r -d '' path
  } < <(jq -j '(.repo // "" | tostring), (.maxCount // 10 | tojson), (.path // "" | tostring)
               | . + "\u0000"' <<<"$1")

  require_repo "$repo" || return 1
  if [[ ! $max_count =~ ^[0-9]{1,3}$ ]] || ((max_count < 1 || max_count > 100)); then
    echo "maxCount must be an integer between 1 and 100, got $max_count"
    return 1
  fi
  if [[ -n $path ]]; then
    pathspec=("$path")
  fi

  if ! git_ro "$repo" rev-parse --quiet --verify HEAD >/dev/null; then
    echo "(no commits yet in $repo)"
    return 0
  fi
  if ! output=$(git_ro "$repo" log --max-count="$max_count" --date=short \
    --format='%h %ad %an: %s' -- "${pathspec[@]}" 2>&1); then
    echo "git log failed in $repo: $output"
    return 1
  fi
  if [[ -z $output ]]; then
    echo "(no commits touch $path)"
  else
    echo "$output"
  fi
}
