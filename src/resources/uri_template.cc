#include "resources/uri_template.h"

#include <cstdio>
#include <utility>

#include "jsonrpc/utf8.h"
#include "resources/template_matcher.h"

namespace mcpsh::resources {

namespace {

using detail::Expression;
using detail::Literal;
using detail::Part;
using detail::VarSpec;

std::string at(std::size_t offset) { return " at offset " + std::to_string(offset); }

// A byte for an error message: 'x' when printable, else its hex value.
std::string shown(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte > 0x20 && byte < 0x7F) return std::string("'") + c + "'";
  char hex[16];
  std::snprintf(hex, sizeof hex, "byte 0x%02X", byte);
  return hex;
}

bool is_pct_encoded(std::string_view text, std::size_t i) {
  return i + 2 < text.size() && text[i] == '%' && detail::is_hex_digit(text[i + 1]) &&
         detail::is_hex_digit(text[i + 2]);
}

// ASCII that RFC 6570 section 2.1 allows in literals: everything but CTL, SP, DQUOTE, "'",
// "%" (outside a pct-encoded triplet), "<", ">", "\", "^", "`", "{", "|", "}".
bool is_literal_ascii(unsigned char c) {
  return c > 0x20 && c < 0x7F &&
         std::string_view("\"'%<>\\^`{|}").find(static_cast<char>(c)) == std::string_view::npos;
}

// ucschar / iprivate (RFC 6570 section 1.5, after RFC 3987).
bool is_ucschar_or_iprivate(char32_t cp) {
  if (cp >= 0xA0 && cp <= 0xD7FF) return true;
  if (cp >= 0xE000 && cp <= 0xF8FF) return true;  // iprivate
  if (cp >= 0xF900 && cp <= 0xFDCF) return true;
  if (cp >= 0xFDF0 && cp <= 0xFFEF) return true;
  if (cp >= 0x10000 && cp <= 0xDFFFF) return (cp & 0xFFFF) <= 0xFFFD;
  if (cp >= 0xE1000 && cp <= 0xEFFFD) return true;
  return cp >= 0xF0000 && (cp & 0xFFFF) <= 0xFFFD;  // iprivate, planes 15 and 16
}

char32_t code_point_at(std::string_view text, std::size_t i, std::size_t length) {
  const auto byte = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[k]));
  };
  static constexpr char32_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = byte(i) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  return cp;
}

bool is_varchar(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  return detail::is_alpha(c) || detail::is_digit(c) || c == '_' || is_pct_encoded(text, i);
}

// Parses the expression whose '{' is at `open`; on success `end` is just past its '}'.
std::variant<Expression, std::string> parse_expression(std::string_view text, std::size_t open,
                                                       std::size_t& end) {
  const std::string unclosed = "expression opened" + at(open) + " is not closed";
  Expression expression;
  std::size_t i = open + 1;
  if (i == text.size()) return unclosed;
  const char c = text[i];
  if (std::string_view("+#./;?&").find(c) != std::string_view::npos) {
    expression.op = c;
    ++i;
  } else if (std::string_view("=,!@|").find(c) != std::string_view::npos) {
    return "operator " + shown(c) + at(i) + " is reserved for future extensions";
  } else if (c == '}') {
    return "empty expression" + at(open);
  } else if (!is_varchar(text, i) && c != '%') {
    return "unknown operator " + shown(c) + at(i);
  }
  for (;;) {
    if (i == text.size()) return unclosed;
    VarSpec var;
    const std::size_t name_start = i;
    // varname = varchar *( ["."] varchar )
    while (i < text.size()) {
      if (is_varchar(text, i)) {
        i += text[i] == '%' ? 3 : 1;
      } else if (text[i] == '.' && i > name_start && i + 1 < text.size() &&
                 is_varchar(text, i + 1)) {
        ++i;
      } else {
        break;
      }
    }
    var.name.assign(text.substr(name_start, i - name_start));
    if (i == text.size()) return unclosed;
    if (var.name.empty()) {
      if (text[i] == ',' || text[i] == '}') return "empty variable name" + at(i);
      if (text[i] == '%') return "'%' in a variable name" + at(i) + " is not a pct-encoded triplet";
      return "invalid character " + shown(text[i]) + " in a variable name" + at(i);
    }
    if (text[i] == ':') {
      const std::size_t digits = ++i;
      while (i < text.size() && detail::is_digit(text[i]) && i - digits < 5) ++i;
      const std::size_t count = i - digits;
      if (count == 0 || count > 4 || text[digits] == '0') {
        return "prefix length" + at(digits) + " must be a number from 1 to 9999";
      }
      var.prefix = std::stoi(std::string(text.substr(digits, count)));
    } else if (text[i] == '*') {
      var.explode = true;
      ++i;
    }
    expression.vars.push_back(std::move(var));
    if (expression.vars.size() > UriTemplate::kMaxVariablesPerExpression) {
      return "more than " + std::to_string(UriTemplate::kMaxVariablesPerExpression) +
             " variables in the expression" + at(open);
    }
    if (i == text.size()) return unclosed;
    if (text[i] == '}') break;
    if (text[i] == ',') {
      ++i;
      continue;
    }
    if (text[i] == '{') return "'{'" + at(i) + " inside an expression";
    if (text[i] == '%') return "'%' in a variable name" + at(i) + " is not a pct-encoded triplet";
    return "unexpected character " + shown(text[i]) + at(i) + " in an expression";
  }
  end = i + 1;
  return expression;
}

// Appends `value` with every byte outside the allowed set pct-encoded (RFC 6570 3.2.1).
void append_encoded(std::string& out, std::string_view value, bool allow_reserved) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (detail::is_unreserved(c) || (allow_reserved && detail::is_reserved(c))) {
      out.push_back(value[i]);
    } else if (allow_reserved && is_pct_encoded(value, i)) {
      out.append(value.substr(i, 3));
      i += 2;
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
}

}  // namespace

std::variant<UriTemplate, std::string> UriTemplate::parse(std::string_view text) {
  UriTemplate result;
  result.text_.assign(text);
  std::string literal;
  const auto flush_literal = [&] {
    if (!literal.empty()) result.parts_.emplace_back(Literal{std::exchange(literal, {})});
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '{') {
      flush_literal();
      std::size_t end = 0;
      auto expression = parse_expression(text, i, end);
      if (auto* error = std::get_if<std::string>(&expression)) return std::move(*error);
      result.parts_.emplace_back(std::move(std::get<Expression>(expression)));
      i = end;
    } else if (c == '}') {
      return "'}'" + at(i) + " closes no expression";
    } else if (c == '%') {
      if (!is_pct_encoded(text, i)) return "'%'" + at(i) + " does not start a pct-encoded triplet";
      literal.append(text.substr(i, 3));
      i += 3;
    } else if (c < 0x80) {
      if (!is_literal_ascii(c))
        return "character " + shown(text[i]) + at(i) + " is not allowed in a literal";
      literal.push_back(text[i]);
      ++i;
    } else {
      std::size_t invalid = 0;
      const std::size_t length = jsonrpc::utf8_sequence_length(text, i, &invalid);
      if (length == 0) return "invalid UTF-8" + at(i);
      const char32_t cp = code_point_at(text, i, length);
      if (!is_ucschar_or_iprivate(cp)) {
        char code[16];
        std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
        return std::string("character ") + code + at(i) + " is not allowed in a literal";
      }
      literal.append(text.substr(i, length));
      i += length;
    }
  }
  flush_literal();
  for (const Part& part : result.parts_) {
    const auto* expression = std::get_if<Expression>(&part);
    if (expression == nullptr) continue;
    for (const VarSpec& var : expression->vars) {
      bool known = false;
      for (const std::string& name : result.variables_) known = known || name == var.name;
      if (!known) result.variables_.push_back(var.name);
    }
  }
  result.matcher_ = std::make_shared<const detail::TemplateMatcher>(result.parts_);
  return result;
}

std::optional<std::map<std::string, std::string>> UriTemplate::match(std::string_view uri) const {
  if (!matcher_) return std::nullopt;  // moved from
  return matcher_->run(uri);
}

std::string UriTemplate::expand(const std::map<std::string, std::string>& values) const {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const Part& part : parts_) {
    if (const auto* literal = std::get_if<Literal>(&part)) {
      // Literals are valid already; only non-ASCII characters need encoding (3.1).
      for (const char ch : literal->text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
          out.push_back(ch);
        } else {
          out.push_back('%');
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        }
      }
      continue;
    }
    const auto& expression = std::get<Expression>(part);
    const detail::OperatorRules rules = detail::rules_of(expression.op);
    bool first = true;
    for (const VarSpec& var : expression.vars) {
      const auto found = values.find(var.name);
      if (found == values.end()) continue;  // undefined: left out
      out.append(first ? rules.first : rules.sep);
      first = false;
      std::string_view value = found->second;
      if (var.prefix > 0) value = detail::code_point_prefix(value, var.prefix);
      if (rules.named) {
        out.append(var.name);
        if (value.empty()) {
          out.append(rules.ifemp);
          continue;
        }
        out.push_back('=');
      }
      append_encoded(out, value, rules.allow_reserved);
    }
  }
  return out;
}

}  // namespace mcpsh::resources
