//===- FusedCodegen.cpp - fused regions to native code --------------------===//
//
// Each fused region (FusedRegions.cpp) becomes one func.func holding one
// linalg.generic on memref views of [begin, end) of its operands. The
// generic's body is the region's kernels, element by element in f32: an
// input is widened, each kernel applies the reference's per-element rule
// (common/ElementMath.h, the same operations in the same order, so no
// rounding differs), and each result is rounded to its tensor's dtype
// before anything reads it, as the kernels round it when they store it.
// Only the transcendentals (exp, log, tanh, erf and what is built on them)
// differ: MLIR's polynomial approximations, which vectorize. The module
// goes down MLIR's own pipeline (linalg -> loops -> LLVM dialect), then
// LLVM's -O3 with its loop vectorizer, once per variant (x86-64-v4 with
// 512-bit vectors, x86-64-v3), to an object linked into a shared library.
//
//===----------------------------------------------------------------------===//
#include "mp/Target/Cpu/FusedCode.h"

#include "FusedFunctions.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <limits>
#include <map>

using namespace mlir;
using mp::rt::OpId;

namespace rt = mp::rt;

namespace {

/// The variants every library holds, best first (CodeLibrary.cpp picks).
struct Variant {
  const char *suffix, *cpu, *vectorWidth;
};
constexpr Variant kVariants[] = {{"avx512", "x86-64-v4", "512"},
                                 {"avx2", "x86-64-v3", "256"}};

/// MLIR's polynomial approximations of exp, log, tanh, erf (and the
/// expansions they need) and the bf16 conversions as integer code, applied
/// to the whole module.
struct ApproximateMathPass
    : public PassWrapper<ApproximateMathPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMathPass)
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // bf16 conversions as integer code (round to nearest even, NaN kept
    // quiet); the rest of arith-expand is left out, as it would turn
    // maxnumf into compares and selects that LLVM does not vectorize as a
    // reduction.
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// FNV-1a over what the generated code assumes of the plan: each region's
/// kernels (ops, operand ids, attributes), operands' dtypes and shapes,
/// extent and row length.
uint64_t codeId(const rt::Plan &plan,
                const std::vector<rt::FusedRegion> &regions) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const rt::FusedRegion &region : regions) {
    os << region.symbol << ';' << region.first << ';' << region.count << ';'
       << region.numInputs << ';' << region.extent << ';' << region.rowLength;
    for (uint32_t id : region.operands) {
      os << ';' << id << ':' << rt::dtypeName(plan.tensors[id].dtype);
      for (int64_t d : plan.tensors[id].shape)
        os << 'x' << d;
    }
    for (size_t k = region.first; k < region.first + region.count; ++k) {
      const rt::KernelDesc &kernel = plan.kernels[k];
      os << '|' << kernel.op;
      for (uint32_t id : kernel.inputs)
        os << ',' << id;
      for (uint32_t id : kernel.outputs)
        os << '>' << id;
      for (const auto &[name, attr] : kernel.attrs) {
        os << ' ' << name << '=';
        for (int64_t v : attr.ints)
          os << v << ',';
        for (double v : attr.floats)
          os << llvm::format("%a", v) << ',';
        os << attr.str;
      }
    }
    os << '\n';
  }
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : text)
    hash = (hash ^ ch) * 0x100000001b3ull;
  return hash;
}

/// The regions' functions lowered to LLVM IR (one body per region).
std::unique_ptr<llvm::Module>
lowerToLlvmIr(const rt::Plan &plan, const std::vector<rt::FusedRegion> &regions,
              llvm::LLVMContext &llvmContext, Location loc) {
  DialectRegistry registry;
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics of this private context name the step's location.
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });

  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  for (const rt::FusedRegion &region : regions) {
    int64_t rows = 0, length = 0;
    if (region.count == 1 && mp::isRowKernel(plan, region.first, rows, length))
      mp::fused::buildRowFunction(b, plan, region);
    else
      mp::fused::buildRegionFunction(b, plan, region);
  }
  if (failed(verify(*module))) {
    emitError(loc) << "generated code: the fused regions' IR does not verify: "
                   << errors;
    return nullptr;
  }

  PassManager pm(&context);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(std::make_unique<ApproximateMathPass>());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true; // static shapes: plain pointers
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(*module))) {
    emitError(loc) << "generated code: lowering the fused regions to the "
                      "LLVM dialect failed: "
                   << errors;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "mp_fused");
  if (!llvmModule)
    emitError(loc) << "generated code: translation to LLVM IR failed: "
                   << errors;
  return llvmModule;
}

/// Per variant: a copy of every body for that CPU and the exported
/// wrapper `<symbol>_<variant>(void *const *operands, i64 begin, i64 end)`;
/// then `mp_code_id()`.
void addEntryPoints(llvm::Module &module,
                    const std::vector<rt::FusedRegion> &regions, uint64_t id) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  llvm::Type *voidType = llvm::Type::getVoidTy(context);
  for (const rt::FusedRegion &region : regions) {
    llvm::Function *body = module.getFunction(region.symbol + "_body");
    for (const Variant &variant : kVariants) {
      llvm::ValueToValueMapTy map;
      llvm::Function *copy = llvm::CloneFunction(body, map);
      copy->setName(region.symbol + "_body_" + variant.suffix);
      copy->setLinkage(llvm::GlobalValue::InternalLinkage);
      auto *wrapper = llvm::Function::Create(
          llvm::FunctionType::get(voidType, {ptr, i64, i64}, false),
          llvm::GlobalValue::ExternalLinkage,
          region.symbol + "_" + variant.suffix, module);
      for (llvm::Function *fn : {copy, wrapper}) {
        fn->addFnAttr("target-cpu", variant.cpu);
        fn->addFnAttr("prefer-vector-width", variant.vectorWidth);
        fn->addFnAttr(llvm::Attribute::NoUnwind);
      }
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", wrapper));
      llvm::SmallVector<llvm::Value *> args;
      for (size_t i = 0; i < region.operands.size(); ++i)
        args.push_back(b.CreateLoad(
            ptr, b.CreateConstInBoundsGEP1_64(ptr, wrapper->getArg(0), i)));
      args.push_back(wrapper->getArg(1));
      args.push_back(wrapper->getArg(2));
      b.CreateCall(copy, args);
      b.CreateRetVoid();
    }
    body->eraseFromParent();
  }
  auto *idFn = llvm::Function::Create(llvm::FunctionType::get(i64, {}, false),
                                      llvm::GlobalValue::ExternalLinkage,
                                      "mp_code_id", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", idFn));
  b.CreateRet(llvm::ConstantInt::get(i64, id));
}

/// The first C compiler driver on PATH, which links the shared library.
std::string findLinker() {
  for (const char *name : {"cc", "gcc", "clang"})
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

} // namespace

LogicalResult mp::generateFusedCode(rt::Plan &plan,
                                    const CodegenOptions &options,
                                    Location loc) {
  std::vector<rt::FusedRegion> regions = findFusedRegions(plan);
  plan.code = rt::PlanCode();
  if (regions.empty())
    return success();

  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  const char *triple = "x86_64-unknown-linux-gnu";
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target)
    return emitError(loc) << "generated code: this LLVM has no x86-64 target ("
                          << error << "); compile with --codegen=none";
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), "x86-64", "", targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "generated code: no x86-64 target machine";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      lowerToLlvmIr(plan, regions, llvmContext, loc);
  if (!module)
    return failure();
  module->setTargetTriple(llvm::Triple(triple));
  module->setDataLayout(machine->createDataLayout());
  uint64_t id = codeId(plan, regions);
  addEntryPoints(*module, regions, id);

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(machine.get());
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager passes =
        builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    passes.run(*module, mam);
  }
  if (!options.llvmIrPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.llvmIrPath, ec);
    if (ec)
      return emitError(loc) << "cannot write '" << options.llvmIrPath
                            << "': " << ec.message();
    module->print(os, nullptr);
  }

  // The object, then `cc -shared` into the library (via a temporary name:
  // a reader never sees half a library).
  std::string object = options.libraryPath + ".o";
  std::string partial = options.libraryPath + ".partial";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec, llvm::sys::fs::OF_None);
    if (ec)
      return emitError(loc) << "cannot write '" << object
                            << "': " << ec.message();
    llvm::legacy::PassManager emit;
    if (machine->addPassesToEmitFile(emit, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "generated code: LLVM cannot emit an x86-64 "
                               "object file";
    emit.run(*module);
  }
  std::string linker = findLinker();
  if (linker.empty()) {
    llvm::sys::fs::remove(object);
    return emitError(loc) << "generated code: no C compiler driver (cc, gcc "
                             "or clang) on PATH to link '"
                          << options.libraryPath
                          << "'; install one or compile with --codegen=none";
  }
  llvm::SmallVector<llvm::StringRef> args{linker,  "-shared", "-o",
                                          partial, object,    "-nostartfiles"};
  std::string linkError;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                     &linkError);
  llvm::sys::fs::remove(object);
  if (rc != 0) {
    llvm::sys::fs::remove(partial);
    return emitError(loc) << "generated code: '" << linker
                          << " -shared' failed to link '"
                          << options.libraryPath << "' (exit " << rc << ") "
                          << linkError;
  }
  if (std::error_code ec = llvm::sys::fs::rename(partial, options.libraryPath))
    return emitError(loc) << "cannot write '" << options.libraryPath
                          << "': " << ec.message();

  plan.code.library = llvm::sys::path::filename(options.libraryPath).str();
  plan.code.id = id;
  plan.code.regions = std::move(regions);
  // The library's size and checksum go into the plan: the runtime checks
  // them before it loads the library.
  if (rt::Status stamped = rt::stampCodeLibrary(plan, options.libraryPath);
      !stamped.isOk())
    return emitError(loc) << "generated code: " << stamped.message();
  rt::planMemory(plan);
  return success();
}
