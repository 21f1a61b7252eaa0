//===- Json.cpp - the JSON that safetensors headers need ------------------===//
#include "core/Json.h"

#include <set>

using namespace mp::rt;

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const auto &[name, value] : members)
    if (name == key)
      return &value;
  return nullptr;
}

std::optional<int64_t> JsonValue::asInt() const {
  if (kind != Kind::Number || text.empty())
    return std::nullopt;
  bool negative = text[0] == '-';
  uint64_t magnitude = 0;
  for (size_t i = negative; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9')
      return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (UINT64_MAX - digit) / 10)
      return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  uint64_t limit = negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
  if (magnitude > limit)
    return std::nullopt;
  return negative ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  StatusOr<JsonValue> parseDocument() {
    JsonValue value;
    skipSpace();
    if (!parseValue(value, 0))
      return failure();
    skipSpace();
    if (pos != text.size()) {
      error = "unexpected text after the value";
      return failure();
    }
    return value;
  }

private:
  static constexpr int kMaxDepth = 32;

  Status failure() const {
    return invalidArgument("JSON error at byte " + std::to_string(pos) + ": " +
                           error);
  }
  bool fail(std::string message) {
    error = std::move(message);
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  bool parseValue(JsonValue &value, int depth) {
    if (depth > kMaxDepth)
      return fail("nested deeper than " + std::to_string(kMaxDepth));
    if (pos >= text.size())
      return fail("unexpected end");
    char c = text[pos];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      return parseString(value.text);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(value);
    if (consume("true") || consume("false")) {
      value.kind = JsonValue::Kind::Bool;
      value.boolean = c == 't';
      return true;
    }
    if (consume("null"))
      return true;
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    std::set<std::string> keys;
    while (true) {
      skipSpace();
      std::string key;
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a key string");
      if (!parseString(key))
        return false;
      if (!keys.insert(key).second)
        return fail("duplicate key \"" + key + "\"");
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':'");
      ++pos;
      skipSpace();
      value.members.emplace_back(std::move(key), JsonValue());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      value.items.emplace_back();
      if (!parseValue(value.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool digits() {
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    return pos > start;
  }

  bool parseNumber(JsonValue &value) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    if (pos < text.size() && text[pos] == '0')
      ++pos; // no leading zeros
    else if (!digits())
      return fail("bad number");
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      if (!digits())
        return fail("bad number fraction");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("bad number exponent");
    }
    value.kind = JsonValue::Kind::Number;
    value.text.assign(text.substr(start, pos - start));
    return true;
  }

  bool hex4(uint32_t &out) {
    if (text.size() - pos < 4)
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return fail("bad \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  bool parseString(std::string &out) {
    ++pos; // '"'
    while (true) {
      if (pos >= text.size())
        return fail("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        return fail("unterminated escape");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xdc00 && cp < 0xe000)
          return fail("lone low surrogate");
        if (cp >= 0xd800 && cp < 0xdc00) {
          uint32_t low;
          if (!consume("\\u") || !hex4(low) || low < 0xdc00 || low >= 0xe000)
            return fail("high surrogate without its low half");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  std::string_view text;
  size_t pos = 0;
  std::string error;
};

} // namespace

StatusOr<JsonValue> mp::rt::parseJson(std::string_view text) {
  return Parser(text).parseDocument();
}

std::string mp::rt::quoteJson(std::string_view value) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00";
        out += digits[(c >> 4) & 15];
        out += digits[c & 15];
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}
