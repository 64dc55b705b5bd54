// Helpers shared by the loader fuzz targets in tests/fuzz/ (one *_fuzz.cpp per loader, built with clang++
// -fsanitize=fuzzer,address,undefined by tests/fuzz/CMakeLists.txt).
//
// - InputText: libFuzzer's bytes as a std::string.
// - MemoryFile: an anonymous in-memory file (memfd) reachable by a path, for loaders that only take a path
//   (trace JSONL, tuning database): each input is written to it, nothing touches the disk.
// - BuiltinWorkloads / FindWorkload: the embedded built-in workloads, parsed once, for loaders that check
//   their input against a workload (distributions, scenarios, traces, dims, configs).
// - NamesSpecialFile: inputs that would make a loader read a device, /proc or /sys file are skipped (see there).
//
// Everything here is for single-threaded fuzz drivers; the statics are built on first use.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/workload.h"

namespace crmap::fuzz {

inline std::string InputText(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Aborts the fuzz run: an invariant a loader documents does not hold (libFuzzer saves the input as a crash).
[[noreturn]] inline void Violated(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

// One memfd for the whole run; Write replaces its contents. Path() names it for open(2), stat(2), ifstream.
class MemoryFile {
 public:
  MemoryFile() : fd_(static_cast<int>(::memfd_create("crmap_fuzz", 0))) {
    if (fd_ < 0) Violated("memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(fd_); }

  void Write(const std::string& bytes) {
    if (::ftruncate(fd_, 0) != 0) Violated("ftruncate failed");
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n <= 0) Violated("pwrite failed");
      done += static_cast<size_t>(n);
    }
  }
  const std::string& Path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

// True if the text names a device, /proc or /sys path. Loaders read any path a dataset names (a scenario's
// distribution, a campaign's workload or shapes), pipes and devices included: /dev/stdin would block the run,
// /dev/zero costs a capped read per input, and /proc/self/fd/N reaches the fuzzer's own files. Such inputs test
// the file reader, not the parser, and are skipped.
inline bool NamesSpecialFile(const std::string& text) {
  return text.find("/dev") != std::string::npos || text.find("/proc") != std::string::npos ||
         text.find("/sys") != std::string::npos;
}

// The same for every string (key or value) of a parsed JSON document, so that escapes ("\/dev") do not hide one.
inline bool NamesSpecialFile(const Json& json) {
  if (json.is_string()) return NamesSpecialFile(json.get_ref<const std::string&>());
  if (json.is_object()) {
    for (const auto& item : json.items())
      if (NamesSpecialFile(item.key()) || NamesSpecialFile(item.value())) return true;
  }
  if (json.is_array()) {
    for (const Json& element : json)
      if (NamesSpecialFile(element)) return true;
  }
  return false;
}

// The built-in workloads (datasets/workloads/*.json, embedded): parsed once, in name order. Defined in
// builtin_workloads.cpp (needs the datasets catalog).
const std::vector<Workload>& BuiltinWorkloads();
// The built-in workload called `name`, or nullptr.
const Workload* FindWorkload(const std::string& name);

}  // namespace crmap::fuzz
