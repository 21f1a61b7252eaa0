//===- Recurrent.cpp - LSTM and GRU cells and their gradients ------------===//
//
// Elementwise over [B, H]: each output element reads its four (LSTM) or
// three (GRU) gate pre-activations, at column h of each H-wide block, and
// its state; the rules (common/CellMath.h) compute in f64 from the f32 (or
// widened) operands, and each result is rounded once.
//
//===----------------------------------------------------------------------===//
#include "common/CellMath.h"
#include "reference/KernelSupport.h"

using namespace mp::rt;
using namespace mp::rt::ref;

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

/// Element (b, h)'s four gate pre-activations.
static LstmIn lstmIn(const FloatIn &gates, int64_t b, int64_t h, int64_t hs) {
  const float *row = gates.data() + b * 4 * hs;
  return {row[h], row[hs + h], row[2 * hs + h], row[3 * hs + h]};
}

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
      int64_t e = b * hs + h;
      double hv, cv;
      lstmCell(lstmIn(gates, b, h, hs), c[e], hv, cv);
      hNew[e] = static_cast<float>(hv);
      cNew[e] = static_cast<float>(cv);
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
      LstmIn d;
      double prev;
      lstmCellGrad(lstmIn(gates, b, h, hs), c[e], cNew[e], dh[e], dc[e], d,
                   prev);
      float *row = dGates.data() + b * 4 * hs;
      row[h] = static_cast<float>(d.i);
      row[hs + h] = static_cast<float>(d.f);
      row[2 * hs + h] = static_cast<float>(d.g);
      row[3 * hs + h] = static_cast<float>(d.o);
      dcPrev[e] = static_cast<float>(prev);
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
} // namespace

/// Element (b, h)'s three blocks of `gates` ([B, 3H]).
static GruIn gruIn(const GruBlocks &blocks, const FloatIn &gates, int64_t b,
                   int64_t h, int64_t hs) {
  const float *row = gates.data() + b * 3 * hs;
  return {row[blocks.r * hs + h], row[blocks.z * hs + h],
          row[blocks.n * hs + h]};
}

static void storeGru(const GruBlocks &blocks, FloatOut &out, int64_t b,
                     int64_t h, int64_t hs, GruIn v) {
  float *row = out.data() + b * 3 * hs;
  row[blocks.r * hs + h] = static_cast<float>(v.r);
  row[blocks.z * hs + h] = static_cast<float>(v.z);
  row[blocks.n * hs + h] = static_cast<float>(v.n);
}

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
      int64_t e = b * hs + h;
      hNew[e] = static_cast<float>(gruCell(gruIn(blocks, x, b, h, hs),
                                           gruIn(blocks, hg, b, h, hs),
                                           state[e]));
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
      int64_t e = b * hs + h;
      GruIn gx, gh;
      double prev;
      gruCellGrad(gruIn(blocks, x, b, h, hs), gruIn(blocks, hg, b, h, hs),
                  state[e], dh[e], gx, gh, prev);
      storeGru(blocks, dx, b, h, hs, gx);
      storeGru(blocks, dhg, b, h, hs, gh);
      dPrev[e] = static_cast<float>(prev);
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
