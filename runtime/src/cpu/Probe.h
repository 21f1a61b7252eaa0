//===- Probe.h - asking a fast path whether it takes a kernel ---*- C++ -*-===//
//
// The cpu backend picks what runs each kernel once, in prepare(), from the
// dtypes and shapes of the plan (Backend.h). Its own loops decide whether
// they take a kernel with the checks they run anyway; under a ProbeScope
// they stop at the point of taking it (before touching any element, so
// views without data are enough) and report that they would. The decision
// and the run share one set of conditions.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_PROBE_H
#define MP_RUNTIME_CPU_PROBE_H

namespace mp::rt::cpu {

/// True while this thread is probing: a fast path that takes the kernel
/// returns "handled" right there, without running.
bool probing();

/// Probing for the scope's lifetime (on this thread).
class ProbeScope {
public:
  ProbeScope();
  ~ProbeScope();
  ProbeScope(const ProbeScope &) = delete;
  ProbeScope &operator=(const ProbeScope &) = delete;

private:
  bool previous_;
};

/// A non-null address for the data of probed views: never read or written
/// (the checks of "data present" pass; a probed path stops before access).
void *probeData();

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_PROBE_H
