#pragma once
// Errors are values: a Result<T> holds either a T or an Error with errno and context.
// (std::expected is C++23; this is the small subset the libraries need.)

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace nf {

// The text of an errno value; thread-safe, unlike std::strerror.
inline std::string errnoText(int err)
{
    const char* text = strerrordesc_np(err);
    return text != nullptr ? text : "error " + std::to_string(err);
}

struct Error {
    std::string message;  // one line, says what failed and with which value
    int errnum = 0;       // errno when a system call failed, else 0

    static Error fromErrno(std::string what, int err = errno)
    {
        return Error{std::move(what) + ": " + errnoText(err), err};
    }
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_ok(false) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_ok = true;
};

}  // namespace nf
