#include "host_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcpsh::testing {

namespace {
using Clock = std::chrono::steady_clock;
}

std::string binary_path() { return MCPSH_BINARY; }
std::string source_dir() { return MCPSH_SOURCE_DIR; }
std::string fixture(const std::string& name) { return source_dir() + "/tests/fixtures/" + name; }

HostProcess::HostProcess(const std::vector<std::string>& args, HostOptions options) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2");
  char path[] = "/tmp/mcpsh-test-stderr-XXXXXX";
  int err = ::mkstemp(path);
  if (err < 0) throw std::runtime_error("mkstemp");
  stderr_path_ = path;
  std::vector<std::string> argv_s{binary_path()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::string terminal_name;
  if (options.attach == HostOptions::Attach::kTerminal) {
    terminal_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (terminal_ < 0 || ::grantpt(terminal_) != 0 || ::unlockpt(terminal_) != 0)
      throw std::runtime_error("posix_openpt");
    terminal_name = ::ptsname(terminal_);
  }
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err, 2);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) _exit(126);
    for (const auto& [k, v] : options.env) ::setenv(k.c_str(), v.c_str(), 1);
    if (options.attach != HostOptions::Attach::kInherit) ::setsid();
    // A session leader without a terminal acquires the first one it opens.
    if (!terminal_name.empty() && ::open(terminal_name.c_str(), O_RDWR) < 0) _exit(125);
    if (options.ignore_hangup) ::signal(SIGHUP, SIG_IGN);
    if (options.pass_socket >= 0) {
      if (options.pass_socket == 3)
        ::fcntl(3, F_SETFD, 0);  // dup2 onto itself keeps CLOEXEC
      else
        ::dup2(options.pass_socket, 3);
      ::setenv("LISTEN_FDS", "1", 1);
      ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
    }
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err);
  in_ = in[1];
  out_ = out[0];
}

HostProcess::~HostProcess() {
  if (!exited_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
  ::unlink(stderr_path_.c_str());
  if (terminal_ >= 0) ::close(terminal_);
}

void HostProcess::send(const std::string& line) { send_raw(line + "\n"); }

void HostProcess::send_raw(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(in_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("write to host: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

std::optional<std::string> HostProcess::read_line(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (out_ < 0) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r <= 0) continue;
    char chunk[65536];
    ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n <= 0) {
      ::close(out_);
      out_ = -1;
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::vector<std::string> HostProcess::read_lines(std::size_t count,
                                                 std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::vector<std::string> lines;
  while (lines.size() < count) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    auto line = read_line(left);
    if (!line) break;
    lines.push_back(std::move(*line));
  }
  return lines;
}

bool HostProcess::silent_for(std::chrono::milliseconds quiet) {
  auto line = read_line(quiet);
  if (line) {
    buffer_.insert(0, *line + "\n");
    return false;
  }
  return true;
}

void HostProcess::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

void HostProcess::close_stdout() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

std::optional<int> HostProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (exited_) return status_;
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    pid_t r = ::waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      return status_;
    }
    std::this_thread::sleep_for(5ms);
  }
  return std::nullopt;
}

void HostProcess::signal(int sig) { ::kill(pid_, sig); }

std::string HostProcess::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string modern_meta(const std::string& extra) {
  return R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientInfo":{"name":"e2e-test","version":"1"},)"
         R"("io.modelcontextprotocol/clientCapabilities":{})" +
         (extra.empty() ? "" : "," + extra) + "}";
}

std::string request(const std::string& id_json, const std::string& method,
                    const std::string& params, const std::string& extra_meta) {
  return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":")" + method + R"(","params":{)" +
         (params.empty() ? "" : params + ",") + modern_meta(extra_meta) + "}}";
}

std::string call_request(const std::string& id_json, const std::string& tool,
                         const std::string& arguments_json, const std::string& extra_meta) {
  return request(id_json, "tools/call", R"("name":")" + tool + R"(","arguments":)" + arguments_json,
                 extra_meta);
}

rapidjson::Document parse(const std::string& line) {
  rapidjson::Document d;
  d.Parse(line.c_str(), line.size());
  return d;
}

std::string result_text(const rapidjson::Document& r) {
  if (!r.IsObject() || !r.HasMember("result")) return "<no result>";
  const auto& content = r["result"]["content"];
  if (!content.IsArray() || content.Empty()) return "<no content>";
  return content[0]["text"].GetString();
}

bool is_error_result(const rapidjson::Document& r) {
  if (!r.IsObject() || !r.HasMember("result")) return false;
  auto it = r["result"].FindMember("isError");
  return it != r["result"].MemberEnd() && it->value.IsTrue();
}

std::string read_proc_file(const std::string& path) {
  try {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    return "";
  }
}

std::vector<pid_t> processes_matching(const std::string& needle) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (auto* e = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    std::string cmd = read_proc_file("/proc/" + std::string(e->d_name) + "/cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(needle) == std::string::npos) continue;
    // Zombies have no cmdline, so anything found here is alive (or a zombie of ours).
    std::string s = read_proc_file("/proc/" + std::string(e->d_name) + "/stat");
    auto paren = s.rfind(')');
    if (paren != std::string::npos && paren + 2 < s.size() && s[paren + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return found;
}

std::vector<pid_t> wait_no_processes(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto left = processes_matching(needle);
    if (left.empty() || Clock::now() >= deadline) return left;
    std::this_thread::sleep_for(20ms);
  }
}

int open_fd_count(pid_t pid) {
  int n = 0;
  DIR* d = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (!d) return -1;
  while (auto* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n;
}

}  // namespace mcpsh::testing
