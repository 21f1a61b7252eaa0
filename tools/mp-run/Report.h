//===- Report.h - what mp-run says about a session --------------*- C++ -*-===//
//
// The lines mp-run prints besides progress: the plan, memory and backend
// with --verbose, the warnings a run always gets (generated code it cannot
// use, a 16-bit policy without the CPU's instructions, the reference
// fallback), what ran each op, the per-op profile.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_REPORT_H
#define MP_TOOLS_MPRUN_REPORT_H

#include "Data.h"
#include "Metrics.h"
#include "Options.h"

#include "mp/runtime/Session.h"

#include <cstdint>
#include <string>

namespace mp::run {

/// "%g" of `value`.
std::string shortNumber(double value);

/// This process's resident-memory high-water mark in bytes (Linux's
/// VmHWM: the address space since exec, unlike getrusage's maxrss, which
/// also counts the process it was forked from), or 0 where unknown.
uint64_t peakResidentBytes();

/// After the session is made: the plan, its memory and the backend with
/// --verbose; always, the warnings about how it will run.
void reportSession(const Options &opt, const rt::Session &session,
                   const Feeds &feeds);

/// mp-run --verbose after the first step: per op kind of the plan (in plan
/// order), what the backend ran it with, and on how many of its kernels.
void printImplementations(const rt::Session &session);

/// mp-run --profile: each op kind's time per step over `steps` steps,
/// slowest first.
void printProfile(const rt::Session &session, int64_t steps);

/// The run's last line on stdout (what scripts read): steps, time,
/// examples per second (`batch`: the global batch, every rank's), the last
/// loss, the loss scale and skipped steps, the step's scalars, whether
/// generated code ran. An stdout that cannot take it is an error.
void printSummary(rt::Session &session, int64_t start, int64_t totalSteps,
                  int64_t batch, double seconds, float loss,
                  const ScalarOutputs &scalars);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_REPORT_H
