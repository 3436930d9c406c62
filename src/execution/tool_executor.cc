#include "execution/tool_executor.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <variant>

#include "execution/fd_guard.h"

namespace mcpsh::execution {

namespace asio = boost::asio;

namespace {

// What identifies a version of a script file on disk.
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = -1;
  long long mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino, st.st_size,
          static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec};
}

bool same_limits_except_timeout(const Limits& a, const Limits& b) {
  return a.kill_grace == b.kill_grace && a.max_stdout == b.max_stdout &&
         a.max_stderr == b.max_stderr && a.cpu_seconds == b.cpu_seconds &&
         a.memory_bytes == b.memory_bytes;
}

std::string failed(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// A system call that failed: errno and a text naming the step.
struct Failure {
  int error = 0;
  std::string text;
};

// Writes all of `bytes` to fd (at offset 0 and on, leaving the file offset alone, when
// `positioned`); nullopt on success.
std::optional<Failure> write_all(int fd, std::string_view bytes, bool positioned,
                                 const char* what) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const char* from = bytes.data() + done;
    const std::size_t size = bytes.size() - done;
    ssize_t n =
        positioned ? ::pwrite(fd, from, size, static_cast<off_t>(done)) : ::write(fd, from, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failure{errno, failed(what)};
    done += static_cast<std::size_t>(n);
  }
  return std::nullopt;
}

}  // namespace

struct ToolExecutor::Impl : std::enable_shared_from_this<ToolExecutor::Impl> {
  // Shared between a process and its callbacks: who to tell when it reports or ends.
  struct Route {
    RunCallbacks target;  // empty while the process waits for a call
    bool assigned = false;
    bool retired = false;                    // we let it go; its end is expected
    std::optional<std::string> start_error;  // the call could not be handed to it
    std::vector<std::string> early_stderr;   // lines printed while sourcing, before a call
    std::string script;
    std::string pool;  // key of the pool it was started for
    FdGuard reply;     // ToolLaunch::replies: the write end of the tool's fd 3, kept
    RunId id = 0;
  };
  // A bootstrap process waiting for its call, with the host's ends of its fds 3 and 5.
  struct Waiting {
    RunId id = 0;
    FdGuard control;    // write end of the child's fd 3
    FdGuard arguments;  // the host's copy of the child's fd 5
    std::shared_ptr<Route> route;
  };
  // Processes for one script under one confinement.
  struct ScriptPool {
    std::string script;
    Confinement confinement;
    FileStamp stamp;
    std::deque<Waiting> ready;
    bool wanted = false;  // called (or hinted): keep processes ready for it
    bool broken = false;  // a warm process died unused: do not warm again until it changes
  };

  asio::io_context& io;
  Runner& runner;
  ExecutorOptions options;
  std::size_t idle_cap;
  std::map<std::string, ScriptPool> pools;
  std::deque<std::string> to_fill;  // scripts that may need a process, in order
  bool fill_posted = false;
  bool retiring = false;
  // Calls that take answers while they run (ToolLaunch::replies), by run.
  std::map<RunId, std::shared_ptr<Route>> replying;
  ToolExecutor::WarmCounts counts;

  Impl(asio::io_context& i, Runner& r, ExecutorOptions o)
      : io(i), runner(r), options(std::move(o)) {
    idle_cap = options.max_idle_warm > 0
                   ? options.max_idle_warm
                   : std::clamp<std::size_t>(2 * options.warm_per_script, 8, 64);
  }

  void warn(const std::string& text) {
    if (options.on_warning) options.on_warning(text);
  }

  std::size_t idle() const {
    std::size_t n = 0;
    for (const auto& [script, pool] : pools) n += pool.ready.size();
    return n;
  }

  // Spawns the bootstrap for `script`: the process, or why it could not be started.
  static std::string pool_key(const std::string& script, const Confinement& c) {
    // Every part length-prefixed, so that no two confinements give one key. Prepared
    // sandboxes are shared and the pool holds its own: the address identifies it.
    std::string key;
    auto add = [&key](const std::string& part) { key += std::to_string(part.size()) + ':' + part; };
    add(script);
    add(c.env.allow ? "allow" : "all");
    if (c.env.allow)
      for (const auto& p : *c.env.allow) add(p);
    add("deny");
    for (const auto& p : c.env.deny) add(p);
    add(std::to_string(reinterpret_cast<std::uintptr_t>(c.sandbox.get())));
    return key;
  }

  ScriptPool& pool_for(const std::string& script, const Confinement& c, std::string& key) {
    key = pool_key(script, c);
    auto [it, made] = pools.try_emplace(key);
    if (made) {
      it->second.script = script;
      it->second.confinement = c;
    }
    return it->second;
  }

  std::variant<Waiting, std::string> spawn(const std::string& key, const std::string& script,
                                           const Limits& limits, const Confinement& confinement) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return failed("pipe2 for the call");
    FdGuard control_read(fds[0]), control_write(fds[1]);
    FdGuard arguments(::memfd_create("mcp-shell-host-arguments", MFD_CLOEXEC));
    if (arguments.fd < 0) return failed("memfd_create for the arguments");
    FdGuard child_arguments(::fcntl(arguments.fd, F_DUPFD_CLOEXEC, 0));
    if (child_arguments.fd < 0) return failed("dup of the arguments file");

    auto route = std::make_shared<Route>();
    route->script = script;
    route->pool = key;
    std::weak_ptr<Impl> self = weak_from_this();
    RunCallbacks callbacks;
    callbacks.on_done = [self, route](Outcome o) {
      if (auto impl = self.lock()) impl->ended(route, std::move(o));
    };
    callbacks.on_channel_line = [self, route](std::string line) {
      if (!self.expired() && route->assigned && route->target.on_channel_line)
        route->target.on_channel_line(std::move(line));
    };
    callbacks.on_stderr_line = [self, route](std::string line) {
      if (self.expired()) return;
      if (route->assigned) {
        if (route->target.on_stderr_line) route->target.on_stderr_line(std::move(line));
      } else if (route->early_stderr.size() < 200) {
        route->early_stderr.push_back(std::move(line));
      }
    };
    LaunchSpec spec = make_tool_launch(options.bash, script, limits, confinement);
    spec.fd3 = control_read.release();  // the runner owns these two from here on
    spec.fd5 = child_arguments.release();
    RunId id = runner.start(spec, std::move(callbacks));
    return Waiting{id, std::move(control_write), std::move(arguments), route};
  }

  // Hands the call to a process waiting on fd 3: the arguments (and answers) into its fd 5
  // file, then the call line (tool_launch.h). Either way the host's ends are closed: a process that
  // did not get its call sees end of file on fd 3 and exits. nullopt on success, else what failed.
  // The file offset stays 0: the child reads the file from its start.
  static std::optional<Failure> hand_over(Waiting& w, const ToolLaunch& launch) {
    // A view, not `empty() ? "{}" : arguments_json`: that builds a copy of the payload.
    const std::string_view arguments =
        launch.arguments_json.empty() ? std::string_view("{}") : launch.arguments_json;
    // With answers, one file of both (a copy of the arguments: calls that carry answers
    // are retries of a question, their arguments small as a rule).
    auto error = launch.input_count == 0
                     ? write_all(w.arguments.fd, arguments, true, "writing the arguments")
                     : write_all(w.arguments.fd, std::string(arguments) + "\n" + launch.inputs,
                                 true, "writing the arguments and answers");
    w.arguments.reset();
    const std::string call_line =
        launch.function + " " +
        (launch.client_capabilities.empty() ? std::string("-") : launch.client_capabilities) + " " +
        std::to_string(launch.input_count) + (launch.replies ? " wait" : " end") + "\n";
    if (!error) error = write_all(w.control.fd, call_line, false, "handing the call to bash");
    if (!error && launch.replies) {
      // Answers are written without blocking the loop: a pipe as large as allowed (1 MiB
      // by default on Linux), and a line that does not fit is refused (reply()).
      ::fcntl(w.control.fd, F_SETPIPE_SZ, 1 << 20);
      ::fcntl(w.control.fd, F_SETFL, ::fcntl(w.control.fd, F_GETFL) | O_NONBLOCK);
      w.route->reply = std::move(w.control);
      w.route->id = w.id;
    }
    w.control.reset();
    return error;
  }

  void ended(const std::shared_ptr<Route>& route, Outcome o) {
    if (route->reply.fd >= 0) {
      replying.erase(route->id);
      route->reply.reset();
    }
    if (route->assigned) {
      if (route->start_error) {
        o.ending = Ending::kFailedToStart;
        o.start_error = *route->start_error;
      }
      auto done = std::move(route->target.on_done);
      route->target = {};
      route->assigned = false;
      route->retired = true;
      if (done) done(std::move(o));
      // The process this call used is replaced only now, and in a later turn of the loop:
      // a spawn costs the host a fork and an exec handshake, which must not sit between a
      // call and its response.
      want_fill(route->pool);
      return;
    }
    if (route->retired || retiring) return;
    // A warm process ended before it had a call: sourcing the script fails or exits.
    auto it = pools.find(route->pool);
    if (it == pools.end()) return;
    auto& ready = it->second.ready;
    std::erase_if(ready, [&](const Waiting& w) { return w.route == route; });
    if (!it->second.broken) {
      it->second.broken = true;
      warn(route->script + ": a pre-started bash ended before its call (" + describe_ending(o) +
           "); calls to this script spawn bash afresh until the script changes");
    }
  }

  // ---- spawning ahead ---------------------------------------------------------------

  void want_fill(const std::string& key) {
    if (retiring || options.warm_per_script == 0) return;
    auto it = pools.find(key);
    if (it == pools.end() || !it->second.wanted || it->second.broken) return;
    if (std::find(to_fill.begin(), to_fill.end(), key) == to_fill.end()) to_fill.push_back(key);
    post_fill();
  }

  void post_fill() {
    if (fill_posted || to_fill.empty()) return;
    fill_posted = true;
    asio::post(io, [self = weak_from_this()] {
      if (auto impl = self.lock()) impl->fill_step();
    });
  }

  // At most one spawn per turn of the event loop, round robin over the scripts that need
  // one, within the cap.
  void fill_step() {
    fill_posted = false;
    while (!to_fill.empty() && !retiring) {
      const std::string key = to_fill.front();
      to_fill.pop_front();
      auto it = pools.find(key);
      if (it == pools.end()) continue;
      ScriptPool& pool = it->second;
      const std::string& script = pool.script;
      if (FileStamp now = stamp_of(script); !(now == pool.stamp)) {
        retire(pool);
        pool.stamp = now;
        pool.broken = false;
      }
      if (pool.broken || pool.ready.size() >= options.warm_per_script) continue;
      if (idle() >= idle_cap) {
        to_fill.clear();  // refilled again as calls end
        return;
      }
      Limits waiting = options.warm_limits;
      waiting.timeout = std::chrono::milliseconds(0);  // the deadline starts with the call
      auto spawned = spawn(key, script, waiting, pool.confinement);
      if (auto* error = std::get_if<std::string>(&spawned)) {
        warn(script + ": could not start a bash ahead of its calls: " + *error);
        return;  // tried again when a call ends
      }
      pool.ready.push_back(std::move(std::get<Waiting>(spawned)));
      if (pool.ready.size() < options.warm_per_script) to_fill.push_back(key);
      break;
    }
    post_fill();
  }

  void retire(ScriptPool& pool) {
    for (auto& w : pool.ready) w.route->retired = true;
    pool.ready.clear();  // closes fd 3: its read sees end of file and it exits
  }

  // ---- calls --------------------------------------------------------------------------

  // Ends a call that never got a process, from a later turn of the loop.
  void fail_later(RunCallbacks callbacks, std::string why) {
    asio::post(io, [self = weak_from_this(), callbacks = std::move(callbacks),
                    why = std::move(why)]() mutable {
      if (self.expired() || !callbacks.on_done) return;
      Outcome o;
      o.ending = Ending::kFailedToStart;
      o.start_error = std::move(why);
      callbacks.on_done(std::move(o));
    });
  }

  RunId run(const ToolLaunch& launch, RunCallbacks callbacks) {
    std::string key;
    ScriptPool& pool = pool_for(launch.script, launch.confinement, key);
    FileStamp now = stamp_of(launch.script);
    if (!(now == pool.stamp)) {
      retire(pool);
      pool.stamp = now;
      pool.broken = false;
    }
    pool.wanted = options.warm_per_script > 0;
    const bool warm_fits = same_limits_except_timeout(launch.limits, options.warm_limits);
    if (warm_fits && !pool.ready.empty()) {
      Waiting w = std::move(pool.ready.front());
      pool.ready.pop_front();
      w.route->target = std::move(callbacks);
      w.route->assigned = true;
      if (!hand_over(w, launch)) {
        runner.set_deadline(w.id, launch.limits.timeout);
        if (auto& early = w.route->early_stderr; !early.empty()) {
          if (w.route->target.on_stderr_line)
            for (auto& line : early) w.route->target.on_stderr_line(std::move(line));
          early.clear();
        }
        if (launch.replies) replying[w.id] = w.route;
        ++counts.hits;
        return w.id;  // replaced when this call ends (see ended())
      }
      // It died under us, or its file could not take the arguments: let it go (its fd 3
      // is closed) and spawn afresh below.
      callbacks = std::move(w.route->target);
      w.route->target = {};
      w.route->assigned = false;
      w.route->retired = true;
    }
    ++counts.misses;
    auto spawned = spawn(key, launch.script, launch.limits, launch.confinement);
    if (auto* error = std::get_if<std::string>(&spawned)) {
      fail_later(std::move(callbacks), *error);
      return 0;
    }
    Waiting& fresh = std::get<Waiting>(spawned);
    const RunId id = fresh.id;
    fresh.route->target = std::move(callbacks);
    fresh.route->assigned = true;
    // EPIPE: the process is gone already (bash missing, the script exits at top level);
    // its own ending says why. Anything else: it sees end of file on fd 3 and exits, and
    // the call reports what failed.
    if (auto error = hand_over(fresh, launch); error && error->error != EPIPE) {
      fresh.route->start_error = error->text;
      runner.cancel(id);
    }
    if (launch.replies && fresh.route->reply.fd >= 0) replying[id] = fresh.route;
    runner.set_deadline(id, launch.limits.timeout);
    return id;
  }

  bool reply(RunId id, std::string_view line) {
    auto it = replying.find(id);
    if (it == replying.end() || it->second->reply.fd < 0) return false;
    const int fd = it->second->reply.fd;
    const int capacity = ::fcntl(fd, F_GETPIPE_SZ);
    int queued = 0;
    if (capacity <= 0 || ::ioctl(fd, FIONREAD, &queued) != 0 ||
        line.size() > static_cast<std::size_t>(capacity - queued))
      return false;
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
};

ToolExecutor::ToolExecutor(asio::io_context& io, Runner& runner, ExecutorOptions options)
    : impl_(std::make_shared<Impl>(io, runner, std::move(options))) {}

ToolExecutor::~ToolExecutor() { retire_warm(); }

void ToolExecutor::warm(const std::vector<WarmTarget>& targets) {
  if (impl_->options.warm_per_script == 0 || impl_->retiring) return;
  // All or nothing: warming the first few of a large directory would keep its later
  // scripts cold however often they are called.
  if (targets.size() * impl_->options.warm_per_script > impl_->idle_cap) return;
  for (const auto& t : targets) {
    std::string key;
    auto& pool = impl_->pool_for(t.script, t.confinement, key);
    if (!pool.wanted) pool.stamp = stamp_of(t.script);
    pool.wanted = true;
    impl_->want_fill(key);
  }
}

RunId ToolExecutor::run(const ToolLaunch& launch, CallCallbacks callbacks) {
  RunCallbacks raw;
  raw.on_done = std::move(callbacks.on_done);
  raw.on_stderr_line = std::move(callbacks.on_stderr_line);
  if (callbacks.on_event)
    raw.on_channel_line = [on_event = std::move(callbacks.on_event)](std::string line) {
      if (auto event = take_channel_line(std::move(line))) on_event(std::move(*event));
    };
  return impl_->run(launch, std::move(raw));
}

bool ToolExecutor::reply(RunId id, std::string_view line) { return impl_->reply(id, line); }

void ToolExecutor::cancel(RunId id) {
  if (id != 0) impl_->runner.cancel(id);
}

void ToolExecutor::terminate_all(std::chrono::milliseconds grace) {
  retire_warm();
  impl_->runner.terminate_all(grace);
}

void ToolExecutor::retire_warm() {
  impl_->retiring = true;
  impl_->to_fill.clear();
  for (auto& [script, pool] : impl_->pools) impl_->retire(pool);
}

std::size_t ToolExecutor::idle_warm() const { return impl_->idle(); }

ToolExecutor::WarmCounts ToolExecutor::warm_counts() const { return impl_->counts; }

}  // namespace mcpsh::execution
