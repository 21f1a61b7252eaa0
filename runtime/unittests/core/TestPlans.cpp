//===- TestPlans.cpp - small hand-built plans and a fake backend ----------===//
#include "TestPlans.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <unistd.h>

using namespace mp::rt;
using namespace mp::rt::testing;

uint32_t TestPlanBuilder::tensor(TensorKind kind, DType dtype,
                                 std::vector<int64_t> shape, std::string name,
                                 double initialValue) {
  TensorDesc desc;
  desc.kind = kind;
  desc.dtype = dtype;
  desc.shape = std::move(shape);
  desc.name = std::move(name);
  desc.initialValue = initialValue;
  plan.tensors.push_back(std::move(desc));
  return static_cast<uint32_t>(plan.tensors.size() - 1);
}

void TestPlanBuilder::kernel(std::string op, std::vector<uint32_t> inputs,
                             std::vector<uint32_t> outputs,
                             std::map<std::string, Attr> attrs) {
  plan.kernels.push_back(
      {std::move(op), std::move(inputs), std::move(outputs), std::move(attrs)});
}

void TestPlanBuilder::result(ResultRole role, uint32_t value, std::string name,
                             uint32_t state) {
  plan.results.push_back({role, value, state, std::move(name)});
}

Plan TestPlanBuilder::finish() {
  uint64_t offset = 0;
  for (TensorDesc &desc : plan.tensors)
    if (desc.kind == TensorKind::Scratch) {
      desc.offset = offset;
      offset += (desc.byteSize() + 63) / 64 * 64;
    }
  plan.arenaSize = offset;
  return plan;
}

Plan TestPlanBuilder::finishLaidOut() {
  layOutPlan(plan);
  return plan;
}

Attr mp::rt::testing::ints(std::vector<int64_t> values) {
  Attr attr;
  attr.kind = Attr::Kind::Ints;
  attr.ints = std::move(values);
  return attr;
}

Attr mp::rt::testing::floats(std::vector<double> values) {
  Attr attr;
  attr.kind = Attr::Kind::Floats;
  attr.floats = std::move(values);
  return attr;
}

Attr mp::rt::testing::str(std::string value) {
  Attr attr;
  attr.kind = Attr::Kind::String;
  attr.str = std::move(value);
  return attr;
}

Plan mp::rt::testing::makeLeastSquaresPlan(const LeastSquaresOptions &o) {
  TestPlanBuilder b;
  b.plan.policy = o.lossScaling ? "mixed_float16" : "float32";
  const DType f32 = DType::F32;
  uint32_t x = b.tensor(TensorKind::Input, f32, {4, 3}, "x");
  uint32_t t = b.tensor(TensorKind::Label, f32, {4, 2}, "t");
  uint32_t w = b.tensor(TensorKind::Param, f32, {3, 2}, "w");
  uint32_t m = b.tensor(TensorKind::OptState, f32, {3, 2}, "w.momentum_buffer");
  uint32_t scale = 0, count = 0;
  if (o.lossScaling) {
    scale = b.tensor(TensorKind::ScalerState, f32, {}, "loss_scale",
                     o.initialScale);
    count = b.tensor(TensorKind::ScalerState, DType::I64, {},
                     "loss_scale.growth_count");
  }
  auto noTranspose = [](bool lhs) {
    return std::map<std::string, Attr>{{"transpose_lhs", ints({lhs})},
                                       {"transpose_rhs", ints({0})}};
  };

  uint32_t y = b.scratch(f32, {4, 2});
  b.kernel("train.matmul", {x, w}, {y}, noTranspose(false));
  uint32_t r = b.scratch(f32, {4, 2});
  b.kernel("train.sub", {y, t}, {r});
  uint32_t r2 = b.scratch(f32, {4, 2});
  b.kernel("train.mul", {r, r}, {r2});
  uint32_t loss = b.scratch(f32, {});
  b.kernel("train.reduce_sum", {r2}, {loss},
           {{"dims", ints({0, 1})}, {"keep_dims", ints({0})}});
  uint32_t seed = b.scratch(f32, {});
  b.kernel("train.grad_seed", {loss}, {seed});
  if (o.lossScaling) {
    uint32_t scaled = b.scratch(f32, {});
    b.kernel("mp.scale", {seed, scale}, {scaled});
    seed = scaled;
  }
  uint32_t ds = b.scratch(f32, {4, 2});
  b.kernel("train.broadcast", {seed}, {ds}, {{"dims", ints({})}});
  uint32_t dr = b.scratch(f32, {4, 2});
  b.kernel("train.mul", {ds, r}, {dr});
  uint32_t dy = b.scratch(f32, {4, 2});
  b.kernel("train.add", {dr, dr}, {dy});
  uint32_t dw = b.scratch(f32, {3, 2});
  b.kernel("train.matmul", {x, dy}, {dw}, noTranspose(true));
  uint32_t finite = 0;
  if (o.lossScaling) {
    uint32_t unscaled = b.scratch(f32, {3, 2});
    finite = b.scratch(DType::I1, {});
    b.kernel("mp.unscale_and_check", {scale, dw}, {unscaled, finite});
    dw = unscaled;
  }
  uint32_t gradientsFinite = 0;
  if (!o.lossScaling && o.checkFinite) {
    gradientsFinite = b.scratch(DType::I1, {});
    b.kernel("mp.all_finite", {dw}, {gradientsFinite});
  }
  uint32_t nw = b.scratch(f32, {3, 2});
  uint32_t nm = b.scratch(f32, {3, 2});
  b.kernel("train.sgd_momentum", {w, dw, m}, {nw, nm},
           {{"lr", floats({o.lr})},
            {"momentum", floats({o.momentum})},
            {"dampening", floats({0})},
            {"weight_decay", floats({0})},
            {"nesterov", ints({0})}});
  uint32_t ns = 0, nc = 0;
  if (o.lossScaling) {
    uint32_t sw = b.scratch(f32, {3, 2});
    uint32_t sm = b.scratch(f32, {3, 2});
    b.kernel("mp.select", {finite, nw, nm, w, m}, {sw, sm});
    nw = sw;
    nm = sm;
    ns = b.scratch(f32, {});
    nc = b.scratch(DType::I64, {});
    b.kernel("mp.update_scale", {scale, count, finite}, {ns, nc},
             {{"growth_interval", ints({o.growthInterval})},
              {"growth_factor", floats({2.0})},
              {"backoff_factor", floats({0.5})},
              {"min_scale", floats({0.0})},
              {"max_scale", floats({3.4028234663852886e+38})}});
  }

  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Param, nw, "w", w);
  b.result(ResultRole::OptState, nm, "w.momentum_buffer", m);
  if (o.lossScaling) {
    b.result(ResultRole::ScalerState, ns, "loss_scale", scale);
    b.result(ResultRole::ScalerState, nc, "loss_scale.growth_count", count);
    b.result(ResultRole::Output, finite, "all_finite");
  }
  if (!o.lossScaling && o.checkFinite)
    b.result(ResultRole::Check, gradientsFinite, "finite_gradients");
  b.result(ResultRole::Output, y, "y");
  return o.compiledLayout ? b.finishLaidOut() : b.finish();
}

TwoReshapesPlan mp::rt::testing::makeTwoReshapesPlan() {
  TestPlanBuilder b;
  const DType f32 = DType::F32;
  uint32_t x = b.tensor(TensorKind::Input, f32, {2, 3}, "x");
  TwoReshapesPlan r;
  r.square = b.scratch(f32, {2, 3});
  r.squareFlat = b.scratch(f32, {6});
  r.twice = b.scratch(f32, {2, 3});
  r.twiceFlat = b.scratch(f32, {6});
  uint32_t d = b.scratch(f32, {6}), loss = b.scratch(f32, {});
  b.kernel("train.mul", {x, x}, {r.square});
  b.kernel("train.reshape", {r.square}, {r.squareFlat});
  b.kernel("train.add", {x, x}, {r.twice});
  b.kernel("train.reshape", {r.twice}, {r.twiceFlat});
  b.kernel("train.add", {r.squareFlat, r.twiceFlat}, {d});
  b.kernel("train.reduce_sum", {d}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Output, d, "d");
  r.plan = b.finish();
  return r;
}

Plan mp::rt::testing::makeAllReducePlan(DType dtype,
                                        const std::string &reduceDtype) {
  TestPlanBuilder b;
  uint32_t x = b.tensor(TensorKind::Input, dtype, {2, 3}, "x");
  uint32_t r = b.scratch(dtype, {2, 3}), square = b.scratch(dtype, {2, 3});
  uint32_t loss = b.scratch(DType::F32, {});
  b.kernel("train.all_reduce", {x}, {r}, {{"reduce_dtype", str(reduceDtype)}});
  b.kernel("train.mul", {r, r}, {square});
  b.kernel("train.reduce_sum", {square}, {loss}, {{"dims", ints({0, 1})}});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Output, r, "r");
  return b.finishLaidOut();
}

Plan mp::rt::testing::makeAllReduceViewPlan() {
  TestPlanBuilder b;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {2, 3}, "x");
  uint32_t r = b.scratch(DType::F32, {2, 3}), v = b.scratch(DType::F32, {6});
  uint32_t square = b.scratch(DType::F32, {6});
  uint32_t loss = b.scratch(DType::F32, {});
  b.kernel("train.all_reduce", {x}, {r});
  b.kernel("train.reshape", {r}, {v});
  b.kernel("train.mul", {v, v}, {square});
  b.kernel("train.reduce_sum", {square}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  return b.finishLaidOut();
}

Plan mp::rt::testing::makeZero1Plan(int64_t ranks) {
  TestPlanBuilder b;
  int64_t s = (5 + ranks - 1) / ranks;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {5}, "x");
  uint32_t ok = b.tensor(TensorKind::Input, DType::I1, {}, "ok");
  uint32_t own = b.scratch(DType::F32, {s}), mean = b.scratch(DType::F32, {s});
  uint32_t sum = b.scratch(DType::F32, {s}), w = b.scratch(DType::F32, {5});
  uint32_t square = b.scratch(DType::F32, {5});
  uint32_t all = b.scratch(DType::I1, {}), loss = b.scratch(DType::F32, {});
  b.kernel("train.rank_shard", {x}, {own}, {{"world_size", ints({ranks})}});
  b.kernel("train.reduce_scatter", {x}, {mean},
           {{"world_size", ints({ranks})}});
  b.kernel("train.add", {own, mean}, {sum});
  b.kernel("train.all_gather", {sum}, {w}, {{"world_size", ints({ranks})}});
  b.kernel("train.all_ranks", {ok}, {all});
  b.kernel("train.mul", {w, w}, {square});
  b.kernel("train.reduce_sum", {square}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Output, w, "w");
  b.result(ResultRole::Output, all, "all");
  return b.finishLaidOut();
}

ReshapeOfInputPlan mp::rt::testing::makeReshapeOfInputPlan() {
  TestPlanBuilder b;
  ReshapeOfInputPlan r;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {2, 3}, "x");
  r.flat = b.scratch(DType::F32, {6});
  uint32_t sum = b.scratch(DType::F32, {6}), loss = b.scratch(DType::F32, {});
  b.kernel("train.reshape", {x}, {r.flat});
  b.kernel("train.add", {r.flat, r.flat}, {sum});
  b.kernel("train.reduce_sum", {sum}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  b.result(ResultRole::Output, sum, "d");
  r.plan = b.finishLaidOut();
  return r;
}

std::vector<float> mp::rt::testing::leastSquaresX(int step) {
  // Uniform in [-1, 1] from a hash of (step, i): exact on every host.
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) {
    uint64_t h = (static_cast<uint64_t>(step) << 8 | static_cast<uint64_t>(i)) *
                 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    x[i] = static_cast<float>(static_cast<int64_t>(h % 2001) - 1000) / 1000.0f;
  }
  return x;
}

std::vector<float> mp::rt::testing::leastSquaresT(int step) {
  static const float target[3][2] = {{1, -2}, {0.5f, 1}, {-1, 0.25f}};
  std::vector<float> x = leastSquaresX(step), t(8, 0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        t[i * 2 + j] += x[i * 3 + k] * target[k][j];
  return t;
}

//===----------------------------------------------------------------------===//
// FakeBackend
//===----------------------------------------------------------------------===//

namespace {
using Views = std::vector<TensorView>;
using Kernel = void (*)(const KernelDesc &, const Views &, const Views &);

float *f(const TensorView &v) { return v.as<float>(); }
int64_t count(const TensorView &v) { return v.numElements(); }

double attrFloat(const KernelDesc &k, const char *name, double fallback) {
  auto it = k.attrs.find(name);
  return it == k.attrs.end() || it->second.floats.empty()
             ? fallback
             : it->second.floats[0];
}
int64_t attrInt(const KernelDesc &k, const char *name, int64_t fallback) {
  auto it = k.attrs.find(name);
  return it == k.attrs.end() || it->second.ints.empty() ? fallback
                                                        : it->second.ints[0];
}

void matmul(const KernelDesc &k, const Views &in, const Views &out) {
  bool ta = attrInt(k, "transpose_lhs", 0), tb = attrInt(k, "transpose_rhs", 0);
  int64_t m = out[0].shape[0], n = out[0].shape[1];
  int64_t kk = ta ? in[0].shape[0] : in[0].shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < kk; ++p) {
        float a = ta ? f(in[0])[p * m + i] : f(in[0])[i * kk + p];
        float b = tb ? f(in[1])[j * kk + p] : f(in[1])[p * n + j];
        sum += a * b;
      }
      f(out[0])[i * n + j] = sum;
    }
}

template <int Op>
void binary(const KernelDesc &, const Views &in, const Views &out) {
  for (int64_t i = 0; i < count(out[0]); ++i) {
    float a = f(in[0])[i], b = f(in[1])[i];
    f(out[0])[i] = Op == 0 ? a + b : Op == 1 ? a - b : a * b;
  }
}

void reduceSum(const KernelDesc &, const Views &in, const Views &out) {
  float sum = 0;
  for (int64_t i = 0; i < count(in[0]); ++i)
    sum += f(in[0])[i];
  f(out[0])[0] = sum;
}

void broadcast(const KernelDesc &, const Views &in, const Views &out) {
  for (int64_t i = 0; i < count(out[0]); ++i)
    f(out[0])[i] = f(in[0])[0];
}

void gradSeed(const KernelDesc &, const Views &, const Views &out) {
  f(out[0])[0] = 1;
}

void scale(const KernelDesc &, const Views &in, const Views &out) {
  f(out[0])[0] = f(in[0])[0] * f(in[1])[0];
}

void unscaleAndCheck(const KernelDesc &, const Views &in, const Views &out) {
  float inverse = static_cast<float>(1.0 / static_cast<double>(f(in[0])[0]));
  bool finite = true;
  for (size_t g = 1; g < in.size(); ++g)
    for (int64_t i = 0; i < count(in[g]); ++i) {
      finite &= std::isfinite(f(in[g])[i]);
      f(out[g - 1])[i] = f(in[g])[i] * inverse;
    }
  *out.back().as<uint8_t>() = finite;
}

void allFinite(const KernelDesc &, const Views &in, const Views &out) {
  bool finite = true;
  for (const TensorView &v : in)
    for (int64_t i = 0; i < count(v); ++i)
      finite &= std::isfinite(f(v)[i]);
  *out[0].as<uint8_t>() = finite;
}

void sgdMomentum(const KernelDesc &k, const Views &in, const Views &out) {
  float lr = static_cast<float>(attrFloat(k, "lr", 0));
  float momentum = static_cast<float>(attrFloat(k, "momentum", 0));
  for (int64_t i = 0; i < count(in[0]); ++i) {
    float b = momentum * f(in[2])[i] + f(in[1])[i];
    f(out[1])[i] = b;
    f(out[0])[i] = f(in[0])[i] - lr * b;
  }
}

void select(const KernelDesc &, const Views &in, const Views &out) {
  size_t n = out.size();
  size_t first = *in[0].as<uint8_t>() ? 1 : 1 + n;
  for (size_t i = 0; i < n; ++i)
    std::memcpy(out[i].data, in[first + i].data,
                count(out[i]) * dtypeSize(out[i].dtype));
}

void updateScale(const KernelDesc &k, const Views &in, const Views &out) {
  float s = f(in[0])[0];
  int64_t c = *in[1].as<int64_t>();
  if (!*in[2].as<uint8_t>()) {
    s = std::max(s * static_cast<float>(attrFloat(k, "backoff_factor", 0.5)),
                 static_cast<float>(attrFloat(k, "min_scale", 0)));
    c = 0;
  } else if (++c >= attrInt(k, "growth_interval", 2000)) {
    c = 0;
    float grown = s * static_cast<float>(attrFloat(k, "growth_factor", 2));
    if (std::isfinite(grown))
      s = std::min(grown, static_cast<float>(attrFloat(k, "max_scale", 3e38)));
  }
  f(out[0])[0] = s;
  *out[1].as<int64_t>() = c;
}

const std::map<std::string, Kernel> &fakeKernels() {
  static const std::map<std::string, Kernel> kernels = {
      {"train.matmul", matmul},
      {"train.add", binary<0>},
      {"train.sub", binary<1>},
      {"train.mul", binary<2>},
      {"train.reduce_sum", reduceSum},
      {"train.broadcast", broadcast},
      {"train.grad_seed", gradSeed},
      {"train.sgd_momentum", sgdMomentum},
      {"mp.scale", scale},
      {"mp.unscale_and_check", unscaleAndCheck},
      {"mp.all_finite", allFinite},
      {"mp.select", select},
      {"mp.update_scale", updateScale},
  };
  return kernels;
}
} // namespace

Status FakeBackend::supports(const KernelDesc &kernel, const Plan &) const {
  if (!fakeKernels().count(kernel.op))
    return unimplemented("the fake backend has no kernel for '" + kernel.op +
                         "'");
  return Status::ok();
}

Status FakeBackend::run(const KernelDesc &kernel, const Views &inputs,
                        const Views &outputs) {
  if (runs++ == failAtRun)
    return invalidArgument("injected failure");
  fakeKernels().at(kernel.op)(kernel, inputs, outputs);
  return Status::ok();
}

std::vector<std::string> mp::rt::testing::testBackendNames() {
  return {"fake", "reference"};
}

std::unique_ptr<Backend>
mp::rt::testing::createTestBackend(const std::string &name) {
  if (name == "fake")
    return std::make_unique<FakeBackend>();
  return createReferenceBackend();
}

std::unique_ptr<Session>
mp::rt::testing::createTestSession(Plan plan, const std::string &backend) {
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(plan), createTestBackend(backend));
  EXPECT_TRUE(session.isOk()) << session.status().message();
  return session.isOk() ? std::move(*session) : nullptr;
}

void mp::rt::testing::bindLeastSquaresBatch(Session &session,
                                            const std::vector<float> &x,
                                            const std::vector<float> &t) {
  Status status = session.setTensor("x", DType::F32, {4, 3}, x.data(),
                                    x.size() * sizeof(float));
  EXPECT_TRUE(status.isOk()) << status.message();
  status = session.setTensor("t", DType::F32, {4, 2}, t.data(),
                             t.size() * sizeof(float));
  EXPECT_TRUE(status.isOk()) << status.message();
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

ScopedTempDir::ScopedTempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base && *base ? base : "/tmp") + "/mp-runtime-test-XXXXXX";
  char *made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr) << "cannot create " << pattern;
  dir = pattern;
}

ScopedTempDir::~ScopedTempDir() {
  for (const std::string &file : files())
    ::unlink(path(file).c_str());
  ::rmdir(dir.c_str());
}

std::vector<std::string> ScopedTempDir::files() const {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint8_t> mp::rt::testing::readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void mp::rt::testing::writeBytes(const std::string &path,
                                 const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

FusedRegion mp::rt::testing::leastSquaresRegion(const Plan &plan) {
  const KernelDesc &sub = plan.kernels[1], &mul = plan.kernels[2];
  FusedRegion region;
  region.symbol = "mp_fused_0";
  region.first = 1;
  region.count = 2;
  region.operands = {sub.inputs[0], sub.inputs[1], sub.outputs[0],
                     mul.outputs[0]};
  region.numInputs = 2;
  region.extent = 8;
  return region;
}
