//===- PlanFormat.cpp - the binary plan file ------------------------------===//
//
// Layout (docs/plan-format.md): a 32-byte header -- magic "MPPLAN\0\0",
// u32 version, u32 reserved (0), u64 payload size, u64 FNV-1a of the
// payload -- then the payload: policy, arena size, tensors, kernels,
// results, constants. Little-endian; strings and arrays are u32-length
// prefixed. Serialization is canonical (attributes in name order), so a
// parsed plan serializes to the same bytes.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"
#include "plan/FileIO.h"
#include "support/ByteIO.h"
#include "support/Hash.h"

#include <algorithm>
#include <cstring>

using namespace mp::rt;

static const uint8_t kMagic[8] = {'M', 'P', 'P', 'L', 'A', 'N', 0, 0};
static constexpr size_t kHeaderSize = 32;

/// Smallest encodings, which bound how many records the bytes left can
/// hold: kind + dtype + rank + name length + offset + initial value.
static constexpr size_t kMinTensorBytes = 4 + 4 + 4 + 4 + 8 + 8;
/// op length + input count + output count + attribute count + flags.
static constexpr size_t kMinKernelBytes = 4 + 4 + 4 + 4 + 4;
/// name length + kind + element count (or string length).
static constexpr size_t kMinAttrBytes = 4 + 1 + 4;
/// role + value + state + name length + flags.
static constexpr size_t kMinResultBytes = 4 + 4 + 4 + 4 + 4;
/// Smallest encoded fused region: empty symbol and operands.
static constexpr size_t kMinRegionBytes = 4 + 4 + 4 + 4 + 4 + 8 + 8;

static std::vector<uint8_t> serializePayload(const Plan &plan) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.str(plan.policy);
  w.u64(plan.arenaSize);
  w.u32(static_cast<uint32_t>(plan.tensors.size()));
  for (const TensorDesc &t : plan.tensors) {
    w.u32(static_cast<uint32_t>(t.kind));
    w.u32(static_cast<uint32_t>(t.dtype));
    w.array(t.shape);
    w.str(t.name);
    w.u64(t.offset);
    w.f64(t.initialValue);
  }
  w.u32(static_cast<uint32_t>(plan.kernels.size()));
  for (const KernelDesc &k : plan.kernels) {
    w.str(k.op);
    w.array(k.inputs);
    w.array(k.outputs);
    w.u32(static_cast<uint32_t>(k.attrs.size()));
    for (const auto &[name, attr] : k.attrs) {
      w.str(name);
      w.u8(static_cast<uint8_t>(attr.kind));
      switch (attr.kind) {
      case Attr::Kind::Ints:
        w.array(attr.ints);
        break;
      case Attr::Kind::Floats:
        w.array(attr.floats);
        break;
      case Attr::Kind::String:
        w.str(attr.str);
        break;
      }
    }
    w.u32(k.flags);
  }
  w.u32(static_cast<uint32_t>(plan.results.size()));
  for (const ResultDesc &r : plan.results) {
    w.u32(static_cast<uint32_t>(r.role));
    w.u32(r.value);
    w.u32(r.state);
    w.str(r.name);
    w.u32(r.flags);
  }
  w.str(plan.code.library);
  w.u64(plan.code.id);
  w.u64(plan.code.librarySize);
  w.u64(plan.code.libraryHash);
  w.u32(static_cast<uint32_t>(plan.code.regions.size()));
  for (const FusedRegion &region : plan.code.regions) {
    w.str(region.symbol);
    w.u32(region.first);
    w.u32(region.count);
    w.array(region.operands);
    w.u32(region.numInputs);
    w.u64(static_cast<uint64_t>(region.extent));
    w.u64(static_cast<uint64_t>(region.rowLength));
  }
  // Kernel sources (version 6): none, or one per kernel.
  bool sources = std::any_of(
      plan.kernels.begin(), plan.kernels.end(), [](const KernelDesc &k) {
        return !k.location.empty() || !k.precision.empty();
      });
  w.u32(sources ? static_cast<uint32_t>(plan.kernels.size()) : 0);
  if (sources)
    for (const KernelDesc &k : plan.kernels) {
      w.str(k.location);
      w.str(k.precision);
    }
  w.str(plan.compileOptions); // version 8
  // Version 9: the sharded tensors (ZeRO-1) and their whole shapes.
  uint32_t sharded = 0;
  for (const TensorDesc &t : plan.tensors)
    sharded += t.sharded;
  w.u32(sharded);
  for (uint32_t id = 0; id < plan.tensors.size(); ++id)
    if (plan.tensors[id].sharded) {
      w.u32(id);
      w.array(plan.tensors[id].wholeShape);
    }
  w.u64(plan.constants.size());
  w.bytes(plan.constants.data(), plan.constants.size());
  return out;
}

std::vector<uint8_t> mp::rt::serializePlan(const Plan &plan) {
  std::vector<uint8_t> payload = serializePayload(plan);
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + payload.size());
  ByteWriter w(out);
  w.bytes(kMagic, sizeof(kMagic));
  w.u32(Plan::kVersion);
  w.u32(0);
  w.u64(payload.size());
  w.u64(fnv1a64(payload.data(), payload.size()));
  w.bytes(payload.data(), payload.size());
  return out;
}

uint64_t mp::rt::planHash(const Plan &plan) {
  // The kernel sources are diagnostics: the same step compiled from
  // another path (other locations) is the same plan, and resumes the same
  // checkpoints. It is hashed as the file it would be without them.
  bool sources = std::any_of(
      plan.kernels.begin(), plan.kernels.end(), [](const KernelDesc &k) {
        return !k.location.empty() || !k.precision.empty();
      });
  std::vector<uint8_t> bytes;
  if (sources || !plan.compileOptions.empty()) {
    Plan bare = plan;
    for (KernelDesc &k : bare.kernels)
      k.location.clear(), k.precision.clear();
    bare.compileOptions.clear();
    bytes = serializePlan(bare);
  } else {
    bytes = serializePlan(plan);
  }
  return fnv1a64(bytes.data(), bytes.size());
}

namespace {

/// Reads the payload into a Plan; the first malformed field stops it.
class PayloadParser {
public:
  PayloadParser(const uint8_t *data, size_t size) : r(data, size) {}

  /// Empty on success, else what was malformed (the caller adds where).
  std::string parse(Plan &plan, uint32_t version) {
    if (!r.str(plan.policy) || !r.u64(plan.arenaSize))
      return "truncated header fields";
    uint32_t count;
    if (!r.count(count, kMinTensorBytes))
      return "bad tensor count";
    plan.tensors.resize(count);
    for (uint32_t i = 0; i < count; ++i)
      if (std::string error = parseTensor(plan.tensors[i]); !error.empty())
        return "tensor " + std::to_string(i) + ": " + error;
    if (!r.count(count, kMinKernelBytes))
      return "bad kernel count";
    plan.kernels.resize(count);
    for (uint32_t i = 0; i < count; ++i)
      if (std::string error = parseKernel(plan.kernels[i]); !error.empty())
        return "kernel #" + std::to_string(i) + ": " + error;
    if (!r.count(count, kMinResultBytes))
      return "bad result count";
    plan.results.resize(count);
    for (uint32_t i = 0; i < count; ++i)
      if (std::string error = parseResult(plan.results[i]); !error.empty())
        return "result #" + std::to_string(i) + ": " + error;
    if (version >= 5) {
      if (!r.str(plan.code.library) || !r.u64(plan.code.id) ||
          (version >= 7 && (!r.u64(plan.code.librarySize) ||
                            !r.u64(plan.code.libraryHash))) ||
          !r.count(count, kMinRegionBytes))
        return "bad code section";
      plan.code.regions.resize(count);
      for (uint32_t i = 0; i < count; ++i)
        if (std::string error = parseRegion(plan.code.regions[i]);
            !error.empty())
          return "fused region #" + std::to_string(i) + ": " + error;
    }
    if (version >= 6) {
      if (!r.count(count, 8))
        return "bad kernel source count";
      if (count != 0 && count != plan.kernels.size())
        return "kernel sources for " + std::to_string(count) + " of " +
               std::to_string(plan.kernels.size()) + " kernels";
      for (uint32_t i = 0; i < count; ++i)
        if (!r.str(plan.kernels[i].location) ||
            !r.str(plan.kernels[i].precision))
          return "kernel source #" + std::to_string(i) + ": truncated";
    }
    if (version >= 8 && !r.str(plan.compileOptions))
      return "truncated compile options";
    if (version >= 9) {
      if (!r.count(count, 8))
        return "bad sharded-tensor count";
      for (uint32_t i = 0; i < count; ++i) {
        uint32_t id;
        std::vector<int64_t> whole;
        if (!r.u32(id) || !r.array(whole))
          return "sharded tensor #" + std::to_string(i) + ": truncated";
        if (id >= plan.tensors.size() || plan.tensors[id].sharded)
          return "sharded tensor #" + std::to_string(i) + ": tensor " +
                 std::to_string(id) +
                 (id >= plan.tensors.size() ? " out of range" : " repeated");
        plan.tensors[id].sharded = true;
        plan.tensors[id].wholeShape = std::move(whole);
      }
    }
    uint64_t constants;
    if (!r.u64(constants) || constants != r.remaining())
      return "the constants blob does not end the payload";
    plan.constants.resize(constants);
    if (!r.bytes(plan.constants.data(), constants))
      return "truncated constants";
    return "";
  }

  size_t position() const { return r.position(); }

private:
  std::string parseTensor(TensorDesc &t) {
    uint32_t kind, dtype;
    if (!r.u32(kind) || !r.u32(dtype) || !r.array(t.shape) || !r.str(t.name) ||
        !r.u64(t.offset) || !r.f64(t.initialValue))
      return "truncated";
    if (kind > static_cast<uint32_t>(TensorKind::Constant))
      return "unknown kind " + std::to_string(kind);
    if (dtype > static_cast<uint32_t>(DType::I64))
      return "unknown dtype " + std::to_string(dtype);
    t.kind = static_cast<TensorKind>(kind);
    t.dtype = static_cast<DType>(dtype);
    return "";
  }

  std::string parseKernel(KernelDesc &k) {
    uint32_t count;
    if (!r.str(k.op) || !r.array(k.inputs) || !r.array(k.outputs) ||
        !r.count(count, kMinAttrBytes))
      return "truncated";
    for (uint32_t i = 0; i < count; ++i) {
      std::string name;
      uint8_t kind;
      if (!r.str(name) || !r.u8(kind))
        return "truncated";
      // Canonical order doubles as the duplicate check.
      if (!k.attrs.empty() && !(k.attrs.rbegin()->first < name))
        return "attribute '" + name + "' out of order or repeated";
      Attr &attr = k.attrs[name];
      switch (kind) {
      case static_cast<uint8_t>(Attr::Kind::Ints):
        attr.kind = Attr::Kind::Ints;
        r.array(attr.ints);
        break;
      case static_cast<uint8_t>(Attr::Kind::Floats):
        attr.kind = Attr::Kind::Floats;
        r.array(attr.floats);
        break;
      case static_cast<uint8_t>(Attr::Kind::String):
        attr.kind = Attr::Kind::String;
        r.str(attr.str);
        break;
      default:
        return "attribute '" + name + "' has unknown kind " +
               std::to_string(kind);
      }
      if (r.failed())
        return "truncated";
    }
    if (!r.u32(k.flags))
      return "truncated";
    return "";
  }

  std::string parseRegion(FusedRegion &region) {
    uint64_t extent = 0, rowLength = 0;
    if (!r.str(region.symbol) || !r.u32(region.first) ||
        !r.u32(region.count) || !r.array(region.operands) ||
        !r.u32(region.numInputs) || !r.u64(extent) || !r.u64(rowLength))
      return "truncated";
    region.extent = static_cast<int64_t>(extent);
    region.rowLength = static_cast<int64_t>(rowLength);
    return "";
  }

  std::string parseResult(ResultDesc &result) {
    uint32_t role;
    if (!r.u32(role) || !r.u32(result.value) || !r.u32(result.state) ||
        !r.str(result.name) || !r.u32(result.flags))
      return "truncated";
    if (role > static_cast<uint32_t>(ResultRole::Check))
      return "unknown role " + std::to_string(role);
    result.role = static_cast<ResultRole>(role);
    return "";
  }

  ByteReader r;
};

} // namespace

StatusOr<Plan> mp::rt::parsePlan(const std::vector<uint8_t> &bytes,
                                 const std::string &origin) {
  size_t size = bytes.size();
  size_t magicBytes = std::min(size, sizeof(kMagic));
  if (magicBytes && std::memcmp(bytes.data(), kMagic, magicBytes) != 0)
    return invalidArgument(origin + ": not a plan file (no \"MPPLAN\" magic)");
  if (size < kHeaderSize)
    return dataLoss(origin + ": truncated plan: " + std::to_string(size) +
                    " bytes, the header alone has " +
                    std::to_string(kHeaderSize));
  ByteReader header(bytes.data() + sizeof(kMagic),
                    kHeaderSize - sizeof(kMagic));
  // Initialized: the reads cannot fail (the header's size is checked
  // above), but the compiler cannot see that.
  uint32_t version = 0, reserved = 0;
  uint64_t payloadSize = 0, checksum = 0;
  header.u32(version);
  header.u32(reserved);
  header.u64(payloadSize);
  header.u64(checksum);
  if (version < Plan::kOldestVersion || version > Plan::kVersion)
    return invalidArgument(
        origin + ": plan format version " + std::to_string(version) +
        ", but this runtime reads "
        "versions " +
        std::to_string(Plan::kOldestVersion) + " to " +
        std::to_string(Plan::kVersion) + "; recompile the plan");
  if (reserved != 0)
    return dataLoss(origin + ": corrupt plan header (reserved field is " +
                    std::to_string(reserved) + ")");
  uint64_t available = size - kHeaderSize;
  if (payloadSize != available)
    return dataLoss(
        origin + ": " + (payloadSize > available ? "truncated" : "corrupt") +
        " plan: the header announces " + std::to_string(payloadSize) +
        " payload bytes, the file has " + std::to_string(available));
  const uint8_t *payload = bytes.data() + kHeaderSize;
  uint64_t computed = fnv1a64(payload, available);
  if (computed != checksum)
    return dataLoss(origin + ": corrupt plan: checksum " + hex64(computed) +
                    " does not match the recorded " + hex64(checksum));

  Plan plan;
  PayloadParser parser(payload, available);
  if (std::string error = parser.parse(plan, version); !error.empty())
    return dataLoss(origin + ": malformed plan (payload byte " +
                    std::to_string(parser.position()) + "): " + error);
  if (Status valid = plan.validate(); !valid.isOk())
    return invalidArgument(origin + ": invalid plan: " + valid.message());
  resolveOpIds(plan);
  return plan;
}

Status mp::rt::writePlanFile(const Plan &plan, const std::string &path) {
  if (Status valid = plan.validate(); !valid.isOk())
    return invalidArgument("refusing to write an invalid plan to '" + path +
                           "': " + valid.message());
  std::vector<uint8_t> bytes = serializePlan(plan);
  return writeFileAtomically(path, {{bytes.data(), bytes.size()}});
}

StatusOr<Plan> mp::rt::readPlanFile(const std::string &path) {
  StatusOr<std::vector<uint8_t>> bytes = readFile(path);
  if (!bytes.isOk())
    return bytes.status();
  StatusOr<Plan> plan = parsePlan(*bytes, path);
  if (plan.isOk() && !plan->code.library.empty()) {
    const std::string &library = plan->code.library;
    size_t slash = path.find_last_of('/');
    // A file name (validate()); dlopen searches the library path for a
    // name without a slash.
    plan->code.resolvedPath = slash == std::string::npos
                                  ? "./" + library
                                  : path.substr(0, slash + 1) + library;
  }
  return plan;
}

Status mp::rt::stampCodeLibrary(Plan &plan, const std::string &libraryPath) {
  StatusOr<std::vector<uint8_t>> bytes = readFile(libraryPath);
  if (!bytes.isOk())
    return bytes.status();
  plan.code.librarySize = bytes->size();
  plan.code.libraryHash = fnv1a64(bytes->data(), bytes->size());
  return Status::ok();
}

Status mp::rt::checkCodeLibrary(const PlanCode &code) {
  const std::string &path = code.resolvedPath;
  if (code.librarySize == 0)
    return dataLoss("the plan records no size or checksum of its generated "
                    "code '" + path + "' (a plan format before 7): recompile "
                    "the plan");
  StatusOr<std::vector<uint8_t>> bytes = readFile(path);
  if (!bytes.isOk())
    return bytes.status();
  if (bytes->size() != code.librarySize)
    return dataLoss("'" + path + "' has " + std::to_string(bytes->size()) +
                    " bytes, the plan's generated code " +
                    std::to_string(code.librarySize) +
                    " (truncated or replaced): copy the library written "
                    "with the plan, or recompile the plan");
  uint64_t hash = fnv1a64(bytes->data(), bytes->size());
  if (hash != code.libraryHash)
    return dataLoss("'" + path + "' does not have the checksum of the "
                    "plan's generated code (" + hex64(hash) + ", not " +
                    hex64(code.libraryHash) +
                    "): copy the library written with the plan, or "
                    "recompile the plan");
  return Status::ok();
}
