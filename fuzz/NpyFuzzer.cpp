//===- NpyFuzzer.cpp - mp-run's .npy and .npz readers ---------------------===//
#include "FuzzSupport.h"

#include "Dataset.h"
#include "Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mp::rt::StatusOr<mp::run::Array> array =
      mp::run::parseNpy(mp::fuzz::bytesOf(data, size), "fuzz.npy");
  if (array.isOk())
    (void)array->rowSize();
  // The same bytes as an archive (the seeds hold .npz files too).
  auto archive = mp::run::parseNpz(mp::fuzz::bytesOf(data, size), "fuzz.npz");
  if (archive.isOk())
    for (const auto &entry : *archive)
      (void)entry.second.rowSize();
  return 0;
}
