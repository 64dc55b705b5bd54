// The measurement flags shared by measure, compare and sweep.
#pragma once

#include <cxxopts.hpp>

#include "backend/session.h"
#include "common/status.h"

namespace crmap::cli {

void AddMeasureOptions(cxxopts::Options& options, int default_rounds);
// InvalidArgument names a flag outside its allowed range.
Result<SessionOptions> ReadMeasureOptions(const cxxopts::ParseResult& args);

}  // namespace crmap::cli
