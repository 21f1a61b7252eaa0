//===- CudaTestSupport.cpp - running one kernel on cuda and reference -----===//
#include "CudaTestSupport.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mp::rt;
using namespace mp::rt::testing;

Host::Host(DType dtype, std::vector<int64_t> shape) {
  view.dtype = dtype;
  view.shape = std::move(shape);
  bytes.assign(std::max<int64_t>(view.numElements(), 0) * dtypeSize(dtype), 0);
  view.data = bytes.data();
}
Host::Host(const Host &other) : view(other.view), bytes(other.bytes) {
  view.data = bytes.data();
}
Host &Host::operator=(const Host &other) {
  view = other.view;
  bytes = other.bytes;
  view.data = bytes.data();
  return *this;
}

static void store(const TensorView &view, int64_t i, double value) {
  if (isFloat(view.dtype))
    storeFloat(view, i, static_cast<float>(value));
  else
    storeInt(view, i, static_cast<int64_t>(std::floor(value)));
}

Host mp::rt::testing::uniform(DType dtype, std::vector<int64_t> shape,
                              uint32_t seed, double lo, double hi) {
  Host h(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < h.view.numElements(); ++i)
    store(h.view, i, dist(rng));
  return h;
}

Host mp::rt::testing::values(DType dtype, std::vector<int64_t> shape,
                             const std::vector<double> &data) {
  Host h(dtype, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(data.size()), h.view.numElements());
  for (int64_t i = 0;
       i < h.view.numElements() && i < static_cast<int64_t>(data.size()); ++i)
    store(h.view, i, data[i]);
  return h;
}

namespace {
struct CudaState {
  std::string reason;
  std::unique_ptr<Backend> backend;
};

CudaState &state() {
  static CudaState s = [] {
    CudaState created;
    Status status = cudaBackendStatus();
    if (!status.isOk()) {
      created.reason = "no GPU for the cuda backend here: " + status.message();
      return created;
    }
    StatusOr<std::unique_ptr<Backend>> backend = createCudaBackend();
    if (!backend.isOk())
      created.reason =
          "the cuda backend cannot start: " + backend.status().message();
    else
      created.backend = std::move(*backend);
    return created;
  }();
  return s;
}

/// The plan `c` describes: its inputs then its results, as scratch tensors.
void describe(const Case &c, Plan &plan, KernelDesc &kernel) {
  kernel.op = c.op;
  kernel.attrs = c.attrs;
  for (const Host &in : c.inputs) {
    kernel.inputs.push_back(static_cast<uint32_t>(plan.tensors.size()));
    TensorDesc desc;
    desc.dtype = in.view.dtype;
    desc.shape = in.view.shape;
    plan.tensors.push_back(desc);
  }
  for (const auto &[dtype, shape] : c.outputs) {
    kernel.outputs.push_back(static_cast<uint32_t>(plan.tensors.size()));
    TensorDesc desc;
    desc.dtype = dtype;
    desc.shape = shape;
    plan.tensors.push_back(desc);
  }
}

/// Runs `c` on the cuda backend into `results` (host copies).
Status runDevice(const Case &c, std::vector<Host> &results) {
  Backend *backend = cudaBackend();
  DeviceMemory *memory = backend->deviceMemory();
  if (!memory)
    return internalError("the cuda backend has no DeviceMemory");
  Plan plan;
  KernelDesc kernel;
  describe(c, plan, kernel);
  std::vector<void *> allocations;
  auto onDevice = [&](const TensorView &host, bool copy,
                      TensorView &device) -> Status {
    size_t bytes = host.numElements() * dtypeSize(host.dtype);
    StatusOr<void *> p = memory->allocate(bytes, "a test tensor");
    if (!p.isOk())
      return p.status();
    allocations.push_back(*p);
    device = {host.dtype, host.shape, *p};
    return copy ? memory->copyToDevice(*p, host.data, bytes) : Status::ok();
  };
  std::vector<TensorView> inputs(c.inputs.size()), outputs(c.outputs.size());
  Status status;
  for (size_t i = 0; i < c.inputs.size() && status.isOk(); ++i)
    status = onDevice(c.inputs[i].view, true, inputs[i]);
  results.clear();
  for (const auto &[dtype, shape] : c.outputs)
    results.emplace_back(dtype, shape);
  for (size_t i = 0; i < results.size() && status.isOk(); ++i)
    status = onDevice(results[i].view, false, outputs[i]);
  if (status.isOk())
    status = backend->run(kernel, inputs, outputs);
  Status finished = memory->finishStep();
  if (status.isOk())
    status = finished;
  for (size_t i = 0; i < results.size() && status.isOk(); ++i)
    status = memory->copyToHost(results[i].view.data, outputs[i].data,
                                results[i].bytes.size());
  for (void *p : allocations)
    memory->release(p);
  return status;
}

/// |cuda - ref| <= rtol * |ref| + atol, with atol = 1e-5 * max |ref| (the
/// f32 rounding of sums taken in another order) and rtol one unit in the
/// last place of the result dtype (where both round a slightly different
/// f32 value), or a few f32 ulps for f32 results (CUDA's expf, tanhf, erff
/// are within 2 ulp; the host's libm within 1).
void compare(const Case &c, size_t index, const Host &ref, const Host &got) {
  const TensorView &r = ref.view, &g = got.view;
  int64_t n = r.numElements();
  if (!isFloat(r.dtype)) {
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      if (loadInt(r, i) != loadInt(g, i) && bad++ < 5)
        ADD_FAILURE() << c.name << ": result " << index << "[" << i
                      << "]: cuda " << loadInt(g, i) << ", reference "
                      << loadInt(r, i);
    EXPECT_EQ(bad, 0) << c.name << ": result " << index;
    return;
  }
  double maxAbs = 0;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(loadFloat(r, i)))
      maxAbs = std::max(maxAbs, std::fabs(double(loadFloat(r, i))));
  double rtol = r.dtype == DType::BF16  ? 0x1p-7
                : r.dtype == DType::F16 ? 0x1p-10
                                        : 1e-5;
  rtol += c.slack;
  double atol = (1e-5 + c.slack) * maxAbs + 1e-30;
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double want = loadFloat(r, i), have = loadFloat(g, i);
    bool ok = std::isnan(want) ? std::isnan(have)
              : std::isinf(want)
                  ? want == have
                  : std::fabs(have - want) <= rtol * std::fabs(want) + atol;
    if (!ok && bad++ < 5)
      ADD_FAILURE() << c.name << ": result " << index << "[" << i << "]: cuda "
                    << have << ", reference " << want << " (rtol " << rtol
                    << ", atol " << atol << ")";
  }
  EXPECT_EQ(bad, 0) << c.name << ": result " << index << ", " << n
                    << " elements";
}
} // namespace

std::string mp::rt::testing::cudaSkipReason() { return state().reason; }

Backend *mp::rt::testing::cudaBackend() { return state().backend.get(); }

Status mp::rt::testing::checkOnReference(const Case &c) {
  Plan plan;
  KernelDesc kernel;
  describe(c, plan, kernel);
  std::unique_ptr<Backend> reference = createReferenceBackend();
  MP_RETURN_IF_ERROR(reference->prepare(kernel, plan));
  std::vector<Host> results;
  std::vector<TensorView> inputs, outputs;
  for (const Host &in : c.inputs)
    inputs.push_back(in.view);
  for (const auto &[dtype, shape] : c.outputs)
    results.emplace_back(dtype, shape);
  for (const Host &out : results)
    outputs.push_back(out.view);
  return reference->run(kernel, inputs, outputs);
}

Status mp::rt::testing::runOnCuda(const Case &c) {
  Plan plan;
  KernelDesc kernel;
  describe(c, plan, kernel);
  MP_RETURN_IF_ERROR(cudaBackend()->prepare(kernel, plan));
  std::vector<Host> results;
  return runDevice(c, results);
}

void mp::rt::testing::runCase(const Case &c) {
  SCOPED_TRACE(c.name);
  Plan plan;
  KernelDesc kernel;
  describe(c, plan, kernel);
  std::unique_ptr<Backend> reference = createReferenceBackend();
  Status checked = reference->prepare(kernel, plan);
  ASSERT_TRUE(checked.isOk()) << "the case is invalid: " << checked.message();
  checked = cudaBackend()->prepare(kernel, plan);
  ASSERT_TRUE(checked.isOk()) << checked.message();

  std::vector<Host> want;
  std::vector<TensorView> inputs, outputs;
  for (const Host &in : c.inputs)
    inputs.push_back(in.view);
  for (const auto &[dtype, shape] : c.outputs)
    want.emplace_back(dtype, shape);
  for (const Host &out : want)
    outputs.push_back(out.view);
  Status ran = reference->run(kernel, inputs, outputs);
  ASSERT_TRUE(ran.isOk()) << "reference: " << ran.message();

  std::vector<Host> got;
  ran = runDevice(c, got);
  ASSERT_TRUE(ran.isOk()) << "cuda: " << ran.message();
  for (size_t i = 0; i < want.size(); ++i)
    compare(c, i, want[i], got[i]);
}
