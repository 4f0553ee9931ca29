// bench_json FILE.jsonl [--reps N]: reads every line of a JSON Lines file (a
// search trace, say) into the project's Json tree and into nlohmann's
// ordered_json, then writes each tree back, and prints the median seconds and
// MB/s of each and their ratio, and the heap each holds with every line's tree
// at once (glibc's count of bytes in use, in a pass of its own: counting would
// slow the timed passes). Not linked with mimalloc, so glibc's count is the heap.

#include "core/util/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <malloc.h>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(const std::function<void()> &work)
{
    const auto start = Clock::now();
    work();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

size_t heapBytesInUse()
{
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_json FILE.jsonl [--reps N]\n");
        return 2;
    }
    int reps = 5;
    if (argc >= 4 && std::string(argv[2]) == "--reps")
        reps = std::max(1, std::atoi(argv[3]));

    std::vector<std::string> lines;
    {
        std::ifstream in(argv[1]);
        if (!in) {
            std::fprintf(stderr, "bench_json: cannot read %s\n", argv[1]);
            return 1;
        }
        for (std::string line; std::getline(in, line);)
            if (!line.empty())
                lines.push_back(std::move(line));
    }
    size_t bytes = 0;
    for (const auto &l : lines)
        bytes += l.size();
    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf("bench_json: %s: %zu lines, %.1f MB, median of %d\n", argv[1], lines.size(), mb, reps);

    // The heap each tree takes with every line held at once; measured first, each in its own scope.
    size_t oursBytes = 0, theirsBytes = 0;
    {
        const size_t before = heapBytesInUse();
        std::vector<beamscope::Json> trees;
        trees.reserve(lines.size());
        for (const auto &l : lines)
            trees.push_back(*beamscope::parseJson(l).value);
        oursBytes = heapBytesInUse() - before;
    }
    {
        const size_t before = heapBytesInUse();
        std::vector<nlohmann::ordered_json> trees;
        trees.reserve(lines.size());
        for (const auto &l : lines)
            trees.push_back(nlohmann::ordered_json::parse(l));
        theirsBytes = heapBytesInUse() - before;
    }

    std::vector<double> ourRead, theirRead, ourWrite, theirWrite;
    size_t sink = 0;
    for (int r = 0; r < reps; r++) {
        std::vector<beamscope::Json> ours;
        std::vector<nlohmann::ordered_json> theirs;
        ours.reserve(lines.size());
        theirs.reserve(lines.size());
        ourRead.push_back(seconds([&] {
            for (const auto &l : lines) {
                beamscope::JsonParseResult parsed = beamscope::parseJson(l);
                if (!parsed.value) {
                    std::fprintf(stderr, "bench_json: %s\n", parsed.error.c_str());
                    std::exit(1);
                }
                ours.push_back(std::move(*parsed.value));
            }
        }));
        theirRead.push_back(seconds([&] {
            for (const auto &l : lines)
                theirs.push_back(nlohmann::ordered_json::parse(l));
        }));
        ourWrite.push_back(seconds([&] {
            for (const auto &j : ours)
                sink += j.dump().size();
        }));
        theirWrite.push_back(seconds([&] {
            for (const auto &j : theirs)
                sink += j.dump().size();
        }));
    }

    const auto row = [&](const char *what, const std::vector<double> &a, const std::vector<double> &b) {
        const double ma = median(a), mbn = median(b);
        std::printf("  %-6s  Json %7.3f s (%6.1f MB/s)   ordered_json %7.3f s (%6.1f MB/s)   Json/ordered_json %.2fx\n",
                    what, ma, mb / ma, mbn, mb / mbn, ma / mbn);
    };
    row("read", ourRead, theirRead);
    row("write", ourWrite, theirWrite);
    std::printf("  held    Json %zu MiB   ordered_json %zu MiB   (heap in use, every line's tree at once)\n",
                oursBytes >> 20, theirsBytes >> 20);
    std::printf("  (checksum %zu)\n", sink);
    return 0;
}
