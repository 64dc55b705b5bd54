#include "backend/peer_label.h"

#include "backend/blas_info.h"

namespace crmap {

std::string PeerBaseline::Label() const {
  std::string options;
  if (path == TorchPath::kMkldnn) options = "mkldnn";
  if (!blas_core.empty()) options += (options.empty() ? "" : ",") + std::string("openblas=") + blas_core;
  return options.empty() ? "libtorch" : "libtorch[" + options + "]";
}

namespace {

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
  bool mkldnn_seen = false, core_seen = false;
  size_t start = 0;
  while (start <= options.size()) {
    size_t comma = options.find(',', start);
    std::string item = options.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "mkldnn" && !mkldnn_seen) {
      peer.path = TorchPath::kMkldnn;
      mkldnn_seen = true;
    } else if (item.rfind("openblas=", 0) == 0 && OpenBlasCoreLevel(item.substr(9)) > 0 && !core_seen) {
      peer.blas_core = item.substr(9);
      core_seen = true;
    } else {
      return Status::InvalidArgument("baseline '" + label + "': unknown or repeated option '" + item + "'; " +
                                     allowed);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return peer;
}

}  // namespace

Result<std::vector<PeerBaseline>> ParsePeerLabels(const std::string& text) {
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
