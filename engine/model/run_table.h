#pragma once
// The samples of a run as a table: a row per sample (a chunk when alternating, else an interval),
// a column of values per quantity (RunLayout::quantities order) and a column each for the variant,
// repetition, index, alternation round, start and duration of the rows. Code that reads many
// samples finds the columns it needs once (RunLayout::quantityIndex, metricColumns) and indexes
// arrays after that; a million samples are a few contiguous blocks, not a million vectors.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nf::engine {

struct Sample;

class RunTable {
public:
    static constexpr int kMaxVariant = 65535;  // the variant column holds 16 bits

    // An empty table whose rows hold as many values as the first row appended.
    RunTable() = default;
    // An empty table whose rows hold `quantities` values.
    explicit RunTable(std::size_t quantities);
    // The table of `samples`, in their order (see append).
    RunTable(std::size_t quantities, std::span<const Sample> samples);

    std::size_t size() const { return m_variant.size(); }
    bool empty() const { return m_variant.empty(); }
    std::size_t quantities() const { return m_values.size(); }

    int variant(std::size_t row) const { return m_variant[row]; }
    int repetition(std::size_t row) const { return m_repetition[row]; }
    int index(std::size_t row) const { return m_index[row]; }           // within (variant, repetition)
    int pair(std::size_t row) const { return m_pair[row]; }             // alternation round; -1 when not alternating
    double start(std::size_t row) const { return m_start[row]; }        // seconds since the first measurement
    double duration(std::size_t row) const { return m_duration[row]; }  // seconds
    double value(std::size_t row, std::size_t quantity) const { return m_values[quantity][row]; }

    // Whole columns, one element per row.
    std::span<const std::uint16_t> variants() const { return m_variant; }
    std::span<const std::int32_t> repetitions() const { return m_repetition; }
    std::span<const std::int32_t> pairs() const { return m_pair; }
    std::span<const double> starts() const { return m_start; }
    std::span<const double> durations() const { return m_duration; }
    std::span<const double> column(std::size_t quantity) const { return m_values[quantity]; }

    // One more than the highest variant of a row (0 when empty).
    std::size_t variantCount() const { return m_variantCount; }
    // The lowest and highest repetition of a row (0 when empty).
    int firstRepetition() const { return m_firstRepetition; }
    int lastRepetition() const { return m_lastRepetition; }
    // The repetitions that hold a row of `variant` (any variant when negative), ascending.
    std::vector<int> repetitionsOf(int variant = -1) const;

    // A row as a Sample (its values copied), and every row so.
    Sample sample(std::size_t row) const;
    std::vector<Sample> toSamples() const;

    // Room for `rows` rows in every column.
    void reserve(std::size_t rows);
    std::size_t capacity() const { return m_variant.capacity(); }
    // Appends `sample` as a row. Its variant must be 0..kMaxVariant. Values past quantities() are left
    // out and missing ones are NaN, the store's mark of a missing value.
    void append(const Sample& sample);
    void append(std::span<const Sample> samples);
    // Reorders the rows: row i becomes the row that was at order[i]. `order` is a permutation of
    // 0..size()-1.
    void reorder(std::span<const std::uint32_t> order);

private:
    std::vector<std::uint16_t> m_variant;
    std::vector<std::int32_t> m_repetition;
    std::vector<std::int32_t> m_index;
    std::vector<std::int32_t> m_pair;
    std::vector<double> m_start;
    std::vector<double> m_duration;
    std::vector<std::vector<double>> m_values;  // [quantity][row]
    std::size_t m_variantCount = 0;
    int m_firstRepetition = 0;
    int m_lastRepetition = 0;
};

// Repetitions numbered 0..count()-1 in ascending order, for per-repetition sums that index an
// array. Stored runs number their repetitions from 0, so a slot is the repetition less the lowest
// one; only a table whose numbers are sparse (far more numbers in its range than rows) is searched.
// A slot may hold no row of a given variant: callers count what they add.
class RepetitionSlots {
public:
    explicit RepetitionSlots(const RunTable& table);

    std::size_t count() const { return m_count; }
    std::size_t slot(int repetition) const
    {
        return m_sparse.empty() ? static_cast<std::size_t>(static_cast<std::int64_t>(repetition) - m_first)
                                : searched(repetition);
    }
    int repetition(std::size_t slot) const;

private:
    std::size_t searched(int repetition) const;

    int m_first = 0;
    std::size_t m_count = 0;
    std::vector<int> m_sparse;  // the distinct repetitions, when searched
};

}  // namespace nf::engine
