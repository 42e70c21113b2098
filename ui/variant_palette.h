#pragma once
// One colour per variant, the same in every tab: Live, Compare, Explore, the repetition plots and
// the sweep view all colour a variant by its index in its run (baseline first, as the run lists
// its variants), so "early" is orange wherever it is drawn. A comparison across runs keys by the
// position in the comparison (the first run's variants first). Tableau 10, then the same hues
// darker for indices 10..19, so ten variants never share a colour.

#include <QColor>

namespace nf::ui {

// Colour of the variant at `index` (>= 0) in its run.
QColor variantColour(int index);

// The same colour with `alpha` (0..255): for samples drawn over each other, so one variant's
// points do not hide another's.
QColor variantColour(int index, int alpha);

}  // namespace nf::ui
