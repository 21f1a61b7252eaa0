//===- Probe.cpp - the probing flag of the cpu backend's fast paths -------===//
#include "cpu/Probe.h"

using namespace mp::rt::cpu;

namespace {
thread_local bool gProbing = false;
unsigned char gProbeByte = 0;
} // namespace

bool mp::rt::cpu::probing() { return gProbing; }

ProbeScope::ProbeScope() : previous_(gProbing) { gProbing = true; }
ProbeScope::~ProbeScope() { gProbing = previous_; }

void *mp::rt::cpu::probeData() { return &gProbeByte; }
