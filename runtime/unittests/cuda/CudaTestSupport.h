//===- CudaTestSupport.h - running one kernel on cuda and reference -*- C++
//-*-//
//
// A case is one kernel with host inputs and the dtypes and shapes of its
// results. runCase() checks it on both backends, runs it on the reference
// backend (host memory) and on the cuda backend (inputs copied into memory
// the backend allocates, results copied back), and compares the results
// element by element: integers and i1 exactly, floats within a tolerance
// per result dtype (see CudaBackendTest.cpp for the bounds).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CUDA_CUDATESTSUPPORT_H
#define MP_RUNTIME_UNITTESTS_CUDA_CUDATESTSUPPORT_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace mp::rt::testing {

/// A tensor with its own host memory.
struct Host {
  TensorView view;
  std::vector<uint8_t> bytes;
  Host(DType dtype, std::vector<int64_t> shape);
  Host(const Host &other);
  Host &operator=(const Host &other);
};

/// Uniform in [lo, hi), rounded to `dtype` (integers: floor).
Host uniform(DType dtype, std::vector<int64_t> shape, uint32_t seed,
             double lo = -1, double hi = 1);
/// Given values (converted to `dtype`).
Host values(DType dtype, std::vector<int64_t> shape,
            const std::vector<double> &data);

struct Case {
  std::string name;
  std::string op;
  std::map<std::string, Attr> attrs;
  std::vector<Host> inputs;
  std::vector<std::pair<DType, std::vector<int64_t>>> outputs;
  /// Extra relative tolerance for float results (long f32 sums).
  double slack = 0;
};

/// The reason the cuda tests cannot run here, or "" when a GPU can.
std::string cudaSkipReason();

/// The cuda backend (created once per test binary); null when
/// cudaSkipReason() is not empty.
Backend *cudaBackend();

/// The reference backend's check and run of `c`: the case is well formed
/// (runs
/// without a GPU, so that a bad case is found before GPU time is spent).
Status checkOnReference(const Case &c);

/// Runs `c` on both backends and compares (gtest failures name the case).
void runCase(const Case &c);

/// Runs `c` on the cuda backend only and returns finishStep()'s status
/// (for data errors that the device finds).
Status runOnCuda(const Case &c);

} // namespace mp::rt::testing

/// Skips the test, printing why, when no GPU can run the cuda backend.
#define MP_REQUIRE_GPU()                                                       \
  do {                                                                         \
    std::string mpSkipReason_ = ::mp::rt::testing::cudaSkipReason();           \
    if (!mpSkipReason_.empty())                                                \
      GTEST_SKIP() << mpSkipReason_;                                           \
  } while (false)

#endif // MP_RUNTIME_UNITTESTS_CUDA_CUDATESTSUPPORT_H
