#include "schema/evaluator.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>

#include "schema/explain.h"
#include "schema/issues.h"
#include "schema/json_util.h"
#include "schema/messages.h"

namespace mcpsh::schema::detail {
namespace {

using rapidjson::Value;

// For one instance value (object or array): which members / items some successful
// subschema has evaluated, by position.
class Evaluated {
 public:
  explicit Evaluated(const Value& v)
      : seen_(v.IsObject()  ? v.MemberCount()
              : v.IsArray() ? v.Size()
                            : 0,
              0) {}
  void mark(size_t i) { seen_[i] = 1; }
  void mark_all() { std::fill(seen_.begin(), seen_.end(), 1); }
  bool seen(size_t i) const { return seen_[i] != 0; }
  void merge(const Evaluated& other) {
    for (size_t i = 0; i < seen_.size(); ++i) seen_[i] |= other.seen_[i];
  }

 private:
  std::vector<char> seen_;
};

uint8_t type_bits(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return kTypeNull;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return kTypeBoolean;
    case rapidjson::kObjectType:
      return kTypeObject;
    case rapidjson::kArrayType:
      return kTypeArray;
    case rapidjson::kStringType:
      return kTypeString;
    case rapidjson::kNumberType:
      return kTypeNumber | (is_integer(v) ? kTypeInteger : 0);
  }
  return 0;
}

bool has_member(const Value& object, std::string_view name) {
  return object.FindMember(Value(rapidjson::StringRef(name.data(), name.size()))) !=
         object.MemberEnd();
}

class Evaluator {
 public:
  explicit Evaluator(const SchemaData& data) : d_(data), budget_(data.limits.max_steps) {}

  bool run(const Value& instance, Sink* sink) { return eval(*d_.root, instance, nullptr, sink); }
  bool exhausted() const { return exhausted_; }

 private:
  // Applies `n` to `v`. Violations go to `sink` (nullptr: just answer yes/no, as fast
  // as possible). If `ann` is given and `n` succeeds, the members/items `n` evaluated
  // are added to it.
  bool eval(const Node& n, const Value& v, Evaluated* ann, Sink* sink) {
    if (exhausted_) return false;
    if (--budget_ < 0 || depth_ >= d_.limits.max_eval_depth) {
      exhausted_ = true;
      return false;
    }
    if (n.is_boolean) {
      if (!n.boolean_value && sink) report(sink, msg::false_schema());
      return n.boolean_value;
    }
    ++depth_;
    const bool new_scope = scope_.empty() || scope_.back() != n.resource;
    if (new_scope) scope_.push_back(n.resource);
    std::optional<Evaluated> local;
    if (ann || n.needs_annotations()) local.emplace(v);
    bool ok = keywords(n, v, local ? &*local : nullptr, sink);
    if (new_scope) scope_.pop_back();
    --depth_;
    ok = ok && !exhausted_;
    // A failing subschema contributes no annotations. Exception for messages only: with
    // a sink, the caller fails along with us (in-place applicators that may fail
    // without failing their parent run without a sink), so keeping our annotations
    // cannot change a verdict; it spares "unexpected property" noise for members we
    // did evaluate and already reported on.
    if (ann && (ok || sink)) ann->merge(*local);
    return ok;
  }

  // True once evaluating further keywords cannot change anything we report.
  bool done(bool ok, const Sink* sink) const {
    return exhausted_ || (!ok && (!sink || sink->full()));
  }

  bool keywords(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    if (n.types && !(n.types & type_bits(v))) {
      if (sink) report(sink, msg::expected_type(n.types, v), IssueKind::kType, n.types);
      ok = false;
      if (done(ok, sink)) return false;
    }
    ok = values(n, v, sink) && ok;
    if (done(ok, sink)) return false;
    if (v.IsNumber()) ok = numbers(n, v, sink) && ok;
    if (v.IsString()) ok = strings(n, v, sink) && ok;
    if (done(ok, sink)) return false;
    ok = in_place(n, v, mine, sink) && ok;
    if (done(ok, sink)) return false;
    if (v.IsArray()) ok = array(n, v, mine, sink) && ok;
    if (v.IsObject()) ok = object(n, v, mine, sink) && ok;
    if (done(ok, sink)) return false;
    // Last: these depend on what everything else evaluated.
    if (v.IsArray() && n.unevaluated_items) ok = unevaluated_items(n, v, mine, sink) && ok;
    if (v.IsObject() && n.unevaluated_properties) {
      ok = unevaluated_properties(n, v, mine, sink) && ok;
    }
    return ok;
  }

  bool values(const Node& n, const Value& v, Sink* sink) {
    bool ok = true;
    if (n.enum_values) {
      budget_ -= n.enum_values->Size();
      bool found = std::any_of(n.enum_values->Begin(), n.enum_values->End(),
                               [&](const Value& e) { return json_equal(e, v); });
      if (!found) {
        ok = false;
        if (sink) {
          std::string allowed = value_list(*n.enum_values);
          report(sink, msg::not_in_enum(allowed, v), IssueKind::kValue, 0, allowed);
        }
      }
    }
    if (n.const_value && !json_equal(*n.const_value, v)) {
      ok = false;
      if (sink) {
        report(sink, msg::not_const(*n.const_value), IssueKind::kValue, 0, preview(*n.const_value));
      }
    }
    return ok;
  }

  bool numbers(const Node& n, const Value& v, Sink* sink) {
    bool ok = true;
    auto check = [&](bool good, auto message) {
      if (good) return;
      ok = false;
      if (sink) report(sink, message());
    };
    if (n.multiple_of) {
      check(is_multiple_of(v, *n.multiple_of),
            [&] { return msg::not_multiple_of(*n.multiple_of); });
    }
    if (n.maximum) {
      check(compare_numbers(v, *n.maximum) <= 0, [&] { return msg::above_maximum(*n.maximum); });
    }
    if (n.exclusive_maximum) {
      check(compare_numbers(v, *n.exclusive_maximum) < 0,
            [&] { return msg::not_below(*n.exclusive_maximum); });
    }
    if (n.minimum) {
      check(compare_numbers(v, *n.minimum) >= 0, [&] { return msg::below_minimum(*n.minimum); });
    }
    if (n.exclusive_minimum) {
      check(compare_numbers(v, *n.exclusive_minimum) > 0,
            [&] { return msg::not_above(*n.exclusive_minimum); });
    }
    return ok;
  }

  bool strings(const Node& n, const Value& v, Sink* sink) {
    bool ok = true;
    std::string_view s = as_view(v);
    if (n.max_length || n.min_length) {
      budget_ -= static_cast<long>(s.size() / 64);
      size_t length = utf8_length(s);
      if (n.max_length && length > *n.max_length) {
        ok = false;
        if (sink) report(sink, msg::too_long(*n.max_length, length));
      }
      if (n.min_length && length < *n.min_length) {
        ok = false;
        if (sink) report(sink, msg::too_short(*n.min_length, length));
      }
    }
    if (n.pattern) {
      auto matched = n.pattern->regex.search(s, budget_);
      if (!matched) {
        exhausted_ = true;
        return false;
      }
      if (!*matched) {
        ok = false;
        if (sink) report(sink, msg::pattern_mismatch(n.pattern->source));
      }
    }
    return ok;
  }

  const Node* dynamic_target(const Node& n) const {
    if (n.dynamic_anchor.empty()) return n.dynamic_ref;
    for (const Resource* r : scope_) {  // outermost first
      auto it = r->dynamic_anchors.find(n.dynamic_anchor);
      if (it != r->dynamic_anchors.end()) return it->second;
    }
    return n.dynamic_ref;
  }

  bool in_place(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    if (n.ref) {
      ok = eval(*n.ref, v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    if (n.dynamic_ref) {
      ok = eval(*dynamic_target(n), v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    for (const Node* sub : n.all_of) {
      ok = eval(*sub, v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    if (!n.any_of.empty()) {
      ok = any_of(n, v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    if (!n.one_of.empty()) {
      ok = one_of(n, v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    if (n.not_schema && eval(*n.not_schema, v, nullptr, nullptr)) {
      ok = false;
      if (sink) report(sink, msg::matches_not(*n.not_schema));
      if (done(ok, sink)) return false;
    }
    if (n.if_schema) {
      bool condition = eval(*n.if_schema, v, mine, nullptr);
      if (exhausted_) return false;
      const Node* branch = condition ? n.then_schema : n.else_schema;
      if (branch) ok = eval(*branch, v, mine, sink) && ok;
      if (done(ok, sink)) return false;
    }
    if (v.IsObject()) {
      for (const auto& [trigger, sub] : n.dependent_schemas) {
        if (!has_member(v, trigger)) continue;
        ok = eval(*sub, v, mine, sink) && ok;
        if (done(ok, sink)) return false;
      }
    }
    return ok;
  }

  // Alternatives run without a sink first: most calls match one, and a failing run that
  // exhausts the budget costs no message building. Only when none matches are they run
  // again to collect what to explain (those runs are charged to the budget too).
  bool any_of(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool matched = false;
    for (const Node* alternative : n.any_of) {
      // With annotations wanted every alternative must run: all passing ones contribute.
      if (eval(*alternative, v, mine, nullptr)) {
        matched = true;
        if (!mine) break;
      }
      if (exhausted_) return false;
    }
    if (!matched && sink) explain_no_match("anyOf", n.any_of, v, sink);
    return matched;
  }

  bool one_of(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    std::vector<size_t> matching;
    for (size_t i = 0; i < n.one_of.size(); ++i) {
      if (eval(*n.one_of[i], v, mine, nullptr)) {
        matching.push_back(i);
        if (matching.size() > 1 && !sink) break;
      }
      if (exhausted_) return false;
    }
    if (matching.size() == 1) return true;
    if (sink) {
      if (matching.empty()) {
        explain_no_match("oneOf", n.one_of, v, sink);
      } else {
        report(sink, msg::several_alternatives(matching));
      }
    }
    return false;
  }

  // No alternative matched: run them again collecting violations, then let
  // explain_failures() pick what is worth telling.
  void explain_no_match(std::string_view keyword, const std::vector<const Node*>& alternatives,
                        const Value& v, Sink* sink) {
    std::vector<Sink> failures(alternatives.size(), Sink{{}, sink->cap});
    for (size_t i = 0; i < alternatives.size(); ++i) {
      eval(*alternatives[i], v, nullptr, &failures[i]);
      if (exhausted_) return;
    }
    explain_failures(keyword, failures, format_path(path_), path_.size(), v, *sink);
  }

  bool array(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    const size_t size = v.Size();
    if (n.max_items && size > *n.max_items) {
      ok = false;
      if (sink) report(sink, msg::too_many_items(*n.max_items, size));
    }
    if (n.min_items && size < *n.min_items) {
      ok = false;
      if (sink) report(sink, msg::too_few_items(*n.min_items, size));
    }
    if (done(ok, sink)) return false;
    if (n.unique_items && size > 1) ok = unique(v, sink) && ok;
    if (done(ok, sink)) return false;

    const size_t prefix = std::min(size, n.prefix_items.size());
    for (size_t i = 0; i < prefix; ++i) {
      ok = child(*n.prefix_items[i], v[static_cast<rapidjson::SizeType>(i)], i, sink) && ok;
      if (mine) mine->mark(i);
      if (done(ok, sink)) return false;
    }
    if (n.items && size > prefix) {
      if (n.items->is_false()) {
        ok = false;
        if (sink) report(sink, msg::too_many_items(prefix, size));
      } else {
        for (size_t i = prefix; i < size; ++i) {
          ok = child(*n.items, v[static_cast<rapidjson::SizeType>(i)], i, sink) && ok;
          if (done(ok, sink)) return false;
        }
      }
      if (mine) {
        for (size_t i = prefix; i < size; ++i) mine->mark(i);
      }
    }
    if (done(ok, sink)) return false;
    if (n.contains) ok = contains(n, v, mine, sink) && ok;
    return ok;
  }

  bool contains(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    const uint64_t min = n.min_contains.value_or(1);
    size_t found = 0;
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (eval(*n.contains, v[i], nullptr, nullptr)) {
        ++found;
        if (mine) mine->mark(i);
        if (!mine && !n.max_contains && found >= min) break;
      }
      if (exhausted_) return false;
    }
    bool ok = true;
    if (found < min) {
      ok = false;
      if (sink) report(sink, msg::too_few_contains(min, found, *n.contains));
    }
    if (n.max_contains && found > *n.max_contains) {
      ok = false;
      if (sink) report(sink, msg::too_many_contains(*n.max_contains, found, *n.contains));
    }
    return ok;
  }

  // Sorting with a total order consistent with JSON equality: O(n log n), so a long
  // array cannot make uniqueItems quadratic.
  bool unique(const Value& v, Sink* sink) {
    const size_t size = v.Size();
    budget_ -= static_cast<long>(size * (1 + std::bit_width(size)));
    if (budget_ < 0) {
      exhausted_ = true;
      return false;
    }
    std::vector<rapidjson::SizeType> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return json_compare(v[a], v[b]) < 0; });
    for (size_t k = 1; k < size; ++k) {
      if (json_equal(v[order[k - 1]], v[order[k]])) {
        if (sink) {
          report(sink, msg::duplicate_items(std::min(order[k - 1], order[k]),
                                            std::max(order[k - 1], order[k])));
        }
        return false;
      }
    }
    return true;
  }

  bool object(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    const size_t size = v.MemberCount();
    if (n.max_properties && size > *n.max_properties) {
      ok = false;
      if (sink) report(sink, msg::too_many_properties(*n.max_properties, size));
    }
    if (n.min_properties && size < *n.min_properties) {
      ok = false;
      if (sink) report(sink, msg::too_few_properties(*n.min_properties, size));
    }
    for (std::string_view name : n.required) {
      if (!has_member(v, name)) {
        ok = false;
        if (sink) report(sink, msg::missing_required(name));
        if (done(ok, sink)) return false;
      }
    }
    for (const auto& [trigger, names] : n.dependent_required) {
      if (!has_member(v, trigger)) continue;
      for (std::string_view name : names) {
        if (!has_member(v, name)) {
          ok = false;
          if (sink) report(sink, msg::missing_dependent(name, trigger));
          if (done(ok, sink)) return false;
        }
      }
    }
    if (done(ok, sink)) return false;

    const bool per_member = !n.properties.empty() || !n.pattern_properties.empty() ||
                            n.additional_properties || n.property_names;
    if (!per_member) return ok;
    size_t i = 0;
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m, ++i) {
      std::string_view name = as_view(m->name);
      if (--budget_ < 0) {
        exhausted_ = true;
        return false;
      }
      bool matched = false;
      if (const Node* sub = n.find_property(name)) {
        matched = true;
        ok = child(*sub, m->value, name, sink) && ok;
      }
      for (const auto& [pattern, sub] : n.pattern_properties) {
        auto hit = pattern.regex.search(name, budget_);
        if (!hit) {
          exhausted_ = true;
          return false;
        }
        if (*hit) {
          matched = true;
          ok = child(*sub, m->value, name, sink) && ok;
        }
      }
      if (!matched && n.additional_properties) {
        matched = true;
        if (n.additional_properties->is_false()) {
          ok = false;
          if (sink) report(sink, msg::unexpected_property(name, allowed_names(n)));
        } else {
          ok = child(*n.additional_properties, m->value, name, sink) && ok;
        }
      }
      if (matched && mine) mine->mark(i);
      if (n.property_names) ok = property_name(*n.property_names, name, sink) && ok;
      if (done(ok, sink)) return false;
    }
    return ok;
  }

  static std::vector<std::string_view> allowed_names(const Node& n) {
    std::vector<std::string_view> names;
    if (!n.pattern_properties.empty()) return names;  // a list would mislead
    for (const auto& [name, sub] : n.properties) names.push_back(name);
    return names;
  }

  bool property_name(const Node& names, std::string_view name, Sink* sink) {
    Value key(rapidjson::StringRef(name.data(), name.size()));
    if (!sink) return eval(names, key, nullptr, nullptr);
    Sink problems{{}, sink->cap};
    if (eval(names, key, nullptr, &problems)) return true;
    for (const Issue& issue : problems.issues) {
      report(sink, msg::invalid_property_name(name, issue.message));
    }
    if (problems.issues.empty()) {
      report(sink, msg::invalid_property_name(name, msg::does_not_match()));
    }
    return false;
  }

  bool unevaluated_items(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (mine->seen(i)) continue;
      if (n.unevaluated_items->is_false()) {
        ok = false;
        if (sink) report(sink, msg::unexpected_item(i));
      } else {
        ok = child(*n.unevaluated_items, v[i], i, sink) && ok;
      }
      if (done(ok, sink)) return false;
    }
    mine->mark_all();
    return ok;
  }

  bool unevaluated_properties(const Node& n, const Value& v, Evaluated* mine, Sink* sink) {
    bool ok = true;
    size_t i = 0;
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m, ++i) {
      if (mine->seen(i)) continue;
      std::string_view name = as_view(m->name);
      if (n.unevaluated_properties->is_false()) {
        ok = false;
        if (sink) report(sink, msg::unexpected_property(name, {}));
      } else {
        ok = child(*n.unevaluated_properties, m->value, name, sink) && ok;
      }
      if (done(ok, sink)) return false;
    }
    mine->mark_all();
    return ok;
  }

  template <typename Key>
  bool child(const Node& sub, const Value& value, Key key, Sink* sink) {
    if constexpr (std::is_same_v<Key, std::string_view>) {
      path_.push_back(PathSegment{key, 0, false});
    } else {
      path_.push_back(PathSegment{{}, static_cast<size_t>(key), true});
    }
    bool ok = eval(sub, value, nullptr, sink);
    path_.pop_back();
    return ok;
  }

  void report(Sink* sink, std::string message, IssueKind kind = IssueKind::kOther,
              uint8_t expected_types = 0, std::string allowed = {}) {
    if (!sink) return;
    sink->add(Issue{format_path(path_), path_.size(), std::move(message), kind, expected_types,
                    std::move(allowed)});
  }

  const SchemaData& d_;
  long budget_;
  bool exhausted_ = false;
  int depth_ = 0;
  std::vector<const Resource*> scope_;  // dynamic scope, outermost first
  std::vector<PathSegment> path_;
};

}  // namespace

std::vector<Violation> collect_violations(const SchemaData& data, const Value& instance) {
  const size_t limit = static_cast<size_t>(std::max(data.limits.max_violations, 1));
  Evaluator evaluator(data);
  Sink sink{{}, limit + 1};
  bool ok = evaluator.run(instance, &sink);
  if (evaluator.exhausted()) return {Violation{"", msg::too_expensive()}};
  if (ok) return {};
  std::vector<Violation> out;
  for (Issue& issue : sink.issues) out.push_back({std::move(issue.path), std::move(issue.message)});
  if (out.empty()) out.push_back({"", msg::does_not_match()});
  if (out.size() > limit) {
    out.resize(limit - 1);
    out.push_back({"", msg::truncated(limit - 1)});
  }
  return out;
}

bool instance_accepted(const SchemaData& data, const Value& instance) {
  Evaluator evaluator(data);
  bool ok = evaluator.run(instance, nullptr);
  return ok && !evaluator.exhausted();
}

}  // namespace mcpsh::schema::detail
