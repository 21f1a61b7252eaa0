//===- RecurrentOps.cpp - the LSTM and GRU cells on the device -----------===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

/// The blocks of `order` (the reference's check accepted rzn or zrn).
static GruBlocks gruBlocks(const KernelDesc &k) {
  const std::string *order = k.getString(AttrName::order);
  return order && *order == "zrn" ? GruBlocks{1, 0, 2} : GruBlocks{0, 1, 2};
}

Status CudaBackend::runLstmCell(const KernelDesc &k, const Views &in,
                                const Views &out) {
  return launched(k, lstmCell(context(), ref(in[0]), ref(in[1]), ref(out[0]),
                              ref(out[1]), in[1].shape[0], in[1].shape[1]));
}

Status CudaBackend::runLstmCellGrad(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  return launched(k, lstmCellGrad(context(), ref(in[0]), ref(in[1]),
                                  ref(in[2]), ref(in[3]), ref(in[4]),
                                  ref(out[0]), ref(out[1]), in[3].shape[0],
                                  in[3].shape[1]));
}

Status CudaBackend::runGruCell(const KernelDesc &k, const Views &in,
                               const Views &out) {
  return launched(k, gruCell(context(), ref(in[0]), ref(in[1]), ref(in[2]),
                             ref(out[0]), gruBlocks(k), in[2].shape[0],
                             in[2].shape[1]));
}

Status CudaBackend::runGruCellGrad(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  return launched(k, gruCellGrad(context(), ref(in[0]), ref(in[1]),
                                 ref(in[2]), ref(in[3]), ref(out[0]),
                                 ref(out[1]), ref(out[2]), gruBlocks(k),
                                 in[3].shape[0], in[3].shape[1]));
}

} // namespace mp::rt::cudabackend
