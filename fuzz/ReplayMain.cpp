//===- ReplayMain.cpp - run a fuzz target over files, without libFuzzer ---===//
//
//   <target>-replay FILE_OR_DIR...
//
// Feeds each file (each file of a directory, sorted) to the target once, as
// libFuzzer would replay a corpus; a crash or a sanitizer report fails the
// run. Used by ctest on the seed corpus and the regression inputs where the
// build has no libFuzzer.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

static bool runFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return true;
}

int main(int argc, char **argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    struct stat info;
    if (::stat(arg.c_str(), &info) != 0) {
      std::fprintf(stderr, "replay: no such file or directory: %s\n",
                   arg.c_str());
      return 1;
    }
    std::vector<std::string> files;
    if (S_ISDIR(info.st_mode)) {
      if (DIR *d = ::opendir(arg.c_str())) {
        while (struct dirent *e = ::readdir(d))
          if (e->d_name[0] != '.')
            files.push_back(arg + "/" + e->d_name);
        ::closedir(d);
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    for (const std::string &file : files) {
      if (!runFile(file))
        return 1;
      ++count;
    }
  }
  std::printf("replay: %zu inputs, no crash\n", count);
  return 0;
}
