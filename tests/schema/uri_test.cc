// URI resolution (RFC 3986 section 5.4 examples) and JSON pointer parsing.
#include "schema/uri.h"

#include <gtest/gtest.h>

namespace mcpsh::schema::detail {
namespace {

struct ResolveCase {
  const char* base;
  const char* ref;
  const char* expected;
};

class Resolve : public ::testing::TestWithParam<ResolveCase> {};

TEST_P(Resolve, Rfc3986) {
  EXPECT_EQ(resolve_uri(GetParam().base, GetParam().ref), GetParam().expected)
      << GetParam().base << " + " << GetParam().ref;
}

const ResolveCase kResolve[] = {
    {"http://a/b/c/d;p?q", "g", "http://a/b/c/g"},
    {"http://a/b/c/d;p?q", "./g", "http://a/b/c/g"},
    {"http://a/b/c/d;p?q", "g/", "http://a/b/c/g/"},
    {"http://a/b/c/d;p?q", "/g", "http://a/g"},
    {"http://a/b/c/d;p?q", "//g", "http://g"},
    {"http://a/b/c/d;p?q", "?y", "http://a/b/c/d;p?y"},
    {"http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"},
    {"http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"},
    {"http://a/b/c/d;p?q", "..", "http://a/b/"},
    {"http://a/b/c/d;p?q", "../g", "http://a/b/g"},
    {"http://a/b/c/d;p?q", "../../../g", "http://a/g"},
    {"http://a/b/c/d;p?q", "g;x=1/../y", "http://a/b/c/y"},
    {"http://a/b/c/d;p?q", "g:h", "g:h"},
    {"HTTP://Example.COM/a", "b", "http://example.com/b"},
    {"http://x/y", "z#", "http://x/z"},  // empty fragment dropped
    {"", "#/$defs/a", "#/$defs/a"},      // no base: stays relative
    {"", "child1", "child1"},
    {"child1", "child2", "child2"},
    {"urn:uuid:deadbeef-1234", "#/$defs/x", "urn:uuid:deadbeef-1234#/$defs/x"},
    {"file:///c:/folder/file.json", "#/$defs/foo", "file:///c:/folder/file.json#/$defs/foo"},
};

INSTANTIATE_TEST_SUITE_P(Schema, Resolve, ::testing::ValuesIn(kResolve));

TEST(Uri, SplitFragment) {
  auto parts = split_fragment("http://x/y#/a/b");
  EXPECT_EQ(parts.absolute, "http://x/y");
  EXPECT_EQ(parts.fragment, "/a/b");
  EXPECT_TRUE(parts.has_fragment);
  EXPECT_FALSE(split_fragment("http://x/y").has_fragment);
}

TEST(Uri, PercentDecode) {
  EXPECT_EQ(percent_decode("foo%22bar%25"), "foo\"bar%");
  EXPECT_EQ(percent_decode("bad%2"), "bad%2");
  EXPECT_EQ(percent_decode("%zz"), "%zz");
}

TEST(Uri, JsonPointer) {
  using Tokens = std::vector<std::string>;
  EXPECT_EQ(parse_json_pointer(""), Tokens{});
  EXPECT_EQ(parse_json_pointer("/a~1b/c~0d/"), (Tokens{"a/b", "c~d", ""}));
  EXPECT_EQ(parse_json_pointer("/$defs//x"), (Tokens{"$defs", "", "x"}));
  EXPECT_FALSE(parse_json_pointer("a").has_value());
  EXPECT_FALSE(parse_json_pointer("/a~2").has_value());
  EXPECT_EQ(escape_pointer_token("a/b~c"), "a~1b~0c");
}

}  // namespace
}  // namespace mcpsh::schema::detail
