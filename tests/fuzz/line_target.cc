// Fuzz target: bytes on stdin -> lines on stdout, through the real framing (LineFramer),
// JSON-RPC envelope, _meta gate, argument validation and result shaping, with tool calls
// run by FakeCallRunner (no processes). One input is one client session on a fresh
// connection to one protocol core built at the first input.
//
// Invariants checked on every input:
//  - every line written, and every audit log line, is one valid JSON object in valid UTF-8
//    (wire_check.h);
//  - once input ended and every call was stopped, no call is left in flight and the
//    runner has no run left (nothing lost, nothing leaked), and nothing still holds the
//    session's connection (nothing carried over into the next input).
// A violation of the first crashes (kWireDefault); MCPSH_FUZZ_WIRE=report counts and prints
// violations instead (and saves the input to $MCPSH_FUZZ_FINDINGS when set, the first 20 of
// each kind). MCPSH_FUZZ_ECHO=1 prints every line written (for reading a reproducer).
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "fake_call_runner.h"
#include "fuzz_catalog.h"
#include "protocol_adapter.h"
#include "transport/line_framer.h"
#include "wire_check.h"

namespace {

using namespace mcpsh;

enum class WireMode { kReport, kAbort };
constexpr WireMode kWireDefault = WireMode::kAbort;

// Small enough that inputs of a few KiB reach the oversized-line path.
constexpr std::size_t kMaxLine = 1024;

WireMode wire_mode() {
  static const WireMode mode = [] {
    const char* v = std::getenv("MCPSH_FUZZ_WIRE");
    if (!v) return kWireDefault;
    return std::strcmp(v, "abort") == 0 ? WireMode::kAbort : WireMode::kReport;
  }();
  return mode;
}

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 300)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > 300) out += "...";
  return out;
}

struct WireFindings {
  std::map<std::string, std::uint64_t> by_kind;  // kind = the fault text up to " at byte"
  ~WireFindings() {
    for (const auto& [kind, count] : by_kind)
      std::fprintf(stderr, "wire finding (known, reported): %s: %llu inputs\n", kind.c_str(),
                   static_cast<unsigned long long>(count));
  }
};
WireFindings findings;

void report_wire_fault(const std::string& fault, std::string_view line, const std::uint8_t* data,
                       std::size_t size) {
  if (wire_mode() == WireMode::kAbort) {
    std::fprintf(stderr, "wire fault: %s\nline: %s\n", fault.c_str(), printable(line).c_str());
    std::abort();
  }
  std::string kind = fault.substr(0, fault.find(" at byte"));
  std::uint64_t seen = findings.by_kind[kind]++;
  if (seen == 0)
    std::fprintf(stderr, "wire finding: %s\nline: %s\n", fault.c_str(), printable(line).c_str());
  // A few reproducers per kind: every mutation of one finding would be thousands of files.
  if (const char* dir = std::getenv("MCPSH_FUZZ_FINDINGS"); dir && seen < 20) {
    std::size_t h =
        std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(data), size));
    std::ofstream(std::string(dir) + "/wire-" + std::to_string(h), std::ios::binary)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
}

// Built once for the whole run: compiling the catalog's schemas and rendering its tools
// list cost more than most inputs. Each input is a session on a fresh connection; close()
// and the checks after stop_all() make sure nothing of one input reaches the next.
struct Host {
  boost::asio::io_context io;
  fuzz::FakeCallRunner runner{io};
  fuzz::ProtocolUnderTest protocol{io, fuzz::fuzz_catalog(), runner, limits()};

  static execution::Limits limits() {
    execution::Limits l;
    l.max_stdout = 256;  // over-limit output within reach of small inputs
    return l;
  }
  void drain() {
    io.restart();
    io.poll();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Host host;
  auto& protocol = host.protocol;
  bool reported = false;
  static const bool echo = std::getenv("MCPSH_FUZZ_ECHO") != nullptr;
  auto check = [&](bool audit, const std::string& line) {
    if (echo) std::fprintf(stderr, "%s %s\n", audit ? "audit" : "<", printable(line).c_str());
    if (reported) return;
    if (auto fault = fuzz::wire_line_fault(line)) {
      reported = true;
      report_wire_fault((audit ? "audit line: " : "") + *fault, line, data, size);
    }
  };
  protocol.open([&](std::string line) { check(false, line); },
                [&](std::string line) { check(true, line); });
  transport::LineFramer framer(kMaxLine);
  auto sink = [&](transport::LineFramer::Event e) {
    if (e.oversized_size > 0)
      protocol.oversized(e.oversized_size);
    else
      protocol.line(e.line);
    host.drain();
  };
  framer.feed(std::string_view(reinterpret_cast<const char*>(data), size), sink);
  framer.finish(sink);
  protocol.input_closed();
  host.drain();
  protocol.stop_all();
  host.drain();
  if (protocol.in_flight() != 0 || protocol.queued() != 0 || host.runner.unfinished() != 0) {
    std::fprintf(stderr,
                 "calls left after stop_all: %zu in flight, %zu queued, %zu runs unfinished\n",
                 protocol.in_flight(), protocol.queued(), host.runner.unfinished());
    std::abort();
  }
  if (!protocol.close()) {
    std::fprintf(stderr, "the session's connection outlived it (held by a call or callback)\n");
    std::abort();
  }
  return 0;
}
