//===- CpuElementwiseTest.cpp - the cpu backend's own loops ---------------===//
//
// The elementwise float ops, bias_add, reduce_sum / reduce_mean over one
// run of dimensions, the loss and row ops, max pooling, batch norm and the
// loss-scaling kernels on the cpu backend's own chunked, threaded loops
// (the optimizers: CpuOptimizerTest.cpp). Where they use the reference's
// per-element rules the test is bitwise: the same bytes as the reference
// backend for every dtype,
// for sizes around the chunk (2048) and thread (65536) boundaries, with
// NaN, infinities and signed zeros among the inputs, and for 1, 2 and 3
// threads.
//
//===----------------------------------------------------------------------===//
#include "CpuKernelTestSupport.h"
#include "cpu/Loss.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

using namespace mp::rt::test;

class CpuElementwiseTest : public CpuKernelTest {};

const int64_t kSizes[] = {1, 2047, 2049, 70000, 300001};

TEST_F(CpuElementwiseTest, ElementwiseOpsMatchTheReference) {
  const char *unary[] = {"train.neg",  "train.exp",     "train.log",
                         "train.sqrt", "train.rsqrt",   "train.tanh",
                         "train.sigmoid", "train.erf",  "train.relu",
                         "train.gelu", "train.silu", "train.hardswish"};
  const char *binary[] = {"train.add",       "train.sub",
                          "train.mul",       "train.div",
                          "train.maximum",   "train.minimum",
                          "train.pow",       "train.relu_grad",
                          "train.tanh_grad", "train.sigmoid_grad",
                          "train.gelu_grad", "train.silu_grad",
                          "train.hardswish_grad"};
  // exp, erf, tanh (and sigmoid, silu, gelu and their gradients, which use them) run on
  // glibc's vector math library, within 4 ulp of the correctly rounded
  // value, where the reference calls scalar libm: not bitwise. The same
  // formulas otherwise, so the difference is those few ulp, carried
  // through a few f32 operations (atol: 4 ulp of 1, times |grad| <= 2),
  // and for 16-bit results one rounding step more (one ulp of the dtype).
  auto transcendental = [](const std::string &op) {
    return op == "train.exp" || op == "train.erf" || op == "train.tanh" ||
           op == "train.sigmoid" || op == "train.gelu" ||
           op == "train.gelu_grad" || op == "train.silu" ||
           op == "train.silu_grad";
  };
  for (DType dtype : kFloatTypes)
    for (int64_t n : kSizes)
      for (bool tanhApprox : {false, true}) {
        std::string what = std::string(dtypeName(dtype)) + " x " +
                           std::to_string(n) +
                           (tanhApprox ? " tanh_approx" : "");
        Close close{dtype == DType::F32    ? 2e-6
                    : dtype == DType::BF16 ? std::ldexp(1.0, -7)
                                           : std::ldexp(1.0, -10),
                    2e-6};
        for (const char *op : unary) {
          KernelDesc kernel;
          kernel.op = op;
          if (tanhApprox)
            kernel.attrs["tanh_approx"] = ints({1});
          // Positive inputs for log / sqrt / rsqrt (besides the specials).
          std::vector<Tensor> in = {randomTensor(dtype, {n}, 1, -2, 3)};
          expectSame(kernel, in, {Tensor(dtype, {n})}, op + (" " + what),
                     transcendental(op) ? &close : nullptr);
        }
        if (!tanhApprox) {
          // leaky_relu and its gradient with their slope (own loops that
          // read the attribute): bitwise.
          KernelDesc leaky, leakyGrad;
          leaky.op = "train.leaky_relu";
          leakyGrad.op = "train.leaky_relu_grad";
          leaky.attrs["negative_slope"] = floats(0.2);
          leakyGrad.attrs["negative_slope"] = floats(0.2);
          std::vector<Tensor> x = {randomTensor(dtype, {n}, 4, -2, 2)};
          expectSame(leaky, x, {Tensor(dtype, {n})}, "leaky_relu " + what);
          std::vector<Tensor> gx = {randomTensor(dtype, {n}, 5, -2, 2),
                                    randomTensor(dtype, {n}, 6, -2, 2)};
          expectSame(leakyGrad, gx, {Tensor(dtype, {n})},
                     "leaky_relu_grad " + what);
        }
        for (const char *op : binary) {
          KernelDesc kernel;
          kernel.op = op;
          if (tanhApprox)
            kernel.attrs["tanh_approx"] = ints({1});
          std::vector<Tensor> in = {randomTensor(dtype, {n}, 2, -2, 2),
                                    randomTensor(dtype, {n}, 3, -2, 2)};
          expectSame(kernel, in, {Tensor(dtype, {n})}, op + (" " + what),
                     transcendental(op) ? &close : nullptr);
        }
      }
}

/// Integer arithmetic stays on the reference kernel (same bytes).
TEST_F(CpuElementwiseTest, IntegerBinaryOpsRunOnTheReference) {
  KernelDesc kernel;
  kernel.op = "train.add";
  Tensor a(DType::I64, {5}), b(DType::I64, {5});
  for (int64_t i = 0; i < 5; ++i) {
    storeInt(a.view, i, i * 7 - 3);
    storeInt(b.view, i, 100 - i);
  }
  std::vector<Tensor> in = {a, b};
  expectSame(kernel, in, {Tensor(DType::I64, {5})}, "i64 add");
}

TEST_F(CpuElementwiseTest, BiasAddIsBitwiseTheReference) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
  };
  const Case cases[] = {{{256, 4096}, -1}, {{3, 2500}, 1},   {{7, 13}, -1},
                        {{5, 6, 30, 31}, 1}, {{2, 9, 9, 40}, 3}, {{70000}, 0}};
  for (DType dtype : kFloatTypes)
    for (const Case &c : cases) {
      KernelDesc kernel;
      kernel.op = "train.bias_add";
      kernel.attrs["dim"] = ints({c.dim});
      int64_t rank = static_cast<int64_t>(c.shape.size());
      int64_t channels = c.shape[(c.dim + rank) % rank];
      std::vector<Tensor> in = {randomTensor(dtype, c.shape, 4),
                                randomTensor(dtype, {channels}, 5)};
      expectSame(kernel, in, {Tensor(dtype, c.shape)},
                 std::string("bias_add ") + dtypeName(dtype) + " " +
                     formatShape(c.shape) + " dim " + std::to_string(c.dim));
    }
}

TEST_F(CpuElementwiseTest, ReductionsAreBitwiseTheReference) {
  struct Case {
    std::vector<int64_t> shape, dims, result;
    bool keep;
  };
  const Case cases[] = {
      {{256, 4096}, {0}, {4096}, false},
      {{4, 16, 64}, {0, 1}, {64}, false},
      {{4, 16, 64}, {1, 0}, {1, 1, 64}, true},
      {{300, 2049}, {-2}, {2049}, false},
      {{33, 5}, {0}, {1, 5}, true},
      // A run in the middle or at the end (own loops too), NHWC's H and W
      // among them, and columns past one chunk.
      {{4, 16, 64}, {1}, {4, 64}, false},
      {{16, 128, 72}, {1}, {16, 1, 72}, true},
      {{16, 128, 72}, {2, 1}, {16}, false},
      {{4, 9, 7, 35}, {1, 2}, {4, 35}, false},
      {{3, 5, 2100}, {1}, {3, 2100}, false},
      // Contiguous runs (a row's sum), eight at once and the rest one by
      // one: counts of rows not a multiple of eight.
      {{37, 515}, {1}, {37}, false},
      {{5, 2, 9}, {2}, {5, 2, 1}, true},
      // Not one run: the reference kernel on row slices, same bytes.
      {{4, 9, 7, 35}, {1, 3}, {4, 7}, false},
  };
  for (DType dtype : kFloatTypes)
    for (DType result : {dtype, DType::F32})
      for (const Case &c : cases)
        for (const char *op : {"train.reduce_sum", "train.reduce_mean"}) {
          KernelDesc kernel;
          kernel.op = op;
          kernel.attrs["dims"] = ints(c.dims);
          if (c.keep)
            kernel.attrs["keep_dims"] = ints({1});
          std::vector<Tensor> in = {randomTensor(dtype, c.shape, 6, -1, 1,
                                                 /*specials=*/false)};
          expectSame(kernel, in, {Tensor(result, c.result)},
                     std::string(op) + " " + dtypeName(dtype) + " -> " +
                         dtypeName(result) + " " + formatShape(c.shape));
        }
}

/// Softmax cross-entropy and its gradient (cpu/Loss.cpp): exponentials from
/// the vector math library, so within a few ulp of the reference; the loss
/// of every row summed in row order whatever the thread count. Rows with an
/// infinity or NaN give NaN on both backends.
TEST_F(CpuElementwiseTest, CrossEntropyMatchesTheReference) {
  for (DType dtype : kFloatTypes) {
    std::string dt = dtypeName(dtype);
    Close close{dtype == DType::F32    ? 4e-6
                : dtype == DType::BF16 ? std::ldexp(1.0, -7)
                                       : std::ldexp(1.0, -10),
                1e-6};
    for (DType labelType : {DType::I32, DType::I64})
      for (std::vector<int64_t> shape :
           {std::vector<int64_t>{37, 1000}, {300, 10}, {1, 7}}) {
        bool specials = shape[0] == 300;
        std::string what = dt + " " + std::to_string(shape[0]) + "x" +
                           std::to_string(shape[1]) + " " +
                           dtypeName(labelType) + " labels";
        Tensor labels(labelType, {shape[0]});
        for (int64_t n = 0; n < shape[0]; ++n)
          storeInt(labels.view, n, (n * 7919) % shape[1]);
        KernelDesc loss;
        loss.op = "train.sparse_cross_entropy";
        for (DType lossType : {dtype, DType::F32}) {
          std::vector<Tensor> in = {
              randomTensor(dtype, shape, 40, -8, 8, specials), labels};
          expectSame(loss, in, {Tensor(lossType, {})},
                     "sparse_cross_entropy " + what + " -> " +
                         dtypeName(lossType),
                     &close);
        }
        KernelDesc grad;
        grad.op = "train.sparse_cross_entropy_grad";
        Tensor seed(dtype, {});
        storeFloat(seed.view, 0, 1024.0f);
        std::vector<Tensor> in = {
            randomTensor(dtype, shape, 41, -8, 8, specials), labels, seed};
        expectSame(grad, in, {Tensor(dtype, shape)},
                   "sparse_cross_entropy_grad " + what, &close);
      }
  }
  // A label out of range is the reference's error, naming the row.
  KernelDesc loss;
  loss.op = "train.sparse_cross_entropy";
  Tensor logits = randomTensor(DType::F32, {4, 3}, 42);
  Tensor labels(DType::I64, {4});
  storeInt(labels.view, 2, 3);
  Tensor out(DType::F32, {});
  Status status = cpu->run(loss, {logits.view, labels.view}, {out.view});
  EXPECT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("label 3 in row 2 is outside [0, 3)"),
            std::string::npos)
      << status.message();
}

/// ignore_index on the own loops (PyTorch's default -100 is on every
/// exported cross-entropy): rows of that label count neither in the loss
/// nor in the mean, their gradient is 0, a class id as ignore_index (0)
/// works the same, and every row ignored gives NaN (0 / 0) as PyTorch does.
TEST_F(CpuElementwiseTest, CrossEntropyIgnoresRowsOnItsOwnLoop) {
  for (DType dtype : kFloatTypes) {
    Close close{dtype == DType::F32    ? 4e-6
                : dtype == DType::BF16 ? std::ldexp(1.0, -7)
                                       : std::ldexp(1.0, -10),
                1e-6};
    for (int64_t ignore : {int64_t(-100), int64_t(0)})
      for (int64_t every : {int64_t(3), int64_t(1)}) {
        std::vector<int64_t> shape = {50, 17};
        std::string what = std::string(dtypeName(dtype)) + " ignore_index " +
                           std::to_string(ignore) + " every " +
                           std::to_string(every) + " rows";
        Tensor labels(DType::I64, {shape[0]});
        for (int64_t n = 0; n < shape[0]; ++n)
          storeInt(labels.view, n,
                   n % every == 0 ? ignore : 1 + (n * 7919) % (shape[1] - 1));
        KernelDesc loss;
        loss.op = "train.sparse_cross_entropy";
        loss.attrs["ignore_index"] = ints({ignore});
        Tensor logits = randomTensor(dtype, shape, 43, -8, 8);
        std::vector<Tensor> in = {logits, labels};
        expectSame(loss, in, {Tensor(DType::F32, {})}, "loss " + what, &close);
        KernelDesc grad;
        grad.op = "train.sparse_cross_entropy_grad";
        grad.attrs["ignore_index"] = ints({ignore});
        Tensor seed(dtype, {});
        storeFloat(seed.view, 0, 1.0f);
        std::vector<Tensor> gin = {logits, labels, seed};
        expectSame(grad, gin, {Tensor(dtype, shape)}, "grad " + what, &close);
        // On the own loop, not the reference's fallback.
        bool handled = false;
        Tensor out(DType::F32, {}), gout(dtype, shape);
        cpu::runCrossEntropy(cpu::PathMode::Run, loss,
                             {logits.view, labels.view}, {out.view}, handled);
        EXPECT_TRUE(handled) << what;
        handled = false;
        cpu::runCrossEntropy(cpu::PathMode::Run, grad,
                             {logits.view, labels.view, seed.view}, {gout.view},
                             handled);
        EXPECT_TRUE(handled) << what;
        if (every == 1)
          EXPECT_TRUE(std::isnan(loadFloat(out.view, 0))) << what;
        else
          for (int64_t c = 0; c < shape[1]; ++c)
            EXPECT_EQ(loadFloat(gout.view, c), 0.0f) << what; // row 0 ignored
      }
  }
}

/// softmax / log_softmax and their gradients, layer_norm, rms_norm and the
/// pooling ops run as the reference kernel on row slices: the same bytes
/// (softmax along the last axis on its own loop: within a few ulp).
TEST_F(CpuElementwiseTest, RowOpsMatchTheReference) {
  for (DType dtype : kFloatTypes) {
    std::string dt = dtypeName(dtype);
    for (int64_t axis : {-1, 1, 0}) { // axis 0 is not split
      std::vector<int64_t> shape = {37, 5, 129};
      // Along the last axis the exponentials come from the vector math
      // library (cpu/Softmax.cpp): within a few ulp, as for exp; along
      // other axes the row-split reference kernel: bitwise.
      Close close{dtype == DType::F32    ? 4e-6
                  : dtype == DType::BF16 ? std::ldexp(1.0, -7)
                                         : std::ldexp(1.0, -10),
                  1e-6};
      for (const char *op : {"train.softmax", "train.log_softmax"}) {
        KernelDesc kernel;
        kernel.op = op;
        kernel.attrs["axis"] = ints({axis});
        std::vector<Tensor> in = {randomTensor(dtype, shape, 20, -4, 4)};
        expectSame(kernel, in, {Tensor(dtype, shape)},
                   op + (" " + dt + " axis " + std::to_string(axis)),
                   axis == -1 ? &close : nullptr);
      }
      for (const char *op : {"train.softmax_grad", "train.log_softmax_grad"}) {
        KernelDesc kernel;
        kernel.op = op;
        kernel.attrs["axis"] = ints({axis});
        std::vector<Tensor> in = {randomTensor(dtype, shape, 21),
                                  randomTensor(dtype, shape, 22, 0, 1)};
        expectSame(kernel, in, {Tensor(dtype, shape)},
                   op + (" " + dt + " axis " + std::to_string(axis)));
      }
    }
    for (int64_t axis : {1, 2, -1}) {
      std::vector<int64_t> shape = {33, 6, 70};
      std::vector<int64_t> normalized(shape.begin() + (axis + 3) % 3,
                                      shape.end());
      std::vector<int64_t> rows(shape.begin(), shape.begin() + (axis + 3) % 3);
      KernelDesc kernel;
      kernel.op = "train.layer_norm";
      kernel.attrs["axis"] = ints({axis});
      kernel.attrs["epsilon"] = floats(1e-5);
      std::vector<Tensor> in = {randomTensor(dtype, shape, 23, -3, 3, false),
                                randomTensor(dtype, normalized, 24),
                                randomTensor(dtype, normalized, 25)};
      expectSame(kernel, in,
                 {Tensor(dtype, shape), Tensor(DType::F32, rows),
                  Tensor(DType::F32, rows)},
                 "layer_norm " + dt + " axis " + std::to_string(axis));
      // rms_norm on the same rows: bitwise too.
      KernelDesc rms;
      rms.op = "train.rms_norm";
      rms.attrs["axis"] = ints({axis});
      rms.attrs["epsilon"] = floats(1e-6);
      std::vector<Tensor> rmsIn = {in[0], in[1]};
      expectSame(rms, rmsIn, {Tensor(dtype, shape), Tensor(DType::F32, rows)},
                 "rms_norm " + dt + " axis " + std::to_string(axis));
      // layer_norm_grad (cpu/Normalization.cpp): bitwise as well. Its
      // statistics come from the forward kernel, as in a step.
      std::vector<Tensor> stats = {Tensor(dtype, shape),
                                   Tensor(DType::F32, rows),
                                   Tensor(DType::F32, rows)};
      std::vector<TensorView> forwardOut;
      for (Tensor &t : stats)
        forwardOut.push_back(t.view);
      ASSERT_TRUE(reference
                      ->run(kernel, {in[0].view, in[1].view, in[2].view},
                            forwardOut)
                      .isOk());
      KernelDesc grad;
      grad.op = "train.layer_norm_grad";
      grad.attrs["axis"] = ints({axis});
      std::vector<Tensor> gradIn = {randomTensor(dtype, shape, 32), in[0],
                                    in[1], stats[1], stats[2]};
      expectSame(grad, gradIn,
                 {Tensor(dtype, shape), Tensor(dtype, normalized),
                  Tensor(dtype, normalized)},
                 "layer_norm_grad " + dt + " axis " + std::to_string(axis));
    }
    for (bool nhwc : {false, true}) {
      std::string what = dt + (nhwc ? " NHWC" : " NCHW");
      auto image = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
        return nhwc ? std::vector<int64_t>{n, h, w, c}
                    : std::vector<int64_t>{n, c, h, w};
      };
      KernelDesc pool;
      pool.attrs["layout"] = text(nhwc ? "NHWC" : "NCHW");
      pool.attrs["kernel"] = ints({3, 3});
      pool.attrs["strides"] = ints({2, 2});
      pool.attrs["padding"] = ints({1, 1, 1, 1});
      std::vector<int64_t> xs = image(9, 5, 17, 16), ys = image(9, 5, 9, 8);
      for (const char *op : {"train.max_pool2d", "train.avg_pool2d"}) {
        pool.op = op;
        // ReLU-like inputs: many equal zeros, so max-pool ties are common.
        Tensor x = randomTensor(dtype, xs, 26, -1, 1, false);
        for (int64_t i = 0; i < x.view.numElements(); ++i)
          if (loadFloat(x.view, i) < 0)
            storeFloat(x.view, i, 0.0f);
        std::vector<Tensor> in = {x};
        expectSame(pool, in, {Tensor(dtype, ys)}, op + (" " + what));
      }
      pool.op = "train.max_pool2d_grad";
      Tensor x = randomTensor(dtype, xs, 27, -1, 1, false);
      for (int64_t i = 0; i < x.view.numElements(); ++i)
        if (loadFloat(x.view, i) < 0)
          storeFloat(x.view, i, 0.0f);
      std::vector<Tensor> maxIn = {randomTensor(dtype, ys, 28), x};
      expectSame(pool, maxIn, {Tensor(dtype, xs)}, "max_pool2d_grad " + what);
      pool.op = "train.avg_pool2d_grad";
      std::vector<Tensor> avgIn = {randomTensor(dtype, ys, 29)};
      expectSame(pool, avgIn, {Tensor(dtype, xs)}, "avg_pool2d_grad " + what);

      KernelDesc global;
      global.attrs["layout"] = text(nhwc ? "NHWC" : "NCHW");
      global.op = "train.global_avg_pool2d";
      std::vector<Tensor> gin = {randomTensor(dtype, xs, 30)};
      expectSame(global, gin, {Tensor(DType::F32, {9, 5})},
                 "global_avg_pool2d " + what);
      global.op = "train.global_avg_pool2d_grad";
      std::vector<Tensor> ggin = {randomTensor(dtype, {9, 5}, 31)};
      expectSame(global, ggin, {Tensor(dtype, xs)},
                 "global_avg_pool2d_grad " + what);
    }
  }
}

/// max_pool2d and its gradient over windows of every kind the cpu
/// kernel's passes specialize (column stride 1, 2 and other, padded and
/// unpadded, overlapping, windows tiling the rows or not, images narrower
/// than a window's interior), NCHW and NHWC, on inputs with ties, signed
/// zeros and NaNs: the reference's bytes.
TEST_F(CpuElementwiseTest, MaxPoolWindowsAreBitwiseTheReference) {
  struct Case {
    std::vector<int64_t> kernel, strides, padding, image, pooled;
  };
  const Case cases[] = {
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {9, 12}, {4, 6}},
      {{3, 3}, {1, 1}, {1, 1, 1, 1}, {7, 10}, {7, 10}},
      {{3, 3}, {3, 3}, {1, 1, 1, 1}, {10, 11}, {4, 4}},
      {{2, 3}, {1, 2}, {0, 0, 0, 0}, {6, 9}, {5, 4}},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {3, 2}, {2, 1}},
      {{1, 1}, {1, 1}, {0, 0, 0, 0}, {4, 5}, {4, 5}},
      // Windows tiling the rows (the plane as one row of windows) or not.
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {8, 11}, {4, 5}},
      {{3, 3}, {3, 3}, {0, 0, 0, 0}, {9, 9}, {3, 3}},
      {{2, 2}, {3, 3}, {0, 0, 0, 0}, {7, 9}, {2, 3}}};
  // NHWC: 4 channels (one block) and 70 (a block of 64 and a rest).
  for (DType dtype : kFloatTypes)
    for (int64_t nhwc : {0, 4, 70})
      for (const Case &c : cases) {
        std::vector<int64_t> xs = {3, 4, c.image[0], c.image[1]},
                             ys = {3, 4, c.pooled[0], c.pooled[1]};
        if (nhwc) {
          xs = {3, c.image[0], c.image[1], nhwc};
          ys = {3, c.pooled[0], c.pooled[1], nhwc};
        }
        std::string what = std::string(dtypeName(dtype)) + " kernel " +
                           formatShape(c.kernel) + " strides " +
                           formatShape(c.strides) + " image " +
                           formatShape(xs) + (nhwc ? " NHWC" : " NCHW");
        KernelDesc pool;
        pool.attrs["layout"] = text(nhwc ? "NHWC" : "NCHW");
        pool.attrs["kernel"] = ints(c.kernel);
        pool.attrs["strides"] = ints(c.strides);
        pool.attrs["padding"] = ints(c.padding);
        Tensor x = randomTensor(dtype, xs, 60, -1, 1, false);
        for (int64_t i = 0; i < x.view.numElements(); ++i) {
          float v = loadFloat(x.view, i);
          if (i % 17 == 5)
            storeFloat(x.view, i, std::nanf(""));
          else if (v < 0)
            storeFloat(x.view, i, i % 2 ? 0.0f : -0.0f);
        }
        pool.op = "train.max_pool2d";
        std::vector<Tensor> in = {x};
        expectSame(pool, in, {Tensor(dtype, ys)}, "max_pool2d " + what);
        pool.op = "train.max_pool2d_grad";
        std::vector<Tensor> gradIn = {randomTensor(dtype, ys, 61), x};
        expectSame(pool, gradIn, {Tensor(dtype, xs)},
                   "max_pool2d_grad " + what);
      }
}

/// batch_norm and batch_norm_grad with channel runs (NCHW): the reference's
/// code with the channels split over the threads: the same bytes. (Features
/// last go by row blocks, not the reference's order of additions:
/// CpuChannelStatsTest.cpp.)
TEST_F(CpuElementwiseTest, BatchNormIsBitwiseTheReference) {
  for (DType dtype : kFloatTypes)
    {
      std::vector<int64_t> shape = {8, 24, 9, 10};
      std::string what = std::string(dtypeName(dtype)) + " NCHW";
      KernelDesc bn;
      bn.op = "train.batch_norm";
      bn.attrs["feature_dim"] = ints({1});
      bn.attrs["epsilon"] = floats(1e-5);
      bn.attrs["momentum"] = floats(0.1);
      std::vector<Tensor> in = {
          randomTensor(dtype, shape, 50, -2, 2, false),
          randomTensor(DType::F32, {24}, 51), randomTensor(DType::F32, {24}, 52),
          randomTensor(DType::F32, {24}, 53),
          randomTensor(DType::F32, {24}, 54, 0.5, 2, false)};
      std::vector<Tensor> outs = {Tensor(dtype, shape), Tensor(DType::F32, {24}),
                                  Tensor(DType::F32, {24}),
                                  Tensor(DType::F32, {24}),
                                  Tensor(DType::F32, {24})};
      expectSame(bn, in, outs, "batch_norm " + what);
      std::vector<TensorView> outViews;
      for (Tensor &t : outs)
        outViews.push_back(t.view);
      std::vector<TensorView> inViews;
      for (Tensor &t : in)
        inViews.push_back(t.view);
      ASSERT_TRUE(reference->run(bn, inViews, outViews).isOk());
      KernelDesc grad;
      grad.op = "train.batch_norm_grad";
      grad.attrs["feature_dim"] = bn.attrs["feature_dim"];
      std::vector<Tensor> gradIn = {randomTensor(dtype, shape, 55), in[0], in[1],
                                    outs[3], outs[4]};
      // dy holds inf and NaN, so every sum of a channel is NaN: which NaN
      // (sign, payload) an f64 lane sum ends with depends on which operand
      // order the compiler gave each vector add. Same values otherwise:
      // a zero tolerance, NaN matching NaN.
      Close sameValue{0, 0};
      expectSame(grad, gradIn,
                 {Tensor(dtype, shape), Tensor(DType::F32, {24}),
                  Tensor(DType::F32, {24})},
                 "batch_norm_grad " + what, &sameValue);
    }
}

/// The loss scaler's kernels: mp.scale, mp.unscale_and_check (16-bit
/// gradients to f32, as the compiler fuses it with the widening cast) and
/// mp.all_finite, with and without non-finite values: the same bytes.
TEST_F(CpuElementwiseTest, LossScalingKernelsAreBitwiseTheReference) {
  Tensor scaleValue(DType::F32, {});
  storeFloat(scaleValue.view, 0, 3.0f * 1024);
  for (DType dtype : kFloatTypes)
    for (bool specials : {false, true})
      for (int64_t n : {int64_t(5), int64_t(70001)}) {
        std::string what = std::string(dtypeName(dtype)) + " x " +
                           std::to_string(n) +
                           (specials ? " with inf/NaN" : " finite");
        KernelDesc scale;
        scale.op = "mp.scale";
        std::vector<Tensor> scaleIn = {
            randomTensor(dtype, {n}, 60, -1, 1, specials), scaleValue};
        expectSame(scale, scaleIn, {Tensor(dtype, {n})}, "scale " + what);

        KernelDesc unscale;
        unscale.op = "mp.unscale_and_check";
        std::vector<Tensor> unscaleIn = {
            scaleValue, randomTensor(dtype, {n}, 61, -1, 1, false),
            randomTensor(dtype, {n, 3}, 62, -1, 1, specials)};
        expectSame(unscale, unscaleIn,
                   {Tensor(DType::F32, {n}), Tensor(DType::F32, {n, 3}),
                    Tensor(DType::I1, {})},
                   "unscale_and_check " + what);

        KernelDesc check;
        check.op = "mp.all_finite";
        std::vector<Tensor> checkIn = {
            randomTensor(dtype, {n}, 63, -1, 1, false),
            randomTensor(dtype, {7, n}, 64, -1, 1, specials)};
        expectSame(check, checkIn, {Tensor(DType::I1, {})},
                   "all_finite " + what);
      }
}

TEST_F(CpuElementwiseTest, ThreadCountIsSettable) {
  setCpuThreads(3);
  EXPECT_EQ(3, cpuThreads());
  setCpuThreads(0);
  EXPECT_GE(cpuThreads(), 1);
}

} // namespace
