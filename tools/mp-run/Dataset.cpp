//===- Dataset.cpp - named arrays from .npy, .npz and .safetensors --------===//
//
// The .npz reader reads what np.savez writes: a zip archive whose members
// are .npy files stored without compression (zip64 records where numpy
// forces them). It walks the central directory, checks each member's local
// header and CRC-32, and parses the member with the .npy reader. Compressed
// members (np.savez_compressed) are refused by name: mp-run has no inflate.
//
//===----------------------------------------------------------------------===//
#include "Dataset.h"

#include "mp/runtime/Safetensors.h"
#include "mp/runtime/Tensor.h"

#include <array>
#include <cstring>

using namespace mp;
using namespace mp::run;

namespace {

/// Little-endian fields of a byte buffer, bounds-checked.
class Bytes {
public:
  explicit Bytes(const std::vector<uint8_t> &bytes) : bytes(bytes) {}
  bool has(uint64_t at, uint64_t n) const {
    return at <= bytes.size() && n <= bytes.size() - at;
  }
  uint64_t le(uint64_t at, int n) const {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(bytes[at + i]) << (8 * i);
    return v;
  }
  const std::vector<uint8_t> &bytes;
};

uint32_t crc32(const uint8_t *data, size_t size) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i)
    c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A safetensors tensor as an Array: floats widened to f32, integers and
/// booleans to i64.
Array toArray(const rt::SafetensorsTensor &tensor) {
  Array array;
  array.shape = tensor.shape;
  // A safetensors file aligns nothing (the data start after a header of
  // any length): copied into 8-byte aligned memory before typed loads.
  std::vector<uint64_t> aligned((tensor.byteSize + 7) / 8);
  if (tensor.byteSize)
    std::memcpy(aligned.data(), tensor.data, tensor.byteSize);
  rt::TensorView view{tensor.dtype, tensor.shape, aligned.data()};
  int64_t count = view.numElements();
  array.isFloat = rt::isFloat(tensor.dtype);
  if (array.isFloat) {
    array.floats.resize(count);
    for (int64_t i = 0; i < count; ++i)
      array.floats[i] = rt::loadFloat(view, i);
  } else {
    array.ints.resize(count);
    for (int64_t i = 0; i < count; ++i)
      array.ints[i] = rt::loadInt(view, i);
  }
  return array;
}

} // namespace

rt::StatusOr<std::vector<std::pair<std::string, Array>>>
mp::run::parseNpz(const std::vector<uint8_t> &bytes, const std::string &path) {
  auto fail = [&](const std::string &why) {
    return rt::dataLoss(path + ": not a readable .npz file: " + why);
  };
  Bytes b(bytes);
  // The end-of-central-directory record: the last 22 bytes, or earlier by
  // the length of an archive comment (at most 65535 bytes).
  if (bytes.size() < 22)
    return fail("too short for a zip archive");
  uint64_t eocd = bytes.size() - 22;
  uint64_t lowest = bytes.size() >= 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  while (b.le(eocd, 4) != 0x06054b50) {
    if (eocd == lowest)
      return fail("no zip end-of-central-directory record");
    --eocd;
  }
  uint64_t count = b.le(eocd + 10, 2), directory = b.le(eocd + 16, 4);
  // Zip64: the locator just before the record points at the zip64 record.
  if ((count == 0xFFFF || directory == 0xFFFFFFFF) && eocd >= 20 &&
      b.le(eocd - 20, 4) == 0x07064b50) {
    uint64_t record = b.le(eocd - 20 + 8, 8);
    if (!b.has(record, 56) || b.le(record, 4) != 0x06064b50)
      return fail("a broken zip64 end-of-central-directory record");
    count = b.le(record + 32, 8);
    directory = b.le(record + 48, 8);
  }
  std::vector<std::pair<std::string, Array>> arrays;
  uint64_t at = directory;
  for (uint64_t e = 0; e < count; ++e) {
    if (!b.has(at, 46) || b.le(at, 4) != 0x02014b50)
      return fail("a broken central directory (entry " + std::to_string(e) +
                  ")");
    uint64_t method = b.le(at + 10, 2), crc = b.le(at + 16, 4);
    uint64_t packed = b.le(at + 20, 4), size = b.le(at + 24, 4);
    uint64_t nameLength = b.le(at + 28, 2), extraLength = b.le(at + 30, 2);
    uint64_t commentLength = b.le(at + 32, 2), local = b.le(at + 42, 4);
    if (!b.has(at + 46, nameLength + extraLength + commentLength))
      return fail("a broken central directory (entry " + std::to_string(e) +
                  ")");
    std::string name(bytes.begin() + at + 46,
                     bytes.begin() + at + 46 + nameLength);
    // The zip64 extra field holds, in order, the fields saturated above.
    for (uint64_t x = at + 46 + nameLength,
                  end = at + 46 + nameLength + extraLength;
         x + 4 <= end;) {
      uint64_t id = b.le(x, 2), length = b.le(x + 2, 2), field = x + 4;
      if (x + 4 + length > end)
        break;
      if (id == 0x0001) {
        for (uint64_t *value : {&size, &packed, &local})
          if (*value == 0xFFFFFFFF && field + 8 <= x + 4 + length) {
            *value = b.le(field, 8);
            field += 8;
          }
      }
      x += 4 + length;
    }
    at += 46 + nameLength + extraLength + commentLength;
    std::string entry = path + " entry '" + name + "'";
    if (method != 0)
      return rt::invalidArgument(
          entry + " is compressed (zip method " + std::to_string(method) +
          "); mp-run reads uncompressed archives: save with np.savez, not "
          "np.savez_compressed");
    if (!b.has(local, 30) || b.le(local, 4) != 0x04034b50)
      return fail("entry '" + name + "' has no local header");
    uint64_t data =
        local + 30 + b.le(local + 26, 2) + b.le(local + 28, 2);
    if (packed != size || !b.has(data, size))
      return fail("entry '" + name + "' is truncated");
    if (crc32(bytes.data() + data, size) != crc)
      return rt::dataLoss(entry + ": corrupt data (CRC-32 mismatch)");
    if (!endsWith(name, ".npy"))
      return rt::invalidArgument(entry + " is not a .npy array");
    std::vector<uint8_t> member(bytes.begin() + data,
                                bytes.begin() + data + size);
    rt::StatusOr<Array> array = parseNpy(member, entry);
    if (!array.isOk())
      return array.status();
    arrays.emplace_back(name.substr(0, name.size() - 4), std::move(*array));
  }
  return arrays;
}

rt::Status mp::run::addToDataset(Dataset &data, const std::string &spec) {
  auto add = [&](const std::string &name, Array array, std::string origin,
                 bool named) -> rt::Status {
    auto [it, fresh] = data.entries.try_emplace(name);
    if (!fresh)
      return rt::invalidArgument("--data: '" + name + "' is given twice (" +
                                 it->second.origin + " and " + origin + ")");
    it->second = {std::move(array), std::move(origin), named};
    return rt::Status::ok();
  };
  size_t eq = spec.find('=');
  if (eq != std::string::npos) {
    std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
    if (name.empty() || path.empty())
      return rt::invalidArgument("--data '" + spec +
                                 "': expected NAME=FILE.npy, FILE.npz or "
                                 "FILE.safetensors");
    rt::StatusOr<Array> array = readNpy(path);
    if (!array.isOk())
      return array.status();
    return add(name, std::move(*array), path, true);
  }
  if (endsWith(spec, ".npz")) {
    rt::StatusOr<std::vector<uint8_t>> bytes =
        readDataFile(spec, "an .npz file");
    if (!bytes.isOk())
      return bytes.status();
    auto arrays = parseNpz(*bytes, spec);
    if (!arrays.isOk())
      return arrays.status();
    for (auto &[name, array] : *arrays)
      MP_RETURN_IF_ERROR(add(name, std::move(array),
                             spec + " entry '" + name + "'", false));
    return rt::Status::ok();
  }
  if (endsWith(spec, ".safetensors")) {
    rt::StatusOr<rt::SafetensorsFile> file = rt::readSafetensorsFile(spec);
    if (!file.isOk())
      return file.status();
    for (const rt::SafetensorsTensor &tensor : file->tensors)
      MP_RETURN_IF_ERROR(add(tensor.name, toArray(tensor),
                             spec + " tensor '" + tensor.name + "'", false));
    return rt::Status::ok();
  }
  return rt::invalidArgument("--data '" + spec +
                             "': expected NAME=FILE.npy, FILE.npz or "
                             "FILE.safetensors");
}
