// The MLP training step written in tosa: matmuls in 16 bits with f32
// results, elementwise ops following them, exp/log/reductions in f32.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 summary=true" 2>&1 | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none summary=true" 2>&1 | FileCheck %s --check-prefixes=CHECK,F16

// BF16: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to bf16
// F16: remark: converted {{[0-9]+}}/{{[0-9]+}} ops to f16

// CHECK-LABEL: func.func @train_step
// BF16: tosa.matmul {{.*}} : (tensor<1x4x8xbf16>, tensor<1x8x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x16xf32>
// F16: tosa.matmul {{.*}} : (tensor<1x4x8xf16>, tensor<1x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x16xf32>
// BF16: tosa.add {{.*}} -> tensor<1x4x16xbf16>
// BF16: tosa.maximum {{.*}} -> tensor<1x4x16xbf16>
// BF16: tosa.matmul {{.*}} : (tensor<1x4x16xbf16>, tensor<1x16x3xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x3xf32>
// Softmax pieces stay f32.
// CHECK: tosa.exp %{{.*}} : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
// CHECK: tosa.reduce_sum %{{.*}} {axis = 2 : i32} : (tensor<1x4x3xf32>) -> tensor<1x4x1xf32>
// CHECK: tosa.log
// Backward matmuls.
// BF16: tosa.matmul {{.*}} : (tensor<1x16x4xbf16>, tensor<1x4x3xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x3xf32>
// BF16: tosa.matmul {{.*}} : (tensor<1x8x4xbf16>, tensor<1x4x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x16xf32>
// The returned updates stay f32.
// CHECK: %[[NEW_W1:.*]] = tosa.sub %{{.*}} : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
// CHECK: return %{{.*}}, %[[NEW_W1]],

func.func @train_step(%x: tensor<1x4x8xf32> {train.role = "input"},
                      %onehot: tensor<1x4x3xf32> {train.role = "label"},
                      %w1: tensor<1x8x16xf32> {train.role = "param", train.name = "w1"},
                      %b1: tensor<1x1x16xf32> {train.role = "param", train.name = "b1"},
                      %w2: tensor<1x16x3xf32> {train.role = "param", train.name = "w2"})
    -> (tensor<1x1x1xf32> {train.role = "output"},
        tensor<f32> {train.role = "loss"},
        tensor<1x8x16xf32> {train.role = "param", train.name = "w1"},
        tensor<1x16x3xf32> {train.role = "param", train.name = "w2"},
        tensor<1x1x16xf32> {train.role = "param", train.name = "b1"})
    attributes {train.step} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zeros = "tosa.const"() <{values = dense<0.0> : tensor<1x4x16xf32>}> : () -> tensor<1x4x16xf32>
  %quarter = "tosa.const"() <{values = dense<0.25> : tensor<1x4x3xf32>}> : () -> tensor<1x4x3xf32>
  %lr1 = "tosa.const"() <{values = dense<0.1> : tensor<1x8x16xf32>}> : () -> tensor<1x8x16xf32>
  %lr2 = "tosa.const"() <{values = dense<0.1> : tensor<1x16x3xf32>}> : () -> tensor<1x16x3xf32>
  %lrb = "tosa.const"() <{values = dense<0.1> : tensor<1x1x16xf32>}> : () -> tensor<1x1x16xf32>
  %loss0 = "tosa.const"() <{values = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  // forward
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %r = tosa.maximum %hb, %zeros : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %logits = tosa.matmul %r, %w2, %zp, %zp : (tensor<1x4x16xf32>, tensor<1x16x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3xf32>
  // softmax and cross-entropy
  %ex = tosa.exp %logits : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<1x4x3xf32>) -> tensor<1x4x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %p = tosa.mul %ex, %inv, %shift : (tensor<1x4x3xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x3xf32>
  %logp = tosa.log %p : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %picked = tosa.mul %onehot, %logp, %shift : (tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1xi8>) -> tensor<1x4x3xf32>
  %s1 = tosa.reduce_sum %picked {axis = 2 : i32} : (tensor<1x4x3xf32>) -> tensor<1x4x1xf32>
  %s2 = tosa.reduce_sum %s1 {axis = 1 : i32} : (tensor<1x4x1xf32>) -> tensor<1x1x1xf32>
  // backward
  %diff = tosa.sub %p, %onehot : (tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %dlogits = tosa.mul %diff, %quarter, %shift : (tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1xi8>) -> tensor<1x4x3xf32>
  %rt = tosa.transpose %r {perms = array<i32: 0, 2, 1>} : (tensor<1x4x16xf32>) -> tensor<1x16x4xf32>
  %dw2 = tosa.matmul %rt, %dlogits, %zp, %zp : (tensor<1x16x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x3xf32>
  %w2t = tosa.transpose %w2 {perms = array<i32: 0, 2, 1>} : (tensor<1x16x3xf32>) -> tensor<1x3x16xf32>
  %dr = tosa.matmul %dlogits, %w2t, %zp, %zp : (tensor<1x4x3xf32>, tensor<1x3x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %relu_mask_src = tosa.maximum %dr, %zeros : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %xt = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  %dw1 = tosa.matmul %xt, %relu_mask_src, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %db1 = tosa.reduce_sum %relu_mask_src {axis = 1 : i32} : (tensor<1x4x16xf32>) -> tensor<1x1x16xf32>
  // SGD
  %u1 = tosa.mul %dw1, %lr1, %shift : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1xi8>) -> tensor<1x8x16xf32>
  %nw1 = tosa.sub %w1, %u1 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %u2 = tosa.mul %dw2, %lr2, %shift : (tensor<1x16x3xf32>, tensor<1x16x3xf32>, tensor<1xi8>) -> tensor<1x16x3xf32>
  %nw2 = tosa.sub %w2, %u2 : (tensor<1x16x3xf32>, tensor<1x16x3xf32>) -> tensor<1x16x3xf32>
  %ub = tosa.mul %db1, %lrb, %shift : (tensor<1x1x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x1x16xf32>
  %nb1 = tosa.sub %b1, %ub : (tensor<1x1x16xf32>, tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
  return %s2, %loss0, %nw1, %nw2, %nb1 : tensor<1x1x1xf32>, tensor<f32>, tensor<1x8x16xf32>, tensor<1x16x3xf32>, tensor<1x1x16xf32>
}
