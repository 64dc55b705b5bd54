#include "runtime/hook/host_isa.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CRMAP_HAVE_CPUID 1
#endif

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace crmap {

namespace {

struct IsaLevel {
  const char* name;
  // Bit of each ISA it includes, in the order of kLevels (oneDNN's hierarchy: avx2_vnni is not part of the
  // avx512 line).
  uint32_t includes;
};

// Ordered from the least to the most capable: the effective ISA is the last one supported and allowed.
const IsaLevel kLevels[] = {
    {"sse41", 0x01},            {"avx", 0x03},
    {"avx2", 0x07},             {"avx2_vnni", 0x0F},
    {"avx512_core", 0x17},      {"avx512_core_vnni", 0x37},
    {"avx512_core_bf16", 0x77}, {"avx512_core_amx", 0xF7},
};

bool Supported(const CpuFeatures& f, size_t level) {
  switch (level) {
    case 0: return f.sse41;
    case 1: return f.sse41 && f.avx;
    case 2: return f.avx && f.avx2;
    case 3: return f.avx2 && f.avx_vnni;
    case 4: return f.avx2 && f.avx512_core;
    case 5: return f.avx512_core && f.avx512_vnni;
    case 6: return f.avx512_core && f.avx512_vnni && f.avx512_bf16;
    case 7: return f.avx512_core && f.avx512_vnni && f.avx512_bf16 && f.amx;
  }
  return false;
}

#ifdef CRMAP_HAVE_CPUID
uint64_t Xcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}
#endif

}  // namespace

CpuFeatures DetectCpuFeatures() {
  CpuFeatures f;
#ifndef CRMAP_HAVE_CPUID
  return f;  // not x86: no oneDNN x64 ISA; every policy records one, so none is taken for this host's
#else
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  f.sse41 = ecx & (1u << 19);
  const bool osxsave = ecx & (1u << 27);
  const bool cpu_avx = ecx & (1u << 28);
  const uint64_t xcr0 = osxsave ? Xcr0() : 0;
  const bool ymm = (xcr0 & 0x6) == 0x6;
  const bool zmm = (xcr0 & 0xE6) == 0xE6;
  const bool tiles = (xcr0 & 0x60000) == 0x60000;
  f.avx = cpu_avx && ymm;
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  f.avx2 = f.avx && (ebx & (1u << 5));
  const bool avx512f = ebx & (1u << 16), avx512dq = ebx & (1u << 17), avx512bw = ebx & (1u << 30),
             avx512vl = ebx & (1u << 31);
  f.avx512_core = zmm && avx512f && avx512dq && avx512bw && avx512vl;
  f.avx512_vnni = ecx & (1u << 11);
  const bool amx_bf16 = edx & (1u << 22), amx_tile = edx & (1u << 24), amx_int8 = edx & (1u << 25);
  f.amx = tiles && amx_bf16 && amx_tile && amx_int8;
  const unsigned max_subleaf = eax;
  if (max_subleaf >= 1) {
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    f.avx_vnni = f.avx2 && (eax & (1u << 4));
    f.avx512_bf16 = eax & (1u << 5);
  }
  return f;
#endif
}

std::string EffectiveIsa(const CpuFeatures& features, const std::string& max_isa) {
  std::string cap = max_isa;
  std::transform(cap.begin(), cap.end(), cap.begin(), [](unsigned char c) { return std::tolower(c); });
  uint32_t allowed = 0xFF;
  for (const IsaLevel& level : kLevels)
    if (cap == level.name) allowed = level.includes;
  std::string best;
  for (size_t i = 0; i < sizeof kLevels / sizeof kLevels[0]; ++i)
    if ((allowed >> i & 1) && Supported(features, i)) best = kLevels[i].name;
  return best;
}

const std::string& HostIsa() {
  static const std::string isa = [] {
    const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (!cap || !*cap) cap = std::getenv("DNNL_MAX_CPU_ISA");
    return EffectiveIsa(DetectCpuFeatures(), cap ? cap : "");
  }();
  return isa;
}

}  // namespace crmap
