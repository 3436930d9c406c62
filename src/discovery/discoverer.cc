#include "discovery/discoverer.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "discovery/comment_memo.h"
#include "discovery/comment_metadata.h"
#include "discovery/entry_metadata.h"
#include "discovery/oldcore_files.h"
#include "discovery/script_probe.h"
#include "execution/runner.h"
#include "sandbox/sandbox.h"

namespace mcpsh::discovery {

namespace fs = std::filesystem;
using Severity = Problem::Severity;

namespace {
// The file's identity when `path` is (or links to) a regular file.
std::optional<std::pair<dev_t, ino_t>> regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}
}  // namespace

std::vector<std::string> expand_paths(const std::vector<std::string>& paths,
                                      std::vector<Problem>& problems) {
  // The same script named twice (directly, through its directory, or through a link) is
  // one script: the same file, told by one stat each (not a realpath, a system call per
  // component of the path). The first path given is kept: the script sees it in BASH_SOURCE.
  std::vector<std::string> scripts;
  std::set<std::pair<dev_t, ino_t>> seen;
  auto add = [&](std::string path, std::pair<dev_t, ino_t> id) {
    if (seen.insert(id).second) scripts.push_back(std::move(path));
  };
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path p = fs::absolute(given, ec).lexically_normal();
    if (fs::is_directory(p, ec)) {
      std::vector<std::pair<std::string, std::pair<dev_t, ino_t>>> found;
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.path().extension() == ".sh")
          if (auto id = regular_file(entry.path().string()))
            found.emplace_back(entry.path().string(), *id);
      std::sort(found.begin(), found.end());
      if (found.empty())
        problems.push_back({Severity::kWarning, given, "directory has no *.sh scripts"});
      for (auto& [path, id] : found) add(std::move(path), id);
    } else if (auto id = regular_file(p.string())) {
      add(p.string(), *id);
    } else {
      problems.push_back({Severity::kError, given, "no such script or directory"});
    }
  }
  return scripts;
}

// One script's probe (outside the anonymous namespace: ProbeResults holds them).
struct ScriptResult {
  std::string script;
  ProbeReport report;
  execution::Outcome outcome;
  bool started_again = false;  // its probe waited out DiscoveryOptions::probe_idle_for
};

namespace {

bool file_size_unlimited() {
  rlimit limit{};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY;
}

// Probes every script; `done` gets the results when the last probe ended. Unlimited
// (options.max_probes == 0): all start at once. Otherwise at most that many run at once and
// each start is a turn of the loop of its own: starting a process blocks the loop until it
// has exec'ed, and requests served meanwhile wait for one start, not for all of them.
// With options.probe_idle_for, probes start in the idle class until one of them times out
// there: that one starts again in the normal class, and so does every later one.
void probe_all(boost::asio::io_context& io, execution::Runner& runner,
               const std::vector<std::string>& scripts, const DiscoveryOptions& options,
               std::function<void(std::vector<ScriptResult>)> done) {
  struct State : std::enable_shared_from_this<State> {
    boost::asio::io_context& io;
    execution::Runner& runner;
    DiscoveryOptions options;
    std::vector<ScriptResult> results;
    std::size_t next = 0, running = 0, pending;
    std::vector<std::size_t> again;  // stopped in the idle class, to start in the normal one
    bool idle;                       // probes start in the idle class
    std::function<void(std::vector<ScriptResult>)> done;

    State(boost::asio::io_context& io, execution::Runner& runner, DiscoveryOptions options,
          std::vector<ScriptResult> results, std::function<void(std::vector<ScriptResult>)> done)
        : io(io),
          runner(runner),
          options(std::move(options)),
          results(std::move(results)),
          pending(this->results.size()),
          idle(this->options.probe_idle_for.count() > 0 &&
               this->options.probe_idle_for < this->options.probe_timeout),
          done(std::move(done)) {}

    bool may_start() const {
      return (!again.empty() || next < results.size()) &&
             (options.max_probes == 0 || running < options.max_probes);
    }
    void start_one() {
      // A probe started again runs in the normal class; a new one where the round is.
      const bool starting_again = !again.empty();
      std::size_t i;
      if (starting_again) {
        i = again.back();
        again.pop_back();
      } else {
        i = next++;
      }
      ++running;
      const bool in_idle_class = idle && !starting_again;
      execution::RunCallbacks callbacks;
      callbacks.on_done = [self = shared_from_this(), i, in_idle_class](execution::Outcome o) {
        --self->running;
        if (in_idle_class && o.ending == execution::Ending::kTimedOut) {
          // Starved, most likely (or merely slow): the machine is busy, and the idle class
          // would make every later probe of the round wait its time out too.
          self->idle = false;
          self->results[i].started_again = true;
          self->again.push_back(i);
          return self->start_later();
        }
        self->results[i].report = parse_probe_report(o.stdout_head);
        self->results[i].outcome = std::move(o);
        if (--self->pending == 0) return self->done(std::move(self->results));
        self->start_later();
      };
      auto spec = make_probe_launch(options.bash, results[i].script,
                                    in_idle_class ? options.probe_idle_for : options.probe_timeout);
      spec.niceness = options.probe_niceness;
      spec.idle_class = in_idle_class;
      // Where the probe writes the function names and reads them back (script_probe.cc);
      // without one (-1) it falls back to a command substitution. Not under a file-size
      // limit: a write past it fails (or kills the probe with SIGXFSZ) and a later, shorter
      // one may still fit, which would cut the list short unnoticed.
      if (file_size_unlimited()) spec.fd3 = ::memfd_create("mcp-shell-host-probe", MFD_CLOEXEC);
      runner.start(spec, std::move(callbacks));
    }
    void start_later() {
      if (!may_start()) return;
      boost::asio::post(io, [self = shared_from_this()] {
        if (!self->may_start()) return;
        self->start_one();
        self->start_later();
      });
    }
  };
  std::vector<ScriptResult> results(scripts.size());
  for (std::size_t i = 0; i < scripts.size(); ++i) results[i].script = scripts[i];
  auto state = std::make_shared<State>(io, runner, options, std::move(results), std::move(done));
  if (options.max_probes == 0) {
    while (state->may_start()) state->start_one();
  } else {
    state->start_later();
  }
}

std::string last_lines(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  std::string out;
  for (std::size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size();
       ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

// Why a probe produced no usable report, or "" when it did.
std::string probe_failure(const ScriptResult& r) {
  using execution::Ending;
  const auto& o = r.outcome;
  std::string err = last_lines(o.stderr_tail, 3);
  std::string suffix = err.empty() ? "" : ": " + err;
  if (r.report.syntax_error) return "has a syntax error" + suffix;
  if (r.report.completed) return "";
  if (o.ending == Ending::kTimedOut) return "did not finish sourcing within the probe timeout";
  if (o.ending == Ending::kFailedToStart) return "could not run bash: " + o.start_error;
  if (r.report.sourced)
    return "could not be inspected after sourcing (" + execution::describe_ending(o) + ")" + suffix;
  // Every call sources the script the same way, so each of them would end here too.
  return "stopped while being sourced (" + execution::describe_ending(o) +
         "; a top-level exit or exec, or a failure under set -e or an ERR trap, ends every "
         "call the same way)" +
         suffix;
}

std::string resolve(const std::string& path) {
  std::error_code ec;
  return fs::absolute(path, ec).lexically_normal().string();
}

// The server's confinement, narrowed or widened by a function's own tags.
execution::Confinement confinement_for(const DiscoveryOptions& options,
                                       const std::optional<sandbox::Policy>& own,
                                       const std::vector<std::string>& env) {
  std::vector<sandbox::Policy> layers{options.sandbox};
  if (own) layers.push_back(*own);
  return {options.env.widened(env), sandbox::Sandbox::prepare(layers)};
}

// The resource_, prompt_ and complete_ functions of one script, described by their comment
// blocks. A function whose metadata is broken is not served (its problems say why).
template <typename Claim>
void add_other_entries(Catalog& catalog, const std::vector<FunctionSite>& functions,
                       const std::string& script, CommentReader& comments, Claim& claim,
                       const DiscoveryOptions& options) {
  for (const auto& f : functions) {
    auto underscore = f.name.find('_');
    std::string kind = f.name.substr(0, underscore);
    if (kind == "tool") continue;
    std::string name = f.name.substr(underscore + 1);
    const std::string where = f.file + ":" + std::to_string(f.line);
    if (!valid_tool_name(name)) {
      catalog.problems.push_back(
          {Severity::kWarning, where,
           "function " + f.name + " is not served: " + kind + " names use only [A-Za-z0-9_.-]"});
      continue;
    }
    auto report = [&](const std::vector<std::string>& errors) {
      for (const auto& e : errors)
        catalog.problems.push_back({Severity::kError, f.file, kind + " " + name + ", " + e});
      return errors.empty();
    };
    if (kind == "resource") {
      const ResourceMetadata& meta = comments.resource(f, name);
      if (!report(meta.errors) || !claim(f.name, script)) continue;
      ResourceEntry entry = meta.entry;
      entry.script = script;
      entry.confinement = confinement_for(options, meta.sandbox, {});
      for (auto& w : entry.watch)
        w = (fs::path(f.file).parent_path() / w).lexically_normal().string();
      catalog.resources.push_back(std::move(entry));
    } else if (kind == "prompt") {
      const PromptMetadata& meta = comments.prompt(f, name);
      if (!report(meta.errors) || !claim(f.name, script)) continue;
      PromptEntry entry = meta.entry;
      entry.script = script;
      entry.confinement = confinement_for(options, meta.sandbox, {});
      catalog.prompts.push_back(std::move(entry));
    } else if (kind == "complete") {
      if (claim(f.name, script))
        catalog.completers.push_back({name, script, confinement_for(options, std::nullopt, {})});
    }
  }
}

}  // namespace

namespace {

Catalog build_catalog(Catalog catalog,
                      const std::vector<std::shared_ptr<const ScriptResult>>& results,
                      const DiscoveryOptions& options, CatalogMemo* memo) {
  CommentReader comments(memo);

  // Who defines each tool name first, to report duplicates naming both files.
  std::map<std::string, std::string> defined_by;
  auto claim = [&](const std::string& name, const std::string& script) {
    auto [it, fresh] = defined_by.emplace(name, script);
    if (!fresh && it->second != script) {
      catalog.problems.push_back(
          {Severity::kError, name,
           "tool \"" + name + "\" is defined by both " + it->second + " and " + script});
      catalog.fatal = true;
      return false;
    }
    return fresh;
  };

  // Resources, prompts and completers: one namespace per kind, as for tools.
  std::map<std::string, std::string> other_defined_by;
  auto claim_other = [&](const std::string& kind_and_name, const std::string& script) {
    auto [it, fresh] = other_defined_by.emplace(kind_and_name, script);
    if (!fresh && it->second != script) {
      catalog.problems.push_back(
          {Severity::kError, kind_and_name,
           kind_and_name + " is defined by both " + it->second + " and " + script});
      catalog.fatal = true;
      return false;
    }
    return fresh;
  };

  std::set<std::string> tools_files_used;
  for (const auto& result : results) {
    const ScriptResult& r = *result;
    if (std::string why = probe_failure(r); !why.empty()) {
      catalog.problems.push_back(
          {Severity::kError, r.script, "script " + why + "; its tools are not served"});
      catalog.failed_scripts.push_back(r.script);
      continue;
    }
    comments.script(result);
    for (const auto& line : r.report.malformed)
      catalog.problems.push_back({Severity::kError, r.script,
                                  "the probe could not tell where a function is defined: " + line});
    if (r.report.source_status != 0)
      catalog.problems.push_back(
          {Severity::kWarning, r.script,
           "sourcing returned status " + std::to_string(r.report.source_status)});

    // Functions, in the order they appear in their files.
    std::vector<FunctionSite> functions = r.report.functions;
    std::stable_sort(functions.begin(), functions.end(), [&](const auto& a, const auto& b) {
      bool a_own = a.file == r.script, b_own = b.file == r.script;
      if (a_own != b_own) return a_own;
      return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    std::map<std::string, const FunctionSite*> by_tool;
    for (const auto& f : functions) {
      if (f.name.rfind("tool_", 0) != 0) continue;
      std::string name = f.name.substr(5);
      if (!valid_tool_name(name)) {
        catalog.problems.push_back(
            {Severity::kWarning, f.file + ":" + std::to_string(f.line),
             "function " + f.name + " is not served: tool names use only [A-Za-z0-9_.-]"});
        continue;
      }
      by_tool.emplace(name, &f);
    }

    std::string tools_file = options.tools_list_file.value_or(r.report.tools_list_file);
    if (!tools_file.empty()) tools_file = resolve(tools_file);
    if (!tools_file.empty() && !fs::exists(tools_file)) {
      catalog.problems.push_back(
          {Severity::kWarning, r.script,
           "tools file " + tools_file + " does not exist; describing tools from comments instead"});
      tools_file.clear();
    }

    if (!tools_file.empty()) {
      // The file is the tool list: its order, its metadata; a function it does not name
      // is hidden. A file shared by several scripts is listed once.
      ToolsFile file = read_tools_file(tools_file);
      for (const auto& e : file.errors)
        catalog.problems.push_back({Severity::kError, tools_file, e});
      std::set<std::string> advertised;
      for (const auto& t : file.tools) advertised.insert(t.name);
      for (const auto& [name, site] : by_tool)
        if (!advertised.count(name))
          catalog.problems.push_back({Severity::kWarning,
                                      site->file + ":" + std::to_string(site->line),
                                      "function " + site->name + " is not advertised in " +
                                          tools_file + ", so it is neither listed nor callable"});
      bool first_use = tools_files_used.insert(tools_file).second;
      for (const auto& t : file.tools) {
        bool implemented = by_tool.count(t.name) > 0;
        if (implemented && !claim(t.name, r.script)) continue;
        if (first_use) {
          catalog.tools.push_back({t.name, r.script, t.definition_json, implemented, t.timeout,
                                   confinement_for(options, std::nullopt, {})});
        } else if (implemented) {
          // Another script sharing the file implements what the first one did not.
          for (auto& existing : catalog.tools)
            if (existing.name == t.name) {
              existing.implemented = true;
              existing.script = r.script;
            }
        }
      }
    } else {
      for (const auto& f : functions) {
        if (f.name.rfind("tool_", 0) != 0) continue;
        std::string name = f.name.substr(5);
        if (!by_tool.count(name)) continue;
        const CommentMetadata& meta = comments.tool(f, name);
        for (const auto& e : meta.errors)
          catalog.problems.push_back({Severity::kError, f.file, "tool " + name + ", " + e});
        if (!meta.errors.empty()) continue;  // never serve a tool whose metadata is broken
        if (!claim(name, r.script)) continue;
        catalog.tools.push_back({name, r.script, meta.definition_json, true, meta.timeout,
                                 confinement_for(options, meta.sandbox, meta.env), meta.confirm,
                                 meta.destructive, meta.task});
      }
    }

    add_other_entries(catalog, functions, r.script, comments, claim_other, options);

    if (!catalog.profile) {
      std::string config = options.config_file.value_or(r.report.config_file);
      if (!config.empty()) {
        config = resolve(config);
        std::string error;
        if (!fs::exists(config)) {
          if (options.config_file)
            catalog.problems.push_back({Severity::kError, config, "config file does not exist"});
        } else if (auto profile = read_config_file(config, error)) {
          catalog.profile = std::move(profile);
        } else {
          catalog.problems.push_back({Severity::kError, config, error});
        }
      }
    }
  }
  for (const auto& t : catalog.tools)
    if (!t.implemented)
      catalog.problems.push_back({Severity::kWarning, t.name,
                                  "advertised by a tools file but no script defines tool_" +
                                      t.name + "; calling it is an invalid-params error"});
  // Fails closed: such a tool is listed, and its calls say why they cannot run.
  for (const auto& t : catalog.tools)
    if (const auto& box = t.confinement.sandbox; box && !box->unavailable().empty())
      catalog.problems.push_back(
          {Severity::kError, t.name, "cannot run here: " + box->unavailable()});
  if (options.config_file && !catalog.profile && results.empty()) {
    std::string error;
    catalog.profile = read_config_file(resolve(*options.config_file), error);
    if (!catalog.profile)
      catalog.problems.push_back({Severity::kError, *options.config_file, error});
  }

  // What a reload watches.
  std::set<std::string> sources;
  for (const auto& r : results) {
    sources.insert(r->script);
    for (const auto& f : r->report.functions) sources.insert(f.file);
  }
  for (const auto& file : tools_files_used) sources.insert(file);
  if (catalog.profile) sources.insert(catalog.profile->source);
  catalog.sources.assign(sources.begin(), sources.end());
  for (const auto& given : options.paths) {
    std::error_code ec;
    if (fs::is_directory(given, ec)) catalog.directories.push_back(resolve(given));
  }
  return catalog;
}

}  // namespace

struct ProbeResults {
  Catalog catalog;  // the problems found before probing (paths that do not exist)
  std::vector<std::shared_ptr<const ScriptResult>> results;  // in the scripts' order
  std::size_t probed = 0;
  std::size_t started_again = 0;
  // A plan's scripts (results[i] is null for those still to probe); empty once probed.
  std::vector<std::string> scripts;
};

ProbeCounts counts(const ProbeResults& probes) {
  return {probes.results.size(), probes.probed, probes.started_again};
}

namespace {

// `path` made absolute and normal; without a system call when it already is absolute.
std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return fs::path(path).lexically_normal().string();
  return resolve(path);
}

// Whether `before` still describes its script: its probe completed (a failed probe may
// have failed for a passing reason, a timeout under load, and is always tried again), and
// neither the script nor a file defining one of its functions is among `changed`.
bool still_valid(const ScriptResult& before, const std::set<std::string>& changed) {
  if (!before.report.completed || changed.count(before.script)) return false;
  for (const auto& f : before.report.functions)
    if (f.file != before.script && changed.count(absolute_path(f.file))) return false;
  return true;
}

}  // namespace

std::shared_ptr<ProbeResults> plan_probes(const DiscoveryOptions& options,
                                          const ProbeResults* previous,
                                          const std::vector<std::string>& changed) {
  auto plan = std::make_shared<ProbeResults>();
  const auto scripts = expand_paths(options.paths, plan->catalog.problems);
  plan->results.resize(scripts.size());
  plan->scripts = scripts;
  std::map<std::string, std::shared_ptr<const ScriptResult>> known;
  if (previous)
    for (const auto& r : previous->results) known.emplace(r->script, r);
  std::set<std::string> changed_paths;
  for (const auto& c : changed) changed_paths.insert(absolute_path(c));
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    auto it = known.find(scripts[i]);
    if (it != known.end() && still_valid(*it->second, changed_paths))
      plan->results[i] = it->second;
    else
      ++plan->probed;
  }
  return plan;
}

void run_probes(boost::asio::io_context& io, execution::Runner& runner,
                const DiscoveryOptions& options, std::shared_ptr<ProbeResults> plan,
                std::function<void(std::shared_ptr<const ProbeResults>)> done) {
  std::vector<std::string> to_probe;
  std::vector<std::size_t> slots;  // where each probed script's result goes
  for (std::size_t i = 0; i < plan->results.size(); ++i)
    if (!plan->results[i]) {
      to_probe.push_back(plan->scripts[i]);
      slots.push_back(i);
    }
  plan->scripts.clear();
  if (to_probe.empty()) {
    boost::asio::post(io, [plan, done = std::move(done)] { done(plan); });
    return;
  }
  probe_all(
      io, runner, to_probe, options,
      [plan, slots = std::move(slots), done = std::move(done)](std::vector<ScriptResult> results) {
        for (std::size_t k = 0; k < results.size(); ++k) {
          plan->started_again += results[k].started_again;
          plan->results[slots[k]] = std::make_shared<const ScriptResult>(std::move(results[k]));
        }
        done(plan);
      });
}

void probe_scripts(boost::asio::io_context& io, execution::Runner& runner,
                   const DiscoveryOptions& options, std::shared_ptr<const ProbeResults> previous,
                   const std::vector<std::string>& changed,
                   std::function<void(std::shared_ptr<const ProbeResults>)> done) {
  run_probes(io, runner, options, plan_probes(options, previous.get(), changed), std::move(done));
}

Catalog catalog_from_probes(const ProbeResults& probes, const DiscoveryOptions& options,
                            CatalogMemo* memo) {
  return build_catalog(probes.catalog, probes.results, options, memo);
}

Catalog discover(boost::asio::io_context& io, execution::Runner& runner,
                 const DiscoveryOptions& options, std::shared_ptr<const ProbeResults>* probes,
                 CatalogMemo* memo) {
  std::shared_ptr<const ProbeResults> found;
  probe_scripts(io, runner, options, nullptr, {},
                [&found](std::shared_ptr<const ProbeResults> p) { found = std::move(p); });
  while (!found) io.run_one();
  Catalog catalog = catalog_from_probes(*found, options, memo);
  if (probes) *probes = std::move(found);
  return catalog;
}

}  // namespace mcpsh::discovery
