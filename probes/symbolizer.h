#pragma once
// Names for sampled addresses without debug information: kernel addresses from /proc/kallsyms
// (modules included, "name [module]"), user addresses from the ELF symbol tables (.symtab, else
// .dynsym) of the file a process mapped them from (/proc/PID/maps). What cannot be named is kept
// as such, never dropped: "[unknown kernel]" where kallsyms hides its addresses, "[unknown FILE]"
// for a stripped file or an address no symbol covers, "[unknown]" for anonymous (JIT) memory or a
// process that is gone.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nf::probes {

// Whether `address` is in the kernel's half of the x86-64 (and arm64) address space.
bool kernelAddress(std::uint64_t address);

// A sorted table of symbols: the one covering an address, by start and size (size 0: up to the
// next symbol, as kallsyms gives no sizes).
class SymbolTable {
public:
    void add(std::uint64_t start, std::uint64_t size, std::string name);
    void sort();
    const std::string* find(std::uint64_t address) const;
    bool empty() const { return m_entries.empty(); }

private:
    struct Entry {
        std::uint64_t start;
        std::uint64_t size;
        std::string name;
    };
    std::vector<Entry> m_entries;
};

// /proc/kallsyms's text: text symbols (t, T, w, W) with their module.
SymbolTable parseKallsyms(const std::string& text);

// The function symbols of an ELF file, at their file addresses, named as shortFunctionName gives.
// Empty when the file cannot be read or is stripped.
SymbolTable readElfFunctions(const std::string& path);

class Symbolizer {
public:
    Symbolizer();
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    // The name of `address` in process `pid` (kernel addresses in any).
    std::string name(pid_t pid, std::uint64_t address);

private:
    struct Mapping;
    const std::vector<Mapping>& mappings(pid_t pid);
    const SymbolTable& fileSymbols(const std::string& path);

    SymbolTable m_kernel;
    std::map<pid_t, std::vector<Mapping>> m_maps;
    std::map<std::string, std::unique_ptr<SymbolTable>> m_files;
    std::map<std::string, std::uint64_t> m_loadBias;  // per file: file address = offset + bias
};

}  // namespace nf::probes
