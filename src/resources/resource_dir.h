#pragma once
// One directory of files published as resources: listed and read, read-only, confined.
//
// Which files are published (list() shows exactly these; read() serves nothing else):
//  - regular files under the root, at most kMaxDepth directory levels down;
//  - no path segment starts with '.' (dot files and everything in dot folders stay private)
//    or holds a backslash, in the path as named and in the path it resolves to;
//  - a symlink is published when what it resolves to (every link followed) is a published
//    regular file inside the root; list() lists symlinked files but does not descend into
//    symlinked folders (no cycles, no file listed twice); read() accepts a path through a
//    symlinked folder when the file it resolves to is published;
//  - list() leaves out names that are not UTF-8 (a resource name is a JSON string).
//
// URIs: "file://" + the canonical root + "/" + the relative path, every byte outside
// [A-Za-z0-9-._~] percent-encoded (UTF-8 names byte by byte), path separators kept.
//
// read() percent-decodes each segment exactly once, then refuses (kRefused, with a sentence
// for the client): a query or fragment, an empty segment (so "//etc/passwd" after the
// root), ".", "..", any segment starting with '.', NUL, a backslash, a segment that decodes
// to contain '/' (%2F: no file name holds one, so it is only ever an attempt to smuggle a
// separator), a segment over 255 bytes, more than kMaxDepth + 1 segments, a path that does
// not resolve (realpath) to a published regular file inside the root. It then opens the
// resolved path one component at a time from the root without following any symlink
// (O_NOFOLLOW on every step): a folder swapped for a symlink between the check and the open
// is refused, not followed. A FIFO, socket or device is refused before it is opened, and
// the open is non-blocking besides, so nothing but a regular file's bytes can block.
//
// Not covered: a hard link inside the root to a file outside it is that file (the kernel
// cannot tell them apart); a folder renamed out of the root while a read walks through it.
//
// Threading: a ResourceDir is an immutable value; list() and read() may run on any thread,
// concurrently. They block only on file-system calls on local paths (no FIFO, no socket).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcpsh::resources {

// Folders below the root that list() descends into and read() accepts: a file directly in
// the root is at depth 0.
inline constexpr std::size_t kMaxDepth = 32;

struct DirFile {
  std::string uri;     // file:///canonical/root/rel/path, percent-encoded
  std::string name;    // the relative path as named in the folder, e.g. "src/main.c"
  std::string mime;    // from the extension (mime_for_name), "" when unknown
  std::uint64_t size;  // bytes, when listed
};

struct DirRead {
  enum class Status { kNotMine, kNotFound, kRefused, kTooLarge, kOk };
  Status status = Status::kNotMine;
  std::string bytes;  // kOk: the whole file
  std::string mime;   // kOk: from the name in the URI, "" when unknown
  std::string why;    // kNotFound, kRefused, kTooLarge: one sentence for the client
};

class ResourceDir {
 public:
  // Makes `dir` absolute and canonical (realpath) once. The error text names `dir` and says
  // why it cannot be published (missing, not a directory, not readable).
  static std::variant<ResourceDir, std::string> open(const std::string& dir);

  const std::string& root() const { return root_; }              // canonical, absolute
  const std::string& uri_prefix() const { return uri_prefix_; }  // ends with '/'

  // The published files, sorted by name (bytewise), at most `max_files` of them;
  // `*truncated` (when given) says whether there were more. Folders that cannot be read are
  // skipped. The work is bounded by `max_files` plus the size of the folders on the way.
  std::vector<DirFile> list(std::size_t max_files, bool* truncated) const;

  // Reads what `uri` names. kNotMine when `uri` is not a file: URI under root() at all (the
  // caller then tries its other resources); otherwise the rules in the header comment, and
  // kTooLarge for a file over `max_bytes`, kNotFound for a path that does not exist.
  DirRead read(std::string_view uri, std::uint64_t max_bytes) const;

 private:
  explicit ResourceDir(std::string root);

  std::string root_;
  std::string uri_prefix_;
  std::vector<std::string> root_segments_;  // root_ split on '/', decoded
};

// The last step of read(), public for its tests: opens <root>/<segments...> for reading,
// one component at a time with O_NOFOLLOW, and reads it whole when it is a regular file of
// at most `max_bytes`. `segments` are the canonical path below `root` (no symlink is
// expected on the way, so any symlink met means the tree changed since it was resolved:
// kRefused). The result has no mime.
DirRead read_beneath(const std::string& root, const std::vector<std::string>& segments,
                     std::uint64_t max_bytes);

// The MIME type for a file name's extension (case-insensitive), "" when unknown. The same
// table as the tools' __mcp_mime helper (src/execution/tool_launch.cc): a unit test holds
// the two equal.
struct MimeByExtension {
  std::string_view extension;  // lower case, without the dot
  std::string_view mime;
};
std::span<const MimeByExtension> mime_table();
std::string_view mime_for_name(std::string_view name);

// RFC 3986 percent-encoding of one path segment: every byte outside [A-Za-z0-9-._~].
std::string encode_segment(std::string_view segment);

}  // namespace mcpsh::resources
