/* hopper.cuh: what the Hopper microbenchmarks share (bench/gemm_wgmma.cu, bench/gemm_ln.cu,
   bench/ln_fold.cu): wgmma m64nNk16 (float32 += float16 x float16, both operands from shared
   memory through matrix descriptors; PTX ISA 8.0 "Asynchronous Warpgroup Level Matrix Multiply-
   Accumulate"), mbarriers, TMA (cp.async.bulk.tensor.2d), cluster rank and barrier, tensor maps,
   a launch with an optional programmatic edge, the start (stream, cuBLASLt handle and workspace),
   cuBLASLt's Y = X W + bias as the reference, a CUDA-graph timer and seeded random float16 data.
   The Wg<N> wrappers are written out for N = 16, 32, 64, 128, 192. */
#pragma once
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CU(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char* s_ = ""; cuGetErrorString(e_, &s_); fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)
#define LT(x) do { cublasStatus_t e_ = (x); if (e_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1); } } while (0)

/* ---- wgmma m64nNk16, float32 += float16 x float16, A and B from shared memory ---- */
template <int N> struct Wg;
template <> struct Wg<16> {
    template <int TB> static __device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db, int acc) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, %11;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db), "r"(acc), "n"(TB ? 0 : 1));
    }
};
template <> struct Wg<32> {
    template <int TB> static __device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db, int acc) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, %19;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                     : "l"(da), "l"(db), "r"(acc), "n"(TB ? 0 : 1));
    }
};
template <> struct Wg<64> {
    template <int TB> static __device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db, int acc) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "l"(da), "l"(db), "r"(acc), "n"(TB ? 0 : 1));
    }
};
template <> struct Wg<128> {
    template <int TB> static __device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db, int acc) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "l"(da), "l"(db), "r"(acc), "n"(TB ? 0 : 1));
    }
};
template <> struct Wg<192> {
    template <int TB> static __device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db, int acc) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, p, 1, 1, 0, %99;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                     : "l"(da), "l"(db), "r"(acc), "n"(TB ? 0 : 1));
    }
};

static __device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

/* the wgmma matrix descriptor: start address, leading and stride byte offsets (16-byte units),
   swizzle mode (1: 128 B, 2: 64 B, 3: 32 B) */
static __device__ __forceinline__ unsigned long long gdesc(unsigned addr, unsigned lbo, unsigned sbo, unsigned mode) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16) |
           ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32) | ((unsigned long long)mode << 62);
}
static __device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
static __device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }

static __device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
static __device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    unsigned ok = 0;
    while (!ok)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
}
static __device__ __forceinline__ void tma2d(unsigned dst, const CUtensorMap* m, int c0, int c1, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
static __device__ __forceinline__ unsigned cluster_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r)); return r; }
static __device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

static void make_map(CUtensorMap* m, const void* p, unsigned long long inner, unsigned long long outer, unsigned long long ld,
                     unsigned box_in, unsigned box_out, CUtensorMapSwizzle sw) {
    cuuint64_t dims[2] = {inner, outer}, strides[1] = {ld * 2};
    cuuint32_t box[2] = {box_in, box_out}, es[2] = {1, 1};
    CU(cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void*)p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}
/* ---- the microbenchmarks' start and their cuBLASLt reference ---- */
static cublasLtHandle_t g_lt;
static void* g_ws;
static const size_t WS = 32u << 20; /* cuBLASLt's workspace */
/* the CUDA context, a non-blocking stream, cuBLASLt's handle and workspace; line-buffered stdout */
static cudaStream_t bench_init(cudaDeviceProp* prop) {
    cudaStream_t s;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CK(cudaFree(0));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    LT(cublasLtCreate(&g_lt));
    CK(cudaMalloc(&g_ws, WS));
    CK(cudaGetDeviceProperties(prop, 0));
    return s;
}
/* cuBLASLt for row-major Y [M, N] = X [M, K] W + bias (+ beta C at lt_mm_run), float16 storage,
   float32 compute: column-major Y^T = W^T X^T with the BIAS epilogue; W is [K, N], or [N, K]
   when tb; lda, ldb, ldy in elements. The heuristic's first algorithm; none is an exit naming what. */
struct LtMm { cublasLtMatmulDesc_t d; cublasLtMatrixLayout_t la, lb, lc; cublasLtMatmulAlgo_t algo; };
static LtMm lt_mm_make(const char* what, int M, int N, int K, int tb, int lda, int ldb, int ldy, const __half* bias) {
    LtMm L;
    cublasOperation_t ta = tb ? CUBLAS_OP_T : CUBLAS_OP_N, tn = CUBLAS_OP_N;
    cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_BIAS;
    LT(cublasLtMatmulDescCreate(&L.d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    LT(cublasLtMatmulDescSetAttribute(L.d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT(cublasLtMatmulDescSetAttribute(L.d, CUBLASLT_MATMUL_DESC_TRANSB, &tn, sizeof tn));
    LT(cublasLtMatmulDescSetAttribute(L.d, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    LT(cublasLtMatmulDescSetAttribute(L.d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    LT(cublasLtMatrixLayoutCreate(&L.la, CUDA_R_16F, tb ? K : N, tb ? N : K, ldb));
    LT(cublasLtMatrixLayoutCreate(&L.lb, CUDA_R_16F, K, M, lda));
    LT(cublasLtMatrixLayoutCreate(&L.lc, CUDA_R_16F, N, M, ldy));
    cublasLtMatmulPreference_t p;
    LT(cublasLtMatmulPreferenceCreate(&p));
    LT(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WS, sizeof WS));
    cublasLtMatmulHeuristicResult_t r[1];
    int n = 0;
    LT(cublasLtMatmulAlgoGetHeuristic(g_lt, L.d, L.la, L.lb, L.lc, L.lc, p, 1, r, &n));
    if (n < 1) { fprintf(stderr, "cuBLASLt: no algorithm for %s\n", what); exit(1); }
    L.algo = r[0].algo;
    cublasLtMatmulPreferenceDestroy(p);
    return L;
}
/* Y = X W + bias + beta C (C of Y's layout; beta 0 reads nothing) */
static void lt_mm_run(const LtMm& L, const __half* x, const __half* w, float beta, const __half* c, __half* y, cudaStream_t s) {
    const float one = 1.0f;
    LT(cublasLtMatmul(g_lt, L.d, &one, w, L.la, x, L.lb, &beta, c, L.lc, y, L.lc, &L.algo, g_ws, WS, s));
}
/* kern<<<grid, block, smem, s>>>(args...) through cudaLaunchKernelEx, with a programmatic edge
   to the launch before it on the stream when prog (the kernel then waits: griddepcontrol.wait) */
template <class... P, class... A>
static void launch_ex(void (*kern)(P...), dim3 grid, dim3 block, int smem, cudaStream_t s, bool prog, A... args) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at[1];
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = prog ? 1 : 0;
    CK(cudaLaunchKernelEx(&cfg, kern, args...));
}
/* median us per replay of a graph captured from enqueue(s) */
template <class F> static double time_graph(cudaStream_t s, int replays, F enqueue) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    enqueue(s);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int i = 0; i < replays + 30; ++i) {
        float ms;
        CK(cudaEventRecord(e0, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 30) t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    return t[t.size() / 2];
}

static unsigned g_seed = 2026u;
static float rnd() { g_seed = g_seed * 1664525u + 1013904223u; return ((g_seed >> 8) & 0xffff) / 65536.0f - 0.5f; }
static __half* upload_random(std::vector<float>& host, size_t n, float scale) {
    std::vector<__half> h(n);
    host.resize(n);
    for (size_t i = 0; i < n; ++i) { h[i] = __float2half(rnd() * scale); host[i] = __half2float(h[i]); }
    __half* d;
    CK(cudaMalloc(&d, n * 2));
    CK(cudaMemcpy(d, h.data(), n * 2, cudaMemcpyHostToDevice));
    return d;
}
