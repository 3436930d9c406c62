#!/usr/bin/env bash
# Fixture for the client tests: progress reports, a call that only ends when cancelled.

# Reports progress twice and prints "done". After each report it waits until the client
# has created "$gate.1" (then "$gate.2"), i.e. has seen the report: the SDK clients drop
# a progress notification that arrives in the same read as the call's result.
# @param gate string Path prefix of the files the client creates
tool_steps() {
  local gate
  gate=$(jq -r .gate <<<"$1")
  mcp_progress 1 2 "first half"
  wait_for_file "$gate.1" || return 1
  mcp_progress 2 2 "second half"
  wait_for_file "$gate.2" || return 1
  echo "done"
}

# Waits a minute: the test cancels it long before.
tool_wait() {
  sleep 60
  echo "not cancelled"
}

# Says hi.
tool_hi() { echo hi; }

# Waits up to 30 s for file $1 to exist.
wait_for_file() {
  local i
  for ((i = 0; i < 600; i++)); do
    [[ -e $1 ]] && return 0
    sleep 0.05
  done
  echo "gave up waiting for $1"
  return 1
}
