#include "execution/escapees.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace mcpsh::execution {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<long> number(const char* text) {
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || n <= 0) return std::nullopt;
  return n;
}

// Fallback: every process whose parent is us (field 4 of /proc/<pid>/stat).
std::vector<pid_t> children_by_scan() {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (auto* e = ::readdir(proc)) {
    auto pid = number(e->d_name);
    if (!pid) continue;
    std::string stat = read_file("/proc/" + std::string(e->d_name) + "/stat");
    auto paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 1));
    std::string state;
    long ppid = 0;
    if (fields >> state >> ppid && ppid == self) found.push_back(static_cast<pid_t>(*pid));
  }
  ::closedir(proc);
  return found;
}

}  // namespace

bool become_child_subreaper() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::vector<pid_t> own_children() {
  std::vector<pid_t> found;
  DIR* tasks = ::opendir("/proc/self/task");
  if (!tasks) return children_by_scan();
  bool readable = false;
  while (auto* e = ::readdir(tasks)) {
    if (!number(e->d_name)) continue;
    std::ifstream in("/proc/self/task/" + std::string(e->d_name) + "/children");
    if (!in) continue;
    readable = true;
    for (long pid; in >> pid;) found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(tasks);
  return readable ? found : children_by_scan();
}

std::optional<std::uint64_t> run_cookie_of(pid_t pid) {
  const std::string environ = read_file("/proc/" + std::to_string(pid) + "/environ");
  const std::string prefix = std::string(kRunCookie) + "=" + std::to_string(::getpid()) + ".";
  for (std::size_t at = 0; at < environ.size();) {
    std::size_t end = environ.find('\0', at);
    if (end == std::string::npos) end = environ.size();
    if (environ.compare(at, prefix.size(), prefix) == 0) {
      std::string id = environ.substr(at + prefix.size(), end - at - prefix.size());
      char* stop = nullptr;
      std::uint64_t n = std::strtoull(id.c_str(), &stop, 10);
      if (!id.empty() && *stop == '\0') return n;
    }
    at = end + 1;
  }
  return std::nullopt;
}

void signal_group(pid_t leader, int sig) {
  if (leader > 1) ::killpg(leader, sig);
}

void kill_escapee(pid_t pid) {
  if (pid <= 1) return;
  if (::getpgid(pid) == pid) ::killpg(pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

}  // namespace mcpsh::execution
