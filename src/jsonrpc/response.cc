#include "jsonrpc/response.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcpsh::jsonrpc {

namespace {
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string take(rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}
}  // namespace

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  value.Accept(writer);
  return take(buffer);
}

std::string result_line(const RequestId& id, const rapidjson::Value& result) {
  return result_line_raw(id, to_json(result));
}

std::string result_line_raw(const RequestId& id, std::string_view result_json) {
  std::string line;
  line.reserve(result_json.size() + id.json.size() + 32);
  line += R"({"jsonrpc":"2.0","id":)";
  line += id.json;
  line += R"(,"result":)";
  line += result_json;
  line += '}';
  return line;
}

std::string error_line(const std::optional<RequestId>& id, int code, std::string_view message,
                       const rapidjson::Value* data) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("jsonrpc");
  w.String("2.0");
  if (id) {
    w.Key("id");
    w.RawValue(id->json.data(), id->json.size(), rapidjson::kStringType);
  }
  w.Key("error");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  w.Key("message");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  if (data) {
    w.Key("data");
    data->Accept(w);
  }
  w.EndObject();
  w.EndObject();
  return take(buffer);
}

std::string notification_line(std::string_view method, const rapidjson::Value& params) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("jsonrpc");
  w.String("2.0");
  w.Key("method");
  w.String(method.data(), static_cast<rapidjson::SizeType>(method.size()));
  w.Key("params");
  params.Accept(w);
  w.EndObject();
  return take(buffer);
}

}  // namespace mcpsh::jsonrpc

#include <rapidjson/prettywriter.h>

namespace mcpsh::jsonrpc {
std::string pretty_json(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}
}  // namespace mcpsh::jsonrpc
