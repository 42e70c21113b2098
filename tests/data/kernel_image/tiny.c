/* A stand-in for vmlinux in the kernel_image tests: an entry point, a banner and some data, so that
   the linker has segments to lay out and the compressors something to compress. Linked without a
   C library (make_fixtures.sh). */

__attribute__((used)) static const char banner[] =
    "Linux version 0.0.0-noisefloor-fixture (make_fixtures.sh) #1 SMP PREEMPT_DYNAMIC\n";

/* 4 KiB of a repeating pattern, the way kernel tables repeat. */
#define ROW16 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define ROW256 ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, \
               ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16
__attribute__((used)) static const unsigned char table[4096] = {
    ROW256, ROW256, ROW256, ROW256, ROW256, ROW256, ROW256, ROW256,
    ROW256, ROW256, ROW256, ROW256, ROW256, ROW256, ROW256, ROW256};

/* A second note beside the build id's, as vmlinux's .notes has the kernel's own: name "Linux",
   type 0x100 (LINUX_ELFNOTE_BUILD_SALT, include/linux/build-salt.h). */
__asm__(".pushsection .note.Linux, \"a\", @note\n"
        ".balign 4\n"
        ".long 6, 4, 0x100\n" /* namesz, descsz, type */
        ".asciz \"Linux\"\n"
        ".balign 4\n"
        ".long 0x5eed5a17\n"
        ".popsection\n");

void _start(void)
{
    for (;;) {
        __asm__ volatile("hlt");
    }
}
