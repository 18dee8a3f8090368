/* tests/test_ops.c: shape inference and the CPU reference of every op (src/60_ops.c).

   1. Unit checks: small graphs built through the public builder, aicf__op_infer and
      aicf__cpu_run called directly, results compared on fresh random data against independent
      straightforward computations in double (Conv against im2col + matmul, pools against
      brute force, broadcasting against index arithmetic, ...), plus error paths (result code
      and message text).
   2. The ONNX backend node tests: every case whose nodes are all aicf ops is loaded with
      aicf_graph_load_onnx, run node by node and compared with the ONNX tolerance
      (|got - exp| <= 1e-7 + 1e-3 |exp|, NaN must match NaN). Inputs that are not float32
      are bound as constants (as tests/node_tests.c does); a case skipped because a float
      input decides a shape (Resize scales, OneHot depth, Range bounds) runs again with every
      input a constant. Per-op passed/failed/skipped, every skip with its reason. Directory: $AICF_NODE_TESTS, default build/onnx-node/node
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
   Ops for exported models: helpers
   ============================================================================================ */

/* Element i of a test buffer of type dt, as double / int64 (the test's own accessors). */
static double tget(aicf_dtype dt, const void* p, int64_t i) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: return ((const float*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_INT64: return (double)((const int64_t*)p)[i];
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8:
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i];
    default: return NAN;
    }
}

static void tset(aicf_dtype dt, void* p, int64_t i, double v) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: ((float*)p)[i] = (float)v; break;
    case AICF_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)v; break;
    case AICF_DTYPE_INT64: ((int64_t*)p)[i] = (int64_t)v; break;
    case AICF_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)v; break;
    case AICF_DTYPE_UINT8:
    case AICF_DTYPE_BOOL: ((uint8_t*)p)[i] = (uint8_t)v; break;
    default: break;
    }
}

static void* talloc(aicf_dtype dt, int64_t n) {
    void* p = malloc((size_t)(n > 0 ? n : 1) * 8);
    memset(p, 0, (size_t)(n > 0 ? n : 1) * 8);
    (void)dt;
    return p;
}

/* Output shape of n inputs broadcast together. */
static int bcast_out(int n, const int* ranks, int64_t (*dims)[AICF_MAX_RANK], int64_t* od) {
    int r = 0, k, i;
    for (k = 0; k < n; k++) r = ranks[k] > r ? ranks[k] : r;
    for (i = 0; i < r; i++) {
        int64_t m = 1;
        for (k = 0; k < n; k++) {
            int j = ranks[k] - r + i;
            if (j >= 0 && dims[k][j] != 1) m = dims[k][j];
        }
        od[i] = m;
    }
    return r;
}

/* A random full shape and n shapes that broadcast to it. */
static int rand_bcast_set(int n, int* ranks, int64_t (*dims)[AICF_MAX_RANK], int64_t* od) {
    int orank = rndi(0, 4), i, k;
    int64_t full[AICF_MAX_RANK];
    for (i = 0; i < orank; i++) full[i] = rndi(1, 4);
    for (k = 0; k < n; k++) ranks[k] = rand_bcast_shape(orank, full, dims[k]);
    if (rndi(0, 1)) {
        ranks[0] = orank;
        memcpy(dims[0], full, sizeof full);
    }
    return bcast_out(n, ranks, dims, od);
}

static int check_bytes(const char* what, const void* got, const void* exp, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (((const unsigned char*)got)[i] != ((const unsigned char*)exp)[i]) break;
    CHECK(i == n, "%s: byte %zu of %zu differs", what, i, n);
    return i == n;
}

/* ============================================================================================
   Comparisons, logic, Where, Mod, PRelu, Mean, bitwise
   ============================================================================================ */

static void test_compare_logic(void) {
    static const char* const ops[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"};
    static const float fvals[6] = {-1.0f, 0.0f, 0.5f, 1.0f, 2.0f, -0.0f};
    int iter;
    for (iter = 0; iter < 64; iter++) {
        const char* op = ops[iter % 8];
        int logic = iter % 8 >= 5, k, ranks[2];
        aicf_dtype dt = logic ? AICF_DTYPE_BOOL : ((iter / 8) % 3 == 0 ? AICF_DTYPE_FLOAT32 : ((iter / 8) % 3 == 1 ? AICF_DTYPE_INT64 : AICF_DTYPE_INT32));
        int64_t dims[2][AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, e;
        int orank = rand_bcast_set(2, ranks, dims, od);
        void* data[2];
        uint8_t* ref;
        char what[96];
        tg t;
        n = numel(orank, od);
        for (k = 0; k < 2; k++) {
            int64_t m = numel(ranks[k], dims[k]);
            data[k] = talloc(dt, m);
            for (e = 0; e < m; e++) {
                if (dt == AICF_DTYPE_FLOAT32) ((float*)data[k])[e] = rndi(0, 9) == 0 ? NAN : fvals[rndi(0, 5)];
                else if (dt == AICF_DTYPE_BOOL) ((uint8_t*)data[k])[e] = (uint8_t)rndi(0, 1);
                else tset(dt, data[k], e, rndi(-2, 2) * (dt == AICF_DTYPE_INT64 ? 1000000007.0 : 1.0));
            }
        }
        ref = (uint8_t*)malloc((size_t)(n ? n : 1));
        for (e = 0; e < n; e++) {
            double a, b;
            int v = 0;
            unravel(e, orank, od, oc);
            a = tget(dt, data[0], bcast_index(ranks[0], dims[0], orank, oc));
            b = tget(dt, data[1], bcast_index(ranks[1], dims[1], orank, oc));
            if (!strcmp(op, "Equal")) v = a == b;
            else if (!strcmp(op, "Less")) v = a < b;
            else if (!strcmp(op, "Greater")) v = a > b;
            else if (!strcmp(op, "LessOrEqual")) v = a <= b;
            else if (!strcmp(op, "GreaterOrEqual")) v = a >= b;
            else if (!strcmp(op, "And")) v = a != 0 && b != 0;
            else if (!strcmp(op, "Or")) v = a != 0 || b != 0;
            else v = (a != 0) != (b != 0);
            ref[e] = (uint8_t)v;
        }
        snprintf(what, sizeof what, "%s %s", op, aicf_dtype_name(dt));
        tg_begin(&t, 0);
        tg_input(&t, "a", dt, ranks[0], dims[0], data[0]);
        tg_input(&t, "b", dt, ranks[1], dims[1], data[1]);
        tg_node(&t, op, "a,b", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_BOOL, orank, od)) check_bytes(what, tg_out(&t, "y"), ref, (size_t)n);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(data[0]);
        free(data[1]);
        free(ref);
    }
    /* Not, IsNaN, IsInf */
    {
        uint8_t b[7] = {0, 1, 1, 0, 1, 0, 0}, nb[7];
        float x[7] = {1.0f, NAN, INFINITY, -INFINITY, 0.0f, -2.5f, NAN};
        uint8_t want_nan[7] = {0, 1, 0, 0, 0, 0, 1}, want_inf[7] = {0, 0, 1, 1, 0, 0, 0}, want_pos[7] = {0, 0, 1, 0, 0, 0, 0};
        aicf_attr at[1];
        int i;
        tg t;
        for (i = 0; i < 7; i++) nb[i] = (uint8_t)!b[i];
        tg_begin(&t, 0);
        tg_input(&t, "b", AICF_DTYPE_BOOL, 1, D(1, 7), b);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 7), x);
        tg_node(&t, "Not", "b", "nb", 0, NULL);
        tg_node(&t, "IsNaN", "x", "isnan", 0, NULL);
        tg_node(&t, "IsInf", "x", "isinf", 0, NULL);
        at[0] = A_i("detect_negative", 0);
        tg_node(&t, "IsInf", "x", "ispos", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            check_bytes("Not", tg_out(&t, "nb"), nb, 7);
            check_bytes("IsNaN", tg_out(&t, "isnan"), want_nan, 7);
            check_bytes("IsInf", tg_out(&t, "isinf"), want_inf, 7);
            check_bytes("IsInf detect_negative=0", tg_out(&t, "ispos"), want_pos, 7);
        } else {
            CHECK(0, "Not/IsNaN/IsInf: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
    }
}

static void test_where_mod_prelu_mean(void) {
    int iter;
    for (iter = 0; iter < 12; iter++) { /* Where: three-way broadcast */
        int ranks[3], orank, k;
        int64_t dims[3][AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, e;
        void* data[3];
        double* ref;
        aicf_dtype dt = iter % 2 ? AICF_DTYPE_FLOAT32 : AICF_DTYPE_INT64;
        tg t;
        orank = rand_bcast_set(3, ranks, dims, od);
        n = numel(orank, od);
        for (k = 0; k < 3; k++) {
            int64_t m = numel(ranks[k], dims[k]);
            data[k] = talloc(dt, m);
            for (e = 0; e < m; e++) {
                if (k == 0) ((uint8_t*)data[k])[e] = (uint8_t)rndi(0, 1);
                else tset(dt, data[k], e, dt == AICF_DTYPE_FLOAT32 ? (double)rndf(-5, 5) : (double)rndi(-100000, 100000));
            }
        }
        ref = (double*)malloc((size_t)(n ? n : 1) * sizeof(double));
        for (e = 0; e < n; e++) {
            unravel(e, orank, od, oc);
            ref[e] = ((uint8_t*)data[0])[bcast_index(ranks[0], dims[0], orank, oc)]
                         ? tget(dt, data[1], bcast_index(ranks[1], dims[1], orank, oc))
                         : tget(dt, data[2], bcast_index(ranks[2], dims[2], orank, oc));
        }
        tg_begin(&t, 0);
        tg_input(&t, "c", AICF_DTYPE_BOOL, ranks[0], dims[0], data[0]);
        tg_input(&t, "x", dt, ranks[1], dims[1], data[1]);
        tg_input(&t, "y", dt, ranks[2], dims[2], data[2]);
        tg_node(&t, "Where", "c,x,y", "z", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS && tg_check_shape(&t, "Where", "z", dt, orank, od)) {
            int64_t bad = -1;
            for (e = 0; e < n && bad < 0; e++)
                if (tget(dt, tg_out(&t, "z"), e) != ref[e]) bad = e;
            CHECK(bad < 0, "Where %s: element %lld differs", aicf_dtype_name(dt), (long long)bad);
        } else {
            CHECK(0, "Where: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
        for (k = 0; k < 3; k++) free(data[k]);
        free(ref);
    }
    for (iter = 0; iter < 8; iter++) { /* Mod */
        int fm = iter % 2, isf = iter >= 4, i;
        aicf_dtype dt = isf ? AICF_DTYPE_FLOAT32 : AICF_DTYPE_INT32;
        int64_t n = rndi(1, 30);
        void* a = talloc(dt, n);
        void* b = talloc(dt, n);
        double* ref = (double*)malloc((size_t)n * sizeof(double));
        aicf_attr at[1];
        char what[64];
        tg t;
        for (i = 0; i < n; i++) {
            double x = isf ? (double)rndf(-20, 20) : (double)rndi(-50, 50), y = isf ? (double)rndf(-6, 6) : (double)rndi(-9, 9);
            if (fabs(y) < 0.5) y = isf ? 1.5 : 3;
            tset(dt, a, i, x);
            tset(dt, b, i, y);
            x = tget(dt, a, i);
            y = tget(dt, b, i);
            ref[i] = fm ? fmod(x, y) : x - floor(x / y) * y;
        }
        snprintf(what, sizeof what, "Mod %s fmod=%d", aicf_dtype_name(dt), fm);
        tg_begin(&t, 0);
        tg_input(&t, "a", dt, 1, D(1, n), a);
        tg_input(&t, "b", dt, 1, D(1, n), b);
        at[0] = A_i("fmod", fm);
        tg_node(&t, "Mod", "a,b", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            int64_t bad = -1;
            for (i = 0; i < n && bad < 0; i++)
                if (!close_to(tget(dt, tg_out(&t, "y"), i), ref[i], 1e-5, 1e-5)) bad = i;
            CHECK(bad < 0, "%s: element %lld: got %g expected %g", what, (long long)bad, bad >= 0 ? tget(dt, tg_out(&t, "y"), bad) : 0.0,
                  bad >= 0 ? ref[bad] : 0.0);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(a);
        free(b);
        free(ref);
    }
    for (iter = 0; iter < 6; iter++) { /* PRelu (slope broadcast to X), Mean of three */
        int r = rndi(1, 4), i, ranks[3], sr;
        int64_t xd[AICF_MAX_RANK], sd[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, e, dims[3][AICF_MAX_RANK], od[AICF_MAX_RANK];
        float *x, *s, *m[3];
        double *ref, *refm;
        int orank;
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 4);
        sr = rand_bcast_shape(r, xd, sd);
        n = numel(r, xd);
        x = rand_f32(n, -3, 3);
        s = rand_f32(numel(sr, sd), -1, 1);
        ref = (double*)malloc((size_t)n * sizeof(double));
        for (e = 0; e < n; e++) {
            unravel(e, r, xd, oc);
            ref[e] = x[e] < 0 ? s[bcast_index(sr, sd, r, oc)] * (double)x[e] : x[e];
        }
        orank = rand_bcast_set(3, ranks, dims, od);
        for (i = 0; i < 3; i++) m[i] = rand_f32(numel(ranks[i], dims[i]), -4, 4);
        refm = (double*)malloc((size_t)(numel(orank, od) + 1) * sizeof(double));
        for (e = 0; e < numel(orank, od); e++) {
            unravel(e, orank, od, oc);
            refm[e] = ((double)m[0][bcast_index(ranks[0], dims[0], orank, oc)] + m[1][bcast_index(ranks[1], dims[1], orank, oc)] +
                       m[2][bcast_index(ranks[2], dims[2], orank, oc)]) / 3.0;
        }
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        tg_input(&t, "s", AICF_DTYPE_FLOAT32, sr, sd, s);
        tg_input(&t, "m0", AICF_DTYPE_FLOAT32, ranks[0], dims[0], m[0]);
        tg_input(&t, "m1", AICF_DTYPE_FLOAT32, ranks[1], dims[1], m[1]);
        tg_input(&t, "m2", AICF_DTYPE_FLOAT32, ranks[2], dims[2], m[2]);
        tg_node(&t, "PRelu", "x,s", "y", 0, NULL);
        tg_node(&t, "Mean", "m0,m1,m2", "mean", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "PRelu", "y", AICF_DTYPE_FLOAT32, r, xd)) check_f32("PRelu", (const float*)tg_out(&t, "y"), ref, n, 0, 1e-6);
            if (tg_check_shape(&t, "Mean", "mean", AICF_DTYPE_FLOAT32, orank, od))
                check_f32("Mean", (const float*)tg_out(&t, "mean"), refm, numel(orank, od), 1e-6, 1e-6);
        } else {
            CHECK(0, "PRelu/Mean: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(s);
        free(ref);
        free(refm);
        for (i = 0; i < 3; i++) free(m[i]);
    }
    { /* bitwise and shifts on uint8 / int32 */
        uint8_t a[6], b[6], sh[6], wl[6], wr[6], wand[6];
        int32_t ia[6], ib[6], wx[6];
        int i;
        tg t;
        aicf_attr at[1];
        for (i = 0; i < 6; i++) {
            a[i] = (uint8_t)rndi(0, 255);
            b[i] = (uint8_t)rndi(0, 255);
            sh[i] = (uint8_t)rndi(0, 9);
            wl[i] = (uint8_t)(sh[i] >= 8 ? 0 : (uint8_t)(a[i] << sh[i]));
            wr[i] = (uint8_t)(sh[i] >= 8 ? 0 : a[i] >> sh[i]);
            wand[i] = (uint8_t)(a[i] & b[i]);
            ia[i] = rndi(-100000, 100000);
            ib[i] = rndi(-100000, 100000);
            wx[i] = ia[i] ^ ib[i];
        }
        tg_begin(&t, 0);
        tg_input(&t, "a", AICF_DTYPE_UINT8, 1, D(1, 6), a);
        tg_input(&t, "b", AICF_DTYPE_UINT8, 1, D(1, 6), b);
        tg_input(&t, "s", AICF_DTYPE_UINT8, 1, D(1, 6), sh);
        tg_input(&t, "ia", AICF_DTYPE_INT32, 1, D(1, 6), ia);
        tg_input(&t, "ib", AICF_DTYPE_INT32, 1, D(1, 6), ib);
        at[0] = A_s("direction", "LEFT");
        tg_node(&t, "BitShift", "a,s", "l", 1, at);
        at[0] = A_s("direction", "RIGHT");
        tg_node(&t, "BitShift", "a,s", "r", 1, at);
        tg_node(&t, "BitwiseAnd", "a,b", "and", 0, NULL);
        tg_node(&t, "BitwiseXor", "ia,ib", "xor", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            check_bytes("BitShift LEFT", tg_out(&t, "l"), wl, 6);
            check_bytes("BitShift RIGHT", tg_out(&t, "r"), wr, 6);
            check_bytes("BitwiseAnd", tg_out(&t, "and"), wand, 6);
            check_bytes("BitwiseXor int32", tg_out(&t, "xor"), wx, sizeof wx);
        } else {
            CHECK(0, "bitwise: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
    }
}

/* ============================================================================================
   More unary ops
   ============================================================================================ */

static double ref_round_even(double x) {
    double f = floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return fmod(f, 2.0) == 0.0 ? f : f + 1;
}

static double ref_unary2(const char* op, double x, double a, double b) {
    if (!strcmp(op, "Floor")) return floor(x);
    if (!strcmp(op, "Ceil")) return ceil(x);
    if (!strcmp(op, "Round")) return ref_round_even(x);
    if (!strcmp(op, "Sign")) return x > 0 ? 1 : (x < 0 ? -1 : 0);
    if (!strcmp(op, "Softplus")) return log(1.0 + exp(x));
    if (!strcmp(op, "Softsign")) return x / (1.0 + fabs(x));
    if (!strcmp(op, "Selu")) return x > 0 ? b * x : b * (a * exp(x) - a);
    if (!strcmp(op, "Celu")) return fmax(0.0, x) + fmin(0.0, a * (exp(x / a) - 1.0));
    if (!strcmp(op, "ThresholdedRelu")) return x > a ? x : 0;
    if (!strcmp(op, "Sin")) return sin(x);
    if (!strcmp(op, "Cos")) return cos(x);
    if (!strcmp(op, "Tan")) return tan(x);
    if (!strcmp(op, "Asin")) return asin(x);
    if (!strcmp(op, "Acos")) return acos(x);
    if (!strcmp(op, "Atan")) return atan(x);
    if (!strcmp(op, "Sinh")) return sinh(x);
    if (!strcmp(op, "Cosh")) return cosh(x);
    if (!strcmp(op, "Asinh")) return asinh(x);
    if (!strcmp(op, "Acosh")) return acosh(x);
    if (!strcmp(op, "Atanh")) return atanh(x);
    if (!strcmp(op, "Gelu")) return a != 0 ? 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)))
                                           : 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    if (!strcmp(op, "Mish")) return x * tanh(log(1.0 + exp(x)));
    if (!strcmp(op, "Shrink")) return x < -a ? x + b : (x > a ? x - b : 0);
    if (!strcmp(op, "Swish")) return x / (1.0 + exp(-a * x));
    return NAN;
}

static void test_unary2(void) {
    static const char* const ops[] = {"Floor", "Ceil", "Round", "Sign", "Softplus", "Softsign", "Selu", "Celu", "ThresholdedRelu",
                                      "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
                                      "Gelu", "Gelu", "Mish", "Shrink", "Swish"};
    int k;
    for (k = 0; k < (int)(sizeof ops / sizeof ops[0]); k++) {
        const char* op = ops[k];
        int64_t n = rndi(1, 40), i;
        float lo = -4.0f, hi = 4.0f;
        float* x;
        double* ref = (double*)malloc((size_t)n * sizeof(double));
        double a = 0, b = 0;
        aicf_attr at[2];
        int nat = 0, tanh_gelu = k == 21;
        tg t;
        char what[64];
        if (!strcmp(op, "Asin") || !strcmp(op, "Acos") || !strcmp(op, "Atanh")) lo = -0.99f, hi = 0.99f;
        if (!strcmp(op, "Acosh")) lo = 1.01f, hi = 5.0f;
        if (!strcmp(op, "Tan")) lo = -1.4f, hi = 1.4f;
        x = rand_f32(n, lo, hi);
        if (!strcmp(op, "Round") || !strcmp(op, "Floor") || !strcmp(op, "Ceil"))
            for (i = 0; i < n; i++)
                if (rndi(0, 2) == 0) x[i] = (float)rndi(-6, 6) * 0.5f; /* exact halves and integers */
        if (!strcmp(op, "Selu")) {
            a = 1.67326319217681884765625;
            b = 1.05070102214813232421875;
            if (rndi(0, 1)) {
                a = (float)rndf(0.5f, 2.0f);
                b = (float)rndf(0.5f, 2.0f);
                at[nat++] = A_f("alpha", (float)a);
                at[nat++] = A_f("gamma", (float)b);
            }
        }
        if (!strcmp(op, "Celu") || !strcmp(op, "ThresholdedRelu") || !strcmp(op, "Swish")) {
            a = 1.0;
            if (rndi(0, 1)) {
                a = (float)rndf(0.3f, 2.0f);
                at[nat++] = A_f("alpha", (float)a);
            }
        }
        if (!strcmp(op, "Shrink")) {
            a = 0.5;
            if (rndi(0, 1)) {
                a = (float)rndf(0.1f, 1.5f);
                b = (float)rndf(0.0f, 1.0f);
                at[nat++] = A_f("lambd", (float)a);
                at[nat++] = A_f("bias", (float)b);
            }
        }
        if (tanh_gelu) {
            a = 1;
            at[nat++] = A_s("approximate", "tanh");
        }
        for (i = 0; i < n; i++) ref[i] = ref_unary2(op, x[i], a, b);
        snprintf(what, sizeof what, "%s%s", op, tanh_gelu ? " (tanh)" : "");
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, n), x);
        tg_node(&t, op, "x", "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 1, D(1, n))) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 2e-6, 5e-6);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
    { /* integer Neg, Abs, Sign, Relu; Clip on int8 */
        int32_t v[8];
        int64_t w[8], wn[8], wa[8], ws[8], wr[8];
        int8_t c8[8], c8w[8], lo = -5, hi = 7;
        int i;
        tg t;
        for (i = 0; i < 8; i++) {
            v[i] = rndi(-1000, 1000);
            w[i] = (int64_t)rndi(-1000, 1000) * 3000000007LL;
            wn[i] = -w[i];
            wa[i] = w[i] < 0 ? -w[i] : w[i];
            ws[i] = w[i] > 0 ? 1 : (w[i] < 0 ? -1 : 0);
            wr[i] = w[i] < 0 ? 0 : w[i];
            c8[i] = (int8_t)rndi(-128, 127);
            c8w[i] = (int8_t)(c8[i] < lo ? lo : (c8[i] > hi ? hi : c8[i]));
        }
        tg_begin(&t, 13);
        tg_input(&t, "w", AICF_DTYPE_INT64, 1, D(1, 8), w);
        tg_input(&t, "v", AICF_DTYPE_INT32, 1, D(1, 8), v);
        tg_input(&t, "c", AICF_DTYPE_INT8, 1, D(1, 8), c8);
        tg_const(&t, "lo", AICF_DTYPE_INT8, 0, NULL, &lo);
        tg_const(&t, "hi", AICF_DTYPE_INT8, 0, NULL, &hi);
        tg_node(&t, "Neg", "w", "n", 0, NULL);
        tg_node(&t, "Abs", "w", "a", 0, NULL);
        tg_node(&t, "Sign", "w", "s", 0, NULL);
        tg_node(&t, "Relu", "w", "r", 0, NULL);
        tg_node(&t, "Neg", "v", "nv", 0, NULL);
        tg_node(&t, "Clip", "c,lo,hi", "cl", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            int32_t nv[8];
            for (i = 0; i < 8; i++) nv[i] = -v[i];
            check_bytes("Neg int64", tg_out(&t, "n"), wn, sizeof wn);
            check_bytes("Abs int64", tg_out(&t, "a"), wa, sizeof wa);
            check_bytes("Sign int64", tg_out(&t, "s"), ws, sizeof ws);
            check_bytes("Relu int64", tg_out(&t, "r"), wr, sizeof wr);
            check_bytes("Neg int32", tg_out(&t, "nv"), nv, sizeof nv);
            check_bytes("Clip int8", tg_out(&t, "cl"), c8w, sizeof c8w);
        } else {
            CHECK(0, "integer unary: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
    }
}

/* ============================================================================================
   Gather, GatherElements, GatherND, Slice, Split, Pad, Tile, Expand
   ============================================================================================ */

static void test_gather(void) {
    int iter;
    for (iter = 0; iter < 24; iter++) {
        int r = rndi(1, 3), q = rndi(0, 2), ax = rndi(0, r - 1), i, orank = 0, use32 = rndi(0, 1), variant = iter % 3;
        int64_t xd[AICF_MAX_RANK], id[AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], xc[AICF_MAX_RANK], n, ni, e;
        float* x;
        void* idx;
        double* ref;
        aicf_attr at[2];
        char what[64];
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 4);
        if (variant == 0) { /* Gather */
            for (i = 0; i < q; i++) id[i] = rndi(1, 3);
            for (i = 0; i < ax; i++) od[orank++] = xd[i];
            for (i = 0; i < q; i++) od[orank++] = id[i];
            for (i = ax + 1; i < r; i++) od[orank++] = xd[i];
        } else if (variant == 1) { /* GatherElements: same rank, the axis dim free */
            q = r;
            for (i = 0; i < r; i++) id[i] = i == ax ? rndi(1, 4) : rndi(1, (int)xd[i]);
            orank = r;
            memcpy(od, id, sizeof id);
        } else { /* GatherND, batch_dims 0: indices [m, k] */
            q = 2;
            id[0] = rndi(1, 3);
            id[1] = rndi(1, r);
            orank = 1;
            od[0] = id[0];
            for (i = (int)id[1]; i < r; i++) od[orank++] = xd[i];
        }
        n = numel(r, xd);
        ni = numel(q, id);
        x = rand_f32(n, -5, 5);
        idx = talloc(AICF_DTYPE_INT64, ni);
        for (e = 0; e < ni; e++) {
            int64_t dim = variant == 2 ? xd[e % id[1]] : xd[ax], v = rndi(0, (int)dim - 1);
            if (rndi(0, 2) == 0) v -= dim; /* negative index */
            tset(use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64, idx, e, (double)v);
        }
        ref = (double*)malloc((size_t)(numel(orank, od) + 1) * sizeof(double));
        for (e = 0; e < numel(orank, od); e++) {
            int64_t ic[AICF_MAX_RANK], v;
            unravel(e, orank, od, oc);
            if (variant == 0) {
                for (i = 0; i < ax; i++) xc[i] = oc[i];
                for (i = 0; i < q; i++) ic[i] = oc[ax + i];
                v = (int64_t)tget(use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64, idx, ravel(q, id, ic));
                xc[ax] = v < 0 ? v + xd[ax] : v;
                for (i = ax + 1; i < r; i++) xc[i] = oc[ax + q + i - ax - 1];
            } else if (variant == 1) {
                v = (int64_t)tget(use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64, idx, e);
                memcpy(xc, oc, sizeof xc);
                xc[ax] = v < 0 ? v + xd[ax] : v;
            } else {
                int k = (int)id[1];
                for (i = 0; i < k; i++) {
                    v = (int64_t)tget(use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64, idx, oc[0] * k + i);
                    xc[i] = v < 0 ? v + xd[i] : v;
                }
                for (i = k; i < r; i++) xc[i] = oc[1 + i - k];
            }
            ref[e] = x[ravel(r, xd, xc)];
        }
        snprintf(what, sizeof what, "%s axis %d %s", variant == 0 ? "Gather" : (variant == 1 ? "GatherElements" : "GatherND"), ax,
                 use32 ? "int32" : "int64");
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        tg_input(&t, "i", use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64, q, id, idx);
        at[0] = A_i("axis", rndi(0, 1) ? ax : ax - r);
        tg_node(&t, variant == 0 ? "Gather" : (variant == 1 ? "GatherElements" : "GatherND"), "x,i", "y", variant == 2 ? 0 : 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, orank, od))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, numel(orank, od), 0, 0);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(idx);
        free(ref);
    }
}

/* ONNX Slice clamping, from the operator's text: negative starts/ends count from the end; then
   starts clamp to [0, n] (positive steps) or [0, n-1] (negative steps) and ends to [0, n] or
   [-1, n-1]; the selected positions are start, start + step, ... before end. */
static void onnx_slice(int64_t start, int64_t stop, int64_t step, int64_t n, int64_t* s, int64_t* len) {
    int64_t k = 0, i;
    double b = (double)start, e = (double)stop; /* no overflow for the extreme values */
    if (b < 0) b += (double)n;
    if (e < 0) e += (double)n;
    if (step > 0) {
        b = b < 0 ? 0 : (b > (double)n ? (double)n : b);
        e = e < 0 ? 0 : (e > (double)n ? (double)n : e);
    } else {
        b = b < 0 ? 0 : (b > (double)(n - 1) ? (double)(n - 1) : b);
        e = e < -1 ? -1 : (e > (double)(n - 1) ? (double)(n - 1) : e);
    }
    if (n == 0) b = e = 0;
    for (i = (int64_t)b; step > 0 ? i < (int64_t)e : i > (int64_t)e; i += step) k++;
    *s = (int64_t)b;
    *len = k;
}

static void test_slice(void) {
    int iter;
    for (iter = 0; iter < 40; iter++) {
        int r = rndi(1, 4), na = rndi(1, r), i, k, use_attr = iter % 4 == 0, use32 = rndi(0, 1), axes_given = rndi(0, 1) || na < r;
        int64_t xd[AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], xc[AICF_MAX_RANK], st[AICF_MAX_RANK], step[AICF_MAX_RANK];
        int64_t starts[AICF_MAX_RANK], ends[AICF_MAX_RANK], axes[AICF_MAX_RANK], steps[AICF_MAX_RANK], n, e;
        int perm[AICF_MAX_RANK];
        int32_t v32[4][AICF_MAX_RANK];
        float* x;
        double* ref;
        aicf_attr at[3];
        tg t;
        char what[64];
        for (i = 0; i < r; i++) {
            xd[i] = rndi(0, 6) ? rndi(1, 6) : 0;
            perm[i] = i;
            st[i] = 0;
            step[i] = 1;
            od[i] = xd[i];
        }
        for (i = r - 1; i > 0; i--) { /* shuffle the axes */
            int j = rndi(0, i), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        for (k = 0; k < na; k++) {
            int a = axes_given ? perm[k] : k;
            int64_t dim = xd[a], len;
            starts[k] = rndi(-(int)dim - 2, (int)dim + 2);
            ends[k] = rndi(-(int)dim - 2, (int)dim + 2);
            steps[k] = use_attr ? 1 : (rndi(0, 1) ? rndi(1, 3) : -rndi(1, 3));
            if (rndi(0, 5) == 0) ends[k] = steps[k] > 0 ? (use32 ? INT32_MAX : INT64_MAX) : (use32 ? INT32_MIN : INT64_MIN);
            if (rndi(0, 5) == 0) starts[k] = steps[k] > 0 ? (use32 ? INT32_MIN : INT64_MIN + 1) : (use32 ? INT32_MAX : INT64_MAX);
            axes[k] = rndi(0, 1) ? a : a - r;
            onnx_slice(starts[k], ends[k], steps[k], dim, &st[a], &len);
            step[a] = steps[k];
            od[a] = len;
            v32[0][k] = (int32_t)starts[k];
            v32[1][k] = (int32_t)ends[k];
            v32[2][k] = (int32_t)axes[k];
            v32[3][k] = (int32_t)steps[k];
        }
        n = numel(r, xd);
        x = rand_f32(n, -5, 5);
        ref = (double*)malloc((size_t)(numel(r, od) + 1) * sizeof(double));
        for (e = 0; e < numel(r, od); e++) {
            unravel(e, r, od, oc);
            for (i = 0; i < r; i++) xc[i] = st[i] + oc[i] * step[i];
            ref[e] = x[ravel(r, xd, xc)];
        }
        snprintf(what, sizeof what, "Slice rank %d (%s)", r, use_attr ? "opset 9 attributes" : (use32 ? "int32 inputs" : "int64 inputs"));
        tg_begin(&t, use_attr ? 9 : 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        if (use_attr) {
            at[0] = A_ints("starts", na, starts);
            at[1] = A_ints("ends", na, ends);
            at[2] = A_ints("axes", na, axes);
            tg_node(&t, "Slice", "x", "y", axes_given ? 3 : 2, at);
        } else {
            aicf_dtype it = use32 ? AICF_DTYPE_INT32 : AICF_DTYPE_INT64;
            tg_const(&t, "s", it, 1, D(1, na), use32 ? (const void*)v32[0] : (const void*)starts);
            tg_const(&t, "e", it, 1, D(1, na), use32 ? (const void*)v32[1] : (const void*)ends);
            tg_const(&t, "a", it, 1, D(1, na), use32 ? (const void*)v32[2] : (const void*)axes);
            tg_const(&t, "p", it, 1, D(1, na), use32 ? (const void*)v32[3] : (const void*)steps);
            tg_node(&t, "Slice", axes_given ? "x,s,e,a,p" : (rndi(0, 1) ? "x,s,e,,p" : "x,s,e,a,p"), "y", 0, NULL);
        }
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, r, od)) check_f32(what, (const float*)tg_out(&t, "y"), ref, numel(r, od), 0, 0);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

static void test_split(void) {
    int iter;
    for (iter = 0; iter < 16; iter++) {
        int r = rndi(1, 3), ax = rndi(0, r - 1), nout = rndi(1, 4), k, i, form = iter % 4; /* 0 attr, 1 input, 2 equal, 3 num_outputs */
        int64_t xd[AICF_MAX_RANK], sizes[8], pos = 0, n, e, oc[AICF_MAX_RANK], xc[AICF_MAX_RANK];
        float* x;
        char outs[64], what[64];
        aicf_attr at[2];
        int nat = 0;
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 4);
        if (form == 0 || form == 1) {
            xd[ax] = 0;
            for (k = 0; k < nout; k++) xd[ax] += sizes[k] = rndi(0, 3);
        } else {
            xd[ax] = rndi(nout, 3 * nout);
            if (form == 2) xd[ax] = nout * rndi(1, 3);
            for (k = 0; k < nout; k++) sizes[k] = (xd[ax] + nout - 1) / nout;
            sizes[nout - 1] = xd[ax] - sizes[0] * (nout - 1);
            if (sizes[nout - 1] < 0) { /* cannot be split this way: make it divisible */
                xd[ax] = nout;
                for (k = 0; k < nout; k++) sizes[k] = 1;
            }
        }
        n = numel(r, xd);
        x = rand_f32(n, -1, 1);
        outs[0] = 0;
        for (k = 0; k < nout; k++) {
            char nm[16];
            snprintf(nm, sizeof nm, "%sy%d", k ? "," : "", k % 10);
            strcat(outs, nm);
        }
        at[nat++] = A_i("axis", rndi(0, 1) ? ax : ax - r);
        tg_begin(&t, form == 0 ? 11 : 18);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        if (form == 0) at[nat++] = A_ints("split", nout, sizes);
        if (form == 3) at[nat++] = A_i("num_outputs", nout);
        if (form == 1) tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, nout), sizes);
        tg_node(&t, "Split", form == 1 ? "x,s" : "x", outs, nat, at);
        snprintf(what, sizeof what, "Split form %d axis %d into %d", form, ax, nout);
        if (tg_run(&t) == AICF_SUCCESS) {
            for (k = 0; k < nout; k++) {
                int64_t yd[AICF_MAX_RANK], m;
                double* ref;
                char nm[16];
                memcpy(yd, xd, sizeof yd);
                yd[ax] = sizes[k];
                m = numel(r, yd);
                ref = (double*)malloc((size_t)(m + 1) * sizeof(double));
                for (e = 0; e < m; e++) {
                    unravel(e, r, yd, oc);
                    memcpy(xc, oc, sizeof xc);
                    xc[ax] += pos;
                    ref[e] = x[ravel(r, xd, xc)];
                }
                snprintf(nm, sizeof nm, "y%d", k % 10);
                if (tg_check_shape(&t, what, nm, AICF_DTYPE_FLOAT32, r, yd)) check_f32(what, (const float*)tg_out(&t, nm), ref, m, 0, 0);
                pos += sizes[k];
                free(ref);
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
    }
}

/* Index an axis of n elements for a padded position, by repeated mirroring / wrapping (the
   definitions, step by step). */
static int64_t ref_pad_index(const char* mode, int64_t i, int64_t n) {
    if (i >= 0 && i < n) return i;
    if (!strcmp(mode, "constant")) return -1;
    if (!strcmp(mode, "edge")) return i < 0 ? 0 : n - 1;
    if (!strcmp(mode, "wrap")) {
        while (i < 0) i += n;
        while (i >= n) i -= n;
        return i;
    }
    if (n == 1) return 0;
    while (i < 0 || i >= n) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
    }
    return i;
}

static void test_pad(void) {
    static const char* const modes[4] = {"constant", "reflect", "edge", "wrap"};
    int iter;
    for (iter = 0; iter < 32; iter++) {
        const char* mode = modes[iter % 4];
        int r = rndi(1, 3), i, use_axes = iter % 8 >= 4, na = 0, legacy = iter % 8 == 1 || iter % 8 == 2;
        int64_t xd[AICF_MAX_RANK], pb[AICF_MAX_RANK], pe[AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], xc[AICF_MAX_RANK];
        int64_t pads[2 * AICF_MAX_RANK], axes[AICF_MAX_RANK], n, e;
        float* x;
        float cv = rndf(-9, 9);
        double* ref;
        aicf_attr at[3];
        char what[96];
        tg t;
        for (i = 0; i < r; i++) {
            xd[i] = rndi(1, 5);
            pb[i] = pe[i] = 0;
        }
        for (i = 0; i < r; i++) {
            if (use_axes && rndi(0, 1) == 0) continue;
            pb[i] = rndi(-1, 4);
            pe[i] = rndi(-1, 4);
            if (xd[i] + (pb[i] < 0 ? pb[i] : 0) + (pe[i] < 0 ? pe[i] : 0) < 1) pb[i] = pe[i] = 1; /* keep something to pad from */
            axes[na++] = i;
        }
        if (!use_axes) na = r;
        for (i = 0; i < na; i++) {
            int a = use_axes ? (int)axes[i] : i;
            pads[i] = pb[a];
            pads[na + i] = pe[a];
            if (use_axes && rndi(0, 1)) axes[i] -= r;
        }
        for (i = 0; i < r; i++) od[i] = xd[i] + pb[i] + pe[i];
        n = numel(r, xd);
        x = rand_f32(n, -5, 5);
        ref = (double*)malloc((size_t)(numel(r, od) + 1) * sizeof(double));
        for (e = 0; e < numel(r, od); e++) {
            int inside = 1;
            unravel(e, r, od, oc);
            for (i = 0; i < r; i++) {
                int64_t lo = pb[i] < 0 ? -pb[i] : 0, cn = xd[i] - lo - (pe[i] < 0 ? -pe[i] : 0);
                int64_t j = ref_pad_index(mode, oc[i] - (pb[i] > 0 ? pb[i] : 0), cn);
                if (j < 0) inside = 0;
                xc[i] = lo + j;
            }
            ref[e] = inside ? x[ravel(r, xd, xc)] : (legacy || !strcmp(mode, "constant") ? cv : 0.0);
        }
        if (legacy && !strcmp(mode, "wrap")) mode = "edge"; /* never reached: legacy iterations are reflect/edge */
        snprintf(what, sizeof what, "Pad %s %s%s", mode, legacy ? "opset 2" : "opset 19", use_axes ? " with axes" : "");
        tg_begin(&t, legacy ? 2 : 19);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        at[0] = A_s("mode", mode);
        if (legacy) {
            /* constant value only matters for mode constant; checked through ref anyway */
            at[1] = A_ints("pads", 2 * na, pads);
            at[2] = A_f("value", cv);
            tg_node(&t, "Pad", "x", "y", 3, at);
        } else {
            tg_const(&t, "p", AICF_DTYPE_INT64, 1, D(1, 2 * na), pads);
            tg_const(&t, "v", AICF_DTYPE_FLOAT32, 0, NULL, &cv);
            if (use_axes) tg_const(&t, "a", AICF_DTYPE_INT64, 1, D(1, na), axes);
            tg_node(&t, "Pad", use_axes ? "x,p,v,a" : "x,p,v", "y", 1, at);
        }
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, r, od)) check_f32(what, (const float*)tg_out(&t, "y"), ref, numel(r, od), 0, 0);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

static void test_tile_expand(void) {
    int iter;
    for (iter = 0; iter < 12; iter++) {
        int r = rndi(1, 3), i, tile = iter % 2 == 0, orank;
        int64_t xd[AICF_MAX_RANK], rep[AICF_MAX_RANK], od[AICF_MAX_RANK], oc[AICF_MAX_RANK], xc[AICF_MAX_RANK], sh[AICF_MAX_RANK], n, e;
        int64_t* x;
        int64_t* ref;
        char what[64];
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 3);
        if (tile) {
            orank = r;
            for (i = 0; i < r; i++) od[i] = xd[i] * (rep[i] = rndi(0, 5) ? rndi(1, 3) : 0);
        } else {
            /* target shape: more leading dims, 1s where x has a dim (bidirectional) or x's dim */
            orank = r + rndi(0, 2);
            for (i = 0; i < orank; i++) {
                int j = i - (orank - r);
                sh[i] = j < 0 ? rndi(1, 3) : (xd[j] == 1 ? rndi(1, 3) : (rndi(0, 1) ? xd[j] : 1));
                od[i] = j < 0 ? sh[i] : (xd[j] > sh[i] ? xd[j] : sh[i]);
            }
        }
        n = numel(r, xd);
        x = (int64_t*)talloc(AICF_DTYPE_INT64, n);
        for (e = 0; e < n; e++) x[e] = (int64_t)rndi(-1000000, 1000000) * 77777;
        ref = (int64_t*)talloc(AICF_DTYPE_INT64, numel(orank, od));
        for (e = 0; e < numel(orank, od); e++) {
            unravel(e, orank, od, oc);
            for (i = 0; i < r; i++) xc[i] = tile ? oc[i] % xd[i] : (xd[i] == 1 ? 0 : oc[orank - r + i]);
            ref[e] = x[ravel(r, xd, xc)];
        }
        snprintf(what, sizeof what, "%s rank %d", tile ? "Tile" : "Expand", r);
        tg_begin(&t, 0);
        tg_input(&t, "x", AICF_DTYPE_INT64, r, xd, x);
        tg_const(&t, "r", AICF_DTYPE_INT64, 1, D(1, tile ? r : orank), tile ? rep : sh);
        tg_node(&t, tile ? "Tile" : "Expand", "x,r", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_INT64, orank, od))
                check_bytes(what, tg_out(&t, "y"), ref, (size_t)numel(orank, od) * 8);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

/* ============================================================================================
   Reductions, ArgMax/ArgMin, normalizations, LogSoftmax/Hardmax
   ============================================================================================ */

static void test_reduce(void) {
    static const char* const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                                      "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    int iter;
    for (iter = 0; iter < 60; iter++) {
        const char* op = ops[iter % 10];
        int r = rndi(1, 4), i, keep = rndi(0, 1), nax = rndi(0, r), opset = (iter / 10) % 2 ? 18 : 13, mark[AICF_MAX_RANK], orank = 0;
        int input_form = opset >= 18 || !strcmp(op, "ReduceSum"), noop = nax == 0 && input_form && rndi(0, 2) == 0;
        int64_t xd[AICF_MAX_RANK], axes[AICF_MAX_RANK], od[AICF_MAX_RANK], kd[AICF_MAX_RANK], xc[AICF_MAX_RANK], kc[AICF_MAX_RANK], n, no, e;
        float* x;
        double* ref;
        int64_t* cnt;
        aicf_attr at[3];
        int nat = 0;
        char what[96];
        tg t;
        for (i = 0; i < r; i++) {
            xd[i] = rndi(1, 4);
            mark[i] = 0;
        }
        for (i = 0; i < nax; i++) {
            int a = rndi(0, r - 1);
            while (mark[a]) a = (a + 1) % r;
            mark[a] = 1;
            axes[i] = rndi(0, 1) ? a : a - r;
        }
        for (i = 0; i < r; i++) {
            if (nax == 0 && !noop) mark[i] = 1;
            kd[i] = mark[i] ? 1 : xd[i];
            if (!mark[i] || keep) od[orank++] = kd[i];
        }
        n = numel(r, xd);
        no = numel(r, kd);
        x = rand_f32(n, !strcmp(op, "ReduceProd") ? 0.5f : -2.0f, 2.0f);
        if (!strcmp(op, "ReduceLogSum")) for (e = 0; e < n; e++) x[e] = fabsf(x[e]) + 0.1f;
        ref = (double*)calloc((size_t)no + 1, sizeof(double));
        cnt = (int64_t*)calloc((size_t)no + 1, sizeof(int64_t));
        for (e = 0; e < no; e++) {
            ref[e] = !strcmp(op, "ReduceProd") ? 1.0 : (!strcmp(op, "ReduceMax") ? -INFINITY : (!strcmp(op, "ReduceMin") ? INFINITY : 0.0));
        }
        for (e = 0; e < n; e++) {
            double v = x[e];
            int64_t o;
            unravel(e, r, xd, xc);
            for (i = 0; i < r; i++) kc[i] = mark[i] ? 0 : xc[i];
            o = ravel(r, kd, kc);
            cnt[o]++;
            if (!strcmp(op, "ReduceSum") || !strcmp(op, "ReduceMean") || !strcmp(op, "ReduceLogSum")) ref[o] += v;
            else if (!strcmp(op, "ReduceMax")) ref[o] = fmax(ref[o], v);
            else if (!strcmp(op, "ReduceMin")) ref[o] = fmin(ref[o], v);
            else if (!strcmp(op, "ReduceProd")) ref[o] *= v;
            else if (!strcmp(op, "ReduceL1")) ref[o] += fabs(v);
            else if (!strcmp(op, "ReduceLogSumExp")) ref[o] += exp(v);
            else ref[o] += v * v;
        }
        for (e = 0; e < no; e++) {
            if (!strcmp(op, "ReduceMean")) ref[e] /= (double)cnt[e];
            if (!strcmp(op, "ReduceL2")) ref[e] = sqrt(ref[e]);
            if (!strcmp(op, "ReduceLogSum") || !strcmp(op, "ReduceLogSumExp")) ref[e] = log(ref[e]);
        }
        snprintf(what, sizeof what, "%s opset %d rank %d axes %d keepdims %d%s", op, opset, r, nax, keep, noop ? " noop" : "");
        tg_begin(&t, opset);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        at[nat++] = A_i("keepdims", keep);
        if (noop) at[nat++] = A_i("noop_with_empty_axes", 1);
        if (input_form) {
            if (nax > 0 || rndi(0, 1)) {
                tg_const(&t, "axes", AICF_DTYPE_INT64, 1, D(1, nax), axes);
                tg_node(&t, op, "x,axes", "y", nat, at);
            } else {
                tg_node(&t, op, "x", "y", nat, at);
            }
        } else {
            if (nax > 0) at[nat++] = A_ints("axes", nax, axes);
            tg_node(&t, op, "x", "y", nat, at);
        }
        if (tg_run(&t) == AICF_SUCCESS) {
            if (noop) {
                if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, r, xd)) {
                    double* xr = (double*)malloc((size_t)n * sizeof(double));
                    for (e = 0; e < n; e++) xr[e] = x[e];
                    check_f32(what, (const float*)tg_out(&t, "y"), xr, n, 0, 0);
                    free(xr);
                }
            } else if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, orank, od)) {
                check_f32(what, (const float*)tg_out(&t, "y"), ref, no, 1e-5, 1e-5);
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
        free(cnt);
    }
    for (iter = 0; iter < 12; iter++) { /* ArgMax / ArgMin with ties */
        int amax = iter % 2 == 0, r = rndi(1, 3), ax = rndi(0, r - 1), keep = rndi(0, 1), last = rndi(0, 1), i, orank = 0;
        int64_t xd[AICF_MAX_RANK], od[AICF_MAX_RANK], kd[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, no, e, a;
        float* x;
        int64_t* ref;
        aicf_attr at[3];
        char what[64];
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 5);
        for (i = 0; i < r; i++) {
            kd[i] = i == ax ? 1 : xd[i];
            if (i != ax || keep) od[orank++] = kd[i];
        }
        n = numel(r, xd);
        no = numel(r, kd);
        x = (float*)malloc((size_t)n * sizeof(float));
        for (e = 0; e < n; e++) x[e] = (float)rndi(-2, 2); /* many ties */
        ref = (int64_t*)malloc((size_t)no * sizeof(int64_t));
        for (e = 0; e < no; e++) {
            int64_t best = 0;
            unravel(e, r, kd, oc);
            for (a = 0; a < xd[ax]; a++) {
                float v, b;
                oc[ax] = a;
                v = x[ravel(r, xd, oc)];
                oc[ax] = best;
                b = x[ravel(r, xd, oc)];
                if (amax ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = a;
            }
            ref[e] = best;
        }
        snprintf(what, sizeof what, "%s axis %d keepdims %d select_last_index %d", amax ? "ArgMax" : "ArgMin", ax, keep, last);
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        at[0] = A_i("axis", rndi(0, 1) ? ax : ax - r);
        at[1] = A_i("keepdims", keep);
        at[2] = A_i("select_last_index", last);
        tg_node(&t, amax ? "ArgMax" : "ArgMin", "x", "y", 3, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_INT64, orank, od)) check_bytes(what, tg_out(&t, "y"), ref, (size_t)no * 8);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

static void test_norms(void) {
    int iter;
    for (iter = 0; iter < 12; iter++) { /* LayerNormalization / RMSNormalization */
        int rms = iter % 4 == 3, r = rndi(1, 4), ax = rndi(0, r - 1), i, sr, with_b = !rms && rndi(0, 1), stats = !rms && rndi(0, 1);
        int64_t xd[AICF_MAX_RANK], sd[AICF_MAX_RANK], md[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, rows, cols, row, j;
        float eps = rndi(0, 1) ? 1e-5f : rndf(1e-3f, 1e-1f);
        float *x, *s, *b;
        double *ref, *rm, *ri;
        aicf_attr at[2];
        char what[80];
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 5);
        sr = rndi(1, r - ax); /* scale covers the trailing sr of the normalised dims */
        for (i = 0; i < sr; i++) sd[i] = rndi(0, 3) ? xd[r - sr + i] : 1;
        for (i = 0; i < r; i++) md[i] = i < ax ? xd[i] : 1;
        n = numel(r, xd);
        rows = numel(ax, xd);
        cols = n / rows;
        x = rand_f32(n, -3, 3);
        s = rand_f32(numel(sr, sd), 0.5f, 1.5f);
        b = rand_f32(numel(sr, sd), -1, 1);
        ref = (double*)malloc((size_t)n * sizeof(double));
        rm = (double*)malloc((size_t)rows * sizeof(double));
        ri = (double*)malloc((size_t)rows * sizeof(double));
        for (row = 0; row < rows; row++) {
            double mean = 0, var = 0;
            for (j = 0; j < cols; j++) mean += x[row * cols + j];
            mean /= (double)cols;
            for (j = 0; j < cols; j++) {
                double d = x[row * cols + j] - (rms ? 0.0 : mean);
                var += d * d;
            }
            var /= (double)cols;
            rm[row] = mean;
            ri[row] = 1.0 / sqrt(var + eps);
            for (j = 0; j < cols; j++) {
                int64_t e = row * cols + j, si;
                unravel(e, r, xd, oc);
                si = bcast_index(sr, sd, r, oc);
                ref[e] = (x[e] - (rms ? 0.0 : mean)) * ri[row] * s[si] + (with_b ? b[si] : 0.0);
            }
        }
        snprintf(what, sizeof what, "%s rank %d axis %d scale rank %d", rms ? "RMSNormalization" : "LayerNormalization", r, ax, sr);
        tg_begin(&t, rms ? 23 : 17);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        tg_const(&t, "s", AICF_DTYPE_FLOAT32, sr, sd, s);
        tg_const(&t, "b", AICF_DTYPE_FLOAT32, sr, sd, b);
        at[0] = A_i("axis", rndi(0, 1) ? ax : ax - r);
        at[1] = A_f("epsilon", eps);
        tg_node(&t, rms ? "RMSNormalization" : "LayerNormalization", with_b ? "x,s,b" : "x,s", stats ? "y,mean,inv" : "y", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, r, xd)) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-5, 1e-5);
            if (stats && tg_check_shape(&t, what, "mean", AICF_DTYPE_FLOAT32, r, md)) {
                check_f32("LayerNormalization Mean", (const float*)tg_out(&t, "mean"), rm, rows, 1e-6, 1e-5);
                check_f32("LayerNormalization InvStdDev", (const float*)tg_out(&t, "inv"), ri, rows, 1e-6, 1e-5);
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(s);
        free(b);
        free(ref);
        free(rm);
        free(ri);
    }
    for (iter = 0; iter < 9; iter++) { /* InstanceNormalization, GroupNormalization-18 (per group), -21 (per channel) */
        int kind = iter % 3, i;
        int64_t N = rndi(1, 2), G = rndi(1, 3), C = kind == 0 ? rndi(1, 4) : G * rndi(1, 3), S = rndi(1, 6), n, g, c, sp, np;
        int64_t xd[3];
        float eps = rndf(1e-5f, 1e-2f);
        float *x, *s, *b;
        double* ref;
        aicf_attr at[2];
        char what[64];
        tg t;
        if (kind == 0) G = C;
        np = kind == 1 ? G : C;
        xd[0] = N;
        xd[1] = C;
        xd[2] = S;
        x = rand_f32(N * C * S, -2, 2);
        s = rand_f32(np, 0.5f, 1.5f);
        b = rand_f32(np, -1, 1);
        ref = (double*)malloc((size_t)(N * C * S) * sizeof(double));
        for (n = 0; n < N; n++)
            for (g = 0; g < G; g++) {
                int64_t cg = C / G;
                double mean = 0, var = 0;
                for (c = g * cg; c < (g + 1) * cg; c++)
                    for (sp = 0; sp < S; sp++) mean += x[(n * C + c) * S + sp];
                mean /= (double)(cg * S);
                for (c = g * cg; c < (g + 1) * cg; c++)
                    for (sp = 0; sp < S; sp++) var += (x[(n * C + c) * S + sp] - mean) * (x[(n * C + c) * S + sp] - mean);
                var /= (double)(cg * S);
                for (c = g * cg; c < (g + 1) * cg; c++)
                    for (sp = 0; sp < S; sp++) {
                        int64_t p = kind == 1 ? g : c;
                        ref[(n * C + c) * S + sp] = (x[(n * C + c) * S + sp] - mean) / sqrt(var + eps) * s[p] + b[p];
                    }
            }
        snprintf(what, sizeof what, "%s C=%lld G=%lld", kind == 0 ? "InstanceNormalization" : (kind == 1 ? "GroupNormalization-18" : "GroupNormalization-21"),
                 (long long)C, (long long)G);
        tg_begin(&t, kind == 1 ? 18 : 21);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, xd, x);
        tg_const(&t, "s", AICF_DTYPE_FLOAT32, 1, D(1, np), s);
        tg_const(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, np), b);
        at[0] = A_f("epsilon", eps);
        at[1] = A_i("num_groups", G);
        tg_node(&t, kind == 0 ? "InstanceNormalization" : "GroupNormalization", "x,s,b", "y", kind == 0 ? 1 : 2, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 3, xd)) check_f32(what, (const float*)tg_out(&t, "y"), ref, N * C * S, 1e-5, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(s);
        free(b);
        free(ref);
        (void)i;
    }
    for (iter = 0; iter < 9; iter++) { /* LogSoftmax, Hardmax (opset 13: one axis), LpNormalization */
        int kind = iter % 3, r = rndi(1, 3), ax = rndi(0, r - 1), i;
        int64_t xd[AICF_MAX_RANK], oc[AICF_MAX_RANK], n, e, a, p = rndi(1, 2);
        float* x;
        double* ref;
        aicf_attr at[2];
        char what[64];
        tg t;
        for (i = 0; i < r; i++) xd[i] = rndi(1, 5);
        n = numel(r, xd);
        x = rand_f32(n, -4, 4);
        ref = (double*)malloc((size_t)n * sizeof(double));
        for (e = 0; e < n; e++) {
            double sum = 0, mx = -INFINITY, v = x[e];
            int64_t best = 0;
            unravel(e, r, xd, oc);
            for (a = 0; a < xd[ax]; a++) {
                double w;
                oc[ax] = a;
                w = x[ravel(r, xd, oc)];
                if (w > mx) {
                    mx = w;
                    best = a;
                }
                sum += kind == 0 ? exp(w) : (p == 1 ? fabs(w) : w * w);
            }
            unravel(e, r, xd, oc);
            if (kind == 0) ref[e] = v - log(sum);
            else if (kind == 1) ref[e] = oc[ax] == best ? 1.0 : 0.0;
            else ref[e] = v / (p == 1 ? sum : sqrt(sum));
        }
        snprintf(what, sizeof what, "%s axis %d%s", kind == 0 ? "LogSoftmax" : (kind == 1 ? "Hardmax" : "LpNormalization"), ax,
                 kind == 2 ? (p == 1 ? " p=1" : " p=2") : "");
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r, xd, x);
        at[0] = A_i("axis", rndi(0, 1) ? ax : ax - r);
        at[1] = A_i("p", p);
        tg_node(&t, kind == 0 ? "LogSoftmax" : (kind == 1 ? "Hardmax" : "LpNormalization"), "x", "y", kind == 2 ? 2 : 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, r, xd)) check_f32(what, (const float*)tg_out(&t, "y"), ref, n, 1e-5, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

/* ============================================================================================
   Resize, ConvTranspose, Einsum
   ============================================================================================ */

/* Source coordinate of output position o (the coordinate_transformation_mode formulas). */
/* (The ONNX reference compares and divides by the unrounded output length scale * in.) */
static double ref_rs_coord(const char* ctm, int64_t o, int64_t in, double scale) {
    double out = scale * (double)in;
    if (!strcmp(ctm, "asymmetric")) return (double)o / scale;
    if (!strcmp(ctm, "align_corners")) return out == 1.0 ? 0.0 : (double)o * (double)(in - 1) / (out - 1.0);
    if (!strcmp(ctm, "pytorch_half_pixel")) return out == 1.0 ? -0.5 : (o + 0.5) / scale - 0.5;
    return (o + 0.5) / scale - 0.5; /* half_pixel */
}

static int64_t ref_clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static void test_resize(void) {
    static const char* const ctms[4] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"};
    static const char* const nms[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    int iter;
    for (iter = 0; iter < 24; iter++) {
        int linear = iter % 2, use_sizes = (iter / 2) % 2, C = rndi(1, 2), H = rndi(1, 5), W = rndi(1, 5), oh, ow, i, j, c;
        const char* ctm = ctms[rndi(0, 3)];
        const char* nm = nms[rndi(0, 3)];
        float scales[4] = {1.0f, 1.0f, 1.0f, 1.0f};
        int64_t sizes[4], xd[4], od[4];
        double sh, sw;
        float* x;
        double* ref;
        aicf_attr at[3];
        float roi_dummy = 0.0f;
        char what[128];
        tg t;
        (void)roi_dummy;
        if (use_sizes) {
            oh = rndi(1, 9);
            ow = rndi(1, 9);
            sh = (double)oh / H;
            sw = (double)ow / W;
        } else {
            static const float choices[6] = {0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f};
            scales[2] = choices[rndi(0, 5)];
            scales[3] = choices[rndi(0, 5)];
            oh = (int)(scales[2] * (double)H);
            ow = (int)(scales[3] * (double)W);
            if (oh < 1 || ow < 1) {
                scales[2] = scales[3] = 2.0f;
                oh = 2 * H;
                ow = 2 * W;
            }
            sh = scales[2];
            sw = scales[3];
        }
        xd[0] = 1;
        xd[1] = C;
        xd[2] = H;
        xd[3] = W;
        od[0] = 1;
        od[1] = C;
        od[2] = oh;
        od[3] = ow;
        sizes[0] = 1;
        sizes[1] = C;
        sizes[2] = oh;
        sizes[3] = ow;
        x = rand_f32(C * H * W, -5, 5);
        ref = (double*)malloc((size_t)(C * oh * ow) * sizeof(double));
        for (c = 0; c < C; c++)
            for (i = 0; i < oh; i++)
                for (j = 0; j < ow; j++) {
                    double y = ref_rs_coord(ctm, i, H, sh), xx = ref_rs_coord(ctm, j, W, sw), v;
                    const float* p = x + c * H * W;
                    if (linear) {
                        double fy = floor(y), fx = floor(xx), wy = y - fy, wx = xx - fx;
                        int64_t y0 = ref_clampi((int64_t)fy, 0, H - 1), y1 = ref_clampi((int64_t)fy + 1, 0, H - 1);
                        int64_t x0 = ref_clampi((int64_t)fx, 0, W - 1), x1 = ref_clampi((int64_t)fx + 1, 0, W - 1);
                        v = (1 - wy) * ((1 - wx) * p[y0 * W + x0] + wx * p[y0 * W + x1]) + wy * ((1 - wx) * p[y1 * W + x0] + wx * p[y1 * W + x1]);
                    } else {
                        double q[2];
                        int64_t ix[2];
                        int d;
                        q[0] = y;
                        q[1] = xx;
                        for (d = 0; d < 2; d++) {
                            double f = floor(q[d]), fr = q[d] - f;
                            int64_t k;
                            if (fr == 0.0) k = (int64_t)f;
                            else if (!strcmp(nm, "round_prefer_floor")) k = fr <= 0.5 ? (int64_t)f : (int64_t)f + 1;
                            else if (!strcmp(nm, "round_prefer_ceil")) k = fr < 0.5 ? (int64_t)f : (int64_t)f + 1;
                            else if (!strcmp(nm, "floor")) k = (int64_t)f;
                            else k = (int64_t)f + 1;
                            ix[d] = ref_clampi(k, 0, d == 0 ? H - 1 : W - 1);
                        }
                        v = p[ix[0] * W + ix[1]];
                    }
                    ref[(c * oh + i) * ow + j] = v;
                }
        snprintf(what, sizeof what, "Resize %s %s %s [%d,%d] -> [%d,%d]", linear ? "linear" : "nearest", linear ? "" : nm, ctm, H, W, oh, ow);
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, xd, x);
        if (use_sizes) tg_const(&t, "sz", AICF_DTYPE_INT64, 1, D(1, 4), sizes);
        else tg_const(&t, "sc", AICF_DTYPE_FLOAT32, 1, D(1, 4), scales);
        at[0] = A_s("mode", linear ? "linear" : "nearest");
        at[1] = A_s("coordinate_transformation_mode", ctm);
        at[2] = A_s("nearest_mode", nm);
        tg_node(&t, "Resize", use_sizes ? "x,,,sz" : "x,,sc", "y", 3, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 4, od)) check_f32(what, (const float*)tg_out(&t, "y"), ref, C * oh * ow, 1e-5, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
}

static void test_convtranspose(void) {
    int iter;
    for (iter = 0; iter < 16; iter++) {
        int64_t group = rndi(1, 2), Cg = rndi(1, 3), Mg = rndi(1, 3), C = group * Cg, M = group * Mg, N = rndi(1, 2);
        int64_t H = rndi(1, 4), W = rndi(1, 4), kh = rndi(1, 3), kw = rndi(1, 3), s[2], d[2], op[2], pb[2], pe[2], in[2], k[2], out[2];
        int64_t xd[4], wd[4], yd[4], n, m, ci, i, j, a, b;
        int form = iter % 3; /* 0 pads, 1 output_shape, 2 SAME_UPPER */
        float *x, *w, *bias;
        double* ref;
        aicf_attr at[6];
        int nat = 0;
        int64_t pads[4], oshape[2];
        char what[128];
        tg t;
        in[0] = H;
        in[1] = W;
        k[0] = kh;
        k[1] = kw;
        for (i = 0; i < 2; i++) {
            int64_t full;
            s[i] = rndi(1, 3);
            d[i] = rndi(1, 2);
            op[i] = rndi(0, (int)(s[i] > d[i] ? s[i] : d[i]) - 1);
            full = s[i] * (in[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1;
            if (form == 0) {
                pb[i] = rndi(0, (int)k[i] - 1);
                pe[i] = rndi(0, (int)k[i] - 1);
                if (full - pb[i] - pe[i] < 1) pb[i] = pe[i] = 0;
                out[i] = full - pb[i] - pe[i];
            } else {
                int64_t total;
                out[i] = form == 1 ? full + rndi(-1, 1) : in[i] * s[i];
                if (out[i] < 1) out[i] = 1;
                total = full - out[i];
                /* floor division, as Python's // */
                pb[i] = form == 2 ? (total >= 0 ? total / 2 : -((-total + 1) / 2)) : total - (total >= 0 ? total / 2 : -((-total + 1) / 2));
                pe[i] = total - pb[i];
            }
        }
        xd[0] = N;
        xd[1] = C;
        xd[2] = H;
        xd[3] = W;
        wd[0] = C;
        wd[1] = Mg;
        wd[2] = kh;
        wd[3] = kw;
        yd[0] = N;
        yd[1] = M;
        yd[2] = out[0];
        yd[3] = out[1];
        x = rand_f32(N * C * H * W, -1, 1);
        w = rand_f32(C * Mg * kh * kw, -1, 1);
        bias = rand_f32(M, -1, 1);
        ref = (double*)malloc((size_t)(N * M * out[0] * out[1]) * sizeof(double));
        /* gather form: y[o] = b + sum over c, kernel k with (o + pad - k*dil) = i*stride, i in range */
        for (n = 0; n < N; n++)
            for (m = 0; m < M; m++)
                for (i = 0; i < out[0]; i++)
                    for (j = 0; j < out[1]; j++) {
                        int64_t g = m / Mg;
                        double acc = bias[m];
                        for (ci = g * Cg; ci < (g + 1) * Cg; ci++)
                            for (a = 0; a < kh; a++)
                                for (b = 0; b < kw; b++) {
                                    int64_t ty = i + pb[0] - a * d[0], tx = j + pb[1] - b * d[1];
                                    if (ty < 0 || tx < 0 || ty % s[0] || tx % s[1] || ty / s[0] >= H || tx / s[1] >= W) continue;
                                    acc += (double)x[((n * C + ci) * H + ty / s[0]) * W + tx / s[1]] * w[((ci * Mg + m % Mg) * kh + a) * kw + b];
                                }
                        ref[((n * M + m) * out[0] + i) * out[1] + j] = acc;
                    }
        at[nat++] = A_ints("strides", 2, s);
        at[nat++] = A_ints("dilations", 2, d);
        at[nat++] = A_i("group", group);
        at[nat++] = A_ints("output_padding", 2, op);
        if (form == 0) {
            pads[0] = pb[0];
            pads[1] = pb[1];
            pads[2] = pe[0];
            pads[3] = pe[1];
            at[nat++] = A_ints("pads", 4, pads);
        } else if (form == 1) {
            oshape[0] = out[0];
            oshape[1] = out[1];
            at[nat++] = A_ints("output_shape", 2, oshape);
        } else {
            at[nat++] = A_s("auto_pad", "SAME_UPPER");
        }
        snprintf(what, sizeof what, "ConvTranspose form %d group %lld stride [%lld,%lld] dil [%lld,%lld] -> [%lld,%lld]", form, (long long)group,
                 (long long)s[0], (long long)s[1], (long long)d[0], (long long)d[1], (long long)out[0], (long long)out[1]);
        tg_begin(&t, 11);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, xd, x);
        tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, wd, w);
        tg_const(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, M), bias);
        tg_node(&t, "ConvTranspose", "x,w,b", "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 4, yd))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, N * M * out[0] * out[1], 1e-5, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(w);
        free(bias);
        free(ref);
    }
}

static void test_einsum(void) {
    int iter;
    for (iter = 0; iter < 14; iter++) {
        int kind = iter % 7;
        int64_t B = rndi(1, 3), I = rndi(1, 4), J = rndi(1, 4), K = rndi(1, 4), Hh = rndi(1, 2), e, i, j, k, b, h;
        int64_t ad[4], bd[4], od[4];
        int ra = 0, rb = 0, ro = 0, nin = 2;
        const char* eq = "";
        float *A, *Bm;
        double* ref;
        aicf_attr at[1];
        char what[96];
        tg t;
        switch (kind) {
        case 0: /* batched matmul */
            eq = "bij,bjk->bik";
            ra = 3, ad[0] = B, ad[1] = I, ad[2] = J;
            rb = 3, bd[0] = B, bd[1] = J, bd[2] = K;
            ro = 3, od[0] = B, od[1] = I, od[2] = K;
            break;
        case 1: /* attention scores */
            eq = "bhid,bhjd->bhij";
            ra = 4, ad[0] = B, ad[1] = Hh, ad[2] = I, ad[3] = K;
            rb = 4, bd[0] = B, bd[1] = Hh, bd[2] = J, bd[3] = K;
            ro = 4, od[0] = B, od[1] = Hh, od[2] = I, od[3] = J;
            break;
        case 2: /* transpose */
            eq = "ij->ji";
            nin = 1;
            ra = 2, ad[0] = I, ad[1] = J;
            ro = 2, od[0] = J, od[1] = I;
            break;
        case 3: /* implicit output: matmul */
            eq = "ij,jk";
            ra = 2, ad[0] = I, ad[1] = J;
            rb = 2, bd[0] = J, bd[1] = K;
            ro = 2, od[0] = I, od[1] = K;
            break;
        case 4: /* diagonal */
            eq = "ii->i";
            nin = 1;
            ra = 2, ad[0] = I, ad[1] = I;
            ro = 1, od[0] = I;
            break;
        case 5: /* ellipsis with a broadcast batch dim */
            eq = "...ij,...jk->...ik";
            ra = 3, ad[0] = B, ad[1] = I, ad[2] = J;
            rb = 3, bd[0] = 1, bd[1] = J, bd[2] = K;
            ro = 3, od[0] = B, od[1] = I, od[2] = K;
            break;
        default: /* inner product to a scalar */
            eq = "i,i->";
            ra = 1, ad[0] = I;
            rb = 1, bd[0] = I;
            ro = 0;
            break;
        }
        A = rand_f32(numel(ra, ad), -1, 1);
        Bm = rand_f32(nin > 1 ? numel(rb, bd) : 1, -1, 1);
        ref = (double*)calloc((size_t)numel(ro, od) + 1, sizeof(double));
        switch (kind) {
        case 0:
        case 5:
            for (b = 0; b < B; b++)
                for (i = 0; i < I; i++)
                    for (k = 0; k < K; k++)
                        for (j = 0; j < J; j++)
                            ref[(b * I + i) * K + k] += (double)A[(b * I + i) * J + j] * Bm[((kind == 5 ? 0 : b) * J + j) * K + k];
            break;
        case 1:
            for (b = 0; b < B * Hh; b++)
                for (i = 0; i < I; i++)
                    for (j = 0; j < J; j++)
                        for (k = 0; k < K; k++) ref[(b * I + i) * J + j] += (double)A[(b * I + i) * K + k] * Bm[(b * J + j) * K + k];
            break;
        case 2:
            for (i = 0; i < I; i++)
                for (j = 0; j < J; j++) ref[j * I + i] = A[i * J + j];
            break;
        case 3:
            for (i = 0; i < I; i++)
                for (k = 0; k < K; k++)
                    for (j = 0; j < J; j++) ref[i * K + k] += (double)A[i * J + j] * Bm[j * K + k];
            break;
        case 4:
            for (i = 0; i < I; i++) ref[i] = A[i * I + i];
            break;
        default:
            for (i = 0; i < I; i++) ref[0] += (double)A[i] * Bm[i];
            break;
        }
        (void)h;
        snprintf(what, sizeof what, "Einsum '%s'", eq);
        tg_begin(&t, 12);
        tg_input(&t, "a", AICF_DTYPE_FLOAT32, ra, ad, A);
        if (nin > 1) tg_input(&t, "b", AICF_DTYPE_FLOAT32, rb, bd, Bm);
        at[0] = A_s("equation", eq);
        tg_node(&t, "Einsum", nin > 1 ? "a,b" : "a", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, ro, od)) check_f32(what, (const float*)tg_out(&t, "y"), ref, numel(ro, od), 1e-6, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(A);
        free(Bm);
        free(ref);
        (void)e;
    }
}

/* ============================================================================================
   Range, Trilu, OneHot, CumSum, DepthToSpace/SpaceToDepth, Scatter*, TopK, NonZero, Size,
   CastLike, EyeLike
   ============================================================================================ */

static void test_misc_ops(void) {
    int iter;
    { /* Range: int64 and float, negative deltas */
        int64_t s = rndi(-20, 20), l = rndi(-20, 20), dl = rndi(1, 4) * (l >= s ? 1 : -1), want, i;
        float fs = rndf(-5, 5), fl = rndf(-5, 5), fd = rndf(0.3f, 1.5f) * (fl >= fs ? 1.0f : -1.0f);
        int64_t nf = (int64_t)ceil(((double)fl - fs) / fd), ni = (l - s + dl + (dl > 0 ? -1 : 1)) / dl;
        double* ref;
        tg t;
        if (nf < 0) nf = 0;
        if (ni < 0) ni = 0;
        want = ni;
        tg_begin(&t, 11);
        tg_const(&t, "s", AICF_DTYPE_INT64, 0, NULL, &s);
        tg_const(&t, "l", AICF_DTYPE_INT64, 0, NULL, &l);
        tg_const(&t, "d", AICF_DTYPE_INT64, 0, NULL, &dl);
        tg_const(&t, "fs", AICF_DTYPE_FLOAT32, 0, NULL, &fs);
        tg_const(&t, "fl", AICF_DTYPE_FLOAT32, 0, NULL, &fl);
        tg_const(&t, "fd", AICF_DTYPE_FLOAT32, 0, NULL, &fd);
        tg_node(&t, "Range", "s,l,d", "r", 0, NULL);
        tg_node(&t, "Range", "fs,fl,fd", "rf", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "Range int64", "r", AICF_DTYPE_INT64, 1, D(1, want))) {
                int64_t bad = -1;
                for (i = 0; i < want && bad < 0; i++)
                    if (((int64_t*)tg_out(&t, "r"))[i] != s + i * dl) bad = i;
                CHECK(bad < 0, "Range int64 (%lld, %lld, %lld): element %lld differs", (long long)s, (long long)l, (long long)dl, (long long)bad);
            }
            ref = (double*)malloc((size_t)(nf + 1) * sizeof(double));
            for (i = 0; i < nf; i++) ref[i] = (double)fs + (double)i * fd;
            if (tg_check_shape(&t, "Range float", "rf", AICF_DTYPE_FLOAT32, 1, D(1, nf))) check_f32("Range float", (const float*)tg_out(&t, "rf"), ref, nf, 1e-5, 1e-6);
            free(ref);
        } else {
            CHECK(0, "Range: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
    }
    for (iter = 0; iter < 6; iter++) { /* Trilu */
        int64_t B = rndi(1, 2), M = rndi(1, 5), N = rndi(1, 5), k = rndi(-6, 6), upper = iter % 2, b, i, j;
        float* x = rand_f32(B * M * N, -1, 1);
        double* ref = (double*)malloc((size_t)(B * M * N) * sizeof(double));
        aicf_attr at[1];
        char what[64];
        tg t;
        if (iter == 5) k = INT64_MAX - 3; /* extreme k: everything kept (lower) */
        for (b = 0; b < B; b++)
            for (i = 0; i < M; i++)
                for (j = 0; j < N; j++) {
                    int keep = upper ? (double)j - (double)i >= (double)k : (double)j - (double)i <= (double)k;
                    ref[(b * M + i) * N + j] = keep ? x[(b * M + i) * N + j] : 0.0;
                }
        snprintf(what, sizeof what, "Trilu upper=%lld k=%lld", (long long)upper, (long long)k);
        tg_begin(&t, 14);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, B, M, N), x);
        tg_input(&t, "k", AICF_DTYPE_INT64, 0, NULL, &k); /* known at run time only */
        at[0] = A_i("upper", upper);
        tg_node(&t, "Trilu", "x,k", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32(what, (const float*)tg_out(&t, "y"), ref, B * M * N, 0, 0);
        else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(x);
        free(ref);
    }
    for (iter = 0; iter < 4; iter++) { /* OneHot */
        int64_t n = rndi(1, 6), depth = rndi(2, 5), i, d;
        int ax = rndi(0, 1);
        int64_t* idx = (int64_t*)malloc((size_t)n * sizeof(int64_t));
        float depthf = (float)depth, vals[2];
        float* ref = (float*)malloc((size_t)(n * depth) * sizeof(float));
        aicf_attr at[1];
        tg t;
        vals[0] = rndf(-2, 0);
        vals[1] = rndf(1, 3);
        for (i = 0; i < n; i++) idx[i] = rndi(-(int)depth - 1, (int)depth); /* some out of range: all off */
        for (i = 0; i < n; i++)
            for (d = 0; d < depth; d++) {
                int64_t v = idx[i] < 0 ? idx[i] + depth : idx[i];
                ref[ax == 1 ? i * depth + d : d * n + i] = v == d ? vals[1] : vals[0];
            }
        tg_begin(&t, 11);
        tg_input(&t, "i", AICF_DTYPE_INT64, 1, D(1, n), idx);
        tg_const(&t, "d", AICF_DTYPE_FLOAT32, 0, NULL, &depthf);
        tg_const(&t, "v", AICF_DTYPE_FLOAT32, 1, D(1, 2), vals);
        at[0] = A_i("axis", ax == 1 ? -1 : 0);
        tg_node(&t, "OneHot", "i,d,v", "y", 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "OneHot", "y", AICF_DTYPE_FLOAT32, 2, ax == 1 ? D(2, n, depth) : D(2, depth, n)))
                check_bytes("OneHot", tg_out(&t, "y"), ref, (size_t)(n * depth) * 4);
        } else {
            CHECK(0, "OneHot: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(idx);
        free(ref);
    }
    for (iter = 0; iter < 8; iter++) { /* CumSum / CumProd, exclusive, reverse, int32 axis */
        int prod = iter >= 4, excl = iter % 2, rev = (iter / 2) % 2, ax = rndi(0, 1);
        int32_t axis = ax == 0 ? 0 : -1;
        int64_t R = rndi(1, 4), Cc = rndi(1, 5), i, j, k;
        float* x = rand_f32(R * Cc, prod ? 0.5f : -2.0f, prod ? 1.5f : 2.0f);
        double* ref = (double*)malloc((size_t)(R * Cc) * sizeof(double));
        aicf_attr at[2];
        char what[64];
        tg t;
        for (i = 0; i < R; i++)
            for (j = 0; j < Cc; j++) {
                double acc = prod ? 1.0 : 0.0;
                int64_t len = ax == 0 ? R : Cc, pos = ax == 0 ? i : j;
                for (k = 0; k < len; k++) {
                    int include = rev ? (excl ? k > pos : k >= pos) : (excl ? k < pos : k <= pos);
                    double v = ax == 0 ? x[k * Cc + j] : x[i * Cc + k];
                    if (include) acc = prod ? acc * v : acc + v;
                }
                ref[i * Cc + j] = acc;
            }
        snprintf(what, sizeof what, "%s axis %d exclusive %d reverse %d", prod ? "CumProd" : "CumSum", ax, excl, rev);
        tg_begin(&t, 14);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, R, Cc), x);
        tg_input(&t, "a", AICF_DTYPE_INT32, 0, NULL, &axis);
        at[0] = A_i("exclusive", excl);
        at[1] = A_i("reverse", rev);
        tg_node(&t, prod ? "CumProd" : "CumSum", "x,a", "y", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32(what, (const float*)tg_out(&t, "y"), ref, R * Cc, 1e-5, 1e-5);
        else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(x);
        free(ref);
    }
    for (iter = 0; iter < 4; iter++) { /* DepthToSpace (reshape-transpose definition), SpaceToDepth inverts it */
        int crd = iter % 2;
        int64_t b = rndi(1, 3), N = rndi(1, 2), Co = rndi(1, 3), H = rndi(1, 3), W = rndi(1, 3), C = Co * b * b;
        int64_t n, c, h, w, e = 0;
        float* x = rand_f32(N * C * H * W, -1, 1);
        double* ref = (double*)malloc((size_t)(N * C * H * W) * sizeof(double));
        aicf_attr at[2];
        char what[64];
        tg t;
        /* DCR: [N, b, b, C', H, W] -> transpose(0,3,4,1,5,2); CRD: [N, C', b, b, H, W] -> (0,1,4,2,5,3) */
        for (n = 0; n < N; n++)
            for (c = 0; c < Co; c++)
                for (h = 0; h < H * b; h++)
                    for (w = 0; w < W * b; w++, e++) {
                        int64_t i1 = h % b, i2 = w % b, hh = h / b, ww = w / b;
                        int64_t src = crd ? ((((n * Co + c) * b + i1) * b + i2) * H + hh) * W + ww
                                          : ((((n * b + i1) * b + i2) * Co + c) * H + hh) * W + ww;
                        ref[e] = x[src];
                    }
        snprintf(what, sizeof what, "DepthToSpace %s blocksize %lld", crd ? "CRD" : "DCR", (long long)b);
        tg_begin(&t, 13);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, N, C, H, W), x);
        at[0] = A_i("blocksize", b);
        at[1] = A_s("mode", crd ? "CRD" : "DCR");
        tg_node(&t, "DepthToSpace", "x", "y", 2, at);
        tg_node(&t, "SpaceToDepth", "y", "z", crd ? 2 : 1, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 4, D(4, N, Co, H * b, W * b)))
                check_f32(what, (const float*)tg_out(&t, "y"), ref, N * C * H * W, 0, 0);
            check_bytes("SpaceToDepth(DepthToSpace(x)) == x", tg_out(&t, "z"), x, (size_t)(N * C * H * W) * 4);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
    for (iter = 0; iter < 4; iter++) { /* ScatterND (none / add with duplicates), ScatterElements (max) */
        int64_t R = rndi(2, 5), Cc = rndi(1, 4), nu = rndi(1, 4), i, j;
        int add = iter % 2;
        float* data = rand_f32(R * Cc, -1, 1);
        float* upd = rand_f32(nu * Cc, -1, 1);
        float* upe = rand_f32(R * Cc, -1, 1);
        int64_t* idx = (int64_t*)malloc((size_t)nu * sizeof(int64_t));
        int64_t* idxe = (int64_t*)malloc((size_t)(R * Cc) * sizeof(int64_t));
        double* ref = (double*)malloc((size_t)(R * Cc) * sizeof(double));
        double* refe = (double*)malloc((size_t)(R * Cc) * sizeof(double));
        aicf_attr at[2];
        char what[64];
        tg t;
        for (i = 0; i < nu; i++) idx[i] = add ? rndi(-(int)R, (int)R - 1) : (i * 7 + iter) % R; /* distinct rows without reduction */
        if (!add)
            for (i = 0; i < nu && i < R; i++) idx[i] = (i + iter) % R;
        if (!add && nu > R) nu = R;
        for (i = 0; i < R * Cc; i++) {
            ref[i] = data[i];
            refe[i] = data[i];
            idxe[i] = rndi(0, (int)R - 1);
        }
        for (i = 0; i < nu; i++)
            for (j = 0; j < Cc; j++) {
                int64_t row = idx[i] < 0 ? idx[i] + R : idx[i];
                ref[row * Cc + j] = add ? ref[row * Cc + j] + upd[i * Cc + j] : upd[i * Cc + j];
            }
        for (i = 0; i < R; i++) /* ScatterElements along axis 0, reduction max */
            for (j = 0; j < Cc; j++) {
                int64_t row = idxe[i * Cc + j];
                refe[row * Cc + j] = fmax(refe[row * Cc + j], upe[i * Cc + j]);
            }
        snprintf(what, sizeof what, "ScatterND reduction %s", add ? "add" : "none");
        tg_begin(&t, 18);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, R, Cc), data);
        tg_input(&t, "i", AICF_DTYPE_INT64, 2, D(2, nu, 1), idx);
        tg_input(&t, "u", AICF_DTYPE_FLOAT32, 2, D(2, nu, Cc), upd);
        tg_input(&t, "ie", AICF_DTYPE_INT64, 2, D(2, R, Cc), idxe);
        tg_input(&t, "ue", AICF_DTYPE_FLOAT32, 2, D(2, R, Cc), upe);
        at[0] = A_s("reduction", add ? "add" : "none");
        tg_node(&t, "ScatterND", "x,i,u", "y", 1, at);
        at[0] = A_s("reduction", "max");
        at[1] = A_i("axis", 0);
        tg_node(&t, "ScatterElements", "x,ie,ue", "ye", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            check_f32(what, (const float*)tg_out(&t, "y"), ref, R * Cc, 1e-6, 1e-6);
            check_f32("ScatterElements reduction max", (const float*)tg_out(&t, "ye"), refe, R * Cc, 0, 0);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(data);
        free(upd);
        free(upe);
        free(idx);
        free(idxe);
        free(ref);
        free(refe);
    }
    for (iter = 0; iter < 6; iter++) { /* TopK against a selection by repeated scanning */
        int64_t R = rndi(1, 3), A = rndi(1, 7), k = rndi(0, (int)A), largest = iter % 2, i, j, q;
        float* x = (float*)malloc((size_t)(R * A) * sizeof(float));
        float* rv = (float*)malloc((size_t)(R * A + 1) * sizeof(float));
        int64_t* ri = (int64_t*)malloc((size_t)(R * A + 1) * sizeof(int64_t));
        unsigned char* used = (unsigned char*)malloc((size_t)A);
        aicf_attr at[2];
        char what[64];
        tg t;
        for (i = 0; i < R * A; i++) x[i] = (float)rndi(-3, 3) * 0.5f; /* ties */
        for (i = 0; i < R; i++) {
            memset(used, 0, (size_t)A);
            for (q = 0; q < k; q++) {
                int64_t best = -1;
                for (j = 0; j < A; j++) {
                    if (used[j]) continue;
                    if (best < 0 || (largest ? x[i * A + j] > x[i * A + best] : x[i * A + j] < x[i * A + best])) best = j;
                }
                used[best] = 1;
                rv[i * k + q] = x[i * A + best];
                ri[i * k + q] = best;
            }
        }
        snprintf(what, sizeof what, "TopK k=%lld of %lld largest=%lld", (long long)k, (long long)A, (long long)largest);
        tg_begin(&t, 11);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, R, A), x);
        tg_const(&t, "k", AICF_DTYPE_INT64, 1, D(1, 1), &k);
        at[0] = A_i("largest", largest);
        at[1] = A_i("axis", -1);
        tg_node(&t, "TopK", "x,k", "v,i", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "v", AICF_DTYPE_FLOAT32, 2, D(2, R, k)) && tg_check_shape(&t, what, "i", AICF_DTYPE_INT64, 2, D(2, R, k))) {
                check_bytes(what, tg_out(&t, "v"), rv, (size_t)(R * k) * 4);
                check_bytes("TopK indices", tg_out(&t, "i"), ri, (size_t)(R * k) * 8);
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(rv);
        free(ri);
        free(used);
    }
    { /* NonZero of a constant, Size, CastLike, Cast to bfloat16 and back, EyeLike */
        float c[6], xf[5], back[5], big[30];
        int64_t nzr[12], nnz = 0, i, sz = 30;
        uint16_t bf[5];
        int32_t like = 0;
        int32_t want32[5];
        float eye[12];
        aicf_attr at[2];
        tg t;
        for (i = 0; i < 6; i++) c[i] = rndi(0, 1) ? rndf(-1, 1) : 0.0f;
        for (i = 0; i < 6; i++)
            if (c[i] != 0.0f) {
                nzr[nnz] = i / 3;
                nzr[6 + nnz] = i % 3;
                nnz++;
            }
        memmove(nzr + nnz, nzr + 6, (size_t)nnz * sizeof(int64_t));
        for (i = 0; i < 5; i++) {
            uint32_t u;
            xf[i] = rndf(-100, 100);
            want32[i] = (int32_t)xf[i];
            memcpy(&u, &xf[i], 4);
            /* round to nearest even on the upper 16 bits */
            u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
            memcpy(&back[i], &u, 4);
            bf[i] = (uint16_t)(u >> 16);
        }
        for (i = 0; i < 12; i++) eye[i] = (i / 4) - (i % 4) == -1 ? 1.0f : 0.0f;
        tg_begin(&t, 15);
        tg_const(&t, "c", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), c);
        for (i = 0; i < 30; i++) big[i] = rndf(-1, 1);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, 2, 5, 3), big);
        tg_input(&t, "xf", AICF_DTYPE_FLOAT32, 1, D(1, 5), xf);
        tg_const(&t, "like", AICF_DTYPE_INT32, 0, NULL, &like);
        tg_input(&t, "e", AICF_DTYPE_INT64, 2, D(2, 3, 4), nzr);
        tg_node(&t, "NonZero", "c", "nz", 0, NULL);
        tg_node(&t, "Size", "x", "sz", 0, NULL);
        tg_node(&t, "CastLike", "xf,like", "ci", 0, NULL);
        at[0] = A_i("to", AICF_DTYPE_BFLOAT16);
        tg_node(&t, "Cast", "xf", "bf", 1, at);
        at[0] = A_i("to", AICF_DTYPE_FLOAT32);
        tg_node(&t, "Cast", "bf", "back", 1, at);
        at[0] = A_i("k", 1);
        at[1] = A_i("dtype", AICF_DTYPE_FLOAT32);
        tg_node(&t, "EyeLike", "e", "eye", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "NonZero", "nz", AICF_DTYPE_INT64, 2, D(2, 2, nnz))) check_bytes("NonZero", tg_out(&t, "nz"), nzr, (size_t)(2 * nnz) * 8);
            if (tg_check_shape(&t, "Size", "sz", AICF_DTYPE_INT64, 0, NULL)) check_bytes("Size", tg_out(&t, "sz"), &sz, 8);
            if (tg_check_shape(&t, "CastLike", "ci", AICF_DTYPE_INT32, 1, D(1, 5))) check_bytes("CastLike", tg_out(&t, "ci"), want32, sizeof want32);
            check_bytes("Cast float32 -> bfloat16", tg_out(&t, "bf"), bf, sizeof bf);
            check_bytes("Cast bfloat16 -> float32", tg_out(&t, "back"), back, sizeof back);
            check_bytes("EyeLike k=1", tg_out(&t, "eye"), eye, sizeof eye);
        } else {
            CHECK(0, "NonZero/Size/CastLike/Cast/EyeLike: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
    }
}

/* ============================================================================================
   Compress, ReverseSequence, CenterCropPad, LpPool
   ============================================================================================ */

static void test_more_ops(void) {
    int iter;
    for (iter = 0; iter < 6; iter++) { /* Compress with and without axis */
        int64_t R = rndi(1, 4), Cc = rndi(1, 4), nc, i, j, k = 0, nsel = 0;
        int use_axis = iter % 3, ax = use_axis == 2 ? 1 : 0; /* 0: flattened, 1: axis 0, 2: axis 1 */
        float* x = rand_f32(R * Cc, -1, 1);
        unsigned char cond[16];
        float ref[16];
        aicf_attr at[1];
        tg t;
        nc = use_axis == 0 ? rndi(0, (int)(R * Cc)) : rndi(0, (int)(ax == 0 ? R : Cc));
        for (i = 0; i < nc; i++) nsel += cond[i] = (unsigned char)rndi(0, 1);
        if (use_axis == 0) {
            for (i = 0; i < nc; i++)
                if (cond[i]) ref[k++] = x[i];
        } else if (ax == 0) {
            for (i = 0; i < nc; i++)
                if (cond[i])
                    for (j = 0; j < Cc; j++) ref[k++] = x[i * Cc + j];
        } else {
            for (i = 0; i < R; i++)
                for (j = 0; j < nc; j++)
                    if (cond[j]) ref[k++] = x[i * Cc + j];
        }
        tg_begin(&t, 11);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, R, Cc), x);
        tg_const(&t, "c", AICF_DTYPE_BOOL, 1, D(1, nc), cond);
        at[0] = A_i("axis", ax);
        tg_node(&t, "Compress", "x,c", "y", use_axis ? 1 : 0, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "Compress", "y", AICF_DTYPE_FLOAT32, use_axis ? 2 : 1,
                               use_axis == 0 ? D(1, nsel) : (ax == 0 ? D(2, nsel, Cc) : D(2, R, nsel))))
                check_bytes("Compress", tg_out(&t, "y"), ref, (size_t)k * 4);
        } else {
            CHECK(0, "Compress: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
    }
    for (iter = 0; iter < 4; iter++) { /* ReverseSequence, time-major and batch-major */
        int tmaj = iter % 2;
        int64_t T = rndi(1, 5), B = rndi(1, 4), E = rndi(1, 3), lens[4], b, ti, e;
        float* x = rand_f32(T * B * E, -1, 1);
        float* ref = (float*)malloc((size_t)(T * B * E) * sizeof(float));
        aicf_attr at[2];
        tg t;
        for (b = 0; b < B; b++) lens[b] = rndi(0, (int)T);
        for (b = 0; b < B; b++)
            for (ti = 0; ti < T; ti++)
                for (e = 0; e < E; e++) {
                    int64_t src = ti < lens[b] ? lens[b] - 1 - ti : ti;
                    int64_t di = tmaj ? (ti * B + b) * E + e : (b * T + ti) * E + e;
                    int64_t si = tmaj ? (src * B + b) * E + e : (b * T + src) * E + e;
                    ref[di] = x[si];
                }
        tg_begin(&t, 10);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, tmaj ? D(3, T, B, E) : D(3, B, T, E), x);
        tg_input(&t, "l", AICF_DTYPE_INT64, 1, D(1, B), lens);
        at[0] = A_i("time_axis", tmaj ? 0 : 1);
        at[1] = A_i("batch_axis", tmaj ? 1 : 0);
        tg_node(&t, "ReverseSequence", "x,l", "y", 2, at);
        if (tg_run(&t) == AICF_SUCCESS) check_bytes(tmaj ? "ReverseSequence time-major" : "ReverseSequence batch-major", tg_out(&t, "y"), ref, (size_t)(T * B * E) * 4);
        else CHECK(0, "ReverseSequence: %s", aicf_last_error(t.ctx));
        tg_end(&t);
        free(x);
        free(ref);
    }
    for (iter = 0; iter < 4; iter++) { /* CenterCropPad */
        int64_t H = rndi(1, 6), W = rndi(1, 6), oh = rndi(1, 7), ow = rndi(1, 7), sh[2], i, j;
        float* x = rand_f32(H * W, -1, 1);
        float* ref = (float*)malloc((size_t)(oh * ow) * sizeof(float));
        tg t;
        sh[0] = oh;
        sh[1] = ow;
        for (i = 0; i < oh; i++)
            for (j = 0; j < ow; j++) {
                /* crop: source starts at floor((n - m) / 2); pad: output starts at floor((m - n) / 2) */
                int64_t si = H >= oh ? i + (H - oh) / 2 : i - (oh - H) / 2, sj = W >= ow ? j + (W - ow) / 2 : j - (ow - W) / 2;
                ref[i * ow + j] = si >= 0 && si < H && sj >= 0 && sj < W ? x[si * W + sj] : 0.0f;
            }
        tg_begin(&t, 18);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, H, W), x);
        tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), sh);
        tg_node(&t, "CenterCropPad", "x,s", "y", 0, NULL);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, "CenterCropPad", "y", AICF_DTYPE_FLOAT32, 2, D(2, oh, ow))) check_bytes("CenterCropPad", tg_out(&t, "y"), ref, (size_t)(oh * ow) * 4);
        } else {
            CHECK(0, "CenterCropPad: %s", aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
    }
    for (iter = 0; iter < 6; iter++) { /* LpPool 2-D with pads and strides */
        int64_t kh = rndi(1, 2), kw = rndi(1, 3), H = rndi((int)kh, 6), W = rndi((int)kw, 6), s = rndi(1, 2), p = rndi(1, 3), pad = rndi(0, 1), oh, ow, i, j, a, b;
        int64_t ks[2], st[2], pads[4];
        float* x = rand_f32(2 * H * W, -2, 2);
        double* ref;
        aicf_attr at[4];
        char what[64];
        tg t;
        if (pad >= kh || pad >= kw) pad = 0;
        oh = (H + 2 * pad - kh) / s + 1;
        ow = (W + 2 * pad - kw) / s + 1;
        ref = (double*)malloc((size_t)(2 * oh * ow) * sizeof(double));
        for (a = 0; a < 2; a++)
            for (i = 0; i < oh; i++)
                for (j = 0; j < ow; j++) {
                    double acc = 0;
                    int64_t u, v;
                    for (u = 0; u < kh; u++)
                        for (v = 0; v < kw; v++) {
                            int64_t y = i * s - pad + u, z = j * s - pad + v;
                            if (y >= 0 && y < H && z >= 0 && z < W) acc += pow(fabs((double)x[(a * H + y) * W + z]), (double)p);
                        }
                    ref[(a * oh + i) * ow + j] = pow(acc, 1.0 / (double)p);
                }
        ks[0] = kh;
        ks[1] = kw;
        st[0] = st[1] = s;
        pads[0] = pads[1] = pads[2] = pads[3] = pad;
        at[0] = A_ints("kernel_shape", 2, ks);
        at[1] = A_ints("strides", 2, st);
        at[2] = A_ints("pads", 4, pads);
        at[3] = A_i("p", p);
        b = 0;
        snprintf(what, sizeof what, "LpPool p=%lld kernel [%lld,%lld]", (long long)p, (long long)kh, (long long)kw);
        tg_begin(&t, 18);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 2, H, W), x);
        tg_node(&t, "LpPool", "x", "y", 4, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            if (tg_check_shape(&t, what, "y", AICF_DTYPE_FLOAT32, 4, D(4, 1, 2, oh, ow))) check_f32(what, (const float*)tg_out(&t, "y"), ref, 2 * oh * ow, 1e-5, 1e-5);
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(x);
        free(ref);
        (void)b;
    }
    { /* Compress needs a constant condition */
        float x[4] = {1, 2, 3, 4};
        unsigned char cond[4] = {1, 0, 1, 0};
        tg t;
        tg_begin(&t, 11);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
        tg_input(&t, "cond", AICF_DTYPE_BOOL, 1, D(1, 4), cond);
        tg_node(&t, "Compress", "x,cond", "y", 0, NULL);
        expect_error(&t, "Compress runtime condition", AICF_ERROR_UNSUPPORTED, "input 1 'cond' must be a constant at plan time");
    }
}

/* ============================================================================================
   Attention
   ============================================================================================ */

static void test_attention(void) {
    int iter;
    for (iter = 0; iter < 12; iter++) {
        int r3 = iter % 2, causal = (iter / 2) % 2, use_mask = iter % 3, use_past = iter % 4 == 1 || iter % 4 == 2, mask_bool = use_mask == 2;
        int64_t B = rndi(1, 2), kvH = rndi(1, 2), grp = rndi(1, 2), qH = kvH * grp, qS = rndi(1, 4), kvS = rndi(1, 4), D = rndi(1, 4), Dv = rndi(1, 3);
        int64_t P = use_past ? rndi(1, 3) : 0, T = P + kvS, b, h, i, j, d, mlen = use_mask ? rndi(1, (int)T) : 0;
        float *q, *k, *v, *pk = NULL, *pv = NULL, *mf = NULL;
        unsigned char* mb = NULL;
        double *q4, *k4, *v4, *sc, *y;
        double scale = 1.0 / sqrt((double)D);
        float s;
        aicf_attr at[4];
        int nat = 0;
        char what[128], ins[64];
        tg t;
        q = rand_f32(B * qH * qS * D, -1, 1);
        k = rand_f32(B * kvH * kvS * D, -1, 1);
        v = rand_f32(B * kvH * kvS * Dv, -1, 1);
        if (use_past) {
            pk = rand_f32(B * kvH * P * D, -1, 1);
            pv = rand_f32(B * kvH * P * Dv, -1, 1);
        }
        if (mask_bool) {
            mb = (unsigned char*)malloc((size_t)(qS * mlen) + 1);
            for (i = 0; i < qS * mlen; i++) mb[i] = (unsigned char)(rndi(0, 3) != 0);
        } else if (use_mask) {
            mf = rand_f32(qS * mlen, -2, 1);
        }
        if (iter >= 8) {
            scale = rndf(0.05f, 0.5f);
            at[nat++] = A_f("scale", (float)scale);
            scale = (double)(float)scale;
        }
        s = (float)sqrt(scale);
        /* materialise Q [B,qH,qS,D], K/V [B,kvH,T,*] (past first) */
        q4 = (double*)malloc((size_t)(B * qH * qS * D) * sizeof(double));
        k4 = (double*)malloc((size_t)(B * kvH * T * D) * sizeof(double));
        v4 = (double*)malloc((size_t)(B * kvH * T * Dv) * sizeof(double));
        for (b = 0; b < B; b++)
            for (h = 0; h < qH; h++)
                for (i = 0; i < qS; i++)
                    for (d = 0; d < D; d++)
                        q4[((b * qH + h) * qS + i) * D + d] = r3 ? q[(b * qS + i) * qH * D + h * D + d] : q[((b * qH + h) * qS + i) * D + d];
        for (b = 0; b < B; b++)
            for (h = 0; h < kvH; h++)
                for (j = 0; j < T; j++) {
                    for (d = 0; d < D; d++)
                        k4[((b * kvH + h) * T + j) * D + d] = j < P ? pk[((b * kvH + h) * P + j) * D + d]
                                                                    : (r3 ? k[(b * kvS + j - P) * kvH * D + h * D + d] : k[((b * kvH + h) * kvS + j - P) * D + d]);
                    for (d = 0; d < Dv; d++)
                        v4[((b * kvH + h) * T + j) * Dv + d] = j < P ? pv[((b * kvH + h) * P + j) * Dv + d]
                                                                     : (r3 ? v[(b * kvS + j - P) * kvH * Dv + h * Dv + d] : v[((b * kvH + h) * kvS + j - P) * Dv + d]);
                }
        sc = (double*)malloc((size_t)T * sizeof(double));
        y = (double*)malloc((size_t)(B * qH * qS * Dv) * sizeof(double));
        for (b = 0; b < B; b++)
            for (h = 0; h < qH; h++)
                for (i = 0; i < qS; i++) {
                    double mx = -INFINITY, sum = 0;
                    int any = 0;
                    for (j = 0; j < T; j++) {
                        double dot = 0, bias = 0;
                        for (d = 0; d < D; d++)
                            dot += (double)(float)(q4[((b * qH + h) * qS + i) * D + d] * s) * (double)(float)(k4[((b * kvH + h / grp) * T + j) * D + d] * s);
                        if (use_mask) bias = j >= mlen ? -INFINITY : (mask_bool ? (mb[i * mlen + j] ? 0 : -INFINITY) : mf[i * mlen + j]);
                        if (causal && j > i + P) bias = -INFINITY;
                        if (bias != -INFINITY) any = 1;
                        sc[j] = dot + bias;
                        if (sc[j] > mx) mx = sc[j];
                    }
                    for (j = 0; j < T; j++) {
                        sc[j] = any ? exp(sc[j] - mx) : 0.0;
                        sum += sc[j];
                    }
                    for (d = 0; d < Dv; d++) {
                        double acc = 0;
                        for (j = 0; j < T; j++) acc += (sum > 0 ? sc[j] / sum : 0.0) * v4[((b * kvH + h / grp) * T + j) * Dv + d];
                        if (r3) y[(b * qS + i) * qH * Dv + h * Dv + d] = acc;
                        else y[((b * qH + h) * qS + i) * Dv + d] = acc;
                    }
                }
        snprintf(what, sizeof what, "Attention %s causal %d mask %d past %lld heads %lld/%lld", r3 ? "3-D" : "4-D", causal, use_mask, (long long)P,
                 (long long)qH, (long long)kvH);
        tg_begin(&t, 23);
        if (r3) {
            tg_input(&t, "q", AICF_DTYPE_FLOAT32, 3, D(3, B, qS, qH * D), q);
            tg_input(&t, "k", AICF_DTYPE_FLOAT32, 3, D(3, B, kvS, kvH * D), k);
            tg_input(&t, "v", AICF_DTYPE_FLOAT32, 3, D(3, B, kvS, kvH * Dv), v);
            at[nat++] = A_i("q_num_heads", qH);
            at[nat++] = A_i("kv_num_heads", kvH);
        } else {
            tg_input(&t, "q", AICF_DTYPE_FLOAT32, 4, D(4, B, qH, qS, D), q);
            tg_input(&t, "k", AICF_DTYPE_FLOAT32, 4, D(4, B, kvH, kvS, D), k);
            tg_input(&t, "v", AICF_DTYPE_FLOAT32, 4, D(4, B, kvH, kvS, Dv), v);
        }
        if (use_mask) tg_input(&t, "m", mask_bool ? AICF_DTYPE_BOOL : AICF_DTYPE_FLOAT32, 2, D(2, qS, mlen), mask_bool ? (const void*)mb : (const void*)mf);
        if (use_past) {
            tg_input(&t, "pk", AICF_DTYPE_FLOAT32, 4, D(4, B, kvH, P, D), pk);
            tg_input(&t, "pv", AICF_DTYPE_FLOAT32, 4, D(4, B, kvH, P, Dv), pv);
        }
        if (causal) {
            /* the scale attribute, when present, stays in at[0] */
            at[nat++] = A_i("is_causal", 1);
        }
        snprintf(ins, sizeof ins, "q,k,v%s%s", use_mask ? ",m" : (use_past ? "," : ""), use_past ? ",pk,pv" : "");
        tg_node(&t, "Attention", ins, use_past ? "y,pko,pvo" : "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) {
            check_f32(what, (const float*)tg_out(&t, "y"), y, B * qH * qS * Dv, 1e-5, 1e-5);
            if (use_past) {
                check_f32("Attention present_key", (const float*)tg_out(&t, "pko"), k4, B * kvH * T * D, 0, 0);
                check_f32("Attention present_value", (const float*)tg_out(&t, "pvo"), v4, B * kvH * T * Dv, 0, 0);
            }
        } else {
            CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        }
        tg_end(&t);
        free(q);
        free(k);
        free(v);
        free(pk);
        free(pv);
        free(mf);
        free(mb);
        free(q4);
        free(k4);
        free(v4);
        free(sc);
        free(y);
    }
    { /* error: query heads not a multiple of key/value heads */
        float x[64];
        aicf_attr at[2];
        tg t;
        int i;
        for (i = 0; i < 64; i++) x[i] = rndf(-1, 1);
        tg_begin(&t, 23);
        tg_input(&t, "q", AICF_DTYPE_FLOAT32, 4, D(4, 1, 3, 2, 2), x);
        tg_input(&t, "k", AICF_DTYPE_FLOAT32, 4, D(4, 1, 2, 2, 2), x);
        tg_input(&t, "v", AICF_DTYPE_FLOAT32, 4, D(4, 1, 2, 2, 2), x);
        tg_node(&t, "Attention", "q,k,v", "y", 0, NULL);
        expect_error(&t, "Attention head counts", AICF_ERROR_SHAPE, "3 query heads are not a multiple of 2 key/value heads");
        tg_begin(&t, 23);
        tg_input(&t, "q", AICF_DTYPE_FLOAT32, 3, D(3, 1, 2, 6), x);
        tg_input(&t, "k", AICF_DTYPE_FLOAT32, 3, D(3, 1, 2, 6), x);
        tg_input(&t, "v", AICF_DTYPE_FLOAT32, 3, D(3, 1, 2, 6), x);
        at[0] = A_i("q_num_heads", 4);
        at[1] = A_i("kv_num_heads", 3);
        tg_node(&t, "Attention", "q,k,v", "y", 2, at);
        expect_error(&t, "Attention 3-D hidden size", AICF_ERROR_SHAPE, "are not multiples of the head counts 4, 3");
    }
}

/* RotaryEmbedding: rotate pairs (split halves or interleaved) of the first rotary dims. */
static void test_rope(void) {
    int iter;
    for (iter = 0; iter < 8; iter++) {
        int r3 = iter % 2, inter = (iter / 2) % 2, use_pid = iter >= 4;
        int64_t B = rndi(1, 2), H = rndi(1, 3), S = rndi(1, 4), hd = 2 * rndi(1, 4), rd = 2 * rndi(1, (int)hd / 2), npos = rndi((int)S, 8), b, s, h, k;
        float* x = rand_f32(B * H * S * hd, -1, 1);
        float *cs, *sn;
        int64_t* pid = (int64_t*)malloc((size_t)(B * S) * sizeof(int64_t));
        double* ref = (double*)malloc((size_t)(B * H * S * hd) * sizeof(double));
        aicf_attr at[3];
        int nat = 0;
        char what[96];
        tg t;
        cs = rand_f32(use_pid ? npos * rd / 2 : B * S * rd / 2, -1, 1);
        sn = rand_f32(use_pid ? npos * rd / 2 : B * S * rd / 2, -1, 1);
        for (b = 0; b < B * S; b++) pid[b] = rndi(0, (int)npos - 1);
        for (b = 0; b < B; b++)
            for (h = 0; h < H; h++)
                for (s = 0; s < S; s++) {
                    int64_t base = r3 ? (b * S + s) * H * hd + h * hd : ((b * H + h) * S + s) * hd, row = use_pid ? pid[b * S + s] : b * S + s;
                    for (k = 0; k < hd; k++) ref[base + k] = x[base + k];
                    for (k = 0; k < rd / 2; k++) {
                        /* pair k: (x[k], x[k + rd/2]) or (x[2k], x[2k+1]) as a complex number times (cos + i sin) */
                        int64_t re = inter ? 2 * k : k, im = inter ? 2 * k + 1 : k + rd / 2;
                        double c = cs[row * (rd / 2) + k], si = sn[row * (rd / 2) + k];
                        ref[base + re] = c * x[base + re] - si * x[base + im];
                        ref[base + im] = si * x[base + re] + c * x[base + im];
                    }
                }
        snprintf(what, sizeof what, "RotaryEmbedding %s interleaved %d rotary %lld of %lld%s", r3 ? "3-D" : "4-D", inter, (long long)rd, (long long)hd,
                 use_pid ? " position_ids" : "");
        tg_begin(&t, 23);
        tg_input(&t, "x", AICF_DTYPE_FLOAT32, r3 ? 3 : 4, r3 ? D(3, B, S, H * hd) : D(4, B, H, S, hd), x);
        tg_input(&t, "c", AICF_DTYPE_FLOAT32, use_pid ? 2 : 3, use_pid ? D(2, npos, rd / 2) : D(3, B, S, rd / 2), cs);
        tg_input(&t, "s", AICF_DTYPE_FLOAT32, use_pid ? 2 : 3, use_pid ? D(2, npos, rd / 2) : D(3, B, S, rd / 2), sn);
        tg_input(&t, "p", AICF_DTYPE_INT64, 2, D(2, B, S), pid);
        at[nat++] = A_i("interleaved", inter);
        at[nat++] = A_i("rotary_embedding_dim", rd == hd && rndi(0, 1) ? 0 : rd);
        if (r3) at[nat++] = A_i("num_heads", H);
        tg_node(&t, "RotaryEmbedding", use_pid ? "x,c,s,p" : "x,c,s", "y", nat, at);
        if (tg_run(&t) == AICF_SUCCESS) check_f32(what, (const float*)tg_out(&t, "y"), ref, B * H * S * hd, 1e-6, 1e-5);
        else CHECK(0, "%s: %s", what, aicf_last_error(t.ctx));
        tg_end(&t);
        free(x);
        free(cs);
        free(sn);
        free(pid);
        free(ref);
    }
}

/* ============================================================================================
   Error paths of the ops for exported models
   ============================================================================================ */

static void test_errors2(void) {
    float x[64];
    int64_t st[2] = {0, 1}, en[2] = {2, 3}, bad_idx[3] = {0, 5, 1}, rep[1] = {2}, zero = 0, one = 1, splits[2] = {3, 3};
    int32_t zi[4] = {0, 0, 0, 0}, ai[4] = {1, 2, 3, 4};
    float sc[4] = {1.0f, 1.0f, 2.0f, 2.0f};
    int64_t sizes[4] = {1, 1, 4, 4};
    aicf_attr at[3];
    tg t;
    int i;
    for (i = 0; i < 64; i++) x[i] = rndf(-1, 1);

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_input(&t, "starts", AICF_DTYPE_INT64, 1, D(1, 2), st);
    tg_const(&t, "ends", AICF_DTYPE_INT64, 1, D(1, 2), en);
    tg_node(&t, "Slice", "x,starts,ends", "y", 0, NULL);
    expect_error(&t, "Slice with runtime starts", AICF_ERROR_UNSUPPORTED,
                 "node 0 'n' (Slice): input 1 'starts' must be a constant at plan time");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), st);
    tg_const(&t, "e", AICF_DTYPE_INT64, 1, D(1, 2), en);
    tg_const(&t, "a", AICF_DTYPE_INT64, 1, D(1, 2), D(2, 1, -1));
    tg_node(&t, "Slice", "x,s,e,a", "y", 0, NULL);
    expect_error(&t, "Slice repeated axis", AICF_ERROR_INVALID_MODEL, "axis 1 appears twice in axes");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 1), &zero);
    tg_const(&t, "e", AICF_DTYPE_INT64, 1, D(1, 1), &one);
    tg_const(&t, "a", AICF_DTYPE_INT64, 1, D(1, 1), &zero);
    tg_const(&t, "p", AICF_DTYPE_INT64, 1, D(1, 1), &zero);
    tg_node(&t, "Slice", "x,s,e,a,p", "y", 0, NULL);
    expect_error(&t, "Slice step 0", AICF_ERROR_INVALID_MODEL, "steps[0] is 0");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "i", AICF_DTYPE_INT64, 1, D(1, 3), bad_idx);
    tg_node(&t, "Gather", "x,i", "y", 0, NULL);
    expect_error(&t, "Gather constant index out of range", AICF_ERROR_INVALID_MODEL,
                 "input 1 'i' element 1 = 5 is out of range [-4, 3]");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_input(&t, "i", AICF_DTYPE_INT64, 1, D(1, 3), bad_idx);
    tg_node(&t, "Gather", "x,i", "y", 0, NULL);
    expect_error(&t, "Gather runtime index out of range", AICF_ERROR_INVALID_ARGUMENT, "element 1 = 5 is out of range [-4, 3]");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_input(&t, "i", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    tg_node(&t, "Gather", "x,i", "y", 0, NULL);
    expect_error(&t, "Gather float indices", AICF_ERROR_UNSUPPORTED, "input 1 'i' has data type float32");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), splits);
    tg_node(&t, "Split", "x,s", "a,b", 0, NULL);
    expect_error(&t, "Split sizes do not sum", AICF_ERROR_SHAPE, "split sums to 6 but axis 0 has size 4");

    tg_begin(&t, 18);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 1, D(1, 5), x);
    at[0] = A_i("num_outputs", 4);
    tg_node(&t, "Split", "x", "a,b,c,d", 1, at);
    expect_error(&t, "Split 5 into 4", AICF_ERROR_SHAPE, "cannot split axis 0 of size 5 into 4 parts");

    tg_begin(&t, 18);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "p", AICF_DTYPE_INT64, 1, D(1, 4), D(4, 1, 1, 1, 1));
    at[0] = A_s("mode", "wrap");
    tg_node(&t, "Pad", "x,p", "y", 1, at);
    expect_error(&t, "Pad wrap before opset 19", AICF_ERROR_INVALID_MODEL, "attribute 'mode' is 'wrap'");

    tg_begin(&t, 19);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "p", AICF_DTYPE_INT64, 1, D(1, 3), D(3, 1, 1, 1));
    tg_node(&t, "Pad", "x,p", "y", 0, NULL);
    expect_error(&t, "Pad odd pads", AICF_ERROR_INVALID_MODEL, "pads has 3 values; expected 4 (2 per axis)");

    tg_begin(&t, 19);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "p", AICF_DTYPE_INT64, 1, D(1, 4), D(4, 0, -4, 0, 1));
    at[0] = A_s("mode", "reflect");
    tg_node(&t, "Pad", "x,p", "y", 1, at);
    expect_error(&t, "Pad reflect of nothing", AICF_ERROR_SHAPE, "mode 'reflect' cannot pad axis 1: it has no elements");

    tg_begin(&t, 18);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_const(&t, "a", AICF_DTYPE_INT64, 1, D(1, 2), D(2, 0, -2));
    tg_node(&t, "ReduceMean", "x,a", "y", 0, NULL);
    expect_error(&t, "ReduceMean repeated axis", AICF_ERROR_INVALID_MODEL, "axis 0 appears twice in axes");

    tg_begin(&t, 18);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_input(&t, "a", AICF_DTYPE_INT64, 1, D(1, 1), &zero);
    tg_node(&t, "ReduceSum", "x,a", "y", 0, NULL);
    expect_error(&t, "ReduceSum runtime axes", AICF_ERROR_UNSUPPORTED, "input 1 'a' must be a constant at plan time (it gives the axes)");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 4, 4), x);
    tg_node(&t, "NonZero", "x", "y", 0, NULL);
    expect_error(&t, "NonZero of a runtime input", AICF_ERROR_UNSUPPORTED,
                 "input 0 'x' must be a constant at plan time (NonZero's output shape depends on its values)");

    tg_begin(&t, 12);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_input(&t, "b", AICF_DTYPE_FLOAT32, 2, D(2, 4, 5), x);
    at[0] = A_s("equation", "ij,jk->ik");
    tg_node(&t, "Einsum", "a,b", "y", 1, at);
    expect_error(&t, "Einsum size mismatch", AICF_ERROR_SHAPE, "equation 'ij,jk->ik': label 'j' has sizes 3 and 4");

    tg_begin(&t, 12);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    at[0] = A_s("equation", "i->i");
    tg_node(&t, "Einsum", "a", "y", 1, at);
    expect_error(&t, "Einsum rank mismatch", AICF_ERROR_INVALID_MODEL, "equation 'i->i': term 0 does not match input 0 of rank 2");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    tg_const(&t, "sc", AICF_DTYPE_FLOAT32, 1, D(1, 4), sc);
    tg_const(&t, "sz", AICF_DTYPE_INT64, 1, D(1, 4), sizes);
    tg_node(&t, "Resize", "x,,sc,sz", "y", 0, NULL);
    expect_error(&t, "Resize with scales and sizes", AICF_ERROR_INVALID_MODEL, "needs exactly one of the inputs scales and sizes");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    tg_input(&t, "sc", AICF_DTYPE_FLOAT32, 1, D(1, 4), sc);
    tg_node(&t, "Resize", "x,,sc", "y", 0, NULL);
    expect_error(&t, "Resize runtime scales", AICF_ERROR_UNSUPPORTED, "input 2 'sc' must be a constant at plan time (it gives the scales)");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 1, 2, 2), x);
    tg_const(&t, "sc", AICF_DTYPE_FLOAT32, 1, D(1, 4), sc);
    at[0] = A_s("mode", "bicubic");
    tg_node(&t, "Resize", "x,,sc", "y", 1, at);
    expect_error(&t, "Resize unknown mode", AICF_ERROR_INVALID_MODEL, "attribute 'mode' is 'bicubic'");

    tg_begin(&t, 11);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 3), x);
    tg_const(&t, "k", AICF_DTYPE_INT64, 1, D(1, 1), D(1, 4));
    tg_node(&t, "TopK", "x,k", "v,i", 0, NULL);
    expect_error(&t, "TopK k too large", AICF_ERROR_SHAPE, "k = 4 is out of range for axis 1 of size 3");

    tg_begin(&t, 17);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 4), x);
    tg_const(&t, "s", AICF_DTYPE_FLOAT32, 1, D(1, 3), x);
    tg_node(&t, "LayerNormalization", "x,s", "y", 0, NULL);
    expect_error(&t, "LayerNormalization scale shape", AICF_ERROR_SHAPE, "input 1 's' (scale) shape [3] does not broadcast to input 0 shape [2,4]");

    tg_begin(&t, 11);
    tg_const(&t, "s", AICF_DTYPE_INT64, 0, NULL, &zero);
    tg_const(&t, "l", AICF_DTYPE_INT64, 0, NULL, &one);
    tg_const(&t, "d", AICF_DTYPE_INT64, 0, NULL, &zero);
    tg_node(&t, "Range", "s,l,d", "y", 0, NULL);
    expect_error(&t, "Range delta 0", AICF_ERROR_INVALID_MODEL, "delta is 0");

    tg_begin(&t, 11);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 4), x);
    tg_const(&t, "r", AICF_DTYPE_INT64, 1, D(1, 1), rep);
    tg_node(&t, "Tile", "x,r", "y", 0, NULL);
    expect_error(&t, "Tile repeats count", AICF_ERROR_INVALID_MODEL, "repeats has 1 values; input 0 has rank 2");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 2, D(2, 2, 4), x);
    tg_const(&t, "s", AICF_DTYPE_INT64, 1, D(1, 2), D(2, 3, 4));
    tg_node(&t, "Expand", "x,s", "y", 0, NULL);
    expect_error(&t, "Expand incompatible", AICF_ERROR_SHAPE, "input 0 shape [2,4] cannot be broadcast to [3,4]");

    tg_begin(&t, 13);
    tg_input(&t, "a", AICF_DTYPE_INT32, 1, D(1, 4), ai);
    tg_input(&t, "b", AICF_DTYPE_INT32, 1, D(1, 4), zi);
    tg_node(&t, "Mod", "a,b", "y", 0, NULL);
    expect_error(&t, "Mod by zero", AICF_ERROR_INVALID_ARGUMENT, "integer modulo by zero (input 1 'b')");

    tg_begin(&t, 13);
    tg_input(&t, "c", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_node(&t, "Where", "c,a,a", "y", 0, NULL);
    expect_error(&t, "Where float condition", AICF_ERROR_UNSUPPORTED, "input 0 'c' has data type float32");

    tg_begin(&t, 13);
    tg_input(&t, "a", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_input(&t, "b", AICF_DTYPE_INT32, 1, D(1, 4), ai);
    tg_node(&t, "Less", "a,b", "y", 0, NULL);
    expect_error(&t, "Less mixed types", AICF_ERROR_INVALID_MODEL, "input 1 'b' has data type int32 but input 0 'a' has float32");

    tg_begin(&t, 11);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 3, 2, 2), x);
    tg_const(&t, "w", AICF_DTYPE_FLOAT32, 4, D(4, 2, 1, 2, 2), x);
    tg_node(&t, "ConvTranspose", "x,w", "y", 0, NULL);
    expect_error(&t, "ConvTranspose channel mismatch", AICF_ERROR_SHAPE, "input 0 has 3 channels but W shape [2,1,2,2]");

    tg_begin(&t, 13);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 4, D(4, 1, 3, 2, 2), x);
    at[0] = A_i("blocksize", 2);
    tg_node(&t, "DepthToSpace", "x", "y", 1, at);
    expect_error(&t, "DepthToSpace channels", AICF_ERROR_SHAPE, "input 0 shape [1,3,2,2] is not divisible by blocksize 2");

    tg_begin(&t, 18);
    tg_input(&t, "x", AICF_DTYPE_FLOAT32, 3, D(3, 1, 4, 2), x);
    tg_const(&t, "s", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    tg_const(&t, "b", AICF_DTYPE_FLOAT32, 1, D(1, 4), x);
    at[0] = A_i("num_groups", 3);
    tg_node(&t, "GroupNormalization", "x,s,b", "y", 1, at);
    expect_error(&t, "GroupNormalization groups", AICF_ERROR_SHAPE, "attribute 'num_groups' = 3 does not divide the 4 channels");
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
    op_stat st[320];
    int n_st;
    int not_ours, total;
} node_run;

static op_stat* stat_for(node_run* nr, const char* op) {
    int i;
    for (i = 0; i < nr->n_st; i++)
        if (!strcmp(nr->st[i].op, op)) return &nr->st[i];
    if (nr->n_st == 320) return &nr->st[319];
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
   file `light`. Inputs that are not float32 become constants (as tests/node_tests.c does);
   with bind_all, every input does (for the float inputs that decide shapes: Resize scales,
   OneHot depth, Range bounds). Returns 1 pass, 0 fail, -1 skip (reason in why). */
static int node_case_ex(aicf_context* ctx, const char* dir, const char* light, int bind_all, char* why, size_t cap) {
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
        if (t->dtype != AICF_DTYPE_FLOAT32 || bind_all) {
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

static int node_case(aicf_context* ctx, const char* dir, char* why, size_t cap) {
    int res = node_case_ex(ctx, dir, NULL, 0, why, cap);
    if (res == -1 && strstr(why, "must be a constant at plan time")) {
        /* a float input decides a shape: run again with every input a constant */
        res = node_case_ex(ctx, dir, NULL, 1, why, cap);
        if (res == 1) snprintf(why, cap, "(inputs bound as constants)");
    }
    return res;
}

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
    res = node_case_ex(ctx, arg, light ? exp : NULL, 0, why, sizeof why);
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
            if (g_verbose || why[0]) printf("  pass %s %s\n", names[i], why);
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
        test_compare_logic();
        test_where_mod_prelu_mean();
        test_unary2();
        test_gather();
        test_slice();
        test_split();
        test_pad();
        test_tile_expand();
        test_reduce();
        test_norms();
        test_resize();
        test_convtranspose();
        test_einsum();
        test_misc_ops();
        test_more_ops();
        test_attention();
        test_rope();
        test_errors2();
        printf("unit checks: %d passed, %d failed\n", g_pass, g_fail);
    }
    if (node) test_node_suite();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
