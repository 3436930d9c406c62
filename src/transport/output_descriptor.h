#pragma once
// Writing to a descriptor we do not own the flags of (stdout), in a way another thread can
// interrupt.
//
// A blocking write(2) to a pipe whose reader stopped reading never returns, and setting
// O_NONBLOCK on stdout would change it for every process that shares the open file (a
// terminal, the client's shell). So each write waits in poll(2) for room *or* a wake-up
// descriptor, then writes only what cannot block:
//  - a pipe: pwritev2 with RWF_NOWAIT, which takes what fits (kernels before 6.4: at most
//    PIPE_BUF bytes once poll reports room, one free page of the pipe);
//  - a socket: send(2) with MSG_DONTWAIT, which takes what fits;
//  - anything else (regular file, /dev/null, terminal): write(2), which does not wait for
//    a peer.
// EAGAIN (a descriptor that someone else made non-blocking) means "wait for room", never
// an error.
//
// Threading: one thread at a time writes a descriptor (LineWriter's lock orders the
// caller's write_now and its own thread's writes); any thread may signal the wake-up
// descriptor.
#include <cstddef>
#include <optional>
#include <string_view>

namespace mcpsh::transport {

enum class OutputKind {
  kPipe,          // a message is written whole where the pipe has room (RWF_NOWAIT)
  kPipeInPieces,  // PIPE_BUF bytes per write: what kPipe falls back to before Linux 6.4
  kSocket,
  kOther,
};

// What fstat says `fd` is (a pipe is kPipe).
OutputKind output_kind(int fd);

enum class WriteEnd {
  kDone,      // every byte was written
  kPeerGone,  // the reading end is closed (EPIPE, POLLERR/POLLHUP) or a write failed
  kWokenUp,   // wake_fd became readable before every byte was written; `written` says how far
};

// Writes data[written..] to `fd`, advancing `written`. Returns kWokenUp as soon as `wake_fd`
// is readable (it is not drained here), so the caller can decide whether to go on.
WriteEnd write_until_woken(int fd, OutputKind kind, std::string_view data, std::size_t& written,
                           int wake_fd);

// Writes what fits of `data` to a pipe (kPipe) or socket right away, without waiting:
// the bytes written, 0 when there is no room. nullopt when that cannot be done without
// risking a wait (kPipeInPieces, kOther, a kernel without RWF_NOWAIT for pipes) or the
// write failed; the caller then leaves the bytes to write_until_woken, which reports why.
std::optional<std::size_t> write_now(int fd, OutputKind kind, std::string_view data);

// Blocks until `wake_fd` is readable (returns false) or the reading end of `fd` is gone
// (returns true). Only pipes and sockets report a peer going away; for other kinds this
// only waits for `wake_fd`.
bool wait_woken_or_peer_gone(int fd, OutputKind kind, int wake_fd);

}  // namespace mcpsh::transport
