#pragma once
// Matching URIs against a parsed URI template (the rules are documented in
// uri_template.h). The template is compiled once into an automaton over URI units
// (template_automaton.h), which run() simulates Thompson-style: all alternatives advance
// together one unit at a time, in priority order, and a thread that reaches a state
// already held by a thread of higher priority is dropped, unless it carries a weaker
// constraint (a smaller prefix count, or fewer names seen in a named expression). There is
// no backtracking: time is O(URI length x automaton size x threads kept per state), and
// that last factor is 1 except in contrived templates, where it is bounded by the prefix
// length and the number of names of one expression. Memory follows the number of live
// threads, not the length of the URI.
//
// Contract: immutable after construction; run() allocates its own scratch, so concurrent
// calls are safe.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resources/template_automaton.h"
#include "resources/template_parts.h"

namespace mcpsh::resources::detail {

class TemplateMatcher {
 public:
  // `parts` must come from UriTemplate::parse.
  explicit TemplateMatcher(const std::vector<Part>& parts);

  // The values of the variables, or nullopt when `uri` does not match.
  std::optional<std::map<std::string, std::string>> run(std::string_view uri) const;

 private:
  Automaton automaton_;
};

}  // namespace mcpsh::resources::detail
