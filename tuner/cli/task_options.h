// What `crmap tune` and `crmap campaign` share on the command line: the campaign options, Ctrl-C (the first
// one stops after the batch in flight, a second one kills the process), the progress line and how the reports
// are printed (tuner/campaign_task.h runs the tasks).
#pragma once

#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "tuner/campaign_task.h"
#include "tuner/cli/cli_common.h"

namespace crmap::cli {

// --db, --resume, --seed, --time-limit, --batch, --no-confirm, --max-failures, --recheck-share, --probe-share.
void AddTaskSettingsOptions(cxxopts::Options& options);
// --recheck-share and --probe-share into settings: InvalidArgument unless each is in [0, 1) and their sum below 1.
Status ReadBudgetShares(const cxxopts::ParseResult& args, TaskSettings* settings);
// Progress on `progress` (none with --json), Ctrl-C raising the settings' stop flag.
void WatchProgressAndCtrlC(const cxxopts::ParseResult& args, TaskSettings* settings, ProgressLine* progress);
// Writes --out, prints the reports (JSON with --json) and chooses the exit status: 130 after a Ctrl-C, with the
// command that resumes on stderr.
int FinishTasks(const std::vector<TaskReport>& reports, const TaskSettings& settings,
                const cxxopts::ParseResult& args, const std::string& resume_hint);
// At most this many restarts after hung kernels per campaign run (counted in CRMAP_HANG_RESTARTS across the execs).
constexpr int kMaxHangRestarts = 8;
// A kernel that never returns (backend/hang_watchdog.h): after the campaign recorded it as a timeout, the process
// replaces itself with this command plus --resume (the same pid, file descriptors closed on exec), which goes on
// with the rest of the budget; after kMaxHangRestarts restarts it ends with exit 3 and the resume command.
void RestartOnHang(const TaskSettings& settings, int argc, char** argv);
// The command line that continues this campaign (this one with --resume).
std::string ResumeHint(int argc, char** argv);

}  // namespace crmap::cli
