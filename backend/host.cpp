#include "backend/host.h"

#include <fstream>
#include <string>
#include <thread>

#include <oneapi/dnnl/dnnl.hpp>

namespace crmap {

namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string model = line.substr(colon + 1);
        size_t start = model.find_first_not_of(' ');
        return start == std::string::npos ? "unknown" : model.substr(start);
      }
    }
  }
  return "unknown";
}

const char* IsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "unknown";
  }
}

HostInfo Detect() {
  HostInfo host;
  host.cpu = CpuModel();
  dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  host.isa = IsaName(isa);
  host.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const dnnl_version_t* version = dnnl_version();
  host.onednn_version = std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
                        std::to_string(version->patch);
  bool avx512 = host.isa.rfind("avx512_core", 0) == 0;
  host.has_bf16 = avx512;
  host.native_bf16 = isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
  host.blocked_channels = avx512 ? 16 : 8;
  return host;
}

}  // namespace

const HostInfo& DetectHost() {
  static const HostInfo host = Detect();
  return host;
}

}  // namespace crmap
