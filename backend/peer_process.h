// PeerProcess: a LibTorch peer run in a child process (`crmap peer-worker`), so that it loads OpenBLAS with
// another core type (OPENBLAS_CORETYPE, read only when the library loads) than this process did.
//
// Protocol, one text line each way over the child's stdin and stdout:
//   start    the child builds the model from the workload file, runs it once, writes its outputs to the
//            outputs file (raw little-endian f32, the graph outputs in name order) and answers
//            "ready <openblas core>" — or "error <message>" and exits.
//   "run W"  W untimed calls and one timed call, then the child waits until its own threads are idle (its
//            spinning OpenMP workers must not steal the cores from whatever the parent measures next); it
//            answers "ok <nanoseconds of the timed call>" or "error <message>".
//   "quit"   (or end of input) the child exits.
// As a Runnable, Prepare() waits until this process is idle, for the same reason in the other direction, and
// TimedRun() reports the child's own timing (no pipe latency in it). Not thread-safe; the destructor stops the
// child and removes its files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "backend/measurer.h"
#include "backend/peer.h"
#include "common/status.h"
#include "common/tensor_data.h"
#include "common/workload.h"

namespace crmap {

class PeerProcess : public Runnable {
 public:
  // Starts `executable peer-worker ...` (executable: normally /proc/self/exe, the crmap binary) for `peer`,
  // whose blas_core must be set, and waits until it is ready. Unsupported if the child's BLAS ignored the core
  // type; Internal if the child could not start or failed.
  static Result<std::unique_ptr<PeerProcess>> Start(const std::string& executable, const Workload& workload,
                                                    const Dims& dims, int threads, uint64_t data_seed,
                                                    const PeerBaseline& peer);
  ~PeerProcess() override;
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  // The outputs of the child's first run, shaped like `reference` (same names and shapes); Internal if the
  // child wrote another number of values.
  Result<std::map<std::string, HostTensor>> Outputs(const std::map<std::string, HostTensor>& reference) const;

  void Prepare() override;
  Status RunOnce() override;
  Result<int64_t> TimedRun(Clock& clock, int warm_calls) override;

 private:
  PeerProcess() = default;
  Result<std::string> Call(const std::string& command);

  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string dir_;           // temporary folder of the workload and outputs files
  std::string outputs_path_;
  std::string label_;
  CpuTimeIdleWaiter idle_;
};

// What `crmap peer-worker` serves (the parent passes it on the command line).
struct PeerWorkerSpec {
  Dims dims;
  int threads = 1;
  uint64_t data_seed = 0;
  TorchPath path = TorchPath::kEager;
  std::string outputs_path;
};

// The child's side: builds the model, answers the protocol above on `in`/`out` until "quit" or end of input.
// Returns 0 after "quit" or end of input, 1 after a failure it reported.
int ServePeerWorker(const Workload& workload, const PeerWorkerSpec& spec, std::FILE* in, std::FILE* out);

}  // namespace crmap
