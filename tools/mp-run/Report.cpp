//===- Report.cpp - what mp-run says about a session ----------------------===//
#include "Report.h"

#include "Fail.h"

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

using namespace mp;

std::string mp::run::shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

uint64_t mp::run::peakResidentBytes() {
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof(line), status))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1)
      break;
  std::fclose(status);
  return static_cast<uint64_t>(kib) * 1024;
}

void mp::run::reportSession(const Options &opt, const rt::Session &session,
                            const Feeds &feeds) {
  if (opt.verbose) {
    const rt::Plan &plan = session.plan();
    std::fprintf(stderr,
                 "mp-run: %s: policy %s, %zu kernels, %zu tensors, arena %llu "
                 "bytes, backend %s, batch %lld\n",
                 opt.plan.c_str(), plan.policy.c_str(), plan.kernels.size(),
                 plan.tensors.size(),
                 static_cast<unsigned long long>(plan.arenaSize),
                 session.backendName(), static_cast<long long>(feeds.batch));
    rt::PlanMemoryStats memory = rt::planMemoryStats(plan);
    std::fprintf(stderr,
                 "mp-run: memory: arena %llu bytes, activations saved for "
                 "the backward pass %llu bytes, second slots of "
                 "double-buffered state %llu bytes; parameters %llu bytes, "
                 "optimizer state %llu bytes, buffers %llu bytes\n",
                 static_cast<unsigned long long>(memory.arenaBytes),
                 static_cast<unsigned long long>(memory.savedActivationBytes),
                 static_cast<unsigned long long>(session.doubleBufferedBytes()),
                 static_cast<unsigned long long>(memory.paramBytes),
                 static_cast<unsigned long long>(memory.optStateBytes),
                 static_cast<unsigned long long>(memory.bufferBytes));
    std::fprintf(stderr, "mp-run: backend: %s\nmp-run: CPU features: %s\n",
                 session.backendDescription().c_str(),
                 rt::cpuFeatures().c_str());
    if (!session.generatedCodeStatus().empty())
      std::fprintf(stderr, "mp-run: generated code: %s\n",
                   session.generatedCodeStatus().c_str());
  }
  // Generated code the cpu backend cannot use here (a library missing or
  // stale, a CPU without AVX2): always said, as the kernels run slower.
  const char *codeSetting = std::getenv("MP_GENERATED_CODE");
  if (!opt.verbose && !session.plan().code.empty() &&
      !session.usesGeneratedCode() &&
      std::string(session.backendName()) == "cpu" &&
      !(codeSetting && std::string(codeSetting) == "off"))
    std::fprintf(stderr, "mp-run: warning: generated code: %s\n",
                 session.generatedCodeStatus().c_str());
  // A 16-bit policy on a CPU without the instructions that make it pay,
  // or whose 16-bit matmuls were measured slower than f32 ones: one
  // warning, naming why and the faster policy.
  if (std::string(session.backendName()) == "cpu") {
    std::string warning = rt::cpuPolicySpeedWarning(session.plan().policy);
    if (!warning.empty())
      std::fprintf(stderr, "mp-run: warning: %s\n", warning.c_str());
  }
  // The default falls back to the reference backend where oneDNN does not
  // load: say so (always, not only with --verbose), with the reason.
  if ((opt.backend.empty() || opt.backend == "default") &&
      std::string(session.backendName()) != "cpu")
    std::fprintf(stderr,
                 "mp-run: using the reference backend: the cpu backend is "
                 "unavailable: %s\n",
                 rt::cpuBackendStatus().message().c_str());
}

void mp::run::printImplementations(const rt::Session &session) {
  const rt::Plan &plan = session.plan();
  std::vector<std::string> chosen = session.kernelImplementations();
  std::vector<std::string> ops;
  std::map<std::string, std::vector<std::pair<std::string, int>>> byOp;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const std::string &op = plan.kernels[k].op;
    auto &list = byOp[op];
    if (list.empty())
      ops.push_back(op);
    auto it = std::find_if(list.begin(), list.end(), [&](const auto &entry) {
      return entry.first == chosen[k];
    });
    if (it == list.end())
      list.push_back({chosen[k], 1});
    else
      ++it->second;
  }
  std::fprintf(stderr,
               "mp-run: what ran each op in the first step (%s "
               "backend):\n",
               session.backendName());
  for (const std::string &op : ops)
    for (const auto &[implementation, count] : byOp[op])
      std::fprintf(stderr, "mp-run:   %-32s %s (%d kernel%s)\n", op.c_str(),
                   implementation.empty() ? "(not run)"
                                          : implementation.c_str(),
                   count, count == 1 ? "" : "s");
}

void mp::run::printProfile(const rt::Session &session, int64_t steps) {
  std::vector<rt::Session::ProfileEntry> entries = session.profile();
  std::sort(entries.begin(), entries.end(),
            [](const auto &a, const auto &b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const auto &entry : entries)
    total += entry.seconds;
  std::fprintf(stderr,
               "profile (%lld steps, backend %s):\n%-32s %10s %10s %6s\n",
               static_cast<long long>(steps), session.backendName(), "op",
               "ms/step", "calls", "%");
  for (const auto &entry : entries)
    std::fprintf(stderr, "%-32s %10.3f %10lld %6.1f\n", entry.name.c_str(),
                 1e3 * entry.seconds / steps,
                 static_cast<long long>(entry.calls),
                 total > 0 ? 100 * entry.seconds / total : 0.0);
}

void mp::run::printSummary(rt::Session &session, int64_t start,
                           int64_t totalSteps, int64_t batch, double seconds,
                           float loss, const ScalarOutputs &scalars) {
  rt::ScalerStats stats = session.scalerStats();
  int ranks = session.communicator().size();
  std::printf("trained %lld steps (%lld to %lld) in %.2f s, %.0f examples/s; "
              "last loss %.6f; loss scale %g; skipped %lld",
              static_cast<long long>(totalSteps - start),
              static_cast<long long>(start), static_cast<long long>(totalSteps),
              seconds, (totalSteps - start) * batch / std::max(seconds, 1e-9),
              loss, stats.scale, static_cast<long long>(stats.stepsSkipped));
  if (stats.lastOverflowStep >= 0)
    std::printf(" (last at step %lld)",
                static_cast<long long>(stats.lastOverflowStep + 1));
  if (totalSteps > start)
    std::printf("%s", scalars.text(scalars.read(session), "; ").c_str());
  // What the reductions cost this rank (rank 0, which prints): the time
  // its steps waited for them, what overlap did not hide.
  if (ranks > 1 && totalSteps > start) {
    double waited = session.collectiveWaitSeconds();
    std::printf("; %d ranks, waited %.3f ms/step for reductions (%.1f%% of "
                "the step)",
                ranks, 1e3 * waited / static_cast<double>(totalSteps - start),
                100 * waited / std::max(seconds, 1e-9));
  }
  // Which code ran, where the plan has generated code: its numbers differ
  // slightly from the kernels' (docs/codegen.md).
  if (!session.plan().code.empty())
    std::printf("; generated code %s",
                session.usesGeneratedCode() ? "on" : "off");
  std::printf("\n");
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    die(std::string("cannot write the summary to stdout: ") +
        std::strerror(errno));
}
