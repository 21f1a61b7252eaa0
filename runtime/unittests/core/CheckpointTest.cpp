//===- CheckpointTest.cpp - saving, restoring and resuming ----------------===//
#include "mp/runtime/Checkpoint.h"
#include "TestPlans.h"
#include "mp/runtime/Safetensors.h"
#include "plan/FileIO.h"
#include "support/Hash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

std::unique_ptr<Session> makeSession(const std::string &backend,
                                     const LeastSquaresOptions &options = {}) {
  return createTestSession(makeLeastSquaresPlan(options), backend);
}

/// Step `step` of the least-squares model; steps 3 and 8 overflow.
float runStep(Session &session, int step) {
  std::vector<float> x = leastSquaresX(step), t = leastSquaresT(step);
  if (step == 3 || step == 8)
    x[step] = std::numeric_limits<float>::infinity();
  bindLeastSquaresBatch(session, x, t);
  float loss = 0;
  Status status = session.runStep(&loss);
  EXPECT_TRUE(status.isOk()) << status.message();
  return loss;
}

/// Every persistent tensor's bytes, by name.
std::map<std::string, std::vector<uint8_t>> snapshot(const Session &session) {
  std::map<std::string, std::vector<uint8_t>> state;
  for (const TensorInfo &info : session.tensors())
    if (!info.isOutput && isPersistent(info.kind)) {
      const auto *data = static_cast<const uint8_t *>(session.tensorData(info));
      state[info.name].assign(data, data + info.byteSize);
    }
  return state;
}

void expectSameStats(const ScalerStats &a, const ScalerStats &b) {
  EXPECT_EQ(a.stepsRun, b.stepsRun);
  EXPECT_EQ(a.stepsSkipped, b.stepsSkipped);
  EXPECT_EQ(a.lastOverflowStep, b.lastOverflowStep);
  EXPECT_EQ(a.scale, b.scale);
}

bool contains(const Status &status, const std::string &text) {
  return status.message().find(text) != std::string::npos;
}

class CheckpointTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointTest, SaveLoadRoundTrip) {
  ScopedTempDir dir;
  std::string path = dir.path("ckpt.safetensors");
  auto a = makeSession(GetParam());
  for (int step = 0; step < 5; ++step)
    runStep(*a, step);
  ASSERT_TRUE(saveCheckpoint(*a, path).isOk());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});

  StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
  ASSERT_TRUE(file.isOk()) << file.status().message();
  std::map<std::string, std::string> expected = {
      {"format", "mp.checkpoint"},
      {"format_version", "1"},
      {"step", "5"},
      {"policy", "mixed_float16"},
      {"plan_hash", hex64(a->planHash())},
      {"steps_skipped", "1"},
      {"last_overflow_step", "3"},
      {"scaler_state", R"(["loss_scale","loss_scale.growth_count"])"},
  };
  for (const auto &[key, value] : expected)
    EXPECT_EQ(file->metadata[key], value) << key;
  EXPECT_EQ(file->tensors.size(), 4u); // w, its momentum, the scaler's two

  auto b = makeSession(GetParam());
  Status loaded = loadCheckpoint(*b, path);
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  EXPECT_EQ(snapshot(*b), snapshot(*a));
  expectSameStats(b->scalerStats(), a->scalerStats());
  // 4, grown to 8 after three finite steps, backed off to 4 at step 3.
  EXPECT_EQ(b->scalerStats().scale, 4.0f);
}

TEST_P(CheckpointTest, ResumeIsBitwiseIdentical) {
  ScopedTempDir dir;
  std::string path = dir.path("ckpt.safetensors");
  // Uninterrupted: 12 steps, a checkpoint after 5 (one overflow behind it,
  // another ahead).
  auto a = makeSession(GetParam());
  std::vector<float> losses;
  for (int step = 0; step < 12; ++step) {
    if (step == 5) {
      ASSERT_TRUE(saveCheckpoint(*a, path).isOk());
    }
    losses.push_back(runStep(*a, step));
  }
  // Resumed in a new session.
  auto b = makeSession(GetParam());
  ASSERT_TRUE(loadCheckpoint(*b, path).isOk());
  for (int step = 5; step < 12; ++step) {
    float loss = runStep(*b, step);
    EXPECT_EQ(std::memcmp(&loss, &losses[step], sizeof(float)), 0)
        << "step " << step << ": " << loss << " vs " << losses[step];
  }
  EXPECT_EQ(snapshot(*b), snapshot(*a));
  expectSameStats(b->scalerStats(), a->scalerStats());
  EXPECT_EQ(b->scalerStats().stepsSkipped, 2);
  EXPECT_EQ(b->scalerStats().lastOverflowStep, 8);
}

INSTANTIATE_TEST_SUITE_P(Backends, CheckpointTest,
                         ::testing::ValuesIn(testBackendNames()));

/// Fixture: a checkpoint of the least-squares model after 4 steps, and the
/// state it holds.
class CheckpointFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    path = dir.path("ckpt.safetensors");
    session = makeSession("fake");
    for (int step = 0; step < 4; ++step)
      runStep(*session, step);
    ASSERT_TRUE(saveCheckpoint(*session, path).isOk());
    saved = snapshot(*session);
    savedStats = session->scalerStats();
  }

  /// A session whose state is not the checkpoint's, and must not change
  /// when a load fails.
  std::unique_ptr<Session> other(const LeastSquaresOptions &options = {}) {
    auto s = makeSession("fake", options);
    runStep(*s, 0);
    return s;
  }

  void expectLoadFails(Session &s, const std::string &file, StatusCode code,
                       const std::string &message,
                       const CheckpointLoadOptions &options = {}) {
    auto before = snapshot(s);
    ScalerStats stats = s.scalerStats();
    Status status = loadCheckpoint(s, file, options);
    ASSERT_FALSE(status.isOk());
    EXPECT_EQ(status.code(), code) << status.message();
    EXPECT_TRUE(contains(status, message))
        << "expected: " << message << "\n     got: " << status.message();
    EXPECT_EQ(snapshot(s), before);
    expectSameStats(s.scalerStats(), stats);
  }

  /// Rewrites the checkpoint with other tensors and the same metadata.
  void rewrite(const std::string &to,
               const std::vector<SafetensorsTensor> &tensors,
               std::map<std::string, std::string> metadata = {}) {
    StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
    ASSERT_TRUE(file.isOk());
    std::map<std::string, std::string> meta = file->metadata;
    for (const auto &[key, value] : metadata)
      meta[key] = value;
    ASSERT_TRUE(writeSafetensorsFile(to, tensors, meta).isOk());
  }

  ScopedTempDir dir;
  std::string path;
  std::unique_ptr<Session> session;
  std::map<std::string, std::vector<uint8_t>> saved;
  ScalerStats savedStats;
};

TEST_F(CheckpointFileTest, KilledWriterLeavesTheOldCheckpoint) {
  // A child process trains on and starts to save, but the kernel kills it
  // mid-write (a file-size limit raises SIGXFSZ): a half-written temporary
  // file stays behind, the checkpoint itself is untouched.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int step = 4; step < 7; ++step)
      runStep(*session, step);
    struct rlimit limit = {100, 100};
    setrlimit(RLIMIT_FSIZE, &limit);
    (void)saveCheckpoint(*session, path);
    _exit(0); // not reached: the write past 100 bytes kills the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child was not killed mid-write";
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);

  std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].rfind(".ckpt.safetensors.tmp-", 0), 0u) << files[0];
  EXPECT_EQ(readBytes(dir.path(files[0])).size(), 100u); // half-written
  EXPECT_EQ(files[1], "ckpt.safetensors");

  auto restored = makeSession("fake");
  Status loaded = loadCheckpoint(*restored, path);
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  EXPECT_EQ(snapshot(*restored), saved);
  expectSameStats(restored->scalerStats(), savedStats);
}

TEST_F(CheckpointFileTest, DeathBeforeTheRenameLeavesTheOldCheckpoint) {
  // The whole new file is written and flushed, then the process dies
  // before renaming it into place.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
        AtomicFileWriter::open(path);
    if (!writer.isOk())
      _exit(2);
    std::vector<uint8_t> junk(4096, 0xab);
    (void)(*writer)->write(junk.data(), junk.size());
    _exit(0); // no commit, no destructor
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(dir.files().size(), 2u);
  auto restored = makeSession("fake");
  ASSERT_TRUE(loadCheckpoint(*restored, path).isOk());
  EXPECT_EQ(snapshot(*restored), saved);
}

TEST_F(CheckpointFileTest, AbandonedWriterCleansUp) {
  {
    StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
        AtomicFileWriter::open(path);
    ASSERT_TRUE(writer.isOk());
    ASSERT_TRUE((*writer)->write("junk", 4).isOk());
    EXPECT_EQ(dir.files().size(), 2u);
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
  auto restored = makeSession("fake");
  ASSERT_TRUE(loadCheckpoint(*restored, path).isOk());
  EXPECT_EQ(snapshot(*restored), saved);
}

TEST_F(CheckpointFileTest, OverwriteReplacesTheCheckpoint) {
  runStep(*session, 4);
  ASSERT_TRUE(saveCheckpoint(*session, path).isOk());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
  auto restored = makeSession("fake");
  ASSERT_TRUE(loadCheckpoint(*restored, path).isOk());
  EXPECT_EQ(restored->scalerStats().stepsRun, 5);
  EXPECT_NE(snapshot(*restored), saved);
}

TEST_F(CheckpointFileTest, CorruptAndTruncatedFilesAreRejected) {
  std::vector<uint8_t> bytes = readBytes(path);
  auto s = other();
  std::string damaged = dir.path("damaged.safetensors");

  std::vector<uint8_t> flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x04; // in the data
  writeBytes(damaged, flipped);
  expectLoadFails(*s, damaged, StatusCode::DataLoss,
                  damaged + ": corrupt safetensors file: the checksum");

  // The checksum covers the metadata too: a damaged step counter is caught.
  std::string text(bytes.begin(), bytes.end());
  size_t step = text.find("\"step\":\"4\"");
  ASSERT_NE(step, std::string::npos);
  std::vector<uint8_t> counter = bytes;
  counter[step + 8] = '5';
  writeBytes(damaged, counter);
  expectLoadFails(*s, damaged, StatusCode::DataLoss,
                  damaged + ": corrupt safetensors file: the checksum");

  for (size_t size = 0; size < bytes.size(); size += 7) {
    writeBytes(damaged,
               std::vector<uint8_t>(bytes.begin(), bytes.begin() + size));
    expectLoadFails(*s, damaged, StatusCode::DataLoss, damaged + ": ");
  }

  expectLoadFails(*s, dir.path("missing.safetensors"), StatusCode::NotFound,
                  "missing.safetensors");
}

TEST_F(CheckpointFileTest, PlanHashMismatch) {
  LeastSquaresOptions options;
  options.lr = 0.02;
  auto s = other(options);
  expectLoadFails(*s, path, StatusCode::InvalidArgument,
                  "' was saved by plan " + hex64(session->planHash()) +
                      " (policy 'mixed_float16'), but this session runs plan " +
                      hex64(s->planHash()) +
                      " (policy 'mixed_float16'): the same model's tensors "
                      "under another plan (another policy or a recompiled "
                      "step). Resuming under another plan is allowed only "
                      "when asked for (CheckpointLoadOptions::ignorePlanHash; "
                      "mp-run --resume-other-plan)");
  CheckpointLoadOptions ignore;
  ignore.ignorePlanHash = true;
  Status loaded = loadCheckpoint(*s, path, ignore);
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  EXPECT_EQ(snapshot(*s), saved);
}

/// Another model's checkpoint is named as such, with its tensors' mismatch,
/// not as the same model under another plan.
TEST_F(CheckpointFileTest, AnotherModelsCheckpointIsNamedSo) {
  Plan plan = makeTwoReshapesPlan().plan;
  StatusOr<std::unique_ptr<Session>> made =
      Session::create(std::move(plan), createTestBackend("reference"));
  ASSERT_TRUE(made.isOk()) << made.status().message();
  Status status = loadCheckpoint(**made, path);
  ASSERT_FALSE(status.isOk());
  EXPECT_TRUE(contains(status, "and its tensors are another model's: "))
      << status.message();
  EXPECT_FALSE(contains(status, "the same model")) << status.message();
}

TEST_F(CheckpointFileTest, IgnorePlanHashAcrossPolicies) {
  CheckpointLoadOptions ignore;
  ignore.ignorePlanHash = true;
  // A loss-scaled checkpoint into a float32 plan: scaler state is ignored.
  LeastSquaresOptions plain;
  plain.lossScaling = false;
  auto s = other(plain);
  Status loaded = loadCheckpoint(*s, path, ignore);
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  auto state = snapshot(*s);
  EXPECT_EQ(state.size(), 2u);
  EXPECT_EQ(state["w"], saved["w"]);
  EXPECT_EQ(s->scalerStats().stepsRun, 4);

  // And back: the float32 checkpoint into the loss-scaled plan keeps the
  // plan's scaler state.
  std::string plainPath = dir.path("plain.safetensors");
  ASSERT_TRUE(saveCheckpoint(*s, plainPath).isOk());
  auto scaled = makeSession("fake");
  expectLoadFails(*scaled, plainPath, StatusCode::InvalidArgument,
                  "was saved by plan");
  ASSERT_TRUE(loadCheckpoint(*scaled, plainPath, ignore).isOk());
  EXPECT_EQ(snapshot(*scaled)["w"], saved["w"]);
  EXPECT_EQ(scaled->scalerStats().scale, 4.0f); // the initial scale
}

TEST_F(CheckpointFileTest, EveryMismatchIsReported) {
  float w[6] = {}, m[6] = {};
  uint16_t mb[6] = {};
  int64_t count = 0;
  std::string bad = dir.path("bad.safetensors");
  rewrite(bad, {{"w", DType::F32, {2, 3}, w, 24},
                {"w.momentum_buffer", DType::BF16, {3, 2}, mb, 12},
                {"loss_scale.growth_count", DType::I64, {}, &count, 8},
                {"bias", DType::F32, {6}, m, 24}});
  auto s = other();
  expectLoadFails(
      *s, bad, StatusCode::InvalidArgument,
      "'" + bad +
          "' does not match the plan: missing from the file: 'loss_scale'; "
          "not in the plan: 'bias'; mismatched: 'w' is F32[2, 3] in the file "
          "but F32[3, 2] in the plan, 'w.momentum_buffer' is BF16[3, 2] in "
          "the file but F32[3, 2] in the plan");
}

TEST_F(CheckpointFileTest, MetadataIsChecked) {
  auto s = other();
  std::string bad = dir.path("bad.safetensors");
  std::vector<SafetensorsTensor> none;

  ASSERT_TRUE(writeSafetensorsFile(bad, none, {}).isOk());
  expectLoadFails(*s, bad, StatusCode::InvalidArgument,
                  "is not an mp checkpoint (no \"format\": \"mp.checkpoint\" "
                  "metadata)");
  rewrite(bad, none, {{"format_version", "2"}});
  expectLoadFails(*s, bad, StatusCode::InvalidArgument,
                  "has checkpoint format version '2'; this runtime reads "
                  "version 1");
  rewrite(bad, none, {{"step", "four"}});
  expectLoadFails(*s, bad, StatusCode::DataLoss,
                  "checkpoint metadata 'step' is 'four', not an integer");
  rewrite(bad, none, {{"steps_skipped", "9"}});
  expectLoadFails(*s, bad, StatusCode::InvalidArgument, "does not match");

  // Counters that contradict each other are caught before any copy.
  StatusOr<SafetensorsFile> file = readSafetensorsFile(path);
  std::vector<SafetensorsTensor> tensors(file->tensors.begin(),
                                         file->tensors.end());
  rewrite(bad, tensors, {{"steps_skipped", "9"}});
  expectLoadFails(*s, bad, StatusCode::DataLoss,
                  "inconsistent step counters: 4 steps run, 9 skipped");
}

TEST_F(CheckpointFileTest, LoadParams) {
  // From a checkpoint: params only, nothing else.
  auto s = other();
  auto before = snapshot(*s);
  ASSERT_TRUE(loadParams(*s, path).isOk());
  auto after = snapshot(*s);
  EXPECT_EQ(after["w"], saved["w"]);
  EXPECT_EQ(after["w.momentum_buffer"], before["w.momentum_buffer"]);
  EXPECT_EQ(after["loss_scale"], before["loss_scale"]);
  EXPECT_EQ(s->scalerStats().stepsRun, 1);

  // From a plain safetensors file (a PyTorch state_dict).
  float w[6] = {1, 2, 3, 4, 5, 6}, extra[2] = {};
  std::string plain = dir.path("model.safetensors");
  ASSERT_TRUE(
      writeSafetensorsFile(plain, {{"w", DType::F32, {3, 2}, w, 24}}, {})
          .isOk());
  ASSERT_TRUE(loadParams(*s, plain).isOk());
  float read[6];
  ASSERT_TRUE(s->getTensor("w", read, 24).isOk());
  EXPECT_EQ(std::memcmp(read, w, 24), 0);

  ASSERT_TRUE(writeSafetensorsFile(plain,
                                   {{"w", DType::F32, {3, 2}, w, 24},
                                    {"fc.bias", DType::F32, {2}, extra, 8}},
                                   {})
                  .isOk());
  Status status = loadParams(*s, plain);
  EXPECT_EQ(status.message(), "'" + plain +
                                  "' does not match the plan: not in the plan: "
                                  "'fc.bias'");
  ASSERT_TRUE(
      writeSafetensorsFile(plain, {{"v", DType::F32, {2}, extra, 8}}, {})
          .isOk());
  status = loadParams(*s, plain);
  EXPECT_EQ(status.message(),
            "'" + plain +
                "' does not match the plan: missing from the file: "
                "'w'; not in the plan: 'v'");

  // An exporter's init file may start optimizer state away from 0 (timm's
  // RMSpropTF: square_avg of ones); it is loaded, unlike a checkpoint's.
  float ones[6] = {1, 1, 1, 1, 1, 1};
  ASSERT_TRUE(writeSafetensorsFile(plain,
                                   {{"w", DType::F32, {3, 2}, w, 24},
                                    {"w.momentum_buffer", DType::F32, {3, 2},
                                     ones, 24}},
                                   {})
                  .isOk());
  ASSERT_TRUE(loadParams(*s, plain).isOk());
  ASSERT_TRUE(s->getTensor("w.momentum_buffer", read, 24).isOk());
  EXPECT_EQ(std::memcmp(read, ones, 24), 0);
}

} // namespace
