// The GUI's reader of `noisefloor workloads --format json` (nf::ui::parseWorkloads), from which the
// Experiment tab builds its forms, and each parameter's check of its own default and of text
// taken from the input.

#include <QJsonDocument>

#include <cstdint>

#include "fuzz_check.h"
#include "workload_catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > 65536) {
        return 0;
    }
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isArray()) {
        return 0;
    }
    const auto workloads = nf::ui::parseWorkloads(doc.array());
    NF_FUZZ_CHECK(workloads.size() == static_cast<std::size_t>(doc.array().size()), bytes.toStdString());
    for (const auto& w : workloads) {
        for (const auto& p : w.params) {
            NF_FUZZ_CHECK(w.param(p.name) != nullptr, p.name.toStdString());
            (void)p.check(p.defaultValue);
            (void)p.check(p.name);
            (void)p.rangeText();
        }
    }
    return 0;
}
