/* ln_fold: a post-LN encoder's "LayerNormalization, then the next MatMul" at batch 1 as ONE launch,
   against what aicf runs today (its LayerNorm kernel, then cuBLASLt: two dependent launches).
   The question it answers before any planner work (docs/benchmarks.md, session 36): is a
   LayerNorm folded into its consumer GEMM worth a launch at M = 128, K = 384?

     nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a bench/ln_fold.cu -o build/ln_fold -lcuda -lcublasLt
     build/ln_fold [replays]

   The fold. With LN(x)_k = (x_k - mean) rstd gamma_k + beta_k over a row of K,
     LN(x) W + bias = rstd (x W') - rstd mean c1 + c2,
   where W' = diag(gamma) W (rounded to float16 once, at plan time), c1_n = sum_k W'_kn and
   c2_n = sum_k beta_k W_kn + bias_n (float32, from the same rounded W'). So the GEMM's main loop
   runs on the raw x, unchanged; only the epilogue needs each row's mean and rstd. Every CTA of
   the GEMM holds all of its rows' K in shared memory anyway (K = 384: the whole K is resident),
   so it computes the statistics itself, redundantly, from the slabs TMA brought in (sum and sum
   of squares in float32 once every slab's wgmma is issued, while they run; the order of a row's chunks does not matter to a
   sum, so the 128-byte swizzle needs no decoding there). The residual that follows a post-LN
   block needs LN(x) itself: with ln_out = 1 every CTA of a row block writes its share of it from
   its resident slabs (the rows' statistics through shared memory, gamma and beta, the swizzle
   decoded); ln_out = 2, the first form measured, leaves all of it to the CTAs of column 0.

   The GEMM is bench/gemm_wgmma.cu's k_wg (BM / 64 warpgroups, wgmma m64nBNk16 from shared memory,
   TMA copies with the 128-byte swizzle; W [K, N], ONNX MatMul's layout), whole K resident, one
   accumulator chain, no cluster. Shapes: the encoder's qkv (N = 1152) and f1 (N = 1536) at
   M = 128, K = 384, the two GEMMs that read a LayerNorm's output. Inputs are random rows with
   their own offsets (|mean| up to 2) and scales (0.5-3), so the fold's cancellation is exercised;
   every output is checked against a float64 host reference of LayerNorm then GEMM. Times are
   medians per step over replays of a CUDA graph of 20 steps. */
#include "hopper.cuh"

struct Args {
    CUtensorMap ta, tb; /* X: dims {K, M}, box {64, BM}; W' [K, N]: dims {N, K}, box {min(BN, 64), 64} */
    const float *c1, *c2;          /* [N]: the fold's column terms (FOLD), else c2 is the bias */
    const __half *gamma, *beta, *x; /* [K], [K], the raw rows [M, K] (ln_out) */
    __half *y, *ln;                 /* [M, N]; LN(x) [M, K] when ln_out */
    int M, N, K, nslab, pdl, ln_out;
    float eps;
};

template <int BM, int BN, int FOLD>
__global__ void __launch_bounds__(BM * 2, 1) k_lnf(const __grid_constant__ Args g) {
    constexpr int SA = BM * 128, SB = BN * 128, SLOT = SA + SB, NR = BN / 2;
    extern __shared__ unsigned char dsm[];
    const unsigned base = (smem_u32(dsm) + 1023u) & ~1023u;
    const unsigned char* gbase = dsm + (base - smem_u32(dsm)); /* the same bytes, generic address */
    const int tid = threadIdx.x, S = g.nslab;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const unsigned bars = base + S * SLOT;
    if (tid == 0) {
        asm volatile("prefetch.tensormap [%0];\nprefetch.tensormap [%1];\n" ::"l"(&g.ta), "l"(&g.tb) : "memory");
        for (int q = 0; q < S; ++q) mbar_init(bars + 8 * q, 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (tid == 0) /* W' is a constant: its copies go before the wait */
        for (int q = 0; q < S; ++q) {
            mbar_expect(bars + 8 * q, SLOT);
            if (BN >= 64)
                for (int j = 0; j < BN / 64; ++j) tma2d(base + q * SLOT + SA + j * 8192, &g.tb, n0 + j * 64, q * 64, bars + 8 * q);
            else tma2d(base + q * SLOT + SA, &g.tb, n0, q * 64, bars + 8 * q);
        }
    const int warp = (tid >> 5) & 3, lane = tid & 31, wgi = tid >> 7;
    /* the column terms (constants) into registers before the wait */
    float2 c1[BN / 8], c2[BN / 8];
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int col = n0 + j * 8 + (lane & 3) * 2;
        c2[j] = col < g.N ? *(const float2*)(g.c2 + col) : make_float2(0.0f, 0.0f);
        c1[j] = FOLD && col < g.N ? *(const float2*)(g.c1 + col) : make_float2(0.0f, 0.0f);
    }
    if (g.pdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
    if (tid == 0)
        for (int q = 0; q < S; ++q) tma2d(base + q * SLOT, &g.ta, q * 64, m0, bars + 8 * q);
    float d[NR];
#pragma unroll
    for (int i = 0; i < NR; ++i) d[i] = 0.0f;
    constexpr unsigned SBO_B = BN >= 64 ? 1024 : BN == 32 ? 512 : 256, MODE_B = BN >= 64 ? 1 : BN == 32 ? 2 : 3;
    constexpr unsigned KSTEP_B = SBO_B * 2 / 16;
    unsigned long long da = gdesc(base + wgi * 64 * 128, 16, 1024, 1), db = gdesc(base + SA, 8192, SBO_B, MODE_B);
    /* this thread's rows in the accumulator layout: ra and ra + 8 of the tile; the 4 lanes of a
       quad share them and take 16-byte chunks (lane & 3) * 2 and + 1 of each 128-byte slab row */
    const int ra = wgi * 64 + warp * 16 + (lane >> 2), p0 = (lane & 3) * 2;
    float s0 = 0.0f, q0 = 0.0f, s1 = 0.0f, q1 = 0.0f;
    for (int i = 0; i < S; ++i) {
        mbar_wait(bars + 8 * i, 0);
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) Wg<BN>::template mma<0>(d, da + 2 * kk, db + KSTEP_B * kk, 1);
        wg_commit();
        da += SLOT / 16;
        db += SLOT / 16;
    }
    if (FOLD) /* the row statistics from the resident slabs while the wgmma chain runs (every slab's
                 barrier has been waited on above); the first form measured read each slab right
                 after its wgmma issue, between the barrier waits, and cost ~1 us more */
        for (int i = 0; i < S; ++i) {
            const unsigned char* sl = gbase + i * SLOT;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const uint4 u0 = *(const uint4*)(sl + ra * 128 + (p0 + h) * 16);
                const uint4 u1 = *(const uint4*)(sl + (ra + 8) * 128 + (p0 + h) * 16);
                const __half2* a0 = (const __half2*)&u0;
                const __half2* a1 = (const __half2*)&u1;
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const float2 f0 = __half22float2(a0[e]), f1 = __half22float2(a1[e]);
                    s0 += f0.x + f0.y;
                    q0 = fmaf(f0.x, f0.x, fmaf(f0.y, f0.y, q0));
                    s1 += f1.x + f1.y;
                    q1 = fmaf(f1.x, f1.x, fmaf(f1.y, f1.y, q1));
                }
            }
        }
    wg_wait<0>();
    float mean0 = 0.0f, rstd0 = 1.0f, mean1 = 0.0f, rstd1 = 1.0f;
    if (FOLD) {
#pragma unroll
        for (int o = 1; o <= 2; o <<= 1) {
            s0 += __shfl_xor_sync(0xffffffffu, s0, o);
            q0 += __shfl_xor_sync(0xffffffffu, q0, o);
            s1 += __shfl_xor_sync(0xffffffffu, s1, o);
            q1 += __shfl_xor_sync(0xffffffffu, q1, o);
        }
        const float ik = 1.0f / (float)g.K;
        mean0 = s0 * ik;
        mean1 = s1 * ik;
        rstd0 = rsqrtf(fmaxf(fmaf(q0, ik, -mean0 * mean0), 0.0f) + g.eps);
        rstd1 = rsqrtf(fmaxf(fmaf(q1, ik, -mean1 * mean1), 0.0f) + g.eps);
    }
    /* y = rstd acc + (c2 - rstd mean c1): thread holds rows ra, ra + 8, columns j*8 + 2*(l%4) (+1) in d[4j..4j+3] */
    const int r0 = m0 + ra, cb = n0 + (lane & 3) * 2;
    const float nm0 = -mean0 * rstd0, nm1 = -mean1 * rstd1;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int col = cb + j * 8;
        if (col >= g.N) continue;
        if (r0 < g.M)
            *(__half2*)(g.y + (size_t)r0 * g.N + col) = __floats2half2_rn(fmaf(rstd0, d[4 * j], fmaf(nm0, c1[j].x, c2[j].x)),
                                                                          fmaf(rstd0, d[4 * j + 1], fmaf(nm0, c1[j].y, c2[j].y)));
        if (r0 + 8 < g.M)
            *(__half2*)(g.y + (size_t)(r0 + 8) * g.N + col) = __floats2half2_rn(fmaf(rstd1, d[4 * j + 2], fmaf(nm1, c1[j].x, c2[j].x)),
                                                                                fmaf(rstd1, d[4 * j + 3], fmaf(nm1, c1[j].y, c2[j].y)));
    }
    if (FOLD && g.ln_out) {
        /* LN(x) for the residual, from the resident slabs, spread over every CTA of the row block:
           a row's statistics go through shared memory (the quad that holds them writes them),
           then (row, 8-column chunk) pair e of the BM x K/8 is CTA e % gridDim.x's. ln_out = 2:
           the CTAs of column 0 write all of it (the first form measured) */
        float* st = (float*)(gbase + S * SLOT + 8 * S + 8); /* BM x {mean, rstd}; 8-byte aligned */
        if ((lane & 3) == 0) {
            st[2 * ra] = mean0;
            st[2 * ra + 1] = rstd0;
            st[2 * (ra + 8)] = mean1;
            st[2 * (ra + 8) + 1] = rstd1;
        }
        __syncthreads();
        const int CH = g.K / 8, one = g.ln_out == 2;
        if (one && blockIdx.x != 0) return;
        const int first = one ? tid : (int)blockIdx.x + (int)gridDim.x * tid, step = one ? BM * 2 : (int)gridDim.x * BM * 2;
        for (int e = first; e < BM * CH; e += step) {
            const int r = e / CH, kc = e - r * CH, row = m0 + r;
            if (row >= g.M) continue;
            const int i = kc >> 3, c = kc & 7, p = c ^ (r & 7), k0 = kc * 8; /* logical chunk c sits at physical chunk p */
            const float mu = st[2 * r], rs = st[2 * r + 1];
            const uint4 u = *(const uint4*)(gbase + i * SLOT + r * 128 + p * 16);
            const uint4 ug = __ldg((const uint4*)(g.gamma + k0)), ub = __ldg((const uint4*)(g.beta + k0));
            const __half2 *xv = (const __half2*)&u, *gv = (const __half2*)&ug, *bv = (const __half2*)&ub;
            uint4 o;
            __half2* ov = (__half2*)&o;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const float2 xf = __half22float2(xv[q]), gf = __half22float2(gv[q]), bf = __half22float2(bv[q]);
                ov[q] = __floats2half2_rn(fmaf((xf.x - mu) * rs, gf.x, bf.x), fmaf((xf.y - mu) * rs, gf.y, bf.y));
            }
            *(uint4*)(g.ln + (size_t)row * g.K + k0) = o;
        }
    }
}

/* the LayerNorm aicf runs before the GEMM today, in the same form: one warp a row, the row in
   registers, two passes (mean, then squared deviations), float16 out */
template <int K>
__global__ void __launch_bounds__(128) k_ln(const __half* x, const __half* gamma, const __half* beta, __half* y, int M, float eps, int pdl) {
    constexpr int PER = K / 64; /* __half2 per lane */
    if (pdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
    const int row = blockIdx.x * 4 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= M) return;
    const __half2* xr = (const __half2*)(x + (size_t)row * K);
    float2 v[PER];
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        v[i] = __half22float2(xr[i * 32 + lane]);
        s += v[i].x + v[i].y;
    }
#pragma unroll
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const float mean = s / K;
    float q = 0.0f;
#pragma unroll
    for (int i = 0; i < PER; ++i) q += (v[i].x - mean) * (v[i].x - mean) + (v[i].y - mean) * (v[i].y - mean);
#pragma unroll
    for (int o = 16; o; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
    const float rstd = rsqrtf(q / K + eps);
    __half2* yr = (__half2*)(y + (size_t)row * K);
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const float2 gf = __half22float2(((const __half2*)gamma)[i * 32 + lane]), bf = __half22float2(((const __half2*)beta)[i * 32 + lane]);
        yr[i * 32 + lane] = __floats2half2_rn(fmaf((v[i].x - mean) * rstd, gf.x, bf.x), fmaf((v[i].y - mean) * rstd, gf.y, bf.y));
    }
}

/* ---- host ---- */
typedef void (*LaunchFn)(const Args&, dim3, int, cudaStream_t, bool);
template <int BM, int BN, int FOLD>
static void launch_t(const Args& a, dim3 grid, int smem, cudaStream_t s, bool prog) {
    static bool init = false;
    if (!init) {
        CK(cudaFuncSetAttribute(k_lnf<BM, BN, FOLD>, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
        init = true;
    }
    launch_ex(k_lnf<BM, BN, FOLD>, grid, dim3(BM * 2), smem, s, prog, a);
}
static void ln_launch(const __half* x, const __half* gm, const __half* bt, __half* y, int M, cudaStream_t s, bool prog) {
    launch_ex(k_ln<384>, dim3((M + 3) / 4), dim3(128), 0, s, prog, x, gm, bt, y, M, 1e-5f, (int)prog);
}

static std::vector<__half> to_half(const std::vector<float>& v) {
    std::vector<__half> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = __float2half(v[i]);
    return h;
}
template <class T> static T* upload(const std::vector<T>& h) {
    T* d;
    CK(cudaMalloc(&d, h.size() * sizeof(T)));
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
static double max_rel(const __half* dev, const std::vector<double>& ref) {
    std::vector<__half> h(ref.size());
    CK(cudaMemcpy(h.data(), dev, h.size() * 2, cudaMemcpyDeviceToHost));
    double e = 0, mx = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double v = __half2float(h[i]);
        if (!std::isfinite(v)) return INFINITY;
        e = std::max(e, fabs(v - ref[i]));
        mx = std::max(mx, fabs(ref[i]));
    }
    return e / (mx > 0 ? mx : 1);
}

int main(int argc, char** argv) {
    const int replays = argc > 1 ? std::max(20, atoi(argv[1])) : 300, CHAIN = 20;
    const int M = 128, K = 384;
    cudaDeviceProp prop;
    cudaStream_t s = bench_init(&prop);
    printf("device %s, %d SMs; M = %d, K = %d; us per step, median of %d replays of a graph of %d steps\n", prop.name,
           prop.multiProcessorCount, M, K, replays, CHAIN);
    int fails = 0;
    for (int N : {1152, 1536}) {
        /* the raw rows (float16), LayerNorm's gamma and beta, W [K, N], the bias */
        std::vector<float> hx((size_t)M * K), hg(K), hb(K), hw((size_t)K * N), hbias(N);
        for (int m = 0; m < M; ++m) {
            const float off = 4.0f * rnd(), sc = 0.5f + 5.0f * (rnd() + 0.5f) / 2.0f;
            for (int k = 0; k < K; ++k) hx[(size_t)m * K + k] = __half2float(__float2half(off + sc * 2.0f * rnd()));
        }
        for (int k = 0; k < K; ++k) {
            hg[k] = __half2float(__float2half(1.0f + 0.4f * rnd()));
            hb[k] = __half2float(__float2half(0.2f * rnd()));
        }
        for (auto& v : hw) v = __half2float(__float2half(0.1f * rnd()));
        for (auto& v : hbias) v = __half2float(__float2half(0.2f * rnd()));
        /* float64 reference: LayerNorm (two-pass), then the GEMM */
        std::vector<double> rln((size_t)M * K), ry((size_t)M * N);
        for (int m = 0; m < M; ++m) {
            double mu = 0, var = 0;
            for (int k = 0; k < K; ++k) mu += hx[(size_t)m * K + k];
            mu /= K;
            for (int k = 0; k < K; ++k) var += (hx[(size_t)m * K + k] - mu) * (hx[(size_t)m * K + k] - mu);
            const double rs = 1.0 / sqrt(var / K + 1e-5);
            for (int k = 0; k < K; ++k) rln[(size_t)m * K + k] = (hx[(size_t)m * K + k] - mu) * rs * hg[k] + hb[k];
        }
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
                double a = hbias[n];
                for (int k = 0; k < K; ++k) a += rln[(size_t)m * K + k] * hw[(size_t)k * N + n];
                ry[(size_t)m * N + n] = a;
            }
        /* the fold's constants, as a plan would make them */
        std::vector<float> hwf((size_t)K * N), hc1(N), hc2(N);
        for (int k = 0; k < K; ++k)
            for (int n = 0; n < N; ++n) hwf[(size_t)k * N + n] = __half2float(__float2half(hg[k] * hw[(size_t)k * N + n]));
        for (int n = 0; n < N; ++n) {
            double a = 0, b = hbias[n];
            for (int k = 0; k < K; ++k) {
                a += hwf[(size_t)k * N + n];
                b += (double)hb[k] * hw[(size_t)k * N + n];
            }
            hc1[n] = (float)a;
            hc2[n] = (float)b;
        }
        __half *dx = upload(to_half(hx)), *dg = upload(to_half(hg)), *db = upload(to_half(hb)), *dw = upload(to_half(hw)),
               *dwf = upload(to_half(hwf)), *dbias = upload(to_half(hbias));
        float *dc1 = upload(hc1), *dc2 = upload(hc2);
        __half *dln, *dy, *dy2, *dln2;
        CK(cudaMalloc(&dln, (size_t)M * K * 2));
        CK(cudaMalloc(&dln2, (size_t)M * K * 2));
        CK(cudaMalloc(&dy, (size_t)M * N * 2));
        CK(cudaMalloc(&dy2, (size_t)M * N * 2));
        const LtMm L = lt_mm_make("LayerNorm's consumer", M, N, K, 0, K, N, N, dbias); /* today's GEMM: LN(x) W + bias into dy */

        /* 1. today: the LayerNorm kernel, then cuBLASLt */
        CK(cudaMemset(dy, 0, (size_t)M * N * 2));
        CK(cudaMemset(dln, 0, (size_t)M * K * 2));
        ln_launch(dx, dg, db, dln, M, s, false);
        lt_mm_run(L, dln, dw, 0.0f, dy, dy, s);
        CK(cudaStreamSynchronize(s));
        const double e_base = max_rel(dy, ry), e_ln = max_rel(dln, rln);
        const double t_base = time_graph(s, replays, [&](cudaStream_t st) { for (int i = 0; i < CHAIN; ++i) { ln_launch(dx, dg, db, dln, M, st, false); lt_mm_run(L, dln, dw, 0.0f, dy, dy, st); } }) / CHAIN;
        const double t_lt = time_graph(s, replays, [&](cudaStream_t st) { for (int i = 0; i < CHAIN; ++i) lt_mm_run(L, dln, dw, 0.0f, dy, dy, st); }) / CHAIN;
        const double t_ln = time_graph(s, replays, [&](cudaStream_t st) { for (int i = 0; i < CHAIN; ++i) ln_launch(dx, dg, db, dln, M, st, i > 0); }) / CHAIN;
        printf("N = %4d  LayerNorm + cuBLASLt: %6.2f us (cuBLASLt alone %5.2f, LayerNorm alone %5.2f with programmatic edges); rel err %.2e (LN %.2e)\n",
               N, t_base, t_lt, t_ln, e_base, e_ln);
        if (!(e_base < 1e-2)) ++fails;

        /* 2. the fold, every tile shape; 3. the same kernel without the fold on LN(x) (what the
              statistics cost) */
        struct V { int bm, bn; LaunchFn fold, plain; };
        const V vs[] = {{64, 32, launch_t<64, 32, 1>, launch_t<64, 32, 0>}, {64, 64, launch_t<64, 64, 1>, launch_t<64, 64, 0>},
                        {128, 32, launch_t<128, 32, 1>, launch_t<128, 32, 0>}, {128, 64, launch_t<128, 64, 1>, launch_t<128, 64, 0>}};
        for (const V& v : vs) {
            const int nslab = K / 64, SLOT = (v.bm + v.bn) * 128, smem = nslab * SLOT + 1024 + 8 * nslab + 8 + v.bm * 8;
            Args a;
            memset(&a, 0, sizeof a);
            make_map(&a.ta, dx, K, M, K, 64, v.bm, CU_TENSOR_MAP_SWIZZLE_128B);
            make_map(&a.tb, dwf, N, K, N, v.bn < 64 ? v.bn : 64, 64, v.bn >= 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B);
            a.c1 = dc1; a.c2 = dc2; a.gamma = dg; a.beta = db; a.x = dx; a.y = dy2; a.ln = dln2;
            a.M = M; a.N = N; a.K = K; a.nslab = nslab; a.eps = 1e-5f;
            const dim3 grid((N + v.bn - 1) / v.bn, (M + v.bm - 1) / v.bm);
            /* correctness: y and LN(x) */
            CK(cudaMemset(dy2, 0, (size_t)M * N * 2));
            CK(cudaMemset(dln2, 0, (size_t)M * K * 2));
            a.ln_out = 1;
            v.fold(a, grid, smem, s, false);
            CK(cudaStreamSynchronize(s));
            const double e_f = max_rel(dy2, ry), e_fl = max_rel(dln2, rln);
            CK(cudaMemset(dln2, 0, (size_t)M * K * 2));
            a.ln_out = 2;
            v.fold(a, grid, smem, s, false);
            CK(cudaStreamSynchronize(s));
            const double e_fl2 = max_rel(dln2, rln);
            if (!(e_f < 1e-2 && e_fl < 1e-2 && e_fl2 < 1e-2)) ++fails;
            double t[3][2];
            for (int lo = 0; lo < 3; ++lo)
                for (int pdl = 0; pdl < 2; ++pdl) {
                    Args b = a;
                    b.ln_out = lo;
                    t[lo][pdl] = time_graph(s, replays, [&](cudaStream_t st) {
                        for (int i = 0; i < CHAIN; ++i) { Args c = b; c.pdl = pdl && i > 0; v.fold(c, grid, smem, st, pdl && i > 0); }
                    }) / CHAIN;
                }
            /* the plain kernel on LN(x) with W and the bias (c2 = bias) */
            Args p = a;
            make_map(&p.ta, dln, K, M, K, 64, v.bm, CU_TENSOR_MAP_SWIZZLE_128B);
            make_map(&p.tb, dw, N, K, N, v.bn < 64 ? v.bn : 64, 64, v.bn >= 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B);
            std::vector<float> fb(hbias.begin(), hbias.end());
            float* dfb = upload(fb);
            p.c2 = dfb; p.ln_out = 0;
            CK(cudaMemset(dy2, 0, (size_t)M * N * 2));
            v.plain(p, grid, smem, s, false);
            CK(cudaStreamSynchronize(s));
            const double e_p = max_rel(dy2, ry);
            if (!(e_p < 1e-2)) ++fails;
            const double t_p = time_graph(s, replays, [&](cudaStream_t st) {
                for (int i = 0; i < CHAIN; ++i) { Args c = p; c.pdl = i > 0; v.plain(c, grid, smem, st, i > 0); }
            }) / CHAIN;
            const double t_lnp = time_graph(s, replays, [&](cudaStream_t st) {
                for (int i = 0; i < CHAIN; ++i) { ln_launch(dx, dg, db, dln, M, st, i > 0); Args c = p; c.pdl = 1; v.plain(c, grid, smem, st, true); }
            }) / CHAIN;
            printf("N = %4d  %3d x %2d tiles (%3d CTAs): fold %5.2f us (%5.2f with programmatic edges), with LN(x) out spread over the CTAs %5.2f (%5.2f), "
                   "from column 0 %5.2f (%5.2f); rel err %.2e, LN(x) %.2e / %.2e\n",
                   N, v.bm, v.bn, grid.x * grid.y, t[0][0], t[0][1], t[1][0], t[1][1], t[2][0], t[2][1], e_f, e_fl, e_fl2);
            printf("           same kernel unfolded on LN(x): %5.2f us with programmatic edges, rel err %.2e; LayerNorm + it, all edges programmatic: %5.2f us\n",
                   t_p, e_p, t_lnp);
            CK(cudaFree(dfb));
        }
        CK(cudaFree(dx)); CK(cudaFree(dg)); CK(cudaFree(db)); CK(cudaFree(dw)); CK(cudaFree(dwf)); CK(cudaFree(dbias));
        CK(cudaFree(dc1)); CK(cudaFree(dc2)); CK(cudaFree(dln)); CK(cudaFree(dln2)); CK(cudaFree(dy)); CK(cudaFree(dy2));
    }
    printf("%s: %d check(s) over the 1e-2 bound\n", fails ? "FAILED" : "ok", fails);
    return fails ? 1 : 0;
}
