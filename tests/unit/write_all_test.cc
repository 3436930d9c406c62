// write_all: every byte, through short writes, or false with errno.
#include "transport/write_all.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

namespace mcpsh::transport {
namespace {

TEST(WriteAll, WritesEverythingThroughAPipeSmallerThanThePayload) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  // Several times a pipe's capacity: write(2) returns short counts as the reader drains.
  std::string payload(1 << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 % 251);
  std::string received;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) received.append(buf, static_cast<size_t>(n));
  });
  EXPECT_TRUE(write_all(fds[1], payload));
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  EXPECT_EQ(received.size(), payload.size());
  EXPECT_TRUE(received == payload);
}

TEST(WriteAll, ReportsAFailureWithErrno) {
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  errno = 0;
  EXPECT_FALSE(write_all(fd, "x"));
  EXPECT_EQ(errno, EBADF);
  ::close(fd);
}

TEST(WriteAll, NothingToWriteIsDone) { EXPECT_TRUE(write_all(-1, "")); }

}  // namespace
}  // namespace mcpsh::transport
