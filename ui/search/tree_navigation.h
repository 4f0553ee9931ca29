#pragma once
// Moving through a search tree by keys: to a state's parent, its children, its
// siblings (the other children of its parent, in the tree's left-to-right
// order), the next pruned sibling, and the final beam. Pure functions over
// SearchTreeData, so the view's keys and the tests share them.

#include <cstdint>
#include <vector>

namespace beamscope::ui {

class SearchTreeData;

namespace navigation {

// -1 at the root or for an unknown id.
int64_t parent(const SearchTreeData &data, int64_t id);
// The children of a state, in the tree's order (left to right in their row).
std::vector<int64_t> children(const SearchTreeData &data, int64_t id);
// The child to go down to: the one kept in the beam on the winner's path, else
// the cheapest child kept in the beam, else the cheapest; -1 for a leaf.
int64_t preferredChild(const SearchTreeData &data, int64_t id);
// The sibling `step` places to the right (negative: left), or with
// prunedOnly the step-th sibling that the beam dropped; -1 past either end.
int64_t sibling(const SearchTreeData &data, int64_t id, int step, bool prunedOnly = false);
// The final beam: the winner (the best of every pass, which an earlier pass may
// have found), then the complete states of the last pass's deepest row, cheapest
// first; at most the beam size. The campaign checks the same states
// (core/campaign/beam_check.cpp).
std::vector<int64_t> finalBeam(const SearchTreeData &data);
// A state's predicted cost; a pass-through state (nothing left to decide) costs
// what its nearest costed ancestor does.
double effectiveCost(const SearchTreeData &data, int64_t id);

} // namespace navigation
} // namespace beamscope::ui
