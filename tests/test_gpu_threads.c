/* Threads on one context, CUDA backend (GPU suite; without a CUDA device it prints the reason as
   a skip and exits 0).

   The model, built through the graph API with fresh random weights:
       x [8,64] -> Gemm fc1 (W1 [64,128], b1) -> Relu -> Gemm fc2 (W2 [128,128] transB, b2) -> Tanh
                -> Gemm fc3 (W3 [128,16], b3) -> Softmax -> y [8,16]
   R = 16 input sets. First, single-threaded: one CUDA plan (fp32) and exec give the reference
   outputs, checked against the CPU reference plan (norm-relative error <= 1e-5). Then N threads
   (default 8) share the context and start together at a barrier: each builds and plans its
   own graph, makes its own exec (each exec creates its own stream), and replays it ITERS times
   (default 2000), input set (7 i + tid) mod R; every output must equal the single-threaded
   CUDA reference bitwise. Even replays use aicf_exec_run, odd ones aicf_exec_launch, then
   aicf_exec_wait. A second phase repeats this at fp16 (reference: a single-threaded fp16 run).
   Options: --threads N, --iters N, --seed N (default: time; AICF_SEED too), --driver PATH.
   Ends with "N passed, N failed[, N skipped]". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail, g_skip;
static uint64_t g_rng;
static pthread_mutex_t g_report = PTHREAD_MUTEX_INITIALIZER;

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

enum { B = 8, D0 = 64, D1 = 128, D2 = 128, D3 = 16, R = 16 };
static float W1[D0 * D1], B1[D1], W2[D2 * D1], B2[D2], W3[D2 * D3], B3[D3];
static float XS[R][B * D0], REF[R][B * D3];
static aicf_precision g_prec = AICF_PRECISION_FP32;

static aicf_tensor_desc tdesc(const char* name, int rank, const int64_t* dims, const void* data, size_t bytes) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = bytes;
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

static aicf_result build_model(aicf_context* ctx, aicf_graph** out) {
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
    d = tdesc("x", 2, dx, NULL, 0);
    TRY(aicf_graph_add_input(g, &d));
    d = tdesc("W1", 2, dw1, W1, sizeof W1);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B1", 1, db1, B1, sizeof B1);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("W2", 2, dw2, W2, sizeof W2);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B2", 1, db2, B2, sizeof B2);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("W3", 2, dw3, W3, sizeof W3);
    TRY(aicf_graph_add_constant(g, &d));
    d = tdesc("B3", 1, db3, B3, sizeof B3);
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

static aicf_result make_exec(aicf_context* ctx, aicf_backend be, aicf_precision prec, aicf_plan** p, aicf_exec** e) {
    aicf_graph* g = NULL;
    aicf_plan_desc pd;
    aicf_result r = build_model(ctx, &g);
    memset(&pd, 0, sizeof pd);
    pd.backend = be;
    pd.policy.precision = prec;
    *p = NULL;
    *e = NULL;
    if (r == AICF_SUCCESS) r = aicf_plan_create(g, &pd, p);
    aicf_graph_destroy(g);
    if (r == AICF_SUCCESS) r = aicf_exec_create(*p, NULL, e); /* desc NULL: the exec makes its own stream */
    if (r != AICF_SUCCESS) {
        aicf_plan_destroy(*p);
        *p = NULL;
    }
    return r;
}

/* one replay of input set k into y; async: launch, then wait */
static aicf_result replay(aicf_exec* e, int k, int async, float* y) {
    aicf_result r = aicf_exec_set_input(e, 0, XS[k], sizeof XS[k]);
    if (r == AICF_SUCCESS) r = async ? aicf_exec_launch(e) : aicf_exec_run(e);
    if (r == AICF_SUCCESS && async) r = aicf_exec_wait(e);
    if (r == AICF_SUCCESS) r = aicf_exec_get_output(e, 0, y, sizeof REF[0]);
    return r;
}

typedef struct worker {
    pthread_t th;
    int tid, iters;
    aicf_context* ctx;
    long runs, mismatches;
    aicf_result first_error;
} worker;
static pthread_barrier_t g_start;

static void* work(void* arg) {
    worker* w = (worker*)arg;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    float y[B * D3];
    aicf_result r;
    int i;
    pthread_barrier_wait(&g_start);
    r = make_exec(w->ctx, AICF_BACKEND_CUDA, g_prec, &p, &e);
    pthread_barrier_wait(&g_start);
    if (r != AICF_SUCCESS) {
        w->first_error = r;
        return NULL;
    }
    for (i = 0; i < w->iters; i++) {
        int k = (7 * i + w->tid) % R;
        r = replay(e, k, i & 1, y);
        if (r != AICF_SUCCESS || memcmp(y, REF[k], sizeof y) != 0) {
            w->mismatches++;
            if (r != AICF_SUCCESS && w->first_error == AICF_SUCCESS) w->first_error = r;
        }
        w->runs++;
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* norm-relative error of a against b over n */
static double rel_err(const float* a, const float* b, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        num += d * d;
        den += (double)b[i] * (double)b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void phase(aicf_context* ctx, aicf_precision prec, int nthreads, int iters) {
    const char* pn = prec == AICF_PRECISION_FP16 ? "fp16" : "fp32";
    aicf_plan *p = NULL, *pc = NULL;
    aicf_exec *e = NULL, *ec = NULL;
    float cpu[B * D3];
    double worst = 0;
    worker* w;
    long runs = 0, bad = 0;
    double t0;
    int i, k;
    g_prec = prec;
    /* single-threaded references: CUDA at this precision, and the CPU */
    CHECK(make_exec(ctx, AICF_BACKEND_CUDA, prec, &p, &e) == AICF_SUCCESS, "[%s] CUDA plan: %s", pn, aicf_last_error(ctx));
    CHECK(make_exec(ctx, AICF_BACKEND_CPU, AICF_PRECISION_FP32, &pc, &ec) == AICF_SUCCESS, "CPU plan: %s", aicf_last_error(ctx));
    if (!e || !ec) goto done;
    for (k = 0; k < R; k++) {
        float again[B * D3];
        CHECK(replay(e, k, 0, REF[k]) == AICF_SUCCESS, "[%s] reference replay %d: %s", pn, k, aicf_last_error(ctx));
        CHECK(replay(ec, k, 0, cpu) == AICF_SUCCESS, "CPU run %d: %s", k, aicf_last_error(ctx));
        CHECK(replay(e, k, 1, again) == AICF_SUCCESS && memcmp(again, REF[k], sizeof again) == 0,
              "[%s] single-threaded replay %d is not bitwise stable", pn, k);
        {
            double er = rel_err(REF[k], cpu, B * D3);
            if (er > worst) worst = er;
        }
    }
    CHECK(worst <= (prec == AICF_PRECISION_FP16 ? 1e-2 : 1e-5), "[%s] CUDA vs CPU reference: rel err %.3g", pn, worst);
    w = (worker*)calloc((size_t)nthreads, sizeof *w);
    pthread_barrier_init(&g_start, NULL, (unsigned)nthreads);
    t0 = now_s();
    for (i = 0; i < nthreads; i++) {
        w[i].tid = i;
        w[i].iters = iters;
        w[i].ctx = ctx;
        CHECK(pthread_create(&w[i].th, NULL, work, &w[i]) == 0, "pthread_create %d", i);
    }
    for (i = 0; i < nthreads; i++) pthread_join(w[i].th, NULL);
    pthread_barrier_destroy(&g_start);
    for (i = 0; i < nthreads; i++) {
        CHECK(w[i].first_error == AICF_SUCCESS, "[%s] thread %d: a call failed: %s (message, possibly another thread's: %s)",
              pn, i, aicf_result_str(w[i].first_error), aicf_last_error(ctx));
        CHECK(w[i].runs == iters && w[i].mismatches == 0, "[%s] thread %d: %ld of %ld replays differ from the reference", pn, i,
              w[i].mismatches, w[i].runs);
        runs += w[i].runs;
        bad += w[i].mismatches;
    }
    printf("%s [%s] %d threads, one exec and stream each, on one context: %ld replays in %.2f s, %ld differ bitwise from "
           "the single-threaded replay; CUDA vs CPU rel err %.3g\n",
           bad ? "FAIL" : "ok  ", pn, nthreads, runs, now_s() - t0, bad, worst);
    free(w);
done:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_exec_destroy(ec);
    aicf_plan_destroy(pc);
}

int main(int argc, char** argv) {
    int nthreads = 8, iters = 2000, i, k;
    uint64_t seed = 0;
    const char* seed_env = getenv("AICF_SEED");
    const char* driver = NULL;
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_device_info info;
    aicf_result r;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--driver") && i + 1 < argc) driver = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--threads N] [--iters N] [--seed N] [--driver PATH]\n", argv[0]);
            return 2;
        }
    }
    if (nthreads < 1) nthreads = 1;
    if (!seed) seed = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 11;
    g_rng = seed ? seed : 1;
    printf("test_gpu_threads: seed %llu, %d threads x %d replays\n", (unsigned long long)seed, nthreads, iters);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = driver;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return 2;
    r = aicf_context_device_info(ctx, &info);
    if (r != AICF_SUCCESS) {
        printf("SKIP test_gpu_threads: no CUDA device (%s)\n", aicf_last_error(ctx));
        printf("0 passed, 0 failed, 1 skipped\n");
        aicf_context_destroy(ctx);
        return r == AICF_ERROR_NO_DEVICE ? 0 : 1;
    }
    printf("device: %s (cc %d.%d), driver %d, cuBLASLt %s\n", info.name, info.cc_major, info.cc_minor, info.driver_version,
           info.cublaslt_available ? "loaded" : "absent");
    for (i = 0; i < (int)(sizeof W1 / 4); i++) W1[i] = frand() * 0.15f;
    for (i = 0; i < (int)(sizeof W2 / 4); i++) W2[i] = frand() * 0.1f;
    for (i = 0; i < (int)(sizeof W3 / 4); i++) W3[i] = frand() * 0.3f;
    for (i = 0; i < D1; i++) B1[i] = frand() * 0.1f;
    for (i = 0; i < D2; i++) B2[i] = frand() * 0.1f;
    for (i = 0; i < D3; i++) B3[i] = frand() * 0.1f;
    for (k = 0; k < R; k++)
        for (i = 0; i < B * D0; i++) XS[k][i] = frand() * 2.0f;
    phase(ctx, AICF_PRECISION_FP32, nthreads, iters);
    phase(ctx, AICF_PRECISION_FP16, nthreads, iters);
    aicf_context_destroy(ctx);
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
