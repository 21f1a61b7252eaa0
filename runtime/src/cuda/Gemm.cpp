//===- Gemm.cpp - train.matmul on cuBLASLt --------------------------------===//
//
// cuBLAS is column-major; a row-major C = A B is the column-major
// C^T = B^T A^T, so cuBLASLt's "A" is our B and its "B" is our A, with
// m and n swapped, and each operand's leading dimension its row length.
//
//===----------------------------------------------------------------------===//
#include "cuda/Gemm.h"
#include "cuda/SharedLibrary.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace {
constexpr uint64_t kWorkspaceBytes = 32ull << 20;

cudaDataType_t dataType(int32_t dtype) {
  switch (dtype) {
  case 1:
    return CUDA_R_16BF;
  case 2:
    return CUDA_R_16F;
  default:
    return CUDA_R_32F;
  }
}

const char *statusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "cublasStatus_t";
  }
}

Status lt(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Status::ok();
  return internalError(std::string("cuBLASLt ") + what +
                       " failed: " + statusName(status) + " (" +
                       std::to_string(static_cast<int>(status)) + ")");
}

/// cuBLASLt, opened on first use (a cuda GEMM runner): linked, its
/// relocations alone made 150 MB resident in every mp-run on a machine
/// without a GPU. The soname of the headers' major version; the CUDA
/// toolkit's library folder first (MP_CUBLASLT_DIR, from the build).
struct LtApi {
  decltype(&::cublasLtCreate) cublasLtCreate = nullptr;
  decltype(&::cublasLtDestroy) cublasLtDestroy = nullptr;
  decltype(&::cublasLtGetVersion) cublasLtGetVersion = nullptr;
  decltype(&::cublasLtMatmul) cublasLtMatmul = nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) cublasLtMatmulAlgoGetHeuristic = nullptr;
  decltype(&::cublasLtMatmulDescCreate) cublasLtMatmulDescCreate = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) cublasLtMatmulDescDestroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) cublasLtMatmulDescSetAttribute = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) cublasLtMatmulPreferenceCreate = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) cublasLtMatmulPreferenceDestroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) cublasLtMatmulPreferenceSetAttribute = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) cublasLtMatrixLayoutCreate = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) cublasLtMatrixLayoutDestroy = nullptr;
  decltype(&::cublasLtMatrixLayoutSetAttribute) cublasLtMatrixLayoutSetAttribute = nullptr;
  std::string error; ///< why it is not there, when it is not
};

const LtApi &ltApi() {
  static const LtApi api = [] {
    LtApi api;
    std::string soname = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
#ifdef MP_CUBLASLT_DIR
    const char *folder = MP_CUBLASLT_DIR;
#else
    const char *folder = nullptr;
#endif
    void *handle = openSharedLibrary(soname, folder, api.error);
    if (!handle)
      return api;
    auto resolve = [&](auto &fn, const char *name) {
      return resolveFunction(handle, soname, name, fn, api.error);
    };
    (void)(
        resolve(api.cublasLtCreate, "cublasLtCreate") &&
        resolve(api.cublasLtDestroy, "cublasLtDestroy") &&
        resolve(api.cublasLtGetVersion, "cublasLtGetVersion") &&
        resolve(api.cublasLtMatmul, "cublasLtMatmul") &&
        resolve(api.cublasLtMatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic") &&
        resolve(api.cublasLtMatmulDescCreate, "cublasLtMatmulDescCreate") &&
        resolve(api.cublasLtMatmulDescDestroy, "cublasLtMatmulDescDestroy") &&
        resolve(api.cublasLtMatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute") &&
        resolve(api.cublasLtMatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate") &&
        resolve(api.cublasLtMatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy") &&
        resolve(api.cublasLtMatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute") &&
        resolve(api.cublasLtMatrixLayoutCreate, "cublasLtMatrixLayoutCreate") &&
        resolve(api.cublasLtMatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy") &&
        resolve(api.cublasLtMatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute") &&
        true);
    return api;
  }();
  return api;
}
#define MP_LT(name) (ltApi().name)
} // namespace

struct GemmRunner::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~Plan() {
    if (a)
      MP_LT(cublasLtMatrixLayoutDestroy)(a);
    if (b)
      MP_LT(cublasLtMatrixLayoutDestroy)(b);
    if (c)
      MP_LT(cublasLtMatrixLayoutDestroy)(c);
    if (desc)
      MP_LT(cublasLtMatmulDescDestroy)(desc);
  }
};

uint32_t mp::rt::cuda::alignmentOf(const void *p) {
  uintptr_t address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (alignment * 2) == 0)
    alignment *= 2;
  return alignment;
}

StatusOr<std::unique_ptr<GemmRunner>> GemmRunner::create(cudaStream_t stream,
                                                         bool allowTf32) {
  std::unique_ptr<GemmRunner> runner(new GemmRunner());
  runner->stream_ = stream;
  runner->allowTf32_ = allowTf32;
  if (!ltApi().error.empty())
    return internalError("the cuda backend's matmuls need cuBLASLt: " +
                         ltApi().error);
  MP_RETURN_IF_ERROR(lt(MP_LT(cublasLtCreate)(&runner->handle_), "create"));
  cudaError_t error = cudaMalloc(&runner->workspace_, kWorkspaceBytes);
  if (error != cudaSuccess)
    return internalError(std::string("cannot allocate the cuBLASLt "
                                     "workspace: ") +
                         cudaGetErrorString(error));
  runner->workspaceBytes_ = kWorkspaceBytes;
  return runner;
}

GemmRunner::~GemmRunner() {
  plans_.clear();
  if (workspace_)
    cudaFree(workspace_);
  if (handle_)
    MP_LT(cublasLtDestroy)(handle_);
}

std::string GemmRunner::version() const {
  size_t v = MP_LT(cublasLtGetVersion)();
  return "cuBLASLt " + std::to_string(v / 10000) + "." +
         std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

StatusOr<const GemmRunner::Plan *> GemmRunner::planFor(const GemmProblem &p) {
  auto cached = plans_.find(p);
  if (cached != plans_.end())
    return static_cast<const Plan *>(cached->second.get());

  auto plan = std::make_unique<Plan>();
  bool f32 = p.inType == 0;
  cublasComputeType_t compute =
      f32 && allowTf32_ ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  MP_RETURN_IF_ERROR(
      lt(MP_LT(cublasLtMatmulDescCreate)(&plan->desc, compute, CUDA_R_32F),
         "matmul descriptor"));
  // cuBLASLt's A is our B, its B our A (see the file comment).
  int32_t opA = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t opB = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  MP_RETURN_IF_ERROR(
      lt(MP_LT(cublasLtMatmulDescSetAttribute)(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                        &opA, sizeof(opA)),
         "transpose attribute"));
  MP_RETURN_IF_ERROR(
      lt(MP_LT(cublasLtMatmulDescSetAttribute)(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                        &opB, sizeof(opB)),
         "transpose attribute"));

  auto layout = [&](cublasLtMatrixLayout_t &out, int32_t dtype, int64_t rows,
                    int64_t cols, int64_t stride) {
    MP_RETURN_IF_ERROR(
        lt(MP_LT(cublasLtMatrixLayoutCreate)(&out, dataType(dtype), rows, cols, rows),
           "matrix layout"));
    int32_t batch = static_cast<int32_t>(p.batch);
    MP_RETURN_IF_ERROR(
        lt(MP_LT(cublasLtMatrixLayoutSetAttribute)(
               out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)),
           "batch count"));
    return lt(MP_LT(cublasLtMatrixLayoutSetAttribute)(
                  out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                  sizeof(stride)),
              "batch stride");
  };
  // Column-major shapes as stored: our row-major B [K, N] is (N x K), ld N;
  // transposed [N, K] it is (K x N), ld K. Likewise A.
  MP_RETURN_IF_ERROR(layout(plan->a, p.inType, p.transB ? p.k : p.n,
                            p.transB ? p.n : p.k, p.strideB));
  MP_RETURN_IF_ERROR(layout(plan->b, p.inType, p.transA ? p.m : p.k,
                            p.transA ? p.k : p.m, p.strideA));
  MP_RETURN_IF_ERROR(layout(plan->c, p.outType, p.n, p.m, p.strideC));

  cublasLtMatmulPreference_t preference = nullptr;
  MP_RETURN_IF_ERROR(
      lt(MP_LT(cublasLtMatmulPreferenceCreate)(&preference), "preference"));
  struct PreferenceGuard {
    cublasLtMatmulPreference_t p;
    ~PreferenceGuard() { MP_LT(cublasLtMatmulPreferenceDestroy)(p); }
  } guard{preference};
  MP_RETURN_IF_ERROR(
      lt(MP_LT(cublasLtMatmulPreferenceSetAttribute)(
             preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
             &workspaceBytes_, sizeof(workspaceBytes_)),
         "workspace preference"));
  // Our A is cuBLASLt's B and vice versa; C and D are the same buffer.
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, p.alignB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, p.alignA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.alignC},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.alignC}};
  for (const auto &[attribute, value] : aligns)
    MP_RETURN_IF_ERROR(lt(MP_LT(cublasLtMatmulPreferenceSetAttribute)(
                              preference, attribute, &value, sizeof(value)),
                          "alignment preference"));

  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  MP_RETURN_IF_ERROR(lt(MP_LT(cublasLtMatmulAlgoGetHeuristic)(
                            handle_, plan->desc, plan->a, plan->b, plan->c,
                            plan->c, preference, 1, &result, &found),
                        "heuristic"));
  if (found == 0)
    return internalError("cuBLASLt has no algorithm for a " +
                         std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                         std::to_string(p.k) + " matmul (batch " +
                         std::to_string(p.batch) + ")");
  plan->algo = result.algo;
  const Plan *raw = plan.get();
  plans_.emplace(p, std::move(plan));
  return raw;
}

Status GemmRunner::run(const GemmProblem &p, const void *a, const void *b,
                       void *c) {
  if (p.m == 0 || p.n == 0 || p.batch == 0)
    return Status::ok();
  if (p.k == 0) // an empty contraction: zeros
    return cudaMemsetAsync(c, 0, p.batch * p.m * p.n * (p.outType == 0 ? 4 : 2),
                           stream_) == cudaSuccess
               ? Status::ok()
               : internalError("cudaMemsetAsync failed");
  StatusOr<const Plan *> plan = planFor(p);
  if (!plan.isOk())
    return plan.status();
  const Plan &q = **plan;
  float alpha = 1.0f, beta = 0.0f;
  return lt(MP_LT(cublasLtMatmul)(handle_, q.desc, &alpha, b, q.a, a, q.b, &beta, c,
                           q.c, c, q.c, &q.algo, workspace_, workspaceBytes_,
                           stream_),
            "matmul");
}
