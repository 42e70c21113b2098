#pragma once
// Numbers as a person reads them (no Qt: tested on its own): 10.5 M, 1.2 k, 3.4, 250 m with an SI
// prefix for powers of 1000, up to three significant digits; with a unit, "10.5 Mpps", "3.4 ns".

#include <string>

namespace nf::ui {

// "10.5 M", "1.2 k", "950", "3.4 m" ... "" for NaN; "inf" / "-inf". Prefixes from p to T; below
// or above, scientific ("2.0e-15").
std::string siNumber(double value, int digits = 3);
// The number and its unit: "10.5 Mpps", "1.2 k ops" (a unit that is not a simple symbol gets a
// space), "3.4 ns"; a time in ns, us or ms moves to a larger unit instead of a prefix: 3400 ns ->
// "3.4 us".
std::string withUnit(double value, const std::string& unit, int digits = 3);

// The significant digits `value` needs (at least `digits`, at most 15) to read differently from a
// neighbour `step` away: ticks 1.2125, 1.215, 1.2175 need 5, not the "1.2, 1.2, 1.2" three give;
// 127.5 next to 125 needs 4, not "128".
int digitsToResolve(double value, double step, int digits = 3);

// A percentage: two decimals, more where a figure below 0.01 in size would read as zero, so that
// "0.00%" means zero: "+1.25%", "-0.0020%", "+0.00%"; `sign` false: "1.25%", "0.0020%" (of a size).
// "" for NaN.
std::string percentText(double value, bool sign = true);
// A figure of an interval, signed as percentText writes it; "unbounded" for a side with no bound
// (NaN or infinite) and for an estimate not known.
std::string boundText(double value);

}  // namespace nf::ui
