#!/usr/bin/env bash
# Tools for scripts/soak: each is cheap and ends in a known way (no jq, few processes).

# Echoes its arguments JSON back.
tool_quick() { printf '%s' "$1"; }

# Fails with status 3.
tool_fail() {
  echo "failed on purpose"
  return 3
}

# Runs until it is cancelled (or its deadline passes).
tool_hold() { sleep 30; }

# Outlives its deadline.
# @timeout 0.2
tool_slow() { sleep 10; }

# Prints 40000 bytes, more than the soak's --max-output.
tool_big() {
  local line
  printf -v line '%099d\n' 0
  local i
  for ((i = 0; i < 400; i++)); do printf '%s' "$line"; done
}

# Structured output checked against its schema, plus a progress report and a log line.
# @output {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}
tool_structured() {
  mcp_progress 1 2 "half way"
  mcp_log info "structured ran"
  printf '{"n":%d}' "${#1}"
}
