#include "sandbox/confine_exec.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/landlock_abi.h"
#include "sandbox/sandbox.h"

extern char** environ;

namespace mcpsh::sandbox {

namespace ll = landlock;

namespace {

constexpr int kFailed = 125;  // as a child whose set-up failed (execution/child_setup.h)

[[noreturn]] void fail(const std::string& what) {
  const std::string line = "mcp-shell-host: sandbox: " + what + ": " + std::strerror(errno) + "\n";
  [[maybe_unused]] auto written = ::write(2, line.data(), line.size());
  ::_exit(kFailed);
}

[[noreturn]] void usage() {
  errno = EINVAL;
  fail(std::string(kConfineExecFlag) + " LAYERS FILTER PROCS PROGRAMS -- EXE ARGS...");
}

// Step 1: the cap on processes. pid_max is this PID namespace's own (the host checked the
// kernel: 6.14 or later), and bwrap gave the namespace a /proc of its own.
void cap_processes(std::uint32_t procs) {
  const int fd = ::open("/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("open /proc/sys/kernel/pid_max");
  const std::string value = std::to_string(procs + 1) + "\n";
  if (::write(fd, value.data(), value.size()) != static_cast<ssize_t>(value.size()))
    fail("write /proc/sys/kernel/pid_max");
  ::close(fd);
  // Writable by root of the namespace, so also by a tool running as root: made read only
  // by a bind mount on itself, which the seccomp filter (no mount) keeps in place.
  if (::mount("/proc/sys", "/proc/sys", nullptr, MS_BIND | MS_REC, nullptr) != 0)
    fail("bind mount /proc/sys");
  if (::mount(nullptr, "/proc/sys", nullptr,
              MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    fail("remount /proc/sys read only");
}

// Step 3, for a host that is not root: what bwrap's user namespace granted goes.
void drop_capabilities() {
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    fail("prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
  // The bounding set needs CAP_SETPCAP, which bwrap may not have granted (EPERM): it only
  // bounds what an exec could gain, and no_new_privs (set below) already gains nothing.
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM)
      fail("prctl(PR_CAPBSET_DROP)");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &header, data) != 0) fail("capset");
}

// statvfs flags as the mount flags a bind remount must repeat (those a user namespace
// locks, and the atime ones), and whether the mount is noexec.
unsigned long mount_flags(const char* path) {
  struct statvfs st {};
  if (::statvfs(path, &st) != 0) return 0;
  unsigned long flags = 0;
  if (st.f_flag & ST_RDONLY) flags |= MS_RDONLY;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
#ifdef ST_NOSYMFOLLOW
  if (st.f_flag & ST_NOSYMFOLLOW) flags |= MS_NOSYMFOLLOW;
#endif
  return flags;
}

// "\040" and the like in a mountinfo path, back to the bytes.
std::string unescape(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

// Step 2 under exec=: every mount noexec but the library folders and the programs allowed,
// so that neither the ELF loader run by hand (`ld.so /usr/bin/prog`, which maps the program
// itself) nor a file the tool wrote can run what Landlock's EXECUTE right would refuse.
void confine_programs(std::string_view list) {
  std::vector<std::string> programs;
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = list.find('\n', at);
    const std::string_view one = list.substr(at, end - at);
    if (!one.empty()) programs.emplace_back(one);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  // Held before the mounts change, to bind them back from where they were.
  std::vector<int> held;
  for (const auto& program : programs) {
    const int fd = ::open(program.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) fail("open " + program);
    held.push_back(fd);
  }
  // Mounts that appear on the host later must not arrive here executable: no propagation.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    fail("make the mounts private");
  FILE* info = std::fopen("/proc/self/mountinfo", "re");
  if (!info) fail("open /proc/self/mountinfo");
  std::vector<std::string> points;
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, info) > 0) {
    // ID PARENT MAJ:MIN ROOT MOUNT-POINT ...
    std::string_view rest = line;
    for (int skip = 0; skip < 4 && !rest.empty(); ++skip) rest.remove_prefix(rest.find(' ') + 1);
    points.push_back(unescape(rest.substr(0, rest.find(' '))));
  }
  std::free(line);
  std::fclose(info);
  for (const auto& point : points) {
    const unsigned long flags = mount_flags(point.c_str());
    if (flags & MS_NOEXEC) continue;
    // ENOENT: under a later mount; EACCES: behind a folder this user cannot enter. The
    // tool, with the same ids and fewer capabilities, cannot reach either.
    if (::mount(nullptr, point.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_NOEXEC | flags,
                nullptr) != 0 &&
        errno != ENOENT && errno != EACCES)
      fail("remount " + point + " noexec");
  }
  // The shared libraries of every program must still map executable. A folder only where
  // it is one (with merged /usr, /lib* are symlinks to /usr/lib*). Read only, so that
  // nothing the tool writes lands where it could run.
  auto exec_again = [](const std::string& source, const std::string& target) {
    if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      fail("bind mount " + target);
    const unsigned long flags = (mount_flags(target.c_str()) & ~MS_NOEXEC) | MS_RDONLY;
    if (::mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_BIND | flags, nullptr) != 0)
      fail("remount " + target + " executable");
  };
  for (const char* folder : {"/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/lib",
                             "/lib64", "/lib32", "/libx32"}) {
    struct stat st {};
    if (::lstat(folder, &st) == 0 && S_ISDIR(st.st_mode)) exec_again(folder, folder);
  }
  for (std::size_t i = 0; i < programs.size(); ++i) {
    exec_again("/proc/self/fd/" + std::to_string(held[i]), programs[i]);
    ::close(held[i]);
  }
}

void apply_rulesets(std::string_view layers) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const int fd = kHandOffFd + static_cast<int>(i);
    if (layers[i] == 'r') {
      const int proc = ::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (proc < 0) fail("open /proc");
      const ll::PathBeneathAttr rule{ll::kReadFile | ll::kReadDir, proc};
      if (::syscall(ll::kAddRule, fd, ll::kRulePathBeneath, &rule, 0) != 0)
        fail("landlock_add_rule /proc");
      ::close(proc);
    }
    if (::syscall(ll::kRestrictSelf, fd, 0) != 0) fail("landlock_restrict_self");
    ::close(fd);
  }
}

void load_filter() {
  const int fd = kHandOffFd + ChildConfinement::kMaxLayers;
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("fstat of the seccomp program");
  std::vector<sock_filter> program(static_cast<std::size_t>(st.st_size) / sizeof(sock_filter));
  const std::size_t bytes = program.size() * sizeof(sock_filter);
  if (program.empty() || ::pread(fd, program.data(), bytes, 0) != static_cast<ssize_t>(bytes))
    fail("reading the seccomp program");
  ::close(fd);
  sock_fprog prog{static_cast<unsigned short>(program.size()), program.data()};
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    fail("seccomp(SECCOMP_SET_MODE_FILTER)");
}

}  // namespace

int confine_exec(int argc, char** argv) {
  if (argc < 8 || std::string_view(argv[6]) != "--") usage();
  // Only inside the PID namespace bwrap made, where this is the process after its init:
  // run by hand elsewhere, as root, it would cap the machine's processes and remount its
  // file systems.
  if (::getpid() != 2) {
    errno = EPERM;
    fail(std::string(kConfineExecFlag) + " runs only as the command of an isolate sandbox");
  }
  ::close(kHandOffSelfFd);  // this binary, which bwrap ran: nothing of it for the tool
  std::string_view layers = argv[2];
  if (layers == "-") layers = {};
  if (layers.size() > static_cast<std::size_t>(ChildConfinement::kMaxLayers) ||
      layers.find_first_not_of("rw") != std::string_view::npos)
    usage();
  const std::string_view filter = argv[3], procs_text = argv[4];
  std::uint32_t procs = 0;
  auto [end, ec] = std::from_chars(procs_text.data(), procs_text.data() + procs_text.size(), procs);
  if (ec != std::errc{} || end != procs_text.data() + procs_text.size() ||
      (filter != "0" && filter != "1"))
    usage();

  const std::string_view programs = argv[5];
  if (procs > 0) cap_processes(procs);
  if (programs != "-") confine_programs(programs);
  if (::geteuid() != 0) drop_capabilities();
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  apply_rulesets(layers);
  if (filter == "1") load_filter();
  // The host's child ignored SIGTERM for bwrap's sake (execution/child_setup.cc); the tool
  // gets it as a signal again, and bash its trap.
  ::signal(SIGTERM, SIG_DFL);
  ::execve(argv[7], argv + 7, environ);
  fail(std::string("exec ") + argv[7]);
}

}  // namespace mcpsh::sandbox
