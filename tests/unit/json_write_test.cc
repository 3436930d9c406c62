// jsonrpc::append_json: byte for byte RapidJSON's compact text for valid input, and valid
// UTF-8 and valid JSON for any other.
#include "jsonrpc/json_write.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <limits>
#include <string>

#include "jsonrpc/utf8.h"

namespace mcpsh::jsonrpc {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string rapidjson_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ours(const rapidjson::Value& v) {
  std::string out;
  append_json(out, v);
  return out;
}

// Valid JSON in valid UTF-8, as a strict reader sees it.
::testing::AssertionResult valid_json(const std::string& text) {
  if (!is_valid_utf8(text)) return ::testing::AssertionFailure() << "invalid UTF-8: " << text;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
  if (d.HasParseError()) return ::testing::AssertionFailure() << "not JSON: " << text;
  return ::testing::AssertionSuccess();
}

TEST(AppendJson, SameBytesAsRapidJsonForValidInput) {
  const char* texts[] = {"null",
                         "true",
                         "false",
                         "0",
                         "-0",
                         "-0.0",
                         "1.5",
                         "0.1",
                         "1e300",
                         "-2.5e-300",
                         "123456789",
                         "-9223372036854775808",
                         "18446744073709551615",
                         "9007199254740993",
                         "4294967296",
                         "2147483648",
                         "-2147483649",
                         "3.141592653589793",
                         R"("")",
                         R"("plain")",
                         R"("caf\u00e9 \u20ac \ud83d\ude00")",
                         R"("\u007f\u0080")",
                         R"("/ \/ \\ \" ")",
                         "[]",
                         "{}",
                         R"([1,[2,[3,{}]],{"a":{"b":[]}}])",
                         R"({"k\n\"ey":"v\t","":0,"\u0000":"\u001f"})"};
  for (const char* text : texts) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseFullPrecisionFlag>(text);
    ASSERT_FALSE(d.HasParseError()) << text;
    EXPECT_EQ(ours(d), rapidjson_text(d)) << text;
    EXPECT_EQ(json_size_estimate(d) >= ours(d).size() || ours(d).find('\\') != std::string::npos,
              true)
        << text;
  }
}

TEST(AppendJson, EveryByteBelow0x80EscapedLikeRapidJson) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all += static_cast<char>(c);
  // At every offset of an 8-byte word, so that the word-at-a-time scan is covered.
  for (std::size_t pad = 0; pad < 8; ++pad) {
    std::string text = std::string(pad, 'p') + all + std::string(pad, 'q');
    rapidjson::Value v(rapidjson::StringRef(text.data(), text.size()));
    EXPECT_EQ(ours(v), rapidjson_text(v)) << pad;
  }
}

TEST(AppendJson, InvalidUtf8InStringsAndKeysBecomesReplacementCharacters) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  // The bytes of a lone low surrogate (what RapidJSON 1.1 makes of "\udc00"), a stray
  // continuation byte and 0xFF, in a key and in values.
  const std::string cesu = "\xED\xB0\x80", bad = "x\x80y\xFF";
  d.AddMember(rapidjson::Value(("k" + cesu).c_str(), a), rapidjson::Value(bad.c_str(), a), a);
  rapidjson::Value list(rapidjson::kArrayType);
  list.PushBack(rapidjson::Value(cesu.c_str(), a), a);
  d.AddMember("list", list, a);
  const std::string text = ours(d);
  EXPECT_TRUE(valid_json(text));
  EXPECT_EQ(text, "{\"k" + kFffd + kFffd + kFffd + "\":\"x" + kFffd + "y" + kFffd +
                      "\",\"list\":[\"" + kFffd + kFffd + kFffd + "\"]}");
}

TEST(AppendJson, InvalidBytesAtEveryOffsetOfAWord) {
  for (std::size_t at = 0; at < 24; ++at) {
    std::string text(24, 'a');
    text[at] = '\xC3';  // a lead byte whose continuation never comes
    std::string out;
    append_json_string(out, text);
    EXPECT_TRUE(valid_json(out)) << at;
    EXPECT_EQ(out, "\"" + text.substr(0, at) + kFffd + text.substr(at + 1) + "\"") << at;
  }
}

TEST(AppendJson, NonFiniteNumbersAreNull) {
  rapidjson::Document d(rapidjson::kArrayType);
  auto& a = d.GetAllocator();
  d.PushBack(std::numeric_limits<double>::infinity(), a);
  d.PushBack(-std::numeric_limits<double>::infinity(), a);
  d.PushBack(std::nan(""), a);
  d.PushBack(2.5, a);
  EXPECT_EQ(ours(d), "[null,null,null,2.5]");
}

TEST(AppendJson, NulInsideAStringIsEscaped) {
  std::string out;
  append_json_string(out, std::string_view("a\0b", 3));
  EXPECT_EQ(out, R"("a\u0000b")");
}

TEST(JsonSizeEstimate, ABoundWhenNothingIsEscaped) {
  rapidjson::Document d;
  d.Parse(R"({"content":[{"type":"text","text":"hello"}],"isError":true,"n":null})");
  const std::size_t size = ours(d).size();
  EXPECT_GE(json_size_estimate(d), size);
  EXPECT_LE(json_size_estimate(d), size + 3);  // one spare comma per non-empty container
}

}  // namespace
}  // namespace mcpsh::jsonrpc
