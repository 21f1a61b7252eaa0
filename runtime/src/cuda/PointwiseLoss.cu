//===- PointwiseLoss.cu - mse, bce_with_logits and huber losses ----------===//
//
// The terms and derivatives of common/ElementMath.h (f64), as the reference
// kernels take them. The loss is one block: each thread sums its strided
// terms in f64, the block adds the partial sums in a fixed tree, and the
// mean is rounded once (reproducible; loss inputs are [batch, outputs],
// small next to the step's other tensors). The gradient is elementwise.
//
//===----------------------------------------------------------------------===//
#include "common/ElementMath.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__device__ double term(PointwiseLoss kind, double x, double t, double delta) {
  switch (kind) {
  case PointwiseLoss::Mse:
    return mp::rt::ref::mseTerm(x, t);
  case PointwiseLoss::Bce:
    return mp::rt::ref::bceLogitsTerm(x, t);
  default:
    return mp::rt::ref::huberTerm(x, t, delta);
  }
}

__device__ double derivative(PointwiseLoss kind, double x, double t,
                             double delta) {
  switch (kind) {
  case PointwiseLoss::Mse:
    return mp::rt::ref::mseDerivative(x, t);
  case PointwiseLoss::Bce:
    return mp::rt::ref::bceLogitsDerivative(x, t);
  default:
    return mp::rt::ref::huberDerivative(x, t, delta);
  }
}

__global__ void lossKernel(PointwiseLoss kind, Ref x, Ref t, Ref loss,
                           int64_t n, double delta) {
  __shared__ double shared[32];
  double acc = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    acc += term(kind, loadF(x, i), loadF(t, i), delta);
  acc = blockReduce(acc, 0.0, Sum(), shared);
  if (threadIdx.x == 0)
    storeF(loss, 0, static_cast<float>(acc / static_cast<double>(n)));
}

__global__ void lossGradKernel(PointwiseLoss kind, Ref x, Ref t, Ref gradLoss,
                               Ref r, int64_t n, double delta) {
  double factor = static_cast<double>(loadF(gradLoss, 0)) /
                  static_cast<double>(n);
  MP_GRID_STRIDE(i, n) {
    storeF(r, i,
           static_cast<float>(derivative(kind, loadF(x, i), loadF(t, i),
                                         delta) *
                              factor));
  }
}

} // namespace

int mp::rt::cuda::pointwiseLoss(const Context &ctx, PointwiseLoss kind, Ref x,
                                Ref t, Ref loss, int64_t n, double delta) {
  lossKernel<<<1, kThreads, 0, ctx.stream>>>(kind, x, t, loss, n, delta);
  return lastError();
}

int mp::rt::cuda::pointwiseLossGrad(const Context &ctx, PointwiseLoss kind,
                                    Ref x, Ref t, Ref gradLoss, Ref r,
                                    int64_t n, double delta) {
  if (n == 0)
    return 0;
  lossGradKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(kind, x, t,
                                                            gradLoss, r, n,
                                                            delta);
  return lastError();
}
