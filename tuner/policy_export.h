// The readable view of a policy: what `crmap export --format json` prints. It reads the decoded PolicyFile (the
// one codec, runtime/hook/policy_file.h, owns the binary layout), names value indices by their knob values and
// lists each knob's allowed values; identity first, the network weights last. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/hook/policy_file.h"

namespace crmap {

nlohmann::ordered_json PolicyToJson(const PolicyFile& file);

// The confidence calibration as `crmap export` and `crmap train --json` print it: per agreement band, from, to,
// folds, within (right) and the stated rate.
nlohmann::json CalibrationJson(const std::vector<CalibrationBin>& calibration);

}  // namespace crmap
