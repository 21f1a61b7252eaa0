// Started as one of several ranks (mpirun -np N sets OMPI_COMM_WORLD_SIZE;
// a PMI launcher PMI_SIZE) with a plan that has no gradient reductions:
// mp-run refuses rather than let each rank train alone on all the data and
// write the same files; MP_INDEPENDENT_RANKS=1 runs them as independent
// runs; a world of one is one process. (A data-parallel plan under mpirun:
// test/Python/test_data_parallel.py.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/mlp.mlir --mixed-precision="policy=float32" -o %t/mlp.plan
// RUN: env OMPI_COMM_WORLD_SIZE=4 not mp-run %t/mlp.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: env PMI_SIZE=2 not mp-run %t/mlp.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=PMI
// RUN: env OMPI_COMM_WORLD_SIZE=4 MP_INDEPENDENT_RANKS=1 mp-run %t/mlp.plan --synthetic --steps 1 --plain 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: env OMPI_COMM_WORLD_SIZE=1 mp-run %t/mlp.plan --synthetic --steps 1 --plain 2>&1 | FileCheck %s --check-prefix=ALONE
// REFUSED: mp-run: error: mp-run was started as one of 4 ranks (by mpirun or another MPI launcher), but the plan has no gradient reductions (train.all_reduce
// REFUSED-SAME: MP_INDEPENDENT_RANKS=1
// PMI: started as one of 2 ranks
// ALONE: trained 1 steps
