//===- AccuracyTest.cpp - reductions against float64 at realistic sizes ---===//
//
// Batch norm (forward and backward) over 64x64x56x56 and 32x64x112x112 NCHW
// activations and a channels-last one, layer norm over rows of 4096,
// reduce_sum / reduce_mean over 10^7 elements, global average pooling and
// the cross-entropy loss over 8192 rows: every backend here (reference,
// cpu where oneDNN loads) against the same computation in double from the
// same f32 inputs. Each result is measured as max |got - exact| / max
// |exact| and must be <= 2e-6: the issue asked for 1e-5 (PyTorch's float32
// batch norm, which sums in double, reaches ~1e-6), f64 sums give 0.3-4e-7
// (the last rounding of y and grad_x), and the sums accumulated one f32 at
// a time that the kernels had before miss 2e-6 on every op here but the
// cross-entropy: batch norm by 1e-5 to 1.5e-4, reduce_sum by 6e-5, layer
// norm by 3e-6, global pooling by 6e-6 (measured on that code). The data
// have a mean far from zero, which is what makes sequential f32 sums
// fail. The measured errors are printed (docs/runtime-reference.md).
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

constexpr double kBound = 2e-6;

/// An f32 tensor owning its values.
struct F32 {
  std::vector<float> data;
  TensorView view;
  explicit F32(std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    data.assign(static_cast<size_t>(n), 0.0f);
    view = {DType::F32, std::move(shape), data.data()};
  }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// Normal values with mean `mean` and deviation `sd`, seeded.
F32 normal(std::vector<int64_t> shape, double mean, double sd, unsigned seed) {
  F32 t(std::move(shape));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(mean, sd);
  for (float &v : t.data)
    v = static_cast<float>(dist(rng));
  return t;
}

Attr ints(std::vector<int64_t> v) {
  Attr a;
  a.ints = std::move(v);
  return a;
}
Attr real(double v) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = {v};
  return a;
}

/// The backends to measure: the reference always, the cpu one where it
/// loads.
std::vector<std::unique_ptr<Backend>> backends() {
  std::vector<std::unique_ptr<Backend>> out;
  out.push_back(createReferenceBackend());
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  if (cpu.isOk())
    out.push_back(std::move(cpu.value()));
  return out;
}

/// Tracks max |got - exact| and max |exact| over one result.
struct ErrorOf {
  double err = 0, scale = 0;
  void add(double got, double exact) {
    err = std::max(err, std::fabs(got - exact));
    scale = std::max(scale, std::fabs(exact));
  }
  double relative() const { return scale > 0 ? err / scale : err; }
};

void expectAccurate(const std::string &what, const ErrorOf &e) {
  std::printf("  %-52s %.2e\n", what.c_str(), e.relative());
  EXPECT_LE(e.relative(), kBound) << what;
}

void run(Backend &backend, KernelDesc kernel, std::vector<TensorView> in,
         std::vector<TensorView> out) {
  for (uint32_t i = 0; i < in.size(); ++i)
    kernel.inputs.push_back(i);
  for (uint32_t i = 0; i < out.size(); ++i)
    kernel.outputs.push_back(static_cast<uint32_t>(in.size()) + i);
  Status status = backend.run(kernel, in, out);
  ASSERT_TRUE(status.isOk()) << status.message();
}

/// batch_norm then batch_norm_grad on x of `shape` with the features at
/// `dim`, on `backend`, against double.
void batchNormCase(Backend &backend, const std::vector<int64_t> &shape,
                   int64_t dim) {
  int64_t outer = 1, features = shape[dim], inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  auto at = [&](int64_t o, int64_t c, int64_t i) {
    return (o * features + c) * inner + i;
  };
  F32 x = normal(shape, 2.0, 1.0, 1), dy = normal(shape, 0.01, 1.0, 2);
  F32 scale = normal({features}, 1.0, 0.1, 3),
      offset = normal({features}, 0.0, 0.1, 4);
  F32 runMean({features}), runVar({features});
  std::fill(runVar.data.begin(), runVar.data.end(), 1.0f);
  F32 y(shape), newMean({features}), newVar({features}), mean({features}),
      invStd({features});
  KernelDesc bn;
  bn.op = "train.batch_norm";
  bn.attrs["feature_dim"] = ints({dim});
  bn.attrs["epsilon"] = real(1e-5);
  bn.attrs["momentum"] = real(0.1);
  run(backend, bn, {x.view, scale.view, offset.view, runMean.view, runVar.view},
      {y.view, newMean.view, newVar.view, mean.view, invStd.view});
  F32 dx(shape), dscale({features}), doffset({features});
  KernelDesc grad;
  grad.op = "train.batch_norm_grad";
  grad.attrs["feature_dim"] = ints({dim});
  run(backend, grad, {dy.view, x.view, scale.view, mean.view, invStd.view},
      {dx.view, dscale.view, doffset.view});

  ErrorOf eMean, eInvStd, eY, eScale, eOffset, eDx;
  double n = static_cast<double>(outer * inner);
  for (int64_t c = 0; c < features; ++c) {
    double sum = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        sum += x.data[at(o, c, i)];
    double m = sum / n, squares = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        squares += std::pow(x.data[at(o, c, i)] - m, 2);
    double s = 1 / std::sqrt(squares / n + 1e-5);
    eMean.add(mean.data[c], m);
    eInvStd.add(invStd.data[c], s);
    // The gradient of the exact statistics' normalization.
    double sumDy = 0, sumDyXhat = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t e = at(o, c, i);
        sumDy += dy.data[e];
        sumDyXhat += dy.data[e] * (x.data[e] - m) * s;
      }
    eScale.add(dscale.data[c], sumDyXhat);
    eOffset.add(doffset.data[c], sumDy);
    double a = scale.data[c] * s;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t e = at(o, c, i);
        double xhat = (x.data[e] - m) * s;
        eY.add(y.data[e], xhat * scale.data[c] + offset.data[c]);
        eDx.add(dx.data[e], a * (dy.data[e] - sumDy / n - xhat * sumDyXhat / n));
      }
  }
  std::string name = std::string(backend.name()) + " batch_norm " +
                     formatShape(shape) + (dim == 1 ? "" : " (features last)");
  expectAccurate(name + " mean", eMean);
  expectAccurate(name + " inv_std", eInvStd);
  expectAccurate(name + " y", eY);
  expectAccurate(name + " grad_scale", eScale);
  expectAccurate(name + " grad_offset", eOffset);
  expectAccurate(name + " grad_x", eDx);
}

TEST(AccuracyTest, BatchNormMatchesFloat64AtRealisticSizes) {
  for (auto &backend : backends()) {
    batchNormCase(*backend, {64, 64, 56, 56}, 1);
    batchNormCase(*backend, {32, 64, 112, 112}, 1);
    batchNormCase(*backend, {32, 56, 56, 64}, 3);
  }
}

TEST(AccuracyTest, LayerNormMatchesFloat64OnRowsOf4096) {
  const int64_t rows = 2048, d = 4096;
  for (auto &backend : backends()) {
    F32 x = normal({rows, d}, 3.0, 1.0, 5), dy = normal({rows, d}, 0.01, 1, 6);
    F32 scale = normal({d}, 1.0, 0.1, 7), offset = normal({d}, 0, 0.1, 8);
    F32 y({rows, d}), mean({rows}), invStd({rows});
    KernelDesc ln;
    ln.op = "train.layer_norm";
    ln.attrs["axis"] = ints({-1});
    ln.attrs["epsilon"] = real(1e-5);
    run(*backend, ln, {x.view, scale.view, offset.view},
        {y.view, mean.view, invStd.view});
    F32 dx({rows, d}), dscale({d}), doffset({d});
    KernelDesc grad;
    grad.op = "train.layer_norm_grad";
    grad.attrs["axis"] = ints({-1});
    run(*backend, grad, {dy.view, x.view, scale.view, mean.view, invStd.view},
        {dx.view, dscale.view, doffset.view});
    ErrorOf eMean, eInvStd, eY, eDx, eScale, eOffset;
    std::vector<double> sumScale(d), sumOffset(d);
    for (int64_t r = 0; r < rows; ++r) {
      const float *xr = x.data.data() + r * d, *gr = dy.data.data() + r * d;
      double sum = 0, squares = 0;
      for (int64_t j = 0; j < d; ++j)
        sum += xr[j];
      double m = sum / d;
      for (int64_t j = 0; j < d; ++j)
        squares += std::pow(xr[j] - m, 2);
      double s = 1 / std::sqrt(squares / d + 1e-5);
      eMean.add(mean.data[r], m);
      eInvStd.add(invStd.data[r], s);
      double sumG = 0, sumGXhat = 0;
      for (int64_t j = 0; j < d; ++j) {
        double xhat = (xr[j] - m) * s, g = gr[j] * double(scale.data[j]);
        sumG += g;
        sumGXhat += g * xhat;
        eY.add(y.data[r * d + j], xhat * scale.data[j] + offset.data[j]);
        sumScale[j] += gr[j] * xhat;
        sumOffset[j] += gr[j];
      }
      for (int64_t j = 0; j < d; ++j) {
        double xhat = (xr[j] - m) * s;
        eDx.add(dx.data[r * d + j],
                s * (gr[j] * double(scale.data[j]) - sumG / d -
                     xhat * sumGXhat / d));
      }
    }
    for (int64_t j = 0; j < d; ++j) {
      eScale.add(dscale.data[j], sumScale[j]);
      eOffset.add(doffset.data[j], sumOffset[j]);
    }
    std::string name = std::string(backend->name()) + " layer_norm [2048, 4096]";
    expectAccurate(name + " mean", eMean);
    expectAccurate(name + " inv_std", eInvStd);
    expectAccurate(name + " y", eY);
    expectAccurate(name + " grad_x", eDx);
    expectAccurate(name + " grad_scale", eScale);
    expectAccurate(name + " grad_offset", eOffset);
  }
}

TEST(AccuracyTest, ReductionsMatchFloat64Over10To7Elements) {
  for (auto &backend : backends()) {
    std::string name = backend->name();
    // All of 10^7 values into one, and 10^4 rows into 1000 columns.
    F32 x = normal({10000000}, 1.0, 1.0, 9);
    double exact = 0;
    for (float v : x.data)
      exact += v;
    for (bool mean : {false, true}) {
      F32 r({});
      KernelDesc k;
      k.op = mean ? "train.reduce_mean" : "train.reduce_sum";
      k.attrs["dims"] = ints({0});
      run(*backend, k, {x.view}, {r.view});
      ErrorOf e;
      e.add(r.data[0], mean ? exact / 1e7 : exact);
      expectAccurate(name + " " + k.op + " [10000000]", e);
    }
    F32 rows = normal({10000, 1000}, 1.0, 1.0, 10), cols({1000});
    KernelDesc k;
    k.op = "train.reduce_sum";
    k.attrs["dims"] = ints({0});
    run(*backend, k, {rows.view}, {cols.view});
    ErrorOf e;
    for (int64_t j = 0; j < 1000; ++j) {
      double s = 0;
      for (int64_t i = 0; i < 10000; ++i)
        s += rows.data[i * 1000 + j];
      e.add(cols.data[j], s);
    }
    expectAccurate(name + " train.reduce_sum [10000, 1000] over dim 0", e);
  }
}

TEST(AccuracyTest, PoolingAndLossSumsMatchFloat64) {
  for (auto &backend : backends()) {
    std::string name = backend->name();
    // Global average pooling over 224 x 224 planes.
    F32 x = normal({2, 8, 224, 224}, 5.0, 1.0, 11), y({2, 8});
    KernelDesc pool;
    pool.op = "train.global_avg_pool2d";
    Attr layout;
    layout.kind = Attr::Kind::String;
    layout.str = "NCHW";
    pool.attrs["layout"] = layout;
    run(*backend, pool, {x.view}, {y.view});
    ErrorOf ePool;
    for (int64_t p = 0; p < 16; ++p) {
      double s = 0;
      for (int64_t i = 0; i < 224 * 224; ++i)
        s += x.data[p * 224 * 224 + i];
      ePool.add(y.data[p], s / (224 * 224));
    }
    expectAccurate(name + " global_avg_pool2d [2, 8, 224, 224]", ePool);
    // The cross-entropy loss: 8192 rows of 1000 classes, a mean of row
    // losses each a log of a sum of exponentials.
    const int64_t rows = 8192, classes = 1000;
    F32 logits = normal({rows, classes}, 0.0, 3.0, 12), loss({});
    std::vector<int32_t> labels(rows);
    for (int64_t r = 0; r < rows; ++r)
      labels[r] = static_cast<int32_t>((r * 7919) % classes);
    TensorView labelView{DType::I32, {rows}, labels.data()};
    KernelDesc ce;
    ce.op = "train.sparse_cross_entropy";
    run(*backend, ce, {logits.view, labelView}, {loss.view});
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const float *row = logits.data.data() + r * classes;
      double max = *std::max_element(row, row + classes), s = 0;
      for (int64_t c = 0; c < classes; ++c)
        s += std::exp(double(row[c]) - max);
      total += max + std::log(s) - row[labels[r]];
    }
    ErrorOf eLoss;
    eLoss.add(loss.data[0], total / rows);
    expectAccurate(name + " sparse_cross_entropy [8192, 1000]", eLoss);
  }
}

} // namespace
