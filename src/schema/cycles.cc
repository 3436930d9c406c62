#include "schema/cycles.h"

#include <vector>

namespace mcpsh::schema::detail {
namespace {

// Subschemas applied to the same instance location as `n`.
std::vector<const Node*> in_place_edges(const Node& n) {
  std::vector<const Node*> out;
  for (const Node* x :
       {n.ref, n.dynamic_ref, n.not_schema, n.if_schema, n.then_schema, n.else_schema}) {
    if (x) out.push_back(x);
  }
  for (const auto* list : {&n.all_of, &n.any_of, &n.one_of}) {
    out.insert(out.end(), list->begin(), list->end());
  }
  for (const auto& [name, x] : n.dependent_schemas) out.push_back(x);
  return out;
}

}  // namespace

// Iterative DFS (grey = on the current path): reference chains can be long.
std::optional<std::string> find_reference_cycle(const std::deque<Node>& nodes) {
  enum : char { kWhite, kGrey, kBlack };
  std::vector<char> color(nodes.size(), kWhite);
  struct Frame {
    const Node* node;
    std::vector<const Node*> next;
    size_t i;
  };
  for (const Node& start : nodes) {
    if (color[start.index] != kWhite) continue;
    std::vector<Frame> stack;
    stack.push_back({&start, in_place_edges(start), 0});
    color[start.index] = kGrey;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.i == f.next.size()) {
        color[f.node->index] = kBlack;
        stack.pop_back();
        continue;
      }
      const Node* to = f.next[f.i++];
      if (color[to->index] == kGrey) {
        std::string path;
        bool on = false;
        for (const auto& frame : stack) {
          on = on || frame.node == to;
          if (on) path += frame.node->location + " -> ";
        }
        return "invalid schema: reference cycle " + path + to->location +
               " applies a schema to the same value forever";
      }
      if (color[to->index] == kWhite) {
        color[to->index] = kGrey;
        stack.push_back({to, in_place_edges(*to), 0});
      }
    }
  }
  return std::nullopt;
}

}  // namespace mcpsh::schema::detail
