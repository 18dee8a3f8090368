/* Plan files, the policy text, explain and DOT (src/75_plan_io.c), CPU suite.
     - policy text: format -> parse round trip of every value of every field; defaults for absent
       keys; comments, blanks, tabs, CRLF, units and boolean spellings; every bad input (unknown
       key, key twice, bad value per key, overflow, no '=', NUL byte, long line, too much text)
       is AICF_ERROR_INVALID_ARGUMENT (or LIMIT) with a message naming the line and key, and
       leaves *out alone; save/load as a file.
     - plan files on the CPU backend, for graphs built with the graph API (random weights) and
       the models of $AICF_TEST_DATA (default ../shared/data; missing -> SKIP): two plans of
       the same graph serialise to the same bytes; save -> load -> serialise is byte-identical;
       the loaded plan runs and gives bitwise the outputs of the original on the same random
       inputs; with and without fusion.
     - refusals: another graph (one weight byte, another dim binding), an edited policy, a
       flipped digit in a step / tensor line, truncation, a changed kernel-table fingerprint,
       format version, garbage, NUL bytes, long lines, missing lines, huge numbers: each is
       AICF_ERROR_PLAN_MISMATCH or AICF_ERROR_INVALID_MODEL with the message naming the line;
       and a few thousand random mutations of a valid file, none of which may load or crash.
     - CUDA plans through the fake libcuda (build/fakecuda/libcuda.so.1, or $AICF_FAKE_LIBCUDA)
       and an in-process fake cuBLASLt installed into the context (its heuristic returns three
       candidate algorithms, its cublasLtMatmulAlgoCheck accepts exactly those): fp32, fp16,
       im2col convolutions, cuBLASLt GEMMs with their algorithm records; save -> load
       identical; a file naming another valid algorithm is loaded with that algorithm (nothing
       re-decided), an invalid one is refused naming cublasLtMatmulAlgoCheck; another SM,
       another cuBLASLt version, no cuBLASLt, no CUDA at all are refused.
     - explain and DOT: every step, fused node, launch and the memory totals are there; DOT has
       one cluster per fused step and an edge per arena tensor read.
   Fresh random weights and inputs every run (seed printed; AICF_SEED=N repeats it).
   Ends with "N passed, N failed, N skipped". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail, g_skip;
static uint64_t g_rng;
static char g_tmp[512];

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

/* result `code` and a message containing every needle given (NULL-terminated list) */
static int err_is(aicf_context* ctx, aicf_result r, aicf_result code, const char* n1, const char* n2) {
    const char* m = aicf_last_error(ctx);
    return r == code && (!n1 || strstr(m, n1)) && (!n2 || strstr(m, n2));
}
#define CHECK_ERR(ctx, r, code, n1, n2)                                                            \
    CHECK(err_is(ctx, r, code, n1, n2), "expected %s with \"%s\" \"%s\", got %s: \"%s\"", aicf_result_str(code), \
          (n1) ? (n1) : "", (n2) ? (n2) : "", aicf_result_str(r), aicf_last_error(ctx))

static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)((double)(rnd() >> 11) / 9007199254740992.0); }

/* ---- text helpers ---- */
static char* dup_text(const char* s, size_t n) {
    char* d = (char*)malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* 1-based number of the line holding offset `off` */
static int line_of(const char* s, size_t off) {
    int l = 1;
    size_t i;
    for (i = 0; i < off; i++) l += s[i] == '\n';
    return l;
}

/* text with the first occurrence of `from` (searched after the start of the first line beginning
   with `anchor`, or anywhere if anchor is NULL) replaced by `to`; *line = its line; NULL if absent */
static char* replace_in(const char* text, const char* anchor, const char* from, const char* to, int* line) {
    const char* start = text;
    const char* at;
    char* out;
    size_t n = strlen(text), fl = strlen(from), tl = strlen(to);
    if (anchor) {
        char pat[256];
        snprintf(pat, sizeof pat, "\n%s", anchor);
        start = strstr(text, pat);
        if (!start) return NULL;
        start++;
    }
    at = strstr(start, from);
    if (!at) return NULL;
    out = (char*)malloc(n - fl + tl + 1);
    memcpy(out, text, (size_t)(at - text));
    memcpy(out + (at - text), to, tl);
    memcpy(out + (at - text) + tl, at + fl, n - (size_t)(at - text) - fl + 1);
    if (line) *line = line_of(text, (size_t)(at - text));
    return out;
}

static char* serialize(const aicf_plan* p) {
    size_t need = 0, need2 = 0;
    char* buf;
    if (aicf_plan_serialize(p, NULL, 0, &need) != AICF_SUCCESS || need == 0) return NULL;
    buf = (char*)malloc(need);
    if (aicf_plan_serialize(p, buf, need, &need2) != AICF_SUCCESS || need2 != need || strlen(buf) + 1 != need) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* every occurrence of `from` replaced by `to` (a new string) */
static char* replace_all(const char* text, const char* from, const char* to) {
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    const char* p = text;
    char *out, *o;
    while ((p = strstr(p, from)) != NULL) n++, p += fl;
    out = (char*)malloc(strlen(text) + n * (tl > fl ? tl - fl : 0) + 1);
    o = out;
    p = text;
    for (;;) {
        const char* at = strstr(p, from);
        if (!at) break;
        memcpy(o, p, (size_t)(at - p));
        o += at - p;
        memcpy(o, to, tl);
        o += tl;
        p = at + fl;
    }
    strcpy(o, p);
    return out;
}

typedef aicf_result (*text_fn)(const aicf_plan*, char*, size_t, size_t*);
static char* render(const aicf_plan* p, text_fn f) {
    size_t need = 0;
    char* buf;
    if (f(p, NULL, 0, &need) != AICF_SUCCESS || need == 0) return NULL;
    buf = (char*)malloc(need);
    if (f(p, buf, need, NULL) != AICF_SUCCESS) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int count_str(const char* s, const char* needle) {
    int n = 0;
    size_t k = strlen(needle);
    while ((s = strstr(s, needle)) != NULL) n++, s += k;
    return n;
}

/* ---- a small graph builder ---- */
typedef struct gb {
    aicf_context* ctx;
    aicf_graph* g;
    int ok;
    char err[1400];
} gb;

static void gb_fail(gb* b, const char* what) {
    if (b->ok) snprintf(b->err, sizeof b->err, "%.200s: %s", what, aicf_last_error(b->ctx));
    b->ok = 0;
}

static void gb_input(gb* b, const char* name, int rank, const int64_t* d, const char* sym0) {
    aicf_tensor_desc t;
    const char* params[AICF_MAX_RANK] = {0};
    int64_t dims[AICF_MAX_RANK];
    int i;
    for (i = 0; i < rank; i++) dims[i] = d[i];
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = dims;
    if (sym0) {
        dims[0] = -1;
        params[0] = sym0;
        t.dim_params = params;
    }
    if (b->ok && aicf_graph_add_input(b->g, &t) != AICF_SUCCESS) gb_fail(b, name);
}

/* a float constant of random values in [lo, hi) */
static void gb_const(gb* b, const char* name, int rank, const int64_t* d, float lo, float hi) {
    aicf_tensor_desc t;
    int64_t n = 1, i;
    float* v;
    for (i = 0; i < rank; i++) n *= d[i];
    v = (float*)malloc((size_t)n * sizeof(float));
    for (i = 0; i < n; i++) v[i] = frand(lo, hi);
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = d;
    t.data = v;
    t.data_bytes = (size_t)n * sizeof(float);
    if (b->ok && aicf_graph_add_constant(b->g, &t) != AICF_SUCCESS) gb_fail(b, name);
    free(v);
}

static void gb_const_i64(gb* b, const char* name, int n, const int64_t* vals) {
    aicf_tensor_desc t;
    int64_t d = n;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_INT64;
    t.rank = 1;
    t.dims = &d;
    t.data = vals;
    t.data_bytes = (size_t)n * sizeof(int64_t);
    if (b->ok && aicf_graph_add_constant(b->g, &t) != AICF_SUCCESS) gb_fail(b, name);
}

/* ins / outs: comma-separated names */
static void gb_node(gb* b, const char* op, const char* name, const char* ins, const char* outs, const aicf_attr* attrs, int n_attrs) {
    aicf_node_desc nd;
    char ib[512], ob[256];
    const char *iv[16], *ov[8];
    int ni = 0, no = 0;
    char* s;
    snprintf(ib, sizeof ib, "%s", ins);
    snprintf(ob, sizeof ob, "%s", outs);
    for (s = strtok(ib, ","); s && ni < 16; s = strtok(NULL, ",")) iv[ni++] = s;
    for (s = strtok(ob, ","); s && no < 8; s = strtok(NULL, ",")) ov[no++] = s;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = iv;
    nd.num_inputs = ni;
    nd.outputs = ov;
    nd.num_outputs = no;
    nd.attrs = attrs;
    nd.num_attrs = n_attrs;
    if (b->ok && aicf_graph_add_node(b->g, &nd) != AICF_SUCCESS) gb_fail(b, name);
}

static void gb_output(gb* b, const char* name) {
    if (b->ok && aicf_graph_add_output(b->g, name) != AICF_SUCCESS) gb_fail(b, name);
}

static aicf_attr attr_i(const char* name, int64_t v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INT;
    a.i = v;
    return a;
}

static aicf_attr attr_ints(const char* name, const int64_t* v, int n) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INTS;
    a.ints = v;
    a.count = n;
    return a;
}

/* MLP: x[batch,16] -> MatMul W1 -> + b1 -> Relu -> Gemm(W2^T, b2) -> Tanh -> Softmax */
static void build_mlp(gb* b, int64_t batch) {
    static const int64_t x[2] = {0, 16}, w1[2] = {16, 32}, b1[1] = {32}, w2[2] = {8, 32}, b2[1] = {8};
    aicf_attr ga[1];
    gb_input(b, "x", 2, x, "batch");
    gb_const(b, "W1", 2, w1, -0.5f, 0.5f);
    gb_const(b, "b1", 1, b1, -0.2f, 0.2f);
    gb_const(b, "W2", 2, w2, -0.5f, 0.5f);
    gb_const(b, "b2", 1, b2, -0.2f, 0.2f);
    gb_node(b, "MatMul", "fc1", "x,W1", "h0", NULL, 0);
    gb_node(b, "Add", "fc1_bias", "h0,b1", "h1", NULL, 0);
    gb_node(b, "Relu", "relu1", "h1", "h2", NULL, 0);
    ga[0] = attr_i("transB", 1);
    gb_node(b, "Gemm", "fc2", "h2,W2,b2", "h3", ga, 1);
    gb_node(b, "Tanh", "tanh2", "h3", "h4", NULL, 0);
    ga[0] = attr_i("axis", -1);
    gb_node(b, "Softmax", "softmax", "h4", "y", ga, 1);
    gb_output(b, "y");
    if (b->ok && aicf_graph_bind_dim(b->g, "batch", batch) != AICF_SUCCESS) gb_fail(b, "bind batch");
}

/* CNN: x[1,3,12,12] -> Conv3x3+B -> Relu -> MaxPool2 -> Conv1x1 -> + pooled (residual) -> Sigmoid
   -> GlobalAveragePool -> Flatten -> Gemm -> y */
static void build_cnn(gb* b) {
    static const int64_t x[4] = {1, 3, 12, 12}, w1[4] = {8, 3, 3, 3}, bb1[1] = {8}, w2[4] = {8, 8, 1, 1}, w3[2] = {5, 8}, c3[1] = {5};
    static const int64_t pads[4] = {1, 1, 1, 1}, k2[2] = {2, 2};
    aicf_attr a[2];
    gb_input(b, "x", 4, x, NULL);
    gb_const(b, "W1", 4, w1, -0.4f, 0.4f);
    gb_const(b, "B1", 1, bb1, -0.1f, 0.1f);
    gb_const(b, "W2", 4, w2, -0.4f, 0.4f);
    gb_const(b, "W3", 2, w3, -0.5f, 0.5f);
    gb_const(b, "C3", 1, c3, -0.1f, 0.1f);
    a[0] = attr_ints("pads", pads, 4);
    gb_node(b, "Conv", "conv1", "x,W1,B1", "c1", a, 1);
    gb_node(b, "Relu", "relu1", "c1", "r1", NULL, 0);
    a[0] = attr_ints("kernel_shape", k2, 2);
    a[1] = attr_ints("strides", k2, 2);
    gb_node(b, "MaxPool", "pool1", "r1", "p1", a, 2);
    gb_node(b, "Conv", "conv2", "p1,W2", "c2", NULL, 0);
    gb_node(b, "Add", "residual", "c2,p1", "s2", NULL, 0);
    gb_node(b, "Sigmoid", "sig2", "s2", "g2", NULL, 0);
    gb_node(b, "GlobalAveragePool", "gap", "g2", "gp", NULL, 0);
    gb_node(b, "Flatten", "flat", "gp", "f", NULL, 0);
    a[0] = attr_i("transB", 1);
    gb_node(b, "Gemm", "head", "f,W3,C3", "y", a, 1);
    gb_output(b, "y");
}

/* elementwise chains, broadcasting, an alias, a transpose, a concat; two inputs, two outputs */
static void build_ew(gb* b) {
    static const int64_t a[3] = {2, 3, 4}, c[3] = {1, 3, 1}, bv[1] = {4}, shp[2] = {6, 4}, perm[2] = {1, 0};
    aicf_attr at[1];
    gb_input(b, "a", 3, a, NULL);
    gb_input(b, "c", 3, c, NULL);
    gb_const(b, "bvec", 1, bv, -1.0f, 1.0f);
    gb_const_i64(b, "shape64", 2, shp);
    gb_node(b, "Add", "add_b", "a,bvec", "t1", NULL, 0);
    gb_node(b, "Mul", "mul_c", "t1,c", "t2", NULL, 0);
    gb_node(b, "Abs", "abs", "t2", "t3", NULL, 0);
    gb_node(b, "Sqrt", "sqrt", "t3", "t4", NULL, 0);
    gb_node(b, "Reshape", "reshape", "t4,shape64", "t5", NULL, 0);
    at[0] = attr_ints("perm", perm, 2);
    gb_node(b, "Transpose", "transpose", "t5", "y1", at, 1);
    gb_node(b, "Sub", "sub_c", "c,a", "u1", NULL, 0);
    at[0] = attr_i("axis", 0);
    gb_node(b, "Concat", "concat", "u1,a", "y2", at, 1);
    gb_output(b, "y1");
    gb_output(b, "y2");
}

typedef void (*build_fn)(gb*);
static void build_mlp4(gb* b) { build_mlp(b, 4); }

static const struct {
    const char* name;
    build_fn build;
} MODELS[] = {{"mlp", build_mlp4}, {"cnn", build_cnn}, {"ew", build_ew}};

static aicf_graph* make_graph(aicf_context* ctx, build_fn f, uint64_t weight_seed) {
    gb b;
    uint64_t saved = g_rng;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
    if (b.ok) aicf_graph_set_opset(b.g, "", 17);
    g_rng = weight_seed; /* the same weights for the same seed */
    if (b.ok) f(&b);
    g_rng = saved;
    if (!b.ok) {
        printf("  graph: %s\n", b.err);
        aicf_graph_destroy(b.g);
        return NULL;
    }
    return b.g;
}

/* ---- running a plan ---- */
typedef struct outs {
    int n;
    void* data[16];
    size_t bytes[16];
} outs;

static void outs_free(outs* o) {
    int i;
    for (i = 0; i < o->n; i++) free(o->data[i]);
    o->n = 0;
}

/* Runs p on inputs from `seed` (floats in [-2, 2), never all zero); returns 1 on success. */
static int run_plan(aicf_context* ctx, aicf_plan* p, uint64_t seed, outs* o) {
    aicf_exec* e = NULL;
    uint64_t saved = g_rng;
    int i, ok = 1;
    memset(o, 0, sizeof *o);
    if (aicf_exec_create(p, NULL, &e) != AICF_SUCCESS) {
        printf("  exec: %s\n", aicf_last_error(ctx));
        return 0;
    }
    g_rng = seed;
    for (i = 0; ok && i < aicf_plan_num_inputs(p); i++) {
        aicf_tensor_info ti;
        size_t k, n;
        float* v;
        aicf_plan_input_info(p, i, &ti);
        n = ti.bytes / 4;
        v = (float*)malloc(ti.bytes + 4);
        for (k = 0; k < n; k++) v[k] = frand(-2.0f, 2.0f);
        ok = ti.dtype == AICF_DTYPE_FLOAT32 && aicf_exec_set_input(e, i, v, ti.bytes) == AICF_SUCCESS;
        free(v);
    }
    g_rng = saved;
    if (ok && aicf_exec_run(e) != AICF_SUCCESS) ok = 0;
    for (i = 0; ok && i < aicf_plan_num_outputs(p) && i < 16; i++) {
        aicf_tensor_info ti;
        aicf_plan_output_info(p, i, &ti);
        o->bytes[i] = ti.bytes;
        o->data[i] = malloc(ti.bytes + 1);
        o->n = i + 1;
        if (aicf_exec_get_output(e, i, o->data[i], ti.bytes) != AICF_SUCCESS) ok = 0;
    }
    if (!ok) printf("  run: %s\n", aicf_last_error(ctx));
    aicf_exec_destroy(e);
    return ok;
}

static int outs_nontrivial(const outs* o) {
    int i;
    for (i = 0; i < o->n; i++) {
        size_t k, nz = 0;
        const float* f = (const float*)o->data[i];
        for (k = 0; k < o->bytes[i] / 4; k++) {
            if (!(fabsf(f[k]) < 1e30f)) return 0;
            nz += f[k] != 0.0f;
        }
        if (nz == 0) return 0;
    }
    return o->n > 0;
}

static int outs_equal(const outs* a, const outs* b) {
    int i;
    if (a->n != b->n) return 0;
    for (i = 0; i < a->n; i++)
        if (a->bytes[i] != b->bytes[i] || memcmp(a->data[i], b->data[i], a->bytes[i]) != 0) return 0;
    return 1;
}

/* ===================================================================================== */
/* policy text                                                                           */
/* ===================================================================================== */
static int policy_eq(const aicf_policy* a, const aicf_policy* b) {
    int i;
    if (!(a->precision == b->precision && a->allow_cpu_fallback == b->allow_cpu_fallback && a->workspace_limit == b->workspace_limit &&
          a->no_fusion == b->no_fusion && a->conv_algo == b->conv_algo && a->matmul_algo == b->matmul_algo &&
          !a->persistent == !b->persistent && !a->autotune == !b->autotune && !a->no_pdl == !b->no_pdl &&
          !a->gelu_tanh == !b->gelu_tanh))
        return 0;
    for (i = 0; i < AICF_MAX_PINS; i++) {
        const aicf_pin *x = &a->pins[i], *y = &b->pins[i];
        if (strcmp(x->node, y->node) != 0) return 0;
        if (x->node[0] && (x->kernel != y->kernel || x->variant != y->variant)) return 0;
    }
    return 1;
}

static aicf_result parse_str(aicf_context* ctx, const char* s, aicf_policy* out) { return aicf_policy_parse(ctx, s, strlen(s), out); }

/* pins: random sets written and read back; what a pin line refuses */
static void test_policy_pins(aicf_context* ctx) {
    static const char alpha[] = "abcXYZ019_./:-+ ()[]'\"=";
    int k, bad = 0;
    for (k = 0; k < 300; k++) {
        aicf_policy p, q;
        char buf[8192];
        int n = (int)(rnd() % (AICF_MAX_PINS + 1)), i, j;
        memset(&p, 0, sizeof p);
        p.autotune = (int)(rnd() & 1);
        p.persistent = (int)(rnd() & 1);
        p.gelu_tanh = (int)(rnd() & 1);
        for (i = 0; i < n; i++) {
            aicf_pin* pin = &p.pins[i];
            size_t len = 3 + (size_t)(rnd() % (AICF_PIN_NODE_CAP - 3));
            for (j = 0; j < (int)len; j++) pin->node[j] = alpha[rnd() % (sizeof alpha - 1)];
            pin->node[0] = 'n', pin->node[1] = (char)('a' + i), pin->node[len - 1] = 'z'; /* distinct, no blank at either end */
            pin->kernel = (aicf_kernel_choice)(1 + rnd() % 5);
            pin->variant = (pin->kernel == AICF_CHOICE_IM2COL_GEMM || pin->kernel == AICF_CHOICE_CUBLASLT) ? (int)(rnd() % 8)
                           : pin->kernel == AICF_CHOICE_IMPLICIT_GEMM_TC                                       ? (int)(rnd() % 7)
                                                                                                                : 0;
        }
        memset(&q, 0x5a, sizeof q);
        if (aicf_policy_format(&p, buf, sizeof buf, NULL) != AICF_SUCCESS || parse_str(ctx, buf, &q) != AICF_SUCCESS || !policy_eq(&p, &q)) {
            if (!bad) printf("     pin round trip failed on:\n%s(%s)\n", buf, aicf_last_error(ctx));
            bad++;
        }
    }
    CHECK(bad == 0, "policy pins: format -> parse round trip, %d of 300 random sets differ", bad);
    {
        aicf_policy q;
        CHECK(parse_str(ctx, "pin = cublaslt/3 /encoder/layer.0/attention/MatMul  # a comment\nautotune = 1\npin = direct conv 1", &q) ==
                      AICF_SUCCESS &&
                  q.autotune == 1 && strcmp(q.pins[0].node, "/encoder/layer.0/attention/MatMul") == 0 && q.pins[0].kernel == AICF_CHOICE_CUBLASLT &&
                  q.pins[0].variant == 3 && strcmp(q.pins[1].node, "conv 1") == 0 && q.pins[1].kernel == AICF_CHOICE_DIRECT &&
                  q.pins[1].variant == 0 && q.pins[2].node[0] == 0,
              "pin lines: names with spaces and slashes, /K, comments (%s)", aicf_last_error(ctx));
    }
    {
        static const struct {
            const char *text, *n1, *n2;
        } BAD[] = {
            {"pin = winograd conv1", "line 1", "does not start with a choice"},
            {"pin = direct", "line 1", "names no node"},
            {"pin = direct/1 conv1", "line 1", "/K follows only im2col_gemm or cublaslt"},
            {"pin = implicit_gemm_tc/7 conv1", "line 1", "implicit_gemm_tc (2^(K-1) K splits, 1..6)"},
            {"pin = generated/1 fc", "line 1", "/K follows only"},
            {"pin = cublaslt/8 mm", "line 1", "follows only im2col_gemm or cublaslt"},
            {"pin = cublaslt/ mm", "line 1", "follows only"},
            {"pin = cublaslt2 mm", "line 1", "does not start with a choice"},
            {"pin = direct conv1\npin = generated conv1", "line 2", "node 'conv1' is pinned twice"},
            {"autotune = 2", "line 1", "autotune"},
            {"pin = direct a\tb", "line 1", "the node name holds control byte 0x09"},
            {"pin = cublaslt \005pin", "line 1", "the node name holds control byte 0x05"},
            {"autotune = 1\nautotune = 0", "line 2", "'autotune' given twice"},
        };
        size_t i;
        for (i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
            aicf_policy q;
            CHECK_ERR(ctx, parse_str(ctx, BAD[i].text, &q), AICF_ERROR_INVALID_ARGUMENT, BAD[i].n1, BAD[i].n2);
        }
    }
    {
        char text[4096];
        size_t len = 0;
        aicf_policy q;
        int i;
        for (i = 0; i <= AICF_MAX_PINS; i++) len += (size_t)snprintf(text + len, sizeof text - len, "pin = direct c%d\n", i);
        CHECK_ERR(ctx, parse_str(ctx, text, &q), AICF_ERROR_INVALID_ARGUMENT, "line 17", "more than 16 pins");
        memcpy(text, "pin = direct ", 13);
        memset(text + 13, 'x', AICF_PIN_NODE_CAP);
        text[13 + AICF_PIN_NODE_CAP] = 0;
        CHECK_ERR(ctx, parse_str(ctx, text, &q), AICF_ERROR_INVALID_ARGUMENT, "line 1", "node name of 128 bytes");
    }
    { /* names a line cannot carry are refused by the writer */
        static const char* const NAMES[] = {"a#b", " lead", "trail ", "tab\there", "nl\nx"};
        size_t i;
        for (i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
            aicf_policy p;
            char buf[2048];
            memset(&p, 0, sizeof p);
            snprintf(p.pins[0].node, sizeof p.pins[0].node, "%s", NAMES[i]);
            p.pins[0].kernel = AICF_CHOICE_DIRECT;
            CHECK(aicf_policy_format(&p, buf, sizeof buf, NULL) == AICF_ERROR_INVALID_ARGUMENT, "policy format refuses the pin name '%s'",
                  NAMES[i]);
        }
    }
}


static void test_policy_roundtrip(aicf_context* ctx) {
    static const size_t limits[6] = {0, 1, 4096, (size_t)32 << 20, (size_t)3 << 30, SIZE_MAX};
    int pr, fb, nf, cv, mm, li, bad = 0, n = 0;
    for (pr = 0; pr < 4; pr++)
        for (fb = 0; fb < 2; fb++)
            for (nf = 0; nf < 2; nf++)
                for (cv = 0; cv < 4; cv++)
                    for (mm = 0; mm < 3; mm++)
                        for (li = 0; li < 6; li++) {
                            aicf_policy p, q;
                            char buf[1024];
                            size_t need = 0;
                            aicf_result r;
                            memset(&p, 0, sizeof p);
                            p.precision = (aicf_precision)pr;
                            p.allow_cpu_fallback = fb;
                            p.no_fusion = nf;
                            p.conv_algo = (aicf_conv_algo)cv;
                            p.matmul_algo = (aicf_matmul_algo)mm;
                            p.workspace_limit = limits[li];
                            memset(&q, 0x5a, sizeof q);
                            r = aicf_policy_format(&p, buf, sizeof buf, &need);
                            if (r != AICF_SUCCESS || need != strlen(buf) + 1) bad++;
                            else if (aicf_policy_parse(ctx, buf, strlen(buf), &q) != AICF_SUCCESS || !policy_eq(&p, &q)) bad++;
                            n++;
                        }
    CHECK(bad == 0, "policy format -> parse round trip: %d of %d combinations differ (%s)", bad, n, aicf_last_error(ctx));
    {
        aicf_policy p, q, z;
        memset(&z, 0, sizeof z);
        memset(&q, 0x5a, sizeof q);
        CHECK(aicf_policy_parse(ctx, "", 0, &q) == AICF_SUCCESS && policy_eq(&q, &z), "empty text gives the defaults");
        memset(&q, 0x5a, sizeof q);
        CHECK(aicf_policy_parse(ctx, NULL, 0, &q) == AICF_SUCCESS && policy_eq(&q, &z), "NULL, 0 gives the defaults");
        memset(&q, 0x5a, sizeof q);
        CHECK(parse_str(ctx, "# only a comment\n\n   \n\t\n", &q) == AICF_SUCCESS && policy_eq(&q, &z), "comments and blanks");
        memset(&q, 0x5a, sizeof q);
        CHECK(parse_str(ctx, "conv_algo = direct", &q) == AICF_SUCCESS && q.conv_algo == AICF_CONV_DIRECT &&
                  q.precision == AICF_PRECISION_DEFAULT && q.workspace_limit == 0 && q.no_fusion == 0 &&
                  q.matmul_algo == AICF_MATMUL_AUTO && q.allow_cpu_fallback == 0,
              "absent keys keep their defaults");
        memset(&p, 0, sizeof p);
        p.precision = AICF_PRECISION_FP16;
        p.conv_algo = AICF_CONV_IM2COL_GEMM;
        p.matmul_algo = AICF_MATMUL_GENERATED;
        p.workspace_limit = (size_t)64 << 20;
        p.no_fusion = 1;
        p.allow_cpu_fallback = 1;
        CHECK(parse_str(ctx,
                        "  precision=fp16   # half storage\r\n\tconv_algo\t=\tim2col_gemm\r\nmatmul_algo = generated\n"
                        "workspace_limit = 64 MiB\nno_fusion = yes\nallow_cpu_fallback = on\n",
                        &q) == AICF_SUCCESS &&
                  policy_eq(&p, &q),
              "spaces, tabs, CRLF, comments after values, units, yes/on (%s)", aicf_last_error(ctx));
        CHECK(parse_str(ctx, "workspace_limit = 2G", &q) == AICF_SUCCESS && q.workspace_limit == ((size_t)2 << 30), "2G");
        CHECK(parse_str(ctx, "workspace_limit = 1024B", &q) == AICF_SUCCESS && q.workspace_limit == 1024, "1024B");
        CHECK(parse_str(ctx, "workspace_limit = 3 KiB", &q) == AICF_SUCCESS && q.workspace_limit == 3072, "3 KiB");
        CHECK(parse_str(ctx, "workspace_limit = 007", &q) == AICF_SUCCESS && q.workspace_limit == 7, "leading zeros");
        CHECK(parse_str(ctx, "no_fusion = true\nallow_cpu_fallback = false", &q) == AICF_SUCCESS && q.no_fusion == 1 &&
                  q.allow_cpu_fallback == 0,
              "true/false");
        CHECK(parse_str(ctx, "no_fusion = off\nallow_cpu_fallback = 1", &q) == AICF_SUCCESS && q.no_fusion == 0 && q.allow_cpu_fallback == 1,
              "off/1");
        CHECK(parse_str(NULL, "precision = tf32", &q) == AICF_SUCCESS && q.precision == AICF_PRECISION_TF32, "NULL context");
        /* a nonzero boolean is written as 1 */
        memset(&p, 0, sizeof p);
        p.no_fusion = 7;
        {
            char buf[512];
            CHECK(aicf_policy_format(&p, buf, sizeof buf, NULL) == AICF_SUCCESS && strstr(buf, "no_fusion = 1\n"), "nonzero -> 1");
        }
    }
}

static void test_policy_errors(aicf_context* ctx) {
    static const struct {
        const char* text;
        const char* n1;
        const char* n2;
    } BAD[] = {
        {"precison = fp16", "line 1", "unknown key 'precison'"},
        {"\n\nfoo=1", "line 3", "unknown key 'foo'"},
        {"precision = fp16\nprecision = fp32", "line 2", "'precision' given twice"},
        {"precision = fp64", "line 1", "'fp64' is not one of default, fp32, tf32, fp16"},
        {"precision = FP16", "line 1", "precision"},
        {"conv_algo = winograd", "line 1", "'winograd' is not one of auto, direct, im2col_gemm"},
        {"matmul_algo = cublas", "line 1", "'cublas' is not one of auto, cublaslt, generated"},
        {"no_fusion = 2", "line 1", "no_fusion"},
        {"allow_cpu_fallback = maybe", "line 1", "allow_cpu_fallback"},
        {"workspace_limit = -1", "line 1", "workspace_limit"},
        {"workspace_limit = 99999999999999999999999", "line 1", "workspace_limit"},
        {"workspace_limit = 18446744073709551615 GiB", "line 1", "workspace_limit"},
        {"workspace_limit = 12 parsecs", "line 1", "workspace_limit"},
        {"workspace_limit = 0x10", "line 1", "workspace_limit"},
        {"workspace_limit = MiB", "line 1", "workspace_limit"},
        {"precision fp16", "line 1", "expected 'key = value'"},
        {"= fp16", "line 1", "no key"},
        {"precision =", "line 1", "has no value"},
        {"precision = fp16 # ok\nconv_algo", "line 2", "expected 'key = value'"},
    };
    size_t i;
    for (i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        aicf_policy q, before;
        aicf_result r;
        memset(&q, 0x5a, sizeof q);
        before = q;
        r = parse_str(ctx, BAD[i].text, &q);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, BAD[i].n1, BAD[i].n2);
        CHECK(memcmp(&q, &before, sizeof q) == 0, "bad policy '%s' wrote *out", BAD[i].text);
    }
    {
        char text[64] = "precision = fp16\nno_fusion = 1";
        aicf_policy q;
        text[5] = 0; /* NUL inside the first line */
        CHECK_ERR(ctx, aicf_policy_parse(ctx, text, strlen("precision = fp16\nno_fusion = 1"), &q), AICF_ERROR_INVALID_ARGUMENT,
                  "line 1", "NUL byte");
    }
    {
        size_t n = 5000;
        char* text = (char*)malloc(n + 1);
        aicf_policy q;
        memset(text, ' ', n);
        memcpy(text + n - 16, "precision = fp32", 16);
        text[n] = 0;
        CHECK_ERR(ctx, aicf_policy_parse(ctx, text, n, &q), AICF_ERROR_INVALID_ARGUMENT, "line 1", "longer than 4096");
        free(text);
    }
    {
        size_t n = ((size_t)1 << 20) + 10;
        char* text = (char*)malloc(n);
        aicf_policy q;
        memset(text, '\n', n);
        CHECK_ERR(ctx, aicf_policy_parse(ctx, text, n, &q), AICF_ERROR_LIMIT, "policy text", NULL);
        free(text);
    }
    {
        aicf_policy p, q;
        char buf[256];
        size_t need = 0;
        CHECK(aicf_policy_parse(ctx, "x", 1, NULL) == AICF_ERROR_INVALID_ARGUMENT, "NULL out");
        CHECK(aicf_policy_parse(ctx, NULL, 3, &q) == AICF_ERROR_INVALID_ARGUMENT, "NULL text with a length");
        memset(&p, 0, sizeof p);
        p.precision = (aicf_precision)9;
        CHECK(aicf_policy_format(&p, buf, sizeof buf, &need) == AICF_ERROR_INVALID_ARGUMENT && buf[0] == 0, "precision 9");
        p.precision = AICF_PRECISION_FP32;
        p.conv_algo = (aicf_conv_algo)-1;
        CHECK(aicf_policy_format(&p, buf, sizeof buf, &need) == AICF_ERROR_INVALID_ARGUMENT, "conv_algo -1");
        p.conv_algo = AICF_CONV_AUTO;
        p.matmul_algo = (aicf_matmul_algo)3;
        CHECK(aicf_policy_format(&p, buf, sizeof buf, &need) == AICF_ERROR_INVALID_ARGUMENT, "matmul_algo 3");
        p.matmul_algo = AICF_MATMUL_AUTO;
        CHECK(aicf_policy_format(&p, buf, 10, &need) == AICF_SUCCESS && strlen(buf) == 9 && need > 10, "truncated format");
        CHECK(aicf_policy_format(NULL, buf, sizeof buf, &need) == AICF_ERROR_INVALID_ARGUMENT, "NULL policy");
    }
    /* random bytes never crash; a success is a valid policy */
    {
        int k, bad = 0;
        for (k = 0; k < 2000; k++) {
            char text[96];
            size_t n = (size_t)(rnd() % sizeof text), j;
            aicf_policy q;
            aicf_result r;
            static const char alpha[] = "precision=fp16tf32conv_algoim2col_gemmdirectautomatmul_algo01 \n#\tGiBMKworkspace_limit";
            for (j = 0; j < n; j++) text[j] = (rnd() & 3) ? alpha[rnd() % (sizeof alpha - 1)] : (char)(rnd() & 255);
            r = aicf_policy_parse(ctx, text, n, &q);
            if (r == AICF_SUCCESS) {
                char buf[512];
                aicf_policy q2;
                if (aicf_policy_format(&q, buf, sizeof buf, NULL) != AICF_SUCCESS || parse_str(ctx, buf, &q2) != AICF_SUCCESS ||
                    !policy_eq(&q, &q2))
                    bad++;
            } else if (r != AICF_ERROR_INVALID_ARGUMENT || !aicf_last_error(ctx)[0]) {
                bad++;
            }
        }
        CHECK(bad == 0, "random policy texts: %d misbehaved", bad);
    }
}

static void test_policy_files(aicf_context* ctx) {
    char path[700];
    aicf_policy p, q;
    FILE* f;
    memset(&p, 0, sizeof p);
    p.precision = AICF_PRECISION_TF32;
    p.workspace_limit = 12345;
    p.matmul_algo = AICF_MATMUL_CUBLASLT;
    snprintf(path, sizeof path, "%s/aicf_test_policy_%llu.txt", g_tmp, (unsigned long long)(rnd() % 1000000));
    CHECK(aicf_policy_save(ctx, &p, path) == AICF_SUCCESS, "policy save: %s", aicf_last_error(ctx));
    memset(&q, 0x5a, sizeof q);
    CHECK(aicf_policy_load(ctx, path, &q) == AICF_SUCCESS && policy_eq(&p, &q), "policy load: %s", aicf_last_error(ctx));
    f = fopen(path, "wb");
    if (f) {
        fputs("precision = fp16\n# fine\nconv_algo = sideways\n", f);
        fclose(f);
    }
    CHECK_ERR(ctx, aicf_policy_load(ctx, path, &q), AICF_ERROR_INVALID_ARGUMENT, "line 3", "sideways");
    CHECK(strstr(aicf_last_error(ctx), path) != NULL, "policy load error names the path: %s", aicf_last_error(ctx));
    remove(path);
    CHECK_ERR(ctx, aicf_policy_load(ctx, path, &q), AICF_ERROR_IO, "cannot open", NULL);
    CHECK_ERR(ctx, aicf_policy_save(ctx, &p, "/nonexistent-dir/x/policy.txt"), AICF_ERROR_IO, "cannot create", NULL);
}

/* ===================================================================================== */
/* plan files on the CPU                                                                 */
/* ===================================================================================== */

/* Plans g twice (deterministic text), saves, loads, runs both: every check on one graph. */
static void roundtrip(aicf_context* ctx, aicf_graph* g, const char* name, const aicf_plan_desc* pd, int run) {
    aicf_plan *p1 = NULL, *p1b = NULL, *p2 = NULL, *p3 = NULL;
    char *s1 = NULL, *s1b = NULL, *s2 = NULL, *s3 = NULL, *f1 = NULL, *f2 = NULL;
    char path[700];
    aicf_result r;
    r = aicf_plan_create(g, pd, &p1);
    CHECK(r == AICF_SUCCESS, "%s: plan: %s", name, aicf_last_error(ctx));
    if (r != AICF_SUCCESS) return;
    CHECK(aicf_plan_create(g, pd, &p1b) == AICF_SUCCESS, "%s: second plan", name);
    s1 = serialize(p1);
    s1b = p1b ? serialize(p1b) : NULL;
    CHECK(s1 && s1b && strcmp(s1, s1b) == 0, "%s: two plans of the same graph serialise differently", name);
    snprintf(path, sizeof path, "%s/aicf_test_plan_%llu.plan", g_tmp, (unsigned long long)(rnd() % 1000000));
    CHECK(aicf_plan_save(p1, path) == AICF_SUCCESS, "%s: save: %s", name, aicf_last_error(ctx));
    r = aicf_plan_load(g, path, &p2);
    CHECK(r == AICF_SUCCESS && p2, "%s: load: %s", name, aicf_last_error(ctx));
    if (p2) {
        s2 = serialize(p2);
        CHECK(s1 && s2 && strcmp(s1, s2) == 0, "%s: save -> load -> serialise is not byte-identical", name);
        f1 = render(p1, aicf_plan_format);
        f2 = render(p2, aicf_plan_format);
        CHECK(f1 && f2 && strcmp(f1, f2) == 0, "%s: loaded plan prints differently", name);
    }
    if (s1) {
        r = aicf_plan_load_memory(g, s1, strlen(s1), &p3);
        CHECK(r == AICF_SUCCESS && p3, "%s: load_memory: %s", name, aicf_last_error(ctx));
        if (p3) s3 = serialize(p3);
        CHECK(!p3 || (s3 && strcmp(s1, s3) == 0), "%s: load_memory text differs", name);
    }
    if (run && p2) {
        outs o1, o2;
        uint64_t seed = rnd();
        int ok1 = run_plan(ctx, p1, seed, &o1), ok2 = run_plan(ctx, p2, seed, &o2);
        CHECK(ok1 && ok2, "%s: runs", name);
        if (ok1 && ok2) {
            CHECK(outs_nontrivial(&o1), "%s: outputs are all zero or not finite", name);
            CHECK(outs_equal(&o1, &o2), "%s: the loaded plan's outputs differ from the original's", name);
        }
        outs_free(&o1);
        outs_free(&o2);
    }
    remove(path);
    free(s1);
    free(s1b);
    free(s2);
    free(s3);
    free(f1);
    free(f2);
    aicf_plan_destroy(p1);
    aicf_plan_destroy(p1b);
    aicf_plan_destroy(p2);
    aicf_plan_destroy(p3);
}

static void test_cpu_roundtrips(aicf_context* ctx) {
    size_t i;
    int nf;
    for (i = 0; i < sizeof MODELS / sizeof MODELS[0]; i++)
        for (nf = 0; nf < 2; nf++) {
            aicf_graph* g = make_graph(ctx, MODELS[i].build, rnd());
            aicf_plan_desc pd;
            char name[96];
            CHECK(g != NULL, "%s: graph", MODELS[i].name);
            if (!g) continue;
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CPU;
            pd.policy.no_fusion = nf;
            snprintf(name, sizeof name, "%s%s", MODELS[i].name, nf ? " (no fusion)" : "");
            roundtrip(ctx, g, name, &pd, 1);
            aicf_graph_destroy(g);
        }
    /* the default backend falling back to the CPU (this context has no CUDA) */
    {
        aicf_graph* g = make_graph(ctx, build_cnn, rnd());
        aicf_plan_desc pd;
        memset(&pd, 0, sizeof pd);
        pd.policy.allow_cpu_fallback = 1;
        if (g) roundtrip(ctx, g, "cnn (default backend, CPU fallback)", &pd, 1);
        aicf_graph_destroy(g);
    }
}

/* the models of the test data set, at batch 1 */
static void test_data_models(aicf_context* ctx) {
    static const char* const names[] = {"mnist", "mlp_policy", "encoder_tiny", "mobilenet_v3_small"};
    const char* root = getenv("AICF_TEST_DATA");
    size_t i;
    if (!root || !*root) root = "../shared/data";
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        aicf_graph* g = NULL;
        aicf_plan_desc pd;
        FILE* f;
        int t, j;
        snprintf(path, sizeof path, "%s/models/%s/model.onnx", root, names[i]);
        f = fopen(path, "rb");
        if (!f) {
            printf("SKIP %s: %s not found (set AICF_TEST_DATA)\n", names[i], path);
            g_skip++;
            continue;
        }
        fclose(f);
        if (aicf_graph_load_onnx(ctx, path, NULL, &g) != AICF_SUCCESS) {
            CHECK(0, "%s: load: %s", path, aicf_last_error(ctx));
            continue;
        }
        for (t = 0; t < g->n_inputs; t++) /* every symbolic dim = 1 */
            for (j = 0; j < g->tensors[g->inputs[t]].shape.rank; j++) {
                const char* dp = g->tensors[g->inputs[t]].dim_param[j];
                if (g->tensors[g->inputs[t]].shape.d[j] < 0 && dp) aicf_graph_bind_dim(g, dp, 1);
            }
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CPU;
        {
            int f0 = g_fail;
            roundtrip(ctx, g, names[i], &pd, 1);
            printf("%s %s: CPU plan saved, loaded, identical, same outputs\n", g_fail == f0 ? "ok  " : "FAIL", names[i]);
        }
        pd.policy.no_fusion = 1;
        roundtrip(ctx, g, names[i], &pd, 0);
        aicf_graph_destroy(g);
    }
}

/* one refusal: `text` (n bytes) loaded against g must fail with `code` naming n1 and n2 */
static void expect_refused(aicf_context* ctx, aicf_graph* g, const char* what, const char* text, size_t n, aicf_result code,
                           const char* n1, const char* n2) {
    aicf_plan* p = (aicf_plan*)(uintptr_t)1;
    aicf_result r = aicf_plan_load_memory(g, text, n, &p);
    CHECK(err_is(ctx, r, code, n1, n2) && p == NULL, "%s: expected %s with \"%s\" \"%s\", got %s: \"%s\"", what, aicf_result_str(code),
          n1 ? n1 : "", n2 ? n2 : "", aicf_result_str(r), aicf_last_error(ctx));
    if (r == AICF_SUCCESS && p) aicf_plan_destroy(p);
}

static void test_cpu_refusals(aicf_context* ctx) {
    uint64_t wseed = rnd();
    aicf_graph* g = make_graph(ctx, build_cnn, wseed);
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    char *s, *e, want[64];
    int line;
    size_t n;
    if (!g) {
        CHECK(0, "cnn graph");
        return;
    }
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS || !(s = serialize(p))) {
        CHECK(0, "cnn plan: %s", aicf_last_error(ctx));
        aicf_graph_destroy(g);
        aicf_plan_destroy(p);
        return;
    }
    n = strlen(s);
    /* another graph: one weight byte, the same graph rebuilt with the same weights loads */
    {
        aicf_graph* g2 = make_graph(ctx, build_cnn, wseed);
        aicf_plan* p2 = NULL;
        CHECK(g2 && aicf_plan_load_memory(g2, s, n, &p2) == AICF_SUCCESS, "the same graph rebuilt loads: %s", aicf_last_error(ctx));
        aicf_plan_destroy(p2);
        if (g2) {
            int w = aicf__graph_find(g2, "W2");
            ((unsigned char*)g2->tensors[w].data)[5] ^= 0x01; /* one bit of one weight */
            expect_refused(ctx, g2, "one weight byte", s, n, AICF_ERROR_PLAN_MISMATCH, "line 6", "not the one the plan was made for");
        }
        aicf_graph_destroy(g2);
    }
    {
        aicf_graph* g3 = make_graph(ctx, build_mlp4, wseed);
        aicf_graph* g4 = NULL;
        aicf_plan* p3 = NULL;
        char* s3 = NULL;
        gb b;
        if (g3 && aicf_plan_create(g3, &pd, &p3) == AICF_SUCCESS) s3 = serialize(p3);
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
        if (b.ok) {
            uint64_t sv = g_rng;
            aicf_graph_set_opset(b.g, "", 17);
            g_rng = wseed;
            build_mlp(&b, 2); /* the same weights, batch 2 */
            g_rng = sv;
            g4 = b.ok ? b.g : NULL;
            if (!b.ok) aicf_graph_destroy(b.g);
        }
        if (s3 && g4) expect_refused(ctx, g4, "another dim binding", s3, strlen(s3), AICF_ERROR_PLAN_MISMATCH, "model fingerprint", NULL);
        else CHECK(0, "mlp graphs for the binding case");
        free(s3);
        aicf_plan_destroy(p3);
        aicf_graph_destroy(g3);
        aicf_graph_destroy(g4);
    }
    /* an edited policy: the plan rebuilt from it differs (fusion off: the step count) */
    e = replace_in(s, "policy no_fusion", "no_fusion = 0", "no_fusion = 1", &line);
    if (e) {
        int pl = 0;
        char* q = replace_in(s, NULL, "\nplan ", "\nplan ", &pl);
        snprintf(want, sizeof want, "line %d differs", pl + 1);
        expect_refused(ctx, g, "policy no_fusion edited", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, "steps=");
        free(q);
        free(e);
    } else CHECK(0, "no_fusion line");
    e = replace_in(s, "policy precision", "fp32", "fp64", &line);
    snprintf(want, sizeof want, "line %d", line);
    if (e) expect_refused(ctx, g, "bad policy value", e, strlen(e), AICF_ERROR_INVALID_MODEL, want, "fp64");
    free(e);
    e = replace_in(s, "policy conv_algo", "policy conv_algo", "policy conv_algorithm", &line);
    snprintf(want, sizeof want, "line %d", line);
    if (e) expect_refused(ctx, g, "unknown policy key", e, strlen(e), AICF_ERROR_INVALID_MODEL, want, "conv_algorithm");
    free(e);
    /* a flipped digit in a step line and in a tensor line */
    e = replace_in(s, "step 1 ", "node=", "node=1", &line);
    snprintf(want, sizeof want, "line %d differs", line);
    if (e) expect_refused(ctx, g, "step line digit", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, "step 1 ");
    else CHECK(0, "step 1 line");
    free(e);
    e = replace_in(s, "step 2 ", "\n  out ", "\n  out 1", &line);
    snprintf(want, sizeof want, "line %d differs", line + 1);
    if (e) expect_refused(ctx, g, "step out digit", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, "  out ");
    free(e);
    e = replace_in(s, "tensor ", "bytes=", "bytes=9", &line);
    snprintf(want, sizeof want, "line %d differs", line);
    if (e) expect_refused(ctx, g, "tensor line digit", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, "tensor ");
    free(e);
    e = replace_in(s, "memory ", "arena=", "arena=1", &line);
    snprintf(want, sizeof want, "line %d differs", line);
    if (e) expect_refused(ctx, g, "memory line", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, "memory arena=1");
    free(e);
    e = replace_in(s, "step 0 ", "reason \"", "reason \"!", &line);
    snprintf(want, sizeof want, "line %d differs", line);
    if (e) expect_refused(ctx, g, "reason edited", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want, NULL);
    free(e);
    e = replace_in(s, NULL, "# aicf plan", "# an aicf plan", &line);
    if (e) expect_refused(ctx, g, "comment edited", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "line 2 differs", NULL);
    free(e);
    /* removing a whole step line keeps the end line: a difference, not a truncation */
    {
        const char* a = strstr(s, "\nstep 1 ");
        const char* z = a ? strchr(a + 1, '\n') : NULL;
        if (a && z) {
            size_t k = (size_t)(a - s);
            char* d = (char*)malloc(n + 1);
            memcpy(d, s, k);
            memcpy(d + k, z, n - (size_t)(z - s) + 1);
            snprintf(want, sizeof want, "line %d differs", line_of(s, k + 1));
            expect_refused(ctx, g, "a step line removed", d, strlen(d), AICF_ERROR_PLAN_MISMATCH, want, NULL);
            free(d);
        }
    }
    /* truncation */
    expect_refused(ctx, g, "half", s, n / 2, AICF_ERROR_INVALID_MODEL, "does not end with the line 'end'", NULL);
    expect_refused(ctx, g, "minus one byte", s, n - 1, AICF_ERROR_INVALID_MODEL, "truncated", NULL);
    expect_refused(ctx, g, "without the end line", s, n - 4, AICF_ERROR_INVALID_MODEL, "truncated", NULL);
    expect_refused(ctx, g, "just the magic", s, 12, AICF_ERROR_INVALID_MODEL, "truncated", NULL);
    expect_refused(ctx, g, "empty", s, 0, AICF_ERROR_INVALID_MODEL, "empty", NULL);
    {
        char* d = (char*)malloc(n + 8);
        memcpy(d, s, n);
        memcpy(d + n, "extra\n", 7);
        expect_refused(ctx, g, "after end", d, n + 6, AICF_ERROR_INVALID_MODEL, "does not end with the line 'end'", NULL);
        free(d);
    }
    /* the kernel table, format, header lines */
    {
        const char* fpv = strstr(s, "kernel_table fingerprint=");
        if (fpv) {
            char* d = dup_text(s, n);
            char* c = d + (fpv - s) + strlen("kernel_table fingerprint=");
            *c = *c == '0' ? '1' : '0';
            expect_refused(ctx, g, "table fingerprint", d, n, AICF_ERROR_PLAN_MISMATCH, "line 3", "kernel table differs");
            free(d);
        } else CHECK(0, "kernel_table line");
    }
    e = replace_in(s, NULL, "modules=", "modules=1", &line);
    if (e) expect_refused(ctx, g, "table modules", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "kernel table differs", NULL);
    free(e);
    e = replace_in(s, NULL, "aicf-plan 1", "aicf-plan 2", &line);
    if (e) expect_refused(ctx, g, "format 2", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "line 1", "format 'aicf-plan 2'");
    free(e);
    e = replace_in(s, NULL, "aicf-plan 1", "GIF89a", &line);
    if (e) expect_refused(ctx, g, "garbage header", e, strlen(e), AICF_ERROR_INVALID_MODEL, "line 1", "not an aicf plan");
    free(e);
    e = replace_in(s, NULL, "backend requested=cpu", "backend requested=gpu", &line);
    if (e) expect_refused(ctx, g, "backend garbage", e, strlen(e), AICF_ERROR_INVALID_MODEL, "line 4", "backend requested=");
    free(e);
    e = replace_in(s, NULL, "backend requested=cpu target=cpu", "backend requested=cpu target=cuda", &line);
    if (e) expect_refused(ctx, g, "backend contradiction", e, strlen(e), AICF_ERROR_INVALID_MODEL, "line 4", NULL);
    free(e);
    e = replace_in(s, NULL, "device cpu", "device gpu", &line);
    if (e) expect_refused(ctx, g, "device of a CPU plan", e, strlen(e), AICF_ERROR_INVALID_MODEL, "line 5", "device cpu");
    free(e);
    e = replace_in(s, NULL, "\nmodel fingerprint=", "\nmodel_fingerprint=", &line);
    if (e) expect_refused(ctx, g, "no model line", e, strlen(e), AICF_ERROR_INVALID_MODEL, "no 'model' line", NULL);
    free(e);
    e = replace_in(s, NULL, "\nplan nodes", "\nplan_nodes", &line);
    if (e) expect_refused(ctx, g, "no plan line", e, strlen(e), AICF_ERROR_INVALID_MODEL, "no 'plan' line", NULL);
    free(e);
    /* NUL byte and a long line */
    {
        char* d = dup_text(s, n);
        const char* t = strstr(s, "\ntensor ");
        if (t) {
            d[(t - s) + 3] = 0;
            snprintf(want, sizeof want, "line %d", line_of(s, (size_t)(t - s) + 1));
            expect_refused(ctx, g, "NUL byte", d, n, AICF_ERROR_INVALID_MODEL, want, "NUL byte");
        }
        free(d);
    }
    {
        size_t big = 70000, k = (size_t)(strstr(s, "\nmemory ") - s) + 1;
        char* d = (char*)malloc(n + big + 2);
        memcpy(d, s, k);
        memset(d + k, 'x', big);
        d[k + big] = '\n';
        memcpy(d + k + big + 1, s + k, n - k + 1);
        expect_refused(ctx, g, "long line", d, n + big + 1, AICF_ERROR_INVALID_MODEL, "longer than 65536", NULL);
        free(d);
    }
    /* op / algo lines with huge or malformed numbers (no CPU plan has them: parsed anyway) */
    e = replace_in(s, "step 1 ", "\n  reason", "\n  op 0 matmul algo=99999999999999999999999 args=00\n  reason", &line);
    snprintf(want, sizeof want, "line %d", line + 1);
    if (e) expect_refused(ctx, g, "huge algo index", e, strlen(e), AICF_ERROR_INVALID_MODEL, want, "algo=N");
    free(e);
    e = replace_in(s, "step 1 ", "\n  reason", "\n  op 0 matmul algo=0 args=zz\n  reason", &line);
    if (e) expect_refused(ctx, g, "bad args hex", e, strlen(e), AICF_ERROR_INVALID_MODEL, "args=", "hex");
    free(e);
    e = replace_in(s, "step 1 ", "\n  reason",
                   "\n  algo 0 blob=0000000000000000,0000000000000000,0000000000000000,0000000000000000,0000000000000000,"
                   "0000000000000000,0000000000000000,0000000000000000 workspace=184467440737095516160 cublaslt=1 align=256,256,256,256 "
                   "results=1\n  reason",
                   &line);
    snprintf(want, sizeof want, "line %d", line + 1);
    if (e) expect_refused(ctx, g, "huge workspace", e, strlen(e), AICF_ERROR_INVALID_MODEL, want, "workspace=");
    free(e);
    e = replace_in(s, "step 1 ", "\n  reason", "\n  algo 0 blob=00 workspace=0\n  reason", &line);
    if (e) expect_refused(ctx, g, "short blob", e, strlen(e), AICF_ERROR_INVALID_MODEL, "blob=", NULL);
    free(e);
    e = replace_in(s, "step 1 ", "\n  reason",
                   "\n  algo 0 blob=0000000000000000,0000000000000000,0000000000000000,0000000000000000,0000000000000000,"
                   "0000000000000000,0000000000000000,0000000000000000 workspace=0 cublaslt=1 align=512,256,256,256 results=1\n  reason",
                   &line);
    if (e) expect_refused(ctx, g, "align > 256", e, strlen(e), AICF_ERROR_INVALID_MODEL, "align=", NULL);
    free(e);
    {
        char mm[600];
        int k;
        size_t o = 0;
        o += (size_t)snprintf(mm, sizeof mm, "\n  op 0 matmul algo=3 args=");
        for (k = 0; k < (int)sizeof(aicf__matmul_desc); k++) o += (size_t)snprintf(mm + o, sizeof mm - o, "00");
        snprintf(mm + o, sizeof mm - o, " patch=-\n  reason");
        e = replace_in(s, "step 1 ", "\n  reason", mm, &line);
        if (e) expect_refused(ctx, g, "matmul without its algo line", e, strlen(e), AICF_ERROR_INVALID_MODEL, "algorithm 3", NULL);
        free(e);
    }
    /* a file from disk: the message names the path; a missing file is an I/O error */
    {
        char path[700];
        FILE* f;
        aicf_plan* q = NULL;
        snprintf(path, sizeof path, "%s/aicf_test_trunc_%llu.plan", g_tmp, (unsigned long long)(rnd() % 1000000));
        f = fopen(path, "wb");
        if (f) {
            fwrite(s, 1, n / 3, f);
            fclose(f);
        }
        {
            const char* pp = path;
            CHECK_ERR(ctx, aicf_plan_load(g, path, &q), AICF_ERROR_INVALID_MODEL, pp, "truncated");
        }
        remove(path);
        CHECK_ERR(ctx, aicf_plan_load(g, path, &q), AICF_ERROR_IO, "cannot open", NULL);
        CHECK(q == NULL, "*out stays NULL");
        CHECK(aicf_plan_load(NULL, path, &q) == AICF_ERROR_INVALID_ARGUMENT, "NULL graph");
        CHECK(aicf_plan_load_memory(g, NULL, 5, &q) == AICF_ERROR_INVALID_ARGUMENT, "NULL data");
        CHECK(aicf_plan_load_memory(g, s, n, NULL) == AICF_ERROR_INVALID_ARGUMENT, "NULL out");
        CHECK_ERR(ctx, aicf_plan_save(p, "/nonexistent-dir/x/a.plan"), AICF_ERROR_IO, "cannot create", NULL);
    }
    /* serialise into a small buffer: truncated, NUL-terminated, the same length asked */
    {
        char small[40];
        size_t need = 0;
        CHECK(aicf_plan_serialize(p, small, sizeof small, &need) == AICF_SUCCESS && strlen(small) == sizeof small - 1 &&
                  need == n + 1 && memcmp(small, s, sizeof small - 1) == 0,
              "serialise into 40 bytes: need %zu of %zu", need, n + 1);
    }
    /* random mutations: never a crash; a refusal always with a message; a success only when the
       mutation made another valid plan file (e.g. "workspace_limit = 0" -> "= 8" on a CPU plan),
       which the loaded plan then re-serialises to byte for byte */
    {
        int k, bad = 0, mism = 0, inval = 0, valid = 0;
        char* d = (char*)malloc(n + 1);
        static const char pool[] = "0123456789 =\n\"\\,xyz-";
        for (k = 0; k < 3000; k++) {
            aicf_plan* q = NULL;
            aicf_result r;
            int m, nm = 1 + (int)(rnd() % 3);
            size_t len = n;
            memcpy(d, s, n + 1);
            for (m = 0; m < nm; m++) {
                size_t at = (size_t)(rnd() % n);
                char c = (rnd() & 1) ? pool[rnd() % (sizeof pool - 1)] : (char)(rnd() & 255);
                if (d[at] == c) c = (char)(c ^ 1);
                d[at] = c;
            }
            if (k % 10 == 0) len = (size_t)(rnd() % n);
            r = aicf_plan_load_memory(g, d, len, &q);
            if (r == AICF_ERROR_PLAN_MISMATCH) mism++;
            else if (r == AICF_ERROR_INVALID_MODEL) inval++;
            if (r == AICF_SUCCESS && q) {
                size_t qn = 0;
                char* qs;
                aicf_plan_serialize(q, NULL, 0, &qn);
                qs = (char*)malloc(qn ? qn : 1);
                if (qs && aicf_plan_serialize(q, qs, qn, NULL) == AICF_SUCCESS && qn == len + 1 && memcmp(qs, d, len) == 0) {
                    valid++;
                    free(qs);
                    aicf_plan_destroy(q);
                    continue;
                }
                free(qs);
            }
            if ((r != AICF_ERROR_PLAN_MISMATCH && r != AICF_ERROR_INVALID_MODEL) || q || !aicf_last_error(ctx)[0]) {
                if (bad++ < 3) printf("  mutation %d: %s: %s\n", k, aicf_result_str(r), aicf_last_error(ctx));
                if (q) aicf_plan_destroy(q);
            }
        }
        CHECK(bad == 0 && mism > 0 && inval > 0 && valid < 30,
              "random mutations: %d misbehaved (%d mismatches, %d malformed, %d other valid plans)", bad, mism, inval, valid);
        free(d);
    }
    free(s);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
}

/* explain and DOT on a fused plan */
static void test_explain_dot(aicf_context* ctx) {
    aicf_graph* g = make_graph(ctx, build_cnn, rnd());
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    char *x = NULL, *d = NULL;
    int i, fused = 0, arena_reads = 0;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    if (!g || aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) {
        CHECK(0, "explain plan: %s", aicf_last_error(ctx));
        aicf_graph_destroy(g);
        return;
    }
    x = render(p, aicf_plan_explain);
    d = render(p, aicf_plan_dot);
    CHECK(x && d, "explain and dot render");
    if (x && d) {
        for (i = 0; i < p->n_steps; i++) {
            const aicf__step* st = &p->steps[i];
            char want[160];
            int j;
            snprintf(want, sizeof want, "step %d: %s '%s'", i, p->g->nodes[st->node].op_type, p->g->nodes[st->node].name);
            CHECK(strstr(x, want) != NULL, "explain lacks \"%s\"", want);
            for (j = 0; j < st->n_epi; j++) {
                snprintf(want, sizeof want, "%s '%s'", p->g->nodes[st->epi[j].node].op_type, p->g->nodes[st->epi[j].node].name);
                CHECK(strstr(x, want) != NULL, "explain lacks the fused node \"%s\"", want);
                snprintf(want, sizeof want, "s%d_%d [label=\"%s\\n%s\"]", i, j + 1, p->g->nodes[st->epi[j].node].op_type,
                         p->g->nodes[st->epi[j].node].name);
                CHECK(strstr(d, want) != NULL, "dot lacks the fused node %s", want);
            }
            if (st->n_epi) {
                snprintf(want, sizeof want, "subgraph cluster_%d {", i);
                CHECK(strstr(d, want) != NULL, "dot lacks %s", want);
                fused++;
            }
            for (j = 0; j < st->n_in; j++) arena_reads += st->in[j] >= 0 && p->loc[st->in[j]].space == AICF__SPACE_ARENA;
            for (j = 0; j < st->n_epi; j++)
                arena_reads += st->epi[j].operand >= 0 && p->loc[st->epi[j].operand].space == AICF__SPACE_ARENA;
        }
        CHECK(fused >= 2, "the cnn plan has %d fused steps (Conv+Relu, Conv+Add+Sigmoid expected)", fused);
        CHECK(count_str(x, "  why: ") == p->n_steps, "explain: one why per step");
        CHECK(strstr(x, "memory: arena ") && strstr(x, "lower bound") && strstr(x, "weights"), "explain memory totals");
        CHECK(count_str(d, "subgraph cluster_") == fused, "dot: %d clusters for %d fused steps", count_str(d, "subgraph cluster_"), fused);
        CHECK(count_str(d, " -> ") - count_str(d, "[style=dashed]") == arena_reads + p->n_out,
              "dot: %d data edges, expected %d arena reads + %d outputs", count_str(d, " -> ") - count_str(d, "[style=dashed]"),
              arena_reads, p->n_out);
        CHECK(count_str(d, "{") == count_str(d, "}") && strncmp(d, "digraph aicf_plan {", 19) == 0, "dot braces");
    }
    {
        char small[16];
        size_t need = 0, need2 = 0;
        CHECK(aicf_plan_explain(p, small, sizeof small, &need) == AICF_SUCCESS && strlen(small) == 15 && x && need == strlen(x) + 1,
              "explain into 16 bytes");
        CHECK(aicf_plan_dot(p, small, sizeof small, &need2) == AICF_SUCCESS && strlen(small) == 15 && d && need2 == strlen(d) + 1,
              "dot into 16 bytes");
        CHECK(aicf_plan_explain(NULL, small, sizeof small, &need) == AICF_ERROR_INVALID_ARGUMENT, "explain NULL");
        CHECK(aicf_plan_dot(NULL, small, sizeof small, &need) == AICF_ERROR_INVALID_ARGUMENT, "dot NULL");
        CHECK(aicf_plan_serialize(NULL, small, sizeof small, &need) == AICF_ERROR_INVALID_ARGUMENT, "serialize NULL");
    }
    free(x);
    free(d);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
}

/* ===================================================================================== */
/* CUDA plans: the fake libcuda and an in-process fake cuBLASLt                          */
/* ===================================================================================== */
#if !defined(AICF_NO_CUDA)
typedef struct fk_layout {
    int type;
    uint64_t rows, cols;
    int64_t ld, stride;
    int32_t batch;
} fk_layout;
typedef struct fk_desc {
    int compute, scale;
    int32_t ta, tb;
    uint32_t epi;
} fk_desc;
static long g_lt_live;
static size_t g_lt_version = 130100;
static int g_lt_handle_obj;
#define FK_PATTERN 0xa1cf00d5a1cf00d5ull

static aicf__cublasStatus_t fk_create(void** h) {
    *h = &g_lt_handle_obj;
    return 0;
}
static aicf__cublasStatus_t fk_destroy(void* h) { return h == &g_lt_handle_obj ? 0 : 7; }
static size_t fk_version(void) { return g_lt_version; }
static aicf__cublasStatus_t fk_desc_create(void** d, int compute, int scale) {
    fk_desc* x = (fk_desc*)calloc(1, sizeof *x);
    x->compute = compute;
    x->scale = scale;
    *d = x;
    g_lt_live++;
    return 0;
}
static aicf__cublasStatus_t fk_free(void* d) {
    free(d);
    g_lt_live--;
    return 0;
}
static aicf__cublasStatus_t fk_desc_set(void* d, int attr, const void* v, size_t n) {
    fk_desc* x = (fk_desc*)d;
    if (attr == AICF__CUBLASLT_MATMUL_DESC_TRANSA && n == 4) memcpy(&x->ta, v, 4);
    if (attr == AICF__CUBLASLT_MATMUL_DESC_TRANSB && n == 4) memcpy(&x->tb, v, 4);
    if (attr == AICF__CUBLASLT_MATMUL_DESC_EPILOGUE && n == 4) memcpy(&x->epi, v, 4);
    return 0;
}
static aicf__cublasStatus_t fk_layout_create(void** l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
    fk_layout* x = (fk_layout*)calloc(1, sizeof *x);
    x->type = type;
    x->rows = rows;
    x->cols = cols;
    x->ld = ld;
    x->batch = 1;
    *l = x;
    g_lt_live++;
    return 0;
}
static aicf__cublasStatus_t fk_layout_set(void* l, int attr, const void* v, size_t n) {
    fk_layout* x = (fk_layout*)l;
    if (attr == AICF__CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && n == 4) memcpy(&x->batch, v, 4);
    if (attr == AICF__CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && n == 8) memcpy(&x->stride, v, 8);
    return 0;
}
static aicf__cublasStatus_t fk_pref_create(void** p) {
    *p = calloc(1, 8);
    g_lt_live++;
    return 0;
}
static aicf__cublasStatus_t fk_pref_set(void* p, int attr, const void* v, size_t n) {
    (void)p, (void)attr, (void)v, (void)n;
    return 0;
}
static uint64_t fk_key(const void* desc, void* const* ls) {
    const fk_desc* d = (const fk_desc*)desc;
    uint64_t h = aicf__fnv1a(AICF__FNV_BASIS, &d->compute, sizeof d->compute);
    int i;
    h = aicf__fnv1a(h, &d->ta, 4);
    h = aicf__fnv1a(h, &d->tb, 4);
    h = aicf__fnv1a(h, &d->epi, 4);
    for (i = 0; i < 4; i++) {
        const fk_layout* l = (const fk_layout*)ls[i];
        h = aicf__fnv1a(h, &l->type, sizeof l->type);
        h = aicf__fnv1a(h, &l->rows, 8);
        h = aicf__fnv1a(h, &l->cols, 8);
        h = aicf__fnv1a(h, &l->ld, 8);
        h = aicf__fnv1a(h, &l->batch, 4);
    }
    return h;
}
/* three candidates: blob {key, c, pattern...}, workspace c * 1024 */
static aicf__cublasStatus_t fk_heuristic(void* h, void* desc, void* a, void* b, void* c, void* d, void* pref, int req,
                                         aicf__cublasLtMatmulHeuristicResult_t* res, int* nres) {
    void* ls[4];
    int k, w;
    (void)h, (void)pref;
    ls[0] = a, ls[1] = b, ls[2] = c, ls[3] = d;
    for (k = 0; k < 3 && k < req; k++) {
        memset(&res[k], 0, sizeof res[k]);
        res[k].algo.data[0] = fk_key(desc, ls);
        res[k].algo.data[1] = (uint64_t)k;
        for (w = 2; w < 8; w++) res[k].algo.data[w] = FK_PATTERN;
        res[k].workspaceSize = (size_t)k * 1024;
    }
    *nres = k;
    return 0;
}
static aicf__cublasStatus_t fk_check(void* h, void* desc, void* a, void* b, void* c, void* d, const aicf__cublasLtMatmulAlgo_t* algo,
                                     aicf__cublasLtMatmulHeuristicResult_t* res) {
    void* ls[4];
    int w;
    (void)h;
    ls[0] = a, ls[1] = b, ls[2] = c, ls[3] = d;
    if (algo->data[0] != fk_key(desc, ls) || algo->data[1] > 2) return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    for (w = 2; w < 8; w++)
        if (algo->data[w] != FK_PATTERN) return 7;
    memset(res, 0, sizeof *res);
    res->algo = *algo;
    res->workspaceSize = (size_t)algo->data[1] * 1024;
    return 0;
}
static aicf__cublasStatus_t fk_matmul(void* h, void* desc, const void* alpha, const void* A, void* la, const void* B, void* lb,
                                      const void* beta, const void* C, void* lc, void* D, void* ld, const aicf__cublasLtMatmulAlgo_t* algo,
                                      void* ws, size_t wsb, aicf__CUstream s) {
    (void)h, (void)desc, (void)alpha, (void)A, (void)la, (void)B, (void)lb, (void)beta, (void)C, (void)lc, (void)D, (void)ld;
    (void)algo, (void)ws, (void)wsb, (void)s;
    return 7; /* plans only */
}

static void fk_install_lt(aicf_context* ctx, size_t version) {
    struct aicf__cuda* cu = ctx->cuda;
    memset(&cu->lt, 0, sizeof cu->lt);
    cu->lt.cublasLtCreate = fk_create;
    cu->lt.cublasLtDestroy = fk_destroy;
    cu->lt.cublasLtGetVersion = fk_version;
    cu->lt.cublasLtMatmulDescCreate = fk_desc_create;
    cu->lt.cublasLtMatmulDescDestroy = fk_free;
    cu->lt.cublasLtMatmulDescSetAttribute = fk_desc_set;
    cu->lt.cublasLtMatrixLayoutCreate = fk_layout_create;
    cu->lt.cublasLtMatrixLayoutDestroy = fk_free;
    cu->lt.cublasLtMatrixLayoutSetAttribute = fk_layout_set;
    cu->lt.cublasLtMatmulPreferenceCreate = fk_pref_create;
    cu->lt.cublasLtMatmulPreferenceDestroy = fk_free;
    cu->lt.cublasLtMatmulPreferenceSetAttribute = fk_pref_set;
    cu->lt.cublasLtMatmulAlgoGetHeuristic = fk_heuristic;
    cu->lt.cublasLtMatmulAlgoCheck = fk_check;
    cu->lt.cublasLtMatmul = fk_matmul;
    g_lt_version = version;
    cu->lt_handle = &g_lt_handle_obj;
    cu->lt_version = version;
}

static const char* g_fake;
static void (*fk_set_device)(int, int, int);

/* A context on the fake driver (device sm_<major><minor>), with the fake cuBLASLt when lt_version
   is nonzero; NULL when the fake driver is not usable. */
static aicf_context* fake_ctx(int major, int minor, size_t lt_version) {
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    aicf_device_info di;
    fk_set_device(1, major, minor);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = g_fake;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    if (aicf_context_device_info(ctx, &di) != AICF_SUCCESS) {
        printf("  fake device: %s\n", aicf_last_error(ctx));
        aicf_context_destroy(ctx);
        return NULL;
    }
    if (lt_version) fk_install_lt(ctx, lt_version);
    return ctx;
}

/* a step line with arena scratch (scratch=N@OFF, N > 0) */
static int has_scratch(const char* s) {
    while ((s = strstr(s, " scratch=")) != NULL) {
        s += 9;
        if (*s >= '1' && *s <= '9') return 1;
    }
    return 0;
}

static char* cuda_plan_text(aicf_context* ctx, aicf_graph* g, const aicf_plan_desc* pd, aicf_plan** keep) {
    aicf_plan* p = NULL;
    char* s = NULL;
    if (aicf_plan_create(g, pd, &p) != AICF_SUCCESS) {
        printf("  CUDA plan: %s\n", aicf_last_error(ctx));
        return NULL;
    }
    s = serialize(p);
    if (keep) *keep = p;
    else aicf_plan_destroy(p);
    return s;
}

static void test_fake_cuda(void) {
    void* h;
    aicf_context* ctx;
    size_t i;
    int v;
    g_fake = getenv("AICF_FAKE_LIBCUDA");
    if (!g_fake) g_fake = "build/fakecuda/libcuda.so.1";
    h = dlopen(g_fake, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        void* sym = dlsym(h, "fakecuda_set_device");
        memcpy(&fk_set_device, &sym, sizeof sym);
    }
    if (!h || !fk_set_device) {
        printf("SKIP CUDA plan files: fake driver %s not loadable (make build/fakecuda/libcuda.so.1)\n", g_fake);
        g_skip++;
        if (h) dlclose(h);
        return;
    }
    /* save -> load identical, with and without cuBLASLt, at fp32 / fp16 / tf32, im2col convs */
    for (v = 0; v < 6; v++)
        for (i = 0; i < sizeof MODELS / sizeof MODELS[0]; i++) {
            aicf_plan_desc pd;
            aicf_graph* g;
            aicf_plan *p = NULL, *q = NULL;
            char *s = NULL, *s2 = NULL, *s3 = NULL, name[128];
            size_t lt = (v & 1) ? 130100 : 0;
            ctx = fake_ctx(9, 0, lt);
            if (!ctx) {
                CHECK(0, "fake CUDA context");
                continue;
            }
            g = make_graph(ctx, MODELS[i].build, rnd());
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = v < 2 ? AICF_PRECISION_FP32 : v < 4 ? AICF_PRECISION_FP16 : AICF_PRECISION_TF32;
            if (v >= 4) pd.policy.conv_algo = AICF_CONV_IM2COL_GEMM;
            snprintf(name, sizeof name, "CUDA %s %s%s%s", MODELS[i].name, v < 2 ? "fp32" : v < 4 ? "fp16" : "tf32",
                     lt ? " cuBLASLt" : " no cuBLASLt", v >= 4 ? " im2col" : "");
            if (g) s = cuda_plan_text(ctx, g, &pd, &p);
            CHECK(s != NULL, "%s: plan", name);
            if (s) {
                s3 = cuda_plan_text(ctx, g, &pd, NULL);
                CHECK(s3 && strcmp(s, s3) == 0, "%s: two plans serialise differently", name);
                CHECK(strstr(s, "\nbackend requested=cuda target=cuda\ndevice sm=90 name=\"Fake GPU 0 (cc 9.0)\"\n") != NULL,
                      "%s: device lines", name);
                CHECK(strstr(s, lt ? "\ncublaslt version=130100\n" : "\ncublaslt none\n") != NULL, "%s: cuBLASLt line", name);
                CHECK(strstr(s, "\n  op 0 kernel name=\"aicf_") != NULL, "%s: op lines", name);
                /* fp16 cnn: tensor-core convs and a batch-1 Gemm on the generated GEMV (absorbing the
                   output Cast), no cuBLASLt call left */
                if (v >= 2 && v < 4 && MODELS[i].build == build_cnn)
                    CHECK(strstr(s, "kernel name=\"aicf_gemv_f16_m1") != NULL && strstr(s, " matmul ") == NULL,
                          "%s: the batch-1 Gemm on the GEMV kernel:\n%s", name, s);
                else if (lt && MODELS[i].build != build_ew)
                    CHECK(strstr(s, " matmul algo=0 args=") && strstr(s, "\n  algo 0 blob=") && strstr(s, "cublaslt=130100 align="),
                          "%s: cuBLASLt algorithm records:\n%s", name, s);
                if (lt && v >= 4 && MODELS[i].build == build_cnn)
                    CHECK(strstr(s, ":scratch+0") != NULL && has_scratch(s), "%s: im2col scratch", name);
                if (v >= 2 && v < 4 && MODELS[i].build == build_cnn) /* fp16 convs: the tensor-core kernel, saved and loaded */
                    CHECK(strstr(s, "kernel name=\"aicf_conv2d_tc_f16_m64") != NULL, "%s: tensor-core conv op lines:\n%s", name, s);
                if (!lt) CHECK(strstr(s, " matmul ") == NULL, "%s: no cuBLASLt, no matmul ops", name);
                if (aicf_plan_load_memory(g, s, strlen(s), &q) == AICF_SUCCESS) s2 = serialize(q);
                CHECK(s2 && strcmp(s, s2) == 0, "%s: save -> load not identical: %s", name, aicf_last_error(ctx));
                if (lt && strstr(s, "\n  algo 0 ")) { /* every record switched to candidate 2: loaded as written */
                    char* e = replace_all(s, ",0000000000000000,a1cf00d5a1cf00d5", ",0000000000000002,a1cf00d5a1cf00d5");
                    char* e2 = replace_all(e, " workspace=0 cublaslt=", " workspace=2048 cublaslt=");
                    char* e3 = replace_all(e2, "workspace 0 B", "workspace 2048 B");
                    aicf_plan* q2 = NULL;
                    char* s4 = NULL;
                    if (aicf_plan_load_memory(g, e3, strlen(e3), &q2) == AICF_SUCCESS) s4 = serialize(q2);
                    CHECK(s4 && strcmp(s4, e3) == 0 && count_str(s4, ",0000000000000002,a1cf00d5") == count_str(s, "\n  algo "),
                          "%s: every cuBLASLt record of the file is used as written (%s)", name, aicf_last_error(ctx));
                    free(s4);
                    aicf_plan_destroy(q2);
                    free(e);
                    free(e2);
                    free(e3);
                }
                if (lt && p) {
                    char* x = render(p, aicf_plan_explain);
                    CHECK(x && (MODELS[i].build == build_ew || (v >= 2 && v < 4 && MODELS[i].build == build_cnn) ||
                                (strstr(x, "cuBLASLt matmul M=") && strstr(x, "algorithm #0 of 3"))) &&
                              strstr(x, "device: Fake GPU 0"),
                          "%s: explain shows the launches:\n%s", name, x ? x : "");
                    free(x);
                }
            }
            free(s);
            free(s2);
            free(s3);
            aicf_plan_destroy(p);
            aicf_plan_destroy(q);
            aicf_graph_destroy(g);
            aicf_context_destroy(ctx);
        }
    CHECK(g_lt_live == 0, "fake cuBLASLt objects leaked: %ld", g_lt_live);
    /* the file's algorithm is used, not re-decided; an invalid one is refused */
    ctx = fake_ctx(9, 0, 130100);
    if (ctx) {
        uint64_t ws = rnd();
        aicf_graph* g = make_graph(ctx, build_mlp4, ws);
        aicf_plan_desc pd;
        char *s, *e, *e2, *e3;
        int line, line2;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        s = g ? cuda_plan_text(ctx, g, &pd, NULL) : NULL;
        CHECK(s != NULL, "mlp CUDA plan");
        if (s && getenv("AICF_TEST_VERBOSE")) printf("---- the mlp's CUDA plan file (fake device and cuBLASLt) ----\n%s----\n", s);
        if (s) {
            /* candidate 1 (needs 1024 B of workspace): blob word 1, workspace and the reason */
            e = replace_in(s, "  algo 0 ", ",0000000000000000,a1cf00d5a1cf00d5", ",0000000000000001,a1cf00d5a1cf00d5", &line);
            e2 = e ? replace_in(e, "  algo 0 ", "workspace=0 ", "workspace=1024 ", &line2) : NULL;
            e3 = e2 ? replace_in(e2, "step ", "workspace 0 B", "workspace 1024 B", NULL) : NULL;
            CHECK(e3 != NULL, "algo edits");
            if (e3) { /* the same file under a workspace limit the algorithm exceeds */
                char* e4 = replace_in(e3, "policy workspace_limit", "= 0", "= 512", NULL);
                if (e4)
                    expect_refused(ctx, g, "workspace limit", e4, strlen(e4), AICF_ERROR_PLAN_MISMATCH, "needs 1024 B of workspace",
                                   "the policy allows 512 B");
                free(e4);
            }
            if (e3) {
                aicf_plan* q = NULL;
                char* s2;
                aicf_result r = aicf_plan_load_memory(g, e3, strlen(e3), &q);
                CHECK(r == AICF_SUCCESS, "another valid algorithm from the file: %s", aicf_last_error(ctx));
                s2 = q ? serialize(q) : NULL;
                CHECK(s2 && strcmp(s2, e3) == 0 && strstr(s2, ",0000000000000001,a1cf00d5a1cf00d5"),
                      "the loaded plan uses the file's algorithm (candidate 1), not the heuristic's (0)");
                {
                    int k, n_algo = 0, found = 0;
                    for (k = 0; q && k < q->n_steps; k++) {
                        aicf__algo_rec a;
                        aicf__cuda_step_ops(q, k, &n_algo);
                        if (n_algo) {
                            aicf__cuda_step_algo(q, k, 0, &a);
                            found += a.blob[1] == 1 && a.workspace_bytes == 1024;
                        }
                    }
                    CHECK(found == 1, "the loaded program holds candidate 1 (%d)", found);
                }
                free(s2);
                aicf_plan_destroy(q);
            }
            /* candidate 1 without its workspace: cublasLtMatmulAlgoCheck asks for more */
            if (e) {
                char want[64];
                snprintf(want, sizeof want, "line %d was refused", line);
                expect_refused(ctx, g, "algorithm needing more workspace", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, want,
                               "says it needs 1024 B of workspace");
            }
            free(e);
            free(e2);
            free(e3);
            /* an invalid blob */
            e = replace_in(s, "  algo 0 ", ",a1cf00d5a1cf00d5", ",a1cf00d5a1cf00d6", &line);
            if (e) expect_refused(ctx, g, "invalid blob", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "cublasLtMatmulAlgoCheck refuses it", NULL);
            free(e);
            e = replace_in(s, "  algo 0 ", "results=3", "results=0", &line);
            if (e) expect_refused(ctx, g, "0 results", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "heuristic result 0 of 0 is not within", NULL);
            free(e);
            e = replace_in(s, "  algo 0 ", "index=0", "index=5", &line);
            if (e) expect_refused(ctx, g, "index past the results", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "heuristic result 5 of 3", NULL);
            free(e);
            e = replace_in(s, "  algo 0 ", " index=0", "", &line);
            if (e) expect_refused(ctx, g, "no index", e, strlen(e), AICF_ERROR_INVALID_MODEL, "needs index=K", NULL);
            free(e);
            e = replace_in(s, "  algo 0 ", "align=256,", "align=128,", &line);
            if (e) expect_refused(ctx, g, "alignment", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "alignments", NULL);
            free(e);
            e = replace_in(s, "  algo 0 ", "cublaslt=130100", "cublaslt=130000", &line);
            if (e) expect_refused(ctx, g, "record version", e, strlen(e), AICF_ERROR_PLAN_MISMATCH, "recorded with cuBLASLt 130000", NULL);
            free(e);
            /* another cuBLASLt, none, another SM, no CUDA */
            {
                aicf_context* c2 = fake_ctx(9, 0, 130200);
                aicf_graph* g2 = c2 ? make_graph(c2, build_mlp4, ws) : NULL;
                if (g2) expect_refused(c2, g2, "another cuBLASLt", s, strlen(s), AICF_ERROR_PLAN_MISMATCH, "another cuBLASLt", "130200");
                aicf_graph_destroy(g2);
                aicf_context_destroy(c2);
                c2 = fake_ctx(9, 0, 0);
                g2 = c2 ? make_graph(c2, build_mlp4, ws) : NULL;
                if (g2) expect_refused(c2, g2, "no cuBLASLt", s, strlen(s), AICF_ERROR_PLAN_MISMATCH, "line 6", "cublaslt none");
                aicf_graph_destroy(g2);
                aicf_context_destroy(c2);
                c2 = fake_ctx(8, 6, 130100);
                g2 = c2 ? make_graph(c2, build_mlp4, ws) : NULL;
                if (g2) expect_refused(c2, g2, "another SM", s, strlen(s), AICF_ERROR_PLAN_MISMATCH, "line 5", "sm=86");
                aicf_graph_destroy(g2);
                aicf_context_destroy(c2);
                fk_set_device(1, 9, 0);
                {
                    aicf_context_desc cd;
                    memset(&cd, 0, sizeof cd);
                    cd.flags = AICF_CONTEXT_NO_CUDA;
                    c2 = NULL;
                    aicf_context_create(&cd, &c2);
                    g2 = c2 ? make_graph(c2, build_mlp4, ws) : NULL;
                    if (g2)
                        expect_refused(c2, g2, "no CUDA", s, strlen(s), AICF_ERROR_PLAN_MISMATCH, "this context has none",
                                       "AICF_CONTEXT_NO_CUDA");
                    aicf_graph_destroy(g2);
                    aicf_context_destroy(c2);
                }
            }
        }
        free(s);
        aicf_graph_destroy(g);
        aicf_context_destroy(ctx);
    }
    fk_set_device(1, 9, 0);
    CHECK(g_lt_live == 0, "fake cuBLASLt objects leaked: %ld", g_lt_live);
    dlclose(h);
}
#endif

int main(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    const char* env = getenv("AICF_SEED");
    g_rng = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
    if (!g_rng) g_rng = 1;
    printf("test_plan_io: seed %llu (AICF_SEED=%llu repeats it)\n", (unsigned long long)g_rng, (unsigned long long)g_rng);
    env = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s", env && *env ? env : "/tmp");
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        printf("context failed\n0 passed, 1 failed\n");
        return 1;
    }
    test_policy_roundtrip(ctx);
    test_policy_errors(ctx);
    test_policy_pins(ctx);
    test_policy_files(ctx);
    test_cpu_roundtrips(ctx);
    test_data_models(ctx);
    test_cpu_refusals(ctx);
    test_explain_dot(ctx);
    aicf_context_destroy(ctx);
#if !defined(AICF_NO_CUDA)
    test_fake_cuda();
#endif
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
