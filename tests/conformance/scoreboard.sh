#!/usr/bin/env bash
# Runs every server scenario of the pinned conformance suite at both spec versions against
# the host (run.sh each) and prints the scoreboard as a markdown table, for README.md.
# The scenarios of an extension (listed `[extension]`, e.g. tasks-*) apply at no spec
# version: they run once, as version `extension` (run.sh: 2026-07-28, forced).
# Usage: MCPSH_HOST=build/mcp-shell-host tests/conformance/scoreboard.sh [LOG_DIR]
# Each run's full output is kept in LOG_DIR (default: a new folder under /tmp, named at
# the end). A scenario that does not apply at a version is "—" and is not run; the
# reason and whether ctest runs it come from scenarios.tsv. Exit status 0 unless a
# scenario that ctest runs failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${MCPSH_HOST:?MCPSH_HOST must name the mcp-shell-host binary}"
logs=${1:-$(mktemp -d "${TMPDIR:-/tmp}/mcpsh-scoreboard.XXXXXX")}
mkdir -p "$logs"
versions=(2026-07-28 2025-11-25 extension)

# shellcheck source=../clients/node_check.sh
source "$here/../clients/node_check.sh"
# "  - NAME [v1,v2,...]" lines of the server section of `conformance list` ("[extension]"
# for an extension's scenarios, which the version `extension` matches).
listing=$(node "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" list |
  sed -n '/^Server scenarios/,/^$/p' | sed -n 's/^ *- \([^ ]*\) \[\(.*\)\]$/\1\t\2/p')

# reason_of VERSION SCENARIO -> "STATUS<TAB>REASON" from scenarios.tsv, or empty.
reason_of() {
  awk -F'\t' -v v="$1" -v s="$2" '$1 == v && $2 == s { print $3 "\t" $4; exit }' "$here/scenarios.tsv"
}

failed=0
rows=()
while IFS=$'\t' read -r scenario applies; do
  for version in "${versions[@]}"; do
    entry=$(reason_of "$version" "$scenario")
    status=${entry%%$'\t'*}
    reason=${entry#*$'\t'}
    if [[ ,$applies, != *,$version,* ]]; then
      continue
    fi
    if [[ -z $entry ]]; then
      status=not-run
      reason="not in scenarios.tsv"
    fi
    log=$logs/$version.$scenario.log
    echo "scoreboard: $scenario at $version" >&2
    if bash "$here/run.sh" "$scenario" "$version" >"$log" 2>&1; then
      known=$(grep -c $'^known ' "$log" || true)
      result=pass
      if ((known > 0)); then result="pass ($known known)"; fi
    else
      bad=$(awk '$1 == "FAIL" || $1 == "STALE" { print $1 == "STALE" ? "stale " $3 : $3 }' "$log" |
        sort -u | paste -sd, - | sed 's/,/, /g')
      if [[ -z $bad ]]; then bad=$(grep -m1 '^FAILED:' "$log" | cut -c9- || true); fi
      result="**fail**: $bad"
      if [[ $status == test ]]; then failed=1; fi
    fi
    ctest=no
    if [[ $status == test ]]; then ctest=yes; fi
    rows+=("| \`$scenario\` | $version | $result | $ctest | $reason |")
  done
done <<<"$listing"

echo "| scenario | spec version | result | ctest | why |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo >&2
echo "scoreboard: logs in $logs" >&2
exit "$failed"
