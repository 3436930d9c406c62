#include "resources/resource_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

namespace mcpsh::resources {

namespace {

constexpr std::size_t kMaxSegmentBytes = 255;  // NAME_MAX on Linux file systems

// Closes the descriptor it owns; -1 owns nothing.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

DirRead failed(DirRead::Status status, std::string why) {
  DirRead r;
  r.status = status;
  r.why = std::move(why);
  return r;
}

// std::strerror may share a buffer between threads; the category's message does not.
std::string errno_text(int err) { return std::generic_category().message(err); }

std::optional<std::string> real_path(const std::string& path, int& err) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                       &std::free);
  if (!resolved) {
    err = errno;
    return std::nullopt;
  }
  return std::string(resolved.get());
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// The segments of an absolute canonical path ("/" has none).
std::vector<std::string> absolute_segments(const std::string& path) {
  if (path == "/") return {};
  return split_path(std::string_view(path).substr(1));
}

std::string join_under(const std::string& root, const std::vector<std::string>& segments) {
  std::string path = root;
  for (const auto& s : segments) {
    if (path.empty() || path.back() != '/') path += '/';
    path += s;
  }
  return path;
}

// `canonical` relative to `root` as segments; nullopt when it is not strictly inside.
std::optional<std::vector<std::string>> inside(const std::string& root,
                                               const std::string& canonical) {
  std::string prefix = root == "/" ? root : root + "/";
  if (canonical.size() <= prefix.size() || canonical.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  return split_path(std::string_view(canonical).substr(prefix.size()));
}

// A segment of a published path: not hidden, no backslash.
bool published_segment(std::string_view s) {
  return !s.empty() && s.front() != '.' && s.find('\\') == std::string_view::npos;
}

bool published_path(const std::vector<std::string>& segments) {
  return std::all_of(segments.begin(), segments.end(),
                     [](const std::string& s) { return published_segment(s); });
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF.
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out += raw[i];
      continue;
    }
    if (i + 2 >= raw.size()) return std::nullopt;
    int hi = hex_value(raw[i + 1]), lo = hex_value(raw[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Why a decoded segment of the relative path is refused, or nullptr.
const char* refusal(const std::string& s) {
  if (s.empty()) return "the path has an empty segment (\"//\" or a trailing \"/\")";
  if (s.find('\0') != std::string::npos) return "the path holds a NUL byte";
  if (s.find('/') != std::string::npos) return "the path holds an encoded \"/\" (%2F)";
  if (s.find('\\') != std::string::npos) return "the path holds a backslash";
  if (s == "." || s == "..") return "the path has a \".\" or \"..\" segment";
  if (s.front() == '.') return "files and folders whose name starts with \".\" are not published";
  if (s.size() > kMaxSegmentBytes) return "a name in the path is longer than 255 bytes";
  return nullptr;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

constexpr std::array<MimeByExtension, 35> kMimeTable{{
    {"png", "image/png"},         {"gif", "image/gif"},       {"webp", "image/webp"},
    {"bmp", "image/bmp"},         {"avif", "image/avif"},     {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},       {"svg", "image/svg+xml"},   {"ico", "image/x-icon"},
    {"tif", "image/tiff"},        {"tiff", "image/tiff"},     {"wav", "audio/wav"},
    {"mp3", "audio/mpeg"},        {"ogg", "audio/ogg"},       {"oga", "audio/ogg"},
    {"opus", "audio/ogg"},        {"flac", "audio/flac"},     {"m4a", "audio/mp4"},
    {"aac", "audio/aac"},         {"txt", "text/plain"},      {"text", "text/plain"},
    {"log", "text/plain"},        {"md", "text/markdown"},    {"markdown", "text/markdown"},
    {"html", "text/html"},        {"htm", "text/html"},       {"csv", "text/csv"},
    {"json", "application/json"}, {"xml", "application/xml"}, {"yaml", "application/yaml"},
    {"yml", "application/yaml"},  {"sh", "application/x-sh"}, {"pdf", "application/pdf"},
    {"zip", "application/zip"},   {"gz", "application/gzip"},
}};

}  // namespace

std::span<const MimeByExtension> mime_table() { return kMimeTable; }

std::string_view mime_for_name(std::string_view name) {
  std::size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string ext = to_lower(name.substr(dot + 1));
  for (const auto& entry : kMimeTable)
    if (entry.extension == ext) return entry.mime;
  return {};
}

std::string encode_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(segment.size());
  for (char ch : segment) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

ResourceDir::ResourceDir(std::string root)
    : root_(std::move(root)), root_segments_(absolute_segments(root_)) {
  uri_prefix_ = "file://";
  for (const auto& s : root_segments_) uri_prefix_ += "/" + encode_segment(s);
  uri_prefix_ += "/";
}

std::variant<ResourceDir, std::string> ResourceDir::open(const std::string& dir) {
  int err = 0;
  auto canonical = real_path(dir, err);
  if (!canonical) return dir + ": " + errno_text(err);
  Fd fd(::open(canonical->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) {
    err = errno;
    if (err == ENOTDIR) return dir + ": not a directory";
    return dir + ": cannot be read (" + errno_text(err) + ")";
  }
  if (::access(canonical->c_str(), R_OK | X_OK) != 0)
    return dir + ": cannot be read (" + errno_text(errno) + ")";
  return ResourceDir(std::move(*canonical));
}

namespace {

struct Entry {
  std::string key;  // the name, with a trailing '/' for a folder: sorts like full paths
  std::string name;
  bool folder;
  std::uint64_t size;
};

class Lister {
 public:
  Lister(const ResourceDir& dir, std::size_t max_files) : dir_(dir), max_(max_files) {}

  // Depth-first in sorted order, so the first max_ files met are the first max_ by name.
  void walk(int dir_fd, const std::string& rel, std::size_t depth) {
    std::vector<Entry> entries = read_entries(dir_fd, rel, depth);
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    for (const auto& e : entries) {
      if (truncated) return;
      std::string path = rel.empty() ? e.name : rel + "/" + e.name;
      if (e.folder) {
        Fd child(::openat(dir_fd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (child.get() >= 0) walk(child.get(), path, depth + 1);
        continue;
      }
      if (files.size() == max_) {
        truncated = true;
        return;
      }
      DirFile f;
      f.uri = dir_.uri_prefix();
      for (const auto& s : split_path(path)) f.uri += encode_segment(s) + "/";
      f.uri.pop_back();
      f.mime = mime_for_name(e.name);
      f.size = e.size;
      f.name = std::move(path);
      files.push_back(std::move(f));
    }
  }

  std::vector<DirFile> files;
  bool truncated = false;

 private:
  std::vector<Entry> read_entries(int dir_fd, const std::string& rel, std::size_t depth) {
    std::vector<Entry> out;
    int dup_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0) return out;
    std::unique_ptr<DIR, DirCloser> d(::fdopendir(dup_fd));
    if (!d) {
      ::close(dup_fd);
      return out;
    }
    while (dirent* ent = ::readdir(d.get())) {
      std::string name = ent->d_name;
      if (!published_segment(name) || !valid_utf8(name)) continue;
      struct stat st;
      if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth < kMaxDepth) out.push_back({name + "/", name, true, 0});
      } else if (S_ISREG(st.st_mode)) {
        out.push_back({name, name, false, static_cast<std::uint64_t>(st.st_size)});
      } else if (S_ISLNK(st.st_mode)) {
        if (auto size = linked_file_size(rel.empty() ? name : rel + "/" + name))
          out.push_back({name, name, false, *size});
      }
    }
    return out;
  }

  // The size of what a symlink resolves to, when that is a published regular file.
  std::optional<std::uint64_t> linked_file_size(const std::string& rel) const {
    int err = 0;
    auto canonical = real_path(dir_.root() + "/" + rel, err);
    if (!canonical) return std::nullopt;
    auto segments = inside(dir_.root(), *canonical);
    if (!segments || !published_path(*segments)) return std::nullopt;
    struct stat st;
    if (::stat(canonical->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
  }

  const ResourceDir& dir_;
  std::size_t max_;
};

}  // namespace

std::vector<DirFile> ResourceDir::list(std::size_t max_files, bool* truncated) const {
  Lister lister(*this, max_files);
  Fd root(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.get() >= 0) lister.walk(root.get(), "", 0);
  if (truncated) *truncated = lister.truncated;
  return std::move(lister.files);
}

DirRead ResourceDir::read(std::string_view uri, std::uint64_t max_bytes) const {
  using Status = DirRead::Status;
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() || to_lower(uri.substr(0, kScheme.size())) != kScheme) return {};
  std::string_view path = uri.substr(kScheme.size());
  std::size_t query = path.find_first_of("?#");
  bool has_query = query != std::string_view::npos;
  if (has_query) path = path.substr(0, query);
  if (path.empty() || path.front() != '/') return {};  // a host, or no path at all

  // Whether the URI is under the root is decided on decoded segments, so that a client's
  // own choice of which bytes to encode does not matter.
  std::vector<std::string> raw = split_path(path.substr(1));
  if (raw.size() < root_segments_.size()) return {};
  for (std::size_t i = 0; i < root_segments_.size(); ++i) {
    auto decoded = percent_decode(raw[i]);
    if (!decoded || *decoded != root_segments_[i]) return {};
  }
  raw.erase(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(root_segments_.size()));
  if (raw.empty()) return {};  // "file:///root" lacks the prefix's final "/"

  if (has_query) return failed(Status::kRefused, "a file URI with a query or fragment");
  if (raw.size() == 1 && raw[0].empty())
    return failed(Status::kRefused, "the URI names the published folder itself, not a file");
  if (raw.size() > kMaxDepth + 1)
    return failed(Status::kRefused,
                  "the path is more than " + std::to_string(kMaxDepth + 1) + " names deep");
  std::vector<std::string> segments;
  for (const auto& r : raw) {
    auto decoded = percent_decode(r);
    if (!decoded) return failed(Status::kRefused, "the path has a malformed %-escape");
    if (const char* why = refusal(*decoded)) return failed(Status::kRefused, why);
    segments.push_back(std::move(*decoded));
  }

  int err = 0;
  auto canonical = real_path(join_under(root_, segments), err);
  if (!canonical) {
    if (err == ENOENT || err == ENOTDIR) return failed(Status::kNotFound, "no such file");
    return failed(Status::kRefused, "the path cannot be resolved (" + errno_text(err) + ")");
  }
  auto resolved = inside(root_, *canonical);
  if (!resolved) {
    if (*canonical == root_)
      return failed(Status::kRefused, "the URI names the published folder itself, not a file");
    return failed(Status::kRefused, "the path resolves outside the published folder");
  }
  if (!published_path(*resolved))
    return failed(Status::kRefused,
                  "the path resolves to a file that is not published (a name starting with "
                  "\".\" or holding a backslash)");

  DirRead r = read_beneath(root_, *resolved, max_bytes);
  if (r.status == Status::kOk) r.mime = mime_for_name(segments.back());
  return r;
}

DirRead read_beneath(const std::string& root, const std::vector<std::string>& segments,
                     std::uint64_t max_bytes) {
  using Status = DirRead::Status;
  auto open_error = [](int err) {
    if (err == ENOENT) return failed(Status::kNotFound, "no such file");
    if (err == ELOOP || err == ENOTDIR)
      return failed(Status::kRefused, "the path changed while it was being read (a symlink)");
    return failed(Status::kRefused, "the file cannot be opened (" + errno_text(err) + ")");
  };
  if (segments.empty())
    return failed(Status::kRefused, "the URI names the published folder itself, not a file");

  // O_DIRECTORY with O_NOFOLLOW fails on a symlink (ENOTDIR), so no step follows one.
  Fd dir(::open(root.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) return open_error(errno);
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    int next =
        ::openat(dir.get(), segments[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return open_error(errno);
    dir.reset(next);
  }
  const std::string& leaf = segments.back();
  struct stat before;
  if (::fstatat(dir.get(), leaf.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0)
    return open_error(errno);
  if (S_ISLNK(before.st_mode)) return open_error(ELOOP);
  if (S_ISDIR(before.st_mode))
    return failed(Status::kRefused, "the URI names a folder, not a file");
  if (!S_ISREG(before.st_mode))
    return failed(Status::kRefused, "not a regular file (a FIFO, socket or device)");

  // O_NONBLOCK: should the name be swapped for a FIFO after fstatat, the open still returns.
  Fd file(
      ::openat(dir.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (file.get() < 0) return open_error(errno);
  struct stat opened;
  if (::fstat(file.get(), &opened) != 0)
    return failed(Status::kRefused, "the file cannot be read (" + errno_text(errno) + ")");
  if (!S_ISREG(opened.st_mode) || opened.st_dev != before.st_dev || opened.st_ino != before.st_ino)
    return failed(Status::kRefused, "the file changed while it was being read");
  auto too_large = [max_bytes] {
    return failed(Status::kTooLarge,
                  "the file is larger than " + std::to_string(max_bytes) + " bytes");
  };
  if (static_cast<std::uint64_t>(opened.st_size) > max_bytes) return too_large();

  // The size may change under us: read to end of file, stopping one byte past the limit.
  DirRead r;
  std::uint64_t want = std::min<std::uint64_t>(opened.st_size, max_bytes);
  r.bytes.reserve(want);
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed(Status::kRefused, "the file cannot be read (" + errno_text(errno) + ")");
    }
    if (n == 0) break;
    r.bytes.append(buffer, static_cast<std::size_t>(n));
    if (r.bytes.size() > max_bytes) return too_large();
  }
  r.status = Status::kOk;
  return r;
}

}  // namespace mcpsh::resources
