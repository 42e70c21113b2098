#pragma once
// The sized symbols of an ELF file as `nm --size-sort FILE` lists them (GNU binutils), read with
// libelf from the file's static symbol table (.symtab): what scripts/bloat-o-meter reads of a
// vmlinux or a .ko before it counts code size (engine/model/code_size.h).

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace nf::probes {

struct NmSymbol {
    std::string name;
    char type = '?';  // nm's letter: t/T code, d/D data, b/B bss, r/R read-only, W/V weak, ...
    std::uint64_t bytes = 0;
};

// Every symbol of FILE's .symtab that nm --size-sort lists, in the table's order: all but the
// undefined and absolute ones, section and file symbols, and those of size 0. The type letter is
// bfd's for ELF (bfd_decode_symclass): C common, U/w/v undefined, i GNU indirect function, W/V weak
// (V an object), u GNU unique, else by the symbol's section (t code, d data, r read-only data, b no
// contents, n/N other and debugging sections, i/e/p Microsoft's sections by name), upper case when
// global. Small-data sections (g, s), which bfd marks only for some targets (MIPS, PowerPC), read
// as d and b here.
// A file that cannot be opened fails with its errno; one that is not ELF (an ar archive, a
// bzImage, text), has no .symtab (stripped) or a symbol of more than 1 TiB (damaged) fails with
// errnum 0 and a message that says so.
Result<std::vector<NmSymbol>> readSizedSymbols(const std::string& path);

}  // namespace nf::probes
