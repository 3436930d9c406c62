// Mirrored header values: optional whitespace trimmed, `=?base64?…?=` decoded strictly,
// anything else literal, and characters a field value may not hold refused.
#include "mcp/header_value.h"

#include <gtest/gtest.h>

namespace mcpsh::mcp {
namespace {

TEST(HeaderValue, OptionalWhitespaceAroundTheValueIsTrimmed) {
  EXPECT_EQ(trim_ows("  name \t"), "name");
  EXPECT_EQ(trim_ows("a b"), "a b");
  EXPECT_EQ(trim_ows(" \t "), "");
}

TEST(HeaderValue, TheSpecEncodingTableDecodes) {
  EXPECT_EQ(decode_header_value("us-west1"), "us-west1");
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, \u4e16\u754c");
  EXPECT_EQ(decode_header_value("=?base64?IHBhZGRlZCA=?="), " padded ");
  EXPECT_EQ(decode_header_value("=?base64?bGluZTEKbGluZTI=?="), "line1\nline2");
  EXPECT_EQ(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), "=?base64?literal?=");
}

TEST(HeaderValue, EveryPaddingLengthDecodes) {
  EXPECT_EQ(decode_header_value("=?base64?TWFu?="), "Man");
  EXPECT_EQ(decode_header_value("=?base64?TWE=?="), "Ma");
  EXPECT_EQ(decode_header_value("=?base64?TQ==?="), "M");
  EXPECT_EQ(decode_header_value("=?base64?"
                                "?="),
            "");
  EXPECT_EQ(decode_header_value("=?base64?+/+/?="), "\xfb\xff\xbf");
}

TEST(HeaderValue, InvalidBase64IsRefused) {
  for (const char* bad : {"=?base64?SGVsbG8?=",      // padding missing
                          "=?base64?SGVs!!!bG8=?=",  // outside the alphabet
                          "=?base64?SGVsbG8=SGVs?=", "=?base64?S===?=", "=?base64?====?=",
                          "=?base64?SGVs bG8=?=",  // a space inside
                          "=?base64?SGVsbG8_?=",   // the URL-safe alphabet is not base64 here
                          "=?base64?A?="})
    EXPECT_EQ(decode_header_value(bad), std::nullopt) << bad;
}

TEST(HeaderValue, WithoutBothMarkersAValueIsLiteral) {
  EXPECT_EQ(decode_header_value("SGVsbG8="), "SGVsbG8=");
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
  EXPECT_EQ(decode_header_value("SGVsbG8=?="), "SGVsbG8=?=");
  EXPECT_EQ(decode_header_value("=?BASE64?SGVsbG8=?="), "=?BASE64?SGVsbG8=?=");  // case-sensitive
  EXPECT_EQ(decode_header_value("=?base64?="), "=?base64?=");  // the markers would overlap
}

TEST(HeaderValue, CharactersAFieldValueMayNotHoldAreRefused) {
  EXPECT_EQ(decode_header_value("a\tb c~"), "a\tb c~");
  for (const char* bad : {"a\x01", "a\x7f", "\xc3\xa9", "a\nb", "a\rb"})
    EXPECT_EQ(decode_header_value(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace mcpsh::mcp
