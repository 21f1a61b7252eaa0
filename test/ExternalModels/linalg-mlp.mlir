// The MLP training step of examples/mlp.mlir written with upstream ops only
// (linalg, arith, math, tensor): the same passes convert it through the
// external PrecisionOpInterface models.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 summary=true" 2>&1 | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none summary=true" 2>&1 | FileCheck %s --check-prefixes=CHECK,F16
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16" | mp-opt --verify-each

// BF16: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to bf16
// F16: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to f16

// CHECK-LABEL: func.func @train_step
// Forward: both contractions read 16-bit inputs and accumulate in f32.
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%{{.*}} : tensor<4x16xf32>)
// F16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x16xf16>) outs(%{{.*}} : tensor<4x16xf32>)
// BF16: arith.addf {{.*}} : tensor<4x16xbf16>
// BF16: arith.maximumf {{.*}} : tensor<4x16xbf16>
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xbf16>, tensor<16x3xbf16>) outs(%{{.*}} : tensor<4x3xf32>)
// F16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf16>, tensor<16x3xf16>) outs(%{{.*}} : tensor<4x3xf32>)
// The softmax and the log of the loss stay f32.
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<4x3xf32>)
// CHECK: math.log %{{.*}} : tensor<4x3xf32>
// Backward contractions are 16-bit too.
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x4xbf16>, tensor<4x3xbf16>) outs(%{{.*}} : tensor<16x3xf32>)
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xbf16>, tensor<4x16xbf16>) outs(%{{.*}} : tensor<8x16xf32>)
// The returned parameter updates stay f32.
// CHECK: %[[NEW_W1:.*]] = arith.subf %{{.*}}, %{{.*}} : tensor<8x16xf32>
// CHECK: return %{{.*}}, %[[NEW_W1]],

func.func @train_step(%x: tensor<4x8xf32> {train.role = "input"},
                      %onehot: tensor<4x3xf32> {train.role = "label"},
                      %w1: tensor<8x16xf32> {train.role = "param", train.name = "w1"},
                      %b1: tensor<16xf32> {train.role = "param", train.name = "b1"},
                      %w2: tensor<16x3xf32> {train.role = "param", train.name = "w2"})
    -> (tensor<f32> {train.role = "loss"},
        tensor<8x16xf32> {train.role = "param", train.name = "w1"},
        tensor<16xf32> {train.role = "param", train.name = "b1"},
        tensor<16x3xf32> {train.role = "param", train.name = "w2"})
    attributes {train.step} {
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : tensor<4x16xf32>
  %lr = arith.constant dense<0.1> : tensor<8x16xf32>
  %lr_b = arith.constant dense<0.1> : tensor<16xf32>
  %lr_2 = arith.constant dense<0.1> : tensor<16x3xf32>
  %inv_batch = arith.constant dense<0.25> : tensor<4x3xf32>
  // forward
  %e1 = tensor.empty() : tensor<4x16xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bias = linalg.broadcast ins(%b1 : tensor<16xf32>) outs(%e1 : tensor<4x16xf32>) dimensions = [0]
  %hb = arith.addf %h, %bias : tensor<4x16xf32>
  %r = arith.maximumf %hb, %zeros : tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %logits = linalg.matmul ins(%r, %w2 : tensor<4x16xf32>, tensor<16x3xf32>) outs(%acc2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  // loss = -sum(onehot * log(softmax(logits))) / 4
  %p = linalg.softmax dimension(1) ins(%logits : tensor<4x3xf32>) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %logp = math.log %p : tensor<4x3xf32>
  %picked = arith.mulf %onehot, %logp : tensor<4x3xf32>
  %neg = arith.negf %picked : tensor<4x3xf32>
  %scaled = arith.mulf %neg, %inv_batch : tensor<4x3xf32>
  %l0 = tensor.empty() : tensor<f32>
  %lacc = linalg.fill ins(%zero : f32) outs(%l0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%scaled : tensor<4x3xf32>) outs(%lacc : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // backward
  %diff = arith.subf %p, %onehot : tensor<4x3xf32>
  %dlogits = arith.mulf %diff, %inv_batch : tensor<4x3xf32>
  %et = tensor.empty() : tensor<16x4xf32>
  %rt = linalg.transpose ins(%r : tensor<4x16xf32>) outs(%et : tensor<16x4xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<16x3xf32>
  %acc3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x3xf32>) -> tensor<16x3xf32>
  %dw2 = linalg.matmul ins(%rt, %dlogits : tensor<16x4xf32>, tensor<4x3xf32>) outs(%acc3 : tensor<16x3xf32>) -> tensor<16x3xf32>
  %e4 = tensor.empty() : tensor<3x16xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<16x3xf32>) outs(%e4 : tensor<3x16xf32>) permutation = [1, 0]
  %acc4 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dr = linalg.matmul ins(%dlogits, %w2t : tensor<4x3xf32>, tensor<3x16xf32>) outs(%acc4 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %pos = arith.cmpf ogt, %hb, %zeros : tensor<4x16xf32>
  %dh = arith.select %pos, %dr, %zeros : tensor<4x16xi1>, tensor<4x16xf32>
  %e5 = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e5 : tensor<8x4xf32>) permutation = [1, 0]
  %e6 = tensor.empty() : tensor<8x16xf32>
  %acc6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dw1 = linalg.matmul ins(%xt, %dh : tensor<8x4xf32>, tensor<4x16xf32>) outs(%acc6 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e7 = tensor.empty() : tensor<16xf32>
  %acc7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<16xf32>) -> tensor<16xf32>
  %db1 = linalg.reduce ins(%dh : tensor<4x16xf32>) outs(%acc7 : tensor<16xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // SGD, lr 0.1
  %u1 = arith.mulf %dw1, %lr : tensor<8x16xf32>
  %nw1 = arith.subf %w1, %u1 : tensor<8x16xf32>
  %ub = arith.mulf %db1, %lr_b : tensor<16xf32>
  %nb1 = arith.subf %b1, %ub : tensor<16xf32>
  %u2 = arith.mulf %dw2, %lr_2 : tensor<16x3xf32>
  %nw2 = arith.subf %w2, %u2 : tensor<16x3xf32>
  return %loss, %nw1, %nb1, %nw2 : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>
}
