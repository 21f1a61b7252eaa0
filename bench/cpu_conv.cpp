//===- cpu_conv.cpp - mp-bench-conv: cpu backend convs vs oneDNN ----------===//
//
// The convolutions of the issue-size CNN (bench/gen_models.py cnn: 3x3,
// pad 1, batch 64; conv1 3->32 on 32x32, conv2 32->64 on 16x16), forward,
// backward data and backward filter, f32 and bf16 (bf16 operands; the
// filter gradient in f32, as mp-fold-casts makes it), NCHW / OIHW as the
// plans store them. Three contenders, alternating:
//   ours         train.conv2d* on the cpu backend (Backend::run);
//   plain        oneDNN called directly on the same plain layouts (what
//                ours runs, without our per-call look-up);
//   blocked      oneDNN's own choice of layouts (format_tag::any), timing
//                the primitive alone: its best case, with the reorders into
//                and out of its blocked layouts left out;
//   nhwc         oneDNN on plain channels-last images (NHWC, the filter in
//                its choice of layout): what a plan whose convolution chain
//                is kept in NHWC pays, with no reorder of the images.
// JSON on stdout.
//
//   mp-bench-conv [--dtypes f32,bf16] [--batch 64] [--min-time 1.0]
//                 [--max-reps 20]
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include "BenchUtil.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <random>
#include <unordered_map>

using namespace mp::rt;
using namespace mp::bench;

namespace {
[[noreturn]] void die(const std::string &message) {
  fail("mp-bench-conv", message);
}

struct Layer {
  const char *name;
  int64_t c, o, hw;
};

enum class Kind { Forward, BackwardData, BackwardFilter };
const char *kindName(Kind kind) {
  return kind == Kind::Forward        ? "forward"
         : kind == Kind::BackwardData ? "backward_data"
                                      : "backward_filter";
}

dnnl::memory::data_type toDnnl(DType dtype) {
  return dtype == DType::BF16 ? dnnl::memory::data_type::bf16
                              : dnnl::memory::data_type::f32;
}

/// A oneDNN primitive for the layer with the given layouts (any: oneDNN's
/// choice), and memory for its three tensors in those layouts.
struct Direct {
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> args;
  std::string impl;
};

enum class Images { Plain, Blocked, Nhwc };

Direct makeDirect(const dnnl::engine &engine, Kind kind, const Layer &l,
                  int64_t n, DType in, Images images) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  dt inType = toDnnl(in);
  dt outType = kind == Kind::BackwardFilter ? dt::f32 : inType;
  dt srcType = kind == Kind::BackwardData ? outType : inType;
  dt weiType = kind == Kind::BackwardFilter ? outType : inType;
  dt dstType = kind == Kind::Forward ? outType : inType;
  dnnl::memory::dims x = {n, l.c, l.hw, l.hw}, w = {l.o, l.c, 3, 3},
                     y = {n, l.o, l.hw, l.hw};
  tag image = images == Images::Blocked ? tag::any
               : images == Images::Nhwc  ? tag::nhwc
                                         : tag::nchw;
  tag filter = images == Images::Plain ? tag::oihw : tag::any;
  dnnl::memory::desc src(x, srcType, image), wei(w, weiType, filter),
      dst(y, dstType, image);
  dnnl::memory::dims strides = {1, 1}, dil = {0, 0}, pad = {1, 1};
  dnnl::primitive_attr attr;
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  auto hint = dnnl::convolution_forward::primitive_desc(
      engine, dnnl::prop_kind::forward_training,
      dnnl::algorithm::convolution_direct,
      dnnl::memory::desc(x, inType, image), dnnl::memory::desc(w, inType, filter),
      dnnl::memory::desc(y, inType, image), strides, dil, pad, pad, attr);
  Direct d;
  dnnl::memory::desc s, wd, ds;
  if (kind == Kind::Forward) {
    dnnl::convolution_forward::primitive_desc pd(
        engine, dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, src, wei, dst, strides, dil, pad,
        pad, attr);
    d.primitive = dnnl::convolution_forward(pd);
    d.impl = pd.impl_info_str();
    d.args = {{DNNL_ARG_SRC, dnnl::memory(pd.src_desc(), engine)},
              {DNNL_ARG_WEIGHTS, dnnl::memory(pd.weights_desc(), engine)},
              {DNNL_ARG_DST, dnnl::memory(pd.dst_desc(), engine)}};
  } else if (kind == Kind::BackwardData) {
    dnnl::convolution_backward_data::primitive_desc pd(
        engine, dnnl::algorithm::convolution_direct, src, wei, dst, strides,
        dil, pad, pad, hint, attr);
    d.primitive = dnnl::convolution_backward_data(pd);
    d.impl = pd.impl_info_str();
    d.args = {{DNNL_ARG_DIFF_SRC, dnnl::memory(pd.diff_src_desc(), engine)},
              {DNNL_ARG_WEIGHTS, dnnl::memory(pd.weights_desc(), engine)},
              {DNNL_ARG_DIFF_DST, dnnl::memory(pd.diff_dst_desc(), engine)}};
  } else {
    dnnl::convolution_backward_weights::primitive_desc pd(
        engine, dnnl::algorithm::convolution_direct, src, wei, dst, strides,
        dil, pad, pad, hint, attr);
    d.primitive = dnnl::convolution_backward_weights(pd);
    d.impl = pd.impl_info_str();
    d.args = {{DNNL_ARG_SRC, dnnl::memory(pd.src_desc(), engine)},
              {DNNL_ARG_DIFF_WEIGHTS,
               dnnl::memory(pd.diff_weights_desc(), engine)},
              {DNNL_ARG_DIFF_DST, dnnl::memory(pd.diff_dst_desc(), engine)}};
  }
  return d;
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> dtypes = {"f32", "bf16"};
  int64_t batch = 64;
  double minTime = 1.0;
  int maxReps = 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      die("missing value after " + arg);
    if (arg == "--dtypes")
      dtypes = split(argv[++i]);
    else if (arg == "--batch")
      batch = std::atoll(argv[++i]);
    else if (arg == "--min-time")
      minTime = std::atof(argv[++i]);
    else if (arg == "--max-reps")
      maxReps = std::atoi(argv[++i]);
    else
      die("unknown option " + arg);
  }
  if (batch < 1)
    die("--batch must be positive");
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  if (!cpu.isOk())
    die(cpu.status().message());
  try {
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const Layer layers[] = {{"conv1", 3, 32, 32}, {"conv2", 32, 64, 16}};
    std::printf("{\n  \"backend\": \"%s\",\n  \"results\": [",
                (*cpu)->describe().c_str());
    bool first = true;
    for (const Layer &l : layers)
      for (Kind kind : {Kind::Forward, Kind::BackwardData,
                        Kind::BackwardFilter})
        for (const std::string &dtypeText : dtypes) {
          DType in = dtypeText == "bf16" ? DType::BF16 : DType::F32;
          DType out = kind == Kind::BackwardFilter ? DType::F32 : in;
          std::vector<int64_t> xs = {batch, l.c, l.hw, l.hw},
                               ws = {l.o, l.c, 3, 3},
                               ys = {batch, l.o, l.hw, l.hw};
          // Operands and result in the op's order.
          std::vector<int64_t> as = kind == Kind::BackwardData ? ys : xs;
          std::vector<int64_t> bs = kind == Kind::BackwardFilter ? ys : ws;
          std::vector<int64_t> rs = kind == Kind::Forward        ? ys
                                    : kind == Kind::BackwardData ? xs
                                                                 : ws;
          auto count = [](const std::vector<int64_t> &s) {
            int64_t n = 1;
            for (int64_t d : s)
              n *= d;
            return n;
          };
          std::vector<uint8_t> a(count(as) * dtypeSize(in)),
              b(count(bs) * dtypeSize(in)), r(count(rs) * dtypeSize(out));
          TensorView av{in, as, a.data()}, bv{in, bs, b.data()},
              rv{out, rs, r.data()};
          std::mt19937 rng(1);
          std::uniform_real_distribution<float> dist(-1, 1);
          for (int64_t i = 0; i < av.numElements(); ++i)
            storeFloat(av, i, dist(rng));
          for (int64_t i = 0; i < bv.numElements(); ++i)
            storeFloat(bv, i, dist(rng));
          KernelDesc kernel;
          kernel.op = kind == Kind::Forward        ? "train.conv2d"
                      : kind == Kind::BackwardData ? "train.conv2d_backward_data"
                                                   : "train.conv2d_backward_filter";
          Attr layout, strides, padding, dilations;
          layout.kind = Attr::Kind::String;
          layout.str = "NCHW";
          strides.ints = {1, 1};
          padding.ints = {1, 1, 1, 1};
          dilations.ints = {1, 1};
          kernel.attrs = {{"layout", layout},
                          {"strides", strides},
                          {"padding", padding},
                          {"dilations", dilations}};
          auto ours = [&] {
            Status status = (*cpu)->run(kernel, {av, bv}, {rv});
            if (!status.isOk())
              die(status.message());
          };
          Direct plain = makeDirect(engine, kind, l, batch, in, Images::Plain);
          Direct blocked =
              makeDirect(engine, kind, l, batch, in, Images::Blocked);
          Direct nhwc = makeDirect(engine, kind, l, batch, in, Images::Nhwc);
          auto run = [&](Direct &d) {
            d.primitive.execute(stream, d.args);
            stream.wait();
          };
          auto [oursT, plainT] = timePair(
              ours, [&] { run(plain); }, minTime, maxReps);
          auto [oursT2, blockedT] = timePair(
              ours, [&] { run(blocked); }, minTime, maxReps);
          auto [oursT3, nhwcT] = timePair(
              ours, [&] { run(nhwc); }, minTime, maxReps);
          double best = std::min({oursT.best, oursT2.best, oursT3.best});
          double flops = 2.0 * batch * l.o * l.hw * l.hw * l.c * 9;
          std::printf(
              "%s\n    {\"layer\": \"%s\", \"op\": \"%s\", \"in\": \"%s\", "
              "\"out\": \"%s\",\n     \"ours_ms\": %.3f, \"ours_gflops\": "
              "%.1f,\n     \"onednn_plain_ms\": %.3f, \"onednn_plain_impl\": "
              "\"%s\",\n     \"onednn_blocked_ms\": %.3f, "
              "\"onednn_blocked_impl\": \"%s\",\n     "
              "\"onednn_nhwc_ms\": %.3f, \"onednn_nhwc_impl\": \"%s\",\n     "
              "\"ours_over_onednn_plain\": %.3f, "
              "\"ours_over_onednn_blocked\": %.3f, "
              "\"ours_over_onednn_nhwc\": %.3f}",
              first ? "" : ",", l.name, kindName(kind), dtypeName(in),
              dtypeName(out), best * 1e3, flops / best / 1e9,
              plainT.best * 1e3, plain.impl.c_str(), blockedT.best * 1e3,
              blocked.impl.c_str(), nhwcT.best * 1e3, nhwc.impl.c_str(),
              plainT.best / best, blockedT.best / best, nhwcT.best / best);
          std::fflush(stdout);
          first = false;
        }
    std::printf("\n  ]\n}\n");
  } catch (const dnnl::error &e) {
    die(std::string("oneDNN: ") + e.what());
  }
  return 0;
}
