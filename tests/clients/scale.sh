#!/usr/bin/env bash
# Fixture for scale_out.test.mjs: three instances of the host behind HAProxy serve these.
# Each host is started with SCALE_INSTANCE (its name) and SCALE_MARKS (a folder) in its
# environment, which the host passes on to its tools. Arguments are read with bash alone
# (no jq: a process less per call), so a text is letters, digits and '-' only.

# Prints its argument.
# @param text string What to print
tool_echo() {
  text_of "$1" || return 1
  echo "$text"
}

# Marks that it started (SCALE_MARKS/INSTANCE.TEXT), sleeps a second, prints its argument.
# @param text string What to print; also names the mark
tool_slow() {
  text_of "$1" || return 1
  : >"${SCALE_MARKS:?}/${SCALE_INSTANCE:?}.$text"
  sleep 1
  echo "$text"
}

# Prints its argument once the user confirmed; says so when the user did not.
# @param text string What to print
tool_confirm_echo() {
  text_of "$1" || return 1
  if mcp_confirm echo "Print $text?"; then
    echo "confirmed $text"
  else
    echo "not confirmed"
  fi
}

# Sets `text` to the "text" member of the arguments JSON $1.
text_of() {
  if [[ $1 =~ \"text\":[[:space:]]*\"([A-Za-z0-9-]+)\" ]]; then
    text=${BASH_REMATCH[1]}
  else
    echo "text must be letters, digits and '-': $1" >&2
    return 1
  fi
}
