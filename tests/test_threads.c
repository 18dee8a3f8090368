/* Threads on one context (CPU backend), as the manual's THREAD SAFETY section allows: a context
   may be used from several threads if each thread works on its own graphs, plans and execs.

   The model, built through the graph API with fresh random weights (shared, read-only, by
   every thread's graph; half the threads borrow them, half copy them):
       x [4,32] -> Gemm fc1 (W1 [32,64], b1) -> Relu -> Gemm fc2 (W2 [64,32] transB, b2) -> Tanh
                -> Gemm fc3 (W3 [32,10], b3) -> Softmax -> y [4,10]
   A single-threaded reference run (one plan, one exec) first computes the outputs of R = 16
   input sets. Then N threads (default 8) share one context, start together at a barrier and
     1. build their own graph of the model and plan it at the same time (concurrent building and
        planning), make an exec, destroy the graph (the plan keeps a copy);
     2. replay it ITERS times (default 2000: 16000 replays in all), input set (7 i + tid) mod R,
        each output compared bitwise (memcmp) with the reference;
     3. every CHURN replays (default 250), build, plan, run once and destroy another graph of the
        model while the other threads keep replaying;
     4. all at once (after a barrier): plan one shared graph, each into its own plan, and make
        an exec of one shared plan (the reference's); 200 replays alternating between the two
        execs (--no-shared leaves this phase out: the manual promises only own graphs, plans
        and execs; the phase checks that reading one graph or plan from several threads works);
     5. once, create a private context, run the model on it and destroy it.
   The context allocator counts blocks with atomics: every block is freed at the end.
   The last-error message is kept per thread (the manual's THREAD SAFETY), so failures in one
   thread do not touch another's; two more modes exercise that:
     --errors     every thread also makes failing calls (a wrong input size, different per
                  thread) on the shared context and checks that aicf_last_error gives its own
     --fallback   plans with AICF_BACKEND_DEFAULT + allow_cpu_fallback on a context without CUDA:
                  each aicf_plan_create records the fallback reason as it goes
   Options: --threads N, --iters N, --churn N, --seed N (default: time; AICF_SEED too),
   --no-shared.
   `make test-tsan` builds this file with -fsanitize=thread and runs it in each mode.
   Ends with "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE /* CPU backend only */
#include "../aicf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail;
static uint64_t g_rng;
static pthread_mutex_t g_report = PTHREAD_MUTEX_INITIALIZER; /* CHECK from threads */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        int ok_ = (cond) ? 1 : 0;                                                                  \
        pthread_mutex_lock(&g_report);                                                             \
        if (ok_) {                                                                                 \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
        pthread_mutex_unlock(&g_report);                                                           \
    } while (0)

static float frand(void) {
    float f;
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    f = (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return f == 0.0f ? 0.125f : f;
}

/* ---- a thread-safe counting allocator ---- */
static long g_blocks;
static void* ts_alloc(size_t n, void* u) {
    void* p = malloc(n);
    (void)u;
    if (p) __atomic_add_fetch(&g_blocks, 1, __ATOMIC_RELAXED);
    return p;
}
static void* ts_realloc(void* p, size_t old, size_t n, void* u) {
    void* q = realloc(p, n);
    (void)old;
    (void)u;
    if (q && !p) __atomic_add_fetch(&g_blocks, 1, __ATOMIC_RELAXED);
    return q;
}
static void ts_free(void* p, void* u) {
    (void)u;
    if (p) {
        __atomic_sub_fetch(&g_blocks, 1, __ATOMIC_RELAXED);
        free(p);
    }
}

/* ---- the model ---- */
enum { B = 4, D0 = 32, D1 = 64, D2 = 32, D3 = 10, R = 16 };
static float W1[D0 * D1], B1[D1], W2[D2 * D1], B2[D2], W3[D2 * D3], B3[D3];
static float XS[R][B * D0], REF[R][B * D3];

static aicf_tensor_desc tdesc(const char* name, int rank, const int64_t* dims, const void* data, size_t bytes, int borrow) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = bytes;
    d.borrow = borrow;
    return d;
}

static aicf_result node(aicf_graph* g, const char* name, const char* op, const char* const* in, int nin, const char* out,
                        const aicf_attr* attrs, int nattrs) {
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = nin;
    nd.outputs = &out;
    nd.num_outputs = 1;
    nd.attrs = attrs;
    nd.num_attrs = nattrs;
    return aicf_graph_add_node(g, &nd);
}

static aicf_result build_model(aicf_context* ctx, int borrow, aicf_graph** out) {
    static const int64_t dx[2] = {B, D0}, dw1[2] = {D0, D1}, db1[1] = {D1}, dw2[2] = {D2, D1}, db2[1] = {D2},
                         dw3[2] = {D2, D3}, db3[1] = {D3};
    static const char* const fc1[3] = {"x", "W1", "B1"};
    static const char* const fc2[3] = {"h1", "W2", "B2"};
    static const char* const fc3[3] = {"h2", "W3", "B3"};
    static const char* const r1[1] = {"a1"};
    static const char* const t2[1] = {"a2"};
    static const char* const sm[1] = {"a3"};
    aicf_attr tb, ax;
    aicf_graph* g = NULL;
    aicf_tensor_desc d;
    aicf_result r;
    *out = NULL;
    memset(&tb, 0, sizeof tb);
    tb.name = "transB";
    tb.type = AICF_ATTR_INT;
    tb.i = 1;
    memset(&ax, 0, sizeof ax);
    ax.name = "axis";
    ax.type = AICF_ATTR_INT;
    ax.i = -1;
#define TRY(call)                                                                                  \
    if ((r = (call)) != AICF_SUCCESS) goto fail
    TRY(aicf_graph_create(ctx, &g));
    d = tdesc("x", 2, dx, NULL, 0, 0);
    TRY(aicf_graph_add_input(g, &d));
    d = tdesc("W1", 2, dw1, W1, sizeof W1, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B1", 1, db1, B1, sizeof B1, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("W2", 2, dw2, W2, sizeof W2, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B2", 1, db2, B2, sizeof B2, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("W3", 2, dw3, W3, sizeof W3, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B3", 1, db3, B3, sizeof B3, borrow);
    TRY(aicf_graph_add_constant(g, &d));
    TRY(node(g, "fc1", "Gemm", fc1, 3, "a1", NULL, 0));
    TRY(node(g, "relu", "Relu", r1, 1, "h1", NULL, 0));
    TRY(node(g, "fc2", "Gemm", fc2, 3, "a2", &tb, 1));
    TRY(node(g, "tanh", "Tanh", t2, 1, "h2", NULL, 0));
    TRY(node(g, "fc3", "Gemm", fc3, 3, "a3", NULL, 0));
    TRY(node(g, "softmax", "Softmax", sm, 1, "y", &ax, 1));
    TRY(aicf_graph_add_output(g, "y"));
#undef TRY
    *out = g;
    return AICF_SUCCESS;
fail:
    aicf_graph_destroy(g);
    return r;
}

static int g_fallback, g_errors;

static aicf_plan_desc plan_desc(void) {
    aicf_plan_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.backend = g_fallback ? AICF_BACKEND_DEFAULT : AICF_BACKEND_CPU;
    pd.policy.allow_cpu_fallback = 1;
    return pd;
}

/* build + plan + exec; the graph is destroyed once planned */
static aicf_result make_exec(aicf_context* ctx, int borrow, aicf_plan** p, aicf_exec** e) {
    aicf_graph* g = NULL;
    aicf_plan_desc pd = plan_desc();
    aicf_result r = build_model(ctx, borrow, &g);
    *p = NULL;
    *e = NULL;
    if (r == AICF_SUCCESS) r = aicf_plan_create(g, &pd, p);
    aicf_graph_destroy(g);
    if (r == AICF_SUCCESS) r = aicf_exec_create(*p, NULL, e);
    if (r != AICF_SUCCESS) {
        aicf_plan_destroy(*p);
        *p = NULL;
    }
    return r;
}

/* one replay of input set k; 1 if the output equals the reference bitwise */
static int replay(aicf_exec* e, int k, aicf_result* r) {
    float y[B * D3];
    *r = aicf_exec_set_input(e, 0, XS[k], sizeof XS[k]);
    if (*r == AICF_SUCCESS) *r = aicf_exec_run(e);
    if (*r == AICF_SUCCESS) *r = aicf_exec_get_output(e, 0, y, sizeof y);
    return *r == AICF_SUCCESS && memcmp(y, REF[k], sizeof y) == 0;
}

static aicf_context* new_ctx(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = ts_alloc;
    cd.allocator.realloc = ts_realloc;
    cd.allocator.free = ts_free;
    return aicf_context_create(&cd, &ctx) == AICF_SUCCESS ? ctx : NULL;
}

/* ---- the threads ---- */
typedef struct worker {
    pthread_t th;
    int tid, iters, churn;
    aicf_context* ctx; /* shared */
    long runs, mismatches, churned, churn_bad, errors_seen, errors_garbled, shared_runs, shared_bad;
    aicf_result first_error;
} worker;

static pthread_barrier_t g_start;
/* phase 2 (--no-shared leaves it out): one graph and one plan read by every thread at once */
static int g_shared = 1;
static aicf_graph* g_shared_graph;
static aicf_plan* g_shared_plan;

/* each thread plans the shared graph into its own plan, and makes its own exec of the shared
   plan; both replayed and compared with the reference */
static void shared_phase(worker* w) {
    aicf_plan_desc pd = plan_desc();
    aicf_plan* p = NULL;
    aicf_exec *e = NULL, *e2 = NULL;
    aicf_result r;
    int i;
    r = aicf_plan_create(g_shared_graph, &pd, &p);
    if (r == AICF_SUCCESS) r = aicf_exec_create(p, NULL, &e);
    if (r == AICF_SUCCESS) r = aicf_exec_create(g_shared_plan, NULL, &e2);
    for (i = 0; i < 200 && r == AICF_SUCCESS; i++) {
        int k = (3 * i + w->tid) % R;
        if (!replay(i & 1 ? e : e2, k, &r)) w->shared_bad++;
        w->shared_runs++;
    }
    if (r != AICF_SUCCESS) {
        w->shared_bad++;
        if (w->first_error == AICF_SUCCESS) w->first_error = r;
    }
    aicf_exec_destroy(e2);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
}

static void* work(void* arg) {
    worker* w = (worker*)arg;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    int i;
    pthread_barrier_wait(&g_start); /* every thread builds and plans at the same moment */
    r = make_exec(w->ctx, w->tid & 1, &p, &e);
    pthread_barrier_wait(&g_start); /* and replays together */
    if (r != AICF_SUCCESS) w->first_error = r;
    for (i = 0; i < w->iters && e; i++) {
        int k = (7 * i + w->tid) % R;
        if (!replay(e, k, &r)) {
            w->mismatches++;
            if (r != AICF_SUCCESS && w->first_error == AICF_SUCCESS) w->first_error = r;
        }
        w->runs++;
        if (g_errors && i % 3 == 0) { /* a failing call on the shared context: its message is this thread's */
            size_t bad = sizeof XS[k] - 4 * (size_t)(w->tid + 1);
            char want[48];
            snprintf(want, sizeof want, "got %zu", bad);
            if (aicf_exec_set_input(e, 0, XS[k], bad) == AICF_ERROR_INVALID_ARGUMENT) w->errors_seen++;
            if (!strstr(aicf_last_error(w->ctx), want)) w->errors_garbled++;
        }
        if (w->churn && i % w->churn == w->churn / 2) { /* another graph, built and planned meanwhile */
            aicf_plan* p2;
            aicf_exec* e2;
            aicf_result r2 = make_exec(w->ctx, !(w->tid & 1), &p2, &e2);
            w->churned++;
            if (r2 != AICF_SUCCESS || !replay(e2, (k + 5) % R, &r2)) w->churn_bad++;
            aicf_exec_destroy(e2);
            aicf_plan_destroy(p2);
        }
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    if (g_shared) {
        pthread_barrier_wait(&g_start);
        shared_phase(w);
    }
    /* a private context, made and destroyed while the others still run */
    {
        aicf_context* own = new_ctx();
        w->churned++;
        if (!own || make_exec(own, 0, &p, &e) != AICF_SUCCESS || !replay(e, w->tid % R, &r)) w->churn_bad++;
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
        aicf_context_destroy(own);
    }
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    int nthreads = 8, iters = 2000, churn = 250, i, k;
    uint64_t seed = 0;
    const char* seed_env = getenv("AICF_SEED");
    aicf_context* ctx;
    aicf_plan* p;
    aicf_exec* e;
    worker* w;
    long runs = 0, bad = 0, churned = 0, churn_bad = 0, errs = 0;
    double t0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--churn") && i + 1 < argc) churn = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--errors")) g_errors = 1;
        else if (!strcmp(argv[i], "--fallback")) g_fallback = 1;
        else if (!strcmp(argv[i], "--no-shared")) g_shared = 0;
        else {
            fprintf(stderr, "usage: %s [--threads N] [--iters N] [--churn N] [--seed N] [--errors] [--fallback] [--no-shared]\n",
                    argv[0]);
            return 2;
        }
    }
    if (nthreads < 1) nthreads = 1;
    if (!seed) seed = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 7;
    g_rng = seed ? seed : 1;
    printf("test_threads: seed %llu, %d threads x %d replays, churn every %d%s%s\n", (unsigned long long)seed, nthreads,
           iters, churn, g_errors ? ", --errors" : "", g_fallback ? ", --fallback" : "");
    for (i = 0; i < (int)(sizeof W1 / 4); i++) W1[i] = frand() * 0.3f;
    for (i = 0; i < (int)(sizeof W2 / 4); i++) W2[i] = frand() * 0.3f;
    for (i = 0; i < (int)(sizeof W3 / 4); i++) W3[i] = frand() * 0.5f;
    for (i = 0; i < D1; i++) B1[i] = frand() * 0.1f;
    for (i = 0; i < D2; i++) B2[i] = frand() * 0.1f;
    for (i = 0; i < D3; i++) B3[i] = frand() * 0.1f;
    for (k = 0; k < R; k++)
        for (i = 0; i < B * D0; i++) XS[k][i] = frand() * 2.0f;

    ctx = new_ctx();
    CHECK(ctx != NULL, "context");
    if (!ctx) goto end;
    /* the single-threaded reference */
    CHECK(make_exec(ctx, 0, &p, &e) == AICF_SUCCESS, "reference plan: %s", aicf_last_error(ctx));
    if (!e) goto end;
    for (k = 0; k < R; k++) {
        CHECK(aicf_exec_set_input(e, 0, XS[k], sizeof XS[k]) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS &&
                  aicf_exec_get_output(e, 0, REF[k], sizeof REF[k]) == AICF_SUCCESS,
              "reference run %d: %s", k, aicf_last_error(ctx));
        {
            float s = 0.0f;
            int j, sane = 1;
            for (j = 0; j < D3; j++) {
                s += REF[k][j];
                sane &= REF[k][j] > 0.0f && REF[k][j] < 1.0f;
            }
            CHECK(sane && s > 0.999f && s < 1.001f, "reference %d: row 0 is not a softmax (sum %g)", k, s);
        }
    }
    /* a second single-threaded run of the same exec reproduces the reference bitwise */
    for (k = 0; k < R; k++) {
        aicf_result r;
        CHECK(replay(e, R - 1 - k, &r), "single-threaded replay %d differs from the reference", k);
    }
    aicf_exec_destroy(e);
    /* the shared graph and plan of phase 2 */
    if (g_shared) {
        g_shared_plan = p;
        CHECK(build_model(ctx, 1, &g_shared_graph) == AICF_SUCCESS, "shared graph: %s", aicf_last_error(ctx));
        if (!g_shared_graph) goto end;
    } else {
        aicf_plan_destroy(p);
    }

    w = (worker*)calloc((size_t)nthreads, sizeof *w);
    pthread_barrier_init(&g_start, NULL, (unsigned)nthreads);
    t0 = now_s();
    for (i = 0; i < nthreads; i++) {
        w[i].tid = i;
        w[i].iters = iters;
        w[i].churn = churn;
        w[i].ctx = ctx;
        CHECK(pthread_create(&w[i].th, NULL, work, &w[i]) == 0, "pthread_create %d", i);
    }
    for (i = 0; i < nthreads; i++) pthread_join(w[i].th, NULL);
    pthread_barrier_destroy(&g_start);
    for (i = 0; i < nthreads; i++) {
        CHECK(w[i].first_error == AICF_SUCCESS, "thread %d: a call failed: %s", i, aicf_result_str(w[i].first_error));
        CHECK(w[i].runs == iters && w[i].mismatches == 0, "thread %d: %ld of %ld replays differ from the reference", i,
              w[i].mismatches, w[i].runs);
        CHECK(w[i].churn_bad == 0, "thread %d: %ld of %ld graphs built and run meanwhile were wrong", i, w[i].churn_bad,
              w[i].churned);
        if (g_errors) {
            CHECK(w[i].errors_seen > 0, "thread %d: the failing calls did not fail", i);
            CHECK(w[i].errors_garbled == 0, "thread %d: %ld of its failures read another message", i, w[i].errors_garbled);
        }
        if (g_shared)
            CHECK(w[i].shared_runs == 200 && w[i].shared_bad == 0,
                  "thread %d: shared graph / shared plan: %ld of %ld replays wrong", i, w[i].shared_bad, w[i].shared_runs);
        runs += w[i].runs;
        bad += w[i].mismatches;
        churned += w[i].churned;
        churn_bad += w[i].churn_bad;
        errs += w[i].errors_seen;
    }
    printf("%s %d threads on one context: %ld replays in %.2f s, %ld differ from the single-threaded reference; %ld "
           "graphs built, planned and run meanwhile (%ld wrong)%s\n",
           bad || churn_bad ? "FAIL" : "ok  ", nthreads, runs, now_s() - t0, bad, churned, churn_bad,
           g_errors ? "; failing calls made" : "");
    if (g_errors) printf("     %ld failing calls made on the shared context\n", errs);
    if (g_shared) {
        long sr = 0, sb = 0;
        for (i = 0; i < nthreads; i++) {
            sr += w[i].shared_runs;
            sb += w[i].shared_bad;
        }
        printf("%s %d threads planned one shared graph and made execs of one shared plan at once: %ld replays, %ld "
               "wrong\n", sb ? "FAIL" : "ok  ", nthreads, sr, sb);
    }
    free(w);
end:
    aicf_plan_destroy(g_shared_plan);
    aicf_graph_destroy(g_shared_graph);
    aicf_context_destroy(ctx);
    CHECK(__atomic_load_n(&g_blocks, __ATOMIC_RELAXED) == 0, "%ld blocks of the context allocator not freed", g_blocks);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
