// BlasInfo: the BLAS library LibTorch's eager linear runs on in this process, and the kernels it picked.
//
// LibTorch (Debian's build) calls sgemm_ of whatever libblas.so.3 the system points at; OpenBLAS picks its
// kernels ("core type") once, when it is loaded, from the CPU it detects — and can detect a capable CPU as
// an old one (Debian's OpenBLAS 0.3.21 took an AVX-512 Xeon VM for `Prescott`, SSE3: 3x slower). A peer that
// runs below its best makes every "vs LibTorch" figure a lie, so crmap names the core (`crmap version`) and,
// where it is weaker than the host's ISA, also measures the peer with the matching core (backend/peer.h).
// OPENBLAS_CORETYPE, read at load time, is the only way to change the core: that run is a child process.
// DetectBlas() is computed once and cached (thread-safe); the rest are pure functions.
#pragma once

#include <string>

namespace crmap {

struct BlasInfo {
  std::string library;  // path of the library that provides sgemm_, "" if none is loaded
  bool openblas = false;
  std::string config;   // openblas_get_config(), e.g. "OpenBLAS 0.3.21 ... DYNAMIC_ARCH ... SkylakeX"
  std::string core;     // openblas_get_corename(), e.g. "SkylakeX", "Haswell", "Prescott"
};

const BlasInfo& DetectBlas();

// Vector ISA level of an OpenBLAS core type (case-insensitive): 1 SSE, 2 AVX, 3 AVX2, 4 AVX-512; 0 unknown.
int OpenBlasCoreLevel(const std::string& core);
// Level of a oneDNN ISA name on the same scale ("avx2" 3, "avx512_core_vnni" 4, ...; 0 unknown).
int OnednnIsaLevel(const std::string& isa);
// The OpenBLAS core type that matches oneDNN's ISA on this CPU (`amd`: an AMD CPU); "" when none is known.
std::string OpenBlasCoreFor(const std::string& isa, bool amd);
// True when `core` uses an older vector ISA than `isa` offers: the BLAS as installed runs below its best.
bool BlasCoreBelowIsa(const std::string& core, const std::string& isa);

}  // namespace crmap
