// Numeric options: every value is checked against its range before it is converted (a
// double beyond an integer's range is undefined behaviour), and a value out of range is a
// usage error with a message naming the option and its range: exit status 2.
#include <gtest/gtest.h>

#include <ostream>

#include "e2e_helpers.h"

namespace mcpsh::testing {
namespace {

struct Rejected {
  std::vector<std::string> args;
  std::string message;  // part of what stderr must say
};

// For test names and failure messages: the arguments, not the struct's bytes.
void PrintTo(const Rejected& r, std::ostream* out) {
  for (const auto& a : r.args) *out << a << " ";
}

class RejectedOption : public ::testing::TestWithParam<Rejected> {};

TEST_P(RejectedOption, IsAUsageErrorThatSaysWhy) {
  auto args = GetParam().args;
  args.push_back(fixture("basic.sh"));
  auto run = run_cli(args);
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find(GetParam().message), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    OutOfRange, RejectedOption,
    ::testing::Values(
        Rejected{{"--max-output", "1e30"}, "--max-output must be between 0 and 1G, got \"1e30\""},
        Rejected{{"--max-output", "2G"}, "--max-output must be between 0 and 1G"},
        Rejected{{"--max-stderr", "1e30"}, "--max-stderr must be between 0 and 1G"},
        Rejected{{"--max-line", "1e30"}, "--max-line must be between 1 and 1G"},
        Rejected{{"--max-line", "0"}, "--max-line must be between 1 and 1G"},
        Rejected{{"--max-output", "k"}, "--max-output needs a size such as 65536"},
        Rejected{{"--memory-limit", "1e30"}, "--memory-limit must be between 1M and 1024T"},
        Rejected{{"--memory-limit", "1000"}, "--memory-limit must be between 1M and 1024T"},
        Rejected{{"--timeout", "1e300"}, "--timeout must be between 0 and 31536000 seconds"},
        Rejected{{"--timeout", "inf"}, "--timeout must be between 0 and 31536000 seconds"},
        Rejected{{"--timeout", "nan"}, "--timeout needs a number of seconds"},
        Rejected{{"--timeout=-1"}, "--timeout must be between 0 and 31536000 seconds"},
        Rejected{{"--timeout", "10s"}, "--timeout needs a number of seconds"},
        Rejected{{"--kill-grace", "1e300"}, "--kill-grace must be between 0 and 3600 seconds"},
        Rejected{{"--heartbeat", "1e300"}, "--heartbeat must be between 0 and 86400 seconds"},
        Rejected{{"--cpu-limit", "1e300"},
                 "--cpu-limit must be a whole number between 1 and 31536000"},
        Rejected{{"--cpu-limit", "1.5"}, "--cpu-limit must be a whole number between 1 and"},
        Rejected{{"--max-concurrency", "1e30"},
                 "--max-concurrency must be a whole number between 1 and 1024"},
        Rejected{{"--max-concurrency", "0"}, "--max-concurrency must be a whole number"},
        Rejected{{"--max-concurrency=-1"}, "--max-concurrency must be a whole number"},
        Rejected{{"--max-concurrency", "99999999999999999999999"},
                 "--max-concurrency must be a whole number"},
        Rejected{{"--warm", "17"}, "--warm must be a whole number between 0 and 16"},
        Rejected{{"--warm=-1"}, "--warm must be a whole number between 0 and 16"},
        Rejected{{"--warm", "1000"}, "--warm must be a whole number between 0 and 16"},
        Rejected{{"--max-queue", "0"}, "--max-queue must be a whole number between 1 and 65536"}),
    [](const ::testing::TestParamInfo<Rejected>& info) {
      return "case" + std::to_string(info.index);
    });

TEST(Options, EveryRangeIncludesItsBounds) {
  auto run =
      run_cli({"list",  "--timeout",   "31536000", "--kill-grace",   "3600",  "--heartbeat",
               "86400", "--cpu-limit", "31536000", "--max-output",   "1G",    "--max-stderr",
               "0",     "--max-line",  "1G",       "--memory-limit", "1024T", "--max-concurrency",
               "1024",  "--warm",      "16",       "--max-queue",    "65536", fixture("basic.sh")});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("\"tools\""), std::string::npos) << run.out;
}

// A tiny positive time limit is a time limit: it used to round to 0, which means "none".
TEST(Options, TinyTimeoutIsNotNoTimeout) {
  auto run = run_cli({"call", "--timeout", "0.0001", fixture("basic.sh"), "--tool", "sleep",
                      "--args", R"({"seconds":2})"});
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("timed out"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace mcpsh::testing
