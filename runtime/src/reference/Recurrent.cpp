//===- Recurrent.cpp - LSTM and GRU cells and their gradients ------------===//
//
// Elementwise over [B, H]: each output element reads its four (LSTM) or
// three (GRU) gate pre-activations, at column h of each H-wide block, and
// its state. Computed in f64 from the f32 (or widened) operands and
// rounded once.
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::ref;

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// Checks [B, H] `state` against [B, blocks * H] `gates`.
static Status checkCell(const KernelDesc &k, const TensorView &gates,
                        const TensorView &state, int64_t blocks) {
  MP_RETURN_IF_ERROR(checkFloat(k, gates, "gates"));
  MP_RETURN_IF_ERROR(checkDType(k, state, gates.dtype, "the state"));
  MP_RETURN_IF_ERROR(checkRank(k, state, 2, "the state"));
  return checkShape(k, gates, {state.shape[0], blocks * state.shape[1]},
                    "gates");
}

//===----------------------------------------------------------------------===//
// LSTM: gates i, f, g, o
//===----------------------------------------------------------------------===//

namespace {
struct LstmGates {
  double i, f, g, o;
};
LstmGates lstmGates(const FloatIn &gates, int64_t b, int64_t h, int64_t hs) {
  const float *row = gates.data() + b * 4 * hs;
  return {sigmoid(row[h]), sigmoid(row[hs + h]), std::tanh(row[2 * hs + h]),
          sigmoid(row[3 * hs + h])};
}
} // namespace

static Status checkLstmCell(const KernelDesc &k, const Views &in,
                            const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 2));
  MP_RETURN_IF_ERROR(checkCell(k, in[0], in[1], 4));
  MP_RETURN_IF_ERROR(checkSameType(k, in[1], "c", out[0], "h_new"));
  return checkSameType(k, in[1], "c", out[1], "c_new");
}

static Status runLstmCell(const KernelDesc &, const Views &in,
                          const Views &out) {
  int64_t batch = in[1].shape[0], hs = in[1].shape[1];
  FloatIn gates(in[0]), c(in[1]);
  FloatOut hNew(out[0]), cNew(out[1]);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < hs; ++h) {
      LstmGates g = lstmGates(gates, b, h, hs);
      double next = g.f * c[b * hs + h] + g.i * g.g;
      cNew[b * hs + h] = static_cast<float>(next);
      hNew[b * hs + h] = static_cast<float>(g.o * std::tanh(next));
    }
  hNew.finish();
  cNew.finish();
  return Status::ok();
}

static Status checkLstmCellGrad(const KernelDesc &k, const Views &in,
                                const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 5, 2));
  MP_RETURN_IF_ERROR(checkCell(k, in[2], in[3], 4));
  const char *names[] = {"grad_h", "grad_c", nullptr, nullptr, "c_new"};
  for (int i : {0, 1, 4})
    MP_RETURN_IF_ERROR(checkSameType(k, in[3], "c", in[i], names[i]));
  MP_RETURN_IF_ERROR(checkSameType(k, in[2], "gates", out[0], "grad_gates"));
  return checkSameType(k, in[3], "c", out[1], "grad_c_prev");
}

static Status runLstmCellGrad(const KernelDesc &, const Views &in,
                              const Views &out) {
  int64_t batch = in[3].shape[0], hs = in[3].shape[1];
  FloatIn dh(in[0]), dc(in[1]), gates(in[2]), c(in[3]), cNew(in[4]);
  FloatOut dGates(out[0]), dcPrev(out[1]);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < hs; ++h) {
      int64_t e = b * hs + h;
      LstmGates g = lstmGates(gates, b, h, hs);
      double tc = std::tanh(static_cast<double>(cNew[e]));
      double dcTotal = dc[e] + dh[e] * g.o * (1 - tc * tc);
      float *row = dGates.data() + b * 4 * hs;
      row[h] = static_cast<float>(dcTotal * g.g * g.i * (1 - g.i));
      row[hs + h] = static_cast<float>(dcTotal * c[e] * g.f * (1 - g.f));
      row[2 * hs + h] = static_cast<float>(dcTotal * g.i * (1 - g.g * g.g));
      row[3 * hs + h] = static_cast<float>(dh[e] * tc * g.o * (1 - g.o));
      dcPrev[e] = static_cast<float>(dcTotal * g.f);
    }
  dGates.finish();
  dcPrev.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// GRU: reset r, update z, new n (blocks in `order`)
//===----------------------------------------------------------------------===//

namespace {
/// The block index of r, z and n for an `order` attribute.
struct GruBlocks {
  int64_t r, z, n;
};
struct GruGates {
  double r, z, n, hn; ///< hn: the hidden product's new block
};
GruGates gruGates(const GruBlocks &blocks, const FloatIn &x, const FloatIn &hg,
                  int64_t b, int64_t h, int64_t hs) {
  const float *xr = x.data() + b * 3 * hs, *hr = hg.data() + b * 3 * hs;
  auto at = [&](const float *row, int64_t block) {
    return static_cast<double>(row[block * hs + h]);
  };
  double r = sigmoid(at(xr, blocks.r) + at(hr, blocks.r));
  double z = sigmoid(at(xr, blocks.z) + at(hr, blocks.z));
  double hn = at(hr, blocks.n);
  return {r, z, std::tanh(at(xr, blocks.n) + r * hn), hn};
}
} // namespace

static Status getGruBlocks(const KernelDesc &k, GruBlocks &blocks) {
  const std::string *order = k.getString(AttrName::order);
  if (order && *order == "rzn")
    blocks = {0, 1, 2};
  else if (order && *order == "zrn")
    blocks = {1, 0, 2};
  else
    return kernelError(k, "needs an 'order' attribute of rzn or zrn");
  return Status::ok();
}

static Status checkGruCell(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 1));
  GruBlocks blocks;
  MP_RETURN_IF_ERROR(getGruBlocks(k, blocks));
  MP_RETURN_IF_ERROR(checkCell(k, in[0], in[2], 3));
  MP_RETURN_IF_ERROR(
      checkSameType(k, in[0], "input_gates", in[1], "hidden_gates"));
  return checkSameType(k, in[2], "h", out[0], "h_new");
}

static Status runGruCell(const KernelDesc &k, const Views &in,
                         const Views &out) {
  GruBlocks blocks;
  MP_RETURN_IF_ERROR(getGruBlocks(k, blocks));
  int64_t batch = in[2].shape[0], hs = in[2].shape[1];
  FloatIn x(in[0]), hg(in[1]), state(in[2]);
  FloatOut hNew(out[0]);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < hs; ++h) {
      GruGates g = gruGates(blocks, x, hg, b, h, hs);
      int64_t e = b * hs + h;
      hNew[e] = static_cast<float>((1 - g.z) * g.n + g.z * state[e]);
    }
  hNew.finish();
  return Status::ok();
}

static Status checkGruCellGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 4, 3));
  GruBlocks blocks;
  MP_RETURN_IF_ERROR(getGruBlocks(k, blocks));
  MP_RETURN_IF_ERROR(checkCell(k, in[1], in[3], 3));
  MP_RETURN_IF_ERROR(checkSameType(k, in[3], "h", in[0], "grad_h"));
  MP_RETURN_IF_ERROR(
      checkSameType(k, in[1], "input_gates", in[2], "hidden_gates"));
  MP_RETURN_IF_ERROR(
      checkSameType(k, in[1], "input_gates", out[0], "grad_input_gates"));
  MP_RETURN_IF_ERROR(
      checkSameType(k, in[1], "input_gates", out[1], "grad_hidden_gates"));
  return checkSameType(k, in[3], "h", out[2], "grad_h_prev");
}

static Status runGruCellGrad(const KernelDesc &k, const Views &in,
                             const Views &out) {
  GruBlocks blocks;
  MP_RETURN_IF_ERROR(getGruBlocks(k, blocks));
  int64_t batch = in[3].shape[0], hs = in[3].shape[1];
  FloatIn dh(in[0]), x(in[1]), hg(in[2]), state(in[3]);
  FloatOut dx(out[0]), dhg(out[1]), dPrev(out[2]);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < hs; ++h) {
      GruGates g = gruGates(blocks, x, hg, b, h, hs);
      int64_t e = b * hs + h;
      double d = dh[e];
      double dn = d * (1 - g.z) * (1 - g.n * g.n);
      double dr = dn * g.hn * g.r * (1 - g.r);
      double dz = d * (state[e] - g.n) * g.z * (1 - g.z);
      float *xr = dx.data() + b * 3 * hs, *hr = dhg.data() + b * 3 * hs;
      xr[blocks.r * hs + h] = hr[blocks.r * hs + h] = static_cast<float>(dr);
      xr[blocks.z * hs + h] = hr[blocks.z * hs + h] = static_cast<float>(dz);
      xr[blocks.n * hs + h] = static_cast<float>(dn);
      hr[blocks.n * hs + h] = static_cast<float>(dn * g.r);
      dPrev[e] = static_cast<float>(d * g.z);
    }
  for (FloatOut *o : {&dx, &dhg, &dPrev})
    o->finish();
  return Status::ok();
}

void ref::addRecurrentKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainLstmCell, checkLstmCell, runLstmCell},
                   {OpId::TrainLstmCellGrad, checkLstmCellGrad,
                    runLstmCellGrad},
                   {OpId::TrainGruCell, checkGruCell, runGruCell},
                   {OpId::TrainGruCellGrad, checkGruCellGrad, runGruCellGrad},
               });
}
