// Schemas at the edges of a call: arguments checked against inputSchema before anything
// runs, output checked against outputSchema, invalid tool schemas refused at start-up.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host_process.h"

namespace mcpsh::testing {
namespace {

namespace fs = std::filesystem;

class Schemas : public ::testing::Test {
 protected:
  void SetUp() override {
    marker_dir_ = fs::temp_directory_path() / ("mcpsh-schemas-" + std::to_string(::getpid()));
    fs::create_directories(marker_dir_);
    HostOptions options;
    options.env = {{"MARKER_DIR", marker_dir_.string()}};
    host_ = std::make_unique<HostProcess>(
        std::vector<std::string>{"--warm", "0", fixture("schemas.sh")}, options);
  }
  void TearDown() override { fs::remove_all(marker_dir_); }

  rapidjson::Document call(const std::string& tool, const std::string& args) {
    host_->send(call_request("1", tool, args));
    return parse(host_->read_line().value_or(""));
  }

  fs::path marker_dir_;
  std::unique_ptr<HostProcess> host_;
};

TEST_F(Schemas, ViolationsAreAnIsErrorResultListingEachWithItsPathAndTheToolDoesNotRun) {
  auto r = call("book", R"({"numTickets":"two","seats":[{"row":"A"},{"row":3}],"extra":1})");
  ASSERT_TRUE(r.HasMember("result")) << "input validation is a tool error, not a JSON-RPC error";
  EXPECT_TRUE(is_error_result(r));
  EXPECT_FALSE(r["result"].HasMember("structuredContent"));
  std::string text = result_text(r);
  EXPECT_NE(text.find("numTickets: expected integer, got string \"two\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("missing required property \"showTime\""), std::string::npos) << text;
  EXPECT_NE(text.find("seats[1].row: expected string, got integer 3"), std::string::npos) << text;
  EXPECT_NE(text.find("extra"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(marker_dir_ / "book-ran")) << "the tool must not start";
}

TEST_F(Schemas, BoundsAndPatternsAreChecked) {
  auto r = call("book", R"({"numTickets":11,"showTime":"7pm"})");
  std::string text = result_text(r);
  EXPECT_TRUE(is_error_result(r));
  EXPECT_NE(text.find("numTickets: must be at most 10"), std::string::npos) << text;
  EXPECT_NE(text.find("showTime"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(marker_dir_ / "book-ran"));
}

TEST_F(Schemas, ValidArgumentsRunTheTool) {
  auto r = call("book", R"({"numTickets":2,"showTime":"18:30","seats":[{"row":"A"}]})");
  EXPECT_FALSE(is_error_result(r));
  EXPECT_EQ(result_text(r), "booked");
  EXPECT_TRUE(fs::exists(marker_dir_ / "book-ran"));
}

TEST_F(Schemas, ConformingJsonOutputBecomesStructuredContentAndText) {
  auto r = call("price", "{}");
  ASSERT_TRUE(r.HasMember("result"));
  EXPECT_FALSE(is_error_result(r));
  ASSERT_TRUE(r["result"].HasMember("structuredContent"));
  EXPECT_EQ(r["result"]["structuredContent"]["total"].GetDouble(), 12.5);
  auto text = parse(result_text(r));
  ASSERT_TRUE(text.IsObject()) << "the text block carries the same JSON";
  EXPECT_EQ(text["total"].GetDouble(), 12.5);
}

TEST_F(Schemas, OutputThatIsNotJsonIsAnErrorWithoutStructuredContent) {
  auto r = call("not_json", "{}");
  EXPECT_TRUE(is_error_result(r));
  EXPECT_FALSE(r["result"].HasMember("structuredContent"));
  EXPECT_NE(result_text(r).find("not JSON"), std::string::npos) << result_text(r);
}

TEST_F(Schemas, OutputThatViolatesTheOutputSchemaIsAnError) {
  auto r = call("wrong_shape", "{}");
  EXPECT_TRUE(is_error_result(r));
  EXPECT_FALSE(r["result"].HasMember("structuredContent"));
  EXPECT_NE(result_text(r).find("total: expected number, got string \"twelve\""), std::string::npos)
      << result_text(r);
}

TEST_F(Schemas, AFailingToolNeverCarriesStructuredContent) {
  auto r = call("fails_structured", "{}");
  EXPECT_TRUE(is_error_result(r));
  EXPECT_FALSE(r["result"].HasMember("structuredContent"));
}

TEST_F(Schemas, AToolWithAnInvalidSchemaIsReportedAndNotServed) {
  host_->send(request("1", "tools/list"));
  auto list = parse(host_->read_line().value_or(""));
  ASSERT_TRUE(list.HasMember("result"));
  for (const auto& tool : list["result"]["tools"].GetArray())
    EXPECT_STRNE(tool["name"].GetString(), "bad_schema");
  auto r = call("bad_schema", "{}");
  ASSERT_TRUE(r.HasMember("error"));
  EXPECT_EQ(r["error"]["code"].GetInt(), -32602);
  host_->close_stdin();
  host_->wait_exit();
  std::string log = host_->stderr_text();
  EXPECT_NE(log.find("bad_schema"), std::string::npos) << log;
  EXPECT_NE(log.find("minimum"), std::string::npos) << log;
}

TEST(SchemasCheck, CheckNamesTheToolWithAnInvalidSchemaAndFails) {
  std::string out =
      (fs::temp_directory_path() / ("mcpsh-schemas-check-" + std::to_string(::getpid()))).string();
  int status = std::system(
      (binary_path() + " check " + fixture("schemas.sh") + " >" + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(out);
  EXPECT_EQ(WEXITSTATUS(status), 1) << text;
  EXPECT_NE(text.find("bad_schema"), std::string::npos) << text;
  EXPECT_NE(text.find("invalid inputSchema"), std::string::npos) << text;
}

}  // namespace
}  // namespace mcpsh::testing
