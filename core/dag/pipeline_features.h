#pragma once
// PipelineFeatures v3 of one stage (Anderson2021 / Adams2019 Featurization.h):
// which scalar types the stage uses, then a 40 x 7 matrix of counts. Rows are
// the 24 op-histogram rows followed by 4 access-pattern groups x 4 access types;
// columns are the 7 scalar types. The cost model reads matrix[row][type].

#include <array>
#include <string>

namespace beamscope::dag {

enum class ScalarType { Bool, UInt8, UInt16, UInt32, UInt64, Float, Double };
constexpr int kScalarTypeCount = 7;

enum class OpType {
    Const,
    Cast,
    Variable,
    Param,
    Add,
    Sub,
    Mod,
    Mul,
    Div,
    Min,
    Max,
    EQ,
    NE,
    LT,
    LE,
    And,
    Or,
    Not,
    Select,
    ImageCall,
    FuncCall,
    SelfCall,
    ExternCall,
    Let
};
constexpr int kOpTypeCount = 24;

enum class AccessType { LoadFunc, LoadSelf, LoadImage, Store };
constexpr int kAccessTypeCount = 4;

enum class AccessPattern { Pointwise, Transpose, Broadcast, Slice };
constexpr int kAccessPatternCount = 4;

constexpr int kFeatureRows = kOpTypeCount + kAccessPatternCount * kAccessTypeCount; // 40

struct PipelineFeatures {
    std::array<int, kScalarTypeCount> typesInUse{};
    std::array<std::array<int, kScalarTypeCount>, kFeatureRows> matrix{};

    int &op(OpType op, ScalarType t) { return matrix[static_cast<int>(op)][static_cast<int>(t)]; }
    int &access(AccessPattern p, AccessType a, ScalarType t) { return matrix[accessRow(p, a)][static_cast<int>(t)]; }
    static int accessRow(AccessPattern p, AccessType a)
    {
        return kOpTypeCount + static_cast<int>(p) * kAccessTypeCount + static_cast<int>(a);
    }
    bool operator==(const PipelineFeatures &) const = default;
};

// "Const" ... "Let", then "pointwise.LoadFunc" ... "slice.Store" (HALIDE-FACTS.md order).
std::string featureRowName(int row);
// "Bool", "UInt8", "UInt16", "UInt32", "UInt64", "Float", "Double".
const char *scalarTypeName(int column);

} // namespace beamscope::dag
