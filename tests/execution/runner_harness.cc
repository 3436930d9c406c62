#include "runner_harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "execution/escapees.h"
#include "sandbox/sandbox.h"
#include "transport/write_all.h"

namespace mcpsh::execution::testing {

FdGuard make_payload_file(const std::string& bytes) {
  auto failure = [](const char* what) {
    return std::runtime_error(std::string(what) + ": " + std::strerror(errno));
  };
  FdGuard fd(::memfd_create("mcpsh-test-payload", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.fd < 0) throw failure("memfd_create");
  if (!transport::write_all(fd.fd, bytes)) throw failure("write(memfd)");
  if (::lseek(fd.fd, 0, SEEK_SET) != 0) throw failure("lseek(memfd)");
  // Sealed, as a payload a sibling could otherwise change would be.
  if (::fcntl(fd.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    throw failure("fcntl(F_ADD_SEALS)");
  return fd;
}

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
    sandbox::remove_scratch_root();  // _exit skips its removal at exit
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
