//===- MatmulShapes.h - the shape rule of a (batched) matmul ----*- C++ -*-===//
//
// Shared by train.matmul and mp.matmul_epilogue, so that the two verifiers
// accept the same forms and say the same things.
//
//===----------------------------------------------------------------------===//
#ifndef MP_IR_MATMULSHAPES_H
#define MP_IR_MATMULSHAPES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>
#include <string>

namespace mp {

/// [2, 3, 4], for diagnostics.
inline std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(shape, os);
  os << "]";
  return out;
}

/// The batch dimensions of a product of operands with batch dimensions `l`
/// and `r`, broadcast as numpy does (aligned at the last one; each pair
/// equal, or one of them 1 or missing); none when they do not broadcast.
inline std::optional<llvm::SmallVector<int64_t>>
broadcastBatch(llvm::ArrayRef<int64_t> l, llvm::ArrayRef<int64_t> r) {
  size_t rank = std::max(l.size(), r.size());
  llvm::SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - l.size() ? 1 : l[i - (rank - l.size())];
    int64_t b = i < rank - r.size() ? 1 : r[i - (rank - r.size())];
    if (a != b && a != 1 && b != 1)
      return std::nullopt;
    out[i] = a == 1 ? b : a;
  }
  return out;
}

/// `lhs` is [B..., M, K] ([B..., K, M] transposed), `rhs` [B..., K, N]
/// ([B..., N, K] transposed) or a rank-2 [K, N] shared by every batch, and
/// `result` [B..., M, N]. With `broadcast` (train.matmul) the two batch
/// shapes may differ where they broadcast (broadcastBatch), and the result
/// has the broadcast batch; mp-decompose materializes that before a
/// backend sees it. On success `n` is N.
inline llvm::LogicalResult
verifyMatmulShapes(mlir::Operation *op, llvm::ArrayRef<int64_t> l,
                   llvm::ArrayRef<int64_t> r, llvm::ArrayRef<int64_t> result,
                   bool transposeLhs, bool transposeRhs, int64_t &n,
                   bool broadcast = false) {
  if (l.size() < 2 || r.size() < 2)
    return op->emitOpError() << "expects operands of rank >= 2 but got ranks "
                             << l.size() << " and " << r.size();
  size_t lr = l.size(), rr = r.size();
  int64_t m = transposeLhs ? l[lr - 1] : l[lr - 2];
  int64_t k = transposeLhs ? l[lr - 2] : l[lr - 1];
  int64_t k2 = transposeRhs ? r[rr - 1] : r[rr - 2];
  n = transposeRhs ? r[rr - 2] : r[rr - 1];
  if (k != k2)
    return op->emitOpError() << "contracts lhs dimension of size " << k
                             << " with rhs dimension of size " << k2;
  llvm::SmallVector<int64_t> expected(l.drop_back(2));
  if (broadcast) {
    std::optional<llvm::SmallVector<int64_t>> batch =
        broadcastBatch(l.drop_back(2), r.drop_back(2));
    if (!batch)
      return op->emitOpError()
             << "expects batch dimensions that broadcast but got "
             << formatShape(l.drop_back(2)) << " and "
             << formatShape(r.drop_back(2));
    expected = *batch;
  } else if (rr != 2 && r.drop_back(2) != l.drop_back(2)) {
    return op->emitOpError()
           << "expects rhs batch dimensions " << formatShape(l.drop_back(2))
           << " (or a rank-2 rhs) but got " << formatShape(r.drop_back(2));
  }
  expected.append({m, n});
  if (result != llvm::ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << "expects a result of shape " << formatShape(expected)
           << " but got " << formatShape(result);
  return llvm::success();
}

} // namespace mp

#endif // MP_IR_MATMULSHAPES_H
