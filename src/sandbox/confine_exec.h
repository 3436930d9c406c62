#pragma once
// The last step of an `isolate` sandbox (ADR 0017), inside bwrap's namespaces: the host's
// own binary, started as
//
//   mcp-shell-host --confine-exec LAYERS FILTER PROCS PROGRAMS -- EXE ARGS...
//
// with the rulesets at descriptors kHandOffFd... and the seccomp program at
// kHandOffFd + kMaxLayers (sandbox.h). LAYERS has one letter per ruleset, 'r' for one that
// confines reads ("-" for none); FILTER is 1 when the program is there; PROCS is the cap
// on processes, 0 for none; PROGRAMS, under exec=, the programs that may run, one per
// line ("-" for any). It
//  1. with PROCS, sets the PID namespace's pid_max to PROCS + 1 and makes /proc/sys read
//     only (the seccomp filter then refuses the mount that would undo it);
//  2. with PROGRAMS, remounts every mount noexec but the library folders and those
//     programs (bound over themselves), so that the ELF loader cannot map another program
//     or a file the tool wrote;
//  3. drops every capability when it runs as another user than root (bwrap's user
//     namespace gave CAP_SYS_ADMIN for steps 1 and 2 only);
//  4. sets no_new_privs; lets rulesets that confine reads read this namespace's /proc (a
//     new mount, which the rulesets made outside do not name); restricts itself with each
//     ruleset, loads the filter and closes the descriptors;
//  5. gives SIGTERM its default action back (the host's child ignored it, so that bwrap
//     outlives it and the tool gets its grace period) and execs EXE with its environment.
// Any failure is written to stderr, where the tool's own would go, and ends the process
// with status 125 before the tool started: a sandbox that cannot be set up never runs it.
namespace mcpsh::sandbox {

inline constexpr const char* kConfineExecFlag = "--confine-exec";

// main() of that mode; returns only a failure's exit status.
int confine_exec(int argc, char** argv);

}  // namespace mcpsh::sandbox
