// Migration: a server written for the old pure-bash core, served unchanged, answers as
// the old core did (goldens recorded from it), except where the old core was wrong.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "host_process.h"

namespace mcpsh::testing {
namespace {

namespace fs = std::filesystem;

// The old-core server, vendored unchanged (tests/fixtures/migration/README.md).
std::string cinema_dir() { return fixture("migration/oldcore-style"); }

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  return lines;
}

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

// Runs the session; returns responses by id.
std::map<int, rapidjson::Document> serve_session(const std::vector<std::string>& args,
                                                 HostOptions options) {
  auto requests = lines_of(fixture("migration/requests.jsonl"));
  HostProcess host(args, options);
  for (const auto& r : requests) host.send(r);
  host.close_stdin();
  std::map<int, rapidjson::Document> by_id;
  while (auto line = host.read_line(20s)) {
    rapidjson::Document d = parse(*line);
    EXPECT_TRUE(d.IsObject()) << "not a JSON object on stdout: " << *line;
    if (d.IsObject() && d.HasMember("id") && d["id"].IsInt())
      by_id[d["id"].GetInt()] = std::move(d);
  }
  EXPECT_EQ(host.wait_exit().value_or(-1), 0);
  return by_id;
}

class Migration : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(cinema_dir() + "/cinema.sh")) << "missing fixture " << cinema_dir();
    for (const auto& line : lines_of(fixture("migration/oldcore-responses.jsonl"))) {
      rapidjson::Document d = parse(line);
      expected_[d["id"].GetInt()] = std::move(d);
    }
  }
  std::map<int, rapidjson::Document> expected_;
};

TEST_F(Migration, EveryResponseMatchesTheOldCoreExceptItsBugs) {
  auto got = serve_session({cinema_dir() + "/cinema.sh"}, {});
  ASSERT_EQ(got.size(), expected_.size()) << "one response per request";
  for (auto& [id, want] : expected_) {
    SCOPED_TRACE("request id " + std::to_string(id));
    ASSERT_TRUE(got.count(id));
    rapidjson::Document& have = got[id];
    switch (id) {
      case 2:
        // Old-core bug: tools/list ignored the config file's ttlMs and cacheScope.
        EXPECT_EQ(have["result"]["ttlMs"].GetInt(), 120000);
        EXPECT_STREQ(have["result"]["cacheScope"].GetString(), "private");
        EXPECT_EQ(compact(have["result"]["tools"]), compact(want["result"]["tools"]));
        EXPECT_EQ(compact(have["result"]["_meta"]), compact(want["result"]["_meta"]));
        break;
      case 5:
      case 13:
        // Old-core bug: arguments that violate inputSchema reached the tool. Now they are
        // rejected before it runs, still as an isError result the model can act on.
        EXPECT_TRUE(is_error_result(have));
        EXPECT_NE(result_text(have).find("Invalid arguments for tool 'reserve_seats'"),
                  std::string::npos);
        break;
      case 8:
        // Same code and opening words; the message says why the advertised tool is missing.
        EXPECT_EQ(have["error"]["code"].GetInt(), want["error"]["code"].GetInt());
        EXPECT_EQ(std::string(have["error"]["message"].GetString())
                      .rfind(want["error"]["message"].GetString(), 0),
                  0u);
        break;
      default:
        EXPECT_TRUE(have == want) << "want " << compact(want) << "\nhave " << compact(have);
    }
  }
}

TEST_F(Migration, RelativeScriptPathResolvesAsUnderTheOldCore) {
  HostOptions options;
  options.cwd = cinema_dir();
  auto got = serve_session({"cinema.sh"}, options);
  ASSERT_TRUE(got.count(1));
  EXPECT_TRUE(got[1] == expected_[1]) << compact(got[1]);
  ASSERT_TRUE(got.count(4));
  EXPECT_TRUE(got[4] == expected_[4]) << compact(got[4]);
}

TEST_F(Migration, CheckReportsAdvertisedButMissingAndHiddenFunctions) {
  std::string out = "/tmp/mcpsh-migration-check-" + std::to_string(::getpid());
  std::string cmd = binary_path() + " check " + cinema_dir() + "/cinema.sh >" + out + " 2>&1";
  int status = std::system(cmd.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(out);
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;  // warnings only
  EXPECT_NE(text.find("refund_seats"), std::string::npos) << text;
}

}  // namespace
}  // namespace mcpsh::testing
