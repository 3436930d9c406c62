#pragma once
// Test harness: the real mcp-shell-host binary on real pipes.
//
// HostProcess starts build/mcp-shell-host with the given arguments, stdin and stdout on
// pipes, stderr into a temporary file. send() writes a line; read_line() waits for one
// (with a timeout, so a hung host fails the test instead of hanging it). The destructor
// kills the host if it is still running.
#include <rapidjson/document.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mcpsh::testing {

using namespace std::chrono_literals;

struct HostOptions {
  std::vector<std::pair<std::string, std::string>> env;  // added to the environment
  std::string cwd;                                       // "" = the test's cwd
  // A descriptor handed over as a service manager does (socket activation): it becomes
  // the host's fd 3, with LISTEN_FDS=1 and LISTEN_PID set to the host's pid.
  int pass_socket = -1;
  // How the host is attached: as the test is (kInherit), as a daemon in a session of its
  // own with no controlling terminal (kDaemon), or in a new session whose controlling
  // terminal is a fresh pseudo-terminal (kTerminal).
  enum class Attach { kInherit, kDaemon, kTerminal } attach = Attach::kInherit;
  bool ignore_hangup = false;  // SIGHUP ignored when the host starts (as under nohup)
};

class HostProcess {
 public:
  explicit HostProcess(const std::vector<std::string>& args, HostOptions options = {});
  ~HostProcess();
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  void send(const std::string& line);       // line + '\n'
  void send_raw(const std::string& bytes);  // exactly these bytes
  // The next stdout line (without '\n'), or nullopt on timeout or EOF.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = 10s);
  // Reads lines until `count` have been read or the timeout passes.
  std::vector<std::string> read_lines(std::size_t count, std::chrono::milliseconds timeout = 10s);
  // True if no line arrives within `quiet`.
  bool silent_for(std::chrono::milliseconds quiet);
  void close_stdin();
  void close_stdout();  // the client stops reading: its end of our stdout closes
  // Exit status (as from waitpid) or nullopt if still running after the timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout = 10s);
  void signal(int sig);
  pid_t pid() const { return pid_; }
  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string stderr_path_;
  int terminal_ = -1;  // the pseudo-terminal's master side (Attach::kTerminal)
  std::string buffer_;
  bool exited_ = false;
  int status_ = 0;
};

// Binary and folders known at build time.
std::string binary_path();
std::string source_dir();                      // the repository root
std::string fixture(const std::string& name);  // tests/fixtures/<name>

// A request line with the modern _meta. `params` is the rest of the params object's
// members as JSON text (may be empty), `extra_meta` more _meta members.
std::string request(const std::string& id_json, const std::string& method,
                    const std::string& params = "", const std::string& extra_meta = "");
std::string modern_meta(const std::string& extra = "");
std::string call_request(const std::string& id_json, const std::string& tool,
                         const std::string& arguments_json = "{}",
                         const std::string& extra_meta = "");

rapidjson::Document parse(const std::string& line);
// The text of content[0] of a result response.
std::string result_text(const rapidjson::Document& response);
bool is_error_result(const rapidjson::Document& response);

// Processes whose command line contains `needle` (e.g. a unique marker); from /proc.
std::vector<pid_t> processes_matching(const std::string& needle);
// The bytes of a /proc file, or "" when it cannot be read: the process may exit while it
// is read (libstdc++ then throws from the stream's underflow with ESRCH).
std::string read_proc_file(const std::string& path);
// Waits until no process matches, up to the timeout; returns the survivors.
std::vector<pid_t> wait_no_processes(const std::string& needle,
                                     std::chrono::milliseconds timeout = 5s);
// Number of open descriptors of a process.
int open_fd_count(pid_t pid);

}  // namespace mcpsh::testing
