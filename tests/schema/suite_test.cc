// Every case of the official JSON Schema Test Suite (draft 2020-12, required tests),
// except the listed expected failures (see suite_runner.cc), must pass.
#include <gtest/gtest.h>

#include <string>

#include "suite_runner.h"

namespace mcpsh::schema::testing {
namespace {

TEST(JsonSchemaTestSuite, Draft2020_12) {
  // Vendored (tests/vendor/json-schema-test-suite): missing files are a failure, never a skip.
  const std::filesystem::path folder = MCPSH_SCHEMA_SUITE_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(folder))
      << "JSON Schema Test Suite not found at " << folder;
  std::string error;
  auto results = run_suite(folder, Dialect::kDraft2020_12, expected_failures_2020_12(), error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_FALSE(results.empty()) << "no test files in " << folder;
  int total = 0;
  for (const auto& file : results) {
    total += file.total;
    for (const auto& c : file.failed) {
      if (!c.expected_reason.empty()) continue;
      ADD_FAILURE() << file.file << " | " << c.group << " | " << c.test << "\n  " << c.detail;
    }
    for (const auto& c : file.unexpectedly_passed) {
      ADD_FAILURE() << "passes but is listed as an expected failure (update the list): "
                    << file.file << " | " << c.group << " | " << c.test;
    }
  }
  EXPECT_GT(total, 1000);
}

}  // namespace
}  // namespace mcpsh::schema::testing
