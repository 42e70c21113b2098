#include "probes/symbolizer.h"

#include <cxxabi.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "probes/code_size.h"
#include "probes/elf_file.h"

namespace nf::probes {

namespace {

std::string demangled(const char* name)
{
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? shortFunctionName(out.get()) : std::string(name);
}

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string baseName(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

void addFunctions(::Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, SymbolTable& table)
{
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) {
        return;
    }
    const auto count = shdr.sh_size / shdr.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_value == 0) {
            continue;
        }
        const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        if (name != nullptr && *name != '\0') {
            table.add(sym.st_value, sym.st_size, demangled(name));
        }
    }
}

// p_vaddr - p_offset of the executable segment: a file address is the mapped offset plus it.
std::uint64_t executableBias(const std::string& path)
{
    const ElfFile file(path);
    std::size_t count = 0;
    if (file.get() == nullptr || elf_getphdrnum(file.get(), &count) != 0) {
        return 0;
    }
    for (std::size_t i = 0; i < count; ++i) {
        GElf_Phdr phdr;
        if (gelf_getphdr(file.get(), static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_LOAD &&
            (phdr.p_flags & PF_X) != 0) {
            return phdr.p_vaddr - phdr.p_offset;
        }
    }
    return 0;
}

}  // namespace

bool kernelAddress(std::uint64_t address)
{
    return address >= 0xffff800000000000ULL;
}

void SymbolTable::add(std::uint64_t start, std::uint64_t size, std::string name)
{
    m_entries.push_back({start, size, std::move(name)});
}

void SymbolTable::sort()
{
    std::stable_sort(m_entries.begin(), m_entries.end(),
                     [](const Entry& a, const Entry& b) { return a.start < b.start; });
}

const std::string* SymbolTable::find(std::uint64_t address) const
{
    const auto after = std::upper_bound(m_entries.begin(), m_entries.end(), address,
                                        [](std::uint64_t a, const Entry& e) { return a < e.start; });
    if (after == m_entries.begin()) {
        return nullptr;
    }
    // Several symbols may start at one address (aliases): one whose size covers it wins; a symbol
    // without a size (kallsyms) reaches up to the next one.
    const std::uint64_t start = (after - 1)->start;
    const Entry* unsized = nullptr;
    for (auto it = after; it != m_entries.begin() && (it - 1)->start == start;) {
        --it;
        if (it->size == 0) {
            unsized = unsized != nullptr ? unsized : &*it;
        } else if (address < it->start + it->size) {
            return &it->name;
        }
    }
    return unsized != nullptr ? &unsized->name : nullptr;
}

SymbolTable parseKallsyms(const std::string& text)
{
    SymbolTable table;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto firstSpace = line.find(' ');
        if (firstSpace == std::string::npos || firstSpace + 3 > line.size()) {
            continue;
        }
        const char type = line[firstSpace + 1];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W') {
            continue;
        }
        const std::uint64_t address = std::strtoull(line.substr(0, firstSpace).c_str(), nullptr, 16);
        if (address == 0) {
            continue;  // kptr_restrict hides the addresses
        }
        std::string name = line.substr(firstSpace + 3);
        if (const auto tab = name.find('\t'); tab != std::string::npos) {
            name = name.substr(0, tab) + " " + name.substr(tab + 1);  // "name [module]"
        }
        table.add(address, 0, std::move(name));
    }
    table.sort();
    return table;
}

SymbolTable readElfFunctions(const std::string& path)
{
    SymbolTable table;
    const ElfFile file(path);
    if (file.get() == nullptr) {
        return table;
    }
    for (const auto type : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (Elf_Scn* scn = elf_nextscn(file.get(), nullptr); scn != nullptr; scn = elf_nextscn(file.get(), scn)) {
            GElf_Shdr shdr;
            if (gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == static_cast<GElf_Word>(type)) {
                addFunctions(file.get(), scn, shdr, table);
            }
        }
        if (!table.empty()) {
            break;  // .symtab has what .dynsym has
        }
    }
    table.sort();
    return table;
}

struct Symbolizer::Mapping {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t offset = 0;
    std::string path;
};

Symbolizer::Symbolizer() : m_kernel(parseKallsyms(readText("/proc/kallsyms"))) {}

Symbolizer::~Symbolizer() = default;

const std::vector<Symbolizer::Mapping>& Symbolizer::mappings(pid_t pid)
{
    auto [it, fresh] = m_maps.try_emplace(pid);
    if (!fresh) {
        return it->second;
    }
    std::istringstream in(readText("/proc/" + std::to_string(pid) + "/maps"));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string range;
        std::string perms;
        std::string offset;
        std::string device;
        std::string inode;
        std::string path;
        fields >> range >> perms >> offset >> device >> inode;
        std::getline(fields >> std::ws, path);
        const auto dash = range.find('-');
        if (dash == std::string::npos || perms.size() < 3 || perms[2] != 'x') {
            continue;
        }
        it->second.push_back({std::strtoull(range.substr(0, dash).c_str(), nullptr, 16),
                              std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16),
                              std::strtoull(offset.c_str(), nullptr, 16), path});
    }
    return it->second;
}

const SymbolTable& Symbolizer::fileSymbols(const std::string& path)
{
    auto& table = m_files[path];
    if (!table) {
        table = std::make_unique<SymbolTable>(readElfFunctions(path));
        m_loadBias[path] = executableBias(path);
    }
    return *table;
}

std::string Symbolizer::name(pid_t pid, std::uint64_t address)
{
    if (kernelAddress(address)) {
        const auto* found = m_kernel.find(address);
        return found != nullptr ? *found : "[unknown kernel]";
    }
    for (const auto& map : mappings(pid)) {
        if (address < map.start || address >= map.end) {
            continue;
        }
        if (map.path.empty() || map.path.front() != '/') {
            return map.path.empty() ? "[unknown]" : map.path;  // [vdso], anonymous (JIT) code
        }
        const auto& table = fileSymbols(map.path);
        const std::uint64_t fileAddress = address - map.start + map.offset + m_loadBias[map.path];
        const auto* found = table.find(fileAddress);
        return found != nullptr ? *found : "[unknown " + baseName(map.path) + "]";
    }
    return "[unknown]";
}

}  // namespace nf::probes
