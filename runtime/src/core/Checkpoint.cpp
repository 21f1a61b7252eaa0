//===- Checkpoint.cpp - save and restore a session's state ----------------===//
#include "mp/runtime/Checkpoint.h"
#include "mp/runtime/Vocabulary.h"

#include "core/Json.h"
#include "mp/runtime/Safetensors.h"
#include "plan/FileIO.h"
#include "support/Hash.h"

#include <cerrno>
#include <cstdlib>
#include <set>

using namespace mp::rt;

static constexpr const char *kFormat = "mp.checkpoint";
/// Metadata naming the scaler-state tensors (a JSON array of strings), which
/// belong to the plan's policy rather than to the model.
static constexpr const char *kScalerStateKey =
    vocab::stringify(vocab::Role::ScalerState);

Status mp::rt::saveCheckpoint(Session &session, const std::string &path,
                              bool write) {
  std::vector<SafetensorsTensor> tensors;
  std::string scalerState;
  // Tensors in device memory are copied out first, and ZeRO-1's shards
  // gathered whole (every rank takes part; rank 0 writes).
  std::vector<std::vector<uint8_t>> copies;
  for (const TensorInfo &info : session.tensors()) {
    if (info.isOutput || !isPersistent(info.kind))
      continue;
    if (info.sharded) {
      size_t bytes = info.fullByteSize();
      copies.emplace_back(bytes);
      MP_RETURN_IF_ERROR(
          session.gatherState(info, copies.back().data(), bytes));
      tensors.push_back({info.name, info.dtype, info.wholeShape,
                         copies.back().data(), bytes});
      continue;
    }
    const void *data = session.tensorData(info);
    if (!data) {
      copies.emplace_back(info.byteSize);
      MP_RETURN_IF_ERROR(session.getTensor(info.name, copies.back().data(),
                                           info.byteSize));
      data = copies.back().data();
    }
    tensors.push_back({info.name, info.dtype, info.shape, data,
                       info.byteSize});
    if (info.kind == TensorKind::ScalerState)
      scalerState += (scalerState.empty() ? "" : ",") + quoteJson(info.name);
  }
  if (!write)
    return Status::ok(); // it took part in the gathers
  ScalerStats stats = session.scalerStats();
  std::map<std::string, std::string> metadata = {
      {"format", kFormat},
      {"format_version", std::to_string(kCheckpointVersion)},
      {"step", std::to_string(stats.stepsRun)},
      {"policy", session.plan().policy},
      {"plan_hash", hex64(session.planHash())},
      {"steps_skipped", std::to_string(stats.stepsSkipped)},
      {"last_overflow_step", std::to_string(stats.lastOverflowStep)},
      {kScalerStateKey, "[" + scalerState + "]"},
  };
  return writeSafetensorsFile(path, tensors, metadata);
}

namespace {

/// Matches the tensors of a file against the session's, collecting every
/// problem before anything is copied.
class TensorMatcher {
public:
  TensorMatcher(Session &session, const SafetensorsFile &file)
      : session(session), file(file) {}

  /// `info` must be in the file (or may be absent when `optional`).
  void expect(const TensorInfo &info, bool optional) {
    const SafetensorsTensor *tensor = file.find(info.name);
    matched.insert(info.name);
    if (!tensor) {
      if (!optional)
        missing.push_back(info.name);
      return;
    }
    // A ZeRO-1 shard is stored whole.
    const std::vector<int64_t> &shape = info.fullShape();
    if (tensor->dtype != info.dtype || tensor->shape != shape) {
      mismatches.push_back("'" + info.name + "' is " +
                           safetensorsDtypeName(tensor->dtype) +
                           formatShape(tensor->shape) + " in the file but " +
                           safetensorsDtypeName(info.dtype) +
                           formatShape(shape) + " in the plan");
      return;
    }
    loads.push_back({&info, tensor});
  }
  /// File tensors with this name are neither loaded nor unexpected.
  void skip(const std::string &name) { matched.insert(name); }

  /// Fails naming every problem found.
  Status check(const std::string &path) const {
    std::vector<std::string> unexpected;
    for (const SafetensorsTensor &tensor : file.tensors)
      if (!matched.count(tensor.name))
        unexpected.push_back(tensor.name);
    std::string problems;
    auto list = [&](const char *what, const std::vector<std::string> &names,
                    bool quote) {
      if (names.empty())
        return;
      problems += problems.empty() ? "" : "; ";
      problems += what;
      for (size_t i = 0; i < names.size(); ++i)
        problems +=
            (i ? ", " : " ") + (quote ? "'" + names[i] + "'" : names[i]);
    };
    list("missing from the file:", missing, true);
    list("not in the plan:", unexpected, true);
    list("mismatched:", mismatches, false);
    if (!problems.empty())
      return invalidArgument("'" + path +
                             "' does not match the plan: " + problems);
    return Status::ok();
  }

  /// Copies every matched tensor; check() has vouched for them.
  Status copy() {
    for (const auto &[info, tensor] : loads)
      MP_RETURN_IF_ERROR(
          info->sharded
              ? session.setStateFromWhole(*info, tensor->data, tensor->byteSize)
              : session.setTensor(info->name, tensor->dtype, tensor->shape,
                                  tensor->data, tensor->byteSize));
    return Status::ok();
  }

private:
  Session &session;
  const SafetensorsFile &file;
  std::set<std::string> matched;
  std::vector<std::string> missing, mismatches;
  std::vector<std::pair<const TensorInfo *, const SafetensorsTensor *>> loads;
};

} // namespace

/// The integer metadata `key`, or an error naming the file.
static Status readCounter(const SafetensorsFile &file, const std::string &path,
                          const char *key, int64_t &out) {
  auto it = file.metadata.find(key);
  const std::string *text = it == file.metadata.end() ? nullptr : &it->second;
  size_t used = 0;
  bool ok = text && !text->empty();
  if (ok) {
    errno = 0;
    char *end = nullptr;
    long long value = std::strtoll(text->c_str(), &end, 10);
    used = static_cast<size_t>(end - text->c_str());
    ok = errno == 0 && used == text->size();
    out = value;
  }
  if (!ok)
    return dataLoss("'" + path + "': checkpoint metadata '" + key + "' is " +
                    (text ? "'" + *text + "', not an integer" : "missing"));
  return Status::ok();
}

Status mp::rt::loadCheckpoint(Session &session, const std::string &path,
                              const CheckpointLoadOptions &options) {
  StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
  if (!file.isOk())
    return file.status();
  const std::map<std::string, std::string> &metadata = file->metadata;
  auto meta = [&](const char *key) -> std::string {
    auto it = metadata.find(key);
    return it == metadata.end() ? "" : it->second;
  };
  if (meta("format") != kFormat)
    return invalidArgument(
        "'" + path + "' is not an mp checkpoint (no \"format\": \"" + kFormat +
        "\" metadata); load plain safetensors files as "
        "params");
  if (meta("format_version") != std::to_string(kCheckpointVersion))
    return invalidArgument("'" + path + "' has checkpoint format version '" +
                           meta("format_version") +
                           "'; this runtime reads version " +
                           std::to_string(kCheckpointVersion));
  if (!file->hasChecksum)
    return dataLoss("'" + path + "': checkpoint without its checksum");
  std::string hash = hex64(session.planHash());
  if (!options.ignorePlanHash && meta("plan_hash") != hash) {
    std::string plans = "'" + path + "' was saved by plan " +
                        meta("plan_hash") + " (policy '" + meta("policy") +
                        "'), but this session runs plan " + hash +
                        " (policy '" + session.plan().policy + "')";
    // The same model under another plan (another policy, a recompiled
    // step) has this plan's tensors but for the loss scaler's; another
    // model has not.
    TensorMatcher same(session, *file);
    for (const TensorInfo &info : session.tensors())
      if (!info.isOutput && isPersistent(info.kind))
        same.expect(info, info.kind == TensorKind::ScalerState);
    StatusOr<JsonValue> scalerNames = parseJson(meta(kScalerStateKey));
    if (scalerNames.isOk() && scalerNames->kind == JsonValue::Kind::Array)
      for (const JsonValue &name : scalerNames->items)
        same.skip(name.text);
    Status match = same.check(path);
    if (match.isOk())
      return invalidArgument(
          plans + ": the same model's tensors under another plan (another "
                  "policy or a recompiled step). Resuming under another plan "
                  "is allowed only when asked for "
                  "(CheckpointLoadOptions::ignorePlanHash; mp-run "
                  "--resume-other-plan)");
    return invalidArgument(plans + ", and its tensors are another model's: " +
                           match.message());
  }

  int64_t step, skipped, lastOverflow;
  MP_RETURN_IF_ERROR(readCounter(*file, path, "step", step));
  MP_RETURN_IF_ERROR(readCounter(*file, path, "steps_skipped", skipped));
  MP_RETURN_IF_ERROR(
      readCounter(*file, path, "last_overflow_step", lastOverflow));

  TensorMatcher matcher(session, *file);
  for (const TensorInfo &info : session.tensors())
    if (!info.isOutput && isPersistent(info.kind))
      matcher.expect(info, options.ignorePlanHash &&
                               info.kind == TensorKind::ScalerState);
  if (options.ignorePlanHash) {
    // Another policy's scaler state is not this plan's business.
    StatusOr<JsonValue> names = parseJson(meta(kScalerStateKey));
    if (!names.isOk() || names->kind != JsonValue::Kind::Array)
      return dataLoss("'" + path + "': checkpoint metadata '" +
                      kScalerStateKey + "' is not a JSON array");
    for (const JsonValue &name : names->items)
      matcher.skip(name.text);
  }
  MP_RETURN_IF_ERROR(matcher.check(path));
  Status counters = session.restoreCounters(step, skipped, lastOverflow);
  if (!counters.isOk())
    return dataLoss("'" + path + "': " + counters.message());
  return matcher.copy();
}

Status mp::rt::prepareCheckpointPath(const std::string &path,
                                    bool makeDirectories,
                                    std::vector<std::string> *made,
                                    std::vector<std::string> *removed) {
  MP_RETURN_IF_ERROR(checkWritablePath(path, makeDirectories, made));
  std::vector<std::string> stale = removeStaleTemporaries(path);
  if (removed)
    *removed = std::move(stale);
  return Status::ok();
}

Status mp::rt::loadParams(Session &session, const std::string &path) {
  StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
  if (!file.isOk())
    return file.status();
  TensorMatcher matcher(session, *file);
  auto format = file->metadata.find("format");
  bool checkpoint = format != file->metadata.end() && format->second == kFormat;
  for (const TensorInfo &info : session.tensors()) {
    if (info.isOutput)
      continue;
    // A frozen buffer's value is the file's: the step never makes one
    // (but a dropout key has one drawn from the seed).
    if (info.kind == TensorKind::Param || info.kind == TensorKind::Buffer)
      matcher.expect(info, info.kind == TensorKind::Buffer &&
                               (!isFrozenBuffer(session.plan(), info.tensor) ||
                                isDropoutKey(session.plan(), info.tensor)));
    // Optimizer state that an exporter's init file holds is its starting
    // value (state that does not start at 0: timm's RMSpropTF square_avg
    // of ones); the rest starts at 0. A checkpoint gives its params only
    // (a fresh optimizer on trained weights; --resume takes the rest).
    else if (info.kind == TensorKind::OptState && !checkpoint)
      matcher.expect(info, /*optional=*/true);
    else
      matcher.skip(info.name);
  }
  MP_RETURN_IF_ERROR(matcher.check(path));
  return matcher.copy();
}
