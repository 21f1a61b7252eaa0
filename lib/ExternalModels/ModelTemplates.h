//===- ModelTemplates.h - building blocks of the precision models -*- C++ -*-//
#ifndef MP_LIB_EXTERNALMODELS_MODELTEMPLATES_H
#define MP_LIB_EXTERNALMODELS_MODELTEMPLATES_H

#include "mp/Interfaces/PrecisionOpInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mp::models {

/// An op whose float operands and results all follow its compute dtype
/// (elementwise math, data movement).
template <typename OpTy, PrecisionCategory Category, bool Wide>
struct AllValuesModel
    : public PrecisionOpInterface::ExternalModel<
          AllValuesModel<OpTy, Category, Wide>, OpTy> {
  PrecisionCategory getPrecisionCategory(mlir::Operation *) const {
    return Category;
  }
  bool isOperandConvertible(mlir::Operation *, unsigned) const { return true; }
  bool isResultConvertible(mlir::Operation *, unsigned) const { return true; }
  bool needsWideAccumulator(mlir::Operation *) const { return Wide; }
};

/// A destination-style contraction: the inputs take the 16-bit dtype and
/// the init/result keep theirs, which is the accumulator (linalg named ops
/// extend their inputs to the output's element type).
/// A named linalg op that extends its inputs to the init's element type
/// and accumulates there: the inputs take the 16-bit dtype, the f32
/// init/result stays. Contractions and convolutions are allow ops; sum
/// pooling, an accumulation without products, follows its neighbours.
template <typename OpTy, PrecisionCategory Category = PrecisionCategory::Allow>
struct DpsContractionModel
    : public PrecisionOpInterface::ExternalModel<
          DpsContractionModel<OpTy, Category>, OpTy> {
  PrecisionCategory getPrecisionCategory(mlir::Operation *) const {
    return Category;
  }
  bool isOperandConvertible(mlir::Operation *op, unsigned index) const {
    return index < mlir::cast<mlir::DestinationStyleOpInterface>(op)
                       .getNumDpsInputs();
  }
  bool isResultConvertible(mlir::Operation *, unsigned) const { return false; }
  bool needsWideAccumulator(mlir::Operation *) const { return true; }
  /// The named op's builder regenerates the body for the new input types
  /// (extending them to the accumulator type inside the body).
  mlir::Operation *rebuildWithOperands(mlir::Operation *op,
                                       mlir::OpBuilder &builder,
                                       mlir::ValueRange operands) const {
    auto dps = mlir::cast<mlir::DestinationStyleOpInterface>(op);
    unsigned numInputs = dps.getNumDpsInputs();
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    for (mlir::NamedAttribute attr : op->getAttrs())
      if (attr.getName() != "operandSegmentSizes")
        attrs.push_back(attr);
    return OpTy::create(builder, op->getLoc(), op->getResultTypes(),
                        operands.take_front(numInputs),
                        operands.drop_front(numInputs), attrs)
        .getOperation();
  }
};

/// An op the painting leaves alone: it converts nothing (linalg.fill and
/// tensor.empty make accumulator inits, which stay f32).
/// A named linalg op that selects one of its inputs' values (max/min
/// pooling): clear, input and init/result alike in the 16-bit dtype (the
/// selection is exact), rebuilt so that its body matches the new types.
template <typename OpTy>
struct DpsSelectModel
    : public PrecisionOpInterface::ExternalModel<DpsSelectModel<OpTy>, OpTy> {
  PrecisionCategory getPrecisionCategory(mlir::Operation *) const {
    return PrecisionCategory::Clear;
  }
  bool isOperandConvertible(mlir::Operation *, unsigned) const { return true; }
  bool isResultConvertible(mlir::Operation *, unsigned) const { return true; }
  bool needsWideAccumulator(mlir::Operation *) const { return false; }
  mlir::Operation *rebuildWithOperands(mlir::Operation *op,
                                       mlir::OpBuilder &builder,
                                       mlir::ValueRange operands) const {
    auto dps = mlir::cast<mlir::DestinationStyleOpInterface>(op);
    unsigned numInputs = dps.getNumDpsInputs();
    llvm::SmallVector<mlir::Type> resultTypes;
    for (mlir::Value init : operands.drop_front(numInputs))
      resultTypes.push_back(init.getType());
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    for (mlir::NamedAttribute attr : op->getAttrs())
      if (attr.getName() != "operandSegmentSizes")
        attrs.push_back(attr);
    return OpTy::create(builder, op->getLoc(), resultTypes,
                        operands.take_front(numInputs),
                        operands.drop_front(numInputs), attrs)
        .getOperation();
  }
};

template <typename OpTy>
struct NeverConvertModel
    : public PrecisionOpInterface::ExternalModel<NeverConvertModel<OpTy>,
                                                 OpTy> {
  PrecisionCategory getPrecisionCategory(mlir::Operation *) const {
    return PrecisionCategory::Clear;
  }
  bool isOperandConvertible(mlir::Operation *, unsigned) const {
    return false;
  }
  bool isResultConvertible(mlir::Operation *, unsigned) const { return false; }
  bool needsWideAccumulator(mlir::Operation *) const { return false; }
};

/// Attaches AllValuesModel<Op, Category, Wide> to every op in Ops.
template <PrecisionCategory Category, bool Wide, typename... Ops>
void attachAllValues(mlir::MLIRContext *context) {
  (Ops::template attachInterface<AllValuesModel<Ops, Category, Wide>>(
       *context),
   ...);
}

} // namespace mp::models

#endif // MP_LIB_EXTERNALMODELS_MODELTEMPLATES_H
