//===- mp-opt.cpp - the mp optimizer driver -------------------------------===//
//
// mlir-opt with the train and mp dialects and the upstream dialects that
// mixed-precision graphs meet (func, arith, math, tensor, linalg, tosa).
// Unlike mlir-opt it takes several input files (`mp-opt examples/*.mlir`):
// each is processed on its own with the same options and the results are
// printed one after the other.
//
//===----------------------------------------------------------------------===//
#include "common/HelpOptions.h"
#include "mp/InitAll.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdlib>
#include <vector>

/// Positional arguments that name .mlir files (an option's value, like the
/// file after -o, is not one).
static std::vector<int> inputArguments(int argc, char **argv) {
  std::vector<int> inputs;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (arg.starts_with("-")) {
      if (arg == "-o")
        ++i; // skip the output file
      continue;
    }
    if (arg.ends_with(".mlir"))
      inputs.push_back(i);
  }
  return inputs;
}

static int runOpt(int argc, char **argv);

/// Runs the driver in a crash-recovery context: MLIR 22's parsers crash on
/// some malformed input (linalg.transpose with an unterminated
/// `permutation = [1, 0`, docs/reliability.md), after they reported the
/// error. A crash becomes this tool's error and exit code 1 instead of a
/// segfault and a stack dump.
int main(int argc, char **argv) {
  // LLVM's crash handler prints its stack dump before recovery: say first
  // what it is.
  llvm::setBugReportMsg(
      "mp-opt: MLIR crashed on this input; the stack dump below is MLIR's "
      "(docs/reliability.md: MLIR 22's parsers crash on some malformed IR):\n");
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  int result = 1;
  if (!context.RunSafely([&] { result = runOpt(argc, argv); })) {
    llvm::errs() << "mp-opt: error: the input crashed MLIR while it was "
                    "read or processed (the error above, if any, says "
                    "where); this is an MLIR bug on malformed input, not a "
                    "result: fix the input\n";
    // The crash left MLIR's objects half-made: they are neither destroyed
    // nor handed to LeakSanitizer's exit check, whose report of them would
    // be no finding (docs/reliability.md, "Sanitizers").
    std::_Exit(1);
  }
  return result;
}

static int runOpt(int argc, char **argv) {
  // LLVM's own options out of --help; mlir-opt's, registered by
  // MlirOptMain below, stay (common/HelpOptions.h).
  mp::tools::hideLibraryOptions({"color"});
  mlir::DialectRegistry registry;
  mp::registerAllDialects(registry);
  mp::registerAllPasses();

  std::vector<int> inputs = inputArguments(argc, argv);
  if (inputs.size() <= 1)
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, "mp optimizer driver\n", registry));

  // Several inputs: parse the options once without them, then run each.
  std::vector<char *> args;
  for (int i = 0, next = 0; i < argc; ++i) {
    if (next < static_cast<int>(inputs.size()) && inputs[next] == i) {
      ++next;
      continue;
    }
    args.push_back(argv[i]);
  }
  auto [inputName, outputName] = mlir::registerAndParseCLIOptions(
      static_cast<int>(args.size()), args.data(), "mp optimizer driver\n",
      registry);
  (void)inputName;
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  std::string error;
  auto output = mlir::openOutputFile(outputName, &error);
  if (!output) {
    llvm::errs() << "mp-opt: " << error << "\n";
    return 1;
  }
  for (int index : inputs) {
    auto buffer = mlir::openInputFile(argv[index], &error);
    if (!buffer) {
      llvm::errs() << "mp-opt: " << error << "\n";
      return 1;
    }
    if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(buffer),
                                       registry, config)))
      return 1;
  }
  output->keep();
  return 0;
}
