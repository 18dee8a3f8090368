/* One provoking case per result code: for every error code of the AICF_RESULTS X-macro
   (src/10_api.h) a call through the public API that fails with exactly that code, then checks
   that
     - aicf_last_error names the node, tensor, field or driver call at fault;
     - the caller's data is untouched (inputs compared with a copy taken before the call, output
       buffers of failed calls still hold the pattern written before);
     - the context is still usable: the failed object takes a following valid call, and a fresh
       graph (MatMul + Add + Relu, fresh random data) plans, runs on the CPU and matches a
       float64 reference computed here.
   The table is driven by the X-macro itself: a code without a case in CASES[] fails the test,
   so a new code cannot be added without a test of it. AICF_ERROR_PLAN_MISMATCH is listed as
   covered by tests/test_plan_io.c (aicf_plan_load), reported as skipped here.

   The CUDA-side codes use the fake driver (tests/fake_libcuda.c, build/fakecuda/libcuda.so.1),
   which also serves as a fake cuBLASLt (aicf_context_desc.cublaslt_path at the same file):
     NO_DEVICE            a driver path that does not exist
     NO_KERNEL            a Relu on a fake device of compute capability 7.5 (no image of the
                          table fits; with an empty table, no kernel at all)
     CUDA                 cuGraphLaunch / cuGraphInstantiateWithFlags made to fail
     CUBLAS               cublasLtMatmul made to fail while the exec captures the GEMM
     DEVICE_OUT_OF_MEMORY weights larger than the fake device's memory (fakecuda_set_mem)
   Fresh random data every run (the seed is printed; AICF_SEED=N repeats a run);
   AICF_TEST_VERBOSE=1 prints every message checked.
   Usage: build/test_errors [fake libcuda path] (default $AICF_FAKE_CUDA, then
   build/fakecuda/libcuda.so.1). Ends with "N passed, N failed, N skipped". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail, g_skip, g_verbose;
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

/* the code, and every needle (NULL-terminated list) in the context's message */
static int msg_has(const aicf_context* ctx, const char* const* needles) {
    int i;
    for (i = 0; needles[i]; i++)
        if (!strstr(aicf_last_error(ctx), needles[i])) return 0;
    return 1;
}
#define CHECK_ERR(ctx, r, code, ...)                                                               \
    do {                                                                                           \
        static const char* const nd_[] = {__VA_ARGS__, NULL};                                      \
        if (g_verbose) printf("  %s: %s\n", aicf_result_str(r), aicf_last_error(ctx));             \
        CHECK((r) == (code) && msg_has((ctx), nd_), "expected %s naming \"%s\"..., got %s: \"%s\"", \
              aicf_result_str(code), nd_[0], aicf_result_str(r), aicf_last_error(ctx));            \
    } while (0)

static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
/* uniform in [-1, 1), never exactly 0 */
static float frand(void) {
    float f = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return f == 0.0f ? 0.25f : f;
}
static void fill(float* v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) v[i] = frand();
}
static void* dup_bytes(const void* p, size_t n) {
    void* q = malloc(n ? n : 1);
    if (n) memcpy(q, p, n);
    return q;
}

/* ---- the fake driver's control functions ---- */
static struct {
    void* h;
    void (*reset)(void);
    void (*fail)(const char*, int, int);
    void (*set_device)(int, int, int);
    long (*live)(void);
    int (*ctx_depth)(void);
    void (*set_mem)(size_t);
    size_t (*mem_used)(void);
    void (*set_alloc_align)(size_t);
    void (*lt_fail)(const char*, int, int);
    void (*lt_set_results)(int);
    long (*lt_live)(void);
} FK;
static const char* g_fake_path;
static char g_fake_why[512];

static int fake_load(const char* path) {
    void* s;
    FK.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!FK.h) {
        const char* e = dlerror();
        snprintf(g_fake_why, sizeof g_fake_why, "dlopen %s: %s", path, e ? e : "?");
        return 0;
    }
#define FK_SYM(field, name)                                                                        \
    s = dlsym(FK.h, name);                                                                         \
    if (!s) {                                                                                      \
        snprintf(g_fake_why, sizeof g_fake_why, "%s lacks %s (rebuild it: make %s)", path, name, path); \
        return 0;                                                                                  \
    }                                                                                              \
    memcpy(&FK.field, &s, sizeof s);
    FK_SYM(reset, "fakecuda_reset")
    FK_SYM(fail, "fakecuda_fail")
    FK_SYM(set_device, "fakecuda_set_device")
    FK_SYM(live, "fakecuda_live")
    FK_SYM(ctx_depth, "fakecuda_ctx_depth")
    FK_SYM(set_mem, "fakecuda_set_mem")
    FK_SYM(mem_used, "fakecuda_mem_used")
    FK_SYM(set_alloc_align, "fakecuda_set_alloc_align")
    FK_SYM(lt_fail, "fakecuda_lt_fail")
    FK_SYM(lt_set_results, "fakecuda_lt_set_results")
    FK_SYM(lt_live, "fakecuda_lt_live")
#undef FK_SYM
    return 1;
}

/* resets every rule of the fake: one device of compute capability 8.0, unlimited memory
   handed out 256-byte aligned (as the real driver does; cuBLASLt plans assume it), one cuBLASLt
   algorithm, no failures */
static void fake_defaults(void) {
    FK.reset();
    FK.fail(NULL, 0, 0);
    FK.set_device(1, 8, 0);
    FK.set_mem(0);
    FK.set_alloc_align(256);
    FK.lt_fail(NULL, 0, 0);
    FK.lt_set_results(1);
}

/* a context on the fake driver, with the fake as cuBLASLt too */
static aicf_context* fake_ctx(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = g_fake_path;
    cd.cublaslt_path = g_fake_path;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    return ctx;
}

static aicf_context* cpu_ctx(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    return ctx;
}

/* ---- a budgeted allocator: allocations past `cap` live bytes return NULL ---- */
typedef struct budget {
    size_t live, cap;
    long blocks;
} budget;
static void* b_alloc(size_t n, void* user) {
    budget* b = (budget*)user;
    unsigned char* p;
    if (n > b->cap || b->live > b->cap - n) return NULL;
    p = (unsigned char*)malloc(n + 16);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    b->live += n;
    b->blocks++;
    return p + 16;
}
static void b_free(void* q, void* user) {
    budget* b = (budget*)user;
    size_t n;
    if (!q) return;
    memcpy(&n, (unsigned char*)q - 16, sizeof n);
    b->live -= n;
    b->blocks--;
    free((unsigned char*)q - 16);
}

/* ---- graph helpers ---- */
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

static aicf_result add_node(aicf_graph* g, const char* name, const char* op, const char* const* in, int nin,
                            const char* const* out, int nout) {
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = nin;
    nd.outputs = out;
    nd.num_outputs = nout;
    return aicf_graph_add_node(g, &nd);
}

/* y = Relu(x W + b), x [M,K], W [K,N], b [N]; returns the graph or NULL */
typedef struct mlp {
    int64_t M, K, N;
    float *x, *w, *b, *ref; /* ref: float64 reference of y, rounded to float */
} mlp;

static void mlp_init(mlp* m, int64_t M, int64_t K, int64_t N) {
    int64_t i, j, k;
    m->M = M;
    m->K = K;
    m->N = N;
    m->x = (float*)malloc((size_t)(M * K) * 4);
    m->w = (float*)malloc((size_t)(K * N) * 4);
    m->b = (float*)malloc((size_t)N * 4);
    m->ref = (float*)malloc((size_t)(M * N) * 4);
    fill(m->x, (size_t)(M * K));
    fill(m->w, (size_t)(K * N));
    fill(m->b, (size_t)N);
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double acc = m->b[j];
            for (k = 0; k < K; k++) acc += (double)m->x[i * K + k] * (double)m->w[k * N + j];
            m->ref[i * N + j] = (float)(acc > 0 ? acc : 0);
        }
}
static void mlp_free(mlp* m) {
    free(m->x);
    free(m->w);
    free(m->b);
    free(m->ref);
}

/* builds the graph "x -> MatMul 'mm' (W) -> Add 'bias' (b) -> Relu 'act' -> y"; with relu = 0
   the Add output is y */
static aicf_result mlp_graph(aicf_context* ctx, const mlp* m, int relu, aicf_graph** out) {
    aicf_graph* g = NULL;
    int64_t xd[2], wd[2], bd[1];
    aicf_tensor_desc d;
    aicf_result r;
    static const char* const mm_in[2] = {"x", "W"};
    static const char* const mm_out[1] = {"xw"};
    static const char* const add_in[2] = {"xw", "b"};
    static const char* const add_out_relu[1] = {"xwb"};
    static const char* const add_out_y[1] = {"y"};
    static const char* const act_in[1] = {"xwb"};
    static const char* const act_out[1] = {"y"};
    *out = NULL;
    xd[0] = m->M;
    xd[1] = m->K;
    wd[0] = m->K;
    wd[1] = m->N;
    bd[0] = m->N;
    if ((r = aicf_graph_create(ctx, &g)) != AICF_SUCCESS) return r;
    d = tdesc("x", 2, xd, NULL, 0);
    if ((r = aicf_graph_add_input(g, &d)) != AICF_SUCCESS) goto fail;
    d = tdesc("W", 2, wd, m->w, (size_t)(m->K * m->N) * 4);
    if ((r = aicf_graph_add_constant(g, &d)) != AICF_SUCCESS) goto fail;
    d = tdesc("b", 1, bd, m->b, (size_t)m->N * 4);
    if ((r = aicf_graph_add_constant(g, &d)) != AICF_SUCCESS) goto fail;
    if ((r = add_node(g, "mm", "MatMul", mm_in, 2, mm_out, 1)) != AICF_SUCCESS) goto fail;
    if ((r = add_node(g, "bias", "Add", add_in, 2, relu ? add_out_relu : add_out_y, 1)) != AICF_SUCCESS) goto fail;
    if (relu && (r = add_node(g, "act", "Relu", act_in, 1, act_out, 1)) != AICF_SUCCESS) goto fail;
    if ((r = aicf_graph_add_output(g, "y")) != AICF_SUCCESS) goto fail;
    *out = g;
    return AICF_SUCCESS;
fail:
    aicf_graph_destroy(g);
    return r;
}

static int close_to(const float* got, const float* want, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-5f + 1e-5f * fabsf(want[i]))) return 0;
    return 1;
}

static aicf_plan_desc cpu_pd(void) {
    aicf_plan_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    return pd;
}

/* The context is usable: a fresh graph plans, runs on the CPU and matches the reference. */
static int probe(aicf_context* ctx, const char* after) {
    mlp m;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd = cpu_pd();
    float* y;
    int ok;
    mlp_init(&m, 3, 5, 4);
    y = (float*)malloc((size_t)(m.M * m.N) * 4);
    ok = mlp_graph(ctx, &m, 1, &g) == AICF_SUCCESS && aicf_plan_create(g, &pd, &p) == AICF_SUCCESS &&
         aicf_exec_create(p, NULL, &e) == AICF_SUCCESS &&
         aicf_exec_set_input(e, 0, m.x, (size_t)(m.M * m.K) * 4) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS &&
         aicf_exec_get_output(e, 0, y, (size_t)(m.M * m.N) * 4) == AICF_SUCCESS && close_to(y, m.ref, (size_t)(m.M * m.N));
    CHECK(ok, "after %s: the context no longer plans and runs a fresh graph correctly (%s)", after, aicf_last_error(ctx));
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    free(y);
    mlp_free(&m);
    return ok;
}

/* a CPU plan + exec of m (relu on) */
static int cpu_exec(aicf_context* ctx, const mlp* m, aicf_plan** p, aicf_exec** e) {
    aicf_graph* g = NULL;
    aicf_plan_desc pd = cpu_pd();
    int ok = mlp_graph(ctx, m, 1, &g) == AICF_SUCCESS && aicf_plan_create(g, &pd, p) == AICF_SUCCESS &&
             aicf_exec_create(*p, NULL, e) == AICF_SUCCESS;
    aicf_graph_destroy(g);
    CHECK(ok, "CPU plan + exec: %s", aicf_last_error(ctx));
    return ok;
}

/* runs e on m.x and compares with the reference */
static int run_ok(aicf_exec* e, const mlp* m) {
    float* y = (float*)malloc((size_t)(m->M * m->N) * 4);
    int ok = aicf_exec_set_input(e, 0, m->x, (size_t)(m->M * m->K) * 4) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS &&
             aicf_exec_get_output(e, 0, y, (size_t)(m->M * m->N) * 4) == AICF_SUCCESS && close_to(y, m->ref, (size_t)(m->M * m->N));
    free(y);
    return ok;
}

/* ---- a minimal ONNX writer (protobuf) ---- */
typedef struct pbuf {
    unsigned char* p;
    size_t n, cap;
} pbuf;
static void pb_put(pbuf* b, const void* d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char*)realloc(b->p, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void pb_varint(pbuf* b, uint64_t v) {
    do {
        unsigned char c = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) c |= 0x80;
        pb_put(b, &c, 1);
    } while (v);
}
static void pb_vint(pbuf* b, int field, int64_t v) {
    pb_varint(b, (uint64_t)field << 3);
    pb_varint(b, (uint64_t)v);
}
static void pb_bytes(pbuf* b, int field, const void* d, size_t n) {
    pb_varint(b, ((uint64_t)field << 3) | 2);
    pb_varint(b, n);
    pb_put(b, d, n);
}
static void pb_str(pbuf* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_msg(pbuf* b, int field, pbuf* sub) {
    pb_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}
/* ValueInfoProto of a float tensor [n] */
static void pb_vi(pbuf* g, int field, const char* name, int64_t n) {
    pbuf vi = {0, 0, 0}, tp = {0, 0, 0}, tt = {0, 0, 0}, sh = {0, 0, 0}, d = {0, 0, 0};
    pb_str(&vi, 1, name);
    pb_vint(&tt, 1, 1);
    pb_vint(&d, 1, n);
    pb_msg(&sh, 1, &d);
    pb_msg(&tt, 2, &sh);
    pb_msg(&tp, 1, &tt);
    pb_msg(&vi, 2, &tp);
    pb_msg(g, field, &vi);
}
/* ModelProto: y = Relu(x), x and y float [n] */
static pbuf onnx_relu(int64_t n) {
    pbuf m = {0, 0, 0}, g = {0, 0, 0}, nd = {0, 0, 0}, ops = {0, 0, 0};
    pb_vint(&m, 1, 8);
    pb_str(&ops, 1, "");
    pb_vint(&ops, 2, 17);
    pb_msg(&m, 8, &ops);
    pb_str(&nd, 1, "x");
    pb_str(&nd, 2, "y");
    pb_str(&nd, 3, "act");
    pb_str(&nd, 4, "Relu");
    pb_msg(&g, 1, &nd);
    pb_str(&g, 2, "relu_graph");
    pb_vi(&g, 11, "x", n);
    pb_vi(&g, 12, "y", n);
    pb_msg(&m, 7, &g);
    return m;
}

/* ==== the cases: each provokes its code (the return value) and checks the rest ==== */

/* -1: an input of the wrong size; an output read with the wrong size */
static aicf_result case_invalid_argument(void) {
    aicf_context* ctx = cpu_ctx();
    mlp m;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r = AICF_SUCCESS, r2;
    float *xcopy, *y;
    size_t xb, yb, i;
    int untouched = 1;
    mlp_init(&m, 4, 6, 5);
    xb = (size_t)(m.M * m.K) * 4;
    yb = (size_t)(m.M * m.N) * 4;
    xcopy = (float*)dup_bytes(m.x, xb);
    y = (float*)malloc(yb);
    if (cpu_exec(ctx, &m, &p, &e)) {
        r = aicf_exec_set_input(e, 0, m.x, xb - 4);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_set_input", "input 0 'x'", "got");
        CHECK(memcmp(m.x, xcopy, xb) == 0, "set_input: the caller's input changed");
        CHECK(aicf_exec_set_input(e, 0, m.x, xb) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS,
              "the exec takes a valid input after the failure: %s", aicf_last_error(ctx));
        memset(y, 0x5c, yb);
        r2 = aicf_exec_get_output(e, 0, y, yb + 4);
        CHECK_ERR(ctx, r2, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_get_output", "output 0 'y'");
        for (i = 0; i < yb; i++) untouched &= ((unsigned char*)y)[i] == 0x5c;
        CHECK(untouched, "get_output of the wrong size wrote into the caller's buffer");
        r2 = aicf_exec_set_input(e, 3, m.x, xb);
        CHECK_ERR(ctx, r2, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_set_input", "index 3");
        CHECK(run_ok(e, &m), "the exec still runs correctly: %s", aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    probe(ctx, "INVALID_ARGUMENT");
    aicf_context_destroy(ctx);
    free(xcopy);
    free(y);
    mlp_free(&m);
    return r;
}

/* -2: the context's allocator refuses: a constant's copy, then an exec's host arena */
static aicf_result case_out_of_memory(void) {
    budget bud = {0, (size_t)1 << 30, 0};
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd = cpu_pd();
    aicf_tensor_desc d;
    aicf_result r = AICF_SUCCESS, r2;
    int64_t bigd[2] = {256, 256};
    size_t bigb = 256 * 256 * 4;
    float *big = (float*)malloc(bigb), *bigcopy;
    mlp m;
    fill(big, 256 * 256);
    bigcopy = (float*)dup_bytes(big, bigb);
    mlp_init(&m, 64, 32, 64);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = b_alloc;
    cd.allocator.free = b_free;
    cd.allocator.user = &bud;
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context with a budgeted allocator");
    if (!ctx) return AICF_SUCCESS;
    CHECK(mlp_graph(ctx, &m, 1, &g) == AICF_SUCCESS, "graph: %s", aicf_last_error(ctx));
    /* the copy of a 256 KiB constant does not fit */
    bud.cap = bud.live + bigb / 2;
    d = tdesc("big_w", 2, bigd, big, bigb);
    r = aicf_graph_add_constant(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_OUT_OF_MEMORY, "'big_w'", "out of memory");
    CHECK(memcmp(big, bigcopy, bigb) == 0, "add_constant: the caller's data changed");
    bud.cap = (size_t)1 << 30;
    /* transactional: the failed call must not leave a half-made 'big_w' behind (the size and
       data_bytes checks of the same function do pop it) */
    r2 = aicf_graph_add_constant(g, &d);
    CHECK(r2 == AICF_SUCCESS, "a failed aicf_graph_add_constant (out of memory) left tensor 'big_w' in the graph: the "
          "same call with memory available fails with %s: %s", aicf_result_str(r2), aicf_last_error(ctx));
    if (r2 != AICF_SUCCESS) { /* go on under another name */
        d.name = "big_w2";
        CHECK(aicf_graph_add_constant(g, &d) == AICF_SUCCESS, "the graph takes a constant once memory is there: %s",
              aicf_last_error(ctx));
    }
    /* the exec's host arena (activations of [64,64] floats) does not fit */
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "plan: %s", aicf_last_error(ctx));
    if (p) {
        aicf_plan_stats st;
        aicf_plan_stats_get(p, &st);
        bud.cap = bud.live + st.arena_bytes / 2;
        r2 = aicf_exec_create(p, NULL, &e);
        CHECK_ERR(ctx, r2, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create", "arena");
        CHECK(e == NULL, "no exec returned on failure");
        bud.cap = (size_t)1 << 30;
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && run_ok(e, &m), "the plan makes a working exec afterwards: %s",
              aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    probe(ctx, "OUT_OF_MEMORY");
    aicf_context_destroy(ctx);
    CHECK(bud.blocks == 0 && bud.live == 0, "%ld blocks (%zu bytes) not freed", bud.blocks, bud.live);
    free(big);
    free(bigcopy);
    mlp_free(&m);
    return r;
}

/* -3: a model file that does not exist; a .pb written into a missing directory */
static aicf_result case_io(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    aicf_host_tensor t;
    aicf_result r, r2;
    float v[6], vcopy[6];
    fill(v, 6);
    memcpy(vcopy, v, sizeof v);
    r = aicf_graph_load_onnx(ctx, "/nonexistent-aicf-dir/model.onnx", NULL, &g);
    CHECK_ERR(ctx, r, AICF_ERROR_IO, "/nonexistent-aicf-dir/model.onnx");
    CHECK(g == NULL, "no graph returned on failure");
    memset(&t, 0, sizeof t);
    t.name = (char*)"t";
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = 2;
    t.dims[0] = 2;
    t.dims[1] = 3;
    t.data = v;
    t.bytes = sizeof v;
    r2 = aicf_tensor_write_pb(ctx, "/nonexistent-aicf-dir/t.pb", &t);
    CHECK_ERR(ctx, r2, AICF_ERROR_IO, "/nonexistent-aicf-dir/t.pb");
    CHECK(memcmp(v, vcopy, sizeof v) == 0 && t.bytes == sizeof v && t.data == v, "write_pb: the caller's tensor changed");
    probe(ctx, "IO");
    aicf_context_destroy(ctx);
    return r;
}

/* -4: a truncated ONNX file; a node reading a name nothing defines */
static aicf_result case_invalid_model(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    aicf_result r, r2;
    pbuf m = onnx_relu(7);
    unsigned char* copy = (unsigned char*)dup_bytes(m.p, m.n);
    static const char* const in[1] = {"nope"};
    static const char* const out[1] = {"z"};
    /* the whole file loads */
    r = aicf_graph_load_onnx_memory(ctx, m.p, m.n, NULL, &g);
    CHECK(r == AICF_SUCCESS && aicf_graph_num_nodes(g) == 1, "the intact model loads: %s", aicf_last_error(ctx));
    aicf_graph_destroy(g);
    g = NULL;
    /* cut inside the GraphProto */
    r = aicf_graph_load_onnx_memory(ctx, m.p, m.n - 3, NULL, &g);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "onnx", "byte");
    CHECK(g == NULL && memcmp(m.p, copy, m.n) == 0, "no graph on failure, the caller's bytes unchanged");
    /* the builder: an input nothing defines */
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "graph");
    r2 = add_node(g, "orphan", "Relu", in, 1, out, 1);
    CHECK_ERR(ctx, r2, AICF_ERROR_INVALID_MODEL, "'orphan' (Relu)", "input 0 'nope'");
    CHECK(aicf_graph_num_nodes(g) == 0, "the failed node was not added");
    aicf_graph_destroy(g);
    probe(ctx, "INVALID_MODEL");
    aicf_context_destroy(ctx);
    free(m.p);
    free(copy);
    return r;
}

/* -5: an op aicf does not know; an attribute type it does not know */
static aicf_result case_unsupported(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    aicf_result r, r2;
    int64_t xd[1] = {4};
    aicf_tensor_desc d = tdesc("x", 1, xd, NULL, 0);
    static const char* const in[1] = {"x"};
    static const char* const out[1] = {"y"};
    aicf_node_desc nd;
    aicf_attr a;
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS && aicf_graph_add_input(g, &d) == AICF_SUCCESS, "graph");
    r = add_node(g, "weird", "NoSuchOperator", in, 1, out, 1);
    CHECK_ERR(ctx, r, AICF_ERROR_UNSUPPORTED, "'weird' (NoSuchOperator)");
    memset(&nd, 0, sizeof nd);
    memset(&a, 0, sizeof a);
    a.name = "alpha";
    a.type = (aicf_attr_type)42;
    nd.name = "lrelu";
    nd.op_type = "LeakyRelu";
    nd.inputs = in;
    nd.num_inputs = 1;
    nd.outputs = out;
    nd.num_outputs = 1;
    nd.attrs = &a;
    nd.num_attrs = 1;
    r2 = aicf_graph_add_node(g, &nd);
    CHECK_ERR(ctx, r2, AICF_ERROR_UNSUPPORTED, "'lrelu' (LeakyRelu)", "'alpha'");
    CHECK(add_node(g, "act", "Relu", in, 1, out, 1) == AICF_SUCCESS && aicf_graph_add_output(g, "y") == AICF_SUCCESS,
          "the graph takes a valid node afterwards, with the name the failed ones tried: %s", aicf_last_error(ctx));
    aicf_graph_destroy(g);
    probe(ctx, "UNSUPPORTED");
    aicf_context_destroy(ctx);
    return r;
}

/* -6: MatMul of [2,3] by [5,4]; an input whose symbolic dim is never bound */
static aicf_result case_shape(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_plan_desc pd = cpu_pd();
    aicf_result r, r2;
    int64_t xd[2] = {2, 3}, wd[2] = {5, 4}, sd[2] = {-1, 3};
    const char* params[2] = {"batch", NULL};
    float w[20], wcopy[20];
    aicf_tensor_desc d;
    static const char* const in[2] = {"x", "W"};
    static const char* const out[1] = {"y"};
    fill(w, 20);
    memcpy(wcopy, w, sizeof w);
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "graph");
    d = tdesc("x", 2, xd, NULL, 0);
    aicf_graph_add_input(g, &d);
    d = tdesc("W", 2, wd, w, sizeof w);
    d.borrow = 1; /* the plan must still not write into the caller's weights */
    aicf_graph_add_constant(g, &d);
    add_node(g, "mm", "MatMul", in, 2, out, 1);
    aicf_graph_add_output(g, "y");
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_SHAPE, "'mm' (MatMul)");
    CHECK(p == NULL && memcmp(w, wcopy, sizeof w) == 0, "no plan on failure, the borrowed weights unchanged");
    aicf_graph_destroy(g);
    /* unbound dim */
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "graph");
    d = tdesc("s", 2, sd, NULL, 0);
    d.dim_params = params;
    CHECK(aicf_graph_add_input(g, &d) == AICF_SUCCESS, "symbolic input: %s", aicf_last_error(ctx));
    {
        static const char* const rin[1] = {"s"};
        static const char* const rout[1] = {"t"};
        add_node(g, "act", "Relu", rin, 1, rout, 1);
    }
    aicf_graph_add_output(g, "t");
    r2 = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r2, AICF_ERROR_SHAPE, "input 's'", "'batch'");
    CHECK(aicf_graph_bind_dim(g, "batch", 2) == AICF_SUCCESS && aicf_plan_create(g, &pd, &p) == AICF_SUCCESS,
          "the same graph plans once the dim is bound: %s", aicf_last_error(ctx));
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    probe(ctx, "SHAPE");
    aicf_context_destroy(ctx);
    return r;
}

/* -7: an output name nothing defines; bind_input_value of a name that is no input */
static aicf_result case_not_found(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    mlp m;
    aicf_result r, r2;
    float v[4] = {1, 2, 3, 4}, vcopy[4];
    memcpy(vcopy, v, sizeof v);
    mlp_init(&m, 2, 3, 4);
    CHECK(mlp_graph(ctx, &m, 1, &g) == AICF_SUCCESS, "graph");
    r = aicf_graph_add_output(g, "no_such_tensor");
    CHECK_ERR(ctx, r, AICF_ERROR_NOT_FOUND, "'no_such_tensor'");
    CHECK(aicf_graph_num_outputs(g) == 1, "no output added");
    r2 = aicf_graph_bind_input_value(g, "xw", v, sizeof v);
    CHECK_ERR(ctx, r2, AICF_ERROR_NOT_FOUND, "'xw'", "not a graph input");
    CHECK(memcmp(v, vcopy, sizeof v) == 0, "bind_input_value: the caller's data changed");
    CHECK(aicf_graph_add_output(g, "xw") == AICF_SUCCESS, "add_output of a defined name afterwards: %s", aicf_last_error(ctx));
    aicf_graph_destroy(g);
    probe(ctx, "NOT_FOUND");
    aicf_context_destroy(ctx);
    mlp_free(&m);
    return r;
}

/* -8: an input of rank 9 (test_limits.c covers every limit) */
static aicf_result case_limit(void) {
    aicf_context* ctx = cpu_ctx();
    aicf_graph* g = NULL;
    aicf_result r;
    int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2}, dcopy[9];
    aicf_tensor_desc d = tdesc("deep", 9, dims, NULL, 0);
    memcpy(dcopy, dims, sizeof dims);
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "graph");
    r = aicf_graph_add_input(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_LIMIT, "'deep'", "rank 9");
    CHECK(memcmp(dims, dcopy, sizeof dims) == 0 && aicf_graph_num_inputs(g) == 0, "dims unchanged, no input added");
    d.rank = 8;
    CHECK(aicf_graph_add_input(g, &d) == AICF_SUCCESS, "the same name at rank 8 afterwards: %s", aicf_last_error(ctx));
    aicf_graph_destroy(g);
    probe(ctx, "LIMIT");
    aicf_context_destroy(ctx);
    return r;
}

/* -9: a driver path that does not exist */
static aicf_result case_no_device(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_device_info info;
    aicf_result r, r2;
    mlp m;
    mlp_init(&m, 2, 3, 4);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = "/nonexistent-aicf-dir/libcuda.so.1";
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context");
    CHECK(mlp_graph(ctx, &m, 1, &g) == AICF_SUCCESS, "graph");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "/nonexistent-aicf-dir/libcuda.so.1", "not found");
    CHECK(p == NULL, "no plan on failure");
    r2 = aicf_context_device_info(ctx, &info);
    CHECK_ERR(ctx, r2, AICF_ERROR_NO_DEVICE, "/nonexistent-aicf-dir/libcuda.so.1");
    CHECK(info.cuda_available == 0, "cuda_available 0");
    /* DEFAULT without fallback names the way out; with it, the CPU plan */
    pd.backend = AICF_BACKEND_DEFAULT;
    r2 = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r2, AICF_ERROR_NO_DEVICE, "allow_cpu_fallback");
    pd.policy.allow_cpu_fallback = 1;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "DEFAULT with CPU fallback plans: %s", aicf_last_error(ctx));
    if (p) {
        aicf_exec* e = NULL;
        aicf_plan_stats st;
        aicf_plan_stats_get(p, &st);
        CHECK(st.backend == AICF_BACKEND_CPU, "fallback plan on the CPU");
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && run_ok(e, &m), "fallback plan runs: %s", aicf_last_error(ctx));
        aicf_exec_destroy(e);
    }
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    probe(ctx, "NO_DEVICE");
    aicf_context_destroy(ctx);
    mlp_free(&m);
    return r;
}

static int fake_ready(void) {
    if (!FK.h) CHECK(0, "the fake driver is needed for the CUDA-side codes: %s", g_fake_why);
    return FK.h != NULL;
}

/* -10: Sigmoid (a generated kernel, nothing to fuse it into) on a fake device of compute
   capability 7.5 */
static aicf_result case_no_kernel(void) {
    aicf_context* ctx;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_result r = AICF_SUCCESS;
    int64_t xd[2] = {3, 5};
    aicf_tensor_desc d = tdesc("x", 2, xd, NULL, 0);
    static const char* const in[1] = {"x"};
    static const char* const out[1] = {"y"};
    if (!fake_ready()) return AICF_SUCCESS;
    fake_defaults();
    FK.set_device(1, 7, 5);
    ctx = fake_ctx();
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS && aicf_graph_add_input(g, &d) == AICF_SUCCESS &&
              add_node(g, "squash", "Sigmoid", in, 1, out, 1) == AICF_SUCCESS && aicf_graph_add_output(g, "y") == AICF_SUCCESS,
          "graph: %s", aicf_last_error(ctx));
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_KERNEL, "'squash'", "Sigmoid");
    if (AICF__KT_NUM_IMAGES > 0) /* with kernels in the table, the message says why none fits */
        CHECK(strstr(aicf_last_error(ctx), "7.5") != NULL, "names the compute capability: %s", aicf_last_error(ctx));
    CHECK(p == NULL, "no plan on failure");
    pd.backend = AICF_BACKEND_CPU;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "the same graph plans on the CPU: %s", aicf_last_error(ctx));
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    probe(ctx, "NO_KERNEL");
    aicf_context_destroy(ctx);
    CHECK(FK.ctx_depth() == 0, "driver context stack balanced");
    return r;
}

/* A CUDA plan on the fake that needs no generated kernel: y = x W (cuBLASLt), x [M,K]. */
static aicf_result fake_gemm_plan(aicf_context* ctx, const mlp* m, aicf_plan** p) {
    aicf_graph* g = NULL;
    aicf_plan_desc pd;
    aicf_result r = mlp_graph(ctx, m, 0, &g);
    *p = NULL;
    if (r != AICF_SUCCESS) return r;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.matmul_algo = AICF_MATMUL_CUBLASLT; /* bias as the cuBLASLt epilogue */
    r = aicf_plan_create(g, &pd, p);
    aicf_graph_destroy(g);
    return r;
}

/* -11: the graph launch fails; the graph instantiation fails */
static aicf_result case_cuda(void) {
    aicf_context* ctx;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r = AICF_SUCCESS, r2;
    long live0;
    mlp m;
    float* xcopy;
    size_t xb;
    if (!fake_ready()) return AICF_SUCCESS;
    fake_defaults();
    live0 = FK.live();
    ctx = fake_ctx();
    mlp_init(&m, 4, 8, 16);
    xb = (size_t)(m.M * m.K) * 4;
    xcopy = (float*)dup_bytes(m.x, xb);
    r2 = fake_gemm_plan(ctx, &m, &p);
    CHECK(r2 == AICF_SUCCESS, "fake CUDA plan (cuBLASLt GEMM): %s", aicf_last_error(ctx));
    if (p) {
        FK.fail("cuGraphInstantiateWithFlags", 999, 0);
        r2 = aicf_exec_create(p, NULL, &e);
        CHECK_ERR(ctx, r2, AICF_ERROR_CUDA, "cuGraphInstantiateWithFlags failed", "CUDA_ERROR_UNKNOWN");
        CHECK(e == NULL && FK.live() == live0 + 1, "no exec, no driver object left but the primary context (%ld, %ld)",
              FK.live(), live0 + 1);
        FK.fail(NULL, 0, 0);
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "the plan makes an exec afterwards: %s", aicf_last_error(ctx));
    }
    if (e) {
        CHECK(aicf_exec_set_input(e, 0, m.x, xb) == AICF_SUCCESS, "set_input");
        FK.fail("cuGraphLaunch", 700, 0);
        r = aicf_exec_run(e);
        CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuGraphLaunch failed", "CUDA_ERROR_ILLEGAL_ADDRESS");
        CHECK(memcmp(m.x, xcopy, xb) == 0, "the caller's input unchanged");
        FK.fail(NULL, 0, 0);
        CHECK(aicf_exec_run(e) == AICF_SUCCESS, "the exec runs again once the driver does: %s", aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    probe(ctx, "CUDA");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0 && FK.ctx_depth() == 0 && FK.lt_live() == 0, "fake objects left: %ld driver (%ld before), %ld cuBLASLt, depth %d",
          FK.live(), live0, FK.lt_live(), FK.ctx_depth());
    free(xcopy);
    mlp_free(&m);
    return r;
}

/* -12: cublasLtMatmul fails while the exec captures the GEMM */
static aicf_result case_cublas(void) {
    aicf_context* ctx;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r = AICF_SUCCESS;
    long live0, lt0;
    mlp m;
    if (!fake_ready()) return AICF_SUCCESS;
    fake_defaults();
    live0 = FK.live();
    ctx = fake_ctx();
    mlp_init(&m, 4, 8, 16);
    CHECK(fake_gemm_plan(ctx, &m, &p) == AICF_SUCCESS, "fake CUDA plan (cuBLASLt GEMM): %s", aicf_last_error(ctx));
    if (p) {
        lt0 = FK.lt_live();
        FK.lt_fail("cublasLtMatmul", 14, 0); /* CUBLAS_STATUS_INTERNAL_ERROR */
        r = aicf_exec_create(p, NULL, &e);
        CHECK_ERR(ctx, r, AICF_ERROR_CUBLAS, "cublasLtMatmul", "CUBLAS_STATUS_INTERNAL_ERROR", "'mm'");
        CHECK(e == NULL, "no exec on failure");
        CHECK(FK.lt_live() == lt0 && FK.live() == live0 + 1, "no cuBLASLt or driver object left (%ld vs %ld, %ld vs %ld)",
              FK.lt_live(), lt0, FK.live(), live0 + 1);
        FK.lt_fail(NULL, 0, 0);
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "the plan makes an exec afterwards: %s", aicf_last_error(ctx));
        CHECK(e && aicf_exec_set_input(e, 0, m.x, (size_t)(m.M * m.K) * 4) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS,
              "and it runs: %s", aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    probe(ctx, "CUBLAS");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0 && FK.ctx_depth() == 0 && FK.lt_live() == 0, "fake objects left: %ld driver (%ld before), %ld cuBLASLt",
          FK.live(), live0, FK.lt_live());
    mlp_free(&m);
    return r;
}

/* -13: weights of 64 KiB on a fake device of 16 KiB */
static aicf_result case_device_oom(void) {
    aicf_context* ctx;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r = AICF_SUCCESS;
    long live0;
    mlp m;
    float* wcopy;
    if (!fake_ready()) return AICF_SUCCESS;
    fake_defaults();
    FK.set_mem((size_t)16 << 10);
    live0 = FK.live();
    ctx = fake_ctx();
    mlp_init(&m, 4, 128, 128);
    wcopy = (float*)dup_bytes(m.w, (size_t)(m.K * m.N) * 4);
    CHECK(fake_gemm_plan(ctx, &m, &p) == AICF_SUCCESS, "fake CUDA plan (cuBLASLt GEMM): %s", aicf_last_error(ctx));
    if (p) {
        r = aicf_exec_create(p, NULL, &e);
        CHECK_ERR(ctx, r, AICF_ERROR_DEVICE_OUT_OF_MEMORY, "cuMemAlloc failed", "CUDA_ERROR_OUT_OF_MEMORY", "weights", "bytes");
        CHECK(e == NULL && FK.mem_used() == 0 && FK.live() == live0 + 1, "no exec, no device memory left (%zu bytes)",
              FK.mem_used());
        CHECK(memcmp(m.w, wcopy, (size_t)(m.K * m.N) * 4) == 0, "the caller's weights unchanged");
        FK.set_mem(0);
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "the plan makes an exec once memory is there: %s",
              aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    probe(ctx, "DEVICE_OUT_OF_MEMORY");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0 && FK.mem_used() == 0, "fake objects left: %ld (%ld before), %zu device bytes", FK.live(), live0,
          FK.mem_used());
    free(wcopy);
    mlp_free(&m);
    return r;
}

/* -14: device-side calls on a CPU exec */
static aicf_result case_state(void) {
    aicf_context* ctx = cpu_ctx();
    mlp m;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r = AICF_SUCCESS, r2;
    uint64_t dptr = 0x1234;
    mlp_init(&m, 3, 4, 5);
    if (cpu_exec(ctx, &m, &p, &e)) {
        r = aicf_exec_set_input_device(e, 0, 0x10000, (size_t)(m.M * m.K) * 4);
        CHECK_ERR(ctx, r, AICF_ERROR_STATE, "aicf_exec_set_input_device", "CPU backend");
        r2 = aicf_exec_output_device_ptr(e, 0, &dptr);
        CHECK_ERR(ctx, r2, AICF_ERROR_STATE, "aicf_exec_output_device_ptr", "CPU backend");
        CHECK(dptr == 0x1234, "the caller's out variable untouched on failure");
        CHECK(run_ok(e, &m), "the exec runs correctly afterwards: %s", aicf_last_error(ctx));
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    probe(ctx, "STATE");
    aicf_context_destroy(ctx);
    mlp_free(&m);
    return r;
}

/* ---- the table, checked against the X-macro ---- */
typedef struct ecase {
    aicf_result code;
    aicf_result (*fn)(void);
    const char* covered_elsewhere; /* skip reason */
} ecase;

static const ecase CASES[] = {
    {AICF_ERROR_INVALID_ARGUMENT, case_invalid_argument, NULL},
    {AICF_ERROR_OUT_OF_MEMORY, case_out_of_memory, NULL},
    {AICF_ERROR_IO, case_io, NULL},
    {AICF_ERROR_INVALID_MODEL, case_invalid_model, NULL},
    {AICF_ERROR_UNSUPPORTED, case_unsupported, NULL},
    {AICF_ERROR_SHAPE, case_shape, NULL},
    {AICF_ERROR_NOT_FOUND, case_not_found, NULL},
    {AICF_ERROR_LIMIT, case_limit, NULL},
    {AICF_ERROR_NO_DEVICE, case_no_device, NULL},
    {AICF_ERROR_NO_KERNEL, case_no_kernel, NULL},
    {AICF_ERROR_CUDA, case_cuda, NULL},
    {AICF_ERROR_CUBLAS, case_cublas, NULL},
    {AICF_ERROR_DEVICE_OUT_OF_MEMORY, case_device_oom, NULL},
    {AICF_ERROR_STATE, case_state, NULL},
    {AICF_ERROR_PLAN_MISMATCH, NULL, "covered by tests/test_plan_io.c (a saved plan loaded against another model, "
                                     "kernel table, device or library: aicf_plan_load)"},
};

static const struct {
    aicf_result code;
    const char* name;
    const char* text;
} ALL[] = {
#define ALL_ENTRY(name, value, text) {name, #name, text},
    AICF_RESULTS(ALL_ENTRY)
#undef ALL_ENTRY
};

int main(int argc, char** argv) {
    const char* seed = getenv("AICF_SEED");
    size_t i, k;
    g_rng = seed ? (uint64_t)strtoull(seed, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    if (!g_rng) g_rng = 1;
    printf("test_errors: seed %llu\n", (unsigned long long)g_rng);
    g_verbose = getenv("AICF_TEST_VERBOSE") != NULL;
    g_fake_path = argc > 1 ? argv[1] : getenv("AICF_FAKE_CUDA");
    if (!g_fake_path) g_fake_path = "build/fakecuda/libcuda.so.1";
    if (!fake_load(g_fake_path)) FK.h = NULL;
    for (i = 0; i < sizeof ALL / sizeof ALL[0]; i++) {
        const ecase* c = NULL;
        int fails0 = g_fail;
        if (ALL[i].code == AICF_SUCCESS) continue;
        CHECK(strcmp(aicf_result_str(ALL[i].code), ALL[i].text) == 0 && ALL[i].text[0], "%s has a description",
              ALL[i].name);
        for (k = 0; k < sizeof CASES / sizeof CASES[0]; k++)
            if (CASES[k].code == ALL[i].code) c = &CASES[k];
        if (!c) {
            CHECK(0, "%s (%d) has no provoking case in tests/test_errors.c", ALL[i].name, (int)ALL[i].code);
            continue;
        }
        if (!c->fn) {
            g_skip++;
            printf("SKIP %s (%d): %s\n", ALL[i].name, (int)ALL[i].code, c->covered_elsewhere);
            continue;
        }
        {
            aicf_result got = c->fn();
            CHECK(got == c->code, "%s: the case's provoking call returned %s (%d)", ALL[i].name, aicf_result_str(got), (int)got);
        }
        printf("%-4s %s (%d)\n", g_fail == fails0 ? "ok" : "FAIL", ALL[i].name, (int)ALL[i].code);
    }
    /* every case in the table is a real code */
    for (k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        int found = 0;
        for (i = 0; i < sizeof ALL / sizeof ALL[0]; i++) found |= ALL[i].code == CASES[k].code;
        CHECK(found, "case for code %d, which AICF_RESULTS does not list", (int)CASES[k].code);
    }
    if (FK.h) dlclose(FK.h);
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
