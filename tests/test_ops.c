/* tests/test_ops.c: shape inference and the CPU reference of every op (src/60_ops.c).

   1. Unit checks: small graphs built through the public builder, aicf__op_infer and
      aicf__cpu_run called directly, results compared on fresh random data against independent
      straightforward computations in double (Conv against im2col + matmul, pools against
      brute force, broadcasting against index arithmetic, ...), plus error paths (result code
      and message text).
   2. The ONNX backend node tests: every case whose nodes are all aicf ops is loaded with
      aicf_graph_load_onnx, run node by node and compared with the ONNX tolerance
      (|got - exp| <= 1e-7 + 1e-3 |exp|, NaN must match NaN). Per-op passed/failed/skipped,
      every skip with its reason. Directory: $AICF_NODE_TESTS, default build/onnx-node/node
      (extract /work/shared/data/onnx-node-1.23.1.tar.gz there); missing -> a SKIP line.

   Build (from the repository root):
     cc -std=c99 -O1 -Wall -Wextra -Werror tests/test_ops.c -lm -ldl -o build/test_ops
   (-DAICF_TEST_HEADER='"/path/aicf.h"' to test another concatenation). Options:
     --seed N      random seed (default: time; printed)
     --node-only   only the node tests     --unit-only   only the unit checks
     -v            print every node test
     --model DIR   run a model folder (model.onnx + test_data_set_0) node by node
     --light F.onnx  run an onnx_light model (input arange(n)/n, expected F_output_0.pb)
   Ends with "N passed, N failed"; exit status 1 when anything failed. */
#ifndef AICF_TEST_HEADER
#  define AICF_TEST_HEADER "../aicf.h"
#endif
#define AICF_IMPLEMENTATION
#include AICF_TEST_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <float.h>
#include <dirent.h>

static int g_pass, g_fail;
static int g_verbose;
static uint64_t g_rng;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (cond) g_pass++;                                                                      \
        else {                                                                                   \
            g_fail++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                          \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
        }                                                                                        \
    } while (0)

/* ---- random numbers (xorshift64*) ---- */
static uint64_t rnd_u64(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static double rnd01(void) { return (double)(rnd_u64() >> 11) * (1.0 / 9007199254740992.0); }
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)rnd01(); }
static int rndi(int lo, int hi) { return lo + (int)(rnd_u64() % (uint64_t)(hi - lo + 1)); } /* inclusive */

static float* rand_f32(int64_t n, float lo, float hi) {
    float* p = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    int64_t i;
    for (i = 0; i < n; i++) p[i] = rndf(lo, hi);
    return p;
}

static int64_t numel(int rank, const int64_t* d) {
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++) n *= d[i];
    return n;
}

static void unravel(int64_t idx, int rank, const int64_t* dims, int64_t* coord) {
    int i;
    for (i = rank - 1; i >= 0; i--) {
        coord[i] = dims[i] ? idx % dims[i] : 0;
        idx = dims[i] ? idx / dims[i] : 0;
    }
}

static int64_t ravel(int rank, const int64_t* dims, const int64_t* coord) {
    int64_t idx = 0;
    int i;
    for (i = 0; i < rank; i++) idx = idx * dims[i] + coord[i];
    return idx;
}

static const char* dims_str(int rank, const int64_t* d, char* buf, size_t cap) {
    size_t len = 0;
    int i;
    len += (size_t)snprintf(buf, cap, "[");
    for (i = 0; i < rank && len < cap; i++) len += (size_t)snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)d[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
    return buf;
}

/* ---- comparing ---- */
static int close_to(double got, double exp, double atol, double rtol) {
    if (exp != exp) return got != got;
    if (got != got) return 0;
    if (isinf(exp)) return got == exp;
    return fabs(got - exp) <= atol + rtol * fabs(exp);
}

/* Compares n float32 results with double references; reports the first mismatch. */
static void check_f32(const char* what, const float* got, const double* exp, int64_t n, double atol, double rtol) {
    int64_t i, bad = -1, nbad = 0;
    for (i = 0; i < n; i++)
        if (!close_to(got[i], exp[i], atol, rtol)) {
            if (bad < 0) bad = i;
            nbad++;
        }
    CHECK(nbad == 0, "%s: %lld of %lld elements differ, first at %lld: got %.9g expected %.9g", what, (long long)nbad,
          (long long)n, (long long)bad, bad >= 0 ? got[bad] : 0.0, bad >= 0 ? exp[bad] : 0.0);
}

/* ---- graph building through the public API ---- */
/* D(n, d0, d1, ...): up to 8 dims as a temporary array (a ring of 32). The values are
   converted to int64_t by the prototype of D_; the padding zeros land in its "..." unread. */
static const int64_t* D_(int n, int64_t a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5, int64_t a6,
                         int64_t a7, ...) {
    static int64_t ring[32][AICF_MAX_RANK];
    static int next;
    int64_t* d = ring[next++ & 31];
    (void)n;
    d[0] = a0; d[1] = a1; d[2] = a2; d[3] = a3; d[4] = a4; d[5] = a5; d[6] = a6; d[7] = a7;
    return d;
}
#define D(...) D_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0)

static aicf_attr A_i(const char* name, int64_t v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INT;
    a.i = v;
    return a;
}
static aicf_attr A_f(const char* name, float v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_FLOAT;
    a.f = v;
    return a;
}
static aicf_attr A_s(const char* name, const char* v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_STRING;
    a.s = v;
    return a;
}
static aicf_attr A_ints(const char* name, int n, const int64_t* v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INTS;
    a.ints = v;
    a.count = n;
    return a;
}
static aicf_attr A_floats(const char* name, int n, const float* v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_FLOATS;
    a.floats = v;
    a.count = n;
    return a;
}
static aicf_attr A_t(const char* name, const aicf_tensor_desc* t) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_TENSOR;
    a.t = t;
    return a;
}

#define TG_MAX_FEED 16

/* A small graph under test and the host buffers of its tensors. */
typedef struct tg {
    aicf_context* ctx;
    aicf_graph* g;
    const char* feed_name[TG_MAX_FEED];
    const void* feed_data[TG_MAX_FEED];
    int n_feed;
    void** buf;  /* per tensor: output buffers (owned) */
    int n_buf;
    int setup_ok;
} tg;

static void tg_begin(tg* t, int64_t opset) {
    aicf_context_desc cd;
    memset(t, 0, sizeof *t);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    t->setup_ok = aicf_context_create(&cd, &t->ctx) == AICF_SUCCESS && aicf_graph_create(t->ctx, &t->g) == AICF_SUCCESS;
    if (t->setup_ok && opset > 0) t->setup_ok = aicf_graph_set_opset(t->g, "", opset) == AICF_SUCCESS;
    if (!t->setup_ok) printf("FAIL: could not create a context/graph\n");
}

static void tg_input(tg* t, const char* name, aicf_dtype dt, int rank, const int64_t* dims, const void* data) {
    aicf_tensor_desc d;
    aicf_result r;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = dt;
    d.rank = rank;
    d.dims = dims;
    r = aicf_graph_add_input(t->g, &d);
    if (r != AICF_SUCCESS) {
        printf("FAIL: add_input %s: %s\n", name, aicf_last_error(t->ctx));
        t->setup_ok = 0;
    }
    if (t->n_feed < TG_MAX_FEED) {
        t->feed_name[t->n_feed] = name;
        t->feed_data[t->n_feed++] = data;
    }
}

static void tg_const(tg* t, const char* name, aicf_dtype dt, int rank, const int64_t* dims, const void* data) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = dt;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = (size_t)numel(rank, dims) * aicf_dtype_size(dt);
    if (aicf_graph_add_constant(t->g, &d) != AICF_SUCCESS) {
        printf("FAIL: add_constant %s: %s\n", name, aicf_last_error(t->ctx));
        t->setup_ok = 0;
    }
}

/* ins/outs: comma-separated names ("" entries = omitted). */
static void tg_node(tg* t, const char* op, const char* ins, const char* outs, int nattr, const aicf_attr* attrs) {
    char ib[512], ob[512];
    const char* iv[32];
    const char* ov[32];
    int ni = 0, no = 0;
    char* p;
    aicf_node_desc nd;
    snprintf(ib, sizeof ib, "%s", ins);
    snprintf(ob, sizeof ob, "%s", outs);
    if (ins[0]) {
        iv[ni++] = ib;
        for (p = ib; *p; p++)
            if (*p == ',') {
                *p = 0;
                iv[ni++] = p + 1;
            }
    }
    ov[no++] = ob;
    for (p = ob; *p; p++)
        if (*p == ',') {
            *p = 0;
            ov[no++] = p + 1;
        }
    memset(&nd, 0, sizeof nd);
    nd.name = "n";
    nd.op_type = op;
    nd.inputs = iv;
    nd.num_inputs = ni;
    nd.outputs = ov;
    nd.num_outputs = no;
    nd.attrs = attrs;
    nd.num_attrs = nattr;
    if (aicf_graph_add_node(t->g, &nd) != AICF_SUCCESS) {
        printf("FAIL: add_node %s: %s\n", op, aicf_last_error(t->ctx));
        t->setup_ok = 0;
    }
}

static const void* tg_feed(const tg* t, const char* name) {
    int i;
    for (i = 0; i < t->n_feed; i++)
        if (!strcmp(t->feed_name[i], name)) return t->feed_data[i];
    return NULL;
}

/* Infers and runs every node in order; returns the first error (message on the context). */
static aicf_result tg_run(tg* t) {
    aicf_graph* g = t->g;
    int ni, i;
    if (!t->setup_ok) return AICF_ERROR_STATE;
    t->n_buf = g->n_tensors;
    t->buf = (void**)calloc((size_t)g->n_tensors + 1, sizeof(void*));
    for (ni = 0; ni < g->n_nodes; ni++) {
        aicf__node* n = &g->nodes[ni];
        const void* in[64];
        void* out[16];
        aicf_result r = aicf__op_infer(g, ni);
        if (r != AICF_SUCCESS) return r;
        for (i = 0; i < n->n_in && i < 64; i++) {
            aicf__tensor* tt;
            in[i] = NULL;
            if (n->in[i] < 0) continue;
            tt = &g->tensors[n->in[i]];
            if (t->buf[n->in[i]]) in[i] = t->buf[n->in[i]];
            else if (tt->flags & AICF__T_CONST) in[i] = tt->data;
            else in[i] = tg_feed(t, tt->name);
        }
        for (i = 0; i < n->n_out && i < 16; i++) {
            aicf__tensor* tt;
            size_t bytes;
            out[i] = NULL;
            if (n->out[i] < 0) continue;
            tt = &g->tensors[n->out[i]];
            bytes = (size_t)aicf__shape_numel(&tt->shape) * aicf_dtype_size(tt->dtype);
            /* guard value: results must overwrite it */
            t->buf[n->out[i]] = malloc(bytes + 1);
            memset(t->buf[n->out[i]], 0xA5, bytes + 1);
            out[i] = t->buf[n->out[i]];
        }
        r = aicf__cpu_run(g, ni, in, out);
        if (r != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

static aicf__tensor* tg_t(const tg* t, const char* name) {
    int i = aicf__graph_find(t->g, name);
    return i >= 0 ? &t->g->tensors[i] : NULL;
}

static void* tg_out(const tg* t, const char* name) {
    int i = aicf__graph_find(t->g, name);
    return i >= 0 && i < t->n_buf ? t->buf[i] : NULL;
}

/* Checks output `name`'s dtype and shape. */
static int tg_check_shape(const tg* t, const char* what, const char* name, aicf_dtype dt, int rank, const int64_t* d) {
    aicf__tensor* tt = tg_t(t, name);
    char b1[128], b2[128];
    int ok = tt && tt->shape_known && tt->dtype == dt && tt->shape.rank == rank;
    int i;
    for (i = 0; ok && i < rank; i++) ok = tt->shape.d[i] == d[i];
    CHECK(ok, "%s: output '%s' is %s %s, expected %s %s", what, name, tt ? aicf_dtype_name(tt->dtype) : "?",
          tt ? dims_str(tt->shape.rank, tt->shape.d, b1, sizeof b1) : "?", aicf_dtype_name(dt), dims_str(rank, d, b2, sizeof b2));
    return ok;
}

static void tg_end(tg* t) {
    int i;
    if (t->buf) {
        for (i = 0; i < t->n_buf; i++) free(t->buf[i]);
        free(t->buf);
    }
    if (t->g) aicf_graph_destroy(t->g);
    if (t->ctx) aicf_context_destroy(t->ctx);
    memset(t, 0, sizeof *t);
}

/* Runs and expects failure with `code` and a message containing `text`. */
static void expect_error(tg* t, const char* what, aicf_result code, const char* text) {
    aicf_result r = tg_run(t);
    const char* msg = aicf_last_error(t->ctx);
    CHECK(r == code && msg && strstr(msg, text), "%s: got %d (%s) '%s', expected %d (%s) with '%s'", what, (int)r,
          aicf_result_str(r), msg ? msg : "", (int)code, aicf_result_str(code), text);
    if (g_verbose) printf("  %s -> %s\n", what, msg ? msg : "");
    tg_end(t);
}

/* ============================================================================================
   Elementwise
   ============================================================================================ */

static double ref_unary(const char* op, double x, double a, double b) {
    if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(op, "Tanh")) return tanh(x);
    if (!strcmp(op, "Sigmoid")) return 1.0 / (1.0 + exp(-x));
    if (!strcmp(op, "Exp")) return exp(x);
    if (!strcmp(op, "Log")) return log(x);
    if (!strcmp(op, "Sqrt")) return sqrt(x);
    if (!strcmp(op, "Neg")) return -x;
    if (!strcmp(op, "Abs")) return fabs(x);
    if (!strcmp(op, "Reciprocal")) return 1.0 / x;
    if (!strcmp(op, "Erf")) return erf(x);
    if (!strcmp(op, "LeakyRelu")) return x >= 0 ? x : a * x;
    if (!strcmp(op, "Elu")) return x >= 0 ? x : a * (exp(x) - 1.0);
    if (!strcmp(op, "HardSigmoid")) return fmax(0.0, fmin(1.0, a * x + b));
    if (!strcmp(op, "HardSwish")) return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
    if (!strcmp(op, "Clip")) return fmin(fmax(x, a), b);
    return NAN;
}

static void test_unary(void) {
    static const char* const ops[] = {"Relu", "Tanh", "Sigmoid", "Exp", "Log", "Sqrt", "Neg", "Abs", "Reciprocal",
                                      "Erf", "LeakyRelu", "Elu", "HardSigmoid", "HardSwish"};
    int k;
    for (k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) {
        const char* op = ops[k];
        int positive = !strcmp(op, "Log") || !strcmp(op, "Sqrt") || !strcmp(op, "Reciprocal");
        int64_t d0 = rndi(1, 4), d1 = rndi(1, 5), d2 = rndi(1, 7), n = d0 * d1 * d2, i;
        float* x = rand_f32(n, positive ? 0.05f : -4.0f, 4.0f);
        double* ref = (double*)malloc((size_t)n * sizeof(double));
        double a = 0.0, b = 0.0;
        aicf_attr at[2];
        int nat = 0;
        tg t;
        char what[64];
        x[0] = positive ? 1.0f : -0.0f;
        if (!strcmp(op, "LeakyRelu")) a = 0.01;
        if (!strcmp(op, "Elu")) a = 1.0;
        if (!strcmp(op, "HardSigmoid")) {
            a = 0.2;
            b = 0.5;
        }
        if ((!strcmp(op, "LeakyRelu") || !strcmp(op, "Elu") || !strcmp(op, "HardSigmoid")) && rndi(0, 1)) {
            a = rndf(0.05f, 0.9f);
            at[nat++] = A_f("alpha", (float)a);
            a = (double)(float)a;
            if (!strcmp(op, "HardSigmoid")) {
                b = rndf(0.1f, 0.9f);
                at[nat++] = A_f("beta", (float)b);
                b = (double)(float)b;
            }
        }
        for (i = 0; i < n; i++) ref[i] = ref_unary(op, x[i], a, b);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, d0, d1, d2), x);
        tg_node(&t, op, "x", "y", nat, at);
        snprintf(what, sizeof what, "%s", op);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 3, D(3, d0, d1, d2)))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-6, 2e-6);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

/* Clip: attributes (opset 6), constant and runtime bound inputs (opset 13), defaults. */
static void test_clip(void) {
    int variant;
    for (variant = 0; variant < 4; variant++) {
        int64_t n = rndi(1, 40), i;
        float* x = rand_f32(n, -5.0f, 5.0f);
        float lo = rndf(-3.0f, 0.0f), hi = rndf(0.0f, 3.0f);
        double* ref = (double*)malloc((size_t)n * sizeof(double));
        aicf_attr at[2];
        tg t;
        char what[64];
        snprintf(what, sizeof what, "Clip variant %d", variant);
        if (variant == 0) {
            tg_begin(&t, 6);
            tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, n), x);
            at[0] = A_f("min", lo);
            at[1] = A_f("max", hi);
            tg_node(&t, "Clip", "x", "y", 2, at);
        } else if (variant == 1) { /* min constant, max a graph input (known only at run time) */
            tg_begin(&t, 13);
            tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, n), x);
            tg_const(&t, "lo", AICF_DTYPE_FLOAT32, 0, NULL, &lo);
            tg_input(&t, "hi", AICF_DTYPE_FLOAT32, 0, NULL, &hi);
            tg_node(&t, "Clip", "x,lo,hi", "y", 0, NULL);
        } else if (variant == 2) { /* only max */
            tg_begin(&t, 12);
            tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, n), x);
            tg_const(&t, "hi", AICF_DTYPE_FLOAT32, 1, D(1, 1), &hi);
            tg_node(&t, "Clip", "x,,hi", "y", 0, NULL);
            lo = -INFINITY;
        } else { /* no bounds: identity */
            tg_begin(&t, 13);
            tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, n), x);
            tg_node(&t, "Clip", "x", "y", 0, NULL);
            lo = -INFINITY;
            hi = INFINITY;
        }
        for (i = 0; i < n; i++) ref[i] = fmin(fmax(x[i], lo), hi);
        if (tg_run(&t) == AICF_SUCCESS) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 0, 0);
        else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(x);
        free(ref);
    }
}

/* Random shape of rank r that broadcasts to `out` (dims either equal or 1, leading dims dropped). */
static int rand_bcast_shape(int orank, const int64_t* od, int64_t* d) {
    int r = rndi(0, orank), i;
    for (i = 0; i < r; i++) d[i] = rndi(0, 2) ? od[orank - r + i] : 1;
    return r;
}

/* Index of the input element (shape rank/d) read for output coordinate oc (rank orank). */
static int64_t bcast_index(int rank, const int64_t* d, int orank, const int64_t* oc) {
    int64_t idx = 0;
    int i;
    for (i = 0; i < rank; i++) {
        int64_t c = oc[orank - rank + i];
        idx = idx * d[i] + (d[i] == 1 ? 0 : c);
    }
    return idx;
}

static double ref_bin(const char* op, double a, double b) {
    if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
    if (!strcmp(op, "Sub")) return a - b;
    if (!strcmp(op, "Mul")) return a * b;
    if (!strcmp(op, "Div")) return a / b;
    if (!strcmp(op, "Pow")) return pow(a, b);
    if (!strcmp(op, "Max")) return a > b ? a : b;
    if (!strcmp(op, "Min")) return a < b ? a : b;
    return NAN;
}

static int64_t ref_bin_i(const char* op, int64_t a, int64_t b) {
    if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
    if (!strcmp(op, "Sub")) return a - b;
    if (!strcmp(op, "Mul")) return a * b;
    if (!strcmp(op, "Div")) return a / b; /* C99: truncation toward zero, as ONNX */
    if (!strcmp(op, "Max")) return a > b ? a : b;
    if (!strcmp(op, "Min")) return a < b ? a : b;
    return 0;
}

static void test_binary(void) {
    static const char* const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum"};
    static const aicf_dtype dts[] = {AICF_DTYPE_FLOAT32, AICF_DTYPE_INT64, AICF_DTYPE_INT32};
    int iter;
    for (iter = 0; iter < 60; iter++) {
        const char* op = ops[iter % 8];
        aicf_dtype dt = dts[(iter / 8) % 3];
        int variadic = !strcmp(op, "Sum") || !strcmp(op, "Max") || !strcmp(op, "Min");
        int nin = variadic ? rndi(1, 4) : 2, orank = rndi(0, 4), i, k;
        int64_t od[AICF_MAX_RANK], id[4][AICF_MAX_RANK], oc[AICF_MAX_RANK], n, e;
        int ir[4];
        void* data[4];
        double* ref;
        int64_t* refi;
        char names[4][16], ins[80], what[96], b1[64];
        tg t;
        if (!strcmp(op, "Pow") && dt != AICF_DTYPE_FLOAT32) dt = AICF_DTYPE_FLOAT32;
        for (i = 0; i < orank; i++) od[i] = rndi(1, 4);
        /* the broadcast result is the shape of dims over all inputs; make input 0 full sometimes */
        for (k = 0; k < nin; k++) ir[k] = rand_bcast_shape(orank, od, id[k]);
        if (rndi(0, 1)) {
            ir[0] = orank;
            memcpy(id[0], od, sizeof od);
        }
        /* actual broadcast output shape */
        {
            int r = 0;
            for (k = 0; k < nin; k++) r = ir[k] > r ? ir[k] : r;
            for (i = 0; i < r; i++) {
                int64_t m = 1;
                for (k = 0; k < nin; k++) {
                    int j = ir[k] - r + i;
                    if (j >= 0 && id[k][j] > m) m = id[k][j];
                }
                od[i] = m;
            }
            orank = r;
        }
        n = numel(orank, od);
        ins[0] = 0;
        for (k = 0; k < nin; k++) {
            int64_t m = numel(ir[k], id[k]);
            snprintf(names[k], sizeof names[k], "x%d", k);
            strcat(ins, k ? ",": "");
            strcat(ins, names[k]);
            data[k] = malloc((size_t)(m ? m : 1) * 8);
            for (e = 0; e < m; e++) {
                if (dt == AICF_DTYPE_FLOAT32) {
                    float v = rndf(-3.0f, 3.0f);
                    if (!strcmp(op, "Pow")) v = k == 0 ? rndf(0.1f, 3.0f) : rndf(-2.0f, 2.0f);
                    if (!strcmp(op, "Div") && k == 1 && fabsf(v) < 0.2f) v = 0.5f;
                    ((float*)data[k])[e] = v;
                } else {
                    int64_t v = rndi(-1000, 1000);
                    if (!strcmp(op, "Div") && k == 1 && v == 0) v = 7;
                    if (dt == AICF_DTYPE_INT64) ((int64_t*)data[k])[e] = v * (rndi(0, 3) == 0 ? 100003 : 1);
                    else ((int32_t*)data[k])[e] = (int32_t)v;
                }
            }
        }
        ref = (double*)malloc((size_t)(n ? n : 1) * sizeof(double));
        refi = (int64_t*)malloc((size_t)(n ? n : 1) * sizeof(int64_t));
        for (e = 0; e < n; e++) {
            unravel(e, orank, od, oc);
            for (k = 0; k < nin; k++) {
                int64_t j = bcast_index(ir[k], id[k], orank, oc);
                if (dt == AICF_DTYPE_FLOAT32) {
                    double v = ((float*)data[k])[j];
                    ref[e] = k ? ref_bin(op, ref[e], v) : v;
                } else {
                    int64_t v = dt == AICF_DTYPE_INT64 ? ((int64_t*)data[k])[j] : ((int32_t*)data[k])[j];
                    refi[e] = k ? ref_bin_i(op, refi[e], v) : v;
                }
            }
        }
        snprintf(what, sizeof what, "%s %s x%d -> %s", op, aicf_dtype_name(dt), nin, dims_str(orank, od, b1, sizeof b1));
        tg_begin(&t, 0);
        for (k = 0; k < nin; k++) tg_input(&t, names[k], dt, ir[k], id[k], data[k]);
        tg_node(&t, op, ins, "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", dt, orank, od)) {
                if (dt == AICF_DTYPE_FLOAT32) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-6, 1e-6);
                else {
                    int64_t bad = -1;
                    for (e = 0; e < n && bad < 0; e++) {
                        int64_t got = dt == AICF_DTYPE_INT64 ? ((int64_t*)tg_out(&t, "y"))[e] : ((int32_t*)tg_out(&t, "y"))[e];
                        if (got != refi[e]) bad = e;
                    }
                    CHECK(bad < 0, "%s: element %lld differs", what, (long long)bad);
                }
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        for (k = 0; k < nin; k++) free(data[k]);
        free(ref);
        free(refi);
    }
    /* opset 6 legacy broadcast: B [3] aligned at axis 1 of A [2,3,4] */
    {
        float a[24], b[3];
        double ref[24];
        aicf_attr at[2];
        int i;
        tg t;
        for (i = 0; i < 24; i++) a[i] = rndf(-1, 1);
        for (i = 0; i < 3; i++) b[i] = rndf(-1, 1);
        for (i = 0; i < 24; i++) ref[i] = (double)a[i] * b[(i / 4) % 3];
        tg_begin(&t, 6);
        tg_input(&t, "a", AICF_DTYPE_FLOAT32, 3, D(3, 2, 3, 4), a);
        tg_input(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, 3), b);
        at[0] = A_i("broadcast", 1);
        at[1] = A_i("axis", 1);
        tg_node(&t, "Mul", "a,b", "y", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32("Mul opset 6 broadcast axis 1", (const float*)tg_out(&t, "y"), ref, 24, 1e-7, 1e-6);
        else CHECK(0, "Mul opset 6: %s", aicf_last_error(t.ctx));
        tg_end(&t);
    }
    /* int division truncates toward zero; int64 wraps */
    {
        int64_t a[4], b[4], i;
        a[0] = -7; b[0] = 2;
        a[1] = 7; b[1] = -2;
        a[2] = INT64_MIN; b[2] = -1;
        a[3] = -9; b[3] = 3;
        tg t;
        tg_begin(&t, 0);
        tg_input(&t, "a", AICF_DTYPE_INT64, 1, D(1, 4), a);
        tg_input(&t, "b", AICF_DTYPE_INT64, 1, D(1, 4), b);
        tg_node(&t, "Div", "a,b", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            int64_t* y = (int64_t*)tg_out(&t, "y");
            i = y[0] == -3 && y[1] == -3 && y[2] == INT64_MIN && y[3] == -3;
            CHECK(i, "Div int64 truncation: got %lld %lld %lld %lld", (long long)y[0], (long long)y[1], (long long)y[2], (long long)y[3]);
        } else CHECK(0, "Div int64: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        b[1] = 0;
        tg_begin(&t, 0);
        tg_input(&t, "a", AICF_DTYPE_INT64, 1, D(1, 4), a);
        tg_input(&t, "b", AICF_DTYPE_INT64, 1, D(1, 4), b);
        tg_node(&t, "Div", "a,b", "y", 0, NULL);
        expect_error(&t, "Div int64 by zero", AICF_ERROR_INVALID_ARGUMENT, "division by zero");
    }
}

/* ============================================================================================
   MatMul, Gemm
   ============================================================================================ */

static void test_matmul(void) {
    int iter;
    for (iter = 0; iter < 30; iter++) {
        int ra = rndi(1, 4), rb = rndi(1, 4), i, rbat;
        int64_t M = rndi(1, 6), K = rndi(1, 9), N = rndi(1, 6), ad[8], bd[8], od[8], oc[8], bc[8], n, e, k;
        int64_t ab[8], bb[8];
        int ora = 0;
        float *A, *B;
        double* ref;
        char what[192], b1[64], b2[64];
        tg t;
        if (iter == 0) { ra = 1; rb = 1; }
        if (iter == 1) { ra = 1; rb = 3; }
        if (iter == 2) { ra = 4; rb = 1; }
        /* batch dims of the longer operand, broadcast dims to 1 in the other */
        rbat = AICF__MAX(ra, rb) - 2;
        if (rbat < 0) rbat = 0;
        for (i = 0; i < rbat; i++) bc[i] = rndi(1, 3);
        for (i = 0; i < ra - 2; i++) ab[i] = rndi(0, 2) ? bc[rbat - (ra - 2) + i] : 1;
        for (i = 0; i < rb - 2; i++) bb[i] = rndi(0, 2) ? bc[rbat - (rb - 2) + i] : 1;
        /* real broadcast batch */
        for (i = 0; i < rbat; i++) {
            int ia = i - (rbat - (ra - 2)), ib = i - (rbat - (rb - 2));
            int64_t da = ia >= 0 && ra > 2 ? ab[ia] : 1, db = ib >= 0 && rb > 2 ? bb[ib] : 1;
            bc[i] = da > db ? da : db;
        }
        for (i = 0; i < ra - 2; i++) ad[i] = ab[i];
        if (ra >= 2) { ad[ra - 2] = M; ad[ra - 1] = K; } else ad[0] = K;
        for (i = 0; i < rb - 2; i++) bd[i] = bb[i];
        if (rb >= 2) { bd[rb - 2] = K; bd[rb - 1] = N; } else bd[0] = K;
        for (i = 0; i < rbat; i++) od[ora++] = bc[i];
        if (ra >= 2) od[ora++] = M;
        if (rb >= 2) od[ora++] = N;
        A = rand_f32(numel(ra, ad), -1, 1);
        B = rand_f32(numel(rb, bd), -1, 1);
        n = numel(ora, od);
        ref = (double*)calloc((size_t)n + 1, sizeof(double));
        for (e = 0; e < n; e++) {
            int64_t full[10], m, nn, ac[10], bcd[10];
            /* output coordinate as batch + [m, n] */
            unravel(e, ora, od, oc);
            for (i = 0; i < rbat; i++) full[i] = oc[i];
            m = ra >= 2 ? oc[rbat] : 0;
            nn = rb >= 2 ? oc[ora - 1] : 0;
            for (k = 0; k < K; k++) {
                int64_t ia, ib;
                for (i = 0; i < ra - 2; i++) ac[i] = ab[i] == 1 ? 0 : full[rbat - (ra - 2) + i];
                if (ra >= 2) { ac[ra - 2] = m; ac[ra - 1] = k; } else ac[0] = k;
                for (i = 0; i < rb - 2; i++) bcd[i] = bb[i] == 1 ? 0 : full[rbat - (rb - 2) + i];
                if (rb >= 2) { bcd[rb - 2] = k; bcd[rb - 1] = nn; } else bcd[0] = k;
                ia = ravel(ra, ad, ac);
                ib = ravel(rb, bd, bcd);
                ref[e] += (double)A[ia] * B[ib];
            }
        }
        snprintf(what, sizeof what, "MatMul %s x %s", dims_str(ra, ad, b1, sizeof b1), dims_str(rb, bd, b2, sizeof b2));
        tg_begin(&t, 0);
        tg_input(&t, "a", AICF_DTYPE_FLOAT32, ra, ad, A);
        tg_input(&t, "b", AICF_DTYPE_FLOAT32, rb, bd, B);
        tg_node(&t, "MatMul", "a,b", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, ora, od))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-5, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(A);
        free(B);
        free(ref);
    }
}

static void test_gemm(void) {
    int iter;
    for (iter = 0; iter < 24; iter++) {
        int64_t M = rndi(1, 7), N = rndi(1, 7), K = rndi(1, 9), ta = rndi(0, 1), tb = rndi(0, 1), i, j, k;
        int cmode = iter % 6, crank = 0, nat = 0;
        int64_t cd[2];
        float alpha = rndi(0, 1) ? rndf(-2, 2) : 1.0f, beta = rndi(0, 1) ? rndf(-2, 2) : 1.0f;
        float *A = rand_f32(M * K, -1, 1), *B = rand_f32(K * N, -1, 1), *C = NULL;
        double* ref = (double*)malloc((size_t)(M * N) * sizeof(double));
        aicf_attr at[4];
        char what[128];
        tg t;
        switch (cmode) {
        case 1: crank = 0; break;                             /* scalar */
        case 2: crank = 1; cd[0] = N; break;                  /* [N] */
        case 3: crank = 2; cd[0] = M; cd[1] = 1; break;       /* [M,1] */
        case 4: crank = 2; cd[0] = M; cd[1] = N; break;       /* [M,N] */
        case 5: crank = 2; cd[0] = 1; cd[1] = N; break;       /* [1,N] */
        default: break;
        }
        if (cmode) C = rand_f32(numel(crank, cd), -1, 1);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                double s = 0.0, c = 0.0;
                for (k = 0; k < K; k++) s += (double)(ta ? A[k * M + i] : A[i * K + k]) * (tb ? B[j * K + k] : B[k * N + j]);
                if (cmode == 1) c = C[0];
                if (cmode == 2) c = C[j];
                if (cmode == 3) c = C[i];
                if (cmode == 4) c = C[i * N + j];
                if (cmode == 5) c = C[j];
                ref[i * N + j] = alpha * s + (cmode ? beta * c : 0.0);
            }
        at[nat++] = A_i("transA", ta);
        at[nat++] = A_i("transB", tb);
        at[nat++] = A_f("alpha", alpha);
        at[nat++] = A_f("beta", beta);
        snprintf(what, sizeof what, "Gemm M=%lld N=%lld K=%lld tA=%lld tB=%lld C mode %d", (long long)M, (long long)N,
                 (long long)K, (long long)ta, (long long)tb, cmode);
        tg_begin(&t, 0);
        tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, ta ? D(2, K, M) : D(2, M, K), A);
        tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, tb ? D(2, N, K) : D(2, K, N), B);
        if (cmode) tg_const(&t, "c", AICF_DTYPE_FLOAT32, crank, cd, C);
        tg_node(&t, "Gemm", cmode ? "a,b,c" : "a,b", "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 2, D(2, M, N)))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, M * N, 1e-5, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(A);
        free(B);
        free(C);
        free(ref);
    }
}

/* ============================================================================================
   Conv and pooling
   ============================================================================================ */

typedef struct winp {
    int nsp;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
    int auto_pad; /* 0 NOTSET, 1 SAME_UPPER, 2 SAME_LOWER, 3 VALID */
    int ceil_mode;
    int explicit_strides, explicit_dil, explicit_pads;
} winp;

static const char* const auto_pad_names[4] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};

/* Output size per the ONNX formulas; 0 when the kernel does not fit. */
static int win_out(winp* w, int pool) {
    int i;
    for (i = 0; i < w->nsp; i++) {
        int64_t dk = (w->k[i] - 1) * w->d[i] + 1;
        if (w->auto_pad == 0) {
            int64_t padded = w->in[i] + w->pb[i] + w->pe[i];
            if (padded < dk) return 0;
            if (w->ceil_mode && pool) {
                w->out[i] = (int64_t)ceil((double)(padded - dk) / (double)w->s[i]) + 1;
                if ((w->out[i] - 1) * w->s[i] >= w->in[i] + w->pb[i]) w->out[i]--;
            } else {
                w->out[i] = (int64_t)floor((double)(padded - dk) / (double)w->s[i]) + 1;
            }
        } else if (w->auto_pad == 3) {
            if (w->in[i] < dk) return 0;
            w->pb[i] = w->pe[i] = 0;
            w->out[i] = (int64_t)ceil((double)(w->in[i] - dk + 1) / (double)w->s[i]);
        } else {
            int64_t total;
            w->out[i] = (int64_t)ceil((double)w->in[i] / (double)w->s[i]);
            total = (w->out[i] - 1) * w->s[i] + dk - w->in[i];
            if (total < 0) total = 0;
            w->pb[i] = w->auto_pad == 1 ? total / 2 : (total + 1) / 2;
            w->pe[i] = total - w->pb[i];
        }
    }
    return 1;
}

static void rand_win(winp* w, int nsp, int pool) {
    int i;
    memset(w, 0, sizeof *w);
    w->nsp = nsp;
    w->auto_pad = rndi(0, 5);
    if (w->auto_pad > 3) w->auto_pad = 0;
    w->explicit_strides = rndi(0, 1);
    w->explicit_dil = rndi(0, 1);
    w->explicit_pads = rndi(0, 1);
    w->ceil_mode = pool && w->auto_pad == 0 ? rndi(0, 1) : 0;
    for (i = 0; i < nsp; i++) {
        w->in[i] = rndi(nsp == 3 ? 1 : 2, nsp == 1 ? 12 : (nsp == 2 ? 8 : 5));
        w->k[i] = rndi(1, 3);
        w->s[i] = w->explicit_strides ? rndi(1, 3) : 1;
        w->d[i] = w->explicit_dil ? rndi(1, 2) : 1;
        if (w->auto_pad == 0 && w->explicit_pads) {
            int64_t maxp = pool ? (w->k[i] - 1) * w->d[i] : 2;
            w->pb[i] = rndi(0, (int)maxp);
            w->pe[i] = rndi(0, (int)maxp);
        }
    }
}

static int win_attrs(const winp* w, aicf_attr* at, int64_t* ibuf, int with_dil) {
    int n = 0, i;
    if (w->auto_pad) at[n++] = A_s("auto_pad", auto_pad_names[w->auto_pad]);
    if (w->explicit_strides) {
        for (i = 0; i < w->nsp; i++) ibuf[i] = w->s[i];
        at[n++] = A_ints("strides", w->nsp, ibuf);
    }
    if (w->explicit_dil && with_dil) {
        for (i = 0; i < w->nsp; i++) ibuf[8 + i] = w->d[i];
        at[n++] = A_ints("dilations", w->nsp, ibuf + 8);
    }
    if (w->auto_pad == 0 && w->explicit_pads) {
        for (i = 0; i < w->nsp; i++) {
            ibuf[16 + i] = w->pb[i];
            ibuf[16 + w->nsp + i] = w->pe[i];
        }
        at[n++] = A_ints("pads", 2 * w->nsp, ibuf + 16);
    }
    if (w->ceil_mode) at[n++] = A_i("ceil_mode", 1);
    return n;
}

static const char* win_str(const winp* w, char* buf, size_t cap) {
    char a[64], b[64], c[64], d[64], e[64], f[64];
    snprintf(buf, cap, "in%s k%s s%s d%s pads%s%s %s%s", dims_str(w->nsp, w->in, a, sizeof a), dims_str(w->nsp, w->k, b, sizeof b),
             dims_str(w->nsp, w->s, c, sizeof c), dims_str(w->nsp, w->d, d, sizeof d), dims_str(w->nsp, w->pb, e, sizeof e),
             dims_str(w->nsp, w->pe, f, sizeof f), auto_pad_names[w->auto_pad], w->ceil_mode ? " ceil" : "");
    return buf;
}

static void test_conv(void) {
    int iter;
    for (iter = 0; iter < 60; iter++) {
        int nsp = 1 + iter % 3, i, nat, has_b = rndi(0, 1), ok;
        int64_t N = rndi(1, 2), group = rndi(1, 3), Cg = rndi(1, 3), Mg = rndi(1, 3), C, M, KS = 1, OS = 1, IS = 1;
        int64_t xd[5], wd[5], od[5], ibuf[32], n, g, mo, r, o, e;
        winp w;
        aicf_attr at[8];
        float *X, *W, *B;
        double *cols, *ref;
        char what[768], wb[512];
        tg t;
        rand_win(&w, nsp, 0);
        if (iter % 7 == 6) group = Cg = 1; /* depthwise-like corner: one channel per group */
        C = group * Cg;
        M = group * Mg;
        xd[0] = N;
        xd[1] = C;
        wd[0] = M;
        wd[1] = Cg;
        for (i = 0; i < nsp; i++) {
            xd[2 + i] = w.in[i];
            wd[2 + i] = w.k[i];
            KS *= w.k[i];
            IS *= w.in[i];
        }
        nat = win_attrs(&w, at, ibuf, 1);
        if (group > 1) at[nat++] = A_i("group", group);
        if (rndi(0, 1)) at[nat++] = A_ints("kernel_shape", nsp, wd + 2);
        ok = win_out(&w, 0);
        snprintf(what, sizeof what, "Conv N=%lld C=%lld M=%lld group=%lld %s%s", (long long)N, (long long)C, (long long)M,
                 (long long)group, win_str(&w, wb, sizeof wb), has_b ? " bias" : "");
        X = rand_f32(N * C * IS, -1, 1);
        W = rand_f32(M * Cg * KS, -1, 1);
        B = rand_f32(M, -1, 1);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2 + nsp, xd, X);
        tg_const(&t, "w", AICF_DTYPE_FLOAT32, 2 + nsp, wd, W);
        if (has_b) tg_const(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, M), B);
        tg_node(&t, "Conv", has_b ? "x,w,b" : "x,w", "y", nat, at);
        if (!ok) {
            expect_error(&t, what, AICF_ERROR_SHAPE, "exceeds");
            free(X);
            free(W);
            free(B);
            continue;
        }
        od[0] = N;
        od[1] = M;
        for (i = 0; i < nsp; i++) {
            od[2 + i] = w.out[i];
            OS *= w.out[i];
        }
        /* im2col per (n, group), then a matmul with W in double */
        cols = (double*)calloc((size_t)(Cg * KS * OS) + 1, sizeof(double));
        ref = (double*)calloc((size_t)(N * M * OS) + 1, sizeof(double));
        for (n = 0; n < N; n++)
            for (g = 0; g < group; g++) {
                for (r = 0; r < Cg * KS; r++)
                    for (o = 0; o < OS; o++) {
                        int64_t ci = r / KS, kc[3], oc[3], pos[3];
                        int inside = 1;
                        unravel(r % KS, nsp, w.k, kc);
                        unravel(o, nsp, w.out, oc);
                        for (i = 0; i < nsp; i++) {
                            pos[i] = oc[i] * w.s[i] - w.pb[i] + kc[i] * w.d[i];
                            if (pos[i] < 0 || pos[i] >= w.in[i]) inside = 0;
                        }
                        cols[r * OS + o] = inside ? X[(n * C + g * Cg + ci) * IS + ravel(nsp, w.in, pos)] : 0.0;
                    }
                for (mo = 0; mo < Mg; mo++) {
                    int64_t m = g * Mg + mo;
                    for (o = 0; o < OS; o++) {
                        double s = has_b ? B[m] : 0.0;
                        for (r = 0; r < Cg * KS; r++) s += (double)W[m * Cg * KS + r] * cols[r * OS + o];
                        ref[(n * M + m) * OS + o] = s;
                    }
                }
            }
        e = N * M * OS;
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 2 + nsp, od))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, e, 1e-5, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(cols);
        free(ref);
        free(X);
        free(W);
        free(B);
    }
}

static void test_pool(void) {
    int iter;
    for (iter = 0; iter < 80; iter++) {
        int nsp = 1 + iter % 3, is_max = (iter / 3) % 2, i, nat, ok, cip = is_max ? 0 : rndi(0, 1);
        int64_t N = rndi(1, 2), C = rndi(1, 3), IS = 1, OS = 1, KS = 1, xd[5], od[5], ibuf[32], nc, o, kk;
        winp w;
        aicf_attr at[10];
        float* X;
        double* ref;
        char what[768], wb[512];
        tg t;
        rand_win(&w, nsp, 1);
        xd[0] = N;
        xd[1] = C;
        for (i = 0; i < nsp; i++) {
            xd[2 + i] = w.in[i];
            IS *= w.in[i];
            KS *= w.k[i];
        }
        nat = win_attrs(&w, at, ibuf, 1);
        at[nat++] = A_ints("kernel_shape", nsp, w.k);
        if (!is_max && cip) at[nat++] = A_i("count_include_pad", 1);
        ok = win_out(&w, 1);
        snprintf(what, sizeof what, "%s N=%lld C=%lld %s%s", is_max ? "MaxPool" : "AveragePool", (long long)N, (long long)C,
                 win_str(&w, wb, sizeof wb), cip ? " count_include_pad" : "");
        X = rand_f32(N * C * IS, -1, 1);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2 + nsp, xd, X);
        tg_node(&t, is_max ? "MaxPool" : "AveragePool", "x", "y", nat, at);
        if (!ok) {
            expect_error(&t, what, AICF_ERROR_SHAPE, "exceeds");
            free(X);
            continue;
        }
        od[0] = N;
        od[1] = C;
        for (i = 0; i < nsp; i++) {
            od[2 + i] = w.out[i];
            OS *= w.out[i];
        }
        ref = (double*)calloc((size_t)(N * C * OS) + 1, sizeof(double));
        for (nc = 0; nc < N * C; nc++)
            for (o = 0; o < OS; o++) {
                int64_t oc[3], kc[3], pos[3];
                double acc = is_max ? -INFINITY : 0.0;
                int64_t cnt = 0, cnt_pad = 0;
                unravel(o, nsp, w.out, oc);
                for (kk = 0; kk < KS; kk++) {
                    int inside = 1, inpad = 1;
                    unravel(kk, nsp, w.k, kc);
                    for (i = 0; i < nsp; i++) {
                        pos[i] = oc[i] * w.s[i] - w.pb[i] + kc[i] * w.d[i];
                        if (pos[i] < 0 || pos[i] >= w.in[i]) inside = 0;
                        if (pos[i] >= w.in[i] + w.pe[i]) inpad = 0;
                    }
                    cnt_pad += inpad;
                    if (!inside) continue;
                    cnt++;
                    {
                        double v = X[nc * IS + ravel(nsp, w.in, pos)];
                        if (is_max) acc = v > acc ? v : acc;
                        else acc += v;
                    }
                }
                /* a window that touches no input element (possible with dilations): MaxPool gives
                   the lowest float (as ONNX Runtime), AveragePool 0 */
                if (is_max && cnt == 0) acc = -FLT_MAX;
                if (!is_max) acc = (cip ? cnt_pad : cnt) ? acc / (double)(cip ? cnt_pad : cnt) : 0.0;
                ref[nc * OS + o] = acc;
            }
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 2 + nsp, od))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, N * C * OS, 1e-6, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(ref);
        free(X);
    }
}

static void test_gap_bn_lrn(void) {
    int iter;
    for (iter = 0; iter < 12; iter++) {
        int rank = rndi(2, 5), i;
        int64_t d[5], od[5], N, C, S, n, c, s, j;
        float *X, *sc, *bb, *mean, *var, alpha = rndf(1e-4f, 1e-2f), beta = rndf(0.5f, 0.9f), bias = rndf(0.5f, 2.0f), eps = rndf(1e-5f, 1e-2f);
        double *ref_gap, *ref_bn, *ref_lrn;
        int64_t size = rndi(1, 5);
        aicf_attr at[4];
        char what[96], b1[64];
        tg t;
        for (i = 0; i < rank; i++) d[i] = rndi(1, 5);
        N = d[0];
        C = d[1];
        S = numel(rank - 2, d + 2);
        X = rand_f32(N * C * S, -2, 2);
        sc = rand_f32(C, 0.5f, 1.5f);
        bb = rand_f32(C, -1, 1);
        mean = rand_f32(C, -1, 1);
        var = rand_f32(C, 0.1f, 2.0f);
        ref_gap = (double*)calloc((size_t)(N * C), sizeof(double));
        ref_bn = (double*)calloc((size_t)(N * C * S), sizeof(double));
        ref_lrn = (double*)calloc((size_t)(N * C * S), sizeof(double));
        for (n = 0; n < N; n++)
            for (c = 0; c < C; c++)
                for (s = 0; s < S; s++) {
                    double x = X[(n * C + c) * S + s], sq = 0.0;
                    ref_gap[n * C + c] += x / (double)S;
                    ref_bn[(n * C + c) * S + s] = (x - mean[c]) / sqrt((double)var[c] + eps) * sc[c] + bb[c];
                    for (j = c - (size - 1) / 2; j <= c + (size - 1) - (size - 1) / 2; j++)
                        if (j >= 0 && j < C) sq += (double)X[(n * C + j) * S + s] * X[(n * C + j) * S + s];
                    ref_lrn[(n * C + c) * S + s] = x / pow(bias + alpha / (double)size * sq, beta);
                }
        dims_str(rank, d, b1, sizeof b1);
        /* GlobalAveragePool */
        snprintf(what, sizeof what, "GlobalAveragePool %s", b1);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, rank, d, X);
        tg_node(&t, "GlobalAveragePool", "x", "y", 0, NULL);
        for (i = 0; i < rank; i++) od[i] = i < 2 ? d[i] : 1;
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, rank, od))
                check_f32(what, (const float*)tg_out(&t, "y"), ref_gap, N * C, 1e-6, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        /* BatchNormalization */
        snprintf(what, sizeof what, "BatchNormalization %s", b1);
        tg_begin(&t, iter % 2 ? 9 : 15);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, rank, d, X);
        tg_const(&t, "sc", AICF_DTYPE_FLOAT32, 1, D(1, C), sc);
        tg_const(&t, "bb", AICF_DTYPE_FLOAT32, 1, D(1, C), bb);
        tg_const(&t, "mean", AICF_DTYPE_FLOAT32, 1, D(1, C), mean);
        tg_input(&t, "var", AICF_DTYPE_FLOAT32, 1, D(1, C), var);
        at[0] = A_f("epsilon", eps);
        tg_node(&t, "BatchNormalization", "x,sc,bb,mean,var", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, rank, d))
                check_f32(what, (const float*)tg_out(&t, "y"), ref_bn, N * C * S, 1e-5, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        /* LRN */
        snprintf(what, sizeof what, "LRN size=%lld %s", (long long)size, b1);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, rank, d, X);
        at[0] = A_i("size", size);
        at[1] = A_f("alpha", alpha);
        at[2] = A_f("beta", beta);
        at[3] = A_f("bias", bias);
        tg_node(&t, "LRN", "x", "y", 4, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, rank, d))
                check_f32(what, (const float*)tg_out(&t, "y"), ref_lrn, N * C * S, 1e-6, 1e-5);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(X);
        free(sc);
        free(bb);
        free(mean);
        free(var);
        free(ref_gap);
        free(ref_bn);
        free(ref_lrn);
    }
    /* BatchNormalization spatial = 0 (opset 7): one parameter per activation */
    {
        int64_t N = 2, C = 3, S = 4, i, n;
        float *X = rand_f32(N * C * S, -1, 1), *p[4];
        double ref[24];
        aicf_attr at[1];
        tg t;
        for (i = 0; i < 4; i++) p[i] = rand_f32(C * S, 0.2f, 1.0f);
        for (n = 0; n < N; n++)
            for (i = 0; i < C * S; i++)
                ref[n * C * S + i] = (X[n * C * S + i] - p[2][i]) / sqrt((double)p[3][i] + 1e-5f) * p[0][i] + p[1][i];
        tg_begin(&t, 7);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, N, C, S), X);
        tg_const(&t, "sc", AICF_DTYPE_FLOAT32, 2, D(2, C, S), p[0]);
        tg_const(&t, "bb", AICF_DTYPE_FLOAT32, 2, D(2, C, S), p[1]);
        tg_const(&t, "mean", AICF_DTYPE_FLOAT32, 2, D(2, C, S), p[2]);
        tg_const(&t, "var", AICF_DTYPE_FLOAT32, 2, D(2, C, S), p[3]);
        at[0] = A_i("spatial", 0);
        tg_node(&t, "BatchNormalization", "x,sc,bb,mean,var", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32("BatchNormalization spatial=0", (const float*)tg_out(&t, "y"), ref, 24, 1e-6, 1e-5);
        else CHECK(0, "BatchNormalization spatial=0: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        free(X);
        for (i = 0; i < 4; i++) free(p[i]);
    }
}

/* Softmax: opset 11 coerces to 2-D at axis; opset 13 normalises along one axis. */
static void test_softmax(void) {
    int iter;
    for (iter = 0; iter < 16; iter++) {
        int rank = rndi(1, 4), i, opset = iter % 2 ? 11 : 13, ax;
        int64_t d[4], n, axis, outer, A, inner, o, a, in_;
        float* X;
        double* ref;
        aicf_attr at[1];
        int nat = 0;
        char what[96], b1[64];
        tg t;
        for (i = 0; i < rank; i++) d[i] = rndi(1, 5);
        n = numel(rank, d);
        X = rand_f32(n, -30, 30);
        axis = rndi(-rank, rank - 1);
        if (rndi(0, 2) == 0) axis = opset < 13 ? (rank > 1 ? 1 : 0) : -1; /* the default */
        else at[nat++] = A_i("axis", axis);
        if (opset < 13 && rank == 1 && nat == 0) { /* default axis 1 is out of range for rank 1 */
            at[nat++] = A_i("axis", 0);
            axis = 0;
        }
        ax = (int)(axis < 0 ? axis + rank : axis);
        outer = numel(ax, d);
        A = opset < 13 ? numel(rank - ax, d + ax) : d[ax];
        inner = opset < 13 ? 1 : numel(rank - ax - 1, d + ax + 1);
        ref = (double*)malloc((size_t)n * sizeof(double));
        for (o = 0; o < outer; o++)
            for (in_ = 0; in_ < inner; in_++) {
                double mx = -INFINITY, s = 0.0;
                for (a = 0; a < A; a++) mx = fmax(mx, X[(o * A + a) * inner + in_]);
                for (a = 0; a < A; a++) s += exp(X[(o * A + a) * inner + in_] - mx);
                for (a = 0; a < A; a++) ref[(o * A + a) * inner + in_] = exp(X[(o * A + a) * inner + in_] - mx) / s;
            }
        snprintf(what, sizeof what, "Softmax opset %d axis %lld %s", opset, (long long)axis, dims_str(rank, d, b1, sizeof b1));
        tg_begin(&t, opset);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, rank, d, X);
        tg_node(&t, "Softmax", "x", "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-7, 1e-5);
        else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(X);
        free(ref);
    }
}

/* ============================================================================================
   Data movement, aliasing ops, Shape, Constant, ConstantOfShape, Cast
   ============================================================================================ */

static void test_concat_transpose(void) {
    int iter;
    for (iter = 0; iter < 16; iter++) {
        aicf_dtype dt = iter % 3 == 0 ? AICF_DTYPE_INT64 : (iter % 3 == 1 ? AICF_DTYPE_FLOAT32 : AICF_DTYPE_INT32);
        size_t esz = aicf_dtype_size(dt);
        int rank = rndi(1, 5), nin = rndi(1, 4), i, k, ax;
        int64_t d[4][8], od[8], n, e, axis = rndi(-rank, rank - 1), oc[8], perm[8];
        void* data[4];
        unsigned char *ref, *tref;
        char ins[32], what[128], b1[64];
        aicf_attr at[1];
        tg t;
        ax = (int)(axis < 0 ? axis + rank : axis);
        for (i = 0; i < rank; i++) od[i] = rndi(1, 4);
        od[ax] = 0;
        ins[0] = 0;
        for (k = 0; k < nin; k++) {
            int64_t m;
            memcpy(d[k], od, sizeof od);
            d[k][ax] = rndi(0, 3); /* zero-size pieces too */
            od[ax] += d[k][ax];
            m = numel(rank, d[k]);
            data[k] = malloc((size_t)(m + 1) * esz);
            for (e = 0; e < m * (int64_t)esz; e++) ((unsigned char*)data[k])[e] = (unsigned char)rnd_u64();
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), "%sx%d", k ? "," : "", k);
        }
        n = numel(rank, od);
        ref = (unsigned char*)malloc((size_t)(n + 1) * esz);
        for (e = 0; e < n; e++) {
            int64_t c2[8], off = 0;
            unravel(e, rank, od, oc);
            memcpy(c2, oc, sizeof c2);
            for (k = 0; k < nin; k++) {
                if (oc[ax] - off < d[k][ax]) {
                    c2[ax] = oc[ax] - off;
                    memcpy(ref + e * esz, (unsigned char*)data[k] + ravel(rank, d[k], c2) * esz, esz);
                    break;
                }
                off += d[k][ax];
            }
        }
        snprintf(what, sizeof what, "Concat %s axis %lld x%d -> %s", aicf_dtype_name(dt), (long long)axis, nin, dims_str(rank, od, b1, sizeof b1));
        tg_begin(&t, 0);
        for (k = 0; k < nin; k++) {
            /* odd inputs constants, even ones graph inputs */
            if (k % 2) tg_const(&t, k == 1 ? "x1" : "x3", dt, rank, d[k], data[k]);
            else tg_input(&t, k == 0 ? "x0" : "x2", dt, rank, d[k], data[k]);
        }
        at[0] = A_i("axis", axis);
        tg_node(&t, "Concat", ins, "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", dt, rank, od))
                CHECK(n == 0 || !memcmp(tg_out(&t, "y"), ref, (size_t)n * esz), "%s: data differs", what);
        } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        /* Transpose of the concatenation result */
        for (i = 0; i < rank; i++) perm[i] = i;
        for (i = rank - 1; i > 0; i--) {
            int j = rndi(0, i);
            int64_t tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        {
            int64_t pd[8], ic[8];
            int use_default = rndi(0, 3) == 0;
            if (use_default)
                for (i = 0; i < rank; i++) perm[i] = rank - 1 - i;
            for (i = 0; i < rank; i++) pd[i] = od[perm[i]];
            tref = (unsigned char*)malloc((size_t)(n + 1) * esz);
            for (e = 0; e < n; e++) {
                unravel(e, rank, pd, oc);
                for (i = 0; i < rank; i++) ic[perm[i]] = oc[i];
                memcpy(tref + e * esz, ref + ravel(rank, od, ic) * esz, esz);
            }
            snprintf(what, sizeof what, "Transpose %s %s perm%s", aicf_dtype_name(dt), b1, use_default ? " default" : "");
            tg_begin(&t, 0);
            tg_input(&t, "x", dt, rank, od, ref);
            at[0] = A_ints("perm", rank, perm);
            tg_node(&t, "Transpose", "x", "y", use_default ? 0 : 1, at);
            if (tg_run(&t) == AICF_SUCCESS) {
                if (tg_check_shape(&t, what, "y", dt, rank, pd))
                    CHECK(n == 0 || !memcmp(tg_out(&t, "y"), tref, (size_t)n * esz), "%s: data differs", what);
            } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
            tg_end(&t);
            free(tref);
        }
        for (k = 0; k < nin; k++) free(data[k]);
        free(ref);
    }
}

/* Runs a one-node aliasing graph and checks shape and bytes, also in place (out == in). */
static void check_alias(tg* t, const char* what, const char* xname, const void* x, size_t bytes, int rank, const int64_t* od) {
    if (tg_run(t) == AICF_SUCCESS) {
        if (tg_check_shape(t, what, "y", tg_t(t, xname)->dtype, rank, od)) {
            CHECK(!memcmp(tg_out(t, "y"), x, bytes), "%s: data differs", what);
            /* in place */
            {
                aicf__node* n = &t->g->nodes[t->g->n_nodes - 1];
                void* buf = malloc(bytes + 1);
                const void* in[3];
                void* out[2];
                memcpy(buf, x, bytes);
                in[0] = buf;
                in[1] = n->n_in > 1 && n->in[1] >= 0 ? t->g->tensors[n->in[1]].data : NULL;
                in[2] = NULL;
                out[0] = buf;
                out[1] = NULL;
                CHECK(aicf__cpu_run(t->g, t->g->n_nodes - 1, in, out) == AICF_SUCCESS && !memcmp(buf, x, bytes),
                      "%s: in place run failed: %s", what, aicf_last_error(t->ctx));
                free(buf);
            }
        }
    } else {
        CHECK(0, "%s: %s", what, aicf_last_error(t->ctx));
    }
    tg_end(t);
}

static void test_alias_ops(void) {
    float x[120];
    int64_t xi[120];
    int i;
    aicf_attr at[2];
    tg t;
    for (i = 0; i < 120; i++) {
        x[i] = rndf(-1, 1);
        xi[i] = (int64_t)rnd_u64();
    }
    CHECK(aicf__op_is_alias(AICF__OP_Reshape) && aicf__op_is_alias(AICF__OP_Flatten) && aicf__op_is_alias(AICF__OP_Squeeze) &&
              aicf__op_is_alias(AICF__OP_Unsqueeze) && aicf__op_is_alias(AICF__OP_Identity) && aicf__op_is_alias(AICF__OP_Dropout) &&
              !aicf__op_is_alias(AICF__OP_Transpose) && !aicf__op_is_alias(AICF__OP_Relu) && !aicf__op_is_alias(AICF__OP_Concat),
          "aicf__op_is_alias");
    /* Reshape: 0 copies, -1 infers */
    {
        int64_t sh[3] = {0, -1, 5};
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, 2, 3, 20), x);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 3), sh);
        tg_node(&t, "Reshape", "x,s", "y", 0, NULL);
        check_alias(&t, "Reshape [2,3,20] by [0,-1,5]", "x", x, sizeof x, 3, D(3, 2, 12, 5));
    }
    { /* allowzero = 1: 0 is a real zero-size dim */
        int64_t sh[2] = {0, 4};
        tg_begin(&t, 14);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 0, 4), x);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), sh);
        at[0] = A_i("allowzero", 1);
        tg_node(&t, "Reshape", "x,s", "y", 1, at);
        check_alias(&t, "Reshape allowzero", "x", x, 0, 2, D(2, 0, 4));
    }
    { /* opset 4: shape attribute, int64 data */
        int64_t sh[2] = {-1, 8};
        tg_begin(&t, 4);
        tg_input(&t, "x", AICF_DTYPE_INT64, 2, D(2, 4, 30), xi);
        at[0] = A_ints("shape", 2, sh);
        tg_node(&t, "Reshape", "x", "y", 1, at);
        check_alias(&t, "Reshape opset 4 attribute", "x", xi, sizeof xi, 2, D(2, 15, 8));
    }
    /* Flatten */
    for (i = -4; i <= 4; i++) {
        int64_t d[4] = {2, 3, 4, 5};
        int ax = i < 0 ? i + 4 : i;
        char what[64];
        snprintf(what, sizeof what, "Flatten axis %d", i);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, d, x);
        at[0] = A_i("axis", i);
        tg_node(&t, "Flatten", "x", "y", 1, at);
        check_alias(&t, what, "x", x, sizeof x, 2, D(2, numel(ax, d), numel(4 - ax, d + ax)));
    }
    /* Squeeze: all ones, by attribute (opset 11), by input (opset 13) */
    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 5, D(5, 1, 4, 1, 30, 1), x);
    tg_node(&t, "Squeeze", "x", "y", 0, NULL);
    check_alias(&t, "Squeeze all", "x", x, sizeof x, 2, D(2, 4, 30));
    tg_begin(&t, 11);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 5, D(5, 1, 4, 1, 30, 1), x);
    at[0] = A_ints("axes", 2, D(2, -1, 0));
    tg_node(&t, "Squeeze", "x", "y", 1, at);
    check_alias(&t, "Squeeze opset 11 axes [-1,0]", "x", x, sizeof x, 3, D(3, 4, 1, 30));
    {
        int64_t ax[1] = {2};
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_INT64, 5, D(5, 1, 4, 1, 30, 1), xi);
        tg_const(&t, "axes", AICF_DTYPE_INT64, 1, D(1, 1), ax);
        tg_node(&t, "Squeeze", "x,axes", "y", 0, NULL);
        check_alias(&t, "Squeeze opset 13 axes input", "x", xi, sizeof xi, 4, D(4, 1, 4, 30, 1));
    }
    /* Unsqueeze */
    tg_begin(&t, 11);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 30), x);
    at[0] = A_ints("axes", 3, D(3, 0, -1, 2));
    tg_node(&t, "Unsqueeze", "x", "y", 1, at);
    check_alias(&t, "Unsqueeze opset 11 axes [0,-1,2]", "x", x, sizeof x, 5, D(5, 1, 4, 1, 30, 1));
    {
        int64_t ax[2] = {3, 1};
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 30), x);
        tg_const(&t, "axes", AICF_DTYPE_INT64, 1, D(1, 2), ax);
        tg_node(&t, "Unsqueeze", "x,axes", "y", 0, NULL);
        check_alias(&t, "Unsqueeze opset 13 axes [3,1]", "x", x, sizeof x, 4, D(4, 4, 1, 30, 1));
    }
    /* Identity, Dropout (+ mask) */
    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_INT32, 1, D(1, 240), xi);
    tg_node(&t, "Identity", "x", "y", 0, NULL);
    check_alias(&t, "Identity int32", "x", xi, sizeof xi, 1, D(1, 240));
    {
        float ratio = 0.3f;
        unsigned char tm = 0;
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 30), x);
        tg_const(&t, "r", AICF_DTYPE_FLOAT32, 0, NULL, &ratio);
        tg_const(&t, "tm", AICF_DTYPE_BOOL, 0, NULL, &tm);
        tg_node(&t, "Dropout", "x,r,tm", "y,mask", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            unsigned char* m = (unsigned char*)tg_out(&t, "mask");
            int allone = 1;
            for (i = 0; i < 120; i++) allone &= m[i] == 1;
            CHECK(!memcmp(tg_out(&t, "y"), x, sizeof x) && allone && tg_t(&t, "mask")->dtype == AICF_DTYPE_BOOL,
                  "Dropout with mask");
        } else CHECK(0, "Dropout: %s", aicf_last_error(t.ctx));
        tg_end(&t);
    }
    tg_begin(&t, 7);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 30), x);
    at[0] = A_f("ratio", 0.5f);
    tg_node(&t, "Dropout", "x", "y", 1, at);
    check_alias(&t, "Dropout opset 7", "x", x, sizeof x, 2, D(2, 4, 30));
}

static void test_shape_const_cast(void) {
    int64_t d[5] = {2, 3, 4, 5, 6};
    int s, e;
    aicf_attr at[3];
    tg t;
    float dummy[720];
    memset(dummy, 0, sizeof dummy);
    /* Shape with start/end (opset 15), clamped */
    for (s = -7; s <= 7; s += 2)
        for (e = -7; e <= 7; e += 3) {
            int64_t a = s < 0 ? s + 5 : s, b = e < 0 ? e + 5 : e, i, len;
            char what[64];
            a = a < 0 ? 0 : (a > 5 ? 5 : a);
            b = b < 0 ? 0 : (b > 5 ? 5 : b);
            len = b > a ? b - a : 0;
            snprintf(what, sizeof what, "Shape start %d end %d", s, e);
            tg_begin(&t, 15);
            tg_input(&t, "x", AICF_DTYPE_FLOAT32, 5, d, dummy);
            at[0] = A_i("start", s);
            at[1] = A_i("end", e);
            tg_node(&t, "Shape", "x", "y", 2, at);
            if (tg_run(&t) == AICF_SUCCESS) {
                if (tg_check_shape(&t, what, "y", AICF_DTYPE_INT64, 1, D(1, len))) {
                    int ok = 1;
                    for (i = 0; i < len; i++) ok &= ((int64_t*)tg_out(&t, "y"))[i] == d[a + i];
                    CHECK(ok, "%s: values", what);
                }
            } else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
            tg_end(&t);
        }
    /* Shape's input needs no data (the planner folds Shape of non-constant tensors) */
    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 5, d, NULL);
    tg_node(&t, "Shape", "x", "y", 0, NULL);
    CHECK(tg_run(&t) == AICF_SUCCESS && ((int64_t*)tg_out(&t, "y"))[4] == 6, "Shape without input data: %s", aicf_last_error(t.ctx));
    tg_end(&t);
    /* Constant: value tensor, value_float(s), value_int(s) */
    {
        int32_t v[6] = {1, -2, 3, -4, 5, 6};
        float fl[3] = {1.5f, -2.5f, 3.25f};
        int64_t il[2] = {7, -9};
        aicf_tensor_desc td;
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_INT32;
        td.rank = 2;
        td.dims = D(2, 2, 3);
        td.data = v;
        td.data_bytes = sizeof v;
        tg_begin(&t, 0);
        at[0] = A_t("value", &td);
        tg_node(&t, "Constant", "", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Constant value", "y", AICF_DTYPE_INT32, 2, D(2, 2, 3)))
            CHECK(!memcmp(tg_out(&t, "y"), v, sizeof v), "Constant value: data");
        else CHECK(0, "Constant value: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        tg_begin(&t, 0);
        at[0] = A_floats("value_floats", 3, fl);
        tg_node(&t, "Constant", "", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Constant value_floats", "y", AICF_DTYPE_FLOAT32, 1, D(1, 3)))
            CHECK(!memcmp(tg_out(&t, "y"), fl, sizeof fl), "Constant value_floats: data");
        else CHECK(0, "Constant value_floats: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        tg_begin(&t, 0);
        at[0] = A_ints("value_ints", 2, il);
        tg_node(&t, "Constant", "", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Constant value_ints", "y", AICF_DTYPE_INT64, 1, D(1, 2)))
            CHECK(!memcmp(tg_out(&t, "y"), il, sizeof il), "Constant value_ints: data");
        else CHECK(0, "Constant value_ints: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        tg_begin(&t, 0);
        at[0] = A_f("value_float", -0.75f);
        tg_node(&t, "Constant", "", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Constant value_float", "y", AICF_DTYPE_FLOAT32, 0, NULL))
            CHECK(*(float*)tg_out(&t, "y") == -0.75f, "Constant value_float: data");
        else CHECK(0, "Constant value_float: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        tg_begin(&t, 0);
        at[0] = A_i("value_int", -12345678901ll);
        tg_node(&t, "Constant", "", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Constant value_int", "y", AICF_DTYPE_INT64, 0, NULL))
            CHECK(*(int64_t*)tg_out(&t, "y") == -12345678901ll, "Constant value_int: data");
        else CHECK(0, "Constant value_int: %s", aicf_last_error(t.ctx));
        tg_end(&t);
    }
    /* ConstantOfShape: default float 0, int64 value, zero-size, scalar */
    {
        int64_t sh[3] = {2, 0, 3}, sh2[2] = {3, 4}, val = -5, i;
        aicf_tensor_desc td;
        int ok = 1;
        tg_begin(&t, 0);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), sh2);
        tg_node(&t, "ConstantOfShape", "s", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "ConstantOfShape default", "y", AICF_DTYPE_FLOAT32, 2, sh2)) {
            for (i = 0; i < 12; i++) ok &= ((float*)tg_out(&t, "y"))[i] == 0.0f;
            CHECK(ok, "ConstantOfShape default: zeros");
        } else CHECK(0, "ConstantOfShape default: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_INT64;
        td.rank = 1;
        td.dims = D(1, 1);
        td.data = &val;
        td.data_bytes = 8;
        tg_begin(&t, 0);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), sh2);
        at[0] = A_t("value", &td);
        tg_node(&t, "ConstantOfShape", "s", "y", 1, at);
        ok = 1;
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "ConstantOfShape int64", "y", AICF_DTYPE_INT64, 2, sh2)) {
            for (i = 0; i < 12; i++) ok &= ((int64_t*)tg_out(&t, "y"))[i] == -5;
            CHECK(ok, "ConstantOfShape int64: values");
        } else CHECK(0, "ConstantOfShape int64: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        tg_begin(&t, 0);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 3), sh);
        tg_node(&t, "ConstantOfShape", "s", "y", 0, NULL);
        CHECK(tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "ConstantOfShape zero-size", "y", AICF_DTYPE_FLOAT32, 3, sh),
              "ConstantOfShape zero-size: %s", aicf_last_error(t.ctx));
        tg_end(&t);
    }
    /* Cast */
    {
        float f[8];
        double dd[6] = {1.0 + 1.0 / 2048.0, 1.0 + 1.0 / 2048.0 + 1e-12, 65519.0, 65520.0, -3.0e-8, 1.0 - 1.0 / 4096.0};
        uint16_t dd16[6] = {0x3c00, 0x3c01, 0x7bff, 0x7c00, 0x8001, 0x3c00};
        int64_t big[3] = {((int64_t)1 << 40) + 5, -1, 300};
        int i;
        f[0] = 2.7f; f[1] = -2.7f; f[2] = 300.0f; f[3] = -1e30f; f[4] = 0.0f; f[5] = 1e-3f; f[6] = 65504.0f; f[7] = -0.5f;
        /* float -> int32 truncates toward zero, saturates */
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 8), f);
        at[0] = A_i("to", AICF_DTYPE_INT32);
        tg_node(&t, "Cast", "x", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            int32_t* y = (int32_t*)tg_out(&t, "y");
            CHECK(y[0] == 2 && y[1] == -2 && y[2] == 300 && y[3] == INT32_MIN && y[4] == 0 && y[7] == 0, "Cast float->int32: %d %d %d %d",
                  y[0], y[1], y[2], y[3]);
        } else CHECK(0, "Cast: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        /* float -> bool, -> float16 (matches aicf__f32_to_f16) */
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 8), f);
        at[0] = A_i("to", AICF_DTYPE_BOOL);
        at[1] = A_i("to", AICF_DTYPE_FLOAT16);
        tg_node(&t, "Cast", "x", "b", 1, at);
        tg_node(&t, "Cast", "x", "h", 1, at + 1);
        if (tg_run(&t) == AICF_SUCCESS) {
            unsigned char* b = (unsigned char*)tg_out(&t, "b");
            uint16_t* h = (uint16_t*)tg_out(&t, "h");
            int ok = b[0] == 1 && b[4] == 0 && b[7] == 1;
            for (i = 0; i < 8; i++) ok &= h[i] == aicf__f32_to_f16(f[i]);
            CHECK(ok, "Cast float->bool/float16");
        } else CHECK(0, "Cast: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        /* double -> float16 rounds once (ties to even, overflow to inf, subnormals) */
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT64, 1, D(1, 6), dd);
        at[0] = A_i("to", AICF_DTYPE_FLOAT16);
        tg_node(&t, "Cast", "x", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            uint16_t* h = (uint16_t*)tg_out(&t, "y");
            int ok = 1;
            for (i = 0; i < 6; i++) ok &= h[i] == dd16[i];
            CHECK(ok, "Cast double->float16: %04x %04x %04x %04x %04x %04x", h[0], h[1], h[2], h[3], h[4], h[5]);
        } else CHECK(0, "Cast: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        /* int64 -> int32 / uint8 wrap, -> float */
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_INT64, 1, D(1, 3), big);
        at[0] = A_i("to", AICF_DTYPE_INT32);
        at[1] = A_i("to", AICF_DTYPE_UINT8);
        at[2] = A_s("to", "FLOAT");
        tg_node(&t, "Cast", "x", "i", 1, at);
        tg_node(&t, "Cast", "x", "u", 1, at + 1);
        if (tg_run(&t) == AICF_SUCCESS) {
            int32_t* i32 = (int32_t*)tg_out(&t, "i");
            uint8_t* u8 = (uint8_t*)tg_out(&t, "u");
            CHECK(i32[0] == 5 && i32[1] == -1 && i32[2] == 300 && u8[0] == 5 && u8[1] == 255 && u8[2] == 44, "Cast int64 narrowing");
        } else CHECK(0, "Cast: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        /* opset 1: 'to' is a string */
        tg_begin(&t, 1);
        tg_input(&t, "x", AICF_DTYPE_INT64, 1, D(1, 3), big);
        at[0] = A_s("to", "FLOAT");
        tg_node(&t, "Cast", "x", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            float* y = (float*)tg_out(&t, "y");
            CHECK(tg_t(&t, "y")->dtype == AICF_DTYPE_FLOAT32 && y[0] == (float)big[0] && y[1] == -1.0f, "Cast opset 1 string 'to'");
        } else CHECK(0, "Cast opset 1: %s", aicf_last_error(t.ctx));
        tg_end(&t);
    }
}

/* Inputs at odd byte offsets (constants borrowed from a model file's raw_data) must give the
   same results (the run copies them to aligned memory; UBSan builds check the loads). */
static void test_unaligned(void) {
    int64_t a[12], b[4], i;
    float x[12], w[6];
    unsigned char* raw = (unsigned char*)malloc(1 + sizeof a + sizeof x + 8);
    tg t;
    for (i = 0; i < 12; i++) {
        a[i] = (int64_t)rndi(-100000, 100000) * 1000003;
        x[i] = rndf(-1, 1);
    }
    for (i = 0; i < 4; i++) b[i] = rndi(1, 50);
    for (i = 0; i < 6; i++) w[i] = rndf(-1, 1);
    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_INT64, 2, D(2, 3, 4), a);
    tg_const(&t, "b", AICF_DTYPE_INT64, 1, D(1, 4), b);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, 1, 2, 6), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 3, D(3, 1, 2, 3), w);
    tg_node(&t, "Mul", "a,b", "y", 0, NULL);
    tg_node(&t, "Conv", "x,w", "z", 0, NULL);
    if (tg_run(&t) == AICF_SUCCESS) {
        const void* in[2];
        void* out[1];
        int64_t y2[12];
        float z2[4];
        memcpy(raw + 1, a, sizeof a);
        in[0] = raw + 1;
        in[1] = b;
        out[0] = y2;
        CHECK(aicf__cpu_run(t.g, 0, in, out) == AICF_SUCCESS && !memcmp(y2, tg_out(&t, "y"), sizeof y2), "unaligned int64 input: %s",
              aicf_last_error(t.ctx));
        memcpy(raw + 3, x, sizeof x);
        in[0] = raw + 3;
        in[1] = w;
        out[0] = z2;
        CHECK(aicf__cpu_run(t.g, 1, in, out) == AICF_SUCCESS && !memcmp(z2, tg_out(&t, "z"), sizeof z2), "unaligned float input: %s",
              aicf_last_error(t.ctx));
    } else CHECK(0, "unaligned: %s", aicf_last_error(t.ctx));
    tg_end(&t);
    free(raw);
}

/* ============================================================================================
   Error paths
   ============================================================================================ */

static void test_errors(void) {
    float x[64];
    int64_t sh[2] = {4, -1};
    unsigned char yes = 1;
    uint16_t h[4] = {0, 0, 0, 0};
    aicf_attr at[4];
    tg t;
    int i;
    for (i = 0; i < 64; i++) x[i] = rndf(-1, 1);

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 8, 8), x);
    tg_input(&t, "shape", AICF_DTYPE_INT64, 1, D(1, 2), sh);
    tg_node(&t, "Reshape", "x,shape", "y", 0, NULL);
    expect_error(&t, "Reshape with a non-constant shape", AICF_ERROR_UNSUPPORTED,
                 "node 0 'n' (Reshape): input 1 'shape' must be a constant at plan time");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 8, 8), x);
    tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), D(2, 3, -1));
    tg_node(&t, "Reshape", "x,s", "y", 0, NULL);
    expect_error(&t, "Reshape 64 elements to [3,-1]", AICF_ERROR_SHAPE, "cannot reshape input 0 shape [8,8]");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 4, 16), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, D(2, 8, 8), x);
    tg_node(&t, "MatMul", "a,b", "y", 0, NULL);
    expect_error(&t, "MatMul K mismatch", AICF_ERROR_SHAPE, "input 1 'b' shape [8,8] does not match input 0 shape [4,16]");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 4, 16), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, D(2, 3, 16), x);
    tg_node(&t, "Add", "a,b", "y", 0, NULL);
    expect_error(&t, "Add broadcast mismatch", AICF_ERROR_SHAPE, "cannot be broadcast");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT16, 1, D(1, 4), h);
    tg_node(&t, "Relu", "a", "y", 0, NULL);
    expect_error(&t, "Relu float16", AICF_ERROR_UNSUPPORTED, "input 0 'a' has data type");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_INT64, 1, D(1, 4), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_node(&t, "Add", "a,b", "y", 0, NULL);
    expect_error(&t, "Add mixed dtypes", AICF_ERROR_INVALID_MODEL, "has data type");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_node(&t, "Relu", "a,a", "y", 0, NULL);
    expect_error(&t, "Relu with two inputs", AICF_ERROR_INVALID_MODEL, "has 2 inputs");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 4, 4), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    at[0] = A_ints("dilations", 2, D(2, 1, 0));
    tg_node(&t, "Conv", "x,w", "y", 1, at);
    expect_error(&t, "Conv dilation 0", AICF_ERROR_INVALID_MODEL, "dilations[1] = 0 is out of range");

    {
        const char* dp[2] = {"batch", NULL};
        aicf_tensor_desc d;
        memset(&d, 0, sizeof d);
        d.name = "x";
        d.dtype = AICF_DTYPE_FLOAT32;
        d.rank = 2;
        d.dims = D(2, -1, 4);
        d.dim_params = dp;
        tg_begin(&t, 0);
        CHECK(aicf_graph_add_input(t.g, &d) == AICF_SUCCESS, "add symbolic input: %s", aicf_last_error(t.ctx));
        tg_node(&t, "Relu", "x", "y", 0, NULL);
        expect_error(&t, "unbound dimension", AICF_ERROR_SHAPE, "input 0 'x' has");
    }

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 4, 4, 4), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 2, 3, 1, 1), x);
    tg_node(&t, "Conv", "x,w", "y", 0, NULL);
    expect_error(&t, "Conv channels vs W", AICF_ERROR_SHAPE, "input 0 has 4 channels but W shape [2,3,1,1]");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 4, 4, 4), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 3, 2, 1, 1), x);
    at[0] = A_i("group", 2);
    tg_node(&t, "Conv", "x,w", "y", 1, at);
    expect_error(&t, "Conv M not a multiple of group", AICF_ERROR_SHAPE, "not a multiple of group 2");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 5, 5), x);
    tg_node(&t, "Conv", "x,w", "y", 0, NULL);
    expect_error(&t, "Conv kernel larger than input", AICF_ERROR_SHAPE, "kernel extent 5");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    at[0] = A_s("auto_pad", "SAME");
    tg_node(&t, "Conv", "x,w", "y", 1, at);
    expect_error(&t, "Conv bad auto_pad", AICF_ERROR_INVALID_MODEL, "attribute 'auto_pad' is 'SAME'");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    at[0] = A_ints("strides", 1, D(1, 2));
    tg_node(&t, "Conv", "x,w", "y", 1, at);
    expect_error(&t, "Conv strides count", AICF_ERROR_INVALID_MODEL, "attribute 'strides' has 1 values; expected 2");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    at[0] = A_ints("kernel_shape", 2, D(2, 2, 2));
    at[1] = A_i("storage_order", 1);
    tg_node(&t, "MaxPool", "x", "y", 2, at);
    expect_error(&t, "MaxPool storage_order", AICF_ERROR_UNSUPPORTED, "storage_order");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    at[0] = A_ints("kernel_shape", 2, D(2, 2, 2));
    tg_node(&t, "MaxPool", "x", "y,idx", 1, at);
    expect_error(&t, "MaxPool Indices", AICF_ERROR_UNSUPPORTED, "(Indices) is not supported");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 3, 3), x);
    tg_node(&t, "AveragePool", "x", "y", 0, NULL);
    expect_error(&t, "AveragePool without kernel_shape", AICF_ERROR_INVALID_MODEL, "'kernel_shape' is missing");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_const(&t, "p", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    at[0] = A_i("training_mode", 1);
    tg_node(&t, "BatchNormalization", "x,p,p,p,p", "y", 1, at);
    expect_error(&t, "BatchNormalization training_mode", AICF_ERROR_UNSUPPORTED, "training_mode = 1");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_const(&t, "p", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    tg_node(&t, "BatchNormalization", "x,p,p,p,p", "y,rm,rv", 0, NULL);
    expect_error(&t, "BatchNormalization training outputs", AICF_ERROR_UNSUPPORTED, "output 1 'rm' is only produced in training mode");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 4), x);
    tg_const(&t, "p", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    tg_node(&t, "BatchNormalization", "x,p,p,p,p", "y", 0, NULL);
    expect_error(&t, "BatchNormalization channel mismatch", AICF_ERROR_SHAPE, "does not match 4 channels");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_const(&t, "tm", AICF_DTYPE_BOOL, 0, NULL, &yes);
    tg_node(&t, "Dropout", "x,,tm", "y", 0, NULL);
    expect_error(&t, "Dropout training_mode", AICF_ERROR_UNSUPPORTED, "training_mode = true");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    at[0] = A_i("axis", 2);
    tg_node(&t, "Softmax", "x", "y", 1, at);
    expect_error(&t, "Softmax axis", AICF_ERROR_INVALID_MODEL, "attribute 'axis' 2 is out of range for rank 2");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, 2, 3, 4), x);
    at[0] = A_ints("perm", 3, D(3, 0, 2, 2));
    tg_node(&t, "Transpose", "x", "y", 1, at);
    expect_error(&t, "Transpose bad perm", AICF_ERROR_INVALID_MODEL, "'perm' repeats axis 2");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, D(2, 3, 3), x);
    at[0] = A_i("axis", 1);
    tg_node(&t, "Concat", "a,b", "y", 1, at);
    expect_error(&t, "Concat mismatch", AICF_ERROR_SHAPE, "input 1 'b' shape [3,3] does not match input 0 shape [2,3] outside axis 1");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_const(&t, "axes", AICF_DTYPE_INT64, 1, D(1, 1), D(1, 0));
    tg_node(&t, "Squeeze", "x,axes", "y", 0, NULL);
    expect_error(&t, "Squeeze non-1 dim", AICF_ERROR_SHAPE, "cannot squeeze axis 0");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 7, D(7, 1, 1, 1, 1, 1, 1, 2), x);
    tg_const(&t, "axes", AICF_DTYPE_INT64, 1, D(1, 2), D(2, 0, 1));
    tg_node(&t, "Unsqueeze", "x,axes", "y", 0, NULL);
    expect_error(&t, "Unsqueeze past the rank limit", AICF_ERROR_LIMIT, "output rank 9 exceeds the limit 8");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    at[0] = A_i("to", AICF_DTYPE_STRING);
    tg_node(&t, "Cast", "x", "y", 1, at);
    expect_error(&t, "Cast to string", AICF_ERROR_UNSUPPORTED, "attribute 'to' = 8");

    tg_begin(&t, 0);
    at[0] = A_s("value_string", "hello");
    tg_node(&t, "Constant", "", "y", 1, at);
    expect_error(&t, "Constant value_string", AICF_ERROR_UNSUPPORTED, "'value_string' is not supported");

    tg_begin(&t, 0);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 3, 4), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, D(2, 4, 5), x);
    tg_input(&t, "c", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    tg_node(&t, "Gemm", "a,b,c", "y", 0, NULL);
    expect_error(&t, "Gemm C not broadcastable", AICF_ERROR_SHAPE, "(C) shape [3] cannot be broadcast to [3,5]");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    at[0] = A_f("size", 3.0f);
    tg_node(&t, "LRN", "x", "y", 1, at);
    expect_error(&t, "LRN size of the wrong type", AICF_ERROR_INVALID_MODEL, "attribute 'size' must be of type INT");

    tg_begin(&t, 0);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_node(&t, "ConstantOfShape", "x", "y", 0, NULL);
    expect_error(&t, "ConstantOfShape non-constant", AICF_ERROR_UNSUPPORTED, "must be a constant at plan time");
}

/* ============================================================================================
   ONNX backend node tests
   ============================================================================================ */

typedef struct op_stat {
    char op[40];
    int pass, fail, skip;
} op_stat;

typedef struct node_run {
    op_stat st[96];
    int n_st;
    int not_ours, total;
} node_run;

static op_stat* stat_for(node_run* nr, const char* op) {
    int i;
    for (i = 0; i < nr->n_st; i++)
        if (!strcmp(nr->st[i].op, op)) return &nr->st[i];
    if (nr->n_st == 96) return &nr->st[95];
    memset(&nr->st[nr->n_st], 0, sizeof nr->st[0]);
    snprintf(nr->st[nr->n_st].op, sizeof nr->st[0].op, "%s", op);
    return &nr->st[nr->n_st++];
}

static unsigned char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* p;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    p = (unsigned char*)malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* Minimal protobuf walk: op_type of each node of ModelProto.graph (field 7) -> node (1) ->
   op_type (4), to tell which node tests exercise aicf ops before loading them. */
static int pb_varint(const unsigned char** p, const unsigned char* end, uint64_t* v) {
    int shift = 0;
    *v = 0;
    while (*p < end && shift < 64) {
        unsigned char b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 1;
        shift += 7;
    }
    return 0;
}

/* Finds length-delimited fields `field` in [p, end); calls back with each. Returns 0 on bad data. */
static int pb_fields(const unsigned char* p, const unsigned char* end, int field, void (*cb)(const unsigned char*, size_t, void*), void* user) {
    while (p < end) {
        uint64_t key, v;
        if (!pb_varint(&p, end, &key)) return 0;
        switch (key & 7) {
        case 0:
            if (!pb_varint(&p, end, &v)) return 0;
            break;
        case 1: p += 8; break;
        case 5: p += 4; break;
        case 2:
            if (!pb_varint(&p, end, &v) || v > (uint64_t)(end - p)) return 0;
            if ((int)(key >> 3) == field) cb(p, (size_t)v, user);
            p += v;
            break;
        default: return 0;
        }
    }
    return p == end;
}

typedef struct op_list {
    char ops[16][40];
    int n, n_total;
} op_list;

static void cb_op_type(const unsigned char* p, size_t n, void* user) {
    op_list* l = (op_list*)user;
    if (l->n < 16) {
        snprintf(l->ops[l->n], sizeof l->ops[0], "%.*s", (int)(n < 39 ? n : 39), (const char*)p);
        l->n++;
    }
    l->n_total++;
}
static void cb_node(const unsigned char* p, size_t n, void* user) { pb_fields(p, p + n, 4, cb_op_type, user); }
static void cb_graph(const unsigned char* p, size_t n, void* user) { pb_fields(p, p + n, 1, cb_node, user); }

static int file_exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* Compares one output; returns NULL when equal, else a description in buf. */
static const char* compare_output(const aicf__tensor* t, const void* got, const aicf_host_tensor* exp, char* buf, size_t cap) {
    int64_t n, i;
    int k;
    char b1[96], b2[96];
    if (t->dtype != exp->dtype) {
        snprintf(buf, cap, "output '%s' dtype %s, expected %s", t->name, aicf_dtype_name(t->dtype), aicf_dtype_name(exp->dtype));
        return buf;
    }
    if (t->shape.rank != exp->rank) goto shape_bad;
    for (k = 0; k < exp->rank; k++)
        if (t->shape.d[k] != exp->dims[k]) goto shape_bad;
    n = aicf__shape_numel(&t->shape);
    for (i = 0; i < n; i++) {
        double g, e;
        switch (t->dtype) {
        case AICF_DTYPE_FLOAT32: g = ((const float*)got)[i]; e = ((const float*)exp->data)[i]; break;
        case AICF_DTYPE_FLOAT64: g = ((const double*)got)[i]; e = ((const double*)exp->data)[i]; break;
        case AICF_DTYPE_FLOAT16: g = aicf__f16_to_f32(((const uint16_t*)got)[i]); e = aicf__f16_to_f32(((const uint16_t*)exp->data)[i]); break;
        default: {
            size_t esz = aicf_dtype_size(t->dtype);
            if (memcmp((const unsigned char*)got + i * esz, (const unsigned char*)exp->data + i * esz, esz)) {
                snprintf(buf, cap, "output '%s' element %lld differs (integer)", t->name, (long long)i);
                return buf;
            }
            continue;
        }
        }
        if (!close_to(g, e, 1e-7, 1e-3)) {
            snprintf(buf, cap, "output '%s' element %lld: got %.9g expected %.9g", t->name, (long long)i, g, e);
            return buf;
        }
    }
    return NULL;
shape_bad:
    snprintf(buf, cap, "output '%s' shape %s, expected %s", t->name, dims_str(t->shape.rank, t->shape.d, b1, sizeof b1),
             dims_str(exp->rank, exp->dims, b2, sizeof b2));
    return buf;
}

/* Runs one test case node by node: model `dir`/model.onnx with test_data_set_0, or (light !=
   NULL) the model file `dir` with one input filled with arange(n)/n and the expected output in
   file `light`. Returns 1 pass, 0 fail, -1 skip (reason in why). */
static int node_case_ex(aicf_context* ctx, const char* dir, const char* light, char* why, size_t cap) {
    char path[2048];
    aicf_graph* g = NULL;
    aicf_host_tensor hin[16], hout[16];
    int n_hin = 0, n_hout = 0, i, k, res = -1, inputs[16], n_inputs;
    void** buf = NULL;
    aicf_result r;
    memset(hin, 0, sizeof hin);
    memset(hout, 0, sizeof hout);
    if (light) snprintf(path, sizeof path, "%s", dir);
    else snprintf(path, sizeof path, "%s/model.onnx", dir);
    r = aicf_graph_load_onnx(ctx, path, NULL, &g);
    if (r != AICF_SUCCESS) {
        snprintf(why, cap, "load: %s", aicf_last_error(ctx));
        return r == AICF_ERROR_UNSUPPORTED ? -1 : 0;
    }
    n_inputs = g->n_inputs < 16 ? g->n_inputs : 16;
    for (i = 0; i < n_inputs; i++) inputs[i] = g->inputs[i];
    if (light) {
        /* one input of the declared shape, arange(n)/n */
        aicf__tensor* t = &g->tensors[inputs[0]];
        int64_t ne = aicf__shape_numel(&t->shape), e;
        if (n_inputs != 1 || t->dtype != AICF_DTYPE_FLOAT32 || ne < 0) {
            snprintf(why, cap, "light model: expected one float32 input of a static shape");
            res = 0;
            goto done;
        }
        hin[0].dtype = t->dtype;
        hin[0].rank = t->shape.rank;
        for (k = 0; k < t->shape.rank; k++) hin[0].dims[k] = t->shape.d[k];
        hin[0].bytes = (size_t)ne * 4;
        hin[0].data = aicf__malloc(ctx, hin[0].bytes + 4);
        for (e = 0; e < ne; e++) ((float*)hin[0].data)[e] = (float)e / (float)ne;
        n_hin = 1;
        r = aicf_tensor_read_pb(ctx, light, &hout[0]);
        if (r != AICF_SUCCESS) {
            snprintf(why, cap, "%s: %s", light, aicf_last_error(ctx));
            res = 0;
            goto done;
        }
        n_hout = 1;
    }
    for (k = 0; k < 16 && !light; k++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, k);
        if (!file_exists(path)) break;
        r = aicf_tensor_read_pb(ctx, path, &hin[k]);
        n_hin = k + 1;
        if (r != AICF_SUCCESS) {
            snprintf(why, cap, "input_%d.pb: %s", k, aicf_last_error(ctx));
            res = r == AICF_ERROR_UNSUPPORTED ? -1 : 0;
            goto done;
        }
    }
    for (k = 0; k < 16 && !light; k++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, k);
        if (!file_exists(path)) break;
        r = aicf_tensor_read_pb(ctx, path, &hout[k]);
        n_hout = k + 1;
        if (r != AICF_SUCCESS) {
            snprintf(why, cap, "output_%d.pb: %s", k, aicf_last_error(ctx));
            res = r == AICF_ERROR_UNSUPPORTED ? -1 : 0;
            goto done;
        }
    }
    if (n_hin != n_inputs || n_hout != g->n_outputs) {
        snprintf(why, cap, "%d input files for %d graph inputs, %d output files for %d outputs", n_hin, n_inputs, n_hout, g->n_outputs);
        res = 0;
        goto done;
    }
    buf = (void**)calloc((size_t)g->n_tensors + 1, sizeof(void*));
    /* inputs: shapes from the data; int64/bool inputs (shapes, axes, flags) become constants */
    for (k = 0; k < n_inputs; k++) {
        aicf__tensor* t = &g->tensors[inputs[k]];
        if (t->dtype != hin[k].dtype) {
            snprintf(why, cap, "input %d '%s' declared %s, data is %s", k, t->name, aicf_dtype_name(t->dtype), aicf_dtype_name(hin[k].dtype));
            res = 0;
            goto done;
        }
        t->shape.rank = hin[k].rank;
        for (i = 0; i < hin[k].rank; i++) t->shape.d[i] = hin[k].dims[i];
        t->shape_known = 1;
        buf[inputs[k]] = hin[k].data;
        if (t->dtype == AICF_DTYPE_INT64 || t->dtype == AICF_DTYPE_BOOL) {
            r = aicf_graph_bind_input_value(g, t->name, hin[k].data, hin[k].bytes);
            if (r != AICF_SUCCESS) {
                snprintf(why, cap, "bind input %d: %s", k, aicf_last_error(ctx));
                res = 0;
                goto done;
            }
        }
    }
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        const void* in[64];
        void* out[16];
        r = aicf__op_infer(g, i);
        if (r != AICF_SUCCESS) {
            snprintf(why, cap, "%s", aicf_last_error(ctx));
            res = r == AICF_ERROR_UNSUPPORTED ? -1 : 0;
            goto done;
        }
        for (k = 0; k < n->n_in && k < 64; k++) {
            int ti = n->in[k];
            in[k] = ti < 0 ? NULL : (buf[ti] ? buf[ti] : g->tensors[ti].data);
        }
        for (k = 0; k < n->n_out && k < 16; k++) {
            int ti = n->out[k];
            out[k] = NULL;
            if (ti < 0) continue;
            free(buf[ti]);
            buf[ti] = malloc((size_t)aicf__shape_numel(&g->tensors[ti].shape) * aicf_dtype_size(g->tensors[ti].dtype) + 1);
            out[k] = buf[ti];
        }
        r = aicf__cpu_run(g, i, in, out);
        if (r != AICF_SUCCESS) {
            snprintf(why, cap, "run: %s", aicf_last_error(ctx));
            res = r == AICF_ERROR_UNSUPPORTED ? -1 : 0;
            goto done;
        }
    }
    res = 1;
    for (k = 0; k < g->n_outputs; k++) {
        const aicf__tensor* t = &g->tensors[g->outputs[k]];
        const void* got = buf[g->outputs[k]] ? buf[g->outputs[k]] : t->data;
        if (!got && aicf__shape_numel(&t->shape) > 0) {
            snprintf(why, cap, "output %d '%s' was not computed", k, t->name);
            res = 0;
            break;
        }
        if (compare_output(t, got, &hout[k], why, cap)) {
            res = 0;
            break;
        }
    }
done:
    if (buf) {
        for (k = 0; k < n_inputs; k++) buf[inputs[k]] = NULL; /* owned by hin */
        for (k = 0; k < g->n_tensors; k++) free(buf[k]);
        free(buf);
    }
    for (k = 0; k < n_hin; k++) aicf_host_tensor_free(ctx, &hin[k]);
    for (k = 0; k < n_hout; k++) aicf_host_tensor_free(ctx, &hout[k]);
    aicf_graph_destroy(g);
    return res;
}

static int node_case(aicf_context* ctx, const char* dir, char* why, size_t cap) { return node_case_ex(ctx, dir, NULL, why, cap); }

/* --model DIR (ONNX test layout) or --light FILE.onnx (expected output FILE_output_0.pb). */
static void test_model(const char* arg, int light) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    char why[1200], exp[1100];
    int res;
    clock_t t0 = clock();
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return;
    if (light) {
        size_t n = strlen(arg);
        snprintf(exp, sizeof exp, "%.*s_output_0.pb", (int)(n > 5 ? n - 5 : n), arg);
    }
    why[0] = 0;
    res = node_case_ex(ctx, arg, light ? exp : NULL, why, sizeof why);
    printf("model %s: %s %s (%.1f s)\n", arg, res == 1 ? "pass" : (res == 0 ? "FAIL" : "skip"), why,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (res == 1) g_pass++;
    if (res == 0) g_fail++;
    aicf_context_destroy(ctx);
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

static void test_node_suite(void) {
    const char* root = getenv("AICF_NODE_TESTS");
    DIR* d;
    struct dirent* de;
    char** names = NULL;
    int n_names = 0, cap = 0, i, k;
    node_run* nr;
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    static const char* const ours[] = {
#define AICF__TEST_OP_NAME(name) #name,
        AICF__OPS(AICF__TEST_OP_NAME)
#undef AICF__TEST_OP_NAME
    };
    if (!root) root = file_exists("build/onnx-node/node/test_abs/model.onnx") ? "build/onnx-node/node" : "../build/onnx-node/node";
    d = opendir(root);
    if (!d) {
        printf("SKIP node tests: %s not found (set AICF_NODE_TESTS, or extract /work/shared/data/onnx-node-1.23.1.tar.gz "
               "into build/onnx-node)\n", root);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "test_", 5) != 0) continue;
        if (n_names == cap) {
            cap = cap ? 2 * cap : 256;
            names = (char**)realloc(names, (size_t)cap * sizeof(char*));
        }
        names[n_names] = (char*)malloc(strlen(de->d_name) + 1);
        strcpy(names[n_names++], de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n_names, sizeof(char*), cmp_str);
    nr = (node_run*)calloc(1, sizeof *nr);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        CHECK(0, "node tests: context");
        return;
    }
    printf("node tests from %s\n", root);
    for (i = 0; i < n_names; i++) {
        char dir[1024], path[2048], why[1200];
        unsigned char* model;
        size_t size = 0;
        op_list ol;
        int all_ours = 1, res;
        op_stat* st;
        const char* bucket;
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        snprintf(path, sizeof path, "%s/model.onnx", dir);
        model = read_file(path, &size);
        if (!model) continue;
        memset(&ol, 0, sizeof ol);
        pb_fields(model, model + size, 7, cb_graph, &ol);
        free(model);
        if (ol.n_total == 0 || ol.n_total > 16) all_ours = 0;
        for (k = 0; k < ol.n && all_ours; k++) {
            int j, found = 0;
            for (j = 0; j < (int)(sizeof ours / sizeof ours[0]); j++) found |= !strcmp(ours[j], ol.ops[k]);
            all_ours = found;
        }
        nr->total++;
        if (!all_ours) {
            nr->not_ours++;
            continue;
        }
        bucket = ol.n_total == 1 ? ol.ops[0] : "(multi-node)";
        st = stat_for(nr, bucket);
        why[0] = 0;
        res = node_case(ctx, dir, why, sizeof why);
        if (res == 1) {
            st->pass++;
            g_pass++;
            if (g_verbose) printf("  pass %s\n", names[i]);
        } else if (res == 0) {
            st->fail++;
            g_fail++;
            printf("  FAIL %s: %s\n", names[i], why);
        } else {
            st->skip++;
            printf("  skip %s: %s\n", names[i], why);
        }
    }
    printf("node tests by op (%d cases; %d use ops outside aicf):\n", nr->total, nr->not_ours);
    {
        int tp = 0, tf = 0, ts = 0;
        for (i = 0; i < nr->n_st; i++) {
            printf("  %-20s %3d passed, %d failed, %d skipped\n", nr->st[i].op, nr->st[i].pass, nr->st[i].fail, nr->st[i].skip);
            tp += nr->st[i].pass;
            tf += nr->st[i].fail;
            ts += nr->st[i].skip;
        }
        printf("  %-20s %3d passed, %d failed, %d skipped\n", "(all)", tp, tf, ts);
    }
    for (i = 0; i < n_names; i++) free(names[i]);
    free(names);
    free(nr);
    aicf_context_destroy(ctx);
}

int main(int argc, char** argv) {
    int i, unit = 1, node = 1;
    uint64_t seed = (uint64_t)time(NULL);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--node-only")) unit = 0;
        else if (!strcmp(argv[i], "--unit-only")) node = 0;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            test_model(argv[++i], 0);
            unit = node = 0;
        } else if (!strcmp(argv[i], "--light") && i + 1 < argc) {
            test_model(argv[++i], 1);
            unit = node = 0;
        }
    }
    printf("test_ops: seed %llu\n", (unsigned long long)seed);
    g_rng = seed * 0x9E3779B97F4A7C15ull + 1;
    if (unit) {
        test_unary();
        test_clip();
        test_binary();
        test_matmul();
        test_gemm();
        test_conv();
        test_pool();
        test_gap_bn_lrn();
        test_softmax();
        test_concat_transpose();
        test_alias_ops();
        test_shape_const_cast();
        test_unaligned();
        test_errors();
        printf("unit checks: %d passed, %d failed\n", g_pass, g_fail);
    }
    if (node) test_node_suite();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
