#pragma once
// Bearer-token authentication: the token from its file, and the check of an
// Authorization header against it. The token is never logged or put in a message.
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::http {

struct LoadedToken {
  std::optional<std::string> token;
  std::string error;  // set when token is empty: why the file cannot serve
};

// The file's content without its trailing newline(s) ("\n" or "\r\n"). An unreadable
// file, an empty token, or one with characters a header cannot carry is an error.
LoadedToken load_token_file(const std::string& path);

// True when `authorization` is "Bearer <token>" (scheme case-insensitive). The comparison
// of the token takes the same time whatever the bytes (it depends only on the lengths).
bool bearer_matches(std::string_view authorization, std::string_view token);

}  // namespace mcpsh::http
