#include "asking/round_state.h"

#include <openssl/sha.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <vector>

namespace mcpsh::asking {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_canonical(const rapidjson::Value& v, Writer& w) {
  if (v.IsObject()) {
    std::vector<const rapidjson::Value::Member*> members;
    for (const auto& m : v.GetObject()) members.push_back(&m);
    // Stable: duplicate names keep their order (the tool's jq takes the last one).
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    w.StartObject();
    for (const auto* m : members) {
      w.Key(m->name.GetString(), m->name.GetStringLength());
      write_canonical(m->value, w);
    }
    w.EndObject();
  } else if (v.IsArray()) {
    w.StartArray();
    for (const auto& e : v.GetArray()) write_canonical(e, w);
    w.EndArray();
  } else {
    v.Accept(w);
  }
}

const rapidjson::Value* member(const rapidjson::Value* object, const char* key) {
  if (!object || !object->IsObject()) return nullptr;
  auto it = object->FindMember(key);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

bool string_is(const rapidjson::Value* v, const std::string& want) {
  return v && v->IsString() && std::string_view(v->GetString(), v->GetStringLength()) == want;
}

RoundProblem problem(const std::string& why) { return RoundProblem{"Invalid params: " + why}; }

}  // namespace

std::string arguments_digest(const rapidjson::Value* arguments) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  if (arguments && !arguments->IsNull()) {
    write_canonical(*arguments, writer);
  } else {
    writer.StartObject();
    writer.EndObject();
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(buffer.GetString()), buffer.GetSize(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

std::variant<Answers, RoundProblem> read_round(const rapidjson::Value* params,
                                               const RoundBinding& binding,
                                               const StateSealer& sealer, std::int64_t now) {
  auto given = read_input_responses(member(params, "inputResponses"));
  if (auto* no = std::get_if<AnswerProblem>(&given)) return RoundProblem{no->message};
  Answers answers = std::move(std::get<Answers>(given));
  const rapidjson::Value* state = member(params, "requestState");
  if (!state) return answers;
  if (!state->IsString()) return problem("\"requestState\" must be the string this server gave");
  auto plain = sealer.open(std::string_view(state->GetString(), state->GetStringLength()));
  if (!plain) return problem("requestState integrity check failed");
  rapidjson::Document d;
  d.Parse(plain->c_str(), plain->size());
  const rapidjson::Value* expires = member(&d, "x");
  const rapidjson::Value* carried = member(&d, "r");
  if (d.HasParseError() || !expires || !expires->IsInt64() || !carried || !carried->IsObject())
    return problem("requestState integrity check failed");
  if (!string_is(member(&d, "m"), binding.method) || !string_is(member(&d, "t"), binding.target) ||
      !string_is(member(&d, "d"), binding.arguments_digest))
    return problem("requestState belongs to another request (method, name or arguments differ)");
  if (!string_is(member(&d, "p"), binding.principal))
    return problem("requestState belongs to another client");
  if (expires->GetInt64() < now) return problem("requestState has expired; call again afresh");
  auto earlier = read_input_responses(carried);
  if (std::holds_alternative<AnswerProblem>(earlier)) return problem("requestState is damaged");
  for (auto& [key, json] : std::get<Answers>(earlier)) answers.try_emplace(key, std::move(json));
  return answers;
}

std::string seal_round(const RoundBinding& binding, const Answers& answers,
                       const StateSealer& sealer, std::int64_t expires) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("m");
  w.String(binding.method.c_str(), binding.method.size());
  w.Key("t");
  w.String(binding.target.c_str(), binding.target.size());
  w.Key("d");
  w.String(binding.arguments_digest.c_str(), binding.arguments_digest.size());
  w.Key("p");
  w.String(binding.principal.c_str(), binding.principal.size());
  w.Key("x");
  w.Int64(expires);
  w.Key("r");
  w.StartObject();
  for (const auto& [key, json] : answers) {
    w.Key(key.c_str(), key.size());
    w.RawValue(json.c_str(), json.size(), rapidjson::kObjectType);
  }
  w.EndObject();
  w.EndObject();
  return sealer.seal(std::string_view(buffer.GetString(), buffer.GetSize()));
}

}  // namespace mcpsh::asking
