#pragma once
// SQLite URIs for the few opens that need one (data/database.cpp, data/run_copy.cpp).

#include <string>

namespace nf::data {

// `path` as an SQLite URI with `query` ("mode=ro", "immutable=1"): for ATTACH on a connection
// opened for writing, and for immutable opens.
std::string fileUri(const std::string& path, const std::string& query);

}  // namespace nf::data
