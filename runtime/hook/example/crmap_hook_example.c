/* crmap_hook_example: the runtime hook from C, end to end.
 *
 *   crmap_hook_example POLICY DIM...      e.g. crmap_hook_example dlrm_mlp.policy 128
 *
 * Opens a policy file written by `crmap train`, prints the dims it expects, decides for the dims given (one
 * value per dim, in that order), prints the config, where it came from and its predicted latency, reports a
 * made-up measured latency back through observe, prints the hook's metrics and closes it. Exit status 0 on
 * success; 1 with the hook's error message on any failure; 2 on bad arguments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/hook/crmap_hook.h"

static const char* SourceName(int32_t source) {
  switch (source) {
    case CRMAP_SOURCE_TABLE:
      return "table";
    case CRMAP_SOURCE_POLICY:
      return "policy";
    case CRMAP_SOURCE_FALLBACK:
      return "fallback";
  }
  return "unknown";
}

static int Failed(const char* what, crmap_status status) {
  fprintf(stderr, "crmap_hook_example: %s failed: %s: %s\n", what, crmap_status_name(status), crmap_hook_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s POLICY DIM...\n", argv[0]);
    return 2;
  }
  crmap_hook* hook = NULL;
  crmap_status status = crmap_hook_open(argv[1], NULL, &hook);
  if (status != CRMAP_OK) return Failed("open", status);

  size_t dim_count = crmap_hook_dim_count(hook);
  printf("policy: %s\ndims:", argv[1]);
  for (size_t i = 0; i < dim_count; ++i) printf(" %s", crmap_hook_dim_name(hook, i));
  printf("\n");
  if ((size_t)(argc - 2) != dim_count) {
    fprintf(stderr, "crmap_hook_example: %d dims given, the policy expects %zu\n", argc - 2, dim_count);
    crmap_hook_close(hook);
    return 2;
  }
  int64_t dims[8];
  if (dim_count > sizeof dims / sizeof dims[0]) {
    fprintf(stderr, "crmap_hook_example: policy has too many dims\n");
    crmap_hook_close(hook);
    return 1;
  }
  for (size_t i = 0; i < dim_count; ++i) {
    char* end = NULL;
    errno = 0;
    long long value = strtoll(argv[2 + i], &end, 10);
    if (errno || end == argv[2 + i] || *end) {
      fprintf(stderr, "crmap_hook_example: dim '%s' is not an integer\n", argv[2 + i]);
      crmap_hook_close(hook);
      return 2;
    }
    dims[i] = (int64_t)value;
  }

  crmap_telemetry telemetry = {0.0, 0.0};
  crmap_decision decision;
  status = crmap_hook_decide(hook, dims, dim_count, &telemetry, &decision);
  if (status != CRMAP_OK) {
    crmap_hook_close(hook);
    return Failed("decide", status);
  }
  printf("config: %s\n", decision.config);
  printf("source: %s\n", SourceName(decision.source));
  printf("predicted latency: %.2f us\n", decision.predicted_latency_us);

  /* A serving runtime would time the request; the example pretends it took 10% longer than predicted. */
  double measured = decision.predicted_latency_us > 0 ? decision.predicted_latency_us * 1.1 : 100.0;
  status = crmap_hook_observe(hook, decision.decision_id, measured, 5.0);
  if (status != CRMAP_OK) {
    crmap_hook_close(hook);
    return Failed("observe", status);
  }
  printf("observed: %.2f us\n", measured);

  crmap_metrics metrics;
  status = crmap_hook_metrics(hook, &metrics);
  if (status != CRMAP_OK) {
    crmap_hook_close(hook);
    return Failed("metrics", status);
  }
  printf("metrics: decisions=%" PRIu64 " table=%" PRIu64 " policy=%" PRIu64 " fallback=%" PRIu64 " cache_hits=%" PRIu64
         " network_evaluations=%" PRIu64 " out_of_range=%" PRIu64 " observations=%" PRIu64
         " mean_abs_log_error=%.4f generation=%" PRIu64 "\n",
         metrics.decisions, metrics.by_source[CRMAP_SOURCE_TABLE], metrics.by_source[CRMAP_SOURCE_POLICY],
         metrics.by_source[CRMAP_SOURCE_FALLBACK], metrics.cache_hits, metrics.network_evaluations,
         metrics.out_of_range, metrics.observations, metrics.mean_abs_log_error, metrics.policy_generation);
  crmap_hook_close(hook);
  return 0;
}
