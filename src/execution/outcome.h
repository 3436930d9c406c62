#pragma once
// What became of one child process, as a plain value. Produced by ProcessRunner
// exactly once per launch; the protocol layer turns it into a result text.
#include <chrono>
#include <cstdint>
#include <string>

namespace mcpsh::execution {

enum class Ending {
  kExited,         // the leader exited by itself: exit_code is valid
  kSignaled,       // the leader was killed by a signal we did not send: signal is valid
  kTimedOut,       // we terminated it because its deadline passed
  kCancelled,      // we terminated it because the caller asked us to
  kFailedToStart,  // no process ran (or it could not exec): start_error says why
  kShutdown,       // we terminated it because the host is shutting down
};

struct Outcome {
  Ending ending = Ending::kFailedToStart;
  int exit_code = 0;  // kExited only
  int signal = 0;     // kSignaled; for kTimedOut/kCancelled the signal that finally ended it
  std::string start_error;

  // stdout: the first `max_stdout` bytes; stdout_total counts every byte produced.
  std::string stdout_head;
  std::uint64_t stdout_total = 0;
  // stderr: the last `max_stderr` bytes (the end of a log is what explains a failure).
  std::string stderr_tail;
  std::uint64_t stderr_total = 0;

  // Ended by RLIMIT_CPU: SIGXCPU/SIGKILL (or bash's status 128+SIGXCPU for a child it
  // waited for) with cpu_time at the limit.
  bool cpu_limit_hit = false;
  std::chrono::milliseconds cpu_time{0};  // user+system of the leader and its waited-for children
  std::chrono::milliseconds elapsed{0};

  bool stdout_truncated() const { return stdout_total > stdout_head.size(); }
};

// Human-readable "exited with status 3" / "killed by signal 9 (SIGKILL)".
std::string describe_ending(const Outcome& outcome);
std::string signal_name(int signal);

}  // namespace mcpsh::execution
