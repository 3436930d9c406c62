#pragma once
// Watches files and folders for changes (Linux inotify), on the io_context's thread.
//
// A file is watched through its folder: editors save by writing a new file and renaming
// it over the old one, which a watch on the file itself would lose; and a file that does
// not exist yet is seen when it appears. A folder is watched for what happens directly in
// it. Events come in bursts (a save is several); the caller debounces.
//
// Contract: single-threaded (the io_context's); the inotify descriptor is close-on-exec
// (tools never inherit it). When inotify is unavailable or out of watches, ok() is false
// or the problem is logged through on_problem, and nothing is reported: the host then
// serves what it discovered at start, as before.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace mcpsh::reload {

class FileWatch {
 public:
  // `path`: the watched file, or the watched folder, that changed.
  using OnChange = std::function<void(const std::string& path)>;
  using OnProblem = std::function<void(const std::string& what)>;

  FileWatch(boost::asio::io_context& io, OnChange on_change, OnProblem on_problem);
  ~FileWatch();
  FileWatch(const FileWatch&) = delete;
  FileWatch& operator=(const FileWatch&) = delete;

  // Replaces what is watched. Paths are absolute.
  void watch(const std::vector<std::string>& files, const std::vector<std::string>& folders);
  bool ok() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mcpsh::reload
