// HostIsa: the CPU ISA oneDNN would dispatch to on this machine, named as oneDNN names it ("avx2",
// "avx512_core", "avx512_core_vnni", "avx512_core_bf16", ...), computed from CPUID alone so that the hook
// (which must not link oneDNN) can tell whether a policy was tuned on this kind of host. Like oneDNN, it
// honours ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA) as a cap. backend/host.h asks oneDNN itself; a test checks
// that both agree. Pure functions, and a cached detection; thread-safe.
#pragma once

#include <string>

namespace crmap {

// What the CPU and the OS support (CPUID feature bits, and XGETBV for the register state the OS saves).
struct CpuFeatures {
  bool sse41 = false;
  bool avx = false;        // and the OS saves YMM state
  bool avx2 = false;
  bool avx_vnni = false;   // AVX-VNNI (VEX-encoded)
  bool avx512_core = false;  // AVX-512 F, BW, DQ, VL, and the OS saves ZMM and opmask state
  bool avx512_vnni = false;
  bool avx512_bf16 = false;
  bool amx = false;        // AMX tile, int8 and bf16, and the OS saves tile state
};

CpuFeatures DetectCpuFeatures();

// The best oneDNN ISA `features` support, capped by `max_isa` (an ONEDNN_MAX_CPU_ISA value such as "AVX2",
// case-insensitive; "" or "ALL": no cap; an unknown value is ignored, as oneDNN ignores it). "" when not even
// SSE4.1 is there.
std::string EffectiveIsa(const CpuFeatures& features, const std::string& max_isa);

// EffectiveIsa of this machine under this process's environment, computed once.
const std::string& HostIsa();

}  // namespace crmap
