#pragma once
// The size of machine code as the linker laid it out: the ELF symbol that contains an address, read
// from the symbol table of the file the address was loaded from (the running executable or a shared
// library). This is what bloat-o-meter compares between two kernel builds, for the functions of
// this process.

#include <cstdint>
#include <string>

#include "base/result.h"

namespace nf::probes {

struct CodeSymbol {
    std::string name;         // demangled, without namespaces or parameter list: "pagePoolPutPage<true, false>"
    std::string fullName;     // demangled in full
    std::uint64_t bytes = 0;  // st_size
    std::string file;         // the ELF file it was read from
};

// The function symbol whose [st_value, st_value + st_size) contains `address`. Fails when the file
// has no symbol table (stripped) or no function symbol covers the address.
Result<CodeSymbol> codeSymbolAt(const void* address);

// "void nf::a::(anonymous namespace)::f<true>(int*, long)" -> "f<true>".
std::string shortFunctionName(const std::string& demangled);

}  // namespace nf::probes
