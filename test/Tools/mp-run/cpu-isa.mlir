// What the cpu backend says about a 16-bit policy on a CPU without fast
// 16-bit instructions, made so on any machine by capping the features at
// AVX2 (MP_MAX_CPU_ISA, which also caps oneDNN): one warning from mp-run
// and from mp-compile --target-cpu=native, naming the missing instructions
// and the faster policy; every matmul and convolution on oneDNN's f32
// kernels with widened operands, never on the reference kernel (mp-run
// --verbose lists what ran each op).
// REQUIRES: onednn
// RUN: rm -rf %t && mkdir -p %t
// RUN: env MP_MAX_CPU_ISA=avx2 mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_float16" --target-cpu=native -o %t/f16.plan 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_float16" -o %t/quiet.plan 2>&1 | count 0
// RUN: env MP_MAX_CPU_ISA=avx2 mp-run %t/f16.plan --synthetic --steps 1 --verbose > %t/f16.log 2>&1
// RUN: FileCheck %s --check-prefix=F16 < %t/f16.log
// RUN: not grep -E "(conv2d|matmul)[a-z_]* +reference kernel" %t/f16.log
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.plan
// RUN: env MP_MAX_CPU_ISA=avx2 mp-run %t/bf16.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=float32" -o %t/f32.plan
// RUN: env MP_MAX_CPU_ISA=avx2 mp-run %t/f32.plan --synthetic --steps 1 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not env MP_MAX_CPU_ISA=avx2 mp-compile %examples/cnn.mlir --target-cpu=pentium -o %t/x.plan 2>&1 | FileCheck %s --check-prefix=BAD

// COMPILE: mp-compile: warning: mixed_float16 cannot be faster than float32 on this CPU ({{AVX2|baseline}}{{.*}}): it has no fp16 matrix instructions (AVX512-FP16 or AMX-FP16){{.*}}float32 is at least as fast here

// F16: mp-run: CPU features: {{AVX2|baseline}}
// F16: mp-run: warning: mixed_float16 cannot be faster than float32
// F16-NOT: warning
// F16: mp-run: what ran each op in the first step (cpu backend):
// F16: train.conv2d {{.*}}oneDNN {{.*}} on f32, f16 widened
// F16: mp.matmul_epilogue {{.*}}oneDNN {{.*}} on f32, f16 widened
// F16: train.conv2d_backward_filter {{.*}}oneDNN {{.*}} on f32, f16 widened
// F16: trained 1 steps

// BF16: mp-run: warning: mixed_bfloat16 cannot be faster than float32 on this CPU {{.*}} no bf16 matrix instructions (AVX512-BF16 or AMX-BF16)
// BF16: trained 1 steps

// F32-NOT: warning
// F32: trained 1 steps

// BAD: mp-compile: unknown --target-cpu 'pentium' (native or generic)
