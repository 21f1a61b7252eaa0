//===- ChannelStats.h - batch norm over [rows, features] by row blocks -*- C++ -*-===//
//
// batch_norm / batch_norm_grad with the features last (NHWC images, [N, C]
// activations) at memory speed: the statistics go by fixed blocks of rows
// (each block read and widened once, its two passes in L1/L2), the blocks
// shared out over the threads and their partial results combined in block
// order, so that results depend on the shape only, never on the thread
// count; the elementwise passes go by blocks of rows too. All loops are
// compiled for AVX-512, AVX2 and the baseline and run on what vectorLevel()
// says.
//
// Accuracy: sums in f64. The variance is each block's own two-pass sum of
// squared deviations from its f64 mean, the blocks combined with Chan's
// pairwise update (M2 = M2a + M2b + d^2 na nb / n), so that a large mean
// does not cancel the variance as a one-pass sum of squares would. Not the
// reference's order of additions (one f64 sum per channel over all rows, then
// the squares about the global mean): the results agree with it to f64's
// precision before they are rounded to f32, i.e. within an ulp or two of
// the stored dtype (runtime/unittests/cpu/CpuChannelStatsTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_CHANNELSTATS_H
#define MP_RUNTIME_CPU_CHANNELSTATS_H

#include "mp/runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace mp::rt::cpu {

/// Rows per statistics block for `features` channels: a fixed function of
/// the shape (about 4K elements, at least 16 rows).
int64_t statsBlockRows(int64_t features);

/// x is [rows, features], any float dtype. mean[c] and m2[c] (the sum of
/// squared deviations from the mean) of each channel, in f64.
void channelMoments(const TensorView &x, int64_t rows, int64_t features,
                    std::vector<double> &mean, std::vector<double> &m2);

/// sumG[c] = sum of g, sumGX[c] = sum of g * (x - center[c]), in f64, with g
/// and x [rows, features]. With `mask` (a ReLU's output, g's dtype and
/// shape), g is read as relu_grad(g, mask) would write it (fused into the
/// read: the same values).
void channelGradSums(const TensorView &g, const TensorView &x, int64_t rows,
                     int64_t features, const float *center,
                     std::vector<double> &sumG, std::vector<double> &sumGX,
                     const TensorView *mask = nullptr);

/// y = (x - mean[c]) * a[c] + offset[c], rounded once to y's dtype; with
/// `relu`, relu of it (before the rounding, which commutes with it).
void normalizeChannels(const TensorView &x, const TensorView &y, int64_t rows,
                       int64_t features, const float *mean, const float *a,
                       const float *offset, bool relu = false);

/// d = k[c] * (g - meanG[c] - (x - mean[c]) * inv[c] * meanGXhat[c]), the
/// batch-norm input gradient, rounded once to d's dtype.
struct ChannelGradTerms {
  const float *k, *mean, *inv, *meanG, *meanGXhat;
};
void normalizeChannelsGrad(const TensorView &g, const TensorView &x,
                           const TensorView &d, int64_t rows, int64_t features,
                           const ChannelGradTerms &terms,
                           const TensorView *mask = nullptr);

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_CHANNELSTATS_H
