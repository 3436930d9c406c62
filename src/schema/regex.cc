// The Pike VM that runs a compiled Regex (regex_compile.cc builds the program).
#include "schema/regex.h"

#include <algorithm>

#include "schema/json_util.h"

namespace mcpsh::schema::detail {
namespace {

bool is_word(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_line_terminator(char32_t c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

}  // namespace

bool Regex::CharClass::contains(char32_t c) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), c,
                             [](char32_t v, const Range& r) { return v < r.lo; });
  bool in = it != ranges.begin() && c <= std::prev(it)->hi;
  return in != negated;
}

std::optional<bool> Regex::search(std::string_view subject, long& budget) const {
  std::u32string text = decode_utf8(subject);
  budget -= static_cast<long>(text.size() / 16);
  if (budget < 0) return std::nullopt;
  return run(0, text, 0, anchored_start_, budget);
}

// Pike VM without captures. `mark[pc] == generation` means pc was already added for
// this text position, which also stops empty loops such as "(a*)*".
std::optional<bool> Regex::run(uint32_t start_pc, const std::u32string& text, size_t from,
                               bool anchored, long& budget) const {
  const size_t n = program_.size();
  std::vector<uint32_t> current;
  std::vector<uint32_t> next;
  std::vector<size_t> mark(n, 0);
  std::vector<uint32_t> stack;
  current.reserve(n);
  next.reserve(n);

  enum class Added { kNone, kMatched, kExhausted };
  // Follows the epsilon edges from pc at position pos, collecting consuming instructions.
  auto add = [&](std::vector<uint32_t>& list, uint32_t pc, size_t pos) -> Added {
    size_t generation = pos + 1;
    stack.assign(1, pc);
    while (!stack.empty()) {
      uint32_t at = stack.back();
      stack.pop_back();
      if (mark[at] == generation) continue;
      mark[at] = generation;
      if (--budget < 0) return Added::kExhausted;
      const Inst& inst = program_[at];
      switch (inst.op) {
        case Op::kMatch:
          return Added::kMatched;
        case Op::kJmp:
          stack.push_back(inst.x);
          break;
        case Op::kSplit:
          stack.push_back(inst.y);
          stack.push_back(inst.x);
          break;
        case Op::kAssert: {
          bool prev_word = pos > 0 && is_word(text[pos - 1]);
          bool next_word = pos < text.size() && is_word(text[pos]);
          bool holds = false;
          switch (static_cast<Assertion>(inst.flag)) {
            case Assertion::kBegin:
              holds = pos == 0;
              break;
            case Assertion::kEnd:
              holds = pos == text.size();
              break;
            case Assertion::kWordBoundary:
              holds = prev_word != next_word;
              break;
            case Assertion::kNotWordBoundary:
              holds = prev_word == next_word;
              break;
          }
          if (holds) stack.push_back(at + 1);
          break;
        }
        case Op::kLook: {
          auto inner = run(inst.x, text, pos, true, budget);
          if (!inner) return Added::kExhausted;
          if (*inner != (inst.flag == 1)) stack.push_back(at + 1);
          break;
        }
        default:
          list.push_back(at);
      }
    }
    return Added::kNone;
  };

  for (size_t pos = from;; ++pos) {
    if (!anchored || pos == from) {
      Added a = add(current, start_pc, pos);
      if (a == Added::kMatched) return true;
      if (a == Added::kExhausted) return std::nullopt;
    }
    if (pos >= text.size()) return false;
    if (current.empty() && anchored) return false;
    char32_t c = text[pos];
    next.clear();
    for (uint32_t pc : current) {
      const Inst& inst = program_[pc];
      bool ok = inst.op == Op::kChar    ? inst.x == c
                : inst.op == Op::kAny   ? !is_line_terminator(c)
                : inst.op == Op::kClass ? classes_[inst.x].contains(c)
                                        : false;
      if (!ok) continue;
      Added a = add(next, pc + 1, pos + 1);
      if (a == Added::kMatched) return true;
      if (a == Added::kExhausted) return std::nullopt;
    }
    current.swap(next);
  }
}

}  // namespace mcpsh::schema::detail
