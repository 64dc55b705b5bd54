// write_test_policy: writes a synthetic, valid policy file (tests/runtime/hook/policy_test_support.h) for tests
// that need one at test time without training (the C example's ctest) and for regenerating the fuzz corpus.
//
//   write_test_policy [--empty-table] OUT [dlrm_mlp|bert_ffn|bert_attention] [SEED] [HIDDEN]
//
// --empty-table writes the policy without tuned shapes (valid: the hook answers from the network).
// Exit status 0 on success, 2 on bad arguments, 1 if the file cannot be written.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/runtime/hook/policy_test_support.h"

int main(int argc, char** argv) {
  const char* program = argv[0];
  bool empty_table = argc > 1 && std::string(argv[1]) == "--empty-table";
  if (empty_table) {
    --argc;
    ++argv;
  }
  if (argc < 2 || argc > 5) {
    std::fprintf(stderr, "usage: %s [--empty-table] OUT [dlrm_mlp|bert_ffn|bert_attention] [SEED] [HIDDEN]\n",
                 program);
    return 2;
  }
  crmap::testing::SyntheticPolicyOptions options;
  std::string workload = argc > 2 ? argv[2] : "dlrm_mlp";
  if (workload == "dlrm_mlp") {
    options.workload = crmap::testing::TestWorkload::kDlrmMlp;
  } else if (workload == "bert_ffn") {
    options.workload = crmap::testing::TestWorkload::kBertFfn;
  } else if (workload == "bert_attention") {
    options.workload = crmap::testing::TestWorkload::kBertAttention;
  } else {
    std::fprintf(stderr, "write_test_policy: unknown workload '%s'\n", workload.c_str());
    return 2;
  }
  if (argc > 3) options.seed = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  if (argc > 4) options.hidden = options.critic_hidden = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10));
  if (options.hidden < 1 || options.hidden > crmap::kMaxHidden) {
    std::fprintf(stderr, "write_test_policy: hidden must be in [1, %u]\n", crmap::kMaxHidden);
    return 2;
  }
  crmap::PolicyFile policy = crmap::testing::MakeSyntheticPolicy(options);
  if (empty_table) policy.table.clear();
  crmap::Status status = crmap::WritePolicyFile(argv[1], policy);
  if (!status.ok()) {
    std::fprintf(stderr, "write_test_policy: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
