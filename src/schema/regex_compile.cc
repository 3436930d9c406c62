// Regex::compile(): ECMA-262 pattern syntax to the program the VM in regex.cc runs.
#include <algorithm>
#include <memory>

#include "schema/json_util.h"
#include "schema/regex.h"
#include "schema/unicode_categories.h"

namespace mcpsh::schema::detail {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr int kMaxGroupDepth = 100;
constexpr int kMaxRepeat = 100000;

using Ranges = std::vector<Regex::Range>;

Ranges normalize(Ranges r) {
  std::sort(r.begin(), r.end(), [](auto a, auto b) { return a.lo < b.lo; });
  Ranges out;
  for (auto range : r) {
    if (!out.empty() && range.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, range.hi);
    } else {
      out.push_back(range);
    }
  }
  return out;
}

Ranges complement(const Ranges& sorted) {
  Ranges out;
  char32_t next = 0;
  for (auto r : sorted) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

// ECMA-262 \d \w \s (WhiteSpace and LineTerminator).
Ranges builtin_class(char32_t letter) {
  Ranges r;
  switch (letter) {
    case 'd':
    case 'D':
      r = {{'0', '9'}};
      break;
    case 'w':
    case 'W':
      r = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
      break;
    default:
      r = {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680},
           {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
           {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
  }
  r = normalize(r);
  return (letter == 'D' || letter == 'W' || letter == 'S') ? complement(r) : r;
}

struct Ast {
  enum class Kind { kEmpty, kChar, kAny, kClass, kCat, kAlt, kRepeat, kAssert, kLook };
  Kind kind = Kind::kEmpty;
  char32_t ch = 0;
  uint32_t cls = 0;
  Regex::Assertion assertion = Regex::Assertion::kBegin;
  bool negative = false;
  int min = 0;
  int max = -1;  // -1: unbounded
  std::vector<Ast> kids;
};

struct ParseError {
  std::string message;
};

}  // namespace

// Recursive descent over the pattern (recursion bounded by group nesting), then code
// generation into the flat program the VM runs.
class RegexCompiler {
 public:
  explicit RegexCompiler(std::string_view pattern) : p_(decode_utf8(pattern)) {}

  std::variant<Regex, std::string> run() {
    try {
      Ast ast = parse_alternation();
      if (i_ < p_.size()) fail("unmatched ')'");
      re_.anchored_start_ = starts_anchored(ast);
      emit(ast);
      push({Regex::Op::kMatch});
      // Lookahead bodies live after the main program, each ending in its own kMatch.
      for (size_t k = 0; k < looks_.size(); ++k) {
        re_.program_[looks_[k].first].x = static_cast<uint32_t>(re_.program_.size());
        emit(*looks_[k].second);
        push({Regex::Op::kMatch});
      }
    } catch (const ParseError& e) {
      return e.message;
    }
    return std::move(re_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw ParseError{what}; }
  bool more() const { return i_ < p_.size(); }
  char32_t peek(size_t ahead = 0) const { return i_ + ahead < p_.size() ? p_[i_ + ahead] : 0; }

  Ast parse_alternation() {
    Ast first = parse_sequence();
    if (!more() || peek() != '|') return first;
    Ast alt{.kind = Ast::Kind::kAlt};
    alt.kids.push_back(std::move(first));
    while (more() && peek() == '|') {
      ++i_;
      alt.kids.push_back(parse_sequence());
    }
    return alt;
  }

  Ast parse_sequence() {
    Ast seq{.kind = Ast::Kind::kCat};
    while (more() && peek() != '|' && peek() != ')') {
      Ast atom = parse_atom();
      int min = 0;
      int max = 0;
      if (parse_quantifier(min, max)) {
        if (atom.kind == Ast::Kind::kAssert || atom.kind == Ast::Kind::kLook) {
          fail("nothing to repeat");
        }
        Ast rep{.kind = Ast::Kind::kRepeat, .min = min, .max = max};
        rep.kids.push_back(std::move(atom));
        atom = std::move(rep);
        if (more() && (peek() == '*' || peek() == '+' || peek() == '?' || quantifier_ahead())) {
          fail("nothing to repeat");
        }
      }
      seq.kids.push_back(std::move(atom));
    }
    return seq;
  }

  // Reads "{n}", "{n,}" or "{n,m}" at i_ without consuming; Annex B reads anything else
  // starting with "{" as a literal.
  bool read_braces(size_t& end, int& min, int& max) const {
    size_t j = i_;
    if (j >= p_.size() || p_[j] != '{') return false;
    ++j;
    auto number = [&](int& out) {
      size_t start = j;
      long value = 0;
      while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9') {
        value = std::min<long>(value * 10 + (p_[j] - '0'), kMaxRepeat + 1L);
        ++j;
      }
      out = static_cast<int>(value);
      return j > start;
    };
    if (!number(min)) return false;
    max = min;
    if (j < p_.size() && p_[j] == ',') {
      ++j;
      if (!number(max)) max = -1;
    }
    if (j >= p_.size() || p_[j] != '}') return false;
    end = j + 1;
    return true;
  }

  bool quantifier_ahead() const {
    size_t end = 0;
    int a = 0;
    int b = 0;
    return read_braces(end, a, b);
  }

  bool parse_quantifier(int& min, int& max) {
    if (!more()) return false;
    switch (peek()) {
      case '*':
        min = 0, max = -1, ++i_;
        break;
      case '+':
        min = 1, max = -1, ++i_;
        break;
      case '?':
        min = 0, max = 1, ++i_;
        break;
      case '{': {
        size_t end = 0;
        if (!read_braces(end, min, max)) return false;
        if (min > kMaxRepeat || max > kMaxRepeat) fail("repetition count too large");
        if (max != -1 && max < min) fail("numbers out of order in {} quantifier");
        i_ = end;
        break;
      }
      default:
        return false;
    }
    if (more() && peek() == '?') ++i_;  // lazy: same match/no-match answer
    return true;
  }

  Ast parse_atom() {
    char32_t c = p_[i_++];
    switch (c) {
      case '^':
        return Ast{.kind = Ast::Kind::kAssert, .assertion = Regex::Assertion::kBegin};
      case '$':
        return Ast{.kind = Ast::Kind::kAssert, .assertion = Regex::Assertion::kEnd};
      case '.': {
        return Ast{.kind = Ast::Kind::kAny};
      }
      case '(':
        return parse_group();
      case '[':
        return class_atom(parse_class());
      case '\\':
        return parse_escape();
      case '*':
      case '+':
      case '?':
        fail("nothing to repeat");
      case '{':
        --i_;
        if (quantifier_ahead()) fail("nothing to repeat");
        ++i_;
        return literal(c);
      default:
        return literal(c);
    }
  }

  static Ast literal(char32_t c) { return Ast{.kind = Ast::Kind::kChar, .ch = c}; }

  Ast class_atom(Regex::CharClass cls) {
    re_.classes_.push_back(std::move(cls));
    return Ast{.kind = Ast::Kind::kClass, .cls = static_cast<uint32_t>(re_.classes_.size() - 1)};
  }

  Ast parse_group() {
    if (++depth_ > kMaxGroupDepth) fail("groups nested too deeply");
    Ast result;
    bool look = false;
    bool negative = false;
    if (peek() == '?') {
      char32_t kind = peek(1);
      if (kind == ':') {
        i_ += 2;
      } else if (kind == '=' || kind == '!') {
        look = true;
        negative = kind == '!';
        i_ += 2;
      } else if (kind == '<' && (peek(2) == '=' || peek(2) == '!')) {
        fail("lookbehind assertions are not supported");
      } else if (kind == '<') {
        i_ += 2;
        while (more() && peek() != '>') ++i_;
        if (!more()) fail("unterminated group name");
        ++i_;
      } else {
        fail("invalid group");
      }
    }
    Ast body = parse_alternation();
    if (!more() || peek() != ')') fail("missing ')'");
    ++i_;
    --depth_;
    if (!look) return body;
    Ast node{.kind = Ast::Kind::kLook, .negative = negative};
    node.kids.push_back(std::move(body));
    return node;
  }

  Ast parse_escape() {
    if (!more()) fail("\\ at end of pattern");
    char32_t c = p_[i_];
    switch (c) {
      case 'b':
        ++i_;
        return Ast{.kind = Ast::Kind::kAssert, .assertion = Regex::Assertion::kWordBoundary};
      case 'B':
        ++i_;
        return Ast{.kind = Ast::Kind::kAssert, .assertion = Regex::Assertion::kNotWordBoundary};
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S':
        ++i_;
        return class_atom(Regex::CharClass{builtin_class(c)});
      case 'p':
      case 'P':
        ++i_;
        return class_atom(Regex::CharClass{parse_property(c)});
      case 'k':
        if (peek(1) == '<') fail("named backreferences are not supported");
        break;
      default:
        if (c >= '1' && c <= '9') fail("backreferences are not supported");
    }
    return literal(parse_char_escape());
  }

  // The escapes that denote one character, inside or outside a class; i_ is just past
  // the backslash.
  char32_t parse_char_escape() {
    char32_t c = p_[i_++];
    auto hex_digits = [&](size_t count, char32_t& out) {
      char32_t value = 0;
      for (size_t k = 0; k < count; ++k) {
        char32_t h = peek(k);
        int d = (h >= '0' && h <= '9')   ? int(h - '0')
                : (h >= 'a' && h <= 'f') ? int(h - 'a' + 10)
                : (h >= 'A' && h <= 'F') ? int(h - 'A' + 10)
                                         : -1;
        if (d < 0) return false;
        value = value * 16 + static_cast<char32_t>(d);
      }
      i_ += count;
      out = value;
      return true;
    };
    switch (c) {
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'v':
        return '\v';
      case 'f':
        return '\f';
      case 'r':
        return '\r';
      case 'c': {
        char32_t letter = peek();
        if ((letter >= 'a' && letter <= 'z') || (letter >= 'A' && letter <= 'Z')) {
          ++i_;
          return letter % 32;
        }
        --i_;  // Annex B: "\c" not followed by a letter is a backslash
        return '\\';
      }
      case 'x': {
        char32_t v = 0;
        return hex_digits(2, v) ? v : 'x';
      }
      case 'u': {
        char32_t v = 0;
        if (peek() == '{') {
          size_t save = i_++;
          v = 0;
          size_t digits = 0;
          char32_t d = 0;
          while (hex_digits(1, d)) {
            v = v * 16 + d;
            if (v > kMaxCodePoint) fail("\\u{...} escape out of range");
            ++digits;
          }
          if (digits > 0 && peek() == '}') {
            ++i_;
            return v;
          }
          i_ = save;
          return 'u';
        }
        if (!hex_digits(4, v)) return 'u';
        char32_t low = 0;
        if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
          size_t save = i_;
          i_ += 2;
          if (hex_digits(4, low) && low >= 0xDC00 && low <= 0xDFFF) {
            return 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
          }
          i_ = save;
        }
        return v;
      }
      default:
        if (c >= '0' && c <= '7') {  // \0 and Annex B octal escapes
          char32_t v = c - '0';
          for (int k = 0; k < 2 && peek() >= '0' && peek() <= '7' && v * 8 + (peek() - '0') <= 0377;
               ++k) {
            v = v * 8 + (p_[i_++] - '0');
          }
          return v;
        }
        return c;  // identity escape
    }
  }

  // \p{Name} / \P{Name}; i_ is just past the "p".
  Ranges parse_property(char32_t letter) {
    if (!more() || peek() != '{') fail("\\p must be followed by {property}");
    size_t close = p_.find('}', i_);
    if (close == std::u32string::npos) fail("unterminated \\p{...}");
    std::string name;
    for (size_t k = i_ + 1; k < close; ++k) {
      if (p_[k] > 0x7F) fail("unknown Unicode property");
      name.push_back(static_cast<char>(p_[k]));
    }
    i_ = close + 1;
    auto ranges = unicode_property(name);
    if (!ranges)
      fail("unsupported Unicode property \"" + name + "\" (General_Category values only)");
    Ranges out;
    for (auto [lo, hi] : *ranges) out.push_back({lo, hi});
    out = normalize(std::move(out));
    return letter == 'P' ? complement(out) : out;
  }

  Regex::CharClass parse_class() {
    Regex::CharClass cls;
    if (more() && peek() == '^') {
      cls.negated = true;
      ++i_;
    }
    Ranges ranges;
    // One class atom: a single character, or (for \d \w \s...) a set.
    auto atom = [&](Ranges& set) -> std::optional<char32_t> {
      if (!more()) fail("unterminated character class");
      char32_t c = p_[i_++];
      if (c != '\\') return c;
      if (!more()) fail("\\ at end of pattern");
      char32_t e = peek();
      if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
        ++i_;
        set = builtin_class(e);
        return std::nullopt;
      }
      if (e == 'p' || e == 'P') {
        ++i_;
        set = parse_property(e);
        return std::nullopt;
      }
      if (e == 'b') {
        ++i_;
        return 0x08;
      }
      if (e == '-') {
        ++i_;
        return '-';
      }
      return parse_char_escape();
    };
    while (true) {
      if (!more()) fail("unterminated character class");
      if (peek() == ']') {
        ++i_;
        break;
      }
      Ranges set_lo;
      auto lo = atom(set_lo);
      if (more() && peek() == '-' && peek(1) != ']' && i_ + 1 < p_.size()) {
        ++i_;
        Ranges set_hi;
        auto hi = atom(set_hi);
        if (lo && hi) {
          if (*lo > *hi) fail("range out of order in character class");
          ranges.push_back({*lo, *hi});
          continue;
        }
        // Annex B: a range with a class escape at either end is a literal "-".
        ranges.push_back({'-', '-'});
        for (auto r : set_hi) ranges.push_back(r);
        if (hi) ranges.push_back({*hi, *hi});
      }
      for (auto r : set_lo) ranges.push_back(r);
      if (lo) ranges.push_back({*lo, *lo});
    }
    cls.ranges = normalize(std::move(ranges));
    return cls;
  }

  static bool starts_anchored(const Ast& ast) {
    if (ast.kind == Ast::Kind::kAssert) return ast.assertion == Regex::Assertion::kBegin;
    if (ast.kind == Ast::Kind::kCat) return !ast.kids.empty() && starts_anchored(ast.kids[0]);
    if (ast.kind == Ast::Kind::kAlt) {
      return std::all_of(ast.kids.begin(), ast.kids.end(), starts_anchored);
    }
    return false;
  }

  uint32_t here() const { return static_cast<uint32_t>(re_.program_.size()); }

  void push(Regex::Inst inst) {
    if (re_.program_.size() >= Regex::kMaxProgram) fail("pattern too complex");
    re_.program_.push_back(inst);
  }

  void emit(const Ast& ast) {
    using Op = Regex::Op;
    switch (ast.kind) {
      case Ast::Kind::kEmpty:
        return;
      case Ast::Kind::kChar:
        return push({Op::kChar, 0, ast.ch});
      case Ast::Kind::kAny:
        return push({Op::kAny});
      case Ast::Kind::kClass:
        return push({Op::kClass, 0, ast.cls});
      case Ast::Kind::kAssert:
        return push({Op::kAssert, static_cast<uint8_t>(ast.assertion)});
      case Ast::Kind::kLook:
        looks_.emplace_back(here(), &ast.kids[0]);
        return push({Op::kLook, static_cast<uint8_t>(ast.negative ? 1 : 0)});
      case Ast::Kind::kCat:
        for (const auto& kid : ast.kids) emit(kid);
        return;
      case Ast::Kind::kAlt: {
        std::vector<uint32_t> exits;
        for (size_t k = 0; k + 1 < ast.kids.size(); ++k) {
          uint32_t split = here();
          push({Op::kSplit, 0, split + 1});
          emit(ast.kids[k]);
          exits.push_back(here());
          push({Op::kJmp});
          re_.program_[split].y = here();
        }
        emit(ast.kids.back());
        for (uint32_t e : exits) re_.program_[e].x = here();
        return;
      }
      case Ast::Kind::kRepeat: {
        for (int k = 0; k < ast.min; ++k) emit(ast.kids[0]);
        if (ast.max == -1) {
          uint32_t split = here();
          push({Op::kSplit, 0, split + 1});
          emit(ast.kids[0]);
          push({Op::kJmp, 0, split});
          re_.program_[split].y = here();
          return;
        }
        std::vector<uint32_t> splits;
        for (int k = ast.min; k < ast.max; ++k) {
          splits.push_back(here());
          push({Op::kSplit, 0, here() + 1});
          emit(ast.kids[0]);
        }
        for (uint32_t s : splits) re_.program_[s].y = here();
        return;
      }
    }
  }

  std::u32string p_;
  size_t i_ = 0;
  int depth_ = 0;
  Regex re_;
  std::vector<std::pair<uint32_t, const Ast*>> looks_;
};

std::variant<Regex, std::string> Regex::compile(std::string_view pattern) {
  return RegexCompiler(pattern).run();
}

}  // namespace mcpsh::schema::detail
