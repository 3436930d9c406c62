#pragma once
// What the run of a resource, prompt or completion function answers. Unlike a tool call
// (tool_result.h), these methods have no isError: a function that fails (non-zero exit,
// signal, timeout) is a JSON-RPC error whose message is the function's own text, as a
// tool's failure text would be. Pure.
//
//  - resources/read: stdout, byte for byte, is one content item for the URI read (text
//    when the MIME type is textual and the bytes are UTF-8 without NUL, else a base64
//    blob); blocks sent with mcp_resource / mcp_image / mcp_audio follow as further items
//    (image and audio as blobs of the URI read). Output past the limit is an error: a cut
//    resource would be read as whole.
//  - prompts/get: the blocks sent with the helpers (mcp_message, mcp_image, mcp_audio,
//    mcp_resource, mcp_resource_link), in order, each a message of the role it was given
//    (--role, default user); then stdout (trailing newlines trimmed), when not empty, as
//    the last user message. Output past the limit is an error.
//  - completion/complete: stdout's non-empty lines are the values, at most 100 sent;
//    total and hasMore say how many there were.
#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <vector>

#include "execution/launch_spec.h"
#include "execution/outcome.h"
#include "mcp/content_blocks.h"

namespace mcpsh::mcp {

struct FunctionAnswer {
  bool ok = false;
  rapidjson::Document result{rapidjson::kObjectType};  // ok: the result object
  int code = 0;                                        // !ok: the JSON-RPC error
  std::string message;
  std::string outcome;  // for the audit: ok, exit, signal, timeout, too_large, ...
  // What strings of `result` point to (the payloads of content blocks, as in
  // ShapedResult); the Outcome the answer was made from must outlive it too.
  std::vector<std::shared_ptr<const void>> storage;
};

// The most values a completion result carries (the spec's bound).
inline constexpr std::size_t kMaxCompletionValues = 100;

FunctionAnswer read_answer(const std::string& function, const execution::Outcome& outcome,
                           const ToolContent& content, const execution::Limits& limits,
                           const std::string& uri, const std::string& mime);
FunctionAnswer prompt_answer(const std::string& function, const execution::Outcome& outcome,
                             const ToolContent& content, const execution::Limits& limits,
                             const std::string& description);
FunctionAnswer completion_answer(const std::string& function, const execution::Outcome& outcome,
                                 const execution::Limits& limits);

// A completion with no function behind it: no values.
rapidjson::Document empty_completion();

}  // namespace mcpsh::mcp
