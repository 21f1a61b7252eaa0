//===- CpuOptimizerTest.cpp - the cpu backend's optimizer updates ---------===//
//
// train.sgd, sgd_momentum, adam and adamw on the cpu backend's own chunked,
// threaded loops (cpu/Optimizer.cpp), alone and with the parts a plan
// fuses into them (Backend::FusedKernel: the hoisted cast of the weight
// they write, their share of a gradient check). They use the reference's
// per-element rules, so the test is bitwise: the same bytes as the
// reference backend for every dtype, for sizes around the chunk (2048) and
// thread (65536) boundaries, with NaN and infinities among the inputs, and
// for 1, 2 and 3 threads.
//
//===----------------------------------------------------------------------===//
#include "CpuKernelTestSupport.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

using namespace mp::rt::test;

class CpuOptimizerTest : public CpuKernelTest {};

KernelDesc momentumKernel(bool nesterov) {
  KernelDesc momentum;
  momentum.op = "train.sgd_momentum";
  momentum.attrs["lr"] = floats(0.05);
  momentum.attrs["momentum"] = floats(0.9);
  if (nesterov)
    momentum.attrs["nesterov"] = ints({1});
  return momentum;
}

/// train.adam / train.adamw at step 3 on n elements: the kernel and its
/// five inputs (param, grad, exp_avg, exp_avg_sq >= 0, step), from `seed`.
KernelDesc adamKernel(const char *op, DType dtype, int64_t n, uint32_t seed,
                      std::vector<Tensor> &in) {
  KernelDesc adam;
  adam.op = op;
  adam.attrs["lr"] = floats(1e-3);
  Tensor step(DType::I64, {});
  storeInt(step.view, 0, 3);
  in = {randomTensor(dtype, {n}, seed), randomTensor(dtype, {n}, seed + 1),
        randomTensor(dtype, {n}, seed + 2),
        randomTensor(dtype, {n}, seed + 3, 0, 1, /*specials=*/false), step};
  return adam;
}

TEST_F(CpuOptimizerTest, OptimizersAreBitwiseTheReference) {
  for (DType dtype : kFloatTypes)
    for (int64_t n : {int64_t(1), int64_t(2049), int64_t(300001)}) {
      std::string what =
          std::string(dtypeName(dtype)) + " x " + std::to_string(n);
      KernelDesc sgd;
      sgd.op = "train.sgd";
      sgd.attrs["lr"] = floats(0.1);
      sgd.attrs["weight_decay"] = floats(0.01);
      std::vector<Tensor> sgdIn = {randomTensor(dtype, {n}, 7),
                                   randomTensor(dtype, {n}, 8)};
      expectSame(sgd, sgdIn, {Tensor(dtype, {n})}, "sgd " + what);

      for (bool nesterov : {false, true}) {
        KernelDesc momentum = momentumKernel(nesterov);
        std::vector<Tensor> in = {randomTensor(dtype, {n}, 9),
                                  randomTensor(dtype, {n}, 10),
                                  randomTensor(dtype, {n}, 11)};
        expectSame(momentum, in, {Tensor(dtype, {n}), Tensor(dtype, {n})},
                   "sgd_momentum " + what);
      }

      for (const char *op : {"train.adam", "train.adamw"}) {
        std::vector<Tensor> in;
        KernelDesc adam = adamKernel(op, dtype, n, 12, in);
        expectSame(adam, in,
                   {Tensor(dtype, {n}), Tensor(dtype, {n}), Tensor(dtype, {n})},
                   std::string(op) + " " + what);
      }
    }
}

/// A fused cast (Backend::FusedKernel::kCast): an f32 optimizer update and
/// mp.cast of one of its outputs to bf16 / f16 in one pass (the session's
/// hoisted weight cast) give the bytes of the reference's two kernels, for
/// every thread count; an output that is not f32 is not taken, and the two
/// kernels give the same result.
TEST_F(CpuOptimizerTest, OptimizerThenCastIsBitwiseTheTwoKernels) {
  auto check = [&](const KernelDesc &kernel, std::vector<Tensor> &inputs,
                   DType dtype, size_t numOut, size_t output, DType castType,
                   const std::string &what) {
    int64_t n = inputs[0].view.numElements();
    std::vector<TensorView> in;
    for (Tensor &t : inputs)
      in.push_back(t.view);
    std::vector<Tensor> want(numOut, Tensor(dtype, {n}));
    std::vector<TensorView> wantViews;
    for (Tensor &t : want)
      wantViews.push_back(t.view);
    Tensor wantCast(castType, {n});
    KernelDesc cast;
    cast.op = "mp.cast";
    ASSERT_TRUE(reference->run(kernel, in, wantViews).isOk()) << what;
    ASSERT_TRUE(
        reference->run(cast, {wantViews[output]}, {wantCast.view}).isOk());
    for (int threads : {1, 2, 3}) {
      setCpuThreads(threads);
      std::vector<Tensor> got(numOut, Tensor(dtype, {n}));
      std::vector<TensorView> out;
      for (Tensor &t : got)
        out.push_back(t.view);
      Tensor gotCast(castType, {n});
      Backend::FusedKernel fused;
      fused.kernel = &kernel;
      fused.cast = &cast;
      fused.castOutput = output;
      Backend::FusedViews parts;
      parts.castOut = &gotCast.view;
      // Taken where the output is f32; else the session runs the two
      // kernels, as here.
      uint32_t taken = cpu->fuses(fused, in, out, parts);
      ASSERT_EQ(taken, dtype == DType::F32 ? Backend::FusedKernel::kCast : 0u)
          << what;
      Status status = taken ? cpu->runWith(fused, in, out, parts)
                            : cpu->run(kernel, in, out);
      if (status.isOk() && !taken)
        status = cpu->run(cast, {out[output]}, {gotCast.view});
      ASSERT_TRUE(status.isOk()) << what << ": " << status.message();
      for (size_t o = 0; o < numOut; ++o)
        EXPECT_EQ(got[o].bytes, want[o].bytes)
            << what << ", output " << o << ", " << threads << " threads";
      EXPECT_EQ(gotCast.bytes, wantCast.bytes)
          << what << ", cast, " << threads << " threads";
    }
  };
  for (DType dtype : {DType::F32, DType::BF16})
    for (DType castType : {DType::BF16, DType::F16})
      for (int64_t n : {int64_t(1), int64_t(2049), int64_t(300001)}) {
        std::string what = std::string(dtypeName(dtype)) + " x " +
                           std::to_string(n) + " -> " + dtypeName(castType);
        KernelDesc sgd;
        sgd.op = "train.sgd";
        sgd.attrs["lr"] = floats(0.1);
        std::vector<Tensor> in = {randomTensor(dtype, {n}, 30),
                                  randomTensor(dtype, {n}, 31)};
        check(sgd, in, dtype, 1, 0, castType, "sgd " + what);
        KernelDesc momentum = momentumKernel(false);
        in = {randomTensor(dtype, {n}, 32), randomTensor(dtype, {n}, 33),
              randomTensor(dtype, {n}, 34)};
        for (size_t output : {0, 1})
          check(momentum, in, dtype, 2, output, castType,
                "sgd_momentum output " + std::to_string(output) + " " + what);
        for (const char *op : {"train.adam", "train.adamw"}) {
          KernelDesc adam = adamKernel(op, dtype, n, 35, in);
          check(adam, in, dtype, 3, 0, castType, std::string(op) + " " + what);
        }
      }
}

/// A fused gradient check (Backend::FusedKernel::kCheck, a plan's fused
/// mp.all_finite): the update's results are the reference's bytes whatever
/// the gradient holds, and the
/// verdict is cleared exactly when the gradient has an inf or NaN (at its
/// start, middle or end, for every thread count), left alone otherwise; a
/// 16-bit update with a cast takes the unfused path (kernel, cast, check)
/// and says the same.
TEST_F(CpuOptimizerTest, OptimizerChecksItsGradientInTheSamePass) {
  for (DType dtype : kFloatTypes)
    for (int64_t n : {int64_t(1), int64_t(2049), int64_t(300001)})
      for (int bad : {-1, 0, 1, 2}) // none, first, middle, last element
        for (float special : {std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()}) {
          if (bad < 0 && std::isnan(special))
            continue;
          std::string what =
              std::string(dtypeName(dtype)) + " x " + std::to_string(n) + ", " +
              (bad < 0
                   ? std::string("finite")
                   : std::to_string(special) + " at " + std::to_string(bad));
          auto withGradient = [&](std::vector<Tensor> in) {
            for (int64_t i = 0; i < n; ++i)
              storeFloat(in[1].view, i, 0.25f * std::sin(float(i)));
            if (bad >= 0)
              storeFloat(in[1].view,
                         bad == 0   ? 0
                         : bad == 1 ? n / 2
                                    : n - 1,
                         special);
            return in;
          };
          KernelDesc sgd;
          sgd.op = "train.sgd";
          sgd.attrs["lr"] = floats(0.1);
          std::vector<Tensor> adamIn;
          KernelDesc adam = adamKernel("train.adamw", dtype, n, 40, adamIn);
          struct Row {
            KernelDesc kernel;
            std::vector<Tensor> in;
            size_t numOut;
          };
          std::vector<Row> rows = {
              {sgd,
               withGradient({randomTensor(dtype, {n}, 41, -1, 1, false),
                             Tensor(dtype, {n})}),
               1},
              {momentumKernel(true),
               withGradient({randomTensor(dtype, {n}, 42, -1, 1, false),
                             Tensor(dtype, {n}),
                             randomTensor(dtype, {n}, 43, -1, 1, false)}),
               2},
              {adam, withGradient(adamIn), 3}};
          for (Row &row : rows) {
            std::vector<TensorView> in;
            for (Tensor &t : row.in)
              in.push_back(t.view);
            std::vector<Tensor> want(row.numOut, Tensor(dtype, {n}));
            std::vector<TensorView> wantViews;
            for (Tensor &t : want)
              wantViews.push_back(t.view);
            ASSERT_TRUE(reference->run(row.kernel, in, wantViews).isOk());
            KernelDesc cast, check;
            cast.op = "mp.cast";
            check.op = "mp.all_finite";
            for (int threads : {1, 2, 3})
              for (bool withCast : {false, true}) {
                setCpuThreads(threads);
                std::vector<Tensor> got(row.numOut, Tensor(dtype, {n}));
                std::vector<TensorView> out;
                for (Tensor &t : got)
                  out.push_back(t.view);
                Tensor castOut(dtype == DType::F16 ? DType::BF16 : DType::F16,
                               {n});
                uint8_t verdict = 1;
                Backend::FusedKernel fused;
                fused.kernel = &row.kernel;
                fused.check = &check;
                Backend::FusedViews parts;
                parts.allFinite = &verdict;
                if (withCast) {
                  fused.cast = &cast;
                  parts.castOut = &castOut.view;
                }
                // A 16-bit update with a cast is not taken: the session
                // runs the update, the cast and the check as kernels.
                uint32_t taken = cpu->fuses(fused, in, out, parts);
                if (withCast && dtype != DType::F32) {
                  EXPECT_EQ(taken, 0u) << row.kernel.op << " " << what;
                  continue;
                }
                ASSERT_EQ(taken, fused.parts()) << row.kernel.op << " " << what;
                Status status = cpu->runWith(fused, in, out, parts);
                ASSERT_TRUE(status.isOk())
                    << row.kernel.op << " " << what << ": " << status.message();
                EXPECT_EQ(verdict, bad < 0 ? 1 : 0)
                    << row.kernel.op << " " << what << ", " << threads
                    << " threads" << (withCast ? ", with a cast" : "");
                for (size_t o = 0; o < row.numOut; ++o)
                  EXPECT_EQ(got[o].bytes, want[o].bytes)
                      << row.kernel.op << " " << what << ", output " << o;
                // The verdict is only ever cleared.
                verdict = 0;
                ASSERT_TRUE(cpu->runWith(fused, in, out, parts).isOk());
                EXPECT_EQ(verdict, 0);
              }
          }
        }
  setCpuThreads(0);
}
/// A bad hyper-parameter is the reference's error, not a run.
TEST_F(CpuOptimizerTest, BadHyperParametersAreReported) {
  KernelDesc sgd;
  sgd.op = "train.sgd";
  sgd.attrs["lr"] = floats(-1);
  Tensor p = randomTensor(DType::F32, {8}, 1),
         g = randomTensor(DType::F32, {8}, 2);
  Tensor out(DType::F32, {8});
  Status status = cpu->run(sgd, {p.view, g.view}, {out.view});
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("'lr'"), std::string::npos)
      << status.message();
}

} // namespace
