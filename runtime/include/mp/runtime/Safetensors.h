//===- Safetensors.h - the checkpoint file format ---------------*- C++ -*-===//
//
// safetensors (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length, a JSON header {name: {"dtype", "shape",
// "data_offsets": [begin, end]}, "__metadata__": {string: string}}, then the
// tensor bytes. What PyTorch users already save and load. Files written here
// also carry "checksum_fnv1a64" in the metadata, a checksum of the data
// bytes and the other metadata, so that a flipped bit is caught and not
// trained on.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_SAFETENSORS_H
#define MP_RUNTIME_SAFETENSORS_H

#include "mp/runtime/Plan.h"

#include <map>
#include <string>
#include <vector>

namespace mp::rt {

/// The metadata key of the checksum (16 hex digits): FNV-1a over the data
/// bytes, then over each other metadata key and value (in key order, each
/// followed by a NUL byte).
inline constexpr const char *kSafetensorsChecksumKey = "checksum_fnv1a64";

/// "F32", "BF16", "F16", "BOOL", "I32", "I64".
const char *safetensorsDtypeName(DType dtype);

/// One tensor of a file; `data` points into the bytes that hold it.
struct SafetensorsTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
  uint64_t byteSize = 0;
};

/// A parsed file. Its tensors point into `bytes`, so it moves but does not
/// copy.
struct SafetensorsFile {
  SafetensorsFile() = default;
  SafetensorsFile(SafetensorsFile &&) = default;
  SafetensorsFile &operator=(SafetensorsFile &&) = default;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;

  std::vector<uint8_t> bytes;
  std::vector<SafetensorsTensor> tensors; ///< in name order
  std::map<std::string, std::string> metadata;
  bool hasChecksum = false; ///< the checksum was there (and matched)

  const SafetensorsTensor *find(const std::string &name) const;
};

/// Parses a whole file. A truncated or corrupt file (header, offsets that
/// do not tile the data, a checksum mismatch), a dtype the runtime does not
/// hold, or a size that does not match the shape is DataLoss or
/// InvalidArgument, the message naming `origin` and the tensor.
StatusOr<SafetensorsFile> parseSafetensors(std::vector<uint8_t> bytes,
                                           const std::string &origin);
StatusOr<SafetensorsFile> readSafetensorsFile(const std::string &path);

/// Writes `tensors` (names unique) and `metadata` plus the checksum,
/// atomically: the previous file at `path` stays intact until the new one
/// is complete on disk.
Status writeSafetensorsFile(const std::string &path,
                            const std::vector<SafetensorsTensor> &tensors,
                            const std::map<std::string, std::string> &metadata);

} // namespace mp::rt

#endif // MP_RUNTIME_SAFETENSORS_H
