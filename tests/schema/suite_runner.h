// Runs the official JSON Schema Test Suite (one folder of *.json files) through
// CompiledSchema, for the suite gtest and for scripts/schema-suite.
//
// Contract: a case passes when the schema compiles and both validate().empty() and
// accepts() equal the case's "valid". Cases of groups listed as expected failures are
// counted separately; such a case that passes is reported too, so the list stays true.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schema/json_schema.h"

namespace mcpsh::schema::testing {

struct ExpectedFailure {
  std::string_view file;   // e.g. "refRemote.json"; group "*" = every group of the file
  std::string_view group;  // the group's "description"
  std::string_view reason;
};

struct CaseOutcome {
  std::string group;
  std::string test;
  std::string detail;                // compile error or the violations
  std::string_view expected_reason;  // non-empty when listed as an expected failure
};

struct FileResult {
  std::string file;
  int total = 0;
  int passed = 0;
  std::vector<CaseOutcome> failed;  // all failures, expected or not
  std::vector<CaseOutcome> unexpectedly_passed;
  int unexpected_failures() const;
};

// The 2020-12 cases this validator is known not to pass, with reasons.
std::span<const ExpectedFailure> expected_failures_2020_12();

// Empty vector plus `error` set when the folder cannot be read.
std::vector<FileResult> run_suite(const std::filesystem::path& folder, Dialect dialect,
                                  std::span<const ExpectedFailure> expected, std::string& error);

}  // namespace mcpsh::schema::testing
