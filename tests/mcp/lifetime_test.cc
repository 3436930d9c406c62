// Lifetimes: callbacks handed to the runner may outlive the server (the runner is built
// before it and destroyed after it); they must then do nothing.
#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

TEST(Lifetime, ACallEndingAfterTheServerIsGoneIsIgnored) {
  ServerHarness h;
  h.send(modern_call("1", "echo", "{}", R"("progressToken":"p")"));
  h.send(modern_call("2", "echo"));
  h.server.reset();
  // Under AddressSanitizer a callback reaching the destroyed server is a use after free.
  h.runner.event(0, execution::ProgressEvent{1, std::nullopt, "late"});
  h.runner.exit(0, 0, "late");
  h.runner.exit(1, 0, "late");
  EXPECT_TRUE(h.lines.empty());
}

}  // namespace
}  // namespace mcpsh::testing
