// transport::write_until_woken on real pipes, in both ways a pipe is written: whole
// (RWF_NOWAIT, Linux 6.4 and later) and in PIPE_BUF pieces (the fallback).
#include "transport/output_descriptor.h"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <string>
#include <thread>

#include "syscall_fault.h"
#include "test_pipe.h"

namespace mcpsh::transport {
namespace {

using namespace std::chrono_literals;

struct WakeFd {
  int fd = ::eventfd(0, EFD_CLOEXEC);
  ~WakeFd() { ::close(fd); }
  void signal() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
  }
};

std::string bytes(std::size_t size) {
  std::string data(size, 'x');
  for (std::size_t i = 0; i < size; i += 97) data[i] = static_cast<char>('a' + i % 26);
  return data;
}

class PipeWrite : public testing::TestWithParam<OutputKind> {
 protected:
  void SetUp() override {
    if (GetParam() == OutputKind::kPipe && !kernel_writes_pipes_nowait())
      GTEST_SKIP() << "this kernel refuses RWF_NOWAIT for pipes (before Linux 6.4)";
  }
};

TEST_P(PipeWrite, EveryByteArrivesInOrder) {
  TestPipe pipe;
  WakeFd wake;
  const std::string data = bytes(1 << 20);  // 16 times the pipe: the reader must keep up
  std::string got;
  std::thread reader([&] { got = read_to_eof(pipe.read_end); });
  std::size_t written = 0;
  EXPECT_EQ(write_until_woken(pipe.write_end, GetParam(), data, written, wake.fd), WriteEnd::kDone);
  EXPECT_EQ(written, data.size());
  pipe.close_write();
  reader.join();
  EXPECT_TRUE(got == data);
}

// A reader that stopped reading never holds the writer: a wake-up ends the wait with the
// pipe full and a count of what went in.
TEST_P(PipeWrite, AFullPipeWaitsForTheWakeUpNotForTheReader) {
  TestPipe pipe(4096);
  WakeFd wake;
  const std::string data = bytes(3 * 4096 + 100);
  std::size_t written = 0;
  auto end = std::async(std::launch::async, [&] {
    return write_until_woken(pipe.write_end, GetParam(), data, written, wake.fd);
  });
  EXPECT_EQ(end.wait_for(200ms), std::future_status::timeout);
  wake.signal();
  ASSERT_EQ(end.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(end.get(), WriteEnd::kWokenUp);
  EXPECT_EQ(written, 4096u);
}

TEST_P(PipeWrite, AReaderThatLeftIsReported) {
  TestPipe pipe(4096);
  WakeFd wake;
  const std::string data = bytes(3 * 4096);
  std::size_t written = 0;
  auto end = std::async(std::launch::async, [&] {
    return write_until_woken(pipe.write_end, GetParam(), data, written, wake.fd);
  });
  EXPECT_EQ(end.wait_for(100ms), std::future_status::timeout);
  pipe.close_read();
  ASSERT_EQ(end.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(end.get(), WriteEnd::kPeerGone);
}

INSTANTIATE_TEST_SUITE_P(Ways, PipeWrite,
                         testing::Values(OutputKind::kPipe, OutputKind::kPipeInPieces),
                         [](const auto& info) {
                           return info.param == OutputKind::kPipe ? "Whole" : "InPieces";
                         });

// What the whole write is for: a message that fits the pipe reaches a waiting reader in
// one read, so the reader wakes once, not once per PIPE_BUF piece (each wake-up on the
// writer's CPU can preempt the writer in the middle of the message).
TEST(PipeWrite, AMessageThatFitsReachesAWaitingReaderInOneRead) {
  if (!kernel_writes_pipes_nowait()) GTEST_SKIP() << "this kernel refuses RWF_NOWAIT for pipes";
  TestPipe pipe;
  WakeFd wake;
  const std::string data = bytes(40000);
  std::promise<std::size_t> first;
  std::thread reader([&] {
    static char buffer[65536];
    const ssize_t n = ::read(pipe.read_end, buffer, sizeof buffer);
    first.set_value(n < 0 ? 0 : static_cast<std::size_t>(n));
  });
  std::this_thread::sleep_for(50ms);  // the reader is waiting in read(2) by now
  std::size_t written = 0;
  EXPECT_EQ(write_until_woken(pipe.write_end, OutputKind::kPipe, data, written, wake.fd),
            WriteEnd::kDone);
  EXPECT_EQ(first.get_future().get(), data.size());
  reader.join();
}

// Before Linux 6.4 the kernel refuses RWF_NOWAIT for pipes (EOPNOTSUPP), reproduced here
// with a seccomp filter in a forked child: nothing is written at once, and write_until_woken
// finds out at its first write and goes on in PIPE_BUF pieces, losing nothing.
TEST(PipeWrite, AKernelWithoutNowaitPipeWritesGetsPieces) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    using execution::testing::SyscallFault;
    if (!execution::testing::install_syscall_fault(SyscallFault{SYS_pwritev2, EOPNOTSUPP, {}},
                                                   execution::testing::Threads::kCallingOnly))
      ::_exit(3);
    TestPipe pipe;
    WakeFd wake;
    const std::string data = bytes(40000);  // fits the pipe: no reader needed
    if (write_now(pipe.write_end, OutputKind::kPipe, data)) ::_exit(10);
    std::size_t written = 0;
    if (write_until_woken(pipe.write_end, OutputKind::kPipe, data, written, wake.fd) !=
        WriteEnd::kDone)
      ::_exit(11);
    pipe.close_write();
    if (read_to_eof(pipe.read_end) != data) ::_exit(12);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: written at once; 11: not done; 12: bytes differ";
}

TEST(OutputKind, TellsPipesSocketsAndFilesApart) {
  TestPipe pipe;
  TestSocketPair sockets;
  EXPECT_EQ(output_kind(pipe.write_end), OutputKind::kPipe);
  EXPECT_EQ(output_kind(sockets.ours), OutputKind::kSocket);
  FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(output_kind(::fileno(file)), OutputKind::kOther);
  std::fclose(file);
}

}  // namespace
}  // namespace mcpsh::transport
