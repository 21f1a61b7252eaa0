//===- FileIO.h - whole-file reads and crash-safe writes --------*- C++ -*-===//
//
// Plans and checkpoints are replaced, never edited in place: a writer fills
// a temporary file next to the target, flushes it to disk and renames it
// over the target, then flushes the directory. A crash at any point leaves
// either the old file or the new one, and at worst a stray temporary file
// (named ".<target>.tmp-XXXXXX") that nothing reads.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CORE_FILEIO_H
#define MP_RUNTIME_CORE_FILEIO_H

#include "mp/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mp::rt {

/// The whole file; NotFound when it does not exist, Internal on I/O errors.
StatusOr<std::vector<uint8_t>> readFile(const std::string &path);

/// A file being written in place of `path`. Until commit() the target is
/// untouched; destroying an uncommitted writer removes its temporary file.
class AtomicFileWriter {
public:
  static StatusOr<std::unique_ptr<AtomicFileWriter>>
  open(const std::string &path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

  Status write(const void *data, size_t size);
  /// fsync, rename over the target, fsync the directory.
  Status commit();
  const std::string &tempPath() const { return temp; }

private:
  AtomicFileWriter(std::string path, std::string temp, int fd)
      : path(std::move(path)), temp(std::move(temp)), fd(fd) {}
  std::string path, temp;
  int fd;
  bool committed = false;
};

/// One contiguous piece of a file to write.
struct FileChunk {
  const void *data;
  size_t size;
};

/// Writes `chunks` in order to `path` with an AtomicFileWriter.
Status writeFileAtomically(const std::string &path,
                           const std::vector<FileChunk> &chunks);

/// Checks, before anything is computed, that `path` can be written with an
/// AtomicFileWriter: a file name (not a directory, not ending in '/') in
/// a directory that exists (made, with its parents, when
/// `makeDirectories`) and where a file can be created (a probe file is
/// made and removed). The message names the path and why not.
Status checkWritablePath(const std::string &path, bool makeDirectories,
                         std::vector<std::string> *madeDirectories);

/// Removes the temporary files that an interrupted AtomicFileWriter left
/// next to `path` (".<name>.tmp-XXXXXX", exactly that pattern, only in
/// that directory) and returns their names.
std::vector<std::string> removeStaleTemporaries(const std::string &path);

} // namespace mp::rt

#endif // MP_RUNTIME_CORE_FILEIO_H
