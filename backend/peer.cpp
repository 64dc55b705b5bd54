#include "backend/peer.h"

#include "backend/blas_info.h"
#include "backend/host.h"

namespace crmap {

namespace {

bool HasOp(const Workload& workload, OpKind kind) {
  for (const OpSpec& op : workload.ops())
    if (op.kind == kind) return true;
  return false;
}

}  // namespace

std::vector<PeerBaseline> DefaultPeers(const Workload& workload) {
  std::vector<PeerBaseline> peers = {PeerBaseline{}};
  const HostInfo& host = DetectHost();
  const BlasInfo& blas = DetectBlas();
  // LibTorch's linear and matmul run on the BLAS (its convolutions on its own oneDNN): only then does the core
  // matter.
  const bool uses_blas = HasOp(workload, OpKind::kLinear) || HasOp(workload, OpKind::kMatmul);
  if (uses_blas && blas.openblas && BlasCoreBelowIsa(blas.core, host.isa)) {
    std::string core = OpenBlasCoreFor(host.isa, host.cpu.find("AMD") != std::string::npos);
    if (!core.empty()) peers.push_back(PeerBaseline{TorchPath::kEager, core});
  }
  if (HasOp(workload, OpKind::kLinear) && DetectTorch().mkldnn) peers.push_back(PeerBaseline{TorchPath::kMkldnn, ""});
  return peers;
}

Result<std::vector<PeerBaseline>> ParsePeers(const std::string& text, const Workload& workload) {
  if (text == "libtorch") return DefaultPeers(workload);
  return ParsePeerLabels(text);
}

}  // namespace crmap
