#include "tests/support/npy.h"

#include "tests/support/test_data.h"

#include <cstring>
#include <regex>
#include <stdexcept>

namespace beamscope::test {

float NpyArray::at(std::initializer_list<int64_t> index) const
{
    int64_t flat = 0, stride = 1;
    size_t d = 0;
    for (int64_t i : index) {
        flat += i * stride;
        stride *= shape.at(d++);
    }
    return data.at(static_cast<size_t>(flat));
}

NpyArray readNpy(const std::filesystem::path &path)
{
    const std::string bytes = readFile(path);
    auto fail = [&](const std::string &why) { throw std::runtime_error(path.string() + ": " + why); };
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
        fail("not a .npy file");
    const size_t headerLength = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    const std::string header = bytes.substr(10, headerLength);
    const size_t dataOffset = 10 + headerLength;

    const bool isFloat = header.find("'<f4'") != std::string::npos;
    const bool isInt = header.find("'<i4'") != std::string::npos;
    if (!isFloat && !isInt)
        fail("expected dtype <f4 or <i4, header: " + header);
    const bool fortran = header.find("'fortran_order': True") != std::string::npos;

    NpyArray array;
    std::smatch match;
    if (!std::regex_search(header, match, std::regex(R"('shape': \(([^)]*)\))")))
        fail("no shape in header");
    const std::string dims = match[1];
    std::regex number(R"(\d+)");
    for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it)
        array.shape.push_back(std::stoll(it->str()));
    int64_t count = 1;
    for (auto e : array.shape)
        count *= e;
    if (bytes.size() < dataOffset + static_cast<size_t>(count) * 4)
        fail("truncated data");
    std::vector<float> raw(static_cast<size_t>(count));
    if (isFloat) {
        std::memcpy(raw.data(), bytes.data() + dataOffset, raw.size() * 4);
    } else {
        for (int64_t i = 0; i < count; i++) {
            int32_t v;
            std::memcpy(&v, bytes.data() + dataOffset + i * 4, 4);
            raw[static_cast<size_t>(i)] = static_cast<float>(v);
        }
    }
    if (fortran || array.shape.size() <= 1) {
        array.data = std::move(raw);
    } else {
        // C order: last dimension fastest; reorder so dimension 0 is fastest.
        array.data.resize(raw.size());
        const size_t rank = array.shape.size();
        std::vector<int64_t> idx(rank, 0);
        for (int64_t c = 0; c < count; c++) {
            int64_t f = 0, stride = 1;
            for (size_t d = 0; d < rank; d++) {
                f += idx[d] * stride;
                stride *= array.shape[d];
            }
            array.data[static_cast<size_t>(f)] = raw[static_cast<size_t>(c)];
            for (size_t d = rank; d-- > 0;) {
                if (++idx[d] < array.shape[d])
                    break;
                idx[d] = 0;
            }
        }
    }
    return array;
}

} // namespace beamscope::test
