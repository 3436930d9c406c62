#pragma once
// The requestState of a request that returned input_required, and what a retry brings.
//
// The state is sealed (sealed_state.h) and binds the answers gathered so far to one
// request: the method, its target (tool or prompt name, resource URI), a digest of its
// arguments (SHA-256 of their canonical JSON: members sorted, so a client may re-serialize
// them), the principal (the client's name) and an expiry. A retry whose state fails any
// of these is refused (-32602), never run. Answers in the retry's inputResponses take
// precedence over those carried in the state; a retry without a state runs with what its
// inputResponses hold (the spec lets a client answer without one).
#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <variant>

#include "asking/answers.h"
#include "asking/sealed_state.h"

namespace mcpsh::asking {

struct RoundBinding {
  std::string method;            // "tools/call", "prompts/get", "resources/read"
  std::string target;            // the tool's or prompt's name, the resource's URI
  std::string arguments_digest;  // arguments_digest() of the request's arguments
  std::string principal;         // who asked: the client's name
};

// SHA-256 (hex) of the canonical JSON of `arguments` (nullptr: of {}).
std::string arguments_digest(const rapidjson::Value* arguments);

struct RoundProblem {
  std::string message;  // for an Invalid params error
};

// params.inputResponses and params.requestState of a request -> the answers to run with.
std::variant<Answers, RoundProblem> read_round(const rapidjson::Value* params,
                                               const RoundBinding& binding,
                                               const StateSealer& sealer, std::int64_t now);

// The requestState of an input_required result: `answers` bound to the request, valid
// until `expires` (seconds since the epoch).
std::string seal_round(const RoundBinding& binding, const Answers& answers,
                       const StateSealer& sealer, std::int64_t expires);

}  // namespace mcpsh::asking
