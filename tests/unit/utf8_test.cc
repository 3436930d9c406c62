// jsonrpc UTF-8 repair: every invalid sequence becomes U+FFFD, valid text is untouched.
#include "jsonrpc/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpsh::jsonrpc {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The text with every run of U+FFFD collapsed to one "?" marker, so that the tests hold
// whether an invalid sequence becomes one replacement or one per byte.
std::string collapse_replacements(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, kReplacement.size(), kReplacement) == 0) {
      if (out.empty() || out.back() != '?') out += '?';
      i += kReplacement.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

struct Utf8Case {
  const char* name;
  std::string input;
  std::string expected;  // after collapse_replacements
};

void PrintTo(const Utf8Case& c, std::ostream* out) { *out << c.name; }

class ValidUtf8 : public ::testing::TestWithParam<Utf8Case> {};

TEST_P(ValidUtf8, ReplacesInvalidSequences) {
  const auto& c = GetParam();
  std::string out = valid_utf8(c.input);
  EXPECT_EQ(collapse_replacements(out), c.expected);
  // Applying it again changes nothing: the output is valid UTF-8.
  EXPECT_EQ(valid_utf8(out), out);
}

const Utf8Case kUtf8Cases[] = {
    {"Ascii", "plain text\n", "plain text\n"},
    {"Empty", "", ""},
    {"TwoByte", "caf\xC3\xA9", "caf\xC3\xA9"},
    {"ThreeByte", "\xE2\x82\xAC 5", "\xE2\x82\xAC 5"},
    {"FourByte", "\xF0\x9F\x98\x80!", "\xF0\x9F\x98\x80!"},
    {"HighestCodePoint", "\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"},
    {"LastBeforeSurrogates", "\xED\x9F\xBF", "\xED\x9F\xBF"},
    {"ReplacementCharacterItself", "\xEF\xBF\xBD", "?"},
    {"LoneContinuation", "a\x80z", "a?z"},
    {"InvalidLeadFF", "a\xFFz", "a?z"},
    {"InvalidLeadF5", "a\xF5\x80\x80\x80z", "a?z"},
    {"OverlongTwoByteSlash", "a\xC0\xAFz", "a?z"},
    {"OverlongTwoByteC1", "a\xC1\xBFz", "a?z"},
    {"OverlongThreeByte", "a\xE0\x80\xAFz", "a?z"},
    {"OverlongFourByte", "a\xF0\x80\x80\xAFz", "a?z"},
    {"HighSurrogate", "a\xED\xA0\x80z", "a?z"},
    {"LowSurrogate", "a\xED\xBF\xBFz", "a?z"},
    {"AboveUnicode", "a\xF4\x90\x80\x80z", "a?z"},
    {"TruncatedAtEnd", "ok \xE2\x82", "ok ?"},
    {"TruncatedTwoByteAtEnd", "ok \xC3", "ok ?"},
    {"TruncatedBeforeAscii", "\xE2\x82z", "?z"},
    {"TruncatedFourByteBeforeValid", "\xF0\x9F\x98\xC3\xA9", "?\xC3\xA9"},
    {"BasicFixtureBytes", "ok \xff\xfe bytes \xc3\n", "ok ? bytes ?\n"},
};

INSTANTIATE_TEST_SUITE_P(Sequences, ValidUtf8, ::testing::ValuesIn(kUtf8Cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ValidUtf8Exact, ValidMultibyteInputIsReturnedUnchanged) {
  std::string text = "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\n\t\x01";
  EXPECT_EQ(valid_utf8(text), text);
}

TEST(ValidUtf8Exact, NulBytesAreKept) {
  std::string text("a\0b", 3);
  EXPECT_EQ(valid_utf8(text), text);
}

// Exactly one U+FFFD per maximal subpart (Unicode's recommended practice, the WHATWG
// decoder's): what a client decoding the raw bytes itself would show.
TEST(ValidUtf8Exact, OneReplacementPerMaximalSubpart) {
  const std::string r = kReplacement;
  EXPECT_EQ(valid_utf8("\xE2\x82z"), r + "z");               // truncated 3-byte: one
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98z"), r + "z");           // truncated 4-byte: one
  EXPECT_EQ(valid_utf8("\xED\xB0\x80"), r + r + r);          // encoded surrogate: three
  EXPECT_EQ(valid_utf8("\xC0\xAF"), r + r);                  // overlong: each byte
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(valid_utf8("\xFF\xFE"), r + r);
  EXPECT_EQ(valid_utf8("\xE2\x82\xE2\x82\xAC"), r + "\xE2\x82\xAC");  // then a valid one
}

TEST(ValidUtf8Exact, LongRunsAroundInvalidBytesAreKept) {
  // Word-at-a-time scanning: invalid bytes at every offset of a word, valid text around.
  for (std::size_t at = 0; at < 20; ++at) {
    std::string text(20, 'a');
    text[at] = '\xFF';
    std::string expected = text.substr(0, at) + kReplacement + text.substr(at + 1);
    EXPECT_EQ(valid_utf8(text), expected) << at;
    EXPECT_FALSE(is_valid_utf8(text)) << at;
    EXPECT_TRUE(is_valid_utf8(expected)) << at;
  }
}

TEST(ValidUtf8Exact, AppendsToWhatIsThere) {
  std::string out = "prefix:";
  append_valid_utf8(out, "x\xFFy");
  EXPECT_EQ(out, "prefix:x" + kReplacement + "y");
}

}  // namespace
}  // namespace mcpsh::jsonrpc
