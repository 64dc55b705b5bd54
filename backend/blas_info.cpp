#include "backend/blas_info.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace crmap {

namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

BlasInfo Detect() {
  BlasInfo info;
  if (void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_")) {
    Dl_info where{};
    if (dladdr(sgemm, &where) && where.dli_fname) info.library = where.dli_fname;
  }
  using NameFunction = char* (*)();
  auto config = reinterpret_cast<NameFunction>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  auto core = reinterpret_cast<NameFunction>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (config && core) {
    info.openblas = true;
    if (const char* text = config()) info.config = text;
    if (const char* text = core()) info.core = text;
  }
  return info;
}

}  // namespace

const BlasInfo& DetectBlas() {
  static const BlasInfo info = Detect();
  return info;
}

int OpenBlasCoreLevel(const std::string& core) {
  static const std::map<std::string, int> kLevels = {
      {"katmai", 1},     {"coppermine", 1}, {"northwood", 1},   {"prescott", 1},   {"banias", 1},
      {"core2", 1},      {"penryn", 1},     {"dunnington", 1},  {"nehalem", 1},    {"atom", 1},
      {"athlon", 1},     {"opteron", 1},    {"opteron_sse3", 1}, {"barcelona", 1}, {"bobcat", 1},
      {"nano", 1},       {"sandybridge", 2}, {"bulldozer", 2},  {"piledriver", 2}, {"steamroller", 2},
      {"excavator", 2},  {"haswell", 3},    {"zen", 3},         {"skylakex", 4},   {"cooperlake", 4},
      {"sapphirerapids", 4}};
  auto it = kLevels.find(Lower(core));
  return it == kLevels.end() ? 0 : it->second;
}

int OnednnIsaLevel(const std::string& isa) {
  if (isa.rfind("avx512", 0) == 0) return 4;
  if (isa.rfind("avx2", 0) == 0) return 3;
  if (isa == "avx") return 2;
  if (isa.rfind("sse", 0) == 0) return 1;
  return 0;
}

std::string OpenBlasCoreFor(const std::string& isa, bool amd) {
  if (isa == "avx512_core_bf16" || isa == "avx512_core_amx") return "Cooperlake";
  switch (OnednnIsaLevel(isa)) {
    case 4: return "SkylakeX";
    case 3: return amd ? "Zen" : "Haswell";
    case 2: return amd ? "Bulldozer" : "Sandybridge";
    default: return "";
  }
}

bool BlasCoreBelowIsa(const std::string& core, const std::string& isa) {
  const int core_level = OpenBlasCoreLevel(core), isa_level = OnednnIsaLevel(isa);
  return core_level > 0 && isa_level > 0 && core_level < isa_level;
}

}  // namespace crmap
