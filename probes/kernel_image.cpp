#include "probes/kernel_image.h"

#define ZLIB_CONST  // zlib.h: next_in is a const Bytef*
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "probes/elf_file.h"

namespace nf::probes {

namespace {

using namespace std::string_view_literals;

constexpr std::size_t kMaxImageBytes = std::size_t{512} << 20;  // a bzImage, and the vmlinux in it
constexpr std::size_t kSetupHeaderEnd = 0x250;                  // through payload_length
constexpr std::uint32_t kGnuBuildIdType = 3;                    // NT_GNU_BUILD_ID
constexpr std::string_view kGnuName = "GNU\0"sv;

std::uint32_t le32(std::string_view bytes, std::size_t at)
{
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

std::uint32_t le16(std::string_view bytes, std::size_t at)
{
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8;
}

// Up to `limit` bytes from the start of the file (all of it when it is shorter).
Result<std::string> readPrefix(const std::string& path, std::size_t limit)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return Error::fromErrno("cannot open " + path);
    }
    std::string out;
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    while (out.size() < limit) {
        const std::size_t have = out.size();
        out.resize(have + std::min(kChunk, limit - have));
        const ssize_t got = ::read(fd, out.data() + have, out.size() - have);
        if (got < 0) {
            const int err = errno;
            ::close(fd);
            return Error::fromErrno("cannot read " + path, err);
        }
        out.resize(have + static_cast<std::size_t>(got));
        if (got == 0) {
            break;
        }
    }
    ::close(fd);
    return out;
}

// The build id in one stretch of notes libelf has translated (a SHT_NOTE section or a PT_NOTE
// segment); "" when none of its notes is one.
std::string buildIdIn(Elf_Data* data)
{
    if (data == nullptr || data->d_buf == nullptr) {
        return {};
    }
    const auto* base = static_cast<const char*>(data->d_buf);
    std::size_t offset = 0;
    while (offset < data->d_size) {
        GElf_Nhdr note;
        std::size_t nameAt = 0;
        std::size_t descAt = 0;
        const std::size_t next = gelf_getnote(data, offset, &note, &nameAt, &descAt);
        if (next == 0) {
            break;
        }
        if (note.n_type == kGnuBuildIdType && std::string_view(base + nameAt, note.n_namesz) == kGnuName) {
            return hexBytes(std::string_view(base + descAt, note.n_descsz));
        }
        offset = next;
    }
    return {};
}

// The build id of an ELF file: its note sections, else (a file without section headers) its note
// segments. "" when there is none.
std::string elfBuildId(Elf* elf)
{
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == SHT_NOTE) {
            auto id = buildIdIn(elf_getdata(scn, nullptr));
            if (!id.empty()) {
                return id;
            }
        }
    }
    std::size_t segments = 0;
    if (elf_getphdrnum(elf, &segments) != 0) {
        return {};
    }
    for (std::size_t i = 0; i < segments; ++i) {
        GElf_Phdr phdr;
        if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_NOTE || phdr.p_filesz == 0) {
            continue;
        }
        const Elf_Type type = phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
        auto id = buildIdIn(elf_getdata_rawchunk(elf, static_cast<std::int64_t>(phdr.p_offset), phdr.p_filesz, type));
        if (!id.empty()) {
            return id;
        }
    }
    return {};
}

Result<std::string> elfFileBuildId(const std::string& path)
{
    (void)elf_errno();  // clears an error left from an earlier file
    ElfFile file(path);
    if (file.get() == nullptr || elf_kind(file.get()) != ELF_K_ELF) {
        const int err = elf_errno();
        const char* why = err != 0 ? elf_errmsg(err) : nullptr;
        return Error{path + ": not a readable ELF file" + (why != nullptr ? std::string(" (libelf: ") + why + ")" : ""),
                     0};
    }
    auto id = elfBuildId(file.get());
    if (id.empty()) {
        return Error{path + " has no GNU build-id note", 0};
    }
    return id;
}

// A bzImage payload's compression, told by its first bytes (the magic numbers the kernel's
// decompressors check, lib/decompress.c).
struct Compression {
    std::string_view magic;
    std::string_view name;
};
constexpr std::array kCompressions{
    Compression{"\x1f\x8b"sv, "gzip"},
    Compression{"\xfd"
                "7zXZ\0"sv,
                "xz"},
    Compression{"\x28\xb5\x2f\xfd"sv, "zstd"},
    Compression{"\x02\x21\x4c\x18"sv, "lz4"},  // the legacy frame, lz4 -l
    Compression{"\x04\x22\x4d\x18"sv, "lz4"},
    Compression{"\x89LZO\0"sv, "lzo"},
    Compression{"BZh"sv, "bzip2"},
    Compression{"\x5d\0\0"sv, "lzma"},
};

std::string_view compressionOf(std::string_view payload)
{
    for (const auto& c : kCompressions) {
        if (payload.substr(0, c.magic.size()) == c.magic) {
            return c.name;
        }
    }
    return {};
}

// More room for output: doubled (64 KiB at least), up to kMaxImageBytes; false when it is that
// large already.
bool grow(std::string& out)
{
    if (out.size() >= kMaxImageBytes) {
        return false;
    }
    out.resize(std::min(std::max(out.size() * 2, std::size_t{1} << 16), kMaxImageBytes));
    return true;
}

Error tooLarge()
{
    return Error{"it decompresses to more than " + std::to_string(kMaxImageBytes >> 20) + " MiB", 0};
}

// Each decompressor reads the first stream of `in`, ignoring what follows it (the size bytes the
// kernel's build appends), into `out`, which holds a first guess of the size.
Result<void> gunzip(std::string_view in, std::string& out)
{
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        return Error{"zlib cannot start", 0};
    }
    const std::unique_ptr<z_stream, decltype(&inflateEnd)> end(&zs, &inflateEnd);
    zs.next_in = reinterpret_cast<const Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(in.size());
    for (;;) {
        if (zs.total_out == out.size() && !grow(out)) {
            return tooLarge();
        }
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
        zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            out.resize(zs.total_out);
            return {};
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
            return Error{"the gzip stream is cut short", 0};
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return Error{std::string("zlib: ") + (zs.msg != nullptr ? zs.msg : zError(rc)), 0};
        }
    }
}

std::string lzmaText(lzma_ret rc)
{
    switch (rc) {
        case LZMA_MEM_ERROR: return "out of memory";
        case LZMA_FORMAT_ERROR: return "not an xz stream";
        case LZMA_OPTIONS_ERROR: return "unsupported xz options";
        case LZMA_DATA_ERROR: return "the xz data is corrupt";
        case LZMA_BUF_ERROR: return "the xz stream is cut short";
        default: return "liblzma error " + std::to_string(static_cast<int>(rc));
    }
}

Result<void> unxz(std::string_view in, std::string& out)
{
    lzma_stream xs = LZMA_STREAM_INIT;
    // No LZMA_CONCATENATED: the decoder stops at the end of the first stream.
    if (const lzma_ret rc = lzma_stream_decoder(&xs, UINT64_MAX, 0); rc != LZMA_OK) {
        return Error{"liblzma: " + lzmaText(rc), 0};
    }
    const std::unique_ptr<lzma_stream, decltype(&lzma_end)> end(&xs, &lzma_end);
    xs.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    xs.avail_in = in.size();
    for (;;) {
        if (xs.total_out == out.size() && !grow(out)) {
            return tooLarge();
        }
        xs.next_out = reinterpret_cast<std::uint8_t*>(out.data() + xs.total_out);
        xs.avail_out = out.size() - xs.total_out;
        const lzma_ret rc = lzma_code(&xs, LZMA_FINISH);
        if (rc == LZMA_STREAM_END) {
            out.resize(xs.total_out);
            return {};
        }
        if (rc != LZMA_OK) {
            return Error{"liblzma: " + lzmaText(rc), 0};
        }
    }
}

Result<void> unzstd(std::string_view in, std::string& out)
{
    const std::size_t frame = ZSTD_findFrameCompressedSize(in.data(), in.size());
    if (ZSTD_isError(frame) != 0) {
        return Error{ZSTD_getErrorCode(frame) == ZSTD_error_srcSize_wrong
                         ? std::string("the zstd stream is cut short")
                         : std::string("zstd: ") + ZSTD_getErrorName(frame),
                     0};
    }
    const unsigned long long content = ZSTD_getFrameContentSize(in.data(), frame);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != ZSTD_CONTENTSIZE_ERROR) {
        if (content > kMaxImageBytes) {
            return tooLarge();
        }
        out.resize(static_cast<std::size_t>(content));
    }
    for (;;) {
        const std::size_t got = ZSTD_decompress(out.data(), out.size(), in.data(), frame);
        if (ZSTD_isError(got) == 0) {
            out.resize(got);
            return {};
        }
        if (ZSTD_getErrorCode(got) != ZSTD_error_dstSize_tooSmall) {
            return Error{std::string("zstd: ") + ZSTD_getErrorName(got), 0};
        }
        if (!grow(out)) {
            return tooLarge();
        }
    }
}

std::string protocolText(std::uint32_t version)
{
    const auto minor = version & 0xff;
    return std::to_string(version >> 8) + (minor < 10 ? ".0" : ".") + std::to_string(minor);
}

std::string firstBytes(std::string_view bytes)
{
    std::string text;
    for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 6); ++i) {
        text += (i == 0 ? "" : " ") + hexBytes(bytes.substr(i, 1));
    }
    return text;
}

// The build id of the vmlinux a bzImage holds, decompressed in memory (Documentation/arch/x86/
// boot.rst: the setup header at 0x1f1, the protected-mode code after the setup sectors, the
// payload at payload_offset in it).
Result<std::string> bzImageBuildId(const std::string& path, std::string_view image)
{
    const std::uint32_t version = le16(image, 0x206);
    if (version < 0x208) {
        return Error{path + ": bzImage boot protocol " + protocolText(version) +
                         " has no payload fields (2.08 and later have them)",
                     0};
    }
    const std::uint32_t sects = static_cast<unsigned char>(image[0x1f1]);
    const std::uint32_t setupSects = sects == 0 ? 4 : sects;  // 0 means 4, for old boot loaders
    const std::uint64_t start = (std::uint64_t{setupSects} + 1) * 512 + le32(image, 0x248);
    const std::uint64_t length = le32(image, 0x24c);
    if (start >= image.size()) {
        return Error{path + ": bzImage payload offset " + std::to_string(start) + " is past the end of the file (" +
                         std::to_string(image.size()) + " bytes)",
                     0};
    }
    if (start + length > image.size()) {
        return Error{path + ": bzImage is truncated: its payload ends at byte " + std::to_string(start + length) +
                         ", the file has " + std::to_string(image.size()),
                     0};
    }
    if (length == 0) {
        return Error{path + ": bzImage payload is empty (payload_length 0)", 0};
    }
    const std::string_view payload = image.substr(start, length);
    const std::string_view compression = compressionOf(payload);
    if (compression.empty()) {
        return Error{path + ": bzImage payload has a compression not known here (it begins " + firstBytes(payload) +
                         "); only gzip, xz and zstd are read",
                     0};
    }
    if (compression != "gzip" && compression != "xz" && compression != "zstd") {
        return Error{
            path + ": bzImage payload is " + std::string(compression) + "-compressed; only gzip, xz and zstd are read",
            0};
    }
    // The last 4 bytes are the decompressed size as the kernel's build appends it (gzip's own
    // trailer ends the same way): a first guess of the buffer, which grows when it is wrong. Not
    // trusted beyond 32 times the payload (vmlinux compresses about 4 to 1), so that wrong bytes
    // there cannot make it take 512 MiB at once.
    const std::size_t said = payload.size() >= 4 ? le32(payload, payload.size() - 4) : std::size_t{0};
    constexpr std::size_t kLeast = std::size_t{1} << 16;
    const std::size_t most = std::min(std::max(payload.size() * 32, kLeast), kMaxImageBytes);
    std::string vmlinux(std::clamp(said, kLeast, most), '\0');
    const auto done = compression == "gzip" ? gunzip(payload, vmlinux)
                      : compression == "xz" ? unxz(payload, vmlinux)
                                            : unzstd(payload, vmlinux);
    if (!done.ok()) {
        return Error{path + ": cannot decompress the bzImage's " + std::string(compression) +
                         " payload: " + done.error().message,
                     0};
    }
    const std::unique_ptr<Elf, decltype(&elf_end)> elf(elf_memory(vmlinux.data(), vmlinux.size()), &elf_end);
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
        return Error{path + ": the bzImage's " + std::string(compression) + " payload is not an ELF vmlinux", 0};
    }
    auto id = elfBuildId(elf.get());
    if (id.empty()) {
        return Error{path + " has no GNU build-id note (in the vmlinux its payload holds)", 0};
    }
    return id;
}

}  // namespace

std::string hexBytes(std::string_view bytes)
{
    static constexpr std::string_view kDigits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        out += kDigits[byte >> 4];
        out += kDigits[byte & 0xf];
    }
    return out;
}

std::string buildIdFromNotes(std::string_view notes)
{
    const auto word = [&](std::size_t at) {
        std::uint32_t value = 0;
        std::memcpy(&value, notes.data() + at, sizeof value);  // the host's byte order
        return std::uint64_t{value};
    };
    const auto padded = [](std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; };
    std::uint64_t at = 0;
    while (notes.size() >= 12 && at <= notes.size() - 12) {
        const std::uint64_t namesz = word(at);
        const std::uint64_t descsz = word(at + 4);
        const std::uint64_t type = word(at + 8);
        const std::uint64_t nameAt = at + 12;
        const std::uint64_t descAt = nameAt + padded(namesz);
        if (descAt + descsz > notes.size()) {
            return {};
        }
        if (type == kGnuBuildIdType && notes.substr(nameAt, namesz) == kGnuName) {
            return hexBytes(notes.substr(descAt, descsz));
        }
        at = descAt + padded(descsz);
    }
    return {};
}

Result<std::string> kernelBuildId(const std::string& path)
{
    const auto read = readPrefix(path, kSetupHeaderEnd);
    if (!read.ok()) {
        return read.error();
    }
    const std::string_view head = read.value();
    if (head.starts_with("\x7f"
                         "ELF")) {
        return elfFileBuildId(path);
    }
    if (head.size() < kSetupHeaderEnd || head.compare(0x202, 4, "HdrS") != 0) {
        return Error{path + ": not an ELF file or an x86 bzImage", 0};
    }
    const std::string image = NF_TRY(readPrefix(path, kMaxImageBytes + 1));
    if (image.size() > kMaxImageBytes) {
        return Error{path + ": larger than " + std::to_string(kMaxImageBytes >> 20) + " MiB, too large for a bzImage",
                     0};
    }
    return bzImageBuildId(path, image);
}

}  // namespace nf::probes
