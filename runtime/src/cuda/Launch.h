//===- Launch.h - what the backend hands the CUDA kernels -------*- C++ -*-===//
//
// The boundary between the backend (plain C++, CudaBackend.cpp) and the
// kernels (the .cu files): launch functions on raw device pointers, sizes
// and the runtime's dtype codes. Each queues its kernels on `ctx.stream`
// and returns the launch error, if any. Data errors that only the device
// can see (a label out of range) are recorded in `ctx.error` and reported
// when the step finishes (CudaBackend::finishStep).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_LAUNCH_H
#define MP_RUNTIME_CUDA_LAUNCH_H

#include "common/StepRules.h"

#include <cstdint>

typedef struct CUstream_st *cudaStream_t;

namespace mp::rt::cuda {

/// The first data error of a step, written by the device.
struct DeviceError {
  int32_t code;   ///< ErrorCode; 0: none
  int32_t launch; ///< the backend's launch number within the step
  int64_t value, position, limit;
};

enum ErrorCode : int32_t {
  kNoError = 0,
  kLabelOutOfRange = 1,  ///< value = label, position = row, limit = classes
  kIndexOutOfRange = 2,  ///< value = index, position = element, limit = rows
  kIntegerDivByZero = 3, ///< position = element
  kStepNotPositive = 4,  ///< Adam's step < 1; value = floor(step)
  kStepNegative = 5,     ///< a schedule's step count < 0; value = it
};

struct Context {
  cudaStream_t stream;
  DeviceError *error; ///< device memory
  int32_t launch;     ///< stored with an error this launch finds
};

/// A float or integer tensor on the device: data and the runtime's DType
/// code (0 f32, 1 bf16, 2 f16, 3 i1, 4 i32, 5 i64).
struct Ref {
  void *data;
  int32_t dtype;
};

/// Up to this many dimensions in the strided gather and the reductions.
constexpr int kMaxRank = 8;

/// out[i] = in[base + sum_d index_d(i) * steps[d]] over `shape`, copying
/// `elementSize`-byte elements (transpose, broadcast, slice).
struct Gather {
  int32_t rank;
  int64_t shape[kMaxRank];
  int64_t steps[kMaxRank];
  int64_t base;
};

// Elementwise.cu ------------------------------------------------------------
enum class Unary : int32_t {
  Neg,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Erf,
  Relu,
  Gelu,
  GeluTanh,
  Silu,
  Hardswish,
  LeakyRelu, ///< param: the negative slope
  Elu,       ///< param: alpha
  Abs,
  Sign,
};
enum class Binary : int32_t { Add, Sub, Mul, Div, Maximum, Minimum, Pow };
enum class ActGrad : int32_t {
  Relu,
  Tanh,
  Sigmoid,
  Gelu,
  GeluTanh,
  Silu,
  Hardswish,
  LeakyRelu, ///< param: the negative slope
  Elu,       ///< param: alpha
};
enum class Predicate : int32_t { Eq, Ne, Lt, Le, Gt, Ge };

/// `param`: the op's one float attribute where it has one.
int unary(const Context &ctx, Unary op, Ref x, Ref y, int64_t n,
          float param = 0);
/// Float, i32 or i64 (integers wrap; division by zero is a data error).
int binary(const Context &ctx, Binary op, Ref a, Ref b, Ref r, int64_t n);
int activationGrad(const Context &ctx, ActGrad op, Ref g, Ref saved, Ref r,
                   int64_t n, float param = 0);
int compare(const Context &ctx, Predicate p, Ref a, Ref b, uint8_t *r,
            int64_t n);
/// r[e] = cond[e] ? a[e] : b[e], elements of `size` bytes.
int select(const Context &ctx, const uint8_t *cond, const void *a,
           const void *b, void *r, int64_t size, int64_t n);
/// x as [outer, channels, inner]; r = x + bias[c].
int biasAdd(const Context &ctx, Ref x, Ref bias, Ref r, int64_t outer,
            int64_t channels, int64_t inner);
/// The epilogue of mp.matmul_epilogue on an f32 product `acc` of `rows`
/// rows of `n`: out = relu?(acc + bias[col]) in f32, rounded once into
/// `out`'s dtype (`out` may be `acc` itself when it is f32). `bias.data`
/// may be null (no bias).
int matmulEpilogue(const Context &ctx, const float *acc, Ref bias, bool relu,
                   Ref out, int64_t rows, int64_t n);
/// Widening or rounding (to nearest even) float conversion.
int cast(const Context &ctx, Ref in, Ref out, int64_t n);
/// Writes `n` elements of `size` bytes, each the low bytes of `bits`.
int fillBits(const Context &ctx, void *out, uint64_t bits, int64_t size,
             int64_t n);

// MixedPrecision.cu ---------------------------------------------------------
/// out = value * (*scale), scale an f32 scalar on the device.
int scale(const Context &ctx, Ref value, const float *scale, Ref out,
          int64_t n);
/// out = g * f32(1 / *scale) (the reciprocal in double, as GradScaler);
/// clears *finite when an element of g is not finite. The caller sets
/// *finite to 1 first.
int unscale(const Context &ctx, const float *scale, Ref g, Ref out, int64_t n,
            uint8_t *finite);
/// Clears *finite when an element of v is not finite.
int checkFinite(const Context &ctx, Ref v, int64_t n, uint8_t *finite);
/// out = *pred ? a : b, `bytes` bytes (mp.select: the bits, untouched).
int selectBytes(const Context &ctx, const uint8_t *pred, const void *a,
                const void *b, void *out, int64_t bytes);
struct ScalerParams {
  int64_t growthInterval;
  float growthFactor, backoffFactor, minScale, maxScale;
};
int updateScale(const Context &ctx, const float *scale, Ref count,
                const uint8_t *finite, float *newScale, Ref newCount,
                const ScalerParams &p);

// Optimizer.cu --------------------------------------------------------------
/// `lrTensor`: the learning rate as a 0-d f32 on the device (an operand
/// of the update), read in place of `lr` when its data is not null.
struct SgdParams {
  float lr, weightDecay, momentum, keep; ///< keep = 1 - dampening
  bool nesterov, withMomentum;
  Ref lrTensor;
};
/// With momentum: buf/newBuf are the momentum buffer; else unused.
int sgd(const Context &ctx, Ref p, Ref g, Ref buf, Ref newP, Ref newBuf,
        int64_t n, const SgdParams &hp);
struct AdamParams {
  double lr, beta1, beta2, epsilon, weightDecay;
  bool decoupled;
  Ref lrTensor; ///< as in SgdParams
};
/// `step` is an f32/i32/i64 scalar on the device; the bias corrections are
/// taken from it on the device.
int adam(const Context &ctx, Ref p, Ref g, Ref m, Ref v, Ref step, Ref newP,
         Ref newM, Ref newV, int64_t n, const AdamParams &hp);

// StepState.cu --------------------------------------------------------------
/// *lr = the schedule after *step steps (a 0-d i32/i64).
int lrSchedule(const Context &ctx, Ref step, float *lr,
               const ref::Schedule &s);
/// clip_grad_norm: normBlocks(n) f64 partials of gradient g (n elements)
/// at `partials`; then the norm of all `count` partials and the clamped
/// coefficient (both f32 on the device); then r = g * *coef.
unsigned normBlocks(int64_t n);
int normPartial(const Context &ctx, Ref g, int64_t n, double p,
                double *partials);
int normCoefficient(const Context &ctx, const double *partials, int64_t count,
                    double p, double maxNorm, float *norm, float *coef);
int scaleByDevice(const Context &ctx, Ref g, Ref r, int64_t n,
                  const float *coef);
/// r = clamp(g, -c, c), NaN kept.
int clampValues(const Context &ctx, Ref g, Ref r, int64_t n, float c);
/// train.dropout / dropout_grad (the same mask).
int dropout(const Context &ctx, Ref x, Ref key, Ref counter, Ref r, int64_t n,
            int64_t site, double p);
/// The same with a broadcast mask (train.dropout's mask_shape).
int broadcastDropout(const Context &ctx, Ref x, Ref key, Ref counter, Ref r,
                     int64_t n, int64_t site, double p,
                     const ref::MaskIndex &index);

// Softmax.cu ----------------------------------------------------------------
/// x as [outer, length, inner] around the axis.
int softmax(const Context &ctx, bool isLog, Ref x, Ref y, int64_t outer,
            int64_t length, int64_t inner);
int softmaxGrad(const Context &ctx, bool isLog, Ref grad, Ref y, Ref r,
                int64_t outer, int64_t length, int64_t inner);
/// sparse_cross_entropy's label_smoothing and ignore_index.
struct CrossEntropyOptions {
  float smoothing;
  bool hasIgnore;
  int64_t ignore;
};
/// Mean over the rows not ignored of the row's term; `workspace` holds
/// 2 * rows f32 (the backend's) so that the mean sums in a fixed order.
int crossEntropy(const Context &ctx, Ref logits, Ref labels, Ref loss,
                 float *workspace, int64_t rows, int64_t classes,
                 const CrossEntropyOptions &options);
/// `workspace` holds one f32 (the count of rows not ignored).
int crossEntropyGrad(const Context &ctx, Ref logits, Ref labels, Ref gradLoss,
                     Ref r, float *workspace, int64_t rows, int64_t classes,
                     const CrossEntropyOptions &options);

// Reduction.cu --------------------------------------------------------------
/// LogSumExp and ArgMax (an i64 result: the first maximum, a NaN counting
/// as the maximum) run a thread per result.
enum class Reduce : int32_t { Sum, Mean, Max, LogSumExp, ArgMax };
/// x's dims split into kept (result order) and reduced ones, each with
/// x's strides.
struct Reduction {
  int32_t keptRank, reducedRank;
  int64_t kept[kMaxRank], keptStrides[kMaxRank];
  int64_t reduced[kMaxRank], reducedStrides[kMaxRank];
  int64_t outputs, perOutput;
};
int reduce(const Context &ctx, Reduce kind, Ref x, Ref r, const Reduction &d);

// Normalization.cu ----------------------------------------------------------
/// rms_norm too: `offset`, `mean` (and the grad's `mean`, `doffset`) with
/// null data, the rows not centered.
int layerNorm(const Context &ctx, Ref x, Ref scale, Ref offset, Ref y, Ref mean,
              Ref invStd, int64_t rows, int64_t features, float epsilon);
int layerNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale, Ref mean,
                  Ref invStd, Ref dx, Ref dscale, Ref doffset, int64_t rows,
                  int64_t features);
/// x as [outer, features, inner].
int batchNorm(const Context &ctx, Ref x, Ref scale, Ref offset, Ref runMean,
              Ref runVar, Ref y, Ref newMean, Ref newVar, Ref savedMean,
              Ref savedInvStd, int64_t outer, int64_t features, int64_t inner,
              float epsilon, float momentum);
int batchNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale, Ref mean,
                  Ref invStd, Ref dx, Ref dscale, Ref doffset, int64_t outer,
                  int64_t features, int64_t inner);

// Shape.cu ------------------------------------------------------------------
int gather(const Context &ctx, const void *in, void *out, int64_t elementSize,
           const Gather &g);
/// out[base + sum_d index_d(i) * steps[d]] = in[i] over g.shape (pad).
int scatter(const Context &ctx, const void *in, void *out, int64_t elementSize,
            const Gather &g);

// Embedding.cu --------------------------------------------------------------
/// x [outer, size, inner] taken along its middle dimension at `count`
/// indices: out [outer, count, inner] (embedding: outer 1, a [size, inner]
/// table).
struct TakeDims {
  int64_t outer, size, inner, count;
};
/// out[o, i, :] = x[o, indices[i], :] (bits), elements of `elementSize` bytes.
int take(const Context &ctx, const void *x, Ref indices, void *out,
         int64_t elementSize, const TakeDims &dims);
/// result[o, v, :] = sum of grad[o, i, :] over i with indices[i] == v, in f32.
int takeGrad(const Context &ctx, Ref grad, Ref indices, Ref result,
             const TakeDims &dims);

// Window.cu -----------------------------------------------------------------
/// An image (N, C, H, W sizes, element strides: any layout), a filter (O, I,
/// H, W and strides), a window (the reference's Window, less the size).
struct ImageDesc {
  int64_t n, c, h, w, sn, sc, sh, sw;
};
/// `i` is the channels of one group; `groups` splits o (and the input's
/// channels) into groups (train.conv2d's `groups`).
struct FilterDesc {
  int64_t o, i, h, w, so, si, sh, sw;
  int64_t groups;
};
struct WindowDesc {
  int64_t sizeH, sizeW, strideH, strideW, padTop, padLeft, dilationH, dilationW;
};
int conv2d(const Context &ctx, Ref x, Ref f, Ref y, const ImageDesc &xi,
           const FilterDesc &fd, const ImageDesc &yi, const WindowDesc &w);
int conv2dBackwardData(const Context &ctx, Ref dy, Ref f, Ref dx,
                       const ImageDesc &xi, const FilterDesc &fd,
                       const ImageDesc &yi, const WindowDesc &w);
int conv2dBackwardFilter(const Context &ctx, Ref x, Ref dy, Ref df,
                         const ImageDesc &xi, const FilterDesc &fd,
                         const ImageDesc &yi, const WindowDesc &w);
int maxPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi,
            const ImageDesc &yi, const WindowDesc &w);
int avgPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi,
            const ImageDesc &yi, const WindowDesc &w);
int maxPoolGrad(const Context &ctx, Ref grad, Ref x, Ref dx,
                const ImageDesc &xi, const ImageDesc &yi, const WindowDesc &w);
int avgPoolGrad(const Context &ctx, Ref grad, Ref dx, const ImageDesc &xi,
                const ImageDesc &yi, const WindowDesc &w);
/// nn.AdaptiveAvgPool2d's windows (y's spatial size given), f64 sums; the
/// gradient sums each input's windows in f32, in the reference's order.
int adaptiveAvgPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi,
                    const ImageDesc &yi);
int adaptiveAvgPoolGrad(const Context &ctx, Ref grad, Ref dx,
                        const ImageDesc &xi, const ImageDesc &yi);
/// y is [N, C] (dense), x any layout.
int globalAvgPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi);
int globalAvgPoolGrad(const Context &ctx, Ref grad, Ref dx,
                      const ImageDesc &xi);

/// out[i, c] = (indices[i] == c) for n indices; an index outside [0,
/// classes) is a data error (its row stays 0).
int oneHot(const Context &ctx, Ref indices, Ref out, int64_t n,
           int64_t classes);

// GroupNorm.cu -------------------------------------------------------------
/// x as [batch, before, channels, after], `groups` groups of channels.
struct GroupDims {
  int64_t batch, before, channels, after, groups;
};
/// mean / inv_std are [batch, groups].
int groupNorm(const Context &ctx, Ref x, Ref scale, Ref offset, Ref y,
              Ref mean, Ref invStd, const GroupDims &s, float epsilon);
int groupNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale, Ref mean,
                  Ref invStd, Ref dx, Ref dscale, Ref doffset,
                  const GroupDims &s);

// PointwiseLoss.cu ---------------------------------------------------------
enum class PointwiseLoss : int32_t { Mse, Bce, Huber };
/// loss (0-d) = mean over n elements of the term (f64 sums); `delta` is
/// Huber's.
int pointwiseLoss(const Context &ctx, PointwiseLoss kind, Ref x, Ref t,
                  Ref loss, int64_t n, double delta);
/// r = derivative * grad_loss / n, elementwise.
int pointwiseLossGrad(const Context &ctx, PointwiseLoss kind, Ref x, Ref t,
                      Ref gradLoss, Ref r, int64_t n, double delta);

// Recurrent.cu -------------------------------------------------------------
/// Where a GRU's reset, update and new blocks sit in its [B, 3H] gates.
struct GruBlocks {
  int64_t r, z, n;
};
/// gates [B, 4H] (i, f, g, o), c / h_new / c_new [B, H].
int lstmCell(const Context &ctx, Ref gates, Ref c, Ref hNew, Ref cNew,
             int64_t batch, int64_t hidden);
int lstmCellGrad(const Context &ctx, Ref dh, Ref dc, Ref gates, Ref c,
                 Ref cNew, Ref dGates, Ref dcPrev, int64_t batch,
                 int64_t hidden);
int gruCell(const Context &ctx, Ref x, Ref hg, Ref h, Ref hNew,
            GruBlocks blocks, int64_t batch, int64_t hidden);
int gruCellGrad(const Context &ctx, Ref dh, Ref x, Ref hg, Ref h, Ref dx,
                Ref dhg, Ref dhPrev, GruBlocks blocks, int64_t batch,
                int64_t hidden);

} // namespace mp::rt::cuda

#endif // MP_RUNTIME_CUDA_LAUNCH_H
