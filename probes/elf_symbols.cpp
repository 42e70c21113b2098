#include "probes/elf_symbols.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>

#include <array>
#include <cctype>
#include <cstring>
#include <string_view>

#include "probes/elf_file.h"

namespace nf::probes {

namespace {

// 1 TiB: no symbol of a real build comes near it, and sums of this many bytes per symbol stay far
// inside an int64 for any symbol table.
constexpr GElf_Xword kMostBytes = GElf_Xword{1} << 40;

struct Section {
    GElf_Word type = SHT_NULL;
    GElf_Xword flags = 0;
    std::string name;
};

bool startsWith(const std::string& text, std::string_view prefix)
{
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Non-allocated sections bfd takes for debugging information, by name (elf.c,
// _bfd_elf_make_section_from_shdr).
bool debugging(const std::string& name)
{
    return startsWith(name, ".debug") || startsWith(name, ".gnu.debuglto_.debug_") ||
           startsWith(name, ".gnu.linkonce.wi.") || startsWith(name, ".zdebug") || startsWith(name, ".line") ||
           startsWith(name, ".stab") || name == ".gdb_index";
}

// The letter of a symbol defined in `s` (bfd's coff_section_type, then decode_section_type, over
// the flags bfd gives an ELF section): lower case.
char sectionLetter(const Section& s)
{
    // Microsoft's sections keep their own letters, named by prefix and a '.', '$', digit or the end.
    constexpr std::array<std::pair<std::string_view, char>, 4> byName = {
        {{".drectve", 'i'}, {".edata", 'e'}, {".idata", 'i'}, {".pdata", 'p'}}};
    for (const auto& [prefix, letter] : byName) {
        if (startsWith(s.name, prefix) &&
            (s.name.size() == prefix.size() || std::strchr(".$0123456789", s.name[prefix.size()]) != nullptr)) {
            return letter;
        }
    }
    const bool contents = s.type != SHT_NOBITS;
    const bool alloc = (s.flags & SHF_ALLOC) != 0;
    const bool readOnly = (s.flags & SHF_WRITE) == 0;
    if ((s.flags & SHF_EXECINSTR) != 0) {
        return 't';
    }
    if (alloc && contents) {
        return readOnly ? 'r' : 'd';
    }
    if (!contents) {
        return 'b';
    }
    if (!alloc && debugging(s.name)) {
        return 'N';
    }
    return readOnly ? 'n' : '?';
}

// nm's letter for a symbol (bfd_decode_symclass on what elf_slurp_symbol_table made of it), whose
// section is `index` (st_shndx, or the extended index of SHN_XINDEX); '\0' for one nm --size-sort
// does not list (undefined, absolute, section and file symbols).
char typeLetter(const GElf_Sym& sym, std::size_t index, const std::vector<Section>& sections)
{
    const int type = GELF_ST_TYPE(sym.st_info);
    const int bind = GELF_ST_BIND(sym.st_info);
    const bool object = type == STT_OBJECT || type == STT_COMMON;
    const bool reserved = sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX;
    if (type == STT_SECTION || type == STT_FILE || index == SHN_UNDEF || (reserved && index == SHN_ABS)) {
        return '\0';
    }
    if (reserved && (index == SHN_COMMON || (index >= SHN_LOPROC && index <= SHN_HIPROC))) {
        return 'C';  // the processors' reserved indices are their common sections (large, small)
    }
    if (reserved || index >= sections.size()) {
        return '\0';  // another reserved index, or none: bfd puts it in the absolute section
    }
    if (type == STT_GNU_IFUNC) {
        return 'i';
    }
    if (bind == STB_WEAK) {
        return object ? 'V' : 'W';
    }
    if (bind == STB_GNU_UNIQUE) {
        return 'u';
    }
    if (bind != STB_LOCAL && bind != STB_GLOBAL) {
        return '?';
    }
    const char letter = sectionLetter(sections[index]);
    return bind == STB_GLOBAL ? static_cast<char>(std::toupper(static_cast<unsigned char>(letter))) : letter;
}

std::string libelfError(const std::string& what)
{
    const int err = elf_errno();
    const char* why = err != 0 ? elf_errmsg(err) : nullptr;
    return what + (why != nullptr ? std::string(" (libelf: ") + why + ")" : "");
}

}  // namespace

Result<std::vector<NmSymbol>> readSizedSymbols(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return Error::fromErrno("cannot read " + path);
    }
    if (S_ISDIR(st.st_mode)) {
        return Error{path + ": a directory, not a file", EISDIR};
    }
    (void)elf_errno();  // clears an error left from an earlier file
    ElfFile file(path);
    if (file.openError() != 0) {
        return Error::fromErrno("cannot read " + path, file.openError());
    }
    Elf* elf = file.get();
    if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
        const bool archive = elf != nullptr && elf_kind(elf) == ELF_K_AR;
        return Error{path + (archive ? ": an ar archive, not an ELF file (give vmlinux or a .ko)"
                                     : ": not an ELF file (give vmlinux or a .ko)"),
                     0};
    }
    std::size_t count = 0;
    std::size_t names = 0;
    if (elf_getshdrnum(elf, &count) != 0 || elf_getshdrstrndx(elf, &names) != 0) {
        return Error{libelfError(path + ": cannot read its section headers"), 0};
    }
    std::vector<Section> sections(count);
    Elf_Scn* symtab = nullptr;
    GElf_Shdr symtabHeader{};
    Elf_Data* extendedIndices = nullptr;  // SHT_SYMTAB_SHNDX: the section of a symbol marked SHN_XINDEX
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const std::size_t index = elf_ndxscn(scn);
        if (gelf_getshdr(scn, &shdr) == nullptr || index >= count) {
            return Error{libelfError(path + ": cannot read its section headers"), 0};
        }
        const char* name = elf_strptr(elf, names, shdr.sh_name);
        sections[index] = {shdr.sh_type, shdr.sh_flags, name != nullptr ? name : ""};
        if (shdr.sh_type == SHT_SYMTAB && symtab == nullptr) {
            symtab = scn;
            symtabHeader = shdr;
        }
    }
    if (symtab == nullptr) {
        return Error{path + ": no symbol table (stripped); give the build's unstripped vmlinux or .ko", 0};
    }
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == SHT_SYMTAB_SHNDX &&
            shdr.sh_link == elf_ndxscn(symtab)) {
            extendedIndices = elf_getdata(scn, nullptr);
        }
    }
    Elf_Data* data = elf_getdata(symtab, nullptr);
    if (data == nullptr || symtabHeader.sh_entsize == 0) {
        return Error{libelfError(path + ": cannot read its symbol table"), 0};
    }
    std::vector<NmSymbol> out;
    const std::size_t symbols = symtabHeader.sh_size / symtabHeader.sh_entsize;
    for (std::size_t i = 1; i < symbols; ++i) {  // entry 0 is the null symbol
        GElf_Sym sym;
        Elf32_Word extended = 0;
        if (gelf_getsymshndx(data, extendedIndices, static_cast<int>(i), &sym, &extended) == nullptr) {
            return Error{libelfError(path + ": cannot read symbol " + std::to_string(i)), 0};
        }
        const std::size_t index = sym.st_shndx == SHN_XINDEX ? extended : sym.st_shndx;
        const char type = typeLetter(sym, index, sections);
        if (type == '\0' || sym.st_size == 0) {
            continue;
        }
        const char* name = elf_strptr(elf, symtabHeader.sh_link, sym.st_name);
        if (sym.st_size > kMostBytes) {
            return Error{path + ": symbol " + (name != nullptr ? name : std::to_string(i)) + " of " +
                             std::to_string(sym.st_size) + " bytes: no build has one that large (a damaged file?)",
                         0};
        }
        out.push_back({name != nullptr ? name : "", type, sym.st_size});
    }
    return out;
}

}  // namespace nf::probes
