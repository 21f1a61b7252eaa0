// mp-data-parallel: the gradients the updates read, in buckets in the
// order the backward pass makes them, each averaged over the ranks by one
// train.all_reduce right after its last gradient; the updates read the
// means. The default bucket (25 MB) holds all of the MLP's; 5 KB makes two,
// the first placed before fc1's backward ops.
// RUN: mp-opt %examples/mlp.mlir --mp-data-parallel="mode=allreduce" | FileCheck %s --check-prefix=ONE
// RUN: mp-opt %examples/mlp.mlir --mp-data-parallel="mode=allreduce bucket-mb=0.005" | FileCheck %s --check-prefix=TWO
// RUN: mp-opt %examples/mlp.mlir --mp-data-parallel="mode=off" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_float16 data-parallel=allreduce" | FileCheck %s --check-prefix=F16
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 data-parallel=allreduce bucket-mb=0.005 report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: mp-opt %examples/mlp.mlir --mp-mixed-precision="policy=mixed_bfloat16 data-parallel=allreduce reduce-dtype=bf16 report=%t.bf16.json" | FileCheck %s --check-prefix=BF16
// RUN: FileCheck %s --check-prefix=BF16-REPORT --input-file=%t.bf16.json
// RUN: not mp-opt %examples/mlp.mlir --mp-data-parallel="mode=allreduce reduce-dtype=f16" 2>&1 | FileCheck %s --check-prefix=REDUCE-DTYPE
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=mixed_bfloat16 data-parallel=allreduce report=%t.cnn.json" | FileCheck %s --check-prefix=BUFFERS
// RUN: FileCheck %s --check-prefix=BUFFERS-REPORT --input-file=%t.cnn.json
// RUN: mp-opt %examples/cnn.mlir --mp-mixed-precision="policy=float32 data-parallel=allreduce sync-batch-norm=true report=%t.sync.json" | FileCheck %s --check-prefix=SYNC
// RUN: FileCheck %s --check-prefix=SYNC-REPORT --input-file=%t.sync.json
// RUN: not mp-opt %examples/mlp.mlir --mp-data-parallel="mode=ring" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mp-opt %examples/mlp.mlir --mp-data-parallel="mode=allreduce bucket-mb=0" 2>&1 | FileCheck %s --check-prefix=SIZE

// ONE: %[[D_FC1_W:.*]] = train.matmul %arg0, %{{.*}} {transpose_lhs}
// ONE-NEXT: %[[R:.*]]:4 = train.all_reduce %{{.*}}, %{{.*}}, %{{.*}}, %[[D_FC1_W]] : tensor<10xf32>, tensor<256x10xf32>, tensor<256xf32>, tensor<784x256xf32>
// ONE: train.sgd %arg2, %[[R]]#3
// ONE: train.sgd %arg5, %[[R]]#0

// TWO: %[[D_FC2_W:.*]] = train.matmul %{{.*}}, %{{.*}} {transpose_lhs} : tensor<32x256xf32>, tensor<32x10xf32>
// TWO-NEXT: %[[R2:.*]]:2 = train.all_reduce %{{.*}}, %[[D_FC2_W]] : tensor<10xf32>, tensor<256x10xf32>
// TWO: train.relu_grad
// TWO: %[[R1:.*]]:2 = train.all_reduce %{{.*}}, %{{.*}} : tensor<256xf32>, tensor<784x256xf32>
// TWO: train.sgd %arg2, %[[R1]]#1
// TWO: train.sgd %arg4, %[[R2]]#1

// OFF-NOT: train.all_reduce

// The loss-scaling check reads the reduced gradients: every rank skips
// alike.
// F16: %[[M:.*]]:4 = train.all_reduce
// F16: mp.unscale_and_check %{{.*}}, %[[M]]#3, %[[M]]#2, %[[M]]#1, %[[M]]#0

// What was inserted, in the JSON report: two reductions of the MLP's
// 203530 f32 gradient elements.
// REPORT: "data_parallel": {
// REPORT-NEXT: "bytes_per_step": 814120,
// REPORT-NEXT: "dtype": "f32",
// REPORT-NEXT: "mode": "allreduce",
// REPORT-NEXT: "reductions": 2

// reduce-dtype=bf16: the operands and results stay f32 (master
// gradients); what travels is bf16, half the bytes.
// BF16: train.all_reduce {{.*}} {reduce_dtype = 1 : i64{{.*}}} : tensor<10xf32>, tensor<256x10xf32>, tensor<256xf32>, tensor<784x256xf32>
// BF16-REPORT: "bytes_per_step": 407060,
// BF16-REPORT-NEXT: "dtype": "bf16",

// Batch norm: each rank's own statistics, rank 0's running statistics
// kept on every rank (DDP's broadcast_buffers): one broadcast of the four,
// after the last is computed; the step returns the broadcast values.
// BUFFERS: %{{.*}}, %[[M1:.*]], %[[V1:.*]], %{{.*}}, %{{.*}} = train.batch_norm
// BUFFERS: %{{.*}}, %[[M2:.*]], %[[V2:.*]], %{{.*}}, %{{.*}} = train.batch_norm
// BUFFERS: %[[B:.*]]:4 = train.rank_broadcast %[[M1]], %[[V1]], %[[M2]], %[[V2]] : tensor<32xf32>, tensor<32xf32>, tensor<64xf32>, tensor<64xf32>
// BUFFERS: return %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[B]]#0, %[[B]]#1, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[B]]#2, %[[B]]#3,
// BUFFERS-REPORT: "data_parallel": {
// BUFFERS-REPORT-NEXT: "batch_norm": "per-rank batch statistics; rank 0's running statistics on every rank (PyTorch DDP's broadcast_buffers)",
// BUFFERS-REPORT-NEXT: "buffer_bytes_per_step": 768,
// BUFFERS-REPORT-NEXT: "buffers_from_rank0": 4,
// sync-batch-norm: the number of ranks (a sum of ones), then per batch
// norm the global mean, the global variance around it (two passes), and
// in the gradient the global means of dy and dy * x^; the parameters'
// gradients join the buckets.
// SYNC: func.func @train_step({{.*}}attributes {{.*}}mp.sync_batch_norm
// SYNC: %[[ONES:.*]] = train.fill 1.000000e+00 : tensor<32xf32>
// SYNC-NEXT: %[[RANKS:.*]] = train.all_reduce %[[ONES]] {mean = false}
// SYNC: %[[X:.*]] = train.conv2d NCHW %arg0
// SYNC-NEXT: %[[M:.*]] = train.reduce_mean %[[X]] {dims = array<i64: 0, 2, 3>}
// SYNC-NEXT: %[[GM:.*]] = train.all_reduce %[[M]] :
// SYNC-NEXT: %[[GMB:.*]] = train.broadcast %[[GM]]
// SYNC-NEXT: %[[C:.*]] = train.sub %[[X]], %[[GMB]]
// SYNC-NEXT: %[[SQ:.*]] = train.mul %[[C]], %[[C]]
// SYNC-NEXT: %[[V:.*]] = train.reduce_mean %[[SQ]]
// SYNC-NEXT: train.all_reduce %[[V]] :
// SYNC-NOT: train.batch_norm
// SYNC: train.all_reduce %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>
// SYNC-NOT: train.batch_norm_grad
// SYNC: train.all_reduce %{{.*}}, %{{.*}} : tensor<32xf32>, tensor<32xf32>
// SYNC-REPORT: "batch_norm": "batch statistics of the global batch, over every rank (SyncBatchNorm)",
// MODE: error: mp-data-parallel: unknown mode 'ring' (expected off, allreduce or zero1)
// REDUCE-DTYPE: error: mp-data-parallel: unknown reduce-dtype 'f16' (expected f32 or bf16)
// SIZE: error: mp-data-parallel: bucket-mb must be > 0, got 0
