#pragma once
// What to run and within which bounds. Plain data; the runner copies what it needs.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "execution/env_policy.h"

namespace mcpsh::sandbox {
class Sandbox;
}

namespace mcpsh::execution {

struct Limits {
  std::chrono::milliseconds timeout{0};        // 0 = no deadline
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM -> SIGKILL delay
  std::size_t max_stdout = 1 << 20;
  std::size_t max_stderr = 64 << 10;
  // Bytes of channel (fd 4) lines passed on per run; later lines are counted and dropped.
  // What a tool can make the host log or send must be bounded like its stderr is.
  std::size_t max_channel = 1 << 20;
  std::optional<std::uint64_t> cpu_seconds;   // RLIMIT_CPU
  std::optional<std::uint64_t> memory_bytes;  // RLIMIT_AS
};

// What a child may reach: the host's variables it gets, and the sandbox it runs in.
struct Confinement {
  EnvPolicy env;
  std::shared_ptr<const sandbox::Sandbox> sandbox;  // null: none (prepared ones are shared)
  bool operator==(const Confinement&) const = default;
};

struct LaunchSpec {
  // argv[0] is an absolute path to the program; it is not searched in PATH.
  std::vector<std::string> argv;
  // Extra environment on top of the host's (minus BASH_ENV/ENV, which would make bash
  // run files we did not ask for).
  std::vector<std::pair<std::string, std::string>> env;
  // A descriptor the caller opened for the child's fd 3 (e.g. the read end of a pipe), or
  // -1. The runner owns it from the call to start() on: the child gets it as fd 3 and the
  // runner closes its own copy, also when the launch fails.
  int fd3 = -1;
  // Likewise for the child's fd 5 (ToolExecutor: the memfd a call's arguments are
  // written to, so that a tool never opens another process's descriptor to get them).
  int fd5 = -1;
  // When true the child gets a pipe on fd 4 whose lines reach on_channel_line.
  bool channel = false;
  // Added to the child's nice value (0..19): background work, such as a reload's probes,
  // yields the CPU to the host's loop and to the calls.
  int niceness = 0;
  // Runs the child in the idle scheduling class (SCHED_IDLE): it gets a CPU only when no
  // task of the normal class wants one, and such a task preempts it as soon as it wakes.
  // An unprivileged process cannot leave that class again (RLIMIT_NICE), and on a busy
  // machine the child may wait for a CPU indefinitely: a caller that needs it to end bounds
  // it with the timeout and starts it again without (a reload's probes, discoverer.cc).
  bool idle_class = false;
  // Which of the host's variables the child gets (`env` above is added after them), and
  // its sandbox: when set, the child runs confined (sandbox/sandbox.h) with a scratch
  // folder of its own as TMPDIR, removed once it has ended; a sandbox that cannot be
  // given here fails the launch with its reason.
  Confinement confinement;
  std::string readable;  // a folder the sandbox must let it read (the script's)
  Limits limits;
};

}  // namespace mcpsh::execution
