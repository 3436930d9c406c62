#include "execution/watchdog.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "execution/child_fds.h"
#include "execution/escapees.h"
#include "sandbox/sandbox.h"

namespace mcpsh::execution {

namespace {

// Everything in the forked child goes straight to the kernel: the host may have other
// threads, so after fork only async-signal-safe calls are allowed, and the sanitizers'
// interceptors (which may take locks) are bypassed too.
long sys(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
  return ::syscall(number, a, b, c, d);
}

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Decimal digits of n into out (no terminator); returns the length.
int put_number(char* out, long n) {
  char digits[24];
  int len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (int i = 0; i < len; ++i) out[i] = digits[len - 1 - i];
  return len;
}

// Whether the environment file open on fd has an entry starting with needle (which
// begins with the '\0' that ends the previous entry; the file is read as if preceded by
// one). Streams through a small buffer, carrying a needle's length across reads.
bool environ_has(int fd, const char* needle, int needle_len) {
  char buffer[4096 + 64];
  int kept = 1;
  buffer[0] = '\0';
  for (;;) {
    long n = sys(SYS_read, fd, reinterpret_cast<long>(buffer + kept), 4096);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    const int size = kept + static_cast<int>(n);
    for (int i = 0; i + needle_len <= size; ++i)
      if (std::memcmp(buffer + i, needle, static_cast<std::size_t>(needle_len)) == 0) return true;
    kept = needle_len - 1 < size ? needle_len - 1 : size;
    std::memmove(buffer, buffer + size - kept, static_cast<std::size_t>(kept));
  }
}

// One pass over /proc: SIGKILL to every process carrying the host's cookie. The pidfd is
// opened before the environment is read, so the signal reaches the process that was read
// or, if that one died meanwhile, nobody.
bool kill_cookie_holders(const char* needle, int needle_len, pid_t self) {
  bool found = false;
  int dir = static_cast<int>(sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/proc"),
                                 O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return false;
  alignas(8) char entries[8192];
  for (;;) {
    long n = sys(SYS_getdents64, dir, reinterpret_cast<long>(entries), sizeof entries);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      auto* e = reinterpret_cast<LinuxDirent64*>(entries + at);
      at += e->d_reclen;
      long pid = 0;
      const char* c = e->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 1 || pid == self) continue;
      int pidfd = static_cast<int>(sys(SYS_pidfd_open, pid, 0));
      if (pidfd < 0) continue;
      char path[64] = "/proc/";
      int len = 6 + put_number(path + 6, pid);
      std::memcpy(path + len, "/environ", 9);
      int env = static_cast<int>(
          sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC));
      if (env >= 0) {
        if (environ_has(env, needle, needle_len)) {
          sys(SYS_pidfd_send_signal, pidfd, SIGKILL, 0, 0);
          found = true;
        }
        sys(SYS_close, env);
      }
      sys(SYS_close, pidfd);
    }
  }
  sys(SYS_close, dir);
  return found;
}

// `scratch_fd`: the host's scratch root (sandbox.h), open, or -1; `scratch_root` its path.
[[noreturn]] void watchdog_main(int read_end, pid_t host, int scratch_fd,
                                const char* scratch_root) {
  sys(SYS_setpgid, 0, 0);
  std::uint64_t all = ~0ULL;  // SIGKILL and SIGSTOP stay deliverable whatever the mask
  sys(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all), 0, sizeof all);
  sys(SYS_prctl, PR_SET_NAME, reinterpret_cast<long>("mcpsh-watchdog"));
  // stdin: the pipe; stdout, stderr: /dev/null; nothing else of the host's.
  sys(SYS_dup3, read_end, 0, 0);
  int null =
      static_cast<int>(sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/dev/null"), O_RDWR));
  if (null >= 0) {
    sys(SYS_dup3, null, 1, 0);
    sys(SYS_dup3, null, 2, 0);
  }
  // The scratch root stays open as fd 3 (its path could be swapped for a symlink by the
  // time we need it; the descriptor cannot).
  if (scratch_fd >= 0 && scratch_fd != 3) {
    sys(SYS_dup3, scratch_fd, 3, 0);
    scratch_fd = 3;
  }
  // Above all the host's end of the pipe: holding it, we would wait for ourselves forever.
  close_all_from(scratch_fd >= 0 ? 4 : 3);

  // A byte before the end of file: the runner closed it in order (the host lives on and
  // cleans up itself). End of file alone: the host died.
  char byte;
  bool orderly = false;
  for (;;) {
    long n = sys(SYS_read, 0, reinterpret_cast<long>(&byte), 1);
    if (n == 1) orderly = true;
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }

  // "\0MCP_SHELL_HOST_RUN=<host pid>."
  char needle[64];
  int len = 0;
  needle[len++] = '\0';
  for (const char* c = kRunCookie; *c; ++c) needle[len++] = *c;
  needle[len++] = '=';
  len += put_number(needle + len, host);
  needle[len++] = '.';
  const pid_t self = static_cast<pid_t>(sys(SYS_getpid));
  // A process being killed may just have forked: look again until a pass finds nothing.
  for (int round = 0; round < 50 && kill_cookie_holders(needle, len, self); ++round) {
    timespec pause{0, 10 * 1000 * 1000};
    sys(SYS_nanosleep, reinterpret_cast<long>(&pause), 0);
  }
  // The host died without cleaning up: its sandboxes' scratch folders are ours to remove.
  // (Not told by getppid: the pipe reaches end of file before the kernel re-parents us.)
  if (scratch_fd >= 0 && !orderly) {
    sandbox::empty_folder(scratch_fd);
    sys(SYS_unlinkat, AT_FDCWD, reinterpret_cast<long>(scratch_root), AT_REMOVEDIR);
  }
  sys(SYS_exit_group, 0);
  __builtin_unreachable();
}

}  // namespace

Watchdog::Watchdog() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t host = ::getpid();
  // Made now, so that the watchdog knows it (the host's first sandboxed tool comes later).
  const std::string& scratch_root = sandbox::scratch_root();
  const int scratch_fd =
      scratch_root.empty()
          ? -1
          : ::open(scratch_root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  pid_t pid = ::fork();
  if (pid == 0) watchdog_main(fds[0], host, scratch_fd, scratch_root.c_str());
  if (scratch_fd >= 0) ::close(scratch_fd);
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return;
  }
  pid_ = pid;
  pipe_ = fds[1];
}

Watchdog::~Watchdog() {
  if (pipe_ >= 0) {
    const char orderly = 1;  // we clean up ourselves (see watchdog_main)
    while (::write(pipe_, &orderly, 1) < 0 && errno == EINTR) {
    }
    ::close(pipe_);
  }
  // It finds nothing and exits within moments; reaped here, it does not even linger as a
  // zombie for init to collect. Bounded, in case it is slow to get the CPU.
  for (int i = 0; pid_ > 0 && i < 200; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) return;
    ::usleep(1000);
  }
}

}  // namespace mcpsh::execution
