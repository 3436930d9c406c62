// Fuzz target: bytes on stdin -> lines on stdout, through the real framing (LineFramer),
// JSON-RPC envelope, _meta gate, argument validation and result shaping, with tool calls
// run by FakeCallRunner (no processes). One input is one client session.
//
// Invariants checked on every input:
//  - every line written is one valid JSON object in valid UTF-8 (wire_check.h);
//  - once input ended and every call was stopped, no call is left in flight and the
//    runner has no run left (nothing lost, nothing leaked).
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  boost::asio::io_context io;
  fuzz::FakeCallRunner runner(io);
  execution::Limits limits;
  limits.max_stdout = 256;  // over-limit output within reach of small inputs
  bool reported = false;
  static const bool echo = std::getenv("MCPSH_FUZZ_ECHO") != nullptr;
  auto check = [&](std::string line) {
    if (echo) std::fprintf(stderr, "< %s\n", printable(line).c_str());
    if (reported) return;
    if (auto fault = fuzz::wire_line_fault(line)) {
      reported = true;
      report_wire_fault(*fault, line, data, size);
    }
  };
  {
    fuzz::ProtocolUnderTest protocol(io, fuzz::fuzz_catalog(), runner, limits, check);
    auto drain = [&] {
      io.restart();
      io.poll();
    };
    transport::LineFramer framer(kMaxLine);
    auto sink = [&](transport::LineFramer::Event e) {
      if (e.oversized_size > 0)
        protocol.oversized(e.oversized_size);
      else
        protocol.line(e.line);
      drain();
    };
    framer.feed(std::string_view(reinterpret_cast<const char*>(data), size), sink);
    framer.finish(sink);
    protocol.input_closed();
    drain();
    protocol.stop_all();
    drain();
    if (protocol.in_flight() != 0 || runner.unfinished() != 0) {
      std::fprintf(stderr, "calls left after stop_all: %zu in flight, %zu runs unfinished\n",
                   protocol.in_flight(), runner.unfinished());
      std::abort();
    }
  }
  return 0;
}
