#include "mcp/function_results.h"

#include <sstream>

#include "jsonrpc/error_codes.h"
#include "mcp/base64.h"
#include "mcp/text.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

namespace {

using execution::ContentKind;

// Non-empty: the run failed, and this is why (the text a tool's isError result would have).
std::string failure(const std::string& function, const execution::Outcome& o,
                    const execution::Limits& limits, std::string& outcome) {
  ShapedResult shaped = shape_tool_result(function, o, limits, nullptr, {}, "Function");
  outcome = shaped.outcome;
  if (!shaped.is_error) return {};
  const auto& text = shaped.result["content"][0]["text"];
  std::string why(text.GetString(), text.GetStringLength());
  return why.empty() ? "Function '" + function + "' failed" : why;
}

FunctionAnswer error(int code, std::string message, std::string outcome) {
  FunctionAnswer a;
  a.code = code;
  a.message = std::move(message);
  a.outcome = std::move(outcome);
  return a;
}

void add_contents_item(rapidjson::Value& contents, const std::string& uri, const std::string& mime,
                       const std::string& bytes, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value item(rapidjson::kObjectType);
  item.AddMember("uri", rapidjson::Value(uri.c_str(), a), a);
  if (!mime.empty()) item.AddMember("mimeType", rapidjson::Value(mime.c_str(), a), a);
  if (resource_is_text(mime, bytes)) {
    item.AddMember(
        "text", rapidjson::Value(bytes.data(), static_cast<rapidjson::SizeType>(bytes.size()), a),
        a);
  } else {
    std::string blob = encode_base64(bytes);
    item.AddMember(
        "blob", rapidjson::Value(blob.data(), static_cast<rapidjson::SizeType>(blob.size()), a), a);
  }
  contents.PushBack(item, a);
}

}  // namespace

FunctionAnswer read_answer(const std::string& function, const execution::Outcome& o,
                           const ToolContent& content, const execution::Limits& limits,
                           const std::string& uri, const std::string& mime) {
  std::string outcome;
  if (std::string why = failure(function, o, limits, outcome); !why.empty())
    return error(jsonrpc::kInternalError, why, outcome);
  if (o.stdout_truncated() || content.oversized)
    return error(jsonrpc::kInternalError,
                 "Resource " + uri + " is larger than the output limit of " +
                     human_bytes(limits.max_stdout) + " (--max-output); it was not sent",
                 "too_large");
  FunctionAnswer answer;
  answer.ok = true;
  answer.outcome = "ok";
  auto& a = answer.result.GetAllocator();
  rapidjson::Value contents(rapidjson::kArrayType);
  if (!o.stdout_head.empty() || content.blocks.empty())
    add_contents_item(contents, uri, mime, o.stdout_head, a);
  for (const auto& e : content.blocks) {
    if (e.kind == ContentKind::kResourceLink || !e.base64) continue;
    auto bytes = decode_base64(*e.base64);
    if (!bytes) continue;
    const bool own_uri = e.kind != ContentKind::kResource;
    add_contents_item(contents, own_uri ? uri : e.uri, e.mime, *bytes, a);
  }
  answer.result.AddMember("contents", contents, a);
  return answer;
}

FunctionAnswer prompt_answer(const std::string& function, const execution::Outcome& o,
                             const ToolContent& content, const execution::Limits& limits,
                             const std::string& description) {
  std::string outcome;
  if (std::string why = failure(function, o, limits, outcome); !why.empty())
    return error(jsonrpc::kInternalError, why, outcome);
  if (o.stdout_truncated() || content.oversized)
    return error(jsonrpc::kInternalError,
                 "Prompt '" + function.substr(7) + "' is larger than the output limit of " +
                     human_bytes(limits.max_stdout) + " (--max-output); it was not sent",
                 "too_large");
  // The blocks are built as a tool result's are; ShapedResult keeps what they point to.
  ShapedResult blocks;
  FunctionAnswer answer;
  answer.ok = true;
  answer.outcome = "ok";
  auto& a = answer.result.GetAllocator();
  rapidjson::Value messages(rapidjson::kArrayType);
  auto add = [&](const char* role, rapidjson::Value block) {
    rapidjson::Value m(rapidjson::kObjectType);
    m.AddMember("role", rapidjson::StringRef(role), a);
    m.AddMember("content", rapidjson::Value(block, a), a);
    messages.PushBack(m, a);
  };
  for (const auto& e : content.blocks)
    add(e.annotations.role == "assistant" ? "assistant" : "user", block_json(e, blocks));
  const std::string_view text = trim_trailing_newlines(o.stdout_head);
  if (!text.empty()) {
    rapidjson::Value block(rapidjson::kObjectType);
    block.AddMember("type", "text", a);
    block.AddMember(
        "text", rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), a), a);
    add("user", std::move(block));
  }
  answer.storage = std::move(blocks.storage);
  if (!description.empty())
    answer.result.AddMember("description", rapidjson::Value(description.c_str(), a), a);
  answer.result.AddMember("messages", messages, a);
  return answer;
}

rapidjson::Document empty_completion() {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value completion(rapidjson::kObjectType);
  completion.AddMember("values", rapidjson::Value(rapidjson::kArrayType), a);
  completion.AddMember("total", 0, a);
  completion.AddMember("hasMore", false, a);
  d.AddMember("completion", completion, a);
  return d;
}

FunctionAnswer completion_answer(const std::string& function, const execution::Outcome& o,
                                 const execution::Limits& limits) {
  std::string outcome;
  if (std::string why = failure(function, o, limits, outcome); !why.empty())
    return error(jsonrpc::kInternalError, why, outcome);
  FunctionAnswer answer;
  answer.ok = true;
  answer.outcome = o.stdout_truncated() ? "ok+truncated" : "ok";
  answer.result = empty_completion();
  auto& a = answer.result.GetAllocator();
  auto& completion = answer.result["completion"];
  std::istringstream lines(o.stdout_head);
  std::uint64_t total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (total++ < kMaxCompletionValues)
      completion["values"].PushBack(rapidjson::Value(line.c_str(), a), a);
  }
  completion["total"].SetUint64(total);
  // A cut output had more lines than were counted.
  completion["hasMore"].SetBool(total > kMaxCompletionValues || o.stdout_truncated());
  return answer;
}

}  // namespace mcpsh::mcp
