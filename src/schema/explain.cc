#include "schema/explain.h"

#include <algorithm>

#include "schema/messages.h"

namespace mcpsh::schema::detail {

void explain_failures(std::string_view keyword, std::vector<Sink>& failures,
                      const std::string& here, size_t depth, const rapidjson::Value& v, Sink& out) {
  auto at_here = [&](const Issue& i, IssueKind kind) { return i.kind == kind && i.path == here; };
  std::vector<size_t> candidates;
  uint8_t expected = 0;
  bool all_values = true;
  std::string allowed;
  for (size_t i = 0; i < failures.size(); ++i) {
    const auto& issues = failures[i].issues;
    bool wrong_type = false;
    for (const Issue& issue : issues) {
      if (at_here(issue, IssueKind::kType)) {
        wrong_type = true;
        expected |= issue.expected_types;
      }
    }
    if (!wrong_type) candidates.push_back(i);
    bool only_value = !issues.empty() && std::all_of(issues.begin(), issues.end(), [&](auto& x) {
      return at_here(x, IssueKind::kValue);
    });
    if (only_value) {
      if (!allowed.empty()) allowed += ", ";
      allowed += issues.front().allowed;
    }
    all_values = all_values && only_value;
  }
  if (candidates.empty()) {
    out.add(Issue{here, depth, msg::expected_type(expected, v), IssueKind::kType, expected, {}});
    return;
  }
  if (all_values) {
    out.add(Issue{here, depth, msg::one_of_values(allowed), IssueKind::kValue, 0, allowed});
    return;
  }
  auto discriminator = [&](const Issue& x) {
    return x.kind == IssueKind::kValue && x.depth == depth + 1 && x.path.starts_with(here);
  };
  // Every candidate rejects the same member's value: that member is the discriminator
  // and the useful answer is its allowed values.
  for (const Issue& first : failures[candidates[0]].issues) {
    if (!discriminator(first)) continue;
    std::string values;
    bool shared = true;
    for (size_t i : candidates) {
      const auto& issues = failures[i].issues;
      auto same = std::find_if(issues.begin(), issues.end(), [&](const Issue& x) {
        return discriminator(x) && x.path == first.path;
      });
      if (same == issues.end()) {
        shared = false;
        break;
      }
      if (!values.empty()) values += ", ";
      values += same->allowed;
    }
    if (shared) {
      out.add(
          Issue{first.path, first.depth, msg::one_of_values(values), IssueKind::kValue, 0, values});
      return;
    }
  }
  std::vector<size_t> narrowed;
  for (size_t i : candidates) {
    const auto& issues = failures[i].issues;
    if (std::none_of(issues.begin(), issues.end(), discriminator)) narrowed.push_back(i);
  }
  if (narrowed.empty()) narrowed = candidates;
  if (narrowed.size() == 1) {
    for (Issue& issue : failures[narrowed[0]].issues) out.add(std::move(issue));
    return;
  }
  out.add(
      Issue{here, depth, msg::no_alternative(keyword, failures.size()), IssueKind::kOther, 0, {}});
  constexpr size_t kShownAlternatives = 3;
  for (size_t k = 0; k < narrowed.size() && k < kShownAlternatives; ++k) {
    for (Issue& issue : failures[narrowed[k]].issues) {
      issue.message = msg::in_alternative(issue.message, keyword, narrowed[k]);
      issue.kind = IssueKind::kOther;
      out.add(std::move(issue));
    }
  }
}

}  // namespace mcpsh::schema::detail
