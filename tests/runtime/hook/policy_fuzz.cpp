// libFuzzer target for the policy loader: arbitrary bytes -> DecodePolicyFile -> (on success) PolicyModel::Create
// -> a few decisions. Built with clang++ -fsanitize=fuzzer,address from only the hook's sources
// (tests/CMakeLists.txt); any crash, out-of-bounds access or leak fails the run.
//
// Each input is decoded twice: as it is (the envelope checks: magic, version, length, checksum) and with its
// payload length and checksum fixed up, so that mutations reach the payload decoder and the validator instead
// of stopping at the checksum. Inputs that decode are answered at the dims' bounds and beyond, so the
// evaluator's fixed-size scratch buffers are exercised too.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/hash.h"
#include "runtime/hook/policy_file.h"
#include "runtime/hook/policy_model.h"

namespace {

void Load(std::string_view bytes) {
  auto file = crmap::DecodePolicyFile(bytes);
  if (!file.ok()) return;
  auto model = crmap::PolicyModel::Create(std::move(file).value());
  if (!model.ok()) return;
  const crmap::PolicyModel& m = **model;
  std::vector<int64_t> dims(m.dim_count());
  std::vector<uint32_t> config(m.knob_count());
  char text[1024];
  for (int corner = 0; corner < 3; ++corner) {
    for (size_t i = 0; i < dims.size(); ++i) {
      const crmap::PolicyDim& d = m.file().dims[i];
      dims[i] = corner == 0 ? d.min : corner == 1 || d.max == INT64_MAX ? d.max : d.max + 1;
    }
    m.FindTableEntry(dims.data());
    double confidence = 0;
    m.Decide(dims.data(), config.data(), &confidence);
    m.ConfigFromId(m.ConfigId(config.data()), config.data());
    (void)m.PredictLatencyUs(dims.data(), config.data());
    m.FormatConfig(config.data(), text, sizeof text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  Load(bytes);
  constexpr size_t kEnvelope = 24 + 8;  // header + checksum
  if (size >= kEnvelope) {
    uint64_t payload = size - kEnvelope;
    std::memcpy(&bytes[16], &payload, 8);
    uint64_t sum = crmap::Fnv1a64(std::string_view(bytes).substr(0, size - 8));
    std::memcpy(&bytes[size - 8], &sum, 8);
    Load(bytes);
  }
  return 0;
}
