#pragma once
// NF_OUT_OF_LINE marks a model function that stands for a real call in the kernel (an exported
// function, an out-of-line helper): never inlined, no inter-procedural facts leaking across it,
// and starting on a cache line so that two variants differ in their code, not their alignment.

#if defined(__clang__)
#define NF_OUT_OF_LINE __attribute__((noinline, aligned(64)))
#else
#define NF_OUT_OF_LINE __attribute__((noinline, noipa, aligned(64)))
#endif
