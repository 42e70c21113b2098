#include "app/cli/terminal_text.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace nf::cli {

namespace {

std::string hexByte(unsigned char c)
{
    char text[5];
    (void)std::snprintf(text, sizeof text, "\\x%02x", c);
    return text;
}

// How many continuation bytes a UTF-8 lead byte takes, or -1 if it cannot start a character.
int continuations(unsigned char c)
{
    if (c < 0x80) {
        return 0;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        return 1;
    }
    if (c >= 0xe0 && c <= 0xef) {
        return 2;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        return 3;
    }
    return -1;
}

// The second byte's range of a lead byte (no overlong forms, no surrogates, nothing past U+10FFFF).
bool secondOk(unsigned char lead, unsigned char c)
{
    switch (lead) {
        case 0xe0: return c >= 0xa0 && c <= 0xbf;
        case 0xed: return c >= 0x80 && c <= 0x9f;
        case 0xf0: return c >= 0x90 && c <= 0xbf;
        case 0xf4: return c >= 0x80 && c <= 0x8f;
        default: return c >= 0x80 && c <= 0xbf;
    }
}

// One complete, valid UTF-8 sequence: as it is, unless it is a C1 control (U+0080..U+009F).
std::string emitSequence(const std::string& seq)
{
    if (seq.size() == 2 && static_cast<unsigned char>(seq[0]) == 0xc2 && static_cast<unsigned char>(seq[1]) < 0xa0) {
        char text[8];
        (void)std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned char>(seq[1]));
        return text;
    }
    return seq;
}

// Escapes `text`; `keepLines` lets newline and tab through.
std::string escape(std::string_view text, bool keepLines)
{
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            if (keepLines && (c == '\n' || c == '\t')) {
                out += static_cast<char>(c);
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\t') {
                out += "\\t";
            } else if (c == '\r') {
                out += "\\r";
            } else {
                out += hexByte(c);
            }
            ++i;
            continue;
        }
        const int need = continuations(c);
        if (need == 0) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        const auto n = static_cast<std::size_t>(need);
        bool valid = need > 0 && i + n < text.size();
        if (valid) {
            valid = secondOk(c, static_cast<unsigned char>(text[i + 1]));
            for (int k = 2; valid && k <= need; ++k) {
                const auto cc = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);  // k <= n
                valid = cc >= 0x80 && cc <= 0xbf;
            }
        }
        if (!valid) {
            out += hexByte(c);
            ++i;
            continue;
        }
        out += emitSequence(std::string(text.substr(i, n + 1)));
        i += n + 1;
    }
    return out;
}

std::unique_ptr<TerminalFilter> g_out;
std::unique_ptr<TerminalFilter> g_err;
std::streambuf* g_outTarget = nullptr;
std::streambuf* g_errTarget = nullptr;

}  // namespace

std::string terminalText(std::string_view text)
{
    return escape(text, false);
}

TerminalFilter::~TerminalFilter()
{
    flushPending(false);
    m_target->pubsync();
}

void TerminalFilter::flushPending(bool valid)
{
    if (m_pending.empty()) {
        return;
    }
    const std::string text = valid ? emitSequence(m_pending) : escape(m_pending, true);
    m_target->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    m_pending.clear();
    m_need = 0;
}

void TerminalFilter::put(unsigned char c)
{
    if (m_need > 0) {
        const bool ok =
            m_pending.size() == 1 ? secondOk(static_cast<unsigned char>(m_pending[0]), c) : (c >= 0x80 && c <= 0xbf);
        if (ok) {
            m_pending += static_cast<char>(c);
            if (--m_need == 0) {
                flushPending(true);
            }
            return;
        }
        // A broken sequence: its bytes escaped one by one, then this byte on its own.
        for (const char p : m_pending) {
            const std::string hex = hexByte(static_cast<unsigned char>(p));
            m_target->sputn(hex.data(), static_cast<std::streamsize>(hex.size()));
        }
        m_pending.clear();
        m_need = 0;
    }
    const int need = continuations(c);
    if (need > 0) {
        m_pending = std::string(1, static_cast<char>(c));
        m_need = need;
        return;
    }
    const std::string text =
        need == 0 ? escape(std::string_view(reinterpret_cast<const char*>(&c), 1), true) : hexByte(c);
    m_target->sputn(text.data(), static_cast<std::streamsize>(text.size()));
}

TerminalFilter::int_type TerminalFilter::overflow(int_type c)
{
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        put(static_cast<unsigned char>(traits_type::to_char_type(c)));
    }
    return traits_type::not_eof(c);
}

std::streamsize TerminalFilter::xsputn(const char* s, std::streamsize n)
{
    for (std::streamsize i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (m_need == 0 && c >= 0x20 && c < 0x7f) {  // the common case: a run of plain text
            std::streamsize j = i;
            while (j < n && static_cast<unsigned char>(s[j]) >= 0x20 && static_cast<unsigned char>(s[j]) < 0x7f) {
                ++j;
            }
            m_target->sputn(s + i, j - i);
            i = j - 1;
            continue;
        }
        put(c);
    }
    return n;
}

int TerminalFilter::sync()
{
    return m_target->pubsync();
}

TerminalGuard::TerminalGuard()
{
    g_outTarget = std::cout.rdbuf();
    g_errTarget = std::cerr.rdbuf();
    g_out = std::make_unique<TerminalFilter>(g_outTarget);
    g_err = std::make_unique<TerminalFilter>(g_errTarget);
    std::cout.rdbuf(g_out.get());
    std::cerr.rdbuf(g_err.get());
}

TerminalGuard::~TerminalGuard()
{
    std::cout.flush();
    std::cerr.flush();
    std::cout.rdbuf(g_outTarget);
    std::cerr.rdbuf(g_errTarget);
    g_out.reset();
    g_err.reset();
}

void TerminalGuard::exactOutput()
{
    if (g_out && std::cout.rdbuf() == g_out.get()) {
        std::cout.flush();
        std::cout.rdbuf(g_outTarget);
    }
}

}  // namespace nf::cli
