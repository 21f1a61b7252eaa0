//===- OneDnn.h - oneDNN engine and cached primitives -----------*- C++ -*-===//
//
// The only place the cpu backend meets oneDNN's C++ API. No oneDNN type
// appears in this header, so that the rest of the runtime (and its users)
// need neither its headers nor its exceptions.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_ONEDNN_H
#define MP_RUNTIME_CPU_ONEDNN_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace mp::rt::cpu {

/// Ok when oneDNN (v3) is loaded and has created the process's CPU engine;
/// the engine is created once, on the first call.
Status oneDnnStatus();
/// The cpu backend (CpuBackend.cpp), for the registry
/// (core/BackendRegistry.cpp); fails with oneDnnStatus() where oneDNN
/// cannot run.
StatusOr<std::unique_ptr<Backend>> makeCpuBackend();

/// "oneDNN 3.13.2, ISA avx10_1_512_amx, threading TBB": for describe().
std::string oneDnnDescription();

/// train.matmul and mp.matmul_epilogue on oneDNN matmul primitives, one
/// per problem (batch, M, N, K, dtypes, transposes, shared rhs, bias dtype,
/// ReLU), created on first use and kept. The epilogue is oneDNN's bias
/// argument and an eltwise_relu post-op, applied to the f32 accumulator.
class MatmulCache {
public:
  struct Impl;
  MatmulCache();
  ~MatmulCache();
  MatmulCache(const MatmulCache &) = delete;
  MatmulCache &operator=(const MatmulCache &) = delete;

  /// Runs the matmul when oneDNN implements it (`handled` = true). Leaves
  /// `handled` false, and the tensors untouched, for problems it leaves to
  /// the reference kernel: empty dimensions, a dtype combination oneDNN
  /// has no implementation for on this CPU, and views that do not make a
  /// valid matmul (the reference kernel reports those).
  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs, bool &handled);
  /// Whether run() will run this problem (views without data suffice):
  /// creates and keeps its primitive, and says what runs it. The backend's
  /// prepare() calls it, so that primitives are made before the first step.
  StatusOr<bool> prepare(const KernelDesc &kernel,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         std::string &implementation);

  /// How many problems got primitives (tests check the caching).
  size_t primitivesCreated() const;
  /// oneDNN's implementation name of the primitive that ran last ("brg_
  /// matmul:avx10_1_512_amx"), with " on f32, f16 widened ..." when the
  /// 16-bit operands were widened (OneDnnMatmul.cpp); "" when the last
  /// call was not handled.
  const std::string &lastImplementation() const;
  /// Bytes of the scratch the widened problems convert into (the most any
  /// one of them has needed so far).
  size_t scratchBytes() const;

private:
  std::unique_ptr<Impl> impl_;
};

enum class ConvKind : uint8_t { Forward, BackwardData, BackwardFilter };

/// train.conv2d, conv2d_backward_data and conv2d_backward_filter on oneDNN
/// convolution primitives, NCHW with OIHW filters or NHWC with HWIO filters
/// as the plan has them, one primitive per problem (op, layout, shapes,
/// window, dtypes), created on first use and kept; 16-bit problems oneDNN
/// has no implementation for run on the f32 primitive with their operands
/// widened (OneDnnConv.cpp). Problems oneDNN only has its slow reference
/// implementation for (`ref:any`) are left to our reference kernel.
class ConvCache {
public:
  struct Impl;
  ConvCache();
  ~ConvCache();
  ConvCache(const ConvCache &) = delete;
  ConvCache &operator=(const ConvCache &) = delete;

  /// As MatmulCache::run and prepare.
  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs, bool &handled);
  StatusOr<bool> prepare(const KernelDesc &kernel,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         std::string &implementation);
  size_t primitivesCreated() const;
  const std::string &lastImplementation() const;
  /// Bytes of the scratch the operands are reordered into.
  size_t scratchBytes() const;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_ONEDNN_H
