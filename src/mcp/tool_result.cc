#include "mcp/tool_result.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "jsonrpc/message.h"
#include "mcp/text.h"

namespace mcpsh::mcp {

namespace {

using execution::Ending;

void set_text(ShapedResult& r, const std::string& text) {
  auto& a = r.result.GetAllocator();
  rapidjson::Value content(rapidjson::kArrayType), block(rapidjson::kObjectType);
  block.AddMember("type", "text", a);
  block.AddMember(
      "text", rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a), a);
  content.PushBack(block, a);
  r.result.AddMember("content", content, a);
  if (r.is_error) r.result.AddMember("isError", true, a);
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

std::string stderr_excerpt(const execution::Outcome& o) {
  std::string tail = valid_utf8(trim_trailing_newlines(o.stderr_tail));
  auto first = tail.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  return tail.substr(first);
}

}  // namespace

ShapedResult error_result(std::string text, std::string outcome) {
  ShapedResult r;
  r.is_error = true;
  r.outcome = std::move(outcome);
  set_text(r, text);
  return r;
}

ShapedResult shape_tool_result(const std::string& tool, const execution::Outcome& o,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema) {
  const std::string out = valid_utf8(trim_trailing_newlines(o.stdout_head));
  const std::string name = "Tool '" + tool + "'";
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
      std::string err = stderr_excerpt(o);
      if (!out.empty()) {
        text += ". Output so far:\n" + out;
      } else if (!err.empty()) {
        text += ". Its error output ends with:\n" + err;
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
    // Parsing, validating and writing it back recurse per level: refuse deep JSON first.
    if (jsonrpc::nesting_depth(out) > jsonrpc::kMaxNesting)
      return error_result(name + " printed JSON nested deeper than " +
                              std::to_string(jsonrpc::kMaxNesting) + " levels, which is not read.",
                          "output_invalid");
    rapidjson::Document value;
    value.Parse<rapidjson::kParseValidateEncodingFlag>(out.c_str(), out.size());
    if (value.HasParseError())
      return error_result(name + " declares an outputSchema but its output is not JSON (" +
                              rapidjson::GetParseError_En(value.GetParseError()) + " at offset " +
                              std::to_string(value.GetErrorOffset()) + "). Output:\n" + out,
                          "output_invalid");
    auto violations = output_schema->validate(value);
    if (!violations.empty())
      return error_result(name + " produced output that does not match its outputSchema:\n" +
                              schema::describe(violations),
                          "output_invalid");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    set_text(r, std::string(buffer.GetString(), buffer.GetSize()));
    r.result.AddMember("structuredContent", rapidjson::Value(value, r.result.GetAllocator()),
                       r.result.GetAllocator());
    return r;
  }
  set_text(r, out + truncation_note(o));
  if (o.stdout_truncated()) r.outcome = "ok+truncated";
  return r;
}

}  // namespace mcpsh::mcp
