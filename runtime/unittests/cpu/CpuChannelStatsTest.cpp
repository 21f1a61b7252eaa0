//===- CpuChannelStatsTest.cpp - batch norm with the features last ----------===//
//
// batch_norm / batch_norm_grad on [rows, features] (NHWC images, [N, C]
// activations) go by blocks of rows (cpu/ChannelStats.h), not in the
// reference's order of additions. Tested three ways: against the reference
// within tolerances that fit f64 sums rounded once (below), the same bytes
// for 1, 2 and 3 threads, and the statistics against a long double oracle
// on data whose large mean would cancel a one-pass variance.
//
// Tolerances: the saved mean and inv_std and the running statistics are f64
// results rounded to f32, as the reference's are, so they differ from it
// by at most one f32 rounding (rtol 2^-23); y and dx inherit that one
// rounding of the statistics through their formulas and add their own
// rounding to the stored dtype: rtol of two units in the last place of the
// dtype (2^-22 f32, 2^-7 bf16, 2^-10 f16) plus an atol of the same size
// relative to the output's scale (values here are O(1)).
//
//===----------------------------------------------------------------------===//
#include "CpuKernelTestSupport.h"

#include <cmath>
#include <random>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

class CpuChannelStatsTest : public CpuKernelTest {};

double ulps2(DType dtype) {
  return dtype == DType::F32 ? std::ldexp(1.0, -22)
         : dtype == DType::BF16 ? std::ldexp(1.0, -7)
                                : std::ldexp(1.0, -10);
}

KernelDesc batchNorm(int64_t featureDim) {
  KernelDesc bn;
  bn.op = "train.batch_norm";
  bn.attrs["feature_dim"] = ints({featureDim});
  bn.attrs["epsilon"] = floats(1e-5);
  bn.attrs["momentum"] = floats(0.1);
  return bn;
}

} // namespace

/// Shapes with one block, many blocks and a short last block; [N, C]
/// activations as well as NHWC images.
TEST_F(CpuChannelStatsTest, BatchNormFeaturesLastWithinTolerance) {
  const std::vector<std::vector<int64_t>> shapes = {
      {8, 9, 10, 24}, {16, 20, 21, 48}, {4, 32, 32, 3}, {300, 130}};
  for (DType dtype : kFloatTypes)
    for (const std::vector<int64_t> &shape : shapes) {
      int64_t features = shape.back();
      int64_t featureDim = static_cast<int64_t>(shape.size()) - 1;
      std::string what = std::string(dtypeName(dtype)) + " " +
                         formatShape(shape);
      KernelDesc bn = batchNorm(featureDim);
      std::vector<Tensor> in = {
          randomTensor(dtype, shape, 50, -2, 3, false),
          randomTensor(DType::F32, {features}, 51),
          randomTensor(DType::F32, {features}, 52),
          randomTensor(DType::F32, {features}, 53),
          randomTensor(DType::F32, {features}, 54, 0.5, 2, false)};
      std::vector<Tensor> outs = {
          Tensor(dtype, shape), Tensor(DType::F32, {features}),
          Tensor(DType::F32, {features}), Tensor(DType::F32, {features}),
          Tensor(DType::F32, {features})};
      Close stats{std::ldexp(1.0, -23), 0};
      Close values{ulps2(dtype), ulps2(dtype)};
      // y against its tolerance, the f32 statistics against theirs.
      expectSame(bn, in, outs, "batch_norm y " + what, &values);
      {
        // The statistics alone: compare outputs 1-4 with the tight bound.
        std::vector<TensorView> inViews, refViews, cpuViews;
        for (Tensor &t : in)
          inViews.push_back(t.view);
        std::vector<Tensor> want = outs, got = outs;
        for (Tensor &t : want)
          refViews.push_back(t.view);
        for (Tensor &t : got)
          cpuViews.push_back(t.view);
        ASSERT_TRUE(reference->run(bn, inViews, refViews).isOk());
        ASSERT_TRUE(cpu->run(bn, inViews, cpuViews).isOk());
        for (size_t o = 1; o < outs.size(); ++o)
          for (int64_t c = 0; c < features; ++c) {
            double g = loadFloat(got[o].view, c), w = loadFloat(want[o].view, c);
            bool same = (std::isnan(g) && std::isnan(w)) || g == w;
            EXPECT_TRUE(same || std::fabs(g - w) <= stats.rtol * std::fabs(w))
                << what << " statistic " << o << " channel " << c << ": cpu "
                << g << ", reference " << w;
          }
        outs = want; // the reference's saved statistics feed the gradient
      }
      KernelDesc grad;
      grad.op = "train.batch_norm_grad";
      grad.attrs["feature_dim"] = bn.attrs["feature_dim"];
      std::vector<Tensor> gradIn = {randomTensor(dtype, shape, 55), in[0], in[1],
                                    outs[3], outs[4]};
      // dy holds inf and NaN (every 97th element), so those channels' sums
      // are NaN on both backends; the others within the tolerance. dscale
      // and doffset are sums of O(rows) terms: relative to their scale.
      Close gradValues{ulps2(dtype), ulps2(dtype)};
      expectSame(grad, gradIn,
                 {Tensor(dtype, shape), Tensor(DType::F32, {features}),
                  Tensor(DType::F32, {features})},
                 "batch_norm_grad " + what, &gradValues);
      // Finite dy: every channel's sums are numbers to compare.
      gradIn[0] = randomTensor(dtype, shape, 56, -1, 1, false);
      expectSame(grad, gradIn,
                 {Tensor(dtype, shape), Tensor(DType::F32, {features}),
                  Tensor(DType::F32, {features})},
                 "batch_norm_grad finite dy " + what, &gradValues);
    }
}

/// x = 4096 + noise of standard deviation ~0.03 in f32 over 60000 rows: a
/// one-pass variance in f64 (E[x^2] - mean^2) loses about 10 of f64's 16
/// digits to cancellation here; the blocks' two-pass sums combined with
/// Chan's update keep inv_std within an f32 rounding of the long double
/// two-pass value, as they keep the mean.
TEST_F(CpuChannelStatsTest, BatchNormStatisticsSurviveALargeMean) {
  const int64_t rows = 60000, features = 16;
  Tensor x(DType::F32, {rows, features});
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.03f);
  for (int64_t i = 0; i < rows * features; ++i)
    storeFloat(x.view, i, 4096.0f + noise(rng) * (1 + (i % features)));
  std::vector<Tensor> in = {x, randomTensor(DType::F32, {features}, 1, 0.5, 2, false),
                            randomTensor(DType::F32, {features}, 2),
                            randomTensor(DType::F32, {features}, 3),
                            randomTensor(DType::F32, {features}, 4, 0.5, 2, false)};
  std::vector<Tensor> outs = {Tensor(DType::F32, {rows, features}),
                              Tensor(DType::F32, {features}),
                              Tensor(DType::F32, {features}),
                              Tensor(DType::F32, {features}),
                              Tensor(DType::F32, {features})};
  std::vector<TensorView> inViews, outViews;
  for (Tensor &t : in)
    inViews.push_back(t.view);
  for (Tensor &t : outs)
    outViews.push_back(t.view);
  for (int threads : {1, 2}) {
    setCpuThreads(threads);
    ASSERT_TRUE(cpu->run(batchNorm(1), inViews, outViews).isOk());
    for (int64_t c = 0; c < features; ++c) {
      long double sum = 0, squares = 0;
      for (int64_t r = 0; r < rows; ++r)
        sum += loadFloat(x.view, r * features + c);
      long double mean = sum / rows;
      for (int64_t r = 0; r < rows; ++r) {
        long double d = loadFloat(x.view, r * features + c) - mean;
        squares += d * d;
      }
      long double invStd = 1 / std::sqrt(squares / rows + 1e-5L);
      double gotMean = loadFloat(outs[3].view, c);
      double gotInv = loadFloat(outs[4].view, c);
      EXPECT_LE(std::fabs(gotMean - static_cast<double>(mean)),
                std::ldexp(1.0, -23) * static_cast<double>(mean))
          << "channel " << c;
      EXPECT_LE(std::fabs(gotInv - static_cast<double>(invStd)),
                std::ldexp(1.0, -23) * static_cast<double>(invStd))
          << "channel " << c << ": inv_std " << gotInv << ", exact "
          << static_cast<double>(invStd);
    }
  }
}

/// A fused activation (Backend::FusedKernel::kRelu / kReluGrad, the
/// plan's kFusedActivationKernel): batch_norm writing relu(y) in its own pass,
/// and batch_norm_grad reading relu_grad(g, r) as it reads its gradient,
/// give what the kernels give one by one on the same backend: the same
/// statistics and gradients bit for bit (the masked gradient is exact in
/// every dtype), and the same ReLU values (bit for bit but for the sign of
/// a zero: relu before the rounding gives +0 where an f16 rounding of a
/// tiny negative y gives -0 that relu keeps), for 1, 2 and 3 threads, with
/// inf and NaN in g; y itself is not written.
TEST_F(CpuChannelStatsTest, FusedReluIsTheKernelsOneByOne) {
  const std::vector<std::vector<int64_t>> shapes = {{8, 9, 10, 24},
                                                    {300, 130}};
  auto views = [](std::vector<Tensor> &ts) {
    std::vector<TensorView> v;
    for (Tensor &t : ts)
      v.push_back(t.view);
    return v;
  };
  auto sameValues = [](const Tensor &got, const Tensor &want,
                       const std::string &what) {
    ASSERT_EQ(got.bytes.size(), want.bytes.size());
    for (int64_t i = 0; i < got.view.numElements(); ++i) {
      float g = loadFloat(got.view, i), w = loadFloat(want.view, i);
      ASSERT_TRUE((std::isnan(g) && std::isnan(w)) || g == w)
          << what << " element " << i << ": fused " << g << ", one by one "
          << w;
    }
  };
  for (DType dtype : kFloatTypes)
    for (const std::vector<int64_t> &shape : shapes) {
      int64_t features = shape.back();
      std::string what = std::string(dtypeName(dtype)) + " " +
                         formatShape(shape);
      KernelDesc bn = batchNorm(static_cast<int64_t>(shape.size()) - 1);
      KernelDesc relu, reluGrad, grad;
      relu.op = "train.relu";
      reluGrad.op = "train.relu_grad";
      grad.op = "train.batch_norm_grad";
      grad.attrs["feature_dim"] = bn.attrs["feature_dim"];
      std::vector<Tensor> in = {
          randomTensor(dtype, shape, 60, -2, 3, false),
          randomTensor(DType::F32, {features}, 61),
          randomTensor(DType::F32, {features}, 62),
          randomTensor(DType::F32, {features}, 63),
          randomTensor(DType::F32, {features}, 64, 0.5, 2, false)};
      auto outputs = [&] {
        return std::vector<Tensor>{
            Tensor(dtype, shape), Tensor(DType::F32, {features}),
            Tensor(DType::F32, {features}), Tensor(DType::F32, {features}),
            Tensor(DType::F32, {features})};
      };
      // One by one: batch_norm, relu, relu_grad, batch_norm_grad.
      std::vector<Tensor> want = outputs();
      std::vector<TensorView> inV = views(in), wantV = views(want);
      ASSERT_TRUE(cpu->run(bn, inV, wantV).isOk());
      Tensor wantR(dtype, shape);
      ASSERT_TRUE(cpu->run(relu, {wantV[0]}, {wantR.view}).isOk());
      Tensor g = randomTensor(dtype, shape, 65); // inf and NaN among them
      Tensor dy(dtype, shape);
      ASSERT_TRUE(
          cpu->run(reluGrad, {g.view, wantR.view}, {dy.view}).isOk());
      std::vector<Tensor> gradIn = {dy, in[0], in[1], want[3], want[4]};
      std::vector<Tensor> wantGrad = {Tensor(dtype, shape),
                                      Tensor(DType::F32, {features}),
                                      Tensor(DType::F32, {features})};
      std::vector<TensorView> gradInV = views(gradIn),
                              wantGradV = views(wantGrad);
      ASSERT_TRUE(cpu->run(grad, gradInV, wantGradV).isOk());
      for (int threads : {1, 2, 3}) {
        setCpuThreads(threads);
        std::string at = what + ", " + std::to_string(threads) + " threads";
        std::vector<Tensor> got = outputs();
        std::vector<TensorView> gotV = views(got);
        std::vector<uint8_t> untouched = got[0].bytes;
        Tensor gotR(dtype, shape);
        Backend::FusedKernel forward;
        forward.kernel = &bn;
        forward.relu = &relu;
        Backend::FusedViews forwardParts;
        forwardParts.reluOut = &gotR.view;
        ASSERT_EQ(cpu->fuses(forward, inV, gotV, forwardParts),
                  Backend::FusedKernel::kRelu)
            << at;
        Status status = cpu->runWith(forward, inV, gotV, forwardParts);
        ASSERT_TRUE(status.isOk()) << at << ": " << status.message();
        // The fused pass, not the kernels one by one (which would pass too).
        EXPECT_EQ(cpu->implementationOf(bn),
                  "own loop over channels, the ReLU applied as it writes");
        sameValues(gotR, wantR, "relu(batch_norm) " + at);
        EXPECT_EQ(got[0].bytes, untouched) << "y written, " << at;
        for (size_t o = 1; o < got.size(); ++o)
          EXPECT_EQ(got[o].bytes, want[o].bytes) << "statistic " << o << ", "
                                                 << at;
        // The fused gradient: input #0 is not read (garbage here).
        std::vector<Tensor> fusedIn = gradIn;
        fusedIn[0] = randomTensor(dtype, shape, 66);
        std::vector<TensorView> fusedInV = views(fusedIn);
        std::vector<TensorView> reluGradIn = {g.view, wantR.view};
        std::vector<Tensor> gotGrad = {Tensor(dtype, shape),
                                       Tensor(DType::F32, {features}),
                                       Tensor(DType::F32, {features})};
        std::vector<TensorView> gotGradV = views(gotGrad);
        Backend::FusedKernel backward;
        backward.kernel = &grad;
        backward.reluGrad = &reluGrad;
        Backend::FusedViews backwardParts;
        backwardParts.reluGradIn = &reluGradIn;
        ASSERT_EQ(cpu->fuses(backward, fusedInV, gotGradV, backwardParts),
                  Backend::FusedKernel::kReluGrad)
            << at;
        status = cpu->runWith(backward, fusedInV, gotGradV, backwardParts);
        ASSERT_TRUE(status.isOk()) << at << ": " << status.message();
        EXPECT_EQ(cpu->implementationOf(grad), "own loop over channels, the "
                                               "ReLU's mask applied as it reads");
        for (size_t o = 0; o < gotGrad.size(); ++o)
          EXPECT_EQ(gotGrad[o].bytes, wantGrad[o].bytes)
              << "batch_norm_grad output " << o << ", " << at;
      }
      setCpuThreads(0);
    }
}
