//===- PlanFuzzer.cpp - plan file parsing, validation and a session -------===//
//
// A plan from bytes (parsePlan: magic, version, checksum, payload,
// validate()); a valid one's memory statistics and hash; and, when it is
// small enough to run (<= 16 MiB of tensors), a reference-backend session
// that initializes its params and runs one step on zero inputs, where the
// kernels meet the plan's shapes and attributes.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Session.h"

#include <vector>

using namespace mp::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StatusOr<Plan> plan = parsePlan(mp::fuzz::bytesOf(data, size), "fuzz.plan");
  if (!plan.isOk())
    return 0;
  (void)planMemoryStats(*plan);
  (void)planHash(*plan);
  uint64_t bytes = plan->arenaSize;
  for (const TensorDesc &t : plan->tensors)
    if (t.kind != TensorKind::Scratch)
      bytes += t.byteSize();
  if (bytes > (uint64_t(16) << 20))
    return 0;
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(*plan), createReferenceBackend());
  if (!session.isOk())
    return 0;
  if (!(*session)->initParams(1).isOk())
    return 0;
  for (const TensorInfo &info : (*session)->tensors())
    if (!info.isOutput && (info.kind == TensorKind::Input ||
                           info.kind == TensorKind::Label)) {
      std::vector<uint8_t> zeros(info.byteSize);
      (void)(*session)->setTensor(info.name, info.dtype, info.shape,
                                  zeros.data(), zeros.size());
    }
  (void)(*session)->runStep();
  return 0;
}
