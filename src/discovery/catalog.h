#pragma once
// The result of discovery: which tools, resources, prompts and completers exist, where
// they live, what they advertise.
// Immutable once built; the protocol unit renders it. JSON travels as compact text so
// that this header carries no JSON library.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "execution/launch_spec.h"

namespace mcpsh::discovery {

// Whether a tool's call may run as a task (the tasks extension, io.modelcontextprotocol/tasks):
// kNone never; kOptional when the request declared the extension (else it runs as any call);
// kRequired only so (a request without the extension is refused with -32021).
enum class TaskSupport { kNone, kOptional, kRequired };

struct ToolEntry {
  std::string name;             // MCP tool name; tool_<name> is the function
  std::string script;           // absolute path of the script to source for a call
  std::string definition_json;  // the MCP Tool object as advertised (compact JSON)
  // False when a tools file advertises the tool but no script defines tool_<name>: it is
  // listed (the file is the list) but calling it is an invalid-params error.
  bool implemented = true;
  std::optional<std::chrono::milliseconds> timeout;  // from the comment tag @timeout
  // The server's sandbox narrowed by @sandbox, the server's environment policy widened
  // by @env. A sandbox this kernel cannot give is kept: the call then fails closed.
  execution::Confinement confinement;
  // @confirm MESSAGE: the user must accept MESSAGE (its {param} placeholders filled from
  // the arguments) before the tool runs; "" for none.
  std::string confirm;
  bool destructive = false;               // annotations.destructiveHint is true
  TaskSupport task = TaskSupport::kNone;  // @task
};

// A resource_<name> function: reading its URI (or a URI its template matches) runs it.
struct ResourceEntry {
  std::string name;    // resource_<name> is the function
  std::string script;  // absolute path of the script to source for a read
  // @uri as written: a URI, or a URI template (RFC 6570) when it has an expression. The
  // protocol unit compiles templates (and drops a resource whose template is invalid).
  std::string uri;
  bool is_template = false;
  // The MCP Resource object (uri) or ResourceTemplate object (uriTemplate), compact JSON.
  std::string definition_json;
  std::string mime;  // @mime, "" when not given
  std::optional<std::chrono::milliseconds> timeout;
  // @watch: files or directories (absolute) whose change means the resource changed.
  std::vector<std::string> watch;
  execution::Confinement confinement;  // the server's
};

struct PromptArgument {
  std::string name;
  bool required = true;
};

// A prompt_<name> function: prompts/get runs it; its output is the prompt's messages.
struct PromptEntry {
  std::string name;
  std::string script;
  std::string definition_json;  // the MCP Prompt object
  std::vector<PromptArgument> arguments;
  std::optional<std::chrono::milliseconds> timeout;
  execution::Confinement confinement;  // the server's
};

// A complete_<name> function: completes the arguments of the prompt <name> and the
// template variables of the resource <name>.
struct CompleterEntry {
  std::string name;
  std::string script;
  execution::Confinement confinement;  // the server's
};

// Server-level metadata from an old-core config file (a server/discover body).
struct ServerProfile {
  std::string source;                       // the file it came from
  std::optional<std::string> server_info;   // JSON object
  std::optional<std::string> capabilities;  // JSON object
  std::optional<std::string> instructions;  // plain text
  std::optional<std::int64_t> ttl_ms;
  std::optional<std::string> cache_scope;
};

struct Problem {
  enum class Severity { kError, kWarning };
  Severity severity;
  std::string where;  // a script, file:line or tool name
  std::string what;
};

struct Catalog {
  std::vector<ToolEntry> tools;          // in list order
  std::vector<ResourceEntry> resources;  // in list order (fixed URIs and templates)
  std::vector<PromptEntry> prompts;      // in list order
  std::vector<CompleterEntry> completers;
  std::optional<ServerProfile> profile;
  std::vector<Problem> problems;
  // What a reload watches: the files whose change changes the catalog (the scripts, the
  // files that define their functions, tools and config files), and the directories given
  // (a script added to one is new).
  std::vector<std::string> sources;
  std::vector<std::string> directories;
  // Scripts that could not be inspected (syntax error, stopped while sourced, ...): a
  // reload that adds one keeps the catalog served so far.
  std::vector<std::string> failed_scripts;
  // Set when the host must not start (e.g. two scripts define the same tool, resource or
  // prompt).
  bool fatal = false;
};

}  // namespace mcpsh::discovery
