/* crmap_hook.h: the runtime hook's C API.
 *
 * A serving runtime links libcrmap_hook (no LibTorch, no oneDNN), opens a policy file exported by
 * `crmap train`, and asks it, per batch, which configuration to run: crmap_hook_decide(dims) answers from the
 * table of tuned shapes, a per-shape cache, or the policy network (evaluated in plain C++), in microseconds.
 * crmap_hook_observe() reports what actually happened; crmap_hook_metrics() returns counters.
 *
 * Threads: decide, observe and metrics may be called concurrently from any number of threads and take no
 * lock; reload swaps the policy atomically while they run (in-flight decisions finish on the old policy).
 * open, reload and close are serialised by the caller's ownership: close only once no call is in flight.
 * Every call returns a status; crmap_hook_last_error() gives the message of the last failed call on the
 * calling thread. No call throws, aborts or allocates on the decide path. See docs/hook.md.
 */
#ifndef CRMAP_HOOK_H_
#define CRMAP_HOOK_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CRMAP_HOOK_API __attribute__((visibility("default")))
#else
#define CRMAP_HOOK_API
#endif

#define CRMAP_HOOK_MAX_KNOBS 64
#define CRMAP_HOOK_CONFIG_CAPACITY 1024

typedef enum crmap_status {
  CRMAP_OK = 0,
  CRMAP_ERR_INVALID_ARGUMENT = 1, /* a null pointer, wrong dim count, dims < 1, an unknown decision id */
  CRMAP_ERR_NOT_FOUND = 2,        /* the policy file does not exist */
  CRMAP_ERR_CORRUPTION = 3,       /* truncated, wrong magic, checksum mismatch, NaN weights, absurd sizes */
  CRMAP_ERR_VERSION = 4,          /* a policy format version this library does not read */
  CRMAP_ERR_MISMATCH = 5,         /* the policy is for another workload or search space */
  CRMAP_ERR_INTERNAL = 6,
  CRMAP_ERR_HOST = 7              /* the policy was tuned on a host of another CPU ISA (see allow_other_isa) */
} crmap_status;

typedef enum crmap_source {
  CRMAP_SOURCE_TABLE = 0,    /* an exactly tuned shape: its label (a best measured config, within the noise band) */
  CRMAP_SOURCE_POLICY = 1,   /* the policy network (or its per-shape cache) */
  CRMAP_SOURCE_FALLBACK = 2  /* no usable policy: the fallback config */
} crmap_source;

typedef struct crmap_open_options {
  /* If not NULL: the policy must be for this workload (else CRMAP_ERR_MISMATCH). */
  const char* expected_workload;
  /* If not NULL: the policy must have this space fingerprint (else CRMAP_ERR_MISMATCH). */
  const char* expected_space_fingerprint;
  /* If not NULL: when the policy cannot be used, open still returns a hook (with the error status) that
   * answers every decide with this canonical config string and source CRMAP_SOURCE_FALLBACK. */
  const char* fallback_config;
  /* 0 (the default): a policy tuned on a host whose CPU ISA (as oneDNN names it, e.g. "avx512_core_vnni";
   * ONEDNN_MAX_CPU_ISA caps it) differs from this host's is refused with CRMAP_ERR_HOST, because the ranking of
   * configs does not carry over (bf16 is 2x faster with native bf16 and 3.7x slower emulated). Non-zero: use it
   * anyway. Applies to reloads too. */
  int allow_other_isa;
} crmap_open_options;

/* What the runtime knows about current load; may be NULL. Recorded for adaptation (a later milestone). */
typedef struct crmap_telemetry {
  double queue_depth;
  double recent_p99_us;
} crmap_telemetry;

typedef struct crmap_decision {
  char config[CRMAP_HOOK_CONFIG_CAPACITY]; /* canonical "knob=value;..." string, NUL-terminated */
  int32_t knob_count;                      /* 0 for a fallback-only hook */
  int32_t values[CRMAP_HOOK_MAX_KNOBS];    /* value index per knob, in the policy's knob order */
  double predicted_latency_us;             /* 0 when unknown (fallback) */
  double propensity;                       /* probability the decision had (1: deterministic) */
  int32_t source;                          /* a crmap_source */
  uint64_t decision_id;                    /* pass to crmap_hook_observe */
  double confidence;                       /* in [0, 1]: the estimated probability that this config is within
                                            * 5% of the best: the critic ensemble's agreement, stated through the
                                            * calibration crmap train measured by leaving each tuned shape out
                                            * (the raw agreement when the file has none); a table entry: as
                                            * stored at training; -1: unknown (fallback, or a policy file before
                                            * format version 3). Coarse: see docs/hook.md. */
} crmap_decision;

typedef struct crmap_metrics {
  uint64_t decisions;
  uint64_t by_source[3];        /* indexed by crmap_source */
  uint64_t cache_hits;          /* policy answers served from the per-shape cache */
  uint64_t network_evaluations; /* policy answers that ran the network */
  uint64_t out_of_range;        /* decisions for dims outside the declared dim ranges (answered as the nearest
                                 * dims inside them) */
  uint64_t observations;
  uint64_t unknown_observations; /* observe with an id never issued or observed before (a caller's bug) */
  double mean_abs_log_error;    /* mean |log(measured / predicted)| over observations with a prediction */
  double mean_latency_us;
  double mean_queue_wait_us;
  uint64_t reloads;
  uint64_t policy_generation;   /* 0: no policy loaded (fallback only) */
  /* observe of a decision older than the last 65536 (the observe window: ~20 ms at 3 M decisions/s): its
   * latency is lost. Non-zero means observes lag decides by more than the window (see docs/hook.md). */
  uint64_t expired_observations;
} crmap_metrics;

typedef struct crmap_hook crmap_hook;

CRMAP_HOOK_API const char* crmap_status_name(crmap_status status);
/* The message of the last failed call on this thread ("" if none). Valid until the next call on it. */
CRMAP_HOOK_API const char* crmap_hook_last_error(void);

/* Opens `policy_path`. On success *hook is a working hook. On failure: with options->fallback_config set,
 * *hook is a fallback-only hook (close it as usual) and the failure status is returned; otherwise *hook is
 * NULL. `options` may be NULL. */
CRMAP_HOOK_API crmap_status crmap_hook_open(const char* policy_path, const crmap_open_options* options, crmap_hook** hook);

/* The policy's dims, in the order crmap_hook_decide expects them. A hook that opened on its fallback has 0
 * dims (it answers any dims) until a reload brings a policy; from then on decide wants that policy's dims. */
CRMAP_HOOK_API size_t crmap_hook_dim_count(const crmap_hook* hook);
CRMAP_HOOK_API const char* crmap_hook_dim_name(const crmap_hook* hook, size_t index);

/* Decides for `dims` (dim_count values, each >= 1). */
CRMAP_HOOK_API crmap_status crmap_hook_decide(crmap_hook* hook, const int64_t* dims, size_t dim_count,
                               const crmap_telemetry* telemetry, crmap_decision* decision);

/* Reports the measured latency of a decision and the time the request waited in the queue. Each decision is
 * observed at most once, while it is among the last 65536 decisions; otherwise CRMAP_ERR_INVALID_ARGUMENT
 * (counted in expired_observations when it fell out of that window, else in unknown_observations). */
CRMAP_HOOK_API crmap_status crmap_hook_observe(crmap_hook* hook, uint64_t decision_id, double latency_us, double queue_wait_us);

CRMAP_HOOK_API crmap_status crmap_hook_metrics(const crmap_hook* hook, crmap_metrics* metrics);

/* Loads another policy file and swaps it in atomically. It must be for the same workload and space as the
 * policy it replaces (and as the open options asked); on any failure the current policy stays in place. */
CRMAP_HOOK_API crmap_status crmap_hook_reload(crmap_hook* hook, const char* policy_path);

CRMAP_HOOK_API void crmap_hook_close(crmap_hook* hook);

#ifdef __cplusplus
}
#endif

#endif /* CRMAP_HOOK_H_ */
