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
   nothing: with tests/fake_libcuda.c this checks the lowering on a machine without a GPU; the CPU suite runs it so),
   --only TEXT (only the op cases whose name contains TEXT, e.g. "Attention"; the replay tests and the coverage check
   are left out).
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
static const char* g_only; /* --only TEXT: the cases whose name contains TEXT */
static uint64_t g_rng;
static aicf_context* g_ctx;      /* CUDA with cuBLASLt (when the machine has it) */
static aicf_context* g_ctx_nolt; /* CUDA, cuBLASLt path pointing nowhere: generated GEMMs */
static int g_have_lt;
static int g_hits[AICF__KT_NUM_KERNELS + 1];
static aicf_conv_algo g_conv_algo; /* policy.conv_algo of the CUDA plans (AUTO unless a case sets it) */
static aicf_matmul_algo g_matmul_algo; /* policy.matmul_algo of the CUDA plans (AUTO unless a case sets it) */
static int g_cc;                   /* the device's compute capability, e.g. 90 */
static int g_wg;                   /* the Hopper GEMM can run here (aicf__cuda_wg_ok: cc 9.0, cuTensorMapEncodeTiled) */
static int g_no_fusion;            /* policy.no_fusion of the plans (the GEMV cases: at fp16 a lone GEMV
                                      would otherwise join its boundary Casts in an aicf_gemvp launch) */

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
    float lo, hi;     /* uniform random range (integers: [lo, hi) rounded down) */
    aicf_dtype dtype; /* FLOAT32 unless set: INT64, INT32 or BOOL for index / condition inputs */
    int64_t ivals[2 * AICF_MAX_RANK]; /* explicit integer values (n_ivals of them), else random */
    int n_ivals;
    float fvals[2 * AICF_MAX_RANK]; /* explicit float values (n_fvals of them), else random */
    int n_fvals;
    int snap;         /* float values snapped: 1 to odd multiples of 1/16 (exact in float16, never an
                         integer, a half or near a threshold of 0.4 / 0.6: Floor/Ceil/Round/Sign,
                         ThresholdedRelu, Shrink, whose steps float16 rounding could cross), 2 to multiples of 1/2 (ties for
                         Round), 3 to 1 + k/1024 (exact in float16, near 1: products) */
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
    int n_out;          /* outputs compared (all of them, concatenated); 1 unless set */
    int no_lt;          /* plan on the context without cuBLASLt */
    const char* expect; /* a kernel name (substring) the CUDA plan must launch, or NULL */
} tcase;

static tcase* tc_new(tcase* tc, const char* op, aicf_precision prec, const char* fmt, ...) {
    va_list ap;
    memset(tc, 0, sizeof *tc);
    tc->op = op;
    tc->prec = prec;
    tc->opset = 17;
    tc->n_out = 1;
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

/* An integer (INT64 / INT32) or BOOL input: n explicit values, or (n = 0) random in [lo, hi). */
static tin* tc_in_int(tcase* tc, const char* name, aicf_dtype dt, int rank, const int64_t* dims, int is_const, int n,
                      const int64_t* vals, float lo, float hi) {
    tin* t = tc_in(tc, name, rank, dims, is_const, lo, hi);
    int i;
    t->dtype = dt;
    t->n_ivals = n;
    for (i = 0; i < n && i < 2 * AICF_MAX_RANK; i++) t->ivals[i] = vals[i];
    return t;
}

/* A float32 constant with explicit values (scales, roi). */
static tin* tc_in_vals(tcase* tc, const char* name, int rank, const int64_t* dims, int n, const float* vals) {
    tin* t = tc_in(tc, name, rank, dims, 1, 0, 0);
    int i;
    t->n_fvals = n;
    for (i = 0; i < n && i < 2 * AICF_MAX_RANK; i++) t->fvals[i] = vals[i];
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
        } else if (len + 40 < cap) { /* alias (views, nothing launched) or empty */
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? " " : "", st->kernel);
        }
    }
}

/* Plans g on `backend`, runs it on the inputs, returns the output (malloc'd floats) and its
   element count. On the CUDA plan, fills kernels[]. */
static aicf_result run_graph(aicf_graph* g, aicf_backend backend, aicf_precision prec, void* const* inputs,
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
    pd.policy.conv_algo = g_conv_algo;
    pd.policy.matmul_algo = g_matmul_algo;
    pd.policy.no_fusion = g_no_fusion;
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
    { /* every output, converted to float and concatenated */
        size_t total = 0, at = 0;
        int o, no = aicf_plan_num_outputs(p);
        float* f;
        for (o = 0; o < no; o++) {
            if ((r = aicf_plan_output_info(p, o, &oi)) != AICF_SUCCESS) goto done;
            total += aicf_dtype_size(oi.dtype) ? oi.bytes / aicf_dtype_size(oi.dtype) : 0;
        }
        f = (float*)malloc(sizeof(float) * (total + 1));
        for (o = 0; o < no && r == AICF_SUCCESS; o++) {
            size_t es, n, k;
            void* raw;
            aicf_plan_output_info(p, o, &oi);
            es = aicf_dtype_size(oi.dtype);
            n = es ? oi.bytes / es : 0;
            raw = malloc(oi.bytes + 1);
            if ((r = aicf_exec_get_output(e, o, raw, oi.bytes)) == AICF_SUCCESS)
                for (k = 0; k < n; k++)
                    f[at++] = oi.dtype == AICF_DTYPE_FLOAT16 ? aicf__f16_to_f32(((const uint16_t*)raw)[k]) : ((const float*)raw)[k];
            free(raw);
            *out_dt = oi.dtype;
        }
        if (r == AICF_SUCCESS) {
            *out = f;
            *out_n = total;
        } else {
            free(f);
        }
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
    void* data[MAXIN];
    void* inputs[MAXIN];
    const char* in_names[MAXIN];
    const char* node_in[MAXIN];
    const char* node_out[4] = {"y", "y1", "y2", "y3"};
    int n_inputs = 0, i;
    float *ref = NULL, *got = NULL;
    size_t nref = 0, ngot = 0;
    aicf_dtype dref, dgot;
    char kernels[1024], msg[1600];
    aicf_result r;
    memset(data, 0, sizeof data);
    if (!ctx || (g_only && !strstr(tc->name, g_only))) return;
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", tc->opset);
    for (i = 0; i < tc->n_in; i++) {
        tin* t = &tc->in[i];
        aicf_tensor_desc d;
        int64_t n = 1, k;
        node_in[i] = t->name;
        if (!t->name[0]) continue;
        for (k = 0; k < t->rank; k++) n *= t->dims[k];
        data[i] = malloc(8 * (size_t)(n + 1));
        for (k = 0; k < n; k++) {
            if (t->dtype == AICF_DTYPE_FLOAT32) {
                float v = t->n_fvals ? t->fvals[k % t->n_fvals] : rndf(t->lo, t->hi);
                if (t->snap == 1) v = ((float)floor(v * 8.0f) + 0.5f) / 8.0f;
                if (t->snap == 2) v = (float)floor(v * 2.0f) / 2.0f;
                if (t->snap == 3) v = 1.0f + (float)floor(v * 1024.0f) / 1024.0f;
                ((float*)data[i])[k] = v;
            } else {
                int64_t v = t->n_ivals ? t->ivals[k % t->n_ivals] : (int64_t)floor(rndf(t->lo, t->hi));
                if (t->dtype == AICF_DTYPE_INT64) ((int64_t*)data[i])[k] = v;
                else if (t->dtype == AICF_DTYPE_INT32) ((int32_t*)data[i])[k] = (int32_t)v;
                else ((unsigned char*)data[i])[k] = (unsigned char)(t->n_ivals ? v != 0 : (rnd_u64() >> 40) & 1);
            }
        }
        memset(&d, 0, sizeof d);
        d.name = t->name;
        d.dtype = t->dtype;
        d.rank = t->rank;
        d.dims = t->dims;
        if (t->is_const) {
            d.data = data[i];
            d.data_bytes = aicf_dtype_size(t->dtype) * (size_t)n;
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
        nd.num_outputs = tc->n_out;
        nd.attrs = tc->attrs;
        nd.num_attrs = tc->n_attr;
        r = aicf_graph_add_node(g, &nd);
        for (i = 0; i < tc->n_out && r == AICF_SUCCESS; i++) r = aicf_graph_add_output(g, node_out[i]);
        if (r != AICF_SUCCESS) {
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

/* run_case_both with matmul_algo CUBLASLT for the cuBLASLt run and GENERATED for the other:
   the tensor-core GEMM cases. On compute capability 9.0 the generated kernels asked for are the
   Hopper GEMMs where they apply (128 <= M <= 256, M >= 1024), so a case that expects a portable
   kernel (aicf_gemm_tc_*) plans its GENERATED run as on a device without them: the context's
   cuTensorMapEncodeTiled hidden while it runs (aicf__cuda_wg_ok), so the portable kernels still
   run on the GPUs tested here; a case that expects a Hopper GEMM plans as the device is. */
static void run_case_both_tc(tcase* tc, const char* gen_expect) {
    tcase t2 = *tc;
    void* enc = NULL;
    const int hide = g_ctx_nolt && g_ctx_nolt->cuda && gen_expect && strncmp(gen_expect, "aicf_gemm_tc_", 13) == 0;
    int i;
    g_matmul_algo = AICF_MATMUL_CUBLASLT;
    if (g_have_lt) run_case(tc);
    t2.no_lt = 1;
    t2.expect = gen_expect;
    for (i = 0; i < t2.n_attr; i++) { /* re-point owned storage into the copy */
        if (t2.attrs[i].type == AICF_ATTR_INTS) t2.attrs[i].ints = t2.ints[i];
        if (t2.attrs[i].type == AICF_ATTR_STRING) t2.attrs[i].s = t2.strs[i];
    }
    snprintf(t2.name + strlen(t2.name), sizeof t2.name - strlen(t2.name), " (generated)");
    g_matmul_algo = AICF_MATMUL_GENERATED;
    if (hide) {
        memcpy(&enc, &g_ctx_nolt->cuda->tmap_encode, sizeof enc);
        g_ctx_nolt->cuda->tmap_encode = NULL;
    }
    run_case(&t2);
    if (hide) memcpy(&g_ctx_nolt->cuda->tmap_encode, &enc, sizeof enc);
    g_matmul_algo = AICF_MATMUL_AUTO;
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

/* float values (given as doubles) */
static const float* FV(int n, ...) {
    static float buf[8][2 * AICF_MAX_RANK];
    static int slot;
    float* f = buf[slot++ & 7];
    va_list ap;
    int i;
    va_start(ap, n);
    for (i = 0; i < n; i++) f[i] = (float)va_arg(ap, double);
    va_end(ap);
    return f;
}

/* A Gemm case: A [M, K], B [K, N] or (tb) [N, K] constant, C none / [N] (c 1) / [M, N] (c 2), alpha */
static void gemm_tcase(tcase* tc, aicf_precision pr, int64_t M, int64_t N, int64_t K, int tb, int c, float alpha, const char* what) {
    char nm[128];
    snprintf(nm, sizeof nm, "Gemm%s M=%lld N=%lld K=%lld%s alpha=%g (%s)", tb ? " transB" : "", (long long)M, (long long)N, (long long)K,
             c == 1 ? " +C[N]" : c == 2 ? " +C[M,N]" : "", alpha, what);
    tc_new(tc, "Gemm", pr, nm);
    tc_in(tc, "a", 2, DIMS(2, M, K), 0, -1, 1);
    if (tb) tc_in(tc, "b", 2, DIMS(2, N, K), 1, -1, 1);
    else tc_in(tc, "b", 2, DIMS(2, K, N), 1, -1, 1);
    if (c == 1) tc_in(tc, "c", 1, DIMS(1, N), 1, -1, 1);
    if (c == 2) tc_in(tc, "c", 2, DIMS(2, M, N), 0, -1, 1);
    if (tb) tc_attr_i(tc, "transB", 1);
    if (alpha != 1.0f) tc_attr_f(tc, "alpha", alpha);
}

/* ---- the cases ---- */

static const aicf_precision PRECS[2] = {AICF_PRECISION_FP32, AICF_PRECISION_FP16};

static void cases_unary(void) {
    static const struct {
        const char* op;
        const char* fn;
        float lo, hi;
        int snap, opset;
    } U[] = {{"Relu", "relu", -2, 2, 0, 0},          {"Tanh", "tanh", -3, 3, 0, 0},          {"Sigmoid", "sigmoid", -6, 6, 0, 0},
             {"Exp", "exp", -3, 3, 0, 0},            {"Log", "log", 0.05f, 5, 0, 0},         {"Sqrt", "sqrt", 0.01f, 9, 0, 0},
             {"Neg", "neg", -2, 2, 0, 0},            {"Abs", "abs", -2, 2, 0, 0},            {"Reciprocal", "reciprocal", 0.5f, 3, 0, 0},
             {"Erf", "erf", -2.5f, 2.5f, 0, 0},      {"LeakyRelu", "leaky_relu", -2, 2, 0, 0}, {"Elu", "elu", -3, 2, 0, 0},
             {"HardSigmoid", "hard_sigmoid", -6, 6, 0, 0}, {"HardSwish", "hard_swish", -5, 5, 0, 0}, {"Clip", "clip", -3, 3, 0, 0},
             {"Floor", "floor", -3, 3, 1, 0},        {"Ceil", "ceil", -3, 3, 1, 0},          {"Round", "round", -3, 3, 1, 0},
             {"Sign", "sign", -3, 3, 1, 0},          {"Softplus", "softplus", -6, 6, 0, 0},  {"Softsign", "softsign", -5, 5, 0, 0},
             {"Selu", "selu", -3, 3, 0, 0},          {"Celu", "celu", -3, 3, 0, 0},
             {"ThresholdedRelu", "thresholded_relu", -2, 2, 1, 0},
             {"Sin", "sin", -3, 3, 0, 0},            {"Cos", "cos", -3, 3, 0, 0},            {"Tan", "tan", -1.2f, 1.2f, 0, 0},
             {"Asin", "asin", -0.95f, 0.95f, 0, 0},  {"Acos", "acos", -0.95f, 0.95f, 0, 0},  {"Atan", "atan", -3, 3, 0, 0},
             {"Sinh", "sinh", -3, 3, 0, 0},          {"Cosh", "cosh", -3, 3, 0, 0},          {"Asinh", "asinh", -3, 3, 0, 0},
             {"Acosh", "acosh", 1.05f, 4, 0, 0},     {"Atanh", "atanh", -0.95f, 0.95f, 0, 0},
             {"Gelu", "gelu", -4, 4, 0, 20},         {"Gelu", "gelu_tanh", -4, 4, 0, 20},    {"Mish", "mish", -4, 4, 0, 18},
             {"Shrink", "shrink", -2, 2, 1, 0},      {"Swish", "swish", -5, 5, 0, 24}};
    int u, p, v;
    tcase tc;
    char expect[96];
    for (u = 0; u < (int)(sizeof U / sizeof U[0]); u++)
        for (p = 0; p < 2; p++)
            for (v = 0; v < 2; v++) {
                /* vec4: 2*3*8*8 = 384 elements; scalar: 3*5*7 = 105 */
                tin* t;
                tc_new(&tc, U[u].op, PRECS[p], "%s%s %s", U[u].op, !strcmp(U[u].fn, "gelu_tanh") ? " (tanh)" : "",
                       v ? "[2,3,8,8]" : "[3,5,7]");
                if (U[u].opset) tc.opset = U[u].opset;
                if (v) t = tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(8), I64(8)), 0, U[u].lo, U[u].hi);
                else t = tc_in(&tc, "x", 3, DIMS(3, I64(3), I64(5), I64(7)), 0, U[u].lo, U[u].hi);
                t->snap = U[u].snap;
                if (!strcmp(U[u].fn, "gelu_tanh")) tc_attr_s(&tc, "approximate", "tanh");
                if (!strcmp(U[u].op, "Selu")) {
                    tc_attr_f(&tc, "alpha", 1.5f);
                    tc_attr_f(&tc, "gamma", 1.1f);
                }
                if (!strcmp(U[u].op, "Celu")) tc_attr_f(&tc, "alpha", 0.7f);
                if (!strcmp(U[u].op, "ThresholdedRelu")) tc_attr_f(&tc, "alpha", 0.4f);
                if (!strcmp(U[u].op, "Shrink")) {
                    tc_attr_f(&tc, "lambd", 0.6f);
                    tc_attr_f(&tc, "bias", 0.25f);
                }
                if (!strcmp(U[u].op, "Swish")) tc_attr_f(&tc, "alpha", 0.8f);
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
                /* float16 GELU: 16-byte accesses where n % 8 == 0 (codegen/variants.py UNARY_V8) */
                snprintf(expect, sizeof expect, "aicf_unary_%s_%s_v%d", U[u].fn, p ? "f16" : "f32",
                         v ? (p && !strcmp(U[u].fn, "gelu") ? 8 : 4) : 1);
                tc.expect = expect;
                run_case(&tc);
            }
    /* float16 GELU with n % 8 != 0 but n % 4 == 0: the 4-wide variant */
    tc_new(&tc, "Gelu", AICF_PRECISION_FP16, "Gelu [3,4] (vec4)");
    tc.opset = 20;
    tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(4)), 0, -4, 4);
    tc.expect = "aicf_unary_gelu_f16_v4";
    run_case(&tc);
    /* Round: ties to even (inputs at multiples of 1/2) */
    tc_new(&tc, "Round", AICF_PRECISION_FP32, "Round halves to even [4,16]");
    tc_in(&tc, "x", 2, DIMS(2, I64(4), I64(16)), 0, -4, 4)->snap = 2;
    tc.expect = "aicf_unary_round_f32_v4";
    run_case(&tc);
    /* Clip with only a max (min omitted) */
    tc_new(&tc, "Clip", AICF_PRECISION_FP32, "Clip max only [4,16]");
    tc_in(&tc, "x", 2, DIMS(2, I64(4), I64(16)), 0, -3, 3);
    tc_omit(&tc);
    tc_in(&tc, "hi", 0, NULL, 1, 0.5f, 1.0f);
    tc.expect = "aicf_unary_clip_f32_v4";
    run_case(&tc);
}

static void add_t(aicf_graph* g, const char* name, int rank, const int64_t* dims, const float* data, size_t bytes);
static void add_n(aicf_graph* g, const char* name, const char* op, const char** in, int nin, const char** out,
                  const aicf_attr* attrs, int nattrs);

/* The float16 GELU over every finite float16 input (63488 values, one launch of the 8-wide
   kernel): each result within one float16 unit of GELU computed in double and rounded to float16,
   and at most 480 results off at all (codegen/gelu_fit.py's float32 emulation of the kernel's
   degree-5 erfc fit: 386 off, none by more than one unit; the GPU's approximate reciprocal and
   exponential and the reference's double-then-float rounding may move some more). */
static void test_gelu_f16_exhaustive(void) {
    enum { N = 63488 };
    static float x[N];
    static const int64_t dims[1] = {N};
    const char* in[1] = {"x"};
    const char* out[1] = {"y"};
    aicf_attr at;
    aicf_graph* g = NULL;
    float* y = NULL;
    size_t ny = 0;
    aicf_dtype dt = AICF_DTYPE_FLOAT32;
    char kernels[512];
    void* ins[1];
    aicf_result r;
    int i, n = 0, off = 0, worst = 0, worst_at = -1;
    for (i = 0; i < 65536; i++) { /* every finite float16, in bit order */
        const uint16_t h = (uint16_t)i;
        if ((h & 0x7c00u) == 0x7c00u) continue;
        x[n++] = aicf__f16_to_f32(h);
    }
    CHECK(n == N, "finite float16 values: %d", n);
    memset(&at, 0, sizeof at);
    at.name = "approximate";
    at.type = AICF_ATTR_STRING;
    at.s = "none";
    aicf_graph_create(g_ctx, &g);
    aicf_graph_set_opset(g, "", 20);
    add_t(g, "x", 1, dims, NULL, 0);
    add_n(g, "gelu", "Gelu", in, 1, out, &at, 1);
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "output y: %s", aicf_last_error(g_ctx));
    ins[0] = x;
    r = run_graph(g, AICF_BACKEND_CUDA, AICF_PRECISION_FP16, ins, in, 1, &y, &ny, &dt, kernels, sizeof kernels, NULL);
    CHECK(r == AICF_SUCCESS, "Gelu over every float16: %s", aicf_last_error(g_ctx));
    CHECK(strstr(kernels, "aicf_unary_gelu_f16_v8") != NULL, "Gelu over every float16: launched %s, not aicf_unary_gelu_f16_v8",
          kernels);
    if (r == AICF_SUCCESS && !g_plan_only) {
        CHECK(ny == N, "Gelu over every float16: %zu outputs", ny);
        for (i = 0; i < N && (size_t)i < ny; i++) {
            const double v = x[i], ref = 0.5 * v * erfc(-v / sqrt(2.0));
            const uint16_t a = aicf__f32_to_f16((float)ref), b = aicf__f32_to_f16(y[i]);
            /* float16 bits on a line (sign-magnitude to two's complement): the distance in units */
            const int ka = (a & 0x8000u) ? -(int)(a & 0x7fffu) : (int)a, kb = (b & 0x8000u) ? -(int)(b & 0x7fffu) : (int)b;
            const int d = ka > kb ? ka - kb : kb - ka;
            if (d) off++;
            if (d > worst) {
                worst = d;
                worst_at = i;
            }
        }
        CHECK(worst <= 1 && off <= 480, "Gelu over every float16: %d results off, the largest by %d units (x = %.9g: %.9g, expected %.9g)",
              off, worst, worst_at >= 0 ? x[worst_at] : 0.0, worst_at >= 0 ? y[worst_at] : 0.0,
              worst_at >= 0 ? 0.5 * x[worst_at] * erfc(-x[worst_at] / sqrt(2.0)) : 0.0);
        printf("  Gelu over every float16 (aicf_unary_gelu_f16_v8): %d of %d results one unit off, none further\n", off, N);
    }
    free(y);
    aicf_graph_destroy(g);
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
    /* PRelu: X with a slope broadcast to it; Mean (n-ary): the sum chain, then a division */
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        for (v = 0; v < 3; v++) {
            tc_new(&tc, "PRelu", PRECS[p], "PRelu %s", v == 0 ? "[4,8,16] slope [4,8,16]" : v == 1 ? "[3,5,7] slope [1]" : "[2,3,4,5] slope [3,1,1]");
            if (v == 0) {
                tc_in(&tc, "x", 3, DIMS(3, I64(4), I64(8), I64(16)), 0, -2, 2);
                tc_in(&tc, "s", 3, DIMS(3, I64(4), I64(8), I64(16)), 1, 0.05f, 0.5f);
                snprintf(expect, sizeof expect, "aicf_binary_prelu_%s_flat_v4", dt);
            } else if (v == 1) {
                tc_in(&tc, "x", 3, DIMS(3, I64(3), I64(5), I64(7)), 0, -2, 2);
                tc_in(&tc, "s", 1, DIMS(1, I64(1)), 1, 0.05f, 0.5f);
                snprintf(expect, sizeof expect, "aicf_binary_prelu_%s_flat_v1", dt);
            } else {
                tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(5)), 0, -2, 2);
                tc_in(&tc, "s", 3, DIMS(3, I64(3), I64(1), I64(1)), 1, 0.05f, 0.5f);
                snprintf(expect, sizeof expect, "aicf_binary_prelu_%s_bcast", dt);
            }
            tc.expect = expect;
            run_case(&tc);
        }
        snprintf(expect, sizeof expect, "aicf_unary_divs_%s_v1", dt);
        tc_new(&tc, "Mean", PRECS[p], "Mean of [2,1,7], [3,7], [2,3,7]");
        tc_in(&tc, "a", 3, DIMS(3, I64(2), I64(1), I64(7)), 0, -2, 2);
        tc_in(&tc, "b", 2, DIMS(2, I64(3), I64(7)), 1, -2, 2);
        tc_in(&tc, "c", 3, DIMS(3, I64(2), I64(3), I64(7)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_unary_divs_%s_v4", dt);
        tc_new(&tc, "Mean", PRECS[p], "Mean of [4,8], [4,8]");
        tc_in(&tc, "a", 2, DIMS(2, I64(4), I64(8)), 0, -2, 2);
        tc_in(&tc, "b", 2, DIMS(2, I64(4), I64(8)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
    }
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
        /* 3x3 with 16 -> 32 channels, batch 2: fp32 im2col + cuBLASLt (conv_algo AUTO: K = 144 >= 64,
           M = 32 >= 32), the implicit GEMM without cuBLASLt; fp16 the tensor-core implicit GEMM */
        tc_new(&tc, "Conv", PRECS[p], "Conv [2,16,12,12] w[32,16,3,3] p1 bias");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(16), I64(12), I64(12)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(32), I64(16), I64(3), I64(3)), 1, -0.3f, 0.3f);
        tc_in(&tc, "b", 1, DIMS(1, I64(32)), 1, -1, 1);
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        {
            char im2col[96];
            snprintf(im2col, sizeof im2col, p ? "aicf_conv2d_tcp_f16_m64_k9c8" : "aicf_im2col_%s cublasLt:matmul", dt);
            tc.expect = im2col;
            snprintf(expect, sizeof expect, p ? "aicf_conv2d_tcp_f16_m64_k9c8" : "aicf_conv2d_igemm_%s", dt);
            run_case_both(&tc, expect);
        }
        if (p) {
            /* the float16 tensor-core kernels by shape: the patch kernel (3x3 stride 1) with
               128-row blocks and split-K (M = 160, C = 256, one 9x9 image), with 64-row blocks on
               an odd output width; the gathering kernel for 1x1 stride 2 (128 rows), 3x3 stride 2
               and 5x5 taps (16-byte weights: K = 200, 400; 2-byte: K = 75) */
            tc_new(&tc, "Conv", PRECS[p], "Conv [1,256,9,9] w[160,256,3,3] p1 bias (patch, 128 rows, split-K)");
            tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(256), I64(9), I64(9)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(160), I64(256), I64(3), I64(3)), 1, -0.1f, 0.1f);
            tc_in(&tc, "b", 1, DIMS(1, I64(160)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcp_f16_m128_k9c8 aicf_conv2d_tc_reduce_f16";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 1x1 s2 [3,48,13,15] w[136,48,1,1] (gathering kernel, 128 rows)");
            tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(48), I64(13), I64(15)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(136), I64(48), I64(1), I64(1)), 1, -0.3f, 0.3f);
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc.expect = "aicf_conv2d_tc_f16_m128_vw";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [2,24,30,17] w[40,24,3,3] p1 (patch, odd width)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(24), I64(30), I64(17)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(40), I64(24), I64(3), I64(3)), 1, -0.3f, 0.3f);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcp_f16_m64_k9c8";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [2,32,11,13] w[100,32,3,3] p1 bias (patch, two 64-row blocks)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(32), I64(11), I64(13)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(100), I64(32), I64(3), I64(3)), 1, -0.2f, 0.2f);
            tc_in(&tc, "b", 1, DIMS(1, I64(100)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcp_f16_m64_k9c8";
            run_case(&tc);
            /* the rows kernel (3x3 stride 1 pad 1, C % 16 == 0, W % 4 == 0) where its blocks fill the
               132 SMs: resnet18's layer1 shape at 10 images (16-byte row copies), 256 channels out on
               28-wide rows (128-row blocks, 8-byte copies), and a 52-wide image with a partial last row tile over two
               64-row channel blocks, bias, residual-free */
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [10,16,56,56] w[64,16,3,3] p1 bias (rows kernel, 16-byte copies)");
            tc_in(&tc, "x", 4, DIMS(4, I64(10), I64(16), I64(56), I64(56)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(64), I64(16), I64(3), I64(3)), 1, -0.3f, 0.3f);
            tc_in(&tc, "b", 1, DIMS(1, I64(64)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcr_f16_m64_v16";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [10,16,28,28] w[256,16,3,3] p1 (rows kernel, 128 rows, 8-byte copies)");
            tc_in(&tc, "x", 4, DIMS(4, I64(10), I64(16), I64(28), I64(28)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(256), I64(16), I64(3), I64(3)), 1, -0.2f, 0.2f);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcr_f16_m128_v8";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [12,32,30,52] w[72,32,3,3] p1 bias (rows kernel, partial row tile, 2 channel blocks)");
            tc_in(&tc, "x", 4, DIMS(4, I64(12), I64(32), I64(30), I64(52)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(72), I64(32), I64(3), I64(3)), 1, -0.2f, 0.2f);
            tc_in(&tc, "b", 1, DIMS(1, I64(72)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcr_f16_m64_v8";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 s2 [2,24,30,17] w[40,24,3,3] p1 (gathering kernel)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(24), I64(30), I64(17)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(40), I64(24), I64(3), I64(3)), 1, -0.3f, 0.3f);
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tc_f16_m64_vw";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 5x5 [2,8,12,12] w[32,8,5,5] p2 (gathering kernel, 16-byte weights)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(8), I64(12), I64(12)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(32), I64(8), I64(5), I64(5)), 1, -0.3f, 0.3f);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(2), I64(2), I64(2), I64(2)));
            tc.expect = "aicf_conv2d_tc_f16_m64_vw";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 5x5 [1,16,9,9] w[160,16,5,5] p2 (gathering kernel, 128 rows)");
            tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(16), I64(9), I64(9)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(160), I64(16), I64(5), I64(5)), 1, -0.2f, 0.2f);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(2), I64(2), I64(2), I64(2)));
            tc.expect = "aicf_conv2d_tc_f16_m128_vw";
            run_case(&tc);
            /* split-K (4 splits) whose reduction takes 4 columns a thread (OH*OW % 4 == 0) */
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [1,64,8,8] w[128,64,3,3] p1 bias (gathering kernel, split-K, reduction _v4)");
            tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(64), I64(8), I64(8)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(128), I64(64), I64(3), I64(3)), 1, -0.1f, 0.1f);
            tc_in(&tc, "b", 1, DIMS(1, I64(128)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tc_f16_m128_vw aicf_conv2d_tc_reduce_f16_v4";
            run_case(&tc);
            /* 4 output pixels per image, 9 images: a thread's columns 8 apart cross two images */
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 s2 [9,8,3,3] w[24,8,3,3] p1 bias (gathering kernel, 2x2 outputs)");
            tc_in(&tc, "x", 4, DIMS(4, I64(9), I64(8), I64(3), I64(3)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(24), I64(8), I64(3), I64(3)), 1, -0.3f, 0.3f);
            tc_in(&tc, "b", 1, DIMS(1, I64(24)), 1, -1, 1);
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tc_f16_m64_vw";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 5x5 [2,9,12,12] w[128,9,5,5] (gathering kernel, 2-byte weights)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(9), I64(12), I64(12)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(128), I64(9), I64(5), I64(5)), 1, -0.2f, 0.2f);
            tc.expect = "aicf_conv2d_tc_f16_m128 ";
            run_case(&tc);
            /* the small-K kernel (C < 8, K <= 256): an image model's 7x7 stride-2 stem (K = 147,
               two 64-channel blocks, the second partial; an odd output width: 2-byte stores);
               5x5 with M = 100 and K = 75; C = 1 3x3 dilation 2 (K = 9 padded to 16); 16 images
               of 64x64 (512 tiles over 264 blocks: the tile loop and its double buffer) */
            tc_new(&tc, "Conv", PRECS[p], "Conv 7x7 s2 [2,3,37,45] w[80,3,7,7] p3 bias (small-K kernel)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(37), I64(45)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(80), I64(3), I64(7), I64(7)), 1, -0.2f, 0.2f);
            tc_in(&tc, "b", 1, DIMS(1, I64(80)), 1, -1, 1);
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(3), I64(3), I64(3), I64(3)));
            tc.expect = "aicf_conv2d_tcs_f16_m64";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 5x5 [1,3,19,23] w[100,3,5,5] p2 (small-K kernel)");
            tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(3), I64(19), I64(23)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(100), I64(3), I64(5), I64(5)), 1, -0.3f, 0.3f);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(2), I64(2), I64(2), I64(2)));
            tc.expect = "aicf_conv2d_tcs_f16_m64";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 d2 [3,1,50,70] w[16,1,3,3] p2 bias (small-K kernel, K = 9)");
            tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(1), I64(50), I64(70)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(16), I64(1), I64(3), I64(3)), 1, -0.5f, 0.5f);
            tc_in(&tc, "b", 1, DIMS(1, I64(16)), 1, -1, 1);
            tc_attr_ints(&tc, "dilations", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(2), I64(2), I64(2), I64(2)));
            tc.expect = "aicf_conv2d_tcs_f16_m64";
            run_case(&tc);
            tc_new(&tc, "Conv", PRECS[p], "Conv 3x3 [16,3,64,64] w[32,3,3,3] p1 bias (small-K kernel, 512 tiles)");
            tc_in(&tc, "x", 4, DIMS(4, I64(16), I64(3), I64(64), I64(64)), 0, -1, 1);
            tc_in(&tc, "w", 4, DIMS(4, I64(32), I64(3), I64(3), I64(3)), 1, -0.3f, 0.3f);
            tc_in(&tc, "b", 1, DIMS(1, I64(32)), 1, -1, 1);
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_conv2d_tcs_f16_m64";
            run_case(&tc);
        }
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
        snprintf(expect, sizeof expect, p ? "aicf_conv2d_tcs_f16_m64" : "aicf_conv2d_direct_%s", dt); /* fp16: small K (C = 4) */
        tc.expect = expect;
        run_case(&tc);
        /* pointwise 1x1 with bias: cuBLASLt + bias kernel, or the implicit GEMM without it */
        tc_new(&tc, "Conv", PRECS[p], "Conv 1x1 [2,16,7,7] w[24,16,1,1] bias");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(16), I64(7), I64(7)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(24), I64(16), I64(1), I64(1)), 1, -0.5f, 0.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(24)), 1, -1, 1);
        tc.expect = p ? "aicf_conv2d_tc_f16_m64_vw" : "cublasLt:matmul";
        snprintf(expect, sizeof expect, p ? "aicf_conv2d_tc_f16_m64_vw" : "aicf_conv2d_igemm_%s", dt);
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
        /* small M with transB (batch-1 Linear layers): the generated GEMV kernels, with and without
           cuBLASLt; 16-byte loads where K and the strides allow, element loads otherwise */
        {
            static const struct { int64_t M, N, K; int c; float alpha; } GV[] = {
                {1, 1024, 1024, 1, 1.0f}, /* mlp_b1's hidden layers */
                {1, 40, 99, 1, 1.0f},     /* K odd: element loads */
                {2, 33, 64, 2, 0.5f},     /* C [M, N] */
                {2, 17, 30, 0, 1.0f},     /* no C, K % 4 != 0 */
                {3, 19, 37, 3, 1.0f},     /* C scalar [1] */
                {4, 24, 256, 1, 1.0f},
                {5, 130, 1000, 0, -1.5f},
                {8, 7, 4098, 1, 1.0f},
            };
            size_t q;
            for (q = 0; q < sizeof GV / sizeof GV[0]; q++) {
                char nm[128], ex[64];
                int vec = GV[q].K % (p == 1 ? 8 : 4) == 0, mt = 1;
                while (mt < GV[q].M) mt *= 2;
                snprintf(nm, sizeof nm, "Gemm transB M=%lld N=%lld K=%lld%s alpha=%g (GEMV)", (long long)GV[q].M,
                         (long long)GV[q].N, (long long)GV[q].K,
                         GV[q].c == 1 ? " +C[N]" : GV[q].c == 2 ? " +C[M,N]" : GV[q].c == 3 ? " +C[1]" : "", GV[q].alpha);
                tc_new(&tc, "Gemm", pr, nm);
                tc_in(&tc, "a", 2, DIMS(2, GV[q].M, GV[q].K), 0, -1, 1);
                tc_in(&tc, "b", 2, DIMS(2, GV[q].N, GV[q].K), 1, -1, 1);
                if (GV[q].c == 1) tc_in(&tc, "c", 1, DIMS(1, GV[q].N), 1, -1, 1);
                if (GV[q].c == 2) tc_in(&tc, "c", 2, DIMS(2, GV[q].M, GV[q].N), 0, -1, 1);
                if (GV[q].c == 3) tc_in(&tc, "c", 1, DIMS(1, I64(1)), 1, -1, 1);
                tc_attr_i(&tc, "transB", 1);
                if (GV[q].alpha != 1.0f) tc_attr_f(&tc, "alpha", GV[q].alpha);
                snprintf(ex, sizeof ex, "aicf_gemv_%s_m%d%s", dt, mt, vec ? "_v" : "");
                tc.expect = ex;
                g_no_fusion = 1;
                run_case_both(&tc, ex);
                g_no_fusion = 0;
            }
        }
        /* the tensor-core GEMMs (float16, under matmul_algo GENERATED, beside cuBLASLt under CUBLASLT:
           on compute capability 9.0 the AUTO rule gives most of these shapes to the Hopper GEMM
           below; K, N, lda, ldb multiples of 8): the small-M kernel where one of its tiles fits one wave
           (src/81_cuda_ops.c aicf__cuo_lower_gemm_tcs: every tile, B [K, N] and [N, K]; K
           groups full, half full (K % 16 == 8) and empty; partial tiles in M and N), else the
           pipelined one: 64 x 64 tiles, and 128 x 128 with at least one such tile per SM; C [N] /
           [M, N] / none, alpha. The tile choices assume the H100's and H200's 132 SMs; on
           another device the plan may pick another variant, which the test reports. */
        if (pr == AICF_PRECISION_FP16) {
            static const struct { int64_t M, N, K; int tb, c; float alpha; const char* ex; } TC[] = {
                {100, 88, 72, 1, 1, 1.0f, "aicf_gemm_tc_f16_s16x32_tb"},    /* 21 blocks; K groups 4 full, 1 half, 3 empty */
                {9, 16, 8, 0, 2, 0.75f, "aicf_gemm_tc_f16_s16x32"},         /* one block, N inside one tile */
                {130, 200, 1000, 1, 2, -0.5f, "aicf_gemm_tc_f16_s16x32_tb"}, /* 63 blocks, K slices of 128 */
                {64, 1200, 200, 0, 1, 1.0f, "aicf_gemm_tc_f16_s16x64"},      /* 76 blocks (a tie with 32 x 32) */
                {64, 1536, 96, 1, 1, 1.0f, "aicf_gemm_tc_f16_s16x64_tb"},    /* 96 blocks */
                {40, 1536, 384, 0, 0, 1.0f, "aicf_gemm_tc_f16_s32x32"},      /* 96 blocks, M = 40: a partial row tile */
                {40, 1536, 384, 1, 2, 1.0f, "aicf_gemm_tc_f16_s32x32_tb"},
                {128, 1152, 384, 0, 1, 1.0f, "aicf_gemm_tc_f16_s32x64"},     /* the encoder's qkv at batch 1: 72 blocks */
                {100, 2000, 64, 1, 0, 1.0f, "aicf_gemm_tc_f16_s32x64_tb"},   /* 128 blocks */
                {256, 1024, 1024, 1, 1, 1.0f, "aicf_gemm_tc_f16_s32x64_tb"}, /* the MLP's hidden layer at batch 256: 215 KB shared */
                {1000, 512, 64, 0, 1, 1.0f, "aicf_gemm_tc_f16_m64n64"},      /* no small-M tile within one wave */
                {600, 1000, 200, 1, 2, -0.5f, "aicf_gemm_tc_f16_m64n64_tb"},
                {16, 64, 8192, 0, 1, 1.0f, "aicf_gemm_tc_f16_m64n64"},       /* K too deep for the small-M slices */
                {1000, 2304, 200, 0, 1, 1.0f, "aicf_gemm_tc_f16_m128n128"},  /* 144 tiles (M >= 1024: the Hopper ws GEMM) */
                {1100, 2064, 40, 1, 0, 1.0f, "aicf_gemm_tc_f16_m128n128_tb"},
            };
            size_t q;
            for (q = 0; q < sizeof TC / sizeof TC[0]; q++) {
                gemm_tcase(&tc, pr, TC[q].M, TC[q].N, TC[q].K, TC[q].tb, TC[q].c, TC[q].alpha, "tensor-core GEMM");
                tc.expect = "cublasLt:matmul";
                run_case_both_tc(&tc, TC[q].ex);
            }
            /* MatMul with the batch folded into M */
            tc_new(&tc, "MatMul", pr, "MatMul [2,40,64]x[64,96] (tensor-core GEMM)");
            tc_in(&tc, "a", 3, DIMS(3, I64(2), I64(40), I64(64)), 0, -1, 1);
            tc_in(&tc, "b", 2, DIMS(2, I64(64), I64(96)), 1, -1, 1);
            tc.expect = "cublasLt:matmul";
            run_case_both_tc(&tc, "aicf_gemm_tc_f16_s16x32");
            /* B computed (not a constant: copied after the wait), the small-M kernel */
            tc_new(&tc, "MatMul", pr, "MatMul [48,200]x[200,96] B an input (tensor-core GEMM)");
            tc_in(&tc, "a", 2, DIMS(2, I64(48), I64(200)), 0, -1, 1);
            tc_in(&tc, "b", 2, DIMS(2, I64(200), I64(96)), 0, -1, 1);
            tc.expect = "cublasLt:matmul";
            run_case_both_tc(&tc, "aicf_gemm_tc_f16_s16x32");
        }
        /* the Hopper GEMM (compute capability 9.0: wgmma + TMA, sm_90a), the AUTO rule's choice
           without cuBLASLt, cuBLASLt's with it (src/81_cuda_ops.c aicf__cuo_lower_gemm_wg: 128 <= M <= 256, at most 2 x SMs
           tiles of 64 x 32): every variant, B [K, N] and [N, K], K split over a cluster of 4, the
           stages refilled (K = 4096, 8192), partial tiles in M, N and K (K = 72), C [N] / [M, N] /
           none, alpha, B a graph input (copied after the wait). The choices assume 132 SMs. */
        if (pr == AICF_PRECISION_FP16 && g_wg) {
            static const struct { int64_t M, N, K; int tb, c; float alpha; const char* ex; } WG[] = {
                {128, 1152, 384, 0, 1, 1.0f, "aicf_gemm_wg_f16_64x32"},       /* the encoder's qkv at batch 1: 72 CTAs */
                {128, 384, 1536, 0, 2, 1.0f, "aicf_gemm_wg_f16_64x32_k4"},    /* its f2 (+ residual): clusters of 4 over K */
                {128, 384, 384, 0, 2, 1.0f, "aicf_gemm_wg_f16_64x16"},        /* its o */
                {160, 1536, 384, 0, 0, 1.0f, "aicf_gemm_wg_f16_64x32"},       /* M = 160: a partial row tile */
                {128, 256, 2048, 0, 0, -0.5f, "aicf_gemm_wg_f16_64x16_k4"},
                {256, 1024, 4096, 0, 1, 1.0f, "aicf_gemm_wg_f16_64x32"},      /* 64 slabs through 18 stages */
                {150, 200, 72, 1, 2, 0.5f, "aicf_gemm_wg_f16_64x16_tb"},      /* partial tiles in M, N and K */
                {256, 1024, 1024, 1, 1, 1.0f, "aicf_gemm_wg_f16_64x32_tb"},   /* the MLP's hidden layer at batch 256 */
                {256, 64, 1024, 1, 1, 1.0f, "aicf_gemm_wg_f16_64x16_tb_k4"},  /* its last layer */
                {128, 640, 1024, 1, 0, 1.0f, "aicf_gemm_wg_f16_64x32_tb_k4"},
                {128, 256, 8192, 1, 1, 1.0f, "aicf_gemm_wg_f16_64x16_tb_k4"}, /* K split and the stages refilled */
            };
            size_t q;
            for (q = 0; q < sizeof WG / sizeof WG[0]; q++) {
                gemm_tcase(&tc, pr, WG[q].M, WG[q].N, WG[q].K, WG[q].tb, WG[q].c, WG[q].alpha, "Hopper GEMM");
                tc.expect = "cublasLt:matmul";
                run_case_both(&tc, WG[q].ex);
            }
            tc_new(&tc, "MatMul", pr, "MatMul [2,100,64]x[64,96] (Hopper GEMM)");
            tc_in(&tc, "a", 3, DIMS(3, I64(2), I64(100), I64(64)), 0, -1, 1);
            tc_in(&tc, "b", 2, DIMS(2, I64(64), I64(96)), 1, -1, 1);
            tc.expect = "cublasLt:matmul";
            run_case_both(&tc, "aicf_gemm_wg_f16_64x16");
            tc_new(&tc, "MatMul", pr, "MatMul [144,200]x[200,96] B an input (Hopper GEMM)");
            tc_in(&tc, "a", 2, DIMS(2, I64(144), I64(200)), 0, -1, 1);
            tc_in(&tc, "b", 2, DIMS(2, I64(200), I64(96)), 0, -1, 1);
            tc.expect = "cublasLt:matmul";
            run_case_both(&tc, "aicf_gemm_wg_f16_64x16");
            /* the warp-specialised Hopper GEMM (aicf__cuo_lower_gemm_ws: M >= 1024, B [K, N]), the
               AUTO rule's choice without cuBLASLt and the generated kernels' (with cuBLASLt loaded
               the rule takes it for an erf-form Gelu, test_gpu_fusion test_gpu_ws_gelu, and at
               most 4 GFLOP with a wave of 128 x 128 tiles, aicf__cuo_ws_wanted): both tile widths,
               C [N] / [M, N] / none, alpha, partial tiles in M, N and K, the ring of 4 stages
               wrapped (K = 4096), N below one box (64), the batch folded into M */
            {
                static const struct { int64_t M, N, K; int c; float alpha; const char *ex, *lt; } WS[] = {
                    /* ex: without cuBLASLt and generated; lt: AUTO with cuBLASLt loaded */
                    {4096, 1536, 384, 1, 1.0f, "aicf_gemm_ws_f16_128x192", "cublasLt:matmul"}, /* the batch-32 encoder's f1: 256 tiles, two waves; 4.8 GFLOP */
                    {4096, 384, 1536, 2, 1.0f, "aicf_gemm_ws_f16_128x128", "cublasLt:matmul"}, /* its f2 (+ residual) */
                    {2048, 1152, 200, 1, -0.5f, "aicf_gemm_ws_f16_128x192", "aicf_gemm_ws_f16_128x192"}, /* 96 tiles of 192 against 144 of 128; 0.9 GFLOP */
                    {1100, 200, 72, 2, 0.5f, "aicf_gemm_ws_f16_128x128", "cublasLt:matmul"},   /* partial tiles in M, N and K; 18 tiles */
                    {1024, 40, 4096, 0, 1.0f, "aicf_gemm_ws_f16_128x128", "cublasLt:matmul"},  /* N inside one box; 64 slabs through 4 stages */
                };
                for (q = 0; q < sizeof WS / sizeof WS[0]; q++) {
                    gemm_tcase(&tc, pr, WS[q].M, WS[q].N, WS[q].K, 0, WS[q].c, WS[q].alpha, "Hopper ws GEMM");
                    tc.expect = WS[q].lt;
                    run_case_both(&tc, WS[q].ex);
                    gemm_tcase(&tc, pr, WS[q].M, WS[q].N, WS[q].K, 0, WS[q].c, WS[q].alpha, "Hopper ws GEMM");
                    tc.expect = "cublasLt:matmul"; /* matmul_algo CUBLASLT */
                    run_case_both_tc(&tc, WS[q].ex);
                }
                tc_new(&tc, "MatMul", pr, "MatMul [4,300,64]x[64,96] (Hopper ws GEMM)");
                tc_in(&tc, "a", 3, DIMS(3, I64(4), I64(300), I64(64)), 0, -1, 1);
                tc_in(&tc, "b", 2, DIMS(2, I64(64), I64(96)), 1, -1, 1);
                tc.expect = "cublasLt:matmul";
                run_case_both(&tc, "aicf_gemm_ws_f16_128x128");
            }
        } else if (pr == AICF_PRECISION_FP16) {
            printf("SKIP Hopper GEMM cases: not on this device (sm_%d) or driver (cuTensorMapEncodeTiled)\n", g_cc);
        }
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
        snprintf(expect, sizeof expect, "aicf_maxpool3x3_%s", dt);
        tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [2,3,11,11] k3 s2 p1");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(11), I64(11)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        tc.expect = expect;
        run_case(&tc);
        /* the 3x3 kernel along rows longer than its 64 threads, stride 1, dilation 2, uneven pads */
        tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [2,5,9,150] k3 s1 d2 p(2,1,0,3)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(5), I64(9), I64(150)), 0, -2, 2);
        tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
        tc_attr_ints(&tc, "dilations", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(2), I64(1), I64(0), I64(3)));
        tc.expect = expect;
        run_case(&tc);
        if (p) { /* 3x3 stride 2 at float16, W % 4 == 0, OW even: two outputs a lane (pads 1; pads 0 at the left,
                    more than 64 outputs a row) */
            tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [2,3,24,32] k3 s2 p1 (two outputs a lane)");
            tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(24), I64(32)), 0, -2, 2);
            tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
            tc.expect = "aicf_maxpool3x3s2_f16";
            run_case(&tc);
            tc_new(&tc, "MaxPool", PRECS[p], "MaxPool [1,2,7,152] k3 s2 p(1,0,1,1) (two outputs a lane, 76 a row)");
            tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(2), I64(7), I64(152)), 0, -2, 2);
            tc_attr_ints(&tc, "kernel_shape", 2, DIMS(2, I64(3), I64(3)));
            tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
            tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(0), I64(1), I64(1)));
            tc.expect = "aicf_maxpool3x3s2_f16";
            run_case(&tc);
        }
        snprintf(expect, sizeof expect, "aicf_maxpool2d_%s", dt);
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
        tc_new(&tc, "GlobalAveragePool", PRECS[p], "GlobalAveragePool [2,5,23,23] (a warp per row)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(5), I64(23), I64(23)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "GlobalAveragePool", PRECS[p], "GlobalAveragePool [3,7,7,7] (21 rows: a partial block of warps)");
        tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(7), I64(7), I64(7)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "GlobalAveragePool", PRECS[p], "GlobalAveragePool [1,3,40,41] (rows of 1640: a block per row)");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(3), I64(40), I64(41)), 0, -2, 2);
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

/* ONNX Attention (opset 23) on the device: the tensor-core kernel for float16 head sizes 32, 64,
   128 (partial 64-row / 64-key tiles, masks broadcast or padded with -inf, causal), the
   one-warp-per-row kernel for the rest (float32, D != Dv, grouped-query 3-D inputs) */
static void cases_attention(void) {
    int p;
    tcase tc;
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        char expect[96];
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d32" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention [2,3,40,32] x [2,3,70,32], mask [40,70], scale 0.2");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(2), I64(3), I64(40), I64(32)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(2), I64(3), I64(70), I64(32)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(2), I64(3), I64(70), I64(32)), 0, -1, 1);
        tc_in(&tc, "mask", 2, DIMS(2, I64(40), I64(70)), 0, -3, 0.5f);
        tc_attr_f(&tc, "scale", 0.2f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d64" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention [1,4,65,64] causal, mask [1,1,65,40] padded with -inf to 65 keys");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(1), I64(4), I64(65), I64(64)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(1), I64(4), I64(65), I64(64)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(1), I64(4), I64(65), I64(64)), 0, -1, 1);
        tc_in(&tc, "mask", 4, DIMS(4, I64(1), I64(1), I64(65), I64(40)), 0, -2, 0);
        tc_attr_i(&tc, "is_causal", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d128" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention [1,2,70,128] x 130 keys (three key blocks), default scale");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(1), I64(2), I64(70), I64(128)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(1), I64(2), I64(130), I64(128)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(1), I64(2), I64(130), I64(128)), 0, -1, 1);
        tc.expect = expect;
        run_case(&tc);
        /* full 64-key blocks without mask (the scale-only path) through both stages and back
           (4 blocks), and grouped-query heads with a ragged last block and a mask (3 blocks) */
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d32" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention [2,12,128,32] x 256 keys, no mask, scale 0.125");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(2), I64(12), I64(128), I64(32)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(2), I64(12), I64(256), I64(32)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(2), I64(12), I64(256), I64(32)), 0, -1, 1);
        tc_attr_f(&tc, "scale", 0.125f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d64" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention GQA q [1,4,50,64] kv [1,2,150,64], mask [1,4,50,150]");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(1), I64(4), I64(50), I64(64)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(1), I64(2), I64(150), I64(64)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(1), I64(2), I64(150), I64(64)), 0, -1, 1);
        tc_in(&tc, "mask", 4, DIMS(4, I64(1), I64(4), I64(50), I64(150)), 0, -2, 0.5f);
        tc.expect = expect;
        run_case(&tc);
        /* the grid's z (batch) and y (head): 260 x 260 heads, more than the 65535 one grid
           dimension holds; and grouped-query heads (grp 3) with the causal limit */
        snprintf(expect, sizeof expect, p ? "aicf_attention_tc_f16_d32" : "aicf_attention_f32");
        tc_new(&tc, "Attention", PRECS[p], "Attention [260,260,1,32] x 3 keys (67600 heads)");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(260), I64(260), I64(1), I64(32)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(260), I64(260), I64(3), I64(32)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(260), I64(260), I64(3), I64(32)), 0, -1, 1);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Attention", PRECS[p], "Attention GQA causal q [2,6,70,32] kv [2,2,70,32]");
        tc.opset = 23;
        tc_in(&tc, "q", 4, DIMS(4, I64(2), I64(6), I64(70), I64(32)), 0, -1, 1);
        tc_in(&tc, "k", 4, DIMS(4, I64(2), I64(2), I64(70), I64(32)), 0, -1, 1);
        tc_in(&tc, "v", 4, DIMS(4, I64(2), I64(2), I64(70), I64(32)), 0, -1, 1);
        tc_attr_i(&tc, "is_causal", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_attention_%s", dt);
        tc_new(&tc, "Attention", PRECS[p], "Attention 3-D GQA q [2,20,4x24] kv [2,33,2x24] / [2,33,2x40]");
        tc.opset = 23;
        tc_in(&tc, "q", 3, DIMS(3, I64(2), I64(20), I64(96)), 0, -1, 1);
        tc_in(&tc, "k", 3, DIMS(3, I64(2), I64(33), I64(48)), 0, -1, 1);
        tc_in(&tc, "v", 3, DIMS(3, I64(2), I64(33), I64(80)), 0, -1, 1);
        tc_attr_i(&tc, "q_num_heads", 4);
        tc_attr_i(&tc, "kv_num_heads", 2);
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
        /* the innermost dimension kept (attention's head split): 16-byte groups */
        snprintf(expect, sizeof expect, "aicf_permute_%s_v%d", dt, p ? 8 : 4);
        tc_new(&tc, "Transpose", PRECS[p], "Transpose [2,8,3,16] perm (2,0,1,3)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(8), I64(3), I64(16)), 0, -2, 2);
        tc_attr_ints(&tc, "perm", 4, DIMS(4, I64(2), I64(0), I64(1), I64(3)));
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
    {   /* the vector width by n: 45 odd (1), 240 = 8 x 30 with 16-byte aligned addresses (8: two
           float32 float4 a thread), 36 = 4 x 9 (4) */
        static const struct { int64_t r, c; const char *name, *expect; } CA[] = {
            {5, 9, "Cast float -> float16 [5,9]", "aicf_cast_f32_f16_v1"},
            {6, 40, "Cast float -> float16 [6,40] (vec 8)", "aicf_cast_f32_f16_v8"},
            {3, 12, "Cast float -> float16 [3,12] (vec 4)", "aicf_cast_f32_f16_v4"},
        };
        int i;
        for (i = 0; i < 3; i++) {
            tc_new(&tc, "Cast", AICF_PRECISION_FP32, CA[i].name);
            tc_in(&tc, "x", 2, DIMS(2, I64(CA[i].r), I64(CA[i].c)), 0, -2, 2);
            tc_attr_i(&tc, "to", AICF_DTYPE_FLOAT16);
            tc.expect = CA[i].expect;
            run_case(&tc);
        }
    }
}

/* Gather, Where, Pad, and the ops lowered to strided copies (Slice, Split, Tile, Expand,
   DepthToSpace, SpaceToDepth) */
static void cases_index(void) {
    int p;
    tcase tc;
    char expect[96];
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        /* Gather with constant int64 indices (negative ones too) on axis 1 */
        snprintf(expect, sizeof expect, "aicf_gather_%s_i64", dt);
        tc_new(&tc, "Gather", PRECS[p], "Gather [4,5,6] axis 1, const int64 indices [2,3]");
        tc_in(&tc, "x", 3, DIMS(3, I64(4), I64(5), I64(6)), 0, -2, 2);
        tc_in_int(&tc, "i", AICF_DTYPE_INT64, 2, DIMS(2, I64(2), I64(3)), 1, 6, DIMS(6, I64(4), I64(0), I64(-1), I64(2), I64(-5), I64(3)), 0, 0);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
        /* embedding lookup: int32 constant indices, axis 0 */
        snprintf(expect, sizeof expect, "aicf_gather_%s_i32", dt);
        tc_new(&tc, "Gather", PRECS[p], "Gather [10,8] axis 0, const int32 indices [7]");
        tc_in(&tc, "x", 2, DIMS(2, I64(10), I64(8)), 0, -2, 2);
        tc_in_int(&tc, "i", AICF_DTYPE_INT32, 1, DIMS(1, I64(7)), 1, 0, NULL, -10, 10);
        tc.expect = expect;
        run_case(&tc);
        /* indices computed at run time: an int64 graph input in the arena */
        snprintf(expect, sizeof expect, "aicf_gather_%s_i64", dt);
        tc_new(&tc, "Gather", PRECS[p], "Gather [12,16] axis 0, int64 graph-input indices [3,5]");
        tc_in(&tc, "x", 2, DIMS(2, I64(12), I64(16)), 1, -2, 2);
        tc_in_int(&tc, "i", AICF_DTYPE_INT64, 2, DIMS(2, I64(3), I64(5)), 0, 0, NULL, -12, 12);
        tc.expect = expect;
        run_case(&tc);
        /* one constant scalar index: a strided copy */
        tc_new(&tc, "Gather", PRECS[p], "Gather [2,3,5,4] axis 2, scalar index -2");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(5), I64(4)), 0, -2, 2);
        tc_in_int(&tc, "i", AICF_DTYPE_INT64, 0, NULL, 1, 1, DIMS(1, I64(-2)), 0, 0);
        tc_attr_i(&tc, "axis", 2);
        snprintf(expect, sizeof expect, "aicf_permute_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        /* Where: constant condition broadcast with both sides */
        snprintf(expect, sizeof expect, "aicf_where_%s", dt);
        tc_new(&tc, "Where", PRECS[p], "Where const cond [1,4,1], [3,4,5], [5]");
        tc_in_int(&tc, "c", AICF_DTYPE_BOOL, 3, DIMS(3, I64(1), I64(4), I64(1)), 1, 4, DIMS(4, I64(1), I64(0), I64(0), I64(1)), 0, 0);
        tc_in(&tc, "a", 3, DIMS(3, I64(3), I64(4), I64(5)), 0, -2, 2);
        tc_in(&tc, "b", 1, DIMS(1, I64(5)), 1, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        /* Where with a condition computed at run time (a bool graph input) */
        tc_new(&tc, "Where", PRECS[p], "Where bool input [3,4,5], [4,5], [3,1,1]");
        tc_in_int(&tc, "c", AICF_DTYPE_BOOL, 3, DIMS(3, I64(3), I64(4), I64(5)), 0, 0, NULL, 0, 0);
        tc_in(&tc, "a", 2, DIMS(2, I64(4), I64(5)), 0, -2, 2);
        tc_in(&tc, "b", 3, DIMS(3, I64(3), I64(1), I64(1)), 0, -2, 2);
        tc.expect = expect;
        run_case(&tc);
        /* Pad: constant (value input), reflect, edge, wrap, negative pads */
        snprintf(expect, sizeof expect, "aicf_pad_%s", dt);
        tc_new(&tc, "Pad", PRECS[p], "Pad constant 0.75 [2,3,4,5] pads (0,1,2,0, 0,2,1,3)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(5)), 0, -2, 2);
        tc_in_int(&tc, "pads", AICF_DTYPE_INT64, 1, DIMS(1, I64(8)), 1, 8,
                  DIMS(8, I64(0), I64(1), I64(2), I64(0), I64(0), I64(2), I64(1), I64(3)), 0, 0);
        tc_in(&tc, "v", 0, NULL, 1, 0.75f, 0.75f);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Pad", PRECS[p], "Pad reflect [1,512] pads (0,64,0,64) (silero)");
        tc_in(&tc, "x", 2, DIMS(2, I64(1), I64(512)), 0, -2, 2);
        tc_in_int(&tc, "pads", AICF_DTYPE_INT64, 1, DIMS(1, I64(4)), 1, 4, DIMS(4, I64(0), I64(64), I64(0), I64(64)), 0, 0);
        tc_attr_s(&tc, "mode", "reflect");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Pad", PRECS[p], "Pad edge [2,3,6] pads (0,2,-1, 1,1,3)");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(6)), 0, -2, 2);
        tc_in_int(&tc, "pads", AICF_DTYPE_INT64, 1, DIMS(1, I64(6)), 1, 6, DIMS(6, I64(0), I64(2), I64(-1), I64(1), I64(1), I64(3)), 0, 0);
        tc_attr_s(&tc, "mode", "edge");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Pad", PRECS[p], "Pad wrap opset 19 [3,5] axes [1] pads (3,7)");
        tc.opset = 19;
        tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(5)), 0, -2, 2);
        tc_in_int(&tc, "pads", AICF_DTYPE_INT64, 1, DIMS(1, I64(2)), 1, 2, DIMS(2, I64(3), I64(7)), 0, 0);
        tc_omit(&tc);
        tc_in_int(&tc, "axes", AICF_DTYPE_INT64, 1, DIMS(1, I64(1)), 1, 1, DIMS(1, I64(-1)), 0, 0);
        tc_attr_s(&tc, "mode", "wrap");
        tc.expect = expect;
        run_case(&tc);
        /* Slice: steps, negative steps, clamped ends; opset 9 attributes */
        tc_new(&tc, "Slice", PRECS[p], "Slice [6,7,8] starts (1,-1,0) ends (5,-100,8) axes (0,1,2) steps (2,-2,3)");
        tc_in(&tc, "x", 3, DIMS(3, I64(6), I64(7), I64(8)), 0, -2, 2);
        tc_in_int(&tc, "s", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(1), I64(-1), I64(0)), 0, 0);
        tc_in_int(&tc, "e", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(5), I64(-100), I64(8)), 0, 0);
        tc_in_int(&tc, "a", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(0), I64(1), I64(2)), 0, 0);
        tc_in_int(&tc, "st", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(2), I64(-2), I64(3)), 0, 0);
        snprintf(expect, sizeof expect, "aicf_permute_%s", dt);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Slice", PRECS[p], "Slice opset 9 [4,10] axes (1) starts (2) ends (9)");
        tc.opset = 9;
        tc_in(&tc, "x", 2, DIMS(2, I64(4), I64(10)), 0, -2, 2);
        tc_attr_ints(&tc, "starts", 1, DIMS(1, I64(2)));
        tc_attr_ints(&tc, "ends", 1, DIMS(1, I64(9)));
        tc_attr_ints(&tc, "axes", 1, DIMS(1, I64(1)));
        tc.expect = expect;
        run_case(&tc);
        /* Split: strided 2-D copies, equal parts along axis 0 (copies), num_outputs (opset 18) */
        snprintf(expect, sizeof expect, "aicf_copy2d_%s_v1", dt);
        tc_new(&tc, "Split", PRECS[p], "Split [2,10,6] axis 1 split (3,3,4)");
        tc.n_out = 3;
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(10), I64(6)), 0, -2, 2);
        tc_in_int(&tc, "sp", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(3), I64(3), I64(4)), 0, 0);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
        /* along the outermost axis: the outputs are views into the input (no launch) */
        tc_new(&tc, "Split", PRECS[p], "Split [3,2,4,8] axis 0, 3 equal parts (encoder qkv): views");
        tc.n_out = 3;
        tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(2), I64(4), I64(8)), 0, -2, 2);
        tc.expect = "alias";
        run_case(&tc);
        /* views at offsets of 1 and 3 rows of 5: the consumers' alignment follows the view */
        tc_new(&tc, "Split", PRECS[p], "Split [1,9,5] axis 1 split (1,2,6): views at unaligned offsets");
        tc.n_out = 3;
        tc_in(&tc, "x", 3, DIMS(3, I64(1), I64(9), I64(5)), 0, -2, 2);
        tc_in_int(&tc, "sp", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(1), I64(2), I64(6)), 0, 0);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = "alias";
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_copy2d_%s_v4", dt);
        tc_new(&tc, "Split", PRECS[p], "Split opset 18 [2,16] axis 1 num_outputs 4");
        tc.opset = 18;
        tc.n_out = 4;
        tc_in(&tc, "x", 2, DIMS(2, I64(2), I64(16)), 0, -2, 2);
        tc_attr_i(&tc, "axis", 1);
        tc_attr_i(&tc, "num_outputs", 4);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Split", PRECS[p], "Split opset 18 [2,7,3] axis 1 num_outputs 3 (3,3,1)");
        tc.opset = 18;
        tc.n_out = 3;
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(7), I64(3)), 0, -2, 2);
        tc_attr_i(&tc, "axis", -2);
        tc_attr_i(&tc, "num_outputs", 3);
        tc.expect = NULL;
        run_case(&tc);
        /* Tile, Expand, DepthToSpace, SpaceToDepth */
        snprintf(expect, sizeof expect, "aicf_permute_%s", dt);
        tc_new(&tc, "Tile", PRECS[p], "Tile [2,3,4] repeats (2,1,3)");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(4)), 0, -2, 2);
        tc_in_int(&tc, "r", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(2), I64(1), I64(3)), 0, 0);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Expand", PRECS[p], "Expand [3,1] to (2,3,4)");
        tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(1)), 0, -2, 2);
        tc_in_int(&tc, "s", AICF_DTYPE_INT64, 1, DIMS(1, I64(3)), 1, 3, DIMS(3, I64(2), I64(3), I64(4)), 0, 0);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "DepthToSpace", PRECS[p], "DepthToSpace DCR [2,8,3,4] blocksize 2");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(8), I64(3), I64(4)), 0, -2, 2);
        tc_attr_i(&tc, "blocksize", 2);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "DepthToSpace", PRECS[p], "DepthToSpace CRD [1,18,2,3] blocksize 3");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(18), I64(2), I64(3)), 0, -2, 2);
        tc_attr_i(&tc, "blocksize", 3);
        tc_attr_s(&tc, "mode", "CRD");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "SpaceToDepth", PRECS[p], "SpaceToDepth [2,3,4,6] blocksize 2");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(6)), 0, -2, 2);
        tc_attr_i(&tc, "blocksize", 2);
        tc.expect = expect;
        run_case(&tc);
    }
}

/* Reductions: every function (a runtime argument of the kernel) in each variant (thread:
   strided, warp: contiguous rows, block: long rows), plus axis sets that do not merge, keepdims = 0, opset forms, GlobalMaxPool */
static void cases_reduce(void) {
    static const struct {
        const char* op;
        const char* fn;
        float lo, hi;
        int snap;
    } R[] = {{"ReduceSum", "sum", -1, 1, 0},       {"ReduceMean", "mean", -1, 1, 0},   {"ReduceMax", "max", -3, 3, 0},
             {"ReduceMin", "min", -3, 3, 0},       {"ReduceProd", "prod", -0.01f, 0.01f, 3},
             {"ReduceL1", "l1", -1, 1, 0},         {"ReduceL2", "l2", -1, 1, 0},       {"ReduceSumSquare", "sumsquare", -1, 1, 0},
             {"ReduceLogSum", "logsum", 0.1f, 1, 0}, {"ReduceLogSumExp", "logsumexp", -3, 3, 0}};
    int u, p, v;
    tcase tc;
    char expect[96];
    for (u = 0; u < (int)(sizeof R / sizeof R[0]); u++)
        for (p = 0; p < 2; p++)
            for (v = 0; v < 3; v++) {
                const char* dt = p ? "f16" : "f32";
                tin* t;
                /* opset 18: axes as input 1 (ReduceSum from 13) */
                tc_new(&tc, R[u].op, PRECS[p], "%s %s", R[u].op, v == 0 ? "[6,5,7] axes (1)" : v == 1 ? "[40,100] axes (-1)" : "[3,3000] axes (1)");
                tc.opset = 18;
                if (v == 0) t = tc_in(&tc, "x", 3, DIMS(3, I64(6), I64(5), I64(7)), 0, R[u].lo, R[u].hi);
                else if (v == 1) t = tc_in(&tc, "x", 2, DIMS(2, I64(40), I64(100)), 0, R[u].lo, R[u].hi);
                else t = tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(3000)), 0, R[u].lo, R[u].hi);
                t->snap = R[u].snap;
                tc_in_int(&tc, "axes", AICF_DTYPE_INT64, 1, DIMS(1, I64(1)), 1, 1, DIMS(1, I64(v == 1 ? -1 : 1)), 0, 0);
                snprintf(expect, sizeof expect, "aicf_reduce_%s_%s", v == 0 ? "thread" : v == 1 ? "warp" : "block", dt);
                tc.expect = expect;
                run_case(&tc);
            }
    for (p = 0; p < 2; p++) {
        tc_new(&tc, "ReduceMean", PRECS[p], "ReduceMean opset 13 [4,5,6,3] axes (0,2) keepdims 0");
        tc.opset = 13;
        tc_in(&tc, "x", 4, DIMS(4, I64(4), I64(5), I64(6), I64(3)), 0, -1, 1);
        tc_attr_ints(&tc, "axes", 2, DIMS(2, I64(0), I64(2)));
        tc_attr_i(&tc, "keepdims", 0);
        tc.expect = NULL;
        run_case(&tc);
        /* positive values: 24 of [-1, 1] can sum to nearly 0, and then the float16 rounding of the
           inputs alone is percents of the result (a GPU run failed so, rel err 0.0265); a value
           dropped or counted twice still moves the sum by 1% (0.25 of 24) or more */
        tc_new(&tc, "ReduceSum", PRECS[p], "ReduceSum opset 13 [2,3,4] all axes");
        tc.opset = 13;
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(4)), 0, 0.25f, 1);
        tc.expect = NULL;
        run_case(&tc);
        tc_new(&tc, "ReduceMax", PRECS[p], "ReduceMax opset 18 [3,70,2] axes (1) (strided, long)");
        tc.opset = 18;
        tc_in(&tc, "x", 3, DIMS(3, I64(3), I64(70), I64(2)), 0, -3, 3);
        tc_in_int(&tc, "axes", AICF_DTYPE_INT64, 1, DIMS(1, I64(1)), 1, 1, DIMS(1, I64(1)), 0, 0);
        tc.expect = NULL;
        run_case(&tc);
        tc_new(&tc, "GlobalMaxPool", PRECS[p], "GlobalMaxPool [2,5,9,9]");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(5), I64(9), I64(9)), 0, -3, 3);
        tc.expect = p ? "aicf_reduce_warp_f16" : "aicf_reduce_warp_f32";
        run_case(&tc);
    }
}

/* LayerNormalization (with its statistics outputs), RMSNormalization, GroupNormalization per
   group (opset 18) and per channel (opset 21), InstanceNormalization, LogSoftmax */
static void cases_norm(void) {
    int p;
    tcase tc;
    char expect[96];
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        snprintf(expect, sizeof expect, "aicf_norm_warp_%s", dt);
        tc_new(&tc, "LayerNormalization", PRECS[p], "LayerNormalization [5,30] (30 columns: not in groups of 4)");
        tc_in(&tc, "x", 2, DIMS(2, I64(5), I64(30)), 0, -2, 3);
        tc_in(&tc, "s", 1, DIMS(1, I64(30)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(30)), 1, -1, 1);
        tc.expect = expect;
        run_case(&tc);
        { /* rows held in registers, the fewest groups of 4 a lane that hold them */
            static const struct {
                int rows, cols, ng;
                const char* what;
            } RR[4] = {{7, 384, 3, "the encoder's rows: 3 groups of 4 per lane, none idle"},
                       {5, 500, 4, "4 groups of 4 per lane, the last partly idle"},
                       {9, 768, 6, "BERT-base rows: 6 groups of 4 per lane"},
                       {40, 1024, 8, "the row limit: 8 groups of 4 per lane"}};
            int k;
            char what[96];
            for (k = 0; k < 4; k++) {
                snprintf(expect, sizeof expect, "aicf_norm_rowreg%d_%s", RR[k].ng, dt);
                snprintf(what, sizeof what, "LayerNormalization [%d,%d] (%s)", RR[k].rows, RR[k].cols, RR[k].what);
                tc_new(&tc, "LayerNormalization", PRECS[p], "%s", what);
                tc_in(&tc, "x", 2, DIMS(2, I64(RR[k].rows), I64(RR[k].cols)), 0, -2, 3);
                tc_in(&tc, "s", 1, DIMS(1, I64(RR[k].cols)), 1, 0.5f, 1.5f);
                tc_in(&tc, "b", 1, DIMS(1, I64(RR[k].cols)), 1, -1, 1);
                tc.expect = expect;
                run_case(&tc);
            }
        }
        snprintf(expect, sizeof expect, "aicf_norm_rowreg2_%s", dt);
        tc_new(&tc, "LayerNormalization", PRECS[p], "LayerNormalization [2,16,256] axis -1");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(16), I64(256)), 0, -2, 3);
        tc_in(&tc, "s", 1, DIMS(1, I64(256)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(256)), 1, -1, 1);
        tc_attr_f(&tc, "epsilon", 1e-5f);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "LayerNormalization", PRECS[p], "LayerNormalization [3,4,5,6] axis 1, Mean and InvStdDev outputs");
        tc.n_out = 3;
        tc_in(&tc, "x", 4, DIMS(4, I64(3), I64(4), I64(5), I64(6)), 0, -2, 2);
        tc_in(&tc, "s", 3, DIMS(3, I64(4), I64(5), I64(6)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 3, DIMS(3, I64(4), I64(5), I64(6)), 1, -1, 1);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_block_%s", dt);
        tc_new(&tc, "LayerNormalization", PRECS[p], "LayerNormalization [3,3000], no B");
        tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(3000)), 0, -1, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(3000)), 1, 0.5f, 1.5f);
        tc.expect = expect;
        run_case(&tc);
        /* without B the float16 kernels read the scale in its place and mask it to 0; a third
           group of 4 partly past the row (300 columns) reads clamped addresses and is zeroed */
        snprintf(expect, sizeof expect, "aicf_norm_rowreg3_%s", dt);
        tc_new(&tc, "LayerNormalization", PRECS[p], "LayerNormalization [6,300], no B (3 groups, the last partly idle)");
        tc_in(&tc, "x", 2, DIMS(2, I64(6), I64(300)), 0, -2, 3);
        tc_in(&tc, "s", 1, DIMS(1, I64(300)), 1, 0.5f, 1.5f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_rowreg6_%s", dt);
        tc_new(&tc, "RMSNormalization", PRECS[p], "RMSNormalization opset 23 [5,704] (6 groups, the last partly idle)");
        tc.opset = 23;
        tc_in(&tc, "x", 2, DIMS(2, I64(5), I64(704)), 0, -2, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(704)), 1, 0.5f, 1.5f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_rowreg2_%s", dt);
        tc_new(&tc, "RMSNormalization", PRECS[p], "RMSNormalization opset 23 [6,64]");
        tc.opset = 23;
        tc_in(&tc, "x", 2, DIMS(2, I64(6), I64(64)), 0, -2, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(64)), 1, 0.5f, 1.5f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_warp_%s", dt);
        tc_new(&tc, "GroupNormalization", PRECS[p], "GroupNormalization opset 18 [2,6,5,5] groups 3 (per group)");
        tc.opset = 18;
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(6), I64(5), I64(5)), 0, -2, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(3)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(3)), 1, -1, 1);
        tc_attr_i(&tc, "num_groups", 3);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_block_%s", dt);
        tc_new(&tc, "GroupNormalization", PRECS[p], "GroupNormalization opset 21 [2,8,20,20] groups 2 (per channel)");
        tc.opset = 21;
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(8), I64(20), I64(20)), 0, -2, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(8)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(8)), 1, -1, 1);
        tc_attr_i(&tc, "num_groups", 2);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_norm_warp_%s", dt);
        tc_new(&tc, "InstanceNormalization", PRECS[p], "InstanceNormalization [2,6,7,9]");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(6), I64(7), I64(9)), 0, -2, 2);
        tc_in(&tc, "s", 1, DIMS(1, I64(6)), 1, 0.5f, 1.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(6)), 1, -1, 1);
        tc_attr_f(&tc, "epsilon", 1e-3f);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_logsoftmax_warp_%s", dt);
        tc_new(&tc, "LogSoftmax", PRECS[p], "LogSoftmax [6,100] axis -1");
        tc_in(&tc, "x", 2, DIMS(2, I64(6), I64(100)), 0, -4, 4);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_logsoftmax_block_%s", dt);
        tc_new(&tc, "LogSoftmax", PRECS[p], "LogSoftmax [3,2000]");
        tc_in(&tc, "x", 2, DIMS(2, I64(3), I64(2000)), 0, -4, 4);
        tc.expect = expect;
        run_case(&tc);
        snprintf(expect, sizeof expect, "aicf_logsoftmax_strided_%s", dt);
        tc_new(&tc, "LogSoftmax", PRECS[p], "LogSoftmax [4,10,6] axis 1");
        tc_in(&tc, "x", 3, DIMS(3, I64(4), I64(10), I64(6)), 0, -4, 4);
        tc_attr_i(&tc, "axis", 1);
        tc.expect = expect;
        run_case(&tc);
    }
}

/* Resize / Upsample (nearest and linear, every coordinate transformation), ConvTranspose */
static void cases_resize_convt(void) {
    int p;
    tcase tc;
    char expect[96];
    for (p = 0; p < 2; p++) {
        const char* dt = p ? "f16" : "f32";
        snprintf(expect, sizeof expect, "aicf_resize2d_%s", dt);
        tc_new(&tc, "Resize", PRECS[p], "Resize nearest asymmetric floor scales (1,1,2,3) [1,2,5,4]");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(2), I64(5), I64(4)), 0, -2, 2);
        tc_omit(&tc);
        tc_in_vals(&tc, "sc", 1, DIMS(1, I64(4)), 4, FV(4, 1.0, 1.0, 2.0, 3.0));
        tc_attr_s(&tc, "mode", "nearest");
        tc_attr_s(&tc, "coordinate_transformation_mode", "asymmetric");
        tc_attr_s(&tc, "nearest_mode", "floor");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize linear half_pixel sizes (2,3,7,9) [2,3,4,6]");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(3), I64(4), I64(6)), 0, -2, 2);
        tc_omit(&tc);
        tc_omit(&tc);
        tc_in_int(&tc, "sz", AICF_DTYPE_INT64, 1, DIMS(1, I64(4)), 1, 4, DIMS(4, I64(2), I64(3), I64(7), I64(9)), 0, 0);
        tc_attr_s(&tc, "mode", "linear");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize linear align_corners sizes (1,2,9,3) [1,2,4,5]");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(2), I64(4), I64(5)), 0, -2, 2);
        tc_omit(&tc);
        tc_omit(&tc);
        tc_in_int(&tc, "sz", AICF_DTYPE_INT64, 1, DIMS(1, I64(4)), 1, 4, DIMS(4, I64(1), I64(2), I64(9), I64(3)), 0, 0);
        tc_attr_s(&tc, "mode", "linear");
        tc_attr_s(&tc, "coordinate_transformation_mode", "align_corners");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize nearest pytorch_half_pixel round_prefer_ceil sizes (8,1) on [5,3] axes (1,0) opset 18");
        tc.opset = 18;
        tc_in(&tc, "x", 2, DIMS(2, I64(5), I64(3)), 0, -2, 2);
        tc_omit(&tc);
        tc_omit(&tc);
        tc_in_int(&tc, "sz", AICF_DTYPE_INT64, 1, DIMS(1, I64(2)), 1, 2, DIMS(2, I64(8), I64(1)), 0, 0);
        tc_attr_ints(&tc, "axes", 2, DIMS(2, I64(1), I64(0)));
        tc_attr_s(&tc, "mode", "nearest");
        tc_attr_s(&tc, "coordinate_transformation_mode", "pytorch_half_pixel");
        tc_attr_s(&tc, "nearest_mode", "round_prefer_ceil");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize linear half_pixel_symmetric exclude_outside not_larger sizes (6,10) opset 19 [1,1,4,4]");
        tc.opset = 19;
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(1), I64(4), I64(4)), 0, -2, 2);
        tc_omit(&tc);
        tc_omit(&tc);
        tc_in_int(&tc, "sz", AICF_DTYPE_INT64, 1, DIMS(1, I64(2)), 1, 2, DIMS(2, I64(6), I64(10)), 0, 0);
        tc_attr_ints(&tc, "axes", 2, DIMS(2, I64(2), I64(3)));
        tc_attr_s(&tc, "mode", "linear");
        tc_attr_s(&tc, "coordinate_transformation_mode", "half_pixel_symmetric");
        tc_attr_s(&tc, "keep_aspect_ratio_policy", "not_larger");
        tc_attr_i(&tc, "exclude_outside", 1);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize linear tf_crop_and_resize roi extrapolation [1,1,6,5] -> (1,1,4,7)");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(1), I64(6), I64(5)), 0, -2, 2);
        tc_in_vals(&tc, "roi", 1, DIMS(1, I64(8)), 8, FV(8, 0.0, 0.0, 0.2, 0.1, 1.0, 1.0, 0.9, 1.2));
        tc_omit(&tc);
        tc_in_int(&tc, "sz", AICF_DTYPE_INT64, 1, DIMS(1, I64(4)), 1, 4, DIMS(4, I64(1), I64(1), I64(4), I64(7)), 0, 0);
        tc_attr_s(&tc, "mode", "linear");
        tc_attr_s(&tc, "coordinate_transformation_mode", "tf_crop_and_resize");
        tc_attr_f(&tc, "extrapolation_value", 0.5f);
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Upsample", PRECS[p], "Upsample opset 9 nearest scales (1,1,2,2) [1,3,3,4]");
        tc.opset = 9;
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(3), I64(3), I64(4)), 0, -2, 2);
        tc_in_vals(&tc, "sc", 1, DIMS(1, I64(4)), 4, FV(4, 1.0, 1.0, 2.0, 2.0));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "Resize", PRECS[p], "Resize 1-D linear asymmetric scales (1,1,2.5) [2,3,8]");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(8)), 0, -2, 2);
        tc_omit(&tc);
        tc_in_vals(&tc, "sc", 1, DIMS(1, I64(3)), 3, FV(3, 1.0, 1.0, 2.5));
        tc_attr_s(&tc, "mode", "linear");
        tc_attr_s(&tc, "coordinate_transformation_mode", "asymmetric");
        tc.expect = expect;
        run_case(&tc);
        /* ConvTranspose */
        snprintf(expect, sizeof expect, "aicf_convtranspose2d_%s", dt);
        tc_new(&tc, "ConvTranspose", PRECS[p], "ConvTranspose [1,4,5,6] w[4,3,3,3] s2 p1 output_padding 1 bias");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(4), I64(5), I64(6)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(4), I64(3), I64(3), I64(3)), 1, -0.5f, 0.5f);
        tc_in(&tc, "b", 1, DIMS(1, I64(3)), 1, -1, 1);
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "pads", 4, DIMS(4, I64(1), I64(1), I64(1), I64(1)));
        tc_attr_ints(&tc, "output_padding", 2, DIMS(2, I64(1), I64(1)));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "ConvTranspose", PRECS[p], "ConvTranspose [2,6,4,4] w[6,2,2,3] group 3 dilations (2,1) s(1,2)");
        tc_in(&tc, "x", 4, DIMS(4, I64(2), I64(6), I64(4), I64(4)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(6), I64(2), I64(2), I64(3)), 1, -0.5f, 0.5f);
        tc_attr_i(&tc, "group", 3);
        tc_attr_ints(&tc, "dilations", 2, DIMS(2, I64(2), I64(1)));
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(1), I64(2)));
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "ConvTranspose", PRECS[p], "ConvTranspose 1-D [2,3,10] w[3,4,4] s3 SAME_UPPER");
        tc_in(&tc, "x", 3, DIMS(3, I64(2), I64(3), I64(10)), 0, -1, 1);
        tc_in(&tc, "w", 3, DIMS(3, I64(3), I64(4), I64(4)), 1, -0.5f, 0.5f);
        tc_attr_ints(&tc, "strides", 1, DIMS(1, I64(3)));
        tc_attr_s(&tc, "auto_pad", "SAME_UPPER");
        tc.expect = expect;
        run_case(&tc);
        tc_new(&tc, "ConvTranspose", PRECS[p], "ConvTranspose [1,2,3,3] w[2,2,3,3] s2 output_shape (7,6)");
        tc_in(&tc, "x", 4, DIMS(4, I64(1), I64(2), I64(3), I64(3)), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, I64(2), I64(2), I64(3), I64(3)), 1, -0.5f, 0.5f);
        tc_attr_ints(&tc, "strides", 2, DIMS(2, I64(2), I64(2)));
        tc_attr_ints(&tc, "output_shape", 2, DIMS(2, I64(7), I64(6)));
        tc.expect = expect;
        run_case(&tc);
    }
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
    p = NULL;
    aicf_graph_destroy(g);
    /* Gather of int64 data computed at run time (integer tensors stay on the host for now) */
    {
        int64_t xd[2] = {4, 3}, id[1] = {2}, iv[2] = {1, 3};
        const char* gin[2] = {"a", "i"};
        aicf_graph_create(g_ctx, &g);
        memset(&d, 0, sizeof d);
        d.dtype = AICF_DTYPE_INT64;
        d.rank = 2;
        d.dims = xd;
        d.name = "a";
        aicf_graph_add_input(g, &d);
        d.rank = 1;
        d.dims = id;
        d.name = "i";
        d.data = iv;
        d.data_bytes = sizeof iv;
        aicf_graph_add_constant(g, &d);
        memset(&nd, 0, sizeof nd);
        nd.name = "int_gather";
        nd.op_type = "Gather";
        nd.inputs = gin;
        nd.num_inputs = 2;
        nd.outputs = out1;
        nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        aicf_graph_add_output(g, "y");
        r = aicf_plan_create(g, &pd, &p);
        CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(g_ctx), "node 0 'int_gather' (Gather)") &&
                  strstr(aicf_last_error(g_ctx), "int64"),
              "int64 Gather data on the device: %s / %s", aicf_result_str(r), aicf_last_error(g_ctx));
        aicf_plan_destroy(p);
        p = NULL;
        aicf_graph_destroy(g);
    }
    /* Resize: cubic, and resizing a channel axis, are not lowered */
    {
        int64_t xd[4] = {1, 2, 4, 4}, sd[1] = {4};
        float cubic[4] = {1, 1, 2, 2}, chan[4] = {1, 2, 1, 1};
        const char* rin[3] = {"a", "", "s"};
        int k;
        for (k = 0; k < 2; k++) {
            aicf_attr at;
            aicf_graph_create(g_ctx, &g);
            memset(&d, 0, sizeof d);
            d.dtype = AICF_DTYPE_FLOAT32;
            d.rank = 4;
            d.dims = xd;
            d.name = "a";
            aicf_graph_add_input(g, &d);
            d.rank = 1;
            d.dims = sd;
            d.name = "s";
            d.data = k ? chan : cubic;
            d.data_bytes = sizeof cubic;
            aicf_graph_add_constant(g, &d);
            memset(&at, 0, sizeof at);
            at.name = "mode";
            at.type = AICF_ATTR_STRING;
            at.s = k ? "linear" : "cubic";
            memset(&nd, 0, sizeof nd);
            nd.name = "rs";
            nd.op_type = "Resize";
            nd.inputs = rin;
            nd.num_inputs = 3;
            nd.outputs = out1;
            nd.num_outputs = 1;
            nd.attrs = &at;
            nd.num_attrs = 1;
            aicf_graph_add_node(g, &nd);
            aicf_graph_add_output(g, "y");
            r = aicf_plan_create(g, &pd, &p);
            CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(g_ctx), "node 0 'rs' (Resize)") &&
                      strstr(aicf_last_error(g_ctx), k ? "axis 1" : "cubic"),
                  "Resize %s on the device: %s / %s", k ? "of the channel axis" : "cubic", aicf_result_str(r), aicf_last_error(g_ctx));
            aicf_plan_destroy(p);
            p = NULL;
            aicf_graph_destroy(g);
        }
    }
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

/* ==== Conv: im2col + cuBLASLt vs direct (src/82_cuda_conv.c) ====================================
   Every shape runs with policy.conv_algo = DIRECT (the generated kernels), IMPLICIT_GEMM_TC (fp16:
   the tensor-core implicit GEMM, with split-K where the tiles do not fill the GPU; fp32 falls
   back to the generated kernels) and IM2COL_GEMM (im2col
   into the arena scratch + one strided-batched cuBLASLt GEMM + the bias add; 1x1 stride-1
   unpadded convs without the im2col), at fp32 and fp16 (and tf32 for some), each against the
   CPU reference with the harness's tolerances; the plan must launch what the policy asks for
   (without cuBLASLt, IM2COL_GEMM falls back to the generated kernels). Shapes: stride 2,
   padding (symmetric, asymmetric, SAME_UPPER), dilation, 1x1 pointwise and strided, 7x7 stems,
   1-D, batch 1 and 3, with and without bias, and random ones. Then a chain of convs with
   IM2COL_GEMM replayed g_replays times, bitwise identical every time. */
typedef struct ca_shape {
    int64_t N, C, H, W, M, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
    int rank, bias, tf32;
    const char* auto_pad;
} ca_shape;

static ca_shape ca_mk(int rank, int64_t N, int64_t C, int64_t H, int64_t W, int64_t M, int64_t KH, int64_t KW, int64_t s,
                      int64_t pad, int64_t dil, int bias) {
    ca_shape c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.N = N;
    c.C = C;
    c.H = rank == 3 ? 1 : H;
    c.W = W;
    c.M = M;
    c.KH = rank == 3 ? 1 : KH;
    c.KW = KW;
    c.sh = rank == 3 ? 1 : s;
    c.sw = s;
    c.dh = rank == 3 ? 1 : dil;
    c.dw = dil;
    c.pt = c.pb = rank == 3 ? 0 : pad;
    c.pl = c.pr = pad;
    c.bias = bias;
    return c;
}

static void ca_run(const ca_shape* c, aicf_conv_algo algo, aicf_precision prec) {
    tcase tc;
    char expect[96];
    const char* dt = prec == AICF_PRECISION_FP16 ? "f16" : "f32";
    int pointwise = c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && !c->pt && !c->pl && !c->pb && !c->pr;
    tc_new(&tc, "Conv", prec,
           "Conv %s x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] s(%lld,%lld) d(%lld,%lld) %s(%lld,%lld,%lld,%lld)%s",
           algo == AICF_CONV_DIRECT ? "DIRECT" : algo == AICF_CONV_IM2COL_GEMM ? "IM2COL_GEMM" : "IMPLICIT_GEMM_TC", (long long)c->N, (long long)c->C, (long long)c->H,
           (long long)c->W, (long long)c->M, (long long)c->C, (long long)c->KH, (long long)c->KW, (long long)c->sh,
           (long long)c->sw, (long long)c->dh, (long long)c->dw, c->auto_pad ? c->auto_pad : "p", (long long)c->pt,
           (long long)c->pl, (long long)c->pb, (long long)c->pr, c->bias ? " bias" : "");
    if (c->rank == 4) {
        tc_in(&tc, "x", 4, DIMS(4, c->N, c->C, c->H, c->W), 0, -1, 1);
        tc_in(&tc, "w", 4, DIMS(4, c->M, c->C, c->KH, c->KW), 1, -0.5f, 0.5f);
    } else {
        tc_in(&tc, "x", 3, DIMS(3, c->N, c->C, c->W), 0, -1, 1);
        tc_in(&tc, "w", 3, DIMS(3, c->M, c->C, c->KW), 1, -0.5f, 0.5f);
    }
    if (c->bias) tc_in(&tc, "b", 1, DIMS(1, c->M), 1, -1, 1);
    if (c->rank == 4) {
        tc_attr_ints(&tc, "strides", 2, DIMS(2, c->sh, c->sw));
        tc_attr_ints(&tc, "dilations", 2, DIMS(2, c->dh, c->dw));
        if (c->auto_pad) tc_attr_s(&tc, "auto_pad", c->auto_pad);
        else tc_attr_ints(&tc, "pads", 4, DIMS(4, c->pt, c->pl, c->pb, c->pr));
    } else {
        tc_attr_ints(&tc, "strides", 1, DIMS(1, c->sw));
        tc_attr_ints(&tc, "dilations", 1, DIMS(1, c->dw));
        tc_attr_ints(&tc, "pads", 2, DIMS(2, c->pl, c->pr));
    }
    if (algo == AICF_CONV_IMPLICIT_GEMM_TC) snprintf(expect, sizeof expect, prec == AICF_PRECISION_FP16 ? "aicf_conv2d_tc" : "aicf_conv2d_");
    else if (algo == AICF_CONV_DIRECT || !g_have_lt) snprintf(expect, sizeof expect, "aicf_conv2d_");
    else if (pointwise) snprintf(expect, sizeof expect, "cublasLt:matmul");
    else {
        /* float16 with several images and N*P % 8 == 0: the batched lowering (k-major column
           buffer, one GEMM with a float32 product, the reduction kernel writing NCHW) */
        int64_t oh = c->rank == 4 ? (c->H + c->pt + c->pb - (c->KH - 1) * c->dh - 1) / c->sh + 1 : 1;
        int64_t ow = (c->W + c->pl + c->pr - (c->KW - 1) * c->dw - 1) / c->sw + 1;
        if (prec == AICF_PRECISION_FP16 && c->N > 1 && (c->N * oh * ow) % 8 == 0)
            snprintf(expect, sizeof expect, "aicf_im2col_knp_f16 cublasLt:matmul aicf_conv2d_tc_reduce_f16");
        else snprintf(expect, sizeof expect, "aicf_im2col_%s cublasLt:matmul%s", dt, c->bias ? " aicf_binary_add_" : "");
    }
    tc.expect = expect;
    g_conv_algo = algo;
    run_case(&tc);
    g_conv_algo = AICF_CONV_AUTO;
}

static void cases_conv_algo(void) {
    ca_shape cs[32];
    int n = 0, i, a, p;
    static const aicf_conv_algo ALGOS[3] = {AICF_CONV_DIRECT, AICF_CONV_IM2COL_GEMM, AICF_CONV_IMPLICIT_GEMM_TC};
    cs[n++] = ca_mk(4, 1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1);  /* resnet-style 3x3 */
    cs[n++] = ca_mk(4, 3, 32, 17, 15, 48, 3, 3, 2, 1, 1, 0);  /* stride 2, batch 3 */
    cs[n++] = ca_mk(4, 2, 16, 13, 13, 40, 3, 3, 1, 2, 2, 1);  /* dilation 2 */
    cs[n++] = ca_mk(4, 1, 3, 64, 64, 64, 7, 7, 2, 3, 1, 0);   /* 7x7 stem */
    cs[n++] = ca_mk(4, 3, 3, 32, 30, 32, 7, 7, 2, 3, 1, 1);   /* 7x7 stem, batch 3, bias */
    cs[n++] = ca_mk(4, 2, 64, 14, 14, 128, 1, 1, 1, 0, 1, 1); /* 1x1 pointwise: no im2col */
    cs[n++] = ca_mk(4, 1, 70, 9, 11, 20, 1, 1, 1, 0, 1, 0);   /* 1x1 pointwise, odd sizes */
    cs[n++] = ca_mk(4, 3, 64, 15, 15, 32, 1, 1, 2, 0, 1, 1);  /* 1x1 stride 2: im2col */
    cs[n++] = ca_mk(4, 1, 8, 9, 9, 5, 3, 3, 1, 1, 1, 1);      /* tiny M and K */
    cs[n++] = ca_mk(3, 3, 20, 1, 50, 36, 1, 5, 2, 2, 1, 1);   /* 1-D */
    cs[n] = ca_mk(4, 2, 12, 10, 13, 35, 3, 2, 1, 0, 1, 1);     /* asymmetric pads, mixed stride/dilation */
    cs[n].sw = 2;
    cs[n].dh = 2;
    cs[n].pt = 2;
    cs[n].pb = 1;
    cs[n].pr = 3;
    cs[n++].tf32 = 1;
    cs[n] = ca_mk(4, 1, 8, 11, 10, 40, 5, 5, 2, 0, 1, 0);      /* SAME_UPPER 5x5 s2: pads 2,1,2,2 */
    cs[n].auto_pad = "SAME_UPPER";
    cs[n].pt = 2;
    cs[n].pl = 1;
    cs[n].pb = 2;
    cs[n++].pr = 2;
    cs[0].tf32 = cs[3].tf32 = 1;
    /* the tensor-core kernel's split-K (fewer output tiles than SMs): resnet layer4 at batch 1
       (49 columns: 16-bit stores), M not a multiple of 64 with K not a multiple of 8 */
    cs[n++] = ca_mk(4, 1, 256, 7, 7, 256, 3, 3, 1, 1, 1, 1);
    cs[n++] = ca_mk(4, 2, 33, 8, 8, 72, 3, 3, 1, 1, 1, 1);
    cs[n++] = ca_mk(4, 1, 512, 14, 14, 128, 3, 3, 2, 1, 1, 0);
    cs[n++] = ca_mk(4, 2, 3, 32, 30, 128, 7, 7, 2, 3, 1, 1); /* K = 147, M = 128: 128-row tiles, 2-byte weights */
    cs[n++] = ca_mk(4, 2, 32, 20, 20, 136, 3, 3, 1, 1, 1, 1); /* the rows kernel: 64-row blocks, 8-byte copies, split-K */
    cs[n++] = ca_mk(4, 2, 32, 16, 16, 256, 3, 3, 1, 1, 1, 0); /* the rows kernel: 128-row blocks, 16-byte copies, 7-row tiles */
    cs[n++] = ca_mk(4, 2, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1);  /* the rows kernel: 4-byte copies (W % 4 == 2) */
    cs[n++] = ca_mk(4, 3, 16, 10, 10, 264, 3, 3, 1, 1, 1, 0); /* the rows kernel: 128-row blocks, 4-byte copies */
    /* the batched im2col lowering at float16: resnet's 14x14 (P % 4 == 0: 4 columns a thread in
       the reduction) and 7x7 layers (P odd) with several images */
    cs[n++] = ca_mk(4, 4, 64, 14, 14, 96, 3, 3, 1, 1, 1, 1);
    cs[n++] = ca_mk(4, 8, 48, 7, 7, 80, 3, 3, 1, 1, 1, 0);
    cs[n++] = ca_mk(4, 12, 32, 6, 6, 40, 3, 3, 1, 1, 1, 1); /* 12 images: the im2col kernel's blocks of 8 and of 4 */
    for (i = 0; i < 6; i++) { /* random shapes */
        int64_t k = 1 + 2 * (int64_t)(rnd_u64() % 4), pad = (int64_t)(rnd_u64() % 3), dil = 1 + (int64_t)(rnd_u64() % 2);
        ca_shape c = ca_mk(rnd_u64() % 5 ? 4 : 3, 1 + (int64_t)(rnd_u64() % 3), 1 + (int64_t)(rnd_u64() % 48),
                           5 + (int64_t)(rnd_u64() % 30), 5 + (int64_t)(rnd_u64() % 30), 1 + (int64_t)(rnd_u64() % 96), k,
                           rnd_u64() % 3 ? k : 1 + (int64_t)(rnd_u64() % 5), 1 + (int64_t)(rnd_u64() % 2), pad, dil,
                           (int)(rnd_u64() % 2));
        while (c.H + c.pt + c.pb - (c.KH - 1) * c.dh - 1 < 0) c.H++;
        while (c.W + c.pl + c.pr - (c.KW - 1) * c.dw - 1 < 0) c.W++;
        cs[n++] = c;
    }
    for (i = 0; i < n; i++)
        for (a = 0; a < 3; a++) {
            for (p = 0; p < 2; p++) ca_run(&cs[i], ALGOS[a], PRECS[p]);
            if (cs[i].tf32 && ALGOS[a] == AICF_CONV_IM2COL_GEMM) ca_run(&cs[i], ALGOS[a], AICF_PRECISION_TF32);
        }
}

/* Conv(3x3 p1, bias) -> Relu -> Conv(1x1) -> Conv(3x3 s2 p1, bias) -> Relu, IM2COL_GEMM: three
   steps with scratch and a fused epilogue; every replay bitwise identical to the first, and the
   first against the CPU reference. */
static void test_replay_conv_algo(aicf_precision prec) {
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    aicf_attr at[2];
    int64_t xd[4] = {3, 16, 20, 20}, w1d[4] = {32, 16, 3, 3}, w2d[4] = {48, 32, 1, 1}, w3d[4] = {32, 48, 3, 3}, b1d[1] = {32};
    int64_t pads[4] = {1, 1, 1, 1}, s2[2] = {2, 2};
    static float w1[32 * 16 * 9], w2[48 * 32], w3[32 * 48 * 9], b1[32], b3[32], x[3 * 16 * 20 * 20];
    static float first[3 * 32 * 10 * 10], out[3 * 32 * 10 * 10], ref[3 * 32 * 10 * 10];
    const char *c1in[3] = {"x", "w1", "b1"}, *c1out[1] = {"c1"}, *r1in[1] = {"c1"}, *r1out[1] = {"r1"};
    const char *c2in[2] = {"r1", "w2"}, *c2out[1] = {"c2"}, *c3in[3] = {"c2", "w3", "b3"}, *c3out[1] = {"c3"};
    const char *r3in[1] = {"c3"}, *r3out[1] = {"y"};
    int i, bad = 0, it, scratch_steps = 0;
    double maxabs, e1;
    aicf_result r;
    if (!g_have_lt) {
        printf("SKIP conv replay with IM2COL_GEMM [%s]: cuBLASLt is not loaded\n", prec_name(prec));
        return;
    }
    for (i = 0; i < (int)(sizeof w1 / sizeof w1[0]); i++) w1[i] = rndf(-0.3f, 0.3f);
    for (i = 0; i < (int)(sizeof w2 / sizeof w2[0]); i++) w2[i] = rndf(-0.3f, 0.3f);
    for (i = 0; i < (int)(sizeof w3 / sizeof w3[0]); i++) w3[i] = rndf(-0.2f, 0.2f);
    for (i = 0; i < 32; i++) {
        b1[i] = rndf(-0.5f, 0.5f);
        b3[i] = rndf(-0.5f, 0.5f);
    }
    for (i = 0; i < (int)(sizeof x / sizeof x[0]); i++) x[i] = rndf(-1, 1);
    aicf_graph_create(g_ctx, &g);
    add_t(g, "x", 4, xd, NULL, 0);
    add_t(g, "w1", 4, w1d, w1, sizeof w1);
    add_t(g, "b1", 1, b1d, b1, sizeof b1);
    add_t(g, "w2", 4, w2d, w2, sizeof w2);
    add_t(g, "w3", 4, w3d, w3, sizeof w3);
    add_t(g, "b3", 1, b1d, b3, sizeof b3);
    memset(at, 0, sizeof at);
    at[0].name = "pads";
    at[0].type = AICF_ATTR_INTS;
    at[0].ints = pads;
    at[0].count = 4;
    at[1].name = "strides";
    at[1].type = AICF_ATTR_INTS;
    at[1].ints = s2;
    at[1].count = 2;
    add_n(g, "conv1", "Conv", c1in, 3, c1out, at, 1);
    add_n(g, "relu1", "Relu", r1in, 1, r1out, NULL, 0);
    add_n(g, "conv2", "Conv", c2in, 2, c2out, NULL, 0);
    add_n(g, "conv3", "Conv", c3in, 3, c3out, at, 2);
    add_n(g, "relu3", "Relu", r3in, 1, r3out, NULL, 0);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "conv replay CPU plan: %s", aicf_last_error(g_ctx));
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
    pd.policy.conv_algo = AICF_CONV_IM2COL_GEMM;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "conv replay CUDA plan: %s", aicf_last_error(g_ctx));
    if (r != AICF_SUCCESS) goto done;
    for (i = 0; i < p->n_steps; i++) scratch_steps += p->steps[i].scratch_bytes != 0;
    CHECK(scratch_steps == 2, "conv replay [%s]: %d steps with im2col scratch, expected 2 (conv1, conv3)", prec_name(prec),
          scratch_steps);
    if (g_verbose) {
        char k[1024];
        plan_kernels(p, k, sizeof k);
    }
    r = aicf_exec_create(p, NULL, &e);
    CHECK(r == AICF_SUCCESS, "conv replay exec: %s", aicf_last_error(g_ctx));
    if (r != AICF_SUCCESS) goto done;
    aicf_exec_set_input(e, 0, x, sizeof x);
    CHECK(aicf_exec_run(e) == AICF_SUCCESS && aicf_exec_get_output(e, 0, first, sizeof first) == AICF_SUCCESS,
          "conv replay 1: %s", aicf_last_error(g_ctx));
    for (it = 1; it < g_replays; it++) {
        if (aicf_exec_run(e) != AICF_SUCCESS || aicf_exec_get_output(e, 0, out, sizeof out) != AICF_SUCCESS) {
            bad = -1;
            break;
        }
        if (memcmp(out, first, sizeof out) != 0) bad++;
    }
    CHECK(bad == 0, "conv replay IM2COL_GEMM [%s]: %d of %d replays differ from the first (-1: a run failed: %s)",
          prec_name(prec), bad, g_replays - 1, aicf_last_error(g_ctx));
    e1 = rel_err(first, ref, sizeof ref / sizeof ref[0], &maxabs);
    CHECK(e1 >= 0 && e1 <= tol_of(prec), "conv replay IM2COL_GEMM [%s] vs CPU: rel err %.3g", prec_name(prec), e1);
    printf("%s conv replay IM2COL_GEMM [%s]: %d runs bitwise identical: %s, rel err vs CPU %.3g\n",
           bad == 0 && e1 >= 0 && e1 <= tol_of(prec) ? "ok  " : "FAIL", prec_name(prec), g_replays, bad == 0 ? "yes" : "no", e1);
done:
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
}
/* ==== end of Conv: im2col + cuBLASLt vs direct ==================================================== */

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
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];
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
    g_cc = info.cc_major * 10 + info.cc_minor;
    g_wg = aicf__cuda_wg_ok(g_ctx, aicf__cuda_kernel_find("aicf_gemm_wg_f16_64x32"));
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
    /* every op kernel was written for 256 threads per block (81_cuda_ops.c launches that), but the
       tensor-core convs (gathering and patch), written for 2 x their rows per block (82_cuda_conv.c launches that),
       the GEMV kernels (128) and the small-M tensor-core GEMMs (512) */
    for (i = 0; i < AICF__KT_NUM_KERNELS; i++)
        if (strcmp(aicf__kt_kernels[i].op, "axpy") != 0) {
            const char* nm = aicf__kt_kernels[i].name;
            unsigned want = !strncmp(nm, "aicf_conv2d_tc_f16_m", 20)    ? 2u * (unsigned)atoi(nm + 20)
                            : !strncmp(nm, "aicf_conv2d_tcp_f16_m", 21) ? 2u * (unsigned)atoi(nm + 21)
                            : !strncmp(nm, "aicf_gemv_", 10)         ? 128u /* aicf__cuo_lower_gemv: 4 warps */
                            : !strncmp(nm, "aicf_attention_", 15)    ? 128u /* aicf__cuo_lower_attention: 4 warps */
                            : !strncmp(nm, "aicf_gemm_tc_f16_s", 18) ? 512u /* aicf__cuo_lower_gemm_tcs: 16 warps */
                            : !strncmp(nm, "aicf_gemm_wg_", 13)      ? (strstr(nm, "_ln") ? 256u : 128u) /* aicf__cuo_lower_gemm_wg: one
                                                                         warpgroup; aicf__cuo_lower_ln_fold: two */
                            : !strncmp(nm, "aicf_gemm_ws_", 13)      ? 384u /* aicf__cuo_lower_gemm_ws: three warpgroups */
                                                                     : AICF__CUO_BLOCK;
            CHECK(aicf__kt_kernels[i].block == want, "kernel %s: block %u, the lowering launches %u", aicf__kt_kernels[i].name,
                  aicf__kt_kernels[i].block, want);
        }
    cases_unary();
    test_gelu_f16_exhaustive();
    cases_binary();
    cases_conv();
    cases_conv_algo();
    cases_gemm();
    cases_pool();
    cases_softmax_layout();
    cases_attention();
    cases_index();
    cases_reduce();
    cases_norm();
    cases_resize_convt();
    test_errors();
    if (g_only) {
        printf("--only '%s': replay tests and the kernel coverage check left out\n", g_only);
        goto end;
    }
    if (!g_plan_only) {
        test_replay(AICF_PRECISION_FP32);
        test_replay(AICF_PRECISION_FP16);
        test_replay_conv_algo(AICF_PRECISION_FP32);
        test_replay_conv_algo(AICF_PRECISION_FP16);
    }
    /* coverage: every op kernel of the table launched at least once */
    for (i = 0; i < AICF__KT_NUM_KERNELS; i++) {
        if (!strcmp(aicf__kt_kernels[i].op, "axpy")) {
            printf("SKIP %s: the codegen sample kernel, not used by any op lowering\n", aicf__kt_kernels[i].name);
            continue;
        }
        if (!strcmp(aicf__kt_kernels[i].op, "gemvp")) { /* plans of several steps */
            printf("SKIP %s: exercised by build/test_gpu_fusion (MLP cases, persistent replays at M = 1, 2, 3, 8)\n",
                   aicf__kt_kernels[i].name);
            continue;
        }
        if ((!strcmp(aicf__kt_kernels[i].op, "gemm_wg") || !strcmp(aicf__kt_kernels[i].op, "gemm_ws")) && !g_wg) { /* sm_90a images, tensor maps */
            printf("SKIP %s: compute capability 9.0 (sm_90a) and cuTensorMapEncodeTiled only; the device is sm_%d\n",
                   aicf__kt_kernels[i].name, g_cc);
            continue;
        }
        if (!strcmp(aicf__kt_kernels[i].op, "im2col") && !g_have_lt) { /* Conv as im2col + cuBLASLt GEMM only */
            printf("SKIP %s: the im2col lowering feeds a cuBLASLt GEMM, and no cuBLASLt is loaded here (as with the fake driver)\n",
                   aicf__kt_kernels[i].name);
            continue;
        }
        if (strstr(aicf__kt_kernels[i].name, "_ln") && !strcmp(aicf__kt_kernels[i].op, "gemm_wg")) { /* a LayerNorm folded into a MatMul */
            printf("SKIP %s: exercised by build/test_gpu_fusion (the ln_fold cases, which check the kernel each takes)\n",
                   aicf__kt_kernels[i].name);
            continue;
        }
        if (!strcmp(aicf__kt_kernels[i].op, "gemm_wsln")) { /* a LayerNorm after a MatMul */
            printf("SKIP %s: exercised by build/test_gpu_fusion (the ln_epi cases, which check the kernel each takes)\n",
                   aicf__kt_kernels[i].name);
            continue;
        }
        if (!strcmp(aicf__kt_kernels[i].op, "ewchain")) { /* fused steps: plans with fusion on */
            printf("SKIP %s: exercised by build/test_gpu_fusion (fused vs unfused plans)\n", aicf__kt_kernels[i].name);
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
