//===- ConformanceTest.cpp - every backend against the reference ----------===//
//
// Runs each row of the conformance table (Cases.cpp) in each of its dtypes
// on every backend this build has and this machine can run (reference,
// cpu, cuda; a backend that cannot run here is skipped with its reason),
// from the same operands, and compares each result with the reference
// backend's under the row's agreement class:
//   Exact        bitwise (NaN matches NaN of any payload);
//   Ulps         |got - ref| <= ulps * u(|ref|), u the result dtype's unit
//                in the last place (2^-23, 2^-7, 2^-10 relative, and the
//                dtype's smallest subnormal at zero);
//   Accumulated  |got - ref| <= ulps * u(|ref|) + 2^-20 * max |ref| (sums in
//                another order; an implementation accumulating in 16 bits
//                misses this by orders of magnitude).
// NaN and infinities must match in position and sign everywhere (an inf
// may meet the largest finite value of its sign in the inexact classes), but for
// oneDNN's native 16-bit contractions on operands holding a NaN or inf
// (nonFinitePropagationMayWiden: their results are non-finite wherever
// the reference's are, and may be elsewhere too; the row then runs again
// with finite operands, strictly). Rows with
// an oracle also check the reference against float64: within one unit of
// the result dtype plus `oracleUlps` f32 units.
//
//===----------------------------------------------------------------------===//
#include "Conformance.h"
#include "../cpu/OwnedTensor.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>

using namespace mp::rt;
using namespace mp::rt::conformance;

namespace {

using Owned = test::OwnedTensor;

DType dtypeOf(const Operand &o, DType rowDType) {
  switch (o.role) {
  case Role::Data:
    return rowDType;
  case Role::F32:
    return DType::F32;
  case Role::Index:
  case Role::Counter:
    return DType::I64;
  case Role::Index32:
  case Role::Counter32:
    return DType::I32;
  case Role::Pred:
    return DType::I1;
  }
  return DType::F32;
}

/// The result dtype of a cast row: its name says ("cast_to_bf16").
DType outputDType(const Case &c, size_t i, DType rowDType) {
  if (c.op == "mp.cast") {
    std::string to = c.name.substr(c.name.rfind('_') + 1);
    return to == "f32" ? DType::F32 : to == "bf16" ? DType::BF16 : DType::F16;
  }
  return dtypeOf(c.outputs[i], rowDType);
}

float largestFinite(DType d) {
  return d == DType::F16 ? 65504.0f : d == DType::BF16 ? 3.3895314e38f
                                                       : 3.4028235e38f;
}
float smallestSubnormal(DType d) {
  return d == DType::F16 ? 5.9604645e-8f : d == DType::BF16 ? 9.18355e-41f
                                                            : 1.4e-45f;
}
int mantissaBits(DType d) {
  return d == DType::F16 ? 10 : d == DType::BF16 ? 7 : 23;
}

/// Fills the operands of row `c` in `dtype`: seeded uniform values, edge
/// values first where the operand allows them (rotated per operand, so that
/// binary rows also meet pairs such as 1 + 2^-8, a bf16 rounding tie).
std::vector<Owned> operands(const Case &c, DType dtype, uint32_t seed) {
  std::vector<Owned> out;
  std::mt19937 rng(seed);
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const Operand &o = c.inputs[k];
    Owned t(dtypeOf(o, dtype), o.shape);
    int64_t n = t.view.numElements();
    bool counter = o.role == Role::Counter || o.role == Role::Counter32;
    if (o.role == Role::Index || o.role == Role::Index32 ||
        o.role == Role::Pred || counter) {
      std::uniform_int_distribution<int64_t> pick(
          0, std::max<int64_t>(static_cast<int64_t>(o.hi) - 1, 0));
      for (int64_t i = 0; i < n; ++i)
        storeInt(t.view, i,
                 counter               ? static_cast<int64_t>(o.lo)
                 : o.role == Role::Pred  ? static_cast<int64_t>(rng() & 1)
                                         : pick(rng));
      out.push_back(std::move(t));
      continue;
    }
    std::uniform_real_distribution<double> dist(o.lo, o.hi);
    for (int64_t i = 0; i < n; ++i)
      storeFloat(t.view, i, static_cast<float>(dist(rng)));
    if (o.edges) {
      DType d = t.view.dtype;
      const float edges[] = {NAN,
                             INFINITY,
                             -INFINITY,
                             0.0f,
                             -0.0f,
                             smallestSubnormal(d),
                             -smallestSubnormal(d),
                             largestFinite(d),
                             -largestFinite(d),
                             1.0f,
                             0.00390625f,   // 2^-8: 1 + it ties in bf16
                             0.00048828125f, // 2^-11: ties in f16
                             -1.0f,
                             0.5f};
      const int64_t count = sizeof(edges) / sizeof(edges[0]);
      for (int64_t i = 0; i < std::min(n, count); ++i)
        storeFloat(t.view, i, edges[(i + static_cast<int64_t>(k)) % count]);
    }
    out.push_back(std::move(t));
  }
  return out;
}

/// A backend by name, or why it cannot run here.
struct Available {
  std::unique_ptr<Backend> backend;
  std::string why;
};
Available makeBackend(const std::string &name) {
  Available a;
  if (name == "reference") {
    a.backend = createReferenceBackend();
    return a;
  }
  StatusOr<std::unique_ptr<Backend>> made =
      name == "cpu" ? createCpuBackend() : createCudaBackend();
  if (made.isOk())
    a.backend = std::move(*made);
  else
    a.why = made.status().message();
  return a;
}

/// Runs `kernel` on `backend`, through device memory when it has its own.
Status runOn(Backend &backend, const KernelDesc &kernel,
             const std::vector<Owned> &inputs, std::vector<Owned> &outputs) {
  DeviceMemory *device = backend.deviceMemory();
  std::vector<TensorView> in, out;
  std::vector<void *> allocated;
  auto place = [&](const TensorView &host, bool copy) -> StatusOr<TensorView> {
    if (!device)
      return host;
    uint64_t bytes = static_cast<uint64_t>(host.numElements()) *
                     dtypeSize(host.dtype);
    StatusOr<void *> d = device->allocate(std::max<uint64_t>(bytes, 1), "test");
    if (!d.isOk())
      return d.status();
    allocated.push_back(*d);
    if (copy && bytes)
      MP_RETURN_IF_ERROR(device->copyToDevice(*d, host.data, bytes));
    return TensorView{host.dtype, host.shape, *d};
  };
  Status status = Status::ok();
  for (const Owned &t : inputs) {
    StatusOr<TensorView> v = place(t.view, true);
    if (!v.isOk()) {
      status = v.status();
      break;
    }
    in.push_back(*v);
  }
  for (Owned &t : outputs) {
    if (!status.isOk())
      break;
    StatusOr<TensorView> v = place(t.view, false);
    if (!v.isOk()) {
      status = v.status();
      break;
    }
    out.push_back(*v);
  }
  if (status.isOk())
    status = backend.run(kernel, in, out);
  if (device) {
    for (size_t i = 0; status.isOk() && i < outputs.size(); ++i) {
      uint64_t bytes = outputs[i].bytes.size();
      if (bytes)
        status = device->copyToHost(outputs[i].view.data, out[i].data, bytes);
    }
    for (void *p : allocated)
      device->release(p);
  }
  return status;
}

double unitAt(DType d, double magnitude) {
  double u = std::ldexp(1.0, -mantissaBits(d));
  return std::max(magnitude * u, static_cast<double>(smallestSubnormal(d)));
}

/// "" when `got` agrees with `ref` under the row's class; else where not.
/// `looseNonFinite` (native 16-bit oneDNN contractions on operands that
/// hold a NaN or inf; file comment): a non-finite reference value needs a
/// non-finite result of any kind, and a finite one a finite result within
/// the bound or a non-finite one.
std::string compare(const Case &c, const TensorView &ref,
                    const TensorView &got, const std::string &what,
                    bool looseNonFinite = false) {
  int64_t n = ref.numElements();
  if (!isFloat(ref.dtype)) {
    for (int64_t i = 0; i < n; ++i)
      if (loadInt(ref, i) != loadInt(got, i))
        return what + "[" + std::to_string(i) + "] is " +
               std::to_string(loadInt(got, i)) + ", the reference " +
               std::to_string(loadInt(ref, i));
    return "";
  }
  double largest = 0;
  for (int64_t i = 0; i < n; ++i) {
    float r = loadFloat(ref, i);
    if (std::isfinite(r))
      largest = std::max(largest, std::fabs(static_cast<double>(r)));
  }
  for (int64_t i = 0; i < n; ++i) {
    float r = loadFloat(ref, i), g = loadFloat(got, i);
    std::ostringstream where;
    where.precision(9);
    where << what << "[" << i << "] is " << g << ", the reference " << r;
    if (looseNonFinite && !std::isfinite(g))
      continue;
    if (looseNonFinite && !std::isfinite(r))
      return where.str();
    if (std::isnan(r) || std::isnan(g)) {
      if (std::isnan(r) != std::isnan(g))
        return where.str();
      continue;
    }
    if (std::isinf(r) || std::isinf(g)) {
      // A sum at the edge of the range, in another order: inf on one side
      // may be the largest finite value of the same sign on the other.
      double edge = largestFinite(ref.dtype);
      bool atTheEdge = c.agreement != Agreement::Exact &&
                       std::signbit(r) == std::signbit(g) &&
                       (std::fabs(r) == edge || std::fabs(g) == edge);
      if (r != g && !atTheEdge)
        return where.str();
      continue;
    }
    double diff = std::fabs(static_cast<double>(g) - r);
    double bound = c.absolute * std::ldexp(largest, -23);
    if (c.agreement == Agreement::Ulps)
      bound += c.ulps * unitAt(ref.dtype, std::fabs(r));
    else if (c.agreement == Agreement::Accumulated)
      bound += c.ulps * unitAt(ref.dtype, std::fabs(r)) +
               std::ldexp(largest, -20);
    if (c.agreement == Agreement::Exact
            ? std::memcmp(&r, &g, sizeof(float)) != 0 && diff != 0
            : diff > bound) {
      where << " (|difference| " << diff << ", bound " << bound << ")";
      return where.str();
    }
  }
  return "";
}

/// Whether `implementation` is one of oneDNN's native 16-bit contractions
/// (its name has the ISA: avx512_core_bf16, avx512_core_amx, ..., or a
/// bf16 jit gemm) on operands holding a NaN or inf. Those kernels' dot
/// products treat subnormal inputs as zero (VDPBF16PS, AMX: inf times a
/// subnormal becomes inf * 0 = NaN), and their grouped convolutions
/// multiply a non-finite input by the zero weights of other groups (a
/// non-finite value spreads to outputs the reference keeps finite). Either
/// way the result is non-finite wherever the reference's is, so a step with
/// such an input is still skipped by loss scaling: docs/runtime-cpu.md.
bool nonFinitePropagationMayWiden(const Case &c, DType dtype,
                                  const std::string &implementation,
                                  const std::vector<Owned> &in) {
  if (dtype == DType::F32 || c.agreement == Agreement::Exact ||
      implementation.rfind("oneDNN ", 0) != 0 ||
      implementation.find(" widened") != std::string::npos ||
      (implementation.find("bf16") == std::string::npos &&
       implementation.find("fp16") == std::string::npos &&
       implementation.find("f16") == std::string::npos &&
       implementation.find("amx") == std::string::npos))
    return false;
  for (const Owned &t : in)
    if (isFloat(t.view.dtype))
      for (int64_t i = 0; i < t.view.numElements(); ++i)
        if (!std::isfinite(loadFloat(t.view, i)))
          return true;
  return false;
}

struct Param {
  std::string backend;
  size_t row;
  DType dtype;
};

void PrintTo(const Param &p, std::ostream *os) {
  *os << p.backend << " " << cases()[p.row].name << " " << dtypeName(p.dtype);
}

std::vector<Param> allParams() {
  std::vector<Param> params;
  for (const char *backend : {"reference", "cpu", "cuda"})
    for (size_t r = 0; r < cases().size(); ++r)
      for (DType d : cases()[r].dtypes)
        params.push_back({backend, r, d});
  return params;
}

std::string paramName(const ::testing::TestParamInfo<Param> &info) {
  return info.param.backend + "_" + cases()[info.param.row].name + "_" +
         dtypeName(info.param.dtype);
}

class Conformance : public ::testing::TestWithParam<Param> {};

TEST_P(Conformance, AgreesWithTheReference) {
  const Param &p = GetParam();
  const Case &c = cases()[p.row];
  static std::map<std::string, Available> backends;
  if (!backends.count(p.backend))
    backends[p.backend] = makeBackend(p.backend);
  Available &available = backends[p.backend];
  if (!available.backend)
    GTEST_SKIP() << p.backend << " backend unavailable here: "
                 << available.why;
  static std::unique_ptr<Backend> reference = createReferenceBackend();

  KernelDesc kernel{c.op, {}, {}, c.attrs};
  // Seeded by the row's name, so that adding a row changes no other row's
  // data.
  uint32_t seed = 1234;
  for (char ch : c.name)
    seed = seed * 31 + static_cast<unsigned char>(ch);
  std::vector<Owned> in = operands(c, p.dtype, seed);
  auto outputsFor = [&] {
    std::vector<Owned> out;
    for (size_t i = 0; i < c.outputs.size(); ++i)
      out.emplace_back(outputDType(c, i, p.dtype), c.outputs[i].shape);
    return out;
  };
  for (size_t i = 0; i < in.size(); ++i)
    kernel.inputs.push_back(static_cast<uint32_t>(i));
  for (size_t i = 0; i < c.outputs.size(); ++i)
    kernel.outputs.push_back(static_cast<uint32_t>(in.size() + i));
  ASSERT_TRUE(checkKernelSchema(kernel).isOk())
      << checkKernelSchema(kernel).message();

  std::vector<Owned> want = outputsFor();
  Status refStatus = runOn(*reference, kernel, in, want);
  ASSERT_TRUE(refStatus.isOk()) << "reference: " << refStatus.message();

  if (p.backend == "reference") {
    // The reference against float64, for rows with an oracle.
    if (!c.oracle)
      return;
    const TensorView &y = want[0].view;
    double largest = 0;
    for (int64_t i = 0; i < y.numElements(); ++i)
      if (std::isfinite(loadFloat(y, i)))
        largest = std::max(largest, std::fabs(double(loadFloat(y, i))));
    for (int64_t i = 0; i < y.numElements(); ++i) {
      std::vector<double> x;
      bool inDomain = true;
      for (const Owned &t : in) {
        x.push_back(loadFloat(t.view, i));
        inDomain &= !(std::fabs(x.back()) > c.oracleMaxOperand);
      }
      if (!inDomain)
        continue;
      double exact = c.oracle(x);
      float r = loadFloat(y, i);
      if (std::isnan(exact) || std::isnan(r)) {
        EXPECT_EQ(std::isnan(exact), std::isnan(r))
            << "element " << i << ": " << r << ", float64 " << exact;
        continue;
      }
      double bound = unitAt(y.dtype, std::fabs(exact)) +
                     c.oracleUlps * unitAt(DType::F32, std::fabs(exact)) +
                     c.absolute * std::ldexp(largest, -23);
      if (std::isinf(exact) || std::fabs(exact) > largestFinite(y.dtype)) {
        // Overflows to inf in the result dtype, or rounds to its largest.
        EXPECT_TRUE(std::isinf(r) || std::fabs(r) >= largestFinite(y.dtype) /
                                                         2)
            << "element " << i << ": " << r << ", float64 " << exact;
        continue;
      }
      EXPECT_LE(std::fabs(r - exact), bound)
          << "element " << i << " of " << x.size() << " operands (first "
          << x[0] << "): " << r << ", float64 " << exact;
    }
    return;
  }

  Status check = Status::ok();
  {
    // check() sees the plan's tensors; build the two-tensor-list plan.
    Plan plan;
    for (const Owned &t : in)
      plan.tensors.push_back({TensorKind::Input, t.view.dtype, t.view.shape,
                              "", 0, 0});
    for (const Owned &t : want)
      plan.tensors.push_back({TensorKind::Scratch, t.view.dtype, t.view.shape,
                              "", 0, 0});
    check = available.backend->prepare(kernel, plan);
  }
  if (!check.isOk() && check.code() == StatusCode::Unimplemented &&
      p.backend == "cuda")
    GTEST_SKIP() << "the cuda backend does not run this op: "
                 << check.message();
  ASSERT_TRUE(check.isOk()) << check.message();
  std::vector<Owned> got = outputsFor();
  Status status = runOn(*available.backend, kernel, in, got);
  ASSERT_TRUE(status.isOk()) << status.message();
  std::string implementation = available.backend->implementationOf(kernel);
  bool loose = p.backend == "cpu" && nonFinitePropagationMayWiden(
                                         c, p.dtype, implementation, in);
  for (size_t i = 0; i < got.size(); ++i) {
    std::string diff = compare(c, want[i].view, got[i].view,
                               "result " + std::to_string(i), loose);
    EXPECT_EQ(diff, "") << c.op << " on " << p.backend << " in "
                        << dtypeName(p.dtype) << " (" << implementation
                        << (loose ? "; non-finite values may spread" : "")
                        << ")";
  }
  if (!loose)
    return;
  // The same row with its NaN and inf operands replaced by finite edge
  // values: strict again.
  for (Owned &t : in)
    if (isFloat(t.view.dtype))
      for (int64_t i = 0; i < t.view.numElements(); ++i)
        if (!std::isfinite(loadFloat(t.view, i)))
          storeFloat(t.view, i, std::signbit(loadFloat(t.view, i)) ? -0.5f
                                                                     : 2.0f);
  want = outputsFor();
  ASSERT_TRUE(runOn(*reference, kernel, in, want).isOk());
  got = outputsFor();
  ASSERT_TRUE(runOn(*available.backend, kernel, in, got).isOk());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(compare(c, want[i].view, got[i].view,
                      "finite operands: result " + std::to_string(i)),
              "")
        << c.op << " on " << p.backend << " in " << dtypeName(p.dtype) << " ("
        << implementation << ")";
}

INSTANTIATE_TEST_SUITE_P(Table, Conformance,
                         ::testing::ValuesIn(allParams()), paramName);

TEST(ConformanceTable, CoversEveryOpPlansRun) {
  std::set<std::string> covered;
  std::set<std::string> names;
  for (const Case &c : cases()) {
    covered.insert(c.op);
    EXPECT_TRUE(names.insert(c.name).second) << "two rows named " << c.name;
  }
  for (const std::string &op : referenceBackendOps())
    EXPECT_TRUE(covered.count(op))
        << op << " has a reference kernel but no row in the conformance "
                 "table (runtime/unittests/conformance/Cases.cpp)";
}

} // namespace
