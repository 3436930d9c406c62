#include "execution/thread_scheduling.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace mcpsh::execution {

namespace {

// struct sched_attr (linux/sched/types.h, first version: 48 bytes), which glibc 2.36 does
// not declare.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t policy;
  std::uint64_t flags;
  std::int32_t nice;
  std::uint32_t priority;
  std::uint64_t runtime;  // for SCHED_OTHER and SCHED_BATCH: the slice, in ns (0: default)
  std::uint64_t deadline;
  std::uint64_t period;
};
static_assert(sizeof(SchedAttr) == 48);

constexpr std::uint64_t kKeepPolicy = 0x08;     // SCHED_FLAG_KEEP_POLICY
constexpr std::uint64_t kShortSlice = 100'000;  // the least the kernel accepts (0.1 ms)

// Sets the calling thread's slice, keeping its policy and nice value (read first: the call
// sets both).
void set_slice(std::uint64_t nanoseconds) {
  SchedAttr attr{};
  if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return;
  attr.size = sizeof attr;
  attr.flags = kKeepPolicy;
  attr.runtime = nanoseconds;
  attr.deadline = attr.period = 0;
  ::syscall(SYS_sched_setattr, 0, &attr, 0);
}

}  // namespace

void use_short_slices() { set_slice(kShortSlice); }

void use_default_slices() { set_slice(0); }

}  // namespace mcpsh::execution
