#pragma once
// The host as a service: what a service manager (systemd, or anything that speaks its
// documented protocols) hands it, and what it tells the manager back.
//
//  - Socket activation, sd_listen_fds(3): LISTEN_PID names this process and LISTEN_FDS
//    counts descriptors passed from 3 on (LISTEN_FDNAMES, when set, names them).
//  - Readiness, sd_notify(3): newline-separated assignments ("READY=1", "STOPPING=1",
//    "STATUS=...") in one datagram to the AF_UNIX socket NOTIFY_SOCKET names (a path, or
//    "@name" in the abstract namespace).
//
// Both are read once, at start, and removed from the environment, so that no discovery
// probe or tool inherits them: a tool must neither take the host's socket nor speak for
// it. The protocols are small and stable, and documented for reimplementation, so no
// library is linked for them (adr/0015).
#include <string>
#include <vector>

namespace mcpsh::service {

struct ServiceManager {
  std::vector<int> sockets;   // passed descriptors, close-on-exec from now on
  std::string error;          // LISTEN_* named this process but could not be used
  std::string notify_socket;  // where to send notifications; empty: nobody listens

  // Sends `message` (e.g. "READY=1\nSTATUS=serving") when there is a manager to tell.
  // Best effort: returns false when it could not be sent (a manager that went away must
  // not stop the host).
  bool notify(const std::string& message) const;
};

// Reads the variables and unsets them. Call before the first child process starts.
ServiceManager take_from_environment();

// What SIGHUP means to a server, by how it was started. Call before any handler for
// SIGHUP is installed.
enum class Hangup {
  kIgnored,  // it was ignored when the host started (nohup): it stays ignored
  kStop,     // the host has a controlling terminal: its hangup ends the host
  kReload,   // a daemon (a service manager, a container, setsid): reload, as daemons do
};
Hangup hangup_meaning();

}  // namespace mcpsh::service
