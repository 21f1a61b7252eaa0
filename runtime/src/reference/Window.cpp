//===- Window.cpp - image layouts and windows for conv and pooling --------===//
#include "reference/Window.h"

using namespace mp::rt;
using namespace mp::rt::ref;

Status ref::getLayout(const KernelDesc &kernel, Layout &layout) {
  const std::string *name = kernel.getString(AttrName::layout);
  if (name && *name == "NCHW")
    layout = Layout::NCHW;
  else if (name && *name == "NHWC")
    layout = Layout::NHWC;
  else
    return kernelError(kernel, "needs a 'layout' attribute of NCHW or NHWC");
  return Status::ok();
}

Image ref::imageOf(const Shape &s, Layout layout) {
  if (layout == Layout::NCHW)
    return {s[0], s[1], s[2], s[3], s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  return {s[0], s[3], s[1], s[2], s[1] * s[2] * s[3], 1, s[2] * s[3], s[3]};
}

Shape ref::imageShape(Layout layout, int64_t n, int64_t c, int64_t h,
                      int64_t w) {
  return layout == Layout::NCHW ? Shape{n, c, h, w} : Shape{n, h, w, c};
}

Status ref::getFilterLayout(const KernelDesc &kernel, Layout layout,
                            FilterLayout &filterLayout) {
  const std::string *name = kernel.getString(AttrName::filter_layout);
  if (!name)
    filterLayout =
        layout == Layout::NCHW ? FilterLayout::OIHW : FilterLayout::HWIO;
  else if (*name == "OIHW")
    filterLayout = FilterLayout::OIHW;
  else if (*name == "HWIO")
    filterLayout = FilterLayout::HWIO;
  else
    return kernelError(kernel, "needs a 'filter_layout' of OIHW or HWIO, got '" +
                                   *name + "'");
  return Status::ok();
}

Filter ref::filterOf(const Shape &s, FilterLayout layout) {
  if (layout == FilterLayout::OIHW)
    return {s[0], s[1], s[2], s[3], s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  // HWIO
  return {s[3], s[2], s[0], s[1], 1, s[3], s[1] * s[2] * s[3], s[2] * s[3]};
}

/// Reads an optional array attribute of `size` entries, each >= `min`.
static Status getBoundedArray(const KernelDesc &kernel, AttrName name,
                              size_t size, int64_t min, bool required,
                              Shape &values) {
  if (!kernel.getInts(name) && !required)
    return Status::ok(); // keep the default already in `values`
  MP_RETURN_IF_ERROR(getArray(kernel, name, size, values));
  for (int64_t v : values)
    if (v < min)
      return kernelError(kernel, std::string("expects every '") +
                                     attrName(name) +
                                     "' entry to be >= " + std::to_string(min) +
                                     " but got " + std::to_string(v));
  return Status::ok();
}

/// Attribute values come from a file: bound them so that window arithmetic
/// cannot overflow int64.
static constexpr int64_t kMaxWindowValue = int64_t(1) << 24;

static Status getWindow(const KernelDesc &kernel, bool isPool, Window &window) {
  Shape size{1, 1}, strides{1, 1}, padding{0, 0, 0, 0}, dilations{1, 1};
  if (isPool)
    MP_RETURN_IF_ERROR(
        getBoundedArray(kernel, AttrName::kernel, 2, 1, /*required=*/true, size));
  MP_RETURN_IF_ERROR(
      getBoundedArray(kernel, AttrName::strides, 2, 1, /*required=*/isPool, strides));
  MP_RETURN_IF_ERROR(
      getBoundedArray(kernel, AttrName::padding, 4, 0, /*required=*/false, padding));
  if (!isPool)
    MP_RETURN_IF_ERROR(getBoundedArray(kernel, AttrName::dilations, 2, 1,
                                       /*required=*/false, dilations));
  for (const Shape *values : {&size, &strides, &padding, &dilations})
    for (int64_t v : *values)
      if (v > kMaxWindowValue)
        return kernelError(kernel, "window attribute " + std::to_string(v) +
                                       " is too large");
  window.sizeH = size[0];
  window.sizeW = size[1];
  window.strideH = strides[0];
  window.strideW = strides[1];
  window.padTop = padding[0];
  window.padBottom = padding[1];
  window.padLeft = padding[2];
  window.padRight = padding[3];
  window.dilationH = dilations[0];
  window.dilationW = dilations[1];
  if (isPool &&
      (window.padTop >= window.sizeH || window.padBottom >= window.sizeH ||
       window.padLeft >= window.sizeW || window.padRight >= window.sizeW))
    return kernelError(kernel, "expects padding smaller than the kernel");
  return Status::ok();
}

Status ref::getConvWindow(const KernelDesc &kernel, Window &window) {
  return getWindow(kernel, /*isPool=*/false, window);
}

Status ref::getPoolWindow(const KernelDesc &kernel, Window &window) {
  return getWindow(kernel, /*isPool=*/true, window);
}

/// Output extent of one spatial dimension, or -1 when the window does not
/// fit. Every value is at most 2^24 (checked), so nothing overflows.
static int64_t windowExtent(int64_t in, int64_t size, int64_t stride,
                            int64_t padLo, int64_t padHi, int64_t dilation) {
  int64_t span = dilation * (size - 1);
  int64_t padded = in + padLo + padHi;
  if (padded <= span)
    return -1;
  return (padded - span - 1) / stride + 1;
}

Status ref::windowOutputShape(const KernelDesc &kernel, const Shape &input,
                              Layout layout, int64_t channels, const Window &w,
                              Shape &output) {
  Image x = imageOf(input, layout);
  int64_t h =
      windowExtent(x.h, w.sizeH, w.strideH, w.padTop, w.padBottom, w.dilationH);
  int64_t wd =
      windowExtent(x.w, w.sizeW, w.strideW, w.padLeft, w.padRight, w.dilationW);
  if (h <= 0 || wd <= 0)
    return kernelError(kernel, "window [" + std::to_string(w.sizeH) + ", " +
                                   std::to_string(w.sizeW) +
                                   "] does not fit the padded input " +
                                   formatShape(input));
  output = imageShape(layout, x.n, channels, h, wd);
  return Status::ok();
}
