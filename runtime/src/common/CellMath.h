//===- CellMath.h - LSTM and GRU cell rules, host and device ----*- C++ -*-===//
//
// One element of train.lstm_cell / gru_cell and their gradients (the
// equations in TrainSequenceOps.td), in f64 from the widened operands:
// the reference kernels (reference/Recurrent.cpp) and the CUDA kernels
// (cuda/Recurrent.cu) both call these, so they differ only where the two
// sides' exp / tanh do (last bits of an f64, below the f32 rounding).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_COMMON_CELLMATH_H
#define MP_RUNTIME_COMMON_CELLMATH_H

#include "common/ElementMath.h"

namespace mp::rt::ref {

MP_HD inline double sigmoidD(double x) { return 1.0 / (1.0 + exp(-x)); }

/// LSTM gate pre-activations i, f, g, o of one element.
struct LstmIn {
  double i, f, g, o;
};

/// c_new = f * c + i * g; h_new = o * tanh(c_new).
MP_HD inline void lstmCell(LstmIn pre, double c, double &hNew, double &cNew) {
  double i = sigmoidD(pre.i), f = sigmoidD(pre.f), g = tanh(pre.g);
  double o = sigmoidD(pre.o);
  cNew = f * c + i * g;
  hNew = o * tanh(cNew);
}

/// The gate gradients (i, f, g, o) and the previous cell state's.
MP_HD inline void lstmCellGrad(LstmIn pre, double c, double cNew, double dh,
                               double dc, LstmIn &dGates, double &dcPrev) {
  double i = sigmoidD(pre.i), f = sigmoidD(pre.f), g = tanh(pre.g);
  double o = sigmoidD(pre.o), tc = tanh(cNew);
  double total = dc + dh * o * (1 - tc * tc);
  dGates.i = total * g * i * (1 - i);
  dGates.f = total * c * f * (1 - f);
  dGates.g = total * i * (1 - g * g);
  dGates.o = dh * tc * o * (1 - o);
  dcPrev = total * f;
}

/// A GRU element's reset, update and new blocks of one gate product.
struct GruIn {
  double r, z, n;
};

/// n = tanh(x_n + r * h_n), h_new = (1 - z) * n + z * h.
MP_HD inline double gruCell(GruIn x, GruIn hg, double h) {
  double r = sigmoidD(x.r + hg.r), z = sigmoidD(x.z + hg.z);
  double n = tanh(x.n + r * hg.n);
  return (1 - z) * n + z * h;
}

/// The input and hidden gate gradients and the previous state's (its
/// direct share; the products' share is the matmuls').
MP_HD inline void gruCellGrad(GruIn x, GruIn hg, double h, double dh,
                              GruIn &dx, GruIn &dhg, double &dhPrev) {
  double r = sigmoidD(x.r + hg.r), z = sigmoidD(x.z + hg.z);
  double n = tanh(x.n + r * hg.n);
  double dn = dh * (1 - z) * (1 - n * n);
  dx.r = dhg.r = dn * hg.n * r * (1 - r);
  dx.z = dhg.z = dh * (h - n) * z * (1 - z);
  dx.n = dn;
  dhg.n = dn * r;
  dhPrev = dh * z;
}

} // namespace mp::rt::ref

#endif // MP_RUNTIME_COMMON_CELLMATH_H
