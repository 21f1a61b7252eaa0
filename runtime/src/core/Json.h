//===- Json.h - the JSON that safetensors headers need ----------*- C++ -*-===//
//
// A strict RFC 8259 parser (depth-limited, duplicate keys rejected) and a
// string quoter: enough for safetensors headers, with no dependency.
// Numbers keep their literal text so that 64-bit offsets stay exact.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CORE_JSON_H
#define MP_RUNTIME_CORE_JSON_H

#include "mp/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mp::rt {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; ///< a string's value, or a number's literal
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members; ///< in file order

  const JsonValue *find(std::string_view key) const;
  /// The value of an integer literal (no fraction or exponent) in range.
  std::optional<int64_t> asInt() const;
};

/// Parses one JSON value filling all of `text` (whitespace around it is
/// fine); the error says what is wrong at which byte.
StatusOr<JsonValue> parseJson(std::string_view text);

/// `value` as a JSON string literal, quotes included.
std::string quoteJson(std::string_view value);

} // namespace mp::rt

#endif // MP_RUNTIME_CORE_JSON_H
