// The audit log's lines: one valid JSON object in valid UTF-8 per request, whatever bytes
// the client, the script or the tool put in the names and messages it records.
#include "mcp/audit_log.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <iterator>
#include <string>

#include "jsonrpc/utf8.h"
#include "temp_dir.h"

namespace mcpsh::mcp {
namespace {

// Every text field the audit records from outside (tool and method names, the client's
// name, an error message that quotes the request), each with bytes that are not UTF-8.
AuditRecord hostile_record() {
  AuditRecord r;
  r.id_json = R"("a")";
  r.method = "tools/call\xff";
  r.tool = "echo\xc3";
  r.protocol_version = "2025-06-18\xed\xa0\x80";
  r.client_name = "client\xfe\xfe";
  r.error_code = -32602;
  r.error_message = "Invalid params: unknown tool \"\xe2\x82\"";
  r.outcome = "ok";
  r.argument_names = {"na\xffme"};
  r.remote = "127.0.0.1:5\x80";
  r.http_status = 400;
  return r;
}

rapidjson::Document parse_line(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per record";
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(line.data(), line.size() - 1);
  EXPECT_FALSE(doc.HasParseError()) << line;
  return doc;
}

TEST(AuditLogLine, InvalidUtf8FromOutsideIsRepaired) {
  const std::string line = AuditLog::to_json_line(hostile_record());
  EXPECT_TRUE(jsonrpc::is_valid_utf8(line)) << line;
  auto doc = parse_line(line);
  ASSERT_TRUE(doc.IsObject());
  EXPECT_STREQ(doc["method"].GetString(), "tools/call\xEF\xBF\xBD");
  EXPECT_STREQ(doc["tool"].GetString(), "echo\xEF\xBF\xBD");
  EXPECT_STREQ(doc["client"].GetString(), "client\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_STREQ(doc["rpcError"]["message"].GetString(),
               "Invalid params: unknown tool \"\xEF\xBF\xBD\"");
  EXPECT_STREQ(doc["argumentNames"][0].GetString(), "na\xEF\xBF\xBDme");
}

TEST(AuditLogLine, KeepsEveryField) {
  AuditRecord r = hostile_record();
  r.is_error = true;
  r.exit_status = 3;
  r.signal = 9;
  r.timed_out = true;
  r.cancelled = true;
  r.truncated = true;
  r.stdout_bytes = 12;
  r.bytes_in = 78;
  r.bytes_out = 34;
  r.duration = std::chrono::milliseconds(56);
  auto doc = parse_line(AuditLog::to_json_line(r));
  ASSERT_TRUE(doc.IsObject());
  EXPECT_TRUE(doc["time"].IsString());
  EXPECT_STREQ(doc["id"].GetString(), "a");
  EXPECT_STREQ(doc["remote"].GetString(), "127.0.0.1:5\xEF\xBF\xBD");
  EXPECT_EQ(doc["httpStatus"].GetInt(), 400);
  EXPECT_EQ(doc["rpcError"]["code"].GetInt(), -32602);
  EXPECT_TRUE(doc["isError"].GetBool());
  EXPECT_STREQ(doc["outcome"].GetString(), "ok");
  EXPECT_EQ(doc["exitStatus"].GetInt(), 3);
  EXPECT_EQ(doc["signal"].GetInt(), 9);
  EXPECT_TRUE(doc["timedOut"].GetBool());
  EXPECT_TRUE(doc["cancelled"].GetBool());
  EXPECT_TRUE(doc["truncated"].GetBool());
  EXPECT_EQ(doc["toolStdoutBytes"].GetUint64(), 12u);
  EXPECT_EQ(doc["bytesIn"].GetUint64(), 78u);
  EXPECT_EQ(doc["bytesOut"].GetUint64(), 34u);
  EXPECT_EQ(doc["durationMs"].GetInt64(), 56);
}

TEST(AuditLogLine, EmptyAndUnsetFieldsAreLeftOut) {
  AuditRecord r;
  auto doc = parse_line(AuditLog::to_json_line(r));
  ASSERT_TRUE(doc.IsObject());
  for (const char* absent :
       {"id", "method", "tool", "protocolVersion", "client", "remote", "httpStatus", "rpcError",
        "isError", "outcome", "exitStatus", "signal", "timedOut", "cancelled", "truncated",
        "argumentNames", "toolStdoutBytes"})
    EXPECT_FALSE(doc.HasMember(absent)) << absent;
  EXPECT_EQ(doc["bytesOut"].GetUint64(), 0u);
}

TEST(AuditLogFile, AppendsOneValidLinePerRecord) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "audit.jsonl").string();
  {
    AuditLog log(path);
    log.write(hostile_record());
    AuditRecord big = hostile_record();
    big.error_message.assign(1 << 20, 'x');  // more than one pipe or page buffer
    log.write(big);
  }
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(jsonrpc::is_valid_utf8(text));
  std::size_t lines = 0;
  for (std::size_t start = 0; start < text.size(); ++lines) {
    std::size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    parse_line(text.substr(start, end - start + 1));
    start = end + 1;
  }
  EXPECT_EQ(lines, 2u);
}

}  // namespace
}  // namespace mcpsh::mcp
