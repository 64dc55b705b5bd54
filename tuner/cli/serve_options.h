// What `crmap serve` and `crmap tune --requests` (runtime tuning) share on the command line: the workload, the
// request stream and how it is read, the mode and its inputs, the queue policy, the duration and the SLO.
// Each command adds its own: serve its outputs and single runtime set-up, tune the lists of set-ups it tries.
#pragma once

#include <cxxopts.hpp>

#include "common/status.h"
#include "tuner/serve_task.h"

namespace crmap::cli {

// --workload, --requests, --mode, --policy, --fallback, --db, --config, --map, --dims, --out-of-range,
// --time-scale, --seed, --executor, --priorities, --max-queue-size, --timeout-ms, --timeout-action, --duration,
// --slo-ms, --no-warmup, --no-background-compile, --plan-memory-mb, --max-plans.
void AddServeStreamOptions(cxxopts::Options& options);
// Fills those fields of *task; InvalidArgument naming the option for a missing --workload/--requests or a value
// out of range.
Status ReadServeStreamOptions(const cxxopts::ParseResult& args, ServeTaskOptions* task);

}  // namespace crmap::cli
