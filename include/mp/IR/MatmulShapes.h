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

/// `lhs` is [B..., M, K] ([B..., K, M] transposed), `rhs` [B..., K, N]
/// ([B..., N, K] transposed) or a rank-2 [K, N] shared by every batch, and
/// `result` [B..., M, N]. On success `n` is N.
inline llvm::LogicalResult
verifyMatmulShapes(mlir::Operation *op, llvm::ArrayRef<int64_t> l,
                   llvm::ArrayRef<int64_t> r, llvm::ArrayRef<int64_t> result,
                   bool transposeLhs, bool transposeRhs, int64_t &n) {
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
  llvm::ArrayRef<int64_t> batch = l.drop_back(2);
  if (rr != 2 && r.drop_back(2) != batch)
    return op->emitOpError()
           << "expects rhs batch dimensions " << formatShape(batch)
           << " (or a rank-2 rhs) but got " << formatShape(r.drop_back(2));
  llvm::SmallVector<int64_t> expected(batch);
  expected.append({m, n});
  if (result != llvm::ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << "expects a result of shape " << formatShape(expected)
           << " but got " << formatShape(result);
  return llvm::success();
}

} // namespace mp

#endif // MP_IR_MATMULSHAPES_H
