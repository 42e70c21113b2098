#pragma once
// A file's whole content, for tests that hold what they parse against a file: "" when it cannot be
// read (the test's own checks then fail on it).

#include <fstream>
#include <sstream>
#include <string>

namespace nf::test {

inline std::string readWhole(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace nf::test
