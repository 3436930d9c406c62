#include "resources/template_automaton.h"

#include <string_view>
#include <utility>

namespace mcpsh::resources::detail {

namespace {

// A piece of automaton under construction: where it starts, and the holes to fill with
// whatever follows it. A hole is an instruction's `next` (target -1) or one of its fork
// targets.
struct Hole {
  int inst;
  int target;
};
constexpr int kEmpty = -1;
struct Fragment {
  int entry;  // kEmpty: matches the empty string and has no instruction
  std::vector<Hole> exits;
};

constexpr char kUpperHex[] = "0123456789ABCDEF";

// Builds the automaton of a template. Priorities follow the contract in uri_template.h:
// every fork lists the longer or present alternative first.
class Compiler {
 public:
  std::vector<Inst> program;
  std::vector<Occurrence> occurrences;

  Fragment template_of(const std::vector<Part>& parts) {
    Fragment whole = nothing();
    for (const Part& part : parts) {
      if (const auto* literal = std::get_if<Literal>(&part)) {
        whole = seq(std::move(whole), literal_of(literal->text));
      } else {
        whole = seq(std::move(whole), expression_of(std::get<Expression>(part)));
      }
    }
    Inst match{Op::kMatch};
    return seq(std::move(whole), Fragment{emit(std::move(match)), {}});
  }

 private:
  int emit(Inst inst) {
    program.push_back(std::move(inst));
    return static_cast<int>(program.size()) - 1;
  }
  // An instruction that continues at its `next`.
  Fragment single(Inst inst) {
    const int at = emit(std::move(inst));
    return {at, {{at, -1}}};
  }
  // The empty fragment: seq() passes over it, so it costs no instruction. The other
  // combinators are never given it.
  static Fragment nothing() { return {kEmpty, {}}; }
  void fill(const std::vector<Hole>& holes, int to) {
    for (const Hole& hole : holes) {
      if (hole.target < 0) {
        program[hole.inst].next = to;
      } else {
        program[hole.inst].targets[hole.target] = to;
      }
    }
  }
  Fragment seq(Fragment a, Fragment b) {
    if (a.entry == kEmpty) return b;
    if (b.entry == kEmpty) return a;
    fill(a.exits, b.entry);
    return {a.entry, std::move(b.exits)};
  }
  // `a` when it can, else `b`.
  Fragment alt(Fragment a, Fragment b) {
    Inst fork{Op::kFork};
    fork.targets = {a.entry, b.entry};
    const int at = emit(std::move(fork));
    a.exits.insert(a.exits.end(), b.exits.begin(), b.exits.end());
    return {at, std::move(a.exits)};
  }
  // `a` when it can, else nothing.
  Fragment optional(Fragment a) {
    Inst fork{Op::kFork};
    fork.targets = {a.entry, -1};
    const int at = emit(std::move(fork));
    a.exits.push_back({at, 1});
    return {at, std::move(a.exits)};
  }
  // One or more `a`, as many as it can.
  Fragment repeated(Fragment a) {
    Inst fork{Op::kFork};
    fork.targets = {a.entry, -1};
    const int at = emit(std::move(fork));
    fill(a.exits, at);
    return {a.entry, {{at, 1}}};
  }

  Fragment raw_byte(unsigned char byte) {
    Inst inst{Op::kRawByte};
    inst.set[byte / 64] |= std::uint64_t{1} << (byte % 64);
    return single(std::move(inst));
  }
  Fragment pct_exact(char hi_digit, char lo_digit) {
    Inst inst{Op::kPctExact};
    inst.hex[0] = hi_digit;
    inst.hex[1] = lo_digit;
    return single(std::move(inst));
  }
  // A pct-encoded byte in [lo, hi] that continues at `next`.
  int pct_range(std::uint8_t lo, std::uint8_t hi, int next) {
    Inst inst{Op::kPctRange};
    inst.lo = lo;
    inst.hi = hi;
    inst.next = next;
    return emit(std::move(inst));
  }

  // Literal text: byte for byte, a pct-encoded triplet as written; a non-ASCII character
  // either raw or in expand()'s upper-case pct-encoded form.
  Fragment literal_of(std::string_view text) {
    Fragment out = nothing();
    for (std::size_t i = 0; i < text.size();) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == '%') {
        out = seq(std::move(out), pct_exact(text[i + 1], text[i + 2]));
        i += 3;
      } else if (c < 0x80) {
        out = seq(std::move(out), raw_byte(c));
        ++i;
      } else {
        std::size_t end = i + 1;  // the template is valid UTF-8: skip continuation bytes
        while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
        Fragment raw = nothing(), encoded = nothing();
        for (std::size_t k = i; k < end; ++k) {
          const auto b = static_cast<unsigned char>(text[k]);
          raw = seq(std::move(raw), raw_byte(b));
          encoded = seq(std::move(encoded), pct_exact(kUpperHex[b >> 4], kUpperHex[b & 15]));
        }
        out = seq(std::move(out), alt(std::move(raw), std::move(encoded)));
        i = end;
      }
    }
    return out;
  }

  // One character of a value: a raw unreserved (or, when allowed, reserved) ASCII byte,
  // or the pct-encoded form of one valid UTF-8 character other than NUL. Checking UTF-8
  // here rather than after the match lets another split win when one would be invalid.
  // One instruction takes the first unit of every character, so that a value costs one
  // thread, not one per kind of character.
  Fragment code_point(bool allow_reserved) {
    Inst first{Op::kCodePoint};
    for (int b = 1; b < 0x80; ++b) {
      const auto c = static_cast<unsigned char>(b);
      if (is_unreserved(c) || (allow_reserved && is_reserved(c))) {
        first.set[b / 64] |= std::uint64_t{1} << (b % 64);
      }
    }
    const int at = emit(std::move(first));
    // Continuation bytes: tail1 takes the last one, tail2 the last two, tail3 three.
    const int tail1 = pct_range(0x80, 0xBF, -1);
    const int tail2 = pct_range(0x80, 0xBF, tail1);
    const int tail3 = pct_range(0x80, 0xBF, tail2);
    std::vector<int> routes(kRouteCount);
    routes[kAfterC2toDF] = tail1;
    routes[kAfterE0] = pct_range(0xA0, 0xBF, tail1);  // no overlong forms
    routes[kAfterE1toEF] = tail2;
    routes[kAfterED] = pct_range(0x80, 0x9F, tail1);  // no surrogates
    routes[kAfterF0] = pct_range(0x90, 0xBF, tail2);  // no overlong forms
    routes[kAfterF1toF3] = tail3;
    routes[kAfterF4] = pct_range(0x80, 0x8F, tail2);  // nothing past U+10FFFF
    program[at].targets = std::move(routes);
    return {at, {{at, -1}, {tail1, -1}}};
  }

  Fragment save(int slot) {
    Inst inst{Op::kSave};
    inst.arg = slot;
    return single(std::move(inst));
  }
  Fragment action(Op op, int arg = 0) {
    Inst inst{op};
    inst.arg = arg;
    return single(std::move(inst));
  }

  int occurrence_of(const VarSpec& var) {
    occurrences.push_back({var.name, var.prefix});
    return static_cast<int>(occurrences.size()) - 1;
  }
  // A non-empty value of occurrence `occ`.
  Fragment value(int occ, bool allow_reserved) {
    const int prefix = occurrences[occ].prefix;
    Fragment one = code_point(allow_reserved);
    if (prefix > 0) one = seq(action(Op::kCountChar, prefix), std::move(one));
    Fragment out = seq(save(2 * occ), repeated(std::move(one)));
    out = seq(std::move(out), save(2 * occ + 1));
    // Outside a prefixed value the count is always 0, so that threads compare fairly.
    if (prefix > 0) out = seq(std::move(out), action(Op::kResetCount));
    return out;
  }
  Fragment empty_value(int occ) { return seq(save(2 * occ), save(2 * occ + 1)); }

  Fragment expression_of(const Expression& expression) {
    const OperatorRules rules = rules_of(expression.op);
    std::vector<int> occs;
    for (const VarSpec& var : expression.vars) occs.push_back(occurrence_of(var));
    if (rules.named) return named_expression(expression, rules, occs);

    // first v1 [sep v2 [sep v3 ...]]: the values present go to the first variables.
    Fragment tail = nothing();
    for (std::size_t i = occs.size(); i-- > 1;) {
      Fragment item = seq(literal_of(rules.sep), value(occs[i], rules.allow_reserved));
      tail = optional(seq(std::move(item), std::move(tail)));
    }
    Fragment body = seq(value(occs[0], rules.allow_reserved), std::move(tail));
    if (rules.first.empty()) return body;  // {var} and {+var} are required
    return optional(seq(literal_of(rules.first), std::move(body)));
  }

  // first item [sep item ...], items name=value in any order, each name once.
  Fragment named_expression(const Expression& expression, const OperatorRules& rules,
                            const std::vector<int>& occs) {
    Inst choice{Op::kFork};
    const int items = emit(std::move(choice));
    std::vector<Hole> item_exits;
    for (std::size_t i = 0; i < occs.size(); ++i) {
      Fragment item =
          seq(literal_of(expression.vars[i].name), action(Op::kMarkName, static_cast<int>(i)));
      if (rules.ifemp.empty()) {  // ;x=value or ;x
        Fragment present = seq(literal_of("="), value(occs[i], false));
        item = seq(std::move(item), alt(std::move(present), empty_value(occs[i])));
      } else {  // ?x=value or ?x=
        Fragment rest = alt(value(occs[i], false), empty_value(occs[i]));
        item = seq(std::move(item), seq(literal_of("="), std::move(rest)));
      }
      program[items].targets.push_back(item.entry);
      item_exits.insert(item_exits.end(), item.exits.begin(), item.exits.end());
    }
    Fragment more = seq(literal_of(rules.sep), Fragment{items, {}});
    Fragment after_item = optional(std::move(more));
    fill(item_exits, after_item.entry);
    Fragment body = seq(literal_of(rules.first), Fragment{items, std::move(after_item.exits)});
    return optional(seq(std::move(body), action(Op::kClearMask)));
  }
};

}  // namespace

Automaton compile_automaton(const std::vector<Part>& parts) {
  Compiler compiler;
  const Fragment whole = compiler.template_of(parts);
  return {std::move(compiler.program), whole.entry, std::move(compiler.occurrences)};
}

}  // namespace mcpsh::resources::detail
