//===- ParamInit.cpp - seeded, deterministic parameter initialization -----===//
//
// PyTorch-like defaults that need nothing but the plan (docs/runtime.md):
//   - rank >= 2: uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), what nn.Linear and
//     nn.Conv2d give their weights (kaiming_uniform with a = sqrt(5)). The
//     fan-in is the product of all dimensions but the output one: the last
//     for [in, out] matmul weights, the filter's O for a convolution's
//     (found by following the param, through mp.cast copies and
//     transposes, to the filter operand of a conv kernel: OIHW with NCHW
//     images, HWIO with NHWC);
//   - rank 0 and 1: zero (biases), except rank-1 params named "*.weight",
//     which are normalization scales: one;
//   - buffers named "*running_var": one; other buffers zero;
//   - dropout keys (isDropoutKey): 64 bits drawn from the seed.
// Each tensor draws from its own stream, seeded by the seed and its name,
// so that adding a parameter to a model does not change the others.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"
#include "support/Hash.h"

#include <cmath>

using namespace mp::rt;

static bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// SplitMix64 (Steele et al.): tiny, fast, and good enough to initialize.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

private:
  uint64_t state;
};

/// The dimension of `param` that is a convolution filter's output (O): the
/// param is followed, through mp.cast copies and transposes, to the filter
/// operand of the first conv kernel it reaches (OIHW with NCHW images: O is
/// dimension 0; HWIO with NHWC: 3). -1 when it reaches none.
static int64_t filterOutputDim(const Plan &plan, uint32_t param) {
  // For each tensor carrying the param: which param dimension each of its
  // dimensions is.
  std::vector<std::vector<int64_t>> dims(plan.tensors.size());
  for (size_t d = 0; d < plan.tensors[param].shape.size(); ++d)
    dims[param].push_back(static_cast<int64_t>(d));
  for (const KernelDesc &kernel : plan.kernels) {
    if (kernel.inputs.size() == 1 && kernel.outputs.size() == 1 &&
        !dims[kernel.inputs[0]].empty()) {
      const std::vector<int64_t> &from = dims[kernel.inputs[0]];
      if (kernel.opId() == OpId::MpCast)
        dims[kernel.outputs[0]] = from;
      const std::vector<int64_t> *perm =
          kernel.getInts(AttrName::permutation);
      if (kernel.opId() == OpId::TrainTranspose && perm &&
          perm->size() == from.size()) {
        std::vector<int64_t> to;
        for (int64_t p : *perm)
          if (p >= 0 && p < static_cast<int64_t>(from.size()))
            to.push_back(from[p]);
        if (to.size() == from.size())
          dims[kernel.outputs[0]] = to;
      }
    }
    bool takesFilter = kernel.opId() == OpId::TrainConv2d ||
                       kernel.opId() == OpId::TrainConv2dBackwardData;
    if (takesFilter && kernel.inputs.size() >= 2 &&
        dims[kernel.inputs[1]].size() == 4) {
      const std::string *layout = kernel.getString(AttrName::layout);
      if (!layout)
        return -1;
      // The filter's O: first in OIHW, last in HWIO.
      const std::string *filterLayout =
          kernel.getString(AttrName::filter_layout);
      bool oihw = filterLayout ? *filterLayout == "OIHW" : *layout == "NCHW";
      return dims[kernel.inputs[1]][oihw ? 0 : 3];
    }
  }
  return -1;
}

Status Session::initParams(uint64_t seed) {
  for (uint32_t t = 0; t < plan_.tensors.size(); ++t) {
    const TensorDesc &desc = plan_.tensors[t];
    int64_t count = desc.numElements();
    bool isParam = desc.kind == TensorKind::Param;
    if (isDropoutKey(plan_, t)) {
      SplitMix64 rng(seed ^ fnv1a64(desc.name.data(), desc.name.size()));
      uint64_t key = rng.next();
      std::vector<uint8_t> bytes(desc.byteSize());
      TensorView view{desc.dtype, desc.shape, bytes.data()};
      if (desc.dtype == DType::I64)
        view.as<int64_t>()[0] = static_cast<int64_t>(key);
      else
        view.as<int32_t>()[0] = static_cast<int32_t>(key);
      MP_RETURN_IF_ERROR(copyIn(t, bytes.data(), bytes.size()));
      continue;
    }
    if ((!isParam && desc.kind != TensorKind::Buffer) || !isFloat(desc.dtype))
      continue;
    // Computed on the host, then copied to wherever the tensor lives.
    std::vector<uint8_t> values(desc.byteSize());
    TensorView view{desc.dtype, desc.shape, values.data()};
    size_t rank = desc.shape.size();
    if (!isParam || rank < 2) {
      bool one = isParam ? rank == 1 && endsWith(desc.name, ".weight")
                         : endsWith(desc.name, "running_var");
      for (int64_t i = 0; i < count; ++i)
        storeFloat(view, i, one ? 1.0f : 0.0f);
      MP_RETURN_IF_ERROR(copyIn(t, values.data(), values.size()));
      continue;
    }
    int64_t filterDim = filterOutputDim(plan_, t);
    int64_t outputs =
        filterDim >= 0 ? desc.shape[filterDim] : desc.shape.back();
    int64_t fanIn = outputs ? count / outputs : 0;
    double bound = fanIn ? 1.0 / std::sqrt(static_cast<double>(fanIn)) : 0.0;
    SplitMix64 rng(seed ^ fnv1a64(desc.name.data(), desc.name.size()));
    for (int64_t i = 0; i < count; ++i)
      storeFloat(view, i,
                 static_cast<float>(bound * (2.0 * rng.uniform() - 1.0)));
    MP_RETURN_IF_ERROR(copyIn(t, values.data(), values.size()));
  }
  return Status::ok();
}
