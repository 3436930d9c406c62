#pragma once
// What a tool may do, in the words an author or operator writes (`# @sandbox ...`,
// `--sandbox ...`): comma-separated, each word one restriction or one exception to it.
//
//   read-only        writes only to the call's scratch directory ($TMPDIR) and to
//                    /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom; no
//                    chmod, chown or xattr changes anywhere; everything stays readable
//   write=PATH       also writes under PATH (implies read-only for the rest)
//   read=PATH        reads only under PATH, the system folders (/usr, /etc, /bin, /lib*,
//                    /dev, /proc), the script's own folder and the write paths
//   no-network       no sockets but Unix ones: no TCP, UDP, raw or netlink
//   connect=PORT     outbound TCP to PORT only (repeatable); no bind, listen, UDP,
//                    MPTCP or TCP Fast Open sendto
//   exec=PROG        starts no program but bash and PROG (repeatable; a name is looked up on
//                    PATH when the words are read); under isolate also none through the
//                    ELF loader or from a file it wrote (ADR 0017)
//   isolate          namespaces of its own through bwrap (ADR 0017): PID (its /proc shows
//                    and its signals reach only the call's processes, all of which end
//                    with the call), IPC, UTS, and network with no-network
//   procs=N          isolate, and at most N processes at once (N >= kMinProcs): a fork
//                    bomb stops there
//   none             no sandbox (server-wide only: a tool cannot widen the server's)
//
// Any sandbox also sets no_new_privs (setuid and file capabilities are ignored), refuses
// the system calls a tool never needs (ptrace, mount, bpf, kexec, io_uring...) and, where
// the kernel can (Landlock ABI 6), keeps signals inside the call.
//
// PATH is absolute or relative to `base` (a tool's script folder, or the host's working
// directory for --sandbox); it is kept as written, made absolute, and must exist when a
// process starts. Words repeat and combine; unknown words and malformed values are errors.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::sandbox {

// The least procs= takes. A PID namespace's own pid_max cannot go below 301, and once its
// numbers wrap they restart at 300: a smaller cap would leave a long-running tool almost
// none (see ADR 0017).
inline constexpr std::uint32_t kMinProcs = 512;

struct Policy {
  bool confined_writes = false;                   // read-only or any write=
  std::vector<std::string> write_paths;           // absolute
  std::optional<std::vector<std::string>> reads;  // absolute; set: reads are confined too
  enum class Network { kAny, kNone, kPorts } network = Network::kAny;
  std::vector<std::uint16_t> connect_ports;          // with kPorts, sorted, unique
  std::optional<std::vector<std::string>> programs;  // exec=: absolute; set: only these run
  bool isolate = false;                              // isolate or procs=
  std::optional<std::uint32_t> procs;                // procs=N

  // True when the policy restricts anything (a `none` or empty policy does not).
  bool active() const;
  bool operator==(const Policy&) const = default;
};

// The words, or "sandbox: ..." saying what is wrong with them.
std::variant<Policy, std::string> parse_policy(std::string_view words, const std::string& base);

// `name` on this process's PATH (its absolute directories), as an absolute path; "" when
// it is not there.
std::string find_on_path(std::string_view name);

// The canonical words of a policy ("read-only,no-network", "none"), for the audit log and
// `check`; parse_policy of it gives the same policy back.
std::string describe(const Policy& policy);

}  // namespace mcpsh::sandbox
