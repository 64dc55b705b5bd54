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
  bool has_bf16 = false;       // oneDNN runs bf16 compute on this ISA (avx512_core and newer)
  bool native_bf16 = false;    // ... with the CPU's own bf16 instructions (avx512_core_bf16 and newer); below
                               // that oneDNN emulates them and bf16 may be slower than f32
  int blocked_channels = 8;    // channel block of the "blocked" layout on this ISA: 8 (AVX2) or 16 (AVX-512)
};

const HostInfo& DetectHost();

}  // namespace crmap
