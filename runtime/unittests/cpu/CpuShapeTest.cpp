//===- CpuShapeTest.cpp - the cpu backend's own shape and select loops ---===//
//
// fill, transpose, broadcast, slice and select on the cpu backend's own
// threaded copies (cpu/ShapeOps.cpp, cpu/Elementwise.cpp): the same bytes
// as the reference backend, with 1, 2 and 3 threads.
//
//===----------------------------------------------------------------------===//
#include "CpuKernelTestSupport.h"

#include <string>
#include <vector>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

class CpuShapeTest : public CpuKernelTest {};

/// train.fill (large tensors), train.transpose keeping the last dimension
/// and train.transpose swapping two groups of dimensions run on own
/// threaded copies: the same bytes.
TEST_F(CpuShapeTest, FillAndTransposeAreBitwiseTheReference) {
  for (DType dtype : kFloatTypes) {
    for (double value : {0.125, 1.0 / 3.0, -7e-3, 1e10}) {
      KernelDesc kernel;
      kernel.op = "train.fill";
      kernel.attrs["value"] = floats(value);
      std::vector<Tensor> none;
      expectSame(kernel, none, {Tensor(dtype, {3, 70001})},
                 std::string("fill ") + dtypeName(dtype) + " " +
                     std::to_string(value));
    }
    struct Case {
      std::vector<int64_t> shape, perm;
    };
    const Case cases[] = {{{4, 128, 8, 64}, {0, 2, 1, 3}},
                          {{3, 5, 7, 9}, {2, 0, 1, 3}},
                          {{70, 3, 2049}, {1, 0, 2}},
                          // Batched 2-D transposes of dimension groups
                          // (NCHW <-> NHWC), tiles cut at every edge.
                          {{6, 7, 8}, {0, 2, 1}},
                          {{3, 35, 9, 7}, {0, 2, 3, 1}},
                          {{3, 9, 7, 35}, {0, 3, 1, 2}},
                          {{65, 33}, {1, 0}},
                          {{5, 6, 7}, {2, 1, 0}}}; // last one: reference
    for (const Case &c : cases) {
      KernelDesc kernel;
      kernel.op = "train.transpose";
      kernel.attrs["permutation"] = ints(c.perm);
      std::vector<int64_t> result;
      for (int64_t p : c.perm)
        result.push_back(c.shape[p]);
      std::vector<Tensor> in = {randomTensor(dtype, c.shape, 40)};
      expectSame(kernel, in, {Tensor(dtype, result)},
                 std::string("transpose ") + dtypeName(dtype) + " " +
                     formatShape(c.shape));
    }
  }
}

/// train.broadcast on own row copies: every kind of last dimension (copied
/// from x, one value repeated, a size-1 dimension of x), the same bytes.
TEST_F(CpuShapeTest, BroadcastIsBitwiseTheReference) {
  struct Case {
    std::vector<int64_t> x, dims, result;
  };
  const Case cases[] = {{{6, 5}, {0, 1}, {6, 5, 4, 3}},
                        {{6, 5}, {0, 3}, {6, 4, 3, 5}},
                        {{5}, {1}, {3, 5}},
                        {{3, 1}, {0, 1}, {3, 7}},
                        {{7}, {0}, {7, 4}},
                        {{2, 1, 4}, {0, 1, 3}, {2, 3, 1, 4}},
                        {{}, {}, {70001}}};
  for (DType dtype : kFloatTypes)
    for (const Case &c : cases) {
      KernelDesc kernel;
      kernel.op = "train.broadcast";
      kernel.attrs["dims"] = ints(c.dims);
      std::vector<Tensor> in = {randomTensor(dtype, c.x, 41)};
      expectSame(kernel, in, {Tensor(dtype, c.result)},
                 std::string("broadcast ") + dtypeName(dtype) + " " +
                     formatShape(c.x) + " -> " + formatShape(c.result));
    }
}

/// train.slice (offsets, strides, a last dimension copied or strided) and
/// train.select on masks: the same bytes.
TEST_F(CpuShapeTest, SliceAndSelectAreBitwiseTheReference) {
  struct Case {
    std::vector<int64_t> x, offsets, strides, result;
  };
  const Case cases[] = {{{4, 130, 64}, {0, 2, 0}, {1, 1, 1}, {4, 128, 64}},
                        {{4, 130, 64}, {1, 0, 3}, {2, 3, 2}, {2, 44, 31}},
                        {{9, 7}, {8, 6}, {1, 1}, {1, 1}},
                        {{70001}, {5}, {7}, {10000}}};
  for (DType dtype : kFloatTypes)
    for (const Case &c : cases) {
      KernelDesc kernel;
      kernel.op = "train.slice";
      kernel.attrs["offsets"] = ints(c.offsets);
      kernel.attrs["strides"] = ints(c.strides);
      std::vector<Tensor> in = {randomTensor(dtype, c.x, 43)};
      expectSame(kernel, in, {Tensor(dtype, c.result)},
                 std::string("slice ") + dtypeName(dtype) + " " +
                     formatShape(c.x) + " -> " + formatShape(c.result));
    }
  for (DType dtype : kFloatTypes)
    for (int64_t n : {1, 2049, 70001}) {
      KernelDesc kernel;
      kernel.op = "train.select";
      Tensor cond(DType::I1, {n});
      for (int64_t i = 0; i < n; ++i)
        cond.view.as<uint8_t>()[i] = (i * 7919) % 3 == 0;
      std::vector<Tensor> in = {cond, randomTensor(dtype, {n}, 44),
                                randomTensor(dtype, {n}, 45)};
      expectSame(kernel, in, {Tensor(dtype, {n})},
                 std::string("select ") + dtypeName(dtype) + " " +
                     std::to_string(n));
    }
}

} // namespace
