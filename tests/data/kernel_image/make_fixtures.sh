#!/usr/bin/env bash
# Makes the fixtures of tests/probes/kernel_image_test.cpp with the real toolchain and compressors:
# tiny ELF "kernels" linked by gcc/ld with a GNU build id, and small x86 bzImages around them (a
# setup header laid out per the kernel's Documentation/arch/x86/boot.rst, protocol 2.15) whose
# payload is compressed the way the kernel's build compresses vmlinux.bin (scripts/Makefile.lib,
# scripts/xz_wrap.sh), followed by the 4 size bytes of size_append. What each made and what
# `readelf -n` printed is in PROVENANCE.md; rerunning with another gcc/binutils gives other build
# ids, so update PROVENANCE.md and the test's expectations with the outputs.
# Needs: gcc (with -m32), ld, objcopy, gzip, xz, zstd, lz4, bzip2, python3.
# Run: tests/data/kernel_image/make_fixtures.sh (writes into its own folder)
set -euo pipefail
cd "$(dirname "$0")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cflags=(-O2 -nostdlib -static -fno-pie -no-pie -fno-asynchronous-unwind-tables -Wl,-z,noseparate-code)

# ELF files.
gcc "${cflags[@]}" -Wl,--build-id=sha1 -o vmlinux-tiny tiny.c
gcc -m32 "${cflags[@]}" -Wl,--build-id=sha1 -o vmlinux-tiny-32 tiny.c
gcc "${cflags[@]}" -Wl,--build-id=none -o vmlinux-nobuildid tiny.c
# A module is a relocatable object linked with `ld -r --build-id=sha1` (scripts/Makefile.modfinal):
# its note is in a SHT_NOTE section, and it has no program headers.
gcc -O2 -fno-asynchronous-unwind-tables -c -o "$tmp/tiny.o" tiny.c
ld -r --build-id=sha1 -o tiny.ko "$tmp/tiny.o"

# vmlinux-tiny without section headers (as sstrip leaves a file): only the PT_NOTE segment is left.
python3 - <<'EOF'
import struct
elf = bytearray(open("vmlinux-tiny", "rb").read())
shoff = struct.unpack_from("<Q", elf, 0x28)[0]
del elf[shoff:]                               # the section header table is last
struct.pack_into("<Q", elf, 0x28, 0)          # e_shoff
struct.pack_into("<HHH", elf, 0x3a, 0, 0, 0)  # e_shentsize, e_shnum, e_shstrndx
open("vmlinux-tiny-noshdr", "wb").write(elf)
EOF

# Payloads: vmlinux.bin is vmlinux stripped (OBJCOPYFLAGS_vmlinux.bin := -R .comment -S,
# arch/x86/boot/compressed/Makefile). size_append writes the uncompressed size as 4 bytes, little
# endian. Kernels whose cmd_gzip has no size_append rely on gzip's own trailer, which ends with the
# same 4 bytes; older ones appended them to gzip too. The gzip fixture appends them: the reader must
# stop at the end of the stream.
size_append() { python3 -c 'import os, struct, sys; sys.stdout.buffer.write(struct.pack("<I", os.path.getsize(sys.argv[1])))' "$1"; }
objcopy -R .comment -S vmlinux-tiny "$tmp/vmlinux.bin"
objcopy -R .comment -S vmlinux-nobuildid "$tmp/vmlinux-nobuildid.bin"
bin=$tmp/vmlinux.bin
{ gzip -n -f -9 < "$bin"; size_append "$bin"; } > "$tmp/payload.gz"
{ xz --check=crc32 --x86 --lzma2=,dict=32MiB < "$bin"; size_append "$bin"; } > "$tmp/payload.xz"
{ zstd -q -22 --ultra < "$bin"; size_append "$bin"; } > "$tmp/payload.zst"
{ lz4 -q -l -c1 < "$bin"; size_append "$bin"; } > "$tmp/payload.lz4"
{ bzip2 -9 < "$bin"; size_append "$bin"; } > "$tmp/payload.bz2"
{ xz --format=lzma -9 < "$bin"; size_append "$bin"; } > "$tmp/payload.lzma"
{ gzip -n -f -9 < "$tmp/vmlinux-nobuildid.bin"; size_append "$tmp/vmlinux-nobuildid.bin"; } > "$tmp/payload-nobuildid.gz"
{ gzip -n -f -9 < tiny.c; size_append tiny.c; } > "$tmp/payload-not-elf.gz"

# bzImages: setup sectors, then the protected-mode code: a stand-in for the decompressor, the
# payload at payload_offset, and more code after it.
TMP=$tmp python3 - <<'EOF'
import os, struct

tmp = os.environ["TMP"]

def bzimage(payload, setup_sects, head=0x3b5, tail=0x123, payload_offset=None):
    sects = setup_sects if setup_sects != 0 else 4  # boot.rst: 0 means 4
    pm = bytearray(b"\xcc" * head) + payload + bytearray(b"\xcc" * tail)
    pm += b"\0" * (-len(pm) % 16)
    setup = bytearray((sects + 1) * 512)
    setup[0:2] = b"MZ"
    struct.pack_into("<B", setup, 0x1F1, setup_sects)
    struct.pack_into("<I", setup, 0x1F4, len(pm) // 16)      # syssize, 16-byte paragraphs
    struct.pack_into("<H", setup, 0x1FE, 0xAA55)            # boot_flag
    setup[0x200:0x202] = b"\xeb\x66"                         # jump
    setup[0x202:0x206] = b"HdrS"                             # header
    struct.pack_into("<H", setup, 0x206, 0x020F)            # version 2.15
    struct.pack_into("<B", setup, 0x211, 0x01)              # loadflags: LOADED_HIGH
    struct.pack_into("<I", setup, 0x214, 0x100000)          # code32_start
    struct.pack_into("<I", setup, 0x248, head if payload_offset is None else payload_offset)
    struct.pack_into("<I", setup, 0x24C, len(payload))      # payload_length
    struct.pack_into("<I", setup, 0x260, 0x10000)           # init_size
    return bytes(setup + pm)

def payload(name):
    return open(os.path.join(tmp, name), "rb").read()

def write(name, data):
    open(name, "wb").write(data)

write("bzImage-gzip", bzimage(payload("payload.gz"), setup_sects=0))
write("bzImage-xz", bzimage(payload("payload.xz"), setup_sects=0x11))
write("bzImage-zstd", bzimage(payload("payload.zst"), setup_sects=1))
write("bzImage-lz4", bzimage(payload("payload.lz4"), setup_sects=1))
write("bzImage-bzip2", bzimage(payload("payload.bz2"), setup_sects=1))
write("bzImage-lzma", bzimage(payload("payload.lzma"), setup_sects=1))
write("bzImage-nobuildid", bzimage(payload("payload-nobuildid.gz"), setup_sects=1))
write("bzImage-not-elf", bzimage(payload("payload-not-elf.gz"), setup_sects=1))  # gzip of tiny.c
# Cut in the middle of its payload.
whole = bzimage(payload("payload.gz"), setup_sects=1)
write("bzImage-truncated", whole[: 2 * 512 + 0x3b5 + len(payload("payload.gz")) // 2])
# payload_offset 256 MiB, past the end of the file.
write("bzImage-offset-past-end", bzimage(payload("payload.zst"), setup_sects=1, payload_offset=0x10000000))
EOF

printf 'This is a text file, neither an ELF file nor a bzImage.\n' > not-a-kernel.txt

for f in vmlinux-tiny vmlinux-tiny-32 vmlinux-tiny-noshdr tiny.ko vmlinux-nobuildid; do
  echo "== readelf -n $f"
  readelf -n "$f" | grep -E 'Build ID' || echo "(no build id)"
done
