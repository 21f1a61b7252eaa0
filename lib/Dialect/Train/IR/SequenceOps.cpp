//===- SequenceOps.cpp - verifiers of attention and the recurrent cells ---===//
//
// Attention: query / key / value shapes sharing their batch dimensions, a
// mask that broadcasts to the scores, a positive scale. Cells: [B, 4H] or
// [B, 3H] gates against a [B, H] state.
//
//===----------------------------------------------------------------------===//
#include "VerifierSupport.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mp::train;
using namespace mp::train::verify;

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Checks query [B..., Tq, D], key [B..., Tk, D], value [B..., Tk, Dv], the
/// mask against the scores [B..., Tq, Tk], and the scale. `out` is the
/// forward's result (or the gradient of it): [B..., Tq, Dv].
static LogicalResult verifyAttention(Operation *op, Value query, Value key,
                                     Value value, Value mask, Value out,
                                     std::optional<double> scale) {
  ArrayRef<int64_t> q = shapeOf(query), k = shapeOf(key), v = shapeOf(value);
  if (q.size() < 2)
    return op->emitOpError()
           << "expects a query of rank >= 2 ([..., Tq, D]) but got "
           << shapeStr(q);
  size_t rank = q.size();
  if (k.size() != rank || v.size() != rank)
    return op->emitOpError() << "expects query, key and value of one rank "
                                "but got "
                             << shapeStr(q) << ", " << shapeStr(k) << " and "
                             << shapeStr(v);
  ArrayRef<int64_t> batch = q.drop_back(2);
  if (k.drop_back(2) != batch || v.drop_back(2) != batch)
    return op->emitOpError()
           << "expects query, key and value with the same batch "
              "dimensions but got "
           << shapeStr(q) << ", " << shapeStr(k) << " and " << shapeStr(v);
  int64_t tq = q[rank - 2], d = q[rank - 1], tk = k[rank - 2];
  if (k[rank - 1] != d)
    return op->emitOpError() << "expects key " << shapeStr(k)
                             << " to have the query's depth " << d;
  if (v[rank - 2] != tk)
    return op->emitOpError() << "expects value " << shapeStr(v) << " to have "
                             << "the key's length " << tk;
  SmallVector<int64_t> expected(batch);
  expected.append({tq, v[rank - 1]});
  if (failed(checkShape(op, "the result (or its gradient)", expected, out)))
    return failure();
  if (scale && !(std::isfinite(*scale) && *scale > 0))
    return op->emitOpError() << "needs a finite positive scale, got "
                             << num(*scale);
  if (!mask)
    return success();
  Type element = elementOf(mask);
  if (!element.isInteger(1) && !isa<FloatType>(element))
    return op->emitOpError() << "expects an i1 or float mask but got "
                             << element;
  SmallVector<int64_t> scores(batch);
  scores.append({tq, tk});
  ArrayRef<int64_t> m = shapeOf(mask);
  bool fits = m.size() <= scores.size();
  for (size_t i = 0; fits && i < m.size(); ++i) {
    int64_t target = scores[scores.size() - m.size() + i];
    fits = m[i] == target || m[i] == 1;
  }
  if (!fits)
    return op->emitOpError() << "expects a mask that broadcasts to the scores "
                             << shapeStr(scores) << " but got " << shapeStr(m);
  return success();
}

static std::optional<double> scaleOf(std::optional<APFloat> scale) {
  if (!scale)
    return std::nullopt;
  return scale->convertToDouble();
}

LogicalResult AttentionOp::verify() {
  return verifyAttention(*this, getQuery(), getKey(), getValue(), getMask(),
                         getResult(), scaleOf(getScale()));
}

LogicalResult AttentionGradOp::verify() {
  return verifyAttention(*this, getQuery(), getKey(), getValue(), getMask(),
                         getGrad(), scaleOf(getScale()));
}

//===----------------------------------------------------------------------===//
// Recurrent cells
//===----------------------------------------------------------------------===//

/// Checks a [B, H] state against [B, blocks * H] gates.
static LogicalResult verifyCell(Operation *op, Value gates, Value state,
                                int64_t blocks) {
  if (failed(checkRank(op, "a state", state, 2)))
    return failure();
  ArrayRef<int64_t> s = shapeOf(state);
  return checkShape(op, "gates", {s[0], blocks * s[1]}, gates);
}

LogicalResult LstmCellOp::verify() {
  return verifyCell(*this, getGates(), getC(), 4);
}
LogicalResult LstmCellGradOp::verify() {
  return verifyCell(*this, getGates(), getC(), 4);
}
LogicalResult GruCellOp::verify() {
  return verifyCell(*this, getInputGates(), getH(), 3);
}
LogicalResult GruCellGradOp::verify() {
  return verifyCell(*this, getInputGates(), getH(), 3);
}
