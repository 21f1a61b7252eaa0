//===- FuzzSupport.h - what the fuzz targets share --------------*- C++ -*-===//
//
// Each target in fuzz/ is a libFuzzer entry point, LLVMFuzzerTestOneInput.
// With MP_ENABLE_FUZZERS (clang) it links libFuzzer and runs coverage
// guided; otherwise ReplayMain.cpp drives it over files (the seed corpus
// and the regression inputs of crashes it found), in the normal test suite.
// A target's only job: feed the input to the code under test, which must
// return an error for bad input and never crash, read out of bounds or
// overflow (the sanitizers of the fuzzing build see that).
//
//===----------------------------------------------------------------------===//
#ifndef MP_FUZZ_FUZZSUPPORT_H
#define MP_FUZZ_FUZZSUPPORT_H

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace mp::fuzz {
inline std::vector<uint8_t> bytesOf(const uint8_t *data, size_t size) {
  return std::vector<uint8_t>(data, data + size);
}
} // namespace mp::fuzz

#endif // MP_FUZZ_FUZZSUPPORT_H
