#pragma once
// Helpers for the execution end-to-end tests (concurrency, cancellation, timeouts, output
// bounds, process hygiene, lifecycle, progress, limits, audit, soak): reading a transcript
// until a given response or progress report arrives, and looking at processes in /proc.
//
// Descriptor baselines come from quiescent_fd_count (event-ordered, see there).
//
// Processes a test must find again carry a unique tag in their command line (the fixture
// runs `exec -a TAG sleep 1000`); TagCleanup kills whatever still carries it when the test
// ends, pass or fail, so a failing test does not leave sleepers on the machine.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host_process.h"

namespace mcpsh::testing::exec {

inline std::string tools_script() { return fixture("exec_tools.sh"); }

// "mcpsh-exec-<what>-<test pid>-<n>": unique across tests running in parallel.
inline std::string unique_tag(const std::string& what) {
  static std::atomic<int> counter{0};
  return "mcpsh-exec-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

struct TagCleanup {
  std::string tag;
  explicit TagCleanup(std::string t) : tag(std::move(t)) {}
  ~TagCleanup() {
    for (pid_t pid : processes_matching(tag)) ::kill(pid, SIGKILL);
  }
};

// A temporary directory, removed with its contents at the end of the test.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    char templ[] = "/tmp/mcpsh-exec-XXXXXX";
    path = ::mkdtemp(templ);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

// A TCP socket listening on 127.0.0.1, on a port the kernel chose (port stays 0 when it
// could not be made): for a tool to connect to, or to hand the host as a service manager
// would.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      return;
    port = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
};

inline std::string quoted(const std::string& s) { return "\"" + s + "\""; }

inline std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The id of a response as compact JSON ("" for a notification or no id).
inline std::string id_of(const rapidjson::Document& d) {
  if (!d.IsObject() || !d.HasMember("id")) return "";
  return compact(d["id"]);
}

inline std::string method_of(const rapidjson::Document& d) {
  if (!d.IsObject() || !d.HasMember("method") || !d["method"].IsString()) return "";
  return d["method"].GetString();
}

inline std::string progress_meta(const std::string& token_json) {
  return R"("progressToken":)" + token_json;
}

inline std::string cancel_line(const std::string& id_json) {
  return R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" + id_json +
         R"(,"reason":"test"}})";
}

// Reads lines until the response with this id (returned parsed). Every other line read
// on the way is appended to `others` when given.
// Reads lines until one satisfies `wanted` and returns that line; every line read before
// it is appended to `others` (when given). nullopt when none came in time.
inline std::optional<std::string> await_line(
    HostProcess& host, const std::function<bool(const rapidjson::Document&)>& wanted,
    std::vector<std::string>* others = nullptr, std::chrono::milliseconds timeout = 20s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto line = host.read_line(left);
    if (!line) return std::nullopt;
    if (wanted(parse(*line))) return line;
    if (others) others->push_back(*line);
  }
}

// Whether d is the response (not a request or notification) with this id.
inline bool is_response_to(const rapidjson::Document& d, const std::string& id_json) {
  return d.IsObject() && !d.HasMember("method") && id_of(d) == id_json;
}

// The response line for `id_json`, skipping (and collecting in `others`) other lines.
inline std::optional<std::string> answer_line(HostProcess& host, const std::string& id_json,
                                              std::vector<std::string>* others = nullptr,
                                              std::chrono::milliseconds timeout = 20s) {
  return await_line(
      host, [&](const rapidjson::Document& d) { return is_response_to(d, id_json); }, others,
      timeout);
}

// The same, parsed.
inline std::optional<rapidjson::Document> await_response(HostProcess& host,
                                                         const std::string& id_json,
                                                         std::vector<std::string>* others = nullptr,
                                                         std::chrono::milliseconds timeout = 20s) {
  auto line = answer_line(host, id_json, others, timeout);
  if (!line) return std::nullopt;
  return parse(*line);
}

// A request line without the modern _meta (the legacy era's).
inline std::string legacy_request(const std::string& id, const std::string& method,
                                  const std::string& params = "{}") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params +
         "}";
}

// Sends `line` and returns the response to `id`, parsed strictly ("{}" when none came, with
// a test failure naming the request).
inline rapidjson::Document ask(HostProcess& host, const std::string& line, const std::string& id) {
  host.send(line);
  auto got = answer_line(host, id);
  EXPECT_TRUE(got) << "no answer to " << line << "\n" << host.stderr_text();
  rapidjson::Document d;
  const std::string text = got.value_or("{}");
  d.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseValidateEncodingFlag>(text.c_str(),
                                                                                      text.size());
  return d;
}

// Opens the legacy era at `version`: initialize (its response returned), then
// notifications/initialized.
inline rapidjson::Document initialize(HostProcess& host,
                                      const std::string& version = "2025-11-25") {
  auto d =
      ask(host,
          legacy_request("0", "initialize",
                         R"({"protocolVersion":")" + version +
                             R"(","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}})"),
          "0");
  host.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return d;
}

// Reads lines until every id in `ids` has its response (in any order); returns them by id.
// Ids that got none are missing from the map.
// `already`: lines read before (e.g. while waiting for progress) that may hold some.
inline std::map<std::string, rapidjson::Document> await_responses(
    HostProcess& host, const std::set<std::string>& ids, std::chrono::milliseconds timeout = 20s,
    const std::vector<std::string>& already = {}) {
  std::map<std::string, rapidjson::Document> got;
  for (const auto& line : already) {
    auto d = parse(line);
    if (d.IsObject() && !d.HasMember("method") && ids.count(id_of(d))) got[id_of(d)] = std::move(d);
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (got.size() < ids.size()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto line = host.read_line(left);
    if (!line) break;
    auto d = parse(*line);
    if (d.IsObject() && !d.HasMember("method") && ids.count(id_of(d))) got[id_of(d)] = std::move(d);
  }
  return got;
}

// Reads lines until a notifications/progress whose message starts with `prefix`; returns
// that message. Other lines are appended to `others` when given.
inline std::optional<std::string> await_progress(HostProcess& host, const std::string& prefix,
                                                 std::vector<std::string>* others = nullptr,
                                                 std::chrono::milliseconds timeout = 20s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto line = host.read_line(left);
    if (!line) return std::nullopt;
    auto d = parse(*line);
    if (method_of(d) == "notifications/progress" && d["params"].HasMember("message")) {
      std::string message = d["params"]["message"].GetString();
      if (message.rfind(prefix, 0) == 0) return message;
    }
    if (others) others->push_back(*line);
  }
}

// Every line until the host closes its stdout (it exited), up to the timeout.
inline std::vector<std::string> lines_until_eof(HostProcess& host,
                                                std::chrono::milliseconds timeout = 20s) {
  std::vector<std::string> lines;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto line = host.read_line(left);
    if (!line) break;
    lines.push_back(std::move(*line));
  }
  return lines;
}

// "ready <leader pid> <grandchild pid>" as reported by the fixture's sleepers.
struct ReadyPids {
  pid_t leader = -1, grandchild = -1;
};
inline ReadyPids ready_pids(const std::string& message) {
  ReadyPids p;
  std::istringstream in(message);
  std::string word;
  in >> word >> p.leader >> p.grandchild;
  return p;
}

// A process that exists and is not a zombie. (read_proc_file: a process that ends while
// its file is read makes the read fail with ESRCH, which a stream iterator throws.)
inline bool alive(pid_t pid) {
  const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' &&
         stat[paren + 2] != 'X';
}

// Polls /proc until pid is gone (or a zombie), up to the timeout.
inline bool wait_gone(pid_t pid, std::chrono::milliseconds timeout = 10s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

inline bool wait_file(const std::string& path, std::chrono::milliseconds timeout = 10s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  struct stat st {};
  while (::stat(path.c_str(), &st) != 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

inline bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// A "Name:   123 kB" field of /proc/<pid>/status, in KiB (-1 if absent).
inline long status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0)
      return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

// The host's descriptor count once it has settled back to `expected` (or what it is at
// the end of the timeout): closing pipes follows the response by a moment.
inline int settled_fd_count(pid_t pid, int expected, std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int n = open_fd_count(pid);
  while (n != expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
    n = open_fd_count(pid);
  }
  return n;
}

// The tool processes (bash and whatever it started) a host runs now, found by the cookie
// every one of them carries in its environment: MCP_SHELL_HOST_RUN=<host pid>.<run>.
inline std::vector<pid_t> tool_processes_of(pid_t host) {
  std::vector<pid_t> found;
  const std::string cookie = "MCP_SHELL_HOST_RUN=" + std::to_string(host) + ".";
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string env = read_proc_file(entry.path() / "environ");
    if (env.find(cookie) != std::string::npos && alive(std::stoi(name)))
      found.push_back(std::stoi(name));
  }
  return found;
}

// The host's descriptor count at a quiescent point, for a baseline: no call running and
// exactly `idle_processes` bash processes kept ready (--warm per script), and then two
// request round trips in a row that leave the count unchanged. A round trip orders us
// after everything the host's event loop had queued (refilling ready processes, closing a
// finished call's pipes), so this depends on events, not on how long the count has looked
// still (a time-based "stable" lies on a loaded machine). Returns -1 if that state is not
// reached within the timeout.
inline int quiescent_fd_count(HostProcess& host, std::size_t idle_processes,
                              std::chrono::milliseconds timeout = 30s) {
  static std::atomic<int> round_trips{0};
  auto round_trip = [&host](std::chrono::milliseconds left) {
    const std::string id = quoted("fd-baseline-" + std::to_string(++round_trips));
    host.send(request(id, "tools/list"));
    return await_response(host, id, nullptr, left).has_value();
  };
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&deadline] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now());
  };
  int previous = -1;
  while (left().count() > 0) {
    if (tool_processes_of(host.pid()).size() != idle_processes) {
      previous = -1;
      std::this_thread::sleep_for(10ms);
      continue;
    }
    if (!round_trip(left())) return -1;
    const int now = open_fd_count(host.pid());
    if (now == previous && tool_processes_of(host.pid()).size() == idle_processes) return now;
    previous = now;
  }
  return -1;
}

}  // namespace mcpsh::testing::exec
