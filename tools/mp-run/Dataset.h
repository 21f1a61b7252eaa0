//===- Dataset.h - named arrays from .npy, .npz and .safetensors -*- C++ -*-===//
//
// What mp-run trains on: arrays by name, matched to the plan's inputs and
// labels by that name (Data.h). Each comes from `--data NAME=FILE.npy`, or
// from every entry of a `.npz` (np.savez) or `.safetensors` file.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_DATASET_H
#define MP_TOOLS_MPRUN_DATASET_H

#include "Npy.h"

#include <map>
#include <string>
#include <vector>

namespace mp::run {

struct Dataset {
  struct Entry {
    Array array;
    /// Where it came from, for messages: "x.npy", "train.npz entry 'x'".
    std::string origin;
    /// Named on the command line (NAME=FILE): it must match a plan tensor.
    /// Entries of a whole dataset file may be extra (another split's).
    bool named = false;
  };
  std::map<std::string, Entry> entries;
};

/// Adds what `spec` names: NAME=FILE (a .npy array named NAME), or FILE
/// ending in .npz or .safetensors (every entry, by its name; an .npz
/// entry's name without ".npy"). A name given twice, an unreadable or
/// corrupt file, a compressed .npz entry, an unknown file kind: an error
/// naming the file and the entry.
rt::Status addToDataset(Dataset &data, const std::string &spec);

/// The entries of an .npz file's bytes (`path` names it in errors): a zip
/// archive of .npy files stored uncompressed, each checked by its CRC-32.
rt::StatusOr<std::vector<std::pair<std::string, Array>>>
parseNpz(const std::vector<uint8_t> &bytes, const std::string &path);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_DATASET_H
