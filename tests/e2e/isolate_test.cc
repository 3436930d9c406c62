// The namespace backend (`isolate`, `procs=N`; ADR 0017): real tools through the real
// binary and bwrap. Each check runs the tool twice, once without the word (where what it
// tries must work, so that the test can fail) and once with it (where it must not).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kTools = R"BASH(#!/usr/bin/env bash
arg() { jq -r ".$2 // empty" <<<"$1"; }
tool_processes() { local n=0 p; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo "$n processes, mine is $$"; }
tool_signal() { kill -0 "$(arg "$1" a)" && echo signalled; }
# A daemon named by the argument, in a session of its own with an empty environment: nothing
# ties it to the call any more. The call then waits.
tool_daemon() { env -i setsid /bin/bash -c 'exec -a "$0" sleep 60' "$(arg "$1" a)" </dev/null >/dev/null 2>&1 & sleep 60; }
tool_interfaces() { awk 'NR > 2 { sub(":", "", $1); print $1 }' /proc/net/dev | sort | tr '\n' ' '; }
# Starts up to N sleeping children at once; prints how many it got.
tool_spawn() { perl -e 'my $n = 0; for (1 .. $ARGV[0]) { my $p = fork; last unless defined $p; if (!$p) { sleep 30; exit 0 } $n++ } print "$n\n"' "$(arg "$1" a)"; }
tool_raise_cap() { echo 4000000 > /proc/sys/kernel/pid_max && cat /proc/sys/kernel/pid_max; }
tool_status() { grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr '\n' ' '; }
tool_write() { echo pwned > "$(arg "$1" a)" && echo written; }
tool_graceful() { trap 'echo asked to stop; sleep 0.3; echo stopped cleanly; exit 3' TERM; sleep 30 & wait; }
# Each way of starting a program, and whether it ran: by name, by path, through the ELF
# loader, and a program beside the script (a copy of true, and a script).
tool_programs() {
  local loader here=${BASH_SOURCE[0]%/*}
  for loader in /lib64/ld-linux*.so.* /lib/ld-linux*.so.*; do [[ -e $loader ]] && break; done
  jq -n 1 >/dev/null 2>&1 && echo "jq ran" || echo "jq refused"
  rm --version >/dev/null 2>&1 && echo "rm ran" || echo "rm refused"
  "$loader" /usr/bin/rm --version >/dev/null 2>&1 && echo "loader rm ran" || echo "loader rm refused"
  "$here/true-copy" 2>/dev/null && echo "copy ran" || echo "copy refused"
  "$loader" "$here/true-copy" 2>/dev/null && echo "loader copy ran" || echo "loader copy refused"
  "$here/script.sh" 2>/dev/null || echo "script refused"
}
# @sandbox exec=jq
tool_programs_jq_only() { tool_programs; }
# An anonymous file made by an allowed interpreter, which could hold any program.
tool_memfd() { perl -e '$n = "x"; $fd = syscall(319, $n, 0); die "memfd_create: $!\n" if $fd < 0; print "made\n"'; }
# Writes into a library folder, which stays executable under exec= and isolate.
tool_write_library() { echo x > "/usr/lib/$(arg "$1" a)" && echo written; }
# The classic: each copy starts two more, forever.
tool_bomb() { export BOMB_MARK=$(arg "$1" a); bomb() { bomb | bomb & }; bomb; sleep 60; }
)BASH";

struct Attempt {
  bool ok = false;
  std::string text;
  std::string raw;
};

bool kernel_at_least(unsigned want_major, unsigned want_minor) {
  utsname u{};
  unsigned major = 0, minor = 0;
  return ::uname(&u) == 0 && std::sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
         (major > want_major || (major == want_major && minor >= want_minor));
}

// The processes on this machine whose environment holds `needle_in_environ`.
int count_processes(const std::string& needle_in_environ) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string env = read_proc_file(entry.path() / "environ");
    if (env.find(needle_in_environ) != std::string::npos) ++n;
  }
  return n;
}

class Isolate : public ::testing::Test {
 protected:
  exec::ScratchDir dir;
  std::string script;

  void SetUp() override {
    script = dir / "tools.sh";
    std::ofstream(script) << kTools;
    fs::create_directories(dir / "outside");
  }

  Attempt call(const std::string& tool, const std::string& a, std::vector<std::string> extra = {},
               std::chrono::milliseconds timeout = 30s) {
    std::vector<std::string> args{"call", script,   "--tool",
                                  tool,   "--args", R"({"a":")" + a + R"("})"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = run_cli(args, {}, timeout);
    Attempt out;
    out.raw = run.out + run.err;
    auto d = parse_strict(run.out);
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("content")) {
      out.text = "(no result) " + out.raw;
      return out;
    }
    out.ok = !(d.HasMember("isError") && d["isError"].IsTrue());
    out.text = d["content"][0]["text"].GetString();
    return out;
  }
};

const std::vector<std::string> kIsolate{"--sandbox", "isolate"};

TEST_F(Isolate, AToolSeesOnlyTheProcessesOfItsCall) {
  auto free = call("processes", "");
  ASSERT_TRUE(free.ok) << free.raw;
  auto boxed = call("processes", "", kIsolate);
  ASSERT_TRUE(boxed.ok) << boxed.raw;
  // bwrap's init, the tool's bash and the subshell of the count (/proc lists itself too).
  int free_count = 0, boxed_count = 0, boxed_pid = 0;
  ASSERT_EQ(std::sscanf(free.text.c_str(), "%d", &free_count), 1) << free.text;
  ASSERT_EQ(std::sscanf(boxed.text.c_str(), "%d processes, mine is %d", &boxed_count, &boxed_pid),
            2)
      << boxed.text;
  EXPECT_GT(free_count, boxed_count) << free.text;
  EXPECT_LE(boxed_count, 4) << boxed.text;
  EXPECT_LE(boxed_pid, 4) << "a PID of the namespace: " << boxed.text;
}

TEST_F(Isolate, AProcessOutsideTheCallCannotBeSignalled) {
  const pid_t victim = ::fork();
  ASSERT_GE(victim, 0);
  if (victim == 0) {
    ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto free = call("signal", std::to_string(victim));
  auto boxed = call("signal", std::to_string(victim), kIsolate);
  ::kill(victim, SIGKILL);
  ::waitpid(victim, nullptr, 0);
  EXPECT_TRUE(free.ok) << free.raw;
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_NE(boxed.text.find("No such process"), std::string::npos) << boxed.text;
}

// The host kills what a call leaves behind while it lives (ADR 0004). Killed itself, it
// leaves that to its watchdog, which finds processes by the cookie in their environment:
// a daemon that cleared its environment is out of its reach, but not out of the call's
// PID namespace, which ends with the host.
TEST_F(Isolate, ADaemonWithACleanEnvironmentEndsWithAKilledHost) {
  auto daemon_left = [&](const std::vector<std::string>& sandbox) {
    const std::string tag = exec::unique_tag("isolate-daemon");
    exec::TagCleanup cleanup(tag);
    std::vector<std::string> args = sandbox;
    args.push_back(script);
    HostProcess host(args);
    host.send(call_request("1", "daemon", R"({"a":")" + tag + R"("})"));
    // The command line the daemon has once it is the sleep (before, it is env's, setsid's
    // and bash's, each holding the tag).
    const std::string daemon = tag + " 60";
    bool started = false;
    for (int i = 0; i < 1000 && !started; ++i) {
      started = !processes_matching(daemon).empty();
      if (!started) std::this_thread::sleep_for(10ms);
    }
    if (!started) {
      ADD_FAILURE() << "the daemon never started: " << host.stderr_text();
      return false;
    }
    host.signal(SIGKILL);
    host.wait_exit();
    for (int i = 0; i < 100 && !processes_matching(daemon).empty(); ++i)
      std::this_thread::sleep_for(20ms);
    return !processes_matching(daemon).empty();
  };
  EXPECT_TRUE(daemon_left({"--sandbox", "read-only"})) << "the test must be able to fail";
  EXPECT_FALSE(daemon_left({"--sandbox", "isolate"}));
}

// bwrap stands between the host and the tool; SIGTERM must still reach the tool first, and
// leave it its grace period, as without isolate.
TEST_F(Isolate, ATimedOutToolStillGetsItsGracePeriod) {
  for (const auto& words : {std::string("read-only"), std::string("isolate")}) {
    auto stopped = call("graceful", "", {"--sandbox", words, "--timeout", "1"});
    EXPECT_FALSE(stopped.ok) << stopped.raw;
    EXPECT_NE(stopped.text.find("asked to stop\nstopped cleanly"), std::string::npos)
        << words << ": " << stopped.text;
  }
}

TEST_F(Isolate, NoNetworkGetsANetworkOfItsOwn) {
  auto free = call("interfaces", "", {"--sandbox", "isolate"});
  ASSERT_TRUE(free.ok) << free.raw;
  auto boxed = call("interfaces", "", {"--sandbox", "isolate,no-network"});
  ASSERT_TRUE(boxed.ok) << boxed.raw;
  EXPECT_EQ(boxed.text, "lo ") << "only a loopback of its own";
  EXPECT_NE(free.text, "lo ") << "isolate alone keeps the host's network: " << free.text;
}

TEST_F(Isolate, TheOtherWordsStillHoldInside) {
  const std::string target = dir / "outside/file";
  auto boxed = call("write", target, {"--sandbox", "isolate,read-only"});
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_FALSE(fs::exists(target));
  // read= confines reads; the namespace's own /proc stays readable, and no_new_privs and
  // the seccomp filter are in place.
  auto status = call("status", "", {"--sandbox", "isolate,read=" + dir.path});
  ASSERT_TRUE(status.ok) << status.raw;
  EXPECT_EQ(status.text, "NoNewPrivs:\t1 Seccomp:\t2 ");
  auto written = call("write", target, kIsolate);
  EXPECT_TRUE(written.ok) << "isolate alone confines no writes: " << written.raw;
}

TEST_F(Isolate, ProcsHoldsTheNumberOfProcessesAndAForkBomb) {
  if (!kernel_at_least(6, 14)) GTEST_SKIP() << "procs= needs Linux 6.14 (the host refuses it)";
  auto free = call("spawn", "700", kIsolate);
  ASSERT_TRUE(free.ok) << free.raw;
  EXPECT_EQ(free.text, "700") << "isolate alone caps nothing";
  auto capped = call("spawn", "700", {"--sandbox", "procs=512"});
  ASSERT_TRUE(capped.ok) << capped.raw;
  int started = 0;
  ASSERT_EQ(std::sscanf(capped.text.c_str(), "%d", &started), 1) << capped.text;
  EXPECT_LT(started, 512) << "at most 512 processes, the tool's own included";
  EXPECT_GT(started, 400);
  if (started >= 512) return;  // no fork bomb without a cap that holds

  // The classic fork bomb, under the cap and a 3 s timeout: the call ends as a timeout and
  // nothing of it is left.
  const std::string mark = "BOMB_MARK=isolate-test-" + std::to_string(::getpid());
  const auto began = std::chrono::steady_clock::now();
  auto bomb = call("bomb", mark.substr(10), {"--sandbox", "procs=512", "--timeout", "3"}, 60s);
  EXPECT_FALSE(bomb.ok) << bomb.raw;
  EXPECT_NE(bomb.text.find("timed out"), std::string::npos) << bomb.text;
  EXPECT_LT(std::chrono::steady_clock::now() - began, 30s);
  int left = -1;
  for (int i = 0; i < 50 && left != 0; ++i) {
    left = count_processes(mark);
    if (left) std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(left, 0);
}

TEST_F(Isolate, AToolCannotRaiseItsCap) {
  if (!kernel_at_least(6, 14)) GTEST_SKIP() << "procs= needs Linux 6.14 (the host refuses it)";
  auto free = call("raise_cap", "", kIsolate);
  if (::geteuid() == 0) {
    EXPECT_TRUE(free.ok) << "root may write its namespace's: " << free.raw;
  }
  auto capped = call("raise_cap", "", {"--sandbox", "procs=600"});
  EXPECT_FALSE(capped.ok) << capped.raw;
  EXPECT_NE(capped.text.find("Read-only file system"), std::string::npos) << capped.text;
}

TEST_F(Isolate, ExecLetsOnlyTheNamedProgramsRun) {
  fs::copy_file("/usr/bin/true", dir / "true-copy");
  std::ofstream(dir / "script.sh") << "#!/bin/bash\necho script ran\n";
  fs::permissions(dir / "script.sh", fs::perms::owner_all);
  auto free = call("programs", "");
  ASSERT_TRUE(free.ok) << free.raw;
  EXPECT_EQ(free.text, "jq ran\nrm ran\nloader rm ran\ncopy ran\nloader copy ran\nscript ran");
  // Landlock alone: the loader, run by hand, maps any program it can read (ADR 0017).
  auto landlock = call("programs", "", {"--sandbox", "exec=jq"});
  ASSERT_TRUE(landlock.ok) << landlock.raw;
  EXPECT_EQ(landlock.text,
            "jq ran\nrm refused\nloader rm ran\ncopy refused\nloader copy ran\nscript refused");
  // Under isolate every mount but the libraries' is noexec: the loader cannot map them.
  auto isolated = call("programs", "", {"--sandbox", "isolate,exec=jq"});
  ASSERT_TRUE(isolated.ok) << isolated.raw;
  EXPECT_EQ(isolated.text,
            "jq ran\nrm refused\nloader rm refused\ncopy refused\nloader copy "
            "refused\nscript refused");
  // A tool's own exec= narrows the server's list.
  auto server = call("programs", "", {"--sandbox", "exec=jq,exec=rm"});
  EXPECT_NE(server.text.find("\nrm ran"), std::string::npos) << server.text;
  auto narrowed = call("programs_jq_only", "", {"--sandbox", "exec=jq,exec=rm"});
  EXPECT_NE(narrowed.text.find("\nrm refused"), std::string::npos) << narrowed.text;
  // Under isolate only what every layer allows is executable again: not through the
  // loader either.
  auto narrowed_isolated = call("programs_jq_only", "", {"--sandbox", "isolate,exec=jq,exec=rm"});
  EXPECT_NE(narrowed_isolated.text.find("\nrm refused\nloader rm refused"), std::string::npos)
      << narrowed_isolated.text;
  // No anonymous file to exec, and no file put where libraries may run from.
  auto memfd = call("memfd", "");
  EXPECT_TRUE(memfd.ok) << memfd.raw;
  auto no_memfd = call("memfd", "", {"--sandbox", "exec=perl"});
  EXPECT_FALSE(no_memfd.ok) << no_memfd.raw;
  EXPECT_NE(no_memfd.text.find("memfd_create: Operation not permitted"), std::string::npos)
      << no_memfd.text;
  const std::string planted = "mcpsh-isolate-test-" + std::to_string(::getpid());
  auto library = call("write_library", planted, {"--sandbox", "isolate,exec=jq"});
  std::error_code ignored;
  const bool planted_there = fs::remove("/usr/lib/" + planted, ignored);
  EXPECT_FALSE(library.ok) << library.raw;
  EXPECT_FALSE(planted_there);
  auto bad = run_cli({"check", script, "--sandbox", "exec=no-such-program-here"});
  EXPECT_NE(bad.err.find("exec=no-such-program-here: no such program on PATH"), std::string::npos)
      << bad.out << bad.err;
}

// A host that is not root: bwrap makes a user namespace first, and confine_exec drops the
// capability it was given there for procs= and exec=. Run as nobody when the test runs as
// root.
TEST_F(Isolate, AHostThatIsNotRootGetsTheSame) {
  if (::geteuid() != 0) GTEST_SKIP() << "switches to nobody, which needs root";
  if (!kernel_at_least(6, 14)) GTEST_SKIP() << "procs= needs Linux 6.14 (the host refuses it)";
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  const std::string probe = dir / "probe.sh";
  std::ofstream(probe) << R"BASH(
tool_probe() {
  local n=0 p; for p in /proc/[0-9]*; do n=$((n + 1)); done
  echo "uid=$(id -u) processes=$n caps=$(awk '/^CapEff/ { print $2 }' /proc/self/status)"
  echo 4000000 > /proc/sys/kernel/pid_max 2>/dev/null && echo raised
  rm --version >/dev/null 2>&1 && echo "rm ran"
  perl -e 'my $n = 0; for (1 .. 700) { my $p = fork; last unless defined $p; if (!$p) { sleep 30; exit 0 } $n++ } print "started=$n\n"'
}
)BASH";
  fs::permissions(probe, fs::perms::owner_all | fs::perms::others_read | fs::perms::group_read);
  // A copy nobody can reach: the build folder may lie below one only its owner may enter
  // (a checkout in a home folder, or in a mktemp -d folder).
  const std::string binary = dir / "mcp-shell-host";
  fs::copy_file(MCPSH_BINARY, binary, fs::copy_options::overwrite_existing);
  fs::permissions(binary, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const std::string command =
      "setpriv --reuid 65534 --regid 65534 --clear-groups env TMPDIR=/tmp " + binary + " call " +
      probe + " --tool probe --args '{}' --sandbox procs=512,exec=id,exec=awk,exec=perl 2>" +
      (dir / "host.err");
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    ::pclose(pipe);
  }
  auto d = parse_strict(out);
  ASSERT_TRUE(!d.HasParseError() && d.IsObject() && d.HasMember("content"))
      << out << std::ifstream(dir / "host.err").rdbuf();
  EXPECT_FALSE(d.HasMember("isError") && d["isError"].IsTrue()) << out;
  const std::string text = d["content"][0]["text"].GetString();
  EXPECT_EQ(text.rfind("uid=65534 processes=2 caps=0000000000000000\n", 0), 0u) << text;
  EXPECT_EQ(text.find("raised"), std::string::npos) << text;
  EXPECT_EQ(text.find("rm ran"), std::string::npos) << text;
  int started = 0;
  const auto at = text.find("started=");
  ASSERT_NE(at, std::string::npos) << text;
  started = std::stoi(text.substr(at + 8));
  EXPECT_LT(started, 512) << text;
  EXPECT_GT(started, 400) << text;
}

// The binary that runs inside bwrap is the host's own, even once its file is gone (a
// package upgrade replaced it): it is handed on open.
TEST_F(Isolate, ADeletedHostBinaryStillRunsItsTools) {
  const std::string copy = dir / "host-copy";
  fs::copy_file(MCPSH_BINARY, copy);
  fs::permissions(copy, fs::perms::owner_all);
  const std::string command = "{ sleep 1; rm -f " + copy + "; printf '%s\\n' '" +
                              call_request("1", "processes", "{}") + "'; } | " + copy +
                              " --warm 0 --sandbox isolate " + script + " 2>/dev/null";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    ::pclose(pipe);
  }
  EXPECT_FALSE(fs::exists(copy));
  EXPECT_NE(out.find("processes, mine is"), std::string::npos) << out;
  EXPECT_EQ(out.find("isError"), std::string::npos) << out;
}

// --confine-exec is the host's own step inside bwrap; run by hand it does nothing.
TEST_F(Isolate, ConfineExecRefusesToRunOutsideASandbox) {
  auto run = run_cli({"--confine-exec", "-", "0", "600", "-", "--", "/bin/true"});
  EXPECT_EQ(run.status, 125);
  EXPECT_NE(run.err.find("runs only as the command of an isolate sandbox"), std::string::npos)
      << run.err;
}

TEST_F(Isolate, WithoutBwrapTheToolDoesNotRun) {
  // A PATH with bash and jq, and no bwrap.
  fs::create_directories(dir / "bin");
  for (const char* program : {"bash", "jq", "env"})
    fs::create_symlink(fs::path("/usr/bin") / program, fs::path(dir / "bin") / program);
  HostOptions options;
  options.env.emplace_back("PATH", dir / "bin");
  auto run = run_cli(
      {"call", script, "--tool", "processes", "--args", "{}", "--sandbox", "isolate"}, options);
  auto d = parse_strict(run.out);
  ASSERT_TRUE(d.IsObject() && d.HasMember("isError")) << run.out << run.err;
  EXPECT_TRUE(d["isError"].IsTrue());
  const std::string text = d["content"][0]["text"].GetString();
  EXPECT_NE(text.find("needs bwrap"), std::string::npos) << text;
}

TEST_F(Isolate, CheckSaysWhatAToolGets) {
  auto run = run_cli({"check", script, "--sandbox", "isolate,no-network"});
  EXPECT_NE(run.out.find("bwrap namespaces (pid, ipc, uts, net)"), std::string::npos)
      << run.out << run.err;
}

}  // namespace
}  // namespace mcpsh::testing
