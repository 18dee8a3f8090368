/* >>cuda_conv ================================================================================ */
/* Conv on tensor cores: im2col into arena scratch + one strided-batched cuBLASLt GEMM.

   For a 2-D Conv with group == 1 (1-D convs are 2-D with H = 1), per image n:
       col_n [K = C*KH*KW, P = OH*OW]   templates/im2col.cu.j2 (aicf_im2col_f32 / _f16),
                                        zero where the window reads padding;
       Y_n   [M = Cout, P] = W [M, K] x col_n [K, P]
   and Y_n is exactly image n of Y in NCHW. All N images are one strided-batched cuBLASLt
   matmul: A = W read as [M, K] (stride_a 0: shared by every image), B = col (stride K*P),
   D = Y (stride M*P). A pointwise conv (1x1, stride 1, no padding) needs no im2col: col_n is
   x_n as stored (stride C*H*W). The Conv's bias B[M] is added afterwards by one broadcast add
   (aicf__cuc_bias; the fused elementwise epilogue is to take it over).

   Element types: float16 storage runs on fp16 tensor cores with float32 accumulation (compute
   type CUBLAS_COMPUTE_32F, as every aicf GEMM); float32 storage stays float32 arithmetic
   (cuBLASLt's SIMT SGEMM), except under AICF_PRECISION_TF32, which puts these GEMMs on TF32
   tensor cores like Gemm and MatMul.

   The column buffer (N*K*P elements of the storage type) is not an allocation of its own: the
   planner asks aicf__cuda_step_scratch for each step's need before the memory plan, which
   places it in the arena as an interval living during that step only (aicf__step.scratch_bytes,
   scratch_offset), and the kernel and GEMM name it with the patch tensor AICF__CUO_SCRATCH,
   resolved at exec creation by aicf__cuda_scratch_ptr. Both calls decide through the same
   function (aicf__cuc_choose) from the same inputs, so the scratch exists exactly when the
   lowering uses it; only when cuBLASLt then finds no algorithm for the shape does the step fall
   back to the generated kernel and leave its scratch unused (the reason says so).

   Float16 storage has a third lowering, the generated implicit GEMM on tensor cores
   (templates/conv_tc.cu.j2, aicf_conv2d_tc_f16): the same GEMM with B gathered from x while each
   tile is loaded (no column buffer), and the Conv's bias, a residual Add of a tensor shaped like
   Y and a ReLU applied in its epilogue (aicf__step.epi_native counts the fused ops it took).
   When the output tiles would not fill the device (fewer tiles than SMs), K is split across
   blocks: each writes float32 partial sums to the step's scratch, and aicf_conv2d_tc_reduce_f16
   adds them in a fixed order and applies the epilogue (deterministic, no atomics). Three variants
   of it stage the input patch in shared memory: the rows kernel (aicf_conv2d_tcr_*, 3x3 stride 1
   pad 1, whole input rows copied by cp.async and transposed channels-last in shared memory,
   channels in chunks of 16), the patch kernel (aicf_conv2d_tcp_*, 3x3 stride 1, channels in
   chunks of 8) and, for convs of fewer than 8 channels with K <= 256 (image stems), the small-K
   kernel (aicf_conv2d_tcs_f16_m64: weights resident, tiles looped over, no split-K).

   Choice (policy.conv_algo): DIRECT always keeps the generated kernels of aicf__cuo_lower_conv;
   IMPLICIT_GEMM_TC takes the tensor-core kernel wherever it applies (float16 storage, group 1,
   index limits); AUTO takes it for every float16 group-1 conv too (it needs no buffer, fuses the
   epilogue and, unlike cuBLASLt's per-image batch, tiles N*OH*OW across images), except where
   the batched rule (aicf__cuc_batched_auto) takes the batched im2col lowering first: float16,
   several images, K >= 512 and few output tiles, where one cuBLASLt GEMM over all the images'
   columns beats the generated kernel (aicf__cuc_batched_fit: column buffer [K][N][P], float32
   product, aicf_conv2d_tc_reduce_f16 to NCHW with the epilogue);
   IM2COL_GEMM takes this path wherever it applies (group 1, cuBLASLt loaded, index limits;
   batched at float16 with several images where N*P % 8 == 0, else per image);
   AUTO takes it for every pointwise conv (no copy to pay for) and, for the others, by the cost
   model of aicf__cuc_choose. Grouped and depthwise convs stay on the generated kernels. */

/* templates/im2col.cu.j2: aicf_im2col_args */
typedef struct aicf__k_im2col {
    uint64_t x, col;
    int64_t N, C, H, W, OH, OW, KH, KW;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t tp_log2;
} aicf__k_im2col;
typedef char aicf__k_check_im2col[sizeof(aicf__k_im2col) == 136 ? 1 : -1];

/* templates/conv_tc.cu.j2: aicf_conv2d_tc_args */
typedef struct aicf__k_conv2d_tc {
    uint64_t x, w, bias, res, y, ws;
    int64_t N, C, H, W, M, OH, OW, KH, KW;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t relu, splits, k_per_split, vec_w, vec_y;
} aicf__k_conv2d_tc;
typedef char aicf__k_check_conv2d_tc[sizeof(aicf__k_conv2d_tc) == 208 ? 1 : -1];

/* templates/conv_tc.cu.j2: aicf_conv2d_tcp_args (the patch kernels) */
typedef struct aicf__k_conv2d_tcp {
    aicf__k_conv2d_tc b;
    int64_t TH, TW, tiles_h, tiles_w, PH, PW;
} aicf__k_conv2d_tcp;
typedef char aicf__k_check_conv2d_tcp[sizeof(aicf__k_conv2d_tcp) == 256 ? 1 : -1];
#define AICF__CUC_TCP_PMAX 289 /* the patch kernels' AICF_TCP_PMAX */
#define AICF__CUC_TCP_STAGES 4 /* and AICF_TCP_STAGES */
#ifndef AICF__CUC_TCP_M64_BELOW
#  define AICF__CUC_TCP_M64_BELOW 0 /* C below which the patch kernel takes 64-row blocks whatever M (256 measured
                                       slower on resnet18: docs/benchmarks.md) */
#endif
#ifndef AICF__CUC_TCP_MAX_STRIDE
#  define AICF__CUC_TCP_MAX_STRIDE 1 /* the largest stride the patch kernel is chosen for */
#endif
#define AICF__CUC_TCP_TILE 64  /* output pixels per block */
#define AICF__CUC_TCR_LDA 152  /* the rows kernels' AICF_TCR_LDA (halves per weight row) */
#define AICF__CUC_TCR_LDT 24   /* and AICF_TCR_LDT (halves per patch pixel) */
#define AICF__CUC_TCR_PIX(bm) ((bm) == 128 ? 112 : 224) /* the rows kernel's pixel columns per block (8 warps) */
#define AICF__CUC_TCR_SMEM_MAX (113 * 1024) /* 2 blocks of 256 threads per SM (228 KiB, 1 KiB reserved per block) */
#ifndef AICF__CUC_TCR_M128
#  define AICF__CUC_TCR_M128 256 /* output channels from which the rows kernel takes 128-row blocks (resnet18 layer2, M = 128 at
                                      batch 32: 64-row blocks 37.7/37.8/39.1 us against 38.2/38.7/39.9, H100) */
#endif
#ifndef AICF__CUC_TCR_MIN_FILL
#  define AICF__CUC_TCR_MIN_FILL 100 /* percent of the SMs the rows kernel's blocks must reach (no split-K for it under AUTO) */
#endif

/* the tensor-core kernel's tile (templates/conv_tc.cu.j2: BM = 64 or 128 output channels by 64
   columns by 32 of K) and split-K bounds */
#define AICF__CUC_TC_BN 64
#define AICF__CUC_TC_BK 32
#define AICF__CUC_TC_MAX_SPLITS 32
#ifndef AICF__CUC_TC_MIN_KTILES
#  define AICF__CUC_TC_MIN_KTILES 4 /* K tiles per split at least */
#endif
#ifndef AICF__CUC_TC_FEW_TILES
#  define AICF__CUC_TC_FEW_TILES 16 /* at most this many output tiles: K <= 256 splits one K tile a split */
#endif
#ifndef AICF__CUC_TC_REDUCE4_SPLITS
#  define AICF__CUC_TC_REDUCE4_SPLITS 4 /* the 4-column split-K reduction up to this many splits */
#endif
#ifndef AICF__CUC_TC_WAVES
#  define AICF__CUC_TC_WAVES 2 /* split K into this many blocks per SM while the tiles fill at most half the SMs */
#endif

/* AUTO's cost model (aicf__cuc_choose). */
#define AICF__CUC_AUTO_MIN_K 64                   /* GEMM depth C*KH*KW */
#define AICF__CUC_AUTO_MIN_M 32                   /* output channels */
#define AICF__CUC_AUTO_MAX_SCRATCH ((size_t)1 << 30) /* bytes of column buffer */

typedef struct aicf__cuc_choice {
    int tc;            /* 1: the tensor-core implicit GEMM (aicf_conv2d_tc_f16) */
    int64_t splits;    /* tc: K splits (1 = none); k_per_split: K per split, a multiple of 32 */
    int64_t k_per_split;
    int64_t bm;        /* tc: output channels per block (64 or 128) */
    int gemm;          /* 1: lower to cuBLASLt (the caller still needs an algorithm) */
    int im2col;        /* 1: through the column buffer; 0: B is x itself (pointwise) */
    int64_t M, N, K;   /* the GEMM per image: M = Cout, N = P = OH*OW, K = C*KH*KW */
    int64_t batch;     /* images */
    size_t scratch;    /* bytes of the column buffer (0 without im2col) */
    char why[160];     /* the rule that decided */
    int sm_count;      /* tc: the SMs the split-K rule assumed */
    char est[64];      /* AUTO: what the generated kernel would do instead */
    int tcp;           /* tc: the patch kernel (aicf_conv2d_tcp_*): k_per_split counts chunks of cg channels */
    int tcr;           /* tcp: its rows variant (aicf_conv2d_tcr_*: 3x3 stride 1 pad 1, whole rows, cg = 16) */
    int64_t vb;        /* tcr: bytes per row copy (16, 8 or 4) */
    int64_t khw, cg;   /* tcp: taps KH*KW, channels per chunk */
    int64_t th, tw, tiles_h, tiles_w, ph, pw; /* tcp, tcs: output tile, tiles per image, input patch */
    int tcs;           /* tc: the small-K kernel (aicf_conv2d_tcs_f16_m64): K <= 256, weights resident, tiles looped over */
    int64_t tcs_grid;  /* tcs: blocks along x (each loops over every tcs_grid-th tile) */
    int batched;       /* im2col: the images side by side, one GEMM [M, N*P] with a float32 product,
                          then aicf_conv2d_tc_reduce_f16 to NCHW with the epilogue (float16 only) */
    size_t col_bytes;  /* batched: the column buffer's bytes rounded up to 256; the product follows it */
} aicf__cuc_choice;

/* The patch kernel's dynamic shared memory (templates/conv_tc.cu.j2): AICF_TCP_STAGES weight
   chunks of BM rows of LDA halves, two patches. */
static unsigned aicf__cuc_tcp_smem(const aicf__cuc_choice* ch) {
    int64_t s = ch->khw * ch->cg / 8, lda = (s % 2) ? ch->khw * ch->cg : ch->khw * ch->cg + 8;
    return (unsigned)((AICF__CUC_TCP_STAGES * ch->bm * lda + 2 * AICF__CUC_TCP_PMAX * ch->cg) * 2);
}

/* The rows kernel's dynamic shared memory (templates/conv_tc.cu.j2 aicf_conv2d_tcr_*): two weight
   chunks of BM rows of AICF_TCR_LDA halves, two copies of 16 channels x PH input rows of W halves,
   two channels-last patches of PH x (W + 2) pixels of AICF_TCR_LDT halves; at least the staged
   output, BM rows of pix + 8 floats (pix = 224 pixel columns with BM = 64, 112 with 128). */
static size_t aicf__cuc_tcr_smem(int64_t bm, int64_t W, int64_t ph) {
    size_t pipe = (size_t)(2 * bm * AICF__CUC_TCR_LDA + 2 * 16 * ph * W + 2 * ph * (W + 2) * AICF__CUC_TCR_LDT) * 2,
           out = (size_t)bm * (AICF__CUC_TCR_PIX(bm) + 8) * 4;
    return pipe > out ? pipe : out;
}

/* The small-K kernel (templates/conv_tc.cu.j2 aicf_conv2d_tcs_f16_m64): 64 output channels by
   AICF__CUC_TCS_TILE pixels per tile, K = C*KH*KW <= AICF__CUC_TCS_KMAX in one piece, the patch's
   C planes at most AICF__CUC_TCS_PMAX elements; chosen for convs of fewer than
   AICF__CUC_TCS_MAX_C channels (the first conv of an image model: measured on resnet18's 7x7
   stride-2 stem, docs/benchmarks.md); AICF__CUC_TCS_BLOCKS blocks per SM (its launch bounds). */
#define AICF__CUC_TCS_TILE 128
#define AICF__CUC_TCS_KMAX 256
#define AICF__CUC_TCS_PMAX 4096 /* the kernel's AICF_TCS_PMAX */
#ifndef AICF__CUC_TCS_MAX_C
#  define AICF__CUC_TCS_MAX_C 8
#endif
#define AICF__CUC_TCS_BLOCKS 2

/* The small-K kernel's dynamic shared memory: weights 64 x 264 halves, two patch buffers of C + 1
   planes (the last one zeros), the patch's element table (8 bytes an element, an even count), the
   k table (4 bytes a k; KP = K rounded up to 16). */
static unsigned aicf__cuc_tcs_smem(int64_t C, int64_t K, int64_t ph, int64_t pw) {
    int64_t kp = (K + 15) / 16 * 16, pp = ph * pw;
    return (unsigned)((64 * 264 + ((2 * (C + 1) * pp + 7) / 8) * 8) * 2 + (C * pp + (C * pp) % 2) * 8 + kp * 4);
}

/* Whether conv weight Wt may be stored chunk-ordered for the patch and rows kernels (loc.chunk,
   permuted once at upload): a constant in the weight buffer, read by this step alone, not an
   alias, 16-byte aligned. */
static int aicf__cuc_chunkable(const aicf__cuo* c, int Wt) {
    return Wt >= 0 && c->p->loc[Wt].space == AICF__SPACE_WEIGHTS && c->p->loc[Wt].alias_of < 0 && aicf__cuo_reads(c->p, Wt) == 1 &&
           c->g->tensors[Wt].data && aicf__cuo_align(c, Wt, 0) >= 16;
}

/* Records output tile th x tw (input patch ph x pw) and the tiles per image of window w in ch. */
static void aicf__cuc_set_tile(const aicf__cuo_win* w, aicf__cuc_choice* ch, int64_t th, int64_t tw, int64_t ph, int64_t pw) {
    ch->th = th;
    ch->tw = tw;
    ch->tiles_h = (w->OH + th - 1) / th;
    ch->tiles_w = (w->OW + tw - 1) / tw;
    ch->ph = ph;
    ch->pw = pw;
}

/* The small-K kernel's tile for window w: TH x TW = 128 pixels with TW even (one output row per
   accumulator pair) whose patch's C planes fit AICF__CUC_TCS_PMAX elements; fewest tiles per image,
   then the smallest patch, then the wider tile. 0 if none fits. */
static int aicf__cuc_tcs_tile(const aicf__cuo_win* w, aicf__cuc_choice* ch) {
    int64_t tw, best_n = -1, best_px = 0;
    for (tw = 2; tw <= AICF__CUC_TCS_TILE; tw *= 2) {
        int64_t th = AICF__CUC_TCS_TILE / tw;
        int64_t ph = (th - 1) * w->sh + (w->KH - 1) * w->dh + 1, pw = (tw - 1) * w->sw + (w->KW - 1) * w->dw + 1;
        int64_t n = ((w->OH + th - 1) / th) * ((w->OW + tw - 1) / tw);
        if (w->C * ph * pw > AICF__CUC_TCS_PMAX || pw >= 65536) continue;
        if (best_n < 0 || n < best_n || (n == best_n && ph * pw <= best_px)) {
            best_n = n;
            best_px = ph * pw;
            aicf__cuc_set_tile(w, ch, th, tw, ph, pw);
        }
    }
    return best_n > 0;
}

/* The patch kernels' output tile for window w: TH x TW <= 64 pixels whose input patch
   ((TH-1)*stride_h + (KH-1)*dil_h + 1 rows, likewise columns) fits AICF__CUC_TCP_PMAX pixels;
   fewest tiles per image first, then the smallest patch (least halo), then the wider tile. 0 if
   none fits. */
static int aicf__cuc_tcp_tile(const aicf__cuo_win* w, aicf__cuc_choice* ch) {
    int64_t th, tw, best_n = -1, best_px = 0;
    for (th = 1; th <= AICF__CUC_TCP_TILE; th++)
        for (tw = AICF__CUC_TCP_TILE / th; tw >= 1; tw--) {
            int64_t ph = (th - 1) * w->sh + (w->KH - 1) * w->dh + 1, pw = (tw - 1) * w->sw + (w->KW - 1) * w->dw + 1;
            int64_t n = ((w->OH + th - 1) / th) * ((w->OW + tw - 1) / tw);
            if (th > w->OH && th > 1) continue; /* taller than the image: same tiles, more halo */
            if (tw > w->OW && tw > 1) continue;
            if (ph * pw > AICF__CUC_TCP_PMAX) continue;
            if (best_n < 0 || n < best_n || (n == best_n && ph * pw < best_px) ||
                (n == best_n && ph * pw == best_px && tw > ch->tw)) {
                best_n = n;
                best_px = ph * pw;
                aicf__cuc_set_tile(w, ch, th, tw, ph, pw);
            }
            break; /* the widest tw for this th; narrower ones only add tiles */
        }
    return best_n > 0;
}

/* "7.2 MiB" */
static const char* aicf__cuc_bytes(double b, char* buf, size_t cap) {
    if (b >= 1073741824.0) snprintf(buf, cap, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1048576.0) snprintf(buf, cap, "%.1f MiB", b / 1048576.0);
    else if (b >= 1024.0) snprintf(buf, cap, "%.1f KiB", b / 1024.0);
    else snprintf(buf, cap, "%.0f B", b);
    return buf;
}

/* Whether cuBLASLt is loaded on the plan's context. */
static int aicf__cuc_have_lt(const aicf__cuo* c) {
#if !defined(AICF_NO_CUDA)
    return c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->lt_handle != NULL;
#else
    AICF__UNUSED(c);
    return 0;
#endif
}

/* Whether the tensor-core implicit GEMM takes this (group 1) conv: NULL and *ch filled (tc, M/N/K,
   bm, splits, scratch, why) if so, else why not. Tile: BM = 128 output channels per block when
   M >= 128 (each gathered element of x then feeds twice the MMAs), else 64. Split-K: with
   T = ceil(M/BM) * ceil(N*OH*OW/64) output tiles (the patch kernels: their tiles) at most half
   the SM count, K is cut into ceil(2 * SMs / T) splits (AICF__CUC_TC_WAVES; measured on resnet18
   at batch 1, 8 and 32: 2 and 4 blocks per SM beat 1 by 8-20%); with T between half the SMs and
   the SM count into ceil(SMs / T) (autotuned resnet18 at batch 32, H100: layer4's 100 and 128
   tiles 2 splits 57.8 / 70.3 us against 3 splits 58.0 / 80.0); from T = SMs on, none (layer3's
   256 tiles: 60.4 us against 71.1 with 2 splits). At most 32 splits, each at least 4 K-tiles of
   32 where K has more than 8 or the output more than 16 tiles (else 1: the small-K 1x1 convs of
   few tiles; the patch kernels: ~128 of K); the float32 partial sums take
   splits * M * N*OH*OW * 4 bytes of scratch (at most 1 GiB, else no split). The SM count is the
   context's device's (aicf_device_info.sm_count); a plan is made for one device. */
static const char* aicf__cuc_tc_fit(const aicf__cuo* c, const aicf__cuo_win* w, int64_t M, aicf__cuc_choice* ch) {
    const int64_t lim = (int64_t)1 << 31, sp = (int64_t)1 << 28;
    int64_t K = w->C * w->KH * w->KW, P = w->OH * w->OW, NP = w->N * P, tiles, ktiles, splits = 1, kt = 0, sm = 132;
    size_t ws = 0;
    int64_t bm = M >= 128 ? 128 : 64;
    if (c->es != 2) return "not for fp32 storage";
    if (aicf__cuda_kernel_find(bm == 128 ? "aicf_conv2d_tc_f16_m128_vw" : "aicf_conv2d_tc_f16_m64_vw") < 0 ||
        aicf__cuda_kernel_find(bm == 128 ? "aicf_conv2d_tc_f16_m128" : "aicf_conv2d_tc_f16_m64") < 0 ||
        aicf__cuda_kernel_find("aicf_conv2d_tc_reduce_f16") < 0)
        return "aicf_conv2d_tc_f16_* not in the kernel table";
    if (M <= 0 || K <= 0 || NP <= 0) return "empty GEMM";
    if (w->C * w->H * w->W >= lim || K >= lim || M >= lim || P >= lim || (NP + 63) / 64 >= lim || (M + 63) / 64 > 65535 ||
        w->H >= sp || w->W >= sp || w->OH >= sp || w->OW >= sp || (w->KH - 1) * w->dh >= sp || (w->KW - 1) * w->dw >= sp ||
        w->OH * w->sh >= sp || w->OW * w->sw >= sp || w->ph >= sp || w->pw >= sp ||
        w->C * w->H * w->W + (w->KH - 1) * w->dh * w->W + (w->KW - 1) * w->dw >= lim)
        return "sizes beyond the kernel's 32-bit offsets";
#if !defined(AICF_NO_CUDA)
    if (c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->sm_count > 0) sm = c->ctx->cuda->sm_count;
#endif
    ch->tcp = ch->tcs = ch->tcr = 0;
    ch->vb = 0;
    ch->khw = ch->cg = ch->th = ch->tw = ch->tiles_h = ch->tiles_w = ch->ph = ch->pw = ch->tcs_grid = 0;
    /* the small-K kernel: few channels (the gathering kernel's per-element gather and 2-byte
       weight loads are what its time goes to there), K in one piece, no K split (its tile loop
       fills the device), so not under a pinned or tried split of more than one part */
    if (w->C < AICF__CUC_TCS_MAX_C && K <= AICF__CUC_TCS_KMAX && !(c->st->choice == AICF_CHOICE_IMPLICIT_GEMM_TC && c->st->choice_lt > 1) &&
        aicf__cuda_kernel_find("aicf_conv2d_tcs_f16_m64") >= 0 && aicf__cuc_tcs_tile(w, ch)) {
        int64_t mb = (M + 63) / 64, nt = w->N * ch->tiles_h * ch->tiles_w, gx = (AICF__CUC_TCS_BLOCKS * sm + mb - 1) / mb;
        if (nt < lim && (M + 64) * P < lim) { /* its output offsets within an image (and past a partial last block) are 32-bit */
            ch->tcs = 1;
            ch->tcs_grid = gx < nt ? gx : nt;
            ch->tc = 1;
            ch->bm = 64;
            ch->M = M;
            ch->N = NP;
            ch->K = K;
            ch->batch = w->N;
            ch->splits = 1;
            ch->k_per_split = K;
            ch->scratch = 0;
            ch->sm_count = (int)sm;
            snprintf(ch->why, sizeof ch->why, "%s", aicf__cuo_conv_algo(c) == AICF_CONV_IMPLICIT_GEMM_TC ? "conv_algo IMPLICIT_GEMM_TC"
                                                                                                           : "AUTO: float16, group 1");
            return NULL;
        }
        ch->th = ch->tw = ch->tiles_h = ch->tiles_w = ch->ph = ch->pw = 0;
    }
#if !defined(AICF__CUC_NO_TCR)
    /* the rows kernel: the 3x3 'same' convs (stride 1, dilation 1, pads 1: OH = H, OW = W) with C %
       16 == 0 and W even (row copies of 16, 8 or 4 bytes), a constant weight read by this step alone (stored chunk-ordered,
       16 channels a chunk), x aligned to the row copies; a tile of TH = floor(pix / W) whole rows
       (pix = 224 pixels with 64-row blocks, 112 with 128; at most OH) where floor(pix / W) rows
       use at least 7/8 of the block's pixel columns; its shared memory within 2 blocks per SM; and at least AICF__CUC_TCR_MIN_FILL
       percent of the SMs busy without a K split (its blocks = images x row tiles x channel blocks)
       and 8- or 16-byte row copies (W % 4 == 0: the shapes measured) under AUTO; conv_algo
       IMPLICIT_GEMM_TC takes it wherever it fits (split-K as the patch kernel). 128-row blocks from
       M >= AICF__CUC_TCR_M128 output channels, else 64.
       Measured on resnet18 (H100, docs/benchmarks.md): the layer1 and layer2 3x3 convs at batch 32. */
    if (!ch->tcs) {
        int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1);
        int64_t tbm = M >= AICF__CUC_TCR_M128 ? 128 : 64, pix = AICF__CUC_TCR_PIX(tbm),
                vb = w->W % 8 == 0 ? 16 : w->W % 4 == 0 ? 8 : w->W % 2 == 0 ? 4 : 0, th = w->W > 0 ? pix / w->W : 0;
        int64_t fits = th * w->W * 8 >= pix * 7, blocks, smax = AICF__CUC_TCR_SMEM_MAX;
        char kn[48];
        if (th > w->OH) th = w->OH; /* an image shorter than the tile: one tile of OH rows */
        blocks = w->N * (th > 0 ? (w->OH + th - 1) / th : 0) * ((M + tbm - 1) / tbm);
#  if !defined(AICF_NO_CUDA)
        if (c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->max_smem_optin > 0 && c->ctx->cuda->max_smem_optin < smax)
            smax = c->ctx->cuda->max_smem_optin; /* sm_86/89: 99 KiB a block */
#  endif
        snprintf(kn, sizeof kn, "aicf_conv2d_tcr_f16_m%d_v%d", (int)tbm, (int)vb);
        if (w->KH == 3 && w->KW == 3 && w->sh == 1 && w->sw == 1 && w->dh == 1 && w->dw == 1 && w->ph == 1 && w->pw == 1 &&
            w->OH == w->H && w->OW == w->W && w->C % 16 == 0 && vb && th >= 1 && fits &&
            aicf__cuc_tcr_smem(tbm, w->W, th + 2) <= (size_t)smax &&
            (aicf__cuo_conv_algo(c) == AICF_CONV_IMPLICIT_GEMM_TC || (blocks * 100 >= (int64_t)AICF__CUC_TCR_MIN_FILL * sm && vb >= 8)) &&
            X >= 0 && aicf__cuo_align(c, X, 0) >= (uint64_t)vb && aicf__cuc_chunkable(c, Wt) && aicf__cuda_kernel_find(kn) >= 0 &&
            blocks < lim) {
            ch->tcp = ch->tcr = 1;
            bm = tbm;
            ch->vb = vb;
            ch->khw = 9;
            ch->cg = 16;
            aicf__cuc_set_tile(w, ch, th, w->W, th + 2, w->W + 2);
        }
    }
#endif
#if !defined(AICF__CUC_NO_TCP)
    /* the patch kernel: 3x3 taps, stride 1, in chunks of 8 channels; a constant weight read by
       this step alone (stored chunk-ordered; the weight buffer's offsets are 256-byte aligned and
       final before lowering). Measured on resnet18 (H100, docs/benchmarks.md), against the
       gathering kernel: faster on the 3x3 stride-1 convs with 64-row blocks and with 128-row
       blocks over at least 32 chunks (C >= 256); slower with 128-row blocks over 16 chunks (the
       4-stage pipeline's fill is not amortised), on stride 2 (the patch is 4x the tile) and on
       1x1 convs (a 16-channel chunk is one k16 step per barrier): those stay on the gathering
       kernel. */
    if (!ch->tcr) {
        int Wt = aicf__cuo_in(c, 1);
        int64_t tbm = w->C < AICF__CUC_TCP_M64_BELOW ? 64 : bm;
        int64_t khw = w->KH * w->KW,
                cg = khw == 9 && w->sh <= AICF__CUC_TCP_MAX_STRIDE && w->sw <= AICF__CUC_TCP_MAX_STRIDE && (tbm == 64 || w->C >= 256) ? 8 : 0;
        char kn[48];
        snprintf(kn, sizeof kn, "aicf_conv2d_tcp_f16_m%d_k%dc%d", (int)tbm, (int)khw, (int)cg);
        if (cg && w->C % cg == 0 && aicf__cuc_chunkable(c, Wt) && aicf__cuda_kernel_find(kn) >= 0 && aicf__cuc_tcp_tile(w, ch) && w->N * ch->tiles_h * ch->tiles_w < lim) {
            ch->tcp = 1;
            ch->khw = khw;
            ch->cg = cg;
            bm = tbm;
        }
    }
#endif
    /* the split-K rule over output tiles and K tiles: the patch kernel's K tiles are chunks of cg
       channels (khw*cg of K) with at least ~128 of K per split; the gathering kernel's are 32 of K */
    {
        int64_t min_kt = AICF__CUC_TC_MIN_KTILES;
        if (ch->tcp) {
            min_kt = (128 + ch->khw * ch->cg - 1) / (ch->khw * ch->cg);
            tiles = ((M + bm - 1) / bm) * w->N * ch->tiles_h * ch->tiles_w;
            ktiles = w->C / ch->cg;
        } else {
            tiles = ((M + bm - 1) / bm) * ((NP + AICF__CUC_TC_BN - 1) / AICF__CUC_TC_BN);
            ktiles = (K + AICF__CUC_TC_BK - 1) / AICF__CUC_TC_BK;
            /* K <= 256 over at most 16 output tiles (resnet18's 1x1 downsample convs at batch 1):
               one K tile per split (autotuned, H100: K = 64, 128, 256 over 13, 8, 4 tiles in 2,
               4, 8 splits 5.8, 6.5, 7.7 us against 7.3, 9.9, 10.1 with at least 4 K tiles a
               split). Not over more tiles: one-tile splits of light_resnet50's 1x1 convs (49
               tiles) cost it 137 us at batch 1 (docs/benchmarks.md) */
            if (ktiles <= 2 * AICF__CUC_TC_MIN_KTILES && tiles <= AICF__CUC_TC_FEW_TILES) min_kt = 1;
        }
        int64_t waves = 2 * tiles <= sm ? AICF__CUC_TC_WAVES : 1;
        if (tiles < waves * sm && ktiles >= 2 * min_kt) {
            splits = (waves * sm + tiles - 1) / tiles;
            if (splits > ktiles / min_kt) splits = ktiles / min_kt;
            if (splits > AICF__CUC_TC_MAX_SPLITS) splits = AICF__CUC_TC_MAX_SPLITS;
        }
    }
    if (c->st->choice == AICF_CHOICE_IMPLICIT_GEMM_TC && c->st->choice_lt > 0) { /* a pinned or tried K split */
        int64_t want = (int64_t)1 << (c->st->choice_lt - 1);
        if (want > ktiles || want > AICF__CUC_TC_MAX_SPLITS)
            return ch->tcp ? "K split: more parts than channel chunks" : "K split: more parts than K tiles of 32";
        if (want > 1) {
            int64_t k2 = (ktiles + want - 1) / want;
            if ((ktiles + k2 - 1) / k2 != want) return "K split: a part would be empty";
        }
        splits = want;
    }
    if (splits > 1) {
        kt = (ktiles + splits - 1) / splits;
        splits = (ktiles + kt - 1) / kt; /* no empty split */
        if (!aicf__mul_size((size_t)splits, (size_t)M, &ws) || !aicf__mul_size(ws, (size_t)NP, &ws) ||
            !aicf__mul_size(ws, 4, &ws) || ws > AICF__CUC_AUTO_MAX_SCRATCH) {
            if (c->st->choice == AICF_CHOICE_IMPLICIT_GEMM_TC && c->st->choice_lt > 0)
                return "K split: partial sums over 1 GiB";
            splits = 1;
        }
    }
    if (splits <= 1) {
        splits = 1;
        kt = ktiles;
        ws = 0;
    }
    ch->tc = 1;
    ch->bm = bm;
    ch->M = M;
    ch->N = NP;
    ch->K = K;
    ch->batch = w->N;
    ch->splits = splits;
    ch->k_per_split = ch->tcp ? kt : kt * AICF__CUC_TC_BK;
    ch->scratch = ws;
    ch->sm_count = (int)sm;
    snprintf(ch->why, sizeof ch->why, "%s", aicf__cuo_conv_algo(c) == AICF_CONV_IMPLICIT_GEMM_TC ? "conv_algo IMPLICIT_GEMM_TC"
                                                                                                   : "AUTO: float16, group 1");
    return NULL;
}

/* The batched im2col lowering (float16 storage, N > 1 images, not pointwise): the column buffer
   [K][N][P] (aicf_im2col_knp_f16) is one [K, N*P] matrix, so the N images are one cuBLASLt GEMM
   D [M, N*P] = W [M, K] x col with a float32 D (CNHW order) after the column buffer in the
   scratch, and aicf_conv2d_tc_reduce_f16 (the split-K reduction with one split) writes Y in
   NCHW with the bias, a residual Add and a ReLU. Against the per-image batch it needs no
   alignment of P (a per-image D [M, P] with P*2 bytes not a multiple of 16 puts cuBLASLt on its
   unaligned kernels: resnet18's 14x14 and 7x7 layers at batch 32) and gives cuBLASLt one GEMM
   of N*P columns instead of N of P; it pays the product's round trip (M*N*P*4 bytes written and
   read back) and one launch. Applies (returns 1, ch->col_bytes and ch->scratch set) at float16
   with at least 2 images when N*P % 8 == 0 (16-byte rows of the buffer), both kernels are in the
   table, K and N*P < 2^31, N < 2^19 (the knp kernel's grid.z of 8 images a block) and the
   buffer and product fit AICF_MAX_TENSOR_BYTES; else returns 0 and leaves ch as it was.
   `bytes`: the column buffer's size (aicf__cuc_col_bytes). */
static int aicf__cuc_batched_fit(const aicf__cuo* c, aicf__cuc_choice* ch, size_t bytes) {
    size_t col = (bytes + 255u) & ~(size_t)255u, prod = 0, total = 0;
    if (c->es != 2 || ch->batch < 2 || ch->batch * ch->N % 8 || aicf__cuda_kernel_find("aicf_im2col_knp_f16") < 0 ||
        aicf__cuda_kernel_find("aicf_conv2d_tc_reduce_f16") < 0 || ch->K > 0x7fffffff || ch->batch * ch->N > 0x7fffffff ||
        (ch->batch + 7) / 8 > 65535)
        return 0;
    if (col < bytes || !aicf__mul_size((size_t)ch->M, (size_t)(ch->batch * ch->N), &prod) || !aicf__mul_size(prod, 4, &prod) ||
        (total = col + prod) < col || (uint64_t)total > AICF_MAX_TENSOR_BYTES)
        return 0;
    ch->col_bytes = col;
    ch->scratch = total;
    return 1;
}

/* The column buffer's size, N*K*P elements of the storage type, into *bytes: 0 when it can be
   made, 1 beyond the im2col kernels' 32-bit row and column indices or cuBLASLt's int32 batch
   count, 2 beyond AICF_MAX_TENSOR_BYTES. ch->batch > 0. */
static int aicf__cuc_col_bytes(const aicf__cuo* c, const aicf__cuc_choice* ch, size_t* bytes) {
    size_t el = 0;
    *bytes = 0;
    if (ch->batch > 0x7fffffff || ch->N > 0x7fffffff || ch->K > 0x7fffffff / ch->batch) return 1;
    if (!aicf__mul_size((size_t)ch->K, (size_t)ch->N, &el) || !aicf__mul_size(el, (size_t)ch->batch, &el) ||
        !aicf__mul_size(el, c->es, bytes) || (uint64_t)*bytes > AICF_MAX_TENSOR_BYTES)
        return 2;
    return 0;
}

/* AUTO's rule for the batched lowering at float16 (it is tried before the tensor-core kernels):
   several images, K = C*KH*KW >= AICF__CUC_BATCHED_MIN_K and at most AICF__CUC_BATCHED_WAVES
   output tiles of the tensor-core kernel per SM (BM = 64 or 128 channels by 64 columns of N*P).
   Measured on resnet18 (H100, fp16, per-step profiles, docs/benchmarks.md): where the tiles are
   few the tensor-core kernel under-fills the device or splits K, and the batched GEMM wins
   (batch 32: the 14x14 and 7x7 3x3 convs, 196 and 100 tiles, 62-73 -> 45-60 us, the strided
   ones 52-61 -> 29-38 us; batch 8: every 3x3 conv of layers 2-4, 98 tiles and fewer, 25-35 ->
   17-25 us); with many tiles the column buffer's round trip costs more than the kernel's own
   gather (392 tiles and more: layer1 at batch 8, 23 -> 39 us; layer2 at batch 32, 67 -> 100 us);
   below K = 512 (the 1x1 stride-2 downsamples, K = 64-256) the buffer's copy is most of the work
   (15-23 -> 28-35 us at batch 32). */
#ifndef AICF__CUC_BATCHED_WAVES
#  define AICF__CUC_BATCHED_WAVES 2
#endif
#ifndef AICF__CUC_BATCHED_MIN_K
#  define AICF__CUC_BATCHED_MIN_K 512
#endif
static int aicf__cuc_batched_auto(const aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t* tiles, int* sm_out) {
    int64_t K = w->C * w->KH * w->KW, NP = w->N * w->OH * w->OW, bm = M >= 128 ? 128 : 64;
    int sm = 132;
#if !defined(AICF_NO_CUDA)
    if (c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->sm_count > 0) sm = c->ctx->cuda->sm_count;
#endif
    *tiles = ((M + bm - 1) / bm) * ((NP + 63) / 64);
    *sm_out = sm;
    return c->es == 2 && w->N > 1 && K >= AICF__CUC_BATCHED_MIN_K && M > 0 && NP > 0 && *tiles <= (int64_t)AICF__CUC_BATCHED_WAVES * sm &&
           aicf__cuc_have_lt(c);
}

/* Decides between the GEMM lowering and the generated kernels for the window w (from
   aicf__cuo_window), M output channels and `group`. Depends only on the policy, the shapes, the
   storage type (c->es, set by aicf__cuo_floats) and whether cuBLASLt is loaded: the memory plan's
   pre-pass and the lowering get the same answer.

   AUTO's cost model, for a conv that needs im2col. The generated implicit-GEMM kernel computes
   64 x 64 output tiles with float32 FMAs on CUDA cores (an H100 has 67 TFLOP/s of those, against
   495 TF32 and 990 fp16 on tensor cores, and a 64x64x16 SIMT tile reaches a fraction of it).
   im2col + GEMM adds a round trip of the column buffer through memory: K*P*N elements written
   and read once, against 2*M*K*P*N flops of GEMM, so its cost per flop falls as 1/M (for
   M = 32 at fp16, 2 bytes per 32 flops: at 3 TB/s that traffic takes about as long as the
   same flops at the ~50 TFLOP/s the generated kernel cannot reach). K bounds the other side:
   the tensor-core kernels step K in slices of 32 to 64; a GEMM with K < 64 is dominated by its
   prologue and by storing Y, which the direct kernel does equally well in one pass with no
   buffer. Hence: GEMM when K >= 64 and M >= 32 (resnet-style 3x3 layers and 7x7 stems pass;
   MNIST-size convs, K = 25 or M = 16, stay direct), and while the buffer is at most 1 GiB. */
static void aicf__cuc_choose(const aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, aicf__cuc_choice* ch) {
    aicf_conv_algo algo = aicf__cuo_conv_algo(c);
    int pointwise = w->KH == 1 && w->KW == 1 && w->sh == 1 && w->sw == 1 && w->ph == 0 && w->pw == 0 && w->phe == 0 &&
                    w->pwe == 0 && w->OH == w->H && w->OW == w->W;
    const char* forced = algo == AICF_CONV_IM2COL_GEMM ? "conv_algo IM2COL_GEMM does not apply: " : "";
    size_t bytes = 0;
    int64_t tiles = 0;
    int sm = 0, lim;
    char b1[32];
    memset(ch, 0, sizeof *ch);
    ch->M = M;
    ch->N = w->OH * w->OW;
    ch->K = w->C * w->KH * w->KW;
    ch->batch = w->N;
    if (algo == AICF_CONV_DIRECT) {
        snprintf(ch->why, sizeof ch->why, "conv_algo DIRECT");
        return;
    }
    if (group != 1) {
        snprintf(ch->why, sizeof ch->why, "%sgrouped (group %lld): no GEMM lowering",
                 algo == AICF_CONV_IMPLICIT_GEMM_TC ? "conv_algo IMPLICIT_GEMM_TC does not apply: " : forced, (long long)group);
        return;
    }
    if (algo == AICF_CONV_AUTO && !pointwise && aicf__cuc_batched_auto(c, w, M, &tiles, &sm) && !aicf__cuc_col_bytes(c, ch, &bytes) &&
        bytes <= AICF__CUC_AUTO_MAX_SCRATCH && aicf__cuc_batched_fit(c, ch, bytes)) {
        ch->gemm = ch->im2col = ch->batched = 1;
        snprintf(ch->why, sizeof ch->why, "AUTO fp16: %lld tiles <= %d/SM (%d), K>=%d", (long long)tiles, AICF__CUC_BATCHED_WAVES, sm,
                 AICF__CUC_BATCHED_MIN_K);
        return;
    }
    if (algo == AICF_CONV_AUTO || algo == AICF_CONV_IMPLICIT_GEMM_TC) {
        const char* no = aicf__cuc_tc_fit(c, w, M, ch);
        if (!no) return;
        if (algo == AICF_CONV_IMPLICIT_GEMM_TC) {
            snprintf(ch->why, sizeof ch->why, "IMPLICIT_GEMM_TC: %s", no);
            return;
        }
    }
    if (!aicf__cuc_have_lt(c)) {
        snprintf(ch->why, sizeof ch->why, "%scuBLASLt not loaded", forced);
        return;
    }
    if (ch->M <= 0 || ch->N <= 0 || ch->K <= 0 || ch->batch <= 0) {
        snprintf(ch->why, sizeof ch->why, "%sempty GEMM (M=%lld N=%lld K=%lld)", forced, (long long)ch->M, (long long)ch->N,
                 (long long)ch->K);
        return;
    }
    lim = aicf__cuc_col_bytes(c, ch, &bytes);
    if (lim == 1) {
        snprintf(ch->why, sizeof ch->why, "%sN*K = %lld x %lld or P = %lld beyond 2^31", forced, (long long)ch->batch,
                 (long long)ch->K, (long long)ch->N);
        return;
    }
    if (pointwise) bytes = 0; /* no buffer: B is x as stored */
    else if (lim) {
        snprintf(ch->why, sizeof ch->why, "%sthe im2col buffer exceeds AICF_MAX_TENSOR_BYTES", forced);
        return;
    }
    ch->im2col = !pointwise;
    ch->scratch = bytes;
    /* float16 with several images: batched where it applies (setting the scratch), else one GEMM per image */
    if (ch->im2col && aicf__cuc_batched_fit(c, ch, bytes)) ch->batched = 1;
    if (algo == AICF_CONV_IM2COL_GEMM) {
        ch->gemm = 1;
        snprintf(ch->why, sizeof ch->why, "conv_algo IM2COL_GEMM");
        return;
    }
    if (pointwise) {
        ch->gemm = 1;
        snprintf(ch->why, sizeof ch->why, "AUTO: pointwise, x is the GEMM's B as stored");
        return;
    }
    if (ch->K < AICF__CUC_AUTO_MIN_K || ch->M < AICF__CUC_AUTO_MIN_M) {
        snprintf(ch->why, sizeof ch->why, "AUTO: K=%lld M=%lld, im2col pays from K>=%d and M>=%d", (long long)ch->K,
                 (long long)ch->M, AICF__CUC_AUTO_MIN_K, AICF__CUC_AUTO_MIN_M);
        ch->im2col = ch->batched = 0;
        ch->scratch = 0;
        return;
    }
    if (bytes > AICF__CUC_AUTO_MAX_SCRATCH) {
        snprintf(ch->why, sizeof ch->why, "AUTO: im2col buffer %s > 1 GiB", aicf__cuc_bytes((double)bytes, b1, sizeof b1));
        ch->im2col = ch->batched = 0;
        ch->scratch = 0;
        return;
    }
    ch->gemm = 1;
    snprintf(ch->why, sizeof ch->why, "AUTO K>=%d M>=%d", AICF__CUC_AUTO_MIN_K, AICF__CUC_AUTO_MIN_M);
    snprintf(ch->est, sizeof ch->est, "direct: %lld blocks x %.1fM FMA on CUDA cores",
             (long long)(((ch->M + 63) / 64) * ((ch->N * ch->batch + 63) / 64)), 64.0 * 64.0 * (double)ch->K / 1e6);
}

/* The Conv's bias B[M] added in place to Y [N, M, P] after the GEMM: one broadcast add. Kept
   apart so that the fused elementwise epilogue can replace it. */
static aicf_result aicf__cuc_bias(aicf__cuo* c, int Y, int Bi, int64_t N, int64_t M, int64_t P) {
    aicf__shape ys3, bs3;
    memset(&ys3, 0, sizeof ys3);
    memset(&bs3, 0, sizeof bs3);
    ys3.rank = bs3.rank = 3;
    ys3.d[0] = N;
    ys3.d[1] = M;
    ys3.d[2] = P;
    bs3.d[0] = 1;
    bs3.d[1] = M;
    bs3.d[2] = 1;
    return aicf__cuo_binary(c, "add", Y, &ys3, Bi, &bs3, Y, &ys3);
}

/* The im2col launch: x (tensor X) into the step's scratch, layout of templates/im2col.cu.j2:
   [N][K][P] (aicf_im2col_<dtype>), or [K][N][P] when `batched` (aicf_im2col_knp_f16, whose
   blocks walk the K rows and loop over the images). */
static aicf_result aicf__cuc_im2col(aicf__cuo* c, const aicf__cuo_win* w, int X, int batched) {
    aicf__k_im2col a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    int64_t P = w->OH * w->OW, NK = (batched ? 1 : w->N) * w->C * w->KH * w->KW, rows, tp = 1;
    int tp_log2 = 0;
    char name[64];
    aicf_result r;
    while (tp < P && tp < (int64_t)AICF__CUO_BLOCK) {
        tp <<= 1;
        tp_log2++;
    }
    rows = (int64_t)AICF__CUO_BLOCK / tp;
    memset(&a, 0, sizeof a);
    a.N = w->N;
    a.C = w->C;
    a.H = w->H;
    a.W = w->W;
    a.OH = w->OH;
    a.OW = w->OW;
    a.KH = w->KH;
    a.KW = w->KW;
    a.pad_h = w->ph;
    a.pad_w = w->pw;
    a.stride_h = w->sh;
    a.stride_w = w->sw;
    a.dil_h = w->dh;
    a.dil_w = w->dw;
    a.tp_log2 = tp_log2;
    grid[0] = (unsigned)((P + tp - 1) / tp);
    grid[1] = (unsigned)AICF__MIN((NK + rows - 1) / rows, (int64_t)65535);
    grid[2] = batched ? (unsigned)((w->N + 7) / 8) : 1; /* the knp kernel's AICF_KNP_BATCH images a block */
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    snprintf(name, sizeof name, batched ? "aicf_im2col_knp_%s" : "aicf_im2col_%s", aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_im2col, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_im2col, col), AICF__CUO_SCRATCH, 0);
    return AICF_SUCCESS;
}

/* The patch kernels' argument struct (aicf__k_conv2d_tcp): the shapes and pointers a, then ch's
   output tile, tiles per image and input patch. */
static void aicf__cuc_tcp_args(const aicf__k_conv2d_tc* a, const aicf__cuc_choice* ch, aicf__k_conv2d_tcp* q) {
    memset(q, 0, sizeof *q);
    q->b = *a;
    q->TH = ch->th;
    q->TW = ch->tw;
    q->tiles_h = ch->tiles_h;
    q->tiles_w = ch->tiles_w;
    q->PH = ch->ph;
    q->PW = ch->pw;
}

/* The leading epilogue ops of the step that the conv kernels and the reduction apply themselves:
   one Add of a float16 tensor shaped like Y (*res, else -1), then a Relu (*relu). Returns how
   many (aicf__step.epi_native). */
static int aicf__cuc_take_epi(const aicf__cuo* c, int Y, int* res, int* relu) {
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int k = 0;
    *res = -1;
    *relu = 0;
    while (k < c->st->n_epi && !*relu) {
        const aicf__epi* e = &c->st->epi[k];
        if (e->op == AICF__OP_Add && e->operand >= 0 && *res < 0 && aicf__same_shape(aicf__cuo_shape(c, e->operand), ys) &&
            c->p->loc[e->operand].sdtype == AICF_DTYPE_FLOAT16) {
            *res = e->operand;
            k++;
            continue;
        }
        if (e->op == AICF__OP_Relu) {
            *relu = 1;
            k++;
            continue;
        }
        break;
    }
    return k;
}

/* The reduction launch (aicf_conv2d_tc_reduce_f16[_v4]) with the conv's arguments a: Y from the
   a->splits float32 products [splits][M][N*P] at the scratch + ws_add, the bias Bi, the residual
   res (-1: none) and a->relu. 4 columns a thread when they are 4 pixels of one image, y (and the
   residual) allow 8-byte access (the scratch is 256-byte aligned) and there are at most
   AICF__CUC_TC_REDUCE4_SPLITS splits (H100, resnet18: 15.2 -> 7.0 us at 2 splits and batch 32,
   4.3 -> 3.9 us at 4; slower at 16 and 32 splits, 3.9 -> 4.4-5.1 us, where a quarter of the
   threads each load 16-32 partial sums in turn). */
static aicf_result aicf__cuc_reduce(aicf__cuo* c, const aicf__k_conv2d_tc* a, int Bi, int res, int Y, uint64_t ws_add) {
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    aicf_result r;
    int v4 = (a->OH * a->OW) % 4 == 0 && a->splits <= AICF__CUC_TC_REDUCE4_SPLITS && aicf__cuo_align(c, Y, 0) >= 8 &&
             (res < 0 || aicf__cuo_align(c, res, 0) >= 8) && aicf__cuda_kernel_find("aicf_conv2d_tc_reduce_f16_v4") >= 0;
    aicf__cuo_dims1(a->M * a->N * a->OH * a->OW / (v4 ? 4 : 1), grid, block);
    if ((r = aicf__cuo_kernel(c, v4 ? "aicf_conv2d_tc_reduce_f16_v4" : "aicf_conv2d_tc_reduce_f16", a, sizeof *a, grid, block, 0, &op)) !=
        AICF_SUCCESS)
        return r;
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, bias), Bi, 0);
    if (res >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, res), res, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, y), Y, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, ws), AICF__CUO_SCRATCH, ws_add);
    return AICF_SUCCESS;
}

/* The conv kernels' argument struct (aicf__k_conv2d_tc) for window w, ch's GEMM and split. */
static void aicf__cuc_tc_args(const aicf__cuo_win* w, const aicf__cuc_choice* ch, int relu, aicf__k_conv2d_tc* a) {
    memset(a, 0, sizeof *a);
    a->N = w->N;
    a->C = w->C;
    a->H = w->H;
    a->W = w->W;
    a->M = ch->M;
    a->OH = w->OH;
    a->OW = w->OW;
    a->KH = w->KH;
    a->KW = w->KW;
    a->pad_h = w->ph;
    a->pad_w = w->pw;
    a->stride_h = w->sh;
    a->stride_w = w->sw;
    a->dil_h = w->dh;
    a->dil_w = w->dw;
    a->relu = relu;
    a->splits = ch->splits > 1 ? ch->splits : 1;
    a->k_per_split = ch->k_per_split;
}

/* The tensor-core implicit GEMM (ch from aicf__cuc_tc_fit): absorbs the leading epilogue ops it
   can (one Add of a float16 tensor shaped like Y, then a Relu; aicf__step.epi_native), then one
   launch, plus the split-K reduction when ch->splits > 1. */
static aicf_result aicf__cuc_lower_tc(aicf__cuo* c, const aicf__cuo_win* w, const aicf__cuc_choice* ch) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), res = -1, relu = 0,
        k = aicf__cuc_take_epi(c, Y, &res, &relu);
    aicf__k_conv2d_tc a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    char b1[32], split[96], kname[48];
    aicf_result r;
    if (ch->splits > 1 && c->st->scratch_bytes < ch->scratch)
        return aicf__cuo_fail(c, AICF_ERROR_STATE,
                              "the memory plan reserved %llu bytes of scratch; split-K needs %llu (the planner did not ask "
                              "aicf__cuda_step_scratch)",
                              (unsigned long long)c->st->scratch_bytes, (unsigned long long)ch->scratch);
    aicf__cuc_tc_args(w, ch, relu, &a);
    a.vec_w = ch->K % 8 == 0 && aicf__cuo_align(c, Wt, 0) >= 16;
    a.vec_y = (w->OH * w->OW) % 2 == 0 && aicf__cuo_align(c, Y, 0) >= 4 && (res < 0 || aicf__cuo_align(c, res, 0) >= 4);
    if ((ch->tcp || ch->tcs) && w->OW % 2) a.vec_y = 0; /* the patch kernels pair pixels of one output row */
    grid[1] = (unsigned)((ch->M + ch->bm - 1) / ch->bm);
    grid[2] = (unsigned)ch->splits;
    block[0] = (unsigned)(2 * ch->bm);
    block[1] = block[2] = 1;
    if (ch->tcs) {
        aicf__k_conv2d_tcp q;
        aicf__cuc_tcp_args(&a, ch, &q);
        q.b.vec_w = 0;
        grid[0] = (unsigned)ch->tcs_grid;
        block[0] = 256;
        if ((r = aicf__cuo_kernel(c, "aicf_conv2d_tcs_f16_m64", &q, sizeof q, grid, block, aicf__cuc_tcs_smem(w->C, ch->K, ch->ph, ch->pw),
                                  &op)) != AICF_SUCCESS)
            return r;
    } else if (ch->tcp) {
        aicf__k_conv2d_tcp q;
        if (aicf__cuo_align(c, Wt, 0) < 16)
            return aicf__cuo_fail(c, AICF_ERROR_STATE, "the patch kernel's weights are not 16-byte aligned (the fit checked it)");
        aicf__cuc_tcp_args(&a, ch, &q);
        grid[0] = (unsigned)(w->N * ch->tiles_h * ch->tiles_w);
        if (ch->tcr) {
            block[0] = 256;
            snprintf(kname, sizeof kname, "aicf_conv2d_tcr_f16_m%d_v%d", (int)ch->bm, (int)ch->vb);
        } else
            snprintf(kname, sizeof kname, "aicf_conv2d_tcp_f16_m%d_k%dc%d", (int)ch->bm, (int)ch->khw, (int)ch->cg);
        if ((r = aicf__cuo_kernel(c, kname, &q, sizeof q, grid, block,
                                  ch->tcr ? (unsigned)aicf__cuc_tcr_smem(ch->bm, w->W, ch->ph) : aicf__cuc_tcp_smem(ch), &op)) != AICF_SUCCESS)
            return r;
        c->p->loc[Wt].chunk = (int)ch->cg; /* the weights stored chunk-ordered (aicf__weights_chunked at upload) */
    } else {
        grid[0] = (unsigned)((ch->N + AICF__CUC_TC_BN - 1) / AICF__CUC_TC_BN);
        snprintf(kname, sizeof kname, "aicf_conv2d_tc_f16_m%d%s", (int)ch->bm, a.vec_w ? "_vw" : "");
        if ((r = aicf__cuo_kernel(c, kname, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    }
    /* aicf__k_conv2d_tcp begins with aicf__k_conv2d_tc: the same field offsets */
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, bias), Bi, 0);
    if (res >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, res), res, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, y), Y, 0);
    split[0] = 0;
    if (ch->splits > 1) {
        aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, ws), AICF__CUO_SCRATCH, 0);
        if ((r = aicf__cuc_reduce(c, &a, Bi, res, Y, 0)) != AICF_SUCCESS) return r;
        if (ch->tcp)
            snprintf(split, sizeof split, "; split-K %lldx%lldx%lldch (%d SMs, %s)", (long long)ch->splits, (long long)ch->k_per_split,
                     (long long)ch->cg, ch->sm_count, aicf__cuc_bytes((double)ch->scratch, b1, sizeof b1));
        else
            snprintf(split, sizeof split, "; split-K %lldx%lld (%d SMs, %s)", (long long)ch->splits, (long long)ch->k_per_split,
                     ch->sm_count, aicf__cuc_bytes((double)ch->scratch, b1, sizeof b1));
    }
    c->st->epi_native = k;
    if (ch->tcs)
        aicf__cuo_reason(c, "small-K tensor-core conv 64x(%lldx%lld px), weights resident, %lldx%lld patch in smem, "
                         "%lld blocks/%lld tiles M=%lld N=%lld K=%lld (%s); epilogue %s%s%s%s",
                         (long long)ch->th, (long long)ch->tw, (long long)ch->ph, (long long)ch->pw, (long long)ch->tcs_grid,
                         (long long)(w->N * ch->tiles_h * ch->tiles_w), (long long)ch->M, (long long)ch->N, (long long)ch->K, ch->why,
                         Bi >= 0 ? "bias" : "-", res >= 0 ? "+res" : "", relu ? "+relu" : "", a.vec_y ? "" : "; 2-byte stores");
    else if (ch->tcr)
        aicf__cuo_reason(c, "tensor-core implicit GEMM %dx(%lldx%lld px) %dB rows, %lldx%lld patch in smem M=%lld N=%lld "
                         "K=%lld (%s)%s; epilogue %s%s%s%s",
                         (int)ch->bm, (long long)ch->th, (long long)ch->tw, (int)ch->vb, (long long)ch->ph, (long long)ch->pw, (long long)ch->M,
                         (long long)ch->N, (long long)ch->K, ch->why, split, Bi >= 0 ? "bias" : "-", res >= 0 ? "+res" : "", relu ? "+relu" : "",
                         a.vec_y ? "" : "; 2-byte stores");
    else if (ch->tcp)
        aicf__cuo_reason(c, "tensor-core implicit GEMM %dx(%lldx%lld px) %lldx%lld patch in smem M=%lld N=%lld K=%lld (%s)%s; "
                         "epilogue %s%s%s%s",
                         (int)ch->bm, (long long)ch->th, (long long)ch->tw, (long long)ch->ph, (long long)ch->pw, (long long)ch->M, (long long)ch->N, (long long)ch->K, ch->why, split,
                         Bi >= 0 ? "bias" : "-", res >= 0 ? "+res" : "", relu ? "+relu" : "", a.vec_y ? "" : "; 2-byte stores");
    else
        aicf__cuo_reason(c, "tensor-core implicit GEMM %dx64x32 M=%lld N=%lld K=%lld (%s)%s; epilogue %s%s%s%s",
                         (int)ch->bm, (long long)ch->M, (long long)ch->N, (long long)ch->K, ch->why, split, Bi >= 0 ? "bias" : "-",
                         res >= 0 ? "+res" : "", relu ? "+relu" : "", a.vec_y ? "" : "; 2-byte stores");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuc_lower_gemm(aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, char* why,
                                        size_t cap, int* done) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), slot = -1;
    aicf__cuc_choice ch;
    aicf__matmul_desc md;
    char lt_why[192], b1[32], alg[40];
    const char* arith;
    int h0 = 0, hn = 0;
    aicf_result r;
    *done = 0;
    aicf__cuc_choose(c, w, M, group, &ch);
    if (ch.tc) {
        if ((r = aicf__cuc_lower_tc(c, w, &ch)) != AICF_SUCCESS) return r;
        *done = 1;
        return AICF_SUCCESS;
    }
    if (!ch.gemm) {
        snprintf(why, cap, "%s", ch.why);
        return AICF_SUCCESS;
    }
    if (ch.im2col && c->st->scratch_bytes < ch.scratch)
        return aicf__cuo_fail(c, AICF_ERROR_STATE,
                              "the memory plan reserved %llu bytes of scratch; the im2col buffer needs %llu (the planner "
                              "did not ask aicf__cuda_step_scratch)",
                              (unsigned long long)c->st->scratch_bytes, (unsigned long long)ch.scratch);
    aicf__cuo_mm_desc(c, &md);
    md.tf32 = !c->f16 && c->p->policy.precision == AICF_PRECISION_TF32;
    md.M = ch.M;
    md.N = ch.N;
    md.K = ch.K;
    md.lda = ch.K;
    md.ldb = ch.N;
    md.ldc = ch.N;
    md.batch = ch.batch;
    md.stride_a = 0;
    md.stride_b = ch.K * ch.N;
    md.stride_c = ch.M * ch.N;
    if (ch.batched) { /* one GEMM over the N images' columns, float32 product after the column buffer */
        md.N = ch.batch * ch.N;
        md.ldb = md.ldc = md.N;
        md.batch = 1;
        md.stride_b = md.stride_c = 0;
        md.out_f32 = 1;
    }
    aicf__cuo_mm_align(c, &md, Wt, ch.im2col ? -1 : X, -1, ch.batched ? -1 : Y);
    if (ch.im2col) md.b = 256; /* the scratch offset is a multiple of the arena's 256-byte alignment */
    if (ch.batched) md.d = 256; /* col_bytes is a multiple of 256 */
    if ((r = aicf__cuo_mm_plan(c, &md, &slot, lt_why, sizeof lt_why)) != AICF_SUCCESS) return r;
    if (slot < 0) {
        /* AUTO chose the batched lowering before the tensor-core kernels: fall back to those when
           they fit the scratch the memory plan reserved for the batched one (made before cuBLASLt
           was asked), else to the generated kernels below, as every GEMM lowering does */
        if (ch.batched && aicf__cuo_conv_algo(c) == AICF_CONV_AUTO) {
            aicf__cuc_choice t;
            memset(&t, 0, sizeof t);
            t.M = ch.M;
            t.N = ch.N;
            t.K = ch.K;
            t.batch = ch.batch;
            if (!aicf__cuc_tc_fit(c, w, M, &t) && (t.splits <= 1 || t.scratch <= c->st->scratch_bytes)) {
                snprintf(t.why, sizeof t.why, "AUTO: no cuBLASLt algorithm for the batched GEMM");
                if ((r = aicf__cuc_lower_tc(c, w, &t)) != AICF_SUCCESS) return r;
                *done = 1;
                return AICF_SUCCESS;
            }
        }
        snprintf(why, cap, "%.40s; %scuBLASLt: %.90s", ch.why, ch.im2col ? "scratch unused, " : "", lt_why);
        return AICF_SUCCESS;
    }
    if (ch.im2col && (r = aicf__cuc_im2col(c, w, X, ch.batched)) != AICF_SUCCESS) return r;
    if (sscanf(lt_why, "cuBLASLt heuristic #%d of %d", &h0, &hn) == 2) snprintf(alg, sizeof alg, "alg #%d/%d", h0, hn);
    else snprintf(alg, sizeof alg, "%.30s", lt_why);
    if (ch.batched) {
        int res = -1, relu = 0, k = aicf__cuc_take_epi(c, Y, &res, &relu);
        aicf__k_conv2d_tc a;
        if ((r = aicf__cuo_mm_push(c, &md, slot, Wt, 0, AICF__CUO_SCRATCH, 0, -1, 0, AICF__CUO_SCRATCH, ch.col_bytes, -1)) != AICF_SUCCESS)
            return r;
        aicf__cuc_tc_args(w, &ch, relu, &a);
        if ((r = aicf__cuc_reduce(c, &a, Bi, res, Y, ch.col_bytes)) != AICF_SUCCESS) return r;
        c->st->epi_native = k;
        snprintf(c->kernel, sizeof c->kernel, "im2col+cublasLt:matmul");
        aicf__cuo_reason(c, "batched im2col+cuBLASLt M=%lld N=%lldx%lld K=%lld (fp16 TC, f32 product); %.48s; "
                         "col+product %s @arena+%llu; %s; epilogue %s%s%s",
                         (long long)ch.M, (long long)ch.batch, (long long)ch.N, (long long)ch.K, ch.why,
                         aicf__cuc_bytes((double)ch.scratch, b1, sizeof b1), (unsigned long long)c->st->scratch_offset, alg,
                         Bi >= 0 ? "bias" : "-", res >= 0 ? "+res" : "", relu ? "+relu" : "");
        *done = 1;
        return AICF_SUCCESS;
    }
    if ((r = aicf__cuo_mm_push(c, &md, slot, Wt, 0, ch.im2col ? AICF__CUO_SCRATCH : X, 0, -1, 0, Y, 0, -1)) != AICF_SUCCESS)
        return r;
    if (Bi >= 0 && (r = aicf__cuc_bias(c, Y, Bi, ch.batch, ch.M, ch.N)) != AICF_SUCCESS) return r;
    /* the reason fits aicf__step.reason (192) with select_step's " [N launches]"; the most
       telling part first (a fused epilogue keeps only the first 110 characters) */
    arith = c->f16 ? "fp16 tensor cores" : (md.tf32 ? "TF32 tensor cores" : "fp32 SIMT");
    if (ch.im2col) {
        snprintf(c->kernel, sizeof c->kernel, "im2col+cublasLt:matmul");
        aicf__cuo_reason(c, "im2col+cuBLASLt M=%lld N=%lld K=%lld batch=%lld (%s); %.40s%s; col %s @arena+%llu; %s%s%s",
                         (long long)ch.M, (long long)ch.N, (long long)ch.K, (long long)ch.batch, arith, ch.why,
                         Bi >= 0 ? "; +bias kernel" : "", aicf__cuc_bytes((double)ch.scratch, b1, sizeof b1),
                         (unsigned long long)c->st->scratch_offset, alg, ch.est[0] ? "; " : "", ch.est);
    } else {
        aicf__cuo_reason(c, "1x1 conv as GEMM, no im2col: M=%lld N=%lld K=%lld batch=%lld (%s); %.50s%s; %s",
                         (long long)ch.M, (long long)ch.N, (long long)ch.K, (long long)ch.batch, arith, ch.why,
                         Bi >= 0 ? "; +bias kernel" : "", alg);
    }
    *done = 1;
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_step_scratch(aicf_plan* p, int si, size_t* bytes) {
    aicf__cuo c;
    aicf__cuo_win w;
    aicf__cuc_choice ch;
    const aicf__shape* ws;
    char saved[AICF__ERR_CAP];
    int X, Wt, Y;
    int64_t group;
    aicf__step* st;
    if (!bytes) return AICF_ERROR_INVALID_ARGUMENT;
    *bytes = 0;
    if (!p || !p->ctx || !p->g || !p->loc || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    if (st->kind != AICF__STEP_NODE || st->node < 0 || st->node >= p->g->n_nodes) return AICF_SUCCESS;
    if (p->g->nodes[st->node].op != AICF__OP_Conv) return AICF_SUCCESS;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.ctx = p->ctx;
    c.g = p->g;
    c.si = si;
    c.st = st;
    c.nd = &p->g->nodes[st->node];
    c.es = 4;
    X = aicf__cuo_in(&c, 0);
    Wt = aicf__cuo_in(&c, 1);
    Y = aicf__cuo_out(&c, 0);
    if (X < 0 || Wt < 0 || Y < 0 || aicf__cuo_numel(&c, Y) <= 0) return AICF_SUCCESS;
    ws = aicf__cuo_shape(&c, Wt);
    if (ws->rank < 3) return AICF_SUCCESS;
    group = aicf__attr_i(c.nd, "group", 1);
    /* the same checks as aicf__cuo_lower_conv; a step that fails them gets no scratch and its
       lowering reports the error, so a message written here is not kept */
    memcpy(saved, AICF__ERRBUF(p->ctx), sizeof saved);
    if (aicf__cuo_floats(&c, 3) != AICF_SUCCESS || aicf__cuo_shape(&c, X)->rank == 5 ||
        aicf__cuo_window(&c, aicf__cuo_shape(&c, X), aicf__cuo_shape(&c, Y), ws->d + 2, &w) != AICF_SUCCESS ||
        group < 1 || w.C % group || ws->d[0] % group) {
        memcpy(AICF__ERRBUF(p->ctx), saved, sizeof saved);
        return AICF_SUCCESS;
    }
    aicf__cuc_choose(&c, &w, ws->d[0], group, &ch);
    if ((ch.gemm && ch.im2col) || (ch.tc && ch.splits > 1)) *bytes = ch.scratch;
    return AICF_SUCCESS;
}

/* aicf__cuda_lt_likely (declared in 30_internal.h): will node `i` of g most likely be a cuBLASLt
   GEMM under the policy? The guess starts cuBLASLt's one-time setup on a helper thread early
   (aicf__cuda_lt_hint, 80_cuda.c), so it mirrors the rules from the node alone: a Conv that
   aicf__cuc_choose lowers to a GEMM at float32 storage (group 1; pointwise, or K = C*KH*KW >=
   AICF__CUC_AUTO_MIN_K and M >= AICF__CUC_AUTO_MIN_M), at float16 one that the batched rule may
   take (several images, not 1x1, K >= AICF__CUC_BATCHED_MIN_K; the others run on the generated
   tensor-core kernels), every MatMul, and every Gemm but the GEMV's (transB = 1,
   at most AICF__CUO_GEMV_MAX_M rows, matmul_algo AUTO), unless the policy names the generated
   kernels. Before shape inference (the plan's first look) a Conv whose weight shape is not
   known yet (made by a node: ConstantOfShape) counts as a GEMM, and a transB Gemm of unknown
   rows does not; shape inference asks again with the shapes. Pins, fusion (an attention
   chain's MatMuls become one kernel) and the tensor-core GEMM's cases are not looked at: a
   wrong guess costs time only. */
int aicf__cuda_lt_likely(const aicf_graph* g, const aicf_policy* pol, int i) {
    const aicf__node* n;
    const aicf__tensor* y;
    int64_t rows = 1;
    int k;
    if (!g || !pol || i < 0 || i >= g->n_nodes) return 0;
    n = &g->nodes[i];
    if (n->removed || n->n_out < 1 || n->out[0] < 0) return 0;
    if (n->op == AICF__OP_Conv) {
        const aicf__tensor* w;
        int64_t kk = 1;
        if (pol->conv_algo == AICF_CONV_DIRECT || pol->conv_algo == AICF_CONV_IMPLICIT_GEMM_TC) return 0;
        if (n->n_in < 2 || n->in[1] < 0 || aicf__attr_i(n, "group", 1) != 1) return 0;
        w = &g->tensors[n->in[1]];
        if (pol->precision == AICF_PRECISION_FP16) { /* the batched rule's shape tests, without the tile count */
            const aicf__tensor* x = n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
            if (!w->shape_known || w->shape.rank < 3 || !x || !x->shape_known || x->shape.rank < 3 || x->shape.d[0] < 2) return 0;
            for (k = 1; k < w->shape.rank; k++) kk *= w->shape.d[k];
            return kk != w->shape.d[1] && kk >= AICF__CUC_BATCHED_MIN_K;
        }
        if (!w->shape_known) return 1;
        if (w->shape.rank < 3) return 0;
        for (k = 1; k < w->shape.rank; k++) kk *= w->shape.d[k];
        if (kk == w->shape.d[1]) return 1; /* 1x1: a pointwise one is a GEMM at any size */
        return kk >= AICF__CUC_AUTO_MIN_K && w->shape.d[0] >= AICF__CUC_AUTO_MIN_M;
    }
    if ((n->op != AICF__OP_Gemm && n->op != AICF__OP_MatMul) || pol->matmul_algo == AICF_MATMUL_GENERATED) return 0;
    /* the GEMV takes a Gemm with transB = 1 (and transA = 0) of at most AICF__CUO_GEMV_MAX_M rows
       under AUTO; every other Gemm and every MatMul asks cuBLASLt */
    if (n->op == AICF__OP_MatMul || pol->matmul_algo == AICF_MATMUL_CUBLASLT || aicf__attr_i(n, "transB", 0) == 0 ||
        aicf__attr_i(n, "transA", 0) != 0)
        return 1;
    y = &g->tensors[n->out[0]];
    if (!y->shape_known || y->shape.rank < 1) return 0;
    for (k = 0; k + 1 < y->shape.rank; k++) rows *= y->shape.d[k];
    return rows > AICF__CUO_GEMV_MAX_M;
}
