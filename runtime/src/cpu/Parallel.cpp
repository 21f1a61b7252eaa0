//===- Parallel.cpp - the cpu backend's own threads -----------------------===//
#include "cpu/Parallel.h"

#include "mp/runtime/Backend.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

using namespace mp::rt;

/// 0 = not set: MP_NUM_THREADS, else every hardware thread.
static std::atomic<int> requestedThreads{0};

StatusOr<int> mp::rt::threadsFromEnvironment() {
  const char *env = std::getenv("MP_NUM_THREADS");
  if (!env)
    return 0;
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || errno == ERANGE || value < 1 ||
      value > 4096)
    return invalidArgument(std::string("MP_NUM_THREADS is '") + env +
                           "'; it takes a thread count from 1 to 4096 (or "
                           "unset it for every hardware thread)");
  return static_cast<int>(value);
}

static int defaultThreads() {
  // createBackend refused a bad MP_NUM_THREADS before any kernel ran.
  StatusOr<int> fromEnvironment = threadsFromEnvironment();
  if (fromEnvironment.isOk() && *fromEnvironment > 0)
    return *fromEnvironment;
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware ? static_cast<int>(hardware) : 1;
}

void mp::rt::setCpuThreads(int threads) {
  requestedThreads = threads > 0 ? threads : 0;
}

int mp::rt::cpuThreads() {
  int threads = requestedThreads;
  return threads > 0 ? threads : defaultThreads();
}

namespace {
/// Worker threads kept for the life of the process: starting a thread per
/// call costs tens of microseconds, and a kept thread keeps its scratch
/// buffers (reference/KernelSupport.h) warm. One job at a time; the caller
/// works on it too.
class WorkerPool {
public:
  static WorkerPool &get() {
    static WorkerPool pool;
    return pool;
  }

  /// Runs body(part) once for every part in [0, parts), on the caller and
  /// the workers. False, with nothing run, when the pool is busy with
  /// another caller's job or the caller is a worker (a nested call).
  bool run(int parts, const std::function<void(int)> &body) {
    if (inWorker)
      return false;
    std::unique_lock<std::mutex> busy(jobLock_, std::try_to_lock);
    if (!busy.owns_lock())
      return false;
    // Each job has its own counters: a worker that wakes late for an old
    // job finds that job's parts all taken and never touches a newer one.
    auto job = std::make_shared<Job>(body, parts);
    {
      std::lock_guard<std::mutex> hold(lock_);
      while (static_cast<int>(workers_.size()) < parts - 1) {
        try {
          workers_.emplace_back([this] { work(); });
        } catch (const std::system_error &) {
          break; // fewer workers: the caller takes more parts
        }
      }
      job_ = job;
      posted_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    job->take();
    std::unique_lock<std::mutex> hold(job->lock);
    job->done.wait(hold, [&] { return job->remaining == 0; });
    return true;
  }

  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> hold(lock_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : workers_)
      t.join();
  }

  struct Job {
    Job(const std::function<void(int)> &body, int parts)
        : body(body), parts(parts), remaining(parts) {}
    /// Runs parts until none is left.
    void take() {
      for (int part; (part = next.fetch_add(1)) < parts;) {
        body(part);
        std::lock_guard<std::mutex> hold(lock);
        if (--remaining == 0)
          done.notify_all();
      }
    }
    const std::function<void(int)> &body;
    const int parts;
    std::atomic<int> next{0};
    int remaining; ///< guarded by `lock`
    std::mutex lock;
    std::condition_variable done;
  };

  /// Workers stop waiting for the next job awake (release()).
  void release() { released_.fetch_add(1, std::memory_order_relaxed); }

private:
  /// How long a worker that finished a job stays awake for the next one
  /// before it sleeps on the condition variable: the own kernels of a step
  /// come back to back, and waking a sleeping thread takes ~10 us (more
  /// than many of them take), on the caller's critical path. Work on other
  /// threads (oneDNN's) releases them first (release()), so that they do
  /// not spin on the cores it needs.
  static constexpr std::chrono::microseconds kStayAwake{200};

  void awaitNextJob(uint64_t posted) {
    uint64_t released = released_.load(std::memory_order_relaxed);
    auto until = std::chrono::steady_clock::now() + kStayAwake;
    for (int polls = 0;; ++polls) {
      if (posted_.load(std::memory_order_acquire) != posted ||
          released_.load(std::memory_order_relaxed) != released)
        return;
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      if (polls % 64 == 63 && std::chrono::steady_clock::now() > until)
        return;
    }
  }

  void work() {
    inWorker = true;
    std::shared_ptr<Job> seen;
    uint64_t posted = 0;
    for (;;) {
      awaitNextJob(posted);
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> hold(lock_);
        wake_.wait(hold, [&] { return stop_ || job_ != seen; });
        if (stop_)
          return;
        job = seen = job_;
        posted = posted_.load(std::memory_order_relaxed);
      }
      job->take();
    }
  }

  static thread_local bool inWorker;
  std::atomic<uint64_t> posted_{0}, released_{0};
  std::mutex jobLock_, lock_;
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
  std::shared_ptr<Job> job_; ///< the latest job, guarded by `lock_`
  bool stop_ = false;
};
thread_local bool WorkerPool::inWorker = false;
} // namespace

/// part(index) for every index in [0, parts): on the pool, or on the
/// caller in order where the pool is busy or the caller is a worker.
static void runParts(int64_t parts, const std::function<void(int)> &part) {
  if (!WorkerPool::get().run(static_cast<int>(parts), part))
    for (int index = 0; index < parts; ++index)
      part(index);
}

void cpu::parallelFor(int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t)> &fn) {
  int64_t parts =
      std::min<int64_t>(cpuThreads(), n / std::max<int64_t>(grain, 1));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  // Boundaries on 64-element multiples: no two threads write one cache line
  // of a 4-byte tensor.
  int64_t step = ((n + parts - 1) / parts + 63) / 64 * 64;
  parts = (n + step - 1) / step;
  runParts(parts, [&](int index) {
    int64_t begin = index * step, end = std::min(n, begin + step);
    if (begin < end)
      fn(begin, end);
  });
}

void cpu::parallelForItems(int64_t items,
                           const std::function<void(int64_t, int64_t)> &fn) {
  int64_t parts = std::min<int64_t>(cpuThreads(), items);
  if (parts <= 1) {
    fn(0, items);
    return;
  }
  runParts(parts, [&](int index) {
    int64_t begin = items * index / parts, end = items * (index + 1) / parts;
    if (begin < end)
      fn(begin, end);
  });
}

void cpu::releaseWorkers() { WorkerPool::get().release(); }
