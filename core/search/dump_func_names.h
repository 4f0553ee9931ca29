#pragma once
// Which of a pipeline's Funcs a name in a loop-nest dump means. Halide makes
// every name unique within its process ("repeat_edge", "repeat_edge$1", ...),
// so a dump written by another process (a generator's, or this one after other
// pipelines) may number repeated names otherwise than this process's DAG does.
// The loop-nest reader and the dump comparison share this one lookup.

#include "core/search/loop_nest_text.h"
#include "core/search/search_dag.h"

#include "core/util/halide_names.h"

#include <map>
#include <string>
#include <vector>

namespace beamscope::search {

class DumpFuncNames {
public:
    // `entries`: every entry of the dump (their names decide how repeated names pair up).
    DumpFuncNames(const SearchDag &dag, const std::vector<NestEntry> &entries);

    // The nodes `dumpName` may mean: one, none (the pipeline has no such Func), or several (the
    // name is ambiguous once Halide's "$N" suffixes are removed).
    std::vector<int> candidates(const std::string &dumpName) const;

private:
    std::map<std::string, std::vector<int>> m_byName, m_byBase;
    std::map<std::string, int> m_byMakingOrder;        // dump name -> node, for names Halide numbered
    FuncNames m_dumpShown;                             // the dump's names as shown
    std::map<std::string, std::vector<int>> m_byShown; // our Funcs by their shown names
};

} // namespace beamscope::search
