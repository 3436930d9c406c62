// JSON Schema validation for tool inputSchema/outputSchema (ADR 0006).
//
// Contract:
// - compile() checks a schema once (structure, $ref resolution, bounds) and returns
//   either a CompiledSchema or one error message naming the problem and its location
//   ("invalid schema at #/properties/seats: \"maximum\" must be a number").
// - A CompiledSchema is immutable; copies share it. validate()/accepts() may run
//   concurrently from any number of threads. The instance is only read, and only
//   during the call.
// - Nothing is ever fetched: a "$ref" that does not resolve inside the schema (or to
//   the built-in 2020-12 metaschema) is a compile error.
// - Dialects: 2020-12 (the default when "$schema" is absent), 2019-09 and draft-07;
//   any other "$schema" is a compile error "unsupported dialect ...".
// - Work is bounded by Limits. A validation that exceeds max_steps or max_eval_depth
//   fails with the single violation "schema too expensive to evaluate"; accepts()
//   returns false in that case.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::schema {

struct Violation {
  // Instance location: "" for the root, else like `seats[2].row` or `tags["a b"]`.
  std::string path;
  // For a language model to act on, e.g. `expected integer, got string "two"`.
  std::string message;
};

enum class Dialect { kDraft07, kDraft2019_09, kDraft2020_12 };

struct Limits {
  int max_depth = 64;          // subschemas nested in subschemas, at compile time
  int max_subschemas = 10000;  // compiled subschemas, including any metaschema used
  int max_violations = 50;     // entries validate() returns; the last says if truncated
  long max_steps = 1'000'000;  // work units per validate()/accepts()
  int max_eval_depth = 256;    // nested schema applications (e.g. $ref recursion)
};

namespace detail {
struct SchemaData;
}

class CompiledSchema {
 public:
  static std::variant<CompiledSchema, std::string> compile(
      const rapidjson::Value& schema, Limits limits = {},
      Dialect default_dialect = Dialect::kDraft2020_12);
  static std::variant<CompiledSchema, std::string> compile_text(
      std::string_view schema_json, Limits limits = {},
      Dialect default_dialect = Dialect::kDraft2020_12);

  // Every violation (up to Limits::max_violations), in the order found; empty = valid.
  std::vector<Violation> validate(const rapidjson::Value& instance) const;
  // Same verdict as validate().empty(), without building messages.
  bool accepts(const rapidjson::Value& instance) const;

 private:
  explicit CompiledSchema(std::shared_ptr<const detail::SchemaData> data);
  std::shared_ptr<const detail::SchemaData> data_;
};

// One line per violation, "path: message", the root shown as "(root)".
std::string describe(const std::vector<Violation>& violations);

}  // namespace mcpsh::schema
