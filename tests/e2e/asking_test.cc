// Tools that ask (MCP 2026-07-28 multi round-trip requests) end to end: the real binary,
// real bash running tests/fixtures/asking/asking.sh. A question without an answer ends the
// run and the call returns input_required with the questions and a sealed requestState;
// the retry with the answers runs the tool again from the top. States are bound to their
// request, client and time; what the client did not declare is never asked.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;
using namespace std::chrono_literals;

constexpr int kInvalidParams = -32602;
constexpr int kMissingCapability = -32021;
constexpr const char* kAll = R"({"elicitation":{},"sampling":{},"roots":{}})";

std::string script() { return fixture("asking/asking.sh"); }

// A modern request from client `client` declaring `capabilities`; `params` without braces.
std::string asking_request(const std::string& id, const std::string& method,
                           const std::string& params, const std::string& capabilities = kAll,
                           const std::string& client = "e2e-test") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" + params +
         R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)" +
         R"("io.modelcontextprotocol/clientInfo":{"name":")" + client +
         R"(","version":"1"},"io.modelcontextprotocol/clientCapabilities":)" + capabilities + "}}}";
}

std::string call_params(const std::string& tool, const std::string& arguments = "{}",
                        const std::string& responses = "", const std::string& state = "") {
  std::string p = R"("name":")" + tool + R"(","arguments":)" + arguments;
  if (!responses.empty()) p += R"(,"inputResponses":)" + responses;
  if (!state.empty()) p += R"(,"requestState":")" + state + "\"";
  return p;
}

std::string accept(const std::string& content) {
  return R"({"action":"accept","content":)" + content + "}";
}

std::string field(const rapidjson::Value& v, const char* key) {
  return v.IsObject() && v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "<none>";
}

const rapidjson::Value& result(const rapidjson::Document& d) {
  static const rapidjson::Value none;
  return d.IsObject() && d.HasMember("result") ? d["result"] : none;
}

int error_code(const rapidjson::Document& d) {
  return d.IsObject() && d.HasMember("error") ? d["error"]["code"].GetInt() : 0;
}

std::string error_message(const rapidjson::Document& d) {
  return d.IsObject() && d.HasMember("error") ? field(d["error"], "message") : "<no error>";
}

TEST(Asking, AQuestionEndsTheRoundAndTheRetryCompletesWithTheAnswer) {
  HostProcess host({script()});
  auto first = ask(host, asking_request("1", "tools/call", call_params("greet")), "1");
  const auto& r1 = result(first);
  ASSERT_EQ(field(r1, "resultType"), "input_required") << compact(first);
  ASSERT_TRUE(r1.HasMember("inputRequests") && r1["inputRequests"].HasMember("who"))
      << compact(first);
  EXPECT_EQ(compact(r1["inputRequests"]["who"]),
            R"({"method":"elicitation/create","params":{"mode":"form","message":"Who is there?",)"
            R"("requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},)"
            R"("required":["name"]}}})");
  const std::string state = field(r1, "requestState");
  ASSERT_NE(state, "<none>");

  auto second =
      ask(host,
          asking_request(
              "2", "tools/call",
              call_params("greet", "{}", R"({"who":)" + accept(R"({"name":"Ann"})") + "}", state)),
          "2");
  EXPECT_EQ(field(result(second), "resultType"), "complete") << compact(second);
  EXPECT_EQ(result_text(second), "Hello, Ann!") << compact(second);
  EXPECT_FALSE(is_error_result(second));
}

TEST(Asking, DeclineAndCancelAreStatusesTheToolReads) {
  HostProcess host({script()});
  for (const auto& [action, text] :
       {std::pair{"decline", "the user declined"}, std::pair{"cancel", "the user cancelled"}}) {
    auto d =
        ask(host,
            asking_request(
                "1", "tools/call",
                call_params("greet", "{}", R"({"who":{"action":")" + std::string(action) + "\"}}")),
            "1");
    EXPECT_EQ(result_text(d), text) << compact(d);
  }
}

TEST(Asking, LaterRoundsCarryEarlierAnswersInTheState) {
  HostProcess host({script()});
  auto r1 = ask(host, asking_request("1", "tools/call", call_params("two_steps")), "1");
  ASSERT_TRUE(result(r1)["inputRequests"].HasMember("step1")) << compact(r1);
  const std::string s1 = field(result(r1), "requestState");
  auto r2 = ask(host,
                asking_request("2", "tools/call",
                               call_params("two_steps", "{}",
                                           R"({"step1":)" + accept(R"({"name":"one"})") + "}", s1)),
                "2");
  ASSERT_EQ(field(result(r2), "resultType"), "input_required") << compact(r2);
  ASSERT_TRUE(result(r2)["inputRequests"].HasMember("step2")) << compact(r2);
  EXPECT_FALSE(result(r2)["inputRequests"].HasMember("step1")) << compact(r2);
  const std::string s2 = field(result(r2), "requestState");
  EXPECT_NE(s2, s1);
  // The retry brings only the second answer: the first comes from the state.
  auto r3 = ask(host,
                asking_request("3", "tools/call",
                               call_params("two_steps", "{}",
                                           R"({"step2":)" + accept(R"({"name":"two"})") + "}", s2)),
                "3");
  EXPECT_EQ(result_text(r3), "one then two") << compact(r3);
  // The answers are sealed, not merely signed: the state does not show them.
  EXPECT_EQ(s2.find("one"), std::string::npos);
}

TEST(Asking, SeveralQuestionsInOneRoundAndWhatTheHelpersPrint) {
  HostProcess host({script()});
  auto r1 = ask(host, asking_request("1", "tools/call", call_params("three_at_once")), "1");
  const auto& requests = result(r1)["inputRequests"];
  ASSERT_TRUE(requests.IsObject()) << compact(r1);
  EXPECT_EQ(requests.MemberCount(), 3u) << compact(r1);
  EXPECT_EQ(compact(requests["go"]["params"]["requestedSchema"]),
            R"({"type":"object","properties":{}})");
  EXPECT_EQ(compact(requests["words"]),
            R"({"method":"sampling/createMessage","params":{"messages":[{"role":"user",)"
            R"("content":{"type":"text","text":"Say\ta few\nwords \\ please"}}],)"
            R"("systemPrompt":"Be brief","maxTokens":7}})");
  EXPECT_EQ(compact(requests["where"]), R"({"method":"roots/list","params":{}})");
  const std::string responses =
      R"({"go":{"action":"accept"},)"
      R"("words":{"role":"assistant","content":{"type":"text","text":"a\tb\nc \\n %s"},)"
      R"("model":"m-1","stopReason":"endTurn"},)"
      R"("where":{"roots":[{"uri":"file:///a","name":"A"},{"uri":"file:///b c"}]}})";
  auto r2 = ask(host,
                asking_request("2", "tools/call",
                               call_params("three_at_once", "{}", responses,
                                           field(result(r1), "requestState"))),
                "2");
  EXPECT_EQ(result_text(r2),
            "go: yes\nwords: [a\tb\nc \\n %s]\njson: \"m-1\"\nroot: file:///a\nroot: file:///b c")
      << compact(r2);
}

TEST(Asking, AStateIsRefusedWhenTamperedOrUsedForAnotherRequestOrClient) {
  HostProcess host({script()});
  auto r1 = ask(host, asking_request("1", "tools/call", call_params("greet")), "1");
  std::string state = field(result(r1), "requestState");
  ASSERT_NE(state, "<none>");
  const std::string answer = R"({"who":)" + accept(R"({"name":"Ann"})") + "}";
  std::string flipped = state;
  flipped[flipped.size() / 2] = flipped[flipped.size() / 2] == 'A' ? 'B' : 'A';
  struct Case {
    std::string request, why;
  } cases[] = {
      {asking_request("2", "tools/call", call_params("greet", "{}", answer, flipped)), "integrity"},
      {asking_request("2", "tools/call", call_params("greet", "{}", answer, state + "-TAMPERED")),
       "integrity"},
      {asking_request("2", "tools/call",
                      call_params("greet", R"({"greeting":"Hi"})", answer, state)),
       "another request"},
      {asking_request("2", "tools/call", call_params("two_steps", "{}", answer, state)),
       "another request"},
      {asking_request("2", "tools/call", call_params("greet", "{}", answer, state), kAll,
                      "mallory"),
       "another client"},
  };
  for (const auto& c : cases) {
    auto d = ask(host, c.request, "2");
    EXPECT_EQ(error_code(d), kInvalidParams) << c.request << "\n" << compact(d);
    EXPECT_NE(error_message(d).find(c.why), std::string::npos) << compact(d);
  }
  // Arguments re-serialized in another order are the same arguments.
  auto a = ask(
      host, asking_request("3", "tools/call", call_params("greet", R"({"greeting":"Hi"})")), "3");
  auto b = ask(host,
               asking_request("4", "tools/call",
                              call_params("greet", R"( { "greeting" : "Hi" } )", answer,
                                          field(result(a), "requestState"))),
               "4");
  EXPECT_EQ(result_text(b), "Hi, Ann!") << compact(b);
}

TEST(Asking, MalformedAnswersAreInvalidParams) {
  HostProcess host({script()});
  for (const std::string& responses :
       {std::string("null"), std::string("[]"), std::string(R"({"who":12345})"),
        std::string(R"({"who":{"action":"maybe"}})")}) {
    auto d =
        ask(host, asking_request("1", "tools/call", call_params("greet", "{}", responses)), "1");
    EXPECT_EQ(error_code(d), kInvalidParams) << responses << "\n" << compact(d);
  }
  auto d = ask(
      host, asking_request("2", "tools/call", R"("name":"greet","arguments":{},"requestState":7)"),
      "2");
  EXPECT_EQ(error_code(d), kInvalidParams) << compact(d);
  // Answers to what nobody asked are ignored; an answer without a state is used.
  auto extra = ask(host,
                   asking_request("3", "tools/call",
                                  call_params("greet", "{}",
                                              R"({"who":)" + accept(R"({"name":"Bo"})") +
                                                  R"(,"other":{"action":"accept"},"bad key!":1})")),
                   "3");
  EXPECT_EQ(result_text(extra), "Hello, Bo!") << compact(extra);
}

TEST(Asking, AStateExpires) {
  HostProcess host({"--state-ttl", "1", script()});
  auto r1 = ask(host, asking_request("1", "tools/call", call_params("greet")), "1");
  const std::string state = field(result(r1), "requestState");
  std::this_thread::sleep_for(2200ms);
  auto d = ask(host,
               asking_request("2", "tools/call",
                              call_params("greet", "{}",
                                          R"({"who":)" + accept(R"({"name":"A"})") + "}", state)),
               "2");
  EXPECT_EQ(error_code(d), kInvalidParams) << compact(d);
  EXPECT_NE(error_message(d).find("expired"), std::string::npos) << compact(d);
}

TEST(Asking, HostsSharingAKeyFileOpenEachOthersStates) {
  ScratchDir dir;
  const std::string key = dir / "state.key";
  { std::ofstream(key) << "0123456789abcdef0123456789abcdef-shared-secret\n"; }
  const std::string answer = R"({"step1":)" + accept(R"({"name":"one"})") + "}";
  std::string state;
  {
    HostProcess one({"--state-key-file", key, script()});
    auto r1 = ask(one, asking_request("1", "tools/call", call_params("two_steps")), "1");
    state = field(result(r1), "requestState");
  }
  HostProcess two({"--state-key-file", key, script()});
  auto ok = ask(
      two, asking_request("2", "tools/call", call_params("two_steps", "{}", answer, state)), "2");
  EXPECT_EQ(field(result(ok), "resultType"), "input_required") << compact(ok);
  EXPECT_TRUE(result(ok)["inputRequests"].HasMember("step2")) << compact(ok);
  HostProcess other({script()});  // a key of its own
  auto no = ask(
      other, asking_request("2", "tools/call", call_params("two_steps", "{}", answer, state)), "2");
  EXPECT_EQ(error_code(no), kInvalidParams) << compact(no);

  const std::string short_key = dir / "short.key";
  std::ofstream(short_key) << "too short";
  auto run = run_cli({"check", "--state-key-file", short_key, script()});
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.err.find("--state-key-file"), std::string::npos) << run.err;
}

TEST(Asking, WhatTheClientDidNotDeclareIsNeverAsked) {
  HostProcess host({script()});
  auto d =
      ask(host,
          asking_request("1", "tools/call", call_params("needs_sampling"), R"({"elicitation":{}})"),
          "1");
  ASSERT_EQ(error_code(d), kMissingCapability) << compact(d);
  EXPECT_EQ(compact(d["error"]["data"]), R"({"requiredCapabilities":{"sampling":{}}})");
  auto can = ask(
      host, asking_request("2", "tools/call", call_params("can"), R"({"roots":{},"sampling":{}})"),
      "2");
  EXPECT_EQ(result_text(can), "elicitation: no\nsampling: yes\nroots: yes") << compact(can);
}

// ---- the example, tools/tidy.sh --------------------------------------------------------

TEST(AskingExample, TheCleanUpShowsWhatItWillDeleteAndDeletesOnlyOnceConfirmed) {
  ScratchDir dir;
  for (const char* name : {"old-1.log", "old-2.log", "new.log"}) std::ofstream(dir / name) << "x";
  ASSERT_EQ(std::system(
                ("touch -d '10 days ago' " + dir / "old-1.log" + " " + dir / "old-2.log").c_str()),
            0);
  HostProcess host({std::string(MCPSH_SOURCE_DIR) + "/tools/tidy.sh"});
  const std::string arguments = R"({"dir":")" + dir.path + R"(","olderThanDays":5})";
  auto r1 =
      ask(host, asking_request("1", "tools/call", call_params("clean_old_files", arguments)), "1");
  const auto& requests = result(r1)["inputRequests"];
  ASSERT_TRUE(requests.IsObject() && requests.MemberCount() == 1) << compact(r1);
  const std::string key = requests.MemberBegin()->name.GetString();
  EXPECT_EQ(field(requests[key.c_str()]["params"], "message"),
            "Delete these 2 files from " + dir.path + "?\n" + dir / "old-1.log" + "\n" +
                dir / "old-2.log");
  const std::string state = field(result(r1), "requestState");
  auto declined =
      ask(host,
          asking_request("2", "tools/call",
                         call_params("clean_old_files", arguments,
                                     R"({")" + key + R"(":{"action":"decline"}})", state)),
          "2");
  EXPECT_EQ(result_text(declined), "Nothing deleted: the user did not confirm.")
      << compact(declined);
  EXPECT_TRUE(file_exists(dir / "old-1.log"));
  auto accepted =
      ask(host,
          asking_request("3", "tools/call",
                         call_params("clean_old_files", arguments,
                                     R"({")" + key + R"(":{"action":"accept"}})", state)),
          "3");
  EXPECT_EQ(result_text(accepted), "Deleted 2 files from " + dir.path + ".") << compact(accepted);
  EXPECT_FALSE(file_exists(dir / "old-1.log"));
  EXPECT_FALSE(file_exists(dir / "old-2.log"));
  EXPECT_TRUE(file_exists(dir / "new.log"));
}

// ---- the legacy era over stdio: the host asks with requests of its own -----------------

// initialize declaring `capabilities`, then notifications/initialized.
void legacy_init(HostProcess& host, const std::string& capabilities) {
  ask(host,
      legacy_request("0", "initialize",
                     R"({"protocolVersion":"2025-11-25","capabilities":)" + capabilities +
                         R"(,"clientInfo":{"name":"e2e","version":"1"}})"),
      "0");
  host.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

// The next request the host sends the client (a line with a method and an id).
rapidjson::Document next_request(HostProcess& host) {
  auto line = await_line(host, [](const rapidjson::Document& d) {
    return d.IsObject() && d.HasMember("method") && d.HasMember("id");
  });
  EXPECT_TRUE(line) << host.stderr_text();
  return parse(line.value_or("{}"));
}

std::string answer_to(const rapidjson::Document& request, const std::string& result) {
  return R"({"jsonrpc":"2.0","id":)" + compact(request["id"]) + R"(,"result":)" + result + "}";
}

TEST(AskingLegacy, TheToolWaitsWhileTheHostAsksTheClient) {
  HostProcess host({script()});
  legacy_init(host, kAll);
  host.send(legacy_request("1", "tools/call", R"({"name":"greet","arguments":{"greeting":"Hi"}})"));
  auto q = next_request(host);
  EXPECT_EQ(method_of(q), "elicitation/create");
  EXPECT_EQ(compact(q["params"]),
            R"({"message":"Who is there?","requestedSchema":{"type":"object","properties":)"
            R"({"name":{"type":"string"}},"required":["name"]}})");
  host.send(answer_to(q, accept(R"({"name":"Ann"})")));
  auto d = await_response(host, "1");
  ASSERT_TRUE(d);
  EXPECT_EQ(result_text(*d), "Hi, Ann!") << compact(*d);

  // Several questions, one after the other, in one run.
  host.send(legacy_request("2", "tools/call", R"({"name":"three_at_once","arguments":{}})"));
  auto confirm = next_request(host);
  EXPECT_EQ(method_of(confirm), "elicitation/create");
  host.send(answer_to(confirm, R"({"action":"decline"})"));
  auto sample = next_request(host);
  EXPECT_EQ(method_of(sample), "sampling/createMessage");
  host.send(answer_to(sample,
                      R"({"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"})"));
  auto roots = next_request(host);
  EXPECT_EQ(method_of(roots), "roots/list");
  host.send(answer_to(roots, R"({"roots":[{"uri":"file:///r"}]})"));
  auto three = await_response(host, "2");
  ASSERT_TRUE(three);
  EXPECT_EQ(result_text(*three), "go: no\nwords: [hi]\njson: \"m\"\nroot: file:///r")
      << compact(*three);
}

TEST(AskingLegacy, AnErrorFromTheClientIsAStatusAndAWrongAnswerToo) {
  HostProcess host({script()});
  legacy_init(host, kAll);
  host.send(legacy_request("1", "tools/call", R"({"name":"greet","arguments":{}})"));
  auto q = next_request(host);
  host.send(R"({"jsonrpc":"2.0","id":)" + compact(q["id"]) +
            R"(,"error":{"code":-1,"message":"User rejected"}})");
  auto d = await_response(host, "1");
  ASSERT_TRUE(d);
  EXPECT_EQ(result_text(*d), "the user declined") << compact(*d);
  EXPECT_NE(host.stderr_text().find("the client refused: User rejected"), std::string::npos)
      << host.stderr_text();
  // A sampling result where an elicitation result belongs is no answer either.
  host.send(legacy_request("2", "tools/call", R"({"name":"greet","arguments":{}})"));
  auto q2 = next_request(host);
  host.send(answer_to(q2, R"({"role":"assistant","content":{"type":"text","text":"x"}})"));
  auto d2 = await_response(host, "2");
  ASSERT_TRUE(d2);
  EXPECT_EQ(result_text(*d2), "the user declined") << compact(*d2);
  // A response to nothing the host asked is ignored.
  host.send(R"({"jsonrpc":"2.0","id":"no-such-request","result":{}})");
  auto can = ask(host, legacy_request("3", "tools/call", R"({"name":"can","arguments":{}})"), "3");
  EXPECT_EQ(result_text(can), "elicitation: yes\nsampling: yes\nroots: yes") << compact(can);
}

TEST(AskingLegacy, WhatTheClientDidNotDeclareEndsTheCallWithAnIsError) {
  HostProcess host({script()});
  legacy_init(host, R"({"sampling":{}})");
  auto d = ask(host, legacy_request("1", "tools/call", R"({"name":"greet","arguments":{}})"), "1");
  EXPECT_TRUE(is_error_result(d)) << compact(d);
  EXPECT_NE(result_text(d).find("elicitation capability"), std::string::npos) << compact(d);
  auto can = ask(host, legacy_request("2", "tools/call", R"({"name":"can","arguments":{}})"), "2");
  EXPECT_EQ(result_text(can), "elicitation: no\nsampling: yes\nroots: no") << compact(can);
}

TEST(AskingLegacy, ACancelledCallCancelsItsQuestion) {
  HostProcess host({script()});
  legacy_init(host, kAll);
  host.send(legacy_request("1", "tools/call", R"({"name":"greet","arguments":{}})"));
  auto q = next_request(host);
  host.send(cancel_line("1"));
  auto line = await_line(
      host, [](const rapidjson::Document& d) { return method_of(d) == "notifications/cancelled"; });
  ASSERT_TRUE(line) << host.stderr_text();
  EXPECT_EQ(compact(parse(*line)["params"]["requestId"]), compact(q["id"]));
  // Its late answer is ignored; the host goes on.
  host.send(answer_to(q, accept(R"({"name":"late"})")));
  auto ping = ask(host, legacy_request("2", "ping"), "2");
  EXPECT_TRUE(ping.HasMember("result")) << compact(ping);
}

TEST(Asking, TheRoundEndsTheWholeProcessGroupAndWorksInTheSandbox) {
  HostProcess host({script()});
  const std::string tag = unique_tag("asking");
  TagCleanup cleanup(tag);
  auto d = ask(
      host,
      asking_request("1", "tools/call", call_params("ask_with_child", R"({"tag":")" + tag + "\"}")),
      "1");
  EXPECT_EQ(field(result(d), "resultType"), "input_required") << compact(d);
  // The process it left running is gone with it.
  for (int i = 0; i < 50 && !processes_matching(tag).empty(); ++i)
    std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(processes_matching(tag).empty());
  auto confined = ask(host, asking_request("2", "tools/call", call_params("confined_ask")), "2");
  EXPECT_EQ(field(result(confined), "resultType"), "input_required") << compact(confined);
  auto done =
      ask(host,
          asking_request("3", "tools/call",
                         call_params("confined_ask", "{}", R"({"sure":{"action":"accept"}})")),
          "3");
  EXPECT_EQ(result_text(done), "confined and sure") << compact(done);
}

TEST(Asking, MistakesInAskingAreTheToolsErrors) {
  HostProcess host({script()});
  auto bad = ask(host, asking_request("1", "tools/call", call_params("bad_schema")), "1");
  EXPECT_TRUE(is_error_result(bad)) << compact(bad);
  EXPECT_NE(result_text(bad).find("schema"), std::string::npos) << compact(bad);
  auto lonely = ask(host, asking_request("2", "tools/call", call_params("no_message")), "2");
  EXPECT_EQ(result_text(lonely), "status 64") << compact(lonely);
}

TEST(Asking, APromptAsksTooAndCompletionDoesNot) {
  HostProcess host({script()});
  auto r1 = ask(host, asking_request("1", "prompts/get", R"("name":"topic")"), "1");
  ASSERT_EQ(field(result(r1), "resultType"), "input_required") << compact(r1);
  auto r2 = ask(host,
                asking_request("2", "prompts/get",
                               R"("name":"topic","inputResponses":{"topic":)" +
                                   accept(R"({"topic":"tides"})") + R"(},"requestState":")" +
                                   field(result(r1), "requestState") + "\""),
                "2");
  ASSERT_TRUE(result(r2).HasMember("messages")) << compact(r2);
  EXPECT_EQ(field(result(r2)["messages"][0]["content"], "text"), "Write about tides.")
      << compact(r2);
  // Lists never ask.
  auto list = ask(host, asking_request("3", "tools/list", R"("cursor":null)"), "3");
  EXPECT_EQ(field(result(list), "resultType"), "complete") << compact(list);
}

// ---- @confirm and --confirm-destructive ----------------------------------------------

TEST(AskingConfirm, TheToolRunsOnlyOnceTheUserAccepted) {
  ScratchDir dir;
  const std::string file = dir / "made";
  const std::string arguments = R"({"path":")" + file + "\"}";
  HostProcess host({script()});
  auto r1 =
      ask(host, asking_request("1", "tools/call", call_params("create_file", arguments)), "1");
  ASSERT_EQ(field(result(r1), "resultType"), "input_required") << compact(r1);
  const auto& q = result(r1)["inputRequests"]["mcp-shell-host:confirm"];
  EXPECT_EQ(field(q["params"], "message"), "Create " + file + " ({missing} stays)?") << compact(r1);
  EXPECT_FALSE(file_exists(file)) << "the tool ran before the user said yes";
  const std::string state = field(result(r1), "requestState");
  auto no =
      ask(host,
          asking_request("2", "tools/call",
                         call_params("create_file", arguments,
                                     R"({"mcp-shell-host:confirm":{"action":"decline"}})", state)),
          "2");
  EXPECT_TRUE(is_error_result(no)) << compact(no);
  EXPECT_EQ(result_text(no), "The user did not confirm, so create_file did not run.");
  EXPECT_FALSE(file_exists(file));
  auto yes =
      ask(host,
          asking_request("3", "tools/call",
                         call_params("create_file", arguments,
                                     R"({"mcp-shell-host:confirm":{"action":"accept"}})", state)),
          "3");
  EXPECT_EQ(result_text(yes), "created " + file) << compact(yes);
  EXPECT_TRUE(file_exists(file));
  // A client that cannot ask the user gets an isError saying so; the tool does not run.
  auto cannot = ask(host,
                    asking_request("4", "tools/call", call_params("create_file", arguments),
                                   R"({"sampling":{}})"),
                    "4");
  EXPECT_TRUE(is_error_result(cannot)) << compact(cannot);
  EXPECT_NE(result_text(cannot).find("only once the user confirms"), std::string::npos)
      << compact(cannot);
}

TEST(AskingConfirm, DestructiveToolsAskWhenTheHostIsToldTo) {
  HostProcess plain({script()});
  auto ran = ask(plain, asking_request("1", "tools/call", call_params("wipe")), "1");
  EXPECT_EQ(result_text(ran), "wiped") << compact(ran);
  HostProcess careful({"--confirm-destructive", script()});
  auto r1 = ask(careful, asking_request("1", "tools/call", call_params("wipe")), "1");
  ASSERT_EQ(field(result(r1), "resultType"), "input_required") << compact(r1);
  EXPECT_EQ(field(result(r1)["inputRequests"]["mcp-shell-host:confirm"]["params"], "message"),
            "Run the tool wipe with {}?");
  // Tools that are not destructive run at once.
  auto can = ask(careful, asking_request("2", "tools/call", call_params("can")), "2");
  EXPECT_FALSE(is_error_result(can)) << compact(can);
  EXPECT_NE(field(result(can), "resultType"), "input_required") << compact(can);
}

TEST(AskingConfirm, AnOlderClientOnStdioIsAskedBeforeTheToolRuns) {
  ScratchDir dir;
  const std::string file = dir / "made";
  HostProcess host({script()});
  legacy_init(host, R"({"elicitation":{}})");
  host.send(legacy_request("1", "tools/call",
                           R"({"name":"create_file","arguments":{"path":")" + file + "\"}}"));
  auto q = next_request(host);
  EXPECT_EQ(method_of(q), "elicitation/create");
  EXPECT_EQ(field(q["params"], "message"), "Create " + file + " ({missing} stays)?");
  EXPECT_FALSE(file_exists(file));
  host.send(answer_to(q, R"({"action":"accept"})"));
  auto d = await_response(host, "1");
  ASSERT_TRUE(d);
  EXPECT_EQ(result_text(*d), "created " + file) << compact(*d);
  HostProcess mute({script()});
  legacy_init(mute, "{}");
  auto no = ask(mute,
                legacy_request("1", "tools/call",
                               R"({"name":"create_file","arguments":{"path":")" + file + "2\"}}"),
                "1");
  EXPECT_TRUE(is_error_result(no)) << compact(no);
  EXPECT_NE(result_text(no).find("only once the user confirms"), std::string::npos) << compact(no);
  EXPECT_FALSE(file_exists(file + "2"));
}

// ---- robustness ------------------------------------------------------------------------

TEST(AskingLimits, AQuestionArrivesWholeOrNotAtAll) {
  HostProcess host({script()});
  auto big =
      ask(host, asking_request("1", "tools/call", call_params("big_question", R"({"size":70000})")),
          "1");
  const auto& params = result(big)["inputRequests"]["big"]["params"];
  ASSERT_TRUE(params.IsObject()) << compact(big).substr(0, 300);
  EXPECT_EQ(std::string(params["messages"][0]["content"]["text"].GetString()).size(), 70000u);
  EXPECT_EQ(field(params, "systemPrompt"), "sys");
  EXPECT_EQ(params["maxTokens"].GetInt(), 9);
  HostProcess small({"--max-output", "64k", script()});
  auto over = ask(
      small, asking_request("1", "tools/call", call_params("big_question", R"({"size":200000})")),
      "1");
  EXPECT_TRUE(is_error_result(over)) << compact(over).substr(0, 300);
  EXPECT_NE(result_text(over).find("over the output limit"), std::string::npos)
      << compact(over).substr(0, 300);
  // Logs past the side channel's cap do not crowd out the question.
  auto chatty = ask(host, asking_request("2", "tools/call", call_params("chatty_then_asks")), "2");
  EXPECT_EQ(field(result(chatty), "resultType"), "input_required")
      << compact(chatty).substr(0, 300);
}

TEST(AskingLimits, ALargeAnswerIsReadInTime) {
  HostProcess host({script()});
  const std::string text(1000000, 'a');
  auto d = ask(
      host,
      asking_request("1", "tools/call",
                     call_params("big_answer", "{}",
                                 R"({"big":{"role":"assistant","content":{"type":"text","text":")" +
                                     text + R"("},"model":"m"}})")),
      "1");
  EXPECT_EQ(result_text(d), "1000000") << compact(d).substr(0, 300);
}

TEST(AskingShell, TheRoundRunsExitTrapsAndStopsJobsAndMatchesKeysExactly) {
  ScratchDir dir;
  const std::string arguments = R"({"dir":")" + dir.path + "\"}";
  HostProcess host({script()});
  auto trap =
      ask(host, asking_request("1", "tools/call", call_params("cleans_up", arguments)), "1");
  EXPECT_EQ(field(result(trap), "resultType"), "input_required") << compact(trap);
  EXPECT_TRUE(wait_file(dir / "cleaned")) << "the EXIT trap did not run";
  auto jobs =
      ask(host, asking_request("2", "tools/call", call_params("job_control", arguments)), "2");
  EXPECT_EQ(field(result(jobs), "resultType"), "input_required") << compact(jobs);
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(file_exists(dir / "went-on")) << "the tool went on without its answer";
  auto blind =
      ask(host,
          asking_request(
              "3", "tools/call",
              call_params("case_blind", "{}",
                          R"({"Key":{"role":"assistant","content":{"type":"text","text":"x"}}})")),
          "3");
  EXPECT_EQ(field(result(blind), "resultType"), "input_required") << compact(blind);
}

TEST(AskingCapabilities, OnlyFormElicitationAndObjectsCount) {
  HostProcess host({script()});
  auto url_only = ask(host,
                      asking_request("1", "tools/call", call_params("can"),
                                     R"({"elicitation":{"url":{}},"sampling":null,"roots":{}})"),
                      "1");
  EXPECT_EQ(result_text(url_only), "elicitation: no\nsampling: no\nroots: yes")
      << compact(url_only);
  auto form = ask(host,
                  asking_request("2", "tools/call", call_params("can"),
                                 R"({"elicitation":{"form":{},"url":{}}})"),
                  "2");
  EXPECT_EQ(result_text(form), "elicitation: yes\nsampling: no\nroots: no") << compact(form);
  auto refused =
      ask(host,
          asking_request("3", "tools/call", call_params("greet"), R"({"elicitation":{"url":{}}})"),
          "3");
  EXPECT_EQ(error_code(refused), kMissingCapability) << compact(refused);
  // An input_required result names the server, as every modern result does.
  auto r = ask(host, asking_request("4", "tools/call", call_params("greet")), "4");
  EXPECT_TRUE(result(r).HasMember("_meta") &&
              result(r)["_meta"].HasMember("io.modelcontextprotocol/serverInfo"))
      << compact(r);
}

}  // namespace
}  // namespace mcpsh::testing
