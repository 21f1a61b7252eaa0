//===- PathMode.cpp - the placeholder data of checked views ---------------===//
#include "cpu/PathMode.h"

namespace {
unsigned char gPlaceholder = 0;
} // namespace

void *mp::rt::cpu::placeholderData() { return &gPlaceholder; }
