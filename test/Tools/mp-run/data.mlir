// mp-run feeds every input and label of a plan by name (--data), from .npy,
// .npz and .safetensors files, and checks each against the plan: here two
// integer feeds of shape [batch, T] (token ids and next tokens).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_sequences.py %t
// RUN: mp-compile %S/Inputs/next_token.mlir -o %t/seq.plan
// RUN: mp-compile %S/Inputs/next_token.mlir --eval -o %t/seq.eval.plan
// RUN: mp-run %t/seq.plan --data tokens=%t/tokens.npy --data targets=%t/targets.npy --steps 40 --plain --log-every 20 --eval-plan %t/seq.eval.plan --eval-data %t/seq.npz 2>&1 | FileCheck %s --check-prefix=NPY
// RUN: mp-run %t/seq.plan --data %t/seq.npz --steps 40 --plain --log-every 40 2>&1 | FileCheck %s --check-prefix=NPZ
// RUN: mp-run %t/seq.plan --data %t/seq.safetensors --steps 40 --plain --log-every 40 2>&1 | FileCheck %s --check-prefix=NPZ
// RUN: mp-run %t/seq.plan --data %t/seq_extra.npz --steps 2 --plain --log-every 1 --no-shuffle 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: mp-run %t/seq.plan --data tokens=%t/tokens_i32.npy --data targets=%t/targets.npy --steps 2 --plain 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: mp-run %t/seq.plan --synthetic --steps 2 --plain --log-every 1 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not mp-run %t/seq.plan --data tokens=%t/tokens.npy --steps 1 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mp-run %t/seq.plan --data %t/seq.npz --data toks=%t/tokens.npy --steps 1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mp-run %t/seq.plan --data %t/seq.npz --data tokens=%t/tokens.npy --steps 1 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not mp-run %t/seq.plan --data tokens=%t/tokens_flat.npy --data targets=%t/targets.npy --steps 1 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not mp-run %t/seq.plan --data tokens=%t/tokens_float.npy --data targets=%t/targets.npy --steps 1 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not mp-run %t/seq.plan --data tokens=%t/tokens_far.npy --data targets=%t/targets.npy --steps 1 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mp-run %t/seq.plan --data tokens=%t/tokens.npy --data targets=%t/targets_short.npy --steps 1 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not mp-run %t/seq.plan --data %t/seq_compressed.npz --steps 1 2>&1 | FileCheck %s --check-prefix=COMPRESSED
// RUN: not mp-run %t/seq.plan --data %t/seq_corrupt.npz --steps 1 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: not mp-run %t/seq.plan --train-x %t/tokens.npy --train-y %t/targets.npy --data %t/seq.npz --steps 1 2>&1 | FileCheck %s --check-prefix=TWICE2
// RUN: not mp-run %t/seq.plan --data %t/seq.txt --steps 1 2>&1 | FileCheck %s --check-prefix=SPEC
// A frozen buffer: its value comes from --init-params (required), stays as
// it is through training, and checkpoints keep it for --resume.
// RUN: mp-compile %S/Inputs/frozen_scale.mlir --mixed-precision="policy=mixed_float16" -o %t/frozen.plan
// RUN: not mp-run %t/frozen.plan --data %t/seq.npz --steps 1 2>&1 | FileCheck %s --check-prefix=FROZEN-NONE
// RUN: not mp-run %t/frozen.plan --data %t/seq.npz --steps 1 --init-params %t/init_params_only.safetensors 2>&1 | FileCheck %s --check-prefix=FROZEN-MISSING
// RUN: mp-run %t/frozen.plan --data %t/seq.npz --steps 20 --plain --init-params %t/init.safetensors --checkpoint %t/frozen.ckpt 2>&1 | FileCheck %s --check-prefix=NPZ-20
// RUN: %python -c "import json,struct; b=open('%t/frozen.ckpt','rb').read(); n=struct.unpack('<Q',b[:8])[0]; h=json.loads(b[8:8+n]); o=h['logit_scale']['data_offsets']; print('logit_scale', h['logit_scale']['shape'], set(struct.unpack('<192f', b[8+n+o[0]:8+n+o[1]])))" | FileCheck %s --check-prefix=FROZEN-KEPT
// RUN: mp-run %t/frozen.plan --data %t/seq.npz --steps 30 --plain --resume %t/frozen.ckpt 2>&1 | FileCheck %s --check-prefix=FROZEN-RESUMED

// The task (target = token + 1 mod 6) is learnt: the loss falls from
// ln 6 = 1.79, and the held-out accuracy compares the argmax of every
// position's logits with its target.
// NPY: step 20/40 loss {{0\.[0-9]+|1\.[0-6][0-9]*}}
// NPY: eval step 40: loss {{0\.[0-9]+}} accuracy {{[0-9.]+}}% (64 samples)
// NPZ: step 40/40 loss {{0\.[0-9]+}}
// NPZ-20: trained 20 steps (0 to 20)
// EXTRA: trained 2 steps

// MISSING: mp-run: error: the plan's label 'targets' (i64[8, 4]) has no data: give --data targets=FILE.npy
// UNKNOWN: mp-run: error: {{.*}}tokens.npy: the plan has no input or label named 'toks' (it has 'tokens' (input), 'targets' (label))
// TWICE: mp-run: error: --data: 'tokens' is given twice ({{.*}}seq.npz entry 'tokens' and {{.*}}tokens.npy)
// SHAPE: mp-run: error: {{.*}}tokens_flat.npy: samples of shape [] (1 values), but the plan's input 'tokens' (i64[8, 4]) takes [4] (4 values) per sample
// KIND: mp-run: error: {{.*}}tokens_float.npy: floating-point data, but the plan's input 'tokens' (i64[8, 4]) takes integers
// RANGE: mp-run: error: {{.*}}tokens_far.npy: value 6 in sample 9 at position 1 is outside the rows of the embedding table 'tok_emb' [0, 6)
// ROWS: mp-run: error: {{.*}}targets_short.npy: 63 samples, but {{.*}}tokens.npy has 64; every input and label needs one row per sample
// COMPRESSED: mp-run: error: {{.*}}seq_compressed.npz entry 'tokens.npy' is compressed (zip method 8); mp-run reads uncompressed archives: save with np.savez, not np.savez_compressed
// CORRUPT: mp-run: error: {{.*}}seq_corrupt.npz entry '{{.*}}.npy': corrupt data (CRC-32 mismatch)
// TWICE2: mp-run: error: --data: 'tokens' is given twice
// FROZEN-NONE: mp-run: error: {{.*}}frozen.plan: the frozen buffer 'logit_scale' (the step only reads it) needs its value: give it with --init-params FILE.safetensors (or --resume)
// FROZEN-MISSING: mp-run: error: {{.*}}init_params_only.safetensors' does not match the plan: missing from the file: 'logit_scale'
// FROZEN-KEPT: logit_scale [32, 6] {2.0}
// FROZEN-RESUMED: trained 10 steps (20 to 30)
// SPEC: mp-run: error: --data '{{.*}}seq.txt': expected NAME=FILE.npy, FILE.npz or FILE.safetensors
