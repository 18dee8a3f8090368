// What the wait between two dependent batch-1 layers costs, and what a tagged hand-off would save
// (docs/benchmarks.md, session 28's section, row 5). A chain of L GEMV layers shaped like mlp_b1's
// middle layers (D[n] = relu(sum_k A[k] W[n,k] + b[n]), N = K = 1024, float16 storage, float32
// sums, a warp per output column, 8 warps a block, so 128 blocks a layer), captured into a CUDA
// graph five ways:
//   plain     full edges between the layers: each waits for the previous grid's completion
//   pdl       programmatic edges: a layer prefetches its weight row into L1, executes
//             griddepcontrol.wait, then griddepcontrol.launch_dependents, as aicf_gemv_* does
//   pdl-reg   the same with the weight row loaded into registers before the wait
//   counter   programmatic edges, no griddepcontrol.wait, the weight row in registers before the
//             poll (an acquire load invalidates L1): each producer block, after its stores,
//             adds 1 to its layer's counter (release, gpu scope); each consumer block polls the
//             previous layer's counter (acquire) until it reaches epoch * 128 blocks, then reads A.
//             The consumer is launched only once every producer block has issued
//             launch_dependents, so all producers are resident: no deadlock.
//   tagged    programmatic edges, no wait and no fence: each output is also stored as a 32-bit word,
//             its float16 bits | the epoch << 16 (volatile store); a consumer lane reads its 32
//             input words (volatile loads) until every tag is this epoch's, as the persistent
//             GEMV's hand-off (templates/ewchain.cu.j2 aicf_gemvp).
// Each graph starts with a kernel that advances the epoch and writes layer 0's input for it (it
// changes every replay). Prints, per variant, the median, p10 and p90 of the replay time over CUDA
// events, then replays each graph 200 more times, copying the output after each: the five
// variants must give the same bits replay for replay. Build and run on the GPU machine:
//   nvcc -arch=sm_90 -O3 bench/pdl_handoff.cu -o build/pdl_handoff && build/pdl_handoff [layers] [replays]
#include <algorithm>
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

enum { N = 1024, K = 1024, WARPS = 8, BLOCKS = N / WARPS, MAXL = 8 };
enum { PLAIN = 0, PDL = 1, PDLREG = 2, TAGGED = 3, TAGW = 4, MODES = 5, CHECKS = 200 };

struct Layer {
    const __half* a;  // input [K]
    const __half* w;  // weights [N, K]
    const __half* b;  // bias [N]
    __half* d;        // output [N]
    unsigned* in_count;   // TAGGED: the producer layer's counter (0: none)
    unsigned* out_count;  // TAGGED: this layer's counter
    const unsigned* epoch;
    const unsigned* ta;   // TAGW: the input as tagged words (0: read a)
    unsigned* td;         // TAGW: the output as tagged words
};

// the next epoch, and layer 0's input for it (x0 + a step that changes every replay, so a layer
// that read its input before it was written would give another output)
__global__ void k_epoch(unsigned* epoch, const __half* x0, __half* a0) {
    const unsigned e = *epoch + 1u;
    __syncthreads();
    if (threadIdx.x == 0) *epoch = e;
    for (int k = threadIdx.x; k < K; k += blockDim.x) a0[k] = __float2half(__half2float(x0[k]) + 0.05f * (float)(e % 8u));
}

template <int MODE>
__global__ void __launch_bounds__(256) k_gemv(Layer L) {
    const int lane = threadIdx.x & 31, n = blockIdx.x * WARPS + (threadIdx.x >> 5);
    const __half* wr = L.w + (size_t)n * K;
    uint4 wv[K / 256];
    if (MODE == PDL) { /* aicf_gemv_*: the weight row into L1 before the wait */
#pragma unroll
        for (int p = 0; p < K / 256; ++p) asm volatile("prefetch.global.L1 [%0];" ::"l"(wr + lane * 8 + p * 256));
    }
    if (MODE == PDLREG || MODE == TAGGED || MODE == TAGW) { /* into registers (an acquire load invalidates L1) */
#pragma unroll
        for (int p = 0; p < K / 256; ++p) wv[p] = *(const uint4*)(wr + lane * 8 + p * 256);
    }
    if (MODE == PDL || MODE == PDLREG) {
        asm volatile("griddepcontrol.wait;" ::: "memory");
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    } else if (MODE == TAGGED) {
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
        if (L.in_count) {
            if (threadIdx.x == 0) {
                const unsigned want = *L.epoch * (unsigned)BLOCKS;
                unsigned c;
                do {
                    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(c) : "l"(L.in_count) : "memory");
                } while ((int)(c - want) < 0);
            }
            __syncthreads();
        }
    }
    if (MODE == PLAIN || MODE == PDL) {
#pragma unroll
        for (int p = 0; p < K / 256; ++p) wv[p] = *(const uint4*)(wr + lane * 8 + p * 256);
    }
    uint4 ah[K / 256]; /* TAGW: the input halves, from tagged words polled until every tag is this epoch's */
    if (MODE == TAGW) {
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
        const unsigned tag = (*L.epoch & 0xffffu) << 16;
        if (L.ta) {
            bool ok;
            do {
                ok = true;
#pragma unroll
                for (int p = 0; p < K / 256; ++p) {
                    unsigned t[8];
                    const unsigned* src = L.ta + lane * 8 + p * 256;
                    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(t[0]), "=r"(t[1]), "=r"(t[2]), "=r"(t[3]) : "l"(src) : "memory");
                    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(t[4]), "=r"(t[5]), "=r"(t[6]), "=r"(t[7]) : "l"(src + 4) : "memory");
#pragma unroll
                    for (int e = 0; e < 8; ++e) ok &= (t[e] & 0xffff0000u) == tag;
                    ah[p] = make_uint4((t[0] & 0xffffu) | (t[1] << 16), (t[2] & 0xffffu) | (t[3] << 16), (t[4] & 0xffffu) | (t[5] << 16),
                                       (t[6] & 0xffffu) | (t[7] << 16));
                }
            } while (!ok);
        } else {
#pragma unroll
            for (int p = 0; p < K / 256; ++p) ah[p] = *(const uint4*)(L.a + lane * 8 + p * 256);
        }
    }
    float acc = 0.0f;
#pragma unroll
    for (int p = 0; p < K / 256; ++p) {
        const int k = lane * 8 + p * 256;
        const uint4 av = MODE == TAGW ? ah[p] : *(const uint4*)(L.a + k);
        const __half2* w2 = (const __half2*)&wv[p];
        const __half2* a2 = (const __half2*)&av;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float2 wf = __half22float2(w2[e]), af = __half22float2(a2[e]);
            acc = fmaf(af.x, wf.x, acc);
            acc = fmaf(af.y, wf.y, acc);
        }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) {
        const __half r = __float2half_rn(fmaxf(acc + __half2float(L.b[n]), 0.0f));
        L.d[n] = r;
        if (MODE == TAGW) {
            const unsigned word = (unsigned)__half_as_ushort(r) | ((*L.epoch & 0xffffu) << 16);
            asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(L.td + n), "r"(word) : "memory");
        }
    }
    if (MODE == TAGGED) { /* the block's stores, then one release add (cumulative through the barrier) */
        __syncthreads();
        if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(L.out_count) : "memory");
    }
}

static void launch(cudaStream_t s, int mode, const Layer& L, bool programmatic) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at[1];
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3(BLOCKS);
    cfg.blockDim = dim3(WARPS * 32);
    cfg.stream = s;
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = programmatic ? 1 : 0;
    if (mode == PLAIN) CK(cudaLaunchKernelEx(&cfg, k_gemv<PLAIN>, L));
    else if (mode == PDL) CK(cudaLaunchKernelEx(&cfg, k_gemv<PDL>, L));
    else if (mode == PDLREG) CK(cudaLaunchKernelEx(&cfg, k_gemv<PDLREG>, L));
    else if (mode == TAGGED) CK(cudaLaunchKernelEx(&cfg, k_gemv<TAGGED>, L));
    else CK(cudaLaunchKernelEx(&cfg, k_gemv<TAGW>, L));
}

int main(int argc, char** argv) {
    const int layers = argc > 1 ? std::max(1, std::min((int)MAXL, atoi(argv[1]))) : 4;
    const int replays = argc > 2 ? std::max(10, atoi(argv[2])) : 2000;
    std::vector<__half> hw((size_t)layers * N * K), hb((size_t)layers * N), hx(K);
    unsigned seed = 12345u;
    auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return ((seed >> 8) & 0xffff) / 65536.0f - 0.5f; };
    for (auto& v : hw) v = __float2half(rnd() * 0.1f);
    for (auto& v : hb) v = __float2half(rnd() * 0.1f);
    for (auto& v : hx) v = __float2half(rnd());
    __half *w, *b, *act, *x0;
    unsigned *counts, *epoch, *tw;
    CK(cudaMalloc(&w, hw.size() * 2));
    CK(cudaMalloc(&b, hb.size() * 2));
    CK(cudaMalloc(&act, (size_t)(layers + 1) * N * 2));
    CK(cudaMalloc(&counts, MODES * MAXL * sizeof(unsigned)));
    CK(cudaMalloc(&epoch, MODES * sizeof(unsigned)));
    CK(cudaMalloc(&tw, (size_t)MAXL * N * sizeof(unsigned)));
    CK(cudaMemset(tw, 0, (size_t)MAXL * N * sizeof(unsigned)));
    CK(cudaMemset(counts, 0, MODES * MAXL * sizeof(unsigned)));
    CK(cudaMemset(epoch, 0, MODES * sizeof(unsigned)));
    CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&x0, K * 2));
    CK(cudaMemcpy(x0, hx.data(), K * 2, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<unsigned short> out[MODES];
    const char* names[MODES] = {"plain (full edges)", "pdl (wait; weights L1-prefetched)", "pdl (wait; weights in registers)",
                                "counter (poll, no wait)", "tagged words (no wait, no fence)"};
    for (int mode = 0; mode < MODES; ++mode) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        k_epoch<<<1, 256, 0, s>>>(epoch + mode, x0, act);
        for (int l = 0; l < layers; ++l) {
            Layer L;
            L.a = act + (size_t)l * N;
            L.w = w + (size_t)l * N * K;
            L.b = b + (size_t)l * N;
            L.d = act + (size_t)(l + 1) * N;
            L.in_count = l > 0 ? counts + mode * MAXL + l - 1 : nullptr;
            L.out_count = counts + mode * MAXL + l;
            L.epoch = epoch + mode;
            L.ta = l > 0 ? tw + (size_t)(l - 1) * N : nullptr;
            L.td = tw + (size_t)l * N;
            launch(s, mode, L, mode != PLAIN && l > 0);
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
        out[mode].resize((size_t)CHECKS * N);
        for (int i = 0; i < CHECKS; ++i) {
            CK(cudaGraphLaunch(ge, s));
            CK(cudaMemcpyAsync(out[mode].data() + (size_t)i * N, act + (size_t)layers * N, N * 2, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
        }
        printf("%-32s %d layers: median %.2f us, p10 %.2f, p90 %.2f (%d replays)\n", names[mode], layers, t[t.size() / 2],
               t[t.size() / 10], t[t.size() * 9 / 10], replays);
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
    }
    bool same = true;
    for (int m = 1; m < MODES; ++m) same = same && out[m] == out[0];
    printf("outputs of %d replays each: %s\n", CHECKS, same ? "identical" : "DIFFER");
    return same ? 0 : 1;
}
