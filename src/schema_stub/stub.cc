#include "schema/json_schema.h"
namespace mcpsh::schema {
namespace detail { struct SchemaData {}; }
CompiledSchema::CompiledSchema(std::shared_ptr<const detail::SchemaData> d) : data_(std::move(d)) {}
std::variant<CompiledSchema, std::string> CompiledSchema::compile(const rapidjson::Value&, Limits, Dialect) { return CompiledSchema(std::make_shared<detail::SchemaData>()); }
std::vector<Violation> CompiledSchema::validate(const rapidjson::Value&) const { return {}; }
std::string describe(const std::vector<Violation>&) { return ""; }
}
