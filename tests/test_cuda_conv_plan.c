/* tests/test_cuda_conv_plan.c: the Conv lowerings of the CUDA backend (src/82_cuda_conv.c: im2col
   + cuBLASLt GEMM; src/81_cuda_ops.c: the generated kernels), checked on a machine WITHOUT a GPU:

     - CUDA plans are made through the fake driver (tests/fake_libcuda.c, build/fakecuda/
       libcuda.so.1) with the repository's real kernel table, and an in-process fake cuBLASLt
       (its entry points installed in the context's cuBLASLt table) that records the matmul
       descriptor and layouts aicf builds and answers the heuristic query;
     - for each case (random and chosen shapes: stride 2, padding, dilation, 1x1 pointwise and
       strided, 7x7, 1-D, batch 1 and 3, with and without bias) and each policy.conv_algo (AUTO,
       DIRECT, IM2COL_GEMM) and precision (fp32, tf32, fp16): the lowering chosen, the step's
       kernel and reason, the im2col kernel's arguments and launch, the GEMM descriptor (M, N, K,
       leading dimensions, batch strides, element type, TF32) and what cuBLASLt was asked;
     - the scratch: its size (N*K*P elements), 256-byte aligned, inside the arena, and not
       overlapping any tensor alive during its step (lifetimes recomputed here from the steps);
     - the program of every fp32 GEMM-lowered plan run on the host: the im2col kernel emulated
       thread by thread from its launch dimensions and argument struct (every column element
       written exactly once, nothing outside the scratch), the GEMM from the matmul descriptor,
       the bias from the broadcast add's arguments, with every address resolved from the patches
       as aicf__cuda_emit_step does; compared with the CPU reference (<= 1e-5 relative);
     - the batched float16 lowering (k-major column buffer, one GEMM with a float32 product, the
       reduction kernel to NCHW): its three launches emulated (the knp kernel thread by thread,
       every column element written once) against the CPU reference, the scratch (buffer +
       product), what cuBLASLt was asked, AUTO's rule; the tensor-core fallback when cuBLASLt has
       no algorithm for it; float32-product descriptors it may not build, refused;
     - the GEMV lowering of small-M Gemm (transB): kernel variant, arguments, launch, patches,
       and its argument struct run on the host (dot products, then the chain's ops through the
       broadcast descriptors) against the CPU reference (<= 1e-5 relative);
     - fallbacks: grouped convs, no cuBLASLt, no cuBLASLt algorithm (scratch left unused);
       aicf__cuda_scratch_ptr on a hand-made emitter.
   What this cannot check: the CUDA kernels themselves and cuBLASLt's results (the GPU suite,
   tests/test_gpu_kernels.c, section "Conv: im2col + cuBLASLt vs direct").
   Fresh random data every run (seed printed; AICF_SEED=N repeats it). Usage:
   build/test_cuda_conv_plan [-v] [fake libcuda path] (default $AICF_FAKE_CUDA, then
   build/fakecuda/libcuda.so.1); -v prints every case's kernel, reason and scratch. Ends with
   "N passed, N failed, N skipped". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail, g_skip, g_verbose;
static uint64_t g_rng;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static uint64_t rnd_u64(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)((double)(rnd_u64() >> 11) / 9007199254740992.0); }
static int64_t rndi(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd_u64() % (uint64_t)(hi - lo + 1)); }

/* ---- an in-process fake cuBLASLt ---- */
typedef struct flt_layout {
    int dtype;
    uint64_t rows, cols;
    int64_t ld, stride;
    int32_t batch;
} flt_layout;
typedef struct flt_desc {
    int compute, scale;
    int32_t ta, tb;
    uint32_t epi;
} flt_desc;
static struct {
    int n_results;          /* heuristic results to return (0: "no algorithm") */
    long live;              /* descriptors, layouts, preferences alive */
    int queries;            /* heuristic calls */
    flt_desc desc;          /* at the last heuristic call */
    flt_layout a, b, c, d;  /* cuBLASLt's A (= aicf's B), B (= aicf's A), C, D */
    uint32_t align[4];      /* MIN_ALIGNMENT_A..D_BYTES of the last preference */
    int matmuls;            /* cublasLtMatmul calls (at exec creation, under stream capture) */
    uint64_t mm_a, mm_b, mm_d; /* the last call's cuBLASLt A (= aicf's B), B (= aicf's A), D */
} FLT;
typedef struct flt_pref {
    uint64_t ws;
    uint32_t align[4];
} flt_pref;

static aicf__cublasStatus_t flt_create(void** h) {
    *h = &FLT;
    return 0;
}
static aicf__cublasStatus_t flt_destroy(void* h) { return h == (void*)&FLT ? 0 : 7; }
static size_t flt_version(void) { return 130100; }
static aicf__cublasStatus_t flt_desc_create(void** d, int compute, int scale) {
    flt_desc* x = (flt_desc*)calloc(1, sizeof *x);
    x->compute = compute;
    x->scale = scale;
    x->epi = AICF__CUBLASLT_EPILOGUE_DEFAULT;
    FLT.live++;
    *d = x;
    return 0;
}
static aicf__cublasStatus_t flt_free(void* p) {
    free(p);
    FLT.live--;
    return 0;
}
static aicf__cublasStatus_t flt_desc_set(void* d, int attr, const void* v, size_t n) {
    flt_desc* x = (flt_desc*)d;
    if (attr == AICF__CUBLASLT_MATMUL_DESC_TRANSA && n == 4) memcpy(&x->ta, v, 4);
    else if (attr == AICF__CUBLASLT_MATMUL_DESC_TRANSB && n == 4) memcpy(&x->tb, v, 4);
    else if (attr == AICF__CUBLASLT_MATMUL_DESC_EPILOGUE && n == 4) memcpy(&x->epi, v, 4);
    return 0;
}
static aicf__cublasStatus_t flt_layout_create(void** l, int dtype, uint64_t rows, uint64_t cols, int64_t ld) {
    flt_layout* x = (flt_layout*)calloc(1, sizeof *x);
    x->dtype = dtype;
    x->rows = rows;
    x->cols = cols;
    x->ld = ld;
    x->batch = 1;
    FLT.live++;
    *l = x;
    return 0;
}
static aicf__cublasStatus_t flt_layout_set(void* l, int attr, const void* v, size_t n) {
    flt_layout* x = (flt_layout*)l;
    if (attr == AICF__CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && n == 4) memcpy(&x->batch, v, 4);
    else if (attr == AICF__CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && n == 8) memcpy(&x->stride, v, 8);
    return 0;
}
static aicf__cublasStatus_t flt_pref_create(void** p) {
    *p = calloc(1, sizeof(flt_pref));
    FLT.live++;
    return 0;
}
static aicf__cublasStatus_t flt_pref_set(void* p, int attr, const void* v, size_t n) {
    flt_pref* x = (flt_pref*)p;
    if (attr == AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES && n == 8) memcpy(&x->ws, v, 8);
    if (attr >= AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES && attr <= AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES &&
        n == 4)
        memcpy(&x->align[attr - AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES], v, 4);
    return 0;
}
static aicf__cublasStatus_t flt_heuristic(void* h, void* desc, void* la, void* lb, void* lc, void* ld, void* pref, int want,
                                          aicf__cublasLtMatmulHeuristicResult_t* res, int* n) {
    int i;
    FLT.queries++;
    if (h != (void*)&FLT) return 7;
    FLT.desc = *(flt_desc*)desc;
    FLT.a = *(flt_layout*)la;
    FLT.b = *(flt_layout*)lb;
    FLT.c = *(flt_layout*)lc;
    FLT.d = *(flt_layout*)ld;
    memcpy(FLT.align, ((flt_pref*)pref)->align, sizeof FLT.align);
    *n = FLT.n_results < want ? FLT.n_results : want;
    for (i = 0; i < *n; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].algo.data[0] = 1000u + (unsigned)i;
        res[i].wavesCount = 1.0f;
    }
    return *n > 0 ? 0 : 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
}
/* the fake driver's fakecuda_capture_kernel, when a test wants cuBLASLt calls to take device
   time: each call then launches a kernel "lt_algo_K" (K = heuristic result) into the capture */
static void (*g_flt_capture)(const char* name);

static aicf__cublasStatus_t flt_matmul(void* h, void* desc, const void* alpha, const void* a, void* la, const void* b, void* lb,
                                       const void* beta, const void* c, void* lc, void* d, void* ld,
                                       const aicf__cublasLtMatmulAlgo_t* algo, void* ws, size_t wsb, aicf__CUstream s) {
    (void)desc, (void)alpha, (void)la, (void)lb, (void)beta, (void)c, (void)lc, (void)ld, (void)algo, (void)ws, (void)wsb, (void)s;
    if (h != (void*)&FLT) return 7;
    if (g_flt_capture && algo) {
        char nm[32];
        snprintf(nm, sizeof nm, "lt_algo_%u", (unsigned)(algo->data[0] - 1000u));
        g_flt_capture(nm);
    }
    FLT.matmuls++; /* recorded, not computed: the fake driver's captured graph is empty */
    FLT.mm_a = (uint64_t)(uintptr_t)a;
    FLT.mm_b = (uint64_t)(uintptr_t)b;
    FLT.mm_d = (uint64_t)(uintptr_t)d;
    return 0;
}

static aicf__cublasStatus_t flt_check(void* h, void* desc, void* la, void* lb, void* lc, void* ld, const aicf__cublasLtMatmulAlgo_t* algo,
                                      aicf__cublasLtMatmulHeuristicResult_t* res) {
    (void)desc, (void)la, (void)lb, (void)lc, (void)ld;
    if (h != (void*)&FLT || !algo || !res) return 7;
    memset(res, 0, sizeof *res);
    res->algo = *algo;
    res->wavesCount = 1.0f;
    return algo->data[0] >= 1000u && algo->data[0] < 1008u ? 0 : 15;
}

/* Installs the fake in ctx's cuBLASLt table (the driver is the fake libcuda). */
static int flt_install(aicf_context* ctx) {
    struct aicf__cuda* cu;
    if (aicf__cuda_init(ctx) != AICF_SUCCESS || !ctx->cuda || !ctx->cuda->ready) return 0;
    cu = ctx->cuda;
    memset(&cu->lt, 0, sizeof cu->lt);
    cu->lt.cublasLtCreate = flt_create;
    cu->lt.cublasLtDestroy = flt_destroy;
    cu->lt.cublasLtGetVersion = flt_version;
    cu->lt.cublasLtMatmulDescCreate = flt_desc_create;
    cu->lt.cublasLtMatmulDescDestroy = flt_free;
    cu->lt.cublasLtMatmulDescSetAttribute = flt_desc_set;
    cu->lt.cublasLtMatrixLayoutCreate = flt_layout_create;
    cu->lt.cublasLtMatrixLayoutDestroy = flt_free;
    cu->lt.cublasLtMatrixLayoutSetAttribute = flt_layout_set;
    cu->lt.cublasLtMatmulPreferenceCreate = flt_pref_create;
    cu->lt.cublasLtMatmulPreferenceDestroy = flt_free;
    cu->lt.cublasLtMatmulPreferenceSetAttribute = flt_pref_set;
    cu->lt.cublasLtMatmulAlgoGetHeuristic = flt_heuristic;
    cu->lt.cublasLtMatmul = flt_matmul;
    cu->lt.cublasLtMatmulAlgoCheck = flt_check;
    cu->lt_version = flt_version();
    cu->lt_error[0] = 0;
    snprintf(cu->lt_path, sizeof cu->lt_path, "in-process fake (tests/test_cuda_conv_plan.c)");
    return flt_create(&cu->lt_handle) == 0;
}

/* ---- one Conv case ---- */
typedef struct ccase {
    char name[160];            /* a label, then the shapes (describe) */
    int rank;                  /* 4, or 3 for a 1-D conv */
    int64_t N, C, H, W, M, KH, KW;
    int64_t sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;    /* pads: top, left, bottom, right */
    int64_t group;
    int bias;
    int relu;                  /* a Relu after it (fused as the step's epilogue) */
    const char* auto_pad;      /* NULL: explicit pads */
} ccase;

typedef struct cgeo { /* derived geometry */
    int64_t OH, OW, P, K, Cg;
    int pointwise;
} cgeo;

static void geo_of(const ccase* c, cgeo* g) {
    g->Cg = c->C / c->group;
    g->OH = (c->H + c->pt + c->pb - (c->KH - 1) * c->dh - 1) / c->sh + 1;
    g->OW = (c->W + c->pl + c->pr - (c->KW - 1) * c->dw - 1) / c->sw + 1;
    g->P = g->OH * g->OW;
    g->K = g->Cg * c->KH * c->KW;
    g->pointwise = c->KH == 1 && c->KW == 1 && c->sh == 1 && c->sw == 1 && !c->pt && !c->pl && !c->pb && !c->pr;
}

typedef struct cgraph {
    aicf_graph* g;
    float *x, *w, *b;
    size_t nx, nw;
} cgraph;

static int build(aicf_context* ctx, const ccase* c, cgraph* cg) {
    aicf_tensor_desc d;
    aicf_node_desc nd;
    aicf_attr at[6];
    int64_t xd[4], wd[4], bd[1], strides[2], dil[2], pads[4];
    const char* cin[3] = {"x", "w", "b"};
    const char* cout[1] = {"c"};
    const char* rin[1] = {"c"};
    const char* rout[1] = {"y"};
    int na = 0, ns = c->rank - 2;
    size_t i;
    memset(cg, 0, sizeof *cg);
    if (aicf_graph_create(ctx, &cg->g) != AICF_SUCCESS) return 0;
    aicf_graph_set_opset(cg->g, "", 17);
    xd[0] = c->N;
    xd[1] = c->C;
    wd[0] = c->M;
    wd[1] = c->C / c->group;
    if (ns == 2) {
        xd[2] = c->H;
        xd[3] = c->W;
        wd[2] = c->KH;
        wd[3] = c->KW;
        strides[0] = c->sh;
        strides[1] = c->sw;
        dil[0] = c->dh;
        dil[1] = c->dw;
        pads[0] = c->pt;
        pads[1] = c->pl;
        pads[2] = c->pb;
        pads[3] = c->pr;
    } else {
        xd[2] = c->W;
        wd[2] = c->KW;
        strides[0] = c->sw;
        dil[0] = c->dw;
        pads[0] = c->pl;
        pads[1] = c->pr;
    }
    cg->nx = (size_t)(c->N * c->C * c->H * c->W);
    cg->nw = (size_t)(c->M * (c->C / c->group) * c->KH * c->KW);
    cg->x = (float*)malloc(cg->nx * 4);
    cg->w = (float*)malloc(cg->nw * 4);
    cg->b = (float*)malloc((size_t)c->M * 4);
    for (i = 0; i < cg->nx; i++) cg->x[i] = rndf(-1, 1);
    for (i = 0; i < cg->nw; i++) cg->w[i] = rndf(-0.5f, 0.5f);
    for (i = 0; i < (size_t)c->M; i++) cg->b[i] = rndf(-1, 1);
    bd[0] = c->M;
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = c->rank;
    d.dims = xd;
    if (aicf_graph_add_input(cg->g, &d) != AICF_SUCCESS) return 0;
    d.name = "w";
    d.dims = wd;
    d.data = cg->w;
    d.data_bytes = cg->nw * 4;
    if (aicf_graph_add_constant(cg->g, &d) != AICF_SUCCESS) return 0;
    if (c->bias) {
        d.name = "b";
        d.rank = 1;
        d.dims = bd;
        d.data = cg->b;
        d.data_bytes = (size_t)c->M * 4;
        if (aicf_graph_add_constant(cg->g, &d) != AICF_SUCCESS) return 0;
    }
    memset(at, 0, sizeof at);
    at[na].name = "strides";
    at[na].type = AICF_ATTR_INTS;
    at[na].ints = strides;
    at[na++].count = ns;
    at[na].name = "dilations";
    at[na].type = AICF_ATTR_INTS;
    at[na].ints = dil;
    at[na++].count = ns;
    if (c->auto_pad) {
        at[na].name = "auto_pad";
        at[na].type = AICF_ATTR_STRING;
        at[na++].s = c->auto_pad;
    } else {
        at[na].name = "pads";
        at[na].type = AICF_ATTR_INTS;
        at[na].ints = pads;
        at[na++].count = 2 * ns;
    }
    at[na].name = "group";
    at[na].type = AICF_ATTR_INT;
    at[na++].i = c->group;
    memset(&nd, 0, sizeof nd);
    nd.name = "conv";
    nd.op_type = "Conv";
    nd.inputs = cin;
    nd.num_inputs = c->bias ? 3 : 2;
    nd.outputs = c->relu ? cout : rout;
    nd.num_outputs = 1;
    nd.attrs = at;
    nd.num_attrs = na;
    if (aicf_graph_add_node(cg->g, &nd) != AICF_SUCCESS) return 0;
    if (c->relu) {
        memset(&nd, 0, sizeof nd);
        nd.name = "relu";
        nd.op_type = "Relu";
        nd.inputs = rin;
        nd.num_inputs = 1;
        nd.outputs = rout;
        nd.num_outputs = 1;
        if (aicf_graph_add_node(cg->g, &nd) != AICF_SUCCESS) return 0;
    }
    return aicf_graph_add_output(cg->g, "y") == AICF_SUCCESS;
}

static void cgraph_free(cgraph* cg) {
    aicf_graph_destroy(cg->g);
    free(cg->x);
    free(cg->w);
    free(cg->b);
}

static aicf_plan* plan_of(aicf_graph* g, aicf_backend be, aicf_precision pr, aicf_conv_algo algo) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    memset(&pd, 0, sizeof pd);
    pd.backend = be;
    pd.policy.precision = pr;
    pd.policy.conv_algo = algo;
    if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) return NULL;
    return p;
}

static int conv_step(const aicf_plan* p) {
    int s;
    for (s = 0; s < p->n_steps; s++)
        if (p->steps[s].kind == AICF__STEP_NODE && p->g->nodes[p->steps[s].node].op == AICF__OP_Conv) return s;
    return -1;
}

static const char* algo_name(aicf_conv_algo a) {
    return a == AICF_CONV_DIRECT ? "DIRECT" : a == AICF_CONV_IM2COL_GEMM ? "IM2COL_GEMM" : a == AICF_CONV_IMPLICIT_GEMM_TC ? "IMPLICIT_GEMM_TC" : "AUTO";
}
static const char* prec_name(aicf_precision p) {
    return p == AICF_PRECISION_FP16 ? "fp16" : p == AICF_PRECISION_TF32 ? "tf32" : "fp32";
}

/* ---- lifetimes, recomputed from the steps (as docs/architecture.md describes them) ---- */
static int root_of(const aicf_plan* p, int t) {
    while (p->loc[t].alias_of >= 0) t = p->loc[t].alias_of;
    return t;
}

/* Checks every step's scratch: aligned, inside the arena, disjoint from every tensor alive
   during that step; every arena tensor inside the arena. Returns the number of problems. */
static int check_scratch(const aicf_plan* p, const char* what) {
    int nt = p->g->n_tensors, s, t, j, bad = 0;
    int* first = (int*)malloc(sizeof(int) * (size_t)nt);
    int* last = (int*)malloc(sizeof(int) * (size_t)nt);
    for (t = 0; t < nt; t++) {
        first[t] = 1 << 30;
        last[t] = -2;
    }
#define USE(tt, ss)                                                                                \
    do {                                                                                           \
        int u_ = (tt);                                                                             \
        if (u_ >= 0 && p->loc[u_].space == AICF__SPACE_ARENA) {                                    \
            u_ = root_of(p, u_);                                                                   \
            if ((ss) < first[u_]) first[u_] = (ss);                                                \
            if ((ss) > last[u_]) last[u_] = (ss);                                                  \
        }                                                                                          \
    } while (0)
    for (j = 0; j < p->n_in; j++) {
        USE(p->in_boundary[j], -1);
        USE(p->in_boundary[j], p->n_steps);
    }
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        for (j = 0; j < st->n_in; j++) USE(st->in[j], s);
        for (j = 0; j < st->n_out; j++) USE(st->out[j], s);
        for (j = 0; j < st->n_epi; j++) USE(st->epi[j].operand, s);
    }
    for (j = 0; j < p->n_out; j++) USE(p->out_boundary[j], p->n_steps);
#undef USE
    for (t = 0; t < nt; t++)
        if (p->loc[t].space == AICF__SPACE_ARENA && p->loc[t].alias_of < 0 && p->loc[t].offset + p->loc[t].bytes > p->arena_bytes) {
            printf("  %s: tensor '%s' [%zu, +%zu) outside the arena (%zu bytes)\n", what, p->g->tensors[t].name, p->loc[t].offset,
                   p->loc[t].bytes, p->arena_bytes);
            bad++;
        }
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        size_t so = st->scratch_offset, se = so + st->scratch_bytes;
        if (!st->scratch_bytes) continue;
        if (so % 256 != 0 || se > p->arena_bytes) {
            printf("  %s: step %d scratch [%zu, %zu) not aligned or outside the arena (%zu bytes)\n", what, s, so, se, p->arena_bytes);
            bad++;
        }
        for (t = 0; t < nt; t++) {
            size_t to, te;
            if (p->loc[t].space != AICF__SPACE_ARENA || p->loc[t].alias_of >= 0 || first[t] > s || last[t] < s) continue;
            to = p->loc[t].offset;
            te = to + p->loc[t].bytes;
            if (to < se && so < te) {
                printf("  %s: step %d scratch [%zu, %zu) overlaps tensor '%s' [%zu, %zu) alive in steps %d..%d\n", what, s, so, se,
                       p->g->tensors[t].name, to, te, first[t], last[t]);
                bad++;
            }
        }
    }
    free(first);
    free(last);
    return bad;
}

/* ---- the step's program on the host ---- */
static unsigned char* emu_addr(const aicf_plan* p, unsigned char* arena, unsigned char* weights, int si, int t, uint64_t add) {
    if (t == AICF__CUO_SCRATCH) return arena + p->steps[si].scratch_offset + add;
    t = root_of(p, t);
    return (p->loc[t].space == AICF__SPACE_WEIGHTS ? weights : arena) + p->loc[t].offset + add;
}

/* templates/im2col.cu.j2 thread by thread (same index arithmetic); counts the writes per
   column element in hits[] (relative to col0) and returns the number of writes outside
   [col0, col0 + ncol). */
static long emu_im2col(const aicf__k_im2col* a, const unsigned grid[3], const unsigned block[3], const float* x, float* col,
                       const float* col0, size_t ncol, unsigned char* hits) {
    long outside = 0;
    unsigned bx, by, tid;
    int tp_log2 = (int)a->tp_log2;
    int rows_per_block = (int)block[0] >> tp_log2;
    int H = (int)a->H, W = (int)a->W, OW = (int)a->OW, KW = (int)a->KW, KHW = (int)(a->KH * a->KW);
    int K = (int)(a->C * KHW), P = (int)(a->OH * a->OW), NK = (int)(a->N * K);
    int row_step = (int)grid[1] * rows_per_block;
    for (by = 0; by < grid[1]; by++)
        for (bx = 0; bx < grid[0]; bx++)
            for (tid = 0; tid < block[0]; tid++) {
                int pl = (int)tid & ((1 << tp_log2) - 1), rl = (int)tid >> tp_log2;
                int pp = (int)bx * (1 << tp_log2) + pl, row;
                int oh, ow, ih0, iw0;
                if (pp >= P) continue;
                oh = pp / OW;
                ow = pp - oh * OW;
                ih0 = oh * (int)a->stride_h - (int)a->pad_h;
                iw0 = ow * (int)a->stride_w - (int)a->pad_w;
                for (row = (int)by * rows_per_block + rl; row < NK; row += row_step) {
                    int n = row / K, k = row - n * K, c = k / KHW, r = k - c * KHW, kh = r / KW, kw = r - kh * KW;
                    int ih = ih0 + kh * (int)a->dil_h, iw = iw0 + kw * (int)a->dil_w;
                    float v = 0.0f;
                    float* dst = col + (int64_t)row * P + pp;
                    if ((unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W)
                        v = x[(((int64_t)n * a->C + c) * H + ih) * (int64_t)W + iw];
                    if (dst < col0 || dst >= col0 + ncol) outside++;
                    else {
                        *dst = v;
                        if (hits[dst - col0] < 255) hits[dst - col0]++;
                    }
                    if (row > NK - row_step) break;
                }
            }
    return outside;
}

/* Runs the float32 plan's Conv step program on host memory (im2col kernel, matmul, binary add;
   anything else is reported) and returns Y (malloc'd), or NULL with a message. */
static float* emulate(const aicf_plan* p, int si, const float* x, char* msg, size_t cap) {
    const aicf__step* st = &p->steps[si];
    aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
    const aicf__cuo_op* ops;
    unsigned char* arena = (unsigned char*)calloc(1, p->arena_bytes + 1);
    unsigned char* weights = (unsigned char*)calloc(1, p->weights_bytes + 1);
    float* y = NULL;
    int t, k, j, ok = 1;
    int xin = p->in_boundary[0], yout = p->out_boundary[0];
    msg[0] = 0;
    for (t = 0; t < p->g->n_tensors; t++)
        if (p->loc[t].space == AICF__SPACE_WEIGHTS) memcpy(weights + p->loc[t].offset, p->g->tensors[t].data, p->loc[t].bytes);
    memcpy(emu_addr(p, arena, weights, si, xin, 0), x, p->loc[xin].bytes);
    if (!pr) {
        snprintf(msg, cap, "no program");
        ok = 0;
    }
    ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
    for (k = 0; ok && k < pr->n_ops; k++) {
        const aicf__cuo_op* op = &ops[k];
        uint64_t args[AICF__CUO_ARGS_WORDS];
        memcpy(args, op->args, sizeof args);
        for (j = 0; j < op->n_patch; j++) {
            uint64_t a = (uint64_t)(uintptr_t)emu_addr(p, arena, weights, si, op->patch[j].tensor, op->patch[j].add);
            memcpy((unsigned char*)args + op->patch[j].field, &a, 8);
        }
        if (op->kind == AICF__CUO_MATMUL) {
            aicf__matmul_desc md;
            int64_t b, m, n, kk;
            memcpy(&md, args, sizeof md);
            if (md.trans_a || md.trans_b || md.beta != 0.0f || md.bias || md.act || md.dtype != AICF_DTYPE_FLOAT32) {
                snprintf(msg, cap, "matmul form not emulated");
                ok = 0;
                break;
            }
            for (b = 0; b < md.batch; b++)
                for (m = 0; m < md.M; m++)
                    for (n = 0; n < md.N; n++) {
                        const float* A = (const float*)(uintptr_t)md.a + b * md.stride_a + m * md.lda;
                        const float* B = (const float*)(uintptr_t)md.b + b * md.stride_b + n;
                        double acc = 0;
                        for (kk = 0; kk < md.K; kk++) acc += (double)A[kk] * B[kk * md.ldb];
                        ((float*)(uintptr_t)md.d)[b * md.stride_c + m * md.ldc + n] = (float)(md.alpha * acc);
                    }
        } else if (op->kind == AICF__CUO_KERNEL && !strncmp(aicf__kt_kernels[op->kernel_index].name, "aicf_im2col_f32", 15)) {
            aicf__k_im2col a;
            size_t ncol = st->scratch_bytes / 4, i;
            unsigned char* hits = (unsigned char*)calloc(1, ncol + 1);
            long outside;
            int64_t rows;
            memcpy(&a, args, sizeof a);
            rows = a.N * a.C * a.KH * a.KW;
            outside = emu_im2col(&a, op->grid, op->block, (const float*)(uintptr_t)a.x, (float*)(uintptr_t)a.col,
                                 (const float*)(arena + st->scratch_offset), ncol, hits);
            for (i = 0; i < (size_t)(rows * a.OH * a.OW) && i < ncol; i++)
                if (hits[i] != 1) break;
            if (outside || (size_t)(rows * a.OH * a.OW) != ncol || i != ncol) {
                snprintf(msg, cap, "im2col launch: %ld writes outside the scratch, element %zu of %zu written %d times", outside, i,
                         ncol, i < ncol ? hits[i] : -1);
                ok = 0;
            }
            free(hits);
        } else if (op->kind == AICF__CUO_KERNEL && !strncmp(aicf__kt_kernels[op->kernel_index].name, "aicf_binary_add_f32_", 20)) {
            const char* nm = aicf__kt_kernels[op->kernel_index].name;
            if (strstr(nm, "_bcast")) {
                aicf__k_binbc a;
                int64_t i;
                memcpy(&a, args, sizeof a);
                for (i = 0; i < a.n; i++) {
                    int64_t r = i, oa = 0, ob = 0;
                    int d;
                    for (d = (int)a.rank - 1; d > 0; --d) {
                        int64_t q = r / a.shape[d], idx = r - q * a.shape[d];
                        oa += idx * a.sa[d];
                        ob += idx * a.sb[d];
                        r = q;
                    }
                    oa += r * a.sa[0];
                    ob += r * a.sb[0];
                    ((float*)(uintptr_t)a.y)[i] = ((const float*)(uintptr_t)a.a)[oa] + ((const float*)(uintptr_t)a.b)[ob];
                }
            } else {
                aicf__k_binflat a;
                int64_t i;
                memcpy(&a, args, sizeof a);
                for (i = 0; i < a.n; i++)
                    ((float*)(uintptr_t)a.y)[i] = ((const float*)(uintptr_t)a.a)[i * a.sa] + ((const float*)(uintptr_t)a.b)[i * a.sb];
            }
        } else {
            snprintf(msg, cap, "op %d (%s) not emulated", k,
                     op->kind == AICF__CUO_KERNEL ? aicf__kt_kernels[op->kernel_index].name : "copy");
            ok = 0;
        }
    }
    if (ok) {
        y = (float*)malloc(p->loc[yout].bytes);
        memcpy(y, emu_addr(p, arena, weights, si, yout, 0), p->loc[yout].bytes);
    }
    free(arena);
    free(weights);
    return y;
}

/* The tensor-core conv program (templates/conv_tc.cu.j2) from its launches' argument structs:
   every split of gridDim.z sums K in [z*k_per_split, min(K, (z+1)*k_per_split)) of
   w[m,k] * B[k,col] (float16-rounded operands, float32 sums, B gathered from x by the
   kernel's index rule), the splits are added in order, then bias, ReLU; float16 result.
   x, w, b: the case's float32 data (rounded to float16 here, as the plan stores them).
   Checks that the split ranges cover [0, K) exactly once. Returns Y (malloc'd) or NULL. */
static float* emulate_tc(const aicf__k_conv2d_tc* a, const unsigned grid[3], const float* x, const float* w, const float* b,
                         char* msg, size_t cap) {
    int64_t K = a->C * a->KH * a->KW, P = a->OH * a->OW, NP = a->N * P, m, col, k, z, covered = 0;
    float* y = (float*)malloc(sizeof(float) * (size_t)(a->M * NP) + 1);
    msg[0] = 0;
    for (z = 0; z < (int64_t)grid[2]; z++) {
        int64_t kb = z * a->k_per_split, ke = kb + a->k_per_split < K ? kb + a->k_per_split : K;
        if (ke > kb) covered += ke - kb;
    }
    if (covered != K || (int64_t)grid[2] != a->splits || a->k_per_split % 32 || (int64_t)grid[2] * a->k_per_split < K ||
        ((int64_t)grid[2] - 1) * a->k_per_split >= K) {
        snprintf(msg, cap, "splits %lld x %lld over grid.z %u cover %lld of K=%lld", (long long)a->splits, (long long)a->k_per_split,
                 grid[2], (long long)covered, (long long)K);
        free(y);
        return NULL;
    }
    for (m = 0; m < a->M; m++)
        for (col = 0; col < NP; col++) {
            int64_t img = col / P, pp = col % P, oh = pp / a->OW, ow = pp % a->OW;
            float v = 0.0f;
            for (z = 0; z < a->splits; z++) {
                int64_t kb = z * a->k_per_split, ke = kb + a->k_per_split < K ? kb + a->k_per_split : K;
                float part = 0.0f;
                for (k = kb; k < ke; k++) {
                    int64_t c = k / (a->KH * a->KW), r = k % (a->KH * a->KW), kh = r / a->KW, kw = r % a->KW;
                    int64_t ih = oh * a->stride_h - a->pad_h + kh * a->dil_h, iw = ow * a->stride_w - a->pad_w + kw * a->dil_w;
                    float xv = 0.0f;
                    if (ih >= 0 && ih < a->H && iw >= 0 && iw < a->W)
                        xv = aicf__f16_to_f32(aicf__f32_to_f16(x[((img * a->C + c) * a->H + ih) * a->W + iw]));
                    part += aicf__f16_to_f32(aicf__f32_to_f16(w[m * K + k])) * xv;
                }
                v += part;
            }
            if (b) v += aicf__f16_to_f32(aicf__f32_to_f16(b[m]));
            if (a->relu && !(v > 0.0f)) v = 0.0f;
            y[(img * a->M + m) * P + pp] = aicf__f16_to_f32(aicf__f32_to_f16(v));
        }
    return y;
}

/* The split-K reduction launch (op, after the conv launch with arguments a): its kernel is
   aicf_conv2d_tc_reduce_f16_v4 exactly when OH*OW % 4 == 0 and there are at most 4 splits (else
   aicf_conv2d_tc_reduce_f16; the tensors here are 256-byte aligned) and
   its grid covers M*N*OH*OW / 4 (or 1) elements per thread; the _v4 index rule run on the host
   (thread i4 takes columns 4*i4 .. 4*i4 + 3 of row m = 4*i4 / NP: one image, 4 consecutive
   pixels) writes every element of y exactly once. 0 if all hold. */
static int check_reduce(const aicf__cuo_op* op, const aicf__k_conv2d_tc* a, char* msg, size_t cap) {
    int64_t P = a->OH * a->OW, NP = a->N * P, total = a->M * NP, per, i4, e;
    int v4 = P % 4 == 0 && a->splits <= 4;
    const char* want = v4 ? "aicf_conv2d_tc_reduce_f16_v4" : "aicf_conv2d_tc_reduce_f16";
    unsigned char* seen;
    msg[0] = 0;
    if (op->kind != AICF__CUO_KERNEL || strcmp(aicf__kt_kernels[op->kernel_index].name, want) != 0 || memcmp(op->args, a, sizeof *a) != 0)
        return snprintf(msg, cap, "launch 1 is not %s with the conv's arguments", want), 1;
    per = v4 ? 4 : 1;
    if ((int64_t)op->grid[0] * op->block[0] < (total / per < 256 * 65535 ? total / per : 256 * 65535) && op->grid[0] < 65535)
        return snprintf(msg, cap, "grid %u x %u threads for %lld elements", op->grid[0], op->block[0], (long long)(total / per)), 1;
    if (!v4) return 0;
    seen = (unsigned char*)calloc((size_t)total + 1, 1);
    if (!seen) return snprintf(msg, cap, "out of memory"), 1;
    for (i4 = 0; i4 < total / 4; i4++) {
        int64_t m = 4 * i4 / NP, col = 4 * i4 - m * NP, img = col / P, pp = col - img * P, yi = (img * a->M + m) * P + pp;
        if (pp + 3 >= P || yi % 4) {
            free(seen);
            return snprintf(msg, cap, "thread %lld's 4 columns leave their image or are not 8-byte aligned", (long long)i4), 1;
        }
        for (e = 0; e < 4; e++) seen[yi + e]++;
    }
    for (e = 0; e < total && seen[e] == 1; e++) continue;
    if (e < total) snprintf(msg, cap, "y element %lld written %d times", (long long)e, seen[e]);
    free(seen);
    return e < total;
}

/* The patch kernel's program (aicf_conv2d_tcp_*) from its argument struct, by its own index
   rule: block (img, tile) covers output pixels (tile_h*TH + r, tile_w*TW + q) for r < TH, q < TW
   inside the image; its input patch starts at (oh0*stride - pad_top, ow0*stride - pad_left) and
   tap (kh, kw) of pixel (r, q) reads patch pixel (r*stride_h + kh*dil_h, q*stride_w + kw*dil_w),
   which must lie inside PH x PW; K runs by chunks of cg channels, each by tap then channel, split
   z summing chunks [z*k_per_split, ...); `rows`: the rows kernel (aicf_conv2d_tcr_*), whose tile is TH whole
   output rows. Checks that the tiles cover every output pixel once, the
   splits every chunk once, and every tap stays inside the patch. Returns Y (malloc'd) or NULL. */
static float* emulate_tcp(const aicf__k_conv2d_tcp* q, const unsigned grid[3], int64_t cg, int rows, const float* x, const float* w,
                          const float* b, char* msg, size_t cap) {
    const aicf__k_conv2d_tc* a = &q->b;
    int64_t P = a->OH * a->OW, NP = a->N * P, nch = a->C / cg, covered = 0, bx, z, i;
    float* y = (float*)malloc(sizeof(float) * (size_t)(a->M * NP) + 1);
    unsigned char* seen = (unsigned char*)calloc((size_t)NP + 1, 1);
    msg[0] = 0;
    /* the patch kernel: tiles of at most 64 pixels, patches of at most 289; the rows kernel: whole rows (TW = OW, one tile
       across), at most 224 pixels */
    if (!y || !seen || a->C % cg || q->TH * q->TW > (rows ? 224 : 64) || (!rows && q->PH * q->PW > 289) ||
        (rows && (q->TW != a->OW || q->tiles_w != 1)) || (int64_t)grid[0] != a->N * q->tiles_h * q->tiles_w ||
        q->PH != (q->TH - 1) * a->stride_h + (a->KH - 1) * a->dil_h + 1 || q->PW != (q->TW - 1) * a->stride_w + (a->KW - 1) * a->dil_w + 1) {
        snprintf(msg, cap, "tile %lldx%lld patch %lldx%lld tiles %lldx%lld grid.x %u", (long long)q->TH, (long long)q->TW,
                 (long long)q->PH, (long long)q->PW, (long long)q->tiles_h, (long long)q->tiles_w, grid[0]);
        free(y);
        free(seen);
        return NULL;
    }
    for (z = 0; z < (int64_t)grid[2]; z++) {
        int64_t cb = z * a->k_per_split, ce = cb + a->k_per_split < nch ? cb + a->k_per_split : nch;
        if (ce > cb) covered += ce - cb;
    }
    if (covered != nch || (int64_t)grid[2] != a->splits || ((int64_t)grid[2] - 1) * a->k_per_split >= nch) {
        snprintf(msg, cap, "splits %lld x %lld chunks over grid.z %u cover %lld of %lld chunks", (long long)a->splits,
                 (long long)a->k_per_split, grid[2], (long long)covered, (long long)nch);
        free(y);
        free(seen);
        return NULL;
    }
    for (i = 0; i < a->M * NP; i++) y[i] = 0.0f;
    for (bx = 0; bx < (int64_t)grid[0] && !msg[0]; bx++) {
        int64_t img = bx / (q->tiles_h * q->tiles_w), tr = bx % (q->tiles_h * q->tiles_w);
        int64_t oh0 = (tr / q->tiles_w) * q->TH, ow0 = (tr % q->tiles_w) * q->TW;
        int64_t ih0 = oh0 * a->stride_h - a->pad_h, iw0 = ow0 * a->stride_w - a->pad_w, r, qq, m;
        for (r = 0; r < q->TH; r++)
            for (qq = 0; qq < q->TW; qq++) {
                int64_t oh = oh0 + r, ow = ow0 + qq, pp = oh * a->OW + ow;
                if (oh >= a->OH || ow >= a->OW) continue;
                seen[img * P + pp]++;
                for (m = 0; m < a->M; m++) {
                    float v = 0.0f;
                    for (z = 0; z < a->splits; z++) {
                        int64_t cb = z * a->k_per_split, ce = cb + a->k_per_split < nch ? cb + a->k_per_split : nch, ch, tap, c;
                        float part = 0.0f;
                        for (ch = cb; ch < ce; ch++)
                            for (tap = 0; tap < a->KH * a->KW; tap++)
                                for (c = ch * cg; c < (ch + 1) * cg; c++) {
                                    int64_t kh = tap / a->KW, kw = tap % a->KW;
                                    int64_t pr = r * a->stride_h + kh * a->dil_h, pc = qq * a->stride_w + kw * a->dil_w;
                                    int64_t ih = ih0 + pr, iw = iw0 + pc;
                                    float xv = 0.0f;
                                    if (pr >= q->PH || pc >= q->PW) {
                                        snprintf(msg, cap, "tap (%lld,%lld) of pixel (%lld,%lld) outside the %lldx%lld patch", (long long)kh,
                                                 (long long)kw, (long long)r, (long long)qq, (long long)q->PH, (long long)q->PW);
                                        continue;
                                    }
                                    if (ih >= 0 && ih < a->H && iw >= 0 && iw < a->W)
                                        xv = aicf__f16_to_f32(aicf__f32_to_f16(x[((img * a->C + c) * a->H + ih) * a->W + iw]));
                                    /* the weights as the plan stores them: chunk-ordered [C/cg][M][KHW][cg] */
                                    part += aicf__f16_to_f32(aicf__f32_to_f16(w[((ch * a->M + m) * a->KH * a->KW + tap) * cg + c % cg])) * xv;
                                }
                        v += part;
                    }
                    if (b) v += aicf__f16_to_f32(aicf__f32_to_f16(b[m]));
                    if (a->relu && !(v > 0.0f)) v = 0.0f;
                    y[(img * a->M + m) * P + pp] = aicf__f16_to_f32(aicf__f32_to_f16(v));
                }
            }
    }
    for (i = 0; i < NP && !msg[0]; i++)
        if (seen[i] != 1) snprintf(msg, cap, "output pixel %lld covered %d times by the tiles", (long long)i, seen[i]);
    free(seen);
    if (msg[0]) {
        free(y);
        return NULL;
    }
    return y;
}

/* The small-K kernel's program (aicf_conv2d_tcs_f16_m64) from its argument struct, by its own
   index rule: block (bx, by) computes channels by*64 .. by*64 + 63 of tiles bx, bx + grid.x, ...;
   tile t is image t / (tiles_h*tiles_w), output pixels (th*TH + r, tw*TW + q) for the 128 pixels
   n = r*TW + q; its patch holds C planes of PH x PW input pixels from (oh0*stride_h - pad_top,
   ow0*stride_w - pad_left), zeros outside the image, then a zero plane; B[k, n] is the patch element
   at koff[k] + r*stride_h*PW + q*stride_w with koff[k] = c*PH*PW + kh*dil_h*PW + kw*dil_w (k < K)
   or C*PH*PW (the zero plane, K <= k < KP = K rounded up to 16, weights 0 there). Checks that the
   tiles cover every output pixel once, that every B read stays inside the C + 1 planes, and the
   tile and patch bounds the kernel assumes. Returns Y (malloc'd) or NULL with msg. */
static float* emulate_tcs(const aicf__k_conv2d_tcp* q, const unsigned grid[3], const float* x, const float* w, const float* b, char* msg,
                          size_t cap) {
    const aicf__k_conv2d_tc* a = &q->b;
    int64_t P = a->OH * a->OW, NP = a->N * P, K = a->C * a->KH * a->KW, KP = (K + 15) / 16 * 16, PP = q->PH * q->PW;
    int64_t ntiles = a->N * q->tiles_h * q->tiles_w, bx, by, tile, i;
    float* y = (float*)malloc(sizeof(float) * (size_t)(a->M * NP) + 1);
    float* ps = (float*)malloc(sizeof(float) * (size_t)((a->C + 1) * PP) + 1);
    unsigned char* seen = (unsigned char*)calloc((size_t)NP + 1, 1);
    msg[0] = 0;
    if (!y || !ps || !seen || q->TH * q->TW != 128 || q->TW % 2 || K > 256 || a->C * PP > 4096 || a->splits != 1 ||
        (int64_t)grid[0] > ntiles || grid[0] < 1 || (int64_t)grid[1] != (a->M + 63) / 64 || grid[2] != 1 ||
        q->PH != (q->TH - 1) * a->stride_h + (a->KH - 1) * a->dil_h + 1 || q->PW != (q->TW - 1) * a->stride_w + (a->KW - 1) * a->dil_w + 1 ||
        q->tiles_h * q->TH < a->OH || q->tiles_w * q->TW < a->OW || (q->tiles_h - 1) * q->TH >= a->OH || (q->tiles_w - 1) * q->TW >= a->OW) {
        snprintf(msg, cap, "tile %lldx%lld patch %lldx%lld tiles %lldx%lld K %lld splits %lld grid(%u,%u,%u)", (long long)q->TH,
                 (long long)q->TW, (long long)q->PH, (long long)q->PW, (long long)q->tiles_h, (long long)q->tiles_w, (long long)K,
                 (long long)a->splits, grid[0], grid[1], grid[2]);
        free(y);
        free(ps);
        free(seen);
        return NULL;
    }
    for (i = 0; i < a->M * NP; i++) y[i] = 0.0f;
    for (by = 0; by < (int64_t)grid[1] && !msg[0]; by++)
        for (bx = 0; bx < (int64_t)grid[0] && !msg[0]; bx++)
            for (tile = bx; tile < ntiles && !msg[0]; tile += grid[0]) {
                int64_t img = tile / (q->tiles_h * q->tiles_w), tr = tile % (q->tiles_h * q->tiles_w);
                int64_t oh0 = (tr / q->tiles_w) * q->TH, ow0 = (tr % q->tiles_w) * q->TW, n, m, k, c, r, col;
                int64_t ih0 = oh0 * a->stride_h - a->pad_h, iw0 = ow0 * a->stride_w - a->pad_w;
                for (c = 0; c < a->C; c++)
                    for (r = 0; r < q->PH; r++)
                        for (col = 0; col < q->PW; col++) {
                            int64_t ih = ih0 + r, iw = iw0 + col;
                            ps[c * PP + r * q->PW + col] = ih >= 0 && ih < a->H && iw >= 0 && iw < a->W
                                                               ? aicf__f16_to_f32(aicf__f32_to_f16(x[((img * a->C + c) * a->H + ih) * a->W + iw]))
                                                               : 0.0f;
                        }
                for (i = 0; i < PP; i++) ps[a->C * PP + i] = 0.0f;
                for (n = 0; n < 128 && !msg[0]; n++) {
                    int64_t rr = n / q->TW, qq = n % q->TW, oh = oh0 + rr, ow = ow0 + qq;
                    int64_t poff = rr * a->stride_h * q->PW + qq * a->stride_w;
                    if (oh < a->OH && ow < a->OW && by == 0) seen[img * P + oh * a->OW + ow]++;
                    for (m = by * 64; m < by * 64 + 64 && m < a->M; m++) {
                        float v = 0.0f;
                        for (k = 0; k < KP; k++) {
                            int64_t koff = a->C * PP, cc = k / (a->KH * a->KW), rem = k % (a->KH * a->KW);
                            if (k < K) koff = cc * PP + (rem / a->KW) * a->dil_h * q->PW + (rem % a->KW) * a->dil_w;
                            if (koff + poff >= (a->C + 1) * PP) {
                                snprintf(msg, cap, "B read k %lld pixel %lld at %lld outside the %lld patch elements", (long long)k, (long long)n,
                                         (long long)(koff + poff), (long long)((a->C + 1) * PP));
                                break;
                            }
                            if (k < K) v += aicf__f16_to_f32(aicf__f32_to_f16(w[m * K + k])) * ps[koff + poff];
                        }
                        if (oh >= a->OH || ow >= a->OW) continue;
                        if (b) v += aicf__f16_to_f32(aicf__f32_to_f16(b[m]));
                        if (a->relu && !(v > 0.0f)) v = 0.0f;
                        y[(img * a->M + m) * P + oh * a->OW + ow] = aicf__f16_to_f32(aicf__f32_to_f16(v));
                    }
                }
            }
    for (i = 0; i < NP && !msg[0]; i++)
        if (seen[i] != 1) snprintf(msg, cap, "output pixel %lld covered %d times by the tiles", (long long)i, seen[i]);
    free(seen);
    free(ps);
    if (msg[0]) {
        free(y);
        return NULL;
    }
    return y;
}

/* ||got - ref||_2 / ||ref||_2 over n floats */
static double rel_l2(const float* got, const float* ref, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        num += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

/* The CPU reference: the same graph on AICF_BACKEND_CPU. */
static float* cpu_ref(aicf_graph* g, const float* x, size_t* n) {
    aicf_plan* p = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_AUTO);
    aicf_exec* e = NULL;
    aicf_tensor_info ii, oi;
    float* y = NULL;
    if (!p) return NULL;
    aicf_plan_input_info(p, 0, &ii);
    aicf_plan_output_info(p, 0, &oi);
    if (aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && aicf_exec_set_input(e, 0, x, ii.bytes) == AICF_SUCCESS &&
        aicf_exec_run(e) == AICF_SUCCESS) {
        y = (float*)malloc(oi.bytes);
        *n = oi.bytes / 4;
        if (aicf_exec_get_output(e, 0, y, oi.bytes) != AICF_SUCCESS) {
            free(y);
            y = NULL;
        }
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return y;
}

/* The batched im2col program (src/82_cuda_conv.c aicf__cuc_batched_fit) from its three launches:
   aicf_im2col_knp_f16 run thread by thread from its launch and argument struct (ia) into a
   [K][N][P] column buffer (every element written exactly once), the matmul from its descriptor
   (md: float16-rounded operands, float32 sums: D [M, N*P] = W x col), then the reduction's
   arithmetic from its argument struct (ra: one split, bias, ReLU; float16 result). x, w, b: the
   case's float32 data. Returns Y (malloc'd) or NULL with a message. */
static float* emulate_batched(const aicf__k_im2col* ia, const unsigned grid[3], const unsigned block[3], const aicf__matmul_desc* md,
                              const aicf__k_conv2d_tc* ra, const float* x, const float* w, const float* b, char* msg, size_t cap) {
    int tp_log2 = (int)ia->tp_log2, rows = (int)block[0] >> tp_log2, KHW = (int)(ia->KH * ia->KW);
    int64_t N = ia->N, K = ia->C * KHW, P = ia->OH * ia->OW, NP = N * P, M = ra->M, i, m, j, k;
    int k_step = (int)grid[1] * rows;
    unsigned bx, by, bz, tid;
    float* col = (float*)calloc((size_t)(K * NP) + 1, sizeof(float));
    unsigned char* hits = (unsigned char*)calloc((size_t)(K * NP) + 1, 1);
    float* d = (float*)calloc((size_t)(M * NP) + 1, sizeof(float));
    float* y = (float*)malloc(sizeof(float) * (size_t)(M * NP) + 1);
    msg[0] = 0;
    if (!col || !hits || !d || !y) {
        snprintf(msg, cap, "out of memory");
        goto fail;
    }
    /* block (bx, by, bz) copies images 8*bz .. 8*bz + 7 */
    for (bz = 0; bz < grid[2]; bz++)
    for (by = 0; by < grid[1]; by++)
        for (bx = 0; bx < grid[0]; bx++)
            for (tid = 0; tid < block[0]; tid++) {
                int pl = (int)tid & ((1 << tp_log2) - 1), rl = (int)tid >> tp_log2, pp = (int)bx * (1 << tp_log2) + pl, kk;
                int oh, ow;
                if (pp >= P) continue;
                oh = pp / (int)ia->OW;
                ow = pp - oh * (int)ia->OW;
                for (kk = (int)by * rows + rl; kk < K; kk += k_step) {
                    int c = kk / KHW, r = kk - c * KHW, kh = r / (int)ia->KW, kw = r - kh * (int)ia->KW, n;
                    int ih = oh * (int)ia->stride_h - (int)ia->pad_h + kh * (int)ia->dil_h;
                    int iw = ow * (int)ia->stride_w - (int)ia->pad_w + kw * (int)ia->dil_w;
                    for (n = 8 * (int)bz; n < N && n < 8 * (int)bz + 8; n++) {
                        int64_t dst = ((int64_t)kk * N + n) * P + pp;
                        float v = 0.0f;
                        if (ih >= 0 && ih < ia->H && iw >= 0 && iw < ia->W)
                            v = aicf__f16_to_f32(aicf__f32_to_f16(x[((n * ia->C + c) * ia->H + ih) * ia->W + iw]));
                        col[dst] = v;
                        if (hits[dst] < 255) hits[dst]++;
                    }
                    if (kk > K - k_step) break;
                }
            }
    for (i = 0; i < K * NP && hits[i] == 1; i++) continue;
    if (i < K * NP) {
        snprintf(msg, cap, "im2col_knp: column element %lld written %d times", (long long)i, hits[i]);
        goto fail;
    }
    if (md->M != M || md->N != NP || md->K != K || md->lda != K || md->ldb != NP || md->ldc != NP || md->batch != 1 || !md->out_f32) {
        snprintf(msg, cap, "matmul M=%lld N=%lld K=%lld ld %lld/%lld/%lld batch %lld out_f32 %d", (long long)md->M, (long long)md->N,
                 (long long)md->K, (long long)md->lda, (long long)md->ldb, (long long)md->ldc, (long long)md->batch, md->out_f32);
        goto fail;
    }
    for (m = 0; m < M; m++)
        for (j = 0; j < NP; j++) {
            float acc = 0.0f;
            for (k = 0; k < K; k++) acc += aicf__f16_to_f32(aicf__f32_to_f16(w[m * md->lda + k])) * col[k * md->ldb + j];
            d[m * md->ldc + j] = acc;
        }
    if (ra->splits != 1 || ra->N != N || ra->OH * ra->OW != P) {
        snprintf(msg, cap, "reduction: %lld splits, N %lld, P %lld", (long long)ra->splits, (long long)ra->N, (long long)(ra->OH * ra->OW));
        goto fail;
    }
    for (m = 0; m < M; m++)
        for (j = 0; j < NP; j++) {
            int64_t img = j / P, pp = j % P;
            float v = d[m * NP + j];
            if (b) v += aicf__f16_to_f32(aicf__f32_to_f16(b[m]));
            if (ra->relu && !(v > 0.0f)) v = 0.0f;
            y[(img * M + m) * P + pp] = aicf__f16_to_f32(aicf__f32_to_f16(v));
        }
    free(col);
    free(hits);
    free(d);
    return y;
fail:
    free(col);
    free(hits);
    free(d);
    free(y);
    return NULL;
}

/* The emulated program `got` (what, "tc" or "tcp") against the CPU reference `ref` (n floats):
   rel L2 error <= 2e-3; frees both. */
static void check_emulated(aicf_context* ctx, const char* tag, const char* what, float* ref, float* got, size_t n, const char* msg) {
    double e;
    CHECK(ref != NULL, "%s: CPU reference: %s", tag, aicf_last_error(ctx));
    CHECK(got != NULL, "%s: emulation: %s", tag, msg);
    if (ref && got) {
        e = rel_l2(got, ref, n);
        CHECK(e <= 2e-3, "%s: the %s program on the host differs from the CPU reference: rel err %.3g", tag, what, e);
        if (g_verbose && e <= 2e-3) printf("ok   %s: %s program emulated, rel err %.2g vs CPU float32\n", tag, what, e);
    }
    free(ref);
    free(got);
}

/* ---- one case under one policy ---- */
static void run_case(aicf_context* ctx, const ccase* c, aicf_conv_algo algo, aicf_precision prec, int have_lt) {
    cgraph cg;
    cgeo ge;
    aicf_plan* p = NULL;
    char tag[256], want[200];
    int si, f16 = prec == AICF_PRECISION_FP16, expect_gemm, expect_im2col, expect_tc, expect_tcp, expect_tcr, expect_tcs, expect_batched,
        auto_batched;
    size_t es = f16 ? 2 : 4;
    const aicf__step* st;
    geo_of(c, &ge);
    snprintf(tag, sizeof tag, "%s [%s %s]", c->name, algo_name(algo), prec_name(prec));
    if (!build(ctx, c, &cg)) {
        CHECK(0, "%s: building the graph: %s", tag, aicf_last_error(ctx));
        cgraph_free(&cg);
        return;
    }
    /* the documented rule (src/82_cuda_conv.c), read independently: float16 group-1 convs on the
       tensor-core implicit GEMM under AUTO and IMPLICIT_GEMM_TC (no cuBLASLt needed) */
    expect_tc = f16 && c->group == 1 && (algo == AICF_CONV_AUTO || algo == AICF_CONV_IMPLICIT_GEMM_TC);
    /* AUTO's batched rule, tried first: float16, several images, not pointwise, K >= 512, at most
       2 tensor-core tiles (64 or 128 channels by 64 columns of N*P) per SM (132 on the fake
       device), N*P % 8 == 0, cuBLASLt loaded */
    auto_batched = f16 && c->group == 1 && algo == AICF_CONV_AUTO && have_lt && !ge.pointwise && c->N > 1 && ge.K >= 512 &&
                   (c->N * ge.P) % 8 == 0 && ((c->M + (c->M >= 128 ? 127 : 63)) / (c->M >= 128 ? 128 : 64)) * ((c->N * ge.P + 63) / 64) <= 2 * 132;
    if (auto_batched) expect_tc = 0;
    /* the small-K kernel: fewer than 8 channels, K <= 256, a 128-pixel tile (TW even) whose C patch
       planes hold at most 4096 elements */
    expect_tcs = 0;
    if (expect_tc && c->C < 8 && ge.K <= 256) {
        int64_t tw;
        for (tw = 2; tw <= 128; tw *= 2)
            if (c->C * ((128 / tw - 1) * c->sh + (c->KH - 1) * c->dh + 1) * ((tw - 1) * c->sw + (c->KW - 1) * c->dw + 1) <= 4096) expect_tcs = 1;
    }
    /* the rows kernel: 3x3 stride 1 dilation 1 pads 1, C % 16 == 0, W even (16-byte row copies when W % 8 == 0,
       8 when W % 4 == 0, else 4), TH = floor(pix / W) >= 1 whole rows with TH*W >= 7/8 of pix (224 pixels with 64-row blocks, 112 with
       128), shared memory (2 x 64 or 128 weight rows of 152 halves, 2 x 16 x (TH+2) x W halves, 2 x (TH+2) x (W+2) x 24
       halves; at least the staged output, BM x (pix + 8) floats) within 113 KiB, TH at most H; 128-row blocks from
       M >= 256; under AUTO at least one block per SM (132 on the fake device) and W % 4 == 0, no split */
    expect_tcr = 0;
    if (expect_tc && !expect_tcs && c->KH == 3 && c->KW == 3 && c->sh == 1 && c->sw == 1 && c->dh == 1 && c->dw == 1 && c->pt == 1 &&
        c->pl == 1 && c->pb == 1 && c->pr == 1 && c->C % 16 == 0 && c->W % 2 == 0) {
        int64_t bm = c->M >= 256 ? 128 : 64, pix = bm == 128 ? 112 : 224, th = AICF__MIN(pix / c->W, c->H);
        int64_t smem = AICF__MAX((2 * bm * 152 + 2 * 16 * (th + 2) * c->W + 2 * (th + 2) * (c->W + 2) * 24) * 2, bm * (pix + 8) * 4);
        int64_t blocks = c->N * ((c->H + th - 1) / (th > 0 ? th : 1)) * ((c->M + bm - 1) / bm);
        expect_tcr = th >= 1 && (pix / c->W) * c->W * 8 >= pix * 7 && smem <= 113 * 1024 && (algo == AICF_CONV_IMPLICIT_GEMM_TC || (blocks >= 132 && c->W % 4 == 0));
    }
    /* the patch kernel: 3x3 stride 1, C % 8 == 0, 64-row blocks (M < 128) or C >= 256 */
    expect_tcp = expect_tcr || (expect_tc && !expect_tcs && c->KH * c->KW == 9 && c->C % 8 == 0 && c->sh == 1 && c->sw == 1 &&
                                (c->M < 128 || c->C >= 256) && ((c->KH - 1) * c->dh + 1) * ((c->KW - 1) * c->dw + 1) <= 289);
    expect_gemm = !expect_tc && have_lt && c->group == 1 && algo != AICF_CONV_DIRECT && algo != AICF_CONV_IMPLICIT_GEMM_TC &&
                  (algo == AICF_CONV_IM2COL_GEMM || ge.pointwise || (ge.K >= 64 && c->M >= 32) || auto_batched);
    expect_im2col = expect_gemm && !ge.pointwise;
    /* float16 with several images: the batched lowering when N*P is a multiple of 8 */
    expect_batched = expect_im2col && f16 && c->N > 1 && (c->N * ge.P) % 8 == 0 && (algo == AICF_CONV_IM2COL_GEMM || auto_batched);
    FLT.n_results = 1;
    FLT.queries = 0;
    p = plan_of(cg.g, AICF_BACKEND_CUDA, prec, algo);
    CHECK(p != NULL, "%s: plan: %s", tag, aicf_last_error(ctx));
    if (!p) {
        cgraph_free(&cg);
        return;
    }
    si = conv_step(p);
    CHECK(si >= 0, "%s: no Conv step", tag);
    if (si < 0) goto done;
    st = &p->steps[si];
    CHECK(check_scratch(p, tag) == 0, "%s: scratch placement (see above)", tag);
    if (expect_tcs) {
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        CHECK(strcmp(st->kernel, "aicf_conv2d_tcs_f16_m64") == 0, "%s: kernel %s, expected aicf_conv2d_tcs_f16_m64", tag, st->kernel);
        CHECK(strstr(st->reason, "small-K") != NULL && strstr(st->reason, algo == AICF_CONV_AUTO ? "AUTO: float16, group 1" : "conv_algo IMPLICIT_GEMM_TC") != NULL,
              "%s: reason \"%s\" does not name the kernel and the rule", tag, st->reason);
        CHECK(st->epi_native == c->relu, "%s: %d epilogue ops inside the kernel, expected %d", tag, st->epi_native, c->relu);
        CHECK(st->scratch_bytes == 0 && p->loc[st->in[1]].chunk == 0, "%s: scratch %zu bytes, weight chunk %d", tag, st->scratch_bytes,
              p->loc[st->in[1]].chunk);
        CHECK(pr && ops && pr->n_ops == 1 && ops[0].kind == AICF__CUO_KERNEL, "%s: %d launches, expected 1", tag, pr ? pr->n_ops : 0);
        if (pr && ops && ops[0].kind == AICF__CUO_KERNEL) {
            aicf__k_conv2d_tcp q;
            char msg[200];
            size_t n = 0;
            float *ref, *got;
            int64_t ntiles, kp = (ge.K + 15) / 16 * 16, pp, smem;
            memcpy(&q, ops[0].args, sizeof q);
            ntiles = c->N * q.tiles_h * q.tiles_w;
            pp = q.PH * q.PW;
            /* weights 64 x 264 halves, two buffers of C + 1 planes, 8 bytes per patch element (an even count), 4 per k */
            smem = (64 * 264 + (2 * (c->C + 1) * pp + 7) / 8 * 8) * 2 + (c->C * pp + (c->C * pp) % 2) * 8 + kp * 4;
            CHECK(q.b.N == c->N && q.b.C == c->C && q.b.M == c->M && q.b.OH == ge.OH && q.b.OW == ge.OW && q.b.KH == c->KH &&
                      q.b.KW == c->KW && q.b.pad_h == c->pt && q.b.pad_w == c->pl && q.b.stride_h == c->sh && q.b.stride_w == c->sw &&
                      q.b.dil_h == c->dh && q.b.dil_w == c->dw && q.b.relu == c->relu && q.b.splits == 1 && q.b.vec_w == 0 &&
                      q.b.vec_y == (ge.OW % 2 == 0),
                  "%s: tcs arguments (splits %lld, vec_y %lld)", tag, (long long)q.b.splits, (long long)q.b.vec_y);
            /* 2 blocks per SM (132 on the fake device) over the 64-channel blocks, at most one per tile */
            CHECK(ops[0].block[0] == 256 && ops[0].grid[1] == (unsigned)((c->M + 63) / 64) && ops[0].grid[2] == 1 &&
                      (int64_t)ops[0].grid[0] == AICF__MIN(ntiles, (264 + (c->M + 63) / 64 - 1) / ((c->M + 63) / 64)) &&
                      (int64_t)ops[0].shared_bytes == smem && smem <= 113 * 1024,
                  "%s: tcs launch grid(%u,%u,%u) block %u smem %u (expected %lld) for %lld tiles", tag, ops[0].grid[0], ops[0].grid[1],
                  ops[0].grid[2], ops[0].block[0], ops[0].shared_bytes, (long long)smem, (long long)ntiles);
            ref = cpu_ref(cg.g, cg.x, &n);
            got = emulate_tcs(&q, ops[0].grid, cg.x, cg.w, c->bias ? cg.b : NULL, msg, sizeof msg);
            check_emulated(ctx, tag, "tcs", ref, got, n, msg);
        }
    } else if (expect_tcp) {
        /* the patch kernel (src/82_cuda_conv.c aicf__cuc_tc_fit): 3x3 taps with C % 8 == 0, 1x1
           with C % 16 == 0, constant weights; split-K by chunks as documented */
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        aicf__k_conv2d_tcp q;
        int64_t bm = c->M >= (expect_tcr ? 256 : 128) ? 128 : 64, khw = c->KH * c->KW, chn = expect_tcr ? 16 : 8, nch = c->C / chn, want_splits = 1,
                min_ch = (128 + khw * chn - 1) / (khw * chn), tiles;
        char kname[48];
        if (expect_tcr)
            snprintf(kname, sizeof kname, "aicf_conv2d_tcr_f16_m%d_v%d", (int)bm, c->W % 8 == 0 ? 16 : c->W % 4 == 0 ? 8 : 4);
        else
            snprintf(kname, sizeof kname, "aicf_conv2d_tcp_f16_m%d_k%dc%d", (int)bm, (int)khw, (int)chn);
        CHECK(strcmp(st->kernel, kname) == 0, "%s: kernel %s, expected %s", tag, st->kernel, kname);
        CHECK(strstr(st->reason, "patch in smem") != NULL && (!expect_tcr || strstr(st->reason, "B rows, ") != NULL),
              "%s: reason \"%s\" does not name the patch", tag, st->reason);
        CHECK(st->epi_native == c->relu, "%s: %d epilogue ops inside the kernel, expected %d", tag, st->epi_native, c->relu);
        CHECK(pr && ops && ops[0].kind == AICF__CUO_KERNEL, "%s: no launch", tag);
        if (pr && ops && ops[0].kind == AICF__CUO_KERNEL) {
            char msg[200];
            size_t n = 0;
            float *ref, *got, *wperm;
            memcpy(&q, ops[0].args, sizeof q);
            tiles = ((c->M + bm - 1) / bm) * c->N * q.tiles_h * q.tiles_w;
            if (tiles < (2 * tiles <= 132 ? 264 : 132) && nch >= 2 * min_ch) {
                want_splits = ((2 * tiles <= 132 ? 264 : 132) + tiles - 1) / tiles;
                if (want_splits > nch / min_ch) want_splits = nch / min_ch;
                if (want_splits > 32) want_splits = 32;
                if (want_splits > 1) want_splits = (nch + (nch + want_splits - 1) / want_splits - 1) / ((nch + want_splits - 1) / want_splits);
            }
            CHECK(q.b.N == c->N && q.b.C == c->C && q.b.M == c->M && q.b.OH == ge.OH && q.b.OW == ge.OW && q.b.KH == c->KH &&
                      q.b.KW == c->KW && q.b.pad_h == c->pt && q.b.pad_w == c->pl && q.b.relu == c->relu && q.b.splits == want_splits &&
                      q.b.vec_y == (ge.P % 2 == 0 && ge.OW % 2 == 0) && q.tiles_h * q.TH >= ge.OH && q.tiles_w * q.TW >= ge.OW &&
                      (q.tiles_h - 1) * q.TH < ge.OH && (q.tiles_w - 1) * q.TW < ge.OW,
                  "%s: tcp arguments (splits %lld, want %lld; tile %lldx%lld x %lldx%lld)", tag, (long long)q.b.splits,
                  (long long)want_splits, (long long)q.TH, (long long)q.TW, (long long)q.tiles_h, (long long)q.tiles_w);
            if (expect_tcr) {
                int64_t pix = bm == 128 ? 112 : 224, th = AICF__MIN(pix / c->W, c->H);
                int64_t smem = AICF__MAX((2 * bm * 152 + 2 * 16 * (th + 2) * c->W + 2 * (th + 2) * (c->W + 2) * 24) * 2, bm * (pix + 8) * 4);
                CHECK(q.TH == th && q.TW == c->W && q.PH == th + 2 && q.PW == c->W + 2 && q.tiles_w == 1 &&
                          q.tiles_h == (c->H + th - 1) / th && (int64_t)ops[0].shared_bytes == smem,
                      "%s: rows kernel tile %lldx%lld patch %lldx%lld tiles %lldx%lld smem %u (expected %lld rows, %lld bytes)", tag,
                      (long long)q.TH, (long long)q.TW, (long long)q.PH, (long long)q.PW, (long long)q.tiles_h, (long long)q.tiles_w,
                      ops[0].shared_bytes, (long long)th, (long long)smem);
            }
            CHECK(ops[0].block[0] == (unsigned)(expect_tcr ? 256 : 2 * bm) && ops[0].grid[1] == (unsigned)((c->M + bm - 1) / bm) &&
                      ops[0].grid[2] == (unsigned)q.b.splits && pr->n_ops == (q.b.splits > 1 ? 2 : 1),
                  "%s: tcp launch grid(%u,%u,%u) block %u, %d launches", tag, ops[0].grid[0], ops[0].grid[1], ops[0].grid[2],
                  ops[0].block[0], pr->n_ops);
            CHECK(st->scratch_bytes == (q.b.splits > 1 ? (size_t)(q.b.splits * c->M * c->N * ge.P * 4) : 0),
                  "%s: scratch %zu bytes for %lld splits", tag, st->scratch_bytes, (long long)q.b.splits);
            if (pr->n_ops == 2) CHECK(check_reduce(&ops[1], &q.b, msg, sizeof msg) == 0, "%s: split-K reduction: %s", tag, msg);
            /* the plan stores the weights chunk-ordered (layout=chunkCG, permuted at upload) */
            CHECK(p->loc[st->in[1]].chunk == chn, "%s: weight layout chunk%d, expected chunk%lld", tag, p->loc[st->in[1]].chunk,
                  (long long)chn);
            {
                size_t tn = 0;
                char* txt = NULL;
                char want_l[32];
                snprintf(want_l, sizeof want_l, " layout=chunk%lld\n", (long long)chn);
                aicf_plan_serialize(p, NULL, 0, &tn);
                txt = (char*)malloc(tn + 1);
                if (txt && aicf_plan_serialize(p, txt, tn + 1, NULL) == AICF_SUCCESS) {
                    aicf_plan* lp = NULL;
                    CHECK(strstr(txt, want_l) != NULL, "%s: the plan file does not record%s", tag, want_l);
                    /* the file loads back to the same plan: the same kernel, the same bytes */
                    if (aicf_plan_load_memory(cg.g, txt, strlen(txt), &lp) == AICF_SUCCESS) {
                        size_t ln = 0;
                        char* lt = NULL;
                        aicf_plan_serialize(lp, NULL, 0, &ln);
                        lt = (char*)malloc(ln + 1);
                        CHECK(lt && ln == tn && aicf_plan_serialize(lp, lt, ln + 1, NULL) == AICF_SUCCESS && strcmp(lt, txt) == 0 &&
                                  strcmp(lp->steps[si].kernel, st->kernel) == 0,
                              "%s: the loaded plan differs from the file (kernel %s)", tag, lp->steps[si].kernel);
                        free(lt);
                        aicf_plan_destroy(lp);
                    } else
                        CHECK(0, "%s: loading the plan file: %s", tag, aicf_last_error(ctx));
                }
                free(txt);
            }
            wperm = (float*)malloc(cg.nw * sizeof(float));
            aicf__weights_chunked(cg.w, wperm, c->M, c->C, c->KH * c->KW, chn, sizeof(float));
            ref = cpu_ref(cg.g, cg.x, &n);
            got = emulate_tcp(&q, ops[0].grid, chn, expect_tcr, cg.x, wperm, c->bias ? cg.b : NULL, msg, sizeof msg);
            free(wperm);
            check_emulated(ctx, tag, expect_tcr ? "tcr" : "tcp", ref, got, n, msg);
        }
    } else if (expect_tc) {
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        CHECK(p->loc[st->in[1]].chunk == 0, "%s: weights chunk-ordered (chunk%d) for the gathering kernel", tag, p->loc[st->in[1]].chunk);
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        aicf__k_conv2d_tc a;
        int64_t bm = c->M >= 128 ? 128 : 64, NP = c->N * ge.P, tiles = ((c->M + bm - 1) / bm) * ((NP + 63) / 64),
                kt = (ge.K + 31) / 32, want_splits = 1;
        char kname[48];
        snprintf(kname, sizeof kname, "aicf_conv2d_tc_f16_m%d%s", (int)bm, ge.K % 8 == 0 ? "_vw" : "");
        CHECK(strcmp(st->kernel, kname) == 0, "%s: kernel %s, expected %s", tag, st->kernel, kname);
        CHECK(strstr(st->reason, algo == AICF_CONV_AUTO ? "AUTO: float16, group 1" : "conv_algo IMPLICIT_GEMM_TC") != NULL,
              "%s: reason \"%s\" does not name the rule", tag, st->reason);
        CHECK(st->epi_native == c->relu, "%s: %d epilogue ops inside the kernel, expected %d", tag, st->epi_native, c->relu);
        /* split-K as documented: ceil(2 x 132 SMs / tiles) when tiles <= 132 / 2, ceil(132 / tiles)
           when tiles < 132, none from 132 tiles on, when K has >= 2 tiles of 32 per split's
           minimum (4 tiles, or 1 where K has at most 8 tiles and the output at most 16); at most
           K-tiles / minimum and 32, then no empty split */
        int64_t min_kt = kt <= 8 && tiles <= 16 ? 1 : 4;
        if (tiles < (2 * tiles <= 132 ? 264 : 132) && kt >= 2 * min_kt) {
            want_splits = ((2 * tiles <= 132 ? 264 : 132) + tiles - 1) / tiles;
            if (want_splits > kt / min_kt) want_splits = kt / min_kt;
            if (want_splits > 32) want_splits = 32;
            if (want_splits > 1) want_splits = (kt + (kt + want_splits - 1) / want_splits - 1) / ((kt + want_splits - 1) / want_splits);
        }
        CHECK(pr && ops && ops[0].kind == AICF__CUO_KERNEL && pr->n_ops == (want_splits > 1 ? 2 : 1),
              "%s: %d launches, expected %d", tag, pr ? pr->n_ops : 0, want_splits > 1 ? 2 : 1);
        if (pr && ops && ops[0].kind == AICF__CUO_KERNEL) {
            char msg[200];
            size_t n = 0;
            float *ref, *got;
            int j, px = -1, pw = -1, pb = -1, py = -1, pws = -1;
            memcpy(&a, ops[0].args, sizeof a);
            CHECK(a.N == c->N && a.C == c->C && a.H == c->H && a.W == c->W && a.M == c->M && a.OH == ge.OH && a.OW == ge.OW &&
                      a.KH == c->KH && a.KW == c->KW && a.pad_h == c->pt && a.pad_w == c->pl && a.stride_h == c->sh &&
                      a.stride_w == c->sw && a.dil_h == c->dh && a.dil_w == c->dw && a.relu == c->relu && a.splits == want_splits &&
                      a.vec_w == (ge.K % 8 == 0) && a.vec_y == (ge.P % 2 == 0),
                  "%s: tc arguments (splits %lld, want %lld; vec_w %lld vec_y %lld)", tag, (long long)a.splits, (long long)want_splits,
                  (long long)a.vec_w, (long long)a.vec_y);
            CHECK(ops[0].block[0] == (unsigned)(2 * bm) && ops[0].grid[0] == (unsigned)((NP + 63) / 64) &&
                      ops[0].grid[1] == (unsigned)((c->M + bm - 1) / bm) &&
                      ops[0].grid[2] == (unsigned)a.splits,
                  "%s: tc launch grid(%u,%u,%u) block %u", tag, ops[0].grid[0], ops[0].grid[1], ops[0].grid[2], ops[0].block[0]);
            for (j = 0; j < ops[0].n_patch; j++) {
                size_t f = ops[0].patch[j].field;
                int tt = ops[0].patch[j].tensor;
                if (f == offsetof(aicf__k_conv2d_tc, x)) px = tt;
                if (f == offsetof(aicf__k_conv2d_tc, w)) pw = tt;
                if (f == offsetof(aicf__k_conv2d_tc, bias)) pb = tt;
                if (f == offsetof(aicf__k_conv2d_tc, y)) py = tt;
                if (f == offsetof(aicf__k_conv2d_tc, ws)) pws = tt;
            }
            CHECK(px == st->in[0] && pw == st->in[1] && pb == (c->bias ? st->in[2] : -1) && py == st->out[0] &&
                      pws == (a.splits > 1 ? AICF__CUO_SCRATCH : -1),
                  "%s: tc patches x %d w %d bias %d y %d ws %d", tag, px, pw, pb, py, pws);
            CHECK(st->scratch_bytes == (a.splits > 1 ? (size_t)(a.splits * c->M * NP * 4) : 0), "%s: scratch %zu bytes for %lld splits",
                  tag, st->scratch_bytes, (long long)a.splits);
            if (pr->n_ops == 2) CHECK(check_reduce(&ops[1], &a, msg, sizeof msg) == 0, "%s: split-K reduction: %s", tag, msg);
            /* the program's arithmetic on the host against the CPU reference (float32) */
            ref = cpu_ref(cg.g, cg.x, &n);
            got = emulate_tc(&a, ops[0].grid, cg.x, cg.w, c->bias ? cg.b : NULL, msg, sizeof msg);
            check_emulated(ctx, tag, "tc", ref, got, n, msg);
        }
    } else if (expect_batched) {
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        size_t colb = ((size_t)(c->N * ge.K * ge.P) * 2 + 255) & ~(size_t)255, need = colb + (size_t)(c->M * c->N * ge.P) * 4;
        CHECK(strcmp(st->kernel, "im2col+cublasLt:matmul") == 0, "%s: kernel %s", tag, st->kernel);
        snprintf(want, sizeof want, "batched im2col+cuBLASLt M=%lld N=%lldx%lld K=%lld (fp16 TC, f32 product)", (long long)c->M,
                 (long long)c->N, (long long)ge.P, (long long)ge.K);
        CHECK(strstr(st->reason, want) != NULL, "%s: reason \"%s\" lacks \"%s\"", tag, st->reason, want);
        CHECK(strstr(st->reason, algo == AICF_CONV_IM2COL_GEMM ? "conv_algo IM2COL_GEMM" : "AUTO fp16: ") != NULL,
              "%s: reason \"%s\" does not name the rule", tag, st->reason);
        snprintf(want, sizeof want, "epilogue %s%s", c->bias ? "bias" : "-", c->relu ? "+relu" : "");
        CHECK(strstr(st->reason, want) != NULL, "%s: reason \"%s\" lacks \"%s\"", tag, st->reason, want);
        CHECK(st->epi_native == c->relu, "%s: %d epilogue ops in the reduction, expected %d", tag, st->epi_native, c->relu);
        CHECK(st->scratch_bytes == need, "%s: scratch %zu bytes, expected the column buffer %zu + the product M*N*P*4 = %zu", tag,
              st->scratch_bytes, colb, need);
        CHECK(pr && ops && pr->n_ops == 3, "%s: %d launches, expected im2col, matmul, reduction", tag, pr ? pr->n_ops : 0);
        if (pr && ops && pr->n_ops == 3 && ops[0].kind == AICF__CUO_KERNEL && ops[1].kind == AICF__CUO_MATMUL &&
            ops[2].kind == AICF__CUO_KERNEL) {
            aicf__k_im2col a;
            aicf__matmul_desc md;
            aicf__k_conv2d_tc ra;
            int64_t tp = 1;
            int j, pa = -1, pb = -1, pd = -1, rws = -1, ry = -1, rb = -1;
            uint64_t ob = 1, od = 0, ows = 0;
            char msg[200];
            size_t n = 0;
            CHECK(!strcmp(aicf__kt_kernels[ops[0].kernel_index].name, "aicf_im2col_knp_f16"), "%s: launch 0 is %s, not aicf_im2col_knp_f16",
                  tag, aicf__kt_kernels[ops[0].kernel_index].name);
            memcpy(&a, ops[0].args, sizeof a);
            while (tp < ge.P && tp < 256) tp <<= 1;
            CHECK(a.N == c->N && a.C == c->C && a.H == c->H && a.W == c->W && a.OH == ge.OH && a.OW == ge.OW && a.KH == c->KH &&
                      a.KW == c->KW && a.pad_h == c->pt && a.pad_w == c->pl && a.stride_h == c->sh && a.stride_w == c->sw &&
                      a.dil_h == c->dh && a.dil_w == c->dw && ((int64_t)1 << a.tp_log2) == tp,
                  "%s: im2col_knp arguments", tag);
            CHECK(ops[0].block[0] == 256 && ops[0].grid[0] == (unsigned)((ge.P + tp - 1) / tp) &&
                      ops[0].grid[2] == (unsigned)((c->N + 7) / 8) && ops[0].grid[1] >= 1 && ops[0].grid[1] <= 65535 &&
                      (int64_t)ops[0].grid[1] <= (ge.K + 256 / tp - 1) / (256 / tp),
                  "%s: im2col_knp launch grid(%u,%u,%u) block %u", tag, ops[0].grid[0], ops[0].grid[1], ops[0].grid[2], ops[0].block[0]);
            CHECK(ops[0].n_patch == 2 && ops[0].patch[0].tensor == st->in[0] && ops[0].patch[1].tensor == AICF__CUO_SCRATCH &&
                      ops[0].patch[1].field == offsetof(aicf__k_im2col, col) && ops[0].patch[1].add == 0,
                  "%s: im2col_knp patches", tag);
            memcpy(&md, ops[1].args, sizeof md);
            CHECK(md.M == c->M && md.N == c->N * ge.P && md.K == ge.K && md.lda == ge.K && md.ldb == md.N && md.ldc == md.N &&
                      md.batch == 1 && !md.stride_a && !md.stride_b && !md.stride_c && !md.trans_a && !md.trans_b && md.beta == 0.0f &&
                      md.alpha == 1.0f && !md.bias && !md.act && md.out_f32 == 1 && md.dtype == AICF_DTYPE_FLOAT16 && !md.tf32 && !md.reserved,
                  "%s: matmul M=%lld N=%lld K=%lld ld %lld/%lld/%lld batch %lld out_f32 %d", tag, (long long)md.M, (long long)md.N,
                  (long long)md.K, (long long)md.lda, (long long)md.ldb, (long long)md.ldc, (long long)md.batch, md.out_f32);
            for (j = 0; j < ops[1].n_patch; j++) {
                if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, a)) pa = ops[1].patch[j].tensor;
                if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, b)) pb = ops[1].patch[j].tensor, ob = ops[1].patch[j].add;
                if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, d)) pd = ops[1].patch[j].tensor, od = ops[1].patch[j].add;
            }
            CHECK(pa == st->in[1] && pb == AICF__CUO_SCRATCH && ob == 0 && pd == AICF__CUO_SCRATCH && od == colb,
                  "%s: matmul operands A %d, B %d+%llu, D %d+%llu (expected W, scratch+0, scratch+%zu)", tag, pa, pb,
                  (unsigned long long)ob, pd, (unsigned long long)od, colb);
            /* cuBLASLt: its A is our col [K, N*P] (float16), its D our product (float32), 256-byte aligned */
            CHECK(FLT.queries == 1 && FLT.a.dtype == AICF__CUDA_R_16F && FLT.a.rows == (uint64_t)(c->N * ge.P) &&
                      FLT.a.cols == (uint64_t)ge.K && FLT.a.ld == c->N * ge.P && FLT.b.dtype == AICF__CUDA_R_16F &&
                      FLT.d.dtype == AICF__CUDA_R_32F && FLT.d.rows == (uint64_t)(c->N * ge.P) && FLT.d.cols == (uint64_t)c->M &&
                      FLT.d.ld == c->N * ge.P && FLT.align[0] == 256 && FLT.align[3] == 256,
                  "%s: cuBLASLt asked %d times; A %d %llux%llu ld %lld, D %d %llux%llu ld %lld, alignments %u/%u", tag, FLT.queries,
                  FLT.a.dtype, (unsigned long long)FLT.a.rows, (unsigned long long)FLT.a.cols, (long long)FLT.a.ld, FLT.d.dtype,
                  (unsigned long long)FLT.d.rows, (unsigned long long)FLT.d.cols, (long long)FLT.d.ld, FLT.align[0], FLT.align[3]);
            memcpy(&ra, ops[2].args, sizeof ra);
            for (j = 0; j < ops[2].n_patch; j++) {
                if (ops[2].patch[j].field == offsetof(aicf__k_conv2d_tc, ws)) rws = ops[2].patch[j].tensor, ows = ops[2].patch[j].add;
                if (ops[2].patch[j].field == offsetof(aicf__k_conv2d_tc, y)) ry = ops[2].patch[j].tensor;
                if (ops[2].patch[j].field == offsetof(aicf__k_conv2d_tc, bias)) rb = ops[2].patch[j].tensor;
            }
            CHECK(rws == AICF__CUO_SCRATCH && ows == colb && ry == st->out[0] && rb == (c->bias ? st->in[2] : -1) && ra.relu == c->relu &&
                      ra.M == c->M && ra.splits == 1,
                  "%s: reduction patches ws %d+%llu y %d bias %d, relu %lld splits %lld", tag, rws, (unsigned long long)ows, ry, rb,
                  (long long)ra.relu, (long long)ra.splits);
            CHECK(check_reduce(&ops[2], &ra, msg, sizeof msg) == 0, "%s: reduction: %s", tag, msg);
            /* the program's arithmetic on the host against the CPU reference (float32) */
            {
                float* ref = cpu_ref(cg.g, cg.x, &n);
                float* got = emulate_batched(&a, ops[0].grid, ops[0].block, &md, &ra, cg.x, cg.w, c->bias ? cg.b : NULL, msg, sizeof msg);
                check_emulated(ctx, tag, "batched", ref, got, n, msg);
            }
        }
    } else if (expect_im2col) {
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        size_t need = (size_t)(c->N * ge.K * ge.P) * es;
        CHECK(strcmp(st->kernel, "im2col+cublasLt:matmul") == 0, "%s: kernel %s", tag, st->kernel);
        snprintf(want, sizeof want, "im2col+cuBLASLt M=%lld N=%lld K=%lld batch=%lld (%s)", (long long)c->M, (long long)ge.P,
                 (long long)ge.K, (long long)c->N, f16 ? "fp16 tensor cores" : prec == AICF_PRECISION_TF32 ? "TF32 tensor cores" : "fp32 SIMT");
        CHECK(strstr(st->reason, want) != NULL, "%s: reason \"%s\" lacks \"%s\"", tag, st->reason, want);
        CHECK(strstr(st->reason, algo == AICF_CONV_IM2COL_GEMM ? "conv_algo IM2COL_GEMM" : "AUTO K>=64 M>=32") != NULL,
              "%s: reason \"%s\" does not name the rule", tag, st->reason);
        CHECK(!c->bias == !strstr(st->reason, "+bias kernel"), "%s: reason \"%s\" and bias %d", tag, st->reason, c->bias);
        CHECK(st->scratch_bytes == need, "%s: scratch %zu bytes, expected N*K*P*%zu = %zu", tag, st->scratch_bytes, es, need);
        CHECK(pr && pr->n_ops >= 2 + c->bias + c->relu, "%s: %d launches", tag, pr ? pr->n_ops : 0);
        if (pr && pr->n_ops >= 2) {
            aicf__k_im2col a;
            aicf__matmul_desc md;
            int64_t tp = 1;
            char kname[32];
            snprintf(kname, sizeof kname, "aicf_im2col_%s", f16 ? "f16" : "f32");
            CHECK(ops[0].kind == AICF__CUO_KERNEL && ops[0].kernel_index >= 0 && !strcmp(aicf__kt_kernels[ops[0].kernel_index].name, kname),
                  "%s: launch 0 is not %s", tag, kname);
            memcpy(&a, ops[0].args, sizeof a);
            while (tp < ge.P && tp < 256) tp <<= 1;
            CHECK(a.N == c->N && a.C == c->C && a.H == c->H && a.W == c->W && a.OH == ge.OH && a.OW == ge.OW && a.KH == c->KH &&
                      a.KW == c->KW && a.pad_h == c->pt && a.pad_w == c->pl && a.stride_h == c->sh && a.stride_w == c->sw &&
                      a.dil_h == c->dh && a.dil_w == c->dw && ((int64_t)1 << a.tp_log2) == tp,
                  "%s: im2col arguments", tag);
            CHECK(ops[0].block[0] == 256 && ops[0].grid[0] == (unsigned)((ge.P + tp - 1) / tp) && ops[0].grid[2] == 1 &&
                      ops[0].grid[1] >= 1 && ops[0].grid[1] <= 65535,
                  "%s: im2col launch grid(%u,%u,%u) block %u", tag, ops[0].grid[0], ops[0].grid[1], ops[0].grid[2], ops[0].block[0]);
            CHECK(ops[0].n_patch == 2 && ops[0].patch[0].tensor == p->steps[si].in[0] && ops[0].patch[1].tensor == AICF__CUO_SCRATCH &&
                      ops[0].patch[1].field == offsetof(aicf__k_im2col, col),
                  "%s: im2col patches", tag);
            CHECK(ops[1].kind == AICF__CUO_MATMUL, "%s: launch 1 is not the matmul", tag);
            memcpy(&md, ops[1].args, sizeof md);
            CHECK(md.M == c->M && md.N == ge.P && md.K == ge.K && md.lda == ge.K && md.ldb == ge.P && md.ldc == ge.P &&
                      md.batch == c->N && md.stride_a == 0 && md.stride_b == ge.K * ge.P && md.stride_c == c->M * ge.P &&
                      !md.trans_a && !md.trans_b && md.beta == 0.0f && md.alpha == 1.0f && !md.bias && !md.act,
                  "%s: matmul M=%lld N=%lld K=%lld lda=%lld ldb=%lld ldc=%lld batch=%lld strides %lld %lld %lld", tag,
                  (long long)md.M, (long long)md.N, (long long)md.K, (long long)md.lda, (long long)md.ldb, (long long)md.ldc,
                  (long long)md.batch, (long long)md.stride_a, (long long)md.stride_b, (long long)md.stride_c);
            CHECK(md.dtype == (f16 ? AICF_DTYPE_FLOAT16 : AICF_DTYPE_FLOAT32) && md.tf32 == (prec == AICF_PRECISION_TF32),
                  "%s: matmul dtype %d tf32 %d", tag, (int)md.dtype, md.tf32);
            {
                int j, pb = -1, pa = -1, pd = -1;
                for (j = 0; j < ops[1].n_patch; j++) {
                    if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, a)) pa = ops[1].patch[j].tensor;
                    if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, b)) pb = ops[1].patch[j].tensor;
                    if (ops[1].patch[j].field == offsetof(aicf__matmul_desc, d)) pd = ops[1].patch[j].tensor;
                }
                CHECK(pa == st->in[1] && pb == AICF__CUO_SCRATCH && pd == st->out[0],
                      "%s: matmul operands A %d (W %d), B %d (scratch %d), D %d", tag, pa, st->in[1], pb, AICF__CUO_SCRATCH, pd);
            }
            if (c->bias)
                CHECK(pr->n_ops >= 3 && ops[2].kind == AICF__CUO_KERNEL &&
                          !strncmp(aicf__kt_kernels[ops[2].kernel_index].name, "aicf_binary_add_", 16),
                      "%s: launch 2 is not the bias add", tag);
            /* what cuBLASLt was asked (column-major view: its A is our col, its B our W) */
            CHECK(FLT.queries == 1, "%s: %d heuristic queries", tag, FLT.queries);
            CHECK(FLT.desc.compute == (prec == AICF_PRECISION_TF32 ? AICF__CUBLAS_COMPUTE_32F_FAST_TF32 : AICF__CUBLAS_COMPUTE_32F) &&
                      FLT.desc.scale == AICF__CUDA_R_32F && FLT.desc.ta == AICF__CUBLAS_OP_N && FLT.desc.tb == AICF__CUBLAS_OP_N,
                  "%s: cuBLASLt compute type %d scale %d op %d %d", tag, FLT.desc.compute, FLT.desc.scale, FLT.desc.ta, FLT.desc.tb);
            CHECK(FLT.a.dtype == (f16 ? AICF__CUDA_R_16F : AICF__CUDA_R_32F) && FLT.a.rows == (uint64_t)ge.P &&
                      FLT.a.cols == (uint64_t)ge.K && FLT.a.ld == ge.P && (c->N == 1 || (FLT.a.batch == c->N && FLT.a.stride == ge.K * ge.P)),
                  "%s: cuBLASLt A (col) %llux%llu ld %lld batch %d stride %lld", tag, (unsigned long long)FLT.a.rows,
                  (unsigned long long)FLT.a.cols, (long long)FLT.a.ld, FLT.a.batch, (long long)FLT.a.stride);
            CHECK(FLT.b.rows == (uint64_t)ge.K && FLT.b.cols == (uint64_t)c->M && FLT.b.ld == ge.K &&
                      (c->N == 1 || (FLT.b.batch == c->N && FLT.b.stride == 0)),
                  "%s: cuBLASLt B (W) %llux%llu ld %lld batch %d stride %lld", tag, (unsigned long long)FLT.b.rows,
                  (unsigned long long)FLT.b.cols, (long long)FLT.b.ld, FLT.b.batch, (long long)FLT.b.stride);
            CHECK(FLT.d.rows == (uint64_t)ge.P && FLT.d.cols == (uint64_t)c->M && FLT.d.ld == ge.P &&
                      (c->N == 1 || (FLT.d.batch == c->N && FLT.d.stride == c->M * ge.P)),
                  "%s: cuBLASLt D (Y) %llux%llu ld %lld batch %d stride %lld", tag, (unsigned long long)FLT.d.rows,
                  (unsigned long long)FLT.d.cols, (long long)FLT.d.ld, FLT.d.batch, (long long)FLT.d.stride);
            { /* the column buffer: 256 (the scratch offset), narrowed by its batch stride K*P */
                uint32_t al = 256;
                if (c->N > 1)
                    while (al > 1 && ((uint64_t)(ge.K * ge.P) * es) % al) al >>= 1;
                CHECK(FLT.align[0] == al, "%s: alignment given for the column buffer: %u, expected %u", tag, FLT.align[0], al);
            }
        }
    } else if (expect_gemm) { /* pointwise: x is B as stored, no scratch */
        aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
        const aicf__cuo_op* ops = pr ? aicf__cuo_prog_ops(pr) : NULL;
        CHECK(strcmp(st->kernel, "cublasLt:matmul") == 0, "%s: kernel %s", tag, st->kernel);
        CHECK(strstr(st->reason, "1x1 conv as GEMM, no im2col") != NULL, "%s: reason \"%s\"", tag, st->reason);
        CHECK(st->scratch_bytes == 0, "%s: scratch %zu bytes for a pointwise conv", tag, st->scratch_bytes);
        if (ops) {
            aicf__matmul_desc md;
            memcpy(&md, ops[0].args, sizeof md);
            CHECK(ops[0].kind == AICF__CUO_MATMUL && md.M == c->M && md.N == ge.P && md.K == c->C && md.batch == c->N &&
                      md.stride_a == 0 && md.stride_b == c->C * ge.P && md.stride_c == c->M * ge.P &&
                      md.tf32 == (prec == AICF_PRECISION_TF32),
                  "%s: pointwise matmul", tag);
        }
    } else {
        CHECK(!strncmp(st->kernel, "aicf_conv2d_", 12), "%s: kernel %s, expected a generated conv kernel", tag, st->kernel);
        CHECK(st->scratch_bytes == 0, "%s: scratch %zu bytes on the generated kernel", tag, st->scratch_bytes);
        if (algo == AICF_CONV_DIRECT) CHECK(strstr(st->reason, "conv_algo DIRECT") != NULL, "%s: reason \"%s\"", tag, st->reason);
        else if (algo == AICF_CONV_IMPLICIT_GEMM_TC)
            CHECK(strstr(st->reason, "IMPLICIT_GEMM_TC") != NULL &&
                      strstr(st->reason, c->group != 1 ? "grouped (group" : "not for fp32 storage") != NULL,
                  "%s: reason \"%s\"", tag, st->reason);
        else if (c->group != 1)
            CHECK(strstr(st->reason, "grouped (group") != NULL &&
                      (algo != AICF_CONV_IM2COL_GEMM || strstr(st->reason, "conv_algo IM2COL_GEMM does not apply") != NULL),
                  "%s: reason \"%s\"", tag, st->reason);
        else if (!have_lt)
            CHECK(strstr(st->reason, "cuBLASLt not loaded") != NULL, "%s: reason \"%s\"", tag, st->reason);
        else
            CHECK(strstr(st->reason, "im2col pays from K>=64 and M>=32") != NULL, "%s: reason \"%s\"", tag, st->reason);
    }
    CHECK(strlen(st->reason) < sizeof st->reason - 1, "%s: reason truncated: \"%s\"", tag, st->reason);
    if (g_verbose) printf("     %s: %s -- %s (scratch %zu @%zu)\n", tag, st->kernel, st->reason, st->scratch_bytes, st->scratch_offset);
    if (c->relu) CHECK(st->n_epi == 1, "%s: the Relu is the step's epilogue (%d)", tag, st->n_epi);
    /* the program, run on the host, against the CPU reference */
    if (expect_gemm && prec == AICF_PRECISION_FP32 && !c->relu) {
        char msg[200];
        size_t n = 0;
        float* ref = cpu_ref(cg.g, cg.x, &n);
        float* got = emulate(p, si, cg.x, msg, sizeof msg);
        double e;
        CHECK(ref != NULL, "%s: CPU reference: %s", tag, aicf_last_error(ctx));
        CHECK(got != NULL, "%s: emulation: %s", tag, msg);
        if (ref && got) {
            e = rel_l2(got, ref, n);
            CHECK(e <= 1e-5, "%s: the program on the host differs from the CPU reference: rel err %.3g", tag, e);
            if (e <= 1e-5) printf("ok   %s: program emulated on the host, rel err %.2g vs CPU; %s\n", tag, e, st->reason);
        }
        free(ref);
        free(got);
    }
done:
    aicf_plan_destroy(p);
    cgraph_free(&cg);
}

static ccase mk(const char* name, int rank, int64_t N, int64_t C, int64_t H, int64_t W, int64_t M, int64_t KH, int64_t KW,
                int64_t s, int64_t pad, int64_t dil, int bias) {
    ccase c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
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
    c.group = 1;
    c.bias = bias;
    return c;
}

static void describe(ccase* c) {
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%.60s x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] s(%lld,%lld) d(%lld,%lld) p(%lld,%lld,%lld,%lld)%s%s",
             c->name, (long long)c->N, (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->M,
             (long long)(c->C / c->group), (long long)c->KH, (long long)c->KW, (long long)c->sh, (long long)c->sw, (long long)c->dh,
             (long long)c->dw, (long long)c->pt, (long long)c->pl, (long long)c->pb, (long long)c->pr, c->group > 1 ? " grouped" : "",
             c->bias ? " bias" : "");
    snprintf(c->name, sizeof c->name, "%.159s", tmp);
}

/* The cases: chosen features, then random shapes. */
static int make_cases(ccase* cs, int cap) {
    int n = 0, i;
    cs[n++] = mk("3x3 p1", 4, 1, 16, 10, 9, 40, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 s2 p1 batch 3", 4, 3, 8, 11, 12, 32, 3, 3, 2, 1, 1, 0);
    cs[n++] = mk("3x3 dilation 2 p2", 4, 2, 8, 9, 9, 33, 3, 3, 1, 2, 2, 1);
    cs[n++] = mk("7x7 s2 p3 stem", 4, 1, 3, 20, 18, 64, 7, 7, 2, 3, 1, 1);
    cs[n++] = mk("7x7 s2 p3 stem batch 3", 4, 3, 3, 15, 15, 32, 7, 7, 2, 3, 1, 0);
    cs[n++] = mk("1x1 pointwise", 4, 2, 24, 7, 7, 48, 1, 1, 1, 0, 1, 1);
    cs[n++] = mk("1x1 pointwise batch 1", 4, 1, 70, 5, 6, 20, 1, 1, 1, 0, 1, 0);
    cs[n++] = mk("3x3 K=576 batch 4 (fp16 AUTO: batched im2col)", 4, 4, 64, 14, 14, 96, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 batch 10 (fp16 IM2COL_GEMM: the knp kernel's two image blocks)", 4, 10, 8, 6, 8, 24, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 s2 K=576 batch 2, N*P % 8 == 2 (fp16 AUTO: tensor cores)", 4, 2, 64, 9, 9, 40, 3, 3, 2, 1, 1, 0);
    cs[n++] = mk("1x1 stride 2 (needs im2col)", 4, 3, 64, 8, 9, 40, 1, 1, 2, 0, 1, 1);
    cs[n++] = mk("1x1 pad 1 (needs im2col)", 4, 1, 64, 4, 4, 32, 1, 1, 1, 1, 1, 0);
    cs[n++] = mk("small: K=27 M=8 (AUTO stays direct)", 4, 2, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("M=16 (AUTO stays direct)", 4, 1, 16, 8, 8, 16, 3, 3, 1, 1, 1, 0);
    cs[n++] = mk("1-D k5 s2 p2 d1", 3, 3, 20, 1, 40, 36, 1, 5, 2, 2, 1, 1);
    cs[n++] = mk("1-D k3 d3 p3", 3, 1, 32, 1, 30, 64, 1, 3, 1, 3, 3, 0);
    cs[n++] = mk("3x3 M=160 (fp16: 128-row tiles, split-K)", 4, 1, 64, 9, 9, 160, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 M=128 8x8 (fp16: split-K, reduction _v4)", 4, 1, 64, 8, 8, 128, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("5x5 M=128 C=9 (fp16: 128-row tiles, 2-byte weights)", 4, 2, 9, 12, 12, 128, 5, 5, 1, 2, 1, 0);
    /* fp16 small-K kernel: two 64-channel blocks; 702 tiles over 264 blocks (the tile loop) */
    cs[n++] = mk("5x5 M=128 C=3 (fp16 small-K: two channel blocks)", 4, 2, 3, 12, 12, 128, 5, 5, 1, 2, 1, 0);
    cs[n++] = mk("3x3 C=2 100x130 batch 6 (fp16 small-K: tile loop)", 4, 6, 2, 100, 130, 16, 3, 3, 1, 1, 1, 1);
    /* fp16 patch kernel: several tiles per image, M not a multiple of the block, odd OW */
    cs[n++] = mk("3x3 C=32 M=72 (fp16 patch: 4x13 tiles, odd OW)", 4, 2, 32, 23, 13, 72, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 C=24 tall image (fp16 patch)", 4, 1, 24, 70, 5, 40, 3, 3, 1, 1, 1, 0);
    cs[n++] = mk("3x3 C=256 M=136 (fp16 patch, 128-row blocks, split-K)", 4, 2, 256, 7, 7, 136, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 s2 C=32 (fp16: gathering kernel)", 4, 2, 32, 9, 9, 40, 3, 3, 2, 1, 1, 0);
    /* fp16 split-K with the tiles between half the SMs and the SM count: ceil(132 / 100) = 2 splits
       (not ceil(264 / 100) = 3), on the gathering kernel and on the patch kernel */
    cs[n++] = mk("3x3 s2 C=64 100 tiles (fp16 gathering: 2 splits)", 4, 1, 64, 160, 160, 64, 3, 3, 2, 1, 1, 1);
    cs[n++] = mk("3x3 C=64 M=40 100 tiles (fp16 patch: 2 splits)", 4, 2, 64, 80, 40, 40, 3, 3, 1, 1, 1, 0);
    /* fp16 rows kernel (IMPLICIT_GEMM_TC wherever it fits; AUTO from one block per SM): 16-byte row copies with a
       partial last row tile; 8-byte copies with 128-row blocks over two channel blocks and split-K; AUTO's case
       at 10 x 14 row tiles = 140 blocks (resnet18's layer1 shape at 10 images, 16 channels) */
    cs[n++] = mk("3x3 C=16 M=40 16x24 (fp16 rows: 16-byte copies, partial row tile)", 4, 2, 16, 16, 24, 40, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 C=32 M=264 12x20 (fp16 rows: 8-byte copies, 128-row blocks, split-K)", 4, 1, 32, 12, 20, 264, 3, 3, 1, 1, 1, 0);
    cs[n++] = mk("3x3 C=16 M=64 56x56 batch 10 (fp16 AUTO: rows kernel)", 4, 10, 16, 56, 56, 64, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 C=32 M=256 14x14 (fp16 rows: 4-byte copies, 128-row blocks, 2 row tiles)", 4, 2, 32, 14, 14, 256, 3, 3, 1, 1, 1, 1);
    cs[n++] = mk("3x3 C=16 M=64 14x14 batch 40 (fp16 AUTO: 4-byte copies not taken)", 4, 40, 16, 14, 14, 64, 3, 3, 1, 1, 1, 0);
    {
        ccase c = mk("asymmetric pads s(1,2) d(2,1)", 4, 2, 12, 10, 13, 35, 3, 2, 1, 0, 1, 1);
        c.sw = 2;
        c.dh = 2;
        c.pt = 2;
        c.pl = 0;
        c.pb = 1;
        c.pr = 3;
        cs[n++] = c;
    }
    {
        ccase c = mk("grouped 2", 4, 2, 32, 9, 9, 64, 3, 3, 1, 1, 1, 1);
        c.group = 2;
        cs[n++] = c;
    }
    {
        ccase c = mk("depthwise", 4, 1, 32, 8, 8, 32, 3, 3, 2, 1, 1, 0);
        c.group = 32;
        cs[n++] = c;
    }
    {
        ccase c = mk("3x3 + Relu epilogue", 4, 2, 16, 8, 8, 32, 3, 3, 1, 1, 1, 1);
        c.relu = 1;
        cs[n++] = c;
    }
    {
        ccase c = mk("SAME_UPPER s2 5x5", 4, 1, 8, 11, 10, 40, 5, 5, 2, 0, 1, 0);
        c.auto_pad = "SAME_UPPER";
        /* SAME_UPPER: out = ceil(in / s), total pad = (out - 1) * s + k - in, begin = total / 2:
           H = 11: out 6, total 4 -> 2, 2; W = 10: out 5, total 3 -> 1, 2 */
        c.pt = 2;
        c.pb = 2;
        c.pl = 1;
        c.pr = 2;
        cs[n++] = c;
    }
    for (i = 0; i < 8 && n < cap; i++) { /* random shapes */
        ccase c;
        int64_t k = rndi(1, 3) * 2 + (rndi(0, 3) == 0 ? -1 : 1); /* 1, 3, 5, 7 mostly odd */
        if (k < 1) k = 1;
        c = mk("random", rndi(0, 4) == 0 ? 3 : 4, rndi(1, 3), rndi(1, 24), rndi(4, 14), rndi(4, 14), rndi(8, 72), k,
               rndi(0, 2) ? k : rndi(1, 5), rndi(1, 2), rndi(0, 2), rndi(1, 2), (int)rndi(0, 1));
        if (c.rank == 3) c.KH = 1;
        /* keep the output at least 1x1 */
        while ((c.H + c.pt + c.pb - (c.KH - 1) * c.dh - 1) < 0) c.H++;
        while ((c.W + c.pl + c.pr - (c.KW - 1) * c.dw - 1) < 0) c.W++;
        cs[n++] = c;
    }
    for (i = 0; i < n; i++) describe(&cs[i]);
    return n;
}

/* ---- several convs: scratch intervals against the other tensors ---- */
static void test_chain(aicf_context* ctx) {
    /* x -> conv a (3x3 p1) -> relu -> conv b (3x3 s2 p1) -> conv c (1x1) -> conv d (3x3 p1) -> add(d, b):
       b stays alive across c and d, whose scratch must not touch it */
    aicf_graph* g = NULL;
    aicf_tensor_desc d;
    aicf_node_desc nd;
    aicf_attr at[2];
    int64_t xd[4] = {2, 16, 12, 12}, w1d[4] = {32, 16, 3, 3}, w2d[4] = {32, 32, 3, 3}, w3d[4] = {64, 32, 1, 1},
            w4d[4] = {32, 64, 3, 3};
    int64_t p1[4] = {1, 1, 1, 1}, s1[2] = {1, 1}, s2[2] = {2, 2};
    float *w1, *w2, *w3, *w4;
    const char* names[4] = {"w1", "w2", "w3", "w4"};
    int64_t* wds[4];
    float* ws_[4];
    size_t nws[4];
    const char *in[2], *out[1];
    const char* seq[5][3] = {{"x", "w1", "a"}, {"a", NULL, "r"}, {"r", "w2", "b"}, {"b", "w3", "c"}, {"c", "w4", "dd"}};
    int i, s, k, total_scratch = 0;
    aicf_plan* p = NULL;
    wds[0] = w1d;
    wds[1] = w2d;
    wds[2] = w3d;
    wds[3] = w4d;
    nws[0] = 32 * 16 * 9;
    nws[1] = 32 * 32 * 9;
    nws[2] = 64 * 32;
    nws[3] = 32 * 64 * 9;
    w1 = (float*)malloc(nws[0] * 4);
    w2 = (float*)malloc(nws[1] * 4);
    w3 = (float*)malloc(nws[2] * 4);
    w4 = (float*)malloc(nws[3] * 4);
    ws_[0] = w1;
    ws_[1] = w2;
    ws_[2] = w3;
    ws_[3] = w4;
    for (k = 0; k < 4; k++)
        for (i = 0; i < (int)nws[k]; i++) ws_[k][i] = rndf(-0.2f, 0.2f);
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 17);
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = 4;
    d.dims = xd;
    aicf_graph_add_input(g, &d);
    for (k = 0; k < 4; k++) {
        d.name = names[k];
        d.dims = wds[k];
        d.data = ws_[k];
        d.data_bytes = nws[k] * 4;
        aicf_graph_add_constant(g, &d);
    }
    for (s = 0; s < 5; s++) {
        memset(&nd, 0, sizeof nd);
        memset(at, 0, sizeof at);
        in[0] = seq[s][0];
        in[1] = seq[s][1];
        out[0] = seq[s][2];
        nd.name = seq[s][2];
        nd.inputs = in;
        nd.outputs = out;
        nd.num_outputs = 1;
        if (!seq[s][1]) {
            nd.op_type = "Relu";
            nd.num_inputs = 1;
        } else {
            nd.op_type = "Conv";
            nd.num_inputs = 2;
            at[0].name = "pads";
            at[0].type = AICF_ATTR_INTS;
            at[0].ints = p1;
            at[0].count = 4;
            at[1].name = "strides";
            at[1].type = AICF_ATTR_INTS;
            at[1].ints = s == 2 ? s2 : s1;
            at[1].count = 2;
            nd.attrs = at;
            nd.num_attrs = s == 3 ? 0 : 2; /* the 1x1 without pads */
        }
        CHECK(aicf_graph_add_node(g, &nd) == AICF_SUCCESS, "chain node %s: %s", seq[s][2], aicf_last_error(ctx));
    }
    {
        const char* ain[2] = {"dd", "b"};
        const char* aout[1] = {"y"};
        memset(&nd, 0, sizeof nd);
        nd.name = "add";
        nd.op_type = "Add";
        nd.inputs = ain;
        nd.num_inputs = 2;
        nd.outputs = aout;
        nd.num_outputs = 1;
        CHECK(aicf_graph_add_node(g, &nd) == AICF_SUCCESS, "chain add: %s", aicf_last_error(ctx));
    }
    aicf_graph_add_output(g, "y");
    for (k = 0; k < 3; k++) {
        aicf_precision prec = k == 2 ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        aicf_conv_algo algo = k == 1 ? AICF_CONV_AUTO : AICF_CONV_IM2COL_GEMM;
        aicf_plan_desc pd;
        aicf_plan_stats ps;
        char tag[64];
        size_t biggest = 0;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = prec;
        pd.policy.conv_algo = algo;
        pd.policy.no_fusion = 1;
        snprintf(tag, sizeof tag, "conv chain [%s %s]", algo_name(algo), prec_name(prec));
        FLT.n_results = 1;
        p = NULL;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: plan: %s", tag, aicf_last_error(ctx));
        if (!p) continue;
        total_scratch = 0;
        for (s = 0; s < p->n_steps; s++)
            if (p->steps[s].scratch_bytes) {
                total_scratch++;
                if (p->steps[s].scratch_bytes > biggest) biggest = p->steps[s].scratch_bytes;
            }
        /* a, b, d need im2col (3x3); c is pointwise */
        CHECK(total_scratch == 3, "%s: %d steps with scratch, expected 3", tag, total_scratch);
        CHECK(check_scratch(p, tag) == 0, "%s: scratch placement (see above)", tag);
        for (s = 0; s < p->n_steps && k == 0; s++) { /* the check itself: a scratch moved onto the step's input */
            aicf__step* st = &p->steps[s];
            size_t keep = st->scratch_offset;
            if (!st->scratch_bytes) continue;
            st->scratch_offset = p->loc[root_of(p, st->in[0])].offset;
            printf("     (expected:)\n");
            CHECK(check_scratch(p, "planted overlap") > 0, "%s: an overlapping scratch goes unnoticed", tag);
            st->scratch_offset = keep;
            break;
        }
        aicf_plan_stats_get(p, &ps);
        CHECK(ps.arena_lower_bound >= biggest && ps.arena_bytes >= ps.arena_lower_bound,
              "%s: arena %zu, lower bound %zu, biggest scratch %zu", tag, ps.arena_bytes, ps.arena_lower_bound, biggest);
        {
            size_t need = 0;
            char* text;
            aicf_plan_format(p, NULL, 0, &need);
            text = (char*)malloc(need);
            aicf_plan_format(p, text, need, NULL);
            CHECK(strstr(text, "im2col+cuBLASLt") != NULL && strstr(text, "1x1 conv as GEMM") != NULL, "%s: plan text:\n%s", tag, text);
            printf("ok   %s: 3 im2col steps, arena %zu bytes (lower bound %zu, largest scratch %zu)\n", tag, ps.arena_bytes,
                   ps.arena_lower_bound, biggest);
            free(text);
        }
        aicf_plan_destroy(p);
    }
    /* the CPU backend: no scratch anywhere */
    p = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_IM2COL_GEMM);
    CHECK(p != NULL, "chain CPU plan: %s", aicf_last_error(ctx));
    if (p) {
        for (s = 0, total_scratch = 0; s < p->n_steps; s++) total_scratch += p->steps[s].scratch_bytes != 0;
        CHECK(total_scratch == 0, "CPU plan: %d steps with scratch", total_scratch);
        aicf_plan_destroy(p);
    }
    aicf_graph_destroy(g);
    free(w1);
    free(w2);
    free(w3);
    free(w4);
}

/* cuBLASLt has no algorithm for a conv AUTO gave the batched lowering (float16, 4 images,
   K = 576): the tensor-core conv takes it (its scratch, if it splits K, fits what was reserved for
   the column buffer and product), and the reason says why. */
static void test_no_algorithm_batched(aicf_context* ctx) {
    ccase c = mk("no cuBLASLt algorithm, batched", 4, 4, 64, 14, 14, 96, 3, 3, 1, 1, 1, 1);
    cgraph cg;
    aicf_plan* p;
    int si;
    describe(&c);
    if (!build(ctx, &c, &cg)) {
        CHECK(0, "build: %s", aicf_last_error(ctx));
        cgraph_free(&cg);
        return;
    }
    FLT.n_results = 0;
    p = plan_of(cg.g, AICF_BACKEND_CUDA, AICF_PRECISION_FP16, AICF_CONV_AUTO);
    FLT.n_results = 1;
    CHECK(p != NULL, "%s: plan: %s", c.name, aicf_last_error(ctx));
    if (p && (si = conv_step(p)) >= 0) {
        const aicf__step* st = &p->steps[si];
        size_t col = ((size_t)(4 * 576 * 196) * 2 + 255) & ~(size_t)255;
        CHECK(!strncmp(st->kernel, "aicf_conv2d_tc", 14), "%s: kernel %s, expected the tensor-core conv", c.name, st->kernel);
        CHECK(strstr(st->reason, "AUTO: no cuBLASLt algorithm for the batched GEMM") != NULL, "%s: reason \"%s\"", c.name, st->reason);
        CHECK(st->scratch_bytes == col + (size_t)(96 * 4 * 196) * 4, "%s: scratch %zu (reserved for the batched lowering)", c.name,
              st->scratch_bytes);
        CHECK(check_scratch(p, c.name) == 0, "%s: scratch placement", c.name);
        printf("ok   %s: %s -- %s\n", c.name, st->kernel, st->reason);
    }
    aicf_plan_destroy(p);
    cgraph_free(&cg);
}

/* A float32 product (aicf__matmul_desc.out_f32) is for float16 operands without a bias or ReLU
   epilogue: any other descriptor is refused with AICF_ERROR_UNSUPPORTED and a message naming
   the rule, before cuBLASLt is asked. */
static void test_out_f32_refused(aicf_context* ctx) {
    ccase c = mk("out_f32 descriptors", 4, 2, 8, 6, 6, 16, 3, 3, 1, 1, 1, 0);
    cgraph cg;
    aicf_plan* p;
    int k;
    describe(&c);
    if (!build(ctx, &c, &cg)) {
        CHECK(0, "build: %s", aicf_last_error(ctx));
        cgraph_free(&cg);
        return;
    }
    p = plan_of(cg.g, AICF_BACKEND_CUDA, AICF_PRECISION_FP16, AICF_CONV_AUTO);
    CHECK(p != NULL, "%s: plan: %s", c.name, aicf_last_error(ctx));
    for (k = 0; p && k < 5; k++) { /* 0 float32 operands, 1 a bias, 2 ReLU, 3 GELU, 4 an activation code out of range */
        aicf__matmul_desc md;
        void* algo = NULL;
        char reason[192];
        int q = FLT.queries;
        aicf_result r;
        memset(&md, 0, sizeof md);
        md.M = md.N = md.K = md.lda = md.ldb = md.ldc = 16;
        md.batch = 1;
        md.alpha = 1.0f;
        md.out_f32 = 1;
        md.dtype = k == 0 ? AICF_DTYPE_FLOAT32 : AICF_DTYPE_FLOAT16;
        md.bias = k == 1;
        md.act = k == 2 ? AICF__MM_ACT_RELU : k == 3 ? AICF__MM_ACT_GELU_TANH : k == 4 ? 7 : 0;
        r = aicf__cuda_matmul_plan(p, 0, &md, 0, &algo, reason, sizeof reason);
        if (k == 4)
            CHECK(r == AICF_ERROR_INVALID_ARGUMENT && strstr(aicf_last_error(ctx), "activation code 7 (0 none, 1 ReLU, 2 GELU tanh form)"),
                  "descriptor with activation code 7: result %d, message \"%s\"", (int)r, aicf_last_error(ctx));
        else
            CHECK(r == AICF_ERROR_UNSUPPORTED &&
                      strstr(aicf_last_error(ctx), "a float32 product needs float16 operands and no bias or activation epilogue"),
                  "out_f32 descriptor %d: result %d, message \"%s\"", k, (int)r, aicf_last_error(ctx));
        CHECK(algo == NULL && FLT.queries == q, "out_f32 descriptor %d: no algorithm, cuBLASLt not asked", k);
    }
    aicf_plan_destroy(p);
    cgraph_free(&cg);
}

/* cuBLASLt has no algorithm: the generated kernel runs and the scratch stays reserved, unused. */
static void test_no_algorithm(aicf_context* ctx) {
    ccase c = mk("no cuBLASLt algorithm", 4, 1, 16, 8, 8, 32, 3, 3, 1, 1, 1, 1);
    cgraph cg;
    aicf_plan* p;
    int si;
    describe(&c);
    if (!build(ctx, &c, &cg)) {
        CHECK(0, "build: %s", aicf_last_error(ctx));
        cgraph_free(&cg);
        return;
    }
    FLT.n_results = 0;
    p = plan_of(cg.g, AICF_BACKEND_CUDA, AICF_PRECISION_FP32, AICF_CONV_IM2COL_GEMM);
    FLT.n_results = 1;
    CHECK(p != NULL, "%s: plan: %s", c.name, aicf_last_error(ctx));
    if (p && (si = conv_step(p)) >= 0) {
        const aicf__step* st = &p->steps[si];
        CHECK(!strncmp(st->kernel, "aicf_conv2d_", 12), "%s: kernel %s", c.name, st->kernel);
        CHECK(strstr(st->reason, "conv_algo IM2COL_GEMM; scratch unused, cuBLASLt: ") != NULL,
              "%s: reason \"%s\"", c.name, st->reason);
        CHECK(st->scratch_bytes == (size_t)(16 * 9 * 64 * 4), "%s: scratch %zu (reserved before cuBLASLt was asked)", c.name,
              st->scratch_bytes);
        CHECK(aicf_last_error(ctx)[0] == 0 || strstr(aicf_last_error(ctx), "no algorithm") == NULL,
              "%s: the fallback left an error message: %s", c.name, aicf_last_error(ctx));
        printf("ok   %s: %s -- %s\n", c.name, st->kernel, st->reason);
    }
    aicf_plan_destroy(p);
    cgraph_free(&cg);
}

/* Exec creation through the fake driver: on a "compute capability 10.0" device the kernel
   table's compute_90 PTX is chosen, whose text the fake searches for kernel names, so the whole
   graph builds (kernel nodes are only counted by the fake). The cuBLASLt call captured for the
   Conv must receive the arena scratch as its column operand: aicf__cuda_emit_step resolves
   AICF__CUO_SCRATCH to arena + scratch_offset. */
/* The fake driver set up for building execs: a device of compute capability 10.0 and 256-byte
   aligned allocations (the cuBLASLt path checks the alignment). 0, after a SKIP line naming
   `what`, when the library does not export the controls. */
typedef struct fake_exec_dev {
    void* h;
    void (*set_device)(int, int, int);
    void (*set_align)(size_t);
    /* fake_hopper_open: tensor maps on/off, the kernel arguments kept, a failing call, a reset */
    void (*set_tmap)(int);
    void (*keep_args)(const char*, size_t);
    const unsigned char* (*kept_args)(int*);
    void (*fail)(const char*, int, int);
    void (*reset)(void);
} fake_exec_dev;

static int fake_exec_open(const char* path, const char* what, fake_exec_dev* d) {
    void* sym;
    void* sym2;
    memset(d, 0, sizeof *d);
    d->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    sym = d->h ? dlsym(d->h, "fakecuda_set_device") : NULL;
    sym2 = d->h ? dlsym(d->h, "fakecuda_set_alloc_align") : NULL;
    if (!sym || !sym2) {
        printf("SKIP %s: %s does not export fakecuda_set_device and fakecuda_set_alloc_align\n", what, path);
        g_skip++;
        if (d->h) dlclose(d->h);
        return 0;
    }
    memcpy(&d->set_device, &sym, sizeof sym);
    memcpy(&d->set_align, &sym2, sizeof sym2);
    d->set_device(1, 10, 0);
    d->set_align(256);
    return 1;
}

static void fake_exec_close(fake_exec_dev* d) {
    d->set_device(1, 9, 0);
    d->set_align(0);
    dlclose(d->h);
}

/* fake_exec_open, and the controls the Hopper GEMM tests use (fakecuda_set_tmap, _keep_args,
   _kept_args, _fail, _reset); 0 (a SKIP counted) when the driver lacks them */
static int fake_hopper_open(const char* path, const char* what, fake_exec_dev* d) {
    void* sym;
    if (!fake_exec_open(path, what, d)) return 0;
    sym = dlsym(d->h, "fakecuda_set_tmap"), memcpy(&d->set_tmap, &sym, sizeof sym);
    sym = dlsym(d->h, "fakecuda_keep_args"), memcpy(&d->keep_args, &sym, sizeof sym);
    sym = dlsym(d->h, "fakecuda_kept_args"), memcpy(&d->kept_args, &sym, sizeof sym);
    sym = dlsym(d->h, "fakecuda_fail"), memcpy(&d->fail, &sym, sizeof sym);
    sym = dlsym(d->h, "fakecuda_reset"), memcpy(&d->reset, &sym, sizeof sym);
    if (!d->set_tmap || !d->keep_args || !d->kept_args || !d->fail || !d->reset) {
        printf("SKIP %s: the fake driver lacks fakecuda_set_tmap / _keep_args / _kept_args / _fail / _reset\n", what);
        g_skip++;
        fake_exec_close(d);
        return 0;
    }
    return 1;
}

/* ---- autotuning (policy.autotune) and pins, through the fake driver's device clock ----
   Kernel times are set per kernel name (fakecuda_set_kernel_us); the fake cuBLASLt launches
   "lt_algo_K" for heuristic result K. The tuner must time every candidate that applies with
   those times (exact: the fake clock), take the fastest, record it in the plan (choice, times,
   the cuBLASLt result index), and a saved plan must load without timing again. */
typedef void (*fk_kus_fn)(const char*, double);
typedef long (*fk_calls_fn)(const char*);

/* A context on the fake driver at `path` with the in-process fake cuBLASLt; NULL on failure. */
static aicf_context* fake_lt_ctx(const char* path) {
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
    cd.flags = AICF_CONTEXT_NO_THREADS; /* the fake counts the queries and keeps the last one: no helper's among them */
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    if (!flt_install(ctx)) {
        aicf_context_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* the fake driver's device-clock controls (tests/fake_libcuda.c) */
typedef struct fake_timing {
    fk_kus_fn kernel_us;
    fk_calls_fn calls;
    void (*node_us)(double);
    void (*fail)(const char* fn, int code, int nth); /* fakecuda_fail, fakecuda_reset (may be NULL) */
    void (*reset)(void);
} fake_timing;

/* Looks the timing exports up (and the capture hook the fake cuBLASLt calls); 0 with a SKIP if
   the driver lacks them. */
static int fake_timing_open(fake_exec_dev* fd, const char* what, fake_timing* t) {
    void* sym;
    sym = dlsym(fd->h, "fakecuda_set_kernel_us");
    memcpy(&t->kernel_us, &sym, sizeof sym);
    sym = dlsym(fd->h, "fakecuda_capture_kernel");
    memcpy(&g_flt_capture, &sym, sizeof sym);
    sym = dlsym(fd->h, "fakecuda_calls");
    memcpy(&t->calls, &sym, sizeof sym);
    sym = dlsym(fd->h, "fakecuda_set_node_us");
    memcpy(&t->node_us, &sym, sizeof sym);
    sym = dlsym(fd->h, "fakecuda_fail");
    memcpy(&t->fail, &sym, sizeof sym);
    sym = dlsym(fd->h, "fakecuda_reset");
    memcpy(&t->reset, &sym, sizeof sym);
    if (!t->kernel_us || !g_flt_capture || !t->calls || !t->node_us) {
        printf("SKIP %s: the fake driver lacks fakecuda_set_kernel_us / _capture_kernel / _calls / _set_node_us\n", what);
        g_skip++;
        g_flt_capture = NULL;
        return 0;
    }
    t->kernel_us(NULL, 0);
    t->node_us(0.5);
    return 1;
}

static void fake_timing_close(fake_timing* t) {
    t->kernel_us(NULL, 0);
    t->node_us(0.0);
    g_flt_capture = NULL;
}

static int tuned_ns(const aicf__step* st, int choice, int lt, int64_t* ns) {
    int k;
    for (k = 0; k < st->n_tuned; k++)
        if (st->tuned[k].choice == choice && st->tuned[k].lt == lt) {
            *ns = st->tuned[k].ns;
            return 1;
        }
    return 0;
}

static aicf_plan* tune_plan(aicf_graph* g, aicf_precision pr, int autotune, const char* pin_node, aicf_kernel_choice pin, int pin_lt) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = pr;
    pd.policy.autotune = autotune;
    if (pin_node) {
        snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "%s", pin_node);
        pd.policy.pins[0].kernel = pin;
        pd.policy.pins[0].variant = pin_lt;
    }
    if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) return NULL;
    return p;
}

static char* plan_text(const aicf_plan* p) {
    size_t need = 0;
    char* t;
    if (aicf_plan_serialize(p, NULL, 0, &need) != AICF_SUCCESS || !(t = (char*)malloc(need))) return NULL;
    if (aicf_plan_serialize(p, t, need, NULL) != AICF_SUCCESS) {
        free(t);
        return NULL;
    }
    return t;
}

/* the step lines of a plan text (from the "plan " line on) */
static const char* steps_of(const char* t) {
    const char* s = t ? strstr(t, "\nplan ") : NULL;
    return s ? s : "";
}

static void test_autotune(const char* path) {
    fake_exec_dev fd;
    fake_timing ft;
    fk_kus_fn kus;
    fk_calls_fn calls;
    int pr;
    if (!fake_exec_open(path, "autotune through the fake driver", &fd)) return;
    if (!fake_timing_open(&fd, "autotune", &ft)) {
        fake_exec_close(&fd);
        return;
    }
    kus = ft.kernel_us;
    calls = ft.calls;
    for (pr = 0; pr < 2; pr++) {
        aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        const char* pn = prec_name(prec);
        /* C = 9: K = 81 (3 K tiles of 32), not a multiple of 8 channels: the gathering
           tensor-core kernel, whose K splits this test pins (the patch kernel splits by chunks);
           34 x 34 outputs: 19 tiles of 64 columns, more than the rule's 16 for one-tile splits,
           so the rule does not split K (over fewer tiles it would, one K tile a split) */
        ccase c = mk("tune", 4, 1, 9, 34, 34, 32, 3, 3, 1, 1, 1, 1);
        aicf_context* ctx = fake_lt_ctx(path);
        aicf_plan *p = NULL, *q = NULL, *pin = NULL, *pin0 = NULL;
        aicf_exec* e = NULL;
        cgraph cg;
        char *t = NULL, *t2 = NULL, *tp = NULL, *tp0 = NULL;
        int si, k, n_expect = pr ? 6 : 4; /* direct, [tc (the rule: no split), tc/2 (2 splits)], im2col_gemm/0..2 */
        int64_t d_ns = 0, l0 = 0, l1 = 0, l2 = 0, tc = 0, tc2 = 0;
        c.relu = 1;
        describe(&c);
        memset(&cg, 0, sizeof cg);
        if (!ctx || !build(ctx, &c, &cg)) {
            CHECK(0, "autotune [%s]: setup: %s", pn, ctx ? aicf_last_error(ctx) : "context");
            cgraph_free(&cg);
            aicf_context_destroy(ctx);
            continue;
        }
        FLT.n_results = 3;
        kus(NULL, 0);
        kus("aicf_conv2d_igemm", 3.0);
        kus("aicf_conv2d_tc_reduce", 1.0); /* before the prefix it shares */
        kus("aicf_conv2d_tc", 5.0);
        kus("aicf_im2col", 1.0);
        kus("lt_algo_0", 4.0);
        kus("lt_algo_1", 0.25);
        kus("lt_algo_2", 6.0);
        /* cuBLASLt's second heuristic result is the fastest */
        p = tune_plan(cg.g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
        CHECK(p != NULL, "autotune [%s]: plan: %s", pn, aicf_last_error(ctx));
        si = p ? conv_step(p) : -1;
        if (si >= 0) {
            const aicf__step* st = &p->steps[si];
            aicf__algo_rec a;
            int ok_all = tuned_ns(st, AICF_CHOICE_DIRECT, 0, &d_ns) && tuned_ns(st, AICF_CHOICE_IM2COL_GEMM, 0, &l0) &&
                         tuned_ns(st, AICF_CHOICE_IM2COL_GEMM, 1, &l1) && tuned_ns(st, AICF_CHOICE_IM2COL_GEMM, 2, &l2) &&
                         (!pr || (tuned_ns(st, AICF_CHOICE_IMPLICIT_GEMM_TC, 0, &tc) && tuned_ns(st, AICF_CHOICE_IMPLICIT_GEMM_TC, 2, &tc2)));
            if (g_verbose)
                for (k = 0; k < st->n_tuned; k++)
                    printf("     tuned %s/%d %lld ns\n", aicf__choice_name(st->tuned[k].choice), st->tuned[k].lt, (long long)st->tuned[k].ns);
            CHECK(st->choice_src == AICF__CHOICE_FROM_TUNE && st->n_tuned == n_expect && ok_all,
                  "autotune [%s]: %d candidates timed (expected %d: direct,%s im2col_gemm/0..2), choice from %d", pn, st->n_tuned, n_expect,
                  pr ? " implicit_gemm_tc, implicit_gemm_tc/2 (1 split = the rule's: not timed twice)," : "", st->choice_src);
            CHECK(!pr || tc2 - tc == 1000, "autotune [%s]: the 2-way K split adds its reduction launch: %lld ns vs %lld ns", pn,
                  (long long)tc2, (long long)tc);
            CHECK(st->choice == AICF_CHOICE_IM2COL_GEMM && st->choice_lt == 1,
                  "autotune [%s]: took %s/%d, expected im2col_gemm/1 (times direct %lld, lt0 %lld, lt1 %lld, lt2 %lld, tc %lld ns)", pn,
                  aicf__choice_name(st->choice), st->choice_lt, (long long)d_ns, (long long)l0, (long long)l1, (long long)l2, (long long)tc);
            /* the fake clock is exact: the three cuBLASLt candidates differ by their kernels' times */
            CHECK(l0 - l1 == 3750 && l2 - l1 == 5750 && d_ns >= 3000 && (!pr || tc >= 5000),
                  "autotune [%s]: measured times lt0-lt1 %lld ns (3750), lt2-lt1 %lld ns (5750), direct %lld ns (>= 3000), tc %lld ns", pn,
                  (long long)(l0 - l1), (long long)(l2 - l1), (long long)d_ns, (long long)tc);
            aicf__cuda_step_algo(p, si, 0, &a);
            CHECK(a.index == 1 && a.n_results == 3 && a.blob[0] == 1001u, "autotune [%s]: the step's cuBLASLt algorithm is result %d of %d (blob %llu)",
                  pn, a.index, a.n_results, (unsigned long long)a.blob[0]);
            CHECK(strncmp(st->reason, "autotuned: im2col_gemm/1 fastest of", 35) == 0, "autotune [%s]: reason '%s'", pn, st->reason);
            { /* the public view of the decision */
                aicf_step_info inf;
                int ok = aicf_plan_step_info(p, si, &inf) == AICF_SUCCESS && inf.choice == AICF_CHOICE_IM2COL_GEMM && inf.variant == 1 &&
                         !inf.pinned && inf.num_tuned == st->n_tuned;
                for (k = 0; ok && k < inf.num_tuned; k++)
                    ok = inf.tuned_choice[k] == (aicf_kernel_choice)st->tuned[k].choice && inf.tuned_variant[k] == st->tuned[k].lt &&
                         fabs((double)inf.tuned_us[k] - (double)st->tuned[k].ns / 1000.0) < 1e-3;
                CHECK(ok, "autotune [%s]: aicf_plan_step_info: choice %d variant %d pinned %d, %d tuned", pn, (int)inf.choice, inf.variant,
                      inf.pinned, inf.num_tuned);
            }
        }
        /* explain, save -> load without timing, exec */
        if (p) {
            char ex[16384];
            long launches;
            t = plan_text(p);
            CHECK(aicf_plan_explain(p, ex, sizeof ex, NULL) == AICF_SUCCESS && strstr(ex, "autotune on") &&
                      strstr(ex, "choice: im2col_gemm/1 (autotuned: fastest measured); candidates, device time per run in us: direct="),
                  "autotune [%s]: explain lists the candidates:\n%s", pn, ex);
            CHECK(t && strstr(t, "\npolicy autotune = 1\n") && strstr(t, "\n  choice kernel=im2col_gemm lt=1 from=autotune\n  tuned direct=") &&
                      strstr(t, " index=1\n"),
                  "autotune [%s]: plan file lines:\n%s", pn, t ? t : "(none)");
            launches = calls("cuGraphLaunch");
            if (t && aicf_plan_load_memory(cg.g, t, strlen(t), &q) == AICF_SUCCESS) {
                t2 = plan_text(q);
                CHECK(t2 && strcmp(t, t2) == 0, "autotune [%s]: the loaded plan serialises as the file", pn);
                CHECK(calls("cuGraphLaunch") == launches, "autotune [%s]: loading timed again (%ld graph launches)", pn,
                      calls("cuGraphLaunch") - launches);
            } else {
                CHECK(0, "autotune [%s]: load: %s", pn, aicf_last_error(ctx));
            }
            if (t) { /* an edited record: the winner no longer the fastest listed, or another choice */
                char* bad = strdup(t);
                char* at = strstr(bad, " im2col_gemm/1=2.");
                if (at) at[15] = '9';
                CHECK(at && aicf_plan_load_memory(cg.g, bad, strlen(bad), &pin) == AICF_ERROR_PLAN_MISMATCH &&
                          strstr(aicf_last_error(ctx), "autotune record of step") && strstr(aicf_last_error(ctx), "not the fastest"),
                      "autotune [%s]: a tuned line whose fastest is not the choice is refused: %s", pn, aicf_last_error(ctx));
                aicf_plan_destroy(pin);
                pin = NULL;
                free(bad);
                bad = strdup(t);
                at = strstr(bad, "choice kernel=im2col_gemm lt=1");
                if (at) at[29] = '2';
                CHECK(at && aicf_plan_load_memory(cg.g, bad, strlen(bad), &pin) == AICF_ERROR_PLAN_MISMATCH,
                      "autotune [%s]: an edited choice line is refused: %s", pn, aicf_last_error(ctx));
                aicf_plan_destroy(pin);
                pin = NULL;
                free(bad);
            }
            if (t) { /* malformed choice / tuned lines: INVALID_MODEL naming the line; a record for a pinned step */
                static const struct {
                    const char *from, *to, *msg;
                    aicf_result code;
                } ED[] = {
                    {"from=autotune", "from=magic", "a choice line needs from=pin or from=autotune", AICF_ERROR_INVALID_MODEL},
                    {"choice kernel=im2col_gemm", "choice kernel=winograd", "a choice line needs kernel=", AICF_ERROR_INVALID_MODEL},
                    {"im2col_gemm lt=1", "im2col_gemm lt=9", "a choice line needs lt=K", AICF_ERROR_INVALID_MODEL},
                    {"  tuned direct=3.500", "  tuned direct=3.50", "three decimals", AICF_ERROR_INVALID_MODEL},
                    {"  tuned direct=3.500", "  tuned bogus=3.500", "three decimals", AICF_ERROR_INVALID_MODEL},
                    {"  tuned direct=", "  choice kernel=direct lt=0 from=autotune\n  tuned direct=", "a second choice line",
                     AICF_ERROR_INVALID_MODEL},
                    {"policy autotune = 1\n", "policy autotune = 1\npolicy pin = direct conv\n", "and that one is pinned",
                     AICF_ERROR_PLAN_MISMATCH},
                    {"choice kernel=im2col_gemm lt=1", "choice kernel=cublaslt lt=1", "not a choice of that step's op",
                     AICF_ERROR_PLAN_MISMATCH},
                };
                size_t m;
                for (m = 0; m < sizeof ED / sizeof ED[0]; m++) {
                    const char* at = strstr(t, ED[m].from);
                    char* bad;
                    aicf_result lr;
                    if (!at) {
                        CHECK(0, "autotune [%s]: '%s' not in the plan text", pn, ED[m].from);
                        continue;
                    }
                    bad = (char*)malloc(strlen(t) + strlen(ED[m].to) + 1);
                    memcpy(bad, t, (size_t)(at - t));
                    strcpy(bad + (at - t), ED[m].to);
                    strcat(bad, at + strlen(ED[m].from));
                    lr = aicf_plan_load_memory(cg.g, bad, strlen(bad), &pin);
                    CHECK(lr == ED[m].code && strstr(aicf_last_error(ctx), ED[m].msg) && !pin,
                          "autotune [%s]: edited '%s' -> '%s': expected %s \"%s\", got %s: %s", pn, ED[m].from, ED[m].to,
                          aicf_result_str(ED[m].code), ED[m].msg, aicf_result_str(lr), aicf_last_error(ctx));
                    aicf_plan_destroy(pin);
                    pin = NULL;
                    free(bad);
                }
            }
            if (ft.fail && ft.reset) { /* the device failing while tuning: the plan fails, naming it */
                aicf_plan* f = NULL;
                ft.reset();
                ft.fail("cuMemAlloc", 2, 1);
                f = tune_plan(cg.g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
                CHECK(!f && strstr(aicf_last_error(ctx), "autotuning") && strstr(aicf_last_error(ctx), "autotuning arena") &&
                          strstr(aicf_last_error(ctx), "CUDA_ERROR_OUT_OF_MEMORY"),
                      "autotune [%s]: cuMemAlloc failing: %s", pn, aicf_last_error(ctx));
                aicf_plan_destroy(f);
                ft.reset();
                ft.fail("cuGraphLaunch", 999, 2);
                f = tune_plan(cg.g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
                CHECK(!f && strstr(aicf_last_error(ctx), "autotuning (policy.autotune)") && strstr(aicf_last_error(ctx), "cuGraphLaunch") &&
                          strstr(aicf_last_error(ctx), "autotuning step"),
                      "autotune [%s]: cuGraphLaunch failing: %s", pn, aicf_last_error(ctx));
                aicf_plan_destroy(f);
                ft.reset();
            }
            FLT.matmuls = 0;
            CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && FLT.matmuls == 1, "autotune [%s]: exec of the tuned plan: %s (%d matmuls)",
                  pn, aicf_last_error(ctx), FLT.matmuls);
            aicf_exec_destroy(e);
            e = NULL;
        }
        aicf_plan_destroy(p);
        aicf_plan_destroy(q);
        p = q = NULL;
        /* the generated kernel made fastest */
        kus("aicf_conv2d_igemm", 0.1);
        p = tune_plan(cg.g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
        si = p ? conv_step(p) : -1;
        CHECK(si >= 0 && p->steps[si].choice == AICF_CHOICE_DIRECT && p->steps[si].n_tuned == n_expect &&
                  strncmp(p->steps[si].kernel, "aicf_conv2d_igemm", 17) == 0,
              "autotune [%s]: direct made fastest: took %s (%s)", pn, si >= 0 ? aicf__choice_name(p->steps[si].choice) : "?",
              p ? p->steps[si].kernel : aicf_last_error(ctx));
        aicf_plan_destroy(p);
        p = NULL;
        /* a pin wins over autotuning: that step is not timed, and is as without autotuning */
        pin = tune_plan(cg.g, prec, 1, "conv", AICF_CHOICE_IM2COL_GEMM, 2);
        pin0 = tune_plan(cg.g, prec, 0, "conv", AICF_CHOICE_IM2COL_GEMM, 2);
        si = pin ? conv_step(pin) : -1;
        CHECK(si >= 0 && pin0 && pin->steps[si].choice_src == AICF__CHOICE_FROM_PIN && pin->steps[si].n_tuned == 0 &&
                  pin->steps[si].choice_lt == 2,
              "autotune [%s]: pinned im2col_gemm/2 under autotune: %s", pn, aicf_last_error(ctx));
        tp = pin ? plan_text(pin) : NULL;
        tp0 = pin0 ? plan_text(pin0) : NULL;
        CHECK(tp && tp0 && strcmp(steps_of(tp), steps_of(tp0)) == 0 && strstr(tp, "\n  choice kernel=im2col_gemm lt=2 from=pin\n"),
              "autotune [%s]: the pinned plan's steps are those without autotuning", pn);
        if (si >= 0) {
            aicf__algo_rec a;
            aicf__cuda_step_algo(pin, si, 0, &a);
            CHECK(a.index == 2 && a.blob[0] == 1002u, "autotune [%s]: pinned cuBLASLt result 2, got %d", pn, a.index);
        }
        aicf_plan_destroy(pin);
        aicf_plan_destroy(pin0);
        pin = pin0 = NULL;
        if (pr) { /* the tensor-core conv's K split pinned: 2 parts (conv + reduction), 4 parts exceed K's 3 tiles */
            pin = tune_plan(cg.g, prec, 0, "conv", AICF_CHOICE_IMPLICIT_GEMM_TC, 2);
            si = pin ? conv_step(pin) : -1;
            if (si >= 0) {
                aicf__cuda_op_view v0, v1;
                aicf__k_conv2d_tc a;
                memset(&a, 0, sizeof a);
                aicf__cuda_step_op(pin, si, 0, &v0);
                aicf__cuda_step_op(pin, si, 1, &v1);
                if (v0.args_size == sizeof a) memcpy(&a, v0.args, sizeof a);
                CHECK(aicf__cuda_step_ops(pin, si, NULL) == 2 && a.splits == 2 && strncmp(v1.kernel_name, "aicf_conv2d_tc_reduce_f16", 25) == 0 &&
                          pin->steps[si].scratch_bytes > 0,
                      "autotune [fp16]: pinned implicit_gemm_tc/2: %d launches, splits %lld, second '%s'", aicf__cuda_step_ops(pin, si, NULL),
                      (long long)a.splits, v1.kernel_name);
            } else {
                CHECK(0, "autotune [fp16]: pinned implicit_gemm_tc/2: %s", aicf_last_error(ctx));
            }
            aicf_plan_destroy(pin);
            pin = tune_plan(cg.g, prec, 0, "conv", AICF_CHOICE_IMPLICIT_GEMM_TC, 3);
            CHECK(!pin && strstr(aicf_last_error(ctx), "implicit_gemm_tc/3 does not apply") &&
                      strstr(aicf_last_error(ctx), "K split: more parts than K tiles"),
                  "autotune [fp16]: pinned implicit_gemm_tc/3 (4 splits of 3 K tiles): %s", aicf_last_error(ctx));
            aicf_plan_destroy(pin);
            pin = NULL;
        }
        /* a pin that cannot take the step */
        FLT.n_results = 2;
        pin = tune_plan(cg.g, prec, 0, "conv", AICF_CHOICE_IM2COL_GEMM, 2);
        CHECK(!pin && strstr(aicf_last_error(ctx), "the pinned choice im2col_gemm/2 does not apply") &&
                  strstr(aicf_last_error(ctx), "heuristic result #2 asked for, cuBLASLt returned 2"),
              "autotune [%s]: pinned result #2 of 2: %s", pn, aicf_last_error(ctx));
        aicf_plan_destroy(pin);
        pin = NULL;
        if (!pr) {
            pin = tune_plan(cg.g, prec, 0, "conv", AICF_CHOICE_IMPLICIT_GEMM_TC, 0);
            CHECK(!pin && strstr(aicf_last_error(ctx), "node") && strstr(aicf_last_error(ctx), "'conv'") &&
                      strstr(aicf_last_error(ctx), "implicit_gemm_tc does not apply"),
                  "autotune [fp32]: pinned implicit_gemm_tc at fp32: %s", aicf_last_error(ctx));
            aicf_plan_destroy(pin);
            pin = NULL;
        }
        free(t);
        free(t2);
        free(tp);
        free(tp0);
        cgraph_free(&cg);
        aicf_context_destroy(ctx);
    }
    fake_timing_close(&ft);
    fake_exec_close(&fd);
}

/* autotuning a Gemm: the generated GEMV against cuBLASLt's heuristic results */
/* The rules' own lowering as an autotuning candidate: at batch 1 a 3x3 conv of 16 channels on a
   56-wide image lowers under AUTO to the patch kernel (the rows kernel's 14 blocks would not fill
   the 132 SMs), while the implicit_gemm_tc choice takes the rows kernel wherever it fits; with the
   rows kernel slow on the fake clock, tuning must keep the rules' lowering, record it as
   `choice kernel=rule ... from=autotune` with every time measured, and load back without timing. */
static void test_autotune_rule(const char* path) {
    fake_exec_dev fd;
    fake_timing ft;
    ccase c = mk("tune rule", 4, 1, 16, 56, 56, 64, 3, 3, 1, 1, 1, 1);
    aicf_context* ctx;
    aicf_plan *p = NULL, *q = NULL;
    cgraph cg;
    char *t = NULL, *t2 = NULL;
    int si, k, have_rule = 0, have_tcr = 0;
    int64_t rule_ns = 0, tcr_ns = 0;
    if (!fake_exec_open(path, "autotune: the rules' lowering as a candidate", &fd)) return;
    if (!fake_timing_open(&fd, "autotune rule", &ft)) {
        fake_exec_close(&fd);
        return;
    }
    ctx = fake_lt_ctx(path);
    describe(&c);
    memset(&cg, 0, sizeof cg);
    if (!ctx || !build(ctx, &c, &cg)) {
        CHECK(0, "autotune rule: setup: %s", ctx ? aicf_last_error(ctx) : "context");
        goto out;
    }
    FLT.n_results = 2;
    ft.kernel_us(NULL, 0);
    ft.kernel_us("aicf_conv2d_tcr", 9.0); /* the rows kernel (implicit_gemm_tc here) */
    ft.kernel_us("aicf_conv2d_tcp", 2.0); /* the patch kernel (the rules' lowering) */
    ft.kernel_us("aicf_conv2d_igemm", 30.0);
    ft.kernel_us("aicf_im2col", 5.0);
    ft.kernel_us("lt_algo_", 5.0);
    p = tune_plan(cg.g, AICF_PRECISION_FP16, 1, NULL, AICF_CHOICE_RULE, 0);
    CHECK(p != NULL, "autotune rule: plan: %s", aicf_last_error(ctx));
    si = p ? conv_step(p) : -1;
    if (si >= 0) {
        const aicf__step* st = &p->steps[si];
        aicf_step_info inf;
        for (k = 0; k < st->n_tuned; k++) {
            if (st->tuned[k].choice == AICF_CHOICE_RULE) have_rule++, rule_ns = st->tuned[k].ns;
            if (st->tuned[k].choice == AICF_CHOICE_IMPLICIT_GEMM_TC && st->tuned[k].lt == 0) have_tcr++, tcr_ns = st->tuned[k].ns;
        }
        CHECK(have_rule == 1 && have_tcr == 1 && st->tuned[st->n_tuned - 1].choice == AICF_CHOICE_RULE && tcr_ns - rule_ns == 7000,
              "autotune rule: the rules' lowering timed once, last (%d), implicit_gemm_tc %d times: %lld against %lld ns", have_rule,
              have_tcr, (long long)rule_ns, (long long)tcr_ns);
        CHECK(st->choice == AICF_CHOICE_RULE && st->choice_src == AICF__CHOICE_FROM_TUNE && strcmp(st->kernel, "aicf_conv2d_tcp_f16_m64_k9c8") == 0 &&
                  strncmp(st->reason, "autotuned: rule fastest of", 26) == 0,
              "autotune rule: took %s (from %d), kernel %s, reason '%s'", aicf__choice_name(st->choice), st->choice_src, st->kernel, st->reason);
        CHECK(aicf_plan_step_info(p, si, &inf) == AICF_SUCCESS && inf.choice == AICF_CHOICE_RULE && !inf.pinned && inf.num_tuned == st->n_tuned &&
                  inf.tuned_choice[inf.num_tuned - 1] == AICF_CHOICE_RULE,
              "autotune rule: aicf_plan_step_info choice %d, %d tuned", (int)inf.choice, inf.num_tuned);
    }
    if (p) {
        char ex[16384];
        long launches = ft.calls("cuGraphLaunch");
        t = plan_text(p);
        CHECK(t && strstr(t, "\n  choice kernel=rule lt=0 from=autotune\n  tuned direct=") && strstr(t, " rule=2."),
              "autotune rule: plan file lines:\n%s", t ? t : "(none)");
        CHECK(aicf_plan_explain(p, ex, sizeof ex, NULL) == AICF_SUCCESS && strstr(ex, "choice: rule (autotuned: fastest measured); candidates"),
              "autotune rule: explain:\n%s", ex);
        if (t && aicf_plan_load_memory(cg.g, t, strlen(t), &q) == AICF_SUCCESS) {
            t2 = plan_text(q);
            CHECK(t2 && strcmp(t, t2) == 0 && ft.calls("cuGraphLaunch") == launches,
                  "autotune rule: the loaded plan serialises as the file, without timing (%ld graph launches)", ft.calls("cuGraphLaunch") - launches);
        } else
            CHECK(0, "autotune rule: load: %s", aicf_last_error(ctx));
        if (t) { /* the rules' lowering has no variant: a record edited to 'rule/2' (choice and tuned line agreeing) is refused */
            size_t tn = strlen(t);
            char* bad = (char*)malloc(tn + 3);
            char* at;
            const char* tu = strstr(t, " rule=");
            aicf_plan* r2 = NULL;
            if (bad && tu) {
                size_t k0 = (size_t)(tu - t) + 5;
                memcpy(bad, t, k0);
                memcpy(bad + k0, "/2", 2);
                memcpy(bad + k0 + 2, t + k0, tn - k0 + 1);
            }
            at = bad && tu ? strstr(bad, "choice kernel=rule lt=0") : NULL;
            if (at) at[22] = '2';
            CHECK(at && aicf_plan_load_memory(cg.g, bad, strlen(bad), &r2) == AICF_ERROR_PLAN_MISMATCH &&
                      strstr(aicf_last_error(ctx), "autotuned choice rule for step"),
                  "autotune rule: a rule choice with a variant: %s", aicf_last_error(ctx));
            aicf_plan_destroy(r2);
            free(bad);
        }
    }
out:
    free(t);
    free(t2);
    aicf_plan_destroy(q);
    aicf_plan_destroy(p);
    cgraph_free(&cg);
    aicf_context_destroy(ctx);
    ft.kernel_us(NULL, 0);
    fake_timing_close(&ft);
    fake_exec_close(&fd);
}

/* Programmatic launches as a plan decision (aicf__cuda_pdl): five Gemm (transB) steps at batch 1
   on the GEMV kernels: L1 [256 -> 512] Relu, L2 [512 -> 37] Relu, L3 [37 -> 64] (K = 37: element
   loads), L4 with B a graph input [16, 64], L5 [16 -> 8] Tanh. The weight-constant 16-byte GEMVs
   (L1, L2, L5) carry AICF__GEMV_B_CONST; every kernel launch right after another kernel launch of
   the plan is programmatic (L2-L5 and the activations' launches; L1 too where a launch precedes
   it, e.g. fp16's Cast of the B input), and explain says which prefetch their weights (the
   constant-B GEMVs): checked in the ops, aicf_plan_step_info, the plan file (`pdl=1`), explain, the exec
   (programmatic edges on the fake driver's cc 10.0), a plan file reloaded, a file with one `pdl=1`
   removed refused; policy no_pdl = 1 and a cc 8.6 device: none, and the policy text keeps no_pdl. */
static const int64_t PDL_NI[5] = {256, 512, 37, 64, 16}, PDL_NO[5] = {512, 37, 64, 16, 8};

/* The five-Gemm graph of test_gemv_pdl in ctx; NULL on failure. */
static aicf_graph* pdl_graph(aicf_context* ctx) {
    const int64_t *NI = PDL_NI, *NO = PDL_NO;
    aicf_graph* g = NULL;
    int l;
    if (aicf_graph_create(ctx, &g) != AICF_SUCCESS) return NULL;
    aicf_graph_set_opset(g, "", 17);
    {
        aicf_tensor_desc td;
        aicf_node_desc nd;
        aicf_attr at[1];
        int64_t xd[2] = {1, 256}, wd[2];
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        td.name = "x", td.rank = 2, td.dims = xd;
        aicf_graph_add_input(g, &td);
        memset(at, 0, sizeof at);
        at[0].name = "transB", at[0].type = AICF_ATTR_INT, at[0].i = 1;
        for (l = 0; l < 5; l++) {
            static char wn[5][8], hn[5][8], gn[5][8], an[5][8];
            const char *gin[2], *gout[1], *ain[1], *aout[1];
            float* w = (float*)malloc(sizeof(float) * (size_t)(NI[l] * NO[l]));
            int64_t i;
            snprintf(wn[l], sizeof wn[l], "W%d", l + 1);
            snprintf(gn[l], sizeof gn[l], "g%d", l + 1);
            snprintf(hn[l], sizeof hn[l], l == 4 ? "y" : "h%d", l + 1);
            snprintf(an[l], sizeof an[l], "a%d", l + 1);
            wd[0] = NO[l], wd[1] = NI[l];
            td.name = wn[l], td.rank = 2, td.dims = wd;
            if (l == 3) { /* B a graph input */
                td.data = NULL, td.data_bytes = 0;
                aicf_graph_add_input(g, &td);
            } else {
                for (i = 0; w && i < NI[l] * NO[l]; i++) w[i] = rndf(-0.1f, 0.1f);
                td.data = w, td.data_bytes = sizeof(float) * (size_t)(NI[l] * NO[l]);
                aicf_graph_add_constant(g, &td);
            }
            free(w);
            td.data = NULL, td.data_bytes = 0;
            gin[0] = l ? hn[l - 1] : "x", gin[1] = wn[l];
            gout[0] = (l == 2 || l == 3) ? hn[l] : gn[l];
            memset(&nd, 0, sizeof nd);
            nd.name = gn[l], nd.op_type = "Gemm", nd.inputs = gin, nd.num_inputs = 2, nd.outputs = gout, nd.num_outputs = 1;
            nd.attrs = at, nd.num_attrs = 1;
            aicf_graph_add_node(g, &nd);
            if (l == 2 || l == 3) continue; /* no activation */
            ain[0] = gn[l], aout[0] = hn[l];
            memset(&nd, 0, sizeof nd);
            nd.name = an[l], nd.op_type = l == 4 ? "Tanh" : "Relu", nd.inputs = ain, nd.num_inputs = 1, nd.outputs = aout, nd.num_outputs = 1;
            aicf_graph_add_node(g, &nd);
        }
        if (aicf_graph_add_output(g, "y") != AICF_SUCCESS) {
            aicf_graph_destroy(g);
            return NULL;
        }
    }
    return g;
}

static void test_gemv_pdl(const char* path) {
    const int64_t* NI = PDL_NI;
    static const int CONST_B[5] = {1, 1, 0, 0, 1}; /* 16-byte loads and constant weights */
    fake_exec_dev fd;
    int pr, dev;
    if (!fake_exec_open(path, "programmatic GEMV launches", &fd)) return;
    for (dev = 0; dev < 2; dev++) {
        aicf_context* ctx;
        aicf_graph* g;
        if (dev) fd.set_device(1, 8, 6); /* the context reads the device at creation */
        ctx = fake_lt_ctx(path);
        g = ctx ? pdl_graph(ctx) : NULL;
        CHECK(g != NULL, "pdl cc %s: context and graph: %s", dev ? "8.6" : "10.0", ctx ? aicf_last_error(ctx) : "context");
        for (pr = 0; g && pr < 2; pr++) {
            int no_pdl;
            for (no_pdl = 0; no_pdl < 2; no_pdl++) {
                aicf_plan_desc pd;
                aicf_plan *p = NULL, *q = NULL;
                aicf_exec* e = NULL;
                aicf_exec_stats es;
                const char* pn = pr ? "fp16" : "fp32";
                char* t = NULL;
                char ex[32768];
                int si, k, want = 0, got = 0, prev_kernel = 0, layer = 0, n_gemv = 0, lines = 0, want_pre = 0, pre_lines = 0, wait_lines = 0;
                memset(&pd, 0, sizeof pd);
                pd.backend = AICF_BACKEND_CUDA;
                pd.policy.precision = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
                pd.policy.no_pdl = no_pdl;
                if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) {
                    CHECK(0, "pdl %s no_pdl=%d cc %s: plan: %s", pn, no_pdl, dev ? "8.6" : "10.0", aicf_last_error(ctx));
                    continue;
                }
                for (si = 0; si < p->n_steps; si++) {
                    aicf__cuo_prog* prg = (aicf__cuo_prog*)p->steps[si].backend;
                    aicf_step_info inf;
                    int step_pdl = 0, step_want = 0;
                    if (!prg) continue;
                    for (k = 0; k < prg->n_ops; k++) {
                        const aicf__cuo_op* op = &aicf__cuo_prog_ops(prg)[k];
                        int is_kernel = op->kind == AICF__CUO_KERNEL, w = 0;
                        if (is_kernel && strncmp(aicf__cuo_kname(op->kernel_index), "aicf_gemv_", 10) == 0) {
                            aicf__k_gemv a;
                            memcpy(&a, op->args, sizeof a);
                            n_gemv++;
                            CHECK(layer < 5 && ((a.flags & AICF__GEMV_B_CONST) != 0) == CONST_B[layer] && a.K == NI[layer],
                                  "pdl %s: GEMV %d (K %lld) flags %d", pn, layer + 1, (long long)a.K, a.flags);
                            want_pre += layer < 5 && CONST_B[layer] && prev_kernel && !no_pdl && !dev;
                            layer++;
                        }
                        w = is_kernel && prev_kernel && !no_pdl && !dev;
                        CHECK(op->pdl == w, "pdl %s no_pdl=%d cc %s: step %d (%s) op %d pdl %d, expected %d", pn, no_pdl, dev ? "8.6" : "10.0",
                              si, p->steps[si].kernel, k, op->pdl, w);
                        step_want += w, want += w, got += op->pdl;
                        prev_kernel = is_kernel;
                    }
                    step_pdl = aicf_plan_step_info(p, si, &inf) == AICF_SUCCESS ? inf.pdl_launches : -1;
                    CHECK(step_pdl == step_want, "pdl %s: step %d: aicf_step_info.pdl_launches %d, expected %d", pn, si, step_pdl, step_want);
                }
                CHECK(n_gemv == 5 && (no_pdl || dev ? want == 0 : want >= 4) && want_pre == (no_pdl || dev ? 0 : pr ? 3 : 2),
                      "pdl %s no_pdl=%d cc %s: %d GEMV launches, %d programmatic, %d of them constant-B GEMVs", pn, no_pdl,
                      dev ? "8.6" : "10.0", n_gemv, want, want_pre);
                t = plan_text(p);
                {
                    const char* c = t;
                    int n = 0;
                    while (c && (c = strstr(c, " pdl=1 patch=")) != NULL) n++, c++;
                    CHECK(t && n == want && strstr(t, no_pdl ? "policy no_pdl = 1\n" : "policy no_pdl = 0\n"),
                          "pdl %s no_pdl=%d: %d op lines with pdl=1 in the plan file, expected %d", pn, no_pdl, n, want);
                }
                if (aicf_plan_explain(p, ex, sizeof ex, NULL) == AICF_SUCCESS) {
                    const char* c = ex;
                    while ((c = strstr(c, ": programmatic (PDL) after ")) != NULL) lines++, c++;
                    for (c = ex; (c = strstr(c, ": the kernel fetches its constant weights before griddepcontrol.wait")) != NULL; c++) pre_lines++;
                    for (c = ex; (c = strstr(c, ": it waits (griddepcontrol.wait) before it touches memory, so its launch overlaps")) != NULL; c++)
                        wait_lines++;
                    CHECK(lines == want && pre_lines == want_pre && wait_lines == want - want_pre &&
                              (strstr(ex, ", no programmatic launches\n") != NULL) == no_pdl,
                          "pdl %s no_pdl=%d: %d explain lines (%d prefetching, %d waiting), expected %d (%d):\n%s", pn, no_pdl, lines, pre_lines,
                          wait_lines, want, want_pre, ex);
                } else
                    CHECK(0, "pdl: explain: %s", aicf_last_error(ctx));
                if (!dev) {
                    CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && aicf_exec_stats_get(e, &es) == AICF_SUCCESS &&
                              es.programmatic_edges == want,
                          "pdl %s no_pdl=%d: exec: %d programmatic edges, expected %d (%s)", pn, no_pdl, e ? es.programmatic_edges : -1, want,
                          aicf_last_error(ctx));
                    aicf_exec_destroy(e);
                }
                if (t && aicf_plan_load_memory(g, t, strlen(t), &q) == AICF_SUCCESS) {
                    char* t2 = plan_text(q);
                    CHECK(t2 && strcmp(t, t2) == 0, "pdl %s no_pdl=%d: the loaded plan serialises as the file", pn, no_pdl);
                    free(t2);
                } else
                    CHECK(0, "pdl %s no_pdl=%d: load: %s", pn, no_pdl, aicf_last_error(ctx));
                aicf_plan_destroy(q);
                q = NULL;
                if (t && want) { /* the decision is checked: a file with one pdl=1 taken out is refused */
                    char* bad = (char*)malloc(strlen(t) + 1);
                    char* at;
                    strcpy(bad, t);
                    at = strstr(bad, " pdl=1 patch=");
                    if (at) memmove(at, at + 6, strlen(at + 6) + 1);
                    CHECK(at && aicf_plan_load_memory(g, bad, strlen(bad), &q) == AICF_ERROR_PLAN_MISMATCH && strstr(aicf_last_error(ctx), "differs"),
                          "pdl %s: a plan file without one pdl=1: %s", pn, aicf_last_error(ctx));
                    aicf_plan_destroy(q);
                    free(bad);
                }
                free(t);
                aicf_plan_destroy(p);
            }
        }
        if (dev) fd.set_device(1, 10, 0);
        if (!dev && g) { /* the policy text keeps the key */
            aicf_policy pol, back;
            char txt[4096];
            memset(&pol, 0, sizeof pol);
            pol.no_pdl = 1;
            CHECK(aicf_policy_format(&pol, txt, sizeof txt, NULL) == AICF_SUCCESS && strstr(txt, "\nno_pdl = 1\n") &&
                      aicf_policy_parse(ctx, txt, strlen(txt), &back) == AICF_SUCCESS && back.no_pdl == 1,
                  "pdl: policy text round trip of no_pdl = 1:\n%s", txt);
        }
        aicf_graph_destroy(g);
        aicf_context_destroy(ctx);
    }
    fake_exec_close(&fd);
}

static void test_autotune_gemm(const char* path) {
    fake_exec_dev fd;
    fake_timing ft;
    fk_kus_fn kus;
    int pr;
    if (!fake_exec_open(path, "autotune (Gemm) through the fake driver", &fd)) return;
    if (!fake_timing_open(&fd, "autotune (Gemm)", &ft)) {
        fake_exec_close(&fd);
        return;
    }
    kus = ft.kernel_us;
    for (pr = 0; pr < 2; pr++) {
        aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        static const int64_t xd[2] = {2, 64}, wd[2] = {16, 64}, bd[1] = {16};
        float w[16 * 64], b[16];
        const char *gin[3] = {"x", "W", "B"}, *gout[1] = {"y"};
        aicf_context* ctx = fake_lt_ctx(path);
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_tensor_desc td;
        aicf_node_desc nd;
        aicf_attr at;
        int i, si = -1, k;
        for (i = 0; i < 16 * 64; i++) w[i] = rndf(-1, 1);
        for (i = 0; i < 16; i++) b[i] = rndf(-1, 1);
        if (!ctx || aicf_graph_create(ctx, &g) != AICF_SUCCESS) {
            CHECK(0, "autotune gemm [%s]: setup: %s", prec_name(prec), ctx ? aicf_last_error(ctx) : "context");
            aicf_context_destroy(ctx);
            continue;
        }
        aicf_graph_set_opset(g, "", 17);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        td.name = "x", td.rank = 2, td.dims = xd;
        aicf_graph_add_input(g, &td);
        td.name = "W", td.dims = wd, td.data = w, td.data_bytes = sizeof w;
        aicf_graph_add_constant(g, &td);
        td.name = "B", td.rank = 1, td.dims = bd, td.data = b, td.data_bytes = sizeof b;
        aicf_graph_add_constant(g, &td);
        memset(&at, 0, sizeof at);
        at.name = "transB", at.type = AICF_ATTR_INT, at.i = 1;
        memset(&nd, 0, sizeof nd);
        nd.op_type = "Gemm", nd.name = "fc", nd.num_inputs = 3, nd.inputs = gin, nd.num_outputs = 1, nd.outputs = gout;
        nd.num_attrs = 1, nd.attrs = &at;
        aicf_graph_add_node(g, &nd);
        aicf_graph_add_output(g, "y");
        FLT.n_results = 4;
        kus(NULL, 0);
        kus("aicf_gemv", 9.0);
        kus("lt_algo_0", 5.0);
        kus("lt_algo_1", 6.0);
        kus("lt_algo_2", 0.3);
        kus("lt_algo_3", 7.0);
        p = tune_plan(g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
        for (k = 0; p && k < p->n_steps; k++)
            if (p->steps[k].kind == AICF__STEP_NODE && p->g->nodes[p->steps[k].node].op == AICF__OP_Gemm) si = k;
        CHECK(si >= 0 && p->steps[si].n_tuned == 5 && p->steps[si].tuned[0].choice == AICF_CHOICE_GENERATED &&
                  p->steps[si].choice == AICF_CHOICE_CUBLASLT && p->steps[si].choice_lt == 2 && p->steps[si].tuned[0].ns >= 9000,
              "autotune gemm [%s]: %d candidates, took %s/%d (%s)", prec_name(prec), si >= 0 ? p->steps[si].n_tuned : -1,
              si >= 0 ? aicf__choice_name(p->steps[si].choice) : "?", si >= 0 ? p->steps[si].choice_lt : -1, aicf_last_error(ctx));
        aicf_plan_destroy(p);
        kus("aicf_gemv", 0.2);
        p = tune_plan(g, prec, 1, NULL, AICF_CHOICE_RULE, 0);
        CHECK(p && si >= 0 && si < p->n_steps && p->steps[si].choice == AICF_CHOICE_GENERATED &&
                  strncmp(p->steps[si].kernel, "aicf_gemv", 9) == 0,
              "autotune gemm [%s]: GEMV made fastest: took %s", prec_name(prec), p && si >= 0 ? p->steps[si].kernel : aicf_last_error(ctx));
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        aicf_context_destroy(ctx);
    }
    fake_timing_close(&ft);
    fake_exec_close(&fd);
}

static void test_exec_scratch(const char* path) {
    fake_exec_dev fd;
    int pr;
    if (!fake_exec_open(path, "exec through the fake driver", &fd)) return;
    for (pr = 0; pr < 2; pr++) {
        aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        ccase c = mk("exec", 4, 2, 16, 9, 10, 32, 3, 3, 1, 1, 1, 1);
        aicf_context* ctx = fake_lt_ctx(path);
        aicf_plan* p = NULL;
        aicf_exec* e = NULL;
        aicf_exec_stats es;
        cgraph cg;
        int si;
        describe(&c);
        memset(&cg, 0, sizeof cg);
        if (!ctx || !build(ctx, &c, &cg)) {
            CHECK(0, "exec [%s]: setup: %s", prec_name(prec), ctx ? aicf_last_error(ctx) : "context");
            cgraph_free(&cg);
            aicf_context_destroy(ctx);
            continue;
        }
        FLT.n_results = 1;
        p = plan_of(cg.g, AICF_BACKEND_CUDA, prec, AICF_CONV_IM2COL_GEMM);
        CHECK(p != NULL, "exec [%s]: plan: %s", prec_name(prec), aicf_last_error(ctx));
        si = p ? conv_step(p) : -1;
        if (si >= 0) {
            FLT.matmuls = 0;
            CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "exec [%s]: create: %s", prec_name(prec), aicf_last_error(ctx));
        }
        if (e) {
            const aicf__cuda_exec* x = (const aicf__cuda_exec*)e->backend;
            const aicf__step* st = &p->steps[si];
            uint64_t wp = 0, yp = 0, sp = (uint64_t)x->arena + st->scratch_offset;
            aicf__cuda_exec_device_ptr(e, st->in[1], &wp);
            aicf__cuda_exec_device_ptr(e, st->out[0], &yp);
            CHECK(st->scratch_bytes > 0 && FLT.matmuls == 1 && FLT.mm_a == sp && FLT.mm_b == wp && FLT.mm_d == yp,
                  "exec [%s]: cublasLtMatmul got col 0x%llx W 0x%llx Y 0x%llx (%d calls), expected scratch 0x%llx (arena + %zu), W 0x%llx, "
                  "Y 0x%llx", prec_name(prec), (unsigned long long)FLT.mm_a, (unsigned long long)FLT.mm_b,
                  (unsigned long long)FLT.mm_d, FLT.matmuls, (unsigned long long)sp, st->scratch_offset, (unsigned long long)wp,
                  (unsigned long long)yp);
            CHECK(st->scratch_offset + st->scratch_bytes <= x->arena_bytes, "exec [%s]: scratch inside the %zu-byte arena",
                  prec_name(prec), x->arena_bytes);
            CHECK(aicf_exec_stats_get(e, &es) == AICF_SUCCESS && es.kernel_nodes >= 2, "exec [%s]: %d kernel nodes (im2col, bias add)",
                  prec_name(prec), es.kernel_nodes);
            if (FLT.mm_a == sp)
                printf("ok   exec [%s]: the graph builds; cublasLtMatmul reads the column buffer at arena+%zu (%zu bytes)\n",
                       prec_name(prec), st->scratch_offset, st->scratch_bytes);
        }
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
        cgraph_free(&cg);
        aicf_context_destroy(ctx);
    }
    fake_exec_close(&fd);
}

/* A Conv on cuBLASLt (im2col + GEMM, no C operand) writing into a Concat view that starts 128
   bytes (fp32; 64 at fp16) into the Concat's output (then a Softmax): the exec passes D's address as C, so the
   algorithm must be planned for D's alignment, not 256 (exec creation refused it before). Exec
   built on the fake driver (cc 10.0: PTX images, functions found by name). */
static void test_exec_concat_view_matmul(const char* path) {
    fake_exec_dev fd;
    int pr;
    if (!fake_exec_open(path, "Concat view + cuBLASLt exec", &fd)) return;
    for (pr = 0; pr < 2; pr++) {
        aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        static const int64_t xd[4] = {1, 8, 2, 2}, wd[4] = {8, 8, 1, 1}, yd[4] = {1, 16, 2, 2};
        float w1[64], w2[64];
        aicf_context* ctx = fake_lt_ctx(path);
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_exec* e = NULL;
        aicf_tensor_desc td;
        aicf_node_desc nd;
        const char *c1in[2] = {"x", "W1"}, *c2in[2] = {"x", "W2"}, *o1[1] = {"a"}, *o2[1] = {"b"}, *cin[2] = {"a", "b"}, *cout[1] = {"y"};
        aicf_attr ax;
        int i, views = 0, matmuls = 0;
        for (i = 0; i < 64; i++) w1[i] = rndf(-1, 1), w2[i] = rndf(-1, 1);
        if (!ctx || aicf_graph_create(ctx, &g) != AICF_SUCCESS) {
            CHECK(0, "concat view exec [%s]: setup: %s", prec_name(prec), ctx ? aicf_last_error(ctx) : "context");
            aicf_context_destroy(ctx);
            continue;
        }
        aicf_graph_set_opset(g, "", 17);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        td.name = "x", td.rank = 4, td.dims = xd;
        aicf_graph_add_input(g, &td);
        td.name = "W1", td.dims = wd, td.data = w1, td.data_bytes = sizeof w1;
        aicf_graph_add_constant(g, &td);
        td.name = "W2", td.data = w2, td.data_bytes = sizeof w2;
        aicf_graph_add_constant(g, &td);
        memset(&nd, 0, sizeof nd);
        nd.op_type = "Conv", nd.num_inputs = 2, nd.num_outputs = 1;
        nd.name = "c1", nd.inputs = c1in, nd.outputs = o1;
        aicf_graph_add_node(g, &nd);
        nd.name = "c2", nd.inputs = c2in, nd.outputs = o2;
        aicf_graph_add_node(g, &nd);
        memset(&ax, 0, sizeof ax);
        ax.name = "axis", ax.type = AICF_ATTR_INT, ax.i = 1;
        memset(&nd, 0, sizeof nd);
        nd.name = "cat", nd.op_type = "Concat", nd.inputs = cin, nd.num_inputs = 2, nd.outputs = cout, nd.num_outputs = 1;
        nd.attrs = &ax, nd.num_attrs = 1;
        aicf_graph_add_node(g, &nd);
        {   /* the Concat's output must not be a graph output for the views */
            const char *sin[1] = {"y"}, *sout[1] = {"z"};
            memset(&nd, 0, sizeof nd);
            nd.name = "sm", nd.op_type = "Softmax", nd.inputs = sin, nd.num_inputs = 1, nd.outputs = sout, nd.num_outputs = 1;
            aicf_graph_add_node(g, &nd);
        }
        CHECK(aicf_graph_add_output(g, "z") == AICF_SUCCESS, "concat view exec: graph: %s", aicf_last_error(ctx));
        (void)yd;
        FLT.n_results = 1;
        p = plan_of(g, AICF_BACKEND_CUDA, prec, AICF_CONV_IM2COL_GEMM);
        CHECK(p != NULL, "concat view exec [%s]: plan: %s", prec_name(prec), aicf_last_error(ctx));
        for (i = 0; p && i < p->g->n_tensors; i++)
            if (p->loc[i].alias_of >= 0 && p->loc[i].alias_add % 256 != 0) views++;
        for (i = 0; p && i < p->n_steps; i++) matmuls += strncmp(p->steps[i].kernel, "cublasLt", 8) == 0 || strstr(p->steps[i].reason, "cuBLASLt") != NULL;
        CHECK(!p || (views == 1 && matmuls == 2), "concat view exec [%s]: %d views at a non-256 offset, %d cuBLASLt steps", prec_name(prec), views,
              matmuls);
        if (p) {
            FLT.matmuls = 0;
            CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && FLT.matmuls == 2, "concat view exec [%s]: create: %s (%d matmuls)",
                  prec_name(prec), aicf_last_error(ctx), FLT.matmuls);
        }
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        aicf_context_destroy(ctx);
    }
    fake_exec_close(&fd);
}

/* aicf__cuda_scratch_ptr on a hand-made emitter. */
static void test_scratch_ptr(void) {
    aicf_plan p;
    aicf__step steps[2];
    aicf__cuda_exec x;
    aicf__cuda_emitter em;
    memset(&p, 0, sizeof p);
    memset(steps, 0, sizeof steps);
    memset(&x, 0, sizeof x);
    memset(&em, 0, sizeof em);
    steps[0].scratch_bytes = 1000;
    steps[0].scratch_offset = 4096;
    p.steps = steps;
    p.n_steps = 2;
    x.arena = (aicf__CUdeviceptr)0x7f0000000000ull;
    x.arena_bytes = 8192;
    em.plan = &p;
    em.x = &x;
    em.step = 0;
    CHECK(aicf__cuda_scratch_ptr(&em) == 0x7f0000000000ull + 4096, "scratch ptr: arena + offset");
    em.step = 1;
    CHECK(aicf__cuda_scratch_ptr(&em) == 0, "scratch ptr: a step without scratch gives 0");
    em.step = 2;
    CHECK(aicf__cuda_scratch_ptr(&em) == 0, "scratch ptr: step out of range gives 0");
    em.step = -1;
    CHECK(aicf__cuda_scratch_ptr(&em) == 0, "scratch ptr: outside steps gives 0");
    em.step = 0;
    steps[0].scratch_offset = 7300; /* 7300 + 1000 > 8192 */
    CHECK(aicf__cuda_scratch_ptr(&em) == 0, "scratch ptr: beyond the arena gives 0");
    CHECK(aicf__cuda_scratch_ptr(NULL) == 0, "scratch ptr: NULL emitter");
}

/* ---- the GEMV lowering (src/81_cuda_ops.c aicf__cuo_lower_gemv), emulated on the host ----
   Gemm (transB = 1, alpha, C [M, N]) -> Relu -> Mul by a vector over N, M = 1..8, K odd or a
   multiple of 8: the plan must launch one aicf_gemv kernel with the whole epilogue inside; its
   argument struct is run here as templates/ewchain.cu.j2 aicf_gemv_body does (every output
   column by its warp, the chain through the broadcast descriptors, addresses resolved from the
   patches) and compared with the CPU reference. */
static float gv_src(const aicf__k_ew_src* d, const int64_t* dims, int64_t i, const float* base) {
    int64_t o;
    switch (d->mode) {
    case 0: o = i; break;
    case 1: o = 0; break;
    case 2: o = i % d->a; break;
    case 3: o = (i / d->b) % d->a; break;
    default: {
        int64_t r = i, c3 = r % dims[3], c2, c1;
        r /= dims[3];
        c2 = r % dims[2];
        r /= dims[2];
        c1 = r % dims[1];
        r /= dims[1];
        o = r * d->st[0] + c1 * d->st[1] + c2 * d->st[2] + c3 * d->st[3];
    }
    }
    return base[o];
}

static void test_gemv(aicf_context* ctx) {
    int q;
    for (q = 0; q < 6; q++) {
        int64_t M = 1 + (q * 3) % 8, K = q % 2 ? 37 + 2 * q : 64 * (q + 1), N = 5 + 7 * q, xd[2], wd[2], cd[2], sd[1];
        float alpha = 0.5f + 0.25f * (float)q;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        aicf_tensor_desc td;
        aicf_node_desc nd;
        aicf_attr at[2];
        const char *gin[3] = {"x", "W", "C"}, *gout[1] = {"h"}, *rin[1] = {"h"}, *rout[1] = {"r"}, *min[2] = {"r", "s"},
                   *mout[1] = {"y"};
        float *x, *w, *c, *sv, *ref = NULL, *got;
        size_t nref = 0;
        int si, gemv_steps = 0, i;
        char name[64];
        x = (float*)malloc(sizeof(float) * (size_t)(M * K));
        w = (float*)malloc(sizeof(float) * (size_t)(N * K));
        c = (float*)malloc(sizeof(float) * (size_t)(M * N));
        sv = (float*)malloc(sizeof(float) * (size_t)N);
        got = (float*)calloc((size_t)(M * N), sizeof(float));
        for (i = 0; i < M * K; i++) x[i] = rndf(-1, 1);
        for (i = 0; i < N * K; i++) w[i] = rndf(-0.5f, 0.5f);
        for (i = 0; i < M * N; i++) c[i] = rndf(-0.5f, 0.5f);
        for (i = 0; i < N; i++) sv[i] = rndf(0.5f, 1.5f);
        snprintf(name, sizeof name, "GEMV M=%lld N=%lld K=%lld", (long long)M, (long long)N, (long long)K);
        xd[0] = M, xd[1] = K, wd[0] = N, wd[1] = K, cd[0] = M, cd[1] = N, sd[0] = N;
        CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "%s: graph", name);
        aicf_graph_set_opset(g, "", 17);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        td.name = "x", td.rank = 2, td.dims = xd;
        aicf_graph_add_input(g, &td);
        td.name = "W", td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(N * K);
        aicf_graph_add_constant(g, &td);
        td.name = "C", td.dims = cd, td.data = c, td.data_bytes = sizeof(float) * (size_t)(M * N);
        aicf_graph_add_constant(g, &td);
        td.name = "s", td.rank = 1, td.dims = sd, td.data = sv, td.data_bytes = sizeof(float) * (size_t)N;
        aicf_graph_add_constant(g, &td);
        memset(at, 0, sizeof at);
        at[0].name = "transB", at[0].type = AICF_ATTR_INT, at[0].i = 1;
        at[1].name = "alpha", at[1].type = AICF_ATTR_FLOAT, at[1].f = alpha;
        memset(&nd, 0, sizeof nd);
        nd.name = "gemm", nd.op_type = "Gemm", nd.inputs = gin, nd.num_inputs = 3, nd.outputs = gout, nd.num_outputs = 1;
        nd.attrs = at, nd.num_attrs = 2;
        aicf_graph_add_node(g, &nd);
        memset(&nd, 0, sizeof nd);
        nd.name = "relu", nd.op_type = "Relu", nd.inputs = rin, nd.num_inputs = 1, nd.outputs = rout, nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        memset(&nd, 0, sizeof nd);
        nd.name = "scale", nd.op_type = "Mul", nd.inputs = min, nd.num_inputs = 2, nd.outputs = mout, nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "%s: graph builds: %s", name, aicf_last_error(ctx));
        {
            const void* ins[1];
            aicf_plan* cp = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_AUTO);
            aicf_exec* ce = NULL;
            ins[0] = x;
            if (cp && aicf_exec_create(cp, NULL, &ce) == AICF_SUCCESS && aicf_exec_set_input(ce, 0, x, sizeof(float) * (size_t)(M * K)) == AICF_SUCCESS &&
                aicf_exec_run(ce) == AICF_SUCCESS) {
                nref = (size_t)(M * N);
                ref = (float*)malloc(sizeof(float) * nref);
                if (aicf_exec_get_output(ce, 0, ref, sizeof(float) * nref) != AICF_SUCCESS) nref = 0;
            }
            (void)ins;
            aicf_exec_destroy(ce);
            aicf_plan_destroy(cp);
        }
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = AICF_PRECISION_FP32;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        for (si = 0; p && si < p->n_steps; si++) {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op;
            aicf__k_gemv a;
            const float *A = NULL, *B = NULL, *src[AICF__EW_MAX_OPS];
            float* Y = NULL;
            unsigned char *arena, *weights;
            int k, mt = 1, e, bad = 0;
            if (strncmp(st->kernel, "aicf_gemv_f32_m", 15) != 0) continue;
            gemv_steps++;
            while (mt < M) mt *= 2;
            CHECK(pr && pr->n_ops == 1 && st->epi_native == st->n_epi && st->n_epi == 2, "%s: one launch, the epilogue inside", name);
            if (!pr || pr->n_ops != 1) continue;
            op = aicf__cuo_prog_ops(pr);
            memcpy(&a, op->args, sizeof a);
            CHECK(atoi(st->kernel + 15) == mt && (strstr(st->kernel, "_v") != NULL) == (K % 4 == 0), "%s: kernel %s", name,
                  st->kernel);
            CHECK(a.M == M && a.N == N && a.K == K && a.lda == K && a.ldb == K && a.alpha == alpha && a.e.n == M * N &&
                      a.e.n_ops == 3 && op->grid[0] == (unsigned)((N + 3) / 4) && op->block[0] == 128,
                  "%s: arguments M %lld N %lld K %lld lda %lld ldb %lld alpha %g ops %d grid %u", name, (long long)a.M,
                  (long long)a.N, (long long)a.K, (long long)a.lda, (long long)a.ldb, a.alpha, a.e.n_ops, op->grid[0]);
            /* host memory standing for the arena and the weights; addresses from the patches */
            arena = (unsigned char*)calloc(p->arena_bytes + 16, 1);
            weights = (unsigned char*)calloc(p->weights_bytes + 16, 1);
            for (i = 0; i < p->g->n_tensors; i++)
                if (p->loc[i].space == AICF__SPACE_WEIGHTS && p->g->tensors[i].data)
                    memcpy(weights + p->loc[i].offset, p->g->tensors[i].data, p->loc[i].bytes);
            memcpy(arena + p->loc[st->in[0]].offset, x, sizeof(float) * (size_t)(M * K));
            for (k = 0; k < AICF__EW_MAX_OPS; k++) src[k] = NULL;
            for (k = 0; k < op->n_patch; k++) {
                const aicf__cuo_fix* f = &op->patch[k];
                const unsigned char* hp = (p->loc[f->tensor].space == AICF__SPACE_WEIGHTS ? weights : arena) + p->loc[f->tensor].offset + f->add;
                size_t so = offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
                if (f->field == offsetof(aicf__k_gemv, a)) A = (const float*)hp;
                else if (f->field == offsetof(aicf__k_gemv, b)) B = (const float*)hp;
                else if (f->field == offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y)) Y = (float*)hp;
                else if (f->field >= so && (f->field - so) % sizeof(aicf__k_ew_op) == offsetof(aicf__k_ew_op, src) &&
                         (f->field - so) / sizeof(aicf__k_ew_op) < AICF__EW_MAX_OPS)
                    src[(f->field - so) / sizeof(aicf__k_ew_op)] = (const float*)hp;
                else bad++;
            }
            CHECK(A && B && Y && !bad, "%s: patches for A, B, D and the operands", name);
            if (A && B && Y && !bad && nref) {
                int64_t m, n;
                for (n = 0; n < N; n++)
                    for (m = 0; m < M; m++) {
                        float v = 0.0f;
                        int64_t kk, i2 = m * N + n;
                        for (kk = 0; kk < K; kk++) v += A[m * a.lda + kk] * B[n * a.ldb + kk];
                        v *= a.alpha;
                        for (e = 0; e < a.e.n_ops; e++) {
                            const aicf__k_ew_op* o = &a.e.ops[e];
                            if (o->code < 100) v = o->code == 1 ? (v > 0.0f ? v : 0.0f) : NAN; /* Relu only here */
                            else if (src[e]) {
                                float u = gv_src(&o->src, a.e.dims, i2, src[e]);
                                v = o->code == 101 ? (o->left ? u + v : v + u) : o->code == 103 ? v * u : NAN;
                            } else {
                                v = NAN;
                            }
                        }
                        got[i2] = v;
                    }
                CHECK(rel_l2(got, ref, nref) <= 1e-5, "%s: emulated GEMV vs CPU reference rel err %.3g", name,
                      rel_l2(got, ref, nref));
                (void)Y;
            }
            free(arena);
            free(weights);
        }
        CHECK(gemv_steps == 1, "%s: the plan has %d GEMV steps, expected 1", name, gemv_steps);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        free(x), free(w), free(c), free(sv), free(got), free(ref);
    }
}

/* The tensor-core GEMM (aicf_gemm_tc_f16_*, aicf__cuo_lower_gemm_tc) at float16: chosen under
   matmul_algo GENERATED (ctx, the fake cuBLASLt loaded) and, under AUTO, where cuBLASLt is not
   loaded (ctx_nolt); never where it does not apply (K % 8, float32). Checked: the variant (the
   small-M kernel sBMxBN where one of its tiles fits one wave and its shared memory (tcs_pick),
   else 64 x 64 or 128 x 128 by the tile count against the device's SMs; _tb for B [N, K]), one
   launch, the grid, 512 or 256 threads, the shared memory of the template's formula, the
   arguments (flags 4 on the small-M kernel: its constant B copied before the wait), the patches
   (A, B, D and each chain operand), and the argument struct run on the host: D = chain(alpha
   A B) from the float16-rounded inputs, the chain decoded from its op codes and broadcast
   descriptors, against the CPU reference of the float32 graph (<= 2e-3 relative: the float16
   roundings). Graphs: MatMul [Bt, S, K] x W[K, N] + bias, Tanh, + residual [Bt, S, N]; Gemm
   transB with C [N] and alpha, then Sigmoid. */
static float h16(float v) { return aicf__f16_to_f32(aicf__f32_to_f16(v)); }

/* The small-M kernel's tile as src/81_cuda_ops.c aicf__cuo_lower_gemm_tcs documents it: of
   16 x 32 (8 K groups), 16 x 64 (4), 32 x 32 (8), 32 x 64 (4), the most blocks within `sm`, the
   smaller tile on a tie, the groups' slices (rows padded by 8 halves) or partial tiles within
   smax bytes. Returns the tile index, -1 for none; *smem its shared memory. */
static int tcs_pick(int64_t M, int64_t N, int64_t K, int tb, int64_t sm, int64_t smax, unsigned* smem) {
    static const int T[4][3] = {{16, 32, 8}, {16, 64, 4}, {32, 32, 8}, {32, 64, 4}};
    int t, best = -1;
    int64_t best_nb = 0;
    for (t = 0; t < 4; t++) {
        int64_t bm = T[t][0], bn = T[t][1], nk = T[t][2], ks = (K + nk - 1) / nk, nb = ((M + bm - 1) / bm) * ((N + bn - 1) / bn);
        int64_t ops, part, need;
        ks = (ks + 15) / 16 * 16;
        ops = nk * (bm * (ks + 8) + (tb ? bn * (ks + 8) : ks * (bn + 8))) * 2;
        part = nk * bm * (bn + 2) * 4;
        need = ops > part ? ops : part;
        if (nb <= sm && nb > best_nb && need <= smax) {
            best = t, best_nb = nb;
            *smem = (unsigned)need;
        }
    }
    return best;
}

/* The CPU reference of float32 graph g (inputs x [nx] and, when res != NULL, res [ny]; output
   [ny]) into ref; *ref_ok says whether it was computed */
static void gemm_graph_ref(aicf_graph* g, const float* x, int64_t nx, const float* res, int64_t ny, float* ref, int* ref_ok,
                           const char* name) {
    aicf_plan* cp = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_AUTO);
    aicf_exec* ce = NULL;
    *ref_ok = 0;
    if (cp && aicf_exec_create(cp, NULL, &ce) == AICF_SUCCESS && aicf_exec_set_input(ce, 0, x, sizeof(float) * (size_t)nx) == AICF_SUCCESS &&
        (!res || aicf_exec_set_input(ce, 1, res, sizeof(float) * (size_t)ny) == AICF_SUCCESS) && aicf_exec_run(ce) == AICF_SUCCESS)
        *ref_ok = aicf_exec_get_output(ce, 0, ref, sizeof(float) * (size_t)ny) == AICF_SUCCESS;
    CHECK(*ref_ok, "%s: CPU reference", name);
    aicf_exec_destroy(ce);
    aicf_plan_destroy(cp);
}

/* The GEMM test graphs of test_gemm_tc and test_gemm_wg on ctx: gemm 0: MatMul x [bt, S, K] x
   W [K, N] + bias, Tanh, + residual res [bt, S, N]; gemm 1: Gemm x [M, K], W [N, K] (transB),
   C = bias [N], alpha, then Sigmoid. Output "y". With ref != NULL, *ref_ok says whether the CPU
   reference of the float32 graph on x (and res) was computed into ref [M, N]. */
static int g_gemm_noact; /* gemm_test_graph: without its Sigmoid / Tanh (a chain cuBLASLt's epilogue holds whole) */
static aicf_graph* gemm_test_graph(aicf_context* ctx, int gemm, int64_t bt, int64_t S, int64_t K, int64_t N, float alpha,
                                   const float* x, const float* w, const float* b, const float* res, float* ref, int* ref_ok,
                                   const char* name) {
    int64_t M = bt * S, xd[3], wd[2], bd[1];
    aicf_graph* g = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_attr at[2];
    if (ref_ok) *ref_ok = 0;
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 17);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    xd[0] = bt, xd[1] = S, xd[2] = K;
    if (gemm) xd[0] = M, xd[1] = K;
    td.name = "x", td.rank = gemm ? 2 : 3, td.dims = xd;
    aicf_graph_add_input(g, &td);
    if (!gemm) {
        int64_t rd[3];
        rd[0] = bt, rd[1] = S, rd[2] = N;
        td.name = "res", td.rank = 3, td.dims = rd;
        aicf_graph_add_input(g, &td);
    }
    wd[0] = gemm ? N : K, wd[1] = gemm ? K : N;
    td.name = "W", td.rank = 2, td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(K * N);
    aicf_graph_add_constant(g, &td);
    bd[0] = N;
    td.name = "bias", td.rank = 1, td.dims = bd, td.data = b, td.data_bytes = sizeof(float) * (size_t)N;
    aicf_graph_add_constant(g, &td);
    memset(&nd, 0, sizeof nd);
    memset(at, 0, sizeof at);
    if (gemm) {
        const char *in[3] = {"x", "W", "bias"}, *out[1] = {"h"}, *sin_[1] = {"h"}, *sout[1] = {"y"};
        if (g_gemm_noact) out[0] = "y";
        at[0].name = "transB", at[0].type = AICF_ATTR_INT, at[0].i = 1;
        at[1].name = "alpha", at[1].type = AICF_ATTR_FLOAT, at[1].f = alpha;
        nd.name = "gemm", nd.op_type = "Gemm", nd.inputs = in, nd.num_inputs = 3, nd.outputs = out, nd.num_outputs = 1;
        nd.attrs = at, nd.num_attrs = 2;
        aicf_graph_add_node(g, &nd);
        memset(&nd, 0, sizeof nd);
        nd.name = "sig", nd.op_type = "Sigmoid", nd.inputs = sin_, nd.num_inputs = 1, nd.outputs = sout, nd.num_outputs = 1;
        if (!g_gemm_noact) aicf_graph_add_node(g, &nd);
    } else {
        const char *in[2] = {"x", "W"}, *out[1] = {"m"}, *ain[2] = {"m", "bias"}, *aout[1] = {"h"}, *tin[1] = {"h"},
                   *tout[1] = {"t"}, *rin[2] = {"res", "t"}, *rout[1] = {"y"};
        nd.name = "mm", nd.op_type = "MatMul", nd.inputs = in, nd.num_inputs = 2, nd.outputs = out, nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        nd.name = "bias_add", nd.op_type = "Add", nd.inputs = ain, nd.outputs = aout;
        aicf_graph_add_node(g, &nd);
        nd.name = "tanh", nd.op_type = "Tanh", nd.inputs = tin, nd.num_inputs = 1, nd.outputs = tout;
        if (g_gemm_noact) rin[1] = "h";
        else aicf_graph_add_node(g, &nd);
        nd.name = "residual", nd.op_type = "Add", nd.inputs = rin, nd.num_inputs = 2, nd.outputs = rout;
        aicf_graph_add_node(g, &nd);
    }
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "%s: graph: %s", name, aicf_last_error(ctx));
    if (ref) gemm_graph_ref(g, x, M * K, gemm ? NULL : res, M * N, ref, ref_ok, name);
    return g;
}

static void test_gemm_tc(aicf_context* ctx, aicf_context* ctx_nolt) {
    static const struct { int gemm; int64_t bt, S, K, N; float alpha; } TC[] = {
        {0, 2, 40, 64, 96, 1.0f},     /* M = 80: small-M 16 x 32 (15 blocks), partial N tile */
        {0, 1, 128, 384, 1536, 1.0f}, /* the encoder's f1 at batch 1: small-M 32 x 64 (96 blocks) */
        {1, 1, 100, 72, 88, 0.5f},    /* Gemm transB: small-M 16 x 32, K = 72: K groups half full and empty */
        {0, 16, 128, 32, 1152, 1.0f}, /* M = 2048: 16 x 9 = 144 tiles of 128 x 128 */
        {0, 1, 24, 36, 64, 1.0f},     /* K % 8 != 0: not the tensor-core GEMM */
        {0, 1, 64, 96, 1200, 1.0f},   /* small-M 16 x 64 (tie with 32 x 32: the smaller tile first) */
        {1, 1, 40, 384, 1536, 1.0f},  /* small-M 32 x 32 transB */
        {0, 8, 128, 64, 512, 1.0f},   /* M = 1024: no small-M tile within 132 blocks: 64 x 64 */
        {0, 1, 16, 8192, 64, 1.0f},   /* K = 8192: no small-M tile's slices fit shared memory: 64 x 64 */
    };
    int q, v;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++)
        for (v = 0; v < 3; v++) { /* 0 GENERATED fp16, 1 AUTO fp16 without cuBLASLt, 2 GENERATED fp32 */
            aicf_context* cx = v == 1 ? ctx_nolt : ctx;
            int64_t M = TC[q].bt * TC[q].S, K = TC[q].K, N = TC[q].N;
            int applies = K % 8 == 0 && v != 2, i, si, found = 0;
            aicf_graph* g = NULL;
            aicf_plan* p = NULL;
            aicf_plan_desc pd;
            float *x = (float*)malloc(sizeof(float) * (size_t)(M * K)), *w = (float*)malloc(sizeof(float) * (size_t)(K * N));
            float *b = (float*)malloc(sizeof(float) * (size_t)N), *res = (float*)malloc(sizeof(float) * (size_t)(M * N));
            float *ref = (float*)malloc(sizeof(float) * (size_t)(M * N)), *got = (float*)malloc(sizeof(float) * (size_t)(M * N));
            char name[128];
            int ref_ok = 0;
            snprintf(name, sizeof name, "tensor-core GEMM %s M=%lld N=%lld K=%lld [%s]", TC[q].gemm ? "Gemm transB" : "MatMul",
                     (long long)M, (long long)N, (long long)K, v == 0 ? "GENERATED fp16" : v == 1 ? "AUTO fp16, no cuBLASLt" : "GENERATED fp32");
            for (i = 0; i < M * K; i++) x[i] = rndf(-1, 1);
            for (i = 0; i < K * N; i++) w[i] = rndf(-0.3f, 0.3f);
            for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f);
            for (i = 0; i < M * N; i++) res[i] = rndf(-1, 1);
            g = gemm_test_graph(cx, TC[q].gemm, TC[q].bt, TC[q].S, K, N, TC[q].alpha, x, w, b, res, ref, &ref_ok, name);
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = v == 2 ? AICF_PRECISION_FP32 : AICF_PRECISION_FP16;
            pd.policy.matmul_algo = v == 1 ? AICF_MATMUL_AUTO : AICF_MATMUL_GENERATED;
            CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(cx));
            for (si = 0; p && si < p->n_steps; si++) {
                const aicf__step* st = &p->steps[si];
                aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
                const aicf__cuo_op* op;
                aicf__k_gemv a;
                int64_t sm = p->ctx->cuda && p->ctx->cuda->sm_count > 0 ? p->ctx->cuda->sm_count : 132, m, n, kk;
                int64_t smax = (p->ctx->cuda && p->ctx->cuda->max_smem_optin > 0 ? p->ctx->cuda->max_smem_optin : 232448) - 8192;
                int big = ((M + 127) / 128) * ((N + 127) / 128) >= sm, bm = big ? 128 : 64, bn = bm, k, e, bad = 0, tcs;
                unsigned smem_want, threads = 256;
                const float* src_of[AICF__EW_MAX_OPS];
                char want[64];
                int A_t = -1, B_t = -1, D_t = -1;
                if (strncmp(st->kernel, "aicf_gemm_tc_f16_", 17) != 0) continue;
                found++;
                tcs = tcs_pick(M, N, K, TC[q].gemm, sm, smax, &smem_want);
                if (tcs >= 0) {
                    static const int T[4][2] = {{16, 32}, {16, 64}, {32, 32}, {32, 64}};
                    bm = T[tcs][0], bn = T[tcs][1], threads = 512;
                    snprintf(want, sizeof want, "aicf_gemm_tc_f16_s%dx%d%s", bm, bn, TC[q].gemm ? "_tb" : "");
                } else {
                    snprintf(want, sizeof want, "aicf_gemm_tc_f16_%s%s", big ? "m128n128" : "m64n64", TC[q].gemm ? "_tb" : "");
                    smem_want = big ? 4u * (128u * 40u + (TC[q].gemm ? 128u * 40u : 32u * 136u)) * 2u
                                    : 4u * (64u * 40u + (TC[q].gemm ? 64u * 40u : 32u * 72u)) * 2u;
                    if (smem_want < (unsigned)(bm * (bm + 2) * 4)) smem_want = (unsigned)(bm * (bm + 2) * 4);
                }
                CHECK(pr && pr->n_ops == 1 && st->epi_native == st->n_epi && !strcmp(st->kernel, want), "%s: one launch of %s, the epilogue inside (got %s, %d of %d)",
                      name, want, st->kernel, st->epi_native, st->n_epi);
                if (!pr || pr->n_ops != 1) continue;
                op = aicf__cuo_prog_ops(pr);
                memcpy(&a, op->args, sizeof a);
                CHECK(op->block[0] == threads && op->block[1] == 1 && op->grid[0] == (unsigned)((N + bn - 1) / bn) &&
                          op->grid[1] == (unsigned)((M + bm - 1) / bm) && op->grid[2] == 1 && op->shared_bytes == smem_want,
                      "%s: launch grid %u,%u,%u block %u shared %u (want %u)", name, op->grid[0], op->grid[1], op->grid[2], op->block[0],
                      op->shared_bytes, smem_want);
                CHECK(a.M == M && a.N == N && a.K == K && a.lda == K && a.ldb == (TC[q].gemm ? K : N) && a.alpha == TC[q].alpha &&
                          a.e.n == M * N && a.e.n_ops == (TC[q].gemm ? 2 : 3) && a.flags == (tcs >= 0 ? AICF__GEMV_B_CONST : 0),
                      "%s: arguments M %lld N %lld K %lld lda %lld ldb %lld alpha %g ops %d flags %d (the small-M kernel: 4, W a "
                      "constant copied before the wait)", name, (long long)a.M, (long long)a.N,
                      (long long)a.K, (long long)a.lda, (long long)a.ldb, a.alpha, a.e.n_ops, a.flags);
                for (k = 0; k < AICF__EW_MAX_OPS; k++) src_of[k] = NULL;
                for (k = 0; k < op->n_patch; k++) {
                    const aicf__cuo_fix* f = &op->patch[k];
                    size_t so = offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
                    const char* tn = p->g->tensors[f->tensor].name;
                    if (f->add) bad++;
                    else if (f->field == offsetof(aicf__k_gemv, a)) A_t = f->tensor;
                    else if (f->field == offsetof(aicf__k_gemv, b)) B_t = f->tensor;
                    else if (f->field == offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y)) D_t = f->tensor;
                    else if (f->field >= so && (f->field - so) % sizeof(aicf__k_ew_op) == offsetof(aicf__k_ew_op, src) &&
                             (f->field - so) / sizeof(aicf__k_ew_op) < AICF__EW_MAX_OPS)
                        src_of[(f->field - so) / sizeof(aicf__k_ew_op)] = !strcmp(tn, "bias") ? b : !strcmp(tn, "res") ? res : NULL;
                    else bad++;
                }
                /* D: the step's output, or (the output Cast absorbed: e.flags 1) the Cast's float32 output */
                CHECK(!bad && A_t == st->in[0] && B_t >= 0 && !strcmp(p->g->tensors[B_t].name, "W") &&
                          ((a.e.flags == 0 && D_t == st->out[0]) ||
                           (a.e.flags == 1 && si + 1 < p->n_steps && !strcmp(p->steps[si + 1].kernel, "absorbed") && D_t == p->steps[si + 1].out[0] &&
                            p->loc[D_t].sdtype == AICF_DTYPE_FLOAT32)),
                      "%s: patches A %d (in %d) B %d D %d (out %d) (%d unexpected)", name, A_t, st->in[0], B_t, D_t, st->out[0], bad);
                if (!ref_ok) continue;
                /* the argument struct on the host, from float16-rounded inputs */
                for (m = 0; m < M; m++)
                    for (n = 0; n < N; n++) {
                        float acc = 0.0f, val;
                        int64_t i2 = m * N + n;
                        for (kk = 0; kk < K; kk++)
                            acc += h16(x[m * a.lda + kk]) * h16(TC[q].gemm ? w[n * a.ldb + kk] : w[kk * a.ldb + n]);
                        val = acc * a.alpha;
                        for (e = 0; e < a.e.n_ops; e++) {
                            const aicf__k_ew_op* o = &a.e.ops[e];
                            if (o->code == 2) val = tanhf(val); /* AICF_FN_TANH, AICF_FN_SIGMOID: codegen/variants.py UNARY_FNS order */
                            else if (o->code == 3) val = 1.0f / (1.0f + expf(-val));
                            else if (o->code == 101 && src_of[e]) {
                                float u = h16(gv_src(&o->src, a.e.dims, i2, src_of[e]));
                                val = o->left ? u + val : val + u;
                            } else val = NAN;
                        }
                        got[i2] = h16(val);
                    }
                CHECK(rel_l2(got, ref, (size_t)(M * N)) <= 2e-3, "%s: emulated tensor-core GEMM vs CPU reference rel err %.3g", name,
                      rel_l2(got, ref, (size_t)(M * N)));
            }
            CHECK(found == applies, "%s: %d tensor-core GEMM steps, expected %d", name, found, applies);
            aicf_plan_destroy(p);
            aicf_graph_destroy(g);
            free(x), free(w), free(b), free(res), free(ref), free(got);
        }
}

/* The Hopper GEMM (aicf_gemm_wg_f16_*, aicf__cuo_lower_gemm_wg), on the fake driver as a device
   of compute capability 9.0 with cuTensorMapEncodeTiled (fakecuda_set_tmap): the AUTO rule's
   choice without cuBLASLt at float16 where it applies (wg_pick: 128 <= M <= 256, at most 2 x SMs tiles of 64 x 32; the
   tile, the K split and the stages), never with cuBLASLt loaded, under matmul_algo GENERATED or
   CUBLASLT, at float32,
   at M < 128 or M > 256, without cuTensorMapEncodeTiled or on another compute capability. Checked: one
   launch of the expected kernel, the grid (N tiles, M tiles, KS), 128 threads, the shared
   memory, the flags (W a constant: 4; the stages in bits 8-15), both tensor map requests (dims,
   row stride, box, swizzle), the patches (two tensor maps at 0 and 128, A, B, D and the chain's
   operands at 256 + the tensor-core GEMM's fields), the argument struct run on the host against
   the CPU reference, the plan file naming the tensor-map patches; at exec creation the maps the
   driver encoded, read back from the kernel node's argument (the fake writes its inputs: the
   tensor's device address, dims, stride, box, swizzle, float16, L2 promotion 128 bytes); and a
   refused encoding fails aicf_exec_create with a message naming cuTensorMapEncodeTiled. */
/* A context on the fake driver for the Hopper GEMM tests: with the fake cuBLASLt (lt) or without
   any (the AUTO rule's case for the generated Hopper GEMMs); NULL when it cannot be made */
static aicf_context* hopper_ctx(const char* path, int lt) {
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    if (lt) return fake_lt_ctx(path);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
    cd.flags = AICF_CONTEXT_NO_THREADS;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        aicf_context_destroy(ctx);
        ctx = NULL;
    }
    return ctx;
}

/* Sorts the patches of a Hopper GEMM launch op (its tensor-core GEMM struct at byte g0 of the
   arguments): the tensor maps at 0, 128, .. (n of them) into mt, A, B and D, and the chain's
   operand sources into src_of (the test's host arrays b for "bias", res for "res"). Returns the
   number of patches that fit none of these. */
static int hopper_patches(const aicf_plan* p, const aicf__cuo_op* op, size_t g0, int* mt, int n, int* A_t, int* B_t, int* D_t,
                          const float** src_of, const float* b, const float* res) {
    size_t so = g0 + offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
    int k, bad = 0;
    for (k = 0; k < AICF__EW_MAX_OPS; k++) src_of[k] = NULL;
    for (k = 0; k < op->n_patch; k++) {
        const aicf__cuo_fix* f = &op->patch[k];
        const char* tn = f->tensor >= 0 ? p->g->tensors[f->tensor].name : "";
        if (f->add) bad++;
        else if (f->tmap && f->field % 128 == 0 && f->field / 128 < (uint32_t)n) mt[f->field / 128] = f->tensor;
        else if (f->tmap) bad++;
        else if (f->field == g0 + offsetof(aicf__k_gemv, a)) *A_t = f->tensor;
        else if (f->field == g0 + offsetof(aicf__k_gemv, b)) *B_t = f->tensor;
        else if (f->field == g0 + offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y)) *D_t = f->tensor;
        else if (f->field >= so && (f->field - so) % sizeof(aicf__k_ew_op) == offsetof(aicf__k_ew_op, src) &&
                 (f->field - so) / sizeof(aicf__k_ew_op) < AICF__EW_MAX_OPS)
            src_of[(f->field - so) / sizeof(aicf__k_ew_op)] = !strcmp(tn, "bias") ? b : !strcmp(tn, "res") ? res : NULL;
        else bad++;
    }
    return bad;
}

/* Plan p saved to text names its step si's tensor-map patches (at 0, 128, 256, ... of the
   arguments, of tensors mt[0..n-1]) and loads back on g with step si's kernel `want` */
static void tmap_plan_file(aicf_plan* p, aicf_graph* g, aicf_context* ctx, int si, const char* want, const int* mt, int n,
                           const char* name) {
    size_t need = 0;
    char* txt = NULL;
    int k;
    if (aicf_plan_serialize(p, NULL, 0, &need) == AICF_SUCCESS && (txt = (char*)malloc(need)) != NULL &&
        aicf_plan_serialize(p, txt, need, &need) == AICF_SUCCESS) {
        aicf_plan* lp = NULL;
        aicf_result lr;
        for (k = 0; k < n; k++) {
            char m[40];
            snprintf(m, sizeof m, "%s%d:tmap:%d+0", k ? "," : " patch=", 128 * k, mt[k]);
            CHECK(strstr(txt, m) != NULL, "%s: the plan file names the tensor-map patch '%s'", name, m);
        }
        lr = aicf_plan_load_memory(g, txt, strlen(txt), &lp);
        CHECK(lr == AICF_SUCCESS && lp && !strcmp(lp->steps[si].kernel, want), "%s: the plan file loads back (%s: %s)", name,
              aicf_result_str(lr), lr == AICF_SUCCESS ? "" : aicf_last_error(ctx));
        aicf_plan_destroy(lp);
    } else {
        CHECK(0, "%s: plan save: %s", name, aicf_last_error(ctx));
    }
    free(txt);
}

static int wg_pick(int64_t M, int64_t N, int64_t K, int64_t sm, int64_t optin, int* bn, int* ks, int64_t* stages, unsigned* smem) {
    int64_t t32 = ((M + 63) / 64) * ((N + 31) / 32), nslab = (K + 63) / 64, per, slot, red;
    if (M < 128 || M > 256 || t32 > 2 * sm) return 0;
    *ks = nslab >= 16 && 2 * t32 < sm ? 4 : 1;
    *bn = 2 * t32 * *ks >= sm ? 32 : 16;
    per = (nslab + *ks - 1) / *ks;
    slot = (64 + *bn) * 128;
    red = (int64_t)(*ks - 1) * (*bn / 2) * 128 * 4;
    *stages = (optin - 1024 - 1024 - 8 - red) / (slot + 8);
    if (*stages > per) *stages = per;
    if (*stages > 255) *stages = 255;
    *smem = (unsigned)(1024 + *stages * (slot + 8) + 8 + red);
    return *stages >= 1;
}

static void test_gemm_wg(const char* path) {
    static const struct { int gemm; int64_t bt, S, K, N; float alpha; int algo, prec, cc, tmap, lt, noact; } TC[] = {
        /* algo 0 AUTO, 1 GENERATED, 2 CUBLASLT; prec 1 fp16, 0 fp32; cc 90 or 89; lt: the fake cuBLASLt loaded;
           noact: the chain without its Sigmoid / Tanh (bias and residual, which cuBLASLt's epilogue holds) */
        {0, 1, 128, 384, 1152, 1.0f, 0, 1, 90, 1, 0, 0},  /* the encoder's qkv at batch 1: 64 x 32, 72 CTAs */
        {0, 1, 128, 1536, 384, 1.0f, 0, 1, 90, 1, 0, 0},  /* its f2: K = 1536 split over clusters of 4, 64 x 32 */
        {0, 2, 100, 64, 96, 1.0f, 0, 1, 90, 1, 0, 0},     /* M = 200: 64 x 16, partial tiles */
        {1, 1, 150, 72, 200, 0.5f, 0, 1, 90, 1, 0, 0},    /* Gemm transB, K = 72: a partial slab */
        {1, 1, 256, 1024, 64, 1.0f, 0, 1, 90, 1, 0, 0},   /* the MLP's last layer at batch 256: 64 x 16 _tb_k4 */
        {1, 1, 128, 8192, 256, 1.0f, 0, 1, 90, 1, 0, 0},  /* K = 8192: the stages refilled (ring), K split */
        {1, 1, 64, 1024, 1024, 1.0f, 0, 1, 90, 1, 0, 0},  /* M = 64: not by rule */
        {0, 1, 256, 4096, 1024, 1.0f, 0, 1, 90, 1, 0, 0}, /* 64 x 32, 64 slabs through a ring of stages */
        {0, 8, 128, 64, 512, 1.0f, 0, 1, 90, 1, 0, 0},    /* M = 1024: not this kernel (the warp-specialised one: test_gemm_ws) */
        {0, 1, 128, 384, 1152, 1.0f, 1, 1, 90, 1, 1, 0},  /* GENERATED, cuBLASLt loaded: the Hopper GEMM (the best generated kernel) */
        {1, 1, 256, 1024, 64, 1.0f, 1, 1, 90, 1, 1, 0},   /* GENERATED, the MLP's last layer: _tb_k4, as without cuBLASLt */
        {1, 1, 64, 1024, 1024, 1.0f, 1, 1, 90, 1, 1, 0},  /* GENERATED at M = 64: not this kernel (the portable one) */
        {0, 1, 128, 384, 1152, 1.0f, 2, 1, 90, 1, 1, 0},  /* CUBLASLT */
        {0, 1, 128, 384, 1152, 1.0f, 0, 0, 90, 1, 0, 0},  /* float32 */
        {0, 1, 128, 384, 1152, 1.0f, 0, 1, 89, 1, 0, 0},  /* compute capability 8.9 */
        {0, 1, 128, 384, 1152, 1.0f, 0, 1, 90, 0, 0, 0},  /* a driver without cuTensorMapEncodeTiled */
        {0, 1, 24, 36, 64, 1.0f, 0, 1, 90, 1, 0, 0},      /* K % 8 != 0 */
        {0, 1, 128, 384, 1152, 1.0f, 0, 1, 90, 1, 1, 0},  /* AUTO with cuBLASLt loaded, a Tanh in the chain: the chain in one launch */
        {1, 1, 256, 1024, 64, 1.0f, 0, 1, 90, 1, 1, 0},   /* the same, the MLP's Sigmoid output layer at batch 256 */
        {0, 1, 128, 384, 1152, 1.0f, 0, 1, 90, 1, 1, 1}, /* AUTO with cuBLASLt loaded, bias and residual: cuBLASLt (faster in the models) */
        {1, 1, 256, 1024, 64, 1.0f, 0, 1, 90, 1, 1, 1},  /* the same for a Gemm with its bias alone */
    };
    fake_exec_dev fd;
    int q;
    if (!fake_hopper_open(path, "Hopper GEMM", &fd)) return;
    void (*set_tmap)(int) = fd.set_tmap;
    void (*keep_args)(const char*, size_t) = fd.keep_args;
    const unsigned char* (*kept_args)(int*) = fd.kept_args;
    void (*fail)(const char*, int, int) = fd.fail;
    void (*reset)(void) = fd.reset;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        int64_t M = TC[q].bt * TC[q].S, K = TC[q].K, N = TC[q].N, sm, optin, stages = 0;
        int i, si, found = 0, ref_ok = 0, bn = 0, ks = 0, want_wg;
        unsigned smem_want = 0;
        aicf_context* ctx;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_exec* e = NULL;
        aicf_plan_desc pd;
        float *x = (float*)malloc(sizeof(float) * (size_t)(M * K)), *w = (float*)malloc(sizeof(float) * (size_t)(K * N));
        float *b = (float*)malloc(sizeof(float) * (size_t)N), *res = (float*)malloc(sizeof(float) * (size_t)(M * N));
        float *ref = (float*)malloc(sizeof(float) * (size_t)(M * N)), *got = (float*)malloc(sizeof(float) * (size_t)(M * N));
        char name[160], want[64];
        fd.set_device(1, TC[q].cc / 10, TC[q].cc % 10);
        set_tmap(TC[q].tmap);
        ctx = hopper_ctx(path, TC[q].lt);
        snprintf(name, sizeof name, "Hopper GEMM %s M=%lld N=%lld K=%lld [%s %s, cc %d.%d%s%s%s]", TC[q].gemm ? "Gemm transB" : "MatMul",
                 (long long)M, (long long)N, (long long)K, TC[q].algo == 0 ? "AUTO" : TC[q].algo == 1 ? "GENERATED" : "CUBLASLT",
                 TC[q].prec ? "fp16" : "fp32", TC[q].cc / 10, TC[q].cc % 10, TC[q].tmap ? "" : ", no cuTensorMapEncodeTiled",
                 TC[q].lt ? ", cuBLASLt loaded" : "", TC[q].noact ? ", no activation" : "");
        if (!ctx) {
            CHECK(0, "%s: context", name);
            goto next;
        }
        sm = ctx->cuda && ctx->cuda->sm_count > 0 ? ctx->cuda->sm_count : 132;
        optin = ctx->cuda && ctx->cuda->max_smem_optin > 0 ? ctx->cuda->max_smem_optin : 232448;
        want_wg = ((TC[q].algo == 0 && (!TC[q].lt || !TC[q].noact)) || TC[q].algo == 1) && TC[q].prec && TC[q].cc == 90 && TC[q].tmap && K % 8 == 0 && N % 8 == 0 &&
                  wg_pick(M, N, K, sm, optin, &bn, &ks, &stages, &smem_want);
        snprintf(want, sizeof want, "aicf_gemm_wg_f16_64x%d%s%s", bn, TC[q].gemm ? "_tb" : "", ks == 4 ? "_k4" : "");
        for (i = 0; i < M * K; i++) x[i] = rndf(-1, 1);
        for (i = 0; i < K * N; i++) w[i] = rndf(-0.3f, 0.3f);
        for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f);
        for (i = 0; i < M * N; i++) res[i] = rndf(-1, 1);
        g_gemm_noact = TC[q].noact;
        g = gemm_test_graph(ctx, TC[q].gemm, TC[q].bt, TC[q].S, K, N, TC[q].alpha, x, w, b, res, want_wg ? ref : NULL, &ref_ok, name);
        g_gemm_noact = 0;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = TC[q].prec ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        pd.policy.matmul_algo = TC[q].algo == 0 ? AICF_MATMUL_AUTO : TC[q].algo == 1 ? AICF_MATMUL_GENERATED : AICF_MATMUL_CUBLASLT;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        for (si = 0; p && si < p->n_steps; si++) {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op;
            aicf__k_gemm_wg wa;
            aicf__tmap_req ra, rb;
            const float* src_of[AICF__EW_MAX_OPS];
            int e2, bad = 0, A_t = -1, B_t = -1, D_t = -1, TA_t = -1, TB_t = -1;
            int64_t m, n, kk;
            if (strncmp(st->kernel, "aicf_gemm_wg_", 13) != 0) continue;
            found++;
            CHECK(pr && pr->n_ops == 1 && st->epi_native == st->n_epi && !strcmp(st->kernel, want),
                  "%s: one launch of %s, the epilogue inside (got %s, %d of %d)", name, want, st->kernel, st->epi_native, st->n_epi);
            CHECK(st->reason == strstr(st->reason, TC[q].algo == 1 ? "Hopper GEMM, generated kernels asked for at 128 <= M <= 256: "
                                                   : TC[q].lt     ? "Hopper GEMM, the chain in one launch (cuBLASLt's epilogue lacks part) at 128 <= M <= 256: "
                                                                  : "Hopper GEMM, the rule without cuBLASLt at 128 <= M <= 256: "),
                  "%s: the reason says why this kernel: %s", name, st->reason);
            if (!pr || pr->n_ops != 1) continue;
            op = aicf__cuo_prog_ops(pr);
            memcpy(&wa, op->args, sizeof wa);
            memcpy(&ra, wa.ta, sizeof ra);
            memcpy(&rb, wa.tb, sizeof rb);
            CHECK(op->args_size == 1216 && op->block[0] == 128 && op->block[1] == 1 && op->grid[0] == (unsigned)((N + bn - 1) / bn) &&
                      op->grid[1] == (unsigned)((M + 63) / 64) && op->grid[2] == (unsigned)ks && op->shared_bytes == smem_want,
                  "%s: launch grid %u,%u,%u block %u shared %u (want %u) args %u", name, op->grid[0], op->grid[1], op->grid[2], op->block[0],
                  op->shared_bytes, smem_want, op->args_size);
            CHECK(wa.g.M == M && wa.g.N == N && wa.g.K == K && wa.g.lda == K && wa.g.ldb == (TC[q].gemm ? K : N) &&
                      wa.g.alpha == TC[q].alpha && wa.g.e.n == M * N && wa.g.e.n_ops == (TC[q].gemm ? 2 : 3) &&
                      wa.g.flags == (int32_t)(AICF__GEMV_B_CONST | (stages << 8)),
                  "%s: arguments M %lld N %lld K %lld ops %d flags 0x%x (want W constant 4 | %lld stages << 8)", name, (long long)wa.g.M,
                  (long long)wa.g.N, (long long)wa.g.K, wa.g.e.n_ops, (unsigned)wa.g.flags, (long long)stages);
            CHECK(ra.magic == AICF__TMAP_MAGIC && ra.swizzle == 3 && ra.box[0] == 64 && ra.box[1] == 64 && ra.dims[0] == (uint64_t)K &&
                      ra.dims[1] == (uint64_t)M && ra.stride1 == (uint64_t)K * 2,
                  "%s: A's tensor map request: magic %x swizzle %u box %u x %u dims %llu x %llu stride %llu", name, ra.magic, ra.swizzle,
                  ra.box[0], ra.box[1], (unsigned long long)ra.dims[0], (unsigned long long)ra.dims[1], (unsigned long long)ra.stride1);
            CHECK(rb.magic == AICF__TMAP_MAGIC &&
                      (TC[q].gemm ? (rb.swizzle == 3 && rb.box[0] == 64 && rb.box[1] == (uint32_t)bn && rb.dims[0] == (uint64_t)K &&
                                     rb.dims[1] == (uint64_t)N && rb.stride1 == (uint64_t)K * 2)
                                  : (rb.swizzle == (bn == 32 ? 2u : 1u) && rb.box[0] == (uint32_t)bn && rb.box[1] == 64 &&
                                     rb.dims[0] == (uint64_t)N && rb.dims[1] == (uint64_t)K && rb.stride1 == (uint64_t)N * 2)),
                  "%s: B's tensor map request: swizzle %u box %u x %u dims %llu x %llu stride %llu", name, rb.swizzle, rb.box[0], rb.box[1],
                  (unsigned long long)rb.dims[0], (unsigned long long)rb.dims[1], (unsigned long long)rb.stride1);
            {
                int mt[2] = {-1, -1};
                bad = hopper_patches(p, op, offsetof(aicf__k_gemm_wg, g), mt, 2, &A_t, &B_t, &D_t, src_of, b, res);
                TA_t = mt[0], TB_t = mt[1];
            }
            /* D: the step's output, or (the graph's float32 output: its Cast absorbed, e.flags 1) the Cast's output */
            CHECK(!bad && A_t == st->in[0] && TA_t == A_t && B_t >= 0 && TB_t == B_t && !strcmp(p->g->tensors[B_t].name, "W") &&
                      ((wa.g.e.flags == 0 && D_t == st->out[0]) ||
                       (wa.g.e.flags == 1 && si + 1 < p->n_steps && !strcmp(p->steps[si + 1].kernel, "absorbed") &&
                        D_t == p->steps[si + 1].out[0] && p->loc[D_t].sdtype == AICF_DTYPE_FLOAT32 &&
                        strstr(p->steps[si + 1].reason, "into step") && strstr(p->steps[si + 1].reason, "'s Hopper GEMM, which writes the float32 output"))),
                  "%s: patches: maps of %d and %d, A %d (in %d) B %d D %d (out %d) flags %d (%d unexpected)", name, TA_t, TB_t, A_t, st->in[0], B_t,
                  D_t, st->out[0], (int)wa.g.e.flags, bad);
            CHECK(TC[q].prec == 0 || wa.g.e.flags == 1, "%s: the float16 plan's output Cast absorbed (e.flags %d)", name, (int)wa.g.e.flags);
            {
                const int mt[2] = {A_t, B_t};
                tmap_plan_file(p, g, ctx, si, want, mt, 2, name);
            }
            if (!ref_ok) continue;
            for (m = 0; m < M; m++) /* the argument struct on the host, from float16-rounded inputs */
                for (n = 0; n < N; n++) {
                    float acc = 0.0f, val;
                    int64_t i2 = m * N + n;
                    for (kk = 0; kk < K; kk++)
                        acc += h16(x[m * wa.g.lda + kk]) * h16(TC[q].gemm ? w[n * wa.g.ldb + kk] : w[kk * wa.g.ldb + n]);
                    val = acc * wa.g.alpha;
                    for (e2 = 0; e2 < wa.g.e.n_ops; e2++) {
                        const aicf__k_ew_op* o = &wa.g.e.ops[e2];
                        if (o->code == 2) val = tanhf(val);
                        else if (o->code == 3) val = 1.0f / (1.0f + expf(-val));
                        else if (o->code == 101 && src_of[e2]) {
                            float u = h16(gv_src(&o->src, wa.g.e.dims, i2, src_of[e2]));
                            val = o->left ? u + val : val + u;
                        } else val = NAN;
                    }
                    got[i2] = h16(val);
                }
            CHECK(rel_l2(got, ref, (size_t)(M * N)) <= 2e-3, "%s: emulated Hopper GEMM vs CPU reference rel err %.3g", name,
                  rel_l2(got, ref, (size_t)(M * N)));
            /* exec creation: the driver's maps in the node's argument */
            keep_args("aicf_gemm_wg_", 256);
            if (aicf_exec_create(p, NULL, &e) == AICF_SUCCESS) {
                int nk = 0;
                const unsigned char* kept = kept_args(&nk);
                uint64_t wa_[16], wb_[16], pa = 0, pb = 0;
                memcpy(wa_, kept, 128);
                memcpy(wb_, kept + 128, 128);
                aicf__cuda_exec_device_ptr(e, A_t, &pa);
                aicf__cuda_exec_device_ptr(e, B_t, &pb);
                CHECK(nk == 1 && pa && pb && wa_[6] == 0x4d544b46u && wb_[6] == 0x4d544b46u && wa_[0] == pa && wb_[0] == pb &&
                          wa_[1] == ra.dims[0] && wa_[2] == ra.dims[1] && wa_[3] == ra.stride1 && wa_[4] == (64u | (64ull << 32)) &&
                          wa_[5] == (3u | 6u << 8 | 2u << 16) && wb_[1] == rb.dims[0] && wb_[2] == rb.dims[1] && wb_[3] == rb.stride1 &&
                          wb_[4] == (rb.box[0] | (uint64_t)rb.box[1] << 32) && wb_[5] == (rb.swizzle | 6u << 8 | 2u << 16),
                      "%s: exec: the encoded tensor maps (nodes %d; A at 0x%llx, map 0x%llx; B at 0x%llx, map 0x%llx)", name, nk,
                      (unsigned long long)pa, (unsigned long long)wa_[0], (unsigned long long)pb, (unsigned long long)wb_[0]);
                aicf_exec_destroy(e);
                e = NULL;
            } else {
                CHECK(0, "%s: exec create: %s", name, aicf_last_error(ctx));
            }
            keep_args(NULL, 0);
            fail("cuTensorMapEncodeTiled", 1, 0);
            {
                aicf_result r = aicf_exec_create(p, NULL, &e);
                CHECK(r == AICF_ERROR_CUDA && e == NULL && strstr(aicf_last_error(ctx), "cuTensorMapEncodeTiled") &&
                          strstr(aicf_last_error(ctx), "dims"),
                      "%s: a refused tensor map fails exec creation (%s: %s)", name, aicf_result_str(r), aicf_last_error(ctx));
                if (e) aicf_exec_destroy(e);
                e = NULL;
            }
            fail(NULL, 0, 0);
            { /* the two checks of aicf__cuda_encode_tmap no API call can reach: a damaged request, a
                 driver without cuTensorMapEncodeTiled (aicf__cuda_wg_ok keeps plans from both) */
                aicf__cuo_op* wop = aicf__cuo_prog_ops(pr);
                aicf__tmap_req keep;
                aicf_result r;
                void* enc;
                memcpy(&enc, &ctx->cuda->tmap_encode, sizeof enc);
                memcpy(&keep, wop->args, sizeof keep);
                ((aicf__tmap_req*)(void*)wop->args)->magic = 0x12345678u;
                r = aicf_exec_create(p, NULL, &e);
                CHECK(r == AICF_ERROR_STATE && e == NULL && strstr(aicf_last_error(ctx), "tensor map request is damaged") &&
                          strstr(aicf_last_error(ctx), "0x12345678"),
                      "%s: a damaged tensor map request (%s: %s)", name, aicf_result_str(r), aicf_last_error(ctx));
                if (e) aicf_exec_destroy(e);
                e = NULL;
                memcpy(wop->args, &keep, sizeof keep);
                ctx->cuda->tmap_encode = NULL;
                r = aicf_exec_create(p, NULL, &e);
                CHECK(r == AICF_ERROR_NO_DEVICE && e == NULL && strstr(aicf_last_error(ctx), "lacks cuTensorMapEncodeTiled") &&
                          strstr(aicf_last_error(ctx), "box"),
                      "%s: a driver without cuTensorMapEncodeTiled (%s: %s)", name, aicf_result_str(r), aicf_last_error(ctx));
                if (e) aicf_exec_destroy(e);
                e = NULL;
                memcpy(&ctx->cuda->tmap_encode, &enc, sizeof enc);
                CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "%s: exec create after the request and the driver are restored: %s",
                      name, aicf_last_error(ctx));
                aicf_exec_destroy(e);
                e = NULL;
            }
        }
        CHECK(found == want_wg, "%s: %d Hopper GEMM steps, expected %d%s%s", name, found, want_wg, want_wg ? ": " : "", want_wg ? want : "");
        if (found == want_wg) printf("ok   %s: %s\n", name, want_wg ? want : "not the Hopper GEMM");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    next:
        aicf_context_destroy(ctx);
        free(x), free(w), free(b), free(res), free(ref), free(got);
    }
    set_tmap(0);
    reset();
    fake_exec_close(&fd);
}

/* The LayerNorm fold (src/70_plan.c aicf__fuse_ln_prologue, src/81_cuda_ops.c
   aicf__cuo_lower_ln_fold): a MatMul absorbs the LayerNormalization producing its input 0 and
   runs as one launch of aicf_gemm_wg_f16_64xBN_ln on the raw rows, W' = float16(Scale (.) W),
   y = rstd (x W') - rstd mean c1 + c2, then the chain. On the fake driver as a device of compute
   capability 9.0 with cuTensorMapEncodeTiled, without cuBLASLt (and with it under AUTO), at
   float16, graphs x [bt, S, K] -> LayerNormalization (axis -1) -> MatMul W [K, N] -> + bias,
   some with the residual reader (MatMul W2 [N, K] of that, + the LayerNorm's output). Checked
   where the fold applies: the step (pro naming the LayerNorm, no LayerNorm step, in[] = X, W',
   Scale, B, c1, c2, out[1] the LayerNorm's output only where something else reads it), one
   launch of the expected tile width (bn as aicf__cuo_ln_fold_cfg picks it), grid, block, shared
   memory, flags (4 | slabs << 8), epsilon, both tensor map requests, every patch (A = X, B = W',
   D, bias, c1, c2, gamma, beta, ln); the plan's W' bitwise float16(gamma W), c1 and c2 stored
   float32 and the sums within 1e-5 relative; the argument struct run on the host from the plan's
   own data (X rounded to float16 as the device reads it; the rows' statistics, the column terms,
   the chain; the LayerNorm output as the kernel writes it) against a double-precision reference
   of LayerNorm -> MatMul -> bias on the same float16-rounded X (<= 2e-3 of the largest value);
   the CPU plan folding too (LayerNorm then MatMul) against the double reference of the float32
   graph; the plan file ("  prologue node=", the tensor-map patches, loading back) and explain;
   exec creation (the fold's pointers and maps in the kernel node's argument, the uploaded W',
   c1, c2, Scale and B as the kernel reads them: the fake's device memory is host memory). Where
   it must not apply: M = 100, K > 1024, float32, matmul_algo CUBLASLT, the MatMul pinned to
   cuBLASLt, no cuTensorMapEncodeTiled, compute capability 8.9, the LayerNorm's Mean a graph
   output, its output read before the MatMul, no_fusion. A pin of the folded LayerNorm fails
   aicf_plan_create. */

/* kind 0: x -> LayerNormalization "ln" -> MatMul "mm" W -> Add "bias_add" bias, output "h";
   1: then MatMul "mm2" W2 [N, K] and Add "residual" of the LayerNorm's output, output "y";
   2: kind 0 with the LayerNorm's Mean a graph output; 3: kind 0 with Relu "relu" of the
   LayerNorm's output (its node before the MatMul) a graph output. beta NULL: no B input. */
static aicf_graph* lnf_graph(aicf_context* ctx, int kind, int64_t bt, int64_t S, int64_t K, int64_t N, float eps, const float* w,
                             const float* w2, const float* gamma, const float* beta, const float* bias, const char* name) {
    int64_t xd[3], wd[2], kd[1], nd1[1];
    aicf_graph* g = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_attr at[2];
    const char *ln_in[3] = {"x", "gamma", "beta"}, *ln_out[2] = {"ln", "mean"}, *mm_in[2] = {"ln", "W"}, *mm_out[1] = {"m"};
    const char *ba_in[2] = {"m", "bias"}, *ba_out[1] = {"h"}, *m2_in[2] = {"h", "W2"}, *m2_out[1] = {"m2"};
    const char *rs_in[2] = {"m2", "ln"}, *rs_out[1] = {"y"}, *re_in[1] = {"ln"}, *re_out[1] = {"r"};
    int ok = 1;
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 17);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    xd[0] = bt, xd[1] = S, xd[2] = K;
    td.name = "x", td.rank = 3, td.dims = xd;
    ok &= aicf_graph_add_input(g, &td) == AICF_SUCCESS;
    kd[0] = K;
    td.name = "gamma", td.rank = 1, td.dims = kd, td.data = gamma, td.data_bytes = sizeof(float) * (size_t)K;
    ok &= aicf_graph_add_constant(g, &td) == AICF_SUCCESS;
    if (beta) {
        td.name = "beta", td.data = beta;
        ok &= aicf_graph_add_constant(g, &td) == AICF_SUCCESS;
    }
    wd[0] = K, wd[1] = N;
    td.name = "W", td.rank = 2, td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(K * N);
    ok &= aicf_graph_add_constant(g, &td) == AICF_SUCCESS;
    nd1[0] = N;
    td.name = "bias", td.rank = 1, td.dims = nd1, td.data = bias, td.data_bytes = sizeof(float) * (size_t)N;
    ok &= aicf_graph_add_constant(g, &td) == AICF_SUCCESS;
    if (kind == 1) {
        int64_t w2d[2];
        w2d[0] = N, w2d[1] = K;
        td.name = "W2", td.rank = 2, td.dims = w2d, td.data = w2, td.data_bytes = sizeof(float) * (size_t)(K * N);
        ok &= aicf_graph_add_constant(g, &td) == AICF_SUCCESS;
    }
    memset(&nd, 0, sizeof nd);
    memset(at, 0, sizeof at);
    at[0].name = "axis", at[0].type = AICF_ATTR_INT, at[0].i = -1;
    at[1].name = "epsilon", at[1].type = AICF_ATTR_FLOAT, at[1].f = eps;
    nd.name = "ln", nd.op_type = "LayerNormalization", nd.inputs = ln_in, nd.num_inputs = beta ? 3 : 2, nd.outputs = ln_out;
    nd.num_outputs = kind == 2 ? 2 : 1, nd.attrs = at, nd.num_attrs = 2;
    ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
    memset(&nd, 0, sizeof nd);
    if (kind == 3) {
        nd.name = "relu", nd.op_type = "Relu", nd.inputs = re_in, nd.num_inputs = 1, nd.outputs = re_out, nd.num_outputs = 1;
        ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
    }
    nd.name = "mm", nd.op_type = "MatMul", nd.inputs = mm_in, nd.num_inputs = 2, nd.outputs = mm_out, nd.num_outputs = 1;
    ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
    nd.name = "bias_add", nd.op_type = "Add", nd.inputs = ba_in, nd.outputs = ba_out;
    ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
    if (kind == 1) {
        nd.name = "mm2", nd.op_type = "MatMul", nd.inputs = m2_in, nd.outputs = m2_out;
        ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
        nd.name = "residual", nd.op_type = "Add", nd.inputs = rs_in, nd.outputs = rs_out;
        ok &= aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
    }
    ok &= aicf_graph_add_output(g, kind == 1 ? "y" : "h") == AICF_SUCCESS;
    if (kind == 2) ok &= aicf_graph_add_output(g, "mean") == AICF_SUCCESS;
    if (kind == 3) ok &= aicf_graph_add_output(g, "r") == AICF_SUCCESS;
    CHECK(ok, "%s: graph: %s", name, aicf_last_error(ctx));
    return g;
}

/* The double-precision reference: ln [M, K] = LayerNorm(x) (x rounded to float16 first when
   round16), h [M, N] = ln W + bias */
static void lnf_ref(const float* x, int round16, int64_t M, int64_t K, int64_t N, float eps, const float* gamma, const float* beta,
                    const float* w, const float* bias, double* ln, double* h) {
    int64_t m, k, n;
    for (m = 0; m < M; m++) {
        double s = 0.0, q = 0.0, mean, rstd;
        for (k = 0; k < K; k++) s += round16 ? (double)h16(x[m * K + k]) : (double)x[m * K + k];
        mean = s / (double)K;
        for (k = 0; k < K; k++) {
            double d = (round16 ? (double)h16(x[m * K + k]) : (double)x[m * K + k]) - mean;
            q += d * d;
        }
        rstd = 1.0 / sqrt(q / (double)K + (double)eps);
        for (k = 0; k < K; k++) {
            double d = (round16 ? (double)h16(x[m * K + k]) : (double)x[m * K + k]) - mean;
            ln[m * K + k] = d * rstd * (double)gamma[k] + (beta ? (double)beta[k] : 0.0);
        }
        for (n = 0; n < N; n++) h[m * N + n] = (double)bias[n];
        for (k = 0; k < K; k++) {
            const double a = ln[m * K + k];
            for (n = 0; n < N; n++) h[m * N + n] += a * (double)w[k * N + n];
        }
    }
}

/* max |got - ref| / max |ref| */
static double lnf_maxrel(const float* got, const double* ref, size_t n) {
    double e = 0.0, r = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)got[i] - ref[i]);
        if (!(d <= e)) e = d; /* NaN sticks */
        if (fabs(ref[i]) > r) r = fabs(ref[i]);
    }
    return r > 0.0 ? e / r : e;
}

static int lnf_tensor(const aicf_plan* p, const char* name) {
    int t;
    for (t = 0; t < p->g->n_tensors; t++)
        if (p->g->tensors[t].name && !strcmp(p->g->tensors[t].name, name)) return t;
    return -1;
}

/* the step whose main node is named `node`, -1 for none */
static int lnf_step(const aicf_plan* p, const char* node) {
    int s;
    for (s = 0; s < p->n_steps; s++)
        if (p->steps[s].kind == AICF__STEP_NODE && p->steps[s].node >= 0 && p->g->nodes[p->steps[s].node].name &&
            !strcmp(p->g->nodes[p->steps[s].node].name, node))
            return s;
    return -1;
}

/* The fold's checks on the CUDA plan p (of graph g) of case `name`, its MatMul step si */
static void lnf_check_fold(aicf_plan* p, aicf_graph* g, aicf_context* ctx, int si, int kind, int64_t M, int64_t K, int64_t N, float eps,
                           const float* x, const float* w, const float* gamma, const float* beta, const float* bias, int64_t sm,
                           void (*keep_args)(const char*, size_t), const unsigned char* (*kept_args)(int*), const char* name) {
    const aicf__step* st = &p->steps[si];
    aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
    const aicf__cuo_op* op;
    const aicf__node* mm = &p->g->nodes[st->node];
    aicf__k_gemm_wg wa;
    aicf__tmap_req ra, rb;
    int X = st->in[0], Wp = st->n_in > 1 ? st->in[1] : -1, G = st->n_in > 2 ? st->in[2] : -1, Bt = st->n_in > 3 ? st->in[3] : -1;
    int C1 = st->n_in > 4 ? st->in[4] : -1, C2 = st->n_in > 5 ? st->in[5] : -1, Y = st->out[0], L = st->n_out > 1 ? st->out[1] : -1;
    int lnode = st->pro - 1, want_L = kind == 1 ? lnf_tensor(p, "ln") : -1, k, bad = 0, s, ln_steps = 0, e2;
    int64_t t32 = ((M + 63) / 64) * ((N + 31) / 32), nslab = (K + 63) / 64, m, n, kk;
    int bn = 2 * t32 >= sm ? 32 : 16;
    unsigned smem_want = (unsigned)(1024 + nslab * ((64 + bn) * 128 + 8) + 8 + 64 * 8); /* the rows' {mean, rstd} */
    int pt[16];
    const float *wpd, *c1d, *c2d;
    float *got = NULL, *gotl = NULL;
    double *rln = NULL, *rh = NULL;
    char want[64];
    snprintf(want, sizeof want, "aicf_gemm_wg_f16_64x%d_ln", bn);
    /* 1. the step */
    for (s = 0; s < p->n_steps; s++)
        if (p->steps[s].kind == AICF__STEP_NODE && p->g->nodes[p->steps[s].node].op == AICF__OP_LayerNormalization) ln_steps++;
    CHECK(lnode >= 0 && lnode < p->g->n_nodes && p->g->nodes[lnode].op == AICF__OP_LayerNormalization &&
              !strcmp(p->g->nodes[lnode].name, "ln") && mm->n_fused == 1 && mm->fused[0] == lnode && !ln_steps,
          "%s: the MatMul step absorbs LayerNormalization 'ln' (pro %d, fused %d, %d LayerNorm steps left)", name, st->pro, mm->n_fused,
          ln_steps);
    CHECK(st->n_in == 6 && st->pro_in == 2 && X == lnf_tensor(p, "x") && G == lnf_tensor(p, "gamma") &&
              Bt == (beta ? lnf_tensor(p, "beta") : -1) && Wp >= 0 && C1 >= 0 && C2 >= 0 && st->n_out == 2 && L == want_L,
          "%s: step inputs %d (X %d, W' %d, Scale %d, B %d, c1 %d, c2 %d; pro_in %d), outputs %d (LayerNorm output %d, want %d)", name,
          st->n_in, X, Wp, G, Bt, C1, C2, st->pro_in, st->n_out, L, want_L);
    if (st->n_in != 6 || X < 0 || Wp < 0 || G < 0 || C1 < 0 || C2 < 0 || Y < 0) return;
    CHECK(p->loc[X].sdtype == AICF_DTYPE_FLOAT16 && p->loc[Wp].sdtype == AICF_DTYPE_FLOAT16 && p->loc[Wp].space == AICF__SPACE_WEIGHTS &&
              p->loc[C1].sdtype == AICF_DTYPE_FLOAT32 && p->loc[C2].sdtype == AICF_DTYPE_FLOAT32 && p->loc[C1].space == AICF__SPACE_WEIGHTS &&
              p->loc[C2].space == AICF__SPACE_WEIGHTS && (p->g->tensors[C1].flags & AICF__T_KEEP_F32) &&
              (p->g->tensors[C2].flags & AICF__T_KEEP_F32) && p->loc[C1].bytes == (size_t)N * 4 && p->loc[C2].bytes == (size_t)N * 4 &&
              (L < 0 || p->loc[L].sdtype == AICF_DTYPE_FLOAT16),
          "%s: storage: X %d, W' %d, c1 %d (%zu bytes), c2 %d (want float16, float16, float32, float32)", name, (int)p->loc[X].sdtype,
          (int)p->loc[Wp].sdtype, (int)p->loc[C1].sdtype, p->loc[C1].bytes, (int)p->loc[C2].sdtype);
    /* 2. the plan's constants */
    wpd = (const float*)p->g->tensors[Wp].data;
    c1d = (const float*)p->g->tensors[C1].data;
    c2d = (const float*)p->g->tensors[C2].data;
    CHECK(wpd && c1d && c2d && p->g->tensors[Wp].shape.rank == 2 && p->g->tensors[Wp].shape.d[0] == K && p->g->tensors[Wp].shape.d[1] == N &&
              p->g->tensors[C1].shape.rank == 1 && p->g->tensors[C1].shape.d[0] == N && p->g->tensors[C2].shape.d[0] == N,
          "%s: W' [K, N], c1 and c2 [N] with data", name);
    if (!wpd || !c1d || !c2d) return;
    {
        int64_t wbad = 0, cbad = 0;
        for (kk = 0; kk < K; kk++)
            for (n = 0; n < N; n++) wbad += wpd[kk * N + n] != h16(gamma[kk] * w[kk * N + n]);
        for (n = 0; n < N; n++) {
            double a = 0.0, b = 0.0;
            for (kk = 0; kk < K; kk++) {
                a += (double)wpd[kk * N + n];
                if (beta) b += (double)beta[kk] * (double)w[kk * N + n];
            }
            cbad += !(fabs((double)c1d[n] - a) <= 1e-5 * fabs(a)) || !(fabs((double)c2d[n] - b) <= 1e-5 * fabs(b));
        }
        CHECK(!wbad, "%s: W' = float16(gamma W): %lld of %lld differ", name, (long long)wbad, (long long)(K * N));
        CHECK(!cbad, "%s: c1 = column sums of W', c2 = beta W: %lld of %lld columns off by more than 1e-5", name, (long long)cbad,
              (long long)N);
    }
    /* the launch */
    CHECK(pr && pr->n_ops == 1 && st->n_epi == 1 && st->epi_native == st->n_epi && !strcmp(st->kernel, want),
          "%s: one launch of %s, the bias inside (got %s, %d ops, %d of %d)", name, want, st->kernel, pr ? pr->n_ops : -1, st->epi_native,
          st->n_epi);
    if (!pr || pr->n_ops != 1) return;
    op = aicf__cuo_prog_ops(pr);
    memcpy(&wa, op->args, sizeof wa);
    memcpy(&ra, wa.ta, sizeof ra);
    memcpy(&rb, wa.tb, sizeof rb);
    CHECK(op->kind == AICF__CUO_KERNEL && op->args_size == 1216 && op->block[0] == 256 && op->block[1] == 1 && op->block[2] == 1 &&
              op->grid[0] == (unsigned)((N + bn - 1) / bn) && op->grid[1] == (unsigned)((M + 63) / 64) && op->grid[2] == 1 &&
              op->shared_bytes == smem_want,
          "%s: launch grid %u,%u,%u block %u shared %u (want %u) args %u", name, op->grid[0], op->grid[1], op->grid[2], op->block[0],
          op->shared_bytes, smem_want, op->args_size);
    CHECK(wa.g.M == M && wa.g.N == N && wa.g.K == K && wa.g.lda == K && wa.g.ldb == N && wa.g.alpha == 1.0f && wa.g.e.n == M * N &&
              wa.g.e.n_ops == 1 && wa.g.e.ops[0].code == 101 && wa.g.flags == (int32_t)(AICF__GEMV_B_CONST | (nslab << 8)) && wa.eps == eps,
          "%s: arguments M %lld N %lld K %lld ops %d flags 0x%x (want 4 | %lld slabs << 8) eps %g (want %g)", name, (long long)wa.g.M,
          (long long)wa.g.N, (long long)wa.g.K, wa.g.e.n_ops, (unsigned)wa.g.flags, (long long)nslab, (double)wa.eps, (double)eps);
    CHECK(ra.magic == AICF__TMAP_MAGIC && ra.swizzle == 3 && ra.box[0] == 64 && ra.box[1] == 64 && ra.dims[0] == (uint64_t)K &&
              ra.dims[1] == (uint64_t)M && ra.stride1 == (uint64_t)K * 2,
          "%s: X's tensor map request: magic %x swizzle %u box %u x %u dims %llu x %llu stride %llu", name, ra.magic, ra.swizzle, ra.box[0],
          ra.box[1], (unsigned long long)ra.dims[0], (unsigned long long)ra.dims[1], (unsigned long long)ra.stride1);
    CHECK(rb.magic == AICF__TMAP_MAGIC && rb.swizzle == (bn == 32 ? 2u : 1u) && rb.box[0] == (uint32_t)bn && rb.box[1] == 64 &&
              rb.dims[0] == (uint64_t)N && rb.dims[1] == (uint64_t)K && rb.stride1 == (uint64_t)N * 2,
          "%s: W''s tensor map request: swizzle %u box %u x %u dims %llu x %llu stride %llu", name, rb.swizzle, rb.box[0], rb.box[1],
          (unsigned long long)rb.dims[0], (unsigned long long)rb.dims[1], (unsigned long long)rb.stride1);
    /* the patches: 0 map X, 1 map W', 2 a, 3 b, 4 y, 5 the bias, 6 c1, 7 c2, 8 gamma, 9 beta, 10 ln */
    for (k = 0; k < 16; k++) pt[k] = -1;
    for (k = 0; k < op->n_patch; k++) {
        const aicf__cuo_fix* f = &op->patch[k];
        const size_t g0 = offsetof(aicf__k_gemm_wg, g), so = g0 + offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
        int slot = -1;
        if (f->tmap) slot = f->field == 0 ? 0 : f->field == 128 ? 1 : -1;
        else if (f->field == g0 + offsetof(aicf__k_gemv, a)) slot = 2;
        else if (f->field == g0 + offsetof(aicf__k_gemv, b)) slot = 3;
        else if (f->field == g0 + offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y)) slot = 4;
        else if (f->field == so + offsetof(aicf__k_ew_op, src)) slot = 5;
        else if (f->field == offsetof(aicf__k_gemm_wg, c1)) slot = 6;
        else if (f->field == offsetof(aicf__k_gemm_wg, c2)) slot = 7;
        else if (f->field == offsetof(aicf__k_gemm_wg, gamma)) slot = 8;
        else if (f->field == offsetof(aicf__k_gemm_wg, beta)) slot = 9;
        else if (f->field == offsetof(aicf__k_gemm_wg, ln)) slot = 10;
        if (slot < 0 || f->add || pt[slot] != -1) bad++;
        else pt[slot] = f->tensor;
    }
    /* D: the step's output, or (the output Cast absorbed: e.flags 1) the Cast's float32 output */
    CHECK(!bad && pt[0] == X && pt[1] == Wp && pt[2] == X && pt[3] == Wp && pt[5] == lnf_tensor(p, "bias") && pt[6] == C1 && pt[7] == C2 &&
              pt[8] == G && pt[9] == Bt && pt[10] == L &&
              ((wa.g.e.flags == 0 && pt[4] == Y) ||
               (wa.g.e.flags == 1 && si + 1 < p->n_steps && !strcmp(p->steps[si + 1].kernel, "absorbed") && pt[4] == p->steps[si + 1].out[0] &&
                p->loc[pt[4]].sdtype == AICF_DTYPE_FLOAT32)),
          "%s: patches: maps of %d and %d, a %d b %d (X %d, W' %d), y %d (out %d, flags %d), bias %d, c1 %d c2 %d gamma %d beta %d ln %d "
          "(want %d %d %d %d %d); %d unexpected",
          name, pt[0], pt[1], pt[2], pt[3], X, Wp, pt[4], Y, wa.g.e.flags, pt[5], pt[6], pt[7], pt[8], pt[9], pt[10], C1, C2, G, Bt, L, bad);
    /* 6. the plan file and explain */
    {
        char* txt = plan_text(p);
        char line[64];
        int mt[2];
        size_t need = 0;
        snprintf(line, sizeof line, "  prologue node=%d in=2\n", lnode);
        CHECK(txt && strstr(txt, line), "%s: the plan file has '  prologue node=%d in=2'", name, lnode);
        if (txt) {
            aicf_plan* lp = NULL;
            aicf_result lr = aicf_plan_load_memory(g, txt, strlen(txt), &lp);
            int ls = lp ? lnf_step(lp, "mm") : -1;
            CHECK(lr == AICF_SUCCESS && ls >= 0 && lp->steps[ls].pro == st->pro && lp->steps[ls].n_in == 6 && !strcmp(lp->steps[ls].kernel, want),
                  "%s: the plan file loads back with the fold (%s: %s)", name, aicf_result_str(lr), lr == AICF_SUCCESS ? "" : aicf_last_error(ctx));
            aicf_plan_destroy(lp);
        }
        free(txt);
        mt[0] = X, mt[1] = Wp;
        tmap_plan_file(p, g, ctx, si, want, mt, 2, name);
        if (aicf_plan_explain(p, NULL, 0, &need) == AICF_SUCCESS && (txt = (char*)malloc(need)) != NULL &&
            aicf_plan_explain(p, txt, need, NULL) == AICF_SUCCESS) {
            CHECK(strstr(txt, "prologue: LayerNormalization 'ln'") != NULL, "%s: explain names the prologue", name);
        } else {
            CHECK(0, "%s: explain: %s", name, aicf_last_error(ctx));
        }
        free(txt);
    }
    /* 3. the argument struct on the host, from the plan's data, against the double reference on the same float16 X */
    got = (float*)malloc(sizeof(float) * (size_t)(M * N));
    gotl = (float*)malloc(sizeof(float) * (size_t)(M * K));
    rln = (double*)malloc(sizeof(double) * (size_t)(M * K));
    rh = (double*)malloc(sizeof(double) * (size_t)(M * N));
    if (got && gotl && rln && rh) {
        double* acc = (double*)malloc(sizeof(double) * (size_t)N);
        lnf_ref(x, 1, M, K, N, eps, gamma, beta, w, bias, rln, rh);
        for (m = 0; acc && m < M; m++) {
            double s1 = 0.0, q = 0.0;
            float mean, rstd;
            for (kk = 0; kk < K; kk++) s1 += (double)h16(x[m * K + kk]);
            mean = (float)(s1 / (double)K);
            for (kk = 0; kk < K; kk++) {
                double d = (double)h16(x[m * K + kk]) - (double)mean;
                q += d * d;
            }
            rstd = (float)(1.0 / sqrt((double)(float)(q / (double)K) + (double)wa.eps));
            for (n = 0; n < N; n++) acc[n] = 0.0;
            for (kk = 0; kk < K; kk++) {
                const double a = (double)h16(x[m * K + kk]);
                for (n = 0; n < N; n++) acc[n] += a * (double)wpd[kk * N + n];
                gotl[m * K + kk] = h16((h16(x[m * K + kk]) - mean) * rstd * h16(gamma[kk]) + (beta ? h16(beta[kk]) : 0.0f));
            }
            for (n = 0; n < N; n++) {
                int64_t i2 = m * N + n;
                float val = (float)((double)rstd * acc[n] - (double)rstd * (double)mean * (double)c1d[n] + (double)c2d[n]);
                for (e2 = 0; e2 < wa.g.e.n_ops; e2++) {
                    const aicf__k_ew_op* o = &wa.g.e.ops[e2];
                    if (o->code == 101) {
                        float u = h16(gv_src(&o->src, wa.g.e.dims, i2, bias));
                        val = o->left ? u + val : val + u;
                    } else val = NAN;
                }
                got[i2] = h16(val);
            }
        }
        CHECK(acc != NULL, "%s: out of memory", name);
        free(acc);
        {
            double e1 = lnf_maxrel(got, rh, (size_t)(M * N)), el = lnf_maxrel(gotl, rln, (size_t)(M * K));
            CHECK(e1 <= 2e-3, "%s: emulated fold vs the double reference LayerNorm -> MatMul -> bias: rel err %.3g", name, e1);
            CHECK(el <= 2e-3, "%s: emulated LayerNorm output vs the double reference: rel err %.3g", name, el);
            if (g_verbose) printf("     %s: emulated fold rel err %.3g, LayerNorm output %.3g\n", name, e1, el);
        }
    } else {
        CHECK(0, "%s: out of memory", name);
    }
    /* 7. exec creation: the fold's pointers and maps in the kernel node's argument, the uploaded constants */
    {
        aicf_exec* e = NULL;
        keep_args(want, 1216);
        if (aicf_exec_create(p, NULL, &e) == AICF_SUCCESS) {
            int nk = 0;
            const unsigned char* kept = kept_args(&nk);
            uint64_t ta[16], tb[16], px = 0, pw = 0, pc1 = 0, pc2 = 0, pg = 0, pb = 0, pl = 0;
            aicf__k_gemm_wg ka;
            memcpy(&ka, kept, sizeof ka);
            memcpy(ta, ka.ta, 128);
            memcpy(tb, ka.tb, 128);
            aicf__cuda_exec_device_ptr(e, X, &px);
            aicf__cuda_exec_device_ptr(e, Wp, &pw);
            aicf__cuda_exec_device_ptr(e, C1, &pc1);
            aicf__cuda_exec_device_ptr(e, C2, &pc2);
            aicf__cuda_exec_device_ptr(e, G, &pg);
            if (Bt >= 0) aicf__cuda_exec_device_ptr(e, Bt, &pb);
            if (L >= 0) aicf__cuda_exec_device_ptr(e, L, &pl);
            CHECK(nk == 1 && px && pw && pc1 && pc2 && pg && (Bt < 0 || pb) && (L < 0 || pl) && ta[6] == 0x4d544b46u && tb[6] == 0x4d544b46u &&
                      ta[0] == px && tb[0] == pw && ta[1] == ra.dims[0] && ta[2] == ra.dims[1] && ta[3] == ra.stride1 &&
                      ta[4] == (64u | (64ull << 32)) && ta[5] == (3u | 6u << 8 | 2u << 16) && tb[1] == rb.dims[0] && tb[2] == rb.dims[1] &&
                      tb[3] == rb.stride1 && tb[4] == (rb.box[0] | (uint64_t)rb.box[1] << 32) && tb[5] == (rb.swizzle | 6u << 8 | 2u << 16) &&
                      ka.g.a == px && ka.g.b == pw && ka.c1 == pc1 && ka.c2 == pc2 && ka.gamma == pg && ka.beta == pb && ka.ln == pl &&
                      ka.eps == eps,
                  "%s: exec: the kernel node's argument (nodes %d; maps of 0x%llx, 0x%llx for X 0x%llx, W' 0x%llx; c1 0x%llx/0x%llx c2 "
                  "0x%llx/0x%llx gamma 0x%llx/0x%llx beta 0x%llx/0x%llx ln 0x%llx/0x%llx)",
                  name, nk, (unsigned long long)ta[0], (unsigned long long)tb[0], (unsigned long long)px, (unsigned long long)pw,
                  (unsigned long long)ka.c1, (unsigned long long)pc1, (unsigned long long)ka.c2, (unsigned long long)pc2,
                  (unsigned long long)ka.gamma, (unsigned long long)pg, (unsigned long long)ka.beta, (unsigned long long)pb,
                  (unsigned long long)ka.ln, (unsigned long long)pl);
            if (pw && pc1 && pc2 && pg) { /* the fake's device memory is host memory */
                const uint16_t *dw = (const uint16_t*)(uintptr_t)pw, *dg = (const uint16_t*)(uintptr_t)pg;
                const uint16_t* db = (const uint16_t*)(uintptr_t)pb;
                int64_t dbad = 0;
                for (kk = 0; kk < K * N; kk++) dbad += dw[kk] != aicf__f32_to_f16(wpd[kk]);
                for (kk = 0; kk < K; kk++) dbad += dg[kk] != aicf__f32_to_f16(gamma[kk]);
                for (kk = 0; db && kk < K; kk++) dbad += db[kk] != aicf__f32_to_f16(beta[kk]);
                CHECK(!dbad && !memcmp((const void*)(uintptr_t)pc1, c1d, sizeof(float) * (size_t)N) &&
                          !memcmp((const void*)(uintptr_t)pc2, c2d, sizeof(float) * (size_t)N),
                      "%s: exec: the uploaded W', Scale, B (float16: %lld differ) and c1, c2 (float32, bitwise)", name, (long long)dbad);
            }
            aicf_exec_destroy(e);
        } else {
            CHECK(0, "%s: exec create: %s", name, aicf_last_error(ctx));
        }
        keep_args(NULL, 0);
    }
    free(got), free(gotl), free(rln), free(rh);
}

static void test_ln_fold(const char* path) {
    static const struct { int kind; int64_t bt, S, K, N; float eps; int beta, prec, algo, pin, cc, tmap, lt, nofuse, fold; } TC[] = {
        /* kind: lnf_graph; prec 1 fp16, 0 fp32; algo 0 AUTO, 1 GENERATED, 2 CUBLASLT; pin 0 none, 1 "mm" to cuBLASLt, 2 "mm" to
           GENERATED, 3 "ln" (GENERATED); lt: the fake cuBLASLt loaded; fold: 1 expected, 0 not, -1 aicf_plan_create refuses */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 1},  /* the encoder's qkv with its residual reader: 64 x 32 */
        {0, 2, 100, 96, 200, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 1},    /* M = 200: a partial row tile, K = 96 a partial slab, N % 32 != 0 */
        {0, 1, 256, 64, 64, 1e-3f, 0, 1, 0, 0, 90, 1, 0, 0, 1},     /* no B, epsilon 1e-3, M = 256 */
        {1, 1, 128, 1024, 256, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 1},  /* K = 1024: 16 resident slabs */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 0, 90, 1, 1, 0, 1},  /* AUTO with cuBLASLt loaded: folded all the same */
        {0, 2, 100, 96, 200, 1e-5f, 1, 1, 1, 2, 90, 1, 0, 0, 1},    /* GENERATED, the MatMul pinned to GENERATED */
        {0, 1, 100, 96, 200, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 0},    /* M = 100 */
        {0, 1, 128, 1088, 64, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 0},   /* K = 1088 > 1024 */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 0, 0, 0, 90, 1, 0, 0, 0},  /* float32 */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 2, 0, 90, 1, 1, 0, 0},  /* matmul_algo CUBLASLT */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 1, 90, 1, 1, 0, 0},  /* the MatMul pinned to cuBLASLt */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 0, 90, 0, 0, 0, 0},  /* no cuTensorMapEncodeTiled */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 0, 89, 1, 0, 0, 0},  /* compute capability 8.9 */
        {2, 2, 100, 96, 200, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 0},    /* the LayerNorm's Mean a graph output */
        {3, 2, 100, 96, 200, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 0, 0},    /* the LayerNorm's output read before the MatMul */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 0, 90, 1, 0, 1, 0},  /* no_fusion */
        {1, 1, 128, 384, 1152, 1e-5f, 1, 1, 0, 3, 90, 1, 0, 0, -1}, /* a pin of the folded LayerNorm */
    };
    fake_exec_dev fd;
    int q;
    if (!fake_hopper_open(path, "LayerNorm fold", &fd)) return;
    void (*set_tmap)(int) = fd.set_tmap;
    void (*keep_args)(const char*, size_t) = fd.keep_args;
    const unsigned char* (*kept_args)(int*) = fd.kept_args;
    void (*reset)(void) = fd.reset;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        int64_t M = TC[q].bt * TC[q].S, K = TC[q].K, N = TC[q].N, i, sm;
        int si, s, pro_steps = 0, ln_steps = 0, fails = g_fail;
        aicf_context* ctx;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        aicf_result r;
        float *x = (float*)malloc(sizeof(float) * (size_t)(M * K)), *w = (float*)malloc(sizeof(float) * (size_t)(K * N));
        float *w2 = (float*)malloc(sizeof(float) * (size_t)(K * N)), *ga = (float*)malloc(sizeof(float) * (size_t)K);
        float *be = (float*)malloc(sizeof(float) * (size_t)K), *b = (float*)malloc(sizeof(float) * (size_t)N);
        char name[192];
        static const char* const KINDS[4] = {"", ", residual reader", ", Mean an output", ", output read before the MatMul"};
        static const char* const PINS[4] = {"", ", mm pinned to cuBLASLt", ", mm pinned to GENERATED", ", ln pinned"};
        fd.set_device(1, TC[q].cc / 10, TC[q].cc % 10);
        set_tmap(TC[q].tmap);
        ctx = hopper_ctx(path, TC[q].lt);
        snprintf(name, sizeof name, "LayerNorm fold M=%lld K=%lld N=%lld%s%s [%s %s, cc %d.%d%s%s%s%s]", (long long)M, (long long)K,
                 (long long)N, KINDS[TC[q].kind], TC[q].beta ? "" : ", no B", TC[q].algo == 0 ? "AUTO" : TC[q].algo == 1 ? "GENERATED" : "CUBLASLT",
                 TC[q].prec ? "fp16" : "fp32", TC[q].cc / 10, TC[q].cc % 10, TC[q].tmap ? "" : ", no cuTensorMapEncodeTiled",
                 TC[q].lt ? ", cuBLASLt loaded" : "", PINS[TC[q].pin], TC[q].nofuse ? ", no_fusion" : "");
        if (!ctx || !x || !w || !w2 || !ga || !be || !b) {
            CHECK(0, "%s: context / memory", name);
            goto next;
        }
        sm = ctx->cuda && ctx->cuda->sm_count > 0 ? ctx->cuda->sm_count : 132;
        for (i = 0; i < M; i++) { /* rows of their own mean and spread */
            const float off = rndf(-1.0f, 1.0f), sc = rndf(0.5f, 2.0f);
            int64_t k;
            for (k = 0; k < K; k++) x[i * K + k] = off + sc * rndf(-1.0f, 1.0f);
        }
        for (i = 0; i < K * N; i++) w[i] = rndf(-0.3f, 0.3f), w2[i] = rndf(-0.3f, 0.3f);
        for (i = 0; i < K; i++) ga[i] = rndf(0.5f, 1.5f), be[i] = rndf(-0.5f, 0.5f);
        for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f);
        g = lnf_graph(ctx, TC[q].kind, TC[q].bt, TC[q].S, K, N, TC[q].eps, w, w2, ga, TC[q].beta ? be : NULL, b, name);
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = TC[q].prec ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        pd.policy.matmul_algo = TC[q].algo == 0 ? AICF_MATMUL_AUTO : TC[q].algo == 1 ? AICF_MATMUL_GENERATED : AICF_MATMUL_CUBLASLT;
        pd.policy.no_fusion = TC[q].nofuse;
        if (TC[q].pin) {
            snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "%s", TC[q].pin == 3 ? "ln" : "mm");
            pd.policy.pins[0].kernel = TC[q].pin == 1 ? AICF_CHOICE_CUBLASLT : AICF_CHOICE_GENERATED;
        }
        r = aicf_plan_create(g, &pd, &p);
        if (TC[q].fold < 0) { /* 5. a pin of the folded LayerNorm */
            CHECK(r == AICF_ERROR_UNSUPPORTED && !p && strstr(aicf_last_error(ctx), "folded into MatMul") != NULL,
                  "%s: aicf_plan_create refuses the pin (%s: %s)", name, aicf_result_str(r), aicf_last_error(ctx));
            if (g_fail == fails) printf("ok   %s: refused (%s)\n", name, aicf_last_error(ctx));
            goto done;
        }
        CHECK(r == AICF_SUCCESS && p, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        if (!p) goto done;
        si = lnf_step(p, "mm");
        for (s = 0; s < p->n_steps; s++) {
            pro_steps += p->steps[s].pro > 0;
            ln_steps += p->steps[s].kind == AICF__STEP_NODE && p->g->nodes[p->steps[s].node].op == AICF__OP_LayerNormalization;
        }
        CHECK(si >= 0, "%s: a step of MatMul 'mm'", name);
        if (si < 0) goto done;
        if (TC[q].fold) {
            CHECK(p->steps[si].pro > 0 && pro_steps == 1, "%s: the MatMul step absorbs the LayerNorm (pro %d, %d steps with a prologue)", name,
                  p->steps[si].pro, pro_steps);
            if (p->steps[si].pro > 0)
                lnf_check_fold(p, g, ctx, si, TC[q].kind, M, K, N, TC[q].eps, x, w, ga, TC[q].beta ? be : NULL, b, sm, keep_args, kept_args, name);
        } else { /* 4. not folded: the LayerNorm its own step, nothing in the plan file */
            char* txt = plan_text(p);
            CHECK(p->steps[si].pro == 0 && pro_steps == 0 && ln_steps == 1 && txt && !strstr(txt, "prologue"),
                  "%s: not folded (MatMul step pro %d, %d steps with a prologue, %d LayerNorm steps; plan file %s)", name, p->steps[si].pro,
                  pro_steps, ln_steps, txt ? (strstr(txt, "prologue") ? "names a prologue" : "without a prologue") : "not written");
            free(txt);
        }
        /* the CPU plan of the float32 graph folds by the shape rule alone: LayerNorm then MatMul, against the double reference */
        if (TC[q].fold > 0 && TC[q].kind <= 1 && !TC[q].pin && !TC[q].lt && TC[q].algo == 0) {
            aicf_plan* cp = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_AUTO);
            aicf_exec* ce = NULL;
            int64_t ny = TC[q].kind == 1 ? M * K : M * N, m, n, k;
            float* out = (float*)malloc(sizeof(float) * (size_t)ny);
            double *rln = (double*)malloc(sizeof(double) * (size_t)(M * K)), *rh = (double*)malloc(sizeof(double) * (size_t)(M * N));
            double* ry = (double*)malloc(sizeof(double) * (size_t)ny);
            int cs = cp ? lnf_step(cp, "mm") : -1;
            CHECK(cs >= 0 && cp->steps[cs].pro > 0 && cp->steps[cs].n_in == 4 && cp->steps[cs].pro_in == 2 && cp->steps[cs].n_out == 2 &&
                      cp->steps[cs].out[1] == lnf_tensor(cp, "ln") && cp->steps[cs].in[1] == lnf_tensor(cp, "W"),
                  "%s: the CPU plan folds (pro %d, %d inputs, output 1 %d)", name, cs >= 0 ? cp->steps[cs].pro : -1, cs >= 0 ? cp->steps[cs].n_in : -1,
                  cs >= 0 && cp->steps[cs].n_out > 1 ? cp->steps[cs].out[1] : -1);
            if (cp && out && rln && rh && ry && aicf_exec_create(cp, NULL, &ce) == AICF_SUCCESS &&
                aicf_exec_set_input(ce, 0, x, sizeof(float) * (size_t)(M * K)) == AICF_SUCCESS && aicf_exec_run(ce) == AICF_SUCCESS &&
                aicf_exec_get_output(ce, 0, out, sizeof(float) * (size_t)ny) == AICF_SUCCESS) {
                double er;
                lnf_ref(x, 0, M, K, N, TC[q].eps, ga, TC[q].beta ? be : NULL, w, b, rln, rh);
                if (TC[q].kind == 1)
                    for (m = 0; m < M; m++) {
                        for (k = 0; k < K; k++) ry[m * K + k] = rln[m * K + k];
                        for (n = 0; n < N; n++) {
                            const double a = rh[m * N + n];
                            for (k = 0; k < K; k++) ry[m * K + k] += a * (double)w2[n * K + k];
                        }
                    }
                else memcpy(ry, rh, sizeof(double) * (size_t)ny);
                er = lnf_maxrel(out, ry, (size_t)ny);
                CHECK(er <= 1e-4, "%s: the CPU plan vs the double reference: rel err %.3g", name, er);
            } else {
                CHECK(0, "%s: CPU plan run: %s", name, aicf_last_error(ctx));
            }
            aicf_exec_destroy(ce);
            aicf_plan_destroy(cp);
            free(out), free(rln), free(rh), free(ry);
        }
        if (g_fail == fails) printf("ok   %s: %s\n", name, TC[q].fold ? p->steps[si].kernel : "not folded");
    done:
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    next:
        aicf_context_destroy(ctx);
        free(x), free(w), free(w2), free(ga), free(be), free(b);
    }
    set_tmap(0);
    reset();
    fake_exec_close(&fd);
}

/* The warp-specialised Hopper GEMM (aicf_gemm_ws_f16_128x*, aicf__cuo_lower_gemm_ws), on the fake
   driver as a device of compute capability 9.0 with cuTensorMapEncodeTiled: MatMul + bias +
   residual, Relu (ws_test_graph) at M >= 1024 under AUTO without cuBLASLt and under GENERATED;
   not with cuBLASLt loaded (no erf-form Gelu), at float32, M < 1024, B transposed (Gemm
   transB), on compute capability 8.9 or without cuTensorMapEncodeTiled. Checked: one launch of
   the expected tile width (ws_pick), min(SMs, tiles) CTAs of 384 threads, the shared memory,
   the stages in flags bits 8-15, the three tensor map requests (A, B, Y), the patches, the
   argument struct run on the host against the CPU reference (small cases), the plan file naming
   the three tensor-map patches and loading back, the maps the driver encoded at exec creation.
   Then the AUTO rule with cuBLASLt loaded on MatMul + bias + Gelu (+ MatMul): the erf form
   takes this kernel with the Gelu inside where its tiles fill a wave; the tanh form, the
   policy's gelu_tanh and a part of a wave cuBLASLt. */
static int ws_pick(int64_t M, int64_t N, int64_t sm, int64_t optin, int* bn, int64_t* tiles, int64_t* stages, unsigned* smem) {
    int64_t best = -1, b;
    for (b = 128; b <= 192; b += 64) {
        int64_t t = ((M + 127) / 128) * ((N + b - 1) / b), cost = (t + sm - 1) / sm * b;
        if (best < 0 || cost <= best) best = cost, *bn = (int)b, *tiles = t;
    }
    *stages = (optin - 1024 - 1024 - *bn / 64 * 16384) / ((128 + *bn) * 128 + 16);
    if (*stages > 4) *stages = 4;
    *smem = (unsigned)(1024 + *stages * ((128 + *bn) * 128 + 16) + *bn / 64 * 16384);
    return *stages >= 2;
}

/* MatMul x [bt, S, K] x W [K, N] + bias + residual res [bt, S, N], then Relu: the chain the ws
   GEMM's epilogue takes; output "y", the CPU reference into ref as gemm_test_graph does */
static aicf_graph* ws_test_graph(aicf_context* ctx, int64_t bt, int64_t S, int64_t K, int64_t N, const float* x, const float* w,
                                 const float* b, const float* res, float* ref, int* ref_ok, const char* name) {
    int64_t M = bt * S, xd[3] = {bt, S, K}, rd[3] = {bt, S, N}, wd[2] = {K, N}, bd[1] = {N};
    aicf_graph* g = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    const char *in[2] = {"x", "W"}, *out[1] = {"m"}, *ain[2] = {"m", "bias"}, *aout[1] = {"h"}, *rin[2] = {"res", "h"},
               *rout[1] = {"t"}, *tin[1] = {"t"}, *tout[1] = {"y"};
    if (ref_ok) *ref_ok = 0;
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 17);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.name = "x", td.rank = 3, td.dims = xd;
    aicf_graph_add_input(g, &td);
    td.name = "res", td.dims = rd;
    aicf_graph_add_input(g, &td);
    td.name = "W", td.rank = 2, td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(K * N);
    aicf_graph_add_constant(g, &td);
    td.name = "bias", td.rank = 1, td.dims = bd, td.data = b, td.data_bytes = sizeof(float) * (size_t)N;
    aicf_graph_add_constant(g, &td);
    memset(&nd, 0, sizeof nd);
    nd.name = "mm", nd.op_type = "MatMul", nd.inputs = in, nd.num_inputs = 2, nd.outputs = out, nd.num_outputs = 1;
    aicf_graph_add_node(g, &nd);
    nd.name = "bias_add", nd.op_type = "Add", nd.inputs = ain, nd.outputs = aout;
    aicf_graph_add_node(g, &nd);
    nd.name = "residual", nd.op_type = "Add", nd.inputs = rin, nd.outputs = rout;
    aicf_graph_add_node(g, &nd);
    nd.name = "relu", nd.op_type = "Relu", nd.inputs = tin, nd.num_inputs = 1, nd.outputs = tout;
    aicf_graph_add_node(g, &nd);
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "%s: graph: %s", name, aicf_last_error(ctx));
    if (ref) gemm_graph_ref(g, x, M * K, res, M * N, ref, ref_ok, name);
    return g;
}

/* The LayerNorm after a MatMul (src/70_plan.c aicf__fuse_ln_epilogue, src/81_cuda_ops.c
   aicf__cuo_lower_ln_epi): x [M, K] -> MatMul W [K, N] -> [Add bias] -> [Add r, an input
   [M, N]] -> LayerNormalization (Scale, [B], epsilon) -> y. On the fake driver as a device of
   compute capability 9.0 with cuTensorMapEncodeTiled: where it applies, the MatMul step takes
   the LayerNorm (post naming it, in[] = x, W, Scale, B, out[0] = y, no LayerNorm step) and is
   one launch of aicf_gemm_wsln_f16_64xBN_cCS (BN, CS by N) with the grid (clusters x CS, the
   clusters min(row blocks, SMs / CS)), block, shared memory and stages as aicf__cuo_ln_epi_cfg
   computes them, the arguments (M, N, K, the chain's ops, epsilon), the three tensor-map
   requests (64 x 64 boxes), the patches (maps of x, W, y; A, B, D; Scale and B at gamma and
   beta); the plan file names the step's epilogue-layernorm line and loads back; the exec is
   created. Where it must not apply: float32, matmul_algo CUBLASLT, compute capability 8.9, no
   cuTensorMapEncodeTiled, no_fusion, too few rows, N not a split width. A pin of the fused
   LayerNorm fails aicf_plan_create, naming it. */
static aicf_graph* lne_graph(aicf_context* ctx, int64_t M, int64_t K, int64_t N, int bias, int res, int beta, float eps, const float* w,
                             const float* b, const float* ga, const float* be, const char* name) {
    int64_t xd[2] = {M, K}, rd[2] = {M, N}, wd[2] = {K, N}, bd[1] = {N};
    aicf_graph* g = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_attr at[1];
    const char *in[2] = {"x", "W"}, *out[1] = {"m"}, *ain[2] = {"m", "bias"}, *aout[1] = {"h"}, *rin[2] = {"h", "r"}, *rout[1] = {"t"},
               *lin[3] = {"t", "gamma", "beta"}, *lout[1] = {"y"};
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 17);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.name = "x", td.rank = 2, td.dims = xd;
    aicf_graph_add_input(g, &td);
    if (res) {
        td.name = "r", td.dims = rd;
        aicf_graph_add_input(g, &td);
    }
    td.name = "W", td.rank = 2, td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(K * N);
    aicf_graph_add_constant(g, &td);
    td.rank = 1, td.dims = bd, td.data_bytes = sizeof(float) * (size_t)N;
    if (bias) {
        td.name = "bias", td.data = b;
        aicf_graph_add_constant(g, &td);
    }
    td.name = "gamma", td.data = ga;
    aicf_graph_add_constant(g, &td);
    if (beta) {
        td.name = "beta", td.data = be;
        aicf_graph_add_constant(g, &td);
    }
    memset(&nd, 0, sizeof nd);
    nd.name = "mm", nd.op_type = "MatMul", nd.inputs = in, nd.num_inputs = 2, nd.outputs = out, nd.num_outputs = 1;
    aicf_graph_add_node(g, &nd);
    if (bias) {
        nd.name = "bias_add", nd.op_type = "Add", nd.inputs = ain, nd.outputs = aout;
        aicf_graph_add_node(g, &nd);
    } else {
        aout[0] = "m";
    }
    rin[0] = aout[0];
    if (res) {
        nd.name = "residual", nd.op_type = "Add", nd.inputs = rin, nd.outputs = rout;
        aicf_graph_add_node(g, &nd);
        lin[0] = "t";
    } else {
        lin[0] = aout[0];
    }
    at[0].name = "epsilon", at[0].type = AICF_ATTR_FLOAT, at[0].f = eps;
    nd.name = "ln", nd.op_type = "LayerNormalization", nd.inputs = lin, nd.num_inputs = beta ? 3 : 2, nd.outputs = lout;
    nd.attrs = at, nd.num_attrs = 1;
    aicf_graph_add_node(g, &nd);
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "%s: graph: %s", name, aicf_last_error(ctx));
    return g;
}

/* The plan's LayerNormalization steps (0 where the epilogue took it). */
static int lne_ln_steps(const aicf_plan* p) {
    int s, n = 0;
    for (s = 0; s < p->n_steps; s++)
        n += p->steps[s].kind == AICF__STEP_NODE && p->g->nodes[p->steps[s].node].op == AICF__OP_LayerNormalization;
    return n;
}

static void test_ln_epi(const char* path) {
    static const struct { int64_t M, K, N; int bias, res, beta, prec, algo, cc, tmap, lt, nofuse, pin, fuse; } TC[] = {
        /* algo 0 AUTO, 1 GENERATED, 2 CUBLASLT; pin 1: "ln" (GENERATED); fuse: 1 expected, 0 not, -1 aicf_plan_create refuses */
        {4096, 384, 384, 1, 1, 1, 1, 0, 90, 1, 0, 0, 0, 1},  /* the encoder's o at batch 32: 64 clusters of 2 x 192 */
        {2100, 1000, 384, 1, 1, 1, 1, 0, 90, 1, 1, 0, 0, 1}, /* a partial row block, K = 1000; AUTO with cuBLASLt loaded */
        {1100, 96, 768, 0, 1, 0, 1, 1, 90, 1, 0, 0, 0, 1},   /* N = 768: clusters of 4 x 192, the residual only, no B; GENERATED */
        {8192, 64, 256, 1, 0, 1, 1, 0, 90, 1, 0, 0, 0, 1},   /* N = 256: 2 x 128, the bias only; 128 row blocks on 66 clusters */
        {4096, 384, 384, 1, 1, 1, 0, 0, 90, 1, 0, 0, 0, 0},  /* float32 */
        {4096, 384, 384, 1, 1, 1, 1, 2, 90, 1, 1, 0, 0, 0},  /* matmul_algo CUBLASLT */
        {4096, 384, 384, 1, 1, 1, 1, 0, 89, 1, 0, 0, 0, 0},  /* compute capability 8.9 */
        {4096, 384, 384, 1, 1, 1, 1, 0, 90, 0, 0, 0, 0, 0},  /* no cuTensorMapEncodeTiled */
        {4096, 384, 384, 1, 1, 1, 1, 0, 90, 1, 0, 1, 0, 0},  /* no_fusion */
        {1000, 384, 384, 1, 1, 1, 1, 0, 90, 1, 0, 0, 0, 0},  /* 16 row blocks: 32 CTAs, under half the SMs */
        {4096, 64, 320, 1, 1, 1, 1, 0, 90, 1, 0, 0, 0, 0},   /* N = 320: no split */
        {4096, 384, 384, 1, 1, 1, 1, 0, 90, 1, 0, 0, 1, -1}, /* a pin of the fused LayerNorm */
    };
    fake_exec_dev fd;
    int q;
    if (!fake_hopper_open(path, "LayerNorm epilogue", &fd)) return;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        const int64_t M = TC[q].M, K = TC[q].K, N = TC[q].N;
        int64_t i, sm, optin, rb, clusters, slot, fixed, stages;
        int si, ln_steps = 0, fails = g_fail, bn = 0, cs = 0;
        aicf_context* ctx;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        aicf_result r;
        float *w = (float*)malloc(sizeof(float) * (size_t)(K * N)), *b = (float*)malloc(sizeof(float) * (size_t)N);
        float *ga = (float*)malloc(sizeof(float) * (size_t)N), *be = (float*)malloc(sizeof(float) * (size_t)N);
        char name[192], want[64];
        fd.set_device(1, TC[q].cc / 10, TC[q].cc % 10);
        fd.set_tmap(TC[q].tmap);
        ctx = hopper_ctx(path, TC[q].lt);
        snprintf(name, sizeof name, "LayerNorm epilogue M=%lld K=%lld N=%lld%s%s%s [%s %s, cc %d.%d%s%s%s%s]", (long long)M, (long long)K,
                 (long long)N, TC[q].bias ? ", bias" : "", TC[q].res ? ", residual" : "", TC[q].beta ? "" : ", no B",
                 TC[q].algo == 0 ? "AUTO" : TC[q].algo == 1 ? "GENERATED" : "CUBLASLT", TC[q].prec ? "fp16" : "fp32", TC[q].cc / 10,
                 TC[q].cc % 10, TC[q].tmap ? "" : ", no cuTensorMapEncodeTiled", TC[q].lt ? ", cuBLASLt loaded" : "",
                 TC[q].nofuse ? ", no_fusion" : "", TC[q].pin ? ", ln pinned" : "");
        if (!ctx || !w || !b || !ga || !be) {
            CHECK(0, "%s: context / memory", name);
            goto next;
        }
        sm = ctx->cuda && ctx->cuda->sm_count > 0 ? ctx->cuda->sm_count : 132;
        optin = ctx->cuda && ctx->cuda->max_smem_optin > 0 ? ctx->cuda->max_smem_optin : 232448;
        for (i = 0; i < K * N; i++) w[i] = rndf(-0.1f, 0.1f);
        for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f), ga[i] = rndf(0.5f, 1.5f), be[i] = rndf(-0.5f, 0.5f);
        g = lne_graph(ctx, M, K, N, TC[q].bias, TC[q].res, TC[q].beta, 1e-5f + 1e-6f * (float)q, w, b, ga, be, name);
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = TC[q].prec ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        pd.policy.matmul_algo = TC[q].algo == 0 ? AICF_MATMUL_AUTO : TC[q].algo == 1 ? AICF_MATMUL_GENERATED : AICF_MATMUL_CUBLASLT;
        pd.policy.no_fusion = TC[q].nofuse;
        if (TC[q].pin) {
            snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "ln");
            pd.policy.pins[0].kernel = AICF_CHOICE_GENERATED;
        }
        r = aicf_plan_create(g, &pd, &p);
        if (TC[q].fuse < 0) {
            CHECK(r == AICF_ERROR_UNSUPPORTED && !p && strstr(aicf_last_error(ctx), "fused after MatMul 'mm'") != NULL,
                  "%s: aicf_plan_create refuses the pin (%s: %s)", name, aicf_result_str(r), aicf_last_error(ctx));
            if (g_fail == fails) printf("ok   %s: refused (%s)\n", name, aicf_last_error(ctx));
            goto done;
        }
        CHECK(r == AICF_SUCCESS && p, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        if (!p) goto done;
        si = lnf_step(p, "mm");
        ln_steps = lne_ln_steps(p);
        CHECK(si >= 0, "%s: a step of MatMul 'mm'", name);
        if (si < 0) goto done;
        if (!TC[q].fuse) {
            char* txt = plan_text(p);
            CHECK(p->steps[si].post == 0 && ln_steps == 1 && txt && !strstr(txt, "epilogue-layernorm") && !strstr(p->steps[si].kernel, "wsln"),
                  "%s: not fused (post %d, %d LayerNorm steps, kernel %s)", name, p->steps[si].post, ln_steps, p->steps[si].kernel);
            free(txt);
        } else {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op = pr && pr->n_ops == 1 ? aicf__cuo_prog_ops(pr) : NULL;
            aicf__k_gemm_ws wa;
            aicf__tmap_req ra, rbq, rc;
            int mt[3] = {-1, -1, -1}, A_t = -1, B_t = -1, D_t = -1, G_t = -1, Be_t = -1, bad = 0, k;
            aicf_exec* e = NULL;
            bn = N == 256 ? 128 : 192;
            cs = N == 768 ? 4 : 2;
            rb = (M + 63) / 64;
            clusters = rb < sm / cs ? rb : sm / cs;
            slot = (64 + bn) * 128;
            fixed = 1024 + (bn / 64) * 8192 + 16 + cs * 1024 + 12 * bn;
            stages = (optin - 2048 - fixed) / (slot + 16);
            if (stages > 8) stages = 8;
            snprintf(want, sizeof want, "aicf_gemm_wsln_f16_64x%d_c%d_y32", bn, cs); /* y a graph output: its Cast absorbed */
            CHECK(st->post > 0 && !strcmp(p->g->nodes[st->post - 1].name, "ln") && ln_steps == 0 && st->n_in == 4 && st->post_in == 2 &&
                      st->in[2] == lnf_tensor(p, "gamma") && st->in[3] == (TC[q].beta ? lnf_tensor(p, "beta") : -1) && st->n_out == 1 &&
                      st->out[0] == lnf_tensor(p, "y") && st->in[0] == lnf_tensor(p, "x"),
                  "%s: the MatMul step takes the LayerNorm (post %d, %d LayerNorm steps, %d inputs, post_in %d, out %d)", name, st->post,
                  ln_steps, st->n_in, st->post_in, st->out[0]);
            CHECK(op && !strcmp(st->kernel, want) && st->epi_native == st->n_epi, "%s: one launch of %s (got %s, %d ops)", name, want,
                  st->kernel, pr ? pr->n_ops : -1);
            if (!op) goto done;
            memcpy(&wa, op->args, sizeof wa);
            memcpy(&ra, wa.ta, sizeof ra);
            memcpy(&rbq, wa.tb, sizeof rbq);
            memcpy(&rc, wa.tc, sizeof rc);
            CHECK(op->args_size == 1344 && op->block[0] == 256 && op->block[1] == 1 && op->grid[0] == (unsigned)(clusters * cs) &&
                      op->grid[1] == 1 && op->grid[2] == 1 && op->shared_bytes == (unsigned)(fixed + stages * (slot + 16)),
                  "%s: launch grid %u,%u,%u block %u shared %u (want %u CTAs, %lld bytes)", name, op->grid[0], op->grid[1], op->grid[2],
                  op->block[0], op->shared_bytes, (unsigned)(clusters * cs), (long long)(fixed + stages * (slot + 16)));
            CHECK(wa.g.M == M && wa.g.N == N && wa.g.K == K && wa.g.alpha == 1.0f && wa.g.e.n_ops == TC[q].bias + TC[q].res &&
                      wa.g.flags == (int32_t)(stages << 8) && wa.eps == 1e-5f + 1e-6f * (float)q && wa.pad_ == 0,
                  "%s: arguments M %lld N %lld K %lld ops %d flags 0x%x (want %lld stages << 8) eps %g", name, (long long)wa.g.M,
                  (long long)wa.g.N, (long long)wa.g.K, wa.g.e.n_ops, (unsigned)wa.g.flags, (long long)stages, (double)wa.eps);
            for (k = 0; k < wa.g.e.n_ops; k++)
                CHECK(wa.g.e.ops[k].code == 101 && (wa.g.e.ops[k].src.mode == 0 || wa.g.e.ops[k].src.mode == 2),
                      "%s: chain op %d: code %d mode %d (an Add of a row or a full operand)", name, k, (int)wa.g.e.ops[k].code,
                      (int)wa.g.e.ops[k].src.mode);
            CHECK(ra.magic == AICF__TMAP_MAGIC && ra.swizzle == 3 && ra.box[0] == 64 && ra.box[1] == 64 && ra.dims[0] == (uint64_t)K &&
                      ra.dims[1] == (uint64_t)M && ra.stride1 == (uint64_t)K * 2 && rbq.box[0] == 64 && rbq.box[1] == 64 &&
                      rbq.dims[0] == (uint64_t)N && rbq.dims[1] == (uint64_t)K && rbq.stride1 == (uint64_t)N * 2 && rc.box[0] == 64 &&
                      rc.box[1] == 64 && rc.dims[0] == (uint64_t)N && rc.dims[1] == (uint64_t)M && rc.stride1 == (uint64_t)N * 2 &&
                      rbq.magic == AICF__TMAP_MAGIC && rc.magic == AICF__TMAP_MAGIC && rbq.swizzle == 3 && rc.swizzle == 3,
                  "%s: tensor map requests: A box %u x %u dims %llu x %llu; B box %u x %u; Y box %u x %u dims %llu x %llu", name,
                  ra.box[0], ra.box[1], (unsigned long long)ra.dims[0], (unsigned long long)ra.dims[1], rbq.box[0], rbq.box[1], rc.box[0],
                  rc.box[1], (unsigned long long)rc.dims[0], (unsigned long long)rc.dims[1]);
            for (k = 0; k < op->n_patch; k++) {
                const aicf__cuo_fix* f = &op->patch[k];
                if (f->add) bad++;
                else if (f->tmap && f->field % 128 == 0 && f->field / 128 < 3) mt[f->field / 128] = f->tensor;
                else if (f->field == offsetof(aicf__k_gemm_ws, g) + offsetof(aicf__k_gemv, a)) A_t = f->tensor;
                else if (f->field == offsetof(aicf__k_gemm_ws, g) + offsetof(aicf__k_gemv, b)) B_t = f->tensor;
                else if (f->field == offsetof(aicf__k_gemm_ws, g) + offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y)) D_t = f->tensor;
                else if (f->field == offsetof(aicf__k_gemm_ws, gamma)) G_t = f->tensor;
                else if (f->field == offsetof(aicf__k_gemm_ws, beta)) Be_t = f->tensor;
                else if (f->tmap) bad++;
            }
            /* y is the graph's (float32) output: the boundary Cast after the step is absorbed
               (aicf__cuo_fold_ew_cast): the kernel writes the Cast's float32 output through e.y
               (e.flags 1); Y's tensor map stays on the step's float16 output, unused */
            CHECK(wa.g.e.flags == 1 && si + 1 < p->n_steps && !strcmp(p->steps[si + 1].kernel, "absorbed") &&
                      strstr(p->steps[si + 1].reason, "GEMM + LayerNorm kernel (_y32: register stores), which writes the float32 output") != NULL &&
                      strstr(st->reason, "Cast to f32 folded in") != NULL && !strstr(st->reason, "TMA"),
                  "%s: the output Cast absorbed (e.flags %d, next step %s; why: %s)", name, (int)wa.g.e.flags,
                  si + 1 < p->n_steps ? p->steps[si + 1].kernel : "none", st->reason);
            CHECK(!bad && A_t == st->in[0] && mt[0] == A_t && B_t == st->in[1] && mt[1] == B_t && si + 1 < p->n_steps &&
                      D_t == p->steps[si + 1].out[0] && mt[2] == st->out[0] && G_t == st->in[2] && Be_t == st->in[3],
                  "%s: patches: maps %d %d %d, A %d B %d D %d, Scale %d (in %d), B %d (in %d), %d unexpected", name, mt[0], mt[1], mt[2], A_t,
                  B_t, D_t, G_t, st->in[2], Be_t, st->in[3], bad);
            {
                char* txt = plan_text(p);
                char line[64];
                snprintf(line, sizeof line, "  epilogue-layernorm node=%d in=2\n", st->post - 1);
                CHECK(txt && strstr(txt, line) != NULL, "%s: the plan file has '%.40s'", name, line);
                free(txt);
            }
            tmap_plan_file(p, g, ctx, si, want, mt, 3, name);
            CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "%s: exec create: %s", name, aicf_last_error(ctx));
            aicf_exec_destroy(e);
        }
        if (g_fail == fails) printf("ok   %s: %s\n", name, TC[q].fuse ? want : "not fused");
    done:
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    next:
        aicf_context_destroy(ctx);
        free(w), free(b), free(ga), free(be);
    }
    fd.set_device(1, 9, 0);
    fd.set_tmap(1);
    fake_exec_close(&fd);
}

/* The LayerNorm epilogue's clusters against what the device holds at once (the fake's
   cuOccupancyMaxActiveClusters, asked at plan time: aicf__cuda_cluster_cap): the clusters capped
   to the resident count, no fusion where none fits, the SM count's bound where the query fails. */
static void test_ln_epi_clusters(const char* path) {
    static const struct {
        int64_t M, K, N;
        int cap_size, cap, fail; /* clusters of cap_size CTAs: cap resident (-1: 132 / size); fail: the query errs */
        const char* kernel;      /* NULL: not fused */
        unsigned grid0, grid1, q_size;
    } TC[] = {
        {4096, 384, 384, 2, -1, 0, "aicf_gemm_wsln_f16_64x192_c2", 128, 1, 2},  /* the encoder's o at batch 32: 64 clusters of 2, 66 fit */
        {4096, 384, 384, 2, 60, 0, "aicf_gemm_wsln_f16_64x192_c2", 120, 1, 2},  /* 60 fit: 60 clusters walk the 64 row blocks */
        {8300, 448, 768, 4, 30, 0, "aicf_gemm_wsln_f16_64x192_c4", 120, 1, 4},  /* 130 row blocks: 30 clusters of 4 (an H100), not 33 */
        {8300, 448, 768, 4, -1, 0, "aicf_gemm_wsln_f16_64x192_c4", 132, 1, 4},  /* 33 fit: 33 clusters */
        {8300, 448, 768, 4, 30, 1, "aicf_gemm_wsln_f16_64x192_c4", 132, 1, 0},  /* the query fails: the SMs bound them */
        {2100, 1000, 384, 2, 40, 0, "aicf_gemm_wsln_f16_64x192_c2", 66, 1, 2},  /* 33 row blocks: 33 clusters < 40 */
        {4096, 1000, 384, 2, 40, 0, "aicf_gemm_wsln_f16_64x192_c2", 80, 1, 2},  /* 64 row blocks on the 40 that fit */
        {4096, 1000, 384, 2, 0, 0, NULL, 0, 0, 2},                              /* none fits: the LayerNorm a step of its own */
    };
    fake_exec_dev fd;
    void (*set_clusters)(int, int) = NULL;
    void (*cluster_query)(unsigned*) = NULL;
    void* sym;
    int q;
    if (!fake_hopper_open(path, "LayerNorm epilogue clusters", &fd)) return;
    sym = dlsym(fd.h, "fakecuda_set_clusters"), memcpy(&set_clusters, &sym, sizeof sym);
    sym = dlsym(fd.h, "fakecuda_cluster_query"), memcpy(&cluster_query, &sym, sizeof sym);
    if (!set_clusters || !cluster_query) {
        printf("SKIP LayerNorm epilogue clusters: the fake driver lacks fakecuda_set_clusters / _cluster_query\n");
        g_skip++;
        fake_exec_close(&fd);
        return;
    }
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        const int64_t M = TC[q].M, K = TC[q].K, N = TC[q].N;
        int64_t i;
        int si, ln_steps = 0, fails = g_fail;
        unsigned last[3] = {0, 0, 0};
        aicf_context* ctx;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        float *w = (float*)malloc(sizeof(float) * (size_t)(K * N)), *b = (float*)malloc(sizeof(float) * (size_t)N);
        float *ga = (float*)malloc(sizeof(float) * (size_t)N), *be = (float*)malloc(sizeof(float) * (size_t)N);
        char name[160];
        snprintf(name, sizeof name, "LayerNorm epilogue clusters M=%lld K=%lld N=%lld, %d clusters of %d fit%s", (long long)M, (long long)K,
                 (long long)N, TC[q].cap, TC[q].cap_size, TC[q].fail ? ", the query fails" : "");
        fd.set_device(1, 9, 0);
        fd.set_tmap(1);
        fd.reset();
        set_clusters(TC[q].cap_size, TC[q].cap);
        if (TC[q].fail) fd.fail("cuOccupancyMaxActiveClusters", 1, 0);
        ctx = hopper_ctx(path, 0);
        if (!ctx || !w || !b || !ga || !be) {
            CHECK(0, "%s: context / memory", name);
            goto next;
        }
        for (i = 0; i < K * N; i++) w[i] = rndf(-0.1f, 0.1f);
        for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f), ga[i] = rndf(0.5f, 1.5f), be[i] = rndf(-0.5f, 0.5f);
        g = lne_graph(ctx, M, K, N, 1, 1, 1, 1e-5f, w, b, ga, be, name);
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = AICF_PRECISION_FP16;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS && p, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        if (!p) goto done;
        cluster_query(last);
        si = lnf_step(p, "mm");
        ln_steps = lne_ln_steps(p);
        CHECK(si >= 0, "%s: a step of MatMul 'mm'", name);
        if (si < 0) goto done;
        if (!TC[q].kernel) {
            CHECK(p->steps[si].post == 0 && ln_steps == 1 && !strstr(p->steps[si].kernel, "wsln"),
                  "%s: not fused (post %d, %d LayerNorm steps, kernel %s)", name, p->steps[si].post, ln_steps, p->steps[si].kernel);
        } else {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op = pr && pr->n_ops == 1 ? aicf__cuo_prog_ops(pr) : NULL;
            aicf_exec* e = NULL;
            char want[64];
            snprintf(want, sizeof want, "%s_y32", TC[q].kernel); /* y is the graph output: its Cast absorbed, the float32 form */
            CHECK(st->post > 0 && ln_steps == 0 && op && !strcmp(st->kernel, want), "%s: fused into one launch of %s (got %s)", name, want,
                  st->kernel);
            if (!op) goto done;
            CHECK(op->grid[0] == TC[q].grid0 && op->grid[1] == TC[q].grid1 && op->grid[2] == 1 && op->block[0] == 256,
                  "%s: grid %u,%u,%u (want %u,%u,1)", name, op->grid[0], op->grid[1], op->grid[2], TC[q].grid0, TC[q].grid1);
            /* the query was made with the launch's threads, shared memory and cluster size */
            CHECK(TC[q].q_size == 0 || (last[0] == 256 && last[1] == op->shared_bytes && last[2] == TC[q].q_size),
                  "%s: the last cluster query: %u threads, %u shared bytes, clusters of %u (want 256, %u, %u)", name, last[0], last[1],
                  last[2], op->shared_bytes, TC[q].q_size);
            CHECK(aicf_exec_create(p, NULL, &e) == AICF_SUCCESS, "%s: exec create: %s", name, aicf_last_error(ctx));
            aicf_exec_destroy(e);
        }
        if (g_fail == fails) printf("ok   %s: %s, grid %u x %u\n", name, TC[q].kernel ? TC[q].kernel : "not fused", TC[q].grid0, TC[q].grid1);
    done:
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    next:
        aicf_context_destroy(ctx);
        free(w), free(b), free(ga), free(be);
    }
    fd.reset();
    set_clusters(0, 0);
    fd.set_device(1, 9, 0);
    fd.set_tmap(1);
    fake_exec_close(&fd);
}

static aicf_graph* ws_gelu_graph(aicf_context* ctx, int64_t M, int64_t K, int64_t N, const char* approximate) {
    static float w[64 * 1152], b[1152], w2[1152 * 16];
    int64_t xd[2] = {M, K}, wd[2] = {K, N}, bd[1] = {N}, w2d[2] = {N, 16};
    aicf_graph* g = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_attr at[1];
    const char *in[2] = {"x", "W"}, *out[1] = {"m"}, *ain[2] = {"m", "bias"}, *aout[1] = {"h"}, *gin[1] = {"h"}, *gout[1] = {"g"},
               *min_[2] = {"g", "W2"}, *mout[1] = {"y"};
    int i;
    for (i = 0; i < 64 * 1152; i++) w[i] = rndf(-0.2f, 0.2f);
    for (i = 0; i < 1152; i++) b[i] = rndf(-0.5f, 0.5f);
    for (i = 0; i < 1152 * 16; i++) w2[i] = rndf(-0.2f, 0.2f);
    aicf_graph_create(ctx, &g);
    aicf_graph_set_opset(g, "", 20);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.name = "x", td.rank = 2, td.dims = xd;
    aicf_graph_add_input(g, &td);
    td.name = "W", td.dims = wd, td.data = w, td.data_bytes = sizeof(float) * (size_t)(K * N);
    aicf_graph_add_constant(g, &td);
    td.name = "bias", td.rank = 1, td.dims = bd, td.data = b, td.data_bytes = sizeof(float) * (size_t)N;
    aicf_graph_add_constant(g, &td);
    td.name = "W2", td.rank = 2, td.dims = w2d, td.data = w2, td.data_bytes = sizeof(float) * (size_t)(N * 16);
    aicf_graph_add_constant(g, &td);
    memset(&nd, 0, sizeof nd);
    memset(at, 0, sizeof at);
    nd.name = "mm", nd.op_type = "MatMul", nd.inputs = in, nd.num_inputs = 2, nd.outputs = out, nd.num_outputs = 1;
    aicf_graph_add_node(g, &nd);
    nd.name = "bias_add", nd.op_type = "Add", nd.inputs = ain, nd.outputs = aout;
    aicf_graph_add_node(g, &nd);
    at[0].name = "approximate", at[0].type = AICF_ATTR_STRING, at[0].s = approximate;
    nd.name = "gelu", nd.op_type = "Gelu", nd.inputs = gin, nd.num_inputs = 1, nd.outputs = gout, nd.attrs = at, nd.num_attrs = 1;
    aicf_graph_add_node(g, &nd);
    nd.name = "mm2", nd.op_type = "MatMul", nd.inputs = min_, nd.num_inputs = 2, nd.outputs = mout, nd.attrs = NULL, nd.num_attrs = 0;
    aicf_graph_add_node(g, &nd);
    aicf_graph_add_output(g, "y");
    return g;
}

static void test_gemm_ws(const char* path) {
    static const struct { int gemm; int64_t bt, S, K, N; float alpha; int algo, prec, cc, tmap, lt; } TC[] = {
        /* gemm 0 ws_test_graph, 1 Gemm transB, 2 gemm_test_graph's MatMul; algo 0 AUTO, 1 GENERATED, 2 CUBLASLT;
           prec 1 fp16, 0 fp32; cc 90 or 89; lt: the fake cuBLASLt loaded */
        {0, 32, 128, 384, 1536, 1.0f, 0, 1, 90, 1, 0}, /* the batch-32 encoder's f1 shape: 128 x 192, 132 of 256 tiles */
        {0, 32, 128, 1536, 384, 1.0f, 0, 1, 90, 1, 0}, /* its f2: 128 x 128, 96 tiles */
        {0, 8, 150, 72, 200, 1.0f, 0, 1, 90, 1, 0},    /* M = 1200, N = 200, K = 72: partial tiles and slab */
        {0, 8, 128, 64, 512, 1.0f, 1, 1, 90, 1, 1},    /* GENERATED with cuBLASLt loaded: this kernel */
        {2, 8, 128, 64, 512, 1.0f, 0, 1, 90, 1, 0},    /* MatMul + bias, Tanh, + residual: a chain the kernel does not take */
        {0, 8, 128, 64, 512, 1.0f, 0, 1, 90, 1, 1},    /* AUTO with cuBLASLt loaded, no Gelu: 32 tiles of 128 x 128, cuBLASLt */
        {0, 32, 128, 384, 1152, 1.0f, 0, 1, 90, 1, 1}, /* the same at the batch-32 encoder's qkv (3.6 GFLOP, 288 tiles): this kernel */
        {0, 32, 128, 1536, 768, 1.0f, 0, 1, 90, 1, 1}, /* the same over 4 GFLOP (9.7): cuBLASLt */
        {0, 8, 128, 64, 512, 1.0f, 2, 1, 90, 1, 1},    /* CUBLASLT */
        {0, 8, 128, 64, 512, 1.0f, 0, 0, 90, 1, 0},    /* float32 */
        {0, 8, 128, 64, 512, 1.0f, 0, 1, 89, 1, 0},    /* compute capability 8.9 */
        {0, 8, 128, 64, 512, 1.0f, 0, 1, 90, 0, 0},    /* a driver without cuTensorMapEncodeTiled */
        {0, 7, 128, 64, 512, 1.0f, 0, 1, 90, 1, 0},    /* M = 896 */
        {1, 1, 1024, 64, 512, 1.0f, 0, 1, 90, 1, 0},   /* Gemm transB: B [N, K] */
    };
    fake_exec_dev fd;
    int q;
    if (!fake_hopper_open(path, "Hopper ws GEMM", &fd)) return;
    void (*set_tmap)(int) = fd.set_tmap;
    void (*keep_args)(const char*, size_t) = fd.keep_args;
    const unsigned char* (*kept_args)(int*) = fd.kept_args;
    void (*reset)(void) = fd.reset;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        int64_t M = TC[q].bt * TC[q].S, K = TC[q].K, N = TC[q].N, sm, optin, stages = 0, tiles = 0;
        int i, si, found = 0, ref_ok = 0, bn = 0, want_ws, small = M * N * K <= 40000000;
        unsigned smem_want = 0;
        aicf_context* ctx;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_exec* e = NULL;
        aicf_plan_desc pd;
        float *x = (float*)malloc(sizeof(float) * (size_t)(M * K)), *w = (float*)malloc(sizeof(float) * (size_t)(K * N));
        float *b = (float*)malloc(sizeof(float) * (size_t)N), *res = (float*)malloc(sizeof(float) * (size_t)(M * N));
        float *ref = (float*)malloc(sizeof(float) * (size_t)(M * N)), *got = (float*)malloc(sizeof(float) * (size_t)(M * N));
        char name[160], want[64];
        fd.set_device(1, TC[q].cc / 10, TC[q].cc % 10);
        set_tmap(TC[q].tmap);
        ctx = hopper_ctx(path, TC[q].lt);
        snprintf(name, sizeof name, "Hopper ws GEMM %s M=%lld N=%lld K=%lld [%s %s, cc %d.%d%s%s]",
                 TC[q].gemm == 1 ? "Gemm transB" : TC[q].gemm == 2 ? "MatMul bias Tanh residual" : "MatMul bias residual Relu",
                 (long long)M, (long long)N, (long long)K, TC[q].algo == 0 ? "AUTO" : TC[q].algo == 1 ? "GENERATED" : "CUBLASLT",
                 TC[q].prec ? "fp16" : "fp32", TC[q].cc / 10, TC[q].cc % 10, TC[q].tmap ? "" : ", no cuTensorMapEncodeTiled",
                 TC[q].lt ? ", cuBLASLt loaded" : "");
        if (!ctx) {
            CHECK(0, "%s: context", name);
            goto next;
        }
        sm = ctx->cuda && ctx->cuda->sm_count > 0 ? ctx->cuda->sm_count : 132;
        optin = ctx->cuda && ctx->cuda->max_smem_optin > 0 ? ctx->cuda->max_smem_optin : 232448;
        /* AUTO with cuBLASLt loaded (no erf Gelu here): at most 4 GFLOP (aicf__cuo_ws_wanted) and a
           full wave of 128 x 128 tiles (aicf__cuo_lower_gemm_ws) */
        want_ws = (TC[q].algo == 1 || (TC[q].algo == 0 && !TC[q].lt) ||
                   (TC[q].algo == 0 && 2.0 * (double)M * (double)N * (double)K <= 4.0e9 && ((M + 127) / 128) * ((N + 127) / 128) >= sm)) &&
                  TC[q].prec && TC[q].cc == 90 && TC[q].tmap && !TC[q].gemm && M >= 1024 &&
                  ws_pick(M, N, sm, optin, &bn, &tiles, &stages, &smem_want);
        snprintf(want, sizeof want, "aicf_gemm_ws_f16_128x%d", bn);
        for (i = 0; i < M * K; i++) x[i] = rndf(-1, 1);
        for (i = 0; i < K * N; i++) w[i] = rndf(-0.3f, 0.3f);
        for (i = 0; i < N; i++) b[i] = rndf(-0.5f, 0.5f);
        for (i = 0; i < M * N; i++) res[i] = rndf(-1, 1);
        g = TC[q].gemm ? gemm_test_graph(ctx, TC[q].gemm == 1, TC[q].bt, TC[q].S, K, N, TC[q].alpha, x, w, b, res, NULL, &ref_ok, name)
                       : ws_test_graph(ctx, TC[q].bt, TC[q].S, K, N, x, w, b, res, want_ws && small ? ref : NULL, &ref_ok, name);
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = TC[q].prec ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        pd.policy.matmul_algo = TC[q].algo == 0 ? AICF_MATMUL_AUTO : TC[q].algo == 1 ? AICF_MATMUL_GENERATED : AICF_MATMUL_CUBLASLT;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        for (si = 0; p && si < p->n_steps; si++) {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op;
            aicf__k_gemm_ws wa;
            aicf__tmap_req ra, rb, rc;
            const float* src_of[AICF__EW_MAX_OPS];
            int e2, bad = 0, A_t = -1, B_t = -1, D_t = -1, TA_t = -1, TB_t = -1, TC_t = -1;
            int64_t m, n, kk;
            if (strncmp(st->kernel, "aicf_gemm_ws_", 13) != 0) continue;
            found++;
            CHECK(pr && pr->n_ops == 1 && st->epi_native == st->n_epi && !strcmp(st->kernel, want),
                  "%s: one launch of %s, the epilogue inside (got %s, %d of %d)", name, want, st->kernel, st->epi_native, st->n_epi);
            if (!pr || pr->n_ops != 1) continue;
            op = aicf__cuo_prog_ops(pr);
            memcpy(&wa, op->args, sizeof wa);
            memcpy(&ra, wa.ta, sizeof ra);
            memcpy(&rb, wa.tb, sizeof rb);
            memcpy(&rc, wa.tc, sizeof rc);
            CHECK(op->args_size == 1344 && op->block[0] == 384 && op->block[1] == 1 && op->grid[0] == (unsigned)(tiles < sm ? tiles : sm) &&
                      op->grid[1] == 1 && op->grid[2] == 1 && op->shared_bytes == smem_want,
                  "%s: launch grid %u,%u,%u block %u shared %u (want %u) args %u", name, op->grid[0], op->grid[1], op->grid[2], op->block[0],
                  op->shared_bytes, smem_want, op->args_size);
            CHECK(wa.g.M == M && wa.g.N == N && wa.g.K == K && wa.g.lda == K && wa.g.ldb == N && wa.g.alpha == TC[q].alpha &&
                      wa.g.e.n == M * N && wa.g.e.n_ops == 3 && wa.g.flags == (int32_t)(stages << 8),
                  "%s: arguments M %lld N %lld K %lld ops %d flags 0x%x (want %lld stages << 8)", name, (long long)wa.g.M, (long long)wa.g.N,
                  (long long)wa.g.K, wa.g.e.n_ops, (unsigned)wa.g.flags, (long long)stages);
            CHECK(ra.magic == AICF__TMAP_MAGIC && ra.swizzle == 3 && ra.box[0] == 64 && ra.box[1] == 128 && ra.dims[0] == (uint64_t)K &&
                      ra.dims[1] == (uint64_t)M && ra.stride1 == (uint64_t)K * 2 && rb.magic == AICF__TMAP_MAGIC && rb.swizzle == 3 &&
                      rb.box[0] == 64 && rb.box[1] == 64 && rb.dims[0] == (uint64_t)N && rb.dims[1] == (uint64_t)K &&
                      rb.stride1 == (uint64_t)N * 2 && rc.magic == AICF__TMAP_MAGIC && rc.swizzle == 3 && rc.box[0] == 64 &&
                      rc.box[1] == 128 && rc.dims[0] == (uint64_t)N && rc.dims[1] == (uint64_t)M && rc.stride1 == (uint64_t)N * 2,
                  "%s: tensor map requests: A box %u x %u dims %llu x %llu; B box %u x %u dims %llu x %llu; Y box %u x %u dims %llu x %llu",
                  name, ra.box[0], ra.box[1], (unsigned long long)ra.dims[0], (unsigned long long)ra.dims[1], rb.box[0], rb.box[1],
                  (unsigned long long)rb.dims[0], (unsigned long long)rb.dims[1], rc.box[0], rc.box[1], (unsigned long long)rc.dims[0],
                  (unsigned long long)rc.dims[1]);
            {
                int mt[3] = {-1, -1, -1};
                bad = hopper_patches(p, op, offsetof(aicf__k_gemm_ws, g), mt, 3, &A_t, &B_t, &D_t, src_of, b, res);
                TA_t = mt[0], TB_t = mt[1], TC_t = mt[2];
            }
            CHECK(!bad && A_t == st->in[0] && TA_t == A_t && B_t >= 0 && TB_t == B_t && !strcmp(p->g->tensors[B_t].name, "W") &&
                      D_t == st->out[0] && TC_t == D_t,
                  "%s: patches: maps of %d, %d and %d, A %d (in %d) B %d D %d (out %d) (%d unexpected)", name, TA_t, TB_t, TC_t, A_t,
                  st->in[0], B_t, D_t, st->out[0], bad);
            {
                const int mt[3] = {A_t, B_t, D_t};
                tmap_plan_file(p, g, ctx, si, want, mt, 3, name);
            }
            keep_args("aicf_gemm_ws_", 384);
            if (aicf_exec_create(p, NULL, &e) == AICF_SUCCESS) {
                int nk = 0;
                const unsigned char* kept = kept_args(&nk);
                uint64_t wa_[16], wb_[16], wc_[16], pa = 0, pb = 0, pc = 0;
                memcpy(wa_, kept, 128);
                memcpy(wb_, kept + 128, 128);
                memcpy(wc_, kept + 256, 128);
                aicf__cuda_exec_device_ptr(e, A_t, &pa);
                aicf__cuda_exec_device_ptr(e, B_t, &pb);
                aicf__cuda_exec_device_ptr(e, D_t, &pc);
                CHECK(nk == 1 && pa && pb && pc && wa_[6] == 0x4d544b46u && wb_[6] == 0x4d544b46u && wc_[6] == 0x4d544b46u &&
                          wa_[0] == pa && wb_[0] == pb && wc_[0] == pc && wa_[1] == ra.dims[0] && wa_[2] == ra.dims[1] &&
                          wa_[3] == ra.stride1 && wa_[4] == (64u | (128ull << 32)) && wa_[5] == (3u | 6u << 8 | 2u << 16) &&
                          wb_[1] == rb.dims[0] && wb_[2] == rb.dims[1] && wb_[4] == (64u | (64ull << 32)) && wc_[1] == rc.dims[0] &&
                          wc_[2] == rc.dims[1] && wc_[3] == rc.stride1 && wc_[4] == (64u | (128ull << 32)) && wc_[5] == (3u | 6u << 8 | 2u << 16),
                      "%s: exec: the encoded tensor maps (nodes %d; Y at 0x%llx, map 0x%llx)", name, nk, (unsigned long long)pc,
                      (unsigned long long)wc_[0]);
                aicf_exec_destroy(e);
                e = NULL;
            } else {
                CHECK(0, "%s: exec create: %s", name, aicf_last_error(ctx));
            }
            keep_args(NULL, 0);
            if (!ref_ok) continue;
            for (m = 0; m < M; m++) /* the argument struct on the host, from float16-rounded inputs */
                for (n = 0; n < N; n++) {
                    float acc = 0.0f, val;
                    int64_t i2 = m * N + n;
                    for (kk = 0; kk < K; kk++) acc += h16(x[m * wa.g.lda + kk]) * h16(w[kk * wa.g.ldb + n]);
                    val = acc * wa.g.alpha;
                    for (e2 = 0; e2 < wa.g.e.n_ops; e2++) {
                        const aicf__k_ew_op* o = &wa.g.e.ops[e2];
                        if (o->code == 1) val = val > 0.0f ? val : 0.0f;
                        else if (o->code == 101 && src_of[e2]) {
                            float u = h16(gv_src(&o->src, wa.g.e.dims, i2, src_of[e2]));
                            val = o->left ? u + val : val + u;
                        } else val = NAN;
                    }
                    got[i2] = h16(val);
                }
            CHECK(rel_l2(got, ref, (size_t)(M * N)) <= 2e-3, "%s: emulated ws GEMM vs CPU reference rel err %.3g", name,
                  rel_l2(got, ref, (size_t)(M * N)));
        }
        CHECK(found == want_ws, "%s: %d ws GEMM steps, expected %d%s%s", name, found, want_ws, want_ws ? ": " : "", want_ws ? want : "");
        if (found == want_ws) printf("ok   %s: %s\n", name, want_ws ? want : "not the ws GEMM");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    next:
        aicf_context_destroy(ctx);
        free(x), free(w), free(b), free(res), free(ref), free(got);
    }
    /* the AUTO rule with cuBLASLt loaded: the erf-form Gelu takes the ws GEMM (the Gelu inside)
       where the 128 x 128 tiles fill a wave (2048 x 1152: 144), the tanh form, the policy's
       gelu_tanh and fewer tiles (1024 x 1152: 72) cuBLASLt */
    fd.set_device(1, 9, 0);
    set_tmap(1);
    for (q = 0; q < 4; q++) {
        const int erf = q != 1, pol = q == 2, m1024 = q == 3, want_ws = erf && !pol && !m1024;
        aicf_context* ctx = fake_lt_ctx(path);
        aicf_graph* g = ctx ? ws_gelu_graph(ctx, m1024 ? 1024 : 2048, 64, 1152, erf ? "none" : "tanh") : NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        char* txt = NULL;
        size_t need = 0;
        int si, found = 0, inside = 0;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = AICF_PRECISION_FP16;
        pd.policy.gelu_tanh = pol;
        CHECK(g && aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "ws Gelu rule %d: plan (%s)", q, ctx ? aicf_last_error(ctx) : "no context");
        for (si = 0; p && si < p->n_steps; si++)
            if (!strncmp(p->steps[si].kernel, "aicf_gemm_ws_f16_128x192", 24)) {
                found++;
                inside += p->steps[si].epi_native == p->steps[si].n_epi && p->steps[si].n_epi == 2;
            }
        if (p && aicf_plan_format(p, NULL, 0, &need) == AICF_SUCCESS && (txt = (char*)malloc(need)) != NULL)
            aicf_plan_format(p, txt, need, NULL);
        CHECK(found == want_ws && inside == want_ws && (!want_ws || (txt && strstr(txt, "erf-form Gelu"))),
              "ws Gelu rule: Gelu %s%s at M = %d: %d ws GEMM steps (%d with bias and Gelu inside), expected %d:\n%s", erf ? "none" : "tanh",
              pol ? ", policy gelu_tanh" : "", m1024 ? 1024 : 2048, found, inside, want_ws, txt ? txt : "");
        if (found == want_ws && inside == want_ws)
            printf("ok   ws Gelu rule: Gelu %s%s at M = %d: %s\n", erf ? "none" : "tanh", pol ? ", policy gelu_tanh" : "", m1024 ? 1024 : 2048,
                   want_ws ? "the ws GEMM with bias and Gelu inside" : "cuBLASLt");
        free(txt);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        aicf_context_destroy(ctx);
    }
    set_tmap(0);
    reset();
    fake_exec_close(&fd);
}

/* The persistent GEMV chain (aicf_gemvp_*): a float32 MLP of 2..5 Linear layers (Gemm transB,
   bias, Relu on all but the last) at M = 1..8 plans as one launch; its argument struct is
   emulated on the host block by block and layer by layer as the kernel runs it (each block's
   columns from `rows`, layer l > 0 reading A only from the hand-off words layer l - 1 wrote into
   the sync region, tags checked) against the CPU reference. Also checked: at most one block per
   SM and every block owning a column of layer 0 (the epoch rule), the weight rows and the A
   staging inside the launch's shared memory and apart, the hand-off buffers inside the plan's
   sync region and apart, the sync patch. */
static void test_gemvp(aicf_context* ctx) {
    int q;
    for (q = 0; q < 8; q++) {
        int L = 2 + q % 4, l, i, si, found = 0, sync_patch = 0;
        int64_t M = 1 + (q * 5) % 8, dim[6];
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_tensor_desc td;
        aicf_node_desc nd;
        aicf_attr at[1];
        float* wbuf[5];
        float* cbuf[5];
        float *x, *ref = NULL, *out = NULL;
        size_t nref = 0;
        char name[64], tn[6][16], wn[5][8], cn[5][8], hn[5][16], rn[5][16], gn[5][8], an[5][8];
        for (l = 0; l <= L; l++) dim[l] = 8 * (1 + (int64_t)((q * 7 + l * 3) % 9)); /* multiples of 8: 16-byte rows */
        snprintf(name, sizeof name, "gemvp L=%d M=%lld", L, (long long)M);
        x = (float*)malloc(sizeof(float) * (size_t)(M * dim[0]));
        for (i = 0; i < M * dim[0]; i++) x[i] = rndf(-1, 1);
        CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "%s: graph", name);
        aicf_graph_set_opset(g, "", 17);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        {
            int64_t xd[2];
            xd[0] = M, xd[1] = dim[0];
            td.name = "x", td.rank = 2, td.dims = xd;
            aicf_graph_add_input(g, &td);
        }
        snprintf(tn[0], sizeof tn[0], "x");
        memset(at, 0, sizeof at);
        at[0].name = "transB", at[0].type = AICF_ATTR_INT, at[0].i = 1;
        for (l = 0; l < L; l++) {
            int64_t wd[2], cd[1];
            const char* gin[3];
            const char *gout[1], *rin[1], *rout[1];
            wd[0] = dim[l + 1], wd[1] = dim[l], cd[0] = dim[l + 1];
            wbuf[l] = (float*)malloc(sizeof(float) * (size_t)(wd[0] * wd[1]));
            cbuf[l] = (float*)malloc(sizeof(float) * (size_t)cd[0]);
            for (i = 0; i < wd[0] * wd[1]; i++) wbuf[l][i] = rndf(-0.4f, 0.4f);
            for (i = 0; i < cd[0]; i++) cbuf[l][i] = rndf(-0.5f, 0.5f);
            snprintf(wn[l], sizeof wn[l], "W%d", l);
            snprintf(cn[l], sizeof cn[l], "C%d", l);
            snprintf(hn[l], sizeof hn[l], "h%d", l);
            snprintf(rn[l], sizeof rn[l], l == L - 1 ? "y" : "r%d", l);
            snprintf(gn[l], sizeof gn[l], "g%d", l);
            snprintf(an[l], sizeof an[l], "a%d", l);
            td.name = wn[l], td.rank = 2, td.dims = wd, td.data = wbuf[l], td.data_bytes = sizeof(float) * (size_t)(wd[0] * wd[1]);
            aicf_graph_add_constant(g, &td);
            td.name = cn[l], td.rank = 1, td.dims = cd, td.data = cbuf[l], td.data_bytes = sizeof(float) * (size_t)cd[0];
            aicf_graph_add_constant(g, &td);
            gin[0] = tn[l], gin[1] = wn[l], gin[2] = cn[l];
            gout[0] = l == L - 1 ? rn[l] : hn[l];
            memset(&nd, 0, sizeof nd);
            nd.name = gn[l], nd.op_type = "Gemm", nd.inputs = gin, nd.num_inputs = 3, nd.outputs = gout, nd.num_outputs = 1;
            nd.attrs = at, nd.num_attrs = 1;
            aicf_graph_add_node(g, &nd);
            if (l < L - 1) {
                rin[0] = hn[l], rout[0] = rn[l];
                memset(&nd, 0, sizeof nd);
                nd.name = an[l], nd.op_type = "Relu", nd.inputs = rin, nd.num_inputs = 1, nd.outputs = rout, nd.num_outputs = 1;
                aicf_graph_add_node(g, &nd);
            }
            snprintf(tn[l + 1], sizeof tn[l + 1], "%s", rn[l]);
        }
        CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "%s: graph builds: %s", name, aicf_last_error(ctx));
        {
            aicf_plan* cp = plan_of(g, AICF_BACKEND_CPU, AICF_PRECISION_FP32, AICF_CONV_AUTO);
            aicf_exec* ce = NULL;
            if (cp && aicf_exec_create(cp, NULL, &ce) == AICF_SUCCESS &&
                aicf_exec_set_input(ce, 0, x, sizeof(float) * (size_t)(M * dim[0])) == AICF_SUCCESS && aicf_exec_run(ce) == AICF_SUCCESS) {
                nref = (size_t)(M * dim[L]);
                ref = (float*)malloc(sizeof(float) * nref);
                if (aicf_exec_get_output(ce, 0, ref, sizeof(float) * nref) != AICF_SUCCESS) nref = 0;
            }
            aicf_exec_destroy(ce);
            aicf_plan_destroy(cp);
        }
        {
            aicf_plan_desc pd;
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = AICF_PRECISION_FP32;
            pd.policy.persistent = 1; /* the whole run in one launch */
            CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        }
        for (si = 0; p && si < p->n_steps; si++) {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op;
            aicf__k_gemvp a;
            unsigned char *arena, *weights;
            unsigned char* addr[AICF__CUO_MAX_PATCH];
            unsigned char* sync;
            uint64_t sync_add = 0;
            size_t sync_bytes = ((const aicf__cuda_plan_data*)p->backend)->sync_bytes;
            int64_t G;
            int k, bad = 0, mt = 1;
            if (strncmp(st->kernel, "aicf_gemvp_f32_m", 16) != 0) {
                CHECK(st->kernel[0] && !strcmp(st->kernel, "persistent"), "%s: step %d outside the persistent launch: %s", name, si,
                      st->kernel);
                continue;
            }
            found++;
            while (mt < M) mt *= 2;
            CHECK(si == 0 && pr && pr->n_ops == 1 && atoi(st->kernel + 16) == mt, "%s: step %d kernel %s", name, si, st->kernel);
            if (!pr || pr->n_ops != 1) continue;
            op = aicf__cuo_prog_ops(pr);
            memcpy(&a, op->args, sizeof a);
            CHECK(a.n_layers == L && op->grid[0] >= 1 && (int)op->grid[0] <= 132 && op->block[0] == 256 &&
                      op->args_size == sizeof a,
                  "%s: %d layers, grid %u (fake device: 132 SMs), block %u", name, a.n_layers, op->grid[0], op->block[0]);
            G = op->grid[0];
            CHECK(op->shared_bytes == st->shared_bytes && a.x_smem <= op->shared_bytes && op->shared_bytes <= 227 * 1024,
                  "%s: shared memory %u (step %u), A staging at %u", name, op->shared_bytes, st->shared_bytes, a.x_smem);
            sync = (unsigned char*)calloc(sync_bytes + 16, 1);
            G = op->grid[0];
            CHECK(op->shared_bytes == st->shared_bytes && a.x_smem <= op->shared_bytes && op->shared_bytes <= 227 * 1024,
                  "%s: shared memory %u (step %u), A staging at %u", name, op->shared_bytes, st->shared_bytes, a.x_smem);
            sync = (unsigned char*)calloc(sync_bytes + 16, 1);
            arena = (unsigned char*)calloc(p->arena_bytes + 16, 1);
            weights = (unsigned char*)calloc(p->weights_bytes + 16, 1);
            for (i = 0; i < p->g->n_tensors; i++)
                if (p->loc[i].space == AICF__SPACE_WEIGHTS && p->g->tensors[i].data)
                    memcpy(weights + p->loc[i].offset, p->g->tensors[i].data, p->loc[i].bytes);
            memcpy(arena + p->loc[p->in_boundary[0]].offset, x, sizeof(float) * (size_t)(M * dim[0]));
            for (k = 0; k < op->n_patch; k++) {
                const aicf__cuo_fix* f = &op->patch[k];
                addr[k] = NULL;
                if (f->tensor == AICF__CUO_SYNC) {
                    sync_patch += f->field == offsetof(aicf__k_gemvp, sync);
                    sync_add = f->add;
                    continue;
                }
                if (f->tensor < 0) {
                    bad++;
                    continue;
                }
                addr[k] = (p->loc[f->tensor].space == AICF__SPACE_WEIGHTS ? weights : arena) + p->loc[f->tensor].offset + f->add;
            }
            CHECK(!bad && sync_patch == 1 && sync_add % 256 == 0 && sync_add + 16 <= sync_bytes, "%s: patches (sync region %d at %llu of %llu)",
                  name, sync_patch, (unsigned long long)sync_add, (unsigned long long)sync_bytes);
            /* the layers in order, as the kernel runs them between its barriers */
            for (l = 0; l < a.n_layers && l < AICF__GEMVP_MAX_LAYERS && !bad; l++) {
                const aicf__k_gemvp_layer* ly = &a.l[l];
                size_t base = offsetof(aicf__k_gemvp, l) + (size_t)l * sizeof(aicf__k_gemvp_layer);
                const float *A = NULL, *B = NULL, *src[AICF__GEMVP_MAX_OPS] = {NULL, NULL, NULL};
                float* Y = NULL;
                int64_t m, n, kk;
                int e;
                for (k = 0; k < op->n_patch; k++) {
                    size_t fld = op->patch[k].field, so = base + offsetof(aicf__k_gemvp_layer, ops);
                    if (!addr[k] || fld < base || fld >= base + sizeof(aicf__k_gemvp_layer)) continue;
                    if (fld == base + offsetof(aicf__k_gemvp_layer, a)) A = (const float*)addr[k];
                    else if (fld == base + offsetof(aicf__k_gemvp_layer, b)) B = (const float*)addr[k];
                    else if (fld == base + offsetof(aicf__k_gemvp_layer, y)) Y = (float*)addr[k];
                    else if (fld >= so && (fld - so) % sizeof(aicf__k_ew_op) == offsetof(aicf__k_ew_op, src))
                        src[(fld - so) / sizeof(aicf__k_ew_op)] = (const float*)addr[k];
                    else bad++;
                }
                CHECK(A && B && Y && !bad && ly->M == M && ly->K == dim[l] && ly->N == dim[l + 1] && ly->n_ops == (l < L - 1 ? 2 : 1) &&
                          ly->flags == 0,
                      "%s: layer %d: A %p B %p D %p, M %lld K %lld N %lld, %d ops, flags %d", name, l, (const void*)A,
                      (const void*)B, (void*)Y, (long long)ly->M, (long long)ly->K, (long long)ly->N, ly->n_ops, ly->flags);
                if (!A || !B || !Y || bad) break;
                /* the launch shape: columns per block cover N; the block's weight rows and the A staging in shared memory */
                CHECK(ly->rows >= 1 && (int64_t)ly->rows * G >= ly->N && (l > 0 || (G - 1) * ly->rows < ly->N) &&
                          ly->w_smem % 16 == 0 && ly->w_smem + (uint64_t)ly->rows * ly->K * 4 <= a.x_smem &&
                          (l == 0 || ly->w_smem >= a.l[l - 1].w_smem + (uint64_t)a.l[l - 1].rows * a.l[l - 1].K * 4) &&
                          a.x_smem + (uint64_t)M * ly->K * 4 <= op->shared_bytes && ly->e_smem % 16 == 0 &&
                          ly->e_smem + (uint64_t)ly->rows * M * ly->n_ops * 4 <= op->shared_bytes &&
                          ly->e_smem >= (l == 0 ? a.x_smem + (uint64_t)M * ly->K * 4
                                                : a.l[l - 1].e_smem + (uint64_t)a.l[l - 1].rows * M * a.l[l - 1].n_ops * 4),
                      "%s: layer %d: %d columns per block of %lld, weights at %u, A staging at %u, epilogue at %u, shared %u", name, l,
                      ly->rows, (long long)G, ly->w_smem, a.x_smem, ly->e_smem, op->shared_bytes);
                /* hand-off: layer 0 reads A, layer l > 0 the words layer l - 1 wrote; the last writes none */
                CHECK(ly->h_in == (l == 0 ? -1 : a.l[l - 1].h_out) && (ly->h_out >= 0) == (l < a.n_layers - 1) &&
                          (ly->h_out < 0 || (ly->h_out % 16 == 0 && ly->h_out >= 1024 &&
                                             sync_add + ly->h_out + (uint64_t)M * ly->N * 8 <= sync_bytes &&
                                             (l == 0 || ly->h_out >= a.l[l - 1].h_out + M * a.l[l - 1].N * 8))),
                      "%s: layer %d: hand-off in %d, out %d (sync region %llu bytes)", name, l, ly->h_in, ly->h_out,
                      (unsigned long long)sync_bytes);
                if (ly->h_in < -1 || ly->h_out < -1 || (ly->h_out >= 0 && sync_add + ly->h_out + M * ly->N * 8 > sync_bytes) ||
                    (ly->h_in >= 0 && sync_add + ly->h_in + M * ly->K * 8 > sync_bytes))
                    break;
                {
                    int64_t b;
                    for (b = 0; b < G; b++) /* block b's columns, as the kernel splits them */
                        for (n = b * ly->rows; n < (b + 1) * ly->rows && n < ly->N; n++)
                            for (m = 0; m < M; m++) {
                                float v = 0.0f;
                                int64_t i2 = m * ly->N + n;
                                for (kk = 0; kk < ly->K; kk++) {
                                    float av;
                                    if (ly->h_in >= 0) { /* the tagged word: value bits low, tag 1 (the first launch's) high */
                                        uint64_t w;
                                        uint32_t bits;
                                        memcpy(&w, sync + sync_add + ly->h_in + (size_t)(m * ly->K + kk) * 8, 8);
                                        if ((w >> 32) != 1u) bad++;
                                        bits = (uint32_t)w;
                                        memcpy(&av, &bits, 4);
                                    } else {
                                        av = A[m * ly->lda + kk];
                                    }
                                    v += av * B[n * ly->ldb + kk];
                                }
                                v *= ly->alpha;
                                for (e = 0; e < ly->n_ops; e++) {
                                    const aicf__k_ew_op* o = &ly->ops[e];
                                    if (o->code == 1) v = v > 0.0f ? v : 0.0f;
                                    else if (o->code == 101 && src[e]) v += gv_src(&o->src, ly->dims, i2, src[e]);
                                    else v = NAN;
                                }
                                Y[i2] = v;
                                if (ly->h_out >= 0) {
                                    uint32_t bits;
                                    uint64_t w;
                                    memcpy(&bits, &v, 4);
                                    w = (uint64_t)bits | ((uint64_t)1 << 32);
                                    memcpy(sync + sync_add + ly->h_out + (size_t)i2 * 8, &w, 8);
                                }
                            }
                }
                CHECK(!bad, "%s: layer %d read %d hand-off words without the launch's tag", name, l, bad);
                if (l == a.n_layers - 1) out = Y;
            }
            if (out && nref) {
                float* got = (float*)malloc(sizeof(float) * nref);
                memcpy(got, out, sizeof(float) * nref);
                CHECK(rel_l2(got, ref, nref) <= 1e-5, "%s: emulated persistent chain vs CPU reference rel err %.3g", name,
                      rel_l2(got, ref, nref));
                free(got);
            } else {
                CHECK(0, "%s: no output emulated", name);
            }
            free(arena);
            free(weights);
            free(sync);
        }
        CHECK(found == 1, "%s: %d persistent launches, expected 1", name, found);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        for (l = 0; l < L; l++) free(wbuf[l]), free(cbuf[l]);
        free(x), free(ref);
    }
}

/* The persistent GEMV chain is cut where the next layer's weight rows no longer fit a block's
   shared memory (fake device: 227 KB opt-in): a float32 MLP 256 -> 1024 -> 1024 -> 8192 -> 64
   with the policy's persistent plans layers 0-1 as one aicf_gemvp launch (their rows: 8 x 256 and
   8 x 1024 floats a block) and the 1024 -> 8192 layer (64 rows of 1024 floats a block: 256 KB)
   and the last layer as their own GEMV launches. */
static void test_gemvp_smem_cut(aicf_context* ctx) {
    static const int64_t D[5] = {256, 1024, 1024, 8192, 64};
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    aicf_attr at[1];
    aicf_plan_desc pd;
    float* buf[8];
    char nm[6][4][16];
    int l, s, gemvp = 0, gemv = 0, inside = 0, nb = 0;
    int64_t xd[2] = {1, D[0]};
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "gemvp cut: graph");
    aicf_graph_set_opset(g, "", 17);
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.name = "x", td.rank = 2, td.dims = xd;
    aicf_graph_add_input(g, &td);
    memset(at, 0, sizeof at);
    at[0].name = "transB", at[0].type = AICF_ATTR_INT, at[0].i = 1;
    for (l = 0; l < 4; l++) {
        int64_t wd[2], cd[1], i;
        const char* in[3];
        const char* out[1];
        wd[0] = D[l + 1], wd[1] = D[l], cd[0] = D[l + 1];
        snprintf(nm[l][0], 16, "W%d", l), snprintf(nm[l][1], 16, "C%d", l), snprintf(nm[l][2], 16, "h%d", l);
        snprintf(nm[l][3], 16, l == 3 ? "y" : "r%d", l);
        buf[nb] = (float*)malloc(sizeof(float) * (size_t)(wd[0] * wd[1]));
        for (i = 0; i < wd[0] * wd[1]; i++) buf[nb][i] = rndf(-0.05f, 0.05f);
        td.name = nm[l][0], td.rank = 2, td.dims = wd, td.data = buf[nb], td.data_bytes = sizeof(float) * (size_t)(wd[0] * wd[1]);
        aicf_graph_add_constant(g, &td);
        nb++;
        buf[nb] = (float*)malloc(sizeof(float) * (size_t)cd[0]);
        for (i = 0; i < cd[0]; i++) buf[nb][i] = rndf(-0.5f, 0.5f);
        td.name = nm[l][1], td.rank = 1, td.dims = cd, td.data = buf[nb], td.data_bytes = sizeof(float) * (size_t)cd[0];
        aicf_graph_add_constant(g, &td);
        nb++;
        in[0] = l == 0 ? "x" : nm[l - 1][3], in[1] = nm[l][0], in[2] = nm[l][1];
        out[0] = nm[l][2];
        memset(&nd, 0, sizeof nd);
        nd.name = nm[l][2], nd.op_type = "Gemm", nd.inputs = in, nd.num_inputs = 3, nd.outputs = out, nd.num_outputs = 1;
        nd.attrs = at, nd.num_attrs = 1;
        aicf_graph_add_node(g, &nd);
        in[0] = nm[l][2], out[0] = nm[l][3];
        memset(&nd, 0, sizeof nd);
        nd.name = nm[l][3], nd.op_type = "Relu", nd.inputs = in, nd.num_inputs = 1, nd.outputs = out, nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
    }
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "gemvp cut: graph builds: %s", aicf_last_error(ctx));
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = AICF_PRECISION_FP32;
    pd.policy.persistent = 1;
    CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "gemvp cut: plan: %s", aicf_last_error(ctx));
    for (s = 0; p && s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        if (!strncmp(st->kernel, "aicf_gemvp_f32", 14)) {
            const aicf__cuo_op* op = aicf__cuo_prog_ops((aicf__cuo_prog*)st->backend);
            aicf__k_gemvp a;
            memcpy(&a, op->args, sizeof a);
            gemvp++;
            CHECK(s == 0 && a.n_layers == 2 && a.l[1].N == 1024 && op->shared_bytes <= 227 * 1024 - 4096 &&
                      strstr(st->reason, "shared memory") != NULL,
                  "gemvp cut: step %d: %d layers, shared %u: %s", s, a.n_layers, op->shared_bytes, st->reason);
        } else if (!strncmp(st->kernel, "aicf_gemv_f32", 13)) {
            gemv++;
        } else if (!strcmp(st->kernel, "persistent")) {
            inside++;
        }
    }
    CHECK(gemvp == 1 && inside == 1 && gemv == 2, "gemvp cut: %d persistent launches, %d steps inside, %d GEMV launches (expected 1, 1, 2)",
          gemvp, inside, gemv);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    for (l = 0; l < nb; l++) free(buf[l]);
}

/* MaxPool's kernel by rule (src/81_cuda_ops.c aicf__cuo_lower_pool): a 3x3 window on the rows
   kernel (4 output rows per block of 256), other windows on the one-thread-per-output kernel;
   the launch covers every output row. */
static void test_pool_rule(aicf_context* ctx) {
    static const int64_t KS[5][2] = {{3, 3}, {2, 3}, {3, 3}, {3, 3}, {3, 3}};
    static const int64_t ST[5] = {2, 2, 1, 2, 2};
    static const int64_t WS[5] = {70, 77, 84, 72, 44}; /* the last two: W % 4 == 0, OW even (the float16 pair kernel) */
    int k, pr;
    for (k = 0; k < 5; k++)
        for (pr = 0; pr < 2; pr++) {
            aicf_graph* g = NULL;
            aicf_tensor_desc d;
            aicf_node_desc nd;
            aicf_attr at[3];
            aicf_plan_desc pd;
            aicf_plan* p = NULL;
            int64_t xd[4] = {3, 5, 23, WS[k]}, strides[2], pads[4] = {1, 1, 1, 1};
            const char *in[1] = {"x"}, *out[1] = {"y"};
            int s, found = 0;
            strides[0] = strides[1] = ST[k];
            aicf_graph_create(ctx, &g);
            aicf_graph_set_opset(g, "", 17);
            memset(&d, 0, sizeof d);
            d.name = "x";
            d.dtype = AICF_DTYPE_FLOAT32;
            d.rank = 4;
            d.dims = xd;
            aicf_graph_add_input(g, &d);
            memset(&nd, 0, sizeof nd);
            memset(at, 0, sizeof at);
            at[0].name = "kernel_shape";
            at[0].type = AICF_ATTR_INTS;
            at[0].ints = KS[k];
            at[0].count = 2;
            at[1].name = "strides";
            at[1].type = AICF_ATTR_INTS;
            at[1].ints = strides;
            at[1].count = 2;
            at[2].name = "pads";
            at[2].type = AICF_ATTR_INTS;
            at[2].ints = pads;
            at[2].count = 4;
            nd.name = "pool";
            nd.op_type = "MaxPool";
            nd.inputs = in;
            nd.num_inputs = 1;
            nd.outputs = out;
            nd.num_outputs = 1;
            nd.attrs = at;
            nd.num_attrs = 3;
            aicf_graph_add_node(g, &nd);
            aicf_graph_add_output(g, "y");
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
            CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "pool rule %d: plan: %s", k, aicf_last_error(ctx));
            for (s = 0; p && s < p->n_steps; s++) {
                const aicf__step* st = &p->steps[s];
                char want[40];
                int64_t oh, rows;
                if (st->kind != AICF__STEP_NODE) continue;
                found = 1;
                oh = (xd[2] + 2 - (KS[k][0] - 1) - 1) / ST[k] + 1;
                rows = xd[0] * xd[1] * oh;
                snprintf(want, sizeof want, "aicf_%s_%s", KS[k][1] == 3 && KS[k][0] == 3 ? "maxpool3x3" : "maxpool2d", pr ? "f16" : "f32");
                if (pr && KS[k][0] == 3 && KS[k][1] == 3 && ST[k] == 2 && WS[k] % 4 == 0 && ((WS[k] - 1) / 2 + 1) % 2 == 0)
                    snprintf(want, sizeof want, "aicf_maxpool3x3s2_f16"); /* two outputs a lane, a warp per row */
                CHECK(strcmp(st->kernel, want) == 0, "pool rule k(%lld,%lld) s%lld W=%lld %s: kernel %s, expected %s", (long long)KS[k][0],
                      (long long)KS[k][1], (long long)ST[k], (long long)WS[k], pr ? "fp16" : "fp32", st->kernel, want);
                if (!strcmp(want + 5, pr ? "maxpool3x3_f16" : "maxpool3x3_f32"))
                    CHECK(st->block[0] == 256 && st->grid[0] == (unsigned)((rows + 3) / 4), "pool rule 3x3: grid %u block %u for %lld rows",
                          st->grid[0], st->block[0], (long long)rows);
                if (!strcmp(want, "aicf_maxpool3x3s2_f16"))
                    CHECK(st->block[0] == 256 && st->grid[0] == (unsigned)((rows + 7) / 8), "pool rule 3x3 s2: grid %u block %u for %lld rows",
                          st->grid[0], st->block[0], (long long)rows);
            }
            CHECK(found, "pool rule %d: no MaxPool step", k);
            aicf_plan_destroy(p);
            aicf_graph_destroy(g);
        }
}

/* aicf__weights_chunked against the layout read independently: w[m][c][tap] is found at
   [c / cg][m][tap][c % cg] of the result, for element sizes 2 and 4 */
static void test_weights_chunked(void) {
    static const int64_t shapes[3][4] = {{5, 16, 9, 8}, {3, 32, 1, 16}, {70, 8, 9, 8}}; /* M, C, KHW, cg */
    int k;
    for (k = 0; k < 3; k++) {
        int64_t M = shapes[k][0], C = shapes[k][1], KHW = shapes[k][2], cg = shapes[k][3], n = M * C * KHW, i, bad = 0, m, c, tap;
        float* src = (float*)malloc((size_t)n * 4);
        float* dst = (float*)malloc((size_t)n * 4);
        uint16_t* s16 = (uint16_t*)malloc((size_t)n * 2);
        uint16_t* d16 = (uint16_t*)malloc((size_t)n * 2);
        for (i = 0; i < n; i++) src[i] = rndf(-1, 1), s16[i] = (uint16_t)(rndi(0, 65535));
        aicf__weights_chunked(src, dst, M, C, KHW, cg, 4);
        aicf__weights_chunked(s16, d16, M, C, KHW, cg, 2);
        for (m = 0; m < M; m++)
            for (c = 0; c < C; c++)
                for (tap = 0; tap < KHW; tap++) {
                    int64_t from = (m * C + c) * KHW + tap, to = (((c / cg) * M + m) * KHW + tap) * cg + (c % cg);
                    bad += src[from] != dst[to] || s16[from] != d16[to];
                }
        CHECK(bad == 0, "weights chunked [%lld,%lld,%lld] cg %lld: %lld elements misplaced", (long long)M, (long long)C, (long long)KHW,
              (long long)cg, (long long)bad);
        free(src);
        free(dst);
        free(s16);
        free(d16);
    }
}

/* Gemm [M,K] x [N,K]^T + bias -> act -> graph output, M = 64 (cuBLASLt, the activation an
   elementwise chain launch after it): at fp16 the chain writes the float32 output and the output
   Cast launches nothing (src/81_cuda_ops.c aicf__cuo_fold_ew_cast); not at fp32, not with
   no_fusion, not when the float16 result has a second reader. */
static void test_ew_cast_fold(aicf_context* ctx) {
    int variant;
    /* 0 fp16 (cuBLASLt, then the Tanh as a chain launch), 1 fp32, 2 fp16 no_fusion, 3 fp16 two
       readers, 4 fp16 with matmul_algo GENERATED (the tensor-core GEMM with the Tanh inside) */
    for (variant = 0; variant < 5; variant++) {
        aicf_graph* g = NULL;
        aicf_tensor_desc d;
        aicf_node_desc nd;
        aicf_attr at;
        aicf_plan_desc pd;
        aicf_plan* p = NULL;
        int64_t xd[2] = {64, 32}, wd[2] = {48, 32}, bd[1] = {48};
        float w[48 * 32], b[48];
        const char *in[3] = {"x", "W", "B"}, *out[1];
        int i, s, absorbed = 0, folded = 0, flag_ok = 0;
        for (i = 0; i < 48 * 32; i++) w[i] = rndf(-0.3f, 0.3f);
        for (i = 0; i < 48; i++) b[i] = rndf(-0.5f, 0.5f);
        aicf_graph_create(ctx, &g);
        aicf_graph_set_opset(g, "", 17);
        memset(&d, 0, sizeof d);
        d.name = "x";
        d.dtype = AICF_DTYPE_FLOAT32;
        d.rank = 2;
        d.dims = xd;
        aicf_graph_add_input(g, &d);
        d.name = "W";
        d.dims = wd;
        d.data = w;
        d.data_bytes = sizeof w;
        aicf_graph_add_constant(g, &d);
        d.name = "B";
        d.rank = 1;
        d.dims = bd;
        d.data = b;
        d.data_bytes = sizeof b;
        aicf_graph_add_constant(g, &d);
        memset(&nd, 0, sizeof nd);
        memset(&at, 0, sizeof at);
        at.name = "transB";
        at.type = AICF_ATTR_INT;
        at.i = 1;
        out[0] = "h";
        nd.name = "gemm";
        nd.op_type = "Gemm";
        nd.inputs = in;
        nd.num_inputs = 3;
        nd.outputs = out;
        nd.num_outputs = 1;
        nd.attrs = &at;
        nd.num_attrs = 1;
        aicf_graph_add_node(g, &nd);
        memset(&nd, 0, sizeof nd);
        in[0] = "h";
        out[0] = "y";
        nd.name = "tanh";
        nd.op_type = "Tanh";
        nd.inputs = in;
        nd.num_inputs = 1;
        nd.outputs = out;
        nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        aicf_graph_add_output(g, "y");
        if (variant == 3) { /* y also read by a Relu whose result is a second output */
            in[0] = "y";
            out[0] = "z";
            nd.name = "relu";
            nd.op_type = "Relu";
            aicf_graph_add_node(g, &nd);
            aicf_graph_add_output(g, "z");
        }
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = variant == 1 ? AICF_PRECISION_FP32 : AICF_PRECISION_FP16;
        pd.policy.no_fusion = variant == 2;
        if (variant == 4) pd.policy.matmul_algo = AICF_MATMUL_GENERATED;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "ew cast fold %d: plan: %s", variant, aicf_last_error(ctx));
        for (s = 0; p && s < p->n_steps; s++) {
            const aicf__step* st = &p->steps[s];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            absorbed += strcmp(st->kernel, "absorbed") == 0;
            if (pr && pr->n_ops >= 1 && s + 1 < p->n_steps && strcmp(p->steps[s + 1].kernel, "absorbed") == 0) {
                const aicf__cuo_op* ops = aicf__cuo_prog_ops(pr);
                const aicf__cuo_op* ew = &ops[pr->n_ops - 1];
                aicf__k_ewchain e;
                int k, y = -1, shape_ok;
                memcpy(&e, ew->args, sizeof e); /* the chain's struct: alone, or first in the tensor-core GEMM's */
                for (k = 0; k < ew->n_patch; k++)
                    if (ew->patch[k].field == offsetof(aicf__k_ewchain, y)) y = ew->patch[k].tensor;
                folded++;
                /* variant 4: one launch, the (small-M: 64 x 48, 8 blocks of 16 x 32) tensor-core
                   GEMM with the bias C and the Tanh inside; variant 0: cuBLASLt then the chain */
                shape_ok = variant == 4 ? pr->n_ops == 1 && !strcmp(st->kernel, "aicf_gemm_tc_f16_s16x32_tb") && e.n_ops == 2
                                        : pr->n_ops == 2 && ops[0].kind == AICF__CUO_MATMUL;
                /* the chain writes the Cast's output (float32), flag set, the step says so */
                flag_ok = shape_ok && e.flags == 1 && y == p->steps[s + 1].out[0] &&
                          p->loc[y].sdtype == AICF_DTYPE_FLOAT32 && strstr(st->reason, "Cast to f32 folded in") != NULL &&
                          strstr(p->steps[s + 1].reason, "elementwise chain") != NULL;
            }
        }
        if (variant == 0 || variant == 4) {
            CHECK(absorbed == 1 && folded == 1 && flag_ok, "ew cast fold fp16 (%s): %d absorbed, %d folded, kernel/flags/patch/reason %s",
                  variant == 4 ? "tensor-core GEMM" : "cuBLASLt + chain", absorbed, folded, flag_ok ? "ok" : "wrong");
        } else {
            CHECK(absorbed == 0, "ew cast fold variant %d (%s): %d steps absorbed, expected none", variant,
                  variant == 1 ? "fp32" : variant == 2 ? "no_fusion" : "two readers", absorbed);
        }
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
}

/* The tensor-core attention kernel's launch (aicf__cuo_lower_attention): grid (ceil(Sq / 64), H,
   B) with the head and batch as block indices (so B * H may pass 65535 as long as each does
   not), the argument struct's strides, the one-warp kernel (and the reason the plan records)
   where the head size is not 32, 64, 128, B passes 65535 or the precision is float32; and the
   32-bit offset rule (aicf__attention_off32) at its boundaries. */
static void test_attention_tc(aicf_context* ctx) {
    static const struct { int64_t B, H, kvH, Sq, Skv, D; int prec; const char *want, *why; } TC[] = {
        {2, 6, 6, 130, 70, 32, 1, "aicf_attention_tc_f16_d32", "tensor cores, 64 queries x 64 keys per block"},
        {1, 8, 2, 50, 150, 64, 1, "aicf_attention_tc_f16_d64", "tensor cores"},    /* grouped-query: grp 4 */
        {3, 2, 2, 64, 64, 128, 1, "aicf_attention_tc_f16_d128", "tensor cores"},
        {260, 260, 260, 1, 3, 32, 1, "aicf_attention_tc_f16_d32", "tensor cores"}, /* 67600 heads: B * H > 65535 */
        {65536, 1, 1, 1, 2, 32, 1, "aicf_attention_f16", "the grid's y or z dimension exceeds 65535"}, /* B past grid z */
        {2, 3, 3, 40, 20, 48, 1, "aicf_attention_f16", "the tensor-core kernel takes D = Dv in {32, 64, 128}"},
        {2, 6, 6, 130, 70, 32, 0, "aicf_attention_f32", "float32 storage"},
    };
    int q;
    for (q = 0; q < (int)(sizeof TC / sizeof TC[0]); q++) {
        int64_t qd[4], kd[4];
        const char *in[3] = {"q", "k", "v"}, *out[1] = {"y"};
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_plan_desc pd;
        aicf_tensor_desc td;
        aicf_node_desc nd;
        char name[128];
        int si, found = 0, tc = strstr(TC[q].want, "_tc_") != NULL;
        snprintf(name, sizeof name, "attention q [%lld,%lld,%lld,%lld] kv heads %lld, %lld keys, %s", (long long)TC[q].B,
                 (long long)TC[q].H, (long long)TC[q].Sq, (long long)TC[q].D, (long long)TC[q].kvH, (long long)TC[q].Skv,
                 TC[q].prec ? "fp16" : "fp32");
        aicf_graph_create(ctx, &g);
        aicf_graph_set_opset(g, "", 23);
        memset(&td, 0, sizeof td);
        td.dtype = AICF_DTYPE_FLOAT32;
        td.rank = 4;
        qd[0] = TC[q].B, qd[1] = TC[q].H, qd[2] = TC[q].Sq, qd[3] = TC[q].D;
        kd[0] = TC[q].B, kd[1] = TC[q].kvH, kd[2] = TC[q].Skv, kd[3] = TC[q].D;
        td.name = "q", td.dims = qd;
        aicf_graph_add_input(g, &td);
        td.name = "k", td.dims = kd;
        aicf_graph_add_input(g, &td);
        td.name = "v";
        aicf_graph_add_input(g, &td);
        memset(&nd, 0, sizeof nd);
        nd.name = "att", nd.op_type = "Attention", nd.inputs = in, nd.num_inputs = 3, nd.outputs = out, nd.num_outputs = 1;
        aicf_graph_add_node(g, &nd);
        aicf_graph_add_output(g, "y");
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = TC[q].prec ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        CHECK(aicf_plan_create(g, &pd, &p) == AICF_SUCCESS, "%s: CUDA plan: %s", name, aicf_last_error(ctx));
        for (si = 0; p && si < p->n_steps; si++) {
            const aicf__step* st = &p->steps[si];
            aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
            const aicf__cuo_op* op;
            aicf__k_attention a;
            if (strncmp(st->kernel, "aicf_attention", 14) != 0) continue;
            found++;
            CHECK(!strcmp(st->kernel, TC[q].want) && pr && pr->n_ops == 1 && strstr(st->reason, TC[q].why) != NULL,
                  "%s: %s (want %s), why: %s (want \"%s\")", name, st->kernel, TC[q].want, st->reason, TC[q].why);
            if (!pr || pr->n_ops != 1) continue;
            op = aicf__cuo_prog_ops(pr);
            memcpy(&a, op->args, sizeof a);
            if (tc)
                CHECK(op->grid[0] == (unsigned)((TC[q].Sq + 63) / 64) && op->grid[1] == (unsigned)TC[q].H && op->grid[2] == (unsigned)TC[q].B &&
                          op->block[0] == 128,
                      "%s: grid %u,%u,%u block %u", name, op->grid[0], op->grid[1], op->grid[2], op->block[0]);
            else
                CHECK(op->grid[0] == (unsigned)((TC[q].B * TC[q].H * TC[q].Sq + 3) / 4) && op->grid[1] == 1 && op->grid[2] == 1,
                      "%s: grid %u,%u,%u", name, op->grid[0], op->grid[1], op->grid[2]);
            CHECK(op->args_size == sizeof a && a.B == TC[q].B && a.H == TC[q].H && a.grp == TC[q].H / TC[q].kvH && a.Sq == TC[q].Sq &&
                      a.Skv == TC[q].Skv && a.D == TC[q].D && a.qs == TC[q].D && a.qh == TC[q].Sq * TC[q].D &&
                      a.kh == TC[q].Skv * TC[q].D && a.kb == TC[q].kvH * TC[q].Skv * TC[q].D && a.os == TC[q].D && a.mask == 0 &&
                      a.mlen == TC[q].Skv && a.causal == 0 && fabsf(a.scale - 1.0f / sqrtf((float)TC[q].D)) < 1e-6f,
                  "%s: arguments B %lld H %lld grp %lld Sq %lld Skv %lld D %lld qs %lld kh %lld scale %g", name, (long long)a.B, (long long)a.H,
                  (long long)a.grp, (long long)a.Sq, (long long)a.Skv, (long long)a.D, (long long)a.qs, (long long)a.kh, a.scale);
        }
        CHECK(found == 1, "%s: %d attention steps", name, found);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
    { /* the offset rule: the batch-32 encoder's views (3-D, 12 heads of 32 in a row of 1152), then each limit */
        const int64_t L = (int64_t)1 << 31;
        aicf__k_attention a;
        memset(&a, 0, sizeof a);
        a.B = 32, a.H = 12, a.grp = 1, a.Sq = a.Skv = 128, a.D = a.Dv = 32, a.mlen = 128;
        a.qs = a.ks = a.vs = 1152, a.qh = a.kh = a.vh = 32, a.qb = a.kb = a.vb = 128 * 1152;
        a.os = 384, a.oh = 32, a.ob = 128 * 384;
        CHECK(aicf__attention_off32(&a), "off32: the encoder's views");
        a.Skv = L / 1152 - 64; /* (Skv + 64) * ks + D = L - 128 + 32: fits */
        a.mlen = a.Skv;
        CHECK(aicf__attention_off32(&a), "off32: K rows up to 2^31 - 96");
        a.Skv += 1; /* L + 1024 + 32: does not */
        a.mlen = a.Skv;
        CHECK(!aicf__attention_off32(&a), "off32: K rows past 2^31");
        a.Skv = a.mlen = 128;
        a.os = L / 192 + 1; /* (Sq + 64) * os >= 2^31 */
        CHECK(!aicf__attention_off32(&a), "off32: O rows past 2^31");
        a.os = 384;
        a.mi = 128, a.mj = 1;
        CHECK(aicf__attention_off32(&a), "off32: a [128, 128] mask");
        a.mi = L / 100;
        CHECK(!aicf__attention_off32(&a), "off32: mask rows past 2^31");
        a.mi = 0, a.mj = 0;
        a.qs = -1152;
        CHECK(!aicf__attention_off32(&a), "off32: a negative stride");
        a.qs = 1152;
        a.kb = L * 4; /* batch strides are 64-bit products in the kernel */
        CHECK(aicf__attention_off32(&a), "off32: a batch stride of 2^33");
        a.kh = -32;
        CHECK(!aicf__attention_off32(&a), "off32: a negative head stride");
    }
}

int main(int argc, char** argv) {
    const char* seed_env = getenv("AICF_SEED");
    const char* path = getenv("AICF_FAKE_CUDA");
    aicf_context_desc cd;
    aicf_context *ctx = NULL, *ctx_nolt = NULL;
    aicf_device_info di;
    ccase cs[64];
    int n, i, a, pr;
    static const aicf_conv_algo ALGOS[4] = {AICF_CONV_AUTO, AICF_CONV_DIRECT, AICF_CONV_IM2COL_GEMM, AICF_CONV_IMPLICIT_GEMM_TC};
    static const aicf_precision PRECS[3] = {AICF_PRECISION_FP32, AICF_PRECISION_TF32, AICF_PRECISION_FP16};
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else path = argv[i];
    }
    g_rng = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 12345u;
    if (!g_rng) g_rng = 1;
    printf("seed %llu (AICF_SEED=%llu repeats this run)\n", (unsigned long long)g_rng, (unsigned long long)g_rng);
    if (!path) path = "build/fakecuda/libcuda.so.1";
    test_scratch_ptr();
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13"; /* the fake is installed instead */
    cd.flags = AICF_CONTEXT_NO_THREADS; /* the fake counts the queries: no helper's among them */
    if (AICF__KT_NUM_KERNELS == 0 || aicf__cuda_kernel_find("aicf_im2col_f32") < 0) {
        printf("SKIP conv plans: the kernel table has no aicf_im2col_f32 (built without NVRTC?)\n");
        g_skip++;
        goto end;
    }
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, &di) != AICF_SUCCESS) {
        CHECK(0, "the fake driver %s is not usable (%s); build it: make build/fakecuda/libcuda.so.1", path,
              ctx ? aicf_last_error(ctx) : "context");
        goto end;
    }
    CHECK(flt_install(ctx), "installing the fake cuBLASLt");
    aicf_context_create(&cd, &ctx_nolt);
    CHECK(aicf_context_device_info(ctx_nolt, &di) == AICF_SUCCESS && !di.cublaslt_available, "context without cuBLASLt");
    n = make_cases(cs, (int)(sizeof cs / sizeof cs[0]));
    for (i = 0; i < n; i++)
        for (a = 0; a < 4; a++)
            for (pr = 0; pr < 3; pr++) run_case(ctx, &cs[i], ALGOS[a], PRECS[pr], 1);
    /* without cuBLASLt every conv stays on the generated kernels, with no scratch */
    for (i = 0; i < n; i += 3) {
        run_case(ctx_nolt, &cs[i], AICF_CONV_IM2COL_GEMM, AICF_PRECISION_FP32, 0);
        run_case(ctx_nolt, &cs[i], AICF_CONV_AUTO, AICF_PRECISION_FP16, 0);
    }
    test_chain(ctx);
    test_gemv(ctx);
    test_gemvp(ctx);
    test_gemvp_smem_cut(ctx);
    test_ew_cast_fold(ctx);
    test_gemm_tc(ctx, ctx_nolt);
    test_attention_tc(ctx);
    test_weights_chunked();
    test_pool_rule(ctx);
    test_no_algorithm(ctx);
    test_no_algorithm_batched(ctx);
    test_out_f32_refused(ctx);
    test_exec_scratch(path);
    test_autotune(path);
    test_autotune_rule(path);
    test_gemv_pdl(path);
    test_autotune_gemm(path);
    test_exec_concat_view_matmul(path);
    test_gemm_wg(path);
    test_ln_fold(path);
    test_ln_epi(path);
    test_ln_epi_clusters(path);
    test_gemm_ws(path);
    CHECK(FLT.live == 0, "fake cuBLASLt: %ld descriptors, layouts or preferences not destroyed", FLT.live);
end:
    aicf_context_destroy(ctx_nolt);
    aicf_context_destroy(ctx);
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
