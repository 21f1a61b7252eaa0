//===- WindowOps.cpp - convolutions and pooling ---------------------------===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

//===----------------------------------------------------------------------===//
// Convolutions and pooling (the simple path: cuda/Window.cu)
//===----------------------------------------------------------------------===//

namespace {
ImageDesc imageDesc(const std::vector<int64_t> &shape, ref::Layout layout) {
  ref::Image im = ref::imageOf(shape, layout);
  return {im.n, im.c, im.h, im.w, im.sn, im.sc, im.sh, im.sw};
}

WindowDesc windowDesc(const ref::Window &w) {
  return {w.sizeH,  w.sizeW,   w.strideH,   w.strideW,
          w.padTop, w.padLeft, w.dilationH, w.dilationW};
}

/// Layout and window of a conv or pooling kernel whose image operands are
/// `images` (each must be rank 4).
Status windowOf(const KernelDesc &k, bool isPool,
                std::initializer_list<const TensorView *> images,
                ref::Layout &layout, ref::Window &window) {
  MP_RETURN_IF_ERROR(ref::getLayout(k, layout));
  MP_RETURN_IF_ERROR(isPool ? ref::getPoolWindow(k, window)
                            : ref::getConvWindow(k, window));
  for (const TensorView *image : images)
    if (image->shape.size() != 4)
      return invalidArgument(k.op + " expects rank-4 images and filters");
  return Status::ok();
}
} // namespace

Status CudaBackend::runConv(const KernelDesc &k, const Views &in,
                            const Views &out) {
  // (input, filter, result) of the forward convolution, whatever the op.
  const TensorView *x = &in[0], *f = &in[1], *y = &out[0];
  if (k.opId() == OpId::TrainConv2dBackwardData)
    x = &out[0], f = &in[1], y = &in[0];
  else if (k.opId() == OpId::TrainConv2dBackwardFilter)
    x = &in[0], f = &out[0], y = &in[1];
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, false, {x, f, y}, layout, window));
  ref::FilterLayout filterLayout;
  MP_RETURN_IF_ERROR(ref::getFilterLayout(k, layout, filterLayout));
  ref::Filter filter = ref::filterOf(f->shape, filterLayout);
  FilterDesc fd{filter.o,  filter.i,  filter.h,  filter.w,
                filter.so, filter.si, filter.sh, filter.sw,
                k.getInt(AttrName::groups, 1)};
  ImageDesc xi = imageDesc(x->shape, layout), yi = imageDesc(y->shape, layout);
  if (fd.groups < 1 || fd.o % fd.groups != 0 || xi.c != fd.i * fd.groups ||
      yi.c != fd.o)
    return invalidArgument(k.op + ": channels do not match the filter");
  WindowDesc wd = windowDesc(window);
  if (k.opId() == OpId::TrainConv2d)
    return launched(
        k, conv2d(context(), ref(*x), ref(*f), ref(*y), xi, fd, yi, wd));
  if (k.opId() == OpId::TrainConv2dBackwardData)
    return launched(k, conv2dBackwardData(context(), ref(*y), ref(*f), ref(*x),
                                          xi, fd, yi, wd));
  return launched(k, conv2dBackwardFilter(context(), ref(*x), ref(*y), ref(*f),
                                          xi, fd, yi, wd));
}

Status CudaBackend::runPool(const KernelDesc &k, const Views &in,
                            const Views &out) {
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, true, {&in[0], &out[0]}, layout, window));
  ImageDesc xi = imageDesc(in[0].shape, layout);
  ImageDesc yi = imageDesc(out[0].shape, layout);
  if (k.opId() == OpId::TrainMaxPool2d)
    return launched(k, maxPool(context(), ref(in[0]), ref(out[0]), xi, yi,
                               windowDesc(window)));
  return launched(k, avgPool(context(), ref(in[0]), ref(out[0]), xi, yi,
                             windowDesc(window)));
}

Status CudaBackend::runPoolGrad(const KernelDesc &k, const Views &in,
                                const Views &out) {
  // max_pool2d_grad: (grad, x) -> dx; avg_pool2d_grad: (grad) -> dx.
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, true, {&in[0], &out[0]}, layout, window));
  ImageDesc xi = imageDesc(out[0].shape, layout);
  ImageDesc yi = imageDesc(in[0].shape, layout);
  if (k.opId() == OpId::TrainMaxPool2dGrad)
    return launched(k, maxPoolGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(out[0]), xi, yi, windowDesc(window)));
  return launched(k, avgPoolGrad(context(), ref(in[0]), ref(out[0]), xi, yi,
                                 windowDesc(window)));
}

Status CudaBackend::runGlobalPool(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  ref::Layout layout;
  MP_RETURN_IF_ERROR(ref::getLayout(k, layout));
  bool forward = k.opId() == OpId::TrainGlobalAvgPool2d;
  const TensorView &image = forward ? in[0] : out[0];
  if (image.shape.size() != 4)
    return invalidArgument(k.op + " expects a rank-4 image");
  ImageDesc xi = imageDesc(image.shape, layout);
  if (forward)
    return launched(k, globalAvgPool(context(), ref(in[0]), ref(out[0]), xi));
  return launched(k, globalAvgPoolGrad(context(), ref(in[0]), ref(out[0]), xi));
}

Status CudaBackend::runAdaptivePool(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  ref::Layout layout;
  MP_RETURN_IF_ERROR(ref::getLayout(k, layout));
  bool forward = k.opId() == OpId::TrainAdaptiveAvgPool2d;
  const TensorView &image = forward ? in[0] : out[0];
  const TensorView &pooled = forward ? out[0] : in[0];
  if (image.shape.size() != 4 || pooled.shape.size() != 4)
    return invalidArgument(k.op + " expects rank-4 images");
  ImageDesc xi = imageDesc(image.shape, layout);
  ImageDesc yi = imageDesc(pooled.shape, layout);
  if (forward)
    return launched(k, adaptiveAvgPool(context(), ref(in[0]), ref(out[0]), xi,
                                       yi));
  return launched(
      k, adaptiveAvgPoolGrad(context(), ref(in[0]), ref(out[0]), xi, yi));
}

} // namespace mp::rt::cudabackend
