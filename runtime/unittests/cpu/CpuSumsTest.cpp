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

} // namespace
