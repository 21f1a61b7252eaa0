//===- cpu_gemm.cpp - mp-bench-gemm: cpu backend matmul vs oneDNN ---------===//
//
// Times train.matmul on the cpu backend (Backend::run, what a session step
// pays: primitive look-up, memory objects, execute, wait) against oneDNN
// called directly with the same shapes and dtypes (primitive and memory
// objects made once, execute + wait in the loop), the two alternating. Square M
// = N = K, inputs f32 or bf16, f32 result (bf16 in, f32 accumulate and out).
// JSON on stdout.
//
//   mp-bench-gemm [--sizes 1024,2048,4096] [--dtypes f32,bf16]
//                 [--min-time 1.0] [--max-reps 20]
//
// Threads: whatever oneDNN's runtime uses (all the CPUs of the process's
// affinity mask; `taskset` to restrict).
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include "BenchUtil.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mp::rt;

using namespace mp::bench;

static void fail(const std::string &message) { mp::bench::fail("mp-bench-gemm", message); }

static int runBenchmark(int argc, char **argv);

/// oneDNN's C++ API throws; a benchmark reports and exits.
int main(int argc, char **argv) {
  try {
    return runBenchmark(argc, argv);
  } catch (const dnnl::error &e) {
    fail(std::string("oneDNN: ") + e.what());
  }
  return 1;
}

static int runBenchmark(int argc, char **argv) {
  std::vector<std::string> sizes = {"1024", "2048", "4096"};
  std::vector<std::string> dtypes = {"f32", "bf16"};
  double minTime = 1.0;
  int maxReps = 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      fail("missing value after " + arg);
    if (arg == "--sizes")
      sizes = split(argv[++i]);
    else if (arg == "--dtypes")
      dtypes = split(argv[++i]);
    else if (arg == "--min-time")
      minTime = std::atof(argv[++i]);
    else if (arg == "--max-reps")
      maxReps = std::atoi(argv[++i]);
    else
      fail("unknown option " + arg);
  }

  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  if (!cpu.isOk())
    fail(cpu.status().message());
  std::printf("{\n  \"backend\": \"%s\",\n  \"cpu_features\": \"%s\",\n"
              "  \"results\": [",
              (*cpu)->describe().c_str(), cpuFeatures().c_str());

  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  bool first = true;
  for (const std::string &sizeText : sizes) {
    int64_t n = std::atoll(sizeText.c_str());
    for (const std::string &dtypeText : dtypes) {
      DType in = dtypeText == "bf16"  ? DType::BF16
                 : dtypeText == "f16" ? DType::F16
                                      : DType::F32;
      size_t elementBytes = dtypeSize(in);
      std::vector<uint8_t> a(n * n * elementBytes), b(n * n * elementBytes);
      std::vector<float> c(n * n);
      TensorView av{in, {n, n}, a.data()}, bv{in, {n, n}, b.data()};
      TensorView cv{DType::F32, {n, n}, c.data()};
      std::mt19937 rng(1);
      std::uniform_real_distribution<float> dist(-1, 1);
      for (int64_t i = 0; i < n * n; ++i) {
        storeFloat(av, i, dist(rng));
        storeFloat(bv, i, dist(rng));
      }

      KernelDesc kernel;
      kernel.op = "train.matmul";
      Status status;
      auto ourCall = [&] {
        status = (*cpu)->run(kernel, {av, bv}, {cv});
        if (!status.isOk())
          fail(status.message());
      };

      // oneDNN directly: plain row-major descriptors, default attributes.
      using tag = dnnl::memory::format_tag;
      auto dt = in == DType::BF16  ? dnnl::memory::data_type::bf16
                : in == DType::F16 ? dnnl::memory::data_type::f16
                                   : dnnl::memory::data_type::f32;
      dnnl::memory::desc ad({n, n}, dt, tag::ab), bd({n, n}, dt, tag::ab),
          cd({n, n}, dnnl::memory::data_type::f32, tag::ab);
      dnnl::matmul::primitive_desc pd(engine, ad, bd, cd);
      dnnl::matmul prim(pd);
      dnnl::memory am(ad, engine, a.data()), bm(bd, engine, b.data()),
          cm(cd, engine, c.data());
      auto directCall = [&] {
        prim.execute(
            stream,
            {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
        stream.wait();
      };
      auto [ours, direct] = timePair(ourCall, directCall, minTime, maxReps);

      double flops = 2.0 * n * n * n;
      std::printf("%s\n    {\"m\": %lld, \"n\": %lld, \"k\": %lld, \"in\": "
                  "\"%s\", \"out\": \"f32\", \"onednn_impl\": \"%s\",\n"
                  "     \"ours_ms_best\": %.3f, \"ours_ms_median\": %.3f, "
                  "\"ours_gflops\": %.1f, \"ours_reps\": %d,\n"
                  "     \"onednn_ms_best\": %.3f, \"onednn_ms_median\": %.3f, "
                  "\"onednn_gflops\": %.1f, \"onednn_reps\": %d,\n"
                  "     \"ours_over_onednn\": %.3f}",
                  first ? "" : ",", static_cast<long long>(n),
                  static_cast<long long>(n), static_cast<long long>(n),
                  dtypeName(in), pd.impl_info_str(), ours.best * 1e3,
                  ours.median * 1e3, flops / ours.best / 1e9, ours.reps,
                  direct.best * 1e3, direct.median * 1e3,
                  flops / direct.best / 1e9, direct.reps,
                  direct.best / ours.best);
      std::fflush(stdout);
      first = false;
    }
  }
  std::printf("\n  ]\n}\n");
  return 0;
}
