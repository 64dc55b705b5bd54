// PeerProcess: a LibTorch peer run in a child process (`crmap peer-worker`), so that it loads OpenBLAS with
// another core type (OPENBLAS_CORETYPE, read only when the library loads) than this process did.
//
// Protocol, one text line each way over a socket that is fd 3 (kProtocolFd) in the child (its stdout goes to
// this process's stderr, so that what a library prints cannot corrupt the protocol):
//   start    the child builds the model from the workload file, runs it once, writes its outputs to the
//            outputs file (raw little-endian f32, the graph outputs in name order) and answers
//            "ready <openblas core>" — or "error <message>" and exits.
//   "run W"  W untimed calls and one timed call, then the child waits until its own threads are idle (its
//            spinning OpenMP workers must not steal the cores from whatever the parent measures next); it
//            answers "ok <nanoseconds of the timed call>" or "error <message>".
//   "quit"   (or end of input) the child exits.
// As a Runnable, Prepare() waits until this process is idle, for the same reason in the other direction, and
// TimedRun() reports the child's own timing (no pipe latency in it); a child that does not answer within the
// measurement's timeout per run is killed and the sample reported as longer than the timeout. The child runs in
// its own process group (a terminal's Ctrl-C is for the parent). Not thread-safe; the destructor stops the
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

// A LibTorch model in this process as a Runnable (Prepare restores its thread count outside timing).
class TorchRunnable : public Runnable {
 public:
  explicit TorchRunnable(TorchReference* model) : model_(model) {}
  void Prepare() override { model_->SetThreads(); }
  Status RunOnce() override { return model_->Run(); }

 private:
  TorchReference* model_;
};

class PeerProcess : public Runnable {
 public:
  static constexpr int kProtocolFd = 3;

  // Starts `executable peer-worker ...` (executable: the crmap binary, /proc/self/exe when crmap runs) for
  // `peer`, whose blas_core must be set, and waits until it is ready; `timeout_ms` bounds each run later.
  // InvalidArgument without an executable or core; Unsupported if the child's BLAS ignored the core type;
  // Internal if the child could not start or failed.
  static Result<std::unique_ptr<PeerProcess>> Start(const std::string& executable, const Workload& workload,
                                                    const Dims& dims, int threads, uint64_t data_seed,
                                                    const PeerBaseline& peer, double timeout_ms = 10000);
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
  Result<std::string> Call(const std::string& command, int timeout_ms, bool* timed_out = nullptr);

  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string dir_;           // temporary folder of the workload and outputs files
  std::string outputs_path_;
  std::string label_;
  double timeout_ms_ = 10000;
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
