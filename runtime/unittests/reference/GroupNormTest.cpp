//===- GroupNormTest.cpp - group_norm and group_norm_grad -----------------===//
//
// The forward pass against its float64 definition (PyTorch's nn.GroupNorm,
// Keras' GroupNormalization) in every float dtype, channels second and
// channels last; the gradients against central differences of the f32
// forward kernel (a random linear functional of y); the errors.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

/// A layout: x's shape, where its channels are, how many groups.
struct Layout {
  Shape shape;
  int64_t featureDim, groups;
};
const Layout kLayouts[] = {{{2, 6, 3, 5}, 1, 3}, // NCHW, 2 channels a group
                           {{2, 3, 5, 6}, 3, 2}, // NHWC, 3 channels a group
                           {{3, 4, 7}, 1, 4}};   // instance norm over [N, C, L]

/// Group of each element of a sample (channel / channels-per-group).
int64_t groupOf(const Layout &l, int64_t element) {
  int64_t after = 1;
  for (size_t d = l.featureDim + 1; d < l.shape.size(); ++d)
    after *= l.shape[d];
  int64_t channel = (element / after) % l.shape[l.featureDim];
  return channel / (l.shape[l.featureDim] / l.groups);
}
int64_t channelOf(const Layout &l, int64_t element) {
  int64_t after = 1;
  for (size_t d = l.featureDim + 1; d < l.shape.size(); ++d)
    after *= l.shape[d];
  return (element / after) % l.shape[l.featureDim];
}

AttrMap attrsOf(const Layout &l) {
  return {{"groups", intsAttr({l.groups})},
          {"feature_dim", intsAttr({l.featureDim})},
          {"epsilon", floatAttr(1e-5)}};
}

class GroupNormTest : public ::testing::TestWithParam<DType> {};

TEST_P(GroupNormTest, MatchesFloat64) {
  DType d = GetParam();
  for (const Layout &l : kLayouts) {
    int64_t c = l.shape[l.featureDim], n = l.shape[0];
    HostTensor x = randomTensor(d, l.shape, -3, 5, 7);
    HostTensor scale = randomTensor(DType::F32, {c}, 0.5, 1.5, 8);
    HostTensor offset = randomTensor(DType::F32, {c}, -1, 1, 9);
    HostTensor y = zerosTensor(d, l.shape);
    HostTensor mean = zerosTensor(DType::F32, {n, l.groups});
    HostTensor inv = zerosTensor(DType::F32, {n, l.groups});
    ASSERT_OK(runKernel("train.group_norm", attrsOf(l), {&x, &scale, &offset},
                        {&y, &mean, &inv}));
    int64_t sample = x.size() / n;
    Values want(x.size()), wantMean(n * l.groups, 0), wantInv(n * l.groups, 0);
    Values count(n * l.groups, 0);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t s = i / sample * l.groups + groupOf(l, i % sample);
      wantMean[s] += x.at(i);
      count[s] += 1;
    }
    for (int64_t s = 0; s < n * l.groups; ++s)
      wantMean[s] /= count[s];
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t s = i / sample * l.groups + groupOf(l, i % sample);
      wantInv[s] += (x.at(i) - wantMean[s]) * (x.at(i) - wantMean[s]);
    }
    for (int64_t s = 0; s < n * l.groups; ++s)
      wantInv[s] = 1 / std::sqrt(wantInv[s] / count[s] + 1e-5);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t s = i / sample * l.groups + groupOf(l, i % sample);
      int64_t ch = channelOf(l, i % sample);
      want[i] = (x.at(i) - wantMean[s]) * wantInv[s] * scale.at(ch) +
                offset.at(ch);
    }
    expectNear(y, want, elementwiseTolerance(d), "y");
    expectNear(mean, wantMean, elementwiseTolerance(DType::F32), "mean");
    expectNear(inv, wantInv, elementwiseTolerance(DType::F32), "inv_std");
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, GroupNormTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

TEST(GroupNormGradTest, AgreesWithFiniteDifferences) {
  for (const Layout &l : kLayouts) {
    int64_t c = l.shape[l.featureDim], n = l.shape[0];
    HostTensor x = randomTensor(DType::F32, l.shape, -2, 2, 3);
    HostTensor scale = randomTensor(DType::F32, {c}, 0.5, 1.5, 4);
    HostTensor offset = randomTensor(DType::F32, {c}, -1, 1, 5);
    HostTensor w = randomTensor(DType::F32, l.shape, -1, 1, 6);
    HostTensor y = zerosTensor(DType::F32, l.shape);
    HostTensor mean = zerosTensor(DType::F32, {n, l.groups});
    HostTensor inv = zerosTensor(DType::F32, {n, l.groups});
    auto loss = [&] {
      EXPECT_TRUE(runKernel("train.group_norm", attrsOf(l),
                            {&x, &scale, &offset}, {&y, &mean, &inv})
                      .isOk());
      return dot(y, w);
    };
    Values numericX = numericGradient(x, loss);
    Values numericScale = numericGradient(scale, loss);
    Values numericOffset = numericGradient(offset, loss);
    loss(); // the statistics of the unperturbed x
    HostTensor dx = zerosTensor(DType::F32, l.shape);
    HostTensor dscale = zerosTensor(DType::F32, {c});
    HostTensor doffset = zerosTensor(DType::F32, {c});
    AttrMap attrs = attrsOf(l);
    attrs.erase("epsilon");
    ASSERT_OK(runKernel("train.group_norm_grad", attrs,
                        {&w, &x, &scale, &mean, &inv}, {&dx, &dscale, &doffset}));
    expectNear(dx, numericX, finiteDifferenceTolerance(), "grad_x");
    expectNear(dscale, numericScale, finiteDifferenceTolerance(), "grad_scale");
    expectNear(doffset, numericOffset, finiteDifferenceTolerance(),
               "grad_offset");
  }
}

TEST(GroupNormErrorsTest, NamesTheProblem) {
  HostTensor x = randomTensor(DType::F32, {2, 6, 4}, -1, 1, 1);
  HostTensor scale = randomTensor(DType::F32, {6}, 0.5, 1.5, 2);
  HostTensor y = zerosTensor(DType::F32, {2, 6, 4});
  HostTensor mean = zerosTensor(DType::F32, {2, 4}), inv = mean;
  expectError(runKernel("train.group_norm", {{"groups", intsAttr({4})}},
                        {&x, &scale, &scale}, {&y, &mean, &inv}),
              StatusCode::InvalidArgument, "cannot split 6 channels into 4 groups");
  expectError(runKernel("train.group_norm", {{"groups", intsAttr({3})}},
                        {&x, &scale, &scale}, {&y, &mean, &inv}),
              StatusCode::InvalidArgument, "mean of shape [2, 3]");
  expectError(runKernel("train.group_norm",
                        {{"groups", intsAttr({2})}, {"feature_dim", intsAttr({0})}},
                        {&x, &scale, &scale}, {&y, &mean, &inv}),
              StatusCode::InvalidArgument, "feature_dim in [1, rank)");
}

} // namespace
