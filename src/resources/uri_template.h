#pragma once
// RFC 6570 URI templates (levels 1 to 4) for resource templates: parsing, expansion with
// string values, and the reverse, matching a concrete URI to recover the values.
//
// Values are strings only: a variable is either absent (undefined) or a string, possibly
// empty. Lists and maps are not supported, so the explode modifier {var*} changes nothing
// (RFC 6570 section 3.2.1 defines it for composite values only).
//
// Matching. match(uri) succeeds when values exist whose expansion is `uri`, up to
// percent-encoding (the URI may encode more characters than expand() would, with hex
// digits in either case), under these rules:
//  - The whole URI must match; literals compare byte for byte (no case folding), except
//    that a non-ASCII literal character also matches its percent-encoded UTF-8 form in
//    upper case, which is what expand() writes for it.
//  - A value is one or more characters that are unreserved or pct-encoded: {id} never
//    spans '/', '?', '#', ',' or any other reserved character. {+var} and {#var} also
//    allow raw reserved characters, so {+path} spans '/'. Raw non-ASCII bytes are never
//    part of a value.
//  - Values are percent-decoded, in {+var} too (so a value holding "%41" that expand()
//    passed through comes back as "A"). A decoded value must be valid UTF-8 without NUL
//    (values become JSON strings for shell functions); a split that needs another value
//    is not taken, and a URI with no other split does not match. A prefix modifier
//    {var:N} limits the decoded value to N code points.
//  - Empty values are matched only where a name makes them visible: {;x} matches ";x",
//    {?x} matches "?x=", {&x} matches "&x=" (x = ""). Every other value is non-empty.
//  - {var} and {+var} expressions are required: at least their first variable is present.
//    Expressions with a prefix (# . / ; ? &) are optional: when the URI holds nothing of
//    them, all their variables are absent ("search://q" matches search://q{?query}).
//  - In an expression of several unnamed variables ({x,y}, {/x,y}, {.x,y}, ...), the
//    values present go to the first variables in order; the trailing ones may be absent.
//  - Named expressions ({;x,y}, {?x,y}, {&x,y}) accept their name=value items in any
//    order, each name at most once; each is optional; an unknown name does not match.
//  - A variable used more than once ({x}/{x}) must have the same value everywhere it is
//    used (a prefix use {x:3} must see the first 3 code points of it), and be present
//    everywhere or nowhere. This is checked on the split chosen by the next rule; no
//    other split is tried when the check fails.
//  - When a URI splits in more than one way, earlier expressions and variables take as
//    much as they can (like a greedy regular expression), and an optional expression or
//    variable is taken rather than left out: {a}{b} on "xyz" gives a=xy, b=z;
//    {+x}/{y} on "a/b/c" gives x=a/b, y=c; {.x,y} on ".a.b" gives x=a.b, y absent.
// The matcher simulates an automaton without backtracking (template_matcher.h): time
// grows linearly with the length of the URI times the size of the template, never
// exponentially, whatever the input; a 64 KiB URI is fine.
//
// Thread safety: a UriTemplate is immutable after parse(); concurrent match() and
// expand() calls on one object are safe. A moved-from UriTemplate matches nothing.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "resources/template_parts.h"

namespace mcpsh::resources {

namespace detail {
class TemplateMatcher;
}

class UriTemplate {
 public:
  // A template of RFC 6570 levels 1-4: literals and expressions {var}, {+var}, {#var},
  // {.var}, {/var}, {;var}, {?var}, {&var}, several variables per expression ({x,y}),
  // prefix modifiers {var:3} and explode {var*}. Returns the reason when the text is not
  // a valid template (unbalanced braces, bad variable names, unknown operators, the
  // reserved operators = , ! @ |, a literal with characters RFC 6570 forbids, more than
  // kMaxVariablesPerExpression variables in one expression, invalid UTF-8, ...).
  static std::variant<UriTemplate, std::string> parse(std::string_view text);

  // The template as given to parse().
  const std::string& text() const { return text_; }
  // Variable names as written in the template, in order of first appearance, each once.
  const std::vector<std::string>& variables() const { return variables_; }
  bool has_variables() const { return !variables_.empty(); }

  // Matches a concrete URI (rules above). On success, the value of every variable that
  // matched (percent-decoded; a variable that an optional expression left out is absent).
  std::optional<std::map<std::string, std::string>> match(std::string_view uri) const;

  // Expansion by RFC 6570 section 3 with string values: a variable missing from `values`
  // is undefined. Values are expected to be UTF-8 (prefixes count code points).
  std::string expand(const std::map<std::string, std::string>& values) const;

  static constexpr std::size_t kMaxVariablesPerExpression = detail::kMaxVariablesPerExpression;

 private:
  UriTemplate() = default;

  std::string text_;
  std::vector<std::string> variables_;
  std::vector<detail::Part> parts_;
  // Shared: the automaton can be large and a template is copied around by value.
  std::shared_ptr<const detail::TemplateMatcher> matcher_;
};

}  // namespace mcpsh::resources
