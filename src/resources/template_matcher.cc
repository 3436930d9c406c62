#include "resources/template_matcher.h"

#include <algorithm>
#include <utility>

namespace mcpsh::resources::detail {

namespace {

// One position of the URI: a raw byte, or a pct-encoded triplet and the byte it encodes.
struct Unit {
  bool pct;
  std::uint8_t byte;
  char hex[2];
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool in_set(const Inst& inst, std::uint8_t byte) {
  return (inst.set[byte / 64] >> (byte % 64) & 1) != 0;
}

// The first byte of a pct-encoded UTF-8 character decides what must follow it.
int route_of_lead_byte(const Inst& inst, std::uint8_t b) {
  if (b >= 0x01 && b <= 0x7F) return inst.next;
  if (b >= 0xC2 && b <= 0xDF) return inst.targets[kAfterC2toDF];
  if (b == 0xE0) return inst.targets[kAfterE0];
  if (b == 0xED) return inst.targets[kAfterED];
  if (b >= 0xE1 && b <= 0xEF) return inst.targets[kAfterE1toEF];
  if (b == 0xF0) return inst.targets[kAfterF0];
  if (b >= 0xF1 && b <= 0xF3) return inst.targets[kAfterF1toF3];
  if (b == 0xF4) return inst.targets[kAfterF4];
  return -1;  // NUL, continuation bytes, C0, C1, F5..FF
}

// Where a thread at `inst` goes when it consumes `unit`; -1 when it cannot.
int step(const Inst& inst, const Unit& unit) {
  switch (inst.op) {
    case Op::kRawByte:
      return !unit.pct && in_set(inst, unit.byte) ? inst.next : -1;
    case Op::kPctRange:
      return unit.pct && unit.byte >= inst.lo && unit.byte <= inst.hi ? inst.next : -1;
    case Op::kPctExact:
      return unit.pct && unit.hex[0] == inst.hex[0] && unit.hex[1] == inst.hex[1] ? inst.next : -1;
    case Op::kCodePoint:
      if (!unit.pct) return in_set(inst, unit.byte) ? inst.next : -1;
      return route_of_lead_byte(inst, unit.byte);
    default:
      return -1;
  }
}

// The Thompson simulation. A thread's future depends on its instruction, its code point
// count and its name mask only; a thread at the same instruction as a thread of higher
// priority whose count is no larger and whose mask is a subset can do nothing the other
// cannot, so it is dropped. A thread that survives next to another carries a weaker
// constraint than every thread before it in that state. Under the greedy priorities the
// preferred thread has usually entered its value or expression last, so its count and
// mask are the smallest and one thread per state is the norm (extra_ stays short).
//
// Captures are not copied from thread to thread: each kSave appends a record to a shared
// history, and a thread holds the index of its latest record (records link to the one
// before), so forking a thread costs nothing.
class Simulation {
 public:
  Simulation(const std::vector<Inst>& program, std::size_t slots)
      : program_(program), slots_(slots), stamp_(program.size(), 0), first_(program.size()) {}

  // The capture slots of the thread of highest priority that matched all of `units`
  // (-1: never saved).
  std::optional<std::vector<int>> run(int start, const std::vector<Unit>& units) {
    new_step();
    add(current_, start, 0, 0, kNoRecord, 0);
    for (std::size_t i = 0; i < units.size() && !current_.empty(); ++i) {
      new_step();
      next_.clear();
      for (const Thread& thread : current_) {
        const int to = step(program_[thread.pc], units[i]);
        if (to >= 0)
          add(next_, to, thread.count, thread.mask, thread.record, static_cast<int>(i + 1));
      }
      std::swap(current_, next_);
      if (history_.size() >= compact_at_) compact_history();
    }
    for (const Thread& thread : current_) {
      if (program_[thread.pc].op != Op::kMatch) continue;
      std::vector<int> captures(slots_, -1);
      for (int r = thread.record; r != kNoRecord; r = history_[r].previous) {
        int& slot = captures[history_[r].slot];
        if (slot < 0) slot = history_[r].position;  // the latest record of a slot wins
      }
      return captures;
    }
    return std::nullopt;
  }

 private:
  static constexpr int kNoRecord = -1;
  struct Record {
    int slot;
    int position;
    int previous;
  };
  struct Thread {
    int pc;
    std::uint32_t count;
    std::uint64_t mask;
    int record;
  };
  struct Seen {
    std::uint32_t count;
    std::uint64_t mask;
  };

  // Drops the records no live thread refers to, so that memory follows the number of
  // threads rather than the length of the URI. Records only point to older ones, so
  // keeping the order keeps the links valid. Amortized linear: the next compaction waits
  // until the history has doubled.
  void compact_history() {
    std::vector<int> renumbered(history_.size(), kNoRecord);
    constexpr int kLive = -2;
    for (const Thread& thread : current_) {
      for (int r = thread.record; r != kNoRecord && renumbered[r] != kLive;
           r = history_[r].previous) {
        renumbered[r] = kLive;
      }
    }
    std::size_t kept = 0;
    for (std::size_t r = 0; r < history_.size(); ++r) {
      if (renumbered[r] != kLive) continue;
      Record record = history_[r];
      if (record.previous != kNoRecord) record.previous = renumbered[record.previous];
      renumbered[r] = static_cast<int>(kept);
      history_[kept++] = record;
    }
    history_.resize(kept);
    for (Thread& thread : current_) {
      if (thread.record != kNoRecord) thread.record = renumbered[thread.record];
    }
    compact_at_ = std::max<std::size_t>(kMinCompaction, 2 * kept);
  }

  void new_step() {
    ++step_;
    extra_.clear();
  }
  // Records that a thread with these constraints reached `pc` in this step, unless one
  // that dominates it got there first.
  bool first_visit(int pc, std::uint32_t count, std::uint64_t mask) {
    const auto dominates = [&](const Seen& seen) {
      return seen.count <= count && (seen.mask & ~mask) == 0;
    };
    if (stamp_[pc] != step_) {
      stamp_[pc] = step_;
      first_[pc] = {count, mask};
      return true;
    }
    if (dominates(first_[pc])) return false;
    for (const auto& [at, seen] : extra_) {
      if (at == pc && dominates(seen)) return false;
    }
    extra_.push_back({pc, {count, mask}});
    return true;
  }

  // Follows the instructions that consume nothing from `pc`, depth first in priority
  // order, and queues the threads that reach a consuming instruction or kMatch.
  void add(std::vector<Thread>& list, int pc0, std::uint32_t count0, std::uint64_t mask0,
           int record0, int position) {
    stack_.push_back({pc0, count0, mask0, record0});
    while (!stack_.empty()) {
      const Thread task = stack_.back();
      stack_.pop_back();
      if (!first_visit(task.pc, task.count, task.mask)) continue;
      const Inst& inst = program_[task.pc];
      switch (inst.op) {
        case Op::kFork:
          for (auto it = inst.targets.rbegin(); it != inst.targets.rend(); ++it) {
            stack_.push_back({*it, task.count, task.mask, task.record});
          }
          break;
        case Op::kSave:
          history_.push_back({inst.arg, position, task.record});
          stack_.push_back(
              {inst.next, task.count, task.mask, static_cast<int>(history_.size()) - 1});
          break;
        case Op::kCountChar:
          if (task.count < static_cast<std::uint32_t>(inst.arg)) {
            stack_.push_back({inst.next, task.count + 1, task.mask, task.record});
          }
          break;
        case Op::kResetCount:
          stack_.push_back({inst.next, 0, task.mask, task.record});
          break;
        case Op::kMarkName: {
          const std::uint64_t bit = std::uint64_t{1} << inst.arg;
          if ((task.mask & bit) == 0) {
            stack_.push_back({inst.next, task.count, task.mask | bit, task.record});
          }
          break;
        }
        case Op::kClearMask:
          stack_.push_back({inst.next, task.count, 0, task.record});
          break;
        default:  // consuming instructions and kMatch
          list.push_back(task);
          break;
      }
    }
  }

  const std::vector<Inst>& program_;
  std::size_t slots_;
  std::uint32_t step_ = 0;
  std::vector<std::uint32_t> stamp_;         // the step in which first_[pc] was recorded
  std::vector<Seen> first_;                  // the first thread at each instruction in this step
  std::vector<std::pair<int, Seen>> extra_;  // later ones that were not dominated
  static constexpr std::size_t kMinCompaction = 4096;
  std::vector<Record> history_;
  std::size_t compact_at_ = kMinCompaction;
  std::vector<Thread> stack_;
  std::vector<Thread> current_, next_;
};

std::vector<Unit> units_of(std::string_view uri, std::vector<std::size_t>& offsets) {
  std::vector<Unit> units;
  units.reserve(uri.size());
  offsets.reserve(uri.size() + 1);
  for (std::size_t i = 0; i < uri.size();) {
    offsets.push_back(i);
    const char c = uri[i];
    if (c == '%' && i + 2 < uri.size() && is_hex_digit(uri[i + 1]) && is_hex_digit(uri[i + 2])) {
      const auto byte =
          static_cast<std::uint8_t>(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2]));
      units.push_back({true, byte, {uri[i + 1], uri[i + 2]}});
      i += 3;
    } else {
      units.push_back({false, static_cast<std::uint8_t>(c), {0, 0}});
      ++i;
    }
  }
  offsets.push_back(uri.size());
  return units;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && is_hex_digit(text[i + 1]) &&
        is_hex_digit(text[i + 2])) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

TemplateMatcher::TemplateMatcher(const std::vector<Part>& parts)
    : automaton_(compile_automaton(parts)) {}

std::optional<std::map<std::string, std::string>> TemplateMatcher::run(std::string_view uri) const {
  std::vector<std::size_t> offsets;
  const std::vector<Unit> units = units_of(uri, offsets);
  Simulation simulation(automaton_.program, 2 * automaton_.occurrences.size());
  const std::optional<std::vector<int>> captures = simulation.run(automaton_.start, units);
  if (!captures) return std::nullopt;

  // Several uses of one variable must agree (uri_template.h): the value is that of a use
  // without prefix, else the longest prefix; every prefix use must see its prefix of it.
  struct Use {
    std::optional<std::string> value;
    int prefix;
  };
  std::map<std::string, std::vector<Use>> uses;
  for (std::size_t i = 0; i < automaton_.occurrences.size(); ++i) {
    const int begin = (*captures)[2 * i], end = (*captures)[2 * i + 1];
    Use use{std::nullopt, automaton_.occurrences[i].prefix};
    if (begin >= 0 && end >= 0) {
      use.value = percent_decoded(uri.substr(offsets[begin], offsets[end] - offsets[begin]));
    }
    uses[automaton_.occurrences[i].name].push_back(std::move(use));
  }
  std::map<std::string, std::string> values;
  for (const auto& [name, list] : uses) {
    const Use* whole = nullptr;
    std::size_t present = 0;
    for (const Use& use : list) {
      if (!use.value) continue;
      ++present;
      if (whole == nullptr || (whole->prefix > 0 && use.prefix == 0) ||
          (whole->prefix > 0 && use.value->size() > whole->value->size())) {
        whole = &use;
      }
    }
    if (present == 0) continue;
    if (present != list.size()) return std::nullopt;
    for (const Use& use : list) {
      const std::string_view expected =
          use.prefix > 0 ? code_point_prefix(*whole->value, use.prefix) : *whole->value;
      if (*use.value != expected) return std::nullopt;
    }
    values.emplace(name, *whole->value);
  }
  return values;
}

}  // namespace mcpsh::resources::detail
