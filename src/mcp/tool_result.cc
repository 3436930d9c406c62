#include "mcp/tool_result.h"

#include "jsonrpc/json_read.h"
#include "jsonrpc/response.h"
#include "jsonrpc/utf8.h"
#include "mcp/text.h"

namespace mcpsh::mcp {

namespace {

using execution::Ending;

// The one text block, pointing at `text` without copying it: `text` must live as long as
// the result (see ShapedResult).
void set_text_view(ShapedResult& r, std::string_view text) {
  auto& a = r.result.GetAllocator();
  rapidjson::Value content(rapidjson::kArrayType), block(rapidjson::kObjectType);
  block.AddMember("type", "text", a);
  block.AddMember("text",
                  rapidjson::Value(rapidjson::StringRef(
                      text.data(), static_cast<rapidjson::SizeType>(text.size()))),
                  a);
  content.PushBack(block, a);
  r.result.AddMember("content", content, a);
  if (r.is_error) r.result.AddMember("isError", true, a);
}

// The one text block, a text composed here: the result keeps it.
void set_text(ShapedResult& r, std::string text) {
  auto owned = std::make_shared<const std::string>(std::move(text));
  set_text_view(r, *owned);
  r.storage.push_back(std::move(owned));
}

std::string seconds(std::chrono::milliseconds ms) {
  char buf[32];
  if (ms.count() % 1000 == 0) {
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(ms.count() / 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms.count()) / 1000);
  }
  return buf;
}

std::string truncation_note(const execution::Outcome& o) {
  if (!o.stdout_truncated()) return {};
  return "\n\n[output truncated: the tool printed " + human_bytes(o.stdout_total) +
         "; only the first " + human_bytes(o.stdout_head.size()) + " are shown]";
}

std::string_view stderr_excerpt(const execution::Outcome& o) {
  std::string_view tail = trim_trailing_newlines(o.stderr_tail);
  auto first = tail.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return tail.substr(first);
}

}  // namespace

ShapedResult error_result(std::string text, std::string outcome) {
  ShapedResult r;
  r.is_error = true;
  r.outcome = std::move(outcome);
  set_text(r, std::move(text));
  return r;
}

namespace {

// The text block: stdout, an error's explanation, or structured output's JSON.
ShapedResult shape_text_result(const std::string& tool, const execution::Outcome& o,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema, std::string_view noun) {
  // Not copied: invalid UTF-8 is repaired where the result is written.
  const std::string_view out = trim_trailing_newlines(o.stdout_head);
  const std::string name = std::string(noun) + " '" + tool + "'";
  std::string why;  // non-empty: the call failed
  std::string outcome = "ok";
  switch (o.ending) {
    case Ending::kExited:
      if (o.exit_code != 0) {
        why = name + " failed with exit status " + std::to_string(o.exit_code);
        outcome = "exit";
        if (o.cpu_limit_hit && limits.cpu_seconds) {  // a child of the tool hit RLIMIT_CPU
          why += ": a process it started used up its CPU time limit of " +
                 std::to_string(*limits.cpu_seconds) + " s";
          outcome = "cpu_limit";
        }
      }
      break;
    case Ending::kSignaled:
      why = name + " was killed by signal " + std::to_string(o.signal) + " (" +
            execution::signal_name(o.signal) + ")";
      if (o.cpu_limit_hit && limits.cpu_seconds)
        why += ": it used up its CPU time limit of " + std::to_string(*limits.cpu_seconds) + " s";
      outcome = o.cpu_limit_hit ? "cpu_limit" : "signal";
      break;
    case Ending::kTimedOut:
      why = name + " timed out after " + seconds(limits.timeout) +
            " and was stopped. Try a smaller request, or one that does less work.";
      outcome = "timeout";
      break;
    case Ending::kCancelled:
      why = name + " was cancelled";
      outcome = "cancelled";
      break;
    case Ending::kShutdown:
      why = name + " was stopped because the server is shutting down";
      outcome = "shutdown";
      break;
    case Ending::kFailedToStart:
      why = name + " could not be started: " + o.start_error;
      outcome = "start_failed";
      break;
  }
  if (!why.empty() && limits.memory_bytes && o.stderr_tail.find("llocat") != std::string::npos)
    why += " (it may have hit its memory limit of " + human_bytes(*limits.memory_bytes) + ")";

  ShapedResult r;
  r.outcome = outcome;
  if (!why.empty()) {
    r.is_error = true;
    std::string text;
    if (o.ending == Ending::kExited && !out.empty() && !o.cpu_limit_hit) {
      text = out;  // the tool explained itself: exactly what it echoed
    } else {
      text = why;
      // One full stop between the two sentences, also after a reason that ends with one.
      const char* stop = why.back() == '.' ? " " : ". ";
      std::string_view err = stderr_excerpt(o);
      if (!out.empty()) {
        text += stop;
        text += "Output so far:\n";
        text += out;
      } else if (!err.empty()) {
        text += stop;
        text += "Its error output ends with:\n";
        text += err;
      }
    }
    set_text(r, text + truncation_note(o));
    if (o.stdout_truncated()) r.outcome += "+truncated";
    return r;
  }

  if (output_schema) {
    // The tool promised structured output: it must be JSON that conforms, or the model
    // gets an error instead of content that lies about its shape.
    if (o.stdout_truncated()) {
      return error_result(
          name + " printed " + human_bytes(o.stdout_total) + " of output, more than the limit of " +
              human_bytes(limits.max_stdout) + ", so its structured output could not be read.",
          "output_invalid+truncated");
    }
    // Read as every JSON input is (jsonrpc/json_read.h): depth bounded before anything is
    // built, NUL bytes and lone surrogates given one meaning. Invalid UTF-8 is repaired
    // first, as it is in any text a tool prints.
    jsonrpc::ParsedJson parsed = jsonrpc::parse_json(jsonrpc::valid_utf8(out));
    if (parsed.failure == jsonrpc::ParsedJson::Failure::kTooDeep)
      return error_result(name + " printed JSON nested deeper than " +
                              std::to_string(jsonrpc::kMaxNesting) + " levels, which is not read.",
                          "output_invalid");
    if (parsed.failure != jsonrpc::ParsedJson::Failure::kNone)
      return error_result(name + " declares an outputSchema but its output is not JSON (" +
                              parsed.error + "). Output:\n" + std::string(out),
                          "output_invalid");
    rapidjson::Document& value = *parsed.document;
    auto violations = output_schema->validate(value);
    if (!violations.empty())
      return error_result(name + " produced output that does not match its outputSchema:\n" +
                              schema::describe(violations),
                          "output_invalid");
    set_text(r, jsonrpc::to_json(value));
    // Moved, not copied: its strings and nodes stay where the parse put them, kept alive
    // by `storage`.
    r.result.AddMember("structuredContent", value.Move(), r.result.GetAllocator());
    r.storage.push_back(std::move(parsed.document));
    return r;
  }
  if (!o.stdout_truncated()) {
    set_text_view(r, out);
    return r;
  }
  set_text(r, std::string(out) + truncation_note(o));
  r.outcome = "ok+truncated";
  return r;
}

}  // namespace

ShapedResult shape_tool_result(const std::string& tool, const execution::Outcome& o,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema,
                               const ToolContent& content, std::string_view noun) {
  ShapedResult r = shape_text_result(tool, o, limits, output_schema, noun);
  const std::uint64_t text = std::min<std::uint64_t>(o.stdout_head.size(), limits.max_stdout);
  add_content_blocks(r, content, limits.max_stdout - text, limits.max_stdout);
  return r;
}

}  // namespace mcpsh::mcp