//===- Window.h - image layouts and windows for conv, pooling ---*- C++ -*-===//
//
// Convolutions and pooling address images through strides, so one loop nest
// serves NCHW and NHWC (and OIHW and HWIO filters) without a layout copy.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_WINDOW_H
#define MP_RUNTIME_REFERENCE_WINDOW_H

#include "reference/ElementRules.h"
#include "reference/KernelSupport.h"

namespace mp::rt::ref {

enum class Layout { NCHW, NHWC };

/// The required `layout` attribute: "NCHW" or "NHWC".
Status getLayout(const KernelDesc &kernel, Layout &layout);

/// An image tensor through its layout: sizes and element strides of the
/// N, C, H and W dimensions.
struct Image {
  int64_t n, c, h, w;
  int64_t sn, sc, sh, sw;
  int64_t at(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return in * sn + ic * sc + ih * sh + iw * sw;
  }
};
Image imageOf(const Shape &shape, Layout layout);
/// The shape of an image with these sizes in `layout`.
Shape imageShape(Layout layout, int64_t n, int64_t c, int64_t h, int64_t w);

/// How a conv filter is stored.
enum class FilterLayout { OIHW, HWIO };

/// A conv kernel's filter layout: its optional `filter_layout` ("OIHW" or
/// "HWIO"), else the image layout's own (OIHW with NCHW, HWIO with NHWC).
Status getFilterLayout(const KernelDesc &kernel, Layout layout,
                       FilterLayout &filterLayout);

/// A conv filter through its layout: sizes and element strides of O, I, H
/// and W.
struct Filter {
  int64_t o, i, h, w;
  int64_t so, si, sh, sw;
  int64_t at(int64_t fo, int64_t fi, int64_t fh, int64_t fw) const {
    return fo * so + fi * si + fh * sh + fw * sw;
  }
};
Filter filterOf(const Shape &shape, FilterLayout layout);

/// A 2-D window: its size, strides, padding [top, bottom, left, right] and
/// dilations.
struct Window {
  int64_t sizeH = 1, sizeW = 1;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1;
};

/// Reads strides, padding and dilations (conv: defaults {1,1}, {0,0,0,0},
/// {1,1}) and checks their ranges. The size comes from the filter.
Status getConvWindow(const KernelDesc &kernel, Window &window);
/// Reads kernel, strides (required) and padding (default zero) of a pooling
/// op; padding must be smaller than the kernel, as the verifier demands, so
/// that every window sees at least one element.
Status getPoolWindow(const KernelDesc &kernel, Window &window);

/// The image a window op produces from `input` (with `channels` output
/// channels); fails when the window does not fit.
Status windowOutputShape(const KernelDesc &kernel, const Shape &input,
                         Layout layout, int64_t channels, const Window &window,
                         Shape &output);

/// The tap of window (oh, ow) over an h x w image that max pooling picks:
/// taps in row-major window order, padded ones skipped, maxPoolTakes's rule
/// (the first maximum; the first NaN). `offset(ih, iw)` is where tap (ih,
/// iw) is in `x`; the result is that offset. Padding is smaller than the
/// window, so every window has a real element. The reference kernels and
/// the cpu backend's planes both scan with this, so they pick the same tap.
template <typename Offset>
int64_t maxPoolArgMax(const Window &w, int64_t h, int64_t wd, int64_t oh,
                      int64_t ow, const float *x, Offset offset) {
  int64_t best = -1;
  float bestValue = 0;
  for (int64_t kh = 0; kh < w.sizeH; ++kh) {
    int64_t ih = oh * w.strideH - w.padTop + kh;
    if (ih < 0 || ih >= h)
      continue;
    for (int64_t kw = 0; kw < w.sizeW; ++kw) {
      int64_t iw = ow * w.strideW - w.padLeft + kw;
      if (iw < 0 || iw >= wd)
        continue;
      int64_t at = offset(ih, iw);
      float v = x[at];
      bool take = maxPoolTakes(best < 0, bestValue, v);
      best = take ? at : best;
      bestValue = take ? v : bestValue;
    }
  }
  return best;
}

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_WINDOW_H
