// check: a linter for tool authors. Sources every script the way the server does and
// reports syntax errors, broken metadata, invalid schemas, advertised-but-missing and
// defined-but-hidden tools, and what each tool's sandbox is on this machine. Exit 1 when
// anything is an error.
#include <iostream>

#include "cli/host.h"
#include "cli/verbs.h"
#include "sandbox/sandbox.h"

namespace mcpsh::cli {

int check(const Options& options) {
  diagnostics::Log log(options.log_file, diagnostics::Level::kError);
  Host host;
  auto fatal = prepare(host, options, log, [](std::string) {});
  int errors = 0, warnings = 0;
  for (const auto& p : all_problems(host)) {
    bool error = p.severity == discovery::Problem::Severity::kError;
    (error ? errors : warnings)++;
    std::cout << (error ? "error: " : "warning: ") << p.where << ": " << p.what << "\n";
  }
  for (const auto& t : host.catalog.tools) {
    bool ok = t.implemented;
    for (const auto& p : host.server->problems())
      if (p.where == t.name) ok = false;
    const auto& box = t.confinement.sandbox;
    if (ok && box && !box->unavailable().empty()) {
      std::cout << "cannot run: " << t.name << " (" << t.script << "): " << box->unavailable()
                << "\n";
      continue;
    }
    std::cout << (ok ? "ok: " : "not served: ") << t.name << " (" << t.script << ")";
    // What it gets on this machine: the sandbox as enforced here, and the environment.
    if (box) std::cout << "; sandbox " << box->description() << ": " << box->enforcement();
    if (t.confinement.env.allow || !t.confinement.env.deny.empty())
      std::cout << "; environment " << t.confinement.env.describe();
    std::cout << "\n";
  }
  for (const auto& r : host.catalog.resources) {
    bool ok = true;
    for (const auto& p : host.server->problems())
      if (p.where == "resource_" + r.name) ok = false;
    std::cout << (ok ? "ok: " : "not served: ") << "resource " << r.name << " " << r.uri << " ("
              << r.script << ")\n";
  }
  for (const auto& p : host.catalog.prompts)
    std::cout << "ok: prompt " << p.name << " (" << p.script << ")\n";
  std::cout << offer_summary(host.catalog) << ", " << errors << " error(s), " << warnings
            << " warning(s)\n";
  return fatal || errors > 0 ? 1 : 0;
}

}  // namespace mcpsh::cli
