#pragma once
// Keeping the host's descriptors out of a child, on any kernel. Async-signal-safe (raw
// system calls, no allocation): for use between fork and exec and in the watchdog.
//
// close_range(2) came with Linux 5.9 and its CLOSE_RANGE_CLOEXEC flag with 5.11; on older
// kernels (ENOSYS, or EINVAL for the flag) both functions fall back to one call per
// descriptor number up to the RLIMIT_NOFILE soft limit, which is what bounds the numbers a
// process can hold.

namespace mcpsh::execution {

// Closes every descriptor numbered >= first. Returns 0, or the errno of a failure that is
// not "this kernel does not have it".
int close_all_from(int first);

// Sets close-on-exec on every descriptor numbered >= first (the exec closes them). Same
// return convention.
int mark_cloexec_from(int first);

}  // namespace mcpsh::execution
