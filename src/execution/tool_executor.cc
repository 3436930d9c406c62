#include "execution/tool_executor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>

#include "execution/fd_guard.h"

namespace mcpsh::execution {

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

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

struct ToolExecutor::Impl {
  // Shared between a process and its callbacks: who to tell when it reports or ends.
  struct Route {
    RunCallbacks target;  // empty while the process waits for a call
    bool assigned = false;
    bool retired = false;                   // we let it go; its end is expected
    int arguments_fd = -1;                  // open until the run ends
    std::vector<std::string> early_stderr;  // lines printed while sourcing, before a call
    std::string script;
  };
  struct Warm {
    RunId id;
    int control_fd;  // write end of the child's fd 3
    std::shared_ptr<Route> route;
  };
  struct ScriptPool {
    FileStamp stamp;
    std::deque<Warm> ready;
    bool broken = false;  // a warm process died unused: do not warm again until it changes
  };

  Runner& runner;
  ExecutorOptions options;
  std::map<std::string, ScriptPool> pools;
  bool retiring = false;

  Impl(Runner& r, ExecutorOptions o) : runner(r), options(std::move(o)) {}

  void warn(const std::string& text) {
    if (options.on_warning) options.on_warning(text);
  }

  // Spawns the bootstrap for `script`; the caller gets the write end of its fd 3.
  std::optional<Warm> spawn(const std::string& script, const Limits& limits) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    auto route = std::make_shared<Route>();
    route->script = script;
    RunCallbacks callbacks;
    callbacks.on_done = [this, route](Outcome o) { ended(*route, std::move(o)); };
    callbacks.on_channel_line = [route](std::string line) {
      if (route->assigned && route->target.on_channel_line)
        route->target.on_channel_line(std::move(line));
    };
    callbacks.on_stderr_line = [route](std::string line) {
      if (route->assigned) {
        if (route->target.on_stderr_line) route->target.on_stderr_line(std::move(line));
      } else if (route->early_stderr.size() < 200) {
        route->early_stderr.push_back(std::move(line));
      }
    };
    LaunchSpec spec = make_tool_launch(options.bash, script, limits);
    spec.fd3 = fds[0];  // the runner passes it to the child and closes it
    RunId id = runner.start(spec, std::move(callbacks));
    return Warm{id, fds[1], route};
  }

  void ended(Route& route, Outcome o) {
    if (route.arguments_fd >= 0) ::close(route.arguments_fd);
    route.arguments_fd = -1;
    if (route.assigned) {
      if (route.target.on_done) route.target.on_done(std::move(o));
      // Replace the process this call used only now: starting one costs the host a fork
      // and an exec handshake, which must not sit between a call and its response.
      auto it = pools.find(route.script);
      if (it != pools.end()) fill(route.script, it->second);
      return;
    }
    if (route.retired || retiring) return;
    // A warm process ended before it had a call: sourcing the script fails or exits.
    auto it = pools.find(route.script);
    if (it == pools.end()) return;
    for (auto w = it->second.ready.begin(); w != it->second.ready.end(); ++w)
      if (w->route.get() == &route) {
        ::close(w->control_fd);
        it->second.ready.erase(w);
        break;
      }
    if (!it->second.broken) {
      it->second.broken = true;
      warn(route.script + ": a pre-started bash ended before its call (" + describe_ending(o) +
           "); calls to this script spawn bash afresh until the script changes");
    }
  }

  void fill(const std::string& script, ScriptPool& pool) {
    if (retiring || pool.broken) return;
    while (pool.ready.size() < options.warm_per_script) {
      Limits waiting = options.warm_limits;
      waiting.timeout = std::chrono::milliseconds(0);  // the deadline starts with the call
      auto warm = spawn(script, waiting);
      if (!warm) return;
      pool.ready.push_back(std::move(*warm));
    }
  }

  void retire(ScriptPool& pool) {
    for (auto& w : pool.ready) {
      w.route->retired = true;
      ::close(w.control_fd);  // its read of fd 3 sees end of file and it exits
    }
    pool.ready.clear();
  }

  // Hands the call to a process waiting on `control_fd`. False if it is gone.
  bool assign(Warm& w, const ToolLaunch& launch, RunCallbacks callbacks) {
    // The arguments go in a sealed in-memory file that the child opens by its /proc path:
    // read in blocks (bash reads a pipe byte by byte), never through argv or environ.
    int args = -1;
    try {
      args =
          make_payload_file(launch.arguments_json.empty() ? "{}" : launch.arguments_json).release();
    } catch (const std::exception&) {
      return false;
    }
    w.route->target = std::move(callbacks);
    w.route->assigned = true;
    w.route->arguments_fd = args;
    std::string control = launch.tool + "\n/proc/" + std::to_string(::getpid()) + "/fd/" +
                          std::to_string(args) + "\n";
    bool ok = write_all(w.control_fd, control);
    ::close(w.control_fd);
    if (!ok) return false;
    if (auto* early = &w.route->early_stderr; !early->empty() && w.route->target.on_stderr_line) {
      for (auto& line : *early) w.route->target.on_stderr_line(std::move(line));
      early->clear();
    }
    return true;
  }

  RunId run(const ToolLaunch& launch, RunCallbacks callbacks) {
    ScriptPool& pool = pools[launch.script];
    FileStamp now = stamp_of(launch.script);
    if (!(now == pool.stamp)) {
      retire(pool);
      pool.stamp = now;
      pool.broken = false;
    }
    const bool warm_fits = same_limits_except_timeout(launch.limits, options.warm_limits);
    if (warm_fits && !pool.ready.empty()) {
      Warm w = std::move(pool.ready.front());
      pool.ready.pop_front();
      auto route = w.route;
      if (assign(w, launch, callbacks)) {
        runner.set_deadline(w.id, launch.limits.timeout);
        return w.id;  // refilled when this call ends (see ended())
      }
      // It died under us: let it go quietly and spawn afresh below.
      route->assigned = false;
      route->retired = true;
      route->target = {};
    }
    auto fresh = spawn(launch.script, launch.limits);
    if (!fresh) {
      // Not even a pipe: report through the runner's own failure path.
      LaunchSpec broken;
      broken.argv = {"/nonexistent/pipe2-failed"};
      return runner.start(broken, std::move(callbacks));
    }
    RunId id = fresh->id;
    if (!assign(*fresh, launch, std::move(callbacks))) {
      // The child is gone already (e.g. bash missing): its on_done reports why.
    }
    runner.set_deadline(id, launch.limits.timeout);
    return id;
  }
};

ToolExecutor::ToolExecutor(Runner& runner, ExecutorOptions options)
    : impl_(std::make_unique<Impl>(runner, std::move(options))) {}

ToolExecutor::~ToolExecutor() { retire_warm(); }

void ToolExecutor::warm(const std::vector<std::string>& scripts) {
  if (impl_->options.warm_per_script == 0) return;
  for (const auto& s : scripts) {
    auto& pool = impl_->pools[s];
    pool.stamp = stamp_of(s);
    impl_->fill(s, pool);
  }
}

RunId ToolExecutor::run(const ToolLaunch& launch, CallCallbacks callbacks) {
  RunCallbacks raw;
  raw.on_done = std::move(callbacks.on_done);
  raw.on_stderr_line = std::move(callbacks.on_stderr_line);
  if (callbacks.on_event)
    raw.on_channel_line = [on_event = std::move(callbacks.on_event)](std::string line) {
      if (auto event = parse_channel_line(line)) on_event(std::move(*event));
    };
  return impl_->run(launch, std::move(raw));
}

void ToolExecutor::cancel(RunId id) { impl_->runner.cancel(id); }

void ToolExecutor::terminate_all(std::chrono::milliseconds grace) {
  retire_warm();
  impl_->runner.terminate_all(grace);
}

void ToolExecutor::retire_warm() {
  impl_->retiring = true;
  for (auto& [script, pool] : impl_->pools) impl_->retire(pool);
}

}  // namespace mcpsh::execution
