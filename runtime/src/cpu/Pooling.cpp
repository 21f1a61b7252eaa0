//===- Pooling.cpp - max pooling on NCHW planes ---------------------------===//
#include "cpu/Pooling.h"

#include "cpu/Parallel.h"
#include "reference/ElementRules.h"
#include "reference/Window.h"

#include <algorithm>

using namespace mp::rt;

void cpu::runMaxPool(const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out, bool &handled) {
  handled = false;
  bool isGrad = kernel.op == "train.max_pool2d_grad";
  if ((kernel.op != "train.max_pool2d" && !isGrad) ||
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
  int64_t planes = x.shape[0] * x.shape[1];
  int64_t h = x.shape[2], wd = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  size_t size = dtypeSize(x.dtype);
  const char *xs = static_cast<const char *>(x.data);
  const char *ys = static_cast<const char *>(y.data);
  char *result = static_cast<char *>(out[0].data);
  parallelFor(planes, std::max<int64_t>(1, (int64_t(1) << 14) / (h * wd)),
              [&](int64_t begin, int64_t end) {
    std::vector<float> plane(h * wd), pooled(oh * ow), grad(isGrad ? oh * ow : 0);
    for (int64_t p = begin; p < end; ++p) {
      toFloats(x.dtype, xs + p * h * wd * size, plane.data(), h * wd);
      if (isGrad) {
        toFloats(y.dtype, ys + p * oh * ow * size, grad.data(), oh * ow);
        std::fill(plane.begin(), plane.end(), 0.0f); // becomes dx below
      }
      // The reference's window walk: taps in row-major window order,
      // padded taps skipped; outputs in memory order.
      std::vector<float> source;
      const float *values = plane.data();
      if (isGrad) { // dx accumulates into `plane`; read x from a copy
        source.resize(h * wd);
        toFloats(x.dtype, xs + p * h * wd * size, source.data(), h * wd);
        values = source.data();
      }
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t best = -1;
          float bestValue = 0;
          for (int64_t kh = 0; kh < w.sizeH; ++kh) {
            int64_t ih = i * w.strideH - w.padTop + kh;
            if (ih < 0 || ih >= h)
              continue;
            for (int64_t kw = 0; kw < w.sizeW; ++kw) {
              int64_t iw = j * w.strideW - w.padLeft + kw;
              if (iw < 0 || iw >= wd)
                continue;
              float v = values[ih * wd + iw];
              bool take = ref::maxPoolTakes(best < 0, bestValue, v);
              best = take ? ih * wd + iw : best;
              bestValue = take ? v : bestValue;
            }
          }
          if (isGrad)
            plane[best] += grad[i * ow + j];
          else
            pooled[i * ow + j] = bestValue;
        }
      if (isGrad)
        fromFloats(plane.data(), x.dtype, result + p * h * wd * size, h * wd);
      else
        fromFloats(pooled.data(), x.dtype, result + p * oh * ow * size,
                   oh * ow);
    }
  });
  handled = true;
}
