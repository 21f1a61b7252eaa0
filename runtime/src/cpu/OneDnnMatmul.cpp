//===- OneDnnMatmul.cpp - train.matmul / mp.matmul_epilogue on oneDNN -----===//
//
// One primitive per problem, created on first use and kept. Where oneDNN
// has no 16-bit implementation on this CPU (bf16 without AVX512-BF16 or
// AMX, f16 without AVX512-FP16 or AMX-FP16: it declines them, or offers
// only its naive loop nest), the problem runs on the f32 primitive of the
// same shape with its 16-bit operands widened: a bf16 or f16 value is exact
// in f32, and so is the product of two (11 + 11 or 8 + 8 significant bits
// fit in 24), so this is the arithmetic of a native 16-bit GEMM with an f32
// accumulator, only slower than one where the CPU has 16-bit units. The
// widening never makes a tensor-size f32 copy of the rhs (the weights): it
// converts column panels sized to stay in cache (2-D problems; the lhs, an
// activation, is widened whole) or groups of batches (batched problems)
// into a scratch buffer the cache keeps at its largest problem's size, and
// runs the f32 primitive on each; a 16-bit result goes through the scratch
// too and is rounded once.
//
//===----------------------------------------------------------------------===//
#ifdef MP_HAVE_ONEDNN
#include "cpu/OneDnn.h"
#include "cpu/OneDnnSupport.h"
#include "cpu/Parallel.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <type_traits>
#include <unordered_map>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {
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
  /// A single matrix, or a linear layer whose batch rows stack into one
  /// [B*M, K] matrix (the shape oneDNN's kernels block best).
  bool isOneGemm() const { return batch == 1 || (sharedRhs && !transposeLhs); }
};

/// A primitive with the descriptors of its arguments.
struct Primitive {
  dnnl::matmul primitive;
  dnnl::memory::desc src, weights, dst, bias;
  std::string implementation; ///< oneDNN's name for it
};

/// How a problem runs: natively, or widened in chunks (file comment).
struct MatmulEntry {
  enum class Kind { Unsupported, Native, Widened } kind = Kind::Unsupported;
  Primitive full; ///< native: the problem; widened: one whole chunk
  Primitive tail; ///< widened: the last chunk when it is smaller
  /// Widened: columns per panel (one GEMM) or batches per group (batched).
  int64_t chunk = 0;
  std::string implementation;
  bool supported() const { return kind != Kind::Unsupported; }
};
} // namespace

struct MatmulCache::Impl : PrimitiveCache<MatmulKey, MatmulEntry> {};

MatmulCache::MatmulCache() : impl_(std::make_unique<Impl>()) {}
MatmulCache::~MatmulCache() = default;

size_t MatmulCache::primitivesCreated() const { return impl_->created; }
const std::string &MatmulCache::lastImplementation() const {
  return impl_->last;
}
size_t MatmulCache::scratchBytes() const { return impl_->scratch.size(); }

/// The problem of a matmul: operands [..., M, K] (or [..., K, M]
/// transposed) and [..., K, N] (or [..., N, K]), batch dimensions flattened
/// into one (memory is dense row-major), a rank-2 rhs shared by every batch.
/// False when the views do not make a valid matmul: Backend::run must never
/// touch memory out of bounds, even when a caller skipped prepare(); the
/// reference kernel then reports what is wrong.
static bool matmulKey(const KernelDesc &kernel,
                      const std::vector<TensorView> &in,
                      const std::vector<TensorView> &out, MatmulKey &key) {
  bool epilogue = kernel.opId() == OpId::MpMatmulEpilogue;
  if (!(in.size() == 2 || (epilogue && in.size() == 3)) || out.size() != 1)
    return false;
  key.hasBias = in.size() == 3;
  key.bias = key.hasBias ? in[2].dtype : DType::F32;
  key.relu = false;
  if (epilogue) {
    // An activation the reference does not know is its error to report.
    const std::string *activation = kernel.getString(AttrName::activation);
    if (activation && *activation != "none" && *activation != "relu")
      return false;
    key.relu = activation && *activation == "relu";
  }
  const std::vector<int64_t> &l = in[0].shape, &r = in[1].shape;
  size_t lr = l.size(), rr = r.size();
  if (lr < 2 || rr < 2 || (rr != 2 && rr != lr))
    return false;
  key.transposeLhs = kernel.getFlag(AttrName::transpose_lhs);
  key.transposeRhs = kernel.getFlag(AttrName::transpose_rhs);
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

/// The primitive of `key` in dtypes `inType` / `outType` / `biasType`, on
/// `nCols` columns (one GEMM) or `batches` batches, with the result's
/// leading dimension `ldDst` (its row stride; the full N when a panel is
/// written into place). Throws dnnl::error (unimplemented included).
static Primitive makePrimitive(const dnnl::engine &engine, const MatmulKey &key,
                               dnnl::memory::data_type inType,
                               dnnl::memory::data_type outType,
                               dnnl::memory::data_type biasType, int64_t nCols,
                               int64_t batches, int64_t ldDst,
                               int64_t ldRhs) {
  using dims = dnnl::memory::dims;
  Primitive p;
  int64_t m = key.m, n = nCols, k = key.k;
  if (key.isOneGemm()) {
    int64_t rows = key.batch * m; // batch == 1 when the lhs is transposed
    p.src = dnnl::memory::desc({rows, k}, inType,
                               key.transposeLhs ? dims{1, rows} : dims{k, 1});
    p.weights = dnnl::memory::desc(
        {k, n}, inType, key.transposeRhs ? dims{1, ldRhs} : dims{ldRhs, 1});
    p.dst = dnnl::memory::desc({rows, n}, outType, dims{ldDst, 1});
    if (key.hasBias)
      p.bias = dnnl::memory::desc({1, n}, biasType, dims{n, 1});
  } else {
    int64_t b = batches;
    p.src = dnnl::memory::desc({b, m, k}, inType,
                               key.transposeLhs ? dims{m * k, 1, m}
                                                : dims{m * k, k, 1});
    // A shared rhs is a weights batch of 1 that oneDNN broadcasts.
    int64_t wb = key.sharedRhs ? 1 : b;
    p.weights = dnnl::memory::desc({wb, k, n}, inType,
                                   key.transposeRhs ? dims{k * n, 1, k}
                                                    : dims{k * n, n, 1});
    p.dst = dnnl::memory::desc({b, m, n}, outType, dims{m * n, n, 1});
    if (key.hasBias)
      p.bias = dnnl::memory::desc({1, 1, n}, biasType, dims{n, n, 1});
  }
  dnnl::primitive_attr attr;
  // Strict: f32 stays f32 (no implicit bf16/tf32 down-conversion, whatever
  // ONEDNN_DEFAULT_FPMATH_MODE says); 16-bit inputs accumulate in f32.
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  // The epilogue: oneDNN adds the bias to the f32 accumulator and converts
  // to the destination dtype once. The ReLU is ours (reluInPlace), after:
  // oneDNN's eltwise_relu post-op turns NaN into 0 (it computes a max),
  // where the reference (and PyTorch) keep NaN, and an input NaN must not
  // vanish in the forward pass while it poisons the backward one. ReLU
  // commutes with the rounding to 16 bits, so applying it to the rounded
  // result is exact.
  dnnl::matmul::primitive_desc pd =
      key.hasBias ? dnnl::matmul::primitive_desc(engine, p.src, p.weights,
                                                 p.bias, p.dst, attr)
                  : dnnl::matmul::primitive_desc(engine, p.src, p.weights,
                                                 p.dst, attr);
  p.implementation = pd.impl_info_str();
  if (isReferenceImplementation(p.implementation) &&
      inType != dnnl::memory::data_type::f32)
    throw dnnl::error(dnnl_unimplemented, "only oneDNN's reference matmul");
  p.primitive = dnnl::matmul(pd);
  return p;
}

/// What one widened chunk holds in f32 (elements): the panel of the rhs (or
/// the group's lhs and rhs) and a 16-bit result's f32 copy.
static constexpr int64_t kChunkBudget = (int64_t(2) << 20) / 4; // 2 MiB

/// Chunk width of a widened problem (file comment): a panel of the rhs
/// that stays in cache, in multiples of 64 columns, or a group of batches.
/// (A 16-bit result's f32 panel is not counted: narrower panels to keep it
/// in cache made the issue-size MLP's weight gradients slower, 64-column
/// GEMMs being less efficient than the result's cache misses cost.)
static int64_t widenedChunk(const MatmulKey &key) {
  if (key.isOneGemm()) {
    int64_t columns = kChunkBudget / std::max<int64_t>(1, key.k);
    columns = std::max<int64_t>(64, columns / 64 * 64);
    return std::min(columns, key.n);
  }
  int64_t perBatch = key.m * key.k + (key.sharedRhs ? 0 : key.k * key.n) +
                     (key.out == DType::F32 ? 0 : key.m * key.n);
  return std::clamp<int64_t>(kChunkBudget / std::max<int64_t>(1, perBatch), 1,
                             key.batch);
}

static MatmulEntry createMatmul(const dnnl::engine &engine,
                                const MatmulKey &key) {
  using dt = dnnl::memory::data_type;
  MatmulEntry entry;
  try {
    entry.full = makePrimitive(engine, key, toDnnl(key.in), toDnnl(key.out),
                               toDnnl(key.bias), key.n, key.batch, key.n,
                               key.transposeRhs ? key.k : key.n);
    entry.kind = MatmulEntry::Kind::Native;
    entry.implementation =
        entry.full.implementation + (key.relu ? " + own ReLU" : "");
    return entry;
  } catch (const dnnl::error &e) {
    if (e.status != dnnl_unimplemented || key.in == DType::F32)
      throw;
  }
  // Widened: f32 operands, the result in place when it is f32 (a panel then
  // has the full row stride), else in the scratch (the panel's own).
  int64_t chunk = widenedChunk(key);
  bool outF32 = key.out == DType::F32;
  auto make = [&](int64_t size) {
    if (key.isOneGemm())
      return makePrimitive(engine, key, dt::f32, dt::f32, dt::f32, size,
                           key.batch, outF32 ? key.n : size,
                           key.transposeRhs ? key.k : size);
    return makePrimitive(engine, key, dt::f32, dt::f32, dt::f32, key.n, size,
                         key.n, key.transposeRhs ? key.k : key.n);
  };
  int64_t total = key.isOneGemm() ? key.n : key.batch;
  entry.full = make(chunk);
  if (total % chunk)
    entry.tail = make(total % chunk);
  entry.chunk = chunk;
  entry.kind = MatmulEntry::Kind::Widened;
  std::string chunks =
      chunk == total ? ""
      : key.isOneGemm()
          ? " in " + std::to_string(chunk) + "-column panels"
          : " in groups of " + std::to_string(chunk) + " batches";
  entry.implementation = entry.full.implementation + " on f32, " +
                         dtypeName(key.in) + " widened" + chunks +
                         (key.relu ? " + own ReLU" : "");
  return entry;
}

namespace {
/// `rows` runs of `width` elements, `stride` apart in `in`, into a dense
/// [rows, width] block at `out`.
void widenRows(DType dtype, const void *in, int64_t stride, int64_t rows,
               int64_t width, float *out) {
  size_t size = dtypeSize(dtype);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / width);
  parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      toFloats(dtype, static_cast<const char *>(in) + r * stride * size,
               out + r * width, width);
  });
}

/// x < 0 ? 0 : x on every element of a float tensor, in place, on its
/// bits (the reference's reluF: NaN stays NaN, -0 stays -0): the sign bit
/// set on a number that is not NaN becomes +0.
void reluInPlace(DType dtype, void *data, int64_t n) {
  auto apply = [n](auto *bits, auto signBit, auto infBits) {
    using Bits = std::remove_reference_t<decltype(*bits)>;
    parallelFor(n, int64_t(1) << 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        Bits v = bits[i];
        bool negative = (v & signBit) && static_cast<Bits>(v & ~signBit) != 0 &&
                        static_cast<Bits>(v & ~signBit) <= infBits;
        bits[i] = negative ? Bits(0) : v;
      }
    });
  };
  if (dtype == DType::F32)
    apply(static_cast<uint32_t *>(data), uint32_t(0x80000000u),
          uint32_t(0x7f800000u));
  else if (dtype == DType::BF16)
    apply(static_cast<uint16_t *>(data), uint16_t(0x8000u), uint16_t(0x7f80u));
  else
    apply(static_cast<uint16_t *>(data), uint16_t(0x8000u), uint16_t(0x7c00u));
}

/// The dense [rows, width] f32 block at `in` rounded into `rows` runs of
/// `out`, `stride` elements apart.
void narrowRows(const float *in, int64_t rows, int64_t width, DType dtype,
                void *out, int64_t stride) {
  size_t size = dtypeSize(dtype);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / width);
  parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      fromFloats(in + r * width, dtype,
                 static_cast<char *>(out) + r * stride * size, width);
  });
}
} // namespace

/// Runs a widened problem chunk by chunk (file comment).
static Status runWidened(const EngineState &state, dnnl::stream &stream,
                         Scratch &scratch, const MatmulKey &key,
                         const MatmulEntry &entry,
                         const std::vector<TensorView> &in,
                         const TensorView &out) {
  DType dtype = key.in;
  size_t size = dtypeSize(dtype), outSize = dtypeSize(key.out);
  bool outF32 = key.out == DType::F32;
  int64_t chunk = entry.chunk;
  // The scratch: [lhs | rhs chunk | result chunk | bias], as floats.
  int64_t lhsFloats, rhsFloats, outFloats;
  if (key.isOneGemm()) {
    lhsFloats = key.batch * key.m * key.k;
    rhsFloats = key.k * chunk;
    outFloats = outF32 ? 0 : key.batch * key.m * chunk;
  } else {
    lhsFloats = chunk * key.m * key.k;
    rhsFloats = (key.sharedRhs ? 1 : chunk) * key.k * key.n;
    outFloats = outF32 ? 0 : chunk * key.m * key.n;
  }
  int64_t biasFloats = key.hasBias ? key.n : 0;
  float *base = static_cast<float *>(scratch.get(
      static_cast<size_t>(lhsFloats + rhsFloats + outFloats + biasFloats) *
      sizeof(float)));
  if (!base)
    return internalError("matmul: no memory for the widened operands (" +
                             std::to_string((lhsFloats + rhsFloats +
                                             outFloats + biasFloats) *
                                            4) +
                             " bytes)");
  float *lhs = base, *rhs = lhs + lhsFloats, *res = rhs + rhsFloats,
        *bias = res + outFloats;
  if (key.hasBias)
    widenInto(in[2].dtype, in[2].data, bias, key.n);
  const char *l = static_cast<const char *>(in[0].data);
  const char *r = static_cast<const char *>(in[1].data);
  char *o = static_cast<char *>(out.data);
  auto execute = [&](const Primitive &p, void *src, void *weights, void *dst,
                     float *biasAt) {
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(p.src, state.engine, src)},
        {DNNL_ARG_WEIGHTS, dnnl::memory(p.weights, state.engine, weights)},
        {DNNL_ARG_DST, dnnl::memory(p.dst, state.engine, dst)}};
    if (key.hasBias)
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(p.bias, state.engine, biasAt));
    releaseWorkers(); // oneDNN's threads take the cores
    p.primitive.execute(stream, args);
    stream.wait();
  };

  if (key.isOneGemm()) {
    int64_t rows = key.batch * key.m, k = key.k, n = key.n;
    widenInto(dtype, l, lhs, rows * k);
    for (int64_t n0 = 0; n0 < n; n0 += chunk) {
      int64_t width = std::min(chunk, n - n0);
      const Primitive &p = width == chunk ? entry.full : entry.tail;
      // The panel: columns [n0, n0 + width) of the [K, N] rhs, or rows of
      // the stored [N, K] one, dense.
      if (key.transposeRhs)
        widenInto(dtype, r + n0 * k * size, rhs, width * k);
      else
        widenRows(dtype, r + n0 * size, n, k, width, rhs);
      void *dst = outF32 ? static_cast<void *>(o + n0 * outSize)
                         : static_cast<void *>(res);
      execute(p, lhs, rhs, dst, bias + n0);
      if (!outF32) {
        if (key.relu)
          reluInPlace(DType::F32, res, rows * width);
        narrowRows(res, rows, width, key.out, o + n0 * outSize, n);
      }
    }
    if (key.relu && outF32)
      reluInPlace(DType::F32, o, rows * n);
    return Status::ok();
  }
  int64_t lhsPer = key.m * key.k, rhsPer = key.k * key.n,
          outPer = key.m * key.n;
  if (key.sharedRhs)
    widenInto(dtype, r, rhs, rhsPer);
  for (int64_t b0 = 0; b0 < key.batch; b0 += chunk) {
    int64_t group = std::min(chunk, key.batch - b0);
    const Primitive &p = group == chunk ? entry.full : entry.tail;
    widenInto(dtype, l + b0 * lhsPer * size, lhs, group * lhsPer);
    if (!key.sharedRhs)
      widenInto(dtype, r + b0 * rhsPer * size, rhs, group * rhsPer);
    void *dst = outF32 ? static_cast<void *>(o + b0 * outPer * outSize)
                       : static_cast<void *>(res);
    execute(p, lhs, rhs, dst, bias);
    if (key.relu)
      reluInPlace(DType::F32, outF32 ? static_cast<void *>(o + b0 * outPer * outSize)
                                     : static_cast<void *>(res),
                  group * outPer);
    if (!outF32)
      narrowRows(res, 1, group * outPer, key.out, o + b0 * outPer * outSize,
                 0);
  }
  return Status::ok();
}

/// The cached entry of `kernel` on these views, created on first use; null
/// for problems left to the reference kernel: views that do not make a
/// valid matmul, empty problems (and K = 0, which must write zeros: oneDNN's
/// handling of zero dimensions varies by version), and dtype combinations
/// oneDNN has no implementation for here. Throws dnnl::error.
static const MatmulEntry *findMatmul(MatmulCache::Impl &impl,
                                     const EngineState &state,
                                     const KernelDesc &kernel,
                                     const std::vector<TensorView> &inputs,
                                     const std::vector<TensorView> &outputs,
                                     MatmulKey &key) {
  if (!matmulKey(kernel, inputs, outputs, key))
    return nullptr;
  if (key.batch == 0 || key.m == 0 || key.n == 0 || key.k == 0)
    return nullptr;
  const MatmulEntry &entry = impl.lookup(key, state.engine, createMatmul);
  return entry.supported() ? &entry : nullptr;
}

StatusOr<bool> MatmulCache::prepare(const KernelDesc &kernel,
                                    const std::vector<TensorView> &inputs,
                                    const std::vector<TensorView> &outputs,
                                    std::string &implementation) {
  return preparePrimitive(
      kernel, "matmul",
      [&](const EngineState &state) {
        MatmulKey key;
        return findMatmul(*impl_, state, kernel, inputs, outputs, key);
      },
      implementation);
}

Status MatmulCache::run(const KernelDesc &kernel,
                        const std::vector<TensorView> &inputs,
                        const std::vector<TensorView> &outputs, bool &handled) {
  handled = false;
  impl_->last.clear();
  const EngineState &state = engineState();
  MP_RETURN_IF_ERROR(state.status);
  try {
    MatmulKey key;
    const MatmulEntry *found =
        findMatmul(*impl_, state, kernel, inputs, outputs, key);
    if (!found)
      return Status::ok();
    const MatmulEntry &entry = *found;
    if (entry.kind == MatmulEntry::Kind::Widened) {
      MP_RETURN_IF_ERROR(runWidened(state, impl_->stream, impl_->scratch, key,
                                    entry, inputs, outputs[0]));
    } else {
      const Primitive &p = entry.full;
      std::unordered_map<int, dnnl::memory> args = {
          {DNNL_ARG_SRC, dnnl::memory(p.src, state.engine, inputs[0].data)},
          {DNNL_ARG_WEIGHTS,
           dnnl::memory(p.weights, state.engine, inputs[1].data)},
          {DNNL_ARG_DST, dnnl::memory(p.dst, state.engine, outputs[0].data)}};
      if (key.hasBias)
        args.emplace(DNNL_ARG_BIAS,
                     dnnl::memory(p.bias, state.engine, inputs[2].data));
      releaseWorkers(); // oneDNN's threads take the cores
      p.primitive.execute(impl_->stream, args);
      impl_->stream.wait();
      if (key.relu)
        reluInPlace(key.out, outputs[0].data, outputs[0].numElements());
    }
    impl_->last = entry.implementation;
  } catch (const std::exception &e) {
    return oneDnnError(kernel.op, "matmul", e);
  }
  handled = true;
  return Status::ok();
}

#endif // MP_HAVE_ONEDNN
