#include "data/sample_checksum.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace nf::data {

namespace {

// A number's 8 bytes, little-endian, appended to `bytes`.
template <class T>
void appendNumber(std::vector<unsigned char>& bytes, T value)
{
    static_assert(sizeof(T) == 8);
    const std::size_t at = bytes.size();
    bytes.resize(at + sizeof value);
    std::memcpy(bytes.data() + at, &value, sizeof value);
    if constexpr (std::endian::native == std::endian::big) {
        std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
    }
}

void sqlChecksum(sqlite3_context* context, int argc, sqlite3_value** argv)
{
    if (argc != 5) {
        sqlite3_result_error(context, "nf_sample_checksum takes 5 arguments", -1);
        return;
    }
    std::optional<std::int64_t> pair;
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        pair = sqlite3_value_int64(argv[1]);
    }
    const auto* blob = static_cast<const unsigned char*>(sqlite3_value_blob(argv[4]));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[4]));
    sqlite3_result_int64(context, sampleChecksum(sqlite3_value_int64(argv[0]), pair, sqlite3_value_double(argv[2]),
                                                 sqlite3_value_double(argv[3]),
                                                 std::span<const unsigned char>(blob, blob != nullptr ? size : 0)));
}

}  // namespace

std::int64_t sampleChecksum(std::int64_t index, std::optional<std::int64_t> pair, double start, double duration,
                            std::span<const unsigned char> values)
{
    // The row's fields in one buffer, hashed in one call (a call per field costs more than the
    // hash on rows this small). A NULL pair is a byte no stored pair's 8 bytes can be.
    thread_local std::vector<unsigned char> bytes;
    bytes.clear();
    appendNumber(bytes, index);
    if (pair) {
        appendNumber(bytes, *pair);
    } else {
        bytes.push_back(0xff);
    }
    appendNumber(bytes, start);
    appendNumber(bytes, duration);
    bytes.insert(bytes.end(), values.begin(), values.end());
    return std::bit_cast<std::int64_t>(static_cast<std::uint64_t>(XXH3_64bits(bytes.data(), bytes.size())));
}

Result<void> registerSampleChecksum(sqlite3* db)
{
    const int rc = sqlite3_create_function(db, "nf_sample_checksum", 5, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                           sqlChecksum, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        return Error{std::string("cannot make the sample checksum function: ") + sqlite3_errstr(rc)};
    }
    return {};
}

}  // namespace nf::data
