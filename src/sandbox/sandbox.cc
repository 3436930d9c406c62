#include "sandbox/sandbox.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>

#include "sandbox/confine_exec.h"
#include "sandbox/landlock_abi.h"
#include "sandbox/syscall_filter.h"

namespace mcpsh::sandbox {

namespace ll = landlock;

namespace {

std::string error_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// The rights a write confinement handles, as far as this ABI knows them. Rights the
// kernel does not know stay allowed (for truncate before ABI 3, only through a write
// open, which is handled).
std::uint64_t write_rights(int abi) {
  std::uint64_t r = ll::kWriteFile | ll::kRemoveDir | ll::kRemoveFile | ll::kMakeChar |
                    ll::kMakeDir | ll::kMakeReg | ll::kMakeSock | ll::kMakeFifo | ll::kMakeBlock |
                    ll::kMakeSym;
  if (abi >= 2) r |= ll::kRefer;
  if (abi >= 3) r |= ll::kTruncate;
  return r;
}
constexpr std::uint64_t kReadRights = ll::kReadFile | ll::kReadDir | ll::kExecute;

// What a process needs to read to run bash and the usual tools, when reads are confined.
constexpr const char* kSystemReadable[] = {"/usr",    "/bin", "/sbin", "/lib",  "/lib32", "/lib64",
                                           "/libx32", "/etc", "/dev",  "/proc", "/opt"};
// Devices a confined process may still open for writing.
// Not /dev/tty: the host's terminal, if it has one, is not the tool's to write to.
constexpr const char* kWritableDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                            "/dev/urandom"};

long create_ruleset(const ll::RulesetAttr* attr, std::size_t size, std::uint32_t flags) {
  return ::syscall(ll::kCreateRuleset, attr, size, flags);
}

// Adds a path rule: the rights granted there, as far as the ruleset handles them and a
// non-folder takes them. A missing path is skipped when `optional`.
std::string add_path(int ruleset, const std::string& path, std::uint64_t rights,
                     std::uint64_t handled, bool optional) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (optional && (errno == ENOENT || errno == ENOTDIR)) return {};
    return error_text("sandbox: " + path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string e = error_text("sandbox: fstat " + path);
    ::close(fd);
    return e;
  }
  rights &= handled;
  if (!S_ISDIR(st.st_mode)) rights &= ll::kFileRights;
  std::string error;
  if (rights != 0) {
    const ll::PathBeneathAttr attr{rights, fd};
    if (::syscall(ll::kAddRule, ruleset, ll::kRulePathBeneath, &attr, 0) != 0)
      error = error_text("sandbox: landlock_add_rule " + path);
  }
  ::close(fd);
  return error;
}

// PT_INTERP of the ELF file open on `fd`, of either class.
template <typename Ehdr, typename Phdr>
std::string interpreter_of(int fd) {
  Ehdr eh{};
  if (::pread(fd, &eh, sizeof eh, 0) != static_cast<ssize_t>(sizeof eh) ||
      eh.e_phentsize != sizeof(Phdr))
    return {};
  for (unsigned i = 0; i < eh.e_phnum && eh.e_phnum < 256; ++i) {
    Phdr ph{};
    if (::pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph)) !=
        static_cast<ssize_t>(sizeof ph))
      return {};
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096) continue;
    std::string interpreter(ph.p_filesz, '\0');
    if (::pread(fd, interpreter.data(), ph.p_filesz, static_cast<off_t>(ph.p_offset)) !=
        static_cast<ssize_t>(ph.p_filesz))
      return {};
    interpreter.resize(std::strlen(interpreter.c_str()));  // up to its NUL
    return interpreter;
  }
  return {};
}

// The ELF interpreter a program names (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2), or ""
// for a static program or another kind of file.
std::string elf_interpreter(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  unsigned char ident[EI_NIDENT] = {};
  std::string interpreter;
  if (::pread(fd, ident, sizeof ident, 0) == static_cast<ssize_t>(sizeof ident) &&
      std::memcmp(ident, ELFMAG, SELFMAG) == 0)
    interpreter = ident[EI_CLASS] == ELFCLASS64   ? interpreter_of<Elf64_Ehdr, Elf64_Phdr>(fd)
                  : ident[EI_CLASS] == ELFCLASS32 ? interpreter_of<Elf32_Ehdr, Elf32_Phdr>(fd)
                                                  : std::string();
  ::close(fd);
  return interpreter;
}

// The programs and the ELF interpreters they need, once each, in order. Each program's
// interpreter is read once per process.
std::vector<std::string> executables(const std::vector<std::string>& programs) {
  static std::mutex mutex;
  static std::map<std::string, std::string> interpreters;
  std::vector<std::string> out;
  auto once = [&](const std::string& path) {
    if (!path.empty() && std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
  };
  for (const auto& program : programs) {
    once(program);
    std::string interpreter;
    {
      std::lock_guard lock(mutex);
      auto it = interpreters.find(program);
      if (it == interpreters.end())
        it = interpreters.emplace(program, elf_interpreter(program)).first;
      interpreter = it->second;
    }
    once(interpreter);
  }
  return out;
}

}  // namespace

const KernelSupport& kernel_support() {
  static const KernelSupport support = [] {
    KernelSupport s;
    const long abi = create_ruleset(nullptr, 0, ll::kCreateRulesetVersion);
    if (abi > 0) {
      s.landlock_abi = static_cast<int>(abi);
    } else {
      s.landlock_why = errno == EOPNOTSUPP ? "Landlock is disabled at boot"
                       : errno == ENOSYS   ? "this kernel has no Landlock"
                                           : error_text("landlock_create_ruleset");
    }
    // PR_GET_SECCOMP answers EINVAL when the kernel has no seccomp at all.
    s.seccomp = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
    utsname u{};
    if (::uname(&u) == 0) {
      s.release = u.release;
      unsigned major = 0, minor = 0;
      if (std::sscanf(u.release, "%u.%u", &major, &minor) == 2)
        s.pid_namespace_max = major > 6 || (major == 6 && minor >= 14);
    }
    return s;
  }();
  return support;
}

int apply_in_child(const ChildConfinement& c) {
  if (!c.active()) return 0;
  if (::syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 1;
  if (c.hand_off) {
    // Open across exec (dup3 without O_CLOEXEC), for confine_exec inside bwrap. The
    // sources are all at or above the child's descriptor floor, so none is overwritten.
    for (int i = 0; i < c.ruleset_count; ++i)
      if (::syscall(SYS_dup3, c.rulesets[i], kHandOffFd + i, 0) != kHandOffFd + i) return 4;
    const int filter_at = kHandOffFd + ChildConfinement::kMaxLayers;
    if (c.filter_fd >= 0 && ::syscall(SYS_dup3, c.filter_fd, filter_at, 0) != filter_at) return 4;
    if (c.self_fd >= 0 && ::syscall(SYS_dup3, c.self_fd, kHandOffSelfFd, 0) != kHandOffSelfFd)
      return 4;
    return 0;
  }
  for (int i = 0; i < c.ruleset_count; ++i)
    if (::syscall(ll::kRestrictSelf, c.rulesets[i], 0) != 0) return 2;
  if (c.filter && ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, c.filter) != 0) return 3;
  return 0;
}

const char* child_step_name(int step) {
  switch (step) {
    case 1:
      return "prctl(PR_SET_NO_NEW_PRIVS)";
    case 2:
      return "landlock_restrict_self";
    case 3:
      return "seccomp(SECCOMP_SET_MODE_FILTER)";
    case 4:
      return "dup3 (handing the sandbox on to bwrap)";
    default:
      return "sandbox";
  }
}

SpawnConfinement::SpawnConfinement(SpawnConfinement&& o) noexcept { *this = std::move(o); }

SpawnConfinement& SpawnConfinement::operator=(SpawnConfinement&& o) noexcept {
  if (this != &o) {
    close_all();
    scratch_ = std::move(o.scratch_);
    reads_confined_ = std::move(o.reads_confined_);
    executables_ = std::move(o.executables_);
    child_ = o.child_;
    o.child_ = {};
  }
  return *this;
}

SpawnConfinement::~SpawnConfinement() { close_all(); }

void SpawnConfinement::close_all() {
  for (int i = 0; i < child_.ruleset_count; ++i) ::close(child_.rulesets[i]);
  if (child_.filter_fd >= 0) ::close(child_.filter_fd);
  child_.ruleset_count = 0;
  child_.filter_fd = -1;
}

Sandbox::Sandbox(std::vector<Policy> layers, const KernelSupport& kernel)
    : layers_(std::move(layers)), abi_(kernel.landlock_abi) {
  Policy::Network strictest = Policy::Network::kAny;
  bool needs_landlock = false, confined_writes = false;
  for (const Policy& p : layers_) {
    if (!description_.empty()) description_ += " then ";
    description_ += describe(p);
    if (p.confined_writes || p.reads || p.programs) needs_landlock = true;
    if (p.programs) restricts_programs_ = true;
    if (p.confined_writes) confined_writes = true;
    if (p.network == Policy::Network::kPorts) {
      needs_landlock = true;
      if (abi_ > 0 && abi_ < 4)
        unavailable_ = "connect= needs Landlock ABI 4 (TCP port rules); this kernel has ABI " +
                       std::to_string(abi_);
      if (strictest == Policy::Network::kAny) strictest = p.network;
    }
    if (p.network == Policy::Network::kNone) strictest = p.network;
    if (p.isolate) isolate_ = true;
    if (p.procs) procs_ = procs_ ? std::min(procs_, *p.procs) : *p.procs;
  }
  own_network_ = isolate_ && strictest == Policy::Network::kNone;
  if (isolate_ && unavailable_.empty()) {
    bwrap_ = find_on_path("bwrap");
    if (bwrap_.empty())
      unavailable_ = "sandbox \"" + description_ +
                     "\" needs bwrap (Debian's bubblewrap) on PATH, and there is none";
    else if (procs_ && !kernel.pid_namespace_max)
      unavailable_ = "sandbox \"" + description_ +
                     "\": procs= needs Linux 6.14 or later (a PID namespace's own pid_max); "
                     "this kernel is " +
                     kernel.release;
  }
  if (needs_landlock && abi_ == 0)
    unavailable_ = "sandbox \"" + description_ + "\" needs Landlock: " + kernel.landlock_why;
  if (!kernel.seccomp && unavailable_.empty())
    unavailable_ =
        "sandbox \"" + description_ + "\" needs seccomp filters, which this kernel lacks";
  if (unavailable_.empty()) {
    auto built = build_syscall_filter(strictest, confined_writes, restricts_programs_);
    if (auto* error = std::get_if<std::string>(&built)) {
      unavailable_ = *error;
    } else {
      filter_ = std::move(std::get<std::vector<unsigned char>>(built));
      program_ = std::make_unique<unsigned char[]>(sizeof(sock_fprog));
      sock_fprog prog{};
      prog.len = static_cast<unsigned short>(filter_.size() / sizeof(sock_filter));
      prog.filter = reinterpret_cast<sock_filter*>(filter_.data());
      std::memcpy(program_.get(), &prog, sizeof prog);
    }
  }
  if (abi_ > 0) {
    enforcement_ = "Landlock ABI " + std::to_string(abi_) + " (files";
    if (abi_ >= 4) enforcement_ += ", TCP ports";
    if (abi_ >= 6) enforcement_ += ", signals";
    enforcement_ += ")";
  } else {
    enforcement_ = "no Landlock";
  }
  enforcement_ += kernel.seccomp ? ", seccomp, no_new_privs" : ", no seccomp";
  if (restricts_programs_)
    enforcement_ += isolate_ ? ", programs (Landlock, noexec mounts)" : ", programs (Landlock)";
  if (isolate_) {
    enforcement_ +=
        std::string(", bwrap namespaces (pid, ipc, uts") + (own_network_ ? ", net)" : ")");
    if (procs_) enforcement_ += ", at most " + std::to_string(procs_) + " processes";
  }
}

Sandbox::~Sandbox() = default;

std::shared_ptr<const Sandbox> Sandbox::prepare(const std::vector<Policy>& layers) {
  std::vector<Policy> active;
  for (const Policy& p : layers)
    if (p.active()) active.push_back(p);
  if (active.empty()) return nullptr;
  std::string key;
  for (const Policy& p : active) key += describe(p) + "\n";
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const Sandbox>> cache;
  std::lock_guard lock(mutex);
  if (auto found = cache[key].lock()) return found;
  auto made = std::make_shared<const Sandbox>(std::move(active), kernel_support());
  cache[key] = made;
  return made;
}

std::variant<SpawnConfinement, std::string> Sandbox::for_spawn(const std::string& readable,
                                                               const std::string& exe,
                                                               int fd_floor) const {
  if (!unavailable_.empty()) return unavailable_;
  SpawnConfinement out;
  if (!filter_.empty()) out.child_.filter = program_.get();
  out.child_.hand_off = isolate_;
  if (isolate_ && !filter_.empty()) {
    // The program goes to confine_exec as a file: it is applied after bwrap's set-up.
    const int memfd = ::memfd_create("mcp-shell-host-seccomp", MFD_CLOEXEC);
    if (memfd < 0) return error_text("sandbox: memfd_create");
    const int lifted = ::fcntl(memfd, F_DUPFD_CLOEXEC, fd_floor);
    ::close(memfd);
    if (lifted < 0) return error_text("sandbox: fcntl(F_DUPFD_CLOEXEC)");
    out.child_.filter_fd = lifted;
    if (::pwrite(lifted, filter_.data(), filter_.size(), 0) != static_cast<ssize_t>(filter_.size()))
      return error_text("sandbox: writing the seccomp program");
  }
  if (scratch_root().empty())
    return error_text("sandbox: cannot make a folder for the scratch folders in $TMPDIR or /tmp");
  std::string scratch = scratch_root() + "/call.XXXXXX";
  if (!::mkdtemp(scratch.data())) return error_text("sandbox: mkdtemp " + scratch);
  out.scratch_ = scratch;
  auto fail = [&](std::string why) {
    remove_scratch(out.scratch_);
    return why;
  };
  std::optional<std::vector<std::string>> runnable;  // under exec=
  for (const Policy& p : layers_) {
    if (abi_ == 0) break;  // seccomp alone: only no-network asked for, and it holds that
    ll::RulesetAttr attr{};
    std::size_t size = ll::kRulesetAttrSizeAbi1;
    if (p.confined_writes) attr.handled_access_fs |= write_rights(abi_);
    if (p.reads) attr.handled_access_fs |= kReadRights;
    // exec=: only the programs named (and bash, and their ELF interpreter) may be run.
    const bool execs = p.programs.has_value();
    if (execs) attr.handled_access_fs |= ll::kExecute;
    if (p.network != Policy::Network::kAny && abi_ >= 4) {
      attr.handled_access_net = ll::kBindTcp | ll::kConnectTcp;
      size = ll::kRulesetAttrSizeAbi4;
    }
    if (abi_ >= 6) {
      // Signals (and ptrace, which Landlock scopes at any ABI) stay inside the call.
      attr.scoped = ll::kScopeSignal;
      if (p.network != Policy::Network::kAny) attr.scoped |= ll::kScopeAbstractUnixSocket;
      size = ll::kRulesetAttrSizeAbi6;
    }
    if (attr.handled_access_fs == 0 && attr.handled_access_net == 0 && attr.scoped == 0) continue;
    long fd = create_ruleset(&attr, size, 0);
    if (fd < 0) return fail(error_text("sandbox: landlock_create_ruleset"));
    if (fd < fd_floor) {
      const int lifted = ::fcntl(static_cast<int>(fd), F_DUPFD_CLOEXEC, fd_floor);
      ::close(static_cast<int>(fd));
      if (lifted < 0) return fail(error_text("sandbox: fcntl(F_DUPFD_CLOEXEC)"));
      fd = lifted;
    }
    out.child_.rulesets[out.child_.ruleset_count++] = static_cast<int>(fd);
    out.reads_confined_ += p.reads ? 'r' : 'w';
    const std::uint64_t handled = attr.handled_access_fs;
    // Under exec= nothing the tool may write, nor anything it may read, is executable.
    const std::uint64_t no_exec = execs ? ~ll::kExecute : ~std::uint64_t{0};
    const std::uint64_t all = (kReadRights | write_rights(abi_)) & no_exec;
    const std::uint64_t read_rights = kReadRights & no_exec;
    std::string error;
    auto add = [&](const std::string& path, std::uint64_t rights, bool optional) {
      if (error.empty() && handled != 0)
        error = add_path(static_cast<int>(fd), path, rights, handled, optional);
    };
    add(scratch, all, false);
    for (const auto& path : p.write_paths) add(path, all, false);
    for (const char* device : kWritableDevices)
      add(device, ll::kReadFile | ll::kWriteFile | ll::kTruncate, true);
    if (p.reads) {
      for (const char* path : kSystemReadable) add(path, read_rights, true);
      if (!readable.empty()) add(readable, read_rights, false);
      for (const auto& path : *p.reads) add(path, read_rights, false);
    }
    if (execs) {
      std::vector<std::string> programs = *p.programs;
      programs.push_back(exe);
      auto layer = executables(programs);
      for (const auto& program : layer) add(program, ll::kExecute | ll::kReadFile, false);
      // What every layer lets run (Landlock enforces the intersection; the noexec mounts
      // under isolate must not bind back what only one layer names).
      if (!runnable)
        runnable = std::move(layer);
      else
        std::erase_if(*runnable, [&](const std::string& program) {
          return std::find(layer.begin(), layer.end(), program) == layer.end();
        });
    }
    for (auto port : p.connect_ports) {
      if (!error.empty()) break;
      const ll::NetPortAttr net{ll::kConnectTcp, port};
      if (::syscall(ll::kAddRule, fd, ll::kRuleNetPort, &net, 0) != 0)
        error = error_text("sandbox: landlock_add_rule port " + std::to_string(port));
    }
    if (!error.empty()) return fail(error);
  }
  if (runnable) {
    out.executables_ = "\n";
    for (const auto& program : *runnable) out.executables_ += program + "\n";
  }
  return out;
}

std::vector<std::string> Sandbox::wrap(const SpawnConfinement& spawn, const std::string& exe,
                                       const std::vector<std::string>& args) const {
  std::vector<std::string> argv{bwrap_, "--die-with-parent", "--unshare-pid", "--unshare-ipc",
                                "--unshare-uts"};
  if (own_network_) argv.push_back("--unshare-net");
  const bool root = ::geteuid() == 0;
  // Without root, bwrap can make namespaces only inside a user namespace of its own (ids
  // mapped to the same ones). confine_exec then needs CAP_SYS_ADMIN there for procs= (to
  // make /proc/sys read-only) and drops every capability before it execs the tool.
  if (!root) argv.push_back("--unshare-user");
  if (!root && (procs_ || restricts_programs_))
    argv.insert(argv.end(), {"--cap-add", "CAP_SYS_ADMIN"});
  // The same file system, devices included, bound recursively (Landlock still says what
  // may be read and written), with a /proc of the PID namespace's own.
  argv.insert(argv.end(), {"--dev-bind", "/", "/", "--proc", "/proc"});
  // POSIX shared memory is files in /dev/shm, which the IPC namespace does not cover.
  struct stat shm {};
  if (::stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode))
    argv.insert(argv.end(), {"--tmpfs", "/dev/shm"});
  argv.insert(argv.end(),
              {"--", "/proc/self/fd/" + std::to_string(kHandOffSelfFd), kConfineExecFlag,
               spawn.reads_confined_.empty() ? "-" : spawn.reads_confined_,
               spawn.child_.filter_fd >= 0 ? "1" : "0", std::to_string(procs_),
               spawn.executables_.empty() ? "-" : spawn.executables_, "--", exe});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

namespace {
// This process's scratch root; removed at exit when empty (a forked copy made its own).
struct ScratchRoot {
  std::mutex mutex;
  pid_t owner = -1;
  std::string path;
  ~ScratchRoot() {
    if (owner == ::getpid() && !path.empty()) ::rmdir(path.c_str());
  }
};
ScratchRoot& scratch_state() {
  static ScratchRoot state;
  return state;
}
}  // namespace

const std::string& scratch_root() {
  // One per process: a forked copy of the host (a test's) makes its own, so that its
  // watchdog never empties its parent's.
  ScratchRoot& r = scratch_state();
  std::lock_guard lock(r.mutex);
  if (r.owner != ::getpid()) {
    r.owner = ::getpid();
    const char* tmp = std::getenv("TMPDIR");
    r.path = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/mcp-shell-host.XXXXXX";
    if (!::mkdtemp(r.path.data())) r.path.clear();
  }
  return r.path;
}

void remove_scratch_root() {
  ScratchRoot& r = scratch_state();
  std::lock_guard lock(r.mutex);
  if (r.owner == ::getpid() && !r.path.empty()) remove_tree(AT_FDCWD, r.path.c_str());
  r.owner = -1;
}

namespace {

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void empty_folder_at(int fd, int depth);

void remove_tree_at(int dir, const char* name, int depth) {
  const int fd = static_cast<int>(
      ::syscall(SYS_openat, dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd < 0) {  // not a folder (or a symlink to one): the entry itself goes
    ::syscall(SYS_unlinkat, dir, name, 0);
    return;
  }
  if (depth < 32) empty_folder_at(fd, depth + 1);
  ::syscall(SYS_close, fd);
  ::syscall(SYS_unlinkat, dir, name, AT_REMOVEDIR);
}

void empty_folder_at(int fd, int depth) {
  alignas(8) char entries[2048];
  // Entries removed while the folder is read may shift the rest: read again from the
  // start until a pass finds nothing but "." and "..".
  for (int pass = 0; pass < 64; ++pass) {
    bool removed = false;
    ::syscall(SYS_lseek, fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, entries, sizeof entries);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        auto* e = reinterpret_cast<LinuxDirent64*>(entries + at);
        at += e->d_reclen;
        const char* entry = e->d_name;
        if (entry[0] == '.' && (entry[1] == '\0' || (entry[1] == '.' && entry[2] == '\0')))
          continue;
        if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
          remove_tree_at(fd, entry, depth);
        else
          ::syscall(SYS_unlinkat, fd, entry, 0);
        removed = true;
      }
    }
    if (!removed) break;
  }
}

}  // namespace

void remove_tree(int dir, const char* name) { remove_tree_at(dir, name, 0); }

void empty_folder(int fd) { empty_folder_at(fd, 0); }

void remove_scratch(const std::string& path) {
  if (!path.empty()) remove_tree(AT_FDCWD, path.c_str());
}

}  // namespace mcpsh::sandbox
