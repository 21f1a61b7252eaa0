//===- GemmTestSupport.h - shared by the matmul and conv tests --*- C++ -*-===//
//
// The inputs and expectations the cpu backend's matmul and convolution
// tests share (CpuBackendTest.cpp, CpuConvTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CPU_GEMMTESTSUPPORT_H
#define MP_RUNTIME_UNITTESTS_CPU_GEMMTESTSUPPORT_H

#include "OwnedTensor.h"
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/Tensor.h"

#include <random>
#include <string>
#include <vector>

namespace mp::rt::test::gemm {

/// Uniform in [-1, 1), rounded to `dtype` so both backends see exact values.
inline OwnedTensor randomTensor(DType dtype, std::vector<int64_t> shape,
                                uint32_t seed) {
  OwnedTensor h(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < h.view.numElements(); ++i)
    storeFloat(h.view, i, dist(rng));
  return h;
}

/// Whether this CPU (after MP_MAX_CPU_ISA) has matrix instructions for
/// `dtype`: then oneDNN must run it natively, not widened to f32.
inline bool fastOn(DType dtype) {
  const CpuFeatureSet &f = cpuFeatureSet();
  return dtype == DType::F32 || (dtype == DType::BF16 && f.fastBf16()) ||
         (dtype == DType::F16 && f.fastFp16());
}

inline bool isWidened(const std::string &implementation) {
  return implementation.find(" widened") != std::string::npos;
}

struct DTypePair {
  DType in, out;
};

inline const DTypePair kDTypes[] = {
    {DType::F32, DType::F32},  {DType::BF16, DType::BF16},
    {DType::BF16, DType::F32}, {DType::F16, DType::F16},
    {DType::F16, DType::F32},
};

} // namespace mp::rt::test::gemm

#endif // MP_RUNTIME_UNITTESTS_CPU_GEMMTESTSUPPORT_H
