// The causal language model example (examples/causal_lm.mlir) trains with
// mp-run under all three policies on the character corpus the repository
// makes from its own docs, each to an evaluation loss below 0.8 x the
// unigram entropy of the corpus (examples/causal_lm.py check-loss), with
// dropout off in the evaluation plans. Resumed in the middle of the warm-up
// with dropout on, 3 + 3 steps leave the checkpoint of 6 straight steps.
// ("e2e" in the name: the quick test subset, ctest -E "e2e|export", leaves
// it out; it runs about a minute and a half on 2 cores.)
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %examples/causal_lm.py corpus %t | FileCheck %s --check-prefix=CORPUS
// RUN: mp-compile %examples/causal_lm.mlir -o %t/f32.plan
// RUN: mp-compile %examples/causal_lm.mlir --eval -o %t/f32.eval.plan
// RUN: mp-compile %examples/causal_lm.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.plan
// RUN: mp-compile %examples/causal_lm.mlir --mixed-precision="policy=mixed_bfloat16" --eval -o %t/bf16.eval.plan
// RUN: mp-compile %examples/causal_lm.mlir --mixed-precision="policy=mixed_float16" -o %t/f16.plan
// RUN: mp-compile %examples/causal_lm.mlir --mixed-precision="policy=mixed_float16" --eval -o %t/f16.eval.plan
// RUN: mp-run %t/bf16.plan --data %t/train.npz --steps 6 --seed 2 --checkpoint %t/six.ckpt > /dev/null 2>&1
// RUN: mp-run %t/bf16.plan --data %t/train.npz --steps 3 --seed 2 --checkpoint %t/three.ckpt > /dev/null 2>&1
// RUN: mp-run %t/bf16.plan --data %t/train.npz --steps 6 --seed 2 --resume %t/three.ckpt --checkpoint %t/resumed.ckpt > /dev/null 2>&1
// RUN: cmp %t/six.ckpt %t/resumed.ckpt
// RUN: mp-run %t/f32.plan --data %t/train.npz --steps 1000 --plain --log-every 500 --eval-plan %t/f32.eval.plan --eval-data %t/test.npz --eval-every 1000 > %t/f32.log 2>&1
// RUN: %python %examples/causal_lm.py check-loss %t/train.npz %t/f32.log | FileCheck %s
// RUN: mp-run %t/bf16.plan --data %t/train.npz --steps 1000 --plain --log-every 500 --eval-plan %t/bf16.eval.plan --eval-data %t/test.npz --eval-every 1000 > %t/bf16.log 2>&1
// RUN: %python %examples/causal_lm.py check-loss %t/train.npz %t/bf16.log | FileCheck %s
// RUN: mp-run %t/f16.plan --data %t/train.npz --steps 1000 --plain --log-every 500 --eval-plan %t/f16.eval.plan --eval-data %t/test.npz --eval-every 1000 > %t/f16.log 2>&1
// RUN: %python %examples/causal_lm.py check-loss %t/train.npz %t/f16.log | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t/f16.log

// CORPUS: characters from {{[0-9]+}} files: {{[0-9]+}} training and {{[0-9]+}} test windows of 32; unigram entropy
// CHECK: eval loss {{[0-9.]+}} vs unigram entropy {{[0-9.]+}} nats: below 0.8x
// The schedule ends at 0.1 x 3e-3; the loss scale stays up; nothing skipped
// for good:
// LOG: trained 1000 steps (0 to 1000) {{.*}}; lr 0.0003{{[0-9]*}}
