#include "core/weights/weights_digest.h"

#include "core/util/sha256.h"

namespace beamscope::weights {

std::optional<std::string> weightsDigest(const std::filesystem::path &path, const LoadResult &loaded)
{
    if (loaded.form == Form::File)
        return sha256FileHex(path);
    if (loaded.weights)
        return sha256Hex(serializeWeightsFile(*loaded.weights));
    return std::nullopt;
}

} // namespace beamscope::weights
