// Fuzz target: the comment-metadata parsers (src/discovery/comment_metadata.h and
// entry_metadata.h: tools, resources, prompts). An input
// is the text of a script; the function is on a line appended after it, so the whole
// input is the candidate comment block.
//
// Invariants: definition_json is one JSON object naming the tool, with an object
// inputSchema; a timeout, when set, is positive; every error names its line. The
// inputSchema then goes through the schema compiler, as discovery's catalog does.
#include <rapidjson/document.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "discovery/comment_metadata.h"
#include "discovery/entry_metadata.h"
#include "resources/uri_template.h"
#include "schema/json_schema.h"

namespace {

// Fault 6 of the open issue (a "@timeout" too large for milliseconds is converted
// without a range check: undefined behaviour) is fixed elsewhere; until then such inputs
// are skipped so that the fuzzer looks for other faults. Remove once fixed.
constexpr bool kSkipKnownTimeoutOverflow = false;

bool has_overflowing_timeout(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    auto at = line.find("@timeout");
    if (at == std::string::npos) continue;
    std::string rest = line.substr(at + 8);
    double seconds = std::strtod(rest.c_str(), nullptr);
    if (std::isfinite(seconds) && std::ceil(seconds * 1000) >= 9.2e18) return true;
  }
  return false;
}

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mcpsh;
  std::vector<std::string> lines;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t start = 0;
  // A final newline ends the last line; it does not start a blank one (a blank line would
  // end the comment block before the function, and the parser would see no block at all).
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (kSkipKnownTimeoutOverflow && has_overflowing_timeout(lines)) return 0;
  lines.push_back("tool_t() { :; }");
  auto meta = discovery::metadata_from_comments("t", lines, static_cast<int>(lines.size()));

  rapidjson::Document tool;
  tool.Parse<rapidjson::kParseIterativeFlag>(meta.definition_json.c_str(),
                                             meta.definition_json.size());
  if (tool.HasParseError() || !tool.IsObject())
    fail("definition is not a JSON object", meta.definition_json);
  auto name = tool.FindMember("name");
  if (name == tool.MemberEnd() || !name->value.IsString() ||
      std::string(name->value.GetString()) != "t")
    fail("definition does not name the tool", meta.definition_json);
  auto input = tool.FindMember("inputSchema");
  if (input == tool.MemberEnd() || !input->value.IsObject())
    fail("definition has no object inputSchema", meta.definition_json);
  if (meta.timeout && meta.timeout->count() <= 0)
    fail("timeout not positive", std::to_string(meta.timeout->count()));
  for (const auto& e : meta.errors)
    if (e.rfind("line ", 0) != 0) fail("error without a line", e);
  (void)schema::CompiledSchema::compile(input->value);

  // The same block above a resource and a prompt (src/discovery/entry_metadata.h): the
  // definition is a JSON object naming it; a template, when it is one, goes through the
  // URI template parser as the registry does; prompt arguments are listed in order.
  auto resource = discovery::resource_from_comments("r", lines, static_cast<int>(lines.size()));
  if (resource.errors.empty()) {
    rapidjson::Document d;
    d.Parse(resource.entry.definition_json.c_str(), resource.entry.definition_json.size());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("name"))
      fail("resource definition is not an object with a name", resource.entry.definition_json);
    if (!d.HasMember(resource.entry.is_template ? "uriTemplate" : "uri"))
      fail("resource definition lacks its uri", resource.entry.definition_json);
    if (resource.entry.is_template) (void)resources::UriTemplate::parse(resource.entry.uri);
  }
  auto prompt = discovery::prompt_from_comments("p", lines, static_cast<int>(lines.size()));
  if (prompt.errors.empty()) {
    rapidjson::Document d;
    d.Parse(prompt.entry.definition_json.c_str(), prompt.entry.definition_json.size());
    if (d.HasParseError() || !d.IsObject())
      fail("prompt definition is not an object", prompt.entry.definition_json);
    const std::size_t listed = d.HasMember("arguments") ? d["arguments"].Size() : 0;
    if (listed != prompt.entry.arguments.size())
      fail("prompt arguments listed differ from those kept", prompt.entry.definition_json);
  }
  return 0;
}
