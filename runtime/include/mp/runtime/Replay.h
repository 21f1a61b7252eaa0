//===- Replay.h - find where a step goes non-finite -------------*- C++ -*-===//
//
// When training goes non-finite (a NaN loss, a run of skipped steps, a loss
// scale at its floor), the step is run again from the state before it, on
// the same batch, with a finiteness check after every kernel: the first
// kernel whose output holds inf or NaN is the culprit, and the ranges of
// its inputs say why (docs/mp-run.md, "When training goes non-finite").
// Nothing of it runs in a healthy step.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REPLAY_H
#define MP_RUNTIME_REPLAY_H

#include "mp/runtime/Session.h"

#include <string>
#include <vector>

namespace mp::rt {

/// What a float tensor's values would do in 16 bits.
struct ValueRange {
  uint32_t tensor = 0;
  int64_t elements = 0, nan = 0, inf = 0, zeros = 0;
  double maxAbs = 0; ///< the largest finite |x| (0 when none)
  /// Finite values beyond the type's largest finite value (they round to
  /// inf) and non-zero values too small for it (they round to 0).
  int64_t overF16 = 0, flushF16 = 0, overBF16 = 0, flushBF16 = 0;
  bool finite() const { return nan == 0 && inf == 0; }
};
/// The range of `count` floats.
ValueRange measureRange(const float *values, int64_t count);
/// The range of plan tensor `tensor` as the session holds it now (float
/// dtypes only).
StatusOr<ValueRange> measureTensor(const Session &session, uint32_t tensor);

struct ReplayFinding {
  /// What the replay found: the step's own inputs or state are already
  /// non-finite (`tensor`), a kernel makes the first non-finite value
  /// (`kernel`), or every kernel's outputs were finite (the step cannot be
  /// reproduced: the batch or state differs from the failing step's).
  enum class Kind { BadInput, Kernel, AllFinite } kind = Kind::AllFinite;
  uint32_t tensor = 0; ///< BadInput: the input, label or state
  size_t kernel = 0;   ///< Kernel: its index in the plan
  std::vector<ValueRange> inputs, outputs; ///< Kernel: its float operands
  /// Kernel: it computes from the loss-scaled seed (between mp.scale and
  /// mp.unscale_and_check), where the loss scale multiplies every value.
  bool scaled = false;
  ValueRange input; ///< BadInput: the tensor's range
};

/// Replays one step on `session` (whose state and inputs are those of the
/// failing step) and reports the first non-finite value. Changes no state.
StatusOr<ReplayFinding> replayStep(Session &session);

/// The diagnosis as text: the kernel, its op, its location and precision
/// decision (plan format 6), its inputs' and outputs' ranges, and the
/// proposal: the override that keeps the op in float32 (as a pipeline
/// option and as an mp.force on that op), a lower initial loss scale when
/// the overflow is in the scaled backward pass, or "not a precision
/// problem" when f32 overflows too or the data is already non-finite.
/// `lossScale` is the scale the failing step ran with (0: none).
struct Diagnosis {
  std::string text; ///< several lines, for a terminal
  /// What the diagnosis proposes, as data: a tool applies it without
  /// reading `proposal` back.
  enum class Fix {
    None,      ///< nothing to propose
    DenyOps,   ///< keep `denyOps` in float32 (the deny-add option)
    InitScale, ///< start the loss scale at `initScale` (init-scale option)
    ForceOp,   ///< an edit of the step: the op's mp.force pin to "fp32"
  } fix = Fix::None;
  std::vector<std::string> denyOps;
  double initScale = 0;
  std::string proposal; ///< the fix as one line of text ("" when none)
  std::string op;       ///< the culprit kernel's op ("" when none)
  bool precisionProblem = false;
  /// Whether the fix is a pipeline option (a recompile applies it).
  bool isOptionFix() const {
    return fix == Fix::DenyOps || fix == Fix::InitScale;
  }
};
Diagnosis diagnose(const Session &session, const ReplayFinding &finding,
                   double lossScale);

} // namespace mp::rt

#endif // MP_RUNTIME_REPLAY_H
