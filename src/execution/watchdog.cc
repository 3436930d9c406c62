#include "execution/watchdog.h"

#include <dirent.h>
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

// Removes the tree at `name` (relative to dir), following no symlink: entries are unlinked,
// folders emptied first (to a depth of 32; deeper ones stay). Raw calls and stack buffers.
void remove_tree(int dir, const char* name, int depth) {
  int fd = static_cast<int>(sys(SYS_openat, dir, reinterpret_cast<long>(name),
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd < 0) {
    sys(SYS_unlinkat, dir, reinterpret_cast<long>(name), 0);
    return;
  }
  alignas(8) char entries[2048];
  // Entries removed while the folder is read may shift the rest: read again from the
  // start until a pass finds nothing but "." and "..".
  for (int pass = 0; depth < 32 && pass < 64; ++pass) {
    bool removed = false;
    sys(SYS_lseek, fd, 0, SEEK_SET);
    for (;;) {
      long n = sys(SYS_getdents64, fd, reinterpret_cast<long>(entries), sizeof entries);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        auto* e = reinterpret_cast<LinuxDirent64*>(entries + at);
        at += e->d_reclen;
        const char* n0 = e->d_name;
        if (n0[0] == '.' && (n0[1] == '\0' || (n0[1] == '.' && n0[2] == '\0'))) continue;
        if (e->d_type == DT_DIR)
          remove_tree(fd, n0, depth + 1);
        else
          sys(SYS_unlinkat, fd, reinterpret_cast<long>(n0), 0);
        removed = true;
      }
    }
    if (!removed) break;
  }
  sys(SYS_close, fd);
  sys(SYS_unlinkat, dir, reinterpret_cast<long>(name), AT_REMOVEDIR);
}

[[noreturn]] void watchdog_main(int read_end, pid_t host, const char* scratch_root) {
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
  // Above all the host's end of the pipe: holding it, we would wait for ourselves forever.
  close_all_from(3);

  char byte;
  for (;;) {
    long n = sys(SYS_read, 0, reinterpret_cast<long>(&byte), 1);
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
  // The host died without cleaning up (we were re-parented): its sandboxes' scratch
  // folders are ours to remove. A host alive merely closed the pipe (its runner went) and
  // removes its own.
  if (sys(SYS_getppid) != host) remove_tree(AT_FDCWD, scratch_root, 0);
  sys(SYS_exit_group, 0);
  __builtin_unreachable();
}

}  // namespace

Watchdog::Watchdog() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t host = ::getpid();
  const std::string scratch_root = sandbox::scratch_root_of(host);  // made before the fork
  pid_t pid = ::fork();
  if (pid == 0) watchdog_main(fds[0], host, scratch_root.c_str());
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return;
  }
  pid_ = pid;
  pipe_ = fds[1];
}

Watchdog::~Watchdog() {
  if (pipe_ >= 0) ::close(pipe_);
  // It finds nothing and exits within moments; reaped here, it does not even linger as a
  // zombie for init to collect. Bounded, in case it is slow to get the CPU.
  for (int i = 0; pid_ > 0 && i < 200; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) return;
    ::usleep(1000);
  }
}

}  // namespace mcpsh::execution
