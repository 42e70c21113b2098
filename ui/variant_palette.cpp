#include "ui/variant_palette.h"

#include <array>

namespace nf::ui {

QColor variantColour(int index)
{
    // Tableau 10: distinct, and readable on white.
    static const std::array<QColor, 10> kPalette = {{{31, 119, 180},
                                                     {255, 127, 14},
                                                     {44, 160, 44},
                                                     {214, 39, 40},
                                                     {148, 103, 189},
                                                     {140, 86, 75},
                                                     {227, 119, 194},
                                                     {127, 127, 127},
                                                     {188, 189, 34},
                                                     {23, 190, 207}}};
    const auto n = static_cast<int>(kPalette.size());
    const int i = index < 0 ? 0 : index;
    const QColor base = kPalette[static_cast<std::size_t>(i % n)];
    // Past ten variants: the same hue, darker with each further round.
    return (i / n) % 2 == 0 ? base : base.darker(160);
}

QColor variantColour(int index, int alpha)
{
    QColor c = variantColour(index);
    c.setAlpha(alpha);
    return c;
}

}  // namespace nf::ui
