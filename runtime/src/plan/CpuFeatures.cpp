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
#include <cstdlib>

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

std::string mp::rt::policySpeedWarning(const std::string &policy) {
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
  return "";
}

std::string mp::rt::autoPolicy(const std::string &target, std::string &reason) {
  using vocab::PolicyKind;
  if (target == "cuda") {
    reason = "the cuda backend's GPUs (compute capability 8.0 and later) "
             "compute bf16 on Tensor Cores, with float32's range: no loss "
             "scaling";
    return vocab::stringify(PolicyKind::MixedBFloat16);
  }
  if (target != "cpu")
    return "";
  const CpuFeatureSet &f = cpuFeatureSet();
  std::string cpu = "this CPU (" + cpuFeatures() + ")";
  if (f.fastBf16()) {
    reason = cpu + " has bf16 matrix instructions: bf16 matmuls and "
                   "convolutions run natively, with float32's range";
    return vocab::stringify(PolicyKind::MixedBFloat16);
  }
  if (f.fastFp16()) {
    reason = cpu + " has fp16 matrix instructions but no bf16 ones: f16 "
                   "matmuls and convolutions run natively, with dynamic loss "
                   "scaling";
    return vocab::stringify(PolicyKind::MixedFloat16);
  }
  reason = cpu + " has no bf16 or fp16 matrix instructions (AVX512-BF16, "
                 "AMX, AVX512-FP16): 16-bit matmuls would run as f32 ones on "
                 "widened operands, so a 16-bit policy could only be slower "
                 "and less accurate than float32";
  return vocab::stringify(PolicyKind::Float32);
}
