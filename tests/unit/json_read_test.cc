// jsonrpc::scan_json / parse_json: the rules every JSON input of the host is read by
// (NUL bytes, nesting, lone surrogates), before and around RapidJSON.
#include "jsonrpc/json_read.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace mcpsh::jsonrpc {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string parsed_string(const std::string& json) {
  ParsedJson p = parse_json(json);
  EXPECT_EQ(p.failure, ParsedJson::Failure::kNone) << p.error << ": " << json;
  if (!p.document || !p.document->IsString()) return "<not a string>";
  return std::string(p.document->GetString(), p.document->GetStringLength());
}

TEST(ScanJson, FindsNulBytesInsideAndOutsideStrings) {
  EXPECT_FALSE(scan_json(R"({"a":"b"})").nul_offset);
  EXPECT_EQ(scan_json(std::string("{}\0{}", 5)).nul_offset, 2u);
  EXPECT_EQ(scan_json(std::string("[\"abcdefghijkl\0\"]", 17)).nul_offset, 14u);
}

TEST(ScanJson, CountsLoneSurrogatesOnly) {
  EXPECT_EQ(scan_json(R"(["\ud83d\ude00"])").lone_surrogates, 0u);
  EXPECT_EQ(scan_json(R"(["\udc00"])").lone_surrogates, 1u);
  EXPECT_EQ(scan_json(R"(["\ud800"])").lone_surrogates, 1u);
  EXPECT_EQ(scan_json(R"(["\ud800\ud800\udc00"])").lone_surrogates, 1u);
  EXPECT_EQ(scan_json(R"(["\ude00\ud83d"])").lone_surrogates, 2u);
  EXPECT_EQ(scan_json(R"(["\\ud800"])").lone_surrogates, 0u);  // an escaped backslash
  EXPECT_EQ(scan_json(R"(\ud800)").lone_surrogates, 0u);       // not inside a string
}

TEST(ScanJson, DepthAndBalance) {
  EXPECT_EQ(scan_json(R"({"a":[{}],"b":"[[[["})").depth, 3u);
  EXPECT_TRUE(scan_json(R"({"a":[{}]})").balanced);
  EXPECT_FALSE(scan_json("[[").balanced);
  EXPECT_FALSE(scan_json("[]]").balanced);
  EXPECT_FALSE(scan_json(R"(["abc)").balanced);
}

// A text ending in a truncated UTF-8 sequence: RapidJSON validates a lead byte by taking its
// continuation bytes, past the end of the text (a heap over-read the line fuzzer found).
// Longer than the small-string buffer, so the string's heap block ends at its terminator.
TEST(ParseJson, TruncatedSequenceAtTheEndIsASyntaxErrorReadWithinTheText) {
  const char* line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xf1\xf1";
  std::string text(line);
  ParsedJson p = parse_json(std::move(text));
  EXPECT_EQ(p.failure, ParsedJson::Failure::kSyntax) << p.error;
}

// RapidJSON 1.1's exact-number path read "0e90" as 7.07e72 (a zero significand reaches
// DiyFp::Normalize); zero is zero whatever its exponent.
TEST(ParseJson, ZeroWithAnExponentIsZero) {
  ParsedJson p = parse_json(
      R"({"a":0e90,"b":-0.000E+300,"c":0e-300,"d":0.000e50,"e":1e2,"f":0.5e1,"g":"0e90"})");
  ASSERT_EQ(p.failure, ParsedJson::Failure::kNone) << p.error;
  const auto& d = *p.document;
  EXPECT_EQ(d["a"].GetDouble(), 0.0);
  EXPECT_EQ(d["b"].GetDouble(), 0.0);
  EXPECT_TRUE(std::signbit(d["b"].GetDouble()));
  EXPECT_EQ(d["c"].GetDouble(), 0.0);
  EXPECT_EQ(d["d"].GetDouble(), 0.0);
  EXPECT_EQ(d["e"].GetDouble(), 100.0);
  EXPECT_EQ(d["f"].GetDouble(), 5.0);
  EXPECT_STREQ(d["g"].GetString(), "0e90");  // strings are not numbers
  EXPECT_EQ(scan_json(R"([0e90,"0e90",-0E1,0.1e5,10e2,0.00,0,-0,00.0,0.])").zero_numbers, 3u);
}

// The same path read a zero with many zeros after the point as a tiny non-zero number of
// either sign (25 zeros: -1.37e-194; found by the line fuzzer). Invalid tokens stay invalid.
TEST(ParseJson, ZeroWithManyFractionDigitsIsZero) {
  const std::string zeros(25, '0');
  ParsedJson p = parse_json(R"({"a":0.)" + zeros + R"(,"b":-0.)" + zeros + zeros + R"(,"c":0.)" +
                            zeros + R"(e-5})");
  ASSERT_EQ(p.failure, ParsedJson::Failure::kNone) << p.error;
  const auto& d = *p.document;
  EXPECT_EQ(d["a"].GetDouble(), 0.0);
  EXPECT_FALSE(std::signbit(d["a"].GetDouble()));
  EXPECT_EQ(d["b"].GetDouble(), 0.0);
  EXPECT_TRUE(std::signbit(d["b"].GetDouble()));
  EXPECT_EQ(d["c"].GetDouble(), 0.0);
  // A rewritten zero never joins what followed it ("0e0e93" is not "0.0e93"; found by the
  // line fuzzer).
  for (const char* invalid : {"[00.000000000000000000000000]", "[0.]", "[0e]", "[-.0]", "[0e0e93]",
                              "[-0e0e93]", "[0e0.5]"})
    EXPECT_EQ(parse_json(invalid).failure, ParsedJson::Failure::kSyntax) << invalid;
}

// RapidJSON's full-precision path overflowed its significand on these digits (2^64-1 then
// a digit of 5 or more) and read them as numbers of the wrong size and sign (found by the
// line fuzzer): 18446744073709551615.7 was -2.5e263.
TEST(ParseJson, SignificandOfTwoToThe64IsReadAsItsValue) {
  ParsedJson p = parse_json(
      "[0.000001844674407370955161574643709551615,18446744073709551615.7,"
      "1844674407370955161574643709551615,-18446744073709551615.5]");
  ASSERT_EQ(p.failure, ParsedJson::Failure::kNone) << p.error;
  const auto& a = p.document->GetArray();
  EXPECT_NEAR(a[0].GetDouble(), 1.8446744073709552e-6, 1e-20);
  EXPECT_NEAR(a[1].GetDouble(), 1.8446744073709552e19, 1e5);
  EXPECT_NEAR(a[2].GetDouble(), 1.8446744073709552e33, 1e19);
  EXPECT_NEAR(a[3].GetDouble(), -1.8446744073709552e19, 1e5);
}

TEST(ParseJson, LoneSurrogatesAreReadAsReplacementCharacters) {
  EXPECT_EQ(parsed_string(R"("\udc00")"), kFffd);
  EXPECT_EQ(parsed_string(R"("\ud800")"), kFffd);
  EXPECT_EQ(parsed_string(R"("a\uDBFFb")"), "a" + kFffd + "b");
  EXPECT_EQ(parsed_string(R"("\ud800\ud83d\ude00")"), kFffd + "\xF0\x9F\x98\x80");
  EXPECT_EQ(parsed_string(R"("\ude00\ud83d")"), kFffd + kFffd);
  EXPECT_EQ(parsed_string(R"("\ud83d\ude00")"), "\xF0\x9F\x98\x80");
}

TEST(ParseJson, LoneSurrogatesInKeysToo) {
  ParsedJson p = parse_json(R"({"\udc00":1})");
  ASSERT_EQ(p.failure, ParsedJson::Failure::kNone) << p.error;
  EXPECT_TRUE(p.document->HasMember(kFffd.c_str()));
}

TEST(ParseJson, ANulByteIsAnErrorNotTheEnd) {
  ParsedJson p = parse_json(std::string("{}\0{\"x\":1}", 10));
  EXPECT_EQ(p.failure, ParsedJson::Failure::kNul);
  EXPECT_NE(p.error.find("offset 2"), std::string::npos) << p.error;
  EXPECT_EQ(p.document, nullptr);
}

TEST(ParseJson, DeepTextIsRefusedBeforeParsing) {
  std::string deep = std::string(kMaxNesting + 1, '[') + std::string(kMaxNesting + 1, ']');
  EXPECT_EQ(parse_json(deep).failure, ParsedJson::Failure::kTooDeep);
  EXPECT_EQ(parse_json(std::string(kMaxNesting + 1, '[')).failure, ParsedJson::Failure::kSyntax);
  std::string limit = std::string(kMaxNesting, '[') + std::string(kMaxNesting, ']');
  EXPECT_EQ(parse_json(limit).failure, ParsedJson::Failure::kNone);
}

TEST(ParseJson, SyntaxErrorsSayWhere) {
  ParsedJson p = parse_json(R"({"a":})");
  EXPECT_EQ(p.failure, ParsedJson::Failure::kSyntax);
  EXPECT_NE(p.error.find("offset 5"), std::string::npos) << p.error;
}

TEST(ParseJson, InvalidUtf8IsAnError) {
  EXPECT_EQ(parse_json("\"\xFF\"").failure, ParsedJson::Failure::kSyntax);
  EXPECT_EQ(parse_json("\"\xED\xB0\x80\"").failure, ParsedJson::Failure::kSyntax);
}

TEST(ParseJson, NumbersAreExact) {
  ParsedJson p = parse_json("[18446744073709551615,-9223372036854775808,0.1]");
  ASSERT_EQ(p.failure, ParsedJson::Failure::kNone);
  EXPECT_EQ((*p.document)[0].GetUint64(), 18446744073709551615ull);
  EXPECT_EQ((*p.document)[1].GetInt64(), INT64_MIN);
}

}  // namespace
}  // namespace mcpsh::jsonrpc
