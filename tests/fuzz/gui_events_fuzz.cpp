// The GUI's reader of `noisefloor run --events jsonl` (nf::ui::EventClient::feed), on any bytes.
// The stream arrives from a pipe in pieces of any size: feeding it whole and feeding it in pieces
// (the first byte picks their size) must give the same events, and every non-blank line counts.

#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "ui/event_client.h"

namespace {

using nf::ui::EventClient;

// Every signal `client` emits, appended to `log` as one line.
void record(EventClient& client, QString& log)
{
    QObject::connect(&client, &EventClient::runStarted, [&log](const nf::ui::LiveRunInfo& i) {
        log += QStringLiteral("started %1 %2 %3 %4\n")
                   .arg(i.runId)
                   .arg(i.variants.join(','))
                   .arg(i.repetitions)
                   .arg(i.primaryMetric);
    });
    QObject::connect(&client, &EventClient::samplesArrived, [&log](const std::vector<nf::ui::LiveSample>& s) {
        log += QStringLiteral("samples %1\n").arg(s.size());
    });
    QObject::connect(&client, &EventClient::repetitionDone,
                     [&log](int r, double, double) { log += QStringLiteral("repetition %1\n").arg(r); });
    QObject::connect(&client, &EventClient::progress, [&log](int done, int total, double) {
        log += QStringLiteral("progress %1/%2\n").arg(done).arg(total);
    });
    QObject::connect(&client, &EventClient::warning, [&log](const QString& w) { log += w + '\n'; });
    QObject::connect(&client, &EventClient::finished,
                     [&log](const QString& s, const QString& r) { log += s + ' ' + r + '\n'; });
    QObject::connect(&client, &EventClient::error, [&log](const QString& e) { log += e + '\n'; });
}

// The events of `bytes` fed in pieces of `piece` bytes, then the end of the last line.
QString events(const QByteArray& bytes, qsizetype piece, int* lines)
{
    QString log;
    EventClient client;
    record(client, log);
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        client.feed(bytes.mid(at, piece));
    }
    client.feed("\n");
    *lines = client.linesRead();
    return log;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 1 || size > 262144) {
        return 0;
    }
    const qsizetype piece = 1 + data[0] % 64;
    const QByteArray bytes(reinterpret_cast<const char*>(data + 1), static_cast<qsizetype>(size - 1));
    int linesWhole = 0;
    int linesPieces = 0;
    const QString whole = events(bytes, bytes.size() + 1, &linesWhole);
    const QString pieces = events(bytes, piece, &linesPieces);
    NF_FUZZ_CHECK(whole == pieces, whole.toStdString() + " | " + pieces.toStdString());
    NF_FUZZ_CHECK(linesWhole == linesPieces, std::to_string(linesWhole) + " vs " + std::to_string(linesPieces));
    int nonBlank = 0;
    for (const auto& line : bytes.split('\n')) {
        nonBlank += line.trimmed().isEmpty() ? 0 : 1;
    }
    NF_FUZZ_CHECK(linesWhole == nonBlank, std::to_string(linesWhole) + " vs " + std::to_string(nonBlank));
    return 0;
}
