// Boost.Process 1.81 compiles its vfork launch (bp::posix::use_vfork) only when this is set,
// and its own test of the feature macros leaves it unset under _GNU_SOURCE, although Linux
// and glibc have vfork. Set before any Boost header.
#define BOOST_POSIX_HAS_VFORK 1
#include "execution/process_runner.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/posix.hpp>
#include <cerrno>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "execution/channel_events.h"
#include "execution/child_setup.h"
#include "execution/escapees.h"
#include "execution/fd_guard.h"
#include "execution/spawn_gate.h"
#include "execution/stream_collectors.h"
#include "execution/thread_scheduling.h"
#include "execution/watchdog.h"
#include "sandbox/sandbox.h"

namespace mcpsh::execution {
namespace asio = boost::asio;
namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

namespace {

// How long pipes may stay open after the leader was reaped and its group killed: only a
// process outside the group can still hold them, and it must not hang the call.
constexpr auto kDrainAfterExit = std::chrono::milliseconds(300);

// Progress and log lines are cut here: they are messages, not payloads.
constexpr std::size_t kMaxEventLine = 64 * 1024;

// Bytes of content lines (mcp_image and the like) passed on per run: the output limit in
// base64 (4 characters per 3 bytes) plus room for the lines' other fields. The shaping of
// the result holds the decoded sizes to the output limit itself (tool_result.cc); this
// bounds what the host holds before then.
std::uint64_t content_budget(const Limits& limits) {
  return (static_cast<std::uint64_t>(limits.max_stdout) + 2) / 3 * 4 + 64 * 1024;
}

// Each content line counts at least this much: many tiny blocks cost the host more than
// their bytes (an event each).
constexpr std::uint64_t kMinContentLineCost = 256;

// A descendant that escaped its group is re-parented to us only when its parent dies,
// which can be a moment after the run ended; escapees are looked for again this late.
constexpr auto kLateSweep = std::chrono::milliseconds(250);

// Bytes asked for per read of a child's pipe.
constexpr std::size_t kReadChunk = 64 * 1024;

// Descriptors for the child are moved to >= this number before fork, so the dup2 calls
// onto 0..5 in the child can never overwrite one another.
constexpr int kChildFdFloor = 10;

// This host's binary, held open (O_PATH) from the first isolate spawn on: an isolate
// sandbox runs it inside bwrap's namespaces, handed on as a descriptor, so that the binary
// that runs there is this one even after a package upgrade replaced or removed its file.
// At or above the child's descriptor floor, like every source the child moves; -1 if it
// cannot be opened (the launch then fails in bwrap, saying so).
int host_binary() {
  static const int fd = [] {
    const int opened = ::open("/proc/self/exe", O_PATH | O_CLOEXEC);
    if (opened < 0 || opened >= kChildFdFloor) return opened;
    const int lifted = ::fcntl(opened, F_DUPFD_CLOEXEC, kChildFdFloor);
    ::close(opened);
    return lifted;
  }();
  return fd;
}

// Runs in the child between fork and exec (child_setup.h).
struct ChildSetup : bp::extend::handler {
  ChildPlan plan;
  template <class Executor>
  void on_exec_setup(Executor&) const {
    run_child_setup(plan);
  }
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

bp::environment child_environment(const EnvPolicy& policy, const EnvList& extra,
                                  const std::string& cookie) {
  bp::environment env = boost::this_process::environment();
  std::vector<std::string> dropped;
  for (const auto& entry : env)
    if (!policy.admits(entry.get_name())) dropped.push_back(entry.get_name());
  for (const auto& name : dropped) env.erase(name);
  for (const auto& [key, value] : extra) env[key] = value;
  env[kRunCookie] = cookie;
  return env;
}

std::chrono::milliseconds cpu_time(const rusage& usage) {
  auto ms = [](const timeval& t) {
    return std::chrono::milliseconds(static_cast<long long>(t.tv_sec) * 1000 + t.tv_usec / 1000);
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// One launch as the spawner thread sees it: only what it owns, nothing of the loop's. The
// child's ends are closed once the fork is done, so that only the child holds them.
struct SpawnJob {
  std::string exe;
  std::vector<std::string> args;
  EnvList env;
  EnvPolicy env_policy;
  std::shared_ptr<const sandbox::Sandbox> sandbox;
  std::string readable;
  std::string scratch;  // made for a sandboxed child; the run removes it when it ends
  std::string cookie;
  ChildSetup setup;
  bool idle_class = false;  // LaunchSpec::idle_class: set by the spawner once the child exec'ed
  FdGuard c_null, c_out, c_err, c_report, c_payload, c_chan, c_extra;
  FdGuard report;  // read end of the child's set-up report (non-blocking)
  // The outcome: the leader's pid (recorded as unclaimed at the gate), or why there is none.
  pid_t pid = -1;
  std::string error;

  void close_child_ends() {
    for (auto* fd : {&c_null, &c_out, &c_err, &c_report, &c_payload, &c_chan, &c_extra})
      fd->reset();
  }
};

}  // namespace

namespace {
// Makes the host non-dumpable when asked; a member initializer so that it happens before
// the watchdog is forked (which then inherits it).
bool hide_host(const RunnerOptions& options) {
  if (!options.hide_host_from_tools) return false;
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    throw std::system_error(errno, std::generic_category(), "prctl(PR_SET_DUMPABLE, 0)");
  return true;
}
}  // namespace

struct ProcessRunner::Impl : std::enable_shared_from_this<ProcessRunner::Impl> {
  struct Run {
    RunId id = 0;
    pid_t pid = -1;  // also the process group id; -1 while the spawner thread starts it
    Limits limits;
    RunCallbacks callbacks;
    Clock::time_point started;
    Outcome outcome;

    FdGuard out_fd, err_fd, chan_fd;  // the pipes' read ends, until the spawn reports back
    std::optional<asio::posix::stream_descriptor> out, err, chan;
    std::array<std::vector<char>, 3> buffers;  // read buffers of out, err, chan
    HeadCollector stdout_head;
    TailCollector stderr_tail;
    LineSplitter stderr_lines{4096};
    LineSplitter channel_lines;  // lines up to one content block within the output limit
    std::uint64_t stderr_logged = 0, stderr_unlogged = 0;  // bytes passed to on_stderr_line or not
    std::uint64_t channel_passed = 0;                      // bytes of lines passed on
    std::uint64_t channel_dropped = 0, channel_dropped_lines = 0;  // over max_channel
    std::uint64_t content_passed = 0;  // bytes of content lines passed on (content_budget)

    std::optional<asio::steady_timer> deadline, grace, drain;
    std::optional<Clock::time_point> kill_at;  // when SIGKILL is due, once terminating
    bool reaped = false;
    int wait_status = 0;
    rusage usage{};
    std::optional<Ending> forced;  // why we are terminating it, if we are
    int pending_streams = 0;
    bool finished = false;
    std::string scratch;  // the sandbox's scratch folder, removed when the run finishes

    explicit Run(const Limits& l)
        : limits(l),
          stdout_head(l.max_stdout),
          stderr_tail(l.max_stderr),
          channel_lines(std::max(kMaxEventLine, content_budget(l) + 1)) {}
    bool live() const { return !reaped && !finished; }
  };
  using RunPtr = std::shared_ptr<Run>;
  using Weak = std::weak_ptr<Impl>;

  asio::io_context& io;
  bool hidden;        // first: before the watchdog is forked (RunnerOptions)
  Watchdog watchdog;  // forked before anything else is set up
  asio::signal_set sigchld;
  std::map<RunId, RunPtr> runs;   // started and not yet finished
  std::map<pid_t, RunId> by_pid;  // leaders not yet reaped
  RunId next_id = 1;
  asio::steady_timer late_sweep;
  bool late_sweep_armed = false;
  bool closed = false;  // the ProcessRunner is gone: handlers still queued do nothing
  // Fork and the wait for exec happen on this thread (one: launches start in order), so
  // that the loop never waits for them; the gate keeps the reaper and the escapee sweep
  // off children the loop has not claimed yet (spawn_gate.h).
  SpawnGate gate;
  asio::thread_pool spawner{1};
  // Removes the scratch folders of finished sandboxed runs: on the spawner thread their
  // removal (a few file system writes) would delay the next launch.
  asio::thread_pool janitor{1};
  std::map<pid_t, std::pair<int, rusage>> early_exits;  // unclaimed leaders reaped already
  bool reap_deferred = false, sweep_deferred = false;   // the gate was held: after the spawn

  Impl(asio::io_context& context, const RunnerOptions& options)
      : io(context), hidden(hide_host(options)), sigchld(context, SIGCHLD), late_sweep(context) {
    become_child_subreaper();   // best effort: without it escapees are simply not found
    mark_all_close_on_exec(3);  // also done in each child (close_range), where supported
    // Both threads run in the kernel's default slices, not the loop's short ones (adr/0024):
    // the processes the spawner starts inherit its attributes, and compete as any process.
    asio::post(janitor, [] {
      ::pthread_setname_np(::pthread_self(), "mcpsh-janitor");
      use_default_slices();
    });
    // The spawner's first job, before any spawn: it takes no signal from now on (see spawn).
    asio::post(spawner, [] {
      ::pthread_setname_np(::pthread_self(), "mcpsh-spawner");  // as top -H and perf show it
      use_default_slices();
      sigset_t all;
      ::sigfillset(&all);
      ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
    });
  }

  // Every asio handler of the runner goes through this: it holds the Impl only weakly,
  // and holds it whole while it runs, so that an on_done that destroys the runner does
  // not pull it from under the handler's feet. `closed` then makes the rest a no-op.
  template <class Body>
  auto guarded(Body body) {
    return [weak = Weak(weak_from_this()), body = std::move(body)](auto&&... args) mutable {
      auto self = weak.lock();
      if (!self || self->closed) return;
      body(*self, std::forward<decltype(args)>(args)...);
    };
  }

  // ---- the reaper ---------------------------------------------------------------------

  void arm_reaper() {
    sigchld.async_wait(guarded([](Impl& self, const boost::system::error_code& ec, int) {
      if (ec) return;
      self.reap_all();
      if (!self.closed) self.arm_reaper();
    }));
  }

  // One pass over every child that has exited: run leaders, escapees re-parented to us,
  // launches that failed inside Boost.Process. A leader's group is killed while the
  // leader is still a zombie (WNOWAIT), so the group id cannot have been reused yet.
  void reap_all() {
    while (!closed) {
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
      const pid_t pid = info.si_pid;
      auto known = by_pid.find(pid);
      // A child the loop does not know may be a leader the spawner thread just forked:
      // only the gate can tell, and not while a fork is in progress (then the spawn's
      // report brings us back here).
      std::optional<SpawnGate::Lock> gate_lock;
      if (known == by_pid.end() && pid != watchdog.pid()) {
        gate_lock = gate.try_enter();
        if (!gate_lock) {
          reap_deferred = true;
          return;
        }
      }
      const bool unclaimed = gate_lock && gate.unclaimed(*gate_lock, pid);
      if (known != by_pid.end() || unclaimed) signal_group(pid, SIGKILL);
      int status = 0;
      rusage usage{};
      while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      if (known == by_pid.end()) {
        if (pid == watchdog.pid()) watchdog.forget();
        if (unclaimed) {  // for claim(); from now on its pid may be reused
          gate.reaped(*gate_lock, pid);
          early_exits[pid] = {status, usage};
        }
        continue;
      }
      RunId id = known->second;
      by_pid.erase(known);
      if (auto it = runs.find(id); it != runs.end()) on_leader_exit(it->second, status, usage);
    }
  }

  void on_leader_exit(RunPtr run, int status, const rusage& usage) {
    run->reaped = true;
    run->wait_status = status;
    run->usage = usage;
    if (run->deadline) run->deadline->cancel();
    if (run->grace) run->grace->cancel();
    if (run->pending_streams == 0) return finish(run);
    // Its children are ours now; one that escaped the group may be holding a pipe.
    sweep_escapees();
    run->drain.emplace(io, kDrainAfterExit);
    run->drain->async_wait([run](const boost::system::error_code& ec) {
      if (ec || run->finished) return;
      for (auto* s : {&run->out, &run->err, &run->chan})
        if (*s) (*s)->close();
    });
  }

  // ---- escapees -----------------------------------------------------------------------

  // Kills every child of ours that is not a run leader, unless it still belongs to a live
  // run (by process group, or by cookie for one that left its group).
  void sweep_escapees() {
    auto gate_lock = gate.try_enter();
    if (!gate_lock) {  // a fork in progress: its child is no escapee; sweep after it
      sweep_deferred = true;
      return;
    }
    for (pid_t pid : own_children()) {
      if (by_pid.count(pid) || pid == watchdog.pid() || gate.unclaimed(*gate_lock, pid)) continue;
      const pid_t group = ::getpgid(pid);
      bool owned = false;
      for (const auto& [id, run] : runs)
        if (run->live() && run->pid == group) owned = true;
      if (owned) continue;
      if (auto id = run_cookie_of(pid)) {
        auto it = runs.find(*id);
        if (it != runs.end() && it->second->live()) continue;
      }
      kill_escapee(pid);
    }
  }

  void sweep_later() {
    if (late_sweep_armed) return;
    late_sweep_armed = true;
    late_sweep.expires_after(kLateSweep);
    // Only close() cancels this timer, and after it nothing is armed again.
    late_sweep.async_wait(guarded([](Impl& self, const boost::system::error_code& ec) {
      if (ec) return;
      self.late_sweep_armed = false;
      self.sweep_escapees();
    }));
  }

  // ---- completion ---------------------------------------------------------------------

  void stream_closed(RunPtr run) {
    if (--run->pending_streams == 0 && run->reaped) finish(run);
  }

  // Calls on_done last: it may destroy the runner (see guarded()).
  void finish(RunPtr run) {
    if (run->finished) return;
    run->finished = true;
    for (auto* t : {&run->drain, &run->deadline, &run->grace})
      if (*t) (*t)->cancel();
    for (auto* s : {&run->out, &run->err, &run->chan})
      if (*s) (*s)->close();
    if (auto rest = run->stderr_lines.flush()) log_stderr_line(*run, std::move(*rest));
    if (run->callbacks.on_stderr_line) {
      if (run->stderr_unlogged)
        run->callbacks.on_stderr_line("(" + std::to_string(run->stderr_unlogged) +
                                      " more bytes of stderr were not logged)");
      if (run->channel_dropped)
        run->callbacks.on_stderr_line(
            "(" + std::to_string(run->channel_dropped_lines) + " side-channel lines (" +
            std::to_string(run->channel_dropped) + " bytes) over the limit of " +
            std::to_string(run->limits.max_channel) + " bytes per call were dropped)");
    }

    Outcome& o = run->outcome;
    const int st = run->wait_status;
    if (WIFSIGNALED(st)) o.signal = WTERMSIG(st);
    if (WIFEXITED(st)) o.exit_code = WEXITSTATUS(st);
    if (run->forced) {
      o.ending = *run->forced;
    } else {
      o.ending = WIFEXITED(st) ? Ending::kExited : Ending::kSignaled;
    }
    o.cpu_time = cpu_time(run->usage);
    o.cpu_limit_hit = cpu_limit_hit(*run);
    o.stdout_head = run->stdout_head.take();
    o.stdout_total = run->stdout_head.total();
    o.stderr_tail = run->stderr_tail.take();
    o.stderr_total = run->stderr_tail.total();
    o.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - run->started);
    runs.erase(run->id);
    sweep_escapees();
    sweep_later();
    remove_scratch_later(std::move(run->scratch));
    auto done = std::move(run->callbacks.on_done);
    run->callbacks = {};
    if (done) done(std::move(o));
  }

  // RLIMIT_CPU ends a process with SIGXCPU (SIGKILL at the hard limit); bash reports a
  // child ended that way as status 128+SIGXCPU. The CPU time (the leader's and that of
  // the children it waited for) must have reached the limit too, so that an unrelated
  // SIGKILL or exit status is not mistaken for it. "Reached" means at least half of it:
  // the kernel checks the limit against tick-counted CPU time, while wait4 reports the
  // precise run time, and on a loaded virtual machine (ticks charged while the host ran
  // something else) the latter was seen 10% to 25% short of the limit at SIGXCPU.
  static bool cpu_limit_hit(const Run& run) {
    if (!run.limits.cpu_seconds || run.forced) return false;
    const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::seconds(*run.limits.cpu_seconds));
    if (cpu_time(run.usage) < limit / 2) return false;
    const int st = run.wait_status;
    if (WIFSIGNALED(st)) return WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL;
    return WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGXCPU;
  }

  // ---- streams ------------------------------------------------------------------------

  using Sink = void (*)(Run&, std::string_view);

  // One buffer per stream for the whole run, so that a tool printing gigabytes costs no
  // allocation per read. The handler holds the run (and so the stream and buffer).
  void read_loop(RunPtr run, asio::posix::stream_descriptor& stream, std::vector<char>& buffer,
                 Sink sink) {
    if (buffer.empty()) buffer.resize(kReadChunk);
    stream.async_read_some(
        asio::buffer(buffer),
        guarded([run, &stream, &buffer, sink](Impl& self, const boost::system::error_code& ec,
                                              std::size_t n) {
          if (run->finished) return self.stream_closed(run);
          if (n > 0) sink(*run, std::string_view(buffer.data(), n));
          if (ec) return self.stream_closed(run);
          self.read_loop(run, stream, buffer, sink);
        }));
  }

  static void sink_stdout(Run& run, std::string_view bytes) { run.stdout_head.append(bytes); }
  static void sink_stderr(Run& run, std::string_view bytes) {
    run.stderr_tail.append(bytes);
    if (run.stderr_unlogged > 0) {  // over the log budget: count, do not even split lines
      run.stderr_unlogged += bytes.size();
      return;
    }
    run.stderr_lines.feed(bytes, [&](std::string line) { log_stderr_line(run, std::move(line)); });
  }
  // The diagnostic log gets a run's stderr lines up to max_stderr bytes: a tool that
  // floods stderr must not flood the host's log.
  static void log_stderr_line(Run& run, std::string line) {
    if (!run.callbacks.on_stderr_line) return;
    if (run.stderr_logged + line.size() > std::max<std::size_t>(run.limits.max_stderr, 1024)) {
      run.stderr_unlogged += line.size() + 1;
      return;
    }
    run.stderr_logged += line.size() + 1;
    run.callbacks.on_stderr_line(std::move(line));
  }
  // Channel lines become log notifications and progress: bounded per run like stderr.
  // Content lines (channel_events.h) carry result blocks: bounded together by the output
  // limit instead, in their base64 form; one over it is replaced by a short too_large
  // line so that the result can say what was dropped.
  static void sink_channel(Run& run, std::string_view bytes) {
    // A run being terminated reports nothing more: its caller has given up on it.
    if (run.forced) return;
    run.channel_lines.feed(bytes, [&](std::string line) {
      if (is_content_line(line)) {
        const std::uint64_t budget = content_budget(run.limits);
        const std::uint64_t cost = std::max<std::uint64_t>(line.size() + 1, kMinContentLineCost);
        if (run.content_passed + cost > budget) {
          std::string kind = line.substr(0, line.find('\t'));
          line = "too_large\t" + std::to_string(line.size()) + "\t" + kind;
        } else {
          run.content_passed += cost;
        }
        if (run.callbacks.on_channel_line) run.callbacks.on_channel_line(std::move(line));
        return;
      }
      if (line.size() > kMaxEventLine) line.resize(kMaxEventLine);
      if (run.channel_dropped > 0 ||
          run.channel_passed + line.size() + 1 > run.limits.max_channel) {
        run.channel_dropped += line.size() + 1;
        ++run.channel_dropped_lines;
        return;
      }
      run.channel_passed += line.size() + 1;
      if (run.callbacks.on_channel_line) run.callbacks.on_channel_line(std::move(line));
    });
  }

  // ---- starting and stopping ------------------------------------------------------------

  void fail_later(RunCallbacks callbacks, std::string why) {
    asio::post(io, [callbacks = std::move(callbacks), why = std::move(why)]() {
      Outcome o;
      o.ending = Ending::kFailedToStart;
      o.start_error = why;
      if (callbacks.on_done) callbacks.on_done(std::move(o));
    });
  }

  // Watches a pipe's read end; the descriptor stays ours (in fd) if that fails.
  void watch(std::optional<asio::posix::stream_descriptor>& stream, FdGuard& fd) {
    stream.emplace(io);
    boost::system::error_code ec;
    stream->assign(fd.fd, ec);  // epoll_ctl: ENOMEM, ENOSPC (fs.epoll.max_user_watches)
    if (ec) throw std::runtime_error("watching the child's pipe: " + ec.message());
    fd.release();
  }

  // Makes the pipes and the child's descriptors here, on the loop (cheap system calls),
  // and leaves fork and exec to the spawner thread; claim() takes the run on from there.
  RunId start(const LaunchSpec& spec, RunCallbacks callbacks) {
    FdGuard given_fd3(spec.fd3), given_fd5(spec.fd5);  // ours now, whatever happens below
    RunId id = next_id++;
    auto run = std::make_shared<Run>(spec.limits);
    run->id = id;
    run->callbacks = std::move(callbacks);
    run->started = Clock::now();
    if (const auto& box = spec.confinement.sandbox; box && !box->unavailable().empty()) {
      fail_later(std::move(run->callbacks), box->unavailable());  // fails closed
      return id;
    }
    auto job = std::make_shared<SpawnJob>();
    try {
      Pipe out = make_pipe(), err = make_pipe(), report = make_pipe();
      std::optional<Pipe> chan;
      if (spec.channel) chan = make_pipe();
      // The child's ends, lifted above the 0..5 range they are dup2'ed onto.
      job->c_null = lift(open_dev_null().fd, kChildFdFloor);
      job->c_out = lift(out.write.fd, kChildFdFloor);
      job->c_err = lift(err.write.fd, kChildFdFloor);
      job->c_report = lift(report.write.fd, kChildFdFloor);
      if (::fcntl(report.read.fd, F_SETFL, O_NONBLOCK) != 0)
        throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
      if (given_fd3.fd >= 0) job->c_payload = lift(given_fd3.fd, kChildFdFloor);
      if (given_fd5.fd >= 0) job->c_extra = lift(given_fd5.fd, kChildFdFloor);
      if (chan) {
        job->c_chan = lift(chan->write.fd, kChildFdFloor);
        run->chan_fd = std::move(chan->read);
      }
      job->report = std::move(report.read);
      run->out_fd = std::move(out.read);
      run->err_fd = std::move(err.read);
    } catch (const std::exception& e) {
      fail_later(std::move(run->callbacks), e.what());
      return id;
    }
    ChildPlan& plan = job->setup.plan;
    plan.parent = ::getpid();
    plan.devnull = job->c_null.fd;
    plan.out = job->c_out.fd;
    plan.err = job->c_err.fd;
    plan.payload = job->c_payload.fd;
    plan.channel = job->c_chan.fd;
    plan.extra = job->c_extra.fd;
    plan.report = job->c_report.fd;
    plan.cpu_seconds = spec.limits.cpu_seconds;
    plan.memory_bytes = spec.limits.memory_bytes;
    plan.drop_ptrace = hidden;
    plan.niceness = std::clamp(spec.niceness, 0, 19);
    job->idle_class = spec.idle_class;
    job->exe = spec.argv.at(0);
    job->args.assign(spec.argv.begin() + 1, spec.argv.end());
    job->env = spec.env;
    job->env_policy = spec.confinement.env;
    job->sandbox = spec.confinement.sandbox;
    job->readable = spec.readable;
    job->cookie = std::to_string(::getpid()) + "." + std::to_string(id);

    runs[id] = run;
    arm_deadline(run, spec.limits.timeout);
    // The report is made here, on the loop: the spawner thread only posts it.
    auto report = guarded([id, job](Impl& self) { self.claim(id, *job); });
    asio::post(spawner, [this, job, report = std::move(report)]() mutable {
      spawn(*job);
      job->close_child_ends();
      asio::post(io, std::move(report));
    });
    return id;
  }

  // On the spawner thread: fork and exec, holding the gate until the pid is recorded.
  // Touches nothing but the job, the gate and the process environment (read only).
  void spawn(SpawnJob& job) {
    // Made before the fork, closed after it (its rulesets are the child's to apply).
    std::optional<sandbox::SpawnConfinement> confinement;
    try {
      if (job.sandbox) {
        auto made = job.sandbox->for_spawn(job.readable, job.exe, kChildFdFloor);
        if (auto* error = std::get_if<std::string>(&made)) {
          job.error = *error;
          return;
        }
        confinement = std::move(std::get<sandbox::SpawnConfinement>(made));
        job.scratch = confinement->scratch();
        note_scratch(job.scratch, true);
        job.env.emplace_back("TMPDIR", job.scratch);
        job.setup.plan.confinement = confinement->child();
        if (job.sandbox->isolates()) {
          // Through bwrap, and this binary inside it (sandbox/confine_exec.h).
          job.setup.plan.confinement.self_fd = host_binary();
          auto argv = job.sandbox->wrap(*confinement, job.exe, job.args);
          job.exe = argv.front();
          job.args.assign(argv.begin() + 1, argv.end());
        }
      }
      bp::environment env = child_environment(job.env_policy, job.env, job.cookie);
      std::error_code launch_error;
      auto held = gate.hold();
      // vfork: the child borrows the host's memory until it execs, so the host's pages are
      // neither copied nor made copy-on-write (the loop thread then paid a page fault and a
      // TLB flush on its next write to each), and glibc's fork locks (malloc's among them)
      // are not taken. The child set-up makes raw system calls only and this thread blocks
      // every signal, so no handler of the host's can run in the child before
      // run_child_setup has reset them.
      bp::child child(bp::exe = job.exe, bp::args = job.args, env, job.setup, launch_error,
                      bp::posix::use_vfork);
      // Boost.Process returns an invalid child without setting the error code when its own
      // pipe(2) or fcntl(2) before the fork fails (EMFILE, say): errno still says why.
      const int launch_errno = errno;
      if (launch_error || !child.valid()) {
        if (!launch_error) launch_error = std::error_code(launch_errno, std::generic_category());
        job.error = job.exe + ": " + launch_error.message();
        return;
      }
      // Boost.Process returned once the child exec'ed or exited: a failed set-up has
      // written its report by now. That child has exited; reap_all reaps it.
      if (auto setup_error = read_child_setup_error(job.report.fd)) {
        child.detach();
        job.error = *setup_error;
        return;
      }
      job.pid = child.id();
      child.detach();  // we reap it ourselves (see reap_all)
      if (job.idle_class) {
        // Here, once it has exec'ed, and not in the child's set-up: a vfork child that waits
        // for a CPU in the idle class before its exec would hold this thread, and with it
        // every launch, as long. Best effort, as the nice value is (same user: no privilege).
        const sched_param param{};
        ::sched_setscheduler(job.pid, SCHED_IDLE, &param);
      }
      gate.forked(held, job.pid);
    } catch (const std::exception& e) {
      job.error = job.exe + ": " + e.what();
    }
    if (job.pid <= 0 && !job.scratch.empty()) {
      remove_scratch_now(job.scratch);
      job.scratch.clear();
    }
  }

  // Scratch folders of sandboxed runs not yet removed: a removal is posted to the janitor
  // thread when a run finishes (a tool may leave many files), and close() removes what
  // is left, as a stopped thread pool drops what was queued.
  std::mutex scratch_mutex;
  std::set<std::string> scratch_left;
  void note_scratch(const std::string& path, bool made) {
    std::lock_guard lock(scratch_mutex);
    if (made)
      scratch_left.insert(path);
    else
      scratch_left.erase(path);
  }
  void remove_scratch_now(const std::string& path) {
    sandbox::remove_scratch(path);
    note_scratch(path, false);
  }
  void remove_scratch_later(std::string path) {
    if (path.empty()) return;
    asio::post(janitor, [this, path = std::move(path)] { remove_scratch_now(path); });
  }

  // Back on the loop: the run gets its pid and its pipes watched, or fails to start. A run
  // cancelled or past its deadline meanwhile is signalled now; a leader that has exited
  // already (reaped while unclaimed) ends as if it exited now.
  void claim(RunId id, SpawnJob& job) {
    // A leader reaped while unclaimed has left the gate already (and its pid may be
    // another's now): it gets no signal and no claim.
    const bool exited = job.pid > 0 && early_exits.count(job.pid);
    if (job.pid > 0 && !exited) gate.claim(job.pid);
    auto it = runs.find(id);
    if (it == runs.end()) {  // cannot happen while the runner is open
      if (!exited) signal_group(job.pid, SIGKILL);
      early_exits.erase(job.pid);
      remove_scratch_later(std::move(job.scratch));
      return after_spawn();
    }
    RunPtr run = it->second;
    run->scratch = std::move(job.scratch);
    try {
      if (job.pid <= 0) throw std::runtime_error(job.error);
      run->pid = job.pid;
      by_pid[run->pid] = id;  // until reaped, also when it fails below
      watch(run->out, run->out_fd);
      watch(run->err, run->err_fd);
      run->pending_streams = 2;
      if (run->chan_fd.fd >= 0) {
        watch(run->chan, run->chan_fd);
        run->pending_streams = 3;
      }
    } catch (const std::exception& e) {
      // A child that runs while nothing watches its pipes would be unsupervised: its
      // group is killed now, and reap_all reaps it (it stays in by_pid until then).
      if (exited) {
        early_exits.erase(run->pid);
        by_pid.erase(run->pid);
      } else {
        signal_group(run->pid, SIGKILL);
      }
      runs.erase(it);
      for (auto* t : {&run->deadline, &run->grace})
        if (*t) (*t)->cancel();
      for (auto* s : {&run->out, &run->err, &run->chan})
        if (*s) (*s)->close();
      fail_later(std::move(run->callbacks), e.what());
      return after_spawn();
    }
    read_loop(run, *run->out, run->buffers[0], &Impl::sink_stdout);
    read_loop(run, *run->err, run->buffers[1], &Impl::sink_stderr);
    if (run->chan) read_loop(run, *run->chan, run->buffers[2], &Impl::sink_channel);
    if (exited) {
      auto [status, usage] = early_exits[run->pid];
      early_exits.erase(run->pid);
      by_pid.erase(run->pid);
      on_leader_exit(run, status, usage);
    } else if (run->kill_at) {  // terminate() came first
      signal_group(run->pid, SIGTERM);
      arm_grace(run);
    }
    after_spawn();
  }

  // What had to wait while the gate was held.
  void after_spawn() {
    if (std::exchange(reap_deferred, false)) reap_all();
    if (std::exchange(sweep_deferred, false)) sweep_escapees();
  }

  void arm_deadline(const RunPtr& run, std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0) return;
    run->deadline.emplace(io, timeout);
    run->deadline->async_wait(guarded([run](Impl& self, const boost::system::error_code& ec) {
      if (!ec) self.terminate(run, Ending::kTimedOut, run->limits.kill_grace);
    }));
  }

  void set_deadline(RunId id, std::chrono::milliseconds timeout) {
    auto it = runs.find(id);
    if (it == runs.end() || !it->second->live()) return;
    auto run = it->second;
    if (run->deadline) run->deadline->cancel();
    run->deadline.reset();
    run->limits.timeout = timeout;
    arm_deadline(run, timeout);
  }

  // SIGTERM to the whole group now, SIGKILL when the grace is over. A second request
  // may bring the SIGKILL forward, never push it back; the first reason is kept. A run
  // still starting gets its signals when claim() has its pid.
  void terminate(const RunPtr& run, Ending why, std::chrono::milliseconds grace) {
    if (!run->live()) return;
    if (!run->forced) run->forced = why;
    const auto kill_at = Clock::now() + grace;
    if (run->kill_at && *run->kill_at <= kill_at) return;
    const bool first = !run->kill_at;
    run->kill_at = kill_at;
    if (run->pid <= 0) return;
    if (first) signal_group(run->pid, SIGTERM);
    arm_grace(run);
  }

  void arm_grace(const RunPtr& run) {
    run->grace.emplace(io, *run->kill_at);
    run->grace->async_wait([run](const boost::system::error_code& ec) {
      // The leader is unreaped (a zombie at worst), so its group id is still ours.
      if (!ec && !run->reaped) signal_group(run->pid, SIGKILL);
    });
  }

  // When the ProcessRunner is destroyed: nothing may outlive the host, and nothing queued
  // on the io_context may act any more. Kills every group still running and every
  // escapee, reaping as it goes, for a bounded time.
  void close() {
    closed = true;
    // A launch under way finishes (its report then does nothing); those queued are dropped.
    spawner.stop();
    spawner.join();
    janitor.stop();
    janitor.join();
    for (pid_t pid : gate.take_unclaimed()) signal_group(pid, SIGKILL);
    boost::system::error_code ignored;
    sigchld.cancel(ignored);
    late_sweep.cancel();
    for (auto& [id, run] : runs) {
      for (auto* t : {&run->drain, &run->deadline, &run->grace})
        if (*t) (*t)->cancel();
      for (auto* s : {&run->out, &run->err, &run->chan})
        if (*s) (*s)->close(ignored);
      run->callbacks = {};  // what they hold goes now, not when the last handler does
      if (!run->reaped) signal_group(run->pid, SIGKILL);
    }
    for (int round = 0; round < 100; ++round) {
      auto children = own_children();
      std::erase(children, watchdog.pid());  // it exits by itself once we are gone
      if (children.empty()) break;
      for (pid_t pid : children) {
        if (by_pid.count(pid)) signal_group(pid, SIGKILL);
        kill_escapee(pid);
        ::waitpid(pid, nullptr, WNOHANG);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    runs.clear();
    by_pid.clear();
    std::set<std::string> left;
    {
      std::lock_guard lock(scratch_mutex);
      left.swap(scratch_left);
    }
    for (const auto& path : left) sandbox::remove_scratch(path);
  }
};

ProcessRunner::ProcessRunner(asio::io_context& io, RunnerOptions options)
    : impl_(std::make_shared<Impl>(io, options)) {
  impl_->arm_reaper();
}

ProcessRunner::~ProcessRunner() { impl_->close(); }

RunId ProcessRunner::start(const LaunchSpec& spec, RunCallbacks callbacks) {
  return impl_->start(spec, std::move(callbacks));
}

void ProcessRunner::set_deadline(RunId id, std::chrono::milliseconds timeout) {
  impl_->set_deadline(id, timeout);
}

void ProcessRunner::cancel(RunId id) {
  auto it = impl_->runs.find(id);
  if (it != impl_->runs.end())
    impl_->terminate(it->second, Ending::kCancelled, it->second->limits.kill_grace);
}

void ProcessRunner::terminate_all(std::chrono::milliseconds grace) {
  auto runs = impl_->runs;  // a copy: terminate() must not be disturbed by callbacks
  for (auto& [id, run] : runs) impl_->terminate(run, Ending::kShutdown, grace);
}

std::size_t ProcessRunner::running() const { return impl_->runs.size(); }

}  // namespace mcpsh::execution
