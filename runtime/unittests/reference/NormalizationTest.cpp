//===- NormalizationTest.cpp - batch_norm, layer_norm and their grads -----===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class NormalizationTest : public ::testing::TestWithParam<DType> {};

/// x as [outer, features, inner] around `dim`.
struct Split {
  int64_t outer = 1, features = 1, inner = 1;
  Split(const Shape &shape, int64_t dim) {
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      (d < dim ? outer : d == dim ? features : inner) *= shape[d];
  }
  int64_t at(int64_t o, int64_t c, int64_t i) const {
    return (o * features + c) * inner + i;
  }
};

struct BatchNormReference {
  Values y, runMean, runVar, mean, invStd;
};
BatchNormReference
referenceBatchNorm(const HostTensor &x, int64_t dim, const HostTensor &scale,
                   const HostTensor &offset, const HostTensor &runMean,
                   const HostTensor &runVar, double eps, double momentum) {
  Split s(x.shape, dim);
  BatchNormReference r;
  r.y.assign(x.size(), 0);
  double n = double(s.outer * s.inner);
  for (int64_t c = 0; c < s.features; ++c) {
    double sum = 0, squares = 0;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i)
        sum += x.at(s.at(o, c, i));
    double mean = sum / n;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i)
        squares += std::pow(x.at(s.at(o, c, i)) - mean, 2);
    double var = squares / n, invStd = 1 / std::sqrt(var + eps);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i)
        r.y[s.at(o, c, i)] =
            (x.at(s.at(o, c, i)) - mean) * invStd * scale.at(c) + offset.at(c);
    r.runMean.push_back((1 - momentum) * runMean.at(c) + momentum * mean);
    r.runVar.push_back((1 - momentum) * runVar.at(c) +
                       momentum * squares / (n - 1));
    r.mean.push_back(mean);
    r.invStd.push_back(invStd);
  }
  return r;
}

/// The training-mode batch-norm backward pass, from the saved statistics.
void referenceBatchNormGrad(const HostTensor &dy, const HostTensor &x,
                            int64_t dim, const HostTensor &scale,
                            const HostTensor &mean, const HostTensor &invStd,
                            Values &dx, Values &dscale, Values &doffset) {
  Split s(x.shape, dim);
  double n = double(s.outer * s.inner);
  dx.assign(x.size(), 0);
  dscale.assign(s.features, 0);
  doffset.assign(s.features, 0);
  for (int64_t c = 0; c < s.features; ++c) {
    auto xhat = [&](int64_t e) {
      return (x.at(e) - mean.at(c)) * invStd.at(c);
    };
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t e = s.at(o, c, i);
        doffset[c] += dy.at(e);
        dscale[c] += dy.at(e) * xhat(e);
      }
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t e = s.at(o, c, i);
        dx[e] = scale.at(c) * invStd.at(c) *
                (dy.at(e) - doffset[c] / n - xhat(e) * dscale[c] / n);
      }
  }
}

AttrMap batchNormAttrs(int64_t dim) {
  return {{"epsilon", floatAttr(1e-3)},
          {"momentum", floatAttr(0.1)},
          {"feature_dim", intsAttr({dim})}};
}
} // namespace

TEST_P(NormalizationTest, BatchNormMatchesDoubleReference) {
  DType dtype = GetParam();
  const std::pair<Shape, int64_t> cases[] = {
      {{4, 3, 2, 5}, 1}, {{6, 4}, -1}, {{2, 3, 4, 5}, 3}};
  unsigned seed = 1;
  for (const auto &[shape, featureDim] : cases) {
    int64_t dim =
        featureDim < 0 ? featureDim + int64_t(shape.size()) : featureDim;
    int64_t features = shape[dim];
    // Statistics stay f32 under the precision policies, but any float
    // dtype is allowed: try both.
    for (DType stats : {DType::F32, dtype}) {
      HostTensor x = randomTensor(dtype, shape, -1, 3, seed++);
      HostTensor scale = randomTensor(stats, {features}, 0.5, 2, seed++);
      HostTensor offset = randomTensor(stats, {features}, -1, 1, seed++);
      HostTensor runMean = randomTensor(stats, {features}, -1, 1, seed++);
      HostTensor runVar = randomTensor(stats, {features}, 0.5, 2, seed++);
      HostTensor y(dtype, shape), newMean(stats, {features}),
          newVar(stats, {features}), mean(stats, {features}),
          invStd(stats, {features});
      ASSERT_OK(runKernel("train.batch_norm", batchNormAttrs(featureDim),
                          {&x, &scale, &offset, &runMean, &runVar},
                          {&y, &newMean, &newVar, &mean, &invStd}));
      BatchNormReference want =
          referenceBatchNorm(x, dim, scale, offset, runMean, runVar, 1e-3, 0.1);
      std::string name = "batch_norm " + formatShape(shape);
      expectNear(y, want.y, accumulateTolerance(dtype), name + " y");
      expectNear(newMean, want.runMean, accumulateTolerance(stats),
                 name + " running mean");
      expectNear(newVar, want.runVar, accumulateTolerance(stats),
                 name + " running var (unbiased)");
      expectNear(mean, want.mean, accumulateTolerance(stats), name + " mean");
      expectNear(invStd, want.invStd, accumulateTolerance(stats),
                 name + " inv_std");

      HostTensor dy = randomTensor(dtype, shape, -1, 1, seed++);
      HostTensor dx(dtype, shape), dscale(stats, {features}),
          doffset(stats, {features});
      ASSERT_OK(runKernel(
          "train.batch_norm_grad", {{"feature_dim", intsAttr({featureDim})}},
          {&dy, &x, &scale, &mean, &invStd}, {&dx, &dscale, &doffset}));
      Values wantDx, wantDscale, wantDoffset;
      referenceBatchNormGrad(dy, x, dim, scale, mean, invStd, wantDx,
                             wantDscale, wantDoffset);
      expectNear(dx, wantDx, accumulateTolerance(dtype), name + " grad_x");
      expectNear(dscale, wantDscale, accumulateTolerance(stats),
                 name + " grad_scale");
      expectNear(doffset, wantDoffset, accumulateTolerance(stats),
                 name + " grad_offset");
    }
  }
}

TEST(Normalization, BatchNormGradMatchesFiniteDifferences) {
  Shape shape{3, 2, 2, 3};
  HostTensor x = randomTensor(DType::F32, shape, -1, 2, 50);
  HostTensor scale = randomTensor(DType::F32, {2}, 0.5, 2, 51);
  HostTensor offset = randomTensor(DType::F32, {2}, -1, 1, 52);
  HostTensor runMean(DType::F32, {2}), runVar(DType::F32, {2});
  HostTensor w = randomTensor(DType::F32, shape, -1, 1, 53);
  HostTensor mean(DType::F32, {2}), invStd(DType::F32, {2});
  auto loss = [&] {
    HostTensor y(DType::F32, shape), m(DType::F32, {2}), v(DType::F32, {2});
    EXPECT_TRUE(runKernel("train.batch_norm", batchNormAttrs(1),
                          {&x, &scale, &offset, &runMean, &runVar},
                          {&y, &m, &v, &mean, &invStd})
                    .isOk());
    return dot(y, w);
  };
  Values numericX = numericGradient(x, loss);
  Values numericScale = numericGradient(scale, loss);
  Values numericOffset = numericGradient(offset, loss);
  loss(); // leaves the saved statistics of the unperturbed x
  HostTensor dx(DType::F32, shape), dscale(DType::F32, {2}),
      doffset(DType::F32, {2});
  ASSERT_OK(runKernel("train.batch_norm_grad", {{"feature_dim", intsAttr({1})}},
                      {&w, &x, &scale, &mean, &invStd},
                      {&dx, &dscale, &doffset}));
  expectNear(dx, numericX, finiteDifferenceTolerance(), "d bn / d x");
  expectNear(dscale, numericScale, finiteDifferenceTolerance(),
             "d bn / d scale");
  expectNear(doffset, numericOffset, finiteDifferenceTolerance(),
             "d bn / d offset");
}

TEST(Normalization, BatchNormNeedsTwoValuesPerFeature) {
  HostTensor x(DType::F32, {1, 3}), p(DType::F32, {3}), y(DType::F32, {1, 3});
  expectError(checkKernel("train.batch_norm", batchNormAttrs(1),
                          {&x, &p, &p, &p, &p}, {&y, &p, &p, &p, &p}),
              StatusCode::InvalidArgument, "more than one value per feature");
  HostTensor bad(DType::BF16, {3}), x2(DType::F32, {2, 3}),
      y2(DType::F32, {2, 3});
  expectError(checkKernel("train.batch_norm", batchNormAttrs(1),
                          {&x2, &p, &bad, &p, &p}, {&y2, &p, &p, &p, &p}),
              StatusCode::Unimplemented, "scale and offset of the same dtype");
}

namespace {
struct LayerNormReference {
  Values y, mean, invStd, dx, dscale, doffset;
};
/// Forward from x; backward from the given (saved) statistics.
LayerNormReference
referenceLayerNorm(const HostTensor &x, int64_t rows, const HostTensor &scale,
                   const HostTensor &offset, double eps, const HostTensor &dy,
                   const HostTensor &savedMean, const HostTensor &savedInvStd) {
  int64_t d = x.size() / rows;
  LayerNormReference r;
  r.dscale.assign(d, 0);
  r.doffset.assign(d, 0);
  for (int64_t row = 0; row < rows; ++row) {
    double sum = 0, squares = 0;
    for (int64_t j = 0; j < d; ++j)
      sum += x.at(row * d + j);
    double mean = sum / d;
    for (int64_t j = 0; j < d; ++j)
      squares += std::pow(x.at(row * d + j) - mean, 2);
    double invStd = 1 / std::sqrt(squares / d + eps);
    for (int64_t j = 0; j < d; ++j)
      r.y.push_back((x.at(row * d + j) - mean) * invStd * scale.at(j) +
                    offset.at(j));
    r.mean.push_back(mean);
    r.invStd.push_back(invStd);
    // Backward with the saved statistics.
    double m = savedMean.at(row), s = savedInvStd.at(row);
    double sumG = 0, sumGXhat = 0;
    for (int64_t j = 0; j < d; ++j) {
      double xhat = (x.at(row * d + j) - m) * s;
      double g = dy.at(row * d + j) * scale.at(j);
      sumG += g;
      sumGXhat += g * xhat;
      r.dscale[j] += dy.at(row * d + j) * xhat;
      r.doffset[j] += dy.at(row * d + j);
    }
    for (int64_t j = 0; j < d; ++j) {
      double xhat = (x.at(row * d + j) - m) * s;
      double g = dy.at(row * d + j) * scale.at(j);
      r.dx.push_back(s * (g - sumG / d - xhat * sumGXhat / d));
    }
  }
  return r;
}
} // namespace

TEST_P(NormalizationTest, LayerNormMatchesDoubleReference) {
  DType dtype = GetParam();
  Shape shape{3, 4, 5};
  unsigned seed = 60;
  for (int64_t axis : {-1, 1, 2}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    Shape normalized(shape.begin() + a, shape.end());
    Shape rowsShape(shape.begin(), shape.begin() + a);
    int64_t rows = 1;
    for (int64_t r : rowsShape)
      rows *= r;
    for (DType params : {DType::F32, dtype}) {
      HostTensor x = randomTensor(dtype, shape, -1, 3, seed++);
      HostTensor scale = randomTensor(params, normalized, 0.5, 2, seed++);
      HostTensor offset = randomTensor(params, normalized, -1, 1, seed++);
      HostTensor y(dtype, shape), mean(DType::F32, rowsShape),
          invStd(DType::F32, rowsShape);
      AttrMap attrs = {{"axis", intsAttr({axis})},
                       {"epsilon", floatAttr(1e-5)}};
      ASSERT_OK(runKernel("train.layer_norm", attrs, {&x, &scale, &offset},
                          {&y, &mean, &invStd}));
      HostTensor dy = randomTensor(dtype, shape, -1, 1, seed++);
      LayerNormReference want =
          referenceLayerNorm(x, rows, scale, offset, 1e-5, dy, mean, invStd);
      std::string name = "layer_norm axis " + std::to_string(axis);
      expectNear(y, want.y, accumulateTolerance(dtype), name + " y");
      expectNear(mean, want.mean, accumulateTolerance(DType::F32),
                 name + " mean");
      expectNear(invStd, want.invStd, accumulateTolerance(DType::F32),
                 name + " inv_std");

      HostTensor dx(dtype, shape), dscale(params, normalized),
          doffset(params, normalized);
      ASSERT_OK(runKernel("train.layer_norm_grad", {{"axis", intsAttr({axis})}},
                          {&dy, &x, &scale, &mean, &invStd},
                          {&dx, &dscale, &doffset}));
      expectNear(dx, want.dx, accumulateTolerance(dtype), name + " grad_x");
      expectNear(dscale, want.dscale, accumulateTolerance(params),
                 name + " grad_scale");
      expectNear(doffset, want.doffset, accumulateTolerance(params),
                 name + " grad_offset");
    }
  }
}

TEST(Normalization, LayerNormGradMatchesFiniteDifferences) {
  Shape shape{3, 6};
  HostTensor x = randomTensor(DType::F32, shape, -1, 2, 70);
  HostTensor scale = randomTensor(DType::F32, {6}, 0.5, 2, 71);
  HostTensor offset = randomTensor(DType::F32, {6}, -1, 1, 72);
  HostTensor w = randomTensor(DType::F32, shape, -1, 1, 73);
  HostTensor mean(DType::F32, {3}), invStd(DType::F32, {3});
  AttrMap attrs = {{"axis", intsAttr({-1})}, {"epsilon", floatAttr(1e-5)}};
  auto loss = [&] {
    HostTensor y(DType::F32, shape);
    EXPECT_TRUE(runKernel("train.layer_norm", attrs, {&x, &scale, &offset},
                          {&y, &mean, &invStd})
                    .isOk());
    return dot(y, w);
  };
  Values numericX = numericGradient(x, loss);
  Values numericScale = numericGradient(scale, loss);
  Values numericOffset = numericGradient(offset, loss);
  loss();
  HostTensor dx(DType::F32, shape), dscale(DType::F32, {6}),
      doffset(DType::F32, {6});
  ASSERT_OK(runKernel("train.layer_norm_grad", {{"axis", intsAttr({-1})}},
                      {&w, &x, &scale, &mean, &invStd},
                      {&dx, &dscale, &doffset}));
  expectNear(dx, numericX, finiteDifferenceTolerance(), "d ln / d x");
  expectNear(dscale, numericScale, finiteDifferenceTolerance(),
             "d ln / d scale");
  expectNear(doffset, numericOffset, finiteDifferenceTolerance(),
             "d ln / d offset");
}

TEST(Normalization, LayerNormChecksShapes) {
  HostTensor x(DType::F32, {3, 4}), scale(DType::F32, {3}),
      offset(DType::F32, {3}), y(DType::F32, {3, 4}), m(DType::F32, {3});
  expectError(checkKernel("train.layer_norm", {{"axis", intsAttr({-1})}},
                          {&x, &scale, &offset}, {&y, &m, &m}),
              StatusCode::InvalidArgument, "scale of shape [4]");
  expectError(checkKernel("train.layer_norm", {{"axis", intsAttr({2})}},
                          {&x, &scale, &offset}, {&y, &m, &m}),
              StatusCode::InvalidArgument, "axis 2 is out of range");
}

INSTANTIATE_TEST_SUITE_P(DTypes, NormalizationTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
