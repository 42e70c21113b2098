#pragma once
// A file written whole or not at all: an unnamed file in the target's directory (O_TMPFILE, else a
// named temporary), flushed to disk and put in place of the target in one rename. A symlink's
// target is replaced, not the link; nothing is left behind on any failure.

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/result.h"

namespace nf::cli {

class AtomicFile {
public:
    // `mode` before the umask.
    static Result<AtomicFile> create(const std::string& target, mode_t mode = 0644);
    AtomicFile(AtomicFile&& o) noexcept;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    AtomicFile& operator=(AtomicFile&&) = delete;
    ~AtomicFile() { discard(); }

    int fd() const { return m_fd; }

    // Flushed to disk, then put in place of the target in one rename.
    Result<void> commit();
    void discard();

private:
    AtomicFile() = default;
    std::string m_target;
    std::string m_named;  // the temporary's name when O_TMPFILE is not supported
    int m_fd = -1;
};

// `text` as the whole of the file at `path` (AtomicFile).
Result<void> writeFileWhole(const std::string& path, std::string_view text, mode_t mode = 0644);

}  // namespace nf::cli
