//===- Functions.cpp - the functions a module's passes visit --------------===//
#include "mp/Transforms/Functions.h"

using namespace mlir;

SmallVector<FunctionOpInterface> mp::functionsIn(Operation *root) {
  SmallVector<FunctionOpInterface> functions;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      functions.push_back(fn);
      return WalkResult::skip(); // not into its body
    }
    return WalkResult::advance();
  });
  return functions;
}
