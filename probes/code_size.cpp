#include "probes/code_size.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>

#include <cstdlib>
#include <memory>

#include "probes/elf_file.h"

namespace nf::probes {

namespace {

std::string demangle(const char* name)
{
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// The load address of the main program (dladdr names it by argv[0], which may be relative).
ElfW(Addr) mainProgramBase()
{
    ElfW(Addr) base = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            *static_cast<ElfW(Addr)*>(data) = info->dlpi_addr;
            return 1;  // the first entry is the main program
        },
        &base);
    return base;
}

// Searches one symbol table section for the function covering `offset`.
bool findIn(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, std::uint64_t offset, CodeSymbol& out)
{
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) {
        return false;
    }
    const auto count = shdr.sh_size / shdr.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_size == 0) {
            continue;
        }
        if (offset >= sym.st_value && offset < sym.st_value + sym.st_size) {
            const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
            out.fullName = demangle(name != nullptr ? name : "?");
            out.name = shortFunctionName(out.fullName);
            out.bytes = sym.st_size;
            return true;
        }
    }
    return false;
}

}  // namespace

std::string shortFunctionName(const std::string& demangled)
{
    // Cut the parameter list: the first '(' outside template brackets, scanning from the left.
    std::string text = demangled;
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '<') {
            ++depth;
        } else if (text[i] == '>') {
            --depth;
        } else if (text[i] == '(' && depth == 0 && text.compare(i, 21, "(anonymous namespace)") != 0) {
            text.resize(i);
            break;
        }
    }
    // Cut the return type and the qualifiers: keep what follows the last "::" (or space) at depth 0.
    depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '<') {
            ++depth;
        } else if (text[i] == '>') {
            --depth;
        } else if (depth == 0 && text[i] == ':' && i + 1 < text.size() && text[i + 1] == ':') {
            start = i + 2;
        } else if (depth == 0 && text[i] == ' ' && text.compare(i, 11, " namespace)") != 0) {
            start = i + 1;
        }
    }
    return text.substr(start);
}

Result<CodeSymbol> codeSymbolAt(const void* address)
{
    Dl_info info{};
    if (dladdr(address, &info) == 0) {
        return Error{"no loaded object contains the address"};
    }
    const auto base = reinterpret_cast<ElfW(Addr)>(info.dli_fbase);
    const bool mainProgram = base == mainProgramBase();
    CodeSymbol out;
    out.file = mainProgram ? "/proc/self/exe" : (info.dli_fname != nullptr ? info.dli_fname : "");
    ElfFile file(out.file);
    if (file.get() == nullptr) {
        return Error{"cannot read the ELF file " + out.file};
    }
    GElf_Ehdr ehdr;
    if (gelf_getehdr(file.get(), &ehdr) == nullptr) {
        return Error{out.file + " is not an ELF file"};
    }
    // Symbol values are file addresses; a position-independent object was loaded at `base`.
    const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(address) - (ehdr.e_type == ET_DYN ? base : 0);
    bool sawTable = false;
    for (const auto type : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (Elf_Scn* scn = elf_nextscn(file.get(), nullptr); scn != nullptr; scn = elf_nextscn(file.get(), scn)) {
            GElf_Shdr shdr;
            if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != static_cast<GElf_Word>(type)) {
                continue;
            }
            sawTable = true;
            if (findIn(file.get(), scn, shdr, offset, out)) {
                return out;
            }
        }
    }
    return Error{sawTable ? "no function symbol in " + out.file + " covers the address"
                          : out.file + " has no symbol table (stripped)"};
}

}  // namespace nf::probes
