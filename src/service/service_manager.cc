#include "service/service_manager.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace mcpsh::service {

namespace {

constexpr int kFirstPassedFd = 3;  // SD_LISTEN_FDS_START

std::string take(const char* name) {
  const char* value = std::getenv(name);
  std::string text = value ? value : "";
  ::unsetenv(name);
  return text;
}

// A decimal number that is all of `text`, or -1.
long long number(const std::string& text) {
  long long n = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return -1;
  return n;
}

}  // namespace

ServiceManager take_from_environment() {
  ServiceManager m;
  const std::string pid = take("LISTEN_PID"), fds = take("LISTEN_FDS");
  take("LISTEN_FDNAMES");
  m.notify_socket = take("NOTIFY_SOCKET");
  // Variables meant for another process (a parent that was itself activated and did not
  // clean up) are not ours: the descriptors they name are not either.
  if (!fds.empty() && number(pid) == static_cast<long long>(::getpid())) {
    const long long count = number(fds);
    if (count <= 0 || count > 1024) {
      m.error = "LISTEN_FDS is not a count of sockets: \"" + fds + "\"";
      return m;
    }
    for (int fd = kFirstPassedFd; fd < kFirstPassedFd + count; ++fd) {
      if (::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        m.error = "LISTEN_FDS names descriptor " + std::to_string(fd) +
                  ", which is not open: " + std::strerror(errno);
        return m;
      }
      m.sockets.push_back(fd);
    }
  }
  return m;
}

Hangup hangup_meaning() {
  struct sigaction current {};
  if (::sigaction(SIGHUP, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
    return Hangup::kIgnored;
  const int tty = ::open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (tty < 0) return Hangup::kReload;
  ::close(tty);
  return Hangup::kStop;
}

bool ServiceManager::notify(const std::string& message) const {
  if (notify_socket.empty()) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (notify_socket.size() >= sizeof address.sun_path ||
      (notify_socket[0] != '/' && notify_socket[0] != '@'))
    return false;
  std::memcpy(address.sun_path, notify_socket.data(), notify_socket.size());
  if (address.sun_path[0] == '@') address.sun_path[0] = '\0';  // the abstract namespace
  const auto length =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + notify_socket.size());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const ssize_t sent = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&address), length);
  ::close(fd);
  return sent == static_cast<ssize_t>(message.size());
}

}  // namespace mcpsh::service
