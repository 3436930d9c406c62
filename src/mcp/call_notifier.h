#pragma once
// A running call's side-channel events, as the client asked for them: progress becomes
// notifications/progress when the request carried a progressToken, log events become
// notifications/message at or above the request's log level; everything else goes to
// the host's diagnostic log. Content blocks (mcp_image and the like) are kept in the
// call for its result, in order; a problem with one is logged. Questions (mcp_elicit and
// the like) are kept in the call for its answer (input_rounds.cc). Also sends the heartbeat of a
// call that reports nothing. Sends on the call's own connection. Single-threaded (the core's
// thread).
#include "execution/channel_events.h"
#include "mcp/call.h"

namespace mcpsh::diagnostics {
class Log;
}

namespace mcpsh::mcp {

class CallNotifier {
 public:
  explicit CallNotifier(diagnostics::Log& log) : log_(log) {}
  void on_event(Call& call, const execution::ChannelEvent& event, Clock::time_point now);
  void on_stderr_line(const Call& call, const std::string& line);
  // The question an ask line stands for; nullopt when its kind or key is not one a helper
  // writes (the reason then in `why`).
  static std::optional<asking::Ask> ask_of(const execution::AskEvent& e, std::string& why);
  // "still running (N s)", as a progress notification that keeps the progress increasing.
  void heartbeat(Call& call, Clock::time_point now);

 private:
  static void take_ask(Call& call, const execution::AskEvent& e);
  void send_progress(Call& call, double progress, std::optional<double> total,
                     const std::string& message, Clock::time_point now);
  diagnostics::Log& log_;
};

}  // namespace mcpsh::mcp
