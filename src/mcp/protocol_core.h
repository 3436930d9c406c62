#pragma once
// The transport-independent protocol core: takes one message from a connection and
// answers on that connection. Owns the method handlers, the call scheduler and the
// answer path; holds no transport and no per-connection state (that is Connection's).
//
// Contract:
//  - handle() takes one line; every request gets exactly one response on the connection
//    it came from (now, or when its call ends), unless its call is cancelled or the host
//    stops; notifications and responses get none.
//  - Every request that is answered, cancelled or dropped passes through one answer path,
//    which reports it to the Audit observer once.
//  - Single-threaded: everything on one thread (the io_context's, for the real host).
//  - `runner`, `time` and `log` must outlive the core.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "asking/sealed_state.h"
#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "execution/launch_spec.h"
#include "jsonrpc/message.h"
#include "mcp/audit_record.h"
#include "mcp/call_notifier.h"
#include "mcp/call_scheduler.h"
#include "mcp/connection.h"
#include "mcp/mirrored_headers.h"
#include "mcp/offering.h"
#include "mcp/subscriptions.h"
#include "mcp/task_store.h"
#include "mcp/wakeups.h"

namespace mcpsh::diagnostics {
class Log;
}

namespace mcpsh::mcp {

struct CoreOptions {
  execution::Limits limits;  // per call; a tool's own timeout replaces limits.timeout
  std::size_t max_concurrency = 16;
  // A call with a progress token that reports nothing for this long gets a heartbeat.
  std::chrono::milliseconds heartbeat{5000};
  // The catalog is watched and reloaded (replace_offering): list changes are announced.
  bool live = false;
  // Lists longer than this are served in pages (cursor/nextCursor).
  std::size_t page_size = Offering::kDefaultPageSize;
  // Directories published as read-only resources (--resource-dir).
  std::vector<std::string> resource_dirs;
  // Seals the requestState of input_required results (--state-key-file; a random key
  // when null), and how long such a state stays good.
  std::shared_ptr<const asking::StateSealer> sealer;
  std::chrono::seconds state_ttl{3600};
  // Tools annotated destructiveHint ask the user to confirm, as if they said @confirm.
  bool confirm_destructive = false;
  // The tasks extension: a @task call still running this long after it was accepted
  // becomes a task (mcp_task makes it one sooner); a task is kept this long after it
  // ends or begins to wait for input; at most so many are kept; the poll interval
  // suggested to clients.
  std::chrono::milliseconds task_after{1000};
  std::chrono::milliseconds task_ttl{std::chrono::hours(1)};
  std::size_t max_tasks = 1000;
  std::chrono::milliseconds task_poll{500};
  // Keeps what building the first Offering compiled, for a reload to reuse (null: not kept).
  std::shared_ptr<OfferingMemo> offering_memo;
};

// What handle() did with a line, for transports that answer every message (HTTP: 202 for
// a notification, a response body for a request).
enum class Handled {
  kAnswered,    // a request, answered before handle() returned
  kPending,     // a request whose call runs: answered later, or never if it is cancelled
  kNoResponse,  // a notification, a response or an ignored message: nothing will be sent
};

class ProtocolCore {
 public:
  using Audit = std::function<void(const AuditRecord&)>;

  ProtocolCore(const discovery::Catalog& catalog, execution::CallRunner& runner,
               CoreOptions options, WakeupSource& time, diagnostics::Log& log, Audit audit = {});

  // Takes the line: it becomes the parsed document's buffer (no copy of the payload).
  Handled handle(const ConnectionPtr& from, std::string line);
  // A line longer than the transport accepts: refused without an id.
  void oversized(const ConnectionPtr& from, std::size_t size);
  // The transport will bring nothing more from this connection and can deliver nothing
  // to it (an HTTP session ended): its calls are cancelled, as if the client had asked.
  void disconnected(const ConnectionPtr& connection);

  // Serves `offering` from now on (the scripts changed and were discovered again): calls in
  // flight finish on the old one; listeners are told which lists changed. Returns the old
  // one, so that the caller can let it go off the loop (freeing a large catalog takes
  // milliseconds).
  std::shared_ptr<const Offering> replace_offering(std::shared_ptr<const Offering> offering);
  const Offering& offering() const { return *offering_; }
  // What a resource depends on changed (@watch): its subscribers are told.
  void resource_changed(const std::string& uri) { subscriptions_.resource_updated(uri); }
  // The host is stopping: every open subscriptions/listen gets its closing result, and one
  // opened from now on gets it at once.
  void end_subscriptions();
  std::size_t open_subscriptions() const { return subscriptions_.open(); }

  CallScheduler& calls() { return scheduler_; }
  const CallScheduler& calls() const { return scheduler_; }
  // Pre-started processes for the catalog's scripts, asked for at the first tools/list or
  // tools/call (start-up stays fast: clients such as the TypeScript SDK start a server
  // just to probe it).
  void enable_warm() { warm_wanted_ = true; }
  // No more requests will come: pre-started processes are let go, and the runs of tasks
  // end (no client could fetch their results: the host exits once its calls are done).
  void input_closed() {
    runner_.retire_warm();
    end_tasks();
  }
  // Problems found while preparing the catalog (invalid schemas).
  const std::vector<discovery::Problem>& problems() const { return offering_->problems; }

 private:
  struct Request;
  void on_notification(const ConnectionPtr& from, const jsonrpc::Message& m);
  void dispatch(Request& r);
  void handle_initialize(Request& r);
  void handle_set_level(Request& r);
  void handle_tools_call(Request& r);
  void handle_list(Request& r, const PagedList& list);
  void handle_read(Request& r);
  void handle_prompt(Request& r);
  void handle_complete(Request& r);
  void handle_listen(Request& r);
  void handle_subscribe(Request& r, bool subscribe);
  // Refuses (-32601) a method of a kind the scripts offer nothing of; true when it did.
  bool unoffered(Request& r);
  // Queues the run of a resource, prompt or completion function for `r`.
  void submit_function(Request& r, std::shared_ptr<Call> call, const std::string& script,
                       const std::string& function, std::string arguments_json,
                       std::optional<std::chrono::milliseconds> timeout,
                       const execution::Confinement& confinement);
  // A resources/read, prompts/get or completion/complete answered from a function's run.
  void finished_function(Call& call, execution::Outcome outcome);
  // Modern results: resultType and serverInfo (and cache hints where `cacheable`).
  std::string result_line(const Exchange& x, rapidjson::Document& result, bool cacheable);
  void warm_once();

  // The answer path: every answered or dropped request passes here once.
  void answer(Connection& to, const Exchange& x, std::string line, AuditRecord facts);
  // A line refused before its method was known (parse errors, bad envelopes).
  void refuse_unparsed(Connection& to, const jsonrpc::Message& m, Clock::time_point received,
                       std::size_t size);
  void refuse(Connection& to, const Exchange& x, int code, const std::string& message,
              const rapidjson::Value* data = nullptr);
  void unanswered(const Exchange& x, AuditRecord facts);
  // A request that ends unanswered because it was cancelled (or the host is stopping):
  // `why` is the audit's outcome.
  void cancelled(const Exchange& x, const Connection& from, const char* why);
  // What the audit records of a finished run: exit status, signal, sizes, timeout.
  static AuditRecord run_facts(const Call& call, const execution::Outcome& outcome);
  // A request whose mirrored HTTP headers disagree with it (mirrored_headers.h).
  void refuse_headers(Connection& to, Exchange& x, const HeaderRefusal& no);
  static LegacySession stateless_session(const std::string& version);
  void finished(Call& call, execution::Outcome outcome);
  // Asking (input_rounds.cc). open_round reads a request's inputResponses and
  // requestState into the call (refusing, and returning false, when they do not hold);
  // give_inputs hands what the call may know to its launch; answer_asks answers a run
  // that asked something (true) or says it did not (false).
  bool open_round(Request& r, Call& call, const std::string& target,
                  const rapidjson::Value* arguments);
  void give_inputs(Call& call) const;
  // What the user must accept before `tool` runs with `arguments` ("" for nothing).
  std::string confirmation(const discovery::ToolEntry& tool,
                           const rapidjson::Value* arguments) const;
  bool answer_asks(Call& call, const execution::Outcome& outcome);
  // The legacy era (a call with ToolLaunch::replies): a question becomes the host's own
  // request to the client; its response, the answer the waiting tool reads.
  void ask_client(Call& call, const execution::AskEvent& e);
  void on_response(const ConnectionPtr& from, const jsonrpc::Message& m);
  // The call ended: its requests still unanswered are cancelled (notifications/cancelled).
  void forget_asks(const Call& call);
  // A question over the output limit (the runner passed only its size): the call fails.
  void question_too_large(Call& call, std::uint64_t bytes);
  // Tasks (task_methods.cc): the extension of 2026-07-28 and the tasks of 2025-11-25.
  // refuse_untasked refuses (true) a call that cannot run as its tool and request say
  // (-32021 for the extension, -32601 and -32602 for 2025-11-25), and says whether a
  // 2025-11-25 client `asked` for a task; offer_task readies a call that may become a task;
  // make_task makes it one (asked, mcp_task, or its `due` came) and answers its request with
  // the task; task_reported takes what a task's run sent; task_answered: a 2025-11-25
  // task's question was answered; run_task runs the tool again (its questions were
  // answered); task_changed tells who follows the task (and answers tasks/result once it
  // has ended).
  bool refuse_untasked(Request& r, const discovery::ToolEntry& tool, bool& asked);
  void offer_task(Call& call, bool asked);
  void make_task(Call& call, const std::string& message);
  void task_reported(const std::string& id, const std::string& line, const Outgoing& what);
  void task_answered(Task& task);
  void run_task(Task& task);
  void task_changed(Task& task);
  // The task a tasks/* request names, or nullptr when it was refused (-32601, -32021,
  // -32602).
  Task* task_of(Request& r);
  void acknowledge(Request& r);  // {"resultType":"complete"}
  void show_task(Request& r, const Task& task);
  void cancel_task(Task& task, TaskStatus status, const std::string& why);
  void handle_tasks_get(Request& r);
  void handle_tasks_update(Request& r);
  void handle_tasks_cancel(Request& r);
  void handle_tasks_result(Request& r);
  void handle_tasks_list(Request& r);
  void answer_waiters(Task& task);  // the tasks/result requests waiting for `task`
  // A tasks/result request waits with this key; the waits of a connection (or of one
  // request of it) end unanswered (its exchange returned for the audit).
  bool waiting_for_task(const CallKey& key) const;
  // A task's run was dropped (cancelled, the host stopping): a task not ended fails.
  void task_dropped(const Call& call);
  void fail_task(Task& task, const std::string& why);
  std::optional<Exchange> stop_waiting(const Connection* connection, const jsonrpc::RequestId* id);
  void end_tasks();  // every task not ended fails: the host is stopping
  // taskIds of a subscriptions/listen: refused (-32021, false) without the extension;
  // else narrowed to the client's own tasks.
  bool listen_tasks(Request& r, ListenFilter& filter);

  execution::CallRunner& runner_;
  CoreOptions options_;
  WakeupSource& time_;
  diagnostics::Log& log_;
  Audit audit_;
  std::shared_ptr<const Offering> offering_;  // what is served now
  CallNotifier notifier_;
  Subscriptions subscriptions_;
  bool subscriptions_ended_ = false;  // end_subscriptions() was called: the host is stopping
  bool warm_wanted_ = false, warmed_ = false;
  // The host's requests to clients awaiting their response, by id (compact JSON).
  struct PendingAsk {
    std::weak_ptr<Call> call;
    std::string key;
    asking::AskKind kind;
  };
  std::map<std::string, PendingAsk> pending_asks_;
  std::uint64_t asks_sent_ = 0;
  std::string ask_id_prefix_;  // random per host: ids a client cannot guess
  TaskStore tasks_;
  bool tasks_ended_ = false;        // end_tasks() was called: no call becomes a task any more
  std::set<CallKey> result_waits_;  // the tasks/result requests waiting (Task::waiters)
  CallScheduler scheduler_;         // last: its hooks use the members above
};

}  // namespace mcpsh::mcp
