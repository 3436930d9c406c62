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
//    progress it gets nothing and asks again once that spawn has reported back (a spawn
//    always reports back);
//  - under the gate, unclaimed(pid) tells a run leader the loop has not claimed yet from
//    a stranger; reaped(pid) and claim(pid) (loop) end that.
// The set of unclaimed pids has a lock of its own, held only for a lookup or an update:
// the loop never waits for a fork.
#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace mcpsh::execution {

class SpawnGate {
 public:
  using Lock = std::unique_lock<std::mutex>;

  // Spawner thread: the gate, held across fork .. forked() (until destroyed).
  class Held {
   public:
    explicit Held(SpawnGate& gate) : gate_(gate) {
      gate_.forking_ = true;  // before the lock: a failed try_enter() then knows it was a fork
      gate_.fork_.lock();
    }
    ~Held() {
      gate_.fork_.unlock();
      gate_.forking_ = false;
    }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    SpawnGate& gate_;
  };
  Held hold() { return Held(*this); }
  void forked(const Held&, pid_t pid) {
    std::lock_guard guard(set_);
    unclaimed_.insert(pid);
  }

  // Loop thread: nullopt while a fork is in progress.
  std::optional<Lock> try_enter() {
    Lock lock(fork_, std::try_to_lock);
    if (lock) return lock;
    if (forking_) return std::nullopt;
    lock.lock();  // try_lock may fail spuriously: nobody is forking, so this is short
    return lock;
  }
  bool unclaimed(const Lock&, pid_t pid) {
    std::lock_guard guard(set_);
    return unclaimed_.count(pid) > 0;
  }
  // An unclaimed leader the loop has reaped: its pid may be reused from now on.
  void reaped(const Lock&, pid_t pid) {
    std::lock_guard guard(set_);
    unclaimed_.erase(pid);
  }

  void claim(pid_t pid) {
    std::lock_guard guard(set_);
    unclaimed_.erase(pid);
  }
  // Once the spawner thread has stopped: the live leaders nobody will claim.
  std::vector<pid_t> take_unclaimed() {
    std::lock_guard guard(set_);
    std::vector<pid_t> pids(unclaimed_.begin(), unclaimed_.end());
    unclaimed_.clear();
    return pids;
  }

 private:
  std::mutex fork_;  // held by the spawner across a fork
  std::mutex set_;   // guards unclaimed_ only, briefly
  std::atomic<bool> forking_{false};
  std::set<pid_t> unclaimed_;
};

}  // namespace mcpsh::execution
