/* Soak test (GPU machine): up to a million replays of one exec, or as many as fit in a time
   budget, checking that nothing grows and nothing drifts.

   The model: built through the graph API with fresh random weights (the MLP of
   tests/test_gpu_threads.c, wider: x [16,256] -> Gemm 512 -> Relu -> Gemm 512 (transB) -> Tanh ->
   Gemm 64 -> Softmax), or an ONNX file (--model, float inputs, symbolic dims bound with --dim).
   Two fixed random input sets A and B alternate: replay i uses A when i is even. Every replay's
   output is compared bitwise (memcmp) with the first output of its input set (A's and B's first
   outputs must differ, so a replay that did not run cannot pass), and the first outputs are
   checked against the CPU reference plan (norm-relative error <= 1e-4 at fp32, 2e-2 otherwise).
   Every --sample replays (default 10000) it samples:
     host RSS        /proc/self/statm (resident pages x page size)
     device memory   the driver's free memory (cuMemGetInfo_v2 through libcuda.so.1, loaded here;
                     device-wide, so run it on an otherwise idle GPU), aicf_exec_stats_get's
                     device_bytes and aicf_context_device_info's total
   The first sample is taken after --warmup replays (default 1000). Memory is flat when the last
   and the largest RSS exceed the first by at most --rss-slack KiB (default 1024) and the
   driver's free memory never drops more than --dev-slack KiB (default 4096) below the first
   sample, and device_bytes never changes.

   Usage: build/soak_gpu [--seconds S (180)] [--replays N (1000000)] [--sample N] [--warmup N]
                         [--precision fp32|tf32|fp16] [--model FILE.onnx] [--dim NAME=VALUE]...
                         [--rss-slack KiB] [--dev-slack KiB] [--seed N] [--driver PATH] [--cpu]
   --cpu soaks the CPU reference executor instead (no device needed; host RSS only).
   Stops at N replays or S seconds, whichever comes first; prints one line per sample and the
   summary (replays, seconds, replays/s, RSS first/last/max, device free first/last/min, outputs
   identical), then "N passed, N failed[, N skipped]". Without a CUDA device: a SKIP line with the
   reason, exit 0. `make soak SOAK_ARGS="--seconds 600"` builds and runs it. */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_pass, g_fail;
static uint64_t g_rng;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static float frand(void) {
    float f;
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    f = (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return f == 0.0f ? 0.125f : f;
}
static float* rand_floats(size_t n, float scale) {
    float* v = (float*)malloc(n * sizeof(float) + 1);
    size_t i;
    for (i = 0; i < n; i++) v[i] = frand() * scale;
    return v;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* resident set size in KiB (/proc/self/statm: size resident shared ...) */
static long rss_kib(void) {
    FILE* f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &size, &res) != 2) res = -1;
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- the driver's free device memory, through libcuda directly ---- */
typedef int (*pfn_cuInit)(unsigned);
typedef int (*pfn_cuDeviceGet)(int*, int);
typedef int (*pfn_cuRetain)(void**, int);
typedef int (*pfn_cuRelease)(int);
typedef int (*pfn_cuPush)(void*);
typedef int (*pfn_cuPop)(void**);
typedef int (*pfn_cuMemGetInfo)(size_t*, size_t*);
static struct {
    void* h;
    int dev;
    void* pctx;
    pfn_cuPush push;
    pfn_cuPop pop;
    pfn_cuMemGetInfo meminfo;
    pfn_cuRelease release;
    char why[256];
} DM;

static int devmem_open(const char* path) {
    pfn_cuInit init;
    pfn_cuDeviceGet get;
    pfn_cuRetain retain;
    void* s;
    DM.h = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!DM.h) {
        snprintf(DM.why, sizeof DM.why, "dlopen: %s", dlerror());
        return 0;
    }
#define DM_SYM(var, type, name)                                                                    \
    s = dlsym(DM.h, name);                                                                         \
    if (!s) {                                                                                      \
        snprintf(DM.why, sizeof DM.why, "libcuda lacks %s", name);                                 \
        return 0;                                                                                  \
    }                                                                                              \
    memcpy(&var, &s, sizeof s);
    DM_SYM(init, pfn_cuInit, "cuInit")
    DM_SYM(get, pfn_cuDeviceGet, "cuDeviceGet")
    DM_SYM(retain, pfn_cuRetain, "cuDevicePrimaryCtxRetain")
    DM_SYM(DM.release, pfn_cuRelease, "cuDevicePrimaryCtxRelease_v2")
    DM_SYM(DM.push, pfn_cuPush, "cuCtxPushCurrent_v2")
    DM_SYM(DM.pop, pfn_cuPop, "cuCtxPopCurrent_v2")
    DM_SYM(DM.meminfo, pfn_cuMemGetInfo, "cuMemGetInfo_v2")
#undef DM_SYM
    if (init(0) != 0 || get(&DM.dev, 0) != 0 || retain(&DM.pctx, DM.dev) != 0) {
        snprintf(DM.why, sizeof DM.why, "cuInit / cuDeviceGet / cuDevicePrimaryCtxRetain failed");
        DM.pctx = NULL;
        return 0;
    }
    return 1;
}
/* free device bytes, or 0 when unavailable */
static size_t devmem_free(void) {
    size_t fr = 0, tot = 0;
    void* c;
    if (!DM.pctx || DM.push(DM.pctx) != 0) return 0;
    if (DM.meminfo(&fr, &tot) != 0) fr = 0;
    DM.pop(&c);
    return fr;
}
static void devmem_close(void) {
    if (DM.pctx) DM.release(DM.dev);
    if (DM.h) dlclose(DM.h);
    memset(&DM, 0, sizeof DM);
}

/* ---- the built-in model ---- */
enum { B = 16, D0 = 256, D1 = 512, D2 = 512, D3 = 64 };
static aicf_result build_mlp(aicf_context* ctx, aicf_graph** out) {
    static const int64_t dx[2] = {B, D0}, dw1[2] = {D0, D1}, db1[1] = {D1}, dw2[2] = {D2, D1}, db2[1] = {D2},
                         dw3[2] = {D2, D3}, db3[1] = {D3};
    static const char* const fc1[3] = {"x", "W1", "B1"};
    static const char* const fc2[3] = {"h1", "W2", "B2"};
    static const char* const fc3[3] = {"h2", "W3", "B3"};
    const struct {
        const char* name;
        const int64_t* dims;
        int rank;
        float scale;
    } consts[6] = {{"W1", dw1, 2, 0.08f}, {"B1", db1, 1, 0.1f}, {"W2", dw2, 2, 0.05f},
                   {"B2", db2, 1, 0.1f},  {"W3", dw3, 2, 0.1f}, {"B3", db3, 1, 0.1f}};
    aicf_graph* g = NULL;
    aicf_tensor_desc d;
    aicf_node_desc nd;
    aicf_attr tb, ax;
    aicf_result r;
    int i;
    const char* o;
    const char* in1;
    *out = NULL;
    if ((r = aicf_graph_create(ctx, &g)) != AICF_SUCCESS) return r;
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = 2;
    d.dims = dx;
    if ((r = aicf_graph_add_input(g, &d)) != AICF_SUCCESS) goto fail;
    for (i = 0; i < 6; i++) {
        size_t n = 1;
        int j;
        float* v;
        for (j = 0; j < consts[i].rank; j++) n *= (size_t)consts[i].dims[j];
        v = rand_floats(n, consts[i].scale);
        memset(&d, 0, sizeof d);
        d.name = consts[i].name;
        d.dtype = AICF_DTYPE_FLOAT32;
        d.rank = consts[i].rank;
        d.dims = consts[i].dims;
        d.data = v;
        d.data_bytes = n * 4;
        r = aicf_graph_add_constant(g, &d); /* copied */
        free(v);
        if (r != AICF_SUCCESS) goto fail;
    }
    memset(&tb, 0, sizeof tb);
    tb.name = "transB";
    tb.type = AICF_ATTR_INT;
    tb.i = 1;
    memset(&ax, 0, sizeof ax);
    ax.name = "axis";
    ax.type = AICF_ATTR_INT;
    ax.i = -1;
#define NODE(nm, op, ins, nin, out_, at, nat)                                                      \
    memset(&nd, 0, sizeof nd);                                                                     \
    o = out_;                                                                                      \
    nd.name = nm;                                                                                  \
    nd.op_type = op;                                                                               \
    nd.inputs = ins;                                                                               \
    nd.num_inputs = nin;                                                                           \
    nd.outputs = &o;                                                                               \
    nd.num_outputs = 1;                                                                            \
    nd.attrs = at;                                                                                 \
    nd.num_attrs = nat;                                                                            \
    if ((r = aicf_graph_add_node(g, &nd)) != AICF_SUCCESS) goto fail;
    NODE("fc1", "Gemm", fc1, 3, "a1", NULL, 0)
    in1 = "a1";
    NODE("relu", "Relu", &in1, 1, "h1", NULL, 0)
    NODE("fc2", "Gemm", fc2, 3, "a2", &tb, 1)
    in1 = "a2";
    NODE("tanh", "Tanh", &in1, 1, "h2", NULL, 0)
    NODE("fc3", "Gemm", fc3, 3, "a3", NULL, 0)
    in1 = "a3";
    NODE("softmax", "Softmax", &in1, 1, "y", &ax, 1)
#undef NODE
    if ((r = aicf_graph_add_output(g, "y")) != AICF_SUCCESS) goto fail;
    *out = g;
    return AICF_SUCCESS;
fail:
    aicf_graph_destroy(g);
    return r;
}

/* ---- inputs and outputs of a plan ---- */
typedef struct io {
    int n_in, n_out;
    size_t* in_bytes;
    size_t* out_bytes;
    void** in[2];       /* input sets A and B */
    void** first[2];    /* first output of each set */
    void** cur;         /* the replay's outputs */
} io;

static int io_make(aicf_plan* p, io* x) {
    int i, s;
    aicf_tensor_info ti;
    memset(x, 0, sizeof *x);
    x->n_in = aicf_plan_num_inputs(p);
    x->n_out = aicf_plan_num_outputs(p);
    x->in_bytes = (size_t*)calloc((size_t)x->n_in + 1, sizeof(size_t));
    x->out_bytes = (size_t*)calloc((size_t)x->n_out + 1, sizeof(size_t));
    for (s = 0; s < 2; s++) {
        x->in[s] = (void**)calloc((size_t)x->n_in + 1, sizeof(void*));
        x->first[s] = (void**)calloc((size_t)x->n_out + 1, sizeof(void*));
    }
    x->cur = (void**)calloc((size_t)x->n_out + 1, sizeof(void*));
    for (i = 0; i < x->n_in; i++) {
        if (aicf_plan_input_info(p, i, &ti) != AICF_SUCCESS) return 0;
        if (ti.dtype != AICF_DTYPE_FLOAT32) {
            printf("input %d '%s' is %s: the soak test feeds float32 inputs only\n", i, ti.name, aicf_dtype_name(ti.dtype));
            return 0;
        }
        x->in_bytes[i] = ti.bytes;
        for (s = 0; s < 2; s++) x->in[s][i] = rand_floats(ti.bytes / 4, 1.0f);
    }
    for (i = 0; i < x->n_out; i++) {
        if (aicf_plan_output_info(p, i, &ti) != AICF_SUCCESS) return 0;
        x->out_bytes[i] = ti.bytes;
        for (s = 0; s < 2; s++) x->first[s][i] = malloc(ti.bytes + 1);
        x->cur[i] = malloc(ti.bytes + 1);
    }
    return 1;
}
static void io_free(io* x) {
    int i, s;
    for (s = 0; s < 2; s++) {
        for (i = 0; i < x->n_in && x->in[s]; i++) free(x->in[s][i]);
        for (i = 0; i < x->n_out && x->first[s]; i++) free(x->first[s][i]);
        free(x->in[s]);
        free(x->first[s]);
    }
    for (i = 0; i < x->n_out && x->cur; i++) free(x->cur[i]);
    free(x->cur);
    free(x->in_bytes);
    free(x->out_bytes);
}

/* one replay of set s into outs */
static aicf_result run_set(aicf_exec* e, const io* x, int s, void** outs) {
    aicf_result r = AICF_SUCCESS;
    int i;
    for (i = 0; i < x->n_in && r == AICF_SUCCESS; i++) r = aicf_exec_set_input(e, i, x->in[s][i], x->in_bytes[i]);
    if (r == AICF_SUCCESS) r = aicf_exec_run(e);
    for (i = 0; i < x->n_out && r == AICF_SUCCESS; i++) r = aicf_exec_get_output(e, i, outs[i], x->out_bytes[i]);
    return r;
}

static double rel_err(const float* a, const float* b, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        if (!isfinite(a[i]) && isfinite(b[i])) return INFINITY;
        num += d * d;
        den += (double)b[i] * (double)b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static aicf_result load_graph(aicf_context* ctx, const char* model, int n_dims, char** dims, aicf_graph** g) {
    aicf_result r;
    int i;
    if (!model) return build_mlp(ctx, g);
    r = aicf_graph_load_onnx(ctx, model, NULL, g);
    for (i = 0; i < n_dims && r == AICF_SUCCESS; i++) {
        char name[256];
        const char* eq = strchr(dims[i], '=');
        size_t n = eq ? (size_t)(eq - dims[i]) : 0;
        if (!eq || n >= sizeof name) {
            printf("--dim %s: expected NAME=VALUE\n", dims[i]);
            return AICF_ERROR_INVALID_ARGUMENT;
        }
        memcpy(name, dims[i], n);
        name[n] = 0;
        r = aicf_graph_bind_dim(*g, name, strtoll(eq + 1, NULL, 10));
    }
    return r;
}

int main(int argc, char** argv) {
    double seconds = 180, t0, t_end, tol;
    long max_replays = 1000000, sample = 10000, warmup = 1000, rss_slack = 1024, dev_slack = 4096;
    long i, bad = 0, n_samples = 0, rss0 = -1, rss_last = -1, rss_max = -1;
    size_t dev0 = 0, dev_last = 0, dev_min = 0, dbytes0 = 0;
    int dev_bytes_changed = 0, n_dims = 0, j, s, on_cpu = 0;
    char* dims[64];
    const char* model = NULL;
    const char* driver = NULL;
    const char* seed_env = getenv("AICF_SEED");
    uint64_t seed = 0;
    aicf_precision prec = AICF_PRECISION_FP32;
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_device_info info;
    aicf_graph* g = NULL;
    aicf_plan *p = NULL, *pc = NULL;
    aicf_exec *e = NULL, *ec = NULL;
    aicf_plan_desc pd;
    aicf_exec_stats st;
    aicf_result r;
    io x;
    memset(&x, 0, sizeof x);
    for (j = 1; j < argc; j++) {
        const char* a = argv[j];
        const char* v = j + 1 < argc ? argv[j + 1] : NULL;
        if (!strcmp(a, "--seconds") && v) seconds = atof(argv[++j]);
        else if (!strcmp(a, "--replays") && v) max_replays = atol(argv[++j]);
        else if (!strcmp(a, "--sample") && v) sample = atol(argv[++j]);
        else if (!strcmp(a, "--warmup") && v) warmup = atol(argv[++j]);
        else if (!strcmp(a, "--rss-slack") && v) rss_slack = atol(argv[++j]);
        else if (!strcmp(a, "--dev-slack") && v) dev_slack = atol(argv[++j]);
        else if (!strcmp(a, "--seed") && v) seed = strtoull(argv[++j], NULL, 10);
        else if (!strcmp(a, "--driver") && v) driver = argv[++j];
        else if (!strcmp(a, "--model") && v) model = argv[++j];
        else if (!strcmp(a, "--cpu")) on_cpu = 1;
        else if (!strcmp(a, "--dim") && v && n_dims < 64) dims[n_dims++] = argv[++j];
        else if (!strcmp(a, "--precision") && v) {
            v = argv[++j];
            prec = !strcmp(v, "fp16") ? AICF_PRECISION_FP16 : !strcmp(v, "tf32") ? AICF_PRECISION_TF32 : AICF_PRECISION_FP32;
        } else {
            fprintf(stderr,
                    "usage: %s [--seconds S] [--replays N] [--sample N] [--warmup N] [--precision fp32|tf32|fp16]\n"
                    "          [--model FILE.onnx] [--dim NAME=VALUE]... [--rss-slack KiB] [--dev-slack KiB] [--seed N] "
                    "[--driver PATH]\n",
                    argv[0]);
            return 2;
        }
    }
    if (sample < 1) sample = 1;
    if (warmup < 2) warmup = 2;
    if (!seed) seed = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 5;
    g_rng = seed ? seed : 1;
    tol = prec == AICF_PRECISION_FP32 ? 1e-4 : 2e-2;
    printf("soak_gpu: seed %llu, up to %ld replays or %.0f s, sample every %ld, model %s, precision %s\n",
           (unsigned long long)seed, max_replays, seconds, sample, model ? model : "(built-in MLP)",
           prec == AICF_PRECISION_FP16 ? "fp16" : prec == AICF_PRECISION_TF32 ? "tf32" : "fp32");
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = driver;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return 2;
    r = on_cpu ? AICF_SUCCESS : aicf_context_device_info(ctx, &info);
    if (on_cpu) {
        printf("device: none, --cpu: the CPU reference executor\n");
    } else if (r != AICF_SUCCESS) {
        printf("SKIP soak_gpu: no CUDA device (%s)\n", aicf_last_error(ctx));
        printf("0 passed, 0 failed, 1 skipped\n");
        aicf_context_destroy(ctx);
        return r == AICF_ERROR_NO_DEVICE ? 0 : 1;
    }
    if (!on_cpu)
        printf("device: %s (cc %d.%d), %.1f GiB, driver %d, cuBLASLt %s\n", info.name, info.cc_major, info.cc_minor,
               (double)info.total_memory / (1 << 30), info.driver_version, info.cublaslt_available ? "loaded" : "absent");
    if (!on_cpu && !devmem_open(driver)) printf("note: no driver memory query (%s): device memory is checked through aicf_exec_stats only\n", DM.why);

    r = load_graph(ctx, model, n_dims, dims, &g);
    CHECK(r == AICF_SUCCESS, "model: %s", aicf_last_error(ctx));
    if (r != AICF_SUCCESS) goto end;
    memset(&pd, 0, sizeof pd);
    pd.backend = on_cpu ? AICF_BACKEND_CPU : AICF_BACKEND_CUDA;
    pd.policy.precision = on_cpu ? AICF_PRECISION_FP32 : prec;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "plan: %s", aicf_last_error(ctx));
    pd.backend = AICF_BACKEND_CPU;
    pd.policy.precision = AICF_PRECISION_FP32;
    if (r == AICF_SUCCESS) r = aicf_plan_create(g, &pd, &pc);
    CHECK(r == AICF_SUCCESS, "CPU plan: %s", aicf_last_error(ctx));
    aicf_graph_destroy(g);
    if (r != AICF_SUCCESS) goto end;
    CHECK(io_make(p, &x), "inputs and outputs of the plan");
    r = aicf_exec_create(p, NULL, &e);
    CHECK(r == AICF_SUCCESS, "CUDA exec: %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) r = aicf_exec_create(pc, NULL, &ec);
    if (r != AICF_SUCCESS || !x.cur) goto end;

    /* the first outputs of A and B, against the CPU reference */
    for (s = 0; s < 2; s++) {
        r = run_set(e, &x, s, x.first[s]);
        CHECK(r == AICF_SUCCESS, "first replay of input set %c: %s", "AB"[s], aicf_last_error(ctx));
        if (r != AICF_SUCCESS) goto end;
        r = run_set(ec, &x, s, x.cur);
        CHECK(r == AICF_SUCCESS, "CPU reference of input set %c: %s", "AB"[s], aicf_last_error(ctx));
        for (j = 0; j < x.n_out && r == AICF_SUCCESS; j++) {
            double er = rel_err((const float*)x.first[s][j], (const float*)x.cur[j], x.out_bytes[j] / 4);
            CHECK(er <= tol, "input set %c output %d: CUDA vs CPU rel err %.3g (tolerance %.0e)", "AB"[s], j, er, tol);
        }
    }
    {
        int differ = 0;
        for (j = 0; j < x.n_out; j++) differ |= memcmp(x.first[0][j], x.first[1][j], x.out_bytes[j]) != 0;
        CHECK(differ, "the outputs of input sets A and B are identical: the check could not see a replay that did not run");
    }
    aicf_exec_destroy(ec);
    ec = NULL;
    aicf_plan_destroy(pc);
    pc = NULL;

    t0 = now_s();
    t_end = t0 + seconds;
    printf("%10s %9s %10s %14s %14s\n", "replays", "seconds", "rss KiB", "dev free MiB", "exec dev MiB");
    for (i = 0; i < max_replays; i++) {
        int set = (int)(i & 1), differ = 0;
        r = run_set(e, &x, set, x.cur);
        if (r != AICF_SUCCESS) {
            CHECK(0, "replay %ld: %s", i, aicf_last_error(ctx));
            break;
        }
        for (j = 0; j < x.n_out; j++) differ |= memcmp(x.cur[j], x.first[set][j], x.out_bytes[j]) != 0;
        if (differ && bad++ < 5) printf("FAIL replay %ld (input set %c): output differs from the first replay\n", i, "AB"[set]);
        if (i + 1 == warmup || (i + 1 > warmup && (i + 1 - warmup) % sample == 0) || i + 1 == max_replays ||
            ((i & 255) == 255 && now_s() >= t_end)) {
            long rss = rss_kib();
            size_t fr = devmem_free();
            aicf_exec_stats_get(e, &st);
            if (n_samples == 0) {
                rss0 = rss_max = rss;
                dev0 = dev_min = fr;
                dbytes0 = st.device_bytes;
            }
            n_samples++;
            rss_last = rss;
            dev_last = fr;
            if (rss > rss_max) rss_max = rss;
            if (fr && fr < dev_min) dev_min = fr;
            dev_bytes_changed |= st.device_bytes != dbytes0;
            printf("%10ld %9.1f %10ld %14.1f %14.1f\n", i + 1, now_s() - t0, rss, (double)fr / (1 << 20),
                   (double)st.device_bytes / (1 << 20));
            fflush(stdout);
            if (now_s() >= t_end) {
                i++;
                break;
            }
        }
    }
    {
        double dt = now_s() - t0;
        printf("soak: %ld replays in %.1f s (%.0f replays/s); RSS KiB first %ld last %ld max %ld; device free MiB first %.1f "
               "last %.1f min %.1f; exec device bytes %zu%s; outputs identical to the first replay: %s (%ld differ)\n",
               i, dt, dt > 0 ? (double)i / dt : 0.0, rss0, rss_last, rss_max, (double)dev0 / (1 << 20),
               (double)dev_last / (1 << 20), (double)dev_min / (1 << 20), dbytes0, dev_bytes_changed ? " (changed)" : "",
               bad ? "no" : "yes", bad);
    }
    CHECK(bad == 0, "%ld replays differ from the first replay of their input set", bad);
    CHECK(n_samples >= 2, "only %ld memory samples (raise --seconds or lower --sample)", n_samples);
    CHECK(rss0 > 0 && rss_last - rss0 <= rss_slack && rss_max - rss0 <= rss_slack,
          "host RSS grew: first %ld KiB, last %ld, max %ld (slack %ld KiB)", rss0, rss_last, rss_max, rss_slack);
    CHECK(!dev_bytes_changed, "aicf_exec_stats device_bytes changed during the soak");
    if (dev0)
        CHECK(dev_min + (size_t)dev_slack * 1024 >= dev0, "device free memory dropped: first %zu, min %zu bytes (slack %ld KiB)",
              dev0, dev_min, dev_slack);
end:
    aicf_exec_destroy(ec);
    aicf_plan_destroy(pc);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    io_free(&x);
    devmem_close();
    aicf_context_destroy(ctx);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
