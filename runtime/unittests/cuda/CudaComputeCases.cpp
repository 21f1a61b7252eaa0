//===- CudaComputeCases.cpp - elementwise to reduction cases --------------===//
//
// The cuda kernel test's elementwise, matmul, matmul_epilogue,
// mixed-precision, optimizer, softmax and reduction cases: each op in f32,
// bf16 and f16 (and the integer dtypes where it takes them), on shapes
// with no dimension a multiple of a warp or a tile.
//
//===----------------------------------------------------------------------===//
#include "CudaKernelCases.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace mp::rt::testing::cases {

Cases elementwiseCases() {
  Cases cases;
  const std::vector<int64_t> shape = {5, 37};
  struct Unary {
    const char *op;
    double lo, hi;
  };
  const Unary unaries[] = {
      {"train.neg", -2, 2},        {"train.exp", -4, 4},
      {"train.log", 0.05, 4},      {"train.sqrt", 0, 4},
      {"train.rsqrt", 0.05, 4},    {"train.tanh", -3, 3},
      {"train.sigmoid", -6, 6},    {"train.erf", -2, 2},
      {"train.relu", -2, 2},       {"train.gelu", -3, 3},
      {"train.silu", -6, 6},       {"train.hardswish", -5, 5},
      {"train.leaky_relu", -2, 2}, {"train.elu", -3, 3},
      {"train.abs", -2, 2},        {"train.sign", -2, 2},
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
    cases.push_back(
        {nameOf("train.elu_grad", d, "alpha"),
         "train.elu_grad",
         {{"alpha", floats({1.5})}},
         {uniform(d, shape, seed++, -2, 2), uniform(d, shape, seed++, -3, 3)},
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
    for (const char *op :
         {"train.relu_grad", "train.tanh_grad", "train.sigmoid_grad",
          "train.gelu_grad", "train.silu_grad", "train.hardswish_grad",
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
            std::string suffix = std::string(f.name) + "_to_" + dtypeName(out) +
                                 "_bias" + std::to_string(bias) +
                                 (relu ? "_relu" : "");
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
    cases.push_back(
        {nameOf("train.adamw", d, "lr_operand"),
         "train.adamw",
         {},
         {uniform(d, shape, seed++), uniform(d, shape, seed++),
          uniform(d, shape, seed++), uniform(d, shape, seed++, 0, 0.5),
          values(DType::I64, {}, {3}), values(DType::F32, {}, {0.002})},
         {{d, shape}, {d, shape}, {d, shape}}});
    // Per-step state.
    cases.push_back({nameOf("train.clip_grad_norm", d),
                     "train.clip_grad_norm",
                     {{"max_norm", floats({0.5})}},
                     {uniform(d, shape, seed++), uniform(d, {7}, seed++)},
                     {{d, shape}, {d, {7}}, {DType::F32, {}}}});
    cases.push_back(
        {nameOf("train.clip_grad_norm", d, "inf"),
         "train.clip_grad_norm",
         {{"max_norm", floats({0.5})}, {"norm_type", floats({INFINITY})}},
         {uniform(d, shape, seed++)},
         {{d, shape}, {DType::F32, {}}}});
    cases.push_back({nameOf("train.clip_grad_value", d),
                     "train.clip_grad_value",
                     {{"clip_value", floats({0.3})}},
                     {uniform(d, shape, seed++), uniform(d, {7}, seed++)},
                     {{d, shape}, {d, {7}}}});
    for (const char *op : {"train.dropout", "train.dropout_grad"})
      cases.push_back(
          {nameOf(op, d),
           op,
           {{"p", floats({0.3})}, {"site", ints({5})}},
           {uniform(d, shape, seed++), values(DType::I64, {}, {123456789}),
            values(DType::I64, {}, {42})},
           {{d, shape}}});
    // A broadcast mask (Keras' noise_shape, stochastic depth): [6, 1, 3, 1].
    for (const char *op : {"train.dropout", "train.dropout_grad"})
      cases.push_back(
          {nameOf(op, d, "mask_shape"),
           op,
           {{"p", floats({0.3})},
            {"site", ints({5})},
            {"mask_shape", ints({6, 1, 3, 1})}},
           {uniform(d, {6, 4, 3, 5}, seed++),
            values(DType::I64, {}, {123456789}), values(DType::I64, {}, {42})},
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
    std::map<std::string, Attr> options = {{"label_smoothing", floats({0.1})},
                                           {"ignore_index", ints({3})}};
    cases.push_back({nameOf("train.sparse_cross_entropy", d, "options"),
                     "train.sparse_cross_entropy",
                     options,
                     {uniform(d, {33, 10}, seed++, -5, 5),
                      uniform(DType::I64, {33}, seed++, 0, 10)},
                     {{DType::F32, {}}}});
    cases.push_back(
        {nameOf("train.sparse_cross_entropy_grad", d, "options"),
         "train.sparse_cross_entropy_grad",
         options,
         {uniform(d, {33, 10}, seed++, -5, 5),
          uniform(DType::I64, {33}, seed++, 0, 10), values(d, {}, {2.0})},
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

} // namespace mp::rt::testing::cases
