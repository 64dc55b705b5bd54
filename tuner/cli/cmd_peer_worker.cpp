// crmap peer-worker: the child side of a LibTorch peer run in its own process (backend/peer_process.h). Not
// for users: `compare`/`sweep`/`tune` start it when a peer needs another OpenBLAS core type.
#include <unistd.h>

#include <cstdio>

#include "backend/peer_process.h"
#include "datasets/catalog.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"

namespace crmap::cli {

int RunPeerWorker(int argc, char** argv) {
  cxxopts::Options options("crmap peer-worker",
                           "Internal: serves a LibTorch peer over stdin/stdout for another crmap process.");
  options.add_options()
      ("workload", "workload file", cxxopts::value<std::string>())
      ("dims", "concrete dims", cxxopts::value<std::string>())
      ("threads", "LibTorch threads", cxxopts::value<int>()->default_value("1"))
      ("data-seed", "seed of the input values", cxxopts::value<uint64_t>()->default_value("0"))
      ("path", "eager or mkldnn", cxxopts::value<std::string>()->default_value("eager"))
      ("outputs", "file for the outputs of the first run", cxxopts::value<std::string>())
      ("protocol-fd", "file descriptor of the protocol socket", cxxopts::value<int>()->default_value("3"));
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"workload", "dims", "outputs"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  auto workload = LoadWorkload(args["workload"].as<std::string>());
  if (!workload.ok()) return Fail(workload.status());
  auto dims = ParseDimsText(args["dims"].as<std::string>());
  if (!dims.ok()) return Fail(dims.status());
  Status checked = workload->CheckDims(*dims);
  if (!checked.ok()) return Fail(checked);
  PeerWorkerSpec spec;
  spec.dims = *dims;
  spec.threads = args["threads"].as<int>();
  if (spec.threads < 1 || spec.threads > 1024) return Fail(Status::InvalidArgument("--threads must be in [1, 1024]"));
  spec.data_seed = args["data-seed"].as<uint64_t>();
  const std::string path = args["path"].as<std::string>();
  if (path != "eager" && path != "mkldnn")
    return Fail(Status::InvalidArgument("--path must be eager or mkldnn, got '" + path + "'"));
  spec.path = path == "mkldnn" ? TorchPath::kMkldnn : TorchPath::kEager;
  spec.outputs_path = args["outputs"].as<std::string>();
  const int fd = args["protocol-fd"].as<int>();
  std::FILE* in = fdopen(fd, "r");
  std::FILE* out = in ? fdopen(dup(fd), "w") : nullptr;
  if (!in || !out) return Fail(Status::InvalidArgument("--protocol-fd " + std::to_string(fd) + " is not open"));
  int served = ServePeerWorker(*workload, spec, in, out);
  std::fclose(out);
  std::fclose(in);
  return served == 0 ? kExitOk : kExitFailure;
}

}  // namespace crmap::cli
