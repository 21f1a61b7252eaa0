//===- CExampleTest.cpp - the C embedding example runs --------------------===//
//
// Writes the least-squares plan (standing in for mp-compile's output) and
// runs examples/c/embed.c on it: training, loss-scaler statistics, and a
// checkpoint resumed bit for bit, all through the C API.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>

#ifndef MP_EMBED_EXAMPLE
#error "MP_EMBED_EXAMPLE must name the example binary"
#endif

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// Runs `command`, returning its exit status and (in `output`) what it
/// printed on stdout and stderr.
int run(const std::string &command, std::string &output) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CExampleTest, TrainsAndResumes) {
  ScopedTempDir dir;
  std::string plan = dir.path("least-squares.mpplan");
  ASSERT_TRUE(writePlanFile(makeLeastSquaresPlan(), plan).isOk());
  std::string output;
  int status = run(std::string(MP_EMBED_EXAMPLE) + " " + plan + " 30 " +
                       dir.path("ckpt.safetensors"),
                   output);
  EXPECT_EQ(status, 0) << output;
  // The default backend: cpu where oneDNN loads.
  EXPECT_NE(output.find(cpuBackendStatus().isOk() ? "backend: cpu"
                                                  : "backend: reference"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("param      w                            f32[3, 2]"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("step  29  loss "), std::string::npos) << output;
  EXPECT_NE(output.find("steps run: 30, skipped: 0, last overflow: -1, "
                        "loss scale: 4096"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("resumed step matches"), std::string::npos) << output;
}

TEST(CExampleTest, ReportsErrors) {
  ScopedTempDir dir;
  std::string output;
  int status = run(
      std::string(MP_EMBED_EXAMPLE) + " " + dir.path("none.mpplan"), output);
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("embed: mp_plan_load failed (code 2): cannot open '" +
                        dir.path("none.mpplan") + "'"),
            std::string::npos)
      << output;
  output.clear();
  EXPECT_EQ(run(MP_EMBED_EXAMPLE, output), 2);
  EXPECT_NE(output.find("usage: embed PLAN"), std::string::npos);
}

} // namespace
