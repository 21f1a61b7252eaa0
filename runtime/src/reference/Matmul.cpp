//===- Matmul.cpp - train.matmul, mp.matmul_epilogue ----------------------===//
#include "reference/ElementRules.h"
#include "reference/Gemm.h"
#include "reference/KernelSupport.h"

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// The problem sizes of a (batched) matmul, from the operand shapes.
struct MatmulDims {
  int64_t batch, m, n, k;
  bool transposeLhs, transposeRhs, sharedRhs;
};
} // namespace

static Status getMatmulDims(const KernelDesc &kernel, const Views &in,
                            const Views &out, MatmulDims &dims) {
  const Shape &l = in[0].shape, &r = in[1].shape;
  if (l.size() < 2 || r.size() < 2)
    return kernelError(kernel, "expects operands of rank >= 2 but got " +
                                   formatShape(l) + " and " + formatShape(r));
  size_t lr = l.size(), rr = r.size();
  dims.transposeLhs = kernel.getFlag(AttrName::transpose_lhs);
  dims.transposeRhs = kernel.getFlag(AttrName::transpose_rhs);
  dims.m = dims.transposeLhs ? l[lr - 1] : l[lr - 2];
  dims.k = dims.transposeLhs ? l[lr - 2] : l[lr - 1];
  int64_t k2 = dims.transposeRhs ? r[rr - 1] : r[rr - 2];
  dims.n = dims.transposeRhs ? r[rr - 2] : r[rr - 1];
  if (dims.k != k2)
    return kernelError(
        kernel, "contracts lhs dimension of size " + std::to_string(dims.k) +
                    " with rhs dimension of size " + std::to_string(k2));
  Shape batch(l.begin(), l.end() - 2);
  dims.sharedRhs = rr == 2;
  if (!dims.sharedRhs && Shape(r.begin(), r.end() - 2) != batch)
    return kernelError(kernel,
                       "expects rhs batch dimensions " + formatShape(batch) +
                           " (or a rank-2 rhs) but got " + formatShape(r) +
                           " (batches that broadcast are mp-decompose's to "
                           "materialize: compile with the pipeline)");
  dims.batch = product(batch, 0, batch.size());
  Shape expected = batch;
  expected.push_back(dims.m);
  expected.push_back(dims.n);
  return checkShape(kernel, out[0], expected, "result");
}

static Status checkMatmul(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "lhs"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "rhs"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  MatmulDims dims;
  return getMatmulDims(k, in, out, dims);
}

/// The f32 product of a matmul into `result` (not yet rounded).
static void multiply(const MatmulDims &d, const FloatIn &lhs,
                     const FloatIn &rhs, FloatOut &result) {
  if (d.sharedRhs && !d.transposeLhs) {
    // A linear layer: the batch rows stack into one [B*M, K] matrix.
    gemm(false, d.transposeRhs, d.batch * d.m, d.n, d.k, lhs.data(), rhs.data(),
         result.data(), false);
  } else {
    for (int64_t b = 0; b < d.batch; ++b)
      gemm(d.transposeLhs, d.transposeRhs, d.m, d.n, d.k,
           lhs.data() + b * d.m * d.k,
           rhs.data() + (d.sharedRhs ? 0 : b * d.k * d.n),
           result.data() + b * d.m * d.n, false);
  }
}

static Status runMatmul(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MatmulDims d;
  MP_RETURN_IF_ERROR(getMatmulDims(k, in, out, d));
  FloatIn lhs(in[0]), rhs(in[1]);
  FloatOut result(out[0]);
  multiply(d, lhs, rhs, result);
  result.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// mp.matmul_epilogue: the product, + bias, ReLU, all in f32, one rounding.
//===----------------------------------------------------------------------===//

static Status getActivation(const KernelDesc &k, bool &relu) {
  const std::string *activation = k.getString(AttrName::activation);
  std::string name = activation ? *activation : "none";
  if (name != "none" && name != "relu")
    return kernelError(k, "expects activation \"none\" or \"relu\" but got \"" +
                              name + "\"");
  relu = name == "relu";
  return Status::ok();
}

static Status checkMatmulEpilogue(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  if (in.size() != 2 && in.size() != 3)
    return kernelError(k, "expects 2 inputs (lhs, rhs) or 3 (lhs, rhs, "
                          "bias) but got " +
                              std::to_string(in.size()));
  MP_RETURN_IF_ERROR(checkArity(k, in, out, in.size(), 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "lhs"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "rhs"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  MatmulDims dims;
  MP_RETURN_IF_ERROR(getMatmulDims(k, in, out, dims));
  if (in.size() == 3) {
    if (in[2].dtype != DType::F32 && in[2].dtype != out[0].dtype)
      return unimplemented(k.op + ": expects a bias of dtype f32 or " +
                           dtypeName(out[0].dtype) + " but got " +
                           dtypeName(in[2].dtype));
    MP_RETURN_IF_ERROR(checkShape(k, in[2], {dims.n}, "bias"));
  }
  bool relu;
  return getActivation(k, relu);
}

static Status runMatmulEpilogue(const KernelDesc &k, const Views &in,
                                const Views &out) {
  MP_RETURN_IF_ERROR(checkMatmulEpilogue(k, in, out));
  MatmulDims d;
  MP_RETURN_IF_ERROR(getMatmulDims(k, in, out, d));
  bool relu;
  MP_RETURN_IF_ERROR(getActivation(k, relu));
  FloatIn lhs(in[0]), rhs(in[1]);
  FloatOut result(out[0]);
  multiply(d, lhs, rhs, result);
  std::optional<FloatIn> bias;
  if (in.size() == 3)
    bias.emplace(in[2]);
  float *acc = result.data();
  int64_t rows = d.batch * d.m;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < d.n; ++j) {
      float v = acc[i * d.n + j];
      if (bias)
        v += (*bias)[j];
      acc[i * d.n + j] = relu ? reluF(v) : v;
    }
  result.finish();
  return Status::ok();
}

void ref::addMatmulKernels(KernelTable &table) {
  table.push_back({OpId::TrainMatmul, checkMatmul, runMatmul});
  table.push_back(
      {OpId::MpMatmulEpilogue, checkMatmulEpilogue, runMatmulEpilogue});
}
