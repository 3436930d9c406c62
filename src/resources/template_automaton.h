#pragma once
// The automaton a URI template compiles to, for template_matcher. It reads a URI as a
// sequence of "units" (a raw byte, or one pct-encoded triplet together with the byte it
// encodes), so that a value's characters and a literal's triplets are one step each.
//
// Priorities: where a fork lists several targets, the first is preferred; the compiler
// lists the longer or present alternative first, which gives the greedy rule of
// uri_template.h. Every loop consumes a unit, so following the instructions that consume
// nothing always ends.
#include <cstdint>
#include <string>
#include <vector>

#include "resources/template_parts.h"

namespace mcpsh::resources::detail {

enum class Op : std::uint8_t {
  kRawByte,     // consumes a raw byte in `set`
  kPctRange,    // consumes a pct-encoded triplet whose byte is in [lo, hi]
  kPctExact,    // consumes a pct-encoded triplet written exactly as hex[0] hex[1]
  kCodePoint,   // consumes a raw byte in `set`, or the first pct-encoded byte of a valid
                // UTF-8 character (not NUL): to `next` for one byte, else to the
                // continuation instruction in `targets` for that lead byte
  kFork,        // continues at each of `targets`, in priority order
  kSave,        // records the current position in capture slot `arg`
  kCountChar,   // counts one code point; the thread dies past `arg` code points
  kResetCount,  // the code point count starts again at 0
  kMarkName,    // dies when bit `arg` of the name mask is set, else sets it
  kClearMask,   // the name mask starts again empty
  kMatch,       // the whole template matched (a success only at the end of the URI)
};
struct Inst {
  Op op;
  std::uint8_t lo = 0, hi = 0;
  char hex[2] = {0, 0};
  int arg = 0;
  int next = -1;                        // the following instruction (all but kFork and kMatch)
  std::vector<int> targets;             // kFork; kCodePoint, indexed by Route
  std::uint64_t set[4] = {0, 0, 0, 0};  // kRawByte, kCodePoint: a bit per byte value
};

// One use of a variable in the template; its capture slots are 2*i and 2*i + 1.
struct Occurrence {
  std::string name;
  int prefix;  // 0: none
};

// kCodePoint: where a pct-encoded lead byte sends the thread (indices into `targets`).
enum Route {
  kAfterC2toDF,
  kAfterE0,
  kAfterE1toEF,  // but ED
  kAfterED,
  kAfterF0,
  kAfterF1toF3,
  kAfterF4,
  kRouteCount,
};

struct Automaton {
  std::vector<Inst> program;
  int start = 0;  // the first instruction
  std::vector<Occurrence> occurrences;
};

// `parts` must come from UriTemplate::parse (valid names and literals, at most
// kMaxVariablesPerExpression variables per expression).
Automaton compile_automaton(const std::vector<Part>& parts);

}  // namespace mcpsh::resources::detail
