//===- OneDnn.cpp - oneDNN engine and cached primitives -------------------===//
//
// Built only with oneDNN (MP_HAVE_ONEDNN); CpuBackend.cpp reports the cpu
// backend as unavailable otherwise.
//
//===----------------------------------------------------------------------===//
#ifdef MP_HAVE_ONEDNN
#include "cpu/OneDnn.h"
#include "mp/runtime/Backend.h"
#include "reference/Window.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <sys/stat.h>
#include <tuple>
#include <unordered_map>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {
/// The process's oneDNN CPU engine: engines are expensive (on the PyPI
/// build each is a SYCL device context), primitives are bound to one, and
/// every backend instance can share it.
struct EngineState {
  Status status;
  dnnl::engine engine;
  std::string description;
};
} // namespace

/// The PyPI build runs its CPU engine on SYCL over Intel's OpenCL CPU
/// runtime, which the OpenCL ICD loader finds through OCL_ICD_FILENAMES or
/// /etc/OpenCL/vendors. get-onednn.sh unpacks it next to libdnnl.so; point
/// the loader at it unless the user chose one.
static void findOpenClCpuRuntime() {
#ifdef MP_ONEDNN_LIBDIR
  if (std::getenv("OCL_ICD_FILENAMES"))
    return;
  std::string path = std::string(MP_ONEDNN_LIBDIR) + "/libintelocl.so";
  struct stat info;
  if (::stat(path.c_str(), &info) == 0)
    ::setenv("OCL_ICD_FILENAMES", path.c_str(), /*overwrite=*/0);
#endif
}

static const char *isaName(dnnl::cpu_isa isa) {
  using I = dnnl::cpu_isa;
  // Several enumerators alias (avx512_core_amx == avx10_1_512_amx): compare
  // instead of switching.
  static const std::pair<I, const char *> names[] = {
      {I::avx10_2_512_amx_2, "avx10_2_512_amx_2"},
      {I::avx10_2_amx_2, "avx10_2_amx_2"},
      {I::avx10_2_512, "avx10_2_512"},
      {I::avx10_2, "avx10_2"},
      {I::avx512_core_amx_fp16, "avx512_core_amx_fp16 (AMX bf16+fp16)"},
      {I::avx512_core_amx, "avx512_core_amx (AMX bf16)"},
      {I::avx512_core_fp16, "avx512_core_fp16"},
      {I::avx512_core_bf16, "avx512_core_bf16"},
      {I::avx512_core_vnni, "avx512_core_vnni"},
      {I::avx512_core, "avx512_core"},
      {I::avx2_vnni_2, "avx2_vnni_2"},
      {I::avx2_vnni, "avx2_vnni"},
      {I::avx2, "avx2"},
      {I::avx, "avx"},
      {I::sse41, "sse41"},
  };
  for (const auto &[value, name] : names)
    if (value == isa)
      return name;
  return "unknown";
}

static EngineState makeEngine() {
  EngineState state;
  const dnnl_version_t *version = dnnl_version();
  if (version->major < 3) {
    state.status = unimplemented("the cpu backend needs oneDNN 3 but loaded " +
                                 std::to_string(version->major) + "." +
                                 std::to_string(version->minor));
    return state;
  }
  findOpenClCpuRuntime();
  // The PyPI build's CPU engine runs its kernels on the OpenCL CPU runtime's
  // TBB threads; DPCPP_CPU_NUM_CUS sets how many. The backend's thread
  // count (setCpuThreads / MP_NUM_THREADS) applies unless the user set it.
  ::setenv("DPCPP_CPU_NUM_CUS", std::to_string(cpuThreads()).c_str(),
           /*overwrite=*/0);
  // oneDNN prints its errors (and a banner) to stdout by default; ours go
  // into Statuses that carry oneDNN's message. A user who asks for
  // ONEDNN_VERBOSE still gets everything.
  if (!std::getenv("ONEDNN_VERBOSE") && !std::getenv("DNNL_VERBOSE"))
    dnnl_set_verbose(0);
  try {
    state.engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
  } catch (const dnnl::error &e) {
    state.status = unimplemented(
        std::string("oneDNN cannot create a CPU engine: ") + e.what() +
        " (status " + std::to_string(static_cast<int>(e.status)) +
        "; the PyPI build needs Intel's OpenCL CPU runtime, "
        "docs/runtime-cpu.md)");
    return state;
  } catch (const std::exception &e) {
    state.status = unimplemented(
        std::string("oneDNN cannot create a CPU engine: ") + e.what());
    return state;
  }
  // The engine's runtime (SYCL for the PyPI build) and, from the headers it
  // was built with, the threading under it.
  const char *runtime = version->cpu_runtime == DNNL_RUNTIME_SYCL  ? "SYCL"
                        : version->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP"
                        : version->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                        : version->cpu_runtime == DNNL_RUNTIME_SEQ
                            ? "sequential"
                            : "other";
#if defined(DNNL_CPU_THREADING_RUNTIME) &&                                     \
    DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
  std::string threading = std::string(runtime) + "/TBB";
#elif defined(DNNL_CPU_THREADING_RUNTIME) &&                                   \
    DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  std::string threading = std::string(runtime) + "/OpenMP";
#else
  std::string threading = runtime;
#endif
  state.description = "oneDNN " + std::to_string(version->major) + "." +
                      std::to_string(version->minor) + "." +
                      std::to_string(version->patch) + ", ISA " +
                      isaName(dnnl::get_effective_cpu_isa()) + ", runtime " +
                      threading;
  return state;
}

static const EngineState &engineState() {
  static const EngineState state = makeEngine();
  return state;
}

Status cpu::oneDnnStatus() { return engineState().status; }

std::string cpu::oneDnnDescription() {
  const EngineState &state = engineState();
  return state.status.isOk() ? state.description
                             : "oneDNN unavailable: " + state.status.message();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

namespace {
/// Hashes a cache key through its tie(): one hash for every primitive cache.
struct TieHash {
  template <typename Key> size_t operator()(const Key &key) const {
    size_t h = 0;
    std::apply(
        [&h](auto... values) {
          ((h ^= std::hash<uint64_t>()(static_cast<uint64_t>(values)) +
                 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)),
           ...);
        },
        key.tie());
    return h;
  }
};

/// One matmul problem: what a primitive is specialized on. The epilogue
/// of mp.matmul_epilogue (a bias of dtype `bias`, a ReLU) is part of it.
struct MatmulKey {
  int64_t batch, m, n, k;
  DType in, out, bias;
  bool transposeLhs, transposeRhs, sharedRhs, hasBias, relu;

  auto tie() const {
    return std::make_tuple(batch, m, n, k, in, out, bias, transposeLhs,
                           transposeRhs, sharedRhs, hasBias, relu);
  }
  bool operator==(const MatmulKey &other) const {
    return tie() == other.tie();
  }
};

/// A created primitive, or the fact that oneDNN has none for the problem
/// (then the reference kernel runs it, and we do not ask again).
struct MatmulEntry {
  bool supported = false;
  dnnl::matmul primitive;
  dnnl::memory::desc src, weights, dst, bias;
  std::string implementation;
};
} // namespace

struct MatmulCache::Impl {
  dnnl::stream stream;
  std::unordered_map<MatmulKey, MatmulEntry, TieHash> entries;
  size_t created = 0;
  std::string last;
};

MatmulCache::MatmulCache() : impl_(std::make_unique<Impl>()) {}
MatmulCache::~MatmulCache() = default;

size_t MatmulCache::primitivesCreated() const { return impl_->created; }
const std::string &MatmulCache::lastImplementation() const {
  return impl_->last;
}

static dnnl::memory::data_type toDnnl(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return dnnl::memory::data_type::f32;
  case DType::BF16:
    return dnnl::memory::data_type::bf16;
  case DType::F16:
    return dnnl::memory::data_type::f16;
  default:
    return dnnl::memory::data_type::undef;
  }
}

/// Whether `out` may hold a result computed from `in`: the same float
/// dtype, or f32 (the reference's accumulator rule).
static bool isAccumulatorOf(DType in, DType out) {
  return toDnnl(in) != dnnl::memory::data_type::undef &&
         (out == in || out == DType::F32);
}

/// The problem of a matmul: operands [..., M, K] (or [..., K, M]
/// transposed) and [..., K, N] (or [..., N, K]), batch dimensions flattened
/// into one (memory is dense row-major), a rank-2 rhs shared by every batch.
/// False when the views do not make a valid matmul: Backend::run must never
/// touch memory out of bounds, even when a caller skipped check(); the
/// reference kernel then reports what is wrong.
static bool matmulKey(const KernelDesc &kernel,
                      const std::vector<TensorView> &in,
                      const std::vector<TensorView> &out, MatmulKey &key) {
  bool epilogue = kernel.op == "mp.matmul_epilogue";
  if (!(in.size() == 2 || (epilogue && in.size() == 3)) || out.size() != 1)
    return false;
  key.hasBias = in.size() == 3;
  key.bias = key.hasBias ? in[2].dtype : DType::F32;
  key.relu = false;
  if (epilogue) {
    // An activation the reference does not know is its error to report.
    const std::string *activation = kernel.getString("activation");
    if (activation && *activation != "none" && *activation != "relu")
      return false;
    key.relu = activation && *activation == "relu";
  }
  const std::vector<int64_t> &l = in[0].shape, &r = in[1].shape;
  size_t lr = l.size(), rr = r.size();
  if (lr < 2 || rr < 2 || (rr != 2 && rr != lr))
    return false;
  key.transposeLhs = kernel.getFlag("transpose_lhs");
  key.transposeRhs = kernel.getFlag("transpose_rhs");
  key.m = key.transposeLhs ? l[lr - 1] : l[lr - 2];
  key.k = key.transposeLhs ? l[lr - 2] : l[lr - 1];
  key.n = key.transposeRhs ? r[rr - 2] : r[rr - 1];
  int64_t rhsK = key.transposeRhs ? r[rr - 1] : r[rr - 2];
  std::vector<int64_t> expected(l.begin(), l.end() - 2);
  key.sharedRhs = rr == 2;
  if (!key.sharedRhs && !std::equal(r.begin(), r.end() - 2, expected.begin()))
    return false;
  key.batch = 1;
  for (int64_t d : expected)
    key.batch *= d;
  expected.push_back(key.m);
  expected.push_back(key.n);
  key.in = in[0].dtype;
  key.out = out[0].dtype;
  if (key.hasBias &&
      (in[2].shape != std::vector<int64_t>{key.n} ||
       (key.bias != DType::F32 && key.bias != key.out)))
    return false;
  return rhsK == key.k && out[0].shape == expected && in[1].dtype == key.in &&
         isAccumulatorOf(key.in, key.out);
}

/// Memory descriptors with explicit strides, so that a transposed operand
/// is read in place (oneDNN picks its kernel for the layout; no copy).
static MatmulEntry createMatmul(const dnnl::engine &engine,
                                const MatmulKey &key) {
  using dims = dnnl::memory::dims;
  dnnl::memory::data_type inType = toDnnl(key.in), outType = toDnnl(key.out);
  MatmulEntry entry;
  int64_t m = key.m, n = key.n, k = key.k, b = key.batch;
  if (b == 1 || (key.sharedRhs && !key.transposeLhs)) {
    // One GEMM: a single matrix, or a linear layer whose batch rows stack
    // into one [B*M, K] matrix (the shape oneDNN's kernels block best).
    int64_t rows = b * m; // b == 1 when the lhs is transposed
    entry.src = dnnl::memory::desc(
        {rows, k}, inType, key.transposeLhs ? dims{1, rows} : dims{k, 1});
    entry.weights = dnnl::memory::desc(
        {k, n}, inType, key.transposeRhs ? dims{1, k} : dims{n, 1});
    entry.dst = dnnl::memory::desc({rows, n}, outType, dims{n, 1});
    if (key.hasBias)
      entry.bias = dnnl::memory::desc({1, n}, toDnnl(key.bias), dims{n, 1});
  } else {
    entry.src = dnnl::memory::desc({b, m, k}, inType,
                                   key.transposeLhs ? dims{m * k, 1, m}
                                                    : dims{m * k, k, 1});
    // A shared rhs is a weights batch of 1 that oneDNN broadcasts.
    int64_t wb = key.sharedRhs ? 1 : b;
    entry.weights = dnnl::memory::desc({wb, k, n}, inType,
                                       key.transposeRhs ? dims{k * n, 1, k}
                                                        : dims{k * n, n, 1});
    entry.dst = dnnl::memory::desc({b, m, n}, outType, dims{m * n, n, 1});
    if (key.hasBias)
      entry.bias =
          dnnl::memory::desc({1, 1, n}, toDnnl(key.bias), dims{n, n, 1});
  }
  dnnl::primitive_attr attr;
  // Strict: f32 stays f32 (no implicit bf16/tf32 down-conversion, whatever
  // ONEDNN_DEFAULT_FPMATH_MODE says); 16-bit inputs accumulate in f32.
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  // The epilogue: oneDNN adds the bias to the f32 accumulator, applies the
  // post-op to it, and converts to the destination dtype once.
  if (key.relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  try {
    dnnl::matmul::primitive_desc pd =
        key.hasBias ? dnnl::matmul::primitive_desc(engine, entry.src,
                                                   entry.weights, entry.bias,
                                                   entry.dst, attr)
                    : dnnl::matmul::primitive_desc(engine, entry.src,
                                                   entry.weights, entry.dst,
                                                   attr);
    entry.implementation = pd.impl_info_str();
    entry.primitive = dnnl::matmul(pd);
    entry.supported = true;
  } catch (const dnnl::error &e) {
    if (e.status != dnnl_unimplemented)
      throw;
    entry.supported = false;
  }
  return entry;
}

Status MatmulCache::run(const KernelDesc &kernel,
                        const std::vector<TensorView> &inputs,
                        const std::vector<TensorView> &outputs, bool &handled) {
  handled = false;
  impl_->last.clear();
  const EngineState &state = engineState();
  MP_RETURN_IF_ERROR(state.status);
  MatmulKey key;
  if (!matmulKey(kernel, inputs, outputs, key))
    return Status::ok();
  // Empty problems (and K = 0, which must write zeros) are the reference
  // kernel's: oneDNN's handling of zero dimensions varies by version.
  if (key.batch == 0 || key.m == 0 || key.n == 0 || key.k == 0)
    return Status::ok();
  try {
    auto it = impl_->entries.find(key);
    if (it == impl_->entries.end()) {
      it = impl_->entries.emplace(key, createMatmul(state.engine, key)).first;
      impl_->created += it->second.supported;
    }
    const MatmulEntry &entry = it->second;
    if (!entry.supported)
      return Status::ok();
    if (!impl_->stream)
      impl_->stream = dnnl::stream(state.engine);
    dnnl::memory src(entry.src, state.engine, inputs[0].data);
    dnnl::memory weights(entry.weights, state.engine, inputs[1].data);
    dnnl::memory dst(entry.dst, state.engine, outputs[0].data);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (key.hasBias)
      args.emplace(DNNL_ARG_BIAS,
                   dnnl::memory(entry.bias, state.engine, inputs[2].data));
    entry.primitive.execute(impl_->stream, args);
    impl_->stream.wait();
    impl_->last = entry.implementation;
  } catch (const dnnl::error &e) {
    return internalError(kernel.op + ": oneDNN matmul failed: " + e.what() +
                         " (status " +
                         std::to_string(static_cast<int>(e.status)) + ")");
  } catch (const std::exception &e) {
    return internalError(kernel.op + ": oneDNN matmul failed: " + e.what());
  }
  handled = true;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Convolution: forward, backward data, backward filter
//===----------------------------------------------------------------------===//

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

  auto tie() const {
    return std::make_tuple(kind, nhwc, n, c, h, w, o, kh, kw, oh, ow, strideH,
                           strideW, padTop, padBottom, padLeft, padRight,
                           dilationH, dilationW, in, out);
  }
  bool operator==(const ConvKey &other) const { return tie() == other.tie(); }
};

/// The primitive and the descriptors of its three tensors, in the roles of
/// the forward convolution: src (image x), weights (filter), dst (image y);
/// for the backward ops these are the gradients of the same roles.
struct ConvEntry {
  bool supported = false;
  dnnl::primitive primitive;
  dnnl::memory::desc src, weights, dst; ///< as the plan stores them
  int srcArg = DNNL_ARG_SRC, weightsArg = DNNL_ARG_WEIGHTS,
      dstArg = DNNL_ARG_DST;
  /// Where the primitive wants a role in its own (blocked) layout: a
  /// buffer in that layout, and the reorder from the plan's layout (an
  /// operand) or back into it (the result). Made once per problem.
  struct Stage {
    bool active = false;
    dnnl::memory buffer;
    dnnl::reorder reorder;
  };
  Stage stages[3]; ///< src, weights, dst
  std::string implementation;
};
} // namespace

struct ConvCache::Impl {
  dnnl::stream stream;
  std::unordered_map<ConvKey, ConvEntry, TieHash> entries;
  size_t created = 0;
  std::string last;
};

ConvCache::ConvCache() : impl_(std::make_unique<Impl>()) {}
ConvCache::~ConvCache() = default;
size_t ConvCache::primitivesCreated() const { return impl_->created; }
const std::string &ConvCache::lastImplementation() const { return impl_->last; }

/// Sets up `stage` when the primitive's layout `chosen` for a role differs
/// from the plan's `plain` one: operands are reordered into a buffer in
/// the chosen layout, the result out of one.
static void stageRole(const dnnl::engine &engine,
                      const dnnl::memory::desc &plain,
                      const dnnl::memory::desc &chosen, bool isResult,
                      ConvEntry::Stage &stage) {
  if (chosen == plain)
    return;
  stage.active = true;
  stage.buffer = dnnl::memory(chosen, engine);
  stage.reorder = isResult
                      ? dnnl::reorder(dnnl::reorder::primitive_desc(
                            engine, chosen, engine, plain))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(
                            engine, plain, engine, chosen));
}

static ConvEntry createConv(const dnnl::engine &engine, const ConvKey &key) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  dt inType = toDnnl(key.in), outType = toDnnl(key.out);
  // Which tensor the result is: dst (forward), src (backward data) or
  // weights (backward filter); the other two are the operands.
  dt srcType = key.kind == ConvKind::BackwardData ? outType : inType;
  dt weightsType = key.kind == ConvKind::BackwardFilter ? outType : inType;
  dt dstType = key.kind == ConvKind::Forward ? outType : inType;
  ConvEntry entry;
  // oneDNN's logical dimensions are always N, C, H, W (and O, I, H, W); the
  // format tag says how the plan stores them.
  dnnl::memory::dims x = {key.n, key.c, key.h, key.w},
                     f = {key.o, key.c, key.kh, key.kw},
                     y = {key.n, key.o, key.oh, key.ow};
  entry.src = dnnl::memory::desc(x, srcType, key.nhwc ? tag::nhwc : tag::nchw);
  entry.weights =
      dnnl::memory::desc(f, weightsType, key.nhwc ? tag::hwio : tag::oihw);
  entry.dst = dnnl::memory::desc(y, dstType, key.nhwc ? tag::nhwc : tag::nchw);
  // The primitive picks its layouts (`any`): in the plan's plain layouts
  // oneDNN has only slow kernels for most problems (for f32 NCHW its
  // naive loop nest), in its blocked ones its AMX / AVX-512 kernels
  // (mp-bench-conv, docs/benchmarks.md). Reorders bridge the two.
  dnnl::memory::desc srcAny(x, srcType, tag::any), weightsAny(f, weightsType,
                                                               tag::any),
      dstAny(y, dstType, tag::any);
  dnnl::primitive_attr attr;
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  dnnl::memory::dims strides = {key.strideH, key.strideW};
  // oneDNN counts dilation from 0 (0 = dense), we from 1.
  dnnl::memory::dims dilation = {key.dilationH - 1, key.dilationW - 1};
  dnnl::memory::dims padL = {key.padTop, key.padLeft};
  dnnl::memory::dims padR = {key.padBottom, key.padRight};
  try {
    dnnl::memory::desc chosen[3];
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
      dnnl::convolution_forward::primitive_desc hint(
          engine, dnnl::prop_kind::forward_training,
          dnnl::algorithm::convolution_direct,
          dnnl::memory::desc(x, inType, tag::any),
          dnnl::memory::desc(f, inType, tag::any),
          dnnl::memory::desc(y, inType, tag::any), strides, dilation, padL,
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
    // oneDNN's naive loop nest ("ref:any", also behind composite names) is
    // far slower than our im2col + GEMM: leave such problems to it.
    if (entry.implementation.find("ref:") != std::string::npos)
      return entry;
    int result = key.kind == ConvKind::Forward        ? 2
                 : key.kind == ConvKind::BackwardData ? 0
                                                      : 1;
    const dnnl::memory::desc *plain[3] = {&entry.src, &entry.weights,
                                          &entry.dst};
    for (int role = 0; role < 3; ++role)
      stageRole(engine, *plain[role], chosen[role], role == result,
                entry.stages[role]);
    entry.supported = true;
  } catch (const dnnl::error &e) {
    if (e.status != dnnl_unimplemented)
      throw;
  }
  return entry;
}

Status ConvCache::run(const KernelDesc &kernel,
                      const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs, bool &handled) {
  handled = false;
  impl_->last.clear();
  const EngineState &state = engineState();
  MP_RETURN_IF_ERROR(state.status);
  if (inputs.size() != 2 || outputs.size() != 1 ||
      inputs[0].shape.size() != 4 || inputs[1].shape.size() != 4 ||
      outputs[0].shape.size() != 4)
    return Status::ok();
  ConvKind kind = kernel.op == "train.conv2d" ? ConvKind::Forward
                  : kernel.op == "train.conv2d_backward_data"
                      ? ConvKind::BackwardData
                      : ConvKind::BackwardFilter;
  // The views in the forward roles: image x, filter f, image y.
  const TensorView &xv = kind == ConvKind::BackwardData ? outputs[0]
                                                         : inputs[0];
  const TensorView &fv = kind == ConvKind::Forward        ? inputs[1]
                         : kind == ConvKind::BackwardData ? inputs[1]
                                                          : outputs[0];
  const TensorView &yv = kind == ConvKind::Forward        ? outputs[0]
                         : kind == ConvKind::BackwardData ? inputs[0]
                                                          : inputs[1];
  ref::Layout layout;
  ref::Window window;
  if (!ref::getLayout(kernel, layout).isOk() ||
      !ref::getConvWindow(kernel, window).isOk())
    return Status::ok();
  ref::Image x = ref::imageOf(xv.shape, layout);
  ref::Filter f = ref::filterOf(fv.shape, layout);
  ref::Image y = ref::imageOf(yv.shape, layout);
  // As for matmul: only views that make a valid conv2d (else the reference
  // kernel reports what is wrong).
  window.sizeH = f.h;
  window.sizeW = f.w;
  std::vector<int64_t> expected;
  if (f.i != x.c || inputs[1].dtype != inputs[0].dtype ||
      !isAccumulatorOf(inputs[0].dtype, outputs[0].dtype) ||
      !ref::windowOutputShape(kernel, xv.shape, layout, f.o, window, expected)
           .isOk() ||
      expected != yv.shape)
    return Status::ok();
  ConvKey key{kind,
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
              outputs[0].dtype};
  if (x.n == 0 || x.c == 0 || f.o == 0)
    return Status::ok();
  try {
    auto it = impl_->entries.find(key);
    if (it == impl_->entries.end()) {
      it = impl_->entries.emplace(key, createConv(state.engine, key)).first;
      impl_->created += it->second.supported;
    }
    const ConvEntry &entry = it->second;
    if (!entry.supported)
      return Status::ok();
    if (!impl_->stream)
      impl_->stream = dnnl::stream(state.engine);
    dnnl::memory plain[3] = {
        dnnl::memory(entry.src, state.engine, xv.data),
        dnnl::memory(entry.weights, state.engine, fv.data),
        dnnl::memory(entry.dst, state.engine, yv.data)};
    int result = kind == ConvKind::Forward        ? 2
                 : kind == ConvKind::BackwardData ? 0
                                                  : 1;
    // Operands into the primitive's layouts, the primitive, the result
    // back into the plan's layout: one stream, in order.
    dnnl::memory used[3];
    for (int role = 0; role < 3; ++role) {
      const ConvEntry::Stage &stage = entry.stages[role];
      used[role] = stage.active ? stage.buffer : plain[role];
      if (stage.active && role != result)
        stage.reorder.execute(impl_->stream, {{DNNL_ARG_FROM, plain[role]},
                                              {DNNL_ARG_TO, stage.buffer}});
    }
    entry.primitive.execute(impl_->stream, {{entry.srcArg, used[0]},
                                            {entry.weightsArg, used[1]},
                                            {entry.dstArg, used[2]}});
    if (entry.stages[result].active)
      entry.stages[result].reorder.execute(
          impl_->stream, {{DNNL_ARG_FROM, entry.stages[result].buffer},
                          {DNNL_ARG_TO, plain[result]}});
    impl_->stream.wait();
    impl_->last = entry.implementation;
  } catch (const dnnl::error &e) {
    return internalError(
        kernel.op + ": oneDNN convolution failed: " + e.what() + " (status " +
        std::to_string(static_cast<int>(e.status)) + ")");
  } catch (const std::exception &e) {
    return internalError(kernel.op +
                         ": oneDNN convolution failed: " + e.what());
  }
  handled = true;
  return Status::ok();
}

#endif // MP_HAVE_ONEDNN
