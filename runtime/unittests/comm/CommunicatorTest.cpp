//===- CommunicatorTest.cpp - the ranks of a data-parallel step -----------===//
//
// Single*: in one process. Mpi*: under mpirun (ctest communicator/mpi-N):
// every rank runs the same tests, which check values that depend on the
// rank and the world size.
//
//===----------------------------------------------------------------------===//

#include "mp/runtime/Communicator.h"
#include "TestPlans.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace mp::rt;

namespace {

/// The status code of starting a one-element reduction (a refusal's).
StatusCode startCode(Communicator &comm, void *data, DType dtype, ReduceOp op) {
  return comm.startAllReduce(data, 1, dtype, op).status().code();
}

TEST(SingleProcessTest, ReductionsAreTheIdentity) {
  std::unique_ptr<Communicator> single = singleProcessCommunicator();
  EXPECT_STREQ(single->name(), "single");
  EXPECT_EQ(single->rank(), 0);
  EXPECT_EQ(single->size(), 1);
  std::vector<float> values = {1.5f, -2.0f};
  StatusOr<Communicator::Request> started =
      single->startAllReduce(values.data(), 2, DType::F32, ReduceOp::Sum);
  ASSERT_TRUE(started.isOk());
  single->progress();
  EXPECT_TRUE(single->wait(*started).isOk());
  EXPECT_EQ(values, (std::vector<float>{1.5f, -2.0f}));
  EXPECT_TRUE(single->agree(42, "the plan").isOk());
  // ZeRO-1's: one rank's block is the whole.
  std::vector<float> shard(2, 0.0f);
  StatusOr<Communicator::Request> scattered = single->startReduceScatter(
      values.data(), shard.data(), 2, ReduceOp::Mean);
  ASSERT_TRUE(scattered.isOk());
  EXPECT_TRUE(single->wait(*scattered).isOk());
  EXPECT_EQ(shard, values);
  std::vector<float> gathered(2, 0.0f);
  StatusOr<Communicator::Request> gather =
      single->startAllGather(values.data(), gathered.data(), 8);
  ASSERT_TRUE(gather.isOk());
  EXPECT_TRUE(single->wait(*gather).isOk());
  EXPECT_EQ(gathered, values);
  EXPECT_EQ(startCode(*single, values.data(), DType::F16, ReduceOp::Sum),
            StatusCode::Unimplemented);
}

TEST(SingleProcessTest, WithoutALauncherTheProcessIsAlone) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE"))
    GTEST_SKIP() << "started by a launcher";
  StatusOr<std::unique_ptr<Communicator>> chosen =
      communicatorFromEnvironment();
  ASSERT_TRUE(chosen.isOk()) << chosen.status().message();
  EXPECT_STREQ((*chosen)->name(), "single");
}

TEST(SingleProcessTest, StartedByMpirunWithoutMpiIsRefused) {
  std::string why;
  if (mpiAvailable(&why))
    GTEST_SKIP() << "this build has MPI";
  EXPECT_NE(why.find("no MPI"), std::string::npos) << why;
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  StatusOr<std::unique_ptr<Communicator>> chosen =
      communicatorFromEnvironment();
  unsetenv("OMPI_COMM_WORLD_SIZE");
  ASSERT_FALSE(chosen.isOk());
  EXPECT_EQ(chosen.status().code(), StatusCode::Unimplemented);
  EXPECT_NE(chosen.status().message().find("each rank would train alone"),
            std::string::npos)
      << chosen.status().message();
}

#ifdef MP_HAVE_MPI

/// The communicator of this mpirun job, made once (MPI is initialized once
/// per process).
Communicator &world() {
  static std::unique_ptr<Communicator> made = [] {
    StatusOr<std::unique_ptr<Communicator>> chosen =
        communicatorFromEnvironment();
    if (!chosen.isOk()) {
      ADD_FAILURE() << chosen.status().message();
      return singleProcessCommunicator();
    }
    return std::move(*chosen);
  }();
  return *made;
}

TEST(MpiTest, TheLaunchersWorld) {
  Communicator &comm = world();
  EXPECT_STREQ(comm.name(), "mpi");
  const char *size = std::getenv("OMPI_COMM_WORLD_SIZE");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(comm.size(), std::atoi(size));
  EXPECT_EQ(comm.rank(), std::atoi(std::getenv("OMPI_COMM_WORLD_RANK")));
}

/// A session of `plan` on `backend` whose collectives run on MPI's
/// communicator; null (with a test failure) if either cannot be made.
std::unique_ptr<Session> sessionOnTheRanks(mp::rt::Plan plan,
                                           const std::string &backend) {
  StatusOr<std::unique_ptr<Session>> created =
      Session::create(std::move(plan), backend);
  EXPECT_TRUE(created.isOk()) << created.status().message();
  StatusOr<std::unique_ptr<Communicator>> own = mpiCommunicator();
  EXPECT_TRUE(own.isOk());
  if (!created.isOk() || !own.isOk())
    return nullptr;
  Status set = (*created)->setCommunicator(std::move(*own));
  EXPECT_TRUE(set.isOk()) << set.message();
  return set.isOk() ? std::move(*created) : nullptr;
}

TEST(MpiTest, SumsAndMaxima) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  // Several reductions in flight at once, finished in another order.
  std::vector<float> f = {float(r), 1.0f, 0.25f * float(r + 1)};
  std::vector<int64_t> big = {int64_t(1) << (40 + r), -int64_t(r)};
  std::vector<uint8_t> verdict = {uint8_t(r == n - 1 ? 1 : 0)};
  std::vector<float> peak = {float(r) * 3.0f};
  auto a = comm.startAllReduce(f.data(), f.size(), DType::F32, ReduceOp::Sum);
  auto b =
      comm.startAllReduce(big.data(), big.size(), DType::I64, ReduceOp::Sum);
  auto c = comm.startAllReduce(verdict.data(), 1, DType::I1, ReduceOp::Max);
  auto d = comm.startAllReduce(peak.data(), 1, DType::F32, ReduceOp::Max);
  // A mean: the sum divided by the ranks when the wait sees it.
  std::vector<float> mean = {float(r + 1), 2.0f};
  auto e = comm.startAllReduce(mean.data(), 2, DType::F32, ReduceOp::Mean);
  ASSERT_TRUE(a.isOk() && b.isOk() && c.isOk() && d.isOk() && e.isOk());
  comm.progress();
  ASSERT_TRUE(comm.wait(*e).isOk());
  EXPECT_EQ(mean,
            (std::vector<float>{float(n * (n + 1) / 2) / float(n), 2.0f}));
  ASSERT_TRUE(comm.wait(*d).isOk());
  ASSERT_TRUE(comm.wait(*b).isOk());
  ASSERT_TRUE(comm.wait(*a).isOk());
  ASSERT_TRUE(comm.wait(*c).isOk());
  float ranks = float(n * (n - 1) / 2);
  EXPECT_EQ(f, (std::vector<float>{ranks, float(n), 0.25f * (ranks + n)}));
  int64_t powers = 0;
  for (int i = 0; i < n; ++i)
    powers += int64_t(1) << (40 + i);
  EXPECT_EQ(big, (std::vector<int64_t>{powers, -int64_t(ranks)}));
  EXPECT_EQ(verdict[0], 1);
  EXPECT_EQ(peak[0], float(n - 1) * 3.0f);
  EXPECT_EQ(startCode(comm, f.data(), DType::I1, ReduceOp::Sum),
            StatusCode::Unimplemented);
  EXPECT_EQ(startCode(comm, big.data(), DType::I64, ReduceOp::Mean),
            StatusCode::Unimplemented);
}

TEST(MpiTest, AgreementNamesTheRankThatDiffers) {
  Communicator &comm = world();
  EXPECT_TRUE(comm.agree(0x5eed, "plan hash").isOk());
  Status differs = comm.agree(comm.rank() == 1 ? 7 : 3, "plan hash");
  ASSERT_FALSE(differs.isOk());
  EXPECT_EQ(differs.message(), "rank 1 has another plan hash (7) than rank 0 "
                               "(3): every rank must run the same");
}

/// A rank that does not arrive: the others' wait ends at the deadline with
/// an error naming it; when it arrives later, the collective completes.
TEST(MpiTest, AWaitEndsAtItsDeadline) {
  Communicator &comm = world();
  std::vector<float> value = {1.0f};
  auto saved = comm.timeout();
  comm.setTimeout(std::chrono::milliseconds(200));
  if (comm.rank() == 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto started =
      comm.startAllReduce(value.data(), 1, DType::F32, ReduceOp::Sum);
  ASSERT_TRUE(started.isOk());
  if (comm.rank() != 1) {
    Status late = comm.wait(*started);
    ASSERT_FALSE(late.isOk());
    EXPECT_NE(late.message().find("did not complete within 0.2"),
              std::string::npos)
        << late.message();
    // The ranks that timed out tell each other so: rank 1 is the one
    // missing.
    EXPECT_NE(late.message().find(
                  "rank 1 did not reach it within the timeout: died or hangs"),
              std::string::npos)
        << late.message();
  }
  comm.setTimeout(saved);
  ASSERT_TRUE(comm.wait(*started).isOk());
  EXPECT_EQ(value[0], float(comm.size()));
}

/// A broadcast gives every rank rank 0's bytes, of any dtype.
TEST(MpiTest, BroadcastsRank0s) {
  Communicator &comm = world();
  int r = comm.rank();
  std::vector<int64_t> counters = {100 + r, -r};
  std::vector<float> stats = {0.5f * float(r), 3.0f};
  auto a = comm.startBroadcast(counters.data(), 16, 0);
  auto b = comm.startBroadcast(stats.data(), 8, 0);
  ASSERT_TRUE(a.isOk() && b.isOk());
  comm.progress();
  ASSERT_TRUE(comm.wait(*b).isOk());
  ASSERT_TRUE(comm.wait(*a).isOk());
  EXPECT_EQ(counters, (std::vector<int64_t>{100, 0}));
  EXPECT_EQ(stats, (std::vector<float>{0.0f, 3.0f}));
  EXPECT_EQ(comm.startBroadcast(stats.data(), 8, comm.size()).status().code(),
            StatusCode::InvalidArgument);
}

/// ZeRO-1's collectives: a reduce-scatter leaves rank r the sum (or the
/// mean) of every rank's block r; an all-gather puts rank r's bytes at r x
/// bytesPerRank; all in flight at once. An and of verdicts: their minimum.
TEST(MpiTest, ReduceScattersAndGathers) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  // Block q of rank r: {10 q + r, 1}.
  std::vector<float> send, sums(2, -1.0f);
  for (int q = 0; q < n; ++q)
    send.insert(send.end(), {float(10 * q + r), 1.0f});
  std::vector<int32_t> mine = {r, -r, 7}, all(3 * n, -1);
  std::vector<float> means(2, -1.0f);
  uint8_t verdict = r == n - 1 ? 0 : 1;
  auto scatter =
      comm.startReduceScatter(send.data(), sums.data(), 2, ReduceOp::Sum);
  auto mean =
      comm.startReduceScatter(send.data(), means.data(), 2, ReduceOp::Mean);
  auto gather = comm.startAllGather(mine.data(), all.data(), 12);
  auto both = comm.startAllReduce(&verdict, 1, DType::I1, ReduceOp::Min);
  ASSERT_TRUE(scatter.isOk() && mean.isOk() && gather.isOk() && both.isOk());
  comm.progress();
  ASSERT_TRUE(comm.wait(*gather).isOk());
  ASSERT_TRUE(comm.wait(*mean).isOk());
  ASSERT_TRUE(comm.wait(*scatter).isOk());
  ASSERT_TRUE(comm.wait(*both).isOk());
  EXPECT_EQ(verdict, 0);
  float ranks = float(n * (n - 1) / 2);
  EXPECT_EQ(sums, (std::vector<float>{float(10 * r * n) + ranks, float(n)}));
  EXPECT_EQ(means, (std::vector<float>{
                       (float(10 * r * n) + ranks) * (1.0f / float(n)), 1.0f}));
  for (int q = 0; q < n; ++q)
    EXPECT_EQ(
        std::vector<int32_t>(all.begin() + 3 * q, all.begin() + 3 * q + 3),
        (std::vector<int32_t>{q, -q, 7}))
        << q;
}

/// bf16 sums: exact where the sum is representable, and rounded to bf16
/// (nearest even) where it is not; the same on every rank.
TEST(MpiTest, SumsBf16) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  // rank + 1 (exact sums); 1 on rank 0 and 2^-10 elsewhere: 1 plus at most
  // 3 * 2^-10, under half of bf16's 2^-7 step at 1, rounds to 1 in any
  // order (n <= 4); 257 on every rank, a tie rounded to the even 256 on
  // the way in, whose sums are exact.
  std::vector<uint16_t> values = {
      floatToBFloat16(float(r + 1)),
      floatToBFloat16(r == 0 ? 1.0f : 1.0f / 1024.0f), floatToBFloat16(257.0f)};
  auto started = comm.startAllReduce(values.data(), values.size(), DType::BF16,
                                     ReduceOp::Sum);
  ASSERT_TRUE(started.isOk()) << started.status().message();
  ASSERT_TRUE(comm.wait(*started).isOk());
  EXPECT_EQ(bfloat16ToFloat(values[0]), float(n * (n + 1) / 2));
  EXPECT_EQ(bfloat16ToFloat(values[1]), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(values[2]), 256.0f * float(n));
  EXPECT_EQ(startCode(comm, values.data(), DType::BF16, ReduceOp::Max),
            StatusCode::Unimplemented);
}

/// A step whose reduction sends bf16: each rank's operand divided by the
/// ranks and rounded to bf16 once, then summed; equal operands on every
/// rank (n a power of two) sum exactly, so the result is n * bf16(x / n).
TEST(MpiTest, SessionReducesInBf16) {
  Communicator &comm = world();
  int n = comm.size();
  std::unique_ptr<Session> made = sessionOnTheRanks(
      mp::rt::testing::makeAllReducePlan(DType::F32, "bf16"), "default");
  ASSERT_TRUE(made);
  Session &session = *made;
  const int64_t shape[] = {2, 3};
  std::vector<float> x = {1.0f / 3.0f, -2.7f, 3.14159f, 1e-3f, 4.0f, -1.01f};
  ASSERT_TRUE(
      session.setTensor("x", DType::F32, shape, 2, x.data(), 24).isOk());
  float loss = 0;
  ASSERT_TRUE(session.runStep(&loss).isOk());
  std::vector<float> got(6);
  ASSERT_TRUE(session.getTensor("r", got.data(), 24).isOk());
  for (int i = 0; i < 6; ++i) {
    float part = bfloat16ToFloat(floatToBFloat16(x[i] / float(n)));
    EXPECT_EQ(got[i], part * float(n)) << i;
    EXPECT_NEAR(got[i], x[i], std::abs(x[i]) * 0x1p-8f) << i;
  }
  EXPECT_GE(session.collectiveWaitSeconds(), 0.0);
}

/// A step with a train.all_reduce on every rank: its result is the mean of
/// the ranks' operands, on the reference and the cpu backend, step after
/// step; the kernels after it read the mean (they run after the wait).
TEST(MpiTest, SessionAveragesAcrossRanks) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  for (const std::string &backend :
       {std::string("reference"), std::string("default")}) {
    std::unique_ptr<Session> made =
        sessionOnTheRanks(mp::rt::testing::makeAllReducePlan(), backend);
    ASSERT_TRUE(made);
    Session &session = *made;
    const int64_t shape[] = {2, 3};
    for (int step = 0; step < 3; ++step) {
      std::vector<float> x = {1, -2, 3, 0.5f, 4, -1};
      for (float &v : x)
        v *= float(r + 1 + step);
      ASSERT_TRUE(
          session.setTensor("x", DType::F32, shape, 2, x.data(), 24).isOk());
      float loss = 0;
      ASSERT_TRUE(session.runStep(&loss).isOk());
      // mean over ranks of (r + 1 + step) = (n + 1) / 2 + step
      float factor = float(n + 1) / 2.0f + float(step);
      std::vector<float> want = {1, -2, 3, 0.5f, 4, -1}, got(6);
      float sum = 0;
      for (float &v : want) {
        v *= factor;
        sum += v * v;
      }
      ASSERT_TRUE(session.getTensor("r", got.data(), 24).isOk());
      for (int i = 0; i < 6; ++i)
        EXPECT_FLOAT_EQ(got[i], want[i]) << backend << " step " << step;
      EXPECT_FLOAT_EQ(loss, sum) << backend;
    }
    // The replay would run the reductions on one rank alone.
    Status replay = session.runStepWatched([](size_t) { return true; });
    EXPECT_EQ(replay.code(), StatusCode::Unimplemented);
  }
}

/// A reduction read through a view (a reshape that is not run): the step
/// waits for it at the view, so the kernel after reads the mean.
TEST(MpiTest, AViewOfAReductionWaitsForIt) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  Plan plan = mp::rt::testing::makeAllReduceViewPlan();
  ASSERT_TRUE(plan.kernels[1].isView());
  std::unique_ptr<Session> made = sessionOnTheRanks(std::move(plan), "default");
  ASSERT_TRUE(made);
  const int64_t shape[] = {2, 3};
  std::vector<float> base = {1, -2, 3, 0.5f, 4, -1}, x = base;
  for (float &v : x)
    v *= float(r + 1);
  ASSERT_TRUE(made->setTensor("x", DType::F32, shape, 2, x.data(), 24).isOk());
  float loss = 0;
  ASSERT_TRUE(made->runStep(&loss).isOk());
  float mean = float(n + 1) / 2.0f, want = 0;
  for (float v : base)
    want += v * mean * v * mean;
  EXPECT_FLOAT_EQ(loss, want);
}

/// ZeRO-1's kernels in a step, 5 elements over N ranks (uneven: padded):
/// rank r's shard of its x, plus its shard of the mean of every rank's x,
/// gathered whole on every rank; a verdict false on one rank is false on
/// all. The same plan on another number of ranks is refused.
TEST(MpiTest, SessionRunsZero1Kernels) {
  Communicator &comm = world();
  int r = comm.rank(), n = comm.size();
  for (const std::string &backend :
       {std::string("reference"), std::string("default")}) {
    std::unique_ptr<Session> made =
        sessionOnTheRanks(mp::rt::testing::makeZero1Plan(n), backend);
    ASSERT_TRUE(made);
    Session &session = *made;
    EXPECT_EQ(session.shardedOver(), n);
    const int64_t shape[] = {5};
    std::vector<float> base = {1, -2, 3, 0.5f, 4}, x = base;
    for (float &v : x)
      v *= float(r + 1);
    for (uint8_t everyone : {1, 0}) {
      // False on the last rank only when `everyone` is 0.
      uint8_t ok = everyone || r != n - 1;
      ASSERT_TRUE(
          session.setTensor("x", DType::F32, shape, 1, x.data(), 20).isOk());
      ASSERT_TRUE(
          session.setTensor("ok", DType::I1, nullptr, 0, &ok, 1).isOk());
      float loss = 0;
      Status ran = session.runStep(&loss);
      ASSERT_TRUE(ran.isOk()) << ran.message();
      std::vector<float> w(5);
      uint8_t all = 2;
      ASSERT_TRUE(session.getTensor("w", w.data(), 20).isOk());
      ASSERT_TRUE(session.getTensor("all", &all, 1).isOk());
      int64_t s = (5 + n - 1) / n;
      float mean = float(n + 1) / 2.0f;
      for (int64_t e = 0; e < 5; ++e) {
        float owner = float(e / s + 1);
        EXPECT_FLOAT_EQ(w[e], base[e] * (owner + mean)) << backend << e;
      }
      EXPECT_EQ(all, everyone) << backend;
    }
  }
  std::unique_ptr<Session> other =
      sessionOnTheRanks(mp::rt::testing::makeZero1Plan(n + 1), "reference");
  ASSERT_TRUE(other);
  Status refused = other->runStep(nullptr);
  EXPECT_EQ(refused.code(), StatusCode::InvalidArgument);
  EXPECT_NE(refused.message().find("shards its optimizer state over " +
                                   std::to_string(n + 1) + " ranks"),
            std::string::npos)
      << refused.message();
}

#endif // MP_HAVE_MPI

} // namespace
