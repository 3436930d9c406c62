#pragma once
// Tool metadata from the comment block directly above a function:
//
//   # Book seats for a showing.                     description (lines before the first tag;
//   # Seats are held for ten minutes.                wrapped lines are joined with a space, an
//   #                                                empty comment line starts a new line)
//   # @title Book seats
//   # @param filmId integer Film id from list_films  required property: name, type, text
//   # @param note string? Free text                  "?" after the type: optional
//   # @input {"type":"object", ...}                  full inputSchema (overrides @param); JSON
//   # @output {"type":"object", ...}                 may continue on the following # lines
//   # @annotations {"readOnlyHint": true}
//   # @timeout 30                                    seconds (fractions allowed)
//   # @sandbox read-only,no-network                  narrows the server's sandbox
//   #                                                (sandbox/policy.h; paths relative to
//   #                                                the script's folder)
//   # @env GITHUB_TOKEN AWS_*                        host variables this tool needs beyond
//   #                                                --env-allow (--env-deny still wins)
//   # @confirm Book {seats} seats?                   the user must accept this first
//   #                                                ({param}: the argument's value)
//   # @task                                          may run as a task (long-running);
//   # @task required                                 only as a task
//   tool_book_seats() { ... }
//
// The block is the run of lines starting with '#' that ends on the line just above the
// function; a blank line ends it. "#!" and "# shellcheck ..." lines are skipped.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "sandbox/policy.h"

namespace mcpsh::discovery {

// The comment block above a function: its description and its @tags, each with the
// 1-based line it starts on (a tag's value may continue on the following # lines).
struct CommentTag {
  int line;
  std::string name, value;
};
struct CommentBlock {
  std::string description;
  std::vector<CommentTag> tags;
};
CommentBlock read_comment_block(const std::vector<std::string>& lines, int function_line);

// @timeout SECONDS: nullopt, with a "line N: ..." error appended, when it is not a positive
// number of seconds up to 365 days.
std::optional<std::chrono::milliseconds> parse_timeout_tag(const CommentTag& tag,
                                                           std::vector<std::string>& errors);

// @sandbox WORDS (paths relative to `folder`): nullopt, with a "line N: ..." error
// appended, when the words are not valid.
std::optional<sandbox::Policy> parse_sandbox_tag(const CommentTag& tag, const std::string& folder,
                                                 std::vector<std::string>& errors);
// @env PATTERN...: the patterns, separated by spaces or commas.
std::vector<std::string> parse_env_tag(const CommentTag& tag);

struct CommentMetadata {
  std::string definition_json;  // the MCP Tool object
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<sandbox::Policy> sandbox;  // @sandbox
  std::vector<std::string> env;            // @env
  std::string confirm;                     // @confirm
  bool destructive = false;                // annotations.destructiveHint is true
  TaskSupport task = TaskSupport::kNone;   // @task
  std::vector<std::string> errors;         // "line N: ..." for the caller to report
};

// `lines` is the whole file; `function_line` is 1-based (bash's declare -F under extdebug);
// `folder` is the file's folder (relative @sandbox paths are taken from there).
CommentMetadata metadata_from_comments(const std::string& tool_name,
                                       const std::vector<std::string>& lines, int function_line,
                                       const std::string& folder = "/");

}  // namespace mcpsh::discovery
