#include "mcp/audit_log.h"

#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "diagnostics/log.h"

namespace mcpsh::mcp {

AuditLog::AuditLog(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0)
    throw std::runtime_error("cannot open audit log " + path + ": " + std::strerror(errno));
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);
}

std::string AuditLog::to_json_line(const AuditRecord& r) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    w.Key(key);
    w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
  };
  const std::string stamp = diagnostics::utc_timestamp();
  w.StartObject();
  str("time", stamp);
  if (!r.id_json.empty()) {
    w.Key("id");
    w.RawValue(r.id_json.c_str(), r.id_json.size(), rapidjson::kStringType);
  }
  str("method", r.method);
  str("tool", r.tool);
  str("protocolVersion", r.protocol_version);
  str("client", r.client_name);
  str("remote", r.remote);
  if (r.http_status) {
    w.Key("httpStatus");
    w.Int(r.http_status);
  }
  if (r.error_code) {
    w.Key("rpcError");
    w.StartObject();
    w.Key("code");
    w.Int(*r.error_code);
    str("message", r.error_message);
    w.EndObject();
  }
  if (r.is_error) {
    w.Key("isError");
    w.Bool(*r.is_error);
  }
  str("outcome", r.outcome);
  if (r.exit_status) {
    w.Key("exitStatus");
    w.Int(*r.exit_status);
  }
  if (r.signal) {
    w.Key("signal");
    w.Int(*r.signal);
  }
  for (auto [key, set] : {std::pair<const char*, bool>{"timedOut", r.timed_out},
                          {"cancelled", r.cancelled},
                          {"truncated", r.truncated}}) {
    if (!set) continue;
    w.Key(key);
    w.Bool(true);
  }
  if (!r.argument_names.empty()) {
    w.Key("argumentNames");
    w.StartArray();
    for (const auto& n : r.argument_names)
      w.String(n.c_str(), static_cast<rapidjson::SizeType>(n.size()));
    w.EndArray();
  }
  if (r.stdout_bytes) {
    w.Key("toolStdoutBytes");
    w.Uint64(r.stdout_bytes);
  }
  w.Key("bytesOut");
  w.Uint64(r.bytes_out);
  w.Key("durationMs");
  w.Int64(r.duration.count());
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

void AuditLog::write(const AuditRecord& record) {
  std::string line = to_json_line(record);
  // One write(2) per line on an O_APPEND file: lines never interleave.
  while (::write(fd_, line.data(), line.size()) < 0 && errno == EINTR) {
  }
}

}  // namespace mcpsh::mcp
