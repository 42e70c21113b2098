#include "ui/si_format.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "engine/report/evidence.h"

namespace nf::ui {

namespace {

// The value scaled to [1, 1000) and its prefix; false when out of the prefixes' span.
bool scaled(double value, double& mantissa, const char*& prefix)
{
    static const char* const prefixes[] = {"p", "n", "u", "m", "", "k", "M", "G", "T"};
    if (value == 0) {
        mantissa = 0;
        prefix = "";
        return true;
    }
    int e = static_cast<int>(std::floor(std::log10(std::fabs(value)) / 3));
    mantissa = value / std::pow(1000.0, e);
    if (std::fabs(std::stod(fmt::format("{:.3g}", mantissa))) >= 1000) {  // 999.95 rounds up to 1000
        ++e;
        mantissa /= 1000;
    }
    if (e < -4 || e > 4) {
        return false;
    }
    prefix = prefixes[e + 4];
    return true;
}

std::string digitsOf(double mantissa, int digits)
{
    // `digits` significant digits without trailing zeros (3.4, 10.5, 250); the mantissa is below
    // 1000, so this never turns into an exponent.
    return fmt::format("{:.{}g}", mantissa, digits);
}

}  // namespace

std::string siNumber(double value, int digits)
{
    if (std::isnan(value)) {
        return "";
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    double m = 0;
    const char* prefix = "";
    if (!scaled(value, m, prefix)) {
        return fmt::format("{:.{}e}", value, std::max(0, digits - 1));
    }
    const std::string number = digitsOf(m, digits);
    return *prefix == '\0' ? number : number + " " + prefix;
}

std::string withUnit(double value, const std::string& unit, int digits)
{
    if (std::isnan(value)) {
        return "";
    }
    // Times: the next unit up rather than a prefix on a prefix.
    struct Time {
        const char* unit;
        double seconds;
    };
    static const Time times[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    for (const auto& t : times) {
        if (unit == t.unit && std::isfinite(value)) {
            const double s = value * t.seconds;
            const double a = std::fabs(s);
            const Time* best = &times[0];
            for (const auto& u : times) {
                if (a >= u.seconds * 0.9995) {
                    best = &u;
                }
            }
            return digitsOf(s / best->seconds, digits) + " " + best->unit;
        }
    }
    std::string number = siNumber(value, digits);
    const bool symbol = !unit.empty() && unit.find_first_of(" /") == std::string::npos && unit.size() <= 4;
    if (unit.empty()) {
        return number;
    }
    if (number.back() >= 'A' && symbol) {  // "10.5 M" + "pps" -> "10.5 Mpps"
        return number + unit;
    }
    return number + " " + unit;
}

int digitsToResolve(double value, double step, int digits)
{
    step = std::fabs(step);
    if (!std::isfinite(value) || !std::isfinite(step) || step == 0 || value == 0) {
        return digits;
    }
    // The decimal place of the step's last significant digit (a step is 1, 2, 2.5 or 5 times a
    // power of ten: at most a place or two below its first).
    int place = static_cast<int>(std::floor(std::log10(step)));
    for (int i = 0; i < 3; ++i) {
        const double scaled = step / std::pow(10.0, place);
        if (std::fabs(scaled - std::round(scaled)) <= 1e-6 * scaled) {
            break;
        }
        --place;
    }
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    return std::clamp(magnitude - place + 1, digits, 15);
}

std::string percentText(double value, bool sign)
{
    if (std::isnan(value)) {
        return "";
    }
    if (std::isinf(value)) {
        return value > 0 ? (sign ? "+inf%" : "inf%") : "-inf%";
    }
    // The reports' rule (engine/report/evidence.h): the GUI and the CLI print one figure alike.
    const int decimals = engine::percentDecimals(value);
    return sign ? fmt::format("{:+.{}f}%", value, decimals) : fmt::format("{:.{}f}%", value, decimals);
}

std::string boundText(double value)
{
    return std::isfinite(value) ? percentText(value) : "unbounded";
}

}  // namespace nf::ui
