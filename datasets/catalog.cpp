#include "datasets/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "common/file_read.h"
#include "common/json_fields.h"

namespace crmap {

namespace {

const char* Folder(DatasetKind kind) {
  switch (kind) {
    case DatasetKind::kWorkload: return "datasets/workloads/";
    case DatasetKind::kDistribution: return "datasets/distributions/";
    case DatasetKind::kScenario: return "datasets/scenarios/";
  }
  return "";
}

const char* KindName(DatasetKind kind) {
  switch (kind) {
    case DatasetKind::kWorkload: return "workload";
    case DatasetKind::kDistribution: return "distribution";
    case DatasetKind::kScenario: return "scenario";
  }
  return "";
}

bool LooksLikePath(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
}

}  // namespace

std::vector<std::string> BuiltinNames(DatasetKind kind) {
  std::vector<std::string> names;
  std::string folder = Folder(kind);
  for (const auto& file : BuiltinFiles()) {
    std::string path = file.path;
    if (path.rfind(folder, 0) != 0) continue;
    std::string name = path.substr(folder.size());
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<DatasetText> ReadDataset(DatasetKind kind, const std::string& name_or_path) {
  if (LooksLikePath(name_or_path)) {
    CRMAP_ASSIGN_OR_RETURN(std::string text,
                           ReadFileCapped(name_or_path, kMaxDatasetFileBytes, std::string(KindName(kind)) + " file"));
    return DatasetText{text, name_or_path};
  }
  std::string wanted = std::string(Folder(kind)) + name_or_path + ".json";
  for (const auto& file : BuiltinFiles())
    if (wanted == file.path) return DatasetText{file.text, wanted};
  return Status::NotFound(std::string("unknown ") + KindName(kind) + " '" + name_or_path + "'; built-in: " +
                          JoinNames(BuiltinNames(kind)) + " (or give a path to a .json file)");
}

Result<Workload> LoadWorkload(const std::string& name_or_path) {
  CRMAP_ASSIGN_OR_RETURN(DatasetText file, ReadDataset(DatasetKind::kWorkload, name_or_path));
  std::string origin = kBuiltinOrigin;
  if (LooksLikePath(name_or_path)) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(name_or_path, error);
    origin = error ? name_or_path : absolute.lexically_normal().string();
  }
  return ParseWorkload(file.text, file.source, origin);
}

}  // namespace crmap
