// HostInfo: what machine a measurement ran on (CPU model, the ISA oneDNN dispatches to, cores, oneDNN
// version), recorded with every result because ratios measured on one machine do not transfer to another.
// DetectHost() reads /proc/cpuinfo and asks oneDNN; the result is computed once and cached (thread-safe).
#pragma once

#include <string>

namespace crmap {

struct HostInfo {
  std::string cpu;             // "AMD EPYC 9R14"
  std::string isa;             // oneDNN's effective ISA: "avx2", "avx512_core_bf16", ...
  int cores = 1;               // hardware threads available to this process
  std::string onednn_version;  // "2.6.3"
  bool has_bf16 = false;       // oneDNN implements bf16 compute on this ISA (avx512_core and newer)
  int blocked_channels = 8;    // channel block of the "blocked" layout on this ISA: 8 (AVX2) or 16 (AVX-512)
};

const HostInfo& DetectHost();

}  // namespace crmap
