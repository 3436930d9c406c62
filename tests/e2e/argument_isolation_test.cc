// A call's arguments reach only its own process: bash gets them in a file of its own (fd
// 5), which it closes before the tool runs, and the host keeps no copy open. So a tool
// that reads every regular file open in the host and in the host's other children, while
// another call holding a secret argument runs, finds no secret.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

// Waits for the progress report of the call with this token; lines read go to `seen`.
bool await_progress(HostProcess& host, const std::string& token_json,
                    std::vector<std::string>& seen) {
  for (;;) {
    auto line = host.read_line(20s);
    if (!line) return false;
    seen.push_back(*line);
    auto d = parse(*line);
    if (method_of(d) == "notifications/progress" &&
        compact(d["params"]["progressToken"]) == token_json)
      return true;
  }
}

void release(const std::string& fifo) {
  int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // fails if nobody reads: no hang
  if (fd >= 0) {
    (void)!::write(fd, "go\n", 3);
    ::close(fd);
  }
}

TEST(ArgumentIsolation, AnotherCallFindsNoSecretInAnyFileOfTheHostOrItsChildren) {
  for (const char* warm : {"0", "2"}) {
    SCOPED_TRACE(std::string("--warm ") + warm);
    ScratchDir dir;
    const std::string fifo = dir / "release";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string head = "s3cr3t-" + std::to_string(::getpid()) + "-";
    const std::string tail = std::string(warm) + "-kept-to-itself";

    HostProcess host({"--warm", warm, fixture("isolation/secrets.sh")});
    host.send(request("0", "tools/list"));  // warm processes start here
    ASSERT_TRUE(await_response(host, "0"));
    const std::string hold_args = R"({"fifo":")" + fifo + R"(","secret":")" + head + tail + R"("})";
    host.send(call_request("1", "hold", hold_args, progress_meta("\"hold\"")));
    std::vector<std::string> seen;
    ASSERT_TRUE(await_progress(host, "\"hold\"", seen)) << host.stderr_text();

    host.send(call_request("2", "scan", R"({"head":")" + head + R"(","tail":")" + tail + R"("})"));
    auto scan = await_response(host, "2", &seen, 60s);
    release(fifo);
    ASSERT_TRUE(scan) << host.stderr_text();
    const std::string text = result_text(*scan);
    EXPECT_FALSE(is_error_result(*scan)) << text;
    EXPECT_NE(text.find("hits=0"), std::string::npos) << text;
    // It did look: the holding call keeps a regular file open for it to read (the host's
    // own descriptors are closed to tools: RunnerOptions::hide_host_from_tools).
    EXPECT_EQ(text.find("files=0 "), std::string::npos) << text;

    auto held = await_response(host, "1", &seen);
    ASSERT_TRUE(held);
    EXPECT_EQ(result_text(*held), "held " + std::to_string(hold_args.size()) + " bytes")
        << "the holding call got its arguments whole";
  }
}

}  // namespace
}  // namespace mcpsh::testing
