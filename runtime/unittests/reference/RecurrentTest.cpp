//===- RecurrentTest.cpp - LSTM and GRU cells and their gradients ---------===//
//
// Forward cells against their formulas written out per element (PyTorch's
// nn.LSTMCell / nn.GRUCell equations), Keras' GRU gate order against
// PyTorch's on permuted blocks, and the gradients against central
// differences of the forward kernels.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

const int64_t kB = 3, kH = 4;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

class LstmCellTest : public ::testing::TestWithParam<DType> {};

TEST_P(LstmCellTest, FollowsTheEquations) {
  DType d = GetParam();
  HostTensor gates = randomTensor(d, {kB, 4 * kH}, -3, 3, 1);
  HostTensor c = randomTensor(d, {kB, kH}, -2, 2, 2);
  HostTensor h = zerosTensor(d, {kB, kH}), cNew = h;
  ASSERT_OK(runKernel("train.lstm_cell", {}, {&gates, &c}, {&h, &cNew}));
  Values wantH, wantC;
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t j = 0; j < kH; ++j) {
      auto gate = [&](int block) { return gates.at(b * 4 * kH + block * kH + j); };
      double next = sigmoid(gate(1)) * c.at(b * kH + j) +
                    sigmoid(gate(0)) * std::tanh(gate(2));
      wantC.push_back(next);
      wantH.push_back(sigmoid(gate(3)) * std::tanh(next));
    }
  expectNear(cNew, wantC, elementwiseTolerance(d), "c_new");
  expectNear(h, wantH, elementwiseTolerance(d), "h_new");
}

INSTANTIATE_TEST_SUITE_P(DTypes, LstmCellTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

TEST(LstmCellGradTest, MatchesCentralDifferences) {
  HostTensor gates = randomTensor(DType::F32, {kB, 4 * kH}, -2, 2, 1);
  HostTensor c = randomTensor(DType::F32, {kB, kH}, -1, 1, 2);
  HostTensor wh = randomTensor(DType::F32, {kB, kH}, -1, 1, 3);
  HostTensor wc = randomTensor(DType::F32, {kB, kH}, -1, 1, 4);
  HostTensor h = zerosTensor(DType::F32, {kB, kH}), cNew = h;
  auto loss = [&] {
    EXPECT_TRUE(
        runKernel("train.lstm_cell", {}, {&gates, &c}, {&h, &cNew}).isOk());
    return dot(h, wh) + dot(cNew, wc);
  };
  Values numericGates = numericGradient(gates, loss);
  Values numericC = numericGradient(c, loss);
  loss();
  HostTensor dGates = zerosTensor(DType::F32, gates.shape);
  HostTensor dc = zerosTensor(DType::F32, c.shape);
  ASSERT_OK(runKernel("train.lstm_cell_grad", {}, {&wh, &wc, &gates, &c, &cNew},
                      {&dGates, &dc}));
  expectNear(dGates, numericGates, finiteDifferenceTolerance(), "grad_gates");
  expectNear(dc, numericC, finiteDifferenceTolerance(), "grad_c_prev");
}

class GruCellTest : public ::testing::TestWithParam<DType> {};

TEST_P(GruCellTest, FollowsTheEquations) {
  DType d = GetParam();
  HostTensor x = randomTensor(d, {kB, 3 * kH}, -2, 2, 1);
  HostTensor hg = randomTensor(d, {kB, 3 * kH}, -2, 2, 2);
  HostTensor h = randomTensor(d, {kB, kH}, -1, 1, 3);
  HostTensor out = zerosTensor(d, {kB, kH});
  ASSERT_OK(runKernel("train.gru_cell", {{"order", stringAttr("rzn")}},
                      {&x, &hg, &h}, {&out}));
  Values want;
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t j = 0; j < kH; ++j) {
      auto at = [&](const HostTensor &t, int block) {
        return t.at(b * 3 * kH + block * kH + j);
      };
      double r = sigmoid(at(x, 0) + at(hg, 0));
      double z = sigmoid(at(x, 1) + at(hg, 1));
      double n = std::tanh(at(x, 2) + r * at(hg, 2));
      want.push_back((1 - z) * n + z * h.at(b * kH + j));
    }
  expectNear(out, want, elementwiseTolerance(d), "h_new");
}

INSTANTIATE_TEST_SUITE_P(DTypes, GruCellTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

/// The same gates with the first two blocks swapped.
HostTensor swapped(const HostTensor &t) {
  HostTensor s = t;
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t j = 0; j < kH; ++j) {
      s.set(b * 3 * kH + j, t.at(b * 3 * kH + kH + j));
      s.set(b * 3 * kH + kH + j, t.at(b * 3 * kH + j));
    }
  return s;
}

TEST(GruCellTest, KerasOrderIsPyTorchsWithTheFirstBlocksSwapped) {
  HostTensor x = randomTensor(DType::F32, {kB, 3 * kH}, -2, 2, 1);
  HostTensor hg = randomTensor(DType::F32, {kB, 3 * kH}, -2, 2, 2);
  HostTensor h = randomTensor(DType::F32, {kB, kH}, -1, 1, 3);
  HostTensor xs = swapped(x), hs = swapped(hg);
  HostTensor a = zerosTensor(DType::F32, {kB, kH}), b = a;
  ASSERT_OK(runKernel("train.gru_cell", {{"order", stringAttr("rzn")}},
                      {&x, &hg, &h}, {&a}));
  ASSERT_OK(runKernel("train.gru_cell", {{"order", stringAttr("zrn")}},
                      {&xs, &hs, &h}, {&b}));
  expectNear(a, b.values(), {0, 0}, "zrn vs rzn");
}

TEST(GruCellGradTest, MatchesCentralDifferences) {
  for (const char *order : {"rzn", "zrn"}) {
    AttrMap attrs = {{"order", stringAttr(order)}};
    HostTensor x = randomTensor(DType::F32, {kB, 3 * kH}, -2, 2, 1);
    HostTensor hg = randomTensor(DType::F32, {kB, 3 * kH}, -2, 2, 2);
    HostTensor h = randomTensor(DType::F32, {kB, kH}, -1, 1, 3);
    HostTensor w = randomTensor(DType::F32, {kB, kH}, -1, 1, 4);
    HostTensor out = zerosTensor(DType::F32, {kB, kH});
    auto loss = [&] {
      EXPECT_TRUE(
          runKernel("train.gru_cell", attrs, {&x, &hg, &h}, {&out}).isOk());
      return dot(out, w);
    };
    Values numericX = numericGradient(x, loss);
    Values numericHg = numericGradient(hg, loss);
    Values numericH = numericGradient(h, loss);
    HostTensor dx = zerosTensor(DType::F32, x.shape), dhg = dx;
    HostTensor dh = zerosTensor(DType::F32, h.shape);
    ASSERT_OK(runKernel("train.gru_cell_grad", attrs, {&w, &x, &hg, &h},
                        {&dx, &dhg, &dh}));
    std::string tag = std::string(" (") + order + ")";
    expectNear(dx, numericX, finiteDifferenceTolerance(),
               "grad_input_gates" + tag);
    expectNear(dhg, numericHg, finiteDifferenceTolerance(),
               "grad_hidden_gates" + tag);
    expectNear(dh, numericH, finiteDifferenceTolerance(), "grad_h_prev" + tag);
  }
}

TEST(RecurrentErrorsTest, NameTheProblem) {
  HostTensor gates(DType::F32, {3, 12}), c(DType::F32, {3, 4});
  HostTensor h(DType::F32, {3, 4}), cNew(DType::F32, {3, 4});
  expectError(runKernel("train.lstm_cell", {}, {&gates, &c}, {&h, &cNew}),
              StatusCode::InvalidArgument, "gates");
  expectError(runKernel("train.gru_cell", {{"order", stringAttr("nzr")}},
                        {&gates, &gates, &c}, {&h}),
              StatusCode::InvalidArgument, "rzn or zrn");
}

} // namespace
