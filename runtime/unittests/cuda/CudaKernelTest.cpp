//===- CudaKernelTest.cpp - every cuda kernel against the reference -------===//
//
// Each op the cuda backend runs, in f32, bf16 and f16 (and the integer
// dtypes where the op takes them), on shapes with no dimension a multiple
// of a warp or a tile, compared with the reference backend on the same
// inputs (CudaTestSupport.cpp has the tolerances: one unit in the last
// place of a 16-bit result, a few f32 ulps plus 1e-5 of the largest value
// for f32 results, for sums taken in another order). Skipped, with the
// reason, where no GPU can run the backend; the coverage tests run anyway.
//
//===----------------------------------------------------------------------===//
#include "CudaTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

const DType kFloats[] = {DType::F32, DType::BF16, DType::F16};

/// Result dtypes of an op that may accumulate into f32.
std::vector<DType> widening(DType d) {
  return d == DType::F32 ? std::vector<DType>{d}
                         : std::vector<DType>{d, DType::F32};
}

std::string nameOf(const std::string &op, DType dtype,
                   const std::string &suffix = "") {
  return op + "/" + dtypeName(dtype) + (suffix.empty() ? "" : "/" + suffix);
}

Attr ints(std::vector<int64_t> v) {
  Attr a;
  a.kind = Attr::Kind::Ints;
  a.ints = std::move(v);
  return a;
}
Attr floats(std::vector<double> v) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = std::move(v);
  return a;
}
Attr str(std::string s) {
  Attr a;
  a.kind = Attr::Kind::String;
  a.str = std::move(s);
  return a;
}

using Cases = std::vector<Case>;

Cases elementwiseCases() {
  Cases cases;
  const std::vector<int64_t> shape = {5, 37};
  struct Unary {
    const char *op;
    double lo, hi;
  };
  const Unary unaries[] = {
      {"train.neg", -2, 2},     {"train.exp", -4, 4},
      {"train.log", 0.05, 4},   {"train.sqrt", 0, 4},
      {"train.rsqrt", 0.05, 4}, {"train.tanh", -3, 3},
      {"train.sigmoid", -6, 6}, {"train.erf", -2, 2},
      {"train.relu", -2, 2},    {"train.gelu", -3, 3},
      {"train.silu", -6, 6},    {"train.hardswish", -5, 5},
      {"train.leaky_relu", -2, 2}, {"train.elu", -3, 3},
      {"train.abs", -2, 2},     {"train.sign", -2, 2},
      {"train.gradient", -2, 2},
  };
  uint32_t seed = 1;
  for (DType d : kFloats) {
    for (const Unary &u : unaries)
      cases.push_back({nameOf(u.op, d),
                       u.op,
                       {},
                       {uniform(d, shape, seed++, u.lo, u.hi)},
                       {{d, shape}}});
    cases.push_back({nameOf("train.gelu", d, "tanh"),
                     "train.gelu",
                     {{"tanh_approx", ints({1})}},
                     {uniform(d, shape, seed++, -3, 3)},
                     {{d, shape}}});
    cases.push_back({nameOf("train.leaky_relu", d, "slope"),
                     "train.leaky_relu",
                     {{"negative_slope", floats({0.2})}},
                     {uniform(d, shape, seed++, -2, 2)},
                     {{d, shape}}});
    cases.push_back({nameOf("train.elu_grad", d, "alpha"),
                     "train.elu_grad",
                     {{"alpha", floats({1.5})}},
                     {uniform(d, shape, seed++, -2, 2),
                      uniform(d, shape, seed++, -3, 3)},
                     {{d, shape}}});
    for (const char *op : {"train.add", "train.sub", "train.mul", "train.div",
                           "train.maximum", "train.minimum", "train.pow"}) {
      bool positive =
          std::string(op) == "train.pow" || std::string(op) == "train.div";
      cases.push_back({nameOf(op, d),
                       op,
                       {},
                       {uniform(d, shape, seed++, positive ? 0.1 : -2, 2),
                        uniform(d, shape, seed++, positive ? 0.5 : -2, 2)},
                       {{d, shape}}});
    }
    for (const char *p : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      // Values on a coarse grid, so that equal pairs occur.
      Host a = uniform(d, shape, seed++, -3, 3), b = a;
      Host grid = uniform(DType::I32, shape, seed++, -3, 3);
      for (int64_t i = 0; i < a.view.numElements(); i += 2)
        storeFloat(b.view, i, static_cast<float>(loadInt(grid.view, i)));
      for (int64_t i = 0; i < a.view.numElements(); i += 3)
        storeFloat(a.view, i, static_cast<float>(loadInt(grid.view, i)));
      cases.push_back({nameOf("train.compare", d, p),
                       "train.compare",
                       {{"predicate", str(p)}},
                       {a, b},
                       {{DType::I1, shape}}});
    }
    cases.push_back({nameOf("train.select", d),
                     "train.select",
                     {},
                     {uniform(DType::I1, shape, seed++, 0, 2),
                      uniform(d, shape, seed++), uniform(d, shape, seed++)},
                     {{d, shape}}});
    for (const char *op : {"train.relu_grad", "train.tanh_grad",
                           "train.sigmoid_grad", "train.gelu_grad",
                           "train.silu_grad", "train.hardswish_grad",
                           "train.leaky_relu_grad", "train.elu_grad"})
      cases.push_back(
          {nameOf(op, d),
           op,
           {},
           {uniform(d, shape, seed++, -2, 2), uniform(d, shape, seed++, -1, 1)},
           {{d, shape}}});
    cases.push_back(
        {nameOf("train.gelu_grad", d, "tanh"),
         "train.gelu_grad",
         {{"tanh_approx", ints({1})}},
         {uniform(d, shape, seed++, -2, 2), uniform(d, shape, seed++, -3, 3)},
         {{d, shape}}});
    cases.push_back({nameOf("train.bias_add", d, "last"),
                     "train.bias_add",
                     {},
                     {uniform(d, {3, 4, 5}, seed++), uniform(d, {5}, seed++)},
                     {{d, {3, 4, 5}}}});
    cases.push_back({nameOf("train.bias_add", d, "dim1"),
                     "train.bias_add",
                     {{"dim", ints({1})}},
                     {uniform(d, {3, 4, 5}, seed++), uniform(d, {4}, seed++)},
                     {{d, {3, 4, 5}}}});
  }
  // Integer arithmetic wraps; compare and select on integers.
  for (DType d : {DType::I32, DType::I64}) {
    for (const char *op : {"train.add", "train.sub", "train.mul", "train.div",
                           "train.maximum", "train.minimum"}) {
      Host b = uniform(d, shape, seed++, -50, 50);
      for (int64_t i = 0; i < b.view.numElements(); ++i)
        if (loadInt(b.view, i) == 0)
          storeInt(b.view, i, 3);
      cases.push_back({nameOf(op, d),
                       op,
                       {},
                       {uniform(d, shape, seed++, -1000, 1000), b},
                       {{d, shape}}});
    }
    cases.push_back(
        {nameOf("train.compare", d),
         "train.compare",
         {{"predicate", str("le")}},
         {uniform(d, shape, seed++, -3, 3), uniform(d, shape, seed++, -3, 3)},
         {{DType::I1, shape}}});
    cases.push_back(
        {nameOf("train.select", d),
         "train.select",
         {},
         {uniform(DType::I1, shape, seed++, 0, 2),
          uniform(d, shape, seed++, -9, 9), uniform(d, shape, seed++, -9, 9)},
         {{d, shape}}});
  }
  return cases;
}

/// Every train.matmul form: plain, transposed operands, batched, a shared
/// rank-2 rhs; results in the input dtype and in f32.
Cases matmulCases() {
  Cases cases;
  const int64_t m = 13, k = 37, n = 19;
  uint32_t seed = 100;
  for (DType d : kFloats)
    for (DType out : widening(d)) {
      for (int t = 0; t < 4; ++t) {
        bool tl = t & 1, tr = t & 2;
        std::vector<int64_t> l =
            tl ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
        std::vector<int64_t> r =
            tr ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
        auto with = [](std::vector<int64_t> batch, std::vector<int64_t> s) {
          batch.insert(batch.end(), s.begin(), s.end());
          return batch;
        };
        struct Form {
          const char *name;
          std::vector<int64_t> lhs, rhs, result;
        };
        const Form forms[] = {
            {"rank2", l, r, {m, n}},
            {"batch3", with({3}, l), with({3}, r), {3, m, n}},
            {"batch2x3", with({2, 3}, l), with({2, 3}, r), {2, 3, m, n}},
            {"shared3", with({3}, l), r, {3, m, n}},
        };
        std::string suffix = std::string(tl ? "_tl" : "") + (tr ? "_tr" : "") +
                             "_to_" + dtypeName(out);
        for (const Form &f : forms)
          cases.push_back(
              {nameOf("train.matmul", d, f.name + suffix),
               "train.matmul",
               {{"transpose_lhs", ints({tl})}, {"transpose_rhs", ints({tr})}},
               {uniform(d, f.lhs, seed++), uniform(d, f.rhs, seed++)},
               {{out, f.result}}});
      }
      // A longer contraction: the accumulator dtype shows.
      cases.push_back(
          {nameOf("train.matmul", d, std::string("k300_to_") + dtypeName(out)),
           "train.matmul",
           {},
           {uniform(d, {64, 300}, seed++), uniform(d, {300, 48}, seed++)},
           {{out, {64, 48}}}});
    }
  return cases;
}

/// mp.matmul_epilogue: plain, transposed, batched and shared-rhs forms,
/// each with a bias (f32 or the result's dtype) and / or a ReLU; results in
/// the input dtype (the f32 product goes through the workspace) and in f32.
Cases matmulEpilogueCases() {
  Cases cases;
  const int64_t m = 13, k = 37, n = 19;
  uint32_t seed = 150;
  for (DType d : kFloats)
    for (DType out : widening(d)) {
      struct Form {
        const char *name;
        std::vector<int64_t> lhs, rhs, result;
        bool tl, tr;
      };
      const Form forms[] = {
          {"rank2", {m, k}, {k, n}, {m, n}, false, false},
          {"rank2_tl_tr", {k, m}, {n, k}, {m, n}, true, true},
          {"batch3_tr", {3, m, k}, {3, n, k}, {3, m, n}, false, true},
          {"shared2x2", {2, 2, m, k}, {k, n}, {2, 2, m, n}, false, false},
          {"shared3_tl", {3, k, m}, {k, n}, {3, m, n}, true, false},
      };
      for (const Form &f : forms)
        for (int bias = 0; bias < 3; ++bias) // none, f32, the result's dtype
          for (bool relu : {false, true}) {
            if (!bias && !relu)
              continue;
            std::vector<Host> inputs = {uniform(d, f.lhs, seed++),
                                        uniform(d, f.rhs, seed++)};
            if (bias)
              inputs.push_back(
                  uniform(bias == 1 ? DType::F32 : out, {n}, seed++));
            std::string suffix = std::string(f.name) + "_to_" +
                                 dtypeName(out) + "_bias" +
                                 std::to_string(bias) + (relu ? "_relu" : "");
            cases.push_back({nameOf("mp.matmul_epilogue", d, suffix),
                             "mp.matmul_epilogue",
                             {{"transpose_lhs", ints({f.tl})},
                              {"transpose_rhs", ints({f.tr})},
                              {"activation", str(relu ? "relu" : "none")}},
                             std::move(inputs),
                             {{out, f.result}}});
          }
    }
  return cases;
}

Cases mixedPrecisionCases() {
  Cases cases;
  uint32_t seed = 200;
  const std::vector<int64_t> shape = {7, 33};
  for (DType from : kFloats)
    for (DType to : kFloats)
      cases.push_back({nameOf("mp.cast", from, dtypeName(to)),
                       "mp.cast",
                       {},
                       {uniform(from, shape, seed++, -70000, 70000)},
                       {{to, shape}}});
  for (DType d : kFloats) {
    Host scale = values(DType::F32, {}, {1024});
    cases.push_back({nameOf("mp.scale", d),
                     "mp.scale",
                     {},
                     {uniform(d, shape, seed++), scale},
                     {{d, shape}}});
    Host g1 = uniform(d, shape, seed++, -2000, 2000);
    Host g2 = uniform(d, {5}, seed++, -2000, 2000);
    cases.push_back(
        {nameOf("mp.unscale_and_check", d, "finite"),
         "mp.unscale_and_check",
         {},
         {scale, g1, g2},
         {{DType::F32, shape}, {DType::F32, {5}}, {DType::I1, {}}}});
    Host bad = g2;
    storeFloat(bad.view, 3, INFINITY);
    cases.push_back({nameOf("mp.unscale_and_check", d, "inf"),
                     "mp.unscale_and_check",
                     {},
                     {scale, g1, bad},
                     {{d, shape}, {DType::F32, {5}}, {DType::I1, {}}}});
    Host nan = g1;
    storeFloat(nan.view, 100, NAN);
    cases.push_back({nameOf("mp.all_finite", d, "nan"),
                     "mp.all_finite",
                     {},
                     {g2, nan},
                     {{DType::I1, {}}}});
    cases.push_back({nameOf("mp.all_finite", d, "finite"),
                     "mp.all_finite",
                     {},
                     {g1, g2},
                     {{DType::I1, {}}}});
    for (int pred : {0, 1})
      cases.push_back({nameOf("mp.select", d, pred ? "new" : "old"),
                       "mp.select",
                       {},
                       {values(DType::I1, {}, {double(pred)}),
                        uniform(d, shape, seed++), uniform(d, {3}, seed++),
                        uniform(d, shape, seed++), uniform(d, {3}, seed++)},
                       {{d, shape}, {d, {3}}}});
  }
  // The scale update: a finite step below the interval, the step that grows,
  // an overflow, growth capped by max_scale and by inf.
  struct Update {
    const char *name;
    double scale, count, finite;
  };
  const Update updates[] = {{"count", 1024, 0, 1},
                            {"grow", 1024, 2, 1},
                            {"overflow", 1024, 1, 0},
                            {"cap", 3e38, 2, 1},
                            {"floor", 1.5, 1, 0}};
  for (DType countType : {DType::I32, DType::I64})
    for (const Update &u : updates)
      cases.push_back(
          {nameOf("mp.update_scale", countType, u.name),
           "mp.update_scale",
           {{"growth_interval", ints({3})}, {"min_scale", floats({1.0})}},
           {values(DType::F32, {}, {u.scale}), values(countType, {}, {u.count}),
            values(DType::I1, {}, {u.finite})},
           {{DType::F32, {}}, {countType, {}}}});
  return cases;
}

Cases optimizerCases() {
  Cases cases;
  uint32_t seed = 300;
  const std::vector<int64_t> shape = {9, 31};
  for (DType d : kFloats) {
    cases.push_back({nameOf("train.sgd", d),
                     "train.sgd",
                     {{"lr", floats({0.1})}, {"weight_decay", floats({0.01})}},
                     {uniform(d, shape, seed++), uniform(d, shape, seed++)},
                     {{d, shape}}});
    for (bool nesterov : {false, true})
      cases.push_back(
          {nameOf("train.sgd_momentum", d, nesterov ? "nesterov" : "plain"),
           "train.sgd_momentum",
           {{"lr", floats({0.1})},
            {"momentum", floats({0.9})},
            {"weight_decay", floats({0.001})},
            {"dampening", floats({nesterov ? 0.0 : 0.1})},
            {"nesterov", ints({nesterov})}},
           {uniform(d, shape, seed++), uniform(d, shape, seed++),
            uniform(d, shape, seed++)},
           {{d, shape}, {d, shape}}});
    // The learning rate as an operand.
    cases.push_back({nameOf("train.sgd", d, "lr_operand"),
                     "train.sgd",
                     {{"weight_decay", floats({0.01})}},
                     {uniform(d, shape, seed++), uniform(d, shape, seed++),
                      values(DType::F32, {}, {0.05})},
                     {{d, shape}}});
    cases.push_back({nameOf("train.adamw", d, "lr_operand"),
                     "train.adamw",
                     {},
                     {uniform(d, shape, seed++), uniform(d, shape, seed++),
                      uniform(d, shape, seed++), uniform(d, shape, seed++, 0, 0.5),
                      values(DType::I64, {}, {3}),
                      values(DType::F32, {}, {0.002})},
                     {{d, shape}, {d, shape}, {d, shape}}});
    // Per-step state.
    cases.push_back({nameOf("train.clip_grad_norm", d),
                     "train.clip_grad_norm",
                     {{"max_norm", floats({0.5})}},
                     {uniform(d, shape, seed++), uniform(d, {7}, seed++)},
                     {{d, shape}, {d, {7}}, {DType::F32, {}}}});
    cases.push_back({nameOf("train.clip_grad_norm", d, "inf"),
                     "train.clip_grad_norm",
                     {{"max_norm", floats({0.5})},
                      {"norm_type", floats({INFINITY})}},
                     {uniform(d, shape, seed++)},
                     {{d, shape}, {DType::F32, {}}}});
    cases.push_back({nameOf("train.clip_grad_value", d),
                     "train.clip_grad_value",
                     {{"clip_value", floats({0.3})}},
                     {uniform(d, shape, seed++), uniform(d, {7}, seed++)},
                     {{d, shape}, {d, {7}}}});
    for (const char *op : {"train.dropout", "train.dropout_grad"})
      cases.push_back({nameOf(op, d),
                       op,
                       {{"p", floats({0.3})}, {"site", ints({5})}},
                       {uniform(d, shape, seed++),
                        values(DType::I64, {}, {123456789}),
                        values(DType::I64, {}, {42})},
                       {{d, shape}}});
    // A broadcast mask (Keras' noise_shape, stochastic depth): [6, 1, 3, 1].
    for (const char *op : {"train.dropout", "train.dropout_grad"})
      cases.push_back({nameOf(op, d, "mask_shape"),
                       op,
                       {{"p", floats({0.3})},
                        {"site", ints({5})},
                        {"mask_shape", ints({6, 1, 3, 1})}},
                       {uniform(d, {6, 4, 3, 5}, seed++),
                        values(DType::I64, {}, {123456789}),
                        values(DType::I64, {}, {42})},
                       {{d, {6, 4, 3, 5}}}});
    if (d == DType::F32)
      for (int64_t t : {0, 7, 60})
        cases.push_back({nameOf("train.lr_schedule", d, std::to_string(t)),
                         "train.lr_schedule",
                         {{"base_lr", floats({0.003})},
                          {"warmup_steps", ints({10})},
                          {"decay", str("cosine")},
                          {"decay_steps", ints({40})},
                          {"end_factor", floats({0.1})}},
                         {values(DType::I64, {}, {static_cast<double>(t)})},
                         {{DType::F32, {}}}});
    for (const char *op : {"train.adam", "train.adamw"})
      for (DType step : {DType::I64, DType::F32})
        cases.push_back(
            {nameOf(op, d, dtypeName(step)),
             op,
             {{"lr", floats({0.01})}, {"weight_decay", floats({0.02})}},
             {uniform(d, shape, seed++), uniform(d, shape, seed++),
              uniform(d, shape, seed++), uniform(d, shape, seed++, 0, 0.5),
              values(step, {}, {3})},
             {{d, shape}, {d, shape}, {d, shape}}});
  }
  return cases;
}

Cases softmaxCases() {
  Cases cases;
  uint32_t seed = 400;
  for (DType d : kFloats) {
    for (const char *op : {"train.softmax", "train.log_softmax"})
      for (int64_t axis : {-1, 0}) {
        std::string suffix = axis ? "last" : "axis0";
        cases.push_back({nameOf(op, d, suffix),
                         op,
                         {{"axis", ints({axis})}},
                         {uniform(d, {6, 45}, seed++, -8, 8)},
                         {{d, {6, 45}}}});
      }
    // Gradients take the forward output as it is.
    for (const char *op : {"train.softmax_grad", "train.log_softmax_grad"}) {
      bool isLog = std::string(op) == "train.log_softmax_grad";
      for (int64_t axis : {-1, 1})
        cases.push_back(
            {nameOf(op, d, axis < 0 ? "last" : "axis1"),
             op,
             {{"axis", ints({axis})}},
             {uniform(d, {4, 5, 11}, seed++),
              uniform(d, {4, 5, 11}, seed++, isLog ? -4 : 0, isLog ? 0 : 1)},
             {{d, {4, 5, 11}}}});
    }
    for (DType labels : {DType::I32, DType::I64}) {
      for (DType out : widening(d))
        cases.push_back(
            {nameOf("train.sparse_cross_entropy", d,
                    std::string(dtypeName(labels)) + "_to_" + dtypeName(out)),
             "train.sparse_cross_entropy",
             {},
             {uniform(d, {33, 10}, seed++, -5, 5),
              uniform(labels, {33}, seed++, 0, 10)},
             {{out, {}}}});
      cases.push_back(
          {nameOf("train.sparse_cross_entropy_grad", d, dtypeName(labels)),
           "train.sparse_cross_entropy_grad",
           {},
           {uniform(d, {33, 10}, seed++, -5, 5),
            uniform(labels, {33}, seed++, 0, 10), values(d, {}, {2.0})},
           {{d, {33, 10}}}});
    }
    // PyTorch's options: smoothing 0.1 and ignore_index 3 (a class: its rows
    // leave the mean), the labels drawn over [0, 10).
    std::map<std::string, Attr> options = {
        {"label_smoothing", floats({0.1})}, {"ignore_index", ints({3})}};
    cases.push_back({nameOf("train.sparse_cross_entropy", d, "options"),
                     "train.sparse_cross_entropy",
                     options,
                     {uniform(d, {33, 10}, seed++, -5, 5),
                      uniform(DType::I64, {33}, seed++, 0, 10)},
                     {{DType::F32, {}}}});
    cases.push_back({nameOf("train.sparse_cross_entropy_grad", d, "options"),
                     "train.sparse_cross_entropy_grad",
                     options,
                     {uniform(d, {33, 10}, seed++, -5, 5),
                      uniform(DType::I64, {33}, seed++, 0, 10),
                      values(d, {}, {2.0})},
                     {{d, {33, 10}}}});
  }
  return cases;
}

Cases reductionCases() {
  Cases cases;
  uint32_t seed = 500;
  struct Form {
    const char *name;
    std::vector<int64_t> dims, result;
    bool keep;
  };
  const std::vector<int64_t> shape = {6, 7, 40};
  const Form forms[] = {
      {"dim0", {0}, {7, 40}, false},    {"dim2", {2}, {6, 7}, false},
      {"dims02", {0, 2}, {7}, false},   {"all", {0, 1, 2}, {}, false},
      {"keep1", {1}, {6, 1, 40}, true}, {"neg1", {-1}, {6, 7}, false},
  };
  for (DType d : kFloats)
    for (const char *op :
         {"train.reduce_sum", "train.reduce_mean", "train.reduce_max"})
      for (const Form &f : forms)
        for (DType out : widening(d)) {
          if (std::string(op) == "train.reduce_max" && out != d)
            continue;
          cases.push_back(
              {nameOf(op, d, std::string(f.name) + "_to_" + dtypeName(out)),
               op,
               {{"dims", ints(f.dims)}, {"keep_dims", ints({f.keep})}},
               {uniform(d, shape, seed++)},
               {{out, f.result}}});
        }
  // Tall: the sum over a long leading dimension (the bias gradient), tiles
  // of 32 results with a partial last tile.
  for (DType d : kFloats)
    for (const char *op :
         {"train.reduce_sum", "train.reduce_mean", "train.reduce_max"})
      for (bool keep : {false, true})
        cases.push_back({nameOf(op, d, keep ? "tall_keep" : "tall"),
                         op,
                         {{"dims", ints({0})}, {"keep_dims", ints({keep})}},
                         {uniform(d, {300, 45}, seed++)},
                         {{d, keep ? std::vector<int64_t>{1, 45}
                                   : std::vector<int64_t>{45}}}});
  // A long reduction: one block per result.
  cases.push_back({"train.reduce_sum/f32/long",
                   "train.reduce_sum",
                   {{"dims", ints({1})}},
                   {uniform(DType::F32, {3, 50000}, seed++)},
                   {{DType::F32, {3}}},
                   1e-4});
  return cases;
}

Cases normalizationCases() {
  Cases cases;
  uint32_t seed = 600;
  for (DType d : kFloats) {
    struct Form {
      const char *name;
      std::vector<int64_t> x, scale, stats;
      int64_t axis;
    };
    const Form forms[] = {{"last", {6, 40}, {40}, {6}, -1},
                          {"axis1", {2, 3, 8}, {3, 8}, {2}, 1}};
    for (const Form &f : forms) {
      cases.push_back(
          {nameOf("train.layer_norm", d, f.name),
           "train.layer_norm",
           {{"axis", ints({f.axis})}, {"epsilon", floats({1e-5})}},
           {uniform(d, f.x, seed++, -3, 5), uniform(d, f.scale, seed++),
            uniform(d, f.scale, seed++)},
           {{d, f.x}, {DType::F32, f.stats}, {DType::F32, f.stats}}});
      cases.push_back({nameOf("train.layer_norm_grad", d, f.name),
                       "train.layer_norm_grad",
                       {{"axis", ints({f.axis})}},
                       {uniform(d, f.x, seed++), uniform(d, f.x, seed++, -3, 5),
                        uniform(d, f.scale, seed++),
                        uniform(DType::F32, f.stats, seed++, 0, 1),
                        uniform(DType::F32, f.stats, seed++, 0.5, 2)},
                       {{d, f.x}, {d, f.scale}, {d, f.scale}}});
    }
    for (const Form &f : forms) {
      cases.push_back({nameOf("train.rms_norm", d, f.name),
                       "train.rms_norm",
                       {{"axis", ints({f.axis})}},
                       {uniform(d, f.x, seed++, -3, 5),
                        uniform(DType::F32, f.scale, seed++)},
                       {{d, f.x}, {DType::F32, f.stats}}});
      cases.push_back({nameOf("train.rms_norm_grad", d, f.name),
                       "train.rms_norm_grad",
                       {{"axis", ints({f.axis})}},
                       {uniform(d, f.x, seed++), uniform(d, f.x, seed++, -3, 5),
                        uniform(DType::F32, f.scale, seed++),
                        uniform(DType::F32, f.stats, seed++, 0.5, 2)},
                       {{d, f.x}, {DType::F32, f.scale}}});
    }
    const std::vector<int64_t> x = {4, 3, 5};
    cases.push_back(
        {nameOf("train.batch_norm", d),
         "train.batch_norm",
         {{"feature_dim", ints({1})},
          {"epsilon", floats({1e-5})},
          {"momentum", floats({0.1})}},
         {uniform(d, x, seed++, -2, 4), uniform(DType::F32, {3}, seed++),
          uniform(DType::F32, {3}, seed++), uniform(DType::F32, {3}, seed++),
          uniform(DType::F32, {3}, seed++, 0.5, 2)},
         {{d, x},
          {DType::F32, {3}},
          {DType::F32, {3}},
          {DType::F32, {3}},
          {DType::F32, {3}}}});
    cases.push_back(
        {nameOf("train.batch_norm_grad", d),
         "train.batch_norm_grad",
         {{"feature_dim", ints({1})}},
         {uniform(d, x, seed++), uniform(d, x, seed++, -2, 4),
          uniform(DType::F32, {3}, seed++), uniform(DType::F32, {3}, seed++),
          uniform(DType::F32, {3}, seed++, 0.5, 2)},
         {{d, x}, {DType::F32, {3}}, {DType::F32, {3}}}});
    // group_norm: 6 channels in 3 groups, second (NCHW) and last (NHWC).
    struct Group {
      const char *name;
      std::vector<int64_t> x;
      int64_t featureDim;
    };
    for (const Group &f : {Group{"nchw", {2, 6, 5, 3}, 1},
                           Group{"nhwc", {2, 5, 3, 6}, 3}}) {
      std::map<std::string, Attr> attrs = {{"groups", ints({3})},
                                           {"feature_dim", ints({f.featureDim})}};
      cases.push_back({nameOf("train.group_norm", d, f.name),
                       "train.group_norm",
                       attrs,
                       {uniform(d, f.x, seed++, -2, 4),
                        uniform(DType::F32, {6}, seed++, 0.5, 1.5),
                        uniform(DType::F32, {6}, seed++)},
                       {{d, f.x}, {DType::F32, {2, 3}}, {DType::F32, {2, 3}}}});
      cases.push_back({nameOf("train.group_norm_grad", d, f.name),
                       "train.group_norm_grad",
                       attrs,
                       {uniform(d, f.x, seed++), uniform(d, f.x, seed++, -2, 4),
                        uniform(DType::F32, {6}, seed++, 0.5, 1.5),
                        uniform(DType::F32, {2, 3}, seed++, -0.5, 0.5),
                        uniform(DType::F32, {2, 3}, seed++, 0.5, 2)},
                       {{d, f.x}, {DType::F32, {6}}, {DType::F32, {6}}}});
    }
  }
  return cases;
}

Cases shapeCases() {
  Cases cases;
  uint32_t seed = 700;
  for (DType d : {DType::F32, DType::BF16, DType::F16, DType::I1, DType::I32,
                  DType::I64}) {
    double hi = isFloat(d) ? 1 : 2;
    cases.push_back({nameOf("train.reshape", d),
                     "train.reshape",
                     {},
                     {uniform(d, {4, 6}, seed++, 0, hi)},
                     {{d, {2, 12}}}});
    cases.push_back({nameOf("train.transpose", d),
                     "train.transpose",
                     {{"permutation", ints({2, 0, 1})}},
                     {uniform(d, {3, 4, 5}, seed++, 0, hi)},
                     {{d, {5, 3, 4}}}});
    cases.push_back({nameOf("train.broadcast", d),
                     "train.broadcast",
                     {{"dims", ints({1, 2})}},
                     {uniform(d, {3, 1}, seed++, 0, hi)},
                     {{d, {4, 3, 5}}}});
    cases.push_back({nameOf("train.slice", d),
                     "train.slice",
                     {{"offsets", ints({1, 2})}, {"strides", ints({2, 3})}},
                     {uniform(d, {7, 11}, seed++, 0, hi)},
                     {{d, {3, 3}}}});
    cases.push_back({nameOf("train.concat", d),
                     "train.concat",
                     {{"dim", ints({1})}},
                     {uniform(d, {3, 2, 4}, seed++, 0, hi),
                      uniform(d, {3, 5, 4}, seed++, 0, hi)},
                     {{d, {3, 7, 4}}}});
    cases.push_back({nameOf("train.fill", d),
                     "train.fill",
                     {{"value", floats({isFloat(d) ? 0.1 : 1.0})}},
                     {},
                     {{d, {3, 5}}}});
  }
  for (DType d : kFloats)
    cases.push_back({nameOf("train.grad_seed", d),
                     "train.grad_seed",
                     {},
                     {values(d, {}, {3.5})},
                     {{d, {}}}});
  return cases;
}

Cases embeddingCases() {
  Cases cases;
  uint32_t seed = 800;
  for (DType d : kFloats)
    for (DType index : {DType::I32, DType::I64}) {
      cases.push_back(
          {nameOf("train.embedding", d, dtypeName(index)),
           "train.embedding",
           {},
           {uniform(d, {10, 6}, seed++), uniform(index, {2, 7}, seed++, 0, 10)},
           {{d, {2, 7, 6}}}});
      for (DType out : widening(d))
        cases.push_back(
            {nameOf("train.embedding_grad", d,
                    std::string(dtypeName(index)) + "_to_" + dtypeName(out)),
             "train.embedding_grad",
             {},
             {uniform(d, {2, 7, 6}, seed++),
              uniform(index, {2, 7}, seed++, 0, 10)},
             {{out, {10, 6}}}});
    }
  for (DType d : {DType::F32, DType::BF16, DType::I64, DType::I1})
    cases.push_back({nameOf("train.gather", d, "axis1"),
                     "train.gather",
                     {{"axis", ints({1})}},
                     {d == DType::I1 ? uniform(d, {3, 5, 4}, seed++, 0, 2)
                                     : uniform(d, {3, 5, 4}, seed++),
                      uniform(DType::I64, {2, 3}, seed++, 0, 5)},
                     {{d, {3, 2, 3, 4}}}});
  for (DType d : kFloats)
    cases.push_back({nameOf("train.gather_grad", d, "axis1_to_f32"),
                     "train.gather_grad",
                     {{"axis", ints({1})}},
                     {uniform(d, {3, 2, 3, 4}, seed++),
                      uniform(DType::I32, {2, 3}, seed++, 0, 5)},
                     {{DType::F32, {3, 5, 4}}}});
  return cases;
}

/// conv2d and its backward ops, pooling and their grads, in both layouts,
/// with strides, asymmetric padding and (conv) dilation.
Cases windowCases() {
  Cases cases;
  uint32_t seed = 900;
  struct Layout {
    const char *name;
    std::vector<int64_t> x, filter, y, pooled, globalX;
  };
  const Layout layouts[] = {
      {"NCHW",
       {2, 3, 7, 6},
       {4, 3, 3, 2},
       {2, 4, 3, 6},
       {2, 3, 3, 6},
       {2, 3, 5, 4}},
      {"NHWC",
       {2, 7, 6, 3},
       {3, 2, 3, 4},
       {2, 3, 6, 4},
       {2, 3, 6, 3},
       {2, 5, 4, 3}},
  };
  for (DType d : kFloats)
    for (const Layout &l : layouts) {
      std::map<std::string, Attr> conv = {{"layout", str(l.name)},
                                          {"strides", ints({2, 1})},
                                          {"padding", ints({1, 0, 1, 1})},
                                          {"dilations", ints({1, 2})}};
      for (DType out : widening(d)) {
        std::string suffix = std::string(l.name) + "_to_" + dtypeName(out);
        cases.push_back(
            {nameOf("train.conv2d", d, suffix),
             "train.conv2d",
             conv,
             {uniform(d, l.x, seed++), uniform(d, l.filter, seed++)},
             {{out, l.y}}});
        cases.push_back(
            {nameOf("train.conv2d_backward_data", d, suffix),
             "train.conv2d_backward_data",
             conv,
             {uniform(d, l.y, seed++), uniform(d, l.filter, seed++)},
             {{out, l.x}}});
        cases.push_back({nameOf("train.conv2d_backward_filter", d, suffix),
                         "train.conv2d_backward_filter",
                         conv,
                         {uniform(d, l.x, seed++), uniform(d, l.y, seed++)},
                         {{out, l.filter}}});
      }
      std::map<std::string, Attr> pool = {{"layout", str(l.name)},
                                          {"kernel", ints({3, 2})},
                                          {"strides", ints({2, 1})},
                                          {"padding", ints({1, 0, 1, 0})}};
      for (const char *op : {"train.max_pool2d", "train.avg_pool2d"})
        cases.push_back({nameOf(op, d, l.name),
                         op,
                         pool,
                         {uniform(d, l.x, seed++)},
                         {{d, l.pooled}}});
      // Ties: a coarse grid, so that windows share their maximum.
      Host coarse = uniform(DType::I32, l.x, seed++, -3, 3);
      Host tied(d, l.x);
      for (int64_t i = 0; i < tied.view.numElements(); ++i)
        storeFloat(tied.view, i, static_cast<float>(loadInt(coarse.view, i)));
      cases.push_back(
          {nameOf("train.max_pool2d", d, std::string(l.name) + "_ties"),
           "train.max_pool2d",
           pool,
           {tied},
           {{d, l.pooled}}});
      cases.push_back({nameOf("train.max_pool2d_grad", d, l.name),
                       "train.max_pool2d_grad",
                       pool,
                       {uniform(d, l.pooled, seed++), uniform(d, l.x, seed++)},
                       {{d, l.x}}});
      cases.push_back(
          {nameOf("train.max_pool2d_grad", d, std::string(l.name) + "_ties"),
           "train.max_pool2d_grad",
           pool,
           {uniform(d, l.pooled, seed++), tied},
           {{d, l.x}}});
      cases.push_back({nameOf("train.avg_pool2d_grad", d, l.name),
                       "train.avg_pool2d_grad",
                       pool,
                       {uniform(d, l.pooled, seed++)},
                       {{d, l.x}}});
      std::vector<int64_t> pooled = {2, 3};
      for (DType out : widening(d))
        cases.push_back({nameOf("train.global_avg_pool2d", d,
                                std::string(l.name) + "_to_" + dtypeName(out)),
                         "train.global_avg_pool2d",
                         {{"layout", str(l.name)}},
                         {uniform(d, l.globalX, seed++)},
                         {{out, pooled}}});
      cases.push_back({nameOf("train.global_avg_pool2d_grad", d, l.name),
                       "train.global_avg_pool2d_grad",
                       {{"layout", str(l.name)}},
                       {uniform(d, pooled, seed++)},
                       {{d, l.globalX}}});
      // Adaptive pooling of 7 x 5 into 3 x 2: overlapping windows.
      bool nchw = std::string(l.name) == "NCHW";
      std::vector<int64_t> image = nchw ? std::vector<int64_t>{2, 3, 7, 5}
                                        : std::vector<int64_t>{2, 7, 5, 3};
      std::vector<int64_t> small = nchw ? std::vector<int64_t>{2, 3, 3, 2}
                                        : std::vector<int64_t>{2, 3, 2, 3};
      cases.push_back({nameOf("train.adaptive_avg_pool2d", d, l.name),
                       "train.adaptive_avg_pool2d",
                       {{"layout", str(l.name)}},
                       {uniform(d, image, seed++)},
                       {{d, small}}});
      cases.push_back({nameOf("train.adaptive_avg_pool2d_grad", d, l.name),
                       "train.adaptive_avg_pool2d_grad",
                       {{"layout", str(l.name)}},
                       {uniform(d, small, seed++)},
                       {{d, image}}});
    }
  // Depthwise (6 groups of one channel, 2 outputs each) in both layouts.
  for (DType d : kFloats)
    for (bool nhwc : {false, true}) {
      std::vector<int64_t> x = nhwc ? std::vector<int64_t>{2, 7, 6, 6}
                                    : std::vector<int64_t>{2, 6, 7, 6};
      std::vector<int64_t> f = nhwc ? std::vector<int64_t>{3, 3, 1, 12}
                                    : std::vector<int64_t>{12, 1, 3, 3};
      std::vector<int64_t> y = nhwc ? std::vector<int64_t>{2, 4, 6, 12}
                                    : std::vector<int64_t>{2, 12, 4, 6};
      std::map<std::string, Attr> conv = {{"layout", str(nhwc ? "NHWC" : "NCHW")},
                                          {"strides", ints({2, 1})},
                                          {"padding", ints({1, 1, 1, 1})},
                                          {"groups", ints({6})}};
      const char *tag = nhwc ? "depthwise_NHWC" : "depthwise_NCHW";
      cases.push_back({nameOf("train.conv2d", d, tag), "train.conv2d", conv,
                       {uniform(d, x, seed++), uniform(d, f, seed++)},
                       {{d, y}}});
      cases.push_back({nameOf("train.conv2d_backward_data", d, tag),
                       "train.conv2d_backward_data", conv,
                       {uniform(d, y, seed++), uniform(d, f, seed++)},
                       {{d, x}}});
      cases.push_back({nameOf("train.conv2d_backward_filter", d, tag),
                       "train.conv2d_backward_filter", conv,
                       {uniform(d, x, seed++), uniform(d, y, seed++)},
                       {{d, f}}});
    }
  return cases;
}

Cases recurrentCases() {
  Cases cases;
  uint32_t seed = 900;
  const int64_t b = 3, h = 37; // neither a warp nor a tile
  for (DType d : kFloats) {
    cases.push_back({nameOf("train.lstm_cell", d),
                     "train.lstm_cell",
                     {},
                     {uniform(d, {b, 4 * h}, seed++, -3, 3),
                      uniform(d, {b, h}, seed++, -2, 2)},
                     {{d, {b, h}}, {d, {b, h}}}});
    cases.push_back({nameOf("train.lstm_cell_grad", d),
                     "train.lstm_cell_grad",
                     {},
                     {uniform(d, {b, h}, seed++), uniform(d, {b, h}, seed++),
                      uniform(d, {b, 4 * h}, seed++, -3, 3),
                      uniform(d, {b, h}, seed++, -2, 2),
                      uniform(d, {b, h}, seed++, -2, 2)},
                     {{d, {b, 4 * h}}, {d, {b, h}}}});
    for (const char *order : {"rzn", "zrn"}) {
      cases.push_back({nameOf("train.gru_cell", d, order),
                       "train.gru_cell",
                       {{"order", str(order)}},
                       {uniform(d, {b, 3 * h}, seed++, -3, 3),
                        uniform(d, {b, 3 * h}, seed++, -3, 3),
                        uniform(d, {b, h}, seed++)},
                       {{d, {b, h}}}});
      cases.push_back({nameOf("train.gru_cell_grad", d, order),
                       "train.gru_cell_grad",
                       {{"order", str(order)}},
                       {uniform(d, {b, h}, seed++),
                        uniform(d, {b, 3 * h}, seed++, -3, 3),
                        uniform(d, {b, 3 * h}, seed++, -3, 3),
                        uniform(d, {b, h}, seed++)},
                       {{d, {b, 3 * h}}, {d, {b, 3 * h}}, {d, {b, h}}}});
    }
  }
  return cases;
}

Cases lossAndEncodingCases() {
  Cases cases;
  uint32_t seed = 950;
  const std::vector<int64_t> shape = {7, 37};
  for (DType d : kFloats) {
    struct Loss {
      const char *op;
      std::map<std::string, Attr> attrs;
    };
    const Loss losses[] = {{"train.mse_loss", {}},
                           {"train.bce_with_logits_loss", {}},
                           {"train.huber_loss", {{"delta", floats({0.7})}}}};
    for (const Loss &l : losses) {
      for (DType out : widening(d))
        cases.push_back({nameOf(l.op, d, std::string("to_") + dtypeName(out)),
                         l.op,
                         l.attrs,
                         {uniform(d, shape, seed++, -3, 3),
                          uniform(d, shape, seed++, 0, 1)},
                         {{out, {}}}});
      std::string grad = std::string(l.op) + "_grad";
      cases.push_back({nameOf(grad, d),
                       grad,
                       l.attrs,
                       {uniform(d, shape, seed++, -3, 3),
                        uniform(d, shape, seed++, 0, 1), values(d, {}, {2.0})},
                       {{d, shape}}});
    }
    cases.push_back({nameOf("train.logsumexp", d, "dims1"),
                     "train.logsumexp",
                     {{"dims", ints({1})}},
                     {uniform(d, {7, 45}, seed++, -8, 8)},
                     {{DType::F32, {7}}}});
    cases.push_back({nameOf("train.logsumexp", d, "dims02_keep"),
                     "train.logsumexp",
                     {{"dims", ints({0, 2})}, {"keep_dims", ints({1})}},
                     {uniform(d, {3, 5, 4}, seed++, -8, 8)},
                     {{d, {1, 5, 1}}}});
    cases.push_back({nameOf("train.argmax", d, "dim1"),
                     "train.argmax",
                     {{"dim", ints({1})}},
                     {uniform(d, {7, 45}, seed++)},
                     {{DType::I64, {7}}}});
    cases.push_back({nameOf("train.argmax", d, "dim0_keep"),
                     "train.argmax",
                     {{"dim", ints({0})}, {"keep_dims", ints({1})}},
                     {uniform(d, {5, 3, 4}, seed++)},
                     {{DType::I64, {1, 3, 4}}}});
    cases.push_back({nameOf("train.pad", d),
                     "train.pad",
                     {{"low", ints({1, 0, 2})},
                      {"high", ints({0, 3, 1})},
                      {"value", floats({-0.5})}},
                     {uniform(d, {3, 5, 7}, seed++)},
                     {{d, {4, 8, 10}}}});
    for (DType indices : {DType::I32, DType::I64})
      cases.push_back({nameOf("train.one_hot", d, dtypeName(indices)),
                       "train.one_hot",
                       {},
                       {uniform(indices, {5, 3}, seed++, 0, 9)},
                       {{d, {5, 3, 9}}}});
  }
  cases.push_back({"train.pad/i64",
                   "train.pad",
                   {{"low", ints({2})}, {"high", ints({1})}},
                   {uniform(DType::I64, {6}, seed++, 0, 100)},
                   {{DType::I64, {9}}}});
  return cases;
}

Cases allCases() {
  Cases all;
  for (Cases (*family)() :
       {elementwiseCases, matmulCases, matmulEpilogueCases,
        mixedPrecisionCases, optimizerCases,
        softmaxCases, reductionCases, normalizationCases, shapeCases,
        embeddingCases, windowCases, recurrentCases,
        lossAndEncodingCases}) {
    Cases cases = family();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

void runAll(const Cases &cases) {
  for (const Case &c : cases)
    runCase(c);
}

} // namespace

// Runs without a GPU: the cases cover every op the backend claims, and
// the ops it does not run are exactly the documented ones.
TEST(CudaCoverage, EveryOpHasCases) {
  std::set<std::string> tested;
  for (const Case &c : allCases())
    tested.insert(c.op);
  for (const std::string &op : cudaBackendOps())
    EXPECT_TRUE(tested.count(op)) << op << " has no test case";
}

TEST(CudaCoverage, CasesAreWellFormed) {
  for (const Case &c : allCases()) {
    Status status = checkOnReference(c);
    EXPECT_TRUE(status.isOk()) << c.name << ": " << status.message();
  }
}

TEST(CudaCoverage, RunsOpsOfTheReferenceOnly) {
#ifdef MP_HAVE_CUDA
  std::set<std::string> reference(referenceBackendOps().begin(),
                                  referenceBackendOps().end());
  // A subset of the reference's ops: an op added without a CUDA kernel (the
  // reference kernel is what an op needs; CONTRIBUTING.md, "Add an op") makes
  // the cuda backend reject plans that use it at session creation, by name.
  for (const std::string &op : cudaBackendOps())
    EXPECT_TRUE(reference.count(op)) << op;
  for (const std::string &op : referenceBackendOps())
    if (!std::count(cudaBackendOps().begin(), cudaBackendOps().end(), op))
      std::printf("no CUDA kernel (yet): %s\n", op.c_str());
#else
  EXPECT_TRUE(cudaBackendOps().empty());
  EXPECT_FALSE(cudaBackendStatus().isOk());
  EXPECT_NE(cudaBackendStatus().message().find("MP_ENABLE_CUDA"),
            std::string::npos)
      << cudaBackendStatus().message();
#endif
}

TEST(CudaKernels, LossesAndEncodings) {
  MP_REQUIRE_GPU();
  runAll(lossAndEncodingCases());
}
TEST(CudaKernels, Recurrent) {
  MP_REQUIRE_GPU();
  runAll(recurrentCases());
}
TEST(CudaKernels, Elementwise) {
  MP_REQUIRE_GPU();
  runAll(elementwiseCases());
}
TEST(CudaKernels, Matmul) {
  MP_REQUIRE_GPU();
  runAll(matmulCases());
}
TEST(CudaKernels, MatmulEpilogue) {
  MP_REQUIRE_GPU();
  runAll(matmulEpilogueCases());
}
TEST(CudaKernels, MixedPrecision) {
  MP_REQUIRE_GPU();
  runAll(mixedPrecisionCases());
}
TEST(CudaKernels, Optimizers) {
  MP_REQUIRE_GPU();
  runAll(optimizerCases());
}
TEST(CudaKernels, SoftmaxAndLosses) {
  MP_REQUIRE_GPU();
  runAll(softmaxCases());
}
TEST(CudaKernels, Reductions) {
  MP_REQUIRE_GPU();
  runAll(reductionCases());
}
TEST(CudaKernels, Normalization) {
  MP_REQUIRE_GPU();
  runAll(normalizationCases());
}
TEST(CudaKernels, ShapeOps) {
  MP_REQUIRE_GPU();
  runAll(shapeCases());
}
TEST(CudaKernels, Embedding) {
  MP_REQUIRE_GPU();
  runAll(embeddingCases());
}

// Data errors only the device sees are reported when the step finishes,
// naming the op, and the next step starts clean.
TEST(CudaKernels, DataErrorsNameTheOp) {
  MP_REQUIRE_GPU();
  Case badLabel{
      "bad label",
      "train.sparse_cross_entropy",
      {},
      {uniform(DType::F32, {4, 10}, 1), values(DType::I32, {4}, {1, 2, 12, 3})},
      {{DType::F32, {}}}};
  Status status = runOnCuda(badLabel);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.message().find("train.sparse_cross_entropy"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("label 12 in row 2 is outside [0, 10)"),
            std::string::npos)
      << status.message();

  Case badIndex{
      "bad index",
      "train.embedding",
      {},
      {uniform(DType::F32, {5, 3}, 2), values(DType::I64, {3}, {0, -1, 4})},
      {{DType::F32, {3, 3}}}};
  status = runOnCuda(badIndex);
  EXPECT_NE(status.message().find("index -1 at position 1"), std::string::npos)
      << status.message();

  Case divide{
      "divide by zero",
      "train.div",
      {},
      {values(DType::I32, {3}, {1, 2, 3}), values(DType::I32, {3}, {1, 0, 1})},
      {{DType::I32, {3}}}};
  status = runOnCuda(divide);
  EXPECT_NE(status.message().find("integer division by zero at element 1"),
            std::string::npos)
      << status.message();

  // The error word was cleared: a good kernel runs clean.
  runCase({"after errors",
           "train.relu",
           {},
           {uniform(DType::F32, {8}, 3)},
           {{DType::F32, {8}}}});
}

TEST(CudaKernels, ConvolutionsAndPooling) {
  MP_REQUIRE_GPU();
  runAll(windowCases());
}

// What the kernels cannot take is refused by check(), naming the op: a
// transpose of rank 9 (the strided gather takes rank <= 8).
TEST(CudaKernels, LimitsAreRejectedByCheck) {
  MP_REQUIRE_GPU();
  Plan plan;
  TensorDesc desc;
  desc.shape = std::vector<int64_t>(9, 1);
  plan.tensors = {desc, desc};
  KernelDesc transpose;
  transpose.op = "train.transpose";
  transpose.inputs = {0};
  transpose.outputs = {1};
  transpose.attrs["permutation"] = ints({8, 7, 6, 5, 4, 3, 2, 1, 0});
  ASSERT_TRUE(createReferenceBackend()->prepare(transpose, plan).isOk());
  Status status = cudaBackend()->prepare(transpose, plan);
  EXPECT_EQ(status.code(), StatusCode::Unimplemented);
  EXPECT_NE(status.message().find("train.transpose"), std::string::npos)
      << status.message();
}
