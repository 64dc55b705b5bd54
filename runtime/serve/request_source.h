// Request streams for the serving runtime: where `crmap serve` gets its requests, all turned into one form
// (ServeRequest: arrival time, dims, stream) before the generator thread releases them at their timestamps.
//
// Sources: a drift scenario (datasets/scenario.h, requests drawn by GenerateTrace), a request trace
// (`crmap.trace` JSON Lines, datasets/trace.h), and a CSV trace in the Azure LLM inference schema
// (`TIMESTAMP,ContextTokens,GeneratedTokens`; ../shared/datasets/azure_llm_2023/). A CSV's columns are mapped
// to the workload's dims explicitly (`tokens=ContextTokens`); dims no column maps take a fixed value. Values a
// dim's range does not hold are handled as the user says — clamped, scaled, or rejected — and every adjusted
// or rejected request is counted and kept in the stream (a rejected one arrives and is rejected with reason
// `out_of_range`), never dropped silently. `time_scale` multiplies every recorded time (0.5: twice as fast).
//
// CSV format: a header line naming the columns (TIMESTAMP must be one), then one request per line, fields
// separated by commas, no quoting; TIMESTAMP is `YYYY-MM-DD HH:MM:SS[.fraction]` (UTC, as in the Azure files),
// mapped columns hold non-negative integers; times must not decrease. A CRLF line end and a final blank line
// are accepted. The file is read whole, capped at kMaxTraceFileBytes. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"
#include "datasets/trace.h"

namespace crmap::serve {

// What happens to a value outside its dim's range.
enum class OutOfRange {
  kClamp,   // to the nearest end of the range
  kScale,   // multiplied by dim max / the column's largest value in the file, then clamped
  kReject,  // the request stays in the stream and is rejected on arrival (reason out_of_range)
};
Result<OutOfRange> ParseOutOfRange(const std::string& text);  // "clamp", "scale", "reject"
const char* OutOfRangeName(OutOfRange policy);

struct ServeRequest {
  int64_t id = 0;          // position in the stream, from 0
  double arrival_us = 0;   // from the start of the stream, after time scaling
  Dims dims;
  int stream = 0;
  bool adjusted = false;   // clamp or scale changed a value
  bool out_of_range = false;  // policy reject: rejected on arrival
};

// What a source did to its requests, reported by serve next to its results.
struct SourceReport {
  std::string description;  // "AzureLLMInferenceTrace_code.csv: 8819 requests over 3420.5 s"
  int64_t requests = 0;
  int64_t adjusted = 0;      // clamped or scaled
  int64_t out_of_range = 0;  // to be rejected on arrival
  int streams = 1;
  double duration_us = 0;    // the last arrival
};

struct RequestStream {
  std::vector<ServeRequest> requests;  // by arrival time
  SourceReport report;
};

struct CsvMapping {
  std::map<std::string, std::string> columns;  // dim -> CSV column
  Dims fixed;                                  // dims no column maps
  OutOfRange out_of_range = OutOfRange::kReject;
  double time_scale = 1;
};

// Parses `--map tokens=ContextTokens,batch=...`: InvalidArgument for an empty, malformed or repeated entry.
Result<std::map<std::string, std::string>> ParseColumnMap(const std::string& text);

// The requests of a CSV text (`name` names it in messages). InvalidArgument, naming `name` and the line, for a
// malformed line, a missing TIMESTAMP or mapped column (the message lists the columns there are), a dim of the
// workload neither mapped nor fixed or a mapped/fixed name the workload lacks (listing its dims), a fixed value
// outside its range, a time earlier than the line before, or a time_scale not in (0, 1e6].
Result<RequestStream> ParseAzureCsv(const std::string& text, const std::string& name, const Workload& workload,
                                    const CsvMapping& mapping);
// ParseAzureCsv of a file, read with the trace cap (NotFound if it does not exist).
Result<RequestStream> ReadAzureCsv(const std::string& path, const Workload& workload, const CsvMapping& mapping);

// A request trace (ReadTraceJsonl's output) or a scenario's generated one, with times scaled.
RequestStream FromTrace(const std::vector<TraceRequest>& trace, int streams, double time_scale,
                        const std::string& description);

}  // namespace crmap::serve
