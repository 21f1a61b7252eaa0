//===- Embedding.cpp - embedding, gather and their scatter-add gradients --===//
#include "reference/KernelSupport.h"

using namespace mp::rt;
using namespace mp::rt::ref;

/// Checks a [V, D] table against indices [I...] and rows [I..., D].
static Status checkTableAndRows(const KernelDesc &k, const TensorView &table,
                                const TensorView &indices,
                                const TensorView &rows, const char *tableName,
                                const char *rowsName) {
  MP_RETURN_IF_ERROR(checkRank(k, table, 2, tableName));
  MP_RETURN_IF_ERROR(checkIndex(k, indices, "indices"));
  Shape expected = indices.shape;
  expected.push_back(table.shape[1]);
  return checkShape(k, rows, expected, rowsName);
}

/// indices[i] as a row of a table with `rows` rows, or the data error.
static Status getRow(const KernelDesc &k, const TensorView &indices, int64_t i,
                     int64_t rows, int64_t &row) {
  row = loadInt(indices, i);
  if (row >= 0 && row < rows)
    return Status::ok();
  return kernelError(k, "index " + std::to_string(row) + " at position " +
                            std::to_string(i) + " is outside [0, " +
                            std::to_string(rows) + ")");
}

static Status checkEmbedding(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "table"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  return checkTableAndRows(k, in[0], in[1], out[0], "table", "result");
}

/// A gather copies bits: no rounding happens, whatever the dtype.
static Status runEmbedding(const KernelDesc &k, const Views &in,
                           const Views &out) {
  int64_t vocab = in[0].shape[0], width = in[0].shape[1];
  size_t rowBytes = width * dtypeSize(in[0].dtype);
  const char *table = in[0].as<const char>();
  char *result = out[0].as<char>();
  for (int64_t i = 0, n = in[1].numElements(); i < n; ++i) {
    int64_t row;
    MP_RETURN_IF_ERROR(getRow(k, in[1], i, vocab, row));
    std::memcpy(result + i * rowBytes, table + row * rowBytes, rowBytes);
  }
  return Status::ok();
}

static Status checkEmbeddingGrad(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  return checkTableAndRows(k, out[0], in[1], in[0], "result", "grad");
}

static Status runEmbeddingGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  int64_t vocab = out[0].shape[0], width = out[0].shape[1];
  FloatIn grad(in[0]);
  FloatOut table(out[0], /*zeroed=*/true);
  for (int64_t i = 0, n = in[1].numElements(); i < n; ++i) {
    int64_t row;
    MP_RETURN_IF_ERROR(getRow(k, in[1], i, vocab, row));
    for (int64_t d = 0; d < width; ++d)
      table[row * width + d] += grad[i * width + d];
  }
  table.finish();
  return Status::ok();
}

/// x [A..., N, B...] seen as [outer, N, inner] around `axis`.
struct GatherDims {
  int64_t outer = 1, size = 0, inner = 1;
};

/// Checks `axis` of x against indices [I...] and gathered [A..., I..., B...].
static Status checkGatherShapes(const KernelDesc &k, const TensorView &x,
                                const TensorView &indices,
                                const TensorView &gathered, const char *xName,
                                const char *gatheredName, GatherDims &dims) {
  MP_RETURN_IF_ERROR(checkIndex(k, indices, "indices"));
  int64_t axis = k.getInt(AttrName::axis, -1);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (axis < 0 || axis >= rank)
    return kernelError(k, "gathers along axis " + std::to_string(axis) +
                              " of a rank-" + std::to_string(rank) + " " +
                              xName);
  Shape expected(x.shape.begin(), x.shape.begin() + axis);
  expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
  expected.insert(expected.end(), x.shape.begin() + axis + 1, x.shape.end());
  MP_RETURN_IF_ERROR(checkShape(k, gathered, expected, gatheredName));
  dims = {};
  for (int64_t d = 0; d < axis; ++d)
    dims.outer *= x.shape[d];
  dims.size = x.shape[axis];
  for (int64_t d = axis + 1; d < rank; ++d)
    dims.inner *= x.shape[d];
  return Status::ok();
}

static Status checkGather(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  GatherDims dims;
  return checkGatherShapes(k, in[0], in[1], out[0], "x", "result", dims);
}

/// Copies bits, like the embedding: exact in every dtype.
static Status runGather(const KernelDesc &k, const Views &in,
                        const Views &out) {
  GatherDims dims;
  MP_RETURN_IF_ERROR(
      checkGatherShapes(k, in[0], in[1], out[0], "x", "result", dims));
  int64_t count = in[1].numElements();
  size_t sliceBytes = dims.inner * dtypeSize(in[0].dtype);
  const char *x = in[0].as<const char>();
  char *result = out[0].as<char>();
  for (int64_t i = 0; i < count; ++i) {
    int64_t row;
    MP_RETURN_IF_ERROR(getRow(k, in[1], i, dims.size, row));
    for (int64_t o = 0; o < dims.outer; ++o)
      std::memcpy(result + (o * count + i) * sliceBytes,
                  x + (o * dims.size + row) * sliceBytes, sliceBytes);
  }
  return Status::ok();
}

static Status checkGatherGrad(const KernelDesc &k, const Views &in,
                              const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  GatherDims dims;
  return checkGatherShapes(k, out[0], in[1], in[0], "result", "grad", dims);
}

/// Sums in f32 in index order (FloatOut accumulates before its one rounding).
static Status runGatherGrad(const KernelDesc &k, const Views &in,
                            const Views &out) {
  GatherDims dims;
  MP_RETURN_IF_ERROR(
      checkGatherShapes(k, out[0], in[1], in[0], "result", "grad", dims));
  int64_t count = in[1].numElements();
  FloatIn grad(in[0]);
  FloatOut result(out[0], /*zeroed=*/true);
  for (int64_t i = 0; i < count; ++i) {
    int64_t row;
    MP_RETURN_IF_ERROR(getRow(k, in[1], i, dims.size, row));
    for (int64_t o = 0; o < dims.outer; ++o) {
      int64_t to = (o * dims.size + row) * dims.inner;
      int64_t from = (o * count + i) * dims.inner;
      for (int64_t b = 0; b < dims.inner; ++b)
        result[to + b] += grad[from + b];
    }
  }
  result.finish();
  return Status::ok();
}

void ref::addEmbeddingKernels(KernelTable &table) {
  table.insert(
      table.end(),
      {
          {OpId::TrainEmbedding, checkEmbedding, runEmbedding},
          {OpId::TrainEmbeddingGrad, checkEmbeddingGrad, runEmbeddingGrad},
          {OpId::TrainGather, checkGather, runGather},
          {OpId::TrainGatherGrad, checkGatherGrad, runGatherGrad},
      });
}
