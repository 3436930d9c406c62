#include "runner_harness.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "execution/escapees.h"

namespace mcpsh::execution::testing {

LaunchSpec bash(const std::string& script, Limits limits) {
  LaunchSpec spec;
  spec.argv = {kBash, "--noprofile", "--norc", "-c", script};
  spec.limits = limits;
  return spec;
}

bool drive_until(boost::asio::io_context& io, const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    io.restart();
    io.run_one_for(std::chrono::milliseconds(100));
  }
  return true;
}

RunCallbacks record_into(Report& report) {
  RunCallbacks callbacks;
  callbacks.on_done = [&report](Outcome o) {
    report.outcome = std::move(o);
    ++report.done_calls;
  };
  callbacks.on_channel_line = [&report](std::string line) {
    report.channel.push_back(std::move(line));
  };
  callbacks.on_stderr_line = [&report](std::string line) {
    report.stderr_lines.push_back(std::move(line));
  };
  return callbacks;
}

Report run_to_end(boost::asio::io_context& io, Runner& runner, LaunchSpec spec) {
  Report report;
  runner.start(spec, record_into(report));
  drive_until(io, [&] { return report.outcome.has_value(); });
  return report;
}

std::string in_forked_host(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe2 failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    std::string result;
    try {
      result = body();
    } catch (const std::exception& e) {
      result = std::string("exception: ") + e.what();
    }
    std::size_t done = 0;
    while (done < result.size()) {
      ssize_t n = ::write(fds[1], result.data() + done, result.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string result;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    result.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    return result + " [forked host killed by signal " + std::to_string(WTERMSIG(status)) + "]";
  if (WEXITSTATUS(status) != 0)
    return result + " [forked host exited " + std::to_string(WEXITSTATUS(status)) + "]";
  return result;
}

std::vector<pid_t> children_except_watchdogs() {
  std::vector<pid_t> found;
  for (pid_t pid : own_children()) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name != "mcpsh-watchdog") found.push_back(pid);
  }
  return found;
}

}  // namespace mcpsh::execution::testing
