//===- FusedFunctions.cpp - a fused region as one func.func ---------------===//
#include "FusedFunctions.h"

#include "mp/Target/Cpu/FusedCode.h"

#include "ElementBuilder.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cassert>
#include <map>

using namespace mlir;
using namespace mp::fused;

namespace {

/// func.func @<symbol>_body(operands as `operandTypes`, begin, end: index)
/// and its entry block.
Block *createBody(OpBuilder &b, const rt::FusedRegion &region,
                  ArrayRef<Type> operandTypes) {
  SmallVector<Type> argTypes(operandTypes.begin(), operandTypes.end());
  argTypes.push_back(b.getIndexType());
  argTypes.push_back(b.getIndexType());
  auto fn = func::FuncOp::create(b, b.getUnknownLoc(), region.symbol + "_body",
                                 b.getFunctionType(argTypes, {}));
  // The arena plan keeps a region's tensors apart (planMemory), so no two
  // operands overlap: the loops vectorize without run-time alias checks.
  for (size_t i = 0; i < operandTypes.size(); ++i)
    fn.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
  return fn.addEntryBlock();
}

} // namespace

/// func.func @<symbol>_body(operands as memrefs, begin, end): the region's
/// kernels over [begin, end) of its extent.
void mp::fused::buildRegionFunction(OpBuilder &b, const rt::Plan &plan,
                                    const rt::FusedRegion &region) {
  MLIRContext *context = b.getContext();
  Location loc = b.getUnknownLoc();
  bool rows = region.rowLength > 1;
  // How each operand is read: findFusedRegions made no region with an
  // operand read two ways.
  std::vector<OperandKind> kinds;
  [[maybe_unused]] bool oneWay = fusedOperandKinds(plan, region, kinds);
  assert(oneWay && "a fused region reads an operand two ways");
  SmallVector<Type> argTypes;
  for (size_t i = 0; i < region.operands.size(); ++i) {
    Type element = elementType(context, plan.tensors[region.operands[i]].dtype);
    switch (kinds[i]) {
    case OperandKind::Scalar:
      argTypes.push_back(MemRefType::get({1}, element));
      break;
    case OperandKind::Column:
      argTypes.push_back(MemRefType::get({region.rowLength}, element));
      break;
    case OperandKind::Row:
      argTypes.push_back(MemRefType::get({region.extent}, element));
      break;
    case OperandKind::Full:
      if (rows)
        argTypes.push_back(
            MemRefType::get({region.extent, region.rowLength}, element));
      else
        argTypes.push_back(MemRefType::get({region.extent}, element));
      break;
    }
  }
  Block *entry = createBody(b, region, argTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value begin = entry->getArgument(region.operands.size());
  Value end = entry->getArgument(region.operands.size() + 1);
  Value count = arith::SubIOp::create(b, loc, end, begin);

  unsigned rank = rows ? 2 : 1;
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap columnMap =
      AffineMap::get(rank, 0, {b.getAffineDimExpr(rank - 1)}, context);
  AffineMap rowMap = AffineMap::get(rank, 0, {b.getAffineDimExpr(0)}, context);
  AffineMap scalarMap =
      AffineMap::get(rank, 0, {b.getAffineConstantExpr(0)}, context);
  SmallVector<Value> inputs, outputs;
  SmallVector<AffineMap> maps;
  for (size_t i = 0; i < region.operands.size(); ++i) {
    Value arg = entry->getArgument(i);
    Value view = arg;
    switch (kinds[i]) {
    case OperandKind::Scalar:
      maps.push_back(scalarMap);
      break;
    case OperandKind::Column:
      maps.push_back(columnMap);
      break;
    case OperandKind::Row:
      // This range's rows.
      view = memref::SubViewOp::create(
          b, loc, arg, SmallVector<OpFoldResult>{begin},
          SmallVector<OpFoldResult>{count},
          SmallVector<OpFoldResult>{b.getIndexAttr(1)});
      maps.push_back(rowMap);
      break;
    case OperandKind::Full: {
      SmallVector<OpFoldResult> offsets{begin}, sizes{count},
          strides{b.getIndexAttr(1)};
      if (rows) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(b.getIndexAttr(region.rowLength));
        strides.push_back(b.getIndexAttr(1));
      }
      view = memref::SubViewOp::create(b, loc, arg, offsets, sizes, strides);
      maps.push_back(identity);
      break;
    }
    }
    (i < region.numInputs ? inputs : outputs).push_back(view);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, inputs, outputs, maps, iterators,
      [&](OpBuilder &nested, Location bodyLoc, ValueRange args) {
        ElementBuilder e(nested, bodyLoc);
        Type f32 = nested.getF32Type();
        std::map<uint32_t, Value> value, stored;
        for (size_t i = 0; i < region.numInputs; ++i) {
          Value arg = args[i];
          value[region.operands[i]] =
              arg.getType() == f32 || arg.getType().isInteger()
                  ? arg
                  : arith::ExtFOp::create(nested, bodyLoc, f32, arg)
                        .getResult();
        }
        for (size_t k = region.first; k < region.first + region.count; ++k) {
          const rt::KernelDesc &kernel = plan.kernels[k];
          SmallVector<Value> in;
          for (uint32_t id : kernel.inputs)
            in.push_back(value.at(id));
          uint32_t out = kernel.outputs[0];
          rt::DType dtype = plan.tensors[out].dtype;
          Value result = e.kernel(kernel, dtype, in);
          if (dtype == rt::DType::F32) {
            value[out] = stored[out] = result;
          } else {
            Value narrow = arith::TruncFOp::create(
                nested, bodyLoc, elementType(context, dtype), result);
            stored[out] = narrow;
            value[out] = arith::ExtFOp::create(nested, bodyLoc, f32, narrow);
          }
        }
        SmallVector<Value> yields;
        for (size_t i = region.numInputs; i < region.operands.size(); ++i)
          yields.push_back(stored.at(region.operands[i]));
        linalg::YieldOp::create(nested, bodyLoc, yields);
      });
  func::ReturnOp::create(b, loc);
}

namespace {

/// What the ops of a row function build with: the scf.for over rows
/// [begin, end) of a row kernel's region, each row's view of an operand,
/// sums over the row into a one-element buffer, and a row written from an
/// f32 rule.
struct RowBuilder {
  RowBuilder(OpBuilder &b, const rt::Plan &plan, const rt::FusedRegion &region)
      : b(b), loc(b.getUnknownLoc()), context(b.getContext()),
        kernel(plan.kernels[region.first]), op(kernel.opId()),
        rows(region.extent), length(region.rowLength),
        inputs(kernel.inputs.size()), e(b, loc) {}

  OpBuilder &b;
  Location loc;
  MLIRContext *context;
  const rt::KernelDesc &kernel;
  OpId op;
  int64_t rows, length;
  size_t inputs;
  ElementBuilder e;
  Block *entry = nullptr;
  Value r, acc64, acc32, zeroIndex;

  /// Each operand's shape by its place in the kernel: full [rows, length],
  /// a vector [length] (scale, offset) or one value per row [rows].
  SmallVector<int64_t> shapeOf(size_t operand) const {
    bool norm = op == OpId::TrainLayerNorm || op == OpId::TrainRmsNorm;
    if (!norm || operand == 0 || operand == inputs)
      return {rows, length};
    return operand < inputs ? SmallVector<int64_t>{length}
                            : SmallVector<int64_t>{rows};
  }

  /// Operand i's row r as a [1, length] view, or the operand itself.
  Value rowOf(size_t i) {
    Value arg = entry->getArgument(i);
    if (shapeOf(i).size() != 2)
      return arg;
    SmallVector<OpFoldResult> offsets{r, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(length)};
    SmallVector<OpFoldResult> strides{b.getIndexAttr(1), b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, arg, offsets, sizes, strides);
  }

  static Value widen(OpBuilder &nb, Location l, Value v, Type to) {
    return v.getType() == to ? v
                             : arith::ExtFOp::create(nb, l, to, v).getResult();
  }
  static Value narrow(OpBuilder &nb, Location l, Value v, Type to) {
    return v.getType() == to
               ? v
               : arith::TruncFOp::create(nb, l, to, v).getResult();
  }
  /// A payload's input elements (all its arguments but the output's) in
  /// f32.
  static SmallVector<Value> widenInputs(OpBuilder &nb, Location l,
                                        ValueRange args) {
    SmallVector<Value> elements;
    for (Value v : args.drop_back())
      elements.push_back(widen(nb, l, v, nb.getF32Type()));
    return elements;
  }

  /// A linalg.generic over the row: `ins` into `out` with `maps`, the
  /// second dimension `along`, its payload `payload` of the f32 input
  /// elements and the output element.
  void
  generic(ValueRange ins, Value out, ArrayRef<AffineMap> maps,
          utils::IteratorType along,
          function_ref<Value(ElementBuilder &, ValueRange, Value)> payload) {
    linalg::GenericOp::create(
        b, loc, ins, ValueRange{out}, maps,
        {utils::IteratorType::parallel, along},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          ElementBuilder eb(nb, l);
          SmallVector<Value> elements = widenInputs(nb, l, args);
          linalg::YieldOp::create(nb, l, payload(eb, elements, args.back()));
        });
  }

  /// acc = combine(acc, f32 elements of `views`) over the row.
  Value
  reduce(ArrayRef<Value> views, Value accBuffer, Value init,
         function_ref<Value(ElementBuilder &, ValueRange, Value)> combine) {
    memref::StoreOp::create(b, loc, init, accBuffer, ValueRange{zeroIndex});
    SmallVector<AffineMap> maps(views.size(), b.getMultiDimIdentityMap(2));
    maps.push_back(AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, context));
    generic(views, accBuffer, maps, utils::IteratorType::reduction, combine);
    return memref::LoadOp::create(b, loc, accBuffer, ValueRange{zeroIndex});
  }

  /// Writes output operand `out`'s row from the f32 `rule` of the row
  /// operands `views` (full) and `vectors` ([length], broadcast).
  void writeRow(size_t out, ArrayRef<Value> views, ArrayRef<Value> vectors,
                function_ref<Value(ElementBuilder &, ValueRange)> rule) {
    SmallVector<Value> ins(views.begin(), views.end());
    ins.append(vectors.begin(), vectors.end());
    AffineMap full = b.getMultiDimIdentityMap(2);
    SmallVector<AffineMap> maps(views.size(), full);
    maps.append(vectors.size(),
                AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, context));
    maps.push_back(full);
    Value target = rowOf(out);
    Type outType = cast<MemRefType>(target.getType()).getElementType();
    generic(ins, target, maps, utils::IteratorType::parallel,
            [&](ElementBuilder &eb, ValueRange elements, Value) {
              return narrow(eb.builder(), eb.location(), rule(eb, elements),
                            outType);
            });
  }

  /// Stores `value` as row r's element of the per-row output `out`.
  void storeScalar(size_t out, Value value) {
    Value target = entry->getArgument(out);
    Type type = cast<MemRefType>(target.getType()).getElementType();
    memref::StoreOp::create(b, loc, narrow(b, loc, value, type), target,
                            ValueRange{r});
  }
};

/// layer_norm / rms_norm, as reference/Normalization.cpp: mean and the
/// centred sum of squares in f64, inv = 1 / sqrt(ss / n + epsilon) in f64,
/// rounded once; y = (x - mean) * inv * scale + offset (+ 0 without an
/// offset) in f32.
void buildNormRow(RowBuilder &row) {
  ElementBuilder &e = row.e;
  bool centered = row.op == OpId::TrainLayerNorm;
  double epsilon = static_cast<float>(
      row.kernel.getFloat(rt::AttrName::epsilon, centered ? 1e-5 : 1e-6));
  Value x = row.rowOf(0);
  Value size = e.c64(static_cast<double>(row.length));
  Value meanD = e.c64(0.0);
  if (centered) {
    Value sum = row.reduce({x}, row.acc64, e.c64(0.0),
                           [&](ElementBuilder &eb, ValueRange v, Value acc) {
                             return eb.accumulate(acc, eb.to64(v[0]));
                           });
    meanD = e.div(sum, size);
  }
  Value squares = row.reduce({x}, row.acc64, e.c64(0.0),
                             [&](ElementBuilder &eb, ValueRange v, Value acc) {
                               Value d = eb.sub(eb.to64(v[0]), meanD);
                               return eb.accumulate(acc, eb.mul(d, d));
                             });
  Value inv = e.to32(
      e.div(e.c64(1.0),
            math::SqrtOp::create(row.b, row.loc,
                                 e.add(e.div(squares, size), e.c64(epsilon)))));
  Value mean = e.to32(meanD);
  SmallVector<Value> vectors{row.entry->getArgument(1)};
  if (centered)
    vectors.push_back(row.entry->getArgument(2));
  row.writeRow(row.inputs, {x}, vectors, [&](ElementBuilder &eb, ValueRange v) {
    Value scaled = eb.mul(eb.mul(eb.sub(v[0], mean), inv), v[1]);
    return eb.add(scaled, centered ? v[2] : eb.c(0.0f));
  });
  if (centered)
    row.storeScalar(row.inputs + 1, mean);
  row.storeScalar(row.inputs + (centered ? 2 : 1), inv);
}

/// softmax / log_softmax, as reference/Softmax.cpp: the row's fmax, the f64
/// sum of exp(x - max) rounded once; exp(x - max) / sum or x - max -
/// log(sum).
void buildSoftmaxRow(RowBuilder &row) {
  ElementBuilder &e = row.e;
  Value x = row.rowOf(0);
  Value max =
      row.reduce({x}, row.acc32, e.c(-std::numeric_limits<float>::infinity()),
                 [&](ElementBuilder &eb, ValueRange v, Value acc) {
                   return eb.maxnum(acc, v[0]);
                 });
  Value total = row.reduce({x}, row.acc64, e.c64(0.0),
                           [&](ElementBuilder &eb, ValueRange v, Value acc) {
                             return eb.accumulate(
                                 acc, eb.to64(eb.exp(eb.sub(v[0], max))));
                           });
  Value sum = e.to32(total);
  bool log = row.op == OpId::TrainLogSoftmax;
  Value logSum = log ? e.log(sum) : Value();
  row.writeRow(row.inputs, {x}, {}, [&](ElementBuilder &eb, ValueRange v) {
    Value shifted = eb.sub(v[0], max);
    return log ? eb.sub(shifted, logSum) : eb.div(eb.exp(shifted), sum);
  });
}

/// Their gradients from grad and y: y * (grad - sum(grad * y)), or grad -
/// exp(y) * sum(grad), the sums in f64 rounded once.
void buildSoftmaxGradRow(RowBuilder &row) {
  ElementBuilder &e = row.e;
  bool log = row.op == OpId::TrainLogSoftmaxGrad;
  Value grad = row.rowOf(0), y = row.rowOf(1);
  Value total = row.reduce({grad, y}, row.acc64, e.c64(0.0),
                           [&](ElementBuilder &eb, ValueRange v, Value acc) {
                             Value g = eb.to64(v[0]);
                             return eb.accumulate(
                                 acc, log ? g : eb.mul(g, eb.to64(v[1])));
                           });
  Value sum = e.to32(total);
  row.writeRow(row.inputs, {grad, y}, {},
               [&](ElementBuilder &eb, ValueRange v) {
                 return log ? eb.sub(v[0], eb.mul(eb.exp(v[1]), sum))
                            : eb.mul(v[1], eb.sub(v[0], sum));
               });
}

} // namespace

/// func.func @<symbol>_body for a region of one row kernel (isRowKernel):
/// an scf.for over the rows [begin, end), each row's sums as
/// linalg.generic reductions into a one-element buffer (f64, added with
/// reassociation allowed, so that LLVM vectorizes them: f64 sums in any
/// order of a row of f32 values keep far more than f32's precision), then
/// one generic writing the row.
void mp::fused::buildRowFunction(OpBuilder &b, const rt::Plan &plan,
                                 const rt::FusedRegion &region) {
  RowBuilder row(b, plan, region);
  SmallVector<Type> argTypes;
  for (size_t i = 0; i < region.operands.size(); ++i)
    argTypes.push_back(MemRefType::get(
        row.shapeOf(i),
        elementType(row.context, plan.tensors[region.operands[i]].dtype)));
  Block *entry = createBody(b, region, argTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Location loc = row.loc;
  size_t n = region.operands.size();
  Value begin = entry->getArgument(n), end = entry->getArgument(n + 1);
  row.entry = entry;
  row.acc64 =
      memref::AllocaOp::create(b, loc, MemRefType::get({1}, b.getF64Type()));
  row.acc32 =
      memref::AllocaOp::create(b, loc, MemRefType::get({1}, b.getF32Type()));
  row.zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, begin, end, one);
  b.setInsertionPointToStart(loop.getBody());
  row.r = loop.getInductionVar();
  switch (row.op) {
  case OpId::TrainLayerNorm:
  case OpId::TrainRmsNorm:
    buildNormRow(row);
    break;
  case OpId::TrainSoftmax:
  case OpId::TrainLogSoftmax:
    buildSoftmaxRow(row);
    break;
  case OpId::TrainSoftmaxGrad:
  case OpId::TrainLogSoftmaxGrad:
    buildSoftmaxGradRow(row);
    break;
  default:
    llvm_unreachable("not a row kernel (isRowKernel)");
  }
  b.setInsertionPointAfter(loop);
  func::ReturnOp::create(b, loc);
}
