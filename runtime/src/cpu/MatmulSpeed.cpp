//===- MatmulSpeed.cpp - this machine's 16-bit matmuls against f32 --------===//
//
// policy=auto asks whether a 16-bit policy is faster here. The CPU's
// feature bits cannot say: an Intel Xeon whose AMX the hypervisor hides
// has AVX512-BF16, and issues its dot products at half its f32 FMA rate
// (oneDNN's bf16 GEMM 164 GFLOPS against f32's 290 there), and oneDNN's
// f16 matmul on AVX512-FP16 widens to f32 FMAs (f32's rate). So the cpu
// backend times one matmul problem per dtype on oneDNN's primitives, the
// same primitives a plan's matmuls get, and keeps the ratio per machine.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"
#include "mp/runtime/Vocabulary.h"

#ifdef MP_HAVE_ONEDNN
#include "cpu/OneDnn.h"
#include "cpu/OneDnnSupport.h"
#include "plan/FileIO.h"
#include "support/Hash.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <optional>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>
#include <vector>

using namespace mp::rt;

namespace {

#ifdef MP_HAVE_ONEDNN
/// One problem of a transformer's or a CNN's size: large enough that the
/// kernels run at their steady rate (a few milliseconds each), small
/// enough that the whole measurement stays near 0.2 s.
constexpr int64_t kRows = 256, kDepth = 1024, kCols = 1024;
/// Rounds of (f32, bf16, f16) in turn (an odd count: one median), and
/// runs of each problem per round.
constexpr int kRounds = 9;
constexpr int kRuns = 2;
/// The format of the kept file: a new one makes every old file stale.
constexpr const char *kFormat = "mp-matmul-speed 1";

/// One matmul problem on its primitive, with its operands.
struct Problem {
  dnnl::matmul primitive;
  dnnl::memory src, weights, dst;
  std::string kernel;

  /// Seconds of one run.
  double run(dnnl::stream &stream) {
    auto start = std::chrono::steady_clock::now();
    primitive.execute(stream, {{DNNL_ARG_SRC, src},
                               {DNNL_ARG_WEIGHTS, weights},
                               {DNNL_ARG_DST, dst}});
    stream.wait();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
};

/// The problem in `dtype` (f32 result, plain row-major operands as a
/// plan's tensors are); false when oneDNN has only its reference loops
/// for it here.
bool makeProblem(const dnnl::engine &engine, DType dtype, Problem &p) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  dt in = cpu::toDnnl(dtype);
  dnnl::memory::desc src({kRows, kDepth}, in, tag::ab);
  dnnl::memory::desc weights({kDepth, kCols}, in, tag::ab);
  dnnl::memory::desc dst({kRows, kCols}, dt::f32, tag::ab);
  dnnl::primitive_attr attr;
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  dnnl::matmul::primitive_desc pd(engine, src, weights, dst, attr);
  p.kernel = pd.impl_info_str();
  if (cpu::isReferenceImplementation(p.kernel))
    return false;
  p.primitive = dnnl::matmul(pd);
  p.src = dnnl::memory(src, engine);
  p.weights = dnnl::memory(weights, engine);
  p.dst = dnnl::memory(dst, engine);
  // Small values of either sign: no denormals, no overflow.
  auto fill = [&](dnnl::memory &m, int64_t n, int salt) {
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = 0.01f * static_cast<float>((i * 7 + salt) % 13 - 6);
    if (dtype == DType::F32)
      std::copy(values.begin(), values.end(),
                static_cast<float *>(m.get_data_handle()));
    else
      cpu::narrowInto(values.data(), dtype, m.get_data_handle(), n);
  };
  fill(p.src, kRows * kDepth, 1);
  fill(p.weights, kDepth * kCols, 2);
  return true;
}

/// Times f32 against the 16-bit dtypes whose instructions the CPU has
/// (measuredOrKept() calls it only where there are some and oneDNN runs).
MatmulSpeed measure() {
  MatmulSpeed speed;
  const CpuFeatureSet &f = cpuFeatureSet();
  const cpu::EngineState &state = cpu::engineState();
  try {
    std::vector<std::pair<DType, Problem>> problems;
    for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
      if ((dtype == DType::BF16 && !f.fastBf16()) ||
          (dtype == DType::F16 && !f.fastFp16()))
        continue;
      Problem p;
      if (makeProblem(state.engine, dtype, p))
        problems.emplace_back(dtype, std::move(p));
      else if (dtype == DType::F32)
        return speed;
    }
    dnnl::stream stream(state.engine);
    for (auto &[dtype, p] : problems) // warm: caches, pages, threads
      p.run(stream);
    // Each round times every dtype once (kRuns runs), in an order that
    // rotates, and gives one ratio per 16-bit dtype from times taken
    // moments apart; the median round counts. A machine busy with other
    // work slows the runs of one round alike, where the best time of each
    // dtype over all rounds can pair f32's luckiest moment with bf16's
    // unluckiest (a second process on one of two cores moved bf16's ratio
    // from 0.6 to 1.08 that way).
    size_t n = problems.size();
    std::vector<std::vector<double>> ratios(n);
    std::vector<double> seconds(n);
    for (int round = 0; round < kRounds; ++round) {
      for (size_t j = 0; j < n; ++j) {
        size_t i = (j + round) % n;
        seconds[i] = 0;
        for (int run = 0; run < kRuns; ++run)
          seconds[i] += problems[i].second.run(stream);
      }
      for (size_t i = 1; i < n; ++i)
        ratios[i].push_back(seconds[0] / seconds[i]);
    }
    speed.problem = std::to_string(kRows) + "x" + std::to_string(kDepth) + "x" +
                    std::to_string(kCols);
    speed.f32Kernel = problems[0].second.kernel;
    for (size_t i = 1; i < problems.size(); ++i) {
      std::vector<double> &r = ratios[i];
      std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
      // Four decimals, as the kept file has them: the process that
      // measured and those that read the file say the same.
      double ratio = std::round(r[r.size() / 2] * 1e4) / 1e4;
      if (problems[i].first == DType::BF16) {
        speed.bf16 = ratio;
        speed.bf16Kernel = problems[i].second.kernel;
      } else {
        speed.f16 = ratio;
        speed.f16Kernel = problems[i].second.kernel;
      }
    }
  } catch (const std::exception &) {
    // Nothing measured: policy=auto falls back to the features.
    return MatmulSpeed();
  }
  return speed;
}

std::string cacheFolder() {
  const char *chosen = std::getenv("MP_CACHE_DIR");
  if (chosen && std::string(chosen) == "off")
    return "";
  if (chosen && *chosen)
    return chosen;
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg)
    return std::string(xdg) + "/mp";
  const char *home = std::getenv("HOME");
  if (home && *home)
    return std::string(home) + "/.cache/mp";
  return "";
}

/// What the numbers depend on; the kept file holds it and is used only
/// when it matches.
std::string measurementKey() {
  return std::string(kFormat) + "; " + cpuModel() + "; " + cpuFeatures() +
         "; " + cpu::oneDnnDescription() + "; threads " +
         std::to_string(cpuThreads()) + "; " + std::to_string(kRows) + "x" +
         std::to_string(kDepth) + "x" + std::to_string(kCols);
}

/// A file name stable across builds and runs.
std::string fileNameOf(const std::string &key) {
  return "matmul-speed-" + hex64(fnv1a64(key.data(), key.size())) + ".txt";
}

bool parse(const std::string &path, const std::string &key, MatmulSpeed &out) {
  StatusOr<std::vector<uint8_t>> bytes = readFile(path);
  if (!bytes.isOk())
    return false;
  std::istringstream in(std::string(bytes->begin(), bytes->end()));
  std::string line;
  if (!std::getline(in, line) || line != key)
    return false;
  MatmulSpeed s;
  bool sawF32 = false;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      return false;
    std::string name = line.substr(0, eq), value = line.substr(eq + 1);
    char *end = nullptr;
    if (name == "bf16" || name == "f16") {
      double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end || !(v >= 0) || v > 1e6)
        return false;
      (name == "bf16" ? s.bf16 : s.f16) = v;
    } else if (name == "f32_kernel") {
      s.f32Kernel = value;
      sawF32 = true;
    } else if (name == "bf16_kernel") {
      s.bf16Kernel = value;
    } else if (name == "f16_kernel") {
      s.f16Kernel = value;
    } else if (name == "problem") {
      s.problem = value;
    } else {
      return false;
    }
  }
  if (!sawF32)
    return false;
  out = s;
  return true;
}

/// Kept with an AtomicFileWriter: a reader never sees half a file. A file
/// that cannot be written is not kept (measured again next time).
void write(const std::string &path, const std::string &key,
           const MatmulSpeed &s) {
  char bf16[32], f16[32];
  std::snprintf(bf16, sizeof bf16, "%.4f", s.bf16);
  std::snprintf(f16, sizeof f16, "%.4f", s.f16);
  std::string text =
      key + "\nbf16=" + bf16 + "\nf16=" + f16 + "\nf32_kernel=" + s.f32Kernel +
      "\nbf16_kernel=" + s.bf16Kernel + "\nf16_kernel=" + s.f16Kernel +
      "\nproblem=" + s.problem + "\n";
  (void)writeFileAtomically(path, {{text.data(), text.size()}});
}

/// The kept numbers when a file for this key exists, else measured (under
/// an exclusive lock, so that the processes of one machine measure once,
/// none of them while another measures) and kept.
MatmulSpeed measuredOrKept() {
  const CpuFeatureSet &f = cpuFeatureSet();
  if (!f.fastBf16() && !f.fastFp16())
    return MatmulSpeed();
  if (!cpuBackendStatus().isOk())
    return MatmulSpeed();
  std::string folder = cacheFolder();
  std::string key = measurementKey();
  std::string path = folder + "/" + fileNameOf(key);
  // The folder made where missing; one that cannot hold the file means
  // nothing is kept.
  if (folder.empty() ||
      !checkWritablePath(path, /*makeDirectories=*/true, nullptr).isOk())
    return measure();
  MatmulSpeed kept;
  if (parse(path, key, kept))
    return kept;
  int lock =
      ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock >= 0)
    ::flock(lock, LOCK_EX);
  MatmulSpeed speed;
  if (!parse(path, key, speed)) { // another process may have measured
    speed = measure();
    if (!speed.f32Kernel.empty())
      write(path, key, speed);
  }
  if (lock >= 0)
    ::close(lock); // releases the lock
  return speed;
}
#else
MatmulSpeed measuredOrKept() { return MatmulSpeed(); }
#endif

} // namespace

const MatmulSpeed &mp::rt::cpuMatmulSpeed() {
  static const MatmulSpeed speed = measuredOrKept();
  return speed;
}

std::string mp::rt::cpuPolicySpeedWarning(const std::string &policy) {
  std::string warning = policySpeedWarning(policy);
  std::optional<vocab::PolicyKind> kind = vocab::symbolizePolicyKind(policy);
  // Only a 16-bit policy with its instructions present asks for the
  // measurement: float32 plans never start oneDNN's engine for it.
  if (!warning.empty() || (kind != vocab::PolicyKind::MixedBFloat16 &&
                           kind != vocab::PolicyKind::MixedFloat16))
    return warning;
  return policySpeedWarning(policy, &cpuMatmulSpeed());
}

std::string mp::rt::chooseAutoPolicy(const std::string &target,
                                     std::string &reason) {
  if (target != "cpu")
    return autoPolicy(target, reason);
  return autoPolicy(target, reason, &cpuMatmulSpeed());
}
