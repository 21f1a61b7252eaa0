//===- CpuFeatures.cpp - what the CPU offers the kernels ------------------===//
//
// cpuid plus XGETBV: a feature counts only when the OS also saves its
// registers (AVX-512 state for the AVX-512 extensions, tile state for AMX),
// because that is what decides whether a kernel using it can run. Then the
// caps of MP_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA (CpuFeatures.h).
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/Vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace mp::rt;

namespace {
/// The levels a cap can name, in order; each implies the ones below.
enum class Level {
  Baseline,
  Avx2,
  Avx512,
  Avx512Bf16,
  Avx512Fp16,
  AmxBf16,
  AmxFp16,
  Unlimited
};

struct LevelName {
  const char *ours, *oneDnn;
  Level level;
};
/// Our names, oneDNN's ONEDNN_MAX_CPU_ISA values (and the aliases it
/// accepts) and the level each stands for.
const LevelName kLevels[] = {
    {"baseline", "SSE41", Level::Baseline},
    {"sse41", "SSE41", Level::Baseline},
    {"avx", "AVX", Level::Baseline},
    {"avx2", "AVX2", Level::Avx2},
    {"avx2_vnni", "AVX2_VNNI", Level::Avx2},
    {"avx2_vnni_2", "AVX2_VNNI_2", Level::Avx2},
    {"avx512", "AVX512_CORE", Level::Avx512},
    {"avx512_core", "AVX512_CORE", Level::Avx512},
    {"avx512_vnni", "AVX512_CORE_VNNI", Level::Avx512},
    {"avx512_core_vnni", "AVX512_CORE_VNNI", Level::Avx512},
    {"avx512_bf16", "AVX512_CORE_BF16", Level::Avx512Bf16},
    {"avx512_core_bf16", "AVX512_CORE_BF16", Level::Avx512Bf16},
    {"avx512_fp16", "AVX512_CORE_FP16", Level::Avx512Fp16},
    {"avx512_core_fp16", "AVX512_CORE_FP16", Level::Avx512Fp16},
    {"avx10_1_512", "AVX10_1_512", Level::Avx512Fp16},
    {"amx_bf16", "AVX512_CORE_AMX", Level::AmxBf16},
    {"avx512_core_amx", "AVX512_CORE_AMX", Level::AmxBf16},
    {"avx10_1_512_amx", "AVX10_1_512_AMX", Level::AmxBf16},
    {"amx_fp16", "AVX512_CORE_AMX_FP16", Level::AmxFp16},
    {"avx512_core_amx_fp16", "AVX512_CORE_AMX_FP16", Level::AmxFp16},
    {"avx10_1_512_amx_fp16", "AVX10_1_512_AMX_FP16", Level::AmxFp16},
    {"all", "ALL", Level::Unlimited},
    {"default", "DEFAULT", Level::Unlimited},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// The level an environment variable caps at; Unlimited when it is unset
/// or names no level we know (then only oneDNN interprets it).
Level capOf(const char *variable) {
  const char *value = std::getenv(variable);
  if (!value || !*value)
    return Level::Unlimited;
  std::string v = lower(value);
  for (const LevelName &l : kLevels)
    if (v == l.ours || v == lower(l.oneDnn))
      return l.level;
  return Level::Unlimited;
}

struct Detected {
  CpuFeatureSet features;
  Level cap = Level::Unlimited;
  const char *capVariable = nullptr;
  std::string capText;
  bool capped = false; ///< the cap removed a feature the CPU has
};

#if defined(__x86_64__) || defined(__i386__)
struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs cpuid(unsigned leaf, unsigned subleaf) {
  CpuidRegs r;
  if (static_cast<unsigned>(__get_cpuid_max(0, nullptr)) < leaf)
    return r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool bit(unsigned value, int index) { return (value >> index) & 1; }

/// XCR0: which register states the OS saves (0 when XGETBV is unavailable).
unsigned long long xcr0() {
  if (!bit(cpuid(1, 0).ecx, 27)) // OSXSAVE
    return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

CpuFeatureSet hardware() {
  CpuFeatureSet f;
  unsigned long long xcr = xcr0();
  bool avxState = (xcr & 0x6) == 0x6;                  // SSE + AVX
  bool avx512State = avxState && (xcr & 0xe0) == 0xe0; // opmask, ZMM
  bool tileState = (xcr & 0x60000) == 0x60000;         // XTILECFG, XTILEDATA
  CpuidRegs l1 = cpuid(1, 0), l7 = cpuid(7, 0), l7s1 = cpuid(7, 1);
  f.f16c = avxState && bit(l1.ecx, 28) && bit(l1.ecx, 29);
  f.avx2 = avxState && bit(l7.ebx, 5) && bit(l1.ecx, 12); // + FMA
  // avx512_core: F, DQ, BW, VL.
  f.avx512 = avx512State && bit(l7.ebx, 16) && bit(l7.ebx, 17) &&
             bit(l7.ebx, 30) && bit(l7.ebx, 31);
  f.avx512Bf16 = f.avx512 && bit(l7s1.eax, 5);
  f.avx512Fp16 = f.avx512 && bit(l7.edx, 23);
  f.amxBf16 = tileState && f.avx512 && bit(l7.edx, 24) && bit(l7.edx, 22);
  f.amxFp16 = f.amxBf16 && bit(l7s1.eax, 21);
  return f;
}
#else
CpuFeatureSet hardware() { return {}; }
#endif

CpuFeatureSet capped(CpuFeatureSet f, Level cap) {
  auto allow = [cap](Level needs) { return cap >= needs; };
  f.avx2 &= allow(Level::Avx2);
  f.avx512 &= allow(Level::Avx512);
  f.avx512Bf16 &= allow(Level::Avx512Bf16);
  f.avx512Fp16 &= allow(Level::Avx512Fp16);
  f.amxBf16 &= allow(Level::AmxBf16);
  f.amxFp16 &= allow(Level::AmxFp16);
  return f;
}

bool same(const CpuFeatureSet &a, const CpuFeatureSet &b) {
  return a.avx2 == b.avx2 && a.avx512 == b.avx512 &&
         a.avx512Bf16 == b.avx512Bf16 && a.avx512Fp16 == b.avx512Fp16 &&
         a.amxBf16 == b.amxBf16 && a.amxFp16 == b.amxFp16;
}

Detected detect() {
  Detected d;
  CpuFeatureSet all = hardware();
  for (const char *variable : {"MP_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA"}) {
    Level cap = capOf(variable);
    if (cap < d.cap) {
      d.cap = cap;
      d.capVariable = variable;
      d.capText = std::getenv(variable);
    }
  }
  d.features = capped(all, d.cap);
  d.capped = !same(all, d.features);
  return d;
}

const Detected &detected() {
  static const Detected d = detect();
  return d;
}
} // namespace

const CpuFeatureSet &mp::rt::cpuFeatureSet() { return detected().features; }

std::string mp::rt::cpuModel() {
#if defined(__x86_64__) || defined(__i386__)
  CpuidRegs vendor = cpuid(0, 0), l1 = cpuid(1, 0);
  char name[13] = {};
  std::memcpy(name, &vendor.ebx, 4);
  std::memcpy(name + 4, &vendor.edx, 4);
  std::memcpy(name + 8, &vendor.ecx, 4);
  // Family and model with their extensions (Intel's and AMD's rule).
  unsigned family = (l1.eax >> 8) & 0xf, model = (l1.eax >> 4) & 0xf;
  if (family == 0xf)
    family += (l1.eax >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf)
    model += ((l1.eax >> 16) & 0xf) << 4;
  return std::string(name) + " family " + std::to_string(family) + " model " +
         std::to_string(model) + " stepping " + std::to_string(l1.eax & 0xf);
#else
  return "unknown";
#endif
}

std::string mp::rt::cpuFeatures() {
  const Detected &d = detected();
  const CpuFeatureSet &f = d.features;
  std::string out;
  auto add = [&](bool have, const char *name) {
    if (!have)
      return;
    if (!out.empty())
      out += ", ";
    out += name;
  };
  add(f.amxBf16, "AMX-BF16");
  add(f.amxFp16, "AMX-FP16");
  add(f.avx512Fp16, "AVX-512 FP16");
  add(f.avx512Bf16, "AVX-512 BF16");
  add(f.avx512, "AVX-512");
  add(f.avx2, "AVX2");
  if (out.empty())
    out = "baseline (no AVX2)";
  if (d.capped)
    out += std::string(" (capped at ") + d.capText + " by " + d.capVariable +
           ")";
  return out;
}

std::string mp::rt::cpuIsaCapForOneDnn() {
  const Detected &d = detected();
  if (d.cap == Level::Unlimited)
    return "";
  for (const LevelName &l : kLevels)
    if (l.level == d.cap)
      return l.oneDnn;
  return "";
}

/// "2.10x" for a measured ratio.
static std::string times(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

/// "bf16 matmuls ran at 0.57x the speed of f32 ones here (oneDNN
/// brg_matmul:avx512_core_bf16 against brg_matmul:avx512_core,
/// 256x1024x1024)".
static std::string measuredText(const char *dtype, double ratio,
                                const std::string &kernel,
                                const MatmulSpeed &speed) {
  return std::string(dtype) + " matmuls ran at " + times(ratio) +
         " the speed of f32 ones here (oneDNN " + kernel + " against " +
         speed.f32Kernel + ", " + speed.problem + ")";
}

std::string mp::rt::policySpeedWarning(const std::string &policy,
                                       const MatmulSpeed *speed) {
  const CpuFeatureSet &f = cpuFeatureSet();
  std::string cpu = "this CPU (" + cpuFeatures() + ")";
  std::optional<vocab::PolicyKind> kind = vocab::symbolizePolicyKind(policy);
  if (kind == vocab::PolicyKind::MixedFloat16 && !f.fastFp16())
    return policy + " cannot be faster than float32 on " + cpu +
           ": it has no fp16 matrix instructions (AVX512-FP16 or AMX-FP16), "
           "so f16 matmuls and convolutions run as f32 ones on widened "
           "operands; " +
           (f.fastBf16() ? std::string(vocab::stringify(
                               vocab::PolicyKind::MixedBFloat16)) +
                               " is faster here"
                         : "float32 is at least as fast here and needs no "
                           "loss scaling");
  if (kind == vocab::PolicyKind::MixedBFloat16 && !f.fastBf16())
    return policy + " cannot be faster than float32 on " + cpu +
           ": it has no bf16 matrix instructions (AVX512-BF16 or AMX-BF16), "
           "so bf16 matmuls and convolutions run as f32 ones on widened "
           "operands; float32 is at least as fast here and more accurate";
  // The instructions are there; measured slower all the same.
  if (speed && kind == vocab::PolicyKind::MixedBFloat16 && speed->bf16 > 0 &&
      speed->bf16 < 1)
    return policy + " is slower than float32 on " + cpu + ": " +
           measuredText("bf16", speed->bf16, speed->bf16Kernel, *speed) +
           "; float32 is faster here and more accurate";
  if (speed && kind == vocab::PolicyKind::MixedFloat16 && speed->f16 > 0 &&
      speed->f16 < 1)
    return policy + " is slower than float32 on " + cpu + ": " +
           measuredText("f16", speed->f16, speed->f16Kernel, *speed) +
           "; float32 is faster here and needs no loss scaling";
  return "";
}

std::string mp::rt::autoPolicy(const std::string &target, std::string &reason,
                               const MatmulSpeed *speed,
                               const CpuFeatureSet *features) {
  using vocab::PolicyKind;
  if (target == "cuda") {
    reason = "the cuda backend's GPUs (compute capability 8.0 and later) "
             "compute bf16 on Tensor Cores, with float32's range: no loss "
             "scaling";
    return vocab::stringify(PolicyKind::MixedBFloat16);
  }
  if (target != "cpu")
    return "";
  const CpuFeatureSet &f = features ? *features : cpuFeatureSet();
  std::string cpu = "this CPU (" + cpuFeatures() + ")";
  // A dtype whose instructions are there counts as fast unless it was
  // measured (speed > 0) below the least speed-up.
  double bf16 = speed ? speed->bf16 : 0, f16 = speed ? speed->f16 : 0;
  bool bf16Fast = f.fastBf16() && !(bf16 > 0 && bf16 < kSixteenBitMinSpeedup);
  bool f16Fast = f.fastFp16() && !(f16 > 0 && f16 < kSixteenBitMinSpeedup);
  if (bf16Fast) {
    reason = cpu + " has bf16 matrix instructions";
    if (bf16 > 0)
      reason +=
          ", and " + measuredText("bf16", bf16, speed->bf16Kernel, *speed);
    reason += ": bf16 matmuls and convolutions run natively, with float32's "
              "range";
    return vocab::stringify(PolicyKind::MixedBFloat16);
  }
  if (f16Fast) {
    reason = cpu + " has fp16 matrix instructions";
    if (f16 > 0)
      reason += ", and " + measuredText("f16", f16, speed->f16Kernel, *speed);
    if (f.fastBf16())
      reason += ", but its bf16 ones are slower (" +
                measuredText("bf16", bf16, speed->bf16Kernel, *speed) + ")";
    reason += ": f16 matmuls and convolutions run natively, with dynamic loss "
              "scaling";
    return vocab::stringify(PolicyKind::MixedFloat16);
  }
  if (f.fastBf16() || f.fastFp16()) {
    // The instructions are there, and measured too slow to pay.
    std::string measured;
    if (bf16 > 0)
      measured = measuredText("bf16", bf16, speed->bf16Kernel, *speed);
    if (f16 > 0)
      measured += (measured.empty() ? "" : "; ") +
                  measuredText("f16", f16, speed->f16Kernel, *speed);
    reason = cpu + " has 16-bit matrix instructions, but " + measured +
             ": a 16-bit policy, which also pays for its casts, needs its "
             "matmuls at least " +
             times(kSixteenBitMinSpeedup) +
             " as fast to be faster than float32, which is also more "
             "accurate";
    return vocab::stringify(PolicyKind::Float32);
  }
  reason = cpu + " has no bf16 or fp16 matrix instructions (AVX512-BF16, "
                 "AMX, AVX512-FP16): 16-bit matmuls would run as f32 ones on "
                 "widened operands, so a 16-bit policy could only be slower "
                 "and less accurate than float32";
  return vocab::stringify(PolicyKind::Float32);
}
