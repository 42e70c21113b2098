#!/usr/bin/env bash
# Makes the ELF fixtures of `noisefloor size` and what the kernel's own tools print for them: two
# builds of pool.c (old, and new with -DNEW) as a module is built (x86-64 and i386 relocatable
# objects) and as vmlinux is linked (a static x86-64 executable), a stripped copy, `nm --size-sort`
# of each file, and scripts/bloat-o-meter's table for each pair. The tests compare noisefloor's
# reading and its table with these outputs byte for byte; none was made by the code under test.
# Needs: gcc (with -m32), binutils (nm, strip), python3, and scripts/bloat-o-meter of a Linux tree
# (its path as the first argument; it is GPL-2.0 and not copied here).
# Run: tests/data/size/make_fixtures.sh ~/linux/scripts/bloat-o-meter (writes into its own folder)
set -euo pipefail
bloat=$(realpath "${1:?usage: make_fixtures.sh PATH/TO/scripts/bloat-o-meter}")
cd "$(dirname "$0")"
mkdir -p elf

# The kernel's builds: -O2, function and data sections, no loop-to-memset (there is no libc).
cflags=(-O2 -g0 -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns -ffunction-sections
        -fdata-sections)
for build in old new; do
    define=()
    [ "$build" = new ] && define=(-DNEW)
    gcc "${cflags[@]}" "${define[@]}" -c -o "elf/pool-$build.o" pool.c
    gcc -m32 "${cflags[@]}" "${define[@]}" -c -o "elf/pool-$build-32.o" pool.c
    gcc "${cflags[@]}" "${define[@]}" -nostdlib -static -fno-pie -no-pie -Wl,-e,pool_init -Wl,-z,noseparate-code \
        -Wl,--build-id=none -o "elf/vmlinux-$build" pool.c
done
strip -s -o elf/vmlinux-stripped elf/vmlinux-new

for file in pool-old.o pool-new.o pool-old-32.o pool-new-32.o vmlinux-old vmlinux-new; do
    nm --size-sort "elf/$file" > "elf/$file.nm"
done
(cd elf && python3 "$bloat" pool-old.o pool-new.o) > elf/pool.o.bloat-o-meter
(cd elf && python3 "$bloat" pool-old-32.o pool-new-32.o) > elf/pool-32.o.bloat-o-meter
(cd elf && python3 "$bloat" vmlinux-old vmlinux-new) > elf/vmlinux.bloat-o-meter
(cd elf && python3 "$bloat" vmlinux-new vmlinux-old) > elf/vmlinux-reversed.bloat-o-meter
