#include "reload/file_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mcpsh::reload {

namespace asio = boost::asio;

namespace {
constexpr std::uint32_t kMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
                                IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB;
}

struct FileWatch::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io, OnChange on_change, OnProblem on_problem)
      : stream(io), on_change(std::move(on_change)), on_problem(std::move(on_problem)) {
    int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
      this->on_problem(std::string("file watching is off: inotify_init1: ") + std::strerror(errno));
      return;
    }
    stream.assign(fd);
  }

  void read() {
    if (!stream.is_open()) return;
    stream.async_read_some(
        asio::buffer(buffer),
        [weak = weak_from_this()](const boost::system::error_code& ec, std::size_t n) {
          if (auto self = weak.lock()) self->on_read(ec, n);
        });
  }

  void on_read(const boost::system::error_code& ec, std::size_t n) {
    if (ec) {
      if (ec != asio::error::operation_aborted)
        on_problem("file watching stopped: " + ec.message());
      return;
    }
    // Reported after the whole buffer is parsed: a callback may change the watches.
    std::set<std::string> changed;
    std::size_t at = 0;
    while (at + sizeof(inotify_event) <= n) {
      inotify_event event;
      std::memcpy(&event, buffer.data() + at, sizeof event);
      std::string name;
      if (event.len > 0)
        name = std::string(buffer.data() + at + sizeof event,
                           ::strnlen(buffer.data() + at + sizeof event, event.len));
      at += sizeof(inotify_event) + event.len;
      if (event.mask & IN_Q_OVERFLOW) {
        // Events were lost: everything may have changed.
        for (const auto& f : files) changed.insert(f);
        for (const auto& f : folders) changed.insert(f);
        continue;
      }
      auto dir = by_wd.find(event.wd);
      if (dir == by_wd.end()) continue;
      const std::string watched = dir->second;
      if (event.mask & IN_IGNORED) {
        // The folder was deleted or moved away: all it held may have changed, and the
        // watch is gone (a guard on its parent sees it come back).
        by_wd.erase(dir);
        everything_in(watched, changed);
        continue;
      }
      if (folders.count(watched)) changed.insert(watched);
      if (name.empty()) continue;
      std::string path = watched + "/" + name;
      if (files.count(path)) changed.insert(path);
      // A wanted folder (re)appears in its parent: watch it again.
      if (wanted.count(path) && !watching(path) && add(path)) everything_in(path, changed);
    }
    for (const auto& path : changed) on_change(path);
    read();
  }

  void everything_in(const std::string& dir, std::set<std::string>& changed) const {
    if (folders.count(dir)) changed.insert(dir);
    for (const auto& f : files)
      if (std::filesystem::path(f).parent_path() == dir) changed.insert(f);
  }

  bool watching(const std::string& dir) const {
    for (const auto& [wd, path] : by_wd)
      if (path == dir) return true;
    return false;
  }

  bool add(const std::string& dir) {
    int wd = ::inotify_add_watch(stream.native_handle(), dir.c_str(), kMask | IN_ONLYDIR);
    if (wd < 0) return false;
    by_wd[wd] = dir;
    return true;
  }

  void set(const std::vector<std::string>& new_files, const std::vector<std::string>& new_folders) {
    files.clear();
    folders.clear();
    wanted.clear();
    std::set<std::string> dirs;
    for (const auto& f : new_files) {
      files.insert(f);
      dirs.insert(std::filesystem::path(f).parent_path().string());
    }
    for (const auto& d : new_folders) {
      folders.insert(d);
      dirs.insert(d);
    }
    // Each watched folder is guarded by a watch on its parent, which sees it deleted and
    // created again (`rm -rf tools && git checkout tools`): its own watch is then renewed.
    wanted = dirs;
    for (const auto& d : wanted) dirs.insert(std::filesystem::path(d).parent_path().string());
    if (!stream.is_open()) return;
    for (auto it = by_wd.begin(); it != by_wd.end();) {
      if (dirs.count(it->second)) {
        dirs.erase(it->second);  // already watched
        ++it;
      } else {
        ::inotify_rm_watch(stream.native_handle(), it->first);
        it = by_wd.erase(it);
      }
    }
    for (const auto& d : dirs)
      if (!add(d) && wanted.count(d))  // a folder that does not exist yet is no problem
        if (errno != ENOENT)
          on_problem("cannot watch " + d + " for changes: " + std::strerror(errno));
  }

  asio::posix::stream_descriptor stream;
  OnChange on_change;
  OnProblem on_problem;
  std::set<std::string> files, folders;
  std::set<std::string> wanted;  // the folders watched for what is in them (not the guards)
  std::map<int, std::string> by_wd;
  alignas(inotify_event) std::array<char, 16384> buffer{};
};

FileWatch::FileWatch(asio::io_context& io, OnChange on_change, OnProblem on_problem)
    : impl_(std::make_shared<Impl>(io, std::move(on_change), std::move(on_problem))) {
  impl_->read();
}

FileWatch::~FileWatch() {
  boost::system::error_code ignored;
  impl_->stream.close(ignored);
}

void FileWatch::watch(const std::vector<std::string>& files,
                      const std::vector<std::string>& folders) {
  impl_->set(files, folders);
}

bool FileWatch::ok() const { return impl_->stream.is_open(); }

}  // namespace mcpsh::reload
