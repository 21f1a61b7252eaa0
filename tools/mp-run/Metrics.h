//===- Metrics.h - mp-run's metrics file and the step's scalars -*- C++ -*-===//
//
// --metrics FILE: one record per logged interval and evaluation (JSON lines,
// or CSV by the file's name), and the step's scalar outputs that go with
// the loss (a learning rate, a gradient norm). docs/mp-run.md.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_METRICS_H
#define MP_TOOLS_MPRUN_METRICS_H

#include "Fail.h"

#include "mp/runtime/Session.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace mp::run {

/// Writes one record per line as JSON lines, or CSV when the file name
/// ends in .csv. A write that fails (a full disk) is an error, never
/// ignored: record() returns it.
class Metrics {
public:
  /// `scalars`: the names of the step's scalar outputs (ScalarOutputs),
  /// recorded after the fixed columns.
  Metrics(const std::string &path, const std::vector<std::string> &scalars)
      : path(path), scalars(scalars) {
    if (path.empty())
      return;
    csv = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    out = std::fopen(path.c_str(), "a");
    if (!out)
      die(path + ": cannot open the metrics file: " + std::strerror(errno));
    if (csv && std::ftell(out) == 0) {
      std::string header =
          "event,step,loss,accuracy,loss_scale,skipped,examples_per_second";
      for (const std::string &name : scalars)
        header += "," + name;
      if (rt::Status s = write((header + "\n").c_str()); !s.isOk())
        die(s.message());
    }
  }
  ~Metrics() {
    if (out)
      std::fclose(out);
  }
  Metrics(const Metrics &) = delete;
  Metrics &operator=(const Metrics &) = delete;

  /// `values`: the scalar outputs' latest values, in the constructor's
  /// order.
  rt::Status record(const char *event, int64_t step, double loss,
                    double accuracy, double scale, int64_t skipped, double rate,
                    const std::vector<double> &values) {
    if (!out)
      return rt::Status::ok();
    char line[512];
    if (csv)
      std::snprintf(line, sizeof(line), "%s,%lld,%.9g,%.9g,%.9g,%lld,%.6g",
                    event, static_cast<long long>(step), loss, accuracy, scale,
                    static_cast<long long>(skipped), rate);
    else
      std::snprintf(line, sizeof(line),
                    "{\"event\": \"%s\", \"step\": %lld, \"loss\": %.9g, "
                    "\"accuracy\": %.9g, \"loss_scale\": %.9g, "
                    "\"skipped\": %lld, \"examples_per_second\": %.6g",
                    event, static_cast<long long>(step), loss,
                    std::isnan(accuracy) ? -1.0 : accuracy, scale,
                    static_cast<long long>(skipped), rate);
    std::string text = line;
    for (size_t i = 0; i < scalars.size() && i < values.size(); ++i) {
      char value[64];
      std::snprintf(value, sizeof(value), "%.9g", values[i]);
      text += csv ? std::string(",") + value
                  : ", \"" + scalars[i] +
                        "\": " + (std::isfinite(values[i]) ? value : "null");
    }
    text += csv ? "\n" : "}\n";
    return write(text.c_str());
  }

  /// An --auto-fix: the option added and the plan training goes on with.
  rt::Status recordChange(int64_t step, const std::string &change,
                          const std::string &plan) {
    if (!out)
      return rt::Status::ok();
    // The options hold no quote; a CSV row keeps the fixed columns.
    std::string text =
        csv ? "\"auto_fix " + change + " -> " + plan + "\"," +
                  std::to_string(step) + ",,,,,\n"
            : "{\"event\": \"auto_fix\", \"step\": " + std::to_string(step) +
                  ", \"change\": \"" + change + "\", \"plan\": \"" + plan +
                  "\"}\n";
    return write(text.c_str());
  }

private:
  rt::Status write(const char *text) {
    if (std::fputs(text, out) < 0 || std::fflush(out) != 0 || std::ferror(out))
      return rt::internalError(
          path + ": cannot write the metrics file: " + std::strerror(errno));
    return rt::Status::ok();
  }

  std::string path;
  std::vector<std::string> scalars;
  std::FILE *out = nullptr;
  bool csv = false;
};

/// The step's scalar f32 outputs other than the loss (a learning rate from
/// train.lr_schedule, a gradient norm from train.clip_grad_norm): logged
/// by name with every loss, like the loss scale.
class ScalarOutputs {
public:
  explicit ScalarOutputs(const rt::Session &session) {
    for (const rt::ResultDesc &result : session.plan().results) {
      const rt::TensorDesc &desc = session.plan().tensors[result.value];
      if (result.role == rt::ResultRole::Output && !result.name.empty() &&
          desc.dtype == rt::DType::F32 && desc.shape.empty())
        names.push_back(result.name);
    }
  }
  const std::vector<std::string> &all() const { return names; }
  std::vector<double> read(rt::Session &session) const {
    std::vector<double> values;
    for (const std::string &name : names) {
      float value = NAN;
      check(session.getTensor(name, &value, sizeof(value)));
      values.push_back(value);
    }
    return values;
  }
  /// " lr 0.001 grad_norm 0.52" (empty without scalar outputs).
  std::string text(const std::vector<double> &values,
                   const char *separator) const {
    std::string out;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      char value[32];
      std::snprintf(value, sizeof(value), "%g", values[i]);
      out += separator + names[i] + " " + value;
    }
    return out;
  }

private:
  std::vector<std::string> names;
};

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_METRICS_H
