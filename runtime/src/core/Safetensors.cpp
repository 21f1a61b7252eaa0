//===- Safetensors.cpp - the checkpoint file format -----------------------===//
#include "mp/runtime/Safetensors.h"

#include "core/Json.h"
#include "plan/FileIO.h"
#include "plan/Sizes.h"
#include "support/Hash.h"

#include <algorithm>
#include <cstring>

using namespace mp::rt;

/// The safetensors reference implementation refuses larger headers too.
static constexpr uint64_t kMaxHeaderBytes = 100u << 20;

const char *mp::rt::safetensorsDtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::I1:
    return "BOOL";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  }
  return "<unknown>";
}

/// Continues the checksum `hash` of the data over the metadata (but the
/// checksum itself), so that a damaged counter or plan hash is caught too.
static uint64_t hashMetadata(uint64_t hash,
                             const std::map<std::string, std::string> &meta) {
  for (const auto &[key, value] : meta) {
    if (key == kSafetensorsChecksumKey)
      continue;
    hash = fnv1a64(key.c_str(), key.size() + 1, hash); // with the NUL
    hash = fnv1a64(value.c_str(), value.size() + 1, hash);
  }
  return hash;
}

static std::optional<DType> parseDtype(const std::string &name) {
  for (DType dtype :
       {DType::F32, DType::BF16, DType::F16, DType::I1, DType::I32, DType::I64})
    if (name == safetensorsDtypeName(dtype))
      return dtype;
  return std::nullopt;
}

const SafetensorsTensor *SafetensorsFile::find(const std::string &name) const {
  auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                             [](const SafetensorsTensor &t,
                                const std::string &n) { return t.name < n; });
  return it != tensors.end() && it->name == name ? &*it : nullptr;
}

Status mp::rt::writeSafetensorsFile(
    const std::string &path, const std::vector<SafetensorsTensor> &tensors,
    const std::map<std::string, std::string> &metadata) {
  std::vector<const SafetensorsTensor *> sorted;
  for (const SafetensorsTensor &t : tensors)
    sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](auto *a, auto *b) { return a->name < b->name; });
  uint64_t checksum = kFnv1aOffsetBasis;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const SafetensorsTensor &t = *sorted[i];
    if (i && sorted[i - 1]->name == t.name)
      return invalidArgument("cannot write '" + path +
                             "': two tensors named '" + t.name + "'");
    if (t.name == "__metadata__")
      return invalidArgument("cannot write '" + path +
                             "': '__metadata__' is not a tensor name");
    std::optional<uint64_t> size = checkedByteSize(t.shape, t.dtype);
    if (!size || *size != t.byteSize || (t.byteSize && !t.data))
      return invalidArgument("cannot write '" + path + "': tensor '" + t.name +
                             "' has " + std::to_string(t.byteSize) +
                             " bytes for " + dtypeName(t.dtype) +
                             formatShape(t.shape));
    checksum = fnv1a64(t.data, t.byteSize, checksum);
  }

  std::map<std::string, std::string> meta = metadata;
  meta[kSafetensorsChecksumKey] = hex64(hashMetadata(checksum, meta));
  std::string header = "{\"__metadata__\":{";
  for (auto it = meta.begin(); it != meta.end(); ++it)
    header += (it == meta.begin() ? "" : ",") + quoteJson(it->first) + ":" +
              quoteJson(it->second);
  header += "}";
  uint64_t offset = 0;
  for (const SafetensorsTensor *t : sorted) {
    header += "," + quoteJson(t->name) + ":{\"dtype\":\"" +
              safetensorsDtypeName(t->dtype) + "\",\"shape\":[";
    for (size_t d = 0; d < t->shape.size(); ++d)
      header += (d ? "," : "") + std::to_string(t->shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + t->byteSize) + "]}";
    offset += t->byteSize;
  }
  header += "}";
  // Padding keeps the data 8-byte aligned in the file, as the reference
  // writer does.
  header.append((8 - header.size() % 8) % 8, ' ');

  uint64_t headerSize = header.size();
  std::vector<FileChunk> chunks = {{&headerSize, sizeof(headerSize)},
                                   {header.data(), header.size()}};
  for (const SafetensorsTensor *t : sorted)
    if (t->byteSize)
      chunks.push_back({t->data, t->byteSize});
  return writeFileAtomically(path, chunks);
}

namespace {

/// Parses the header of `file.bytes` into `file`.
class HeaderReader {
public:
  HeaderReader(SafetensorsFile &file, const std::string &origin)
      : file(file), origin(origin) {}

  Status read() {
    const std::vector<uint8_t> &bytes = file.bytes;
    if (bytes.size() < 8)
      return dataLoss(origin + ": truncated safetensors file: " +
                      std::to_string(bytes.size()) +
                      " bytes, less than the 8-byte header length");
    uint64_t headerSize;
    std::memcpy(&headerSize, bytes.data(), sizeof(headerSize));
    if (headerSize > bytes.size() - 8)
      return dataLoss(origin +
                      ": truncated safetensors file: the header "
                      "announces " +
                      std::to_string(headerSize) + " bytes, the file has " +
                      std::to_string(bytes.size() - 8) + " after the length");
    if (headerSize > kMaxHeaderBytes)
      return dataLoss(origin + ": corrupt safetensors file: a header of " +
                      std::to_string(headerSize) + " bytes");
    data = bytes.data() + 8 + headerSize;
    dataSize = bytes.size() - 8 - headerSize;

    std::string_view text(reinterpret_cast<const char *>(bytes.data() + 8),
                          headerSize);
    StatusOr<JsonValue> root = parseJson(text);
    if (!root.isOk())
      return dataLoss(
          origin + ": corrupt safetensors header: " + root.status().message());
    if (root->kind != JsonValue::Kind::Object)
      return dataLoss(origin + ": corrupt safetensors header: not an object");
    for (const auto &[name, value] : root->members) {
      if (name == "__metadata__")
        MP_RETURN_IF_ERROR(readMetadata(value));
      else
        MP_RETURN_IF_ERROR(readTensor(name, value));
    }
    MP_RETURN_IF_ERROR(checkTiling());
    std::sort(file.tensors.begin(), file.tensors.end(),
              [](const auto &a, const auto &b) { return a.name < b.name; });
    return checkChecksum();
  }

private:
  Status corrupt(const std::string &what) const {
    return dataLoss(origin + ": corrupt safetensors header: " + what);
  }

  Status readMetadata(const JsonValue &value) {
    if (value.kind != JsonValue::Kind::Object)
      return corrupt("__metadata__ is not an object");
    for (const auto &[key, item] : value.members) {
      if (item.kind != JsonValue::Kind::String)
        return corrupt("metadata '" + key + "' is not a string");
      file.metadata[key] = item.text;
    }
    return Status::ok();
  }

  Status readTensor(const std::string &name, const JsonValue &value) {
    if (value.kind != JsonValue::Kind::Object || value.members.size() != 3)
      return corrupt("tensor '" + name +
                     "' is not {dtype, shape, data_offsets}");
    const JsonValue *dtype = value.find("dtype");
    const JsonValue *shape = value.find("shape");
    const JsonValue *offsets = value.find("data_offsets");
    if (!dtype || !shape || !offsets ||
        dtype->kind != JsonValue::Kind::String ||
        shape->kind != JsonValue::Kind::Array ||
        offsets->kind != JsonValue::Kind::Array || offsets->items.size() != 2)
      return corrupt("tensor '" + name +
                     "' is not {dtype, shape, data_offsets}");
    SafetensorsTensor tensor;
    tensor.name = name;
    std::optional<DType> parsed = parseDtype(dtype->text);
    if (!parsed)
      return invalidArgument(origin + ": tensor '" + name + "' has dtype " +
                             dtype->text +
                             ", which the runtime does not hold (it holds "
                             "F32, BF16, F16, BOOL, I32, I64)");
    tensor.dtype = *parsed;
    for (const JsonValue &dim : shape->items) {
      std::optional<int64_t> v = dim.asInt();
      if (!v || *v < 0)
        return corrupt("tensor '" + name + "' has a bad shape");
      tensor.shape.push_back(*v);
    }
    std::optional<int64_t> begin = offsets->items[0].asInt();
    std::optional<int64_t> end = offsets->items[1].asInt();
    if (!begin || !end || *begin < 0 || *end < *begin)
      return corrupt("tensor '" + name + "' has bad data_offsets");
    std::optional<uint64_t> size = checkedByteSize(tensor.shape, tensor.dtype);
    uint64_t span = static_cast<uint64_t>(*end - *begin);
    if (!size || *size != span)
      return corrupt("tensor '" + name + "' of " + describe(tensor) +
                     " has data_offsets [" + std::to_string(*begin) + ", " +
                     std::to_string(*end) + "] holding " +
                     std::to_string(span) + " bytes");
    if (static_cast<uint64_t>(*end) > dataSize)
      return dataLoss(origin + ": truncated safetensors file: tensor '" + name +
                      "' ends at data byte " + std::to_string(*end) +
                      ", the file has " + std::to_string(dataSize));
    tensor.byteSize = span;
    tensor.data = data + *begin;
    file.tensors.push_back(std::move(tensor));
    return Status::ok();
  }

  static std::string describe(const SafetensorsTensor &t) {
    return std::string(safetensorsDtypeName(t.dtype)) + formatShape(t.shape);
  }

  /// The tensors must cover the data exactly, without gaps or overlaps;
  /// anything else is a damaged or foreign file.
  Status checkTiling() const {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const SafetensorsTensor &t : file.tensors) {
      uint64_t begin = static_cast<const uint8_t *>(t.data) - data;
      spans.emplace_back(begin, begin + t.byteSize);
    }
    std::sort(spans.begin(), spans.end());
    uint64_t expected = 0;
    for (auto [begin, end] : spans) {
      if (begin != expected)
        return corrupt(
            "tensor data " +
            std::string(begin < expected ? "overlaps" : "has a gap") +
            " at data byte " + std::to_string(std::min(begin, expected)));
      expected = end;
    }
    if (expected != dataSize)
      return dataLoss(origin + ": corrupt safetensors file: " +
                      std::to_string(dataSize - expected) +
                      " bytes after the last tensor");
    return Status::ok();
  }

  Status checkChecksum() {
    auto it = file.metadata.find(kSafetensorsChecksumKey);
    if (it == file.metadata.end())
      return Status::ok();
    uint64_t checksum = hashMetadata(fnv1a64(data, dataSize), file.metadata);
    if (hex64(checksum) != it->second)
      return dataLoss(origin +
                      ": corrupt safetensors file: the checksum of "
                      "its data and metadata is " +
                      hex64(checksum) + ", the header records " + it->second);
    file.hasChecksum = true;
    return Status::ok();
  }

  SafetensorsFile &file;
  const std::string &origin;
  const uint8_t *data = nullptr;
  uint64_t dataSize = 0;
};

} // namespace

StatusOr<SafetensorsFile> mp::rt::parseSafetensors(std::vector<uint8_t> bytes,
                                                   const std::string &origin) {
  SafetensorsFile file;
  file.bytes = std::move(bytes);
  MP_RETURN_IF_ERROR(HeaderReader(file, origin).read());
  return file;
}

StatusOr<SafetensorsFile> mp::rt::readSafetensorsFile(const std::string &path) {
  StatusOr<std::vector<uint8_t>> bytes = readFile(path);
  if (!bytes.isOk())
    return bytes.status();
  return parseSafetensors(std::move(*bytes), path);
}
