// Stable 64-bit hashing (FNV-1a) for fingerprints and seeds.
//
// Fingerprints are written into files and compared across processes and machines, so they must not depend
// on std::hash (which is implementation-defined). FNV-1a over bytes is stable everywhere.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace crmap {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

inline uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = kFnvOffsetBasis) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kFnvPrime;
  }
  return hash;
}

// One FNV-1a step over a whole 64-bit word (not byte by byte): a fast hash of small integer arrays, for
// in-memory tables only (it is not the file format's checksum).
inline uint64_t FnvMixWord(uint64_t hash, uint64_t word) { return (hash ^ word) * kFnvPrime; }

// Mixes a 64-bit value into a well-distributed seed (splitmix64 finaliser).
inline uint64_t MixSeed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// 16 lowercase hex digits.
inline std::string HexDigest(uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

}  // namespace crmap
