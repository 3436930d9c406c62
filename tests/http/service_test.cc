// The host as a service: a socket passed by a service manager (LISTEN_FDS) is served in
// place of --listen; the manager hears READY=1 and STOPPING=1 on NOTIFY_SOCKET; neither
// reaches a tool; SIGHUP discovers the scripts again without touching calls in flight.
// The real binary, with the socket and the notification socket made here as systemd
// would make them.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

using exec::ScratchDir;

// What a service manager listens on for notifications: a datagram socket in the abstract
// namespace ("@name" in NOTIFY_SOCKET).
struct NotifySocket {
  int fd = -1;
  std::string name;
  NotifySocket() {
    name = "@mcpsh-notify-" + std::to_string(::getpid()) + "-" + std::to_string(++count);
    fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name.data() + 1, name.size() - 1);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address),
                     static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size())),
              0);
  }
  ~NotifySocket() { ::close(fd); }
  // The next datagram, or "" after the timeout.
  std::string next(std::chrono::milliseconds timeout = 20s) const {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return "";
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
  }
  static inline int count = 0;
};

std::string write_script(const ScratchDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// The names in a tools/list answer, in order, space-separated.
std::string tool_names(int port) {
  auto r = http::exchange(port, post("/mcp", request("1", "tools/list")));
  if (!r || r->status != 200) return "(no answer)";
  auto d = parse(r->body);
  std::string names;
  for (const auto& tool : d["result"]["tools"].GetArray())
    names += (names.empty() ? "" : " ") + std::string(tool["name"].GetString());
  return names;
}

// Waits (up to 20 s) until the host's log has `needle`.
bool wait_for_log(HostProcess& host, const std::string& needle) {
  for (int i = 0; i < 400; ++i) {
    if (host.stderr_text().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

// server/discover's capabilities, as compact JSON.
std::string capabilities_of(int port) {
  auto r = http::exchange(port, post("/mcp", request("1", "server/discover")));
  if (!r || r->status != 200) return "(no answer)";
  return exec::compact(parse(r->body)["result"]["capabilities"]);
}

const char* kEnvironmentTool = R"(
# Shows what the host passed on of the service manager's variables.
tool_env() { echo "${LISTEN_FDS-unset} ${LISTEN_PID-unset} ${NOTIFY_SOCKET-unset}"; }
)";

TEST(Service, ServesTheSocketItIsHandedAndTellsTheManager) {
  ScratchDir dir;
  const auto script = write_script(dir, "env.sh", kEnvironmentTool);
  exec::Listener socket;
  NotifySocket manager;
  HostProcess host({"--http", "--no-watch", script},
                   {.env = {{"NOTIFY_SOCKET", manager.name}}, .pass_socket = socket.fd});

  const std::string ready = manager.next();
  EXPECT_NE(ready.find("READY=1\n"), std::string::npos) << ready << host.stderr_text();
  EXPECT_NE(ready.find("STATUS=serving 1 tool(s); listening on http://127.0.0.1:" +
                       std::to_string(socket.port) + "/mcp"),
            std::string::npos)
      << ready;
  EXPECT_NE(host.stderr_text().find("(the service manager's socket)"), std::string::npos)
      << host.stderr_text();

  // Served on the socket it was handed; no tool sees the variables.
  auto r = http::exchange(socket.port, post("/mcp", call_request("2", "env")));
  ASSERT_TRUE(r) << host.stderr_text();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(result_text(parse(r->body)), "unset unset unset") << r->body;

  host.signal(SIGTERM);
  EXPECT_NE(manager.next().find("STOPPING=1"), std::string::npos);
  auto status = host.wait_exit(20s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << host.stderr_text();
}

// Variables meant for another process name descriptors that are not ours: the host
// listens where it was told.
TEST(Service, IgnoresListenFdsForAnotherProcess) {
  HttpHost host({"--no-watch", fixture("exec_tools.sh")},
                {.env = {{"LISTEN_FDS", "1"}, {"LISTEN_PID", "1"}}});
  ASSERT_GT(host.port(), 0);
  EXPECT_EQ(host.process().stderr_text().find("service manager"), std::string::npos);
  EXPECT_NE(tool_names(host.port()), "(no answer)");
}

TEST(Service, RefusesADescriptorThatIsNotAListeningTcpSocket) {
  ScratchDir dir;
  const auto script = write_script(dir, "env.sh", kEnvironmentTool);
  int datagram = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  HostProcess host({"--http", script}, {.pass_socket = datagram});
  auto status = host.wait_exit(20s);
  ::close(datagram);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1);
  EXPECT_NE(host.stderr_text().find("cannot start: the socket passed as descriptor 3 is not a "
                                    "TCP socket"),
            std::string::npos)
      << host.stderr_text();

  int unlistened = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  HostProcess again({"--http", script}, {.pass_socket = unlistened});
  status = again.wait_exit(20s);
  ::close(unlistened);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1);
  EXPECT_NE(again.stderr_text().find("is not listening"), std::string::npos) << again.stderr_text();
}

// SIGHUP under --no-watch: the edit is picked up only when asked, a call in flight is
// answered, and the host goes on serving.
TEST(Service, SighupDiscoversTheScriptsAgainWithoutDroppingCalls) {
  ScratchDir dir;
  const auto script = write_script(dir, "tools.sh", R"(
# Waits a little, then answers.
tool_slow() { sleep 1; echo slow done; }
)");
  HttpHost host({"--no-watch", script}, {.attach = HostOptions::Attach::kDaemon});
  ASSERT_GT(host.port(), 0);
  ASSERT_EQ(tool_names(host.port()), "slow");
  const std::string capabilities = capabilities_of(host.port());

  Client in_flight(host.port());
  ASSERT_TRUE(in_flight.send(post("/mcp", call_request("7", "slow"))));
  std::ofstream(script, std::ios::app) << "# Says hi.\ntool_hi() { echo hi; }\n";
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(tool_names(host.port()), "slow");  // not watched: nothing changes by itself

  host.process().signal(SIGHUP);
  std::string names;
  for (int i = 0; i < 200 && names != "slow hi"; ++i) {
    std::this_thread::sleep_for(50ms);
    names = tool_names(host.port());
  }
  EXPECT_EQ(names, "slow hi") << host.process().stderr_text();
  // Not watching, the host promised no list_changed: a reload keeps that promise.
  EXPECT_EQ(capabilities_of(host.port()), capabilities);

  auto answer = in_flight.read_response();
  ASSERT_TRUE(answer);
  EXPECT_EQ(result_text(parse(answer->body)), "slow done") << answer->body;
  EXPECT_FALSE(host.process().wait_exit(0ms));  // SIGHUP does not stop the host
  EXPECT_NE(host.process().stderr_text().find("received SIGHUP: discovering the scripts again"),
            std::string::npos);
}

// A change probes again only the scripts it touches; SIGHUP probes every one, changed or
// not: what a script defines may depend on what no watch sees (the environment, a file
// it reads for settings).
TEST(Service, SighupProbesEveryScriptAgain) {
  ScratchDir dir;
  const std::string log = dir / "sourced.log";
  std::filesystem::create_directories(dir / "tools");
  for (const std::string name : {"a", "b"})
    std::ofstream(dir / ("tools/" + name + ".sh"))
        << "echo " << name << " >> " << log << "\n# Says " << name << ".\ntool_" << name
        << "() { echo " << name << "; }\n";
  HttpHost host({"--warm", "0", dir / "tools"}, {.attach = HostOptions::Attach::kDaemon});
  ASSERT_GT(host.port(), 0);
  ASSERT_EQ(tool_names(host.port()), "a b");
  // The lines the scripts appended, sorted (the probes run concurrently).
  auto lines = [&] {
    std::ifstream in(log);
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);) all.push_back(line);
    std::sort(all.begin(), all.end());
    std::string joined;
    for (const auto& l : all) joined += l + " ";
    return joined;
  };
  ASSERT_EQ(lines(), "a b ");

  host.process().signal(SIGHUP);
  const std::string done = "reload: probed 2 of 2 scripts";
  for (int i = 0; i < 200 && host.process().stderr_text().find(done) == std::string::npos; ++i)
    std::this_thread::sleep_for(50ms);
  EXPECT_NE(host.process().stderr_text().find(done), std::string::npos)
      << host.process().stderr_text();
  EXPECT_EQ(lines(), "a a b b ");
}

// With a controlling terminal, SIGHUP is the terminal's hangup: the host stops as on
// SIGTERM. Ignored when the host started (nohup), it stays ignored.
TEST(Service, SighupFromATerminalStopsTheHostAndNohupKeepsItIgnored) {
  HttpHost in_terminal({"--no-watch", fixture("exec_tools.sh")},
                       {.attach = HostOptions::Attach::kTerminal});
  ASSERT_GT(in_terminal.port(), 0);
  in_terminal.process().signal(SIGHUP);
  auto status = in_terminal.process().wait_exit(20s);
  ASSERT_TRUE(status) << in_terminal.process().stderr_text();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  EXPECT_NE(in_terminal.process().stderr_text().find("shutting down: received SIGHUP"),
            std::string::npos)
      << in_terminal.process().stderr_text();

  HttpHost under_nohup({"--no-watch", fixture("exec_tools.sh")},
                       {.attach = HostOptions::Attach::kTerminal, .ignore_hangup = true});
  ASSERT_GT(under_nohup.port(), 0);
  under_nohup.process().signal(SIGHUP);
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(under_nohup.process().wait_exit(0ms));
  EXPECT_NE(tool_names(under_nohup.port()), "(no answer)");
  const std::string log = under_nohup.process().stderr_text();
  EXPECT_NE(log.find("SIGHUP was ignored when the host started (nohup): it stays ignored"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("received SIGHUP"), std::string::npos) << log;
}

// A request that has begun to arrive when the host is told to stop is read and answered
// (then the connection closes): dropping it would leave its client, or a balancer in
// front, unable to tell whether it ran.
TEST(Service, ARequestThatHasBegunToArriveWhenTheHostStopsIsAnswered) {
  HttpHost host({fixture("exec_tools.sh")});
  ASSERT_GT(host.port(), 0);
  const std::string bytes = post("/mcp", call_request("3", "echo", R"({"x":1})"));
  Client c(host.port());
  ASSERT_TRUE(c.send(bytes.substr(0, 20)));
  std::this_thread::sleep_for(200ms);  // read by the host: the request has begun
  host.process().signal(SIGTERM);
  ASSERT_TRUE(wait_for_log(host.process(), "shutting down"));
  ASSERT_TRUE(c.send(bytes.substr(20)));
  auto r = c.read_response();
  ASSERT_TRUE(r) << host.process().stderr_text();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_FALSE(is_error_result(parse(r->body))) << r->body;
  EXPECT_TRUE(c.closed_by_server());
  auto status = host.process().wait_exit(20s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << host.process().stderr_text();
}

// --metrics-listen: /metrics and the probes on an address of their own, /metrics only
// there; the MCP endpoint is not served on it; its /readyz says when the host drains.
TEST(Service, MetricsListenServesOperationsOnAnAddressOfItsOwn) {
  ScratchDir dir;
  const auto script = write_script(dir, "tools.sh", R"(
# Waits until the test lets it go (the file "go" beside this script), then answers.
tool_slow() {
  local i
  for ((i = 0; i < 400; i++)); do [[ -e "${BASH_SOURCE%/*}/go" ]] && break; sleep 0.05; done
  echo slow done
}
)");
  HttpHost host({"--metrics-listen", "127.0.0.1:0", script});
  ASSERT_GT(host.port(), 0);
  const std::regex at(R"(metrics and probes on http://127\.0\.0\.1:([0-9]+)/metrics)");
  std::smatch m;
  const std::string log = host.process().stderr_text();
  ASSERT_TRUE(std::regex_search(log, m, at)) << log;
  const int ops = std::stoi(m[1]);

  ASSERT_EQ(tool_names(host.port()), "slow");
  auto metrics = http::exchange(ops, bare("GET", "/metrics"));
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("mcpsh_requests_total{method=\"tools/list\",class=\"ok\"} 1"),
            std::string::npos)
      << metrics->body;
  auto status_of = [](int port, const std::string& bytes) {
    auto r = http::exchange(port, bytes);
    return r ? r->status : 0;
  };
  EXPECT_EQ(status_of(ops, bare("GET", "/readyz")), 200);
  EXPECT_EQ(status_of(ops, post("/mcp", request("1", "tools/list"))), 404);
  EXPECT_EQ(status_of(host.port(), bare("GET", "/metrics")), 404);
  EXPECT_EQ(status_of(host.port(), bare("GET", "/healthz")), 200);

  Client in_flight(host.port());
  ASSERT_TRUE(in_flight.send(post("/mcp", call_request("2", "slow"))));
  host.process().signal(SIGTERM);
  ASSERT_TRUE(wait_for_log(host.process(), "shutting down"));
  // The call waits for the test: the host drains as long as the test likes.
  int draining = 0;
  for (int i = 0; i < 200 && draining != 503; ++i) {
    draining = status_of(ops, bare("GET", "/readyz"));
    if (draining != 503) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(draining, 503);
  std::ofstream(dir / "go") << "";
  auto answer = in_flight.read_response();
  ASSERT_TRUE(answer);
  EXPECT_EQ(result_text(parse(answer->body)), "slow done");
  auto status = host.process().wait_exit(20s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << host.process().stderr_text();
}

// Connections the host had not accepted yet when it is told to stop (their requests sent,
// waiting in its listen queue) are taken and answered, not reset.
TEST(Service, RequestsWaitingInTheListenQueueWhenTheHostStopsAreAnswered) {
  HttpHost host({fixture("exec_tools.sh")});
  ASSERT_GT(host.port(), 0);
  host.process().signal(SIGSTOP);  // accepts nothing from now on
  std::vector<std::unique_ptr<Client>> waiting;
  for (int i = 0; i < 6; ++i) {
    waiting.push_back(std::make_unique<Client>(host.port()));
    ASSERT_TRUE(waiting.back()->send(post("/mcp", request(std::to_string(i + 1), "tools/list"))));
  }
  host.process().signal(SIGTERM);
  host.process().signal(SIGCONT);
  for (auto& c : waiting) {
    auto r = c->read_response();
    ASSERT_TRUE(r) << host.process().stderr_text();
    EXPECT_EQ(r->status, 200);
  }
  auto status = host.process().wait_exit(20s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << host.process().stderr_text();
}

}  // namespace
}  // namespace mcpsh::testing::http
