//===- SharedLibrary.h - libraries opened on first use ----------*- C++ -*-===//
//
// Private to runtime/src/cuda: cuBLASLt (Gemm.cpp) and NCCL
// (NcclCommunicator.cpp) are opened when first used, not linked: each is
// hundreds of MB, which every process of the runtime would load, most of
// them never running a kernel on a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_SHAREDLIBRARY_H
#define MP_RUNTIME_CUDA_SHAREDLIBRARY_H

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace mp::rt::cuda {

/// `soname` opened from `folder` (where the build found it; may be null)
/// or else from the loader's path; null, with why in `error`, when neither
/// has it.
inline void *openSharedLibrary(const std::string &soname, const char *folder,
                               std::string &error) {
  void *handle = nullptr;
  if (folder)
    handle = dlopen((std::string(folder) + "/" + soname).c_str(),
                    RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load " + soname + ": " + (why ? why : "not found");
  }
  return handle;
}

/// `fn` set to `handle`'s function `name`; false, with why in `error`
/// (naming `soname`), when it has none.
template <typename Fn>
bool resolveFunction(void *handle, const std::string &soname, const char *name,
                     Fn &fn, std::string &error) {
  fn = reinterpret_cast<std::remove_reference_t<Fn>>(dlsym(handle, name));
  if (!fn)
    error = soname + " has no " + name;
  return fn != nullptr;
}

} // namespace mp::rt::cuda

#endif // MP_RUNTIME_CUDA_SHAREDLIBRARY_H
