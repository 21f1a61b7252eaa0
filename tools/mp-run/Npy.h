//===- Npy.h - read .npy arrays ---------------------------------*- C++ -*-===//
#ifndef MP_TOOLS_MPRUN_NPY_H
#define MP_TOOLS_MPRUN_NPY_H

#include "mp/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mp::run {

/// A .npy array converted on load: floats to f32, integers to i64.
struct Array {
  std::vector<int64_t> shape;
  bool isFloat = false;
  std::vector<float> floats;   ///< when isFloat
  std::vector<int64_t> ints;   ///< otherwise
  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  /// Elements per row (the product of all dimensions but the first).
  int64_t rowSize() const;
};

/// A regular file's bytes; errors name `path` (`what`: "a .npy file", for
/// a directory given instead).
rt::StatusOr<std::vector<uint8_t>> readDataFile(const std::string &path,
                                                const char *what);

/// Reads a version 1/2/3 .npy file of little-endian f4/f8/f2, i1/i2/i4/i8,
/// u1/u2/u4/u8 or b1 in C order. Errors name the file and the problem.
rt::StatusOr<Array> readNpy(const std::string &path);
/// The same from the file's bytes; `path` names it in errors.
rt::StatusOr<Array> parseNpy(const std::vector<uint8_t> &bytes,
                             const std::string &path);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_NPY_H
