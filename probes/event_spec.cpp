#include "probes/event_spec.h"

#include <linux/perf_event.h>

#include <array>
#include <cctype>
#include <fstream>
#include <mutex>

#include "base/default_counters.h"

#if defined(NF_HAVE_LIBPFM)
#include <perfmon/pfmlib_perf_event.h>
#endif

namespace nf::probes {

namespace {

struct GenericEvent {
    std::string_view name;
    std::uint32_t type;
    std::uint64_t config;
};

constexpr std::array kGenericEvents{
    GenericEvent{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    GenericEvent{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    GenericEvent{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    GenericEvent{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    GenericEvent{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    GenericEvent{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    GenericEvent{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    GenericEvent{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    GenericEvent{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    GenericEvent{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    GenericEvent{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    GenericEvent{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    GenericEvent{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    GenericEvent{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    GenericEvent{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    GenericEvent{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    GenericEvent{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    GenericEvent{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    GenericEvent{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    GenericEvent{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    GenericEvent{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    GenericEvent{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    GenericEvent{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    GenericEvent{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

constexpr const char* kMsrPmuDir = "/sys/bus/event_source/devices/msr";

// PMUs whose events occupy a hardware counter; software, tracepoint and breakpoint events do not.
bool usesHardwareCounter(std::uint32_t type)
{
    return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT && type != PERF_TYPE_BREAKPOINT;
}

EventSpec makeSpec(std::string_view name, std::uint32_t type, std::uint64_t config)
{
    EventSpec spec;
    spec.name = std::string(name);
    spec.type = type;
    spec.config = config;
    spec.hardware = usesHardwareCounter(type);
    if (type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK)) {
        spec.unit = "ns";
    }
    return spec;
}

bool parseHex(std::string_view text, std::uint64_t* out)
{
    if (text.empty() || text.size() > 16) {
        return false;
    }
    std::uint64_t value = 0;
    for (char c : text) {
        int digit = 0;
        if (c >= '0' && c <= '9') {
            digit = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            digit = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            digit = c - 'A' + 10;
        } else {
            return false;
        }
        value = (value << 4) | static_cast<std::uint64_t>(digit);
    }
    *out = value;
    return true;
}

// "tsc": the msr PMU's event, its type and config read from sysfs ("event=0x00").
Result<EventSpec> resolveMsrTsc(std::string_view name)
{
    const std::string dir = kMsrPmuDir;
    std::ifstream typeFile(dir + "/type");
    unsigned long type = 0;
    if (!(typeFile >> type)) {
        return Error{"counter '" + std::string(name) + "': the msr PMU is not available (" + dir +
                         "/type is missing; kernel without CONFIG_PERF_EVENTS_MSR or not x86)",
                     0};
    }
    std::ifstream eventFile(dir + "/events/tsc");
    std::string line;
    std::getline(eventFile, line);
    const std::string key = "event=0x";
    const auto pos = line.find(key);
    std::uint64_t config = 0;
    if (pos == std::string::npos) {
        return Error{"counter '" + std::string(name) + "': the msr PMU has no tsc event (" + dir +
                         "/events/tsc is missing or not \"event=0x..\")",
                     0};
    }
    std::string_view hex(line);
    hex.remove_prefix(pos + key.size());
    hex = hex.substr(0, hex.find_first_not_of("0123456789abcdefABCDEF"));
    if (!parseHex(hex, &config)) {
        return Error{"counter '" + std::string(name) + "': cannot parse " + dir + "/events/tsc: \"" + line + "\"", 0};
    }
    EventSpec spec = makeSpec(name, static_cast<std::uint32_t>(type), config);
    spec.hardware = false;  // free-running MSR read, not a PMU counter slot
    return spec;
}

std::string unknownMessage(std::string_view name, std::string_view why)
{
    return "unknown counter '" + std::string(name) + "' (not a generic perf event name, and " + std::string(why) + ")";
}

#if defined(NF_HAVE_LIBPFM)
int pfmInitResult()
{
    static std::once_flag once;
    static int result = PFM_SUCCESS;
    std::call_once(once, [] { result = pfm_initialize(); });
    return result;
}

Result<EventSpec> resolveWithLibpfm(std::string_view name)
{
    const int init = pfmInitResult();
    if (init != PFM_SUCCESS) {
        return Error{unknownMessage(name, std::string("libpfm4 failed to initialise: ") + pfm_strerror(init)), 0};
    }
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    pfm_perf_encode_arg_t arg{};
    arg.attr = &attr;
    arg.size = sizeof(arg);
    const std::string str(name);
    static std::mutex mutex;  // libpfm4 does not promise thread safety of encoding
    int rc = PFM_SUCCESS;
    {
        std::lock_guard lock(mutex);
        rc = pfm_get_os_event_encoding(str.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    }
    if (rc == PFM_ERR_NOTFOUND) {
        return Error{unknownMessage(name, "libpfm4 does not know it"), 0};
    }
    if (rc != PFM_SUCCESS) {
        return Error{unknownMessage(name, std::string("libpfm4: ") + pfm_strerror(rc)), 0};
    }
    EventSpec spec = makeSpec(name, attr.type, attr.config);
    spec.config1 = attr.config1;
    spec.config2 = attr.config2;
    return spec;
}
#else
Result<EventSpec> resolveWithLibpfm(std::string_view name)
{
    return Error{unknownMessage(name, "noisefloor was built without libpfm4"), 0};
}
#endif

}  // namespace

std::vector<std::string> defaultEventNames()
{
    return base::defaultCounterNames();
}

Result<EventSpec> resolveEvent(std::string_view name)
{
    if (name.empty()) {
        return Error{"empty counter name", 0};
    }
    for (const GenericEvent& generic : kGenericEvents) {
        if (generic.name == name) {
            return makeSpec(name, generic.type, generic.config);
        }
    }
    if (name == "tsc") {
        return resolveMsrTsc(name);
    }
    std::uint64_t raw = 0;
    if (name.size() > 1 && name.front() == 'r' && parseHex(name.substr(1), &raw)) {
        return makeSpec(name, PERF_TYPE_RAW, raw);
    }
    return resolveWithLibpfm(name);
}

Result<std::vector<EventSpec>> resolveEvents(std::string_view commaList)
{
    std::vector<EventSpec> specs;
    std::size_t pos = 0;
    while (pos < commaList.size()) {
        const auto isSeparator = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
        auto end = pos;
        while (end < commaList.size() && !isSeparator(commaList[end])) {
            ++end;
        }
        const std::string_view name = commaList.substr(pos, end - pos);
        pos = end + 1;
        if (name.empty()) {
            continue;
        }
        auto spec = NF_TRY(resolveEvent(name));
        for (const EventSpec& earlier : specs) {
            if (earlier.name == name) {
                return Error{"counter '" + std::string(name) + "' is listed twice", 0};
            }
            if (earlier.type == spec.type && earlier.config == spec.config && earlier.config1 == spec.config1 &&
                earlier.config2 == spec.config2) {
                return Error{"counter '" + std::string(name) + "' is the same event as '" + earlier.name + "'", 0};
            }
        }
        specs.push_back(std::move(spec));
    }
    return specs;
}

}  // namespace nf::probes
