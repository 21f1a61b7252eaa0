// Upstream-only output (issue 18): the pipeline with cast-op=arith on IR as
// torch-mlir writes it -- linalg.generic elementwise ops, a tensor.pad, a
// loop -- leaves no mp op and no mp annotation, and upstream's own mlir-opt
// (no mp dialect loaded) parses and verifies the result. A generic is
// painted by its payload (the external model), a constant pad as data
// movement. The loop parses
// (scf is registered) and its body is left as written; the report counts
// every op, nested ones too. An mp-only op is named in an error.
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 cast-op=arith summary=true" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.mlir
// RUN: %upstream-mlir-opt %t.mlir -o /dev/null
// RUN: not grep -q "mp\." %t.mlir
// RUN: mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=none cast-op=arith" | %upstream-mlir-opt -o /dev/null
// RUN: not mp-opt %s --mp-mixed-precision="policy=mixed_bfloat16 cast-op=tosa" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mp-opt %S/Inputs/lower-to-upstream-train.mlir --mp-lower-to-upstream 2>&1 | FileCheck %s --check-prefix=TRAIN

// REMARK: remark: converted 4/4 ops to bf16 with {{[0-9]+}} casts {{.*}}; {{[0-9]+}} ops in all, {{[0-9]+}} undecided at the top level, {{[1-9][0-9]*}} inside nested regions (loop bodies, generic payloads) left as written

// CHECK-LABEL: func.func @forward
// CHECK: arith.truncf %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%{{.*}} : tensor<4x16xf32>)
// The elementwise generic (a ReLU) is painted by its payload: clear
// between the two matmuls, so bf16, its payload widening and rounding.
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xbf16>) outs(%{{.*}} : tensor<4x16xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[WIDE]], %{{.*}} : f32
// CHECK-NEXT: %[[NARROW:.*]] = arith.truncf %[[MAX]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[NARROW]] : bf16
// The constant pad moves bf16 data, padding with the constant in bf16.
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 2]
// CHECK: tensor.yield %{{.*}} : bf16
// CHECK-NEXT: } : tensor<4x16xbf16> to tensor<4x18xbf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x18xbf16>, tensor<18x16xbf16>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK-NOT: mp.

// BAD: mp-lower-to-upstream: unknown cast-op 'tosa' (mp or arith)
// TRAIN: error: 'train.relu' has no upstream form: upstream-only output (cast-op=arith) needs upstream input

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<18x16xf32>) -> tensor<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  %padded = tensor.pad %relu low[0, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x16xf32> to tensor<4x18xf32>
  %mm2 = linalg.matmul ins(%padded, %v : tensor<4x18xf32>, tensor<18x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %mm2) -> (tensor<4x16xf32>) {
    %t = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
    %s = arith.addf %acc, %t : tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}

// A payload with a denied op (exp) and a reduction stay f32 between 16-bit
// matmuls; a copy is clear.
// CHECK-LABEL: func.func @payloads
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x16xbf16>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: math.exp %{{.*}} : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<4x16xf32>) outs(%{{.*}} : tensor<4xf32>)
#rows = affine_map<(d0, d1) -> (d0)>
func.func @payloads(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x1 = math.exp %a : f32
    linalg.yield %x1 : f32
  } -> tensor<4x16xf32>
  %mm2 = linalg.matmul ins(%e, %v : tensor<4x16xf32>, tensor<16x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %rinit = tensor.empty() : tensor<4xf32>
  %rfill = linalg.fill ins(%zero : f32) outs(%rinit : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #rows], iterator_types = ["parallel", "reduction"]} ins(%mm2 : tensor<4x16xf32>) outs(%rfill : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %mm2, %sum : tensor<4x16xf32>, tensor<4xf32>
}
