#include "runtime/serve/request_source.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/file_read.h"
#include "common/json_fields.h"
#include "common/strings.h"

namespace crmap::serve {

Result<OutOfRange> ParseOutOfRange(const std::string& text) {
  if (text == "clamp") return OutOfRange::kClamp;
  if (text == "scale") return OutOfRange::kScale;
  if (text == "reject") return OutOfRange::kReject;
  return Status::InvalidArgument("--out-of-range '" + text + "' is unknown; allowed: clamp, scale, reject");
}

const char* OutOfRangeName(OutOfRange policy) {
  switch (policy) {
    case OutOfRange::kClamp: return "clamp";
    case OutOfRange::kScale: return "scale";
    case OutOfRange::kReject: return "reject";
  }
  return "?";
}

Result<std::map<std::string, std::string>> ParseColumnMap(const std::string& text) {
  std::map<std::string, std::string> columns;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = text.substr(start, comma - start);
    const size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size())
      return Status::InvalidArgument("--map entry '" + entry + "' is not dim=Column (e.g. tokens=ContextTokens)");
    const std::string dim = entry.substr(0, equals);
    if (!columns.emplace(dim, entry.substr(equals + 1)).second)
      return Status::InvalidArgument("--map maps dim '" + dim + "' twice");
    start = comma + 1;
  }
  return columns;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

bool IsLeap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

// Digits [begin, begin + count) of `text` as a number; false unless all are digits.
bool Digits(const std::string& text, size_t begin, size_t count, int64_t* value) {
  if (begin + count > text.size()) return false;
  *value = 0;
  for (size_t i = begin; i < begin + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    *value = *value * 10 + (text[i] - '0');
  }
  return true;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" (fraction up to 9 digits) -> microseconds since the epoch (double keeps the
// sub-microsecond part).
bool ParseTimestamp(const std::string& text, double* micros) {
  int64_t year, month, day, hour, minute, second;
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
      text[16] != ':')
    return false;
  if (!Digits(text, 0, 4, &year) || !Digits(text, 5, 2, &month) || !Digits(text, 8, 2, &day) ||
      !Digits(text, 11, 2, &hour) || !Digits(text, 14, 2, &minute) || !Digits(text, 17, 2, &second))
    return false;
  static const int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > kDaysIn[month - 1] + (month == 2 && IsLeap(year) ? 1 : 0)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  double fraction = 0;
  if (text.size() > 19) {
    const size_t digits = text.size() - 20;
    int64_t value;
    if (text[19] != '.' || digits < 1 || digits > 9 || !Digits(text, 20, digits, &value)) return false;
    fraction = static_cast<double>(value) / std::pow(10.0, static_cast<double>(digits));
  }
  const int64_t seconds = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  *micros = (static_cast<double>(seconds) + fraction) * 1e6;
  return true;
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

struct Row {
  double time_us;
  std::vector<int64_t> values;  // per mapped dim, in the order of `mapped`
  size_t line;
};

}  // namespace

Result<RequestStream> ParseAzureCsv(const std::string& text, const std::string& name, const Workload& workload,
                                    const CsvMapping& mapping) {
  if (!(mapping.time_scale > 0 && mapping.time_scale <= 1e6))
    return Status::InvalidArgument("--time-scale must be in (0, 1e6], got " + std::to_string(mapping.time_scale));
  std::vector<std::string> dim_names;
  for (const auto& [dim, range] : workload.dims()) dim_names.push_back(dim);
  // Every dim mapped or fixed, once; no name the workload lacks.
  for (const auto& [dim, column] : mapping.columns) {
    if (!workload.dims().count(dim))
      return Status::InvalidArgument("--map names dim '" + dim + "', which workload " + workload.name() +
                                     " does not have; its dims: " + JoinNames(dim_names));
    if (mapping.fixed.count(dim))
      return Status::InvalidArgument("dim '" + dim + "' is both mapped to a column and fixed");
  }
  for (const auto& [dim, value] : mapping.fixed) {
    auto range = workload.dims().find(dim);
    if (range == workload.dims().end())
      return Status::InvalidArgument("fixed dim '" + dim + "' is not a dim of workload " + workload.name() +
                                     "; its dims: " + JoinNames(dim_names));
    if (value < range->second.min || value > range->second.max)
      return Status::InvalidArgument("fixed dim " + dim + "=" + std::to_string(value) + " is outside [" +
                                     std::to_string(range->second.min) + ", " + std::to_string(range->second.max) +
                                     "]");
  }
  for (const std::string& dim : dim_names)
    if (!mapping.columns.count(dim) && !mapping.fixed.count(dim))
      return Status::InvalidArgument("dim '" + dim + "' of workload " + workload.name() +
                                     " is neither mapped to a column (--map " + dim + "=Column) nor fixed (--dims)");

  std::vector<std::string> mapped_dims;
  for (const auto& [dim, column] : mapping.columns) mapped_dims.push_back(dim);

  // The header (after a UTF-8 byte-order mark, which spreadsheet exports write).
  size_t line_start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0, line_number = 0;
  auto next_line = [&](std::string* line) {
    if (line_start >= text.size()) return false;
    size_t end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    *line = text.substr(line_start, end - line_start);
    if (!line->empty() && line->back() == '\r') line->pop_back();
    line_start = end + 1;
    ++line_number;
    return true;
  };
  std::string line;
  if (!next_line(&line) || Trim(line).empty()) return Status::InvalidArgument(name + ": empty, expected a header line");
  const std::vector<std::string> header = SplitFields(line);
  auto column_index = [&](const std::string& column) -> int {
    auto it = std::find(header.begin(), header.end(), column);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const int time_column = column_index("TIMESTAMP");
  if (time_column < 0)
    return Status::InvalidArgument(name + ": the header has no TIMESTAMP column; its columns: " + JoinNames(header));
  std::vector<int> value_columns;
  for (const std::string& dim : mapped_dims) {
    int index = column_index(mapping.columns.at(dim));
    if (index < 0)
      return Status::InvalidArgument(name + ": --map " + dim + "=" + mapping.columns.at(dim) +
                                     " names a column the header lacks; its columns: " + JoinNames(header));
    value_columns.push_back(index);
  }

  // The rows, raw.
  std::vector<Row> rows;
  std::vector<int64_t> column_max(mapped_dims.size(), 0);
  while (next_line(&line)) {
    if (Trim(line).empty()) {
      if (line_start >= text.size()) break;  // a final blank line
      return Status::InvalidArgument(name + ":" + std::to_string(line_number) + ": blank line inside the trace");
    }
    const std::vector<std::string> fields = SplitFields(line);
    const std::string where = name + ":" + std::to_string(line_number) + ": ";
    if (fields.size() != header.size())
      return Status::InvalidArgument(where + std::to_string(fields.size()) + " fields, the header has " +
                                     std::to_string(header.size()));
    Row row{0, {}, line_number};
    if (!ParseTimestamp(fields[time_column], &row.time_us))
      return Status::InvalidArgument(where + "TIMESTAMP '" + fields[time_column].substr(0, 64) +
                                     "' is not YYYY-MM-DD HH:MM:SS[.fraction]");
    if (!rows.empty() && row.time_us < rows.back().time_us)
      return Status::InvalidArgument(where + "TIMESTAMP is earlier than the line before (times must not decrease)");
    for (size_t i = 0; i < value_columns.size(); ++i) {
      const std::string& field = fields[value_columns[i]];
      int64_t value = -1;
      auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
      if (field.empty() || error != std::errc() || end != field.data() + field.size() || value < 0)
        return Status::InvalidArgument(where + "column " + header[value_columns[i]] + " holds '" +
                                       field.substr(0, 64) + "', expected a non-negative integer");
      column_max[i] = std::max(column_max[i], value);
      row.values.push_back(value);
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return Status::InvalidArgument(name + ": no requests after the header");

  RequestStream stream;
  stream.requests.reserve(rows.size());
  const double t0 = rows.front().time_us;
  for (const Row& row : rows) {
    ServeRequest request;
    request.id = static_cast<int64_t>(stream.requests.size());
    request.arrival_us = (row.time_us - t0) * mapping.time_scale;
    request.dims = mapping.fixed;
    for (size_t i = 0; i < mapped_dims.size(); ++i) {
      const DimRange& range = workload.dims().at(mapped_dims[i]);
      int64_t value = row.values[i];
      const bool outside = value < range.min || value > range.max;
      if (mapping.out_of_range == OutOfRange::kScale && column_max[i] > range.max)
        value = std::llround(static_cast<double>(value) * static_cast<double>(range.max) /
                             static_cast<double>(column_max[i]));
      const int64_t fitted = std::clamp(value, range.min, range.max);
      if (mapping.out_of_range == OutOfRange::kReject) {
        request.out_of_range |= outside;
      } else {
        request.adjusted |= fitted != row.values[i];
      }
      request.dims[mapped_dims[i]] = fitted;  // a rejected request keeps the nearest value, for display only
    }
    stream.report.adjusted += request.adjusted;
    stream.report.out_of_range += request.out_of_range;
    stream.requests.push_back(std::move(request));
  }
  stream.report.requests = static_cast<int64_t>(stream.requests.size());
  stream.report.duration_us = stream.requests.back().arrival_us;
  char description[256];
  std::snprintf(description, sizeof description, "%s: %lld requests over %.1f s (time x%g, out of range: %s)",
                name.c_str(), static_cast<long long>(stream.report.requests), stream.report.duration_us / 1e6,
                mapping.time_scale, OutOfRangeName(mapping.out_of_range));
  stream.report.description = description;
  return stream;
}

Result<RequestStream> ReadAzureCsv(const std::string& path, const Workload& workload, const CsvMapping& mapping) {
  CRMAP_ASSIGN_OR_RETURN(std::string text, ReadFileCapped(path, kMaxTraceFileBytes, "request trace"));
  return ParseAzureCsv(text, path, workload, mapping);
}

RequestStream FromTrace(const std::vector<TraceRequest>& trace, int streams, double time_scale,
                        const std::string& description) {
  RequestStream stream;
  stream.requests.reserve(trace.size());
  for (const TraceRequest& t : trace) {
    ServeRequest request;
    request.id = static_cast<int64_t>(stream.requests.size());
    request.arrival_us = t.arrival_us * time_scale;
    request.dims = t.dims;
    request.stream = t.stream;
    stream.requests.push_back(std::move(request));
  }
  stream.report.description = description;
  stream.report.requests = static_cast<int64_t>(stream.requests.size());
  stream.report.streams = std::max(streams, 1);
  stream.report.duration_us = stream.requests.empty() ? 0 : stream.requests.back().arrival_us;
  return stream;
}

}  // namespace crmap::serve
