/* >>cuda_ops ================================================================================= */
/* The op lowering of the CUDA backend: what every plan step becomes on the GPU.

   aicf__cuda_select_step (plan time) decides everything: which generated kernel variant (or
   cuBLASLt algorithm, or device-to-device copy) runs, its launch dimensions, and its argument
   struct with every field filled except the device addresses, which are recorded as "patches"
   (tensor index + byte offset). The result is one flat block in step->backend (no nested
   allocations: cuBLASLt algorithm records are copied into it, see aicf__cuo_prog).
   aicf__cuda_emit_step (exec creation) only resolves the addresses and hands each launch to
   the emit functions of 80_cuda.c. Nothing is decided at run time.

   Kernel ABI: each generated kernel takes one struct by value. The aicf__k_* structs below
   mirror the structs of templates/{unary,binary,conv,gemm,pool,softmax,layout,index,reduce,norm,
   resize}.cu.j2 field for field (uint64_t device addresses, int64_t sizes and strides, float scalars; 8-byte aligned,
   no implicit padding). Kernel names are those of codegen/variants.py.

   Assumption recorded here: the arena and weight buffers start on 256-byte boundaries
   (cuMemAlloc gives at least that), so the alignment of a tensor's address is the alignment of
   its plan offset; the 4-wide variants are chosen from it. */

#define AICF__CUO_MAX_OPS 64     /* launches (kernels, copies, GEMMs) of one step */
#define AICF__CUO_MAX_PATCH 40   /* device addresses in one launch (a persistent GEMV chain: 6 x (A, B, D, 3 operands) + the barrier) */
#define AICF__CUO_ARGS_WORDS 278 /* 2224 bytes: largest argument struct (aicf__k_gemvp) */
#define AICF__CUO_MAX_ALGO 2     /* cuBLASLt algorithm records of one step */
#define AICF__CUO_MAX_GRID ((int64_t)1 << 20) /* blocks of a grid-stride launch */
#define AICF__CUO_BLOCK 256u     /* threads per block of every op kernel (variants.py) */

/* ---- kernel argument structs (mirrors of the templates) ---- */
typedef struct aicf__k_unary {
    uint64_t x, y;
    int64_t n;
    float alpha, beta;
} aicf__k_unary;

typedef struct aicf__k_cast {
    uint64_t x, y;
    int64_t n;
} aicf__k_cast;

typedef struct aicf__k_binflat {
    uint64_t a, b, y;
    int64_t n, sa, sb;
} aicf__k_binflat;

typedef struct aicf__k_binbc {
    uint64_t a, b, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sa[AICF_MAX_RANK], sb[AICF_MAX_RANK];
} aicf__k_binbc;

typedef struct aicf__k_conv2d {
    uint64_t x, w, bias, y;
    int64_t N, C, H, W, M, OH, OW, KH, KW, group;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t relu;
} aicf__k_conv2d;

typedef struct aicf__k_batchnorm {
    uint64_t x, scale, bias, mean, var, y;
    int64_t N, C, HW, per_act;
    float epsilon, pad_;
} aicf__k_batchnorm;

typedef struct aicf__k_gemm {
    uint64_t a, b, c, d;
    int64_t M, N, K, lda, ldb, ldd, trans_a, trans_b, batch;
    int64_t stride_a, stride_b, stride_c, stride_d, c_rs, c_cs, relu;
    float alpha, beta;
} aicf__k_gemm;

typedef struct aicf__k_pool2d {
    uint64_t x, y;
    int64_t NC, H, W, OH, OW, KH, KW, pad_h, pad_w, pad_h_end, pad_w_end;
    int64_t stride_h, stride_w, dil_h, dil_w, count_include_pad;
} aicf__k_pool2d;

typedef struct aicf__k_rowmean {
    uint64_t x, y;
    int64_t rows, n;
} aicf__k_rowmean;

typedef struct aicf__k_lrn {
    uint64_t x, y;
    int64_t N, C, HW, size;
    float alpha, beta, bias, pad_;
} aicf__k_lrn;

typedef struct aicf__k_softmax {
    uint64_t x, y;
    int64_t outer, n, inner;
} aicf__k_softmax;

/* templates/attention.cu.j2 aicf_attention_args */
typedef struct aicf__k_attention {
    uint64_t q, k, v, mask, o;
    int64_t B, H, grp, Sq, Skv, D, Dv;
    int64_t qb, qh, qs, kb, kh, ks, vb, vh, vs, ob, oh, os; /* element strides (batch, head, sequence) */
    int64_t mb, mh, mi, mj, mlen;                         /* mask broadcast strides, its last axis' length */
    float scale;
    int32_t causal;
} aicf__k_attention;
typedef char aicf__k_check_attention[sizeof(aicf__k_attention) == 240 ? 1 : -1];

typedef struct aicf__k_permute {
    uint64_t x, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sx[AICF_MAX_RANK];
} aicf__k_permute;

typedef struct aicf__k_transpose2d {
    uint64_t x, y;
    int64_t batch, rows, cols;
} aicf__k_transpose2d;

typedef struct aicf__k_copy2d {
    uint64_t x, y;
    int64_t rows, cols, ldx, ldy;
} aicf__k_copy2d;

typedef struct aicf__k_gather {
    uint64_t x, idx, y;
    int64_t outer, A, inner, ni;
} aicf__k_gather;

typedef struct aicf__k_where {
    uint64_t c, a, b, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sc[AICF_MAX_RANK], sa[AICF_MAX_RANK], sb[AICF_MAX_RANK];
} aicf__k_where;

typedef struct aicf__k_pad {
    uint64_t x, y;
    int64_t n, rank, mode;
    float value, pad_;
    int64_t shape[AICF_MAX_RANK], cn[AICF_MAX_RANK], pb[AICF_MAX_RANK], sx[AICF_MAX_RANK];
} aicf__k_pad;

typedef struct aicf__k_reduce {
    uint64_t x, y;
    int64_t nout, nred, ko, kr, op; /* op: 1 Sum, 2 Mean, 3 Max, 4 Min, 5 Prod, 6 L1, 7 L2, 8 SumSquare, 9 LogSum, 10 LogSumExp */
    int64_t oshape[AICF_MAX_RANK], ostr[AICF_MAX_RANK], rshape[AICF_MAX_RANK], rstr[AICF_MAX_RANK];
} aicf__k_reduce;

typedef struct aicf__k_norm {
    uint64_t x, scale, bias, y, mean, inv;
    int64_t rows, cols, G, div, s_row, s_col, b_row, b_col, rms;
    float epsilon;
    int32_t flags; /* rowreg f16, bit 0: y stored as float32, each value rounded through float16
                      (the boundary Cast folded in: aicf__cuo_fold_ew_cast) */
} aicf__k_norm;

typedef struct aicf__k_resize {
    uint64_t x, y;
    int64_t outer, H, W, OH, OW, mode, ctm, nearest, exclude_outside, ident_h, ident_w;
    double scale_h, scale_w, roi_h0, roi_h1, roi_w0, roi_w1;
    float extrapolation, pad_;
} aicf__k_resize;

/* Sizes the templates assert too (static_assert in each .cu.j2): a layout change on one side
   only fails to compile. */
typedef char aicf__k_check_unary[sizeof(aicf__k_unary) == 32 ? 1 : -1];
typedef char aicf__k_check_cast[sizeof(aicf__k_cast) == 24 ? 1 : -1];
typedef char aicf__k_check_binflat[sizeof(aicf__k_binflat) == 48 ? 1 : -1];
typedef char aicf__k_check_binbc[sizeof(aicf__k_binbc) == 232 ? 1 : -1];
typedef char aicf__k_check_conv[sizeof(aicf__k_conv2d) == 168 ? 1 : -1];
typedef char aicf__k_check_bn[sizeof(aicf__k_batchnorm) == 88 ? 1 : -1];
typedef char aicf__k_check_gemm[sizeof(aicf__k_gemm) == 168 ? 1 : -1];
typedef char aicf__k_check_pool[sizeof(aicf__k_pool2d) == 144 ? 1 : -1];
typedef char aicf__k_check_rowmean[sizeof(aicf__k_rowmean) == 32 ? 1 : -1];
typedef char aicf__k_check_lrn[sizeof(aicf__k_lrn) == 64 ? 1 : -1];
typedef char aicf__k_check_softmax[sizeof(aicf__k_softmax) == 40 ? 1 : -1];
typedef char aicf__k_check_perm[sizeof(aicf__k_permute) == 160 ? 1 : -1];
typedef char aicf__k_check_tr2d[sizeof(aicf__k_transpose2d) == 40 ? 1 : -1];
typedef char aicf__k_check_copy2d[sizeof(aicf__k_copy2d) == 48 ? 1 : -1];
typedef char aicf__k_check_gather[sizeof(aicf__k_gather) == 56 ? 1 : -1];
typedef char aicf__k_check_where[sizeof(aicf__k_where) == 304 ? 1 : -1];
typedef char aicf__k_check_pad[sizeof(aicf__k_pad) == 304 ? 1 : -1];
typedef char aicf__k_check_reduce[sizeof(aicf__k_reduce) == 312 ? 1 : -1];
typedef char aicf__k_check_norm[sizeof(aicf__k_norm) == 128 ? 1 : -1];
typedef char aicf__k_check_resize[sizeof(aicf__k_resize) == 160 ? 1 : -1];
typedef char aicf__k_check_args_fit[sizeof(aicf__k_reduce) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
typedef char aicf__k_check_args[sizeof(aicf__matmul_desc) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];

/* templates/ewchain.cu.j2: fused elementwise chains */
#define AICF__EW_MAX_OPS 9
typedef struct aicf__k_ew_src {
    uint64_t p;
    int64_t mode, a, b; /* 0 FULL, 1 SCALAR, 2 INNER (i % a), 3 MIDDLE ((i / b) % a), 4 GENERAL */
    int64_t st[4];
} aicf__k_ew_src;
typedef struct aicf__k_ew_op {
    int32_t code, left;
    float alpha, beta;
    aicf__k_ew_src src;
} aicf__k_ew_op;
typedef struct aicf__k_ewchain {
    uint64_t y;
    int64_t n;
    int64_t dims[4];
    aicf__k_ew_src x;
    int32_t n_ops, flags; /* flags (float16 kernels): 1 = y float32 (an absorbed output Cast) */
    aicf__k_ew_op ops[AICF__EW_MAX_OPS];
} aicf__k_ewchain;
typedef char aicf__k_check_ewchain[sizeof(aicf__k_ewchain) == 840 ? 1 : -1];
typedef char aicf__k_check_ewchain_fit[sizeof(aicf__k_ewchain) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
/* templates/ewchain.cu.j2: small-M GEMM with the chain as its epilogue */
typedef struct aicf__k_gemv {
    aicf__k_ewchain e; /* e.y = D [M, N]; e.n = M * N; e.dims, e.ops: the epilogue */
    uint64_t a, b;     /* A [M, K], B [N, K] */
    int64_t M, N, K, lda, ldb;
    float alpha;
    int32_t flags;     /* float16: AICF__GEMVP_A_F32 (A stored float32), AICF__GEMVP_D_F32 (D float32); AICF__GEMV_B_CONST
                          (B a constant: the GEMV (16-byte loads) prefetches its first pieces, the small-M
                          tensor-core GEMM copies all of it, before griddepcontrol.wait) */
} aicf__k_gemv;
typedef char aicf__k_check_gemv[sizeof(aicf__k_gemv) == 904 ? 1 : -1];
/* The Hopper GEMM's arguments (templates/gemm_tc.cu.j2 aicf_gemm_wg_args, 64-byte aligned):
   the TMA tensor maps of A and B (aicf__cuo_patch_tmap), then the tensor-core GEMM's struct,
   whose flags also carry the stages (bits 8-15). */
typedef struct aicf__k_gemm_wg {
    uint64_t ta[16], tb[16];
    aicf__k_gemv g;
    /* the LayerNorm fold (kernels _ln, aicf__cuo_lower_ln_fold): the column terms c1, c2 [N]
       (float32), the LayerNorm's Scale and B [K] (float16; beta 0 = none), where LN(x) [M, K]
       goes (0 = nowhere), epsilon */
    uint64_t c1, c2, gamma, beta, ln;
    float eps;
    int32_t pad_;
    unsigned char pad[1216 - 256 - 904 - 48];
} aicf__k_gemm_wg;
typedef char aicf__k_check_gemm_wg[sizeof(aicf__k_gemm_wg) == 1216 && offsetof(aicf__k_gemm_wg, g) == 256 &&
                                           offsetof(aicf__k_gemm_wg, c1) == 1160 ? 1 : -1];
/* The warp-specialised Hopper GEMM's arguments (templates/gemm_tc.cu.j2 aicf_gemm_ws_args,
   64-byte aligned): the TMA tensor maps of A, B and Y, then the tensor-core GEMM's struct, whose
   flags also carry the stages (bits 8-15). */
typedef struct aicf__k_gemm_ws {
    uint64_t ta[16], tb[16], tc[16];
    aicf__k_gemv g;
    uint64_t gamma, beta; /* aicf_gemm_wsln (aicf__cuo_lower_ln_epi): the LayerNorm's Scale and B [N], float16 (beta 0 = none) */
    float eps;            /* and its epsilon */
    int32_t pad_;
    unsigned char pad[1344 - 384 - 904 - 24];
} aicf__k_gemm_ws;
typedef char aicf__k_check_gemm_ws[sizeof(aicf__k_gemm_ws) == 1344 && offsetof(aicf__k_gemm_ws, g) == 384 &&
                                           offsetof(aicf__k_gemm_ws, gamma) == 1288 ? 1 : -1];
typedef char aicf__k_check_gemv_fit[sizeof(aicf__k_gemv) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
#define AICF__CUO_GEMV_MAX_M 8 /* rows of A up to which Gemm goes to the GEMV kernels */
/* templates/ewchain.cu.j2: consecutive GEMV steps as one persistent kernel (aicf__cuo_persist) */
#define AICF__GEMVP_MAX_LAYERS 6
#define AICF__GEMVP_MAX_OPS 3
#define AICF__GEMVP_BLOCK 256u /* 8 warps */
enum { AICF__GEMVP_A_F32 = 1, AICF__GEMVP_D_F32 = 2, AICF__GEMV_B_CONST = 4 };
typedef struct aicf__k_gemvp_layer {
    uint64_t a, b, y;
    int64_t M, N, K, lda, ldb;
    int64_t dims[4];
    float alpha;
    int32_t n_ops, flags;
    int32_t rows;       /* output columns per block: block b computes [b * rows, min(N, (b + 1) * rows)) */
    uint32_t w_smem;    /* byte offset of the block's weight rows in dynamic shared memory */
    int32_t h_in, h_out; /* byte offsets in the launch's sync region of the hand-off words, -1: none */
    uint32_t e_smem;     /* byte offset of the block's epilogue operand values (float32 [rows][M][n_ops]) in shared memory */
    aicf__k_ew_op ops[AICF__GEMVP_MAX_OPS];
} aicf__k_gemvp_layer;
typedef struct aicf__k_gemvp {
    uint64_t sync;   /* the launch's sync region (AICF__CUO_SYNC + its offset): epoch word, hand-off buffers */
    int32_t n_layers;
    uint32_t x_smem; /* byte offset of the float32 A staging in dynamic shared memory */
    aicf__k_gemvp_layer l[AICF__GEMVP_MAX_LAYERS];
} aicf__k_gemvp;
typedef char aicf__k_check_gemvp_layer[sizeof(aicf__k_gemvp_layer) == 368 ? 1 : -1];
typedef char aicf__k_check_gemvp[sizeof(aicf__k_gemvp) == 2224 ? 1 : -1];
typedef char aicf__k_check_gemvp_fit[sizeof(aicf__k_gemvp) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];

/* ---- the per-step program kept in step->backend ---- */
enum { AICF__CUO_KERNEL = 1, AICF__CUO_COPY = 2, AICF__CUO_MATMUL = 3 };

typedef struct aicf__cuo_fix {
    uint32_t field; /* byte offset of a uint64_t device address inside args (tmap: of a 128-byte
                       TMA tensor map, holding an aicf__tmap_req until exec creation) */
    int tensor;     /* tensor whose address goes there, or AICF__CUO_SCRATCH */
    uint64_t add;   /* bytes added to that address */
    int tmap;       /* 1: the tensor map of that address is encoded there (aicf__cuda_encode_tmap) */
    int reserved;
} aicf__cuo_fix;

/* aicf__cuo_fix.tensor naming the step's arena scratch (aicf__step.scratch_offset) */
#define AICF__CUO_SCRATCH (-2)
/* aicf__cuo_fix.tensor naming the exec's sync region (persistent kernels' epoch words and hand-off buffers) */
#define AICF__CUO_SYNC (-3)

typedef struct aicf__cuo_op {
    int kind;                /* AICF__CUO_* */
    int kernel_index;        /* KERNEL: index in the kernel table */
    unsigned grid[3], block[3], shared_bytes;
    uint32_t args_size;      /* KERNEL: bytes of the argument struct */
    int n_patch;
    int algo;                /* MATMUL: index into aicf__cuo_prog.algo */
    uint64_t copy_bytes;     /* COPY: bytes; patch[0] is the destination, patch[1] the source */
    int pdl;                 /* KERNEL: launched programmatically after the previous kernel (aicf__cuda_pdl) */
    aicf__cuo_fix patch[AICF__CUO_MAX_PATCH];
    uint64_t args[AICF__CUO_ARGS_WORDS]; /* KERNEL: argument struct; MATMUL: aicf__matmul_desc */
} aicf__cuo_op;

/* The record aicf__cuda_matmul_plan returns is plain data (aicf__cuda_algo of 80_cuda.c: the
   8 x u64 cuBLASLt blob, workspace size, cuBLASLt version, alignments), so it is copied into
   the step's block and the original freed: step->backend stays one allocation. */
#if !defined(AICF_NO_CUDA)
#  define AICF__CUO_ALGO_SIZE sizeof(aicf__cuda_algo)
#else
#  define AICF__CUO_ALGO_SIZE ((size_t)16)
#endif
#define AICF__CUO_ALGO_BYTES ((AICF__CUO_ALGO_SIZE + 15u) & ~(size_t)15u) /* one slot */

/* step->backend: this header, then n_ops aicf__cuo_op, then n_algo algorithm records, in one
   aicf__malloc block (freed by aicf__cuda_plan_free with aicf__free). */
typedef struct aicf__cuo_prog {
    int n_ops;
    int n_algo;
} aicf__cuo_prog;

#define AICF__CUO_HDR ((sizeof(aicf__cuo_prog) + 15u) & ~(size_t)15u)

static void* aicf__cuo_prog_algo(aicf__cuo_prog* pr, int k) {
    return (unsigned char*)pr + AICF__CUO_HDR + (size_t)pr->n_ops * sizeof(aicf__cuo_op) + (size_t)k * AICF__CUO_ALGO_BYTES;
}

static aicf__cuo_op* aicf__cuo_prog_ops(aicf__cuo_prog* pr) {
    return (aicf__cuo_op*)(void*)((unsigned char*)pr + AICF__CUO_HDR);
}

/* ---- the lowering context of one step ---- */
typedef struct aicf__cuo {
    aicf_plan* p;
    aicf_context* ctx;
    aicf_graph* g;
    int si;
    aicf__step* st;
    const aicf__node* nd; /* NULL for CAST steps */
    int f16;              /* the step's float tensors are stored as float16 */
    size_t es;            /* bytes per element of that storage */
    aicf__cuo_op* ops;    /* AICF__CUO_MAX_OPS scratch entries */
    int n_ops;
    void* algo[AICF__CUO_MAX_ALGO];
    int n_algo;
    char kernel[96];      /* step name when not a table kernel ("cublasLt:matmul", "memcpy") */
    char first_name[96];  /* name of the first table kernel launched */
    char reason[192];
    char lt_fail[240];    /* why cuBLASLt took no matmul of this step (a pinned choice's error) */
} aicf__cuo;

static aicf_result aicf__cuo_fail(aicf__cuo* c, aicf_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static aicf_result aicf__cuo_fail(aicf__cuo* c, aicf_result code, const char* fmt, ...) {
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->nd)
        return aicf__err(c->ctx, code, "aicf_plan_create: node %d '%.200s' (%.64s): %s", c->st->node,
                         c->nd->name ? c->nd->name : "", c->nd->op_type ? c->nd->op_type : "?", msg);
    return aicf__err(c->ctx, code, "aicf_plan_create: step %d (boundary Cast): %s", c->si, msg);
}

static void aicf__cuo_reason(aicf__cuo* c, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void aicf__cuo_reason(aicf__cuo* c, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

/* Input i of the step (-1 when absent or omitted). */
static int aicf__cuo_in(const aicf__cuo* c, int i) {
    return i >= 0 && i < c->st->n_in ? c->st->in[i] : -1;
}

static int aicf__cuo_out(const aicf__cuo* c, int i) {
    return i >= 0 && i < c->st->n_out ? c->st->out[i] : -1;
}

static const aicf__shape* aicf__cuo_shape(const aicf__cuo* c, int t) {
    return &c->g->tensors[t].shape;
}

static int64_t aicf__cuo_numel(const aicf__cuo* c, int t) {
    return aicf__shape_numel(&c->g->tensors[t].shape);
}

static int64_t aicf__cuo_prod(const aicf__shape* s, int from, int to) {
    int64_t r = 1;
    int i;
    for (i = from; i < to; i++) r *= s->d[i];
    return r;
}

static const char* aicf__cuo_sstr(const aicf__shape* s, char* buf, size_t cap) {
    return aicf__shape_str(s, buf, cap);
}

/* Checks that tensor t (input or output `what` of the step) is stored as float32 or float16
   and, for the first tensor checked, fixes the step's storage type; later ones must match. */
static aicf_result aicf__cuo_float(aicf__cuo* c, int t, const char* what, int first) {
    aicf_dtype dt = c->p->loc[t].sdtype;
    const char* name = c->g->tensors[t].name ? c->g->tensors[t].name : "";
    if (dt != AICF_DTYPE_FLOAT32 && dt != AICF_DTYPE_FLOAT16)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "%s '%.200s' has element type %s; the device kernels handle float32 and float16 only",
                              what, name, aicf_dtype_name(dt));
    if (first) {
        c->f16 = dt == AICF_DTYPE_FLOAT16;
        c->es = c->f16 ? 2 : 4;
    } else if ((dt == AICF_DTYPE_FLOAT16) != c->f16) {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "%s '%.200s' is stored as %s but the step computes in %s storage",
                              what, name, aicf_dtype_name(dt), c->f16 ? "float16" : "float32");
    }
    return AICF_SUCCESS;
}

/* Checks inputs [0, n_in) that are present and output 0 (the usual case). */
static aicf_result aicf__cuo_floats(aicf__cuo* c, int n_in) {
    int i;
    aicf_result r;
    char what[32];
    if ((r = aicf__cuo_float(c, aicf__cuo_out(c, 0), "output 0", 1)) != AICF_SUCCESS) return r;
    for (i = 0; i < n_in; i++) {
        int t = aicf__cuo_in(c, i);
        if (t < 0) continue;
        snprintf(what, sizeof what, "input %d", i);
        if ((r = aicf__cuo_float(c, t, what, 0)) != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

/* Alignment in bytes (a power of two, at most 256) of tensor t's device address + add in plan p
   (after the memory plan). */
static uint64_t aicf__plan_align(const aicf_plan* p, int t, uint64_t add) {
    int guard = 0;
    uint64_t a;
    while (p->loc[t].alias_of >= 0 && guard++ < 64) { /* views start alias_add bytes into their root */
        add += p->loc[t].alias_add;
        t = p->loc[t].alias_of;
    }
    if (p->loc[t].space == AICF__SPACE_NONE) return 1;
    a = (uint64_t)p->loc[t].offset + add;
    if (a == 0) return 256;
    a &= ~a + 1;
    return a > 256 ? 256 : a;
}
static uint64_t aicf__cuo_align(const aicf__cuo* c, int t, uint64_t add) { return aicf__plan_align(c->p, t, add); }

/* ---- building the op list ---- */

static aicf_result aicf__cuo_push(aicf__cuo* c, int kind, aicf__cuo_op** out) {
    aicf__cuo_op* op = NULL;
    if (c->n_ops >= AICF__CUO_MAX_OPS)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "needs more than %d device launches", AICF__CUO_MAX_OPS);
    op = &c->ops[c->n_ops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->kernel_index = -1;
    op->algo = -1;
    *out = op;
    return AICF_SUCCESS;
}

static void aicf__cuo_patch(aicf__cuo_op* op, size_t field, int tensor, uint64_t add) {
    aicf__cuo_fix* pt;
    AICF_ASSERT(op->n_patch < AICF__CUO_MAX_PATCH);
    pt = &op->patch[op->n_patch++];
    pt->field = (uint32_t)field;
    pt->tensor = tensor;
    pt->add = add;
    pt->tmap = pt->reserved = 0;
}

/* A TMA tensor map of tensor (+ add) at args offset `field` (64-byte aligned in the kernel's
   argument struct), encoded at exec creation from request rq, which the plan keeps there. */
static void aicf__cuo_patch_tmap(aicf__cuo_op* op, size_t field, int tensor, uint64_t add, const aicf__tmap_req* rq) {
    AICF_ASSERT(field % 64 == 0 && field + 128 <= op->args_size);
    memcpy((unsigned char*)op->args + field, rq, sizeof *rq);
    aicf__cuo_patch(op, field, tensor, add);
    op->patch[op->n_patch - 1].tmap = 1;
}

/* 1-D launch over `work` items (grid-stride kernels). */
static void aicf__cuo_dims1(int64_t work, unsigned grid[3], unsigned block[3]) {
    int64_t b = (work + (int64_t)AICF__CUO_BLOCK - 1) / (int64_t)AICF__CUO_BLOCK;
    if (b < 1) b = 1;
    if (b > AICF__CUO_MAX_GRID) b = AICF__CUO_MAX_GRID;
    grid[0] = (unsigned)b;
    grid[1] = grid[2] = 1;
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
}

/* The name of table kernel k ("" when k is not in the table, or without the CUDA backend). */
static const char* aicf__cuo_kname(int k) {
#if !defined(AICF_NO_CUDA)
    if (k >= 0 && k < AICF__KT_NUM_KERNELS && aicf__kt_kernels[k].name) return aicf__kt_kernels[k].name;
#else
    (void)k;
#endif
    return "";
}

/* Adds a launch of table kernel `name` with the argument struct `args`. */
static aicf_result aicf__cuo_kernel(aicf__cuo* c, const char* name, const void* args, size_t size, const unsigned grid[3],
                                    const unsigned block[3], unsigned shared, aicf__cuo_op** out) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    int k = aicf__cuda_kernel_find(name);
    if (k < 0)
        return aicf__cuo_fail(c, AICF_ERROR_NO_KERNEL,
                              "kernel '%s' is not in the generated kernel table (regenerate kernels_gen with codegen/gen.py)", name);
    AICF_ASSERT(size <= sizeof op->args);
    if ((r = aicf__cuo_push(c, AICF__CUO_KERNEL, &op)) != AICF_SUCCESS) return r;
    if (!c->first_name[0]) snprintf(c->first_name, sizeof c->first_name, "%s", name);
    op->kernel_index = k;
    memcpy(op->grid, grid, sizeof op->grid);
    memcpy(op->block, block, sizeof op->block);
    op->shared_bytes = shared;
    op->args_size = (uint32_t)size;
    memcpy(op->args, args, size);
    *out = op;
    return AICF_SUCCESS;
}

/* Adds a device-to-device copy of `bytes` from tensor src (+ src_add) to dst (+ dst_add). */
static aicf_result aicf__cuo_copy(aicf__cuo* c, int dst, uint64_t dst_add, int src, uint64_t src_add, uint64_t bytes) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    if (bytes == 0) return AICF_SUCCESS;
    if ((r = aicf__cuo_push(c, AICF__CUO_COPY, &op)) != AICF_SUCCESS) return r;
    op->copy_bytes = bytes;
    aicf__cuo_patch(op, 0, dst, dst_add);
    aicf__cuo_patch(op, 0, src, src_add);
    return AICF_SUCCESS;
}

/* ---- elementwise: unary ---- */

static const char* aicf__cuo_dtn(const aicf__cuo* c) { return c->f16 ? "f16" : "f32"; }

/* Whether the 4-wide variant applies to n elements at these tensors (+ byte offsets). */
static int aicf__cuo_vec4(const aicf__cuo* c, int64_t n, const int* ts, const uint64_t* adds, int count) {
    int i;
    if (n % 4 != 0) return 0;
    for (i = 0; i < count; i++)
        if (ts[i] >= 0 && aicf__cuo_align(c, ts[i], adds ? adds[i] : 0) < 4 * c->es) return 0;
    return 1;
}

static aicf_result aicf__cuo_unary_launch(aicf__cuo* c, const char* fn, int x, int y, float alpha, float beta) {
    aicf__k_unary a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    int ts[2];
    int vec;
    char name[96];
    aicf_result r;
    int64_t n = aicf__cuo_numel(c, y);
    ts[0] = x;
    ts[1] = y;
    vec = aicf__cuo_vec4(c, n, ts, NULL, 2) ? 4 : 1;
    if (vec == 4 && c->es == 2 && n % 8 == 0 && aicf__cuo_align(c, x, 0) >= 16 && aicf__cuo_align(c, y, 0) >= 16) {
        snprintf(name, sizeof name, "aicf_unary_%s_f16_v8", fn); /* 16-byte accesses, where the table has the variant */
        if (aicf__cuda_kernel_find(name) >= 0) vec = 8;
    }
    memset(&a, 0, sizeof a);
    a.n = n;
    a.alpha = alpha;
    a.beta = beta;
    snprintf(name, sizeof name, "aicf_unary_%s_%s_v%d", fn, aicf__cuo_dtn(c), vec);
    aicf__cuo_dims1(n / vec, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_unary, x), x, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_unary, y), y, 0);
    if (vec == 8)
        aicf__cuo_reason(c, "vec8: %lld elements divisible by 8, 16-byte aligned", (long long)n);
    else if (vec == 4)
        aicf__cuo_reason(c, "vec4: %lld elements divisible by 4, %u-byte aligned", (long long)n, (unsigned)(4 * c->es));
    else
        aicf__cuo_reason(c, "scalar: %lld elements%s", (long long)n,
                         n % 4 ? " not divisible by 4" : ", addresses not aligned for vec4");
    return AICF_SUCCESS;
}

/* The value of a scalar constant input (Clip min/max). */
static aicf_result aicf__cuo_const_scalar(aicf__cuo* c, int i, const char* what, float* v) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    if (!(tt->flags & AICF__T_CONST) || !tt->data)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (tt->dtype == AICF_DTYPE_FLOAT32 && tt->data_bytes >= 4) memcpy(v, tt->data, 4);
    else if (tt->dtype == AICF_DTYPE_FLOAT16 && tt->data_bytes >= 2) {
        uint16_t h;
        memcpy(&h, tt->data, 2);
        *v = aicf__f16_to_f32(h);
    } else if (tt->dtype == AICF_DTYPE_FLOAT64 && tt->data_bytes >= 8) {
        double d;
        memcpy(&d, tt->data, 8);
        *v = (float)d;
    } else {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s", i,
                              tt->name ? tt->name : "", what, aicf_dtype_name(tt->dtype));
    }
    return AICF_SUCCESS;
}

static int64_t aicf__cuo_opset(const aicf__cuo* c) {
    return c->g->opset > 0 ? c->g->opset : ((int64_t)1 << 30);
}

static aicf_result aicf__cuo_lower_unary(aicf__cuo* c) {
    const aicf__node* n = c->nd;
    float alpha = 0.0f, beta = 0.0f;
    const char* fn = "relu";
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    switch (n->op) {
    case AICF__OP_Relu: fn = "relu"; break;
    case AICF__OP_Tanh: fn = "tanh"; break;
    case AICF__OP_Sigmoid: fn = "sigmoid"; break;
    case AICF__OP_Exp: fn = "exp"; break;
    case AICF__OP_Log: fn = "log"; break;
    case AICF__OP_Sqrt: fn = "sqrt"; break;
    case AICF__OP_Neg: fn = "neg"; break;
    case AICF__OP_Abs: fn = "abs"; break;
    case AICF__OP_Reciprocal: fn = "reciprocal"; break;
    case AICF__OP_Erf: fn = "erf"; break;
    case AICF__OP_LeakyRelu:
        fn = "leaky_relu";
        alpha = aicf__attr_f(n, "alpha", 0.01f);
        break;
    case AICF__OP_Elu:
        fn = "elu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_HardSigmoid:
        fn = "hard_sigmoid";
        alpha = aicf__attr_f(n, "alpha", 0.2f);
        beta = aicf__attr_f(n, "beta", 0.5f);
        break;
    case AICF__OP_HardSwish:
        fn = "hard_swish";
        alpha = 1.0f / 6.0f;
        beta = 0.5f;
        break;
    case AICF__OP_Clip:
        fn = "clip";
        if (aicf__cuo_opset(c) < 11) {
            alpha = aicf__attr_f(n, "min", -3.402823466e+38f);
            beta = aicf__attr_f(n, "max", 3.402823466e+38f);
        } else {
            alpha = -INFINITY;
            beta = INFINITY;
            if ((r = aicf__cuo_const_scalar(c, 1, "min", &alpha)) != AICF_SUCCESS) return r;
            if ((r = aicf__cuo_const_scalar(c, 2, "max", &beta)) != AICF_SUCCESS) return r;
        }
        break;
    case AICF__OP_Floor: fn = "floor"; break;
    case AICF__OP_Ceil: fn = "ceil"; break;
    case AICF__OP_Round: fn = "round"; break;
    case AICF__OP_Sign: fn = "sign"; break;
    case AICF__OP_Softplus: fn = "softplus"; break;
    case AICF__OP_Softsign: fn = "softsign"; break;
    case AICF__OP_Selu:
        fn = "selu";
        alpha = aicf__attr_f(n, "alpha", 1.67326319217681884765625f);
        beta = aicf__attr_f(n, "gamma", 1.05070102214813232421875f);
        break;
    case AICF__OP_Celu:
        fn = "celu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_ThresholdedRelu:
        fn = "thresholded_relu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_Sin: fn = "sin"; break;
    case AICF__OP_Cos: fn = "cos"; break;
    case AICF__OP_Tan: fn = "tan"; break;
    case AICF__OP_Asin: fn = "asin"; break;
    case AICF__OP_Acos: fn = "acos"; break;
    case AICF__OP_Atan: fn = "atan"; break;
    case AICF__OP_Sinh: fn = "sinh"; break;
    case AICF__OP_Cosh: fn = "cosh"; break;
    case AICF__OP_Asinh: fn = "asinh"; break;
    case AICF__OP_Acosh: fn = "acosh"; break;
    case AICF__OP_Atanh: fn = "atanh"; break;
    case AICF__OP_Gelu: {
        const char* ap = aicf__attr_s(n, "approximate", "none");
        if (!strcmp(ap, "tanh")) fn = "gelu_tanh";
        else if (!strcmp(ap, "none")) fn = "gelu";
        else return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'approximate' is '%.40s'; expected none or tanh", ap);
        break;
    }
    case AICF__OP_Mish: fn = "mish"; break;
    case AICF__OP_Shrink:
        fn = "shrink";
        alpha = aicf__attr_f(n, "lambd", 0.5f);
        beta = aicf__attr_f(n, "bias", 0.0f);
        break;
    case AICF__OP_Swish:
        fn = "swish";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "not a unary op");
    }
    return aicf__cuo_unary_launch(c, fn, aicf__cuo_in(c, 0), aicf__cuo_out(c, 0), alpha, beta);
}

/* ---- elementwise: binary with broadcasting ---- */

/* Element strides of a tensor of shape `in` read as the broadcast shape `out` (0 on
   broadcast dims), as numpy aligns them (trailing dims). */
static void aicf__cuo_bstrides(const aicf__shape* in, const aicf__shape* out, int64_t* st) {
    int i, r = out->rank;
    int64_t s = 1;
    for (i = r - 1; i >= 0; i--) {
        int ii = in->rank - r + i;
        st[i] = (ii < 0 || in->d[ii] == 1) ? 0 : s;
        if (ii >= 0) s *= in->d[ii];
    }
}

/* Drops size-1 dims and merges neighbours that are contiguous for every operand. st[k] points
   to k stride arrays (rank entries each), rewritten in place; returns the new rank. */
static int aicf__cuo_collapse(int64_t* shape, int rank, int64_t** st, int k) {
    int i, j, o = 0;
    for (i = 0; i < rank; i++) {
        if (shape[i] == 1) continue;
        if (o > 0) {
            int merge = 1;
            for (j = 0; j < k; j++)
                if (st[j][o - 1] != st[j][i] * shape[i]) merge = 0;
            if (merge) {
                shape[o - 1] *= shape[i];
                for (j = 0; j < k; j++) st[j][o - 1] = st[j][i];
                continue;
            }
        }
        shape[o] = shape[i];
        for (j = 0; j < k; j++) st[j][o] = st[j][i];
        o++;
    }
    return o;
}

/* y = fn(a, b) over y's shape sy; a and b have shapes sa, sb (broadcast to sy). y may be a or b
   (same shape: each element read then written by one thread). */
static aicf_result aicf__cuo_binary(aicf__cuo* c, const char* fn, int ta, const aicf__shape* sa, int tb,
                                    const aicf__shape* sb, int ty, const aicf__shape* sy) {
    int64_t n = aicf__shape_numel(sy), na = aicf__shape_numel(sa), nb = aicf__shape_numel(sb);
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], b1[160];
    aicf_result r;
    if ((na == n || na == 1) && (nb == n || nb == 1)) {
        aicf__k_binflat a;
        int ts[3];
        int vec;
        memset(&a, 0, sizeof a);
        a.n = n;
        a.sa = na == n ? 1 : 0;
        a.sb = nb == n ? 1 : 0;
        if (n == 1) a.sa = a.sb = 1;
        ts[0] = a.sa ? ta : -1;
        ts[1] = a.sb ? tb : -1;
        ts[2] = ty;
        vec = aicf__cuo_vec4(c, n, ts, NULL, 3) ? 4 : 1;
        snprintf(name, sizeof name, "aicf_binary_%s_%s_flat_v%d", fn, aicf__cuo_dtn(c), vec);
        aicf__cuo_dims1(n / vec, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, a), ta, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, b), tb, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, y), ty, 0);
        aicf__cuo_reason(c, "flat%s: %lld elements%s%s%s", vec == 4 ? " vec4" : "", (long long)n,
                         vec == 4 ? " divisible by 4, aligned" : (n % 4 ? " (not divisible by 4)" : " (unaligned for vec4)"),
                         !a.sa ? ", A is one element" : "", !a.sb ? ", B is one element" : "");
    } else {
        aicf__k_binbc a;
        int64_t* st[2];
        int rank;
        memset(&a, 0, sizeof a);
        aicf__cuo_bstrides(sa, sy, a.sa);
        aicf__cuo_bstrides(sb, sy, a.sb);
        memcpy(a.shape, sy->d, sizeof(int64_t) * (size_t)sy->rank);
        st[0] = a.sa;
        st[1] = a.sb;
        rank = aicf__cuo_collapse(a.shape, sy->rank, st, 2);
        if (rank == 0) {
            rank = 1;
            a.shape[0] = 1;
            a.sa[0] = a.sb[0] = 0;
        }
        a.rank = rank;
        a.n = n;
        snprintf(name, sizeof name, "aicf_binary_%s_%s_bcast", fn, aicf__cuo_dtn(c));
        aicf__cuo_dims1(n, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, a), ta, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, b), tb, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, y), ty, 0);
        aicf__cuo_reason(c, "broadcast: output %s collapsed to rank %d with per-input strides",
                         aicf__cuo_sstr(sy, b1, sizeof b1), rank);
    }
    return AICF_SUCCESS;
}

/* Shape of input i as it takes part in the broadcast (before opset 7, Add/Sub/Mul/Div/Pow
   align B at `axis` when broadcast = 1), as the CPU reference does. */
static void aicf__cuo_bin_shape(const aicf__cuo* c, int i, aicf__shape* s) {
    const aicf__node* n = c->nd;
    *s = *aicf__cuo_shape(c, aicf__cuo_in(c, i));
    if (aicf__cuo_opset(c) < 7 && i == 1 &&
        (n->op == AICF__OP_Add || n->op == AICF__OP_Sub || n->op == AICF__OP_Mul || n->op == AICF__OP_Div || n->op == AICF__OP_Pow) &&
        aicf__attr_i(n, "broadcast", 0) && aicf__attr(n, "axis")) {
        const aicf__shape* a = aicf__cuo_shape(c, aicf__cuo_in(c, 0));
        int64_t axis = aicf__attr_i(n, "axis", 0);
        aicf__shape t = *s;
        int k;
        if (axis < 0) axis += a->rank;
        if (axis < 0 || axis + t.rank > a->rank) return; /* rejected by shape inference */
        memset(s, 0, sizeof *s);
        s->rank = a->rank;
        for (k = 0; k < s->rank; k++) s->d[k] = 1;
        for (k = 0; k < t.rank; k++) s->d[axis + k] = t.d[k];
    }
}

static const char* aicf__cuo_binfn(aicf__op op) {
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum:
    case AICF__OP_Mean: return "add";
    case AICF__OP_PRelu: return "prelu";
    case AICF__OP_Sub: return "sub";
    case AICF__OP_Mul: return "mul";
    case AICF__OP_Div: return "div";
    case AICF__OP_Pow: return "pow";
    case AICF__OP_Max: return "max";
    case AICF__OP_Min: return "min";
    default: return NULL;
    }
}

static aicf_result aicf__cuo_lower_binary(aicf__cuo* c) {
    const char* fn = aicf__cuo_binfn(c->nd->op);
    int nin = c->st->n_in, y = aicf__cuo_out(c, 0), i;
    aicf__shape sa, sb;
    const aicf__shape* sy = aicf__cuo_shape(c, y);
    aicf_result r;
    char keep[192];
    while (nin > 0 && aicf__cuo_in(c, nin - 1) < 0) nin--;
    if ((r = aicf__cuo_floats(c, nin)) != AICF_SUCCESS) return r;
    for (i = 0; i < nin; i++)
        if (aicf__cuo_in(c, i) < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
    if (nin == 1) { /* Sum/Max/Min of one input: a copy */
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "one input: device-to-device copy");
        return aicf__cuo_copy(c, y, 0, aicf__cuo_in(c, 0), 0, c->p->loc[y].bytes);
    }
    aicf__cuo_bin_shape(c, 0, &sa);
    aicf__cuo_bin_shape(c, 1, &sb);
    if ((r = aicf__cuo_binary(c, fn, aicf__cuo_in(c, 0), &sa, aicf__cuo_in(c, 1), &sb, y, sy)) != AICF_SUCCESS) return r;
    memcpy(keep, c->reason, sizeof keep);
    /* Sum/Max/Min of n > 2 inputs: y = fn(y, input k) in input order */
    for (i = 2; i < nin; i++) {
        aicf__cuo_bin_shape(c, i, &sb);
        if ((r = aicf__cuo_binary(c, fn, y, sy, aicf__cuo_in(c, i), &sb, y, sy)) != AICF_SUCCESS) return r;
    }
    if (nin > 2) aicf__cuo_reason(c, "%d inputs as a chain of %d binary kernels; first: %.140s", nin, nin - 1, keep);
    if (c->nd->op == AICF__OP_Mean) { /* the sum, then divided by the input count (as the CPU reference) */
        memcpy(keep, c->reason, sizeof keep);
        if ((r = aicf__cuo_unary_launch(c, "divs", y, y, (float)nin, 0.0f)) != AICF_SUCCESS) return r;
        aicf__cuo_reason(c, "sum of %d inputs, then divided by %d; first: %.130s", nin, nin, keep);
    }
    return AICF_SUCCESS;
}

/* ---- data movement: permute (Transpose, broadcast copies), Concat, Cast ---- */

/* y (shape[rank], row-major) = x read with element strides sx[] (any strides, 0 to broadcast,
   negative to walk backwards from the byte offset add_x; rank up to 2 * AICF_MAX_RANK before
   size-1 dims are dropped and neighbours merged, AICF_MAX_RANK after).
   Picks: a copy when the collapsed view is the identity, the tiled 2-D transpose when it is a
   (batched) matrix transpose, else the generic permute kernel. add_x/add_y: byte offsets. */
static aicf_result aicf__cuo_permute(aicf__cuo* c, int x, uint64_t add_x, int y, uint64_t add_y, const int64_t* shape_in,
                                     int rank_in, const int64_t* sx_in) {
    int64_t shape[2 * AICF_MAX_RANK], sx[2 * AICF_MAX_RANK], n = 1; /* views up to twice the rank (Tile) */
    int64_t* st[1];
    int rank, i;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    for (i = 0; i < rank_in; i++) {
        shape[i] = shape_in[i];
        sx[i] = sx_in[i];
        n *= shape[i];
    }
    if (n == 0) return AICF_SUCCESS;
    st[0] = sx;
    rank = aicf__cuo_collapse(shape, rank_in, st, 1);
    if (rank > AICF_MAX_RANK)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "the strided copy needs %d dimensions after merging (limit %d)", rank,
                              AICF_MAX_RANK);
    if (rank == 0 || (rank == 1 && sx[0] == 1)) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "the permutation keeps memory order: device-to-device copy");
        return aicf__cuo_copy(c, y, add_y, x, add_x, (uint64_t)n * c->es);
    }
    /* [B,] R x C -> C x R: output dims (..., C, R) read with strides (..., 1, C) */
    if ((rank == 2 && sx[1] == shape[0] && sx[0] == 1) ||
        (rank == 3 && sx[1] == 1 && sx[2] == shape[1] && sx[0] == shape[1] * shape[2])) {
        aicf__k_transpose2d a;
        int64_t rows = shape[rank - 1], cols = shape[rank - 2], batch = rank == 3 ? shape[0] : 1;
        if (rows >= 8 && cols >= 8 && (cols + 31) / 32 <= 0x7fffffff && (rows + 31) / 32 <= 65535) {
            memset(&a, 0, sizeof a);
            a.batch = batch;
            a.rows = rows;
            a.cols = cols;
            grid[0] = (unsigned)((cols + 31) / 32);
            grid[1] = (unsigned)((rows + 31) / 32);
            grid[2] = (unsigned)AICF__MIN(batch, 65535);
            block[0] = 32;
            block[1] = 8;
            block[2] = 1;
            snprintf(name, sizeof name, "aicf_transpose2d_%s", aicf__cuo_dtn(c));
            if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
            aicf__cuo_patch(op, offsetof(aicf__k_transpose2d, x), x, add_x);
            aicf__cuo_patch(op, offsetof(aicf__k_transpose2d, y), y, add_y);
            aicf__cuo_reason(c, "tiled 32x32 transpose: collapses to %lld x [%lld,%lld] -> [%lld,%lld]", (long long)batch,
                             (long long)rows, (long long)cols, (long long)cols, (long long)rows);
            return AICF_SUCCESS;
        }
    }
    {
        aicf__k_permute a;
        int64_t vw = 16 / (int64_t)c->es; /* elements per 16-byte group */
        int vec = sx[rank - 1] == 1 && shape[rank - 1] % vw == 0 && aicf__cuo_align(c, x, add_x) >= 16 &&
                  aicf__cuo_align(c, y, add_y) >= 16;
        for (i = 0; i < rank - 1 && vec; i++)
            if (sx[i] % vw != 0) vec = 0;
        memset(&a, 0, sizeof a);
        a.n = vec ? n / vw : n;
        a.rank = rank;
        for (i = 0; i < rank; i++) {
            a.shape[i] = shape[i] / (vec && i == rank - 1 ? vw : 1);
            a.sx[i] = vec && i < rank - 1 ? sx[i] / vw : sx[i];
        }
        if (vec) snprintf(name, sizeof name, "aicf_permute_%s_v%lld", aicf__cuo_dtn(c), (long long)vw);
        else snprintf(name, sizeof name, "aicf_permute_%s", aicf__cuo_dtn(c));
        aicf__cuo_dims1(a.n, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_permute, x), x, add_x);
        aicf__cuo_patch(op, offsetof(aicf__k_permute, y), y, add_y);
        aicf__cuo_reason(c, "strided gather: %lld elements over %d collapsed dims%s", (long long)n, rank,
                         vec ? ", 16-byte groups (innermost dim contiguous)" : "");
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_transpose(aicf__cuo* c) {
    const aicf__shape* xs;
    int64_t xst[AICF_MAX_RANK], sx[AICF_MAX_RANK], shape[AICF_MAX_RANK];
    const int64_t* pv = NULL;
    int perm[AICF_MAX_RANK], r, i, cnt;
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    xs = aicf__cuo_shape(c, aicf__cuo_in(c, 0));
    r = xs->rank;
    cnt = aicf__attr_ints(c->nd, "perm", &pv);
    for (i = 0; i < r; i++) {
        int64_t a = cnt == r ? pv[i] : r - 1 - i;
        if (a < 0) a += r;
        if (a < 0 || a >= r) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' entry %d is out of range", i);
        perm[i] = (int)a;
    }
    if (r == 0) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "rank 0: device-to-device copy");
        return aicf__cuo_copy(c, aicf__cuo_out(c, 0), 0, aicf__cuo_in(c, 0), 0, c->es);
    }
    xst[r - 1] = 1;
    for (i = r - 2; i >= 0; i--) xst[i] = xst[i + 1] * xs->d[i + 1];
    for (i = 0; i < r; i++) {
        sx[i] = xst[perm[i]];
        shape[i] = xs->d[perm[i]];
    }
    return aicf__cuo_permute(c, aicf__cuo_in(c, 0), 0, aicf__cuo_out(c, 0), 0, shape, r, sx);
}

static aicf_result aicf__cuo_lower_concat(aicf__cuo* c) {
    int y = aicf__cuo_out(c, 0), nin = c->st->n_in, i, ax, launches = 0, vec4 = 0;
    const aicf__shape* ys = aicf__cuo_shape(c, y);
    int64_t axis = aicf__attr_i(c->nd, "axis", 1), outer, inner, ycols, pos = 0;
    aicf_result r;
    while (nin > 0 && aicf__cuo_in(c, nin - 1) < 0) nin--;
    if ((r = aicf__cuo_floats(c, nin)) != AICF_SUCCESS) return r;
    if (ys->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output is a scalar");
    if (axis < 0) axis += ys->rank;
    if (axis < 0 || axis >= ys->rank) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' is out of range");
    ax = (int)axis;
    outer = aicf__cuo_prod(ys, 0, ax);
    inner = aicf__cuo_prod(ys, ax + 1, ys->rank);
    ycols = ys->d[ax] * inner;
    if (nin > 0 && aicf__cuo_in(c, 0) >= 0 && c->p->loc[aicf__cuo_in(c, 0)].alias_of == y) { /* the memory plan made views */
        for (i = 0; i < nin; i++)
            if (aicf__cuo_in(c, i) < 0 || c->p->loc[aicf__cuo_in(c, i)].alias_of != y)
                return aicf__cuo_fail(c, AICF_ERROR_STATE, "input %d is not the view of the output the memory plan recorded", i);
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "%d inputs are views into the output's storage (concat along axis %d, only 1s before it): their "
                            "producers wrote in place, no copy",
                         nin, ax);
        return AICF_SUCCESS;
    }
    for (i = 0; i < nin; i++) {
        int x = aicf__cuo_in(c, i);
        int64_t cols;
        if (x < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        cols = aicf__cuo_shape(c, x)->d[ax] * inner;
        if (cols > 0 && outer > 0) {
            if (outer == 1) {
                if ((r = aicf__cuo_copy(c, y, (uint64_t)pos * c->es, x, 0, (uint64_t)cols * c->es)) != AICF_SUCCESS) return r;
            } else {
                aicf__k_copy2d a;
                unsigned grid[3], block[3];
                aicf__cuo_op* op = NULL;
                char name[96];
                int v = cols % 4 == 0 && ycols % 4 == 0 && aicf__cuo_align(c, x, 0) >= 4 * c->es &&
                                aicf__cuo_align(c, y, (uint64_t)pos * c->es) >= 4 * c->es
                            ? 4
                            : 1;
                memset(&a, 0, sizeof a);
                a.rows = outer;
                a.cols = cols;
                a.ldx = cols;
                a.ldy = ycols;
                snprintf(name, sizeof name, "aicf_copy2d_%s_v%d", aicf__cuo_dtn(c), v);
                aicf__cuo_dims1(outer * cols / v, grid, block);
                if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, x), x, 0);
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, y), y, (uint64_t)pos * c->es);
                if (v == 4) vec4++;
            }
            launches++;
        }
        pos += cols;
    }
    if (outer == 1) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "%d inputs, outer size 1: one device-to-device copy each", launches);
    } else {
        aicf__cuo_reason(c, "%d strided 2-D copies (%lld rows each), %d of them vec4", launches, (long long)outer, vec4);
    }
    return AICF_SUCCESS;
}

/* Converts tensor x (storage sdx) into y (storage sdy) elementwise. */
static aicf_result aicf__cuo_convert(aicf__cuo* c, int x, int y) {
    aicf_dtype sx = c->p->loc[x].sdtype, sy = c->p->loc[y].sdtype;
    int64_t n = aicf__cuo_numel(c, y);
    int fx = sx == AICF_DTYPE_FLOAT32 || sx == AICF_DTYPE_FLOAT16, fy = sy == AICF_DTYPE_FLOAT32 || sy == AICF_DTYPE_FLOAT16;
    if (sx == sy) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "same storage type (%s): device-to-device copy", aicf_dtype_name(sx));
        return aicf__cuo_copy(c, y, 0, x, 0, c->p->loc[y].bytes);
    }
    if (!fx || !fy)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "conversion %s -> %s is not supported on the device (float32 <-> float16 only)",
                              aicf_dtype_name(sx), aicf_dtype_name(sy));
    {
        aicf__k_cast a;
        unsigned grid[3], block[3];
        aicf__cuo_op* op = NULL;
        char name[96];
        const char* src = sx == AICF_DTYPE_FLOAT16 ? "f16" : "f32";
        const char* dst = sy == AICF_DTYPE_FLOAT16 ? "f16" : "f32";
        /* 8 elements a thread where both addresses are 16-byte aligned (two 16-byte float32
           accesses in flight a thread, one wave where vec 4 needs more), else 4, else 1 */
        int v = n % 8 == 0 && aicf__cuo_align(c, x, 0) >= 16 && aicf__cuo_align(c, y, 0) >= 16 ? 8
                : n % 4 == 0 && aicf__cuo_align(c, x, 0) >= 4 * aicf_dtype_size(sx) &&
                        aicf__cuo_align(c, y, 0) >= 4 * aicf_dtype_size(sy)
                    ? 4
                    : 1;
        aicf_result r;
        memset(&a, 0, sizeof a);
        a.n = n;
        snprintf(name, sizeof name, "aicf_cast_%s_%s_v%d", src, dst, v);
        aicf__cuo_dims1(n / v, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_cast, x), x, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_cast, y), y, 0);
        aicf__cuo_reason(c, "%s -> %s, %lld elements%s", src, dst, (long long)n, v == 8 ? ", vec8" : v == 4 ? ", vec4" : "");
    }
    return AICF_SUCCESS;
}

/* Identity, Dropout, Reshape, Flatten, Squeeze, Unsqueeze. */
static aicf_result aicf__cuo_lower_alias(aicf__cuo* c) {
    int x = aicf__cuo_in(c, 0), y = aicf__cuo_out(c, 0);
    if (c->nd->op == AICF__OP_Dropout && aicf__cuo_out(c, 1) >= 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "output 1 '%.200s' (mask) is not produced on the device",
                              c->g->tensors[aicf__cuo_out(c, 1)].name ? c->g->tensors[aicf__cuo_out(c, 1)].name : "");
    if (c->p->loc[y].alias_of >= 0) {
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "output aliases input storage");
        return AICF_SUCCESS;
    }
    if (c->p->loc[x].sdtype != c->p->loc[y].sdtype || c->p->loc[x].bytes != c->p->loc[y].bytes)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "output storage (%s, %zu bytes) differs from input storage (%s, %zu bytes)",
                              aicf_dtype_name(c->p->loc[y].sdtype), c->p->loc[y].bytes, aicf_dtype_name(c->p->loc[x].sdtype),
                              c->p->loc[x].bytes);
    snprintf(c->kernel, sizeof c->kernel, "memcpy");
    aicf__cuo_reason(c, "output has its own storage (input in %s): device-to-device copy",
                     c->p->loc[x].space == AICF__SPACE_WEIGHTS ? "weights" : "arena");
    return aicf__cuo_copy(c, y, 0, x, 0, c->p->loc[y].bytes);
}

/* ---- GEMM: cuBLASLt or the generated tiled kernel ---- */

/* Asks cuBLASLt for an algorithm. *slot = the record's index, or -1 when the caller must use a
   generated kernel (why[] then says why). Only out-of-memory is an error. */
/* The step's kernel choice as the policy enums: a pinned or tuned choice, else the policy's. */
static aicf_conv_algo aicf__cuo_conv_algo(const aicf__cuo* c) {
    int ch = c->st->choice;
    if (ch >= AICF_CHOICE_DIRECT && ch <= AICF_CHOICE_IMPLICIT_GEMM_TC) return (aicf_conv_algo)ch; /* same values */
    return c->p->policy.conv_algo;
}

static aicf_matmul_algo aicf__cuo_matmul_algo(const aicf__cuo* c) {
    if (c->st->choice == AICF_CHOICE_CUBLASLT) return AICF_MATMUL_CUBLASLT;
    if (c->st->choice == AICF_CHOICE_GENERATED) return AICF_MATMUL_GENERATED;
    return c->p->policy.matmul_algo;
}

static aicf_result aicf__cuo_mm_plan(aicf__cuo* c, const aicf__matmul_desc* md, int* slot, char* why, size_t cap) {
    void* algo = NULL;
    aicf_result r;
    char saved[AICF__ERR_CAP];
    *slot = -1;
    why[0] = 0;
    if (c->n_algo >= AICF__CUO_MAX_ALGO) {
        snprintf(why, cap, "more than %d cuBLASLt algorithms in one step", AICF__CUO_MAX_ALGO);
        return AICF_SUCCESS;
    }
    memcpy(saved, AICF__ERRBUF(c->ctx), sizeof saved);
    r = aicf__cuda_matmul_plan(c->p, c->si, md, c->st->choice ? c->st->choice_lt : 0, &algo, why, cap);
    if (r == AICF_SUCCESS) {
        c->algo[c->n_algo] = algo;
        *slot = c->n_algo++;
        return AICF_SUCCESS;
    }
    if (algo) aicf__free(c->ctx, algo);
    if (r == AICF_ERROR_OUT_OF_MEMORY) return r;
    snprintf(why, cap, "%.150s", AICF__ERRBUF(c->ctx)[0] ? AICF__ERRBUF(c->ctx) : aicf_result_str(r));
    snprintf(c->lt_fail, sizeof c->lt_fail, "%.230s", AICF__ERRBUF(c->ctx)[0] ? AICF__ERRBUF(c->ctx) : aicf_result_str(r));
    memcpy(AICF__ERRBUF(c->ctx), saved, sizeof saved); /* falling back is not an error */
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_mm_push(aicf__cuo* c, const aicf__matmul_desc* md, int slot, int ta, uint64_t oa, int tb,
                                     uint64_t ob, int tc, uint64_t oc, int td, uint64_t od, int tbias) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    if ((r = aicf__cuo_push(c, AICF__CUO_MATMUL, &op)) != AICF_SUCCESS) return r;
    op->algo = slot;
    op->args_size = (uint32_t)sizeof *md;
    memcpy(op->args, md, sizeof *md);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, a), ta, oa);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, b), tb, ob);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, d), td, od);
    if (tc >= 0) aicf__cuo_patch(op, offsetof(aicf__matmul_desc, c), tc, oc);
    if (tbias >= 0) aicf__cuo_patch(op, offsetof(aicf__matmul_desc, bias_ptr), tbias, 0);
    snprintf(c->kernel, sizeof c->kernel, "cublasLt:matmul");
    return AICF_SUCCESS;
}

/* Launches the generated GEMM for args g (addresses patched from the tensors + byte offsets).
   *variant receives "t64" or "t16". */
static aicf_result aicf__cuo_gemm_kernel(aicf__cuo* c, const aicf__k_gemm* g, int ta, uint64_t oa, int tb, uint64_t ob,
                                         int tc, uint64_t oc, int td, uint64_t od, const char** variant) {
    int64_t t64 = ((g->M + 63) / 64) * ((g->N + 63) / 64) * g->batch;
    int use64 = t64 >= 128 || (g->M + 15) / 16 > 65535;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    int64_t tile = use64 ? 64 : 16;
    if ((g->M + tile - 1) / tile > 65535 || (g->N + tile - 1) / tile > 0x7fffffff)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "GEMM M = %lld N = %lld exceeds the generated kernel's grid", (long long)g->M,
                              (long long)g->N);
    grid[0] = (unsigned)((g->N + tile - 1) / tile);
    grid[1] = (unsigned)((g->M + tile - 1) / tile);
    grid[2] = (unsigned)AICF__MIN(g->batch, 65535);
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    *variant = use64 ? "t64" : "t16";
    snprintf(name, sizeof name, "aicf_gemm_%s_%s", *variant, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, g, sizeof *g, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, a), ta, oa);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, b), tb, ob);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, d), td, od);
    if (tc >= 0) aicf__cuo_patch(op, offsetof(aicf__k_gemm, c), tc, oc);
    return AICF_SUCCESS;
}

static void aicf__cuo_mm_desc(aicf__cuo* c, aicf__matmul_desc* md) {
    memset(md, 0, sizeof *md);
    md->batch = 1;
    md->alpha = 1.0f;
    md->dtype = c->f16 ? AICF_DTYPE_FLOAT16 : AICF_DTYPE_FLOAT32;
    /* the tf32 policy puts GEMMs (Gemm, MatMul) on TF32 tensor cores; convolutions lowered to
       GEMMs set it themselves (src/82_cuda_conv.c) */
    md->tf32 = !c->f16 && c->p->policy.precision == AICF_PRECISION_TF32 && c->nd &&
               (c->nd->op == AICF__OP_Gemm || c->nd->op == AICF__OP_MatMul);
}

/* Plan time: cuBLASLt's search reads the address fields as byte offsets to decide the alignment
   it may assume; give it each operand's alignment (a power of two, itself that aligned). */
static void aicf__cuo_mm_align(const aicf__cuo* c, aicf__matmul_desc* md, int ta, int tb, int tc, int td) {
    md->a = ta >= 0 ? aicf__cuo_align(c, ta, 0) : 0;
    md->b = tb >= 0 ? aicf__cuo_align(c, tb, 0) : 0;
    md->c = tc >= 0 ? aicf__cuo_align(c, tc, 0) : 0;
    md->d = td >= 0 ? aicf__cuo_align(c, td, 0) : 0;
}

static void aicf__cuo_gemm_from_desc(const aicf__matmul_desc* md, aicf__k_gemm* g) {
    memset(g, 0, sizeof *g);
    g->M = md->M;
    g->N = md->N;
    g->K = md->K;
    g->lda = md->lda;
    g->ldb = md->ldb;
    g->ldd = md->ldc;
    g->trans_a = md->trans_a;
    g->trans_b = md->trans_b;
    g->batch = md->batch;
    g->stride_a = md->stride_a;
    g->stride_b = md->stride_b;
    g->stride_c = md->stride_c;
    g->stride_d = md->stride_c;
    g->alpha = md->alpha;
    g->beta = md->beta;
    g->relu = md->act == AICF__MM_ACT_RELU; /* the generated GEMM's one activation (a GELU desc never reaches it) */
}

/* cuBLASLt epilogue fusion: how many leading epilogue ops of the step the matmul itself can do:
   first a Mul or Div by a constant scalar (into alpha), then Adds of a row-broadcast vector [N] (the bias epilogue) or of a tensor shaped like the output
   (beta = 1 with C), then one activation: Relu, or Gelu in its tanh form (D = act(A B + C +
   bias); CUBLASLT_EPILOGUE_GELU computes x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))): a
   Gelu with approximate = "tanh", or with "none" (the erf form) where the policy's gelu_tanh
   allows the approximation. Fills *bias_t / *c_t (-1 if unused) and md->bias / beta / act.
   Additions commute, so the order of the Adds is free; the activation ends the run. */
static int aicf__cuo_mm_epi(const aicf__cuo* c, aicf__matmul_desc* md, int Y, int* bias_t, int* c_t) {
    int k = 0, act_done = 0;
    const aicf__step* st = c->st;
    int64_t ny = aicf__cuo_numel(c, Y);
    *bias_t = *c_t = -1;
    while (k < st->n_epi && !act_done) {
        const aicf__epi* e = &st->epi[k];
        /* a leading scale by a plan-time constant scalar (attention's 1/sqrt(d)) goes into alpha */
        if (k == 0 && md->beta == 0.0f && !md->bias && /* nothing else the scale would have to cover */
            (e->op == AICF__OP_Mul || (e->op == AICF__OP_Div && !e->operand_left)) && e->operand >= 0) {
            const aicf__tensor* t = &c->g->tensors[e->operand];
            float v;
            if ((t->flags & AICF__T_CONST) && t->data && t->dtype == AICF_DTYPE_FLOAT32 && t->data_bytes == sizeof(float)) {
                memcpy(&v, t->data, sizeof v);
                if (e->op == AICF__OP_Mul) md->alpha *= v;
                else md->alpha /= v;
                k++;
                continue;
            }
            break;
        }
        if (e->op == AICF__OP_Add && e->operand >= 0) {
            const aicf__shape* os = aicf__cuo_shape(c, e->operand);
            int64_t no = aicf__shape_numel(os);
            int row = os->rank >= 1 && os->d[os->rank - 1] == md->N && no == md->N;
            if (row && !md->bias && *bias_t < 0) {
                *bias_t = e->operand;
                md->bias = 1;
                k++;
                continue;
            }
            if (no == ny && aicf__same_shape(os, aicf__cuo_shape(c, Y)) && md->beta == 0.0f && *c_t < 0) {
                *c_t = e->operand;
                md->beta = 1.0f;
                k++;
                continue;
            }
            break;
        }
        if (e->op == AICF__OP_Relu && !md->act) {
            md->act = AICF__MM_ACT_RELU;
            act_done = 1;
            k++;
            continue;
        }
        /* aicf__op_epilogue_kind gives a Gelu alpha != 0 for approximate = "tanh" */
        if (e->op == AICF__OP_Gelu && !md->act && (e->alpha != 0.0f || c->p->policy.gelu_tanh)) {
            md->act = AICF__MM_ACT_GELU_TANH;
            act_done = 1;
            k++;
            continue;
        }
        break;
    }
    return k;
}

/* The name of the activation inside cuBLASLt's epilogue for the step's reason ("" when none); a
   Gelu of the erf form taken as the tanh form says that the policy allowed it. */
static const char* aicf__cuo_mm_act_name(const aicf__cuo* c, const aicf__matmul_desc* md) {
    int i;
    if (md->act == AICF__MM_ACT_RELU) return "relu";
    if (md->act != AICF__MM_ACT_GELU_TANH) return "";
    for (i = 0; i < c->st->n_epi && c->st->epi[i].op != AICF__OP_Gelu; i++) continue; /* the absorbed one: the first */
    return i < c->st->n_epi && c->st->epi[i].alpha == 0.0f ? "gelu (erf form taken as the tanh form: policy gelu_tanh)" : "gelu (tanh form)";
}

static aicf_result aicf__cuo_lower_gemv(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y);
static aicf_result aicf__cuo_lower_gemm_tc(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y,
                                           const char* lt_why);
static aicf_result aicf__cuo_lower_gemm_tcs(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y,
                                            const char* lt_why);
static aicf_result aicf__cuo_lower_gemm_wg(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y);
static aicf_result aicf__cuo_lower_ln_fold(aicf__cuo* c);
static aicf_result aicf__cuo_lower_ln_epi(aicf__cuo* c);
static aicf_result aicf__cuo_lower_gemm_ws(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y);
static int aicf__cuo_ws_wanted(const aicf__cuo* c, const aicf__matmul_desc* md);
/* 1 when the context loaded cuBLASLt */
static int aicf__cuo_lt_loaded(const aicf__cuo* c) {
#if !defined(AICF_NO_CUDA)
    return c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->lt_handle != NULL;
#else
    (void)c;
    return 0;
#endif
}

/* The AUTO rule with cuBLASLt loaded, for a GEMM whose chain cuBLASLt's epilogue holds only in
   part (n_native of the step's n_epi ops; mode 3, C broadcast-copied first, excluded): the rest
   would be a pass of its own, a launch after cuBLASLt's, so the Hopper GEMM (which applies at
   128 <= M <= 256: aicf__cuo_lower_gemm_wg) runs the whole chain in its epilogue instead. The MLP's
   Tanh output layer at batch 256 (M = 256, N = 64, K = 1024): 4.84 us against 5.77 for cuBLASLt and
   the pass, as the autotuner timed them (docs/benchmarks.md, session 48). */
static int aicf__cuo_wg_for_chain(const aicf__cuo* c, aicf_matmul_algo algo, int mode, int n_native) {
    return algo == AICF_MATMUL_AUTO && aicf__cuo_lt_loaded(c) && mode != 3 && n_native < c->st->n_epi;
}

/* The Hopper GEMM by the plain rule (aicf__cuo_lower_gemm_wg, 128 <= M <= 256): AUTO without
   cuBLASLt, or generated kernels asked for (the policy, a pin, the autotuner's candidate). */
static int aicf__cuo_wg_by_rule(const aicf__cuo* c) {
    aicf_matmul_algo algo = aicf__cuo_matmul_algo(c);
    return (algo == AICF_MATMUL_AUTO && !aicf__cuo_lt_loaded(c)) || algo == AICF_MATMUL_GENERATED;
}

static aicf_result aicf__cuo_lower_gemm(aicf__cuo* c) {
    const aicf__node* n = c->nd;
    int A = aicf__cuo_in(c, 0), B = aicf__cuo_in(c, 1), C = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), slot = -1;
    const aicf__shape* as = aicf__cuo_shape(c, A);
    const aicf__shape* bs = aicf__cuo_shape(c, B);
    int64_t ta = aicf__attr_i(n, "transA", 0), tb = aicf__attr_i(n, "transB", 0);
    float alpha = aicf__attr_f(n, "alpha", 1.0f), beta = aicf__attr_f(n, "beta", 1.0f);
    int64_t cm = 1, cn = 1, c_rs = 0, c_cs = 0;
    int has_c, mode = 0; /* cuBLASLt C term: 0 none, 1 C is [M,N], 2 bias epilogue, 3 broadcast copy */
    aicf__matmul_desc md;
    char why[192];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (as->rank != 2 || bs->rank != 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "inputs A and B must be 2-D");
    aicf__cuo_mm_desc(c, &md);
    md.trans_a = ta != 0;
    md.trans_b = tb != 0;
    md.M = ta ? as->d[1] : as->d[0];
    md.K = ta ? as->d[0] : as->d[1];
    md.N = tb ? bs->d[0] : bs->d[1];
    md.lda = as->d[1];
    md.ldb = bs->d[1];
    md.ldc = md.N;
    md.alpha = alpha;
    has_c = C >= 0 && beta != 0.0f;
    if (has_c) {
        const aicf__shape* cs = aicf__cuo_shape(c, C);
        if (cs->rank > 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 2 (C) has rank %d", cs->rank);
        if (cs->rank == 2) cm = cs->d[0];
        if (cs->rank >= 1) cn = cs->d[cs->rank - 1];
        c_rs = cm == 1 ? 0 : cn;
        c_cs = cn == 1 ? 0 : 1;
        if (cm == md.M && cn == md.N) mode = 1;
        else if (cm == 1 && cn == md.N && beta == 1.0f) mode = 2;
        else mode = 3;
        if (mode == 1 || mode == 3) md.beta = beta;
        if (mode == 2) md.bias = 1;
    }
    if (aicf__cuo_matmul_algo(c) != AICF_MATMUL_CUBLASLT) {
        r = aicf__cuo_lower_gemv(c, &md, A, B, has_c ? C : -1, beta, Y);
        if (r != AICF_ERROR_UNSUPPORTED) return r;
    }
    if (aicf__cuo_ws_wanted(c, &md)) { /* thousands of rows: the warp-specialised Hopper GEMM */
        r = aicf__cuo_lower_gemm_ws(c, &md, A, B, has_c ? C : -1, beta, Y);
        if (r != AICF_ERROR_UNSUPPORTED) return r;
    }
    if (aicf__cuo_wg_by_rule(c)) {
        /* without cuBLASLt, or generated kernels asked for (policy, pin, autotuning): the Hopper GEMM */
        r = aicf__cuo_lower_gemm_wg(c, &md, A, B, has_c ? C : -1, beta, Y);
        if (r != AICF_ERROR_UNSUPPORTED) return r;
    }
    {
        aicf__matmul_desc plain = md;
        int n_native = 0, ebias = -1, ec = -1;
        aicf_matmul_algo algo = aicf__cuo_matmul_algo(c);
        if (mode != 3 && algo != AICF_MATMUL_GENERATED) n_native = aicf__cuo_mm_epi(c, &md, Y, &ebias, &ec);
        if (aicf__cuo_wg_for_chain(c, algo, mode, n_native)) { /* the chain in one launch: the Hopper GEMM */
            r = aicf__cuo_lower_gemm_wg(c, &plain, A, B, has_c ? C : -1, beta, Y);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        /* generated kernels asked for (policy, pin, autotuning): the tensor-core GEMM where it
           applies. Not by the AUTO rule: cuBLASLt and a chain pass measured faster (the encoder's
           GELU layers, docs/benchmarks.md) */
        if (algo == AICF_MATMUL_GENERATED) {
            r = aicf__cuo_lower_gemm_tc(c, &plain, A, B, has_c ? C : -1, beta, Y, NULL);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        aicf__cuo_mm_align(c, &md, A, B, mode == 1 ? C : (mode == 3 ? Y : ec), Y);
        if (md.K > 0 && aicf__cuo_matmul_algo(c) != AICF_MATMUL_GENERATED) {
            if ((r = aicf__cuo_mm_plan(c, &md, &slot, why, sizeof why)) != AICF_SUCCESS) return r;
        } else {
            snprintf(why, sizeof why, md.K > 0 ? "policy: generated GEMM" : "K = 0");
        }
        if (slot < 0 && n_native > 0) { /* the generated kernel: no epilogue inside */
            md = plain;
            n_native = 0;
            ebias = ec = -1;
        }
        if (slot >= 0 && n_native > 0) {
            c->st->epi_native = n_native;
            if ((r = aicf__cuo_mm_push(c, &md, slot, A, 0, B, 0, mode == 1 ? C : ec, 0, Y, 0,
                                       mode == 2 ? C : ebias)) != AICF_SUCCESS)
                return r;
            aicf__cuo_reason(c, "%.100s; M=%lld N=%lld K=%lld%s; epilogue inside cuBLASLt:%s%s%s%s", why, (long long)md.M,
                             (long long)md.N, (long long)md.K, mode == 2 ? ", C as bias" : "", ebias >= 0 ? " bias" : "",
                             ec >= 0 ? " residual (beta C)" : "", md.act ? " " : "", aicf__cuo_mm_act_name(c, &md));
            return AICF_SUCCESS;
        }
    }
    if (slot >= 0) {
        if (mode == 3) { /* C broadcast into Y, then Y = alpha A B + beta Y */
            int64_t shape[2], sx[2];
            shape[0] = md.M;
            shape[1] = md.N;
            sx[0] = c_rs;
            sx[1] = c_cs;
            if ((r = aicf__cuo_permute(c, C, 0, Y, 0, shape, 2, sx)) != AICF_SUCCESS) return r;
        }
        if ((r = aicf__cuo_mm_push(c, &md, slot, A, 0, B, 0, mode == 1 ? C : (mode == 3 ? Y : -1), 0, Y, 0,
                                   mode == 2 ? C : -1)) != AICF_SUCCESS)
            return r;
        aicf__cuo_reason(c, "%.110s; M=%lld N=%lld K=%lld%s", why, (long long)md.M, (long long)md.N, (long long)md.K,
                         mode == 2 ? ", C as bias epilogue" : (mode == 3 ? ", C broadcast-copied into Y first" : ""));
    } else {
        aicf__k_gemm g;
        const char* v;
        /* no cuBLASLt algorithm: the tensor-core GEMM where it applies (already tried when
           generated kernels were asked for), else the tiled one */
        if (aicf__cuo_matmul_algo(c) != AICF_MATMUL_GENERATED) {
            r = aicf__cuo_lower_gemm_tc(c, &md, A, B, has_c ? C : -1, beta, Y, why);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        aicf__cuo_gemm_from_desc(&md, &g);
        g.beta = has_c ? beta : 0.0f;
        g.c_rs = c_rs;
        g.c_cs = c_cs;
        if ((r = aicf__cuo_gemm_kernel(c, &g, A, 0, B, 0, has_c ? C : -1, 0, Y, 0, &v)) != AICF_SUCCESS) return r;
        aicf__cuo_reason(c, "generated %s GEMM M=%lld N=%lld K=%lld%s (cuBLASLt: %.80s)", v, (long long)md.M, (long long)md.N,
                         (long long)md.K, has_c ? ", C strided" : "", why);
    }
    return AICF_SUCCESS;
}

/* MatMul (numpy semantics): one GEMM when B has no batch (A's batch folds into M), else a
   strided-batched GEMM over the innermost collapsed batch dim, repeated over the outer ones. */
static aicf_result aicf__cuo_lower_matmul(aicf__cuo* c) {
    int A = aicf__cuo_in(c, 0), B = aicf__cuo_in(c, 1), Y = aicf__cuo_out(c, 0), slot = -1, i, R, k;
    const aicf__shape* as = aicf__cuo_shape(c, A);
    const aicf__shape* bs = aicf__cuo_shape(c, B);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int ra = as->rank, rb = bs->rank;
    int64_t M, N, K, nbB, nrep = 1, inner_count = 1, sa_in = 0, sb_in = 0;
    aicf__shape ba, bb, ob;
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK], std_[AICF_MAX_RANK], shape[AICF_MAX_RANK];
    int64_t* st[3];
    int64_t idx[AICF_MAX_RANK];
    aicf__matmul_desc md;
    char why[192];
    const char* v = "";
    int mm_bias = -1, mm_c = -1;
    aicf_result r;
    if (c->st->pro > 0) return aicf__cuo_lower_ln_fold(c); /* a LayerNorm folded in (aicf__fuse_ln_prologue) */
    if (c->st->post > 0) return aicf__cuo_lower_ln_epi(c);  /* the LayerNorm after it (aicf__fuse_ln_epilogue) */
    if ((r = aicf__cuo_floats(c, 2)) != AICF_SUCCESS) return r;
    if (ra < 1 || rb < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "MatMul needs inputs of rank >= 1");
    M = ra >= 2 ? as->d[ra - 2] : 1;
    K = as->d[ra - 1];
    N = rb >= 2 ? bs->d[rb - 1] : 1;
    if (c->nd->trans_b && rb >= 2) N = bs->d[rb - 2]; /* an absorbed Transpose: B stored [..., N, K] */
    memset(&ba, 0, sizeof ba);
    memset(&bb, 0, sizeof bb);
    memset(&ob, 0, sizeof ob);
    ba.rank = ra >= 2 ? ra - 2 : 0;
    for (i = 0; i < ba.rank; i++) ba.d[i] = as->d[i];
    bb.rank = rb >= 2 ? rb - 2 : 0;
    for (i = 0; i < bb.rank; i++) bb.d[i] = bs->d[i];
    ob.rank = ys->rank - (ra >= 2) - (rb >= 2);
    if (ob.rank < 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output rank %d does not fit the inputs", ys->rank);
    for (i = 0; i < ob.rank; i++) ob.d[i] = ys->d[i];
    nbB = aicf__shape_numel(&bb);
    aicf__cuo_mm_desc(c, &md);
    md.N = N;
    md.K = K;
    md.lda = K;
    md.ldb = N;
    md.ldc = N;
    if (c->nd->trans_b && rb >= 2) {
        md.trans_b = 1;
        md.ldb = K;
    }
    R = 0;
    if (nbB == 1) { /* fold A's batch into M */
        md.M = M * aicf__shape_numel(&ob);
    } else {
        aicf__cuo_bstrides(&ba, &ob, sta);
        aicf__cuo_bstrides(&bb, &ob, stb);
        {
            int64_t s = M * N;
            for (i = ob.rank - 1; i >= 0; i--) {
                std_[i] = s;
                s *= ob.d[i];
            }
        }
        for (i = 0; i < ob.rank; i++) {
            sta[i] *= M * K;
            stb[i] *= K * N;
            shape[i] = ob.d[i];
        }
        st[0] = sta;
        st[1] = stb;
        st[2] = std_;
        R = aicf__cuo_collapse(shape, ob.rank, st, 3);
        md.M = M;
        if (R > 0) {
            inner_count = shape[R - 1];
            sa_in = sta[R - 1];
            sb_in = stb[R - 1];
            for (i = 0; i < R - 1; i++) nrep *= shape[i];
        }
        if (nrep > AICF__CUO_MAX_OPS)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                                  "batch broadcasting needs %lld separate GEMMs (limit %d)", (long long)nrep, AICF__CUO_MAX_OPS);
        md.batch = inner_count;
        md.stride_a = sa_in;
        md.stride_b = sb_in;
        md.stride_c = M * N;
    }
    aicf__cuo_mm_align(c, &md, A, B, -1, Y);
    memset(idx, 0, sizeof idx);
    for (k = 0; k < nrep; k++) { /* the alignment must hold for every repetition */
        uint64_t oa = 0, obb = 0, od = 0, al;
        for (i = 0; i < R - 1; i++) {
            oa += (uint64_t)(idx[i] * sta[i]);
            obb += (uint64_t)(idx[i] * stb[i]);
            od += (uint64_t)(idx[i] * std_[i]);
        }
        if ((al = aicf__cuo_align(c, A, oa * c->es)) < md.a) md.a = al;
        if ((al = aicf__cuo_align(c, B, obb * c->es)) < md.b) md.b = al;
        if ((al = aicf__cuo_align(c, Y, od * c->es)) < md.d) md.d = al;
        for (i = R - 2; i >= 0; i--) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    {
        aicf__matmul_desc plain = md;
        int n_native = 0;
        aicf_matmul_algo algo = aicf__cuo_matmul_algo(c);
        if (nrep == 1 && algo != AICF_MATMUL_GENERATED) {
            n_native = aicf__cuo_mm_epi(c, &md, Y, &mm_bias, &mm_c);
            if (mm_c >= 0) md.c = aicf__cuo_align(c, mm_c, 0);
        }
        if (nrep == 1 && aicf__cuo_wg_for_chain(c, algo, 0, n_native)) { /* as in aicf__cuo_lower_gemm */
            r = aicf__cuo_lower_gemm_wg(c, &plain, A, B, -1, 0.0f, Y);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        if (nrep == 1 && aicf__cuo_ws_wanted(c, &plain)) { /* as in aicf__cuo_lower_gemm */
            r = aicf__cuo_lower_gemm_ws(c, &plain, A, B, -1, 0.0f, Y);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        if (nrep == 1 && aicf__cuo_wg_by_rule(c)) { /* the Hopper GEMM: as in aicf__cuo_lower_gemm */
            r = aicf__cuo_lower_gemm_wg(c, &plain, A, B, -1, 0.0f, Y);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        /* the tensor-core GEMM: as in aicf__cuo_lower_gemm (one GEMM: B without batch) */
        if (nrep == 1 && algo == AICF_MATMUL_GENERATED) {
            r = aicf__cuo_lower_gemm_tc(c, &plain, A, B, -1, 0.0f, Y, NULL);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
        if (K > 0 && aicf__cuo_matmul_algo(c) != AICF_MATMUL_GENERATED) {
            if ((r = aicf__cuo_mm_plan(c, &md, &slot, why, sizeof why)) != AICF_SUCCESS) return r;
        } else {
            snprintf(why, sizeof why, K > 0 ? "policy: generated GEMM" : "K = 0");
        }
        if (slot < 0 || n_native == 0) {
            if (n_native) md = plain;
            n_native = 0;
            mm_bias = mm_c = -1;
        }
        c->st->epi_native = n_native;
        if (slot < 0 && nrep == 1 && algo != AICF_MATMUL_GENERATED) { /* no cuBLASLt algorithm: the tensor-core GEMM */
            r = aicf__cuo_lower_gemm_tc(c, &plain, A, B, -1, 0.0f, Y, why);
            if (r != AICF_ERROR_UNSUPPORTED) return r;
        }
    }
    memset(idx, 0, sizeof idx);
    for (k = 0; k < nrep; k++) {
        uint64_t oa = 0, obb = 0, od = 0;
        for (i = 0; i < R - 1; i++) {
            oa += (uint64_t)(idx[i] * sta[i]);
            obb += (uint64_t)(idx[i] * stb[i]);
            od += (uint64_t)(idx[i] * std_[i]);
        }
        oa *= c->es;
        obb *= c->es;
        od *= c->es;
        if (slot >= 0) {
            if ((r = aicf__cuo_mm_push(c, &md, slot, A, oa, B, obb, mm_c, 0, Y, od, mm_bias)) != AICF_SUCCESS) return r;
        } else {
            aicf__k_gemm g;
            aicf__cuo_gemm_from_desc(&md, &g);
            g.beta = 0.0f;
            if ((r = aicf__cuo_gemm_kernel(c, &g, A, oa, B, obb, -1, 0, Y, od, &v)) != AICF_SUCCESS) return r;
        }
        for (i = R - 2; i >= 0; i--) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    if (slot >= 0)
        aicf__cuo_reason(c, "%.100s; M=%lld N=%lld K=%lld batch=%lld%s%s%s%s%s%s", why, (long long)md.M, (long long)N, (long long)K,
                         (long long)md.batch, md.trans_b ? ", B transposed (Transpose absorbed)" : "",
                         nbB == 1 && ob.rank > 0 ? " (batch folded into M)" : "", mm_bias >= 0 ? "; cuBLASLt epilogue: bias" : "",
                         mm_c >= 0 ? ", residual (beta C)" : "", md.act ? ", " : "", aicf__cuo_mm_act_name(c, &md));
    else
        aicf__cuo_reason(c, "generated %s GEMM M=%lld N=%lld K=%lld batch=%lld x%lld%s (cuBLASLt: %.70s)", v, (long long)md.M,
                         (long long)N, (long long)K, (long long)md.batch, (long long)nrep,
                         md.trans_b ? ", B transposed (Transpose absorbed)" : "", why);
    return AICF_SUCCESS;
}

/* ---- sliding windows: Conv, MaxPool, AveragePool (1-D as 2-D with H = 1) ---- */

typedef struct aicf__cuo_win {
    int64_t N, C, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, phe, pwe;
} aicf__cuo_win;

/* Geometry of x -> y with kernel dims k[nsp], as the ONNX attributes (auto_pad, pads, strides,
   dilations) give it; y's spatial size is already inferred. */
static aicf_result aicf__cuo_window(aicf__cuo* c, const aicf__shape* x, const aicf__shape* y, const int64_t* k,
                                    aicf__cuo_win* w) {
    int nsp = x->rank - 2, i, cnt;
    int64_t in[2], out[2], kk[2], s[2], d[2], pb[2], pe[2];
    const int64_t* v = NULL;
    const char* ap = aicf__attr_s(c->nd, "auto_pad", "NOTSET");
    if (nsp == 3)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "3-D (rank 5) data is not supported on the device yet");
    if (nsp < 1 || nsp > 2 || y->rank != x->rank)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input rank %d is not supported on the device (1-D or 2-D NCHW)",
                              x->rank);
    for (i = 0; i < 2; i++) {
        in[i] = out[i] = kk[i] = s[i] = d[i] = 1;
        pb[i] = pe[i] = 0;
    }
    for (i = 0; i < nsp; i++) {
        in[2 - nsp + i] = x->d[2 + i];
        out[2 - nsp + i] = y->d[2 + i];
        kk[2 - nsp + i] = k[i];
    }
    cnt = aicf__attr_ints(c->nd, "strides", &v);
    if (cnt == nsp)
        for (i = 0; i < nsp; i++) s[2 - nsp + i] = v[i];
    cnt = aicf__attr_ints(c->nd, "dilations", &v);
    if (cnt == nsp)
        for (i = 0; i < nsp; i++) d[2 - nsp + i] = v[i];
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        for (i = 2 - nsp; i < 2; i++) {
            int64_t dk = (kk[i] - 1) * d[i] + 1, total = (out[i] - 1) * s[i] + dk - in[i];
            if (total < 0) total = 0;
            pb[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            pe[i] = total - pb[i];
        }
    } else if (strcmp(ap, "VALID") != 0) {
        cnt = aicf__attr_ints(c->nd, "pads", &v);
        if (cnt == 2 * nsp)
            for (i = 0; i < nsp; i++) {
                pb[2 - nsp + i] = v[i];
                pe[2 - nsp + i] = v[nsp + i];
            }
    }
    w->N = x->d[0];
    w->C = x->d[1];
    w->H = in[0];
    w->W = in[1];
    w->OH = out[0];
    w->OW = out[1];
    w->KH = kk[0];
    w->KW = kk[1];
    w->sh = s[0];
    w->sw = s[1];
    w->dh = d[0];
    w->dw = d[1];
    w->ph = pb[0];
    w->pw = pb[1];
    w->phe = pe[0];
    w->pwe = pe[1];
    /* the kernels index rows and columns with 32-bit ints */
    if (w->H > 0x3fffffff || w->W > 0x3fffffff || w->OH * w->sh > 0x3fffffff || w->OW * w->sw > 0x3fffffff ||
        (w->KH - 1) * w->dh > 0x3fffffff || (w->KW - 1) * w->dw > 0x3fffffff)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "spatial sizes beyond 2^30 are not supported on the device");
    return AICF_SUCCESS;
}

/* src/82_cuda_conv.c: Conv as (im2col +) cuBLASLt GEMM when policy.conv_algo or its cost model
   picks it (*done = 1); otherwise why[] says why not. */
static aicf_result aicf__cuc_lower_gemm(aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, char* why,
                                        size_t cap, int* done);

static aicf_result aicf__cuo_lower_conv(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), done = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ws = aicf__cuo_shape(c, Wt);
    int64_t group = aicf__attr_i(c->nd, "group", 1), M, Cg, Mg, Kg, NP;
    aicf__cuo_win w;
    aicf__k_conv2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], why[192];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (xs->rank == 5) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "3-D convolution is not supported on the device yet");
    if ((r = aicf__cuo_window(c, xs, aicf__cuo_shape(c, Y), ws->d + 2, &w)) != AICF_SUCCESS) return r;
    M = ws->d[0];
    if (group < 1 || w.C % group || M % group) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "group %lld does not divide C and M", (long long)group);
    Cg = w.C / group;
    Mg = M / group;
    Kg = Cg * w.KH * w.KW;
    NP = w.N * w.OH * w.OW;
    memset(&a, 0, sizeof a);
    a.N = w.N;
    a.C = w.C;
    a.H = w.H;
    a.W = w.W;
    a.M = M;
    a.OH = w.OH;
    a.OW = w.OW;
    a.KH = w.KH;
    a.KW = w.KW;
    a.group = group;
    a.pad_h = w.ph;
    a.pad_w = w.pw;
    a.stride_h = w.sh;
    a.stride_w = w.sw;
    a.dil_h = w.dh;
    a.dil_w = w.dw;
    /* im2col + cuBLASLt GEMM, or the input itself as the GEMM's B for a pointwise conv */
    if ((r = aicf__cuc_lower_gemm(c, &w, M, group, why, sizeof why, &done)) != AICF_SUCCESS || done) return r;
    if (Mg >= 16 && Kg >= 16 && NP >= 64 && group <= 65535 && (Mg + 63) / 64 <= 65535 && (NP + 63) / 64 <= 0x7fffffff) {
        grid[0] = (unsigned)((NP + 63) / 64);
        grid[1] = (unsigned)((Mg + 63) / 64);
        grid[2] = (unsigned)group;
        block[0] = AICF__CUO_BLOCK;
        block[1] = block[2] = 1;
        snprintf(name, sizeof name, "aicf_conv2d_igemm_%s", aicf__cuo_dtn(c));
        aicf__cuo_reason(c, "implicit GEMM 64x64x16: M=%lld N=%lld K=%lld per group, %lld groups (%.100s)", (long long)Mg,
                         (long long)NP, (long long)Kg, (long long)group, why);
    } else {
        aicf__cuo_dims1(w.N * M * w.OH * w.OW, grid, block);
        snprintf(name, sizeof name, "aicf_conv2d_direct_%s", aicf__cuo_dtn(c));
        aicf__cuo_reason(c, "direct conv (one thread per output): %lld channels/group, K=%lld per output (%.100s)", (long long)Mg,
                         (long long)Kg, why);
    }
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d, bias), Bi, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, y), Y, 0);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_pool(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), cnt;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const int64_t* ks = NULL;
    int is_max = c->nd->op == AICF__OP_MaxPool;
    aicf__cuo_win w;
    aicf__k_pool2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (is_max && aicf__cuo_out(c, 1) >= 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "output 1 (Indices) is not supported");
    cnt = aicf__attr_ints(c->nd, "kernel_shape", &ks);
    if (cnt != xs->rank - 2) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values", cnt);
    if ((r = aicf__cuo_window(c, xs, aicf__cuo_shape(c, Y), ks, &w)) != AICF_SUCCESS) return r;
    memset(&a, 0, sizeof a);
    a.NC = w.N * w.C;
    a.H = w.H;
    a.W = w.W;
    a.OH = w.OH;
    a.OW = w.OW;
    a.KH = w.KH;
    a.KW = w.KW;
    a.pad_h = w.ph;
    a.pad_w = w.pw;
    a.pad_h_end = w.phe;
    a.pad_w_end = w.pwe;
    a.stride_h = w.sh;
    a.stride_w = w.sw;
    a.dil_h = w.dh;
    a.dil_w = w.dw;
    a.count_include_pad = is_max ? 0 : aicf__attr_i(c->nd, "count_include_pad", 0) != 0;
    snprintf(name, sizeof name, "aicf_%s_%s", is_max ? "maxpool2d" : "avgpool2d", aicf__cuo_dtn(c));
    /* a 3x3 MaxPool (resnet's): 64 threads per output row, the window unrolled, no index
       divisions per element (resnet18's [32,64,112,112] -> [32,64,56,56] at fp16 on an H100:
       63.4 us against the generic kernel's 73.3: docs/benchmarks.md) */
    if (is_max && w.KH == 3 && w.KW == 3 && w.H * w.W < ((int64_t)1 << 31) && (a.NC * a.OH + 3) / 4 < ((int64_t)1 << 31) &&
        w.OW < ((int64_t)1 << 31) - 64) {
        char n3[48];
        snprintf(n3, sizeof n3, "aicf_maxpool3x3_%s", aicf__cuo_dtn(c));
        if (aicf__cuda_kernel_find(n3) >= 0) {
            memcpy(name, n3, sizeof n3);
            grid[0] = (unsigned)((a.NC * a.OH + 3) / 4);
            grid[1] = grid[2] = 1;
            block[0] = 256;
            block[1] = block[2] = 1;
        }
    }
    /* 3x3 stride 2 at float16 (resnet's stem pool): a warp per output row, two outputs a lane
       from one 8-byte and one 2-byte load per input row, one 4-byte store (W % 4 == 0, OW even,
       dilation 1, pad_w <= 1; x 8-byte and y 4-byte aligned) */
    if (!strncmp(name, "aicf_maxpool3x3", 15) && c->es == 2 && w.sh == 2 && w.sw == 2 && w.dh == 1 && w.dw == 1 && w.pw <= 1 &&
        w.W % 4 == 0 && w.OW % 2 == 0 && aicf__cuo_align(c, X, 0) >= 8 && aicf__cuo_align(c, Y, 0) >= 4 &&
        (a.NC * a.OH + 7) / 8 < ((int64_t)1 << 31) && aicf__cuda_kernel_find("aicf_maxpool3x3s2_f16") >= 0) {
        snprintf(name, sizeof name, "aicf_maxpool3x3s2_f16");
        grid[0] = (unsigned)((a.NC * a.OH + 7) / 8);
    }
    if (strncmp(name, "aicf_maxpool3x3", 15) != 0) aicf__cuo_dims1(a.NC * a.OH * a.OW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_pool2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_pool2d, y), Y, 0);
    aicf__cuo_reason(c, "%s, window %lldx%lld stride %lldx%lld%s",
                     strncmp(name, "aicf_maxpool3x3", 15)  ? "one thread per output"
                     : !strcmp(name, "aicf_maxpool3x3s2_f16") ? "8 output rows per block, a warp per row, 2 outputs a lane"
                                                              : "4 output rows per block, 64 threads per row",
                     (long long)w.KH, (long long)w.KW, (long long)w.sh, (long long)w.sw, xs->rank == 3 ? " (1-D as 2-D with H = 1)" : "");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_gap(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_rowmean a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    memset(&a, 0, sizeof a);
    a.rows = xs->d[0] * xs->d[1];
    a.n = aicf__cuo_prod(xs, 2, xs->rank);
    if (a.n == 0) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "empty spatial extent (the mean is NaN)");
    /* rows of <= 1024: a warp per row, 8 per block (templates/pool.cu.j2 decides by the same n) */
    grid[0] = (unsigned)AICF__MIN(a.n <= 1024 ? (a.rows + 7) / 8 : a.rows, AICF__CUO_MAX_GRID);
    grid[1] = grid[2] = 1;
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    snprintf(name, sizeof name, "aicf_rowmean_%s", aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_rowmean, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_rowmean, y), Y, 0);
    aicf__cuo_reason(c, a.n <= 1024 ? "one warp per (n,c): %lld rows of %lld, fixed butterfly reduction"
                                    : "one block per (n,c): %lld rows of %lld, fixed tree reduction",
                     (long long)a.rows, (long long)a.n);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_bn(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_batchnorm a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    static const size_t fields[4] = {offsetof(aicf__k_batchnorm, scale), offsetof(aicf__k_batchnorm, bias),
                                     offsetof(aicf__k_batchnorm, mean), offsetof(aicf__k_batchnorm, var)};
    if ((r = aicf__cuo_floats(c, 5)) != AICF_SUCCESS) return r;
    for (i = 1; i < c->st->n_out; i++)
        if (aicf__cuo_out(c, i) >= 0) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "training-mode outputs are not supported");
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    for (i = 1; i < 5; i++)
        if (aicf__cuo_in(c, i) < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.HW = aicf__cuo_prod(xs, 2, xs->rank);
    a.per_act = aicf__cuo_opset(c) < 9 && aicf__attr_i(c->nd, "spatial", 1) == 0;
    a.epsilon = aicf__attr_f(c->nd, "epsilon", 1e-5f);
    snprintf(name, sizeof name, "aicf_batchnorm_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.C * a.HW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_batchnorm, x), X, 0);
    for (i = 0; i < 4; i++) aicf__cuo_patch(op, fields[i], aicf__cuo_in(c, i + 1), 0);
    aicf__cuo_patch(op, offsetof(aicf__k_batchnorm, y), Y, 0);
    aicf__cuo_reason(c, "standalone per-%s affine (not folded into a Conv)", a.per_act ? "activation" : "channel");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_lrn(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_lrn a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.HW = aicf__cuo_prod(xs, 2, xs->rank);
    a.size = aicf__attr_i(c->nd, "size", 1);
    if (a.size < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'size' must be >= 1");
    a.alpha = aicf__attr_f(c->nd, "alpha", 1e-4f);
    a.beta = aicf__attr_f(c->nd, "beta", 0.75f);
    a.bias = aicf__attr_f(c->nd, "bias", 1.0f);
    snprintf(name, sizeof name, "aicf_lrn_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.C * a.HW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_lrn, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_lrn, y), Y, 0);
    aicf__cuo_reason(c, "one thread per element, window of %lld channels", (long long)a.size);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_softmax(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), rank;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t axis = aicf__attr_i(c->nd, "axis", aicf__cuo_opset(c) < 13 ? 1 : -1);
    aicf__k_softmax a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    const char* v;
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    rank = xs->rank;
    if (rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' is out of range");
    memset(&a, 0, sizeof a);
    a.outer = aicf__cuo_prod(xs, 0, (int)axis);
    if (aicf__cuo_opset(c) < 13) {
        a.n = aicf__cuo_prod(xs, (int)axis, rank);
        a.inner = 1;
    } else {
        a.n = xs->d[axis];
        a.inner = aicf__cuo_prod(xs, (int)axis + 1, rank);
    }
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.inner > 1) {
        v = "strided";
        aicf__cuo_dims1(a.outer * a.inner, grid, block);
        aicf__cuo_reason(c, "inner size %lld > 1: one thread per column of %lld", (long long)a.inner, (long long)a.n);
    } else if (a.n <= 1024) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.outer + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "rows of %lld <= 1024: one warp per row, %lld rows", (long long)a.n, (long long)a.outer);
    } else {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.outer, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "rows of %lld > 1024: one block per row, %lld rows", (long long)a.n, (long long)a.outer);
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_%s_%s_%s", c->nd->op == AICF__OP_LogSoftmax ? "logsoftmax" : "softmax", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_softmax, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_softmax, y), Y, 0);
    return AICF_SUCCESS;
}

/* The tensor-core attention kernel addresses one (batch, head) slice with 32-bit offsets
   (templates/attention.cu.j2): the row offsets of Q, K, V, O and the mask, for rows up to 64
   past the last (formed, never dereferenced), plus a row, must stay below 2^31 elements; every
   stride must be non-negative. 1 if so. */
static int aicf__attention_off32(const aicf__k_attention* a) {
    const int64_t lim = (int64_t)1 << 31;
    const int64_t st[6] = {a->qs, a->ks, a->vs, a->os, a->mi, a->mj};
    int i;
    for (i = 0; i < 6; i++)
        if (st[i] < 0 || st[i] >= lim) return 0;
    /* the batch and head offsets are 64-bit products in the kernel */
    if (a->qb < 0 || a->kb < 0 || a->vb < 0 || a->ob < 0 || a->qh < 0 || a->kh < 0 || a->vh < 0 || a->oh < 0 || a->mb < 0 || a->mh < 0)
        return 0;
    if (a->Sq + 64 >= lim || a->Skv + 64 >= lim) return 0;
    /* rows up to a 64-multiple past Sq / Skv are formed (never dereferenced) */
    return (a->Sq + 64) * a->qs + a->D < lim && (a->Skv + 64) * a->ks + a->D < lim && (a->Skv + 64) * a->vs + a->Dv < lim &&
           (a->Sq + 64) * a->os + a->Dv < lim && (a->Sq + 64) * a->mi + (a->mlen + 64) * a->mj < lim;
}

/* ---- Attention (ONNX opset 23, and the plan's attention fusion): one launch ----
   Supported on the device: 3-D or 4-D Q, K, V (grouped-query heads), a float attn_mask that
   broadcasts to [B, qH, Sq, Skv] (a shorter last axis reads as -inf, as ONNX pads it),
   is_causal, scale. Not on the device (AICF_ERROR_UNSUPPORTED, naming the input or attribute):
   past_key / past_value, nonpad_kv_seqlen, outputs 1-3, softcap, sliding windows, bool masks.
   Kernel: the tensor-core one (float16, D = Dv in {32, 64, 128}, strides and addresses 16-byte
   aligned, B and heads <= 65535, offsets in a head within 32 bits), else one warp per query row
   (D, Dv <= 256). */
static aicf_result aicf__cuo_lower_attention(aicf__cuo* c) {
    const aicf__node* n = c->nd;
    int Q = aicf__cuo_in(c, 0), K = aicf__cuo_in(c, 1), V = aicf__cuo_in(c, 2), M = aicf__cuo_in(c, 3), Y = aicf__cuo_out(c, 0);
    const aicf__shape *qs, *ks, *vs;
    aicf__k_attention a;
    int64_t qH, kvH, hd_check;
    uint64_t voff[4] = {0, 0, 0, 0}; /* byte offsets of the views into their tensors */
    int i, r3, tc = 0, off32;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], b1[96];
    float sc;
    aicf_result r;
    for (i = 4; i < 7; i++)
        if (aicf__cuo_in(c, i) >= 0)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d (%s) has no device kernel (only the CPU reference runs it)", i,
                                  i == 4 ? "past_key" : i == 5 ? "past_value" : "nonpad_kv_seqlen");
    for (i = 1; i < c->st->n_out; i++)
        if (aicf__cuo_out(c, i) >= 0)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "output %d (%s) has no device kernel (only the CPU reference computes it)", i,
                                  i == 1 ? "present_key" : i == 2 ? "present_value" : "qk_matmul_output");
    if (aicf__attr_f(n, "softcap", 0.0f) != 0.0f)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "attribute 'softcap' has no device kernel (only the CPU reference runs it)");
    if (aicf__attr_i(n, "left_window_size", -1) != -1 || aicf__attr_i(n, "right_window_size", -1) != -1)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "attributes 'left_window_size' / 'right_window_size' have no device kernel (only the CPU reference runs them)");
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (M >= 0 && c->g->tensors[M].dtype != AICF_DTYPE_FLOAT32)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input 3 '%.200s' (attn_mask) is %s; the device kernel takes float masks only",
                              aicf__tname(c->g, M), aicf_dtype_name(c->g->tensors[M].dtype));
    /* the operands' shapes are the node's tensors; with views (aicf__attention_views) the step
       reads and writes other tensors' storage at the views' strides */
    qs = aicf__cuo_shape(c, n->in[0]);
    ks = aicf__cuo_shape(c, n->in[1]);
    vs = aicf__cuo_shape(c, n->in[2]);
    memset(&a, 0, sizeof a);
    r3 = qs->rank == 3;
    if (r3) {
        qH = aicf__attr_i(n, "q_num_heads", 0);
        kvH = aicf__attr_i(n, "kv_num_heads", 0);
        if (qH < 1 || kvH < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "3-D inputs need q_num_heads and kv_num_heads >= 1");
        a.Sq = qs->d[1];
        a.Skv = ks->d[1];
        a.D = qs->d[2] / qH;
        a.Dv = vs->d[2] / kvH;
        /* [B, S, heads * size]: batch, head, sequence strides */
        a.qb = a.Sq * qH * a.D, a.qh = a.D, a.qs = qH * a.D;
        a.kb = a.Skv * kvH * a.D, a.kh = a.D, a.ks = kvH * a.D;
        a.vb = a.Skv * kvH * a.Dv, a.vh = a.Dv, a.vs = kvH * a.Dv;
        a.ob = a.Sq * qH * a.Dv, a.oh = a.Dv, a.os = qH * a.Dv;
    } else {
        qH = qs->d[1];
        kvH = ks->d[1];
        a.Sq = qs->d[2];
        a.Skv = ks->d[2];
        a.D = qs->d[3];
        a.Dv = vs->d[3];
        a.qb = qH * a.Sq * a.D, a.qh = a.Sq * a.D, a.qs = a.D;
        a.kb = kvH * a.Skv * a.D, a.kh = a.Skv * a.D, a.ks = a.D;
        a.vb = kvH * a.Skv * a.Dv, a.vh = a.Skv * a.Dv, a.vs = a.Dv;
        a.ob = qH * a.Sq * a.Dv, a.oh = a.Sq * a.Dv, a.os = a.Dv;
    }
    a.B = qs->d[0];
    a.H = qH;
    a.grp = qH / kvH;
    if (n->views) {
        const aicf__views* w = n->views;
        int64_t* dst[4][3];
        dst[0][0] = &a.qb, dst[0][1] = &a.qh, dst[0][2] = &a.qs;
        dst[1][0] = &a.kb, dst[1][1] = &a.kh, dst[1][2] = &a.ks;
        dst[2][0] = &a.vb, dst[2][1] = &a.vh, dst[2][2] = &a.vs;
        dst[3][0] = &a.ob, dst[3][1] = &a.oh, dst[3][2] = &a.os;
        if (r3) return aicf__cuo_fail(c, AICF_ERROR_STATE, "strided views of 3-D attention operands");
        for (i = 0; i < 4; i++) {
            if (w->v[i].base < 0) continue;
            if (w->v[i].st[3] != 1) return aicf__cuo_fail(c, AICF_ERROR_STATE, "view %d: the last axis is not contiguous", i);
            *dst[i][0] = w->v[i].st[0], *dst[i][1] = w->v[i].st[1], *dst[i][2] = w->v[i].st[2];
            voff[i] = (uint64_t)w->v[i].off * c->es;
        }
    }
    hd_check = a.D > a.Dv ? a.D : a.Dv;
    if (hd_check > 256 || a.D < 1 || a.Dv < 1)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "head sizes D = %lld, Dv = %lld: the device kernel takes 1 to 256",
                              (long long)a.D, (long long)a.Dv);
    sc = (float)(1.0 / sqrt((double)a.D));
    if (aicf__attr(n, "scale")) sc = aicf__attr_f(n, "scale", sc);
    a.scale = sc;
    a.causal = aicf__attr_i(n, "is_causal", 0) != 0;
    a.mlen = a.Skv;
    if (M >= 0) {
        const aicf__shape* ms = aicf__cuo_shape(c, M);
        int64_t st = 1, want[4], strd[4] = {0, 0, 0, 0};
        int mr = ms->rank, k;
        want[0] = a.B, want[1] = qH, want[2] = a.Sq, want[3] = a.Skv;
        if (mr < 1 || mr > 4 || ms->d[mr - 1] > a.Skv)
            return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 3 (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                                  aicf__cuo_sstr(ms, b1, sizeof b1), (long long)a.B, (long long)qH, (long long)a.Sq, (long long)a.Skv);
        for (k = mr - 1; k >= 0; k--) {
            int ax = 4 - mr + k;
            if (ms->d[k] != 1 && ms->d[k] != want[ax] && k != mr - 1)
                return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 3 (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                                      aicf__cuo_sstr(ms, b1, sizeof b1), (long long)a.B, (long long)qH, (long long)a.Sq, (long long)a.Skv);
            strd[ax] = ms->d[k] == 1 && k != mr - 1 ? 0 : st;
            st *= ms->d[k];
        }
        a.mb = strd[0], a.mh = strd[1], a.mi = strd[2], a.mj = strd[3];
        a.mlen = ms->d[mr - 1];
        if (a.mlen == 1 && a.Skv > 1) a.mj = 0; /* [.., 1] is padding in ONNX Attention: only column 0 reads it */
    }
    block[0] = 128;
    block[1] = block[2] = 1;
    off32 = aicf__attention_off32(&a);
    if (c->f16 && a.D == a.Dv && (a.D == 32 || a.D == 64 || a.D == 128) && a.qs % 8 == 0 && a.qh % 8 == 0 && a.qb % 8 == 0 &&
        a.ks % 8 == 0 && a.kh % 8 == 0 && a.kb % 8 == 0 && a.vs % 8 == 0 && a.vh % 8 == 0 && a.vb % 8 == 0 && a.os % 2 == 0 &&
        a.oh % 2 == 0 && a.ob % 2 == 0 && aicf__cuo_align(c, Q, voff[0]) >= 16 && aicf__cuo_align(c, K, voff[1]) >= 16 &&
        aicf__cuo_align(c, V, voff[2]) >= 16 && aicf__cuo_align(c, Y, voff[3]) >= 4 && a.B <= 65535 && qH <= 65535 &&
        (a.Sq + 63) / 64 <= 65535 && off32)
        tc = 1;
    if (tc) {
        grid[0] = (unsigned)((a.Sq + 63) / 64);
        grid[1] = (unsigned)qH;
        grid[2] = (unsigned)a.B;
        snprintf(name, sizeof name, "aicf_attention_tc_f16_d%lld", (long long)a.D);
        aicf__cuo_reason(c, "float16, head size %lld: tensor cores, 64 queries x 64 keys per block, online softmax (%lld x %lld heads, "
                         "%lld x %lld scores never stored)%s", (long long)a.D, (long long)a.B, (long long)qH, (long long)a.Sq,
                         (long long)a.Skv, M >= 0 ? ", mask added" : "");
    } else {
        int64_t rows = a.B * qH * a.Sq;
        grid[0] = (unsigned)AICF__MIN((rows + 3) / 4, AICF__CUO_MAX_GRID);
        grid[1] = grid[2] = 1;
        if (grid[0] == 0) grid[0] = 1;
        snprintf(name, sizeof name, "aicf_attention_%s", aicf__cuo_dtn(c));
        aicf__cuo_reason(c, "one warp per query row (%lld rows, D = %lld, Dv = %lld): %s; online softmax, the %lld x %lld scores never stored",
                         (long long)rows, (long long)a.D, (long long)a.Dv,
                         !c->f16 ? "float32 storage"
                         : a.D != a.Dv || (a.D != 32 && a.D != 64 && a.D != 128) ? "the tensor-core kernel takes D = Dv in {32, 64, 128}"
                         : !off32 ? "offsets in a head beyond 32 bits"
                         : a.B > 65535 || qH > 65535 || (a.Sq + 63) / 64 > 65535 ? "the grid's y or z dimension exceeds 65535"
                                                                                 : "strides or addresses not 16-byte aligned",
                         (long long)a.Sq, (long long)a.Skv);
    }
    if (n->views) {
        size_t l = strlen(c->reason);
        snprintf(c->reason + l, sizeof c->reason - l, "; Q/K/V/O read and written in place as strided views");
    }
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_attention, q), Q, voff[0]);
    aicf__cuo_patch(op, offsetof(aicf__k_attention, k), K, voff[1]);
    aicf__cuo_patch(op, offsetof(aicf__k_attention, v), V, voff[2]);
    if (M >= 0) aicf__cuo_patch(op, offsetof(aicf__k_attention, mask), M, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_attention, o), Y, voff[3]);
    return AICF_SUCCESS;
}

/* ---- helpers for the ops whose parameters come from constant inputs ---- */

/* Constant integer input i (int32 or int64) into vals[cap]; *count = -1 when the input is absent. */
static aicf_result aicf__cuo_const_ints(aicf__cuo* c, int i, const char* what, int64_t* vals, int cap, int* count) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    int64_t ne, k;
    size_t es;
    *count = -1;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    ne = aicf__shape_numel(&tt->shape);
    if (tt->dtype != AICF_DTYPE_INT64 && tt->dtype != AICF_DTYPE_INT32)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s; expected int32 or int64", i,
                              tt->name ? tt->name : "", what, aicf_dtype_name(tt->dtype));
    if (ne > 0 && (!(tt->flags & AICF__T_CONST) || !tt->data))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (ne < 0 || ne > cap)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, tt->name ? tt->name : "",
                              what, (long long)ne, cap);
    es = aicf_dtype_size(tt->dtype);
    if (tt->data_bytes < (size_t)ne * es)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, tt->name ? tt->name : "",
                              what);
    for (k = 0; k < ne; k++) {
        if (tt->dtype == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, (const unsigned char*)tt->data + (size_t)k * 4, 4);
            vals[k] = v;
        } else {
            memcpy(&vals[k], (const unsigned char*)tt->data + (size_t)k * 8, 8);
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* Constant float input i (float32, float16 or float64) into vals[cap]; *count = -1 when absent. */
static aicf_result aicf__cuo_const_floats(aicf__cuo* c, int i, const char* what, double* vals, int cap, int* count) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    int64_t ne, k;
    size_t es;
    *count = -1;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    ne = aicf__shape_numel(&tt->shape);
    if (tt->dtype != AICF_DTYPE_FLOAT32 && tt->dtype != AICF_DTYPE_FLOAT16 && tt->dtype != AICF_DTYPE_FLOAT64)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s", i, tt->name ? tt->name : "",
                              what, aicf_dtype_name(tt->dtype));
    if (ne > 0 && (!(tt->flags & AICF__T_CONST) || !tt->data))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (ne < 0 || ne > cap)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, tt->name ? tt->name : "",
                              what, (long long)ne, cap);
    es = aicf_dtype_size(tt->dtype);
    if (tt->data_bytes < (size_t)ne * es)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, tt->name ? tt->name : "",
                              what);
    for (k = 0; k < ne; k++) {
        const unsigned char* src = (const unsigned char*)tt->data + (size_t)k * es;
        if (tt->dtype == AICF_DTYPE_FLOAT32) {
            float f;
            memcpy(&f, src, 4);
            vals[k] = f;
        } else if (tt->dtype == AICF_DTYPE_FLOAT16) {
            uint16_t h;
            memcpy(&h, src, 2);
            vals[k] = aicf__f16_to_f32(h);
        } else {
            memcpy(&vals[k], src, 8);
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* INTS attribute `name` into vals[cap]; *count = -1 when absent. */
static aicf_result aicf__cuo_attr_ints(aicf__cuo* c, const char* name, int64_t* vals, int cap, int* count) {
    const int64_t* v = NULL;
    int n = aicf__attr_ints(c->nd, name, &v), k;
    *count = n;
    if (n < 0) return AICF_SUCCESS;
    if (n > cap) return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values (limit %d)", name, n, cap);
    for (k = 0; k < n; k++) vals[k] = v[k];
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_axis(aicf__cuo* c, const char* what, int64_t a, int rank, int* out) {
    *out = 0;
    if (a < 0) a += rank;
    if (a < 0 || a >= rank)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "%s %lld is out of range for rank %d", what, (long long)(a < 0 ? a - rank : a),
                              rank);
    *out = (int)a;
    return AICF_SUCCESS;
}

/* Row-major element strides of a shape. */
static void aicf__cuo_strides(const aicf__shape* s, int64_t* st) {
    int i;
    int64_t m = 1;
    for (i = s->rank - 1; i >= 0; i--) {
        st[i] = m;
        m *= s->d[i];
    }
}

static int64_t aicf__cuo_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* ---- data movement as strided copies: Slice, Split, Tile, Expand, DepthToSpace, SpaceToDepth ---- */

static aicf_result aicf__cuo_lower_slice(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), i, r, ns, ne, na = -1, np = -1;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t st[AICF_MAX_RANK], en[AICF_MAX_RANK], ax[AICF_MAX_RANK], sp[AICF_MAX_RANK];
    int64_t start[AICF_MAX_RANK], step[AICF_MAX_RANK], xst[AICF_MAX_RANK], sx[AICF_MAX_RANK], base = 0;
    int used[AICF_MAX_RANK];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (aicf__cuo_opset(c) < 10) {
        if ((res = aicf__cuo_attr_ints(c, "starts", st, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_attr_ints(c, "ends", en, AICF_MAX_RANK, &ne)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_attr_ints(c, "axes", ax, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_const_ints(c, 1, "starts", st, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 2, "ends", en, AICF_MAX_RANK, &ne)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 3, "axes", ax, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 4, "steps", sp, AICF_MAX_RANK, &np)) != AICF_SUCCESS) return res;
    }
    if (ns < 0 || ns != ne || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "starts, ends, axes and steps have different lengths (%d, %d, %d, %d)", ns,
                              ne, na, np);
    for (i = 0; i < r; i++) {
        start[i] = 0;
        step[i] = 1;
        used[i] = 0;
    }
    for (i = 0; i < ns; i++) {
        int a;
        int64_t n, b, stp = np >= 0 ? sp[i] : 1;
        if ((res = aicf__cuo_axis(c, "axes entry", na >= 0 ? ax[i] : i, r, &a)) != AICF_SUCCESS) return res;
        if (used[a]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        if (stp == 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "steps[%d] is 0", i);
        if (stp < -INT64_MAX) stp = -INT64_MAX;
        n = xs->d[a];
        b = st[i];
        if (b < 0) b += n;
        if (n == 0) b = 0;
        else if (stp > 0) b = aicf__cuo_clamp(b, 0, n);
        else b = aicf__cuo_clamp(b, 0, n - 1);
        start[a] = b;
        step[a] = stp;
    }
    aicf__cuo_strides(xs, xst);
    for (i = 0; i < r; i++) {
        base += start[i] * xst[i];
        sx[i] = step[i] * xst[i];
    }
    return aicf__cuo_permute(c, X, (uint64_t)base * c->es, Y, 0, ys->d, r, sx);
}

/* Size of Split output k (the 'split' attribute before opset 13, the constant input 1, or equal
   parts of ceil(dim / n) with a smaller last one), as the CPU reference. */
static aicf_result aicf__cuo_split_sizes(aicf__cuo* c, int64_t dim, int n, int64_t* sizes) {
    int cnt = -1, k;
    int64_t sum = 0;
    if (aicf__cuo_opset(c) < 13 && aicf__attr(c->nd, "split")) {
        const int64_t* v = NULL;
        cnt = aicf__attr_ints(c->nd, "split", &v);
        if (cnt != n) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, n);
        for (k = 0; k < n; k++) sizes[k] = v[k];
    } else if (aicf__cuo_in(c, 1) >= 0) {
        aicf_result r = aicf__cuo_const_ints(c, 1, "split", sizes, n, &cnt);
        if (r != AICF_SUCCESS) return r;
        if (cnt != n) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, n);
    }
    if (cnt >= 0) {
        for (k = 0; k < n; k++) {
            if (sizes[k] < 0 || sizes[k] > dim)
                return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split[%d] = %lld is invalid", k, (long long)sizes[k]);
            sum += sizes[k];
        }
        if (sum != dim) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "split sums to %lld, the axis has %lld", (long long)sum, (long long)dim);
    } else {
        int64_t chunk = dim / n + (dim % n != 0);
        for (k = 0; k < n; k++) sizes[k] = k == n - 1 ? dim - chunk * (n - 1) : chunk;
        if (sizes[n - 1] < 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "cannot split %lld into %d parts", (long long)dim, n);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_split(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), n = c->st->n_out, k, ax = 0, copies = 0, strided = 0, vec4 = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t sizes[AICF__STEP_MAX_IO], outer, inner, dim, pos = 0;
    char what[32];
    aicf_result r;
    if ((r = aicf__cuo_float(c, X, "input 0", 1)) != AICF_SUCCESS) return r;
    for (k = 0; k < n; k++) {
        if (aicf__cuo_out(c, k) < 0) continue;
        snprintf(what, sizeof what, "output %d", k);
        if ((r = aicf__cuo_float(c, aicf__cuo_out(c, k), what, 0)) != AICF_SUCCESS) return r;
    }
    if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", 0), xs->rank, &ax)) != AICF_SUCCESS) return r;
    if (n < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "has no outputs");
    dim = xs->d[ax];
    if ((r = aicf__cuo_split_sizes(c, dim, n, sizes)) != AICF_SUCCESS) return r;
    if (aicf__cuo_out(c, 0) >= 0 && c->p->loc[aicf__cuo_out(c, 0)].alias_of == X) { /* the memory plan made views */
        for (k = 0; k < n; k++)
            if (aicf__cuo_out(c, k) < 0 || c->p->loc[aicf__cuo_out(c, k)].alias_of != X ||
                aicf__cuo_numel(c, aicf__cuo_out(c, k)) != sizes[k] * aicf__cuo_prod(xs, ax + 1, xs->rank))
                return aicf__cuo_fail(c, AICF_ERROR_STATE, "output %d is not the view of the input the memory plan recorded", k);
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "%d outputs are views into the input's storage (split along axis %d, only 1s before it): no copy", n,
                         ax);
        return AICF_SUCCESS;
    }
    outer = aicf__cuo_prod(xs, 0, ax);
    inner = aicf__cuo_prod(xs, ax + 1, xs->rank);
    for (k = 0; k < n; k++) {
        int Y = aicf__cuo_out(c, k);
        int64_t cols = sizes[k] * inner;
        if (Y >= 0 && cols > 0 && outer > 0) {
            if (aicf__cuo_numel(c, Y) != outer * cols)
                return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output %d has %lld elements, the split gives %lld", k,
                                      (long long)aicf__cuo_numel(c, Y), (long long)(outer * cols));
            if (outer == 1) {
                if ((r = aicf__cuo_copy(c, Y, 0, X, (uint64_t)(pos * inner) * c->es, (uint64_t)cols * c->es)) != AICF_SUCCESS) return r;
                copies++;
            } else {
                aicf__k_copy2d a;
                unsigned grid[3], block[3];
                aicf__cuo_op* op = NULL;
                char name[96];
                uint64_t xoff = (uint64_t)(pos * inner) * c->es;
                int v = cols % 4 == 0 && (dim * inner) % 4 == 0 && aicf__cuo_align(c, X, xoff) >= 4 * c->es &&
                                aicf__cuo_align(c, Y, 0) >= 4 * c->es
                            ? 4
                            : 1;
                memset(&a, 0, sizeof a);
                a.rows = outer;
                a.cols = cols;
                a.ldx = dim * inner;
                a.ldy = cols;
                snprintf(name, sizeof name, "aicf_copy2d_%s_v%d", aicf__cuo_dtn(c), v);
                aicf__cuo_dims1(outer * cols / v, grid, block);
                if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, x), X, xoff);
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, y), Y, 0);
                strided++;
                if (v == 4) vec4++;
            }
        }
        pos += sizes[k];
    }
    if (strided == 0) {
        snprintf(c->kernel, sizeof c->kernel, copies ? "memcpy" : "empty");
        aicf__cuo_reason(c, "%d outputs along axis %d, outer size %lld: %d device-to-device copies", n, ax, (long long)outer, copies);
    } else {
        aicf__cuo_reason(c, "%d outputs along axis %d: %d strided 2-D copies (%lld rows each), %d of them vec4", n, ax, strided,
                         (long long)outer, vec4);
    }
    return AICF_SUCCESS;
}

/* Tile: output dim k (d_k * rep_k) read as [rep_k, d_k] with strides [0, stride_k]. */
static aicf_result aicf__cuo_lower_tile(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), cnt, i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t rep[AICF_MAX_RANK], xst[AICF_MAX_RANK], shape[2 * AICF_MAX_RANK], sx[2 * AICF_MAX_RANK];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_const_ints(c, 1, "repeats", rep, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return r;
    if (cnt != xs->rank)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "repeats has %d values; input 0 has rank %d", cnt, xs->rank);
    aicf__cuo_strides(xs, xst);
    for (i = 0; i < xs->rank; i++) {
        shape[2 * i] = rep[i];
        sx[2 * i] = 0;
        shape[2 * i + 1] = xs->d[i];
        sx[2 * i + 1] = xst[i];
    }
    return aicf__cuo_permute(c, X, 0, Y, 0, shape, 2 * xs->rank, sx);
}

static aicf_result aicf__cuo_lower_expand(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    int64_t sx[AICF_MAX_RANK];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    aicf__cuo_bstrides(aicf__cuo_shape(c, X), aicf__cuo_shape(c, Y), sx);
    return aicf__cuo_permute(c, X, 0, Y, 0, aicf__cuo_shape(c, Y)->d, aicf__cuo_shape(c, Y)->rank, sx);
}

/* DepthToSpace / SpaceToDepth: a permutation of a rank-6 view of NCHW. */
static aicf_result aicf__cuo_lower_d2s(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), crd;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t b = aicf__attr_i(c->nd, "blocksize", 0), Cx, Hx, Wx, Cy, shape[6], sx[6];
    const char* mode = aicf__attr_s(c->nd, "mode", "DCR");
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank != 4 || ys->rank != 4 || b < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "expects 4-D NCHW and blocksize >= 1");
    crd = !strcmp(mode, "CRD");
    Cx = xs->d[1];
    Hx = xs->d[2];
    Wx = xs->d[3];
    Cy = ys->d[1];
    shape[0] = xs->d[0];
    sx[0] = Cx * Hx * Wx;
    if (c->nd->op == AICF__OP_DepthToSpace) { /* y viewed [N, Cy, Hx, b, Wx, b] */
        shape[1] = Cy;
        shape[2] = Hx;
        shape[3] = b;
        shape[4] = Wx;
        shape[5] = b;
        sx[1] = crd ? b * b * Hx * Wx : Hx * Wx;
        sx[2] = Wx;
        sx[3] = crd ? b * Hx * Wx : b * Cy * Hx * Wx;
        sx[4] = 1;
        sx[5] = crd ? Hx * Wx : Cy * Hx * Wx;
    } else { /* y viewed [N, b, b, Cx, Hy, Wy] (DCR) or [N, Cx, b, b, Hy, Wy] (CRD) */
        int ib = crd ? 2 : 1, ic = crd ? 1 : 3;
        shape[ib] = b;
        sx[ib] = Wx;
        shape[ib + 1] = b;
        sx[ib + 1] = 1;
        shape[ic] = Cx;
        sx[ic] = Hx * Wx;
        shape[4] = ys->d[2];
        sx[4] = b * Wx;
        shape[5] = ys->d[3];
        sx[5] = b;
    }
    return aicf__cuo_permute(c, X, 0, Y, 0, shape, 6, sx);
}

/* ---- Gather, Where, Pad ---- */

static aicf_result aicf__cuo_lower_gather(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), I = aicf__cuo_in(c, 1), Y = aicf__cuo_out(c, 0), ax;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__tensor* it;
    aicf_dtype idt;
    int64_t outer, A, inner, ni;
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (I < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 1 (indices) is omitted");
    if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", 0), xs->rank, &ax)) != AICF_SUCCESS) return r;
    it = &c->g->tensors[I];
    idt = c->p->loc[I].sdtype;
    if (idt != AICF_DTYPE_INT64 && idt != AICF_DTYPE_INT32)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input 1 '%.200s' (indices) has element type %s; the device kernel takes int32 or int64",
                              it->name ? it->name : "", aicf_dtype_name(idt));
    outer = aicf__cuo_prod(xs, 0, ax);
    A = xs->d[ax];
    inner = aicf__cuo_prod(xs, ax + 1, xs->rank);
    ni = aicf__shape_numel(&it->shape);
    if ((it->flags & AICF__T_CONST) && it->data && ni == 1) { /* one constant index: a strided copy */
        int64_t k, shape[2], sx[2];
        if (idt == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, it->data, 4);
            k = v;
        } else {
            memcpy(&k, it->data, 8);
        }
        if (k < 0) k += A;
        if (k < 0 || k >= A) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "index %lld is out of range [0, %lld)", (long long)k, (long long)A);
        shape[0] = outer;
        shape[1] = inner;
        sx[0] = A * inner;
        sx[1] = 1;
        if ((r = aicf__cuo_permute(c, X, (uint64_t)(k * inner) * c->es, Y, 0, shape, 2, sx)) != AICF_SUCCESS) return r;
        {
            char keep[192];
            memcpy(keep, c->reason, sizeof keep);
            aicf__cuo_reason(c, "one constant index %lld on axis %d: %.150s", (long long)k, ax, keep);
        }
        return AICF_SUCCESS;
    }
    if (c->p->loc[I].space != AICF__SPACE_WEIGHTS && c->p->loc[I].space != AICF__SPACE_ARENA && c->p->loc[I].alias_of < 0)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "input 1 '%.200s' (indices) has no device storage", it->name ? it->name : "");
    {
        aicf__k_gather a;
        unsigned grid[3], block[3];
        aicf__cuo_op* op = NULL;
        char name[96];
        memset(&a, 0, sizeof a);
        a.outer = outer;
        a.A = A;
        a.inner = inner;
        a.ni = ni;
        snprintf(name, sizeof name, "aicf_gather_%s_%s", aicf__cuo_dtn(c), idt == AICF_DTYPE_INT32 ? "i32" : "i64");
        aicf__cuo_dims1(outer * ni * inner, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_gather, x), X, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_gather, idx), I, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_gather, y), Y, 0);
        aicf__cuo_reason(c, "%lld %s indices (%s) on axis %d, rows of %lld, one thread per element", (long long)ni,
                         idt == AICF_DTYPE_INT32 ? "int32" : "int64", (it->flags & AICF__T_CONST) ? "constant, in the weights" : "computed, in the arena",
                         ax, (long long)inner);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_where(aicf__cuo* c) {
    int C = aicf__cuo_in(c, 0), A = aicf__cuo_in(c, 1), B = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), rank;
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    const aicf__tensor* ct;
    aicf__k_where a;
    int64_t* st[3];
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], b1[160];
    aicf_result r;
    if (C < 0 || A < 0 || B < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "needs 3 inputs");
    if ((r = aicf__cuo_float(c, Y, "output 0", 1)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_float(c, A, "input 1", 0)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_float(c, B, "input 2", 0)) != AICF_SUCCESS) return r;
    ct = &c->g->tensors[C];
    if (c->p->loc[C].sdtype != AICF_DTYPE_BOOL)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' (condition) has element type %s; expected bool",
                              ct->name ? ct->name : "", aicf_dtype_name(c->p->loc[C].sdtype));
    if ((ct->flags & AICF__T_CONST) && ct->data) { /* a constant condition that picks one side everywhere: a broadcast copy */
        int64_t n = aicf__shape_numel(&ct->shape), k, ones = 0, sx[AICF_MAX_RANK];
        for (k = 0; k < n; k++) ones += ((const unsigned char*)ct->data)[k] != 0;
        if (n > 0 && (ones == 0 || ones == n)) {
            int src = ones ? A : B;
            char keep[192];
            aicf__cuo_bstrides(aicf__cuo_shape(c, src), ys, sx);
            if ((r = aicf__cuo_permute(c, src, 0, Y, 0, ys->d, ys->rank, sx)) != AICF_SUCCESS) return r;
            memcpy(keep, c->reason, sizeof keep);
            aicf__cuo_reason(c, "constant condition all %s: input %d broadcast (%.140s)", ones ? "true" : "false", ones ? 1 : 2, keep);
            return AICF_SUCCESS;
        }
    }
    memset(&a, 0, sizeof a);
    aicf__cuo_bstrides(&ct->shape, ys, a.sc);
    aicf__cuo_bstrides(aicf__cuo_shape(c, A), ys, a.sa);
    aicf__cuo_bstrides(aicf__cuo_shape(c, B), ys, a.sb);
    memcpy(a.shape, ys->d, sizeof(int64_t) * (size_t)ys->rank);
    st[0] = a.sc;
    st[1] = a.sa;
    st[2] = a.sb;
    rank = aicf__cuo_collapse(a.shape, ys->rank, st, 3);
    if (rank == 0) {
        rank = 1;
        a.shape[0] = 1;
        a.sc[0] = a.sa[0] = a.sb[0] = 0;
    }
    a.rank = rank;
    a.n = aicf__shape_numel(ys);
    snprintf(name, sizeof name, "aicf_where_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.n, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_where, c), C, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, a), A, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, b), B, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, y), Y, 0);
    aicf__cuo_reason(c, "%s condition, output %s collapsed to rank %d with per-input strides",
                     (ct->flags & AICF__T_CONST) ? "constant" : "computed", aicf__cuo_sstr(ys, b1, sizeof b1), rank);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_pad(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), np = -1, na = -1, r, i, mode, used[AICF_MAX_RANK], any = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t pads[2 * AICF_MAX_RANK], axes[AICF_MAX_RANK], pb[AICF_MAX_RANK], pe[AICF_MAX_RANK], xst[AICF_MAX_RANK], base = 0;
    const char* ms = aicf__attr_s(c->nd, "mode", "constant");
    float value = 0.0f;
    aicf__k_pad a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (!strcmp(ms, "constant")) mode = 0;
    else if (!strcmp(ms, "reflect")) mode = 1;
    else if (!strcmp(ms, "edge")) mode = 2;
    else if (!strcmp(ms, "wrap") && aicf__cuo_opset(c) >= 19) mode = 3;
    else return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'", ms);
    if (aicf__cuo_opset(c) < 11) {
        if ((res = aicf__cuo_attr_ints(c, aicf__cuo_opset(c) < 2 ? "paddings" : "pads", pads, 2 * AICF_MAX_RANK, &np)) != AICF_SUCCESS)
            return res;
        value = aicf__attr_f(c->nd, "value", 0.0f);
    } else {
        if ((res = aicf__cuo_const_ints(c, 1, "pads", pads, 2 * AICF_MAX_RANK, &np)) != AICF_SUCCESS) return res;
        if (aicf__cuo_opset(c) >= 18 && (res = aicf__cuo_const_ints(c, 3, "axes", axes, AICF_MAX_RANK, &na)) != AICF_SUCCESS)
            return res;
        if ((res = aicf__cuo_const_scalar(c, 2, "constant_value", &value)) != AICF_SUCCESS) return res;
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if (np != 2 * na) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "pads has %d values; expected %d", np, 2 * na);
    for (i = 0; i < r; i++) {
        pb[i] = pe[i] = 0;
        used[i] = 0;
    }
    for (i = 0; i < na; i++) {
        int ax;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &ax)) != AICF_SUCCESS) return res;
        if (used[ax]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", ax);
        used[ax] = 1;
        pb[ax] = pads[i];
        pe[ax] = pads[na + i];
        if (pb[ax] || pe[ax]) any = 1;
    }
    if (!any || r == 0) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "no padding: device-to-device copy");
        return aicf__cuo_copy(c, Y, 0, X, 0, c->p->loc[Y].bytes);
    }
    aicf__cuo_strides(xs, xst);
    memset(&a, 0, sizeof a);
    for (i = 0; i < r; i++) {
        int64_t lo = pb[i] < 0 ? -pb[i] : 0;
        a.shape[i] = ys->d[i];
        a.cn[i] = xs->d[i] - lo - (pe[i] < 0 ? -pe[i] : 0);
        a.pb[i] = pb[i] > 0 ? pb[i] : 0;
        a.sx[i] = xst[i];
        base += lo * xst[i];
        if (a.cn[i] < 0 || (mode != 0 && a.cn[i] == 0 && a.shape[i] > 0))
            return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "pads crop axis %d below zero elements", i);
    }
    a.n = aicf__shape_numel(ys);
    a.rank = r;
    a.mode = mode;
    a.value = value;
    snprintf(name, sizeof name, "aicf_pad_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.n, grid, block);
    if ((res = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return res;
    aicf__cuo_patch(op, offsetof(aicf__k_pad, x), X, (uint64_t)base * c->es);
    aicf__cuo_patch(op, offsetof(aicf__k_pad, y), Y, 0);
    aicf__cuo_reason(c, "mode %s, one thread per output element over rank %d", ms, r);
    return AICF_SUCCESS;
}

/* ---- reductions ---- */

/* y = fn over the axes marked in mark[] of x (kept dims and reduced dims merged separately);
   fn is one of the names below, in the order of the template's AICF_RED_* codes (from 1). */
static const char* const aicf__cuo_red_fns[10] = {"sum", "mean", "max", "min", "prod", "l1", "l2", "sumsquare", "logsum", "logsumexp"};

static aicf_result aicf__cuo_reduce(aicf__cuo* c, const char* fn, int X, int Y, const int* mark) {
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t xst[AICF_MAX_RANK];
    int64_t* st[1];
    aicf__k_reduce a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    const char* v;
    int i, ko = 0, kr = 0, contiguous;
    aicf_result r;
    aicf__cuo_strides(xs, xst);
    memset(&a, 0, sizeof a);
    for (i = 0; i < 10; i++)
        if (!strcmp(fn, aicf__cuo_red_fns[i])) a.op = i + 1;
    if (!a.op) return aicf__cuo_fail(c, AICF_ERROR_STATE, "unknown reduction '%s'", fn);
    a.nout = a.nred = 1;
    for (i = 0; i < xs->rank; i++) {
        if (mark[i]) {
            a.rshape[kr] = xs->d[i];
            a.rstr[kr++] = xst[i];
            a.nred *= xs->d[i];
        } else {
            a.oshape[ko] = xs->d[i];
            a.ostr[ko++] = xst[i];
            a.nout *= xs->d[i];
        }
    }
    st[0] = a.ostr;
    a.ko = aicf__cuo_collapse(a.oshape, ko, st, 1);
    st[0] = a.rstr;
    a.kr = aicf__cuo_collapse(a.rshape, kr, st, 1);
    if (a.nred == 0) { /* the collapse drops nothing of size 0; keep the loop bounds at 0 */
        a.kr = 0;
    }
    contiguous = a.kr == 0 || (a.kr == 1 && a.rstr[0] == 1);
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.nred >= 2048 && a.nout <= 2048) {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.nout, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld outputs of %lld elements: one block per output, fixed tree", (long long)a.nout, (long long)a.nred);
    } else if (a.nred >= 64 && contiguous) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.nout + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld outputs of %lld contiguous elements: one warp per output", (long long)a.nout, (long long)a.nred);
    } else {
        v = "thread";
        aicf__cuo_dims1(a.nout, grid, block);
        aicf__cuo_reason(c, "%lld outputs of %lld elements (%s): one thread per output", (long long)a.nout, (long long)a.nred,
                         contiguous ? "contiguous" : "strided");
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_reduce_%s_%s", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_reduce, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_reduce, y), Y, 0);
    {
        char keep[192];
        memcpy(keep, c->reason, sizeof keep);
        aicf__cuo_reason(c, "%s: %.170s", fn, keep);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_reduce(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), mark[AICF_MAX_RANK], cnt = -1, i, r;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__op op = c->nd->op;
    int64_t axes[AICF_MAX_RANK], noop = 0;
    const char* fn;
    aicf_result res;
    switch (op) {
    case AICF__OP_ReduceSum: fn = "sum"; break;
    case AICF__OP_ReduceMean: fn = "mean"; break;
    case AICF__OP_ReduceMax:
    case AICF__OP_GlobalMaxPool: fn = "max"; break;
    case AICF__OP_ReduceMin: fn = "min"; break;
    case AICF__OP_ReduceProd: fn = "prod"; break;
    case AICF__OP_ReduceL1: fn = "l1"; break;
    case AICF__OP_ReduceL2: fn = "l2"; break;
    case AICF__OP_ReduceSumSquare: fn = "sumsquare"; break;
    case AICF__OP_ReduceLogSum: fn = "logsum"; break;
    case AICF__OP_ReduceLogSumExp: fn = "logsumexp"; break;
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "not a reduction");
    }
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (op == AICF__OP_GlobalMaxPool) {
        if (r < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", r);
        for (i = 0; i < r; i++) mark[i] = i >= 2;
        return aicf__cuo_reduce(c, fn, X, Y, mark);
    }
    if (aicf__cuo_opset(c) >= (op == AICF__OP_ReduceSum ? 13 : 18)) {
        noop = aicf__attr_i(c->nd, "noop_with_empty_axes", 0);
        if ((res = aicf__cuo_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_attr_ints(c, "axes", axes, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return res;
    }
    for (i = 0; i < r; i++) mark[i] = cnt <= 0 ? !noop : 0;
    for (i = 0; i < cnt; i++) {
        int a;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &a)) != AICF_SUCCESS) return res;
        if (mark[a]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        mark[a] = 1;
    }
    return aicf__cuo_reduce(c, fn, X, Y, mark);
}

/* ---- normalizations ---- */

/* Index pattern of a LayerNormalization parameter (scale or B) of shape ps over x [rows, cols]
   (axis ax): index = r * row + (j / div) * col. */
static aicf_result aicf__cuo_ln_param(aicf__cuo* c, int i, const aicf__shape* ps, const aicf__shape* xs, int ax, int64_t cols,
                                      int64_t* row, int64_t* col, int64_t* div) {
    int64_t st[AICF_MAX_RANK], shape[AICF_MAX_RANK], xst[AICF_MAX_RANK];
    int64_t* sp[1];
    int k, n = 0, lead = 0, full = 1;
    char b1[160], b2[160];
    aicf__cuo_bstrides(ps, xs, st);
    aicf__cuo_strides(xs, xst);
    for (k = 0; k < xs->rank; k++) {
        if (k < ax && st[k] != 0 && xs->d[k] > 1) lead = 1;
        if (xs->d[k] > 1 && st[k] != xst[k]) full = 0;
    }
    if (lead) { /* the parameter varies along the rows: only a full-shape parameter is supported */
        if (!full)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s broadcasts to input 0 shape %s in a pattern the device kernel does not index",
                                  i, aicf__cuo_sstr(ps, b1, sizeof b1), aicf__cuo_sstr(xs, b2, sizeof b2));
        *row = cols;
        *col = 1;
        *div = 1;
        return AICF_SUCCESS;
    }
    for (k = ax; k < xs->rank; k++) {
        shape[n] = xs->d[k];
        st[n] = st[k];
        n++;
    }
    sp[0] = st;
    n = aicf__cuo_collapse(shape, n, sp, 1);
    *row = 0;
    *div = 1;
    if (n == 0) *col = 0;
    else if (n == 1) *col = st[0] ? 1 : 0;
    else if (n == 2 && st[0] == 1 && st[1] == 0) {
        *col = 1;
        *div = shape[1];
    } else {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s broadcasts to input 0 shape %s in a pattern the device kernel does not index",
                              i, aicf__cuo_sstr(ps, b1, sizeof b1), aicf__cuo_sstr(xs, b2, sizeof b2));
    }
    if (*col == 1 && n == 1 && st[0] != 1)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s is not contiguous over the normalized axes", i,
                              aicf__cuo_sstr(ps, b1, sizeof b1));
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_norm(aicf__cuo* c) {
    aicf__op op = c->nd->op;
    int X = aicf__cuo_in(c, 0), S = aicf__cuo_in(c, 1), B = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0);
    int Mo = aicf__cuo_out(c, 1), Io = aicf__cuo_out(c, 2), ax = 0, i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_norm a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op_ = NULL;
    char name[96];
    const char* v;
    char rowreg[16]; /* the rowregNG variant's name */
    aicf_result r;
    if (op == AICF__OP_RMSNormalization) B = -1;
    if (op != AICF__OP_LayerNormalization) Mo = Io = -1;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (Mo >= 0 && (r = aicf__cuo_float(c, Mo, "output 1 (Mean)", 0)) != AICF_SUCCESS) return r;
    if (Io >= 0 && (r = aicf__cuo_float(c, Io, "output 2 (InvStdDev)", 0)) != AICF_SUCCESS) return r;
    if (S < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 1 (scale) is omitted");
    memset(&a, 0, sizeof a);
    a.epsilon = aicf__attr_f(c->nd, "epsilon", 1e-5f);
    a.div = 1;
    if (op == AICF__OP_LayerNormalization || op == AICF__OP_RMSNormalization) {
        if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
        if (aicf__attr_i(c->nd, "stash_type", 1) != 1)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' must be 1 (float32 statistics)");
        if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", -1), xs->rank, &ax)) != AICF_SUCCESS) return r;
        a.rows = aicf__cuo_prod(xs, 0, ax);
        a.cols = aicf__cuo_prod(xs, ax, xs->rank);
        a.G = a.rows > 0 ? a.rows : 1;
        a.rms = op == AICF__OP_RMSNormalization;
        if ((r = aicf__cuo_ln_param(c, 1, aicf__cuo_shape(c, S), xs, ax, a.cols, &a.s_row, &a.s_col, &a.div)) != AICF_SUCCESS) return r;
        if (B >= 0) {
            int64_t bdiv = 1;
            if ((r = aicf__cuo_ln_param(c, 2, aicf__cuo_shape(c, B), xs, ax, a.cols, &a.b_row, &a.b_col, &bdiv)) != AICF_SUCCESS) return r;
            if (bdiv != a.div && a.b_col && a.s_col)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "scale and B broadcast over the normalized axes differently");
            if (a.b_col && !a.s_col) a.div = bdiv;
        }
    } else {
        int64_t C, sp, G;
        if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected N x C x ...", xs->rank);
        if (B < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 2 (B) is omitted");
        C = xs->d[1];
        sp = aicf__cuo_prod(xs, 2, xs->rank);
        if (op == AICF__OP_InstanceNormalization) {
            G = C;
            a.s_row = a.b_row = 1;
        } else {
            G = aicf__attr_i(c->nd, "num_groups", 0);
            if (aicf__attr_i(c->nd, "stash_type", 1) != 1)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' must be 1 (float32 statistics)");
            if (G < 1 || C % G) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "attribute 'num_groups' = %lld does not divide %lld channels",
                                                      (long long)G, (long long)C);
            if (aicf__cuo_opset(c) < 21) { /* GroupNormalization-18: scale and bias per group */
                a.s_row = a.b_row = 1;
            } else { /* per channel: channel = g * C/G + j / spatial */
                a.s_row = a.b_row = C / G;
                a.s_col = a.b_col = 1;
                a.div = sp > 0 ? sp : 1;
            }
        }
        for (i = 1; i < 3; i++) {
            const aicf__shape* ps = aicf__cuo_shape(c, aicf__cuo_in(c, i));
            int64_t want = a.s_col || op == AICF__OP_InstanceNormalization ? C : G;
            if (ps->rank != 1 || ps->d[0] != want)
                return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input %d must have shape [%lld]", i, (long long)want);
        }
        a.G = G;
        a.rows = xs->d[0] * G;
        a.cols = (C / G) * sp;
    }
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.cols <= 1024 && a.cols % 4 == 0 && a.div == 1 && a.s_row == 0 && a.s_col == 1 && (B < 0 || (a.b_row == 0 && a.b_col == 1)) &&
        aicf__cuo_align(c, X, 0) >= 4 * c->es && aicf__cuo_align(c, Y, 0) >= 4 * c->es && aicf__cuo_align(c, S, 0) >= 4 * c->es &&
        (B < 0 || aicf__cuo_align(c, B, 0) >= 4 * c->es)) {
        /* the fewest groups of 4 a lane that hold the row (no group idle at 384 or 768 columns, a
           transformer's usual rows): fewer registers and instructions */
        static const int ng[5] = {2, 3, 4, 6, 8};
        int k = 0;
        while (k < 4 && a.cols > 128 * ng[k]) k++;
        snprintf(rowreg, sizeof rowreg, "rowreg%d", ng[k]);
        v = rowreg;
        grid[0] = (unsigned)AICF__MIN((a.rows + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld rows of %lld, scale and bias per column: one warp per row held in registers (4 per access, up to "
                         "%d per lane), float32 two-pass statistics", (long long)a.rows, (long long)a.cols, 4 * ng[k]);
    } else if (a.cols <= 1024) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.rows + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld rows of %lld: one warp per row, float32 two-pass statistics", (long long)a.rows, (long long)a.cols);
    } else {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.rows, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld rows of %lld: one block per row, float32 two-pass statistics", (long long)a.rows, (long long)a.cols);
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_norm_%s_%s", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op_)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, x), X, 0);
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, scale), S, 0);
    if (B >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, bias), B, 0);
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, y), Y, 0);
    if (Mo >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, mean), Mo, 0);
    if (Io >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, inv), Io, 0);
    return AICF_SUCCESS;
}

/* ---- Resize / Upsample (nearest, linear; the last two axes) ---- */

static int aicf__cuo_pick(const char* s, const char* const* names, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static aicf_result aicf__cuo_lower_resize(aicf__cuo* c) {
    static const char* const ctms[6] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_crop_and_resize"};
    static const char* const nms[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    static const char* const pols[3] = {"stretch", "not_larger", "not_smaller"};
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), r, i, ns = -1, nz = -1, nroi = -1, na = -1, pol = 0, legacy, has_roi;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    double sc[AICF_MAX_RANK], roi[2 * AICF_MAX_RANK], scale[AICF_MAX_RANK], rs[AICF_MAX_RANK], re[AICF_MAX_RANK];
    int64_t sz[AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int ident[AICF_MAX_RANK], order[AICF_MAX_RANK];
    const char* s;
    aicf__k_resize a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (r < 1 || ys->rank != r) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d", r);
    memset(&a, 0, sizeof a);
    legacy = c->nd->op == AICF__OP_Upsample || aicf__cuo_opset(c) < 11;
    s = aicf__attr_s(c->nd, "mode", "nearest");
    if (!strcmp(s, "nearest")) a.mode = 0;
    else if (!strcmp(s, "linear") || (legacy && !strcmp(s, "bilinear"))) a.mode = 1;
    else return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "mode '%.40s' is not supported on the device (nearest, linear)", s);
    if (legacy) {
        a.ctm = 4;
        a.nearest = 4;
    } else {
        s = aicf__attr_s(c->nd, "coordinate_transformation_mode", "half_pixel");
        a.ctm = aicf__cuo_pick(s, ctms, 6);
        if (a.ctm < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'coordinate_transformation_mode' is '%.40s'", s);
        s = aicf__attr_s(c->nd, "nearest_mode", "round_prefer_floor");
        a.nearest = aicf__cuo_pick(s, nms, 4);
        if (a.nearest < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'nearest_mode' is '%.40s'", s);
        a.extrapolation = aicf__attr_f(c->nd, "extrapolation_value", 0.0f);
        a.exclude_outside = aicf__attr_i(c->nd, "exclude_outside", 0) != 0;
        if (aicf__cuo_opset(c) >= 18) {
            if (aicf__attr_i(c->nd, "antialias", 0) != 0 && a.mode != 0)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "antialias is not supported on the device");
            s = aicf__attr_s(c->nd, "keep_aspect_ratio_policy", "stretch");
            pol = aicf__cuo_pick(s, pols, 3);
            if (pol < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'keep_aspect_ratio_policy' is '%.40s'", s);
            if ((res = aicf__cuo_attr_ints(c, "axes", axes, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
        }
    }
    if (c->nd->op == AICF__OP_Upsample && aicf__cuo_opset(c) < 9) {
        const aicf__attrv* at = aicf__attr(c->nd, "scales");
        if (!at || at->type != AICF_ATTR_FLOATS || at->count > AICF_MAX_RANK)
            return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'scales' is missing or too long");
        ns = at->count;
        for (i = 0; i < ns; i++) sc[i] = at->floats[i];
    } else if (legacy) {
        if ((res = aicf__cuo_const_floats(c, 1, "scales", sc, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_const_floats(c, 2, "scales", sc, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 3, "sizes", sz, AICF_MAX_RANK, &nz)) != AICF_SUCCESS) return res;
        if (a.ctm == 5 && (res = aicf__cuo_const_floats(c, 1, "roi", roi, 2 * AICF_MAX_RANK, &nroi)) != AICF_SUCCESS) return res;
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if ((ns > 0) == (nz > 0) || (ns > 0 && ns != na) || (nz > 0 && nz != na) || (nroi >= 0 && nroi != 2 * na))
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "scales / sizes / roi do not match %d axes", na);
    has_roi = a.ctm == 5;
    for (i = 0; i < r; i++) {
        scale[i] = 1.0;
        rs[i] = 0.0;
        re[i] = 1.0;
    }
    for (i = 0; i < na; i++) {
        int ax;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &ax)) != AICF_SUCCESS) return res;
        order[i] = ax;
        if (has_roi && nroi > 0) {
            rs[ax] = roi[i];
            re[ax] = roi[na + i];
        }
        if (ns > 0) scale[ax] = sc[i];
        else if (xs->d[ax] > 0) scale[ax] = (double)sz[i] / (double)xs->d[ax];
    }
    if (nz > 0 && pol != 0) {
        double s1 = pol == 1 ? INFINITY : 0.0;
        for (i = 0; i < na; i++) s1 = pol == 1 ? (scale[order[i]] < s1 ? scale[order[i]] : s1) : (scale[order[i]] > s1 ? scale[order[i]] : s1);
        for (i = 0; i < na; i++) scale[order[i]] = s1;
    }
    for (i = 0; i < r; i++) {
        ident[i] = fabs(scale[i] - 1.0) <= 1e-9 && ys->d[i] == xs->d[i] && (!has_roi || (fabs(rs[i]) <= 1e-9 && fabs(re[i] - 1.0) <= 1e-9));
        if (!ident[i] && i < r - 2)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "resizes axis %d; the device kernel resizes the last two axes only", i);
        if (!ident[i] && xs->d[i] == 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", i);
    }
    a.outer = r >= 2 ? aicf__cuo_prod(xs, 0, r - 2) : 1;
    a.H = r >= 2 ? xs->d[r - 2] : 1;
    a.W = xs->d[r - 1];
    a.OH = r >= 2 ? ys->d[r - 2] : 1;
    a.OW = ys->d[r - 1];
    a.ident_h = r >= 2 ? ident[r - 2] : 1;
    a.ident_w = ident[r - 1];
    a.scale_h = r >= 2 ? scale[r - 2] : 1.0;
    a.scale_w = scale[r - 1];
    a.roi_h0 = r >= 2 ? rs[r - 2] : 0.0;
    a.roi_h1 = r >= 2 ? re[r - 2] : 1.0;
    a.roi_w0 = rs[r - 1];
    a.roi_w1 = re[r - 1];
    if (a.ident_h && a.ident_w) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "every axis keeps its size and scale 1: device-to-device copy");
        return aicf__cuo_copy(c, Y, 0, X, 0, c->p->loc[Y].bytes);
    }
    snprintf(name, sizeof name, "aicf_resize2d_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.outer * a.OH * a.OW, grid, block);
    if ((res = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return res;
    aicf__cuo_patch(op, offsetof(aicf__k_resize, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_resize, y), Y, 0);
    aicf__cuo_reason(c, "%s, %s: [%lld,%lld] -> [%lld,%lld] x %lld, one thread per output", a.mode ? "linear" : "nearest",
                     legacy ? "asymmetric (Upsample)" : ctms[a.ctm], (long long)a.H, (long long)a.W, (long long)a.OH, (long long)a.OW,
                     (long long)a.outer);
    return AICF_SUCCESS;
}

/* ---- ConvTranspose (1-D as 2-D with H = 1) ---- */

static int64_t aicf__cuo_floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

static aicf_result aicf__cuo_lower_convt(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), nsp, i, n_os, cnt;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ws = aicf__cuo_shape(c, Wt);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t st[2] = {1, 1}, dl[2] = {1, 1}, op_[2] = {0, 0}, pads[4] = {0, 0, 0, 0}, os[AICF_MAX_RANK], v8[AICF_MAX_RANK];
    int64_t in[2] = {1, 1}, out[2] = {1, 1}, k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pb[2] = {0, 0};
    int64_t group = aicf__attr_i(c->nd, "group", 1);
    const char* ap = aicf__attr_s(c->nd, "auto_pad", "NOTSET");
    aicf__k_conv2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    nsp = xs->rank - 2;
    if (nsp < 1 || nsp > 2 || ws->rank != xs->rank || ys->rank != xs->rank)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input rank %d is not supported on the device (1-D or 2-D NCHW)", xs->rank);
    if (group < 1 || xs->d[1] % group || ws->d[0] != xs->d[1])
        return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "group %lld does not fit C = %lld and W", (long long)group, (long long)xs->d[1]);
#define AICF__CUO_CT_ATTR(nm, arr, n)                                                                                  \
    if ((r = aicf__cuo_attr_ints(c, nm, v8, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return r;                          \
    if (cnt >= 0) {                                                                                                    \
        if (cnt != (n)) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute '%s' has %d values", nm, cnt);  \
        for (i = 0; i < cnt; i++) arr[i] = v8[i];                                                                      \
    }
    AICF__CUO_CT_ATTR("strides", st, nsp)
    AICF__CUO_CT_ATTR("dilations", dl, nsp)
    AICF__CUO_CT_ATTR("output_padding", op_, nsp)
    AICF__CUO_CT_ATTR("pads", pads, 2 * nsp)
#undef AICF__CUO_CT_ATTR
    if ((r = aicf__cuo_attr_ints(c, "output_shape", os, AICF_MAX_RANK, &n_os)) != AICF_SUCCESS) return r;
    for (i = 0; i < nsp; i++) {
        int o = 2 - nsp + i;
        int64_t dk = (ws->d[2 + i] - 1) * dl[i] + 1, full = st[i] * (xs->d[2 + i] - 1) + op_[i] + dk;
        in[o] = xs->d[2 + i];
        out[o] = ys->d[2 + i];
        k[o] = ws->d[2 + i];
        s[o] = st[i];
        d[o] = dl[i];
        if (n_os >= 0 || !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            int64_t total = full - out[o];
            pb[o] = !strcmp(ap, "SAME_UPPER") ? aicf__cuo_floordiv2(total) : total - aicf__cuo_floordiv2(total);
        } else if (!strcmp(ap, "VALID")) {
            pb[o] = 0;
        } else {
            pb[o] = pads[i];
        }
        if (s[o] < 1 || d[o] < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "strides and dilations must be >= 1");
    }
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.H = in[0];
    a.W = in[1];
    a.M = ys->d[1];
    a.OH = out[0];
    a.OW = out[1];
    a.KH = k[0];
    a.KW = k[1];
    a.group = group;
    a.pad_h = pb[0];
    a.pad_w = pb[1];
    a.stride_h = s[0];
    a.stride_w = s[1];
    a.dil_h = d[0];
    a.dil_w = d[1];
    if (a.M != ws->d[1] * group) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output channels %lld != W[1] * group", (long long)a.M);
    snprintf(name, sizeof name, "aicf_convtranspose2d_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.M * a.OH * a.OW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d, bias), Bi, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, y), Y, 0);
    aicf__cuo_reason(c, "gather form, one thread per output: %lld x %lld taps x %lld channels/group, stride %lldx%lld%s", (long long)a.KH,
                     (long long)a.KW, (long long)(a.C / group), (long long)a.stride_h, (long long)a.stride_w,
                     nsp == 1 ? " (1-D as 2-D with H = 1)" : "");
    return AICF_SUCCESS;
}

/* ---- fused elementwise chains (a step's epilogue; templates/ewchain.cu.j2) ---- */

typedef struct aicf__cuo_ewop {
    aicf__op op;     /* unary or binary op */
    int operand;     /* binary: the other input's tensor, else -1 */
    int left;        /* 1: operand op v */
    float alpha, beta;
} aicf__cuo_ewop;

/* The kernel's op code (AICF_FN_* of elementwise_fns.inc.j2, or AICF_EW_* >= 101) for op, and
   the parameters the kernel function takes (HardSwish: 1/6 and 1/2; Gelu tanh: its own code). */
static int aicf__cuo_ew_code(aicf__op op, float* alpha, float* beta) {
    switch (op) {
    case AICF__OP_Relu: return 1;
    case AICF__OP_Tanh: return 2;
    case AICF__OP_Sigmoid: return 3;
    case AICF__OP_Exp: return 4;
    case AICF__OP_Log: return 5;
    case AICF__OP_Sqrt: return 6;
    case AICF__OP_Neg: return 7;
    case AICF__OP_Abs: return 8;
    case AICF__OP_Reciprocal: return 9;
    case AICF__OP_Erf: return 10;
    case AICF__OP_LeakyRelu: return 11;
    case AICF__OP_Elu: return 12;
    case AICF__OP_HardSigmoid: return 13;
    case AICF__OP_HardSwish:
        *alpha = 1.0f / 6.0f;
        *beta = 0.5f;
        return 14;
    case AICF__OP_Clip: return 15;
    case AICF__OP_Floor: return 16;
    case AICF__OP_Ceil: return 17;
    case AICF__OP_Round: return 18;
    case AICF__OP_Sign: return 19;
    case AICF__OP_Softplus: return 20;
    case AICF__OP_Softsign: return 21;
    case AICF__OP_Selu: return 22;
    case AICF__OP_Celu: return 23;
    case AICF__OP_ThresholdedRelu: return 24;
    case AICF__OP_Sin: return 25;
    case AICF__OP_Cos: return 26;
    case AICF__OP_Tan: return 27;
    case AICF__OP_Asin: return 28;
    case AICF__OP_Acos: return 29;
    case AICF__OP_Atan: return 30;
    case AICF__OP_Sinh: return 31;
    case AICF__OP_Cosh: return 32;
    case AICF__OP_Asinh: return 33;
    case AICF__OP_Acosh: return 34;
    case AICF__OP_Atanh: return 35;
    case AICF__OP_Gelu: return *alpha != 0.0f ? 37 : 36;
    case AICF__OP_Mish: return 38;
    case AICF__OP_Shrink: return 39;
    case AICF__OP_Swish: return 40;
    case AICF__OP_Add: return 101;
    case AICF__OP_Sub: return 102;
    case AICF__OP_Mul: return 103;
    case AICF__OP_Div: return 104;
    case AICF__OP_Pow: return 105;
    case AICF__OP_Max: return 106;
    case AICF__OP_Min: return 107;
    case AICF__OP_PRelu: return 108;
    default: return 0;
    }
}

static const char* const aicf__cuo_ew_mode_names[5] = {"full", "scalar", "inner", "middle", "strided"};

/* Whether tensor t is a float32 scalar constant within 1e-6 (relative) of want. */
static int aicf__cuo_is_scalar(const aicf__cuo* c, int t, double want) {
    const aicf__tensor* tt;
    float v;
    if (t < 0) return 0;
    tt = &c->g->tensors[t];
    if (!(tt->flags & AICF__T_CONST) || !tt->data || tt->dtype != AICF_DTYPE_FLOAT32 || tt->data_bytes != sizeof(float)) return 0;
    memcpy(&v, tt->data, sizeof v);
    return fabs((double)v - want) <= 1e-6 * fabs(want);
}

/* GELU as ONNX exporters write it before opset 20 (torch.nn.functional.gelu):
       Div(x, sqrt 2) or Mul(x, 1/sqrt 2) -> Erf -> Add 1 -> Mul by x -> Mul 0.5 (the two Muls in
       either order, x on either side)
   at the head of a chain whose input is x: replaced in ops by one Gelu (AICF_FN_GELU,
   0.5 x (1 + erf(x / sqrt 2)), the same function; Hendrycks & Gimpel, arXiv:1606.08415).
   Returns the new op count (n_ops when nothing matched). */
static int aicf__cuo_fold_gelu(const aicf__cuo* c, int x, aicf__cuo_ewop* ops, int n_ops) {
    int k, mx, mh;
    if (n_ops < 5 || x < 0) return n_ops;
    if (!((ops[0].op == AICF__OP_Div && !ops[0].left && aicf__cuo_is_scalar(c, ops[0].operand, 1.4142135623730951)) ||
          (ops[0].op == AICF__OP_Mul && aicf__cuo_is_scalar(c, ops[0].operand, 0.7071067811865476))))
        return n_ops;
    if (ops[1].op != AICF__OP_Erf || ops[2].op != AICF__OP_Add || !aicf__cuo_is_scalar(c, ops[2].operand, 1.0)) return n_ops;
    mx = ops[3].op == AICF__OP_Mul && ops[3].operand == x ? 3 : (ops[4].op == AICF__OP_Mul && ops[4].operand == x ? 4 : -1);
    mh = mx == 3 ? 4 : 3;
    if (mx < 0 || ops[mh].op != AICF__OP_Mul || !aicf__cuo_is_scalar(c, ops[mh].operand, 0.5)) return n_ops;
    ops[0].op = AICF__OP_Gelu;
    ops[0].operand = -1;
    ops[0].left = 0;
    ops[0].alpha = 0.0f; /* approximate = "none" */
    ops[0].beta = 0.0f;
    for (k = 5; k < n_ops; k++) ops[k - 4] = ops[k];
    return n_ops - 4;
}

/* Fills the chain descriptor *a for y = ops[n-1](... ops[0](x)) over y's shape (everything but
   the addresses, which the caller patches: y, x, and ops_out[k].operand for each binary op).
   ops_out receives the ops as folded (GELU), *vec whether 4 elements per thread are allowed.
   AICF_ERROR_UNSUPPORTED when the broadcasts do not fold to 4 dimensions or an op has no code. */
static aicf_result aicf__cuo_ewchain_desc(aicf__cuo* c, int x, int y, const aicf__cuo_ewop* ops_in, int n_in, aicf__k_ewchain* out,
                                          aicf__cuo_ewop* ops_out, int* vec_out, char* modes, size_t modes_cap) {
    aicf__k_ewchain a;
    const aicf__shape* ys = aicf__cuo_shape(c, y);
    int64_t shape[AICF_MAX_RANK], stv[AICF__EW_MAX_OPS + 1][AICF_MAX_RANK], cst[4];
    int64_t* st[AICF__EW_MAX_OPS + 1];
    int src_t[AICF__EW_MAX_OPS + 1];
    aicf__k_ew_src* src_d[AICF__EW_MAX_OPS + 1];
    int n_src = 0, rank, k, j, vec, n_ops = n_in;
    size_t ml = 0;
    int64_t n = aicf__cuo_numel(c, y);
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    if (n_in < 0 || n_in > AICF__EW_MAX_OPS) return AICF_ERROR_UNSUPPORTED;
    memcpy(ops, ops_in, sizeof(aicf__cuo_ewop) * (size_t)n_in);
    n_ops = aicf__cuo_fold_gelu(c, x, ops, n_in);
    memset(&a, 0, sizeof a);
    a.n = n;
    a.n_ops = n_ops;
    src_t[n_src] = x;
    src_d[n_src++] = &a.x;
    for (k = 0; k < n_ops; k++) {
        float al = ops[k].alpha, be = ops[k].beta;
        int code = aicf__cuo_ew_code(ops[k].op, &al, &be);
        if (!code || (code > 100) != (ops[k].operand >= 0)) return AICF_ERROR_UNSUPPORTED;
        a.ops[k].code = code;
        a.ops[k].left = ops[k].left;
        a.ops[k].alpha = al;
        a.ops[k].beta = be;
        if (ops[k].operand >= 0) {
            src_t[n_src] = ops[k].operand;
            src_d[n_src++] = &a.ops[k].src;
        }
    }
    for (j = 0; j < n_src; j++) {
        const aicf__shape* ss = aicf__cuo_shape(c, src_t[j]);
        if (ss->rank > ys->rank) return AICF_ERROR_UNSUPPORTED;
        aicf__cuo_bstrides(ss, ys, stv[j]);
        st[j] = stv[j];
    }
    memcpy(shape, ys->d, sizeof(int64_t) * (size_t)ys->rank);
    rank = aicf__cuo_collapse(shape, ys->rank, st, n_src);
    if (rank > 4) return AICF_ERROR_UNSUPPORTED;
    /* dims right-aligned in 4, contiguous strides of the output */
    for (k = 0; k < 4; k++) a.dims[k] = 1;
    for (k = 0; k < rank; k++) a.dims[4 - rank + k] = shape[k];
    cst[3] = 1;
    for (k = 2; k >= 0; k--) cst[k] = cst[k + 1] * a.dims[k + 1];
    for (j = 0; j < n_src; j++) {
        aicf__k_ew_src* d = src_d[j];
        int64_t s4[4];
        int lo = 4, hi = -1, full = 1, zero = 1, contig = 1;
        for (k = 0; k < 4; k++) s4[k] = k < 4 - rank ? 0 : st[j][k - (4 - rank)];
        for (k = 0; k < 4; k++) {
            if (a.dims[k] == 1) s4[k] = 0;
            if (s4[k] != cst[k] && a.dims[k] > 1) full = 0;
            if (s4[k] != 0) {
                zero = 0;
                if (k < lo) lo = k;
                if (k > hi) hi = k;
            }
        }
        /* the present dims form one block [lo, hi], contiguous in the source */
        if (!zero) {
            int64_t e = 1;
            for (k = hi; k >= lo; k--) {
                if (a.dims[k] > 1 && s4[k] != e) contig = 0;
                e *= a.dims[k];
            }
        }
        memcpy(d->st, s4, sizeof s4);
        if (full) d->mode = 0;
        else if (zero) d->mode = 1;
        else if (contig && hi == 3) {
            d->mode = 2;
            d->a = 1;
            for (k = lo; k <= 3; k++) d->a *= a.dims[k];
        } else if (contig) {
            d->mode = 3;
            d->a = d->b = 1;
            for (k = lo; k <= hi; k++) d->a *= a.dims[k];
            for (k = hi + 1; k < 4; k++) d->b *= a.dims[k];
        } else {
            d->mode = 4;
        }
        ml += (size_t)snprintf(modes + ml, ml < modes_cap ? modes_cap - ml : 0, "%s%s", j ? "," : "",
                               aicf__cuo_ew_mode_names[d->mode]);
        if (ml >= modes_cap) ml = modes_cap - 1;
    }
    /* 4 elements per thread where every source allows it (templates/ewchain.cu.j2 aicf_ew_readv) */
    vec = n % 4 == 0 && aicf__cuo_align(c, y, 0) >= 4 * c->es;
    for (j = 0; j < n_src && vec; j++) {
        const aicf__k_ew_src* d = src_d[j];
        uint64_t al = aicf__cuo_align(c, src_t[j], 0);
        if ((d->mode == 0 && al < 4 * c->es) || (d->mode == 2 && (d->a % 4 != 0 || al < 4 * c->es)) || (d->mode == 3 && d->b % 4 != 0))
            vec = 0;
    }
    *out = a;
    memcpy(ops_out, ops, sizeof(aicf__cuo_ewop) * (size_t)n_ops);
    *vec_out = vec;
    return AICF_SUCCESS;
}

/* Patches the addresses of a chain descriptor that starts `base` bytes into op's arguments: y,
   x (if x >= 0) and each binary op's operand (ops as aicf__cuo_ewchain_desc returned them). */
static void aicf__cuo_patch_chain(aicf__cuo_op* op, size_t base, int y, int x, const aicf__cuo_ewop* ops, int n_ops) {
    int k;
    aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, y), y, 0);
    if (x >= 0) aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, x), x, 0);
    for (k = 0; k < n_ops; k++)
        if (ops[k].operand >= 0)
            aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, ops) + (size_t)k * sizeof(aicf__k_ew_op) + offsetof(aicf__k_ew_op, src),
                            ops[k].operand, 0);
}

/* Adds one ewchain launch: y = ops[n-1](... ops[0](x)) over y's shape, x and the operands read
   through broadcast descriptors (x may be y: in place). AICF_ERROR_UNSUPPORTED without adding
   anything when the broadcasts do not fold to 4 dimensions. */
static aicf_result aicf__cuo_ewchain(aicf__cuo* c, int x, int y, const aicf__cuo_ewop* ops_in, int n_in) {
    aicf__k_ewchain a;
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], modes[64];
    int n_ops, vec;
    int64_t n = aicf__cuo_numel(c, y);
    aicf_result r;
    modes[0] = 0;
    if (n_in < 1) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_ewchain_desc(c, x, y, ops_in, n_in, &a, ops, &vec, modes, sizeof modes)) != AICF_SUCCESS) return r;
    n_ops = a.n_ops;
    /* the exporters' GELU alone (five ops folded into one): the unary kernel, compiled for that
       one function (no per-op dispatch, no descriptors) */
    if (n_ops == 1 && ops[0].op == AICF__OP_Gelu && ops[0].operand < 0 && x >= 0 && a.x.mode == 0 &&
        aicf__same_shape(aicf__cuo_shape(c, x), aicf__cuo_shape(c, y))) {
        if ((r = aicf__cuo_unary_launch(c, "gelu", x, y, 0.0f, 0.0f)) != AICF_SUCCESS) return r;
        {
            char why[160];
            snprintf(why, sizeof why, "%.150s", c->reason);
            aicf__cuo_reason(c, "fused chain of %d elementwise ops: Div Erf Add Mul Mul as one Gelu, the unary Gelu kernel (%.100s)", n_in, why);
        }
        return AICF_SUCCESS;
    }
    snprintf(name, sizeof name, "aicf_ewchain_%s%s", aicf__cuo_dtn(c), vec ? "_v4" : "");
    aicf__cuo_dims1(vec ? n / 4 : n, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch_chain(op, 0, y, x, ops, n_ops);
    aicf__cuo_reason(c, "fused chain of %d elementwise ops in one pass over %lld elements%s%s (sources: %s)", n_in,
                     (long long)n, vec ? ", 4 per thread" : "", n_ops < n_in ? "; Div Erf Add Mul Mul as one Gelu" : "", modes);
    return AICF_SUCCESS;
}

/* Checks the storage of a chain's tensors (all float32 or all float16, like output 0). */
static aicf_result aicf__cuo_ew_storage(aicf__cuo* c, const aicf__cuo_ewop* ops, int n_ops, int x) {
    aicf_result r;
    int k;
    if ((r = aicf__cuo_float(c, aicf__cuo_out(c, 0), "output 0", 1)) != AICF_SUCCESS) return r;
    if (x >= 0 && (r = aicf__cuo_float(c, x, "chain input", 0)) != AICF_SUCCESS) return r;
    for (k = 0; k < n_ops; k++)
        if (ops[k].operand >= 0 && (r = aicf__cuo_float(c, ops[k].operand, "epilogue operand", 0)) != AICF_SUCCESS) return r;
    return AICF_SUCCESS;
}

/* The step's epilogue ops from index `from` as chain ops. */
static int aicf__cuo_epi_ops(const aicf__cuo* c, int from, aicf__cuo_ewop* ops) {
    int k, n = 0;
    for (k = from; k < c->st->n_epi; k++, n++) {
        const aicf__epi* e = &c->st->epi[k];
        ops[n].op = e->op;
        ops[n].operand = e->operand;
        ops[n].left = e->operand_left;
        ops[n].alpha = e->alpha;
        ops[n].beta = e->beta;
    }
    return n;
}

/* The chain a generated GEMM applies to its sums: Gemm's C (beta = 1) as a first Add, then
   every fused epilogue op of the step. Returns the op count, or -1 when a GEMM kernel cannot
   take it (beta != 1, too many ops, an operand not stored like the output: the general path
   then reports it). */
static int aicf__cuo_gemm_chain(const aicf__cuo* c, int C, float beta, int Y, aicf__cuo_ewop* in) {
    int n_in = 0, k;
    if (C >= 0) {
        if (beta != 1.0f) return -1;
        in[n_in].op = AICF__OP_Add;
        in[n_in].operand = C;
        in[n_in].left = 0;
        in[n_in].alpha = in[n_in].beta = 0.0f;
        n_in++;
    }
    if (n_in + c->st->n_epi > AICF__EW_MAX_OPS) return -1;
    n_in += aicf__cuo_epi_ops(c, 0, in + n_in);
    for (k = 0; k < n_in; k++)
        if (in[k].operand >= 0 && c->p->loc[in[k].operand].sdtype != c->p->loc[Y].sdtype) return -1;
    return n_in;
}

/* The argument struct shared by the GEMV and the tensor-core GEMM (aicf__k_gemv): the step's
   chain (in[n_in], from aicf__cuo_gemm_chain) described into g->e and ops, applied per element
   (both kernels hand it one or two adjacent columns, so the chain's 4-wide layout is not used),
   and the GEMM's shape from md. */
static aicf_result aicf__cuo_gemm_args(aicf__cuo* c, const aicf__matmul_desc* md, int Y, const aicf__cuo_ewop* in, int n_in,
                                       aicf__cuo_ewop* ops, aicf__k_gemv* g, char* modes, size_t modes_cap) {
    int chain_vec;
    aicf_result r;
    memset(g, 0, sizeof *g);
    modes[0] = 0;
    if ((r = aicf__cuo_ewchain_desc(c, Y, Y, in, n_in, &g->e, ops, &chain_vec, modes, modes_cap)) != AICF_SUCCESS) return r;
    g->M = md->M;
    g->N = md->N;
    g->K = md->K;
    g->lda = md->lda;
    g->ldb = md->ldb;
    g->alpha = md->alpha;
    return AICF_SUCCESS;
}

/* Adds the launch of a GEMV or tensor-core GEMM kernel (the aicf__k_gemv argument struct g,
   from aicf__cuo_gemm_args) with its patches (A, B, D and the chain's operands) and marks the
   step's whole epilogue as done inside it. */
static aicf_result aicf__cuo_gemm_launch(aicf__cuo* c, const char* name, const aicf__k_gemv* g, const unsigned* grid,
                                         const unsigned* block, unsigned smem, int A, int B, int Y, const aicf__cuo_ewop* ops) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    if ((r = aicf__cuo_kernel(c, name, g, sizeof *g, grid, block, smem, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch_chain(op, offsetof(aicf__k_gemv, e), Y, -1, ops, g->e.n_ops); /* e.x is not read */
    aicf__cuo_patch(op, offsetof(aicf__k_gemv, a), A, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_gemv, b), B, 0);
    c->st->epi_native = c->st->n_epi;
    return AICF_SUCCESS;
}

/* Gemm at small M (the batch-1 Linear layer): Y [M, N] = epilogue(alpha A B^T + C) on the
   generated GEMV kernels (templates/ewchain.cu.j2 aicf_gemv_*), with C (beta = 1) and every
   fused epilogue op of the step applied in the kernel. Applies when A is not transposed, B is
   (ONNX transB = 1: the weights [N, K], each output column one contiguous row), M <= 8, and the
   epilogue fits one chain. At these M a GEMM does 2 M flops per weight read: it is bound by
   reading B once, which one warp per column in 16-byte pieces does at full width, and the
   epilogue costs no launch of its own. Returns AICF_ERROR_UNSUPPORTED (nothing added) when it
   does not apply. */
static aicf_result aicf__cuo_lower_gemv(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemv g;
    unsigned grid[3], block[3];
    char name[96], modes[64];
    int n_in, vec, mt, e = (int)(16 / c->es);
    aicf_result r;
    if (!md->trans_b || md->trans_a || md->batch != 1 || md->M < 1 || md->M > AICF__CUO_GEMV_MAX_M || md->N < 1 || md->K < 1)
        return AICF_ERROR_UNSUPPORTED;
    if ((n_in = aicf__cuo_gemm_chain(c, C, beta, Y, in)) < 0) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_gemm_args(c, md, Y, in, n_in, ops, &g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    for (mt = 1; mt < md->M; mt *= 2) {}
    vec = md->K % e == 0 && md->lda % e == 0 && md->ldb % e == 0 && aicf__cuo_align(c, A, 0) >= 16 && aicf__cuo_align(c, B, 0) >= 16;
    snprintf(name, sizeof name, "aicf_gemv_%s_m%d%s", aicf__cuo_dtn(c), mt, vec ? "_v" : "");
    block[0] = 128; /* 4 warps: 4 output columns per block */
    block[1] = block[2] = 1;
    if ((md->N + 3) / 4 > 0x7fffffff) return AICF_ERROR_UNSUPPORTED;
    grid[0] = (unsigned)((md->N + 3) / 4);
    grid[1] = grid[2] = 1;
    if (vec && c->p->loc[aicf__root(c->p, B)].space == AICF__SPACE_WEIGHTS) g.flags |= AICF__GEMV_B_CONST; /* prefetched before the wait */
    if ((r = aicf__cuo_gemm_launch(c, name, &g, grid, block, 0, A, B, Y, ops)) != AICF_SUCCESS) return r;
    aicf__cuo_reason(c, "small-M GEMM M=%lld N=%lld K=%lld (transB, M <= %d): GEMV, a warp per column%s; "
                        "epilogue inside: %s%d fused ops (%s)",
                     (long long)md->M, (long long)md->N, (long long)md->K, AICF__CUO_GEMV_MAX_M,
                     vec ? ", 16-byte loads" : ", element loads (K, ld or address not 16-byte aligned)",
                     C >= 0 ? "C, " : "", c->st->n_epi, modes);
    return AICF_SUCCESS;
}

/* Shared memory of the small-M tensor-core GEMM (templates/gemm_tc.cu.j2 aicf_gemm_tcs_body)
   with nk K groups: the larger of the groups' operand slices and their partial tiles, in bytes. */
static size_t aicf__cuo_tcs_smem(int64_t bm, int64_t bn, int64_t nk, int64_t K, int tb) {
    const int64_t ks = ((K + nk - 1) / nk + 15) / 16 * 16;
    const int64_t ops = nk * (bm * (ks + 8) + (tb ? bn * (ks + 8) : ks * (bn + 8))) * 2, part = nk * bm * (bn + 2) * 4;
    return (size_t)(ops > part ? ops : part);
}

/* GEMM at small M on float16 tensor cores with the whole K resident (templates/gemm_tc.cu.j2
   aicf_gemm_tcs_body, kernels aicf_gemm_tc_f16_sBMxBN[_tb]): Y [M, N] = chain(alpha A B + C)
   as aicf__cuo_lower_gemm_tc computes it, called by it once its conditions hold (float16, A not
   transposed, one GEMM, K, N, lda, ldb multiples of 8, A, B, Y 16-byte aligned), for the
   grids of a few blocks where the pipelined kernel waits on a memory round trip per few K steps:
   a block's 16 warps form K groups (8 of 2 warps for 32-column tiles, 4 of 4 for 64), each group
   copies one K slice of A and B (K / groups, rounded up to 16) in one go and multiplies it into
   the tile, a column strip a warp; the groups' partial tiles are added in group order. B's
   copies are issued before griddepcontrol.wait when B is a plan constant (weights), so under a
   programmatic edge they overlap the previous kernel. The tile: of 16 x 32, 16 x 64, 32 x 32 and
   32 x 64, the one with the most blocks within one wave (at most one block per SM: the most SMs
   at work), the smaller tile on a tie, whose shared memory fits the device's opt-in limit less 8
   KiB (H100 when no device is known). Not the AUTO rule's choice: cuBLASLt measured faster at
   every shape tried (H200: enc_b1 140.9 against 174.8 us, mlp_b256 21.5 against 37.4;
   docs/benchmarks.md, session 29); taken where generated kernels are asked for (matmul_algo
   generated, a pin, autotuning) or cuBLASLt has no algorithm, in place of the pipelined kernel
   (enc_b1 with every GEMM generated: 293.5 -> 175.0 us). Returns AICF_ERROR_UNSUPPORTED
   (nothing added) when no tile fits or the kernel does not apply. */
static aicf_result aicf__cuo_lower_gemm_tcs(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y,
                                            const char* lt_why) {
    static const int tiles[4][3] = {{16, 32, 8}, {16, 64, 4}, {32, 32, 8}, {32, 64, 4}}; /* BM, BN, K groups (codegen/variants.py) */
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemv g;
    unsigned grid[3], block[3];
    char name[64], modes[64];
    int n_in, t, best = -1, pre;
    int64_t sm = 132, smax = 232448 - 8192, best_blocks = 0;
    size_t smem = 0;
    aicf_result r;
#if !defined(AICF_NO_CUDA)
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->sm_count > 0) sm = c->p->ctx->cuda->sm_count;
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->max_smem_optin > 0)
        smax = c->p->ctx->cuda->max_smem_optin - 8192;
#endif
    for (t = 0; t < 4; t++) {
        int64_t bm = tiles[t][0], bn = tiles[t][1], nb = ((md->M + bm - 1) / bm) * ((md->N + bn - 1) / bn);
        if (nb > sm || nb <= best_blocks || aicf__cuo_tcs_smem(bm, bn, tiles[t][2], md->K, md->trans_b) > (size_t)smax) continue;
        best = t;
        best_blocks = nb;
    }
    if (best < 0) return AICF_ERROR_UNSUPPORTED;
    if ((n_in = aicf__cuo_gemm_chain(c, C, beta, Y, in)) < 0) return AICF_ERROR_UNSUPPORTED;
    snprintf(name, sizeof name, "aicf_gemm_tc_f16_s%dx%d%s", tiles[best][0], tiles[best][1], md->trans_b ? "_tb" : "");
    if (aicf__cuda_kernel_find(name) < 0) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_gemm_args(c, md, Y, in, n_in, ops, &g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    pre = c->p->loc[aicf__root(c->p, B)].space == AICF__SPACE_WEIGHTS;
    if (pre) g.flags |= AICF__GEMV_B_CONST; /* copied before the wait */
    block[0] = 512u; /* 16 warps: K groups x column strips */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)((md->N + tiles[best][1] - 1) / tiles[best][1]);
    grid[1] = (unsigned)((md->M + tiles[best][0] - 1) / tiles[best][0]);
    grid[2] = 1;
    smem = aicf__cuo_tcs_smem(tiles[best][0], tiles[best][1], tiles[best][2], md->K, md->trans_b);
    if ((r = aicf__cuo_gemm_launch(c, name, &g, grid, block, (unsigned)smem, A, B, Y, ops)) != AICF_SUCCESS) return r;
    aicf__cuo_reason(c, "small-M tensor-core GEMM M=%lld N=%lld K=%lld%s: %dx%d tiles, %lld blocks, %dx%d warps, "
                        "K slices %lld%s; epilogue inside: %s%d ops (%s)%s%.40s%s",
                     (long long)md->M, (long long)md->N, (long long)md->K, md->trans_b ? " B[N,K]" : "", tiles[best][0],
                     tiles[best][1], (long long)best_blocks, tiles[best][2], 16 / tiles[best][2],
                     (long long)(((md->K + tiles[best][2] - 1) / tiles[best][2] + 15) / 16 * 16), pre ? ", W before the wait" : "",
                     C >= 0 ? "C, " : "", c->st->n_epi, modes, lt_why ? " (cuBLASLt: " : "", lt_why ? lt_why : "", lt_why ? ")" : "");
    return AICF_SUCCESS;
}

/* 1 when a GEMM fits the tensor-core kernels' 16-byte pieces (aicf__cuo_lower_gemm_tc's and
   aicf__cuo_lower_gemm_wg's common conditions): float16 storage, A not transposed, one GEMM
   (batch 1), M, N, K >= 1, K, N, lda, ldb multiples of 8, A, B, Y 16-byte aligned. */
static int aicf__cuo_tc_applies(const aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int Y) {
    return c->es == 2 && !md->trans_a && md->batch == 1 && md->M >= 1 && md->N >= 1 && md->K >= 1 && md->K % 8 == 0 &&
           md->N % 8 == 0 && md->lda % 8 == 0 && md->ldb % 8 == 0 && aicf__cuo_align(c, A, 0) >= 16 && aicf__cuo_align(c, B, 0) >= 16 &&
           aicf__cuo_align(c, Y, 0) >= 16;
}

/* The Hopper GEMM's two tensor-map requests (aicf__cuo_patch_tmap) for md with BN-column tiles:
   A [M, K] rows of 64 k in the 128-byte swizzle; B [N, K] (trans_b) the same with BN rows, B
   [K, N] rows of BN columns in that width's swizzle. */
static void aicf__cuo_wg_tmaps(const aicf__matmul_desc* md, int bn, aicf__tmap_req* ra, aicf__tmap_req* rb) {
    memset(ra, 0, sizeof *ra);
    memset(rb, 0, sizeof *rb);
    ra->magic = rb->magic = AICF__TMAP_MAGIC;
    ra->swizzle = 3;
    ra->box[0] = 64;
    ra->box[1] = 64;
    ra->dims[0] = (uint64_t)md->K;
    ra->dims[1] = (uint64_t)md->M;
    ra->stride1 = (uint64_t)md->lda * 2;
    if (md->trans_b) {
        rb->swizzle = 3;
        rb->box[0] = 64;
        rb->box[1] = (uint32_t)bn;
        rb->dims[0] = (uint64_t)md->K;
        rb->dims[1] = (uint64_t)md->N;
    } else {
        rb->swizzle = bn == 32 ? 2 : 1;
        rb->box[0] = (uint32_t)bn;
        rb->box[1] = 64;
        rb->dims[0] = (uint64_t)md->N;
        rb->dims[1] = (uint64_t)md->K;
    }
    rb->stride1 = (uint64_t)md->ldb * 2;
}

/* The Hopper GEMM launches' patches (aicf_gemm_wg, aicf_gemm_ws, aicf_gemm_wsln: the tensor maps
   at bytes 0, 128 and, where rc is given, 256 of the arguments, the tensor-core GEMM's struct at
   g0): the maps of A, B (and Y), the chain (D and its operands), A and B in that struct; the
   step's whole epilogue runs inside */
static void aicf__cuo_wg_patches(aicf__cuo* c, aicf__cuo_op* op, size_t g0, int A, int B, int Y, const aicf__cuo_ewop* ops, int n_ops,
                                 const aicf__tmap_req* ra, const aicf__tmap_req* rb, const aicf__tmap_req* rc) {
    aicf__cuo_patch_tmap(op, 0, A, 0, ra);
    aicf__cuo_patch_tmap(op, 128, B, 0, rb);
    if (rc) aicf__cuo_patch_tmap(op, 256, Y, 0, rc);
    aicf__cuo_patch_chain(op, g0 + offsetof(aicf__k_gemv, e), Y, -1, ops, n_ops); /* e.x is not read */
    aicf__cuo_patch(op, g0 + offsetof(aicf__k_gemv, a), A, 0);
    aicf__cuo_patch(op, g0 + offsetof(aicf__k_gemv, b), B, 0);
    c->st->epi_native = c->st->n_epi;
}

/* The step's GEMM as one of Y [M, N] = A [M, K] B [K, N], A's leading axes folded into M, all
   three contiguous (the LayerNorm fold and epilogue, whose B is a 2-D constant) */
static void aicf__cuo_flat_mm(aicf__cuo* c, int A, int B, aicf__matmul_desc* md) {
    const int64_t K = aicf__cuo_shape(c, A)->d[aicf__cuo_shape(c, A)->rank - 1];
    aicf__cuo_mm_desc(c, md);
    md->K = K;
    md->M = K > 0 ? aicf__cuo_numel(c, A) / K : 0;
    md->N = aicf__cuo_shape(c, B)->d[1];
    md->lda = K;
    md->ldb = md->ldc = md->N;
}

/* The LayerNorm fold's kernel for Y [M, N] = LayerNorm(X [M, K]) W' on the device ctx plans
   for (aicf_gemm_wg_f16_64xBN_ln): 1 with its tile width, shared memory and table index, 0 when
   it does not apply. The same tiles as aicf__cuo_lower_gemm_wg (no cluster split: a CTA needs all
   of its rows' K), every slab of K resident (stages = slabs), the rows' {mean, rstd} float32
   after the mbarriers. */
static int aicf__cuo_ln_fold_cfg(aicf_context* ctx, int64_t M, int64_t N, int64_t K, int* bn, int64_t* stages, size_t* smem, int* kidx) {
    int64_t sm = 132, smax = 232448 - 1024, t32, nslab;
    char name[64];
    if (M < 128 || M > 256 || K < 8 || N < 8 || K % 8 != 0 || N % 8 != 0 || K > 0x7fffffff - 64 || N > 0x7fffffff - 64) return 0;
#if !defined(AICF_NO_CUDA)
    if (ctx->cuda && ctx->cuda->ready && ctx->cuda->sm_count > 0) sm = ctx->cuda->sm_count;
    if (ctx->cuda && ctx->cuda->ready && ctx->cuda->max_smem_optin > 0) smax = ctx->cuda->max_smem_optin - 1024;
#endif
    t32 = ((M + 63) / 64) * ((N + 31) / 32);
    if (t32 > 2 * sm) return 0;
    *bn = 2 * t32 >= sm ? 32 : 16;
    nslab = (K + 63) / 64;
    *stages = nslab;
    *smem = (size_t)(1024 + nslab * ((64 + *bn) * 128 + 8) + 8 + 64 * 8);
    if ((int64_t)*smem > smax || nslab > 255) return 0;
    snprintf(name, sizeof name, "aicf_gemm_wg_f16_64x%d_ln", *bn);
    if ((*kidx = aicf__cuda_kernel_find(name)) < 0 || !aicf__cuda_wg_ok(ctx, *kidx)) return 0;
    return 1;
}

int aicf__cuda_ln_fold_ok(const aicf_plan* p, int64_t M, int64_t N, int64_t K) {
    int bn, k;
    int64_t stages;
    size_t smem;
    if (!p || p->target != AICF_BACKEND_CUDA || p->policy.precision != AICF_PRECISION_FP16) return 0;
    return aicf__cuo_ln_fold_cfg(p->ctx, M, N, K, &bn, &stages, &smem, &k);
}

/* A MatMul step with a LayerNormalization as its prologue (aicf__fuse_ln_prologue, 70_plan.c):
   Y [M, N] = chain(LayerNorm(X) W) in one launch of the Hopper GEMM (templates/gemm_tc.cu.j2
   aicf_gemm_wg_body with LN = 1) on the raw rows X and W' = float16(Scale (.) W) (a plan
   constant, copied before griddepcontrol.wait), every slab of K resident, 256 threads: the
   first warpgroup runs the GEMM (wgmma) and its epilogue y = rstd acc - rstd mean c1 + c2, then
   the step's chain (the bias, a Gelu); the second computes each row's mean and rstd as the slabs
   land, on the tensor cores (mma.sync: the rows' sums against ones and the diagonal blocks of
   X X^T, float32 accumulation; E[x^2] - mean^2, computed again in a shifted pass on the CUDA
   cores where it would cancel), hands them over through shared memory, and writes LayerNorm(x)
   where it has other readers (out[1]: the residual), the CTAs of each row block a share each.
   Measured on enc_b1 (docs/benchmarks.md, session 37): a pass over the slabs on the CUDA cores
   in the GEMM's warpgroup made the fold slower than the LayerNorm + cuBLASLt pair it replaces.
   The fold is made where this applies (the planner asks aicf__cuda_ln_fold_ok), so failing here
   is an error, and a choice of cuBLASLt (pinned, tried by autotuning) does not apply to the
   step. */
static aicf_result aicf__cuo_lower_ln_fold(aicf__cuo* c) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemm_wg w;
    aicf__tmap_req ra, rb;
    aicf__cuo_op* op = NULL;
    aicf__matmul_desc md;
    const aicf__node* ln = &c->g->nodes[c->st->pro - 1];
    int X = aicf__cuo_in(c, 0), W = aicf__cuo_in(c, 1), G = aicf__cuo_in(c, c->st->pro_in), Bt = aicf__cuo_in(c, c->st->pro_in + 1);
    int C1 = aicf__cuo_in(c, c->st->pro_in + 2), C2 = aicf__cuo_in(c, c->st->pro_in + 3), Y = aicf__cuo_out(c, 0), L = aicf__cuo_out(c, 1);
    unsigned grid[3], block[3];
    char name[64], modes[64];
    int n_in, bn, kidx;
    int64_t M, N, K, stages;
    size_t smem;
    aicf_result r;
    if (X < 0 || W < 0 || G < 0 || C1 < 0 || C2 < 0 || Y < 0)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "the step's LayerNorm fold has no folded constants (a CUDA plan's fold makes them)");
    if ((r = aicf__cuo_floats(c, 2)) != AICF_SUCCESS) return r;
    if (L >= 0 && (r = aicf__cuo_float(c, L, "output 1", 0)) != AICF_SUCCESS) return r;
    if (c->p->loc[C1].sdtype != AICF_DTYPE_FLOAT32 || c->p->loc[C2].sdtype != AICF_DTYPE_FLOAT32)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "the LayerNorm fold's column terms are not stored as float32");
    if (aicf__cuo_matmul_algo(c) == AICF_MATMUL_CUBLASLT)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "LayerNormalization '%.200s' is folded into this MatMul, which then runs on the "
                              "generated Hopper GEMM only, not cuBLASLt (policy no_fusion = 1 keeps the LayerNorm a step of its own)",
                              ln->name ? ln->name : "");
    aicf__cuo_flat_mm(c, X, W, &md);
    M = md.M, N = md.N, K = md.K;
    if (!aicf__cuo_ln_fold_cfg(c->ctx, M, N, K, &bn, &stages, &smem, &kidx) || !aicf__cuo_tc_applies(c, &md, X, W, Y) ||
        (L >= 0 && aicf__cuo_align(c, L, 0) < 16))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm fold's kernel does not apply (M=%lld N=%lld K=%lld)", (long long)M,
                              (long long)N, (long long)K);
    if ((n_in = aicf__cuo_gemm_chain(c, -1, 0.0f, Y, in)) < 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm fold's GEMM cannot take the step's epilogue chain");
    snprintf(name, sizeof name, "aicf_gemm_wg_f16_64x%d_ln", bn);
    memset(&w, 0, sizeof w);
    if ((r = aicf__cuo_gemm_args(c, &md, Y, in, n_in, ops, &w.g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    w.g.flags |= AICF__GEMV_B_CONST | (int32_t)(stages << 8);
    w.eps = aicf__attr_f(ln, "epsilon", 1e-5f);
    aicf__cuo_wg_tmaps(&md, bn, &ra, &rb);
    block[0] = 256u; /* two warpgroups: the GEMM's, and the rows' statistics' and LN(x)'s */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)((N + bn - 1) / bn);
    grid[1] = (unsigned)((M + 63) / 64);
    grid[2] = 1;
    if ((r = aicf__cuo_kernel(c, name, &w, sizeof w, grid, block, (unsigned)smem, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_wg_patches(c, op, offsetof(aicf__k_gemm_wg, g), X, W, Y, ops, w.g.e.n_ops, &ra, &rb, NULL);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm_wg, c1), C1, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm_wg, c2), C2, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm_wg, gamma), G, 0);
    if (Bt >= 0) aicf__cuo_patch(op, offsetof(aicf__k_gemm_wg, beta), Bt, 0);
    if (L >= 0) aicf__cuo_patch(op, offsetof(aicf__k_gemm_wg, ln), L, 0);
    aicf__cuo_reason(c, "LayerNormalization '%.60s' folded into the Hopper GEMM M=%lld N=%lld K=%lld: one launch on the raw rows and "
                        "W' = gamma W (plan constant, copied before the wait), each row's mean and rstd on a second warpgroup's tensor "
                        "cores from the %lld resident slabs, y = rstd acc - rstd mean c1 + c2; 64x%d tiles, %u CTAs; LayerNorm output %s; "
                        "epilogue inside: %d ops (%s)",
                     ln->name ? ln->name : "", (long long)M, (long long)N, (long long)K, (long long)stages, bn, grid[0] * grid[1],
                     L >= 0 ? "written for its other readers" : "not stored (no other reader)", c->st->n_epi, modes);
    return AICF_SUCCESS;
}

/* GEMM on Hopper (templates/gemm_tc.cu.j2 aicf_gemm_wg_body, kernels aicf_gemm_wg_f16_64xBN[_tb]
   [_k4], sm_90a only), the AUTO rule's choice where cuBLASLt is not loaded: Y [M, N] =
   chain(alpha A B + C) as aicf__cuo_lower_gemm_tc computes it, one warpgroup a 64 x BN tile with
   wgmma, K in slabs of 64 copied by TMA (tensor maps encoded at exec creation:
   aicf__cuo_patch_tmap), every slab issued at once when the stages hold them (the ring's refill
   otherwise), B's copies before griddepcontrol.wait when B is a plan constant, the chain applied
   to the accumulators in registers (its first two row or full operands loaded while the copies
   are in flight). Applies at float16 storage when A is not transposed, there is one GEMM (batch
   1), K, N, lda, ldb are multiples of 8, A, B, Y are 16-byte aligned, the epilogue fits one
   chain, the device can run it (aicf__cuda_wg_ok: compute capability 9.0, a driver with
   cuTensorMapEncodeTiled), 128 <= M <= 256 and there are at most 2 x SMs tiles of 64 x 32.
   Measured (docs/benchmarks.md, session 30): alone, in a graph of 20 launches, faster than
   cuBLASLt at every such shape (bench/gemm_wgmma.cu, H100: 2.5-4.7 against 3.1-4.8 us); in the
   reference models still slower than cuBLASLt's kernels (H200: enc_b1 145.2 against 140.1 us,
   mlp_b256 23.0 against 21.7), so with cuBLASLt loaded AUTO keeps cuBLASLt; without it, and
   where generated kernels are asked for (matmul_algo GENERATED, its pin, the autotuner's
   generated candidate), this replaces the portable kernels (aicf__cuo_lower_gemm_tc), which
   remain where it does not apply. The tile: 64 x 32 when tiles of 32 columns (times KS) give at least half
   the SMs work, else 64 x 16; KS = 4 (a cluster of 4 CTAs along z splitting the slabs, partial
   tiles added in rank order) when K has at least 16 slabs and the 64 x 32 tiles would keep
   fewer than half the SMs busy (the encoder's K = 1536 projection: 5.5 -> 3.9 us alone).
   Returns AICF_ERROR_UNSUPPORTED (nothing added) when it does not apply. */
static aicf_result aicf__cuo_lower_gemm_wg(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemm_wg w;
    aicf__tmap_req ra, rb;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    char name[64], modes[64];
    int n_in, k, bn, ks, pre;
    int64_t sm = 132, smax = 232448 - 1024, t32, nslab, per, slot, red, stages;
    size_t smem;
    aicf_result r;
    if (!aicf__cuo_tc_applies(c, md, A, B, Y)) return AICF_ERROR_UNSUPPORTED;
    if (md->M > 0x7fffffff - 64 || md->N > 0x7fffffff - 64 || md->K > 0x7fffffff - 64) return AICF_ERROR_UNSUPPORTED; /* TMA coordinates: int32 */
#if !defined(AICF_NO_CUDA)
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->sm_count > 0) sm = c->p->ctx->cuda->sm_count;
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->max_smem_optin > 0)
        smax = c->p->ctx->cuda->max_smem_optin - 1024; /* the kernel's static shared memory (the chain's ops) */
#endif
    t32 = ((md->M + 63) / 64) * ((md->N + 31) / 32);
    if (md->M < 128 || md->M > 256 || t32 > 2 * sm) return AICF_ERROR_UNSUPPORTED;
    if ((md->M + 63) / 64 > 65535 || (md->N + 15) / 16 > 0x7fffffff) return AICF_ERROR_UNSUPPORTED;
    nslab = (md->K + 63) / 64;
    ks = nslab >= 16 && 2 * t32 < sm ? 4 : 1;
    bn = 2 * t32 * ks >= sm ? 32 : 16;
    snprintf(name, sizeof name, "aicf_gemm_wg_f16_64x%d%s%s", bn, md->trans_b ? "_tb" : "", ks == 4 ? "_k4" : "");
    if ((k = aicf__cuda_kernel_find(name)) < 0 || !aicf__cuda_wg_ok(c->p->ctx, k)) return AICF_ERROR_UNSUPPORTED;
    if ((n_in = aicf__cuo_gemm_chain(c, C, beta, Y, in)) < 0) return AICF_ERROR_UNSUPPORTED;
    /* shared memory: 1024 (alignment) + stages x (slab of A + slab of B) + an mbarrier a stage (+ 8)
       + the partial tiles of cluster ranks 1..KS-1, [BN / 2][128] float32 each (templates/gemm_tc.cu.j2) */
    per = (nslab + ks - 1) / ks;
    slot = (64 + bn) * 128;
    red = (int64_t)(ks - 1) * (bn / 2) * 128 * 4;
    stages = (smax - 1024 - 8 - red) / (slot + 8);
    if (stages > per) stages = per;
    if (stages > 255) stages = 255;
    if (stages < 1) return AICF_ERROR_UNSUPPORTED;
    smem = (size_t)(1024 + stages * (slot + 8) + 8 + red);
    memset(&w, 0, sizeof w); /* every byte: plan files store the arguments */
    if ((r = aicf__cuo_gemm_args(c, md, Y, in, n_in, ops, &w.g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    pre = c->p->loc[aicf__root(c->p, B)].space == AICF__SPACE_WEIGHTS;
    if (pre) w.g.flags |= AICF__GEMV_B_CONST; /* copied before the wait */
    w.g.flags |= (int32_t)(stages << 8);
    aicf__cuo_wg_tmaps(md, bn, &ra, &rb);
    block[0] = 128u; /* one warpgroup */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)((md->N + bn - 1) / bn);
    grid[1] = (unsigned)((md->M + 63) / 64);
    grid[2] = (unsigned)ks; /* the cluster's CTAs (__cluster_dims__(1, 1, KS)) */
    if ((r = aicf__cuo_kernel(c, name, &w, sizeof w, grid, block, (unsigned)smem, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_wg_patches(c, op, offsetof(aicf__k_gemm_wg, g), A, B, Y, ops, w.g.e.n_ops, &ra, &rb, NULL);
    aicf__cuo_reason(c, "Hopper GEMM, %s at 128 <= M <= 256: M=%lld N=%lld K=%lld%s, wgmma + TMA, 64x%d tiles%s, %lld CTAs, %lld/%lld slabs staged%s; "
                        "epilogue %s%d ops (%s)",
                     aicf__cuo_matmul_algo(c) == AICF_MATMUL_GENERATED ? "generated kernels asked for"
                     : !aicf__cuo_lt_loaded(c)                         ? "the rule without cuBLASLt"
                                                                       : "the chain in one launch (cuBLASLt's epilogue lacks part)",
                     (long long)md->M, (long long)md->N, (long long)md->K, md->trans_b ? " B[N,K]" : "", bn,
                     ks > 1 ? ", K split 4 ways in a cluster" : "", (long long)grid[0] * grid[1] * grid[2], (long long)stages,
                     (long long)per, pre ? ", W before the wait" : "", C >= 0 ? "C, " : "", c->st->n_epi, modes);
    return AICF_SUCCESS;
}

/* Whether the step asks for the warp-specialised Hopper GEMM (aicf__cuo_lower_gemm_ws, which
   says whether it applies): generated kernels asked for (policy, pin, autotuning); or the AUTO
   rule where cuBLASLt is not loaded, or where the step's epilogue holds a Gelu of the erf form
   that the policy does not let cuBLASLt's GELU epilogue (the tanh form) take: cuBLASLt would
   leave it to a pass over the output (the batch-32 encoder's f1: 10.9 + 7.2 us against 16.2 for
   the kernel with it inside in bench/gemm_wgmma.cu; docs/benchmarks.md, sessions 32-33), where
   its tiles fill a wave (aicf__cuo_lower_gemm_ws); and the AUTO rule for a GEMM of at most
   AICF__WS_EDGE_FLOPS (2 M N K): cuBLASLt's kernel alone is 10-15% faster at the encoder's shapes
   (qkv 10.1 against 11.7 us, f2 9.9 against 10.9 in bench/gemm_wgmma.cu; 10.25 against 11.03 as
   the autotuner times qkv), but a cuBLASLt launch takes no programmatic edge, so the kernels
   either side of it wait for its launch and it for theirs, while the generated kernel overlaps
   both (its launch and prologue under the previous kernel's tail): in the batch-32 encoder, qkv
   (3.6 GFLOP) on it made the replay 3.8 us faster over 6 layers (docs/benchmarks.md, session
   45), about 1.4 us of edges a GEMM against its ~0.8 us slower kernel. Over ~4 GFLOP cuBLASLt's
   10-15% outgrows the edges, so larger GEMMs stay on it. */
#define AICF__WS_EDGE_FLOPS 4.0e9
static int aicf__cuo_ws_wanted(const aicf__cuo* c, const aicf__matmul_desc* md) {
    int k;
    aicf_matmul_algo algo = aicf__cuo_matmul_algo(c);
    if (algo == AICF_MATMUL_GENERATED) return 1;
    if (algo != AICF_MATMUL_AUTO) return 0;
    if (!aicf__cuo_lt_loaded(c)) return 1;
    for (k = 0; k < c->st->n_epi; k++)
        if (c->st->epi[k].op == AICF__OP_Gelu && c->st->epi[k].alpha == 0.0f) /* approximate = "none" */
            return !c->p->policy.gelu_tanh; /* under gelu_tanh, cuBLASLt's epilogue takes it in the tanh form */
    return 2.0 * (double)md->M * (double)md->N * (double)md->K <= AICF__WS_EDGE_FLOPS;
}

/* The warp-specialised Hopper GEMMs' tensor-map requests (aicf_gemm_ws and aicf_gemm_wsln): A
   [M, K] in boxes of 64 x BM, B [K, N] in boxes of 64 x 64, Y [M, N] in boxes of 64 x BM, rows
   of 64 elements with the 128-byte swizzle */
static void aicf__cuo_ws_tmaps(const aicf__matmul_desc* md, int bm, aicf__tmap_req* ra, aicf__tmap_req* rb, aicf__tmap_req* rc) {
    memset(ra, 0, sizeof *ra);
    memset(rb, 0, sizeof *rb);
    memset(rc, 0, sizeof *rc);
    ra->magic = rb->magic = rc->magic = AICF__TMAP_MAGIC;
    ra->swizzle = rb->swizzle = rc->swizzle = 3;
    ra->box[0] = rb->box[0] = rc->box[0] = 64;
    ra->box[1] = rc->box[1] = (uint32_t)bm;
    rb->box[1] = 64;
    ra->dims[0] = (uint64_t)md->K;
    ra->dims[1] = (uint64_t)md->M;
    ra->stride1 = (uint64_t)md->lda * 2;
    rb->dims[0] = (uint64_t)md->N;
    rb->dims[1] = (uint64_t)md->K;
    rb->stride1 = (uint64_t)md->ldb * 2;
    rc->dims[0] = (uint64_t)md->N;
    rc->dims[1] = (uint64_t)md->M;
    rc->stride1 = (uint64_t)md->N * 2;
}

/* The kernel of a GEMM with the LayerNorm that follows it (aicf_gemm_wsln_f16_64xBN_cCS,
   templates/gemm_tc.cu.j2 aicf_gemm_wsln_body) on the device ctx plans for: 1 with the split of N
   (BN columns a CTA, clusters of CS), the stages, the shared memory and the table index, 0 when
   it does not apply. Stages: as many 64-wide K slabs (A's 64 rows and B's BN columns) as fit
   beside the output stage, the exchange buffers and the column terms, at most 8. Clusters (they
   walk the row blocks): one a row block, at most SMs / CS and at most what the device holds at
   once (aicf__cuda_cluster_cap, asked of the driver at plan time: a cluster's CTAs share a GPC,
   and at one CTA an SM an H100 of 132 SMs holds 30 clusters of 4, not 33; a cluster left for a
   second wave runs its whole share of row blocks after the others' share, 89 against 70 us at
   M 8320, N 768 in docs/benchmarks.md, session 43); 0 (not applied) where it holds none. */
static int aicf__cuo_ln_epi_cfg(aicf_context* ctx, int64_t M, int64_t N, int64_t K, int* bn, int* cs, int64_t* stages, size_t* smem,
                                int* kidx, int64_t* clusters) {
    int64_t sm = 132, smax = 232448 - 1024, rb, slot, fixed;
    int cap;
    char name[64];
    if (!aicf__ln_epi_split(N, bn, cs) || K < 8 || K % 8 != 0 || M < 1 || M > 0x7fffffff - 64 || K > 0x7fffffff - 64) return 0;
#if !defined(AICF_NO_CUDA)
    if (ctx->cuda && ctx->cuda->ready && ctx->cuda->sm_count > 0) sm = ctx->cuda->sm_count;
    if (ctx->cuda && ctx->cuda->ready && ctx->cuda->max_smem_optin > 0) smax = ctx->cuda->max_smem_optin - 1024;
#endif
    rb = (M + 63) / 64;
    if (2 * rb * *cs < sm) return 0; /* the clusters keep fewer than half the SMs busy: the LayerNorm kernel + the GEMM */
    *clusters = rb < sm / *cs ? rb : sm / *cs;
    if (*clusters < 1) return 0;
    slot = (int64_t)(64 + *bn) * 128;
    fixed = 1024 + (int64_t)(*bn / 64) * 8192 + 16 + (int64_t)*cs * 1024 + 12 * (int64_t)*bn;
    *stages = (smax - fixed) / (slot + 16);
    if (*stages > 8) *stages = 8;
    if (*stages < 2) return 0;
    *smem = (size_t)(fixed + *stages * (slot + 16));
    snprintf(name, sizeof name, "aicf_gemm_wsln_f16_64x%d_c%d", *bn, *cs);
    if ((*kidx = aicf__cuda_kernel_find(name)) < 0 || !aicf__cuda_wg_ok(ctx, *kidx)) return 0;
    cap = aicf__cuda_cluster_cap(ctx, *kidx, 256u, (unsigned)*smem, (unsigned)*cs, 1u);
    if (cap == 0) return 0;
    if (cap > 0 && *clusters > cap) *clusters = cap;
    return 1;
}

int aicf__cuda_ln_epi_ok(const aicf_plan* p, int64_t M, int64_t N, int64_t K) {
    int bn, cs, k;
    int64_t stages, clusters;
    size_t smem;
    if (!p || p->target != AICF_BACKEND_CUDA || p->policy.precision != AICF_PRECISION_FP16) return 0;
    return aicf__cuo_ln_epi_cfg(p->ctx, M, N, K, &bn, &cs, &stages, &smem, &k, &clusters);
}

/* A MatMul step with the LayerNormalization after it (aicf__fuse_ln_epilogue, 70_plan.c):
   Y [M, N] = LayerNorm_rows(alpha A B + bias + R) in one launch of aicf_gemm_wsln (clusters of
   CS CTAs owning 64 whole rows, the rows' statistics merged over the cluster through
   distributed shared memory; templates/gemm_tc.cu.j2). The step's chain must be at most one
   Add of a bias row and one of a full operand (the residual), float16, 4-byte aligned. The
   fusion is made where this applies (the planner asks aicf__cuda_ln_epi_ok), so failing here is
   an error, and a choice of cuBLASLt does not apply to the step. */
static aicf_result aicf__cuo_lower_ln_epi(aicf__cuo* c) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemm_ws w;
    aicf__tmap_req ra, rb, rc;
    aicf__cuo_op* op = NULL;
    aicf__matmul_desc md;
    const aicf__node* ln = &c->g->nodes[c->st->post - 1];
    int A = aicf__cuo_in(c, 0), B = aicf__cuo_in(c, 1), G = aicf__cuo_in(c, c->st->post_in), Bt = aicf__cuo_in(c, c->st->post_in + 1);
    int Y = aicf__cuo_out(c, 0);
    unsigned grid[3], block[3];
    char name[64], modes[64];
    int n_in, bn, cs, kidx, i, nrow = 0, nfull = 0;
    int64_t M, N, K, stages, clusters;
    size_t smem;
    aicf_result r;
    if (A < 0 || B < 0 || G < 0 || Y < 0)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "the step's LayerNorm epilogue has no input, weight, Scale or output");
    if ((r = aicf__cuo_floats(c, 2)) != AICF_SUCCESS) return r;
    if (aicf__cuo_matmul_algo(c) == AICF_MATMUL_CUBLASLT)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "LayerNormalization '%.200s' is fused after this MatMul, which then runs on the "
                              "generated Hopper GEMM only, not cuBLASLt (policy no_fusion = 1 keeps the LayerNorm a step of its own)",
                              ln->name ? ln->name : "");
    if (aicf__cuo_shape(c, B)->rank != 2 || c->nd->trans_b)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "the LayerNorm epilogue's MatMul needs a 2-D B [K, N]");
    aicf__cuo_flat_mm(c, A, B, &md);
    M = md.M, N = md.N, K = md.K;
    if (!aicf__cuo_ln_epi_cfg(c->ctx, M, N, K, &bn, &cs, &stages, &smem, &kidx, &clusters) || !aicf__cuo_tc_applies(c, &md, A, B, Y))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm epilogue's kernel does not apply (M=%lld N=%lld K=%lld)",
                              (long long)M, (long long)N, (long long)K);
    if ((n_in = aicf__cuo_gemm_chain(c, -1, 0.0f, Y, in)) < 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm epilogue's GEMM cannot take the step's epilogue chain");
    memset(&w, 0, sizeof w); /* every byte: plan files store the arguments */
    if ((r = aicf__cuo_gemm_args(c, &md, Y, in, n_in, ops, &w.g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    if (w.g.e.flags & 1) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm epilogue's output is stored float32");
    for (i = 0; i < w.g.e.n_ops; i++) { /* the chain the kernel takes: an Add of a bias row, an Add of a full operand */
        const aicf__k_ew_op* o = &w.g.e.ops[i];
        int row = o->src.mode == 2 && o->src.a == N, full = o->src.mode == 0;
        if (o->code != 101 || ops[i].operand < 0 || aicf__cuo_align(c, ops[i].operand, 0) < 4 || !(row || full) || (row && nrow++) ||
            (full && nfull++))
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "the LayerNorm epilogue's GEMM takes at most a bias row and a residual "
                                  "(op %d of the chain: code %d, mode %d)", i, (int)o->code, (int)o->src.mode);
    }
    w.g.flags |= (int32_t)(stages << 8);
    w.eps = aicf__attr_f(ln, "epsilon", 1e-5f);
    aicf__cuo_ws_tmaps(&md, 64, &ra, &rb, &rc);
    block[0] = 256u; /* the producer and one consumer warpgroup */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)(clusters * cs); /* __cluster_dims__(CS, 1, 1) */
    grid[1] = grid[2] = 1;
    snprintf(name, sizeof name, "aicf_gemm_wsln_f16_64x%d_c%d", bn, cs);
    if ((r = aicf__cuo_kernel(c, name, &w, sizeof w, grid, block, (unsigned)smem, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_wg_patches(c, op, offsetof(aicf__k_gemm_ws, g), A, B, Y, ops, w.g.e.n_ops, &ra, &rb, &rc);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm_ws, gamma), G, 0);
    if (Bt >= 0) aicf__cuo_patch(op, offsetof(aicf__k_gemm_ws, beta), Bt, 0);
    /* short enough (~150 characters with a short node name) to leave room for the output Cast's
       fold note (aicf__cuo_fold_ew_cast); the float16 kernel stores by TMA, the _y32 kernel the
       fold substitutes from registers (the absorbed Cast's reason says so), so this one names neither */
    aicf__cuo_reason(c, "LayerNorm '%.32s' after GEMM M=%lld N=%lld K=%lld: %d-CTA clusters of 64x%d tiles own whole rows, %u CTAs, "
                        "%lld stages; epilogue %d ops (%s) + LN",
                     ln->name ? ln->name : "", (long long)M, (long long)N, (long long)K, cs, bn, grid[0], (long long)stages, c->st->n_epi, modes);
    return AICF_SUCCESS;
}

/* GEMM on Hopper for thousands of rows (templates/gemm_tc.cu.j2 aicf_gemm_ws_body, kernels
   aicf_gemm_ws_f16_128x128 and _128x192, sm_90a only): Y [M, N] = chain(alpha A B + C) as
   aicf__cuo_lower_gemm_tc computes it, A [M, K] and B [K, N] row-major, by a persistent kernel of
   min(SMs, tiles) CTAs: a producer warpgroup copies K slabs of 64 by TMA into a ring of 4 slots,
   two consumer warpgroups run wgmma on the 128 x BN tile's halves, apply the chain to the
   accumulators and store the tile through shared memory by TMA (tensor maps of A, B and Y
   encoded at exec creation: aicf__cuo_patch_tmap). BN: 128 or 192, the one with fewer columns
   per CTA over the waves (ceil(tiles / SMs) x BN), 192 on a tie (f1 of the batch-32 encoder, N =
   1536: 256 tiles of 192 in two waves against 384 of 128 in three; measured 12.2 against 12.9
   us). Applies where aicf__cuo_tc_applies holds, B is not transposed, M >= 1024, the chain is at
   most two Adds of a bias row or a full operand (4-byte aligned) then at most one Relu or Gelu of
   the erf form (what the kernel's epilogue takes in registers; other ops, inlined, made the
   kernel 15000 instructions and its Gelu epilogue 5 us slower at the encoder's f1),
   Y is stored float16 (no absorbed output Cast), the device can run it (aicf__cuda_wg_ok) and,
   under the AUTO rule with cuBLASLt loaded, there are at least as many 128 x 128 tiles as SMs.
   Returns AICF_ERROR_UNSUPPORTED (nothing added) when it does not apply. */
static aicf_result aicf__cuo_lower_gemm_ws(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemm_ws w;
    aicf__tmap_req ra, rb, rc;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    char name[64], modes[64];
    int n_in, k, bn = 128, na, act;
    int64_t sm = 132, smax = 232448 - 1024, tiles = 0, best = -1, stages, slot, stg, i;
    size_t smem;
    aicf_result r;
    if (!aicf__cuo_tc_applies(c, md, A, B, Y) || md->trans_b || md->M < 1024) return AICF_ERROR_UNSUPPORTED;
    if (md->M > 0x7fffffff - 128 || md->N > 0x7fffffff - 192 || md->K > 0x7fffffff - 64) return AICF_ERROR_UNSUPPORTED; /* TMA coordinates: int32 */
#if !defined(AICF_NO_CUDA)
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->sm_count > 0) sm = c->p->ctx->cuda->sm_count;
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->max_smem_optin > 0)
        smax = c->p->ctx->cuda->max_smem_optin - 1024; /* the kernel's static shared memory (the chain's ops) */
#endif
    for (i = 128; i <= 192; i += 64) { /* columns a CTA computes over the waves */
        int64_t t = ((md->M + 127) / 128) * ((md->N + i - 1) / i), cost = (t + sm - 1) / sm * i;
        if (t > 0x7fffffff) return AICF_ERROR_UNSUPPORTED; /* the kernel's tile index: int */
        if (best < 0 || cost <= best) {
            best = cost;
            bn = (int)i;
            tiles = t;
        }
    }
    /* the AUTO rule with cuBLASLt loaded: only with a full wave of 128 x 128 tiles (at M = 1024 the
       encoder's f1 has 96 on 132 SMs, and cuBLASLt's smaller tiles fill them: measured slower there) */
    if (aicf__cuo_matmul_algo(c) == AICF_MATMUL_AUTO && aicf__cuo_lt_loaded(c) &&
        ((md->M + 127) / 128) * ((md->N + 127) / 128) < sm)
        return AICF_ERROR_UNSUPPORTED;
    snprintf(name, sizeof name, "aicf_gemm_ws_f16_128x%d", bn);
    if ((k = aicf__cuda_kernel_find(name)) < 0 || !aicf__cuda_wg_ok(c->p->ctx, k)) return AICF_ERROR_UNSUPPORTED;
    if ((n_in = aicf__cuo_gemm_chain(c, C, beta, Y, in)) < 0) return AICF_ERROR_UNSUPPORTED;
    /* shared memory: 1024 (alignment) + stages x (slab of A + slab of B) + the output stage
       (BN / 64 boxes of 128 x 64) + a full and an empty mbarrier a stage; 4 stages measured best */
    slot = (128 + bn) * 128;
    stg = bn / 64 * 16384;
    stages = (smax - 1024 - stg) / (slot + 16);
    if (stages > 4) stages = 4;
    if (stages < 2) return AICF_ERROR_UNSUPPORTED;
    smem = (size_t)(1024 + stages * (slot + 16) + stg);
    if ((r = aicf__cuo_gemm_args(c, md, Y, in, n_in, ops, &w.g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    if (w.g.e.flags & 1) return AICF_ERROR_UNSUPPORTED; /* Y float32: the stage and its stores are float16 */
    for (i = 0, na = 0, act = 0; i < w.g.e.n_ops; i++) { /* the chain the kernel's epilogue takes (templates/gemm_tc.cu.j2) */
        const aicf__k_ew_op* o = &w.g.e.ops[i];
        if (o->code == 101 && !act && na < 2 && ops[i].operand >= 0 && aicf__cuo_align(c, ops[i].operand, 0) >= 4 &&
            (o->src.mode == 0 || (o->src.mode == 2 && o->src.a == md->N))) /* Add of a full operand or a row */
            na++;
        else if ((o->code == 1 || o->code == 36) && !act) /* Relu, Gelu (erf form) */
            act = o->code;
        else
            return AICF_ERROR_UNSUPPORTED;
    }
    w.g.flags |= (int32_t)(stages << 8);
    memset(w.ta, 0, sizeof w.ta);
    memset(w.tb, 0, sizeof w.tb);
    memset(w.tc, 0, sizeof w.tc);
    memset(w.pad, 0, sizeof w.pad);
    w.gamma = w.beta = 0;
    w.eps = 0.0f;
    w.pad_ = 0;
    aicf__cuo_ws_tmaps(md, 128, &ra, &rb, &rc);
    block[0] = 384u; /* the producer and two consumer warpgroups */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)(tiles < sm ? tiles : sm);
    grid[1] = grid[2] = 1;
    if ((r = aicf__cuo_kernel(c, name, &w, sizeof w, grid, block, (unsigned)smem, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_wg_patches(c, op, offsetof(aicf__k_gemm_ws, g), A, B, Y, ops, w.g.e.n_ops, &ra, &rb, &rc);
    aicf__cuo_reason(c, "Hopper ws GEMM M=%lld N=%lld K=%lld: 128x%d tiles, %u CTAs over %lld, %lld stages, TMA stores; epilogue "
                        "inside: %s%d ops (%s); %s",
                     (long long)md->M, (long long)md->N, (long long)md->K, bn, grid[0], (long long)tiles, (long long)stages,
                     C >= 0 ? "C, " : "", c->st->n_epi, modes,
                     aicf__cuo_matmul_algo(c) == AICF_MATMUL_GENERATED ? "generated kernels asked for"
                     : aicf__cuo_lt_loaded(c) ? "rule: erf-form Gelu at M >= 1024" : "rule without cuBLASLt at M >= 1024");
    return AICF_SUCCESS;
}

/* GEMM on float16 tensor cores with the step's whole epilogue inside (templates/gemm_tc.cu.j2):
   Y [M, N] = chain(alpha A B + C), A [M, K] row-major, B [K, N] (md->trans_b = 0) or [N, K]
   (trans_b = 1), C (Gemm's input 2, beta = 1) and every fused epilogue op of the step applied to
   the accumulators. Applies at float16 storage when A is not transposed, there is one GEMM
   (batch 1), K, N, lda, ldb are multiples of 8 and A, B, Y 16-byte aligned, and the epilogue
   fits one chain whose operands are stored like Y. Tiles: 128 x 128 (8 warps, 4 stages) when
   that gives at least one block per SM, else 64 x 64 (8 warps: a 2 x 2 grid of 32 x 32 warp
   tiles in two K slices, 4 stages: the batch-1 sequence lengths, where warps are few); but first
   the small-M kernel (aicf__cuo_lower_gemm_tcs) where one of its tiles fits one wave. Returns
   AICF_ERROR_UNSUPPORTED (nothing added) when neither applies. */
static aicf_result aicf__cuo_lower_gemm_tc(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y,
                                           const char* lt_why) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemv g;
    unsigned grid[3], block[3], smem;
    char name[64], modes[64];
    int n_in, big;
    int64_t sm = 132, tiles128;
    aicf_result r;
    if (!aicf__cuo_tc_applies(c, md, A, B, Y)) return AICF_ERROR_UNSUPPORTED;
    if ((md->M + 63) / 64 > 65535 || (md->N + 63) / 64 > 0x7fffffff) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_lower_gemm_tcs(c, md, A, B, C, beta, Y, lt_why)) != AICF_ERROR_UNSUPPORTED) return r;
    if ((n_in = aicf__cuo_gemm_chain(c, C, beta, Y, in)) < 0) return AICF_ERROR_UNSUPPORTED;
#if !defined(AICF_NO_CUDA)
    if (c->p->ctx->cuda && c->p->ctx->cuda->ready && c->p->ctx->cuda->sm_count > 0) sm = c->p->ctx->cuda->sm_count;
#endif
    tiles128 = ((md->M + 127) / 128) * ((md->N + 127) / 128);
    big = tiles128 >= sm;
    snprintf(name, sizeof name, "aicf_gemm_tc_f16_%s%s", big ? "m128n128" : "m64n64", md->trans_b ? "_tb" : "");
    if (aicf__cuda_kernel_find(name) < 0) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_gemm_args(c, md, Y, in, n_in, ops, &g, modes, sizeof modes)) != AICF_SUCCESS) return r;
    block[0] = 256u; /* 128 x 128: 8 warps; 64 x 64: 2 x 2 warps in two K slices */
    block[1] = block[2] = 1;
    grid[0] = (unsigned)((md->N + (big ? 127 : 63)) / (big ? 128 : 64));
    grid[1] = (unsigned)((md->M + (big ? 127 : 63)) / (big ? 128 : 64));
    grid[2] = 1;
    /* the larger of ST * (BM * 40 + (TB ? BN * 40 : 32 * (BN + 8))) halves (the stages) and
       BM * (BN + 2) floats (the staged accumulators), as the template's comment gives */
    smem = big ? 4u * (128u * 40u + (md->trans_b ? 128u * 40u : 32u * 136u)) * 2u
               : 4u * (64u * 40u + (md->trans_b ? 64u * 40u : 32u * 72u)) * 2u;
    if (smem < (big ? 128u * 130u * 4u : 64u * 66u * 4u)) smem = big ? 128u * 130u * 4u : 64u * 66u * 4u;
    if ((r = aicf__cuo_gemm_launch(c, name, &g, grid, block, smem, A, B, Y, ops)) != AICF_SUCCESS) return r;
    aicf__cuo_reason(c, "GEMM on float16 tensor cores M=%lld N=%lld K=%lld%s, %s tiles (%lld of 128 x 128 %s %lld SMs); "
                        "epilogue inside: %s%d fused ops (%s)%s%.80s%s",
                     (long long)md->M, (long long)md->N, (long long)md->K, md->trans_b ? ", B [N, K]" : ", B [K, N]",
                     big ? "128 x 128" : "64 x 64", (long long)tiles128, big ? ">=" : "<", (long long)sm, C >= 0 ? "C, " : "",
                     c->st->n_epi, modes, lt_why ? " (cuBLASLt: " : "", lt_why ? lt_why : "", lt_why ? ")" : "");
    return AICF_SUCCESS;
}

/* The remaining epilogue (after the main kernel wrote output 0): one chain kernel in place on
   output 0; when the broadcasts do not fold, one kernel per op, in place. */
static aicf_result aicf__cuo_lower_epilogue(aicf__cuo* c) {
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    int y = aicf__cuo_out(c, 0), n, k;
    char why[192];
    aicf_result r;
    if (c->st->epi_native >= c->st->n_epi) return AICF_SUCCESS;
    n = aicf__cuo_epi_ops(c, c->st->epi_native, ops);
    snprintf(why, sizeof why, "%s", c->reason);
    if ((r = aicf__cuo_ew_storage(c, ops, n, -1)) != AICF_SUCCESS) return r;
    r = aicf__cuo_ewchain(c, y, y, ops, n);
    if (r == AICF_ERROR_UNSUPPORTED) { /* op by op, in place, with the general kernels */
        static const char* const fns[41] = {
            "relu", "tanh", "sigmoid", "exp", "log", "sqrt", "neg", "abs", "reciprocal", "erf", "leaky_relu", "elu",
            "hard_sigmoid", "hard_swish", "clip", "floor", "ceil", "round", "sign", "softplus", "softsign", "selu", "celu",
            "thresholded_relu", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
            "gelu", "gelu_tanh", "mish", "shrink", "swish", "divs"}; /* AICF_FN_* 1..41 (codegen/variants.py UNARY_FNS) */
        for (k = 0; k < n; k++) {
            const aicf__node* en = &c->g->nodes[c->st->epi[c->st->epi_native + k].node];
            if (ops[k].operand < 0) {
                float al = ops[k].alpha, be = ops[k].beta;
                int code = aicf__cuo_ew_code(ops[k].op, &al, &be);
                if (code < 1 || code > 41)
                    return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "epilogue op %s has no device kernel", en->op_type);
                r = aicf__cuo_unary_launch(c, fns[code - 1], y, y, al, be);
            } else {
                const aicf__shape* ys = aicf__cuo_shape(c, y);
                const aicf__shape* os = aicf__cuo_shape(c, ops[k].operand);
                const char* fn = aicf__cuo_binfn(ops[k].op);
                if (!fn) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "epilogue op %s has no device kernel", en->op_type);
                r = ops[k].left ? aicf__cuo_binary(c, fn, ops[k].operand, os, y, ys, y, ys)
                                : aicf__cuo_binary(c, fn, y, ys, ops[k].operand, os, y, ys);
            }
            if (r != AICF_SUCCESS) return r;
        }
        snprintf(c->reason, sizeof c->reason, "%.120s; epilogue: %d ops one kernel each (broadcast over > 4 dims)", why, n);
        return AICF_SUCCESS;
    }
    if (r != AICF_SUCCESS) return r;
    snprintf(c->reason, sizeof c->reason, "%.125s; then %d fused elementwise ops in one in-place pass", why, n);
    return AICF_SUCCESS;
}

/* A step whose main node is itself elementwise: the whole chain in one kernel. Returns
   AICF_ERROR_UNSUPPORTED (nothing added) when it cannot. */
static aicf_result aicf__cuo_lower_chain(aicf__cuo* c) {
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    float alpha, beta;
    int kind = aicf__op_epilogue_kind(c->g, c->st->node, &alpha, &beta), n;
    aicf_result r;
    if (kind == 0 || c->st->n_epi + 1 > AICF__EW_MAX_OPS) return AICF_ERROR_UNSUPPORTED;
    ops[0].op = c->nd->op;
    ops[0].operand = kind == 2 ? aicf__cuo_in(c, 1) : -1;
    ops[0].left = 0;
    ops[0].alpha = alpha;
    ops[0].beta = beta;
    n = 1 + aicf__cuo_epi_ops(c, 0, ops + 1);
    if ((r = aicf__cuo_ew_storage(c, ops, n, aicf__cuo_in(c, 0))) != AICF_SUCCESS) return r;
    r = aicf__cuo_ewchain(c, aicf__cuo_in(c, 0), aicf__cuo_out(c, 0), ops, n);
    if (r == AICF_SUCCESS) c->st->epi_native = c->st->n_epi;
    return r;
}

/* ---- entry points ---- */

static aicf_result aicf__cuo_lower_node(aicf__cuo* c) {
    int y = aicf__cuo_out(c, 0);
    aicf__op op = c->nd->op;
    if (y < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "output 0 is omitted");
    if (aicf__op_is_alias(op)) return aicf__cuo_lower_alias(c);
    if (aicf__cuo_numel(c, y) == 0 && op != AICF__OP_Split) { /* Split: the other outputs may not be empty */
        snprintf(c->kernel, sizeof c->kernel, "empty");
        aicf__cuo_reason(c, "output has 0 elements: nothing to run");
        return AICF_SUCCESS;
    }
    switch (op) {
    case AICF__OP_Relu:
    case AICF__OP_Tanh:
    case AICF__OP_Sigmoid:
    case AICF__OP_Exp:
    case AICF__OP_Log:
    case AICF__OP_Sqrt:
    case AICF__OP_Neg:
    case AICF__OP_Abs:
    case AICF__OP_Reciprocal:
    case AICF__OP_Erf:
    case AICF__OP_LeakyRelu:
    case AICF__OP_Elu:
    case AICF__OP_HardSigmoid:
    case AICF__OP_HardSwish:
    case AICF__OP_Clip:
    case AICF__OP_Floor:
    case AICF__OP_Ceil:
    case AICF__OP_Round:
    case AICF__OP_Sign:
    case AICF__OP_Softplus:
    case AICF__OP_Softsign:
    case AICF__OP_Selu:
    case AICF__OP_Celu:
    case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin:
    case AICF__OP_Cos:
    case AICF__OP_Tan:
    case AICF__OP_Asin:
    case AICF__OP_Acos:
    case AICF__OP_Atan:
    case AICF__OP_Sinh:
    case AICF__OP_Cosh:
    case AICF__OP_Asinh:
    case AICF__OP_Acosh:
    case AICF__OP_Atanh:
    case AICF__OP_Gelu:
    case AICF__OP_Mish:
    case AICF__OP_Shrink:
    case AICF__OP_Swish: return aicf__cuo_lower_unary(c);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min:
    case AICF__OP_Mean:
    case AICF__OP_PRelu: return aicf__cuo_lower_binary(c);
    case AICF__OP_Conv: return aicf__cuo_lower_conv(c);
    case AICF__OP_Gemm: return aicf__cuo_lower_gemm(c);
    case AICF__OP_MatMul: return aicf__cuo_lower_matmul(c);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__cuo_lower_pool(c);
    case AICF__OP_GlobalAveragePool: return aicf__cuo_lower_gap(c);
    case AICF__OP_BatchNormalization: return aicf__cuo_lower_bn(c);
    case AICF__OP_LRN: return aicf__cuo_lower_lrn(c);
    case AICF__OP_Softmax:
    case AICF__OP_LogSoftmax: return aicf__cuo_lower_softmax(c);
    case AICF__OP_Attention: return aicf__cuo_lower_attention(c);
    case AICF__OP_Gather: return aicf__cuo_lower_gather(c);
    case AICF__OP_Slice: return aicf__cuo_lower_slice(c);
    case AICF__OP_Split: return aicf__cuo_lower_split(c);
    case AICF__OP_Pad: return aicf__cuo_lower_pad(c);
    case AICF__OP_Tile: return aicf__cuo_lower_tile(c);
    case AICF__OP_Expand: return aicf__cuo_lower_expand(c);
    case AICF__OP_Where: return aicf__cuo_lower_where(c);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__cuo_lower_d2s(c);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare:
    case AICF__OP_GlobalMaxPool: return aicf__cuo_lower_reduce(c);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization:
    case AICF__OP_GroupNormalization:
    case AICF__OP_InstanceNormalization: return aicf__cuo_lower_norm(c);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__cuo_lower_resize(c);
    case AICF__OP_ConvTranspose: return aicf__cuo_lower_convt(c);
    case AICF__OP_Transpose: return aicf__cuo_lower_transpose(c);
    case AICF__OP_Concat: return aicf__cuo_lower_concat(c);
    case AICF__OP_Cast: return aicf__cuo_convert(c, aicf__cuo_in(c, 0), y);
    case AICF__OP_Constant:
    case AICF__OP_ConstantOfShape:
    case AICF__OP_Shape:
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "should have been folded into a constant at plan time");
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "op type has no device lowering");
    }
}

/* ---- persistent chains of GEMV steps (after every step is lowered) ----
   A run of consecutive steps that each lowered to one vectorised GEMV launch (aicf_gemv_*_v:
   batch-1 Linear layers), each reading exactly the previous one's output, becomes one launch
   of aicf_gemvp_*: the same layers in step order (templates/ewchain.cu.j2). Every block owns a
   fixed range of output columns per layer (aicf__cuo_gemvp_shape: the grid at most one block
   per SM and no block without a column of layer 0) and stages those weight rows of every layer
   in its shared memory at launch; a layer hands its output to the next through tagged words in
   the exec's sync region (this launch's region: aicf__cuo_persist_run lays out the hand-off
   buffers after a 1 KB header holding the epoch word), so no grid barrier is needed. A float32
   -> float16 Cast step right before the run whose output only the first layer reads, and a
   float16 -> float32 Cast step right after it that alone reads the last layer's output (the API
   boundary casts of a float16 plan) are absorbed too: the first layer reads float32 and rounds
   to float16 as the Cast did, the last one stores float32 after rounding to float16; the Cast's
   float16 tensor is then never written. Every layer still writes its D; results are those of
   the separate launches to float32 rounding (the kernel sums in another fixed order).

   Conditions, each checked: the layers' weights B are constants of the plan (copied into shared
   memory at launch) and every layer's weight rows, A staging and epilogue operand values fit
   the device's shared memory per block (else the run is cut); every epilogue operand is a
   constant or produced before the run (read at launch: nothing in the launch writes it); the
   epilogue has at most AICF__GEMVP_MAX_OPS ops; at most AICF__GEMVP_MAX_LAYERS layers per
   launch and AICF__CUO_MAX_PATCH addresses; layer j's A is layer j - 1's whole D (same M, K =
   the previous N, contiguous). The grid is at most one block per SM of the plan's device, so
   every block is resident and no wait can deadlock (the kernel also bounds its waits); the
   exec's sync region (AICF__CUO_SYNC, aicf__cuda_plan_data.sync_bytes) is zeroed at exec
   creation. Off with the policy's no_fusion.

   Runs of more than one layer only with the policy's `persistent`: measured on an H100 (mlp_b1,
   docs/benchmarks.md) the joined MLP takes 13.3-13.5 us against 13.8-14.0 us as separate
   launches at batch 1, and twice as long at batch 8 (each layer's sums and epilogue ~1 us from
   inside the kernel, the start ~3 us). By default a run is one GEMV and the boundary Casts
   beside it, folded into the GEMV launch itself (aicf__cuo_fold_casts: no persistent kernel). */

/* The tensor patched at `field` of op, or -1. */
static int aicf__cuo_patched(const aicf__cuo_op* op, size_t field, uint64_t* add) {
    int k;
    for (k = 0; k < op->n_patch; k++)
        if (op->patch[k].field == (uint32_t)field) {
            if (add) *add = op->patch[k].add;
            return op->patch[k].tensor;
        }
    return -1;
}

/* The only op of step si when it is one launch of a table kernel whose name begins with prefix. */
static const aicf__cuo_op* aicf__cuo_sole(const aicf_plan* p, int si, const char* prefix) {
    const aicf__step* st = &p->steps[si];
    aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
    const aicf__cuo_op* op;
    if (!pr || pr->n_ops != 1 || pr->n_algo != 0 || strncmp(st->kernel, prefix, strlen(prefix)) != 0) return NULL;
    op = aicf__cuo_prog_ops(pr);
    return op->kind == AICF__CUO_KERNEL ? op : NULL;
}

/* How many times tensor t is read: step inputs, epilogue operands, and plan outputs at the API
   boundary (counted as many). */
static int aicf__cuo_reads(const aicf_plan* p, int t) {
    int s, i, n = 0;
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        for (i = 0; i < st->n_in; i++) n += st->in[i] == t;
        for (i = 0; i < st->n_epi; i++) n += st->epi[i].operand == t;
    }
    for (i = 0; i < p->n_out; i++) /* the API reads the boundary tensors (aicf_exec_get_output, device pointers) */
        if (p->out_boundary[i] == t) n += 1000;
    return n;
}

/* Whether tensors a and b occupy disjoint bytes (views resolved to their root's space). */
static int aicf__cuo_disjoint(const aicf_plan* p, int a, int b) {
    uint64_t oa = 0, ob = 0;
    int ra = a, rb = b, guard = 0;
    while (ra >= 0 && p->loc[ra].alias_of >= 0 && guard++ < 64) oa += p->loc[ra].alias_add, ra = p->loc[ra].alias_of;
    guard = 0;
    while (rb >= 0 && p->loc[rb].alias_of >= 0 && guard++ < 64) ob += p->loc[rb].alias_add, rb = p->loc[rb].alias_of;
    if (ra < 0 || rb < 0) return 0;
    if (p->loc[ra].space != p->loc[rb].space) return 1;
    oa += p->loc[ra].offset, ob += p->loc[rb].offset;
    return oa + p->loc[a].bytes <= ob || ob + p->loc[b].bytes <= oa;
}

/* Step si as layer L of a chain of storage dtype f16 (-1: not fixed yet); *mt its row tile.
   Returns 0 when it does not qualify. */
static int aicf__cuo_gemvp_layer(const aicf_plan* p, int si, int* f16, int* mt, aicf__k_gemvp_layer* L, int* patch_t, uint32_t* patch_f,
                                 uint64_t* patch_a, int* n_patch) {
    const aicf__step* st = &p->steps[si];
    const aicf__cuo_op* op = aicf__cuo_sole(p, si, "aicf_gemv_");
    aicf__k_gemv g;
    size_t len = strlen(st->kernel), so = offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
    int k, lf16, lmt, t_a, t_b, t_y;
    uint64_t add_a = 0, add_b = 0, add_y = 0;
    if (!op || len < 3 || strcmp(st->kernel + len - 2, "_v") != 0 || op->args_size != sizeof g) return 0;
    if (strncmp(st->kernel, "aicf_gemv_f16_m", 15) == 0) lf16 = 1;
    else if (strncmp(st->kernel, "aicf_gemv_f32_m", 15) == 0) lf16 = 0;
    else return 0;
    if (*f16 >= 0 && lf16 != *f16) return 0;
    memcpy(&g, op->args, sizeof g);
    if (g.e.n_ops > AICF__GEMVP_MAX_OPS || g.M < 1 || g.M > AICF__CUO_GEMV_MAX_M) return 0;
    t_a = aicf__cuo_patched(op, offsetof(aicf__k_gemv, a), &add_a);
    t_b = aicf__cuo_patched(op, offsetof(aicf__k_gemv, b), &add_b);
    t_y = aicf__cuo_patched(op, offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y), &add_y);
    if (t_a < 0 || t_b < 0 || t_y < 0 || p->loc[aicf__root(p, t_b)].space != AICF__SPACE_WEIGHTS) return 0;
    if (*n_patch + 3 + g.e.n_ops + 1 > AICF__CUO_MAX_PATCH) return 0;
    for (lmt = 1; lmt < g.M; lmt *= 2) {}
    memset(L, 0, sizeof *L);
    L->M = g.M, L->N = g.N, L->K = g.K, L->lda = g.lda, L->ldb = g.ldb, L->alpha = g.alpha;
    memcpy(L->dims, g.e.dims, sizeof L->dims);
    L->n_ops = g.e.n_ops;
    L->flags = 0;
    for (k = 0; k < g.e.n_ops; k++) L->ops[k] = g.e.ops[k];
    /* the patches, renumbered into the layer (the caller adds the layer's offset) */
    patch_t[*n_patch] = t_a, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, a), patch_a[(*n_patch)++] = add_a;
    patch_t[*n_patch] = t_b, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, b), patch_a[(*n_patch)++] = add_b;
    patch_t[*n_patch] = t_y, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, y), patch_a[(*n_patch)++] = add_y;
    for (k = 0; k < op->n_patch; k++) {
        const aicf__cuo_fix* f = &op->patch[k];
        size_t rel;
        if (f->field < so || f->field >= offsetof(aicf__k_gemv, e) + sizeof(aicf__k_ewchain)) continue; /* a, b, e.y: above */
        rel = f->field - so;
        if (rel % sizeof(aicf__k_ew_op) != offsetof(aicf__k_ew_op, src) || rel / sizeof(aicf__k_ew_op) >= (size_t)g.e.n_ops) return 0;
        if (f->tensor < 0) return 0;
        patch_t[*n_patch] = f->tensor;
        patch_f[*n_patch] = (uint32_t)(offsetof(aicf__k_gemvp_layer, ops) + rel);
        patch_a[(*n_patch)++] = f->add;
    }
    *f16 = lf16;
    if (lmt > *mt) *mt = lmt;
    return 1;
}

/* Step si launches nothing any more: what it computed is done by another step's launch (its
   program freed; kernel `what` unless NULL; the caller writes its reason). */
static void aicf__cuo_mark_absorbed(aicf_plan* p, int si, const char* what) {
    aicf__step* cs = &p->steps[si];
    aicf__free(p->ctx, cs->backend);
    cs->backend = NULL;
    cs->kernel_index = -1;
    memset(cs->grid, 0, sizeof cs->grid);
    memset(cs->block, 0, sizeof cs->block);
    cs->shared_bytes = 0;
    if (what) snprintf(cs->kernel, sizeof cs->kernel, "%s", what);
}

/* The tensor (and *add) patched at `field` of layer l of a gemvp argument struct, or -1. */
static int aicf__cuo_gemvp_patch(const int* patch_t, const uint32_t* patch_f, const uint64_t* patch_a, int n_patch, int l, size_t field,
                                 uint64_t* add) {
    int k;
    for (k = 0; k < n_patch; k++)
        if (patch_f[k] == offsetof(aicf__k_gemvp, l) + (size_t)l * sizeof(aicf__k_gemvp_layer) + field) {
            if (add) *add = patch_a[k];
            return patch_t[k];
        }
    return -1;
}

/* The launch shape of a gemvp run of n layers: the grid (every block owns >= 1 column of layer
   0, at most one block per SM), each layer's columns per block and the offset of its weight rows
   in shared memory, the float32 A staging after them, then each layer's epilogue operand
   values. Returns how many leading layers fit in the device's shared memory per block (0: not
   even the first). */
static int aicf__cuo_gemvp_shape(const aicf_plan* p, aicf__k_gemvp* args, int n, int f16, unsigned* grid, unsigned* smem) {
    int64_t sm = 1, g, rows0, wsum = 0, xmax = 0, limit = 48 * 1024;
    size_t el = f16 ? 2 : 4;
    int l;
#if !defined(AICF_NO_CUDA)
    if (p->ctx->cuda && p->ctx->cuda->ready && p->ctx->cuda->sm_count > 0) sm = p->ctx->cuda->sm_count;
    if (p->ctx->cuda && p->ctx->cuda->ready && p->ctx->cuda->max_smem_optin > limit) limit = p->ctx->cuda->max_smem_optin;
#else
    (void)p;
#endif
    limit -= 4096; /* the kernel's static shared memory (its 2224-byte arguments, partial sums, mbarriers) */
    g = args->l[0].N < sm ? args->l[0].N : sm;
    rows0 = (args->l[0].N + g - 1) / g;
    g = (args->l[0].N + rows0 - 1) / rows0; /* no block without a column of layer 0 */
    for (l = 0; l < n; l++) {
        aicf__k_gemvp_layer* L = &args->l[l];
        int64_t rows = (L->N + g - 1) / g, wb = rows * L->K * (int64_t)el, xb = L->M * L->K * 4;
        if (rows > 0x7fffffff || wsum + wb + (xb > xmax ? xb : xmax) > limit) break;
        L->rows = (int32_t)rows;
        L->w_smem = (uint32_t)wsum;
        wsum += (wb + 15) / 16 * 16;
        if (xb > xmax) xmax = xb;
    }
    args->x_smem = (uint32_t)wsum;
    wsum += (xmax + 15) / 16 * 16;
    n = l;
    for (l = 0; l < n; l++) { /* the epilogue operands, read at launch start */
        aicf__k_gemvp_layer* L = &args->l[l];
        int64_t eb = (int64_t)L->rows * L->M * L->n_ops * 4;
        if (wsum + eb > limit) break;
        L->e_smem = (uint32_t)wsum;
        wsum += (eb + 15) / 16 * 16;
    }
    *grid = (unsigned)g;
    *smem = (unsigned)wsum;
    return l;
}

static aicf_result aicf__cuo_persist_run(aicf_plan* p, int lead, int first, int n_layers, int trail, aicf__k_gemvp* args, int mt,
                                         int f16, unsigned blocks, unsigned smem, const int* patch_t, const uint32_t* patch_f,
                                         const uint64_t* patch_a, int n_patch, size_t* sync_bytes) {
    aicf__cuo c;
    aicf__cuo_op* op = NULL;
    aicf__cuo_prog* pr;
    unsigned grid[3], block[3];
    uint64_t region = (*sync_bytes + 255) / 256 * 256, h = 1024; /* the header: the epoch word, the kernel's timeline probe */
    int k, s0 = lead >= 0 ? lead : first, s1 = trail >= 0 ? trail : first + n_layers - 1, si;
    size_t word = f16 ? 4 : 8;
    char name[64];
    aicf_result r;
    /* hand-off buffers: layer l < last writes M x N tagged words, layer l + 1 reads them */
    for (k = 0; k < n_layers; k++) {
        args->l[k].h_in = k > 0 ? args->l[k - 1].h_out : -1;
        args->l[k].h_out = -1;
        if (k + 1 < n_layers) {
            args->l[k].h_out = (int32_t)h;
            h += ((uint64_t)(args->l[k].M * args->l[k].N) * word + 15) / 16 * 16;
        }
    }
    if (h > 0x7fffffff) return AICF_ERROR_UNSUPPORTED;
    memset(&c, 0, sizeof c);
    c.p = p, c.ctx = p->ctx, c.g = p->g, c.si = s0, c.st = &p->steps[s0];
    c.ops = (aicf__cuo_op*)aicf__malloc(p->ctx, sizeof(aicf__cuo_op));
    if (!c.ops) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    grid[0] = blocks, grid[1] = grid[2] = 1;
    block[0] = AICF__GEMVP_BLOCK, block[1] = block[2] = 1;
    snprintf(name, sizeof name, "aicf_gemvp_%s_m%d", f16 ? "f16" : "f32", mt);
    if (aicf__cuda_kernel_find(name) < 0) { /* a table without it: keep the separate launches (no error recorded) */
        aicf__free(p->ctx, c.ops);
        return AICF_ERROR_UNSUPPORTED;
    }
    r = aicf__cuo_kernel(&c, name, args, sizeof *args, grid, block, smem, &op);
    if (r != AICF_SUCCESS || !op) {
        aicf__free(p->ctx, c.ops);
        return r == AICF_SUCCESS ? AICF_ERROR_UNSUPPORTED : r;
    }
    aicf__cuo_patch(op, offsetof(aicf__k_gemvp, sync), AICF__CUO_SYNC, region);
    for (k = 0; k < n_patch; k++) aicf__cuo_patch(op, patch_f[k], patch_t[k], patch_a[k]);
    pr = (aicf__cuo_prog*)aicf__calloc(p->ctx, 1, AICF__CUO_HDR + sizeof(aicf__cuo_op));
    if (!pr) {
        aicf__free(p->ctx, c.ops);
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    }
    pr->n_ops = 1;
    memcpy(aicf__cuo_prog_ops(pr), op, sizeof *op);
    for (si = s0; si <= s1; si++) {
        aicf__step* st = &p->steps[si];
        aicf__cuo_mark_absorbed(p, si, si != s0 ? "persistent" : NULL);
        if (si != s0) {
            if (si == lead || si == trail)
                snprintf(st->reason, sizeof st->reason, "runs inside step %d's persistent kernel %s: Cast absorbed, its float16 tensor not written",
                         s0, name);
            else
                snprintf(st->reason, sizeof st->reason, "runs inside step %d's persistent kernel %s: layer %d of %d%s", s0, name,
                         si - first + 1, n_layers, si > first ? ", its input handed off from the layer before" : "");
        }
    }
    {
        aicf__step* st = &p->steps[s0];
        st->backend = pr;
        st->kernel_index = op->kernel_index;
        memcpy(st->grid, grid, sizeof grid);
        memcpy(st->block, block, sizeof block);
        st->shared_bytes = smem;
        snprintf(st->kernel, sizeof st->kernel, "%s", name);
        snprintf(st->reason, sizeof st->reason,
                 "persistent: steps %d..%d (%d GEMV layer%s%s%s), %u blocks (<= 1/SM), weights in %u B shared memory, "
                 "tagged hand-offs",
                 s0, s1, n_layers, n_layers > 1 ? "s" : "", lead >= 0 ? ", input Cast" : "", trail >= 0 ? ", output Cast" : "", blocks,
                 smem);
    }
    *sync_bytes = region + h;
    aicf__free(p->ctx, c.ops);
    return AICF_SUCCESS;
}

/* A single GEMV step with the boundary Cast before it (lead >= 0) and/or after it (trail >= 0):
   the GEMV reads the Cast's float32 input (tensor a, + a_add) and/or writes the float32 output
   (tensor d, + d_add) itself (aicf_gemv flags, the Casts' rounding kept); the Cast steps launch
   nothing. The conditions are those of a persistent run's (aicf__cuda_persist). */
static void aicf__cuo_fold_casts(aicf_plan* p, int lead, int gemv, int trail, int a, uint64_t a_add, int d, uint64_t d_add) {
    aicf__step* st = &p->steps[gemv];
    aicf__cuo_op* op = aicf__cuo_prog_ops((aicf__cuo_prog*)st->backend);
    aicf__k_gemv g;
    int k, si;
    char extra[64];
    memcpy(&g, op->args, sizeof g);
    for (k = 0; k < op->n_patch; k++) {
        if (lead >= 0 && op->patch[k].field == offsetof(aicf__k_gemv, a)) op->patch[k].tensor = a, op->patch[k].add = a_add;
        if (trail >= 0 && op->patch[k].field == offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y))
            op->patch[k].tensor = d, op->patch[k].add = d_add;
    }
    if (lead >= 0) g.flags |= AICF__GEMVP_A_F32;
    if (trail >= 0) g.flags |= AICF__GEMVP_D_F32;
    memcpy(op->args, &g, sizeof g);
    for (si = lead >= 0 ? lead : gemv; si <= (trail >= 0 ? trail : gemv); si++) {
        aicf__step* cs = &p->steps[si];
        if (si == gemv) continue;
        aicf__cuo_mark_absorbed(p, si, "absorbed");
        snprintf(cs->reason, sizeof cs->reason, "Cast absorbed into step %d's GEMV (%s): its float16 tensor is not written", gemv,
                 si == lead ? "reads the float32 input" : "writes the float32 output");
    }
    snprintf(extra, sizeof extra, "; boundary Cast%s absorbed (%s%s%s)", lead >= 0 && trail >= 0 ? "s" : "",
             lead >= 0 ? "float32 A" : "", lead >= 0 && trail >= 0 ? ", " : "", trail >= 0 ? "float32 D" : "");
    { /* the original reason, shortened where needed so the note fits */
        char why[sizeof st->reason];
        int keep = (int)(sizeof why - 1 - strlen(extra));
        snprintf(why, sizeof why, "%.*s%s", keep, st->reason, extra);
        memcpy(st->reason, why, sizeof why);
    }
}

/* A float16 step that ends in an elementwise chain launch (aicf_ewchain_f16*, e.g. a cuBLASLt
   GEMM's activation, or the tensor-core GEMM aicf_gemm_tc_f16*, whose arguments begin with the
   chain's struct and which stores float32 pairs under the same flag), in a row-register
   LayerNormalization / RMSNormalization launch (aicf_norm_rowreg*_f16), in the Hopper GEMM
   (aicf_gemm_wg_f16*, its chain struct at g.e, the same flag in its register epilogue) or in the GEMM with the
   LayerNorm after it (aicf_gemm_wsln_f16*, whose chain struct is at g.e: the launch becomes its
   _y32 kernel, which stores float32 pairs from registers instead of the staged TMA stores; both
   the last step of a post-LN transformer) writing tensor T whole, followed by the boundary Cast T -> D (float32), T
   read by nothing else: the kernel writes D itself (flags bit 0: float32, rounded through
   float16 as the Cast did, so the output is the unfused plan's bit for bit) and the Cast step
   launches nothing. D must not overlap what the kernel reads (the memory plan placed D apart
   from T; the kernel's other sources are checked). Returns the Casts absorbed. */
static int aicf__cuo_fold_ew_cast(aicf_plan* p) {
    int s, k, n = 0;
    for (s = 0; s + 1 < p->n_steps; s++) {
        aicf__step* st = &p->steps[s];
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        aicf__cuo_op *ops, *ew;
        const aicf__cuo_op* cast = aicf__cuo_sole(p, s + 1, "aicf_cast_f16_f32");
        aicf__k_ewchain e;
        aicf__k_norm nm;
        aicf__k_cast ca;
        uint64_t add_x = 0, add_y = 0, add_t = 0;
        int x, d, t, ok = 1, norm, wsln, wg;
        int64_t n_out, flags;
        size_t y_field, e_off = 0;
        const char* kn;
        if (!pr || !cast || pr->n_ops < 1) continue;
        ops = aicf__cuo_prog_ops(pr);
        ew = &ops[pr->n_ops - 1];
        if (ew->kind != AICF__CUO_KERNEL) continue;
        /* a chain kernel, the tensor-core GEMM (its argument struct starts with the chain's), or
           the row-register normalization */
        kn = aicf__cuo_kname(ew->kernel_index);
        norm = strncmp(kn, "aicf_norm_rowreg", 16) == 0 && strstr(kn, "_f16") != NULL;
        wsln = strstr(kn, "aicf_gemm_wsln_f16") == kn;
        wg = strstr(kn, "aicf_gemm_wg_f16") == kn;
        if (!norm && !wsln && !wg && strncmp(kn, "aicf_ewchain_f16", 16) != 0 && strncmp(kn, "aicf_gemm_tc_f16", 16) != 0) continue;
        if (wsln) e_off = offsetof(aicf__k_gemm_ws, g) + offsetof(aicf__k_gemv, e);
        if (wg) e_off = offsetof(aicf__k_gemm_wg, g) + offsetof(aicf__k_gemv, e);
        if (norm) {
            memcpy(&nm, ew->args, sizeof nm);
            n_out = nm.rows * nm.cols, flags = nm.flags, y_field = offsetof(aicf__k_norm, y);
        } else {
            memcpy(&e, (const unsigned char*)ew->args + e_off, sizeof e);
            n_out = e.n, flags = e.flags, y_field = e_off + offsetof(aicf__k_ewchain, y);
        }
        memcpy(&ca, cast->args, sizeof ca);
        x = aicf__cuo_patched(cast, offsetof(aicf__k_cast, x), &add_x);
        d = aicf__cuo_patched(cast, offsetof(aicf__k_cast, y), &add_y);
        t = aicf__cuo_patched(ew, y_field, &add_t);
        if (x < 0 || d < 0 || t != x || add_x || add_y || add_t || n_out != ca.n || n_out != aicf__shape_numel(&p->g->tensors[x].shape) ||
            flags || aicf__cuo_reads(p, x) != 1)
            continue;
        if ((norm || wsln || wg) && aicf__plan_align(p, d, 0) < 16) continue; /* the norm's float4 stores, wsln's and wg's float2 */
        for (k = 0; k < ew->n_patch && ok; k++) /* the kernel's sources (and its statistics outputs) and D apart */
            if (ew->patch[k].field != y_field) ok = aicf__cuo_disjoint(p, d, ew->patch[k].tensor);
        if (!ok) continue;
        if (wsln) { /* its float32 form: the _y32 kernel (a template parameter: the float16 kernel's code stays as it was) */
            char yn[96];
            int ky;
            snprintf(yn, sizeof yn, "%s_y32", kn);
            if ((ky = aicf__cuda_kernel_find(yn)) < 0) continue;
            if (st->kernel_index == ew->kernel_index) st->kernel_index = ky;
            ew->kernel_index = ky;
            snprintf(st->kernel, sizeof st->kernel, "%s", yn);
        }
        for (k = 0; k < ew->n_patch; k++)
            if (ew->patch[k].field == y_field) ew->patch[k].tensor = d;
        if (norm) {
            nm.flags |= 1;
            memcpy(ew->args, &nm, sizeof nm);
        } else {
            e.flags |= 1;
            memcpy((unsigned char*)ew->args + e_off, &e, sizeof e);
        }
        {
            aicf__step* cs = &p->steps[s + 1];
            char extra[48], why[sizeof st->reason];
            int keep;
            aicf__cuo_mark_absorbed(p, s + 1, "absorbed");
            snprintf(cs->reason, sizeof cs->reason, "Cast absorbed into step %d's %s, which writes the float32 output: its float16 tensor is not written",
                     s, norm ? "normalization kernel" : wsln ? "GEMM + LayerNorm kernel (_y32: register stores)" : wg ? "Hopper GEMM" : "elementwise chain");
            snprintf(extra, sizeof extra, "; Cast to f32 folded in");
            keep = (int)(sizeof why - 1 - strlen(extra));
            if ((int)strlen(st->reason) < keep) { /* else the Cast step's own reason says it */
                snprintf(why, sizeof why, "%.*s%s", keep, st->reason, extra);
                memcpy(st->reason, why, sizeof why);
            }
        }
        n++;
        s++;
    }
    return n;
}

aicf_result aicf__cuda_persist(aicf_plan* p, int* n_kernels, size_t* sync_bytes) {
    int s = 0;
    *n_kernels = 0;
    *sync_bytes = 0;
    if (p->policy.no_fusion) return AICF_SUCCESS;
    while (s < p->n_steps) {
        aicf__k_gemvp args;
        aicf__k_gemvp_layer L;
        int patch_t[AICF__CUO_MAX_PATCH], n_patch = 0, f16 = -1, mt = 1, n = 0, lead = -1, trail = -1, first, k, pbase;
        unsigned blocks = 1, smem = 0;
        int fit = 0;
        uint32_t patch_f[AICF__CUO_MAX_PATCH];
        uint64_t patch_a[AICF__CUO_MAX_PATCH];
        const aicf__cuo_op* cast;
        aicf_result r;
        memset(&args, 0, sizeof args);
        first = s;
        /* an input Cast f32 -> f16 right before */
        cast = aicf__cuo_sole(p, s, "aicf_cast_f32_f16");
        if (cast && s + 1 < p->n_steps) first = s + 1;
        while (first + n < p->n_steps && n < (p->policy.persistent ? AICF__GEMVP_MAX_LAYERS : 1)) {
            pbase = n_patch;
            if (!aicf__cuo_gemvp_layer(p, first + n, &f16, &mt, &L, patch_t, patch_f, patch_a, &n_patch)) break;
            for (k = pbase; k < n_patch; k++) patch_f[k] += (uint32_t)(offsetof(aicf__k_gemvp, l) + (size_t)n * sizeof L);
            args.l[n++] = L;
        }
        if (n == 0) {
            s++;
            continue;
        }
        /* the operands: constants or produced before the run (no layer of it writes them) */
        for (k = 0; k < n_patch; k++) {
            int j, root = aicf__root(p, patch_t[k]);
            size_t rel = (patch_f[k] - offsetof(aicf__k_gemvp, l)) % sizeof L;
            if (rel < offsetof(aicf__k_gemvp_layer, ops)) continue;
            for (j = 0; j < n; j++)
                if (aicf__root(p, p->steps[first + j].out[0]) == root) break;
            if (j < n) { /* cut the run before the layer that reads it */
                int layer = (int)((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L);
                if (layer < n) n = layer;
            }
        }
        /* a chain: layer j reads exactly layer j - 1's output, whole (the hand-off carries it) */
        for (k = 1; k < n; k++) {
            uint64_t add_a = 0, add_y = 0;
            int ta = aicf__cuo_gemvp_patch(patch_t, patch_f, patch_a, n_patch, k, offsetof(aicf__k_gemvp_layer, a), &add_a);
            int ty = aicf__cuo_gemvp_patch(patch_t, patch_f, patch_a, n_patch, k - 1, offsetof(aicf__k_gemvp_layer, y), &add_y);
            const aicf__k_gemvp_layer *L = &args.l[k], *P = &args.l[k - 1];
            if (ta < 0 || ta != ty || add_a || add_y || L->M != P->M || L->K != P->N || L->lda != L->K ||
                aicf__shape_numel(&p->g->tensors[ty].shape) != P->M * P->N) {
                n = k;
                break;
            }
        }
        if (n > 0) { /* the layers whose weight rows fit in shared memory (a single GEMV folds its Casts without) */
            fit = aicf__cuo_gemvp_shape(p, &args, n, f16, &blocks, &smem);
            n = fit > 0 ? fit : 1;
        }
        if (n == 0) {
            s = first + 1;
            continue;
        }
        /* drop the patches of layers cut away */
        {
            int w = 0;
            for (k = 0; k < n_patch; k++)
                if ((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L < (size_t)n) {
                    patch_t[w] = patch_t[k], patch_f[w] = patch_f[k], patch_a[w] = patch_a[k];
                    w++;
                }
            n_patch = w;
        }
        args.n_layers = n;
        if (cast && first == s + 1 && f16 == 1) { /* absorb the input Cast */
            uint64_t add_x = 0, add_y = 0;
            int x = aicf__cuo_patched(cast, offsetof(aicf__k_cast, x), &add_x), y = aicf__cuo_patched(cast, offsetof(aicf__k_cast, y), &add_y);
            aicf__cuo cc;
            memset(&cc, 0, sizeof cc);
            cc.p = p;
            /* layer 0 then reads x while it writes its output: the memory plan kept them apart only
               if x was still live (it need not be: the Cast was x's last reader) */
            if (x >= 0 && y >= 0 && add_x == 0 && add_y == 0 && patch_t[0] == y && patch_a[0] == 0 && aicf__cuo_reads(p, y) == 1 &&
                aicf__cuo_align(&cc, x, add_x) >= 16 && args.l[0].lda % 4 == 0 && aicf__cuo_disjoint(p, x, p->steps[first].out[0])) {
                patch_t[0] = x, patch_a[0] = add_x;
                args.l[0].flags |= AICF__GEMVP_A_F32;
                lead = s;
            }
        }
        if (f16 == 1 && first + n < p->n_steps) { /* absorb the output Cast */
            const aicf__cuo_op* oc = aicf__cuo_sole(p, first + n, "aicf_cast_f16_f32");
            uint64_t add_x = 0, add_y = 0, add_d = 0;
            int x = oc ? aicf__cuo_patched(oc, offsetof(aicf__k_cast, x), &add_x) : -1;
            int y = oc ? aicf__cuo_patched(oc, offsetof(aicf__k_cast, y), &add_y) : -1;
            int d = -1, kd = -1;
            for (k = 0; k < n_patch; k++)
                if (patch_f[k] == offsetof(aicf__k_gemvp, l) + (size_t)(n - 1) * sizeof L + offsetof(aicf__k_gemvp_layer, y)) kd = k;
            if (kd >= 0) d = patch_t[kd], add_d = patch_a[kd];
            int apart = y >= 0;
            /* the last layer then writes y while it reads its inputs: apart only if the memory plan
               placed them so (y is born after the layer's step, its inputs may die there) */
            for (k = 0; k < n_patch && apart; k++)
                if ((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L == (size_t)(n - 1) && k != kd)
                    apart = aicf__cuo_disjoint(p, y, patch_t[k]);
            if (x >= 0 && y >= 0 && apart && d == x && add_x == 0 && add_y == 0 && add_d == 0 && aicf__cuo_reads(p, x) == 1) {
                patch_t[kd] = y, patch_a[kd] = add_y;
                args.l[n - 1].flags |= AICF__GEMVP_D_F32;
                trail = first + n;
            }
        }
        if (n + (lead >= 0) + (trail >= 0) < 2) {
            s = first + n;
            continue;
        }
        if (n == 1 && (!p->policy.persistent || fit == 0)) { /* no hand-off needed: the GEMV kernel itself reads/writes float32 */
            aicf__cuo_fold_casts(p, lead, first, trail, patch_t[0], patch_a[0], trail >= 0 ? patch_t[2] : -1, trail >= 0 ? patch_a[2] : 0);
            s = (trail >= 0 ? trail : first) + 1;
            continue;
        }
        r = aicf__cuo_persist_run(p, lead, first, n, trail, &args, mt, f16, blocks, smem, patch_t, patch_f, patch_a, n_patch, sync_bytes);
        if (r != AICF_SUCCESS && r != AICF_ERROR_UNSUPPORTED) return r;
        if (r == AICF_SUCCESS) (*n_kernels)++;
        s = (trail >= 0 ? trail : first + n - 1) + 1;
    }
    aicf__cuo_fold_ew_cast(p);
    return AICF_SUCCESS;
}

/* Programmatic dependent launch as a plan decision. A kernel node joined to the previous kernel
   by a programmatic edge (CUDA 12.3 graph edge data, sm_90+) may be launched before that kernel
   has finished; every generated kernel executes griddepcontrol.wait before it touches memory an
   earlier launch may have written (templates/pdl.inc.j2), so the results are those of serialised
   launches. When it is launched is the previous kernel's: the GEMV triggers its dependents right
   after its own wait (they become resident while it runs: the next GEMV, whose B is a constant
   (AICF__GEMV_B_CONST), prefetches its weight row into L1 before its wait); every other kernel
   lets them launch as its blocks exit, which overlaps the launch with its tail and the memory
   flush. Measured (docs/benchmarks.md): on an H100, session 25, mlp_b1 (four GEMVs) 14.1-14.3 us
   without programmatic edges, 10.9-11.0 with them and the prefetch; when every kernel triggered
   early, edges between all kernels cost resnet18_b1 ~22 us (the waiting dependents' blocks take
   the SMs' room), so only GEMV launches were programmatic. On an H200, session 27, with the early
   trigger left to the GEMV, edges between all kernels: resnet18_b1 190.1 -> 180.0 us,
   light_resnet50 594.5 -> 573.0, light_inception_v1 634.7 -> 604.6, mlp_b1 and enc_b1 unchanged.
   So the rule: every kernel launch right after another kernel launch of the plan is
   programmatic. (cuBLASLt's captured launches are child graph nodes: no programmatic edge goes
   into or out of them; the nvjet kernels cuBLASLt 13.1 runs on sm_90 do not wait.) */
int aicf__cuda_pdl(aicf_plan* p, int cc_major) {
    int si, k, n = 0, prev_kernel = 0;
    if (p->policy.no_pdl || cc_major < 9) return 0;
    for (si = 0; si < p->n_steps; si++) {
        aicf__cuo_prog* pr = (aicf__cuo_prog*)p->steps[si].backend;
        aicf__cuo_op* ops;
        if (!pr) continue;
        ops = aicf__cuo_prog_ops(pr);
        for (k = 0; k < pr->n_ops; k++) {
            aicf__cuo_op* op = &ops[k];
            int is_kernel = op->kind == AICF__CUO_KERNEL && op->kernel_index >= 0;
            op->pdl = is_kernel && prev_kernel;
            n += op->pdl;
            prev_kernel = is_kernel;
        }
    }
    return n;
}

/* The reason of an autotuned step: the choice, the candidates timed, the fastest time, then the
   lowering's own reason. */
static void aicf__cuo_tuned_why(const aicf__step* st, const char* reason, char* why, size_t cap) {
    int k, best = 0;
    for (k = 1; k < st->n_tuned && k < AICF__TUNE_MAX; k++)
        if (st->tuned[k].ns < st->tuned[best].ns) best = k;
    snprintf(why, cap, "autotuned: %s%s%.0d fastest of %d (%.2f us); %.120s", aicf__choice_name(st->choice), st->choice_lt ? "/" : "",
             st->choice_lt, st->n_tuned, st->n_tuned > 0 ? (double)st->tuned[best].ns / 1000.0 : 0.0, reason);
}

aicf_result aicf__cuda_select_step(aicf_plan* p, int si) {
    aicf__cuo c;
    aicf__step* st;
    aicf_result r;
    int i, first = -1;
    if (!p || !p->ctx || !p->g || !p->loc || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    memset(&c, 0, sizeof c);
    c.p = p;
    c.ctx = p->ctx;
    c.g = p->g;
    c.si = si;
    c.st = st;
    c.es = 4;
    st->kernel[0] = 0;
    st->reason[0] = 0;
    st->kernel_index = -1;
    st->shared_bytes = 0;
    for (i = 0; i < 3; i++) st->grid[i] = st->block[i] = 0;
    if (st->kind == AICF__STEP_NODE) {
        if (st->node < 0 || st->node >= p->g->n_nodes) return AICF_ERROR_INVALID_ARGUMENT;
        c.nd = &p->g->nodes[st->node];
    }
    c.ops = (aicf__cuo_op*)aicf__malloc(p->ctx, sizeof(aicf__cuo_op) * AICF__CUO_MAX_OPS);
    if (!c.ops) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    if (st->kind == AICF__STEP_CAST) {
        if (st->n_in < 1 || st->n_out < 1 || st->in[0] < 0 || st->out[0] < 0) r = AICF_ERROR_INVALID_ARGUMENT;
        else r = aicf__cuo_convert(&c, st->in[0], st->out[0]);
    } else if (st->n_epi > 0) {
        /* a fused step: an elementwise main node and its epilogue in one chain kernel, else the
           main node's own lowering followed by the epilogue in place */
        st->epi_native = 0;
        r = aicf__cuo_lower_chain(&c);
        if (r == AICF_ERROR_UNSUPPORTED) {
            c.n_ops = 0;
            c.first_name[0] = 0;
            c.reason[0] = 0;
            st->epi_native = 0;
            r = aicf__cuo_lower_node(&c);
            if (r == AICF_SUCCESS) r = aicf__cuo_lower_epilogue(&c);
        }
    } else {
        r = aicf__cuo_lower_node(&c);
    }
    if (r == AICF_SUCCESS && st->choice == AICF_CHOICE_RULE && st->choice_src == AICF__CHOICE_FROM_TUNE) {
        /* autotuning measured the rules' own lowering fastest */
        char why[sizeof c.reason];
        aicf__cuo_tuned_why(st, c.reason, why, sizeof why);
        memcpy(c.reason, why, sizeof why);
    } else if (r == AICF_SUCCESS && st->choice != AICF_CHOICE_RULE) { /* a pinned, tuned or tried choice must take the step */
        int took, is_conv = c.nd && c.nd->op == AICF__OP_Conv, has_mm = 0;
        for (i = 0; i < c.n_ops; i++) has_mm |= c.ops[i].kind == AICF__CUO_MATMUL;
        if (is_conv) took = strncmp(c.first_name, "aicf_conv2d_tc", 14) == 0 ? AICF_CHOICE_IMPLICIT_GEMM_TC
                            : has_mm                                      ? AICF_CHOICE_IM2COL_GEMM
                                                                          : AICF_CHOICE_DIRECT;
        else took = has_mm ? AICF_CHOICE_CUBLASLT : AICF_CHOICE_GENERATED;
        if (took != st->choice) {
            if (st->choice_src == AICF__CHOICE_TRYING) r = AICF_ERROR_UNSUPPORTED;
            else
                r = aicf__cuo_fail(&c, AICF_ERROR_UNSUPPORTED, "the %s choice %s%s%.0d does not apply: the lowering took %s (%.200s)%s%.240s",
                                   st->choice_src == AICF__CHOICE_FROM_PIN ? "pinned" : "recorded", aicf__choice_name(st->choice),
                                   st->choice_lt ? "/" : "", st->choice_lt, aicf__choice_name(took), c.reason,
                                   c.lt_fail[0] ? "; cuBLASLt: " : "", c.lt_fail);
        } else if (st->choice_src == AICF__CHOICE_FROM_PIN || st->choice_src == AICF__CHOICE_FROM_TUNE) {
            char why[sizeof c.reason];
            if (st->choice_src == AICF__CHOICE_FROM_PIN)
                snprintf(why, sizeof why, "pinned %s%s%.0d; %.150s", aicf__choice_name(st->choice), st->choice_lt ? "/" : "", st->choice_lt,
                         c.reason);
            else
                aicf__cuo_tuned_why(st, c.reason, why, sizeof why);
            memcpy(c.reason, why, sizeof why);
        }
    }
    if (r == AICF_SUCCESS) {
        size_t bytes = AICF__CUO_HDR + (size_t)c.n_ops * sizeof(aicf__cuo_op) + (size_t)c.n_algo * AICF__CUO_ALGO_BYTES;
        aicf__cuo_prog* pr = NULL;
        if (c.n_ops > 0) {
            pr = (aicf__cuo_prog*)aicf__calloc(p->ctx, 1, bytes);
            if (!pr) r = aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
        }
        if (pr) {
            pr->n_ops = c.n_ops;
            pr->n_algo = c.n_algo;
            memcpy(aicf__cuo_prog_ops(pr), c.ops, (size_t)c.n_ops * sizeof(aicf__cuo_op));
            for (i = 0; i < c.n_algo; i++)
                if (c.algo[i]) memcpy(aicf__cuo_prog_algo(pr, i), c.algo[i], AICF__CUO_ALGO_SIZE);
            st->backend = pr;
        }
    }
    for (i = 0; i < c.n_algo; i++) aicf__free(p->ctx, c.algo[i]);
    if (r == AICF_SUCCESS) {
        for (i = 0; i < c.n_ops; i++)
            if (c.ops[i].kind == AICF__CUO_KERNEL) {
                first = i;
                break;
            }
        if (c.kernel[0] || first < 0) {
            snprintf(st->kernel, sizeof st->kernel, "%s", c.kernel[0] ? c.kernel : "none");
        } else {
            const aicf__cuo_op* op = &c.ops[first];
            st->kernel_index = op->kernel_index;
            memcpy(st->grid, op->grid, sizeof st->grid);
            memcpy(st->block, op->block, sizeof st->block);
            st->shared_bytes = op->shared_bytes;
            snprintf(st->kernel, sizeof st->kernel, "%s", c.first_name);
        }
        if (c.n_ops > 1) {
            size_t len = strlen(c.reason);
            snprintf(c.reason + len, sizeof c.reason - len, " [%d launches]", c.n_ops);
        }
        snprintf(st->reason, sizeof st->reason, "%s", c.reason);
    }
    aicf__free(p->ctx, c.ops);
    return r;
}

aicf_result aicf__cuda_emit_step(aicf__cuda_emitter* em, aicf_plan* p, int si) {
    aicf__step* st;
    aicf__cuo_prog* pr;
    aicf__cuo_op* ops;
    int i, k;
    if (!em || !p || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    pr = (aicf__cuo_prog*)st->backend;
    if (!pr) return AICF_SUCCESS; /* alias, empty */
    ops = aicf__cuo_prog_ops(pr);
    for (i = 0; i < pr->n_ops; i++) {
        const aicf__cuo_op* op = &ops[i];
        uint64_t args[AICF__CUO_ARGS_WORDS];
        uint64_t addr[AICF__CUO_MAX_PATCH];
        aicf_result r;
        for (k = 0; k < op->n_patch; k++) {
            uint64_t base = op->patch[k].tensor == AICF__CUO_SCRATCH ? aicf__cuda_scratch_ptr(em)
                            : op->patch[k].tensor == AICF__CUO_SYNC  ? aicf__cuda_sync_ptr(em)
                                                                     : aicf__cuda_tensor_ptr(em, op->patch[k].tensor);
            if (!base && op->patch[k].tensor == AICF__CUO_SCRATCH)
                return aicf__err(p->ctx, AICF_ERROR_STATE,
                                 "aicf_exec_create: step %d (%s): its %llu bytes of arena scratch at offset %llu are not in the arena",
                                 si, st->kernel, (unsigned long long)st->scratch_bytes, (unsigned long long)st->scratch_offset);
            if (!base && op->patch[k].tensor == AICF__CUO_SYNC)
                return aicf__err(p->ctx, AICF_ERROR_STATE, "aicf_exec_create: step %d (%s): the exec has no sync region", si, st->kernel);
            if (!base) {
                const aicf__tensor* t = &p->g->tensors[op->patch[k].tensor];
                return aicf__err(p->ctx, AICF_ERROR_STATE, "aicf_exec_create: step %d (%s): tensor '%.200s' has no device storage",
                                 si, st->kernel, t->name ? t->name : "");
            }
            addr[k] = base + op->patch[k].add;
        }
        if (op->kind == AICF__CUO_COPY) {
            r = aicf__cuda_emit_copy(em, addr[0], addr[1], (size_t)op->copy_bytes);
        } else {
            memcpy(args, op->args, sizeof args);
            for (k = 0; k < op->n_patch; k++) {
                unsigned char* at = (unsigned char*)args + op->patch[k].field;
                if (op->patch[k].tmap) { /* the request there becomes the tensor map */
                    aicf__tmap_req rq;
                    memcpy(&rq, at, sizeof rq);
                    if ((r = aicf__cuda_encode_tmap(em, &rq, addr[k], at)) != AICF_SUCCESS) return r;
                } else {
                    memcpy(at, &addr[k], sizeof(uint64_t));
                }
            }
            if (op->kind == AICF__CUO_KERNEL)
                r = aicf__cuda_emit_kernel(em, op->kernel_index, op->grid, op->block, op->shared_bytes, args, op->args_size, op->pdl);
            else
                r = aicf__cuda_emit_matmul(em, (const aicf__matmul_desc*)(const void*)args, aicf__cuo_prog_algo(pr, op->algo));
        }
        if (r != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

/* ---- the op program as plain data, for plan files and explain (>>plan_io) ---- */
typedef char aicf__cuo_check_view[AICF__CUO_MAX_PATCH <= AICF__CUDA_VIEW_MAX_PATCH ? 1 : -1]; /* aicf__cuda_op_view's arrays */

uint64_t aicf__cuda_step_hash(const aicf_plan* p, int si) {
    const aicf__cuo_prog* pr;
    if (!p || si < 0 || si >= p->n_steps || !p->steps[si].backend) return 0;
    pr = (const aicf__cuo_prog*)p->steps[si].backend;
    return aicf__fnv1a(AICF__FNV_BASIS, pr,
                       AICF__CUO_HDR + (size_t)pr->n_ops * sizeof(aicf__cuo_op) + (size_t)pr->n_algo * AICF__CUO_ALGO_BYTES);
}

int aicf__cuda_step_ops(const aicf_plan* p, int si, int* n_algo) {
    const aicf__cuo_prog* pr;
    if (n_algo) *n_algo = 0;
    if (!p || p->target != AICF_BACKEND_CUDA || si < 0 || si >= p->n_steps || !p->steps[si].backend) return 0;
    pr = (const aicf__cuo_prog*)p->steps[si].backend;
    if (n_algo) *n_algo = pr->n_algo;
    return pr->n_ops;
}

void aicf__cuda_step_op(const aicf_plan* p, int si, int k, aicf__cuda_op_view* v) {
    aicf__cuo_prog* pr;
    const aicf__cuo_op* op;
    int i;
    memset(v, 0, sizeof *v);
    v->kernel_index = v->algo = -1;
    v->kernel_name = "";
    if (k < 0 || k >= aicf__cuda_step_ops(p, si, NULL)) return;
    pr = (aicf__cuo_prog*)p->steps[si].backend;
    op = &aicf__cuo_prog_ops(pr)[k];
    v->kind = op->kind;
    v->kernel_index = op->kernel_index;
    if (op->kind == AICF__CUO_KERNEL && op->kernel_index >= 0) v->kernel_name = aicf__cuo_kname(op->kernel_index);
    memcpy(v->grid, op->grid, sizeof v->grid);
    memcpy(v->block, op->block, sizeof v->block);
    v->shared_bytes = op->shared_bytes;
    v->pdl = op->kind == AICF__CUO_KERNEL && op->pdl;
    v->prefetch = 0;
    if (op->kind == AICF__CUO_KERNEL && op->kernel_index >= 0 &&
        (strncmp(v->kernel_name, "aicf_gemv_", 10) == 0 || strncmp(v->kernel_name, "aicf_gemm_tc_f16_s", 18) == 0 ||
         strncmp(v->kernel_name, "aicf_gemm_wg_", 13) == 0)) {
        aicf__k_gemv g;
        memcpy(&g, (const unsigned char*)op->args + (v->kernel_name[10] == 'w' ? offsetof(aicf__k_gemm_wg, g) : 0), sizeof g);
        v->prefetch = (g.flags & AICF__GEMV_B_CONST) != 0;
    }
    v->args_size = op->kind == AICF__CUO_COPY ? 0 : op->args_size;
    v->args = (const unsigned char*)op->args;
    v->n_patch = op->n_patch;
    for (i = 0; i < op->n_patch && i < AICF__CUO_MAX_PATCH; i++) {
        v->patch_field[i] = op->patch[i].field;
        v->patch_tensor[i] = op->patch[i].tensor;
        v->patch_add[i] = op->patch[i].add;
        v->patch_tmap[i] = op->patch[i].tmap;
    }
    v->copy_bytes = op->copy_bytes;
    v->algo = op->kind == AICF__CUO_MATMUL ? op->algo : -1;
}

void aicf__cuda_step_algo(const aicf_plan* p, int si, int k, aicf__algo_rec* a) {
    int n_algo = 0;
    memset(a, 0, sizeof *a);
    aicf__cuda_step_ops(p, si, &n_algo);
    if (k < 0 || k >= n_algo) return;
#if !defined(AICF_NO_CUDA)
    {
        const aicf__cuda_algo* rec = (const aicf__cuda_algo*)aicf__cuo_prog_algo((aicf__cuo_prog*)p->steps[si].backend, k);
        memcpy(a->blob, rec->algo.data, sizeof a->blob);
        a->workspace_bytes = (uint64_t)rec->workspace_bytes;
        a->cublaslt_version = (uint64_t)rec->cublaslt_version;
        a->align[0] = rec->align_a;
        a->align[1] = rec->align_b;
        a->align[2] = rec->align_c;
        a->align[3] = rec->align_d;
        a->n_results = rec->n_results;
        a->index = rec->index;
    }
#endif
}
