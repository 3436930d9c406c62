#include "sandbox/syscall_filter.h"

#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <tuple>

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
    "pidfd_getfd",
    "kcmp",
};

// What Landlock does not see under a write confinement: a tool could otherwise chmod a
// setuid bit onto, or chown, any file it can read.
constexpr const char* kMetadataChanges[] = {
    "chmod",       "fchmod",       "fchmodat",     "fchmodat2",     "chown",     "fchown",
    "lchown",      "fchownat",     "setxattr",     "lsetxattr",     "fsetxattr", "setxattrat",
    "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
};

// New namespaces would let a tool mount over what Landlock sees by path.
constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWNS,    CLONE_NEWUSER, CLONE_NEWNET,
                                             CLONE_NEWPID,   CLONE_NEWIPC,  CLONE_NEWUTS,
                                             CLONE_NEWCGROUP};

// One comparison of a system call's argument (libseccomp's SCMP_A* macros are C compound
// literals, which C++ does not have).
scmp_arg_cmp arg(unsigned index, scmp_compare op, scmp_datum_t a, scmp_datum_t b = 0) {
  return scmp_arg_cmp{index, op, a, b};
}

// An int argument equal to `value`. The kernel reads only the low 32 bits of an int
// argument, so the comparison must ignore the high ones: a tool could set them (perl's
// syscall, say) to slip past a plain 64-bit equality.
scmp_arg_cmp int_is(unsigned index, long value) {
  return arg(index, SCMP_CMP_MASKED_EQ, 0xffffffffUL,
             static_cast<scmp_datum_t>(value) & 0xffffffffUL);
}

struct ContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

}  // namespace

std::variant<std::vector<unsigned char>, std::string> build_syscall_filter(Policy::Network network,
                                                                           bool confined_writes,
                                                                           bool confined_programs) {
  std::unique_ptr<void, ContextDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return std::string("seccomp_init failed");
  // A binary tree over the system call numbers instead of a linear list: every system
  // call the tool makes runs this program.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc != 0)
    return std::string("seccomp_attr_set(SCMP_FLTATR_CTL_OPTIMIZE): ") + std::strerror(-rc);
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
  if (confined_writes)
    for (const char* name : kMetadataChanges) {
      const int nr = seccomp_syscall_resolve_name(name);
      if (nr == __NR_SCMP_ERROR) continue;
      if (auto e = rule(name, seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0));
          !e.empty())
        return e;
    }
  // An anonymous file lives on an internal mount, out of Landlock's path rules and of the
  // noexec mounts: exec'ing one (fexecve, /proc/self/fd/N) would run any program an
  // allowed interpreter wrote into it. Under exec= there are none.
  if (confined_programs)
    if (auto e = rule("memfd_create", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM),
                                                       SCMP_SYS(memfd_create), 0));
        !e.empty())
      return e;
  // Pushing input into a terminal (the host's, should it have one) would run commands
  // outside the sandbox. The request is compared on its low 32 bits, as the kernel does.
  for (scmp_datum_t request :
       {static_cast<scmp_datum_t>(TIOCSTI), static_cast<scmp_datum_t>(TIOCLINUX)})
    if (auto e =
            rule("ioctl", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                                           arg(1, SCMP_CMP_MASKED_EQ, 0xffffffffUL, request)));
        !e.empty())
      return e;
  // clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes the C library
  // fall back to clone, whose flags can be checked.
  if (auto e =
          rule("clone3", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0));
      !e.empty())
    return e;
  for (unsigned long flag : kNamespaceFlags)
    if (auto e = rule("clone", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone),
                                                1, arg(0, SCMP_CMP_MASKED_EQ, flag, flag)));
        !e.empty())
      return e;
  if (network != Policy::Network::kAny) {
    // Families other than Unix, INET and INET6 (netlink, packet, ...): always refused.
    auto refuse_family = [&](int family) {
      return rule("socket", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                             int_is(0, family)));
    };
    for (int family = 0; family < AF_MAX; ++family) {
      if (family == AF_UNIX) continue;
      if (network == Policy::Network::kPorts && (family == AF_INET || family == AF_INET6)) continue;
      if (auto e = refuse_family(family); !e.empty()) return e;
    }
    if (auto e = rule("socket", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES),
                                                 SCMP_SYS(socket), 1, arg(0, SCMP_CMP_GE, AF_MAX)));
        !e.empty())
      return e;
    if (network == Policy::Network::kPorts) {
      // Plain TCP only: Landlock holds connect() to the named ports, not MPTCP (protocol
      // 262) nor any other protocol, nor a TCP Fast Open connect made by sendto/sendmsg,
      // nor listen() on a port the kernel picks.
      for (int family : {AF_INET, AF_INET6}) {
        const auto family_is = int_is(0, family);
        if (auto e = rule("socket",
                          seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2,
                                           family_is, arg(2, SCMP_CMP_GE, IPPROTO_TCP + 1)));
            !e.empty())
          return e;
        for (scmp_datum_t protocol = 1; protocol < IPPROTO_TCP; ++protocol)
          if (auto e = rule("socket",
                            seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2,
                                             family_is, int_is(2, protocol)));
              !e.empty())
            return e;
      }
      const scmp_datum_t fast_open = MSG_FASTOPEN;
      for (auto [name, nr, flags_arg] : {std::tuple{"sendto", SCMP_SYS(sendto), 3u},
                                         std::tuple{"sendmsg", SCMP_SYS(sendmsg), 2u},
                                         std::tuple{"sendmmsg", SCMP_SYS(sendmmsg), 3u}}) {
        const scmp_arg_cmp flags{flags_arg, SCMP_CMP_MASKED_EQ, fast_open, fast_open};
        if (auto e = rule(name, seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), nr, 1, flags));
            !e.empty())
          return e;
      }
      if (auto e = rule("listen",
                        seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(listen), 0));
          !e.empty())
        return e;
      // Datagram and raw sockets could reach any port.
      for (int family : {AF_INET, AF_INET6})
        for (int type : {SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET})
          if (auto e = rule("socket", seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES),
                                                       SCMP_SYS(socket), 2, int_is(0, family),
                                                       arg(1, SCMP_CMP_MASKED_EQ, 0xf,
                                                           static_cast<scmp_datum_t>(type))));
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
