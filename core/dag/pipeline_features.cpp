#include "core/dag/pipeline_features.h"

namespace beamscope::dag {

std::string featureRowName(int row)
{
    static const char *const ops[kOpTypeCount] = {"Const",  "Cast",      "Variable", "Param",    "Add",        "Sub",
                                                  "Mod",    "Mul",       "Div",      "Min",      "Max",        "EQ",
                                                  "NE",     "LT",        "LE",       "And",      "Or",         "Not",
                                                  "Select", "ImageCall", "FuncCall", "SelfCall", "ExternCall", "Let"};
    static const char *const patterns[kAccessPatternCount] = {"pointwise", "transpose", "broadcast", "slice"};
    static const char *const accesses[kAccessTypeCount] = {"LoadFunc", "LoadSelf", "LoadImage", "Store"};
    if (row < 0 || row >= kFeatureRows)
        return "row" + std::to_string(row);
    if (row < kOpTypeCount)
        return ops[row];
    const int a = row - kOpTypeCount;
    return std::string(patterns[a / kAccessTypeCount]) + "." + accesses[a % kAccessTypeCount];
}

const char *scalarTypeName(int column)
{
    static const char *const names[kScalarTypeCount] = {"Bool",   "UInt8", "UInt16", "UInt32",
                                                        "UInt64", "Float", "Double"};
    return column >= 0 && column < kScalarTypeCount ? names[column] : "?";
}

} // namespace beamscope::dag
