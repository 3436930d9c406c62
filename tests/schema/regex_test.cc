// The pattern engine: ECMA-262 syntax over code points, searched (not anchored).
#include "schema/regex.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpsh::schema::detail {
namespace {

struct MatchCase {
  const char* pattern;
  const char* subject;
  bool matches;
};

class RegexMatch : public ::testing::TestWithParam<MatchCase> {};

TEST_P(RegexMatch, Search) {
  const MatchCase& c = GetParam();
  auto compiled = Regex::compile(c.pattern);
  ASSERT_TRUE(std::holds_alternative<Regex>(compiled)) << std::get<std::string>(compiled);
  long budget = 1'000'000;
  auto result = std::get<Regex>(compiled).search(c.subject, budget);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, c.matches) << "/" << c.pattern << "/ on \"" << c.subject << "\"";
}

const MatchCase kMatches[] = {
    {"abc", "xxabcxx", true},
    {"^abc", "xabc", false},
    {"abc$", "abcx", false},
    {"^$", "", true},
    {"", "anything", true},
    {"a|b", "xbx", true},
    {"^(a|bc)+$", "abcbca", true},
    {"^(a|bc)+$", "abcb", false},
    {"^a*$", "", true},
    {"^a+?$", "aaa", true},
    {"^a{2}$", "aa", true},
    {"^a{2}$", "aaa", false},
    {"^a{2,}$", "aaaaa", true},
    {"^a{2,3}$", "aaaa", false},
    {"^a{,3}$", "a{,3}", true},  // Annex B: not a quantifier, so literal
    {"^x{$", "x{", true},
    {"^[a-c]+$", "abcab", true},
    {"^[^a-c]+$", "xyz", true},
    {"^[^a-c]+$", "xaz", false},
    {"^[]$", "", false},          // the empty class matches nothing
    {"^[^]$", "\n", true},        // its complement matches anything
    {"^[\\d-x]+$", "1-x", true},  // class escape in a range: "-" is literal
    {"^[\\w.]+$", "a_b.c", true},
    {"^\\d+$", "0123", true},
    {"^\\d+$", "\xd9\xa3", false},  // ARABIC-INDIC DIGIT THREE is not \d
    {"^\\D$", "a", true},
    {"^\\s$", "\xe2\x80\xa8", true},  // U+2028 is white space
    {"^\\S+$", "ab", true},
    {"^\\W$", "-", true},
    {"\\bfoo\\b", "a foo b", true},
    {"\\bfoo\\b", "afoob", false},
    {"\\Boo", "foo", true},
    {"^.$", "\xf0\x9f\x98\x80", true},  // one code point, four bytes
    {"^..$", "\xf0\x9f\x98\x80", false},
    {"^.$", "\n", false},
    {"^\\u00e9$", "\xc3\xa9", true},
    {"^\\u{1F600}$", "\xf0\x9f\x98\x80", true},
    {"^\\ud83d\\ude00$", "\xf0\x9f\x98\x80", true},  // surrogate pair escape
    {"^\\x41$", "A", true},
    {"^\\t\\n$", "\t\n", true},
    {"^\\cJ$", "\n", true},
    {"^\\/\\.\\*$", "/.*", true},
    {"^(?:ab)+$", "abab", true},
    {"^(?<year>\\d{4})-\\d{2}$", "2024-05", true},
    {"^(?=.*[A-Z])(?=.*\\d).{8,}$", "Passw0rdx", true},
    {"^(?=.*[A-Z])(?=.*\\d).{8,}$", "password1", false},
    {"^(?!admin$).+$", "admin", false},
    {"^(?!admin$).+$", "admins", true},
    {"^\\p{Letter}+$", "\xcf\x80", true},  // π
    {"^\\p{L}+$", "Hello", true},
    {"^\\p{L}+$", "123", false},
    {"^\\P{L}+$", "123", true},
    {"^\\p{Lu}$", "A", true},
    {"^\\p{Lu}$", "a", false},
    {"^\\p{digit}+$", "\xe0\xa7\xaa\xe0\xa7\xa8", true},  // Bengali digits
    {"^[\\p{L}\\d]+$", "a1", true},
    {"^\\p{gc=Nd}$", "7", true},
    {"(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
    {"^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", false},
    {"^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", "me@example.com", true},
};

INSTANTIATE_TEST_SUITE_P(Schema, RegexMatch, ::testing::ValuesIn(kMatches));

struct ErrorCase {
  const char* pattern;
  const char* error;
};

class RegexError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(RegexError, Refused) {
  auto compiled = Regex::compile(GetParam().pattern);
  ASSERT_TRUE(std::holds_alternative<std::string>(compiled)) << GetParam().pattern;
  EXPECT_EQ(std::get<std::string>(compiled), GetParam().error);
}

const ErrorCase kErrors[] = {
    {"(", "missing ')'"},
    {")", "unmatched ')'"},
    {"[a", "unterminated character class"},
    {"[z-a]", "range out of order in character class"},
    {"*a", "nothing to repeat"},
    {"a**", "nothing to repeat"},
    {"a{2}{3}", "nothing to repeat"},
    {"^*", "nothing to repeat"},
    {"a{3,2}", "numbers out of order in {} quantifier"},
    {"\\", "\\ at end of pattern"},
    {"(a)\\1", "backreferences are not supported"},
    {"(?<n>a)\\k<n>", "named backreferences are not supported"},
    {"(?<=a)b", "lookbehind assertions are not supported"},
    {"(?<!a)b", "lookbehind assertions are not supported"},
    {"(?i)a", "invalid group"},
    {"\\p{Greek}", "unsupported Unicode property \"Greek\" (General_Category values only)"},
    {"\\p", "\\p must be followed by {property}"},
    {"a{200000}", "repetition count too large"},
    {"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "((((((((((((((((((a",
     "groups nested too deeply"},
};

INSTANTIATE_TEST_SUITE_P(Schema, RegexError, ::testing::ValuesIn(kErrors));

TEST(Regex, BudgetRunsOut) {
  auto re = std::get<Regex>(Regex::compile("x(a|b)*y"));
  long budget = 100;
  EXPECT_FALSE(re.search(std::string(10000, 'a'), budget).has_value());
}

TEST(Regex, InvalidUtf8ReadsAsReplacementCharacter) {
  auto re = std::get<Regex>(Regex::compile("^.$"));
  long budget = 1000;
  EXPECT_EQ(re.search("\xff", budget), true);
}

}  // namespace
}  // namespace mcpsh::schema::detail
