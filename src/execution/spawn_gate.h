#pragma once
// SpawnGate: what the loop's reaper and escapee sweep must know about children forked on
// the spawner thread (ProcessRunner), where the loop cannot see them yet.
//
// A child forked on another thread can exit, and show up in waitid(P_ALL) and in our list
// of children, before the loop has heard its pid. Reaped as an unknown child, its run
// would lose its exit status; swept as an escapee, it would be killed. So:
//  - the spawner thread holds the gate from before fork until the new pid is recorded as
//    unclaimed (fork and the wait for exec happen inside; nothing else does);
//  - the loop looks at an unknown child only through try_enter(): while a fork is in
//    progress it gets nothing and asks again once that spawn has reported back;
//  - under the gate, unclaimed(pid) tells a run leader the loop has not claimed yet from
//    a stranger; claim(pid) (loop, when the spawn's report arrives) ends that.
// Thread-safe; the lock is never held while waiting for the loop.
#include <sys/types.h>

#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace mcpsh::execution {

class SpawnGate {
 public:
  using Lock = std::unique_lock<std::mutex>;

  // Spawner thread: held across fork .. forked().
  Lock hold() { return Lock(mutex_); }
  void forked(const Lock&, pid_t pid) { unclaimed_.insert(pid); }

  // Loop thread: nullopt while a fork is in progress.
  std::optional<Lock> try_enter() {
    Lock lock(mutex_, std::try_to_lock);
    if (!lock) return std::nullopt;
    return lock;
  }
  bool unclaimed(const Lock&, pid_t pid) const { return unclaimed_.count(pid) > 0; }

  void claim(pid_t pid) {
    Lock lock(mutex_);
    unclaimed_.erase(pid);
  }
  // Once the spawner thread has stopped: the leaders nobody will claim.
  std::vector<pid_t> take_unclaimed() {
    Lock lock(mutex_);
    std::vector<pid_t> pids(unclaimed_.begin(), unclaimed_.end());
    unclaimed_.clear();
    return pids;
  }

 private:
  std::mutex mutex_;
  std::set<pid_t> unclaimed_;
};

}  // namespace mcpsh::execution
