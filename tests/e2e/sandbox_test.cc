// Escape attempts: each a real tool, run through the real binary (`call`), that tries to
// get out of the sandbox it was given. Every attempt is made twice, without a sandbox
// (where it must succeed, so that the test can fail) and with one (where it must not).
// The tools are written into a fresh folder per test; what they attack lives beside it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Each tool takes {"a": ..., "b": ...} and does one thing with them; the output says what
// happened, and a refused operation fails the tool (its stderr reaches the result).
constexpr const char* kTools = R"BASH(#!/usr/bin/env bash
arg() { jq -r ".$2 // empty" <<<"$1"; }
tool_write() { echo pwned > "$(arg "$1" a)" && echo written; }
tool_append() { echo pwned >> "$(arg "$1" a)" && echo appended; }
tool_read() { cat -- "$(arg "$1" a)"; }
# A folder of its own to work in: the sandbox's scratch $TMPDIR, else one in the test's .b.
work() { if [[ $TMPDIR == */call.* ]]; then echo "$TMPDIR"; else mktemp -d -p "$(arg "$1" b)"; fi; }
tool_symlink_write() { local d; d=$(work "$1") && ln -s "$(arg "$1" a)" "$d/link" && echo pwned > "$d/link" && echo written; }
tool_hardlink_write() { local d; d=$(work "$1") && ln "$(arg "$1" a)" "$d/hard" && echo pwned >> "$d/hard" && echo written; }
tool_rename_into() { local d; d=$(work "$1") && echo pwned > "$d/f" && mv "$d/f" "$(arg "$1" a)" && echo moved; }
tool_connect() { exec 3<>"/dev/tcp/127.0.0.1/$(arg "$1" a)" && echo connected; }
tool_sleeper() { exec -a "$(arg "$1" a)" sleep 60; }
tool_signal() { kill -STOP "$(arg "$1" a)" && kill -CONT "$(arg "$1" a)" && echo signalled; }
# PTRACE_ATTACH (16) through perl's syscall (x86_64: 101); the tracee is let go when perl exits.
tool_ptrace() { perl -e '$r = syscall(101, 16, int($ARGV[0]), 0, 0); die "ptrace: $!\n" if $r < 0; print "attached\n"' "$(arg "$1" a)"; }
tool_run() { "$(arg "$1" a)" -u; }
tool_chmod() { chmod 4777 "$(arg "$1" a)" && echo changed; }
tool_chown() { chown 65534 "$(arg "$1" a)" && echo changed; }
tool_session() { local f; read -r -a f < /proc/self/stat; echo "group=${f[4]} session=${f[5]}"; }
tool_tiocsti() { perl -e 'my $c = "x"; ioctl(STDIN, 0x5412, $c) or die "ioctl: $!\n"; print "pushed\n"'; }
tool_mptcp() { perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 262) or die "socket: $!\n"; connect($s, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or die "connect: $!\n"; print "connected\n"' "$(arg "$1" a)"; }
tool_fastopen() { perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; defined(send($s, "x", 0x20000000, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1")))) or die "sendto: $!\n"; print "sent\n"' "$(arg "$1" a)"; }
# socket(2) with AF_INET in the low 32 bits of the family and garbage above: the kernel
# reads an int; a filter comparing all 64 bits would let it through.
tool_wide_socket() { perl -e '$r = syscall(41, 0x100000002, 1, 0); die "socket: $!\n" if $r < 0; print "socket\n"'; }
tool_listen() { perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; listen($s, 1) or die "listen: $!\n"; print "listening\n"'; }
tool_scratch() { echo made > "$TMPDIR/file" && echo "$TMPDIR"; }
tool_scratch_then_sleep() { mkdir -p "$TMPDIR/deep/er" && touch "$TMPDIR/deep/er/file" && exec -a "$(arg "$1" a)" sleep 60; }
tool_status() { grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; }
tool_env() { echo "secret=${SECRET_TOKEN-unset} kept=${KEPT_VAR-unset}"; }
# @sandbox read-only
tool_own_read_only() { echo pwned > "$(arg "$1" a)" && echo written; }
# @sandbox write=allowed
tool_widen() { echo pwned > "$(arg "$1" a)" && echo written; }
# @env SECRET_TOKEN
tool_needs_secret() { echo "secret=${SECRET_TOKEN-unset}"; }
)BASH";

struct Attempt {
  bool ok = false;   // the tool succeeded (no isError)
  std::string text;  // content[0].text
  std::string raw;   // stdout and stderr of the host, for failure messages
};

class Sandbox : public ::testing::Test {
 protected:
  exec::ScratchDir dir;
  std::string script;

  void SetUp() override {
    script = dir / "tools.sh";
    std::ofstream(script) << kTools;
    fs::create_directories(dir / "allowed");
    fs::create_directories(dir / "outside");
    fs::create_directories(dir / "work");
  }

  Attempt call(const std::string& tool, const std::string& a, std::vector<std::string> extra = {},
               HostOptions options = {}) {
    std::vector<std::string> args{"call", script,   "--tool",
                                  tool,   "--args", R"({"a":")" + a + R"("})"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = run_cli(args, std::move(options));
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
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

const std::vector<std::string> kReadOnly{"--sandbox", "read-only"};

TEST_F(Sandbox, WriteOutsideByAbsolutePathIsRefused) {
  const std::string target = dir / "outside/abs";
  auto free = call("write", target);
  ASSERT_TRUE(free.ok) << free.raw;
  fs::remove(target);
  auto boxed = call("write", target, kReadOnly);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_NE(boxed.text.find("Permission denied"), std::string::npos) << boxed.text;
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(Sandbox, WriteOutsideThroughDotDotIsRefused) {
  const std::string target = dir / "allowed/../outside/dots";
  const std::vector<std::string> allowed{"--sandbox", "write=" + (dir / "allowed")};
  auto inside = call("write", dir / "allowed/in", allowed);
  EXPECT_TRUE(inside.ok) << "write= lets it write there: " << inside.raw;
  auto boxed = call("write", target, allowed);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_FALSE(fs::exists(dir / "outside/dots"));
  auto free = call("write", target);
  EXPECT_TRUE(free.ok) << free.raw;
}

TEST_F(Sandbox, WriteThroughASymlinkInScratchIsRefused) {
  const std::string target = dir / "outside/sym";
  std::ofstream(target) << "original\n";
  auto boxed = call("symlink_write", target, kReadOnly);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_EQ(slurp(target), "original\n");
  auto free = call("symlink_write", target);
  EXPECT_TRUE(free.ok) << free.raw;
  EXPECT_EQ(slurp(target), "pwned\n");
}

TEST_F(Sandbox, WriteThroughAHardLinkIsRefused) {
  const std::string target = dir / "outside/hard";
  std::ofstream(target) << "original\n";
  auto boxed = call("hardlink_write", target, kReadOnly);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_EQ(slurp(target), "original\n");
  auto free = call("hardlink_write", target);
  EXPECT_TRUE(free.ok) << free.raw;
  EXPECT_EQ(slurp(target), "original\npwned\n");
}

TEST_F(Sandbox, RenameIntoAForbiddenFolderIsRefused) {
  const std::string target = dir / "outside/moved";
  auto boxed = call("rename_into", target, kReadOnly);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_FALSE(fs::exists(target));
  auto free = call("rename_into", target);
  EXPECT_TRUE(free.ok) << free.raw;
  EXPECT_TRUE(fs::exists(target));
}

TEST_F(Sandbox, WriteThroughProcSelfRootIsRefused) {
  const std::string target = "/proc/self/root" + (dir / "outside/procroot");
  auto boxed = call("write", target, kReadOnly);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_FALSE(fs::exists(dir / "outside/procroot"));
  auto free = call("write", target);
  EXPECT_TRUE(free.ok) << free.raw;
}

TEST_F(Sandbox, ReadOfADeniedKeyIsRefused) {
  exec::ScratchDir home;  // outside the script's folder, which stays readable
  fs::create_directories(home / ".ssh");
  const std::string key = home / ".ssh/id_rsa";
  std::ofstream(key) << "-----BEGIN OPENSSH PRIVATE KEY-----\n";
  fs::create_directories(dir / "public");
  std::ofstream(dir / "public/readme") << "hello\n";
  const std::vector<std::string> confined{"--sandbox", "read-only,read=" + (dir / "public")};
  auto boxed = call("read", key, confined);
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_EQ(boxed.text.find("PRIVATE KEY"), std::string::npos) << boxed.text;
  auto allowed = call("read", dir / "public/readme", confined);
  EXPECT_TRUE(allowed.ok) << allowed.raw;
  EXPECT_EQ(allowed.text, "hello");
  auto free = call("read", key);
  EXPECT_TRUE(free.ok) << free.raw;
  EXPECT_NE(free.text.find("PRIVATE KEY"), std::string::npos);
}

TEST_F(Sandbox, ConnectingToLoopbackIsRefusedWithoutNetwork) {
  exec::Listener listener;
  ASSERT_GT(listener.port, 0);
  const std::string port = std::to_string(listener.port);
  auto free = call("connect", port);
  EXPECT_TRUE(free.ok) << free.raw;
  auto boxed = call("connect", port, {"--sandbox", "no-network"});
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  // connect= opens exactly the ports it names.
  auto other = call("connect", port, {"--sandbox", "connect=1"});
  EXPECT_FALSE(other.ok) << other.raw;
  auto named = call("connect", port, {"--sandbox", "connect=" + port});
  EXPECT_TRUE(named.ok) << named.raw;
  EXPECT_EQ(named.text, "connected");
}

// Modes and owners, which Landlock does not see: refused under a write confinement.
TEST_F(Sandbox, ModesAndOwnersOutsideCannotBeChanged) {
  const std::string target = dir / "outside/meta";
  std::ofstream(target) << "x\n";
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  for (const char* tool : {"chmod", "chown"}) {
    auto boxed = call(tool, target, kReadOnly);
    EXPECT_FALSE(boxed.ok) << tool << ": " << boxed.raw;
    EXPECT_NE(boxed.text.find("Operation not permitted"), std::string::npos) << boxed.text;
  }
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  auto free = call("chmod", target);
  EXPECT_TRUE(free.ok) << free.raw;
  if (::geteuid() == 0) {
    auto owner = call("chown", target);
    EXPECT_TRUE(owner.ok) << owner.raw;
  }
}

// No controlling terminal, and no pushing input into one.
TEST_F(Sandbox, AToolHasASessionOfItsOwnAndCannotPushInputIntoATerminal) {
  auto boxed = call("session", "", kReadOnly);
  ASSERT_TRUE(boxed.ok) << boxed.raw;
  const auto group = boxed.text.substr(6, boxed.text.find(' ') - 6);
  EXPECT_EQ(boxed.text, "group=" + group + " session=" + group) << "setsid: its own session";
  auto pushed = call("tiocsti", "", kReadOnly);
  EXPECT_FALSE(pushed.ok) << pushed.raw;
  EXPECT_NE(pushed.text.find("Operation not permitted"), std::string::npos) << pushed.text;
  auto free = call("tiocsti", "");
  EXPECT_EQ(free.text.find("Operation not permitted"), std::string::npos)
      << "without a sandbox the request reaches the (non-terminal) descriptor: " << free.text;
}

TEST_F(Sandbox, NoNetworkHoldsWhateverTheHighBitsOfTheFamily) {
  auto free = call("wide_socket", "");
  EXPECT_TRUE(free.ok) << "the kernel takes it as AF_INET: " << free.raw;
  auto boxed = call("wide_socket", "", {"--sandbox", "no-network"});
  EXPECT_FALSE(boxed.ok) << boxed.raw;
  EXPECT_NE(boxed.text.find("socket: Permission denied"), std::string::npos) << boxed.text;
}

// connect= is about where a tool connects, whatever the way: not MPTCP, not a TCP Fast
// Open sendto, and no listening on a port the kernel picks.
TEST_F(Sandbox, ConnectOpensOnlyTheNamedPortsWhateverTheWay) {
  exec::Listener listener;
  ASSERT_GT(listener.port, 0);
  const std::string port = std::to_string(listener.port);
  const std::vector<std::string> other{"--sandbox", "connect=1"};
  for (const char* tool : {"fastopen", "listen"}) {
    auto free = call(tool, port);
    EXPECT_TRUE(free.ok) << tool << ": " << free.raw;
    auto boxed = call(tool, port, other);
    EXPECT_FALSE(boxed.ok) << tool << ": " << boxed.raw;
  }
  auto mptcp = call("mptcp", port);
  if (mptcp.ok) {  // where the kernel has MPTCP
    auto boxed = call("mptcp", port, other);
    EXPECT_FALSE(boxed.ok) << boxed.raw;
    EXPECT_NE(boxed.text.find("socket: Permission denied"), std::string::npos) << boxed.text;
  }
}

// Another call's process: neither signalled nor traced. (Two calls of one host: the
// attacker has the same user and capabilities as its victim, so without a sandbox both
// succeed.)
TEST_F(Sandbox, AnotherCallsProcessCanBeNeitherSignalledNorTraced) {
  auto attempt = [&](const std::vector<std::string>& sandbox, const std::string& tool) {
    const std::string tag = exec::unique_tag("sandbox-victim");
    exec::TagCleanup cleanup(tag);
    std::vector<std::string> args = sandbox;
    args.push_back(script);
    HostProcess host(args);
    host.send(call_request("1", "sleeper", R"({"a":")" + tag + R"("})"));
    std::vector<pid_t> victims;
    for (int i = 0; i < 500 && victims.empty(); ++i) {
      victims = processes_matching(tag);
      if (victims.empty()) std::this_thread::sleep_for(10ms);
    }
    if (victims.size() != 1) return std::string("no victim");
    host.send(call_request("2", tool, R"({"a":")" + std::to_string(victims[0]) + R"("})"));
    auto response = exec::await_response(host, "2");
    if (!response) return std::string("no response");
    return (is_error_result(*response) ? "refused: " : "done: ") + result_text(*response);
  };
  for (const char* tool : {"signal", "ptrace"}) {
    const std::string free = attempt({}, tool);
    EXPECT_EQ(free.rfind("done: ", 0), 0u) << tool << ": " << free;
    const std::string boxed = attempt(kReadOnly, tool);
    EXPECT_EQ(boxed.rfind("refused: ", 0), 0u) << tool << ": " << boxed;
    EXPECT_NE(boxed.find("Operation not permitted"), std::string::npos) << tool << ": " << boxed;
  }
}

TEST_F(Sandbox, ASetuidBinaryGivesNoPrivilege) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a setuid binary of another user needs root";
  const std::string program = dir / "suid-id";
  fs::copy_file("/usr/bin/id", program);
  ASSERT_EQ(::chown(program.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(program.c_str(), 04755), 0);
  auto free = call("run", program);
  ASSERT_TRUE(free.ok) << free.raw;
  if (free.text != "65534") GTEST_SKIP() << "setuid has no effect in " << dir.path << " (nosuid)";
  auto boxed = call("run", program, kReadOnly);
  EXPECT_TRUE(boxed.ok) << boxed.raw;
  EXPECT_EQ(boxed.text, "0") << "no_new_privs: the setuid bit is ignored";
}

TEST_F(Sandbox, EveryToolGetsAScratchFolderRemovedAfterTheCall) {
  auto boxed = call("scratch", "", kReadOnly);
  ASSERT_TRUE(boxed.ok) << boxed.raw;
  EXPECT_NE(boxed.text.find("/call."), std::string::npos) << boxed.text;
  EXPECT_FALSE(fs::exists(boxed.text)) << "removed once the call ended";
  auto status = call("status", "", kReadOnly);
  EXPECT_NE(status.text.find("NoNewPrivs:\t1"), std::string::npos) << status.text;
  EXPECT_NE(status.text.find("Seccomp:\t2"), std::string::npos) << status.text;
}

// A host killed with SIGKILL cleans nothing up itself: its watchdog kills the call it
// left and removes the scratch folders, files and all.
TEST_F(Sandbox, AKilledHostLeavesNoScratchFolderBehind) {
  const std::string tag = exec::unique_tag("sandbox-killed");
  exec::TagCleanup cleanup(tag);
  HostProcess host({"--sandbox", "read-only", script});
  host.send(call_request("1", "scratch_then_sleep", R"({"a":")" + tag + R"("})"));
  std::string scratch;
  for (int i = 0; i < 500 && scratch.empty(); ++i) {
    for (pid_t pid : processes_matching(tag)) {
      // The sleeper's environment names its scratch folder.
      const std::string env = read_proc_file("/proc/" + std::to_string(pid) + "/environ");
      const auto at = env.find("TMPDIR=");
      if (at != std::string::npos) scratch = env.substr(at + 7, env.find('\0', at) - at - 7);
    }
    if (scratch.empty()) std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(scratch.empty()) << host.stderr_text();
  for (int i = 0; i < 500 && !fs::exists(scratch + "/deep/er/file"); ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(fs::exists(scratch + "/deep/er/file"));
  const std::string root = fs::path(scratch).parent_path().string();
  host.signal(SIGKILL);
  host.wait_exit();
  for (int i = 0; i < 500 && fs::exists(root); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(fs::exists(root)) << "the scratch root of the killed host is gone";
  for (int i = 0; i < 500 && !processes_matching(tag).empty(); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(processes_matching(tag).empty());
}

TEST_F(Sandbox, AToolsOwnSandboxNarrowsTheServersAndCannotWidenIt) {
  // The tool's read-only under a server that lets it write: it cannot write.
  const std::vector<std::string> server{"--sandbox", "write=" + (dir / "allowed")};
  auto narrowed = call("own_read_only", dir / "allowed/x", server);
  EXPECT_FALSE(narrowed.ok) << narrowed.raw;
  // Its write=allowed under a read-only server: still nothing but scratch.
  auto widened = call("widen", dir / "allowed/y", kReadOnly);
  EXPECT_FALSE(widened.ok) << widened.raw;
  EXPECT_FALSE(fs::exists(dir / "allowed/y"));
  // Alone, its own word holds.
  auto alone = call("widen", dir / "allowed/z");
  EXPECT_TRUE(alone.ok) << alone.raw;
  auto own = call("own_read_only", dir / "outside/w");
  EXPECT_FALSE(own.ok) << own.raw;
}

TEST_F(Sandbox, SecretsReachOnlyTheToolsThatAskForThem) {
  HostOptions env;
  env.env = {{"SECRET_TOKEN", "s3cr3t"}, {"KEPT_VAR", "kept"}};
  auto everything = call("env", "", {}, env);
  EXPECT_EQ(everything.text, "secret=s3cr3t kept=kept") << "the default passes all on";
  auto denied = call("env", "", {"--env-deny", "SECRET_*"}, env);
  EXPECT_EQ(denied.text, "secret=unset kept=kept");
  auto allowed = call("env", "", {"--env-allow", "KEPT_*"}, env);
  EXPECT_EQ(allowed.text, "secret=unset kept=kept");
  auto basics = call("env", "", {"--env-allow", ""}, env);
  EXPECT_EQ(basics.text, "secret=unset kept=unset") << "an empty allow list: the basics only";
  auto asked = call("needs_secret", "", {"--env-allow", "KEPT_*"}, env);
  EXPECT_EQ(asked.text, "secret=s3cr3t") << "@env admits it for this tool";
  auto overruled =
      call("needs_secret", "", {"--env-allow", "KEPT_*", "--env-deny", "SECRET_*"}, env);
  EXPECT_EQ(overruled.text, "secret=unset") << "--env-deny wins over @env";
}

TEST_F(Sandbox, BadWordsAreAClearError) {
  auto run = run_cli({"list", script, "--sandbox", "read-only,telepathy"});
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("unknown word \"telepathy\""), std::string::npos) << run.err;
}

TEST_F(Sandbox, CheckSaysWhatEachToolGets) {
  auto run = run_cli({"check", script, "--sandbox", "no-network"});
  EXPECT_NE(run.out.find("own_read_only"), std::string::npos) << run.out << run.err;
  EXPECT_NE(run.out.find("sandbox no-network then read-only"), std::string::npos)
      << run.out << run.err;
  EXPECT_NE(run.out.find("Landlock ABI"), std::string::npos) << run.out << run.err;
}

TEST_F(Sandbox, TheAuditLogNamesTheSandbox) {
  const std::string audit = dir / "audit.jsonl";
  HostProcess host({"--audit-log", audit, "--sandbox", "read-only", script});
  host.send(call_request("1", "scratch"));
  auto line = host.read_line();
  ASSERT_TRUE(line);
  host.close_stdin();
  host.wait_exit();
  EXPECT_NE(slurp(audit).find(R"("sandbox":"read-only")"), std::string::npos) << slurp(audit);
}

}  // namespace
}  // namespace mcpsh::testing
