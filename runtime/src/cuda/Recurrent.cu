//===- Recurrent.cu - LSTM and GRU cells and their gradients -------------===//
//
// One thread per [B, H] element, the rules of common/CellMath.h in f64 (as
// the reference kernels compute them; the cell is memory-bound, so the f64
// arithmetic costs little), each result rounded once when stored.
//
//===----------------------------------------------------------------------===//
#include "common/CellMath.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;
using mp::rt::ref::GruIn;
using mp::rt::ref::LstmIn;

namespace {

__device__ LstmIn lstmIn(Ref gates, int64_t b, int64_t h, int64_t hs) {
  int64_t row = b * 4 * hs;
  return {loadF(gates, row + h), loadF(gates, row + hs + h),
          loadF(gates, row + 2 * hs + h), loadF(gates, row + 3 * hs + h)};
}

__global__ void lstmCellKernel(Ref gates, Ref c, Ref hNew, Ref cNew,
                               int64_t batch, int64_t hs) {
  MP_GRID_STRIDE(e, batch * hs) {
    double hv, cv;
    mp::rt::ref::lstmCell(lstmIn(gates, e / hs, e % hs, hs), loadF(c, e), hv,
                          cv);
    storeF(hNew, e, static_cast<float>(hv));
    storeF(cNew, e, static_cast<float>(cv));
  }
}

__global__ void lstmCellGradKernel(Ref dh, Ref dc, Ref gates, Ref c, Ref cNew,
                                   Ref dGates, Ref dcPrev, int64_t batch,
                                   int64_t hs) {
  MP_GRID_STRIDE(e, batch * hs) {
    int64_t b = e / hs, h = e % hs, row = b * 4 * hs;
    LstmIn d;
    double prev;
    mp::rt::ref::lstmCellGrad(lstmIn(gates, b, h, hs), loadF(c, e),
                              loadF(cNew, e), loadF(dh, e), loadF(dc, e), d,
                              prev);
    storeF(dGates, row + h, static_cast<float>(d.i));
    storeF(dGates, row + hs + h, static_cast<float>(d.f));
    storeF(dGates, row + 2 * hs + h, static_cast<float>(d.g));
    storeF(dGates, row + 3 * hs + h, static_cast<float>(d.o));
    storeF(dcPrev, e, static_cast<float>(prev));
  }
}

__device__ GruIn gruIn(Ref gates, GruBlocks blocks, int64_t b, int64_t h,
                       int64_t hs) {
  int64_t row = b * 3 * hs;
  return {loadF(gates, row + blocks.r * hs + h),
          loadF(gates, row + blocks.z * hs + h),
          loadF(gates, row + blocks.n * hs + h)};
}

__device__ void storeGru(Ref out, GruBlocks blocks, int64_t b, int64_t h,
                         int64_t hs, GruIn v) {
  int64_t row = b * 3 * hs;
  storeF(out, row + blocks.r * hs + h, static_cast<float>(v.r));
  storeF(out, row + blocks.z * hs + h, static_cast<float>(v.z));
  storeF(out, row + blocks.n * hs + h, static_cast<float>(v.n));
}

__global__ void gruCellKernel(Ref x, Ref hg, Ref state, Ref hNew,
                              GruBlocks blocks, int64_t batch, int64_t hs) {
  MP_GRID_STRIDE(e, batch * hs) {
    int64_t b = e / hs, h = e % hs;
    double v = mp::rt::ref::gruCell(gruIn(x, blocks, b, h, hs),
                                    gruIn(hg, blocks, b, h, hs),
                                    loadF(state, e));
    storeF(hNew, e, static_cast<float>(v));
  }
}

__global__ void gruCellGradKernel(Ref dh, Ref x, Ref hg, Ref state, Ref dx,
                                  Ref dhg, Ref dPrev, GruBlocks blocks,
                                  int64_t batch, int64_t hs) {
  MP_GRID_STRIDE(e, batch * hs) {
    int64_t b = e / hs, h = e % hs;
    GruIn gx, gh;
    double prev;
    mp::rt::ref::gruCellGrad(gruIn(x, blocks, b, h, hs),
                             gruIn(hg, blocks, b, h, hs), loadF(state, e),
                             loadF(dh, e), gx, gh, prev);
    storeGru(dx, blocks, b, h, hs, gx);
    storeGru(dhg, blocks, b, h, hs, gh);
    storeF(dPrev, e, static_cast<float>(prev));
  }
}

} // namespace

int mp::rt::cuda::lstmCell(const Context &ctx, Ref gates, Ref c, Ref hNew,
                           Ref cNew, int64_t batch, int64_t hidden) {
  lstmCellKernel<<<blocksFor(batch * hidden), kThreads, 0, ctx.stream>>>(
      gates, c, hNew, cNew, batch, hidden);
  return lastError();
}

int mp::rt::cuda::lstmCellGrad(const Context &ctx, Ref dh, Ref dc, Ref gates,
                               Ref c, Ref cNew, Ref dGates, Ref dcPrev,
                               int64_t batch, int64_t hidden) {
  lstmCellGradKernel<<<blocksFor(batch * hidden), kThreads, 0, ctx.stream>>>(
      dh, dc, gates, c, cNew, dGates, dcPrev, batch, hidden);
  return lastError();
}

int mp::rt::cuda::gruCell(const Context &ctx, Ref x, Ref hg, Ref h, Ref hNew,
                          GruBlocks blocks, int64_t batch, int64_t hidden) {
  gruCellKernel<<<blocksFor(batch * hidden), kThreads, 0, ctx.stream>>>(
      x, hg, h, hNew, blocks, batch, hidden);
  return lastError();
}

int mp::rt::cuda::gruCellGrad(const Context &ctx, Ref dh, Ref x, Ref hg, Ref h,
                              Ref dx, Ref dhg, Ref dhPrev, GruBlocks blocks,
                              int64_t batch, int64_t hidden) {
  gruCellGradKernel<<<blocksFor(batch * hidden), kThreads, 0, ctx.stream>>>(
      dh, x, hg, h, dx, dhg, dhPrev, blocks, batch, hidden);
  return lastError();
}
