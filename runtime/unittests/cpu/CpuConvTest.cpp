//===- CpuConvTest.cpp - the cpu backend's convolutions -------------------===//
//
// train.conv2d and its two backward ops on oneDNN against the reference
// backend, with the matmul tests' tolerance (CpuBackendTest.cpp's header:
// two orders of an f32 sum of K products differ by at most 2 gamma_K
// sum|a b|, and a 16-bit result by one more unit in the last place).
//
//===----------------------------------------------------------------------===//
#include "CpuKernelTestSupport.h"
#include "GemmTestSupport.h"
#include "cpu/OneDnn.h"
#include "mp/runtime/Backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

using Host = test::OwnedTensor;
using namespace test::gemm;

class CpuConvTest : public test::CpuBackendAvailable {};

/// train.conv2d and its two backward ops in both layouts, several windows,
/// every dtype pair, against the reference backend. Tolerance as for
/// matmul, with K the length of the sums (forward: C * KH * KW; backward
/// data: at most O * KH * KW; backward filter: N * OH * OW) and sum |a b|
/// computed by the reference kernel on |operands|.
TEST_F(CpuConvTest, Conv2dMatchesReference) {
  std::unique_ptr<Backend> reference = createReferenceBackend();
  cpu::ConvCache cache;
  struct ConvCase {
    const char *name;
    int64_t n, c, h, w, o, kh, kw;
    std::vector<int64_t> strides, padding, dilations;
  };
  const ConvCase cases[] = {
      {"3x3 pad 1", 2, 5, 9, 11, 7, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"3x3 stride 2 asym pad",
       2,
       4,
       10,
       9,
       6,
       3,
       3,
       {2, 2},
       {0, 1, 1, 0},
       {1, 1}},
      {"1x1", 3, 16, 6, 6, 8, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},
      {"5x3 dilation 2", 1, 3, 12, 10, 4, 5, 3, {1, 2}, {2, 2, 1, 1}, {2, 1}},
      {"cnn conv2", 4, 32, 14, 14, 64, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}},
  };
  uint32_t seed = 100;
  size_t total = 0, handled = 0, handledBackward = 0, widened = 0;
  for (cpu::ConvKind kind :
       {cpu::ConvKind::Forward, cpu::ConvKind::BackwardData,
        cpu::ConvKind::BackwardFilter})
    for (const ConvCase &cc : cases)
      for (bool nhwc : {false, true})
        for (DTypePair dt : kDTypes) {
          const char *op = kind == cpu::ConvKind::Forward ? "train.conv2d"
                           : kind == cpu::ConvKind::BackwardData
                               ? "train.conv2d_backward_data"
                               : "train.conv2d_backward_filter";
          SCOPED_TRACE(std::string(op) + " " + cc.name +
                       (nhwc ? " NHWC " : " NCHW ") + dtypeName(dt.in) +
                       " -> " + dtypeName(dt.out));
          int64_t oh = (cc.h + cc.padding[0] + cc.padding[1] -
                        cc.dilations[0] * (cc.kh - 1) - 1) /
                           cc.strides[0] +
                       1;
          int64_t ow = (cc.w + cc.padding[2] + cc.padding[3] -
                        cc.dilations[1] * (cc.kw - 1) - 1) /
                           cc.strides[1] +
                       1;
          std::vector<int64_t> xs =
              nhwc ? std::vector<int64_t>{cc.n, cc.h, cc.w, cc.c}
                   : std::vector<int64_t>{cc.n, cc.c, cc.h, cc.w};
          std::vector<int64_t> ws =
              nhwc ? std::vector<int64_t>{cc.kh, cc.kw, cc.c, cc.o}
                   : std::vector<int64_t>{cc.o, cc.c, cc.kh, cc.kw};
          std::vector<int64_t> ys =
              nhwc ? std::vector<int64_t>{cc.n, oh, ow, cc.o}
                   : std::vector<int64_t>{cc.n, cc.o, oh, ow};
          KernelDesc kernel;
          kernel.op = op;
          kernel.inputs = {0, 1};
          kernel.outputs = {2};
          Attr layout, strides, padding, dilations;
          layout.kind = Attr::Kind::String;
          layout.str = nhwc ? "NHWC" : "NCHW";
          strides.ints = cc.strides;
          padding.ints = cc.padding;
          dilations.ints = cc.dilations;
          kernel.attrs["layout"] = layout;
          kernel.attrs["strides"] = strides;
          kernel.attrs["padding"] = padding;
          kernel.attrs["dilations"] = dilations;
          // Operand and result shapes of this op.
          std::vector<int64_t> as =
              kind == cpu::ConvKind::BackwardData ? ys : xs;
          std::vector<int64_t> bs =
              kind == cpu::ConvKind::BackwardFilter ? ys : ws;
          std::vector<int64_t> rs = kind == cpu::ConvKind::Forward        ? ys
                                    : kind == cpu::ConvKind::BackwardData ? xs
                                                                          : ws;
          Host x = randomTensor(dt.in, as, seed++);
          Host w = randomTensor(dt.in, bs, seed++);
          Host expected(dt.out, rs), got(dt.out, rs), bound(DType::F32, rs);
          Status status =
              reference->run(kernel, {x.view, w.view}, {expected.view});
          ASSERT_TRUE(status.isOk()) << status.message();
          bool ran = false;
          status = cache.run(kernel, {x.view, w.view}, {got.view}, ran);
          ASSERT_TRUE(status.isOk()) << status.message();
          ++total;
          if (!ran) {
            // Only f32 problems oneDNN has just its naive loop nest for (most
            // f32 NCHW windows on some CPUs) are left to the reference
            // kernel; a 16-bit problem runs natively or on f32 (widened).
            EXPECT_EQ(dt.in, DType::F32) << "left to the reference kernel";
            continue;
          }
          // bf16 convolutions run natively on a CPU with bf16 instructions.
          if (dt.in == DType::BF16 && fastOn(DType::BF16)) {
            EXPECT_FALSE(isWidened(cache.lastImplementation()))
                << cache.lastImplementation();
          }
          widened += isWidened(cache.lastImplementation());
          ++handled;
          handledBackward += kind != cpu::ConvKind::Forward;
          Host absX(dt.in, as), absW(dt.in, bs);
          for (int64_t i = 0; i < x.view.numElements(); ++i)
            storeFloat(absX.view, i, std::fabs(loadFloat(x.view, i)));
          for (int64_t i = 0; i < w.view.numElements(); ++i)
            storeFloat(absW.view, i, std::fabs(loadFloat(w.view, i)));
          ASSERT_TRUE(
              reference->run(kernel, {absX.view, absW.view}, {bound.view})
                  .isOk());
          int64_t k = kind == cpu::ConvKind::Forward ? cc.c * cc.kh * cc.kw
                      : kind == cpu::ConvKind::BackwardData
                          ? cc.o * cc.kh * cc.kw
                          : cc.n * oh * ow;
          double u = std::ldexp(1.0, -24);
          // 1.01: the bound itself is an f32 sum (one gamma_K short).
          double gamma = 2.02 * k * u / (1 - k * u);
          double ulp = dt.out == DType::BF16  ? std::ldexp(1.0, -7)
                       : dt.out == DType::F16 ? std::ldexp(1.0, -10)
                                              : 0;
          int failures = 0;
          for (int64_t i = 0; i < got.view.numElements() && failures < 5; ++i) {
            double e = loadFloat(expected.view, i), g = loadFloat(got.view, i);
            double tol =
                gamma * loadFloat(bound.view, i) + ulp * std::fabs(e) + 1e-30;
            if (!(std::fabs(e - g) <= tol)) {
              ADD_FAILURE() << "element " << i << ": cpu " << g
                            << ", reference " << e << ", tolerance " << tol
                            << " (" << cache.lastImplementation() << ")";
              ++failures;
            }
          }
        }
  std::printf("cpu conv2d: %zu of %zu cases on oneDNN (%zu backward, %zu "
              "widened to f32; CPU: %s), %zu primitives\n",
              handled, total, handledBackward, widened, cpuFeatures().c_str(),
              cache.primitivesCreated());
}

/// The least-squares model of the core tests (matmuls in both directions,
/// loss scaling, momentum SGD) trained on both backends: the same losses,
/// scales and weights, up to f32 summation order.
} // namespace
