// jsonrpc::parse_message: every classification rule of src/jsonrpc/message.h, one row each.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"

namespace mcpsh::jsonrpc {
namespace {

using Kind = Message::Kind;

struct Case {
  const char* name;  // the test's name: letters, digits and '_' only
  std::string line;
  Kind kind;
  int code = 0;                        // kError only
  std::optional<std::string> id = {};  // the id's JSON text, or none
  std::string method = {};             // kRequest / kNotification only
};

// Only the name: ctest shows it beside the test's name, and lines may hold invalid UTF-8.
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class ParseMessage : public ::testing::TestWithParam<Case> {};

TEST_P(ParseMessage, Classifies) {
  const Case& c = GetParam();
  SCOPED_TRACE(c.line);
  Message m = parse_message(c.line);
  EXPECT_EQ(static_cast<int>(m.kind), static_cast<int>(c.kind)) << m.error_message;
  if (c.kind == Kind::kError) {
    EXPECT_EQ(m.error_code, c.code) << m.error_message;
    EXPECT_FALSE(m.error_message.empty());
  }
  if (c.kind != Kind::kIgnored) {
    ASSERT_EQ(m.id.has_value(), c.id.has_value()) << (m.id ? m.id->json : "no id");
    if (c.id) {
      EXPECT_EQ(m.id->json, *c.id);
    }
  }
  if (c.kind == Kind::kRequest || c.kind == Kind::kNotification) {
    EXPECT_EQ(m.method, c.method);
  }
}

const Case kCases[] = {
    // Unparseable text: -32700 and no id, even when an id is visible in the text.
    {"ParseErrorTruncated", R"({"jsonrpc":"2.0","id":1,"method":"x")", Kind::kError, kParseError},
    {"ParseErrorGarbage", "hello", Kind::kError, kParseError},
    {"ParseErrorTrailingValue", R"({"jsonrpc":"2.0","id":1,"method":"x"} {})", Kind::kError,
     kParseError},
    {"ParseErrorInvalidUtf8InString", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
     Kind::kError, kParseError},
    {"ParseErrorInvalidUtf8InId", "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\x28\",\"method\":\"x\"}",
     Kind::kError, kParseError},
    // Batches and non-objects: -32600, no id.
    {"Batch", R"([{"jsonrpc":"2.0","id":1,"method":"tools/list"}])", Kind::kError, kInvalidRequest},
    {"EmptyBatch", "[]", Kind::kError, kInvalidRequest},
    {"NumberMessage", "42", Kind::kError, kInvalidRequest},
    {"StringMessage", R"("tools/list")", Kind::kError, kInvalidRequest},
    {"NullMessage", "null", Kind::kError, kInvalidRequest},
    {"BoolMessage", "true", Kind::kError, kInvalidRequest},
    // Ids that are present but unusable: -32600 and no id in the answer.
    {"NullId", R"({"jsonrpc":"2.0","id":null,"method":"x"})", Kind::kError, kInvalidRequest},
    {"FloatId", R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", Kind::kError, kInvalidRequest},
    {"FloatIdWithZeroFraction", R"({"jsonrpc":"2.0","id":1.0,"method":"x"})", Kind::kError,
     kInvalidRequest},
    {"ExponentId", R"({"jsonrpc":"2.0","id":1e3,"method":"x"})", Kind::kError, kInvalidRequest},
    {"BoolId", R"({"jsonrpc":"2.0","id":true,"method":"x"})", Kind::kError, kInvalidRequest},
    {"ObjectId", R"({"jsonrpc":"2.0","id":{},"method":"x"})", Kind::kError, kInvalidRequest},
    {"ArrayId", R"({"jsonrpc":"2.0","id":[1],"method":"x"})", Kind::kError, kInvalidRequest},
    {"NullIdOnNotificationShapedLine", R"({"jsonrpc":"1.0","id":null,"method":"x"})", Kind::kError,
     kInvalidRequest},
    // A valid id with a bad envelope: the error echoes the id.
    {"BadVersionWithId", R"({"jsonrpc":"1.0","id":7,"method":"x"})", Kind::kError, kInvalidRequest,
     "7"},
    {"NumericVersionWithId", R"({"jsonrpc":2.0,"id":"a","method":"x"})", Kind::kError,
     kInvalidRequest, R"("a")"},
    {"MissingVersionWithId", R"({"id":7,"method":"x"})", Kind::kError, kInvalidRequest, "7"},
    {"MissingMethod", R"({"jsonrpc":"2.0","id":3})", Kind::kError, kInvalidRequest, "3"},
    {"NonStringMethod", R"({"jsonrpc":"2.0","id":3,"method":5})", Kind::kError, kInvalidRequest,
     "3"},
    {"NullMethod", R"({"jsonrpc":"2.0","id":3,"method":null})", Kind::kError, kInvalidRequest, "3"},
    {"ParamsArray", R"({"jsonrpc":"2.0","id":4,"method":"x","params":[1,2]})", Kind::kError,
     kInvalidParams, "4"},
    {"ParamsString", R"({"jsonrpc":"2.0","id":4,"method":"x","params":"p"})", Kind::kError,
     kInvalidRequest, "4"},
    {"ParamsNumber", R"({"jsonrpc":"2.0","id":4,"method":"x","params":1})", Kind::kError,
     kInvalidRequest, "4"},
    {"ParamsNull", R"({"jsonrpc":"2.0","id":4,"method":"x","params":null})", Kind::kError,
     kInvalidRequest, "4"},
    // Without an id and without a method there is nothing to answer with an id.
    {"BadVersionNoIdNoMethod", R"({"jsonrpc":"1.0"})", Kind::kError, kInvalidRequest},
    {"EmptyObject", "{}", Kind::kError, kInvalidRequest},
    // Notifications: never answered, so a bad envelope makes them ignored, not errors.
    {"Notification", R"({"jsonrpc":"2.0","method":"notifications/x"})", Kind::kNotification, 0,
     std::nullopt, "notifications/x"},
    {"NotificationWithParams", R"({"jsonrpc":"2.0","method":"n","params":{"a":1}})",
     Kind::kNotification, 0, std::nullopt, "n"},
    {"NotificationBadVersionIgnored", R"({"jsonrpc":"1.0","method":"n"})", Kind::kIgnored},
    {"NotificationMissingVersionIgnored", R"({"method":"n"})", Kind::kIgnored},
    {"NotificationNonStringMethodIgnored", R"({"jsonrpc":"2.0","method":7})", Kind::kIgnored},
    {"NotificationParamsArrayIgnored", R"({"jsonrpc":"2.0","method":"n","params":[1]})",
     Kind::kIgnored},
    {"NotificationParamsScalarIgnored", R"({"jsonrpc":"2.0","method":"n","params":3})",
     Kind::kIgnored},
    // Responses (to the host's own requests) keep their id; without one they are ignored.
    {"ResultResponse", R"({"jsonrpc":"2.0","id":1,"result":{}})", Kind::kResponse, 0, "1"},
    {"ErrorResponse", R"({"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"m"}})",
     Kind::kResponse, 0, "\"a\""},
    {"ResponseWithoutIdIgnored", R"({"jsonrpc":"2.0","result":{}})", Kind::kIgnored},
    // Requests, with every shape of valid id kept as its JSON text.
    {"IntegerId", R"({"jsonrpc":"2.0","id":42,"method":"tools/list"})", Kind::kRequest, 0, "42",
     "tools/list"},
    {"ZeroId", R"({"jsonrpc":"2.0","id":0,"method":"m"})", Kind::kRequest, 0, "0", "m"},
    {"NegativeId", R"({"jsonrpc":"2.0","id":-17,"method":"m"})", Kind::kRequest, 0, "-17", "m"},
    {"IdBeyondDoublePrecision", R"({"jsonrpc":"2.0","id":9007199254740993,"method":"m"})",
     Kind::kRequest, 0, "9007199254740993", "m"},
    {"IdUint64Max", R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"m"})", Kind::kRequest,
     0, "18446744073709551615", "m"},
    {"IdInt64Min", R"({"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"})", Kind::kRequest, 0,
     "-9223372036854775808", "m"},
    {"StringId", R"({"jsonrpc":"2.0","id":"abc-1","method":"m"})", Kind::kRequest, 0, R"("abc-1")",
     "m"},
    {"EmptyStringId", R"({"jsonrpc":"2.0","id":"","method":"m"})", Kind::kRequest, 0, R"("")", "m"},
    {"StringIdWithEscapes", R"({"jsonrpc":"2.0","id":"a\"b\\c","method":"m"})", Kind::kRequest, 0,
     R"("a\"b\\c")", "m"},
    {"StringIdLooksNumeric", R"({"jsonrpc":"2.0","id":"7","method":"m"})", Kind::kRequest, 0,
     R"("7")", "m"},
    {"MembersInAnyOrder", R"({"method":"m","params":{},"id":5,"jsonrpc":"2.0"})", Kind::kRequest, 0,
     "5", "m"},
    // A NUL byte is not the end of the text: the rest of the line is not ignored.
    {"NulAfterARequest", std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\0", 38),
     Kind::kError, kParseError},
    {"NulBetweenTwoRequests",
     std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\0{\"jsonrpc\":\"2.0\",\"id\":2,"
                 "\"method\":\"m\"}",
                 75),
     Kind::kError, kParseError},
    {"NulFirst", std::string("\0{}", 3), Kind::kError, kParseError},
    {"NulInString", std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\0b\"}", 39),
     Kind::kError, kParseError},
    // Lone surrogate escapes are read as U+FFFD: the id is echoed as valid UTF-8.
    {"LoneLowSurrogateId", R"({"jsonrpc":"2.0","id":"\udc00","method":"m"})", Kind::kRequest, 0,
     "\"\xEF\xBF\xBD\"", "m"},
    {"LoneHighSurrogateId", R"({"jsonrpc":"2.0","id":"a\ud800","method":"m"})", Kind::kRequest, 0,
     "\"a\xEF\xBF\xBD\"", "m"},
    {"SurrogatePairId", R"({"jsonrpc":"2.0","id":"\ud83d\ude00","method":"m"})", Kind::kRequest, 0,
     "\"\xF0\x9F\x98\x80\"", "m"},
    {"LoneSurrogateMethod", R"({"jsonrpc":"2.0","id":1,"method":"tools/\udc00"})", Kind::kRequest,
     0, "1", "tools/\xEF\xBF\xBD"},
    {"SurroundingWhitespace", "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\t ",
     Kind::kRequest, 0, "1", "m"},
};

INSTANTIATE_TEST_SUITE_P(Rules, ParseMessage, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ParseMessageDetails, ParamsPointsIntoTheDocument) {
  Message m = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2]}})");
  ASSERT_EQ(m.kind, Kind::kRequest);
  ASSERT_NE(m.params, nullptr);
  ASSERT_TRUE(m.params->IsObject());
  EXPECT_EQ((*m.params)["a"].Size(), 2u);
  ASSERT_NE(m.document, nullptr);
}

TEST(ParseMessageDetails, AbsentParamsIsNull) {
  Message m = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  ASSERT_EQ(m.kind, Kind::kRequest);
  EXPECT_EQ(m.params, nullptr);
}

TEST(ParseMessageDetails, ParseErrorMessageSaysWhere) {
  Message m = parse_message(R"({"a":})");
  ASSERT_EQ(m.kind, Kind::kError);
  EXPECT_NE(m.error_message.find("offset"), std::string::npos) << m.error_message;
}

TEST(ParseMessageDetails, DoesNotReadPastTheView) {
  // The view ends just before the closing brace, which a reader past the end would find.
  std::string text = R"({"jsonrpc":"2.0","id":1,"method":"m"})";
  Message m = parse_message(std::string_view(text).substr(0, text.size() - 1));
  EXPECT_EQ(m.kind, Kind::kError);
  EXPECT_EQ(m.error_code, kParseError);
}

// `depth` levels of arrays around 0, inside a request's params (which add two levels).
std::string request_with_nesting(std::size_t depth, const std::string& id = "1") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"m","params":{"a":)" +
         std::string(depth, '[') + "0" + std::string(depth, ']') + "}}";
}

TEST(ParseMessageNesting, AMillionOpenBracketsIsAParseErrorNotACrash) {
  Message m = parse_message(std::string(1000000, '['));
  EXPECT_EQ(m.kind, Kind::kError);
  EXPECT_EQ(m.error_code, kParseError);
}

TEST(ParseMessageNesting, DeeplyNestedRequestIsRefusedWithItsId) {
  Message m = parse_message(request_with_nesting(100000, R"("deep")"));
  ASSERT_EQ(m.kind, Kind::kError);
  EXPECT_EQ(m.error_code, kInvalidRequest);
  ASSERT_TRUE(m.id.has_value());
  EXPECT_EQ(m.id->json, R"("deep")");
}

TEST(ParseMessageNesting, IdAfterTheDeepPartIsStillEchoed) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Message m =
      parse_message(R"({"jsonrpc":"2.0","method":"m","params":{"a":)" + deep + R"(},"id":"late"})");
  ASSERT_EQ(m.kind, Kind::kError);
  EXPECT_EQ(m.error_code, kInvalidRequest);
  ASSERT_TRUE(m.id.has_value());
  EXPECT_EQ(m.id->json, R"("late")");
}

TEST(ParseMessageNesting, DeepLinesFollowTheEnvelopeRules) {
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  auto with_deep_member = [&](const std::string& members) {
    return parse_message("{" + members + R"(,"x":)" + deep + "}");
  };
  Message null_id = with_deep_member(R"("jsonrpc":"2.0","id":null,"method":"m")");
  EXPECT_EQ(null_id.kind, Kind::kError);
  EXPECT_FALSE(null_id.id.has_value());
  Message deep_id = parse_message(R"({"jsonrpc":"2.0","method":"m","id":)" + deep + "}");
  EXPECT_EQ(deep_id.kind, Kind::kError);
  EXPECT_FALSE(deep_id.id.has_value());
  EXPECT_EQ(with_deep_member(R"("jsonrpc":"2.0","id":1,"result":{})").kind, Kind::kIgnored);
  EXPECT_EQ(with_deep_member(R"("jsonrpc":"1.0","method":"n")").kind, Kind::kIgnored);
  Message escaped = with_deep_member(R"("jsonrpc":"2.0","\u0069d":"\udc00","method":"m")");
  ASSERT_TRUE(escaped.id.has_value());
  EXPECT_EQ(escaped.id->json, "\"\xEF\xBF\xBD\"");
  Message batch = parse_message("[" + deep + "]");
  EXPECT_EQ(batch.error_code, kInvalidRequest);
  EXPECT_EQ(parse_message("7 " + deep).error_code, kParseError);
}

TEST(ParseMessageNesting, DeeplyNestedNotificationIsIgnored) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(parse_message(R"({"jsonrpc":"2.0","method":"n","params":{"a":)" + deep + "}}").kind,
            Kind::kIgnored);
}

TEST(ParseMessageNesting, NestingUpToTheLimitIsAccepted) {
  // The message object and params are two levels: 254 more make 256.
  EXPECT_EQ(parse_message(request_with_nesting(254)).kind, Kind::kRequest);
  EXPECT_EQ(parse_message(request_with_nesting(255)).kind, Kind::kError);
}

TEST(ParseMessageNesting, BracketsInsideStringsDoNotCount) {
  std::string text = R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":")" +
                     std::string(1000, '[') + R"(\"\\[{"}})";
  Message m = parse_message(text);
  EXPECT_EQ(m.kind, Kind::kRequest) << m.error_message;
}

TEST(NestingDepth, CountsArraysAndObjectsOutsideStrings) {
  EXPECT_EQ(nesting_depth(""), 0u);
  EXPECT_EQ(nesting_depth("7"), 0u);
  EXPECT_EQ(nesting_depth("[]"), 1u);
  EXPECT_EQ(nesting_depth(R"({"a":[{}],"b":{}})"), 3u);
  EXPECT_EQ(nesting_depth(R"(["[[[", "\"[[", "\\", [1]])"), 2u);
  EXPECT_EQ(nesting_depth("]]][]"), 1u);  // stray closers never go below zero
}

TEST(ToRequestId, AcceptsOnlyStringsAndIntegers) {
  rapidjson::Document d;
  d.Parse(R"([1,"s",-2,1.5,true,null,{},[]])");
  EXPECT_EQ(to_request_id(d[0])->json, "1");
  EXPECT_EQ(to_request_id(d[1])->json, R"("s")");
  EXPECT_EQ(to_request_id(d[2])->json, "-2");
  for (unsigned i = 3; i < d.Size(); ++i) EXPECT_FALSE(to_request_id(d[i]).has_value()) << i;
}

}  // namespace
}  // namespace mcpsh::jsonrpc
