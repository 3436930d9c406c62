#!/usr/bin/env bash
# Runs one scenario of the official MCP conformance suite against the real host over HTTP.
# Usage: run.sh SCENARIO SPEC_VERSION   with MCPSH_HOST set (the mcp-shell-host binary).
#
# Starts `$MCPSH_HOST --http --listen 127.0.0.1:0 DIR` (DIR: a fresh folder with a link to
# fixture/server.sh), waits for the
# "listening on http://…" line on its stderr, runs `conformance server --scenario S
# --spec-version V` at that URL, stops the host with SIGTERM and waits for it.
#
# SPEC_VERSION `extension` is for the scenarios of an extension (the suite lists them as
# `[extension]`, e.g. tasks-*): they apply at no spec version, so the suite skips them
# unless forced. They run with `--spec-version 2026-07-28 --force` (the wire they are
# written for); run.sh first checks that the suite lists SCENARIO as an extension one, so
# that --force never runs a versioned scenario where it does not apply.
#
# Exit status 0 only when every check the suite reported is SUCCESS, INFO or SKIPPED
# (a WARNING, a SHOULD broken, fails too), except the checks known-failures.tsv names for
# this scenario and version, with the issue that owns them; such a check that passes makes
# the run fail as well, so that the list never outlives its reason. Also fails when the
# suite reports no check at all (e.g. the scenario does not apply at that version) or
# when the host does not exit 0 after SIGTERM.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scenario=${1:?usage: run.sh SCENARIO SPEC_VERSION}
spec_version=${2:?usage: run.sh SCENARIO SPEC_VERSION}
: "${MCPSH_HOST:?MCPSH_HOST must name the mcp-shell-host binary}"
# Bounds for a host or a suite that hangs; generous, so that a slow machine never trips them.
start_limit=${MCPSH_CONFORMANCE_START_SECONDS:-60}
suite_limit=${MCPSH_CONFORMANCE_SUITE_SECONDS:-240}

# shellcheck source=../clients/node_check.sh
source "$here/../clients/node_check.sh"
if ! node_usable; then
  echo "FAILED: the conformance suite needs node >= 22.19 on PATH ($(node_status)): run scripts/install-deps"
  exit 1
fi
if [[ ! -f $here/node_modules/.mcpsh-lock-sha256 ]]; then
  echo "FAILED: the conformance suite is not installed: see the conformance.install test"
  exit 1
fi

suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
suite_version_args=(--spec-version "$spec_version")
if [[ $spec_version == extension ]]; then
  # "  - NAME [extension]" in the server section of `conformance list`.
  listing=$(node "$suite" list | sed 's/\x1b\[[0-9;]*m//g' | sed -n '/^Server scenarios/,/^$/p') || true
  if ! grep -qxF -- "  - $scenario [extension]" <<<"$listing"; then
    echo "FAILED: the suite does not list $scenario as an extension scenario (conformance list)"
    exit 1
  fi
  suite_version_args=(--spec-version 2026-07-28 --force)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpsh-conformance.XXXXXX")
host_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
stop_host() {
  if [[ -n $host_pid ]] && kill -0 "$host_pid" 2>/dev/null; then
    kill -TERM "$host_pid" 2>/dev/null || true
    wait "$host_pid" 2>/dev/null || true
  fi
}
trap 'stop_host; rm -rf "$work"' EXIT

# Created here: the background job opens them only after the fork, maybe after the first grep.
: >"$work/host.out"
: >"$work/host.log"
# The host serves a folder of its own holding a link to the fixture server: the trigger
# tools of server-stateless add scripts to it, and the host reloads them.
mkdir "$work/scripts"
ln -s "$here/fixture/server.sh" "$work/scripts/server.sh"
"$MCPSH_HOST" --http --listen 127.0.0.1:0 "$work/scripts" </dev/null \
  >"$work/host.out" 2>"$work/host.log" &
host_pid=$!

url=
deadline=$((SECONDS + start_limit))
while [[ -z $url ]]; do
  url=$(grep -o -m1 'listening on http://[^[:space:]]*' "$work/host.log" | sed 's/^listening on //') || true
  if [[ -n $url ]]; then break; fi
  if ! kill -0 "$host_pid" 2>/dev/null; then
    wait "$host_pid" && status=0 || status=$?
    host_pid=
    echo "FAILED: the host exited (status $status) before it listened; its log:"
    cat "$work/host.log"
    exit 1
  fi
  if ((SECONDS > deadline)); then
    echo "FAILED: no 'listening on http://' line from the host within ${start_limit} s; its log:"
    cat "$work/host.log"
    exit 1
  fi
  sleep 0.05
done
echo "host pid $host_pid listening on $url"

echo "== conformance server --scenario $scenario ${suite_version_args[*]}"
# The suite colours its output whatever it writes to: the colour codes are dropped.
timeout --kill-after=10 "$suite_limit" node "$suite" \
  server --url "$url" --scenario "$scenario" "${suite_version_args[@]}" \
  --output-dir "$work/results" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' && suite_status=0 || suite_status=${PIPESTATUS[0]}
echo "== the suite exited with status $suite_status"

kill -TERM "$host_pid"
host_status=0
wait "$host_pid" || host_status=$?
host_pid=

checks=$(find "$work/results" -name checks.json -print -quit 2>/dev/null || true)
known=$(awk -F'\t' -v s="$scenario" -v v="$spec_version" \
  '$1 == v && $2 == s { print $3 "\t" $4 }' "$here/known-failures.tsv")
verdict=0
if [[ -z $checks ]]; then
  echo "FAILED: the suite wrote no checks.json (status $suite_status): see its output above"
  verdict=1
else
  # One line per check: verdict, status, id, name, message. A check id may repeat (the
  # suite reports one check id for several cases); each is judged on its own.
  report=$(jq -r --arg known "$known" '
    ($known | split("\n") | map(select(length > 0) | split("\t") | {(.[0]): .[1]}) | add // {}) as $k
    | .[]
    | (if (.status == "FAILURE" or .status == "WARNING")
       then (if $k[.id] then "known" else "FAIL" end)
       else (if $k[.id] then "STALE" else "ok" end) end) as $v
    | [$v, .status, .id, .name,
       (if $k[.id] and ($v == "known" or $v == "STALE") then "[" + $k[.id] + "] " else "" end)
       + ((.errorMessage // .details.message? // "") | tostring | gsub("\n"; " "))]
    | @tsv' "$checks")
  echo "== checks (verdict, status, id, name, message)"
  column -t -s $'\t' <<<"$report" | cut -c1-400
  if [[ -z $report ]]; then
    echo "FAILED: the suite reported no checks for $scenario at $spec_version"
    verdict=1
  fi
  if grep -q $'^FAIL\t' <<<"$report"; then
    echo "FAILED: checks above marked FAIL"
    verdict=1
  fi
  if grep -q $'^STALE\t' <<<"$report"; then
    echo "FAILED: checks marked STALE pass now: remove them from known-failures.tsv"
    verdict=1
  fi
fi
if ((host_status != 0)); then
  echo "FAILED: the host exited with status $host_status after SIGTERM; the end of its log:"
  tail -n 40 "$work/host.log"
  verdict=1
fi
if ((verdict == 0)); then echo "PASSED: $scenario at $spec_version"; fi
exit "$verdict"
