#pragma once
// The features of a root Func's stages, kept by everything they are computed from, for the other
// beam states of the same search depth. Each beam state offers its children the same tilings of the
// Func it decides, and while none of that Func's producers is scheduled (Halide's steps decide a
// pipeline from its output inwards), what the Func's own stages read is its tiling and where the
// producers are placed: the 32 states of a beam featurize the same few hundred stage tilings over
// and over. The key (Featurizer::stageFeatureKey, featurizer.cpp) is compared whole, not by hash.
// Safe to use from several threads at once.

#include "core/search/schedule_features.h"
#include "core/util/hash_words.h"

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace beamscope::search {

class StageFeatureMemo {
public:
    using Key = std::vector<int64_t>;

    // The features kept under `key` (one per stage of the Func), into `out`; false when none.
    bool find(const Key &key, std::vector<ScheduleFeatures> &out) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_entries.find(key);
        if (it == m_entries.end())
            return false;
        out = it->second;
        return true;
    }
    void add(Key key, std::vector<ScheduleFeatures> features)
    {
        std::lock_guard lock(m_mutex);
        m_entries.emplace(std::move(key), std::move(features));
    }
    // A search empties it at every depth: the next depth decides another Func.
    void clear()
    {
        std::lock_guard lock(m_mutex);
        m_entries.clear();
    }
    size_t size() const
    {
        std::lock_guard lock(m_mutex);
        return m_entries.size();
    }

private:
    struct Hash {
        size_t operator()(const Key &k) const { return hashWords(k); }
    };
    mutable std::mutex m_mutex;
    std::unordered_map<Key, std::vector<ScheduleFeatures>, Hash> m_entries;
};

} // namespace beamscope::search
