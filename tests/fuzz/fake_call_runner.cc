#include "fake_call_runner.h"

#include <rapidjson/document.h>

#include <boost/asio/post.hpp>
#include <cctype>
#include <cstdlib>
#include <string>

#include "execution/channel_events.h"

namespace mcpsh::fuzz {

namespace asio = boost::asio;
using execution::Ending;
using execution::Outcome;

namespace {

// A tool writes bytes, not JSON text: "\\xHH" in a scripted string becomes the byte HH, so
// that a client's (valid UTF-8) request can make the "tool" write any byte at all.
std::string tool_bytes(const rapidjson::Value& v) {
  std::string_view s(v.GetString(), v.GetStringLength());
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 3]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

Outcome scripted_outcome(const rapidjson::Document& args, const execution::ToolLaunch& launch) {
  Outcome o;
  o.ending = Ending::kExited;
  std::string out = launch.arguments_json;
  if (args.IsObject()) {
    if (auto it = args.FindMember("stdout"); it != args.MemberEnd() && it->value.IsString())
      out = tool_bytes(it->value);
    if (auto it = args.FindMember("exit"); it != args.MemberEnd() && it->value.IsInt())
      o.exit_code = it->value.GetInt() & 0xff;
    if (auto it = args.FindMember("ending"); it != args.MemberEnd() && it->value.IsString()) {
      std::string_view e(it->value.GetString(), it->value.GetStringLength());
      if (e == "signal") {
        o.ending = Ending::kSignaled;
        o.signal = 9;
      } else if (e == "timeout") {
        o.ending = Ending::kTimedOut;
        o.signal = 15;
      } else if (e == "failed") {
        o.ending = Ending::kFailedToStart;
        o.start_error = "cannot start: scripted failure";
      } else if (e == "cancelled") {
        o.ending = Ending::kCancelled;
        o.signal = 15;
      } else if (e == "shutdown") {
        o.ending = Ending::kShutdown;
        o.signal = 15;
      }
    }
  }
  // As the real collectors do: the first max_stdout bytes, cut wherever they fall.
  o.stdout_total = out.size();
  if (out.size() > launch.limits.max_stdout) out.resize(launch.limits.max_stdout);
  o.stdout_head = std::move(out);
  return o;
}

}  // namespace

execution::RunId FakeCallRunner::run(const execution::ToolLaunch& launch,
                                     execution::CallCallbacks callbacks) {
  execution::RunId id = next_++;
  rapidjson::Document args;
  args.Parse(launch.arguments_json.data(), launch.arguments_json.size());
  Run& run = runs_[id];
  run.callbacks = std::move(callbacks);
  if (args.IsObject()) {
    if (auto it = args.FindMember("stderr"); it != args.MemberEnd() && it->value.IsString()) {
      std::string line = tool_bytes(it->value);
      asio::post(io_, [this, id, line] {
        if (auto r = runs_.find(id); r != runs_.end() && r->second.callbacks.on_stderr_line)
          r->second.callbacks.on_stderr_line(line);
      });
    }
    if (auto it = args.FindMember("channel"); it != args.MemberEnd() && it->value.IsArray()) {
      for (const auto& v : it->value.GetArray()) {
        if (!v.IsString()) continue;
        auto event = execution::parse_channel_line(tool_bytes(v));
        if (!event) continue;
        asio::post(io_, [this, id, e = std::move(*event)] {
          if (auto r = runs_.find(id); r != runs_.end()) r->second.callbacks.on_event(e);
        });
      }
    }
    if (auto it = args.FindMember("hold"); it != args.MemberEnd() && it->value.IsTrue())
      run.held = true;
  }
  if (!run.held) finish(id, scripted_outcome(args, launch));
  return id;
}

void FakeCallRunner::finish(execution::RunId id, Outcome outcome) {
  auto it = runs_.find(id);
  if (it == runs_.end() || it->second.ending) return;
  it->second.ending = true;
  asio::post(io_, [this, id, o = std::move(outcome)]() mutable {
    auto r = runs_.find(id);
    if (r == runs_.end()) std::abort();  // a second on_done
    auto on_done = std::move(r->second.callbacks.on_done);
    runs_.erase(r);
    on_done(std::move(o));
  });
}

void FakeCallRunner::cancel(execution::RunId id) {
  Outcome o;
  o.ending = Ending::kCancelled;
  o.signal = 15;
  finish(id, std::move(o));
}

void FakeCallRunner::terminate_all(std::chrono::milliseconds) {
  std::vector<execution::RunId> ids;
  for (const auto& [id, run] : runs_) ids.push_back(id);
  for (auto id : ids) {
    Outcome o;
    o.ending = Ending::kShutdown;
    o.signal = 15;
    finish(id, std::move(o));
  }
}

void FakeCallRunner::warm(const std::vector<execution::WarmTarget>&) {}
void FakeCallRunner::retire_warm() {}

}  // namespace mcpsh::fuzz
