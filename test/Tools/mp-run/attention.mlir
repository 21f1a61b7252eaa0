// train.attention / attention_grad in a step (single-head self-attention
// with a causal mask and an additive key mask, then a linear classifier),
// end to end. The definition and the compiler's rewrite agree: the plan
// compiled without the pipeline runs the two ops on their reference
// kernels (f64 loops), the plan of the same step through mp-decompose
// runs matmul / mul / select / add / softmax(_grad) instead, and after 10
// float32 steps both hold the same parameters within 1e-6 of their largest (f32 rounding
// of different summation orders). Under mixed_bfloat16 the products run
// in bf16 while the scaling, masking and softmax stay f32, and the
// reference and cpu backends train to the same loss.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %s -o %t/fused.plan
// RUN: mp-opt %s --mp-decompose -o %t/decomposed.mlir
// RUN: mp-compile %t/decomposed.mlir -o %t/decomposed.plan
// RUN: mp-run %t/fused.plan --synthetic --steps 10 --backend reference --seed 2 --verbose --checkpoint %t/fused.ckpt > %t/fused.log 2>&1
// RUN: mp-run %t/decomposed.plan --synthetic --steps 10 --backend reference --seed 2 --checkpoint %t/decomposed.ckpt > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.log
// RUN: %python %S/Inputs/close_tensors.py %t/fused.ckpt %t/decomposed.ckpt 1e-6
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16" | FileCheck %s --check-prefix=IR
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" -o %t/mixed.plan
// RUN: mp-run %t/mixed.plan --synthetic --steps 20 --backend reference --seed 2 > %t/ref.log 2>&1
// RUN: mp-run %t/mixed.plan --synthetic --steps 20 --backend cpu --seed 2 > %t/cpu.log 2>&1
// RUN: grep -o "last loss [0-9.]*" %t/ref.log > %t/ref.loss
// RUN: grep -o "last loss [0-9.]*" %t/cpu.log > %t/cpu.loss
// RUN: diff %t/ref.loss %t/cpu.loss

// FUSED-DAG: train.attention {{.*}}reference kernel
// FUSED-DAG: train.attention_grad {{.*}}reference kernel
// FUSED: trained 10 steps

// IR-NOT: train.attention
// IR: train.matmul {{.*}} {transpose_rhs} : tensor<4x6x8xbf16>, tensor<4x6x8xbf16> -> tensor<4x6x6xf32>
// IR: train.mul {{.*}} : tensor<4x6x6xf32>
// IR: train.select {{.*}} : tensor<4x6x6xf32>
// IR: train.add {{.*}} : tensor<4x6x6xf32>
// IR: train.softmax {{.*}} : tensor<4x6x6xf32>
// IR: train.matmul {{.*}} : tensor<4x6x6xbf16>, tensor<4x6x8xbf16> -> tensor<4x6x8xbf16>
// IR: train.softmax_grad {{.*}} : tensor<4x6x6xf32>
// IR-NOT: train.attention

func.func @train_step(
    %x: tensor<4x6x8xf32> {train.role = "input"},
    %labels: tensor<4xi64> {train.role = "label"},
    %wq: tensor<8x8xf32> {train.name = "wq", train.role = "param"},
    %wk: tensor<8x8xf32> {train.name = "wk", train.role = "param"},
    %wv: tensor<8x8xf32> {train.name = "wv", train.role = "param"},
    %u: tensor<48x3xf32> {train.name = "u", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<8x8xf32> {train.name = "wq", train.role = "param"},
    tensor<8x8xf32> {train.name = "wk", train.role = "param"},
    tensor<8x8xf32> {train.name = "wv", train.role = "param"},
    tensor<48x3xf32> {train.name = "u", train.role = "param"}) attributes {train.step} {
  // Keys 4 and 5 weigh less for every query (an additive bias, not -inf).
  %bias = train.constant dense<[0.0, 0.0, 0.0, 0.0, -1.0, -2.0]> : tensor<6xf32>
  %q = train.matmul %x, %wq : tensor<4x6x8xf32>, tensor<8x8xf32> -> tensor<4x6x8xf32>
  %k = train.matmul %x, %wk : tensor<4x6x8xf32>, tensor<8x8xf32> -> tensor<4x6x8xf32>
  %v = train.matmul %x, %wv : tensor<4x6x8xf32>, tensor<8x8xf32> -> tensor<4x6x8xf32>
  %o = train.attention %q, %k, %v mask %bias {causal} : tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<6xf32> -> tensor<4x6x8xf32>
  %flat = train.reshape %o : tensor<4x6x8xf32> -> tensor<4x48xf32>
  %logits = train.matmul %flat, %u : tensor<4x48xf32>, tensor<48x3xf32> -> tensor<4x3xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
  %d_u = train.matmul %flat, %d_logits {transpose_lhs} : tensor<4x48xf32>, tensor<4x3xf32> -> tensor<48x3xf32>
  %d_flat = train.matmul %d_logits, %u {transpose_rhs} : tensor<4x3xf32>, tensor<48x3xf32> -> tensor<4x48xf32>
  %d_o = train.reshape %d_flat : tensor<4x48xf32> -> tensor<4x6x8xf32>
  %d_q, %d_k, %d_v = train.attention_grad %d_o, %q, %k, %v mask %bias {causal} : tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<6xf32>
  %x2 = train.reshape %x : tensor<4x6x8xf32> -> tensor<24x8xf32>
  %dq2 = train.reshape %d_q : tensor<4x6x8xf32> -> tensor<24x8xf32>
  %dk2 = train.reshape %d_k : tensor<4x6x8xf32> -> tensor<24x8xf32>
  %dv2 = train.reshape %d_v : tensor<4x6x8xf32> -> tensor<24x8xf32>
  %d_wq = train.matmul %x2, %dq2 {transpose_lhs} : tensor<24x8xf32>, tensor<24x8xf32> -> tensor<8x8xf32>
  %d_wk = train.matmul %x2, %dk2 {transpose_lhs} : tensor<24x8xf32>, tensor<24x8xf32> -> tensor<8x8xf32>
  %d_wv = train.matmul %x2, %dv2 {transpose_lhs} : tensor<24x8xf32>, tensor<24x8xf32> -> tensor<8x8xf32>
  %new_wq = train.sgd %wq, %d_wq {lr = 0.2 : f64} : tensor<8x8xf32>
  %new_wk = train.sgd %wk, %d_wk {lr = 0.2 : f64} : tensor<8x8xf32>
  %new_wv = train.sgd %wv, %d_wv {lr = 0.2 : f64} : tensor<8x8xf32>
  %new_u = train.sgd %u, %d_u {lr = 0.2 : f64} : tensor<48x3xf32>
  return %loss, %new_wq, %new_wk, %new_wv, %new_u : tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<48x3xf32>
}
