#include "app/cli/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

namespace nf::cli {

Result<AtomicFile> AtomicFile::create(const std::string& target, mode_t mode)
{
    AtomicFile f;
    std::error_code ec;
    f.m_target = target;
    if (std::filesystem::is_symlink(target, ec)) {  // replace what it points to, not the link
        f.m_target = std::filesystem::weakly_canonical(target, ec).string();
    }
    auto dir = std::filesystem::path(f.m_target).parent_path().string();
    if (dir.empty()) {
        dir = ".";
    }
    f.m_fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (f.m_fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        f.m_named = f.m_target + ".tmp-" + std::to_string(::getpid());
        f.m_fd = ::open(f.m_named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    }
    if (f.m_fd < 0) {
        return Error::fromErrno("cannot write " + target);
    }
    return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : m_target(std::move(o.m_target)), m_named(std::move(o.m_named)), m_fd(std::exchange(o.m_fd, -1))
{
}

Result<void> AtomicFile::commit()
{
    if (::fsync(m_fd) != 0) {
        return Error::fromErrno("cannot write " + m_target);
    }
    std::string from = m_named;
    if (from.empty()) {
        from = m_target + ".tmp-" + std::to_string(::getpid());
        const std::string self = "/proc/self/fd/" + std::to_string(m_fd);
        if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, from.c_str(), AT_SYMLINK_FOLLOW) != 0) {
            return Error::fromErrno("cannot write " + m_target);
        }
    }
    if (::rename(from.c_str(), m_target.c_str()) != 0) {
        const int err = errno;
        ::unlink(from.c_str());
        return Error::fromErrno("cannot write " + m_target, err);
    }
    m_named.clear();
    ::close(m_fd);
    m_fd = -1;
    return {};
}

void AtomicFile::discard()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (!m_named.empty()) {
        ::unlink(m_named.c_str());
        m_named.clear();
    }
}

Result<void> writeFileWhole(const std::string& path, std::string_view text, mode_t mode)
{
    auto file = NF_TRY(AtomicFile::create(path, mode));
    std::size_t at = 0;
    while (at < text.size()) {
        const ssize_t n = ::write(file.fd(), text.data() + at, text.size() - at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return Error::fromErrno("cannot write " + path, n < 0 ? errno : ENOSPC);
        }
        at += static_cast<std::size_t>(n);
    }
    return file.commit();
}

}  // namespace nf::cli
