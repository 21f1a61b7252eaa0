//===- FusedCode.h - native code for elementwise runs ----------*- C++ -*-===//
//
// mp-compile's code generation for the CPU (docs/codegen.md). After a plan
// is built and laid out, runs of consecutive elementwise kernels over one
// iteration space (the float unary and binary ops, the activations and
// their gradients, bias_add along the last dimension, fill, mp.cast, the
// broadcasts of a scalar or of leading or trailing dimensions) become
// fused regions, and so does each row kernel (the norms, softmax): each is
// lowered from linalg.generic ops on memrefs,
// whose body applies the kernels' per-element rules in f32 with each
// result rounded to its tensor's dtype, through MLIR's code generation
// (linalg -> loops -> LLVM, transcendentals as MLIR's polynomial
// approximations) and LLVM's optimizer and loop vectorizer to x86-64
// machine code, in an AVX-512 and an AVX2 variant, linked into one shared
// library the plan names. The kernels stay in the plan: the reference
// backend runs them (the oracle), the cpu backend calls the functions.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TARGET_CPU_FUSEDCODE_H
#define MP_TARGET_CPU_FUSEDCODE_H

#include "mp/runtime/Plan.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mp {

/// The fused regions of `plan` (laid out: its flags set), in kernel order:
/// maximal runs of at least two consecutive kernels that generated code
/// runs (isFusibleKernel) over one iteration space. Symbols are
/// "mp_fused_<index>"; operands, extent and row length as the runtime
/// reads them (rt::FusedRegion).
std::vector<rt::FusedRegion> findFusedRegions(const rt::Plan &plan);

/// Whether generated code computes kernel `k` of `plan` (its op, dtypes
/// and attributes), and on which row length: 1 (any), the last dimension
/// of a bias_add's input, or a broadcast's: the size of the trailing
/// dimensions it copies (a column broadcast) or of those it fills in
/// after the leading ones it copies (a row broadcast). For tests and docs.
bool isFusibleKernel(const rt::Plan &plan, size_t k, int64_t &rowLength);

/// How an elementwise region's function reads one of its input operands
/// over its iteration space [extent, rowLength]: the whole space (Full),
/// one value per column (Column: a bias, or a broadcast of the trailing
/// dimensions), one value per row (Row: a broadcast of the leading
/// dimensions, as a keep-dims reduction is broadcast back) or one value
/// (Scalar).
enum class OperandKind { Full, Column, Row, Scalar };

/// Each operand's kind (outputs are Full), from the kernels that read it;
/// false where two of them read one operand in different ways.
bool fusedOperandKinds(const rt::Plan &plan, const rt::FusedRegion &region,
                       std::vector<OperandKind> &kinds);

/// Whether kernel `k` is a row kernel generated code computes (layer_norm,
/// rms_norm, softmax / log_softmax along the last axis and their
/// gradients), over `rows` rows of `length` elements.
bool isRowKernel(const rt::Plan &plan, size_t k, int64_t &rows,
                 int64_t &length);

struct CodegenOptions {
  /// The shared library to write; the plan records its file name.
  std::string libraryPath;
  /// The LLVM IR of the optimized module is also written here, if set.
  std::string llvmIrPath;
};

/// Finds the fused regions of `plan`, generates their code into
/// options.libraryPath, records it in plan.code and re-plans the arena
/// (a region's tensors live from its first kernel to its last). A plan
/// without regions is left as it is and no library is written. Errors
/// (no x86-64 target in this LLVM, no linker, a file that cannot be
/// written) are emitted at `loc`.
mlir::LogicalResult generateFusedCode(rt::Plan &plan,
                                      const CodegenOptions &options,
                                      mlir::Location loc);

} // namespace mp

#endif // MP_TARGET_CPU_FUSEDCODE_H
