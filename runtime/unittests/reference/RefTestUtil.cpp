//===- RefTestUtil.cpp - helpers for the reference kernel tests -----------===//
#include "RefTestUtil.h"

#include <cmath>
#include <random>

using namespace mp::rt;
using namespace mp::rt::test;

HostTensor::HostTensor(DType dtype, Shape shape)
    : dtype(dtype), shape(std::move(shape)) {
  bytes.assign(size() * dtypeSize(dtype), 0);
}

int64_t HostTensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::at(int64_t i) const {
  TensorView v{dtype, shape, const_cast<uint8_t *>(bytes.data())};
  return isFloat(dtype) ? loadFloat(v, i) : static_cast<double>(loadInt(v, i));
}

void HostTensor::set(int64_t i, double value) {
  TensorView v{dtype, shape, bytes.data()};
  if (isFloat(dtype))
    storeFloat(v, i, static_cast<float>(value));
  else
    storeInt(v, i, static_cast<int64_t>(value));
}

Values HostTensor::values() const {
  Values out(size());
  for (int64_t i = 0; i < size(); ++i)
    out[i] = at(i);
  return out;
}

HostTensor test::makeTensor(DType dtype, Shape shape, const Values &values) {
  HostTensor t(dtype, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.size());
  for (int64_t i = 0; i < t.size() && i < int64_t(values.size()); ++i)
    t.set(i, values[i]);
  return t;
}

HostTensor test::randomTensor(DType dtype, Shape shape, double lo, double hi,
                              unsigned seed) {
  HostTensor t(dtype, std::move(shape));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < t.size(); ++i)
    t.set(i, lo + (hi - lo) * (gen() / 4294967296.0));
  return t;
}

HostTensor test::zerosTensor(DType dtype, Shape shape) {
  return HostTensor(dtype, std::move(shape));
}

Attr test::intsAttr(std::vector<int64_t> values) {
  Attr a;
  a.kind = Attr::Kind::Ints;
  a.ints = std::move(values);
  return a;
}

Attr test::floatAttr(double value) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = {value};
  return a;
}

Attr test::stringAttr(std::string value) {
  Attr a;
  a.kind = Attr::Kind::String;
  a.str = std::move(value);
  return a;
}

/// A plan with one scratch tensor per operand and result, and the kernel.
static Plan onePlan(const std::string &op, const AttrMap &attrs,
                    const std::vector<HostTensor *> &inputs,
                    const std::vector<HostTensor *> &outputs) {
  Plan plan;
  KernelDesc kernel;
  kernel.op = op;
  kernel.attrs = attrs;
  for (auto [list, ids] : {std::make_pair(&inputs, &kernel.inputs),
                           std::make_pair(&outputs, &kernel.outputs)})
    for (HostTensor *t : *list) {
      TensorDesc desc;
      desc.dtype = t->dtype;
      desc.shape = t->shape;
      ids->push_back(static_cast<uint32_t>(plan.tensors.size()));
      plan.tensors.push_back(desc);
    }
  plan.kernels.push_back(kernel);
  return plan;
}

Status test::checkKernel(const std::string &op, const AttrMap &attrs,
                         const std::vector<HostTensor *> &inputs,
                         const std::vector<HostTensor *> &outputs) {
  Plan plan = onePlan(op, attrs, inputs, outputs);
  return createReferenceBackend()->prepare(plan.kernels[0], plan);
}

Status test::runKernel(const std::string &op, const AttrMap &attrs,
                       const std::vector<HostTensor *> &inputs,
                       const std::vector<HostTensor *> &outputs) {
  Plan plan = onePlan(op, attrs, inputs, outputs);
  std::unique_ptr<Backend> backend = createReferenceBackend();
  MP_RETURN_IF_ERROR(backend->prepare(plan.kernels[0], plan));
  std::vector<TensorView> in, out;
  for (HostTensor *t : inputs)
    in.push_back(t->view());
  for (HostTensor *t : outputs)
    out.push_back(t->view());
  return backend->run(plan.kernels[0], in, out);
}

Tolerance test::elementwiseTolerance(DType result) {
  switch (result) {
  case DType::BF16:
    return {0x1p-7, 1e-6};
  case DType::F16:
    return {0x1p-10, 1e-6};
  default:
    return {1e-5, 1e-6};
  }
}

Tolerance test::accumulateTolerance(DType result) {
  switch (result) {
  case DType::BF16:
    return {0x1p-7, 1e-4};
  case DType::F16:
    return {0x1p-10, 1e-4};
  default:
    return {1e-4, 1e-4};
  }
}

Tolerance test::finiteDifferenceTolerance() { return {2e-2, 2e-3}; }

void test::expectNear(const HostTensor &got, const Values &want, Tolerance tol,
                      const std::string &what) {
  ASSERT_EQ(got.size(), static_cast<int64_t>(want.size())) << what;
  int failures = 0;
  for (int64_t i = 0; i < got.size() && failures < 5; ++i) {
    double g = got.at(i), w = want[i];
    bool ok;
    if (std::isnan(w))
      ok = std::isnan(g);
    else if (std::isinf(w))
      ok = g == w;
    else
      ok = std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << " (" << dtypeName(got.dtype) << ") element " << i
                    << ": got " << g << ", want " << w << " (rtol " << tol.rtol
                    << ", atol " << tol.atol << ")";
    }
  }
}

Values test::numericGradient(HostTensor &x, const std::function<double()> &loss,
                             double h) {
  Values grad(x.size());
  for (int64_t i = 0; i < x.size(); ++i) {
    double saved = x.at(i);
    x.set(i, saved + h);
    double up = x.at(i);
    double plus = loss();
    x.set(i, saved - h);
    double down = x.at(i);
    double minus = loss();
    x.set(i, saved);
    grad[i] = (plus - minus) / (up - down); // the steps actually taken
  }
  return grad;
}

double test::dot(const HostTensor &t, const HostTensor &w) {
  double sum = 0;
  for (int64_t i = 0; i < t.size(); ++i)
    sum += t.at(i) * w.at(i);
  return sum;
}

const std::vector<DType> &test::floatDTypes() {
  static const std::vector<DType> dtypes = {DType::F32, DType::BF16,
                                            DType::F16};
  return dtypes;
}

std::string test::dtypeTestName(const ::testing::TestParamInfo<DType> &info) {
  return dtypeName(info.param);
}

void test::expectError(const Status &status, StatusCode code,
                       const std::string &fragment) {
  EXPECT_FALSE(status.isOk())
      << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(static_cast<int>(status.code()), static_cast<int>(code))
      << status.message();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << "message: " << status.message();
}
