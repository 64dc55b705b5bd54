// Chrome trace-event JSON of a serve run (the format chrome://tracing and Perfetto open): an async span per
// request from arrival to its end (category `request`, named after its outcome), a complete slice per batch
// on its executor's track (ServeResult::batch_records: named by batch size, or "chunk" for a chunk of a long
// request with more to run; dims, config and decision source as args), and a counter
// of the queue depth over time (requests arrived and not yet started, rejected or failed). Times are
// microseconds from the start of the run, as in the telemetry. Format: docs/serve.md ("Trace"). Pure;
// thread-safe.
#pragma once

#include <string>

#include "common/json_fields.h"
#include "common/status.h"
#include "runtime/serve/server.h"

namespace crmap::serve {

Json ChromeTrace(const ServeResult& result);
// ChromeTrace written to `path` atomically.
Status WriteChromeTrace(const std::string& path, const ServeResult& result);

}  // namespace crmap::serve
