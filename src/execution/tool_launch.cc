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
// "log\t<level>\t<message>" and the content lines of channel_events.h (see the helpers
// below). The helpers are defined before the script is sourced, so a script may replace
// them.
// The content helpers (mcp_image, mcp_audio, mcp_resource, mcp_resource_link):
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
mcp_progress() {
  builtin local m="${3:-}"
  { builtin printf 'progress\t%s\t%s\t%s\n' "${1:-}" "${2:-}" "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# mcp_log LEVEL MESSAGE -- LEVEL: debug info notice warning error critical alert emergency.
mcp_log() {
  builtin local m="${2:-}"
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
if ! IFS= TMOUT= builtin read -r __mcp_function <&3; then exit 0; fi
__mcp_args=$(< /dev/fd/5)
exec 3<&- 5<&-
if [[ :$__mcp_posix: != *:posix:* ]]; then
  unset POSIXLY_CORRECT
  builtin shopt -u inherit_errexit expand_aliases
  if [[ :$__mcp_shopts: == *:inherit_errexit:* ]]; then builtin shopt -s inherit_errexit; fi
  if [[ :$__mcp_shopts: == *:expand_aliases:* ]]; then builtin shopt -s expand_aliases; fi
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
