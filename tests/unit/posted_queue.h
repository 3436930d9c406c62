#pragma once
// The consumer side of a transport in unit tests: what the reader and writer threads post
// lands here, and runs only when the test says so, on the test's own thread. So a test
// can hold events back (backpressure) or run them, and everything the transport shares
// between threads is exercised for real (meaningful under ThreadSanitizer).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace mcpsh::transport {

using namespace std::chrono_literals;

class PostedQueue {
 public:
  // The `post` to give a LineReader or LineWriter.
  std::function<void(std::function<void()>)> post() {
    // Notified with the lock held: once the test has taken the function, the poster is
    // done with this object, which the test may then destroy.
    return [this](std::function<void()> f) {
      std::lock_guard lock(mutex_);
      waiting_.push_back(std::move(f));
      changed_.notify_all();
    };
  }

  // Waits until at least `n` posted functions wait to be run; false after `timeout`.
  bool wait_for_waiting(std::size_t n, std::chrono::milliseconds timeout = 20s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return waiting_.size() >= n; });
  }

  std::size_t waiting() {
    std::lock_guard lock(mutex_);
    return waiting_.size();
  }

  // Runs the oldest posted function, waiting up to `timeout` for one; false if none came.
  bool run_one(std::chrono::milliseconds timeout = 20s) {
    std::function<void()> f;
    {
      std::unique_lock lock(mutex_);
      if (!changed_.wait_for(lock, timeout, [&] { return !waiting_.empty(); })) return false;
      f = std::move(waiting_.front());
      waiting_.pop_front();
    }
    f();
    return true;
  }

  // Runs posted functions until `done()` holds; false if it did not within `timeout`.
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout = 20s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !run_one(left)) return done();
    }
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> waiting_;
};

}  // namespace mcpsh::transport
