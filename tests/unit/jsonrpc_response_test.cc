// Serialization of outgoing JSON-RPC lines: ids echoed exactly, no "id" when there is none,
// one compact line per message, valid UTF-8 whatever the strings hold.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"
#include "jsonrpc/response.h"
#include "jsonrpc/utf8.h"

namespace mcpsh::jsonrpc {
namespace {

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(ErrorLine, WithoutIdHasNoIdMember) {
  std::string line = error_line(std::nullopt, kParseError, "Parse error");
  auto d = parse_json(line);
  ASSERT_TRUE(d.IsObject());
  EXPECT_FALSE(d.HasMember("id")) << line;  // not even "id": null
  EXPECT_STREQ(d["jsonrpc"].GetString(), "2.0");
  EXPECT_EQ(d["error"]["code"].GetInt(), kParseError);
  EXPECT_STREQ(d["error"]["message"].GetString(), "Parse error");
  EXPECT_FALSE(d["error"].HasMember("data"));
}

TEST(ErrorLine, EchoesIntegerIdByteForByte) {
  std::string line = error_line(RequestId{"18446744073709551615"}, kInvalidParams, "m");
  EXPECT_NE(line.find(R"("id":18446744073709551615,)"), std::string::npos) << line;
}

TEST(ErrorLine, EchoesNegativeIdByteForByte) {
  std::string line = error_line(RequestId{"-9223372036854775808"}, kInvalidParams, "m");
  EXPECT_NE(line.find(R"("id":-9223372036854775808,)"), std::string::npos) << line;
}

TEST(ErrorLine, EchoesStringIdByteForByte) {
  std::string line = error_line(RequestId{R"("a\"b")"}, kMethodNotFound, "m");
  EXPECT_NE(line.find(R"("id":"a\"b",)"), std::string::npos) << line;
  EXPECT_STREQ(parse_json(line)["id"].GetString(), "a\"b");
}

TEST(ErrorLine, CarriesData) {
  rapidjson::Document data;
  data.Parse(R"({"requested":"1999-01-01","supported":["2026-07-28"]})");
  std::string line = error_line(RequestId{"1"}, kUnsupportedProtocolVersion, "Unsupported", &data);
  auto d = parse_json(line);
  EXPECT_STREQ(d["error"]["data"]["requested"].GetString(), "1999-01-01");
  EXPECT_STREQ(d["error"]["data"]["supported"][0].GetString(), "2026-07-28");
}

TEST(ErrorLine, MessageWithControlCharactersStaysOneLine) {
  std::string line = error_line(RequestId{"1"}, kInvalidParams, "two\nlines\r\tand a \x01");
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find('\r'), std::string::npos) << line;
  EXPECT_STREQ(parse_json(line)["error"]["message"].GetString(), "two\nlines\r\tand a \x01");
}

TEST(ResultLine, RawSplicesTheResultExactly) {
  EXPECT_EQ(result_line_raw(RequestId{"7"}, R"({"x":1})"),
            R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})");
  EXPECT_EQ(result_line_raw(RequestId{R"("s")"}, "{}"),
            R"({"jsonrpc":"2.0","id":"s","result":{}})");
}

TEST(ResultLine, SerializesAValueCompactly) {
  rapidjson::Document result;
  result.Parse(R"({ "content" : [ {"type":"text", "text":"a\nb"} ] })");
  std::string line = result_line(RequestId{"9007199254740993"}, result);
  EXPECT_EQ(
      line,
      R"({"jsonrpc":"2.0","id":9007199254740993,"result":{"content":[{"type":"text","text":"a\nb"}]}})");
}

TEST(NotificationLine, HasMethodAndParamsButNoId) {
  rapidjson::Document params;
  params.Parse(R"({"progressToken":"t","progress":1})");
  std::string line = notification_line("notifications/progress", params);
  auto d = parse_json(line);
  EXPECT_FALSE(d.HasMember("id"));
  EXPECT_STREQ(d["method"].GetString(), "notifications/progress");
  EXPECT_EQ(d["params"]["progress"].GetInt(), 1);
}

// ---- every line is valid UTF-8, whatever the strings hold ---------------------------------

const std::string kFffd = "\xEF\xBF\xBD";

::testing::AssertionResult valid_line(const std::string& line) {
  if (!is_valid_utf8(line)) return ::testing::AssertionFailure() << "invalid UTF-8: " << line;
  if (line.find('\n') != std::string::npos)
    return ::testing::AssertionFailure() << "more than one line: " << line;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseValidateEncodingFlag>(line.c_str(), line.size());
  if (d.HasParseError() || !d.IsObject())
    return ::testing::AssertionFailure() << "not a JSON object: " << line;
  return ::testing::AssertionSuccess();
}

TEST(ValidUtf8Lines, ErrorMessageWithRawBytes) {
  std::string line = error_line(RequestId{"1"}, kMethodNotFound, "Method not found: tools/\xff");
  EXPECT_TRUE(valid_line(line));
  EXPECT_NE(line.find("tools/" + kFffd), std::string::npos) << line;
}

TEST(ValidUtf8Lines, ResultStringsAndKeysWithRawBytes) {
  rapidjson::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  result.AddMember(rapidjson::Value("key\xC3", a), rapidjson::Value("a\xED\xB0\x80z", a), a);
  std::string line = result_line(RequestId{"2"}, result);
  EXPECT_TRUE(valid_line(line));
  EXPECT_EQ(line, R"({"jsonrpc":"2.0","id":2,"result":{"key)" + kFffd + R"(":"a)" + kFffd + kFffd +
                      kFffd + R"(z"}})");
}

TEST(ValidUtf8Lines, NotificationDataWithRawBytes) {
  // What mcp_log with raw bytes puts in notifications/message.
  rapidjson::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  params.AddMember("level", "info", a);
  params.AddMember("data", rapidjson::Value("bad \xff\xfe bytes", a), a);
  std::string line = notification_line("notifications/message", params);
  EXPECT_TRUE(valid_line(line));
  EXPECT_NE(line.find("bad " + kFffd + kFffd + " bytes"), std::string::npos) << line;
}

TEST(ValidUtf8Lines, RawSpliceAndIdAreRepaired) {
  std::string line = result_line_raw(RequestId{"\"i\xff\""}, "{\"d\":\"\xC0\xAF\"}");
  EXPECT_TRUE(valid_line(line));
  EXPECT_EQ(line, R"({"jsonrpc":"2.0","id":"i)" + kFffd + R"(","result":{"d":")" + kFffd + kFffd +
                      R"("}})");
}

TEST(ValidUtf8Lines, ValidTextIsByteIdentical) {
  const std::string text = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \x7F";
  rapidjson::Document result(rapidjson::kObjectType);
  result.AddMember("t", rapidjson::StringRef(text.c_str()), result.GetAllocator());
  EXPECT_EQ(result_line(RequestId{"1"}, result),
            R"({"jsonrpc":"2.0","id":1,"result":{"t":")" + text + R"("}})");
}

TEST(ValidUtf8Lines, RoomForTheNewlineSoQueuingDoesNotCopy) {
  rapidjson::Document result(rapidjson::kObjectType);
  std::string big(1 << 20, 'x');
  result.AddMember("t", rapidjson::StringRef(big.data(), big.size()), result.GetAllocator());
  std::string line = result_line(RequestId{"1"}, result);
  EXPECT_GT(line.capacity(), line.size());
  EXPECT_LT(line.capacity(), line.size() + 64);  // reserved once, not grown by doubling
}

TEST(PrettyJson, IndentsAndKeepsTheValue) {
  std::string pretty = pretty_json(R"({"a":[1,{"b":"c"}]})");
  EXPECT_NE(pretty.find('\n'), std::string::npos);
  auto d = parse_json(pretty);
  EXPECT_STREQ(d["a"][1]["b"].GetString(), "c");
}

}  // namespace
}  // namespace mcpsh::jsonrpc
