#include "core/search/search_comparison.h"

#include "core/search/state_from_decisions.h"
#include "core/util/fnv1a.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace beamscope::search {

namespace {

double relativeDifference(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-30); }

// Halide's side of one compared depth.
struct GoldenDepth {
    std::vector<const GoldenState *> states;
    std::vector<const GoldenState *> beam; // the states kept (at the last depth: the pass result)
};

GoldenDepth goldenAt(const GoldenTree &golden, int pass, int depth, bool last)
{
    GoldenDepth g;
    g.states = golden.at(pass, depth);
    if (last) {
        // Input wrappers add pass-through depths after Beamscope's last one; the pass result is
        // the first state taken off at Halide's final depth, the same loop nest.
        for (const GoldenState *s : golden.at(pass, golden.finalDepth()))
            if (s->rank == 0)
                g.beam.push_back(s);
    } else {
        for (const GoldenState *s : g.states)
            if (s->rank >= 0)
                g.beam.push_back(s);
    }
    return g;
}

void describeHalideState(const GoldenTree &golden, const GoldenState &s, Divergence &d)
{
    d.halide = s;
    if (std::optional<std::string> dump = golden.dump(s.pass, s.id)) {
        d.halideDump = *dump;
        return;
    }
    if (const GoldenState *parent = golden.find(s.pass, s.parent)) {
        d.halideParent = *parent;
        d.halideParentDump = golden.dump(parent->pass, parent->id).value_or("");
    }
}

} // namespace

SearchComparison compareSearch(const std::vector<ComparedState> &ours, const GoldenTree &golden, double costTolerance,
                               bool halideSteps)
{
    // Beamscope's depth d is Halide's 2d (per-Func steps) or d (Halide's steps).
    const int scale = halideSteps ? 1 : 2;
    SearchComparison out;
    int lastDepth = 0, passes = golden.passes();
    for (const ComparedState &s : ours) {
        lastDepth = std::max(lastDepth, s.depth);
        passes = std::max(passes, s.pass);
    }
    for (int pass = 1; pass <= passes; pass++) {
        PassComparison pc;
        pc.pass = pass;
        pc.oursBest = pc.halideBest = std::numeric_limits<double>::quiet_NaN();
        for (const GoldenState &s : golden.states())
            if (s.pass == pass && s.costed)
                pc.halideCosted++;
        for (const GoldenState *s : golden.at(pass, golden.finalDepth()))
            if (s->rank == 0)
                pc.halideBest = s->cost;
        for (const ComparedState &s : ours)
            if (s.pass == pass) {
                pc.oursStates += !s.passThrough;
                if (s.depth == lastDepth && !(s.cost >= pc.oursBest))
                    pc.oursBest = s.cost;
            }

        for (int depth = 1; depth <= lastDepth && scale * depth <= golden.finalDepth(); depth++) {
            // On Halide's steps the last depth is Halide's final one, where the beam is the result.
            const bool last = depth == lastDepth && !halideSteps;
            DepthComparison dc;
            dc.depth = depth;
            dc.goldenDepth = scale * depth;
            const GoldenDepth g = goldenAt(golden, pass, dc.goldenDepth, last);
            std::vector<const ComparedState *> mine;
            for (const ComparedState &s : ours)
                if (s.pass == pass && s.depth == depth)
                    mine.push_back(&s);
            if (!g.states.empty())
                dc.func = g.states.front()->func;
            else if (!mine.empty())
                dc.func = mine.front()->decision.substr(0, mine.front()->decision.find(':'));

            std::map<uint64_t, const GoldenState *> halideByHash;
            for (const GoldenState *s : g.states)
                halideByHash.emplace(s->hash, s);
            std::map<uint64_t, const ComparedState *> oursByHash;
            for (const ComparedState *s : mine)
                oursByHash.emplace(s->hash, s);
            dc.ours = oursByHash.size();
            dc.halide = halideByHash.size();
            if (!halideSteps)
                for (const GoldenState *s : golden.at(pass, dc.goldenDepth - 1)) {
                    dc.halidePhase0++;
                    dc.commonPhase0 += oursByHash.count(s->hash);
                }
            const ComparedState *worstCost = nullptr;
            for (const auto &[hash, s] : oursByHash)
                if (const auto h = halideByHash.find(hash); h != halideByHash.end()) {
                    dc.common++;
                    // On Halide's steps a pass-through keeps its parent's penalised cost, on both sides.
                    const double diff =
                        relativeDifference(s->cost, halideSteps ? h->second->cost : golden.modelCost(*h->second));
                    if (diff > dc.maxCostDifference) {
                        dc.maxCostDifference = diff;
                        worstCost = s;
                    }
                }

            std::set<uint64_t> halideBeam, oursBeam;
            for (const GoldenState *s : g.beam)
                halideBeam.insert(s->hash);
            if (last) {
                const ComparedState *best = nullptr;
                for (const ComparedState *s : mine)
                    if (!best || s->cost < best->cost)
                        best = s;
                if (best)
                    oursBeam.insert(best->hash);
            } else {
                for (const ComparedState *s : mine)
                    if (s->inBeam)
                        oursBeam.insert(s->hash);
            }
            dc.halideBeam = halideBeam.size();
            dc.oursBeam = oursBeam.size();
            for (uint64_t h : oursBeam)
                dc.commonBeam += halideBeam.count(h);
            pc.depths.push_back(dc);

            Divergence &d = out.first;
            if (d.found)
                continue;
            const auto startDivergence = [&](std::string what) {
                d.found = true;
                d.pass = pass;
                d.depth = depth;
                d.goldenDepth = dc.goldenDepth;
                d.func = dc.func;
                d.what = std::move(what);
            };
            if (dc.common != dc.ours || dc.common != dc.halide) {
                std::ostringstream what;
                what << "children: Beamscope has " << dc.ours << " states, Halide " << dc.halide << ", " << dc.common
                     << " of them the same loop nest";
                startDivergence(what.str());
                for (const ComparedState *s : mine)
                    if (!halideByHash.count(s->hash)) {
                        d.ours = *s;
                        break;
                    }
                for (const GoldenState *s : g.states)
                    if (!oursByHash.count(s->hash)) {
                        describeHalideState(golden, *s, d);
                        break;
                    }
            } else if (dc.maxCostDifference > costTolerance) {
                std::ostringstream what;
                what << "costs: the same " << dc.common << " states, costed up to " << dc.maxCostDifference
                     << " apart (relative)";
                startDivergence(what.str());
                d.ours = *worstCost;
                describeHalideState(golden, *halideByHash.at(worstCost->hash), d);
            } else if (halideBeam != oursBeam) {
                std::ostringstream what;
                what << "beam: the same states and costs, but Beamscope keeps " << dc.oursBeam << " and Halide "
                     << dc.halideBeam << ", " << dc.commonBeam << " in common";
                startDivergence(what.str());
                for (const ComparedState *s : mine)
                    if (oursBeam.count(s->hash) && !halideBeam.count(s->hash)) {
                        d.ours = *s;
                        break;
                    }
                for (const GoldenState *s : g.beam)
                    if (!oursBeam.count(s->hash)) {
                        describeHalideState(golden, *s, d);
                        break;
                    }
            }
        }
        out.passes.push_back(std::move(pc));
    }
    return out;
}

std::string formatComparison(const SearchComparison &c)
{
    std::ostringstream os;
    os.precision(9);
    for (const PassComparison &p : c.passes) {
        os << "pass " << p.pass << ": states costed: Beamscope " << p.oursStates << ", Halide " << p.halideCosted
           << "; best cost: Beamscope " << p.oursBest << ", Halide " << p.halideBest << "\n";
        os << "  depth  halide  func                  states: ours  halide  same  | Halide phase 0: states  same"
              "  | beam: ours halide same | max cost diff\n";
        for (const DepthComparison &d : p.depths) {
            char line[256];
            std::snprintf(line, sizeof line,
                          "  %5d  %6d  %-20s %12zu %7zu %5zu  | %22zu %5zu  | %10zu %6zu %4zu | %.3g\n", d.depth,
                          d.goldenDepth, d.func.c_str(), d.ours, d.halide, d.common, d.halidePhase0, d.commonPhase0,
                          d.oursBeam, d.halideBeam, d.commonBeam, d.maxCostDifference);
            os << line;
        }
    }
    const Divergence &d = c.first;
    if (!d.found) {
        os << "\nno divergence: every compared depth has the same states, costs and beam\n";
        return os.str();
    }
    os << "\nfirst divergence: pass " << d.pass << ", depth " << d.depth << " (Halide's depth " << d.goldenDepth
       << "), deciding " << d.func << "\n  " << d.what << "\n";
    if (d.ours)
        os << "\nBeamscope's state " << d.ours->id << " (cost " << d.ours->cost << ", hash " << fnv1aHex(d.ours->hash)
           << "): " << d.ours->decision << "\n"
           << d.ours->dump;
    if (d.halide) {
        os << "\nHalide's state " << d.halide->id << " (cost " << d.halide->cost << ", hash "
           << fnv1aHex(d.halide->hash) << ", " << d.halide->func << " phase " << d.halide->phase << ")";
        if (!d.halideDump.empty())
            os << ":\n" << d.halideDump;
        else if (d.halideParent)
            os << ", not kept in a beam, so its dump was not recorded; it was made from state " << d.halideParent->id
               << " (hash " << fnv1aHex(d.halideParent->hash) << "):\n"
               << d.halideParentDump;
        else
            os << "\n";
    }
    return os.str();
}

Json comparisonJson(const SearchComparison &c)
{
    Json passes = Json::array();
    for (const PassComparison &p : c.passes) {
        Json depths = Json::array();
        for (const DepthComparison &d : p.depths) {
            Json j = Json::object();
            j["depth"] = d.depth;
            j["halide_depth"] = d.goldenDepth;
            j["func"] = d.func;
            j["states_ours"] = static_cast<int64_t>(d.ours);
            j["states_halide"] = static_cast<int64_t>(d.halide);
            j["states_same"] = static_cast<int64_t>(d.common);
            j["beam_ours"] = static_cast<int64_t>(d.oursBeam);
            j["beam_halide"] = static_cast<int64_t>(d.halideBeam);
            j["beam_same"] = static_cast<int64_t>(d.commonBeam);
            j["halide_phase0_states"] = static_cast<int64_t>(d.halidePhase0);
            j["phase0_same"] = static_cast<int64_t>(d.commonPhase0);
            j["max_cost_difference"] = d.maxCostDifference;
            depths.push(j);
        }
        Json j = Json::object();
        j["pass"] = p.pass;
        j["costed_ours"] = static_cast<int64_t>(p.oursStates);
        j["costed_halide"] = static_cast<int64_t>(p.halideCosted);
        j["best_ours"] = std::isnan(p.oursBest) ? Json() : Json(p.oursBest);
        j["best_halide"] = std::isnan(p.halideBest) ? Json() : Json(p.halideBest);
        j["depths"] = depths;
        passes.push(j);
    }
    Json out = Json::object();
    out["passes"] = passes;
    const Divergence &d = c.first;
    if (d.found) {
        Json j = Json::object();
        j["pass"] = d.pass;
        j["depth"] = d.depth;
        j["halide_depth"] = d.goldenDepth;
        j["func"] = d.func;
        j["what"] = d.what;
        if (d.ours) {
            Json o = Json::object();
            o["id"] = d.ours->id;
            o["cost"] = d.ours->cost;
            o["hash"] = fnv1aHex(d.ours->hash);
            o["decision"] = d.ours->decision;
            o["dump"] = d.ours->dump;
            j["ours"] = o;
        }
        if (d.halide) {
            Json h = Json::object();
            h["id"] = d.halide->id;
            h["cost"] = d.halide->cost;
            h["hash"] = fnv1aHex(d.halide->hash);
            h["phase"] = d.halide->phase;
            if (!d.halideDump.empty())
                h["dump"] = d.halideDump;
            if (d.halideParent) {
                h["parent"] = d.halideParent->id;
                h["parent_dump"] = d.halideParentDump;
            }
            j["halide"] = h;
        }
        out["first_divergence"] = j;
    } else {
        out["first_divergence"] = Json();
    }
    return out;
}

std::optional<std::vector<ComparedState>>
comparedStates(const SearchTrace &trace,
               const std::function<std::optional<std::string>(const std::vector<Json> &decisions)> &dumpOf)
{
    const int passOffset = trace.params.prePass ? 0 : 1;
    std::vector<ComparedState> out;
    out.reserve(trace.nodes().size());
    for (const TraceNode &n : trace.nodes()) {
        if (n.pass + passOffset < 1)
            continue;
        std::optional<std::string> dump = dumpOf(trace.decisionsTo(n.id));
        if (!dump)
            return std::nullopt;
        ComparedState s;
        s.pass = n.pass + passOffset;
        s.depth = n.depth;
        s.id = n.id;
        s.cost = n.cost;
        s.inBeam = n.inBeam;
        s.passThrough = n.passThrough;
        s.dump = std::move(*dump);
        s.hash = fnv1a(s.dump);
        s.decision = n.decision;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<ComparedState> comparedStates(const SearchTrace &trace, const SearchDag &dag)
{
    return *comparedStates(trace, [&](const std::vector<Json> &decisions) {
        return std::optional(stateFromDecisions(dag, decisions, trace.pipeline).halideLoopNest());
    });
}

FeatureComparison compareFeatures(const std::vector<GoldenStageFeatures> &halide,
                                  const std::vector<ScheduleFeatures> &ours)
{
    FeatureComparison c;
    c.stages = halide.size();
    if (halide.size() != ours.size()) {
        c.error =
            "Halide featurized " + std::to_string(halide.size()) + " stages, Beamscope " + std::to_string(ours.size());
        return c;
    }
    for (const GoldenStageFeatures &h : halide) {
        const size_t slot = static_cast<size_t>(h.stageIndex);
        if (slot >= ours.size()) {
            c.error = "Halide's stage_index " + std::to_string(h.stageIndex) + " is past Beamscope's " +
                      std::to_string(ours.size()) + " stages";
            return c;
        }
        bool differs = false;
        for (int f = 0; f < kScheduleFeatureCount; f++) {
            const double want = h.values[static_cast<size_t>(f)];
            // Halide's input buffer holds float32: compare with ours rounded the same way.
            const double got = static_cast<float>(ours[slot].values[static_cast<size_t>(f)]);
            const double diff = std::fabs(got - want);
            if (diff <= 1e-6 || diff <= 1e-5 * std::fabs(want))
                continue;
            differs = true;
            c.differences.push_back({h.stageIndex, h.stage, f, want, got});
        }
        c.differingStages += differs;
    }
    return c;
}

std::string formatFeatureComparison(const FeatureComparison &c, size_t maxStages)
{
    std::ostringstream os;
    os.precision(9);
    if (!c.error.empty())
        return c.error + "\n";
    if (c.differences.empty())
        return "all " + std::to_string(c.stages) + " stages' features equal\n";
    os << c.differingStages << " of " << c.stages << " stages differ (feature: Halide, Beamscope)\n";
    size_t shown = 0;
    for (size_t i = 0; i < c.differences.size();) {
        const FeatureDifference &first = c.differences[i];
        if (shown++ == maxStages) {
            os << "  ...\n";
            break;
        }
        os << "  " << first.stageIndex << " " << first.stage << ":";
        for (; i < c.differences.size() && c.differences[i].stageIndex == first.stageIndex; i++)
            os << " " << featureName(c.differences[i].feature) << " " << c.differences[i].halide << ", "
               << c.differences[i].ours << ";";
        os << "\n";
    }
    return os.str();
}

} // namespace beamscope::search
