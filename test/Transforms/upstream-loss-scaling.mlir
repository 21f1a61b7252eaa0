// Loss scaling on upstream IR (issue 18): a step with a seed marked
// mp.grad_seed and gradient results marked mp.gradient gets the seed
// scaled, the gradients unscaled and checked where they are returned, the
// verdict as a result (mp.all_finite) and, dynamic, the scale and its
// counter as arguments and results; with cast-op=arith all of it is
// linalg / arith / math / tensor, verified by upstream mlir-opt, compiled
// by upstream passes alone and run by mlir-runner with GradScaler's
// numbers.
// RUN: mp-opt %S/Inputs/upstream-step.mlir --mp-mixed-precision="policy=mixed_float16" | FileCheck %s --check-prefix=MP
// RUN: mp-opt %S/Inputs/upstream-step.mlir --mp-mixed-precision="policy=mixed_float16 cast-op=arith" -o %t.step.mlir
// RUN: %upstream-mlir-opt %t.step.mlir | FileCheck %s --check-prefix=UP
// RUN: not grep -n "mp.cast\|mp.scale\|mp.unscale\|mp.update_scale\|mp.grad_seed" %t.step.mlir
// RUN: mp-opt %S/Inputs/upstream-step.mlir --mp-mixed-precision="policy=mixed_float16 loss-scale=static init-scale=8 cast-op=arith" | %upstream-mlir-opt | FileCheck %s --check-prefix=STATIC

// MP: func.func @grads(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x16xf32>, %[[SCALE:.*]]: tensor<f32> {mp.initial_value = 3.276800e+04 : f64, mp.loss_scale}, %[[COUNT:.*]]: tensor<i64> {mp.growth_count, mp.initial_value = 0 : i64})
// MP-SAME: -> (tensor<f32>, tensor<8x16xf32> {mp.gradient}, tensor<i1> {mp.all_finite}, tensor<f32> {mp.loss_scale}, tensor<i64> {mp.growth_count})
// The seed is scaled in f32 before its 16-bit users read it.
// MP: %[[SEED:.*]] = arith.constant {mp.grad_seed} dense<1.000000e+00> : tensor<f32>
// MP: %[[SCALED:.*]] = mp.scale %[[SEED]], %[[SCALE]] : tensor<f32>
// MP: mp.cast %[[SCALED]] : tensor<f32> to tensor<f16>
// MP: %[[UNSCALED:.*]], %[[FINITE:.*]] = mp.unscale_and_check %[[SCALE]], %{{.*}} : tensor<8x16xf32> -> tensor<8x16xf32>
// MP: %[[NS:.*]], %[[NC:.*]] = mp.update_scale %[[SCALE]], %[[COUNT]], %[[FINITE]]
// MP: return %{{.*}}, %[[UNSCALED]], %[[FINITE]], %[[NS]], %[[NC]]

// UP-LABEL: func.func @grads
// UP: linalg.generic {{.*}} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// UP: arith.mulf
// UP: arith.divf %{{.*}}, %{{.*}} : f64
// UP: math.isfinite %{{.*}} : f32
// UP: arith.andi
// UP: math.isfinite
// UP: arith.select
// UP: return

// STATIC: func.func @grads(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x16xf32>) -> (tensor<f32>, tensor<8x16xf32> {mp.gradient}, tensor<i1> {mp.all_finite})
// STATIC: arith.constant dense<8.000000e+00> : tensor<f32>

// Run: finite -> dw[0][0] = 4 (unscaled), true, scale 1024 kept, count 1;
// overflow -> false, scale 512, count 0.
// RUN: %if mlir-runner %{ sed -e '/^module {$/d' -e '/^}$/d' %t.step.mlir > %t.body.mlir %}
// RUN: %if mlir-runner %{ cat %t.body.mlir %S/Inputs/upstream-step-driver.mlir > %t.run.mlir %}
// RUN: %if mlir-runner %{ %upstream-mlir-opt %t.run.mlir --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --arith-expand --expand-strided-metadata --finalize-memref-to-llvm --convert-math-to-llvm --convert-vector-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --convert-index-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir %}
// RUN: %if mlir-runner %{ %upstream-mlir-runner %t.llvm.mlir -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s --check-prefix=EXEC %}
// EXEC: 4
// EXEC-NEXT: 1
// EXEC-NEXT: 1024
// EXEC-NEXT: 1
// EXEC-NEXT: 0
// EXEC-NEXT: 512
// EXEC-NEXT: 0
