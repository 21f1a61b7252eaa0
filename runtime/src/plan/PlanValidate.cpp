//===- PlanValidate.cpp - the consistency rules of a plan -----------------===//
//
// A plan comes from a file, so nothing in it is trusted: the session builds
// raw pointers from its ids and offsets, and runs kernels in its order.
// validate() checks everything that would otherwise turn a bad plan into a
// crash or a silent wrong result, and names the kernel or tensor at fault.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"
#include "mp/runtime/Vocabulary.h"
#include "plan/RegionLifetimes.h"
#include "plan/Sizes.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mp::rt;

namespace {

/// What validate() learns about a plan on its way through.
class Validator {
public:
  explicit Validator(const Plan &plan) : plan(plan) {}

  Status run() {
    if (plan.tensors.size() >= UINT32_MAX)
      return invalidArgument("plan has " + std::to_string(plan.tensors.size()) +
                             " tensors; ids are 32-bit");
    // The one place a plan's policy is checked: the tools and the C API
    // read a validated plan.
    if (!vocab::symbolizePolicyKind(plan.policy))
      return invalidArgument("plan policy '" + plan.policy + "' is not " +
                             vocab::kPolicyKindList);
    // From the flags alone (ids out of range are ignored): checkLayout
    // checks that each flag holds.
    outside = outsideArena(plan);
    root = storageRoots(plan);
    MP_RETURN_IF_ERROR(checkTensors());
    MP_RETURN_IF_ERROR(checkKernels());
    MP_RETURN_IF_ERROR(checkResults());
    MP_RETURN_IF_ERROR(checkLayout());
    MP_RETURN_IF_ERROR(checkCode());
    return checkArenaLifetimes();
  }

private:
  /// "tensor 7 'fc1.weight' (param)", or "tensor 7 (scratch)" unnamed.
  std::string describe(uint32_t id) const {
    const TensorDesc &t = plan.tensors[id];
    std::string text = "tensor " + std::to_string(id);
    if (!t.name.empty())
      text += " '" + t.name + "'";
    return text + " (" + tensorKindName(t.kind) + ")";
  }

  std::string describeKernel(size_t index) const {
    return "kernel #" + std::to_string(index) + " (" + plan.kernels[index].op +
           ")";
  }

  Status checkTensors() {
    sizes.resize(plan.tensors.size());
    for (uint32_t id = 0; id < plan.tensors.size(); ++id) {
      const TensorDesc &t = plan.tensors[id];
      if (static_cast<uint32_t>(t.kind) >
          static_cast<uint32_t>(TensorKind::Constant))
        return invalidArgument("tensor " + std::to_string(id) +
                               " has unknown kind " +
                               std::to_string(static_cast<uint32_t>(t.kind)));
      if (dtypeSize(t.dtype) == 0)
        return invalidArgument(describe(id) + " has unknown dtype " +
                               std::to_string(static_cast<uint32_t>(t.dtype)));
      std::optional<uint64_t> size = checkedByteSize(t.shape, t.dtype);
      if (!size)
        return invalidArgument(describe(id) + " has an invalid shape " +
                               formatShape(t.shape) +
                               " (a negative dimension or too many elements)");
      sizes[id] = *size;

      bool named = isPersistent(t.kind) || t.kind == TensorKind::Input ||
                   t.kind == TensorKind::Label;
      if (named) {
        if (t.name.empty())
          return invalidArgument(describe(id) +
                                 " needs a name: persistent tensors, inputs "
                                 "and labels are bound by name");
        auto [it, inserted] = names.emplace(t.name, id);
        if (!inserted)
          return invalidArgument(describe(id) + " has the same name as " +
                                 describe(it->second));
      }
      if (t.kind == TensorKind::ScalerState && !std::isfinite(t.initialValue))
        return invalidArgument(describe(id) +
                               " has a non-finite initial value");
      if (t.sharded) {
        // A shard of the whole tensor over some number of ranks: 1-D, and
        // no larger than the whole.
        int64_t whole = 1;
        bool valid = true;
        for (int64_t d : t.wholeShape) {
          valid = valid && d >= 0 && (d == 0 || whole <= INT64_MAX / d);
          whole = valid ? whole * d : 0;
        }
        if (t.kind != TensorKind::OptState || t.shape.size() != 1 || !valid ||
            t.shape[0] < 1 || t.shape[0] > std::max<int64_t>(whole, 1))
          return invalidArgument(
              describe(id) + " is marked the shard of a tensor of shape " +
              formatShape(t.wholeShape) +
              ": only optimizer state is sharded, 1-D, no larger than the "
              "whole");
      }
      if (t.kind == TensorKind::Scratch && !outside[id])
        MP_RETURN_IF_ERROR(checkRange(id, plan.arenaSize, "arena"));
      if (t.kind == TensorKind::Constant)
        MP_RETURN_IF_ERROR(
            checkRange(id, plan.constants.size(), "constants blob"));
    }
    return Status::ok();
  }

  /// Scratch and constant tensors live at an offset in a larger block; they
  /// must fit in it and be aligned to their element size, so that kernels
  /// may access them as typed arrays.
  Status checkRange(uint32_t id, uint64_t blockSize, const char *block) {
    const TensorDesc &t = plan.tensors[id];
    if (t.offset % dtypeSize(t.dtype) != 0)
      return invalidArgument(describe(id) + " has offset " +
                             std::to_string(t.offset) + " in the " + block +
                             ", not a multiple of its element size " +
                             std::to_string(dtypeSize(t.dtype)));
    if (t.offset > blockSize || sizes[id] > blockSize - t.offset)
      return invalidArgument(
          describe(id) + " at offset " + std::to_string(t.offset) + " with " +
          std::to_string(sizes[id]) + " bytes ends past the " + block + " of " +
          std::to_string(blockSize) + " bytes");
    return Status::ok();
  }

  Status checkKernels() {
    definedBy.assign(plan.tensors.size(), -1);
    lastUse.assign(plan.tensors.size(), -1);
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const KernelDesc &kernel = plan.kernels[k];
      if (kernel.op.empty())
        return invalidArgument("kernel #" + std::to_string(k) +
                               " has no op name");
      for (size_t i = 0; i < kernel.inputs.size(); ++i) {
        uint32_t id = kernel.inputs[i];
        if (id >= plan.tensors.size())
          return invalidArgument(describeKernel(k) + ": input " +
                                 std::to_string(i) + " is tensor " +
                                 std::to_string(id) + ", but the plan has " +
                                 std::to_string(plan.tensors.size()));
        if (plan.tensors[id].kind == TensorKind::Scratch && definedBy[id] < 0)
          return invalidArgument(describeKernel(k) + ": input " +
                                 std::to_string(i) + " is " + describe(id) +
                                 ", which no earlier kernel writes");
        lastUse[id] = static_cast<int64_t>(k);
      }
      for (size_t o = 0; o < kernel.outputs.size(); ++o) {
        uint32_t id = kernel.outputs[o];
        if (id >= plan.tensors.size())
          return invalidArgument(describeKernel(k) + ": output " +
                                 std::to_string(o) + " is tensor " +
                                 std::to_string(id) + ", but the plan has " +
                                 std::to_string(plan.tensors.size()));
        if (plan.tensors[id].kind != TensorKind::Scratch)
          return invalidArgument(describeKernel(k) + ": output " +
                                 std::to_string(o) + " is " + describe(id) +
                                 "; kernels write scratch tensors only "
                                 "(persistent state changes through results)");
        if (definedBy[id] >= 0)
          return invalidArgument(describeKernel(k) + ": output " +
                                 std::to_string(o) + " is " + describe(id) +
                                 ", already written by " +
                                 describeKernel(definedBy[id]));
        definedBy[id] = static_cast<int64_t>(k);
        lastUse[id] = static_cast<int64_t>(k);
      }
      for (const auto &[name, attr] : kernel.attrs)
        if (static_cast<uint8_t>(attr.kind) >
            static_cast<uint8_t>(Attr::Kind::String))
          return invalidArgument(describeKernel(k) + ": attribute '" + name +
                                 "' has an unknown kind");
      if (Status schema = checkKernelSchema(kernel); !schema.isOk())
        return invalidArgument(describeKernel(k) + ": " + schema.message());
    }
    return Status::ok();
  }

  static bool stateKindMatches(ResultRole role, TensorKind kind) {
    switch (role) {
    case ResultRole::Param:
      return kind == TensorKind::Param;
    case ResultRole::OptState:
      return kind == TensorKind::OptState;
    case ResultRole::Buffer:
      return kind == TensorKind::Buffer;
    case ResultRole::ScalerState:
      return kind == TensorKind::ScalerState;
    case ResultRole::Loss:
    case ResultRole::Output:
    case ResultRole::Check:
      break;
    }
    return false;
  }

  Status checkResults() {
    int64_t afterLastKernel = static_cast<int64_t>(plan.kernels.size());
    size_t losses = 0;
    std::vector<int64_t> updatedBy(plan.tensors.size(), -1);
    std::map<std::string, size_t> outputNames;
    for (size_t r = 0; r < plan.results.size(); ++r) {
      const ResultDesc &result = plan.results[r];
      if (static_cast<uint32_t>(result.role) >
          static_cast<uint32_t>(ResultRole::Check))
        return invalidArgument(
            "result #" + std::to_string(r) + " has unknown role " +
            std::to_string(static_cast<uint32_t>(result.role)));
      std::string what =
          "result #" + std::to_string(r) + " (" + resultRoleName(result.role) +
          (result.name.empty() ? "" : " '" + result.name + "'") + ")";
      uint32_t value = result.value;
      if (value >= plan.tensors.size())
        return invalidArgument(what + " is tensor " + std::to_string(value) +
                               ", but the plan has " +
                               std::to_string(plan.tensors.size()));
      const TensorDesc &v = plan.tensors[value];
      if (v.kind == TensorKind::Scratch && definedBy[value] < 0)
        return invalidArgument(what + " is " + describe(value) +
                               ", which no kernel writes");
      lastUse[value] = afterLastKernel;

      if (result.role == ResultRole::Loss) {
        ++losses;
        if (!isFloat(v.dtype) || sizes[value] != dtypeSize(v.dtype))
          return invalidArgument(what + " is " + describe(value) + " of " +
                                 dtypeName(v.dtype) + formatShape(v.shape) +
                                 "; the loss must be one float element");
      }
      if (result.role == ResultRole::Check &&
          (v.dtype != DType::I1 || sizes[value] != 1))
        return invalidArgument(what + " is " + describe(value) + " of " +
                               dtypeName(v.dtype) + formatShape(v.shape) +
                               "; a check must be one i1 element");
      if (result.role == ResultRole::Loss ||
          result.role == ResultRole::Output ||
          result.role == ResultRole::Check) {
        if (result.role != ResultRole::Loss && result.name.empty())
          return invalidArgument(what + " needs a name: outputs are read by "
                                        "name");
        if (result.name.empty())
          continue;
        if (auto it = names.find(result.name); it != names.end())
          return invalidArgument(what + " has the same name as " +
                                 describe(it->second));
        auto [it, inserted] = outputNames.emplace(result.name, r);
        if (!inserted)
          return invalidArgument(what + " has the same name as result #" +
                                 std::to_string(it->second));
        continue;
      }

      // A persistent update: value replaces state after the step.
      uint32_t state = result.state;
      if (state >= plan.tensors.size())
        return invalidArgument(what + " updates tensor " +
                               std::to_string(state) + ", but the plan has " +
                               std::to_string(plan.tensors.size()));
      const TensorDesc &s = plan.tensors[state];
      if (!stateKindMatches(result.role, s.kind))
        return invalidArgument(what + " updates " + describe(state) +
                               ", not a " + resultRoleName(result.role) +
                               " tensor");
      if (v.dtype != s.dtype || v.shape != s.shape)
        return invalidArgument(what + " computes " + dtypeName(v.dtype) +
                               formatShape(v.shape) + " for " +
                               describe(state) + " of " + dtypeName(s.dtype) +
                               formatShape(s.shape));
      if (updatedBy[state] >= 0)
        return invalidArgument(what + " updates " + describe(state) +
                               ", already updated by result #" +
                               std::to_string(updatedBy[state]));
      updatedBy[state] = static_cast<int64_t>(r);
    }
    if (losses != 1)
      return invalidArgument("plan has " + std::to_string(losses) +
                             " loss results; it needs exactly one");
    return Status::ok();
  }

  /// Each layout flag (layOutPlan) where its conditions hold: the session
  /// builds storage from them without looking again.
  Status checkLayout() {
    size_t count = plan.tensors.size();
    std::vector<int> valueUses(count, 0);
    for (const ResultDesc &result : plan.results)
      ++valueUses[result.value];
    std::vector<bool> doubleBuffered(count, false);
    for (size_t r = 0; r < plan.results.size(); ++r) {
      const ResultDesc &result = plan.results[r];
      std::string what = "result #" + std::to_string(r) + " (" +
                         resultRoleName(result.role) +
                         (result.name.empty() ? "" : " '" + result.name + "'") +
                         ")";
      if (result.flags & ~ResultDesc::kKnownFlags)
        return invalidArgument(what + " has unknown layout flags " +
                               std::to_string(result.flags));
      if (!result.isDoubleBuffered())
        continue;
      if (!isStateUpdate(result) ||
          plan.tensors[result.value].kind != TensorKind::Scratch ||
          valueUses[result.value] != 1 || valueUses[result.state] != 0)
        return invalidArgument(
            what + " is marked double-buffered, but only an update of a "
                   "persistent tensor by a scratch value no other result "
                   "names, of a state that is no result's value, can be");
      doubleBuffered[result.state] = true;
    }
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const KernelDesc &kernel = plan.kernels[k];
      if (kernel.flags & ~KernelDesc::kKnownFlags)
        return invalidArgument(describeKernel(k) + " has unknown layout flags " +
                               std::to_string(kernel.flags));
      if (kernel.flags == 0)
        continue;
      if (kernel.isFusedActivation()) {
        if (kernel.flags != KernelDesc::kFusedActivationKernel ||
            fusedActivationHost(plan, k) < 0)
          return invalidArgument(
              describeKernel(k) +
              " is marked a fused activation, but only a train.relu right "
              "after the train.batch_norm whose y it alone reads, or a "
              "train.relu_grad right before the train.batch_norm_grad that "
              "alone reads its result as grad_y, can be");
        continue;
      }
      if (kernel.isFusedCheck()) {
        if (kernel.flags != KernelDesc::kFusedCheckKernel ||
            gradientCheckers(plan, k).empty())
          return invalidArgument(
              describeKernel(k) +
              " is marked a fused check, but only an mp.all_finite whose "
              "result no kernel reads, each of whose operands a later "
              "optimizer update reads as its gradient, can be");
        continue;
      }
      if (kernel.isView() && kernel.isHoistedCast())
        return invalidArgument(describeKernel(k) +
                               " is marked both a view and a hoisted cast");
      bool unary = kernel.inputs.size() == 1 && kernel.outputs.size() == 1;
      uint32_t x = unary ? kernel.inputs[0] : 0,
               y = unary ? kernel.outputs[0] : 0;
      bool returned = unary && valueUses[y] != 0;
      if (kernel.isView()) {
        if (kernel.opId() != OpId::TrainReshape || !unary || returned ||
            plan.tensors[x].dtype != plan.tensors[y].dtype ||
            sizes[x] != sizes[y])
          return invalidArgument(
              describeKernel(k) +
              " is marked a view, but only a train.reshape keeping its "
              "input's dtype and size, whose result the step does not "
              "return, can be");
        if (!outside[y] && plan.tensors[y].offset !=
                               plan.tensors[root[y]].offset)
          return invalidArgument(
              describeKernel(k) + " is a view, but its result " +
              describe(y) + " is at arena offset " +
              std::to_string(plan.tensors[y].offset) + ", its input's bytes at " +
              std::to_string(plan.tensors[root[y]].offset));
      }
      if (kernel.isHoistedCast() &&
          (kernel.opId() != OpId::MpCast || !unary || returned ||
           !doubleBuffered[x]))
        return invalidArgument(
            describeKernel(k) +
            " is marked a hoisted cast, but only an mp.cast of a "
            "double-buffered state, whose result the step does not return, "
            "can be");
    }
    for (uint32_t id = 0; id < count; ++id)
      if (outside[id] && plan.tensors[id].kind == TensorKind::Scratch &&
          plan.tensors[id].offset != 0)
        return invalidArgument(describe(id) + " has arena offset " +
                               std::to_string(plan.tensors[id].offset) +
                               ", but the plan's layout keeps it outside the "
                               "arena (offset 0)");
    return Status::ok();
  }

  /// Two scratch tensors may share arena bytes only when their lifetimes
  /// (the kernel writing them .. the last kernel reading them, or the end
  /// of the step for results) are disjoint; this also keeps a kernel's
  /// outputs from aliasing its inputs, which backends rely on.
  /// The fused regions (PlanCode): runs of unflagged kernels in order,
  /// whose operands are exactly what the run reads from before it and
  /// what it writes that is read after it. A region's tensors are live
  /// from its first kernel to its last (the generated function reads and
  /// writes them element by element together), which checkArenaLifetimes
  /// then checks.
  Status checkCode() {
    const PlanCode &code = plan.code;
    if (code.regions.empty())
      return Status::ok();
    if (code.library.empty())
      return invalidArgument("the plan has fused regions but names no code "
                             "library");
    // Next to the plan, nowhere else: a plan cannot make the runtime load
    // an arbitrary library.
    if (code.library.find('/') != std::string::npos || code.library == "." ||
        code.library == "..")
      return invalidArgument("the plan's code library '" + code.library +
                             "' is not a file name (it must lie next to the "
                             "plan)");
    size_t next = 0; // the first kernel the next region may start at
    for (size_t r = 0; r < code.regions.size(); ++r) {
      const FusedRegion &region = code.regions[r];
      std::string what = "fused region #" + std::to_string(r) + " ('" +
                         region.symbol + "')";
      if (region.symbol.empty())
        return invalidArgument(what + " has no symbol");
      size_t first = region.first, end = first + region.count;
      if (region.count == 0 || first < next || end > plan.kernels.size())
        return invalidArgument(
            what + " covers kernels #" + std::to_string(first) + " to #" +
            std::to_string(end) + " (exclusive): not a non-empty range after "
                                  "the previous region's, inside the plan's " +
            std::to_string(plan.kernels.size()) + " kernels");
      next = end;
      if (region.extent < 0 || region.rowLength < 1)
        return invalidArgument(what + " has extent " +
                               std::to_string(region.extent) +
                               " and row length " +
                               std::to_string(region.rowLength));
      if (region.numInputs > region.operands.size())
        return invalidArgument(what + " has more inputs than operands");
      std::vector<int> role(plan.tensors.size(), 0); // 1 input, 2 output
      for (size_t o = 0; o < region.operands.size(); ++o) {
        uint32_t id = region.operands[o];
        if (id >= plan.tensors.size() || role[id] != 0)
          return invalidArgument(what + ": operand " + std::to_string(o) +
                                 " is tensor " + std::to_string(id) +
                                 ", out of range or repeated");
        role[id] = o < region.numInputs ? 1 : 2;
      }
      int64_t last = static_cast<int64_t>(end) - 1;
      for (size_t k = first; k < end; ++k) {
        const KernelDesc &kernel = plan.kernels[k];
        if (kernel.flags != 0)
          return invalidArgument(what + " holds " + describeKernel(k) +
                                 ", which the layout runs on its own (a view "
                                 "or a hoisted cast)");
        for (uint32_t id : kernel.inputs)
          if (definedBy[id] < static_cast<int64_t>(first) && role[id] != 1)
            return invalidArgument(what + ": " + describeKernel(k) +
                                   " reads " + describe(id) +
                                   ", which is not among the region's inputs");
        for (uint32_t id : kernel.outputs) {
          if (role[id] == 1)
            return invalidArgument(what + ": input " + describe(id) +
                                   " is written inside the region");
          bool readAfter = lastUse[id] > last;
          if (readAfter && role[id] != 2)
            return invalidArgument(what + ": " + describe(id) +
                                   " is read after the region but is not "
                                   "among its outputs");
          if (role[id] == 2)
            role[id] = 3; // written
        }
      }
      for (uint32_t id : region.operands)
        if (role[id] == 1 && definedBy[id] >= static_cast<int64_t>(first))
          return invalidArgument(what + ": input " + describe(id) +
                                 " is not written before the region");
        else if (role[id] == 2)
          return invalidArgument(what + ": output " + describe(id) +
                                 " is not written by the region's kernels");
    }
    // The regions are valid ranges: their tensors live through them, as
    // planMemory placed them.
    extendThroughRegions(plan, lastUse);
    return Status::ok();
  }

  Status checkArenaLifetimes() {
    struct Span {
      uint64_t begin, end;
      int64_t first, last;
      uint32_t id;
    };
    // A view is its root's buffer: one span for the chain, live until the
    // last read of any of them. Tensors outside the arena have none.
    std::vector<int64_t> last = lastUse, first = definedBy;
    // A fused activation's pair: its tensors live through both kernels.
    extendThroughFusedPairs(plan, last, &first);
    for (uint32_t id = 0; id < root.size(); ++id)
      last[root[id]] = std::max(last[root[id]], last[id]);
    std::vector<Span> spans;
    for (uint32_t id = 0; id < plan.tensors.size(); ++id)
      if (plan.tensors[id].kind == TensorKind::Scratch && definedBy[id] >= 0 &&
          sizes[id] > 0 && root[id] == id && !outside[id])
        spans.push_back({plan.tensors[id].offset,
                         plan.tensors[id].offset + sizes[id], first[id],
                         last[id], id});
    std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) {
      return a.begin != b.begin ? a.begin < b.begin : a.id < b.id;
    });
    for (size_t i = 0; i < spans.size(); ++i)
      for (size_t j = i + 1; j < spans.size() && spans[j].begin < spans[i].end;
           ++j) {
        const Span &a = spans[i], &b = spans[j];
        if (a.first <= b.last && b.first <= a.last)
          return invalidArgument(
              describe(a.id) + " and " + describe(b.id) +
              " share arena bytes [" + std::to_string(b.begin) + ", " +
              std::to_string(std::min(a.end, b.end)) +
              ") while both are live (kernels #" + std::to_string(a.first) +
              "..#" + std::to_string(a.last) + " and #" +
              std::to_string(b.first) + "..#" + std::to_string(b.last) + ")");
      }
    return Status::ok();
  }

  const Plan &plan;
  std::vector<uint64_t> sizes;           ///< byte size per tensor
  std::map<std::string, uint32_t> names; ///< named tensors
  std::vector<int64_t> definedBy;        ///< writing kernel, or -1
  std::vector<int64_t> lastUse;          ///< last reading kernel (results:
                                         ///< kernels.size()), or -1
  std::vector<bool> outside;             ///< outsideArena(plan)
  std::vector<uint32_t> root;            ///< storageRoots(plan)
};

} // namespace

Status Plan::validate() const { return Validator(*this).run(); }
