//===- CudaKernelCases.h - the cuda kernel test's cases ---------*- C++ -*-===//
//
// The cases CudaKernelTest.cpp runs on the cuda backend against the
// reference, by family (CudaComputeCases.cpp, CudaLayerCases.cpp), and the
// small builders they share.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CUDA_CUDAKERNELCASES_H
#define MP_RUNTIME_UNITTESTS_CUDA_CUDAKERNELCASES_H

#include "CudaTestSupport.h"

#include <string>
#include <vector>

namespace mp::rt::testing::cases {

inline const DType kFloats[] = {DType::F32, DType::BF16, DType::F16};

/// Result dtypes of an op that may accumulate into f32.
inline std::vector<DType> widening(DType d) {
  return d == DType::F32 ? std::vector<DType>{d}
                         : std::vector<DType>{d, DType::F32};
}

inline std::string nameOf(const std::string &op, DType dtype,
                          const std::string &suffix = "") {
  return op + "/" + dtypeName(dtype) + (suffix.empty() ? "" : "/" + suffix);
}

inline Attr ints(std::vector<int64_t> v) {
  Attr a;
  a.kind = Attr::Kind::Ints;
  a.ints = std::move(v);
  return a;
}
inline Attr floats(std::vector<double> v) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = std::move(v);
  return a;
}
inline Attr str(std::string s) {
  Attr a;
  a.kind = Attr::Kind::String;
  a.str = std::move(s);
  return a;
}

using Cases = std::vector<Case>;

/// Elementwise, matmul, matmul_epilogue, mixed-precision, optimizer,
/// softmax and reduction cases (CudaComputeCases.cpp).
Cases elementwiseCases();
Cases matmulCases();
Cases matmulEpilogueCases();
Cases mixedPrecisionCases();
Cases optimizerCases();
Cases softmaxCases();
Cases reductionCases();
/// Normalization, shape, embedding, window (convolution and pooling),
/// recurrent, loss and encoding cases (CudaLayerCases.cpp).
Cases normalizationCases();
Cases shapeCases();
Cases embeddingCases();
Cases windowCases();
Cases recurrentCases();
Cases lossAndEncodingCases();
/// Every family's cases.
Cases allCases();

} // namespace mp::rt::testing::cases

#endif // MP_RUNTIME_UNITTESTS_CUDA_CUDAKERNELCASES_H
