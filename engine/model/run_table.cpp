#include "engine/model/run_table.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "engine/model/run_data.h"

namespace nf::engine {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// Row i of `column` becomes its row order[i]; `scratch` is reused between columns.
template <class T>
void gather(std::vector<T>& column, std::span<const std::uint32_t> order, std::vector<T>& scratch)
{
    scratch.resize(column.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        scratch[i] = column[order[i]];
    }
    column.swap(scratch);
}

// The table's repetitions are dense when their range holds no more numbers than it has rows (and
// a little more for small tables): an array over the range is then no larger than a column.
bool denseRepetitions(const RunTable& table)
{
    const auto range = static_cast<std::int64_t>(table.lastRepetition()) - table.firstRepetition() + 1;
    return static_cast<std::uint64_t>(range) <= table.size() + 1024;
}

}  // namespace

RunTable::RunTable(std::size_t quantities) : m_values(quantities) {}

RunTable::RunTable(std::size_t quantities, std::span<const Sample> samples) : m_values(quantities)
{
    reserve(samples.size());
    append(samples);
}

std::vector<int> RunTable::repetitionsOf(int variant) const
{
    const RepetitionSlots slots(*this);
    std::vector<char> held(slots.count(), 0);
    for (std::size_t i = 0; i < size(); ++i) {
        if (variant < 0 || m_variant[i] == variant) {
            held[slots.slot(m_repetition[i])] = 1;
        }
    }
    std::vector<int> reps;
    for (std::size_t s = 0; s < held.size(); ++s) {
        if (held[s] != 0) {
            reps.push_back(slots.repetition(s));
        }
    }
    return reps;
}

Sample RunTable::sample(std::size_t row) const
{
    Sample s{m_variant[row], m_repetition[row], m_index[row], m_pair[row], m_start[row], m_duration[row], {}};
    s.values.reserve(m_values.size());
    for (const auto& column : m_values) {
        s.values.push_back(column[row]);
    }
    return s;
}

std::vector<Sample> RunTable::toSamples() const
{
    std::vector<Sample> samples;
    samples.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) {
        samples.push_back(sample(i));
    }
    return samples;
}

void RunTable::reserve(std::size_t rows)
{
    m_variant.reserve(rows);
    m_repetition.reserve(rows);
    m_index.reserve(rows);
    m_pair.reserve(rows);
    m_start.reserve(rows);
    m_duration.reserve(rows);
    for (auto& column : m_values) {
        column.reserve(rows);
    }
}

void RunTable::append(const Sample& sample)
{
    assert(sample.variant >= 0 && sample.variant <= kMaxVariant);
    if (empty() && m_values.empty()) {
        m_values.resize(sample.values.size());
    }
    m_firstRepetition = empty() ? sample.repetition : std::min(m_firstRepetition, sample.repetition);
    m_lastRepetition = empty() ? sample.repetition : std::max(m_lastRepetition, sample.repetition);
    m_variantCount = std::max(m_variantCount, static_cast<std::size_t>(sample.variant) + 1);
    m_variant.push_back(static_cast<std::uint16_t>(sample.variant));
    m_repetition.push_back(sample.repetition);
    m_index.push_back(sample.index);
    m_pair.push_back(sample.pair);
    m_start.push_back(sample.start);
    m_duration.push_back(sample.duration);
    const std::size_t given = std::min(sample.values.size(), m_values.size());
    for (std::size_t q = 0; q < given; ++q) {
        m_values[q].push_back(sample.values[q]);
    }
    for (std::size_t q = given; q < m_values.size(); ++q) {
        m_values[q].push_back(kMissing);
    }
}

void RunTable::append(std::span<const Sample> samples)
{
    for (const Sample& s : samples) {
        append(s);
    }
}

void RunTable::reorder(std::span<const std::uint32_t> order)
{
    assert(order.size() == size());
    {
        std::vector<std::uint16_t> scratch;
        gather(m_variant, order, scratch);
    }
    std::vector<std::int32_t> ints;
    gather(m_repetition, order, ints);
    gather(m_index, order, ints);
    gather(m_pair, order, ints);
    ints = {};
    std::vector<double> reals;
    gather(m_start, order, reals);
    gather(m_duration, order, reals);
    for (auto& column : m_values) {
        gather(column, order, reals);
    }
}

RepetitionSlots::RepetitionSlots(const RunTable& table) : m_first(table.firstRepetition())
{
    if (table.empty()) {
        return;
    }
    if (denseRepetitions(table)) {
        m_count = static_cast<std::size_t>(static_cast<std::int64_t>(table.lastRepetition()) - m_first + 1);
        return;
    }
    const auto reps = table.repetitions();
    m_sparse.assign(reps.begin(), reps.end());
    std::sort(m_sparse.begin(), m_sparse.end());
    m_sparse.erase(std::unique(m_sparse.begin(), m_sparse.end()), m_sparse.end());
    m_count = m_sparse.size();
}

std::size_t RepetitionSlots::searched(int repetition) const
{
    return static_cast<std::size_t>(std::lower_bound(m_sparse.begin(), m_sparse.end(), repetition) - m_sparse.begin());
}

int RepetitionSlots::repetition(std::size_t slot) const
{
    return m_sparse.empty() ? static_cast<int>(m_first + static_cast<std::int64_t>(slot)) : m_sparse[slot];
}

}  // namespace nf::engine
