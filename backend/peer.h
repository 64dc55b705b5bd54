// Peer baselines: LibTorch, the framework a user would otherwise deploy, measured side by side with the plans,
// and always at its best: a "vs LibTorch" figure against a crippled peer is not evidence.
//
// A peer is LibTorch eager (linear on the system BLAS, convolution on LibTorch's own oneDNN) or LibTorch's
// oneDNN path (to_mkldnn's linear), run either in this process with the BLAS as installed, or — to use another
// OpenBLAS core type, which OpenBLAS reads only at load time — in a child process (backend/peer_process.h).
// DefaultPeers() is what `--baseline libtorch` measures: eager as installed; eager again with the core that
// matches the host when the installed one is older (blas_info.h) and the workload has linear or matmul ops (the
// ones that run on the BLAS); the oneDNN path when the workload has linear ops and LibTorch has oneDNN. Claims are made against the fastest peer. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "backend/peer_label.h"
#include "backend/torch_reference.h"
#include "common/status.h"
#include "common/workload.h"

namespace crmap {

// The peers `--baseline libtorch` measures for `workload` on this host (see above).
std::vector<PeerBaseline> DefaultPeers(const Workload& workload);

// Parses a --baseline value: "libtorch" (the default peers) or a comma-separated list of peer labels
// (ParsePeerLabels, peer_label.h), e.g. "libtorch,libtorch[mkldnn],libtorch[openblas=Haswell]".
Result<std::vector<PeerBaseline>> ParsePeers(const std::string& text, const Workload& workload);

}  // namespace crmap
