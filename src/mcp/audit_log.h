#pragma once
// The audit log: one JSON line per request, appended to a file. It answers "did the
// request reach the tool, did the tool run, where did it fail?" without ever recording
// argument values (only their names).
#include <memory>
#include <string>

#include "mcp/audit_record.h"

namespace mcpsh::mcp {

class AuditLog {
 public:
  explicit AuditLog(const std::string& path);  // throws std::runtime_error
  ~AuditLog();
  void write(const AuditRecord& record);
  static std::string to_json_line(const AuditRecord& record);

 private:
  int fd_ = -1;
};

}  // namespace mcpsh::mcp
