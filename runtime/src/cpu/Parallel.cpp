//===- Parallel.cpp - the cpu backend's own threads -----------------------===//
#include "cpu/Parallel.h"

#include "mp/runtime/Backend.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <vector>

using namespace mp::rt;

/// 0 = not set: MP_NUM_THREADS, else every hardware thread.
static std::atomic<int> requestedThreads{0};

static int defaultThreads() {
  if (const char *env = std::getenv("MP_NUM_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0 && value <= 1024)
      return static_cast<int>(value);
  }
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

void cpu::parallelFor(int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t)> &fn) {
  int64_t parts = std::min<int64_t>(cpuThreads(), n / std::max<int64_t>(grain, 1));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  // Boundaries on 64-element multiples: no two threads write one cache line
  // of a 4-byte tensor.
  int64_t step = ((n + parts - 1) / parts + 63) / 64 * 64;
  std::vector<std::thread> others;
  others.reserve(static_cast<size_t>(parts - 1));
  int64_t begin = step;
  for (; begin < n; begin += step) {
    int64_t end = std::min(n, begin + step);
    try {
      others.emplace_back([&fn, begin, end] { fn(begin, end); });
    } catch (const std::system_error &) { // no thread: this one does it
      fn(begin, end);
    }
  }
  fn(0, std::min(n, step));
  for (std::thread &t : others)
    t.join();
}
