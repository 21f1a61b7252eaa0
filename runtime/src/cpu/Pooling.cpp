//===- Pooling.cpp - max pooling on NCHW planes ---------------------------===//
#include "cpu/Pooling.h"
#include "cpu/Probe.h"

#include "cpu/Parallel.h"
#include "reference/Window.h"

#include <algorithm>

using namespace mp::rt;

void cpu::runMaxPool(const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out, bool &handled) {
  handled = false;
  bool isGrad = kernel.opId() == OpId::TrainMaxPool2dGrad;
  if ((kernel.opId() != OpId::TrainMaxPool2d && !isGrad) ||
      in.size() != (isGrad ? 2u : 1u) || out.size() != 1)
    return;
  const TensorView &x = isGrad ? in[1] : in[0];
  const TensorView &y = isGrad ? in[0] : out[0]; // the pooled shape
  ref::Layout layout;
  ref::Window w;
  std::vector<int64_t> expected;
  if (!ref::getLayout(kernel, layout).isOk() || layout != ref::Layout::NCHW ||
      !ref::getPoolWindow(kernel, w).isOk() || x.shape.size() != 4 ||
      !isFloat(x.dtype) || y.dtype != x.dtype || out[0].dtype != x.dtype ||
      (isGrad && out[0].shape != x.shape) ||
      !ref::windowOutputShape(kernel, x.shape, layout, x.shape[1], w, expected)
           .isOk() ||
      expected != y.shape || x.numElements() == 0 || y.numElements() == 0 ||
      !x.data || !y.data || !out[0].data)
    return;
  if (probing()) {
    handled = true;
    return;
  }
  int64_t planes = x.shape[0] * x.shape[1];
  int64_t h = x.shape[2], wd = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  size_t size = dtypeSize(x.dtype);
  const char *xs = static_cast<const char *>(x.data);
  const char *ys = static_cast<const char *>(y.data);
  char *result = static_cast<char *>(out[0].data);
  parallelFor(planes, std::max<int64_t>(1, (int64_t(1) << 14) / (h * wd)),
              [&](int64_t begin, int64_t end) {
    // Per part: one widened x plane, and the pooled plane (forward) or the
    // output gradient and dx planes (grad).
    std::vector<float> plane(h * wd), pooled(isGrad ? 0 : oh * ow),
        grad(isGrad ? oh * ow : 0), dx(isGrad ? h * wd : 0);
    auto planeOffset = [wd](int64_t ih, int64_t iw) { return ih * wd + iw; };
    for (int64_t p = begin; p < end; ++p) {
      toFloats(x.dtype, xs + p * h * wd * size, plane.data(), h * wd);
      if (isGrad) {
        toFloats(y.dtype, ys + p * oh * ow * size, grad.data(), oh * ow);
        std::fill(dx.begin(), dx.end(), 0.0f);
      }
      // The reference's window scan (ref::maxPoolArgMax); outputs in
      // memory order, as the reference routes gradients.
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t best =
              ref::maxPoolArgMax(w, h, wd, i, j, plane.data(), planeOffset);
          if (isGrad)
            dx[best] += grad[i * ow + j];
          else
            pooled[i * ow + j] = plane[best];
        }
      if (isGrad)
        fromFloats(dx.data(), x.dtype, result + p * h * wd * size, h * wd);
      else
        fromFloats(pooled.data(), x.dtype, result + p * oh * ow * size,
                   oh * ow);
    }
  });
  handled = true;
}
