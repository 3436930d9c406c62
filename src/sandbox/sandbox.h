#pragma once
// A sandbox made ready for spawns (ADR 0012): the policies of its layers (the server's,
// then the tool's) checked against this kernel once, the seccomp program built once.
//
// Layers stack: each becomes a Landlock domain of its own on top of the previous one, so
// the kernel enforces the intersection and a tool's words can only narrow the server's.
//
// Per spawn (for_spawn, on the spawner thread): a fresh scratch folder, and one Landlock
// ruleset per layer that names it (rulesets cannot be copied, and the scratch folder is
// the process's own). Between fork and exec the child applies them with raw system calls
// only (apply_in_child): no_new_privs, each ruleset, then the seccomp filter.
//
// Fails closed: a sandbox this kernel cannot give (no Landlock, or too old an ABI for a
// word) is `unavailable()` with the reason, and the caller does not start the process.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "sandbox/policy.h"

namespace mcpsh::sandbox {

struct KernelSupport {
  int landlock_abi = 0;      // 0: no Landlock (not built in, or disabled at boot)
  bool seccomp = false;      // seccomp filters (SECCOMP_SET_MODE_FILTER)
  std::string landlock_why;  // when landlock_abi is 0: the error that said so
  // Linux 6.14 and later: each PID namespace has its own pid_max (procs=). Before, the
  // file inside a namespace is the machine's own: writing it there is never done.
  bool pid_namespace_max = false;
  std::string release;  // uname -r
};
// Probed on first use; the same answer afterwards.
const KernelSupport& kernel_support();

// Under isolate the child does not apply its rulesets and filter itself: bwrap must still
// make namespaces and mounts, which both forbid. It hands them on instead, as descriptors
// kHandOffFd (rulesets, in order) and kHandOffFd + kMaxLayers (the filter's program), to
// the host binary that bwrap runs inside them (confine_exec.h), which applies them and
// execs the tool.
inline constexpr int kHandOffFd = 6;
// And the host's binary, which bwrap runs as /proc/self/fd/9 (confine_exec closes it).
inline constexpr int kHandOffSelfFd = kHandOffFd + 3;

// What the child applies between fork and exec: plain data, no ownership.
struct ChildConfinement {
  static constexpr int kMaxLayers = 2;
  int rulesets[kMaxLayers] = {-1, -1};
  int ruleset_count = 0;
  const void* filter = nullptr;  // a struct sock_fprog, or null
  bool hand_off = false;         // isolate: hand rulesets and filter_fd on (above)
  int filter_fd = -1;            // with hand_off: a memfd holding the filter's program
  int self_fd = -1;              // with hand_off: the host's binary (O_PATH), not owned
  bool active() const { return ruleset_count > 0 || filter != nullptr || hand_off; }
};

// In the forked child, before exec. Raw system calls only: no allocation, no locks.
// Returns 0, or the step that failed (1..4, see child_step_name) with errno set.
int apply_in_child(const ChildConfinement& confinement);
// "landlock_restrict_self" for a step apply_in_child returned.
const char* child_step_name(int step);

// One spawn's share: the scratch folder (removed by remove_scratch once the process has
// ended) and the rulesets, closed when this is destroyed (after the fork).
class SpawnConfinement {
 public:
  SpawnConfinement() = default;
  SpawnConfinement(SpawnConfinement&&) noexcept;
  SpawnConfinement& operator=(SpawnConfinement&&) noexcept;
  ~SpawnConfinement();
  const std::string& scratch() const { return scratch_; }
  const ChildConfinement& child() const { return child_; }

 private:
  friend class Sandbox;
  void close_all();
  std::string scratch_;
  ChildConfinement child_;
  std::string reads_confined_;  // per ruleset, 'r' when it confines reads, else 'w'
  // Under exec=: every program some layer lets run (with bash and ELF interpreters),
  // "\n"-separated with a "\n" at each end; "" when no layer restricts programs.
  std::string executables_;
};

class Sandbox {
 public:
  // Inactive layers are dropped; null when none is left (no sandbox at all). Equal layer
  // stacks share one Sandbox (a process-wide cache), so the pointer identifies it.
  static std::shared_ptr<const Sandbox> prepare(const std::vector<Policy>& layers);

  // Non-empty: this kernel cannot give it, and why. Nothing may run under it.
  const std::string& unavailable() const { return unavailable_; }
  // "read-only,no-network", or the layers joined with " then ".
  const std::string& description() const { return description_; }
  // What a process gets here, in words (for `check`), e.g. "Landlock ABI 7 (files,
  // TCP ports, signals), seccomp".
  const std::string& enforcement() const { return enforcement_; }

  // Makes the scratch folder and the rulesets for one process. `readable` is a folder
  // every layer that confines reads must still let it read (the script's own); `exe` the
  // program the process starts as (bash), which a layer with exec= must still let run. The
  // rulesets' descriptors are numbered `fd_floor` or above (below it the child moves its
  // own descriptors into place). Any thread. The error names the step and the path.
  std::variant<SpawnConfinement, std::string> for_spawn(const std::string& readable,
                                                        const std::string& exe, int fd_floor) const;

  // isolate: processes start through bwrap. wrap() gives the command line that runs
  // `exe args` inside its namespaces, through this host's binary (handed on as
  // kHandOffSelfFd) applying what `spawn` hands on; the first element is bwrap's absolute
  // path.
  bool isolates() const { return isolate_; }
  std::vector<std::string> wrap(const SpawnConfinement& spawn, const std::string& exe,
                                const std::vector<std::string>& args) const;

  Sandbox(std::vector<Policy> layers, const KernelSupport& kernel);  // use prepare()
  ~Sandbox();

 private:
  std::vector<Policy> layers_;
  int abi_ = 0;
  bool isolate_ = false, own_network_ = false, restricts_programs_ = false;
  std::uint32_t procs_ = 0;  // 0: no cap
  std::string bwrap_;        // its absolute path, with isolate
  std::string unavailable_, description_, enforcement_;
  std::vector<unsigned char> filter_;         // struct sock_filter[], as built by libseccomp
  std::unique_ptr<unsigned char[]> program_;  // struct sock_fprog pointing into filter_
};

// The folder this process's scratch folders are made in: $TMPDIR (or /tmp) +
// "/mcp-shell-host.XXXXXX" (mkdtemp, mode 0700), made on the first call; "" when it cannot
// be made. Removed at exit when empty. A forked copy of the process gets one of its own. The runner
// makes it before it forks its watchdog, which removes what a host killed with SIGKILL left there
// (execution/watchdog.h).
const std::string& scratch_root();

// Removes `name` in the folder open on `dir` (or AT_FDCWD) with everything under it,
// following no symlink: each folder is opened relative to its parent with O_NOFOLLOW and
// its entries are unlinked relative to it, so a tool swapping a folder for a symlink
// meanwhile cannot redirect the removal. Depth 32 at most. Raw system calls and stack
// buffers only: also safe in a forked child.
void remove_tree(int dir, const char* name);
// Removes this process's scratch root with whatever is left in it, if this process made
// one: for a process that ends with _exit, which skips the removal at exit.
void remove_scratch_root();
// The same for everything inside the folder open on `fd` (which stays).
void empty_folder(int fd);
// remove_tree of a scratch folder. Any thread.
void remove_scratch(const std::string& path);

}  // namespace mcpsh::sandbox
