#include "http/bearer_token.h"

#include <strings.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace mcpsh::http {

LoadedToken load_token_file(const std::string& path) {
  LoadedToken loaded;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    loaded.error = "cannot read the token file " + path + ": " + std::strerror(errno);
    return loaded;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty()) {
    loaded.error = "the token file " + path + " is empty";
    return loaded;
  }
  for (unsigned char c : text)
    if (c < 0x21 || c > 0x7e) {
      loaded.error = "the token file " + path +
                     " holds characters an Authorization header cannot carry (one line of "
                     "printable ASCII without spaces is needed)";
      return loaded;
    }
  loaded.token = std::move(text);
  return loaded;
}

bool bearer_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size() ||
      ::strncasecmp(authorization.data(), kScheme.data(), kScheme.size()) != 0)
    return false;
  std::string_view given = authorization.substr(kScheme.size());
  while (!given.empty() && given.front() == ' ') given.remove_prefix(1);
  while (!given.empty() && given.back() == ' ') given.remove_suffix(1);
  // Every byte of the longer string is looked at, whatever differs first.
  const std::size_t n = std::max(given.size(), token.size());
  unsigned diff = given.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char a = i < given.size() ? given[i] : 0;
    const unsigned char b = i < token.size() ? token[i] : 0;
    diff |= static_cast<unsigned>(a ^ b);
  }
  return diff == 0;
}

}  // namespace mcpsh::http
