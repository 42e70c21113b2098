// Sampling whole CPUs (probes/cpu_sampler.h) and naming what was sampled (probes/symbolizer.h), on
// this machine's kernel: a thread that spins in a known function on one CPU is what that CPU's
// samples name, at times inside the spin.

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "probes/cpu_sampler.h"
#include "probes/symbolizer.h"
#include "probes/tsc_clock.h"

namespace nf::probes {

__attribute__((noinline)) std::uint64_t nfSamplerSpin(const std::atomic<bool>& stop)
{
    std::uint64_t x = 1;
    while (!stop.load(std::memory_order_relaxed)) {
        for (int i = 0; i < 1000; ++i) {
            asm volatile("imul %0, %0\n\tadd $1, %0" : "+r"(x));
        }
    }
    return x;
}

namespace {

int lastCpu()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    int last = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) {
            last = cpu;
        }
    }
    return last;
}

TEST(CpuSampler, SamplesWhatRunsOnTheCpuAtItsTime)
{
    const int cpu = lastCpu();
    auto sampler = CpuSampler::open({cpu}, 999, {});
    ASSERT_TRUE(sampler.ok()) << sampler.error().message;
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> from{0};
    std::atomic<std::uint64_t> to{0};
    std::thread spinner([&] {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<unsigned>(cpu), &set);
        sched_setaffinity(0, sizeof(set), &set);
        from = readTsc();
        nfSamplerSpin(stop);
        to = readTsc();
    });
    while (from.load() == 0) {  // sampled from when it spins (a thread starts slowly under a sanitizer)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    (*sampler)->enable();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    (*sampler)->disable();
    stop = true;
    spinner.join();
    const auto taken = (*sampler)->take();
    EXPECT_EQ((*sampler)->event() == "cycles" || (*sampler)->event() == "cpu-clock", true);
    ASSERT_GE(taken.samples.size(), 100U) << "at 999 Hz for 0.4 s";
    Symbolizer symbols;
    std::map<std::string, int> leaves;
    int inSpin = 0;
    for (const auto& s : taken.samples) {
        EXPECT_EQ(s.cpu, cpu);
        ASSERT_FALSE(s.chain.empty());
        ++leaves[symbols.name(static_cast<pid_t>(s.pid), s.chain.front())];
        const auto tsc = (*sampler)->tscAt(s.timeNs);
        inSpin +=
            static_cast<std::uint64_t>(s.pid) == static_cast<std::uint64_t>(::getpid()) && tsc >= from && tsc <= to;
    }
    // The spinner had the CPU (the other threads of this machine may take a little of it; the
    // message names what else ran there).
    std::string seen;
    for (const auto& [name, n] : leaves) {
        seen += name + " " + std::to_string(n) + "; ";
    }
    EXPECT_GE(leaves["nfSamplerSpin"] * 10, static_cast<int>(taken.samples.size()) * 8) << seen;
    EXPECT_GE(inSpin * 10, static_cast<int>(taken.samples.size()) * 8);
    EXPECT_GT((*sampler)->readerTid(), 0);
}

TEST(CpuSampler, RefusesACpuThatDoesNotExistWithOneLine)
{
    auto sampler = CpuSampler::open({4095}, 999, {});
    ASSERT_FALSE(sampler.ok());
    EXPECT_NE(sampler.error().message.find("cannot sample CPU 4095"), std::string::npos) << sampler.error().message;
}

TEST(Symbolizer, KallsymsNamesKernelAddressesWithTheirModule)
{
    const auto table = parseKallsyms(
        "ffffffff81000000 T _stext\n"
        "ffffffff81001000 t veth_xdp_rcv\n"
        "ffffffff81002000 D some_data\n"
        "ffffffff81003000 T sock_def_readable\n"
        "ffffffffc0201000 t bpf_prog_6deef7357e7b4530_xdp_pass\t[bpf]\n"
        "0000000000000000 T hidden\n");
    ASSERT_NE(table.find(0xffffffff81001010ULL), nullptr);
    EXPECT_EQ(*table.find(0xffffffff81001010ULL), "veth_xdp_rcv");
    EXPECT_EQ(*table.find(0xffffffff81002800ULL), "veth_xdp_rcv");  // data symbols do not end a function
    EXPECT_EQ(*table.find(0xffffffffc0201004ULL), "bpf_prog_6deef7357e7b4530_xdp_pass [bpf]");
    EXPECT_EQ(table.find(0x1000), nullptr);
    EXPECT_TRUE(kernelAddress(0xffffffff81001010ULL));
    EXPECT_FALSE(kernelAddress(0x55a5ea82a000ULL));
}

TEST(Symbolizer, NamesThisProcessesFunctionsAndKeepsWhatItCannotName)
{
    Symbolizer symbols;
    const auto address = reinterpret_cast<std::uintptr_t>(&nfSamplerSpin);
    EXPECT_EQ(symbols.name(::getpid(), address + 4), "nfSamplerSpin");
    // Anonymous executable memory (JIT code) has no file to name it from.
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(page, MAP_FAILED);
    Symbolizer fresh;  // reads the maps again
    EXPECT_EQ(fresh.name(::getpid(), reinterpret_cast<std::uintptr_t>(page) + 8), "[unknown]");
    munmap(page, 4096);
    EXPECT_EQ(fresh.name(::getpid(), 0x10), "[unknown]");  // in no mapping
}

}  // namespace
}  // namespace nf::probes
