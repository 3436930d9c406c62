// ProtocolCore's side of the tasks extension (io.modelcontextprotocol/tasks; ADR 0016): a
// tool call that becomes a task, the task's runs, and tasks/get, tasks/update and
// tasks/cancel.
//
// A call becomes a task when its tool is marked @task, its request declared the extension,
// and either the tool said mcp_task or it is still running `task_after` after it was
// accepted. Until then it is an ordinary call: a question it asks is answered
// synchronously (input_required with a requestState), as the extension recommends. The
// request is then answered with the task, and the run goes on answering a connection of the
// task's own (TaskConnection): what the request would have been answered becomes the task's
// result (or its error, or its inputRequests), and its progress the task's status message.
// A question the task's run asks ends the run (re-execution, as in ADR 0014); tasks/update
// brings the answers and the tool runs again from the top with them.
//
// The tasks of 2025-11-25 (the initialize era) ride on the same machinery: a client asks for
// a task with the call's "task" parameter and gets one at once; its run's notifications and
// questions go on to the client's connection (tagged with the related task), as a legacy
// call's do, and the tool waits for answers; tasks/result waits for the end.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "diagnostics/log.h"
#include "jsonrpc/error_codes.h"
#include "jsonrpc/json_write.h"
#include "jsonrpc/response.h"
#include "mcp/core_request.h"
#include "mcp/protocol_core.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

namespace {

// Where a task's runs answer: each line goes to the task (ProtocolCore::task_reported).
class TaskConnection : public Connection {
 public:
  using Sink = std::function<void(std::string line, const Outgoing& what)>;
  explicit TaskConnection(Sink sink) : sink_(std::move(sink)) {}
  void send(std::string line, const Outgoing& what) override { sink_(std::move(line), what); }

 private:
  Sink sink_;
};

std::string text_of(const rapidjson::Value& v) {
  return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : std::string();
}

// Exact for the integers a tool counts with (bytes, files); 15 significant digits otherwise.
std::string number_text(double n) {
  char text[40];
  std::snprintf(text, sizeof text, "%.15g", n);
  return text;
}

// A progress notification as a status message: "copying (3/10)", "3/10", "copying".
std::string progress_message(const rapidjson::Value& params) {
  std::string numbers;
  if (auto p = params.FindMember("progress"); p != params.MemberEnd() && p->value.IsNumber())
    numbers = number_text(p->value.GetDouble());
  if (auto t = params.FindMember("total"); t != params.MemberEnd() && t->value.IsNumber())
    numbers += "/" + number_text(t->value.GetDouble());
  std::string message;
  if (auto m = params.FindMember("message"); m != params.MemberEnd()) message = text_of(m->value);
  if (message.empty()) return numbers;
  return numbers.empty() ? message : message + " (" + numbers + ")";
}

constexpr const char* kRelatedTask = "io.modelcontextprotocol/related-task";
// tasks/result requests that may wait for one task at once.
constexpr std::size_t kMaxResultWaits = 8;

// `line` (a JSON-RPC message) with params._meta (or result._meta) naming the task it
// belongs to (2025-11-25: every message about a task does).
std::string with_related_task(const std::string& line, const char* part, const std::string& id) {
  rapidjson::Document d;
  d.Parse(line.c_str(), line.size());
  if (d.HasParseError() || !d.IsObject()) return line;
  auto& a = d.GetAllocator();
  if (!d.HasMember(part))
    d.AddMember(rapidjson::StringRef(part), rapidjson::Value(rapidjson::kObjectType), a);
  auto& holder = d[part];
  if (!holder.IsObject()) return line;
  if (!holder.HasMember("_meta"))
    holder.AddMember("_meta", rapidjson::Value(rapidjson::kObjectType), a);
  auto& meta = holder["_meta"];
  if (!meta.IsObject()) return line;
  rapidjson::Value related(rapidjson::kObjectType);
  related.AddMember("taskId", rapidjson::Value(id.c_str(), a), a);
  meta.RemoveMember(kRelatedTask);
  meta.AddMember(rapidjson::StringRef(kRelatedTask), related, a);
  return jsonrpc::to_json(d);
}

rapidjson::Document tasks_required_data() {
  rapidjson::Document data(rapidjson::kObjectType);
  auto& a = data.GetAllocator();
  rapidjson::Value extensions(rapidjson::kObjectType);
  extensions.AddMember(rapidjson::StringRef(kTasksExtension),
                       rapidjson::Value(rapidjson::kObjectType), a);
  rapidjson::Value required(rapidjson::kObjectType);
  required.AddMember("extensions", extensions, a);
  data.AddMember("requiredCapabilities", required, a);
  return data;
}

}  // namespace

// ---- a call that may become a task --------------------------------------------------------

bool ProtocolCore::refuse_untasked(Request& r, const discovery::ToolEntry& tool, bool& asked) {
  const auto& meta = r.exchange.meta;
  if (meta.legacy) {
    // 2025-11-25: the client asks for a task with params.task (TaskMetadata); older
    // revisions have no tasks, and their calls run as any other.
    if (!has_legacy_tasks(meta.protocol_version)) return false;
    // Without a @task tool the host declares no tasks: task metadata is ignored.
    if (!offering_->task_tools) return false;
    auto task = r.params->FindMember("task");
    asked = task != r.params->MemberEnd();
    if (asked && !task->value.IsObject()) {
      refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
             "Invalid params: \"task\" must be an object (a ttl in milliseconds, optional)");
      return true;
    }
    if (asked && tool.task == discovery::TaskSupport::kNone) {
      refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
             "Method not found: " + tool.name + " does not run as a task (taskSupport forbidden)");
      return true;
    }
    if (!asked && tool.task == discovery::TaskSupport::kRequired) {
      refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
             "Method not found: " + tool.name +
                 " runs only as a task (taskSupport required): call it with params.task");
      return true;
    }
    return false;
  }
  if (tool.task != discovery::TaskSupport::kRequired || meta.tasks) return false;
  auto data = tasks_required_data();
  refuse(*r.from, r.exchange, jsonrpc::kMissingClientCapability,
         "Missing required client capability: " + tool.name + " runs only as a task (" +
             kTasksExtension + ")",
         &data);
  return true;
}

void ProtocolCore::offer_task(Call& call, bool asked) {
  const auto& meta = call.exchange.meta;
  if (call.tool->entry.task == discovery::TaskSupport::kNone) return;
  if (meta.legacy ? !asked : !meta.tasks) return;
  // The extension's task runs again after its questions are answered: it keeps the launch.
  // A 2025-11-25 task never does (its tool waits for answers), and the client asked for the
  // task now.
  if (meta.legacy) {
    call.task_seed = std::make_shared<const execution::ToolLaunch>();
    return;
  }
  call.task_seed = std::make_shared<const execution::ToolLaunch>(call.launch);
  call.due = time_.now() + options_.task_after;
}

void ProtocolCore::make_task(Call& call, const std::string& message) {
  // Already a task (a later mcp_task, or one in a run after tasks/update): a new status.
  if (!call.task_id.empty()) {
    Task* task = tasks_.get(call.task_id);
    if (!task || message.empty() || is_terminal(task->status)) return;
    task->status_message = message;
    tasks_.touch(*task, time_.now(), task->timeout);
    return task_changed(*task);
  }
  // A call whose run has asked a question is ending: it is answered synchronously.
  if (!call.task_seed || call.cancelled || !call.asks.empty() || tasks_ended_) return;
  auto seed = std::move(call.task_seed);
  call.due.reset();
  const auto now = time_.now();
  Task* task = tasks_.create(call.exchange.meta.client_name, now);
  if (!task) {
    log_.warning(call.label() + ": runs as a plain call, not as a task: " +
                 std::to_string(tasks_.size()) + " tasks are kept (--max-tasks)");
    return;
  }
  const bool legacy = call.exchange.meta.legacy;
  task->status_message = message;
  task->exchange = call.exchange;
  task->offering = call.offering;
  task->tool = call.tool;
  if (!legacy) task->launch = std::move(seed);
  task->timeout = call.launch.limits.timeout;
  task->running = true;
  task->round = call.round;
  task->answers = call.answers;
  task->confirm = call.confirm;
  task->origin = call.connection;
  // Its runs report to the task from now on. A progress token makes the notifier send
  // progress (the status message): the extension's task gets one of its own, and its logs
  // go to the host's log (the extension sends no notifications for a task); a task of
  // 2025-11-25 keeps the client's token, if any, and its log level: both go on to the client.
  if (!legacy || !task->exchange.meta.progress_token_json) {
    task->client_token = false;
    task->exchange.meta.progress_token_json = "\"" + task->id + "\"";
  }
  if (!legacy) task->exchange.meta.log_level.reset();
  const std::string id = task->id;
  auto connection = std::make_shared<TaskConnection>(
      [this, id](std::string line, const Outgoing& what) { task_reported(id, line, what); });
  // Whether the client can be asked while the tool waits (give_inputs) is the transport's.
  connection->mirrored = call.connection->mirrored;
  task->connection = connection;
  tasks_.touch(*task, now, call.launch.limits.timeout);

  ConnectionPtr origin = call.connection;
  const Exchange asked = call.exchange;
  scheduler_.rehome(call.key(), task->connection);
  call.task_id = id;
  call.exchange.meta = task->exchange.meta;
  call.progress = ProgressState{};
  call.progress.last_report = now;
  // The id is a bearer token: the log names it by its first characters.
  log_.info(call.label() + ": goes on as task " + id.substr(0, 6) + "…");

  rapidjson::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  if (legacy) {
    rapidjson::Value shown(rapidjson::kObjectType);
    render_task(*task, TaskView::kLegacy, options_.task_poll, shown, a);
    result.AddMember("task", shown, a);
  } else {
    result.AddMember("resultType", "task", a);
    render_task(*task, TaskView::kCreated, options_.task_poll, result, a);
    // The conformance suite (and any client checking against the core schema alone) reads
    // a tools/call result as a CallToolResult, which requires content.
    result.AddMember("content", rapidjson::Value(rapidjson::kArrayType), a);
    call.offering->profile.add_server_info(result);
  }
  AuditRecord facts;
  facts.outcome = "task";
  answer(*origin, asked, jsonrpc::result_line(*asked.id, result), std::move(facts));
}

// ---- what a task's run sends --------------------------------------------------------------

void ProtocolCore::task_reported(const std::string& id, const std::string& line,
                                 const Outgoing& what) {
  Task* task = tasks_.get(id);
  if (!task) return;                                                  // dropped
  if (what.kind == Outgoing::Kind::kResponse) task->running = false;  // the run's last word
  rapidjson::Document d;
  d.Parse(line.c_str(), line.size());
  if (d.HasParseError() || !d.IsObject()) return;
  const auto now = time_.now();
  const bool legacy = task->exchange.meta.legacy;
  // Cancelled while it ran on: only its notifications (the host's requests cancelled, for
  // 2025-11-25) still go to the client.
  const bool ended = is_terminal(task->status);
  if (ended && what.kind != Outgoing::Kind::kNotification) return;
  // 2025-11-25: the run's notifications and the host's questions go on to the client, on
  // the connection the call came from, while it lasts (stdio).
  auto origin = legacy ? task->origin.lock() : nullptr;
  if (origin && origin->mirrored) origin.reset();
  if (what.kind == Outgoing::Kind::kNotification) {
    auto method = d.FindMember("method");
    auto params = d.FindMember("params");
    const bool progress = method != d.MemberEnd() &&
                          text_of(method->value) == "notifications/progress" &&
                          params != d.MemberEnd() && params->value.IsObject();
    if (origin && (!progress || task->client_token))
      origin->send(with_related_task(line, "params", id), what);
    if (!progress || ended) return;
    task->status_message = progress_message(params->value);
    tasks_.touch(*task, now, task->timeout);
    return task_changed(*task);
  }
  if (what.kind == Outgoing::Kind::kRequest) {
    // The tool waits for the client's answer (ProtocolCore::on_response brings it).
    if (!origin) return;
    origin->send(with_related_task(line, "params", id), what);
    task->status = TaskStatus::kInputRequired;
    task->status_message = "waiting for the client's answer";
    tasks_.touch(*task, now);
    return task_changed(*task);
  }
  if (auto error = d.FindMember("error"); error != d.MemberEnd() && error->value.IsObject()) {
    task->status = TaskStatus::kFailed;
    task->outcome_json = jsonrpc::to_json(error->value);
    task->outcome_error = true;
    if (auto m = error->value.FindMember("message"); m != error->value.MemberEnd())
      task->status_message = text_of(m->value);
  } else if (auto result = d.FindMember("result");
             result != d.MemberEnd() && result->value.IsObject()) {
    auto type = result->value.FindMember("resultType");
    auto requests = result->value.FindMember("inputRequests");
    if (type != result->value.MemberEnd() && text_of(type->value) == "input_required" &&
        requests != result->value.MemberEnd() && requests->value.IsObject()) {
      task->status = TaskStatus::kInputRequired;
      task->status_message = "waiting for input";
      task->input_requests.clear();
      for (const auto& m : requests->value.GetObject())
        task->input_requests[text_of(m.name)] = jsonrpc::to_json(m.value);
    } else {
      // 2025-11-25 calls a tool's isError result a failed task; the extension, completed.
      auto is_error = result->value.FindMember("isError");
      const bool failed =
          legacy && is_error != result->value.MemberEnd() && is_error->value.IsTrue();
      task->status = failed ? TaskStatus::kFailed : TaskStatus::kCompleted;
      task->status_message = failed ? "the tool failed" : "";
      task->outcome_json = jsonrpc::to_json(result->value);
      task->outcome_error = false;
    }
  } else {
    return fail_task(*task, "the run ended without an answer");
  }
  if (is_terminal(task->status)) TaskStore::ended(*task);
  tasks_.touch(*task, now);
  task_changed(*task);
}

void ProtocolCore::task_dropped(const Call& call) {
  Task* task = call.task_id.empty() ? nullptr : tasks_.get(call.task_id);
  if (!task) return;
  task->running = false;
  // Cancelled (tasks/cancel, the host stopping) or dropped unanswered: it cannot end well.
  if (!is_terminal(task->status)) fail_task(*task, "the run ended without an answer");
}

void ProtocolCore::fail_task(Task& task, const std::string& why) {
  cancel_task(task, TaskStatus::kFailed, why);
}

void ProtocolCore::task_answered(Task& task) {
  if (task.status != TaskStatus::kInputRequired || !task.exchange.meta.legacy) return;
  task.status = TaskStatus::kWorking;
  task.status_message = "working";
  tasks_.touch(task, time_.now(), task.timeout);
  task_changed(task);
}

void ProtocolCore::run_task(Task& task) {
  task.running = true;
  auto call = std::make_shared<Call>();
  call->connection = task.connection;
  call->exchange = task.exchange;
  call->exchange.received = time_.now();
  call->tool = task.tool;
  call->offering = task.offering;
  call->launch = *task.launch;
  call->round = task.round;
  call->answers = task.answers;
  call->confirm = task.confirm;
  call->task_id = task.id;
  give_inputs(*call);
  scheduler_.submit(std::move(call));
}

void ProtocolCore::task_changed(Task& task) {
  if (task.exchange.meta.legacy) {
    // 2025-11-25: notifications/tasks/status to the connection the call came from (stdio).
    auto origin = task.origin.lock();
    if (origin && !origin->mirrored) {
      rapidjson::Document params(rapidjson::kObjectType);
      render_task(task, TaskView::kLegacy, options_.task_poll, params, params.GetAllocator());
      origin->send(jsonrpc::notification_line("notifications/tasks/status", params),
                   Outgoing{Outgoing::Kind::kNotification, std::nullopt});
    }
  } else if (subscriptions_.watches_task(task.id)) {
    // Listeners of notifications/tasks (subscriptions.h): the task as tasks/get shows it.
    rapidjson::Document params(rapidjson::kObjectType);
    render_task(task, TaskView::kDetailed, options_.task_poll, params, params.GetAllocator());
    subscriptions_.task_changed(task.id, params);
  }
  if (is_terminal(task.status)) answer_waiters(task);
}

// ---- tasks/get, tasks/update, tasks/cancel, tasks/result, tasks/list -------------------------

Task* ProtocolCore::task_of(Request& r) {
  const auto& meta = r.exchange.meta;
  if (meta.legacy && !has_legacy_tasks(meta.protocol_version)) {
    refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
           "Method not found: " + r.exchange.method + " (tasks exist from 2025-11-25 on)");
    return nullptr;
  }
  if (!meta.legacy && !meta.tasks) {
    auto data = tasks_required_data();
    refuse(*r.from, r.exchange, jsonrpc::kMissingClientCapability,
           std::string("Missing required client capability: ") + r.exchange.method + " needs the " +
               kTasksExtension + " extension",
           &data);
    return nullptr;
  }
  const rapidjson::Value* id = nullptr;
  if (r.params && r.params->IsObject())
    if (auto it = r.params->FindMember("taskId"); it != r.params->MemberEnd()) id = &it->value;
  if (!id || !id->IsString()) {
    refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
           "Invalid params: \"taskId\" (a string) is required");
    return nullptr;
  }
  tasks_.sweep(time_.now());
  Task* task = tasks_.find(text_of(*id), meta.client_name);
  // A task of one era is not one of the other's.
  if (task && task->exchange.meta.legacy != meta.legacy) task = nullptr;
  if (!task)
    refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
           "Invalid params: no task " + jsonrpc::to_json(*id) +
               " (unknown, made by another client, or expired and dropped)");
  return task;
}

void ProtocolCore::acknowledge(Request& r) {
  rapidjson::Document result(rapidjson::kObjectType);
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange, result_line(r.exchange, result, false), std::move(facts));
}

void ProtocolCore::show_task(Request& r, const Task& task) {
  rapidjson::Document result(rapidjson::kObjectType);
  render_task(task, task.exchange.meta.legacy ? TaskView::kLegacy : TaskView::kDetailed,
              options_.task_poll, result, result.GetAllocator());
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange, result_line(r.exchange, result, false), std::move(facts));
}

void ProtocolCore::handle_tasks_get(Request& r) {
  if (Task* task = task_of(r)) show_task(r, *task);
}

void ProtocolCore::handle_tasks_update(Request& r) {
  Task* task = task_of(r);
  if (!task) return;
  auto responses = r.params->FindMember("inputResponses");
  if (responses == r.params->MemberEnd() || !responses->value.IsObject())
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  "Invalid params: \"inputResponses\" (an object) is required");
  // Only answers to questions the task is waiting on count; the others are ignored, as the
  // extension says, whatever they hold.
  rapidjson::Document outstanding(rapidjson::kObjectType);
  auto& a = outstanding.GetAllocator();
  if (task->status == TaskStatus::kInputRequired)
    for (const auto& m : responses->value.GetObject())
      if (task->input_requests.count(text_of(m.name)))
        outstanding.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
  auto read = asking::read_input_responses(&outstanding);
  if (auto* no = std::get_if<asking::AnswerProblem>(&read))
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams, no->message);
  const auto& answers = std::get<asking::Answers>(read);
  // An answer must be of the kind its question asked (an elicitation's for an elicitation):
  // else the question would have to be asked again under a key already answered.
  for (const auto& [key, json] : answers) {
    const std::string& request = task->input_requests.at(key);
    const std::string want = request.find("\"sampling/createMessage\"") != std::string::npos
                                 ? "sample"
                             : request.find("\"roots/list\"") != std::string::npos ? "roots"
                                                                                   : "elicit";
    if (asking::shape_of_response(json) != want)
      return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                    "Invalid params: the answer to \"" + key + "\" is not the result of " +
                        (want == "sample"  ? "sampling/createMessage"
                         : want == "roots" ? "roots/list"
                                           : "elicitation/create"));
  }
  for (const auto& [key, json] : answers) {
    task->answers[key] = json;
    task->input_requests.erase(key);
  }
  if (!answers.empty()) {
    // All answered: the tool runs again with them; else it waits for the rest.
    if (task->input_requests.empty()) {
      task->status = TaskStatus::kWorking;
      task->status_message = "working";
      run_task(*task);
    }
    tasks_.touch(*task, time_.now(), task->timeout);
    task_changed(*task);
  }
  acknowledge(r);
}

void ProtocolCore::cancel_task(Task& task, TaskStatus status, const std::string& why) {
  task.status = status;
  task.status_message = why;
  rapidjson::Document error(rapidjson::kObjectType);
  error.AddMember("code", jsonrpc::kInternalError, error.GetAllocator());
  const std::string message =
      (status == TaskStatus::kCancelled ? "Task cancelled: " : "Internal error: ") + why;
  error.AddMember("message", rapidjson::Value(message.c_str(), error.GetAllocator()),
                  error.GetAllocator());
  task.outcome_json = jsonrpc::to_json(error);
  task.outcome_error = true;
  TaskStore::ended(task);
  tasks_.touch(task, time_.now());
  // A run in progress ends: its process group is terminated, and it is not answered.
  scheduler_.cancel(CallKey{task.connection.get(), *task.exchange.id});
  task_changed(task);
}

void ProtocolCore::handle_tasks_cancel(Request& r) {
  Task* task = task_of(r);
  if (!task) return;
  if (task->exchange.meta.legacy) {
    // 2025-11-25: an ended task cannot be cancelled; the answer is the cancelled task.
    if (is_terminal(task->status))
      return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                    std::string("Invalid params: cannot cancel task: already in terminal "
                                "status '") +
                        task_status_name(task->status) + "'");
    cancel_task(*task, TaskStatus::kCancelled, "cancelled by the client");
    return show_task(r, *task);
  }
  // The extension: acknowledged; a task that has already ended keeps its status.
  if (!is_terminal(task->status))
    cancel_task(*task, TaskStatus::kCancelled, "cancelled by the client");
  acknowledge(r);
}

void ProtocolCore::handle_tasks_result(Request& r) {
  Task* task = task_of(r);
  if (!task) return;
  // Answered when the task ends (answer_waiters), or at once if it has.
  if (!is_terminal(task->status) && task->waiters.size() >= kMaxResultWaits)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidRequest,
                  "Invalid Request: " + std::to_string(kMaxResultWaits) +
                      " tasks/result requests already wait for this task");
  result_waits_.insert(CallKey{r.from.get(), *r.exchange.id});
  task->waiters.push_back({r.from, std::move(r.exchange)});
  if (is_terminal(task->status)) answer_waiters(*task);
}

void ProtocolCore::answer_waiters(Task& task) {
  auto waiters = std::move(task.waiters);
  task.waiters.clear();
  for (auto& w : waiters) {
    result_waits_.erase(CallKey{w.connection.get(), *w.exchange.id});
    AuditRecord facts;
    std::string line;
    if (task.outcome_error) {
      line = R"({"jsonrpc":"2.0","id":)" + w.exchange.id->json + R"(,"error":)" +
             task.outcome_json + "}";
      facts.outcome = "error";
      rapidjson::Document error;
      error.Parse(task.outcome_json.c_str(), task.outcome_json.size());
      if (error.IsObject() && error.HasMember("code") && error["code"].IsInt())
        facts.error_code = error["code"].GetInt();
      if (error.IsObject() && error.HasMember("message"))
        facts.error_message = text_of(error["message"]);
    } else {
      // What the call would have answered, with the task it belongs to.
      line = with_related_task(R"({"jsonrpc":"2.0","id":)" + w.exchange.id->json + R"(,"result":)" +
                                   task.outcome_json + "}",
                               "result", task.id);
      facts.outcome = "ok";
    }
    answer(*w.connection, w.exchange, std::move(line), std::move(facts));
  }
}

bool ProtocolCore::waiting_for_task(const CallKey& key) const {
  return result_waits_.count(key) > 0;
}

std::optional<Exchange> ProtocolCore::stop_waiting(const Connection* connection,
                                                   const jsonrpc::RequestId* id) {
  std::optional<Exchange> last;
  if (id && !waiting_for_task(CallKey{connection, *id})) return last;
  for (Task* task : tasks_.live())
    std::erase_if(task->waiters, [&](Task::Waiter& w) {
      if (w.connection.get() != connection || (id && !(*w.exchange.id == *id))) return false;
      result_waits_.erase(CallKey{w.connection.get(), *w.exchange.id});
      cancelled(w.exchange, *w.connection, "cancelled");
      last = w.exchange;
      return true;
    });
  return last;
}

void ProtocolCore::handle_tasks_list(Request& r) {
  const auto& meta = r.exchange.meta;
  if (!has_legacy_tasks(meta.protocol_version))
    return refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
                  "Method not found: tasks/list (tasks exist from 2025-11-25 on)");
  // Over stateless HTTP nothing tells one client from another: a list would show every
  // client's tasks (the spec: a server that cannot tell requestors apart does not list).
  if (r.from->mirrored)
    return refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
                  "Method not found: tasks/list is not served over HTTP, where requestors "
                  "cannot be told apart");
  tasks_.sweep(time_.now());
  std::vector<const Task*> mine;
  for (const Task* task : tasks_.of(meta.client_name))
    if (task->exchange.meta.legacy) mine.push_back(task);
  // The cursor names the last task of the previous page (its creation tick and id, the
  // order of the list): a page starts after it, even if tasks before it were dropped since.
  std::size_t from = 0;
  auto key_of = [](const Task& t) {
    return std::to_string(t.created_steady.time_since_epoch().count()) + "." + t.id;
  };
  if (r.params && r.params->IsObject())
    if (auto c = r.params->FindMember("cursor"); c != r.params->MemberEnd() && !c->value.IsNull()) {
      const std::string cursor = text_of(c->value);
      const auto dot = cursor.find('.');
      char* end = nullptr;
      const long long tick = std::strtoll(cursor.c_str(), &end, 10);
      if (cursor.empty() || dot == std::string::npos || end != cursor.c_str() + dot ||
          !std::isdigit(static_cast<unsigned char>(cursor[0])))
        return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                      "Invalid params: unknown cursor " + jsonrpc::to_json(c->value));
      const std::string id = cursor.substr(dot + 1);
      while (from < mine.size()) {
        const Task& t = *mine[from];
        const long long t_tick = t.created_steady.time_since_epoch().count();
        if (t_tick > tick || (t_tick == tick && t.id > id)) break;
        ++from;
      }
    }
  rapidjson::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  const std::size_t to = std::min(mine.size(), from + options_.page_size);
  for (std::size_t i = from; i < to; ++i) {
    rapidjson::Value shown(rapidjson::kObjectType);
    render_task(*mine[i], TaskView::kLegacy, options_.task_poll, shown, a);
    list.PushBack(shown, a);
  }
  result.AddMember("tasks", list, a);
  if (to < mine.size())
    result.AddMember("nextCursor", rapidjson::Value(key_of(*mine[to - 1]).c_str(), a), a);
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange, result_line(r.exchange, result, false), std::move(facts));
}

// ---- subscriptions and the end -------------------------------------------------------------

bool ProtocolCore::listen_tasks(Request& r, ListenFilter& filter) {
  if (filter.task_ids.empty()) return true;
  if (!r.exchange.meta.tasks) {
    auto data = tasks_required_data();
    refuse(*r.from, r.exchange, jsonrpc::kMissingClientCapability,
           std::string("Missing required client capability: taskIds needs the ") + kTasksExtension +
               " extension",
           &data);
    return false;
  }
  // Only the client's own tasks that are still kept (the acknowledgment names them).
  tasks_.sweep(time_.now());
  std::erase_if(filter.task_ids, [&](const std::string& id) {
    const Task* task = tasks_.find(id, r.exchange.meta.client_name);
    return !task || task->exchange.meta.legacy;
  });
  return true;
}

void ProtocolCore::end_tasks() {
  // A call that could still become a task is answered as a plain call, when it ends.
  tasks_ended_ = true;
  for (Task* task : tasks_.live())
    cancel_task(*task, TaskStatus::kFailed, "the host stopped before the task ended");
}

}  // namespace mcpsh::mcp
