/* Unit tests of the core, the graph builder, the planner and the CPU executor.
   Fresh random data every run (the seed is printed; AICF_SEED=N repeats a run). */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* checks a result code and that the context's message contains `needle` */
#define CHECK_ERR(ctx, r, code, needle)                                                            \
    CHECK((r) == (code) && strstr(aicf_last_error(ctx), (needle)) != NULL,                         \
          "expected %s containing \"%s\", got %s: \"%s\"", aicf_result_str(code), (needle),        \
          aicf_result_str(r), aicf_last_error(ctx))

static float frand(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static aicf_context* new_ctx(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    aicf_context_create(&cd, &ctx);
    return ctx;
}

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

static aicf_result add_node(aicf_graph* g, const char* name, const char* op, const char** in, int nin, const char** out,
                            int nout, const aicf_attr* attrs, int nattrs) {
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = nin;
    nd.outputs = out;
    nd.num_outputs = nout;
    nd.attrs = attrs;
    nd.num_attrs = nattrs;
    return aicf_graph_add_node(g, &nd);
}

static void test_results_and_dtypes(void) {
    CHECK(strcmp(aicf_result_str(AICF_SUCCESS), "success") == 0, "success text");
    CHECK(strstr(aicf_result_str(AICF_ERROR_NO_DEVICE), "CUDA") != NULL, "no device text");
    CHECK(strcmp(aicf_result_str((aicf_result)-999), "unknown result code") == 0, "unknown code");
    CHECK(aicf_dtype_size(AICF_DTYPE_FLOAT16) == 2 && aicf_dtype_size(AICF_DTYPE_INT64) == 8 &&
              aicf_dtype_size(AICF_DTYPE_STRING) == 0,
          "dtype sizes");
}

static void test_fp16(void) {
    int i, bad = 0;
    /* exact values, rounding to nearest even, overflow, subnormals, inf, nan */
    CHECK(aicf__f32_to_f16(1.0f) == 0x3c00 && aicf__f32_to_f16(-2.0f) == 0xc000, "f16 exact");
    CHECK(aicf__f32_to_f16(65504.0f) == 0x7bff && aicf__f32_to_f16(70000.0f) == 0x7c00, "f16 max/overflow");
    CHECK(aicf__f32_to_f16(1.0f + 1.0f / 2048.0f) == 0x3c00, "tie to even (down)");
    CHECK(aicf__f32_to_f16(1.0f + 3.0f / 2048.0f) == 0x3c02, "tie to even (up)");
    CHECK(aicf__f32_to_f16(5.960464477539063e-08f) == 0x0001, "smallest subnormal");
    CHECK(aicf__f16_to_f32(0x0001) == 5.960464477539063e-08f, "subnormal back");
    CHECK(isinf(aicf__f16_to_f32(0x7c00)) && isnan(aicf__f16_to_f32(aicf__f32_to_f16(NAN))), "inf/nan");
    for (i = 0; i < 65536; i++) { /* every finite half survives a round trip */
        uint16_t h = (uint16_t)i;
        if ((h & 0x7c00) == 0x7c00) continue;
        if (aicf__f32_to_f16(aicf__f16_to_f32(h)) != h) bad++;
    }
    CHECK(bad == 0, "%d halves do not round-trip", bad);
    for (i = 0, bad = 0; i < 100000; i++) { /* conversion error within half an ulp */
        float f = frand() * 1000.0f;
        float back = aicf__f16_to_f32(aicf__f32_to_f16(f));
        if (fabsf(back - f) > fabsf(f) * (1.0f / 2048.0f) + 1e-7f) bad++;
    }
    CHECK(bad == 0, "%d conversions beyond half an ulp", bad);
}

static void test_builder_errors(void) {
    aicf_context* ctx = new_ctx();
    aicf_graph* g;
    int64_t d2[2] = {2, 3}, dneg[2] = {2, -5};
    float w[6] = {1, 2, 3, 4, 5, 6};
    aicf_tensor_desc d;
    const char* in1[1] = {"x"};
    const char* in_bad[1] = {"nope"};
    const char* out1[1] = {"y"};
    aicf_result r;
    aicf_graph_create(ctx, &g);
    d = tdesc("x", 2, d2, NULL, 0);
    CHECK(aicf_graph_add_input(g, &d) == AICF_SUCCESS, "add input");
    r = aicf_graph_add_input(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "'x' is already defined");
    d = tdesc("w", 2, d2, w, 5 * sizeof(float));
    r = aicf_graph_add_constant(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "data_bytes 20 does not match shape (24 bytes)");
    CHECK(aicf__graph_find(g, "w") < 0, "failed constant left no tensor behind");
    d = tdesc("w", 2, dneg, w, sizeof w);
    r = aicf_graph_add_constant(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_SHAPE, "dims[1] = -5 is negative");
    {
        int64_t huge[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 1};
        d = tdesc("huge", 3, huge, NULL, 0);
        r = aicf_graph_add_input(g, &d);
        CHECK_ERR(ctx, r, AICF_ERROR_LIMIT, "'huge': size exceeds AICF_MAX_TENSOR_BYTES");
        CHECK(aicf__graph_find(g, "huge") < 0 && aicf__graph_find(g, "x") >= 0, "failed input left no tensor behind");
    }
    d = tdesc("big", 9, d2, NULL, 0);
    r = aicf_graph_add_input(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_LIMIT, "rank 9 outside 0..8");
    d = tdesc("s", 1, d2, NULL, 0);
    d.dtype = AICF_DTYPE_STRING;
    r = aicf_graph_add_input(g, &d);
    CHECK_ERR(ctx, r, AICF_ERROR_UNSUPPORTED, "data type string");
    r = add_node(g, "n0", "FancyOp", in1, 1, out1, 1, NULL, 0);
    CHECK_ERR(ctx, r, AICF_ERROR_UNSUPPORTED, "node 0 'n0' (FancyOp): unsupported op type");
    r = add_node(g, "n0", "Relu", in_bad, 1, out1, 1, NULL, 0);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "input 0 'nope' is not defined before use");
    {
        aicf_node_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.name = "ms";
        nd.op_type = "Relu";
        nd.domain = "com.microsoft";
        nd.inputs = in1;
        nd.num_inputs = 1;
        nd.outputs = out1;
        nd.num_outputs = 1;
        r = aicf_graph_add_node(g, &nd);
        CHECK_ERR(ctx, r, AICF_ERROR_UNSUPPORTED, "domain 'com.microsoft'");
    }
    CHECK(add_node(g, "relu", "Relu", in1, 1, out1, 1, NULL, 0) == AICF_SUCCESS, "add relu");
    r = add_node(g, "relu2", "Relu", in1, 1, out1, 1, NULL, 0);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "output 0 'y' is already defined");
    r = aicf_graph_add_output(g, "zzz");
    CHECK_ERR(ctx, r, AICF_ERROR_NOT_FOUND, "'zzz' is not defined");
    r = aicf_graph_bind_input_value(g, "x", w, 4);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "needs 24 bytes, got 4");
    {
        aicf_plan* p = NULL;
        r = aicf_plan_create(g, NULL, &p);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_MODEL, "no outputs");
        CHECK(p == NULL, "no plan on failure");
    }
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

static void test_plan_errors(void) {
    aicf_context* ctx = new_ctx();
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    int64_t dims[2] = {-1, 4};
    const char* params[2] = {"batch", NULL};
    const char* in1[1] = {"x"};
    const char* out1[1] = {"y"};
    aicf_tensor_desc d = tdesc("x", 2, dims, NULL, 0);
    aicf_result r;
    d.dim_params = params;
    aicf_graph_create(ctx, &g);
    aicf_graph_add_input(g, &d);
    add_node(g, "act", "Tanh", in1, 1, out1, 1, NULL, 0);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_SHAPE, "input 'x' dimension 0 'batch' is not bound");
    r = aicf_graph_bind_dim(g, "batch", 0);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "'batch' = 0 is out of range");
    CHECK(aicf_graph_bind_dim(g, "batch", 3) == AICF_SUCCESS, "bind");
    pd.backend = AICF_BACKEND_CUDA;
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "CUDA backend unavailable");
    pd.backend = AICF_BACKEND_DEFAULT;
    r = aicf_plan_create(g, &pd, &p);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "allow_cpu_fallback");
    pd.policy.allow_cpu_fallback = 1;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS && p && p->target == AICF_BACKEND_CPU, "fallback to CPU: %s", aicf_last_error(ctx));
    if (p) {
        aicf_exec* e = NULL;
        float x[12], y[12], small[3];
        int i, bad = 0;
        CHECK(strstr(p->steps[0].reason, "CPU fallback") != NULL, "reason records the fallback: %s", p->steps[0].reason);
        CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "exec");
        r = aicf_exec_set_input(e, 0, small, sizeof small);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "input 0 'x' has 48 bytes, got 12");
        r = aicf_exec_set_input(e, 1, x, sizeof x);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "index 1 out of range (1 inputs)");
        r = aicf_exec_set_input_device(e, 0, 0, sizeof x);
        CHECK_ERR(ctx, r, AICF_ERROR_STATE, "CPU backend");
        for (i = 0; i < 12; i++) x[i] = frand() * 3.0f;
        CHECK(aicf_exec_set_input(e, 0, x, sizeof x) == AICF_SUCCESS, "set");
        CHECK(aicf_exec_run(e) == AICF_SUCCESS, "run");
        CHECK(aicf_exec_get_output(e, 0, y, sizeof y) == AICF_SUCCESS, "get");
        for (i = 0; i < 12; i++) bad += fabs((double)y[i] - tanh((double)x[i])) > 1e-6;
        CHECK(bad == 0, "tanh values (%d bad)", bad);
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
    }
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

/* A random DAG of elementwise ops: checks the CPU result against a direct evaluation, that no
   two tensors alive at the same step overlap in the arena, and the arena against its lower bound. */
static void test_memory_plan_random(int trial) {
    aicf_context* ctx = new_ctx();
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    enum { NN = 40, W = 64 };
    static float vals[NN + 1][W];
    int64_t dims[2] = {1, W};
    char names[NN + 1][16];
    int ops[NN], a[NN], b[NN], i, j, s, overlap = 0, bad = 0;
    float x[W], y[W];
    aicf_tensor_desc d;
    aicf_graph_create(ctx, &g);
    snprintf(names[0], 16, "t0");
    d = tdesc("t0", 2, dims, NULL, 0);
    aicf_graph_add_input(g, &d);
    for (i = 0; i < W; i++) vals[0][i] = x[i] = frand();
    for (i = 0; i < NN; i++) {
        static const char* opn[4] = {"Add", "Mul", "Tanh", "Sub"};
        const char* in[2];
        const char* out[1];
        ops[i] = (int)((frand() + 1.0f) * 2.0f) & 3;
        a[i] = (int)((frand() + 1.0f) * 0.5f * (float)(i + 1)) % (i + 1);
        b[i] = i; /* keep a chain so everything stays live */
        snprintf(names[i + 1], 16, "t%d", i + 1);
        in[0] = names[a[i]];
        in[1] = names[b[i]];
        out[0] = names[i + 1];
        add_node(g, names[i + 1], opn[ops[i]], in, ops[i] == 2 ? 1 : 2, out, 1, NULL, 0);
        for (j = 0; j < W; j++) {
            float u = vals[a[i]][j], v = vals[b[i]][j];
            vals[i + 1][j] = ops[i] == 0 ? u + v : ops[i] == 1 ? u * v : ops[i] == 2 ? tanhf(u) : u - v;
        }
    }
    aicf_graph_add_output(g, names[NN]);
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "plan: %s", aicf_last_error(ctx));
    if (!p) goto out;
    /* lifetimes from the steps, then pairwise overlap check */
    for (i = 0; i < p->g->n_tensors; i++) {
        int fi = 1 << 30, li = -2;
        if (p->loc[i].space != AICF__SPACE_ARENA || p->loc[i].alias_of >= 0) continue;
        for (s = 0; s < p->n_steps; s++)
            for (j = 0; j < p->steps[s].n_in + p->steps[s].n_out; j++) {
                int t = j < p->steps[s].n_in ? p->steps[s].in[j] : p->steps[s].out[j - p->steps[s].n_in];
                if (t == i) {
                    if (s < fi) fi = s;
                    if (s > li) li = s;
                }
            }
        if (p->g->tensors[i].flags & AICF__T_INPUT) fi = -1;
        if (p->g->tensors[i].flags & AICF__T_OUTPUT) li = p->n_steps;
        for (j = 0; j < i; j++) {
            int fj = 1 << 30, lj = -2, s2, k;
            if (p->loc[j].space != AICF__SPACE_ARENA || p->loc[j].alias_of >= 0) continue;
            for (s2 = 0; s2 < p->n_steps; s2++)
                for (k = 0; k < p->steps[s2].n_in + p->steps[s2].n_out; k++) {
                    int t = k < p->steps[s2].n_in ? p->steps[s2].in[k] : p->steps[s2].out[k - p->steps[s2].n_in];
                    if (t == j) {
                        if (s2 < fj) fj = s2;
                        if (s2 > lj) lj = s2;
                    }
                }
            if (p->g->tensors[j].flags & AICF__T_INPUT) fj = -1;
            if (p->g->tensors[j].flags & AICF__T_OUTPUT) lj = p->n_steps;
            if (li < fj || lj < fi) continue;
            if (p->loc[i].offset < p->loc[j].offset + p->loc[j].bytes && p->loc[j].offset < p->loc[i].offset + p->loc[i].bytes)
                overlap++;
        }
    }
    CHECK(overlap == 0, "trial %d: %d pairs of live tensors overlap", trial, overlap);
    CHECK(p->arena_bytes >= p->arena_lower_bound && p->arena_bytes <= p->arena_lower_bound * 2,
          "trial %d: arena %zu vs lower bound %zu", trial, p->arena_bytes, p->arena_lower_bound);
    CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "exec");
    aicf_exec_set_input(e, 0, x, sizeof x);
    CHECK(aicf_exec_run(e) == AICF_SUCCESS, "run: %s", aicf_last_error(ctx));
    aicf_exec_get_output(e, 0, y, sizeof y);
    /* the chain may square a value into overflow: an infinity must be the same infinity, a NaN a
       NaN (it was compared with <= before, which no NaN passes: a flaky failure, seed
       4766881632143671930) */
    for (i = 0; i < W; i++) {
        const float r = vals[NN][i];
        if (isnan(r) ? !isnan(y[i]) : isinf(r) ? y[i] != r : !(fabsf(y[i] - r) <= 1e-5f * (1.0f + fabsf(r)))) bad++;
    }
    CHECK(bad == 0, "trial %d: %d wrong outputs (e.g. %g vs %g)", trial, bad, y[0], vals[NN][0]);
    { /* inputs stay valid: a second run without aicf_exec_set_input gives the same bits */
        float y2[W];
        CHECK(aicf_exec_run(e) == AICF_SUCCESS, "second run");
        aicf_exec_get_output(e, 0, y2, sizeof y2);
        CHECK(memcmp(y, y2, sizeof y) == 0, "trial %d: a second run without set_input changed the output", trial);
    }
out:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

/* DenseNet-like chains: c_l = Concat(c_{l-1}, Tanh(Gather(c_{l-1}, idx_l)), axis 1) over [1, C, S]
   tensors, some f_l also concatenated a second time (z_l = Concat(Neg(f_l), f_l)), all ending in
   one output Concat. The memory plan makes Concat inputs views of the output where it may (one
   root per tensor; not the graph input, not the graph output); checked: the results against a
   host evaluation, that views were made, and that no two tensors with different storage roots
   alive at the same step overlap in the arena (lifetimes recomputed here from the steps). */
static void test_memory_plan_concat_views(int trial) {
    enum { L = 6, S = 8, G = 3, C0 = 4, MAXC = C0 + L * G };
    aicf_context* ctx = new_ctx();
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    static float cval[L + 1][MAXC * S], zval[L][2 * G * S], yref[(MAXC + 2 * G * L) * S], y[(MAXC + 2 * G * L) * S];
    int64_t idx[L][G], dx[3] = {1, C0, S}, di[1] = {G};
    int side[L], nside = 0, l, i, j, k, s, views = 0, overlap = 0, bad = 0, yc;
    char nm[16][L + 1][24];
    const char* fin[L + 1];
    aicf_attr ax1[1];
    aicf_tensor_desc d;
    memset(ax1, 0, sizeof ax1);
    ax1[0].name = "axis";
    ax1[0].type = AICF_ATTR_INT;
    ax1[0].i = 1;
    aicf_graph_create(ctx, &g);
    d = tdesc("c0", 3, dx, NULL, 0);
    aicf_graph_add_input(g, &d);
    for (i = 0; i < C0 * S; i++) cval[0][i] = frand();
    for (l = 1; l <= L; l++) {
        int cin = C0 + (l - 1) * G;
        const char *in2[2], *out1[1];
        snprintf(nm[0][l], 24, "c%d", l - 1);
        snprintf(nm[1][l], 24, "idx%d", l);
        snprintf(nm[2][l], 24, "g%d", l);
        snprintf(nm[3][l], 24, "f%d", l);
        snprintf(nm[4][l], 24, "c%d", l);
        for (k = 0; k < G; k++) idx[l - 1][k] = (int64_t)((frand() + 1.0f) * 0.5f * (float)cin) % cin;
        d = tdesc(nm[1][l], 1, di, idx[l - 1], sizeof idx[l - 1]);
        d.dtype = AICF_DTYPE_INT64;
        aicf_graph_add_constant(g, &d);
        in2[0] = nm[0][l], in2[1] = nm[1][l], out1[0] = nm[2][l];
        add_node(g, nm[2][l], "Gather", in2, 2, out1, 1, ax1, 1);
        in2[0] = nm[2][l], out1[0] = nm[3][l];
        add_node(g, nm[3][l], "Tanh", in2, 1, out1, 1, NULL, 0);
        in2[0] = nm[0][l], in2[1] = nm[3][l], out1[0] = nm[4][l];
        add_node(g, nm[4][l], "Concat", in2, 2, out1, 1, ax1, 1);
        /* host: c_l = [c_{l-1}; tanh(c_{l-1}[idx])] over the channel axis */
        memcpy(cval[l], cval[l - 1], sizeof(float) * (size_t)(cin * S));
        for (k = 0; k < G; k++)
            for (s = 0; s < S; s++) cval[l][(cin + k) * S + s] = tanhf(cval[l - 1][idx[l - 1][k] * S + s]);
        side[l - 1] = frand() > 0.2f;
        if (side[l - 1]) { /* z_l = Concat(Neg(f_l), f_l): f_l wanted by two Concats */
            snprintf(nm[5][l], 24, "n%d", l);
            snprintf(nm[6][l], 24, "z%d", l);
            in2[0] = nm[3][l], out1[0] = nm[5][l];
            add_node(g, nm[5][l], "Neg", in2, 1, out1, 1, NULL, 0);
            in2[0] = nm[5][l], in2[1] = nm[3][l], out1[0] = nm[6][l];
            add_node(g, nm[6][l], "Concat", in2, 2, out1, 1, ax1, 1);
            for (k = 0; k < G * S; k++) {
                zval[l - 1][k] = -cval[l][cin * S + k];
                zval[l - 1][G * S + k] = cval[l][cin * S + k];
            }
        }
    }
    fin[0] = nm[4][L];
    memcpy(yref, cval[L], sizeof(float) * (size_t)(MAXC * S));
    yc = MAXC;
    for (l = 1; l <= L; l++)
        if (side[l - 1]) {
            fin[1 + nside++] = nm[6][l];
            memcpy(yref + (size_t)yc * S, zval[l - 1], sizeof(float) * 2 * G * S);
            yc += 2 * G;
        }
    {
        const char* out1[1] = {"y"};
        add_node(g, "final", "Concat", fin, 1 + nside, out1, 1, ax1, 1);
    }
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "concat views %d: plan: %s", trial, aicf_last_error(ctx));
    if (!p) goto out;
    {
        int nt = p->g->n_tensors, *fi = (int*)malloc(sizeof(int) * (size_t)nt), *li = (int*)malloc(sizeof(int) * (size_t)nt),
            *root = (int*)malloc(sizeof(int) * (size_t)nt);
        for (i = 0; i < nt; i++) {
            int r = i, guard = 0;
            while (p->loc[r].alias_of >= 0 && guard++ < nt) r = p->loc[r].alias_of;
            root[i] = r;
            if (p->loc[i].alias_of >= 0 && p->loc[i].alias_add + p->loc[i].bytes > p->loc[p->loc[i].alias_of].bytes) bad++;
            if (p->loc[i].alias_of >= 0) views++; /* only Concat makes views in this graph */
            fi[i] = 1 << 30;
            li[i] = -2;
            for (s = 0; s < p->n_steps; s++) {
                const aicf__step* st = &p->steps[s];
                for (j = 0; j < st->n_in + st->n_out; j++)
                    if ((j < st->n_in ? st->in[j] : st->out[j - st->n_in]) == i) {
                        if (s < fi[i]) fi[i] = s;
                        if (s > li[i]) li[i] = s;
                    }
            }
            if (p->g->tensors[i].flags & AICF__T_INPUT) fi[i] = -1;
            if (p->g->tensors[i].flags & AICF__T_OUTPUT) li[i] = p->n_steps;
        }
        for (i = 0; i < nt; i++)
            for (j = 0; j < i; j++) {
                if (p->loc[i].space != AICF__SPACE_ARENA || p->loc[j].space != AICF__SPACE_ARENA || root[i] == root[j]) continue;
                if (li[i] < fi[j] || li[j] < fi[i] || fi[i] > li[i] || fi[j] > li[j]) continue;
                if (p->loc[i].offset < p->loc[j].offset + p->loc[j].bytes && p->loc[j].offset < p->loc[i].offset + p->loc[i].bytes)
                    overlap++;
            }
        free(fi);
        free(li);
        free(root);
    }
    CHECK(bad == 0, "concat views %d: %d views reach past their root", trial, bad);
    CHECK(views >= 2 * (L - 1 - nside), "concat views %d: %d tensors are views (at least %d expected)", trial, views,
          2 * (L - 1 - nside));
    CHECK(overlap == 0, "concat views %d: %d pairs of live tensors with different roots overlap", trial, overlap);
    CHECK(p->arena_bytes >= p->arena_lower_bound && p->arena_bytes <= p->arena_lower_bound * 2,
          "concat views %d: arena %zu vs lower bound %zu", trial, p->arena_bytes, p->arena_lower_bound);
    CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "exec");
    aicf_exec_set_input(e, 0, cval[0], sizeof(float) * C0 * S);
    CHECK(aicf_exec_run(e) == AICF_SUCCESS, "run: %s", aicf_last_error(ctx));
    CHECK(aicf_exec_get_output(e, 0, y, sizeof(float) * (size_t)yc * S) == AICF_SUCCESS, "output: %s", aicf_last_error(ctx));
    for (i = 0, bad = 0; i < yc * S; i++)
        if (!(fabsf(y[i] - yref[i]) <= 1e-6f * (1.0f + fabsf(yref[i])))) bad++;
    CHECK(bad == 0, "concat views %d: %d of %d outputs differ from the host evaluation", trial, bad, yc * S);
out:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

/* A custom allocator sees every allocation and every free; g_fail_at >= 0 makes allocation
   number g_fail_at (counted in g_alloc_n) return NULL. */
static long g_live_allocs, g_alloc_n, g_fail_at = -1;
static void* count_alloc(size_t n, void* u) {
    (void)u;
    if (g_alloc_n++ == g_fail_at) return NULL;
    g_live_allocs++;
    return malloc(n);
}
static void count_free(void* ptr, void* u) {
    (void)u;
    if (ptr) g_live_allocs--;
    free(ptr);
}

/* Conv -> BatchNormalization -> Relu: the plan folds the BatchNormalization into the Conv;
   the result must equal a direct double-precision evaluation of the unfused graph. The weights
   are the caller's (borrowed: aicf must not write them). shared = 0: one Conv reads W and B, so
   the plan's copies are scaled in place; shared = 1: a second Conv + BatchNormalization (other
   statistics, output y2) reads the same W and B, so the first fold makes new constants and the
   second scales the copies it is then the only reader of: neither may see the other's scaling. */
static void test_batchnorm_folding(int shared) {
    enum { N = 2, C = 3, H = 7, Wd = 6, M = 4, K = 3 };
    aicf_context* ctx = NULL;
    aicf_context_desc cdesc;
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    static float x[N * C * H * Wd], w[M * C * K * K], bias[M], bn[2][4][M], y[2][N * M * H * Wd];
    float w0[M * C * K * K], bias0[M];
    int64_t xd[4] = {N, C, H, Wd}, wd[4] = {M, C, K, K}, vd[1] = {M};
    int64_t pads[4] = {1, 1, 1, 1};
    const char* cin[3] = {"x", "w", "b"};
    const char* cout[2][1] = {{"c"}, {"c2"}};
    const char* bin[2][5] = {{"c", "sc", "be", "mu", "var"}, {"c2", "sc2", "be2", "mu2", "var2"}};
    const char* bout[2][1] = {{"bn"}, {"bn2"}};
    const char* rout[2][1] = {{"y"}, {"y2"}};
    static const char* const stat[2][4] = {{"sc", "be", "mu", "var"}, {"sc2", "be2", "mu2", "var2"}};
    aicf_attr cattr[1], battr[1];
    aicf_tensor_desc d;
    int i, j, o, n, m, h, ww, bad = 0, convs = 0, bns = 0, fresh = 0, nconv = shared ? 2 : 1;
    double maxerr = 0;
    for (i = 0; i < N * C * H * Wd; i++) x[i] = frand();
    for (i = 0; i < M * C * K * K; i++) w[i] = frand();
    for (o = 0; o < 2; o++)
        for (i = 0; i < M; i++) {
            bias[i] = frand();
            bn[o][0][i] = frand() + 1.5f;        /* scale */
            bn[o][1][i] = frand();               /* B (beta) */
            bn[o][2][i] = frand() * 0.5f;        /* mean */
            bn[o][3][i] = frand() * 0.5f + 1.0f; /* var */
        }
    memcpy(w0, w, sizeof w);
    memcpy(bias0, bias, sizeof bias);
    memset(&cdesc, 0, sizeof cdesc);
    cdesc.flags = AICF_CONTEXT_NO_CUDA;
    cdesc.allocator.alloc = count_alloc;
    cdesc.allocator.free = count_free;
    aicf_context_create(&cdesc, &ctx);
    aicf_graph_create(ctx, &g);
    d = tdesc("x", 4, xd, NULL, 0);
    aicf_graph_add_input(g, &d);
    d = tdesc("w", 4, wd, w, sizeof w);
    d.borrow = 1;
    aicf_graph_add_constant(g, &d);
    d = tdesc("b", 1, vd, bias, sizeof bias);
    d.borrow = 1;
    aicf_graph_add_constant(g, &d);
    for (o = 0; o < nconv; o++)
        for (j = 0; j < 4; j++) {
            d = tdesc(stat[o][j], 1, vd, bn[o][j], sizeof bn[o][j]);
            aicf_graph_add_constant(g, &d);
        }
    memset(cattr, 0, sizeof cattr);
    cattr[0].name = "pads";
    cattr[0].type = AICF_ATTR_INTS;
    cattr[0].ints = pads;
    cattr[0].count = 4;
    memset(battr, 0, sizeof battr);
    battr[0].name = "epsilon";
    battr[0].type = AICF_ATTR_FLOAT;
    battr[0].f = 1e-3f;
    for (o = 0; o < nconv; o++) {
        CHECK(add_node(g, o ? "conv2" : "conv", "Conv", cin, 3, cout[o], 1, cattr, 1) == AICF_SUCCESS, "conv: %s", aicf_last_error(ctx));
        CHECK(add_node(g, o ? "bn2" : "bn", "BatchNormalization", bin[o], 5, bout[o], 1, battr, 1) == AICF_SUCCESS, "bn");
        CHECK(add_node(g, o ? "relu2" : "relu", "Relu", bout[o], 1, rout[o], 1, NULL, 0) == AICF_SUCCESS, "relu");
        aicf_graph_add_output(g, rout[o][0]);
    }
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "plan: %s", aicf_last_error(ctx));
    if (!p) goto out;
    for (i = 0; i < p->n_steps; i++) {
        aicf__op op = p->g->nodes[p->steps[i].node].op;
        convs += op == AICF__OP_Conv;
        bns += op == AICF__OP_BatchNormalization;
        if (op == AICF__OP_Conv) {
            const aicf__node* cv = &p->g->nodes[p->steps[i].node];
            fresh += p->g->tensors[cv->in[1]].name[0] == '\x01' && p->g->tensors[cv->in[2]].name[0] == '\x01';
        }
    }
    /* in place: the Conv keeps the plan's copies of W and B, scaled; shared: the first fold sees
       two readers and makes new constants, the second Conv is then the copies' only reader */
    CHECK(fresh == shared, "shared=%d: %d of %d folds made new constants (%d expected)", shared, fresh, nconv, shared);
    /* BN folds into the Conv, and the fusion pass absorbs the Relu into the Conv's step */
    CHECK(convs == nconv && bns == 0 && p->n_steps == nconv && p->steps[0].n_epi == 1 && p->steps[0].epi[0].op == AICF__OP_Relu,
          "BatchNormalization folded, Relu fused: %d conv, %d bn, %d steps", convs, bns, p->n_steps);
    CHECK(memcmp(w, w0, sizeof w) == 0 && memcmp(bias, bias0, sizeof bias) == 0,
          "shared=%d: the caller's borrowed W and B were written by the plan", shared);
    aicf_exec_create(p, NULL, &e);
    aicf_exec_set_input(e, 0, x, sizeof x);
    CHECK(aicf_exec_run(e) == AICF_SUCCESS, "run: %s", aicf_last_error(ctx));
    for (o = 0; o < nconv; o++) aicf_exec_get_output(e, o, y[o], sizeof y[o]);
    for (o = 0; o < nconv; o++)
        for (n = 0; n < N; n++)
            for (m = 0; m < M; m++)
                for (h = 0; h < H; h++)
                    for (ww = 0; ww < Wd; ww++) {
                        double acc = bias[m], ref;
                        int c, kh, kw;
                        for (c = 0; c < C; c++)
                            for (kh = 0; kh < K; kh++)
                                for (kw = 0; kw < K; kw++) {
                                    int ih = h + kh - 1, iw = ww + kw - 1;
                                    if (ih < 0 || iw < 0 || ih >= H || iw >= Wd) continue;
                                    acc += (double)x[((n * C + c) * H + ih) * Wd + iw] * w[((m * C + c) * K + kh) * K + kw];
                                }
                        ref = (acc - bn[o][2][m]) / sqrt((double)bn[o][3][m] + 1e-3) * bn[o][0][m] + bn[o][1][m];
                        if (ref < 0) ref = 0;
                        {
                            double err = fabs(ref - y[o][((n * M + m) * H + h) * Wd + ww]);
                            if (err > maxerr) maxerr = err;
                            if (err > 1e-4 * (1 + fabs(ref))) bad++;
                        }
                    }
    CHECK(bad == 0, "shared=%d: folded Conv+BN: %d wrong (max err %g)", shared, bad, maxerr);
    if (shared) {
        /* every allocation of planning failing in turn: AICF_ERROR_OUT_OF_MEMORY with a message,
           no plan, nothing leaked; one of them is the fold's new constant */
        long k, n_allocs, base = g_live_allocs;
        int fails = 0, wrong = 0, fold_msg = 0;
        char first_wrong[256] = "";
        aicf_plan* q = NULL;
        g_alloc_n = 0;
        if (aicf_plan_create(g, &pd, &q) == AICF_SUCCESS) aicf_plan_destroy(q);
        n_allocs = g_alloc_n;
        for (k = 0; k < n_allocs; k++) {
            aicf_result r;
            q = NULL;
            g_alloc_n = 0;
            g_fail_at = k;
            r = aicf_plan_create(g, &pd, &q);
            g_fail_at = -1;
            if (r == AICF_SUCCESS) { /* an allocation whose failure only costs speed */
                aicf_plan_destroy(q);
                continue;
            }
            fails++;
            fold_msg += strstr(aicf_last_error(ctx), "BatchNormalization folding: out of memory") != NULL;
            if (r != AICF_ERROR_OUT_OF_MEMORY || q || !strstr(aicf_last_error(ctx), "out of memory") || g_live_allocs != base) {
                if (!wrong++)
                    snprintf(first_wrong, sizeof first_wrong, "allocation %ld: %s, plan %p, %ld blocks leaked: %.150s", k,
                             aicf_result_str(r), (void*)q, g_live_allocs - base, aicf_last_error(ctx));
            }
        }
        CHECK(n_allocs > 0 && fails > 0 && wrong == 0, "planning with allocation k of %ld failing: %d of %d failures wrong (%s)",
              n_allocs, wrong, fails, first_wrong);
        CHECK(fold_msg > 0, "no failing allocation reached the BatchNormalization fold's new constant (%d failures)", fails);
    }
out:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

/* The plan must not change the user's graph, and the graph may die before the plan. */
static void test_plan_owns_copy(void) {
    aicf_context* ctx = new_ctx();
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    int64_t xd[2] = {3, 5}, wd[2] = {5, 2};
    float w[10], x[15], y[6], w_copy[10];
    const char* in[2] = {"x", "w"};
    const char* out[1] = {"y"};
    aicf_tensor_desc d;
    int i, bad = 0;
    size_t need = 0;
    for (i = 0; i < 10; i++) w_copy[i] = w[i] = frand();
    for (i = 0; i < 15; i++) x[i] = frand();
    aicf_graph_create(ctx, &g);
    d = tdesc("x", 2, xd, NULL, 0);
    aicf_graph_add_input(g, &d);
    d = tdesc("w", 2, wd, w, sizeof w);
    d.borrow = 1;
    aicf_graph_add_constant(g, &d);
    add_node(g, "mm", "MatMul", in, 2, out, 1, NULL, 0);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "plan");
    aicf_graph_destroy(g);
    CHECK(memcmp(w, w_copy, sizeof w) == 0, "borrowed weights untouched");
    if (!p) goto out;
    aicf_plan_format(p, NULL, 0, &need);
    CHECK(need > 100, "plan text length %zu", need);
    {
        char* buf = (char*)malloc(need);
        char tiny[16];
        aicf_plan_format(p, buf, need, NULL);
        CHECK(strstr(buf, "step   0  MatMul") && strstr(buf, "lower bound") && strstr(buf, "why:"), "plan text:\n%s", buf);
        aicf_plan_format(p, tiny, sizeof tiny, NULL);
        CHECK(strlen(tiny) == sizeof tiny - 1, "truncated plan text is terminated");
        free(buf);
    }
    aicf_exec_create(p, NULL, &e);
    aicf_exec_set_input(e, 0, x, sizeof x);
    aicf_exec_run(e);
    aicf_exec_get_output(e, 0, y, sizeof y);
    for (i = 0; i < 6; i++) {
        double acc = 0;
        int k;
        for (k = 0; k < 5; k++) acc += (double)x[(i / 2) * 5 + k] * w_copy[k * 2 + i % 2];
        bad += fabs(acc - y[i]) > 1e-5;
    }
    CHECK(bad == 0, "matmul after the graph was destroyed");
out:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_context_destroy(ctx);
}

static void test_allocator(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    int64_t xd[2] = {2, 2};
    const char* in[1] = {"x"};
    const char* out[1] = {"y"};
    aicf_tensor_desc d = tdesc("x", 2, xd, NULL, 0);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = count_alloc;
    cd.allocator.free = count_free;
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context with allocator");
    aicf_graph_create(ctx, &g);
    aicf_graph_add_input(g, &d);
    add_node(g, "r", "Relu", in, 1, out, 1, NULL, 0);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    aicf_plan_create(g, &pd, &p);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    CHECK(g_live_allocs == 0, "%ld allocations not freed", g_live_allocs);
}

int main(void) {
    int t;
    const char* seed = getenv("AICF_SEED");
    g_rng = seed ? (uint64_t)strtoull(seed, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    printf("test_core: seed %llu\n", (unsigned long long)g_rng);
    test_results_and_dtypes();
    test_fp16();
    test_builder_errors();
    test_plan_errors();
    for (t = 0; t < 20; t++) test_memory_plan_random(t);
    for (t = 0; t < 10; t++) test_memory_plan_concat_views(t);
    test_batchnorm_folding(0);
    test_batchnorm_folding(1);
    test_plan_owns_copy();
    test_allocator();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
