#include "ui/engine_program.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace nf::ui {

QString engineProgram()
{
    QString fromEnv = qEnvironmentVariable("NOISEFLOOR_BIN");
    if (!fromEnv.isEmpty()) {
        return fromEnv;
    }
    QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("noisefloor"));
    if (QFileInfo(beside).isExecutable()) {
        return beside;
    }
    return QStringLiteral("noisefloor");
}

QString notBuiltToMeasure()
{
    return QCoreApplication::translate(
        "nf::ui",
        "built without measurement (NF_MEASURE=OFF): nothing is measured or checked on this machine; "
        "to run experiments on another host, start noisefloor-gui --host DEST");
}

}  // namespace nf::ui
