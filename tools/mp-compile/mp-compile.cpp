//===- mp-compile.cpp - compile a training step to an executable plan -----===//
//
//   mp-compile step.mlir -o step.mpplan [--mixed-precision="policy=..."]
//                        [--eval] [--target-cpu=native]
//                        [--image-layout=nhwc|keep] [--codegen=cpu|none]
//
// Parses and verifies the module, optionally runs the mixed-precision
// pipeline (the options of --mp-mixed-precision), and writes the plan of
// its `train.step` function (or, with --eval, the forward-only plan that
// returns the loss and the logits). --target-cpu=native: warns when the
// policy's 16-bit matmuls and convolutions have no fast instructions on
// this CPU (the warning mp-run gives; CpuFeatures.h). --image-layout:
// NCHW convolution chains run in NHWC (mp-channels-last, the default:
// oneDNN's convolutions take NHWC images without reordering them) or as
// written (keep). --codegen=cpu: runs of elementwise kernels also become
// native functions in a shared library next to the plan (docs/codegen.md:
// <plan>.code.so), which the cpu backend calls.
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/InitAll.h"
#include "mp/Target/Cpu/FusedCode.h"
#include "mp/Target/Plan/PlanBuilder.h"
#include "mp/Transforms/Passes.h"
#include "mp/runtime/Backend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdlib>

using namespace mlir;

// --help lists these, not LLVM's internal options (every target's, which
// libMLIR.so registers).
static llvm::cl::OptionCategory mpCompileCategory("mp-compile options");

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::init("-"),
                                            llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<std::string>
    outputFile("o", llvm::cl::desc("plan file to write"),
               llvm::cl::value_desc("file"), llvm::cl::init(""),
               llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<bool> checkOnly(
    "check-only",
    llvm::cl::desc("compile the step and write nothing: exit 0 when the "
                   "step and the options compile (what mp-run --auto-fix "
                   "checks before training)"),
    llvm::cl::init(false), llvm::cl::cat(mpCompileCategory));
static llvm::cl::list<std::string> fixDeny(
    "fix-deny",
    llvm::cl::desc("ops to keep in float32, merged into --mixed-precision: "
                   "put on the deny list and taken off the user's allow, "
                   "infer and clear additions (mp-run --auto-fix)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<double> fixInitScale(
    "fix-init-scale",
    llvm::cl::desc("the initial loss scale, replacing --mixed-precision's "
                   "(mp-run --auto-fix)"),
    llvm::cl::init(0), llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<std::string> mixedPrecision(
    "mixed-precision",
    llvm::cl::desc("run the mixed-precision pipeline first, with these "
                   "options (as --mp-mixed-precision takes them)"),
    llvm::cl::init(""), llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<bool>
    runPipeline("pipeline",
                llvm::cl::desc("run the mixed-precision pipeline first"),
                llvm::cl::init(false), llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<bool>
    evaluation("eval", llvm::cl::desc("write the forward-only plan"),
               llvm::cl::init(false), llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<std::string> targetCpu(
    "target-cpu",
    llvm::cl::desc("the CPU the plan will train on: 'native' (this one: warn "
                   "when the plan's 16-bit policy cannot be faster than "
                   "float32 on it) or 'generic' (no assumption, the default)"),
    llvm::cl::init("generic"), llvm::cl::cat(mpCompileCategory));

static llvm::cl::opt<std::string> imageLayout(
    "image-layout",
    llvm::cl::desc("the layout of a convolution chain's images in the plan: "
                   "'nhwc' (NCHW chains are rewritten, the default) or "
                   "'keep' (as the step is written)"),
    llvm::cl::init("nhwc"), llvm::cl::cat(mpCompileCategory));

static llvm::cl::opt<std::string> codegen(
    "codegen",
    llvm::cl::desc("native code for fused runs of elementwise kernels: 'cpu' "
                   "(x86-64, AVX-512 and AVX2 variants, in <plan>.code.so "
                   "next to the plan) or 'none' (the default)"),
    llvm::cl::init("none"), llvm::cl::cat(mpCompileCategory));
static llvm::cl::opt<std::string> emitLlvm(
    "emit-llvm",
    llvm::cl::desc("with --codegen=cpu: also write the optimized LLVM IR of "
                   "the generated code to this file"),
    llvm::cl::value_desc("file"), llvm::cl::init(""),
    llvm::cl::cat(mpCompileCategory));

/// The library next to `plan`: "step.mpplan" -> "step.code.so".
static std::string libraryPathFor(llvm::StringRef plan) {
  plan.consume_back(".mpplan");
  return (plan + ".code.so").str();
}

static int compile(int argc, char **argv);

/// As mp-opt: a crash of MLIR's parser on malformed input (an upstream bug,
/// docs/reliability.md) becomes an error and exit code 1.
/// policy=auto's decision in the JSON report the pipeline wrote (report=
/// FILE): {"policy_auto": {"chosen", "reason"}} beside its functions.
static LogicalResult recordAutoPolicy(llvm::StringRef file,
                                      llvm::StringRef chosen,
                                      llvm::StringRef reason) {
  if (file.empty() || file == "-")
    return success();
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer) {
    llvm::errs() << "mp-compile: cannot read the report '" << file
                 << "': " << buffer.getError().message() << "\n";
    return failure();
  }
  llvm::Expected<llvm::json::Value> report =
      llvm::json::parse((*buffer)->getBuffer());
  llvm::json::Object *object = report ? report->getAsObject() : nullptr;
  if (!object) {
    if (!report)
      llvm::consumeError(report.takeError());
    llvm::errs() << "mp-compile: the report '" << file
                 << "' is not a JSON object\n";
    return failure();
  }
  (*object)["policy_auto"] =
      llvm::json::Object{{"chosen", chosen.str()}, {"reason", reason.str()}};
  std::string error;
  auto out = mlir::openOutputFile(file, &error);
  if (!out) {
    llvm::errs() << "mp-compile: " << error << "\n";
    return failure();
  }
  out->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(*object)))
            << "\n";
  out->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::setBugReportMsg(
      "mp-compile: MLIR crashed on this input; the stack dump below is "
      "MLIR's (docs/reliability.md: MLIR 22's parsers crash on some "
      "malformed IR):\n");
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  int result = 1;
  if (!context.RunSafely([&] { result = compile(argc, argv); })) {
    llvm::errs() << "mp-compile: error: the input crashed MLIR while it was "
                    "read or compiled (the error above, if any, says "
                    "where); this is an MLIR bug on malformed input, not a "
                    "result: fix the input\n";
    // The crash left MLIR's objects half-made: they are neither destroyed
    // nor handed to LeakSanitizer's exit check, whose report of them would
    // be no finding (docs/reliability.md, "Sanitizers").
    std::_Exit(1);
  }
  return result;
}

static int compile(int argc, char **argv) {
  llvm::cl::HideUnrelatedOptions(mpCompileCategory);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "mp-compile: training step -> plan\n");

  DialectRegistry registry;
  mp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // An error names its op by location (for an exported model, the user's
  // source line); the op itself is not printed after it, which for an
  // error on the module would be the whole input.
  context.printOpOnDiagnostic(false);

  if (imageLayout != "nhwc" && imageLayout != "keep") {
    llvm::errs() << "mp-compile: unknown --image-layout '" << imageLayout
                 << "' (nhwc or keep)\n";
    return 1;
  }
  if (codegen != "cpu" && codegen != "none") {
    llvm::errs() << "mp-compile: unknown --codegen '" << codegen
                 << "' (cpu or none)\n";
    return 1;
  }
  if (targetCpu != "native" && targetCpu != "generic") {
    llvm::errs() << "mp-compile: unknown --target-cpu '" << targetCpu
                 << "' (native or generic)\n";
    return 1;
  }

  if (outputFile.empty() && !checkOnly) {
    llvm::errs() << "mp-compile: no output: give -o PLAN (or --check-only)\n";
    return 1;
  }
  bool fixes = !fixDeny.empty() || fixInitScale != 0;
  if (fixes && mixedPrecision.empty()) {
    llvm::errs() << "mp-compile: --fix-deny and --fix-init-scale change "
                    "--mixed-precision's options; give them\n";
    return 1;
  }
  if (fixInitScale < 0) {
    llvm::errs() << "mp-compile: --fix-init-scale must be positive\n";
    return 1;
  }

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "mp-compile: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  std::string compiledWith;
  if (runPipeline || !mixedPrecision.empty()) {
    PassManager pm(&context);
    auto options = mp::MixedPrecisionOptions::createFromString(mixedPrecision);
    if (!options) {
      llvm::errs() << "mp-compile: bad --mixed-precision options '"
                   << mixedPrecision << "'\n";
      return 1;
    }
    // The fix mp-run --auto-fix asks for, merged into the typed options:
    // an op kept in float32 leaves the user's other lists.
    if (!fixDeny.empty()) {
      for (auto *list :
           {&options->allowAdd, &options->inferAdd, &options->clearAdd}) {
        std::vector<std::string> kept;
        for (const std::string &name : *list)
          if (!llvm::is_contained(fixDeny, name))
            kept.push_back(name);
        *list = kept;
      }
      for (const std::string &name : fixDeny)
        if (!llvm::is_contained(options->denyAdd, name))
          options->denyAdd.push_back(name);
    }
    if (fixInitScale != 0)
      options->initScale = fixInitScale;
    // policy=auto: chosen here, for this machine and the options' target
    // (docs/python.md); said once, with the reason.
    bool automatic = options->policy == "auto";
    std::string reason;
    if (automatic) {
      std::string chosen = mp::rt::chooseAutoPolicy(options->target, reason);
      if (chosen.empty()) {
        llvm::errs() << "mp-compile: policy=auto: unknown target '"
                     << options->target << "' (cpu or cuda)\n";
        return 1;
      }
      llvm::errs() << "mp-compile: policy auto: " << chosen << ": " << reason
                   << "\n";
      options->policy = chosen;
    }
    // The plan records the options it was compiled with (its own recompile
    // starts from them): as given, or printed from the merged ones (the
    // policy auto chose, not "auto").
    if (fixes || automatic) {
      std::string printed;
      llvm::raw_string_ostream os(printed);
      options->print(os);
      llvm::StringRef inner = llvm::StringRef(printed).trim();
      inner.consume_front("{");
      inner.consume_back("}");
      compiledWith = inner.trim().str();
    } else {
      compiledWith = mixedPrecision;
    }
    // Each kernel of the plan records its op's decision (KernelDesc::
    // precision, for mp-run's non-finite diagnosis).
    options->keepAnnotations = true;
    mp::buildMixedPrecisionPipeline(pm, *options);
    if (failed(pm.run(*module)))
      return 1;
    if (automatic &&
        failed(recordAutoPolicy(options->jsonFile, options->policy, reason)))
      return 1;
  }

  if (imageLayout == "nhwc") {
    PassManager pm(&context);
    pm.addPass(mp::createChannelsLast());
    if (failed(pm.run(*module)))
      return 1;
  }

  FunctionOpInterface step;
  for (auto fn : module->getOps<FunctionOpInterface>()) {
    if (!mp::train::isTrainStep(fn))
      continue;
    if (step) {
      fn.emitError() << "more than one train.step function; mp-compile "
                        "takes one";
      return 1;
    }
    step = fn;
  }
  if (!step) {
    emitError(module->getLoc()) << "no function is marked 'train.step'";
    return 1;
  }

  mp::PlanOptions options;
  options.evaluation = evaluation;
  FailureOr<mp::rt::Plan> plan = mp::buildPlan(step, options);
  if (failed(plan))
    return 1;
  plan->compileOptions = compiledWith;
  if (checkOnly)
    return 0;
  if (targetCpu == "native") {
    std::string warning = mp::rt::cpuPolicySpeedWarning(plan->policy);
    if (!warning.empty())
      llvm::errs() << "mp-compile: warning: " << warning << "\n";
  }
  if (codegen == "cpu") {
    mp::CodegenOptions codegenOptions;
    codegenOptions.libraryPath = libraryPathFor(outputFile);
    codegenOptions.llvmIrPath = emitLlvm;
    if (failed(mp::generateFusedCode(*plan, codegenOptions, step.getLoc())))
      return 1;
  }
  mp::rt::Status written = mp::rt::writePlanFile(*plan, outputFile);
  if (!written.isOk()) {
    llvm::errs() << "mp-compile: " << written.message() << "\n";
    return 1;
  }
  return 0;
}
