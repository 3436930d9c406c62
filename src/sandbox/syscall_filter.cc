#include "sandbox/syscall_filter.h"

#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace mcpsh::sandbox {

namespace {

// Debugging, kernel, mount, module, key-ring and clock administration, and io_uring (its
// operations would bypass the socket rules below). A tool that needs one of these does
// not belong in a sandbox.
constexpr const char* kDenied[] = {
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "swapon",
    "swapoff",
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "unshare",
    "setns",
    "open_by_handle_at",
    "name_to_handle_at",
    "iopl",
    "ioperm",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "quotactl",
    "syslog",
    "fanotify_init",
    "fsopen",
    "fsconfig",
    "fsmount",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "vhangup",
    "lookup_dcookie",
};

// New namespaces would let a tool mount over what Landlock sees by path.
constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWNS,    CLONE_NEWUSER, CLONE_NEWNET,
                                             CLONE_NEWPID,   CLONE_NEWIPC,  CLONE_NEWUTS,
                                             CLONE_NEWCGROUP};

struct ContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

}  // namespace

std::variant<std::vector<unsigned char>, std::string> build_syscall_filter(
    Policy::Network network) {
  std::unique_ptr<void, ContextDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return std::string("seccomp_init failed");
  auto rule = [&](const char* what, int rc) -> std::string {
    return rc == 0 ? std::string()
                   : std::string("seccomp rule for ") + what + ": " + std::strerror(-rc);
  };
  for (const char* name : kDenied) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (auto e = rule(name, seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0)); !e.empty())
      return e;
  }
  // clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes the C library
  // fall back to clone, whose flags can be checked.
  if (auto e =
          rule("clone3", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0));
      !e.empty())
    return e;
  for (unsigned long flag : kNamespaceFlags)
    if (auto e = rule("clone", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone),
                                                1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)));
        !e.empty())
      return e;
  if (network != Policy::Network::kAny) {
    // Families other than Unix, INET and INET6 (netlink, packet, ...): always refused.
    auto refuse_family = [&](int family) {
      return rule("socket",
                  seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                   SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family))));
    };
    for (int family = 0; family < AF_MAX; ++family) {
      if (family == AF_UNIX) continue;
      if (network == Policy::Network::kPorts && (family == AF_INET || family == AF_INET6)) continue;
      if (auto e = refuse_family(family); !e.empty()) return e;
    }
    if (auto e =
            rule("socket", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                            SCMP_A0(SCMP_CMP_GE, AF_MAX)));
        !e.empty())
      return e;
    if (network == Policy::Network::kPorts) {
      // TCP only: Landlock holds connect() to the named ports; datagram and raw sockets
      // could reach any port, so they are refused.
      for (int family : {AF_INET, AF_INET6})
        for (int type : {SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET})
          if (auto e = rule("socket",
                            seccomp_rule_add(
                                ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2,
                                SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)),
                                SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, static_cast<scmp_datum_t>(type))));
              !e.empty())
            return e;
    }
  }
  // Exported through an in-memory file: libseccomp 2.5 exports to a descriptor only.
  const int fd = ::memfd_create("mcp-shell-host-seccomp", MFD_CLOEXEC);
  if (fd < 0) return std::string("memfd_create for the seccomp program: ") + std::strerror(errno);
  std::vector<unsigned char> program;
  std::string error;
  if (int rc = seccomp_export_bpf(ctx.get(), fd); rc != 0) {
    error = std::string("seccomp_export_bpf: ") + std::strerror(-rc);
  } else {
    const off_t size = ::lseek(fd, 0, SEEK_END);
    program.resize(size > 0 ? static_cast<std::size_t>(size) : 0);
    std::size_t done = 0;
    while (done < program.size()) {
      const ssize_t n =
          ::pread(fd, program.data() + done, program.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = std::string("reading the seccomp program back: ") + std::strerror(errno);
        break;
      }
      done += static_cast<std::size_t>(n);
    }
  }
  ::close(fd);
  if (!error.empty()) return error;
  if (program.empty()) return std::string("libseccomp exported an empty program");
  return program;
}

}  // namespace mcpsh::sandbox
