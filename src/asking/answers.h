#pragma once
// The client's answers to a tool's questions (inputResponses, MCP 2026-07-28), checked,
// and the lines a tool's helpers read them from. Pure.
//
// Answers are kept as compact JSON by key. A response is one of ElicitResult (an
// "action" of accept, decline or cancel; "content" an object when given),
// CreateMessageResult ("role" and "content") or ListRootsResult ("roots", an array of
// objects with a string "uri"); anything else is the client's mistake (-32602), since the
// spec asks servers to validate what the client sends. Keys a tool cannot have chosen
// (asks.h valid_key) are ignored, as the spec says of what a server does not recognize.
#include <rapidjson/document.h>

#include <map>
#include <string>
#include <variant>

namespace mcpsh::asking {

using Answers = std::map<std::string, std::string>;  // key -> the response, compact JSON

struct AnswerProblem {
  std::string message;  // for an Invalid params error
};

// params.inputResponses (null when absent) -> the answers it holds.
std::variant<Answers, AnswerProblem> read_input_responses(const rapidjson::Value* responses);

// One line per answer, for the tool's bootstrap (execution/tool_launch.cc):
//   KEY <TAB> SHAPE <TAB> STATUS <TAB> LENGTH <TAB> TEXT <TAB> JSON
// SHAPE is elicit, sample or roots; STATUS 0 (accept, or any sampling or roots answer),
// 1 (decline) or 2 (cancel); TEXT what the helper prints (an elicitation's content as
// JSON, a sampling reply's text, the roots' URIs one per line); JSON the whole response.
// TEXT and JSON are escaped for bash's `printf %b`: backslash, newline, tab and other
// control bytes are written as \\, \n, \t and \xHH, so a line holds no TAB or newline of
// its own. LENGTH is TEXT's length in bytes (as escaped): bash cuts TEXT by it, since
// splitting a long string at a TAB costs bash time quadratic in its length. Lines end with
// "\n"; `count` gets their number.
std::string tool_input_lines(const Answers& answers, std::size_t& count);
// The shape tool_input_lines gives a response: "elicit", "sample", "roots", or "" for none.
std::string shape_of_response(const std::string& json);
// Lines of the same form for a question asked while the tool waits (the legacy era):
// "error" (the client answered with an error: the helper prints `message` to stderr and
// returns 1) and "end" (the host will not ask: the run ends).
std::string error_line(const std::string& key, std::string_view message);
std::string end_line(const std::string& key);
// The line that makes the bootstrap ask for @confirm's `message` first.
std::string confirm_line(std::string_view message);
// `text` with each {name} replaced by the argument `name` of `arguments` (a string as it is,
// any other value as compact JSON); a name the arguments lack stays as written.
std::string fill_placeholders(const std::string& text, const rapidjson::Value* arguments);

}  // namespace mcpsh::asking
