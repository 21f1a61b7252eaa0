//===- JsonTest.cpp - the safetensors header's JSON -----------------------===//
#include "core/Json.h"

#include <gtest/gtest.h>

using namespace mp::rt;

namespace {

TEST(JsonTest, ParsesValues) {
  StatusOr<JsonValue> v = parseJson(
      R"( {"a": [1, -2, 3.5e2, true, false, null], "b": {"c": "d"}, "e": {}} )");
  ASSERT_TRUE(v.isOk()) << v.status().message();
  ASSERT_EQ(v->kind, JsonValue::Kind::Object);
  const JsonValue *a = v->find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 6u);
  EXPECT_EQ(a->items[0].asInt(), 1);
  EXPECT_EQ(a->items[1].asInt(), -2);
  EXPECT_EQ(a->items[2].text, "3.5e2");
  EXPECT_FALSE(a->items[2].asInt()); // not an integer literal
  EXPECT_TRUE(a->items[3].boolean);
  EXPECT_EQ(a->items[4].kind, JsonValue::Kind::Bool);
  EXPECT_EQ(a->items[5].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v->find("b")->find("c")->text, "d");
  EXPECT_TRUE(v->find("e")->members.empty());
  EXPECT_EQ(v->find("zz"), nullptr);
  EXPECT_EQ(v->members[0].first, "a"); // file order is kept
}

TEST(JsonTest, IntegersAreExact) {
  EXPECT_EQ(parseJson("9223372036854775807")->asInt(), INT64_MAX);
  EXPECT_EQ(parseJson("-9223372036854775808")->asInt(), INT64_MIN);
  EXPECT_FALSE(parseJson("9223372036854775808")->asInt());
  EXPECT_FALSE(parseJson("99999999999999999999999")->asInt());
  EXPECT_FALSE(parseJson("\"12\"")->asInt());
}

TEST(JsonTest, StringEscapes) {
  StatusOr<JsonValue> v =
      parseJson(R"("a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00")");
  ASSERT_TRUE(v.isOk()) << v.status().message();
  EXPECT_EQ(v->text,
            "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(JsonTest, QuoteRoundTrips) {
  std::string nasty = std::string("q\"uo\\te\n\x01\x1f tab\t\xc3\xa9", 17);
  std::string quoted = quoteJson(nasty);
  EXPECT_EQ(quoted.find('\n'), std::string::npos);
  StatusOr<JsonValue> v = parseJson(quoted);
  ASSERT_TRUE(v.isOk()) << v.status().message();
  EXPECT_EQ(v->text, nasty);
}

TEST(JsonTest, RejectsMalformedText) {
  const char *bad[] = {
      "",           "{",           "{\"a\"}",
      "{\"a\":1,}", "[1,]",        "[1 2]",
      "01",         "1.",          "1e",
      "-",          "+1",          "tru",
      "nul",        "\"abc",       "\"\\x\"",
      "\"\\u12\"",  "\"\\ud800\"", "\"\\udc00\"",
      "\"a\nb\"",   "{} {}",       "{\"a\":1,\"a\":2}",
      "{1:2}",      "'a'",         "[\"\\ud800\\u0041\"]",
  };
  for (const char *text : bad) {
    StatusOr<JsonValue> v = parseJson(text);
    EXPECT_FALSE(v.isOk()) << "accepted: " << text;
    if (!v.isOk()) {
      EXPECT_EQ(v.status().message().rfind("JSON error at byte ", 0), 0u);
    }
  }
}

TEST(JsonTest, DepthIsLimited) {
  std::string deep(1000, '[');
  deep += std::string(1000, ']');
  StatusOr<JsonValue> v = parseJson(deep);
  ASSERT_FALSE(v.isOk());
  EXPECT_NE(v.status().message().find("nested deeper than"), std::string::npos);
  std::string fine = std::string(30, '[') + std::string(30, ']');
  EXPECT_TRUE(parseJson(fine).isOk());
}

TEST(JsonTest, ErrorsSayWhere) {
  StatusOr<JsonValue> v = parseJson("{\"a\": [1, 2,, 3]}");
  ASSERT_FALSE(v.isOk());
  EXPECT_EQ(v.status().message(),
            "JSON error at byte 12: unexpected character ','");
}

} // namespace
