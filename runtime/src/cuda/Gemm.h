//===- Gemm.h - train.matmul on cuBLASLt ------------------------*- C++ -*-===//
//
// Row-major C[M, N] = op(A)[M, K] op(B)[K, N], batched, on cuBLASLt: bf16 and
// f16 inputs on Tensor Cores with f32 accumulation (CUBLAS_COMPUTE_32F), f32
// inputs in full f32 unless TF32 is allowed. Each problem (sizes, dtypes,
// transposes, strides, the operands' alignment) gets its descriptors and
// the heuristic's algorithm once; later calls only launch.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_GEMM_H
#define MP_RUNTIME_CUDA_GEMM_H

#include "mp/runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

typedef struct CUstream_st *cudaStream_t;
struct cublasLtContext;

namespace mp::rt::cuda {

struct GemmProblem {
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0; ///< elements; B may be 0
  int32_t inType = 0, outType = 0;               ///< runtime DType codes
  uint32_t alignA = 256, alignB = 256, alignC = 256;

  auto key() const {
    return std::make_tuple(transA, transB, m, n, k, batch, strideA, strideB,
                           strideC, inType, outType, alignA, alignB, alignC);
  }
  bool operator<(const GemmProblem &other) const { return key() < other.key(); }
};

/// The largest power of two (<= 256) that divides the address.
uint32_t alignmentOf(const void *p);

class GemmRunner {
public:
  /// The cuBLASLt handle, a 32 MiB workspace and the options; Internal when
  /// cuBLASLt cannot start.
  static StatusOr<std::unique_ptr<GemmRunner>> create(cudaStream_t stream,
                                                      bool allowTf32);
  ~GemmRunner();

  /// C = A B for `p`; the first call for a problem picks its algorithm.
  Status run(const GemmProblem &p, const void *a, const void *b, void *c);

  /// "cuBLASLt 13.0.x": for describe().
  std::string version() const;

private:
  GemmRunner() = default;
  struct Plan;
  StatusOr<const Plan *> planFor(const GemmProblem &p);

  cublasLtContext *handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void *workspace_ = nullptr;
  uint64_t workspaceBytes_ = 0;
  bool allowTf32_ = false;
  std::map<GemmProblem, std::unique_ptr<Plan>> plans_;
};

} // namespace mp::rt::cuda

#endif // MP_RUNTIME_CUDA_GEMM_H
