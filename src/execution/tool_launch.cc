#include "execution/tool_launch.h"

namespace mcpsh::execution {

namespace {

// Kept in one string so that a call costs one exec of bash and nothing else.
//
// Why it is written this way:
//  - `bash -p` (see make_tool_launch) ignores functions exported in the environment
//    (BASH_FUNC_read%%) and SHELLOPTS/BASHOPTS, so nothing from the environment runs or
//    applies before the script; `set +p` then leaves nothing of privileged mode behind.
//  - One brace group: bash parses it whole before running any of it, so aliases the
//    script defines cannot change the lines after `source`.
//  - After `source` any command name may be a function of the script. In POSIX mode
//    special builtins (`unset`, `exec`, `exit`) are found before functions: the lines
//    that need them run in POSIX mode, a function named `builtin` is removed, other
//    builtins are called as `builtin X`. Leaving POSIX mode does not restore
//    inherit_errexit and expand_aliases, so the bootstrap does; a script that chose
//    POSIX mode keeps it.
//  - Nothing relies on an exit status the script's `set -e`, `pipefail` or ERR trap
//    could act on: every command that may fail is an `if` condition.
//  - The arguments are read with `$(< file)`: no command to replace, read in blocks
//    (`read -d ''` costs bash a step per byte). /dev/fd/5 opens the file afresh, from
//    its start. Compact JSON has no trailing newline for the substitution to strip.
//  - fds 3 and 5 are closed for good before the tool runs: by `exec` itself (neither a
//    redirection of the call nor `builtin exec`, of which bash keeps a copy to restore).
// The channel protocol on fd 4, one line per message: "progress\t<n>\t<total>\t<message>",
// "log\t<level>\t<message>", the content lines and the ask lines of channel_events.h (see
// the helpers below).
// The asking helpers (mcp_elicit and the like) read the answers of earlier rounds from
// __mcp_inputs (the lines after the arguments in fd 5, tool_launch.h) and print them with
// `printf %b`; a question without an answer is an ask line, then SIGKILL to the process
// group: the run must not go on without its answer, and `exit` would only leave a $( ). The helpers
// are defined before the script is sourced, so a script may replace them. The content helpers
// (mcp_image, mcp_audio, mcp_resource, mcp_resource_link):
//  - The tool reads the bytes and sends them (`base64 -w0`, coreutils): the host never
//    opens a path a tool names, so a tool can return only what it can read itself.
//  - A MIME type not given is derived from the file name's extension (no process, the
//    same answer everywhere), else from `file --mime-type -b` when it is installed.
//  - A mistake (unreadable file, no MIME type, an option without its value) is written
//    to stderr as "mcp_image: ..." and the helper returns 1: the tool's own error, as any
//    failed command is (with `set -e` the tool stops and the result shows the message).
//  - The line is written in parts: a helper called from two background jobs at once may
//    interleave with the other's line.
const char* tool_bootstrap() {
  return R"BASH({
__mcp_script=$1
set +p --
# mcp_progress PROGRESS [TOTAL] [MESSAGE] -- report progress (numbers, increasing).
# (LC_ALL=C in the helpers that replace characters: bytes suffice for TAB and newline,
# and a multibyte locale makes bash rescan the string at every match.)
mcp_progress() {
  builtin local LC_ALL=C m="${3:-}"
  { builtin printf 'progress\t%s\t%s\t%s\n' "${1:-}" "${2:-}" "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# mcp_task [MESSAGE] -- from here on, go on as a task when the call can be one (a tool
#   marked @task, a client that takes tasks): the client gets the task now and the tool
#   runs on in the background; MESSAGE is the task's status. Otherwise it does nothing.
mcp_task() {
  builtin local LC_ALL=C m="${1:-}"
  { builtin printf 'task\t%s\n' "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# mcp_log LEVEL MESSAGE -- LEVEL: debug info notice warning error critical alert emergency.
mcp_log() {
  builtin local LC_ALL=C m="${2:-}"
  { builtin printf 'log\t%s\t%s\n' "${1:-info}" "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# Content blocks, added to the result after the text the tool prints, in call order.
# Options before the arguments annotate the block: --audience user|assistant|user,assistant
# --priority 0..1 --last-modified ISO-8601-TIME (e.g. 2025-01-12T15:00:58Z).
# mcp_image [OPTIONS] FILE [MIME]           -- an image file, as base64
# mcp_audio [OPTIONS] FILE [MIME]           -- an audio file, as base64
# mcp_resource [OPTIONS] URI [MIME] [FILE]  -- an embedded resource read from FILE (or
#   stdin); text when MIME is text/*, JSON, XML or YAML (or unknown) and the bytes are
#   UTF-8, else a blob. MIME defaults to the one of FILE's (or URI's) extension.
# mcp_resource_link [OPTIONS] URI [NAME] [MIME] [DESCRIPTION] -- a link to a resource.
# mcp_message [OPTIONS] ROLE [TEXT...]     -- a text block (TEXT, else stdin); in a prompt,
#   a message of ROLE (user or assistant)
# --role user|assistant gives the other helpers' blocks their role in a prompt.
mcp_image() { __mcp_media image mcp_image "$@"; }
mcp_message() {
  builtin local __mcp_h=mcp_message __mcp_a __mcp_n
  if ! __mcp_opts "$@"; then builtin return 1; fi
  builtin shift "$__mcp_n"
  builtin local r="${1-}"
  if [[ $r != user && $r != assistant ]]; then __mcp_fail 'needs a ROLE: user or assistant'; builtin return 1; fi
  builtin shift
  { builtin printf 'text\t%s\t' "role=$r;$__mcp_a"
    if (($#)); then builtin printf '%s' "$*" | builtin command base64 -w0; else builtin command base64 -w0; fi
    builtin printf '\n'; } 2>/dev/null >&4 || builtin true
}
mcp_audio() { __mcp_media audio mcp_audio "$@"; }
mcp_resource() {
  builtin local __mcp_h=mcp_resource __mcp_a __mcp_n __mcp_m
  if ! __mcp_opts "$@"; then builtin return 1; fi
  builtin shift "$__mcp_n"
  builtin local u="${1-}" f="${3-}"
  if [[ -z $u ]]; then __mcp_fail 'needs a URI'; builtin return 1; fi
  if [[ -n $f && ! ( -f $f && -r $f ) ]]; then __mcp_fail "cannot read '$f'"; builtin return 1; fi
  __mcp_m="${2-}"
  if [[ -z $__mcp_m ]]; then __mcp_mime "${f:-${u%%[?#]*}}" "$f"; fi
  { builtin printf 'resource\t%s\t%s\t%s\t' "${u//[$'\t\n']/ }" "${__mcp_m//[$'\t\n']/ }" "$__mcp_a"
    if [[ -n $f ]]; then builtin command base64 -w0 -- "$f"; else builtin command base64 -w0; fi
    builtin printf '\n'; } 2>/dev/null >&4 || builtin true
}
mcp_resource_link() {
  builtin local __mcp_h=mcp_resource_link __mcp_a __mcp_n __mcp_m
  if ! __mcp_opts "$@"; then builtin return 1; fi
  builtin shift "$__mcp_n"
  builtin local u="${1-}" n="${2-}" d="${4-}"
  if [[ -z $u ]]; then __mcp_fail 'needs a URI'; builtin return 1; fi
  __mcp_m="${3-}"
  if [[ -z $__mcp_m ]]; then __mcp_mime "${u%%[?#]*}" ''; fi
  { builtin printf 'resource_link\t%s\t%s\t%s\t%s\t%s\n' "${u//[$'\t\n']/ }" "${n//[$'\t\n']/ }" \
      "${__mcp_m//[$'\t\n']/ }" "$__mcp_a" "${d//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
__mcp_media() {
  builtin local k="$1" __mcp_h="$2" __mcp_a __mcp_n __mcp_m
  builtin shift 2
  if ! __mcp_opts "$@"; then builtin return 1; fi
  builtin shift "$__mcp_n"
  builtin local f="${1-}"
  if [[ -z $f ]]; then __mcp_fail 'needs a FILE'; builtin return 1; fi
  if [[ ! ( -f $f && -r $f ) ]]; then __mcp_fail "cannot read '$f'"; builtin return 1; fi
  __mcp_m="${2-}"
  if [[ -z $__mcp_m ]]; then __mcp_mime "$f" "$f"; fi
  if [[ -z $__mcp_m ]]; then __mcp_fail "no MIME type known for '$f': give one"; builtin return 1; fi
  { builtin printf '%s\t%s\t%s\t' "$k" "${__mcp_m//[$'\t\n']/ }" "$__mcp_a"
    builtin command base64 -w0 -- "$f"
    builtin printf '\n'; } 2>/dev/null >&4 || builtin true
}
# Asking the client (MCP 2026-07-28 input requests; README "Tools that ask"). A question
# the call has no answer to yet ends the call's run at once (the whole process group):
# the client gets input_required, asks its user or model, and calls again with the answers;
# the tool then runs again from the top and the same helper, given the same KEY, returns
# the answer. KEY: 1 to 64 of A-Z a-z 0-9 _ . : -, the same on every run.
# mcp_elicit KEY MESSAGE SCHEMA -- a form (SCHEMA: a JSON object schema); prints the
#   answer's content as JSON; status 0 accepted, 1 declined, 2 cancelled
# mcp_confirm KEY MESSAGE       -- status 0 when the user accepted, else 1
# mcp_sample KEY PROMPT [--system TEXT] [--max-tokens N] [--json] -- asks the client's
#   model; prints its reply's text (--json: the whole CreateMessageResult)
# mcp_roots KEY [--json]        -- prints the client's root URIs, one a line
# mcp_ask elicit|confirm|sample|roots KEY ARGS... -- the same questions without ending the
#   run, so that one round asks several; mcp_ask_now then ends the run if any has no
#   answer yet (call both in the tool's own shell, not in $( )); read the answers with
#   the helpers above afterwards (KEY alone suffices then)
# mcp_client_can elicitation|sampling|roots -- status 0 when the client can answer that
# A mistake in how a helper is called is written to stderr and returns 64.
# For a client of an older revision (stdio) the host asks with a request of its own and
# the helper waits for the answer: the run goes on, nothing is run twice; mcp_ask then
# waits too. If the client answers with an error, the helper says so on stderr and
# returns 1.
mcp_elicit() {
  builtin local __mcp_h=mcp_elicit __mcp_r=0
  if __mcp_asking elicit "$@"; then __mcp_r=0; else __mcp_r=$?; fi
  case $__mcp_r in
    0) if [[ $__mcp_st == 0 ]]; then builtin printf '%b' "$__mcp_tx"; fi; builtin return "$__mcp_st" ;;
    3) __mcp_end_round ;;
  esac
  builtin return "$__mcp_r"
}
mcp_confirm() {
  builtin local __mcp_h=mcp_confirm __mcp_r=0
  if __mcp_asking confirm "$@"; then __mcp_r=0; else __mcp_r=$?; fi
  case $__mcp_r in
    0) if [[ $__mcp_st == 0 ]]; then builtin return 0; fi; builtin return 1 ;;
    3) __mcp_end_round ;;
  esac
  builtin return "$__mcp_r"
}
mcp_sample() {
  builtin local __mcp_h=mcp_sample __mcp_r=0
  if __mcp_asking sample "$@"; then __mcp_r=0; else __mcp_r=$?; fi
  case $__mcp_r in
    0) if ((__mcp_json)); then builtin printf '%b' "$__mcp_js"; else builtin printf '%b' "$__mcp_tx"; fi ;;
    3) __mcp_end_round ;;
  esac
  builtin return "$__mcp_r"
}
mcp_roots() {
  builtin local __mcp_h=mcp_roots __mcp_r=0
  if __mcp_asking roots "$@"; then __mcp_r=0; else __mcp_r=$?; fi
  case $__mcp_r in
    0) if ((__mcp_json)); then builtin printf '%b' "$__mcp_js"
       elif [[ -n $__mcp_tx ]]; then builtin printf '%b\n' "$__mcp_tx"; fi ;;
    3) __mcp_end_round ;;
  esac
  builtin return "$__mcp_r"
}
mcp_ask() {
  builtin local __mcp_h=mcp_ask __mcp_r=0
  case ${1-} in
    elicit|confirm|sample|roots) ;;
    *) __mcp_fail "needs elicit, confirm, sample or roots, got '${1-}'"; builtin return 64 ;;
  esac
  if __mcp_asking "$@"; then __mcp_r=0; else __mcp_r=$?; fi
  if ((__mcp_r == 3)); then builtin return 0; fi
  builtin return "$__mcp_r"
}
mcp_ask_now() {
  if ((__mcp_pending)); then __mcp_end_round; fi
  builtin return 0
}
mcp_client_can() { [[ ,$__mcp_caps, == *,"${1-}",* ]]; }
# __mcp_asking KIND KEY ARGS...: 0 with __mcp_st, __mcp_tx, __mcp_js set when KEY has its
# answer; else 3 once the question is sent (the caller ends the run or goes on), 64 on a
# mistake. __mcp_json is 1 when --json was given.
__mcp_asking() {
  builtin local kind="$1" key="${2-}" want=elicit system='' max=''
  builtin local -a __mcp_a
  __mcp_a=() __mcp_json=0
  if [[ ${#key} -lt 1 || ${#key} -gt 64 || $key == *[!A-Za-z0-9_.:-]* ]]; then
    __mcp_fail "needs a KEY (1 to 64 of A-Z a-z 0-9 _ . : -), got '$key'"; builtin return 64
  fi
  builtin shift $(($# < 2 ? $# : 2))
  while (($#)); do
    case $kind:$1 in
      sample:--system|sample:--max-tokens)
        if (($# < 2)); then __mcp_fail "$1 needs a value"; builtin return 64; fi
        if [[ $1 == --system ]]; then system=$2; else max=$2; fi
        builtin shift ;;
      sample:--json|roots:--json) __mcp_json=1 ;;
      *) __mcp_a+=("$1") ;;
    esac
    builtin shift
  done
  case $kind in sample|roots) want=$kind ;; esac
  if __mcp_find "$key" && [[ $__mcp_sh == "$want" ]]; then builtin return 0; fi
  case $kind in
    elicit)
      if ((${#__mcp_a[@]} < 2)); then __mcp_fail "needs KEY MESSAGE SCHEMA"; builtin return 64; fi
      __mcp_ask_line "$key" elicit "${__mcp_a[0]}" "${__mcp_a[1]}" ;;
    confirm)
      if ((${#__mcp_a[@]} < 1)); then __mcp_fail "needs KEY MESSAGE"; builtin return 64; fi
      __mcp_ask_line "$key" confirm "${__mcp_a[0]}" ;;
    sample)
      if ((${#__mcp_a[@]} < 1)); then __mcp_fail "needs KEY PROMPT"; builtin return 64; fi
      __mcp_ask_line "$key" sample "${__mcp_a[0]}" "$system" "$max" ;;
    roots) __mcp_ask_line "$key" roots ;;
  esac
  if [[ -n $__mcp_reply ]]; then __mcp_await "$key" "$want"; builtin return; fi
  __mcp_pending=1
  builtin return 3
}
# __mcp_await KEY SHAPE: the answer the host writes on the reply descriptor (mode "wait",
# tool_launch.h), newest first in __mcp_inputs: 0 answered; on "error" (the client
# refused) its message to stderr and its status; on "end" (the host will not ask) or
# when the host is gone, the run ends.
__mcp_await() {
  builtin local l m
  if ! IFS= TMOUT= builtin read -r l <&"$__mcp_reply"; then __mcp_end_round; fi
  __mcp_inputs=("$l" "${__mcp_inputs[@]}")
  if ! __mcp_find "$1"; then __mcp_end_round; fi
  case $__mcp_sh in
    "$2") builtin return 0 ;;
    error) builtin printf -v m '%b' "$__mcp_tx"; __mcp_fail "$m"; builtin return "$__mcp_st" ;;
  esac
  __mcp_end_round
}
# __mcp_find KEY: the answer line to KEY (asking::tool_input_lines) into __mcp_sh,
# __mcp_st, __mcp_tx, __mcp_js. In bytes (LC_ALL=C); the short fields are cut at their
# TAB, TEXT by its LENGTH (cutting a long string at a TAB is quadratic in bash); `test`,
# not [[ ]], so that nocasematch cannot make keys match in any case.
__mcp_find() {
  builtin local LC_ALL=C l n
  for l in "${__mcp_inputs[@]}"; do
    if builtin test "${l:0:${#1}+1}" != "$1"$'\t'; then builtin continue; fi
    l=${l:${#1}+1}
    __mcp_sh=${l%%$'\t'*}; l=${l:${#__mcp_sh}+1}
    __mcp_st=${l%%$'\t'*}; l=${l:${#__mcp_st}+1}
    n=${l%%$'\t'*}; l=${l:${#n}+1}
    __mcp_tx=${l:0:n}; __mcp_js=${l:n+1}
    builtin return 0
  done
  builtin return 1
}
# __mcp_ask_line KEY KIND FIELDS...: the ask line, fields escaped (\\ \n \t) byte by byte
# (LC_ALL=C: as the host reads them, and linear; a multibyte locale makes each
# replacement rescan the rest of the string).
__mcp_ask_line() {
  builtin local LC_ALL=C b='\' f line="ask"
  for f in "$@"; do
    f=${f//"$b"/"$b$b"}; f=${f//$'\n'/"$b"n}; f=${f//$'\t'/"$b"t}
    line+=$'\t'"$f"
  done
  { builtin printf '%s\n' "$line"; } 2>/dev/null >&4 || builtin true
}
# Ends the run. From the tool's own shell by exit, so that its EXIT trap cleans up (the
# host then ends the rest of the process group); from a $( ), a pipeline or a background
# job by SIGKILL to the whole group (the leader's: `set -m` gives jobs groups of their own),
# so that the tool cannot go on without its answer.
__mcp_end_round() {
  if [[ $BASHPID == "$__mcp_leader" ]]; then builtin exit 75; fi
  builtin kill -s KILL -- "-$__mcp_leader" 2>/dev/null || builtin kill -s KILL 0 2>/dev/null || builtin true
  builtin exit 75
}
__mcp_fail() { builtin printf '%s: %s\n' "$__mcp_h" "$1" >&2 || builtin true; }
# The annotation options at the front of "$@": __mcp_a gets them as the channel writes
# them, __mcp_n how many words they took.
__mcp_opts() {
  __mcp_a='' __mcp_n=0
  while [[ ${1-} == --* ]]; do
    if [[ $1 == -- ]]; then __mcp_n=$((__mcp_n + 1)); builtin return 0; fi
    if [[ $# -lt 2 ]]; then __mcp_fail "$1 needs a value"; builtin return 1; fi
    builtin local v="${2//[$'\t\n;']/ }"
    case $1 in
      --audience) __mcp_a+="audience=$v;" ;;
      --priority) __mcp_a+="priority=$v;" ;;
      --last-modified) __mcp_a+="lastModified=$v;" ;;
      --role) __mcp_a+="role=$v;" ;;
      *) __mcp_fail "unknown option $1 (--audience, --priority, --last-modified, --role)"; builtin return 1 ;;
    esac
    builtin shift 2
    __mcp_n=$((__mcp_n + 2))
  done
  builtin return 0
}
# __mcp_mime NAME [FILE]: __mcp_m from NAME's extension, else from `file` on FILE.
__mcp_mime() {
  builtin local e="${1##*/}"
  if [[ $e == *.* ]]; then e="${e##*.}"; e="${e,,}"; else e=''; fi
  case $e in
    png|gif|webp|bmp|avif) __mcp_m="image/$e" ;;
    jpg|jpeg) __mcp_m=image/jpeg ;;
    svg) __mcp_m=image/svg+xml ;;
    ico) __mcp_m=image/x-icon ;;
    tif|tiff) __mcp_m=image/tiff ;;
    wav) __mcp_m=audio/wav ;;
    mp3) __mcp_m=audio/mpeg ;;
    ogg|oga|opus) __mcp_m=audio/ogg ;;
    flac) __mcp_m=audio/flac ;;
    m4a) __mcp_m=audio/mp4 ;;
    aac) __mcp_m=audio/aac ;;
    txt|text|log) __mcp_m=text/plain ;;
    md|markdown) __mcp_m=text/markdown ;;
    html|htm) __mcp_m=text/html ;;
    csv) __mcp_m=text/csv ;;
    json) __mcp_m=application/json ;;
    xml) __mcp_m=application/xml ;;
    yaml|yml) __mcp_m=application/yaml ;;
    sh) __mcp_m=application/x-sh ;;
    pdf) __mcp_m=application/pdf ;;
    zip) __mcp_m=application/zip ;;
    gz) __mcp_m=application/gzip ;;
    *) __mcp_m='' ;;
  esac
  if [[ -z $__mcp_m && -n ${2-} ]] && builtin command -v file >/dev/null 2>&1; then
    __mcp_m=$(builtin command file --mime-type -b -- "$2" 2>/dev/null) || __mcp_m=''
  fi
  builtin return 0
}
# 3<&- 4>&- 5<&-: bash restores these fds after sourcing, so a script that takes them at
# top level (`exec 3>&1`) cannot steal the call, the channel or the arguments.
source "$__mcp_script" </dev/null >&2 3<&- 4>&- 5<&-
__mcp_posix=$SHELLOPTS __mcp_shopts=$BASHOPTS
POSIXLY_CORRECT=y
unset -f builtin
# fd 3 closed without a call: the host no longer needs us.
if ! IFS=' ' TMOUT= builtin read -r __mcp_function __mcp_caps __mcp_n __mcp_mode <&3; then exit 0; fi
__mcp_inputs=() __mcp_pending=0 __mcp_json=0 __mcp_reply= __mcp_leader=$$
if [[ ${__mcp_n:-0} == 0 ]]; then
  __mcp_args=$(< /dev/fd/5)
elif ! { IFS= builtin read -r __mcp_args && builtin mapfile -t __mcp_inputs; } </dev/fd/5; then
  exit 70
fi
if [[ $__mcp_mode == wait ]]; then exec {__mcp_reply}<&3; fi
exec 3<&- 5<&-
if [[ :$__mcp_posix: != *:posix:* ]]; then
  unset POSIXLY_CORRECT
  builtin shopt -u inherit_errexit expand_aliases
  if [[ :$__mcp_shopts: == *:inherit_errexit:* ]]; then builtin shopt -s inherit_errexit; fi
  if [[ :$__mcp_shopts: == *:expand_aliases:* ]]; then builtin shopt -s expand_aliases; fi
fi
# @confirm (tool_launch.h): the user accepts the message before the function runs.
if [[ ${__mcp_inputs[0]-} == '!confirm'$'\t'* ]]; then
  __mcp_h=@confirm
  builtin printf -v __mcp_m '%b' "${__mcp_inputs[0]#'!confirm'$'\t'}"
  if __mcp_asking confirm mcp-shell-host:confirm "$__mcp_m"; then __mcp_r=0; else __mcp_r=$?; fi
  if ((__mcp_r == 3)); then __mcp_end_round; fi
  if ((__mcp_r != 0)) || [[ $__mcp_st != 0 ]]; then
    builtin printf 'The user did not confirm, so %s did not run.\n' "${__mcp_function#tool_}"
    builtin exit 1
  fi
fi
"$__mcp_function" "$__mcp_args"
})BASH";
}

}  // namespace

LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits, const Confinement& confinement) {
  LaunchSpec spec;
  spec.argv = {bash, "--noprofile",    "--norc",         "-p",
               "-c", tool_bootstrap(), "mcp-shell-host", script};
  spec.env = {{"MCP_SHELL_HOST", MCPSH_VERSION}};
  spec.channel = true;
  spec.limits = limits;
  spec.confinement = confinement;
  // A sandbox that confines reads still lets the script be sourced, and the files beside
  // it that it sources.
  const auto slash = script.rfind('/');
  spec.readable = slash == std::string::npos || slash == 0 ? "/" : script.substr(0, slash);
  return spec;
}

}  // namespace mcpsh::execution
