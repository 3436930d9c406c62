#include "sandbox/confine_exec.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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
  fail(std::string(kConfineExecFlag) + " LAYERS FILTER PROCS -- EXE ARGS...");
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

void apply_rulesets(std::string_view layers) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const int fd = kHandOffFd + static_cast<int>(i);
    if (layers[i] == 'r') {
      const int proc = ::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (proc < 0) fail("open /proc");
      const ll::PathBeneathAttr rule{ll::kReadFile | ll::kReadDir | ll::kExecute, proc};
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
  if (argc < 7 || std::string_view(argv[5]) != "--") usage();
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

  if (procs > 0) cap_processes(procs);
  if (::getuid() != 0) drop_capabilities();
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  apply_rulesets(layers);
  if (filter == "1") load_filter();
  // The host's child ignored SIGTERM for bwrap's sake (execution/child_setup.cc); the tool
  // gets it as a signal again, and bash its trap.
  ::signal(SIGTERM, SIG_DFL);
  ::execve(argv[6], argv + 6, environ);
  fail(std::string("exec ") + argv[6]);
}

}  // namespace mcpsh::sandbox
