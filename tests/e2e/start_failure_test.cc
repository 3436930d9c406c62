// A call that cannot be started still gets its answer. The host runs with a low limit on
// open descriptors (RLIMIT_NOFILE), swept over a range so that every step of starting a
// call (the pipe for fd 3, the arguments file, the runner's pipes) runs out somewhere:
// every call gets exactly one response, an isError result says precisely why (the step
// and "Too many open files"), and the host exits at the end of its input.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <memory>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

// Starts the host with a soft RLIMIT_NOFILE of `limit` (inherited through fork and exec).
std::unique_ptr<HostProcess> start_with_fd_limit(const std::vector<std::string>& args,
                                                 rlim_t limit) {
  rlimit saved{};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  rlimit low = saved;
  low.rlim_cur = limit;
  ::setrlimit(RLIMIT_NOFILE, &low);
  std::unique_ptr<HostProcess> host;
  try {
    host = std::make_unique<HostProcess>(args);
  } catch (...) {
    ::setrlimit(RLIMIT_NOFILE, &saved);
    throw;
  }
  ::setrlimit(RLIMIT_NOFILE, &saved);
  return host;
}

// Descriptor numbers below `limit` this process has free.
int free_below(rlim_t limit) {
  std::set<rlim_t> open;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    open.insert(static_cast<rlim_t>(std::atoll(entry.path().filename().c_str())));
  int n = 0;
  for (rlim_t fd = 0; fd < limit; ++fd)
    if (!open.count(fd)) ++n;
  return n;
}

TEST(StartFailure, EveryCallIsAnsweredWhenDescriptorsRunOut) {
  const std::set<std::string> ids = {"1", "2", "3", "4", "5", "6"};
  bool start_failure_reported = false, call_succeeded = false;
  // A test runner may give this process descriptors of its own.
  for (rlim_t limit = 6; limit <= 80; limit += 2) {
    SCOPED_TRACE("RLIMIT_NOFILE " + std::to_string(limit));
    // HostProcess needs two pipes and a temporary file below the limit (and does not
    // close the first pipe when the second fails): skip limits that leave too few.
    if (free_below(limit) < 5) continue;
    auto host = start_with_fd_limit({tools_script()}, limit);
    try {
      for (const auto& id : ids) host->send(call_request(id, "echo", R"({"n":)" + id + "}"));
      host->close_stdin();
    } catch (const std::exception&) {
      // The host is gone already: it could not even start with so few descriptors.
    }
    std::map<std::string, int> answers;
    for (const auto& line : lines_until_eof(*host, 30s)) {
      auto d = parse(line);
      if (!d.IsObject() || d.HasMember("method")) continue;
      ++answers[id_of(d)];
      if (!d.HasMember("result")) continue;
      const std::string text = result_text(d);
      if (!is_error_result(d)) {
        call_succeeded = true;
        continue;
      }
      EXPECT_FALSE(text.empty()) << line;
      if (text.find("could not be started") == std::string::npos) continue;
      // The reason, precisely: which step ran out of what.
      EXPECT_NE(text.find("Too many open files"), std::string::npos) << text;
      start_failure_reported = true;
    }
    auto status = host->wait_exit(30s);
    ASSERT_TRUE(status) << "the host did not exit at the end of its input\n" << host->stderr_text();
    if (answers.empty()) continue;  // it could not start with this limit (and said so)
    for (const auto& id : ids) EXPECT_EQ(answers[id], 1) << "id " << id;
  }
  EXPECT_TRUE(start_failure_reported) << "no limit in the range made a call fail to start";
  EXPECT_TRUE(call_succeeded) << "no limit in the range let a call run";
}

}  // namespace
}  // namespace mcpsh::testing
