#include "engine/import/perf_names.h"

namespace nf::engine {

namespace {

// A bracketed object of the kernel's: "[veth]", "[kernel.kallsyms]"; not "[vdso]", "[heap]", ...
bool isKernelObject(std::string_view dso)
{
    return dso.size() > 2 && dso.front() == '[' && dso.back() == ']' && dso != "[unknown]" && dso != "[vdso]" &&
           dso != "[vsyscall]" && dso != "[heap]" && dso != "[stack]" && dso != "[anon]";
}

}  // namespace

std::string perfObjectName(std::string_view dso)
{
    if (dso.rfind("[kernel.", 0) == 0) {  // [kernel.kallsyms], [kernel.kallsyms]_text, ...
        return "kernel";
    }
    if (dso.size() > 2 && dso.front() == '[' && dso.back() == ']') {
        return std::string(dso.substr(1, dso.size() - 2));
    }
    const auto slash = dso.rfind('/');
    return std::string(slash == std::string_view::npos ? dso : dso.substr(slash + 1));
}

std::string perfSymbolName(std::string_view symbol, std::string_view dso)
{
    if (symbol.empty() || symbol == "[unknown]") {
        return dso.empty() || dso == "[unknown]" ? "[unknown]" : "[unknown " + perfObjectName(dso) + "]";
    }
    if (isKernelObject(dso) && perfObjectName(dso) != "kernel") {
        return std::string(symbol) + " [" + perfObjectName(dso) + "]";  // a module's
    }
    return std::string(symbol);
}

}  // namespace nf::engine
