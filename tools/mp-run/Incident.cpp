//===- Incident.cpp - mp-run's non-finite diagnosis -----------------------===//
#include "Incident.h"

#include "mp/runtime/Replay.h"

#include <algorithm>
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

/// The non-empty pieces of `text` between `separator`s.
std::vector<std::string> splitOn(const std::string &text, char separator) {
  std::vector<std::string> pieces;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(separator, begin);
    if (end == std::string::npos)
      end = text.size();
    if (end > begin)
      pieces.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return pieces;
}

/// `list` ("a,b,c") without the names in `names` (also "x,y").
std::string withoutNames(const std::string &list, const std::string &names) {
  std::vector<std::string> drop = splitOn(names, ',');
  std::string out;
  for (const std::string &name : splitOn(list, ','))
    if (std::find(drop.begin(), drop.end(), name) == drop.end())
      out += (out.empty() ? "" : ",") + name;
  return out;
}

/// `options` (space-separated key=value) with `option` added: a scalar
/// option given already is replaced, a list option (…-add=) extended; ops
/// put on the deny list leave the other lists' additions (the user's
/// allow-add that made them 16-bit).
std::string mergeOption(const std::string &options, const std::string &option) {
  std::string key = option.substr(0, option.find('=') + 1);
  std::string value = option.substr(key.size());
  bool list = key.size() > 5 && key.compare(key.size() - 5, 5, "-add=") == 0;
  std::string out;
  bool merged = false;
  for (std::string token : splitOn(options, ' ')) {
    if (key == "deny-add=")
      for (const char *other : {"allow-add=", "infer-add=", "clear-add="})
        if (token.rfind(other, 0) == 0) {
          std::string kept =
              withoutNames(token.substr(std::strlen(other)), value);
          token = kept.empty() ? "" : other + kept;
        }
    if (token.empty())
      continue;
    if (token.rfind(key, 0) == 0 && !merged) {
      token = list ? token + "," + value : option;
      merged = true;
    }
    out += (out.empty() ? "" : " ") + token;
  }
  if (!merged)
    out += (out.empty() ? "" : " ") + option;
  return out;
}

} // namespace

rt::StatusOr<std::string>
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
  if (!diagnosis.proposal.empty() &&
      diagnosis.proposal.rfind("mp.force", 0) != 0)
    std::fprintf(stderr,
                 "mp-run: recompile the step with it: mp-compile STEP.mlir "
                 "--mixed-precision=\"policy=%s ... %s\" -o %s\n",
                 session.plan().policy.c_str(), diagnosis.proposal.c_str(),
                 planPath.c_str());
  return diagnosis.proposal;
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

bool mp::run::isOptionProposal(const std::string &proposal) {
  return proposal.rfind("deny-add=", 0) == 0 ||
         proposal.rfind("init-scale=", 0) == 0;
}

rt::StatusOr<std::unique_ptr<rt::Session>>
mp::run::applyFix(const rt::Session &session, const AutoFix &fix,
                  const std::string &proposal, const std::string &backend) {
  std::string options = mergeOption(fix.compileOptions, proposal);
  std::vector<std::string> args = {fix.compiler, fix.source,
                                   "--mixed-precision=" + options, "-o",
                                   fix.fixedPlan};
  std::fprintf(stderr, "mp-run: --auto-fix: %s %s \"--mixed-precision=%s\" -o %s\n",
               fix.compiler.c_str(), fix.source.c_str(), options.c_str(),
               fix.fixedPlan.c_str());
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (int error = posix_spawn(&pid, fix.compiler.c_str(), nullptr, nullptr,
                              argv.data(), environ))
    return rt::invalidArgument("--auto-fix: cannot run " + fix.compiler +
                               ": " + std::strerror(error));
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return rt::invalidArgument(
        "--auto-fix: mp-compile failed on " + fix.source +
        " (its error is above); the plan stays as it was");

  auto plan = rt::readPlanFile(fix.fixedPlan);
  if (!plan.isOk())
    return plan.status();
  auto created = rt::Session::create(std::move(*plan), backend);
  if (!created.isOk())
    return created.status();
  std::unique_ptr<rt::Session> fixed = std::move(*created);
  for (const rt::TensorInfo &info : fixed->tensors()) {
    if (!rt::isPersistent(info.kind) ||
        info.kind == rt::TensorKind::ScalerState)
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
