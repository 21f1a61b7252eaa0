//===- OneDnnConv.cpp - the conv2d ops on oneDNN --------------------------===//
//
// train.conv2d, conv2d_backward_data and conv2d_backward_filter on oneDNN
// convolution primitives, one per problem, created on first use and kept.
// NHWC images go to the primitive as they are where oneDNN has a fast
// kernel for them; otherwise (and for NCHW) the primitive picks its own
// (blocked) layouts and reorders bridge them and the plan's plain ones. Where oneDNN has no 16-bit
// implementation on this CPU (it declines, or offers only its naive loop
// nest), the problem runs on the f32 primitive: 16-bit operands are widened
// (exactly) into f32 copies on their way into the primitive's layout and
// the result is rounded once on its way out, the arithmetic of a 16-bit
// convolution with an f32 accumulator. The staged
// copies live in one scratch buffer per cache (the kernels run one after
// the other), sized by its largest problem.
//
//===----------------------------------------------------------------------===//
#ifdef MP_HAVE_ONEDNN
#include "cpu/OneDnn.h"
#include "cpu/OneDnnSupport.h"
#include "cpu/Parallel.h"
#include "mp/runtime/Tensor.h"
#include "reference/Window.h"

#include <unordered_map>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {
/// One conv2d problem: everything its primitive is specialized on. `kind`
/// is the op: forward, backward data or backward filter; `in` is the dtype
/// of the two operands, `out` the result's.
struct ConvKey {
  ConvKind kind;
  bool nhwc;
  int64_t n, c, h, w, o, kh, kw, oh, ow;
  int64_t strideH, strideW, padTop, padBottom, padLeft, padRight;
  int64_t dilationH, dilationW;
  DType in, out;
  int64_t groups;
  bool oihwFilter; ///< the filter is OIHW (else HWIO), whatever the images

  auto tie() const {
    return std::make_tuple(kind, nhwc, n, c, h, w, o, kh, kw, oh, ow, strideH,
                           strideW, padTop, padBottom, padLeft, padRight,
                           dilationH, dilationW, in, out, groups, oihwFilter);
  }
  /// The filter's logical dimensions: O, I, H, W, or with groups oneDNN's
  /// G, O / G, I / G, H, W.
  dnnl::memory::dims filterDims() const {
    if (groups == 1)
      return {o, c, kh, kw};
    return {groups, o / groups, c / groups, kh, kw};
  }
  bool operator==(const ConvKey &other) const { return tie() == other.tie(); }
};

/// The primitive and the descriptors of its three tensors, in the roles of
/// the forward convolution: src (image x), weights (filter), dst (image y);
/// for the backward ops these are the gradients of the same roles.
struct ConvEntry {
  bool usable = false; ///< oneDNN runs it (supported())
  dnnl::primitive primitive;
  dnnl::memory::desc src, weights, dst; ///< as the plan stores them
  int srcArg = DNNL_ARG_SRC, weightsArg = DNNL_ARG_WEIGHTS,
      dstArg = DNNL_ARG_DST;
  /// Where the primitive wants a role in another layout than the plan's:
  /// that layout, the reorder from the plan's (an operand) or back into it
  /// (the result), and where in the scratch the copy goes. A widened
  /// problem's 16-bit roles first go through an f32 copy in the plan's
  /// layout (`wide`): our conversion loops, then oneDNN's f32 reorder
  /// (its dtype-converting reorders are slow loops). Made once per problem.
  struct Stage {
    bool active = false;
    dnnl::memory::desc chosen;
    dnnl::reorder reorder;
    size_t offset = 0;
    bool widen = false;      ///< the plan's tensor is 16-bit
    dnnl::memory::desc wide; ///< widen: the f32 copy in the plan's layout
    size_t wideOffset = 0;
  };
  Stage stages[3]; ///< src, weights, dst
  size_t scratchBytes = 0; ///< of all three staged copies
  bool widened = false;    ///< 16-bit problem on the f32 primitive
  std::string implementation;
  bool supported() const { return usable; }
};
} // namespace

struct ConvCache::Impl : PrimitiveCache<ConvKey, ConvEntry> {};

ConvCache::ConvCache() : impl_(std::make_unique<Impl>()) {}
ConvCache::~ConvCache() = default;
size_t ConvCache::primitivesCreated() const { return impl_->created; }
const std::string &ConvCache::lastImplementation() const { return impl_->last; }
size_t ConvCache::scratchBytes() const { return impl_->scratch.size(); }

/// Sets up `stage` when the primitive's layout `chosen` for a role differs
/// from the plan's `plain` one: operands are reordered into a copy in the
/// chosen layout, the result out of one. When `plain` is 16-bit and
/// `chosen` f32 (a widened problem), an f32 copy in the plain layout sits
/// between them.
static void stageRole(const dnnl::engine &engine, dnnl::memory::desc plain,
                      const dnnl::memory::desc &chosen, bool isResult,
                      ConvEntry::Stage &stage, size_t &scratchBytes) {
  if (plain.get_data_type() != chosen.get_data_type()) {
    stage.widen = true;
    stage.wide = dnnl::memory::desc(plain.get_dims(),
                                    dnnl::memory::data_type::f32,
                                    plain.get_strides());
    stage.wideOffset = scratchBytes;
    scratchBytes += (stage.wide.get_size() + 63) / 64 * 64;
    plain = stage.wide;
  }
  if (chosen == plain)
    return;
  stage.active = true;
  stage.chosen = chosen;
  stage.offset = scratchBytes;
  scratchBytes += (chosen.get_size() + 63) / 64 * 64;
  stage.reorder = isResult
                      ? dnnl::reorder(dnnl::reorder::primitive_desc(
                            engine, chosen, engine, plain))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(
                            engine, plain, engine, chosen));
}

/// The primitive of `key` with tensors of dtypes src / weights / dst in
/// layouts of its choice, into `entry` (primitive, arguments, name) and
/// `chosen` (its layouts). False where oneDNN has only its naive loop nest
/// ("ref:any", also behind composite names): far slower than our im2col +
/// GEMM reference or the widened f32 path. Throws dnnl::error
/// (unimplemented included).
static bool makeConv(const dnnl::engine &engine, const ConvKey &key,
                     dnnl::memory::data_type srcType,
                     dnnl::memory::data_type weightsType,
                     dnnl::memory::data_type dstType,
                     dnnl::memory::format_tag images, ConvEntry &entry,
                     dnnl::memory::desc (&chosen)[3]) {
  using tag = dnnl::memory::format_tag;
  dnnl::memory::dims x = {key.n, key.c, key.h, key.w},
                     f = key.filterDims(),
                     y = {key.n, key.o, key.oh, key.ow};
  // The primitive picks the filter's layout, and the images' where
  // `images` is `any`: in NCHW oneDNN has only slow kernels for most
  // problems (for f32 its naive loop nest), in its blocked layouts or NHWC
  // its AMX / AVX-512 ones (mp-bench-conv, docs/benchmarks.md). Reorders
  // bridge the plan's layouts and the chosen ones.
  dnnl::memory::desc srcAny(x, srcType, images),
      weightsAny(f, weightsType, tag::any), dstAny(y, dstType, images);
  dnnl::primitive_attr attr;
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  dnnl::memory::dims strides = {key.strideH, key.strideW};
  // oneDNN counts dilation from 0 (0 = dense), we from 1.
  dnnl::memory::dims dilation = {key.dilationH - 1, key.dilationW - 1};
  dnnl::memory::dims padL = {key.padTop, key.padLeft};
  dnnl::memory::dims padR = {key.padBottom, key.padRight};
  switch (key.kind) {
  case ConvKind::Forward: {
    dnnl::convolution_forward::primitive_desc pd(
        engine, dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, srcAny, weightsAny, dstAny,
        strides, dilation, padL, padR, attr);
    entry.implementation = pd.impl_info_str();
    entry.primitive = dnnl::convolution_forward(pd);
    chosen[0] = pd.src_desc();
    chosen[1] = pd.weights_desc();
    chosen[2] = pd.dst_desc();
    break;
  }
  case ConvKind::BackwardData:
  case ConvKind::BackwardFilter: {
    // The backward primitives are made from the forward one of the
    // operands' dtype.
    dnnl::memory::data_type opType =
        key.kind == ConvKind::BackwardData ? weightsType : srcType;
    dnnl::convolution_forward::primitive_desc hint(
        engine, dnnl::prop_kind::forward_training,
        dnnl::algorithm::convolution_direct,
        dnnl::memory::desc(x, opType, images),
        dnnl::memory::desc(f, opType, tag::any),
        dnnl::memory::desc(y, opType, images), strides, dilation, padL,
        padR, attr);
    if (key.kind == ConvKind::BackwardData) {
      dnnl::convolution_backward_data::primitive_desc pd(
          engine, dnnl::algorithm::convolution_direct, srcAny, weightsAny,
          dstAny, strides, dilation, padL, padR, hint, attr);
      entry.implementation = pd.impl_info_str();
      entry.primitive = dnnl::convolution_backward_data(pd);
      chosen[0] = pd.diff_src_desc();
      chosen[1] = pd.weights_desc();
      chosen[2] = pd.diff_dst_desc();
      entry.srcArg = DNNL_ARG_DIFF_SRC;
      entry.dstArg = DNNL_ARG_DIFF_DST;
    } else {
      dnnl::convolution_backward_weights::primitive_desc pd(
          engine, dnnl::algorithm::convolution_direct, srcAny, weightsAny,
          dstAny, strides, dilation, padL, padR, hint, attr);
      entry.implementation = pd.impl_info_str();
      entry.primitive = dnnl::convolution_backward_weights(pd);
      chosen[0] = pd.src_desc();
      chosen[1] = pd.diff_weights_desc();
      chosen[2] = pd.diff_dst_desc();
      entry.weightsArg = DNNL_ARG_DIFF_WEIGHTS;
      entry.dstArg = DNNL_ARG_DIFF_DST;
    }
    break;
  }
  }
  return !isReferenceImplementation(entry.implementation);
}

static ConvEntry createConv(const dnnl::engine &engine, const ConvKey &key) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  dt inType = toDnnl(key.in), outType = toDnnl(key.out);
  // Which tensor the result is: dst (forward), src (backward data) or
  // weights (backward filter); the other two are the operands.
  int result = key.kind == ConvKind::Forward        ? 2
               : key.kind == ConvKind::BackwardData ? 0
                                                    : 1;
  dt types[3] = {inType, inType, inType};
  types[result] = outType;
  ConvEntry entry;
  // oneDNN's logical dimensions are always N, C, H, W (and O, I, H, W, or
  // G, O/G, I/G, H, W); the format tag says how the plan stores them. The
  // plan's grouped OIHW filter [O, I/G, H, W] is goihw (O = G x O/G,
  // outer), its grouped HWIO [H, W, I/G, O] is hwigo. The filter's layout
  // is its own (`filter_layout`: an OIHW filter beside NHWC images is what
  // mp-channels-last leaves a PyTorch step); the primitive reorders it
  // into its blocked layout either way.
  entry.src = dnnl::memory::desc({key.n, key.c, key.h, key.w}, types[0],
                                 key.nhwc ? tag::nhwc : tag::nchw);
  entry.weights = dnnl::memory::desc(
      key.filterDims(), types[1],
      key.groups == 1 ? (key.oihwFilter ? tag::oihw : tag::hwio)
                      : (key.oihwFilter ? tag::goihw : tag::hwigo));
  entry.dst = dnnl::memory::desc({key.n, key.o, key.oh, key.ow}, types[2],
                                 key.nhwc ? tag::nhwc : tag::nchw);
  dnnl::memory::desc chosen[3];
  // NHWC images go to the primitive as they are where oneDNN has a fast
  // kernel for them (its brgemm convolutions on AVX-512: as fast as its
  // blocked layouts, mp-bench-conv's `nhwc` column), else into the layout
  // it picks.
  auto make = [&](dt src, dt weights, dt dst, ConvEntry &into) {
    std::vector<tag> tries = {tag::any};
    if (key.nhwc)
      tries.insert(tries.begin(), tag::nhwc);
    for (tag images : tries) {
      try {
        if (makeConv(engine, key, src, weights, dst, images, into, chosen))
          return true;
      } catch (const dnnl::error &e) {
        if (e.status != dnnl_unimplemented)
          throw;
      }
    }
    return false;
  };
  bool usable = make(types[0], types[1], types[2], entry);
  if (!usable && key.in != DType::F32) {
    // The f32 primitive, the stages widening and rounding (file comment).
    ConvEntry wide = entry;
    if (make(dt::f32, dt::f32, dt::f32, wide)) {
      entry = wide;
      entry.widened = true;
      entry.implementation +=
          std::string(" on f32, ") + dtypeName(key.in) + " widened";
      usable = true;
    }
  }
  if (!usable)
    return entry;
  const dnnl::memory::desc *plain[3] = {&entry.src, &entry.weights,
                                        &entry.dst};
  for (int role = 0; role < 3; ++role)
    stageRole(engine, *plain[role], chosen[role], role == result,
              entry.stages[role], entry.scratchBytes);
  // What mp-run --verbose shows: whether the images pay a reorder per call.
  if (entry.stages[0].active || entry.stages[2].active)
    entry.implementation += ", images reordered";
  entry.usable = true;
  return entry;
}

namespace {
/// The views of a convolution kernel in the forward roles: image x, filter
/// f, image y.
struct ConvViews {
  ConvKind kind;
  const TensorView *x, *f, *y;
};
ConvViews convViews(const KernelDesc &kernel,
                    const std::vector<TensorView> &inputs,
                    const std::vector<TensorView> &outputs) {
  ConvKind kind = kernel.opId() == OpId::TrainConv2d ? ConvKind::Forward
                  : kernel.opId() == OpId::TrainConv2dBackwardData
                      ? ConvKind::BackwardData
                      : ConvKind::BackwardFilter;
  return {kind, kind == ConvKind::BackwardData ? &outputs[0] : &inputs[0],
          kind == ConvKind::BackwardFilter ? &outputs[0] : &inputs[1],
          kind == ConvKind::Forward        ? &outputs[0]
          : kind == ConvKind::BackwardData ? &inputs[0]
                                           : &inputs[1]};
}
} // namespace

/// The cached entry of `kernel` on these views, created on first use; null
/// for what the reference kernel runs: views that do not make a valid
/// conv2d (the reference kernel reports what is wrong), empty problems and
/// problems oneDNN has only its reference implementation for. Throws
/// dnnl::error.
static const ConvEntry *findConv(ConvCache::Impl &impl,
                                 const EngineState &state,
                                 const KernelDesc &kernel,
                                 const std::vector<TensorView> &inputs,
                                 const std::vector<TensorView> &outputs) {
  if (inputs.size() != 2 || outputs.size() != 1 ||
      inputs[0].shape.size() != 4 || inputs[1].shape.size() != 4 ||
      outputs[0].shape.size() != 4)
    return nullptr;
  ConvViews v = convViews(kernel, inputs, outputs);
  ref::Layout layout;
  ref::FilterLayout filterLayout;
  ref::Window window;
  if (!ref::getLayout(kernel, layout).isOk() ||
      !ref::getFilterLayout(kernel, layout, filterLayout).isOk() ||
      !ref::getConvWindow(kernel, window).isOk())
    return nullptr;
  ref::Image x = ref::imageOf(v.x->shape, layout);
  ref::Filter f = ref::filterOf(v.f->shape, filterLayout);
  ref::Image y = ref::imageOf(v.y->shape, layout);
  window.sizeH = f.h;
  window.sizeW = f.w;
  std::vector<int64_t> expected;
  int64_t groups = kernel.getInt(AttrName::groups, 1);
  if (groups < 1 || f.o % groups != 0 || f.i * groups != x.c ||
      inputs[1].dtype != inputs[0].dtype ||
      !isAccumulatorOf(inputs[0].dtype, outputs[0].dtype) ||
      !ref::windowOutputShape(kernel, v.x->shape, layout, f.o, window,
                              expected)
           .isOk() ||
      expected != v.y->shape)
    return nullptr;
  ConvKey key{v.kind,
              layout == ref::Layout::NHWC,
              x.n,
              x.c,
              x.h,
              x.w,
              f.o,
              f.h,
              f.w,
              y.h,
              y.w,
              window.strideH,
              window.strideW,
              window.padTop,
              window.padBottom,
              window.padLeft,
              window.padRight,
              window.dilationH,
              window.dilationW,
              inputs[0].dtype,
              outputs[0].dtype,
              groups,
              filterLayout == ref::FilterLayout::OIHW};
  if (x.n == 0 || x.c == 0 || f.o == 0)
    return nullptr;
  const ConvEntry &entry = impl.lookup(key, state.engine, createConv);
  return entry.supported() ? &entry : nullptr;
}

StatusOr<bool> ConvCache::prepare(const KernelDesc &kernel,
                                  const std::vector<TensorView> &inputs,
                                  const std::vector<TensorView> &outputs,
                                  std::string &implementation) {
  return preparePrimitive(
      kernel, "convolution",
      [&](const EngineState &state) {
        return findConv(*impl_, state, kernel, inputs, outputs);
      },
      implementation);
}

Status ConvCache::run(const KernelDesc &kernel,
                      const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs, bool &handled) {
  handled = false;
  impl_->last.clear();
  const EngineState &state = engineState();
  MP_RETURN_IF_ERROR(state.status);
  try {
    const ConvEntry *found = findConv(*impl_, state, kernel, inputs, outputs);
    if (!found)
      return Status::ok();
    const ConvEntry &entry = *found;
    ConvViews v = convViews(kernel, inputs, outputs);
    const TensorView &xv = *v.x, &fv = *v.f, &yv = *v.y;
    ConvKind kind = v.kind;
    dnnl::memory plain[3] = {
        dnnl::memory(entry.src, state.engine, xv.data),
        dnnl::memory(entry.weights, state.engine, fv.data),
        dnnl::memory(entry.dst, state.engine, yv.data)};
    int result = kind == ConvKind::Forward        ? 2
                 : kind == ConvKind::BackwardData ? 0
                                                  : 1;
    char *scratch = nullptr;
    if (entry.scratchBytes &&
        !(scratch = static_cast<char *>(
              impl_->scratch.get(entry.scratchBytes))))
      return internalError(kernel.op + ": no memory for oneDNN's layouts (" +
                           std::to_string(entry.scratchBytes) + " bytes)");
    // Operands into the primitive's layouts (widened first where they are
    // 16-bit), the primitive, the result back into the plan's layout (and
    // dtype): one stream, in order.
    const TensorView *views[3] = {&xv, &fv, &yv};
    dnnl::memory used[3];
    for (int role = 0; role < 3; ++role) {
      const ConvEntry::Stage &stage = entry.stages[role];
      dnnl::memory from = plain[role];
      if (stage.widen) {
        from = dnnl::memory(stage.wide, state.engine,
                            scratch + stage.wideOffset);
        if (role != result)
          widenInto(views[role]->dtype, views[role]->data,
                    static_cast<float *>(from.get_data_handle()),
                    views[role]->numElements());
      }
      used[role] = stage.active
                       ? dnnl::memory(stage.chosen, state.engine,
                                      scratch + stage.offset)
                       : from;
      if (stage.active && role != result) {
        releaseWorkers(); // oneDNN's threads take the cores
        stage.reorder.execute(impl_->stream,
                              {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, used[role]}});
      }
      plain[role] = from; // where the result goes back to
    }
    releaseWorkers();
    entry.primitive.execute(impl_->stream, {{entry.srcArg, used[0]},
                                            {entry.weightsArg, used[1]},
                                            {entry.dstArg, used[2]}});
    const ConvEntry::Stage &out = entry.stages[result];
    if (out.active)
      out.reorder.execute(
          impl_->stream,
          {{DNNL_ARG_FROM, used[result]}, {DNNL_ARG_TO, plain[result]}});
    impl_->stream.wait();
    if (out.widen)
      narrowInto(static_cast<const float *>(plain[result].get_data_handle()),
                 views[result]->dtype, views[result]->data,
                 views[result]->numElements());
    impl_->last = entry.implementation;
  } catch (const std::exception &e) {
    return oneDnnError(kernel.op, "convolution", e);
  }
  handled = true;
  return Status::ok();
}

#endif // MP_HAVE_ONEDNN
