// Fuzz target: the regex engine alone (src/schema/regex.h). The first line of an input is
// a pattern; every further line is a subject searched with a bounded budget.
//
// Invariants: compile() returns a program or a message; a program never exceeds
// kMaxProgram; search() either answers within its budget or reports it ran out, and never
// spends more than it was given (budget >= 0 after an answer).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "schema/regex.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using mcpsh::schema::detail::Regex;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto nl = input.find('\n');
  auto compiled = Regex::compile(input.substr(0, nl));
  auto* regex = std::get_if<Regex>(&compiled);
  if (!regex) return 0;
  while (nl != std::string_view::npos) {
    input.remove_prefix(nl + 1);
    nl = input.find('\n');
    long budget = 100000;
    auto found = regex->search(input.substr(0, nl), budget);
    if (found && budget < 0) {
      std::fprintf(stderr, "search answered after overspending its budget (%ld)\n", budget);
      std::abort();
    }
  }
  return 0;
}
