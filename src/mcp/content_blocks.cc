#include "mcp/content_blocks.h"

#include "jsonrpc/utf8.h"
#include "mcp/base64.h"
#include "mcp/text.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

namespace {

using execution::ContentEvent;
using execution::ContentKind;

rapidjson::Value string_ref(const std::string& s) {
  return rapidjson::Value(
      rapidjson::StringRef(s.data(), static_cast<rapidjson::SizeType>(s.size())));
}

rapidjson::Value annotations_json(const execution::ContentAnnotations& an,
                                  rapidjson::Document::AllocatorType& a) {
  rapidjson::Value v(rapidjson::kObjectType);
  if (!an.audience.empty()) {
    rapidjson::Value roles(rapidjson::kArrayType);
    for (const auto& role : an.audience) roles.PushBack(rapidjson::Value(role.c_str(), a), a);
    v.AddMember("audience", roles, a);
  }
  if (an.priority) v.AddMember("priority", *an.priority, a);
  if (!an.last_modified.empty())
    v.AddMember("lastModified", rapidjson::Value(an.last_modified.c_str(), a), a);
  return v;
}

bool text_mime(const std::string& m) {
  auto ends_with = [&](std::string_view suffix) {
    return m.size() >= suffix.size() &&
           m.compare(m.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
  };
  return m.empty() || m.rfind("text/", 0) == 0 || m == "application/json" || ends_with("+json") ||
         m == "application/xml" || ends_with("+xml") || m == "application/yaml" ||
         m == "application/x-yaml" || m == "application/x-sh" || m == "application/javascript";
}

}  // namespace

// The block for one event; r.storage keeps what it points to.
rapidjson::Value block_json(const ContentEvent& e, ShapedResult& r) {
  auto& a = r.result.GetAllocator();
  rapidjson::Value block(rapidjson::kObjectType);
  block.AddMember("type", rapidjson::StringRef(execution::content_kind_name(e.kind)), a);
  switch (e.kind) {
    case ContentKind::kImage:
    case ContentKind::kAudio:
      block.AddMember("data", string_ref(*e.base64), a);
      block.AddMember("mimeType", rapidjson::Value(e.mime.c_str(), a), a);
      r.storage.push_back(e.base64);
      break;
    case ContentKind::kResource: {
      rapidjson::Value resource(rapidjson::kObjectType);
      resource.AddMember("uri", rapidjson::Value(e.uri.c_str(), a), a);
      if (!e.mime.empty()) resource.AddMember("mimeType", rapidjson::Value(e.mime.c_str(), a), a);
      auto bytes = text_mime(e.mime) ? decode_base64(*e.base64) : std::nullopt;
      if (bytes && resource_is_text(e.mime, *bytes)) {
        auto text = std::make_shared<std::string>(std::move(*bytes));
        resource.AddMember("text", string_ref(*text), a);
        r.storage.push_back(std::move(text));
      } else {
        resource.AddMember("blob", string_ref(*e.base64), a);
        r.storage.push_back(e.base64);
      }
      block.AddMember("resource", resource, a);
      break;
    }
    case ContentKind::kText: {
      auto text = std::make_shared<std::string>(decode_base64(*e.base64).value_or(""));
      block.AddMember("text", string_ref(*text), a);
      r.storage.push_back(std::move(text));
      break;
    }
    case ContentKind::kResourceLink:
      block.AddMember("uri", rapidjson::Value(e.uri.c_str(), a), a);
      block.AddMember("name", rapidjson::Value(e.name.c_str(), a), a);
      if (!e.mime.empty()) block.AddMember("mimeType", rapidjson::Value(e.mime.c_str(), a), a);
      if (!e.description.empty())
        block.AddMember("description", rapidjson::Value(e.description.c_str(), a), a);
      break;
  }
  if (!e.annotations.empty()) block.AddMember("annotations", annotations_json(e.annotations, a), a);
  return block;
}

bool resource_is_text(const std::string& mime, const std::string& bytes) {
  return text_mime(mime) && bytes.find('\0') == std::string::npos && jsonrpc::is_valid_utf8(bytes);
}

void add_content_blocks(ShapedResult& r, const ToolContent& content, std::uint64_t budget,
                        std::uint64_t limit) {
  if (content.empty()) return;
  auto& a = r.result.GetAllocator();
  rapidjson::Value& blocks = r.result["content"];
  std::string notes;
  std::uint64_t used = 0;
  for (const auto& e : content.blocks) {
    const std::uint64_t size = e.decoded_size();
    if (size > budget - used) {
      notes += std::string("\n[") + execution::content_kind_name(e.kind) + " block of " +
               human_bytes(size) + " dropped: over the output limit of " + human_bytes(limit) + "]";
      continue;
    }
    used += size;
    blocks.PushBack(block_json(e, r), a);
  }
  if (content.oversized)
    notes += "\n[" + std::to_string(content.oversized) + " content block" +
             (content.oversized == 1 ? "" : "s") + " of " + human_bytes(content.oversized_bytes) +
             " or more dropped: over the output limit of " + human_bytes(limit) + "]";
  // The text block comes first (tool_result.cc). Empty and followed by blocks: removed.
  rapidjson::Value& first = blocks[0];
  if (!notes.empty()) {
    std::string text(first["text"].GetString(), first["text"].GetStringLength());
    text = text.empty() ? notes.substr(1) : text + "\n" + notes;
    first["text"].SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a);
    if (r.outcome.find("+truncated") == std::string::npos) r.outcome += "+truncated";
  } else if (first["text"].GetStringLength() == 0 && blocks.Size() > 1) {
    blocks.Erase(blocks.Begin());
  }
}

}  // namespace mcpsh::mcp
