// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" --mp-insert-casts --mp-precision-report="summary=true json=%t.json" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: FileCheck %s --check-prefix=IR --implicit-check-not=mp.precision < %t.mlir
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" --mp-insert-casts --mp-precision-report="keep-annotations=true" 2>&1 | FileCheck %s --check-prefix=KEEP --implicit-check-not=remark
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_bfloat16" --mp-insert-casts --mp-precision-report="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: mp-opt %s --mp-assign-precision="policy=mixed_float16" --mp-insert-casts --mp-precision-report="json=-" -o /dev/null | FileCheck %s --check-prefix=STDOUT
// RUN: not mp-opt %s --mp-precision-report="json=%t.nodir/report.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE

// mp-precision-report: the one-line summary per function (a remark, with
// summary=true), the JSON file with per-op decisions, and the removal of
// the mp.precision annotations unless keep-annotations=true.

// The counts must match the IR below: 7 painted ops (2 matmuls, bias_add,
// relu, softmax, reduce_sum, math.sin), 4 of them f16; casts of x, w and
// bias to f16, and one widening cast of the second matmul for the fp32 ops.
// External functions are not reported; an empty body reports zeros (its return counted).

// REMARK: report.mlir:[[@LINE+3]]:1: remark: converted 4/7 ops to f16 with 4 casts (3 to f16, 1 to f32); fp32 islands: train.softmax x1, train.reduce_sum x1, math.sin x1; kept fp32 for lack of PrecisionOpInterface: math.sin; 12 ops in all, 1 undecided at the top level, 0 inside nested regions (loop bodies, generic payloads) left as written{{$}}
// REMARK: report.mlir:[[@LINE+15]]:1: remark: converted 0/0 ops to f16 with 0 casts (0 to f16, 0 to f32); 1 ops in all, 1 undecided at the top level, 0 inside nested regions (loop bodies, generic payloads) left as written{{$}}
// REMARK-NOT: remark
func.func @mlp(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %bias: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<f32>) {
  %0 = train.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %1 = train.bias_add %0, %bias : tensor<8x4xf32>, tensor<4xf32>
  %2 = train.relu %1 : tensor<8x4xf32>
  %3 = train.matmul %2, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %4 = train.softmax %3 : tensor<8x4xf32>
  %5 = train.reduce_sum %4 {dims = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
  %6 = math.sin %3 : tensor<8x4xf32>
  return %6, %5 : tensor<8x4xf32>, tensor<f32>
}

func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

func.func @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// JSON: {
// JSON-NEXT:   "functions": [
// JSON-NEXT:     {
// JSON-NEXT:       "casts_to_f32": 1,
// JSON-NEXT:       "casts_to_low": 3,
// JSON-NEXT:       "fp32_ops": {
// JSON-NEXT:         "math.sin": 1,
// JSON-NEXT:         "train.reduce_sum": 1,
// JSON-NEXT:         "train.softmax": 1
// JSON-NEXT:       },
// JSON-NEXT:       "function": "mlp",
// JSON-NEXT:       "no_interface": {
// JSON-NEXT:         "math.sin": 1
// JSON-NEXT:       },
// JSON-NEXT:       "ops": [
// JSON-NEXT:         {
// JSON-NEXT:           "category": "allow",
// JSON-NEXT:           "dtype": "f16",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:22:8",
// JSON-NEXT:           "op": "train.matmul",
// JSON-NEXT:           "rule": "allow",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "infer",
// JSON-NEXT:           "dtype": "f16",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:23:8",
// JSON-NEXT:           "op": "train.bias_add",
// JSON-NEXT:           "rule": "between-allow",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "clear",
// JSON-NEXT:           "dtype": "f16",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:24:8",
// JSON-NEXT:           "op": "train.relu",
// JSON-NEXT:           "rule": "between-allow",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "allow",
// JSON-NEXT:           "dtype": "f16",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:25:8",
// JSON-NEXT:           "op": "train.matmul",
// JSON-NEXT:           "rule": "allow",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "deny",
// JSON-NEXT:           "dtype": "f32",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:26:8",
// JSON-NEXT:           "op": "train.softmax",
// JSON-NEXT:           "rule": "deny",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "deny",
// JSON-NEXT:           "dtype": "f32",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:27:8",
// JSON-NEXT:           "op": "train.reduce_sum",
// JSON-NEXT:           "rule": "deny",
// JSON-NEXT:           "source": "default-list"
// JSON-NEXT:         },
// JSON-NEXT:         {
// JSON-NEXT:           "category": "deny",
// JSON-NEXT:           "dtype": "f32",
// JSON-NEXT:           "loc": "{{.*}}report.mlir:28:8",
// JSON-NEXT:           "op": "math.sin",
// JSON-NEXT:           "rule": "deny",
// JSON-NEXT:           "source": "no-interface"
// JSON-NEXT:         }
// JSON-NEXT:       ],
// JSON-NEXT:       "ops_converted": 4,
// JSON-NEXT:       "ops_nested": 0,
// JSON-NEXT:       "ops_painted": 7,
// JSON-NEXT:       "ops_total": 12,
// JSON-NEXT:       "ops_undecided": 1,
// JSON-NEXT:       "policy": "mixed_float16",
// JSON-NEXT:       "summary": "converted 4/7 ops to f16 with 4 casts (3 to f16, 1 to f32); fp32 islands: train.softmax x1, train.reduce_sum x1, math.sin x1; kept fp32 for lack of PrecisionOpInterface: math.sin; 12 ops in all, 1 undecided at the top level, 0 inside nested regions (loop bodies, generic payloads) left as written"
// JSON-NEXT:     },
// JSON-NEXT:     {
// JSON-NEXT:       "casts_to_f32": 0,
// JSON-NEXT:       "casts_to_low": 0,
// JSON-NEXT:       "fp32_ops": {},
// JSON-NEXT:       "function": "empty",
// JSON-NEXT:       "no_interface": {},
// JSON-NEXT:       "ops": [],
// JSON-NEXT:       "ops_converted": 0,
// JSON-NEXT:       "ops_nested": 0,
// JSON-NEXT:       "ops_painted": 0,
// JSON-NEXT:       "ops_total": 1,
// JSON-NEXT:       "ops_undecided": 1,
// JSON-NEXT:       "policy": "mixed_float16",
// JSON-NEXT:       "summary": "converted 0/0 ops to f16 with 0 casts (0 to f16, 0 to f32); 1 ops in all, 1 undecided at the top level, 0 inside nested regions (loop bodies, generic payloads) left as written"
// JSON-NEXT:     }
// JSON-NEXT:   ]
// JSON-NEXT: }

// The IR the counts describe; annotations are gone, mp.policy stays.
// IR-LABEL: func.func @mlp(
// IR-SAME: attributes {mp.policy = "mixed_float16"}
// IR-COUNT-3: mp.cast {{%[^ ]+}} : tensor<{{[0-9x]+}}xf32> to tensor<{{[0-9x]+}}xf16>
// IR-NEXT: train.matmul {{%[^ ]+}}, {{%[^ ]+}} : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// IR-NEXT: train.bias_add {{.*}} : tensor<8x4xf16>, tensor<4xf16>
// IR-NEXT: train.relu {{%[^ ]+}} : tensor<8x4xf16>
// IR-NEXT: train.matmul {{.*}} -> tensor<8x4xf16>
// IR-NEXT: mp.cast {{%[^ ]+}} : tensor<8x4xf16> to tensor<8x4xf32>
// IR-NEXT: train.softmax {{%[^ ]+}} : tensor<8x4xf32>
// IR-NEXT: train.reduce_sum {{%[^ ]+}} {dims = array<i64: 0, 1>} : tensor<8x4xf32> -> tensor<f32>
// IR-NEXT: math.sin {{%[^ ]+}} : tensor<8x4xf32>
// IR-NEXT: return
// IR-LABEL: func.func private @decl(
// IR-LABEL: func.func @empty(
// IR-SAME: attributes {mp.policy = "mixed_float16"}

// keep-annotations keeps them; no remark without summary=true.
// KEEP-LABEL: func.func @mlp(
// KEEP: train.matmul {{.*}}{mp.precision = {category = "allow", dtype = f16, rule = "allow", source = "default-list"}}
// KEEP: math.sin {{.*}}{mp.precision = {category = "deny", dtype = f32, rule = "deny", source = "no-interface"}}

// The same graph under mixed_bfloat16.
// BF16: remark: converted 4/7 ops to bf16 with 4 casts (3 to bf16, 1 to f32); fp32 islands: train.softmax x1, train.reduce_sum x1, math.sin x1; kept fp32 for lack of PrecisionOpInterface: math.sin
// BF16: remark: converted 0/0 ops to bf16 with 0 casts (0 to bf16, 0 to f32)

// json=- writes the report to stdout.
// STDOUT: "functions": [
// STDOUT: "function": "mlp",
// STDOUT: "ops_converted": 4,
// STDOUT: "ops_painted": 7,

// NOFILE: error: cannot write the precision report: cannot open output file '{{.*}}report.json'
