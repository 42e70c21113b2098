#pragma once
// Text for a terminal never carries its control sequences: labels, parameters, a command's stderr
// and file contents reach `list`, `show`, `compare`, warnings and errors, and an ESC, CR, NUL or a
// byte that is not UTF-8 in them would move the cursor, rewrite the line or worse. Such bytes are
// written as \xNN (C1 controls as \u0080..\u009f). JSON output is already escaped by its writer
// and so passes unchanged; `export` to standard output is data and is written as it is.

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace nf::cli {

// `text` with every control character escaped, newlines and tabs too: one line, safe to print.
std::string terminalText(std::string_view text);

// A stream buffer in front of another that escapes control characters other than newline and tab,
// and bytes that are not UTF-8; the rest goes through unchanged.
class TerminalFilter : public std::streambuf {
public:
    explicit TerminalFilter(std::streambuf* target) : m_target(target) {}
    TerminalFilter(const TerminalFilter&) = delete;
    TerminalFilter& operator=(const TerminalFilter&) = delete;
    ~TerminalFilter() override;

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void put(unsigned char c);
    void flushPending(bool valid);
    std::streambuf* m_target;
    std::string m_pending;  // an incomplete UTF-8 sequence
    int m_need = 0;         // continuation bytes it still needs
};

// Installs a TerminalFilter on std::cout and std::cerr for the life of the object; exactOutput()
// takes it off std::cout (for data written to standard output, such as `export`).
class TerminalGuard {
public:
    TerminalGuard();
    ~TerminalGuard();
    TerminalGuard(const TerminalGuard&) = delete;
    TerminalGuard& operator=(const TerminalGuard&) = delete;
    static void exactOutput();
};

}  // namespace nf::cli
