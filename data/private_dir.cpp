#include "data/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace nf::data {

Result<PrivateDir> PrivateDir::create(const std::filesystem::path& parent, const std::string& stem)
{
    std::string name = (parent / (stem + "-XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr) {  // mode 0700, whatever the umask
        return Error::fromErrno("cannot make a private directory in " + parent.string());
    }
    return PrivateDir(std::move(name));
}

Result<PrivateDir> PrivateDir::createTemporary(const std::string& stem)
{
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) {
        return Error{"cannot find the temporary directory: " + ec.message(), ec.value()};
    }
    return create(dir, stem);
}

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept
{
    if (this != &other) {
        remove();
        m_path = std::move(other.m_path);
        other.m_path.clear();
    }
    return *this;
}

void PrivateDir::remove()
{
    if (m_path.empty()) {
        return;
    }
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
    m_path.clear();
}

}  // namespace nf::data
