// mp-compile --help lists its own options, not LLVM's internal ones (every
// target's, registered by libMLIR.so).
// RUN: mp-compile --help | FileCheck %s
// RUN: mp-compile --help | FileCheck %s --check-prefix=NOT-LLVM
// CHECK: mp-compile options:
// CHECK-DAG: --check-only
// CHECK-DAG: --fix-deny
// CHECK-DAG: --mixed-precision
// NOT-LLVM-NOT: aarch64
// NOT-LLVM-NOT: amdgpu
// NOT-LLVM-NOT: --x86-
