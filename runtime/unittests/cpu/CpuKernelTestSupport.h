//===- CpuKernelTestSupport.h - cpu kernels against the reference -*- C++ -*-===//
//
// What the cpu kernel tests share: random inputs with special values, the
// attribute helpers, and the fixture that runs a kernel on both backends
// (the cpu one with 1, 2 and 3 threads) and compares the bytes.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CPU_CPUKERNELTESTSUPPORT_H
#define MP_RUNTIME_UNITTESTS_CPU_CPUKERNELTESTSUPPORT_H

#include "OwnedTensor.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace mp::rt::test {

using Tensor = test::OwnedTensor;

/// Uniform in [lo, hi) with every 97th element special (NaN, +-inf, +-0).
inline Tensor randomTensor(DType dtype, std::vector<int64_t> shape, uint32_t seed,
                    float lo = -1, float hi = 1, bool specials = true) {
  Tensor t(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), 0.0f,
                           -0.0f};
  for (int64_t i = 0; i < t.view.numElements(); ++i)
    storeFloat(t.view, i,
               specials && i % 97 == 13 ? special[(i / 97) % 5] : dist(rng));
  return t;
}

inline Attr floats(double value) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = {value};
  return a;
}
inline Attr ints(std::vector<int64_t> values) {
  Attr a;
  a.ints = std::move(values);
  return a;
}
inline Attr text(const char *value) {
  Attr a;
  a.kind = Attr::Kind::String;
  a.str = value;
  return a;
}

/// Skips a test where the cpu backend cannot run here (oneDNN not
/// loaded), with the reason.
class CpuBackendAvailable : public ::testing::Test {
protected:
  void SetUp() override {
    Status status = cpuBackendStatus();
    if (!status.isOk())
      GTEST_SKIP() << "cpu backend unavailable: " << status.message();
  }
};

class CpuKernelTest : public CpuBackendAvailable {
protected:
  void SetUp() override {
    CpuBackendAvailable::SetUp();
    if (IsSkipped())
      return;
    StatusOr<std::unique_ptr<Backend>> made = createCpuBackend();
    ASSERT_TRUE(made.isOk()) << made.status().message();
    cpu = std::move(made.value());
    reference = createReferenceBackend();
  }
  void TearDown() override { setCpuThreads(0); }

  /// Runs `kernel` on both backends (the cpu one with 1, 2 and 3 threads)
  /// and expects identical output bytes, or, with `close`, values within
  /// |cpu - reference| <= rtol |reference| + atol (NaN matching NaN, an
  /// infinity the same infinity).
  struct Close {
    double rtol, atol;
  };
  void expectSame(const KernelDesc &kernel, std::vector<Tensor> &inputs,
                  std::vector<Tensor> outputs, const std::string &what,
                  const Close *close = nullptr) {
    std::vector<TensorView> in, refOut;
    for (Tensor &t : inputs)
      in.push_back(t.view);
    std::vector<Tensor> want = outputs;
    for (Tensor &t : want)
      refOut.push_back(t.view);
    Status status = reference->run(kernel, in, refOut);
    ASSERT_TRUE(status.isOk()) << what << ": " << status.message();
    for (int threads : {1, 2, 3}) {
      setCpuThreads(threads);
      std::vector<Tensor> got = outputs;
      std::vector<TensorView> out;
      for (Tensor &t : got)
        out.push_back(t.view);
      status = cpu->run(kernel, in, out);
      ASSERT_TRUE(status.isOk()) << what << ": " << status.message();
      for (size_t o = 0; o < got.size(); ++o) {
        if (!close) {
          ASSERT_EQ(0, std::memcmp(got[o].bytes.data(), want[o].bytes.data(),
                                   got[o].bytes.size()))
              << what << ", output " << o << ", " << threads << " threads";
          continue;
        }
        for (int64_t i = 0; i < got[o].view.numElements(); ++i) {
          double g = loadFloat(got[o].view, i), w = loadFloat(want[o].view, i);
          bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
                    std::fabs(g - w) <= close->rtol * std::fabs(w) + close->atol;
          ASSERT_TRUE(ok) << what << ", output " << o << ", element " << i
                          << ": cpu " << g << ", reference " << w;
        }
      }
    }
  }

  std::unique_ptr<Backend> cpu, reference;
};

inline const DType kFloatTypes[] = {DType::F32, DType::BF16, DType::F16};

} // namespace mp::rt::test

#endif // MP_RUNTIME_UNITTESTS_CPU_CPUKERNELTESTSUPPORT_H
