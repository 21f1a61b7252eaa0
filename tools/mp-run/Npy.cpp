//===- Npy.cpp - read .npy arrays -----------------------------------------===//
#include "Npy.h"

#include "mp/runtime/Tensor.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

using namespace mp;
using namespace mp::run;

int64_t Array::rowSize() const {
  // readNpy rejects shapes whose product of dimensions (zeros left out)
  // overflows, so this cannot.
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i)
    n *= shape[i];
  return n;
}

/// The value of `key` in the header dict, e.g. 'descr': '<f4'.
static std::string headerField(const std::string &header,
                               const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  at = header.find(':', at);
  if (at == std::string::npos)
    return "";
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  if (at >= header.size())
    return "";
  char open = header[at];
  char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  size_t end = header.find(close, at + 1);
  if (end == std::string::npos)
    return "";
  return header.substr(at + (open == '\'' || open == '(' ? 1 : 0),
                       end - at - (open == '\'' || open == '(' ? 1 : 0));
}

rt::StatusOr<std::vector<uint8_t>>
mp::run::readDataFile(const std::string &path, const char *what) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return rt::notFound(path + ": cannot open the file: " +
                        std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return rt::invalidArgument(path + ": is a directory, not " + what);
  if (!S_ISREG(info.st_mode))
    return rt::invalidArgument(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return rt::notFound(path + ": cannot open the file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return rt::dataLoss(path + ": cannot read the file");
  return bytes;
}

rt::StatusOr<Array> mp::run::readNpy(const std::string &path) {
  rt::StatusOr<std::vector<uint8_t>> bytes = readDataFile(path, "a .npy file");
  if (!bytes.isOk())
    return bytes.status();
  return parseNpy(*bytes, path);
}

rt::StatusOr<Array> mp::run::parseNpy(const std::vector<uint8_t> &bytes,
                                      const std::string &path) {
  auto fail = [&](const std::string &why) {
    return rt::dataLoss(path + ": not a readable .npy file: " + why);
  };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return fail("bad magic");
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLength = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) |
                   (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unknown version " + std::to_string(major));
  }
  if (bytes.size() < headerStart + headerLength)
    return fail("truncated header");
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLength);
  std::string descr = headerField(header, "descr");
  if (headerField(header, "fortran_order").find("True") == 0)
    return fail("Fortran order is not supported; save with C order");
  Array array;
  std::stringstream dims(headerField(header, "shape"));
  std::string dim;
  // count: the elements; nonzero: the product of the dimensions but the
  // zeros, which must fit too (rowSize() multiplies them).
  int64_t count = 1, nonzero = 1;
  while (std::getline(dims, dim, ',')) {
    size_t first = dim.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    char *end = nullptr;
    errno = 0;
    long long value = std::strtoll(dim.c_str() + first, &end, 10);
    if (value < 0 || end == dim.c_str() + first)
      return fail("bad shape '" + headerField(header, "shape") + "'");
    if (errno == ERANGE)
      return fail("bad shape '" + headerField(header, "shape") + "'");
    array.shape.push_back(value);
    if (value != 0 && nonzero > std::numeric_limits<int64_t>::max() / value)
      return fail("shape too large");
    if (value != 0)
      nonzero *= value;
    count *= value;
  }
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|'))
    return fail("unsupported dtype '" + descr + "' (little-endian only)");
  char kind = descr[1];
  int width = std::atoi(descr.c_str() + 2);
  const uint8_t *data = bytes.data() + headerStart + headerLength;
  size_t available = bytes.size() - headerStart - headerLength;
  if (width <= 0 || available / width < static_cast<size_t>(count))
    return fail("the data is shorter than its shape says");

  auto readU = [&](int64_t i) {
    uint64_t v = 0;
    std::memcpy(&v, data + i * width, width);
    return v;
  };
  if (kind == 'f') {
    array.isFloat = true;
    array.floats.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      if (width == 4) {
        std::memcpy(&array.floats[i], data + i * 4, 4);
      } else if (width == 8) {
        double d;
        std::memcpy(&d, data + i * 8, 8);
        array.floats[i] = static_cast<float>(d);
      } else if (width == 2) {
        // Copied out first: the data need not be 2-byte aligned.
        uint16_t bits;
        std::memcpy(&bits, data + i * 2, 2);
        array.floats[i] = rt::loadFloat({rt::DType::F16, {}, &bits}, 0);
      } else {
        return fail("unsupported float width " + std::to_string(width));
      }
    }
  } else if (kind == 'i' || kind == 'u' || kind == 'b') {
    if (width != 1 && width != 2 && width != 4 && width != 8)
      return fail("unsupported integer width " + std::to_string(width));
    array.ints.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = readU(i);
      if (kind == 'i' && width < 8 && (v >> (width * 8 - 1)) & 1)
        v |= ~uint64_t(0) << (width * 8); // sign-extend
      array.ints[i] = static_cast<int64_t>(v);
    }
  } else {
    return fail("unsupported dtype '" + descr + "'");
  }
  return array;
}
