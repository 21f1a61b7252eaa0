//===- Vocabulary.h - the shared vocabulary, for the runtime ---*- C++ -*-===//
//
// Written by mp-tblgen -gen-vocabulary-header from include/mp/IR/Vocabulary.td:
// do not edit (`cmake --build build --target mp-update-generated` rewrites it).
// The words the compiler writes into plans and the runtime reads: each is
// spelled once, in the ODS.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_VOCABULARY_H
#define MP_RUNTIME_VOCABULARY_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace mp::rt::vocab {

/// precision policy (MP_PolicyKind).
enum class PolicyKind : uint32_t {
  Float32 = 0,
  MixedBFloat16 = 1,
  MixedFloat16 = 2,
};
inline constexpr uint32_t kNumPolicyKind = 3;
inline constexpr const char *kPolicyKindSpellings[] = {"float32", "mixed_bfloat16", "mixed_float16"};
/// "float32, mixed_bfloat16 or mixed_float16", for messages.
inline constexpr const char *kPolicyKindList = "float32, mixed_bfloat16 or mixed_float16";
inline constexpr const char *stringify(PolicyKind value) {
  return kPolicyKindSpellings[static_cast<uint32_t>(value)];
}
inline std::optional<PolicyKind> symbolizePolicyKind(std::string_view text) {
  for (uint32_t i = 0; i < kNumPolicyKind; ++i)
    if (text == kPolicyKindSpellings[i])
      return static_cast<PolicyKind>(i);
  return std::nullopt;
}

/// precision category of an op (MP_PrecisionCategory).
enum class PrecisionCategory : uint32_t {
  Allow = 0,
  Deny = 1,
  Infer = 2,
  Clear = 3,
};
inline constexpr uint32_t kNumPrecisionCategory = 4;
inline constexpr const char *kPrecisionCategorySpellings[] = {"allow", "deny", "infer", "clear"};
/// "allow, deny, infer or clear", for messages.
inline constexpr const char *kPrecisionCategoryList = "allow, deny, infer or clear";
inline constexpr const char *stringify(PrecisionCategory value) {
  return kPrecisionCategorySpellings[static_cast<uint32_t>(value)];
}
inline std::optional<PrecisionCategory> symbolizePrecisionCategory(std::string_view text) {
  for (uint32_t i = 0; i < kNumPrecisionCategory; ++i)
    if (text == kPrecisionCategorySpellings[i])
      return static_cast<PrecisionCategory>(i);
  return std::nullopt;
}

/// role of a training step's value (Train_Role).
enum class Role : uint32_t {
  Param = 0,
  OptState = 1,
  Buffer = 2,
  ScalerState = 3,
  Input = 4,
  Label = 5,
  Loss = 6,
  Output = 7,
  Check = 8,
};
inline constexpr uint32_t kNumRole = 9;
inline constexpr const char *kRoleSpellings[] = {"param", "opt_state", "buffer", "scaler_state", "input", "label", "loss", "output", "check"};
/// "param, opt_state, buffer, scaler_state, input, label, loss, output or check", for messages.
inline constexpr const char *kRoleList = "param, opt_state, buffer, scaler_state, input, label, loss, output or check";
inline constexpr const char *stringify(Role value) {
  return kRoleSpellings[static_cast<uint32_t>(value)];
}
inline std::optional<Role> symbolizeRole(std::string_view text) {
  for (uint32_t i = 0; i < kNumRole; ++i)
    if (text == kRoleSpellings[i])
      return static_cast<Role>(i);
  return std::nullopt;
}

/// a tensor the loss scaler adds (MP_ScalerTensor).
enum class ScalerTensor : uint32_t {
  LossScale = 0,
  GrowthCount = 1,
  AllFinite = 2,
};
inline constexpr uint32_t kNumScalerTensor = 3;
inline constexpr const char *kScalerTensorSpellings[] = {"loss_scale", "loss_scale.growth_count", "all_finite"};
/// "loss_scale, loss_scale.growth_count or all_finite", for messages.
inline constexpr const char *kScalerTensorList = "loss_scale, loss_scale.growth_count or all_finite";
inline constexpr const char *stringify(ScalerTensor value) {
  return kScalerTensorSpellings[static_cast<uint32_t>(value)];
}
inline std::optional<ScalerTensor> symbolizeScalerTensor(std::string_view text) {
  for (uint32_t i = 0; i < kNumScalerTensor; ++i)
    if (text == kScalerTensorSpellings[i])
      return static_cast<ScalerTensor>(i);
  return std::nullopt;
}

} // namespace mp::rt::vocab

#endif // MP_RUNTIME_VOCABULARY_H
