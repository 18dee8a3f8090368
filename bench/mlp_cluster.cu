// mlp_b1 as one launch of a thread-block cluster (docs/benchmarks.md, session 28's section, row 6):
// the policy MLP 256 -> 1024 -> 1024 -> 1024 -> 64 (ReLU, ReLU, ReLU, Tanh; float16 weights and
// activations, float32 sums) at batch 1 by a cluster of C CTAs. CTA r computes output columns
// [r*N/C, (r+1)*N/C) of every layer, a warp per column at a time (its lanes read the weight row in
// 16-byte pieces straight from global memory, L2-resident across replays; the layer's input from
// the CTA's own shared memory), then stores its columns into every CTA's copy of the next layer's
// input (distributed shared memory, st.shared::cluster) and the cluster barrier
// (barrier.cluster.arrive.release / wait.acquire) hands the layer over. One launch, no grid-wide
// completion between layers. A second cluster kernel (k_mlp_cluster_bulk) streams each CTA's weight
// rows into shared memory instead, by cp.async.bulk in chunks of 16 rows, NB chunk buffers ahead,
// one mbarrier each. Each is timed as a one-node CUDA graph (CUDA events, median of the replays),
// beside the same MLP as four kernels joined by programmatic edges (griddepcontrol.wait, weights
// prefetched into L1 before it: what aicf's plan does), and checked against a host reference (the
// same float16 roundings; float32 sums in another order, so within 1e-2 of the largest output).
// Build and run on the GPU machine:
//   nvcc -arch=sm_90 -O3 bench/mlp_cluster.cu -o build/mlp_cluster && build/mlp_cluster [cluster] [replays]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

enum { NL = 4, KMAX = 1024, THREADS = 512, WARPS = THREADS / 32 };
static const int DIMS[NL + 1] = {256, 1024, 1024, 1024, 64};

struct Net {
    const __half* w[NL];  // [N_l, K_l]
    const __half* b[NL];  // [N_l]
    const float* x;       // [256] float32 input
    float* y;             // [64] float32 output
    __half* act[NL];      // the separate-kernel chain's activations (layer l's output)
};

__device__ __forceinline__ float act_fn(int l, float v) { return l == NL - 1 ? tanhf(v) : fmaxf(v, 0.0f); }

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_size() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// the float16 value v at element i of buffer `buf` in CTA `rank`'s shared memory
__device__ __forceinline__ void st_remote(const __half* buf, int i, unsigned rank, __half v) {
    unsigned local = (unsigned)__cvta_generic_to_shared(buf + i), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("st.shared::cluster.u16 [%0], %1;" ::"r"(remote), "h"(__half_as_ushort(v)) : "memory");
}

// this lane's part of dot(W_l[n, :], a) over K in 16-byte pieces (a warp per column)
template <int K>
__device__ __forceinline__ float dot_part(const __half* wrow, const __half* a, int lane) {
    float acc = 0.0f;
#pragma unroll
    for (int p = 0; p < (K + 255) / 256; ++p) {
        const int k = lane * 8 + p * 256;
        if (k < K) {
            const uint4 wv = *(const uint4*)(wrow + k);
            const uint4 av = *(const uint4*)(a + k);
            const __half2* w2 = (const __half2*)&wv;
            const __half2* a2 = (const __half2*)&av;
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float2 wf = __half22float2(w2[e]), af = __half22float2(a2[e]);
                acc = fmaf(af.x, wf.x, acc);
                acc = fmaf(af.y, wf.y, acc);
            }
        }
    }
    return acc;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
template <int K>
__device__ __forceinline__ float dot_col(const __half* wrow, const __half* a, int lane) { return warp_sum(dot_part<K>(wrow, a, lane)); }

// layer l of the cluster kernel: this CTA's columns, up to 4 per warp at once (their weight loads
// issued together)
template <int K, int N>
__device__ __forceinline__ void cluster_layer(const Net& net, int l, const __half* in, __half* out, unsigned rank, unsigned csize) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int per = N / (int)csize, n0 = (int)rank * per;
    for (int c0 = warp; c0 < per; c0 += 4 * WARPS) {
        float acc[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = c0 + j * WARPS;
            acc[j] = c < per ? dot_part<K>(net.w[l] + (size_t)(n0 + c) * K, in, lane) : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = c0 + j * WARPS, n = n0 + c;
            if (c >= per) break;
            const float v = act_fn(l, warp_sum(acc[j]) + __half2float(net.b[l][n]));
            if (l == NL - 1) {
                if (lane == 0) net.y[n] = v;
            } else if (lane < (int)csize) {
                st_remote(out, n, (unsigned)lane, __float2half_rn(v)); /* lane r writes CTA r's copy */
            }
        }
    }
}

__global__ void __launch_bounds__(THREADS, 1) k_mlp_cluster(Net net) {
    __shared__ __align__(16) __half buf[2][KMAX];
    const unsigned rank = cluster_rank(), csize = cluster_size();
    for (int k = threadIdx.x; k < 256; k += THREADS) buf[0][k] = __float2half_rn(net.x[k]);
    cluster_sync(); /* every CTA has started (and filled its input) before any writes into it */
    cluster_layer<256, 1024>(net, 0, buf[0], buf[1], rank, csize);
    cluster_sync();
    cluster_layer<1024, 1024>(net, 1, buf[1], buf[0], rank, csize);
    cluster_sync();
    cluster_layer<1024, 1024>(net, 2, buf[0], buf[1], rank, csize);
    cluster_sync();
    cluster_layer<1024, 64>(net, 3, buf[1], nullptr, rank, csize);
}

// The same with the weights streamed into shared memory by the TMA (cp.async.bulk): each CTA's rows
// of every layer in chunks of up to WARPS rows (a row per warp), NB chunk buffers in a ring, the
// copies issued up to NB chunks ahead (across layer boundaries: the weights are constants) by
// thread 0, one mbarrier per buffer (expect_tx, then the copy completes the phase).
enum { NB = 6, CHUNK_ROWS = WARPS };
__global__ void __launch_bounds__(THREADS, 1) k_mlp_cluster_bulk(Net net) {
    extern __shared__ __align__(128) unsigned char dsm[];           /* [NB][CHUNK_ROWS * KMAX halves] */
    __shared__ __align__(16) __half buf[2][KMAX];
    __shared__ __align__(8) unsigned long long mbar[NB];
    const unsigned rank = cluster_rank(), csize = cluster_size();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* chunk c: its layer, first row (of the layer) and rows, counted through the layers */
    auto chunk = [&](int c, int& l, int& r0, int& n) {
        for (l = 0; l < NL; ++l) {
            const int per = (l == NL - 1 ? 64 : 1024) / (int)csize, nc = (per + CHUNK_ROWS - 1) / CHUNK_ROWS;
            if (c < nc) {
                r0 = (int)rank * per + c * CHUNK_ROWS;
                n = min(CHUNK_ROWS, per - c * CHUNK_ROWS);
                return;
            }
            c -= nc;
        }
        l = -1, r0 = n = 0;
    };
    int nch = 0;
    for (int l = 0; l < NL; ++l) nch += ((l == NL - 1 ? 64 : 1024) / (int)csize + CHUNK_ROWS - 1) / CHUNK_ROWS;
    auto issue = [&](int c) { /* thread 0 */
        int l, r0, nr;
        chunk(c, l, r0, nr);
        const int K = l == 0 ? 256 : 1024;
        const unsigned bytes = (unsigned)(nr * K * 2), mb = (unsigned)__cvta_generic_to_shared(&mbar[c % NB]);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         (unsigned)__cvta_generic_to_shared(dsm + (size_t)(c % NB) * CHUNK_ROWS * KMAX * 2)),
                     "l"(net.w[l] + (size_t)r0 * K), "r"(bytes), "r"(mb)
                     : "memory");
    };
    if (threadIdx.x == 0) {
        for (int b = 0; b < NB; ++b) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"((unsigned)__cvta_generic_to_shared(&mbar[b])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int c = 0; c < NB && c < nch; ++c) issue(c);
    }
    for (int k = threadIdx.x; k < 256; k += THREADS) buf[0][k] = __float2half_rn(net.x[k]);
    cluster_sync(); /* every CTA started, inputs and mbarriers ready */
    int cur = 0, prev_l = 0;
    for (int c = 0; c < nch; ++c) {
        int l, r0, nr;
        chunk(c, l, r0, nr);
        if (l != prev_l) { /* a layer boundary: the outputs are in every CTA's copy */
            cluster_sync();
            cur ^= 1;
            prev_l = l;
        }
        { /* chunk c landed */
            const unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar[c % NB]);
            unsigned done = 0;
            while (!done)
                asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(done) : "r"(mb), "r"((unsigned)((c / NB) & 1)) : "memory");
        }
        if (warp < nr) {
            const __half* wrow = (const __half*)(dsm + (size_t)(c % NB) * CHUNK_ROWS * KMAX * 2) + (size_t)warp * (l == 0 ? 256 : 1024);
            const float part = l == 0 ? dot_part<256>(wrow, buf[cur], lane) : dot_part<1024>(wrow, buf[cur], lane);
            const int n = r0 + warp;
            const float v = act_fn(l, warp_sum(part) + __half2float(net.b[l][n]));
            if (l == NL - 1) {
                if (lane == 0) net.y[n] = v;
            } else if (lane < (int)csize) {
                st_remote(buf[cur ^ 1], n, (unsigned)lane, __float2half_rn(v));
            }
        }
        __syncthreads(); /* buffer c % NB read by every warp */
        if (threadIdx.x == 0 && c + NB < nch) issue(c + NB);
    }
}

// the separate-kernel chain: layer l as its own launch, programmatic edges between them
template <int K, int N>
__global__ void __launch_bounds__(256) k_layer(Net net, int l) {
    const int lane = threadIdx.x & 31, n = blockIdx.x * 8 + (threadIdx.x >> 5);
    __shared__ __align__(16) __half a[K];
    const __half* wrow = net.w[l] + (size_t)n * K;
#pragma unroll
    for (int p = 0; p < (K + 255) / 256; ++p)
        if (lane * 8 + p * 256 < K) asm volatile("prefetch.global.L1 [%0];" ::"l"(wrow + lane * 8 + p * 256));
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    for (int k = threadIdx.x; k < K; k += blockDim.x) a[k] = l == 0 ? __float2half_rn(net.x[k]) : net.act[l - 1][k];
    __syncthreads();
    if (n >= N) return;
    const float v = act_fn(l, dot_col<K>(wrow, a, lane) + __half2float(net.b[l][n]));
    if (lane == 0) {
        if (l == NL - 1) net.y[n] = v;
        else net.act[l][n] = __float2half_rn(v);
    }
}

static float h2f(__half h) { return __half2float(h); }

int main(int argc, char** argv) {
    const int csize = argc > 1 ? atoi(argv[1]) : 16;
    const int replays = argc > 2 ? std::max(10, atoi(argv[2])) : 2000;
    if (csize < 1 || csize > 16 || 64 % csize) {
        fprintf(stderr, "cluster size must divide 64 and be at most 16\n");
        return 2;
    }
    unsigned seed = 777u;
    auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return ((seed >> 8) & 0xffff) / 65536.0f - 0.5f; };
    std::vector<__half> hw[NL], hb[NL];
    std::vector<float> hx(DIMS[0]);
    Net net;
    memset(&net, 0, sizeof net);
    for (int l = 0; l < NL; ++l) {
        const int K = DIMS[l], N = DIMS[l + 1];
        hw[l].resize((size_t)N * K);
        hb[l].resize(N);
        for (auto& v : hw[l]) v = __float2half(rnd() * 2.0f / sqrtf((float)K));
        for (auto& v : hb[l]) v = __float2half(rnd() * 0.2f);
        __half *dw, *db, *da;
        CK(cudaMalloc(&dw, hw[l].size() * 2));
        CK(cudaMalloc(&db, N * 2));
        CK(cudaMalloc(&da, N * 2));
        CK(cudaMemcpy(dw, hw[l].data(), hw[l].size() * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb[l].data(), N * 2, cudaMemcpyHostToDevice));
        net.w[l] = dw, net.b[l] = db, net.act[l] = da;
    }
    for (auto& v : hx) v = rnd() * 2.0f;
    float *dx, *dy;
    CK(cudaMalloc(&dx, DIMS[0] * 4));
    CK(cudaMalloc(&dy, DIMS[NL] * 4));
    CK(cudaMemcpy(dx, hx.data(), DIMS[0] * 4, cudaMemcpyHostToDevice));
    net.x = dx, net.y = dy;
    /* the host reference: float16 activations between the layers, float32 (double) sums */
    std::vector<float> a(DIMS[0]), ref;
    for (int k = 0; k < DIMS[0]; ++k) a[k] = h2f(__float2half(hx[k]));
    for (int l = 0; l < NL; ++l) {
        const int K = DIMS[l], N = DIMS[l + 1];
        std::vector<float> o(N);
        for (int n = 0; n < N; ++n) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += (double)a[k] * h2f(hw[l][(size_t)n * K + k]);
            const float v = (float)s + h2f(hb[l][n]);
            o[n] = l == NL - 1 ? tanhf(v) : h2f(__float2half(std::max(v, 0.0f)));
        }
        a = o;
    }
    ref = a;

    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaFuncSetAttribute(k_mlp_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(k_mlp_cluster_bulk, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const int bulk_smem = NB * CHUNK_ROWS * KMAX * 2;
    CK(cudaFuncSetAttribute(k_mlp_cluster_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, bulk_smem));
    for (int variant = 0; variant < 3; ++variant) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        if (variant == 0 || variant == 2) {
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute at[1];
            memset(&cfg, 0, sizeof cfg);
            cfg.gridDim = dim3(csize);
            cfg.blockDim = dim3(THREADS);
            cfg.stream = s;
            at[0].id = cudaLaunchAttributeClusterDimension;
            at[0].val.clusterDim.x = csize, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
            cfg.attrs = at, cfg.numAttrs = 1;
            if (variant == 0) CK(cudaLaunchKernelEx(&cfg, k_mlp_cluster, net));
            else {
                cfg.dynamicSmemBytes = bulk_smem;
                CK(cudaLaunchKernelEx(&cfg, k_mlp_cluster_bulk, net));
            }
        } else {
            for (int l = 0; l < NL; ++l) {
                cudaLaunchConfig_t cfg;
                cudaLaunchAttribute at[1];
                memset(&cfg, 0, sizeof cfg);
                cfg.gridDim = dim3(DIMS[l + 1] / 8);
                cfg.blockDim = dim3(256);
                cfg.stream = s;
                at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
                at[0].val.programmaticStreamSerializationAllowed = 1;
                cfg.attrs = at, cfg.numAttrs = l > 0 ? 1 : 0;
                if (l == 0) CK(cudaLaunchKernelEx(&cfg, k_layer<256, 1024>, net, l));
                else if (l < NL - 1) CK(cudaLaunchKernelEx(&cfg, k_layer<1024, 1024>, net, l));
                else CK(cudaLaunchKernelEx(&cfg, k_layer<1024, 64>, net, l));
            }
        }
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        std::vector<float> t;
        for (int i = 0; i < replays + 50; ++i) {
            float ms;
            CK(cudaEventRecord(e0, s));
            CK(cudaGraphLaunch(ge, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 50) t.push_back(ms * 1000.0f);
        }
        std::sort(t.begin(), t.end());
        std::vector<float> got(DIMS[NL]);
        CK(cudaMemcpy(got.data(), dy, DIMS[NL] * 4, cudaMemcpyDeviceToHost));
        double err = 0, big = 0;
        for (int n = 0; n < DIMS[NL]; ++n) err = std::max(err, (double)fabsf(got[n] - ref[n])), big = std::max(big, (double)fabsf(ref[n]));
        printf("%-44s median %.2f us, p10 %.2f, p90 %.2f (%d replays); max |y - ref| %.2e (largest |ref| %.2f)%s\n",
               variant == 0 ? "one cluster launch, weights from L2" : variant == 1 ? "four launches, programmatic edges" : "one cluster launch, weights by bulk copies",
               t[t.size() / 2], t[t.size() / 10],
               t[t.size() * 9 / 10], replays, err, big, err <= 1e-2 * std::max(big, 1.0) ? "" : "  WRONG");
        if (variant != 1) printf("  (cluster of %d CTAs x %d threads%s)\n", csize, THREADS, variant == 2 ? ", 6 chunk buffers of 16 rows" : "");
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
        CK(cudaMemset(dy, 0, DIMS[NL] * 4));
    }
    return 0;
}
