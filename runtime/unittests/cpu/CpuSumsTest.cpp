//===- CpuSumsTest.cpp - cpu/Sums.cpp against reference/Accumulate.h -----===//
//
// The cpu backend's vector forms of the reference's f64 sums (AVX-512 or
// AVX2, whichever cpuFeatureSet() allows: ctest runs this binary again
// under MP_MAX_CPU_ISA=baseline / avx2 / avx512) must give the reference's
// bits for every length (the eight-lane tail included), on data whose sum
// depends on the order of the additions: terms of magnitudes from 1e-6 to
// 1e6 with both signs. The test checks that the data is that sensitive: a
// plain left-to-right sum differs from the lane sum on some length.
//
//===----------------------------------------------------------------------===//
#include "cpu/Sums.h"
#include "mp/runtime/CpuFeatures.h"
#include "reference/Accumulate.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace mp::rt;

namespace {

std::vector<float> wideRange(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> exponent(-6.0f, 6.0f), sign(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v)
    x = std::copysign(std::pow(10.0f, exponent(rng)), sign(rng));
  return v;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(CpuSums, AreBitwiseTheReference) {
  SCOPED_TRACE(cpuFeatures());
  bool orderMatters = false;
  for (int64_t n : {0, 1, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 1000, 1024,
                    4097}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> a = wideRange(n, 7 + static_cast<unsigned>(n)),
                       b = wideRange(n, 99 + static_cast<unsigned>(n));
    const double center = 0.37;
    double want = ref::sumOf(a.data(), n);
    EXPECT_TRUE(sameBits(cpu::sumOf(a.data(), n), want))
        << cpu::sumOf(a.data(), n) << " vs " << want;
    double squares = ref::sumOfSquares(a.data(), n, center);
    EXPECT_TRUE(sameBits(cpu::sumOfSquares(a.data(), n, center), squares));
    double products = ref::sumOfProducts(a.data(), b.data(), n, center);
    EXPECT_TRUE(
        sameBits(cpu::sumOfProducts(a.data(), b.data(), n, center), products));
    double plain = 0;
    for (float x : a)
      plain += static_cast<double>(x);
    orderMatters = orderMatters || !sameBits(plain, want);
  }
  EXPECT_TRUE(orderMatters)
      << "the data does not tell one order of the additions from another";
}

/// addColumns (panels of columns whose running sums stay in registers,
/// then the rest) and addColumnsBf16: each column's terms added in row
/// order, bitwise the plain loop, for widths around the panel size, a
/// stride wider than the columns, and bf16 values read as their f32
/// values.
TEST(CpuSums, ColumnSumsAreRowOrderBitwise) {
  SCOPED_TRACE(cpuFeatures());
  for (int64_t rows : {1, 5, 300})
    for (int64_t n : {1, 31, 32, 33, 64, 100}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", n " + std::to_string(n));
      int64_t stride = n + 7;
      std::vector<float> x = wideRange(rows * stride, 3 + unsigned(rows * n));
      std::vector<uint16_t> half(x.size());
      fromFloats(x.data(), DType::BF16, half.data(), rows * stride);
      std::vector<float> rounded(x.size());
      toFloats(DType::BF16, half.data(), rounded.data(), rows * stride);
      std::vector<double> want(n, 0.5), wantHalf(n, 0.5);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j) {
          want[j] += static_cast<double>(x[r * stride + j]);
          wantHalf[j] += static_cast<double>(rounded[r * stride + j]);
        }
      std::vector<double> got(n, 0.5), gotHalf(n, 0.5);
      cpu::addColumns(got.data(), x.data(), rows, stride, n);
      cpu::addColumnsBf16(gotHalf.data(), half.data(), rows, stride, n);
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_TRUE(sameBits(got[j], want[j])) << "column " << j;
        EXPECT_TRUE(sameBits(gotHalf[j], wantHalf[j])) << "bf16 column " << j;
      }
    }
}

} // namespace
