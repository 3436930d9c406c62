// Audit log: one JSON line per request, with what happened in separate fields, and never
// an argument value (only names) — neither there nor in the diagnostic log, where a
// tool's stderr lines appear tagged with the request id and the tool name.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

constexpr const char* kSecret = "S3CRET-hunter2-VALUE";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool has_true(const rapidjson::Value& r, const char* key) {
  return r.HasMember(key) && r[key].IsBool() && r[key].GetBool();
}

TEST(Audit, OneLinePerRequestWithOutcomesAndNoArgumentValues) {
  ScratchDir dir;
  const std::string audit_path = dir / "audit.jsonl";
  const std::string tag = unique_tag("audit");
  TagCleanup cleanup(tag);
  // No short --timeout for the whole host: cold bash under a loaded, sanitized build can
  // take longer than any short limit, and every call would then end as timed out. Call 6
  // times out on its own: `limited` has `# @timeout 1` and sleeps far past it.
  HostProcess host(
      {"--audit-log", audit_path, "--log-level", "debug", "--max-output", "1k", tools_script()});
  const std::string secret_args = std::string(R"({"password":")") + kSecret + R"("})";
  host.send(request("1", "server/discover"));
  host.send(request("2", "tools/list"));
  host.send(call_request("3", "secret", secret_args));
  host.send(call_request("4", "fail", secret_args));
  host.send(call_request("5", "kill9"));
  host.send(call_request("6", "limited", R"({"tag":")" + tag + R"("})"));
  host.send(call_request("7", "flood", R"({"bytes":5000})"));
  host.send(call_request("8", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("8")));
  host.send(call_request("9", "no_such_tool", secret_args));
  host.send(request("10", "no/such/method", R"("password":")" + std::string(kSecret) + "\""));
  host.send(std::string("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",") + kSecret);
  host.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  std::vector<std::string> before;
  ASSERT_TRUE(await_progress(host, "ready", &before)) << host.stderr_text();
  host.send(cancel_line("8"));
  auto got = await_responses(host, {"1", "2", "3", "4", "5", "6", "7", "9", "10"}, 20s, before);
  ASSERT_EQ(got.size(), 9u) << host.stderr_text();
  host.close_stdin();
  lines_until_eof(host);
  ASSERT_EQ(host.wait_exit(), 0);

  const std::string audit = read_text(audit_path);
  const std::string log = host.stderr_text();
  EXPECT_EQ(audit.find(kSecret), std::string::npos) << "an argument value reached the audit log";
  EXPECT_EQ(log.find(kSecret), std::string::npos) << "an argument value reached the diagnostic log";

  // Every line is one JSON object; requests are found by id, the parse error by its code.
  std::map<std::string, rapidjson::Document> by_id;
  std::vector<rapidjson::Document> without_id;
  std::istringstream lines(audit);
  for (std::string line; std::getline(lines, line);) {
    rapidjson::Document d = parse(line);
    ASSERT_TRUE(d.IsObject()) << line;
    EXPECT_TRUE(d.HasMember("time") && d["time"].IsString()) << line;
    EXPECT_TRUE(d.HasMember("durationMs") && d["durationMs"].IsInt64()) << line;
    EXPECT_TRUE(d.HasMember("bytesOut") && d["bytesOut"].IsUint64()) << line;
    if (d.HasMember("id")) {
      std::string id = compact(d["id"]);
      EXPECT_FALSE(by_id.count(id)) << "two records for id " << id;
      by_id[id] = std::move(d);
    } else {
      without_id.push_back(std::move(d));
    }
  }
  EXPECT_EQ(by_id.size(), 10u) << audit;  // 1..10; 11 is unparseable, so it has no id
  ASSERT_EQ(without_id.size(), 1u) << audit;
  EXPECT_EQ(without_id[0]["rpcError"]["code"].GetInt(), -32700);

  for (const char* id : {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}) {
    ASSERT_TRUE(by_id.count(id)) << "no record for " << id << "\n" << audit;
    const auto& r = by_id[id];
    ASSERT_TRUE(r.HasMember("method")) << id;
    // An unknown method is refused before its _meta is read.
    if (std::string(id) != "10") {
      ASSERT_TRUE(r.HasMember("protocolVersion") && r.HasMember("client")) << id;
      EXPECT_EQ(std::string(r["protocolVersion"].GetString()), "2026-07-28") << id;
      EXPECT_EQ(std::string(r["client"].GetString()), "e2e-test") << id;
    }
    if (std::string(id) != "8") {
      EXPECT_GT(r["bytesOut"].GetUint64(), 0u) << id;
    }
    EXPECT_GT(r["bytesIn"].GetUint64(), 0u) << id;
  }
  EXPECT_EQ(std::string(by_id["1"]["method"].GetString()), "server/discover");
  EXPECT_EQ(std::string(by_id["2"]["method"].GetString()), "tools/list");

  const auto& ok = by_id["3"];
  EXPECT_EQ(std::string(ok["method"].GetString()), "tools/call");
  EXPECT_EQ(std::string(ok["tool"].GetString()), "secret");
  EXPECT_FALSE(ok["isError"].GetBool());
  EXPECT_EQ(ok["exitStatus"].GetInt(), 0);
  ASSERT_TRUE(ok["argumentNames"].IsArray());
  EXPECT_EQ(std::string(ok["argumentNames"][0].GetString()), "password");

  const auto& failed = by_id["4"];
  EXPECT_TRUE(failed["isError"].GetBool());
  EXPECT_EQ(failed["exitStatus"].GetInt(), 3);

  const auto& killed = by_id["5"];
  EXPECT_TRUE(killed["isError"].GetBool());
  EXPECT_EQ(killed["signal"].GetInt(), 9);
  EXPECT_FALSE(killed.HasMember("exitStatus"));

  const auto& timed_out = by_id["6"];
  EXPECT_TRUE(timed_out["isError"].GetBool());
  EXPECT_TRUE(has_true(timed_out, "timedOut"));
  EXPECT_FALSE(has_true(timed_out, "cancelled"));

  const auto& truncated = by_id["7"];
  EXPECT_FALSE(truncated["isError"].GetBool());
  EXPECT_TRUE(has_true(truncated, "truncated"));
  EXPECT_EQ(truncated["toolStdoutBytes"].GetUint64(), 5000u);

  const auto& cancelled = by_id["8"];
  EXPECT_TRUE(has_true(cancelled, "cancelled"));
  EXPECT_FALSE(cancelled.HasMember("isError")) << "nothing was sent for it";
  EXPECT_EQ(cancelled["bytesOut"].GetUint64(), 0u);

  EXPECT_EQ(by_id["9"]["rpcError"]["code"].GetInt(), -32602);
  EXPECT_EQ(std::string(by_id["9"]["tool"].GetString()), "no_such_tool");
  EXPECT_EQ(by_id["10"]["rpcError"]["code"].GetInt(), -32601);
  EXPECT_EQ(std::string(by_id["10"]["method"].GetString()), "no/such/method");

  // The tool's stderr, in the diagnostic log, tagged with the request id and tool name.
  EXPECT_NE(log.find("[3 secret] a line on stderr from the secret tool"), std::string::npos) << log;
}

}  // namespace
}  // namespace mcpsh::testing
