//===- MemoryPlanner.cpp - static arena offsets by liveness ---------------===//
#include "mp/Target/Plan/PlanBuilder.h"

#include <algorithm>
#include <numeric>

using namespace mp;

namespace {
struct Lifetime {
  uint32_t tensor;
  size_t first = SIZE_MAX, last = 0;
  uint64_t size = 0;
};
struct Placed {
  uint64_t begin, end;
  size_t first, last;
};
} // namespace

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

void mp::planMemory(rt::Plan &plan, uint64_t alignment) {
  std::vector<Lifetime> lifetimes(plan.tensors.size());
  for (uint32_t t = 0; t < plan.tensors.size(); ++t) {
    lifetimes[t].tensor = t;
    lifetimes[t].size = alignUp(plan.tensors[t].byteSize(), alignment);
  }
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (uint32_t t : plan.kernels[k].outputs) {
      lifetimes[t].first = std::min(lifetimes[t].first, k);
      lifetimes[t].last = std::max(lifetimes[t].last, k);
    }
    for (uint32_t t : plan.kernels[k].inputs)
      lifetimes[t].last = std::max(lifetimes[t].last, k);
  }
  // The step's results are read after the last kernel.
  for (const rt::ResultDesc &result : plan.results)
    lifetimes[result.value].last = plan.kernels.size();

  // Largest first, then by first use: a greedy first fit that keeps big
  // activations packed and is deterministic.
  std::vector<Lifetime> scratch;
  for (const Lifetime &l : lifetimes)
    if (plan.tensors[l.tensor].kind == rt::TensorKind::Scratch &&
        l.first != SIZE_MAX)
      scratch.push_back(l);
  std::stable_sort(scratch.begin(), scratch.end(),
                   [](const Lifetime &a, const Lifetime &b) {
                     return a.size != b.size ? a.size > b.size
                                             : a.first < b.first;
                   });

  std::vector<Placed> placed;
  uint64_t arena = 0;
  for (const Lifetime &l : scratch) {
    // Byte ranges taken by tensors alive at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (const Placed &p : placed)
      if (p.first <= l.last && l.first <= p.last)
        busy.emplace_back(p.begin, p.end);
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + l.size <= begin)
        break;
      offset = std::max(offset, end);
    }
    plan.tensors[l.tensor].offset = offset;
    placed.push_back({offset, offset + l.size, l.first, l.last});
    arena = std::max(arena, offset + l.size);
  }
  plan.arenaSize = arena;
}
