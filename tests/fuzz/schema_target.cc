// Fuzz target: the schema compiler, validator and regex engine (src/schema). The first
// line of an input is a schema; every further line is an instance validated against it.
//
// Invariants: compile() returns a schema or a message, never throws; for each instance
// accepts() agrees with validate().empty() (json_schema.h) and validate() returns at
// most Limits::max_violations entries. Documents nested deeper than the host accepts
// (jsonrpc::kMaxNesting) are skipped: the host refuses them before any validation.
#include <rapidjson/document.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "jsonrpc/message.h"
#include "schema/json_schema.h"

namespace {

using namespace mcpsh;

bool parse(std::string_view text, rapidjson::Document& d) {
  if (jsonrpc::nesting_depth(text) > jsonrpc::kMaxNesting) return false;
  d.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  return !d.HasParseError();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto nl = input.find('\n');
  rapidjson::Document schema_doc;
  if (!parse(input.substr(0, nl), schema_doc)) return 0;
  schema::Limits limits;
  limits.max_steps = 20000;  // keeps one input fast; the budget path is what matters
  auto compiled = schema::CompiledSchema::compile(schema_doc, limits);
  auto* schema = std::get_if<schema::CompiledSchema>(&compiled);
  if (!schema) return 0;
  while (nl != std::string_view::npos) {
    input.remove_prefix(nl + 1);
    nl = input.find('\n');
    rapidjson::Document instance;
    if (!parse(input.substr(0, nl), instance)) continue;
    auto violations = schema->validate(instance);
    bool accepted = schema->accepts(instance);
    if (accepted != violations.empty() ||
        violations.size() > static_cast<std::size_t>(limits.max_violations)) {
      std::fprintf(stderr, "accepts()=%d but validate() found %zu violations:\n%s\n", accepted,
                   violations.size(), schema::describe(violations).c_str());
      std::abort();
    }
  }
  return 0;
}
