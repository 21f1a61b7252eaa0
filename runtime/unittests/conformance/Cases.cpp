//===- Cases.cpp - the conformance table ----------------------------------===//
//
// Every op plans run has rows here (ConformanceTest's coverage test fails
// otherwise). Shapes avoid multiples of vector and tile widths so that edge
// handling runs; one empty form per family checks that nothing is read or
// written out of bounds. Agreement classes and their tolerances:
// Conformance.h and docs/runtime.md ("Conformance").
//
//===----------------------------------------------------------------------===//
#include "Builders.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;
using namespace mp::rt::conformance;

Attr conformance::ints(std::vector<int64_t> values) {
  Attr a;
  a.ints = std::move(values);
  return a;
}
Attr conformance::floats(std::vector<double> values) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = std::move(values);
  return a;
}
Attr conformance::str(std::string value) {
  Attr a;
  a.kind = Attr::Kind::String;
  a.str = std::move(value);
  return a;
}

namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

Case unary(const char *name, Oracle oracle, double ulps,
           std::map<std::string, Attr> attrs = {}) {
  Case c;
  c.name = name;
  c.op = std::string("train.") + name;
  c.attrs = std::move(attrs);
  c.inputs = {data({7, 37}, -4, 4)};
  c.outputs = {data({7, 37})};
  c.agreement = ulps == 0 ? Agreement::Exact : Agreement::Ulps;
  c.ulps = ulps;
  c.oracle = oracle;
  return c;
}

Case binary(const char *name, Oracle oracle, double ulps = 0) {
  Case c;
  c.name = name;
  c.op = std::string("train.") + name;
  c.inputs = {data({5, 41}, -2, 2), data({5, 41}, -2, 2)};
  c.outputs = {data({5, 41})};
  c.agreement = ulps == 0 ? Agreement::Exact : Agreement::Ulps;
  c.ulps = ulps;
  c.oracle = oracle;
  return c;
}

/// (upstream gradient, saved forward tensor) -> gradient.
Case activationGrad(const char *name, Oracle oracle, double ulps,
                    std::map<std::string, Attr> attrs = {}) {
  Case c = binary(name, oracle, ulps);
  c.attrs = std::move(attrs);
  c.inputs = {data({5, 41}, -2, 2), data({5, 41}, -3, 3)};
  return c;
}

std::vector<Case> build() {
  std::vector<Case> t;
  // Elementwise: the f32 rules of common/ElementMath.h. The cpu backend's
  // exp/tanh/erf/sigmoid/gelu run on vector math (a few f32 units apart).
  t.push_back(unary("neg", [](auto &x) { return -x[0]; }, 0));
  t.push_back(unary("abs", [](auto &x) { return std::fabs(x[0]); }, 0));
  t.push_back(unary("sign", [](auto &x) {
    return x[0] > 0 ? 1.0 : (x[0] < 0 ? -1.0 : x[0] * 0.0);
  }, 0));
  t.push_back(unary("exp", [](auto &x) { return std::exp(x[0]); }, 4));
  t.push_back(unary("log", [](auto &x) { return std::log(x[0]); }, 4));
  t.push_back(unary("sqrt", [](auto &x) { return std::sqrt(x[0]); }, 0));
  t.push_back(unary("rsqrt", [](auto &x) { return 1 / std::sqrt(x[0]); }, 2));
  t.push_back(unary("tanh", [](auto &x) { return std::tanh(x[0]); }, 4));
  t.push_back(unary("sigmoid", [](auto &x) { return sigmoid(x[0]); }, 4));
  t.push_back(unary("erf", [](auto &x) { return std::erf(x[0]); }, 4));
  t.push_back(unary("relu", [](auto &x) { return x[0] < 0 ? 0.0 : x[0]; }, 0));
  t.push_back(unary("silu", [](auto &x) { return x[0] * sigmoid(x[0]); }, 4));
  t.push_back(unary("hardswish", [](auto &x) {
    return x[0] * std::min(std::max(x[0] + 3, 0.0), 6.0) / 6;
  }, 2));
  t.push_back(unary("leaky_relu", [](auto &x) {
    return x[0] > 0 ? x[0] : 0.2 * x[0];
  }, 2, {{"negative_slope", floats({0.2})}}));
  t.push_back(unary("elu", [](auto &x) {
    return x[0] > 0 ? x[0] : 1.5 * std::expm1(x[0]);
  }, 4, {{"alpha", floats({1.5})}}));
  {
    // 1 + erf(x / sqrt 2) cancels for x < -2: an f32 unit of erf is a
    // large relative error of the result there (as in PyTorch's f32 gelu).
    Case c = unary("gelu", [](auto &x) {
      return 0.5 * x[0] * (1 + std::erf(x[0] / std::sqrt(2.0)));
    }, 6);
    c.absolute = 4;
    t.push_back(c);
    c = unary("gelu", [](auto &x) {
      double u = std::sqrt(2 / M_PI) * (x[0] + 0.044715 * x[0] * x[0] * x[0]);
      return 0.5 * x[0] * (1 + std::tanh(u));
    }, 6, {{"tanh_approx", ints({1})}});
    c.name = "gelu_tanh";
    c.absolute = 4;
    t.push_back(c);
  }
  {
    Case c = unary("neg", nullptr, 0);
    c.name = "neg_empty";
    c.inputs = {data({0, 37})};
    c.outputs = {data({0, 37})};
    t.push_back(c);
  }
  t.push_back(binary("add", [](auto &x) { return x[0] + x[1]; }));
  t.push_back(binary("sub", [](auto &x) { return x[0] - x[1]; }));
  t.push_back(binary("mul", [](auto &x) { return x[0] * x[1]; }));
  t.push_back(binary("div", [](auto &x) { return x[0] / x[1]; }));
  t.push_back(binary("maximum", [](auto &x) {
    return std::isnan(x[0]) || std::isnan(x[1]) ? NAN : std::max(x[0], x[1]);
  }));
  t.push_back(binary("minimum", [](auto &x) {
    return std::isnan(x[0]) || std::isnan(x[1]) ? NAN : std::min(x[0], x[1]);
  }));
  {
    Case c = binary("pow", [](auto &x) { return std::pow(x[0], x[1]); }, 4);
    c.inputs = {data({5, 41}, 0.1, 3), data({5, 41}, -2, 2)};
    t.push_back(c);
  }
  for (const char *p : {"eq", "ne", "lt", "le", "gt", "ge"})
    t.push_back(make(std::string("compare_") + p, "train.compare",
                     {plain({3, 29}, -1, 1), plain({3, 29}, -1, 1)},
                     {pred({3, 29})}, {{"predicate", str(p)}}));
  t.push_back(make("select", "train.select",
                   {pred({4, 23}), data({4, 23}), data({4, 23})},
                   {data({4, 23})}));
  // A conjunction of masks (Keras' ReLU6 gradient): i1 data.
  t.push_back(make("select_i1", "train.select",
                   {pred({4, 23}), pred({4, 23}), pred({4, 23})},
                   {pred({4, 23})}));
  t.push_back(activationGrad("relu_grad", [](auto &x) {
    return x[0] * (x[1] > 0 ? 1.0 : 0.0);
  }, 0));
  // y * y overflows f32 for |y| > 1.8e19 where the float64 result need
  // not: the oracle skips those elements (the backends must still agree).
  for (const char *name : {"tanh_grad", "sigmoid_grad"}) {
    Case c = activationGrad(name, nullptr, 2);
    c.oracle = std::string(name) == "tanh_grad"
                   ? Oracle([](auto &x) { return x[0] * (1 - x[1] * x[1]); })
                   : Oracle([](auto &x) { return x[0] * x[1] * (1 - x[1]); });
    c.oracleMaxOperand = 1e18;
    c.absolute = 4; // 1 - y * y cancels near |y| = 1
    t.push_back(c);
  }
  {
    Case c = activationGrad("silu_grad", [](auto &x) {
      double s = sigmoid(x[1]);
      return x[0] * s * (1 + x[1] * (1 - s));
    }, 6);
    c.absolute = 4; // 1 + x (1 - s) cancels near x = -1.3
    t.push_back(c);
    c = activationGrad("hardswish_grad", [](auto &x) {
      return x[1] < -3 ? 0.0 : x[1] <= 3 ? x[0] * (x[1] / 3 + 0.5) : x[0];
    }, 2);
    c.absolute = 2; // x / 3 + 1/2 cancels near x = -1.5
    t.push_back(c);
    t.push_back(activationGrad("leaky_relu_grad", [](auto &x) {
      return x[1] > 0 ? x[0] : x[0] * 0.2;
    }, 2, {{"negative_slope", floats({0.2})}}));
    t.push_back(activationGrad("elu_grad", [](auto &x) {
      return x[1] > 0 ? x[0] : x[0] * 1.5 * std::exp(x[1]);
    }, 4, {{"alpha", floats({1.5})}}));
    c = activationGrad("gelu_grad", nullptr, 8);
    c.absolute = 4;
    t.push_back(c);
  }
  t.push_back(make("bias_add", "train.bias_add", {data({6, 5, 7}), data({5})},
                   {data({6, 5, 7})}, {{"dim", ints({1})}}));

  // Casts and loss scaling.
  for (DType to : {DType::F32, DType::BF16, DType::F16}) {
    Case c = make(std::string("cast_to_") + dtypeName(to), "mp.cast",
                  {data({9, 31}, -70000, 70000)}, {data({9, 31})});
    c.outputs[0].role = to == DType::F32 ? Role::F32 : Role::Data;
    // The result's dtype is `to`: the row runs from each dtype into it.
    c.name += "";
    c.attrs = {};
    t.push_back(c);
  }
  t.push_back(make("scale", "mp.scale", {data({3, 17}), f32({}, 1024, 1024)},
                   {data({3, 17})}));
  t.push_back(make("unscale_and_check", "mp.unscale_and_check",
                   {f32({}, 512, 512), data({3, 17}), data({19})},
                   {data({3, 17}), data({19}), pred({})}));
  t.push_back(make("all_finite", "mp.all_finite", {data({3, 17}), data({5})},
                   {pred({})}));
  {
    Case c = make("all_finite_clean", "mp.all_finite",
                  {plain({3, 17}), plain({5})}, {pred({})});
    t.push_back(c);
  }
  t.push_back(make("state_select", "mp.select",
                   {pred({}), data({4, 3}), f32({5}), data({4, 3}), f32({5})},
                   {data({4, 3}), f32({5})}));
  for (int64_t count : {0, 3}) {
    Case c = make("update_scale_" + std::to_string(count), "mp.update_scale",
                  {f32({}, 65536, 65536), counter(count), pred({})},
                  {f32({}), counter(0)}, {{"growth_interval", ints({4})}});
    c.dtypes = {kF32};
    t.push_back(c);
  }

  // Contractions: f32 accumulation in every dtype.
  t.push_back(make("matmul", "train.matmul", {data({13, 37}), data({37, 19})},
                   {data({13, 19})}, {}, kSum, 2));
  t.push_back(make("matmul_f32_result", "train.matmul",
                   {data({13, 37}), data({37, 19})}, {f32({13, 19})}, {}, kSum,
                   2));
  t.push_back(make("matmul_transposed_batched", "train.matmul",
                   {data({3, 37, 13}), data({3, 19, 37})}, {data({3, 13, 19})},
                   {{"transpose_lhs", ints({1})}, {"transpose_rhs", ints({1})}},
                   kSum, 2));
  t.push_back(make("matmul_empty_k", "train.matmul",
                   {data({13, 0}), data({0, 19})}, {data({13, 19})}, {}, kSum,
                   2));
  t.push_back(make("matmul_epilogue", "mp.matmul_epilogue",
                   {data({13, 37}), data({37, 19}), data({19})},
                   {data({13, 19})}, {{"activation", str("relu")}}, kSum, 2));
  t.push_back(make("conv2d_nchw", "train.conv2d",
                   {data({2, 3, 9, 11}), data({5, 3, 3, 3})},
                   {data({2, 5, 5, 6})},
                   {{"layout", str("NCHW")}, {"strides", ints({2, 2})},
                    {"padding", ints({1, 1, 1, 1})}},
                   kSum, 2));
  t.push_back(make("conv2d_nhwc", "train.conv2d",
                   {data({2, 9, 11, 3}), data({3, 3, 3, 5})},
                   {data({2, 7, 9, 5})}, {{"layout", str("NHWC")}}, kSum, 2));
  t.push_back(make("conv2d_backward_data", "train.conv2d_backward_data",
                   {data({2, 5, 5, 6}), data({5, 3, 3, 3})},
                   {data({2, 3, 9, 11})},
                   {{"layout", str("NCHW")}, {"strides", ints({2, 2})},
                    {"padding", ints({1, 1, 1, 1})}},
                   kSum, 2));
  t.push_back(make("conv2d_backward_filter", "train.conv2d_backward_filter",
                   {data({2, 3, 9, 11}), data({2, 5, 5, 6})},
                   {data({5, 3, 3, 3})},
                   {{"layout", str("NCHW")}, {"strides", ints({2, 2})},
                    {"padding", ints({1, 1, 1, 1})}},
                   kSum, 2));

  // Normalization, softmax, losses, reductions: f32 or wider statistics.
  t.push_back(make("batch_norm", "train.batch_norm",
                   {data({4, 3, 5, 7}), f32({3}), f32({3}), f32({3}),
                    f32({3}, 0.5, 2)},
                   {data({4, 3, 5, 7}), f32({3}), f32({3}), f32({3}), f32({3})},
                   {}, kSum, 4));
  t.push_back(make("batch_norm_grad", "train.batch_norm_grad",
                   {data({4, 3, 5, 7}), data({4, 3, 5, 7}), f32({3}), f32({3}),
                    f32({3}, 0.5, 2)},
                   {data({4, 3, 5, 7}), f32({3}), f32({3})}, {}, kSum, 4));
  t.push_back(make("layer_norm", "train.layer_norm",
                   {data({6, 45}), f32({45}), f32({45})},
                   {data({6, 45}), f32({6}), f32({6})}, {}, kSum, 4));
  t.push_back(make("layer_norm_grad", "train.layer_norm_grad",
                   {data({6, 45}), data({6, 45}), f32({45}), f32({6}),
                    f32({6}, 0.5, 2)},
                   {data({6, 45}), f32({45}), f32({45})}, {}, kSum, 4));
  for (const char *op : {"softmax", "log_softmax"}) {
    t.push_back(make(op, std::string("train.") + op, {data({5, 33}, -8, 8)},
                     {data({5, 33})}, {}, kSum, 4));
    t.push_back(make(std::string(op) + "_grad",
                     std::string("train.") + op + "_grad",
                     {data({5, 33}), data({5, 33}, 0.01, 1)}, {data({5, 33})},
                     {}, kSum, 4));
  }
  t.push_back(make("softmax_axis0", "train.softmax", {data({5, 33}, -8, 8)},
                   {data({5, 33})}, {{"axis", ints({0})}}, kSum, 4));
  t.push_back(make("sparse_cross_entropy", "train.sparse_cross_entropy",
                   {data({9, 21}, -6, 6), index({9}, 21)}, {f32({})}, {}, kSum,
                   4));
  t.push_back(make("sparse_cross_entropy_grad",
                   "train.sparse_cross_entropy_grad",
                   {data({9, 21}, -6, 6), index({9}, 21), f32({}, 1, 1)},
                   {data({9, 21})}, {}, kSum, 4));
  for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max"}) {
    Agreement a = std::string(op) == "reduce_max" ? Agreement::Exact : kSum;
    // Sums may widen into an f32 result; a maximum keeps the dtype.
    Operand rows = a == kSum ? f32({7}) : data({7});
    t.push_back(make(std::string(op) + "_rows", std::string("train.") + op,
                     {data({7, 53})}, {rows}, {{"dims", ints({1})}}, a, 2));
    t.push_back(make(std::string(op) + "_leading", std::string("train.") + op,
                     {data({53, 7})}, {data({1, 7})},
                     {{"dims", ints({0})}, {"keep_dims", ints({1})}}, a, 2));
  }

  // Pooling.
  std::map<std::string, Attr> window = {{"layout", str("NCHW")},
                                        {"kernel", ints({3, 3})},
                                        {"strides", ints({2, 2})},
                                        {"padding", ints({1, 1, 1, 1})}};
  t.push_back(make("max_pool2d", "train.max_pool2d", {data({2, 3, 9, 11})},
                   {data({2, 3, 5, 6})}, window));
  t.push_back(make("max_pool2d_grad", "train.max_pool2d_grad",
                   {data({2, 3, 5, 6}), data({2, 3, 9, 11})},
                   {data({2, 3, 9, 11})}, window, kSum, 2));
  t.push_back(make("avg_pool2d", "train.avg_pool2d", {data({2, 3, 9, 11})},
                   {data({2, 3, 5, 6})}, window, kSum, 2));
  t.push_back(make("avg_pool2d_grad", "train.avg_pool2d_grad",
                   {data({2, 3, 5, 6})}, {data({2, 3, 9, 11})}, window, kSum,
                   2));
  t.push_back(make("global_avg_pool2d", "train.global_avg_pool2d",
                   {data({2, 5, 6, 7})}, {data({2, 5})},
                   {{"layout", str("NCHW")}}, kSum, 2));
  t.push_back(make("global_avg_pool2d_grad", "train.global_avg_pool2d_grad",
                   {data({2, 5})}, {data({2, 5, 6, 7})},
                   {{"layout", str("NCHW")}}, kSum, 2));

  // Embedding.
  t.push_back(make("embedding", "train.embedding",
                   {data({11, 6}), index({4, 5}, 11)}, {data({4, 5, 6})}));
  t.push_back(make("embedding_grad", "train.embedding_grad",
                   {data({4, 5, 6}), index({4, 5}, 11)}, {f32({11, 6})}, {},
                   kSum, 2));

  // Shapes and moves: bitwise.
  t.push_back(make("reshape", "train.reshape", {data({6, 10})},
                   {data({3, 4, 5})}));
  t.push_back(make("transpose", "train.transpose", {data({3, 4, 5})},
                   {data({5, 3, 4})}, {{"permutation", ints({2, 0, 1})}}));
  t.push_back(make("broadcast", "train.broadcast", {data({4, 1})},
                   {data({3, 4, 6})}, {{"dims", ints({1, 2})}}));
  t.push_back(make("slice", "train.slice", {data({7, 9})}, {data({3, 4})},
                   {{"offsets", ints({1, 2})}, {"strides", ints({2, 2})}}));
  t.push_back(make("concat", "train.concat", {data({2, 5}), data({3, 5})},
                   {data({5, 5})}, {{"dim", ints({0})}}));
  t.push_back(make("fill", "train.fill", {}, {data({3, 7})},
                   {{"value", floats({0.1})}}));
  t.push_back(make("grad_seed", "train.grad_seed", {f32({}, 0.5, 0.5)},
                   {f32({})}));

  // Optimizers: f32 master weights and state.
  for (const char *op : {"sgd", "sgd_momentum", "adam", "adamw"}) {
    std::string name = op;
    std::map<std::string, Attr> attrs = {{"lr", floats({0.01})},
                                         {"weight_decay", floats({0.001})}};
    std::vector<Operand> in = {f32({7, 13}), f32({7, 13}, -1, 1, true)};
    std::vector<Operand> out = {f32({7, 13})};
    if (name == "sgd_momentum") {
      attrs["momentum"] = floats({0.9});
      attrs["nesterov"] = ints({1});
      in.push_back(f32({7, 13}));
      out.push_back(f32({7, 13}));
    } else if (name != "sgd") {
      in.push_back(f32({7, 13}));
      in.push_back(f32({7, 13}, 0, 1));
      in.push_back(f32({}, 3, 3));
      out.push_back(f32({7, 13}));
      out.push_back(f32({7, 13}));
    }
    Case c = make(name, "train." + name, in, out, attrs, Agreement::Ulps, 2);
    c.dtypes = {kF32};
    t.push_back(c);
    // The learning rate as an operand (train.lr_schedule's result).
    attrs.erase("lr");
    in.push_back(f32({}, 0.01, 0.01));
    c = make(name + "_lr_operand", "train." + name, in, out, attrs,
             Agreement::Ulps, 2);
    c.dtypes = {kF32};
    t.push_back(c);
  }

  // State that changes per step.
  {
    Case c = make("lr_schedule_warmup", "train.lr_schedule", {counter(3)},
                  {f32({})},
                  {{"base_lr", floats({0.003})},
                   {"warmup_steps", ints({10})},
                   {"warmup_start_factor", floats({0.1})},
                   {"warmup", str("cosine")}},
                  Agreement::Ulps, 1);
    c.dtypes = {kF32};
    t.push_back(c);
    c = make("lr_schedule_cosine", "train.lr_schedule", {counter(17, true)},
             {f32({})},
             {{"base_lr", floats({0.003})},
              {"warmup_steps", ints({5})},
              {"decay", str("cosine")},
              {"decay_steps", ints({40})},
              {"end_factor", floats({0.05})}},
             Agreement::Ulps, 1);
    c.dtypes = {kF32};
    t.push_back(c);
    c = make("lr_schedule_step", "train.lr_schedule", {counter(25)},
             {f32({})},
             {{"base_lr", floats({0.1})},
              {"decay", str("step")},
              {"decay_steps", ints({10})},
              {"gamma", floats({0.5})}},
             Agreement::Ulps, 1);
    c.dtypes = {kF32};
    t.push_back(c);
  }
  t.push_back(make("clip_grad_norm", "train.clip_grad_norm",
                   {data({7, 13}), data({29})},
                   {data({7, 13}), data({29}), f32({})},
                   {{"max_norm", floats({0.5})}}, kSum, 2));
  t.push_back(make("clip_grad_norm_l1_unclipped", "train.clip_grad_norm",
                   {data({7, 13}, -0.01, 0.01)},
                   {data({7, 13}), f32({})},
                   {{"max_norm", floats({100})}, {"norm_type", floats({1})}},
                   kSum, 2));
  t.push_back(make("clip_grad_norm_inf", "train.clip_grad_norm",
                   {data({7, 13}), data({5})}, {data({7, 13}), data({5}),
                   f32({})},
                   {{"max_norm", floats({0.25})},
                    {"norm_type", floats({INFINITY})}},
                   kSum, 2));
  t.push_back(make("clip_grad_value", "train.clip_grad_value",
                   {data({7, 13}, -2, 2), data({29}, -2, 2)},
                   {data({7, 13}), data({29})},
                   {{"clip_value", floats({0.5})}}));
  // rms_norm over the last 37 (and the last two) dimensions: statistics and
  // the scale stay f32.
  t.push_back(make("rms_norm", "train.rms_norm", {data({5, 37}, -2, 2),
                   f32({37}, 0.5, 1.5)}, {data({5, 37}), f32({5})}, {}, kSum,
                   2));
  t.push_back(make("rms_norm_axis1", "train.rms_norm",
                   {data({3, 4, 9}, -2, 2), f32({4, 9}, 0.5, 1.5)},
                   {data({3, 4, 9}), f32({3})}, {{"axis", ints({1})}}, kSum,
                   2));
  t.push_back(make("rms_norm_grad", "train.rms_norm_grad",
                   {data({5, 37}), data({5, 37}, -2, 2), f32({37}, 0.5, 1.5),
                    f32({5}, 0.5, 2)},
                   {data({5, 37}), f32({37})}, {}, kSum, 2));
  // group_norm: 6 channels in 3 groups, channels second and channels last.
  t.push_back(make("group_norm_nchw", "train.group_norm",
                   {data({2, 6, 5, 3}, -2, 2), f32({6}, 0.5, 1.5), f32({6})},
                   {data({2, 6, 5, 3}), f32({2, 3}), f32({2, 3})},
                   {{"groups", ints({3})}}, kSum, 4));
  t.push_back(make("group_norm_nhwc", "train.group_norm",
                   {data({2, 5, 3, 6}, -2, 2), f32({6}, 0.5, 1.5), f32({6})},
                   {data({2, 5, 3, 6}), f32({2, 3}), f32({2, 3})},
                   {{"groups", ints({3})}, {"feature_dim", ints({3})}}, kSum,
                   4));
  t.push_back(make("group_norm_grad", "train.group_norm_grad",
                   {data({2, 6, 5, 3}), data({2, 6, 5, 3}, -2, 2),
                    f32({6}, 0.5, 1.5), f32({2, 3}, -0.5, 0.5),
                    f32({2, 3}, 0.5, 2)},
                   {data({2, 6, 5, 3}), f32({6}), f32({6})},
                   {{"groups", ints({3})}}, kSum, 4));
  // attention (the compiler decomposes it; its reference loops are the
  // definition): causal, an i1 mask, a broadcast float mask, the gradient.
  {
    std::map<std::string, Attr> causal = {{"causal", ints({1})}};
    Operand q = data({2, 5, 7}), k = plain({2, 6, 7}), v = plain({2, 6, 3});
    t.push_back(make("attention_causal", "train.attention", {q, k, v},
                     {data({2, 5, 3})}, causal, kSum, 4));
    t.push_back(make("attention_bool_mask", "train.attention",
                     {q, k, v, pred({5, 6})}, {data({2, 5, 3})}, causal, kSum,
                     4));
    t.push_back(make("attention_float_mask", "train.attention",
                     {q, k, v, f32({2, 1, 6}, -2, 0)}, {data({2, 5, 3})},
                     {{"scale", floats({0.3})}}, kSum, 4));
    t.push_back(make("attention_grad", "train.attention_grad",
                     {data({2, 5, 3}), plain({2, 5, 7}), k, v},
                     {data({2, 5, 7}), data({2, 6, 7}), data({2, 6, 3})},
                     causal, kSum, 4));
  }
  // LSTM and GRU cells on [3, 5] states (gates [3, 20] / [3, 15]).
  t.push_back(make("lstm_cell", "train.lstm_cell",
                   {data({3, 20}, -3, 3), data({3, 5}, -2, 2)},
                   {data({3, 5}), data({3, 5})}, {}, Agreement::Ulps, 4));
  t.push_back(make("lstm_cell_grad", "train.lstm_cell_grad",
                   {data({3, 5}), data({3, 5}), plain({3, 20}, -3, 3),
                    plain({3, 5}, -2, 2), plain({3, 5}, -2, 2)},
                   {data({3, 20}), data({3, 5})}, {}, Agreement::Ulps, 8));
  for (const char *order : {"rzn", "zrn"}) {
    std::map<std::string, Attr> attrs = {{"order", str(order)}};
    t.push_back(make(std::string("gru_cell_") + order, "train.gru_cell",
                     {data({3, 15}, -3, 3), data({3, 15}, -3, 3),
                      data({3, 5})},
                     {data({3, 5})}, attrs, Agreement::Ulps, 4));
    t.push_back(make(std::string("gru_cell_grad_") + order,
                     "train.gru_cell_grad",
                     {data({3, 5}), plain({3, 15}, -3, 3),
                      plain({3, 15}, -3, 3), plain({3, 5})},
                     {data({3, 15}), data({3, 15}), data({3, 5})}, attrs,
                     Agreement::Ulps, 8));
  }
  t.push_back(make("logsumexp", "train.logsumexp", {data({7, 13}, -8, 8)},
                   {f32({7})}, {{"dims", ints({1})}}, kSum, 4));
  t.push_back(make("logsumexp_dims02_keep", "train.logsumexp",
                   {data({3, 5, 4}, -8, 8)}, {data({1, 5, 1})},
                   {{"dims", ints({0, 2})}, {"keep_dims", ints({1})}}, kSum,
                   4));
  {
    Case c = make("argmax", "train.argmax", {data({7, 13})}, {index({7}, 13)},
                  {{"dim", ints({1})}});
    t.push_back(c);
    c = make("argmax_dim0_keep", "train.argmax", {data({5, 3, 4})},
             {index({1, 3, 4}, 5)}, {{"dim", ints({0})}, {"keep_dims", ints({1})}});
    t.push_back(c);
  }
  t.push_back(make("pad", "train.pad", {data({3, 5})}, {data({4, 8})},
                   {{"low", ints({1, 2})}, {"high", ints({0, 1})},
                    {"value", floats({-0.5})}}));
  // Rows of the constant before, between and after x's along every
  // dimension.
  t.push_back(make("pad_3d", "train.pad", {data({2, 3, 4})},
                   {data({3, 4, 7})},
                   {{"low", ints({0, 1, 2})}, {"high", ints({1, 0, 1})},
                    {"value", floats({0.1})}}));
  t.push_back(make("one_hot", "train.one_hot", {index({4, 3}, 6)},
                   {data({4, 3, 6})}));
  t.push_back(make("gradient", "train.gradient", {data({7, 13})},
                   {data({7, 13})}));
  for (const char *op : {"dropout", "dropout_grad"})
    t.push_back(make(op, std::string("train.") + op,
                     {data({7, 37}), counter(0x1234567890ll), counter(3)},
                     {data({7, 37})},
                     {{"p", floats({0.3})}, {"site", ints({2})}}));
  addVariants(t);
  addIntegerRows(t);
  return t;
}

} // namespace

const std::vector<Case> &conformance::cases() {
  static const std::vector<Case> table = build();
  return table;
}
