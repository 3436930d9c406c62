#!/usr/bin/env bash
# The HTTP rules as curl sees them: one case per status code and header rule, against the
# real binary on a free port. Usage: curl_rules.sh HOST_BINARY FIXTURE_SCRIPT
set -uo pipefail
host_bin=$1 fixture=$2
work=$(mktemp -d)
"$host_bin" --http --listen 127.0.0.1:0 --audit-log "$work/audit.jsonl" "$fixture" 2>"$work/stderr" &
host_pid=$!
trap 'kill "$host_pid" 2>/dev/null; wait "$host_pid" 2>/dev/null; rm -rf "$work"' EXIT
url=
for _ in $(seq 1 2000); do
  url=$(grep -o 'listening on http://[^ ]*' "$work/stderr" | cut -d' ' -f3)
  [[ -n $url ]] && break
  kill -0 "$host_pid" 2>/dev/null || break
  sleep 0.01
done
[[ -n $url ]] || { echo "FAIL: the host did not start: $(cat "$work/stderr")"; exit 1; }

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
list='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'"$meta"'}}'
failures=0
# check NAME WANTED_STATUS HEADER_PATTERN BODY_PATTERN -- CURL_ARGS...
# (BODY_PATTERN "EMPTY": no body at all)
check() {
  local name=$1 want=$2 header=$3 body=$4
  shift 5
  local got
  got=$(curl -s -o "$work/body" -D "$work/head" -w '%{http_code}' "$@")
  local body_ok=1
  if [[ $body == EMPTY ]]; then
    [[ -s $work/body ]] && body_ok=0
  elif ! grep -qE "$body" "$work/body"; then
    body_ok=0
  fi
  if [[ $got != "$want" ]] || ! grep -qiE "$header" "$work/head" || ((body_ok == 0)); then
    echo "FAIL: $name: status $got (wanted $want)"
    cat "$work/head" "$work/body"
    echo
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
json=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
  -H 'MCP-Protocol-Version: 2026-07-28')
# The request metadata headers of a tools/list, as a conforming client mirrors them.
listing=(-H 'Mcp-Method: tools/list')
check "tools/list is 200 JSON" 200 '^content-type: application/json' '"tools":\[' -- \
  "${json[@]}" "${listing[@]}" -d "$list" "$url"
check "notification is 202" 202 '^content-length: 0' EMPTY -- \
  "${json[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url"
check "progress is SSE" 200 '^x-accel-buffering: no' '^data: .*"id":2,' -- "${json[@]}" \
  -H 'Mcp-Method: tools/call' -H 'Mcp-Name: progress' \
  -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},'"${meta%\}}"',"progressToken":1}}}' \
  "$url"
check "GET is 405" 405 '^allow: POST' '"code":-32000' -- "$url"
check "DELETE is 405" 405 '^allow: POST' '"code":-32000' -- -X DELETE "$url"
check "other path is 404" 404 '^content-type: application/json' '"code":-32000' -- \
  "${json[@]}" -d "$list" "${url%/mcp}/other"
check "foreign Origin is 403" 403 '^content-type: application/json' '^\{"jsonrpc":"2.0","error"' -- \
  "${json[@]}" -H 'Origin: http://evil.example.com' -d "$list" "$url"
check "foreign Host is 403" 403 '^content-type: application/json' '"code":-32000' -- \
  "${json[@]}" -H 'Host: evil.example.com' -d "$list" "$url"
check "text/plain is 415" 415 '^content-type: application/json' '"code":-32000' -- \
  -H 'Content-Type: text/plain' -d "$list" "$url"
check "Accept text/html is 406" 406 '^content-type: application/json' '"code":-32000' -- \
  -H 'Content-Type: application/json' -H 'Accept: text/html' -d "$list" "$url"
check "unknown method is 404 -32601" 404 '^content-type: application/json' '"code":-32601' -- \
  "${json[@]}" -H 'Mcp-Method: no/such' \
  -d '{"jsonrpc":"2.0","id":3,"method":"no/such","params":{'"$meta"'}}' "$url"
check "a header that does not match the body is 400 -32020" 400 '^content-type: application/json' \
  '"code":-32020' -- "${json[@]}" -H 'Mcp-Method: tools/call' -d "$list" "$url"
check "bad JSON is 400 -32700" 400 '^content-type: application/json' '"code":-32700' -- \
  "${json[@]}" -d '{nope' "$url"
head -c 70000000 /dev/zero | tr '\0' ' ' >"$work/big"
check "a body over 64M is 413" 413 '^connection: close' '"code":-32000' -- \
  "${json[@]}" --data-binary @"$work/big" "$url"
check "a header over 16k is 431" 431 '^connection: close' '"code":-32000' -- \
  "${json[@]}" -H "X-Pad: $(head -c 20000 /dev/zero | tr '\0' p)" -d "$list" "$url"
check "no Mcp-Session-Id minted" 200 '^content-type' '"tools"' -- \
  "${json[@]}" "${listing[@]}" -H 'Mcp-Session-Id: abc' -d "$list" "$url"
if grep -qi '^mcp-session-id' "$work/head"; then
  echo "FAIL: a session id was sent"
  failures=$((failures + 1))
fi
exit $((failures > 0))
