//===- KernelSupport.h - what every reference kernel shares -----*- C++ -*-===//
//
// A reference kernel is a pair of functions over tensor views: `check`
// validates dtypes, shapes and attributes (it sees views without data, so
// the backend can run it on a plan before the first step), and `run`
// computes. Kernels widen their inputs to f32, compute and accumulate in
// f32, and round once when they store a result.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_KERNELSUPPORT_H
#define MP_RUNTIME_REFERENCE_KERNELSUPPORT_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace mp::rt::ref {

using Views = std::vector<TensorView>;
using Shape = std::vector<int64_t>;
using KernelFn = Status (*)(const KernelDesc &kernel, const Views &inputs,
                            const Views &outputs);

/// One op of the reference backend.
struct KernelEntry {
  OpId op;
  KernelFn check; ///< never reads tensor data
  KernelFn run;   ///< called only after `check` succeeded
};
using KernelTable = std::vector<KernelEntry>;

/// Each op family adds its kernels to the registry.
void addElementwiseKernels(KernelTable &table);
void addMatmulKernels(KernelTable &table);
void addConvolutionKernels(KernelTable &table);
void addConvolution1DKernels(KernelTable &table);
void addNormalizationKernels(KernelTable &table);
void addGroupNormKernels(KernelTable &table);
void addSoftmaxKernels(KernelTable &table);
void addPointwiseLossKernels(KernelTable &table);
void addReductionKernels(KernelTable &table);
void addPoolingKernels(KernelTable &table);
void addEmbeddingKernels(KernelTable &table);
void addShapeKernels(KernelTable &table);
void addOptimizerKernels(KernelTable &table);
void addStepStateKernels(KernelTable &table);
void addMixedPrecisionKernels(KernelTable &table);
void addAttentionKernels(KernelTable &table);
void addRecurrentKernels(KernelTable &table);

//===----------------------------------------------------------------------===//
// Diagnostics and checks: every message starts with the op name.
//===----------------------------------------------------------------------===//

Status kernelError(const KernelDesc &kernel, const std::string &message);

Status checkArity(const KernelDesc &kernel, const Views &inputs,
                  const Views &outputs, size_t numInputs, size_t numOutputs);
Status checkFloat(const KernelDesc &kernel, const TensorView &v,
                  const char *what);
Status checkDType(const KernelDesc &kernel, const TensorView &v, DType dtype,
                  const char *what);
Status checkIndex(const KernelDesc &kernel, const TensorView &v,
                  const char *what); ///< i32 or i64
Status checkShape(const KernelDesc &kernel, const TensorView &v,
                  const Shape &expected, const char *what);
Status checkRank(const KernelDesc &kernel, const TensorView &v, size_t rank,
                 const char *what);
/// Same dtype and shape.
Status checkSameType(const KernelDesc &kernel, const TensorView &a,
                     const char *whatA, const TensorView &b, const char *whatB);
/// Ops that may accumulate into a wider result: `out` has `in`'s float
/// dtype or f32, never a narrower one.
Status checkAccumulator(const KernelDesc &kernel, const TensorView &in,
                        const TensorView &out);

/// Resolves a possibly negative dimension against `rank` into `resolved`.
Status resolveDim(const KernelDesc &kernel, int64_t dim, int64_t rank,
                  const char *what, int64_t &resolved);
/// A required dense-array attribute, with `size` entries (any when 0).
Status getArray(const KernelDesc &kernel, AttrName name, size_t size,
                Shape &values);

//===----------------------------------------------------------------------===//
// Shapes and element access.
//===----------------------------------------------------------------------===//

int64_t product(const Shape &shape, size_t begin, size_t end);
/// Row-major strides (in elements) of `shape`.
Shape stridesOf(const Shape &shape);

/// A widening buffer of this thread, reused by later kernels: a fresh
/// tensor-size allocation per call is fresh pages (a page fault per 4 KiB)
/// every time. Buffers are taken and given back in LIFO order (FloatIn /
/// FloatOut are locals), and each thread keeps its high-water mark.
class ScratchFloats {
public:
  explicit ScratchFloats(int64_t n);
  ~ScratchFloats();
  ScratchFloats(const ScratchFloats &) = delete;
  ScratchFloats &operator=(const ScratchFloats &) = delete;
  float *data() { return data_; }

private:
  float *data_;
};

/// The elements of a float tensor as f32: the tensor's own memory when it is
/// f32, otherwise a widened copy (exact for bf16 and f16).
class FloatIn {
public:
  explicit FloatIn(const TensorView &view);
  const float *data() const { return data_; }
  float operator[](int64_t i) const { return data_[i]; }

private:
  std::optional<ScratchFloats> copy_;
  const float *data_;
};

/// A result computed in f32: written in place when the output is f32,
/// otherwise into a buffer that finish() rounds (to nearest even) into the
/// output, so that each element is rounded exactly once.
class FloatOut {
public:
  /// `zeroed`: the elements start at 0 (for kernels that accumulate).
  FloatOut(const TensorView &view, bool zeroed = false);
  float *data() { return data_; }
  float &operator[](int64_t i) { return data_[i]; }
  void finish();

private:
  TensorView view_;
  std::optional<ScratchFloats> copy_;
  float *data_;
};

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_KERNELSUPPORT_H
