// The sandbox through a ProcessRunner: fails closed on a kernel without Landlock (made
// so with a seccomp fault in a forked test host), a launch that cannot make its scratch
// folder does not run, and the scratch folder goes when the run ends.
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>

#include "runner_harness.h"
#include "sandbox/sandbox.h"
#include "syscall_fault.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::in_forked_host;
using testing::install_syscall_fault;

sandbox::Policy words(const std::string& text) {
  auto parsed = sandbox::parse_policy(text, "/");
  if (auto* error = std::get_if<std::string>(&parsed)) ADD_FAILURE() << *error;
  return std::get<sandbox::Policy>(parsed);
}

TEST(SandboxRunner, AKernelWithoutLandlockRunsNothingThatNeedsIt) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "not under ThreadSanitizer (threads started in a forked child)";
#endif
  const std::string result = in_forked_host([]() -> std::string {
    if (!install_syscall_fault({SYS_landlock_create_ruleset, ENOSYS, {}})) return "SKIP";
    auto box = sandbox::Sandbox::prepare({words("read-only")});
    if (!box) return "no sandbox prepared";
    if (box->unavailable().find("this kernel has no Landlock") == std::string::npos)
      return "unavailable() says: \"" + box->unavailable() + "\"";
    boost::asio::io_context io;
    ProcessRunner runner(io);
    LaunchSpec spec = bash("echo ran");
    spec.confinement.sandbox = box;
    testing::Report r = testing::run_to_end(io, runner, spec);
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kFailedToStart)
      return "it ran: " + describe_ending(*r.outcome) + " " + r.outcome->stdout_head;
    // no-network alone is held by seccomp: it still runs there.
    auto seccomp_only = sandbox::Sandbox::prepare({words("no-network")});
    if (!seccomp_only || !seccomp_only->unavailable().empty()) return "no-network refused";
    spec = bash("echo ran");
    spec.confinement.sandbox = seccomp_only;
    r = testing::run_to_end(io, runner, spec);
    if (!r.outcome || r.outcome->stdout_head != "ran\n") return "no-network alone did not run";
    return "";
  });
  if (result == "SKIP") GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(result, "");
}

TEST(SandboxRunner, TheScratchFolderIsTheRunsTmpdirAndGoesWithIt) {
  auto box = sandbox::Sandbox::prepare({words("read-only")});
  ASSERT_TRUE(box);
  if (!box->unavailable().empty()) GTEST_SKIP() << box->unavailable();
  boost::asio::io_context io;
  ProcessRunner runner(io);
  LaunchSpec spec = bash("echo kept > \"$TMPDIR/a\" && mkdir \"$TMPDIR/d\" && echo \"$TMPDIR\"");
  spec.confinement.sandbox = box;
  testing::Report r = testing::run_to_end(io, runner, spec);
  ASSERT_TRUE(r.outcome);
  ASSERT_EQ(r.outcome->ending, Ending::kExited) << r.outcome->start_error;
  ASSERT_EQ(r.outcome->exit_code, 0);
  std::string scratch = r.outcome->stdout_head;
  ASSERT_FALSE(scratch.empty());
  scratch.pop_back();
  // Removal is posted to the spawner thread: the loop is driven until it happened.
  EXPECT_TRUE(testing::drive_until(io, [&] { return !std::filesystem::exists(scratch); }));
}

TEST(SandboxRunner, AReadPathThatDoesNotExistFailsTheLaunch) {
  auto box = sandbox::Sandbox::prepare({words("read=/nonexistent/mcpsh-sandbox-test")});
  ASSERT_TRUE(box);
  if (!box->unavailable().empty()) GTEST_SKIP() << box->unavailable();
  boost::asio::io_context io;
  ProcessRunner runner(io);
  LaunchSpec spec = bash("echo ran");
  spec.confinement.sandbox = box;
  testing::Report r = testing::run_to_end(io, runner, spec);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kFailedToStart);
  EXPECT_NE(r.outcome->start_error.find("/nonexistent/mcpsh-sandbox-test"), std::string::npos)
      << r.outcome->start_error;
}

TEST(SandboxPolicy, WordsParseAndDescribeThemselves) {
  auto p = words("read-only, no-network");
  EXPECT_TRUE(p.confined_writes);
  EXPECT_EQ(p.network, sandbox::Policy::Network::kNone);
  EXPECT_EQ(sandbox::describe(p), "read-only,no-network");
  auto q = words("write=out,read=/data,connect=443,connect=80,connect=443");
  EXPECT_EQ(sandbox::describe(q), "write=/out,read=/data,connect=80,connect=443");
  auto again = sandbox::parse_policy(sandbox::describe(q), "/");
  ASSERT_TRUE(std::holds_alternative<sandbox::Policy>(again));
  EXPECT_EQ(std::get<sandbox::Policy>(again), q);
  EXPECT_EQ(sandbox::describe(words("none")), "none");
  EXPECT_FALSE(sandbox::Sandbox::prepare({words("none")}));
  auto isolated = words("isolate,read-only");
  EXPECT_TRUE(isolated.isolate);
  EXPECT_FALSE(isolated.procs);
  EXPECT_EQ(sandbox::describe(isolated), "read-only,isolate");
  EXPECT_TRUE(words("isolate").active());
  // procs= implies isolate; the smaller of two caps holds.
  auto capped = words("procs=2048,procs=600");
  EXPECT_TRUE(capped.isolate);
  EXPECT_EQ(capped.procs, 600u);
  EXPECT_EQ(sandbox::describe(capped), "procs=600");
  EXPECT_EQ(std::get<sandbox::Policy>(sandbox::parse_policy("procs=600", "/")), capped);
  // exec=: a name is found on PATH, a path is joined to the base; both kept absolute.
  auto programs = words("exec=bash,exec=bin/tool");
  ASSERT_TRUE(programs.programs);
  ASSERT_EQ(programs.programs->size(), 2u);
  EXPECT_EQ(programs.programs->at(0), sandbox::find_on_path("bash"));
  EXPECT_EQ(programs.programs->at(0).front(), '/');
  EXPECT_EQ(programs.programs->at(1), "/bin/tool");
  EXPECT_TRUE(programs.active());
  EXPECT_EQ(sandbox::describe(programs),
            "exec=" + sandbox::find_on_path("bash") + ",exec=/bin/tool");
}

TEST(SandboxPolicy, BadWordsAreRefusedWithAReason) {
  for (const char* bad :
       {"", "read-only,telepathy", "connect=0", "connect=65536", "connect=http",
        "write=", "none,read-only", "no-network,connect=443", "procs=", "procs=511", "procs=64",
        "procs=-1", "procs=lots", "procs=4194304", "none,isolate", "isolate=yes",
        "exec=", "exec=no-such-program-anywhere-42"}) {
    auto parsed = sandbox::parse_policy(bad, "/");
    ASSERT_TRUE(std::holds_alternative<std::string>(parsed)) << bad;
    EXPECT_EQ(std::get<std::string>(parsed).rfind("sandbox: ", 0), 0u) << bad;
  }
}

}  // namespace
}  // namespace mcpsh::execution
