//===- MemoryPlanner.cpp - static arena offsets by liveness ---------------===//
//
// A sweep over the schedule: before kernel k runs, the scratch tensors whose
// last reader came before k return their bytes to a free list; then each
// output of k takes the smallest free block that fits (best fit, split; the
// free block at the top of the arena grows when nothing fits). Freed
// neighbours merge. O(n log n) in the number of tensors: training steps keep
// activations alive until the backward pass, so anything that scans the live
// set per tensor is quadratic on big graphs. It follows the plan's layout
// flags (PlanLayout.cpp): mp-compile plans every plan once, after
// layOutPlan's decisions, and the session uses the offsets as written.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"
#include "plan/RegionLifetimes.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

using namespace mp::rt;

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

namespace {
/// Free byte ranges of the arena, by offset and by size.
class FreeList {
public:
  /// An offset for `size` bytes; grows the arena when no block fits.
  uint64_t allocate(uint64_t size) {
    auto best = bySize.lower_bound({size, 0});
    if (best != bySize.end()) {
      auto [blockSize, offset] = *best;
      erase(offset, blockSize);
      if (blockSize > size)
        insert(offset + size, blockSize - size);
      return offset;
    }
    // Nothing fits: extend the free block that ends at the top, if any.
    uint64_t offset = end;
    if (!byOffset.empty()) {
      auto last = std::prev(byOffset.end());
      if (last->first + last->second == end) {
        offset = last->first;
        erase(last->first, last->second);
      }
    }
    end = offset + size;
    return offset;
  }

  /// Returns [offset, offset + size), merging with free neighbours.
  void release(uint64_t offset, uint64_t size) {
    auto next = byOffset.lower_bound(offset);
    if (next != byOffset.end() && offset + size == next->first) {
      size += next->second;
      erase(next->first, next->second);
    }
    auto prev = byOffset.lower_bound(offset);
    if (prev != byOffset.begin()) {
      --prev;
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        erase(prev->first, prev->second);
      }
    }
    insert(offset, size);
  }

  uint64_t arenaSize() const { return end; }

private:
  void insert(uint64_t offset, uint64_t size) {
    byOffset[offset] = size;
    bySize.insert({size, offset});
  }
  void erase(uint64_t offset, uint64_t size) {
    byOffset.erase(offset);
    bySize.erase({size, offset});
  }

  std::map<uint64_t, uint64_t> byOffset;
  std::set<std::pair<uint64_t, uint64_t>> bySize; ///< (size, offset)
  uint64_t end = 0;
};
} // namespace

void mp::rt::planMemory(Plan &plan, uint64_t alignment) {
  size_t numKernels = plan.kernels.size();
  std::vector<size_t> last(plan.tensors.size(), 0);
  std::vector<bool> written(plan.tensors.size(), false);
  for (size_t k = 0; k < numKernels; ++k) {
    for (uint32_t t : plan.kernels[k].outputs) {
      written[t] = true;
      last[t] = std::max(last[t], k);
    }
    for (uint32_t t : plan.kernels[k].inputs)
      last[t] = std::max(last[t], k);
  }
  // The step's results are read after the last kernel: never freed.
  for (const ResultDesc &result : plan.results)
    last[result.value] = numKernels;
  // A fused region's tensors live until its last kernel.
  extendThroughRegions(plan, last);
  // So do a fused activation's and its batch norm's (allocated at the
  // plan's writer: every tensor live at the pair's first kernel still is
  // at its second, so the relu's result gets bytes free at both).
  extendThroughFusedPairs(plan, last);
  // A view is its root's bytes, which stay live while either is read.
  std::vector<uint32_t> root = storageRoots(plan);
  std::vector<bool> outside = outsideArena(plan);
  for (uint32_t t = 0; t < root.size(); ++t)
    last[root[t]] = std::max(last[root[t]], last[t]);

  FreeList arena;
  // (last reader, tensor) of the live scratch tensors, soonest first.
  using Live = std::pair<size_t, uint32_t>;
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
  for (size_t k = 0; k < numKernels; ++k) {
    while (!live.empty() && live.top().first < k) {
      uint32_t t = live.top().second;
      live.pop();
      arena.release(plan.tensors[t].offset,
                    alignUp(plan.tensors[t].byteSize(), alignment));
    }
    for (uint32_t t : plan.kernels[k].outputs) {
      TensorDesc &tensor = plan.tensors[t];
      if (tensor.kind != TensorKind::Scratch || !written[t])
        continue;
      written[t] = false; // place each tensor once
      if (outside[t]) {
        tensor.offset = 0; // the session's own slot, not the arena
        continue;
      }
      if (root[t] != t) {
        tensor.offset = plan.tensors[root[t]].offset;
        continue;
      }
      tensor.offset = arena.allocate(alignUp(tensor.byteSize(), alignment));
      live.push({last[t], t});
    }
  }
  plan.arenaSize = arena.arenaSize();
}
