//===- OwnedTensor.h - a tensor that owns its bytes, for the cpu tests -*- C++ -*-===//
#ifndef MP_RUNTIME_UNITTESTS_CPU_OWNEDTENSOR_H
#define MP_RUNTIME_UNITTESTS_CPU_OWNEDTENSOR_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace mp::rt::test {

/// `view` always points at `bytes`, zeros at first; copies own their bytes.
struct OwnedTensor {
  TensorView view;
  std::vector<uint8_t> bytes;

  OwnedTensor(DType dtype, std::vector<int64_t> shape) {
    view.dtype = dtype;
    view.shape = std::move(shape);
    bytes.assign(view.numElements() * dtypeSize(dtype), 0);
    view.data = bytes.data();
  }
  OwnedTensor(const OwnedTensor &other)
      : view(other.view), bytes(other.bytes) {
    view.data = bytes.data();
  }
  OwnedTensor &operator=(const OwnedTensor &other) {
    view = other.view;
    bytes = other.bytes;
    view.data = bytes.data();
    return *this;
  }
};

} // namespace mp::rt::test

#endif // MP_RUNTIME_UNITTESTS_CPU_OWNEDTENSOR_H
