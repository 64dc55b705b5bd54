// crmap db stats|best|csv: inspects a tuning database (tuner/db_report.h, docs/tuning-db.md).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/db_report.h"

namespace crmap::cli {
namespace {

struct Subcommand {
  const char* name;
  const char* help;
  bool has_json;
};

const Subcommand kSubcommands[] = {
    {"stats", "records, torn lines, counts per workload/status/agent/campaign/host, shapes, stale fingerprints", true},
    {"best", "per workload and shape, the best measured config and its speedup over the default", true},
    {"csv", "one CSV row per record", false},
};

std::string SubcommandNames() {
  std::vector<std::string> names;
  for (const auto& s : kSubcommands) names.push_back(s.name);
  return JoinNames(names);
}

void PrintDbUsage() {
  std::printf("usage: crmap db <subcommand> --db FILE [--workload W] [--json]\n\nsubcommands:\n");
  for (const auto& s : kSubcommands) std::printf("  %-6s %s\n", s.name, s.help);
  std::printf("\n'crmap db <subcommand> --help' shows its options. The file format: docs/tuning-db.md.\n");
}

}  // namespace

int RunDb(int argc, char** argv) {
  if (argc < 2) return Fail(Status::InvalidArgument("missing subcommand; crmap db takes one of: " + SubcommandNames()));
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    PrintDbUsage();
    return kExitOk;
  }
  const Subcommand* sub = nullptr;
  for (const auto& s : kSubcommands)
    if (std::strcmp(argv[1], s.name) == 0) sub = &s;
  if (sub == nullptr) {
    return Fail(Status::InvalidArgument(std::string("unknown db subcommand '") + argv[1] +
                                        "'; subcommands: " + SubcommandNames()));
  }

  cxxopts::Options options(std::string("crmap db ") + sub->name, sub->help);
  options.add_options()
      ("db", "the tuning database (JSON Lines of measurement records)", cxxopts::value<std::string>())
      ("w,workload", "only this workload (name or path); its fingerprints are the current ones",
       cxxopts::value<std::string>());
  if (sub->has_json) options.add_options()("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc - 1, argv + 1, &args, &code)) return code;
  if (!args.count("db")) return Fail(Status::InvalidArgument("missing --db FILE (a tuning database, see docs/tuning-db.md)"));
  Db db;
  Status status = LoadDb(args["db"].as<std::string>(), args.count("workload") ? args["workload"].as<std::string>() : "",
                         &db);
  if (!status.ok()) return Fail(status);
  const bool json = sub->has_json && args.count("json");
  const std::string name = sub->name;
  const std::string report = name == "stats" ? DbStatsReport(db, json)
                             : name == "best" ? DbBestReport(db, json)
                                              : DbCsvReport(db);
  std::printf("%s", report.c_str());
  return kExitOk;
}

}  // namespace crmap::cli
