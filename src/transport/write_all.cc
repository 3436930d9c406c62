#include "transport/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace mcpsh::transport {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    // write(2) returns 0 only for a zero-byte request; guard anyway against spinning.
    if (n == 0) {
      errno = EIO;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace mcpsh::transport
