// transport::LineReader on real pipes: its thread, our thread, and backpressure between.
#include "transport/line_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "posted_queue.h"
#include "test_pipe.h"

namespace mcpsh::transport {
namespace {

// What the reader delivered, on the test's thread. Every test reads to the end of input,
// so the reader's thread is done with the pipe before the pipe is closed (a thread left in
// read(2) would read from whatever pipe reuses the descriptor number next).
struct Delivered {
  std::vector<std::string> lines;
  std::vector<std::size_t> oversized;
  bool eof = false;
  LineEvents events() {
    return LineEvents{[this](std::string line) { lines.push_back(std::move(line)); },
                      [this](std::size_t size) { oversized.push_back(size); },
                      [this] { eof = true; }};
  }
};

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
}

// Writes `bytes` to a non-blocking `fd` for as long as the reader takes them; stops once
// the pipe stayed full for `quiet`. Returns how many bytes were taken. (The quiet time
// only ends the attempt: a reader that stopped reading passes whatever it is.)
std::size_t write_while_taken(int fd, const std::string& bytes,
                              std::chrono::milliseconds quiet = 300ms) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(quiet.count())) == 0) break;
  }
  return done;
}

std::string lines_text(int count, std::size_t size) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    std::string line = std::to_string(i) + ":";
    line.resize(size, 'x');
    text += line + "\n";
  }
  return text;
}

TEST(LineReader, DeliversEveryLineInOrderThenEndOfInput) {
  TestPipe pipe;
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, posted.post(), got.events());
  reader.start();
  std::string text = lines_text(5000, 100);
  std::thread writer([&] {
    write_all(pipe.write_end, text + "last without newline");
    pipe.close_write();
  });
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }));
  writer.join();
  ASSERT_EQ(got.lines.size(), 5001u);
  EXPECT_EQ(got.lines[0], lines_text(1, 100).substr(0, 100));
  EXPECT_EQ(got.lines[4999].substr(0, 5), "4999:");
  EXPECT_EQ(got.lines[5000], "last without newline");
}

TEST(LineReader, ReportsAnOversizedLineAndGoesOn) {
  TestPipe pipe;
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1000, posted.post(), got.events());
  reader.start();
  std::thread writer([&] {
    write_all(pipe.write_end, "a\n" + std::string(5000, 'y') + "\nb\n");
    pipe.close_write();
  });
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }));
  writer.join();
  EXPECT_EQ(got.lines, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(got.oversized, (std::vector<std::size_t>{5000}));
}

// Events posted and not handled are bounded: a consumer that falls behind stops the
// reader, which stops taking bytes from the pipe; nothing is lost when it catches up.
TEST(LineReader, StopsReadingWhileItsPostsAreNotHandled) {
  TestPipe pipe;
  ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, O_NONBLOCK), 0);
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, posted.post(), got.events(),
                    ReaderBounds{/*lines=*/4, /*bytes=*/1 << 20});
  reader.start();
  const std::string text = lines_text(20000, 50);  // 1 MiB
  std::size_t taken = write_while_taken(pipe.write_end, text);
  // The pipe (64 KiB) and one read buffer (64 KiB) at most; an unbounded reader takes it all.
  EXPECT_LE(taken, 256u << 10);
  EXPECT_TRUE(posted.wait_for_waiting(4));
  EXPECT_EQ(posted.waiting(), 4u);

  // Catching up: every line taken so far arrives, in order, then the rest.
  std::thread writer([&] {
    ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, 0), 0);
    write_all(pipe.write_end, text.substr(taken));
    pipe.close_write();
  });
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }, 60s));
  writer.join();
  ASSERT_EQ(got.lines.size(), 20000u);
  for (std::size_t i = 0; i < got.lines.size(); i += 997)
    EXPECT_EQ(got.lines[i].substr(0, got.lines[i].find(':')), std::to_string(i));
}

TEST(LineReader, BoundsThePostedBytesButAlwaysLetsOneLineThrough) {
  TestPipe pipe;
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, posted.post(), got.events(),
                    ReaderBounds{/*lines=*/100, /*bytes=*/1000});
  reader.start();
  // Lines longer than the byte bound, each alone.
  write_all(pipe.write_end, lines_text(3, 5000));
  EXPECT_TRUE(posted.wait_for_waiting(1));
  EXPECT_FALSE(posted.wait_for_waiting(2, 200ms));  // (a quiet time can only miss a fault)
  pipe.close_write();
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }));
  EXPECT_EQ(got.lines.size(), 3u);
}

// The consumer pauses the reader (its queues are full): nothing is read at all, so the
// peer's writes block once the pipe is full, until it is resumed.
TEST(LineReader, PausedReaderLeavesTheBytesInThePipe) {
  TestPipe pipe;
  ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, O_NONBLOCK), 0);
  const int capacity = ::fcntl(pipe.write_end, F_GETPIPE_SZ);
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, posted.post(), got.events());
  reader.set_paused(true);
  reader.start();
  const std::string text = lines_text(20000, 50);  // 1 MiB
  EXPECT_EQ(write_while_taken(pipe.write_end, text), static_cast<std::size_t>(capacity));
  EXPECT_EQ(posted.waiting(), 0u);

  reader.set_paused(false);
  std::thread writer([&] {
    ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, 0), 0);
    write_all(pipe.write_end, text.substr(capacity));
    pipe.close_write();
  });
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }, 60s));
  writer.join();
  EXPECT_EQ(got.lines.size(), 20000u);
}

TEST(LineReader, PauseTakesEffectBetweenLines) {
  TestPipe pipe;
  PostedQueue posted;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, posted.post(), got.events());
  reader.start();
  write_all(pipe.write_end, "one\n");
  ASSERT_TRUE(posted.run_until([&] { return got.lines.size() == 1; }));
  reader.set_paused(true);
  write_all(pipe.write_end, "two\n");
  EXPECT_FALSE(posted.wait_for_waiting(1, 200ms));  // (a quiet time can only miss a fault)
  reader.set_paused(false);
  EXPECT_TRUE(posted.run_until([&] { return got.lines.size() == 2; }));
  EXPECT_EQ(got.lines[1], "two");
  pipe.close_write();
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }));
}

// ---- on the loop ------------------------------------------------------------------------

// Runs `io` on this thread until `done()` holds; false if it did not within `timeout`.
bool run_until(boost::asio::io_context& io, const std::function<bool()>& done,
               std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    io.run_one_for(10ms);
  }
  return done();
}

// Nothing may be posted on the loop: events are handed over by the loop itself.
LineReader::Post no_posts(bool& posted) {
  return [&posted](std::function<void()>) { posted = true; };
}

TEST(LineReaderOnTheLoop, DeliversEveryLineInOrderThenEndOfInput) {
  TestPipe pipe;
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  const auto loop_thread = std::this_thread::get_id();
  bool all_on_the_loop = true;
  LineEvents events = got.events();
  events.on_line = [&, on_line = events.on_line](std::string line) {
    all_on_the_loop = all_on_the_loop && std::this_thread::get_id() == loop_thread;
    on_line(std::move(line));
  };
  LineReader reader(pipe.read_end, 1 << 20, no_posts(posted), events);
  ASSERT_TRUE(reader.start(io));
  const std::string text = lines_text(5000, 100);
  std::thread writer([&] {
    write_all(pipe.write_end, text + "last without newline");
    pipe.close_write();
  });
  EXPECT_TRUE(run_until(io, [&] { return got.eof; }));
  writer.join();
  EXPECT_FALSE(posted);
  EXPECT_TRUE(all_on_the_loop);
  ASSERT_EQ(got.lines.size(), 5001u);
  EXPECT_EQ(got.lines[4999].substr(0, 5), "4999:");
  EXPECT_EQ(got.lines[5000], "last without newline");
}

// The pipe we were given may be shared with other processes: its open file keeps its
// flags (the loop reads through an open file of its own).
TEST(LineReaderOnTheLoop, LeavesTheFlagsOfTheGivenPipeAlone) {
  TestPipe pipe;
  const int flags = ::fcntl(pipe.read_end, F_GETFL);
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, no_posts(posted), got.events());
  ASSERT_TRUE(reader.start(io));
  write_all(pipe.write_end, "one\n");
  EXPECT_TRUE(run_until(io, [&] { return got.lines.size() == 1; }));
  EXPECT_EQ(::fcntl(pipe.read_end, F_GETFL), flags);
  EXPECT_EQ(flags & O_NONBLOCK, 0);
  pipe.close_write();
  EXPECT_TRUE(run_until(io, [&] { return got.eof; }));
}

TEST(LineReaderOnTheLoop, ReportsAnOversizedLineAndGoesOn) {
  TestPipe pipe;
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  LineReader reader(pipe.read_end, 1000, no_posts(posted), got.events());
  ASSERT_TRUE(reader.start(io));
  std::thread writer([&] {
    write_all(pipe.write_end, "a\n" + std::string(200000, 'y') + "\nb\n");
    pipe.close_write();
  });
  EXPECT_TRUE(run_until(io, [&] { return got.eof; }));
  writer.join();
  EXPECT_EQ(got.lines, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(got.oversized, (std::vector<std::size_t>{200000}));
}

// A handler that pauses the reader (the call queue is full) holds back the lines read with
// its own, not only the bytes still in the pipe.
TEST(LineReaderOnTheLoop, APauseFromAHandlerHoldsTheRestOfItsBatch) {
  TestPipe pipe;
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  std::unique_ptr<LineReader> reader;
  LineEvents events = got.events();
  events.on_line = [&, on_line = events.on_line](std::string line) {
    on_line(std::move(line));
    reader->set_paused(true);
  };
  reader = std::make_unique<LineReader>(pipe.read_end, 1 << 20, no_posts(posted), events);
  write_all(pipe.write_end, "a\nb\nc\n");  // one read takes all three
  ASSERT_TRUE(reader->start(io));
  EXPECT_TRUE(run_until(io, [&] { return got.lines.size() == 1; }));
  EXPECT_FALSE(run_until(
      io, [&] { return got.lines.size() > 1; }, 200ms));
  reader->set_paused(false);
  EXPECT_TRUE(run_until(io, [&] { return got.lines.size() == 2; }));
  EXPECT_FALSE(run_until(
      io, [&] { return got.lines.size() > 2; }, 200ms));
  reader->set_paused(false);
  EXPECT_TRUE(run_until(io, [&] { return got.lines.size() == 3; }));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"a", "b", "c"}));
  pipe.close_write();
  reader->set_paused(false);
  EXPECT_TRUE(run_until(io, [&] { return got.eof; }));
}

TEST(LineReaderOnTheLoop, PausedReaderLeavesTheBytesInThePipe) {
  TestPipe pipe;
  ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, O_NONBLOCK), 0);
  const int capacity = ::fcntl(pipe.write_end, F_GETPIPE_SZ);
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  LineReader reader(pipe.read_end, 1 << 20, no_posts(posted), got.events());
  reader.set_paused(true);
  ASSERT_TRUE(reader.start(io));
  EXPECT_FALSE(run_until(
      io, [&] { return !got.lines.empty(); }, 100ms));
  const std::string text = lines_text(20000, 50);  // 1 MiB
  std::size_t taken = 0;
  std::thread writer([&] { taken = write_while_taken(pipe.write_end, text); });
  EXPECT_FALSE(run_until(
      io, [&] { return !got.lines.empty(); }, 500ms));
  writer.join();
  EXPECT_EQ(taken, static_cast<std::size_t>(capacity));

  reader.set_paused(false);
  std::thread rest([&] {
    ASSERT_EQ(::fcntl(pipe.write_end, F_SETFL, 0), 0);
    write_all(pipe.write_end, text.substr(capacity));
    pipe.close_write();
  });
  EXPECT_TRUE(run_until(
      io, [&] { return got.eof; }, 60s));
  rest.join();
  EXPECT_EQ(got.lines.size(), 20000u);
}

// Destroyed with a read pending (the end of serve): nothing is handed over afterwards.
TEST(LineReaderOnTheLoop, NothingArrivesAfterTheReaderIsGone) {
  TestPipe pipe;
  boost::asio::io_context io;
  bool posted = false;
  Delivered got;
  auto reader =
      std::make_unique<LineReader>(pipe.read_end, 1 << 20, no_posts(posted), got.events());
  ASSERT_TRUE(reader->start(io));
  write_all(pipe.write_end, "one\n");
  EXPECT_TRUE(run_until(io, [&] { return got.lines.size() == 1; }));
  reader.reset();
  write_all(pipe.write_end, "two\n");
  pipe.close_write();
  EXPECT_FALSE(run_until(
      io, [&] { return got.lines.size() > 1 || got.eof; }, 200ms));
}

// Only a pipe is read on the loop; a regular file (which epoll refuses) is read on the
// reader's thread, as start() does.
TEST(LineReaderOnTheLoop, ARegularFileIsReadOnAThread) {
  FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const std::string text = "one\ntwo\n";
  ASSERT_EQ(::write(::fileno(file), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ASSERT_EQ(::lseek(::fileno(file), 0, SEEK_SET), 0);
  boost::asio::io_context io;
  PostedQueue posted;
  Delivered got;
  LineReader reader(::fileno(file), 1 << 20, posted.post(), got.events());
  EXPECT_FALSE(reader.start(io));
  EXPECT_TRUE(posted.run_until([&] { return got.eof; }));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"one", "two"}));
  std::fclose(file);
}

}  // namespace
}  // namespace mcpsh::transport
