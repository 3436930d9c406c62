// RFC 6570 URI templates: parsing, expansion (the RFC's own examples), matching (the
// rules in resources/uri_template.h), round trips and hostile input.
#include "resources/uri_template.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::resources {
namespace {

using Values = std::map<std::string, std::string>;

UriTemplate parsed(std::string_view text) {
  auto result = UriTemplate::parse(text);
  if (auto* error = std::get_if<std::string>(&result)) {
    ADD_FAILURE() << "template " << text << " rejected: " << *error;
    return std::get<UriTemplate>(UriTemplate::parse("invalid-template-placeholder"));
  }
  return std::get<UriTemplate>(std::move(result));
}

std::string parse_error(std::string_view text) {
  auto result = UriTemplate::parse(text);
  if (auto* error = std::get_if<std::string>(&result)) return *error;
  return "(accepted)";
}

std::optional<Values> match(std::string_view template_text, std::string_view uri) {
  return parsed(template_text).match(uri);
}

// The variables of RFC 6570 section 3.2 that have string values ("undef" is undefined).
const Values kRfcValues = {
    {"var", "value"},
    {"hello", "Hello World!"},
    {"half", "50%"},
    {"who", "fred"},
    {"base", "http://example.com/home/"},
    {"path", "/foo/bar"},
    {"v", "6"},
    {"x", "1024"},
    {"y", "768"},
    {"empty", ""},
    {"dub", "me/too"},
};

struct Expansion {
  std::string_view text;
  std::string_view expected;
};

void expect_expansions(const std::vector<Expansion>& cases) {
  for (const auto& [text, expected] : cases) {
    EXPECT_EQ(parsed(text).expand(kRfcValues), expected) << text;
  }
}

TEST(UriTemplateExpand, RfcLevel1Simple) {
  expect_expansions({
      {"{var}", "value"},
      {"{hello}", "Hello%20World%21"},
      {"{half}", "50%25"},
      {"O{empty}X", "OX"},
      {"O{undef}X", "OX"},
      {"{x,y}", "1024,768"},
      {"{x,hello,y}", "1024,Hello%20World%21,768"},
      {"?{x,empty}", "?1024,"},
      {"?{x,undef}", "?1024"},
      {"?{undef,y}", "?768"},
      {"map?{x,y}", "map?1024,768"},
      {"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
  });
}

TEST(UriTemplateExpand, RfcLevel2ReservedAndFragment) {
  expect_expansions({
      {"{+var}", "value"},
      {"{+hello}", "Hello%20World!"},
      {"{+half}", "50%25"},
      {"{+base}index", "http://example.com/home/index"},
      {"O{+empty}X", "OX"},
      {"O{+undef}X", "OX"},
      {"{+path}/here", "/foo/bar/here"},
      {"here?ref={+path}", "here?ref=/foo/bar"},
      {"up{+path}{var}/here", "up/foo/barvalue/here"},
      {"{+x,hello,y}", "1024,Hello%20World!,768"},
      {"{+path,x}/here", "/foo/bar,1024/here"},
      {"{#var}", "#value"},
      {"{#hello}", "#Hello%20World!"},
      {"{#half}", "#50%25"},
      {"foo{#empty}", "foo#"},
      {"foo{#undef}", "foo"},
      {"X{#var}", "X#value"},
      {"{#x,hello,y}", "#1024,Hello%20World!,768"},
      {"{#path,x}/here", "#/foo/bar,1024/here"},
  });
}

TEST(UriTemplateExpand, RfcLevel3LabelPathAndNamed) {
  expect_expansions({
      {"{.who}", ".fred"},
      {"{.who,who}", ".fred.fred"},
      {"{.half,who}", ".50%25.fred"},
      {"X{.var}", "X.value"},
      {"X{.empty}", "X."},
      {"X{.undef}", "X"},
      {"X{.x,y}", "X.1024.768"},
      {"{/who}", "/fred"},
      {"{/who,who}", "/fred/fred"},
      {"{/half,who}", "/50%25/fred"},
      {"{/who,dub}", "/fred/me%2Ftoo"},
      {"{/var}", "/value"},
      {"{/var,empty}", "/value/"},
      {"{/var,undef}", "/value"},
      {"{/var,x}/here", "/value/1024/here"},
      {"{;who}", ";who=fred"},
      {"{;half}", ";half=50%25"},
      {"{;empty}", ";empty"},
      {"{;v,empty,who}", ";v=6;empty;who=fred"},
      {"{;v,bar,who}", ";v=6;who=fred"},
      {"{;x,y}", ";x=1024;y=768"},
      {"{;x,y,empty}", ";x=1024;y=768;empty"},
      {"{;x,y,undef}", ";x=1024;y=768"},
      {"{?who}", "?who=fred"},
      {"{?half}", "?half=50%25"},
      {"{?x,y}", "?x=1024&y=768"},
      {"{?x,y,empty}", "?x=1024&y=768&empty="},
      {"{?x,y,undef}", "?x=1024&y=768"},
      {"{&who}", "&who=fred"},
      {"{&half}", "&half=50%25"},
      {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
      {"{&x,y,empty}", "&x=1024&y=768&empty="},
  });
}

TEST(UriTemplateExpand, RfcLevel4PrefixAndExplode) {
  expect_expansions({
      {"{var:3}", "val"},
      {"{var:30}", "value"},
      {"{+path:6}/here", "/foo/b/here"},
      {"{#path:6}/here", "#/foo/b/here"},
      {"X{.var:3}", "X.val"},
      {"{/var:1,var}", "/v/value"},
      {"{;hello:5}", ";hello=Hello"},
      {"{?var:3}", "?var=val"},
      {"{&var:3}", "&var=val"},
      // Explode only affects lists and maps; a string expands as without it.
      {"{/who*}", "/fred"},
      {"{?who*}", "?who=fred"},
  });
}

TEST(UriTemplateExpand, EncodesUtf8AndCountsPrefixesInCodePoints) {
  const Values values = {{"name", "caf\xC3\xA9 \xE2\x82\xAC"}};
  EXPECT_EQ(parsed("{name}").expand(values), "caf%C3%A9%20%E2%82%AC");
  EXPECT_EQ(parsed("{name:4}").expand(values), "caf%C3%A9");
  EXPECT_EQ(parsed("{+name:6}").expand(values), "caf%C3%A9%20%E2%82%AC");
  // Pct-encoded triplets pass through {+var} but not {var}.
  EXPECT_EQ(parsed("{+v}/{v}").expand({{"v", "a%2Fb"}}), "a%2Fb/a%252Fb");
}

TEST(UriTemplateExpand, EncodesNonAsciiLiterals) {
  EXPECT_EQ(parsed("docs://caf\xC3\xA9/{x}").expand({{"x", "1"}}), "docs://caf%C3%A9/1");
  EXPECT_EQ(parsed("a%2fb").expand({}), "a%2fb");
}

TEST(UriTemplateParse, VariablesInOrderOfFirstAppearance) {
  const UriTemplate t = parsed("x://{b}/{a,b}{?c,a}{&d.e,%41}");
  EXPECT_EQ(t.variables(), (std::vector<std::string>{"b", "a", "c", "d.e", "%41"}));
  EXPECT_TRUE(t.has_variables());
  EXPECT_EQ(t.text(), "x://{b}/{a,b}{?c,a}{&d.e,%41}");
  EXPECT_FALSE(parsed("docs://readme").has_variables());
  EXPECT_TRUE(parsed("").variables().empty());
}

TEST(UriTemplateParse, InvalidTemplatesSayWhy) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"a{b", "expression opened at offset 1 is not closed"},
      {"a{b,", "expression opened at offset 1 is not closed"},
      {"a{", "expression opened at offset 1 is not closed"},
      {"a{b:3", "expression opened at offset 1 is not closed"},
      {"a}b", "'}' at offset 1 closes no expression"},
      {"{a{b}}", "'{' at offset 2 inside an expression"},
      {"{}", "empty expression at offset 0"},
      {"{a,}", "empty variable name at offset 3"},
      {"{,a}", "operator ',' at offset 1 is reserved for future extensions"},
      {"{=a}", "operator '=' at offset 1 is reserved"},
      {"{!a}", "operator '!' at offset 1 is reserved"},
      {"{@a}", "operator '@' at offset 1 is reserved"},
      {"{|a}", "operator '|' at offset 1 is reserved"},
      {"{$a}", "unknown operator '$' at offset 1"},
      {"{-a}", "unknown operator '-' at offset 1"},
      {"{a b}", "unexpected character byte 0x20 at offset 2"},
      {"{a-b}", "unexpected character '-' at offset 2"},
      {"{.a.}", "unexpected character '.' at offset 3"},
      {"{a..b}", "unexpected character '.' at offset 2"},
      {"{+.a}", "invalid character '.' in a variable name at offset 2"},
      {"{a%2}", "'%' in a variable name at offset 2 is not a pct-encoded triplet"},
      {"{%zz}", "'%' in a variable name at offset 1 is not a pct-encoded triplet"},
      {"{a:}", "prefix length at offset 3 must be a number from 1 to 9999"},
      {"{a:0}", "prefix length at offset 3 must be"},
      {"{a:10000}", "prefix length at offset 3 must be"},
      {"{a:3*}", "unexpected character '*' at offset 4"},
      {"a b", "character byte 0x20 at offset 1 is not allowed in a literal"},
      {"a<b", "character '<' at offset 1 is not allowed in a literal"},
      {"a'b", "character ''' at offset 1 is not allowed in a literal"},
      {"a|b", "character '|' at offset 1 is not allowed"},
      {"a^b", "character '^' at offset 1 is not allowed"},
      {"a\\b", "character '\\' at offset 1 is not allowed"},
      {"a\x7F", "character byte 0x7F at offset 1 is not allowed"},
      {"%4", "'%' at offset 0 does not start a pct-encoded triplet"},
      {"a%g1", "'%' at offset 1 does not start"},
      {"a\xC3", "invalid UTF-8 at offset 1"},
      {"a\xC0\xAF", "invalid UTF-8 at offset 1"},
      {"a\xC2\x85", "character U+0085 at offset 1 is not allowed in a literal"},
      {"a\xEF\xBF\xBE", "character U+FFFE at offset 1 is not allowed"},
      {"a\xEF\xB7\x90", "character U+FDD0 at offset 1 is not allowed"},
  };
  for (const auto& [text, reason] : cases) {
    const std::string error = parse_error(text);
    EXPECT_NE(error.find(reason), std::string::npos) << text << " gave: " << error;
  }
  std::string many = "{?v0";
  for (int i = 1; i <= 64; ++i) many += ",v" + std::to_string(i);
  EXPECT_EQ(parse_error(many + "}"), "more than 64 variables in the expression at offset 0");
  EXPECT_EQ(parse_error("x\xEE\x80\x80{a}\xF0\x9F\x98\x80"), "(accepted)");  // iprivate, ucschar
}

TEST(UriTemplateMatch, SimpleVariableIsOneSegment) {
  EXPECT_EQ(match("users://{id}/profile", "users://42/profile"), (Values{{"id", "42"}}));
  EXPECT_EQ(match("users://{id}/profile", "users://a-b.c_d~e/profile"),
            (Values{{"id", "a-b.c_d~e"}}));
  EXPECT_EQ(match("users://{id}/profile", "users://a/b/profile"), std::nullopt);
  EXPECT_EQ(match("users://{id}/profile", "users:///profile"), std::nullopt);  // empty
  for (const char* reserved : {"a?b", "a#b", "a,b", "a!b", "a:b", "a@b", "a;b", "a=b", "a&b"}) {
    EXPECT_EQ(match("users://{id}/profile", std::string("users://") + reserved + "/profile"),
              std::nullopt)
        << reserved;
  }
}

TEST(UriTemplateMatch, MatchIsExactAndLiteralsAreCaseSensitive) {
  EXPECT_EQ(match("users://{id}/profile", "users://42/profile/"), std::nullopt);
  EXPECT_EQ(match("users://{id}/profile", "users://42/profilex"), std::nullopt);
  EXPECT_EQ(match("users://{id}/profile", "xusers://42/profile"), std::nullopt);
  EXPECT_EQ(match("users://{id}/profile", "USERS://42/profile"), std::nullopt);
  EXPECT_EQ(match("users://{id}/profile", "users://42/Profile"), std::nullopt);
  EXPECT_EQ(match("docs://readme", "docs://readme"), Values{});
  EXPECT_EQ(match("docs://readme", "docs://readm"), std::nullopt);
  EXPECT_EQ(match("", ""), Values{});
  EXPECT_EQ(match("", "x"), std::nullopt);
  // Pct-encoded triplets in literals compare as written.
  EXPECT_EQ(match("a%2fb/{x}", "a%2fb/1"), (Values{{"x", "1"}}));
  EXPECT_EQ(match("a%2fb/{x}", "a%2Fb/1"), std::nullopt);
  EXPECT_EQ(match("a%2fb/{x}", "a/b/1"), std::nullopt);
}

TEST(UriTemplateMatch, NonAsciiLiteralMatchesRawOrAsExpandWritesIt) {
  const std::string t = "docs://caf\xC3\xA9/{x}";
  EXPECT_EQ(match(t, "docs://caf\xC3\xA9/1"), (Values{{"x", "1"}}));
  EXPECT_EQ(match(t, "docs://caf%C3%A9/1"), (Values{{"x", "1"}}));
  EXPECT_EQ(match(t, "docs://caf%c3%a9/1"), std::nullopt);
  EXPECT_EQ(match(t, "docs://caf\xC3%A9/1"), std::nullopt);
}

TEST(UriTemplateMatch, ReservedExpansionSpansSlashes) {
  EXPECT_EQ(match("file:///{+path}", "file:///etc/hosts"), (Values{{"path", "etc/hosts"}}));
  EXPECT_EQ(match("file:///{+path}", "file:///a/b?c=d#e,f"), (Values{{"path", "a/b?c=d#e,f"}}));
  EXPECT_EQ(match("file:///{+path}", "file:///"), std::nullopt);
  EXPECT_EQ(match("file:///{+path}", "file:///a b"), std::nullopt);  // space is never raw
  EXPECT_EQ(match("x:{#frag}", "x:#a/b"), (Values{{"frag", "a/b"}}));
  EXPECT_EQ(match("x:{#frag}", "x:"), Values{});
  EXPECT_EQ(match("x:{#frag}", "x:#"), std::nullopt);
}

TEST(UriTemplateMatch, PrefixOperatorsAreOptional) {
  EXPECT_EQ(match("api://items{/id}", "api://items/7"), (Values{{"id", "7"}}));
  EXPECT_EQ(match("api://items{/id}", "api://items"), Values{});
  EXPECT_EQ(match("api://items{/id}", "api://items/"), std::nullopt);
  EXPECT_EQ(match("api://items{/id}", "api://items/7/8"), std::nullopt);
  EXPECT_EQ(match("api://items{/a,b}", "api://items/7/8"), (Values{{"a", "7"}, {"b", "8"}}));
  EXPECT_EQ(match("api://items{/a,b}", "api://items/7"), (Values{{"a", "7"}}));
  EXPECT_EQ(match("host{.domain}", "host.example"), (Values{{"domain", "example"}}));
  EXPECT_EQ(match("host{.a,b}", "host.x.y"), (Values{{"a", "x.y"}}));  // greedy, '.' is unreserved
  EXPECT_EQ(match("m{;x,y}", "m;x=1;y=2"), (Values{{"x", "1"}, {"y", "2"}}));
  EXPECT_EQ(match("m{;x,y}", "m;y=2"), (Values{{"y", "2"}}));
  EXPECT_EQ(match("m{;x,y}", "m"), Values{});
  EXPECT_EQ(match("q?fixed=1{&x,y}", "q?fixed=1&y=2&x=1"), (Values{{"x", "1"}, {"y", "2"}}));
  EXPECT_EQ(match("q?fixed=1{&x,y}", "q?fixed=1"), Values{});
}

TEST(UriTemplateMatch, SimpleAndReservedExpressionsAreRequired) {
  EXPECT_EQ(match("a/{x}", "a/"), std::nullopt);
  EXPECT_EQ(match("a/{x,y}", "a/"), std::nullopt);
  EXPECT_EQ(match("a/{x,y}", "a/1"), (Values{{"x", "1"}}));
  EXPECT_EQ(match("a/{x,y}", "a/1,2"), (Values{{"x", "1"}, {"y", "2"}}));
  EXPECT_EQ(match("a/{x,y}", "a/1,"), std::nullopt);
  EXPECT_EQ(match("a/{x,y}", "a/,2"), std::nullopt);
  EXPECT_EQ(match("a/{+x}", "a/"), std::nullopt);
}

TEST(UriTemplateMatch, QueryParametersInAnyOrderEachOptionalAndOnce) {
  const std::string t = "search://q{?query,limit}";
  EXPECT_EQ(match(t, "search://q"), Values{});
  EXPECT_EQ(match(t, "search://q?query=cats"), (Values{{"query", "cats"}}));
  EXPECT_EQ(match(t, "search://q?limit=5"), (Values{{"limit", "5"}}));
  EXPECT_EQ(match(t, "search://q?query=cats&limit=5"), (Values{{"query", "cats"}, {"limit", "5"}}));
  EXPECT_EQ(match(t, "search://q?limit=5&query=cats"), (Values{{"query", "cats"}, {"limit", "5"}}));
  EXPECT_EQ(match(t, "search://q?query=a&query=b"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?query=a&limit=1&query=a"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?other=1"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?query=a&other=1"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?query=a&"), std::nullopt);
  EXPECT_EQ(match(t, "search://q&query=a"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?Query=a"), std::nullopt);
  EXPECT_EQ(match(t, "search://q?query=a%26limit%3D5"), (Values{{"query", "a&limit=5"}}));
  // A name that starts another name.
  EXPECT_EQ(match("s{?a,ab}", "s?ab=1&a=2"), (Values{{"a", "2"}, {"ab", "1"}}));
}

TEST(UriTemplateMatch, EmptyValuesOnlyWhereANameShowsThem) {
  EXPECT_EQ(match("s{?q}", "s?q="), (Values{{"q", ""}}));
  EXPECT_EQ(match("s{?q}", "s?q"), std::nullopt);
  EXPECT_EQ(match("s{?q,r}", "s?r=&q=x"), (Values{{"q", "x"}, {"r", ""}}));
  EXPECT_EQ(match("s{&q}", "s&q="), (Values{{"q", ""}}));
  EXPECT_EQ(match("m{;x}", "m;x"), (Values{{"x", ""}}));
  EXPECT_EQ(match("m{;x}", "m;x="), std::nullopt);
  EXPECT_EQ(match("m{;x,y}", "m;y;x=1"), (Values{{"x", "1"}, {"y", ""}}));
  EXPECT_EQ(match("a{/x}", "a/"), std::nullopt);
  EXPECT_EQ(match("a{.x}", "a."), std::nullopt);
  EXPECT_EQ(match("a{/x,y}", "a/1/"), std::nullopt);
}

TEST(UriTemplateMatch, ValuesArePercentDecoded) {
  EXPECT_EQ(match("users://{id}/profile", "users://caf%C3%A9/profile"),
            (Values{{"id", "caf\xC3\xA9"}}));
  EXPECT_EQ(match("users://{id}/profile", "users://a%2Fb/profile"), (Values{{"id", "a/b"}}));
  EXPECT_EQ(match("users://{id}/profile", "users://%41%6a/profile"), (Values{{"id", "Aj"}}));
  EXPECT_EQ(match("users://{id}/profile", "users://%F0%9F%98%80/profile"),
            (Values{{"id", "\xF0\x9F\x98\x80"}}));
  EXPECT_EQ(match("file:///{+path}", "file:///a%20b/c%25d"), (Values{{"path", "a b/c%d"}}));
  // Triplets in a value pass through {+var} on expansion but are decoded by match.
  EXPECT_EQ(parsed("file:///{+path}").expand({{"path", "%41"}}), "file:///%41");
  EXPECT_EQ(match("file:///{+path}", "file:///%41"), (Values{{"path", "A"}}));
  // Names are compared as written, pct-encoded triplets included.
  EXPECT_EQ(match("s{?%41,b.c}", "s?b.c=2&%41=1"), (Values{{"%41", "1"}, {"b.c", "2"}}));
  EXPECT_EQ(match("s{?%41}", "s?A=1"), std::nullopt);
  // A '%' that does not start a triplet is never part of a value.
  EXPECT_EQ(match("users://{id}/profile", "users://50%/profile"), std::nullopt);
  EXPECT_EQ(match("file:///{+path}", "file:///50%zz"), std::nullopt);
}

TEST(UriTemplateMatch, DecodedValuesMustBeUtf8WithoutNul) {
  const std::string t = "users://{id}/profile";
  for (const char* bad : {"%00", "a%00b", "%C3", "%C3x", "%FF", "%C0%AF", "%E0%80%AF", "%ED%A0%80",
                          "%F4%90%80%80", "%80", "%E2%82"}) {
    EXPECT_EQ(match(t, std::string("users://") + bad + "/profile"), std::nullopt) << bad;
    EXPECT_EQ(match("file:///{+path}", std::string("file:///") + bad), std::nullopt) << bad;
  }
  // Raw non-ASCII bytes are not part of a value, even when valid UTF-8.
  EXPECT_EQ(match(t, "users://caf\xC3\xA9/profile"), std::nullopt);
}

TEST(UriTemplateMatch, Utf8CheckChoosesTheValidSplit) {
  // Greedy would give a = "x%C3", b = "%A9": invalid; the valid split wins instead.
  EXPECT_EQ(match("{a}{b}", "x%C3%A9"), (Values{{"a", "x"}, {"b", "\xC3\xA9"}}));
}

TEST(UriTemplateMatch, AmbiguityIsGreedyForEarlierVariables) {
  EXPECT_EQ(match("{a}{b}", "xyz"), (Values{{"a", "xy"}, {"b", "z"}}));
  EXPECT_EQ(match("{+x}/{y}", "a/b/c"), (Values{{"x", "a/b"}, {"y", "c"}}));
  EXPECT_EQ(match("{+x,y}", "a,b"), (Values{{"x", "a,b"}}));
  EXPECT_EQ(match("{+x}{/y}", "a/b"), (Values{{"x", "a/b"}}));
  EXPECT_EQ(match("{x}{/y}", "a/b"), (Values{{"x", "a"}, {"y", "b"}}));
  EXPECT_EQ(match("s{?a}{&b}", "s?a=1&b=2"), (Values{{"a", "1"}, {"b", "2"}}));
}

TEST(UriTemplateMatch, PrefixModifierLimitsCodePoints) {
  EXPECT_EQ(match("{a:2}{b}", "xyz"), (Values{{"a", "xy"}, {"b", "z"}}));
  EXPECT_EQ(match("{a:1}{b}", "xyz"), (Values{{"a", "x"}, {"b", "yz"}}));
  EXPECT_EQ(match("u/{a:3}", "u/abc"), (Values{{"a", "abc"}}));
  EXPECT_EQ(match("u/{a:3}", "u/ab"), (Values{{"a", "ab"}}));
  EXPECT_EQ(match("u/{a:3}", "u/abcd"), std::nullopt);
  EXPECT_EQ(match("u/{a:1}", "u/%E2%82%AC"), (Values{{"a", "\xE2\x82\xAC"}}));
  EXPECT_EQ(match("u/{a:1}", "u/%E2%82%ACx"), std::nullopt);
  EXPECT_EQ(match("s{?q:2}", "s?q=ab"), (Values{{"q", "ab"}}));
  EXPECT_EQ(match("s{?q:2}", "s?q=abc"), std::nullopt);
  EXPECT_EQ(match("{+a}{b:2}", "xyzw"), (Values{{"a", "xyz"}, {"b", "w"}}));
  EXPECT_EQ(match("{a:2}{b:2}", "xyz"), (Values{{"a", "xy"}, {"b", "z"}}));
  EXPECT_EQ(match("{a:2}{b:2}", "xyzwv"), std::nullopt);
}

TEST(UriTemplateMatch, PrefixLimitDoesNotHideALaterStart) {
  // The preferred split (item "a", y from "b") reaches y's states first but with a larger
  // count, and dies at "d"; the other (item "ab", y from "c") must still be alive then.
  EXPECT_EQ(match("{;a,ab}{y:2}", ";abcd"), (Values{{"ab", ""}, {"y", "cd"}}));
  EXPECT_EQ(match("{;a,ab}{y:3}", ";abcd"), (Values{{"a", ""}, {"y", "bcd"}}));
}

TEST(UriTemplateMatch, RepeatedVariablesMustAgree) {
  EXPECT_EQ(match("{x}/{x}", "a/a"), (Values{{"x", "a"}}));
  EXPECT_EQ(match("{x}/{x}", "a/b"), std::nullopt);
  EXPECT_EQ(match("{x}/{x}", "a/%61"), (Values{{"x", "a"}}));  // compared decoded
  EXPECT_EQ(match("{/x:1,x}", "/v/value"), (Values{{"x", "value"}}));
  EXPECT_EQ(match("{/x:1,x}", "/w/value"), std::nullopt);
  EXPECT_EQ(match("{x:3}/{x}", "ab/abcd"), std::nullopt);  // expansion writes "abc/abcd"
  EXPECT_EQ(match("{x:3}/{x}", "ab/ab"), (Values{{"x", "ab"}}));
  EXPECT_EQ(match("{x:3}/{x:5}", "abc/abcde"), (Values{{"x", "abcde"}}));
  // Present in one place and absent in the other is not an expansion.
  EXPECT_EQ(match("a{/x}{?x}", "a/1?x=1"), (Values{{"x", "1"}}));
  EXPECT_EQ(match("a{/x}{?x}", "a/1"), std::nullopt);
}

TEST(UriTemplateMatch, ExplodeOfAStringMatchesLikeThePlainVariable) {
  EXPECT_EQ(match("x:{/p*}", "x:/a"), (Values{{"p", "a"}}));
  EXPECT_EQ(match("x:{/p*}", "x:/a/b"), std::nullopt);
  EXPECT_EQ(match("x:{?p*}", "x:?p=1"), (Values{{"p", "1"}}));
}

TEST(UriTemplateRoundTrip, MatchGivesBackTheExpandedValues) {
  struct Case {
    std::string_view text;
    Values values;
  };
  const std::vector<Case> cases = {
      {"users://{id}/profile", {{"id", "j\xC3\xB6rg & co/\xF0\x9F\x98\x80"}}},
      {"file:///{+path}", {{"path", "a/b c/d?e#f%"}}},
      {"search://q{?query,limit}", {{"query", "a=b&c"}, {"limit", "10"}}},
      {"search://q{?query,limit}", {{"limit", "10"}}},
      {"search://q{?query,limit}", {{"query", ""}}},
      {"search://q{?query,limit}", {}},
      {"m{;x,y,z}", {{"x", "1"}, {"z", ""}}},
      {"a{/x,y}/b{.e}", {{"x", "1"}, {"y", "2 3"}, {"e", "json"}}},
      {"a{/x,y}/b{.e}", {{"x", "1"}}},
      {"u/{a}{#frag}", {{"a", "x"}, {"frag", "sec/1,2"}}},
      {"u/{a,b,c}", {{"a", "1"}, {"b", "2"}, {"c", "3"}}},
      {"u/{a:3}/{b}", {{"a", "\xC3\xA9t\xC3\xA9"}, {"b", "y"}}},
      {"docs://caf\xC3\xA9/{x}{&y}", {{"x", "1"}, {"y", "\t"}}},
  };
  for (const auto& [text, values] : cases) {
    const UriTemplate t = parsed(text);
    const std::string uri = t.expand(values);
    EXPECT_EQ(t.match(uri), values) << text << " -> " << uri;
  }
}

// Hostile input: each of these takes polynomial time of high degree on a backtracking
// matcher (several adjacent unbounded expressions, a URI of 64 KiB that fails only at its
// end). The automaton finishes them in time linear in the URI.
TEST(UriTemplateHostile, AdjacentReservedExpressionsOnALongNearMiss) {
  const UriTemplate t = parsed("h://{+a}{+b}{+c}{+d}{+e}{+f}/end");
  const std::string body(64 * 1024, 'x');
  EXPECT_EQ(t.match("h://" + body + "/enx"), std::nullopt);
  const auto hit = t.match("h://" + body + "/end");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->at("a").size(), body.size() - 5);
  EXPECT_EQ(hit->at("f"), "x");
}

TEST(UriTemplateHostile, ManyLabelsAndQueriesOnALongNearMiss) {
  std::string body;
  while (body.size() < 64 * 1024) body += ".a%C3%A9";
  EXPECT_EQ(parsed("h:{.a,b,c,d}{.e}{x:9999}!").match("h:" + body), std::nullopt);
  std::string query = "?a=1";
  while (query.size() < 64 * 1024) query += "&a=1&b=2&c=3";
  EXPECT_EQ(parsed("h:{+x}{?a,b,c}{&a,b,c}{&d}!").match("h:" + query + "&d=4"), std::nullopt);
  std::string params;
  while (params.size() < 64 * 1024) params += ";a=1;b;c=3";
  EXPECT_EQ(parsed("h:{+x}{;a,b,c}{y:9999}!").match("h:" + params), std::nullopt);
}

TEST(UriTemplateHostile, LongPrefixAfterUnboundedExpression) {
  const std::string body(64 * 1024, 'x');
  EXPECT_EQ(parsed("h:{+a}{b:9999}{c:9999}!").match("h:" + body), std::nullopt);
  const auto hit = parsed("h:{+a}{b:9999}").match("h:" + body);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->at("b"), "x");
}

TEST(UriTemplateHostile, ArbitraryBytesNeverMatchAValue) {
  std::string uri = "users://";
  for (int b = 0; b < 256; ++b) uri.push_back(static_cast<char>(b));
  EXPECT_EQ(match("users://{+id}", uri), std::nullopt);
  EXPECT_EQ(match("users://{id}", "users://%"), std::nullopt);
  EXPECT_EQ(match("users://{id}", "users://%4"), std::nullopt);
}

}  // namespace
}  // namespace mcpsh::resources
