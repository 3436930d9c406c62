#include "schema/json_schema.h"

#include <rapidjson/error/en.h>

#include "schema/compiler.h"
#include "schema/evaluator.h"
#include "schema/messages.h"

namespace mcpsh::schema {

CompiledSchema::CompiledSchema(std::shared_ptr<const detail::SchemaData> data)
    : data_(std::move(data)) {}

std::variant<CompiledSchema, std::string> CompiledSchema::compile(const rapidjson::Value& schema,
                                                                  Limits limits,
                                                                  Dialect default_dialect) {
  // The copy recurses over the value: check its depth first.
  if (auto error = detail::check_nesting(schema, limits)) return *error;
  auto doc = std::make_unique<rapidjson::Document>();
  doc->CopyFrom(schema, doc->GetAllocator());
  auto result = detail::compile_schema(std::move(doc), limits, default_dialect);
  if (auto* error = std::get_if<std::string>(&result)) return std::move(*error);
  return CompiledSchema(std::get<0>(std::move(result)));
}

std::variant<CompiledSchema, std::string> CompiledSchema::compile_text(std::string_view schema_json,
                                                                       Limits limits,
                                                                       Dialect default_dialect) {
  auto doc = std::make_unique<rapidjson::Document>();
  // Iterative parsing: a deeply nested text cannot exhaust the stack.
  doc->Parse<rapidjson::kParseIterativeFlag>(schema_json.data(), schema_json.size());
  if (doc->HasParseError()) {
    return "invalid schema: not valid JSON (" +
           std::string(rapidjson::GetParseError_En(doc->GetParseError())) + " at offset " +
           std::to_string(doc->GetErrorOffset()) + ")";
  }
  auto result = detail::compile_schema(std::move(doc), limits, default_dialect);
  if (auto* error = std::get_if<std::string>(&result)) return std::move(*error);
  return CompiledSchema(std::get<0>(std::move(result)));
}

std::vector<Violation> CompiledSchema::validate(const rapidjson::Value& instance) const {
  return detail::collect_violations(*data_, instance);
}

bool CompiledSchema::accepts(const rapidjson::Value& instance) const {
  return detail::instance_accepted(*data_, instance);
}

std::string describe(const std::vector<Violation>& violations) {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += '\n';
    out += detail::display_path(v.path);
    out += ": ";
    out += v.message;
  }
  return out;
}

}  // namespace mcpsh::schema
