#include "execution/outcome.h"

#include <signal.h>
#include <string.h>

namespace mcpsh::execution {

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string describe_ending(const Outcome& o) {
  switch (o.ending) {
    case Ending::kExited:
      return "exited with status " + std::to_string(o.exit_code);
    case Ending::kSignaled:
      return "killed by signal " + std::to_string(o.signal) + " (" + signal_name(o.signal) + ")";
    case Ending::kTimedOut:
      return "timed out";
    case Ending::kCancelled:
      return "cancelled";
    case Ending::kShutdown:
      return "stopped because the server is shutting down";
    case Ending::kFailedToStart:
      return "could not be started: " + o.start_error;
  }
  return "ended";
}

}  // namespace mcpsh::execution
