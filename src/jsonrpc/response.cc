#include "jsonrpc/response.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "jsonrpc/json_write.h"
#include "jsonrpc/utf8.h"

namespace mcpsh::jsonrpc {

namespace {

constexpr std::string_view kHead = R"({"jsonrpc":"2.0",)";

// Room for the '\n' LineWriter appends, so that queuing a line never copies it.
constexpr std::size_t kNewline = 1;

void append_id(std::string& out, const RequestId& id) {
  out += R"("id":)";
  append_valid_utf8(out, id.json);  // made by to_request_id; repaired all the same
  out += ',';
}

}  // namespace

std::string to_json(const rapidjson::Value& value) {
  std::string out;
  out.reserve(json_size_estimate(value));
  append_json(out, value);
  return out;
}

std::string result_line(const RequestId& id, const rapidjson::Value& result) {
  std::string line;
  line.reserve(kHead.size() + id.json.size() + 16 + json_size_estimate(result) + kNewline);
  line += kHead;
  append_id(line, id);
  line += R"("result":)";
  append_json(line, result);
  line += '}';
  return line;
}

std::string result_line_raw(const RequestId& id, std::string_view result_json) {
  std::string line;
  line.reserve(kHead.size() + id.json.size() + 16 + result_json.size() + kNewline);
  line += kHead;
  append_id(line, id);
  line += R"("result":)";
  // Valid JSON stays valid when invalid UTF-8 (which can only sit inside its strings)
  // is replaced: U+FFFD is neither a quote nor a backslash.
  append_valid_utf8(line, result_json);
  line += '}';
  return line;
}

std::string error_line(const std::optional<RequestId>& id, int code, std::string_view message,
                       const rapidjson::Value* data) {
  std::string line;
  line.reserve(kHead.size() + (id ? id->json.size() + 8 : 0) + message.size() + 48 +
               (data ? json_size_estimate(*data) : 0) + kNewline);
  line += kHead;
  if (id) append_id(line, *id);
  line += R"("error":{"code":)";
  line += std::to_string(code);
  line += R"(,"message":)";
  append_json_string(line, message);
  if (data) {
    line += R"(,"data":)";
    append_json(line, *data);
  }
  line += "}}";
  return line;
}

std::string notification_line(std::string_view method, const rapidjson::Value& params) {
  std::string line;
  line.reserve(kHead.size() + method.size() + 24 + json_size_estimate(params) + kNewline);
  line += kHead;
  line += R"("method":)";
  append_json_string(line, method);
  line += R"(,"params":)";
  append_json(line, params);
  line += '}';
  return line;
}

std::string pretty_json(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());  // the normal number path (see json_read.cc)
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcpsh::jsonrpc
