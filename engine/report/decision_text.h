#pragma once
// The sequential decision of a run that ran until decided, as the comparison shows it above the
// fixed-n analysis of the same data: a short text block and a JSON object.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/run_data.h"

namespace nf::engine {

void writeDecisionText(const DecisionRecord& decision, const std::string& baseline, const std::string& candidate,
                       std::ostream& out);
// The same decision as header lines of the compact report, each short enough for one line.
std::vector<std::string> decisionLines(const DecisionRecord& decision);
nlohmann::json decisionJson(const DecisionRecord& decision);

}  // namespace nf::engine
