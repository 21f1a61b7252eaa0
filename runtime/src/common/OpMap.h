//===- OpMap.h - a backend's dispatch table by op id -------------*- C++
//-*-===//
//
// The one shape of the backends' dispatch tables: per OpId, a pointer to
// the backend's entry for the op (the reference's check and run, the cpu
// backend's list of paths, the cuda backend's handler), null where the
// backend has none. Built once from the backend's own list of entries;
// OpId::Unknown (an op outside the op table) finds nothing.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_COMMON_OPMAP_H
#define MP_RUNTIME_COMMON_OPMAP_H

#include "mp/runtime/OpTable.h"

#include <array>
#include <cstddef>

namespace mp::rt {

template <typename Entry> class OpMap {
public:
  OpMap() { byId_.fill(nullptr); }

  /// Every op's entry `entry` (a default the backend then overrides).
  void fill(const Entry *entry) { byId_.fill(entry); }
  /// Op `op`'s entry; a later set() of the same op replaces it.
  void set(OpId op, const Entry *entry) { byId_[index(op)] = entry; }
  /// Op `op`'s entry, or null.
  const Entry *find(OpId op) const {
    return op == OpId::Unknown ? nullptr : byId_[index(op)];
  }

private:
  static size_t index(OpId op) { return static_cast<size_t>(op); }
  std::array<const Entry *, kNumOps> byId_;
};

} // namespace mp::rt

#endif // MP_RUNTIME_COMMON_OPMAP_H
