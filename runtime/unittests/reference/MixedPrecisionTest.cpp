//===- MixedPrecisionTest.cpp - mp.cast and the loss-scaling ops ----------===//
#include "RefTestUtil.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::test;

/// The correctly rounded value of `x` in `dtype` (the conversions are
/// checked against an independent oracle in ConversionTest.cpp).
static double roundTo(DType dtype, double x) {
  float f = static_cast<float>(x); // x is exact in f32 here
  switch (dtype) {
  case DType::BF16:
    return bfloat16ToFloat(floatToBFloat16(f));
  case DType::F16:
    return halfToFloat(floatToHalf(f));
  default:
    return f;
  }
}

TEST(MixedPrecision, CastBetweenEveryPair) {
  // Ties, overflow for f16 (70000, 1e30), bf16-only values, subnormals.
  const Values values = {1.0,  1 + 0x1p-8, 1 + 0x1p-11,  1 + 3 * 0x1p-11,
                         -2.5, 65504,      65520,        70000,
                         1e30, 0x1p-24,    0x1p-25,      3 * 0x1p-25,
                         -0.0, HUGE_VAL,   std::nan(""), 0.1};
  for (DType from : floatDTypes())
    for (DType to : floatDTypes()) {
      HostTensor x = makeTensor(from, {int64_t(values.size())}, values);
      HostTensor y(to, x.shape);
      ASSERT_OK(runKernel("mp.cast", {}, {&x}, {&y}));
      Values want;
      for (double v : x.values())
        want.push_back(roundTo(to, v));
      expectNear(y, want, {0, 0},
                 std::string("cast ") + dtypeName(from) + " -> " +
                     dtypeName(to));
      EXPECT_TRUE(std::signbit(y.at(12))) << "-0 keeps its sign";
    }
  HostTensor i(DType::I32, {2}), f(DType::F32, {2});
  expectError(checkKernel("mp.cast", {}, {&i}, {&f}), StatusCode::Unimplemented,
              "input of dtype f32, bf16 or f16 but got i32");
}

TEST(MixedPrecision, ScaleRoundsOnceToTheValueType) {
  for (DType dtype : floatDTypes()) {
    HostTensor x = makeTensor(dtype, {3}, {1 + 0x1p-7, 60000, -3});
    HostTensor scale = makeTensor(DType::F32, {}, {1 + 0x1p-7});
    HostTensor y(dtype, {3});
    ASSERT_OK(runKernel("mp.scale", {}, {&x, &scale}, {&y}));
    Values want;
    for (double v : x.values())
      want.push_back(roundTo(dtype, float(v * (1 + 0x1p-7))));
    expectNear(y, want, {0, 0}, std::string("scale ") + dtypeName(dtype));
  }
  HostTensor x(DType::F16, {1}), y(DType::F16, {1}), s16(DType::F16, {});
  expectError(checkKernel("mp.scale", {}, {&x, &s16}, {&y}),
              StatusCode::Unimplemented, "scale of dtype f32");
}

TEST(MixedPrecision, UnscaleAndCheck) {
  const double scale = 3.0; // 1/3 is inexact: the reciprocal is in double
  HostTensor s = makeTensor(DType::F32, {}, {scale});
  float inverse = static_cast<float>(1.0 / scale);
  auto run = [&](std::vector<HostTensor> grads, std::vector<DType> outTypes,
                 bool wantFinite) {
    std::vector<HostTensor *> in = {&s}, out;
    std::vector<HostTensor> results;
    results.reserve(grads.size() + 1);
    for (size_t i = 0; i < grads.size(); ++i) {
      in.push_back(&grads[i]);
      results.emplace_back(outTypes[i], grads[i].shape);
    }
    results.emplace_back(DType::I1, Shape{});
    for (HostTensor &r : results)
      out.push_back(&r);
    ASSERT_OK(runKernel("mp.unscale_and_check", {}, in, out));
    EXPECT_EQ(results.back().bytes[0], wantFinite ? 1 : 0);
    for (size_t i = 0; i < grads.size(); ++i) {
      Values want;
      for (double g : grads[i].values())
        want.push_back(roundTo(outTypes[i], float(g) * inverse));
      expectNear(results[i], want, {0, 0}, "unscaled #" + std::to_string(i));
    }
  };
  HostTensor g32 = randomTensor(DType::F32, {4}, -1e4, 1e4, 1);
  HostTensor g16 = randomTensor(DType::F16, {2, 3}, -6e4, 6e4, 2);
  HostTensor gbf = randomTensor(DType::BF16, {5}, -1e30, 1e30, 3);
  run({g32, g16, gbf}, {DType::F32, DType::F16, DType::BF16}, true);
  run({g32, g16, gbf}, {DType::F32, DType::F32, DType::F32}, true);
  // One inf or NaN in any one of several gradients clears all_finite.
  for (double bad : {HUGE_VAL, -HUGE_VAL, std::nan("")}) {
    HostTensor b16 = g16, bbf = gbf;
    b16.set(4, bad);
    run({g32, b16, gbf}, {DType::F32, DType::F16, DType::BF16}, false);
    bbf.set(0, bad);
    run({g32, g16, bbf}, {DType::F32, DType::F32, DType::F32}, false);
  }
}

TEST(MixedPrecision, AllFinite) {
  HostTensor a = randomTensor(DType::F32, {3}, -1, 1, 1);
  HostTensor b = randomTensor(DType::BF16, {2, 2}, -1, 1, 2);
  HostTensor c = randomTensor(DType::F16, {5}, -1, 1, 3);
  HostTensor r(DType::I1, {});
  ASSERT_OK(runKernel("mp.all_finite", {}, {&a, &b, &c}, {&r}));
  EXPECT_EQ(r.bytes[0], 1);
  for (double bad : {HUGE_VAL, std::nan("")}) {
    HostTensor cc = c;
    cc.set(4, bad);
    ASSERT_OK(runKernel("mp.all_finite", {}, {&a, &b, &cc}, {&r}));
    EXPECT_EQ(r.bytes[0], 0);
  }
  // Large but finite f16 values are finite.
  HostTensor big = makeTensor(DType::F16, {1}, {65504});
  ASSERT_OK(runKernel("mp.all_finite", {}, {&big}, {&r}));
  EXPECT_EQ(r.bytes[0], 1);
}

TEST(MixedPrecision, SelectCopiesBits) {
  HostTensor pred(DType::I1, {});
  HostTensor newF(DType::F32, {2}), oldF(DType::F32, {2});
  uint32_t payloadNaN = 0x7fc01234;
  std::memcpy(newF.bytes.data(), &payloadNaN, 4);
  newF.set(1, -0.0);
  oldF.set(0, 1);
  oldF.set(1, 2);
  HostTensor newI = makeTensor(DType::I64, {}, {7}),
             oldI = makeTensor(DType::I64, {}, {6});
  HostTensor newH = makeTensor(DType::F16, {3}, {1, 2, 3});
  HostTensor oldH = makeTensor(DType::F16, {3}, {4, 5, 6});
  for (uint8_t p : {1, 0}) {
    pred.bytes[0] = p;
    HostTensor outF(DType::F32, {2}), outI(DType::I64, {}),
        outH(DType::F16, {3});
    ASSERT_OK(runKernel("mp.select", {},
                        {&pred, &newF, &newI, &newH, &oldF, &oldI, &oldH},
                        {&outF, &outI, &outH}));
    EXPECT_EQ(outF.bytes, (p ? newF : oldF).bytes);
    EXPECT_EQ(outI.bytes, (p ? newI : oldI).bytes);
    EXPECT_EQ(outH.bytes, (p ? newH : oldH).bytes);
  }
  HostTensor outF(DType::F32, {2});
  expectError(checkKernel("mp.select", {}, {&pred, &newF, &oldH}, {&outF}),
              StatusCode::Unimplemented,
              "results and old values of the same dtype");
  expectError(checkKernel("mp.select", {}, {&pred, &newF}, {&outF}),
              StatusCode::InvalidArgument, "[pred, new..., old...]");
}

namespace {
/// GradScaler's update in double, the test's model of mp.update_scale.
struct ScalerModel {
  double scale;
  int64_t count;
  int64_t interval;
  double growth, backoff, min, max;
  void step(bool finite) {
    if (!finite) {
      scale = std::max(scale * backoff, min);
      count = 0;
      return;
    }
    if (++count < interval)
      return;
    count = 0;
    double grown = scale * growth;
    if (grown <= std::numeric_limits<float>::max()) // finite in f32
      scale = std::min(grown, max);
  }
};
} // namespace

TEST(MixedPrecision, UpdateScaleSequences) {
  struct Case {
    double scale, growth, backoff, min, max;
    int64_t interval;
    std::vector<bool> finite;
  };
  const double fmax = std::numeric_limits<float>::max();
  const std::vector<Case> cases = {
      // Growth after every interval, capped at max_scale.
      {256, 2, 0.5, 1, 1024, 3, std::vector<bool>(12, true)},
      // Back-off down to min_scale, and a reset counter after an overflow.
      {8,
       2,
       0.5,
       1,
       fmax,
       3,
       {true, true, false, true, true, false, false, false, false, false, true,
        true, true}},
      // Never grows to inf: 2^127 * 2 overflows f32, so the scale stays.
      {0x1p127, 2, 0.5, 0, fmax, 1, {true, true, true}},
      // Default-like settings with an odd factor.
      {65536,
       3,
       0.25,
       0,
       fmax,
       2,
       {true, true, false, true, true, true, true, false}},
  };
  for (DType countType : {DType::I32, DType::I64})
    for (const Case &c : cases) {
      ScalerModel model{c.scale,   0,     c.interval, c.growth,
                        c.backoff, c.min, c.max};
      HostTensor scale = makeTensor(DType::F32, {}, {c.scale});
      HostTensor count = makeTensor(countType, {}, {0});
      AttrMap attrs = {{"growth_interval", intsAttr({c.interval})},
                       {"growth_factor", floatAttr(c.growth)},
                       {"backoff_factor", floatAttr(c.backoff)},
                       {"min_scale", floatAttr(c.min)},
                       {"max_scale", floatAttr(c.max)}};
      for (size_t i = 0; i < c.finite.size(); ++i) {
        HostTensor finite(DType::I1, {});
        finite.bytes[0] = c.finite[i];
        HostTensor newScale(DType::F32, {}), newCount(countType, {});
        ASSERT_OK(runKernel("mp.update_scale", attrs, {&scale, &count, &finite},
                            {&newScale, &newCount}));
        model.step(c.finite[i]);
        ASSERT_EQ(newScale.at(0), model.scale) << "step " << i;
        ASSERT_EQ(newCount.at(0), double(model.count)) << "step " << i;
        ASSERT_TRUE(std::isfinite(newScale.at(0)));
        scale = newScale;
        count = newCount;
      }
    }
}

TEST(MixedPrecision, UpdateScaleChecksOperands) {
  HostTensor s(DType::F32, {}), c(DType::I32, {}), f(DType::I1, {}),
      ns(DType::F32, {}), nc(DType::I64, {});
  expectError(checkKernel("mp.update_scale", {}, {&s, &c, &f}, {&ns, &nc}),
              StatusCode::Unimplemented, "growth_count and new_growth_count");
  HostTensor nc32(DType::I32, {});
  expectError(checkKernel("mp.update_scale",
                          {{"backoff_factor", floatAttr(1.5)}}, {&s, &c, &f},
                          {&ns, &nc32}),
              StatusCode::InvalidArgument, "backoff_factor");
}
