/* tests/test_gpu_kernels.c: every generated op kernel against the CPU reference (GPU machine).

   Each case is a one-node graph built through the public builder, planned twice from the same
   graph (AICF_BACKEND_CPU at FP32, the CPU reference; AICF_BACKEND_CUDA at the case's
   precision), run on the same fresh random inputs, and compared with a norm-relative error
   ||gpu - cpu|| / ||cpu|| (fp32 <= 1e-5, tf32 <= 5e-3, fp16 <= 1e-2); a NaN or Inf in the GPU
   output where the reference is finite always fails. The shapes are chosen so that every
   variant of the kernel table is selected: each case prints the kernels its plan launched and
   may require one (expect); at the end every op kernel of the table must have been launched
   at least once. GEMM-shaped cases run twice: with cuBLASLt and on a context whose cuBLASLt
   path does not exist (the generated GEMM fallback). Then: error paths of the device lowering,
   and a small multi-op graph replayed 1000 times, every replay bitwise identical to the first.

   Build (from the repository root, after `make`):
     cc -std=c99 -O2 -Wall -Wextra -Werror tests/test_gpu_kernels.c -ldl -lm -lpthread -o build/test_gpu_kernels
   Options: --seed N (default: time, printed), -v (print every step's kernel and reason),
   --replays N (default 1000), --driver PATH (libcuda to load), --plan-only (plan and build the graphs, run and compare
   nothing: with tests/fake_libcuda.c this checks the lowering on a machine without a GPU).
   Without a CUDA device: prints "no CUDA device: N skipped" and exits 0.
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

static int g_pass, g_fail, g_verbose;
static int g_replays = 1000;
static int g_plan_only; /* --plan-only: plan and build the CUDA graph, compare nothing (for a fake driver) */
static uint64_t g_rng;
static aicf_context* g_ctx;      /* CUDA with cuBLASLt (when the machine has it) */
static aicf_context* g_ctx_nolt; /* CUDA, cuBLASLt path pointing nowhere: generated GEMMs */
static int g_have_lt;
static int g_hits[AICF__KT_NUM_KERNELS + 1];

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

static uint64_t rnd_u64(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)((double)(rnd_u64() >> 11) * (1.0 / 9007199254740992.0)); }

/* ---- one test case: a one-node graph ---- */
#define MAXIN 6
#define MAXATTR 8

typedef struct tin {
    const char* name; /* "" = omitted optional input */
    int rank;
    int64_t dims[AICF_MAX_RANK];
    int is_const;     /* a constant (weights space) rather than a graph input */
    float lo, hi;     /* uniform random range */
    aicf_dtype dtype; /* FLOAT32 unless set */
} tin;

typedef struct tcase {
    char name[200];
    const char* op;
    int opset;
    tin in[MAXIN];
    int n_in;
    aicf_attr attrs[MAXATTR];
    int n_attr;
    int64_t ints[MAXATTR][AICF_MAX_RANK * 2];
    char strs[MAXATTR][32];
    aicf_precision prec;
    int no_lt;          /* plan on the context without cuBLASLt */
    const char* expect; /* a kernel name (substring) the CUDA plan must launch, or NULL */
} tcase;

static tcase* tc_new(tcase* tc, const char* op, aicf_precision prec, const char* fmt, ...) {
    va_list ap;
    memset(tc, 0, sizeof *tc);
    tc->op = op;
    tc->prec = prec;
    tc->opset = 17;
    va_start(ap, fmt);
    vsnprintf(tc->name, sizeof tc->name, fmt, ap);
    va_end(ap);
    return tc;
}

static tin* tc_in(tcase* tc, const char* name, int rank, const int64_t* dims, int is_const, float lo, float hi) {
    tin* t = &tc->in[tc->n_in++];
    int i;
    t->name = name;
    t->rank = rank;
    for (i = 0; i < rank; i++) t->dims[i] = dims[i];
    t->is_const = is_const;
    t->lo = lo;
    t->hi = hi;
    t->dtype = AICF_DTYPE_FLOAT32;
    return t;
}

static void tc_omit(tcase* tc) {
    memset(&tc->in[tc->n_in], 0, sizeof tc->in[0]);
    tc->in[tc->n_in++].name = "";
}

static void tc_attr_i(tcase* tc, const char* name, int64_t v) {
    aicf_attr* a = &tc->attrs[tc->n_attr++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->type = AICF_ATTR_INT;
    a->i = v;
}

static void tc_attr_f(tcase* tc, const char* name, float v) {
    aicf_attr* a = &tc->attrs[tc->n_attr++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->type = AICF_ATTR_FLOAT;
    a->f = v;
}

static void tc_attr_s(tcase* tc, const char* name, const char* v) {
    int k = tc->n_attr++;
    aicf_attr* a = &tc->attrs[k];
    memset(a, 0, sizeof *a);
    snprintf(tc->strs[k], sizeof tc->strs[k], "%s", v);
    a->name = name;
    a->type = AICF_ATTR_STRING;
    a->s = tc->strs[k];
}

static void tc_attr_ints(tcase* tc, const char* name, int n, const int64_t* v) {
    int k = tc->n_attr++, i;
    aicf_attr* a = &tc->attrs[k];
    memset(a, 0, sizeof *a);
    for (i = 0; i < n; i++) tc->ints[k][i] = v[i];
    a->name = name;
    a->type = AICF_ATTR_INTS;
    a->ints = tc->ints[k];
    a->count = n;
}

static const char* prec_name(aicf_precision p) {
    return p == AICF_PRECISION_FP16 ? "fp16" : p == AICF_PRECISION_TF32 ? "tf32" : "fp32";
}

static double tol_of(aicf_precision p) {
    return p == AICF_PRECISION_FP16 ? 1e-2 : p == AICF_PRECISION_TF32 ? 5e-3 : 1e-5;
}

/* Kernels a CUDA plan launches (from the lowering's per-step program), recorded as hit and
   written into buf. */
static void plan_kernels(const aicf_plan* p, char* buf, size_t cap) {
    int s, k;
    size_t len = 0;
    buf[0] = 0;
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        if (g_verbose) printf("    step %d: %s  grid %u,%u,%u block %u,%u,%u  -- %s\n", s, st->kernel, st->grid[0], st->grid[1],
                              st->grid[2], st->block[0], st->block[1], st->block[2], st->reason);
        if (pr) { /* every launch of the step, in order */
            const aicf__cuo_op* ops = aicf__cuo_prog_ops(pr);
            for (k = 0; k < pr->n_ops; k++) {
                const char* nm = ops[k].kind == AICF__CUO_MATMUL ? "cublasLt:matmul" : "memcpy";
                if (ops[k].kind == AICF__CUO_KERNEL) {
                    int ki = ops[k].kernel_index;
                    if (ki < 0 || ki >= AICF__KT_NUM_KERNELS) continue;
                    g_hits[ki]++;
                    nm = aicf__kt_kernels[ki].name;
                }
                if (len + 80 < cap) len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? " " : "", nm);
            }
        } else if (len + 40 < cap && strcmp(st->kernel, "alias") != 0) { /* empty */
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? " " : "", st->kernel);
        }
    }
}

/* Plans g on `backend`, runs it on the inputs, returns the output (malloc'd floats) and its
   element count. On the CUDA plan, fills kernels[]. */
static aicf_result run_graph(aicf_graph* g, aicf_backend backend, aicf_precision prec, float* const* inputs,
                             const char* const* in_names, int n_inputs, float** out, size_t* out_n, aicf_dtype* out_dt,
                             char* kernels, size_t kcap, aicf_plan** keep_plan) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_tensor_info oi;
    aicf_result r;
    int i;
    memset(&pd, 0, sizeof pd);
    pd.backend = backend;
    pd.policy.precision = prec;
    *out = NULL;
    if ((r = aicf_plan_create(g, &pd, &p)) != AICF_SUCCESS) return r;
    if (kernels) plan_kernels(p, kernels, kcap);
    if ((r = aicf_exec_create(p, NULL, &e)) != AICF_SUCCESS) goto done;
    for (i = 0; i < n_inputs; i++) {
        int idx = aicf_plan_find_input(p, in_names[i]);
        aicf_tensor_info ii;
        if (idx < 0) {
            r = AICF_ERROR_NOT_FOUND;
            goto done;
        }
        aicf_plan_input_info(p, idx, &ii);
        if ((r = aicf_exec_set_input(e, idx, inputs[i], ii.bytes)) != AICF_SUCCESS) goto done;
    }
    if (g_plan_only && backend == AICF_BACKEND_CUDA) goto done;
    if ((r = aicf_exec_run(e)) != AICF_SUCCESS) goto done;
    if ((r = aicf_plan_output_info(p, 0, &oi)) != AICF_SUCCESS) goto done;
    {
        size_t es = aicf_dtype_size(oi.dtype), n = es ? oi.bytes / es : 0, k;
        void* raw = malloc(oi.bytes + 1);
        float* f = (float*)malloc(sizeof(float) * (n + 1));
        if ((r = aicf_exec_get_output(e, 0, raw, oi.bytes)) == AICF_SUCCESS) {
            for (k = 0; k < n; k++)
                f[k] = oi.dtype == AICF_DTYPE_FLOAT16 ? aicf__f16_to_f32(((const uint16_t*)raw)[k]) : ((const float*)raw)[k];
            *out = f;
            *out_n = n;
            *out_dt = oi.dtype;
        } else {
            free(f);
        }
        free(raw);
    }
done:
    aicf_exec_destroy(e);
    if (keep_plan && r == AICF_SUCCESS) *keep_plan = p;
    else aicf_plan_destroy(p);
    return r;
}

/* Norm-relative error; -1 when the GPU output has a NaN/Inf where the reference is finite. */
static double rel_err(const float* got, const float* ref, size_t n, double* maxabs) {
    double num = 0, den = 0;
    size_t i;
    *maxabs = 0;
    for (i = 0; i < n; i++) {
        double d;
        if (!isfinite(got[i]) && isfinite(ref[i])) return -1.0;
        if (isnan(ref[i]) && !isnan(got[i])) return -1.0;
        if (!isfinite(ref[i])) continue;
        d = (double)got[i] - (double)ref[i];
        num += d * d;
        den += (double)ref[i] * ref[i];
        if (fabs(d) > *maxabs) *maxabs = fabs(d);
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void run_case(tcase* tc) {
    aicf_context* ctx = tc->no_lt ? g_ctx_nolt : g_ctx;
    aicf_graph* g = NULL;
    float* data[MAXIN];
    float* inputs[MAXIN];
    const char* in_names[MAXIN];
    const char* node_in[MAXIN];
    const char* node_out[1] = {"y"};
    int n_inputs = 0, i;
    float *ref = NULL, *got = NULL;
    size_t nref = 0, ngot = 0;
    aicf_dtype dref, dgot;
    char kernels[1024], msg[1600];
    aicf_result r;
    memset(data, 0, sizeof data);
    if (!ctx) return;
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", tc->opset);
    for (i = 0; i < tc->n_in; i++) {
        tin* t = &tc->in[i];
        aicf_tensor_desc d;
        int64_t n = 1, k;
        node_in[i] = t->name;
        if (!t->name[0]) continue;
        for (k = 0; k < t->rank; k++) n *= t->dims[k];
        data[i] = (float*)malloc(sizeof(float) * (size_t)(n + 1));
        for (k = 0; k < n; k++) data[i][k] = rndf(t->lo, t->hi);
        memset(&d, 0, sizeof d);
        d.name = t->name;
        d.dtype = AICF_DTYPE_FLOAT32;
        d.rank = t->rank;
        d.dims = t->dims;
        if (t->is_const) {
            d.data = data[i];
            d.data_bytes = sizeof(float) * (size_t)n;
            r = aicf_graph_add_constant(g, &d);
        } else {
            r = aicf_graph_add_input(g, &d);
            inputs[n_inputs] = data[i];
            in_names[n_inputs++] = t->name;
        }
        if (r != AICF_SUCCESS) {
            CHECK(0, "%s: building input %d: %s", tc->name, i, aicf_last_error(ctx));
            goto done;
        }
    }
    {
        aicf_node_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.name = "n0";
        nd.op_type = tc->op;
        nd.inputs = node_in;
        nd.num_inputs = tc->n_in;
        nd.outputs = node_out;
        nd.num_outputs = 1;
        nd.attrs = tc->attrs;
        nd.num_attrs = tc->n_attr;
        if ((r = aicf_graph_add_node(g, &nd)) != AICF_SUCCESS || (r = aicf_graph_add_output(g, "y")) != AICF_SUCCESS) {
            CHECK(0, "%s: building the node: %s", tc->name, aicf_last_error(ctx));
            goto done;
        }
    }
    r = run_graph(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, inputs, in_names, n_inputs, &ref, &nref, &dref, NULL, 0, NULL);
    if (r != AICF_SUCCESS) {
        CHECK(0, "%s: CPU reference: %s", tc->name, aicf_last_error(ctx));
        goto done;
    }
    r = run_graph(g, AICF_BACKEND_CUDA, tc->prec, inputs, in_names, n_inputs, &got, &ngot, &dgot, kernels, sizeof kernels, NULL);
    if (r != AICF_SUCCESS) {
        CHECK(0, "%s: CUDA: %s (%s)", tc->name, aicf_result_str(r), aicf_last_error(ctx));
        goto done;
    }
    if (g_plan_only) {
        int ok = !tc->expect || strstr(kernels, tc->expect) != NULL;
        CHECK(ok, "%s: expected kernel %s, the plan launched: %s", tc->name, tc->expect, kernels);
        if (ok) printf("ok   %s [%s] planned: %s\n", tc->name, prec_name(tc->prec), kernels);
        goto done;
    }
    {
        double maxabs, e = ngot == nref ? rel_err(got, ref, nref, &maxabs) : -2.0;
        int ok = e >= 0 && e <= tol_of(tc->prec);
        if (tc->expect && !strstr(kernels, tc->expect)) {
            CHECK(0, "%s: expected kernel %s, the plan launched: %s", tc->name, tc->expect, kernels);
            goto done;
        }
        snprintf(msg, sizeof msg, "%s [%s] rel err %.3g (max abs %.3g, %zu elements): %s", tc->name, prec_name(tc->prec), e,
                 e >= 0 ? maxabs : 0.0, nref, kernels);
        CHECK(ok, "%s%s", msg, e == -1 ? " -- NaN/Inf in the GPU output" : e == -2 ? " -- output sizes differ" : "");
        if (ok) printf("ok   %s\n", msg);
    }
done:
    free(ref);
    free(got);
    for (i = 0; i < MAXIN; i++) free(data[i]);
    aicf_graph_destroy(g);
}

/* Runs a GEMM-shaped case with cuBLASLt and again on the generated-kernel context. */
static void run_case_both(tcase* tc, const char* gen_expect) {
    tcase t2 = *tc;
    int i;
    if (g_have_lt) run_case(tc);
    t2.no_lt = 1;
    t2.expect = gen_expect;
    for (i = 0; i < t2.n_attr; i++) { /* re-point owned storage into the copy */
        if (t2.attrs[i].type == AICF_ATTR_INTS) t2.attrs[i].ints = t2.ints[i];
        if (t2.attrs[i].type == AICF_ATTR_STRING) t2.attrs[i].s = t2.strs[i];
    }
    snprintf(t2.name + strlen(t2.name), sizeof t2.name - strlen(t2.name), " (no cuBLASLt)");
    run_case(&t2);
}

static const int64_t* D(int n, ...) {
    static int64_t buf[16][AICF_MAX_RANK];
    static int slot;
    int64_t* d = buf[slot++ & 15];
    va_list ap;
    int i;
    va_start(ap, n);
    for (i = 0; i < n; i++) d[i] = va_arg(ap, int64_t);
    va_end(ap);
    return d;
}
#define DIMS(...) D(__VA_ARGS__)
#define I64(x) ((int64_t)(x))

/* ---- the cases ---- */

static const aicf_precision PRECS[2] = {AICF_PRECISION_FP32, AICF_PRECISION_FP16};

static void cases_unary(void) {
    static const struct {
        const char* op;
        const char* fn;
        float lo, hi;
    } U[] = {{"Relu", "relu", -2, 2},          {"Tanh", "tanh", -3, 3},          {"Sigmoid", "sigmoid", -6, 6},
             {"Exp", "exp", -3, 3},            {"Log", "log", 0.05f, 5},         {"Sqrt", "sqrt", 0.01f, 9},
             {"Neg", "neg", -2, 2},            {"Abs", "abs", -2, 2},            {"Reciprocal", "reciprocal", 0.5f, 3},
             {"Erf", "erf", -2.5f, 2.5f},      {"LeakyRelu", "leaky_relu", -2, 2}, {"Elu", "elu", -3, 2},
             {"HardSigmoid", "hard_sigmoid", -6, 6}, {"HardSwish", "hard_swish", -5, 5}, {"Clip", "clip", -3, 3}};
    int u, p, v;
    tcase tc;
    char expect[96];
    for (u = 0; u < (int)(sizeof U / sizeof U[0]); u++)
        for (p = 0; p < 2; p++)
            for (v = 0; v < 2; v++) {
                /* vec4: 2*3*8*8 = 384 elements; scalar: 3*5*7 = 105 */
                tc_new(&tc, U[u].op, PRECS[p], "%s %s", U[u].op, v ? "[2,3,8,8]" : "[3,5,7]");
                if (v) tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(8), I64(8)), 0, U[u].lo, U[u].hi);
                else tc_in(&tc, "x", 3, DIMS(3, I64(3), I64(5), I64(7)), 0, U[u].lo, U[u].hi);
                if (!strcmp(U[u].op, "LeakyRelu")) tc_attr_f(&tc, "alpha", 0.07f);
                if (!strcmp(U[u].op, "Elu")) tc_attr_f(&tc, "alpha", 0.8f);
                if (!strcmp(U[u].op, "HardSigmoid")) {
                    tc_attr_f(&tc, "alpha", 0.3f);
                    tc_attr_f(&tc, "beta", 0.4f);
                }
                if (!strcmp(U[u].op, "Clip")) {
                    if (v) { /* opset 13: min and max from constant inputs */
                        tc_in(&tc, "lo", 0, NULL, 1, -1.2f, -0.8f);
                        tc_in(&tc, "hi", 0, NULL, 1, 0.8f, 1.2f);
                    } else { /* opset 6: from attributes */
                        tc.opset = 6;
                        tc_attr_f(&tc, "min", -0.5f);
                        tc_attr_f(&tc, "max", 1.5f);
                    }
                }
                snprintf(expect, sizeof expect, "aicf_unary_%s_%s_v%d", U[u].fn, p ? "f16" : "f32", v ? 4 : 1);
                tc.expect = expect;
                run_case(&tc);
            }
    /* Clip with only a max (min omitted) */
    tc_new(&tc, "Clip", AICF_PRECISION_FP32, "Clip max only [4,16]");
    tc_in(&tc, "x", 2, DIMS(2, I64(4), I64(16)), 0, -3, 3);
    tc_omit(&tc);
    tc_in(&tc, "hi", 0, NULL, 1, 0.5f, 1.0f);
    tc.expect = "aicf_unary_clip_f32_v4";
    run_case(&tc);
}

static void cases_binary(void) {
    static const struct {
        const char* op;
        const char* fn;
        float alo, ahi, blo, bhi;
    } B[] = {{"Add", "add", -2, 2, -2, 2}, {"Sub", "sub", -2, 2, -2, 2}, {"Mul", "mul", -2, 2, -2, 2},
             {"Div", "div", -2, 2, 0.5f, 2}, {"Pow", "pow", 0.3f, 2, -2, 2}, {"Max", "max", -2, 2, -2, 2},
             {"Min", "min", -2, 2, -2, 2}};
    int b, p, v;
    tcase tc;
    char expect[96];
    for (b = 0; b < (int)(sizeof B / sizeof B[0]); b++)
        for (p = 0; p < 2; p++)
            for (v = 0; v < 3; v++) {
                const char* dt = p ? "f16" : "f32";
                tc_new(&tc, B[b].op, PRECS[p], "%s %s", B[b].op,
                       v == 0 ? "[4,8,16]+[4,8,16]" : v == 1 ? "[3,5,7]+[1] (B one element)" : "[4,1,16]+[3,1]");
                if (v == 0) {
                    tc_in(&tc, "a", 3, DIMS(3, I64(4), I64(8), I64(16)), 0, B[b].alo, B[b].ahi);
                    tc_in(&tc, "b", 3, DIMS(3, I64(4), I64(8), I64(16)), 0, B[b].blo, B[b].bhi);
                    snprintf(expect, sizeof expect, "aicf_binary_%s_%s_flat_v4", B[b].fn, dt);
                } else if (v == 1) {
                    tc_in(&tc, "a", 3, DIMS(3, I64(3), I64(5), I64(7)), 0, B[b].alo, B[b].ahi);
                    tc_in(&tc, "b", 1, DIMS(1, I64(1)), 1, B[b].blo, B[b].bhi);
                    snprintf(expect, sizeof expect, "aicf_binary_%s_%s_flat_v1", B[b].fn, dt);
                } else {
                    tc_in(&tc, "a", 3, DIMS(3, I64(4), I64(1), I64(16)), 0, B[b].alo, B[b].ahi);
                    tc_in(&tc, "b", 2, DIMS(2, I64(3), I64(1)), 0, B[b].blo, B[b].bhi);
                    snprintf(expect, sizeof expect, "aicf_binary_%s_%s_bcast", B[b].fn, dt);
                }
                tc.expect = expect;
                run_case(&tc);
            }
    /* variadic Sum/Max/Min of 3 inputs with broadcasting (a chain of binary kernels) */
    {
        static const char* V[3] = {"Sum", "Max", "Min"};
        for (b = 0; b < 3; b++) {
            tc_new(&tc, V[b], AICF_PRECISION_FP32, "%s of [2,1,8], [3,8], [2,3,8]", V[b]);
            tc_in(&tc, "a", 3, DIMS(3, I64(2), I64(1), I64(8)), 0, -2, 2);
            tc_in(&tc, "b", 2, DIMS(2, I64(3), I64(8)), 0, -2, 2);
            tc_in(&tc, "c", 3, DIMS(3, I64(2), I64(3), I64(8)), 0, -2, 2);
            run_case(&tc);
        }
    }
    /* opset 6 legacy broadcast: B aligned at axis 1 */
    tc_new(&tc, "Add", AICF_PRECISION_FP32, "Add opset 6 broadcast=1 axis=1 [2,3,4,5]+[3,4]");
    tc.opset = 6;
    tc_in(&tc, "a", 4, DIMS(4, I64(2), I64(3), I64(4), I64(5)), 0, -2, 2);
    tc_in(&tc, "b", 2, DIMS(2, I64(3), I64(4)), 1, -2, 2);
    tc_attr_i(&tc, "broadcast", 1);
    tc_attr_i(&tc, "axis", 1);
    tc.expect = "aicf_binary_add_f32_bcast";
    run_case(&tc);
    /* a per-channel bias [1,C,1,1] on NCHW (rank-3 collapsed broadcast) */
    tc_new(&tc, "Mul", AICF_PRECISION_FP16, "Mul [2,6,5,5]*[1,6,1,1]");
    tc_in(&tc, "a", 4, DIMS(4, I64(2), I64(6), I64(5), I64(5)), 0, -2, 2);
    tc_in(&tc, "b", 4, DIMS(4, I64(1), I64(6), I64(1), I64(1)), 1, -2, 2);
    tc.expect = "aicf_binary_mul_f16_bcast";
    run_case(&tc);
}

static void cases_conv(void) {
    int p;
    tcase tc;
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        char expect[96];
        /* depthwise 3x3 stride 2: one output channel per group -> direct */
        tc_new(&tc, "Conv", PRECS[p], "Conv depthwise [1,8,10,10] w[8,1,3,3] g8 s2 p1");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(8), I64(10), I64(10)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(8), I64(1), I64(3), I64(3)), 1, -1, 1);
        tc_in(&tc, "b", 1, DIMS(1, I64(8)), 1, -1, 1);
        tc_attr_i(&tc, "group", 8);
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        snprintf(expect, sizeof expect, "aicf_conv2d_direct_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        /* 3x3 with 16 -> 32 channels, batch 2: implicit GEMM */
        tc_new(&tc, "Conv", PRECS[p], "Conv [2,16,12,12] w[32,16,3,3] p1 bias");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(16), I64(12), I64(12)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(32), I64(16), I64(3), I64(3)), 1, -0.3f, 0.3f);
        tc_in(&tc, "b", 1, DIMS(1, I64(32)), 1, -1, 1);
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        snprintf(expect, sizeof expect, "aicf_conv2d_igemm_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        /* grouped, dilated, SAME_UPPER, asymmetric stride: implicit GEMM over 2 groups */
        tc_new(&tc, "Conv", PRECS[p], "Conv [2,32,9,11] w[32,16,3,3] g2 d2 SAME_UPPER s(1,2)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(32), I64(9), I64(11)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(32), I64(16), I64(3), I64(3)), 1, -0.3f, 0.3f);
        tc_attr_i(&tc, "group", 2);
        tc_attr_ints(&tc, "dilations", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(1), I64(2)));
        tc_attr_s(&tc, "auto_pad", "SAME_UPPER");
        snprintf(expect, sizeof expect, "aicf_conv2d_igemm_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        /* 1-D conv (as 2-D with H = 1), dilation 2, asymmetric pads */
        tc_new(&tc, "Conv", PRECS[p], "Conv 1-D [2,4,20] w[6,4,3] d2 pads(1,2)");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(4), I64(20)), 0, -1, 1);
        tc_in(&tc, "w", 3, DIMS(3, I64(6), I64(4), I64(3)), 1, -1, 1);
        tc_attr_ints(&tc, "dilations", 1, DIMS(1, I64(2)));
        tc_attr_ints(&tc, "pads", 2, DIMS(2, I64(1), I64(2)));
        snprintf(expect, sizeof expect, "aicf_conv2d_direct_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        /* pointwise 1x1 with bias: cuBLASLt + bias kernel, or the implicit GEMM without it */
        tc_new(&tc, "Conv", PRECS[p], "Conv 1x1 [2,16,7,7] w[24,16,1,1] bias");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(16), I64(7), I64(7)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(24), I64(16), I64(1), I64(1)), 1, -0.5f, 0.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(24)), 1, -1, 1);
        tc.expect = "cublasLt:matmul";
        snprintf(expect, sizeof expect, "aicf_conv2d_igemm_%s", dt);
        run_case_both(&tc, expect);
        /* BatchNormalization standalone */
        tc_new(&tc, "BatchNormalization", PRECS[p], "BatchNormalization [2,6,5,5]");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(6), I64(5), I64(5)), 0, -2, 2);
        tc_in(&tc, "scale", 1, DIMS(1, I64(6)), 1, 0.5f, 1.5f);
        tc_in(&tc, "bias", 1, DIMS(1, I64(6)), 1, -1, 1);
        tc_in(&tc, "mean", 1, DIMS(1, I64(6)), 1, -0.5f, 0.5f);
        tc_in(&tc, "var", 1, DIMS(1, I64(6)), 1, 0.5f, 2);
        tc_attr_f(&tc, "epsilon", 1e-3f);
        snprintf(expect, sizeof expect, "aicf_batchnorm_%s", dt);
        tc.expect = expect;
        run_case(&tc);
    }
    /* BatchNormalization opset 7, spatial = 0: parameters per activation */
    tc_new(&tc, "BatchNormalization", AICF_PRECISION_FP32, "BatchNormalization opset 7 spatial=0 [3,4,2,2]");
    tc.opset = 7;
    tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(4), I64(2), I64(2)), 0, -2, 2);
    tc_in(&tc, "scale", 3, DIMS(3, I64(4), I64(2), I64(2)), 1, 0.5f, 1.5f);
    tc_in(&tc, "bias", 3, DIMS(3, I64(4), I64(2), I64(2)), 1, -1, 1);
    tc_in(&tc, "mean", 3, DIMS(3, I64(4), I64(2), I64(2)), 1, -0.5f, 0.5f);
    tc_in(&tc, "var", 3, DIMS(3, I64(4), I64(2), I64(2)), 1, 0.5f, 2);
    tc_attr_i(&tc, "spatial", 0);
    tc.expect = "aicf_batchnorm_f32";
    run_case(&tc);
}

static void cases_gemm(void) {
    int p;
    tcase tc;
    for (p = 0; p < 3; p++) {
        aicf_precision pr = p == 0 ? AICF_PRECISION_FP32 : p == 1 ? AICF_PRECISION_FP16 : AICF_PRECISION_TF32;
        const char* dt = p == 1 ? "f16" : "f32";
        char e16[96], e64[96];
        snprintf(e16, sizeof e16, "aicf_gemm_t16_%s", dt);
        snprintf(e64, sizeof e64, "aicf_gemm_t64_%s", dt);
        /* Gemm, C as a row bias (beta = 1 -> cuBLASLt bias epilogue) */
        tc_new(&tc, "Gemm", pr, "Gemm [5,33]x[33,7]+C[7]");
        tc_in(&tc, "a", 2, DIMS(2, I64(5), I64(33)), 0, -1, 1);
        tc_in(&tc, "b", 2, DIMS(2, I64(33), I64(7)), 1, -1, 1);
        tc_in(&tc, "c", 1, DIMS(1, I64(7)), 1, -1, 1);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e16);
        /* transA, transB, alpha, beta, C [M,1] broadcast (cuBLASLt: broadcast copy first) */
        tc_new(&tc, "Gemm", pr, "Gemm transA transB alpha=0.7 beta=-1.3 [40,30]^T x [50,40]^T + C[30,1]");
        tc_in(&tc, "a", 2, DIMS(2, I64(40), I64(30)), 0, -1, 1);
        tc_in(&tc, "b", 2, DIMS(2, I64(50), I64(40)), 1, -1, 1);
        tc_in(&tc, "c", 2, DIMS(2, I64(30), I64(1)), 1, -1, 1);
        tc_attr_i(&tc, "transA", 1);
        tc_attr_i(&tc, "transB", 1);
        tc_attr_f(&tc, "alpha", 0.7f);
        tc_attr_f(&tc, "beta", -1.3f);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e16);
        /* full C [M,N], beta 0.5, large enough for the 64x64 tiles (16 x 8 = 128 tiles) */
        tc_new(&tc, "Gemm", pr, "Gemm [1024,64]x[64,512]+0.5*C[1024,512]");
        tc_in(&tc, "a", 2, DIMS(2, I64(1024), I64(64)), 0, -1, 1);
        tc_in(&tc, "b", 2, DIMS(2, I64(64), I64(512)), 1, -1, 1);
        tc_in(&tc, "c", 2, DIMS(2, I64(1024), I64(512)), 0, -1, 1);
        tc_attr_f(&tc, "beta", 0.5f);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e64);
        if (pr == AICF_PRECISION_TF32) continue;
        /* MatMul: batch folded into M (B 2-D) */
        tc_new(&tc, "MatMul", pr, "MatMul [2,3,9,17]x[17,13]");
        tc_in(&tc, "a", 4, DIMS(4, I64(2), I64(3), I64(9), I64(17)), 0, -1, 1);
        tc_in(&tc, "b", 2, DIMS(2, I64(17), I64(13)), 0, -1, 1);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e16);
        /* MatMul batched on both sides */
        tc_new(&tc, "MatMul", pr, "MatMul [4,12,20]x[4,20,24]");
        tc_in(&tc, "a", 3, DIMS(3, I64(4), I64(12), I64(20)), 0, -1, 1);
        tc_in(&tc, "b", 3, DIMS(3, I64(4), I64(20), I64(24)), 0, -1, 1);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e16);
        /* MatMul: A 2-D, B batched (A broadcast, batch stride 0) */
        tc_new(&tc, "MatMul", pr, "MatMul [12,20]x[3,20,8]");
        tc_in(&tc, "a", 2, DIMS(2, I64(12), I64(20)), 0, -1, 1);
        tc_in(&tc, "b", 3, DIMS(3, I64(3), I64(20), I64(8)), 0, -1, 1);
        tc.expect = NULL;
        run_case_both(&tc, e16);
        /* MatMul: batch dims broadcast both ways -> repeated batched GEMMs */
        tc_new(&tc, "MatMul", pr, "MatMul [2,1,6,10]x[1,3,10,5]");
        tc_in(&tc, "a", 4, DIMS(4, I64(2), I64(1), I64(6), I64(10)), 0, -1, 1);
        tc_in(&tc, "b", 4, DIMS(4, I64(1), I64(3), I64(10), I64(5)), 0, -1, 1);
        tc.expect = NULL;
        run_case_both(&tc, e16);
        /* MatMul: 1-D operands */
        tc_new(&tc, "MatMul", pr, "MatMul [30]x[2,30,7]");
        tc_in(&tc, "a", 1, DIMS(1, I64(30)), 0, -1, 1);
        tc_in(&tc, "b", 3, DIMS(3, I64(2), I64(30), I64(7)), 0, -1, 1);
        tc.expect = NULL;
        run_case_both(&tc, e16);
        tc_new(&tc, "MatMul", pr, "MatMul [3,5,30]x[30]");
        tc_in(&tc, "a", 3, DIMS(3, I64(3), I64(5), I64(30)), 0, -1, 1);
        tc_in(&tc, "b", 1, DIMS(1, I64(30)), 0, -1, 1);
        tc.expect = NULL;
        run_case_both(&tc, e16);
        /* MatMul with a batch big enough for the 64x64 tiles: [8,256,64]x[8,64,256] */
        tc_new(&tc, "MatMul", pr, "MatMul [8,256,64]x[8,64,256]");
        tc_in(&tc, "a", 3, DIMS(3, I64(8), I64(256), I64(64)), 0, -1, 1);
        tc_in(&tc, "b", 3, DIMS(3, I64(8), I64(64), I64(256)), 0, -1, 1);
        tc.expect = "cublasLt:matmul";
        run_case_both(&tc, e64);
    }
}

static void cases_pool(void) {
    int p;
    tcase tc;
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        char expect[96];
        snprintf(expect, sizeof expect, "aicf_maxpool2d_%s", dt);
        tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [2,3,11,11] k3 s2 p1");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(11), I64(11)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [1,4,12,10] k(2,3) d2 ceil_mode");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(4), I64(12), I64(10)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(2), I64(3)));
        tc_attr_ints(&tc, "dilations", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_i(&tc, "ceil_mode", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_avgpool2d_%s", dt);
        tc_new(&tc, "AveragePool", PRECS[p], "AveragePool [2,3,9,9] k3 s2 p(1,1,0,0)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(9), I64(9)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(0), I64(0)));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "AveragePool", PRECS[p], "AveragePool count_include_pad ceil_mode [1,2,10,10] k3 s2 p1");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(2), I64(10), I64(10)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        tc_attr_i(&tc, "count_include_pad", 1);
        tc_attr_i(&tc, "ceil_mode", 1);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "AveragePool", PRECS[p], "AveragePool 1-D [2,3,17] k4 s3");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(17)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 1, DIMS(1, I64(4)));
        tc_attr_ints(&tc, "strides", 1, DIMS(1, I64(3)));
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_rowmean_%s", dt);
        tc_new(&tc, "GlobalAveragePool", PRECS[p], "GlobalAveragePool [2,5,23,23]");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(5), I64(23), I64(23)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_lrn_%s", dt);
        tc_new(&tc, "LRN", PRECS[p], "LRN [2,7,5,5] size 4");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(7), I64(5), I64(5)), 0, -2, 2);
        tc_attr_i(&tc, "size", 4);
        tc_attr_f(&tc, "alpha", 2e-3f);
        tc_attr_f(&tc, "beta", 0.6f);
        tc_attr_f(&tc, "bias", 1.5f);
        tc.expect = expect;
        run_case(&tc);
    }
}

static void cases_softmax_layout(void) {
    int p;
    tcase tc;
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        char expect[96];
        snprintf(expect, sizeof expect, "aicf_softmax_warp_%s", dt);
        tc_new(&tc, "Softmax", PRECS[p], "Softmax [6,100] axis -1");
        tc_in(&tc, "x", 2, DIMS(2, I64(6), I64(100)), 0, -4, 4);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_softmax_block_%s", dt);
        tc_new(&tc, "Softmax", PRECS[p], "Softmax [3,2000]");
        tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(2000)), 0, -4, 4);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_softmax_strided_%s", dt);
        tc_new(&tc, "Softmax", PRECS[p], "Softmax [4,10,6] axis 1");
        tc_in(&tc, "x", 3, DIMS(3, I64(4), I64(10), I64(6)), 0, -4, 4);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_softmax_warp_%s", dt);
        tc_new(&tc, "Softmax", PRECS[p], "Softmax opset 11 [2,3,4,5] axis 1 (coerced 2-D)");
        tc.opset = 11;
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(5)), 0, -4, 4);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_permute_%s", dt);
        tc_new(&tc, "Transpose", PRECS[p], "Transpose [2,3,4,5] perm (3,1,0,2)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(5)), 0, -2, 2);
        tc_attr_ints(&tc, "perm", 4, DIMS(4, I64(3), I64(1), I64(0), I64(2)));
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_transpose2d_%s", dt);
        tc_new(&tc, "Transpose", PRECS[p], "Transpose [3,40,50] perm (0,2,1)");
        tc_in(&tc, "x", 3, DIMS(3, I64(3), I64(40), I64(50)), 0, -2, 2);
        tc_attr_ints(&tc, "perm", 3, DIMS(3, I64(0), I64(2), I64(1)));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Transpose", PRECS[p], "Transpose [2,1,33,1,70] default perm");
        tc_in(&tc, "x", 5, DIMS(5, I64(2), I64(1), I64(33), I64(1), I64(70)), 0, -2, 2);
        tc.expect = NULL;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_copy2d_%s_v4", dt);
        tc_new(&tc, "Concat", PRECS[p], "Concat axis 1 [2,3,4],[2,5,4]");
        tc_in(&tc, "a", 3, DIMS(3, I64(2), I64(3), I64(4)), 0, -2, 2);
        tc_in(&tc, "b", 3, DIMS(3, I64(2), I64(5), I64(4)), 0, -2, 2);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_copy2d_%s_v1", dt);
        tc_new(&tc, "Concat", PRECS[p], "Concat axis -1 [3,2,3],[3,2,2],[3,2,1]");
        tc_in(&tc, "a", 3, DIMS(3, I64(3), I64(2), I64(3)), 0, -2, 2);
        tc_in(&tc, "b", 3, DIMS(3, I64(3), I64(2), I64(2)), 1, -2, 2);
        tc_in(&tc, "c", 3, DIMS(3, I64(3), I64(2), I64(1)), 0, -2, 2);
        tc_attr_i(&tc, "axis", -1);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Concat", PRECS[p], "Concat axis 0 [2,5],[3,5]");
        tc_in(&tc, "a", 2, DIMS(2, I64(2), I64(5)), 0, -2, 2);
        tc_in(&tc, "b", 2, DIMS(2, I64(3), I64(5)), 0, -2, 2);
        tc_attr_i(&tc, "axis", 0);
        tc.expect = "memcpy";
        run_case(&tc);
    }
    /* aliasing ops: the output shares the input's storage, nothing runs */
    tc_new(&tc, "Identity", AICF_PRECISION_FP32, "Identity [7,3]");
    tc_in(&tc, "x", 2, DIMS(2, I64(7), I64(3)), 0, -2, 2);
    run_case(&tc);
    tc_new(&tc, "Flatten", AICF_PRECISION_FP16, "Flatten [2,3,4] axis 2");
    tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(4)), 0, -2, 2);
    tc_attr_i(&tc, "axis", 2);
    run_case(&tc);
    tc_new(&tc, "Cast", AICF_PRECISION_FP32, "Cast float -> float16 [5,9]");
    tc_in(&tc, "x", 2, DIMS(2, I64(5), I64(9)), 0, -2, 2);
    tc_attr_i(&tc, "to", AICF_DTYPE_FLOAT16);
    tc.expect = "aicf_cast_f32_f16_v1";
    run_case(&tc);
}

/* ---- error paths of the lowering ---- */
static void test_errors(void) {
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_tensor_desc d;
    aicf_node_desc nd;
    int64_t dims[2] = {3, 4}, d5[5] = {1, 2, 4, 4, 4}, w5[5] = {2, 2, 1, 1, 1};
    float wdata[4];
    const char* in2[2] = {"a", "b"};
    const char* out1[1] = {"y"};
    aicf_result r;
    int i;
    for (i = 0; i < 4; i++) wdata[i] = rndf(-1, 1);
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    /* integer Add on the device */
    aicf_graph_create(g_ctx, &g);
    memset(&d, 0, sizeof d);
    d.dtype = AICF_DTYPE_INT64;
    d.rank = 2;
    d.dims = dims;
    d.name = "a";
    aicf_graph_add_input(g, &d);
    d.name = "b";
    aicf_graph_add_input(g, &d);
    memset(&nd, 0, sizeof nd);
    nd.name = "int_add";
    nd.op_type = "Add";
    nd.inputs = in2;
    nd.num_inputs = 2;
    nd.outputs = out1;
    nd.num_outputs = 1;
    aicf_graph_add_node(g, &nd);
    aicf_graph_add_output(g, "y");
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(g_ctx), "node 0 'int_add' (Add)") &&
              strstr(aicf_last_error(g_ctx), "int64"),
          "int64 Add on the device: %s / %s", aicf_result_str(r), aicf_last_error(g_ctx));
    aicf_plan_destroy(p);
    p = NULL;
    aicf_graph_destroy(g);
    /* 3-D convolution */
    aicf_graph_create(g_ctx, &g);
    memset(&d, 0, sizeof d);
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = 5;
    d.dims = d5;
    d.name = "a";
    aicf_graph_add_input(g, &d);
    d.dims = w5;
    d.name = "b";
    d.data = wdata;
    d.data_bytes = sizeof wdata;
    aicf_graph_add_constant(g, &d);
    nd.name = "conv3d";
    nd.op_type = "Conv";
    aicf_graph_add_node(g, &nd);
    aicf_graph_add_output(g, "y");
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(g_ctx), "node 0 'conv3d' (Conv)") &&
              strstr(aicf_last_error(g_ctx), "3-D"),
          "3-D conv on the device: %s / %s", aicf_result_str(r), aicf_last_error(g_ctx));
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
}

static void add_t(aicf_graph* g, const char* name, int rank, const int64_t* dims, const float* data, size_t bytes) {
    aicf_tensor_desc d;
    aicf_result r;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = bytes;
    r = data ? aicf_graph_add_constant(g, &d) : aicf_graph_add_input(g, &d);
    CHECK(r == AICF_SUCCESS, "tensor %s: %s", name, aicf_last_error(g_ctx));
}

static void add_n(aicf_graph* g, const char* name, const char* op, const char** in, int nin, const char** out,
                  const aicf_attr* attrs, int nattrs) {
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = nin;
    nd.outputs = out;
    nd.num_outputs = 1;
    nd.attrs = attrs;
    nd.num_attrs = nattrs;
    CHECK(aicf_graph_add_node(g, &nd) == AICF_SUCCESS, "node %s: %s", name, aicf_last_error(g_ctx));
}

/* ---- replay determinism: Conv -> Relu -> MaxPool -> Flatten -> Gemm -> Softmax ---- */
static void test_replay(aicf_precision prec) {
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    aicf_tensor_desc d;
    aicf_attr at[3];
    int64_t xd[4] = {2, 3, 16, 16}, wd[4] = {8, 3, 3, 3}, bd[1] = {8}, gd[2] = {512, 10}, cd[1] = {10};
    int64_t ks[2] = {2, 2}, pads[4] = {1, 1, 1, 1};
    float w[8 * 27], b[8], gw[512 * 10], gc[10], x[2 * 3 * 16 * 16];
    float first[20], out[20], ref[20];
    const char *cin[3] = {"x", "w", "b"}, *cout[1] = {"c"}, *rin[1] = {"c"}, *rout[1] = {"r"}, *pin[1] = {"r"},
               *pout[1] = {"m"}, *fin[1] = {"m"}, *fout[1] = {"f"}, *gin[3] = {"f", "gw", "gc"}, *gout[1] = {"z"},
               *sin_[1] = {"z"}, *sout[1] = {"y"};
    int i, bad = 0, it;
    double maxabs, e1;
    aicf_result r;
    for (i = 0; i < (int)(sizeof w / sizeof w[0]); i++) w[i] = rndf(-0.5f, 0.5f);
    for (i = 0; i < 8; i++) b[i] = rndf(-0.5f, 0.5f);
    for (i = 0; i < (int)(sizeof gw / sizeof gw[0]); i++) gw[i] = rndf(-0.1f, 0.1f);
    for (i = 0; i < 10; i++) gc[i] = rndf(-0.5f, 0.5f);
    for (i = 0; i < (int)(sizeof x / sizeof x[0]); i++) x[i] = rndf(-1, 1);
    aicf_graph_create(g_ctx, &g);
    memset(&d, 0, sizeof d);
    d.dtype = AICF_DTYPE_FLOAT32;
    add_t(g, "x", 4, xd, NULL, 0);
    add_t(g, "w", 4, wd, w, sizeof w);
    add_t(g, "b", 1, bd, b, sizeof b);
    add_t(g, "gw", 2, gd, gw, sizeof gw);
    add_t(g, "gc", 1, cd, gc, sizeof gc);
    memset(at, 0, sizeof at);
    at[0].name = "pads";
    at[0].type = AICF_ATTR_INTS;
    at[0].ints = pads;
    at[0].count = 4;
    add_n(g, "conv", "Conv", cin, 3, cout, at, 1);
    add_n(g, "relu", "Relu", rin, 1, rout, NULL, 0);
    at[0].name = "kernel_shape";
    at[0].ints = ks;
    at[0].count = 2;
    at[1].name = "strides";
    at[1].type = AICF_ATTR_INTS;
    at[1].ints = ks;
    at[1].count = 2;
    add_n(g, "pool", "MaxPool", pin, 1, pout, at, 2);
    add_n(g, "flat", "Flatten", fin, 1, fout, NULL, 0);
    add_n(g, "fc", "Gemm", gin, 3, gout, NULL, 0);
    add_n(g, "sm", "Softmax", sin_, 1, sout, NULL, 0);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "replay graph CPU plan: %s", aicf_last_error(g_ctx));
    if (r == AICF_SUCCESS) {
        aicf_exec_create(p, NULL, &e);
        aicf_exec_set_input(e, 0, x, sizeof x);
        aicf_exec_run(e);
        aicf_exec_get_output(e, 0, ref, sizeof ref);
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
    }
    e = NULL;
    p = NULL;
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = prec;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "replay graph CUDA plan: %s", aicf_last_error(g_ctx));
    if (r != AICF_SUCCESS) goto done;
    if (g_verbose) {
        char k[1024];
        plan_kernels(p, k, sizeof k);
    }
    r = aicf_exec_create(p, NULL, &e);
    CHECK(r == AICF_SUCCESS, "replay exec: %s", aicf_last_error(g_ctx));
    if (r != AICF_SUCCESS) goto done;
    aicf_exec_set_input(e, 0, x, sizeof x);
    CHECK(aicf_exec_run(e) == AICF_SUCCESS && aicf_exec_get_output(e, 0, first, sizeof first) == AICF_SUCCESS, "replay 1: %s",
          aicf_last_error(g_ctx));
    for (it = 1; it < g_replays; it++) {
        if (aicf_exec_run(e) != AICF_SUCCESS || aicf_exec_get_output(e, 0, out, sizeof out) != AICF_SUCCESS) {
            bad = -1;
            break;
        }
        if (memcmp(out, first, sizeof out) != 0) bad++;
    }
    CHECK(bad == 0, "replay [%s]: %d of %d replays differ from the first (-1: a run failed: %s)", prec_name(prec), bad,
          g_replays - 1, aicf_last_error(g_ctx));
    e1 = rel_err(first, ref, 20, &maxabs);
    CHECK(e1 >= 0 && e1 <= tol_of(prec), "replay graph [%s] vs CPU: rel err %.3g", prec_name(prec), e1);
    printf("%s replay [%s]: %d runs bitwise identical: %s, rel err vs CPU %.3g\n", bad == 0 ? "ok  " : "FAIL",
           prec_name(prec), g_replays, bad == 0 ? "yes" : "no", e1);
done:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
}

int main(int argc, char** argv) {
    aicf_context_desc cd;
    aicf_device_info info;
    uint64_t seed = (uint64_t)time(NULL);
    const char* driver = NULL;
    int i, missing = 0, op_kernels = 0;
    aicf_result r;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else if (!strcmp(argv[i], "--plan-only")) g_plan_only = 1;
        else if (!strcmp(argv[i], "--replays") && i + 1 < argc) g_replays = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--driver") && i + 1 < argc) driver = argv[++i];
    }
    g_rng = seed * 2654435761ull + 1;
    printf("test_gpu_kernels: seed %llu\n", (unsigned long long)seed);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = driver;
    aicf_context_create(&cd, &g_ctx);
    r = aicf_context_device_info(g_ctx, &info);
    if (r == AICF_ERROR_NO_DEVICE) {
        printf("SKIP no CUDA device: %s\n", aicf_last_error(g_ctx));
        printf("no CUDA device: %d skipped\n0 passed, 0 failed\n", AICF__KT_NUM_KERNELS);
        aicf_context_destroy(g_ctx);
        return 0;
    }
    CHECK(r == AICF_SUCCESS, "device info: %s", aicf_last_error(g_ctx));
    if (r != AICF_SUCCESS) goto end;
    g_have_lt = info.cublaslt_available;
    printf("device: %s (sm_%d%d), driver %d, cuBLASLt %s (%zu); kernel table: %d kernels, NVRTC %s, targets %s\n", info.name,
           info.cc_major, info.cc_minor, info.driver_version, g_have_lt ? "loaded" : "absent", info.cublaslt_version,
           AICF__KT_NUM_KERNELS, AICF__KT_NVRTC_VERSION, AICF__KT_TARGETS);
    if (!g_have_lt) printf("SKIP cuBLASLt cases: cuBLASLt is not loaded (the generated-GEMM cases still run)\n");
    cd.cublaslt_path = "/nonexistent/aicf-test/libcublasLt.so";
    aicf_context_create(&cd, &g_ctx_nolt);
    {
        aicf_device_info i2;
        r = aicf_context_device_info(g_ctx_nolt, &i2);
        CHECK(r == AICF_SUCCESS && !i2.cublaslt_available, "context without cuBLASLt: %s, cublaslt_available %d",
              aicf_last_error(g_ctx_nolt), i2.cublaslt_available);
    }
    /* every op kernel was written for 256 threads per block (81_cuda_ops.c launches that) */
    for (i = 0; i < AICF__KT_NUM_KERNELS; i++)
        if (strcmp(aicf__kt_kernels[i].op, "axpy") != 0)
            CHECK(aicf__kt_kernels[i].block == AICF__CUO_BLOCK, "kernel %s: block %u, the lowering launches %u",
                  aicf__kt_kernels[i].name, aicf__kt_kernels[i].block, AICF__CUO_BLOCK);
    cases_unary();
    cases_binary();
    cases_conv();
    cases_gemm();
    cases_pool();
    cases_softmax_layout();
    test_errors();
    if (!g_plan_only) {
        test_replay(AICF_PRECISION_FP32);
        test_replay(AICF_PRECISION_FP16);
    }
    /* coverage: every op kernel of the table launched at least once */
    for (i = 0; i < AICF__KT_NUM_KERNELS; i++) {
        if (!strcmp(aicf__kt_kernels[i].op, "axpy")) {
            printf("SKIP %s: the codegen sample kernel, not used by any op lowering\n", aicf__kt_kernels[i].name);
            continue;
        }
        op_kernels++;
        if (!g_hits[i]) {
            missing++;
            printf("FAIL kernel %s (op %s, %s, %s) was never launched by any case\n", aicf__kt_kernels[i].name,
                   aicf__kt_kernels[i].op, aicf__kt_kernels[i].dtype, aicf__kt_kernels[i].params);
        }
    }
    CHECK(missing == 0, "%d of %d op kernels never exercised", missing, op_kernels);
    printf("coverage: %d of %d op kernels exercised\n", op_kernels - missing, op_kernels);
end:
    aicf_context_destroy(g_ctx_nolt);
    aicf_context_destroy(g_ctx);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
