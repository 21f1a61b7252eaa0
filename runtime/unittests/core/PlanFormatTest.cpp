//===- PlanFormatTest.cpp - the binary plan format ------------------------===//
//
// Round trips are bitwise; every damaged file (each prefix, each flipped
// byte, a wrong magic or version, hostile payloads with a valid checksum)
// is rejected with a message naming the file, and never crashes or
// allocates without bound.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"
#include "support/Hash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// The least-squares plan plus everything the format can hold: a constant,
/// attributes of every kind (NaN and -0 floats, extreme and empty integer
/// arrays, a string with a NUL), each on an op whose schema has it.
Plan richPlan() {
  Plan plan = makeLeastSquaresPlan();
  plan.policy = "mixed_bfloat16";
  plan.constants = {1, 2, 3, 4, 5, 6, 7, 8};
  plan.tensors.push_back(
      {TensorKind::Constant, DType::BF16, {2, 2}, "c", 0, 0});
  auto scratch = [&](std::vector<int64_t> shape) {
    plan.tensors.push_back({TensorKind::Scratch, DType::F32, shape, "", 0, 0});
    return static_cast<uint32_t>(plan.tensors.size() - 1);
  };
  uint32_t a = scratch({2, 2}), b = scratch({2, 2}), c = scratch({2, 2}),
           d = scratch({2}), e = scratch({2, 2});
  plan.kernels.push_back({"train.fill", {}, {a}, {{"value", floats({NAN})}}});
  plan.kernels.push_back({"train.fill", {}, {b}, {{"value", floats({-0.0})}}});
  plan.kernels.push_back(
      {"mp.matmul_epilogue", {a, b}, {c},
       {{"activation", str(std::string("NCHW\0x\xc3\xa9", 8))},
        {"transpose_lhs", ints({1})}}});
  plan.kernels.push_back({"train.reduce_sum", {c}, {d},
                          {{"dims", ints({-1, 0, INT64_MAX, INT64_MIN})}}});
  plan.kernels.push_back(
      {"train.transpose", {c}, {e}, {{"permutation", ints({})}}});
  planMemory(plan);
  return plan;
}

/// Rewrites the header checksum of a serialized plan to match its payload.
void fixChecksum(std::vector<uint8_t> &bytes) {
  uint64_t checksum = fnv1a64(bytes.data() + 32, bytes.size() - 32);
  std::memcpy(bytes.data() + 24, &checksum, 8);
}

TEST(PlanFormatTest, RoundTripIsBitwise) {
  Plan plan = richPlan();
  ASSERT_TRUE(plan.validate().isOk()) << plan.validate().message();
  std::vector<uint8_t> bytes = serializePlan(plan);
  StatusOr<Plan> parsed = parsePlan(bytes, "rich.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(serializePlan(*parsed), bytes);
  EXPECT_EQ(planHash(*parsed), planHash(plan));

  // Spot checks that the fields came back, not just the bytes.
  EXPECT_EQ(parsed->policy, "mixed_bfloat16");
  EXPECT_EQ(parsed->arenaSize, plan.arenaSize);
  EXPECT_EQ(parsed->constants, plan.constants);
  ASSERT_EQ(parsed->tensors.size(), plan.tensors.size());
  EXPECT_EQ(parsed->tensors[4].name, "loss_scale");
  EXPECT_EQ(parsed->tensors[4].initialValue, 4.0);
  EXPECT_EQ(parsed->tensors[plan.tensors.size() - 6].dtype, DType::BF16);
  size_t n = parsed->kernels.size();
  EXPECT_TRUE(std::isnan(parsed->kernels[n - 5].attrs.at("value").floats[0]));
  EXPECT_TRUE(std::signbit(parsed->kernels[n - 4].attrs.at("value").floats[0]));
  EXPECT_EQ(parsed->kernels[n - 3].attrs.at("activation").str,
            std::string("NCHW\0x\xc3\xa9", 8));
  EXPECT_EQ(parsed->kernels[n - 2].attrs.at("dims").ints[3], INT64_MIN);
  EXPECT_TRUE(parsed->kernels[n - 1].attrs.at("permutation").ints.empty());
  // Ids are resolved on load.
  EXPECT_EQ(parsed->kernels[n - 1].id, OpId::TrainTranspose);
  ASSERT_EQ(parsed->results.size(), plan.results.size());
  EXPECT_EQ(parsed->results[1].state, plan.results[1].state);
  EXPECT_EQ(parsed->results.back().name, "y");
}

TEST(PlanFormatTest, HeaderLayout) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  ASSERT_GE(bytes.size(), 32u);
  EXPECT_EQ(std::memcmp(bytes.data(), "MPPLAN\0\0", 8), 0);
  uint32_t version;
  uint64_t payload, checksum;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&payload, bytes.data() + 16, 8);
  std::memcpy(&checksum, bytes.data() + 24, 8);
  EXPECT_EQ(version, Plan::kVersion);
  EXPECT_EQ(payload, bytes.size() - 32);
  EXPECT_EQ(checksum, fnv1a64(bytes.data() + 32, bytes.size() - 32));
}

TEST(PlanFormatTest, HashChangesWithThePlan) {
  Plan plan = makeLeastSquaresPlan();
  uint64_t hash = planHash(plan);
  EXPECT_EQ(planHash(makeLeastSquaresPlan()), hash);
  plan.kernels.back().attrs["growth_interval"] = ints({4});
  EXPECT_NE(planHash(plan), hash);
}

TEST(PlanFormatTest, EveryTruncationIsRejected) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    StatusOr<Plan> parsed = parsePlan(prefix, "cut.plan");
    ASSERT_FALSE(parsed.isOk()) << "a prefix of " << size << " bytes";
    EXPECT_EQ(parsed.status().code(), StatusCode::DataLoss) << size;
    EXPECT_EQ(parsed.status().message().rfind("cut.plan: truncated plan", 0),
              0u)
        << parsed.status().message();
  }
}

TEST(PlanFormatTest, EveryFlippedByteIsRejected) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80}) {
      std::vector<uint8_t> damaged = bytes;
      damaged[i] ^= mask;
      StatusOr<Plan> parsed = parsePlan(damaged, "flip.plan");
      ASSERT_FALSE(parsed.isOk()) << "byte " << i << " ^ " << int(mask);
      EXPECT_EQ(parsed.status().message().rfind("flip.plan: ", 0), 0u);
      // Past the magic and version, damage is data loss.
      if (i >= 12) {
        EXPECT_EQ(parsed.status().code(), StatusCode::DataLoss)
            << i << ": " << parsed.status().message();
      }
    }
  }
}

/// Parses `bytes` as "test.plan", expecting `code` and a message that
/// contains `text`.
void expectRejected(const std::vector<uint8_t> &bytes, StatusCode code,
                    const std::string &text) {
  StatusOr<Plan> parsed = parsePlan(bytes, "test.plan");
  ASSERT_FALSE(parsed.isOk());
  EXPECT_EQ(parsed.status().code(), code) << parsed.status().message();
  EXPECT_NE(parsed.status().message().find(text), std::string::npos)
      << parsed.status().message();
}

TEST(PlanFormatTest, WrongMagicAndVersion) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  std::vector<uint8_t> other = bytes;
  std::memcpy(other.data(), "PK\3\4", 4);
  expectRejected(other, StatusCode::InvalidArgument,
                 "test.plan: not a plan file (no \"MPPLAN\" magic)");
  other = bytes;
  uint32_t version = Plan::kVersion + 1;
  std::memcpy(other.data() + 8, &version, 4);
  expectRejected(other, StatusCode::InvalidArgument,
                 "test.plan: plan format version " +
                     std::to_string(Plan::kVersion + 1) +
                     ", but this runtime reads versions " +
                     std::to_string(Plan::kOldestVersion) + " to " +
                     std::to_string(Plan::kVersion) + "; recompile the plan");
}

/// The least-squares plan with its sub -> mul run (kernels #1 and #2) as a
/// fused region, as mp-compile --codegen=cpu records it.
Plan planWithCode() {
  Plan plan = makeLeastSquaresPlan();
  plan.code.library = "least_squares.code.so";
  plan.code.id = 0x0123456789abcdefull;
  plan.code.regions.push_back(leastSquaresRegion(plan));
  planMemory(plan);
  return plan;
}

TEST(PlanFormatTest, CodeSectionRoundTrips) {
  Plan plan = planWithCode();
  ASSERT_TRUE(plan.validate().isOk()) << plan.validate().message();
  std::vector<uint8_t> bytes = serializePlan(plan);
  StatusOr<Plan> parsed = parsePlan(bytes, "code.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(serializePlan(*parsed), bytes);
  EXPECT_EQ(parsed->code.library, "least_squares.code.so");
  EXPECT_EQ(parsed->code.id, 0x0123456789abcdefull);
  ASSERT_EQ(parsed->code.regions.size(), 1u);
  const FusedRegion &region = parsed->code.regions[0];
  EXPECT_EQ(region.symbol, "mp_fused_0");
  EXPECT_EQ(region.first, 1u);
  EXPECT_EQ(region.count, 2u);
  EXPECT_EQ(region.operands, plan.code.regions[0].operands);
  EXPECT_EQ(region.numInputs, 2u);
  EXPECT_EQ(region.extent, 8);
  EXPECT_EQ(region.rowLength, 1);
  // A region's tensors live through it: sub's inputs do not share bytes
  // with mul's result.
  const TensorDesc &y = plan.tensors[region.operands[0]],
                   &r2 = plan.tensors[region.operands[3]];
  EXPECT_TRUE(y.offset + y.byteSize() <= r2.offset ||
              r2.offset + r2.byteSize() <= y.offset);
}

/// `plan` (without code, sources, options or shards) in an older format:
/// the payload ends [code: library 4, id 8, size 8, hash 8, regions 4]
/// [sources 4][options 4][shards 4][constants]; version 8 has no shards, 7
/// no options either, 6 no size and hash, 5 no sources, 4 no code section.
static std::vector<uint8_t> olderVersion(const Plan &plan, uint32_t version) {
  std::vector<uint8_t> bytes = serializePlan(plan);
  size_t constants = bytes.size() - 8 - plan.constants.size();
  size_t shards = constants - 4, options = shards - 4, sources = options - 4,
         code = sources - 32;
  for (size_t i = code; i < constants; ++i)
    EXPECT_EQ(bytes[i], 0) << i;
  bytes.erase(bytes.begin() + (version <= 7 ? options : shards),
              bytes.begin() + constants);
  if (version <= 5)
    bytes.erase(bytes.begin() + sources, bytes.begin() + options);
  if (version == 4)
    bytes.erase(bytes.begin() + code, bytes.begin() + sources);
  else if (version <= 6) // the checksum's 16 bytes after the name and id
    bytes.erase(bytes.begin() + code + 12, bytes.begin() + code + 28);
  uint64_t payload = bytes.size() - 32;
  std::memcpy(bytes.data() + 8, &version, 4);
  std::memcpy(bytes.data() + 16, &payload, 8);
  fixChecksum(bytes);
  return bytes;
}

TEST(PlanFormatTest, VersionSevenIsReadAsAPlanWithoutCompileOptions) {
  StatusOr<Plan> v7 =
      parsePlan(olderVersion(makeLeastSquaresPlan(), 7), "v7.plan");
  ASSERT_TRUE(v7.isOk()) << v7.status().message();
  EXPECT_EQ(v7->compileOptions, "");
  EXPECT_EQ(serializePlan(*v7), serializePlan(makeLeastSquaresPlan()));
}

TEST(PlanFormatTest, VersionEightIsReadAsAPlanWithoutShards) {
  StatusOr<Plan> v8 =
      parsePlan(olderVersion(makeLeastSquaresPlan(), 8), "v8.plan");
  ASSERT_TRUE(v8.isOk()) << v8.status().message();
  for (const TensorDesc &t : v8->tensors)
    EXPECT_FALSE(t.sharded);
  EXPECT_EQ(serializePlan(*v8), serializePlan(makeLeastSquaresPlan()));
}

/// ZeRO-1's sharded state (version 9): the marks and whole shapes round
/// trip; a mark on a tensor that is not 1-D optimizer state no larger than
/// its whole is refused.
TEST(PlanFormatTest, ShardedTensorsRoundTrip) {
  TestPlanBuilder b;
  uint32_t x = b.tensor(TensorKind::Input, DType::F32, {3}, "x");
  uint32_t m = b.tensor(TensorKind::OptState, DType::F32, {3}, "w.m");
  uint32_t y = b.scratch(DType::F32, {3}), loss = b.scratch(DType::F32, {});
  b.kernel("train.add", {x, m}, {y});
  b.kernel("train.reduce_sum", {y}, {loss}, {{"dims", ints({0})}});
  b.result(ResultRole::Loss, loss, "loss");
  Plan plan = b.finishLaidOut();
  plan.tensors[m].sharded = true;
  plan.tensors[m].wholeShape = {2, 3};
  ASSERT_TRUE(plan.validate().isOk()) << plan.validate().message();
  StatusOr<Plan> parsed = parsePlan(serializePlan(plan), "shards.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_TRUE(parsed->tensors[m].sharded);
  EXPECT_EQ(parsed->tensors[m].wholeShape, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(parsed->tensors[x].sharded);
  EXPECT_EQ(serializePlan(*parsed), serializePlan(plan));
  Plan whole = plan;
  whole.tensors[m].sharded = false;
  whole.tensors[m].wholeShape.clear();
  EXPECT_NE(planHash(plan), planHash(whole));
  Plan wrong = plan;
  wrong.tensors[x].sharded = true; // an input
  wrong.tensors[x].wholeShape = {6};
  EXPECT_EQ(wrong.validate().code(), StatusCode::InvalidArgument);
  wrong = plan;
  wrong.tensors[m].wholeShape = {2}; // smaller than the shard
  EXPECT_NE(wrong.validate().message().find("no larger than the whole"),
            std::string::npos)
      << wrong.validate().message();
}

TEST(PlanFormatTest, CompileOptionsRoundTripAndLeaveTheHash) {
  Plan plan = makeLeastSquaresPlan();
  plan.compileOptions = "policy=mixed_float16 deny-add=train.exp";
  StatusOr<Plan> parsed = parsePlan(serializePlan(plan), "options.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(parsed->compileOptions, plan.compileOptions);
  EXPECT_EQ(serializePlan(*parsed), serializePlan(plan));
  // A record, not the plan's identity: checkpoints of the same step
  // compiled with options spelled otherwise resume.
  EXPECT_EQ(planHash(plan), planHash(makeLeastSquaresPlan()));
}

TEST(PlanFormatTest, VersionSixIsReadAsAPlanWithoutLibraryChecksum) {
  StatusOr<Plan> v6 =
      parsePlan(olderVersion(makeLeastSquaresPlan(), 6), "v6.plan");
  ASSERT_TRUE(v6.isOk()) << v6.status().message();
  EXPECT_EQ(v6->code.librarySize, 0u);
  EXPECT_EQ(serializePlan(*v6), serializePlan(makeLeastSquaresPlan()));
}

TEST(PlanFormatTest, VersionFiveIsReadAsAPlanWithoutSources) {
  Plan plan = makeLeastSquaresPlan();
  StatusOr<Plan> parsed = parsePlan(olderVersion(plan, 5), "v5.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  for (const KernelDesc &k : parsed->kernels)
    EXPECT_TRUE(k.location.empty() && k.precision.empty());
  EXPECT_EQ(serializePlan(*parsed), serializePlan(plan));
}

TEST(PlanFormatTest, KernelSourcesRoundTrip) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[0].location = "model.py:12:5";
  plan.kernels[0].precision = "bf16 allow (rule allow, source default)";
  StatusOr<Plan> parsed = parsePlan(serializePlan(plan), "sources.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(parsed->kernels[0].location, "model.py:12:5");
  EXPECT_EQ(parsed->kernels[0].precision,
            "bf16 allow (rule allow, source default)");
  EXPECT_EQ(parsed->kernels[1].location, "");
  EXPECT_EQ(serializePlan(*parsed), serializePlan(plan));
  // Sources are diagnostics: they change the file, not the plan's identity.
  EXPECT_NE(serializePlan(plan), serializePlan(makeLeastSquaresPlan()));
  EXPECT_EQ(planHash(plan), planHash(makeLeastSquaresPlan()));
}

TEST(PlanFormatTest, VersionFourIsReadAsAPlanWithoutCode) {
  Plan plan = makeLeastSquaresPlan();
  StatusOr<Plan> parsed = parsePlan(olderVersion(plan, 4), "v4.plan");
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_TRUE(parsed->code.empty());
  EXPECT_EQ(serializePlan(*parsed), serializePlan(plan));
}

TEST(PlanFormatTest, LibraryIsResolvedNextToThePlanFile) {
  Plan plan = planWithCode();
  std::string dir = ::testing::TempDir();
  std::string path = dir + "/resolve.mpplan";
  ASSERT_TRUE(writePlanFile(plan, path).isOk());
  StatusOr<Plan> read = readPlanFile(path);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(read->code.resolvedPath, dir + "/least_squares.code.so");
}

/// The library's size and checksum travel in the plan and are checked
/// against the file before it is loaded: the library as written passes; a
/// truncated, altered or missing one is refused by name; a plan that
/// records none (an older format) is refused too.
TEST(PlanFormatTest, CodeLibraryIsCheckedAgainstThePlansRecord) {
  Plan plan = planWithCode();
  std::string dir = ::testing::TempDir();
  std::string library = dir + "/least_squares.code.so";
  std::string content(3000, 'x');
  for (size_t i = 0; i < content.size(); ++i)
    content[i] = static_cast<char>(i * 7);
  auto write = [&](const std::string &bytes) {
    FILE *f = std::fopen(library.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  };
  write(content);
  ASSERT_TRUE(stampCodeLibrary(plan, library).isOk());
  EXPECT_EQ(plan.code.librarySize, 3000u);
  std::string path = dir + "/checked.mpplan";
  ASSERT_TRUE(writePlanFile(plan, path).isOk());
  StatusOr<Plan> read = readPlanFile(path);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(read->code.libraryHash, plan.code.libraryHash);
  EXPECT_TRUE(checkCodeLibrary(read->code).isOk());

  write(content.substr(0, 1000));
  Status truncated = checkCodeLibrary(read->code);
  EXPECT_EQ(truncated.code(), StatusCode::DataLoss);
  EXPECT_NE(truncated.message().find("has 1000 bytes, the plan's generated "
                                     "code 3000 (truncated or replaced)"),
            std::string::npos)
      << truncated.message();

  std::string altered = content;
  altered[1500] ^= 1;
  write(altered);
  Status changed = checkCodeLibrary(read->code);
  EXPECT_EQ(changed.code(), StatusCode::DataLoss);
  EXPECT_NE(changed.message().find("does not have the checksum"),
            std::string::npos)
      << changed.message();

  std::remove(library.c_str());
  EXPECT_EQ(checkCodeLibrary(read->code).code(), StatusCode::NotFound);

  write(content);
  PlanCode unrecorded = read->code;
  unrecorded.librarySize = 0;
  Status older = checkCodeLibrary(unrecorded);
  EXPECT_EQ(older.code(), StatusCode::DataLoss);
  EXPECT_NE(older.message().find("records no size or checksum"),
            std::string::npos)
      << older.message();
  std::remove(library.c_str());
}

TEST(PlanFormatTest, ChecksumMismatchIsNamed) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  bytes.back() ^= 0xff;
  expectRejected(bytes, StatusCode::DataLoss,
                 "test.plan: corrupt plan: checksum");
}

TEST(PlanFormatTest, TrailingBytesAreRejected) {
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  bytes.push_back(0);
  expectRejected(bytes, StatusCode::DataLoss, "test.plan: corrupt plan");
}

TEST(PlanFormatTest, InvalidPlanWithValidChecksum) {
  Plan plan = makeLeastSquaresPlan();
  plan.kernels[1].inputs[0] = 999;
  expectRejected(serializePlan(plan), StatusCode::InvalidArgument,
                 "test.plan: invalid plan: kernel #1 (train.sub): input 0");
}

TEST(PlanFormatTest, HugeCountsDoNotAllocate) {
  // A tensor count of 2^32 - 1 in a payload of a few bytes, with a valid
  // checksum: the parser must refuse before resizing anything.
  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  size_t countAt = 32 + 4 + std::strlen("mixed_float16") + 8;
  uint32_t count;
  std::memcpy(&count, bytes.data() + countAt, 4);
  ASSERT_EQ(count, makeLeastSquaresPlan().tensors.size());
  count = UINT32_MAX;
  std::memcpy(bytes.data() + countAt, &count, 4);
  fixChecksum(bytes);
  expectRejected(bytes, StatusCode::DataLoss, "bad tensor count");
}

TEST(PlanFormatTest, HostilePayloadsNeverCrash) {
  // Random damage behind a recomputed checksum exercises every bounds check
  // of the payload parser and then validate().
  std::vector<uint8_t> bytes = serializePlan(richPlan());
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> damaged = bytes;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = 32 + rng() % (damaged.size() - 32);
      switch (rng() % 3) {
      case 0:
        damaged[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        damaged[at] = static_cast<uint8_t>(rng());
        break;
      default: // a big little-endian number where a count may be
        for (size_t i = at; i < std::min(at + 4, damaged.size()); ++i)
          damaged[i] = 0xff;
      }
    }
    uint64_t size = damaged.size() - 32;
    std::memcpy(damaged.data() + 16, &size, 8);
    fixChecksum(damaged);
    StatusOr<Plan> parsed = parsePlan(damaged, "fuzz.plan");
    if (parsed.isOk()) {
      ++accepted; // harmless edits (a name, a float) are fine
      EXPECT_TRUE(parsed->validate().isOk());
      EXPECT_EQ(serializePlan(*parsed), damaged);
    } else {
      EXPECT_EQ(parsed.status().message().rfind("fuzz.plan: ", 0), 0u);
    }
  }
  EXPECT_LT(accepted, 20000);
}

TEST(PlanFormatTest, FileRoundTrip) {
  ScopedTempDir dir;
  std::string path = dir.path("step.plan");
  Plan plan = richPlan();
  ASSERT_TRUE(writePlanFile(plan, path).isOk());
  StatusOr<Plan> read = readPlanFile(path);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(serializePlan(*read), serializePlan(plan));
  // Overwriting is atomic and leaves no temporary file behind.
  plan.policy = "float32";
  ASSERT_TRUE(writePlanFile(plan, path).isOk());
  EXPECT_EQ(readPlanFile(path)->policy, "float32");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"step.plan"});
}

TEST(PlanFormatTest, FileErrorsNameThePath) {
  ScopedTempDir dir;
  StatusOr<Plan> missing = readPlanFile(dir.path("none.plan"));
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_NE(missing.status().message().find(dir.path("none.plan")),
            std::string::npos);

  StatusOr<Plan> directory = readPlanFile(dir.root());
  ASSERT_FALSE(directory.isOk());
  EXPECT_NE(directory.status().message().find("not a regular file"),
            std::string::npos);

  Plan invalid = makeLeastSquaresPlan();
  invalid.results.clear();
  Status written = writePlanFile(invalid, dir.path("bad.plan"));
  ASSERT_FALSE(written.isOk());
  EXPECT_NE(written.message().find("refusing to write an invalid plan"),
            std::string::npos);
  EXPECT_TRUE(dir.files().empty());

  Status noDir =
      writePlanFile(makeLeastSquaresPlan(), dir.path("no/such/dir/x.plan"));
  ASSERT_FALSE(noDir.isOk());
  EXPECT_EQ(noDir.code(), StatusCode::NotFound);
}

} // namespace
