#pragma once
// An ELF file open for reading with libelf, closed with the object; get() is null when the file
// cannot be opened or is not ELF, and openError() the errno of an open that failed. Shared by the
// code size, the symbolizer, the kernel image reader and the symbol sizes.

#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace nf::probes {

class ElfFile {
public:
    explicit ElfFile(const std::string& path) : m_fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC))
    {
        m_openError = m_fd < 0 ? errno : 0;
        if (m_fd >= 0 && elf_version(EV_CURRENT) != EV_NONE) {
            m_elf = elf_begin(m_fd, ELF_C_READ, nullptr);
        }
    }
    ~ElfFile()
    {
        if (m_elf != nullptr) {
            elf_end(m_elf);
        }
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    ElfFile(const ElfFile&) = delete;
    ElfFile& operator=(const ElfFile&) = delete;

    Elf* get() const { return m_elf; }
    int openError() const { return m_openError; }

private:
    int m_fd;
    int m_openError = 0;
    Elf* m_elf = nullptr;
};

}  // namespace nf::probes
