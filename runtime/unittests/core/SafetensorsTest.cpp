//===- SafetensorsTest.cpp - the checkpoint file format -------------------===//
#include "mp/runtime/Safetensors.h"
#include "TestPlans.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// A file as the safetensors reference writer makes it, by hand: no
/// checksum, tensors out of name order in the data.
std::vector<uint8_t> handWritten() {
  std::string header =
      R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("a":{"dtype":"I64","shape":[],"data_offsets":[8,16]},)"
      R"("__metadata__":{"format":"pt"}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> bytes(8);
  uint64_t n = header.size();
  std::memcpy(bytes.data(), &n, 8);
  bytes.insert(bytes.end(), header.begin(), header.end());
  float b[2] = {1.5f, -2};
  int64_t a = 42;
  bytes.insert(bytes.end(), reinterpret_cast<uint8_t *>(b),
               reinterpret_cast<uint8_t *>(b) + 8);
  bytes.insert(bytes.end(), reinterpret_cast<uint8_t *>(&a),
               reinterpret_cast<uint8_t *>(&a) + 8);
  return bytes;
}

/// Replaces the header of `bytes` with `header` (padded), keeping the data.
std::vector<uint8_t> withHeader(const std::vector<uint8_t> &bytes,
                                std::string header) {
  uint64_t old;
  std::memcpy(&old, bytes.data(), 8);
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8);
  uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), bytes.begin() + 8 + old, bytes.end());
  return out;
}

TEST(SafetensorsTest, ReadsTheReferenceLayout) {
  StatusOr<SafetensorsFile> file = parseSafetensors(handWritten(), "hand");
  ASSERT_TRUE(file.isOk()) << file.status().message();
  ASSERT_EQ(file->tensors.size(), 2u);
  EXPECT_EQ(file->tensors[0].name, "a"); // sorted by name
  EXPECT_EQ(file->tensors[0].dtype, DType::I64);
  EXPECT_TRUE(file->tensors[0].shape.empty());
  EXPECT_EQ(*static_cast<const int64_t *>(file->find("a")->data), 42);
  const SafetensorsTensor *b = file->find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->byteSize, 8u);
  float values[2];
  std::memcpy(values, b->data, 8);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(file->metadata.at("format"), "pt");
  EXPECT_FALSE(file->hasChecksum);
  EXPECT_EQ(file->find("c"), nullptr);
}

TEST(SafetensorsTest, WriteReadRoundTrip) {
  ScopedTempDir dir;
  std::string path = dir.path("t.safetensors");
  float f32[6] = {1, 2, 3, 4, 5, 6};
  uint16_t half[2] = {0x3c00, 0xc000};
  uint8_t flags[3] = {1, 0, 1};
  int32_t i32[1] = {-7};
  std::vector<SafetensorsTensor> tensors = {
      {"w", DType::F32, {2, 3}, f32, 24},
      {"h", DType::F16, {2}, half, 4},
      {"g", DType::BF16, {2}, half, 4},
      {"flags", DType::I1, {3}, flags, 3},
      {"n", DType::I32, {1}, i32, 4},
      {"empty", DType::F32, {0, 4}, nullptr, 0},
      {"name with \"quotes\"\n", DType::F32, {1}, f32, 4},
  };
  ASSERT_TRUE(writeSafetensorsFile(path, tensors, {{"step", "12"}}).isOk());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"t.safetensors"});

  std::vector<uint8_t> bytes = readBytes(path);
  uint64_t headerSize;
  std::memcpy(&headerSize, bytes.data(), 8);
  EXPECT_EQ(headerSize % 8, 0u); // data 8-byte aligned, as the reference
  EXPECT_EQ(bytes[8], '{');

  StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
  ASSERT_TRUE(file.isOk()) << file.status().message();
  EXPECT_TRUE(file->hasChecksum);
  EXPECT_EQ(file->metadata.at("step"), "12");
  ASSERT_EQ(file->tensors.size(), tensors.size());
  for (const SafetensorsTensor &t : tensors) {
    const SafetensorsTensor *read = file->find(t.name);
    ASSERT_NE(read, nullptr) << t.name;
    EXPECT_EQ(read->dtype, t.dtype);
    EXPECT_EQ(read->shape, t.shape);
    ASSERT_EQ(read->byteSize, t.byteSize);
    if (t.byteSize) {
      EXPECT_EQ(std::memcmp(read->data, t.data, t.byteSize), 0) << t.name;
    }
  }
}

TEST(SafetensorsTest, WriterChecksItsInput) {
  ScopedTempDir dir;
  float f[2] = {};
  Status s = writeSafetensorsFile(
      dir.path("a"),
      {{"a", DType::F32, {2}, f, 8}, {"a", DType::F32, {2}, f, 8}}, {});
  EXPECT_NE(s.message().find("two tensors named 'a'"), std::string::npos);
  s = writeSafetensorsFile(dir.path("a"), {{"a", DType::F32, {3}, f, 8}}, {});
  EXPECT_NE(s.message().find("tensor 'a' has 8 bytes for f32[3]"),
            std::string::npos);
  s = writeSafetensorsFile(dir.path("a"),
                           {{"__metadata__", DType::F32, {2}, f, 8}}, {});
  EXPECT_FALSE(s.isOk());
  EXPECT_TRUE(dir.files().empty());
}

TEST(SafetensorsTest, EveryTruncationIsRejected) {
  ScopedTempDir dir;
  float f[4] = {1, 2, 3, 4};
  ASSERT_TRUE(writeSafetensorsFile(
                  dir.path("t"),
                  {{"a", DType::F32, {4}, f, 16}, {"b", DType::F32, {2}, f, 8}},
                  {{"k", "v"}})
                  .isOk());
  std::vector<uint8_t> bytes = readBytes(dir.path("t"));
  for (size_t size = 0; size < bytes.size(); ++size) {
    StatusOr<SafetensorsFile> file = parseSafetensors(
        std::vector<uint8_t>(bytes.begin(), bytes.begin() + size), "cut");
    ASSERT_FALSE(file.isOk()) << size;
    EXPECT_EQ(file.status().code(), StatusCode::DataLoss) << size;
    EXPECT_EQ(file.status().message().rfind("cut: ", 0), 0u);
  }
}

TEST(SafetensorsTest, FlippedDataIsCaughtByTheChecksum) {
  ScopedTempDir dir;
  float f[4] = {1, 2, 3, 4};
  ASSERT_TRUE(
      writeSafetensorsFile(dir.path("t"), {{"a", DType::F32, {4}, f, 16}}, {})
          .isOk());
  std::vector<uint8_t> bytes = readBytes(dir.path("t"));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> damaged = bytes;
    damaged[i] ^= 0x10;
    StatusOr<SafetensorsFile> file = parseSafetensors(damaged, "flip");
    // A flip in the header padding or a key's spelling can leave a valid
    // file; it must then still hold the same data.
    if (file.isOk()) {
      ASSERT_EQ(file->tensors.size(), 1u) << i;
      EXPECT_EQ(std::memcmp(file->tensors[0].data, f, 16), 0) << i;
      continue;
    }
    EXPECT_EQ(file.status().message().rfind("flip: ", 0), 0u);
  }
  std::vector<uint8_t> damaged = bytes;
  damaged.back() ^= 1;
  StatusOr<SafetensorsFile> file = parseSafetensors(damaged, "flip");
  ASSERT_FALSE(file.isOk());
  EXPECT_EQ(file.status().code(), StatusCode::DataLoss);
  EXPECT_NE(
      file.status().message().find("the checksum of its data and metadata is"),
      std::string::npos);
}

TEST(SafetensorsTest, RejectsInconsistentHeaders) {
  std::vector<uint8_t> base = handWritten();
  struct Case {
    std::string header;
    const char *message;
  } cases[] = {
      {R"([1])", "not an object"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       "8 bytes after the last tensor"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
       "tensor data overlaps at data byte 4"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
       "tensor data has a gap at data byte 4"},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})",
       "tensor 'a' of F32[3] has data_offsets [0, 16] holding 16 bytes"},
      {R"({"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}})",
       "tensor 'a' ends at data byte 32, the file has 16"},
      {R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})",
       "tensor 'a' has dtype F64, which the runtime does not hold"},
      {R"({"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})",
       "tensor 'a' has a bad shape"},
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[16,0]}})",
       "tensor 'a' has bad data_offsets"},
      {R"({"a":{"dtype":"F32","shape":[4]}})",
       "tensor 'a' is not {dtype, shape, data_offsets}"},
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16],"x":1}})",
       "tensor 'a' is not {dtype, shape, data_offsets}"},
      {R"({"__metadata__":{"k":1},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       "metadata 'k' is not a string"},
      {R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,16]}})",
       "has data_offsets"},
  };
  for (const Case &c : cases) {
    StatusOr<SafetensorsFile> file =
        parseSafetensors(withHeader(base, c.header), "x.safetensors");
    ASSERT_FALSE(file.isOk()) << c.header;
    EXPECT_NE(file.status().message().find(c.message), std::string::npos)
        << c.header << "\n  gave: " << file.status().message();
    EXPECT_EQ(file.status().message().rfind("x.safetensors: ", 0), 0u);
  }
}

TEST(SafetensorsTest, HugeHeaderLengthIsRejected) {
  std::vector<uint8_t> bytes = handWritten();
  uint64_t n = UINT64_MAX;
  std::memcpy(bytes.data(), &n, 8);
  StatusOr<SafetensorsFile> file = parseSafetensors(bytes, "big");
  ASSERT_FALSE(file.isOk());
  EXPECT_EQ(file.status().code(), StatusCode::DataLoss);
  EXPECT_NE(file.status().message().find("truncated"), std::string::npos);
}

} // namespace
