#include "runtime/hook/host_isa.h"

#include <gtest/gtest.h>

#include "backend/host.h"

namespace crmap {
namespace {

CpuFeatures Avx2Host() {
  CpuFeatures f;
  f.sse41 = f.avx = f.avx2 = true;
  return f;
}

CpuFeatures IceLake() {  // AVX-512 with VNNI, no bf16 (this project's Xeon VM)
  CpuFeatures f = Avx2Host();
  f.avx512_core = f.avx512_vnni = true;
  return f;
}

TEST(HostIsaTest, NamesTheBestIsaAsOnednnDoes) {
  EXPECT_EQ(EffectiveIsa(Avx2Host(), ""), "avx2");
  EXPECT_EQ(EffectiveIsa(IceLake(), ""), "avx512_core_vnni");
  CpuFeatures zen4 = IceLake();
  zen4.avx512_bf16 = true;
  EXPECT_EQ(EffectiveIsa(zen4, ""), "avx512_core_bf16");
  CpuFeatures sapphire = zen4;
  sapphire.amx = true;
  EXPECT_EQ(EffectiveIsa(sapphire, ""), "avx512_core_amx");
  CpuFeatures alder = Avx2Host();
  alder.avx_vnni = true;
  EXPECT_EQ(EffectiveIsa(alder, ""), "avx2_vnni");
  CpuFeatures no_vnni = IceLake();
  no_vnni.avx512_vnni = false;
  EXPECT_EQ(EffectiveIsa(no_vnni, ""), "avx512_core");
  EXPECT_EQ(EffectiveIsa(CpuFeatures{}, ""), "");
}

TEST(HostIsaTest, TheMaxIsaVariableCapsItAsOnednnDoes) {
  EXPECT_EQ(EffectiveIsa(IceLake(), "AVX2"), "avx2");
  EXPECT_EQ(EffectiveIsa(IceLake(), "avx512_core"), "avx512_core");
  EXPECT_EQ(EffectiveIsa(IceLake(), "AVX512_CORE_AMX"), "avx512_core_vnni");  // a cap above the CPU: no effect
  EXPECT_EQ(EffectiveIsa(IceLake(), "ALL"), "avx512_core_vnni");
  EXPECT_EQ(EffectiveIsa(IceLake(), "AVX2_VNNI"), "avx2");  // Ice Lake has no AVX-VNNI
  EXPECT_EQ(EffectiveIsa(IceLake(), "no such isa"), "avx512_core_vnni");
  EXPECT_EQ(EffectiveIsa(Avx2Host(), "SSE41"), "sse41");
}

// The hook's CPUID reading and oneDNN's own answer agree on this host — under the suite's AVX2 twin too, where
// ONEDNN_MAX_CPU_ISA=AVX2 caps both.
TEST(HostIsaTest, AgreesWithOnednnOnThisHost) { EXPECT_EQ(HostIsa(), DetectHost().isa); }

}  // namespace
}  // namespace crmap
