//===- Checkpoint.h - save and restore a session's state --------*- C++ -*-===//
//
// A checkpoint is a safetensors file with every persistent tensor of the
// plan (params, optimizer state, buffers, loss-scaler state) under its
// name, and metadata: the step count, the policy, the plan hash and the
// loss-scaler statistics. Resuming from one continues bitwise as if the
// session had never stopped: a step depends on nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CHECKPOINT_H
#define MP_RUNTIME_CHECKPOINT_H

#include "mp/runtime/Session.h"

#include <string>
#include <vector>

namespace mp::rt {

/// The checkpoint layout version, recorded as metadata "format_version".
inline constexpr int kCheckpointVersion = 1;

/// Writes the session's persistent state to `path` atomically: the previous
/// file stays intact until the new one is complete on disk. A ZeRO-1
/// session's sharded state is saved whole (Session::gatherState): then
/// every rank calls this, together; a rank with `write` false takes part
/// in the gathers and writes nothing (mp-run's ranks but 0).
Status saveCheckpoint(Session &session, const std::string &path,
                      bool write = true);

/// What a training driver checks before its first step, so that a run
/// never trains for hours and then fails to save: `path` names a file (not
/// a directory) whose directory exists (made when `makeDirectories`, the
/// ones made listed in `made`) and takes new files. Also removes the
/// temporary files an interrupted save left next to `path`
/// (".NAME.tmp-XXXXXX"), listing them in `removed`.
Status prepareCheckpointPath(const std::string &path, bool makeDirectories,
                             std::vector<std::string> *made = nullptr,
                             std::vector<std::string> *removed = nullptr);

struct CheckpointLoadOptions {
  /// Load a checkpoint written for another plan (another policy of the
  /// same model): the plan hash is not compared, and loss-scaler state may
  /// be missing from the file (it keeps its current value) or extra in it
  /// (ignored). Every other tensor must still match.
  bool ignorePlanHash = false;
};

/// Restores the session's persistent state and step counters from a
/// checkpoint. Nothing changes unless everything matches: a corrupt file, a
/// plan-hash mismatch, or tensors that are missing, unexpected, or of
/// another dtype or shape are reported, all of them at once.
Status loadCheckpoint(Session &session, const std::string &path,
                      const CheckpointLoadOptions &options = {});

/// Loads initial params from any safetensors file (a PyTorch state_dict
/// saved with safetensors, a checkpoint): every param and frozen buffer
/// (isFrozenBuffer) of the plan but dropout keys (isDropoutKey) must be
/// there; other buffers are loaded when present, and so is optimizer state
/// from a file that is not an mp checkpoint (an exporter's init file: state
/// absent from it starts at 0; a checkpoint gives its params only); file
/// tensors that are other persistent tensors of the plan (the loss
/// scaler's, a checkpoint's optimizer state) are skipped; names the plan
/// does not have and dtype or shape mismatches are errors. Nothing changes
/// on error.
Status loadParams(Session &session, const std::string &path);

} // namespace mp::rt

#endif // MP_RUNTIME_CHECKPOINT_H
