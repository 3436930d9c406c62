// What the evaluator records for one violation before it becomes a public Violation:
// the extra fields let anyOf/oneOf explanations combine their alternatives' failures.
//
// Contract: plain data, owned by one validation call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mcpsh::schema::detail {

enum class IssueKind { kOther, kType, kValue };

struct Issue {
  std::string path;
  size_t depth = 0;  // segments in path
  std::string message;
  IssueKind kind = IssueKind::kOther;
  uint8_t expected_types = 0;  // kType: what was expected
  std::string allowed;         // kValue: the allowed values, as text
};

// Where violations go. Every issue in a sink is a definite failure of the evaluation
// that owns the sink, so once it is full that evaluation can stop.
struct Sink {
  std::vector<Issue> issues;
  size_t cap = 1;
  bool full() const { return issues.size() >= cap; }
  void add(Issue issue) {
    if (!full()) issues.push_back(std::move(issue));
  }
};

}  // namespace mcpsh::schema::detail
