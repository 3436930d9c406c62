// The asking unit, pure parts: sealing, answers and their lines for bash, round binding,
// input requests.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "asking/answers.h"
#include "asking/asks.h"
#include "asking/round_state.h"
#include "asking/sealed_state.h"

namespace mcpsh::asking {
namespace {

const std::string kSecret = "0123456789abcdef0123456789abcdef";

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

rapidjson::Document json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(StateSealer, OpensWhatItSealedAndNothingElse) {
  auto sealer = StateSealer::from_secret(kSecret);
  ASSERT_TRUE(sealer);
  for (const std::string& plain : {std::string(), std::string("x"), std::string(1000, 'z')}) {
    const std::string token = sealer->seal(plain);
    EXPECT_EQ(sealer->open(token), plain);
    EXPECT_EQ(
        token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        std::string::npos);
    EXPECT_NE(sealer->seal(plain), token) << "a nonce per seal";
  }
  const std::string token = sealer->seal("the answers");
  // Any change to any character is detected.
  for (std::size_t i = 0; i < token.size(); ++i) {
    std::string altered = token;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(sealer->open(altered)) << i;
  }
  EXPECT_FALSE(sealer->open(token + "A"));
  EXPECT_FALSE(sealer->open(token.substr(0, token.size() - 1)));
  EXPECT_FALSE(sealer->open(""));
  EXPECT_FALSE(sealer->open("not base64url!"));
  EXPECT_FALSE(StateSealer::from_secret(kSecret + "x")->open(token)) << "another key";
  EXPECT_FALSE(StateSealer::random().open(token));
  EXPECT_EQ(StateSealer::from_secret(kSecret)->open(token), "the answers") << "the same key";
  EXPECT_FALSE(StateSealer::from_secret(kSecret.substr(1))) << "31 bytes are too few";
}

TEST(Answers, ShapesAreCheckedAndUnknownKeysIgnored) {
  auto ok = json(R"({"e":{"action":"accept","content":{"n":1}},"d":{"action":"decline"},)"
                 R"("s":{"role":"assistant","content":{"type":"text","text":"t"},"model":"m"},)"
                 R"("r":{"roots":[]},"bad key":5,"":{}})");
  auto read = read_input_responses(&ok);
  ASSERT_TRUE(std::holds_alternative<Answers>(read));
  const auto& answers = std::get<Answers>(read);
  EXPECT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers.at("d"), R"({"action":"decline"})");
  for (const char* bad :
       {"null", "[]", R"({"k":1})", R"({"k":{}})", R"({"k":{"action":"ok"}})",
        R"({"k":{"action":"accept","content":[1]}})", R"({"k":{"roots":[{"name":"no uri"}]}})",
        R"({"k":{"role":"assistant"}})"}) {
    auto d = json(bad);
    EXPECT_TRUE(std::holds_alternative<AnswerProblem>(read_input_responses(&d))) << bad;
  }
  EXPECT_TRUE(std::get<Answers>(read_input_responses(nullptr)).empty());
}

TEST(Answers, LinesForBashHoldNoTabOrNewlineOfTheirOwn) {
  Answers answers{
      {"e", R"({"action":"accept","content":{"a":"x\ty\\z"}})"},
      {"c", R"({"action":"cancel"})"},
      {"s",
       R"({"role":"assistant","content":[{"type":"text","text":"1\n2"},)"
       R"({"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"3"}]})"},
      {"r", R"({"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]})"}};
  std::size_t count = 0;
  const std::string lines = tool_input_lines(answers, count);
  EXPECT_EQ(count, 4u);
  EXPECT_EQ(lines,
            "c\telicit\t2\t2\t{}\t{\"action\":\"cancel\"}\n"
            "e\telicit\t0\t18\t{\"a\":\"x\\\\ty\\\\\\\\z\"}\t"
            "{\"action\":\"accept\",\"content\":{\"a\":\"x\\\\ty\\\\\\\\z\"}}\n"
            "r\troots\t0\t20\tfile:///a\\nfile:///b\t{\"roots\":[{\"uri\":\"file:///a\"},{\"uri\":"
            "\"file:///b\"}]}\n"
            "s\tsample\t0\t7\t1\\n2\\n3\t" +
                std::string(R"({"role":"assistant","content":[{"type":"text","text":"1\\n2"},)"
                            R"({"type":"image","data":"AA==","mimeType":"image/png"},)"
                            R"({"type":"text","text":"3"}]})") +
                "\n");
  EXPECT_EQ(error_line("k", "no\tway"), "k\terror\t1\t7\tno\\tway\t{}\n");
  EXPECT_EQ(end_line("k"), "k\tend\t0\t0\t\t{}\n");
  EXPECT_EQ(confirm_line("Delete a\\b?"), "!confirm\tDelete a\\\\b?\n");
}

TEST(Answers, PlaceholdersTakeTheArguments) {
  auto args = json(R"({"path":"/tmp/a b","n":3,"o":{"x":true}})");
  EXPECT_EQ(fill_placeholders("Delete {path} ({n} files, {o})? {missing} {} {", &args),
            R"(Delete /tmp/a b (3 files, {"x":true})? {missing} {} {)");
  EXPECT_EQ(fill_placeholders("Run {x}?", nullptr), "Run {x}?");
}

TEST(Round, TheDigestIgnoresMemberOrderAndSpaces) {
  auto a = json(R"({"b":[1,{"y":2,"x":1}],"a":"s"})");
  auto b = json(R"( { "a" : "s", "b" : [ 1, { "x": 1, "y": 2 } ] } )");
  auto c = json(R"({"a":"s","b":[{"x":1,"y":2},1]})");
  // Duplicate names keep their order: the tool (jq) takes the last one.
  auto d1 = json(R"({"k":1,"k":2})");
  auto d2 = json(R"({"k":2,"k":1})");
  EXPECT_NE(arguments_digest(&d1), arguments_digest(&d2));
  EXPECT_EQ(arguments_digest(&a), arguments_digest(&b));
  EXPECT_NE(arguments_digest(&a), arguments_digest(&c));
  auto empty = json("{}");
  EXPECT_EQ(arguments_digest(nullptr), arguments_digest(&empty));
  EXPECT_EQ(arguments_digest(nullptr).size(), 64u);
}

TEST(Round, AStateHoldsForItsRequestClientAndTimeOnly) {
  auto sealer = *StateSealer::from_secret(kSecret);
  const RoundBinding binding{"tools/call", "greet", "d1", "client"};
  const std::string state =
      seal_round(binding, {{"first", R"({"action":"accept","content":{"n":"A"}})"}}, sealer, 1000);
  auto params = [&](const std::string& responses, const std::string& s) {
    return json(R"({"name":"greet")" +
                (responses.empty() ? "" : R"(,"inputResponses":)" + responses) +
                (s.empty() ? "" : R"(,"requestState":")" + s + "\"") + "}");
  };
  auto retry = params(R"({"second":{"action":"decline"}})", state);
  auto read = read_round(&retry, binding, sealer, 999);
  ASSERT_TRUE(std::holds_alternative<Answers>(read));
  EXPECT_EQ(std::get<Answers>(read).size(), 2u);
  // A fresh answer replaces a carried one.
  auto again = params(R"({"first":{"action":"cancel"}})", state);
  EXPECT_EQ(std::get<Answers>(read_round(&again, binding, sealer, 999)).at("first"),
            R"({"action":"cancel"})");
  auto problem = [&](const rapidjson::Value& p, const RoundBinding& b, std::int64_t now) {
    auto r = read_round(&p, b, sealer, now);
    return std::holds_alternative<RoundProblem>(r) ? std::get<RoundProblem>(r).message : "";
  };
  EXPECT_NE(problem(retry, binding, 1001).find("expired"), std::string::npos);
  EXPECT_NE(problem(retry, {"prompts/get", "greet", "d1", "client"}, 1).find("another request"),
            std::string::npos);
  EXPECT_NE(problem(retry, {"tools/call", "other", "d1", "client"}, 1).find("another request"),
            std::string::npos);
  EXPECT_NE(problem(retry, {"tools/call", "greet", "d2", "client"}, 1).find("another request"),
            std::string::npos);
  EXPECT_NE(problem(retry, {"tools/call", "greet", "d1", "eve"}, 1).find("another client"),
            std::string::npos);
  auto forged = params("", StateSealer::random().seal(R"({"m":"tools/call"})"));
  EXPECT_NE(problem(forged, binding, 1).find("integrity"), std::string::npos);
  auto not_string = json(R"({"requestState":5})");
  EXPECT_NE(problem(not_string, binding, 1).find("requestState"), std::string::npos);
}

TEST(Asks, BecomeInputRequestsOrNameTheToolsMistake) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value requests(rapidjson::kObjectType);
  EXPECT_FALSE(add_input_request(
      requests, {"e", AskKind::kElicit, "M", R"({"type":"object","properties":{}})", "", ""}, a));
  EXPECT_FALSE(add_input_request(requests, {"c", AskKind::kConfirm, "Sure?", "", "", ""}, a));
  EXPECT_FALSE(add_input_request(requests, {"s", AskKind::kSample, "P", "", "", ""}, a));
  EXPECT_FALSE(add_input_request(requests, {"r", AskKind::kRoots, "", "", "", ""}, a));
  EXPECT_EQ(compact(requests),
            R"({"e":{"method":"elicitation/create","params":{"mode":"form","message":"M",)"
            R"("requestedSchema":{"type":"object","properties":{}}}},)"
            R"("c":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?",)"
            R"("requestedSchema":{"type":"object","properties":{}}}},)"
            R"("s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user",)"
            R"("content":{"type":"text","text":"P"}}],"maxTokens":1024}},)"
            R"("r":{"method":"roots/list","params":{}}})");
  for (const Ask& bad : {Ask{"k", AskKind::kElicit, "M", "not json", "", ""},
                         Ask{"k", AskKind::kElicit, "M", R"({"type":"string"})", "", ""},
                         Ask{"k", AskKind::kElicit, "M", R"({"type":"object"})", "", ""},
                         Ask{"k", AskKind::kSample, "P", "", "", "0"},
                         Ask{"k", AskKind::kSample, "P", "", "", "12x"}}) {
    auto mistake = add_input_request(requests, bad, a);
    ASSERT_TRUE(mistake);
    EXPECT_EQ(mistake->rfind(std::string("mcp_") + ask_kind_name(bad.kind) + " k: ", 0), 0u)
        << *mistake;
  }
  EXPECT_EQ(requests.MemberCount(), 4u);
  EXPECT_TRUE(valid_key("a.b:c-d_9"));
  EXPECT_FALSE(valid_key(""));
  EXPECT_FALSE(valid_key("a b"));
  EXPECT_FALSE(valid_key(std::string(65, 'k')));
}

}  // namespace
}  // namespace mcpsh::asking
