// sar's machine-readable layouts: sadf -d (';'-separated) and sadf -j (JSON).

#include <nlohmann/json.hpp>

#include "engine/import/sar_rows.h"

namespace nf::engine::sar {

// sadf -d: "# hostname;interval;timestamp;IFACE;rxpck/s;..." then "host;62;2019-04-18 13:20:29 UTC;enp6s0;...".
Result<SarFile> parseSadfD(const ImportSource& src)
{
    SarFile file;
    file.layout = "sadf -d";
    std::vector<std::string> cols;
    bool dev = false;
    const auto lines = splitLines(src.text);
    auto split = [](std::string_view t) {
        std::vector<std::string> out;
        std::size_t start = 0;
        for (;;) {
            const auto semi = t.find(';', start);
            out.emplace_back(
                trim(t.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start)));
            if (semi == std::string_view::npos) {
                return out;
            }
            start = semi + 1;
        }
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto t = trim(lines[i]);
        if (t.empty()) {
            continue;
        }
        if (t.front() == '#') {
            cols = split(trim(t.substr(1)));
            dev = cols.size() > 4 && cols[3] == "IFACE" && std::find(cols.begin(), cols.end(), "rxpck/s") != cols.end();
            continue;
        }
        if (cols.empty() || t.find(';') == std::string_view::npos) {
            continue;  // text around the output
        }
        const auto f = split(t);
        if (f.size() != cols.size()) {
            return importError(src, i + 1,
                               "expected " + std::to_string(cols.size()) + " ';' fields (truncated?): " + quoteLine(t));
        }
        if (!dev) {
            ++file.otherRows;
            continue;
        }
        SarRow r;
        r.line = i + 1;
        file.host = f[0];
        auto interval = parseNumber(f[1]);
        if (!interval || *interval <= 0) {
            return importError(src, i + 1, "interval '" + f[1] + "' is not a number of seconds");
        }
        r.seconds = *interval;
        r.when = f[2];
        r.iface = f[3];
        for (std::size_t c = 4; c < cols.size(); ++c) {
            r.raw[cols[c]] = f[c];
        }
        file.dev.push_back(std::move(r));
    }
    return file;
}

// sadf -j: {"sysstat": {"hosts": [{"nodename", "release", "statistics": [{"timestamp": {..., "interval"},
// "network": {"net-dev": [{"iface", "rxpck", ...}]}}], "restarts": [...]}]}}.
Result<SarFile> parseSadfJ(const ImportSource& src, ImportTable& table)
{
    auto j = nlohmann::json::parse(src.text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("sysstat")) {
        return importError(src, 0, "not sadf -j output (no \"sysstat\" object, or not complete JSON: truncated?)");
    }
    SarFile file;
    file.layout = "sadf -j";
    const auto& hosts = j["sysstat"].value("hosts", nlohmann::json::array());
    if (!hosts.is_array() || hosts.size() != 1) {
        return importError(src, 0, "sadf -j output of " + std::to_string(hosts.size()) + " hosts: expected one");
    }
    const auto& host = hosts[0];
    file.host = host.value("nodename", "");
    file.kernel = host.value("release", "");
    const auto& stats = host.value("statistics", nlohmann::json::array());
    file.restarts = host.value("restarts", nlohmann::json::array()).size();
    table.read("statistics records", static_cast<double>(stats.size()));
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& rec = stats[i];
        const auto& ts = rec.value("timestamp", nlohmann::json::object());
        const double interval = ts.value("interval", 0.0);
        const std::string when = ts.value("time", "");
        const std::string at = "statistics[" + std::to_string(i) + "] ";
        table.read(at + "interval", interval);
        if (!rec.contains("network") || !rec["network"].contains("net-dev")) {
            continue;
        }
        const auto& devs = rec["network"]["net-dev"];
        table.read("net-dev entries in record " + std::to_string(i), static_cast<double>(devs.size()));
        for (const auto& d : devs) {
            SarRow r;
            r.iface = d.value("iface", "");
            r.when = when;
            r.seconds = interval;
            for (const auto& [k, v] : d.items()) {
                if (v.is_number()) {
                    r.values[k] = v.get<double>();
                    table.read(at + when + " net-dev " + r.iface + " " + k, v.get<double>());
                }
            }
            for (const auto& [col, key] :
                 {std::pair{"rxpck/s", "rxpck"}, {"txpck/s", "txpck"}, {"rxkB/s", "rxkB"}, {"txkB/s", "txkB"}}) {
                if (r.values.count(key) != 0) {
                    r.values[col] = r.values[key];
                }
            }
            if (r.seconds <= 0) {
                return importError(src, 0, at + "has an interval of " + std::to_string(r.seconds) + " s");
            }
            file.dev.push_back(std::move(r));
        }
    }
    return file;
}

Result<void> convert(const ImportSource& src, SarFile& file)
{
    NumberStyleVote vote;
    for (auto* rows : {&file.dev, &file.edev}) {
        for (const auto& r : *rows) {
            for (const auto& [col, raw] : r.raw) {
                vote.see(raw, r.line, NumberKind::Decimal);
            }
        }
    }
    auto style = NF_TRY(vote.decide(src));
    style.group = 0;
    for (auto* rows : {&file.dev, &file.edev}) {
        for (auto& r : *rows) {
            for (const auto& [col, raw] : r.raw) {
                auto v = parseStyled(raw, style);
                if (!v) {
                    return importError(src, r.line, "'" + raw + "' is not a number");
                }
                r.values[col] = *v;
            }
        }
    }
    if (style.decimal == ',') {
        file.layout += ", numbers in " + style.name();
    }
    return {};
}

}  // namespace nf::engine::sar
