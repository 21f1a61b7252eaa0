//===- Variants.cpp - the conformance table's other forms -----------------===//
#include "Builders.h"

using namespace mp::rt;
using namespace mp::rt::conformance;

void conformance::addVariants(std::vector<Case> &t) {
  t.push_back(make("compare_eq_ties", "train.compare",
                   {plain({3, 29}, 0.5, 0.5), data({3, 29})}, {pred({3, 29})},
                   {{"predicate", str("eq")}}));
  t.push_back(make("sparse_cross_entropy_i32", "train.sparse_cross_entropy",
                   {data({9, 21}, -6, 6), index32({9}, 21)}, {f32({})}, {},
                   kSum, 4));
  t.push_back(make("sparse_cross_entropy_grad_i32",
                   "train.sparse_cross_entropy_grad",
                   {data({9, 21}, -6, 6), index32({9}, 21), f32({}, 2, 2)},
                   {data({9, 21})}, {}, kSum, 4));
  t.push_back(make("sparse_cross_entropy_smoothed",
                   "train.sparse_cross_entropy",
                   {data({9, 21}, -6, 6), index({9}, 21)}, {f32({})},
                   {{"label_smoothing", floats({0.1})}}, kSum, 4));
  t.push_back(make(
      "sparse_cross_entropy_grad_smoothed", "train.sparse_cross_entropy_grad",
      {data({9, 21}, -6, 6), index({9}, 21), f32({}, 2, 2)}, {data({9, 21})},
      {{"label_smoothing", floats({0.1})}}, kSum, 4));
  t.push_back(make("embedding_i32", "train.embedding",
                   {data({11, 6}), index32({4, 5}, 11)}, {data({4, 5, 6})}));
  t.push_back(make("embedding_grad_i32", "train.embedding_grad",
                   {data({4, 5, 6}), index32({4, 5}, 11)}, {f32({11, 6})}, {},
                   kSum, 2));
  t.push_back(make("gather_axis1", "train.gather",
                   {data({3, 7, 5}), index32({2, 4}, 7)}, {data({3, 2, 4, 5})},
                   {{"axis", ints({1})}}));
  t.push_back(make("gather_grad_axis1", "train.gather_grad",
                   {data({3, 2, 4, 5}), index32({2, 4}, 7)}, {f32({3, 7, 5})},
                   {{"axis", ints({1})}}, kSum, 2));
  {
    Case c =
        make("update_scale_i32", "mp.update_scale",
             {f32({}, 65536, 65536), counter(3, true), pred({})},
             {f32({}), counter(0, true)}, {{"growth_interval", ints({4})}});
    c.dtypes = {DType::F32};
    t.push_back(c);
  }
  t.push_back(make("matmul_epilogue_no_bias", "mp.matmul_epilogue",
                   {data({13, 37}), data({37, 19})}, {data({13, 19})},
                   {{"activation", str("relu")}}, kSum, 2));
  t.push_back(make("matmul_epilogue_f32_bias", "mp.matmul_epilogue",
                   {data({13, 37}), data({37, 19}), f32({19})},
                   {data({13, 19})}, {{"activation", str("none")}}, kSum, 2));
  t.push_back(make("matmul_epilogue_f32_result", "mp.matmul_epilogue",
                   {data({3, 13, 37}), data({37, 19}), f32({19})},
                   {f32({3, 13, 19})}, {{"activation", str("relu")}}, kSum, 2));
  t.push_back(make("matmul_shared_rhs_transposed_lhs", "train.matmul",
                   {data({2, 37, 13}), data({37, 19})}, {data({2, 13, 19})},
                   {{"transpose_lhs", ints({1})}}, kSum, 2));
  {
    Case c = make("sgd_momentum_dampening", "train.sgd_momentum",
                  {f32({7, 13}), f32({7, 13}, -1, 1, true), f32({7, 13})},
                  {f32({7, 13}), f32({7, 13})},
                  {{"lr", floats({0.05})},
                   {"momentum", floats({0.9})},
                   {"dampening", floats({0.1})}},
                  Agreement::Ulps, 2);
    c.dtypes = {DType::F32};
    t.push_back(c);
    c = make("adamw_i64_step", "train.adamw",
             {f32({7, 13}), f32({7, 13}, -1, 1, true), f32({7, 13}),
              f32({7, 13}, 0, 1), counter(5)},
             {f32({7, 13}), f32({7, 13}), f32({7, 13})},
             {{"lr", floats({0.001})}}, Agreement::Ulps, 2);
    c.dtypes = {DType::F32};
    t.push_back(c);
    c = make("adam_i32_step", "train.adam",
             {f32({7, 13}), f32({7, 13}, -1, 1, true), f32({7, 13}),
              f32({7, 13}, 0, 1), counter(1, true)},
             {f32({7, 13}), f32({7, 13}), f32({7, 13})},
             {{"lr", floats({0.001})}}, Agreement::Ulps, 2);
    c.dtypes = {DType::F32};
    t.push_back(c);
  }
  {
    // The ODS defaults: slope 0.01, alpha 1.
    Case c =
        make("leaky_relu_default_slope", "train.leaky_relu",
             {data({7, 37}, -4, 4)}, {data({7, 37})}, {}, Agreement::Ulps, 2);
    c.oracle = [](auto &x) { return x[0] > 0 ? x[0] : 0.01 * x[0]; };
    t.push_back(c);
    c = make("elu_default_alpha", "train.elu", {data({7, 37}, -4, 4)},
             {data({7, 37})}, {}, Agreement::Ulps, 4);
    c.oracle = [](auto &x) { return x[0] > 0 ? x[0] : std::expm1(x[0]); };
    t.push_back(c);
  }
  // Pointwise losses (means over every element, accumulated in f64; the
  // float64 check is reference/PointwiseLossTest.cpp): a prediction with
  // the edge values against a target in [0, 1].
  for (const char *name : {"mse_loss", "bce_with_logits_loss", "huber_loss"}) {
    std::string op = std::string("train.") + name;
    t.push_back(make(name, op, {data({6, 23}, -3, 3), plain({6, 23}, 0, 1)},
                     {f32({})}, {}, kSum, 4));
    t.push_back(
        make(std::string(name) + "_grad", op + "_grad",
             {data({6, 23}, -3, 3), plain({6, 23}, 0, 1), f32({}, 0.5, 2)},
             {data({6, 23})}, {}, kSum, 2));
  }
  t.push_back(make("huber_loss_delta", "train.huber_loss",
                   {data({6, 23}, -3, 3), plain({6, 23}, 0, 1)}, {f32({})},
                   {{"delta", floats({0.25})}}, kSum, 4));
  t.push_back(make("log_softmax_axis0", "train.log_softmax",
                   {data({5, 33}, -8, 8)}, {data({5, 33})},
                   {{"axis", ints({0})}}, kSum, 4));
  t.push_back(make("softmax_grad_axis1", "train.softmax_grad",
                   {data({4, 5, 11}), data({4, 5, 11}, 0.01, 1)},
                   {data({4, 5, 11})}, {{"axis", ints({1})}}, kSum, 4));
  std::map<std::string, Attr> nhwc = {{"layout", str("NHWC")},
                                      {"kernel", ints({2, 3})},
                                      {"strides", ints({2, 2})},
                                      {"padding", ints({0, 1, 1, 0})}};
  t.push_back(make("max_pool2d_nhwc", "train.max_pool2d", {data({2, 9, 11, 3})},
                   {data({2, 5, 5, 3})}, nhwc));
  t.push_back(make("max_pool2d_grad_nhwc", "train.max_pool2d_grad",
                   {data({2, 5, 5, 3}), data({2, 9, 11, 3})},
                   {data({2, 9, 11, 3})}, nhwc, kSum, 2));
  t.push_back(make("avg_pool2d_nhwc", "train.avg_pool2d", {data({2, 9, 11, 3})},
                   {data({2, 5, 5, 3})}, nhwc, kSum, 2));
  t.push_back(make("avg_pool2d_grad_nhwc", "train.avg_pool2d_grad",
                   {data({2, 5, 5, 3})}, {data({2, 9, 11, 3})}, nhwc, kSum, 2));
  // Adaptive pooling where the sizes do not divide (7 into 3 rows: windows
  // overlap; 5 into 2 columns), both layouts and the gradient.
  t.push_back(make("adaptive_avg_pool2d_nchw", "train.adaptive_avg_pool2d",
                   {data({2, 3, 7, 5})}, {data({2, 3, 3, 2})},
                   {{"layout", str("NCHW")}}, kSum, 2));
  t.push_back(make("adaptive_avg_pool2d_nhwc", "train.adaptive_avg_pool2d",
                   {data({2, 7, 5, 3})}, {f32({2, 3, 2, 3})},
                   {{"layout", str("NHWC")}}, kSum, 2));
  t.push_back(make("adaptive_avg_pool2d_grad", "train.adaptive_avg_pool2d_grad",
                   {data({2, 3, 3, 2})}, {data({2, 3, 7, 5})},
                   {{"layout", str("NCHW")}}, kSum, 2));
  t.push_back(make("global_avg_pool2d_nhwc", "train.global_avg_pool2d",
                   {data({2, 6, 7, 5})}, {data({2, 5})},
                   {{"layout", str("NHWC")}}, kSum, 2));
  // conv1d (the compiler lowers it to conv2d; its reference loops are the
  // definition): NCL with stride, padding and dilation, NLC with groups.
  {
    std::map<std::string, Attr> ncl = {{"layout", str("NCL")},
                                       {"stride", ints({2})},
                                       {"padding", ints({2, 1})},
                                       {"dilation", ints({2})}};
    t.push_back(make("conv1d_ncl", "train.conv1d",
                     {data({2, 4, 11}), plain({6, 4, 3})}, {data({2, 6, 5})},
                     ncl, kSum, 2));
    t.push_back(make("conv1d_backward_data_ncl", "train.conv1d_backward_data",
                     {data({2, 6, 5}), plain({6, 4, 3})}, {data({2, 4, 11})},
                     ncl, kSum, 2));
    t.push_back(make(
        "conv1d_backward_filter_ncl", "train.conv1d_backward_filter",
        {data({2, 4, 11}), plain({2, 6, 5})}, {f32({6, 4, 3})}, ncl, kSum, 2));
    t.push_back(make("conv1d_nlc_grouped", "train.conv1d",
                     {data({2, 9, 4}), plain({3, 2, 6})}, {data({2, 7, 6})},
                     {{"layout", str("NLC")}, {"groups", ints({2})}}, kSum, 2));
  }
  t.push_back(
      make("conv2d_dilated", "train.conv2d",
           {data({2, 3, 9, 11}), data({4, 3, 3, 3})}, {data({2, 4, 5, 7})},
           {{"layout", str("NCHW")}, {"dilations", ints({2, 2})}}, kSum, 2));
  // Grouped (6 channels in 2 groups of 3, 4 outputs) and depthwise (6
  // groups, 2 outputs each) convolutions, both layouts, all three ops. The
  // filter (or, for the filter gradient, the output gradient) keeps finite
  // values: with 9 taps a padding tap's 0 * inf decides the result, NaN in
  // the reference's im2col and inf where oneDNN skips padding taps (both
  // IEEE-correct readings of zero padding; docs/runtime-reference.md).
  // Then the filter in the other layout than the images' own
  // (`filter_layout`: NHWC images with an OIHW filter are what
  // mp-channels-last makes of a PyTorch convolution), plain convolutions
  // too.
  for (int form = 0; form < 4; ++form) {
    bool nhwc = form % 2 == 1, swapped = form >= 2;
    bool hwio = nhwc != swapped;
    std::string tag = std::string(nhwc ? "_nhwc" : "_nchw") +
                      (swapped ? (hwio ? "_hwio" : "_oihw") : "");
    auto image = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
      return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
    };
    auto filter = [&](int64_t o, int64_t i, int64_t h, int64_t w) {
      return hwio ? Shape{h, w, i, o} : Shape{o, i, h, w};
    };
    for (int64_t groups : {1, 2, 6}) {
      if (groups == 1 && !swapped)
        continue; // the plain cases below
      int64_t perGroup = 6 / groups, outputs = groups == 6 ? 12 : 4;
      std::string name = (groups == 1   ? "plain"
                          : groups == 2 ? "grouped"
                                        : "depthwise") +
                         tag;
      std::map<std::string, Attr> attrs = {
          {"layout", str(nhwc ? "NHWC" : "NCHW")},
          {"strides", ints({2, 1})},
          {"padding", ints({1, 1, 1, 0})},
          {"groups", ints({groups})}};
      if (swapped)
        attrs["filter_layout"] = str(hwio ? "HWIO" : "OIHW");
      Shape x = image(2, 6, 9, 8), f = filter(outputs, perGroup, 3, 3),
            y = image(2, outputs, 5, 7);
      t.push_back(make("conv2d_" + name, "train.conv2d", {data(x), plain(f)},
                       {data(y)}, attrs, kSum, 2));
      t.push_back(make("conv2d_backward_data_" + name,
                       "train.conv2d_backward_data", {data(y), plain(f)},
                       {data(x)}, attrs, kSum, 2));
      t.push_back(make("conv2d_backward_filter_" + name,
                       "train.conv2d_backward_filter", {data(x), plain(y)},
                       {data(f)}, attrs, kSum, 2));
    }
  }
  t.push_back(
      make("batch_norm_nhwc", "train.batch_norm",
           {data({4, 5, 7, 3}), f32({3}), f32({3}), f32({3}), f32({3}, 0.5, 2)},
           {data({4, 5, 7, 3}), f32({3}), f32({3}), f32({3}), f32({3})},
           {{"feature_dim", ints({3})}}, kSum, 4));
  t.push_back(make("layer_norm_two_dims", "train.layer_norm",
                   {data({6, 5, 9}), f32({5, 9}), f32({5, 9})},
                   {data({6, 5, 9}), f32({6}), f32({6})}, {{"axis", ints({1})}},
                   kSum, 4));
  t.push_back(make("reduce_sum_middle", "train.reduce_sum", {data({3, 41, 5})},
                   {f32({3, 1, 5})},
                   {{"dims", ints({1})}, {"keep_dims", ints({1})}}, kSum, 2));
  t.push_back(make("transpose_last", "train.transpose", {data({3, 4, 5})},
                   {data({4, 3, 5})}, {{"permutation", ints({1, 0, 2})}}));
  t.push_back(make("broadcast_scalar", "train.broadcast", {data({})},
                   {data({3, 7})}, {{"dims", ints({})}}));
  t.push_back(make("concat_dim1", "train.concat",
                   {data({3, 2}), data({3, 5}), data({3, 1})}, {data({3, 8})},
                   {{"dim", ints({1})}}));
  t.push_back(make("slice_unit_strides", "train.slice", {data({7, 9})},
                   {data({4, 5})}, {{"offsets", ints({2, 3})}}));
}

void conformance::addIntegerRows(std::vector<Case> &t) {
  // Exact: integer arithmetic wraps (common/ElementMath.h), selections and
  // moves copy. Values in [0, 1000): sums and products stay in range.
  const Shape shape = {5, 37};
  // The row's float dtype plays no part: each row runs once.
  auto row = [&](Case c) {
    c.dtypes = {kF32};
    t.push_back(std::move(c));
  };
  for (bool i32 : {false, true}) {
    auto ints = [&](Shape s, int64_t bound) {
      return i32 ? index32(std::move(s), bound) : index(std::move(s), bound);
    };
    std::string suffix = i32 ? "_i32" : "_i64";
    for (const char *op : {"add", "sub", "mul", "maximum", "minimum"})
      row(make(op + suffix, std::string("train.") + op,
               {ints(shape, 1000), ints(shape, 1000)}, {ints(shape, 1000)}));
    for (const char *p : {"eq", "lt", "ge"})
      row(make(std::string("compare_") + p + suffix, "train.compare",
               {ints(shape, 7), ints(shape, 7)}, {pred(shape)},
               {{"predicate", str(p)}}));
    row(make("select" + suffix, "train.select",
             {pred(shape), ints(shape, 1000), ints(shape, 1000)},
             {ints(shape, 1000)}));
    row(make("broadcast" + suffix, "train.broadcast", {ints({5}, 1000)},
             {ints({3, 5, 4}, 1000)}, {{"dims", conformance::ints({1})}}));
    row(make("concat" + suffix, "train.concat",
             {ints({5, 3}, 1000), ints({5, 4}, 1000)}, {ints({5, 7}, 1000)},
             {{"dim", conformance::ints({1})}}));
    row(make("reshape" + suffix, "train.reshape", {ints(shape, 1000)},
             {ints({37, 5}, 1000)}));
    row(make("slice" + suffix, "train.slice", {ints({7, 9}, 1000)},
             {ints({3, 4}, 1000)},
             {{"offsets", conformance::ints({1, 2})},
              {"strides", conformance::ints({2, 2})}}));
    row(make("transpose" + suffix, "train.transpose", {ints(shape, 1000)},
             {ints({37, 5}, 1000)},
             {{"permutation", conformance::ints({1, 0})}}));
  }
}
