// PeerBaseline and its label: which LibTorch peer to measure (backend/peer.h explains the peers), written and
// parsed as "libtorch", "libtorch[mkldnn]", "libtorch[openblas=SkylakeX]", "libtorch[mkldnn,openblas=SkylakeX]".
// Pure text functions, apart from LibTorch and the host (so the --baseline parser can be fuzzed on its own:
// tests/fuzz/cli_options_fuzz.cpp). Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "backend/torch_reference.h"
#include "common/status.h"

namespace crmap {

struct PeerBaseline {
  TorchPath path = TorchPath::kEager;
  std::string blas_core;  // "": this process, the BLAS as installed; else OPENBLAS_CORETYPE of a child process

  bool operator==(const PeerBaseline& other) const { return path == other.path && blas_core == other.blas_core; }
  // "libtorch", "libtorch[mkldnn]", "libtorch[openblas=SkylakeX]", "libtorch[mkldnn,openblas=SkylakeX]".
  std::string Label() const;
  bool in_process() const { return blas_core.empty(); }
};

// A comma-separated list of labels as Label() writes them ("libtorch,libtorch[mkldnn]"; commas inside brackets
// belong to the label), each listed once. InvalidArgument names the label at fault and what is allowed; an
// OpenBLAS core must be one crmap knows (blas_info.h).
Result<std::vector<PeerBaseline>> ParsePeerLabels(const std::string& text);

}  // namespace crmap
