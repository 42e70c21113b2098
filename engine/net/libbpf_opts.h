#pragma once
// libbpf's option structs, zeroed and sized as LIBBPF_OPTS does. The macro itself is a GNU
// statement expression around a C99 compound literal, which a pedantic C++ build rejects.
namespace nf::engine::net {

template <class Opts>
Opts libbpfOpts()
{
    Opts opts{};
    opts.sz = sizeof(Opts);
    return opts;
}

}  // namespace nf::engine::net
