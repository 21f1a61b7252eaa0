//===- JsonFuzzer.cpp - the runtime's JSON parser -------------------------===//
//
// parseJson on any text (the safetensors header and the checkpoint
// metadata go through it), and a parsed value quoted back.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "core/Json.h"

#include <string_view>

using namespace mp::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  StatusOr<JsonValue> value = parseJson(text);
  if (value.isOk() && value->kind == JsonValue::Kind::String)
    (void)quoteJson(value->text);
  return 0;
}
