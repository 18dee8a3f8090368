/* lt_probe: what cuBLASLt's heuristic queries cost in a fresh process, in order (docs/benchmarks.md,
   "cuBLASLt's one-time setup on a helper thread": the measurements behind aicf__cuda_lt_hint).

     build/lt_probe SPEC [SPEC ...]      (make build/lt_probe; needs the CUDA toolkit's headers
                                          and libcublasLt, and a GPU to run)
     SPEC = T:M:N:K:E   T: f float32, t float32 with TF32 math, h float16; M N K the GEMM
                        (row-major Y[M,N] = X[M,K] W[N,K]^T as aicf asks it: cuBLASLt's A
                        transposed); E: 1 bias epilogue, 0 none

   Prints the driver and cuBLASLt set-up time, then each query's host time (ms), its status and
   the number of results (8 asked, 32 MiB workspace limit). Run one process per sequence: the
   first query of a storage type pays cuBLASLt's own setup. */
#include <cublasLt.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static double query(cublasLtHandle_t h, const char* spec) {
    char ty = 'f'; long M = 1, N = 1, K = 1; int E = 0;
    if (sscanf(spec, "%c:%ld:%ld:%ld:%d", &ty, &M, &N, &K, &E) != 5 || M < 1 || N < 1 || K < 1) {
        fprintf(stderr, "lt_probe: bad SPEC '%s' (T:M:N:K:E, e.g. f:512:512:512:1)\n", spec);
        exit(2);
    }
    cudaDataType dt = ty == 'h' ? CUDA_R_16F : CUDA_R_32F;
    cublasComputeType_t ct = ty == 't' ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cublasLtMatmulDesc_t d; cublasLtMatrixLayout_t a, b, c; cublasLtMatmulPreference_t p;
    cublasLtMatmulHeuristicResult_t res[8]; int n = 0;
    double t0 = now_ms();
    cublasLtMatmulDescCreate(&d, ct, CUDA_R_32F);
    cublasOperation_t tr = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof tr);
    if (E) { cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS; cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e);
             cudaDataType bt = dt; cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt); }
    cublasLtMatrixLayoutCreate(&a, dt, K, N, K);
    cublasLtMatrixLayoutCreate(&b, dt, K, M, K);
    cublasLtMatrixLayoutCreate(&c, dt, N, M, N);
    cublasLtMatmulPreferenceCreate(&p);
    size_t ws = 32u << 20;
    cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(h, d, a, b, c, c, p, 8, res, &n);
    double t = now_ms() - t0;
    printf("  %s: %.2f ms (status %d, %d results)\n", spec, t, (int)s, n);
    cublasLtMatmulPreferenceDestroy(p); cublasLtMatrixLayoutDestroy(a); cublasLtMatrixLayoutDestroy(b); cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(d);
    return t;
}
int main(int argc, char** argv) {
    CUdevice dev;
    CUcontext ctx;
    cublasLtHandle_t h;
    CUresult r;
    cublasStatus_t s;
    double t0 = now_ms(), t1;
    if (argc < 2) {
        fprintf(stderr, "usage: lt_probe T:M:N:K:E [T:M:N:K:E ...]  (T f|t|h, E 0|1)\n");
        return 2;
    }
    if ((r = cuInit(0)) != CUDA_SUCCESS || (r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
        (r = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS || (r = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) {
        fprintf(stderr, "lt_probe: CUDA driver error %d (no GPU?)\n", (int)r);
        return 1;
    }
    t1 = now_ms();
    if ((s = cublasLtCreate(&h)) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "lt_probe: cublasLtCreate failed (status %d)\n", (int)s);
        return 1;
    }
    printf("init %.1f ms, cublasLtCreate %.1f ms\n", t1 - t0, now_ms() - t1);
    for (int i = 1; i < argc; i++) query(h, argv[i]);
    cublasLtDestroy(h);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
