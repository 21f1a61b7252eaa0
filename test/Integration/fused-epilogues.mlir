// mp-fuse-epilogues end to end. Under float32 the fused step does the same
// f32 operations in the same order as the unfused one: on the reference
// backend the parameters after 3 steps are the same bytes (MLP example). Under
// mixed_bfloat16 the fused plan trains on the reference and the default
// backend (the epilogue rounds once, so it is not bitwise the unfused run).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32" -o %t/fused.plan
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32 fuse-epilogues=false" -o %t/plain.plan
// RUN: mp-run %t/fused.plan --synthetic --steps 3 --backend reference --checkpoint %t/fused.safetensors
// RUN: mp-run %t/plain.plan --synthetic --steps 3 --backend reference --checkpoint %t/plain.safetensors
// The checkpoints differ only in their metadata (the plan hash): compare
// the tensors' bytes.
// RUN: %python -c "import json, struct, sys; load = lambda b: (json.loads(b[8:8 + struct.unpack('<Q', b[:8])[0]]), b[8 + struct.unpack('<Q', b[:8])[0]:]); (h1, d1), (h2, d2) = [load(open(p, 'rb').read()) for p in sys.argv[1:]]; names = [k for k in h1 if k != '__metadata__']; print(len(names), 'tensors'); sys.exit(sorted(names) != sorted(k for k in h2 if k != '__metadata__') or any(d1[slice(*h1[k]['data_offsets'])] != d2[slice(*h2[k]['data_offsets'])] for k in names))" %t/fused.safetensors %t/plain.safetensors | FileCheck %s --check-prefix=SAME
// SAME: 4 tensors
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.plan
// RUN: mp-run %t/bf16.plan --synthetic --steps 3 --backend reference --plain | FileCheck %s
// RUN: mp-run %t/bf16.plan --synthetic --steps 3 --plain | FileCheck %s
// CHECK: trained 3 steps (0 to 3)
// CHECK-SAME: last loss 2.3
