// Compiled into every program that allocates through mimalloc (beamscope_fast_allocator), never
// into a library: it sets the allocator's options for the whole process before main runs.
//
// mimalloc hands a freed region back to the kernel 25 ms after it goes unused. A beam search frees
// and refills the same few hundred MiB generation after generation, so each region was returned
// and faulted in again page by page: an interpolate search at beam 32 on both cores spent a tenth
// of its time in the kernel (5.5 s of 46 s, 690k page faults). Holding freed regions for two
// seconds keeps them between generations (1 s in the kernel, 98k faults, 22% faster) and still
// returns them once a search ends, at the cost of a higher peak (interpolate 273 -> 325 MiB).
// A MIMALLOC_DECOMMIT_DELAY in the environment still wins, as mimalloc documents.

#include <mimalloc.h>

#include <cstdlib>

namespace {

struct HoldFreedMemory {
    HoldFreedMemory()
    {
        if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr)
            mi_option_set(mi_option_decommit_delay, 2000);
    }
} holdFreedMemory;

} // namespace
