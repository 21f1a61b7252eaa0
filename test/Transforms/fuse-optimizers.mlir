// Elementwise SGD (with and without weight decay, sub or add-of-neg) and SGD
// with momentum (with dampening) around train.gradient markers become the
// fused updates; RMSprop written as elementwise ops stays as written, and
// loss scaling finds its gradient through the marker, unscales it and moves
// the update after the check.
// RUN: mp-opt %s -split-input-file --mp-fuse-optimizers | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=SCALED
// RUN: mp-opt %s -split-input-file --mp-loss-scaling | FileCheck %s --check-prefix=MOVED

// CHECK-LABEL: func.func @sgd
// CHECK: %[[G:.*]] = train.gradient
// CHECK-NEXT: %[[N:.*]] = train.sgd %arg1, %[[G]] {lr = 1.000000e-01 : f64} : tensor<4xf32>
// CHECK-NOT: train.sub
// CHECK: return %{{.*}}, %[[N]]
func.func @sgd(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %lr = train.fill 0.1 : tensor<4xf32>
  %step = train.mul %lr, %g : tensor<4xf32>
  %nw = train.sub %w, %step : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sgd_weight_decay
// CHECK: %[[G:.*]] = train.gradient
// The f32 constant's value, exactly (the kernel rounds it to f32 again):
// CHECK-NEXT: train.sgd %arg1, %[[G]] {lr = 5.000000e-02 : f64, weight_decay = 0.0099999997764825821 : f64}
func.func @sgd_weight_decay(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %wd = train.constant dense<0.01> : tensor<4xf32>
  %decay = train.mul %w, %wd : tensor<4xf32>
  %gd = train.add %decay, %g : tensor<4xf32>
  %lr = train.fill 0.05 : tensor<4xf32>
  %step = train.mul %gd, %lr : tensor<4xf32>
  %neg = train.neg %step : tensor<4xf32>
  %nw = train.add %w, %neg : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}

// -----

// One constant as both the learning rate and the weight decay: erasing the
// dead update ops reaches it through both products, and erases it once
// (before the fix the pass read it again after erasing it: ASan's
// heap-use-after-free).
// CHECK-LABEL: func.func @sgd_shared_constant
// CHECK: %[[G:.*]] = train.gradient
// CHECK-NEXT: train.sgd %arg1, %[[G]] {lr = 0.0099999997764825821 : f64, weight_decay = 0.0099999997764825821 : f64}
// CHECK-NOT: train.constant
// CHECK: return
func.func @sgd_shared_constant(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %c = train.constant dense<0.01> : tensor<4xf32>
  %decay = train.mul %w, %c : tensor<4xf32>
  %gd = train.add %decay, %g : tensor<4xf32>
  %step = train.mul %gd, %c : tensor<4xf32>
  %nw = train.sub %w, %step : tensor<4xf32>
  return %l, %nw : tensor<f32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @momentum
// CHECK: %[[G:.*]] = train.gradient
// CHECK: %[[P:[^ ,]*]], %[[B:[^ ]*]] = train.sgd_momentum %arg1, %[[G]], %arg2 {dampening = 0.0999999{{[0-9]*}} : f64, lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64}
// CHECK: return %{{.*}}, %[[P]], %[[B]]
func.func @momentum(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"},
               %buf: tensor<4xf32> {train.name = "w.momentum_buffer", train.role = "opt_state"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"},
        tensor<4xf32> {train.name = "w.momentum_buffer", train.role = "opt_state"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %mu = train.fill 0.9 : tensor<4xf32>
  %keep = train.fill 0.9 : tensor<4xf32>
  %old = train.mul %mu, %buf : tensor<4xf32>
  %new = train.mul %keep, %g : tensor<4xf32>
  %nb = train.add %old, %new : tensor<4xf32>
  %lr = train.fill 0.1 : tensor<4xf32>
  %step = train.mul %lr, %nb : tensor<4xf32>
  %nw = train.sub %w, %step : tensor<4xf32>
  return %l, %nw, %nb : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// RMSprop (alpha 0.99, eps 1e-8): v' = a v + (1 - a) g^2, p' = p - lr g /
// (sqrt(v') + eps). Not a known form: it stays elementwise.
// CHECK-LABEL: func.func @rmsprop
// CHECK-NOT: train.sgd
// CHECK: train.sqrt
// SCALED-LABEL: func.func @rmsprop
// SCALED: %[[DW:.*]] = train.mul %{{.*}}, %arg0 : tensor<4xf32>
// SCALED-NEXT: %[[U:[^ ,]*]], %[[OK:[^ ]*]] = mp.unscale_and_check %{{.*}}, %[[DW]] : tensor<4xf32> -> tensor<4xf32>
// SCALED-NEXT: %[[G:.*]] = train.gradient %[[U]] : tensor<4xf32>
// SCALED: train.mul %[[G]], %[[G]] : tensor<4xf32>
// SCALED: train.sqrt
// SCALED: mp.select %[[OK]]
func.func @rmsprop(%x: tensor<4xf32> {train.role = "input"},
               %w: tensor<4xf32> {train.name = "w", train.role = "param"},
               %v: tensor<4xf32> {train.name = "w.square_avg", train.role = "opt_state"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "w", train.role = "param"},
        tensor<4xf32> {train.name = "w.square_avg", train.role = "opt_state"})
    attributes {train.step} {
  %p = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %sb, %x : tensor<4xf32>
  %g = train.gradient %dw : tensor<4xf32>
  %alpha = train.fill 0.99 : tensor<4xf32>
  %rest = train.fill 0.01 : tensor<4xf32>
  %g2 = train.mul %g, %g : tensor<4xf32>
  %a = train.mul %alpha, %v : tensor<4xf32>
  %b = train.mul %rest, %g2 : tensor<4xf32>
  %nv = train.add %a, %b : tensor<4xf32>
  %root = train.sqrt %nv : tensor<4xf32>
  %eps = train.fill 1.0e-8 : tensor<4xf32>
  %den = train.add %root, %eps : tensor<4xf32>
  %ratio = train.div %g, %den : tensor<4xf32>
  %lr = train.fill 0.01 : tensor<4xf32>
  %step = train.mul %lr, %ratio : tensor<4xf32>
  %nw = train.sub %w, %step : tensor<4xf32>
  return %l, %nw, %nv : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// An elementwise update (Adagrad: s' = s + g^2, p' = p - lr g / (sqrt(s') +
// eps)) written before the last gradient is computed moves after the check
// with everything computed from its marker.
// MOVED-LABEL: func.func @early_update
// MOVED: train.fill 1.000000e-02
// MOVED-NEXT: %[[DB:.*]] = train.mul
// MOVED-NEXT: %[[U:[^ ]*]]:2, %[[OK:[^ ]*]] = mp.unscale_and_check %{{.*}}, %{{.*}}, %[[DB]]
// MOVED-NEXT: %[[G:.*]] = train.gradient %[[U]]#0
// MOVED-NEXT: train.mul %[[G]], %[[G]]
// MOVED-NEXT: train.add
// MOVED-NEXT: train.sqrt
// MOVED: train.gradient %[[U]]#1
// MOVED: mp.select %[[OK]]
func.func @early_update(%x: tensor<4xf32> {train.role = "input"},
               %a: tensor<4xf32> {train.name = "a", train.role = "param"},
               %b: tensor<4xf32> {train.name = "b", train.role = "param"},
               %sa: tensor<4xf32> {train.name = "a.sum", train.role = "opt_state"})
    -> (tensor<f32> {train.role = "loss"}, tensor<4xf32> {train.name = "a", train.role = "param"},
        tensor<4xf32> {train.name = "b", train.role = "param"},
        tensor<4xf32> {train.name = "a.sum", train.role = "opt_state"})
    attributes {train.step} {
  %pa = train.mul %x, %a : tensor<4xf32>
  %pb = train.mul %pa, %b : tensor<4xf32>
  %l = train.reduce_sum %pb {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %s = train.grad_seed %l : tensor<f32>
  %sb = train.broadcast %s {dims = array<i64>} : tensor<f32> -> tensor<4xf32>
  %t = train.mul %sb, %b : tensor<4xf32>
  %da = train.mul %t, %x : tensor<4xf32>
  %ga = train.gradient %da : tensor<4xf32>
  %g2 = train.mul %ga, %ga : tensor<4xf32>
  %nsa = train.add %sa, %g2 : tensor<4xf32>
  %root = train.sqrt %nsa : tensor<4xf32>
  %eps = train.fill 1.0e-10 : tensor<4xf32>
  %den = train.add %root, %eps : tensor<4xf32>
  %ratio = train.div %ga, %den : tensor<4xf32>
  %lr = train.fill 0.01 : tensor<4xf32>
  %step = train.mul %lr, %ratio : tensor<4xf32>
  %na = train.sub %a, %step : tensor<4xf32>
  %db = train.mul %sb, %pa : tensor<4xf32>
  %gb = train.gradient %db : tensor<4xf32>
  %stepb = train.mul %lr, %gb : tensor<4xf32>
  %nb = train.sub %b, %stepb : tensor<4xf32>
  return %l, %na, %nb, %nsa : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
