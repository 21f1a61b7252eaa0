//===- cuda_gemm.cpp - mp-bench-cuda-gemm: cuda backend matmul vs cuBLASLt ===//
//
// Times train.matmul on the cuda backend (Backend::run: what a session step
// pays, the cached cuBLASLt plan look-up and the launch) against cuBLASLt
// called directly with the same problem (descriptors and the heuristic's
// first algorithm made once, cublasLtMatmul in the loop, 32 MiB workspace,
// its own stream). Square M = N = K, row-major, inputs and result in the
// same dtype (bf16, f16 or f32; f32 accumulation). Each side: 3 warm-up
// calls, then `reps` calls between two synchronizations, best of `rounds`.
// Also checks that both computed the same result (max relative difference).
// JSON lines on stdout.
//
//   mp-bench-cuda-gemm [--sizes 4096] [--dtypes bf16,f16,f32] [--reps 50]
//                      [--rounds 5]
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "mp-bench-cuda-gemm: error: %s\n", message.c_str());
  std::exit(1);
}

void check(const Status &status) {
  if (!status.isOk())
    fail(status.message());
}
void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    fail(std::string(what) + ": " + cudaGetErrorString(error));
}
void check(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail(std::string(what) + ": cuBLASLt status " +
         std::to_string(static_cast<int>(status)));
}

std::vector<std::string> split(const std::string &text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
    if (!part.empty())
      parts.push_back(part);
  return parts;
}

DType parseDType(const std::string &name) {
  if (name == "bf16")
    return DType::BF16;
  if (name == "f16")
    return DType::F16;
  if (name == "f32")
    return DType::F32;
  fail("unknown dtype '" + name + "' (bf16, f16, f32)");
}

cudaDataType_t cudaType(DType dtype) {
  return dtype == DType::BF16  ? CUDA_R_16BF
         : dtype == DType::F16 ? CUDA_R_16F
                               : CUDA_R_32F;
}

/// cuBLASLt called directly: row-major C = A B as column-major C^T = B^T A^T.
struct Direct {
  cublasLtHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void *workspace = nullptr;
  uint64_t workspaceBytes = 32ull << 20;

  Direct(int64_t n, DType dtype) {
    check(cublasLtCreate(&handle), "cublasLtCreate");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
          "cudaStreamCreate");
    check(cudaMalloc(&workspace, workspaceBytes), "cudaMalloc");
    check(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    for (cublasLtMatrixLayout_t *layout : {&a, &b, &c})
      check(cublasLtMatrixLayoutCreate(layout, cudaType(dtype), n, n, n),
            "cublasLtMatrixLayoutCreate");
    cublasLtMatmulPreference_t preference;
    check(cublasLtMatmulPreferenceCreate(&preference), "preference");
    check(cublasLtMatmulPreferenceSetAttribute(
              preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
              &workspaceBytes, sizeof(workspaceBytes)),
          "workspace preference");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    check(cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c, c, preference,
                                         1, &result, &found),
          "heuristic");
    cublasLtMatmulPreferenceDestroy(preference);
    if (!found)
      fail("cuBLASLt has no algorithm");
    algo = result.algo;
  }
  void run(const void *lhs, const void *rhs, void *out) {
    float alpha = 1, beta = 0;
    check(cublasLtMatmul(handle, desc, &alpha, rhs, a, lhs, b, &beta, out, c,
                         out, c, &algo, workspace, workspaceBytes, stream),
          "cublasLtMatmul");
  }
  void wait() { check(cudaStreamSynchronize(stream), "synchronize"); }
  ~Direct() {
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(desc);
    cudaFree(workspace);
    cudaStreamDestroy(stream);
    cublasLtDestroy(handle);
  }
};

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {4096};
  std::vector<DType> dtypes = {DType::BF16, DType::F16, DType::F32};
  int reps = 50, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      fail("missing the value of " + arg);
    std::string value = argv[++i];
    if (arg == "--sizes") {
      sizes.clear();
      for (const std::string &s : split(value))
        sizes.push_back(std::atoll(s.c_str()));
    } else if (arg == "--dtypes") {
      dtypes.clear();
      for (const std::string &s : split(value))
        dtypes.push_back(parseDType(s));
    } else if (arg == "--reps") {
      reps = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--rounds") {
      rounds = std::max(1, std::atoi(value.c_str()));
    } else {
      fail("unknown option " + arg);
    }
  }

  StatusOr<std::unique_ptr<Backend>> created = createCudaBackend();
  check(created.status());
  Backend &backend = **created;
  DeviceMemory &memory = *backend.deviceMemory();
  std::fprintf(stderr, "mp-bench-cuda-gemm: %s\n", backend.describe().c_str());

  for (int64_t n : sizes)
    for (DType dtype : dtypes) {
      size_t bytes = n * n * dtypeSize(dtype);
      std::vector<uint8_t> host(bytes);
      TensorView hostView{dtype, {n, n}, host.data()};
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> dist(-1, 1);
      void *a = *memory.allocate(bytes, "A"), *b = *memory.allocate(bytes, "B");
      void *c1 = *memory.allocate(bytes, "C"),
           *c2 = *memory.allocate(bytes, "C");
      for (void *p : {a, b}) {
        for (int64_t i = 0; i < n * n; ++i)
          storeFloat(hostView, i, dist(rng));
        check(memory.copyToDevice(p, host.data(), bytes));
      }
      check(memory.finishStep());

      KernelDesc kernel;
      kernel.op = "train.matmul";
      kernel.inputs = {0, 1};
      kernel.outputs = {2};
      std::vector<TensorView> in = {{dtype, {n, n}, a}, {dtype, {n, n}, b}};
      std::vector<TensorView> out = {{dtype, {n, n}, c1}};
      Direct direct(n, dtype);

      auto timeOurs = [&] {
        for (int i = 0; i < 3; ++i)
          check(backend.run(kernel, in, out));
        check(memory.finishStep());
        double began = now();
        for (int i = 0; i < reps; ++i)
          check(backend.run(kernel, in, out));
        check(memory.finishStep());
        return (now() - began) / reps;
      };
      auto timeDirect = [&] {
        for (int i = 0; i < 3; ++i)
          direct.run(a, b, c2);
        direct.wait();
        double began = now();
        for (int i = 0; i < reps; ++i)
          direct.run(a, b, c2);
        direct.wait();
        return (now() - began) / reps;
      };
      double ours = 1e30, theirs = 1e30;
      for (int r = 0; r < rounds; ++r) {
        ours = std::min(ours, timeOurs());
        theirs = std::min(theirs, timeDirect());
      }

      // Same result? (Same library and problem: expected bitwise.)
      std::vector<uint8_t> r1(bytes), r2(bytes);
      check(memory.copyToHost(r1.data(), c1, bytes));
      check(cudaMemcpy(r2.data(), c2, bytes, cudaMemcpyDeviceToHost),
            "cudaMemcpy");
      TensorView v1{dtype, {n, n}, r1.data()}, v2{dtype, {n, n}, r2.data()};
      double maxRel = 0;
      for (int64_t i = 0; i < n * n; ++i) {
        double x = loadFloat(v1, i), y = loadFloat(v2, i);
        maxRel =
            std::max(maxRel, std::fabs(x - y) / std::max(1e-6, std::fabs(y)));
      }
      double flops = 2.0 * n * n * n;
      std::printf("{\"size\": %lld, \"dtype\": \"%s\", \"ours_ms\": %.4f, "
                  "\"cublaslt_ms\": %.4f, \"ours_tflops\": %.1f, "
                  "\"cublaslt_tflops\": %.1f, \"ours_vs_cublaslt\": %.3f, "
                  "\"max_rel_diff\": %.3g}\n",
                  static_cast<long long>(n), dtypeName(dtype), ours * 1e3,
                  theirs * 1e3, flops / ours / 1e12, flops / theirs / 1e12,
                  theirs / ours, maxRel);
      std::fflush(stdout);
      for (void *p : {a, b, c1, c2})
        memory.release(p);
    }
  return 0;
}
