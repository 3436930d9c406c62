#pragma once
// The tool side channel (fd 4), as typed events. A tool's helpers (mcp_progress, mcp_log,
// mcp_image, mcp_audio, mcp_resource, mcp_resource_link) write one line per event; the
// bytes are the tool's, so nothing here trusts them: a line that is not a well-formed
// event becomes a Malformed event naming why, never an error of the host. Text fields
// hold the tool's bytes as given (not yet UTF-8-repaired: the JSON writer repairs
// whatever it serializes).
//
// Wire format, one line each, fields separated by TAB:
//   progress <TAB> PROGRESS <TAB> TOTAL <TAB> MESSAGE     (TOTAL may be empty)
//   log <TAB> LEVEL <TAB> MESSAGE
//   image <TAB> MIME <TAB> ANNOTATIONS <TAB> BASE64
//   audio <TAB> MIME <TAB> ANNOTATIONS <TAB> BASE64
//   resource <TAB> URI <TAB> MIME <TAB> ANNOTATIONS <TAB> BASE64
//   resource_link <TAB> URI <TAB> NAME <TAB> MIME <TAB> ANNOTATIONS <TAB> DESCRIPTION
//   text <TAB> ANNOTATIONS <TAB> BASE64                  (mcp_message: a text, with a role)
//   too_large <TAB> BYTES <TAB> KIND                      (written by the runner, not a tool)
//   task <TAB> MESSAGE                                    (mcp_task: go on as a task)
//   ask <TAB> KEY <TAB> KIND <TAB> FIRST <TAB> SECOND <TAB> THIRD
//                  (mcp_elicit, mcp_confirm, mcp_sample, mcp_roots, mcp_ask: a question
//                   the call has no answer to yet; KIND elicit|confirm|sample|roots, the
//                   fields escaped as \\, \n and \t; see tool_launch.cc)
// ANNOTATIONS is empty or `key=value` pairs joined by ';': audience=user,assistant;
// priority=0.8;lastModified=2025-01-12T15:00:58Z; and role=user|assistant, the role of the
// prompt message the block becomes (prompts/get; tools ignore it).
// Content lines (image ... resource_link) are not bounded by the side channel's cap for
// progress and logs: their bytes count toward the call's output limit (process_runner.cc
// and tool_result.cc).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::execution {

struct ProgressEvent {
  double progress = 0;  // finite
  std::optional<double> total;
  std::string message;
};

struct LogEvent {
  std::string level;  // as the tool gave it ("" = info); the protocol unit maps it
  std::string message;
};

struct MalformedEvent {
  std::string why;  // for the host's log, e.g. "mcp_progress needs a number, got \"x\""
};

enum class ContentKind { kImage, kAudio, kResource, kResourceLink, kText };
const char* content_kind_name(ContentKind kind);  // the line's first field, e.g. "image"

// Annotations of a content block, each checked: audience entries are "user" or
// "assistant", priority is a number in [0, 1], lastModified is a non-empty string.
struct ContentAnnotations {
  std::vector<std::string> audience;  // empty: not given
  std::optional<double> priority;
  std::string last_modified;  // empty: not given
  std::string role;           // "user" or "assistant"; empty: not given (not an MCP annotation)
  bool empty() const { return audience.empty() && !priority && last_modified.empty(); }
};

// One content block for the call's result, in the order the tool sent it.
struct ContentEvent {
  ContentKind kind = ContentKind::kImage;
  std::string mime;         // image, audio: required; resource, link: may be empty
  std::string uri;          // resource, link
  std::string name;         // link (the URI when the tool gave none)
  std::string description;  // link; may be empty
  ContentAnnotations annotations;
  // Why the annotations the tool gave were not valid (the block goes without them).
  std::string annotations_problem;
  // Base64 of the payload (image, audio, resource), checked to be base64. Shared, not
  // copied: events are passed by value and a payload may be many megabytes.
  std::shared_ptr<const std::string> base64;
  std::uint64_t decoded_size() const;  // bytes the base64 stands for (0 without payload)
};

// A question the tool asks the client (MCP 2026-07-28 input requests). The fields as the
// helper wrote them, unescaped: elicit MESSAGE SCHEMA; confirm MESSAGE; sample PROMPT
// SYSTEM MAX_TOKENS; roots (none). The protocol unit checks them.
struct AskEvent {
  std::string key, kind, first, second, third;
};

// The tool is ready to go on as a task (mcp_task; the tasks extension): the protocol unit
// decides whether the call becomes one. MESSAGE is the task's status message.
struct TaskEvent {
  std::string message;
};

// A content line the runner did not pass on: over the call's output limit.
struct OversizedContentEvent {
  std::string kind;     // as the line named it
  std::uint64_t bytes;  // its length on the channel, at least
};

using ChannelEvent = std::variant<ProgressEvent, LogEvent, MalformedEvent, ContentEvent,
                                  OversizedContentEvent, AskEvent, TaskEvent>;

// nullopt for an empty line or an unknown event kind (ignored: newer helpers may write
// kinds an older host does not know).
std::optional<ChannelEvent> parse_channel_line(std::string_view line);
// The same, taking the line: a content payload is moved, not copied, into the event.
std::optional<ChannelEvent> take_channel_line(std::string line);

// True when `line` starts with a content kind and a TAB (image, audio, resource,
// resource_link, text) or is an ask line: such lines are bounded by the output limit, not
// the channel's cap (an ask line over it becomes too_large, kind "ask").
bool is_content_line(std::string_view line);

// Annotations as the helpers write them; on failure `problem` says why and the result is
// empty.
ContentAnnotations parse_annotations(std::string_view text, std::string& problem);

}  // namespace mcpsh::execution
