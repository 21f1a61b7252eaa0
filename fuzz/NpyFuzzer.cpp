//===- NpyFuzzer.cpp - mp-run's .npy reader -------------------------------===//
#include "FuzzSupport.h"

#include "Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mp::rt::StatusOr<mp::run::Array> array =
      mp::run::parseNpy(mp::fuzz::bytesOf(data, size), "fuzz.npy");
  if (array.isOk())
    (void)array->rowSize();
  return 0;
}
