#pragma once
// Which of the host's environment variables a tool's process gets (--env-allow,
// --env-deny, a tool's @env). Patterns are shell patterns (fnmatch): "AWS_*", "PATH".
//
// The default passes everything on (old-core servers expect the full environment);
// BASH_ENV and ENV never are (they would make bash run files we did not ask for).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpsh::execution {

struct EnvPolicy {
  // Unset: every variable. Set: only those matching one of these patterns, and the few
  // every program expects (PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ,
  // TERM, TMPDIR).
  std::optional<std::vector<std::string>> allow;
  std::vector<std::string> deny;  // never passed on, whatever else allows them

  bool admits(std::string_view name) const;
  // The same policy with `extra` patterns allowed too (a tool's @env): with no allow list
  // everything is allowed already. `deny` still wins.
  EnvPolicy widened(const std::vector<std::string>& extra) const;
  // "all", or "allow=A:B deny=C" for the audit log and `check`.
  std::string describe() const;
  bool operator==(const EnvPolicy&) const = default;
};

}  // namespace mcpsh::execution
