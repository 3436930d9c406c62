#include "jsonrpc/message.h"

#include <iterator>
#include <memory>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/json_write.h"

namespace mcpsh::jsonrpc {

std::optional<RequestId> to_request_id(const rapidjson::Value& id) {
  if (!id.IsString() && !id.IsInt64() && !id.IsUint64()) return std::nullopt;
  RequestId result;
  append_json(result.json, id);
  return result;
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

// ---- the envelope of a line too deep to parse -------------------------------------------

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && is_space(text[i])) ++i;
  return i;
}

// `i` at an opening quote: the offset just past the closing one, or npos.
std::size_t end_of_string(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return std::string_view::npos;
}

// `i` at a member's value: the offset of the ',' or '}' that ends it, or npos.
std::size_t end_of_value(std::string_view text, std::size_t i) {
  std::size_t depth = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = end_of_string(text, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (depth == 0) return c == '}' ? i : std::string_view::npos;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
    ++i;
  }
  return std::string_view::npos;
}

// The value of a member's text, if it is JSON shallow enough to read; else "[]", which
// is neither a valid id, nor a method, nor a version.
std::string shallow_or_placeholder(std::string_view value) {
  ParsedJson parsed = parse_json(std::string(value));
  if (parsed.failure != ParsedJson::Failure::kNone) return "[]";
  std::string text;
  append_json(text, *parsed.document);
  return text;
}

// The "jsonrpc", "id", "method", "result" and "error" members of the top-level object of a line
// that is balanced but too deep to parse whole, read without building its deep parts; nullopt when
// its top level is not an object whose members can be told apart.
std::optional<std::string> shallow_envelope(std::string_view text) {
  std::size_t i = skip_space(text, 0);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  std::string envelope = "{";
  static constexpr std::string_view kNames[] = {"jsonrpc", "id", "method", "result", "error"};
  bool has[std::size(kNames)] = {};
  i = skip_space(text, i + 1);
  if (i < text.size() && text[i] == '}') return envelope + "}";
  for (;;) {
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    const std::size_t key_end = end_of_string(text, i);
    if (key_end == std::string_view::npos) return std::nullopt;
    ParsedJson key = parse_json(std::string(text.substr(i, key_end - i)));
    if (key.failure != ParsedJson::Failure::kNone) return std::nullopt;
    i = skip_space(text, key_end);
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    const std::size_t value_start = skip_space(text, i + 1);
    const std::size_t value_end = end_of_value(text, value_start);
    if (value_end == std::string_view::npos) return std::nullopt;
    const std::string_view name(key.document->GetString(), key.document->GetStringLength());
    for (std::size_t k = 0; k < std::size(kNames); ++k) {
      if (name != kNames[k] || has[k]) continue;  // the first of duplicates, as FindMember
      has[k] = true;
      if (envelope.size() > 1) envelope += ',';
      append_json_string(envelope, name);
      envelope += ':';
      envelope += shallow_or_placeholder(text.substr(value_start, value_end - value_start));
    }
    i = value_end;
    if (text[i] == '}') return envelope + "}";
    i = skip_space(text, i + 1);
  }
}

// Classifies a parsed message; `too_deep`: the line nests deeper than kMaxNesting and
// `doc` holds only its envelope.
Message classify(std::shared_ptr<rapidjson::Document> doc, bool too_deep) {
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
  if (!has_method && (doc->HasMember("result") || doc->HasMember("error"))) {
    if (!has_id) return ignored("a response without an id");
    if (too_deep) return ignored("a response nested too deeply");
    Message m;
    m.kind = Message::Kind::kResponse;
    m.id = std::move(id);
    m.document = std::move(doc);
    return m;
  }
  if (!has_id && has_method) {
    // A notification: whatever is wrong with it, it is never answered.
    auto v = doc->FindMember("jsonrpc");
    if (v == doc->MemberEnd() || !v->value.IsString() ||
        std::string_view(v->value.GetString()) != "2.0")
      return ignored("notification without \"jsonrpc\": \"2.0\"");
    if (!method_it->value.IsString()) return ignored("notification whose method is not a string");
  }
  if (too_deep) {
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

// `owned`, when given, holds the same text as `line` and may be consumed; otherwise the
// line is copied only if it is to be parsed.
Message parse_scanned(std::string_view line, std::string* owned) {
  const JsonScan scan = scan_json(line);
  if (scan.depth > kMaxNesting && scan.balanced && !scan.nul_offset) {
    // Refused before a DOM is built; the envelope still tells whom to answer.
    auto text = shallow_envelope(line);
    if (!text) {
      const std::size_t first = skip_space(line, 0);
      if (first < line.size() && line[first] == '[')
        return error(std::nullopt, kInvalidRequest, "Invalid Request: batches are not supported");
      return error(std::nullopt, kParseError, "Parse error: not a JSON object");
    }
    ParsedJson envelope = parse_json(std::move(*text));
    if (envelope.failure != ParsedJson::Failure::kNone)  // cannot happen: built from parts
      return error(std::nullopt, kParseError, "Parse error: " + envelope.error);
    return classify(std::move(envelope.document), true);
  }
  ParsedJson parsed = parse_json(owned ? std::move(*owned) : std::string(line), scan);
  if (parsed.failure != ParsedJson::Failure::kNone)
    return error(std::nullopt, kParseError, "Parse error: " + parsed.error);
  return classify(std::move(parsed.document), false);
}

}  // namespace

Message parse_message(std::string_view line) { return parse_scanned(line, nullptr); }

Message parse_owned_message(std::string line) { return parse_scanned(line, &line); }

}  // namespace mcpsh::jsonrpc
