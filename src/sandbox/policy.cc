#include "sandbox/policy.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace mcpsh::sandbox {

namespace {

// The kernel's PID_MAX_LIMIT on 64-bit: pid_max cannot be set higher.
constexpr std::uint32_t kMaxProcs = 4194303;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Absolute, without "." or ".." components resolved away: a path is kept as the author
// wrote it, joined to `base`. Symlinks are resolved when a process starts (Landlock
// rules hold the file the path names then).
std::string absolute(std::string_view path, const std::string& base) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  std::string out = base.empty() ? std::string("/") : base;
  if (out.back() != '/') out += '/';
  out += path;
  return out;
}

}  // namespace

std::string find_on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') {
      std::string candidate = std::string(dir) + "/" + std::string(name);
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

bool Policy::active() const {
  return confined_writes || reads.has_value() || network != Network::kAny || isolate ||
         programs.has_value();
}

std::variant<Policy, std::string> parse_policy(std::string_view words, const std::string& base) {
  Policy p;
  bool none = false, any_word = false;
  while (true) {
    const std::size_t comma = words.find(',');
    const std::string_view word = trim(words.substr(0, comma));
    if (!word.empty()) {
      any_word = true;
      const std::size_t eq = word.find('=');
      const std::string_view key = word.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? "" : trim(word.substr(eq + 1));
      if (eq != std::string_view::npos && value.empty())
        return "sandbox: \"" + std::string(word) + "\" needs a value after '='";
      if (word == "none") {
        none = true;
      } else if (word == "read-only") {
        p.confined_writes = true;
      } else if (word == "no-network") {
        p.network = Policy::Network::kNone;
      } else if (word == "isolate") {
        p.isolate = true;
      } else if (key == "procs" && !value.empty()) {
        std::uint32_t n = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc{} || end != value.data() + value.size() || n < kMinProcs ||
            n > kMaxProcs)
          return "sandbox: procs= needs a number of processes from " + std::to_string(kMinProcs) +
                 " to " + std::to_string(kMaxProcs) + ", got \"" + std::string(value) + "\"";
        p.isolate = true;
        p.procs = p.procs ? std::min(*p.procs, n) : n;
      } else if ((key == "write" || key == "read") && !value.empty()) {
        std::string path = absolute(value, base);
        // describe() joins words with commas: a path with one could not be read back.
        if (path.find(',') != std::string::npos)
          return "sandbox: " + std::string(key) + "= cannot name a path with a comma in it (\"" +
                 path + "\")";
        if (key == "write") {
          p.confined_writes = true;
          p.write_paths.push_back(std::move(path));
        } else {
          if (!p.reads) p.reads.emplace();
          p.reads->push_back(std::move(path));
        }
      } else if (key == "exec" && !value.empty()) {
        std::string program =
            value.find('/') == std::string_view::npos ? find_on_path(value) : absolute(value, base);
        if (program.empty())
          return "sandbox: exec=" + std::string(value) + ": no such program on PATH";
        if (program.find(',') != std::string::npos)
          return "sandbox: exec= cannot name a path with a comma in it (\"" + program + "\")";
        if (!p.programs) p.programs.emplace();
        p.programs->push_back(std::move(program));
      } else if (key == "connect" && !value.empty()) {
        unsigned port = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
        if (ec != std::errc{} || end != value.data() + value.size() || port == 0 || port > 65535)
          return "sandbox: connect= needs a TCP port from 1 to 65535, got \"" + std::string(value) +
                 "\"";
        p.connect_ports.push_back(static_cast<std::uint16_t>(port));
      } else {
        return "sandbox: unknown word \"" + std::string(word) +
               "\" (known: read-only, write=PATH, read=PATH, no-network, connect=PORT, exec=PROG, "
               "isolate, procs=N, none)";
      }
    }
    if (comma == std::string_view::npos) break;
    words.remove_prefix(comma + 1);
  }
  if (!any_word) return std::string("sandbox: no words given (use \"none\" for no sandbox)");
  if (!p.connect_ports.empty()) {
    if (p.network == Policy::Network::kNone)
      return std::string("sandbox: no-network and connect= contradict each other");
    p.network = Policy::Network::kPorts;
    std::sort(p.connect_ports.begin(), p.connect_ports.end());
    p.connect_ports.erase(std::unique(p.connect_ports.begin(), p.connect_ports.end()),
                          p.connect_ports.end());
  }
  if (none && p.active())
    return std::string("sandbox: \"none\" cannot be combined with other words");
  return p;
}

std::string describe(const Policy& policy) {
  if (!policy.active()) return "none";
  std::string out;
  auto add = [&](const std::string& word) {
    if (!out.empty()) out += ',';
    out += word;
  };
  if (policy.confined_writes && policy.write_paths.empty()) add("read-only");
  for (const auto& path : policy.write_paths) add("write=" + path);
  if (policy.reads)
    for (const auto& path : *policy.reads) add("read=" + path);
  if (policy.network == Policy::Network::kNone) add("no-network");
  for (auto port : policy.connect_ports) add("connect=" + std::to_string(port));
  if (policy.programs)
    for (const auto& program : *policy.programs) add("exec=" + program);
  if (policy.procs)
    add("procs=" + std::to_string(*policy.procs));
  else if (policy.isolate)
    add("isolate");
  return out;
}

}  // namespace mcpsh::sandbox
