//===- PrecisionReport.cpp - say what the precision passes did ------------===//
#include "mp/IR/Vocabulary.h"
#include "mp/Transforms/Functions.h"
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Annotations.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Support/FileUtilities.h"

#include <algorithm>

namespace mp {
#define GEN_PASS_DEF_PRECISIONREPORT
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

static std::string locationString(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

namespace {

/// What one function's report says.
struct FunctionReport {
  std::string name;
  std::string policy;
  Type computeType;
  unsigned painted = 0, converted = 0;
  unsigned castsToLow = 0, castsToF32 = 0, castsOther = 0;
  /// Every op of the function (its terminators and constants too) and
  /// those the painting did not decide: without a decision at the
  /// function's top level (no PrecisionOpInterface, or an op the policy
  /// does not touch), and inside a nested region (a loop's body, a
  /// linalg.generic's payload), which the passes leave as written.
  unsigned total = 0, undecided = 0, nested = 0;
  /// Ops that stayed fp32, by name, with counts (deterministic order).
  llvm::MapVector<StringRef, unsigned> fp32Ops;
  llvm::MapVector<StringRef, unsigned> noInterface;
  llvm::json::Array ops;
  /// A data-parallel step's reductions (train.all_reduce, one per bucket)
  /// and the bytes each rank sends per step (their operands).
  unsigned reductions = 0;
  int64_t reducedBytes = 0;
  /// Its broadcast buffers (train.rank_broadcast of batch norm's running
  /// statistics from rank 0) and their bytes.
  unsigned broadcastBuffers = 0;
  int64_t broadcastBytes = 0;
  bool syncBatchNorm = false;
  std::string reducedType;
  /// ZeRO-1 (train.reduce_scatter): the ranks the state is sharded over,
  /// the bytes the gathers bring back per step, and the optimizer state
  /// each rank keeps, sharded and as it would be whole.
  int64_t worldSize = 0, gatheredBytes = 0;
  int64_t stateBytes = 0, wholeStateBytes = 0;
};

struct PrecisionReportPass
    : public mp::impl::PrecisionReportBase<PrecisionReportPass> {
  using PrecisionReportBase::PrecisionReportBase;

  void runOnOperation() override {
    llvm::json::Array functions;
    for (auto fn : functionsIn(getOperation())) {
      if (fn.isExternal())
        continue;
      // Nothing to say: only strip the annotations (the common case in a
      // pipeline without a report costs one walk).
      if (!summary && jsonFile.empty()) {
        if (!keepAnnotations)
          fn.walk([](Operation *op) { op->removeAttr(kPrecisionAttrName); });
        continue;
      }
      FunctionReport report = collect(fn, /*perOp=*/!jsonFile.empty());
      if (summary)
        emitRemark(fn.getLoc()) << summaryLine(report);
      if (!jsonFile.empty())
        functions.push_back(toJson(std::move(report)));
      if (!keepAnnotations)
        fn.walk([](Operation *op) { op->removeAttr(kPrecisionAttrName); });
    }
    if (!jsonFile.empty() && failed(writeJson(std::move(functions))))
      signalPassFailure();
  }

  /// Counts what happened in `fn`; `perOp` also records each op for JSON.
  FunctionReport collect(FunctionOpInterface fn, bool perOp) {
    FunctionReport report;
    report.name = fn.getName().str();
    if (auto policy = fn->getAttrOfType<StringAttr>(kPolicyAttrName))
      report.policy = policy.getValue().str();
    report.syncBatchNorm = fn->hasAttr(kSyncBatchNormAttrName);
    // The optimizer state each rank keeps, and as it would be whole (a
    // ZeRO-1 shard's whole shape is its mp.shard_of).
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      if (train::getArgRole(fn, i) == train::Role::OptState) {
        auto type = cast<ShapedType>(fn.getArgument(i).getType());
        int64_t bytes = std::max(8u, type.getElementTypeBitWidth()) / 8;
        report.stateBytes += type.getNumElements() * bytes;
        int64_t whole = type.getNumElements();
        if (auto shape =
                fn.getArgAttrOfType<DenseI64ArrayAttr>(i, kShardOfAttrName)) {
          whole = 1;
          for (int64_t d : shape.asArrayRef())
            whole *= d;
        }
        report.wholeStateBytes += whole * bytes;
      }
    fn.walk([&](Operation *op) {
      if (op == fn.getOperation())
        return;
      ++report.total;
      bool topLevel = op->getParentOp() == fn.getOperation();
      if (!isa<mpd::CastOp>(op) && !op->hasAttr(kPrecisionAttrName)) {
        if (topLevel)
          ++report.undecided;
        else
          ++report.nested;
      }
      if (auto reduce = dyn_cast<train::AllReduceOp>(op)) {
        ++report.reductions;
        bool bf16 = reduce.getReduceDtype() == train::ReduceDType::bf16;
        for (Value v : reduce.getInputs()) {
          auto type = cast<ShapedType>(v.getType());
          int64_t bits = bf16 ? 16 : type.getElementTypeBitWidth();
          report.reducedBytes += type.getNumElements() * bits / 8;
        }
        if (report.reducedType.empty())
          report.reducedType =
              train::stringifyReduceDType(reduce.getReduceDtype()).str();
      }
      if (auto scatter = dyn_cast<train::ReduceScatterOp>(op)) {
        ++report.reductions;
        report.worldSize = scatter.getWorldSize();
        for (Value v : scatter.getInputs()) {
          auto type = cast<ShapedType>(v.getType());
          report.reducedBytes +=
              type.getNumElements() * type.getElementTypeBitWidth() / 8;
        }
        report.reducedType = "f32";
      }
      if (auto gather = dyn_cast<train::AllGatherOp>(op))
        for (Value v : gather.getResults()) {
          auto type = cast<ShapedType>(v.getType());
          report.gatheredBytes +=
              type.getNumElements() * type.getElementTypeBitWidth() / 8;
        }
      if (auto broadcast = dyn_cast<train::RankBroadcastOp>(op)) {
        for (Value v : broadcast.getInputs()) {
          auto type = cast<ShapedType>(v.getType());
          ++report.broadcastBuffers;
          report.broadcastBytes += type.getNumElements() *
                                   std::max(8u, type.getElementTypeBitWidth()) /
                                   8;
        }
      }
      if (auto cast = dyn_cast<mpd::CastOp>(op)) {
        Type to = getElementTypeOrSelf(cast.getType());
        if (to.isF32())
          ++report.castsToF32;
        else if (to.getIntOrFloatBitWidth() == 16)
          ++report.castsToLow;
        else
          ++report.castsOther;
        return;
      }
      auto decision = op->getAttrOfType<DictionaryAttr>(kPrecisionAttrName);
      if (!decision)
        return;
      Type dtype = getDecidedType(op);
      StringRef rule = decision.getAs<StringAttr>("rule").getValue();
      StringRef source = decision.getAs<StringAttr>("source").getValue();
      ++report.painted;
      if (!dtype.isF32()) {
        ++report.converted;
        report.computeType = dtype;
      } else {
        ++report.fp32Ops[op->getName().getStringRef()];
      }
      if (source == "no-interface")
        ++report.noInterface[op->getName().getStringRef()];
      if (!perOp)
        return;
      report.ops.push_back(llvm::json::Object{
          {"loc", locationString(op->getLoc())},
          {"op", op->getName().getStringRef()},
          {"category", decision.getAs<StringAttr>("category").getValue()},
          {"dtype", typeString(dtype)},
          {"rule", rule},
          {"source", source},
      });
    });
    return report;
  }

  std::string summaryLine(const FunctionReport &r) {
    std::string text;
    llvm::raw_string_ostream os(text);
    std::optional<PolicyKind> policy = symbolizePolicyKind(r.policy);
    if (policy == PolicyKind::Float32) {
      os << "float32 policy: nothing converted";
      return text;
    }
    std::string low = r.computeType ? typeString(r.computeType)
                      : policy == PolicyKind::MixedFloat16 ? "f16"
                                                           : "bf16";
    os << "converted " << r.converted << "/" << r.painted << " ops to " << low
       << " with " << (r.castsToLow + r.castsToF32 + r.castsOther)
       << " casts (" << r.castsToLow << " to " << low << ", " << r.castsToF32
       << " to f32)";
    if (!r.fp32Ops.empty()) {
      os << "; fp32 islands: ";
      llvm::interleaveComma(r.fp32Ops, os, [&](auto &entry) {
        os << entry.first << " x" << entry.second;
      });
    }
    if (!r.noInterface.empty()) {
      os << "; kept fp32 for lack of PrecisionOpInterface: ";
      llvm::interleaveComma(r.noInterface, os,
                            [&](auto &entry) { os << entry.first; });
    }
    os << "; " << r.total << " ops in all, " << r.undecided
       << " undecided at the top level, " << r.nested
       << " inside nested regions (loop bodies, generic payloads) left as "
          "written";
    return text;
  }

  llvm::json::Value toJson(FunctionReport r) {
    llvm::json::Object noInterface;
    for (auto &[name, count] : r.noInterface)
      noInterface[name] = count;
    llvm::json::Object fp32;
    for (auto &[name, count] : r.fp32Ops)
      fp32[name] = count;
    llvm::json::Object object{
        {"function", r.name},
        {"policy", r.policy},
        {"summary", summaryLine(r)},
        {"ops_painted", r.painted},
        {"ops_converted", r.converted},
        {"ops_total", r.total},
        {"ops_undecided", r.undecided},
        {"ops_nested", r.nested},
        {"casts_to_low", r.castsToLow},
        {"casts_to_f32", r.castsToF32},
        {"fp32_ops", std::move(fp32)},
        {"no_interface", std::move(noInterface)},
        {"ops", std::move(r.ops)},
    };
    if (r.reductions) {
      llvm::json::Object parallel{{"reductions", r.reductions},
                                  {"bytes_per_step", r.reducedBytes},
                                  {"dtype", r.reducedType}};
      if (r.syncBatchNorm)
        parallel["batch_norm"] =
            "batch statistics of the global batch, over every rank "
            "(SyncBatchNorm)";
      else if (r.broadcastBuffers)
        parallel["batch_norm"] =
            "per-rank batch statistics; rank 0's running statistics on "
            "every rank (PyTorch DDP's broadcast_buffers)";
      if (r.worldSize) {
        parallel["mode"] = "zero1";
        parallel["world_size"] = r.worldSize;
        parallel["gathered_bytes_per_step"] = r.gatheredBytes;
        parallel["optimizer_state_bytes_per_rank"] = r.stateBytes;
        parallel["optimizer_state_bytes_unsharded"] = r.wholeStateBytes;
      } else {
        parallel["mode"] = "allreduce";
      }
      if (r.broadcastBuffers) {
        parallel["buffers_from_rank0"] = r.broadcastBuffers;
        parallel["buffer_bytes_per_step"] = r.broadcastBytes;
      }
      object["data_parallel"] = std::move(parallel);
    }
    return object;
  }

  LogicalResult writeJson(llvm::json::Array functions) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(jsonFile, &error);
    if (!out)
      return getOperation().emitError()
             << "cannot write the precision report: " << error;
    out->os() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"functions", std::move(functions)}}));
    out->keep();
    return success();
  }
};

} // namespace
