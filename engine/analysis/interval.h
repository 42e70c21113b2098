#pragma once
// One way to form the interval a verdict rests on: one function per design, each naming its design
// in the result. The text report, the JSON, the GUI and the verdict sentence all show the interval
// formed here. A new design (pooled runs across boots, sequential stopping, summaries from imports,
// chunk pairs of a live test) is a new enumerator and a new function beside these.

#include <limits>
#include <string>
#include <string_view>

#include "engine/stats/ratio.h"
#include "engine/stats/robust.h"

namespace nf::engine {

// Layouts: paired values grouped by the code placements of the two variants, one value per cell
// (engine/analysis/layout_factor.h). Setups: a live run's chunk pairs grouped by the setup (sockets
// and receiver threads started anew) they were measured in, one value per setup
// (engine/analysis/setup_factor.h).
enum class Design { Paired, Independent, Layouts, Setups };
std::string_view toString(Design design);

struct PercentInterval {
    double low = std::numeric_limits<double>::quiet_NaN();  // NaN when unbounded
    double high = std::numeric_limits<double>::quiet_NaN();
};

struct IntervalResult {
    Design design = Design::Independent;
    double estimatePct = std::numeric_limits<double>::quiet_NaN();  // candidate vs baseline, (c / b - 1) * 100
    PercentInterval ci;
    double level = std::numeric_limits<double>::quiet_NaN();         // the coverage the interval has
    double nominalLevel = std::numeric_limits<double>::quiet_NaN();  // the coverage asked for
    std::string method;                                              // how the estimate and the interval were formed
    std::string note;  // why the interval is unbounded or below its nominal level; "" otherwise

    bool bounded() const;
    // The interval has at least the coverage asked for (an exact rank interval may have more).
    bool reachesLevel() const;
};

// Paired design: the per-pair log ratios ln(c_i / b_i), sorted, in a selector (it keeps what it
// counted, so intervals at two levels cost little more than one). Hodges-Lehmann estimate and the
// distribution-free interval from the signed-rank distribution. With too few pairs for any such
// interval to reach `level` (5 at 95%, 4 at 90%) the result is the widest one, min..max of the
// Walsh averages, with the level it has (1 - 2^(1-n)) and a note.
IntervalResult pairedInterval(stats::WalshSelector& logRatios, double level);

// No interval (too few values): the design, the level asked for and why.
IntervalResult noInterval(Design design, double level, std::string note);

// Independent design: the ratio of the means with Fieller's interval (stable form, Welch-
// Satterthwaite degrees of freedom). Unbounded, with a note, when the baseline mean is not
// distinguishable from zero.
IntervalResult independentInterval(const stats::RatioSummary& summary, double level);

}  // namespace nf::engine
