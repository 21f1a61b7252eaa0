//===- BenchUtil.h - what the cpu benchmarks share ---------------*- C++ -*-===//
//
// Timing that alternates the two contenders (another process's load hits
// both, not one of them), comma lists, and a fatal error.
//
//===----------------------------------------------------------------------===//
#ifndef MP_BENCH_BENCHUTIL_H
#define MP_BENCH_BENCHUTIL_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace mp::bench {
inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Timing {
  double best = 0, median = 0;
  int reps = 0;
};

/// One warm-up call of each, then repetitions that alternate the two until
/// `minTime` seconds or `maxReps` pairs: both see the same machine (another
/// process's load hits both, not one of them).
inline std::pair<Timing, Timing> timePair(const std::function<void()> &a,
                                   const std::function<void()> &b,
                                   double minTime, int maxReps) {
  a();
  b();
  std::vector<double> ta, tb;
  double start = now();
  while (ta.empty() ||
         (now() - start < minTime && static_cast<int>(ta.size()) < maxReps)) {
    double t0 = now();
    a();
    double t1 = now();
    b();
    double t2 = now();
    ta.push_back(t1 - t0);
    tb.push_back(t2 - t1);
  }
  auto summarize = [](std::vector<double> &t) {
    std::sort(t.begin(), t.end());
    return Timing{t.front(), t[t.size() / 2], static_cast<int>(t.size())};
  };
  return {summarize(ta), summarize(tb)};
}

inline std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(item);
  return out;
}

/// Prints "TOOL: message" and exits 1.
[[noreturn]] inline void fail(const char *tool, const std::string &message) {
  std::fprintf(stderr, "%s: %s\n", tool, message.c_str());
  std::exit(1);
}
} // namespace mp::bench

#endif // MP_BENCH_BENCHUTIL_H
