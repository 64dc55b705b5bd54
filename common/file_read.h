// Reading files crmap did not write — workloads, distributions, scenarios, campaign specs, request traces,
// tuning databases — as untrusted input: every read has a size cap that the error message names, so
// /dev/zero, /dev/urandom or a sparse multi-gigabyte file is refused after reading at most cap + 1 bytes
// instead of filling memory. Pipes and devices are read (a workload may come from `<(...)`), folders are not.
// The caps live here, in one place, and docs/failure-behaviour.md lists them. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace crmap {

inline constexpr uint64_t kMiB = uint64_t{1} << 20;
// Workload, distribution, scenario and campaign spec files (the built-ins are a few KB).
inline constexpr uint64_t kMaxDatasetFileBytes = 16 * kMiB;
// A request trace (JSON Lines, ~60 bytes per request: about 17 million requests).
inline constexpr uint64_t kMaxTraceFileBytes = 1024 * kMiB;
// A tuning database (JSON Lines, ~1 KB per record: about a million measurements) and one line of it.
inline constexpr uint64_t kMaxTuningDbBytes = 1024 * kMiB;
inline constexpr uint64_t kMaxTuningDbLineBytes = 1 * kMiB;

// "16 MiB", "1.5 GiB", "312 bytes".
std::string FormatBytes(uint64_t bytes);

// The whole file. NotFound if it does not exist; InvalidArgument if it is a folder, cannot be read, or holds
// more than `max_bytes` ("<path>: larger than 16 MiB, the limit for a <what>").
Result<std::string> ReadFileCapped(const std::string& path, uint64_t max_bytes, const std::string& what);

// FNV-1a 64 of the file's bytes, read in chunks (for digests of files too large to hold), or an error as above.
Result<uint64_t> DigestFile(const std::string& path, uint64_t max_bytes, const std::string& what);

}  // namespace crmap
