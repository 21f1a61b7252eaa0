//===- StepRules.h - schedules and dropout masks, host and device -*- C++ -*-===//
//
// The rules of the state that changes per step, one definition for every
// backend (compiled by nvcc as __host__ __device__, like ElementMath.h):
//   - the learning-rate schedule of train.lr_schedule, in double;
//   - Philox 4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers:
//     as easy as 1, 2, 3", SC 2011), the counter-based generator behind
//     train.dropout: a mask element depends only on (key, counter, site,
//     index), so every backend and every resumed step draws the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_COMMON_STEPRULES_H
#define MP_RUNTIME_COMMON_STEPRULES_H

#include "common/ElementMath.h"

namespace mp::rt::ref {

//===----------------------------------------------------------------------===//
// Learning-rate schedule (TrainStepOps.td: train.lr_schedule)
//===----------------------------------------------------------------------===//

/// The attributes, decoded: warmup 0 = linear, 1 = cosine; decay 0 =
/// constant, 1 = linear, 2 = cosine, 3 = step, 4 = exponential (the ODS
/// enums' values).
struct Schedule {
  double baseLr = 0, warmupStartFactor = 0, endFactor = 0, gamma = 1;
  int64_t warmupSteps = 0, decaySteps = 1;
  int warmup = 0, decay = 0;

  /// The factor on base_lr after `t` steps (t >= 0).
  MP_HD double factor(double t) const {
    const double pi = 3.14159265358979323846;
    double w = static_cast<double>(warmupSteps);
    if (t < w) {
      double r = warmup == 1 ? (1 - cos(pi * t / w)) / 2 : t / w;
      return warmupStartFactor + (1 - warmupStartFactor) * r;
    }
    double u = t - w, d = static_cast<double>(decaySteps);
    switch (decay) {
    case 1:
      return 1 + (endFactor - 1) * fmin(u, d) / d;
    case 2:
      return endFactor + (1 - endFactor) * (1 + cos(pi * fmin(u, d) / d)) / 2;
    case 3:
      return pow(gamma, floor(u / d));
    case 4:
      return pow(gamma, u);
    default:
      return 1;
    }
  }
  MP_HD float lrAt(double t) const {
    return static_cast<float>(baseLr * factor(t));
  }
};

//===----------------------------------------------------------------------===//
// Philox 4x32-10 and the dropout mask
//===----------------------------------------------------------------------===//

struct Philox4 {
  uint32_t v[4];
};

/// Philox 4x32 with 10 rounds: Random123's philox4x32_10(counter, key).
MP_HD inline Philox4 philox4x32_10(Philox4 c, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c.v[0];
    uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c.v[2];
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c = Philox4{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
  }
  return c;
}

/// The dropout mask of one op: element i is kept when word i % 4 of
/// Philox(counter = (i / 4, site, step low, step high), key = (key low,
/// key high)) is at least `threshold` = ceil(p * 2^32).
struct DropoutMask {
  uint32_t k0 = 0, k1 = 0, site = 0, stepLo = 0, stepHi = 0;
  uint64_t threshold = 0;
  float scale = 1; ///< f32(1 / (1 - p))

  MP_HD static DropoutMask make(int64_t key, int64_t step, int64_t site,
                                double p) {
    DropoutMask m;
    uint64_t k = static_cast<uint64_t>(key), s = static_cast<uint64_t>(step);
    m.k0 = static_cast<uint32_t>(k);
    m.k1 = static_cast<uint32_t>(k >> 32);
    m.stepLo = static_cast<uint32_t>(s);
    m.stepHi = static_cast<uint32_t>(s >> 32);
    m.site = static_cast<uint32_t>(site);
    m.threshold = static_cast<uint64_t>(ceil(p * 4294967296.0));
    m.scale = static_cast<float>(1.0 / (1.0 - p));
    return m;
  }
  /// The four words of block `block` (elements 4 * block ... + 3).
  MP_HD Philox4 words(uint64_t block) const {
    return philox4x32_10(
        Philox4{{static_cast<uint32_t>(block), site, stepLo, stepHi}}, k0, k1);
  }
  MP_HD bool kept(uint32_t word) const { return word >= threshold; }
  /// x's value after dropout, with `word` the element's Philox word: x
  /// times the scale or 0, as PyTorch multiplies (a dropped NaN or inf
  /// still gives NaN, so the finiteness checks see it).
  MP_HD float apply(float x, uint32_t word) const {
    return x * (kept(word) ? scale : 0.0f);
  }
  /// The Philox word of mask element `i`.
  MP_HD uint32_t word(uint64_t i) const { return words(i / 4).v[i % 4]; }
};

/// Where element i of x (row-major) reads its mask element when the mask
/// has a broadcast shape (train.dropout's mask_shape): the index in the
/// mask of x's coordinates, those along a size-1 mask dimension taken as 0.
struct MaskIndex {
  static constexpr int kMaxRank = 8;
  int rank = 0;
  int64_t dims[kMaxRank] = {};        ///< x's shape
  int64_t maskStrides[kMaxRank] = {}; ///< 0 along a broadcast dimension
  MP_HD int64_t of(int64_t i) const {
    int64_t m = 0;
    for (int d = rank - 1; d >= 0; --d) {
      m += (i % dims[d]) * maskStrides[d];
      i /= dims[d];
    }
    return m;
  }
};

} // namespace mp::rt::ref

#endif // MP_RUNTIME_COMMON_STEPRULES_H
