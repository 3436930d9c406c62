// URI references and JSON pointers, as far as JSON Schema identifiers need them.
//
// Contract: pure functions on strings; nothing here touches the network or the disk.
// URIs are handled textually (RFC 3986 section 5 resolution, no IRI mapping); a base
// may be empty or relative (a schema without "$id" has no absolute base), in which case
// resolution still merges paths so that relative "$id"s and "$ref"s stay consistent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpsh::schema::detail {

// Resolves `ref` against `base` (RFC 3986 section 5.2), then normalizes the result:
// lowercase scheme and host, and an empty trailing fragment ("x#") dropped.
std::string resolve_uri(std::string_view base, std::string_view ref);

// Splits "abs#frag" into {"abs", "frag"}; the fragment is returned raw (not decoded).
struct UriParts {
  std::string absolute;
  std::string fragment;
  bool has_fragment = false;
};
UriParts split_fragment(std::string_view uri);

// Percent-decodes; malformed escapes are kept literally.
std::string percent_decode(std::string_view text);

// Parses a decoded JSON pointer ("" or "/a/b~1c"); nullopt if it is not one.
std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer);

// Escapes one reference token ("a/b" -> "a~1b").
std::string escape_pointer_token(std::string_view token);

}  // namespace mcpsh::schema::detail
