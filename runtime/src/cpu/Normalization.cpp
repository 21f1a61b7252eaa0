//===- Normalization.cpp - layer_norm_grad on the backend's threads -------===//
#include "cpu/Normalization.h"

#include "cpu/Parallel.h"

#include <algorithm>

using namespace mp::rt;

namespace {
constexpr int64_t kChunk = 1024;

const char *at(const TensorView &v, int64_t index) {
  return static_cast<const char *>(v.data) +
         index * static_cast<int64_t>(dtypeSize(v.dtype));
}
std::vector<float> widen(const TensorView &v) {
  std::vector<float> out(static_cast<size_t>(v.numElements()));
  toFloats(v.dtype, v.data, out.data(), v.numElements());
  return out;
}
} // namespace

void cpu::runLayerNormGrad(const KernelDesc &kernel,
                           const std::vector<TensorView> &in,
                           const std::vector<TensorView> &out,
                           bool &handled) {
  handled = false;
  if (kernel.op != "train.layer_norm_grad" || in.size() != 5 ||
      out.size() != 3)
    return;
  const TensorView &dy = in[0], &x = in[1], &scale = in[2], &mean = in[3],
                   &invStd = in[4];
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = kernel.getInt("axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return;
  int64_t rows = 1, d = 1;
  for (int64_t i = 0; i < axis; ++i)
    rows *= x.shape[i];
  for (int64_t i = axis; i < rank; ++i)
    d *= x.shape[i];
  // The reference's checks, so that nothing is read out of bounds.
  for (const TensorView *v : {&dy, &x, &scale, &mean, &invStd, &out[0],
                              &out[1], &out[2]})
    if (!isFloat(v->dtype) || (v->numElements() && !v->data))
      return;
  if (dy.dtype != x.dtype || dy.shape != x.shape || out[0].dtype != x.dtype ||
      out[0].shape != x.shape || scale.numElements() != d ||
      out[1].dtype != scale.dtype || out[1].shape != scale.shape ||
      out[2].dtype != scale.dtype || out[2].shape != scale.shape ||
      mean.numElements() != rows || invStd.numElements() != rows ||
      invStd.dtype != mean.dtype || rows == 0 || d == 0)
    return;
  std::vector<float> scaleF = widen(scale), meanF = widen(mean),
                     invStdF = widen(invStd);
  DType dtype = x.dtype;
  float size = static_cast<float>(d);

  // Pass 1: grad_x, row by row.
  parallelFor(rows, std::max<int64_t>(1, (int64_t(1) << 15) / d),
              [&](int64_t begin, int64_t end) {
                std::vector<float> g(d), xr(d), dx(d);
                for (int64_t r = begin; r < end; ++r) {
                  toFloats(dtype, at(dy, r * d), g.data(), d);
                  toFloats(dtype, at(x, r * d), xr.data(), d);
                  float m = meanF[r], s = invStdF[r];
                  float sumG = 0, sumGXhat = 0;
                  for (int64_t j = 0; j < d; ++j) {
                    float xhat = (xr[j] - m) * s;
                    float gj = g[j] * scaleF[j];
                    sumG += gj;
                    sumGXhat += gj * xhat;
                  }
                  float meanG = sumG / size, meanGXhat = sumGXhat / size;
                  for (int64_t j = 0; j < d; ++j) {
                    float xhat = (xr[j] - m) * s;
                    dx[j] = s * (g[j] * scaleF[j] - meanG - xhat * meanGXhat);
                  }
                  fromFloats(dx.data(), dtype,
                             const_cast<char *>(at(out[0], r * d)), d);
                }
              });

  // Pass 2: grad_scale and grad_offset, column by column, rows in order.
  parallelFor(d, std::max<int64_t>(64, (int64_t(1) << 15) / rows),
              [&](int64_t begin, int64_t end) {
                float g[kChunk], xr[kChunk], ds[kChunk], doff[kChunk];
                for (int64_t c = begin; c < end; c += kChunk) {
                  int64_t n = std::min(kChunk, end - c);
                  std::fill(ds, ds + n, 0.0f);
                  std::fill(doff, doff + n, 0.0f);
                  for (int64_t r = 0; r < rows; ++r) {
                    toFloats(dtype, at(dy, r * d + c), g, n);
                    toFloats(dtype, at(x, r * d + c), xr, n);
                    float m = meanF[r], s = invStdF[r];
                    for (int64_t j = 0; j < n; ++j) {
                      float xhat = (xr[j] - m) * s;
                      ds[j] += g[j] * xhat;
                      doff[j] += g[j];
                    }
                  }
                  fromFloats(ds, out[1].dtype,
                             const_cast<char *>(at(out[1], c)), n);
                  fromFloats(doff, out[2].dtype,
                             const_cast<char *>(at(out[2], c)), n);
                }
              });
  handled = true;
}
