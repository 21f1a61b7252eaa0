//===- PrecisionOpInterface.cpp - how an op takes part in AMP -------------===//
#include "mp/Interfaces/PrecisionOpInterface.h"

using namespace mp;

#include "mp/Interfaces/PrecisionOpInterface.cpp.inc"
