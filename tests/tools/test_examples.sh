#!/usr/bin/env bash
# Tests for the example tool scripts in tools/.
#
# Each tool is called the way mcp-shell-host calls it: the script is sourced in
# a fresh bash (stdin /dev/null) and tool_<name> gets the arguments as one JSON
# string in "$1". Checks exit status and output for every success and failure
# path, validates the comment metadata, and runs shellcheck.
#
# jq 1.6 takes ~50 ms to start and every tool call runs it, so the sections
# run in parallel, each writing its own log; the logs are printed in order.
#
# Usage: tests/tools/test_examples.sh      (the last line is "N passed, M failed")
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools=$(cd "$here/../../tools" && pwd)
movies=$tools/movies.sh
files=$tools/files.sh
gitsh=$tools/git.sh
backup=$tools/backup.sh

# Absolute paths, so checks that change PATH (no git installed) still work.
bash_bin=$(command -v bash)
timeout_bin=$(command -v timeout)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset FILES_ROOT

# --- helpers ----------------------------------------------------------------------

# One line per check: "ok   NAME", or "FAIL NAME" followed by indented
# details. The final tally counts these lines.
pass() {
  echo "ok   $1"
}

# fail NAME DETAIL...
fail() {
  echo "FAIL $1"
  shift
  printf '       %s\n' "$@"
}

# call DIR SCRIPT TOOL ARGS_JSON: run one tool like the host does, in DIR.
# Sets $out (stdout, trailing newlines trimmed) and $rc. stderr goes to a log.
call() {
  local dir=$1 script=$2 fn=$3 args=$4
  # shellcheck disable=SC2016 # $1.. expand in the inner bash, not here
  out=$(cd "$dir" && "$timeout_bin" 10 "$bash_bin" -c 'source "$1" >/dev/null || exit 99; "$2" "$3"' \
    _ "$script" "$fn" "$args" </dev/null 2>>"$tmp/stderr.log")
  rc=$?
}

# expect ok|fail REGEX NAME DIR SCRIPT TOOL ARGS_JSON
# Call the tool; check the exit status (ok: 0, fail: non-zero, from the tool
# itself) and that the output matches the extended regular expression REGEX.
expect() {
  local want=$1 pattern=$2 name=$3
  shift 3
  call "$@"
  if [[ $want == ok && $rc -ne 0 ]] || [[ $want == fail && ($rc -eq 0 || $rc -ge 99) ]]; then
    fail "$name" "expected $want, got exit status $rc" "output: $out"
  elif [[ ! $out =~ $pattern ]]; then
    fail "$name" "output does not match /$pattern/" "output: $out"
  else
    pass "$name"
  fi
}

# also REGEX NAME: check the output of the previous call against another
# pattern, without calling the tool again.
also() {
  if [[ $out =~ $1 ]]; then
    pass "$2"
  else
    fail "$2" "output does not match /$1/" "output: $out"
  fi
}

# Print the comment block directly above function $2 in script $1.
doc_block() {
  awk -v fn="$2" '
    /^#/ { block = block $0 "\n"; next }
    $0 ~ "^" fn "\\(\\)" { printf "%s", block; exit }
    { block = "" }' "$1"
}

# check_metadata SCRIPT FUNCTION: the comment block above the tool, resource or
# prompt has a description, the tags its kind knows, valid @param, @arg and
# @uri lines and a JSON object in each @input/@output/@annotations (which may
# continue on the following lines). Saves the @output schema in $output_schema.
check_metadata() {
  local script=$1 fn=$2 kind=${2%%_*} line tag="" json="" description="" problems=() uris=0
  output_schema=""
  # Read the block plus a final "@end" line, so the last tag is finished too.
  while IFS= read -r line; do
    line=${line#\#}
    line=${line# }
    [[ $line == shellcheck* ]] && continue
    if [[ $line != @* ]]; then
      if [[ -z $tag ]]; then description+=$line; else json+=$'\n'$line; fi
      continue
    fi
    # A new tag: finish the previous one.
    case $tag in
      @input | @output | @annotations)
        if ! jq -e 'type == "object"' <<<"$json" >/dev/null 2>&1; then
          problems+=("$tag is not a JSON object: $json")
        fi
        [[ $tag == @output ]] && output_schema=$json
        ;;
    esac
    tag=${line%% *}
    json=${line#"$tag"}
    case $tag in
      @param)
        [[ $line =~ ^@param\ [A-Za-z_][A-Za-z0-9_]*\ (string|integer|number|boolean|object|array)\??\ .+ ]] ||
          problems+=("bad @param line: $line")
        ;;
      @timeout) [[ $line =~ ^@timeout\ [1-9][0-9]*$ ]] || problems+=("bad @timeout line: $line") ;;
      @task) [[ $kind == tool && $line =~ ^@task(\ optional|\ required)?$ ]] || problems+=("bad @task line: $line") ;;
      @title | @annotations | @end) ;;
      @input | @output) [[ $kind == tool ]] || problems+=("$tag belongs to tools") ;;
      @uri)
        uris=$((uris + 1))
        [[ $kind == resource && $line =~ ^@uri\ [A-Za-z][A-Za-z0-9+.-]*:[^[:space:]]+$ ]] ||
          problems+=("bad @uri line (resources only, one URI or template): $line")
        ;;
      @mime | @size | @watch) [[ $kind == resource ]] || problems+=("$tag belongs to resources") ;;
      @sandbox)
        [[ $line =~ ^@sandbox\ [a-z=/.,0-9-]+$ ]] || problems+=("bad @sandbox line: $line")
        ;;
      @arg)
        [[ $kind == prompt && $line =~ ^@arg\ [A-Za-z_][A-Za-z0-9_]*\??\ .+ ]] ||
          problems+=("bad @arg line (prompts only, NAME[?] description): $line")
        ;;
      *) problems+=("unknown tag $tag") ;;
    esac
  done < <(doc_block "$script" "$fn" && echo "@end")
  [[ -n ${description// /} ]] || problems+=("no description above $fn")
  [[ $kind != resource || $uris -eq 1 ]] || problems+=("a resource needs one @uri line")
  if ((${#problems[@]} == 0)); then
    pass "$(basename "$script"): $fn metadata"
  else
    fail "$(basename "$script"): $fn metadata" "${problems[@]}"
  fi
}

# matches_schema SCHEMA JSON: JSON is an object with the schema's required
# properties, and every property present has the declared type (a small
# subset of JSON Schema, enough for flat objects).
matches_schema() {
  jq -en --argjson s "$1" --argjson d "$2" '
    def has_type($t):
      if $t == "integer" then type == "number" and . == floor
      elif $t == null then true
      else type == $t end;
    ($d | type) == "object"
    and ($s.required // [] | all(. as $k | $d | has($k)))
    and ($s.properties // {} | to_entries
         | all(. as $p | ($d | has($p.key) | not) or ($d[$p.key] | has_type($p.value.type))))' \
    >/dev/null 2>&1
}

# check_script SCRIPT TOOL...: sourcing prints nothing, leaves the shell
# options alone, and defines exactly these tools plus at least one helper;
# then checks each tool's metadata.
check_script() {
  local script=$1 name before after functions fn
  name=$(basename "$script")
  shift
  # shellcheck disable=SC2016 # $1 expands in the inner bash
  out=$("$bash_bin" -c 'source "$1"' _ "$script" 2>&1 </dev/null)
  rc=$?
  if [[ $rc -eq 0 && -z $out ]]; then
    pass "$name: sources silently"
  else
    fail "$name: sources silently" "exit status $rc, output: $out"
  fi

  before=$("$bash_bin" -c 'set -o; shopt -p')
  # shellcheck disable=SC2016
  after=$("$bash_bin" -c 'source "$1" >/dev/null 2>&1; set -o; shopt -p' _ "$script")
  if [[ $before == "$after" ]]; then
    pass "$name: leaves shell options alone"
  else
    fail "$name: leaves shell options alone" "$(diff <(echo "$before") <(echo "$after"))"
  fi

  # shellcheck disable=SC2016
  functions=$("$bash_bin" -c 'source "$1" >/dev/null 2>&1; declare -F' _ "$script" | awk '{ print $3 }')
  if [[ $(grep '^tool_' <<<"$functions" | sort | xargs) == "$(printf '%s\n' "$@" | sort | xargs)" ]]; then
    pass "$name: defines the tools $*"
  else
    fail "$name: defines the tools $*" "functions: $(xargs <<<"$functions")"
  fi

  for fn in "$@"; do
    check_metadata "$script" "$fn"
  done
}

# --- shellcheck ---------------------------------------------------------------------

test_shellcheck() {
  if ! command -v shellcheck >/dev/null 2>&1; then
    echo "skip shellcheck is not installed"
    return
  fi
  if out=$(cd "$tools/.." && shellcheck -x tools/*.sh 2>&1); then
    pass "shellcheck -x tools/*.sh"
  else
    fail "shellcheck -x tools/*.sh" "$out"
  fi
}

# --- movies.sh ----------------------------------------------------------------------

test_movies() {
  local dir=$tmp book_schema booking bad
  check_script "$movies" tool_list_movies tool_check_age tool_book_tickets
  book_schema=$output_schema

  expect ok '^1\. Pip the Lighthouse Cat \(rated U\) - £7\.50 per ticket - showtimes: 10:30, 13:00, 15:30
2\. Starfall' \
    "list_movies: id, title, rating, price and showtimes" "$dir" "$movies" tool_list_movies '{}'
  also '4\. Night Shift \(rated 18\) - £12\.00 per ticket - showtimes: 21:30, 23:45$' "list_movies: lists every film"

  expect ok '^ok: a customer aged 18 may watch "Night Shift" \(rated 18\)$' \
    "check_age: 18 may watch an 18" "$dir" "$movies" tool_check_age '{"movieId": 4, "customerAge": 18}'
  expect fail '^not allowed: "Night Shift" is rated 18, so customers must be at least 18 \(customerAge was 17\)$' \
    "check_age: 17 may not watch an 18" "$dir" "$movies" tool_check_age '{"movieId": 4, "customerAge": 17}'
  expect ok '^ok' "check_age: anyone may watch a U" "$dir" "$movies" tool_check_age '{"movieId": 1, "customerAge": 3}'
  expect fail 'at least 12' "check_age: 11 may not watch a 12" "$dir" "$movies" tool_check_age '{"movieId": 2, "customerAge": 11}'
  expect fail '^unknown movieId 99; call list_movies' \
    "check_age: unknown movie" "$dir" "$movies" tool_check_age '{"movieId": 99, "customerAge": 30}'
  expect fail '^movieId must be an integer id from list_movies, got null$' \
    "check_age: missing movieId" "$dir" "$movies" tool_check_age '{"customerAge": 30}'
  expect fail '^customerAge must be an integer between 0 and 120, got null$' \
    "check_age: missing customerAge" "$dir" "$movies" tool_check_age '{"movieId": 1}'
  expect fail '^customerAge must be an integer between 0 and 120, got "18"$' \
    "check_age: customerAge given as a string" "$dir" "$movies" tool_check_age '{"movieId": 4, "customerAge": "18"}'
  expect fail '^customerAge must be an integer between 0 and 120, got -1$' \
    "check_age: negative age" "$dir" "$movies" tool_check_age '{"movieId": 1, "customerAge": -1}'

  expect ok '"totalPrice": "31\.50"' "book_tickets: 3 tickets at £10.50" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 2, "showTime": "20:45", "numTickets": 3, "customerAge": 30}'
  booking=$out
  if [[ -n $book_schema ]] && matches_schema "$book_schema" "$booking"; then
    pass "book_tickets: output matches its @output schema"
  else
    fail "book_tickets: output matches its @output schema" "schema: $book_schema" "output: $booking"
  fi
  if jq -e '.movieId == 2 and .numTickets == 3 and .showTime == "20:45" and .currency == "GBP"
            and (.bookingId | test("^BK-2-2045-[0-9]{4}$")) and (.message | test("Total: £31\\.50"))' \
    <<<"$booking" >/dev/null 2>&1; then
    pass "book_tickets: confirmation fields"
  else
    fail "book_tickets: confirmation fields" "output: $booking"
  fi
  expect ok '"totalPrice": "120\.00"' "book_tickets: 10 tickets (the maximum)" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 4, "showTime": "23:45", "numTickets": 10, "customerAge": 18}'
  expect ok '"totalPrice": "7\.50"' "book_tickets: 1 ticket (the minimum)" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 1, "showTime": "10:30", "numTickets": 1, "customerAge": 5}'
  expect fail '^unknown movieId 42; call list_movies' "book_tickets: unknown movie" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 42, "showTime": "20:45", "numTickets": 1, "customerAge": 30}'
  expect fail '^movieId must be an integer id from list_movies, got "2"$' "book_tickets: movieId given as a string" \
    "$dir" "$movies" tool_book_tickets '{"movieId": "2", "showTime": "20:45", "numTickets": 1, "customerAge": 30}'
  expect fail '^"Starfall" is not showing at 20:40; choose one of: 14:00, 17:30, 20:45$' \
    "book_tickets: showtime not offered" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 2, "showTime": "20:40", "numTickets": 1, "customerAge": 30}'
  expect fail 'is not showing at 10:30' "book_tickets: another film's showtime" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 2, "showTime": "10:30", "numTickets": 1, "customerAge": 30}'
  expect fail '^showTime must be a time as HH:MM \(e\.g\. 20:45\), got "8pm"$' "book_tickets: malformed showtime" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 2, "showTime": "8pm", "numTickets": 1, "customerAge": 30}'
  expect fail '^showTime must be a time as HH:MM' "book_tickets: missing showtime" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 2, "numTickets": 1, "customerAge": 30}'
  for bad in 0 11 2.5 '"3"' null; do
    expect fail "^numTickets must be an integer between 1 and 10, got ${bad//./\\.}\$" \
      "book_tickets: numTickets $bad refused" "$dir" "$movies" tool_book_tickets \
      "{\"movieId\": 2, \"showTime\": \"20:45\", \"numTickets\": $bad, \"customerAge\": 30}"
  done
  expect fail '^not allowed: "The Quiet Harbour" is rated 15, so customers must be at least 15 \(customerAge was 14\)$' \
    "book_tickets: too young for the rating" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 3, "showTime": "21:00", "numTickets": 2, "customerAge": 14}'
  expect fail '^customerAge must be an integer between 0 and 120, got null$' "book_tickets: missing customerAge" \
    "$dir" "$movies" tool_book_tickets '{"movieId": 3, "showTime": "21:00", "numTickets": 2}'
}

# --- files.sh -----------------------------------------------------------------------

test_files() {
  local root=$tmp/files/root sibling=$tmp/files/root-old elsewhere=$tmp/files/elsewhere bad
  check_script "$files" tool_list_dir tool_read_file tool_file_info
  check_metadata "$files" resource_file
  check_metadata "$files" prompt_review_file

  # A served root and, next to it, a directory whose name starts with the
  # root's name (a naive prefix check would think it is inside).
  mkdir -p "$root/sub/deeper" "$sibling" "$elsewhere"
  printf 'hello world\n' >"$root/hello.txt"
  printf 'inner\n' >"$root/sub/inner.txt"
  printf 'dash\n' >"$root/-dash.txt"
  printf 'spaces\n' >"$root/name with spaces.txt"
  printf 'hidden\n' >"$root/.hidden"
  printf '%s' 0123456789abcdefghij >"$root/big.txt"
  printf 'PNG\0\1\2binary' >"$root/blob.bin"
  printf 'secret\n' >"$sibling/secret.txt"
  ln -s hello.txt "$root/link-in"
  ln -s sub "$root/link-dir"
  ln -s /etc "$root/link-etc"
  ln -s /etc/passwd "$root/link-passwd"
  ln -s ../root-old/secret.txt "$root/link-sibling"
  ln -s "$sibling/secret.txt" "$root/link-sibling-abs"
  ln -s /nonexistent/file "$root/dangling-out"
  ln -s missing.txt "$root/dangling-in"
  mkfifo "$root/fifo"
  ln -s root "$tmp/files/root-link"

  expect ok '(^|
)file  hello\.txt \(12 bytes\)(
|$)' "list_dir: default is the current directory" "$root" "$files" tool_list_dir '{}'
  also '(^|
)dir   sub/(
|$)' "list_dir: shows directories"
  also '(^|
)link  link-etc(
|$)' "list_dir: shows symlinks without following them"
  also 'file  \.hidden' "list_dir: shows dotfiles"
  also 'file  name with spaces\.txt' "list_dir: names with spaces"
  also 'other fifo' "list_dir: special files"
  expect ok '^dir   deeper/
file  inner\.txt \(6 bytes\)$' "list_dir: subdirectory, sorted" "$root" "$files" tool_list_dir '{"path": "sub"}'
  expect ok 'inner\.txt' "list_dir: symlinked directory inside the root" "$root" "$files" tool_list_dir '{"path": "link-dir"}'
  expect ok '^\(empty directory: sub/deeper\)$' "list_dir: empty directory" "$root" "$files" tool_list_dir '{"path": "sub/deeper"}'
  FILES_ROOT=$root expect ok 'hello\.txt' "list_dir: FILES_ROOT overrides the current directory" \
    "$elsewhere" "$files" tool_list_dir '{}'
  FILES_ROOT=$tmp/files/root-link expect ok 'hello\.txt' "list_dir: FILES_ROOT may itself be a symlink" \
    "$elsewhere" "$files" tool_list_dir '{}'
  FILES_ROOT=$tmp/nonexistent expect fail 'is not an existing directory \(check FILES_ROOT\)$' \
    "list_dir: missing FILES_ROOT" "$elsewhere" "$files" tool_list_dir '{}'
  expect fail '^not a directory: hello\.txt' "list_dir: a file" "$root" "$files" tool_list_dir '{"path": "hello.txt"}'
  expect fail '^no such file or directory: nope' "list_dir: missing directory" "$root" "$files" tool_list_dir '{"path": "nope"}'
  expect fail "^path must not contain '\.\.' components, got \.\.$" "list_dir: .. refused" \
    "$root" "$files" tool_list_dir '{"path": ".."}'
  expect fail "must not contain '\.\.' components" "list_dir: sub/../.. refused" \
    "$root" "$files" tool_list_dir '{"path": "sub/../.."}'
  expect fail '^path must be relative to the served root, got the absolute path /etc$' "list_dir: absolute path refused" \
    "$root" "$files" tool_list_dir '{"path": "/etc"}'
  expect fail '^refused: link-etc resolves to a location outside the served root$' "list_dir: symlink to /etc refused" \
    "$root" "$files" tool_list_dir '{"path": "link-etc"}'
  expect fail '^refused' "list_dir: symlink to /etc with a trailing slash refused" \
    "$root" "$files" tool_list_dir '{"path": "link-etc/"}'

  expect ok '^hello world$' "read_file: text file" "$root" "$files" tool_read_file '{"path": "hello.txt"}'
  expect ok '^hello world$' "read_file: ./ prefix" "$root" "$files" tool_read_file '{"path": "./hello.txt"}'
  expect ok '^inner$' "read_file: file in a subdirectory" "$root" "$files" tool_read_file '{"path": "sub/inner.txt"}'
  expect ok '^inner$' "read_file: through a symlinked directory inside the root" \
    "$root" "$files" tool_read_file '{"path": "link-dir/inner.txt"}'
  expect ok '^hello world$' "read_file: symlink inside the root" "$root" "$files" tool_read_file '{"path": "link-in"}'
  expect ok '^dash$' "read_file: name starting with -" "$root" "$files" tool_read_file '{"path": "-dash.txt"}'
  expect ok '^spaces$' "read_file: name with spaces" "$root" "$files" tool_read_file '{"path": "name with spaces.txt"}'
  FILES_ROOT=$root expect ok '^hello world$' "read_file: relative to FILES_ROOT" \
    "$elsewhere" "$files" tool_read_file '{"path": "hello.txt"}'
  expect ok '^01234
\[truncated: showed the first 5 of 20 bytes; pass a larger maxBytes to see more\]$' \
    "read_file: maxBytes truncates, with a note" "$root" "$files" tool_read_file '{"path": "big.txt", "maxBytes": 5}'
  expect ok '^0123456789abcdefghij$' "read_file: maxBytes equal to the size" \
    "$root" "$files" tool_read_file '{"path": "big.txt", "maxBytes": 20}'
  expect ok '^blob\.bin is a binary file \(12 bytes\); its content is not shown$' "read_file: binary file described" \
    "$root" "$files" tool_read_file '{"path": "blob.bin"}'
  expect fail '^path is required' "read_file: missing path" "$root" "$files" tool_read_file '{}'
  for bad in 0 1048577 '"10"' 2.5; do
    expect fail "^maxBytes must be an integer between 1 and 1048576, got ${bad//./\\.}\$" "read_file: maxBytes $bad refused" \
      "$root" "$files" tool_read_file "{\"path\": \"hello.txt\", \"maxBytes\": $bad}"
  done
  expect fail "must not contain '\.\.' components" "read_file: ../ into the sibling directory refused" \
    "$root" "$files" tool_read_file '{"path": "../root-old/secret.txt"}'
  expect fail "must not contain '\.\.' components" "read_file: sub/../../ refused" \
    "$root" "$files" tool_read_file '{"path": "sub/../../root-old/secret.txt"}'
  expect fail '^path must be relative' "read_file: absolute /etc/passwd refused" \
    "$root" "$files" tool_read_file '{"path": "/etc/passwd"}'
  expect fail '^path must be relative' "read_file: absolute path refused even inside the root" \
    "$root" "$files" tool_read_file "{\"path\": \"$root/hello.txt\"}"
  expect fail '^refused: link-etc/passwd resolves to a location outside' "read_file: through a symlink to /etc refused" \
    "$root" "$files" tool_read_file '{"path": "link-etc/passwd"}'
  expect fail '^refused: link-passwd resolves' "read_file: symlink to /etc/passwd refused" \
    "$root" "$files" tool_read_file '{"path": "link-passwd"}'
  expect fail '^refused: link-sibling resolves' "read_file: relative symlink into root-old (same prefix) refused" \
    "$root" "$files" tool_read_file '{"path": "link-sibling"}'
  expect fail '^refused: link-sibling-abs resolves' "read_file: absolute symlink into root-old (same prefix) refused" \
    "$root" "$files" tool_read_file '{"path": "link-sibling-abs"}'
  expect fail '^refused: dangling-out resolves' "read_file: dangling symlink pointing outside refused" \
    "$root" "$files" tool_read_file '{"path": "dangling-out"}'
  expect fail '^no such file or directory: dangling-in' "read_file: dangling symlink inside" \
    "$root" "$files" tool_read_file '{"path": "dangling-in"}'
  expect fail '^no such file or directory: nope\.txt' "read_file: missing file" \
    "$root" "$files" tool_read_file '{"path": "nope.txt"}'
  expect fail '^sub is a directory; use list_dir' "read_file: directory refused" \
    "$root" "$files" tool_read_file '{"path": "sub"}'
  expect fail '^fifo is not a regular file' "read_file: FIFO refused (without blocking)" \
    "$root" "$files" tool_read_file '{"path": "fifo"}'

  expect ok '^path: hello\.txt
type: regular file \(text\)
size: 12 bytes
permissions: -rw' "file_info: text file" "$root" "$files" tool_file_info '{"path": "hello.txt"}'
  expect ok '^path: link-in
symlink to: hello\.txt
' "file_info: symlink inside the root" "$root" "$files" tool_file_info '{"path": "link-in"}'
  expect ok 'type: regular file \(binary\)' "file_info: binary file" "$root" "$files" tool_file_info '{"path": "blob.bin"}'
  expect ok 'type: directory' "file_info: the root itself" "$root" "$files" tool_file_info '{"path": "."}'
  expect ok 'type: fifo' "file_info: FIFO" "$root" "$files" tool_file_info '{"path": "fifo"}'
  expect fail '^refused' "file_info: symlink to /etc refused" "$root" "$files" tool_file_info '{"path": "link-etc"}'
  expect fail '^refused' "file_info: symlink into root-old refused" "$root" "$files" tool_file_info '{"path": "link-sibling"}'
  expect fail "must not contain '\.\.'" "file_info: .. refused" "$root" "$files" tool_file_info '{"path": "sub/.."}'
  expect fail '^path is required' "file_info: missing path" "$root" "$files" tool_file_info '{}'

  # The resource template files:///{+path}, its completion and the review
  # prompt's. (A file read and the prompt call the host's mcp_resource: they are
  # tested through the host, in tests/e2e/verbs_test.cc.)
  expect ok '^dir   deeper/
file  inner\.txt \(6 bytes\)$' "resource_file: a folder reads as its listing" \
    "$root" "$files" resource_file '{"uri": "files:///sub", "variables": {"path": "sub"}}'
  expect fail "must not contain '\.\.'" "resource_file: .. refused" \
    "$root" "$files" resource_file '{"uri": "files:///../root-old/secret.txt", "variables": {"path": "../root-old/secret.txt"}}'
  expect fail '^path must be relative' "resource_file: absolute path refused" \
    "$root" "$files" resource_file '{"uri": "files:////etc/passwd", "variables": {"path": "/etc/passwd"}}'
  expect fail '^refused' "resource_file: symlink out of the root refused" \
    "$root" "$files" resource_file '{"uri": "files:///link-etc/passwd", "variables": {"path": "link-etc/passwd"}}'
  expect fail 'not a readable regular file' "resource_file: FIFO refused" \
    "$root" "$files" resource_file '{"uri": "files:///fifo", "variables": {"path": "fifo"}}'
  expect ok '^a%20b/%C3%A9%25\.txt$' "uri_path: percent-encodes all but unreserved bytes and /" \
    "$root" "$files" uri_path 'a b/é%.txt'
  expect ok '^hello\.txt$' "complete_review_file: path by prefix" "$root" "$files" complete_review_file \
    '{"ref": "prompt", "name": "review_file", "argument": "path", "value": "hel", "arguments": {}}'
  expect ok '^sub/deeper/
sub/inner\.txt$' "complete_review_file: names in a folder, folders with a slash" "$root" "$files" \
    complete_review_file '{"ref": "prompt", "name": "review_file", "argument": "path", "value": "sub/", "arguments": {}}'
  expect ok '^-dash\.txt
big\.txt
' "complete_review_file: everything but dot files for an empty value" "$root" "$files" \
    complete_review_file '{"ref": "prompt", "name": "review_file", "argument": "path", "value": "", "arguments": {}}'
  if [[ $out == *.hidden* ]]; then
    fail "complete_review_file: no dot files unless typed" "output: $out"
  else
    pass "complete_review_file: no dot files unless typed"
  fi
  expect ok '^\.hidden$' "complete_review_file: dot files when typed" "$root" "$files" complete_review_file \
    '{"ref": "prompt", "name": "review_file", "argument": "path", "value": ".h", "arguments": {}}'
  expect ok '^$' "complete_review_file: nothing outside the root (..)" "$root" "$files" complete_review_file \
    '{"ref": "prompt", "name": "review_file", "argument": "path", "value": "../root", "arguments": {}}'
  expect ok '^$' "complete_review_file: nothing through a symlink out of the root" "$root" "$files" \
    complete_review_file '{"ref": "prompt", "name": "review_file", "argument": "path", "value": "link-etc/pass", "arguments": {}}'
  expect ok '^security$' "complete_review_file: focus themes" "$root" "$files" complete_review_file \
    '{"ref": "prompt", "name": "review_file", "argument": "focus", "value": "sec", "arguments": {"path": "hello.txt"}}'
  expect ok '^sub/inner\.txt$' "complete_file: the template's path" "$root" "$files" complete_file \
    '{"ref": "resource", "name": "file", "argument": "path", "value": "sub/i", "arguments": {}}'
}

# --- git.sh -------------------------------------------------------------------------

# Run git for test setup, with an identity and without the user's config.
git_setup() {
  GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
    git -c user.name=Tester -c user.email=tester@example.com -c commit.gpgsign=false "$@"
}

test_git() {
  local base=$tmp/git repo=$tmp/git/repo bad r
  check_script "$gitsh" tool_git_status tool_git_log

  if ! command -v git >/dev/null 2>&1; then
    echo "skip git is not installed: git.sh tools not exercised"
    return
  fi
  mkdir -p "$repo" "$base/plain" "$base/empty"
  for r in "$repo" "$base/empty"; do
    git_setup -C "$r" init -q
    git_setup -C "$r" symbolic-ref HEAD refs/heads/main
  done
  printf 'one\n' >"$repo/a.txt"
  git_setup -C "$repo" add a.txt
  git_setup -C "$repo" commit -q -m "Add a.txt"
  printf 'two\n' >"$repo/b.txt"
  git_setup -C "$repo" add b.txt
  git_setup -C "$repo" commit -q -m "Add b.txt"
  printf 'file\n' >"$base/not-a-dir"

  expect ok '^## main
\(working tree clean\)$' "git_status: clean tree" "$base" "$gitsh" tool_git_status "{\"repo\": \"$repo\"}"
  expect ok '^## main
\(working tree clean\)$' "git_status: repo relative to the current directory" \
    "$base" "$gitsh" tool_git_status '{"repo": "repo"}'
  printf 'changed\n' >>"$repo/a.txt"
  printf 'new\n' >"$repo/new.txt"
  expect ok '^## main
 M a\.txt
\?\? new\.txt$' "git_status: modified and untracked files" "$base" "$gitsh" tool_git_status "{\"repo\": \"$repo\"}"
  expect ok '^## No commits yet on main' "git_status: repository without commits" \
    "$base" "$gitsh" tool_git_status "{\"repo\": \"$base/empty\"}"
  expect fail "^not a git repository: $base/plain" "git_status: not a git repository" \
    "$base" "$gitsh" tool_git_status "{\"repo\": \"$base/plain\"}"
  expect fail '^repo path does not exist: nope$' "git_status: missing path" "$base" "$gitsh" tool_git_status '{"repo": "nope"}'
  expect fail '^repo path is not a directory' "git_status: a file" \
    "$base" "$gitsh" tool_git_status "{\"repo\": \"$base/not-a-dir\"}"
  expect fail '^repo is required' "git_status: missing repo" "$base" "$gitsh" tool_git_status '{}'

  expect ok '^[0-9a-f]{7,} [0-9]{4}-[0-9]{2}-[0-9]{2} Tester: Add b\.txt
[0-9a-f]{7,} [0-9-]{10} Tester: Add a\.txt$' "git_log: newest first, default count" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\"}"
  expect ok '^[0-9a-f]+ [0-9-]{10} Tester: Add b\.txt$' "git_log: maxCount 1" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\", \"maxCount\": 1}"
  expect ok '^[0-9a-f]+ [0-9-]{10} Tester: Add a\.txt$' "git_log: path filter" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\", \"path\": \"a.txt\"}"
  expect ok '^\(no commits touch --all\)$' "git_log: a path starting with - is a path, not an option" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\", \"path\": \"--all\"}"
  expect ok '^\(no commits yet in ' "git_log: repository without commits" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$base/empty\"}"
  for bad in 0 101 '"5"' 2.5; do
    expect fail "^maxCount must be an integer between 1 and 100, got ${bad//./\\.}\$" "git_log: maxCount $bad refused" \
      "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\", \"maxCount\": $bad}"
  done
  expect fail '^git log failed in .*is outside repository' "git_log: path outside the repository" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\", \"path\": \"../x\"}"
  expect fail '^not a git repository' "git_log: not a git repository" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$base/plain\"}"
  expect fail '^repo path does not exist' "git_log: missing path" "$base" "$gitsh" tool_git_log '{"repo": "nope"}'
  expect fail '^repo is required' "git_log: missing repo" "$base" "$gitsh" tool_git_log '{"maxCount": 5}'

  # With only jq on PATH, the tools say git is missing instead of failing obscurely.
  mkdir -p "$base/bin-without-git"
  ln -s "$(command -v jq)" "$base/bin-without-git/jq"
  PATH=$base/bin-without-git expect fail '^git is not installed on the server' "git_log: git not installed" \
    "$base" "$gitsh" tool_git_log "{\"repo\": \"$repo\"}"
  PATH=$base/bin-without-git expect fail '^git is not installed on the server' "git_status: git not installed" \
    "$base" "$gitsh" tool_git_status "{\"repo\": \"$repo\"}"
}

# --- backup.sh ----------------------------------------------------------------------

# The host's mcp_task and mcp_progress write to its side channel; here they append to a
# file, so that the checks see what the tool reported.
test_backup() {
  local base=$tmp/backup src reports name
  mkdir -p "$base/src/sub" "$base/out"
  for name in $(seq 1 45); do echo "file $name" >"$base/src/f$name"; done
  echo nested >"$base/src/sub/g"
  reports=$base/reports
  check_script "$backup" tool_backup_folder
  # shellcheck disable=SC2016 # $1.. expand in the inner bash, not here
  out=$(cd "$base" && "$timeout_bin" 20 "$bash_bin" -c '
    reports=$1
    mcp_task() { echo "task $*" >>"$reports"; }
    mcp_progress() { echo "progress $*" >>"$reports"; }
    source "$2" >/dev/null || exit 99
    tool_backup_folder "$3"' _ "$reports" "$backup" \
    "{\"dir\": \"$base/src\", \"dest\": \"$base/out\"}" </dev/null 2>>"$tmp/stderr.log")
  rc=$?
  if ((rc == 0)) && [[ $out =~ ^Backed\ up\ 46\ files\ from\ .*/src\ to\ .*/out/backup-src-[0-9TZ]+\.tar\.gz ]]; then
    pass "backup_folder: archives every file"
  else
    fail "backup_folder: archives every file" "exit status $rc" "output: $out"
  fi
  if [[ $(tar -tzf "$base"/out/backup-src-*.tar.gz | sort | tr '\n' ' ') == *"./f45 "*"./sub/g "* ]]; then
    pass "backup_folder: the archive holds the files"
  else
    fail "backup_folder: the archive holds the files" "$(tar -tzf "$base"/out/backup-src-*.tar.gz 2>&1 | head)"
  fi
  if [[ $(head -1 "$reports") == "task backing up 46 files from $base/src" &&
    $(grep -c '^progress ' "$reports") == 3 && $(tail -1 "$reports") == "progress 46 46 archived "* ]]; then
    pass "backup_folder: becomes a task, then reports every 20th file and the last"
  else
    fail "backup_folder: becomes a task, then reports every 20th file and the last" "$(cat "$reports")"
  fi
  expect fail '^no such folder: /nonexistent$' "backup_folder: missing folder" \
    "$base" "$backup" tool_backup_folder '{"dir": "/nonexistent"}'
  expect fail '^cannot write into /nonexistent$' "backup_folder: missing destination" \
    "$base" "$backup" tool_backup_folder "{\"dir\": \"$base/src\", \"dest\": \"/nonexistent\"}"
}

# --- run ----------------------------------------------------------------------------

sections=(shellcheck movies files git backup)
logs=()
for section in "${sections[@]}"; do
  logs+=("$tmp/$section.log")
  "test_$section" >"$tmp/$section.log" 2>&1 &
done
wait
cat "${logs[@]}"
passed=$(cat "${logs[@]}" | grep -c '^ok ')
failed=$(cat "${logs[@]}" | grep -c '^FAIL ')
echo "$passed passed, $failed failed"
((failed == 0))
