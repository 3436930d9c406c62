#pragma once
// The parsed form of an RFC 6570 URI template, shared by expansion (uri_template.cc) and
// matching (template_matcher.cc). Plain values: a parsed template is a list of parts,
// each either literal text or one expression.
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::resources::detail {

// Literal text exactly as written in the template (it may hold pct-encoded triplets and
// non-ASCII characters; RFC 6570 section 2.1 has already been checked).
struct Literal {
  std::string text;
};

// One varspec: `name`, `name:prefix` or `name*`. The name is kept as written (it may hold
// dots and pct-encoded triplets).
struct VarSpec {
  std::string name;
  int prefix = 0;  // maximum length in code points; 0 when there is no prefix modifier
  bool explode = false;
};

// The expansion rules of one operator (RFC 6570 appendix A).
struct OperatorRules {
  std::string_view first;  // written before the first defined variable
  std::string_view sep;    // written between defined variables
  bool named;              // items are name=value
  std::string_view ifemp;  // written after the name when the value is empty (named only)
  bool allow_reserved;     // reserved characters and pct-encoded triplets pass unencoded
};

// `op` is '\0' for a simple expression {var}, else one of + # . / ; ? &.
constexpr OperatorRules rules_of(char op) {
  switch (op) {
    case '+':
      return {"", ",", false, "", true};
    case '#':
      return {"#", ",", false, "", true};
    case '.':
      return {".", ".", false, "", false};
    case '/':
      return {"/", "/", false, "", false};
    case ';':
      return {";", ";", true, "", false};
    case '?':
      return {"?", "&", true, "=", false};
    case '&':
      return {"&", "&", true, "=", false};
    default:
      return {"", ",", false, "", false};
  }
}

struct Expression {
  char op = '\0';
  std::vector<VarSpec> vars;  // never empty
};

using Part = std::variant<Literal, Expression>;

// Named expressions are matched with a 64-bit mask of the names already seen.
inline constexpr std::size_t kMaxVariablesPerExpression = 64;

// RFC 3986 character classes, on bytes.
constexpr bool is_alpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool is_hex_digit(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr bool is_unreserved(unsigned char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
constexpr bool is_reserved(unsigned char c) {
  return std::string_view(":/?#[]@!$&'()*+,;=").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

// The first `limit` code points of UTF-8 text (bytes that are not continuation bytes
// start a code point, so invalid text is cut somewhere sensible too).
constexpr std::string_view code_point_prefix(std::string_view text, int limit) {
  std::size_t end = 0;
  for (int n = 0; n < limit && end < text.size(); ++n) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  }
  return text.substr(0, end);
}

}  // namespace mcpsh::resources::detail
