//===- OneDnnSupport.h - what the oneDNN primitive caches share -*- C++ -*-===//
//
// Internal to the cpu backend's oneDNN files (OneDnn*.cpp): the process's
// engine, dtype mapping, the caches' key hashing and the scratch memory the
// widened 16-bit paths convert into. Includes oneDNN's headers; nothing
// outside src/cpu includes it.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_ONEDNNSUPPORT_H
#define MP_RUNTIME_CPU_ONEDNNSUPPORT_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>

namespace mp::rt::cpu {

/// The process's oneDNN CPU engine: engines are expensive (on the PyPI
/// build each is a SYCL device context), primitives are bound to one, and
/// every backend instance can share it.
struct EngineState {
  Status status;
  dnnl::engine engine;
  std::string description;
};
const EngineState &engineState();

/// f32, bf16 and f16 as oneDNN data types; undef for the rest.
dnnl::memory::data_type toDnnl(DType dtype);

/// Whether `out` may hold a result computed from `in`: the same float
/// dtype, or f32 (the reference's accumulator rule).
bool isAccumulatorOf(DType in, DType out);

/// Whether oneDNN's implementation name is its naive reference loop nest
/// ("ref:any", also behind composite names): far slower than the widened
/// f32 path or our own reference kernel.
inline bool isReferenceImplementation(const std::string &name) {
  return name.find("ref:") != std::string::npos;
}

/// Hashes a cache key through its tie(): one hash for every primitive cache.
struct TieHash {
  template <typename Key> size_t operator()(const Key &key) const {
    size_t h = 0;
    std::apply(
        [&h](auto... values) {
          ((h ^= std::hash<uint64_t>()(static_cast<uint64_t>(values)) +
                 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)),
           ...);
        },
        key.tie());
    return h;
  }
};

/// Growable, 64-byte aligned memory that the widened paths convert their
/// 16-bit operands into. One per cache: the kernels of a step run one
/// after the other, so a cache needs the most any one of its problems
/// needs, not the sum.
class Scratch {
public:
  /// At least `bytes`, contents undefined; nullptr when out of memory.
  void *get(size_t bytes) {
    if (bytes > size_) {
      size_t rounded = (bytes + 63) / 64 * 64;
      void *p = std::aligned_alloc(64, rounded);
      if (!p)
        return nullptr;
      data_.reset(p);
      size_ = rounded;
    }
    return data_.get();
  }
  size_t size() const { return size_; }

private:
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> data_;
  size_t size_ = 0;
};

/// What a primitive cache holds (MatmulCache, ConvCache): one `Entry` per
/// problem `Key`, made on first use by `create` (whose `supported()` says
/// whether oneDNN runs it), the stream, the scratch and the last
/// implementation name.
template <typename Key, typename Entry> struct PrimitiveCache {
  dnnl::stream stream;
  std::unordered_map<Key, Entry, TieHash> entries;
  size_t created = 0;
  std::string last;
  Scratch scratch;

  /// The entry of `key`, made with create() the first time.
  template <typename Create>
  const Entry &lookup(const Key &key, const dnnl::engine &engine,
                      Create create) {
    auto it = entries.find(key);
    if (it == entries.end()) {
      it = entries.emplace(key, create(engine, key)).first;
      created += it->second.supported();
    }
    if (!stream)
      stream = dnnl::stream(engine);
    return it->second;
  }
};

/// `n` elements of a 16-bit (or f32) tensor widened into `out`, and back
/// (rounded once), on the backend's threads.
void widenInto(DType dtype, const void *in, float *out, int64_t n);
void narrowInto(const float *in, DType dtype, void *out, int64_t n);

/// A oneDNN call's error as our Status (op name, what, oneDNN's message).
Status oneDnnError(const std::string &op, const char *what,
                   const std::exception &e);

/// The caches' prepare(): whether `find(state)` (the cache's lookup, which
/// creates the primitive) has an entry for the kernel, and its
/// implementation's name; oneDNN's errors as a Status naming the op.
template <typename Find>
StatusOr<bool> preparePrimitive(const KernelDesc &kernel, const char *what,
                                Find find, std::string &implementation) {
  const EngineState &state = engineState();
  MP_RETURN_IF_ERROR(state.status);
  try {
    const auto *entry = find(state);
    if (entry)
      implementation = entry->implementation;
    return entry != nullptr;
  } catch (const std::exception &e) {
    return oneDnnError(kernel.op, what, e);
  }
}

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_ONEDNNSUPPORT_H
