#pragma once
// The Landlock interface up to ABI 7, defined here because the kernel headers we build
// against (Debian 12: ABI 2) stop earlier. The values are the kernel's UAPI
// (include/uapi/linux/landlock.h); the structures grow only at their end, and the size
// passed to landlock_create_ruleset tells the kernel which fields we know, so a ruleset
// built for an older kernel passes only the fields that kernel has.
#include <sys/syscall.h>

#include <cstddef>
#include <cstdint>

namespace mcpsh::sandbox::landlock {

#ifndef __NR_landlock_create_ruleset
inline constexpr long kCreateRuleset = 444;
inline constexpr long kAddRule = 445;
inline constexpr long kRestrictSelf = 446;
#else
inline constexpr long kCreateRuleset = __NR_landlock_create_ruleset;
inline constexpr long kAddRule = __NR_landlock_add_rule;
inline constexpr long kRestrictSelf = __NR_landlock_restrict_self;
#endif

inline constexpr std::uint32_t kCreateRulesetVersion = 1U << 0;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};
inline constexpr std::size_t kRulesetAttrSizeAbi1 = offsetof(RulesetAttr, handled_access_net);
inline constexpr std::size_t kRulesetAttrSizeAbi4 = offsetof(RulesetAttr, scoped);
inline constexpr std::size_t kRulesetAttrSizeAbi6 = sizeof(RulesetAttr);

inline constexpr int kRulePathBeneath = 1;
inline constexpr int kRuleNetPort = 2;  // ABI 4

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

struct NetPortAttr {
  std::uint64_t allowed_access;
  std::uint64_t port;
};

// File system rights (ABI 1 unless noted).
inline constexpr std::uint64_t kExecute = 1ULL << 0;
inline constexpr std::uint64_t kWriteFile = 1ULL << 1;
inline constexpr std::uint64_t kReadFile = 1ULL << 2;
inline constexpr std::uint64_t kReadDir = 1ULL << 3;
inline constexpr std::uint64_t kRemoveDir = 1ULL << 4;
inline constexpr std::uint64_t kRemoveFile = 1ULL << 5;
inline constexpr std::uint64_t kMakeChar = 1ULL << 6;
inline constexpr std::uint64_t kMakeDir = 1ULL << 7;
inline constexpr std::uint64_t kMakeReg = 1ULL << 8;
inline constexpr std::uint64_t kMakeSock = 1ULL << 9;
inline constexpr std::uint64_t kMakeFifo = 1ULL << 10;
inline constexpr std::uint64_t kMakeBlock = 1ULL << 11;
inline constexpr std::uint64_t kMakeSym = 1ULL << 12;
inline constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
inline constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
inline constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5

// Network rights (ABI 4).
inline constexpr std::uint64_t kBindTcp = 1ULL << 0;
inline constexpr std::uint64_t kConnectTcp = 1ULL << 1;

// Scopes (ABI 6): what a process may reach outside its own domain.
inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;
inline constexpr std::uint64_t kScopeSignal = 1ULL << 1;

// Rights that may be granted on a regular file (not only on a folder).
inline constexpr std::uint64_t kFileRights =
    kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

}  // namespace mcpsh::sandbox::landlock
