// Workload resolver: finds the workload a tuning database or a policy file was made for, so that a workload
// given by path works everywhere a built-in does (train, evaluate, db, replay).
//
// Records and policies store the workload's name, fingerprint and source ("builtin" or the file's absolute
// path, backend-independent: Workload::origin()). The resolver takes, in this order: the user's --workload
// (a built-in name or a path); else the recorded source path if that file still exists; else the built-in of
// that name. A workload whose fingerprint is not one the records were made with is refused (the file changed
// since, or it is another workload of the same name), naming both fingerprints and where the workload came
// from; when none can be found, NotFound says to pass --workload PATH and names the recorded path.
// Pure functions over the file system; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"
#include "tuner/tuning_db.h"

namespace crmap {

// What records or a policy say about their workload.
struct WorkloadRef {
  std::string name;
  std::set<std::string> fingerprints;  // the ones the records were made with (a policy has one)
  std::string source;                  // the latest record's source: "builtin", an absolute path, or ""
};

// The ref of the records of workload `name` (source from the latest record that has one).
WorkloadRef RefFromRecords(const std::vector<TuningRecord>& records, const std::string& name);

// Finds the workload (see above). `given` is the --workload option ("" when absent); `what` names the
// database or policy in messages ("tuning database tuned.jsonl").
Result<Workload> ResolveWorkload(const WorkloadRef& ref, const std::string& given, const std::string& what);

// The workload of a tuning database's records: the one named by `given` (a name or path), else the only one the
// records hold; InvalidArgument when the database holds none, several (listing them) or not the given one.
Result<Workload> ResolveDbWorkload(const std::vector<TuningRecord>& records, const std::string& given,
                                   const std::string& db_path);

}  // namespace crmap
