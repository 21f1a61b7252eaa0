// mp-opt --help lists mlir-opt's options and mp's passes, not LLVM's
// internal ones (every target's, registered by libMLIR.so when it loads;
// they still parse: --help-hidden lists them).
// RUN: mp-opt --help | FileCheck %s
// RUN: mp-opt --help | FileCheck %s --check-prefix=NOT-LLVM
// RUN: mp-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --mp-assign-precision
// CHECK-DAG: --mp-insert-casts
// NOT-LLVM-NOT: aarch64
// NOT-LLVM-NOT: amdgpu
// NOT-LLVM-NOT: --x86-
// NOT-LLVM-NOT: polly
// HIDDEN: --x86-
