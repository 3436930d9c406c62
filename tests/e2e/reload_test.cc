// Live reload end to end: the host serving a folder of scripts that the test edits while
// clients are connected. Legacy clients (after initialize) get list_changed notifications
// and resources/updated for what they subscribed to; modern clients get what their
// subscriptions/listen asked for, tagged with its id; a script that stops loading keeps
// the last good catalog; calls in flight finish; --no-watch turns all of it off.
//
// Nothing here waits for time to pass: every wait is for an event (a notification, a log
// line, a response) with a deadline of several seconds. "Exactly one" is proved by making
// a second change afterwards and counting two.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

constexpr const char* kToolsChanged = "notifications/tools/list_changed";
constexpr const char* kPromptsChanged = "notifications/prompts/list_changed";
constexpr const char* kResourcesChanged = "notifications/resources/list_changed";
constexpr const char* kUpdated = "notifications/resources/updated";
constexpr const char* kSubscriptionId = "io.modelcontextprotocol/subscriptionId";

// A folder the host serves (served/) and the test edits. Every script is written in
// staging/ and renamed in, as editors save: the host never reads half a script.
struct ServedFolder {
  ScratchDir scratch;
  ServedFolder() {
    std::filesystem::create_directories(scratch / "served");
    std::filesystem::create_directories(scratch / "staging");
  }
  std::string path() const { return scratch / "served"; }
  std::string file(const std::string& name) const { return scratch / ("served/" + name); }
  void put(const std::string& name, const std::string& text) const {
    const std::string staged = scratch / ("staging/" + name);
    std::ofstream(staged) << text;
    std::filesystem::rename(staged, file(name));
  }
};

std::string tool(const std::string& name, const std::string& body = "echo ok") {
  return "# The " + name + " tool.\ntool_" + name + "() { " + body + "; }\n";
}
std::string prompt(const std::string& name) {
  return "# The " + name + " prompt.\nprompt_" + name + "() { echo " + name + "; }\n";
}

// Reads lines until one satisfies `wanted` (returned parsed); every line read, that one
// included, is appended to `seen`.
std::optional<rapidjson::Document> await_seen(
    HostProcess& host, const std::function<bool(const rapidjson::Document&)>& wanted,
    std::vector<std::string>& seen, std::chrono::milliseconds timeout = 15s) {
  auto line = await_line(host, wanted, &seen, timeout);
  if (!line) return std::nullopt;
  seen.push_back(*line);
  return parse(*line);
}

std::optional<rapidjson::Document> await_notification(HostProcess& host, const std::string& method,
                                                      std::vector<std::string>& seen) {
  return await_seen(
      host, [&](const rapidjson::Document& d) { return method_of(d) == method; }, seen);
}

std::optional<rapidjson::Document> await_answer(HostProcess& host, const std::string& id,
                                                std::vector<std::string>& seen) {
  return await_seen(
      host, [&](const rapidjson::Document& d) { return is_response_to(d, id); }, seen);
}

rapidjson::Document ask(HostProcess& host, const std::string& line, const std::string& id,
                        std::vector<std::string>& seen) {
  host.send(line);
  auto d = await_answer(host, id, seen);
  EXPECT_TRUE(d) << "no answer to " << line << "\n" << host.stderr_text();
  return d ? std::move(*d) : rapidjson::Document();
}

// A round trip (server/discover): everything the host sent before its answer is in `seen`
// afterwards.
void round_trip(HostProcess& host, std::vector<std::string>& seen, const std::string& id = "99") {
  auto d = ask(host, request(id, "server/discover"), id, seen);
  EXPECT_TRUE(d.IsObject() && d.HasMember("result")) << host.stderr_text();
}

int count(const std::vector<std::string>& lines, const std::string& method) {
  int n = 0;
  for (const auto& line : lines) n += method_of(parse(line)) == method;
  return n;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Waits until the host's log holds `what` at least `times` times.
bool await_log(HostProcess& host, const std::string& what, std::size_t times = 1,
               std::chrono::milliseconds timeout = 15s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (occurrences(host.stderr_text(), what) < times) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

rapidjson::Document initialize(HostProcess& host, std::vector<std::string>& seen) {
  auto d = ask(host,
               legacy_request("0", "initialize",
                              R"({"protocolVersion":"2025-11-25","capabilities":{},)"
                              R"("clientInfo":{"name":"e2e","version":"1"}})"),
               "0", seen);
  host.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return d;
}

std::vector<std::string> tool_names(HostProcess& host, std::vector<std::string>& seen,
                                    const std::string& id, bool legacy = true) {
  auto d =
      ask(host, legacy ? legacy_request(id, "tools/list") : request(id, "tools/list"), id, seen);
  std::vector<std::string> names;
  if (!d.IsObject() || !d.HasMember("result")) return {"<no result>"};
  for (const auto& t : d["result"]["tools"].GetArray()) names.push_back(t["name"].GetString());
  std::sort(names.begin(), names.end());
  return names;
}

using Names = std::vector<std::string>;

// The result that closes a listen stream: complete, with the server's identity and the
// stream's id.
std::string closing_result(const std::string& id_json) {
  return R"({"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":)"
         R"({"name":"mcp-shell-host","version":")" MCPSH_VERSION R"("},")" +
         std::string(kSubscriptionId) + "\":" + id_json + "}}";
}

// ---- legacy: list_changed after initialize --------------------------------------------------

TEST(Reload, EditedScriptGivesExactlyOneToolsListChanged) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  auto init = initialize(host, seen);
  ASSERT_TRUE(init.IsObject() && init.HasMember("result")) << host.stderr_text();
  EXPECT_TRUE(init["result"]["capabilities"]["tools"]["listChanged"].GetBool()) << compact(init);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"one"}));

  folder.put("a.sh", tool("one") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"one", "two"}));
  // The operator's figures of the reload: where its time went, and what the loop spent.
  ASSERT_TRUE(await_log(host, " on the loop")) << host.stderr_text();
  EXPECT_TRUE(std::regex_search(
      host.stderr_text(),
      std::regex("reload: probed 1 of 1 scripts in [0-9]+\\.[0-9]{3} ms, building "
                 "[0-9]+\\.[0-9]{3} ms off the loop, swap [0-9]+\\.[0-9]{3} ms on the loop")))
      << host.stderr_text();

  // A second, unrelated change: had the first edit been announced twice, three would
  // have arrived by the time this one's is answered.
  folder.put("c.sh", tool("three"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  round_trip(host, seen);
  EXPECT_EQ(count(seen, kToolsChanged), 2);
  EXPECT_EQ(count(seen, kPromptsChanged), 0);
  EXPECT_EQ(count(seen, kResourcesChanged), 0);
  EXPECT_EQ(tool_names(host, seen, "3"), (Names{"one", "three", "two"}));

  // A script removed: its tool goes, announced too.
  std::filesystem::remove(folder.file("c.sh"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "4"), (Names{"one", "two"}));
}

TEST(Reload, AddedPromptGivesPromptsListChangedOnly) {
  ServedFolder folder;
  folder.put("a.sh", tool("one") + prompt("first"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  auto init = initialize(host, seen);
  ASSERT_TRUE(init.IsObject() && init.HasMember("result")) << host.stderr_text();
  EXPECT_TRUE(init["result"]["capabilities"]["prompts"]["listChanged"].GetBool()) << compact(init);

  folder.put("b.sh", prompt("second"));
  ASSERT_TRUE(await_notification(host, kPromptsChanged, seen)) << host.stderr_text();
  auto list = ask(host, legacy_request("1", "prompts/list"), "1", seen);
  EXPECT_NE(compact(list).find(R"("name":"second")"), std::string::npos) << compact(list);
  folder.put("c.sh", prompt("third"));
  ASSERT_TRUE(await_notification(host, kPromptsChanged, seen)) << host.stderr_text();
  round_trip(host, seen);
  EXPECT_EQ(count(seen, kPromptsChanged), 2);
  EXPECT_EQ(count(seen, kToolsChanged), 0);
}

TEST(Reload, SyntaxErrorKeepsTheLastGoodCatalog) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"one"}));

  folder.put("a.sh", tool("one") + "tool_two() { if true; then echo never; }\n");
  ASSERT_TRUE(await_log(host, "keeping the catalog served so far")) << host.stderr_text();
  const std::string log = host.stderr_text();
  const auto why = log.substr(log.find("keeping the catalog served so far"));
  EXPECT_NE(why.substr(0, why.find('\n')).find("a.sh"), std::string::npos) << log;
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"one"}));
  auto call =
      ask(host, legacy_request("3", "tools/call", R"({"name":"one","arguments":{}})"), "3", seen);
  EXPECT_FALSE(is_error_result(call)) << compact(call);
  EXPECT_EQ(count(seen, kToolsChanged), 0);

  // Fixed: served again, and announced once.
  folder.put("a.sh", tool("one") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "4"), (Names{"one", "two"}));
  round_trip(host, seen);
  EXPECT_EQ(count(seen, kToolsChanged), 1);
}

TEST(Reload, AFolderDeletedAndCreatedAgainIsWatchedAgain) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"one"}));

  // As a checkout does: the folder goes, then comes back with other scripts.
  std::filesystem::remove_all(folder.path());
  ASSERT_TRUE(await_log(host, "keeping the catalog served so far")) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"one"}));
  std::filesystem::create_directories(folder.path());
  folder.put("b.sh", tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "3"), (Names{"two"}));

  // Its watch was renewed: a later change is seen too.
  folder.put("c.sh", tool("three"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "4"), (Names{"three", "two"}));
}

TEST(Reload, CallInFlightFinishesAcrossAReload) {
  ServedFolder folder;
  const std::string release = folder.scratch / "release";
  const std::string started = folder.scratch / "started";
  const std::string wait_body =
      "touch " + started + "; while [[ ! -e " + release + " ]]; do sleep 0.01; done; echo finished";
  folder.put("a.sh", tool("wait", wait_body));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  host.send(legacy_request("5", "tools/call", R"({"name":"wait","arguments":{}})"));
  ASSERT_TRUE(wait_file(started)) << host.stderr_text();

  folder.put("a.sh", tool("wait", "echo replaced") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "6"), (Names{"two", "wait"}));
  std::ofstream(release) << "go";
  auto d = await_answer(host, "5", seen);
  ASSERT_TRUE(d) << host.stderr_text();
  EXPECT_FALSE(is_error_result(*d)) << compact(*d);
  EXPECT_EQ(result_text(*d), "finished");
  // New calls run the new script.
  auto again =
      ask(host, legacy_request("7", "tools/call", R"({"name":"wait","arguments":{}})"), "7", seen);
  EXPECT_EQ(result_text(again), "replaced");
}

// How many times each script was sourced, from the lines they append to a log at top level
// (with --warm 0, only probes source a script when no tool is called).
std::map<std::string, int> sourced_counts(const std::string& log) {
  std::map<std::string, int> n;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) ++n[line];
  return n;
}

// How many probes the host has stopped in the idle class and started again (each may have
// sourced its script once more): none, unless the machine was busy for a second.
int started_again(const std::string& log) {
  static const std::regex line("; ([0-9]+) probes? did not end in the idle class");
  int n = 0;
  for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it)
    n += std::stoi((*it)[1]);
  return n;
}

// The scripts were sourced as `expected` says, plus at most once more for each probe started
// again (one stopped before it got a CPU sourced nothing).
void expect_sourced(const std::string& log, const std::map<std::string, int>& expected,
                    HostProcess& host) {
  const auto actual = sourced_counts(log);
  int total = 0, expected_total = 0;
  for (const auto& [script, n] : actual) total += n;
  for (const auto& [script, n] : expected) {
    expected_total += n;
    auto it = actual.find(script);
    EXPECT_GE(it == actual.end() ? 0 : it->second, n) << script;
  }
  EXPECT_EQ(actual.size(), expected.size());
  // The reload's log line may follow its notification by a moment.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (total > expected_total + started_again(host.stderr_text()) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_GE(total, expected_total);
  EXPECT_LE(total, expected_total + started_again(host.stderr_text())) << host.stderr_text();
}

// An edit probes again only the scripts it touches: the script edited, or the script whose
// functions a sourced file defines; a new script is probed, the others keep their last
// probe. A script whose last probe failed is always probed again.
TEST(Reload, AChangeProbesOnlyTheScriptsItTouches) {
  ServedFolder folder;
  const std::string log = folder.scratch / "sourced.log";
  const std::string lib = folder.scratch / "lib.sh";
  auto counted = [&](const std::string& name, const std::string& body) {
    return "echo " + name + " >> " + log + "\n" + body;
  };
  std::ofstream(lib) << tool("cee");
  folder.put("a.sh", counted("a", tool("ay")));
  folder.put("b.sh", counted("b", tool("bee")));
  folder.put("c.sh", counted("c", "source " + lib + "\n"));
  HostProcess host({"--warm", "0", folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"ay", "bee", "cee"}));
  using Counts = std::map<std::string, int>;
  ASSERT_EQ(sourced_counts(log), (Counts{{"a", 1}, {"b", 1}, {"c", 1}}));

  folder.put("a.sh", counted("a", tool("ay") + tool("ay2")));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"ay", "ay2", "bee", "cee"}));
  expect_sourced(log, Counts{{"a", 2}, {"b", 1}, {"c", 1}}, host);
  EXPECT_TRUE(await_log(host, "reload: probed 1 of 3 scripts")) << host.stderr_text();

  // The file that defines c.sh's function changes: c.sh is probed again.
  {
    const std::string staged = folder.scratch / "staging/lib.sh";
    std::ofstream(staged) << tool("cee") + tool("cee2");
    std::filesystem::rename(staged, lib);
  }
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "3"), (Names{"ay", "ay2", "bee", "cee", "cee2"}));
  expect_sourced(log, Counts{{"a", 2}, {"b", 1}, {"c", 2}}, host);

  // A new script: it alone is probed.
  folder.put("d.sh", counted("d", tool("dee")));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  expect_sourced(log, Counts{{"a", 2}, {"b", 1}, {"c", 2}, {"d", 1}}, host);
  EXPECT_TRUE(await_log(host, "reload: probed 1 of 4 scripts")) << host.stderr_text();

  // A script that stops while sourced is not served; every later round probes it again
  // (its failure may have passed), and what it defines is served once it loads.
  const std::string gate = folder.scratch / "gate";
  folder.put("e.sh", counted("e", "[[ -e " + gate + " ]] || exit 3\n" + tool("ee")));
  ASSERT_TRUE(await_log(host, "keeping the catalog served so far")) << host.stderr_text();
  expect_sourced(log, Counts{{"a", 2}, {"b", 1}, {"c", 2}, {"d", 1}, {"e", 1}}, host);
  std::ofstream(gate) << "open";
  folder.put("b.sh", counted("b", tool("bee") + tool("bee2")));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "4"),
            (Names{"ay", "ay2", "bee", "bee2", "cee", "cee2", "dee", "ee"}));
  expect_sourced(log, Counts{{"a", 2}, {"b", 2}, {"c", 2}, {"d", 1}, {"e", 2}}, host);
  EXPECT_TRUE(await_log(host, "reload: probed 2 of 5 scripts")) << host.stderr_text();
}

// A reload parses again only the comment blocks of the scripts it probed again (adr/0024):
// the others' probes are the same, so are their files, so is their metadata. What changed
// is parsed again: an edited description is served, from the script or from the library
// that defines the function; the log line counts what was reused.
TEST(Reload, AReloadParsesOnlyTheCommentsOfTheScriptsItProbed) {
  ServedFolder folder;
  const std::string lib = folder.scratch / "lib.sh";
  std::ofstream(lib) << tool("cee");
  folder.put("a.sh", tool("ay") + prompt("pa"));
  folder.put("b.sh", tool("bee"));
  folder.put("c.sh", "source " + lib + "\n");
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"ay", "bee", "cee"}));
  auto description = [&](const std::string& id, const std::string& name) {
    auto d = ask(host, legacy_request(id, "tools/list"), id, seen);
    if (!d.IsObject() || !d.HasMember("result")) return std::string("<no result>");
    for (const auto& t : d["result"]["tools"].GetArray())
      if (t["name"].GetString() == name && t.HasMember("description"))
        return std::string(t["description"].GetString());
    return std::string("<none>");
  };
  ASSERT_EQ(description("2", "ay"), "The ay tool.");

  // Only a.sh's comment changes: its two blocks are parsed again, the other two reused;
  // one tool definition is new.
  folder.put("a.sh", "# The ay tool, edited.\ntool_ay() { echo ok; }\n" + prompt("pa"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(description("3", "ay"), "The ay tool, edited.");
  EXPECT_EQ(description("4", "cee"), "The cee tool.");
  EXPECT_TRUE(await_log(host, "reused 2 of 4 comment blocks and 2 of 3 tool definitions"))
      << host.stderr_text();

  // The library's comment changes: c.sh is probed again and cee's block parsed again.
  {
    const std::string staged = folder.scratch / "staging/lib.sh";
    std::ofstream(staged) << "# The cee tool, edited.\ntool_cee() { echo ok; }\n";
    std::filesystem::rename(staged, lib);
  }
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(description("5", "cee"), "The cee tool, edited.");
  EXPECT_EQ(description("6", "ay"), "The ay tool, edited.");
  EXPECT_TRUE(await_log(host, "reused 3 of 4 comment blocks and 2 of 3 tool definitions"))
      << host.stderr_text();
}

// The scheduling of the shell that sources a script, as its top level appends it to `log`:
// "policy nice" from /proc/$$/stat (fields 41 and 19; 5 is SCHED_IDLE). The host moves a
// probe into the idle class right after its exec, which a busy machine can delay past the
// top level's first line: the class is read until it is 5, for up to half a second. When
// it is 5 and `idle_sleep` is set, the top level then sleeps that long: a probe that gets
// no CPU in the idle class, as on a busy machine, without having to make the machine busy.
std::string scheduling_logged(const std::string& log, const std::string& idle_sleep = "") {
  std::string text =
      "for _ in 1 2 3 4 5 6 7 8 9 10; do\n"
      "  read -ra f < /proc/$$/stat; [[ ${f[40]} == 5 ]] && break; sleep 0.05\n"
      "done\n"
      "echo \"${f[40]} ${f[18]}\" >> " +
      log + "\n";
  if (!idle_sleep.empty()) text += "[[ ${f[40]} == 5 ]] && sleep " + idle_sleep + "\n";
  return text;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string own_nice_plus(int n) {
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, 0);
  return std::to_string(std::min(nice + n, 19));
}

// A reload is background work: its probes run in the idle scheduling class at nice +10,
// where any request's thread preempts them; start-up probes run as the host does. A probe
// that does not end within a second in the idle class is stopped and started again in the
// normal class, so that a busy machine delays a reload by that second, not indefinitely.
TEST(Reload, ProbesRunInTheIdleClassAndOneThatGetsNoCpuStartsAgain) {
  ServedFolder folder;
  const std::string log = folder.scratch / "scheduling.log";
  folder.put("a.sh", scheduling_logged(log) + tool("one"));
  HostProcess host({"--warm", "0", folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"one"}));
  ASSERT_EQ(lines_of(log), (Names{"0 " + own_nice_plus(0)}));

  folder.put("a.sh", scheduling_logged(log) + tool("one") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"one", "two"}));
  ASSERT_TRUE(await_log(host, " on the loop")) << host.stderr_text();
  const std::string idle = "5 " + own_nice_plus(10), normal = "0 " + own_nice_plus(10);
  // The reload's probe ran in the idle class at nice +10 (unless this machine was busy for
  // a whole second: then it was started again in the normal class, and the log says so).
  const int busy = started_again(host.stderr_text());
  if (busy) {
    EXPECT_EQ(lines_of(log).back(), normal) << host.stderr_text();
  } else {
    EXPECT_EQ(lines_of(log), (Names{"0 " + own_nice_plus(0), idle})) << host.stderr_text();
  }

  // The probe of this version sleeps in the idle class: it is stopped after a second and
  // started again at nice +10 in the normal class, where it ends.
  std::filesystem::remove(log);
  folder.put("a.sh", scheduling_logged(log, "30") + tool("one") + tool("three"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "3"), (Names{"one", "three"}));
  ASSERT_TRUE(await_log(host, " on the loop", 2)) << host.stderr_text();
  EXPECT_EQ(started_again(host.stderr_text()), busy + 1) << host.stderr_text();
  EXPECT_TRUE(await_log(host,
                        "; 1 probe did not end in the idle class and started again at "
                        "nice +10"))
      << host.stderr_text();
  // (A probe starved before its first line writes none.)
  auto lines = lines_of(log);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), normal);
  EXPECT_LE(lines.size(), 2u);
  if (lines.size() == 2) {
    EXPECT_EQ(lines.front(), idle);
  }
}

// The host's threads carry names (top -H, ps -L, perf): the reload's background thread among
// them once a reload has run.
TEST(HostThreads, AreNamed) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  folder.put("a.sh", tool("one") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  std::vector<std::string> names;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(host.pid()) + "/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    names.push_back(name);
  }
  for (const char* expected : {"mcpsh-reload", "mcpsh-spawner", "mcpsh-janitor", "mcpsh-writer"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

// The fields of a thread's /proc/.../sched ("policy", "se.slice"), when the kernel has it
// (CONFIG_SCHED_DEBUG).
std::map<std::string, std::string> sched_fields(const std::string& path) {
  std::map<std::string, std::string> fields;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key, colon, value;
    if (words >> key >> colon >> value && colon == ":") fields[key] = value;
  }
  return fields;
}

// Whether this kernel keeps a thread's own slice (EEVDF custom slices, Linux 6.12): tried on
// a thread of the test's own, which ends afterwards.
bool kernel_takes_custom_slices() {
  bool takes = false;
  std::thread([&] {
    struct {
      std::uint32_t size, policy;
      std::uint64_t flags;
      std::int32_t nice;
      std::uint32_t priority;
      std::uint64_t runtime, deadline, period;
    } attr{};
    if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return;
    attr.size = sizeof attr;
    attr.flags = 0x08;  // SCHED_FLAG_KEEP_POLICY
    attr.runtime = 100000;
    if (::syscall(SYS_sched_setattr, 0, &attr, 0) != 0) return;
    takes = sched_fields("/proc/self/task/" + std::to_string(::gettid()) + "/sched")["se.slice"] ==
            "100000";
  }).join();
  return takes;
}

// A request's threads go first: the loop (the main thread) and the writer run in 0.1 ms
// slices; the threads that start processes keep the default, and so do the processes they
// start (a tool reads its own); the reload's thread has the default slice too, in the
// normal class at nice +10 (adr/0024).
TEST(HostThreads, RequestsGoFirstInShortSlices) {
  const auto own = sched_fields("/proc/self/sched");
  if (!own.count("se.slice")) GTEST_SKIP() << "no /proc/self/sched (CONFIG_SCHED_DEBUG)";
  ServedFolder folder;
  folder.put("a.sh", tool("sched", "grep -E '^(policy|se[.]slice) ' /proc/$$/sched"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  folder.put("a.sh", tool("sched", "grep -E '^(policy|se[.]slice) ' /proc/$$/sched") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();

  std::map<std::string, std::map<std::string, std::string>> threads;  // by name
  const std::string proc = "/proc/" + std::to_string(host.pid());
  for (const auto& task : std::filesystem::directory_iterator(proc + "/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    threads[name] = sched_fields(task.path() / "sched");
  }
  for (const char* name : {"mcpsh-reload", "mcpsh-spawner", "mcpsh-janitor", "mcpsh-writer"})
    EXPECT_EQ(threads[name]["policy"], "0") << name;

  auto call =
      ask(host, legacy_request("2", "tools/call", R"({"name":"sched","arguments":{}})"), "2", seen);
  const std::string tool_sched = result_text(call);
  EXPECT_NE(tool_sched.find("policy"), std::string::npos) << tool_sched;
  if (!kernel_takes_custom_slices()) GTEST_SKIP() << "this kernel has no custom slices";
  const auto main_thread = sched_fields(proc + "/task/" + std::to_string(host.pid()) + "/sched");
  EXPECT_EQ(main_thread.at("se.slice"), "100000");
  EXPECT_EQ(threads["mcpsh-writer"]["se.slice"], "100000");
  for (const char* name : {"mcpsh-spawner", "mcpsh-janitor", "mcpsh-reload"})
    EXPECT_EQ(threads[name]["se.slice"], own.at("se.slice")) << name;
  std::istringstream lines(tool_sched);
  std::map<std::string, std::string> tool_fields;
  for (std::string key, colon, value; lines >> key >> colon >> value;) tool_fields[key] = value;
  EXPECT_EQ(tool_fields["se.slice"], own.at("se.slice")) << tool_sched;
  EXPECT_EQ(tool_fields["policy"], "0") << tool_sched;
}

// Once a probe of a round got no CPU in the idle class, the round's later probes start in
// the normal class: the machine is busy, and each would wait its second. Where a reload
// probes one script at a time (2 CPUs), the second script is never started in the idle class.
TEST(Reload, AfterAProbeGotNoCpuTheRoundsOtherProbesSkipTheIdleClass) {
  if (std::thread::hardware_concurrency() > 2)
    GTEST_SKIP() << "a reload probes several scripts at once here";
  ServedFolder folder;
  const std::string log_a = folder.scratch / "a.log", log_b = folder.scratch / "b.log";
  folder.put("a.sh", tool("ay"));
  folder.put("b.sh", tool("bee"));
  HostProcess host({"--warm", "0", folder.path()});
  std::vector<std::string> seen;
  initialize(host, seen);
  ASSERT_EQ(tool_names(host, seen, "1"), (Names{"ay", "bee"}));

  // Both renamed in at once, so that one reload probes both.
  std::ofstream(folder.scratch / "staging/a.sh")
      << scheduling_logged(log_a, "30") + tool("ay") + tool("ay2");
  std::ofstream(folder.scratch / "staging/b.sh")
      << scheduling_logged(log_b, "30") + tool("bee") + tool("bee2");
  std::filesystem::rename(folder.scratch / "staging/a.sh", folder.file("a.sh"));
  std::filesystem::rename(folder.scratch / "staging/b.sh", folder.file("b.sh"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(tool_names(host, seen, "2"), (Names{"ay", "ay2", "bee", "bee2"}));
  // One of them went first, in the idle class, and was started again; the other started in
  // the normal class: one probe started again, not two. (A probe starved before its first
  // line writes none.)
  ASSERT_TRUE(await_log(host, " on the loop")) << host.stderr_text();
  EXPECT_EQ(started_again(host.stderr_text()), 1) << host.stderr_text();
  const std::string idle = "5 " + own_nice_plus(10), normal = "0 " + own_nice_plus(10);
  auto a = lines_of(log_a), b = lines_of(log_b);
  ASSERT_FALSE(a.empty() || b.empty());
  EXPECT_EQ(a.back(), normal);
  EXPECT_EQ(b.back(), normal);
  EXPECT_LE(std::count(a.begin(), a.end(), idle) + std::count(b.begin(), b.end(), idle), 1);
  EXPECT_EQ(a.size() + b.size(), std::size_t{2} + (a.front() == idle || b.front() == idle));
}

// ---- modern: subscriptions/listen ---------------------------------------------------------

std::string listen_request(const std::string& id, const std::string& notifications) {
  return request(id, "subscriptions/listen", R"("notifications":)" + notifications);
}

std::string subscription_of(const rapidjson::Document& d) {
  if (!d.IsObject() || !d.HasMember("params") || !d["params"].HasMember("_meta") ||
      !d["params"]["_meta"].HasMember(kSubscriptionId))
    return "<none>";
  return compact(d["params"]["_meta"][kSubscriptionId]);
}

TEST(Listen, GetsOnlyWhatItAskedForTaggedWithItsId) {
  ServedFolder folder;
  folder.put("a.sh", tool("one") + prompt("first"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  host.send(listen_request(R"("L1")", R"({"toolsListChanged":true})"));
  auto ack = await_seen(
      host, [](const rapidjson::Document&) { return true; }, seen);
  ASSERT_TRUE(ack) << host.stderr_text();
  EXPECT_EQ(method_of(*ack), "notifications/subscriptions/acknowledged") << seen.back();
  EXPECT_EQ(subscription_of(*ack), R"("L1")") << seen.back();
  EXPECT_EQ(compact((*ack)["params"]["notifications"]), R"({"toolsListChanged":true})")
      << seen.back();

  // A prompt added: not asked for. Once the log says the reload is done, anything it sent
  // is ahead of what the next reload sends.
  folder.put("b.sh", prompt("second"));
  ASSERT_TRUE(await_log(host, "prompts changed")) << host.stderr_text();
  folder.put("c.sh", tool("two"));
  auto changed = await_notification(host, kToolsChanged, seen);
  ASSERT_TRUE(changed) << host.stderr_text();
  EXPECT_EQ(subscription_of(*changed), R"("L1")") << seen.back();
  round_trip(host, seen);
  EXPECT_EQ(count(seen, kPromptsChanged), 0);
  EXPECT_EQ(count(seen, kToolsChanged), 1);
  EXPECT_EQ(tool_names(host, seen, "2", false), (Names{"one", "two"}));
}

TEST(Listen, CancelledListenEndsWithoutAnAnswer) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  host.send(listen_request("8", R"({"toolsListChanged":true})"));
  ASSERT_TRUE(await_notification(host, "notifications/subscriptions/acknowledged", seen))
      << host.stderr_text();
  host.send(cancel_line("8"));
  round_trip(host, seen, "1");  // the cancellation is handled before this is answered

  folder.put("b.sh", tool("two"));
  ASSERT_TRUE(await_log(host, "tools changed")) << host.stderr_text();
  round_trip(host, seen, "2");
  EXPECT_EQ(count(seen, kToolsChanged), 0);
  // The id is free again: a new listen under it is acknowledged.
  host.send(listen_request("8", R"({"toolsListChanged":true})"));
  auto ack = await_notification(host, "notifications/subscriptions/acknowledged", seen);
  ASSERT_TRUE(ack) << seen.back();
  host.send(cancel_line("8"));
  host.close_stdin();
  for (const auto& line : lines_until_eof(host)) {
    seen.push_back(line);
    EXPECT_NE(id_of(parse(line)), "8") << line;
  }
  for (const auto& line : seen) EXPECT_NE(id_of(parse(line)), "8") << line;
  EXPECT_EQ(host.wait_exit(), 0);
}

TEST(Listen, SigtermAnswersAnOpenListenAsComplete) {
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  host.send(listen_request("42", R"({"toolsListChanged":true,"promptsListChanged":true})"));
  ASSERT_TRUE(await_notification(host, "notifications/subscriptions/acknowledged", seen))
      << host.stderr_text();
  host.signal(SIGTERM);
  std::optional<std::string> answer;
  for (const auto& line : lines_until_eof(host))
    if (id_of(parse(line)) == "42") answer = line;
  ASSERT_TRUE(answer) << host.stderr_text();
  auto d = parse_strict(*answer);
  ASSERT_TRUE(d.HasMember("result")) << *answer;
  EXPECT_EQ(compact(d["result"]), closing_result("42")) << *answer;
  auto status = host.wait_exit();
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status)) << *status;
}

TEST(Listen, EndOfInputAnswersAnOpenListenAsComplete) {
  // stdin closed: the host finishes and stops, and a stream still open is closed
  // gracefully, as when it is stopped by a signal (the client may still read stdout).
  ServedFolder folder;
  folder.put("a.sh", tool("one"));
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  host.send(listen_request(R"("open")", R"({"toolsListChanged":true})"));
  ASSERT_TRUE(await_notification(host, "notifications/subscriptions/acknowledged", seen))
      << host.stderr_text();
  host.close_stdin();
  std::optional<std::string> answer;
  for (const auto& line : lines_until_eof(host))
    if (id_of(parse(line)) == R"("open")") answer = line;
  ASSERT_TRUE(answer) << host.stderr_text();
  EXPECT_EQ(compact(parse_strict(*answer)["result"]), closing_result(R"("open")")) << *answer;
  EXPECT_EQ(host.wait_exit(), 0);
}

TEST(Listen, ResourceSubscriptionsAndResourcesListChangedAreTagged) {
  ServedFolder folder;
  const std::string data = folder.file("data.txt");
  std::ofstream(data) << "v1";
  folder.put("a.sh",
             "# Watched.\n# @uri test://watched\n# @watch data.txt\n"
             "resource_watched() { echo watched; }\n");
  HostProcess host({folder.path()});
  std::vector<std::string> seen;
  host.send(listen_request(
      "5", R"({"resourcesListChanged":true,"resourceSubscriptions":["test://watched"]})"));
  auto ack = await_notification(host, "notifications/subscriptions/acknowledged", seen);
  ASSERT_TRUE(ack) << host.stderr_text();
  EXPECT_EQ(compact((*ack)["params"]["notifications"]),
            R"({"resourcesListChanged":true,"resourceSubscriptions":["test://watched"]})");

  std::ofstream(data) << "v2";
  auto updated = await_notification(host, kUpdated, seen);
  ASSERT_TRUE(updated) << host.stderr_text();
  EXPECT_EQ(subscription_of(*updated), "5");
  EXPECT_EQ((*updated)["params"]["uri"], "test://watched") << seen.back();

  folder.put("b.sh", "# Another.\n# @uri test://another\nresource_another() { echo another; }\n");
  auto changed = await_notification(host, kResourcesChanged, seen);
  ASSERT_TRUE(changed) << host.stderr_text();
  EXPECT_EQ(subscription_of(*changed), "5");
  round_trip(host, seen);
  EXPECT_EQ(count(seen, kToolsChanged), 0);
  EXPECT_EQ(count(seen, kPromptsChanged), 0);
  EXPECT_EQ(count(seen, kResourcesChanged), 1);
}

// ---- legacy: resources/subscribe and @watch -------------------------------------------------

TEST(Subscribe, WatchedFileGivesResourcesUpdatedUntilUnsubscribed) {
  ServedFolder folder;
  const std::string data = folder.file("data.txt");
  std::ofstream(data) << "v1";
  const std::string script =
      "# A file the resource reads.\n# @uri test://watched\n# @watch data.txt\n"
      "resource_watched() { cat \"" +
      data + "\"; }\n";
  folder.put("a.sh", script + tool("one"));
  HostProcess host({folder.file("a.sh")});
  std::vector<std::string> seen;
  auto init = initialize(host, seen);
  ASSERT_TRUE(init.IsObject() && init.HasMember("result")) << host.stderr_text();
  EXPECT_TRUE(init["result"]["capabilities"]["resources"]["subscribe"].GetBool()) << compact(init);
  auto subscribed = ask(
      host, legacy_request("1", "resources/subscribe", R"({"uri":"test://watched"})"), "1", seen);
  EXPECT_EQ(compact(subscribed["result"]), "{}") << compact(subscribed);

  std::ofstream(data) << "v2";
  auto updated = await_notification(host, kUpdated, seen);
  ASSERT_TRUE(updated) << host.stderr_text();
  EXPECT_EQ(compact((*updated)["params"]), R"({"uri":"test://watched"})");
  auto read =
      ask(host, legacy_request("2", "resources/read", R"({"uri":"test://watched"})"), "2", seen);
  EXPECT_EQ(compact(read["result"]["contents"][0]["text"]), R"("v2")") << compact(read);

  ask(host, legacy_request("3", "resources/unsubscribe", R"({"uri":"test://watched"})"), "3", seen);
  seen.clear();
  // The file changes, then the script: the script's list_changed comes after whatever the
  // file's change sent (one watch, events in order; the reload is debounced besides).
  std::ofstream(data) << "v3";
  folder.put("a.sh", script + tool("one") + tool("two"));
  ASSERT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
  EXPECT_EQ(count(seen, kUpdated), 0);
}

TEST(Subscribe, WatchOfAScriptGivenByARelativePath) {
  // The host started in the scripts' folder with "a.sh": the @watch path is relative to
  // that folder as well.
  ServedFolder folder;
  std::ofstream(folder.file("data.txt")) << "v1";
  folder.put("a.sh",
             "# Watched.\n# @uri test://watched\n# @watch data.txt\n"
             "resource_watched() { cat data.txt; }\n");
  HostProcess host({"a.sh"}, HostOptions{{}, folder.path()});
  std::vector<std::string> seen;
  auto init = initialize(host, seen);
  ASSERT_TRUE(init.IsObject() && init.HasMember("result")) << host.stderr_text();
  ask(host, legacy_request("1", "resources/subscribe", R"({"uri":"test://watched"})"), "1", seen);
  std::ofstream(folder.file("data.txt")) << "v2";
  auto updated = await_notification(host, kUpdated, seen);
  ASSERT_TRUE(updated) << host.stderr_text();
  EXPECT_EQ(compact((*updated)["params"]), R"({"uri":"test://watched"})");
  // And the script itself is watched: an edit is announced.
  folder.put("a.sh",
             "# Watched.\n# @uri test://watched\n# @watch data.txt\n"
             "resource_watched() { cat data.txt; }\n" +
                 tool("one"));
  EXPECT_TRUE(await_notification(host, kToolsChanged, seen)) << host.stderr_text();
}

// ---- --no-watch ---------------------------------------------------------------------------

TEST(NoWatch, NothingReloadsAndCapabilitiesSaySo) {
  ServedFolder folder;
  folder.put("a.sh", tool("one") + prompt("first"));
  HostProcess fixed({"--no-watch", folder.path()});
  HostProcess watching({folder.path()});
  std::vector<std::string> fixed_seen, watching_seen;
  auto init = initialize(fixed, fixed_seen);
  ASSERT_TRUE(init.IsObject() && init.HasMember("result")) << fixed.stderr_text();
  const auto& caps = init["result"]["capabilities"];
  EXPECT_FALSE(caps["tools"]["listChanged"].GetBool()) << compact(init);
  EXPECT_FALSE(caps["prompts"]["listChanged"].GetBool()) << compact(init);
  auto discover = ask(fixed, request("1", "server/discover"), "1", fixed_seen);
  EXPECT_FALSE(discover["result"]["capabilities"]["tools"]["listChanged"].GetBool())
      << compact(discover);
  initialize(watching, watching_seen);

  folder.put("b.sh", tool("two"));
  // The watching host saw the change: by then the other one would have too.
  ASSERT_TRUE(await_notification(watching, kToolsChanged, watching_seen)) << watching.stderr_text();
  EXPECT_EQ(tool_names(fixed, fixed_seen, "2"), (Names{"one"}));
  EXPECT_EQ(count(fixed_seen, kToolsChanged), 0);
  // A modern listen is acknowledged with nothing honored.
  fixed.send(listen_request("3", R"({"toolsListChanged":true})"));
  auto ack = await_notification(fixed, "notifications/subscriptions/acknowledged", fixed_seen);
  ASSERT_TRUE(ack) << fixed.stderr_text();
  EXPECT_EQ(compact((*ack)["params"]["notifications"]), "{}") << fixed_seen.back();
}

}  // namespace
}  // namespace mcpsh::testing
