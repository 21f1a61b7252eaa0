// mp-data-parallel mode=zero1 (ZeRO stage 1): every update runs on this
// rank's shard of its parameter, seen flat and cut into world-size shards
// of ceil(n / N) elements. The CNN's gradients (one 25-MB bucket) are
// reduce-scattered right after the last of them; the parameters' shards
// are taken by one train.rank_shard; sgd_momentum runs on the shards, its
// momentum buffers are shards in the signature (the memory that falls by
// N: fc.bias's 10 elements over 3 ranks are 4 per rank, the last padded;
// each carries its whole shape, mp.shard_of, for the plan and its
// checkpoints); the updated shards are gathered whole, and the step
// returns them.
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=float32 data-parallel=zero1 world-size=3 report=%t.json" | FileCheck %s --check-prefix=F32
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=mixed_float16 data-parallel=zero1 world-size=2" | FileCheck %s --check-prefix=F16
// RUN: not mp-opt %examples/cnn.mlir --mp-data-parallel="mode=zero1" 2>&1 | FileCheck %s --check-prefix=NO-SIZE
// RUN: not mp-opt %examples/cnn.mlir --mp-data-parallel="mode=allreduce world-size=2" 2>&1 | FileCheck %s --check-prefix=SIZE-ALLREDUCE
// RUN: not mp-opt %examples/cnn.mlir --mp-data-parallel="mode=zero1 world-size=2 reduce-dtype=bf16" 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: mp-opt %examples/causal_lm.mlir --mp-mixed-precision="policy=mixed_bfloat16 data-parallel=zero1 world-size=2" | FileCheck %s --check-prefix=CLIP
// RUN: mp-opt %S/../Tools/mp-run/Inputs/lion.mlir --mp-mixed-precision="policy=float32 data-parallel=zero1 world-size=2 report=%t.lion.json" | FileCheck %s --check-prefix=LION
// RUN: FileCheck %s --check-prefix=LION-REPORT --input-file=%t.lion.json
// RUN: not mp-opt %S/Inputs/zero1-normalized-update.mlir --mp-data-parallel="mode=zero1 world-size=2" 2>&1 | FileCheck %s --check-prefix=REDUCTION
// RUN: mp-opt %s --split-input-file --verify-diagnostics

// F32: func.func @train_step({{.*}}%arg13: tensor<10xf32> {train.name = "fc.bias", train.role = "param"}, %arg14: tensor<96xf32> {mp.shard_of = array<i64: 32, 1, 3, 3>, train.name = "conv1.weight.momentum_buffer", train.role = "opt_state"}
// F32-SAME: %arg21: tensor<4xf32> {mp.shard_of = array<i64: 10>, train.name = "fc.bias.momentum_buffer", train.role = "opt_state"}
// F32: %[[FC_W:.*]] = train.matmul {{.*}}transpose_lhs
// F32: %[[RS:.*]]:8 = train.reduce_scatter %[[FC_B:[^,]*]], %[[FC_W]], {{.*}} {world_size = 3 : i64} : tensor<10xf32>, tensor<64x10xf32>, {{.*}} -> tensor<4xf32>, tensor<214xf32>,
// The finite check reads the shards; the verdict is every rank's.
// F32-NEXT: %[[CHECK:.*]] = mp.all_finite %[[RS]]#7, {{.*}}, %[[RS]]#0 :
// F32-NEXT: %[[ALL:.*]] = train.all_ranks %[[CHECK]] : tensor<i1>
// F32-NEXT: %[[OWN:.*]]:8 = train.rank_shard %arg13, %arg12, {{.*}} {world_size = 3 : i64} : tensor<10xf32>, tensor<64x10xf32>, {{.*}} -> tensor<4xf32>, tensor<214xf32>,
// F32: %[[P:.*]], %[[M:.*]] = train.sgd_momentum %[[OWN]]#0, %[[RS]]#0, %arg21 {{.*}} : tensor<4xf32>
// F32-NEXT: %[[G:.*]]:8 = train.all_gather {{.*}}%[[P]]{{.*}} {world_size = 3 : i64} : {{.*}} -> tensor<10xf32>, tensor<64x10xf32>,
// F32: return {{.*}}%[[G]]#0, {{.*}}%[[M]], {{.*}}%[[ALL]] : {{.*}}tensor<10xf32>, {{.*}}tensor<4xf32>, tensor<i1>

// REPORT: "data_parallel": {
// REPORT: "bytes_per_step": 78248,
// REPORT-NEXT: "dtype": "f32",
// REPORT-NEXT: "gathered_bytes_per_step": 78248,
// REPORT-NEXT: "mode": "zero1",
// REPORT-NEXT: "optimizer_state_bytes_per_rank": 26096,
// REPORT-NEXT: "optimizer_state_bytes_unsharded": 78248,
// REPORT-NEXT: "reductions": 1,
// REPORT-NEXT: "world_size": 3

// Loss scaling checks the shards and skips or applies the step as every
// rank's verdict says: the selects and the scale's update read it.
// F16: %[[RS:.*]]:8 = train.reduce_scatter
// F16: %{{.*}}, %[[FINITE:.*]] = mp.unscale_and_check %{{.*}}, %[[RS]]#7,
// F16-NEXT: %[[ALL:.*]] = train.all_ranks %[[FINITE]] : tensor<i1>
// F16: train.sgd_momentum {{.*}} : tensor<144xf32>
// F16: train.all_gather
// F16: mp.select %[[ALL]],
// F16: mp.update_scale {{.*}}, %[[ALL]]

// NO-SIZE: error: mp-data-parallel: mode zero1 shards the optimizer state over a number of ranks fixed when the step is compiled: give it as world-size=N
// SIZE-ALLREDUCE: error: mp-data-parallel: world-size is an option of mode zero1
// BF16: error: mp-data-parallel: mode zero1 reduce-scatters in f32; reduce-dtype=bf16 is built for allreduce only
// Clipping by the global norm clips the shards by the norm of the whole
// gradients (every rank's partial sum combined); the updates (AdamW: two
// moments per parameter, sharded) read the clipped shards.
// CLIP: %[[RS:.*]]:36 = train.reduce_scatter {{.*}} -> {{.*}}tensor<3072xf32>
// CLIP-NEXT: mp.all_finite %[[RS]]#35,
// CLIP-NEXT: train.all_ranks
// CLIP-NOT: train.clip_grad_norm %
// CLIP: %[[CLIPPED:.*]]:36, %{{.*}} = train.clip_grad_norm_shards %[[RS]]#35, {{.*}} {max_norm = 1.000000e+00 : f64, world_size = 2 : i64} : tensor<3072xf32>,
// CLIP: train.adamw %{{.*}}, %[[CLIPPED]]#0, %{{.*}}, %{{.*}}, %{{.*}} lr {{.*}} : tensor<3072xf32>, tensor<i64>
// CLIP: train.all_gather
// An optimizer written as elementwise ops (Lion, on train.gradient
// markers) is sharded as it is: its momentum arguments and results become
// shards, its splat constants are remade at the shard's shape, the
// parameter it reads (weight decay, the update) is its shard.
// LION: func.func @train_step({{.*}}%arg4: tensor<128xf32> {mp.shard_of = array<i64: 8, 32>, train.name = "fc1.weight.exp_avg", train.role = "opt_state"}, %arg5: tensor<64xf32> {mp.shard_of = array<i64: 32, 4>, train.name = "fc2.weight.exp_avg", train.role = "opt_state"})
// LION: %[[RS:.*]]:2 = train.reduce_scatter %{{.*}}, %{{.*}} {world_size = 2 : i64} : tensor<32x4xf32>, tensor<8x32xf32> -> tensor<64xf32>, tensor<128xf32>
// LION: %[[OWN:.*]]:2 = train.rank_shard %arg3, %arg2
// LION: %[[G1:.*]] = train.gradient %[[RS]]#1 : tensor<128xf32>
// LION: train.fill 9.000000e-01 : tensor<128xf32>
// LION: train.sign %{{.*}} : tensor<128xf32>
// LION: train.mul %{{.*}}, %[[OWN]]#1 : tensor<128xf32>
// LION: %[[NEW1:.*]] = train.sub %[[OWN]]#1, %{{.*}} : tensor<128xf32>
// LION: %[[G:.*]]:2 = train.all_gather %{{.*}}, %[[NEW1]] {world_size = 2 : i64} : tensor<64xf32>, tensor<128xf32> -> tensor<32x4xf32>, tensor<8x32xf32>
// LION: return %{{.*}}, %[[G]]#1, %[[G]]#0, %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<8x32xf32>, tensor<32x4xf32>, tensor<128xf32>, tensor<64xf32>, tensor<i1>
// Its two momentum buffers (256 + 128 floats) halve.
// LION-REPORT: "optimizer_state_bytes_per_rank": 768,
// LION-REPORT-NEXT: "optimizer_state_bytes_unsharded": 1536,
// An update that is not elementwise throughout (a norm of the gradient)
// is refused, naming the op.
// REDUCTION: error: 'train.reduce_sum' op is not elementwise on the parameter's type; data-parallel=zero1 shards an optimizer written as elementwise ops when it is elementwise on its parameter's shape throughout

// The ops' shapes: a shard is the 1-D ceil(n / world_size) of its tensor.
func.func @shard_size(%g: tensor<3x5xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{tensor #0 is 'tensor<3x5xf32>': its shard over 2 ranks is 'tensor<8xf32>', not 'tensor<7xf32>'}}
  %s = train.reduce_scatter %g {world_size = 2 : i64} : tensor<3x5xf32> -> tensor<7xf32>
  return %s : tensor<7xf32>
}

// -----

func.func @gather_size(%s: tensor<5xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{tensor #0 is 'tensor<3x3xf32>': its shard over 3 ranks is 'tensor<3xf32>', not 'tensor<5xf32>'}}
  %g = train.all_gather %s {world_size = 3 : i64} : tensor<5xf32> -> tensor<3x3xf32>
  return %g : tensor<3x3xf32>
}
