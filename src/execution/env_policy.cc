#include "execution/env_policy.h"

#include <fnmatch.h>

#include <algorithm>

namespace mcpsh::execution {

namespace {

constexpr const char* kAlwaysAllowed[] = {"PATH",     "HOME", "USER", "LOGNAME", "SHELL", "LANG",
                                          "LANGUAGE", "LC_*", "TZ",   "TERM",    "TMPDIR"};

bool matches(const std::string& name, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return ::fnmatch(p.c_str(), name.c_str(), 0) == 0;
  });
}

std::string joined(const std::vector<std::string>& patterns) {
  std::string out;
  for (const auto& p : patterns) out += (out.empty() ? "" : ":") + p;
  return out;
}

}  // namespace

bool EnvPolicy::admits(std::string_view view) const {
  const std::string name(view);
  if (name == "BASH_ENV" || name == "ENV" || matches(name, deny)) return false;
  if (!allow) return true;
  if (matches(name, *allow)) return true;
  return std::any_of(std::begin(kAlwaysAllowed), std::end(kAlwaysAllowed),
                     [&](const char* p) { return ::fnmatch(p, name.c_str(), 0) == 0; });
}

EnvPolicy EnvPolicy::widened(const std::vector<std::string>& extra) const {
  EnvPolicy out = *this;
  if (out.allow)
    for (const auto& p : extra)
      if (std::find(out.allow->begin(), out.allow->end(), p) == out.allow->end())
        out.allow->push_back(p);
  return out;
}

std::string EnvPolicy::describe() const {
  std::string out = allow ? "allow=" + joined(*allow) : "all";
  if (!deny.empty()) out += " deny=" + joined(deny);
  return out;
}

}  // namespace mcpsh::execution
