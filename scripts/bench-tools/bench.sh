#!/usr/bin/env bash
# bench.sh - the fixed tools, resources and prompt of scripts/bench. Functions parse their
# arguments with bash only (no jq), so a measurement is of the host and bash, not of them.
# Only functions are defined here: the host sources this file once per call.

# Says hi: the trivial call.
tool_hi() { echo hi; }

# Sleeps, then says so: for concurrency (8 of these at once should take ~1 s).
# @param seconds number How long to sleep
tool_sleep() {
  local s=1
  [[ $1 =~ \"seconds\":[[:space:]]*([0-9.]+) ]] && s=${BASH_REMATCH[1]}
  sleep "$s"
  echo "slept $s"
}

# Prints the length of its arguments JSON: for large inputs.
tool_arg_length() { echo "${#1}"; }

# Prints the given number of bytes ('x'): for large outputs.
# @param bytes integer How many bytes
tool_bytes() {
  local n=0
  [[ $1 =~ \"bytes\":[[:space:]]*([0-9]+) ]] && n=${BASH_REMATCH[1]}
  head -c "$n" /dev/zero | tr '\0' x
}

# Returns an image of the given number of bytes (random) through mcp_image: for large
# content blocks (base64 on the side channel).
# @param bytes integer How many bytes
tool_image() {
  local n=0 f
  [[ $1 =~ \"bytes\":[[:space:]]*([0-9]+) ]] && n=${BASH_REMATCH[1]}
  f=$(mktemp --suffix=.png)
  head -c "$n" /dev/urandom >"$f"
  mcp_image "$f"
  rm -f "$f"
}

# A fixed resource that prints one line: the trivial resources/read.
# @uri bench://readme
# @title Read me
# @mime text/plain
resource_readme() { echo readme; }

# A template, so that resources/templates/list has an entry; prints the URI's id.
# @uri bench://items/{id}
# @mime text/plain
resource_item() {
  [[ $1 =~ \"id\":[[:space:]]*\"([^\"]*)\" ]] && echo "item ${BASH_REMATCH[1]}"
}

# Greets by name: the trivial prompts/get.
# @arg name? Whom to greet
prompt_greet() { echo hello; }
