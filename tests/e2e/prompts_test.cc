// Prompts and completion end to end: prompt_<name> functions listed and got (arguments
// checked before the function runs, helper messages in order, stdout as the last user
// message, failures as JSON-RPC errors), complete_<name> functions answering
// completion/complete, the capabilities that say which exist, and list pagination, in both
// eras. The real binary over real pipes, with the scripts in tests/fixtures/resources/.
#include <gtest/gtest.h>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kMethodNotFound = -32601;
// base64 of tests/fixtures/resources/red-pixel.png.
constexpr const char* kPixelBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";

std::string catalog() { return fixture("resources/catalog.sh"); }
std::string five_prompts() { return fixture("resources/five_prompts.sh"); }
std::string tools_only() { return fixture("resources/tools_only.sh"); }

std::string str(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject() || !object.HasMember(key) || !object[key].IsString()) return "<none>";
  return object[key].GetString();
}

std::string get_request(const std::string& id, const std::string& name,
                        const std::string& arguments = "") {
  return request(
      id, "prompts/get",
      R"("name":")" + name + "\"" + (arguments.empty() ? "" : R"(,"arguments":)" + arguments));
}

// "role: type: text" for each message, for comparing a conversation at a glance.
std::vector<std::string> conversation(const rapidjson::Document& d) {
  std::vector<std::string> out;
  if (!d.HasMember("result") || !d["result"].HasMember("messages")) return {"<no messages>"};
  for (const auto& m : d["result"]["messages"].GetArray())
    out.push_back(str(m, "role") + ": " + str(m["content"], "type") + ": " +
                  str(m["content"], "text"));
  return out;
}

// ---- prompts ------------------------------------------------------------------------------

TEST(Prompts, ListShowsTitlesDescriptionsAndArguments) {
  HostProcess host({catalog()});
  auto d = ask(host, request("1", "prompts/list"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const rapidjson::Value* greet = nullptr;
  for (const auto& p : d["result"]["prompts"].GetArray())
    if (str(p, "name") == "greet") greet = &p;
  ASSERT_NE(greet, nullptr) << compact(d);
  EXPECT_EQ(str(*greet, "title"), "Greeting prompt");
  EXPECT_EQ(str(*greet, "description"), "Greets someone.");
  EXPECT_EQ(compact((*greet)["arguments"]),
            R"([{"name":"name","description":"Who to greet","required":true},)"
            R"({"name":"style","description":"How to greet","required":false}])");
  EXPECT_EQ(str(d["result"], "resultType"), "complete");
  EXPECT_TRUE(d["result"].HasMember("ttlMs") && d["result"].HasMember("cacheScope")) << compact(d);
}

TEST(Prompts, StdoutIsTheLastUserMessage) {
  HostProcess host({catalog()});
  auto d = ask(host, get_request("1", "greet", R"({"name":"Ann","style":"formal"})"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(conversation(d), std::vector<std::string>{"user: text: Greet Ann in a formal way."});
  EXPECT_EQ(str(d["result"], "description"), "Greets someone.");
  auto plain = ask(host, get_request("2", "greet", R"({"name":"Bo"})"), "2");
  EXPECT_EQ(conversation(plain), std::vector<std::string>{"user: text: Greet Bo in a plain way."});
}

TEST(Prompts, MissingRequiredArgumentsAreNamed) {
  HostProcess host({catalog()});
  for (const std::string& arguments :
       {std::string("{}"), std::string(R"({"style":"x"})"), std::string("")}) {
    SCOPED_TRACE(arguments);
    host.send(get_request("1", "greet", arguments));
    auto line = answer_line(host, "1");
    EXPECT_TRUE(is_error_response(line, kInvalidParams, "1"));
    // The message ends with the names of the arguments missing: here only "name".
    const std::string message = error_message(line);
    EXPECT_NE(message.find("greet"), std::string::npos) << message;
    EXPECT_TRUE(message.size() > 5 && message.substr(message.size() - 5) == " name") << message;
  }
}

TEST(Prompts, NonStringArgumentIsInvalidParams) {
  HostProcess host({catalog()});
  int id = 1;
  for (const char* arguments :
       {R"({"name":5})", R"({"name":"a","style":null})", R"({"name":["a"]})", R"("name")"}) {
    SCOPED_TRACE(arguments);
    const std::string n = std::to_string(id++);
    host.send(get_request(n, "greet", arguments));
    EXPECT_TRUE(is_error_response(answer_line(host, n), kInvalidParams, n));
  }
}

TEST(Prompts, UnknownPromptIsInvalidParams) {
  HostProcess host({catalog()});
  host.send(get_request("1", "no_such_prompt", "{}"));
  auto line = answer_line(host, "1");
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "1"));
  EXPECT_NE(error_message(line).find("no_such_prompt"), std::string::npos) << *line;
}

TEST(Prompts, HelperMessagesKeepTheirRolesAndOrder) {
  HostProcess host({catalog()});
  auto d = ask(host, get_request("1", "dialogue"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(conversation(d), (std::vector<std::string>{
                                 "user: text: first, from the user",
                                 "assistant: text: second, from the assistant",
                                 "user: text: third, printed",
                             }));
}

TEST(Prompts, ImageIsAMessageOfItsOwn) {
  HostProcess host({catalog()});
  auto d = ask(host, get_request("1", "picture"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& messages = d["result"]["messages"];
  ASSERT_TRUE(messages.IsArray() && messages.Size() == 2) << compact(d);
  EXPECT_EQ(str(messages[0], "role"), "user");
  EXPECT_EQ(str(messages[0]["content"], "type"), "image");
  EXPECT_EQ(str(messages[0]["content"], "mimeType"), "image/png");
  EXPECT_EQ(str(messages[0]["content"], "data"), kPixelBase64);
  EXPECT_EQ(str(messages[1]["content"], "text"), "What colour is this pixel?");
}

TEST(Prompts, RoleOptionGivesOtherBlocksTheirRole) {
  HostProcess host({catalog()});
  auto d = ask(host, get_request("1", "roles"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& messages = d["result"]["messages"];
  ASSERT_TRUE(messages.IsArray() && messages.Size() == 3) << compact(d);
  EXPECT_EQ(str(messages[0], "role"), "assistant");
  EXPECT_EQ(str(messages[0]["content"], "type"), "image");
  EXPECT_EQ(str(messages[1], "role"), "user");
  EXPECT_EQ(str(messages[1]["content"], "type"), "resource");
  EXPECT_EQ(compact(messages[1]["content"]["resource"]),
            R"({"uri":"test://embedded","mimeType":"text/plain","text":"embedded text"})");
  EXPECT_EQ(str(messages[2], "role"), "user");
  EXPECT_EQ(str(messages[2]["content"], "text"), "last");
}

TEST(Prompts, OutputOverTheLimitIsAnError) {
  HostProcess host({"--max-output", "1k", catalog()});
  host.send(get_request("1", "big"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("--max-output"), std::string::npos) << *line;
}

TEST(Prompts, FailingFunctionIsAnInternalErrorWithItsText) {
  HostProcess host({catalog()});
  host.send(get_request("1", "broken"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("the prompt store is unreachable"), std::string::npos)
      << *line;
}

class LegacyPrompts : public ::testing::TestWithParam<const char*> {};

TEST_P(LegacyPrompts, ListAndGetCarryNoModernFields) {
  HostProcess host({catalog()});
  auto init = initialize(host, GetParam());
  ASSERT_TRUE(init.HasMember("result")) << compact(init);
  EXPECT_EQ(str(init["result"], "protocolVersion"), GetParam());
  auto list = ask(host, legacy_request("1", "prompts/list"), "1");
  ASSERT_TRUE(list.HasMember("result")) << compact(list);
  EXPECT_TRUE(list["result"]["prompts"].IsArray());
  auto got =
      ask(host, legacy_request("2", "prompts/get", R"({"name":"greet","arguments":{"name":"Cy"}})"),
          "2");
  EXPECT_EQ(conversation(got), std::vector<std::string>{"user: text: Greet Cy in a plain way."});
  auto completion = ask(host,
                        legacy_request("3", "completion/complete",
                                       R"({"ref":{"type":"ref/prompt","name":"greet"},)"
                                       R"("argument":{"name":"name","value":"b"}})"),
                        "3");
  ASSERT_TRUE(completion.HasMember("result")) << compact(completion);
  EXPECT_EQ(compact(completion["result"]),
            R"({"completion":{"values":["bob"],"total":1,"hasMore":false}})");
  for (const auto* d : {&list, &got})
    for (const char* modern : {"ttlMs", "cacheScope", "resultType", "_meta"})
      EXPECT_FALSE((*d)["result"].HasMember(modern)) << modern << ": " << compact(*d);
  host.send(legacy_request("4", "prompts/get", R"({"name":"greet"})"));
  EXPECT_TRUE(is_error_response(answer_line(host, "4"), kInvalidParams, "4"));
}

INSTANTIATE_TEST_SUITE_P(Revisions, LegacyPrompts, ::testing::Values("2025-11-25", "2025-06-18"));

// ---- completion ---------------------------------------------------------------------------

std::string complete_request(const std::string& id, const std::string& ref,
                             const std::string& argument, const std::string& value,
                             const std::string& context = "") {
  return request(id, "completion/complete",
                 R"("ref":)" + ref + R"(,"argument":{"name":")" + argument + R"(","value":")" +
                     value + "\"}" + (context.empty() ? "" : R"(,"context":)" + context));
}
const std::string kGreetRef = R"({"type":"ref/prompt","name":"greet"})";

TEST(Completion, ValuesAreTheFunctionsLines) {
  HostProcess host({catalog()});
  auto d = ask(host, complete_request("1", kGreetRef, "name", "al"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(compact(d["result"]["completion"]),
            R"({"values":["alice","alfred"],"total":2,"hasMore":false})");
  EXPECT_EQ(str(d["result"], "resultType"), "complete");
}

TEST(Completion, AtMostOneHundredValuesWithTotalAndHasMore) {
  HostProcess host({catalog()});
  auto d =
      ask(host, complete_request("1", R"({"type":"ref/prompt","name":"counted"})", "n", ""), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& completion = d["result"]["completion"];
  ASSERT_TRUE(completion["values"].IsArray()) << compact(d);
  ASSERT_EQ(completion["values"].Size(), 100u);
  ASSERT_TRUE(completion["values"][0].IsString() && completion["values"][99].IsString());
  EXPECT_STREQ(completion["values"][0].GetString(), "1");
  EXPECT_STREQ(completion["values"][99].GetString(), "100");
  EXPECT_EQ(completion["total"].GetUint64(), 150u);
  EXPECT_TRUE(completion["hasMore"].GetBool());
}

TEST(Completion, ContextArgumentsReachTheFunction) {
  HostProcess host({catalog()});
  auto d = ask(
      host, complete_request("1", kGreetRef, "style", "", R"({"arguments":{"name":"bob"}})"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(compact(d["result"]["completion"]["values"]), R"(["style-for-bob"])");
}

TEST(Completion, TemplateVariableOfAResource) {
  HostProcess host({catalog()});
  auto d = ask(
      host,
      complete_request("1", R"({"type":"ref/resource","uri":"users://{id}/profile"})", "id", "ab"),
      "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(compact(d["result"]["completion"]["values"]), R"(["id-ab-resource-id"])");
}

TEST(Completion, NoCompleterMeansNoValues) {
  HostProcess host({catalog()});
  auto d = ask(host,
               complete_request("1", R"({"type":"ref/prompt","name":"uncompleted"})", "topic", "x"),
               "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(compact(d["result"]["completion"]["values"]), "[]");
  EXPECT_FALSE(d["result"]["completion"]["hasMore"].GetBool());
}

TEST(Completion, UnknownReferencesAreInvalidParams) {
  HostProcess host({catalog()});
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"type":"ref/prompt","name":"no_such_prompt"})", "name"},
      {kGreetRef, "no_such_argument"},
      {R"({"type":"ref/resource","uri":"users://{id}/profile"})", "no_such_variable"},
      {R"({"type":"ref/resource","uri":"nothing://{x}"})", "x"},
      {R"({"type":"ref/other","name":"greet"})", "name"},
  };
  int id = 1;
  for (const auto& [ref, argument] : refused) {
    SCOPED_TRACE(ref + " " + argument);
    const std::string n = std::to_string(id++);
    host.send(complete_request(n, ref, argument, ""));
    EXPECT_TRUE(is_error_response(answer_line(host, n), kInvalidParams, n));
  }
}

TEST(Completion, FailingCompleterIsAnInternalErrorWithItsText) {
  HostProcess host({catalog()});
  host.send(complete_request("1", R"({"type":"ref/prompt","name":"hard"})", "x", ""));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("the completion index is missing"), std::string::npos)
      << *line;
}

// ---- capabilities -------------------------------------------------------------------------

struct Offer {
  std::string script;
  bool prompts, completions;
};

TEST(PromptCapabilities, AdvertisedOnlyWhenDefinedInBothEras) {
  for (const auto& offer : {Offer{catalog(), true, true}, Offer{five_prompts(), true, false},
                            Offer{tools_only(), false, false}}) {
    SCOPED_TRACE(offer.script);
    HostProcess modern({offer.script});
    auto discover = ask(modern, request("1", "server/discover"), "1");
    const auto& caps = discover["result"]["capabilities"];
    EXPECT_EQ(caps.HasMember("prompts"), offer.prompts) << compact(discover);
    EXPECT_EQ(caps.HasMember("completions"), offer.completions) << compact(discover);
    HostProcess legacy({offer.script});
    auto init = initialize(legacy);
    const auto& legacy_caps = init["result"]["capabilities"];
    EXPECT_EQ(legacy_caps.HasMember("prompts"), offer.prompts) << compact(init);
    EXPECT_EQ(legacy_caps.HasMember("completions"), offer.completions) << compact(init);

    const std::string complete_params =
        R"("ref":{"type":"ref/prompt","name":"zulu"},"argument":{"name":"a","value":""})";
    modern.send(request("2", "completion/complete", complete_params));
    auto modern_line = answer_line(modern, "2");
    legacy.send(legacy_request("2", "completion/complete", "{" + complete_params + "}"));
    auto legacy_line = answer_line(legacy, "2");
    if (!offer.completions) {
      EXPECT_TRUE(is_error_response(modern_line, kMethodNotFound, "2"));
      EXPECT_TRUE(is_error_response(legacy_line, kMethodNotFound, "2"));
    }
    if (!offer.prompts) {
      for (const char* method : {"prompts/list", "prompts/get"}) {
        SCOPED_TRACE(method);
        modern.send(request("3", method, R"("name":"zulu")"));
        EXPECT_TRUE(is_error_response(answer_line(modern, "3"), kMethodNotFound, "3"));
        legacy.send(legacy_request("3", method, R"({"name":"zulu"})"));
        EXPECT_TRUE(is_error_response(answer_line(legacy, "3"), kMethodNotFound, "3"));
      }
    }
  }
}

// ---- pagination ---------------------------------------------------------------------------

std::vector<std::string> names_of(const rapidjson::Value& prompts) {
  std::vector<std::string> out;
  for (const auto& p : prompts.GetArray()) out.push_back(str(p, "name"));
  return out;
}

// Every page of prompts/list, following nextCursor; `legacy` sends requests without _meta
// after initialize.
std::vector<std::vector<std::string>> all_pages(HostProcess& host, bool legacy) {
  std::vector<std::vector<std::string>> pages;
  std::string cursor;
  for (int id = 10; id < 20; ++id) {
    const std::string n = std::to_string(id);
    const std::string params = cursor.empty() ? "" : R"("cursor":")" + cursor + "\"";
    auto d = ask(host,
                 legacy ? legacy_request(n, "prompts/list", "{" + params + "}")
                        : request(n, "prompts/list", params),
                 n);
    if (!d.HasMember("result")) {
      ADD_FAILURE() << compact(d);
      break;
    }
    pages.push_back(names_of(d["result"]["prompts"]));
    if (!d["result"].HasMember("nextCursor")) break;
    cursor = str(d["result"], "nextCursor");
  }
  return pages;
}

TEST(Pagination, PagesChainThroughNextCursorInOrderInBothEras) {
  HostProcess whole({five_prompts()});
  auto d = ask(whole, request("1", "prompts/list"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto expected = names_of(d["result"]["prompts"]);
  ASSERT_EQ(expected, (std::vector<std::string>{"zulu", "alpha", "mike", "bravo", "yankee"}));
  for (bool legacy : {false, true}) {
    SCOPED_TRACE(legacy ? "legacy" : "modern");
    HostProcess host({"--page-size", "2", five_prompts()});
    if (legacy) initialize(host);
    auto pages = all_pages(host, legacy);
    ASSERT_EQ(pages.size(), 3u);
    EXPECT_EQ(pages[0].size(), 2u);
    EXPECT_EQ(pages[1].size(), 2u);
    EXPECT_EQ(pages[2].size(), 1u);
    std::vector<std::string> joined;
    for (const auto& page : pages) joined.insert(joined.end(), page.begin(), page.end());
    EXPECT_EQ(joined, expected);
  }
}

TEST(Pagination, UnknownCursorIsInvalidParamsInBothEras) {
  HostProcess modern({"--page-size", "2", five_prompts()});
  HostProcess legacy({"--page-size", "2", five_prompts()});
  initialize(legacy);
  int id = 1;
  for (const char* cursor : {R"("not-a-cursor")", R"("cGFnZSA5")", "5", R"({})"}) {
    SCOPED_TRACE(cursor);
    const std::string n = std::to_string(id++);
    modern.send(request(n, "prompts/list", std::string(R"("cursor":)") + cursor));
    EXPECT_TRUE(is_error_response(answer_line(modern, n), kInvalidParams, n));
    legacy.send(legacy_request(n, "prompts/list", std::string(R"({"cursor":)") + cursor + "}"));
    EXPECT_TRUE(is_error_response(answer_line(legacy, n), kInvalidParams, n));
  }
}

}  // namespace
}  // namespace mcpsh::testing
