#include "core/search/dump_func_names.h"
#include "core/util/halide_names.h"

#include <algorithm>

namespace beamscope::search {

namespace {

// "name" before "name$1" before "name$2" ... ("f3$0" counts as f3's first).
bool madeBefore(const std::string &a, const std::string &b) { return uniqueSuffixNumber(a) < uniqueSuffixNumber(b); }

} // namespace

DumpFuncNames::DumpFuncNames(const SearchDag &dag, const std::vector<NestEntry> &entries)
{
    std::map<std::string, std::vector<std::string>> oursByBase, dumpByBase;
    for (int n = 0; n < dag.nodeCount(); n++) {
        const std::string &name = dag.node(n).name;
        m_byName[name].push_back(n);
        if (baseFuncName(name) != name)
            m_byBase[baseFuncName(name)].push_back(n);
        if (!dag.node(n).isInput)
            oursByBase[baseFuncName(name)].push_back(name);
    }
    // Names as every view shows them (halide_names.h), on both sides: "lambda_7" of a dump
    // written after six other lambdas is this pipeline's "lambda_0" when each has one.
    std::vector<std::string> ourNames, dumpNames;
    for (int n = 0; n < dag.nodeCount(); n++)
        ourNames.push_back(dag.node(n).name);
    for (const NestEntry &x : entries)
        if (!x.func.empty())
            dumpNames.push_back(x.func);
    const FuncNames ourShown(ourNames);
    m_dumpShown = FuncNames(dumpNames);
    for (int n = 0; n < dag.nodeCount(); n++)
        m_byShown[ourShown.name(dag.node(n).name)].push_back(n);
    for (const NestEntry &x : entries)
        if (!x.func.empty()) {
            auto &names = dumpByBase[baseFuncName(x.func)];
            if (std::find(names.begin(), names.end(), x.func) == names.end())
                names.push_back(x.func);
        }
    // Funcs sharing a base name pair up in the order they were made, which both numberings keep,
    // when the dump names as many of them as the pipeline has.
    for (auto &[base, dump] : dumpByBase) {
        auto ours = oursByBase.find(base);
        if (ours == oursByBase.end() || ours->second.size() != dump.size() || dump.size() < 2)
            continue;
        std::sort(dump.begin(), dump.end(), madeBefore);
        std::sort(ours->second.begin(), ours->second.end(), madeBefore);
        for (size_t i = 0; i < dump.size(); i++)
            m_byMakingOrder[dump[i]] = m_byName.at(ours->second[i]).front();
    }
}

std::vector<int> DumpFuncNames::candidates(const std::string &dumpName) const
{
    if (auto it = m_byMakingOrder.find(dumpName); it != m_byMakingOrder.end())
        return {it->second};
    if (auto it = m_byName.find(dumpName); it != m_byName.end())
        return it->second;
    if (auto it = m_byName.find(baseFuncName(dumpName)); it != m_byName.end())
        return it->second;
    if (auto it = m_byBase.find(baseFuncName(dumpName)); it != m_byBase.end())
        return it->second;
    if (auto it = m_byShown.find(m_dumpShown.name(dumpName)); it != m_byShown.end())
        return it->second;
    return {};
}

} // namespace beamscope::search
