#include "execution/process_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>
#include <map>
#include <system_error>

#include "execution/stream_collectors.h"

namespace mcpsh::execution {
namespace asio = boost::asio;
namespace bp = boost::process;

namespace {

// How long pipes may stay open after the group was killed: only a grandchild that left
// the group can still hold them, and it must not hang the call.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(300);

// Descriptors for the child are moved to >= this number before fork, so the dup2 calls
// onto 0..4 in the child can never overwrite one another.
constexpr int kChildFdFloor = 10;

struct FdGuard {
  int fd = -1;
  FdGuard() = default;
  explicit FdGuard(int f) : fd(f) {}
  FdGuard(FdGuard&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  FdGuard& operator=(FdGuard&& o) noexcept {
    reset();
    fd = std::exchange(o.fd, -1);
    return *this;
  }
  ~FdGuard() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int release() { return std::exchange(fd, -1); }
};

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Moves fd to a close-on-exec descriptor >= kChildFdFloor.
FdGuard lift(FdGuard fd) {
  int lifted = ::fcntl(fd.fd, F_DUPFD_CLOEXEC, kChildFdFloor);
  if (lifted < 0) throw std::runtime_error(errno_text("fcntl(F_DUPFD_CLOEXEC)"));
  return FdGuard(lifted);
}

struct Pipe {
  FdGuard read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe2"));
  return Pipe{FdGuard(fds[0]), FdGuard(fds[1])};
}

FdGuard make_payload_file(const std::string& bytes) {
  FdGuard fd(::memfd_create("mcp-shell-host-args", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.fd < 0) throw std::runtime_error(errno_text("memfd_create"));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(errno_text("write(memfd)"));
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd.fd, 0, SEEK_SET);
  ::fcntl(fd.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  return fd;
}

// Runs in the child between fork and exec: only async-signal-safe calls.
struct ChildSetup : bp::extend::handler {
  int devnull, out, err, payload, channel;
  std::optional<std::uint64_t> cpu_seconds, memory_bytes;

  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The host ignores SIGPIPE and Asio catches others; a tool must start with defaults.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT}) ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(devnull, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (payload >= 0) ::dup2(payload, 3);
    if (channel >= 0) ::dup2(channel, 4);
    if (cpu_seconds) {
      rlimit r{static_cast<rlim_t>(*cpu_seconds), static_cast<rlim_t>(*cpu_seconds + 1)};
      ::setrlimit(RLIMIT_CPU, &r);
    }
    if (memory_bytes) {
      rlimit r{static_cast<rlim_t>(*memory_bytes), static_cast<rlim_t>(*memory_bytes)};
      ::setrlimit(RLIMIT_AS, &r);
    }
  }
};

bp::environment child_environment(const LaunchSpec& spec) {
  bp::environment env = boost::this_process::environment();
  env.erase("BASH_ENV");
  env.erase("ENV");
  for (const auto& [key, value] : spec.env) env[key] = value;
  return env;
}

}  // namespace

struct ProcessRunner::Impl {
  struct Run {
    RunId id = 0;
    pid_t pid = -1;
    Limits limits;
    RunCallbacks callbacks;
    std::chrono::steady_clock::time_point started;
    Outcome outcome;

    std::optional<asio::posix::stream_descriptor> out, err, chan;
    HeadCollector stdout_head;
    TailCollector stderr_tail;
    LineSplitter stderr_lines{4096};
    LineSplitter channel_lines{64 * 1024};
    FdGuard payload;  // kept open until the run ends

    std::optional<asio::steady_timer> deadline, grace, drain;
    bool reaped = false;
    int wait_status = 0;
    std::optional<Ending> forced;  // why we are terminating it, if we are
    int pending_streams = 0;
    bool finished = false;

    explicit Run(const Limits& l)
        : limits(l), stdout_head(l.max_stdout), stderr_tail(l.max_stderr) {}
  };

  asio::io_context& io;
  asio::signal_set sigchld;
  std::map<RunId, std::shared_ptr<Run>> runs;
  std::map<pid_t, RunId> by_pid;
  RunId next_id = 1;
  std::string bash_error;

  explicit Impl(asio::io_context& context) : io(context), sigchld(context, SIGCHLD) {
    arm_reaper();
  }

  void arm_reaper() {
    sigchld.async_wait([this](const boost::system::error_code& ec, int) {
      if (ec) return;
      reap_all();
      arm_reaper();
    });
  }

  // One pass over every child that has exited. The group is killed while the leader is
  // still a zombie (WNOWAIT), so its id cannot have been reused by a newer process.
  void reap_all() {
    for (;;) {
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
      pid_t pid = info.si_pid;
      auto known = by_pid.find(pid);
      if (known != by_pid.end()) ::killpg(pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (known == by_pid.end()) continue;  // e.g. a launch that failed inside Boost.Process
      RunId id = known->second;
      by_pid.erase(known);
      auto it = runs.find(id);
      if (it != runs.end()) on_leader_exit(it->second, status);
    }
  }

  void on_leader_exit(const std::shared_ptr<Run>& run, int status) {
    run->reaped = true;
    run->wait_status = status;
    if (run->deadline) run->deadline->cancel();
    if (run->grace) run->grace->cancel();
    if (run->pending_streams == 0) return finish(run);
    run->drain.emplace(io, kDrainAfterExit);
    run->drain->async_wait([this, run](const boost::system::error_code& ec) {
      if (ec || run->finished) return;
      for (auto* s : {&run->out, &run->err, &run->chan})
        if (*s) (*s)->close();
    });
  }

  void stream_closed(const std::shared_ptr<Run>& run) {
    if (--run->pending_streams == 0 && run->reaped) finish(run);
  }

  void finish(const std::shared_ptr<Run>& run) {
    if (run->finished) return;
    run->finished = true;
    if (run->drain) run->drain->cancel();
    if (run->deadline) run->deadline->cancel();
    if (run->grace) run->grace->cancel();
    for (auto* s : {&run->out, &run->err, &run->chan})
      if (*s) (*s)->close();
    if (auto rest = run->stderr_lines.flush(); rest && run->callbacks.on_stderr_line)
      run->callbacks.on_stderr_line(*rest);

    Outcome& o = run->outcome;
    const int st = run->wait_status;
    if (WIFSIGNALED(st)) o.signal = WTERMSIG(st);
    if (run->forced) {
      o.ending = *run->forced;
      if (WIFEXITED(st)) o.exit_code = WEXITSTATUS(st);
    } else if (WIFEXITED(st)) {
      o.ending = Ending::kExited;
      o.exit_code = WEXITSTATUS(st);
    } else {
      o.ending = Ending::kSignaled;
    }
    o.cpu_limit_hit = run->limits.cpu_seconds && WIFSIGNALED(st) &&
                      (o.signal == SIGXCPU || (o.signal == SIGKILL && !run->forced));
    o.stdout_head = run->stdout_head.take();
    o.stdout_total = run->stdout_head.total();
    o.stderr_tail = run->stderr_tail.take();
    o.stderr_total = run->stderr_tail.total();
    o.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - run->started);
    runs.erase(run->id);
    auto done = std::move(run->callbacks.on_done);
    if (done) done(std::move(o));
  }

  using Sink = void (*)(Impl&, const std::shared_ptr<Run>&, std::string_view);

  void read_loop(const std::shared_ptr<Run>& run, asio::posix::stream_descriptor& stream,
                 Sink sink) {
    auto buffer = std::make_shared<std::array<char, 65536>>();
    stream.async_read_some(
        asio::buffer(*buffer), [this, run, &stream, sink, buffer](
                                   const boost::system::error_code& ec, std::size_t n) {
          if (n > 0) sink(*this, run, std::string_view(buffer->data(), n));
          if (ec || run->finished) return stream_closed(run);
          read_loop(run, stream, sink);
        });
  }

  static void sink_stdout(Impl&, const std::shared_ptr<Run>& run, std::string_view bytes) {
    run->stdout_head.append(bytes);
  }
  static void sink_stderr(Impl&, const std::shared_ptr<Run>& run, std::string_view bytes) {
    run->stderr_tail.append(bytes);
    run->stderr_lines.feed(bytes, [&](std::string line) {
      if (run->callbacks.on_stderr_line) run->callbacks.on_stderr_line(std::move(line));
    });
  }
  static void sink_channel(Impl&, const std::shared_ptr<Run>& run, std::string_view bytes) {
    run->channel_lines.feed(bytes, [&](std::string line) {
      if (run->callbacks.on_channel_line && !run->forced)
        run->callbacks.on_channel_line(std::move(line));
    });
  }

  void fail_later(RunCallbacks callbacks, std::string why) {
    asio::post(io, [callbacks = std::move(callbacks), why = std::move(why)]() {
      Outcome o;
      o.ending = Ending::kFailedToStart;
      o.start_error = why;
      if (callbacks.on_done) callbacks.on_done(std::move(o));
    });
  }

  RunId start(const LaunchSpec& spec, RunCallbacks callbacks) {
    RunId id = next_id++;
    auto run = std::make_shared<Run>(spec.limits);
    run->id = id;
    run->callbacks = std::move(callbacks);
    run->started = std::chrono::steady_clock::now();
    try {
      FdGuard devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      if (devnull.fd < 0) throw std::runtime_error(errno_text("open(/dev/null)"));
      Pipe out = make_pipe(), err = make_pipe();
      std::optional<Pipe> chan;
      if (spec.channel) chan = make_pipe();
      FdGuard payload;
      if (!spec.fd3_payload.empty()) payload = make_payload_file(spec.fd3_payload);

      // Child-side ends are lifted above the 0..4 range they are dup2'ed onto.
      FdGuard c_null = lift(std::move(devnull)), c_out = lift(std::move(out.write)),
              c_err = lift(std::move(err.write));
      FdGuard c_payload = payload.fd >= 0 ? lift(FdGuard(::dup(payload.fd))) : FdGuard();
      FdGuard c_chan = chan ? lift(std::move(chan->write)) : FdGuard();

      ChildSetup setup;
      setup.devnull = c_null.fd;
      setup.out = c_out.fd;
      setup.err = c_err.fd;
      setup.payload = c_payload.fd;
      setup.channel = c_chan.fd;
      setup.cpu_seconds = spec.limits.cpu_seconds;
      setup.memory_bytes = spec.limits.memory_bytes;

      std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
      std::error_code launch_error;
      bp::child child(bp::exe = spec.argv.at(0), bp::args = args, child_environment(spec), setup,
                      launch_error);
      if (launch_error || !child.valid())
        throw std::runtime_error(spec.argv.at(0) + ": " + launch_error.message());
      run->pid = child.id();
      child.detach();  // we reap it ourselves (see reap_all)
      // The child may already have exited; its SIGCHLD is pending for reap_all.
      by_pid[run->pid] = id;

      run->payload = std::move(payload);
      run->out.emplace(io, out.read.release());
      run->err.emplace(io, err.read.release());
      run->pending_streams = 2;
      if (chan) {
        run->chan.emplace(io, chan->read.release());
        run->pending_streams = 3;
      }
    } catch (const std::exception& e) {
      fail_later(std::move(run->callbacks), e.what());
      return id;
    }
    runs[id] = run;
    read_loop(run, *run->out, &Impl::sink_stdout);
    read_loop(run, *run->err, &Impl::sink_stderr);
    if (run->chan) read_loop(run, *run->chan, &Impl::sink_channel);
    if (spec.limits.timeout.count() > 0) {
      run->deadline.emplace(io, spec.limits.timeout);
      run->deadline->async_wait([this, run](const boost::system::error_code& ec) {
        if (!ec) terminate(run, Ending::kTimedOut, run->limits.kill_grace);
      });
    }
    return id;
  }

  void terminate(const std::shared_ptr<Run>& run, Ending why, std::chrono::milliseconds grace) {
    if (run->finished || run->reaped) return;
    if (!run->forced) run->forced = why;
    ::killpg(run->pid, SIGTERM);
    run->grace.emplace(io, grace);
    run->grace->async_wait([run](const boost::system::error_code& ec) {
      if (!ec && !run->reaped) ::killpg(run->pid, SIGKILL);
    });
  }
};

ProcessRunner::ProcessRunner(asio::io_context& io) : impl_(std::make_unique<Impl>(io)) {}
ProcessRunner::~ProcessRunner() {
  for (auto& [id, run] : impl_->runs)
    if (!run->reaped) ::killpg(run->pid, SIGKILL);
}

RunId ProcessRunner::start(const LaunchSpec& spec, RunCallbacks callbacks) {
  return impl_->start(spec, std::move(callbacks));
}

void ProcessRunner::cancel(RunId id) {
  auto it = impl_->runs.find(id);
  if (it != impl_->runs.end()) impl_->terminate(it->second, Ending::kCancelled, it->second->limits.kill_grace);
}

void ProcessRunner::terminate_all(std::chrono::milliseconds grace) {
  auto runs = impl_->runs;  // terminate() does not erase, but be safe against callbacks
  for (auto& [id, run] : runs) impl_->terminate(run, Ending::kShutdown, grace);
}

std::size_t ProcessRunner::running() const { return impl_->runs.size(); }

}  // namespace mcpsh::execution
