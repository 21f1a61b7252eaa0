//===- Tensor.cpp - 16-bit float conversions and element access -----------===//
//
// The conversions work on bit patterns, so they round the same way on every
// host whatever its floating-point environment: round to nearest, ties to
// even, exactly like an IEEE-754 narrowing conversion.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Tensor.h"

using namespace mp::rt;

static uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Shifts `value` right by `shift` bits rounding to nearest, ties to even.
/// `shift` is in [1, 31].
static uint32_t shiftRightRne(uint32_t value, unsigned shift) {
  uint32_t kept = value >> shift;
  uint32_t rest = value & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  return kept;
}

uint16_t mp::rt::floatToHalf(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: keep the top payload bits, make it quiet
    return sign | 0x7e00 | ((magnitude >> 13) & 0x3ff);
  int exponent = static_cast<int>(magnitude >> 23) - 127;
  uint32_t mantissa = magnitude & 0x7fffff;
  if (exponent > 15) // too large for f16 even before rounding (or inf)
    return sign | 0x7c00;
  if (exponent >= -14) {
    // Normal: the rounding carry may ripple into the exponent, and from the
    // largest binade into 0x7c00, which is +-inf: the encoding does it.
    uint32_t half =
        (static_cast<uint32_t>(exponent + 15) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
      ++half;
    return sign | static_cast<uint16_t>(half);
  }
  // Subnormal in f16 (units of 2^-24) or zero. Below 2^-25 everything rounds
  // to zero; exactly 2^-25 is a tie that goes to the even zero.
  if (exponent < -25)
    return sign;
  uint32_t significand = mantissa | 0x800000; // value = significand*2^(e-23)
  unsigned shift = static_cast<unsigned>(-exponent - 1); // 14..24
  return sign | static_cast<uint16_t>(shiftRightRne(significand, shift));
}

float mp::rt::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f) // inf, or NaN made quiet
    return floatOf(sign | 0x7f800000 |
                   (mantissa ? (mantissa << 13) | 0x400000 : 0));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in f32.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t mp::rt::floatToBFloat16(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN: truncate and make it quiet
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  // bf16 is the top half of an f32: rounding the low half to nearest even
  // works across subnormals, and carries into the exponent up to inf.
  return static_cast<uint16_t>(shiftRightRne(bits, 16));
}

float mp::rt::bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  if ((wide & 0x7fffffff) > 0x7f800000)
    wide |= 0x400000; // a signalling NaN comes out quiet
  return floatOf(wide);
}

/// Converts to an integer without undefined behaviour: NaN gives 0 and
/// values beyond int64 saturate.
static int64_t saturateToInt(float value) {
  if (!(value == value))
    return 0;
  if (value >= 0x1p63f)
    return INT64_MAX;
  if (value < -0x1p63f)
    return INT64_MIN;
  return static_cast<int64_t>(value);
}

float mp::rt::loadFloat(const TensorView &t, int64_t i) {
  switch (t.dtype) {
  case DType::F32:
    return t.as<const float>()[i];
  case DType::BF16:
    return bfloat16ToFloat(t.as<const uint16_t>()[i]);
  case DType::F16:
    return halfToFloat(t.as<const uint16_t>()[i]);
  default:
    return static_cast<float>(loadInt(t, i));
  }
}

void mp::rt::storeFloat(const TensorView &t, int64_t i, float value) {
  switch (t.dtype) {
  case DType::F32:
    t.as<float>()[i] = value;
    return;
  case DType::BF16:
    t.as<uint16_t>()[i] = floatToBFloat16(value);
    return;
  case DType::F16:
    t.as<uint16_t>()[i] = floatToHalf(value);
    return;
  default:
    storeInt(t, i, saturateToInt(value));
    return;
  }
}

int64_t mp::rt::loadInt(const TensorView &t, int64_t i) {
  switch (t.dtype) {
  case DType::I1:
    return t.as<const uint8_t>()[i] != 0;
  case DType::I32:
    return t.as<const int32_t>()[i];
  case DType::I64:
    return t.as<const int64_t>()[i];
  default:
    return saturateToInt(loadFloat(t, i));
  }
}

void mp::rt::storeInt(const TensorView &t, int64_t i, int64_t value) {
  switch (t.dtype) {
  case DType::I1:
    t.as<uint8_t>()[i] = value != 0;
    return;
  case DType::I32:
    t.as<int32_t>()[i] = static_cast<int32_t>(value);
    return;
  case DType::I64:
    t.as<int64_t>()[i] = value;
    return;
  default:
    storeFloat(t, i, static_cast<float>(value));
    return;
  }
}

void mp::rt::loadFloats(const TensorView &t, float *out) {
  int64_t n = t.numElements();
  if (isFloat(t.dtype)) {
    toFloats(t.dtype, t.data, out, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    out[i] = loadFloat(t, i);
}

void mp::rt::storeFloats(const TensorView &t, const float *in) {
  int64_t n = t.numElements();
  if (isFloat(t.dtype)) {
    fromFloats(in, t.dtype, t.data, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    storeFloat(t, i, in[i]);
}
