#include "schema/uri.h"

#include <cctype>

namespace mcpsh::schema::detail {
namespace {

struct Uri {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

bool valid_scheme(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// RFC 3986 appendix B.
Uri parse(std::string_view s) {
  Uri u;
  if (auto hash = s.find('#'); hash != std::string_view::npos) {
    u.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  if (auto q = s.find('?'); q != std::string_view::npos) {
    u.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  if (auto colon = s.find(':'); colon != std::string_view::npos) {
    auto slash = s.find('/');
    if ((slash == std::string_view::npos || colon < slash) && valid_scheme(s.substr(0, colon))) {
      u.scheme = std::string(s.substr(0, colon));
      s = s.substr(colon + 1);
    }
  }
  if (s.starts_with("//")) {
    s = s.substr(2);
    auto end = s.find('/');
    u.authority = std::string(s.substr(0, end));
    s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  }
  u.path = std::string(s);
  return u;
}

// RFC 3986 section 5.2.4.
std::string remove_dot_segments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.remove_prefix(3);
    } else if (in.starts_with("./")) {
      in.remove_prefix(2);
    } else if (in.starts_with("/./")) {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.starts_with("/../") || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      auto last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      auto next = in.find('/', in[0] == '/' ? 1 : 0);
      out.append(in.substr(0, next));
      in = next == std::string_view::npos ? std::string_view{} : in.substr(next);
    }
  }
  return out;
}

std::string merge_paths(const Uri& base, std::string_view ref_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(ref_path);
  auto slash = base.path.rfind('/');
  if (slash == std::string::npos) return std::string(ref_path);
  return base.path.substr(0, slash + 1) + std::string(ref_path);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string to_string(const Uri& u) {
  std::string out;
  if (u.scheme) out += lower(*u.scheme) + ":";
  if (u.authority) out += "//" + lower(*u.authority);
  out += u.path;
  if (u.query) out += "?" + *u.query;
  if (u.fragment && !u.fragment->empty()) out += "#" + *u.fragment;
  return out;
}

}  // namespace

std::string resolve_uri(std::string_view base_text, std::string_view ref_text) {
  Uri ref = parse(ref_text);
  Uri base = parse(base_text);
  Uri t;
  if (ref.scheme) {
    t = ref;
    t.path = remove_dot_segments(ref.path);
  } else {
    if (ref.authority) {
      t.authority = ref.authority;
      t.path = remove_dot_segments(ref.path);
      t.query = ref.query;
    } else {
      if (ref.path.empty()) {
        t.path = base.path;
        t.query = ref.query ? ref.query : base.query;
      } else {
        t.path = ref.path[0] == '/' ? remove_dot_segments(ref.path)
                                    : remove_dot_segments(merge_paths(base, ref.path));
        t.query = ref.query;
      }
      t.authority = base.authority;
    }
    t.scheme = base.scheme;
  }
  t.fragment = ref.fragment;
  return to_string(t);
}

UriParts split_fragment(std::string_view uri) {
  UriParts parts;
  auto hash = uri.find('#');
  if (hash == std::string_view::npos) {
    parts.absolute = std::string(uri);
    return parts;
  }
  parts.absolute = std::string(uri.substr(0, hash));
  parts.fragment = std::string(uri.substr(hash + 1));
  parts.has_fragment = true;
  return parts;
}

std::string percent_decode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      int hi = hex(text[i + 1]);
      int lo = hex(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return std::nullopt;
  pointer.remove_prefix(1);
  while (true) {
    auto slash = pointer.find('/');
    std::string_view raw = pointer.substr(0, slash);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token.push_back(raw[i]);
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        return std::nullopt;
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return tokens;
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace mcpsh::schema::detail
