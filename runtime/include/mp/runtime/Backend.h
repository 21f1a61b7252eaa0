//===- Backend.h - where kernels run ----------------------------*- C++ -*-===//
//
// A backend runs the kernels of a plan on tensor views. The reference
// backend (portable C++, every op in f32/bf16/f16) defines correct results;
// faster backends (oneDNN, CUDA) are tested against it.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_BACKEND_H
#define MP_RUNTIME_BACKEND_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace mp::rt {

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;

  /// Checks, before any step runs, that this backend can run `kernel` with
  /// the dtypes and shapes of `plan`; the message names the op and why.
  virtual Status check(const KernelDesc &kernel, const Plan &plan) const = 0;

  /// Runs one kernel. `inputs` and `outputs` follow kernel.inputs/outputs;
  /// outputs never alias inputs. Data errors (a label out of range) are
  /// reported as InvalidArgument.
  virtual Status run(const KernelDesc &kernel,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs) = 0;
};

/// The portable C++ backend.
std::unique_ptr<Backend> createReferenceBackend();

/// Op names the reference backend runs ("train.matmul", "mp.cast", ...).
const std::vector<std::string> &referenceBackendOps();

} // namespace mp::rt

#endif // MP_RUNTIME_BACKEND_H
