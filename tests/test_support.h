// Shared test helpers: load built-in workloads, build spaces, parse configs and distributions, failing the test on
// error.
#pragma once

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/workload.h"
#include "common/json_fields.h"
#include "datasets/catalog.h"
#include "datasets/distribution.h"
#include "search_space/search_space.h"

namespace crmap::testing {

inline Workload MustLoad(const std::string& name) {
  auto workload = LoadWorkload(name);
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

// A built-in workload loaded once per test binary (tests that ask for the same one often). Not thread-safe.
inline const Workload& MustLoadOnce(const std::string& name) {
  static std::map<std::string, Workload> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) it = loaded.emplace(name, MustLoad(name)).first;
  return it->second;
}

inline Workload MustParse(const std::string& text) {
  auto workload = ParseWorkload(text, "test");
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

inline SearchSpace MustSpace(const Workload& workload, int max_threads = 2) {
  auto space = SearchSpace::Build(workload, SpaceOptions{max_threads});
  EXPECT_TRUE(space.ok()) << space.status().ToString();
  return std::move(space).value();
}

inline Config MustConfig(const SearchSpace& space, const std::string& text) {
  auto config = space.Parse(text);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return std::move(config).value();
}

// A distribution for `workload` with the given "dims" object (JSON text); an empty one, and a failed test, on error.
inline ShapeDistribution MustParseDistribution(const std::string& dims, const Workload& workload) {
  auto json = ParseJsonText(R"({"format": "crmap.distribution/1", "name": "t", "workload": ")" + workload.name() +
                                R"(", "dims": )" + dims + "}",
                            "test.json");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  if (!json.ok()) return {};
  auto distribution = ParseDistribution(*json, "test.json", workload);
  EXPECT_TRUE(distribution.ok()) << distribution.status().ToString();
  return distribution.ok() ? std::move(distribution).value() : ShapeDistribution{};
}

}  // namespace crmap::testing
