// Fuzz target: RFC 6570 URI templates (src/resources/uri_template.h). The first line of an
// input is a template; every further line is a URI matched against it.
//
// Invariants: parse() returns a template or a reason; match() answers (in time linear in
// the URI: the run's timeout catches a blow-up); every value a match returns is UTF-8
// without NUL (the values reach shell functions as JSON strings) and names a variable of
// the template; expanding the values of a match gives a URI the template matches again
// (unless a value holds '%', see below).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "jsonrpc/utf8.h"
#include "resources/uri_template.h"

namespace {
[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "%s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using mcpsh::resources::UriTemplate;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto nl = input.find('\n');
  auto parsed = UriTemplate::parse(input.substr(0, nl));
  auto* t = std::get_if<UriTemplate>(&parsed);
  if (!t) return 0;
  while (nl != std::string_view::npos) {
    input.remove_prefix(nl + 1);
    nl = input.find('\n');
    auto values = t->match(input.substr(0, nl));
    if (!values) continue;
    for (const auto& [name, value] : *values) {
      bool known = false;
      for (const auto& v : t->variables()) known |= v == name;
      if (!known) fail("a value for a variable the template lacks", name);
      if (value.find('\0') != std::string::npos || !mcpsh::jsonrpc::is_valid_utf8(value))
        fail("a value that is not UTF-8 without NUL", value);
    }
    // A value holding '%' is exempt: {+var} and {#var} pass a pct-encoded triplet in a
    // value through unencoded (RFC 6570 3.2.3), which a match then decodes.
    bool percent = false;
    for (const auto& [name, value] : *values) percent |= value.find('%') != std::string::npos;
    if (!percent && !t->match(t->expand(*values)))
      fail("the expansion of a match does not match", t->expand(*values));
  }
  return 0;
}
