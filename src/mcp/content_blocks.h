#pragma once
// The content blocks a tool sent on its side channel (mcp_image, mcp_audio, mcp_resource,
// mcp_resource_link), added to a shaped CallToolResult after its text block, in the order
// the tool sent them. Their payloads count toward the call's output limit together with
// the text: a block that would pass it is dropped and the text says so (as stdout
// truncation is reported: a note, not isError). Pure; single-threaded.
#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

#include "execution/channel_events.h"

namespace mcpsh::mcp {

struct ShapedResult;

// What a call collected from its side channel. Owned by the Call; payloads are shared,
// never copied (ContentEvent::base64).
struct ToolContent {
  std::vector<execution::ContentEvent> blocks;
  // Content lines the runner did not pass on (over the output limit already there).
  std::uint64_t oversized = 0;
  std::uint64_t oversized_bytes = 0;
  bool empty() const { return blocks.empty() && oversized == 0; }
};

// Appends `content` to r.result["content"] within `budget` bytes of decoded payload (the
// output limit minus the text's bytes), `limit` being the whole limit (for the note).
// Payloads are referenced, not copied: r.storage keeps them. A text block that is empty
// is removed when blocks follow; notes about dropped blocks go into the text block.
void add_content_blocks(ShapedResult& r, const ToolContent& content, std::uint64_t budget,
                        std::uint64_t limit);

// The content block of one event (a text block for mcp_message). Its strings point into
// r.storage, which keeps them, and are built in r.result's allocator.
rapidjson::Value block_json(const execution::ContentEvent& e, ShapedResult& r);

// "text" when a resource of this MIME type and these bytes is sent as text: the type is
// text/*, JSON, XML, YAML or empty (unknown), and the bytes are valid UTF-8 without NUL.
bool resource_is_text(const std::string& mime, const std::string& bytes);

}  // namespace mcpsh::mcp
