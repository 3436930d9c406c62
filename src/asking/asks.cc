#include "asking/asks.h"

#include <charconv>
#include <cstdint>

namespace mcpsh::asking {

namespace {

constexpr std::uint64_t kDefaultMaxTokens = 1024;

rapidjson::Value text(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

std::string helper(const Ask& ask) {
  return std::string("mcp_") + ask_kind_name(ask.kind) + " " + ask.key + ": ";
}

}  // namespace

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == ':' || c == '-'))
      return false;
  return true;
}

std::optional<AskKind> ask_kind(std::string_view name) {
  if (name == "elicit") return AskKind::kElicit;
  if (name == "confirm") return AskKind::kConfirm;
  if (name == "sample") return AskKind::kSample;
  if (name == "roots") return AskKind::kRoots;
  return std::nullopt;
}

const char* ask_kind_name(AskKind kind) {
  switch (kind) {
    case AskKind::kElicit:
      return "elicit";
    case AskKind::kConfirm:
      return "confirm";
    case AskKind::kSample:
      return "sample";
    case AskKind::kRoots:
      return "roots";
  }
  return "elicit";
}

const char* capability_of(AskKind kind) {
  switch (kind) {
    case AskKind::kElicit:
    case AskKind::kConfirm:
      return "elicitation";
    case AskKind::kSample:
      return "sampling";
    case AskKind::kRoots:
      return "roots";
  }
  return "elicitation";
}

std::optional<std::string> add_input_request(rapidjson::Value& requests, const Ask& ask,
                                             rapidjson::Document::AllocatorType& a) {
  rapidjson::Value params(rapidjson::kObjectType);
  const char* method = "elicitation/create";
  switch (ask.kind) {
    case AskKind::kElicit:
    case AskKind::kConfirm: {
      rapidjson::Document schema(&a);
      if (ask.kind == AskKind::kConfirm) {
        schema.Parse(R"({"type":"object","properties":{}})");
      } else {
        schema.Parse(ask.schema_json.c_str(), ask.schema_json.size());
        if (schema.HasParseError() || !schema.IsObject())
          return helper(ask) + "the schema is not a JSON object";
        auto type = schema.FindMember("type");
        auto properties = schema.FindMember("properties");
        if (type == schema.MemberEnd() || !type->value.IsString() ||
            std::string_view(type->value.GetString()) != "object" ||
            properties == schema.MemberEnd() || !properties->value.IsObject())
          return helper(ask) +
                 "the schema must be an object schema: {\"type\":\"object\",\"properties\":{...}}";
      }
      params.AddMember("mode", "form", a);
      params.AddMember("message", text(ask.message, a), a);
      params.AddMember("requestedSchema", rapidjson::Value(schema, a), a);
      break;
    }
    case AskKind::kSample: {
      std::uint64_t max_tokens = kDefaultMaxTokens;
      if (!ask.max_tokens.empty()) {
        const char* end = ask.max_tokens.data() + ask.max_tokens.size();
        auto [p, error] = std::from_chars(ask.max_tokens.data(), end, max_tokens);
        if (error != std::errc() || p != end || max_tokens == 0 || max_tokens > (1u << 30))
          return helper(ask) + "--max-tokens needs a positive integer, got \"" +
                 ask.max_tokens.substr(0, 32) + "\"";
      }
      method = "sampling/createMessage";
      rapidjson::Value content(rapidjson::kObjectType);
      content.AddMember("type", "text", a);
      content.AddMember("text", text(ask.message, a), a);
      rapidjson::Value message(rapidjson::kObjectType);
      message.AddMember("role", "user", a);
      message.AddMember("content", content, a);
      rapidjson::Value messages(rapidjson::kArrayType);
      messages.PushBack(message, a);
      params.AddMember("messages", messages, a);
      if (!ask.system.empty()) params.AddMember("systemPrompt", text(ask.system, a), a);
      params.AddMember("maxTokens", max_tokens, a);
      break;
    }
    case AskKind::kRoots:
      method = "roots/list";
      break;
  }
  rapidjson::Value request(rapidjson::kObjectType);
  request.AddMember("method", rapidjson::StringRef(method), a);
  request.AddMember("params", params, a);
  requests.AddMember(text(ask.key, a), request, a);
  return std::nullopt;
}

}  // namespace mcpsh::asking
