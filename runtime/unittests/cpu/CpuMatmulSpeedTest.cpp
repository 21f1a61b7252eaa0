//===- CpuMatmulSpeedTest.cpp - policy=auto's measured rule ---------------===//
//
// autoPolicy with given features and speeds (the rule, on any CPU), and
// cpuMatmulSpeed() on this one: measured where the CPU has 16-bit matrix
// instructions and oneDNN runs, zero elsewhere.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"

#include <gtest/gtest.h>

#include <string>

using namespace mp::rt;

namespace {

MatmulSpeed speedOf(double bf16, double f16) {
  MatmulSpeed s;
  s.bf16 = bf16;
  s.f16 = f16;
  s.f32Kernel = "brg_matmul:avx512_core";
  s.bf16Kernel = "brg_matmul:avx512_core_bf16";
  s.f16Kernel = "brg_matmul:avx10_1_512";
  s.problem = "256x1024x1024";
  return s;
}

CpuFeatureSet withBf16(bool fp16 = false) {
  CpuFeatureSet f;
  f.avx2 = f.avx512 = f.avx512Bf16 = true;
  f.avx512Fp16 = fp16;
  return f;
}

std::string choose(const MatmulSpeed *speed, const CpuFeatureSet &f,
                   std::string *why = nullptr) {
  std::string reason;
  std::string policy = autoPolicy("cpu", reason, speed, &f);
  if (why)
    *why = reason;
  return policy;
}

/// The Xeon whose AMX is hidden: bf16 instructions, bf16 matmuls measured
/// at 0.57x f32's speed: float32, the measurement named.
TEST(CpuMatmulSpeedTest, InstructionsMeasuredSlowGiveFloat32) {
  MatmulSpeed slow = speedOf(0.57, 0);
  std::string why;
  EXPECT_EQ(choose(&slow, withBf16(), &why), "float32");
  EXPECT_NE(why.find("bf16 matmuls ran at 0.57x"), std::string::npos) << why;
  EXPECT_NE(why.find("brg_matmul:avx512_core_bf16"), std::string::npos) << why;
  EXPECT_NE(why.find("1.20x"), std::string::npos) << why;
  // The warning for a user who asks for it anyway.
  // (policySpeedWarning reads this CPU's features: on one without bf16
  // instructions it names them instead.)
  std::string warning = policySpeedWarning("mixed_bfloat16", &slow);
  EXPECT_FALSE(warning.empty());
}

/// Measured fast enough: the 16-bit policy, with the measurement named;
/// the least speed-up is the boundary.
TEST(CpuMatmulSpeedTest, MeasuredFastGivesTheSixteenBitPolicy) {
  MatmulSpeed fast = speedOf(2.1, 0);
  std::string why;
  EXPECT_EQ(choose(&fast, withBf16(), &why), "mixed_bfloat16");
  EXPECT_NE(why.find("ran at 2.10x"), std::string::npos) << why;
  MatmulSpeed edge = speedOf(kSixteenBitMinSpeedup, 0);
  EXPECT_EQ(choose(&edge, withBf16()), "mixed_bfloat16");
  MatmulSpeed below = speedOf(kSixteenBitMinSpeedup - 0.01, 0);
  EXPECT_EQ(choose(&below, withBf16()), "float32");
}

/// bf16 slow, f16 fast: mixed_float16, saying why not bf16.
TEST(CpuMatmulSpeedTest, FallsToFloat16WhereOnlyItPays) {
  MatmulSpeed speed = speedOf(0.57, 1.8);
  std::string why;
  EXPECT_EQ(choose(&speed, withBf16(/*fp16=*/true), &why), "mixed_float16");
  EXPECT_NE(why.find("bf16 ones are slower"), std::string::npos) << why;
  MatmulSpeed neither = speedOf(0.57, 1.03);
  EXPECT_EQ(choose(&neither, withBf16(true), &why), "float32");
  EXPECT_NE(why.find("f16 matmuls ran at 1.03x"), std::string::npos) << why;
}

/// Not measured (no speed, or zero for the dtype): the features decide;
/// without 16-bit instructions a measurement changes nothing.
TEST(CpuMatmulSpeedTest, UnmeasuredFollowsTheFeatures) {
  EXPECT_EQ(choose(nullptr, withBf16()), "mixed_bfloat16");
  MatmulSpeed none;
  EXPECT_EQ(choose(&none, withBf16()), "mixed_bfloat16");
  CpuFeatureSet avx2;
  avx2.avx2 = true;
  MatmulSpeed fast = speedOf(3, 3);
  EXPECT_EQ(choose(&fast, avx2), "float32");
}

/// This machine: measured exactly where there is something to measure,
/// with oneDNN's own kernels (not its reference loops), and the same
/// numbers on a second ask.
TEST(CpuMatmulSpeedTest, MeasuresThisMachine) {
  const CpuFeatureSet &f = cpuFeatureSet();
  const MatmulSpeed &speed = cpuMatmulSpeed();
  bool expected = cpuBackendStatus().isOk() && (f.fastBf16() || f.fastFp16());
  EXPECT_EQ(!speed.f32Kernel.empty(), expected) << cpuFeatures();
  EXPECT_EQ(speed.bf16 > 0, expected && f.fastBf16()) << speed.bf16;
  EXPECT_EQ(speed.f16 > 0, expected && f.fastFp16()) << speed.f16;
  for (const std::string &kernel :
       {speed.f32Kernel, speed.bf16Kernel, speed.f16Kernel})
    EXPECT_EQ(kernel.find("ref:"), std::string::npos) << kernel;
  EXPECT_EQ(&cpuMatmulSpeed(), &speed);
  std::printf("CPU %s (%s): bf16 %.2fx, f16 %.2fx of f32 (%s / %s / %s)\n",
              cpuModel().c_str(), cpuFeatures().c_str(), speed.bf16, speed.f16,
              speed.f32Kernel.c_str(), speed.bf16Kernel.c_str(),
              speed.f16Kernel.c_str());
}

} // namespace
