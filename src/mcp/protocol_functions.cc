// ProtocolCore's resources, prompts and completion methods: the requests that run a
// resource_, prompt_ or complete_ function (or read a published directory).
#include <utility>

#include "diagnostics/log.h"
#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"
#include "mcp/core_request.h"
#include "mcp/function_results.h"
#include "mcp/protocol_core.h"

namespace mcpsh::mcp {

namespace {

const rapidjson::Value* member(const rapidjson::Value* object, const char* key) {
  if (!object || !object->IsObject()) return nullptr;
  auto it = object->FindMember(key);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string> string_member(const rapidjson::Value* object, const char* key) {
  const rapidjson::Value* v = member(object, key);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::string invalid(const std::string& what) { return "Invalid params: " + what; }

// {"uri": URI}: the data of a resource-not-found error (SEP-2164).
rapidjson::Document uri_data(const std::string& uri) {
  rapidjson::Document d(rapidjson::kObjectType);
  d.AddMember("uri", rapidjson::Value(uri.c_str(), d.GetAllocator()), d.GetAllocator());
  return d;
}

}  // namespace

bool ProtocolCore::unoffered(Request& r) {
  bool offered = true;
  switch (r.method) {
    case MethodId::kResourcesList:
    case MethodId::kResourceTemplatesList:
    case MethodId::kResourcesRead:
      offered = !offering_->resources.empty();
      break;
    case MethodId::kPromptsList:
    case MethodId::kPromptsGet:
      offered = !offering_->prompts.empty();
      break;
    case MethodId::kComplete:
      offered = offering_->prompts.has_completers();
      break;
    default:
      break;
  }
  if (offered) return false;
  // The old core's wording, which has none of these methods: migrated clients see the same.
  refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound, "Method not found: " + r.exchange.method);
  return true;
}

std::string ProtocolCore::result_line(const Exchange& x, rapidjson::Document& result,
                                      bool cacheable) {
  if (cacheable && !x.meta.legacy) offering_->profile.add_cache_hints(result);
  offering_->profile.complete(result, x.meta.legacy);
  return jsonrpc::result_line(*x.id, result);
}

void ProtocolCore::handle_list(Request& r, const PagedList& list) {
  if (unoffered(r)) return;
  std::size_t page = 0;
  if (const rapidjson::Value* cursor = member(r.params, "cursor"); cursor && !cursor->IsNull()) {
    auto named =
        cursor->IsString()
            ? page_of_cursor(std::string_view(cursor->GetString(), cursor->GetStringLength()),
                             list.pages())
            : std::nullopt;
    if (!named)
      return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                    invalid("\"cursor\" is not one this server gave"));
    page = *named;
  }
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange,
         jsonrpc::result_line_raw(*r.exchange.id,
                                  r.exchange.meta.legacy ? list.legacy(page) : list.modern(page)),
         std::move(facts));
}

void ProtocolCore::handle_read(Request& r) {
  if (unoffered(r)) return;
  auto uri = string_member(r.params, "uri");
  if (!uri)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("\"uri\" (a string) is required"));
  r.exchange.tool = *uri;
  auto not_found = [&](const std::string& why) {
    auto data = uri_data(*uri);
    refuse(*r.from, r.exchange, jsonrpc::kInvalidParams, why, &data);
  };
  auto target = offering_->resources.resolve(*uri);
  if (!target) return not_found("Resource not found: " + *uri);
  if (target->dir) {
    auto read = target->dir->read(*uri, options_.limits.max_stdout);
    using Status = resources::DirRead::Status;
    switch (read.status) {
      case Status::kNotMine:
      case Status::kNotFound:
        return not_found("Resource not found: " + *uri);
      case Status::kRefused:
        return not_found("Resource not readable: " + *uri + ": " + read.why);
      case Status::kTooLarge:
        return refuse(*r.from, r.exchange, jsonrpc::kInternalError, read.why);
      case Status::kOk:
        break;
    }
    execution::Outcome o;
    o.ending = execution::Ending::kExited;
    o.stdout_head = std::move(read.bytes);
    o.stdout_total = o.stdout_head.size();
    FunctionAnswer a = read_answer("", o, {}, options_.limits, *uri, read.mime);
    AuditRecord facts;
    facts.outcome = a.outcome;
    facts.stdout_bytes = o.stdout_total;
    return answer(*r.from, r.exchange, result_line(r.exchange, a.result, true), std::move(facts));
  }
  const auto& entry = target->resource->entry;
  rapidjson::Document args(rapidjson::kObjectType);
  auto& a = args.GetAllocator();
  args.AddMember("uri", rapidjson::Value(uri->c_str(), a), a);
  rapidjson::Value variables(rapidjson::kObjectType);
  for (const auto& [name, value] : target->variables)
    variables.AddMember(rapidjson::Value(name.c_str(), a), rapidjson::Value(value.c_str(), a), a);
  args.AddMember("variables", variables, a);
  auto call = std::make_shared<Call>();
  call->kind = CallKind::kResource;
  call->uri = *uri;
  call->mime = entry.mime;
  submit_function(r, std::move(call), entry.script, "resource_" + entry.name,
                  jsonrpc::to_json(args), entry.timeout, entry.confinement);
}

void ProtocolCore::handle_prompt(Request& r) {
  if (unoffered(r)) return;
  auto name = string_member(r.params, "name");
  if (!name)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("\"name\" (a string) is required"));
  r.exchange.tool = *name;
  const auto* prompt = offering_->prompts.find(*name);
  if (!prompt)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams, "Prompt not found: " + *name);
  const rapidjson::Value* arguments = member(r.params, "arguments");
  if (arguments && !arguments->IsObject() && !arguments->IsNull())
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("\"arguments\" must be an object"));
  if (arguments && arguments->IsNull()) arguments = nullptr;
  if (arguments)
    for (const auto& m : arguments->GetObject()) {
      r.exchange.argument_names.emplace_back(m.name.GetString(), m.name.GetStringLength());
      if (!m.value.IsString())
        return refuse(
            *r.from, r.exchange, jsonrpc::kInvalidParams,
            invalid("prompt arguments are strings; \"" +
                    std::string(m.name.GetString(), m.name.GetStringLength()) + "\" is not"));
    }
  std::string missing;
  for (const auto& arg : prompt->arguments)
    if (arg.required && !member(arguments, arg.name.c_str()))
      missing += (missing.empty() ? "" : ", ") + arg.name;
  if (!missing.empty())
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("prompt '" + *name + "' needs the argument(s) " + missing));
  auto call = std::make_shared<Call>();
  call->kind = CallKind::kPrompt;
  rapidjson::Document definition;
  definition.Parse(prompt->definition_json.c_str(), prompt->definition_json.size());
  if (auto d = string_member(&definition, "description")) call->description = *d;
  submit_function(r, std::move(call), prompt->script, "prompt_" + prompt->name,
                  arguments ? jsonrpc::to_json(*arguments) : "{}", prompt->timeout,
                  prompt->confinement);
}

void ProtocolCore::handle_complete(Request& r) {
  if (unoffered(r)) return;
  const rapidjson::Value* ref = member(r.params, "ref");
  const rapidjson::Value* argument = member(r.params, "argument");
  auto type = string_member(ref, "type");
  auto arg_name = string_member(argument, "name");
  auto arg_value = string_member(argument, "value");
  if (!type || !arg_name || !arg_value)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("completion/complete needs \"ref\" {\"type\"} and \"argument\" "
                          "{\"name\", \"value\"} (strings)"));
  std::string name, kind;
  bool known_argument = false;
  if (*type == "ref/prompt") {
    auto prompt_name = string_member(ref, "name");
    const auto* prompt = prompt_name ? offering_->prompts.find(*prompt_name) : nullptr;
    if (!prompt)
      return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                    "Prompt not found: " + prompt_name.value_or(""));
    name = prompt->name;
    kind = "prompt";
    for (const auto& a : prompt->arguments) known_argument |= a.name == *arg_name;
  } else if (*type == "ref/resource") {
    auto uri = string_member(ref, "uri");
    const auto* resource = uri ? offering_->resources.find_template(*uri) : nullptr;
    if (!resource && uri && offering_->resources.is_folder_template(*uri)) {
      // A published folder's template: its files are listed, not completed.
      auto result = empty_completion();
      AuditRecord facts;
      facts.outcome = "ok";
      return answer(*r.from, r.exchange, result_line(r.exchange, result, false), std::move(facts));
    }
    if (!resource) {
      auto data = uri_data(uri.value_or(""));
      return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                    "Resource template not found: " + uri.value_or(""), &data);
    }
    name = resource->entry.name;
    kind = "resource";
    for (const auto& v : resource->uri_template->variables()) known_argument |= v == *arg_name;
  } else {
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("ref.type must be \"ref/prompt\" or \"ref/resource\""));
  }
  r.exchange.tool = name;
  if (!known_argument)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("the " + kind + " '" + name + "' has no argument \"" + *arg_name + "\""));
  const auto* completer = offering_->prompts.completer(name);
  if (!completer) {
    auto result = empty_completion();
    AuditRecord facts;
    facts.outcome = "ok";
    return answer(*r.from, r.exchange, result_line(r.exchange, result, false), std::move(facts));
  }
  rapidjson::Document args(rapidjson::kObjectType);
  auto& a = args.GetAllocator();
  args.AddMember("ref", rapidjson::Value(kind.c_str(), a), a);
  args.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  args.AddMember("argument", rapidjson::Value(arg_name->c_str(), a), a);
  args.AddMember("value", rapidjson::Value(arg_value->c_str(), a), a);
  rapidjson::Value context(rapidjson::kObjectType);
  if (const auto* given = member(member(r.params, "context"), "arguments");
      given && given->IsObject())
    for (const auto& m : given->GetObject())
      if (m.value.IsString())
        context.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
  args.AddMember("arguments", context, a);
  auto call = std::make_shared<Call>();
  call->kind = CallKind::kCompletion;
  submit_function(r, std::move(call), completer->script, "complete_" + completer->name,
                  jsonrpc::to_json(args), std::nullopt, completer->confinement);
}

void ProtocolCore::submit_function(Request& r, std::shared_ptr<Call> call,
                                   const std::string& script, const std::string& function,
                                   std::string arguments_json,
                                   std::optional<std::chrono::milliseconds> timeout,
                                   const execution::Confinement& confinement) {
  // A resource is named by its URI alone; a prompt's arguments are part of the request.
  if (!open_round(r, *call, r.exchange.tool,
                  call->kind == CallKind::kPrompt ? member(r.params, "arguments") : nullptr))
    return;
  r.params = nullptr;
  r.document.reset();
  call->connection = r.from;
  call->offering = offering_;
  call->exchange = std::move(r.exchange);
  call->launch = {script, function, std::move(arguments_json), options_.limits, confinement};
  if (timeout) call->launch.limits.timeout = *timeout;
  give_inputs(*call);
  scheduler_.submit(std::move(call));
}

void ProtocolCore::finished_function(Call& call, execution::Outcome outcome) {
  FunctionAnswer a;
  const auto& function = call.launch.function;
  switch (call.kind) {
    case CallKind::kResource:
      a = read_answer(function, outcome, call.content, call.launch.limits, call.uri, call.mime);
      break;
    case CallKind::kPrompt:
      a = prompt_answer(function, outcome, call.content, call.launch.limits, call.description);
      break;
    case CallKind::kCompletion:
      a = completion_answer(function, outcome, call.launch.limits);
      break;
    case CallKind::kTool:  // finished() shapes tool calls itself
      return;
  }
  AuditRecord facts = run_facts(call, outcome);
  facts.outcome = a.outcome;
  if (!a.ok) {
    facts.error_code = a.code;
    facts.error_message = a.message;
    return answer(*call.connection, call.exchange,
                  jsonrpc::error_line(call.exchange.id, a.code, a.message), std::move(facts));
  }
  answer(*call.connection, call.exchange,
         result_line(call.exchange, a.result, call.kind == CallKind::kResource), std::move(facts));
}

void ProtocolCore::handle_listen(Request& r) {
  auto filter = read_listen_filter(member(r.params, "notifications"));
  if (!filter)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("\"notifications\" must be an object of toolsListChanged, "
                          "promptsListChanged, resourcesListChanged (booleans), "
                          "resourceSubscriptions (an array of URIs) and taskIds (an array "
                          "of task ids)"));
  if (!listen_tasks(r, *filter)) return;
  // Only what the capabilities announce (nothing without reloads): the acknowledgment
  // says which.
  const Announced& a = offering_->profile.announces();
  ListChanges offered{a.tools, a.prompts, a.resources, a.subscribe};
  log_.debug("subscriptions/listen " + r.exchange.id->json + " opened");
  subscriptions_.listen(r.from, std::move(r.exchange), std::move(*filter), offered);
  // Opened after the host began to stop (its request was still arriving): acknowledged and
  // closed at once, like the others were.
  if (subscriptions_ended_) end_subscriptions();
}

void ProtocolCore::handle_subscribe(Request& r, bool subscribe) {
  if (unoffered(r)) return;
  // Only what the capabilities promise (resources.subscribe: the host reloads).
  if (!offering_->profile.announces().subscribe)
    return refuse(*r.from, r.exchange, jsonrpc::kMethodNotFound,
                  "Method not found: " + r.exchange.method);
  auto uri = string_member(r.params, "uri");
  if (!uri)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  invalid("\"uri\" (a string) is required"));
  r.exchange.tool = *uri;
  // Over stateless HTTP the exchange ends with this answer: nothing could be delivered later,
  // so nothing is kept.
  if (!r.from->mirrored) {
    if (subscribe)
      subscriptions_.subscribe(r.from, *uri);
    else
      subscriptions_.unsubscribe(r.from.get(), *uri);
  }
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange, jsonrpc::result_line_raw(*r.exchange.id, "{}"), std::move(facts));
}

void ProtocolCore::end_subscriptions() {
  subscriptions_ended_ = true;
  for (auto& open : subscriptions_.take_all()) {
    const Exchange& x = open.exchange;
    rapidjson::Document result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    rapidjson::Document id;
    id.Parse(x.id->json.c_str(), x.id->json.size());
    offering_->profile.complete(result, /*legacy=*/false);  // resultType, _meta.serverInfo
    result["_meta"].AddMember("io.modelcontextprotocol/subscriptionId", rapidjson::Value(id, a), a);
    AuditRecord facts;
    facts.outcome = "closed";
    answer(*open.connection, x, jsonrpc::result_line(*x.id, result), std::move(facts));
  }
}

std::shared_ptr<const Offering> ProtocolCore::replace_offering(
    std::shared_ptr<const Offering> next) {
  ListChanges changes;
  changes.tools = next->tools.tools_json() != offering_->tools.tools_json();
  changes.prompts = next->prompts.prompts_json() != offering_->prompts.prompts_json();
  changes.resources = next->resources.resources_json() != offering_->resources.resources_json() ||
                      next->resources.templates_json() != offering_->resources.templates_json();
  // Announced by the old or the new capabilities: removing the last prompt is a change too.
  const Announced& before = offering_->profile.announces();
  const Announced& after = next->profile.announces();
  changes.tools = changes.tools && (before.tools || after.tools);
  changes.prompts = changes.prompts && (before.prompts || after.prompts);
  changes.resources = changes.resources && (before.resources || after.resources);
  std::shared_ptr<const Offering> old = std::exchange(offering_, std::move(next));
  log_.info(std::string("catalog reloaded") + (changes.tools ? "; tools changed" : "") +
            (changes.prompts ? "; prompts changed" : "") +
            (changes.resources ? "; resources changed" : ""));
  // New scripts get ready processes too; those of a changed script are replaced by the
  // executor itself, which checks each script's stamp before it hands a call over.
  if (warmed_) runner_.warm(offering_->warm_targets);
  subscriptions_.lists_changed(changes);
  return old;
}

}  // namespace mcpsh::mcp
