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

}  // namespace nf::ui
