#include "suite_runner.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mcpsh::schema::testing {
namespace {

// Every entry needs the remote documents the suite serves at http://localhost:1234/;
// the product never fetches references, so these schemas fail to compile with
// "unresolvable $ref" / "unsupported dialect" instead of validating.
constexpr ExpectedFailure kExpected2020_12[] = {
    {"refRemote.json", "*", "remote $ref to http://localhost:1234/ (never fetched)"},
    {"dynamicRef.json", "strict-tree schema, guards against misspelled properties",
     "$ref to remote tree.json"},
    {"dynamicRef.json", "tests for implementation dynamic anchor and reference link",
     "$ref to remote extendible-dynamic-ref.json"},
    {"dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first",
     "$ref to remote extendible-dynamic-ref.json"},
    {"dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first",
     "$ref to remote extendible-dynamic-ref.json"},
    {"dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor",
     "$ref to remote detached-dynamicref.json"},
    {"vocabulary.json", "schema that uses custom metaschema with with no validation vocabulary",
     "$schema is a remote custom metaschema (rejected as unsupported dialect)"},
    {"vocabulary.json", "ignore unrecognized optional vocabulary",
     "$schema is a remote custom metaschema (rejected as unsupported dialect)"},
};

std::string_view expected_reason(std::span<const ExpectedFailure> expected, std::string_view file,
                                 std::string_view group) {
  for (const auto& e : expected) {
    if (e.file == file && (e.group == "*" || e.group == group)) return e.reason;
  }
  return {};
}

}  // namespace

int FileResult::unexpected_failures() const {
  return static_cast<int>(std::count_if(failed.begin(), failed.end(), [](const CaseOutcome& c) {
    return c.expected_reason.empty();
  }));
}

std::span<const ExpectedFailure> expected_failures_2020_12() { return kExpected2020_12; }

std::vector<FileResult> run_suite(const std::filesystem::path& folder, Dialect dialect,
                                  std::span<const ExpectedFailure> expected, std::string& error) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry);
  }
  if (ec) {
    error = "cannot read " + folder.string() + ": " + ec.message();
    return {};
  }
  std::sort(files.begin(), files.end());

  std::vector<FileResult> results;
  for (const auto& path : files) {
    FileResult result;
    result.file = path.filename().string();
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    if (doc.HasParseError() || !doc.IsArray()) {
      error = "cannot parse " + path.string();
      return {};
    }
    for (const auto& group : doc.GetArray()) {
      std::string group_name = group["description"].GetString();
      std::string_view reason = expected_reason(expected, result.file, group_name);
      auto compiled = CompiledSchema::compile(group["schema"], Limits{}, dialect);
      for (const auto& test : group["tests"].GetArray()) {
        ++result.total;
        CaseOutcome outcome{group_name, test["description"].GetString(), "", reason};
        bool valid = test["valid"].GetBool();
        bool pass = false;
        if (auto* schema = std::get_if<CompiledSchema>(&compiled)) {
          auto violations = schema->validate(test["data"]);
          bool accepted = schema->accepts(test["data"]);
          pass = violations.empty() == valid && accepted == valid;
          outcome.detail = violations.empty() ? "(no violations)" : describe(violations);
          if (accepted != violations.empty()) outcome.detail += " [accepts() disagrees]";
        } else {
          outcome.detail = "compile error: " + std::get<std::string>(compiled);
        }
        if (pass) {
          ++result.passed;
          if (!reason.empty()) result.unexpectedly_passed.push_back(std::move(outcome));
        } else {
          result.failed.push_back(std::move(outcome));
        }
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace mcpsh::schema::testing
