#include "schema/compiler.h"

#include <algorithm>
#include <unordered_map>

#include "schema/compile_error.h"
#include "schema/cycles.h"
#include "schema/dialect.h"
#include "schema/json_util.h"
#include "schema/keywords.h"
#include "schema/metaschema.h"
#include "schema/uri.h"

namespace mcpsh::schema::detail {
namespace {

using rapidjson::Value;

bool valid_anchor(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!alpha(name[0]) && name[0] != '_') return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return alpha(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

// Keywords whose value is one subschema, an array of them, or an object of them.
enum class Shape { kOne, kArray, kObject, kNone };

Shape shape_of(std::string_view kw, Dialect d) {
  static const std::unordered_map<std::string_view, Shape> kShapes{
      {"additionalProperties", Shape::kOne},
      {"propertyNames", Shape::kOne},
      {"not", Shape::kOne},
      {"if", Shape::kOne},
      {"then", Shape::kOne},
      {"else", Shape::kOne},
      {"contains", Shape::kOne},
      {"items", Shape::kOne},
      {"additionalItems", Shape::kOne},
      {"unevaluatedItems", Shape::kOne},
      {"unevaluatedProperties", Shape::kOne},
      {"contentSchema", Shape::kOne},
      {"allOf", Shape::kArray},
      {"anyOf", Shape::kArray},
      {"oneOf", Shape::kArray},
      {"prefixItems", Shape::kArray},
      {"properties", Shape::kObject},
      {"patternProperties", Shape::kObject},
      {"$defs", Shape::kObject},
      {"definitions", Shape::kObject},
      {"dependentSchemas", Shape::kObject},
      {"dependencies", Shape::kObject},
  };
  if (!has_keyword(d, kw)) return Shape::kNone;
  auto it = kShapes.find(kw);
  return it == kShapes.end() ? Shape::kNone : it->second;
}

class Compiler {
 public:
  Compiler(SchemaData& data, Dialect default_dialect)
      : d_(data), limits_(data.limits), default_dialect_(default_dialect) {}

  void run() {
    const Value& root = *d_.documents[0];
    Resource& resource = new_resource("", root, "#");
    walk(root, Scope{&resource, default_dialect_}, "#", 0);
    d_.root = by_value_.at(&root);

    // Linking can reach subschemas not compiled yet (the metaschema, or a position no
    // keyword defines), which bring references of their own: repeat until none is left.
    size_t compiled = 0;
    while (true) {
      while (compiled < d_.nodes.size()) {
        compile_keywords(
            d_.nodes[compiled++], [this](const Value& v) { return by_value_.at(&v); }, pending_);
      }
      if (pending_.empty()) break;
      auto batch = std::move(pending_);
      pending_.clear();
      for (const auto& p : batch) link(p);
    }
    for (auto& [resource_ptr, anchors] : dynamic_values_) {
      for (auto& [name, value] : anchors) resource_ptr->dynamic_anchors[name] = by_value_.at(value);
    }
    if (auto cycle = find_reference_cycle(d_.nodes)) throw CompileError{*cycle};
  }

 private:
  struct Scope {
    Resource* resource;
    Dialect dialect;
  };

  Resource& new_resource(const std::string& uri, const Value& root, const std::string& where) {
    if (resources_.count(uri)) fail(where, "duplicate \"$id\" " + quoted(uri));
    Resource& r = d_.resources.emplace_back();
    r.uri = uri;
    r.root = &root;
    resources_[uri] = &r;
    return r;
  }

  void add_anchor(const Scope& scope, const std::string& name, const Value& v,
                  const std::string& where) {
    std::string key = scope.resource->uri + "#" + name;
    if (!anchors_.emplace(key, &v).second && anchors_[key] != &v) {
      fail(where, "duplicate anchor " + quoted(name));
    }
  }

  // Registers `v` and everything under it that is a subschema by position.
  void walk(const Value& v, Scope scope, const std::string& where, int depth) {
    if (by_value_.count(&v)) return;
    if (depth > limits_.max_depth) {
      fail(where, "schema nested too deeply (limit " + std::to_string(limits_.max_depth) + ")");
    }
    if (d_.nodes.size() >= static_cast<size_t>(std::max(limits_.max_subschemas, 0))) {
      throw CompileError{"schema too large: more than " + std::to_string(limits_.max_subschemas) +
                         " subschemas"};
    }
    if (!v.IsObject() && !v.IsBool()) {
      fail(where, "a schema must be an object or a boolean, got " + kind_of(v));
    }
    Node& node = d_.nodes.emplace_back();
    node.index = d_.nodes.size() - 1;
    node.json = &v;
    node.location = where;
    by_value_[&v] = &node;
    if (v.IsBool()) {
      node.resource = scope.resource;
      node.dialect = scope.dialect;
      return;
    }

    if (auto m = v.FindMember("$schema"); m != v.MemberEnd()) {
      if (!m->value.IsString()) fail(where, "\"$schema\" must be a string");
      auto dialect = dialect_from_uri(as_view(m->value));
      if (!dialect) {
        throw CompileError{"unsupported dialect " + quoted(as_view(m->value)) +
                           " in \"$schema\" at " + where +
                           " (supported: 2020-12, 2019-09, draft-07)"};
      }
      scope.dialect = *dialect;
    }
    const bool ref_only = scope.dialect == Dialect::kDraft07 && v.HasMember("$ref");
    if (auto m = v.FindMember("$id"); m != v.MemberEnd() && !ref_only) {
      if (!m->value.IsString()) fail(where, "\"$id\" must be a string");
      std::string_view id = as_view(m->value);
      if (scope.dialect == Dialect::kDraft07 && id.starts_with("#")) {
        add_anchor(scope, std::string(id.substr(1)), v, where);
      } else {
        UriParts parts = split_fragment(resolve_uri(scope.resource->uri, id));
        if (!parts.fragment.empty() && scope.dialect != Dialect::kDraft07) {
          fail(where, "\"$id\" must not contain a fragment (use \"$anchor\"), got " + quoted(id));
        }
        if (parts.absolute != scope.resource->uri || scope.resource->root != &v) {
          if (scope.resource->root == &v) {
            resources_.erase(scope.resource->uri);  // the document root names itself
            scope.resource->uri = parts.absolute;
            if (resources_.count(parts.absolute)) {
              fail(where, "duplicate \"$id\" " + quoted(parts.absolute));
            }
            resources_[parts.absolute] = scope.resource;
          } else {
            scope.resource = &new_resource(parts.absolute, v, where);
          }
        }
        if (!parts.fragment.empty()) add_anchor(scope, parts.fragment, v, where);
      }
    }
    node.resource = scope.resource;
    node.dialect = scope.dialect;

    if (has_keyword(scope.dialect, "$anchor") && v.HasMember("$anchor")) {
      const Value& a = v["$anchor"];
      if (!a.IsString() || !valid_anchor(as_view(a))) {
        fail(where, "\"$anchor\" must be a name like \"node\" (letters, digits, -_.)");
      }
      add_anchor(scope, std::string(as_view(a)), v, where);
    }
    if (has_keyword(scope.dialect, "$dynamicAnchor") && v.HasMember("$dynamicAnchor")) {
      const Value& a = v["$dynamicAnchor"];
      if (!a.IsString() || !valid_anchor(as_view(a))) {
        fail(where, "\"$dynamicAnchor\" must be a name like \"node\" (letters, digits, -_.)");
      }
      std::string name(as_view(a));
      add_anchor(scope, name, v, where);
      dynamic_values_[scope.resource].emplace(name, &v);
    }
    if (has_keyword(scope.dialect, "$recursiveAnchor") && v.HasMember("$recursiveAnchor")) {
      const Value& a = v["$recursiveAnchor"];
      if (!a.IsBool()) fail(where, "\"$recursiveAnchor\" must be a boolean");
      if (a.GetBool() && scope.resource->root == &v) {
        dynamic_values_[scope.resource].emplace(std::string(kRecursiveAnchor), &v);
      }
    }

    for (const auto& m : v.GetObject()) {
      std::string_view kw = as_view(m.name);
      if (ref_only && kw != "definitions") continue;
      std::string at = where + "/" + escape_pointer_token(kw);
      switch (shape_of(kw, scope.dialect)) {
        case Shape::kNone:
          break;
        case Shape::kOne:
          if (kw == "items" && m.value.IsArray() && scope.dialect != Dialect::kDraft2020_12) {
            for (rapidjson::SizeType i = 0; i < m.value.Size(); ++i) {
              walk(m.value[i], scope, at + "/" + std::to_string(i), depth + 1);
            }
          } else if (kw == "items" && m.value.IsArray()) {
            fail(where, "\"items\" must be a schema; for tuples use \"prefixItems\" (2020-12)");
          } else {
            if (!m.value.IsObject() && !m.value.IsBool()) {
              fail(where,
                   quoted(kw) + " must be a schema (object or boolean), got " + kind_of(m.value));
            }
            walk(m.value, scope, at, depth + 1);
          }
          break;
        case Shape::kArray:
          if (!m.value.IsArray() || m.value.Empty()) {
            fail(where, quoted(kw) + " must be a non-empty array of schemas");
          }
          for (rapidjson::SizeType i = 0; i < m.value.Size(); ++i) {
            walk(m.value[i], scope, at + "/" + std::to_string(i), depth + 1);
          }
          break;
        case Shape::kObject:
          if (!m.value.IsObject()) fail(where, quoted(kw) + " must be an object");
          for (const auto& entry : m.value.GetObject()) {
            if (kw == "dependencies" && entry.value.IsArray()) continue;  // dependentRequired
            walk(entry.value, scope, at + "/" + escape_pointer_token(as_view(entry.name)),
                 depth + 1);
          }
          break;
      }
    }
  }

  Resource* find_resource(const std::string& uri) {
    auto it = resources_.find(uri);
    if (it != resources_.end()) return it->second;
    if (!metaschemas_loaded_ && uri.starts_with("https://json-schema.org/draft/2020-12/")) {
      metaschemas_loaded_ = true;
      load_metaschemas();
      it = resources_.find(uri);
      if (it != resources_.end()) return it->second;
    }
    return nullptr;
  }

  void load_metaschemas() {
    for (const auto& embedded : metaschemas_2020_12()) {
      if (resources_.count(std::string(embedded.uri))) continue;  // the schema defines it
      auto doc = std::make_unique<rapidjson::Document>();
      doc->Parse(embedded.json.data(), embedded.json.size());
      const Value& root = *doc;
      d_.documents.push_back(std::move(doc));
      Resource& resource = new_resource(std::string(embedded.uri), root, std::string(embedded.uri));
      walk(root, Scope{&resource, Dialect::kDraft2020_12}, std::string(embedded.uri) + "#", 0);
    }
  }

  void link(const RefRequest& p) {
    std::string keyword = p.kind == RefKind::kRef       ? "$ref"
                          : p.kind == RefKind::kDynamic ? "$dynamicRef"
                                                        : "$recursiveRef";
    auto unresolvable = [&](const std::string& why) -> CompileError {
      return CompileError{"unresolvable " + keyword + " " + quoted(p.text) + " at " +
                          p.node->location + ": " + why};
    };
    UriParts parts = split_fragment(p.uri);
    Resource* resource = find_resource(parts.absolute);
    if (!resource) {
      throw unresolvable(parts.absolute.empty()
                             ? "no such schema"
                             : "no schema with \"$id\" " + quoted(parts.absolute) +
                                   " in this document (remote references are never fetched)");
    }
    std::string fragment = percent_decode(parts.fragment);
    const Value* target = nullptr;
    if (fragment.empty() || fragment[0] == '/') {
      auto tokens = parse_json_pointer(fragment);
      if (!tokens) throw unresolvable("malformed JSON pointer");
      const Value* at = resource->root;
      Node* walked = by_value_.at(at);
      std::string where = walked->location;
      for (const auto& token : *tokens) {
        if (at->IsObject()) {
          auto m = at->FindMember(Value(rapidjson::StringRef(token.data(), token.size())));
          if (m == at->MemberEnd()) throw unresolvable("nothing at that JSON pointer");
          at = &m->value;
        } else if (at->IsArray()) {
          bool digits = !token.empty() && token.size() < 10 &&
                        std::all_of(token.begin(), token.end(),
                                    [](char c) { return c >= '0' && c <= '9'; }) &&
                        (token == "0" || token[0] != '0');
          unsigned long i = digits ? std::stoul(token) : 0;
          if (!digits || i >= at->Size()) throw unresolvable("nothing at that JSON pointer");
          at = &(*at)[static_cast<rapidjson::SizeType>(i)];
        } else {
          throw unresolvable("nothing at that JSON pointer");
        }
        where += "/" + escape_pointer_token(token);
        if (auto it = by_value_.find(at); it != by_value_.end()) {
          walked = it->second;
          where = walked->location;
        }
      }
      target = at;
      if (!by_value_.count(target)) {
        // A subschema in a position no keyword defines (e.g. under an unknown keyword):
        // compiled on demand in the scope of its nearest known ancestor.
        walk(*target, Scope{const_cast<Resource*>(walked->resource), walked->dialect}, where, 0);
      }
    } else {
      auto it = anchors_.find(parts.absolute + "#" + fragment);
      if (it == anchors_.end()) throw unresolvable("no anchor " + quoted(fragment));
      target = it->second;
    }
    Node* target_node = by_value_.at(target);

    Node& n = *p.node;
    switch (p.kind) {
      case RefKind::kRef:
        n.ref = target_node;
        break;
      case RefKind::kDynamic: {
        n.dynamic_ref = target_node;
        // 2020-12 "bookending": dynamic only when the static target itself declares
        // this fragment as its "$dynamicAnchor".
        if (!fragment.empty() && fragment[0] != '/' && target->IsObject()) {
          auto da = target->FindMember("$dynamicAnchor");
          if (da != target->MemberEnd() && da->value.IsString() && as_view(da->value) == fragment) {
            n.dynamic_anchor = fragment;
          }
        }
        break;
      }
      case RefKind::kRecursive: {
        n.dynamic_ref = target_node;
        if (target->IsObject()) {
          auto ra = target->FindMember("$recursiveAnchor");
          if (ra != target->MemberEnd() && ra->value.IsTrue()) {
            n.dynamic_anchor = std::string(kRecursiveAnchor);
          }
        }
        break;
      }
    }
  }

  SchemaData& d_;
  const Limits& limits_;
  Dialect default_dialect_;
  std::unordered_map<const Value*, Node*> by_value_;
  std::unordered_map<std::string, Resource*> resources_;
  std::unordered_map<std::string, const Value*> anchors_;  // "uri#name"
  std::unordered_map<Resource*, std::unordered_map<std::string, const Value*>> dynamic_values_;
  std::vector<RefRequest> pending_;
  bool metaschemas_loaded_ = false;
};

}  // namespace

std::optional<std::string> check_nesting(const rapidjson::Value& schema, const Limits& limits) {
  // Each subschema level is at most a keyword plus a container.
  const int json_limit = 4 * std::max(limits.max_depth, 0) + 16;
  if (!nesting_exceeds(schema, json_limit)) return std::nullopt;
  return "invalid schema: nested too deeply (more than " + std::to_string(json_limit) +
         " levels of JSON)";
}

std::variant<std::shared_ptr<const SchemaData>, std::string> compile_schema(
    std::unique_ptr<rapidjson::Document> schema, const Limits& limits, Dialect default_dialect) {
  if (auto error = check_nesting(*schema, limits)) return *error;
  auto data = std::make_shared<SchemaData>();
  data->limits = limits;
  data->documents.push_back(std::move(schema));
  try {
    Compiler(*data, default_dialect).run();
  } catch (const CompileError& e) {
    return e.message;
  }
  return std::shared_ptr<const SchemaData>(std::move(data));
}

}  // namespace mcpsh::schema::detail
