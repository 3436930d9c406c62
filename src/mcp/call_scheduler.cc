#include "mcp/call_scheduler.h"

#include <algorithm>
#include <deque>
#include <map>
#include <vector>

namespace mcpsh::mcp {

struct CallScheduler::State : std::enable_shared_from_this<State> {
  execution::CallRunner& runner;
  std::size_t max_concurrency;
  std::chrono::milliseconds heartbeat;
  WakeupSource& time;
  SchedulerHooks hooks;
  std::map<CallKey, std::shared_ptr<Call>> calls;  // queued or running
  std::deque<std::shared_ptr<Call>> queue;
  std::size_t running = 0;
  std::optional<Clock::time_point> wake_armed;
  std::function<void()> on_idle, on_dequeue;

  State(execution::CallRunner& r, std::size_t max, std::chrono::milliseconds hb, WakeupSource& t,
        SchedulerHooks h)
      : runner(r), max_concurrency(max), heartbeat(hb), time(t), hooks(std::move(h)) {}

  void pump() {
    while (running < max_concurrency && !queue.empty()) {
      auto call = queue.front();
      queue.pop_front();
      start(call);
      if (on_dequeue) on_dequeue();
    }
  }

  void start(const std::shared_ptr<Call>& call) {
    ++running;
    std::weak_ptr<State> self = weak_from_this();
    std::weak_ptr<Call> weak_call = call;
    execution::CallCallbacks callbacks;
    callbacks.on_done = [self, call](execution::Outcome o) {
      if (auto s = self.lock()) s->finished(call, std::move(o));
    };
    callbacks.on_event = [self, weak_call](execution::ChannelEvent event) {
      auto s = self.lock();
      auto c = weak_call.lock();
      if (s && c && !c->cancelled) s->hooks.event(*c, event);
    };
    callbacks.on_stderr_line = [self, weak_call](std::string line) {
      auto s = self.lock();
      auto c = weak_call.lock();
      if (s && c) s->hooks.stderr_line(*c, std::move(line));
    };
    call->progress.last_report = time.now();
    call->run = runner.run(call->launch, std::move(callbacks));
    // The runner has handed the arguments over; the call outlives its process (until its
    // answer is sent), and a large payload should not live that long.
    std::string().swap(call->launch.arguments_json);
    std::string().swap(call->launch.inputs);
    arm_heartbeat();
  }

  void finished(const std::shared_ptr<Call>& call, execution::Outcome outcome) {
    --running;
    calls.erase(call->key());
    if (call->cancelled)
      hooks.dropped(*call, "cancelled");
    else
      hooks.finished(*call, std::move(outcome));
    pump();
    if (calls.empty() && on_idle) on_idle();
  }

  // A task's run has no heartbeat: its status shows it working, and the heartbeat's
  // message would replace the tool's own.
  bool wants_heartbeat(const Call& c) const {
    return heartbeat.count() > 0 && c.run && !c.cancelled && c.task_id.empty() &&
           c.exchange.meta.progress_token_json.has_value();
  }

  // One wake for all calls: the earliest moment a heartbeat or a call's `due` may come.
  // Waking early is harmless (beat() re-arms), so progress reports need not move the wake.
  void arm_heartbeat() {
    std::optional<Clock::time_point> next;
    auto consider = [&](Clock::time_point t) {
      if (!next || t < *next) next = t;
    };
    for (const auto& [key, c] : calls) {
      if (wants_heartbeat(*c)) consider(c->progress.last_report + heartbeat);
      if (c->due && !c->cancelled) consider(*c->due);
    }
    if (!next || (wake_armed && *wake_armed <= *next)) return;
    wake_armed = next;
    std::weak_ptr<State> self = weak_from_this();
    time.wake_at(*next, [self] {
      if (auto s = self.lock()) s->beat();
    });
  }

  void beat() {
    wake_armed.reset();
    const auto now = time.now();
    std::vector<std::shared_ptr<Call>> beats, dues;
    for (const auto& [key, c] : calls) {
      if (wants_heartbeat(*c) && now - c->progress.last_report >= heartbeat) beats.push_back(c);
      if (c->due && !c->cancelled && *c->due <= now) dues.push_back(c);
    }
    for (const auto& c : beats) hooks.heartbeat(*c);
    for (const auto& c : dues) {
      c->due.reset();
      if (calls.count(c->key()) && hooks.due) hooks.due(*c);
    }
    arm_heartbeat();
  }
};

CallScheduler::CallScheduler(execution::CallRunner& runner, std::size_t max_concurrency,
                             std::chrono::milliseconds heartbeat, WakeupSource& time,
                             SchedulerHooks hooks)
    : state_(std::make_shared<State>(runner, max_concurrency, heartbeat, time, std::move(hooks))) {}

CallScheduler::~CallScheduler() = default;

bool CallScheduler::busy(const CallKey& key) const { return state_->calls.count(key) > 0; }

void CallScheduler::submit(std::shared_ptr<Call> call) {
  state_->calls[call->key()] = call;
  state_->queue.push_back(std::move(call));
  state_->pump();
}

void CallScheduler::cancel(const CallKey& key) {
  auto& s = *state_;
  auto it = s.calls.find(key);
  if (it == s.calls.end()) return;  // unknown or finished: ignored, as the spec says
  auto call = it->second;
  call->cancelled = true;
  if (call->run) {
    s.runner.cancel(*call->run);  // finished() runs once its processes are gone
    return;
  }
  s.calls.erase(it);
  std::erase(s.queue, call);
  s.hooks.dropped(*call, "cancelled");
  if (s.on_dequeue) s.on_dequeue();
  if (s.calls.empty() && s.on_idle) s.on_idle();
}

void CallScheduler::rehome(const CallKey& key, ConnectionPtr to) {
  auto& calls = state_->calls;
  auto it = calls.find(key);
  if (it == calls.end()) return;
  auto call = std::move(it->second);
  calls.erase(it);
  call->connection = std::move(to);
  calls[call->key()] = std::move(call);
}

void CallScheduler::rearm() { state_->arm_heartbeat(); }

void CallScheduler::cancel_connection(const Connection* connection) {
  std::vector<CallKey> keys;
  for (const auto& [key, call] : state_->calls)
    if (key.connection == connection) keys.push_back(key);
  for (const auto& key : keys) cancel(key);
}

void CallScheduler::stop_all(std::chrono::milliseconds grace) {
  auto& s = *state_;
  for (auto& [key, call] : s.calls) call->cancelled = true;
  auto queue = std::move(s.queue);
  s.queue.clear();
  for (auto& call : queue) {  // never started: nothing to wait for
    s.calls.erase(call->key());
    s.hooks.dropped(*call, "shutdown");
  }
  if (s.on_dequeue) s.on_dequeue();
  s.runner.terminate_all(grace);
  if (s.calls.empty() && s.on_idle) s.on_idle();
}

std::size_t CallScheduler::in_flight() const { return state_->calls.size(); }
std::size_t CallScheduler::queued() const { return state_->queue.size(); }
void CallScheduler::set_on_idle(std::function<void()> f) { state_->on_idle = std::move(f); }
void CallScheduler::set_on_dequeue(std::function<void()> f) { state_->on_dequeue = std::move(f); }

}  // namespace mcpsh::mcp
