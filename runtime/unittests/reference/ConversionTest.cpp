//===- ConversionTest.cpp - f32 <-> f16/bf16 rounding and element access --===//
//
// The conversions are checked against an independent oracle: the sorted
// list of every finite value of the 16-bit format (as doubles), searched for
// the nearest neighbours of the f32 input, ties to the even encoding, and
// anything at or beyond max + half an ulp going to inf.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mp::rt;
using namespace mp::rt::test;

static float floatBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}
static uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

namespace {
/// Every non-negative finite value of a 16-bit format, in increasing order.
struct Format {
  std::vector<std::pair<double, uint16_t>> values; // value, encoding
  double max, halfUlpAtMax;
};
} // namespace

/// halfToFloat/bfloat16ToFloat are checked separately against formulas, so
/// the oracle may use them to enumerate values.
static Format makeFormat(float (*toFloat)(uint16_t), uint16_t infBits) {
  Format f;
  for (uint32_t b = 0; b < infBits; ++b)
    f.values.push_back({toFloat(static_cast<uint16_t>(b)), uint16_t(b)});
  f.max = f.values.back().first;
  f.halfUlpAtMax = (f.max - f.values[f.values.size() - 2].first) / 2;
  return f;
}

/// The correctly rounded encoding of `x` (non-NaN).
static uint16_t oracle(const Format &f, uint16_t infBits, float x) {
  double a = std::fabs(static_cast<double>(x));
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (a >= f.max + f.halfUlpAtMax)
    return sign | infBits;
  auto it = std::lower_bound(
      f.values.begin(), f.values.end(), std::make_pair(a, uint16_t(0)),
      [](const auto &l, const auto &r) { return l.first < r.first; });
  if (it == f.values.end()) // between max and the overflow threshold
    return sign | f.values.back().second;
  if (it->first == a)
    return sign | it->second;
  auto below = it - 1;
  double dLow = a - below->first, dHigh = it->first - a;
  if (dLow < dHigh)
    return sign | below->second;
  if (dHigh < dLow)
    return sign | it->second;
  return sign | ((below->second & 1) ? it->second : below->second);
}

//===----------------------------------------------------------------------===//
// binary16
//===----------------------------------------------------------------------===//

TEST(HalfConversion, WideningMatchesTheFormula) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = static_cast<uint16_t>(b);
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double sign = (h & 0x8000) ? -1 : 1;
    float got = halfToFloat(h);
    if (exponent == 0x1f) {
      if (mantissa)
        EXPECT_TRUE(std::isnan(got)) << b;
      else
        EXPECT_EQ(got, sign * HUGE_VAL) << b;
      continue;
    }
    double want = exponent == 0
                      ? sign * std::ldexp(mantissa, -24)
                      : sign * std::ldexp(1024 + mantissa, exponent - 25);
    ASSERT_EQ(static_cast<double>(got), want) << b;
    ASSERT_EQ(std::signbit(got), sign < 0) << b;
  }
}

TEST(HalfConversion, EdgeCases) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff); // max finite
  // Ties: halfway between 1 and 1 + 2^-10 goes to the even 1; halfway
  // between 1 + 2^-10 and 1 + 2^-9 goes up to the even 1 + 2^-9.
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(floatToHalf(std::nextafter(1.0f + 0x1p-11f, 2.0f)), 0x3c01);
  // Overflow: below 65520 rounds to max, 65520 (a tie) and above to inf.
  EXPECT_EQ(floatToHalf(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(floatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  // Subnormals: 2^-24 is the smallest; 2^-25 is a tie that goes to zero;
  // 3 * 2^-25 is a tie between 1 and 2 units that goes to 2.
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);
  EXPECT_EQ(floatToHalf(std::nextafter(0x1p-25f, 1.0f)), 0x0001);
  EXPECT_EQ(floatToHalf(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(floatToHalf(1023 * 0x1p-24f), 0x03ff);       // largest subnormal
  EXPECT_EQ(floatToHalf(1023.5f * 0x1p-24f), 0x0400);    // tie up to normal
  EXPECT_EQ(floatToHalf(0x1p-14f), 0x0400);              // smallest normal
  EXPECT_EQ(floatToHalf(-0x1p-30f), 0x8000);             // underflow keeps sign
  EXPECT_EQ(floatToHalf(floatBits(0x00000001)), 0x0000); // f32 subnormal
  // NaN stays a quiet NaN, even a signalling one with a low payload that a
  // plain truncation would turn into inf.
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7e00, 0x7e00);
  uint16_t snan = floatToHalf(floatBits(0x7f800001));
  EXPECT_EQ(snan & 0x7e00, 0x7e00);
  EXPECT_TRUE(std::isnan(halfToFloat(snan)));
  EXPECT_EQ(bitsOf(halfToFloat(0x7c01)) & 0x7fc00000, 0x7fc00000u); // quiet
}

TEST(HalfConversion, RoundTripsEveryValue) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = static_cast<uint16_t>(b);
    float f = halfToFloat(h);
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
    else
      ASSERT_EQ(floatToHalf(f), h) << b;
  }
}

TEST(HalfConversion, MatchesTheOracle) {
  Format format = makeFormat(halfToFloat, 0x7c00);
  std::mt19937 gen(7);
  // Random f32 bit patterns in f16's range (and around it), plus every
  // midpoint between neighbouring f16 values and its two f32 neighbours.
  std::vector<float> inputs;
  for (int i = 0; i < 400000; ++i) {
    uint32_t bits = (gen() & 0x80000000u) | (0x30000000u + gen() % 0x18000000u);
    inputs.push_back(floatBits(bits));
  }
  for (size_t i = 1; i < format.values.size(); ++i) {
    float mid = static_cast<float>(
        (format.values[i - 1].first + format.values[i].first) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)})
      inputs.push_back(x);
  }
  for (float x : inputs) {
    for (float y : {x, -x})
      ASSERT_EQ(floatToHalf(y), oracle(format, 0x7c00, y))
          << std::hexfloat << y;
  }
}

//===----------------------------------------------------------------------===//
// bfloat16
//===----------------------------------------------------------------------===//

TEST(BFloat16Conversion, WideningIsTheTopHalf) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bfloat16ToFloat(static_cast<uint16_t>(b));
    if ((b & 0x7fff) > 0x7f80)
      EXPECT_TRUE(std::isnan(f)) << b;
    else
      ASSERT_EQ(bitsOf(f), b << 16) << b;
  }
}

TEST(BFloat16Conversion, EdgeCases) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  // Ties to even, around 1 (spacing 2^-7).
  EXPECT_EQ(floatToBFloat16(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(floatToBFloat16(std::nextafter(1.0f + 0x1p-8f, 2.0f)), 0x3f81);
  // Max finite (0x7f7f) and overflow: f32's max is past max + half an ulp.
  EXPECT_EQ(floatToBFloat16(bfloat16ToFloat(0x7f7f)), 0x7f7f);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(floatBits(0x7f7f7fff)), 0x7f7f); // below the tie
  EXPECT_EQ(floatToBFloat16(floatBits(0x7f7f8000)), 0x7f80); // tie to inf
  EXPECT_EQ(floatToBFloat16(-INFINITY), 0xff80);
  // Subnormals are kept and rounded like everything else.
  EXPECT_EQ(floatToBFloat16(floatBits(0x00010000)), 0x0001);
  EXPECT_EQ(floatToBFloat16(floatBits(0x00008000)), 0x0000); // tie to even
  EXPECT_EQ(floatToBFloat16(floatBits(0x00018000)), 0x0002); // tie to even
  EXPECT_EQ(floatToBFloat16(floatBits(0x00008001)), 0x0001);
  // NaN stays NaN and quiet, including a signalling NaN whose payload sits
  // in the low half (truncation alone would give inf).
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::quiet_NaN()) & 0x7fc0,
            0x7fc0);
  uint16_t snan = floatToBFloat16(floatBits(0x7f800001));
  EXPECT_EQ(snan & 0x7fc0, 0x7fc0);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x7f81)) & 0x7fc00000, 0x7fc00000u);
}

TEST(BFloat16Conversion, MatchesTheOracle) {
  Format format = makeFormat(bfloat16ToFloat, 0x7f80);
  std::mt19937 gen(11);
  std::vector<float> inputs;
  for (int i = 0; i < 400000; ++i)
    inputs.push_back(floatBits(gen() & 0x7f7fffffu)); // every finite binade
  for (size_t i = 1; i < format.values.size(); ++i) {
    // Midpoints are exact in f32 (one more bit than bf16).
    float mid = static_cast<float>(
        (format.values[i - 1].first + format.values[i].first) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)})
      inputs.push_back(x);
  }
  for (float x : inputs)
    for (float y : {x, -x})
      ASSERT_EQ(floatToBFloat16(y), oracle(format, 0x7f80, y))
          << std::hexfloat << y;
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

TEST(ElementAccess, FloatsRoundOnStore) {
  HostTensor b(DType::BF16, {2}), h(DType::F16, {2}), f(DType::F32, {2});
  for (HostTensor *t : {&b, &h, &f})
    storeFloat(t->view(), 1, 1.0f + 0x1p-11f + 0x1p-20f);
  EXPECT_EQ(loadFloat(b.view(), 1), 1.0f);
  EXPECT_EQ(loadFloat(h.view(), 1), 1.0f + 0x1p-10f);
  EXPECT_EQ(loadFloat(f.view(), 1), 1.0f + 0x1p-11f + 0x1p-20f);
  EXPECT_EQ(loadFloat(b.view(), 0), 0.0f);
}

TEST(ElementAccess, IntegersAndPredicates) {
  HostTensor p(DType::I1, {3}), i32(DType::I32, {2}), i64(DType::I64, {2});
  EXPECT_EQ(p.bytes.size(), 3u); // one byte per i1
  storeInt(p.view(), 0, 5);
  storeInt(p.view(), 1, 0);
  storeInt(p.view(), 2, -1);
  EXPECT_EQ(p.bytes, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(loadInt(p.view(), 0), 1);
  storeInt(i32.view(), 1, -7);
  storeInt(i64.view(), 1, int64_t(1) << 40);
  EXPECT_EQ(loadInt(i32.view(), 1), -7);
  EXPECT_EQ(loadInt(i64.view(), 1), int64_t(1) << 40);
  EXPECT_EQ(loadFloat(i32.view(), 1), -7.0f);
}

// The bulk conversions kernels use agree bit for bit with the scalar ones:
// every 16-bit encoding on load, and a spread of floats (ties, subnormals,
// overflow, NaN) on store.
TEST(BulkConversionTest, MatchesScalarConversions) {
  std::vector<uint16_t> encodings(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    encodings[i] = static_cast<uint16_t>(i);
  std::vector<float> loaded(65536);
  for (mp::rt::DType dtype : {mp::rt::DType::BF16, mp::rt::DType::F16}) {
    mp::rt::TensorView view{dtype, {65536}, encodings.data()};
    mp::rt::loadFloats(view, loaded.data());
    for (uint32_t i = 0; i < 65536; ++i) {
      float scalar = dtype == mp::rt::DType::BF16
                         ? mp::rt::bfloat16ToFloat(encodings[i])
                         : mp::rt::halfToFloat(encodings[i]);
      uint32_t a, b;
      std::memcpy(&a, &loaded[i], 4);
      std::memcpy(&b, &scalar, 4);
      ASSERT_EQ(a, b) << mp::rt::dtypeName(dtype) << " encoding " << i;
    }
  }
  std::vector<float> values;
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &state, 4);
    values.push_back(f);
  }
  for (float f : {0.0f, -0.0f, 65504.0f, 65520.0f, 1e-8f, 3e38f, 1.0f / 3})
    values.push_back(f);
  std::vector<uint16_t> stored(values.size());
  for (mp::rt::DType dtype : {mp::rt::DType::BF16, mp::rt::DType::F16}) {
    mp::rt::TensorView view{dtype, {static_cast<int64_t>(values.size())},
                            stored.data()};
    mp::rt::storeFloats(view, values.data());
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t scalar = dtype == mp::rt::DType::BF16
                            ? mp::rt::floatToBFloat16(values[i])
                            : mp::rt::floatToHalf(values[i]);
      ASSERT_EQ(stored[i], scalar) << mp::rt::dtypeName(dtype) << " value "
                                   << values[i];
    }
  }
}
