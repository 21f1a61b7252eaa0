//===- Replay.cpp - find where a step goes non-finite ---------------------===//
#include "mp/runtime/Replay.h"

#include <cmath>
#include <cstdio>
#include <set>

using namespace mp::rt;

namespace {
// The values that round to inf or 0 when stored in 16 bits
// (round-to-nearest-even): |x| >= max + half an ulp overflows, 0 < |x| <=
// half the smallest subnormal flushes.
constexpr double kF16Overflow = 65520.0;                  // 65504 + 16
constexpr double kF16Flush = 2.98023223876953125e-08;     // 2^-25
constexpr double kBF16Overflow = 3.3961775292304957e+38;  // (2 - 2^-8) 2^127
constexpr double kBF16Flush = 4.591774807899561e-41;      // 2^-134

bool is16Bit(DType dtype) { return dtype == DType::F16 || dtype == DType::BF16; }

std::string format(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

std::string tensorLabel(const Plan &plan, uint32_t id) {
  const TensorDesc &t = plan.tensors[id];
  std::string shape;
  for (int64_t d : t.shape)
    shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  std::string label = "t" + std::to_string(id);
  if (!t.name.empty())
    label += " '" + t.name + "'";
  return label + " " + dtypeName(t.dtype) + "[" + shape + "]";
}

std::string describeRange(const Plan &plan, const ValueRange &r) {
  std::string out = tensorLabel(plan, r.tensor) + ": max |x| " +
                    format(r.maxAbs) + ", " + std::to_string(r.inf) +
                    " inf, " + std::to_string(r.nan) + " NaN";
  DType dtype = plan.tensors[r.tensor].dtype;
  if (dtype == DType::F32) {
    out += "; in f16 " + std::to_string(r.overF16) + " would overflow, " +
           std::to_string(r.flushF16) + " flush to 0; in bf16 " +
           std::to_string(r.overBF16) + " overflow, " +
           std::to_string(r.flushBF16) + " flush";
  }
  if (r.zeros)
    out += "; " + std::to_string(r.zeros) + " zeros";
  return out;
}
} // namespace

ValueRange mp::rt::measureRange(const float *values, int64_t count) {
  ValueRange r;
  r.elements = count;
  for (int64_t i = 0; i < count; ++i) {
    float v = values[i];
    if (std::isnan(v)) {
      ++r.nan;
      continue;
    }
    if (std::isinf(v)) {
      ++r.inf;
      continue;
    }
    double a = std::fabs(static_cast<double>(v));
    if (a == 0) {
      ++r.zeros;
      continue;
    }
    r.maxAbs = std::max(r.maxAbs, a);
    r.overF16 += a >= kF16Overflow;
    r.flushF16 += a <= kF16Flush;
    r.overBF16 += a >= kBF16Overflow;
    r.flushBF16 += a <= kBF16Flush;
  }
  return r;
}

StatusOr<ValueRange> mp::rt::measureTensor(const Session &session,
                                           uint32_t tensor) {
  const Plan &plan = session.plan();
  if (tensor >= plan.tensors.size() || !isFloat(plan.tensors[tensor].dtype))
    return invalidArgument("measureTensor: tensor #" + std::to_string(tensor) +
                           " is not a float tensor of the plan");
  const TensorDesc &desc = plan.tensors[tensor];
  std::vector<uint8_t> bytes(desc.byteSize());
  MP_RETURN_IF_ERROR(session.readTensor(tensor, bytes.data(), bytes.size()));
  std::vector<float> values(desc.numElements());
  loadFloats(TensorView{desc.dtype, desc.shape, bytes.data()}, values.data());
  ValueRange r = measureRange(values.data(), desc.numElements());
  r.tensor = tensor;
  return r;
}

StatusOr<ReplayFinding> mp::rt::replayStep(Session &session) {
  const Plan &plan = session.plan();
  ReplayFinding finding;
  // The step's own inputs and state first: non-finite there, no kernel is
  // to blame.
  for (uint32_t t = 0; t < plan.tensors.size(); ++t) {
    TensorKind kind = plan.tensors[t].kind;
    if (kind == TensorKind::Scratch || kind == TensorKind::Constant ||
        !isFloat(plan.tensors[t].dtype))
      continue;
    StatusOr<ValueRange> r = measureTensor(session, t);
    if (!r.isOk())
      return r.status();
    if (!r->finite()) {
      finding.kind = ReplayFinding::Kind::BadInput;
      finding.tensor = t;
      finding.input = *r;
      return finding;
    }
  }
  // Which tensors carry the loss scale: from mp.scale's result to the
  // gradients mp.unscale_and_check reads.
  std::vector<bool> scaled(plan.tensors.size(), false);
  std::vector<bool> kernelScaled(plan.kernels.size(), false);
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelDesc &kernel = plan.kernels[k];
    bool in = false;
    for (uint32_t t : kernel.inputs)
      in = in || scaled[t];
    kernelScaled[k] = in;
    if (kernel.opId() == OpId::MpUnscaleAndCheck)
      continue;
    if (in || kernel.opId() == OpId::MpScale)
      for (uint32_t t : kernel.outputs)
        scaled[t] = true;
  }

  Status failed = Status::ok();
  bool found = false;
  // The float tensors of `ids` measured into `out`; false on an error
  // (in `failed`). `finite` tells whether all of them are.
  auto measureAll = [&](const std::vector<uint32_t> &ids,
                        std::vector<ValueRange> &out, bool &finite) {
    finite = true;
    for (uint32_t t : ids) {
      if (!isFloat(plan.tensors[t].dtype))
        continue;
      StatusOr<ValueRange> r = measureTensor(session, t);
      if (!r.isOk()) {
        failed = r.status();
        return false;
      }
      finite = finite && r->finite();
      out.push_back(*r);
    }
    return true;
  };
  Status ran = session.runStepWatched([&](size_t k) {
    const KernelDesc &kernel = plan.kernels[k];
    std::vector<ValueRange> ins, outs;
    bool inputsFinite = true, outputsFinite = true;
    if (!measureAll(kernel.inputs, ins, inputsFinite))
      return false;
    // A kernel that reads no float value (fill, iota) makes what it is
    // told to (a -inf mask), and one that reads a non-finite value passes
    // it on (or masks with it, as attention does): neither is the origin.
    if (ins.empty() || !inputsFinite)
      return true;
    if (!measureAll(kernel.outputs, outs, outputsFinite))
      return false;
    if (outputsFinite)
      return true;
    found = true;
    finding.kind = ReplayFinding::Kind::Kernel;
    finding.kernel = k;
    finding.inputs = std::move(ins);
    finding.outputs = std::move(outs);
    finding.scaled = kernelScaled[k];
    return false;
  });
  MP_RETURN_IF_ERROR(ran);
  MP_RETURN_IF_ERROR(failed);
  if (!found)
    finding.kind = ReplayFinding::Kind::AllFinite;
  return finding;
}

Diagnosis mp::rt::diagnose(const Session &session,
                           const ReplayFinding &finding, double lossScale) {
  const Plan &plan = session.plan();
  Diagnosis d;
  std::string &out = d.text;
  out = std::string("replayed the step on the ") + session.backendName() +
        " backend with a finiteness check after every kernel:\n";
  if (finding.kind == ReplayFinding::Kind::AllFinite) {
    out += "  every kernel's outputs are finite: the replay does not "
           "reproduce the failure (the state or the batch differs from the "
           "failing step's, or the failure depends on the backend: replay "
           "on the other one)\n";
    return d;
  }
  if (finding.kind == ReplayFinding::Kind::BadInput) {
    const TensorDesc &t = plan.tensors[finding.tensor];
    out += std::string("  the step's ") + tensorKindName(t.kind) + " " +
           describeRange(plan, finding.input) + "\n";
    out += "diagnosis: not a precision problem: the values the step starts "
           "from are already non-finite (" +
           (t.kind == TensorKind::Input || t.kind == TensorKind::Label
                ? std::string("the batch holds inf or NaN: check the data")
                : std::string("the state was corrupted before this step")) +
           ")\n";
    return d;
  }
  const KernelDesc &kernel = plan.kernels[finding.kernel];
  d.op = kernel.op;
  std::string where =
      kernel.location.empty() ? "(no source location: plan format < 6)"
                              : "at " + kernel.location;
  out += "  first non-finite value: kernel #" + std::to_string(finding.kernel) +
         " " + kernel.op + " " + where + "\n";
  if (!kernel.precision.empty())
    out += "  precision decision: " + kernel.precision + "\n";
  out += std::string("  in the loss-scaled backward pass: ") +
         (finding.scaled ? "yes (loss scale " + format(lossScale) + ")"
                         : "no") +
         "\n";
  for (size_t i = 0; i < finding.inputs.size(); ++i)
    out += "  input  " + describeRange(plan, finding.inputs[i]) + "\n";
  for (size_t i = 0; i < finding.outputs.size(); ++i)
    out += "  output " + describeRange(plan, finding.outputs[i]) + "\n";

  // The dtype the kernel computed in: its first float output's.
  DType dtype = DType::F32;
  for (uint32_t t : kernel.outputs)
    if (isFloat(plan.tensors[t].dtype)) {
      dtype = plan.tensors[t].dtype;
      break;
    }
  if (!is16Bit(dtype)) {
    out += "diagnosis: not a precision problem: " + kernel.op +
           " overflows (or has no finite result) in float32 on finite "
           "inputs; look at the model or the data (a learning rate too "
           "high, an exp of unbounded logits, a log of 0)\n";
    return d;
  }
  d.precisionProblem = true;
  // The op to keep in f32: the kernel itself, or for a cast into 16 bits
  // (a finite f32 value that does not fit) the ops that read the cast.
  std::set<std::string> ops;
  if (kernel.opId() == OpId::MpCast) {
    for (const KernelDesc &user : plan.kernels)
      for (uint32_t t : user.inputs)
        if (t == kernel.outputs[0] && user.opId() != OpId::MpCast)
          ops.insert(user.op);
  } else {
    ops.insert(kernel.op);
  }
  std::string list;
  for (const std::string &op : ops)
    list += (list.empty() ? "" : ",") + op;
  if (finding.scaled && lossScale > 1) {
    // A cast of a finite f32 value: the scale that brings its largest
    // value to 1/8 of the 16-bit maximum; otherwise 256 times lower.
    double lower = lossScale / 256;
    if (kernel.opId() == OpId::MpCast && !finding.inputs.empty() &&
        finding.inputs[0].maxAbs > 0)
      lower = lossScale * (dtype == DType::F16 ? 65504.0 : 3.39e38) / 8 /
              finding.inputs[0].maxAbs;
    lower = std::exp2(std::floor(std::log2(std::max(1.0, lower))));
    out += "diagnosis: an overflow of the " + std::string(dtypeName(dtype)) +
           " backward pass at loss scale " + format(lossScale) +
           ": the scale is too high for these gradients (a dynamic scale "
           "backs off by itself; a static one does not)\n";
    char exact[40];
    std::snprintf(exact, sizeof(exact), "%.17g", lower);
    d.fix = Diagnosis::Fix::InitScale;
    d.initScale = lower;
    d.proposal = std::string("init-scale=") + exact;
    out += "proposal: --mixed-precision=\"... init-scale=" + std::string(exact) +
           "\" (or keep " + (list.empty() ? kernel.op : list) +
           " in float32: deny-add=" + (list.empty() ? kernel.op : list) + ")\n";
    return d;
  }
  out += std::string("diagnosis: ") + kernel.op + " overflows " +
         dtypeName(dtype) + " " +
         (finding.scaled ? "at loss scale " + format(lossScale) +
                               " (the smallest it goes)"
                         : "in the forward pass, where the loss scale does "
                           "not reach: not a scaling problem") +
         "; in float32 it would be computed from the same finite inputs\n";
  if (list.empty()) {
    out += "proposal: none: no op reads the cast\n";
    return d;
  }
  // An op the user pinned low: only the pin can be changed.
  if (kernel.precision.find("forced-low") != std::string::npos) {
    out += "proposal: the op is pinned to " + std::string(dtypeName(dtype)) +
           " by mp.force = \"low\"" +
           (kernel.location.empty() ? "" : " at " + kernel.location) +
           ": make it mp.force = \"fp32\" (no list option overrides a pin)\n";
    d.fix = Diagnosis::Fix::ForceOp;
    d.proposal = "mp.force=\"fp32\"";
    return d;
  }
  d.fix = Diagnosis::Fix::DenyOps;
  d.denyOps.assign(ops.begin(), ops.end());
  d.proposal = "deny-add=" + list;
  out += "proposal: --mixed-precision=\"... deny-add=" + list + "\"";
  if (!kernel.location.empty() && kernel.opId() != OpId::MpCast)
    out += " (or mp.force = \"fp32\" on the op at " + kernel.location +
           " for that instance only)";
  out += "\n";
  return d;
}
