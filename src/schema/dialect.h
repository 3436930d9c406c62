// Which keywords exist in which dialect, and which "$schema" URIs name a dialect.
//
// Contract: static tables; draft-07 and 2019-09 are mapped onto the 2020-12 evaluator
// by the compiler, so this only answers "is this keyword meaningful here".
#pragma once

#include <optional>
#include <string_view>

#include "schema/json_schema.h"

namespace mcpsh::schema::detail {

// "https://json-schema.org/draft/2020-12/schema" and friends (http or https, with or
// without the empty fragment); nullopt for anything else.
std::optional<Dialect> dialect_from_uri(std::string_view uri);

std::string_view dialect_name(Dialect d);

// Whether `keyword` is defined by the dialect (unknown keywords are annotations).
bool has_keyword(Dialect d, std::string_view keyword);

}  // namespace mcpsh::schema::detail
