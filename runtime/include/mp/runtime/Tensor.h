//===- Tensor.h - views of tensor memory and 16-bit floats ------*- C++ -*-===//
#ifndef MP_RUNTIME_TENSOR_H
#define MP_RUNTIME_TENSOR_H

#include "mp/runtime/Plan.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace mp::rt {

/// A non-owning view of one tensor's memory (dense, row-major).
struct TensorView {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  void *data = nullptr;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  template <typename T> T *as() const { return static_cast<T *>(data); }
};

/// IEEE binary16 and bfloat16 <-> float, round to nearest even; NaN stays
/// NaN (quiet), overflow gives +-inf, subnormals are kept.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

/// A whole float tensor (f32/bf16/f16) to / from f32, element for element
/// equal to the scalar conversions above, in loops the compiler can inline
/// and vectorize (kernels convert whole operands, not single elements).
void loadFloats(const TensorView &t, float *out);
void storeFloats(const TensorView &t, const float *in);
/// The same for `n` elements of float dtype `dtype` at `in` / `out`
/// (vectorized where the CPU allows: AVX-512 / AVX2, F16C).
void toFloats(DType dtype, const void *in, float *out, int64_t n);
void fromFloats(const float *in, DType dtype, void *out, int64_t n);

/// Element `i` of a float tensor (f32/bf16/f16) as float; and the store.
float loadFloat(const TensorView &t, int64_t i);
void storeFloat(const TensorView &t, int64_t i, float value);
/// Element `i` of an integer or i1 tensor as int64.
int64_t loadInt(const TensorView &t, int64_t i);
void storeInt(const TensorView &t, int64_t i, int64_t value);

} // namespace mp::rt

#endif // MP_RUNTIME_TENSOR_H
