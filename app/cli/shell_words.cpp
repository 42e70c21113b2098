#include "app/cli/shell_words.h"

namespace nf::cli {

Result<std::vector<std::string>> shellWords(const std::string& text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord) {
                words.push_back(std::move(word));
                word.clear();
                inWord = false;
            }
            continue;
        }
        inWord = true;
        if (c == '\'') {
            const auto end = text.find('\'', i + 1);
            if (end == std::string::npos) {
                return Error{"unterminated ' in: " + text};
            }
            word += text.substr(i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= text.size()) {
                    return Error{"unterminated \" in: " + text};
                }
                if (text[i] == '"') {
                    break;
                }
                if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
                    ++i;
                }
                word += text[i];
            }
        } else if (c == '\\') {
            if (i + 1 >= text.size()) {
                return Error{"trailing \\ in: " + text};
            }
            word += text[++i];
        } else {
            word += c;
        }
    }
    if (inWord) {
        words.push_back(std::move(word));
    }
    return words;
}

}  // namespace nf::cli
