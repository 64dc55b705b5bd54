#include "tuner/workload_resolver.h"

#include <sys/stat.h>

#include "common/json_fields.h"
#include "datasets/catalog.h"

namespace crmap {

namespace {

bool FileExists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool IsBuiltin(const std::string& name) {
  for (const std::string& builtin : BuiltinNames(DatasetKind::kWorkload))
    if (builtin == name) return true;
  return false;
}

std::string Fingerprints(const std::set<std::string>& fingerprints) {
  return JoinNames(std::vector<std::string>(fingerprints.begin(), fingerprints.end()));
}

std::string Describe(const Workload& workload) {
  return workload.origin() == kBuiltinOrigin ? "the built-in " + workload.name()
                                             : workload.name() + " from " + workload.origin();
}

}  // namespace

WorkloadRef RefFromRecords(const std::vector<TuningRecord>& records, const std::string& name) {
  WorkloadRef ref;
  ref.name = name;
  for (const TuningRecord& r : records) {
    if (r.workload != name) continue;
    ref.fingerprints.insert(r.workload_fingerprint);
    if (!r.workload_source.empty()) ref.source = r.workload_source;
  }
  return ref;
}

Result<Workload> ResolveWorkload(const WorkloadRef& ref, const std::string& given, const std::string& what) {
  Result<Workload> found = Status::NotFound("");
  const bool recorded_path = !ref.source.empty() && ref.source != kBuiltinOrigin;
  if (!given.empty()) {
    found = LoadWorkload(given);
    if (!found.ok()) return found.status().WithContext("--workload");
    if (found->name() != ref.name)
      return Status::InvalidArgument("--workload " + given + " is workload '" + found->name() + "', but " + what +
                                     " is for '" + ref.name + "'");
  } else if (recorded_path && FileExists(ref.source)) {
    found = LoadWorkload(ref.source);
    if (!found.ok()) return found.status().WithContext("the workload file " + what + " names");
  } else if (!recorded_path && IsBuiltin(ref.name)) {
    found = LoadWorkload(ref.name);
    if (!found.ok()) return found.status();
  } else if (recorded_path) {
    return Status::NotFound(what + " was made with workload '" + ref.name + "' from " + ref.source +
                            ", which no longer exists; pass --workload PATH to that workload's file");
  } else {
    return Status::NotFound(what + " was made with workload '" + ref.name +
                            "', which is not a built-in and whose file it does not record; pass --workload PATH to "
                            "that workload's file");
  }
  if (!ref.fingerprints.empty() && !ref.fingerprints.count(found->fingerprint()))
    return Status::InvalidArgument(Describe(*found) + " has fingerprint " + found->fingerprint() + ", but " + what +
                                   " was made with " + Fingerprints(ref.fingerprints) +
                                   ": the workload changed since (or it is another workload of that name); pass "
                                   "--workload PATH to the file it was tuned with, or tune again");
  return found;
}

Result<Workload> ResolveDbWorkload(const std::vector<TuningRecord>& records, const std::string& given,
                                   const std::string& db_path) {
  std::set<std::string> names;
  for (const TuningRecord& r : records) names.insert(r.workload);
  const std::string held = JoinNames(std::vector<std::string>(names.begin(), names.end()));
  if (names.empty()) return Status::InvalidArgument(db_path + " holds no records: tune into it first");
  std::string name;
  if (!given.empty()) {
    Result<Workload> named = LoadWorkload(given);
    if (!named.ok()) return named.status().WithContext("--workload");
    name = named->name();
    if (!names.count(name))
      return Status::InvalidArgument(db_path + " holds no records of workload '" + name + "'; it holds " + held);
  } else if (names.size() != 1) {
    return Status::InvalidArgument(db_path + " holds " + std::to_string(names.size()) +
                                   " workloads; name one with --workload (" + held + ")");
  } else {
    name = *names.begin();
  }
  return ResolveWorkload(RefFromRecords(records, name), given, "tuning database " + db_path);
}

}  // namespace crmap
