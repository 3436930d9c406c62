#pragma once
// The seccomp program every sandboxed process gets, built with libseccomp (ADR 0012):
// system calls a shell tool never needs fail with EPERM, and sockets are refused with
// EACCES as the network policy says. Everything else is allowed: this is a deny list
// that narrows the kernel's surface, not the file or network policy itself (Landlock
// holds that).
#include <string>
#include <variant>
#include <vector>

#include "sandbox/policy.h"

namespace mcpsh::sandbox {

// The program's instructions (struct sock_filter[], native endianness), or why libseccomp
// could not build them. `network` is the strictest of the layers' network policies;
// `confined_writes`: some layer confines writes, so changes of modes, owners and extended
// attributes (which Landlock does not see) are refused too, everywhere; `confined_programs`:
// some layer says exec=, so memfd_create is refused (an anonymous file is outside every
// path rule, and could be exec'd).
std::variant<std::vector<unsigned char>, std::string> build_syscall_filter(Policy::Network network,
                                                                           bool confined_writes,
                                                                           bool confined_programs);

}  // namespace mcpsh::sandbox
