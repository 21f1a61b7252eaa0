#!/bin/bash
# Data parallel on one machine (docs/benchmarks.md, issue 42): per model,
# one process on 2 threads with the global batch, one rank alone on 1
# thread with half of it (the compute of one rank), and mpirun -np 2 of
# the data-parallel plan (f32 reductions with and without overlap
# (MP_COLLECTIVE_OVERLAP=0), bf16 reductions, ZeRO-1), 2 rounds
# alternating; the bytes each rank reduces (and gathers) per step and the
# optimizer state per rank, from the precision report. Run it in an empty
# folder: it writes its models and plans there.
set -e
M=${MP_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for m in mlp tf; do
  if [ $m = mlp ]; then g="mlp"; big=256; small=128; steps=20; else g="transformer"; big=16; small=8; steps=6; fi
  [ -f ${m}$big.mlir ] || python3 $M/bench/gen_models.py $g -o ${m}$big.mlir --batch $big
  [ -f ${m}$small.mlir ] || python3 $M/bench/gen_models.py $g -o ${m}$small.mlir --batch $small
  $M/build/bin/mp-compile ${m}$big.mlir --mixed-precision="policy=float32" --codegen=cpu -o ${m}$big.plan
  $M/build/bin/mp-compile ${m}$small.mlir --mixed-precision="policy=float32 data-parallel=allreduce report=${m}.f32.json" --codegen=cpu -o ${m}$small.f32.plan
  $M/build/bin/mp-compile ${m}$small.mlir --mixed-precision="policy=float32 data-parallel=allreduce reduce-dtype=bf16 report=${m}.bf16.json" --codegen=cpu -o ${m}$small.bf16.plan
  $M/build/bin/mp-compile ${m}$small.mlir --mixed-precision="policy=float32 data-parallel=zero1 world-size=2 report=${m}.zero1.json" --codegen=cpu -o ${m}$small.zero1.plan
done
for round in 1 2; do
  for m in mlp tf; do
    if [ $m = mlp ]; then big=256; small=128; steps=20; else big=16; small=8; steps=6; fi
    one=$($M/build/bin/mp-run ${m}$big.plan --synthetic --synthetic-samples 512 --steps $steps --threads 2 --plain | grep -o "in [0-9.]* s")
    echo "round $round $m | 1 rank x 2 threads: $one"
    one1=$($M/build/bin/mp-run ${m}$small.f32.plan --synthetic --synthetic-samples 512 --steps $steps --threads 1 --plain | grep -o "in [0-9.]* s")
    echo "round $round $m | 1 rank x 1 thread, half batch (compute of one rank): $one1"
    for v in "f32 overlap:f32:1" "f32 no overlap:f32:0" "bf16 overlap:bf16:1" "zero1 overlap:zero1:1"; do
      name=${v%%:*}; rest=${v#*:}; dt=${rest%%:*}; ov=${rest#*:}
      out=$(MP_COLLECTIVE_OVERLAP=$ov mpirun -np 2 --oversubscribe --bind-to none $M/build/bin/mp-run ${m}$small.$dt.plan --synthetic --synthetic-samples 512 --steps $steps --threads 1 --plain)
      echo "round $round $m | 2 ranks x 1 thread, $name: $(echo "$out" | grep -o 'in [0-9.]* s'); $(echo "$out" | grep -o 'waited.*step)')"
    done
  done
done
for f in *.json; do echo "$f:"; grep -h -A10 '"data_parallel"' $f | grep -E "bytes|dtype|mode|reductions"; done
