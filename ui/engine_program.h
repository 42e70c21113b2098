#pragma once
// The `noisefloor` binary the GUI starts to measure (`run --events jsonl`) and to check this machine
// (`check --format json`): $NOISEFLOOR_BIN, else the one next to this program, else `noisefloor` on
// the PATH.

#include <QString>

namespace nf::ui {

QString engineProgram();

}  // namespace nf::ui
