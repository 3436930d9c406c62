#include "mcp/mirrored_headers.h"

#include <charconv>
#include <cstdlib>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"
#include "mcp/header_value.h"
#include "mcp/protocol_versions.h"
#include "mcp/request_meta.h"

namespace mcpsh::mcp {

namespace {

// A legacy client that sends no MCP-Protocol-Version predates the header: 2025-03-26
// (2025-11-25 basic/transports, "Protocol Version Header").
constexpr std::string_view kVersionWithoutHeader = "2025-03-26";

// Values echoed in messages are cut: an argument may be megabytes long.
std::string shown(std::string_view value) {
  constexpr std::size_t kShown = 200;
  if (value.size() <= kShown) return std::string(value);
  return std::string(value.substr(0, kShown)) + "...";
}

HeaderRefusal refusal(std::string message) {
  return HeaderRefusal{kHeaderMismatch, "Header mismatch: " + std::move(message), std::nullopt};
}

HeaderRefusal missing(std::string_view header, std::string_view body_value) {
  return refusal(std::string(header) + " header is missing; body value '" + shown(body_value) +
                 "'");
}

HeaderRefusal mismatch(std::string_view header, std::string_view raw, const std::string& decoded,
                       std::string_view body_value) {
  std::string message = std::string(header) + " header value '" + shown(raw) + "'";
  if (decoded != raw) message += " (decoded '" + shown(decoded) + "')";
  return refusal(message + " does not match body value '" + shown(body_value) + "'");
}

HeaderRefusal undecodable(std::string_view header, std::string_view raw,
                          std::string_view body_value) {
  return refusal(std::string(header) + " header value '" + shown(raw) +
                 "' is not a valid header value (a character outside visible ASCII, space and "
                 "tab, or a =?base64?...?= value that is not base64); body value '" +
                 shown(body_value) + "'");
}

const rapidjson::Value* member(const rapidjson::Value* object, const char* key) {
  if (!object || !object->IsObject()) return nullptr;
  auto it = object->FindMember(key);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

const std::string* param_header(const MirroredHeaders& headers, std::string_view name) {
  for (const auto& [n, v] : headers.params)
    if (same_ignoring_case(n, name)) return &v;
  return nullptr;
}

// The argument at `path`, nullptr when it is absent.
const rapidjson::Value* argument_at(const rapidjson::Value* arguments,
                                    const std::vector<std::string>& path) {
  const rapidjson::Value* at = arguments;
  for (const auto& step : path) {
    if (!at || !at->IsObject()) return nullptr;
    auto it = at->FindMember(rapidjson::StringRef(step.data(), step.size()));
    if (it == at->MemberEnd()) return nullptr;
    at = &it->value;
  }
  return at;
}

// A decimal number as JSON writes one (an optional '-', digits, an optional fraction and
// exponent): "42", "42.0", "-7", "4.2e1". No hex, no "inf", no spaces.
bool decimal_number_text(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (!digits()) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// Integers compare numerically (42 == 42.0): exactly when both are whole numbers in
// 64 bits, else as doubles (exact within the safe integer range x-mcp-header allows).
bool same_number(const std::string& header, const rapidjson::Value& body) {
  if (!decimal_number_text(header)) return false;
  if (body.IsInt64()) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), n);
    if (ec == std::errc() && end == header.data() + header.size()) return n == body.GetInt64();
  }
  return std::strtod(header.c_str(), nullptr) == body.GetDouble();
}

bool same_value(const std::string& header, const rapidjson::Value& body) {
  if (body.IsString()) return header == std::string_view(body.GetString(), body.GetStringLength());
  if (body.IsBool()) return header == (body.GetBool() ? "true" : "false");
  if (body.IsNumber()) return same_number(header, body);
  return false;  // an object or array cannot be mirrored
}

std::string body_text(const rapidjson::Value& body) {
  if (body.IsString()) return std::string(body.GetString(), body.GetStringLength());
  return jsonrpc::to_json(body);
}

std::optional<HeaderRefusal> check_param(const MirroredHeaders& headers, const HeaderParam& param,
                                         const rapidjson::Value* arguments) {
  const std::string header = "Mcp-Param-" + param.name;
  const rapidjson::Value* body = argument_at(arguments, param.path);
  const std::string* raw = param_header(headers, param.name);
  if (!body || body->IsNull()) {
    // The client omits the header for an absent or null argument; one that sends it
    // anyway states a value the body does not hold.
    if (!raw) return std::nullopt;
    return refusal(header + " header value '" + shown(trim_ows(*raw)) +
                   "' has no counterpart: the argument is " + (body ? "null" : "absent"));
  }
  const std::string expected = body_text(*body);
  if (!raw) return missing(header, expected);
  std::string_view value = trim_ows(*raw);
  auto decoded = decode_header_value(value);
  if (!decoded) return undecodable(header, value, expected);
  if (!same_value(*decoded, *body)) return mismatch(header, value, *decoded, expected);
  return std::nullopt;
}

}  // namespace

MirroredEra mirrored_era(const MirroredHeaders& headers, std::string_view method,
                         const rapidjson::Value* params) {
  std::optional<std::string_view> header;
  if (headers.protocol_version) header = trim_ows(*headers.protocol_version);
  if (const rapidjson::Value* body = modern_meta_version(params)) {
    std::string_view body_version =
        body->IsString() ? std::string_view(body->GetString(), body->GetStringLength())
                         : std::string_view();
    if (!header) return missing("MCP-Protocol-Version", body_version);
    // A version that is not a string is refused by route() with -32602: the header has
    // nothing to match yet.
    if (body->IsString() && *header != body_version)
      return mismatch("MCP-Protocol-Version", *header, std::string(*header), body_version);
    return ModernEra{};
  }
  if (method == "initialize") return AsOnStdio{};
  // A modern header over a body without modern _meta: a modern request that route()
  // refuses for its missing _meta (-32602) or its legacy-only method (-32601).
  if (header && is_modern_version(*header)) return ModernEra{};
  if (!header) return StatelessLegacy{std::string(kVersionWithoutHeader)};
  if (is_legacy_version(*header)) return StatelessLegacy{std::string(*header)};
  return HeaderRefusal{
      jsonrpc::kUnsupportedProtocolVersion,
      "Unsupported protocol version: " + shown(*header) + " (MCP-Protocol-Version header)",
      std::string(*header)};
}

std::optional<HeaderRefusal> check_mirrored_body(const MirroredHeaders& headers,
                                                 std::string_view method,
                                                 const rapidjson::Value* params,
                                                 const HeaderParamsOf& header_params_of) {
  if (!headers.method) return missing("Mcp-Method", method);
  std::string_view sent = trim_ows(*headers.method);
  if (sent != method) return mismatch("Mcp-Method", sent, std::string(sent), method);

  // The tasks extension routes tasks/get, tasks/update and tasks/cancel by their taskId.
  const char* name_key = method == "tools/call" || method == "prompts/get" ? "name"
                         : method == "resources/read"                      ? "uri"
                         : method.rfind("tasks/", 0) == 0                  ? "taskId"
                                                                           : nullptr;
  if (!name_key) return std::nullopt;
  const rapidjson::Value* body = member(params, name_key);
  // No name in the body: the method refuses the request itself (-32602), which says more.
  if (!body || !body->IsString()) return std::nullopt;
  std::string_view name(body->GetString(), body->GetStringLength());
  if (!headers.name) return missing("Mcp-Name", name);
  std::string_view value = trim_ows(*headers.name);
  auto decoded = decode_header_value(value);
  if (!decoded) return undecodable("Mcp-Name", value, name);
  if (*decoded != name) return mismatch("Mcp-Name", value, *decoded, name);

  if (method != "tools/call" || !header_params_of) return std::nullopt;
  const auto* declared = header_params_of(name);
  if (!declared) return std::nullopt;
  const rapidjson::Value* arguments = member(params, "arguments");
  for (const auto& param : *declared)
    if (auto no = check_param(headers, param, arguments)) return no;
  return std::nullopt;
}

}  // namespace mcpsh::mcp
