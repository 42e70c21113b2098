#pragma once
// The CPUs of the host a run goes to (`noisefloor-gui --host DEST`): `noisefloor check --cpus
// --format json` over ssh, read into the facts the Experiment tab offers and checks CPUs against,
// so that a run on DEST is never set up with this machine's CPUs.

#include <QObject>
#include <QString>

#include "base/system_facts.h"

class QProcess;

namespace nf::ui {

class RemoteEngine;

// The facts (online, allowed and each CPU's core, package and SMT siblings) in `check --cpus`'s
// JSON; false with `error` set when it is not that.
bool cpuFactsFromJson(const QByteArray& json, base::SystemFacts& facts, QString& error);

class RemoteCpus : public QObject {
    Q_OBJECT

public:
    explicit RemoteCpus(QObject* parent = nullptr) : QObject(parent) {}
    ~RemoteCpus() override;

    // Asks the host `remote` drives; answered() or failed() follows on the event loop. A question
    // still going is dropped.
    void ask(const RemoteEngine& remote);

signals:
    void answered(const base::SystemFacts& facts);
    void failed(const QString& why);

private:
    QProcess* m_process = nullptr;
};

}  // namespace nf::ui
