// libFuzzer target for the tuning-database reader (tuner/tuning_db.h): arbitrary bytes -> ParseTuningRecord on
// every line (one record, as `db`, `train`, `replay` and `tune --resume` parse them), and the whole input,
// written to an in-memory file (memfd), -> ReadTuningDb with and without fingerprints to match. A database that
// reads must account for every non-blank line: returned, skipped as torn, or of another fingerprint.
// tuning_db.cpp needs only status, json_fields and workload at link time (it includes
// tuner/measurement_record.h for the format version, which drags in oneDNN's headers, not its library).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/tuning_db_line/.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "tuner/tuning_db.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  std::istringstream lines(text);
  std::string line;
  size_t non_blank = 0;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++non_blank;
    (void)crmap::ParseTuningRecord(line);
  }
  static crmap::fuzz::MemoryFile file;
  file.Write(text);
  auto all = crmap::ReadTuningDb(file.Path());
  if (all.ok()) {
    if (all->records.size() + all->skipped_torn + all->other_fingerprints != non_blank || all->other_fingerprints != 0)
      crmap::fuzz::Violated("ReadTuningDb lost or invented lines");
    for (const crmap::TuningRecord& record : all->records) {
      if (record.line < 1 || record.version < 1) crmap::fuzz::Violated("record with no line or version");
    }
    auto matched = crmap::ReadTuningDb(file.Path(), "0123456789abcdef", "fedcba9876543210");
    if (!matched.ok() || matched->records.size() + matched->other_fingerprints != all->records.size())
      crmap::fuzz::Violated("fingerprint filter lost records");
  }
  return 0;
}
