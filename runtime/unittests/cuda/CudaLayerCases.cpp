//===- CudaLayerCases.cpp - normalization to loss cases -------------------===//
//
// The cuda kernel test's normalization, shape, embedding, convolution and
// pooling, recurrent, loss and encoding cases, and allCases().
//
//===----------------------------------------------------------------------===//
#include "CudaKernelCases.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace mp::rt::testing::cases {

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
    for (const Group &f :
         {Group{"nchw", {2, 6, 5, 3}, 1}, Group{"nhwc", {2, 5, 3, 6}, 3}}) {
      std::map<std::string, Attr> attrs = {
          {"groups", ints({3})}, {"feature_dim", ints({f.featureDim})}};
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
      std::map<std::string, Attr> conv = {
          {"layout", str(nhwc ? "NHWC" : "NCHW")},
          {"strides", ints({2, 1})},
          {"padding", ints({1, 1, 1, 1})},
          {"groups", ints({6})}};
      const char *tag = nhwc ? "depthwise_NHWC" : "depthwise_NCHW";
      cases.push_back({nameOf("train.conv2d", d, tag),
                       "train.conv2d",
                       conv,
                       {uniform(d, x, seed++), uniform(d, f, seed++)},
                       {{d, y}}});
      cases.push_back({nameOf("train.conv2d_backward_data", d, tag),
                       "train.conv2d_backward_data",
                       conv,
                       {uniform(d, y, seed++), uniform(d, f, seed++)},
                       {{d, x}}});
      cases.push_back({nameOf("train.conv2d_backward_filter", d, tag),
                       "train.conv2d_backward_filter",
                       conv,
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
    cases.push_back(
        {nameOf("train.lstm_cell_grad", d),
         "train.lstm_cell_grad",
         {},
         {uniform(d, {b, h}, seed++), uniform(d, {b, h}, seed++),
          uniform(d, {b, 4 * h}, seed++, -3, 3),
          uniform(d, {b, h}, seed++, -2, 2), uniform(d, {b, h}, seed++, -2, 2)},
         {{d, {b, 4 * h}}, {d, {b, h}}}});
    for (const char *order : {"rzn", "zrn"}) {
      cases.push_back(
          {nameOf("train.gru_cell", d, order),
           "train.gru_cell",
           {{"order", str(order)}},
           {uniform(d, {b, 3 * h}, seed++, -3, 3),
            uniform(d, {b, 3 * h}, seed++, -3, 3), uniform(d, {b, h}, seed++)},
           {{d, {b, h}}}});
      cases.push_back(
          {nameOf("train.gru_cell_grad", d, order),
           "train.gru_cell_grad",
           {{"order", str(order)}},
           {uniform(d, {b, h}, seed++), uniform(d, {b, 3 * h}, seed++, -3, 3),
            uniform(d, {b, 3 * h}, seed++, -3, 3), uniform(d, {b, h}, seed++)},
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
       {elementwiseCases, matmulCases, matmulEpilogueCases, mixedPrecisionCases,
        optimizerCases, softmaxCases, reductionCases, normalizationCases,
        shapeCases, embeddingCases, windowCases, recurrentCases,
        lossAndEncodingCases}) {
    Cases cases = family();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

} // namespace mp::rt::testing::cases
