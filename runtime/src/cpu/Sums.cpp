//===- Sums.cpp - the reference's f64 sums in AVX2 / AVX-512 --------------===//
#include "cpu/Sums.h"
#include "cpu/VectorLevel.h"
#include "cpu/ElementAccess.h"
#include "reference/Accumulate.h"

using namespace mp::rt;

namespace {

enum class Term { Value, Square, Product };

/// Term j of each sum, as reference/Accumulate.h forms it.
template <Term K>
inline double term(const float *a, const float *b, int64_t j, double center) {
  if constexpr (K == Term::Value)
    return static_cast<double>(a[j]);
  if constexpr (K == Term::Square) {
    double d = static_cast<double>(a[j]) - center;
    return d * d;
  }
  return static_cast<double>(a[j]) * (static_cast<double>(b[j]) - center);
}

/// ref::laneSum's tail (term j into lane j mod 8 from lane 0) and fold.
template <Term K>
inline double finish(double *acc, const float *a, const float *b, int64_t j,
                     int64_t n, double center) {
  for (int l = 0; j < n; ++j, ++l)
    acc[l] += term<K>(a, b, j, center);
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) +
         ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

} // namespace

namespace {

/// The column sums' loops, inlined into each instruction set's copy below
/// (the compiler vectorizes them over the columns; Sums.cpp is built with
/// -ffp-contract=off, so every addition and multiply stays the
/// reference's).
/// A column's value in f64, from f32 or bf16 (cpu/ElementAccess.h).
inline __attribute__((always_inline)) double widened(const float *p,
                                                     int64_t j) {
  return static_cast<double>(cpu::F32Elems::load(p, j));
}
inline __attribute__((always_inline)) double widened(const uint16_t *p,
                                                     int64_t j) {
  return static_cast<double>(cpu::Bf16Elems::load(p, j));
}

/// kPanel columns' sums over all the rows, the running sums in registers
/// (a fixed count, fully unrolled): each column's additions in row order,
/// as the row-by-row loop makes them, without storing and reloading the
/// running sums at every row.
constexpr int64_t kPanel = 32;
template <typename T>
__attribute__((always_inline)) inline void
panelColumns(double *__restrict acc, const T *__restrict a, int64_t rows,
             int64_t stride) {
  double s[kPanel];
  for (int64_t j = 0; j < kPanel; ++j)
    s[j] = acc[j];
  for (int64_t r = 0; r < rows; ++r) {
    const T *ar = a + r * stride;
    for (int64_t j = 0; j < kPanel; ++j)
      s[j] += widened(ar, j);
  }
  for (int64_t j = 0; j < kPanel; ++j)
    acc[j] = s[j];
}

/// acc[j] += each row's value of column j, rows in order: panels of kPanel
/// columns, then the rest row by row.
template <typename T>
__attribute__((always_inline)) inline void
valueColumns(double *__restrict acc, const T *__restrict a, int64_t rows,
             int64_t stride, int64_t n) {
  int64_t j0 = 0;
  for (; j0 + kPanel <= n; j0 += kPanel)
    panelColumns(acc + j0, a + j0, rows, stride);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = j0; j < n; ++j)
      acc[j] += widened(a + r * stride, j);
}

template <Term K>
__attribute__((always_inline)) inline void
columns(double *__restrict acc, double *__restrict prod,
        const float *__restrict a, const float *__restrict b, int64_t rows,
        int64_t stride, int64_t n, const double *__restrict center) {
  if constexpr (K == Term::Value) {
    valueColumns(acc, a, rows, stride, n);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float *ar = a + r * stride;
    if constexpr (K == Term::Value) {
      for (int64_t j = 0; j < n; ++j)
        acc[j] += static_cast<double>(ar[j]);
    } else if constexpr (K == Term::Square) {
      for (int64_t j = 0; j < n; ++j) {
        double d = static_cast<double>(ar[j]) - center[j];
        acc[j] += d * d;
      }
    } else {
      // a: the gradient, b: x.
      const float *br = b + r * stride;
      for (int64_t j = 0; j < n; ++j) {
        double g = static_cast<double>(ar[j]);
        acc[j] += g;
        prod[j] += g * (static_cast<double>(br[j]) - center[j]);
      }
    }
  }
}

} // namespace

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

namespace {


/// Lanes 0-7 in one register. Sums.cpp is built with -ffp-contract=off,
/// so the multiplies and adds stay separate, as the reference's. (The
/// widening is the all-lanes masked form: GCC 12 warns that the plain
/// _mm512_cvtps_pd reads an undefined register.)
template <Term K>
__attribute__((target("avx512f"))) double sum512(const float *a,
                                                 const float *b, int64_t n,
                                                 double center) {
  __m512d acc = _mm512_setzero_pd();
  const __m512d c = _mm512_set1_pd(center);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m512d t = _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(a + j));
    if constexpr (K == Term::Square) {
      t = _mm512_sub_pd(t, c);
      t = _mm512_mul_pd(t, t);
    } else if constexpr (K == Term::Product) {
      __m512d u =
          _mm512_sub_pd(_mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(b + j)), c);
      t = _mm512_mul_pd(t, u);
    }
    acc = _mm512_add_pd(acc, t);
  }
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, acc);
  return finish<K>(lanes, a, b, j, n, center);
}

/// Lanes 0-3 and 4-7 in two registers.
template <Term K>
__attribute__((target("avx2"))) double sum256(const float *a, const float *b,
                                              int64_t n, double center) {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  const __m256d c = _mm256_set1_pd(center);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 v = _mm256_loadu_ps(a + j);
    __m256d t0 = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
    __m256d t1 = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    if constexpr (K == Term::Square) {
      t0 = _mm256_sub_pd(t0, c);
      t1 = _mm256_sub_pd(t1, c);
      t0 = _mm256_mul_pd(t0, t0);
      t1 = _mm256_mul_pd(t1, t1);
    } else if constexpr (K == Term::Product) {
      __m256 w = _mm256_loadu_ps(b + j);
      __m256d u0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w)), c);
      __m256d u1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)), c);
      t0 = _mm256_mul_pd(t0, u0);
      t1 = _mm256_mul_pd(t1, u1);
    }
    lo = _mm256_add_pd(lo, t0);
    hi = _mm256_add_pd(hi, t1);
  }
  alignas(32) double lanes[8];
  _mm256_store_pd(lanes, lo);
  _mm256_store_pd(lanes + 4, hi);
  return finish<K>(lanes, a, b, j, n, center);
}

template <Term K>
__attribute__((target("avx512f"))) void
columns512(double *acc, double *prod, const float *a, const float *b,
           int64_t rows, int64_t stride, int64_t n, const double *center) {
  columns<K>(acc, prod, a, b, rows, stride, n, center);
}

template <Term K>
__attribute__((target("avx2"))) void
columns256(double *acc, double *prod, const float *a, const float *b,
           int64_t rows, int64_t stride, int64_t n, const double *center) {
  columns<K>(acc, prod, a, b, rows, stride, n, center);
}

template <typename T>
__attribute__((target("avx512f"))) void
values512(double *acc, const T *a, int64_t rows, int64_t stride, int64_t n) {
  valueColumns(acc, a, rows, stride, n);
}
template <typename T>
__attribute__((target("avx2"))) void
values256(double *acc, const T *a, int64_t rows, int64_t stride, int64_t n) {
  valueColumns(acc, a, rows, stride, n);
}

template <Term K>
void columnsDispatch(double *acc, double *prod, const float *a, const float *b,
                     int64_t rows, int64_t stride, int64_t n,
                     const double *center) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    return columns512<K>(acc, prod, a, b, rows, stride, n, center);
  case cpu::VectorLevel::Avx2:
    return columns256<K>(acc, prod, a, b, rows, stride, n, center);
  case cpu::VectorLevel::None:
    break;
  }
  columns<K>(acc, prod, a, b, rows, stride, n, center);
}

template <Term K>
double dispatch(const float *a, const float *b, int64_t n, double center) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    return sum512<K>(a, b, n, center);
  case cpu::VectorLevel::Avx2:
    return sum256<K>(a, b, n, center);
  case cpu::VectorLevel::None:
    break;
  }
  if constexpr (K == Term::Value)
    return ref::sumOf(a, n);
  else if constexpr (K == Term::Square)
    return ref::sumOfSquares(a, n, center);
  else
    return ref::sumOfProducts(a, b, n, center);
}

} // namespace

void cpu::addColumnsBf16(double *acc, const uint16_t *x, int64_t rows,
                         int64_t stride, int64_t n) {
  switch (cpu::vectorLevel()) {
  case cpu::VectorLevel::Avx512:
    return values512(acc, x, rows, stride, n);
  case cpu::VectorLevel::Avx2:
    return values256(acc, x, rows, stride, n);
  case cpu::VectorLevel::None:
    break;
  }
  valueColumns(acc, x, rows, stride, n);
}

double cpu::sumOf(const float *v, int64_t n) {
  return dispatch<Term::Value>(v, nullptr, n, 0.0);
}
double cpu::sumOfSquares(const float *v, int64_t n, double center) {
  return dispatch<Term::Square>(v, nullptr, n, center);
}
double cpu::sumOfProducts(const float *a, const float *b, int64_t n,
                          double center) {
  return dispatch<Term::Product>(a, b, n, center);
}

#else // not x86-64 with GCC / Clang: the reference's portable loops

namespace {
template <Term K>
void columnsDispatch(double *acc, double *prod, const float *a, const float *b,
                     int64_t rows, int64_t stride, int64_t n,
                     const double *center) {
  columns<K>(acc, prod, a, b, rows, stride, n, center);
}
} // namespace

void cpu::addColumnsBf16(double *acc, const uint16_t *x, int64_t rows,
                         int64_t stride, int64_t n) {
  valueColumns(acc, x, rows, stride, n);
}

double cpu::sumOf(const float *v, int64_t n) { return ref::sumOf(v, n); }
double cpu::sumOfSquares(const float *v, int64_t n, double center) {
  return ref::sumOfSquares(v, n, center);
}
double cpu::sumOfProducts(const float *a, const float *b, int64_t n,
                          double center) {
  return ref::sumOfProducts(a, b, n, center);
}

#endif

void cpu::addColumns(double *acc, const float *x, int64_t rows, int64_t stride,
                     int64_t n) {
  columnsDispatch<Term::Value>(acc, nullptr, x, nullptr, rows, stride, n,
                               nullptr);
}
void cpu::addColumnSquares(double *acc, const float *x, int64_t rows,
                           int64_t stride, int64_t n, const double *center) {
  columnsDispatch<Term::Square>(acc, nullptr, x, nullptr, rows, stride, n,
                                center);
}
void cpu::addColumnGradSums(double *sum, double *prod, const float *g,
                            const float *x, int64_t rows, int64_t stride,
                            int64_t n, const double *center) {
  columnsDispatch<Term::Product>(sum, prod, g, x, rows, stride, n, center);
}
