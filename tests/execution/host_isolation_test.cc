// A tool must reach no descriptor of the host: not the client's pipes (stdin, stdout),
// not another call's arguments. The host hides itself (non-dumpable) and its children
// lose CAP_SYS_PTRACE, which would let a tool running as root see through that.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "execution/fd_guard.h"
#include "runner_harness.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::in_forked_host;
using testing::run_to_end;

// The capability sets of a process, from /proc/<pid>/status ("CapEff" -> mask).
std::map<std::string, unsigned long long> capability_sets(const std::string& status) {
  std::map<std::string, unsigned long long> sets;
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("Cap", 0) == 0 && line.find(':') != std::string::npos)
      sets[line.substr(0, line.find(':'))] =
          std::stoull(line.substr(line.find(':') + 1), nullptr, 16);
  return sets;
}

TEST(HostIsolation, AChildOfAHiddenHostHasNoCapSysPtraceInAnySet) {
  if (::prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE) != 1)
    GTEST_SKIP() << "this process cannot have CAP_SYS_PTRACE: nothing to drop";
  // In a forked host: hiding makes the process non-dumpable for good.
  const std::string result = in_forked_host([&]() -> std::string {
    boost::asio::io_context io;
    ProcessRunner runner(io, RunnerOptions{.hide_host_from_tools = true});
    testing::Report r = run_to_end(io, runner, bash("grep ^Cap /proc/self/status"));
    if (!r.outcome || r.outcome->ending != Ending::kExited) return "the run failed";
    return r.outcome->stdout_head;
  });
  auto sets = capability_sets(result);
  ASSERT_EQ(sets.size(), 5u) << result;
  for (const auto& [name, mask] : sets)
    EXPECT_EQ(mask & (1ULL << CAP_SYS_PTRACE), 0u) << name << " " << std::hex << mask;
  // Only that one: the rest of the bounding set is the host's.
  std::ifstream self("/proc/self/status");
  std::string own((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  EXPECT_EQ(sets["CapBnd"] | (1ULL << CAP_SYS_PTRACE), capability_sets(own)["CapBnd"]);
}

// A non-blocking read of whatever is in a pipe now.
std::string available(int fd) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  std::string bytes;
  char buffer[256];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    bytes.append(buffer, static_cast<std::size_t>(n));
  return bytes;
}

TEST(HostIsolation, AToolCannotWriteToReadFromOrPeekIntoTheHost) {
  const std::string result = in_forked_host([]() -> std::string {
    boost::asio::io_context io;
    ProcessRunner runner(io, RunnerOptions{.hide_host_from_tools = true});
    // Stand-ins for the client's pipes: what the host would write to (its stdout) and a
    // request waiting to be read (its stdin).
    Pipe client_reads = make_pipe(), client_writes = make_pipe();
    const std::string request = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";
    if (::write(client_writes.write.fd, request.data(), request.size()) !=
        static_cast<ssize_t>(request.size()))
      return "write failed";
    const std::string script =
        "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}' 2>/dev/null >/proc/$PPID/fd/" +
        std::to_string(client_reads.write.fd) + "; echo write=$?; " +
        "timeout 5 head -c 1000 /proc/$PPID/fd/" + std::to_string(client_writes.read.fd) +
        " 2>/dev/null; echo read=$?; " + "(exec 9</proc/$PPID/mem) 2>/dev/null; echo mem=$?";
    testing::Report r = run_to_end(io, runner, bash(script));
    if (!r.outcome) return "no outcome";
    std::string problems;
    const std::string& out = r.outcome->stdout_head;
    for (const char* denied : {"write=1", "read=1", "mem=1"})
      if (out.find(denied) == std::string::npos) problems += std::string(" not ") + denied + ";";
    if (out.find("ping") != std::string::npos) problems += " the tool read the request;";
    if (const std::string injected = available(client_reads.read.fd); !injected.empty())
      problems += " injected: " + injected + ";";
    if (available(client_writes.read.fd) != request) problems += " the request was lost;";
    return problems.empty() ? "" : out + " =>" + problems;
  });
  EXPECT_EQ(result, "");
}

}  // namespace
}  // namespace mcpsh::execution
