/* Fusion tests: every fusion the planner makes (aicf__fuse_chain: elementwise nodes absorbed as
   the epilogue of the step producing their input) is checked by planning the same graph with
   policy.no_fusion = 1 (every node its own step) and with fusion on, and comparing:
     - the step counts (exactly what the case expects: fusion happened, and only where allowed);
     - the outputs: bitwise equal on the CPU reference (both paths run the same float32 math),
       within tolerance on CUDA (fp32 1e-5, fp16 1e-2 relative to the largest magnitude), and
       the CUDA outputs against the CPU reference too; fewer kernel launches when fused.
   Fresh random data every run (seed printed; AICF_SEED=N repeats it). On CUDA, AICF_FUSION_ONLY=TEXT
   runs only the cases whose name contains TEXT (and the random attention graphs if "attention"
   contains it), for a quick check of one kernel on the GPU machine.
   Built as build/test_fusion (CPU suite) and, with AICF_FUSION_TEST_CUDA, as
   build/test_gpu_fusion (tests/test_gpu_fusion.c, GPU suite). */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef AICF_FUSION_TEST_CUDA
#  define AICF_FUSION_TEST_CUDA 0
#endif

static int g_pass, g_fail, g_skip;
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

static float frand(float lo, float hi) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return lo + (hi - lo) * (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0);
}

/* ---- a small graph builder: names are comma-separated lists ---- */
#define FB_MAX 48
typedef struct fb {
    aicf_context* ctx;
    aicf_graph* g;
    int n_in;
    char in_name[FB_MAX][32];
    float* in_data[FB_MAX];
    size_t in_bytes[FB_MAX];
    int n_out;
    char out_name[FB_MAX][32];
    int ok;
} fb;

static int64_t fb_numel(int rank, const int64_t* d) {
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++) n *= d[i];
    return n;
}

static void fb_input(fb* b, const char* name, int rank, const int64_t* d, float lo, float hi) {
    aicf_tensor_desc t;
    int64_t n = fb_numel(rank, d), i;
    float* v = (float*)malloc((size_t)n * sizeof(float));
    for (i = 0; i < n; i++) v[i] = frand(lo, hi);
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = d;
    if (aicf_graph_add_input(b->g, &t) != AICF_SUCCESS) b->ok = 0;
    snprintf(b->in_name[b->n_in], sizeof b->in_name[0], "%s", name);
    b->in_data[b->n_in] = v;
    b->in_bytes[b->n_in] = (size_t)n * sizeof(float);
    b->n_in++;
}

static void fb_const(fb* b, const char* name, int rank, const int64_t* d, float lo, float hi) {
    aicf_tensor_desc t;
    int64_t n = fb_numel(rank, d), i;
    float* v = (float*)malloc((size_t)(n ? n : 1) * sizeof(float));
    for (i = 0; i < n; i++) v[i] = frand(lo, hi);
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = d;
    t.data = v;
    t.data_bytes = (size_t)n * sizeof(float);
    if (aicf_graph_add_constant(b->g, &t) != AICF_SUCCESS) b->ok = 0;
    free(v);
}

static void fb_scalar(fb* b, const char* name, float value) {
    aicf_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = 0;
    t.data = &value;
    t.data_bytes = sizeof value;
    if (aicf_graph_add_constant(b->g, &t) != AICF_SUCCESS) b->ok = 0;
}

static void fb_i64(fb* b, const char* name, int n, const int64_t* v) {
    aicf_tensor_desc t;
    int64_t d[1];
    d[0] = n;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_INT64;
    t.rank = 1;
    t.dims = d;
    t.data = v;
    t.data_bytes = (size_t)n * sizeof(int64_t);
    if (aicf_graph_add_constant(b->g, &t) != AICF_SUCCESS) b->ok = 0;
}

static int fb_split(const char* list, char names[][32], const char** ptrs) {
    int n = 0;
    const char* s = list;
    while (*s && n < 8) {
        const char* e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= 32) len = 31;
        memcpy(names[n], s, len);
        names[n][len] = 0;
        ptrs[n] = names[n];
        n++;
        if (!e) break;
        s = e + 1;
    }
    return n;
}

static void fb_node(fb* b, const char* name, const char* op, const char* ins, const char* outs, const aicf_attr* attrs,
                    int nattrs) {
    char in_names[8][32], out_names[8][32];
    const char* ip[8];
    const char* op_[8];
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.num_inputs = fb_split(ins, in_names, ip);
    nd.inputs = ip;
    nd.num_outputs = fb_split(outs, out_names, op_);
    nd.outputs = op_;
    nd.attrs = attrs;
    nd.num_attrs = nattrs;
    if (aicf_graph_add_node(b->g, &nd) != AICF_SUCCESS) {
        printf("  node %s: %s\n", name, aicf_last_error(b->ctx));
        b->ok = 0;
    }
}

static void fb_output(fb* b, const char* name) {
    if (aicf_graph_add_output(b->g, name) != AICF_SUCCESS) b->ok = 0;
    snprintf(b->out_name[b->n_out++], sizeof b->out_name[0], "%s", name);
}

static aicf_attr attr_i(const char* name, int64_t v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INT;
    a.i = v;
    return a;
}

static aicf_attr attr_f(const char* name, float v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_FLOAT;
    a.f = v;
    return a;
}

static aicf_attr attr_ints(const char* name, int n, const int64_t* v) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_INTS;
    a.ints = v;
    a.count = n;
    return a;
}

/* ---- the cases: each builds a graph; fused / unfused are the expected step counts ---- */

/* Gemm (bias C) + Add(bias [N]) + Relu: a Linear layer with an activation */
static void c_gemm_bias_relu(fb* b) {
    static const int64_t x[2] = {4, 16}, w[2] = {16, 8}, c[1] = {8};
    fb_input(b, "x", 2, x, -1, 1);
    fb_const(b, "W", 2, w, -0.5f, 0.5f);
    fb_const(b, "C", 1, c, -0.5f, 0.5f);
    fb_const(b, "b2", 1, c, -0.5f, 0.5f);
    fb_node(b, "gemm", "Gemm", "x,W,C", "h", NULL, 0);
    fb_node(b, "add", "Add", "h,b2", "h2", NULL, 0);
    fb_node(b, "relu", "Relu", "h2", "y", NULL, 0);
    fb_output(b, "y");
}

/* Batch-1 Linear (Gemm transB = 1, M = 1: the GEMV kernel on CUDA) + residual Add + Tanh: the
   bias C, the residual and the activation all inside the GEMV's epilogue */
static void c_linear_b1_residual_tanh(fb* b) {
    static const int64_t x[2] = {1, 64}, w[2] = {48, 64}, c[1] = {48}, r[2] = {1, 48};
    aicf_attr a[1];
    memset(a, 0, sizeof a);
    a[0].name = "transB";
    a[0].type = AICF_ATTR_INT;
    a[0].i = 1;
    fb_input(b, "x", 2, x, -1, 1);
    fb_input(b, "res", 2, r, -1, 1);
    fb_const(b, "W", 2, w, -0.5f, 0.5f);
    fb_const(b, "C", 1, c, -0.5f, 0.5f);
    fb_node(b, "gemm", "Gemm", "x,W,C", "h", a, 1);
    fb_node(b, "add", "Add", "h,res", "h2", NULL, 0);
    fb_node(b, "tanh", "Tanh", "h2", "y", NULL, 0);
    fb_output(b, "y");
}

/* Gemm transB at M = 64 (cuBLASLt on CUDA where loaded) + Tanh as the graph output: at fp16
   the Tanh chain writes the float32 output itself, the output Cast absorbed (mlp_b256's last
   layer) */
static void c_gemm_m64_tanh_out(fb* b) {
    static const int64_t x[2] = {64, 64}, w[2] = {48, 64}, c[1] = {48};
    aicf_attr a[1];
    memset(a, 0, sizeof a);
    a[0].name = "transB";
    a[0].type = AICF_ATTR_INT;
    a[0].i = 1;
    fb_input(b, "x", 2, x, -1, 1);
    fb_const(b, "W", 2, w, -0.3f, 0.3f);
    fb_const(b, "C", 1, c, -0.5f, 0.5f);
    fb_node(b, "gemm", "Gemm", "x,W,C", "h", a, 1);
    fb_node(b, "tanh", "Tanh", "h", "y", NULL, 0);
    fb_output(b, "y");
}

/* Gemm transB at M = 3 with alpha, a full C [M, N] and K = 37 (element loads on the GEMV path),
   then Relu and a scale by a constant vector over N */
static void c_linear_m3_relu_scale(fb* b) {
    static const int64_t x[2] = {3, 37}, w[2] = {20, 37}, c[2] = {3, 20}, s[1] = {20};
    aicf_attr a[2];
    memset(a, 0, sizeof a);
    a[0].name = "transB";
    a[0].type = AICF_ATTR_INT;
    a[0].i = 1;
    a[1].name = "alpha";
    a[1].type = AICF_ATTR_FLOAT;
    a[1].f = 0.75f;
    fb_input(b, "x", 2, x, -1, 1);
    fb_const(b, "W", 2, w, -0.5f, 0.5f);
    fb_const(b, "C", 2, c, -0.5f, 0.5f);
    fb_const(b, "s", 1, s, 0.5f, 1.5f);
    fb_node(b, "gemm", "Gemm", "x,W,C", "h", a, 2);
    fb_node(b, "relu", "Relu", "h", "r", NULL, 0);
    fb_node(b, "scale", "Mul", "r,s", "y", NULL, 0);
    fb_output(b, "y");
}

/* A batch-1 MLP (Gemm transB + activation, four layers): on CUDA the four GEMV steps (and at
   fp16 the boundary Casts) run as one persistent launch with grid barriers between layers */
static void c_mlp_b1_chain(fb* b) {
    static const int64_t x[2] = {1, 64}, w1[2] = {96, 64}, c1[1] = {96}, w2[2] = {128, 96}, c2[1] = {128}, w3[2] = {64, 128},
                         c3[1] = {64}, w4[2] = {24, 64}, c4[1] = {24};
    aicf_attr a[1];
    a[0] = attr_i("transB", 1);
    fb_input(b, "x", 2, x, -1, 1);
    fb_const(b, "W1", 2, w1, -0.3f, 0.3f);
    fb_const(b, "C1", 1, c1, -0.5f, 0.5f);
    fb_const(b, "W2", 2, w2, -0.3f, 0.3f);
    fb_const(b, "C2", 1, c2, -0.5f, 0.5f);
    fb_const(b, "W3", 2, w3, -0.3f, 0.3f);
    fb_const(b, "C3", 1, c3, -0.5f, 0.5f);
    fb_const(b, "W4", 2, w4, -0.3f, 0.3f);
    fb_const(b, "C4", 1, c4, -0.5f, 0.5f);
    fb_node(b, "g1", "Gemm", "x,W1,C1", "h1", a, 1);
    fb_node(b, "a1", "Relu", "h1", "r1", NULL, 0);
    fb_node(b, "g2", "Gemm", "r1,W2,C2", "h2", a, 1);
    fb_node(b, "a2", "Tanh", "h2", "r2", NULL, 0);
    fb_node(b, "g3", "Gemm", "r2,W3,C3", "h3", a, 1);
    fb_node(b, "a3", "Relu", "h3", "r3", NULL, 0);
    fb_node(b, "g4", "Gemm", "r3,W4,C4", "h4", a, 1);
    fb_node(b, "a4", "Sigmoid", "h4", "y", NULL, 0);
    fb_output(b, "y");
}

/* M = 5 layers with a residual from layer 1 into layer 3: layer 3's epilogue reads a tensor
   that layer 1 writes, so the persistent run is cut before layer 3 (two launches) */
static void c_mlp_m5_residual(fb* b) {
    static const int64_t x[2] = {5, 32}, w1[2] = {64, 32}, c1[1] = {64}, w2[2] = {64, 64}, w4[2] = {16, 64}, c4[1] = {16};
    aicf_attr a[2];
    a[0] = attr_i("transB", 1);
    a[1] = attr_f("alpha", 0.5f);
    fb_input(b, "x", 2, x, -1, 1);
    fb_const(b, "W1", 2, w1, -0.3f, 0.3f);
    fb_const(b, "C1", 1, c1, -0.5f, 0.5f);
    fb_const(b, "W2", 2, w2, -0.3f, 0.3f);
    fb_const(b, "C2", 1, c1, -0.5f, 0.5f);
    fb_const(b, "W3", 2, w2, -0.3f, 0.3f);
    fb_const(b, "C3", 1, c1, -0.5f, 0.5f);
    fb_const(b, "W4", 2, w4, -0.3f, 0.3f);
    fb_const(b, "C4", 1, c4, -0.5f, 0.5f);
    fb_node(b, "g1", "Gemm", "x,W1,C1", "h1", a, 1);
    fb_node(b, "a1", "Relu", "h1", "r1", NULL, 0);
    fb_node(b, "g2", "Gemm", "r1,W2,C2", "h2", a, 2);
    fb_node(b, "a2", "Relu", "h2", "r2", NULL, 0);
    fb_node(b, "g3", "Gemm", "r2,W3,C3", "h3", a, 1);
    fb_node(b, "res", "Add", "h3,r1", "s3", NULL, 0);
    fb_node(b, "g4", "Gemm", "s3,W4,C4", "y", a, 1);
    fb_output(b, "y");
}

/* A Linear layer whose weights are a graph input (not a constant of the plan), then a constant
   one: the first stays its own GEMV launch (a persistent launch prefetches weights) */
static void c_mlp_weights_input(fb* b) {
    static const int64_t x[2] = {2, 32}, w1[2] = {48, 32}, w2[2] = {16, 48}, c2[1] = {16};
    aicf_attr a[1];
    a[0] = attr_i("transB", 1);
    fb_input(b, "x", 2, x, -1, 1);
    fb_input(b, "W1", 2, w1, -0.3f, 0.3f);
    fb_const(b, "W2", 2, w2, -0.3f, 0.3f);
    fb_const(b, "C2", 1, c2, -0.5f, 0.5f);
    fb_node(b, "g1", "Gemm", "x,W1", "h1", a, 1);
    fb_node(b, "a1", "Relu", "h1", "r1", NULL, 0);
    fb_node(b, "g2", "Gemm", "r1,W2,C2", "y", a, 1);
    fb_output(b, "y");
}

/* MatMul + bias + residual, then GELU written out as ONNX exporters do (Div Erf Add Mul Mul):
   the five become one Gelu node (aicf__fuse_gelu), so the MatMul step absorbs the bias, the
   residual and the Gelu: one step (on CUDA at fp16 without cuBLASLt, or with generated GEMMs,
   the tensor-core GEMM with all three inside; the CPU reference computes the Gelu in one
   expression: ~1 ulp from the five ops). */
static void c_linear_residual_gelu(fb* b) {
    static const int64_t x[3] = {2, 5, 16}, w[2] = {16, 16}, c[1] = {16};
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "W", 2, w, -0.5f, 0.5f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_scalar(b, "sqrt2", 1.41421356f);
    fb_scalar(b, "one", 1.0f);
    fb_scalar(b, "half", 0.5f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "bias_add", "Add", "m,bias", "mb", NULL, 0);
    fb_node(b, "residual", "Add", "mb,x", "h", NULL, 0);
    fb_node(b, "div", "Div", "h,sqrt2", "d", NULL, 0);
    fb_node(b, "erf", "Erf", "d", "e", NULL, 0);
    fb_node(b, "add1", "Add", "e,one", "f", NULL, 0);
    fb_node(b, "mul_h", "Mul", "h,f", "g", NULL, 0);
    fb_node(b, "mul_half", "Mul", "g,half", "y", NULL, 0);
    fb_output(b, "y");
}

/* The encoder's feed-forward input: MatMul [3, 50, 64] x [64, 72] + bias, then the exported
   GELU (the bias Add's result read twice): one step, the GEMM's M = 150 and N = 72 not multiples
   of the tensor-core GEMM's 64 x 64 tile. */
static void c_linear_gelu_enc(fb* b) {
    static const int64_t x[3] = {3, 50, 64}, w[2] = {64, 72}, c[1] = {72};
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "W", 2, w, -0.3f, 0.3f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_scalar(b, "sqrt2", 1.41421356f);
    fb_scalar(b, "one", 1.0f);
    fb_scalar(b, "half", 0.5f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "bias_add", "Add", "bias,m", "h", NULL, 0);
    fb_node(b, "div", "Div", "h,sqrt2", "d", NULL, 0);
    fb_node(b, "erf", "Erf", "d", "e", NULL, 0);
    fb_node(b, "add1", "Add", "one,e", "f", NULL, 0);
    fb_node(b, "mul_h", "Mul", "f,h", "g", NULL, 0);
    fb_node(b, "mul_half", "Mul", "half,g", "y", NULL, 0);
    fb_output(b, "y");
}

/* MatMul [2, 24, 48] x [48, 40] + bias, then Gelu with approximate = `approximate`: with
   "tanh" (GPT-2-style exports), on CUDA with cuBLASLt one GEMM with the bias and the GELU in its
   epilogue (CUBLASLT_EPILOGUE_GELU_BIAS computes the tanh form); with "none" (the erf form)
   there only under the policy's gelu_tanh (test_fake_gelu_epilogue). Pre-activations reach +-3,
   where the two forms differ most (4.7e-4 at x = -2.70). */
static void fb_linear_gelu(fb* b, const char* approximate) {
    static const int64_t x[3] = {2, 24, 48}, w[2] = {48, 40}, c[1] = {40};
    aicf_attr a[1];
    memset(a, 0, sizeof a);
    a[0].name = "approximate";
    a[0].type = AICF_ATTR_STRING;
    a[0].s = approximate;
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "W", 2, w, -0.4f, 0.4f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "bias_add", "Add", "m,bias", "h", NULL, 0);
    fb_node(b, "gelu", "Gelu", "h", "y", a, 1);
    fb_output(b, "y");
}
static void c_linear_gelu_tanh(fb* b) { fb_linear_gelu(b, "tanh"); }
static void c_linear_gelu_none(fb* b) { fb_linear_gelu(b, "none"); }

/* The batch-32 encoder's feed-forward block at a smaller size: MatMul [8, 256, 320] x [320, 1160]
   + bias, Gelu (approximate = "none"), then MatMul by [1160, 40] (so the first step's output
   stays float16 inside a float16 plan): M = 2048, so on CUDA at fp16 on compute capability 9.0
   the warp-specialised Hopper GEMM takes the first step with the erf-form Gelu inside
   (src/81_cuda_ops.c aicf__cuo_ws_wanted; 160 tiles of 128 x 128 fill a wave): 112 tiles of
   128 x 192, N = 1160 a partial column tile, K = 320 five slabs through a ring of four
   (test_gpu_ws_gelu checks the kernel). */
static void c_linear_gelu_m2048(fb* b) {
    static const int64_t x[3] = {8, 256, 320}, w[2] = {320, 1160}, c[1] = {1160}, w2[2] = {1160, 40};
    aicf_attr a[1];
    memset(a, 0, sizeof a);
    a[0].name = "approximate";
    a[0].type = AICF_ATTR_STRING;
    a[0].s = "none";
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "W", 2, w, -0.15f, 0.15f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_const(b, "W2", 2, w2, -0.05f, 0.05f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "bias_add", "Add", "m,bias", "h", NULL, 0);
    fb_node(b, "gelu", "Gelu", "h", "g", a, 1);
    fb_node(b, "mm2", "MatMul", "g,W2", "y", NULL, 0);
    fb_output(b, "y");
}

/* MatMul [4, 520, 96] x [96, 1024] + bias + residual r [4, 520, 1024], the exported GELU (one
   step), then MatMul by [1024, 40]; M = 2080 (a partial row tile of 128), N = 1024 (102 tiles of
   128 x 192, the last partial), K = 96 (a partial slab): on CUDA at fp16 on compute capability
   9.0 the warp-specialised Hopper GEMM with the bias, the residual and the Gelu inside. */
static void c_linear_residual_gelu_m2080(fb* b) {
    static const int64_t x[3] = {4, 520, 96}, r[3] = {4, 520, 1024}, w[2] = {96, 1024}, c[1] = {1024}, w2[2] = {1024, 40};
    fb_input(b, "x", 3, x, -1, 1);
    fb_input(b, "r", 3, r, -1, 1);
    fb_const(b, "W", 2, w, -0.2f, 0.2f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_const(b, "W2", 2, w2, -0.05f, 0.05f);
    fb_scalar(b, "sqrt2", 1.41421356f);
    fb_scalar(b, "one", 1.0f);
    fb_scalar(b, "half", 0.5f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "bias_add", "Add", "m,bias", "mb", NULL, 0);
    fb_node(b, "residual", "Add", "r,mb", "h", NULL, 0);
    fb_node(b, "div", "Div", "h,sqrt2", "d", NULL, 0);
    fb_node(b, "erf", "Erf", "d", "e", NULL, 0);
    fb_node(b, "add1", "Add", "e,one", "f", NULL, 0);
    fb_node(b, "mul_h", "Mul", "h,f", "g", NULL, 0);
    fb_node(b, "mul_half", "Mul", "g,half", "z", NULL, 0);
    fb_node(b, "mm2", "MatMul", "z,W2", "y", NULL, 0);
    fb_output(b, "y");
}

/* Conv 3x3 (bias, pad 1) of x [x4] keeping its C channels + residual Add (conv first unless
   res_first) + Relu, weights in [-wr, wr]: a ResNet block's tail */
static void fb_conv_residual_relu(fb* b, const int64_t* x4, float wr, int res_first) {
    static const int64_t pads[4] = {1, 1, 1, 1};
    int64_t w[4], c[1];
    aicf_attr a[1];
    w[0] = w[1] = c[0] = x4[1];
    w[2] = w[3] = 3;
    a[0] = attr_ints("pads", 4, pads);
    fb_input(b, "x", 4, x4, -1, 1);
    fb_const(b, "W", 4, w, -wr, wr);
    fb_const(b, "B", 1, c, -0.3f, 0.3f);
    fb_node(b, "conv", "Conv", "x,W,B", "c", a, 1);
    fb_node(b, "res", "Add", res_first ? "x,c" : "c,x", "s", NULL, 0);
    fb_node(b, "relu", "Relu", "s", "y", NULL, 0);
    fb_output(b, "y");
}

static void c_conv_residual_relu(fb* b) {
    static const int64_t x[4] = {2, 4, 6, 6};
    fb_conv_residual_relu(b, x, 0.3f, 0);
}

/* The same tail at sizes where the fp16 tensor-core conv splits K (src/82_cuda_conv.c): 64
   channels on 7x7 (one output tile, 49 columns: 16-bit stores, 4 splits) and, batch 2, 32
   channels on 8x8 (paired stores, 2 splits); the residual and Relu are applied after the
   split-K reduction */
static void c_conv_residual_relu_splitk(fb* b) {
    static const int64_t x[4] = {1, 64, 7, 7}, w[4] = {64, 64, 3, 3}, c[1] = {64}, pads[4] = {1, 1, 1, 1};
    static const int64_t x2[4] = {2, 32, 8, 8}, w2[4] = {32, 32, 3, 3};
    aicf_attr a[1];
    a[0] = attr_ints("pads", 4, pads);
    fb_input(b, "x", 4, x, -1, 1);
    fb_const(b, "W", 4, w, -0.1f, 0.1f);
    fb_const(b, "B", 1, c, -0.3f, 0.3f);
    fb_node(b, "conv", "Conv", "x,W,B", "c", a, 1);
    fb_node(b, "res", "Add", "c,x", "s", NULL, 0);
    fb_node(b, "relu", "Relu", "s", "y", NULL, 0);
    fb_output(b, "y");
    fb_input(b, "x2", 4, x2, -1, 1);
    fb_const(b, "W2", 4, w2, -0.1f, 0.1f);
    fb_node(b, "conv2", "Conv", "x2,W2", "c2", a, 1);
    fb_node(b, "res2", "Add", "x2,c2", "s2", NULL, 0);
    fb_node(b, "relu2", "Relu", "s2", "y2", NULL, 0);
    fb_output(b, "y2");
}

/* The same tail where AUTO takes the batched im2col lowering at fp16 on CUDA with cuBLASLt
   (src/82_cuda_conv.c aicf__cuc_batched_auto: 8 images, K = 576, 7 tensor-core tiles, N*P = 392): the bias,
   residual and Relu in the reduction kernel that writes NCHW from the GEMM's float32 product;
   the 7x7 images (P = 49) take the one-column reduction */
static void c_conv_residual_relu_batched(fb* b) {
    static const int64_t x[4] = {8, 64, 7, 7};
    fb_conv_residual_relu(b, x, 0.1f, 1);
}

/* The same tail where AUTO takes the rows kernel at fp16 on CUDA (src/82_cuda_conv.c
   aicf_conv2d_tcr_*: 3x3 stride 1 pad 1, 16 channels, 56-wide rows: 14 tiles of 4 rows x 10
   images = 140 blocks, one per SM at least): bias, residual and Relu in its epilogue */
static void c_conv_residual_relu_rows(fb* b) {
    static const int64_t x[4] = {10, 16, 56, 56};
    fb_conv_residual_relu(b, x, 0.2f, 0);
}

/* An image model's stem: Conv 7x7 stride 2 (3 channels, bias) + Relu; at fp16 on CUDA the
   small-K tensor-core conv (src/82_cuda_conv.c) with the Relu inside; 80 channels (a partial
   second 64-channel block), an odd output width (2-byte stores) */
static void c_conv_stem_relu(fb* b) {
    static const int64_t x[4] = {2, 3, 37, 45}, w[4] = {80, 3, 7, 7}, c[1] = {80}, pads[4] = {3, 3, 3, 3}, st[2] = {2, 2};
    aicf_attr a[2];
    a[0] = attr_ints("pads", 4, pads);
    a[1] = attr_ints("strides", 2, st);
    fb_input(b, "x", 4, x, -1, 1);
    fb_const(b, "W", 4, w, -0.2f, 0.2f);
    fb_const(b, "B", 1, c, -0.3f, 0.3f);
    fb_node(b, "conv", "Conv", "x,W,B", "c", a, 2);
    fb_node(b, "relu", "Relu", "c", "y", NULL, 0);
    fb_output(b, "y");
}

/* A 3-channel conv + residual Add, no Relu (fp16 CUDA: the small-K conv's paired epilogue with the
   residual alone) */
static void c_conv_small_residual(fb* b) {
    static const int64_t x[4] = {2, 3, 10, 12}, w[4] = {3, 3, 3, 3}, c[1] = {3}, pads[4] = {1, 1, 1, 1};
    aicf_attr a[1];
    a[0] = attr_ints("pads", 4, pads);
    fb_input(b, "x", 4, x, -1, 1);
    fb_const(b, "W", 4, w, -0.3f, 0.3f);
    fb_const(b, "B", 1, c, -0.3f, 0.3f);
    fb_node(b, "conv", "Conv", "x,W,B", "c", a, 1);
    fb_node(b, "res", "Add", "x,c", "y", NULL, 0);
    fb_output(b, "y");
}

/* GELU as exporters write it before opset 20: Div(x, sqrt 2) Erf Add(1) Mul(x) Mul(0.5), then a
   Tanh; and the other spelling, Mul(x, 1/sqrt 2) ... Mul(0.5) then Mul(x on the left). The
   CUDA chain kernel runs each as one Gelu op (src/81_cuda_ops.c aicf__cuo_fold_gelu); the CPU
   reference runs the ops as written. */
static void c_gelu_exported(fb* b) {
    static const int64_t x[2] = {4, 96};
    fb_input(b, "x", 2, x, -3, 3);
    fb_scalar(b, "sqrt2", 1.41421356f);
    fb_scalar(b, "rsqrt2", 0.70710678f);
    fb_scalar(b, "one", 1.0f);
    fb_scalar(b, "half", 0.5f);
    fb_node(b, "div", "Div", "x,sqrt2", "d", NULL, 0);
    fb_node(b, "erf", "Erf", "d", "e", NULL, 0);
    fb_node(b, "add", "Add", "e,one", "a", NULL, 0);
    fb_node(b, "mulx", "Mul", "x,a", "m", NULL, 0);
    fb_node(b, "mulh", "Mul", "m,half", "g", NULL, 0);
    fb_node(b, "tanh", "Tanh", "g", "y", NULL, 0);
    fb_output(b, "y");
    fb_node(b, "mul2", "Mul", "x,rsqrt2", "d2", NULL, 0);
    fb_node(b, "erf2", "Erf", "d2", "e2", NULL, 0);
    fb_node(b, "add2", "Add", "one,e2", "a2", NULL, 0);
    fb_node(b, "mulh2", "Mul", "a2,half", "m2", NULL, 0);
    fb_node(b, "mulx2", "Mul", "m2,x", "y2", NULL, 0);
    fb_output(b, "y2");
}

/* Conv without bias + PRelu(slope per channel) + per-channel scale and shift */
static void c_conv_prelu_affine(fb* b) {
    static const int64_t x[4] = {1, 3, 7, 5}, w[4] = {6, 3, 1, 1}, pc[3] = {6, 1, 1};
    fb_input(b, "x", 4, x, -1, 1);
    fb_const(b, "W", 4, w, -0.5f, 0.5f);
    fb_const(b, "slope", 3, pc, 0.05f, 0.3f);
    fb_const(b, "scale", 3, pc, 0.5f, 1.5f);
    fb_const(b, "shift", 3, pc, -0.5f, 0.5f);
    fb_node(b, "conv", "Conv", "x,W", "c", NULL, 0);
    fb_node(b, "prelu", "PRelu", "c,slope", "p", NULL, 0);
    fb_node(b, "scale", "Mul", "p,scale", "q", NULL, 0);
    fb_node(b, "shift", "Add", "q,shift", "y", NULL, 0);
    fb_output(b, "y");
}

/* A chain led by a broadcasting Add, with left operands (Mul(z, v), Sub(k, v)), a Clip with
   constant min/max inputs, a Div by a [3,1] operand and a LeakyRelu */
static void c_broadcast_chain(fb* b) {
    static const int64_t a[3] = {2, 3, 4}, v4[1] = {4}, z[3] = {2, 1, 4}, k[1] = {1}, d[2] = {3, 1};
    aicf_attr lr[1];
    lr[0] = attr_f("alpha", 0.2f);
    fb_input(b, "a", 3, a, -2, 2);
    fb_input(b, "bv", 1, v4, -1, 1);
    fb_input(b, "z", 3, z, -1.5f, 1.5f);
    fb_const(b, "k", 1, k, -0.5f, 0.5f);
    fb_const(b, "dv", 2, d, 0.5f, 2.0f);
    fb_scalar(b, "lo", -0.5f);
    fb_scalar(b, "hi", 0.7f);
    fb_node(b, "add", "Add", "a,bv", "s", NULL, 0);
    fb_node(b, "sig", "Sigmoid", "s", "t", NULL, 0);
    fb_node(b, "mulz", "Mul", "z,t", "u", NULL, 0);
    fb_node(b, "subk", "Sub", "k,u", "w", NULL, 0);
    fb_node(b, "clip", "Clip", "w,lo,hi", "q", NULL, 0);
    fb_node(b, "div", "Div", "q,dv", "r", NULL, 0);
    fb_node(b, "lrelu", "LeakyRelu", "r", "y", lr, 1);
    fb_output(b, "y");
}

/* Ten unary ops: the first step takes AICF__EPI_MAX (8) of them, the last starts a new step */
static void c_long_chain(fb* b) {
    static const int64_t x[2] = {3, 33};
    static const char* ops[10] = {"Tanh", "Neg", "Abs", "Sqrt", "Exp", "Log", "Sin", "Cos", "Softsign", "Softplus"};
    char in[16], out[16], nm[16];
    int i;
    fb_input(b, "x", 2, x, -2, 2);
    for (i = 0; i < 10; i++) {
        snprintf(in, sizeof in, i ? "t%d" : "x", i);
        snprintf(out, sizeof out, i == 9 ? "y" : "t%d", i + 1);
        snprintf(nm, sizeof nm, "n%d", i);
        fb_node(b, nm, ops[i], in, out, NULL, 0);
    }
    fb_output(b, "y");
}

/* A graph output is never absorbed: Relu's result is an output, so Exp stays a step */
static void c_stop_at_output(fb* b) {
    static const int64_t x[2] = {5, 7};
    fb_input(b, "x", 2, x, -2, 2);
    fb_node(b, "relu", "Relu", "x", "y1", NULL, 0);
    fb_node(b, "exp", "Exp", "y1", "y2", NULL, 0);
    fb_output(b, "y1");
    fb_output(b, "y2");
}

/* The Add reads e, produced after r: Relu cannot absorb it; Exp absorbs it with r as a left operand */
static void c_operand_order(fb* b) {
    static const int64_t x[2] = {4, 9};
    fb_input(b, "a", 2, x, -2, 2);
    fb_input(b, "b", 2, x, -2, 2);
    fb_node(b, "relu", "Relu", "a", "r", NULL, 0);
    fb_node(b, "exp", "Exp", "b", "e", NULL, 0);
    fb_node(b, "add", "Add", "r,e", "y", NULL, 0);
    fb_output(b, "y");
}

/* Mul(r, r) reads r twice: no fusion */
static void c_double_use(fb* b) {
    static const int64_t x[2] = {4, 9};
    fb_input(b, "a", 2, x, -2, 2);
    fb_node(b, "relu", "Relu", "a", "r", NULL, 0);
    fb_node(b, "sq", "Mul", "r,r", "y", NULL, 0);
    fb_output(b, "y");
}

/* Softmax, then a scale and a residual: the chain runs after a non-GEMM main kernel */
static void c_softmax_chain(fb* b) {
    static const int64_t x[3] = {2, 4, 24};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 3, x, -3, 3);
    fb_input(b, "r", 3, x, -1, 1);
    fb_scalar(b, "scale", 3.5f);
    fb_node(b, "softmax", "Softmax", "x", "p", a, 1);
    fb_node(b, "mul", "Mul", "p,scale", "q", NULL, 0);
    fb_node(b, "add", "Add", "q,r", "y", NULL, 0);
    fb_output(b, "y");
}

/* LayerNormalization, then an extra per-feature gain and a HardSwish */
static void c_layernorm_chain(fb* b) {
    static const int64_t x[3] = {2, 3, 40}, f[1] = {40};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 3, x, -3, 3);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "gain", 1, f, 0.5f, 2.0f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 1);
    fb_node(b, "gain", "Mul", "n,gain", "g", NULL, 0);
    fb_node(b, "hswish", "HardSwish", "g", "y", NULL, 0);
    fb_output(b, "y");
}

/* LayerNormalization as the graph's last node (a post-LN encoder's end): at float16 on CUDA the
   row-register kernel writes the float32 output itself, the boundary Cast folded in */
static void c_layernorm_out(fb* b) {
    static const int64_t x[3] = {2, 5, 96}, f[1] = {96};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 3, x, -3, 3);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "y", a, 1);
    fb_output(b, "y");
}

/* the same with LayerNormalization's Mean and InvStdDev outputs also graph outputs: only Y's Cast
   is folded (the statistics stay float16 tensors with their own Casts) */
static void c_layernorm_out_stats(fb* b) {
    static const int64_t x[2] = {7, 64}, f[1] = {64};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 2, x, -2, 2);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "y,mean,istd", a, 1);
    fb_output(b, "y");
    fb_output(b, "mean");
    fb_output(b, "istd");
}

/* Pow with a constant exponent, Max/Min against inputs, Div with the operand on the left */
static void c_pow_max_min(fb* b) {
    static const int64_t x[2] = {6, 10}, col[2] = {6, 1};
    fb_input(b, "x", 2, x, 0.2f, 2.0f);
    fb_input(b, "m", 2, col, 0.5f, 1.0f);
    fb_input(b, "n", 2, x, 1.0f, 2.0f);
    fb_scalar(b, "p", 1.5f);
    fb_scalar(b, "num", 2.0f);
    fb_node(b, "abs", "Abs", "x", "a", NULL, 0);
    fb_node(b, "pow", "Pow", "a,p", "q", NULL, 0);
    fb_node(b, "max", "Max", "q,m", "r", NULL, 0);
    fb_node(b, "min", "Min", "n,r", "s", NULL, 0);
    fb_node(b, "rdiv", "Div", "num,s", "y", NULL, 0);
    fb_output(b, "y");
}

/* An epilogue op whose output would be larger than the main output (broadcast expands it) is
   not absorbed: Add([4,1], [1,5]) -> [4,5] */
static void c_expanding_broadcast(fb* b) {
    static const int64_t col[2] = {4, 1}, row[2] = {1, 5};
    fb_input(b, "x", 2, col, -1, 1);
    fb_input(b, "r", 2, row, -1, 1);
    fb_node(b, "tanh", "Tanh", "x", "t", NULL, 0);
    fb_node(b, "add", "Add", "t,r", "y", NULL, 0);
    fb_output(b, "y");
}

/* Every unary op the chain kernel knows, each absorbed by an Add that shifts x into its domain:
   y_k = op_k(x + c_k), each y_k a graph output (one fused step per op). The shifts keep the
   step functions (Floor, Ceil, Round) away from their jumps: at fp16 the unfused plan rounds
   x + c to float16 before the op and the fused one does not, which near a jump is a different
   integer, not an error. */
#define N_UNARY 40
static void c_every_unary(fb* b) {
    static const struct {
        const char* op;
        float shift;
        const char* attr; /* "name=value" float attribute, or "approximate" for Gelu tanh */
    } U[N_UNARY] = {
        {"Relu", -0.5f, 0}, {"Tanh", 0, 0}, {"Sigmoid", 0, 0}, {"Exp", 0, 0}, {"Log", 0, 0}, {"Sqrt", 0, 0},
        {"Neg", 0, 0}, {"Abs", -0.5f, 0}, {"Reciprocal", 0, 0}, {"Erf", -0.5f, 0}, {"LeakyRelu", -0.5f, "alpha"},
        {"Elu", -0.5f, "alpha"}, {"HardSigmoid", -0.5f, "alpha"}, {"HardSwish", -3.5f, 0}, {"Clip", 0, 0},
        {"Floor", 1.0f, 0}, {"Ceil", 1.0f, 0}, {"Round", 1.55f, 0}, {"Sign", -0.5f, 0}, {"Softplus", 0, 0},
        {"Softsign", 0, 0}, {"Selu", -0.5f, "alpha"}, {"Celu", -0.5f, "alpha"}, {"ThresholdedRelu", 0, "alpha"},
        {"Sin", 0, 0}, {"Cos", 0, 0}, {"Tan", 0, 0}, {"Asin", 0, 0}, {"Acos", 0, 0}, {"Atan", 0, 0},
        {"Sinh", 0, 0}, {"Cosh", 0, 0}, {"Asinh", 0, 0}, {"Acosh", 1.5f, 0}, {"Atanh", 0, 0},
        {"Gelu", -0.5f, 0}, {"Gelu", -0.5f, "approximate"}, {"Mish", -0.5f, 0}, {"Shrink", -0.5f, "lambd"},
        {"Softsign", -0.5f, 0},
    };
    static const int64_t x[2] = {3, 37};
    char sh[16], s_out[16], y[16], nm[24], cn[16];
    int k;
    int64_t i;
    fb_input(b, "x", 2, x, 0.1f, 0.9f);
    /* on a grid of 2^-10: x and x + shift are exact in float16, so a float16 plan sees the
       reference's values at the discontinuities (Sign at 0, ThresholdedRelu at 0.3, Shrink at
       +-0.3); unquantised, an x within half a float16 step of one flips the output (~7% of runs) */
    for (i = 0; i < 3 * 37; i++) b->in_data[b->n_in - 1][i] = floorf(b->in_data[b->n_in - 1][i] * 1024.0f + 0.5f) / 1024.0f;
    for (k = 0; k < N_UNARY; k++) {
        aicf_attr a[1];
        int na = 0;
        snprintf(cn, sizeof cn, "c%d", k);
        snprintf(sh, sizeof sh, "x,c%d", k);
        snprintf(s_out, sizeof s_out, "s%d", k);
        snprintf(y, sizeof y, "y%d", k);
        fb_scalar(b, cn, U[k].shift);
        snprintf(nm, sizeof nm, "shift%d", k);
        fb_node(b, nm, "Add", sh, s_out, NULL, 0);
        if (U[k].attr && !strcmp(U[k].attr, "approximate")) {
            memset(&a[0], 0, sizeof a[0]);
            a[0].name = "approximate";
            a[0].type = AICF_ATTR_STRING;
            a[0].s = "tanh";
            na = 1;
        } else if (U[k].attr) {
            a[0] = attr_f(U[k].attr, 0.3f);
            na = 1;
        }
        snprintf(nm, sizeof nm, "op%d_%s", k, U[k].op);
        fb_node(b, nm, U[k].op, s_out, y, a, na);
        fb_output(b, y);
    }
}

/* MatMul, a constant scale (into cuBLASLt's alpha), a bias, a Relu: all inside the GEMM on CUDA */
static void c_matmul_scale_bias_relu(fb* b) {
    static const int64_t x[3] = {3, 8, 16}, w[2] = {16, 24}, c[1] = {24};
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "W", 2, w, -0.5f, 0.5f);
    fb_const(b, "bias", 1, c, -0.5f, 0.5f);
    fb_scalar(b, "s", 2.5f);
    fb_node(b, "mm", "MatMul", "x,W", "m", NULL, 0);
    fb_node(b, "scale", "Div", "m,s", "d", NULL, 0);
    fb_node(b, "bias", "Add", "d,bias", "h", NULL, 0);
    fb_node(b, "relu", "Relu", "h", "y", NULL, 0);
    fb_output(b, "y");
}

/* Attention scores: batched Q K^T, a scale, an additive mask broadcast over batch and heads */
static void c_attention_scores(fb* b) {
    static const int64_t q[4] = {2, 3, 8, 16}, k[4] = {2, 3, 16, 8}, m[2] = {8, 8};
    fb_input(b, "q", 4, q, -1, 1);
    fb_input(b, "k", 4, k, -1, 1);
    fb_input(b, "mask", 2, m, -2, 0);
    fb_scalar(b, "s", 0.25f);
    fb_node(b, "qk", "MatMul", "q,k", "a", NULL, 0);
    fb_node(b, "scale", "Mul", "a,s", "b", NULL, 0);
    fb_node(b, "mask", "Add", "b,mask", "y", NULL, 0);
    fb_output(b, "y");
}

/* Attention with K stored [.., S, D]: the Transpose to K^T is absorbed into the QK^T MatMul
   (input 1 read transposed), the scale into its epilogue; softmax; .V */
static void c_attention_kt(fb* b) {
    static const int64_t q[4] = {2, 3, 8, 16}, one = 1;
    static const int64_t perm[4] = {0, 1, 3, 2};
    aicf_attr a[1], ax[1];
    a[0] = attr_ints("perm", 4, perm);
    ax[0] = attr_i("axis", -1);
    (void)one;
    fb_input(b, "q", 4, q, -1, 1);
    fb_input(b, "k", 4, q, -1, 1);
    fb_input(b, "v", 4, q, -1, 1);
    fb_scalar(b, "s", 0.25f);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
    fb_node(b, "scale", "Mul", "sc,s", "ss", NULL, 0);
    fb_node(b, "softmax", "Softmax", "ss", "p", ax, 1);
    fb_node(b, "pv", "MatMul", "p,v", "y", NULL, 0);
    fb_output(b, "y");
}

/* The general attention chain with K^T absorbed, scale = 1/c (Div), a 2-D mask broadcast over
   batch and heads: one Attention step. D = 32: the tensor-core kernel at fp16; Sq = 40 and
   Skv = 70 are not multiples of its 64-row / 64-key tiles. */
static void attn_chain(fb* b, int rank, const int64_t* q, const int64_t* k, const int64_t* v, const int64_t* m, int mrank,
                       const char* scale_op, int scale_left) {
    static const int64_t perm4[4] = {0, 1, 3, 2}, perm3[3] = {0, 2, 1};
    aicf_attr a[1], ax[1];
    const char* cur = "sc";
    a[0] = attr_ints("perm", rank, rank == 4 ? perm4 : perm3);
    ax[0] = attr_i("axis", -1);
    fb_input(b, "q", rank, q, -1, 1);
    fb_input(b, "k", rank, k, -1, 1);
    fb_input(b, "v", rank, v, -1, 1);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
    if (scale_op) {
        fb_scalar(b, "c", !strcmp(scale_op, "Div") ? 5.656854f : 0.17677669f);
        fb_node(b, "scale", scale_op, scale_left ? "c,sc" : "sc,c", "ss", NULL, 0);
        cur = "ss";
    }
    if (m) {
        char ins[16];
        fb_input(b, "mask", mrank, m, -3, 0.5f);
        snprintf(ins, sizeof ins, "%s,mask", cur);
        fb_node(b, "add_mask", "Add", ins, "sm", NULL, 0);
        cur = "sm";
    }
    fb_node(b, "softmax", "Softmax", cur, "p", ax, 1);
    fb_node(b, "pv", "MatMul", "p,v", "y", NULL, 0);
    fb_output(b, "y");
}

static void c_attention_fused_d32(fb* b) {
    static const int64_t q[4] = {2, 3, 40, 32}, k[4] = {2, 3, 70, 32}, m[2] = {40, 70};
    attn_chain(b, 4, q, k, k, m, 2, "Div", 0);
}

/* D = 64, a full 4-D mask, the scale constant on the left of the Mul; Sq = Skv = 65 */
static void c_attention_fused_d64(fb* b) {
    static const int64_t q[4] = {1, 4, 65, 64}, m[4] = {1, 4, 65, 65};
    attn_chain(b, 4, q, q, q, m, 4, "Mul", 1);
}

/* D = 128, no mask, three key blocks (130 keys) */
static void c_attention_fused_d128(fb* b) {
    static const int64_t q[4] = {1, 2, 70, 128}, k[4] = {1, 2, 130, 128};
    attn_chain(b, 4, q, k, k, NULL, 0, "Mul", 0);
}

/* 3-D (one head), no scale, Dv != D, a mask of one row broadcast over the queries: the
   one-warp-per-row kernel on every precision */
static void c_attention_fused_3d(fb* b) {
    static const int64_t q[3] = {3, 20, 24}, k[3] = {3, 33, 24}, v[3] = {3, 33, 40}, m[2] = {1, 33};
    attn_chain(b, 3, q, k, v, m, 2, NULL, 0);
}

/* The encoder's multi-head attention as PyTorch exports it: one projection [B, S, 3*H*D] ->
   Reshape [B, S, 3, H, D] -> Transpose [3, B, H, S, D] -> Split -> Squeeze (Q, K, V [B, H, S, D]),
   K^T, scale, Softmax, .V, then Transpose [B, S, H, D] -> Reshape [B, S, H*D]: one Attention
   step reading the projection and writing the merged heads as strided views (the Reshape,
   Transposes, Split and Squeezes absorbed). H = 3, D = 32: the tensor-core kernel at fp16. */
static void attn_heads(fb* b, int64_t B, int64_t S, int64_t H, int64_t D, int extra_reader) {
    static const int64_t perm_h[5] = {2, 0, 3, 1, 4}, perm_k[4] = {0, 1, 3, 2}, perm_o[4] = {0, 2, 1, 3}, zero[1] = {0};
    int64_t x[3], w[2], shp5[5], shp3[3];
    aicf_attr a[1], ax[1], sp[1];
    x[0] = B, x[1] = S, x[2] = 3 * H * D;
    w[0] = 3 * H * D, w[1] = 3 * H * D;
    shp5[0] = B, shp5[1] = S, shp5[2] = 3, shp5[3] = H, shp5[4] = D;
    shp3[0] = B, shp3[1] = S, shp3[2] = H * D;
    fb_input(b, "x", 3, x, -1, 1);
    fb_const(b, "Wqkv", 2, w, -0.2f, 0.2f);
    fb_i64(b, "shape5", 5, shp5);
    fb_i64(b, "shape3", 3, shp3);
    fb_i64(b, "axes0", 1, zero);
    fb_scalar(b, "c", 5.656854f);
    fb_node(b, "qkv", "MatMul", "x,Wqkv", "qkv", NULL, 0);
    fb_node(b, "reshape", "Reshape", "qkv,shape5", "x5", NULL, 0);
    a[0] = attr_ints("perm", 5, perm_h);
    fb_node(b, "heads", "Transpose", "x5", "t5", a, 1);
    sp[0] = attr_i("axis", 0);
    fb_node(b, "split", "Split", "t5", "q1,k1,v1", sp, 1);
    fb_node(b, "sq_q", "Squeeze", "q1,axes0", "q", NULL, 0);
    fb_node(b, "sq_k", "Squeeze", "k1,axes0", "k", NULL, 0);
    fb_node(b, "sq_v", "Squeeze", "v1,axes0", "v", NULL, 0);
    a[0] = attr_ints("perm", 4, perm_k);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
    fb_node(b, "scale", "Div", "sc,c", "ss", NULL, 0);
    ax[0] = attr_i("axis", -1);
    fb_node(b, "softmax", "Softmax", "ss", "p", ax, 1);
    fb_node(b, "pv", "MatMul", "p,v", "o", NULL, 0);
    a[0] = attr_ints("perm", 4, perm_o);
    fb_node(b, "merge", "Transpose", "o", "om", a, 1);
    fb_node(b, "reshape_o", "Reshape", "om,shape3", "y", NULL, 0);
    fb_output(b, "y");
    if (extra_reader) { /* V also read elsewhere: its Squeeze stays, so no view is taken */
        fb_node(b, "v_out", "Relu", "v", "vr", NULL, 0);
        fb_output(b, "vr");
    }
}

static void c_attention_heads(fb* b) { attn_heads(b, 2, 40, 3, 32, 0); }

/* the same with V also read by another node: the layout nodes stay, attention is fused alone */
static void c_attention_heads_shared_v(fb* b) { attn_heads(b, 1, 24, 2, 16, 1); }

/* not attention: the mask added before the scale (scale * (S + M) is not what Attention
   computes); the Transpose is absorbed, the Add and Mul fused into the QK^T MatMul */
static void c_attention_mask_then_scale(fb* b) {
    static const int64_t q[4] = {1, 2, 16, 32}, m[2] = {16, 16}, perm[4] = {0, 1, 3, 2};
    aicf_attr a[1], ax[1];
    a[0] = attr_ints("perm", 4, perm);
    ax[0] = attr_i("axis", -1);
    fb_input(b, "q", 4, q, -1, 1);
    fb_input(b, "k", 4, q, -1, 1);
    fb_input(b, "v", 4, q, -1, 1);
    fb_input(b, "mask", 2, m, -1, 0);
    fb_scalar(b, "c", 0.25f);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
    fb_node(b, "add_mask", "Add", "sc,mask", "sm", NULL, 0);
    fb_node(b, "scale", "Mul", "sm,c", "ss", NULL, 0);
    fb_node(b, "softmax", "Softmax", "ss", "p", ax, 1);
    fb_node(b, "pv", "MatMul", "p,v", "y", NULL, 0);
    fb_output(b, "y");
}

/* not attention: the softmax over the queries (axis 2), not the keys */
static void c_attention_softmax_axis2(fb* b) {
    static const int64_t q[4] = {1, 2, 16, 32}, perm[4] = {0, 1, 3, 2};
    aicf_attr a[1], ax[1];
    a[0] = attr_ints("perm", 4, perm);
    ax[0] = attr_i("axis", 2);
    fb_input(b, "q", 4, q, -1, 1);
    fb_input(b, "k", 4, q, -1, 1);
    fb_input(b, "v", 4, q, -1, 1);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
    fb_node(b, "softmax", "Softmax", "sc", "p", ax, 1);
    fb_node(b, "pv", "MatMul", "p,v", "y", NULL, 0);
    fb_output(b, "y");
}

/* The same K^T also a graph output: the Transpose stays (its result is needed) */
static void c_attention_kt_output(fb* b) {
    static const int64_t q[4] = {2, 3, 8, 16};
    static const int64_t perm[4] = {0, 1, 3, 2};
    aicf_attr a[1];
    a[0] = attr_ints("perm", 4, perm);
    fb_input(b, "q", 4, q, -1, 1);
    fb_input(b, "k", 4, q, -1, 1);
    fb_node(b, "kt", "Transpose", "k", "kT", a, 1);
    fb_node(b, "qk", "MatMul", "q,kT", "y", NULL, 0);
    fb_output(b, "y");
    fb_output(b, "kT");
}

/* a 2-D Transpose without perm (the default reverses the axes) feeding a MatMul's B */
static void c_matmul_bt_2d(fb* b) {
    static const int64_t x[2] = {5, 12}, w[2] = {7, 12};
    fb_input(b, "x", 2, x, -1, 1);
    fb_input(b, "w", 2, w, -1, 1);
    fb_node(b, "wt", "Transpose", "w", "wT", NULL, 0);
    fb_node(b, "mm", "MatMul", "x,wT", "y", NULL, 0);
    fb_output(b, "y");
}

/* The LayerNorm fold (src/70_plan.c aicf__fuse_ln_prologue): a LayerNormalization absorbed by
   the MatMul reading it. On the CPU reference (and CUDA at float16 on a device that runs the
   fold's kernel, sm_90) the LayerNorm's step goes; elsewhere it stays. Rows with a mean away
   from zero (x in [-1, 3]) so the fold's rstd (x W') - rstd mean c1 is a cancellation. */
/* M = 128 rows, K = 96 (not a multiple of 64: a partial slab), N = 200; the LayerNorm's output
   read again by a later residual Add (kept as the fused step's output 1) */
static void c_ln_fold_residual(fb* b) {
    static const int64_t x[3] = {2, 64, 96}, f[1] = {96}, w[2] = {96, 200}, nb[1] = {200}, w2[2] = {200, 96};
    aicf_attr a[2];
    a[0] = attr_i("axis", -1);
    a[1] = attr_f("epsilon", 1e-5f);
    fb_input(b, "x", 3, x, -1, 3);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "w", 2, w, -0.2f, 0.2f);
    fb_const(b, "bias", 1, nb, -0.5f, 0.5f);
    fb_const(b, "w2", 2, w2, -0.1f, 0.1f);
    fb_const(b, "b2", 1, f, -0.5f, 0.5f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 2);
    fb_node(b, "mm", "MatMul", "n,w", "h", NULL, 0);
    fb_node(b, "add", "Add", "h,bias", "hb", NULL, 0);
    fb_node(b, "mm2", "MatMul", "hb,w2", "o", NULL, 0);
    fb_node(b, "add2", "Add", "o,b2", "ob", NULL, 0);
    fb_node(b, "res", "Add", "ob,n", "y", NULL, 0);
    fb_output(b, "y");
}

/* the encoder's qkv at batch 1: M = 128, K = 384, N = 1152 (72 tiles of 64 x 32: the wider
   kernel), the LayerNorm's output also read by the residual */
static void c_ln_fold_qkv(fb* b) {
    static const int64_t x[3] = {1, 128, 384}, f[1] = {384}, w[2] = {384, 1152}, nb[1] = {1152}, w2[2] = {1152, 384};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 3, x, -2, 2);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "w", 2, w, -0.1f, 0.1f);
    fb_const(b, "bias", 1, nb, -0.5f, 0.5f);
    fb_const(b, "w2", 2, w2, -0.03f, 0.03f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 1);
    fb_node(b, "mm", "MatMul", "n,w", "h", NULL, 0);
    fb_node(b, "add", "Add", "h,bias", "hb", NULL, 0);
    fb_node(b, "mm2", "MatMul", "hb,w2", "o", NULL, 0);
    fb_node(b, "res", "Add", "o,n", "y", NULL, 0);
    fb_output(b, "y");
}

/* x [M, K] (values in [lo, hi]) -> LayerNormalization (axis, Scale and B constants) -> MatMul
   W [K, N] -> Add bias: the MatMul the LayerNorm's only reader */
static void fb_ln_matmul_bias(fb* b, int64_t M, int64_t K, int64_t N, float lo, float hi, int64_t axis) {
    const int64_t x[2] = {M, K}, f[1] = {K}, w[2] = {K, N}, nb[1] = {N};
    aicf_attr a[1];
    a[0] = attr_i("axis", axis);
    fb_input(b, "x", 2, x, lo, hi);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "w", 2, w, -0.3f, 0.3f);
    fb_const(b, "bias", 1, nb, -0.5f, 0.5f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 1);
    fb_node(b, "mm", "MatMul", "n,w", "h", NULL, 0);
    fb_node(b, "add", "Add", "h,bias", "y", NULL, 0);
    fb_output(b, "y");
}

/* M = 160 (a partial row tile), K = 64, N = 48, the MatMul the LayerNorm's only reader: its
   output is not stored on CUDA */
static void c_ln_fold_only(fb* b) { fb_ln_matmul_bias(b, 160, 64, 48, -1, 3, 1); }

/* no B (bias) input on the LayerNorm, no epilogue on the MatMul; epsilon 1e-3 */
static void c_ln_fold_no_beta(fb* b) {
    static const int64_t x[2] = {256, 32}, f[1] = {32}, w[2] = {32, 64};
    aicf_attr a[2];
    a[0] = attr_i("axis", -1);
    a[1] = attr_f("epsilon", 1e-3f);
    fb_input(b, "x", 2, x, -1, 3);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "w", 2, w, -0.3f, 0.3f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma", "n", a, 2);
    fb_node(b, "mm", "MatMul", "n,w", "y", NULL, 0);
    fb_output(b, "y");
}

/* rows far from zero (x in [8, 12]: |mean| ~ 9 standard deviations): on CUDA the fold's
   tensor-core E[x^2] - mean^2 cancels, and the kernel computes those rows' statistics again in
   one shifted pass on the CUDA cores */
static void c_ln_fold_offset(fb* b) { fb_ln_matmul_bias(b, 192, 128, 64, 8, 12, -1); }

/* not folded: M = 100 rows (the fold's kernel takes 128..256) */
static void c_ln_fold_small_m(fb* b) { fb_ln_matmul_bias(b, 100, 64, 48, -1, 3, -1); }

/* not folded: the MatMul's output an input of a Concat along the last axis, at column 20 (a
   view there would leave its rows 8-byte aligned, which the fold's kernel cannot take) */
static void c_ln_fold_concat(fb* b) {
    static const int64_t x[2] = {128, 64}, f[1] = {64}, w[2] = {64, 48}, z[2] = {128, 20};
    aicf_attr a[1], c[1];
    a[0] = attr_i("axis", -1);
    c[0] = attr_i("axis", 1);
    fb_input(b, "x", 2, x, -1, 3);
    fb_input(b, "z", 2, z, -1, 1);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "w", 2, w, -0.3f, 0.3f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 1);
    fb_node(b, "mm", "MatMul", "n,w", "h", NULL, 0);
    fb_node(b, "cat", "Concat", "z,h", "y", c, 1);
    fb_output(b, "y");
}

/* The LayerNorm after a MatMul (src/70_plan.c aicf__fuse_ln_epilogue): x [M, K] -> MatMul W
   [K, N] -> [Add bias] -> [Add residual r [M, N]] -> LayerNormalization (Scale, [B], epsilon)
   -> y, the sum read by the LayerNorm only. Fused on the CPU reference (by the shape rule: N a
   split width, the 64-row blocks' clusters filling half of 132 SMs) and on CUDA at float16 on
   sm_90 (aicf_gemm_wsln); elsewhere two steps. Residuals in [-1, 3]: rows with a mean away from
   zero. */
static void fb_matmul_ln(fb* b, int64_t M, int64_t K, int64_t N, int bias, int res, int beta, float eps) {
    const int64_t x[2] = {M, K}, f[1] = {N}, w[2] = {K, N}, r[2] = {M, N};
    char ins[32];
    const char* cur = "h";
    aicf_attr a[2];
    a[0] = attr_i("axis", -1);
    a[1] = attr_f("epsilon", eps);
    fb_input(b, "x", 2, x, -1, 1);
    if (res) fb_input(b, "r", 2, r, -1, 3);
    fb_const(b, "w", 2, w, -0.1f, 0.1f);
    if (bias) fb_const(b, "bias", 1, f, -0.5f, 0.5f);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    if (beta) fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_node(b, "mm", "MatMul", "x,w", "h", NULL, 0);
    if (bias) {
        fb_node(b, "add", "Add", "h,bias", "hb", NULL, 0);
        cur = "hb";
    }
    if (res) {
        snprintf(ins, sizeof ins, "%s,r", cur);
        fb_node(b, "res", "Add", ins, "hr", NULL, 0);
        cur = "hr";
    }
    snprintf(ins, sizeof ins, "%s,gamma%s", cur, beta ? ",beta" : "");
    fb_node(b, "ln", "LayerNormalization", ins, "y", a, 2);
    fb_output(b, "y");
}
/* the encoder's o at 16.4 rows of 128 (M = 2100: a partial 64-row block), K = N = 384 */
static void c_ln_epi_o(fb* b) { fb_matmul_ln(b, 2100, 384, 384, 1, 1, 1, 1e-5f); }
/* f2's shape with K = 1000 (a partial slab; 16 slabs through the ring) */
static void c_ln_epi_f2(fb* b) { fb_matmul_ln(b, 2100, 1000, 384, 1, 1, 1, 1e-5f); }
/* N = 768 over clusters of 4, the residual only, no B on the LayerNorm */
static void c_ln_epi_n768(fb* b) { fb_matmul_ln(b, 1100, 96, 768, 0, 1, 0, 1e-5f); }
/* N = 256 (2 x 128), the bias only, epsilon 1e-3 */
static void c_ln_epi_n256(fb* b) { fb_matmul_ln(b, 2200, 64, 256, 1, 0, 1, 1e-3f); }
/* o's shape with the LayerNorm's output read twice (a graph output and a Relu): at float16 on
   CUDA the output Cast stays a launch, so the kernel stores float16 through its staged TMA
   stores (where y is read once, the ln_epi cases above, the kernel writes the float32 output
   itself: the Cast absorbed) */
static void c_ln_epi_two_readers(fb* b) {
    fb_matmul_ln(b, 2100, 384, 384, 1, 1, 1, 1e-5f);
    fb_node(b, "relu", "Relu", "y", "z", NULL, 0);
    fb_output(b, "z");
}
/* not fused: N = 320 is no split width */
static void c_ln_epi_n320(fb* b) { fb_matmul_ln(b, 2100, 64, 320, 1, 1, 1, 1e-5f); }
/* not fused: the sum the LayerNorm reads is a graph output too */
static void c_ln_epi_sum_output(fb* b) {
    fb_matmul_ln(b, 2100, 64, 384, 1, 1, 1, 1e-5f);
    fb_output(b, "hr");
}
/* not fused: the LayerNorm's output an input of a Concat along the last axis (the memory plan
may make it a view with rows of 392, which the kernel's tensor map of 384 could not write) */
static void c_ln_epi_concat(fb* b) {
    static const int64_t z[2] = {2100, 8};
    aicf_attr c[1];
    c[0] = attr_i("axis", 1);
    fb_matmul_ln(b, 2100, 64, 384, 1, 1, 1, 1e-5f);
    fb_input(b, "z", 2, z, -1, 1);
    fb_node(b, "cat", "Concat", "y,z", "cz", c, 1);
    fb_output(b, "cz");
}
/* not fused: 1000 rows (16 blocks: the clusters would keep a quarter of the SMs busy) */
static void c_ln_epi_few_rows(fb* b) { fb_matmul_ln(b, 1000, 64, 384, 1, 1, 1, 1e-5f); }

/* not folded: the LayerNorm's output read by a step before the MatMul's (a Relu, a graph
   output) */
static void c_ln_fold_early_reader(fb* b) {
    static const int64_t x[3] = {2, 64, 64}, f[1] = {64}, w[2] = {64, 32};
    aicf_attr a[1];
    a[0] = attr_i("axis", -1);
    fb_input(b, "x", 3, x, -1, 3);
    fb_const(b, "gamma", 1, f, 0.5f, 1.5f);
    fb_const(b, "beta", 1, f, -0.5f, 0.5f);
    fb_const(b, "w", 2, w, -0.3f, 0.3f);
    fb_node(b, "ln", "LayerNormalization", "x,gamma,beta", "n", a, 1);
    fb_node(b, "relu", "Relu", "n", "r", NULL, 0);
    fb_node(b, "mm", "MatMul", "n,w", "y", NULL, 0);
    fb_output(b, "r");
    fb_output(b, "y");
}

typedef struct fcase {
    const char* name;
    void (*build)(fb*);
    int unfused, fused; /* expected step counts (float32; fp16 plans add boundary casts) */
    double cpu_tol;     /* CPU reference, fused against unfused: 0 = bitwise equal, else the largest
                           relative error (attention: the scale applied as sqrt(c) to Q and K, sums
                           in double, as ONNX Attention) */
    int fused_cuda;     /* fused steps on CUDA where they differ (0 = fused): a Split there is a view */
    int unfused_cuda;   /* unfused steps on CUDA where they differ (0 = unfused) */
    int same_launches;  /* 1: on CUDA at fp32/tf32 the fused plan may launch as many kernels as the
                           unfused one (a cuBLASLt GEMM has no epilogue for the chain, which then
                           runs as its own launch, as unfused) */
    int fused_nofold;   /* the LayerNorm fold's cases: fused steps on CUDA where the fold does not
                           apply (float32, or a device without the fold's kernel); 0 = as fused */
} fcase;

static int g_fold_dev; /* 1: the CUDA device of this run runs the LayerNorm fold (sm_90, the real GPU) */

static int fused_steps_p(const fcase* c, aicf_backend backend, aicf_precision prec) {
    if (backend == AICF_BACKEND_CUDA && c->fused_nofold && !(prec == AICF_PRECISION_FP16 && g_fold_dev)) return c->fused_nofold;
    return backend == AICF_BACKEND_CUDA && c->fused_cuda ? c->fused_cuda : c->fused;
}

static int unfused_steps(const fcase* c, aicf_backend backend) {
    return backend == AICF_BACKEND_CUDA && c->unfused_cuda ? c->unfused_cuda : c->unfused;
}

static const fcase CASES[] = {
    {"gemm_bias_relu", c_gemm_bias_relu, 3, 1, 0, 0, 0, 0, 0},
    {"linear_b1_residual_tanh", c_linear_b1_residual_tanh, 3, 1, 0, 0, 0, 0, 0},
    {"gemm_m64_tanh_out", c_gemm_m64_tanh_out, 2, 1, 0, 0, 0, 1, 0},
    {"linear_m3_relu_scale", c_linear_m3_relu_scale, 3, 1, 0, 0, 0, 0, 0},
    {"mlp_b1_chain", c_mlp_b1_chain, 8, 4, 0, 0, 0, 0, 0},
    {"mlp_m5_residual", c_mlp_m5_residual, 7, 4, 0, 0, 0, 0, 0},
    {"mlp_weights_input", c_mlp_weights_input, 3, 2, 0, 0, 0, 0, 0},
    {"linear_residual_gelu", c_linear_residual_gelu, 8, 1, 1e-6, 0, 0, 0, 0},
    {"linear_gelu_enc", c_linear_gelu_enc, 7, 1, 1e-6, 0, 0, 0, 0},
    {"linear_gelu_tanh", c_linear_gelu_tanh, 3, 1, 0, 0, 0, 0, 0},
    {"linear_gelu_none", c_linear_gelu_none, 3, 1, 0, 0, 0, 0, 0},
    {"linear_gelu_m2048", c_linear_gelu_m2048, 4, 2, 0, 0, 0, 0, 0},
    {"linear_residual_gelu_m2080", c_linear_residual_gelu_m2080, 9, 2, 1e-6, 0, 0, 0, 0},
    {"conv_residual_relu", c_conv_residual_relu, 3, 1, 0, 0, 0, 0, 0},
    {"conv_residual_relu_splitk", c_conv_residual_relu_splitk, 6, 2, 0, 0, 0, 0, 0},
    {"conv_residual_relu_batched", c_conv_residual_relu_batched, 3, 1, 0, 0, 0, 0, 0},
    {"conv_residual_relu_rows", c_conv_residual_relu_rows, 3, 1, 0, 0, 0, 0, 0},
    {"conv_stem_relu", c_conv_stem_relu, 2, 1, 0, 0, 0, 1, 0}, /* fp32: im2col + cuBLASLt, then bias and Relu */
    {"conv_small_residual", c_conv_small_residual, 2, 1, 0, 0, 0, 1, 0}, /* fp32: the direct conv, then the Add */
    {"gelu_exported", c_gelu_exported, 11, 2, 1e-6, 0, 0, 0, 0},
    {"conv_prelu_affine", c_conv_prelu_affine, 4, 1, 0, 0, 0, 0, 0},
    {"broadcast_chain", c_broadcast_chain, 7, 1, 0, 0, 0, 0, 0},
    {"long_chain", c_long_chain, 10, 2, 0, 0, 0, 0, 0},
    {"stop_at_output", c_stop_at_output, 2, 2, 0, 0, 0, 0, 0},
    {"operand_order", c_operand_order, 3, 2, 0, 0, 0, 0, 0},
    {"double_use", c_double_use, 2, 2, 0, 0, 0, 0, 0},
    {"softmax_chain", c_softmax_chain, 3, 1, 0, 0, 0, 0, 0},
    {"layernorm_chain", c_layernorm_chain, 3, 1, 0, 0, 0, 0, 0},
    {"layernorm_out", c_layernorm_out, 1, 1, 0, 0, 0, 0, 0},
    {"layernorm_out_stats", c_layernorm_out_stats, 1, 1, 0, 0, 0, 0, 0},
    {"pow_max_min", c_pow_max_min, 5, 1, 0, 0, 0, 0, 0},
    {"expanding_broadcast", c_expanding_broadcast, 2, 2, 0, 0, 0, 0, 0},
    {"every_unary", c_every_unary, 2 * N_UNARY, N_UNARY, 0, 0, 0, 0, 0},
    {"matmul_scale_bias_relu", c_matmul_scale_bias_relu, 4, 1, 0, 0, 0, 0, 0},
    {"attention_scores", c_attention_scores, 3, 1, 0, 0, 0, 0, 0},
    {"attention_kt", c_attention_kt, 5, 1, 1e-5, 0, 0, 0, 0},
    {"attention_fused_d32", c_attention_fused_d32, 6, 1, 1e-5, 0, 0, 0, 0},
    {"attention_fused_d64", c_attention_fused_d64, 6, 1, 1e-5, 0, 0, 0, 0},
    {"attention_fused_d128", c_attention_fused_d128, 5, 1, 1e-5, 0, 0, 0, 0},
    {"attention_fused_3d", c_attention_fused_3d, 5, 1, 1e-5, 0, 0, 0, 0},
    {"attention_heads", c_attention_heads, 9, 2, 1e-5, 0, 8, 0, 0},
    {"attention_heads_shared_v", c_attention_heads_shared_v, 10, 5, 1e-5, 4, 9, 0, 0},
    {"attention_mask_then_scale", c_attention_mask_then_scale, 6, 3, 0, 0, 0, 0, 0},
    {"attention_softmax_axis2", c_attention_softmax_axis2, 4, 3, 0, 0, 0, 0, 0},
    {"attention_kt_output", c_attention_kt_output, 2, 2, 0, 0, 0, 0, 0},
    {"matmul_bt_2d", c_matmul_bt_2d, 2, 1, 0, 0, 0, 0, 0},
    {"ln_fold_residual", c_ln_fold_residual, 6, 2, 0, 0, 0, 0, 3},
    {"ln_fold_qkv", c_ln_fold_qkv, 5, 2, 0, 0, 0, 0, 3},
    {"ln_fold_only", c_ln_fold_only, 3, 1, 0, 0, 0, 0, 2},
    {"ln_fold_no_beta", c_ln_fold_no_beta, 2, 1, 0, 0, 0, 0, 2},
    {"ln_fold_offset", c_ln_fold_offset, 3, 1, 0, 0, 0, 0, 2},
    {"ln_fold_small_m", c_ln_fold_small_m, 3, 2, 0, 0, 0, 0, 0},
    {"ln_fold_early_reader", c_ln_fold_early_reader, 3, 3, 0, 0, 0, 0, 0},
    {"ln_fold_concat", c_ln_fold_concat, 3, 3, 0, 0, 0, 0, 0},
    {"ln_epi_o", c_ln_epi_o, 4, 1, 0, 0, 0, 0, 2},
    {"ln_epi_f2", c_ln_epi_f2, 4, 1, 0, 0, 0, 0, 2},
    {"ln_epi_n768", c_ln_epi_n768, 3, 1, 0, 0, 0, 0, 2},
    {"ln_epi_n256", c_ln_epi_n256, 3, 1, 0, 0, 0, 0, 2},
    {"ln_epi_two_readers", c_ln_epi_two_readers, 5, 2, 0, 0, 0, 0, 3},
    {"ln_epi_n320", c_ln_epi_n320, 4, 2, 0, 0, 0, 0, 0},
    {"ln_epi_few_rows", c_ln_epi_few_rows, 4, 2, 0, 0, 0, 0, 0},
    {"ln_epi_sum_output", c_ln_epi_sum_output, 4, 2, 0, 0, 0, 0, 0},
    {"ln_epi_concat", c_ln_epi_concat, 5, 3, 0, 0, 0, 0, 0},
};

/* Plans b's graph on `backend` and runs it; the outputs are returned in *outs (malloc'd). */
static int g_gelu_tanh; /* the policy's gelu_tanh for plan_run_ex (test_gpu_gelu_tanh) */
static char g_kernels[4096]; /* plan_run_ex: the kernels of the last plan's steps, each followed by a space */
static int plan_run_ex(fb* b, aicf_backend backend, aicf_precision prec, int no_fusion, int autotune, int* steps, int* kernels,
                       float** outs, size_t* out_bytes, int* tuned) {
    aicf_plan_desc pd;
    aicf_plan* plan = NULL;
    aicf_exec* ex = NULL;
    aicf_plan_stats ps;
    aicf_exec_stats es;
    int i, ok = 1;
    memset(&pd, 0, sizeof pd);
    pd.backend = backend;
    pd.policy.precision = prec;
    pd.policy.no_fusion = no_fusion;
    pd.policy.autotune = autotune == 1;
    pd.policy.gelu_tanh = g_gelu_tanh;
    if (autotune == 2) pd.policy.matmul_algo = AICF_MATMUL_GENERATED; /* the generated GEMMs, no cuBLASLt */
    if (aicf_plan_create(b->g, &pd, &plan) != AICF_SUCCESS) {
        printf("  plan: %s\n", aicf_last_error(b->ctx));
        return 0;
    }
    aicf_plan_stats_get(plan, &ps);
    *steps = ps.num_steps;
    g_kernels[0] = 0;
    for (i = 0; i < plan->n_steps; i++) {
        size_t l = strlen(g_kernels);
        snprintf(g_kernels + l, sizeof g_kernels - l, "%s ", plan->steps[i].kernel);
    }
    if (tuned) {
        *tuned = 0;
        for (i = 0; i < plan->n_steps; i++) *tuned += plan->steps[i].n_tuned > 0;
    }
    if (aicf_exec_create(plan, NULL, &ex) != AICF_SUCCESS) {
        printf("  exec: %s\n", aicf_last_error(b->ctx));
        aicf_plan_destroy(plan);
        return 0;
    }
    memset(&es, 0, sizeof es);
    aicf_exec_stats_get(ex, &es);
    *kernels = es.kernel_nodes;
    for (i = 0; i < b->n_in && ok; i++) {
        int k = aicf_plan_find_input(plan, b->in_name[i]);
        ok = k >= 0 && aicf_exec_set_input(ex, k, b->in_data[i], b->in_bytes[i]) == AICF_SUCCESS;
    }
    ok = ok && aicf_exec_run(ex) == AICF_SUCCESS;
    for (i = 0; i < b->n_out && ok; i++) {
        aicf_tensor_info ti;
        int k = aicf_plan_find_output(plan, b->out_name[i]);
        ok = k >= 0 && aicf_plan_output_info(plan, k, &ti) == AICF_SUCCESS;
        if (!ok) break;
        out_bytes[i] = ti.bytes;
        outs[i] = (float*)malloc(ti.bytes ? ti.bytes : 1);
        ok = aicf_exec_get_output(ex, k, outs[i], ti.bytes) == AICF_SUCCESS;
    }
    if (!ok) printf("  run: %s\n", aicf_last_error(b->ctx));
    aicf_exec_destroy(ex);
    aicf_plan_destroy(plan);
    return ok;
}

static int plan_run(fb* b, aicf_backend backend, aicf_precision prec, int no_fusion, int* steps, int* kernels, float** outs,
                    size_t* out_bytes) {
    return plan_run_ex(b, backend, prec, no_fusion, 0, steps, kernels, outs, out_bytes, NULL);
}

/* max |a - b| / max(max |b|, floor) */
static double rel_err_floor(const float* a, const float* b, size_t n, double floor) {
    double num = 0, den = floor;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d > num || d != d) num = d != d ? INFINITY : d;
        if (fabs((double)b[i]) > den) den = fabs((double)b[i]);
    }
    return num / den;
}

/* max |a - b| / max(1e-6, max |b|) */
static double rel_err(const float* a, const float* b, size_t n) { return rel_err_floor(a, b, n, 1e-6); }

/* Frees three runs' outputs (FB_MAX each), b's input data and its graph. */
static void fb_free_run(fb* b, float** o1, float** o2, float** o3) {
    int i;
    for (i = 0; i < FB_MAX; i++) {
        free(o1[i]);
        free(o2[i]);
        free(o3[i]);
    }
    for (i = 0; i < b->n_in; i++) free(b->in_data[i]);
    aicf_graph_destroy(b->g);
}

static void run_case(aicf_context* ctx, const fcase* c, aicf_backend backend, aicf_precision prec) {
    fb b;
    float* out_u[FB_MAX] = {0};
    float* out_f[FB_MAX] = {0};
    float* out_ref[FB_MAX] = {0};
    size_t bytes_u[FB_MAX], bytes_f[FB_MAX], bytes_ref[FB_MAX];
    int su = 0, sf = 0, ku = 0, kf = 0, sr = 0, kr = 0, i, casts = 0;
    const char* pname = prec == AICF_PRECISION_FP16 ? "fp16" : "fp32";
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
    if (b.ok) aicf_graph_set_opset(b.g, "", 17);
    if (b.ok) c->build(&b);
    CHECK(b.ok, "%s: graph builds", c->name);
    if (b.ok) {
        int ok_u = plan_run(&b, backend, prec, 1, &su, &ku, out_u, bytes_u);
        int ok_f = plan_run(&b, backend, prec, 0, &sf, &kf, out_f, bytes_f);
        if (ok_f && c->fused_nofold && backend == AICF_BACKEND_CUDA && prec == AICF_PRECISION_FP16 && g_fold_dev) {
            /* the LayerNorm fold's kernel, the tile width its rule picks (132 SMs: 64 x 32 from 66 tiles of 64 x 32) */
            const char* want = !strcmp(c->name, "ln_fold_qkv") ? "aicf_gemm_wg_f16_64x32_ln "
                               : !strcmp(c->name, "ln_epi_n768")                   ? "aicf_gemm_wsln_f16_64x192_c4_y32 "
                               : !strcmp(c->name, "ln_epi_n256")                   ? "aicf_gemm_wsln_f16_64x128_c2_y32 "
                               : !strcmp(c->name, "ln_epi_two_readers")            ? "aicf_gemm_wsln_f16_64x192_c2 "
                               : !strncmp(c->name, "ln_epi", 6)                    ? "aicf_gemm_wsln_f16_64x192_c2_y32 "
                                                                                   : "aicf_gemm_wg_f16_64x16_ln ";
            CHECK(strstr(g_kernels, want) != NULL, "%s %s: the fused plan runs %s(kernels: %s)", c->name, pname, want, g_kernels);
            if (!strncmp(c->name, "ln_epi", 6)) /* the output Cast absorbed where y is read once (the kernel's float32 stores) */
                CHECK((strstr(g_kernels, "absorbed ") != NULL) == (strcmp(c->name, "ln_epi_two_readers") != 0),
                      "%s %s: the output Cast %s (kernels: %s)", c->name, pname,
                      strcmp(c->name, "ln_epi_two_readers") ? "absorbed into the wsln kernel" : "a launch of its own", g_kernels);
        }
        CHECK(ok_u && ok_f, "%s %s: unfused and fused plans run", c->name, pname);
        if (backend == AICF_BACKEND_CUDA && prec == AICF_PRECISION_FP16) casts = b.n_in + b.n_out; /* boundary casts */
        CHECK(su == unfused_steps(c, backend) + casts, "%s %s: unfused plan has %d steps (expected %d)", c->name, pname, su,
              unfused_steps(c, backend) + casts);
        CHECK(sf == fused_steps_p(c, backend, prec) + casts, "%s %s: fused plan has %d steps (expected %d)", c->name, pname, sf,
              fused_steps_p(c, backend, prec) + casts);
        if (ok_u && ok_f) {
            for (i = 0; i < b.n_out; i++) {
                CHECK(bytes_u[i] == bytes_f[i], "%s: output %d sizes", c->name, i);
                if (bytes_u[i] != bytes_f[i]) continue;
                if (backend == AICF_BACKEND_CPU && c->cpu_tol > 0) {
                    double e = rel_err(out_f[i], out_u[i], bytes_u[i] / 4);
                    CHECK(e <= c->cpu_tol, "%s: CPU output %d '%s' fused vs unfused rel err %.3g > %.1g", c->name, i, b.out_name[i], e,
                          c->cpu_tol);
                } else if (backend == AICF_BACKEND_CPU) {
                    CHECK(memcmp(out_u[i], out_f[i], bytes_u[i]) == 0, "%s: CPU output %d '%s' fused == unfused bitwise (rel %.3g)",
                          c->name, i, b.out_name[i], rel_err(out_f[i], out_u[i], bytes_u[i] / 4));
                } else {
                    double tol = prec == AICF_PRECISION_FP16 ? 1e-2 : 1e-5;
                    double e = rel_err(out_f[i], out_u[i], bytes_u[i] / 4);
                    CHECK(e <= tol, "%s %s: CUDA output %d fused vs unfused rel err %.3g > %.1g", c->name, pname, i, e, tol);
                }
            }
            if (backend == AICF_BACKEND_CUDA) {
                CHECK(fused_steps_p(c, backend, prec) == unfused_steps(c, backend) || kf < ku || (c->same_launches && prec != AICF_PRECISION_FP16 && kf == ku),
                      "%s %s: fused plan launches fewer kernels (%d vs %d)", c->name, pname, kf, ku);
                /* the normalization kernel writing the float32 output: one launch fewer at fp16,
                   each value rounded through float16 as the Cast did, so bit for bit the same */
                if (!strcmp(c->name, "layernorm_out") && prec == AICF_PRECISION_FP16)
                    CHECK(kf == ku - 1 && bytes_u[0] == bytes_f[0] && memcmp(out_u[0], out_f[0], bytes_u[0]) == 0,
                          "%s %s: the output Cast folded into the normalization: %d launches (unfused %d), outputs %s", c->name, pname, kf,
                          ku, bytes_u[0] == bytes_f[0] && memcmp(out_u[0], out_f[0], bytes_u[0]) == 0 ? "equal" : "differ");
                /* and against the CPU reference */
                if (plan_run(&b, AICF_BACKEND_CPU, AICF_PRECISION_FP32, 1, &sr, &kr, out_ref, bytes_ref)) {
                    double tol = prec == AICF_PRECISION_FP16 ? 1e-2 : 1e-5;
                    for (i = 0; i < b.n_out; i++) {
                        double e = rel_err(out_f[i], out_ref[i], bytes_ref[i] / 4);
                        CHECK(e <= tol, "%s %s: CUDA fused output %d vs CPU reference rel err %.3g > %.1g", c->name, pname, i,
                              e, tol);
                    }
                } else {
                    CHECK(0, "%s: CPU reference runs", c->name);
                }
                /* autotuned (policy.autotune): other kernels, the same results */
                if (out_ref[0]) {
                    float* out_t[FB_MAX] = {0};
                    size_t bytes_t[FB_MAX];
                    int st = 0, kt = 0, tuned = 0;
                    double tol = prec == AICF_PRECISION_FP16 ? 1e-2 : 1e-5;
                    CHECK(plan_run_ex(&b, backend, prec, 0, 1, &st, &kt, out_t, bytes_t, &tuned), "%s %s: autotuned plan runs", c->name, pname);
                    for (i = 0; i < b.n_out && out_t[i]; i++) {
                        double e = bytes_t[i] == bytes_ref[i] ? rel_err(out_t[i], out_ref[i], bytes_ref[i] / 4) : 1e30;
                        CHECK(e <= tol, "%s %s: CUDA autotuned (%d steps tuned) output %d vs CPU reference rel err %.3g > %.1g", c->name,
                              pname, tuned, i, e, tol);
                    }
                    for (i = 0; i < FB_MAX; i++) free(out_t[i]);
                    memset(out_t, 0, sizeof out_t);
                    /* the generated GEMM kernels for every Gemm / MatMul (transposed B included) */
                    CHECK(plan_run_ex(&b, backend, prec, 0, 2, &st, &kt, out_t, bytes_t, NULL), "%s %s: generated-GEMM plan runs", c->name,
                          pname);
                    for (i = 0; i < b.n_out && out_t[i]; i++) {
                        double e = bytes_t[i] == bytes_ref[i] ? rel_err(out_t[i], out_ref[i], bytes_ref[i] / 4) : 1e30;
                        CHECK(e <= tol, "%s %s: CUDA matmul_algo generated output %d vs CPU reference rel err %.3g > %.1g", c->name, pname,
                              i, e, tol);
                    }
                    for (i = 0; i < FB_MAX; i++) free(out_t[i]);
                }
            }
        }
    }
    fb_free_run(&b, out_u, out_f, out_ref);
}

/* GPU: the policy's gelu_tanh on the erf-form Gelus (a Gelu node, the exported five ops) after
   a MatMul + bias, float32 and float16, against the CPU reference (the erf form): without the
   policy the plan matches it as every fused plan does; with it, cuBLASLt computes the tanh form
   in its epilogue, within 4.7e-4 of the erf form (plus float32 rounding) and, at float32,
   measurably not the erf form (else the policy changed nothing). */
static void test_gpu_gelu_tanh(aicf_context* ctx) {
    int v, pr;
    aicf_device_info di;
    if (aicf_context_device_info(ctx, &di) != AICF_SUCCESS || !di.cublaslt_available) {
        printf("SKIP gelu_tanh: cuBLASLt not loaded\n");
        g_skip++;
        return;
    }
    for (v = 0; v < 2; v++)
        for (pr = 0; pr < 2; pr++) {
            static const char* const vn[2] = {"Gelu none", "exported GELU"};
            const aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
            fb b;
            float *o0[FB_MAX] = {0}, *o1[FB_MAX] = {0}, *oref[FB_MAX] = {0};
            size_t b0[FB_MAX], b1[FB_MAX], bref[FB_MAX];
            int s0 = 0, s1 = 0, sr = 0, k0 = 0, k1 = 0, kr = 0, ok;
            memset(&b, 0, sizeof b);
            b.ctx = ctx;
            b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
            if (b.ok) aicf_graph_set_opset(b.g, "", 17);
            if (b.ok) (v == 0 ? c_linear_gelu_none : c_linear_gelu_enc)(&b);
            char kn0[sizeof g_kernels], kn1[sizeof g_kernels];
            g_gelu_tanh = 0;
            ok = b.ok && plan_run(&b, AICF_BACKEND_CUDA, prec, 0, &s0, &k0, o0, b0);
            snprintf(kn0, sizeof kn0, "%s", g_kernels);
            g_gelu_tanh = 1;
            ok = ok && plan_run(&b, AICF_BACKEND_CUDA, prec, 0, &s1, &k1, o1, b1);
            snprintf(kn1, sizeof kn1, "%s", g_kernels);
            g_gelu_tanh = 0;
            ok = ok && plan_run(&b, AICF_BACKEND_CPU, AICF_PRECISION_FP32, 1, &sr, &kr, oref, bref);
            CHECK(ok && b0[0] == bref[0] && b1[0] == bref[0], "gelu_tanh %s %s: the three plans run", vn[v], pr ? "fp16" : "fp32");
            if (ok && b0[0] == bref[0] && b1[0] == bref[0]) {
                size_t n = bref[0] / 4, j;
                double e0 = rel_err(o0[0], oref[0], n), d1 = 0.0, d01 = 0.0, ymax = 0.0;
                for (j = 0; j < n; j++) {
                    double a = fabs((double)o1[0][j] - oref[0][j]), c = fabs((double)o1[0][j] - o0[0][j]);
                    if (a > d1 || a != a) d1 = a != a ? INFINITY : a;
                    if (c > d01 || c != c) d01 = c != c ? INFINITY : c;
                    if (fabs((double)oref[0][j]) > ymax) ymax = fabs((double)oref[0][j]);
                }
                CHECK(e0 <= (pr ? 1e-2 : 1e-5), "gelu_tanh %s %s: without the policy rel err %.3g against the CPU reference", vn[v],
                      pr ? "fp16" : "fp32", e0);
                CHECK(pr ? d1 <= 1e-2 * ymax : d1 <= 4.8e-4 + 1e-5 * ymax,
                      "gelu_tanh %s %s: with the policy max |y - erf reference| %.3g (max |y| %.3g)", vn[v], pr ? "fp16" : "fp32", d1,
                      ymax);
                CHECK(pr || d01 > 1e-5, "gelu_tanh %s fp32: the policy's plan computes the tanh form (max difference from the erf "
                      "plan %.3g)", vn[v], d01);
                /* the policy's plan: the Gelu inside cuBLASLt's epilogue, no pass of its own. The erf
                   form's plan has that pass (one launch more), or, on a Hopper device at 128 <= M <= 256
                   in float16, runs the Gelu inside the Hopper GEMM (aicf__cuo_wg_for_chain), which also
                   absorbs the output Cast that cuBLASLt leaves to a launch: then the policy's plan has
                   exactly one launch more (two more if its Gelu were a pass) */
                CHECK(strstr(kn1, "cublasLt:matmul") && (strstr(kn0, "aicf_gemm_wg_") ? k1 == k0 + 1 : k1 < k0),
                      "gelu_tanh %s %s: the Gelu inside cuBLASLt: %d kernel nodes (%s) against %d (%s)", vn[v], pr ? "fp16" : "fp32", k1,
                      kn1, k0, kn0);
                printf("ok   gelu_tanh %s %s: max |tanh-form plan - erf reference| %.3g, erf-form plan rel err %.3g, launches %d -> %d\n",
                       vn[v], pr ? "fp16" : "fp32", d1, e0, k0, k1);
            }
            fb_free_run(&b, o0, o1, oref);
        }
}

/* GPU: the warp-specialised Hopper GEMM with an erf-form Gelu inside (src/81_cuda_ops.c
   aicf__cuo_lower_gemm_ws), chosen by the AUTO rule with cuBLASLt loaded at fp16 on compute
   capability 9.0: the plan names it and launches fewer kernels than the unfused plan (a cuBLASLt
   GEMM and passes for the rest); the output matches the CPU reference (float32) and the
   unfused CUDA plan's to float16 accuracy. Elsewhere: skipped, with the reason. */
static void test_gpu_ws_gelu(aicf_context* ctx) {
    int v;
    aicf_device_info di;
    if (aicf_context_device_info(ctx, &di) != AICF_SUCCESS || !di.cublaslt_available || di.cc_major != 9 || di.cc_minor != 0) {
        printf("SKIP ws_gelu: needs compute capability 9.0 and cuBLASLt (sm_%d%d)\n", di.cc_major, di.cc_minor);
        g_skip++;
        return;
    }
    for (v = 0; v < 2; v++) {
        static const char* const vn[2] = {"MatMul+bias+Gelu M=2048", "MatMul+bias+residual+exported GELU M=2080"};
        fb b;
        float *o0[FB_MAX] = {0}, *o1[FB_MAX] = {0}, *oref[FB_MAX] = {0};
        size_t b0[FB_MAX], b1[FB_MAX], bref[FB_MAX];
        int s0 = 0, s1 = 0, sr = 0, k0 = 0, k1 = 0, kr = 0, ok;
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        char* text = NULL;
        size_t need = 0;
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
        if (b.ok) aicf_graph_set_opset(b.g, "", 17);
        if (b.ok) (v == 0 ? c_linear_gelu_m2048 : c_linear_residual_gelu_m2080)(&b);
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = AICF_PRECISION_FP16;
        ok = b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS && aicf_plan_format(plan, NULL, 0, &need) == AICF_SUCCESS &&
             (text = (char*)malloc(need)) != NULL && aicf_plan_format(plan, text, need, NULL) == AICF_SUCCESS;
        CHECK(ok && strstr(text, "aicf_gemm_ws_f16_128x192") != NULL && strstr(text, "erf-form Gelu") != NULL,
              "ws_gelu %s: the plan takes the warp-specialised GEMM with the Gelu inside (%s):\n%s", vn[v], aicf_last_error(ctx),
              text ? text : "");
        free(text);
        aicf_plan_destroy(plan);
        ok = b.ok && plan_run(&b, AICF_BACKEND_CUDA, AICF_PRECISION_FP16, 0, &s0, &k0, o0, b0);
        ok = ok && plan_run(&b, AICF_BACKEND_CUDA, AICF_PRECISION_FP16, 1, &s1, &k1, o1, b1);
        ok = ok && plan_run(&b, AICF_BACKEND_CPU, AICF_PRECISION_FP32, 1, &sr, &kr, oref, bref);
        CHECK(ok && b0[0] == bref[0] && b1[0] == bref[0], "ws_gelu %s: the three plans run", vn[v]);
        if (ok && b0[0] == bref[0] && b1[0] == bref[0]) {
            size_t n = bref[0] / 4;
            double e0 = rel_err(o0[0], oref[0], n), e1 = rel_err(o1[0], oref[0], n), e01 = rel_err(o0[0], o1[0], n);
            CHECK(e0 <= 1e-2 && e01 <= 1e-2, "ws_gelu %s: rel err %.3g against the CPU reference, %.3g against the unfused plan (%.3g)",
                  vn[v], e0, e01, e1);
            CHECK(k1 > k0, "ws_gelu %s: fused %d steps, %d kernel nodes; unfused %d steps, %d kernel nodes", vn[v], s0, k0, s1, k1);
            printf("ok   ws_gelu %s: rel err %.3g (unfused plan %.3g, between them %.3g), kernel nodes %d -> %d\n", vn[v], e0, e1, e01,
                   k1, k0);
        }
        fb_free_run(&b, o0, o1, oref);
    }
}

/* GPU: the persistent GEMV launch replayed many times (its epoch word carries over between
   replays): the policy MLP of the reference workloads (256 -> 1024 -> 1024 -> 1024 -> 64, Relu,
   Tanh) at M = 1, 2, 3 and 8, fp32 and fp16, by default (on sm_90+ the last three GEMVs launched
   by programmatic edges, checked against the plan with policy no_pdl: the same bytes) and with
   the policy's persistent. Every replay with the same input gives the same bytes;
   a new input every 25 replays matches the CPU reference (stale activations, or a hand-off word
   taken from the previous replay, would not) and, persistent, the separate launches' output
   (to 1e-6 at fp32: the same products summed in another order; 3e-3 at fp16, where a hidden
   activation may round to the neighbouring float16). */
/* x [48, 96] -> Gemm g0 (transB) -> Relu -> Gemm g1 -> Relu -> Gemm g2 -> Relu -> Gemm y [48, 40]:
   four Gemm steps on cuBLASLt at float32, three of one query (96x96, ReLU epilogue) and one of
   another; fresh random weights. */
static void build_gemm4(fb* b) {
    static const int64_t D[5] = {96, 96, 96, 96, 40};
    int64_t xd[2] = {48, 96}, wd[2];
    aicf_attr a[1];
    int l;
    a[0] = attr_i("transB", 1);
    fb_input(b, "x", 2, xd, -1, 1);
    for (l = 0; l < 4; l++) {
        char wn[8], gn[8], rn[8], ins[32];
        snprintf(wn, sizeof wn, "W%d", l);
        snprintf(gn, sizeof gn, l == 3 ? "y" : "g%d", l);
        snprintf(rn, sizeof rn, "r%d", l);
        wd[0] = D[l + 1], wd[1] = D[l];
        fb_const(b, wn, 2, wd, -0.1f, 0.1f);
        if (l == 0) snprintf(ins, sizeof ins, "x,%s", wn);
        else snprintf(ins, sizeof ins, "r%d,%s", l - 1, wn);
        fb_node(b, gn, "Gemm", ins, gn, a, 1);
        if (l < 3) fb_node(b, rn, "Relu", gn, rn, NULL, 0);
    }
    fb_output(b, "y");
}

/* cuBLASLt's heuristic answers kept while a plan is made (aicf__cuda_matmul_plan): four Gemm
   steps on cuBLASLt, three of one query (96x96, ReLU epilogue) and one of another, ask twice,
   and the plan equals, byte for byte, the plan made asking every time. */
static void test_gpu_lt_answers(aicf_context* ctx) {
    fb b;
    aicf_plan_desc pd;
    aicf_plan* pl[2] = {NULL, NULL};
    aicf_plan_stats ps[2];
    char* text[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    int k;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
    if (b.ok) aicf_graph_set_opset(b.g, "", 17);
    build_gemm4(&b);
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = AICF_PRECISION_FP32;
    pd.policy.matmul_algo = AICF_MATMUL_CUBLASLT;
    for (k = 0; k < 2 && b.ok; k++) {
        aicf__lt_cache_off = k;
        CHECK(aicf_plan_create(b.g, &pd, &pl[k]) == AICF_SUCCESS, "lt answers: plan (cache %s): %s", k ? "off" : "on",
              aicf_last_error(ctx));
        aicf__lt_cache_off = 0;
        if (!pl[k]) break;
        aicf_plan_stats_get(pl[k], &ps[k]);
        if (aicf_plan_serialize(pl[k], NULL, 0, &len[k]) == AICF_SUCCESS && (text[k] = (char*)malloc(len[k])) != NULL)
            CHECK(aicf_plan_serialize(pl[k], text[k], len[k], &len[k]) == AICF_SUCCESS, "lt answers: serialize");
    }
    if (pl[0] && pl[1]) {
        CHECK(ps[0].lt_heuristic_queries == 2 && ps[1].lt_heuristic_queries == 4,
              "lt answers: %d queries kept, %d asking every time (2 and 4 expected: 4 Gemm steps, 2 distinct queries)",
              ps[0].lt_heuristic_queries, ps[1].lt_heuristic_queries);
        CHECK(text[0] && text[1] && len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0,
              "lt answers: the plan file with kept answers differs from the one asking every time (%zu / %zu bytes)", len[0], len[1]);
        CHECK(ps[0].create_ms >= ps[0].create_select_ms && ps[0].create_ms >= ps[0].create_fold_ms && ps[0].create_select_ms > 0,
              "lt answers: plan creation times %.3f ms, fold %.3f, select %.3f", ps[0].create_ms, ps[0].create_fold_ms,
              ps[0].create_select_ms);
    }
    for (k = 0; k < 2; k++) {
        free(text[k]);
        aicf_plan_destroy(pl[k]);
    }
    for (k = 0; k < b.n_in; k++) free(b.in_data[k]);
    aicf_graph_destroy(b.g);
}

static void test_gpu_persistent_replays(aicf_context* ctx) {
    static const int64_t D[5] = {256, 1024, 1024, 1024, 64};
    static const int64_t MS[4] = {1, 2, 3, 8}; /* every row tile of aicf_gemvp_*_m{1,2,4,8} */
    int mi, pr, per;
    for (per = 0; per < 2; per++)
    for (mi = 0; mi < 4; mi++)
        for (pr = 0; pr < 2; pr++) {
            int64_t M = MS[mi], xd[2], wd[2], cd[1];
            fb b;
            aicf_plan_desc pd;
            aicf_plan *plan = NULL, *cp = NULL, *sp = NULL;
            aicf_exec *ex = NULL, *ce = NULL, *sep = NULL;
            aicf_attr a[1];
            char wn[4][8], cn[4][8], in[4][8], on[4][8], gn[4][8], an[4][8], ins[40];
            double sep_worst = 0.0;
            float *first = NULL, *got = NULL, *ref = NULL;
            size_t ny = (size_t)(M * D[4]);
            int l, it, same = 1, launches = 0;
            double worst = 0.0;
            const char* pname = pr ? "fp16" : "fp32";
            memset(&b, 0, sizeof b);
            b.ctx = ctx;
            b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
            if (b.ok) aicf_graph_set_opset(b.g, "", 17);
            a[0] = attr_i("transB", 1);
            xd[0] = M, xd[1] = D[0];
            fb_input(&b, "x", 2, xd, -1, 1);
            for (l = 0; l < 4; l++) {
                snprintf(wn[l], sizeof wn[l], "W%d", l);
                snprintf(cn[l], sizeof cn[l], "C%d", l);
                snprintf(in[l], sizeof in[l], l ? "r%d" : "x", l - 1);
                snprintf(on[l], sizeof on[l], l == 3 ? "y" : "r%d", l);
                snprintf(gn[l], sizeof gn[l], "g%d", l);
                snprintf(an[l], sizeof an[l], "a%d", l);
                wd[0] = D[l + 1], wd[1] = D[l], cd[0] = D[l + 1];
                fb_const(&b, wn[l], 2, wd, -0.06f, 0.06f);
                fb_const(&b, cn[l], 1, cd, -0.2f, 0.2f);
                snprintf(ins, sizeof ins, "%s,%s,%s", in[l], wn[l], cn[l]);
                fb_node(&b, gn[l], "Gemm", ins, gn[l], a, 1);
                fb_node(&b, an[l], l == 3 ? "Tanh" : "Relu", gn[l], on[l], NULL, 0);
            }
            fb_output(&b, "y");
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
            pd.policy.persistent = per;
            CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS && aicf_exec_create(plan, NULL, &ex) == AICF_SUCCESS,
                  "persistent replays M=%lld %s: plan and exec (%s)", (long long)M, pname, aicf_last_error(ctx));
            if (per) { /* the same model as separate launches */
                pd.policy.persistent = 0;
                if (!b.ok || aicf_plan_create(b.g, &pd, &sp) != AICF_SUCCESS || aicf_exec_create(sp, NULL, &sep) != AICF_SUCCESS) sep = NULL;
            } else { /* the separate launches without programmatic edges: the same bytes */
                pd.policy.no_pdl = 1;
                if (!b.ok || aicf_plan_create(b.g, &pd, &sp) != AICF_SUCCESS || aicf_exec_create(sp, NULL, &sep) != AICF_SUCCESS) sep = NULL;
                pd.policy.no_pdl = 0;
            }
            if (ex) { /* on sm_90+ every launch after the first (all kernels) goes by a programmatic edge
                         (src/81_cuda_ops.c aicf__cuda_pdl): the three GEMVs after the first at least */
                aicf_device_info di;
                aicf_exec_stats es;
                aicf_step_info si;
                int k, planned = 0, sm90 = aicf_context_device_info(ctx, &di) == AICF_SUCCESS && di.cc_major >= 9;
                for (k = 0; k < aicf_plan_num_steps(plan); k++)
                    if (aicf_plan_step_info(plan, k, &si) == AICF_SUCCESS) planned += si.pdl_launches;
                CHECK(aicf_exec_stats_get(ex, &es) == AICF_SUCCESS && es.programmatic_edges == planned &&
                          (per ? planned == 0 : sm90 ? planned >= 3 && planned == es.kernel_nodes - 1 : planned == 0),
                      "persistent replays M=%lld %s persistent=%d: %d programmatic edges, %d planned, %d kernel nodes", (long long)M, pname,
                      per, es.programmatic_edges, planned, es.kernel_nodes);
            }
            pd.backend = AICF_BACKEND_CPU;
            pd.policy.precision = AICF_PRECISION_FP32;
            pd.policy.persistent = 0;
            CHECK(b.ok && aicf_plan_create(b.g, &pd, &cp) == AICF_SUCCESS && aicf_exec_create(cp, NULL, &ce) == AICF_SUCCESS,
                  "persistent replays: CPU reference");
            if (plan) {
                int s;
                for (s = 0; s < plan->n_steps; s++) launches += strncmp(plan->steps[s].kernel, "aicf_gemvp_", 11) == 0;
                CHECK(launches == (per ? 1 : 0), "persistent replays M=%lld %s persistent=%d: %d persistent launches",
                      (long long)M, pname, per, launches);
                if (!per && pr) { /* the first and last GEMV read and write float32 themselves */
                    int absorbed = 0;
                    for (s = 0; s < plan->n_steps; s++) absorbed += strcmp(plan->steps[s].kernel, "absorbed") == 0;
                    CHECK(absorbed == 2, "persistent replays M=%lld fp16: %d Casts absorbed into the GEMVs", (long long)M, absorbed);
                }
            }
            first = (float*)malloc(ny * sizeof(float));
            got = (float*)malloc(ny * sizeof(float));
            ref = (float*)malloc(ny * sizeof(float));
            for (it = 0; ex && ce && it < 200; it++) {
                if (it % 25 == 0 && it) {
                    int64_t i;
                    for (i = 0; i < M * D[0]; i++) b.in_data[0][i] = frand(-1, 1);
                }
                if (aicf_exec_set_input(ex, 0, b.in_data[0], b.in_bytes[0]) != AICF_SUCCESS || aicf_exec_run(ex) != AICF_SUCCESS ||
                    aicf_exec_get_output(ex, 0, got, ny * sizeof(float)) != AICF_SUCCESS) {
                    CHECK(0, "persistent replays M=%lld %s: run %d: %s", (long long)M, pname, it, aicf_last_error(ctx));
                    break;
                }
                if (it % 25 == 0) {
                    double e;
                    memcpy(first, got, ny * sizeof(float));
                    if (aicf_exec_set_input(ce, 0, b.in_data[0], b.in_bytes[0]) != AICF_SUCCESS || aicf_exec_run(ce) != AICF_SUCCESS ||
                        aicf_exec_get_output(ce, 0, ref, ny * sizeof(float)) != AICF_SUCCESS)
                        break;
                    e = rel_err(got, ref, ny);
                    if (e > worst) worst = e;
                    if (sep) { /* the persistent launch against the separate GEMV launches (its sums in another order); the
                                  default plan against the one without programmatic launches (the same kernels: the same bytes) */
                        if (aicf_exec_set_input(sep, 0, b.in_data[0], b.in_bytes[0]) != AICF_SUCCESS || aicf_exec_run(sep) != AICF_SUCCESS ||
                            aicf_exec_get_output(sep, 0, ref, ny * sizeof(float)) != AICF_SUCCESS)
                            break;
                        e = rel_err(got, ref, ny);
                        if (e > sep_worst) sep_worst = e;
                    }
                } else if (memcmp(first, got, ny * sizeof(float)) != 0) {
                    same = 0;
                }
            }
            CHECK(same, "persistent replays M=%lld %s: a replay with the same input gave other bytes", (long long)M, pname);
            CHECK(sep && sep_worst <= (!per ? 0.0 : pr ? 3e-3 : 1e-6),
                  "persistent replays M=%lld %s: %s: worst rel err %.3g (%s)", (long long)M, pname,
                  per ? "the persistent launch against the separate launches" : "programmatic launches against none (no_pdl)", sep_worst,
                  sep ? "" : aicf_last_error(ctx));
            aicf_exec_destroy(sep);
            aicf_plan_destroy(sp);
            CHECK(worst <= (pr ? 1e-2 : 1e-5), "persistent replays M=%lld %s: worst rel err vs CPU %.3g", (long long)M, pname, worst);
            free(first), free(got), free(ref);
            aicf_exec_destroy(ex);
            aicf_exec_destroy(ce);
            aicf_plan_destroy(plan);
            aicf_plan_destroy(cp);
            free(b.in_data[0]);
            aicf_graph_destroy(b.g);
        }
}

/* The plan text names the fused nodes of a step. */
static void test_format_names_fused(aicf_context* ctx) {
    fb b;
    aicf_plan* plan = NULL;
    aicf_plan_desc pd;
    char* text;
    size_t need = 0;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
    c_gemm_bias_relu(&b);
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "format: plan");
    if (plan) {
        aicf_plan_format(plan, NULL, 0, &need);
        text = (char*)malloc(need);
        aicf_plan_format(plan, text, need, NULL);
        CHECK(strstr(text, "fused: Add 'add'(v, b2) Relu 'relu'") != NULL, "format names the fused nodes:\n%s", text);
        free(text);
        aicf_plan_destroy(plan);
    }
    aicf_graph_destroy(b.g);
    free(b.in_data[0]);
}

/* CUDA planning through the fake libcuda (build/fakecuda/libcuda.so.1, no GPU needed): every
   case plans on the CUDA backend at fp32 and fp16, with the fusion pass's step counts, and the
   fused steps choose the chain kernel (elementwise main nodes: one aicf_ewchain launch). Only
   the plan: the fake driver cannot look functions up in the real table's cubins. */
/* Concat along the channel axis of [1, C, S] tensors on CUDA (fake driver, fp32 and fp16): its
   inputs become views of its output (the producers write in place) and the Concat step launches
   nothing; with a leading dim of 2 the inputs are not contiguous pieces and it copies. */
static void test_fake_concat_views(const aicf_context_desc* cd) {
    int pr, lead;
    for (pr = 0; pr < 2; pr++)
        for (lead = 1; lead <= 2; lead++) {
            static const int64_t xs1[3] = {1, 4, 6}, xs2[3] = {2, 4, 6};
            aicf_context* ctx = NULL;
            aicf_plan* plan = NULL;
            aicf_plan_desc pd;
            fb b;
            int s, found = 0;
            if (aicf_context_create(cd, &ctx) != AICF_SUCCESS) {
                CHECK(0, "fake CUDA context");
                continue;
            }
            memset(&b, 0, sizeof b);
            b.ctx = ctx;
            b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
            if (b.ok) aicf_graph_set_opset(b.g, "", 17);
            fb_input(&b, "x", 3, lead == 1 ? xs1 : xs2, -1, 1);
            fb_node(&b, "relu", "Relu", "x", "a", NULL, 0);
            fb_node(&b, "neg", "Neg", "x", "n", NULL, 0);
            fb_node(&b, "sig", "Sigmoid", "n", "bb", NULL, 0); /* a second step: not fused into the Concat's inputs */
            {
                aicf_attr at = attr_i("axis", 1);
                fb_node(&b, "cat", "Concat", "a,bb", "c", &at, 1);
            }
            fb_node(&b, "tanh", "Tanh", "c", "y", NULL, 0);
            fb_output(&b, "y");
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
            pd.policy.no_fusion = 1;
            CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "concat views: plan (%s)", aicf_last_error(ctx));
            for (s = 0; plan && s < plan->n_steps; s++) {
                const aicf__step* st = &plan->steps[s];
                const aicf__cuo_prog* prog = (const aicf__cuo_prog*)st->backend;
                int c, a0, a1, views;
                if (st->kind != AICF__STEP_NODE || plan->g->nodes[st->node].op != AICF__OP_Concat) continue;
                found = 1;
                c = st->out[0], a0 = st->in[0], a1 = st->in[1];
                views = plan->loc[a0].alias_of == c && plan->loc[a1].alias_of == c && plan->loc[a0].alias_add == 0 &&
                        plan->loc[a1].alias_add == plan->loc[a0].bytes && plan->loc[a0].offset == plan->loc[c].offset &&
                        plan->loc[a1].offset == plan->loc[c].offset + plan->loc[a0].bytes;
                if (lead == 1)
                    CHECK(views && !strcmp(st->kernel, "alias") && (!prog || prog->n_ops == 0),
                          "concat views %s: inputs are views of the output, nothing launched (kernel %s)", pr ? "fp16" : "fp32",
                          st->kernel);
                else
                    CHECK(plan->loc[a0].alias_of < 0 && plan->loc[a1].alias_of < 0 && strcmp(st->kernel, "alias") != 0 && prog &&
                              prog->n_ops > 0,
                          "concat [2,4,6] %s: inputs keep their storage, the Concat copies (kernel %s)", pr ? "fp16" : "fp32",
                          st->kernel);
            }
            CHECK(found, "concat views: the plan has the Concat step");
            aicf_plan_destroy(plan);
            free(b.in_data[0]);
            aicf_graph_destroy(b.g);
            aicf_context_destroy(ctx);
        }
}

/* Exec creation of a plan with a persistent launch on the fake driver: the sync region's
   allocation and its zeroing fail cleanly, with the result code and a message naming it. (The
   real table's cubins hold no names the fake can find, so a successful exec is not built here:
   the GPU suite builds and runs it.) */
static void fake_barrier_word_errors(aicf_context* ctx, aicf_plan* plan, const char* path) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void* s1 = h ? dlsym(h, "fakecuda_fail") : NULL;
    void* s2 = h ? dlsym(h, "fakecuda_reset") : NULL;
    void (*fail)(const char*, int, int) = NULL;
    void (*reset)(void) = NULL;
    aicf_exec* ex = NULL;
    aicf_result r;
    if (!s1 || !s2) {
        printf("SKIP barrier-word errors: %s does not export fakecuda_fail / fakecuda_reset\n", path);
        g_skip++;
        if (h) dlclose(h);
        return;
    }
    memcpy(&fail, &s1, sizeof s1);
    memcpy(&reset, &s2, sizeof s2);
    reset();
    fail("cuMemAlloc", 2, 3); /* arena, weights, then the sync region (no cuBLASLt workspace) */
    r = aicf_exec_create(plan, NULL, &ex);
    CHECK(r == AICF_ERROR_DEVICE_OUT_OF_MEMORY && strstr(aicf_last_error(ctx), "sync region of the persistent kernels") != NULL,
          "sync region allocation failing: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
    aicf_exec_destroy(ex);
    ex = NULL;
    reset();
    fail("cuMemcpyHtoD", 1, 1);
    r = aicf_exec_create(plan, NULL, &ex);
    CHECK(r == AICF_ERROR_CUDA && strstr(aicf_last_error(ctx), "zeroing the sync region") != NULL,
          "sync region zeroing failing: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
    aicf_exec_destroy(ex);
    reset();
    dlclose(h);
}

/* cuBLASLt's one-time setup on a helper thread (aicf__cuda_lt_hint, 80_cuda.c), on the fake
   driver with the fake cuBLASLt: the four-Gemm graph (48 rows: not the GEMV's) at float32.
   The first plan of a context starts the helper (one heuristic query more than the plan's own
   two, lt_setup_ms > 0); the next plan of that context does not; a context with
   AICF_CONTEXT_NO_THREADS never does; a helper whose query fails leaves no trace (the plan
   succeeds, no error message); a helper started for a guess that turned out wrong (every Gemm
   pinned to the generated kernels: no query) is joined before aicf_plan_create returns; a
   graph with less host work than the threshold gets none. Every
   one of these plans serialises to the same bytes as the plan made without a helper, and no
   cuBLASLt object or pushed context is left. */
/* dlopens the fake driver at path and looks up its n test hooks into sym; NULL (a SKIP counted,
   naming `what`) when the file or a hook is missing. */
static void* fake_syms(const char* path, const char* const* names, int n, void** sym, const char* what) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int i, ok = h != NULL;
    for (i = 0; i < n; i++) ok = ok && (sym[i] = dlsym(h, names[i])) != NULL;
    if (ok) return h;
    printf("SKIP %s: %s not usable or without %s\n", what, path, names[0]);
    g_skip++;
    if (h) dlclose(h);
    return NULL;
}

static void test_fake_lt_setup(void) {
    const char* path = getenv("AICF_FAKE_LIBCUDA");
    void* h;
    long (*lt_calls)(const char*) = NULL;
    void (*lt_fail)(const char*, int, int) = NULL;
    long (*lt_live)(void) = NULL;
    int (*ctx_depth)(void) = NULL;
    void* sym[4];
    char* ref = NULL;
    size_t ref_len = 0;
    uint64_t seed = g_rng;
    int c;
    static const char* const names[4] = {"fakecuda_lt_calls", "fakecuda_lt_fail", "fakecuda_lt_live", "fakecuda_ctx_depth"};
    if (!path) path = "build/fakecuda/libcuda.so.1";
    if (!(h = fake_syms(path, names, 4, sym, "cuBLASLt setup helper"))) return;
    memcpy(&lt_calls, &sym[0], sizeof sym[0]);
    memcpy(&lt_fail, &sym[1], sizeof sym[1]);
    memcpy(&lt_live, &sym[2], sizeof sym[2]);
    memcpy(&ctx_depth, &sym[3], sizeof sym[3]);
    /* c: 0 no threads (the reference plan), 1 helper, 2 helper whose query fails, 3 wrong guess,
       4 too little host work to overlap (the default threshold, AICF__LT_WARM_MIN_BYTES, over
       this graph's 0.1 MB of weights); 0-3 with the threshold at 0 */
    for (c = 0; c < 5; c++) {
        static const char* const what[5] = {"AICF_CONTEXT_NO_THREADS", "helper", "failing helper", "wrong guess", "small graph"};
        aicf_context_desc cd;
        aicf_context* ctx = NULL;
        aicf_device_info di;
        int n;
        memset(&cd, 0, sizeof cd);
        cd.cuda_driver_path = path;
        cd.cublaslt_path = path;
        cd.flags = c == 0 ? AICF_CONTEXT_NO_THREADS : 0;
        aicf__lt_warm_min_bytes = c == 4 ? AICF__LT_WARM_MIN_BYTES : 0.0;
        if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, &di) != AICF_SUCCESS ||
            !di.cublaslt_available) {
            CHECK(0, "lt setup %s: fake CUDA context (%s)", what[c], ctx ? aicf_last_error(ctx) : "");
            aicf_context_destroy(ctx);
            continue;
        }
        for (n = 0; n < 2; n++) { /* two plans on the context: only the first may start a helper */
            fb b;
            aicf_plan_desc pd;
            aicf_plan* plan = NULL;
            aicf_plan_stats ps;
            char* text = NULL;
            size_t len = 0;
            long q;
            int k, helper = (c == 1 || c == 2 || c == 3) && n == 0;
#if defined(AICF_NO_THREADS)
            if (c == 2 && n == 0) continue; /* no helper to take the failing query */
            helper = 0;
#endif
            memset(&b, 0, sizeof b);
            b.ctx = ctx;
            b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
            if (b.ok) aicf_graph_set_opset(b.g, "", 17);
            g_rng = seed; /* the same weights in every graph: the plan files compare */
            if (b.ok) build_gemm4(&b);
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = AICF_PRECISION_FP32;
            pd.policy.matmul_algo = AICF_MATMUL_CUBLASLT;
            if (c == 3) {
                static const char* const gemms[4] = {"g0", "g1", "g2", "y"};
                for (k = 0; k < 4; k++) {
                    snprintf(pd.policy.pins[k].node, sizeof pd.policy.pins[k].node, "%s", gemms[k]);
                    pd.policy.pins[k].kernel = AICF_CHOICE_GENERATED;
                }
            }
            lt_fail(c == 2 && n == 0 ? "cublasLtMatmulAlgoGetHeuristic" : NULL, 14, 1); /* resets the call counts */
            CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "lt setup %s, plan %d: %s", what[c], n,
                  aicf_last_error(ctx));
            q = lt_calls("cublasLtMatmulAlgoGetHeuristic");
            lt_fail(NULL, 0, 0);
            if (plan) {
                int own = c == 3 ? 0 : 2;
                aicf_plan_stats_get(plan, &ps);
                CHECK(ps.lt_heuristic_queries == own && q == own + helper,
                      "lt setup %s, plan %d: %d queries of the plan (%d expected), %ld cuBLASLt heuristic calls (%d expected)",
                      what[c], n, ps.lt_heuristic_queries, own, q, own + helper);
                CHECK(helper ? ps.lt_setup_ms > 0 && ps.lt_setup_wait_ms >= 0 && ps.lt_setup_wait_ms <= ps.create_ms
                             : ps.lt_setup_ms == 0 && ps.lt_setup_wait_ms == 0,
                      "lt setup %s, plan %d: setup %.4f ms, waited %.4f of %.4f ms", what[c], n, ps.lt_setup_ms,
                      ps.lt_setup_wait_ms, ps.create_ms);
                CHECK(aicf_last_error(ctx)[0] == 0, "lt setup %s, plan %d: no error message left: \"%s\"", what[c], n,
                      aicf_last_error(ctx));
                CHECK(ctx_depth() == 0, "lt setup %s, plan %d: contexts pushed and not popped: %d", what[c], n, ctx_depth());
                if (c != 3 && aicf_plan_serialize(plan, NULL, 0, &len) == AICF_SUCCESS && (text = (char*)malloc(len)) != NULL &&
                    aicf_plan_serialize(plan, text, len, &len) == AICF_SUCCESS) {
                    if (!ref) {
                        ref = text;
                        ref_len = len;
                        text = NULL;
                    } else {
                        CHECK(len == ref_len && memcmp(text, ref, len) == 0,
                              "lt setup %s, plan %d: the plan file differs from the one made without a helper", what[c], n);
                    }
                }
            }
            free(text);
            aicf_plan_destroy(plan);
            for (k = 0; k < b.n_in; k++) free(b.in_data[k]);
            aicf_graph_destroy(b.g);
        }
        aicf_context_destroy(ctx);
        CHECK(lt_live() == 0, "lt setup %s: %ld cuBLASLt objects left", what[c], lt_live());
    }
    aicf__lt_warm_min_bytes = AICF__LT_WARM_MIN_BYTES;
    CHECK(ref != NULL, "lt setup: a reference plan file");
    free(ref);
    g_rng = seed * 6364136223846793005ull + 1442695040888963407ull; /* the sequence moves on */
    if (!g_rng) g_rng = 1;
    dlclose(h);
}

/* Fake CUDA with the fake cuBLASLt: which Gelu goes into cuBLASLt's epilogue. approximate =
   "tanh" always (CUBLASLT_EPILOGUE_GELU_BIAS, 36, set on the matmul descriptor); approximate =
   "none" (the erf form) and the exported five-op GELU only under the policy's gelu_tanh, which
   the step's reason, the plan header and the policy text then name; otherwise the bias alone
   (CUBLASLT_EPILOGUE_BIAS, 4) and the Gelu in a launch of its own. At float32 and float16. */
static void test_fake_gelu_epilogue(void) {
    const char* path = getenv("AICF_FAKE_LIBCUDA");
    void* h;
    int (*lt_epis)(uint32_t*, int) = NULL;
    void (*lt_fail)(const char*, int, int) = NULL;
    void* sym[2];
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    aicf_device_info di;
    int v, pol, pr;
    static const char* const names[2] = {"fakecuda_lt_epilogues", "fakecuda_lt_fail"};
    if (!path) path = "build/fakecuda/libcuda.so.1";
    if (!(h = fake_syms(path, names, 2, sym, "gelu epilogue"))) return;
    memcpy(&lt_epis, &sym[0], sizeof sym[0]);
    memcpy(&lt_fail, &sym[1], sizeof sym[1]);
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = path;
    cd.flags = AICF_CONTEXT_NO_THREADS; /* no helper thread setting descriptors of its own */
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, &di) != AICF_SUCCESS ||
        !di.cublaslt_available) {
        CHECK(0, "gelu epilogue: fake CUDA context with cuBLASLt (%s)", ctx ? aicf_last_error(ctx) : "");
        aicf_context_destroy(ctx);
        dlclose(h);
        return;
    }
    for (v = 0; v < 3; v++)          /* Gelu tanh, Gelu none, the exported erf GELU */
        for (pol = 0; pol < 2; pol++) /* policy gelu_tanh */
            for (pr = 0; pr < 2; pr++) {
                static const char* const vn[3] = {"Gelu tanh", "Gelu none", "exported GELU"};
                const int want = v == 0 || pol;
                fb b;
                aicf_plan_desc pd;
                aicf_plan* plan = NULL;
                char *text = NULL, *ex = NULL, pt[1024];
                size_t need = 0;
                uint32_t epis[64];
                int n, k, n36 = 0, n4 = 0;
                memset(&b, 0, sizeof b);
                b.ctx = ctx;
                b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
                if (b.ok) aicf_graph_set_opset(b.g, "", 17);
                if (b.ok) (v == 0 ? c_linear_gelu_tanh : v == 1 ? c_linear_gelu_none : c_linear_gelu_enc)(&b);
                memset(&pd, 0, sizeof pd);
                pd.backend = AICF_BACKEND_CUDA;
                pd.policy.precision = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
                pd.policy.gelu_tanh = pol;
                lt_fail(NULL, 0, 0); /* resets the epilogue record */
                CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "gelu epilogue %s, gelu_tanh %d, %s: plan (%s)", vn[v],
                      pol, pr ? "fp16" : "fp32", aicf_last_error(ctx));
                n = lt_epis(epis, 64);
                for (k = 0; k < n && k < 64; k++) {
                    n36 += epis[k] == 36u;
                    n4 += epis[k] == 4u;
                }
                CHECK(n > 0 && (want ? n36 > 0 && n4 == 0 : n4 > 0 && n36 == 0),
                      "gelu epilogue %s, gelu_tanh %d, %s: cuBLASLt epilogues set: %d of GELU_BIAS, %d of BIAS, %d in all", vn[v], pol,
                      pr ? "fp16" : "fp32", n36, n4, n);
                if (plan && aicf_plan_format(plan, NULL, 0, &need) == AICF_SUCCESS && (text = (char*)malloc(need)) != NULL &&
                    aicf_plan_format(plan, text, need, NULL) == AICF_SUCCESS) {
                    const char* form = v == 0 ? "gelu (tanh form)" : "gelu (erf form taken as the tanh form: policy gelu_tanh)";
                    aicf_plan_stats ps;
                    aicf_plan_stats_get(plan, &ps);
                    CHECK(want ? strstr(text, form) != NULL : strstr(text, "gelu (") == NULL,
                          "gelu epilogue %s, gelu_tanh %d, %s: the step's reason %s '%s':\n%s", vn[v], pol, pr ? "fp16" : "fp32",
                          want ? "names" : "does not name", form, text);
                    CHECK(ps.num_steps == 1 + (pr ? 2 : 0), "gelu epilogue %s, gelu_tanh %d, %s: %d steps (one GEMM step%s)", vn[v], pol,
                          pr ? "fp16" : "fp32", ps.num_steps, pr ? " and two boundary casts" : "");
                } else {
                    CHECK(0, "gelu epilogue %s: plan text", vn[v]);
                }
                need = 0;
                if (plan && aicf_plan_explain(plan, NULL, 0, &need) == AICF_SUCCESS && (ex = (char*)malloc(need)) != NULL &&
                    aicf_plan_explain(plan, ex, need, NULL) == AICF_SUCCESS)
                    CHECK((strstr(ex, "+bias gelu (tanh form)") != NULL) == want &&
                              (strstr(ex, "Gelu's erf form may run as its tanh form (gelu_tanh)") != NULL) == (pol != 0),
                          "gelu epilogue %s, gelu_tanh %d, %s: explain's cuBLASLt launch %s the GELU epilogue, its policy line %s "
                          "gelu_tanh:\n%s",
                          vn[v], pol, pr ? "fp16" : "fp32", want ? "with" : "without", pol ? "names" : "without", ex);
                else
                    CHECK(0, "gelu epilogue %s: explain text", vn[v]);
                if (plan) { /* the plan file round trip: the same decisions without re-deciding, byte for byte */
                    size_t n1 = 0, n2 = 0;
                    char *f1 = NULL, *f2 = NULL;
                    aicf_plan* lp = NULL;
                    int same = aicf_plan_serialize(plan, NULL, 0, &n1) == AICF_SUCCESS && (f1 = (char*)malloc(n1)) != NULL &&
                               aicf_plan_serialize(plan, f1, n1, &n1) == AICF_SUCCESS &&
                               aicf_plan_load_memory(b.g, f1, strlen(f1), &lp) == AICF_SUCCESS &&
                               aicf_plan_serialize(lp, NULL, 0, &n2) == AICF_SUCCESS && n2 == n1 && (f2 = (char*)malloc(n2)) != NULL &&
                               aicf_plan_serialize(lp, f2, n2, &n2) == AICF_SUCCESS && strcmp(f1, f2) == 0;
                    CHECK(same && strstr(f1, pol ? "policy gelu_tanh = 1\n" : "policy gelu_tanh = 0\n") != NULL,
                          "gelu epilogue %s, gelu_tanh %d, %s: the plan file loads back to the same bytes (%s)", vn[v], pol,
                          pr ? "fp16" : "fp32", aicf_last_error(ctx));
                    free(f1);
                    free(f2);
                    aicf_plan_destroy(lp);
                }
                CHECK(aicf_policy_format(&pd.policy, pt, sizeof pt, NULL) == AICF_SUCCESS &&
                          strstr(pt, pol ? "\ngelu_tanh = 1\n" : "\ngelu_tanh = 0\n") != NULL,
                      "gelu epilogue: the policy text carries gelu_tanh = %d:\n%s", pol, pt);
                free(text);
                free(ex);
                aicf_plan_destroy(plan);
                for (k = 0; k < b.n_in; k++) free(b.in_data[k]);
                aicf_graph_destroy(b.g);
            }
    { /* the policy text's gelu_tanh read back, and refused when not a boolean */
        aicf_policy q;
        memset(&q, 0, sizeof q);
        CHECK(aicf_policy_parse(ctx, "gelu_tanh = yes\n", 16, &q) == AICF_SUCCESS && q.gelu_tanh == 1,
              "gelu epilogue: policy text 'gelu_tanh = yes' parsed (%s)", aicf_last_error(ctx));
        CHECK(aicf_policy_parse(ctx, "gelu_tanh = 2\n", 14, &q) == AICF_ERROR_INVALID_ARGUMENT &&
                  strstr(aicf_last_error(ctx), "gelu_tanh") != NULL,
              "gelu epilogue: 'gelu_tanh = 2' refused, naming the key: %s", aicf_last_error(ctx));
    }
    aicf_context_destroy(ctx);
    dlclose(h);
}

static void test_fake_cuda_plans(void) {
    const char* path = getenv("AICF_FAKE_LIBCUDA");
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    size_t i;
    int pr;
    if (!path) path = "build/fakecuda/libcuda.so.1";
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13"; /* GEMMs on the generated kernel */
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, NULL) == AICF_ERROR_NO_DEVICE) {
        aicf_device_info di;
        if (!ctx || aicf_context_device_info(ctx, &di) != AICF_SUCCESS) {
            printf("SKIP fake CUDA plans: %s not usable (%s)\n", path, ctx ? aicf_last_error(ctx) : "context");
            g_skip++;
            aicf_context_destroy(ctx);
            return;
        }
    }
    aicf_context_destroy(ctx);
    for (pr = 0; pr < 2; pr++) {
        aicf_precision prec = pr ? AICF_PRECISION_FP16 : AICF_PRECISION_FP32;
        for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
            fb b;
            /* a fresh context per case: the fake driver keeps at most 16 functions per module */
            ctx = NULL;
            if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
                CHECK(0, "fake CUDA context");
                continue;
            }
            aicf_plan_desc pd;
            aicf_plan* plan = NULL;
            aicf_plan_stats ps;
            int casts, k;
            memset(&b, 0, sizeof b);
            b.ctx = ctx;
            b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
            if (b.ok) aicf_graph_set_opset(b.g, "", 17);
            if (b.ok) CASES[i].build(&b);
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = prec;
            CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "fake CUDA %s %s: plan (%s)", CASES[i].name,
                  pr ? "fp16" : "fp32", aicf_last_error(ctx));
            if (plan) {
                size_t need = 0;
                char* text;
                casts = pr ? b.n_in + b.n_out : 0;
                aicf_plan_stats_get(plan, &ps);
                aicf_plan_format(plan, NULL, 0, &need);
                text = (char*)malloc(need);
                aicf_plan_format(plan, text, need, NULL);
                CHECK(ps.num_steps == fused_steps_p(&CASES[i], AICF_BACKEND_CUDA, prec) + casts, "fake CUDA %s: %d steps, expected %d\n%s",
                      CASES[i].name, ps.num_steps, fused_steps_p(&CASES[i], AICF_BACKEND_CUDA, prec) + casts, text);
                if (fused_steps_p(&CASES[i], AICF_BACKEND_CUDA, prec) < unfused_steps(&CASES[i], AICF_BACKEND_CUDA))
                    CHECK(strstr(text, "fused chain of") != NULL || strstr(text, "fused elementwise ops") != NULL ||
                              strstr(text, "inside the main kernel") != NULL || strstr(text, "B transposed (Transpose absorbed)") != NULL ||
                              strstr(text, "attention fused") != NULL,
                          "fake CUDA %s: fused steps use the chain kernel or the main kernel's epilogue:\n%s", CASES[i].name, text);
                /* the attention chains: one step of an attention kernel (the tensor-core one at
                   fp16 for head sizes 32, 64, 128), the replaced nodes named */
                if (CASES[i].cpu_tol > 0 && !strncmp(CASES[i].name, "attention", 9)) {
                    int hd = !strcmp(CASES[i].name, "attention_fused_d32") || !strcmp(CASES[i].name, "attention_heads") ? 32
                             : !strcmp(CASES[i].name, "attention_fused_d64") ? 64
                             : !strcmp(CASES[i].name, "attention_fused_d128") ? 128 : 0;
                    char want[64];
                    if (pr && hd) snprintf(want, sizeof want, "aicf_attention_tc_f16_d%d ", hd);
                    else snprintf(want, sizeof want, "aicf_attention_%s ", pr ? "f16" : "f32");
                    CHECK(strstr(text, want) != NULL && strstr(text, "attention fused") != NULL && strstr(text, "Softmax 'softmax'") != NULL &&
                              strstr(text, "MatMul 'qk'") != NULL && strstr(text, "Transpose '") != NULL,
                          "fake CUDA %s %s: one %s step replacing the chain:\n%s", CASES[i].name, pr ? "fp16" : "fp32", want, text);
                }
                if (CASES[i].cpu_tol > 0 && !strncmp(CASES[i].name, "attention", 9)) { /* DOT: the replaced nodes drawn in the step's cluster */
                    size_t dn = 0;
                    char* dot;
                    aicf_plan_dot(plan, NULL, 0, &dn);
                    dot = (char*)malloc(dn + 1);
                    CHECK(dot && aicf_plan_dot(plan, dot, dn, NULL) == AICF_SUCCESS && strstr(dot, "subgraph cluster_") &&
                              strstr(dot, "Softmax\\nsoftmax") && strstr(dot, "MatMul\\nqk") && strstr(dot, "_r0 [label=\"Transpose"),
                          "fake CUDA %s: DOT draws the replaced nodes in a cluster:\n%s", CASES[i].name, dot ? dot : "");
                    free(dot);
                }
                /* the exported GELUs: one Gelu replacing the Div (or Mul), Erf, Add, Mul; after a GEMM at
                   fp16 (no cuBLASLt in this test) the tensor-core GEMM with the bias (and residual) and
                   the Gelu inside */
                if (!strcmp(CASES[i].name, "linear_residual_gelu") || !strcmp(CASES[i].name, "linear_gelu_enc") ||
                    !strcmp(CASES[i].name, "gelu_exported"))
                    CHECK(strstr(text, "the exported GELU as one Gelu, replacing Div 'div', Erf 'erf', Add '") != NULL &&
                              (!pr || strcmp(CASES[i].name, "gelu_exported") == 0 || strstr(text, "aicf_gemm_tc_f16_") != NULL),
                          "fake CUDA %s %s: the GELU replaced%s:\n%s", CASES[i].name, pr ? "fp16" : "fp32",
                          pr ? ", the tensor-core GEMM with the epilogue inside" : "", text);
                if (!strcmp(CASES[i].name, "attention_mask_then_scale") || !strcmp(CASES[i].name, "attention_softmax_axis2"))
                    CHECK(strstr(text, "attention fused") == NULL && strstr(text, "B transposed (Transpose absorbed)") != NULL,
                          "fake CUDA %s: not an attention chain, only the Transpose absorbed:\n%s", CASES[i].name, text);
                if (!strcmp(CASES[i].name, "attention_kt_output") || strcmp(CASES[i].name, "matmul_bt_2d") == 0)
                    CHECK((strstr(text, "B transposed (Transpose absorbed)") != NULL) == (strcmp(CASES[i].name, "attention_kt_output") != 0),
                          "fake CUDA %s: the Transpose %s absorbed into the MatMul:\n%s", CASES[i].name,
                          strcmp(CASES[i].name, "attention_kt_output") ? "is" : "(also a graph output) is not", text);
                /* LayerNormalization last: at fp16 the row-register kernel writes the float32 output
                   (flag 1 in its arguments, the Cast step absorbed, both reasons say so); not at
                   fp32, and not without fusion */
                if (!strcmp(CASES[i].name, "layernorm_out_stats")) {
                    int k, absorbed = 0;
                    for (k = 0; k < plan->n_steps; k++) absorbed += strcmp(plan->steps[k].kernel, "absorbed") == 0;
                    CHECK(absorbed == (pr ? 1 : 0) && (!pr || strstr(text, "Cast to f32 folded in") != NULL),
                          "fake CUDA %s %s: %d Casts absorbed (Y's only at fp16):\n%s", CASES[i].name, pr ? "fp16" : "fp32", absorbed, text);
                }
                if (!strcmp(CASES[i].name, "layernorm_out")) {
                    int k, folded = 0, absorbed = 0;
                    for (k = 0; k < plan->n_steps; k++) {
                        const aicf__step* st = &plan->steps[k];
                        aicf__cuo_prog* prg = (aicf__cuo_prog*)st->backend;
                        absorbed += strcmp(st->kernel, "absorbed") == 0;
                        if (prg && prg->n_ops == 1 && !strncmp(st->kernel, "aicf_norm_rowreg2_", 18)) {
                            const aicf__cuo_op* op = aicf__cuo_prog_ops(prg);
                            aicf__k_norm na;
                            int q, y = -1;
                            memcpy(&na, op->args, sizeof na);
                            for (q = 0; q < op->n_patch; q++) /* y is the Cast's float32 output */
                                if (op->patch[q].field == offsetof(aicf__k_norm, y)) y = op->patch[q].tensor;
                            folded += na.flags == 1 && y >= 0 && k + 1 < plan->n_steps && y == plan->steps[k + 1].out[0] && plan->loc[y].sdtype == AICF_DTYPE_FLOAT32;
                        }
                    }
                    CHECK(pr ? folded == 1 && absorbed == 1 && strstr(text, "Cast to f32 folded in") != NULL &&
                                   strstr(text, "Cast absorbed into step 1's normalization kernel, which writes the float32 output") != NULL
                             : folded == 0 && absorbed == 0,
                          "fake CUDA %s %s: %d normalization kernels writing float32, %d steps absorbed:\n%s", CASES[i].name,
                          pr ? "fp16" : "fp32", folded, absorbed, text);
                    if (pr) {
                        aicf_plan* up = NULL;
                        pd.policy.no_fusion = 1;
                        CHECK(aicf_plan_create(b.g, &pd, &up) == AICF_SUCCESS, "fake CUDA %s: unfused plan", CASES[i].name);
                        pd.policy.no_fusion = 0;
                        for (k = 0; up && k < up->n_steps; k++)
                            CHECK(strcmp(up->steps[k].kernel, "absorbed") != 0, "fake CUDA %s: no_fusion plan absorbs step %d", CASES[i].name, k);
                        aicf_plan_destroy(up);
                    }
                }
                /* the chain kernel's 4-wide variant: broadcast_chain (24 elements; INNER, MIDDLE, GENERAL
                   and SCALAR operands) takes it, long_chain (99 elements) cannot */
                if (!strcmp(CASES[i].name, "broadcast_chain") || !strcmp(CASES[i].name, "long_chain"))
                    CHECK(!strstr(text, "4 per thread") == !strcmp(CASES[i].name, "long_chain"),
                          "fake CUDA %s: chain kernel width:\n%s", CASES[i].name, text);
                if (!strcmp(CASES[i].name, "gelu_exported")) {
                    const char* g1 = strstr(text, "as one Gelu");
                    CHECK(g1 && strstr(g1 + 1, "as one Gelu"), "fake CUDA gelu_exported: both spellings as one Gelu op:\n%s", text);
                }
                /* small-M Gemm (transB): the GEMV kernel with C and the whole epilogue inside, no chain
                   kernel; K = 37 takes the element-load variant; at fp16 the 16-byte one absorbs
                   the output Cast (writes float32) */
                if (!strcmp(CASES[i].name, "linear_b1_residual_tanh") || !strcmp(CASES[i].name, "linear_m3_relu_scale")) {
                    char want[64];
                    int m3 = !strcmp(CASES[i].name, "linear_m3_relu_scale");
                    snprintf(want, sizeof want, "aicf_gemv_%s_m%d%s ", pr ? "f16" : "f32", m3 ? 4 : 1, m3 ? "" : "_v");
                    CHECK(strstr(text, want) != NULL && strstr(text, "[first 2 inside the main kernel]") != NULL &&
                              !strstr(text, "aicf_ewchain"),
                          "fake CUDA %s: %s with the epilogue inside:\n%s", CASES[i].name, want, text);
                }
                /* persistent GEMV launches: which steps join, where a run is cut; by default one
                   layer with the boundary Casts beside it, with the policy's persistent whole runs */
                if (!strncmp(CASES[i].name, "mlp_", 4)) {
                    int per;
                    for (per = 0; per < 2; per++) {
                        const char *w1 = NULL, *w2 = NULL, *q;
                        int launches = 0, absorbed = 0, want_l = 0, want_a = 0;
                        aicf_plan* pp = NULL;
                        char* pt = NULL;
                        size_t pn = 0;
                        pd.policy.persistent = per;
                        CHECK(aicf_plan_create(b.g, &pd, &pp) == AICF_SUCCESS, "fake CUDA %s: plan persistent=%d", CASES[i].name, per);
                        pd.policy.persistent = 0;
                        if (!pp) continue;
                        aicf_plan_format(pp, NULL, 0, &pn);
                        pt = (char*)malloc(pn);
                        aicf_plan_format(pp, pt, pn, NULL);
                        for (q = pt; (q = strstr(q, "why: persistent: steps")) != NULL; q++) launches++;
                        for (q = pt; (q = strstr(q, " persistent kernel aicf_gemvp_")) != NULL; q++) absorbed++;
                        for (q = pt; (q = strstr(q, "Cast absorbed into step")) != NULL; q++) absorbed++;
                        if (!strcmp(CASES[i].name, "mlp_b1_chain")) {
                            if (per) w1 = pr ? "steps 0..5 (4 GEMV layers, input Cast, output Cast)" : "steps 0..3 (4 GEMV layers)";
                            else if (pr) w1 = "boundary Cast absorbed (float32 A)", w2 = "boundary Cast absorbed (float32 D)";
                            want_l = per ? 1 : 0;
                            want_a = per ? (pr ? 5 : 3) : pr ? 2 : 0;
                        } else if (!strcmp(CASES[i].name, "mlp_m5_residual")) {
                            if (per) {
                                w1 = pr ? "steps 0..2 (2 GEMV layers, input Cast)" : "steps 0..1 (2 GEMV layers)";
                                w2 = pr ? "steps 3..5 (2 GEMV layers, output Cast)" : "steps 2..3 (2 GEMV layers)";
                            } else if (pr) {
                                w1 = "boundary Cast absorbed (float32 A)", w2 = "boundary Cast absorbed (float32 D)";
                            }
                            want_l = per ? 2 : 0;
                            want_a = per ? (pr ? 4 : 2) : pr ? 2 : 0;
                            if (per) CHECK(strstr(pt, pr ? "aicf_gemvp_f16_m8" : "aicf_gemvp_f32_m8") != NULL, "fake CUDA %s: row tile 8",
                                           CASES[i].name);
                        } else { /* the layer with input weights stays on its own GEMV */
                            w1 = pr ? (per ? "steps 3..4 (1 GEMV layer, output Cast)" : "boundary Cast absorbed (float32 D)") : NULL;
                            want_l = per && pr ? 1 : 0;
                            want_a = pr ? 1 : 0;
                            CHECK(strstr(pt, "aicf_gemv_") != NULL, "fake CUDA %s: the layer with input weights on the GEMV", CASES[i].name);
                        }
                        CHECK(launches == want_l && absorbed == want_a,
                              "fake CUDA %s persistent=%d: %d persistent launches (expected %d), %d steps inside (expected %d)",
                              CASES[i].name, per, launches, want_l, absorbed, want_a);
                        if (w1) CHECK(strstr(pt, w1) != NULL, "fake CUDA %s: '%s' in\n%s", CASES[i].name, w1, pt);
                        if (w2) CHECK(strstr(pt, w2) != NULL, "fake CUDA %s: '%s' in\n%s", CASES[i].name, w2, pt);
                        if (per && !strcmp(CASES[i].name, "mlp_b1_chain")) fake_barrier_word_errors(ctx, pp, path);
                        free(pt);
                        aicf_plan_destroy(pp);
                    }
                    /* no fusion: no persistent launch either */
                    {
                        aicf_plan* up = NULL;
                        char* ut;
                        size_t un = 0;
                        pd.policy.no_fusion = 1;
                        pd.policy.persistent = 1;
                        CHECK(aicf_plan_create(b.g, &pd, &up) == AICF_SUCCESS, "fake CUDA %s: unfused plan", CASES[i].name);
                        pd.policy.no_fusion = 0;
                        pd.policy.persistent = 0;
                        if (up) {
                            aicf_plan_format(up, NULL, 0, &un);
                            ut = (char*)malloc(un);
                            aicf_plan_format(up, ut, un, NULL);
                            CHECK(!strstr(ut, "aicf_gemvp"), "fake CUDA %s: no_fusion plan has a persistent launch", CASES[i].name);
                            free(ut);
                            aicf_plan_destroy(up);
                        }
                    }
                }
                /* fp16 Conv + residual Add + Relu: all in the tensor-core conv's epilogue */
                if (pr && !strncmp(CASES[i].name, "conv_residual_relu", 18))
                    CHECK(strstr(text, "aicf_conv2d_tc") != NULL && strstr(text, "[first 2 inside the main kernel]") != NULL &&
                              !strstr(text, "aicf_ewchain"),
                          "fake CUDA %s fp16: residual and Relu inside the tensor-core conv:\n%s", CASES[i].name, text);
                if (pr && !strcmp(CASES[i].name, "conv_residual_relu_rows"))
                    CHECK(strstr(text, "aicf_conv2d_tcr_f16_m64_v16") != NULL, "fake CUDA %s fp16: the rows kernel:\n%s", CASES[i].name, text);
                /* the stem: the small-K kernel with the Relu inside */
                if (pr && !strcmp(CASES[i].name, "conv_stem_relu"))
                    CHECK(strstr(text, "aicf_conv2d_tcs_f16_m64") != NULL && strstr(text, "[first 1 inside the main kernel]") != NULL &&
                              !strstr(text, "aicf_ewchain"),
                          "fake CUDA %s fp16: the small-K conv with the Relu inside:\n%s", CASES[i].name, text);
                free(text);
                aicf_plan_destroy(plan);
            }
            for (k = 0; k < b.n_in; k++) free(b.in_data[k]);
            aicf_graph_destroy(b.g);
            aicf_context_destroy(ctx);
        }
    }
    test_fake_concat_views(&cd);
}

/* Pins that cannot be honoured: every one is an error naming the pin's node and why (fake CUDA
   driver, no cuBLASLt), and a good pin changes its step only */
/* Randomised attention chains on the CPU reference: ranks 3 and 4, any head sizes, the scale as
   Mul (either side), Div or none, masks of rank 1-4 broadcasting (or a last axis of 1, which
   broadcasts over the keys: not ONNX Attention's padding, so not fused), K^T by a Transpose or
   given as such, the scores or probabilities also graph outputs, Softmax over another axis.
   Each graph is planned fused and unfused: the fused plan has an Attention step exactly when
   the chain qualifies (aicf__fuse_attention's rule, restated here), and every output matches
   the unfused plan's within 1e-5. */
static int rnd_int(int lo, int hi) { return lo + (int)(frand(0.0f, 1.0f) * (float)(hi - lo + 1) * 0.99999f); }

static void test_attention_random(aicf_context* ctx, aicf_backend backend, aicf_precision prec) {
    int trial, fused_seen = 0, unfused_seen = 0;
    const double tol = prec == AICF_PRECISION_FP16 ? 1e-2 : 1e-5;
    for (trial = 0; trial < 80; trial++) {
        fb b;
        int rank = rnd_int(3, 4), scale_kind = rnd_int(0, 3), mask_kind = rnd_int(0, 2), kt = rnd_int(0, 5) > 0, extra = rnd_int(0, 5),
            axis_last = rnd_int(0, 7) > 0, mask_left = rnd_int(0, 1), mr = 0, k, expect;
        int64_t B = rnd_int(1, 2), H = rnd_int(1, 3), Sq = rnd_int(1, 20), Skv = rnd_int(1, 20), D = rnd_int(1, 40), Dv = rnd_int(1, 40);
        int64_t qd[4], kd[4], vd[4], md[4], sd[4];
        static const int64_t perm4[4] = {0, 1, 3, 2}, perm3[3] = {0, 2, 1};
        aicf_attr a[1], ax[1];
        const char* cur = "sc";
        char desc[200];
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        float* out_u[FB_MAX] = {0};
        float* out_f[FB_MAX] = {0};
        size_t bu[FB_MAX], bf[FB_MAX];
        int su, sf, ku, kf, n_attn = 0, i;
        if (rank == 3) H = 1;
        if (backend == AICF_BACKEND_CUDA && rnd_int(0, 1)) D = Dv = rnd_int(0, 2) ? 32 : 64; /* the tensor-core kernel's sizes */
        /* shapes: [B, H, S, D] or [B, S, D] */
        k = 0;
        qd[k] = B, kd[k] = B, vd[k] = B, sd[k] = B, k++;
        if (rank == 4) qd[k] = H, kd[k] = H, vd[k] = H, sd[k] = H, k++;
        qd[k] = Sq, vd[k] = Skv, sd[k] = Sq, k++;
        qd[k] = D, vd[k] = Dv, sd[k] = Skv;
        if (kt) kd[rank - 2] = Skv, kd[rank - 1] = D;
        else kd[rank - 2] = D, kd[rank - 1] = Skv;
        if (mask_kind) {
            mr = rnd_int(1, rank);
            for (i = 0; i < mr; i++) md[i] = rnd_int(0, 1) ? sd[rank - mr + i] : 1;
            md[mr - 1] = mask_kind == 2 && rnd_int(0, 3) == 0 ? 1 : Skv;
        }
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
        if (b.ok) aicf_graph_set_opset(b.g, "", 17);
        fb_input(&b, "q", rank, qd, -1, 1);
        fb_input(&b, "k", rank, kd, -1, 1);
        fb_input(&b, "v", rank, vd, -1, 1);
        if (kt) {
            a[0] = attr_ints("perm", rank, rank == 4 ? perm4 : perm3);
            fb_node(&b, "kt", "Transpose", "k", "kT", a, 1);
            fb_node(&b, "qk", "MatMul", "q,kT", "sc", NULL, 0);
        } else {
            fb_node(&b, "qk", "MatMul", "q,k", "sc", NULL, 0);
        }
        if (scale_kind) {
            /* scale factors in [0.05, 1] whether multiplied (Mul by c) or divided (Div by 1/c):
               a Div by 0.05 would scale the logits by 20, an ill-conditioned softmax that float16
               storage of the scores cannot follow to 1e-2 (the exporters divide by sqrt(D)) */
            fb_scalar(&b, "c", scale_kind == 3 ? 1.0f / frand(0.05f, 1.0f) : frand(0.05f, 1.0f));
            fb_node(&b, "scale", scale_kind == 3 ? "Div" : "Mul", scale_kind == 2 ? "c,sc" : "sc,c", "ss", NULL, 0);
            cur = "ss";
        }
        if (mask_kind) {
            char ins[16];
            fb_input(&b, "mask", mr, md, -3, 0.5f);
            snprintf(ins, sizeof ins, mask_left ? "mask,%s" : "%s,mask", cur);
            fb_node(&b, "add_mask", "Add", ins, "sm", NULL, 0);
            cur = "sm";
        }
        ax[0] = attr_i("axis", axis_last ? -1 : rank - 2);
        fb_node(&b, "softmax", "Softmax", cur, "p", ax, 1);
        fb_node(&b, "pv", "MatMul", "p,v", "y", NULL, 0);
        fb_output(&b, "y");
        if (extra == 1) fb_output(&b, cur);  /* the scores also an output */
        if (extra == 2) fb_output(&b, "p");  /* the probabilities also an output */
        expect = kt && axis_last && extra != 1 && extra != 2;
        if (mask_kind && (md[mr - 1] != Skv || (rank == 3 && mr > 2))) expect = 0;
        snprintf(desc, sizeof desc, "attention random %d: rank %d B%lld H%lld Sq%lld Skv%lld D%lld Dv%lld scale %d mask %d (rank %d, last %lld, %s) kt %d extra %d axis_last %d",
                 trial, rank, (long long)B, (long long)H, (long long)Sq, (long long)Skv, (long long)D, (long long)Dv, scale_kind, mask_kind,
                 mr, mask_kind ? (long long)md[mr - 1] : 0LL, mask_left ? "left" : "right", kt, extra, axis_last);
        CHECK(b.ok, "%s: graph builds", desc);
        if (!b.ok) goto next;
        memset(&pd, 0, sizeof pd);
        pd.backend = backend;
        pd.policy.precision = prec;
        if (aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS) {
            for (i = 0; i < plan->n_steps; i++)
                n_attn += plan->steps[i].kind == AICF__STEP_NODE && plan->g->nodes[plan->steps[i].node].op == AICF__OP_Attention;
            aicf_plan_destroy(plan);
        }
        CHECK(n_attn == expect, "%s: %d Attention steps, expected %d", desc, n_attn, expect);
        fused_seen += n_attn > 0;
        unfused_seen += n_attn == 0;
        /* the unfused CPU reference against the fused plan on the backend */
        if (plan_run(&b, AICF_BACKEND_CPU, AICF_PRECISION_FP32, 1, &su, &ku, out_u, bu) &&
            plan_run(&b, backend, prec, 0, &sf, &kf, out_f, bf)) {
            for (i = 0; i < b.n_out; i++) {
                /* y is a convex combination of V's rows (drawn from [-1, 1]): its error is measured
                   against 1, not against a |y| that cancellation can make small (a random case with
                   one output, Sq = Dv = 1, once measured 6e-5 relative to its own |y| at float32) */
                double e = bu[i] != bf[i] ? 1e30 : i == 0 ? rel_err_floor(out_f[i], out_u[i], bu[i] / 4, 1.0) : rel_err(out_f[i], out_u[i], bu[i] / 4);
                CHECK(e <= tol, "%s %s %s: output %d fused vs the unfused CPU reference rel err %.3g > %.1g", desc,
                      backend == AICF_BACKEND_CUDA ? "cuda" : "cpu", prec == AICF_PRECISION_FP16 ? "fp16" : "fp32", i, e, tol);
            }
        } else {
            CHECK(0, "%s: plans run", desc);
        }
    next:
        for (i = 0; i < FB_MAX; i++) {
            free(out_u[i]);
            free(out_f[i]);
        }
        for (i = 0; i < b.n_in; i++) free(b.in_data[i]);
        aicf_graph_destroy(b.g);
    }
    CHECK(fused_seen > 10 && unfused_seen > 10, "attention random: %d fused and %d unfused graphs (both kinds covered)", fused_seen,
          unfused_seen);
}

/* ONNX Attention nodes the device kernels do not take: planning on CUDA (fake driver) fails with
   AICF_ERROR_UNSUPPORTED (or the shape/model error) naming the input or attribute; the CPU
   reference plans the same graph. */
static void test_attention_lowering_errors(void) {
    const char* path = getenv("AICF_FAKE_LIBCUDA");
    aicf_context_desc cd;
    int c;
    static const char* const WHY[7] = {"input 4 (past_key) has no device kernel", "attribute 'softcap' has no device kernel",
                                       "'left_window_size' / 'right_window_size' have no device kernel",
                                       "(attn_mask) is bool; the device kernel takes float masks only",
                                       "head sizes D = 300, Dv = 300: the device kernel takes 1 to 256",
                                       "output 3 (qk_matmul_output) has no device kernel", "output 1 (present_key) has no device kernel"};
    if (!path) path = "build/fakecuda/libcuda.so.1";
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
    for (c = 0; c < 7; c++) {
        aicf_context* ctx = NULL;
        fb b;
        int64_t q[4] = {1, 2, 8, 16}, pk[4] = {1, 2, 3, 16}, m[2] = {8, 8};
        aicf_attr a[2];
        int na = 0;
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        aicf_result r;
        const char* ins = "q,k,v";
        const char* outs = "y";
        if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, NULL) == AICF_ERROR_NO_DEVICE) {
            printf("SKIP attention lowering errors: %s not usable\n", path);
            g_skip++;
            aicf_context_destroy(ctx);
            return;
        }
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
        if (b.ok) aicf_graph_set_opset(b.g, "", 23);
        if (c == 4) q[3] = 300;
        fb_input(&b, "q", 4, q, -1, 1);
        fb_input(&b, "k", 4, q, -1, 1);
        fb_input(&b, "v", 4, q, -1, 1);
        if (c == 0) {
            fb_input(&b, "pk", 4, pk, -1, 1);
            fb_input(&b, "pv", 4, pk, -1, 1);
            ins = "q,k,v,,pk,pv";
        }
        if (c == 1) a[na++] = attr_f("softcap", 5.0f);
        if (c == 2) a[na++] = attr_i("left_window_size", 2);
        if (c == 3) {
            aicf_tensor_desc t;
            memset(&t, 0, sizeof t);
            t.name = "mask";
            t.dtype = AICF_DTYPE_BOOL;
            t.rank = 2;
            t.dims = m;
            if (aicf_graph_add_input(b.g, &t) != AICF_SUCCESS) b.ok = 0;
            ins = "q,k,v,mask";
        }
        if (c == 5) outs = "y,,,qk";
        if (c == 6) outs = "y,pkey,pval";
        fb_node(&b, "attn", "Attention", ins, outs, na ? a : NULL, na);
        fb_output(&b, "y");
        if (c == 5) fb_output(&b, "qk");
        if (c == 6) fb_output(&b, "pkey");
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.precision = AICF_PRECISION_FP16;
        r = b.ok ? aicf_plan_create(b.g, &pd, &plan) : AICF_ERROR_INVALID_MODEL;
        CHECK(b.ok && r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(ctx), WHY[c]) && strstr(aicf_last_error(ctx), "'attn'") &&
                  plan == NULL,
              "Attention case %d on CUDA: expected UNSUPPORTED with \"%s\", got %s: %s", c, WHY[c], aicf_result_str(r), aicf_last_error(ctx));
        aicf_plan_destroy(plan);
        plan = NULL;
        pd.backend = AICF_BACKEND_CPU;
        pd.policy.precision = AICF_PRECISION_FP32;
        r = b.ok ? aicf_plan_create(b.g, &pd, &plan) : AICF_ERROR_INVALID_MODEL;
        CHECK(r == AICF_SUCCESS, "Attention case %d on the CPU reference plans: %s", c, aicf_last_error(ctx));
        aicf_plan_destroy(plan);
        {
            int i;
            for (i = 0; i < b.n_in; i++) free(b.in_data[i]);
        }
        aicf_graph_destroy(b.g);
        aicf_context_destroy(ctx);
    }
}

static void test_pin_errors(void) {
    const char* path = getenv("AICF_FAKE_LIBCUDA");
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    fb b;
    size_t i;
    static const struct {
        const char* node;
        int kernel, variant, no_fusion;
        aicf_result code;
        const char* msg;
    } BAD[] = {
        {"nope", AICF_CHOICE_DIRECT, 0, 0, AICF_ERROR_INVALID_ARGUMENT, "the graph has no node named 'nope'"},
        {"qk", 9, 0, 0, AICF_ERROR_INVALID_ARGUMENT, "kernel 9 is not a choice"},
        {"qk", AICF_CHOICE_CUBLASLT, 8, 0, AICF_ERROR_INVALID_ARGUMENT, "variant 8 is not one of cublaslt's (0..7)"},
        {"qk", AICF_CHOICE_GENERATED, 1, 0, AICF_ERROR_INVALID_ARGUMENT, "variant 1 is not one of generated's (0..0)"},
        {"qk", AICF_CHOICE_DIRECT, 0, 0, AICF_ERROR_INVALID_ARGUMENT, "direct is not a choice for a MatMul"},
        {"softmax", AICF_CHOICE_GENERATED, 0, 0, AICF_ERROR_INVALID_ARGUMENT, "a Softmax; pins apply to Conv, Gemm and MatMul"},
        {"scale", AICF_CHOICE_GENERATED, 0, 0, AICF_ERROR_UNSUPPORTED, "the node is fused into step"},
        {"kt", AICF_CHOICE_GENERATED, 0, 0, AICF_ERROR_UNSUPPORTED, "the node has no step"},
        {"kt", AICF_CHOICE_GENERATED, 0, 1, AICF_ERROR_INVALID_ARGUMENT, "a Transpose; pins apply"},
        {"qk", AICF_CHOICE_CUBLASLT, 0, 0, AICF_ERROR_UNSUPPORTED, "the pinned choice cublaslt does not apply"},
    };
    if (!path) path = "build/fakecuda/libcuda.so.1";
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13"; /* no cuBLASLt: a cublaslt pin cannot apply */
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS || aicf_context_device_info(ctx, NULL) == AICF_ERROR_NO_DEVICE) {
        printf("SKIP pin errors: %s not usable\n", path);
        g_skip++;
        aicf_context_destroy(ctx);
        return;
    }
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
    if (b.ok) aicf_graph_set_opset(b.g, "", 17);
    /* an attention chain the fusion leaves as MatMul steps (mask before scale): every step pinnable */
    if (b.ok) c_attention_mask_then_scale(&b);
    for (i = 0; b.ok && i < sizeof BAD / sizeof BAD[0]; i++) {
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        aicf_result r;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        pd.policy.no_fusion = BAD[i].no_fusion;
        snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "%s", BAD[i].node);
        pd.policy.pins[0].kernel = (aicf_kernel_choice)BAD[i].kernel;
        pd.policy.pins[0].variant = BAD[i].variant;
        r = aicf_plan_create(b.g, &pd, &plan);
        CHECK(r == BAD[i].code && strstr(aicf_last_error(ctx), BAD[i].msg) && plan == NULL,
              "pin %s=%d/%d: expected %s with \"%s\", got %s: %s", BAD[i].node, BAD[i].kernel, BAD[i].variant, aicf_result_str(BAD[i].code),
              BAD[i].msg, aicf_result_str(r), aicf_last_error(ctx));
        aicf_plan_destroy(plan);
    }
    { /* a fused attention chain: its MatMuls (and the rest) are no steps to pin; no_fusion keeps them */
        fb ba;
        static const char* const NODES[3] = {"qk", "pv", "softmax"};
        memset(&ba, 0, sizeof ba);
        ba.ctx = ctx;
        ba.ok = aicf_graph_create(ctx, &ba.g) == AICF_SUCCESS;
        if (ba.ok) aicf_graph_set_opset(ba.g, "", 17);
        if (ba.ok) c_attention_kt(&ba);
        for (i = 0; ba.ok && i < 3; i++) {
            aicf_plan_desc pd;
            aicf_plan* plan = NULL;
            aicf_result r;
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "%s", NODES[i]);
            pd.policy.pins[0].kernel = AICF_CHOICE_GENERATED;
            r = aicf_plan_create(ba.g, &pd, &plan);
            CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(ctx), i == 1 ? "the MatMul is fused with its attention chain"
                                                                                  : "is fused into the Attention of step") &&
                      strstr(aicf_last_error(ctx), "no_fusion") && plan == NULL,
                  "pin of the fused attention's node %s: %s: %s", NODES[i], aicf_result_str(r), aicf_last_error(ctx));
            aicf_plan_destroy(plan);
            plan = NULL;
            pd.policy.no_fusion = 1;
            if (i < 2) {
                r = aicf_plan_create(ba.g, &pd, &plan);
                CHECK(r == AICF_SUCCESS, "pin of %s with no_fusion: %s", NODES[i], aicf_last_error(ctx));
                aicf_plan_destroy(plan);
            }
        }
        for (i = 0; i < (size_t)ba.n_in; i++) free(ba.in_data[i]);
        aicf_graph_destroy(ba.g);
    }
    { /* the exported GELU made one Gelu (fused into the MatMul's step): its replaced nodes and the
         Gelu itself are no steps to pin; the MatMul is */
        fb bg;
        static const char* const NODES[4] = {"erf", "div", "mul_half", "mm"};
        memset(&bg, 0, sizeof bg);
        bg.ctx = ctx;
        bg.ok = aicf_graph_create(ctx, &bg.g) == AICF_SUCCESS;
        if (bg.ok) aicf_graph_set_opset(bg.g, "", 17);
        if (bg.ok) c_linear_gelu_enc(&bg);
        for (i = 0; bg.ok && i < 4; i++) {
            aicf_plan_desc pd;
            aicf_plan* plan = NULL;
            aicf_result r;
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            pd.policy.precision = AICF_PRECISION_FP16;
            snprintf(pd.policy.pins[0].node, sizeof pd.policy.pins[0].node, "%s", NODES[i]);
            pd.policy.pins[0].kernel = AICF_CHOICE_GENERATED;
            r = aicf_plan_create(bg.g, &pd, &plan);
            if (i < 2)
                CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(ctx), "of the exported GELU replaced by Gelu node 'mul_half'") &&
                          plan == NULL,
                      "pin of the GELU's replaced node %s: %s: %s", NODES[i], aicf_result_str(r), aicf_last_error(ctx));
            else if (i == 2)
                CHECK(r == AICF_ERROR_UNSUPPORTED && strstr(aicf_last_error(ctx), "the node is fused into step") && plan == NULL,
                      "pin of the Gelu node fused into the MatMul: %s: %s", aicf_result_str(r), aicf_last_error(ctx));
            else
                CHECK(r == AICF_SUCCESS && plan && plan->n_steps == 3 && strncmp(plan->steps[1].kernel, "aicf_gemm_tc_f16_", 17) == 0,
                      "pin of the MatMul (generated): %s: %s", aicf_result_str(r), plan ? plan->steps[1].kernel : aicf_last_error(ctx));
            aicf_plan_destroy(plan);
        }
        for (i = 0; i < (size_t)bg.n_in; i++) free(bg.in_data[i]);
        aicf_graph_destroy(bg.g);
    }
    if (b.ok) { /* twice the same node; a name without its NUL */
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CUDA;
        strcpy(pd.policy.pins[0].node, "qk");
        strcpy(pd.policy.pins[3].node, "qk");
        pd.policy.pins[0].kernel = pd.policy.pins[3].kernel = AICF_CHOICE_GENERATED;
        CHECK(aicf_plan_create(b.g, &pd, &plan) == AICF_ERROR_INVALID_ARGUMENT && strstr(aicf_last_error(ctx), "pins[0] and [3] both pin node 'qk'"),
              "pinned twice: %s", aicf_last_error(ctx));
        memset(&pd.policy.pins[3], 0, sizeof pd.policy.pins[3]);
        memset(pd.policy.pins[0].node, 'x', sizeof pd.policy.pins[0].node);
        CHECK(aicf_plan_create(b.g, &pd, &plan) == AICF_ERROR_INVALID_ARGUMENT && strstr(aicf_last_error(ctx), "pins[0].node is not NUL-terminated"),
              "unterminated pin name: %s", aicf_last_error(ctx));
        /* a good pin: the generated GEMM for pv, the rest unchanged */
        {
            aicf_plan *p0 = NULL, *p1 = NULL;
            char *t0 = NULL, *t1 = NULL;
            size_t n0 = 0, n1 = 0;
            memset(&pd, 0, sizeof pd);
            pd.backend = AICF_BACKEND_CUDA;
            CHECK(aicf_plan_create(b.g, &pd, &p0) == AICF_SUCCESS, "unpinned plan: %s", aicf_last_error(ctx));
            strcpy(pd.policy.pins[0].node, "pv");
            pd.policy.pins[0].kernel = AICF_CHOICE_GENERATED;
            CHECK(aicf_plan_create(b.g, &pd, &p1) == AICF_SUCCESS, "pinned plan: %s", aicf_last_error(ctx));
            if (p0 && p1 && aicf_plan_serialize(p0, NULL, 0, &n0) == AICF_SUCCESS && aicf_plan_serialize(p1, NULL, 0, &n1) == AICF_SUCCESS) {
                int diff = 0;
                const char *a, *c2;
                t0 = (char*)malloc(n0);
                t1 = (char*)malloc(n1);
                aicf_plan_serialize(p0, t0, n0, NULL);
                aicf_plan_serialize(p1, t1, n1, NULL);
                /* line by line: only the policy's pin line, and the pinned step's reason and choice lines differ */
                for (a = t0, c2 = t1; *a || *c2;) {
                    const char *ea = strchr(a, '\n'), *ec = strchr(c2, '\n');
                    size_t la = ea ? (size_t)(ea - a) : strlen(a), lc = ec ? (size_t)(ec - c2) : strlen(c2);
                    if (la != lc || memcmp(a, c2, la) != 0) {
                        if (strncmp(c2, "policy pin = generated pv", 25) == 0 || strncmp(c2, "  choice kernel=generated lt=0 from=pin", 39) == 0) {
                            c2 += lc + (ec ? 1 : 0); /* an added line */
                            continue;
                        }
                        if (!(strncmp(a, "  reason ", 9) == 0 && strncmp(c2, "  reason \"pinned generated; ", 28) == 0)) diff++;
                    }
                    a += la + (ea ? 1 : 0);
                    c2 += lc + (ec ? 1 : 0);
                }
                CHECK(diff == 0, "a pin changes only its step's reason and adds its choice line (%d other lines differ)", diff);
                {
                    aicf_step_info inf;
                    int k, seen = 0;
                    for (k = 0; k < aicf_plan_num_steps(p1); k++)
                        if (aicf_plan_step_info(p1, k, &inf) == AICF_SUCCESS && strcmp(inf.node_name, "pv") == 0) {
                            seen = 1;
                            CHECK(inf.choice == AICF_CHOICE_GENERATED && inf.pinned == 1 && inf.variant == 0 && inf.num_tuned == 0,
                                  "aicf_plan_step_info of the pinned step: choice %d pinned %d variant %d tuned %d", (int)inf.choice, inf.pinned,
                                  inf.variant, inf.num_tuned);
                        } else if (aicf_plan_step_info(p1, k, &inf) == AICF_SUCCESS) {
                            CHECK(inf.choice == AICF_CHOICE_RULE && !inf.pinned, "step %d '%s': not pinned", k, inf.node_name);
                        }
                    CHECK(seen, "the pinned step is listed");
                }
            }
            free(t0);
            free(t1);
            aicf_plan_destroy(p0);
            aicf_plan_destroy(p1);
        }
    }
    for (i = 0; i < (size_t)b.n_in; i++) free(b.in_data[i]);
    aicf_graph_destroy(b.g);
    aicf_context_destroy(ctx);
}

/* The plan text of a Gelu step: the GELU fusion's Gelu names the four nodes it replaced; a Gelu
   node of the graph (opset 20) gets no such line */
static void test_format_gelu_steps(aicf_context* ctx) {
    int v;
    for (v = 0; v < 2; v++) {
        static const int64_t x[2] = {4, 24};
        fb b;
        aicf_plan_desc pd;
        aicf_plan* plan = NULL;
        size_t need = 0;
        char* text = NULL;
        memset(&b, 0, sizeof b);
        b.ctx = ctx;
        b.ok = aicf_graph_create(ctx, &b.g) == AICF_SUCCESS;
        if (b.ok) aicf_graph_set_opset(b.g, "", v ? 17 : 20);
        fb_input(&b, "x", 2, x, -3, 3);
        if (v) { /* the exported spelling, on a graph input: the Gelu is the step's main node */
            fb_scalar(&b, "sqrt2", 1.41421356f);
            fb_scalar(&b, "one", 1.0f);
            fb_scalar(&b, "half", 0.5f);
            fb_node(&b, "div", "Div", "x,sqrt2", "d", NULL, 0);
            fb_node(&b, "erf", "Erf", "d", "e", NULL, 0);
            fb_node(&b, "add", "Add", "e,one", "a", NULL, 0);
            fb_node(&b, "mulx", "Mul", "x,a", "m", NULL, 0);
            fb_node(&b, "mulh", "Mul", "m,half", "y", NULL, 0);
        } else {
            fb_node(&b, "gelu", "Gelu", "x", "y", NULL, 0);
        }
        fb_output(&b, "y");
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CPU;
        CHECK(b.ok && aicf_plan_create(b.g, &pd, &plan) == AICF_SUCCESS, "Gelu step %d: plan: %s", v, aicf_last_error(ctx));
        if (plan && aicf_plan_format(plan, NULL, 0, &need) == AICF_SUCCESS && (text = (char*)malloc(need)) != NULL &&
            aicf_plan_format(plan, text, need, NULL) == AICF_SUCCESS)
            CHECK(v ? strstr(text, "Gelu: (the exported GELU as one Gelu, replacing Div 'div', Erf 'erf', Add 'add', Mul 'mulx')") != NULL
                    : strstr(text, "Gelu:") == NULL && strstr(text, "replacing") == NULL,
                  "Gelu step %d (%s): the plan text:\n%s", v, v ? "exported GELU" : "a graph Gelu", text);
        else
            CHECK(0, "Gelu step %d: plan text", v);
        free(text);
        aicf_plan_destroy(plan);
        free(b.in_data[0]);
        aicf_graph_destroy(b.g);
    }
}

int main(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    size_t i;
    const char* seed = getenv("AICF_SEED");
    g_rng = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
    if (!g_rng) g_rng = 1;
    printf("seed %llu\n", (unsigned long long)g_rng);
    memset(&cd, 0, sizeof cd);
    if (!AICF_FUSION_TEST_CUDA) cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        printf("context failed\n0 passed, 1 failed\n");
        return 1;
    }
    if (AICF_FUSION_TEST_CUDA) {
        aicf_device_info di;
        if (aicf_context_device_info(ctx, &di) != AICF_SUCCESS) {
            printf("SKIP: no CUDA device (%s)\n", aicf_last_error(ctx));
            g_skip += (int)(sizeof CASES / sizeof CASES[0]);
        } else {
            const char* only = getenv("AICF_FUSION_ONLY");
            if (only && !*only) only = NULL;
            g_fold_dev = di.cc_major == 9 && di.cc_minor == 0; /* the fold's kernel: sm_90a */
            for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
                if (only && !strstr(CASES[i].name, only)) continue;
                run_case(ctx, &CASES[i], AICF_BACKEND_CUDA, AICF_PRECISION_FP32);
                run_case(ctx, &CASES[i], AICF_BACKEND_CUDA, AICF_PRECISION_FP16);
            }
            if (!only) {
                test_gpu_persistent_replays(ctx);
                test_gpu_lt_answers(ctx);
                test_gpu_gelu_tanh(ctx);
                test_gpu_ws_gelu(ctx);
            } else {
                printf("AICF_FUSION_ONLY '%s': the cases named so, and the random attention graphs if 'attention' contains it\n", only);
            }
            if (!only || strstr("attention", only)) {
                test_attention_random(ctx, AICF_BACKEND_CUDA, AICF_PRECISION_FP32);
                test_attention_random(ctx, AICF_BACKEND_CUDA, AICF_PRECISION_FP16);
            }
        }
    } else {
        for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) run_case(ctx, &CASES[i], AICF_BACKEND_CPU, AICF_PRECISION_FP32);
        test_format_names_fused(ctx);
        test_format_gelu_steps(ctx);
        test_fake_cuda_plans();
        test_fake_lt_setup();
        test_fake_gelu_epilogue();
        test_pin_errors();
        test_attention_lowering_errors();
        test_attention_random(ctx, AICF_BACKEND_CPU, AICF_PRECISION_FP32);
    }
    aicf_context_destroy(ctx);
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
