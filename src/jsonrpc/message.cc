#include "jsonrpc/message.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <memory>

#include "jsonrpc/error_codes.h"

namespace mcpsh::jsonrpc {

std::optional<RequestId> to_request_id(const rapidjson::Value& id) {
  if (!id.IsString() && !id.IsInt64() && !id.IsUint64()) return std::nullopt;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  id.Accept(writer);
  return RequestId{std::string(buffer.GetString(), buffer.GetSize())};
}

std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {

Message error(std::optional<RequestId> id, int code, std::string text) {
  Message m;
  m.kind = Message::Kind::kError;
  m.id = std::move(id);
  m.error_code = code;
  m.error_message = std::move(text);
  return m;
}

Message ignored(std::string why) {
  Message m;
  m.kind = Message::Kind::kIgnored;
  m.error_message = std::move(why);
  return m;
}

}  // namespace

Message parse_message(std::string_view line) {
  auto doc = std::make_shared<rapidjson::Document>();
  // Numbers are kept exact; invalid UTF-8 is a parse error (it could not be echoed as JSON).
  // Iterative: parsing never recurses, whatever the nesting (see kMaxNesting).
  doc->Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseValidateEncodingFlag |
             rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (doc->HasParseError()) {
    return error(std::nullopt, kParseError,
                 std::string("Parse error: ") + rapidjson::GetParseError_En(doc->GetParseError()) +
                     " at offset " + std::to_string(doc->GetErrorOffset()));
  }
  if (doc->IsArray())
    return error(std::nullopt, kInvalidRequest, "Invalid Request: batches are not supported");
  if (!doc->IsObject())
    return error(std::nullopt, kInvalidRequest, "Invalid Request: a message must be a JSON object");

  std::optional<RequestId> id;
  auto id_it = doc->FindMember("id");
  const bool has_id = id_it != doc->MemberEnd();
  if (has_id) {
    if (id_it->value.IsNull())
      return error(std::nullopt, kInvalidRequest, "Invalid Request: id must not be null");
    id = to_request_id(id_it->value);
    if (!id)
      return error(std::nullopt, kInvalidRequest,
                   "Invalid Request: id must be a string or an integer");
  }

  auto method_it = doc->FindMember("method");
  const bool has_method = method_it != doc->MemberEnd();
  if (!has_method && (doc->HasMember("result") || doc->HasMember("error")))
    return ignored("a response, but this server sends no requests");
  if (!has_id && has_method) {
    // A notification: whatever is wrong with it, it is never answered.
    auto v = doc->FindMember("jsonrpc");
    if (v == doc->MemberEnd() || !v->value.IsString() ||
        std::string_view(v->value.GetString()) != "2.0")
      return ignored("notification without \"jsonrpc\": \"2.0\"");
    if (!method_it->value.IsString()) return ignored("notification whose method is not a string");
  }
  if (nesting_depth(line) > kMaxNesting) {
    if (!has_id && has_method) return ignored("notification nested too deeply");
    return error(
        id, kInvalidRequest,
        "Invalid Request: JSON nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }

  auto version = doc->FindMember("jsonrpc");
  if (version == doc->MemberEnd() || !version->value.IsString() ||
      std::string_view(version->value.GetString(), version->value.GetStringLength()) != "2.0")
    return error(id, kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
  if (!has_method) return error(id, kInvalidRequest, "Invalid Request: \"method\" is missing");
  if (!method_it->value.IsString())
    return error(id, kInvalidRequest, "Invalid Request: \"method\" must be a string");

  Message m;
  m.kind = has_id ? Message::Kind::kRequest : Message::Kind::kNotification;
  m.id = std::move(id);
  m.method.assign(method_it->value.GetString(), method_it->value.GetStringLength());
  auto params = doc->FindMember("params");
  if (params != doc->MemberEnd()) {
    if (params->value.IsArray()) {
      if (!has_id) return ignored("notification with positional params");
      return error(m.id, kInvalidParams, "Invalid params: \"params\" must be an object");
    }
    if (!params->value.IsObject()) {
      if (!has_id) return ignored("notification whose params are not an object");
      return error(m.id, kInvalidRequest, "Invalid Request: \"params\" must be an object");
    }
    m.params = &params->value;
  }
  m.document = std::move(doc);
  return m;
}

}  // namespace mcpsh::jsonrpc
