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

}  // namespace nf::ui
