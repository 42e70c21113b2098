// A kernel's build id from the files a campaign is given, held against what `readelf -n` printed
// for the same files: tiny ELF "kernels" linked by gcc/ld, and bzImages around them whose payloads
// the real gzip, xz and zstd compressed (tests/data/kernel_image/make_fixtures.sh, PROVENANCE.md).

#include "probes/kernel_image.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <string>

#include "tests/support/read_whole.h"
#include "tests/support/temp_dir.h"

namespace nf::probes {
namespace {

const std::string kData = NF_KERNEL_IMAGE_DATA;

std::string fixture(const std::string& name)
{
    return kData + "/" + name;
}

// What `readelf -n` printed as "Build ID:" (PROVENANCE.md).
constexpr const char* kTinyId = "b5ce1f45edf1d77bb5413523695e7cc106b7f62b";
constexpr const char* kTiny32Id = "1e101c529e1f597ac7a0a1bf0ff41edb326cf547";
constexpr const char* kModuleId = "4e96c01f1ef36dddfcedaea310555ccd97938bda";
// What xxd showed of the committed copy of /sys/kernel/notes (PROVENANCE.md).
constexpr const char* kSysNotesId = "240138188b56210d7f185b8e019a165b7c9b4bfa";

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

// Where a fixture bzImage's payload starts and how long it is, read from its setup header.
struct Payload {
    std::size_t start = 0;
    std::size_t length = 0;
};
Payload payloadOf(const std::string& image)
{
    const auto byte = [&](std::size_t at) { return std::size_t{static_cast<unsigned char>(image.at(at))}; };
    const auto u32 = [&](std::size_t at) {
        return byte(at) | byte(at + 1) << 8 | byte(at + 2) << 16 | byte(at + 3) << 24;
    };
    const std::size_t sects = byte(0x1f1) == 0 ? 4 : byte(0x1f1);
    return {(sects + 1) * 512 + u32(0x248), u32(0x24c)};
}

void expectError(const Result<std::string>& id, const std::string& message)
{
    ASSERT_FALSE(id.ok()) << "read " << id.value();
    EXPECT_EQ(id.error().message, message);
}

TEST(KernelImage, ReadsTheBuildIdOfAnElfVmlinux)
{
    auto id = kernelBuildId(fixture("vmlinux-tiny"));
    ASSERT_TRUE(id.ok()) << id.error().message;
    EXPECT_EQ(*id, kTinyId);
}

TEST(KernelImage, ReadsA32BitElf)
{
    auto id = kernelBuildId(fixture("vmlinux-tiny-32"));
    ASSERT_TRUE(id.ok()) << id.error().message;
    EXPECT_EQ(*id, kTiny32Id);
}

TEST(KernelImage, ReadsAModuleWhoseNoteIsOnlyInASection)
{
    auto id = kernelBuildId(fixture("tiny.ko"));  // ET_REL: no program headers
    ASSERT_TRUE(id.ok()) << id.error().message;
    EXPECT_EQ(*id, kModuleId);
}

TEST(KernelImage, ReadsTheNoteSegmentOfAFileWithoutSectionHeaders)
{
    auto id = kernelBuildId(fixture("vmlinux-tiny-noshdr"));
    ASSERT_TRUE(id.ok()) << id.error().message;
    EXPECT_EQ(*id, kTinyId);
}

TEST(KernelImage, ReadsTheVmlinuxInAGzipXzAndZstdBzImage)
{
    // Each payload is vmlinux-tiny stripped as the kernel's build strips vmlinux.bin, which keeps
    // the note; the setup headers have 0 (meaning 4), 17 and 1 setup sectors.
    for (const char* name : {"bzImage-gzip", "bzImage-xz", "bzImage-zstd"}) {
        SCOPED_TRACE(name);
        auto id = kernelBuildId(fixture(name));
        ASSERT_TRUE(id.ok()) << id.error().message;
        EXPECT_EQ(*id, kTinyId);
    }
}

TEST(KernelImage, ASizeAtThePayloadsEndThatIsWrongOnlyCostsGrowing)
{
    // The 4 size bytes after the stream are a guess: one too small, one absurdly large.
    const nf::test::TempDir dir;
    for (const char* name : {"bzImage-gzip", "bzImage-xz", "bzImage-zstd"}) {
        for (const std::string& said : {std::string(4, '\0'), std::string(4, '\xff')}) {
            SCOPED_TRACE(std::string(name) + (said[0] == 0 ? " said 0" : " said 4 GiB"));
            std::string image = nf::test::readWhole(fixture(name));
            const auto payload = payloadOf(image);
            ASSERT_LE(payload.start + payload.length, image.size());
            image.replace(payload.start + payload.length - 4, 4, said);
            writeFile(dir.file(name), image);
            auto id = kernelBuildId(dir.file(name));
            ASSERT_TRUE(id.ok()) << id.error().message;
            EXPECT_EQ(*id, kTinyId);
        }
    }
}

TEST(KernelImage, NamesTheCompressionsItDoesNotRead)
{
    for (const char* name : {"lz4", "bzip2", "lzma"}) {
        const auto path = fixture(std::string("bzImage-") + name);
        expectError(kernelBuildId(path),
                    path + ": bzImage payload is " + name + "-compressed; only gzip, xz and zstd are read");
    }
    // lzop is not installed here: the zstd fixture with lzop's magic number where its payload starts.
    const nf::test::TempDir dir;
    std::string image = nf::test::readWhole(fixture("bzImage-zstd"));
    image.replace(payloadOf(image).start, 9, std::string("\x89LZO\0\r\n\x1a\n", 9));
    writeFile(dir.file("bzImage-lzo"), image);
    expectError(kernelBuildId(dir.file("bzImage-lzo")),
                dir.file("bzImage-lzo") + ": bzImage payload is lzo-compressed; only gzip, xz and zstd are read");
}

TEST(KernelImage, AHeaderWithoutPayloadFieldsOrAnUnknownPayloadIsAnError)
{
    const nf::test::TempDir dir;
    const std::string original = nf::test::readWhole(fixture("bzImage-gzip"));
    const auto payload = payloadOf(original);

    std::string old = original;
    old[0x206] = 0x06;  // boot protocol 2.06: before payload_offset and payload_length
    writeFile(dir.file("old"), old);
    expectError(kernelBuildId(dir.file("old")),
                dir.file("old") + ": bzImage boot protocol 2.06 has no payload fields (2.08 and later have them)");

    std::string empty = original;
    empty.replace(0x24c, 4, std::string(4, '\0'));
    writeFile(dir.file("empty"), empty);
    expectError(kernelBuildId(dir.file("empty")), dir.file("empty") + ": bzImage payload is empty (payload_length 0)");

    std::string unknown = original;
    unknown.replace(payload.start, 6, "NOTGZ!");
    writeFile(dir.file("unknown"), unknown);
    expectError(kernelBuildId(dir.file("unknown")),
                dir.file("unknown") +
                    ": bzImage payload has a compression not known here (it begins 4e 4f 54 47 5a 21); only gzip, "
                    "xz and zstd are read");
}

TEST(KernelImage, ATextFileIsNeitherKind)
{
    const auto path = fixture("not-a-kernel.txt");
    expectError(kernelBuildId(path), path + ": not an ELF file or an x86 bzImage");
}

TEST(KernelImage, AnElfWithoutABuildIdNoteIsAnError)
{
    const auto path = fixture("vmlinux-nobuildid");
    expectError(kernelBuildId(path), path + " has no GNU build-id note");
}

TEST(KernelImage, ABzImageWhoseVmlinuxHasNoBuildIdIsAnError)
{
    const auto path = fixture("bzImage-nobuildid");
    expectError(kernelBuildId(path), path + " has no GNU build-id note (in the vmlinux its payload holds)");
}

TEST(KernelImage, APayloadThatIsNoElfFileIsAnError)
{
    const auto path = fixture("bzImage-not-elf");
    expectError(kernelBuildId(path), path + ": the bzImage's gzip payload is not an ELF vmlinux");
}

TEST(KernelImage, ATruncatedBzImageIsAnError)
{
    const auto path = fixture("bzImage-truncated");
    auto id = kernelBuildId(path);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().message.rfind(path + ": bzImage is truncated: its payload ends at byte ", 0), 0u)
        << id.error().message;
}

TEST(KernelImage, APayloadOffsetPastTheEndIsAnError)
{
    const auto path = fixture("bzImage-offset-past-end");
    expectError(kernelBuildId(path), path + ": bzImage payload offset 268436480 is past the end of the file (" +
                                         std::to_string(nf::test::readWhole(path).size()) + " bytes)");
}

TEST(KernelImage, ACorruptOrCutPayloadIsAnError)
{
    const nf::test::TempDir dir;
    for (const char* compression : {"gzip", "xz", "zstd"}) {
        const std::string kind = compression;
        const std::string original = nf::test::readWhole(fixture("bzImage-" + kind));
        const auto payload = payloadOf(original);
        // Bytes in the middle of the stream overwritten.
        std::string corrupt = original;
        corrupt.replace(payload.start + payload.length / 2, 16, std::string(16, '\x55'));
        writeFile(dir.file(kind + "-corrupt"), corrupt);
        auto id = kernelBuildId(dir.file(kind + "-corrupt"));
        ASSERT_FALSE(id.ok()) << kind;
        EXPECT_EQ(id.error().message.rfind(
                      dir.file(kind + "-corrupt") + ": cannot decompress the bzImage's " + kind + " payload: ", 0),
                  0u)
            << id.error().message;
        // The header says the payload is half as long: the stream ends early.
        std::string cut = original;
        const auto half = static_cast<std::uint32_t>(payload.length / 2);
        for (int i = 0; i < 4; ++i) {
            cut[0x24c + i] = static_cast<char>(half >> (8 * i));
        }
        writeFile(dir.file(kind + "-cut"), cut);
        id = kernelBuildId(dir.file(kind + "-cut"));
        ASSERT_FALSE(id.ok()) << kind;
        EXPECT_NE(id.error().message.find("cannot decompress the bzImage's " + kind + " payload: "), std::string::npos)
            << id.error().message;
    }
}

TEST(KernelImage, EveryCutOfAnElfOrABzImageIsAnErrorOrTheId)
{
    // A file cut anywhere reads as an error, or as the right id where the note survived the cut.
    const nf::test::TempDir dir;
    for (const char* name : {"vmlinux-tiny", "bzImage-gzip", "bzImage-xz", "bzImage-zstd"}) {
        const std::string whole = nf::test::readWhole(fixture(name));
        ASSERT_FALSE(whole.empty()) << name;
        for (std::size_t n = 0; n < whole.size(); n += n < 64 ? 1 : 7) {
            writeFile(dir.file("cut"), whole.substr(0, n));
            auto id = kernelBuildId(dir.file("cut"));
            if (id.ok()) {
                EXPECT_EQ(*id, kTinyId) << name << " cut to " << n;
            }
        }
    }
    writeFile(dir.file("cut"), nf::test::readWhole(fixture("vmlinux-tiny")).substr(0, 4));
    expectError(kernelBuildId(dir.file("cut")), dir.file("cut") + ": not a readable ELF file");
}

TEST(KernelImage, AMissingFileIsAnError)
{
    const auto path = fixture("no-such-kernel");
    auto id = kernelBuildId(path);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().errnum, ENOENT);
    EXPECT_EQ(id.error().message, "cannot open " + path + ": No such file or directory");
}

TEST(KernelImage, ADirectoryOrAnEmptyFileIsAnError)
{
    const nf::test::TempDir dir;
    auto id = kernelBuildId(dir.path());
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().errnum, EISDIR);
    writeFile(dir.file("empty"), "");
    expectError(kernelBuildId(dir.file("empty")), dir.file("empty") + ": not an ELF file or an x86 bzImage");
}

TEST(KernelImage, HexIsLowercaseTwoDigitsAByte)
{
    EXPECT_EQ(hexBytes(std::string("\x24\x01\xab\x00\xff", 5)), "2401ab00ff");
    EXPECT_EQ(hexBytes(""), "");
}

TEST(KernelImageNotes, ReadsACopyOfSysKernelNotes)
{
    // The build id first, then the kernel's "Linux" notes and two "Xen" ones.
    const std::string notes = nf::test::readWhole(fixture("sys_kernel_notes"));
    ASSERT_EQ(notes.size(), 164u);
    EXPECT_EQ(buildIdFromNotes(notes), kSysNotesId);
}

TEST(KernelImageNotes, EveryPrefixOfTheNotesIsReadWithoutOverrun)
{
    // The build-id note is 36 bytes (12 of header, "GNU\0", 20 of id): shorter prefixes hold no id.
    const std::string notes = nf::test::readWhole(fixture("sys_kernel_notes"));
    for (std::size_t n = 0; n <= notes.size(); ++n) {
        const std::string prefix = notes.substr(0, n);  // its own allocation, for ASan
        EXPECT_EQ(buildIdFromNotes(prefix), n >= 36 ? kSysNotesId : "") << n;
    }
}

TEST(KernelImageNotes, FindsTheBuildIdAfterOtherNotes)
{
    const std::string notes = nf::test::readWhole(fixture("sys_kernel_notes"));
    ASSERT_GE(notes.size(), 36u);
    // The build-id note moved to the end; a GNU note of another type (1, NT_GNU_ABI_TAG) first.
    const std::string abiTag("\x04\0\0\0\x10\0\0\0\x01\0\0\0GNU\0\0\0\0\0\x06\0\0\0\x01\0\0\0\0\0\0\0", 32);
    const std::string moved = abiTag + notes.substr(36) + notes.substr(0, 36);
    EXPECT_EQ(buildIdFromNotes(moved), kSysNotesId);
    EXPECT_EQ(buildIdFromNotes(abiTag + notes.substr(36)), "");
}

TEST(KernelImageNotes, ASizeThatRunsPastTheEndIsNotRead)
{
    std::string notes = nf::test::readWhole(fixture("sys_kernel_notes"));
    ASSERT_GE(notes.size(), 36u);
    notes[4] = '\xff';  // descsz 0x...ff: past the end
    notes[7] = '\xff';
    EXPECT_EQ(buildIdFromNotes(notes), "");
    notes = nf::test::readWhole(fixture("sys_kernel_notes"));
    notes[0] = '\xfc';  // namesz near 4 GiB: padded, it must not wrap around
    notes[1] = notes[2] = notes[3] = '\xff';
    EXPECT_EQ(buildIdFromNotes(notes), "");
}

TEST(KernelImageNotes, ThisMachinesKernelHasABuildId)
{
    const std::string notes = nf::test::readWhole("/sys/kernel/notes");
    if (notes.empty()) {
        GTEST_SKIP() << "/sys/kernel/notes cannot be read here";
    }
    // The kernel's Makefile links vmlinux with --build-id=sha1: 20 bytes.
    const std::string id = buildIdFromNotes(notes);
    EXPECT_EQ(id.size(), 40u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
}

}  // namespace
}  // namespace nf::probes
