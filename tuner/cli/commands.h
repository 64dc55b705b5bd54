// The subcommands of `crmap`. Each takes argv starting at its own name and returns an exit code.
#pragma once

namespace crmap::cli {

int RunWorkloads(int argc, char** argv);
int RunSpace(int argc, char** argv);
int RunMeasure(int argc, char** argv);
int RunCompare(int argc, char** argv);
int RunSweep(int argc, char** argv);
int RunTune(int argc, char** argv);
// `crmap tune --requests ...`: RunTune hands a command line naming --requests to this.
int RunTuneRuntime(int argc, char** argv);
int RunCampaign(int argc, char** argv);
int RunDb(int argc, char** argv);
int RunReplay(int argc, char** argv);
int RunTrain(int argc, char** argv);
int RunExport(int argc, char** argv);
int RunQuery(int argc, char** argv);
int RunSuggest(int argc, char** argv);
int RunEvaluate(int argc, char** argv);
int RunServe(int argc, char** argv);
int RunPeerWorker(int argc, char** argv);  // internal: not listed in the usage

}  // namespace crmap::cli
