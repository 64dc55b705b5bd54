// The built-in workloads for the fuzz targets (tests/fuzz/fuzz_support.h), parsed once from the embedded files.
#include <cstdio>
#include <cstdlib>

#include "datasets/catalog.h"
#include "tests/fuzz/fuzz_support.h"

namespace crmap::fuzz {

const std::vector<Workload>& BuiltinWorkloads() {
  static const std::vector<Workload> workloads = [] {
    std::vector<Workload> out;
    for (const std::string& name : BuiltinNames(DatasetKind::kWorkload)) {
      auto workload = LoadWorkload(name);
      if (!workload.ok()) {
        std::fprintf(stderr, "built-in workload %s does not load: %s\n", name.c_str(),
                     workload.status().ToString().c_str());
        std::abort();
      }
      out.push_back(std::move(workload).value());
    }
    if (out.empty()) Violated("no built-in workloads");
    return out;
  }();
  return workloads;
}

const Workload* FindWorkload(const std::string& name) {
  for (const Workload& workload : BuiltinWorkloads())
    if (workload.name() == name) return &workload;
  return nullptr;
}

}  // namespace crmap::fuzz
