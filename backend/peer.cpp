#include "backend/peer.h"

#include "backend/blas_info.h"
#include "backend/host.h"

namespace crmap {

std::string PeerBaseline::Label() const {
  std::string options;
  if (path == TorchPath::kMkldnn) options = "mkldnn";
  if (!blas_core.empty()) options += (options.empty() ? "" : ",") + std::string("openblas=") + blas_core;
  return options.empty() ? "libtorch" : "libtorch[" + options + "]";
}

namespace {

bool HasOp(const Workload& workload, OpKind kind) {
  for (const OpSpec& op : workload.ops())
    if (op.kind == kind) return true;
  return false;
}

// One label: libtorch, libtorch[mkldnn], libtorch[openblas=CORE], libtorch[mkldnn,openblas=CORE].
Result<PeerBaseline> ParseOne(const std::string& label) {
  const std::string allowed =
      "allowed: libtorch, libtorch[mkldnn], libtorch[openblas=CORE], libtorch[mkldnn,openblas=CORE] "
      "(CORE an OpenBLAS core type such as Haswell, Zen, SkylakeX, Cooperlake)";
  PeerBaseline peer;
  if (label == "libtorch") return peer;
  if (label.rfind("libtorch[", 0) != 0 || label.back() != ']')
    return Status::InvalidArgument("unknown baseline '" + label + "'; " + allowed);
  std::string options = label.substr(9, label.size() - 10);
  size_t start = 0;
  while (start <= options.size()) {
    size_t comma = options.find(',', start);
    std::string item = options.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "mkldnn") {
      peer.path = TorchPath::kMkldnn;
    } else if (item.rfind("openblas=", 0) == 0 && OpenBlasCoreLevel(item.substr(9)) > 0) {
      peer.blas_core = item.substr(9);
    } else {
      return Status::InvalidArgument("baseline '" + label + "': unknown option '" + item + "'; " + allowed);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return peer;
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
  std::vector<PeerBaseline> peers;
  // Split on commas outside brackets.
  int depth = 0;
  std::string item;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      CRMAP_ASSIGN_OR_RETURN(PeerBaseline peer, ParseOne(item));
      for (const PeerBaseline& seen : peers)
        if (seen == peer) return Status::InvalidArgument("baseline '" + item + "' is listed twice");
      peers.push_back(peer);
      item.clear();
    } else {
      item += c;
    }
  }
  if (peers.empty()) return Status::InvalidArgument("--baseline names no peer; allowed: libtorch");
  return peers;
}

}  // namespace crmap
