#pragma once
// A temporary directory only this user can enter, for files SQLite opens by name (a copy being
// upgraded, a run database being exported, a new database being made): mkdtemp picks a name nobody
// can guess or plant a symlink at, mode 0700 keeps others out of it, and everything in it goes
// when the object does, on every path.

#include <filesystem>
#include <string>

#include "base/result.h"

namespace nf::data {

class PrivateDir {
public:
    // A new directory `<parent>/<stem>-XXXXXX`, mode 0700.
    static Result<PrivateDir> create(const std::filesystem::path& parent, const std::string& stem);
    // In the temporary directory ($TMPDIR, else /tmp).
    static Result<PrivateDir> createTemporary(const std::string& stem);

    PrivateDir(PrivateDir&& other) noexcept : m_path(std::move(other.m_path)) { other.m_path.clear(); }
    PrivateDir& operator=(PrivateDir&& other) noexcept;
    PrivateDir(const PrivateDir&) = delete;
    PrivateDir& operator=(const PrivateDir&) = delete;
    ~PrivateDir() { remove(); }

    const std::string& path() const { return m_path; }
    // `name` inside the directory.
    std::string file(const std::string& name) const { return m_path + "/" + name; }
    // Removes the directory and everything in it now (also done by the destructor).
    void remove();

private:
    explicit PrivateDir(std::string path) : m_path(std::move(path)) {}
    std::string m_path;
};

}  // namespace nf::data
