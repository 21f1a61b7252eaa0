//===- Hash.h - 64-bit FNV-1a -----------------------------------*- C++ -*-===//
//
// The checksum of plan files and checkpoint data, and the plan hash that
// checkpoints record. FNV-1a catches corruption, not forgery: readers
// bounds-check everything anyway.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_SUPPORT_HASH_H
#define MP_RUNTIME_SUPPORT_HASH_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mp::rt {

constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;

/// Continues the FNV-1a hash `hash` over `size` bytes at `data`; chunks can
/// be hashed one after the other.
inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t hash = kFnv1aOffsetBasis) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// 16 lowercase hex digits.
inline std::string hex64(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    text[i] = digits[value & 15];
  return text;
}

} // namespace mp::rt

#endif // MP_RUNTIME_SUPPORT_HASH_H
