#pragma once
// Invariants the fuzz targets assert beyond "no crash": a failed check prints what broke and
// aborts, so libFuzzer keeps the input as a crash.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace nf::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* what, std::string_view detail)
{
    std::fprintf(stderr, "%s:%d: invariant broken: %s (%.*s)\n", file, line, what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
}

}  // namespace nf::fuzz

#define NF_FUZZ_CHECK(cond, detail)                              \
    do {                                                         \
        if (!(cond)) {                                           \
            ::nf::fuzz::fail(__FILE__, __LINE__, #cond, detail); \
        }                                                        \
    } while (false)
