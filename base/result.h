#pragma once
// Errors are values: a Result<T> holds either a T or an Error with errno and context.
// (std::expected is C++23; this is the subset the libraries need, with its monadic calls.)
// NF_TRY(expr) propagates an error to the caller: the one way the libraries do it.

#include <cerrno>
#include <cstring>
#include <string>
#include <type_traits>
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

    T valueOr(T fallback) const& { return ok() ? value() : std::move(fallback); }

    // std::expected's monadic calls: `f` sees the value, an error passes through untouched.
    // andThen: f returns a Result<U>; transform: f returns a U.
    template <class F>
    auto andThen(F&& f) const& -> std::invoke_result_t<F, const T&>
    {
        if (!ok()) {
            return error();
        }
        return std::forward<F>(f)(value());
    }
    template <class F>
    auto andThen(F&& f) && -> std::invoke_result_t<F, T&&>
    {
        if (!ok()) {
            return error();
        }
        return std::forward<F>(f)(std::move(*this).value());
    }
    template <class F>
    auto transform(F&& f) const& -> Result<std::invoke_result_t<F, const T&>>
    {
        if (!ok()) {
            return error();
        }
        return std::forward<F>(f)(value());
    }
    template <class F>
    auto transform(F&& f) && -> Result<std::invoke_result_t<F, T&&>>
    {
        if (!ok()) {
            return error();
        }
        return std::forward<F>(f)(std::move(*this).value());
    }
    // The error with `context` in front of its message ("counters: " + message); a value passes.
    Result withContext(const std::string& context) &&
    {
        if (!ok()) {
            return Error{context + error().message, error().errnum};
        }
        return std::move(*this);
    }

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

    template <class F>
    auto andThen(F&& f) const -> std::invoke_result_t<F>
    {
        if (!ok()) {
            return error();
        }
        return std::forward<F>(f)();
    }
    Result withContext(const std::string& context) &&
    {
        if (!ok()) {
            return Error{context + m_error.message, m_error.errnum};
        }
        return *this;
    }

private:
    Error m_error;
    bool m_ok = true;
};

namespace detail {

template <class R>
struct IsVoidResult : std::false_type {
};
template <>
struct IsVoidResult<Result<void>> : std::true_type {
};

template <class R>
decltype(auto) tryValue(R&& result)
{
    if constexpr (IsVoidResult<std::remove_cvref_t<R>>::value) {
        return;
    } else {
        return std::forward<R>(result).value();
    }
}

}  // namespace detail

}  // namespace nf

// NF_TRY(expr): the value of a Result<T> expression, or, when it holds an error, a return of that
// error from the enclosing function (which returns a Result). For a Result<void> it is a
// statement. `auto table = NF_TRY(parse(src));` A GNU statement expression (GCC and Clang), as
// SerenityOS's TRY() is: the error-returning path stays out of the reader's way. Each use names its
// variable apart (__COUNTER__), so an NF_TRY inside a lambda given to another shadows nothing.
#define NF_TRY(...) NF_TRY_NAMED_(NF_TRY_CONCAT_(nf_try_result_, __COUNTER__), __VA_ARGS__)
#define NF_TRY_CONCAT_(a, b) NF_TRY_CONCAT2_(a, b)
#define NF_TRY_CONCAT2_(a, b) a##b
#define NF_TRY_NAMED_(name, ...)                                    \
    __extension__({                                                 \
        auto&& name = (__VA_ARGS__);                                \
        if (!name.ok()) {                                           \
            return name.error();                                    \
        }                                                           \
        ::nf::detail::tryValue(std::forward<decltype(name)>(name)); \
    })
