//===- CpuFeatures.cpp - what the CPU offers the kernels ------------------===//
//
// cpuid plus XGETBV: a feature counts only when the OS also saves its
// registers (AVX-512 state for the AVX-512 extensions, tile state for AMX),
// because that is what decides whether a kernel using it can run.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace mp::rt;

#if defined(__x86_64__) || defined(__i386__)
namespace {
struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};
} // namespace

static CpuidRegs cpuid(unsigned leaf, unsigned subleaf) {
  CpuidRegs r;
  if (__get_cpuid_max(0, nullptr) < leaf)
    return r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

static bool bit(unsigned value, int index) { return (value >> index) & 1; }

/// XCR0: which register states the OS saves (0 when XGETBV is unavailable).
static unsigned long long xcr0() {
  if (!bit(cpuid(1, 0).ecx, 27)) // OSXSAVE
    return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}
#endif

std::string mp::rt::cpuFeatures() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned long long xcr = xcr0();
  bool avxState = (xcr & 0x6) == 0x6;                  // SSE + AVX
  bool avx512State = avxState && (xcr & 0xe0) == 0xe0; // opmask, ZMM
  bool tileState = (xcr & 0x60000) == 0x60000;         // XTILECFG, XTILEDATA
  CpuidRegs l7 = cpuid(7, 0), l7s1 = cpuid(7, 1);
  bool avx2 = avxState && bit(l7.ebx, 5);
  bool avx512 = avx512State && bit(l7.ebx, 16);
  bool avx512Bf16 = avx512 && bit(l7s1.eax, 5);
  bool avx512Fp16 = avx512 && bit(l7.edx, 23);
  bool amxBf16 = tileState && bit(l7.edx, 24) && bit(l7.edx, 22);
  bool amxFp16 = tileState && bit(l7.edx, 24) && bit(l7s1.eax, 21);
  std::string out;
  auto add = [&](bool have, const char *name) {
    if (!have)
      return;
    if (!out.empty())
      out += ", ";
    out += name;
  };
  add(amxBf16, "AMX-BF16");
  add(amxFp16, "AMX-FP16");
  add(avx512Fp16, "AVX-512 FP16");
  add(avx512Bf16, "AVX-512 BF16");
  add(avx512, "AVX-512");
  add(avx2, "AVX2");
  return out.empty() ? "baseline (no AVX2)" : out;
#else
  return "baseline (not x86)";
#endif
}
