//===- Fail.h - mp-run's way out on an error --------------------*- C++ -*-===//
//
// mp-run stops on the first error it meets with one line, "mp-run: error:
// <message>", and exit code 1 (docs/reliability.md); these are the helpers
// its parts share for that.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_FAIL_H
#define MP_TOOLS_MPRUN_FAIL_H

#include "mp/runtime/Status.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace mp::run {

/// Run by die() after its message, when set: one of several ranks ends
/// the whole job at once (mp-run sets it to the communicator's abort),
/// rather than leaving the others to time out in their next reduction.
inline void (*onDie)(int code) = nullptr;

[[noreturn]] inline void die(const std::string &message) {
  std::fprintf(stderr, "mp-run: error: %s\n", message.c_str());
  std::fflush(stderr);
  if (onDie)
    onDie(1);
  std::exit(1);
}

inline void check(const rt::Status &status) {
  if (!status.isOk())
    die(status.message());
}

template <typename T> T take(rt::StatusOr<T> value) {
  if (!value.isOk())
    die(value.status().message());
  return std::move(*value);
}

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_FAIL_H
