// execution::ToolExecutor driven by a fake Runner: how a call is handed to a process
// (its own fd 5 file and fd 3 pipe), that every call ends exactly once through on_done
// (also when it cannot start), that callbacks after the executor is gone do nothing, and
// how warm processes are spawned ahead (one per turn of the loop, within the cap).
#include "execution/tool_executor.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mcpsh::execution {
namespace {

// Records what it is asked to start; owns the fds 3 and 5 it is given, like the real one.
struct FakeRunner final : Runner {
  struct Started {
    RunId id;
    LaunchSpec spec;
    RunCallbacks callbacks;
  };
  std::vector<Started> started;
  std::vector<RunId> cancelled;
  RunId next = 1;

  ~FakeRunner() override {
    for (auto& s : started) close_fds(s);
  }
  static void close_fds(Started& s) {
    for (int* fd : {&s.spec.fd3, &s.spec.fd5})
      if (*fd >= 0) ::close(std::exchange(*fd, -1));
  }
  RunId start(const LaunchSpec& spec, RunCallbacks callbacks) override {
    started.push_back({next, spec, std::move(callbacks)});
    return next++;
  }
  void cancel(RunId id) override { cancelled.push_back(id); }
  void set_deadline(RunId, std::chrono::milliseconds) override {}
  void terminate_all(std::chrono::milliseconds) override {}
};

int open_fds() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  while (auto* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 1;  // the directory's own
}

// Lowers the soft RLIMIT_NOFILE so that only `spare` more descriptors can be opened.
struct FdLimit {
  rlimit saved{};
  explicit FdLimit(int spare) {
    ::getrlimit(RLIMIT_NOFILE, &saved);
    std::set<int> open;
    DIR* d = ::opendir("/proc/self/fd");
    while (auto* e = ::readdir(d))
      if (e->d_name[0] != '.' && std::atoi(e->d_name) != ::dirfd(d))
        open.insert(std::atoi(e->d_name));
    ::closedir(d);
    // The limit is the (spare+1)-th free number: exactly `spare` free numbers below it.
    int limit = 0;
    for (int free = 0;; ++limit)
      if (!open.count(limit) && free++ == spare) break;
    rlimit low = saved;
    low.rlim_cur = static_cast<rlim_t>(limit);
    ::setrlimit(RLIMIT_NOFILE, &low);
  }
  ~FdLimit() { ::setrlimit(RLIMIT_NOFILE, &saved); }
};

struct Ends {
  std::vector<Outcome> outcomes;
  CallCallbacks callbacks() {
    CallCallbacks c;
    c.on_done = [this](Outcome o) { outcomes.push_back(std::move(o)); };
    return c;
  }
};

ToolLaunch launch(const std::string& function = "tool_echo",
                  const std::string& args = R"({"a":1})") {
  ToolLaunch l;
  l.script = "/nonexistent/script.sh";
  l.function = function;
  l.arguments_json = args;
  return l;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

ExecutorOptions cold() {
  ExecutorOptions o;
  o.bash = "/bin/bash";
  o.warm_per_script = 0;
  return o;
}

TEST(ToolExecutor, HandsTheCallOverThroughTheProcessesOwnFiles) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  ToolExecutor executor(io, runner, cold());
  executor.run(launch(), ends.callbacks());
  ASSERT_EQ(runner.started.size(), 1u);
  const LaunchSpec& spec = runner.started[0].spec;
  ASSERT_GE(spec.fd5, 0);
  ASSERT_GE(spec.fd3, 0);
  EXPECT_EQ(::lseek(spec.fd5, 0, SEEK_CUR), 0) << "the child reads its file from the start";
  EXPECT_EQ(read_all(spec.fd5), R"({"a":1})");
  // End of file after the name: the host's end of fd 3 is closed already.
  EXPECT_EQ(read_all(spec.fd3), "tool_echo - 0 end\n");
  EXPECT_TRUE(ends.outcomes.empty());
  Outcome o;
  o.ending = Ending::kExited;
  runner.started[0].callbacks.on_done(o);
  ASSERT_EQ(ends.outcomes.size(), 1u);
  EXPECT_EQ(ends.outcomes[0].ending, Ending::kExited);
}

TEST(ToolExecutor, NoDescriptorForThePipeEndsTheCallLaterSayingWhy) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  ToolExecutor executor(io, runner, cold());
  const int before = open_fds();
  RunId id = 0;
  {
    FdLimit limit(1);  // not enough for a pipe
    id = executor.run(launch(), ends.callbacks());
  }
  EXPECT_EQ(id, 0u);
  EXPECT_TRUE(runner.started.empty());
  EXPECT_TRUE(ends.outcomes.empty()) << "on_done must not be called from inside run()";
  io.run();
  ASSERT_EQ(ends.outcomes.size(), 1u);
  EXPECT_EQ(ends.outcomes[0].ending, Ending::kFailedToStart);
  EXPECT_NE(ends.outcomes[0].start_error.find("pipe2"), std::string::npos)
      << ends.outcomes[0].start_error;
  EXPECT_NE(ends.outcomes[0].start_error.find("Too many open files"), std::string::npos)
      << ends.outcomes[0].start_error;
  EXPECT_EQ(open_fds(), before);
  executor.cancel(id);  // nothing to cancel
  EXPECT_TRUE(runner.cancelled.empty());
}

TEST(ToolExecutor, NoDescriptorForTheArgumentsFileEndsTheCallSayingWhy) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  ToolExecutor executor(io, runner, cold());
  const int before = open_fds();
  {
    FdLimit limit(2);  // the pipe, and nothing more
    executor.run(launch(), ends.callbacks());
  }
  EXPECT_TRUE(runner.started.empty());
  io.run();
  ASSERT_EQ(ends.outcomes.size(), 1u);
  EXPECT_EQ(ends.outcomes[0].ending, Ending::kFailedToStart);
  EXPECT_NE(ends.outcomes[0].start_error.find("memfd_create"), std::string::npos)
      << ends.outcomes[0].start_error;
  EXPECT_EQ(open_fds(), before) << "the pipe made for the call must be closed";
}

TEST(ToolExecutor, AWarmProcessThatDiedUnderUsIsReplacedByAFreshOne) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  ExecutorOptions options = cold();
  options.warm_per_script = 1;
  ToolExecutor executor(io, runner, options);
  executor.warm({launch().script});
  io.poll();
  ASSERT_EQ(runner.started.size(), 1u);
  FakeRunner::close_fds(runner.started[0]);  // it died: writing its fd 3 gets EPIPE
  ::signal(SIGPIPE, SIG_IGN);                // as the host does

  executor.run(launch(), ends.callbacks());
  ASSERT_EQ(runner.started.size(), 2u);
  EXPECT_EQ(read_all(runner.started[1].spec.fd3), "tool_echo - 0 end\n");
  Outcome died;
  died.ending = Ending::kExited;
  died.exit_code = 3;
  runner.started[0].callbacks.on_done(died);  // expected, and not the call's
  EXPECT_TRUE(ends.outcomes.empty());
  Outcome ok;
  ok.ending = Ending::kExited;
  runner.started[1].callbacks.on_done(ok);
  ASSERT_EQ(ends.outcomes.size(), 1u);
  EXPECT_EQ(ends.outcomes[0].exit_code, 0);
}

TEST(ToolExecutor, CallbacksAfterTheExecutorIsGoneDoNothing) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  std::vector<std::string> lines;
  {
    ExecutorOptions options = cold();
    options.warm_per_script = 1;
    ToolExecutor executor(io, runner, options);
    CallCallbacks c = ends.callbacks();
    c.on_stderr_line = [&](std::string line) { lines.push_back(std::move(line)); };
    executor.run(launch(), std::move(c));
    executor.warm({WarmTarget("/nonexistent/other.sh")});
  }
  ASSERT_EQ(runner.started.size(), 1u);
  auto& callbacks = runner.started[0].callbacks;
  callbacks.on_stderr_line("late");
  callbacks.on_channel_line("log\tinfo\tlate");
  Outcome o;
  o.ending = Ending::kExited;
  callbacks.on_done(o);
  io.restart();
  io.run();  // the posted spawn ahead finds nothing to do
  EXPECT_TRUE(ends.outcomes.empty());
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(runner.started.size(), 1u);
}

TEST(ToolExecutor, WarmProcessesAreSpawnedOnePerTurnUpToTheCap) {
  boost::asio::io_context io;
  FakeRunner runner;
  Ends ends;
  ExecutorOptions options = cold();
  options.warm_per_script = 1000;
  ToolExecutor executor(io, runner, options);
  executor.warm({launch().script});  // 1000 do not fit under the cap: not warmed ahead
  io.poll();
  EXPECT_TRUE(runner.started.empty());

  executor.run(launch(), ends.callbacks());  // called: warmed once this call ends
  ASSERT_EQ(runner.started.size(), 1u);
  io.poll();
  EXPECT_EQ(runner.started.size(), 1u) << "nothing is spawned ahead while the call runs";
  Outcome o;
  o.ending = Ending::kExited;
  runner.started[0].callbacks.on_done(o);
  ASSERT_EQ(ends.outcomes.size(), 1u);
  EXPECT_EQ(runner.started.size(), 1u) << "spawning waits for a later turn of the loop";
  io.restart();  // the polls above ran out of work, which stops an io_context
  for (std::size_t before = runner.started.size(); io.poll_one() > 0;
       before = runner.started.size())
    EXPECT_LE(runner.started.size(), before + 1) << "at most one spawn per turn";
  EXPECT_EQ(executor.idle_warm(), 64u);
  EXPECT_EQ(runner.started.size(), 65u);
}

TEST(ToolExecutor, FewScriptsAreWarmedWhenListedManyOnlyOnceCalled) {
  boost::asio::io_context io;
  FakeRunner runner;
  ExecutorOptions options = cold();
  options.warm_per_script = 2;
  {
    ToolExecutor executor(io, runner, options);
    executor.warm({WarmTarget("/a.sh"), WarmTarget("/b.sh"), WarmTarget("/c.sh"),
                   WarmTarget("/d.sh")});  // 8: within the cap of 8
    io.poll();
    EXPECT_EQ(executor.idle_warm(), 8u);
  }
  FakeRunner many_runner;
  ToolExecutor executor(io, many_runner, options);
  std::vector<WarmTarget> scripts;
  for (int i = 0; i < 200; ++i) scripts.emplace_back("/s" + std::to_string(i) + ".sh");
  executor.warm(scripts);
  io.poll();
  EXPECT_EQ(executor.idle_warm(), 0u);
  EXPECT_TRUE(many_runner.started.empty());
}

TEST(ToolExecutor, RetiringClosesTheWaitingProcessesFiles) {
  boost::asio::io_context io;
  FakeRunner runner;
  ExecutorOptions options = cold();
  options.warm_per_script = 1;
  ToolExecutor executor(io, runner, options);
  executor.warm({WarmTarget("/a.sh")});
  io.poll();
  ASSERT_EQ(runner.started.size(), 1u);
  executor.retire_warm();
  EXPECT_EQ(read_all(runner.started[0].spec.fd3), "") << "end of file: no call is coming";
  EXPECT_EQ(executor.idle_warm(), 0u);
  io.poll();
  EXPECT_EQ(runner.started.size(), 1u);
}

}  // namespace
}  // namespace mcpsh::execution
