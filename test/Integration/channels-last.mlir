// mp-compile's --image-layout: the CNN example's convolution chain in NHWC
// (the default) trains to the same losses as the step as written (NCHW) on
// the reference backend, under float32 and mixed_bfloat16 (the kernels sum
// in the same order in both layouts), and on the cpu backend within the
// convolutions' tolerance; its checkpoint loads into the NCHW plan (the
// parameters keep their layout); a bad value is an error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-compile %examples/cnn.mlir -o %t/f32.nhwc.plan
// RUN: mp-compile %examples/cnn.mlir --image-layout=keep -o %t/f32.keep.plan
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_bfloat16" -o %t/bf16.nhwc.plan
// RUN: mp-compile %examples/cnn.mlir --mixed-precision="policy=mixed_bfloat16" --image-layout=keep -o %t/bf16.keep.plan
// RUN: mp-run %t/f32.nhwc.plan --synthetic --steps 4 --backend reference --checkpoint %t/nhwc.ck > %t/f32.log 2>&1
// RUN: mp-run %t/f32.keep.plan --synthetic --steps 4 --backend reference >> %t/f32.log 2>&1
// RUN: FileCheck %s --check-prefix=SAME < %t/f32.log
// RUN: mp-run %t/bf16.nhwc.plan --synthetic --steps 4 --backend reference > %t/bf16.log 2>&1
// RUN: mp-run %t/bf16.keep.plan --synthetic --steps 4 --backend reference >> %t/bf16.log 2>&1
// RUN: FileCheck %s --check-prefix=SAME < %t/bf16.log
// RUN: mp-run %t/f32.nhwc.plan --synthetic --steps 4 --plain --log-every 1 > %t/cpu.log 2>&1
// RUN: mp-run %t/f32.keep.plan --synthetic --steps 4 --plain --log-every 1 >> %t/cpu.log 2>&1
// RUN: FileCheck %s --check-prefix=CPU < %t/cpu.log
// RUN: mp-run %t/f32.keep.plan --synthetic --steps 5 --resume %t/nhwc.ck --resume-other-plan 2>&1 | FileCheck %s --check-prefix=RESUME
// RUN: not mp-compile %examples/cnn.mlir --image-layout=nchw -o %t/x.plan 2>&1 | FileCheck %s --check-prefix=BAD

// SAME: trained 4 steps (0 to 4) {{.*}} last loss [[LOSS:[0-9.]+]];
// SAME: trained 4 steps (0 to 4) {{.*}} last loss [[LOSS]];

// The first step's loss is the same to the printed digit on both plans.
// CPU: step 1/4 loss [[FIRST:[0-9.]+]] scale
// CPU: trained 4 steps
// CPU: step 1/4 loss [[FIRST]] scale
// CPU: trained 4 steps

// RESUME: trained 1 steps (4 to 5)

// BAD: mp-compile: unknown --image-layout 'nchw' (nhwc or keep)
