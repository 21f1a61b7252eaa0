//===- cpu_limit.cpp - mp-bench-limit: a plan's GEMM-bound time -----------===//
//
// The time a training step cannot go below on this CPU while its
// contractions run on oneDNN: every matmul and convolution kernel of a plan
// (train.matmul, mp.matmul_epilogue, train.conv2d and its two backward
// ops), with the plan's own shapes, dtypes, transposes, windows and
// layouts, run alone on the cpu backend (one oneDNN primitive each, made
// once; what mp-bench-gemm shows is oneDNN's own rate) on random data, hot
// in cache, repeated; the best time of each, summed over the plan. That is
// issue 17's "GEMM-bound limit": the step's contraction FLOPs at oneDNN's
// standalone rate for those shapes. JSON on stdout:
//
//   mp-bench-limit PLAN.mpplan [--min-time 0.3] [--max-reps 20]
//                              [--threads N] [--all]
//
// --all times every kernel of the plan alone the same way (integer operands
// zero, floats random, scalars 1), to set each op's in-step time (mp-run
// --profile) beside its time alone; the limit stays the contractions' sum.
// A kernel other than a contraction that refuses such operands is listed
// with "error" (its message) instead of "ms".
//
// {"plan", "threads", "kernels": [{"index", "op", "shapes", "gflop", "ms",
//  "gflops", "implementation"}], "gflop", "limit_ms"}
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include "BenchUtil.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace mp::rt;
using namespace mp::bench;

static void fail(const std::string &message) {
  mp::bench::fail("mp-bench-limit", message);
}

static bool isContraction(OpId op) {
  return op == OpId::TrainMatmul || op == OpId::MpMatmulEpilogue ||
         op == OpId::TrainConv2d || op == OpId::TrainConv2dBackwardData ||
         op == OpId::TrainConv2dBackwardFilter;
}

static int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Multiply-adds times two. A matmul: batch * M * N * K from its operands
/// (the rhs may be shared by the batch). A convolution or either of its
/// gradients: every output position meets every weight of its output
/// channel once, 2 * |output| * |filter| / O; the output (the forward's
/// result, the gradient of it) and the filter (OIHW with NCHW, HWIO with
/// NHWC, unless `filter_layout` says) are operands or the result of each
/// of the three ops.
static double flopsOf(const KernelDesc &kernel, const Plan &plan) {
  auto shape = [&](uint32_t id) -> const std::vector<int64_t> & {
    return plan.tensors[id].shape;
  };
  OpId op = kernel.opId();
  if (op == OpId::TrainMatmul || op == OpId::MpMatmulEpilogue) {
    const std::vector<int64_t> &lhs = shape(kernel.inputs[0]);
    const std::vector<int64_t> &result = shape(kernel.outputs[0]);
    int64_t k = kernel.getFlag(AttrName::transpose_lhs) ? lhs[lhs.size() - 2]
                                                        : lhs.back();
    return 2.0 * static_cast<double>(count(result)) * static_cast<double>(k);
  }
  const std::string *layout = kernel.getString(AttrName::layout);
  const std::string *filterLayout = kernel.getString(AttrName::filter_layout);
  // The filter's O: last in HWIO (NHWC's own), first in OIHW.
  bool hwio = filterLayout ? *filterLayout == "HWIO"
                           : layout && *layout == "NHWC";
  const std::vector<int64_t> *filter = nullptr, *output = nullptr;
  if (op == OpId::TrainConv2d) {
    filter = &shape(kernel.inputs[1]);
    output = &shape(kernel.outputs[0]);
  } else if (op == OpId::TrainConv2dBackwardData) {
    filter = &shape(kernel.inputs[1]);
    output = &shape(kernel.inputs[0]);
  } else {
    filter = &shape(kernel.outputs[0]);
    output = &shape(kernel.inputs[1]);
  }
  if (filter->size() != 4)
    return 0;
  int64_t outChannels = hwio ? (*filter)[3] : (*filter)[0];
  return 2.0 * static_cast<double>(count(*output)) *
         static_cast<double>(count(*filter)) /
         static_cast<double>(std::max<int64_t>(1, outChannels));
}

/// "bf16[256, 1024], bf16[1024, 4096] -> bf16[256, 4096]".
static std::string shapesOf(const KernelDesc &kernel, const Plan &plan) {
  auto list = [&](const std::vector<uint32_t> &ids) {
    std::string text;
    for (uint32_t id : ids)
      text += (text.empty() ? "" : ", ") +
              std::string(dtypeName(plan.tensors[id].dtype)) +
              formatShape(plan.tensors[id].shape);
    return text;
  };
  return list(kernel.inputs) + " -> " + list(kernel.outputs);
}

/// A buffer of random values in [-1, 1) of the tensor's dtype; a scalar
/// holds 1 (a step count, a loss scale or a learning rate: every op that
/// reads one accepts 1).
static std::vector<uint8_t> randomTensor(const TensorDesc &t,
                                         std::mt19937 &rng) {
  int64_t n = t.numElements();
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * dtypeSize(t.dtype) + 64);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(n));
  for (float &v : values)
    v = t.shape.empty() ? 1.0f : uniform(rng);
  if (isFloat(t.dtype))
    fromFloats(values.data(), t.dtype, bytes.data(), n);
  return bytes;
}

/// `text` as the inside of a JSON string.
static std::string jsonEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out;
}

int main(int argc, char **argv) {
  std::string path;
  double minTime = 0.3;
  int maxReps = 20, threads = 0;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--min-time" && hasValue)
      minTime = std::atof(argv[++i]);
    else if (arg == "--max-reps" && hasValue)
      maxReps = std::atoi(argv[++i]);
    else if (arg == "--threads" && hasValue)
      threads = std::atoi(argv[++i]);
    else if (arg == "--all")
      all = true;
    else if (!arg.empty() && arg[0] != '-' && path.empty())
      path = arg;
    else
      fail("usage: mp-bench-limit PLAN.mpplan [--min-time S] [--max-reps N] "
           "[--threads N] [--all] (unknown or incomplete argument '" +
           arg + "')");
  }
  if (path.empty())
    fail("usage: mp-bench-limit PLAN.mpplan [--min-time S] [--max-reps N] "
         "[--threads N] [--all]");
  if (threads > 0)
    setCpuThreads(threads);
  StatusOr<Plan> plan = readPlanFile(path);
  if (!plan.isOk())
    fail(path + ": " + plan.status().message());
  StatusOr<std::unique_ptr<Backend>> backend = createBackend("cpu");
  if (!backend.isOk())
    fail("the cpu backend: " + backend.status().message());

  std::mt19937 rng(0);
  double totalMs = 0, totalFlops = 0;
  std::printf("{\"plan\": \"%s\", \"threads\": %d, \"kernels\": [", path.c_str(),
              cpuThreads());
  bool first = true;
  for (size_t k = 0; k < plan->kernels.size(); ++k) {
    const KernelDesc &kernel = plan->kernels[k];
    bool contraction = isContraction(kernel.opId());
    if (!contraction && !all)
      continue;
    Status prepared = (*backend)->prepare(kernel, *plan);
    if (!prepared.isOk())
      fail("kernel #" + std::to_string(k) + " (" + kernel.op +
           "): " + prepared.message());
    std::vector<std::vector<uint8_t>> storage;
    std::vector<TensorView> in, out;
    for (uint32_t id : kernel.inputs) {
      storage.push_back(randomTensor(plan->tensors[id], rng));
      in.push_back({plan->tensors[id].dtype, plan->tensors[id].shape,
                    storage.back().data()});
    }
    for (uint32_t id : kernel.outputs) {
      storage.push_back(randomTensor(plan->tensors[id], rng));
      out.push_back({plan->tensors[id].dtype, plan->tensors[id].shape,
                     storage.back().data()});
    }
    Status status;
    auto run = [&] {
      Status s = (*backend)->run(kernel, in, out);
      if (!s.isOk())
        status = s;
    };
    // The kernel against itself: timePair's alternation, both sides the
    // same call; the best of all of them.
    std::pair<Timing, Timing> t = timePair(run, run, minTime, maxReps);
    if (!status.isOk() && contraction)
      fail("kernel #" + std::to_string(k) + " (" + kernel.op +
           "): " + status.message());
    if (!status.isOk()) {
      // Another kernel that refuses random operands (--all only): named,
      // not timed.
      std::printf("%s\n  {\"index\": %zu, \"op\": \"%s\", \"shapes\": "
                  "\"%s\", \"error\": \"%s\"}",
                  first ? "" : ",", k, kernel.op.c_str(),
                  shapesOf(kernel, *plan).c_str(),
                  jsonEscape(status.message()).c_str());
      first = false;
      continue;
    }
    double ms = std::min(t.first.best, t.second.best) * 1e3;
    double flops = contraction ? flopsOf(kernel, *plan) : 0;
    if (contraction) {
      totalMs += ms;
      totalFlops += flops;
    }
    std::printf("%s\n  {\"index\": %zu, \"op\": \"%s\", \"shapes\": \"%s\", "
                "\"gflop\": %.4f, \"ms\": %.3f, \"gflops\": %.1f, "
                "\"implementation\": \"%s\"}",
                first ? "" : ",", k, kernel.op.c_str(),
                shapesOf(kernel, *plan).c_str(), flops / 1e9, ms,
                ms > 0 ? flops / ms / 1e6 : 0.0,
                (*backend)->implementationOf(kernel).c_str());
    first = false;
  }
  std::printf("\n], \"gflop\": %.4f, \"limit_ms\": %.3f}\n", totalFlops / 1e9,
              totalMs);
  return 0;
}
