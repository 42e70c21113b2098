#pragma once
// One word quoted for a POSIX shell where it needs it: as it is when it holds only characters no
// shell treats specially, else in single quotes (' written as '\'').

#include <string>

namespace nf {

std::string shellQuote(const std::string& word);

}  // namespace nf
