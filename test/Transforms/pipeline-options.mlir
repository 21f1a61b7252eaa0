// RUN: not mp-opt %s --mp-mixed-precision="policy=mixed_float16 loss-scale=dynamc" 2>&1 | FileCheck %s

// The pipeline's loss-scale option takes auto, dynamic, static or none, but
// a bad value is only caught inside mp-loss-scaling (after precision
// assignment and cast insertion have run), whose message names the pass's
// own choices: "unknown loss-scaling mode 'dynamc' (expected dynamic or
// static)" -- it tells the user that auto and none are invalid. Expected:
// the message lists the pipeline's values.

// CHECK: error: {{.*}}'dynamc'{{.*}}auto{{.*}}none
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
