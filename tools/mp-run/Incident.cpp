//===- Incident.cpp - mp-run's non-finite diagnosis -----------------------===//
#include "Incident.h"

#include "mp/runtime/Replay.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mp;

namespace {

/// Tensor `info` (same name, dtype and shape in both) from `from` to `to`.
rt::Status copyTensor(const rt::Session &from, rt::Session &to,
                      const rt::TensorInfo &info) {
  std::vector<uint8_t> bytes(info.byteSize);
  MP_RETURN_IF_ERROR(from.getTensor(info.name, bytes.data(), bytes.size()));
  return to.setTensor(info.name, info.dtype, info.shape, bytes.data(),
                      bytes.size());
}

/// The session's inputs, labels and state, copied into `to` (a session of
/// the same plan on another backend).
rt::Status copyState(const rt::Session &from, rt::Session &to) {
  for (const rt::TensorInfo &info : from.tensors())
    if (!info.isOutput)
      MP_RETURN_IF_ERROR(copyTensor(from, to, info));
  return rt::Status::ok();
}

rt::Status setScale(rt::Session &session, float scale) {
  const rt::TensorInfo *info = session.findTensor(rt::Session::kLossScaleName);
  if (!info)
    return rt::Status::ok();
  return session.setTensor(info->name, rt::DType::F32, info->shape, &scale,
                           sizeof(scale));
}

} // namespace

rt::StatusOr<rt::Diagnosis>
mp::run::diagnoseIncident(rt::Session &session, const std::string &backend,
                          double scaleBefore, const std::string &planPath) {
  std::unique_ptr<rt::Session> other;
  rt::Session *replay = &session;
  if (backend == "reference") {
    auto created = rt::Session::create(session.plan(), "reference");
    if (!created.isOk())
      return created.status();
    other = std::move(*created);
    MP_RETURN_IF_ERROR(copyState(session, *other));
    replay = other.get();
  }
  float scaleNow = session.scalerStats().scale;
  bool dynamic = session.scalerStats().dynamicScale;
  if (dynamic)
    MP_RETURN_IF_ERROR(setScale(*replay, static_cast<float>(scaleBefore)));
  rt::StatusOr<rt::ReplayFinding> finding = rt::replayStep(*replay);
  if (dynamic && replay == &session)
    MP_RETURN_IF_ERROR(setScale(session, scaleNow));
  if (!finding.isOk())
    return finding.status();
  double scale = session.scalerStats().enabled ? scaleBefore : 0;
  rt::Diagnosis diagnosis = rt::diagnose(*replay, *finding, scale);
  std::fprintf(stderr, "mp-run: %s", diagnosis.text.c_str());
  if (diagnosis.isOptionFix())
    std::fprintf(stderr,
                 "mp-run: recompile the step with it: mp-compile STEP.mlir "
                 "--mixed-precision=\"policy=%s ... %s\" -o %s\n",
                 session.plan().policy.c_str(), diagnosis.proposal.c_str(),
                 planPath.c_str());
  return diagnosis;
}

std::string mp::run::findCompiler() {
  auto exists = [](const std::string &path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
  };
  if (const char *env = std::getenv("MP_COMPILE"); env && *env)
    return exists(env) ? env : "";
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    return "";
  std::string path(self, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  std::string sibling = path.substr(0, slash + 1) + "mp-compile";
  return exists(sibling) ? sibling : "";
}

/// Runs `args` (args[0] the program) and waits: ok when it exits 0.
static rt::Status runProgram(std::vector<std::string> args,
                             const std::string &what) {
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (int error = posix_spawn(&pid, args[0].c_str(), nullptr, nullptr,
                              argv.data(), environ))
    return rt::invalidArgument("--auto-fix: cannot run " + args[0] + ": " +
                               std::strerror(error));
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return rt::invalidArgument("--auto-fix: mp-compile failed on " + what +
                               " (its error is above)");
  return rt::Status::ok();
}

rt::Status mp::run::checkAutoFix(const AutoFix &fix) {
  return runProgram({fix.compiler, fix.source,
                     "--mixed-precision=" + fix.compileOptions, "--check-only"},
                    fix.source + " with --mixed-precision=\"" +
                        fix.compileOptions + "\"");
}

rt::StatusOr<std::unique_ptr<rt::Session>>
mp::run::applyFix(const rt::Session &session, const AutoFix &fix,
                  const rt::Diagnosis &diagnosis, const std::string &backend) {
  // The fix goes to mp-compile as data: it merges it into the options.
  std::vector<std::string> args = {fix.compiler, fix.source,
                                   "--mixed-precision=" + fix.compileOptions};
  if (diagnosis.fix == rt::Diagnosis::Fix::DenyOps) {
    std::string ops;
    for (const std::string &op : diagnosis.denyOps)
      ops += (ops.empty() ? "" : ",") + op;
    args.push_back("--fix-deny=" + ops);
  } else if (diagnosis.fix == rt::Diagnosis::Fix::InitScale) {
    char scale[40];
    std::snprintf(scale, sizeof(scale), "%.17g", diagnosis.initScale);
    args.push_back(std::string("--fix-init-scale=") + scale);
  } else {
    return rt::invalidArgument("--auto-fix: the proposal is not a pipeline "
                               "option");
  }
  args.insert(args.end(), {"-o", fix.fixedPlan});
  std::string shown;
  for (const std::string &arg : args)
    shown += (shown.empty() ? "" : " ") +
             (arg.find(' ') != std::string::npos ? "\"" + arg + "\"" : arg);
  std::fprintf(stderr, "mp-run: --auto-fix: %s\n", shown.c_str());
  MP_RETURN_IF_ERROR(
      runProgram(args, fix.source + "; the plan stays as it was"));

  auto plan = rt::readPlanFile(fix.fixedPlan);
  if (!plan.isOk())
    return plan.status();
  auto created = rt::Session::create(std::move(*plan), backend);
  if (!created.isOk())
    return created.status();
  std::unique_ptr<rt::Session> fixed = std::move(*created);
  // The loss scaler goes on from where it is, as a resumed run would;
  // only a fix of the initial scale starts it there.
  bool freshScaler = diagnosis.fix == rt::Diagnosis::Fix::InitScale;
  for (const rt::TensorInfo &info : fixed->tensors()) {
    if (!rt::isPersistent(info.kind) ||
        (info.kind == rt::TensorKind::ScalerState && freshScaler))
      continue;
    const rt::TensorInfo *old = session.findTensor(info.name);
    if (!old || old->kind != info.kind || old->dtype != info.dtype ||
        old->shape != info.shape)
      return rt::invalidArgument(
          "--auto-fix: the fixed plan's " +
          std::string(rt::tensorKindName(info.kind)) + " '" + info.name +
          "' is not in the running plan with that dtype and shape; the "
          "source is not the step this plan was compiled from");
    MP_RETURN_IF_ERROR(copyTensor(session, *fixed, info));
  }
  rt::ScalerStats stats = session.scalerStats();
  MP_RETURN_IF_ERROR(fixed->restoreCounters(stats.stepsRun, stats.stepsSkipped,
                                            stats.lastOverflowStep));
  return fixed;
}
