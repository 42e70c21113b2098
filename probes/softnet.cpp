#include "probes/softnet.h"

#include <fstream>
#include <sstream>

namespace nf::probes {

std::vector<SoftnetCpu> parseSoftnet(const std::string& text, const std::vector<int>& online)
{
    std::vector<SoftnetCpu> out;
    std::istringstream lines(text);
    std::string line;
    std::size_t position = 0;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::vector<std::uint64_t> columns;
        std::string word;
        while (words >> word) {
            try {
                columns.push_back(std::stoull(word, nullptr, 16));
            } catch (const std::exception&) {
                columns.clear();
                break;
            }
        }
        if (columns.size() < 3) {
            continue;
        }
        SoftnetCpu s;
        s.processed = columns[0];
        s.dropped = columns[1];
        s.squeezed = columns[2];
        if (columns.size() >= 13) {
            s.cpu = static_cast<int>(columns[12]);
        } else if (position < online.size()) {
            s.cpu = online[position];
        }
        ++position;
        out.push_back(s);
    }
    return out;
}

std::vector<SoftnetCpu> readSoftnet(const std::vector<int>& online)
{
    std::ifstream in("/proc/net/softnet_stat");
    std::ostringstream text;
    text << in.rdbuf();
    return parseSoftnet(text.str(), online);
}

}  // namespace nf::probes
