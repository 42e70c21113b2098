// Writes an importer's fuzz dictionary in libFuzzer's format, one quoted token a line, from the
// tokens its descriptor lists (ImportFormat::dictionary): the build makes each import target's
// dictionary this way, so the descriptor is its only source. INDEX is the importer's place in
// engine/import/importer_list.h, which CMake reads in the same order.
//   nf_import_dictionary INDEX OUT.dict

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/import/import_format.h"

namespace {

std::string quoted(const std::string& token)
{
    std::string out = "\"";
    for (const char c : token) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20 || u >= 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", u);
            out += hex;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s INDEX OUT.dict\n", argv[0]);
        return 2;
    }
    const auto& formats = nf::engine::importFormats();
    const auto index = std::strtoul(argv[1], nullptr, 10);
    if (index >= formats.size() || formats[index].dictionary.empty()) {
        std::fprintf(stderr, "%s: no importer %s with a dictionary\n", argv[0], argv[1]);
        return 1;
    }
    const auto& format = formats[index];
    const std::filesystem::path path(argv[2]);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::trunc);
    out << "# The tokens of the " << format.name << " importer's descriptor (engine/import), written by the build.\n";
    for (const auto& token : format.dictionary) {
        out << quoted(token) << '\n';
    }
    return out.good() ? 0 : 1;
}
