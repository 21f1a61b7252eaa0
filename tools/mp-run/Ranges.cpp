//===- Ranges.cpp - mp-run --ranges: headroom of every tensor -------------===//
#include "Ranges.h"

#include "mp/runtime/Replay.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

using namespace mp;
using namespace mp::run;

namespace {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

double fraction(int64_t count, int64_t of) {
  return of > 0 ? static_cast<double>(count) / static_cast<double>(of) : 0;
}

/// One tensor's entry: where it comes from and what 16 bits would do to it.
std::string entry(const rt::Plan &plan, const rt::ValueRange &r,
                  const rt::KernelDesc *producer) {
  const rt::TensorDesc &t = plan.tensors[r.tensor];
  std::string name = t.name.empty() ? "t" + std::to_string(r.tensor) : t.name;
  char numbers[320];
  std::snprintf(numbers, sizeof(numbers),
                "\"max_abs\": %.6g, \"nonfinite\": %lld, \"elements\": %lld, "
                "\"f16_overflow\": %.6g, \"f16_flush\": %.6g, "
                "\"bf16_overflow\": %.6g, \"bf16_flush\": %.6g",
                r.maxAbs, static_cast<long long>(r.nan + r.inf),
                static_cast<long long>(r.elements),
                fraction(r.overF16, r.elements),
                fraction(r.flushF16, r.elements),
                fraction(r.overBF16, r.elements),
                fraction(r.flushBF16, r.elements));
  std::string out = "{\"tensor\": " + std::to_string(r.tensor) +
                    ", \"name\": " + jsonString(name) + ", \"kind\": " +
                    jsonString(rt::tensorKindName(t.kind)) + ", \"dtype\": " +
                    jsonString(rt::dtypeName(t.dtype));
  if (producer)
    out += ", \"op\": " + jsonString(producer->op) +
           ", \"location\": " + jsonString(producer->location);
  return out + ", " + numbers + "}";
}

} // namespace

rt::StatusOr<RangeRecorder> RangeRecorder::open(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return rt::invalidArgument("--ranges-out " + path + ": " +
                               std::strerror(errno));
  return RangeRecorder(file);
}

RangeRecorder::~RangeRecorder() {
  if (file_)
    std::fclose(file_);
}

rt::Status RangeRecorder::record(rt::Session &session, int64_t step) {
  const rt::Plan &plan = session.plan();
  std::string line = "{\"step\": " + std::to_string(step) + ", \"tensors\": [";
  bool first = true;
  auto add = [&](const rt::ValueRange &r, const rt::KernelDesc *producer) {
    line += (first ? "" : ", ") + entry(plan, r, producer);
    first = false;
  };
  // What the step starts from: the state and the batch.
  for (uint32_t t = 0; t < plan.tensors.size(); ++t) {
    rt::TensorKind kind = plan.tensors[t].kind;
    if (kind == rt::TensorKind::Scratch || kind == rt::TensorKind::Constant ||
        !rt::isFloat(plan.tensors[t].dtype))
      continue;
    rt::StatusOr<rt::ValueRange> r = rt::measureTensor(session, t);
    if (!r.isOk())
      return r.status();
    add(*r, nullptr);
  }
  // Every float value a kernel makes, right after it is made.
  rt::Status failed = rt::Status::ok();
  MP_RETURN_IF_ERROR(session.runStepWatched([&](size_t k) {
    const rt::KernelDesc &kernel = plan.kernels[k];
    for (uint32_t t : kernel.outputs) {
      if (!rt::isFloat(plan.tensors[t].dtype))
        continue;
      rt::StatusOr<rt::ValueRange> r = rt::measureTensor(session, t);
      if (!r.isOk()) {
        failed = r.status();
        return false;
      }
      add(*r, &kernel);
    }
    return true;
  }));
  MP_RETURN_IF_ERROR(failed);
  line += "]}\n";
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    return rt::invalidArgument(std::string("--ranges-out: write failed: ") +
                               std::strerror(errno));
  return rt::Status::ok();
}
