//===- Attention.cpp - train.attention and attention_grad ----------------===//
//
// The definition of scaled dot-product attention (TrainSequenceOps.td):
// per query row, the scores, the softmax and the weighted sums in f64,
// rounded once when stored. The compiler always rewrites both ops into
// matmul / softmax ops (mp-decompose); test/Transforms/attention-decompose
// checks that rewrite against these loops.
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// Sizes of an attention problem and where its mask is read.
struct Attention {
  int64_t batch = 0, tq = 0, tk = 0, d = 0, dv = 0;
  double scale = 1;
  bool causal = false;
  const TensorView *mask = nullptr;
  bool boolMask = false;
  /// Mask element offset per flattened batch index, and the mask's strides
  /// along the query and key dimensions (0 where it broadcasts).
  std::vector<int64_t> maskBase;
  int64_t maskRow = 0, maskCol = 0;
};

/// Scores of one query row: scale * q . k_j with the masks applied
/// (excluded keys at -inf), then softmax in place. `mask` holds the mask
/// as f32 (float masks) or 0/1 (i1 masks), null without one.
void rowProbabilities(const Attention &a, int64_t b, int64_t i,
                      const float *q, const float *k, const float *mask,
                      std::vector<double> &p) {
  const double minusInf = -std::numeric_limits<double>::infinity();
  double max = minusInf;
  for (int64_t j = 0; j < a.tk; ++j) {
    double s = 0;
    for (int64_t e = 0; e < a.d; ++e)
      s += static_cast<double>(q[e]) * k[j * a.d + e];
    s *= a.scale;
    if (a.causal && j > i)
      s = minusInf;
    if (mask) {
      double m = mask[a.maskBase[b] + i * a.maskRow + j * a.maskCol];
      if (a.boolMask)
        s = m != 0 ? s : minusInf;
      else
        s += m;
    }
    p[j] = s;
    max = s > max ? s : max;
  }
  double sum = 0;
  for (int64_t j = 0; j < a.tk; ++j) {
    p[j] = std::exp(p[j] - max); // NaN for a fully excluded row, as intended
    sum += p[j];
  }
  for (int64_t j = 0; j < a.tk; ++j)
    p[j] /= sum;
}
} // namespace

/// Reads the shapes (query, key, value and the result or its gradient),
/// the mask and the attributes.
static Status getAttention(const KernelDesc &kd, const TensorView &q,
                           const TensorView &k, const TensorView &v,
                           const TensorView *mask, const TensorView &out,
                           Attention &a) {
  size_t rank = q.shape.size();
  if (rank < 2 || k.shape.size() != rank || v.shape.size() != rank)
    return kernelError(kd, "expects query, key and value of one rank >= 2 "
                           "but got " +
                               formatShape(q.shape) + ", " +
                               formatShape(k.shape) + " and " +
                               formatShape(v.shape));
  Shape batch(q.shape.begin(), q.shape.end() - 2);
  a.tq = q.shape[rank - 2];
  a.d = q.shape[rank - 1];
  a.tk = k.shape[rank - 2];
  a.dv = v.shape[rank - 1];
  if (Shape(k.shape.begin(), k.shape.end() - 2) != batch ||
      Shape(v.shape.begin(), v.shape.end() - 2) != batch ||
      k.shape[rank - 1] != a.d || v.shape[rank - 2] != a.tk)
    return kernelError(kd, "expects query [..., Tq, D], key [..., Tk, D] and "
                           "value [..., Tk, Dv] with one batch but got " +
                               formatShape(q.shape) + ", " +
                               formatShape(k.shape) + " and " +
                               formatShape(v.shape));
  Shape expected = batch;
  expected.push_back(a.tq);
  expected.push_back(a.dv);
  MP_RETURN_IF_ERROR(checkShape(kd, out, expected, "the result"));
  a.batch = product(batch, 0, batch.size());
  a.scale = kd.getFloat(AttrName::scale,
                        1.0 / std::sqrt(static_cast<double>(a.d)));
  if (!(std::isfinite(a.scale) && a.scale > 0))
    return kernelError(kd, "needs a finite positive scale");
  a.causal = kd.getFlag(AttrName::causal);
  a.mask = mask;
  if (!mask)
    return Status::ok();
  a.boolMask = mask->dtype == DType::I1;
  if (!a.boolMask && !isFloat(mask->dtype))
    return kernelError(kd, "expects an i1 or float mask");
  Shape scores = batch;
  scores.push_back(a.tq);
  scores.push_back(a.tk);
  const Shape &m = mask->shape;
  if (m.size() > scores.size())
    return kernelError(kd, "expects a mask that broadcasts to the scores " +
                               formatShape(scores) + " but got " +
                               formatShape(m));
  // Strides of the mask in the scores' dimensions (0 where broadcast).
  std::vector<int64_t> strides(scores.size(), 0);
  Shape own = stridesOf(m);
  size_t lead = scores.size() - m.size();
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] != scores[lead + i] && m[i] != 1)
      return kernelError(kd, "expects a mask that broadcasts to the scores " +
                                 formatShape(scores) + " but got " +
                                 formatShape(m));
    strides[lead + i] = m[i] == 1 ? 0 : own[i];
  }
  a.maskRow = strides[rank - 2];
  a.maskCol = strides[rank - 1];
  a.maskBase.assign(a.batch, 0);
  for (int64_t b = 0; b < a.batch; ++b) {
    int64_t rest = b, offset = 0;
    for (size_t dim = batch.size(); dim-- > 0;) {
      offset += (rest % batch[dim]) * strides[dim];
      rest /= batch[dim];
    }
    a.maskBase[b] = offset;
  }
  return Status::ok();
}

/// The mask as f32 values (i1 as 0 / 1), empty without one.
static std::vector<float> maskValues(const Attention &a) {
  std::vector<float> values;
  if (!a.mask)
    return values;
  values.resize(a.mask->numElements());
  if (a.boolMask) {
    const uint8_t *bits = a.mask->as<uint8_t>();
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = bits[i] != 0 ? 1.0f : 0.0f;
  } else {
    loadFloats(*a.mask, values.data());
  }
  return values;
}

static Status checkAttention(const KernelDesc &k, const Views &in,
                             const Views &out) {
  if (in.size() != 3 && in.size() != 4)
    return kernelError(k, "expects query, key, value and an optional mask");
  MP_RETURN_IF_ERROR(checkArity(k, in, out, in.size(), 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "query"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "key"));
  MP_RETURN_IF_ERROR(checkDType(k, in[2], in[0].dtype, "value"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  Attention a;
  return getAttention(k, in[0], in[1], in[2], in.size() == 4 ? &in[3] : nullptr,
                      out[0], a);
}

static Status runAttention(const KernelDesc &k, const Views &in,
                           const Views &out) {
  Attention a;
  MP_RETURN_IF_ERROR(getAttention(
      k, in[0], in[1], in[2], in.size() == 4 ? &in[3] : nullptr, out[0], a));
  FloatIn q(in[0]), key(in[1]), v(in[2]);
  FloatOut result(out[0]);
  std::vector<float> mask = maskValues(a);
  std::vector<double> p(a.tk), row(a.dv);
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t i = 0; i < a.tq; ++i) {
      rowProbabilities(a, b, i, q.data() + (b * a.tq + i) * a.d,
                       key.data() + b * a.tk * a.d,
                       mask.empty() ? nullptr : mask.data(), p);
      std::fill(row.begin(), row.end(), 0.0);
      const float *vb = v.data() + b * a.tk * a.dv;
      for (int64_t j = 0; j < a.tk; ++j)
        for (int64_t e = 0; e < a.dv; ++e)
          row[e] += p[j] * vb[j * a.dv + e];
      float *o = result.data() + (b * a.tq + i) * a.dv;
      for (int64_t e = 0; e < a.dv; ++e)
        o[e] = static_cast<float>(row[e]);
    }
  result.finish();
  return Status::ok();
}

static Status checkAttentionGrad(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  if (in.size() != 4 && in.size() != 5)
    return kernelError(k, "expects grad, query, key, value and an optional "
                          "mask");
  MP_RETURN_IF_ERROR(checkArity(k, in, out, in.size(), 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  const char *names[] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) {
    MP_RETURN_IF_ERROR(checkDType(k, in[i + 1], in[0].dtype, names[i]));
    MP_RETURN_IF_ERROR(
        checkSameType(k, in[i + 1], names[i], out[i], "its gradient"));
  }
  Attention a;
  return getAttention(k, in[1], in[2], in[3], in.size() == 5 ? &in[4] : nullptr,
                      in[0], a);
}

/// With P the row's probabilities and dP_j = grad_i . v_j:
/// dS_j = P_j (dP_j - sum_l P_l dP_l); grad_q_i = scale sum_j dS_j k_j,
/// grad_k_j += scale dS_j q_i, grad_v_j += P_j grad_i; all in f64.
static Status runAttentionGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  Attention a;
  MP_RETURN_IF_ERROR(getAttention(
      k, in[1], in[2], in[3], in.size() == 5 ? &in[4] : nullptr, in[0], a));
  FloatIn dy(in[0]), q(in[1]), key(in[2]), v(in[3]);
  FloatOut dq(out[0]), dk(out[1]), dv(out[2]);
  std::vector<float> mask = maskValues(a);
  std::vector<double> p(a.tk), ds(a.tk), dqRow(a.d), dkSum(a.tk * a.d),
      dvSum(a.tk * a.dv);
  for (int64_t b = 0; b < a.batch; ++b) {
    const float *qb = q.data() + b * a.tq * a.d;
    const float *kb = key.data() + b * a.tk * a.d;
    const float *vb = v.data() + b * a.tk * a.dv;
    const float *gb = dy.data() + b * a.tq * a.dv;
    std::fill(dkSum.begin(), dkSum.end(), 0.0);
    std::fill(dvSum.begin(), dvSum.end(), 0.0);
    for (int64_t i = 0; i < a.tq; ++i) {
      const float *qi = qb + i * a.d, *gi = gb + i * a.dv;
      rowProbabilities(a, b, i, qi, kb, mask.empty() ? nullptr : mask.data(),
                       p);
      double total = 0;
      for (int64_t j = 0; j < a.tk; ++j) {
        double dp = 0;
        for (int64_t e = 0; e < a.dv; ++e)
          dp += static_cast<double>(gi[e]) * vb[j * a.dv + e];
        ds[j] = dp;
        total += p[j] * dp;
      }
      std::fill(dqRow.begin(), dqRow.end(), 0.0);
      for (int64_t j = 0; j < a.tk; ++j) {
        double s = p[j] * (ds[j] - total) * a.scale;
        for (int64_t e = 0; e < a.d; ++e) {
          dqRow[e] += s * kb[j * a.d + e];
          dkSum[j * a.d + e] += s * qi[e];
        }
        for (int64_t e = 0; e < a.dv; ++e)
          dvSum[j * a.dv + e] += p[j] * gi[e];
      }
      float *o = dq.data() + (b * a.tq + i) * a.d;
      for (int64_t e = 0; e < a.d; ++e)
        o[e] = static_cast<float>(dqRow[e]);
    }
    float *dkb = dk.data() + b * a.tk * a.d;
    for (int64_t e = 0; e < a.tk * a.d; ++e)
      dkb[e] = static_cast<float>(dkSum[e]);
    float *dvb = dv.data() + b * a.tk * a.dv;
    for (int64_t e = 0; e < a.tk * a.dv; ++e)
      dvb[e] = static_cast<float>(dvSum[e]);
  }
  for (FloatOut *o : {&dq, &dk, &dv})
    o->finish();
  return Status::ok();
}

void ref::addAttentionKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainAttention, checkAttention, runAttention},
                   {OpId::TrainAttentionGrad, checkAttentionGrad,
                    runAttentionGrad},
               });
}
