//===- DeviceSupport.cuh - loads, stores and launches for kernels -*- CUDA -*-//
//
// Kernels take their tensors as Refs (pointer + dtype code) and branch on the
// dtype per element: the branch is uniform across a launch, so it costs a
// few instructions, and each kernel is compiled once instead of once per
// dtype combination. Every value is widened to f32 (exactly) and rounded
// once, to nearest even, when stored, as the reference kernels do.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_DEVICESUPPORT_CUH
#define MP_RUNTIME_CUDA_DEVICESUPPORT_CUH

#include "cuda/Launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace mp::rt::cuda {

enum : int32_t { kF32 = 0, kBF16 = 1, kF16 = 2, kI1 = 3, kI32 = 4, kI64 = 5 };

__device__ __forceinline__ float loadF(Ref t, int64_t i) {
  switch (t.dtype) {
  case kBF16:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(t.data)[i]);
  case kF16:
    return __half2float(static_cast<const __half *>(t.data)[i]);
  default:
    return static_cast<const float *>(t.data)[i];
  }
}

__device__ __forceinline__ void storeF(Ref t, int64_t i, float v) {
  switch (t.dtype) {
  case kBF16:
    static_cast<__nv_bfloat16 *>(t.data)[i] = __float2bfloat16_rn(v);
    break;
  case kF16:
    static_cast<__half *>(t.data)[i] = __float2half_rn(v);
    break;
  default:
    static_cast<float *>(t.data)[i] = v;
  }
}

__device__ __forceinline__ int64_t loadI(Ref t, int64_t i) {
  switch (t.dtype) {
  case kI1:
    return static_cast<const uint8_t *>(t.data)[i];
  case kI32:
    return static_cast<const int32_t *>(t.data)[i];
  default:
    return static_cast<const int64_t *>(t.data)[i];
  }
}

__device__ __forceinline__ void storeI(Ref t, int64_t i, int64_t v) {
  switch (t.dtype) {
  case kI1:
    static_cast<uint8_t *>(t.data)[i] = v != 0;
    break;
  case kI32:
    static_cast<int32_t *>(t.data)[i] = static_cast<int32_t>(v);
    break;
  default:
    static_cast<int64_t *>(t.data)[i] = v;
  }
}

/// Records the step's first data error.
__device__ __forceinline__ void reportError(DeviceError *error, int32_t launch,
                                            int32_t code, int64_t value,
                                            int64_t position, int64_t limit) {
  if (atomicCAS(&error->code, 0, code) == 0) {
    error->launch = launch;
    error->value = value;
    error->position = position;
    error->limit = limit;
  }
}

#define MP_GRID_STRIDE(i, n)                                                   \
  for (int64_t i =                                                             \
           blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;        \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over n elements (at least one).
inline unsigned blocksFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1)
    blocks = 1;
  return static_cast<unsigned>(blocks > 65535 * 8 ? 65535 * 8 : blocks);
}

/// The error of the last launch, as the launch functions return it.
inline int lastError() { return static_cast<int>(cudaGetLastError()); }

/// Sums: every reduction accumulates in double (reference/Accumulate.h),
/// f32 terms widened as they are added.
struct Sum {
  template <typename T> __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
/// Max with NaN propagation (reduce_max, like torch.amax).
struct NanMax {
  __device__ float operator()(float a, float b) const {
    return (a > b || a != a) ? a : b;
  }
};
/// fmax: NaN loses (the reference softmax takes its row max with fmax).
struct FMax {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// `op` over the block, starting from `identity`; every thread gets the
/// result. `shared` holds 32 values of T (float for max, double for sums).
template <typename T, typename Op>
__device__ __forceinline__ T blockReduce(T value, T identity, Op op,
                                         T *shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0)
    shared[warp] = value;
  __syncthreads();
  int warps = blockDim.x / 32;
  value = lane < warps ? shared[lane] : identity;
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

} // namespace mp::rt::cuda

#endif // MP_RUNTIME_CUDA_DEVICESUPPORT_CUH
