#pragma once
// Resource and prompt metadata from the comment block directly above their functions (the
// same block rules as tools, comment_metadata.h):
//
//   # The project's README.                      description
//   # @uri docs://readme                         required: a URI, or a URI template
//   # @title Read me                               (RFC 6570: users://{id}/profile)
//   # @mime text/markdown                        MIME type of what the function prints
//   # @size 2048                                 size hint in bytes (fixed URIs only)
//   # @annotations {"audience":["user"]}         the MCP annotations object
//   # @watch README.md                           a file or directory whose change means the
//                                                resource changed (relative: to the folder of
//                                                the file it is written in); repeatable
//   # @timeout 5                                 seconds
//   # @sandbox read-only,no-network              narrows the server's (comment_metadata.h)
//   resource_readme() { cat README.md; }
//
//   # Ask for a review of one file.              description
//   # @title Code review
//   # @arg path The file to review               a required argument
//   # @arg focus? What to look at first          "?" after the name (or alone): optional
//   # @timeout 5
//   # @sandbox read-only
//   prompt_code_review() { ... }
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "sandbox/policy.h"

namespace mcpsh::discovery {

struct ResourceMetadata {
  ResourceEntry entry;                     // name, uri, is_template, definition_json, mime, timeout
  std::optional<sandbox::Policy> sandbox;  // @sandbox
  std::vector<std::string> errors;         // "line N: ..." for the caller to report
};

struct PromptMetadata {
  PromptEntry entry;  // name, definition_json, arguments, timeout
  std::optional<sandbox::Policy> sandbox;
  std::vector<std::string> errors;
};

// `lines` is the whole file; `function_line` is 1-based; `folder` is the file's folder
// (for relative @sandbox paths). The script is not set.
ResourceMetadata resource_from_comments(const std::string& name,
                                        const std::vector<std::string>& lines, int function_line,
                                        const std::string& folder = "/");
PromptMetadata prompt_from_comments(const std::string& name, const std::vector<std::string>& lines,
                                    int function_line, const std::string& folder = "/");

// A URI as a resource may have: a scheme, then no whitespace or control characters.
bool plausible_uri(const std::string& uri);

}  // namespace mcpsh::discovery
