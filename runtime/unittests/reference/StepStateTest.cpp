//===- StepStateTest.cpp - lr_schedule, clipping, dropout -----------------===//
//
// Philox 4x32-10 against Random123's known answers; the schedules and the
// clipping against float64 implementations of PyTorch's rules (written
// here, not taken from the kernels), step by step and over a 20-step SGD
// trajectory; the dropout masks' statistics, determinism, streams and
// gradient; the optimizers' learning-rate operand; the errors.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include "common/StepRules.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

const double kPi = 3.14159265358979323846;

TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  struct Kat {
    uint32_t c[4], k[2], out[4];
  } kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat &kat : kats) {
    ref::Philox4 got = ref::philox4x32_10(
        ref::Philox4{{kat.c[0], kat.c[1], kat.c[2], kat.c[3]}}, kat.k[0],
        kat.k[1]);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got.v[i], kat.out[i]) << "word " << i;
  }
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

/// PyTorch's schedulers in closed form, in double: LinearLR and the
/// warm-ups, CosineAnnealingLR (held at eta_min after T_max), StepLR,
/// ExponentialLR, after `t` scheduler steps.
struct Float64Schedule {
  double base = 0.1, start = 0, end = 0, gamma = 1;
  int64_t warmup = 0, decaySteps = 1;
  std::string warmupShape = "linear", decay = "constant";

  double at(int64_t t) const {
    if (t < warmup) {
      double progress = warmupShape == "cosine"
                            ? 0.5 * (1 - std::cos(kPi * t / warmup))
                            : static_cast<double>(t) / warmup;
      return base * (start + (1 - start) * progress);
    }
    int64_t u = t - warmup;
    if (decay == "linear")
      return base * (1 + (end - 1) * std::min<double>(u, decaySteps) /
                             decaySteps);
    if (decay == "cosine") {
      double etaMin = base * end;
      double v = std::min<double>(u, decaySteps);
      return etaMin + (base - etaMin) * (1 + std::cos(kPi * v / decaySteps)) / 2;
    }
    if (decay == "step")
      return base * std::pow(gamma, static_cast<double>(u / decaySteps));
    if (decay == "exponential")
      return base * std::pow(gamma, static_cast<double>(u));
    return base;
  }

  AttrMap attrs() const {
    return {{"base_lr", floatAttr(base)},
            {"warmup_steps", intsAttr({warmup})},
            {"warmup_start_factor", floatAttr(start)},
            {"warmup", stringAttr(warmupShape)},
            {"decay", stringAttr(decay)},
            {"decay_steps", intsAttr({decaySteps})},
            {"end_factor", floatAttr(end)},
            {"gamma", floatAttr(gamma)}};
  }
};

float scheduleAt(const AttrMap &attrs, int64_t t, DType counter) {
  HostTensor step = makeTensor(counter, {}, {static_cast<double>(t)});
  HostTensor lr = zerosTensor(DType::F32, {});
  EXPECT_TRUE(runKernel("train.lr_schedule", attrs, {&step}, {&lr}).isOk());
  return static_cast<float>(lr.at(0));
}

TEST(LrScheduleTest, MatchesFloat64ForEveryShape) {
  std::vector<Float64Schedule> schedules;
  Float64Schedule s;
  schedules.push_back(s); // constant
  s.warmup = 5, s.start = 0.1;
  schedules.push_back(s); // linear warm-up, then constant
  s.warmupShape = "cosine", s.decay = "cosine", s.decaySteps = 12,
  s.end = 0.05;
  schedules.push_back(s); // OneCycleLR's two cosine phases
  s.warmupShape = "linear", s.decay = "linear";
  schedules.push_back(s); // linear warm-up and decay
  s = Float64Schedule();
  s.decay = "step", s.decaySteps = 4, s.gamma = 0.5;
  schedules.push_back(s); // StepLR
  s.decay = "exponential", s.gamma = 0.9;
  schedules.push_back(s); // ExponentialLR
  for (const Float64Schedule &schedule : schedules)
    for (int64_t t = 0; t < 20; ++t)
      for (DType counter : {DType::I64, DType::I32}) {
        double want = schedule.at(t);
        float got = scheduleAt(schedule.attrs(), t, counter);
        EXPECT_NEAR(got, want, 1.2e-7 * want)
            << schedule.warmupShape << " warm-up, " << schedule.decay
            << " decay, t = " << t;
      }
}

TEST(LrScheduleTest, RejectsANegativeStep) {
  HostTensor step = makeTensor(DType::I64, {}, {-1});
  HostTensor lr = zerosTensor(DType::F32, {});
  expectError(runKernel("train.lr_schedule", {{"base_lr", floatAttr(0.1)}},
                        {&step}, {&lr}),
              StatusCode::InvalidArgument, "step count -1");
}

//===----------------------------------------------------------------------===//
// Clipping
//===----------------------------------------------------------------------===//

/// torch.nn.utils.clip_grad_norm_ in double: the total norm and the
/// clamped coefficient.
double float64Norm(const std::vector<HostTensor *> &grads, double p) {
  double acc = 0;
  for (const HostTensor *g : grads)
    for (int64_t i = 0; i < g->size(); ++i)
      acc = std::isinf(p) ? std::max(acc, std::fabs(g->at(i)))
                          : acc + std::pow(std::fabs(g->at(i)), p);
  return std::isinf(p) ? acc : std::pow(acc, 1 / p);
}

TEST(ClipGradNormTest, MatchesFloat64InEveryDType) {
  for (DType d : floatDTypes())
    for (double p : {2.0, 1.0, 3.0, static_cast<double>(INFINITY)})
      for (double maxNorm : {0.5, 1e3}) {
        HostTensor a = randomTensor(d, {9, 17}, -1, 1, 21);
        HostTensor b = randomTensor(d, {31}, -2, 2, 22);
        HostTensor ca = zerosTensor(d, {9, 17}), cb = zerosTensor(d, {31});
        HostTensor norm = zerosTensor(DType::F32, {});
        AttrMap attrs = {{"max_norm", floatAttr(maxNorm)},
                         {"norm_type", floatAttr(p)}};
        ASSERT_OK(runKernel("train.clip_grad_norm", attrs, {&a, &b},
                            {&ca, &cb, &norm}));
        double total = float64Norm({&a, &b}, p);
        expectNear(norm, {total}, accumulateTolerance(DType::F32), "norm");
        double coef = std::min(1.0, maxNorm / (total + 1e-6));
        Values wantA = a.values(), wantB = b.values();
        for (double &v : wantA)
          v *= coef;
        for (double &v : wantB)
          v *= coef;
        expectNear(ca, wantA, elementwiseTolerance(d), "clipped a");
        expectNear(cb, wantB, elementwiseTolerance(d), "clipped b");
        if (maxNorm > total) { // under the limit: multiplied by exactly 1
          EXPECT_EQ(ca.bytes, a.bytes);
        }
      }
}

TEST(ClipGradNormTest, ANonFiniteGradientGivesANonFiniteNorm) {
  HostTensor a = makeTensor(DType::F32, {3}, {1, NAN, 2});
  HostTensor ca = zerosTensor(DType::F32, {3});
  HostTensor norm = zerosTensor(DType::F32, {});
  for (double p : {2.0, static_cast<double>(INFINITY)}) {
    ASSERT_OK(runKernel("train.clip_grad_norm",
                        {{"max_norm", floatAttr(1)}, {"norm_type", floatAttr(p)}},
                        {&a}, {&ca, &norm}));
    EXPECT_TRUE(std::isnan(norm.at(0))) << p;
    EXPECT_TRUE(std::isnan(ca.at(0))) << p;
  }
}

TEST(ClipGradValueTest, ClampsAndKeepsNaN) {
  HostTensor a = makeTensor(DType::F32, {5}, {-3, -0.25, 0.5, 7, NAN});
  HostTensor out = zerosTensor(DType::F32, {5});
  ASSERT_OK(runKernel("train.clip_grad_value", {{"clip_value", floatAttr(1)}},
                      {&a}, {&out}));
  EXPECT_EQ(out.at(0), -1);
  EXPECT_EQ(out.at(1), -0.25);
  EXPECT_EQ(out.at(2), 0.5);
  EXPECT_EQ(out.at(3), 1);
  EXPECT_TRUE(std::isnan(out.at(4)));
}

/// 20 steps of p -= lr_t * clip(g_t) with g_t = 3 * (p - c) (a quadratic),
/// a warm-up + cosine schedule and max_norm 1, through the kernels and in
/// double: the trajectories agree to f32 accuracy.
TEST(ClipAndScheduleTest, TwentyStepsMatchFloat64) {
  Float64Schedule schedule;
  schedule.base = 0.2, schedule.warmup = 4, schedule.start = 0.25,
  schedule.decay = "cosine", schedule.decaySteps = 16, schedule.end = 0.1;
  HostTensor p = randomTensor(DType::F32, {40}, -2, 2, 5);
  HostTensor c = randomTensor(DType::F32, {40}, -1, 1, 6);
  Values p64 = p.values();
  for (int64_t t = 0; t < 20; ++t) {
    HostTensor g = zerosTensor(DType::F32, {40});
    for (int64_t i = 0; i < 40; ++i)
      g.set(i, 3 * (p.at(i) - c.at(i)));
    HostTensor clipped = zerosTensor(DType::F32, {40});
    HostTensor norm = zerosTensor(DType::F32, {});
    ASSERT_OK(runKernel("train.clip_grad_norm", {{"max_norm", floatAttr(1)}},
                        {&g}, {&clipped, &norm}));
    HostTensor step = makeTensor(DType::I64, {}, {static_cast<double>(t)});
    HostTensor lr = zerosTensor(DType::F32, {});
    ASSERT_OK(runKernel("train.lr_schedule", schedule.attrs(), {&step}, {&lr}));
    HostTensor next = zerosTensor(DType::F32, {40});
    ASSERT_OK(runKernel("train.sgd", {}, {&p, &clipped, &lr}, {&next}));
    p = next;

    double total = 0;
    Values g64(40);
    for (int64_t i = 0; i < 40; ++i) {
      g64[i] = 3 * (p64[i] - c.at(i));
      total += g64[i] * g64[i];
    }
    double coef = std::min(1.0, 1 / (std::sqrt(total) + 1e-6));
    for (int64_t i = 0; i < 40; ++i)
      p64[i] -= schedule.at(t) * coef * g64[i];
    EXPECT_NEAR(norm.at(0), std::sqrt(total), 1e-5 * std::sqrt(total))
        << "step " << t;
  }
  expectNear(p, p64, {2e-5, 2e-6}, "params after 20 steps");
}

//===----------------------------------------------------------------------===//
// Learning-rate operands
//===----------------------------------------------------------------------===//

TEST(LearningRateOperandTest, EqualsTheAttribute) {
  HostTensor p = randomTensor(DType::F32, {7, 13}, -1, 1, 1);
  HostTensor g = randomTensor(DType::F32, {7, 13}, -1, 1, 2);
  HostTensor m = randomTensor(DType::F32, {7, 13}, -1, 1, 3);
  HostTensor v = randomTensor(DType::F32, {7, 13}, 0, 1, 4);
  HostTensor t = makeTensor(DType::I64, {}, {3});
  HostTensor lr = makeTensor(DType::F32, {}, {0.003});
  for (const char *op : {"train.adam", "train.adamw"}) {
    HostTensor a[3] = {zerosTensor(DType::F32, {7, 13}),
                       zerosTensor(DType::F32, {7, 13}),
                       zerosTensor(DType::F32, {7, 13})};
    HostTensor b[3] = {a[0], a[1], a[2]};
    // The attribute as the f32 the operand holds.
    ASSERT_OK(runKernel(op, {{"lr", floatAttr(static_cast<float>(0.003))}},
                        {&p, &g, &m, &v, &t}, {&a[0], &a[1], &a[2]}));
    ASSERT_OK(runKernel(op, {}, {&p, &g, &m, &v, &t, &lr},
                        {&b[0], &b[1], &b[2]}));
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(a[i].bytes, b[i].bytes) << op << " result " << i;
  }
}

TEST(LearningRateOperandTest, RejectsBadRates) {
  HostTensor p = randomTensor(DType::F32, {4}, -1, 1, 1);
  HostTensor out = zerosTensor(DType::F32, {4});
  HostTensor negative = makeTensor(DType::F32, {}, {-0.5});
  expectError(runKernel("train.sgd", {}, {&p, &p, &negative}, {&out}),
              StatusCode::InvalidArgument, "learning rate -0.5");
  HostTensor lr = makeTensor(DType::F32, {}, {0.5});
  expectError(
      runKernel("train.sgd", {{"lr", floatAttr(0.1)}}, {&p, &p, &lr}, {&out}),
      StatusCode::InvalidArgument, "both an 'lr' attribute");
  HostTensor wide = makeTensor(DType::F32, {2}, {0.5, 0.5});
  expectError(runKernel("train.sgd", {}, {&p, &p, &wide}, {&out}),
              StatusCode::InvalidArgument, "learning rate");
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

HostTensor dropout(const char *op, HostTensor &x, int64_t key, int64_t step,
                   double p, int64_t site = 0) {
  HostTensor k = makeTensor(DType::I64, {}, {static_cast<double>(key)});
  HostTensor c = makeTensor(DType::I64, {}, {static_cast<double>(step)});
  HostTensor out = zerosTensor(x.dtype, x.shape);
  EXPECT_TRUE(runKernel(op, {{"p", floatAttr(p)}, {"site", intsAttr({site})}},
                        {&x, &k, &c}, {&out})
                  .isOk());
  return out;
}

TEST(DropoutTest, KeepsOneMinusPAndScales) {
  HostTensor x = randomTensor(DType::F32, {100003}, 0.5, 2, 9);
  for (double p : {0.1, 0.5, 0.9}) {
    HostTensor y = dropout("train.dropout", x, 42, 7, p);
    float scale = static_cast<float>(1 / (1 - p));
    int64_t kept = 0;
    for (int64_t i = 0; i < x.size(); ++i) {
      if (y.at(i) == 0)
        continue;
      ++kept;
      ASSERT_EQ(y.at(i), static_cast<float>(x.at(i)) * scale) << i;
    }
    double n = x.size(), mean = n * (1 - p);
    EXPECT_NEAR(kept, mean, 5 * std::sqrt(n * p * (1 - p))) << p;
  }
  HostTensor same = dropout("train.dropout", x, 42, 7, 0.0);
  EXPECT_EQ(same.bytes, x.bytes); // p = 0: every element, times 1
}

TEST(DropoutTest, MasksDependOnKeyCounterAndSiteOnly) {
  HostTensor x = randomTensor(DType::F32, {4099}, 1, 2, 3);
  HostTensor base = dropout("train.dropout", x, 7, 11, 0.5);
  EXPECT_EQ(dropout("train.dropout", x, 7, 11, 0.5).bytes, base.bytes);
  auto differing = [&](const HostTensor &other) {
    int64_t n = 0;
    for (int64_t i = 0; i < x.size(); ++i)
      n += (base.at(i) == 0) != (other.at(i) == 0);
    return n;
  };
  // Another key, step or site: an independent mask, which differs from
  // this one in about half the positions.
  for (const HostTensor &other :
       {dropout("train.dropout", x, 8, 11, 0.5),
        dropout("train.dropout", x, 7, 12, 0.5),
        dropout("train.dropout", x, 7, 11, 0.5, 1),
        dropout("train.dropout", x, int64_t(7) + (int64_t(1) << 32), 11, 0.5),
        dropout("train.dropout", x, 7, 11 + (int64_t(1) << 32), 0.5)})
    EXPECT_NEAR(differing(other), x.size() / 2.0, 5 * std::sqrt(x.size() / 4.0));
}

TEST(DropoutTest, TheGradientAppliesTheSameMask) {
  for (DType d : floatDTypes()) {
    HostTensor x = randomTensor(d, {37, 11}, 1, 2, 4);
    HostTensor dy = randomTensor(d, {37, 11}, -1, 1, 5);
    HostTensor y = dropout("train.dropout", x, 99, 3, 0.3, 2);
    HostTensor dx = dropout("train.dropout_grad", dy, 99, 3, 0.3, 2);
    float scale = static_cast<float>(1 / 0.7);
    for (int64_t i = 0; i < x.size(); ++i) {
      bool kept = y.at(i) != 0;
      HostTensor one = zerosTensor(d, {1});
      one.set(0, kept ? static_cast<float>(dy.at(i)) * scale : 0.0);
      EXPECT_EQ(dx.at(i), one.at(0)) << i;
    }
  }
}

/// mask_shape: one draw per position of the mask, shared along its size-1
/// dimensions (SpatialDropout2D's [N, 1, 1, C], stochastic depth's
/// [N, 1, 1, 1]); the mask element is the word of its index in mask_shape,
/// so a mask_shape equal to x's is today's mask, and the gradient applies
/// the same mask.
TEST(DropoutTest, ABroadcastMaskIsSharedAlongItsOnes) {
  auto run = [](const char *op, HostTensor &x, std::vector<int64_t> mask) {
    HostTensor k = makeTensor(DType::I64, {}, {5.0});
    HostTensor c = makeTensor(DType::I64, {}, {9.0});
    HostTensor out = zerosTensor(x.dtype, x.shape);
    AttrMap attrs = {{"p", floatAttr(0.5)}, {"site", intsAttr({3})}};
    if (!mask.empty())
      attrs["mask_shape"] = intsAttr(mask);
    EXPECT_TRUE(runKernel(op, attrs, {&x, &k, &c}, {&out}).isOk());
    return out;
  };
  HostTensor x = randomTensor(DType::F32, {64, 3, 5, 8}, 1, 2, 11);
  EXPECT_EQ(run("train.dropout", x, {64, 3, 5, 8}).bytes,
            run("train.dropout", x, {}).bytes);
  // NHWC-like spatial dropout: [N, 1, 1, C]; and per sample [N, 1, 1, 1].
  for (std::vector<int64_t> mask :
       {std::vector<int64_t>{64, 1, 1, 8}, {64, 1, 1, 1}, {1, 3, 1, 1}}) {
    HostTensor y = run("train.dropout", x, mask);
    HostTensor dy = randomTensor(DType::F32, x.shape, -1, 1, 12);
    HostTensor dx = run("train.dropout_grad", dy, mask);
    // The drawn mask itself: dropout of ones over mask_shape.
    HostTensor ones = makeTensor(
        DType::F32, mask,
        Values(static_cast<size_t>(mask[0] * mask[1] * mask[2] * mask[3]), 1.0));
    HostTensor drawn = run("train.dropout", ones, {});
    int64_t kept = 0;
    for (int64_t n = 0; n < 64; ++n)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 5; ++w)
          for (int64_t ch = 0; ch < 8; ++ch) {
            int64_t i = ((n * 3 + h) * 5 + w) * 8 + ch;
            int64_t m = (((mask[0] == 1 ? 0 : n) * mask[1] +
                          (mask[1] == 1 ? 0 : h)) * mask[2] +
                         (mask[2] == 1 ? 0 : w)) * mask[3] +
                        (mask[3] == 1 ? 0 : ch);
            float scale = static_cast<float>(drawn.at(m));
            ASSERT_EQ(y.at(i), static_cast<float>(x.at(i)) * scale) << i;
            ASSERT_EQ(dx.at(i), static_cast<float>(dy.at(i)) * scale) << i;
            kept += y.at(i) != 0;
          }
    // Whole groups kept or dropped: the kept count is a multiple of the
    // group size, and about half of the groups are kept.
    int64_t group = x.size() / drawn.size();
    EXPECT_EQ(kept % group, 0);
    double groups = static_cast<double>(drawn.size());
    EXPECT_NEAR(kept / group, groups / 2, 5 * std::sqrt(groups / 4) + 1);
  }
}

TEST(DropoutTest, AMaskShapeThatDoesNotBroadcastIsAnError) {
  HostTensor x = randomTensor(DType::F32, {4, 6}, 1, 2, 13);
  HostTensor k = makeTensor(DType::I64, {}, {1.0});
  HostTensor c = makeTensor(DType::I64, {}, {1.0});
  HostTensor out = zerosTensor(x.dtype, x.shape);
  for (std::vector<int64_t> mask : {std::vector<int64_t>{4, 3}, {4}, {2, 4, 6}}) {
    Status status = runKernel("train.dropout",
                              {{"p", floatAttr(0.5)}, {"mask_shape", intsAttr(mask)}},
                              {&x, &k, &c}, {&out});
    EXPECT_FALSE(status.isOk());
    EXPECT_NE(status.message().find("mask_shape"), std::string::npos)
        << status.message();
  }
}

TEST(DropoutTest, ADroppedNaNStaysNaN) {
  HostTensor x = makeTensor(DType::F32, {64}, Values(64, NAN));
  HostTensor y = dropout("train.dropout", x, 1, 1, 0.5);
  for (int64_t i = 0; i < x.size(); ++i)
    EXPECT_TRUE(std::isnan(y.at(i))) << i;
}

} // namespace
