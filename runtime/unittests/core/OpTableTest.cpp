//===- OpTableTest.cpp - the generated op table and the schema checks -----===//
#include "TestPlans.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

std::string schemaError(const KernelDesc &kernel) {
  Status status = checkKernelSchema(kernel);
  return status.isOk() ? "" : status.message();
}

TEST(OpTableTest, NamesAndIdsRoundTrip) {
  std::set<std::string> names;
  for (size_t i = 0; i < kNumOps; ++i) {
    OpId id = static_cast<OpId>(i);
    EXPECT_EQ(findOp(opName(id)), id) << opName(id);
    EXPECT_TRUE(names.insert(opName(id)).second) << opName(id);
    if (i > 0) {
      EXPECT_LT(std::strcmp(kOpSchemas[i - 1].name, kOpSchemas[i].name), 0);
    }
  }
  EXPECT_EQ(findOp("train.frobnicate"), OpId::Unknown);
  EXPECT_EQ(findOp("matmul"), OpId::Unknown);
  EXPECT_STREQ(opName(OpId::TrainMatmul), "train.matmul");
}

TEST(OpTableTest, EveryReferenceKernelIsAnOpOfTheTable) {
  for (const std::string &op : referenceBackendOps())
    EXPECT_NE(findOp(op), OpId::Unknown) << op;
  // Every op but the constant (a plan tensor) and the seven collectives
  // (run by the session's communicator) has a reference kernel.
  size_t collectives = 0;
  for (size_t i = 0; i < kNumOps; ++i)
    collectives += isCollectiveOp(static_cast<OpId>(i));
  EXPECT_EQ(collectives, 7u);
  EXPECT_EQ(referenceBackendOps().size(), kNumOps - 1 - collectives);
  EXPECT_EQ(findOp("train.all_reduce"), OpId::TrainAllReduce);
  EXPECT_EQ(findOp("train.rank_broadcast"), OpId::TrainRankBroadcast);
  for (const char *zero1 : {"train.reduce_scatter", "train.rank_shard",
                            "train.all_gather", "train.all_ranks"})
    EXPECT_TRUE(isCollectiveOp(findOp(zero1))) << zero1;
  EXPECT_FALSE(isCollectiveOp(OpId::TrainSgd));
}

TEST(OpTableTest, SchemasComeFromTheOds) {
  const OpSchema &conv = opSchema(OpId::TrainConv2d);
  EXPECT_EQ(conv.minInputs, 2);
  EXPECT_EQ(conv.maxInputs, 2);
  const AttrSchema *layout = findAttrSchema(OpId::TrainConv2d, "layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(layout->kind, AttrKind::String);
  ASSERT_EQ(layout->numEnumCases, 2u);
  EXPECT_STREQ(layout->enumCases[1], "NHWC");
  const AttrSchema *strides = findAttrSchema(OpId::TrainConv2d, "strides");
  ASSERT_NE(strides, nullptr);
  ASSERT_TRUE(strides->hasDefault);
  EXPECT_EQ(std::vector<int64_t>(strides->defaultInts,
                                 strides->defaultInts + strides->numDefaultInts),
            (std::vector<int64_t>{1, 1}));
  // The fused epilogue's bias is optional: 2 or 3 operands.
  const OpSchema &epilogue = opSchema(OpId::MpMatmulEpilogue);
  EXPECT_EQ(epilogue.minInputs, 2);
  EXPECT_EQ(epilogue.maxInputs, 3);
  EXPECT_FALSE(epilogue.variadicInputs);
  EXPECT_TRUE(opSchema(OpId::TrainConcat).variadicInputs);
  EXPECT_TRUE(opSchema(OpId::TrainAdamw).optimizer);
  EXPECT_FALSE(opSchema(OpId::TrainMatmul).optimizer);
  // An attribute or an operand: optional in the schema.
  EXPECT_FALSE(findAttrSchema(OpId::TrainSgd, "lr")->required);
  EXPECT_EQ(opSchema(OpId::TrainSgd).maxInputs, 3);
  EXPECT_TRUE(findAttrSchema(OpId::TrainSgdMomentum, "momentum")->required);
}

TEST(OpTableTest, AbsentAttributesReadAsTheirOdsDefault) {
  KernelDesc k{"train.softmax", {0}, {1}, {}};
  EXPECT_EQ(k.getInt(AttrName::axis, 99), -1);
  KernelDesc bn{"train.batch_norm", {0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {}};
  EXPECT_EQ(bn.getFloat(AttrName::epsilon, 99), 1e-5);
  KernelDesc conv{"train.conv2d", {0, 1}, {2}, {{"layout", str("NHWC")}}};
  ASSERT_NE(conv.getInts(AttrName::padding), nullptr);
  EXPECT_EQ(*conv.getInts(AttrName::padding), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(*conv.getString(AttrName::layout), "NHWC");
  KernelDesc epilogue{"mp.matmul_epilogue", {0, 1}, {2}, {}};
  EXPECT_EQ(*epilogue.getString(AttrName::activation), "none");
  EXPECT_FALSE(epilogue.getFlag(AttrName::transpose_lhs));
  // Present attributes win; names no schema has take the fallback.
  k.attrs["axis"] = ints({1});
  EXPECT_EQ(k.getInt(AttrName::axis, 99), 1);
  EXPECT_EQ(k.getInt(AttrName::momentum, 7), 7); // not one of its attributes
}

TEST(OpTableTest, KernelsAreCheckedAgainstTheirSchema) {
  EXPECT_EQ(schemaError({"train.matmul", {0, 1}, {2}, {}}), "");
  EXPECT_EQ(schemaError({"train.matmul", {0}, {2}, {}}),
            "'train.matmul' takes 2 operands; the kernel has 1");
  EXPECT_EQ(schemaError({"mp.matmul_epilogue", {0, 1, 2, 3}, {4}, {}}),
            "'mp.matmul_epilogue' takes 2 to 3 operands; the kernel has 4");
  EXPECT_EQ(schemaError({"train.add", {0, 1}, {}, {}}),
            "'train.add' has 1 results; the kernel has 0");
  EXPECT_EQ(schemaError({"train.matmul", {0, 1}, {2},
                         {{"tranpose_lhs", ints({1})}}}),
            "'train.matmul' has no attribute 'tranpose_lhs'");
  EXPECT_EQ(schemaError({"train.softmax", {0}, {1}, {{"axis", floats({1})}}}),
            "'train.softmax': attribute 'axis' must be an integer");
  EXPECT_EQ(schemaError({"train.conv2d", {0, 1}, {2}, {{"layout", str("NDHW")}}}),
            "'train.conv2d': attribute 'layout' is 'NDHW', not one of its "
            "enum's cases");
  EXPECT_EQ(schemaError({"train.conv2d", {0, 1}, {2}, {}}),
            "'train.conv2d' needs attribute 'layout'");
  EXPECT_EQ(schemaError({"train.constant", {}, {0}, {}}),
            "'train.constant' is a constant, which a plan holds as a constant "
            "tensor, not as a kernel");
  KernelDesc mislabelled{"train.add", {0, 1}, {2}, {}};
  mislabelled.id = OpId::TrainSub;
  EXPECT_EQ(schemaError(mislabelled),
            "'train.add' carries the id of 'train.sub'");
}

} // namespace
