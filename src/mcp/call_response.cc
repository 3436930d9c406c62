#include "mcp/call_response.h"

#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

namespace {

std::string member(const rapidjson::Value& v, const char* name) {
  auto m = v.FindMember(name);
  if (m == v.MemberEnd() || !m->value.IsString()) return {};
  return std::string(m->value.GetString(), m->value.GetStringLength());
}

void make_text(rapidjson::Value& block, const std::string& text,
               rapidjson::Document::AllocatorType& a) {
  block.SetObject();
  block.AddMember("type", "text", a);
  block.AddMember("text", rapidjson::Value(text.c_str(), a), a);
}

// Content blocks a legacy revision does not define (README "Returning
// images, audio and resources"): audio (from 2025-03-26) becomes a text note that it was
// left out; a resource link (from 2025-06-18) becomes a text block naming it;
// annotations lose lastModified (from 2025-06-18).
void fit_content(rapidjson::Value& result, std::string_view version,
                 rapidjson::Document::AllocatorType& a) {
  auto content = result.FindMember("content");
  if (content == result.MemberEnd() || !content->value.IsArray()) return;
  const bool has_audio = version >= "2025-03-26";
  const bool has_links = version >= "2025-06-18";
  for (auto& block : content->value.GetArray()) {
    const std::string type = member(block, "type");
    if (type == "audio" && !has_audio) {
      make_text(block,
                "[audio (" + member(block, "mimeType") + ") left out: protocol revision " +
                    std::string(version) + " has no audio content]",
                a);
    } else if (type == "resource_link" && !has_links) {
      std::string text = "Resource: " + member(block, "name") + " <" + member(block, "uri") + ">";
      if (auto mime = member(block, "mimeType"); !mime.empty()) text += " (" + mime + ")";
      if (auto d = member(block, "description"); !d.empty()) text += ": " + d;
      make_text(block, text, a);
    } else if (!has_links) {
      auto annotations = block.FindMember("annotations");
      if (annotations != block.MemberEnd() && annotations->value.IsObject()) {
        annotations->value.RemoveMember("lastModified");
        if (annotations->value.ObjectEmpty()) block.RemoveMember("annotations");
      }
    }
  }
}

}  // namespace

std::string call_result_line(const jsonrpc::RequestId& id, const RequestMeta& meta,
                             ShapedResult& shaped, const ServerProfileView& profile) {
  // Legacy revisions define structuredContent, if at all, as an object only.
  auto structured = shaped.result.FindMember("structuredContent");
  if (meta.legacy && structured != shaped.result.MemberEnd() &&
      (!has_structured_output(meta.protocol_version) || !structured->value.IsObject()))
    shaped.result.RemoveMember("structuredContent");
  if (meta.legacy) fit_content(shaped.result, meta.protocol_version, shaped.result.GetAllocator());
  profile.complete(shaped.result, meta.legacy);
  return jsonrpc::result_line(id, shaped.result);
}

}  // namespace mcpsh::mcp
