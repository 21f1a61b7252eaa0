//===- RegionLifetimes.h - a fused region's tensors live through it -*- C++ -*-//
//
// A fused region's generated function reads and writes all its tensors
// element by element together (PlanCode), so each tensor a region's
// kernels read or write lives until the region's last kernel. The memory
// planner assigns bytes by that rule and validate() checks them by it: one
// definition for both.
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

} // namespace mp::rt

#endif // MP_RUNTIME_PLAN_REGIONLIFETIMES_H
