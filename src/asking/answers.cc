#include "asking/answers.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "asking/asks.h"

namespace mcpsh::asking {

namespace {

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const rapidjson::Value* member(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

bool is_string(const rapidjson::Value* v, std::string_view want = {}) {
  return v && v->IsString() &&
         (want.empty() || std::string_view(v->GetString(), v->GetStringLength()) == want);
}

enum class Shape { kElicit, kSample, kRoots };

// The shape of a response, or nullopt when it is none of the three.
std::optional<Shape> shape_of(const rapidjson::Value& r) {
  if (!r.IsObject()) return std::nullopt;
  if (const auto* action = member(r, "action")) {
    if (!is_string(action)) return std::nullopt;
    std::string_view a(action->GetString(), action->GetStringLength());
    if (a != "accept" && a != "decline" && a != "cancel") return std::nullopt;
    const auto* content = member(r, "content");
    if (content && !content->IsObject() && !content->IsNull()) return std::nullopt;
    return Shape::kElicit;
  }
  if (const auto* roots = member(r, "roots")) {
    if (!roots->IsArray()) return std::nullopt;
    for (const auto& root : roots->GetArray())
      if (!root.IsObject() || !is_string(member(root, "uri"))) return std::nullopt;
    return Shape::kRoots;
  }
  const auto* role = member(r, "role");
  const auto* content = member(r, "content");
  if (is_string(role) && content && (content->IsObject() || content->IsArray()))
    return Shape::kSample;
  return std::nullopt;
}

void escape_into(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
}

// The text of a sampling reply: its text block, or the text blocks of an array joined by
// newlines.
std::string reply_text(const rapidjson::Value& content) {
  auto block_text = [](const rapidjson::Value& b) -> std::string {
    if (!b.IsObject() || !is_string(member(b, "type"), "text")) return {};
    const auto* t = member(b, "text");
    return is_string(t) ? std::string(t->GetString(), t->GetStringLength()) : std::string();
  };
  if (content.IsObject()) return block_text(content);
  std::string out;
  for (const auto& b : content.GetArray()) {
    std::string t = block_text(b);
    if (t.empty()) continue;
    if (!out.empty()) out += '\n';
    out += t;
  }
  return out;
}

}  // namespace

std::variant<Answers, AnswerProblem> read_input_responses(const rapidjson::Value* responses) {
  Answers answers;
  if (!responses) return answers;
  if (!responses->IsObject())
    return AnswerProblem{
        "Invalid params: \"inputResponses\" must be an object of responses by key"};
  for (const auto& m : responses->GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    if (!valid_key(key)) continue;
    if (!shape_of(m.value))
      return AnswerProblem{"Invalid params: inputResponses[\"" + key +
                           "\"] is not an ElicitResult, CreateMessageResult or ListRootsResult"};
    answers[key] = compact(m.value);
  }
  return answers;
}

std::string shape_of_response(const std::string& json) {
  rapidjson::Document r;
  r.Parse(json.c_str(), json.size());
  auto shape = r.HasParseError() ? std::nullopt : shape_of(r);
  if (!shape) return "";
  return *shape == Shape::kElicit ? "elicit" : *shape == Shape::kSample ? "sample" : "roots";
}

std::string error_line(const std::string& key, std::string_view message) {
  std::string escaped;
  escape_into(escaped, message);
  return key + "\terror\t1\t" + std::to_string(escaped.size()) + "\t" + escaped + "\t{}\n";
}

std::string end_line(const std::string& key) { return key + "\tend\t0\t0\t\t{}\n"; }

std::string confirm_line(std::string_view message) {
  std::string out = "!confirm\t";
  escape_into(out, message);
  return out + "\n";
}

std::string fill_placeholders(const std::string& text, const rapidjson::Value* arguments) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    const std::size_t close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) break;
    const std::string name = text.substr(open + 1, close - open - 1);
    const rapidjson::Value* value = nullptr;
    if (arguments && arguments->IsObject() && !name.empty())
      if (auto it = arguments->FindMember(name.c_str()); it != arguments->MemberEnd())
        value = &it->value;
    out.append(text, i, open - i);
    if (!value)
      out.append(text, open, close - open + 1);
    else if (value->IsString())
      out.append(value->GetString(), value->GetStringLength());
    else
      out += compact(*value);
    i = close + 1;
  }
  out.append(text, i, std::string::npos);
  return out;
}

std::string tool_input_lines(const Answers& answers, std::size_t& count) {
  std::string out;
  count = 0;
  for (const auto& [key, json] : answers) {
    rapidjson::Document r;
    r.Parse(json.c_str(), json.size());
    auto shape = r.HasParseError() ? std::nullopt : shape_of(r);
    if (!shape) continue;  // answers are checked when read: not reached
    std::string status = "0", text;
    switch (*shape) {
      case Shape::kElicit: {
        std::string_view action = member(r, "action")->GetString();
        status = action == "accept" ? "0" : action == "decline" ? "1" : "2";
        const auto* content = member(r, "content");
        text = content && content->IsObject() ? compact(*content) : "{}";
        break;
      }
      case Shape::kSample:
        text = reply_text(*member(r, "content"));
        break;
      case Shape::kRoots:
        for (const auto& root : member(r, "roots")->GetArray()) {
          if (!text.empty()) text += '\n';
          text += member(root, "uri")->GetString();
        }
        break;
    }
    out += key;
    out += '\t';
    out += *shape == Shape::kElicit ? "elicit" : *shape == Shape::kSample ? "sample" : "roots";
    out += '\t';
    out += status;
    out += '\t';
    std::string escaped;
    escape_into(escaped, text);
    out += std::to_string(escaped.size());
    out += '\t';
    out += escaped;
    out += '\t';
    escape_into(out, json);
    out += '\n';
    ++count;
  }
  return out;
}

}  // namespace mcpsh::asking
