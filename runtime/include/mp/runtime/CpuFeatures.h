//===- CpuFeatures.h - what this CPU offers the kernels ---------*- C++ -*-===//
//
// Read once from cpuid and the OS's enabled register state (no oneDNN
// needed), then capped: MP_MAX_CPU_ISA (ours) and ONEDNN_MAX_CPU_ISA
// (oneDNN's) both lower what counts as present, so that a machine with AMX
// can run the AVX2-only paths (the forced-ISA tests, docs/runtime-cpu.md).
// The cpu backend hands the same cap to oneDNN, and its own vector loops
// (conversions, exp/erf/tanh) pick their instruction set from these
// features, so every path below the machine's best is reachable anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPUFEATURES_H
#define MP_RUNTIME_CPUFEATURES_H

#include <string>

namespace mp::rt {

struct CpuFeatureSet {
  bool avx2 = false;       ///< AVX2 + FMA
  bool f16c = false;       ///< f16 <-> f32 conversions (AVX, F16C)
  bool avx512 = false;     ///< AVX-512 F/BW/VL/DQ ("avx512_core")
  bool avx512Bf16 = false; ///< AVX512_BF16: bf16 dot products
  bool avx512Fp16 = false; ///< AVX512_FP16: f16 arithmetic
  bool amxBf16 = false;    ///< AMX tiles with bf16
  bool amxFp16 = false;    ///< AMX tiles with f16

  /// A matrix unit or dot-product instructions for 16-bit operands:
  /// oneDNN then runs bf16 / f16 GEMMs natively. Not always faster than
  /// f32 ones: an Intel Xeon whose AMX is not enabled issues AVX512-BF16's
  /// dot products at half its f32 FMA rate (MatmulSpeed below measures).
  bool fastBf16() const { return avx512Bf16 || amxBf16; }
  bool fastFp16() const { return avx512Fp16 || amxFp16; }
};

/// The features of this CPU after the caps (computed once per process).
const CpuFeatureSet &cpuFeatureSet();

/// "GenuineIntel family 6 model 207 stepping 2": which CPU this is, for
/// keys of what was measured on it (cpuid; "unknown" off x86).
std::string cpuModel();

/// How fast this machine's 16-bit matmuls run against f32 ones, as the cpu
/// backend measured them (cpuMatmulSpeed(), Backend.h): f32 time over the
/// 16-bit time of the same problem on oneDNN's primitives (> 1: faster),
/// 0 where not measured.
struct MatmulSpeed {
  double bf16 = 0, f16 = 0;
  /// oneDNN's implementations that ran ("brg_matmul:avx512_core_bf16").
  std::string f32Kernel, bf16Kernel, f16Kernel;
  std::string problem; ///< "256x1024x1024"
};

/// The least speed-up over f32 that policy=auto asks of a 16-bit policy's
/// matmuls: the policy also pays for its casts and loss scaling, which
/// f32 does not, so matmuls merely as fast would make the step slower.
constexpr double kSixteenBitMinSpeedup = 1.2;

/// "AMX-BF16, AVX-512 FP16, AVX-512 BF16, AVX-512, AVX2", best first, or
/// "baseline (no AVX2)"; with " (capped at avx2 by MP_MAX_CPU_ISA)" when a
/// cap removed some.
std::string cpuFeatures();

/// The cap in force as oneDNN's ISA name ("AVX2", "AVX512_CORE_BF16"), or
/// "" when neither variable is set. The cpu backend passes it to oneDNN.
std::string cpuIsaCapForOneDnn();

/// For a plan of `policy` on this CPU: "" when the policy's 16-bit
/// matmuls and convolutions have fast instructions here (or the policy is
/// float32), else one line naming the missing feature and the policy that
/// is faster here (mixed_float16 without fp16 units: mixed_bfloat16 where
/// bf16 is fast, else float32; mixed_bfloat16 without bf16 instructions:
/// float32). With `speed` (measured here): also when the CPU has the
/// instructions but its 16-bit matmuls ran slower than f32 ones.
std::string policySpeedWarning(const std::string &policy,
                               const MatmulSpeed *speed = nullptr);

/// policy=auto: the policy that is fast and safe for `target` on this
/// machine, and why, in one sentence (`reason`). "cpu": mixed_bfloat16
/// where the CPU has bf16 matrix instructions, else mixed_float16 where it
/// has fp16 ones, else float32 (a 16-bit policy could only be slower);
/// with `speed`, a 16-bit policy only where its matmuls were measured at
/// least kSixteenBitMinSpeedup times as fast as f32 ones here (features
/// alone where a dtype was not measured). "cuda": mixed_bfloat16 (the cuda
/// backend's GPUs compute bf16 on Tensor Cores and need no loss scaling
/// for it). "" for another target. `features`: this CPU's unless given
/// (tests give others).
std::string autoPolicy(const std::string &target, std::string &reason,
                       const MatmulSpeed *speed = nullptr,
                       const CpuFeatureSet *features = nullptr);

} // namespace mp::rt

#endif // MP_RUNTIME_CPUFEATURES_H
