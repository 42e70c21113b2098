#pragma once
// The samples.vals blob: a sample's values in the run's quantity order (quantities.idx), each an
// IEEE-754 float64, little-endian, 8 bytes; NaN for a missing value. Its length is 8 x the number
// of quantities.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace nf::data {

inline constexpr std::size_t kValueBytes = sizeof(double);
static_assert(kValueBytes == 8 && std::numeric_limits<double>::is_iec559, "samples.vals holds IEEE-754 float64");

// Writes `values` into `blob` (resized to values.size() * 8 bytes).
inline void encodeValues(std::span<const double> values, std::vector<unsigned char>& blob)
{
    blob.resize(values.size() * kValueBytes);
    if (!values.empty()) {
        std::memcpy(blob.data(), values.data(), blob.size());
    }
    if constexpr (std::endian::native == std::endian::big) {
        for (std::size_t at = 0; at < blob.size(); at += kValueBytes) {
            std::reverse(blob.begin() + static_cast<std::ptrdiff_t>(at),
                         blob.begin() + static_cast<std::ptrdiff_t>(at + kValueBytes));
        }
    }
}

// Reads blob.size() / 8 values into `out`, which has room for them; the caller checked the length.
inline void decodeValues(std::span<const unsigned char> blob, double* out)
{
    if (!blob.empty()) {
        std::memcpy(out, blob.data(), blob.size());
    }
    if constexpr (std::endian::native == std::endian::big) {
        auto* bytes = reinterpret_cast<unsigned char*>(out);
        for (std::size_t at = 0; at < blob.size(); at += kValueBytes) {
            std::reverse(bytes + at, bytes + at + kValueBytes);
        }
    }
}

}  // namespace nf::data
