#pragma once
// The GNU build id of a kernel, which names the exact build that ran: from the kernel image a
// campaign is given (an ELF vmlinux or module, or an x86 bzImage whose compressed payload is the
// vmlinux), and from the notes the running kernel exposes in /sys/kernel/notes. Written as
// `readelf -n` prints it: "Build ID: 2401...4bfa".

#include <string>
#include <string_view>

#include "base/result.h"

namespace nf::probes {

// The GNU build id of a kernel image, read from:
// - an ELF file (vmlinux, a .ko): its NT_GNU_BUILD_ID note, from SHT_NOTE sections or, where the
//   file has no section headers, PT_NOTE segments;
// - an x86 bzImage (setup header "HdrS", boot protocol 2.08 or later): its payload decompressed in
//   memory (gzip, xz or zstd; at most 512 MiB) and read as the ELF vmlinux it is.
// Errors are one line naming the file: "PATH: not an ELF file or an x86 bzImage", "PATH has no GNU
// build-id note", "PATH: bzImage payload is lz4-compressed; only gzip, xz and zstd are read".
Result<std::string> kernelBuildId(const std::string& path);

// The GNU build id from the bytes of ELF notes as the kernel exposes them in /sys/kernel/notes
// (records of namesz, descsz, type, the name and the desc, each padded to 4 bytes, in the host's
// byte order). "" when there is no NT_GNU_BUILD_ID note ("GNU\0", type 3) or the records are cut.
std::string buildIdFromNotes(std::string_view notes);

// Lowercase hex of bytes: "\x24\x01\xab" -> "2401ab".
std::string hexBytes(std::string_view bytes);

}  // namespace nf::probes
