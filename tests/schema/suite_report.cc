// Prints the JSON Schema Test Suite pass rate per file and in total (scripts/schema-suite).
// Usage: schema_suite_report [--dialect 2020-12|2019-09|draft-07] [--verbose] [folder]
// Exit status 1 when a case fails that is not a listed expected failure.
#include <cstdio>
#include <cstring>
#include <string>

#include "suite_runner.h"

using mcpsh::schema::Dialect;
namespace t = mcpsh::schema::testing;

int main(int argc, char** argv) {
  std::string folder = MCPSH_SCHEMA_SUITE_DIR;
  Dialect dialect = Dialect::kDraft2020_12;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dialect") && i + 1 < argc) {
      std::string d = argv[++i];
      dialect = d == "draft-07"  ? Dialect::kDraft07
                : d == "2019-09" ? Dialect::kDraft2019_09
                                 : Dialect::kDraft2020_12;
    } else if (!std::strcmp(argv[i], "--verbose")) {
      verbose = true;
    } else {
      folder = argv[i];
    }
  }
  auto expected = dialect == Dialect::kDraft2020_12 ? t::expected_failures_2020_12()
                                                    : std::span<const t::ExpectedFailure>{};
  std::string error;
  auto results = t::run_suite(folder, dialect, expected, error);
  if (!error.empty()) {
    std::fprintf(stderr, "schema_suite_report: %s\n", error.c_str());
    return 2;
  }
  int total = 0;
  int passed = 0;
  int unexpected = 0;
  std::printf("%-36s %9s %8s\n", "file", "passed", "rate");
  for (const auto& r : results) {
    total += r.total;
    passed += r.passed;
    unexpected += r.unexpected_failures() + static_cast<int>(r.unexpectedly_passed.size());
    std::printf("%-36s %4d/%-4d %7.1f%%\n", r.file.c_str(), r.passed, r.total,
                r.total ? 100.0 * r.passed / r.total : 100.0);
  }
  std::printf("%-36s %4d/%-4d %7.1f%%\n", "TOTAL", passed, total,
              total ? 100.0 * passed / total : 100.0);
  for (const auto& r : results) {
    for (const auto& c : r.failed) {
      if (!c.expected_reason.empty() && !verbose) continue;
      std::printf("\n%s %s | %s | %s\n", c.expected_reason.empty() ? "FAIL" : "expected-fail",
                  r.file.c_str(), c.group.c_str(), c.test.c_str());
      if (!c.expected_reason.empty())
        std::printf("  reason: %.*s\n", int(c.expected_reason.size()), c.expected_reason.data());
      std::printf("  %s\n", c.detail.c_str());
    }
    for (const auto& c : r.unexpectedly_passed) {
      std::printf("\nPASSED BUT LISTED AS EXPECTED FAILURE %s | %s | %s\n", r.file.c_str(),
                  c.group.c_str(), c.test.c_str());
    }
  }
  std::printf("\n%d cases, %d passed, %d failed (%d not in the expected-failure list)\n", total,
              passed, total - passed, unexpected);
  return unexpected == 0 ? 0 : 1;
}
