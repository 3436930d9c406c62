// JSON Schema's notion of equality, numbers and string length.
#include <gtest/gtest.h>

#include "schema/json_util.h"
#include "test_util.h"

namespace mcpsh::schema::detail {
namespace {

using mcpsh::schema::testing::parse;

bool equal(const char* a, const char* b) { return json_equal(parse(a), parse(b)); }

TEST(Values, Equality) {
  EXPECT_TRUE(equal("1", "1.0"));
  EXPECT_TRUE(equal("-0", "0"));
  EXPECT_TRUE(equal("18446744073709551615", "18446744073709551615"));
  EXPECT_FALSE(equal("9007199254740993", "9007199254740992"));  // not rounded via double
  EXPECT_TRUE(equal(R"({"a": 1, "b": [1, {"c": null}]})", R"({"b": [1.0, {"c": null}], "a": 1})"));
  EXPECT_FALSE(equal(R"({"a": 1})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(equal("[1, 2]", "[2, 1]"));
  EXPECT_FALSE(equal("true", "1"));
  EXPECT_FALSE(equal("null", "false"));
  EXPECT_FALSE(equal(R"("1")", "1"));
}

TEST(Values, TotalOrderAgreesWithEquality) {
  const char* values[] = {"null",   "false", "true", "-1", "1",           "1.5",        R"("a")",
                          R"("b")", "[]",    "[1]",  "{}", R"({"a": 1})", R"({"b": 0})"};
  for (const char* a : values) {
    for (const char* b : values) {
      int ab = json_compare(parse(a), parse(b));
      int ba = json_compare(parse(b), parse(a));
      EXPECT_EQ(ab, -ba) << a << " vs " << b;
      EXPECT_EQ(ab == 0, equal(a, b)) << a << " vs " << b;
    }
  }
  EXPECT_EQ(json_compare(parse(R"({"a": 1, "b": 2})"), parse(R"({"b": 2, "a": 1.0})")), 0);
}

TEST(Values, Numbers) {
  EXPECT_TRUE(is_integer(parse("1.0")));
  EXPECT_TRUE(is_integer(parse("1e308")));
  EXPECT_FALSE(is_integer(parse("1.5")));
  EXPECT_FALSE(is_integer(parse(R"("1")")));
  EXPECT_LT(compare_numbers(parse("-1"), parse("18446744073709551615")), 0);
  EXPECT_GT(compare_numbers(parse("9007199254740993"), parse("9007199254740992.0")), 0);
  EXPECT_EQ(compare_numbers(parse("2"), parse("2.0")), 0);
}

TEST(Values, MultipleOf) {
  EXPECT_TRUE(is_multiple_of(parse("10"), parse("5")));
  EXPECT_FALSE(is_multiple_of(parse("-7"), parse("5")));
  EXPECT_TRUE(is_multiple_of(parse("-9223372036854775808"), parse("2")));
  EXPECT_TRUE(is_multiple_of(parse("0.0075"), parse("0.0001")));
  EXPECT_FALSE(is_multiple_of(parse("0.00751"), parse("0.0001")));
  EXPECT_TRUE(is_multiple_of(parse("4.5"), parse("1.5")));
  EXPECT_TRUE(is_multiple_of(parse("123456789.12"), parse("0.01")));
  EXPECT_FALSE(is_multiple_of(parse("1e308"), parse("0.123456789")));
  EXPECT_TRUE(is_multiple_of(parse("1e308"), parse("0.5")));
}

TEST(Values, Utf8Length) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("h\xc3\xa9"), 2u);
  EXPECT_EQ(utf8_length("\xf0\x9f\x98\x80"), 1u);  // one code point, not two UTF-16 units
  EXPECT_EQ(utf8_length("\xff\xfe"), 2u);
  EXPECT_EQ(utf8_length("\xc3"), 1u);  // truncated sequence
}

TEST(Values, Nesting) {
  EXPECT_FALSE(nesting_exceeds(parse("[[1]]"), 2));
  EXPECT_TRUE(nesting_exceeds(parse("[[[1]]]"), 2));
}

}  // namespace
}  // namespace mcpsh::schema::detail
