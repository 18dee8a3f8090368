/* gemm_direct: a large GEMM through aicf and through the same cuBLASLt call made directly,
   timed the same way, side by side (the target: aicf >= 0.97x the direct call).

     build/gemm_direct [--iters N] [--warmup N] [--precision tf32|fp32|fp16]... [--json] [MxNxK]...
     (make bench-build; defaults: 4096x4096x4096 and 8192x8192x8192, precisions tf32 and fp16)

   For each size and precision:
     aicf    Y[M,N] = MatMul(A[M,K], B[K,N]): A a float32 graph input, B a float32 constant (the
             weights), planned with that precision policy and matmul_algo = cuBLASLt, run with
             AICF_EXEC_DEVICE_IO (no copy nodes), timed with aicf_exec_benchmark (CUDA events
             around each cuGraphLaunch). At tf32 and fp32 the CUDA graph is exactly one node, the
             captured cublasLtMatmul (float32 storage; TF32 or float32 tensor math): the same call
             as the direct one, so direct/aicf measures what aicf adds. At fp16 the API boundary
             stays float32 (aicf takes float16 graph inputs nowhere), so the graph also holds the
             cast of A to float16 and of Y back to float32: that row shows what the boundary
             costs beside the bare float16 GEMM, and is not the 3% check ("one_gemm": false).
     direct  cublasLtMatmul called on a stream, descriptors built here as aicf builds them
             (row-major Y = A B as column-major Y^T = B^T A^T; float32 or float16 storage,
             float32 compute and scale, TF32 tensor math at tf32, no epilogue), the same heuristic
             query (cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace limit, 256-byte
             alignment of A, B, C and D, 8 results requested, result #0 used), a CUDA event
             recorded before and after each call, each call waited for before the next (as
             aicf_exec_benchmark does).
   Both sides get the same inputs (random in [-1, 1), never zeros; at fp16 rounded to float16
   as aicf rounds its weights), run in alternating rounds so that clock drift hits both; medians
   over all rounds. ratio = direct median / aicf median. The outputs of the two paths are
   compared: max |difference|, and whether they are bitwise identical, as they are when both
   ran the same algorithm.

   The direct path uses the driver and cuBLASLt function tables that aicf loaded (the same
   libcuda and libcublasLt, through aicf's internal struct aicf__cuda) with its own cuBLASLt
   handle, stream, buffers and descriptors: nothing of aicf's GEMM lowering is shared.

   Exit status: 0 measured, 1 error, 2 no CUDA device (nothing measured). */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 8

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static float frand(void) { /* xorshift64*, uniform in [-1, 1) */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int cmp_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return x < y ? -1 : x > y;
}

static float median_of(float* v, int n) {
    qsort(v, (size_t)n, sizeof(float), cmp_float);
    return v[n / 2];
}

static float p99_of(float* v, int n) { /* v sorted */
    return v[(int)((double)(n - 1) * 0.99)];
}

/* ---- aicf: the one-MatMul graph ---- */
typedef struct aicf_side {
    aicf_graph* g;
    aicf_plan* p;
    aicf_exec* e;
} aicf_side;

static int aicf_side_make(aicf_context* ctx, int64_t M, int64_t N, int64_t K, aicf_precision prec, const float* a,
                          const float* b, aicf_side* s) {
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_plan_desc pd;
    aicf_exec_desc ed;
    int64_t da[2], db[2];
    const char* ins[2] = {"A", "B"};
    const char* outs[1] = {"Y"};
    memset(s, 0, sizeof *s);
    da[0] = M;
    da[1] = K;
    db[0] = K;
    db[1] = N;
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.rank = 2;
    if (aicf_graph_create(ctx, &s->g) != AICF_SUCCESS) return 0;
    td.name = "A";
    td.dims = da;
    if (aicf_graph_add_input(s->g, &td) != AICF_SUCCESS) return 0;
    td.name = "B";
    td.dims = db;
    td.data = b;
    td.data_bytes = (size_t)(K * N) * 4;
    td.borrow = 1;
    if (aicf_graph_add_constant(s->g, &td) != AICF_SUCCESS) return 0;
    memset(&nd, 0, sizeof nd);
    nd.name = "gemm";
    nd.op_type = "MatMul";
    nd.inputs = ins;
    nd.num_inputs = 2;
    nd.outputs = outs;
    nd.num_outputs = 1;
    if (aicf_graph_add_node(s->g, &nd) != AICF_SUCCESS || aicf_graph_add_output(s->g, "Y") != AICF_SUCCESS) return 0;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = prec;
    pd.policy.matmul_algo = AICF_MATMUL_CUBLASLT;
    if (aicf_plan_create(s->g, &pd, &s->p) != AICF_SUCCESS) return 0;
    { /* the comparison means something only if aicf's GEMM is cuBLASLt's */
        size_t need = 0;
        char* buf;
        aicf_plan_format(s->p, NULL, 0, &need);
        buf = (char*)malloc(need ? need : 1);
        if (!buf) return 0;
        aicf_plan_format(s->p, buf, need, NULL);
        if (!strstr(buf, "cublasLt")) {
            fprintf(stderr, "gemm_direct: the plan's MatMul does not run on cuBLASLt:\n%s", buf);
            free(buf);
            return 0;
        }
        free(buf);
    }
    memset(&ed, 0, sizeof ed);
    ed.flags = AICF_EXEC_DEVICE_IO;
    if (aicf_exec_create(s->p, &ed, &s->e) != AICF_SUCCESS) return 0;
    if (aicf_exec_set_input(s->e, 0, a, (size_t)(M * K) * 4) != AICF_SUCCESS) return 0;
    return 1;
}

static void aicf_side_free(aicf_side* s) {
    aicf_exec_destroy(s->e);
    aicf_plan_destroy(s->p);
    aicf_graph_destroy(s->g);
}

/* ---- direct: cuBLASLt on a stream ---- */
typedef struct direct_side {
    struct aicf__cuda* cu;
    int f16, tf32;
    size_t es;                /* bytes per element */
    void* lt;                 /* own cublasLtHandle_t */
    void *desc, *la, *lb, *lc;
    aicf__cublasLtMatmulHeuristicResult_t heur;
    int n_results;
    aicf__CUstream stream;
    aicf__CUdeviceptr a, b, d, ws;
    aicf__CUevent ev[2];
    float alpha, beta;
    char err[512];
} direct_side;

#define LT_TRY(call)                                                                               \
    do {                                                                                           \
        aicf__cublasStatus_t st_ = (call);                                                         \
        if (st_ != AICF__CUBLAS_STATUS_SUCCESS) {                                                  \
            snprintf(ds->err, sizeof ds->err, "%s failed: cublasStatus_t %d", #call, (int)st_);    \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
#define CU_TRY(call)                                                                               \
    do {                                                                                           \
        aicf__CUresult r_ = (call);                                                                \
        if (r_ != AICF__CUDA_SUCCESS) {                                                            \
            const char* n_ = NULL;                                                                 \
            ds->cu->api.cuGetErrorName(r_, &n_);                                                   \
            snprintf(ds->err, sizeof ds->err, "%s failed: %s", #call, n_ ? n_ : "unknown CUresult"); \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

/* Descriptors, the heuristic query, buffers holding a and b (elements of ds->es bytes), events.
   The primary context must be current (the caller pushes it). */
static int direct_make(direct_side* ds, int64_t M, int64_t N, int64_t K, const void* a, const void* b) {
    struct aicf__cuda* cu = ds->cu;
    int dt = ds->f16 ? AICF__CUDA_R_16F : AICF__CUDA_R_32F;
    int compute = ds->tf32 ? AICF__CUBLAS_COMPUTE_32F_FAST_TF32 : AICF__CUBLAS_COMPUTE_32F;
    int32_t op_n = AICF__CUBLAS_OP_N;
    uint64_t ws_limit = (uint64_t)AICF__CUDA_DEFAULT_WORKSPACE;
    uint32_t align = 256;
    void* pref = NULL;
    int nres = 0;
    aicf__cublasLtMatmulHeuristicResult_t res[8];
    ds->alpha = 1.0f;
    ds->beta = 0.0f;
    LT_TRY(cu->lt.cublasLtCreate(&ds->lt));
    LT_TRY(cu->lt.cublasLtMatmulDescCreate(&ds->desc, compute, AICF__CUDA_R_32F));
    LT_TRY(cu->lt.cublasLtMatmulDescSetAttribute(ds->desc, AICF__CUBLASLT_MATMUL_DESC_TRANSA, &op_n, sizeof op_n));
    LT_TRY(cu->lt.cublasLtMatmulDescSetAttribute(ds->desc, AICF__CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n));
    /* column-major: Y^T[N, M] = B^T[N, K] A^T[K, M]; row-major X[r, c] is X^T[c, r], same ld */
    LT_TRY(cu->lt.cublasLtMatrixLayoutCreate(&ds->la, dt, (uint64_t)N, (uint64_t)K, N));
    LT_TRY(cu->lt.cublasLtMatrixLayoutCreate(&ds->lb, dt, (uint64_t)K, (uint64_t)M, K));
    LT_TRY(cu->lt.cublasLtMatrixLayoutCreate(&ds->lc, dt, (uint64_t)N, (uint64_t)M, N));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceCreate(&pref));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_limit, sizeof ws_limit));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align, sizeof align));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align, sizeof align));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align, sizeof align));
    LT_TRY(cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align, sizeof align));
    memset(res, 0, sizeof res);
    {
        aicf__cublasStatus_t st = cu->lt.cublasLtMatmulAlgoGetHeuristic(ds->lt, ds->desc, ds->la, ds->lb, ds->lc, ds->lc, pref, 8,
                                                                         res, &nres);
        cu->lt.cublasLtMatmulPreferenceDestroy(pref);
        if (st != AICF__CUBLAS_STATUS_SUCCESS || nres < 1) {
            snprintf(ds->err, sizeof ds->err, "cublasLtMatmulAlgoGetHeuristic: status %d, %d results", (int)st, nres);
            return 0;
        }
    }
    ds->heur = res[0];
    ds->n_results = nres;
    CU_TRY(cu->api.cuStreamCreate(&ds->stream, AICF__CU_STREAM_NON_BLOCKING));
    CU_TRY(cu->api.cuMemAlloc(&ds->a, (size_t)(M * K) * ds->es));
    CU_TRY(cu->api.cuMemAlloc(&ds->b, (size_t)(K * N) * ds->es));
    CU_TRY(cu->api.cuMemAlloc(&ds->d, (size_t)(M * N) * ds->es));
    if (ds->heur.workspaceSize) CU_TRY(cu->api.cuMemAlloc(&ds->ws, ds->heur.workspaceSize));
    CU_TRY(cu->api.cuMemcpyHtoD(ds->a, a, (size_t)(M * K) * ds->es));
    CU_TRY(cu->api.cuMemcpyHtoD(ds->b, b, (size_t)(K * N) * ds->es));
    CU_TRY(cu->api.cuEventCreate(&ds->ev[0], AICF__CU_EVENT_DEFAULT));
    CU_TRY(cu->api.cuEventCreate(&ds->ev[1], AICF__CU_EVENT_DEFAULT));
    return 1;
}

static int direct_call(direct_side* ds) {
    LT_TRY(ds->cu->lt.cublasLtMatmul(ds->lt, ds->desc, &ds->alpha, (const void*)(uintptr_t)ds->b, ds->la,
                                     (const void*)(uintptr_t)ds->a, ds->lb, &ds->beta, (const void*)(uintptr_t)ds->d, ds->lc,
                                     (void*)(uintptr_t)ds->d, ds->lc, &ds->heur.algo, (void*)(uintptr_t)ds->ws,
                                     ds->heur.workspaceSize, ds->stream));
    return 1;
}

/* warmup + n calls, each between two events; us[i] of the timed ones. */
static int direct_time(direct_side* ds, int warmup, int n, float* us) {
    struct aicf__cuda* cu = ds->cu;
    int i;
    for (i = 0; i < warmup + n; ++i) {
        float ms = 0.0f;
        CU_TRY(cu->api.cuEventRecord(ds->ev[0], ds->stream));
        if (!direct_call(ds)) return 0;
        CU_TRY(cu->api.cuEventRecord(ds->ev[1], ds->stream));
        CU_TRY(cu->api.cuEventSynchronize(ds->ev[1]));
        CU_TRY(cu->api.cuEventElapsedTime(&ms, ds->ev[0], ds->ev[1]));
        if (i >= warmup) us[i - warmup] = ms * 1000.0f;
    }
    return 1;
}

static int direct_output(direct_side* ds, void* out, size_t bytes) {
    CU_TRY(ds->cu->api.cuMemcpyDtoHAsync(out, ds->d, bytes, ds->stream));
    CU_TRY(ds->cu->api.cuStreamSynchronize(ds->stream));
    return 1;
}

static void direct_free(direct_side* ds) {
    struct aicf__cuda* cu = ds->cu;
    if (ds->ev[0]) cu->api.cuEventDestroy(ds->ev[0]);
    if (ds->ev[1]) cu->api.cuEventDestroy(ds->ev[1]);
    if (ds->a) cu->api.cuMemFree(ds->a);
    if (ds->b) cu->api.cuMemFree(ds->b);
    if (ds->d) cu->api.cuMemFree(ds->d);
    if (ds->ws) cu->api.cuMemFree(ds->ws);
    if (ds->stream) cu->api.cuStreamDestroy(ds->stream);
    if (ds->la) cu->lt.cublasLtMatrixLayoutDestroy(ds->la);
    if (ds->lb) cu->lt.cublasLtMatrixLayoutDestroy(ds->lb);
    if (ds->lc) cu->lt.cublasLtMatrixLayoutDestroy(ds->lc);
    if (ds->desc) cu->lt.cublasLtMatmulDescDestroy(ds->desc);
    if (ds->lt) cu->lt.cublasLtDestroy(ds->lt);
}

static const char* prec_name(aicf_precision p) {
    return p == AICF_PRECISION_FP16 ? "fp16" : p == AICF_PRECISION_TF32 ? "tf32" : "fp32";
}

/* One size at one precision: returns 0 on success, 1 on error (message printed). */
static int run_case(aicf_context* ctx, int64_t M, int64_t N, int64_t K, aicf_precision prec, int warmup, int iters, int json) {
    const int rounds = 2;
    int per = (iters + rounds - 1) / rounds, n = per * rounds, k, rc = 1, identical = 1, n_nan = 0, one_gemm;
    size_t na = (size_t)(M * K), nb = (size_t)(K * N), nd = (size_t)(M * N), i;
    float *a = (float*)malloc(na * 4), *b = (float*)malloc(nb * 4), *ya = (float*)malloc(nd * 4), *yd = (float*)malloc(nd * 4);
    uint16_t *a16 = NULL, *b16 = NULL, *yd16 = NULL;
    float *ta = (float*)malloc(sizeof(float) * (size_t)n), *td = (float*)malloc(sizeof(float) * (size_t)n);
    aicf_side as;
    direct_side ds;
    aicf_exec_stats es;
    aicf_result r;
    double maxdiff = 0, flop = 2.0 * (double)M * (double)N * (double)K;
    float ma, md, pa, pd;
    memset(&as, 0, sizeof as);
    memset(&ds, 0, sizeof ds);
    ds.cu = ctx->cuda;
    ds.f16 = prec == AICF_PRECISION_FP16;
    ds.tf32 = prec == AICF_PRECISION_TF32;
    ds.es = ds.f16 ? 2 : 4;
    if (ds.f16) {
        a16 = (uint16_t*)malloc(na * 2);
        b16 = (uint16_t*)malloc(nb * 2);
        yd16 = (uint16_t*)malloc(nd * 2);
    }
    if (!a || !b || !ya || !yd || !ta || !td || (ds.f16 && (!a16 || !b16 || !yd16))) {
        fprintf(stderr, "gemm_direct: %lldx%lldx%lld: out of host memory\n", (long long)M, (long long)N, (long long)K);
        goto done;
    }
    for (i = 0; i < na; ++i) a[i] = frand();
    for (i = 0; i < nb; ++i) b[i] = frand();
    if (ds.f16) { /* aicf rounds its float16 weights and the cast of A to nearest even, as this does */
        for (i = 0; i < na; ++i) a16[i] = aicf__f32_to_f16(a[i]);
        for (i = 0; i < nb; ++i) b16[i] = aicf__f32_to_f16(b[i]);
    }
    if (!aicf_side_make(ctx, M, N, K, prec, a, b, &as)) {
        fprintf(stderr, "gemm_direct: aicf %lldx%lldx%lld %s: %s\n", (long long)M, (long long)N, (long long)K, prec_name(prec),
                aicf_last_error(ctx));
        goto done;
    }
    if (ds.cu->api.cuCtxPushCurrent(ds.cu->pctx) != AICF__CUDA_SUCCESS) {
        fprintf(stderr, "gemm_direct: cuCtxPushCurrent failed\n");
        goto done;
    }
    if (!direct_make(&ds, M, N, K, ds.f16 ? (const void*)a16 : (const void*)a, ds.f16 ? (const void*)b16 : (const void*)b)) {
        fprintf(stderr, "gemm_direct: direct: %s\n", ds.err);
        goto pop;
    }
    /* alternating rounds; the first of each side carries the warmup */
    for (k = 0; k < rounds; ++k) {
        if ((r = aicf_exec_benchmark(as.e, k ? 2 : warmup, per, ta + k * per, NULL)) != AICF_SUCCESS) {
            fprintf(stderr, "gemm_direct: aicf_exec_benchmark: %s\n", aicf_last_error(ctx));
            goto pop;
        }
        if (!direct_time(&ds, k ? 2 : warmup, per, td + k * per)) {
            fprintf(stderr, "gemm_direct: direct: %s\n", ds.err);
            goto pop;
        }
    }
    if ((r = aicf_exec_get_output(as.e, 0, ya, nd * 4)) != AICF_SUCCESS) {
        fprintf(stderr, "gemm_direct: aicf output: %s\n", aicf_last_error(ctx));
        goto pop;
    }
    if (!direct_output(&ds, ds.f16 ? (void*)yd16 : (void*)yd, nd * ds.es)) {
        fprintf(stderr, "gemm_direct: direct output: %s\n", ds.err);
        goto pop;
    }
    if (ds.f16)
        for (i = 0; i < nd; ++i) yd[i] = aicf__f16_to_f32(yd16[i]); /* exact, as aicf's cast of Y */
    for (i = 0; i < nd; ++i) {
        double d = fabs((double)ya[i] - (double)yd[i]);
        if (memcmp(&ya[i], &yd[i], 4) != 0) identical = 0;
        if (d != d) n_nan++;
        else if (d > maxdiff) maxdiff = d;
    }
    aicf_exec_stats_get(as.e, &es);
    one_gemm = es.graph_nodes == 1 && es.kernel_nodes >= 1 && !ds.f16;
    ma = median_of(ta, n);
    pa = p99_of(ta, n);
    md = median_of(td, n);
    pd = p99_of(td, n);
    if (json)
        printf("{\"gemm\": \"%lldx%lldx%lld\", \"precision\": \"%s\", \"iters\": %d, \"aicf_us\": %.2f, \"aicf_p99_us\": %.2f, "
               "\"direct_us\": %.2f, \"direct_p99_us\": %.2f, \"ratio\": %.4f, \"aicf_tflops\": %.1f, \"direct_tflops\": %.1f, "
               "\"graph_nodes\": %d, \"kernel_nodes\": %d, \"one_gemm\": %s, \"heuristic_results\": %d, \"workspace_bytes\": %zu, "
               "\"max_abs_diff\": %.3g, \"nan\": %d, \"identical\": %s}\n",
               (long long)M, (long long)N, (long long)K, prec_name(prec), n, ma, pa, md, pd, md / ma, flop / ma * 1e-6,
               flop / md * 1e-6, es.graph_nodes, es.kernel_nodes, one_gemm ? "true" : "false", ds.n_results, ds.heur.workspaceSize,
               maxdiff, n_nan, identical ? "true" : "false");
    else
        printf("GEMM %lldx%lldx%lld %s: aicf %.2f us (p99 %.2f, %.1f TFLOP/s; %d graph nodes, %d kernels%s), direct cuBLASLt "
               "%.2f us (p99 %.2f, %.1f TFLOP/s): direct/aicf %.4f%s; outputs %s (max |diff| %.3g, %d NaN)\n",
               (long long)M, (long long)N, (long long)K, prec_name(prec), ma, pa, flop / ma * 1e-6, es.graph_nodes, es.kernel_nodes,
               one_gemm ? "" : ", with the boundary casts", md, pd, flop / md * 1e-6, md / ma,
               one_gemm ? (md / ma >= 0.97 ? " (target >= 0.97: met)" : " (target >= 0.97: NOT met)") : "",
               identical ? "bitwise identical" : "differ", maxdiff, n_nan);
    fflush(stdout);
    rc = 0;
pop:
    direct_free(&ds);
    {
        aicf__CUcontext c;
        ds.cu->api.cuCtxPopCurrent(&c);
    }
done:
    aicf_side_free(&as);
    free(a);
    free(b);
    free(ya);
    free(yd);
    free(a16);
    free(b16);
    free(yd16);
    free(ta);
    free(td);
    return rc;
}

int main(int argc, char** argv) {
    aicf_context* ctx = NULL;
    aicf_device_info di;
    int64_t sizes[MAX_SIZES][3];
    aicf_precision precs[3];
    int n_sizes = 0, n_precs = 0, iters = 300, warmup = 20, json = 0, i, j, rc = 0;
    for (i = 1; i < argc; ++i) {
        long long m, n, k;
        char tail;
        if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            iters = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--precision") == 0 && i + 1 < argc && n_precs < 3) {
            const char* v = argv[++i];
            if (strcmp(v, "tf32") == 0) precs[n_precs++] = AICF_PRECISION_TF32;
            else if (strcmp(v, "fp32") == 0) precs[n_precs++] = AICF_PRECISION_FP32;
            else if (strcmp(v, "fp16") == 0) precs[n_precs++] = AICF_PRECISION_FP16;
            else {
                fprintf(stderr, "gemm_direct: --precision must be tf32, fp32 or fp16, not '%s'\n", v);
                return 1;
            }
        } else if (sscanf(argv[i], "%lldx%lldx%lld%c", &m, &n, &k, &tail) == 3 && m > 0 && n > 0 && k > 0 && m <= 65536 &&
                   n <= 65536 && k <= 65536 && n_sizes < MAX_SIZES) {
            sizes[n_sizes][0] = m;
            sizes[n_sizes][1] = n;
            sizes[n_sizes][2] = k;
            n_sizes++;
        } else {
            fprintf(stderr, "usage: gemm_direct [--iters N] [--warmup N] [--precision tf32|fp32|fp16]... [--json] [MxNxK]...\n"
                            "       (at most %d sizes, each dimension 1..65536)\n", MAX_SIZES);
            return 1;
        }
    }
    if (iters < 2 || warmup < 0) {
        fprintf(stderr, "gemm_direct: --iters must be >= 2 and --warmup >= 0\n");
        return 1;
    }
    if (!n_sizes) {
        sizes[0][0] = sizes[0][1] = sizes[0][2] = 4096;
        sizes[1][0] = sizes[1][1] = sizes[1][2] = 8192;
        n_sizes = 2;
    }
    if (!n_precs) {
        precs[0] = AICF_PRECISION_TF32;
        precs[1] = AICF_PRECISION_FP16;
        n_precs = 2;
    }
    if (aicf_context_create(NULL, &ctx) != AICF_SUCCESS) {
        fprintf(stderr, "gemm_direct: cannot create a context\n");
        return 1;
    }
    if (aicf_context_device_info(ctx, &di) != AICF_SUCCESS) {
        fprintf(stderr, "gemm_direct: no CUDA device: %s\n", aicf_last_error(ctx));
        aicf_context_destroy(ctx);
        return 2;
    }
    if (!di.cublaslt_available) {
        fprintf(stderr, "gemm_direct: cuBLASLt not available: %s\n", ctx->cuda->lt_error);
        aicf_context_destroy(ctx);
        return 1;
    }
    if (!json)
        printf("%s, compute capability %d.%d, driver %d, cuBLASLt %zu (%s)\n", di.name, di.cc_major, di.cc_minor, di.driver_version,
               di.cublaslt_version, ctx->cuda->lt_path);
    for (i = 0; i < n_sizes; ++i)
        for (j = 0; j < n_precs; ++j) rc |= run_case(ctx, sizes[i][0], sizes[i][1], sizes[i][2], precs[j], warmup, iters, json);
    aicf_context_destroy(ctx);
    return rc;
}
