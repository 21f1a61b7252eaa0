//===- FileIO.cpp - whole-file reads and crash-safe writes ----------------===//
#include "plan/FileIO.h"
#include <cctype>
#include <algorithm>
#include <dirent.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mp::rt;

/// "<what> '<path>': <strerror>" with the code errno calls for.
static Status ioError(const std::string &what, const std::string &path,
                      int error) {
  std::string message = what + " '" + path + "': " + std::strerror(error);
  return error == ENOENT ? notFound(message) : internalError(message);
}

StatusOr<std::vector<uint8_t>> mp::rt::readFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ioError("cannot open", path, errno);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return ioError("cannot read", path, error);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return invalidArgument("cannot read '" + path + "': not a regular file");
  }
  std::vector<uint8_t> bytes;
  // The size is a hint; the loop reads to the end whatever it is.
  bytes.reserve(static_cast<size_t>(info.st_size));
  uint8_t buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return ioError("cannot read", path, error);
    }
    if (n == 0)
      break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fd);
  return bytes;
}

static std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

StatusOr<std::unique_ptr<AtomicFileWriter>>
AtomicFileWriter::open(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty())
    return invalidArgument("cannot write '" + path + "': not a file name");
  std::string temp =
      (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + "." +
      base + ".tmp-XXXXXX";
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    return ioError("cannot create a temporary file next to", path, errno);
  // mkstemp makes the file private (0600); give it the mode of the file it
  // replaces, or the usual 0644 for a new one.
  struct stat info;
  mode_t mode =
      ::stat(path.c_str(), &info) == 0 ? (info.st_mode & 07777) : 0644;
  ::fchmod(fd, mode);
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(temp), fd));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd >= 0)
    ::close(fd);
  if (!committed)
    ::unlink(temp.c_str());
}

Status AtomicFileWriter::write(const void *data, size_t size) {
  if (fd < 0)
    return internalError("writing '" + path + "' after it was closed");
  const auto *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return ioError("cannot write", temp, errno);
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::ok();
}

Status AtomicFileWriter::commit() {
  if (fd < 0)
    return internalError("committing '" + path + "' twice");
  int file = fd;
  fd = -1;
  if (::fsync(file) != 0) {
    int error = errno;
    ::close(file);
    return ioError("cannot flush", temp, error);
  }
  if (::close(file) != 0)
    return ioError("cannot close", temp, errno);
  if (::rename(temp.c_str(), path.c_str()) != 0)
    return ioError("cannot rename '" + temp + "' to", path, errno);
  committed = true;
  // The rename is durable only once the directory entry is on disk.
  std::string dir = directoryOf(path);
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    return ioError("cannot open the directory", dir, errno);
  int synced = ::fsync(dirFd);
  int error = errno;
  ::close(dirFd);
  if (synced != 0)
    return ioError("cannot flush the directory", dir, error);
  return Status::ok();
}

Status mp::rt::writeFileAtomically(const std::string &path,
                                   const std::vector<FileChunk> &chunks) {
  StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
      AtomicFileWriter::open(path);
  if (!writer.isOk())
    return writer.status();
  for (const FileChunk &chunk : chunks)
    MP_RETURN_IF_ERROR((*writer)->write(chunk.data, chunk.size));
  return (*writer)->commit();
}

/// The directory part and the file name part of `path`.
static std::pair<std::string, std::string> splitPath(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Status mp::rt::checkWritablePath(const std::string &path, bool makeDirectories,
                                 std::vector<std::string> *madeDirectories) {
  auto [dir, base] = splitPath(path);
  if (base.empty() || base == "." || base == "..")
    return invalidArgument("'" + path + "' names a directory, not a file");
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return invalidArgument("'" + path + "' is a directory, not a file");
  if (::stat(dir.c_str(), &info) != 0) {
    if (errno != ENOENT || !makeDirectories)
      return ioError("cannot write", path, errno);
    // Make the missing directories, outermost first.
    std::vector<std::string> missing;
    for (std::string d = dir; !d.empty() && d != "." && d != "/";
         d = splitPath(d).first) {
      if (::stat(d.c_str(), &info) == 0) {
        if (!S_ISDIR(info.st_mode))
          return invalidArgument("cannot write '" + path + "': '" + d +
                                 "' is not a directory");
        break;
      }
      missing.push_back(d);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
        return ioError("cannot make the directory for", path, errno);
      if (madeDirectories)
        madeDirectories->push_back(*it);
    }
  } else if (!S_ISDIR(info.st_mode)) {
    return invalidArgument("cannot write '" + path + "': '" + dir +
                           "' is not a directory");
  }
  std::string probe = dir + "/." + base + ".probe-XXXXXX";
  int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0)
    return ioError("cannot create files next to", path, errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::ok();
}

std::vector<std::string> mp::rt::removeStaleTemporaries(const std::string &path) {
  auto [dir, base] = splitPath(path);
  std::vector<std::string> removed;
  if (base.empty())
    return removed;
  std::string prefix = "." + base + ".tmp-";
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return removed;
  while (struct dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix))
      continue;
    bool suffix = std::all_of(name.begin() + prefix.size(), name.end(),
                              [](unsigned char c) { return std::isalnum(c); });
    std::string full = dir + "/" + name;
    struct stat info;
    if (suffix && ::lstat(full.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::unlink(full.c_str()) == 0)
      removed.push_back(full);
  }
  ::closedir(d);
  return removed;
}
