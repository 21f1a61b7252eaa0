//===- OneDnn.cpp - the oneDNN engine -------------------------------------===//
//
// Built only with oneDNN (MP_HAVE_ONEDNN); CpuBackend.cpp reports the cpu
// backend as unavailable otherwise. The primitive caches are in
// OneDnnMatmul.cpp and OneDnnConv.cpp.
//
//===----------------------------------------------------------------------===//
#ifdef MP_HAVE_ONEDNN
#include "cpu/OneDnn.h"
#include "cpu/OneDnnSupport.h"
#include "cpu/Parallel.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <cstdlib>
#include <exception>
#include <sys/stat.h>

using namespace mp::rt;
using namespace mp::rt::cpu;

/// The PyPI build runs its CPU engine on SYCL over Intel's OpenCL CPU
/// runtime, which the OpenCL ICD loader finds through OCL_ICD_FILENAMES or
/// /etc/OpenCL/vendors. get-onednn.sh unpacks it next to libdnnl.so; point
/// the loader at it unless the user chose one.
static void findOpenClCpuRuntime() {
#ifdef MP_ONEDNN_LIBDIR
  if (std::getenv("OCL_ICD_FILENAMES"))
    return;
  std::string path = std::string(MP_ONEDNN_LIBDIR) + "/libintelocl.so";
  struct stat info;
  if (::stat(path.c_str(), &info) == 0)
    ::setenv("OCL_ICD_FILENAMES", path.c_str(), /*overwrite=*/0);
#endif
}

static const char *isaName(dnnl::cpu_isa isa) {
  using I = dnnl::cpu_isa;
  // Several enumerators alias (avx512_core_amx == avx10_1_512_amx): compare
  // instead of switching.
  static const std::pair<I, const char *> names[] = {
      {I::avx10_2_512_amx_2, "avx10_2_512_amx_2"},
      {I::avx10_2_amx_2, "avx10_2_amx_2"},
      {I::avx10_2_512, "avx10_2_512"},
      {I::avx10_2, "avx10_2"},
      {I::avx512_core_amx_fp16, "avx512_core_amx_fp16 (AMX bf16+fp16)"},
      {I::avx512_core_amx, "avx512_core_amx (AMX bf16)"},
      {I::avx512_core_fp16, "avx512_core_fp16"},
      {I::avx512_core_bf16, "avx512_core_bf16"},
      {I::avx512_core_vnni, "avx512_core_vnni"},
      {I::avx512_core, "avx512_core"},
      {I::avx2_vnni_2, "avx2_vnni_2"},
      {I::avx2_vnni, "avx2_vnni"},
      {I::avx2, "avx2"},
      {I::avx, "avx"},
      {I::sse41, "sse41"},
  };
  for (const auto &[value, name] : names)
    if (value == isa)
      return name;
  return "unknown";
}

/// MP_MAX_CPU_ISA (CpuFeatures.h) as oneDNN's cap, before anything asks
/// oneDNN for its ISA (it reads ONEDNN_MAX_CPU_ISA on first use). The cap
/// is the lower of both variables, so this never raises a user's own
/// ONEDNN_MAX_CPU_ISA.
static void capOneDnnIsa() {
  std::string cap = cpuIsaCapForOneDnn();
  if (!cap.empty())
    ::setenv("ONEDNN_MAX_CPU_ISA", cap.c_str(), /*overwrite=*/1);
}

static EngineState makeEngine() {
  EngineState state;
  capOneDnnIsa();
  const dnnl_version_t *version = dnnl_version();
  if (version->major < 3) {
    state.status = unimplemented("the cpu backend needs oneDNN 3 but loaded " +
                                 std::to_string(version->major) + "." +
                                 std::to_string(version->minor));
    return state;
  }
  findOpenClCpuRuntime();
  // The PyPI build's CPU engine runs its kernels on the OpenCL CPU runtime's
  // TBB threads; DPCPP_CPU_NUM_CUS sets how many. The backend's thread
  // count (setCpuThreads / MP_NUM_THREADS) applies unless the user set it.
  ::setenv("DPCPP_CPU_NUM_CUS", std::to_string(cpuThreads()).c_str(),
           /*overwrite=*/0);
  // oneDNN prints its errors (and a banner) to stdout by default; ours go
  // into Statuses that carry oneDNN's message. A user who asks for
  // ONEDNN_VERBOSE still gets everything.
  if (!std::getenv("ONEDNN_VERBOSE") && !std::getenv("DNNL_VERBOSE"))
    dnnl_set_verbose(0);
  try {
    state.engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
  } catch (const dnnl::error &e) {
    state.status = unimplemented(
        std::string("oneDNN cannot create a CPU engine: ") + e.what() +
        " (status " + std::to_string(static_cast<int>(e.status)) +
        "; the PyPI build needs Intel's OpenCL CPU runtime, "
        "docs/runtime-cpu.md)");
    return state;
  } catch (const std::exception &e) {
    state.status = unimplemented(
        std::string("oneDNN cannot create a CPU engine: ") + e.what());
    return state;
  }
  // The engine's runtime (SYCL for the PyPI build) and, from the headers it
  // was built with, the threading under it.
  const char *runtime = version->cpu_runtime == DNNL_RUNTIME_SYCL  ? "SYCL"
                        : version->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP"
                        : version->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                        : version->cpu_runtime == DNNL_RUNTIME_SEQ
                            ? "sequential"
                            : "other";
#if defined(DNNL_CPU_THREADING_RUNTIME) &&                                     \
    DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
  std::string threading = std::string(runtime) + "/TBB";
#elif defined(DNNL_CPU_THREADING_RUNTIME) &&                                   \
    DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  std::string threading = std::string(runtime) + "/OpenMP";
#else
  std::string threading = runtime;
#endif
  state.description = "oneDNN " + std::to_string(version->major) + "." +
                      std::to_string(version->minor) + "." +
                      std::to_string(version->patch) + ", ISA " +
                      isaName(dnnl::get_effective_cpu_isa()) + ", runtime " +
                      threading;
  return state;
}

const EngineState &cpu::engineState() {
  static const EngineState state = makeEngine();
  return state;
}

dnnl::memory::data_type cpu::toDnnl(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return dnnl::memory::data_type::f32;
  case DType::BF16:
    return dnnl::memory::data_type::bf16;
  case DType::F16:
    return dnnl::memory::data_type::f16;
  default:
    return dnnl::memory::data_type::undef;
  }
}

bool cpu::isAccumulatorOf(DType in, DType out) {
  return toDnnl(in) != dnnl::memory::data_type::undef &&
         (out == in || out == DType::F32);
}

void cpu::widenInto(DType dtype, const void *in, float *out, int64_t n) {
  size_t size = dtypeSize(dtype);
  parallelFor(n, int64_t(1) << 16, [&](int64_t b, int64_t e) {
    toFloats(dtype, static_cast<const char *>(in) + b * size, out + b, e - b);
  });
}

void cpu::narrowInto(const float *in, DType dtype, void *out, int64_t n) {
  size_t size = dtypeSize(dtype);
  parallelFor(n, int64_t(1) << 16, [&](int64_t b, int64_t e) {
    fromFloats(in + b, dtype, static_cast<char *>(out) + b * size, e - b);
  });
}

Status cpu::oneDnnError(const std::string &op, const char *what,
                        const std::exception &e) {
  std::string message = op + ": oneDNN " + what + " failed: " + e.what();
  if (const auto *error = dynamic_cast<const dnnl::error *>(&e))
    message += " (status " + std::to_string(static_cast<int>(error->status)) +
               ")";
  return internalError(message);
}

Status cpu::oneDnnStatus() { return engineState().status; }

std::string cpu::oneDnnDescription() {
  const EngineState &state = engineState();
  return state.status.isOk() ? state.description
                             : "oneDNN unavailable: " + state.status.message();
}

#endif // MP_HAVE_ONEDNN
