// A large tools/call argument is held once on its way to the runner, and not at all while
// the call runs: the line becomes the parsed document (no copy), the document goes once
// the arguments are serialized, and the serialized arguments go once the runner has them.
// Measured as heap bytes in use (the allocator's own count), so it cannot depend on timing.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core_harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MCPSH_SANITIZER_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MCPSH_SANITIZER_HEAP 1
#endif
#endif

#ifdef MCPSH_SANITIZER_HEAP
// The sanitizers' allocator interface (gcc ships no header for it).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace mcpsh::testing {
namespace {

std::int64_t heap_in_use() {
#ifdef MCPSH_SANITIZER_HEAP
  return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  const struct mallinfo2 m = ::mallinfo2();
  return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
#endif
}

// Records the heap in use when the call is handed over, and keeps nothing of the launch.
class HeapProbeRunner : public execution::CallRunner {
 public:
  execution::RunId run(const execution::ToolLaunch& launch,
                       execution::CallCallbacks callbacks) override {
    heap_at_run = heap_in_use();
    arguments_size = launch.arguments_json.size();
    on_done = std::move(callbacks.on_done);
    return 1;
  }
  void cancel(execution::RunId) override {}
  void terminate_all(std::chrono::milliseconds) override {}
  void warm(const std::vector<execution::WarmTarget>&) override {}
  void retire_warm() override {}

  std::int64_t heap_at_run = 0;
  std::size_t arguments_size = 0;
  std::function<void(execution::Outcome)> on_done;
};

TEST(PayloadMemory, ALargeArgumentIsHeldOnceOnItsWayAndNotWhileTheCallRuns) {
  constexpr std::int64_t kPayload = 8 << 20;
  discovery::Catalog catalog = test_catalog();
  HeapProbeRunner runner;
  ManualWakeups time;
  diagnostics::Log log{"", diagnostics::Level::kOff};
  mcp::ProtocolCore core(catalog, runner, {}, time, log);
  auto client = std::make_shared<RecordingConnection>();

  const std::string arguments =
      R"({"data":")" + std::string(static_cast<std::size_t>(kPayload), 'a') + R"("})";
  std::string line = modern_call("1", "plain", arguments);
  const std::int64_t with_line = heap_in_use();  // counts the line (and `arguments`)
  core.handle(client, std::move(line));

  ASSERT_EQ(runner.arguments_size, arguments.size());
  // At hand-over: the serialized arguments, in place of the line (not beside it, nor
  // beside a copy of it).
  EXPECT_LT(runner.heap_at_run - with_line, kPayload / 2);
  // While the call runs: neither the line nor the arguments.
  EXPECT_LT(heap_in_use() - with_line, -kPayload / 2);

  execution::Outcome done;
  done.ending = execution::Ending::kExited;
  done.stdout_head = "ok";
  done.stdout_total = 2;
  runner.on_done(std::move(done));
  ASSERT_EQ(client->lines.size(), 1u);
  EXPECT_EQ(id_of(client->lines[0]), "1");
}

}  // namespace
}  // namespace mcpsh::testing
