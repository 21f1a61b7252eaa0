//===- ByteIO.h - little-endian encoding with bounds checks -----*- C++ -*-===//
//
// The plan format's primitives. The reader never reads past its buffer: a
// read that would fails, sets `failed` and leaves the output untouched, and
// every later read fails too, so a parser can check once per record.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_SUPPORT_BYTEIO_H
#define MP_RUNTIME_SUPPORT_BYTEIO_H

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace mp::rt {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the file formats are little-endian and so is every host we "
              "build for; a big-endian port needs byte swaps here");

class ByteWriter {
public:
  explicit ByteWriter(std::vector<uint8_t> &out) : out(out) {}
  void bytes(const void *data, size_t size) {
    const auto *p = static_cast<const uint8_t *>(data);
    out.insert(out.end(), p, p + size);
  }
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) { bytes(&v, sizeof(v)); }
  void u64(uint64_t v) { bytes(&v, sizeof(v)); }
  void f64(double v) { bytes(&v, sizeof(v)); } ///< the IEEE bits, NaNs too
  void str(const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  /// A u32 count, then the elements' bytes.
  template <typename T> void array(const std::vector<T> &values) {
    static_assert(std::is_trivially_copyable_v<T>);
    u32(static_cast<uint32_t>(values.size()));
    bytes(values.data(), values.size() * sizeof(T));
  }

private:
  std::vector<uint8_t> &out;
};

class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data(data), size(size) {}

  size_t position() const { return pos; }
  size_t remaining() const { return size - pos; }
  bool failed() const { return failed_; }
  bool atEnd() const { return pos == size; }

  bool bytes(void *out, size_t n) {
    if (failed_ || n > remaining())
      return fail();
    if (n) // `out` may be the null data() of an empty vector
      std::memcpy(out, data + pos, n);
    pos += n;
    return true;
  }
  bool u8(uint8_t &v) { return bytes(&v, sizeof(v)); }
  bool u32(uint32_t &v) { return bytes(&v, sizeof(v)); }
  bool u64(uint64_t &v) { return bytes(&v, sizeof(v)); }
  bool f64(double &v) { return bytes(&v, sizeof(v)); }
  bool str(std::string &s) {
    uint32_t n;
    if (!u32(n) || n > remaining())
      return fail();
    s.assign(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    return true;
  }
  /// What ByteWriter::array writes.
  template <typename T> bool array(std::vector<T> &values) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint32_t n;
    if (!count(n, sizeof(T)))
      return false;
    values.resize(n);
    return bytes(values.data(), n * sizeof(T));
  }
  /// A count of elements that each take at least `minBytes`: more than the
  /// remaining bytes can hold is corrupt, which caps every allocation a
  /// hostile count could ask for.
  bool count(uint32_t &n, size_t minBytes) {
    if (!u32(n) || (minBytes && n > remaining() / minBytes))
      return fail();
    return true;
  }

private:
  bool fail() {
    failed_ = true;
    return false;
  }

  const uint8_t *data;
  size_t size;
  size_t pos = 0;
  bool failed_ = false;
};

} // namespace mp::rt

#endif // MP_RUNTIME_SUPPORT_BYTEIO_H
