// ECMA-262 regular expressions for "pattern" and "patternProperties", run by a Pike VM
// (Thompson NFA simulation): time linear in the subject times the pattern size, no
// recursion over the subject, and every step charged to the caller's budget, so an
// instance (which comes from a language model) cannot make a pattern hang or crash.
//
// Supported: literals, ".", classes ("[a-z]", "[^...]", \d \w \s and negations),
// escapes (\t \n \v \f \r \0 \cX \xHH \uHHHH \u{H...}, identity escapes), anchors
// ^ $ \b \B, groups ("(...)", "(?:...)", "(?<name>...)"), lookahead "(?=...)" "(?!...)",
// alternation, greedy or lazy quantifiers * + ? {n} {n,} {n,m}, and Unicode
// General_Category escapes \p{L} \P{Letter} (unicode_categories.h). Matching is over
// Unicode code points (the "u" flag's view); JSON Schema patterns are unanchored
// searches. Not supported, and rejected at compile time with a message:
// backreferences, lookbehind, and \p{...} for scripts or other properties.
//
// Contract: a compiled Regex is immutable and safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::schema::detail {

class Regex {
 public:
  // The compiled program is capped at kMaxProgram instructions ("a{1000}{1000}" is
  // refused instead of allocating a million states).
  static constexpr size_t kMaxProgram = 20000;

  static std::variant<Regex, std::string> compile(std::string_view pattern);

  // Whether the pattern matches anywhere in `subject` (UTF-8; invalid bytes read as
  // U+FFFD). Each VM step decrements `budget`; nullopt when it runs out.
  std::optional<bool> search(std::string_view subject, long& budget) const;

  enum class Op : uint8_t { kChar, kAny, kClass, kSplit, kJmp, kMatch, kAssert, kLook };
  enum class Assertion : uint8_t { kBegin, kEnd, kWordBoundary, kNotWordBoundary };
  struct Inst {
    Op op;
    uint8_t flag = 0;  // Assertion for kAssert, 1 = negative lookahead for kLook
    uint32_t x = 0;    // code point, class index, jump target, or lookahead start
    uint32_t y = 0;    // second split target
  };
  struct Range {
    char32_t lo;
    char32_t hi;
  };
  struct CharClass {
    std::vector<Range> ranges;  // sorted, disjoint
    bool negated = false;
    bool contains(char32_t c) const;
  };

 private:
  friend class RegexCompiler;
  std::optional<bool> run(uint32_t start_pc, const std::u32string& text, size_t from, bool anchored,
                          long& budget) const;

  std::vector<Inst> program_;
  std::vector<CharClass> classes_;
  bool anchored_start_ = false;  // the pattern starts with "^": only try position 0
};

}  // namespace mcpsh::schema::detail
