// transport::LineWriter on real pipes, socket pairs and files, with its thread and ours.
#include "transport/line_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>

#include "posted_queue.h"
#include "test_pipe.h"

namespace mcpsh::transport {
namespace {

// As the program does (line_writer.h): a write to a pipe whose reader is gone raises
// SIGPIPE in the writing thread, and write() may be that thread.
const bool sigpipe_ignored = [] {
  ::signal(SIGPIPE, SIG_IGN);
  return true;
}();

// A line of `size` bytes before its '\n', starting with its number so order is visible.
std::string numbered_line(int n, std::size_t size) {
  std::string line = std::to_string(n) + ":";
  line.resize(size, 'x');
  return line;
}

// Exactly `size` bytes from `fd` (fewer only at EOF).
std::string read_exactly(int fd, std::size_t size) {
  std::string got(size, '\0');
  std::size_t have = 0;
  while (have < size) {
    const ssize_t n = ::read(fd, got.data() + have, size - have);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  got.resize(have);
  return got;
}

// Runs `f` on a thread of its own; true if it returned within `timeout`. A call that
// hangs is left behind (the test fails, and the process ends with it).
bool returns_within(std::function<void()> f, std::chrono::milliseconds timeout = 20s) {
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  std::thread([f = std::move(f), done] {
    f();
    done->set_value();
  }).detach();
  return finished.wait_for(timeout) == std::future_status::ready;
}

TEST(LineWriter, WritesEveryLineWholeAndInOrder) {
  TestPipe pipe;
  PostedQueue posted;
  std::string expected, got;
  std::thread reader([&] { got = read_to_eof(pipe.read_end); });
  {
    LineWriter writer(pipe.write_end, posted.post(), {});
    for (int i = 0; i < 20000; ++i) {
      std::string line = numbered_line(i, 1 + (i * 7919) % 300);
      expected += line + "\n";
      writer.write(std::move(line));
    }
    bool flushed = false;
    writer.when_flushed([&] { flushed = true; });
    EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  }
  pipe.close_write();
  reader.join();
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST(LineWriter, WritesToARegularFile) {
  char path[] = "/tmp/mcpsh-writer-test-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::unlink(path);
  PostedQueue posted;
  {
    LineWriter writer(fd, posted.post(), {});
    writer.write("one");
    writer.write("two");
    bool flushed = false;
    writer.when_flushed([&] { flushed = true; });
    EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  }
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  EXPECT_EQ(read_to_eof(fd), "one\ntwo\n");
  ::close(fd);
}

// With nothing queued, a line that fits goes into the pipe before write() returns: the
// reader is woken by the caller, not after a hand-over to the writer's thread. (Kernels
// before 6.4 cannot write a pipe without waiting for room; there the thread writes.)
TEST(LineWriter, AnIdleWriterPutsALineIntoThePipeBeforeWriteReturns) {
  if (!kernel_writes_pipes_nowait()) GTEST_SKIP() << "this kernel refuses RWF_NOWAIT for pipes";
  TestPipe pipe;
  PostedQueue posted;
  LineWriter writer(pipe.write_end, posted.post(), {});
  for (int i = 0; i < 3; ++i) {
    const std::string line = numbered_line(i, 20000);
    writer.write(line);
    int in_pipe = 0;
    ASSERT_EQ(::ioctl(pipe.read_end, FIONREAD, &in_pipe), 0);
    EXPECT_EQ(in_pipe, static_cast<int>(line.size() + 1));
    EXPECT_EQ(writer.queued_bytes(), 0u);
    EXPECT_EQ(read_exactly(pipe.read_end, line.size() + 1), line + "\n");
  }
}

// A line bigger than the room in the pipe: the part that fits goes at once, the rest
// follows from the writer's thread, before any later line.
TEST(LineWriter, TheRestOfALineThatDidNotFitComesBeforeTheNextLine) {
  TestPipe pipe(4096);
  PostedQueue posted;
  std::string expected, got;
  LineWriter writer(pipe.write_end, posted.post(), {});
  for (int i = 0; i < 5; ++i) {
    std::string line = numbered_line(i, 3000 + 5000 * i);
    expected += line + "\n";
    writer.write(std::move(line));
  }
  std::thread reader([&] { got = read_exactly(pipe.read_end, expected.size()); });
  bool flushed = false;
  writer.when_flushed([&] { flushed = true; });
  EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  reader.join();
  EXPECT_TRUE(got == expected) << got.size() << " bytes instead of " << expected.size();
}

// The host's stdout may be a pipe whose client stopped reading: destroying the writer
// (end of serve) must not wait for that client.
TEST(LineWriter, DestructorDoesNotWaitForAPeerThatStoppedReading) {
  TestPipe pipe(4096);
  PostedQueue posted;
  auto writer = std::make_shared<LineWriter>(pipe.write_end, posted.post(), WriterEvents{});
  for (int i = 0; i < 64; ++i) writer->write(numbered_line(i, 1023));
  EXPECT_TRUE(returns_within([writer]() mutable { writer.reset(); }));
}

TEST(LineWriter, DestructorDoesNotWaitForASocketPeerThatStoppedReading) {
  TestSocketPair sockets;
  PostedQueue posted;
  auto writer = std::make_shared<LineWriter>(sockets.ours, posted.post(), WriterEvents{});
  // More than any socket buffer holds.
  for (int i = 0; i < 64; ++i) writer->write(numbered_line(i, 64 << 10));
  EXPECT_TRUE(returns_within([writer]() mutable { writer.reset(); }));
}

TEST(LineWriter, SocketPeerGetsEveryLineInOrder) {
  TestSocketPair sockets;
  PostedQueue posted;
  std::string expected, got;
  std::thread reader([&] { got = read_to_eof(sockets.theirs); });
  {
    LineWriter writer(sockets.ours, posted.post(), {});
    for (int i = 0; i < 200; ++i) {
      std::string line = numbered_line(i, 10000 + i);
      expected += line + "\n";
      writer.write(std::move(line));
    }
    bool flushed = false;
    writer.when_flushed([&] { flushed = true; });
    EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  }
  ::shutdown(sockets.ours, SHUT_WR);
  reader.join();
  EXPECT_TRUE(got == expected) << got.size() << " bytes instead of " << expected.size();
}

TEST(LineWriter, AbandonEndsAStuckWriteAndReleasesTheFlushWaiter) {
  TestPipe pipe(4096);
  PostedQueue posted;
  LineWriter writer(pipe.write_end, posted.post(), {});
  writer.write(std::string(1 << 20, 'x'));
  bool flushed = false;
  writer.when_flushed([&] { flushed = true; });
  writer.abandon();
  EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  EXPECT_EQ(writer.queued_bytes(), 0u);
  writer.write("dropped");
  EXPECT_EQ(writer.queued_bytes(), 0u);
}

// Backpressure: over the high-water mark while the peer does not read, then on_drained
// once it has read enough; every line arrives.
TEST(LineWriter, ReportsHighWaterUntilThePeerDrainsIt) {
  TestPipe pipe(4096);  // holds 4 lines of 1 KiB: the rest stays queued
  PostedQueue posted;
  int drained = 0;
  LineWriter writer(pipe.write_end, posted.post(), WriterEvents{{}, [&] { ++drained; }},
                    /*high_water=*/8 << 10);
  std::string expected;
  for (int i = 0; i < 20; ++i) {
    std::string line = numbered_line(i, 1023);
    expected += line + "\n";
    writer.write(std::move(line));
  }
  EXPECT_TRUE(writer.over_high_water());
  EXPECT_GE(writer.queued_bytes(), 20u * 1024 - 4096);
  EXPECT_EQ(posted.waiting(), 0u);  // nothing drained while the peer does not read

  std::string got = read_exactly(pipe.read_end, expected.size());
  EXPECT_TRUE(posted.run_until([&] { return drained == 1; }));
  EXPECT_FALSE(writer.over_high_water());
  EXPECT_TRUE(got == expected);
}

// A client may hand us a stdout that is non-blocking (O_NONBLOCK is shared by every
// process using the same open pipe): EAGAIN means "wait for room", not "peer gone".
TEST(LineWriter, NonBlockingDescriptorIsNotMistakenForAClosedPeer) {
  TestPipe pipe(4096);
  ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, O_NONBLOCK), 0);
  PostedQueue posted;
  int closed = 0;
  LineWriter writer(pipe.write_end, posted.post(), WriterEvents{[&] { ++closed; }, {}});
  std::string expected;
  for (int i = 0; i < 50; ++i) {
    std::string line = numbered_line(i, 1023);
    expected += line + "\n";
    writer.write(std::move(line));
  }
  std::string got = read_exactly(pipe.read_end, expected.size());
  bool flushed = false;
  writer.when_flushed([&] { flushed = true; });
  EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  EXPECT_EQ(closed, 0);
  EXPECT_FALSE(writer.closed());
  EXPECT_TRUE(got == expected) << got.size() << " bytes instead of " << expected.size();
}

TEST(LineWriter, PeerThatGoesAwayIsReportedOnceAndLaterLinesAreDropped) {
  TestPipe pipe;
  PostedQueue posted;
  int closed = 0;
  LineWriter writer(pipe.write_end, posted.post(), WriterEvents{[&] { ++closed; }, {}});
  pipe.close_read();
  writer.write("into the void");
  EXPECT_TRUE(posted.run_until([&] { return closed == 1; }));
  EXPECT_TRUE(writer.closed());
  writer.write("dropped");
  EXPECT_EQ(writer.queued_bytes(), 0u);
  bool flushed = false;
  writer.when_flushed([&] { flushed = true; });
  EXPECT_TRUE(posted.run_until([&] { return flushed; }));
  EXPECT_EQ(closed, 1);
}

TEST(LineWriter, IdleWriterNoticesThePeerGoing) {
  TestPipe pipe;
  PostedQueue posted;
  int closed = 0;
  LineWriter writer(pipe.write_end, posted.post(), WriterEvents{[&] { ++closed; }, {}});
  pipe.close_read();
  EXPECT_TRUE(posted.run_until([&] { return closed == 1; }));
}

TEST(LineWriter, StuckWriteNoticesThePeerGoing) {
  TestPipe pipe(4096);
  PostedQueue posted;
  int closed = 0;
  LineWriter writer(pipe.write_end, posted.post(), WriterEvents{[&] { ++closed; }, {}});
  writer.write(std::string(1 << 20, 'x'));
  pipe.close_read();
  EXPECT_TRUE(posted.run_until([&] { return closed == 1; }));
  EXPECT_EQ(writer.queued_bytes(), 0u);
}

}  // namespace
}  // namespace mcpsh::transport
