// Shared test helpers: load built-in workloads, build spaces and parse configs, failing the test on error.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "common/workload.h"
#include "datasets/catalog.h"
#include "search_space/search_space.h"

namespace crmap::testing {

inline Workload MustLoad(const std::string& name) {
  auto workload = LoadWorkload(name);
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
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

}  // namespace crmap::testing
