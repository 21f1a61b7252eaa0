//===- PlanFuzzer.cpp - plan file parsing, validation and a session -------===//
//
// A plan from bytes (parsePlan: magic, version, checksum, payload,
// validate()); a valid one's memory statistics and hash; and, when it is
// small enough to run (<= 16 MiB of tensors), a reference-backend session
// that initializes its params and runs one step on zero inputs, where the
// kernels meet the plan's shapes and attributes. Each input is tried as it
// is (the header's checks) and with its header rewritten for the payload
// after it (current version, size, checksum): a mutation almost always
// breaks the checksum, and the payload parser, the validator and the
// kernels are what the checksum would keep the fuzzer from reaching.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Session.h"

#include "support/Hash.h"

#include <cstring>
#include <vector>

using namespace mp::rt;

static constexpr size_t kHeaderSize = 32; // docs/plan-format.md

/// The input's payload (after a 32-byte header, or all of it when shorter)
/// under a header that is right for it.
static std::vector<uint8_t> withValidHeader(const uint8_t *data, size_t size) {
  const uint8_t *payload = size >= kHeaderSize ? data + kHeaderSize : data;
  size_t length = size >= kHeaderSize ? size - kHeaderSize : size;
  std::vector<uint8_t> out(kHeaderSize + length);
  const char magic[8] = {'M', 'P', 'P', 'L', 'A', 'N', 0, 0};
  uint32_t version = Plan::kVersion, reserved = 0;
  uint64_t bytes = length, checksum = fnv1a64(payload, length);
  std::memcpy(out.data(), magic, 8);
  std::memcpy(out.data() + 8, &version, 4);
  std::memcpy(out.data() + 12, &reserved, 4);
  std::memcpy(out.data() + 16, &bytes, 8);
  std::memcpy(out.data() + 24, &checksum, 8);
  if (length)
    std::memcpy(out.data() + kHeaderSize, payload, length);
  return out;
}

static void runPlan(std::vector<uint8_t> file) {
  StatusOr<Plan> plan = parsePlan(std::move(file), "fuzz.plan");
  if (!plan.isOk())
    return;
  (void)planMemoryStats(*plan);
  (void)planHash(*plan);
  uint64_t bytes = plan->arenaSize;
  for (const TensorDesc &t : plan->tensors)
    if (t.kind != TensorKind::Scratch)
      bytes += t.byteSize();
  if (bytes > (uint64_t(16) << 20))
    return;
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(*plan), createReferenceBackend());
  if (!session.isOk())
    return;
  if (!(*session)->initParams(1).isOk())
    return;
  for (const TensorInfo &info : (*session)->tensors())
    if (!info.isOutput && (info.kind == TensorKind::Input ||
                           info.kind == TensorKind::Label)) {
      std::vector<uint8_t> zeros(info.byteSize);
      (void)(*session)->setTensor(info.name, info.dtype, info.shape,
                                  zeros.data(), zeros.size());
    }
  (void)(*session)->runStep();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  runPlan(mp::fuzz::bytesOf(data, size));
  runPlan(withValidHeader(data, size));
  return 0;
}
