//===- RegionLifetimes.h - a fused region's tensors live through it -*- C++ -*-//
//
// A fused region's generated function reads and writes all its tensors
// element by element together (PlanCode), so each tensor a region's
// kernels read or write lives until the region's last kernel; the same
// for a fused activation and its batch norm. The memory planner assigns
// bytes by these rules and validate() checks them by them: one definition
// for both.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_PLAN_REGIONLIFETIMES_H
#define MP_RUNTIME_PLAN_REGIONLIFETIMES_H

#include "mp/runtime/Plan.h"

#include <algorithm>
#include <vector>

namespace mp::rt {

/// Raises `last[t]` (the last kernel using tensor t) to the last kernel of
/// every fused region of `plan` among whose kernels' operands t is; regions
/// reaching past the plan's kernels are cut at its end.
template <typename Index>
void extendThroughRegions(const Plan &plan, std::vector<Index> &last) {
  size_t numKernels = plan.kernels.size();
  for (const FusedRegion &region : plan.code.regions) {
    size_t end = std::min<size_t>(size_t(region.first) + region.count,
                                  numKernels);
    if (end <= region.first)
      continue;
    Index through = static_cast<Index>(end - 1);
    for (size_t k = region.first; k < end; ++k) {
      for (uint32_t t : plan.kernels[k].inputs)
        last[t] = std::max(last[t], through);
      for (uint32_t t : plan.kernels[k].outputs)
        last[t] = std::max(last[t], through);
    }
  }
}

/// A fused activation (KernelDesc::kFusedActivationKernel) runs in its
/// batch norm neighbour's pass: a relu's result is written while the
/// batch_norm reads x, a relu_grad's operands are read while the
/// batch_norm_grad writes its results. So the earlier kernel's operands
/// (its inputs, and its results even when nothing reads them: a statistic
/// written while the relu's result is) live through the later kernel, and
/// with `first` the later kernel's results count as written at the earlier
/// one (the planner places them where nothing live at either kernel is:
/// every tensor released between the two is an operand of the earlier
/// kernel, kept). Flags whose host does not hold
/// (fusedActivationHost) are skipped: validate() reports them.
template <typename Index>
void extendThroughFusedPairs(const Plan &plan, std::vector<Index> &last,
                             std::vector<Index> *first = nullptr) {
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    if (!plan.kernels[k].isFusedActivation())
      continue;
    int64_t host = fusedActivationHost(plan, k);
    if (host < 0)
      continue;
    size_t begin = std::min<size_t>(k, static_cast<size_t>(host));
    size_t end = std::max<size_t>(k, static_cast<size_t>(host));
    for (const std::vector<uint32_t> *ts :
         {&plan.kernels[begin].inputs, &plan.kernels[begin].outputs})
      for (uint32_t t : *ts)
        last[t] = std::max(last[t], static_cast<Index>(end));
    if (first)
      for (uint32_t t : plan.kernels[end].outputs)
        (*first)[t] = std::min((*first)[t], static_cast<Index>(begin));
  }
}

} // namespace mp::rt

#endif // MP_RUNTIME_PLAN_REGIONLIFETIMES_H
