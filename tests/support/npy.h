#pragma once
// Reader for the golden data's NumPy .npy files (format 1.0, little-endian
// float32 or int32, Fortran order: dimension 0 varies fastest, as in Halide buffers).

#include <cstdint>
#include <filesystem>
#include <vector>

namespace beamscope::test {

struct NpyArray {
    std::vector<int64_t> shape; // Halide dimension order (dimension 0 first)
    std::vector<float> data;    // dimension 0 fastest

    int64_t size() const { return static_cast<int64_t>(data.size()); }
    // Element at (i0, i1, ...), dimension 0 fastest.
    float at(std::initializer_list<int64_t> index) const;
};

// Throws std::runtime_error naming the file and what was wrong.
NpyArray readNpy(const std::filesystem::path &path);

} // namespace beamscope::test
