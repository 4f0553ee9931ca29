#include "core/search/nest_lines.h"

namespace beamscope::search {

namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

NestLine readLine(std::string_view line)
{
    NestLine n;
    const size_t first = line.find_first_not_of(' ');
    n.indent = static_cast<int>(first == std::string_view::npos ? line.size() : first);
    const std::string_view t = line.substr(static_cast<size_t>(n.indent));
    n.text = std::string(t);
    // "realize: blur_x_s0 at output_s0 block in shared memory"
    if (startsWith(t, "realize: ")) {
        n.kind = NestLine::Kind::Realize;
        const std::string_view rest = t.substr(9);
        n.func = std::string(rest.substr(0, rest.find(' ')));
        n.memory = endsWith(t, " in shared memory")     ? NestLine::Memory::Shared
                   : endsWith(t, " in register memory") ? NestLine::Memory::Register
                   : endsWith(t, " in global memory")   ? NestLine::Memory::Global
                                                        : NestLine::Memory::None;
        return n;
    }
    // "for x in [0, 64) gpu_thread"
    if (startsWith(t, "for ")) {
        n.kind = NestLine::Kind::Loop;
        const std::string_view kind = t.substr(t.rfind(' ') + 1);
        n.loop = kind == "gpu_block"    ? NestLine::LoopKind::GpuBlock
                 : kind == "gpu_thread" ? NestLine::LoopKind::GpuThread
                 : kind == "unrolled"   ? NestLine::LoopKind::Unrolled
                 : kind == "vectorized" ? NestLine::LoopKind::Vectorized
                                        : NestLine::LoopKind::Serial;
        return n;
    }
    if (startsWith(t, "inline: ")) {
        n.kind = NestLine::Kind::Inline;
        n.func = std::string(t.substr(8));
        return n;
    }
    if (startsWith(t, "unscheduled: ")) {
        n.kind = NestLine::Kind::Unscheduled;
        n.func = std::string(t.substr(13));
        return n;
    }
    // "output_s0(...) = ..."
    if (const size_t call = t.find("(...) = ..."); call != std::string_view::npos && call > 0) {
        n.kind = NestLine::Kind::Body;
        n.func = std::string(t.substr(0, call));
    }
    return n;
}

} // namespace

std::vector<NestLine> readNestLines(std::string_view dump)
{
    std::vector<NestLine> lines;
    while (!dump.empty()) {
        const size_t eol = dump.find('\n');
        lines.push_back(readLine(dump.substr(0, eol)));
        if (eol == std::string_view::npos)
            break;
        dump.remove_prefix(eol + 1);
    }
    return lines;
}

} // namespace beamscope::search
