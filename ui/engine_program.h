#pragma once
// The `noisefloor` binary the GUI starts to measure (`run --events jsonl`) and to check this machine
// (`check --format json`): $NOISEFLOOR_BIN, else the one next to this program, else `noisefloor` on
// the PATH; and whether this build may start it for either at all.

#include <QString>

#include "nf_build_options.h"

namespace nf::ui {

QString engineProgram();

// Whether the GUI may start the engine on this machine to measure and to check it. A build without
// the measuring parts (-DNF_MEASURE=OFF) may not: its engine refuses `run` and `check`, and runs go
// only to another host (noisefloor-gui --host).
enum class LocalEngine { Measures, NotBuilt };
inline constexpr LocalEngine kLocalEngine = kBuiltToMeasure ? LocalEngine::Measures : LocalEngine::NotBuilt;

// Why nothing is measured or checked here when the engine is LocalEngine::NotBuilt: one line that
// names the way that does measure.
QString notBuiltToMeasure();

}  // namespace nf::ui
