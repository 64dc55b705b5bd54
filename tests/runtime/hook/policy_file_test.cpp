#include "runtime/hook/policy_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "search_space/features.h"
#include "tests/test_support.h"
#include "tests/runtime/hook/policy_test_support.h"

// Records the largest single allocation, so the absurd-size tests can check that the decoder never allocates
// what a size field claims before checking that the input holds it, and counts allocations, so hook_test.cpp
// can check that decide allocates nothing. Applies to this whole test executable.
namespace {
std::atomic<size_t> g_largest_allocation{0};
}
std::atomic<size_t> g_allocation_count{0};

void* operator new(size_t size) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  size_t seen = g_largest_allocation.load(std::memory_order_relaxed);
  while (size > seen && !g_largest_allocation.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// GCC inlines these into sized deallocations and, not knowing the new above uses malloc, warns about a
// mismatch that is not one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace crmap {
namespace {

using testing::MakeSyntheticPolicy;
using testing::PolicySkeleton;
using testing::SyntheticPolicyOptions;
using testing::TestWorkload;
using testing::WithValidChecksum;

constexpr size_t kHeader = 24;  // magic, version, flags, payload length

uint32_t ReadU32(const std::string& bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}
std::string SetU32(std::string bytes, size_t offset, uint32_t v) {
  std::memcpy(&bytes[offset], &v, 4);
  return bytes;
}

void ExpectLayer(const DenseLayer& a, const DenseLayer& b, const std::string& what) {
  EXPECT_EQ(a.in, b.in) << what;
  EXPECT_EQ(a.out, b.out) << what;
  EXPECT_EQ(a.weights, b.weights) << what;
  EXPECT_EQ(a.bias, b.bias) << what;
}

// Every field of two policy files, one by one (so a failure names the field).
void ExpectSamePolicy(const PolicyFile& a, const PolicyFile& b) {
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.workload_fingerprint, b.workload_fingerprint);
  EXPECT_EQ(a.workload_source, b.workload_source);
  EXPECT_EQ(a.space_fingerprint, b.space_fingerprint);
  ASSERT_EQ(a.dims.size(), b.dims.size());
  for (size_t i = 0; i < a.dims.size(); ++i) {
    EXPECT_EQ(a.dims[i].name, b.dims[i].name);
    EXPECT_EQ(a.dims[i].min, b.dims[i].min);
    EXPECT_EQ(a.dims[i].max, b.dims[i].max);
  }
  ASSERT_EQ(a.knobs.size(), b.knobs.size());
  for (size_t i = 0; i < a.knobs.size(); ++i) {
    EXPECT_EQ(a.knobs[i].name, b.knobs[i].name);
    EXPECT_EQ(a.knobs[i].plan, b.knobs[i].plan);
    EXPECT_EQ(a.knobs[i].values, b.knobs[i].values);
    EXPECT_EQ(a.knobs[i].default_index, b.knobs[i].default_index);
  }
  ASSERT_EQ(a.features.size(), b.features.size());
  for (size_t i = 0; i < a.features.size(); ++i) {
    EXPECT_EQ(a.features[i].name, b.features[i].name);
    EXPECT_EQ(a.features[i].lo, b.features[i].lo);
    EXPECT_EQ(a.features[i].hi, b.features[i].hi);
  }
  EXPECT_EQ(a.mask, b.mask);
  ExpectLayer(a.policy.trunk1, b.policy.trunk1, "policy trunk 1");
  ExpectLayer(a.policy.trunk2, b.policy.trunk2, "policy trunk 2");
  ASSERT_EQ(a.policy.heads.size(), b.policy.heads.size());
  for (size_t i = 0; i < a.policy.heads.size(); ++i) ExpectLayer(a.policy.heads[i], b.policy.heads[i], "head");
  ExpectLayer(a.critic.layer1, b.critic.layer1, "critic 1");
  ExpectLayer(a.critic.layer2, b.critic.layer2, "critic 2");
  ExpectLayer(a.critic.layer3, b.critic.layer3, "critic 3");
  EXPECT_EQ(a.latency_model, b.latency_model);
  ASSERT_EQ(a.table.size(), b.table.size());
  for (size_t i = 0; i < a.table.size(); ++i) {
    EXPECT_EQ(a.table[i].dims, b.table[i].dims);
    EXPECT_EQ(a.table[i].config, b.table[i].config);
    EXPECT_EQ(a.table[i].median_us, b.table[i].median_us);
    EXPECT_EQ(a.table[i].p99_us, b.table[i].p99_us);
    EXPECT_EQ(a.table[i].speedup, b.table[i].speedup);
    EXPECT_EQ(a.table[i].confidence, b.table[i].confidence);
  }
  ASSERT_EQ(a.critic_members.size(), b.critic_members.size());
  for (size_t m = 0; m < a.critic_members.size(); ++m) {
    ExpectLayer(a.critic_members[m].layer1, b.critic_members[m].layer1, "member 1");
    ExpectLayer(a.critic_members[m].layer2, b.critic_members[m].layer2, "member 2");
    ExpectLayer(a.critic_members[m].layer3, b.critic_members[m].layer3, "member 3");
  }
  EXPECT_EQ(a.pessimism, b.pessimism);
  ASSERT_EQ(a.calibration.size(), b.calibration.size());
  for (size_t i = 0; i < a.calibration.size(); ++i) {
    EXPECT_EQ(a.calibration[i].from, b.calibration[i].from);
    EXPECT_EQ(a.calibration[i].folds, b.calibration[i].folds);
    EXPECT_EQ(a.calibration[i].within, b.calibration[i].within);
    EXPECT_EQ(a.calibration[i].rate, b.calibration[i].rate);
  }
  EXPECT_EQ(a.fallback, b.fallback);
  EXPECT_EQ(a.incumbent, b.incumbent);
  EXPECT_EQ(a.switch_margin, b.switch_margin);
  EXPECT_EQ(a.neighbour_incumbent, b.neighbour_incumbent);
  EXPECT_EQ(a.host.cpu, b.host.cpu);
  EXPECT_EQ(a.host.isa, b.host.isa);
  EXPECT_EQ(a.host.onednn_version, b.host.onednn_version);
  EXPECT_EQ(a.host.cores, b.host.cores);
  EXPECT_EQ(a.training.db_path, b.training.db_path);
  EXPECT_EQ(a.training.db_digest, b.training.db_digest);
  EXPECT_EQ(a.training.date, b.training.date);
  EXPECT_EQ(a.training.crmap_version, b.training.crmap_version);
  EXPECT_EQ(a.training.records_used, b.training.records_used);
  EXPECT_EQ(a.training.seed, b.training.seed);
}

// Expects `result` to fail with `code` and a message containing `needle`.
template <typename T>
void ExpectError(const Result<T>& result, StatusCode code, const std::string& needle, const std::string& what = "") {
  ASSERT_FALSE(result.ok()) << what;
  EXPECT_EQ(result.status().code(), code) << what << ": " << result.status().ToString();
  EXPECT_NE(result.status().message().find(needle), std::string::npos)
      << what << ": '" << result.status().message() << "' should mention '" << needle << "'";
}

// Byte offsets of the size fields of an encoded policy, walked along docs/policy-format.md's layout.
struct FieldOffsets {
  size_t workload_length, dims_count, knobs_count, first_knob_values, features_count, mask_count, first_mask_row,
      trunk1_in, heads_count, critic1_in, latency_count, table_count, fallback;
};

FieldOffsets OffsetsOf(const PolicyFile& f) {
  auto layer_bytes = [](const DenseLayer& l) { return 8 + 4 + 4 * l.weights.size() + 4 + 4 * l.bias.size(); };
  FieldOffsets o{};
  size_t at = kHeader;
  o.workload_length = at;
  for (const std::string* s : {&f.workload, &f.workload_fingerprint, &f.space_fingerprint}) at += 4 + s->size();
  o.dims_count = at;
  at += 4;
  for (const auto& d : f.dims) at += 4 + d.name.size() + 16;
  o.knobs_count = at;
  at += 4;
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    at += 4 + f.knobs[k].name.size() + 1 + 4;
    if (k == 0) o.first_knob_values = at;
    at += 4;
    for (const auto& v : f.knobs[k].values) at += 4 + v.size();
  }
  o.features_count = at;
  at += 4;
  for (const auto& feature : f.features) at += 4 + feature.name.size() + 16;
  o.mask_count = at;
  at += 4;
  o.first_mask_row = at;
  for (const auto& row : f.mask) at += 4 + row.size();
  o.trunk1_in = at;
  at += layer_bytes(f.policy.trunk1) + layer_bytes(f.policy.trunk2);
  o.heads_count = at;
  at += 4;
  for (const auto& h : f.policy.heads) at += layer_bytes(h);
  o.critic1_in = at;
  at += layer_bytes(f.critic.layer1) + layer_bytes(f.critic.layer2) + layer_bytes(f.critic.layer3);
  o.latency_count = at;
  at += 4 + 4 * f.latency_model.size();
  o.table_count = at;
  at += 4 + f.table.size() * (8 * f.dims.size() + 4 * f.knobs.size() + 12);
  o.fallback = at;
  return o;
}

SyntheticPolicyOptions CalibratedPolicy() {
  SyntheticPolicyOptions options;
  options.calibrated = true;
  options.incumbent = true;
  return options;
}

// Every field of the current version set: the calibrated policy with the neighbour incumbent (version 6).
PolicyFile CurrentPolicy() {
  PolicyFile f = MakeSyntheticPolicy(CalibratedPolicy());
  f.neighbour_incumbent = true;
  return f;
}

class PolicyFileTest : public ::testing::Test {
 protected:
  PolicyFile policy_ = CurrentPolicy();
  std::string bytes_ = EncodePolicyFile(policy_);
};

// The hard-coded skeletons are what SearchSpace::Build (2 threads) and FeatureSpec produce for the real
// workloads: identity, dims, knobs with scope, values and default, and the feature spec with its scales.
TEST_F(PolicyFileTest, SkeletonsMatchTheRealSearchSpaceAndFeatureSpec) {
  for (TestWorkload which : {TestWorkload::kDlrmMlp, TestWorkload::kBertFfn, TestWorkload::kBertAttention}) {
    PolicyFile skeleton = PolicySkeleton(which);
    Workload workload = testing::MustLoad(skeleton.workload);
    SearchSpace space = testing::MustSpace(workload, 2);
    FeatureSpec features(workload, space);
    EXPECT_EQ(skeleton.workload_fingerprint, workload.fingerprint());
    EXPECT_EQ(skeleton.space_fingerprint, space.fingerprint());
    ASSERT_EQ(skeleton.dims.size(), workload.dims().size());
    size_t i = 0;
    for (const auto& [name, range] : workload.dims()) {
      EXPECT_EQ(skeleton.dims[i].name, name);
      EXPECT_EQ(skeleton.dims[i].min, range.min);
      EXPECT_EQ(skeleton.dims[i].max, range.max);
      ++i;
    }
    ASSERT_EQ(skeleton.knobs.size(), space.knobs().size());
    for (size_t k = 0; k < space.knobs().size(); ++k) {
      EXPECT_EQ(skeleton.knobs[k].name, space.knobs()[k].name);
      EXPECT_EQ(skeleton.knobs[k].plan, space.knobs()[k].scope == KnobScope::kPlan);
      EXPECT_EQ(skeleton.knobs[k].values, space.knobs()[k].values);
      EXPECT_EQ(skeleton.knobs[k].default_index, static_cast<uint32_t>(space.knobs()[k].default_index));
    }
    ASSERT_EQ(skeleton.features.size(), features.size());
    for (size_t f = 0; f < features.size(); ++f) {
      EXPECT_EQ(skeleton.features[f].name, features.features()[f].name);
      EXPECT_EQ(skeleton.features[f].lo, features.features()[f].lo);
      EXPECT_EQ(skeleton.features[f].hi, features.features()[f].hi);
    }
  }
}

TEST_F(PolicyFileTest, RoundTripKeepsEveryField) {
  for (TestWorkload which : {TestWorkload::kDlrmMlp, TestWorkload::kBertFfn, TestWorkload::kBertAttention}) {
    SyntheticPolicyOptions options;
    options.workload = which;
    options.seed = 7;
    options.masked = {{"precision", "bf16"}};
    options.calibrated = true;
    PolicyFile original = MakeSyntheticPolicy(options);
    ASSERT_FALSE(original.calibration.empty());
    ASSERT_TRUE(ValidatePolicyFile(original).ok()) << ValidatePolicyFile(original).ToString();
    std::string bytes = EncodePolicyFile(original);
    EXPECT_EQ(bytes.substr(0, 8), "CRMAPPOL");
    EXPECT_EQ(ReadU32(bytes, 8), kPolicyFormatVersion);
    auto decoded = DecodePolicyFile(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    ExpectSamePolicy(original, *decoded);
    EXPECT_EQ(EncodePolicyFile(*decoded), bytes) << "re-encoding a decoded file must give the same bytes";
  }
}

TEST_F(PolicyFileTest, WriteThenReadKeepsEveryFieldAndLeavesNoTemporary) {
  std::string path = testing::TestTempPath("round_trip.policy");
  ASSERT_TRUE(WritePolicyFile(path, policy_).ok());
  auto read = ReadPolicyFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSamePolicy(policy_, *read);
  struct stat info {};
  EXPECT_NE(stat((path + ".tmp." + std::to_string(getpid())).c_str(), &info), 0);
}

TEST_F(PolicyFileTest, WriteRefusesAnInconsistentPolicy) {
  PolicyFile bad = policy_;
  bad.fallback[0] = 99;
  std::string path = testing::TestTempPath("refused.policy");
  Status status = WritePolicyFile(path, bad);
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find("fallback"), std::string::npos) << status.message();
  struct stat info {};
  EXPECT_NE(stat(path.c_str(), &info), 0) << "nothing may be written";
}

TEST_F(PolicyFileTest, MissingFileIsNotFoundNamingThePath) {
  std::string path = testing::TestTempPath("does_not_exist.policy");
  ExpectError(ReadPolicyFile(path), StatusCode::kNotFound, path);
}

TEST_F(PolicyFileTest, DirectoryIsRejected) {
  ExpectError(ReadPolicyFile(testing::TestTempDir()), StatusCode::kInvalidArgument, "not a regular file");
}

TEST_F(PolicyFileTest, EmptyFileIsCorruption) {
  ExpectError(DecodePolicyFile(""), StatusCode::kCorruption, "truncated");
  std::string path = testing::TestTempPath("empty.policy");
  ASSERT_TRUE(testing::WriteBytes(path, ""));
  ExpectError(ReadPolicyFile(path), StatusCode::kCorruption, "truncated");
}

// A short file that is not a policy file at all (a JSON dump, say) is named as such, not as truncated.
TEST_F(PolicyFileTest, ShortForeignFileIsWrongMagicNotTruncated) {
  ExpectError(DecodePolicyFile("{\"a\": 1}\n"), StatusCode::kCorruption, "wrong magic");
  ExpectError(DecodePolicyFile("C"), StatusCode::kCorruption, "truncated");  // could be the start of one
}

// A file cut anywhere is Corruption, never a crash.
TEST_F(PolicyFileTest, EveryPrefixIsCorruption) {
  SyntheticPolicyOptions options;
  options.workload = TestWorkload::kBertFfn;
  options.hidden = options.critic_hidden = 2;
  options.critic_members = 1;
  std::string bytes = EncodePolicyFile(MakeSyntheticPolicy(options));
  ASSERT_LT(bytes.size(), 2500u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto decoded = DecodePolicyFile(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(decoded.ok()) << "prefix " << n;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption)
        << "prefix " << n << ": " << decoded.status().ToString();
    EXPECT_NE(decoded.status().message().find(n < 32 ? "truncated" : "truncated or padded"), std::string::npos)
        << "prefix " << n << ": " << decoded.status().message();
  }
  ExpectError(DecodePolicyFile(bytes + "x"), StatusCode::kCorruption, "padded");
}

// The payload cut at every byte but with a consistent header and checksum: the payload reader itself must
// stop at the end of its input in every field.
TEST_F(PolicyFileTest, EveryTruncatedPayloadWithAValidChecksumIsCorruption) {
  SyntheticPolicyOptions options;
  options.workload = TestWorkload::kBertAttention;
  options.hidden = options.critic_hidden = 2;
  std::string bytes = EncodePolicyFile(MakeSyntheticPolicy(options));
  const size_t payload = bytes.size() - kHeader - 8;
  for (size_t n = 0; n < payload; ++n) {
    std::string cut = bytes.substr(0, kHeader + n) + std::string(8, '\0');
    uint64_t length = n;
    std::memcpy(&cut[16], &length, 8);
    auto decoded = DecodePolicyFile(WithValidChecksum(cut));
    ASSERT_FALSE(decoded.ok()) << "payload of " << n << " bytes";
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << n << ": " << decoded.status().ToString();
    EXPECT_NE(decoded.status().message().find("truncated"), std::string::npos)
        << n << ": " << decoded.status().message();
  }
}

TEST_F(PolicyFileTest, WrongMagicIsCorruption) {
  std::string bytes = bytes_;
  bytes[3] = 'X';
  ExpectError(DecodePolicyFile(bytes), StatusCode::kCorruption, "wrong magic");
  ExpectError(DecodePolicyFile(std::string(bytes_.size(), '\0')), StatusCode::kCorruption, "wrong magic");
}

TEST_F(PolicyFileTest, UnsupportedVersionIsInvalidArgumentNamingIt) {
  for (uint32_t version : {0u, kPolicyFormatVersion + 1, 0xFFFFFFFFu}) {
    std::string bytes = WithValidChecksum(SetU32(bytes_, 8, version));
    ExpectError(DecodePolicyFile(bytes), StatusCode::kInvalidArgument, "version " + std::to_string(version));
    // A version this crmap does not read wins over everything else that may be different in a newer format.
    ExpectError(DecodePolicyFile(SetU32(bytes_, 8, version)), StatusCode::kInvalidArgument, "version");
  }
  std::string path = testing::TestTempPath("version7.policy");
  ASSERT_TRUE(testing::WriteBytes(path, WithValidChecksum(SetU32(bytes_, 8, 7))));
  ExpectError(ReadPolicyFile(path), StatusCode::kInvalidArgument, "policy format version 7");
}

// An encoded policy as an older version wrote it: the last `cut` payload bytes dropped, the version set.
std::string OlderVersion(const std::string& bytes, size_t cut, uint32_t version) {
  std::string older = bytes.substr(0, bytes.size() - 8 - cut) + std::string(8, '\0');
  older = SetU32(older, 8, version);
  uint64_t payload = older.size() - 24 - 8;
  std::memcpy(&older[16], &payload, 8);
  return WithValidChecksum(older);
}

// The byte version 6 appends: the neighbour incumbent flag.
constexpr size_t kVersion6Tail = 1;
// The bytes versions 5 and 6 append: the incumbent (u32 count, u32 per knob) and the switch margin, then version 6's.
size_t Version5Tail(const PolicyFile& f) { return 4 + 4 * f.incumbent.size() + 4 + kVersion6Tail; }
// The bytes versions 4 and 5 append: the calibration bins (u32 count, 16 bytes each), then version 5's.
size_t Version4Tail(const PolicyFile& f) { return 4 + 16 * f.calibration.size() + Version5Tail(f); }
// The bytes versions 3 and 4 append to a policy without critic members: an empty member array, the pessimism, a
// confidence per table entry and an empty calibration.
size_t Version3Tail(const PolicyFile& f) { return 4 + 4 + 4 * f.table.size() + Version4Tail(f); }

// Version 5 (before the neighbour incumbent) still reads: the file's incumbent everywhere.
TEST_F(PolicyFileTest, Version5FilesReadWithoutTheNeighbourIncumbent) {
  ASSERT_TRUE(policy_.neighbour_incumbent);
  auto decoded = DecodePolicyFile(OlderVersion(bytes_, kVersion6Tail, 5));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  PolicyFile expected = policy_;
  expected.neighbour_incumbent = false;
  ExpectSamePolicy(expected, *decoded);
}

// Version 4 (before the incumbent) still reads: no incumbent and a margin of 0 (the best score wins).
TEST_F(PolicyFileTest, Version4FilesReadWithoutAnIncumbent) {
  ASSERT_FALSE(policy_.incumbent.empty());
  ASSERT_GT(policy_.switch_margin, 0.0f);
  auto decoded = DecodePolicyFile(OlderVersion(bytes_, Version5Tail(policy_), 4));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  PolicyFile expected = policy_;
  expected.incumbent.clear();
  expected.switch_margin = 0;
  expected.neighbour_incumbent = false;
  ExpectSamePolicy(expected, *decoded);
}

// Version 3 (before the calibration) still reads: the members and confidences, no calibration (the hook then
// states the raw agreement).
TEST_F(PolicyFileTest, Version3FilesReadWithoutACalibration) {
  ASSERT_FALSE(policy_.calibration.empty());
  ASSERT_FALSE(policy_.critic_members.empty());
  auto decoded = DecodePolicyFile(OlderVersion(bytes_, Version4Tail(policy_), 3));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  PolicyFile expected = policy_;
  expected.calibration.clear();
  expected.incumbent.clear();
  expected.switch_margin = 0;
  expected.neighbour_incumbent = false;
  ExpectSamePolicy(expected, *decoded);
}

// Version 2 (before the critic ensemble) still reads: no members, pessimism 0, every confidence unknown.
TEST_F(PolicyFileTest, Version2FilesReadWithoutMembersOrConfidence) {
  SyntheticPolicyOptions options;
  options.critic_members = 0;
  PolicyFile original = MakeSyntheticPolicy(options);
  auto decoded = DecodePolicyFile(OlderVersion(EncodePolicyFile(original), Version3Tail(original), 2));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectSamePolicy(original, *decoded);
  EXPECT_TRUE(decoded->critic_members.empty());
  EXPECT_EQ(decoded->pessimism, 0.0f);
  for (const auto& e : decoded->table) EXPECT_EQ(e.confidence, -1.0f);
}

// Version 1 (before the workload's source was recorded) still reads, with an empty source.
TEST_F(PolicyFileTest, Version1FilesReadWithoutAWorkloadSource) {
  SyntheticPolicyOptions options;
  options.critic_members = 0;
  PolicyFile original = MakeSyntheticPolicy(options);
  original.workload_source = "/somewhere/w.json";
  std::string v3 = EncodePolicyFile(original);
  // Version 1 = version 2 without the trailing source string (u32 length + bytes) at the end of the payload.
  const size_t source_bytes = 4 + original.workload_source.size();
  auto decoded = DecodePolicyFile(OlderVersion(v3, Version3Tail(original) + source_bytes, 1));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->workload_source, "");
  EXPECT_EQ(decoded->workload, original.workload);
  auto current = DecodePolicyFile(v3);
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->workload_source, "/somewhere/w.json");
}

TEST_F(PolicyFileTest, UnknownFlagsAreCorruption) {
  ExpectError(DecodePolicyFile(WithValidChecksum(SetU32(bytes_, 12, 1))), StatusCode::kCorruption, "flags");
}

TEST_F(PolicyFileTest, PayloadLengthMustMatchTheFile) {
  std::string bytes = bytes_;
  uint64_t length = bytes.size();  // more than the file holds
  std::memcpy(&bytes[16], &length, 8);
  ExpectError(DecodePolicyFile(WithValidChecksum(bytes)), StatusCode::kCorruption, "payload length");
}

// One flipped bit in any byte after the header — payload or checksum — is a checksum mismatch; in the header
// it is caught by the magic, version, flags or length check. Never a crash, never a success.
TEST_F(PolicyFileTest, FlippedByteAnywhereIsDetected) {
  for (size_t i = 0; i < bytes_.size(); ++i) {
    for (unsigned char bit : {0x01, 0x80}) {
      std::string bytes = bytes_;
      bytes[i] = static_cast<char>(bytes[i] ^ bit);
      auto decoded = DecodePolicyFile(bytes);
      ASSERT_FALSE(decoded.ok()) << "byte " << i;
      if (i >= kHeader) {
        EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << i;
        EXPECT_NE(decoded.status().message().find("checksum mismatch"), std::string::npos)
            << i << ": " << decoded.status().message();
      } else if (i >= 8 && i < 12) {
        // A version this crmap does not read; or, flipped to another it reads, a checksum mismatch.
        const uint32_t version = ReadU32(bytes, 8);
        const bool readable = version >= kOldestPolicyFormatVersion && version <= kPolicyFormatVersion;
        EXPECT_EQ(decoded.status().code(), readable ? StatusCode::kCorruption : StatusCode::kInvalidArgument) << i;
      } else {
        EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << i;
      }
    }
  }
}

// Non-finite numbers re-encoded with a valid checksum: the validator, not the checksum, must refuse them.
TEST_F(PolicyFileTest, NanAndInfinityAreCorruptionEvenWithAValidChecksum) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* what;
    void (*edit)(PolicyFile&, float);
    const char* needle;
  };
  const Case cases[] = {
      {"trunk1 weight", [](PolicyFile& f, float v) { f.policy.trunk1.weights[3] = v; }, "policy trunk 1"},
      {"trunk2 bias", [](PolicyFile& f, float v) { f.policy.trunk2.bias[0] = v; }, "policy trunk 2"},
      {"head weight", [](PolicyFile& f, float v) { f.policy.heads.back().weights[1] = v; }, "policy head"},
      {"critic weight", [](PolicyFile& f, float v) { f.critic.layer2.weights[5] = v; }, "critic layer 2"},
      {"critic bias", [](PolicyFile& f, float v) { f.critic.layer3.bias[0] = v; }, "critic layer 3"},
      {"latency model", [](PolicyFile& f, float v) { f.latency_model[0] = v; }, "latency model"},
      {"table median", [](PolicyFile& f, float v) { f.table[1].median_us = v; }, "table entry 1"},
      {"table speedup", [](PolicyFile& f, float v) { f.table[0].speedup = v; }, "table entry 0"},
      {"feature scale", [](PolicyFile& f, float v) { f.features[0].hi = v; }, "non-finite scale"},
  };
  for (const Case& c : cases) {
    for (float value : {nan, inf, -inf}) {
      PolicyFile f = policy_;
      c.edit(f, value);
      EXPECT_FALSE(ValidatePolicyFile(f).ok()) << c.what;
      std::string bytes = EncodePolicyFile(f);  // a valid checksum over the bad number
      ExpectError(DecodePolicyFile(bytes), StatusCode::kCorruption, c.needle, c.what);
    }
  }
}

// The walk in OffsetsOf agrees with the encoder (checked here so the absurd-size test edits the right bytes).
TEST_F(PolicyFileTest, FieldOffsetsPointAtTheSizeFields) {
  FieldOffsets o = OffsetsOf(policy_);
  EXPECT_EQ(ReadU32(bytes_, o.workload_length), policy_.workload.size());
  EXPECT_EQ(ReadU32(bytes_, o.dims_count), policy_.dims.size());
  EXPECT_EQ(ReadU32(bytes_, o.knobs_count), policy_.knobs.size());
  EXPECT_EQ(ReadU32(bytes_, o.first_knob_values), policy_.knobs[0].values.size());
  EXPECT_EQ(ReadU32(bytes_, o.features_count), policy_.features.size());
  EXPECT_EQ(ReadU32(bytes_, o.mask_count), policy_.mask.size());
  EXPECT_EQ(ReadU32(bytes_, o.first_mask_row), policy_.mask[0].size());
  EXPECT_EQ(ReadU32(bytes_, o.trunk1_in), policy_.policy.trunk1.in);
  EXPECT_EQ(ReadU32(bytes_, o.trunk1_in + 4), policy_.policy.trunk1.out);
  EXPECT_EQ(ReadU32(bytes_, o.heads_count), policy_.policy.heads.size());
  EXPECT_EQ(ReadU32(bytes_, o.critic1_in), policy_.critic.layer1.in);
  EXPECT_EQ(ReadU32(bytes_, o.latency_count), policy_.latency_model.size());
  EXPECT_EQ(ReadU32(bytes_, o.table_count), policy_.table.size());
  EXPECT_EQ(ReadU32(bytes_, o.fallback), policy_.fallback[0]);
}

// A size field claiming 0xFFFFFFFF (or a count within the limits that the input cannot hold), with a valid
// checksum: Corruption naming the field, and no allocation anywhere near the claimed size.
TEST_F(PolicyFileTest, AbsurdSizesAreCorruptionWithoutHugeAllocations) {
  SyntheticPolicyOptions options;
  options.critic_members = 0;  // small enough that the 4090-byte string below cannot fit
  const PolicyFile small = MakeSyntheticPolicy(options);
  const std::string small_bytes = EncodePolicyFile(small);
  ASSERT_LT(small_bytes.size(), 4090u) << "the 4090-byte string below must not fit";
  FieldOffsets o = OffsetsOf(small);
  struct Case {
    const char* what;
    size_t offset;
    uint32_t value;
    const char* needle;
  };
  const Case cases[] = {
      {"workload length", o.workload_length, 0xFFFFFFFFu, "workload: string of 4294967295 bytes"},
      {"workload length", o.workload_length, 4090, "workload: truncated"},
      {"dims", o.dims_count, 0xFFFFFFFFu, "dims: count 4294967295 exceeds 8"},
      {"knobs", o.knobs_count, 0xFFFFFFFFu, "knobs: count 4294967295 exceeds 64"},
      {"knob values", o.first_knob_values, 0xFFFFFFFFu, "knob values: count 4294967295 exceeds 64"},
      {"features", o.features_count, 0xFFFFFFFFu, "features: count 4294967295 exceeds 8192"},
      {"features", o.features_count, 8000, "features: truncated"},
      {"mask", o.mask_count, 0xFFFFFFFFu, "mask: count 4294967295 exceeds 64"},
      {"mask row", o.first_mask_row, 0xFFFFFFFFu, "mask row: count 4294967295 exceeds 64"},
      {"trunk in", o.trunk1_in, 0xFFFFFFFFu, "policy trunk 1: absurd layer size 4294967295x8"},
      {"trunk out", o.trunk1_in + 4, 0xFFFFFFFFu, "policy trunk 1: absurd layer size"},
      {"trunk in", o.trunk1_in, 8192, "policy trunk 1 is 8192->8, expected 16->8"},
      {"heads", o.heads_count, 0xFFFFFFFFu, "policy heads: count 4294967295 exceeds 64"},
      {"critic in", o.critic1_in, 0xFFFFFFFFu, "critic layer 1: absurd layer size"},
      {"latency model", o.latency_count, 0xFFFFFFFFu, "latency model: count 4294967295 exceeds 9"},
      {"table", o.table_count, 0xFFFFFFFFu, "table: count 4294967295 exceeds 1000000"},
      {"table", o.table_count, 1000000, "table: truncated"},
  };
  for (const Case& c : cases) {
    std::string bytes = WithValidChecksum(SetU32(small_bytes, c.offset, c.value));
    g_largest_allocation = 0;
    auto decoded = DecodePolicyFile(bytes);
    size_t largest = g_largest_allocation.load();
    ExpectError(decoded, StatusCode::kCorruption, c.needle, c.what);
    EXPECT_LT(largest, 64u * 1024) << c.what << ": allocated " << largest << " bytes for a " << bytes.size()
                                   << "-byte file";
  }
  // Both layer sizes at the limit and a weight count of 8192 x 8192 floats (256 MiB), claimed by a tiny file.
  std::string bytes =
      SetU32(SetU32(SetU32(small_bytes, o.trunk1_in, 8192), o.trunk1_in + 4, 8192), o.trunk1_in + 8, 8192u * 8192u);
  g_largest_allocation = 0;
  auto decoded = DecodePolicyFile(WithValidChecksum(bytes));
  ExpectError(decoded, StatusCode::kCorruption, "policy trunk 1: truncated");
  EXPECT_LT(g_largest_allocation.load(), 64u * 1024);
}

TEST_F(PolicyFileTest, TrailingBytesInThePayloadAreCorruption) {
  std::string bytes = bytes_.substr(0, bytes_.size() - 8) + "junk" + std::string(8, '\0');
  uint64_t length = bytes.size() - kHeader - 8;
  std::memcpy(&bytes[16], &length, 8);
  ExpectError(DecodePolicyFile(WithValidChecksum(bytes)), StatusCode::kCorruption, "trailing bytes");
}

// The feature spec must be exactly the one the dims and plan knobs define.
TEST_F(PolicyFileTest, FeatureSpecNotMatchingTheKnobsIsCorruption) {
  {
    PolicyFile f = policy_;
    f.features[3].name = "knob.fuse.fc1=bias+gelu";
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption,
                "feature 3 is 'knob.fuse.fc1=bias+gelu', expected 'knob.fuse.fc1=bias+relu'");
  }
  {
    PolicyFile f = policy_;
    std::swap(f.features[1], f.features[2]);
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "feature 1 is 'knob.fuse.fc1=bias'");
  }
  {
    PolicyFile f = policy_;
    f.features.pop_back();
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "feature spec has 15 features");
  }
  {
    // Runtime knobs in the spec (FeatureSpec with include_runtime_knobs): not what the policy was trained on.
    PolicyFile f = policy_;
    std::vector<PolicyKnob> all = f.knobs;
    for (auto& k : all) k.plan = true;
    f.features = testing::FeaturesFor(f.dims, all);
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "feature spec has 26 features");
  }
  {
    // A knob value renamed in the knobs but not in the features.
    PolicyFile f = policy_;
    f.knobs[4].values[1] = "fp16";
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "expected 'knob.precision=fp16'");
  }
}

// Crafted files with a valid checksum: a dim feature's scale must be the one its range defines (hi == lo
// made every decision the same), and measured figures in the table must be positive.
TEST_F(PolicyFileTest, ADimScaleOtherThanItsRangeIsCorruption) {
  for (double hi : {policy_.features[0].lo, policy_.features[0].hi * 2, policy_.features[0].lo - 1}) {
    PolicyFile f = policy_;
    f.features[0].hi = hi;
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "the dim's range");
  }
}

TEST_F(PolicyFileTest, ANegativeOrZeroTableFigureIsCorruption) {
  for (int field = 0; field < 3; ++field) {
    for (double bad : {-5.0, 0.0}) {
      PolicyFile f = policy_;
      ASSERT_FALSE(f.table.empty());
      (field == 0 ? f.table[0].median_us : field == 1 ? f.table[0].p99_us : f.table[0].speedup) = bad;
      ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "table entry 0 holds a latency");
    }
  }
}

TEST_F(PolicyFileTest, AConfidenceOutsideZeroToOneOrABadPessimismOrMemberIsCorruption) {
  ASSERT_FALSE(policy_.table.empty());
  ASSERT_FALSE(policy_.critic_members.empty());
  for (float bad : {1.5f, -0.5f, std::numeric_limits<float>::quiet_NaN()}) {
    PolicyFile f = policy_;
    f.table[0].confidence = bad;
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "table entry 0 has confidence");
  }
  PolicyFile unknown = policy_;
  unknown.table[0].confidence = -1;  // unknown is allowed
  EXPECT_TRUE(DecodePolicyFile(EncodePolicyFile(unknown)).ok());
  for (float bad : {-1.0f, 101.0f, std::numeric_limits<float>::infinity()}) {
    PolicyFile f = policy_;
    f.pessimism = bad;
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "pessimism");
  }
  PolicyFile narrow = policy_;
  narrow.critic_members[0].layer2 = narrow.critic_members[0].layer3;  // hidden -> 1 where hidden -> hidden belongs
  ExpectError(DecodePolicyFile(EncodePolicyFile(narrow)), StatusCode::kCorruption, "critic member 0 layer 2");
  PolicyFile crowded = policy_;
  crowded.critic_members.resize(kMaxCriticMembers + 1, crowded.critic_members[0]);
  ExpectError(DecodePolicyFile(EncodePolicyFile(crowded)), StatusCode::kCorruption, "critic members");
}

TEST_F(PolicyFileTest, ABadCalibrationIsCorruption) {
  ASSERT_EQ(policy_.calibration.size(), 3u);
  struct Case {
    const char* what;
    std::function<void(PolicyFile&)> edit;
    const char* needle;
  };
  const Case cases[] = {
      {"rate above 1", [](PolicyFile& f) { f.calibration[1].rate = 1.5f; }, "calibration bin 1 has rate"},
      {"NaN rate", [](PolicyFile& f) { f.calibration[2].rate = std::nanf(""); }, "calibration bin 2 has rate"},
      {"first band not at 0", [](PolicyFile& f) { f.calibration[0].from = 0.1f; }, "calibration bin 0 starts"},
      {"bands not ascending", [](PolicyFile& f) { f.calibration[2].from = 0.5f; }, "calibration bin 2 starts"},
      {"band above 1", [](PolicyFile& f) { f.calibration[2].from = 1.5f; }, "calibration bin 2 starts"},
      {"more right than folds", [](PolicyFile& f) { f.calibration[0].within = 4; }, "calibration bin 0 counts 4"},
      {"no members", [](PolicyFile& f) { f.critic_members.clear(); }, "no critic members to calibrate"},
      {"too many bins",
       [](PolicyFile& f) {
         f.calibration.clear();
         for (uint32_t i = 0; i <= kMaxCalibrationBins; ++i) f.calibration.push_back({i * 0.05f, 0, 0, 0.5f});
       },
       "calibration bins"},
  };
  for (const Case& c : cases) {
    PolicyFile f = policy_;
    c.edit(f);
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, c.needle, c.what);
    EXPECT_FALSE(ValidatePolicyFile(f).ok()) << c.what;
  }
  // A bin count the remaining bytes cannot hold, or beyond the limit: Corruption naming the field.
  const size_t count_offset = bytes_.size() - 8 - Version4Tail(policy_);
  ASSERT_EQ(ReadU32(bytes_, count_offset), 3u);
  const uint32_t beyond = static_cast<uint32_t>(3 + Version5Tail(policy_) / 16 + 1);  // more than the bytes left
  ExpectError(DecodePolicyFile(WithValidChecksum(SetU32(bytes_, count_offset, beyond))), StatusCode::kCorruption,
              "calibration bins: truncated");
  ExpectError(DecodePolicyFile(WithValidChecksum(SetU32(bytes_, count_offset, 0xFFFFFFFFu))), StatusCode::kCorruption,
              "calibration bins: count 4294967295 exceeds 16");
}

TEST_F(PolicyFileTest, ABadIncumbentOrSwitchMarginIsCorruption) {
  ASSERT_EQ(policy_.incumbent.size(), policy_.knobs.size());
  struct Case {
    const char* what;
    std::function<void(PolicyFile&)> edit;
    const char* needle;
  };
  const Case cases[] = {
      {"a knob short", [](PolicyFile& f) { f.incumbent.pop_back(); }, "incumbent config has the wrong number"},
      {"index out of range", [](PolicyFile& f) { f.incumbent[0] = 99; }, "incumbent config: value index 99"},
      {"negative margin", [](PolicyFile& f) { f.switch_margin = -0.1f; }, "the switch margin is -0.1"},
      {"margin above 1", [](PolicyFile& f) { f.switch_margin = 1.5f; }, "the switch margin is 1.5"},
      {"NaN margin", [](PolicyFile& f) { f.switch_margin = std::nanf(""); }, "the switch margin is"},
      {"margin without an incumbent", [](PolicyFile& f) { f.incumbent.clear(); }, "but no incumbent config"},
      {"neighbours without an incumbent",
       [](PolicyFile& f) {
         f.incumbent.clear();
         f.switch_margin = 0;
       },
       "the neighbours' incumbent but has no incumbent"},
  };
  for (const Case& c : cases) {
    PolicyFile f = policy_;
    c.edit(f);
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, c.needle, c.what);
    EXPECT_FALSE(ValidatePolicyFile(f).ok()) << c.what;
  }
  PolicyFile none = policy_;  // no incumbent and no margin: valid (the rule is off)
  none.incumbent.clear();
  none.switch_margin = 0;
  none.neighbour_incumbent = false;
  EXPECT_TRUE(DecodePolicyFile(EncodePolicyFile(none)).ok());
  // The neighbour incumbent flag is a byte of 0 or 1.
  std::string flag = bytes_;
  ASSERT_EQ(flag[flag.size() - 8 - kVersion6Tail], 1);
  flag[flag.size() - 8 - kVersion6Tail] = 2;
  ExpectError(DecodePolicyFile(WithValidChecksum(flag)), StatusCode::kCorruption,
              "the neighbour incumbent flag is 2; it must be 0 or 1");
  // An incumbent count the remaining bytes cannot hold, or beyond the knob limit: Corruption naming the field.
  const size_t count_offset = bytes_.size() - 8 - Version5Tail(policy_);
  ASSERT_EQ(ReadU32(bytes_, count_offset), policy_.knobs.size());
  ExpectError(DecodePolicyFile(WithValidChecksum(SetU32(bytes_, count_offset, 60))), StatusCode::kCorruption,
              "incumbent: truncated");
  ExpectError(DecodePolicyFile(WithValidChecksum(SetU32(bytes_, count_offset, 0xFFFFFFFFu))), StatusCode::kCorruption,
              "incumbent: count 4294967295 exceeds 64");
}

TEST_F(PolicyFileTest, OutOfRangeConfigIndicesAreCorruption) {
  {
    PolicyFile f = policy_;
    f.table[2].config[1] = 3;  // fuse.fc2 has 3 values
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption,
                "table entry 2: value index 3 of knob 'fuse.fc2' is out of range");
  }
  {
    PolicyFile f = policy_;
    f.table[0].config.back() = 0xFFFFFFFFu;
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "knob 'placement' is out of range");
  }
  {
    PolicyFile f = policy_;
    f.fallback[5] = 2;  // threads has 2 values
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption,
                "fallback config: value index 2 of knob 'threads' is out of range");
  }
  {
    PolicyFile f = policy_;
    f.knobs[0].default_index = 3;
    ExpectError(DecodePolicyFile(EncodePolicyFile(f)), StatusCode::kCorruption, "out-of-range default");
  }
}

TEST_F(PolicyFileTest, InconsistentStructureIsCorruption) {
  struct Case {
    const char* what;
    void (*edit)(PolicyFile&);
    const char* needle;
  };
  const Case cases[] = {
      {"no workload", [](PolicyFile& f) { f.workload.clear(); }, "names no workload"},
      {"bad range", [](PolicyFile& f) { f.dims[0].min = 0; }, "dim 'batch' has an invalid range"},
      {"inverted range", [](PolicyFile& f) { f.dims[0].max = 0; }, "invalid range"},
      {"mask size", [](PolicyFile& f) { f.mask[2].pop_back(); }, "the mask of knob 'fuse.head' has the wrong size"},
      {"mask rows", [](PolicyFile& f) { f.mask.pop_back(); }, "the mask does not cover every knob"},
      {"trunk width",
       [](PolicyFile& f) {
         std::mt19937 rng(1);
         f.policy.trunk2 = testing::RandomLayer(8, 7, 1, rng);
       },
       "policy trunk 2 is 8->7, expected 8->8"},
      {"missing head", [](PolicyFile& f) { f.policy.heads.pop_back(); }, "one head per plan knob"},
      {"critic input", [](PolicyFile& f) { f.critic.layer1.in = 15; }, "critic layer 1 is 15->8, expected 16->8"},
      {"weight count", [](PolicyFile& f) { f.policy.trunk1.weights.pop_back(); }, "wrong number of weights"},
      {"latency model", [](PolicyFile& f) { f.latency_model.pop_back(); }, "one weight per dim plus a bias"},
      {"table dims", [](PolicyFile& f) { f.table[0].dims.push_back(4); }, "table entry 0 has the wrong number of dims"},
      {"fallback size", [](PolicyFile& f) { f.fallback.pop_back(); }, "fallback config has the wrong number"},
  };
  for (const Case& c : cases) {
    PolicyFile f = policy_;
    c.edit(f);
    Status status = ValidatePolicyFile(f);
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << c.what << ": " << status.ToString();
    EXPECT_NE(status.message().find(c.needle), std::string::npos) << c.what << ": " << status.message();
    // Through the codec too, where the encoding can express the inconsistency.
    auto decoded = DecodePolicyFile(EncodePolicyFile(f));
    EXPECT_FALSE(decoded.ok()) << c.what;
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << c.what;
    }
  }
}

TEST_F(PolicyFileTest, ConfigStringNamesEveryKnob) {
  std::vector<uint32_t> config = {2, 1, 0, 1, 1, 0, 3, 2, 1};
  EXPECT_EQ(PolicyConfigString(policy_.knobs, config),
            "fuse.fc1=bias+relu;fuse.fc2=bias;fuse.head=none;weights=packed;precision=bf16;threads=1;batch=64;"
            "queue_delay_us=1000;placement=per_core");
}

}  // namespace
}  // namespace crmap
