#include "backend/peer_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "backend/blas_info.h"
#include "common/atomic_file.h"

extern char** environ;

namespace crmap {

const int PeerProcess::kProtocolFd;

namespace {

constexpr int kStartTimeoutMs = 300000;  // loading LibTorch, building the model, one run
constexpr int kIdleAllowanceMs = 2000;    // the child's idle wait after a run (it gives up after 500 ms)

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// One line (without the newline) from `fd`, waiting at most `timeout_ms` (then *timed_out, if given, is set).
Result<std::string> ReadLine(int fd, int timeout_ms, bool* timed_out = nullptr) {
  std::string line;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (timed_out) *timed_out = true;
      return Status::Internal("the peer process did not answer within " + std::to_string(timeout_ms / 1000) + " s");
    }
    if (ready < 0) return Status::Internal(Errno("poll on the peer process"));
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Internal("the peer process exited" + (line.empty() ? "" : " after '" + line + "'"));
    if (c == '\n') return line;
    if (line.size() > 4096) return Status::Internal("the peer process answered an over-long line");
    line += c;
  }
}

std::string OneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

bool SameCore(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

Result<std::unique_ptr<PeerProcess>> PeerProcess::Start(const std::string& executable, const Workload& workload,
                                                        const Dims& dims, int threads, uint64_t data_seed,
                                                        const PeerBaseline& peer, double timeout_ms) {
  if (peer.blas_core.empty()) return Status::InvalidArgument("a peer process needs an OpenBLAS core type");
  if (executable.empty())
    return Status::InvalidArgument(peer.Label() + ": no executable to run the peer process with (the crmap binary)");
  std::unique_ptr<PeerProcess> process(new PeerProcess());
  process->label_ = peer.Label();
  process->timeout_ms_ = timeout_ms;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/crmap-peer.XXXXXX";
  std::vector<char> dir(pattern.begin(), pattern.end());
  dir.push_back('\0');
  if (!mkdtemp(dir.data())) return Status::Internal(Errno("cannot create a folder for the peer process"));
  process->dir_ = dir.data();
  const std::string workload_path = process->dir_ + "/workload.json";
  process->outputs_path_ = process->dir_ + "/outputs.f32";
  CRMAP_RETURN_IF_ERROR(WriteFileAtomically(workload_path, workload.canonical_json()));

  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    return Status::Internal(Errno("socketpair for the peer process"));
  // The protocol runs on fd 3, so that whatever a library prints to stdout (ONEDNN_VERBOSE, ...) cannot corrupt
  // it: the child's stdout goes to this process's stderr, its stdin is /dev/null.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], kProtocolFd);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // Its own process group: a Ctrl-C at the terminal is for this process (which stops cleanly after the batch in
  // flight and then ends the child), not for the child in the middle of a measurement.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> args = {executable,
                                   "peer-worker",
                                   "--workload", workload_path,
                                   "--dims", DimsToText(dims),
                                   "--threads", std::to_string(threads),
                                   "--data-seed", std::to_string(data_seed),
                                   "--path", TorchPathName(peer.path),
                                   "--outputs", process->outputs_path_,
                                   "--protocol-fd", std::to_string(kProtocolFd)};
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "OPENBLAS_CORETYPE=", 18) != 0) env.emplace_back(*e);
  env.push_back("OPENBLAS_CORETYPE=" + peer.blas_core);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, executable.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(sockets[1]);
  if (spawned != 0) {
    close(sockets[0]);
    errno = spawned;
    return Status::Internal(Errno("cannot start the peer process " + executable));
  }
  process->pid_ = pid;
  process->to_child_ = sockets[0];
  process->from_child_ = sockets[0];

  CRMAP_ASSIGN_OR_RETURN(std::string ready, ReadLine(process->from_child_, kStartTimeoutMs));
  if (ready.rfind("error ", 0) == 0) return Status::Internal(process->label_ + ": " + ready.substr(6));
  if (ready.rfind("ready ", 0) != 0) return Status::Internal(process->label_ + ": unexpected answer '" + ready + "'");
  const std::string core = ready.substr(6);
  if (!SameCore(core, peer.blas_core))
    return Status::Unsupported(process->label_ + ": the child's BLAS runs core '" + core + "', not '" +
                               peer.blas_core + "' (an OpenBLAS built without DYNAMIC_ARCH ignores "
                               "OPENBLAS_CORETYPE)");
  return process;
}

PeerProcess::~PeerProcess() {
  if (to_child_ >= 0) {
    static const char kQuit[] = "quit\n";
    (void)send(to_child_, kQuit, sizeof kQuit - 1, MSG_NOSIGNAL);
    close(to_child_);
  }
  if (pid_ > 0) {
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 200 && !reaped; ++i) {
      reaped = waitpid(pid_, &status, WNOHANG) == pid_;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!reaped) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);  // also a temporary the child left if it died mid-write
  }
}

Result<std::string> PeerProcess::Call(const std::string& command, int timeout_ms, bool* timed_out) {
  const std::string line = command + "\n";
  if (send(to_child_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size()))
    return Status::Internal(Errno(label_ + ": cannot write to the peer process"));
  CRMAP_ASSIGN_OR_RETURN(std::string answer, ReadLine(from_child_, timeout_ms, timed_out));
  if (answer.rfind("error ", 0) == 0) return Status::Internal(label_ + ": " + answer.substr(6));
  return answer;
}

Result<std::map<std::string, HostTensor>> PeerProcess::Outputs(
    const std::map<std::string, HostTensor>& reference) const {
  size_t expected = 0;
  for (const auto& [name, tensor] : reference) expected += tensor.values.size();
  struct stat info {};
  if (stat(outputs_path_.c_str(), &info) != 0) return Status::Internal(Errno(label_ + ": no outputs file"));
  if (static_cast<uint64_t>(info.st_size) != expected * sizeof(float))
    return Status::Internal(label_ + ": the outputs file holds " + std::to_string(info.st_size) + " bytes, expected " +
                            std::to_string(expected * sizeof(float)));
  std::ifstream in(outputs_path_, std::ios::binary);
  std::map<std::string, HostTensor> outputs;
  for (const auto& [name, tensor] : reference) {
    HostTensor& out = outputs[name];
    out.shape = tensor.shape;
    out.values.resize(tensor.values.size());
    in.read(reinterpret_cast<char*>(out.values.data()), static_cast<std::streamsize>(out.values.size() * sizeof(float)));
  }
  if (!in) return Status::Internal(label_ + ": cannot read the outputs file");
  return outputs;
}

void PeerProcess::Prepare() { idle_.WaitUntilIdle(); }

Status PeerProcess::RunOnce() {
  SteadyClock unused;  // the child times itself
  return TimedRun(unused, 0).status();
}

Result<int64_t> PeerProcess::TimedRun(Clock&, int warm_calls) {
  // Every run may take up to the measurement's timeout; a child that takes longer is stopped and the call
  // reported as lasting what it waited, which the measurer then drops as timed out.
  const double wait_ms = (warm_calls + 1) * timeout_ms_ + kIdleAllowanceMs;
  const int timeout = static_cast<int>(std::min(wait_ms, 24.0 * 3600 * 1000));
  SteadyClock clock;
  const int64_t start = clock.NowNanos();
  bool timed_out = false;
  Result<std::string> called = Call("run " + std::to_string(warm_calls), timeout, &timed_out);
  if (timed_out) {
    kill(pid_, SIGKILL);
    return std::max<int64_t>(clock.NowNanos() - start, static_cast<int64_t>(timeout_ms_ * 1e6) + 1);
  }
  CRMAP_ASSIGN_OR_RETURN(std::string answer, std::move(called));
  int64_t nanos = -1;
  if (std::sscanf(answer.c_str(), "ok %" SCNd64, &nanos) != 1 || nanos < 0)
    return Status::Internal(label_ + ": unexpected answer '" + answer + "'");
  return nanos;
}

int ServePeerWorker(const Workload& workload, const PeerWorkerSpec& spec, std::FILE* in, std::FILE* out) {
  auto fail = [&](const Status& status) {
    std::fprintf(out, "error %s\n", OneLine(status.message()).c_str());
    std::fflush(out);
    return 1;
  };
  auto model = TorchReference::Create(workload, spec.dims, spec.threads, spec.data_seed, spec.path);
  if (!model.ok()) return fail(model.status());
  Status run = (*model)->Run();
  if (!run.ok()) return fail(run);
  auto outputs = (*model)->Outputs();
  if (!outputs.ok()) return fail(outputs.status());
  std::string bytes;
  for (const auto& [name, tensor] : *outputs)
    bytes.append(reinterpret_cast<const char*>(tensor.values.data()), tensor.values.size() * sizeof(float));
  Status written = WriteFileAtomically(spec.outputs_path, bytes);
  if (!written.ok()) return fail(written);
  const BlasInfo& blas = DetectBlas();
  std::fprintf(out, "ready %s\n", blas.core.empty() ? "none" : blas.core.c_str());
  std::fflush(out);

  TorchRunnable runnable(model->get());
  SteadyClock clock;
  CpuTimeIdleWaiter idle;
  char line[256];
  while (std::fgets(line, sizeof line, in)) {
    std::string command(line);
    while (!command.empty() && (command.back() == '\n' || command.back() == '\r')) command.pop_back();
    if (command == "quit") return 0;
    int warm_calls = -1;
    if (std::sscanf(command.c_str(), "run %d", &warm_calls) != 1 || warm_calls < 0 || warm_calls > 1000)
      return fail(Status::InvalidArgument("unknown command '" + command + "'; allowed: run N (0-1000), quit"));
    runnable.Prepare();
    Result<int64_t> nanos = runnable.TimedRun(clock, warm_calls);
    idle.WaitUntilIdle();  // its workers stop spinning before the parent measures anything else
    if (!nanos.ok()) return fail(nanos.status());
    std::fprintf(out, "ok %" PRId64 "\n", *nanos);
    std::fflush(out);
  }
  return 0;
}

}  // namespace crmap
