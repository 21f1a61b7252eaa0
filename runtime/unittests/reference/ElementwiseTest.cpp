//===- ElementwiseTest.cpp - elementwise ops, activation grads, bias_add --===//
#include "RefTestUtil.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class ElementwiseTest : public ::testing::TestWithParam<DType> {};

const double kPi = 3.14159265358979323846;

double geluExact(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
}
double geluExactGrad(double x) {
  return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
         x * std::exp(-x * x / 2) / std::sqrt(2 * kPi);
}
double geluTanhGrad(double x) {
  double u = std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x);
  double t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * std::sqrt(2 / kPi) *
                             (1 + 3 * 0.044715 * x * x);
}

struct UnaryCase {
  const char *op;
  double (*f)(double);
  double lo, hi;
  bool tanhApprox;
};

const UnaryCase kUnaryCases[] = {
    {"train.neg", [](double x) { return -x; }, -3, 3, false},
    {"train.exp", [](double x) { return std::exp(x); }, -4, 4, false},
    {"train.log", [](double x) { return std::log(x); }, 0.05, 8, false},
    {"train.sqrt", [](double x) { return std::sqrt(x); }, 0, 9, false},
    {"train.rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.05, 9, false},
    {"train.tanh", [](double x) { return std::tanh(x); }, -3, 3, false},
    {"train.sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8,
     false},
    {"train.erf", [](double x) { return std::erf(x); }, -3, 3, false},
    {"train.relu", [](double x) { return x > 0 ? x : 0; }, -3, 3, false},
    {"train.gelu", geluExact, -4, 4, false},
    {"train.gelu", geluTanh, -4, 4, true},
};
} // namespace

TEST_P(ElementwiseTest, UnaryOps) {
  DType dtype = GetParam();
  unsigned seed = 1;
  for (const UnaryCase &c : kUnaryCases) {
    HostTensor x = randomTensor(dtype, {3, 17}, c.lo, c.hi, seed++);
    HostTensor y(dtype, x.shape);
    AttrMap attrs;
    if (c.tanhApprox)
      attrs["tanh_approx"] = intsAttr({1});
    ASSERT_OK(runKernel(c.op, attrs, {&x}, {&y}));
    Values want;
    for (double v : x.values())
      want.push_back(c.f(v));
    expectNear(y, want, elementwiseTolerance(dtype),
               std::string(c.op) + (c.tanhApprox ? " (tanh)" : ""));
  }
}

TEST(Elementwise, SpecialValues) {
  const double inf = HUGE_VAL, nan = std::nan("");
  HostTensor x = makeTensor(DType::F32, {5}, {-inf, -100, 0, 100, nan});
  auto run = [&](const char *op) {
    HostTensor y(DType::F32, {5});
    EXPECT_TRUE(runKernel(op, {}, {&x}, {&y}).isOk());
    return y;
  };
  expectNear(run("train.relu"), {0, 0, 0, 100, nan}, {0, 0}, "relu");
  // sigmoid saturates without producing NaN from inf / inf.
  expectNear(run("train.sigmoid"), {0, std::exp(-100.0), 0.5, 1, nan},
             {1e-6, 1e-40}, "sigmoid");
  expectNear(run("train.exp"), {0, std::exp(-100.0), 1, inf, nan},
             {1e-6, 1e-40}, "exp");
  expectNear(run("train.log"), {nan, nan, -inf, std::log(100.0), nan},
             {1e-7, 0}, "log");
  expectNear(run("train.tanh"), {-1, -1, 0, 1, nan}, {0, 0}, "tanh");
}

namespace {
struct BinaryCase {
  const char *op;
  double (*f)(double, double);
  double lo, hi;
};
const BinaryCase kBinaryCases[] = {
    {"train.add", [](double a, double b) { return a + b; }, -4, 4},
    {"train.sub", [](double a, double b) { return a - b; }, -4, 4},
    {"train.mul", [](double a, double b) { return a * b; }, -4, 4},
    {"train.div", [](double a, double b) { return a / b; }, 0.5, 4},
    {"train.maximum", [](double a, double b) { return std::max(a, b); }, -4, 4},
    {"train.minimum", [](double a, double b) { return std::min(a, b); }, -4, 4},
    {"train.pow", [](double a, double b) { return std::pow(a, b); }, 0.25, 3},
};
} // namespace

TEST_P(ElementwiseTest, BinaryOps) {
  DType dtype = GetParam();
  unsigned seed = 100;
  for (const BinaryCase &c : kBinaryCases) {
    HostTensor a = randomTensor(dtype, {4, 9}, c.lo, c.hi, seed++);
    HostTensor b = randomTensor(dtype, {4, 9}, c.lo, c.hi, seed++);
    HostTensor r(dtype, a.shape);
    ASSERT_OK(runKernel(c.op, {}, {&a, &b}, {&r}));
    Values want;
    for (int64_t i = 0; i < a.size(); ++i)
      want.push_back(c.f(a.at(i), b.at(i)));
    expectNear(r, want, elementwiseTolerance(dtype), c.op);
  }
}

TEST(Elementwise, MaximumMinimumPropagateNaNAndOrderZeros) {
  const double nan = std::nan("");
  HostTensor a = makeTensor(DType::F32, {4}, {nan, 1, -0.0, 0.0});
  HostTensor b = makeTensor(DType::F32, {4}, {1, nan, 0.0, -0.0});
  HostTensor mx(DType::F32, {4}), mn(DType::F32, {4});
  ASSERT_OK(runKernel("train.maximum", {}, {&a, &b}, {&mx}));
  ASSERT_OK(runKernel("train.minimum", {}, {&a, &b}, {&mn}));
  EXPECT_TRUE(std::isnan(mx.at(0)) && std::isnan(mx.at(1)));
  EXPECT_TRUE(std::isnan(mn.at(0)) && std::isnan(mn.at(1)));
  EXPECT_FALSE(std::signbit(mx.at(2)) || std::signbit(mx.at(3)));
  EXPECT_TRUE(std::signbit(mn.at(2)) && std::signbit(mn.at(3)));
}

TEST(Elementwise, IntegerArithmetic) {
  for (DType dtype : {DType::I32, DType::I64}) {
    int64_t max = dtype == DType::I32 ? INT32_MAX : INT64_MAX;
    int64_t min = dtype == DType::I32 ? INT32_MIN : INT64_MIN;
    HostTensor a(dtype, {5}), b(dtype, {5});
    int64_t as[] = {7, -7, max, min, 6}, bs[] = {2, 2, 1, -1, -4};
    for (int i = 0; i < 5; ++i) {
      storeInt(a.view(), i, as[i]);
      storeInt(b.view(), i, bs[i]);
    }
    auto run = [&](const char *op) {
      HostTensor r(dtype, {5});
      EXPECT_TRUE(runKernel(op, {}, {&a, &b}, {&r}).isOk()) << op;
      std::vector<int64_t> out;
      for (int i = 0; i < 5; ++i)
        out.push_back(loadInt(r.view(), i));
      return out;
    };
    // Overflow wraps (two's complement); division truncates toward zero.
    EXPECT_EQ(run("train.add"), (std::vector<int64_t>{9, -5, min, max, 2}));
    EXPECT_EQ(run("train.sub"),
              (std::vector<int64_t>{5, -9, max - 1, min + 1, 10}));
    EXPECT_EQ(run("train.mul"), (std::vector<int64_t>{14, -14, max, min, -24}));
    EXPECT_EQ(run("train.div"), (std::vector<int64_t>{3, -3, max, min, -1}));
    EXPECT_EQ(run("train.maximum"), (std::vector<int64_t>{7, 2, max, -1, 6}));
    EXPECT_EQ(run("train.minimum"), (std::vector<int64_t>{2, -7, 1, min, -4}));
    // Division by zero is a data error, not undefined behaviour.
    storeInt(b.view(), 2, 0);
    HostTensor r(dtype, {5});
    expectError(runKernel("train.div", {}, {&a, &b}, {&r}),
                StatusCode::InvalidArgument, "division by zero at element 2");
    // pow is float only.
    expectError(checkKernel("train.pow", {}, {&a, &b}, {&r}),
                StatusCode::Unimplemented, "train.pow");
  }
}

TEST_P(ElementwiseTest, CompareAndSelect) {
  DType dtype = GetParam();
  const double nan = std::nan("");
  HostTensor a = makeTensor(dtype, {4}, {1, 2, 3, nan});
  HostTensor b = makeTensor(dtype, {4}, {2, 2, 1, 1});
  const std::pair<const char *, std::vector<uint8_t>> cases[] = {
      {"eq", {0, 1, 0, 0}}, {"ne", {1, 0, 1, 1}}, {"lt", {1, 0, 0, 0}},
      {"le", {1, 1, 0, 0}}, {"gt", {0, 0, 1, 0}}, {"ge", {0, 1, 1, 0}}};
  for (const auto &[predicate, want] : cases) {
    HostTensor r(DType::I1, {4});
    ASSERT_OK(runKernel("train.compare", {{"predicate", stringAttr(predicate)}},
                        {&a, &b}, {&r}));
    EXPECT_EQ(r.bytes, want) << predicate;
  }
  HostTensor cond(DType::I1, {4});
  cond.bytes = {1, 0, 0, 1};
  HostTensor r(dtype, {4});
  ASSERT_OK(runKernel("train.select", {}, {&cond, &a, &b}, {&r}));
  expectNear(r, {1, 2, 1, nan}, {0, 0}, "select");
}

TEST(Elementwise, CompareAndSelectIntegers) {
  HostTensor a(DType::I64, {3}), b(DType::I64, {3});
  int64_t big = int64_t(1) << 60; // not exact in f32: compared as integers
  storeInt(a.view(), 0, big + 1);
  storeInt(b.view(), 0, big);
  storeInt(a.view(), 1, -3);
  storeInt(b.view(), 1, -3);
  storeInt(a.view(), 2, 5);
  storeInt(b.view(), 2, 6);
  HostTensor r(DType::I1, {3});
  ASSERT_OK(runKernel("train.compare", {{"predicate", stringAttr("gt")}},
                      {&a, &b}, {&r}));
  EXPECT_EQ(r.bytes, (std::vector<uint8_t>{1, 0, 0}));
  HostTensor picked(DType::I64, {3});
  ASSERT_OK(runKernel("train.select", {}, {&r, &a, &b}, {&picked}));
  EXPECT_EQ(loadInt(picked.view(), 0), big + 1);
  EXPECT_EQ(loadInt(picked.view(), 2), 6);
  HostTensor p(DType::I1, {3}), q(DType::I1, {3}), pr(DType::I1, {3});
  p.bytes = {1, 1, 0};
  q.bytes = {0, 0, 1};
  ASSERT_OK(runKernel("train.select", {}, {&r, &p, &q}, {&pr}));
  EXPECT_EQ(pr.bytes, (std::vector<uint8_t>{1, 0, 1}));
  expectError(checkKernel("train.compare", {{"predicate", stringAttr("gt")}},
                          {&a, &p}, {&r}),
              StatusCode::Unimplemented, "same dtype");
  expectError(checkKernel("train.compare", {{"predicate", stringAttr("xx")}},
                          {&a, &b}, {&r}),
              StatusCode::InvalidArgument, "predicate");
}

namespace {
struct GradCase {
  const char *op;
  double (*forward)(double); ///< maps x to the saved operand
  double (*derivative)(double x);
  bool tanhApprox;
};
const GradCase kGradCases[] = {
    {"train.relu_grad", [](double x) { return x; },
     [](double x) { return x > 0 ? 1.0 : 0.0; }, false},
    {"train.tanh_grad", [](double x) { return std::tanh(x); },
     [](double x) { return 1 - std::tanh(x) * std::tanh(x); }, false},
    {"train.sigmoid_grad", [](double x) { return 1 / (1 + std::exp(-x)); },
     [](double x) {
       double s = 1 / (1 + std::exp(-x));
       return s * (1 - s);
     },
     false},
    {"train.gelu_grad", [](double x) { return x; }, geluExactGrad, false},
    {"train.gelu_grad", [](double x) { return x; }, geluTanhGrad, true},
};
} // namespace

TEST_P(ElementwiseTest, ActivationGrads) {
  DType dtype = GetParam();
  unsigned seed = 200;
  for (const GradCase &c : kGradCases) {
    HostTensor x = randomTensor(DType::F32, {5, 7}, -3, 3, seed++);
    x.set(0, 0.0); // relu_grad at 0 is 0
    HostTensor saved(dtype, x.shape);
    for (int64_t i = 0; i < x.size(); ++i)
      saved.set(i, c.forward(x.at(i)));
    HostTensor grad = randomTensor(dtype, x.shape, -2, 2, seed++);
    HostTensor r(dtype, x.shape);
    AttrMap attrs;
    if (c.tanhApprox)
      attrs["tanh_approx"] = intsAttr({1});
    ASSERT_OK(runKernel(c.op, attrs, {&grad, &saved}, {&r}));
    Values want;
    for (int64_t i = 0; i < x.size(); ++i) {
      // The kernel sees the saved tensor rounded to dtype: the reference
      // does too (y for tanh/sigmoid, x for relu/gelu).
      double s = saved.at(i);
      double d;
      if (std::string(c.op) == "train.tanh_grad")
        d = 1 - s * s;
      else if (std::string(c.op) == "train.sigmoid_grad")
        d = s * (1 - s);
      else
        d = c.derivative(s);
      want.push_back(grad.at(i) * d);
    }
    // tanh_grad and sigmoid_grad cancel in 1 - y^2 and 1 - y: a few f32
    // ulps of y become a larger relative error of a small result.
    Tolerance tol = elementwiseTolerance(dtype);
    tol.atol = 1e-5;
    expectNear(r, want, tol,
               std::string(c.op) + (c.tanhApprox ? " (tanh)" : ""));
  }
}

TEST(Elementwise, ReluGradKeepsNonFiniteGradients) {
  // grad * (x > 0) as a product: an overflowed gradient stays visible.
  HostTensor g = makeTensor(DType::F32, {2}, {HUGE_VAL, std::nan("")});
  HostTensor x = makeTensor(DType::F32, {2}, {-1, -1});
  HostTensor r(DType::F32, {2});
  ASSERT_OK(runKernel("train.relu_grad", {}, {&g, &x}, {&r}));
  EXPECT_TRUE(std::isnan(r.at(0)) && std::isnan(r.at(1)));
}

TEST(Elementwise, GeluGradMatchesFiniteDifferences) {
  for (bool tanhApprox : {false, true}) {
    AttrMap attrs;
    if (tanhApprox)
      attrs["tanh_approx"] = intsAttr({1});
    HostTensor x = randomTensor(DType::F32, {2, 8}, -3, 3, 5);
    HostTensor w = randomTensor(DType::F32, x.shape, -1, 1, 6);
    auto loss = [&] {
      HostTensor y(DType::F32, x.shape);
      EXPECT_TRUE(runKernel("train.gelu", attrs, {&x}, {&y}).isOk());
      return dot(y, w);
    };
    Values numeric = numericGradient(x, loss, 1e-2);
    HostTensor analytic(DType::F32, x.shape);
    ASSERT_OK(runKernel("train.gelu_grad", attrs, {&w, &x}, {&analytic}));
    expectNear(analytic, numeric, finiteDifferenceTolerance(),
               tanhApprox ? "gelu_grad (tanh)" : "gelu_grad");
  }
}

TEST_P(ElementwiseTest, BiasAdd) {
  DType dtype = GetParam();
  HostTensor x = randomTensor(dtype, {2, 3, 4}, -2, 2, 300);
  for (int64_t dim : {-1, 1, -3}) {
    int64_t d = dim < 0 ? dim + 3 : dim;
    HostTensor bias = randomTensor(dtype, {x.shape[d]}, -1, 1, 301 + d);
    HostTensor r(dtype, x.shape);
    ASSERT_OK(runKernel("train.bias_add", {{"dim", intsAttr({dim})}},
                        {&x, &bias}, {&r}));
    Values want;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 4; ++k) {
          int64_t idx[] = {i, j, k};
          want.push_back(x.at((i * 3 + j) * 4 + k) + bias.at(idx[d]));
        }
    expectNear(r, want, elementwiseTolerance(dtype),
               "bias_add dim " + std::to_string(dim));
  }
  HostTensor bad(dtype, {5}), r(dtype, x.shape);
  expectError(checkKernel("train.bias_add", {{"dim", intsAttr({-1})}},
                          {&x, &bad}, {&r}),
              StatusCode::InvalidArgument, "bias of shape [4]");
}

INSTANTIATE_TEST_SUITE_P(DTypes, ElementwiseTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
