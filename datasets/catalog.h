// Catalog: finds workload, distribution and scenario files by built-in name or by path.
//
// The files under datasets/workloads, datasets/distributions and datasets/scenarios are embedded into the
// binary at build time (cmake/embed_files.cmake), so `crmap` works from any directory. A name resolves to
// the built-in file of that kind ("bert_ffn" -> datasets/workloads/bert_ffn.json); anything containing a '/'
// or ending in ".json" is read from disk instead. Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"

namespace crmap {

struct BuiltinFile {
  const char* path;  // relative to the source tree, e.g. "datasets/workloads/bert_ffn.json"
  const char* text;
};

// Generated at build time.
const std::vector<BuiltinFile>& BuiltinFiles();

enum class DatasetKind { kWorkload, kDistribution, kScenario };

struct DatasetText {
  std::string text;
  std::string source;  // the path it came from, for messages
};

// Built-in names of one kind, sorted.
std::vector<std::string> BuiltinNames(DatasetKind kind);

// NotFound names the missing item and lists the built-in names of that kind. Files are read with the
// kMaxDatasetFileBytes cap (common/file_read.h).
Result<DatasetText> ReadDataset(DatasetKind kind, const std::string& name_or_path);


// A built-in name or a path; the workload's origin() says which (kBuiltinOrigin or the absolute path).
Result<Workload> LoadWorkload(const std::string& name_or_path);

}  // namespace crmap
