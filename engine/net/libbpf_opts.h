#pragma once
// libbpf's option structs, zeroed and sized in place as LIBBPF_OPTS does. The macro itself is a
// GNU statement expression around a C99 compound literal, which a pedantic C++ build rejects.
// libbpf refuses a struct whose bytes past the fields it knows are not zero, padding included, so
// the struct is zeroed where it lives: a copy (a function returning it by value) need not keep
// padding bytes, and `Opts opts{}` need not zero them.

#include <cstring>

namespace nf::engine::net {

template <class Opts>
void initOpts(Opts& opts)
{
    std::memset(&opts, 0, sizeof(opts));
    opts.sz = sizeof(Opts);
}

}  // namespace nf::engine::net
