#include "mcp/audit_log.h"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "diagnostics/log.h"
#include "jsonrpc/response.h"
#include "transport/write_all.h"

namespace mcpsh::mcp {

AuditLog::AuditLog(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0)
    throw std::runtime_error("cannot open audit log " + path + ": " + std::strerror(errno));
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);
}

// Built as a document and written by the host's one JSON writer, which repairs invalid
// UTF-8: names, client names and error messages come from clients and scripts.
std::string AuditLog::to_json_line(const AuditRecord& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  auto add = [&](const char* key, rapidjson::Value value) {
    d.AddMember(rapidjson::StringRef(key), value, a);
  };
  auto ref = [](const std::string& s) {
    return rapidjson::Value(rapidjson::StringRef(s.data(), s.size()));
  };
  auto str = [&](const char* key, const std::string& value) {
    if (!value.empty()) add(key, ref(value));
  };
  const std::string stamp = diagnostics::utc_timestamp();
  str("time", stamp);
  if (!r.id_json.empty()) {
    // The id as the request carried it (a string or a number), already JSON text.
    rapidjson::Document id(&a);
    id.Parse(r.id_json.data(), r.id_json.size());
    if (!id.HasParseError()) add("id", rapidjson::Value(id, a));
  }
  str("method", r.method);
  str("tool", r.tool);
  str("protocolVersion", r.protocol_version);
  str("client", r.client_name);
  str("remote", r.remote);
  str("sandbox", r.sandbox);
  if (r.http_status) add("httpStatus", rapidjson::Value(r.http_status));
  if (r.error_code) {
    rapidjson::Value error(rapidjson::kObjectType);
    error.AddMember("code", *r.error_code, a);
    if (!r.error_message.empty()) error.AddMember("message", ref(r.error_message), a);
    add("rpcError", std::move(error));
  }
  if (r.is_error) add("isError", rapidjson::Value(*r.is_error));
  str("outcome", r.outcome);
  if (r.exit_status) add("exitStatus", rapidjson::Value(*r.exit_status));
  if (r.signal) add("signal", rapidjson::Value(*r.signal));
  if (r.timed_out) add("timedOut", rapidjson::Value(true));
  if (r.cancelled) add("cancelled", rapidjson::Value(true));
  if (r.truncated) add("truncated", rapidjson::Value(true));
  if (!r.argument_names.empty()) {
    rapidjson::Value names(rapidjson::kArrayType);
    for (const auto& n : r.argument_names) names.PushBack(ref(n), a);
    add("argumentNames", std::move(names));
  }
  if (r.stdout_bytes) add("toolStdoutBytes", rapidjson::Value(r.stdout_bytes));
  add("bytesIn", rapidjson::Value(r.bytes_in));
  add("bytesOut", rapidjson::Value(r.bytes_out));
  add("durationMs", rapidjson::Value(static_cast<std::int64_t>(r.duration.count())));
  std::string line = jsonrpc::to_json(d);
  line += '\n';
  return line;
}

void AuditLog::write(const AuditRecord& record) {
  std::string line = to_json_line(record);
  // Whole lines on an O_APPEND file: a line is one write(2) unless the disk fills up.
  transport::write_all(fd_, line);
}

}  // namespace mcpsh::mcp
