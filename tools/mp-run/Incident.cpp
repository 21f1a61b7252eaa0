//===- Incident.cpp - mp-run's non-finite diagnosis -----------------------===//
#include "Incident.h"

#include "mp/runtime/Replay.h"

#include <cstdio>
#include <memory>
#include <vector>

using namespace mp;

namespace {

/// The session's inputs, labels and state, copied into `to` (a session of
/// the same plan on another backend).
rt::Status copyState(const rt::Session &from, rt::Session &to) {
  for (const rt::TensorInfo &info : from.tensors()) {
    if (info.isOutput)
      continue;
    std::vector<uint8_t> bytes(info.byteSize);
    MP_RETURN_IF_ERROR(from.getTensor(info.name, bytes.data(), bytes.size()));
    MP_RETURN_IF_ERROR(to.setTensor(info.name, info.dtype, info.shape,
                                    bytes.data(), bytes.size()));
  }
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
