//===- OptimizerTest.cpp - sgd, sgd_momentum, adam, adamw -----------------===//
//
// Several steps of each optimizer, the kernel's outputs fed back as the next
// step's state, against the same recurrences in double (PyTorch's update
// rules). The f32 state drifts from the double one by a few ulps per step.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
const int kSteps = 6;
const Shape kShape{3, 5};
/// Tolerance of f32 state after kSteps steps against the double recurrence.
const Tolerance kStateTolerance = {2e-5, 2e-6};

HostTensor gradientAt(int step) {
  return randomTensor(DType::F32, kShape, -1, 1, 1000 + step);
}

struct SgdCase {
  double momentum, dampening, weightDecay;
  bool nesterov;
};
} // namespace

TEST(Optimizer, SgdOverSeveralSteps) {
  HostTensor p = randomTensor(DType::F32, kShape, -1, 1, 1);
  Values ref = p.values();
  AttrMap attrs = {{"lr", floatAttr(0.1)}, {"weight_decay", floatAttr(0.01)}};
  for (int t = 0; t < kSteps; ++t) {
    HostTensor g = gradientAt(t), next(DType::F32, kShape);
    ASSERT_OK(runKernel("train.sgd", attrs, {&p, &g}, {&next}));
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] -= 0.1 * (g.at(i) + 0.01 * ref[i]);
    p = next;
  }
  expectNear(p, ref, kStateTolerance, "sgd");
}

TEST(Optimizer, SgdMomentumOverSeveralSteps) {
  const SgdCase cases[] = {
      {0.9, 0, 0.01, false}, {0.9, 0.1, 0, false}, {0.8, 0, 0.05, true}};
  for (const SgdCase &c : cases) {
    HostTensor p = randomTensor(DType::F32, kShape, -1, 1, 2);
    HostTensor b(DType::F32, kShape);
    Values refP = p.values(), refB(p.size(), 0.0);
    AttrMap attrs = {{"lr", floatAttr(0.05)},
                     {"momentum", floatAttr(c.momentum)},
                     {"dampening", floatAttr(c.dampening)},
                     {"weight_decay", floatAttr(c.weightDecay)},
                     {"nesterov", intsAttr({c.nesterov})}};
    for (int t = 0; t < kSteps; ++t) {
      HostTensor g = gradientAt(t), nextP(DType::F32, kShape),
                 nextB(DType::F32, kShape);
      ASSERT_OK(runKernel("train.sgd_momentum", attrs, {&p, &g, &b},
                          {&nextP, &nextB}));
      for (size_t i = 0; i < refP.size(); ++i) {
        double grad = g.at(i) + c.weightDecay * refP[i];
        refB[i] = c.momentum * refB[i] + (1 - c.dampening) * grad;
        double step = c.nesterov ? grad + c.momentum * refB[i] : refB[i];
        refP[i] -= 0.05 * step;
      }
      p = nextP;
      b = nextB;
    }
    std::string name = "sgd_momentum" +
                       std::string(c.nesterov ? " nesterov" : "") +
                       " dampening " + std::to_string(c.dampening);
    expectNear(p, refP, kStateTolerance, name + " param");
    expectNear(b, refB, kStateTolerance, name + " buffer");
  }
}

TEST(Optimizer, AdamAndAdamWOverSeveralSteps) {
  for (bool decoupled : {false, true}) {
    for (DType stepType : {DType::I32, DType::I64, DType::F32}) {
      const double lr = 0.01, b1 = 0.9, b2 = 0.99, eps = 1e-8, wd = 0.1;
      HostTensor p = randomTensor(DType::F32, kShape, -1, 1, 3);
      HostTensor m(DType::F32, kShape), v(DType::F32, kShape);
      Values refP = p.values(), refM(p.size(), 0.0), refV(p.size(), 0.0);
      AttrMap attrs = {{"lr", floatAttr(lr)},
                       {"beta1", floatAttr(b1)},
                       {"beta2", floatAttr(b2)},
                       {"epsilon", floatAttr(eps)},
                       {"weight_decay", floatAttr(wd)}};
      const char *op = decoupled ? "train.adamw" : "train.adam";
      for (int t = 1; t <= kSteps; ++t) {
        HostTensor g = gradientAt(t),
                   step = makeTensor(stepType, {}, {double(t)});
        HostTensor nextP(DType::F32, kShape), nextM(DType::F32, kShape),
            nextV(DType::F32, kShape);
        ASSERT_OK(runKernel(op, attrs, {&p, &g, &m, &v, &step},
                            {&nextP, &nextM, &nextV}));
        for (size_t i = 0; i < refP.size(); ++i) {
          double grad = g.at(i);
          if (decoupled)
            refP[i] *= 1 - lr * wd;
          else
            grad += wd * refP[i];
          refM[i] = b1 * refM[i] + (1 - b1) * grad;
          refV[i] = b2 * refV[i] + (1 - b2) * grad * grad;
          double mHat = refM[i] / (1 - std::pow(b1, t));
          double vHat = refV[i] / (1 - std::pow(b2, t));
          refP[i] -= lr * mHat / (std::sqrt(vHat) + eps);
        }
        p = nextP;
        m = nextM;
        v = nextV;
      }
      std::string name = std::string(op) + " step " + dtypeName(stepType);
      expectNear(p, refP, kStateTolerance, name + " param");
      expectNear(m, refM, kStateTolerance, name + " exp_avg");
      expectNear(v, refV, kStateTolerance, name + " exp_avg_sq");
    }
  }
}

TEST(Optimizer, SixteenBitStateRoundsOnce) {
  // One step on bf16/f16 state: the f32 update rounded once.
  for (DType dtype : {DType::BF16, DType::F16}) {
    HostTensor p = randomTensor(dtype, kShape, -1, 1, 5);
    HostTensor g = randomTensor(dtype, kShape, -1, 1, 6);
    HostTensor b = randomTensor(dtype, kShape, -1, 1, 7);
    HostTensor np(dtype, kShape), nb(dtype, kShape);
    ASSERT_OK(runKernel("train.sgd_momentum",
                        {{"lr", floatAttr(0.5)}, {"momentum", floatAttr(0.9)}},
                        {&p, &g, &b}, {&np, &nb}));
    Values wantP, wantB;
    for (int64_t i = 0; i < p.size(); ++i) {
      wantB.push_back(0.9 * b.at(i) + g.at(i));
      wantP.push_back(p.at(i) - 0.5 * wantB.back());
    }
    // The result may cancel (p - lr * b near 0): allow the f32 error of
    // the operands' magnitude, not of the result's.
    Tolerance tol = elementwiseTolerance(dtype);
    tol.atol = 1e-5;
    expectNear(np, wantP, tol, "sgd_momentum param");
    expectNear(nb, wantB, tol, "sgd_momentum buffer");
  }
}

TEST(Optimizer, RejectsBadStepsAndHyperParameters) {
  HostTensor p(DType::F32, kShape), g(DType::F32, kShape),
      m(DType::F32, kShape), v(DType::F32, kShape), o1(DType::F32, kShape),
      o2(DType::F32, kShape), o3(DType::F32, kShape);
  for (double t : {0.0, -3.0, std::nan("")}) {
    HostTensor step = makeTensor(DType::F32, {}, {t});
    expectError(runKernel("train.adam", {{"lr", floatAttr(0.1)}},
                          {&p, &g, &m, &v, &step}, {&o1, &o2, &o3}),
                StatusCode::InvalidArgument, "expects step >= 1");
  }
  HostTensor vectorStep(DType::I32, {1});
  expectError(checkKernel("train.adamw", {{"lr", floatAttr(0.1)}},
                          {&p, &g, &m, &v, &vectorStep}, {&o1, &o2, &o3}),
              StatusCode::InvalidArgument, "step of shape []");
  expectError(checkKernel("train.sgd", {}, {&p, &g}, {&o1}),
              StatusCode::InvalidArgument, "'lr'");
  expectError(checkKernel("train.sgd_momentum",
                          {{"lr", floatAttr(0.1)},
                           {"momentum", floatAttr(0.9)},
                           {"dampening", floatAttr(0.5)},
                           {"nesterov", intsAttr({1})}},
                          {&p, &g, &m}, {&o1, &o2}),
              StatusCode::InvalidArgument, "nesterov");
  HostTensor half(DType::F16, kShape);
  expectError(
      checkKernel("train.sgd", {{"lr", floatAttr(0.1)}}, {&p, &half}, {&o1}),
      StatusCode::Unimplemented, "param and grad of the same dtype");
}
