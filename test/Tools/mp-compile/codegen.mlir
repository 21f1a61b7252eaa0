// mp-compile --codegen=cpu: the runs of elementwise kernels of a step
// (bias_add -> tanh gelu -> cast after the first matmul, the scaled residual,
// gelu_grad's chain in the backward pass) become fused regions whose code
// is written next to the plan; the cpu backend runs them, the reference
// backend runs the kernels, and twenty steps of training agree within the
// approximations' tolerance (docs/codegen.md). The library's size and
// checksum belong to the plan: a missing, truncated, altered or other
// plan's library is refused before it is loaded (never a crash inside
// dlopen, never other numbers under the plan's name); MP_GENERATED_CODE=off
// is the named way to run the kernels instead.
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %s --mixed-precision="policy=mixed_bfloat16" --codegen=cpu --emit-llvm=%t/step.ll -o %t/step.mpplan
// RUN: test -f %t/step.code.so
// RUN: FileCheck %s --check-prefix=LLVM < %t/step.ll
// RUN: mp-run %t/step.mpplan --synthetic --steps 20 --seed 3 --verbose > %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=CPU < %t/cpu.log
// RUN: mp-run %t/step.mpplan --synthetic --steps 20 --seed 3 --backend reference --verbose > %t/ref.log 2>&1
// RUN: FileCheck %s --check-prefix=REF < %t/ref.log
// RUN: env MP_GENERATED_CODE=off mp-run %t/step.mpplan --synthetic --steps 20 --seed 3 > %t/off.log 2>&1
// RUN: %python %S/Inputs/close_losses.py %t/cpu.log %t/ref.log 1e-3
// RUN: %python %S/Inputs/close_losses.py %t/cpu.log %t/off.log 1e-3
//
// Another plan's library in its place, the library cut short at several
// lengths, one byte of it changed, and no library at all are refused by
// name; with MP_GENERATED_CODE=off the kernels run, and the summary says so.
// RUN: cp %t/step.code.so %t/good.code.so
// RUN: mp-compile %s --codegen=cpu -o %t/other.mpplan
// RUN: cp %t/other.code.so %t/step.code.so
// RUN: not mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: head -c 64 %t/good.code.so > %t/step.code.so
// RUN: not mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: head -c 4096 %t/good.code.so > %t/step.code.so
// RUN: not mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: %python -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 1; open(sys.argv[2], 'wb').write(b)" %t/good.code.so %t/step.code.so
// RUN: not mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=ALTERED
// RUN: rm %t/step.code.so
// RUN: not mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env MP_GENERATED_CODE=off mp-run %t/step.mpplan --synthetic --steps 2 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not mp-compile %s --codegen=gpu -o %t/bad.mpplan 2>&1 | FileCheck %s --check-prefix=BAD
//
// A step without a run of two elementwise kernels writes no library:
// RUN: mp-compile %S/../mp-run/activations.mlir --codegen=cpu -o %t/act.mpplan
// RUN: not test -f %t/act.code.so

// LLVM: define void @mp_fused_0_avx512(ptr
// LLVM: define void @mp_fused_0_avx2(ptr
// LLVM: <16 x float>
// LLVM: define{{.*}} i64 @mp_code_id()

// CPU: generated code: {{[0-9]+}} fused regions ({{[0-9]+}} kernels) on generated code, {{avx512|avx2}} variant (step.code.so)
// CPU: train.gelu {{.*}}generated code ({{avx512|avx2}}), fused region #
// CPU: trained 20 steps {{.*}}; generated code on
// REF: generated code: {{.*}} run kernel by kernel: the reference backend does not run generated host code
// REF: trained 20 steps
// STALE: the plan's generated code: {{.*}}step.code.so{{' has [0-9]+ bytes|' does not have the checksum}}
// STALE-NOT: trained
// TRUNCATED: the plan's generated code: {{.*}}step.code.so' has {{64|4096}} bytes, the plan's generated code {{[0-9]+}} (truncated or replaced)
// TRUNCATED-SAME: MP_GENERATED_CODE=off
// ALTERED: the plan's generated code: {{.*}}step.code.so' does not have the checksum of the plan's generated code
// MISSING: the plan's generated code: cannot open {{.*}}step.code.so
// OFF: trained 2 steps {{.*}}; generated code off
// BAD: unknown --codegen 'gpu' (cpu or none)

func.func @train_step(
    %x: tensor<32x16xf32> {train.role = "input"},
    %labels: tensor<32xi64> {train.role = "label"},
    %w1: tensor<16x64xf32> {train.name = "w1", train.role = "param"},
    %b1: tensor<64xf32> {train.name = "b1", train.role = "param"},
    %w2: tensor<64x4xf32> {train.name = "w2", train.role = "param"}) -> (
    tensor<f32> {train.role = "loss"},
    tensor<16x64xf32> {train.name = "w1", train.role = "param"},
    tensor<64xf32> {train.name = "b1", train.role = "param"},
    tensor<64x4xf32> {train.name = "w2", train.role = "param"}) attributes {train.step} {
  %h = train.matmul %x, %w1 : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %hb = train.bias_add %h, %b1 : tensor<32x64xf32>, tensor<64xf32>
  %a = train.gelu %hb {tanh_approx} : tensor<32x64xf32>
  %half = train.fill 5.000000e-01 : tensor<32x64xf32>
  %s = train.mul %a, %half : tensor<32x64xf32>
  %r = train.add %s, %hb : tensor<32x64xf32>
  %logits = train.matmul %r, %w2 : tensor<32x64xf32>, tensor<64x4xf32> -> tensor<32x4xf32>
  %loss = train.sparse_cross_entropy %logits, %labels : tensor<32x4xf32>, tensor<32xi64> -> tensor<f32>
  %seed = train.grad_seed %loss : tensor<f32>
  %d_logits = train.sparse_cross_entropy_grad %logits, %labels, %seed : tensor<32x4xf32>, tensor<32xi64>, tensor<f32>
  %d_w2 = train.matmul %r, %d_logits {transpose_lhs} : tensor<32x64xf32>, tensor<32x4xf32> -> tensor<64x4xf32>
  %d_r = train.matmul %d_logits, %w2 {transpose_rhs} : tensor<32x4xf32>, tensor<64x4xf32> -> tensor<32x64xf32>
  %d_a = train.mul %d_r, %half : tensor<32x64xf32>
  %d_g = train.gelu_grad %d_a, %hb {tanh_approx} : tensor<32x64xf32>
  %d_hb = train.add %d_g, %d_r : tensor<32x64xf32>
  %d_b1 = train.reduce_sum %d_hb {dims = array<i64: 0>} : tensor<32x64xf32> -> tensor<64xf32>
  %d_w1 = train.matmul %x, %d_hb {transpose_lhs} : tensor<32x16xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %new_w1 = train.sgd %w1, %d_w1 {lr = 0.1 : f64} : tensor<16x64xf32>
  %new_b1 = train.sgd %b1, %d_b1 {lr = 0.1 : f64} : tensor<64xf32>
  %new_w2 = train.sgd %w2, %d_w2 {lr = 0.1 : f64} : tensor<64x4xf32>
  return %loss, %new_w1, %new_b1, %new_w2 : tensor<f32>, tensor<16x64xf32>, tensor<64xf32>, tensor<64x4xf32>
}
