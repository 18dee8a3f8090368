/* The documented limits (src/10_api.h AICF_MAX_*, AICF_MAX_SUBGRAPH_DEPTH among them, and the manual's
   LIMITS section), each through the graph builder API and through the ONNX reader (protobuf
   bytes written here): just over a limit is AICF_ERROR_LIMIT with a message naming the limit
   or the element and its size; at the limit the graph is accepted and, where it is cheap
   enough, planned and run on the CPU against a reference computed here.

     AICF_MAX_RANK            rank 9 input / value_info / inferred output; rank 8 runs
     AICF_MAX_NAME            tensor, node and attribute names of 4097 bytes; 4096 work
     AICF_MAX_NODES           2^20 + 1 nodes; 2^20 accepted                         [big]
     AICF_MAX_TENSORS         2^21 + 1 tensors; 2^21 accepted                       [big]
     AICF_MAX_NODE_IO         4097 inputs / outputs; 4096 accepted by the builder and the
                              reader
     AICF_MAX_STEP_IO         the planner's limit: 64 inputs plan and run, 65..4096 are
                              AICF_ERROR_LIMIT at aicf_plan_create naming the node
     AICF_MAX_ATTR_ELEMS      2^24 + 1 floats / ints; 2^24 floats accepted (and folded)
     AICF_MAX_TENSOR_BYTES    2^40 + 4 bytes of input, constant, initializer and an inferred
                              Expand output; exactly 2^40 bytes is accepted and plans, and the
                              exec's arena is refused by the allocator (AICF_ERROR_OUT_OF_MEMORY)
     AICF_MAX_SUBGRAPH_DEPTH  If nested 9 deep; 8 deep plans and runs

   [big]: the at-the-limit graphs of AICF_MAX_NODES and AICF_MAX_TENSORS take about 0.5 and 0.8
   GB and a few seconds; AICF_LIMITS_BIG=0 skips them (reported as skipped, with the reason), as
   the ASan build of `make test-asan` does. The just-over cases of the ONNX reader need no such
   graph: it counts nodes and tensors before building.
   Fresh random data every run (the seed is printed; AICF_SEED=N repeats a run); AICF_TEST_VERBOSE=1
   prints every message checked. Ends with "N passed, N failed, N skipped". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE /* CPU only */
#include "../aicf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail, g_skip, g_verbose, g_big = 1;
static uint64_t g_rng;
static aicf_context* g_ctx;

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

static int msg_has(const char* const* needles) {
    int i;
    for (i = 0; needles[i]; i++)
        if (!strstr(aicf_last_error(g_ctx), needles[i])) return 0;
    return 1;
}
/* r is `code` and the message holds every needle */
#define CHECK_ERR(what, r, code, ...)                                                              \
    do {                                                                                           \
        static const char* const nd_[] = {__VA_ARGS__, NULL};                                      \
        aicf_result r_ = (r);                                                                      \
        if (g_verbose) printf("  %s: %s: %.300s\n", what, aicf_result_str(r_), aicf_last_error(g_ctx)); \
        CHECK(r_ == (code) && msg_has(nd_), "%s: expected %s naming \"%s\"..., got %s: \"%.400s\"", what, \
              aicf_result_str(code), nd_[0], aicf_result_str(r_), aicf_last_error(g_ctx));         \
    } while (0)
#define CHECK_OK(what, r)                                                                          \
    do {                                                                                           \
        aicf_result r_ = (r);                                                                      \
        CHECK(r_ == AICF_SUCCESS, "%s: %s: %.400s", what, aicf_result_str(r_), aicf_last_error(g_ctx)); \
    } while (0)

static void skip(const char* what, const char* why) {
    g_skip++;
    printf("SKIP %s: %s\n", what, why);
}

static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static float frand(void) {
    float f = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return f == 0.0f ? 0.5f : f;
}
static void fill(float* v, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) v[i] = frand();
}
static char* name_of(size_t len, char c) {
    char* s = (char*)malloc(len + 1);
    memset(s, c, len);
    s[len] = 0;
    return s;
}

/* ---- builder helpers ---- */
static aicf_tensor_desc tdesc(const char* name, aicf_dtype dt, int rank, const int64_t* dims, const void* data,
                              size_t bytes) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = dt;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = bytes;
    return d;
}
static aicf_node_desc ndesc(const char* name, const char* op, const char* const* in, int nin, const char* const* out,
                            int nout, const aicf_attr* attrs, int nattrs) {
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = nin;
    nd.outputs = out;
    nd.num_outputs = nout;
    nd.attrs = attrs;
    nd.num_attrs = nattrs;
    return nd;
}
static aicf_result add1(aicf_graph* g, const char* name, const char* op, const char* in, const char* out) {
    aicf_node_desc nd = ndesc(name, op, &in, 1, &out, 1, NULL, 0);
    return aicf_graph_add_node(g, &nd);
}
static aicf_graph* new_graph(void) {
    aicf_graph* g = NULL;
    aicf_graph_create(g_ctx, &g);
    return g;
}

/* Plans g on the CPU, runs it with input 0 = x (xb bytes; none if x is NULL) and reads output 0
   into y (yb bytes). */
static aicf_result plan_run(aicf_graph* g, const void* x, size_t xb, void* y, size_t yb) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    if (r == AICF_SUCCESS) r = aicf_exec_create(p, NULL, &e);
    if (r == AICF_SUCCESS && x) r = aicf_exec_set_input(e, 0, x, xb);
    if (r == AICF_SUCCESS) r = aicf_exec_run(e);
    if (r == AICF_SUCCESS) r = aicf_exec_get_output(e, 0, y, yb);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return r;
}

/* ---- ONNX writer ---- */
typedef struct pbuf {
    unsigned char* p;
    size_t n, cap;
} pbuf;
static void pb_put(pbuf* b, const void* d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char*)realloc(b->p, cap);
        if (!b->p) {
            printf("test_limits: out of memory\n");
            exit(2);
        }
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void pb_varint(pbuf* b, uint64_t v) {
    unsigned char t[10];
    int k = 0;
    do {
        t[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) t[k] |= 0x80;
        k++;
    } while (v);
    pb_put(b, t, (size_t)k);
}
static void pb_vint(pbuf* b, int field, int64_t v) {
    pb_varint(b, (uint64_t)field << 3);
    pb_varint(b, (uint64_t)v);
}
static void pb_bytes(pbuf* b, int field, const void* d, size_t n) {
    pb_varint(b, ((uint64_t)field << 3) | 2);
    pb_varint(b, n);
    pb_put(b, d, n);
}
static void pb_str(pbuf* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_msg(pbuf* b, int field, pbuf* sub) {
    pb_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}
/* ValueInfoProto of a float tensor with `rank` dims */
static void pb_vi(pbuf* g, int field, const char* name, int rank, const int64_t* dims) {
    pbuf vi = {0, 0, 0}, tp = {0, 0, 0}, tt = {0, 0, 0}, sh = {0, 0, 0};
    int i;
    pb_str(&vi, 1, name);
    pb_vint(&tt, 1, 1);
    for (i = 0; i < rank; i++) {
        pbuf d = {0, 0, 0};
        pb_vint(&d, 1, dims[i]);
        pb_msg(&sh, 1, &d);
    }
    pb_msg(&tt, 2, &sh);
    pb_msg(&tp, 1, &tt);
    pb_msg(&vi, 2, &tp);
    pb_msg(g, field, &vi);
}
/* NodeProto; attrs (already encoded AttributeProtos) are consumed */
static void pb_node(pbuf* g, const char* name, const char* op, const char* const* in, int nin, const char* const* out,
                    int nout, pbuf* attrs, int nattrs) {
    pbuf nd = {0, 0, 0};
    int i;
    for (i = 0; i < nin; i++) pb_str(&nd, 1, in[i]);
    for (i = 0; i < nout; i++) pb_str(&nd, 2, out[i]);
    if (name) pb_str(&nd, 3, name);
    pb_str(&nd, 4, op);
    for (i = 0; i < nattrs; i++) pb_msg(&nd, 5, &attrs[i]);
    pb_msg(g, 1, &nd);
}
static void pb_node1(pbuf* g, const char* name, const char* op, const char* in, const char* out) {
    pb_node(g, name, op, &in, 1, &out, 1, NULL, 0);
}
/* ModelProto around a GraphProto (consumed) */
static pbuf pb_model(pbuf* graph) {
    pbuf m = {0, 0, 0}, ops = {0, 0, 0};
    pb_vint(&m, 1, 8);
    pb_str(&ops, 1, "");
    pb_vint(&ops, 2, 17);
    pb_msg(&m, 8, &ops);
    pb_str(graph, 2, "g");
    pb_msg(&m, 7, graph);
    return m;
}
/* a model whose graph is x -> Relu 'act' -> y, x of the given float shape */
static pbuf pb_relu_model(const char* xname, const char* node_name, int rank, const int64_t* dims) {
    pbuf g = {0, 0, 0};
    pb_node1(&g, node_name, "Relu", xname, "y");
    pb_vi(&g, 11, xname, rank, dims);
    pb_vi(&g, 12, "y", rank, dims);
    return pb_model(&g);
}
static aicf_result load(const pbuf* m, aicf_graph** g) {
    *g = NULL;
    return aicf_graph_load_onnx_memory(g_ctx, m->p, m->n, NULL, g);
}

static int relu_ok(const float* x, const float* y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (y[i] != (x[i] > 0 ? x[i] : 0.0f)) return 0;
    return 1;
}

/* ==== AICF_MAX_RANK ==== */
static void test_rank(void) {
    int64_t d9[9] = {2, 1, 2, 1, 2, 1, 1, 2, 1}, d8[8] = {2, 1, 2, 1, 2, 1, 1, 2};
    float x[16], y[16];
    aicf_graph* g;
    aicf_tensor_desc d;
    pbuf m;
    int64_t one = 0;
    aicf_attr ax;
    aicf_node_desc nd;
    const char* uin[1] = {"y8"};
    const char* uout[1] = {"y9"};
    fill(x, 16);
    /* builder: input */
    g = new_graph();
    d = tdesc("x9", AICF_DTYPE_FLOAT32, 9, d9, NULL, 0);
    CHECK_ERR("builder: rank 9 input", aicf_graph_add_input(g, &d), AICF_ERROR_LIMIT, "'x9'", "rank 9");
    d = tdesc("x", AICF_DTYPE_FLOAT32, 8, d8, NULL, 0);
    CHECK_OK("builder: rank 8 input", aicf_graph_add_input(g, &d));
    CHECK_OK("builder: rank 8 Relu", add1(g, "act", "Relu", "x", "y8"));
    /* an inferred rank 9: Unsqueeze of the rank-8 output */
    memset(&ax, 0, sizeof ax);
    ax.name = "axes";
    ax.type = AICF_ATTR_INTS;
    ax.ints = &one;
    ax.count = 1;
    nd = ndesc("unsq", "Unsqueeze", uin, 1, uout, 1, &ax, 1);
    aicf_graph_set_opset(g, "", 11);
    CHECK_OK("builder: Unsqueeze node", aicf_graph_add_node(g, &nd));
    CHECK_OK("add_output y9", aicf_graph_add_output(g, "y9"));
    {
        aicf_plan_desc pd;
        aicf_plan* p = NULL;
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CPU;
        CHECK_ERR("plan: inferred output of rank 9", aicf_plan_create(g, &pd, &p), AICF_ERROR_LIMIT, "'unsq'", "rank 9");
    }
    aicf_graph_destroy(g);
    g = new_graph();
    aicf_graph_add_input(g, &d);
    add1(g, "act", "Relu", "x", "y");
    aicf_graph_add_output(g, "y");
    CHECK_OK("builder: rank 8 plans and runs", plan_run(g, x, sizeof x, y, sizeof y));
    CHECK(relu_ok(x, y, 16), "builder: rank 8 Relu output");
    aicf_graph_destroy(g);
    /* reader */
    m = pb_relu_model("x", "act", 9, d9);
    CHECK_ERR("onnx: rank 9 input", load(&m, &g), AICF_ERROR_LIMIT, "'x'", "AICF_MAX_RANK");
    aicf_graph_destroy(g);
    free(m.p);
    m = pb_relu_model("x", "act", 8, d8);
    CHECK_OK("onnx: rank 8 input", load(&m, &g));
    if (g) {
        memset(y, 0, sizeof y);
        CHECK_OK("onnx: rank 8 plans and runs", plan_run(g, x, sizeof x, y, sizeof y));
        CHECK(relu_ok(x, y, 16), "onnx: rank 8 Relu output");
    }
    aicf_graph_destroy(g);
    free(m.p);
}

/* ==== AICF_MAX_NAME ==== */
static void test_name(void) {
    char* n4096 = name_of(AICF_MAX_NAME, 'a');
    char* n4097 = name_of(AICF_MAX_NAME + 1, 'b');
    char* t4096 = name_of(AICF_MAX_NAME, 't');
    int64_t dims[1] = {5};
    float x[5], y[5];
    aicf_graph* g;
    aicf_tensor_desc d;
    aicf_node_desc nd;
    aicf_attr at;
    const char* in1[1];
    const char* out1[1] = {"y"};
    pbuf m;
    fill(x, 5);
    /* builder: tensor name */
    g = new_graph();
    d = tdesc(n4097, AICF_DTYPE_FLOAT32, 1, dims, NULL, 0);
    CHECK_ERR("builder: 4097-byte tensor name", aicf_graph_add_input(g, &d), AICF_ERROR_LIMIT, "AICF_MAX_NAME");
    CHECK(aicf_graph_num_inputs(g) == 0, "no input added");
    d = tdesc(t4096, AICF_DTYPE_FLOAT32, 1, dims, NULL, 0);
    CHECK_OK("builder: 4096-byte tensor name", aicf_graph_add_input(g, &d));
    /* node name */
    in1[0] = t4096;
    nd = ndesc(n4097, "Relu", in1, 1, out1, 1, NULL, 0);
    CHECK_ERR("builder: 4097-byte node name", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "AICF_MAX_NAME", "node 0");
    /* attribute name (documented: "bytes in a node/tensor/attribute name") */
    memset(&at, 0, sizeof at);
    at.name = n4097;
    at.type = AICF_ATTR_FLOAT;
    at.f = 0.5f;
    nd = ndesc("lrelu", "LeakyRelu", in1, 1, out1, 1, &at, 1);
    CHECK_ERR("builder: 4097-byte attribute name", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "AICF_MAX_NAME",
              "'lrelu'");
    if (aicf_graph_num_nodes(g) != 0) { /* accepted: start again without it */
        aicf_graph_destroy(g);
        g = new_graph();
        aicf_graph_add_input(g, &d);
    }
    {   /* a refused second output takes the first one back with it: the graph is as before */
        const char* out2[2];
        out2[0] = "half0";
        out2[1] = n4097;
        nd = ndesc("split", "Split", in1, 1, out2, 2, NULL, 0);
        CHECK_ERR("builder: 4097-byte second output name", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT,
                  "AICF_MAX_NAME");
        CHECK(aicf_graph_num_nodes(g) == 0, "no node added");
        CHECK_ERR("builder: the first output of the refused node is not defined", aicf_graph_add_output(g, "half0"),
                  AICF_ERROR_NOT_FOUND, "'half0'");
        out2[1] = "half1";
        CHECK_OK("builder: the same node with a valid second name", aicf_graph_add_node(g, &nd));
        aicf_graph_destroy(g);
        g = new_graph();
        aicf_graph_add_input(g, &d);
    }
    at.name = n4096; /* unknown to LeakyRelu, ignored by it */
    nd = ndesc(n4096, "Relu", in1, 1, out1, 1, &at, 1);
    CHECK_OK("builder: 4096-byte node and attribute names", aicf_graph_add_node(g, &nd));
    CHECK_OK("add_output", aicf_graph_add_output(g, "y"));
    CHECK_OK("builder: 4096-byte names plan and run", plan_run(g, x, sizeof x, y, sizeof y));
    CHECK(relu_ok(x, y, 5), "builder: 4096-byte names: output");
    {
        aicf_tensor_info ti;
        CHECK(aicf_graph_input_info(g, 0, &ti) == AICF_SUCCESS && strcmp(ti.name, t4096) == 0, "the name is kept whole");
    }
    aicf_graph_destroy(g);
    /* reader: tensor, node and attribute names */
    m = pb_relu_model(n4097, "act", 1, dims);
    CHECK_ERR("onnx: 4097-byte input name", load(&m, &g), AICF_ERROR_LIMIT, "AICF_MAX_NAME", "4097");
    free(m.p);
    m = pb_relu_model("x", n4097, 1, dims);
    CHECK_ERR("onnx: 4097-byte node name", load(&m, &g), AICF_ERROR_LIMIT, "AICF_MAX_NAME", "4097");
    free(m.p);
    {
        pbuf gr = {0, 0, 0}, a = {0, 0, 0};
        const char* xin = "x";
        const char* yout = "y";
        pb_str(&a, 1, n4097);
        pb_varint(&a, (2u << 3) | 5);
        {
            float f = 0.5f;
            pb_put(&a, &f, 4);
        }
        pb_vint(&a, 20, 1);
        pb_node(&gr, "lrelu", "LeakyRelu", &xin, 1, &yout, 1, &a, 1);
        pb_vi(&gr, 11, "x", 1, dims);
        pb_vi(&gr, 12, "y", 1, dims);
        m = pb_model(&gr);
        CHECK_ERR("onnx: 4097-byte attribute name", load(&m, &g), AICF_ERROR_LIMIT, "AICF_MAX_NAME", "4097");
        aicf_graph_destroy(g);
        free(m.p);
    }
    m = pb_relu_model(t4096, n4096, 1, dims);
    CHECK_OK("onnx: 4096-byte tensor and node names", load(&m, &g));
    if (g) {
        CHECK_OK("onnx: 4096-byte names plan and run", plan_run(g, x, sizeof x, y, sizeof y));
        CHECK(relu_ok(x, y, 5), "onnx: 4096-byte names: output");
    }
    aicf_graph_destroy(g);
    free(m.p);
    free(n4096);
    free(n4097);
    free(t4096);
}

/* ==== AICF_MAX_NODES ==== */
static void test_nodes(void) {
    aicf_graph* g;
    pbuf gr = {0, 0, 0}, m;
    const char* empty_out = "";
    const char* yout = "y";
    const char* xin = "x";
    int64_t dims[1] = {3};
    long i;
    /* reader, just over: counted before anything is built (2^20 + 1 minimal NodeProtos) */
    for (i = 0; i < (long)AICF_MAX_NODES; i++) pb_node(&gr, NULL, "Identity", NULL, 0, &empty_out, 1, NULL, 0);
    pb_node(&gr, "last", "Relu", &xin, 1, &yout, 1, NULL, 0);
    pb_vi(&gr, 11, "x", 1, dims);
    pb_vi(&gr, 12, "y", 1, dims);
    m = pb_model(&gr);
    CHECK_ERR("onnx: 2^20 + 1 nodes", load(&m, &g), AICF_ERROR_LIMIT, "AICF_MAX_NODES", "1048577");
    free(m.p);
    if (!g_big) {
        skip("AICF_MAX_NODES at the limit (builder and reader)", "AICF_LIMITS_BIG=0 (a graph of 2^20 nodes, about 0.5 GB)");
        return;
    }
    /* builder: 2^20 nodes (no inputs, one omitted output: no tensors), then one more */
    g = new_graph();
    {
        aicf_node_desc nd = ndesc(NULL, "Identity", NULL, 0, &empty_out, 1, NULL, 0);
        aicf_result r = AICF_SUCCESS;
        for (i = 0; i < (long)AICF_MAX_NODES && r == AICF_SUCCESS; i++) r = aicf_graph_add_node(g, &nd);
        CHECK_OK("builder: 2^20 nodes", r);
        CHECK(aicf_graph_num_nodes(g) == AICF_MAX_NODES, "%d nodes", aicf_graph_num_nodes(g));
        nd.name = "one_more";
        CHECK_ERR("builder: node 2^20 + 1", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "AICF_MAX_NODES", "'one_more'");
        CHECK(aicf_graph_num_nodes(g) == AICF_MAX_NODES, "the refused node was not added");
    }
    aicf_graph_destroy(g);
    /* reader at the limit: 2^20 - 1 empty nodes and the Relu */
    memset(&gr, 0, sizeof gr);
    for (i = 0; i < (long)AICF_MAX_NODES - 1; i++) pb_node(&gr, NULL, "Identity", NULL, 0, &empty_out, 1, NULL, 0);
    pb_node(&gr, "last", "Relu", &xin, 1, &yout, 1, NULL, 0);
    pb_vi(&gr, 11, "x", 1, dims);
    pb_vi(&gr, 12, "y", 1, dims);
    m = pb_model(&gr);
    CHECK_OK("onnx: 2^20 nodes", load(&m, &g));
    CHECK(aicf_graph_num_nodes(g) == AICF_MAX_NODES, "onnx: %d nodes", aicf_graph_num_nodes(g));
    aicf_graph_destroy(g);
    free(m.p);
}

/* ==== AICF_MAX_TENSORS ==== */
static void test_tensors(void) {
    aicf_graph* g;
    pbuf gr = {0, 0, 0}, m;
    long i;
    char nm[32];
    int64_t dims[1] = {3};
    /* reader, just over: 2^21 + 1 graph inputs (value_infos with a name only) */
    for (i = 0; i <= (long)AICF_MAX_TENSORS; i++) {
        pbuf vi = {0, 0, 0};
        snprintf(nm, sizeof nm, "t%ld", i);
        pb_str(&vi, 1, nm);
        pb_msg(&gr, 11, &vi);
    }
    pb_node1(&gr, "act", "Relu", "t0", "y");
    pb_vi(&gr, 12, "y", 1, dims);
    m = pb_model(&gr);
    CHECK_ERR("onnx: 2^21 + 1 inputs", load(&m, &g), AICF_ERROR_LIMIT, "AICF_MAX_TENSORS");
    free(m.p);
    if (!g_big) {
        skip("AICF_MAX_TENSORS at the limit (builder)", "AICF_LIMITS_BIG=0 (a graph of 2^21 tensors, about 0.8 GB)");
        return;
    }
    /* builder: 2^21 scalar inputs, then one more input, constant and node output */
    g = new_graph();
    {
        aicf_tensor_desc d = tdesc(nm, AICF_DTYPE_FLOAT32, 0, NULL, NULL, 0);
        aicf_result r = AICF_SUCCESS;
        float one = 1.0f;
        for (i = 0; i < (long)AICF_MAX_TENSORS && r == AICF_SUCCESS; i++) {
            snprintf(nm, sizeof nm, "t%ld", i);
            r = aicf_graph_add_input(g, &d);
        }
        CHECK_OK("builder: 2^21 tensors", r);
        CHECK(aicf_graph_num_inputs(g) == AICF_MAX_TENSORS, "%d inputs", aicf_graph_num_inputs(g));
        d.name = "one_more";
        CHECK_ERR("builder: input 2^21 + 1", aicf_graph_add_input(g, &d), AICF_ERROR_LIMIT, "AICF_MAX_TENSORS", "'one_more'");
        d.data = &one;
        d.data_bytes = 4;
        CHECK_ERR("builder: constant 2^21 + 1", aicf_graph_add_constant(g, &d), AICF_ERROR_LIMIT, "AICF_MAX_TENSORS");
        CHECK_ERR("builder: node output 2^21 + 1", add1(g, "act", "Relu", "t0", "one_more"), AICF_ERROR_LIMIT,
                  "AICF_MAX_TENSORS");
        CHECK(aicf_graph_num_inputs(g) == AICF_MAX_TENSORS && aicf_graph_num_nodes(g) == 0, "nothing added past the limit");
        CHECK_ERR("builder: the refused name is not defined", aicf_graph_add_output(g, "one_more"), AICF_ERROR_NOT_FOUND,
                  "'one_more'");
    }
    aicf_graph_destroy(g);
}

/* ==== AICF_MAX_NODE_IO and AICF_MAX_STEP_IO ==== */
static void test_node_io(void) {
    const int over = AICF_MAX_NODE_IO + 1;
    const char** names = (const char**)malloc(sizeof(char*) * (size_t)over);
    char* store = (char*)malloc((size_t)over * 16);
    aicf_graph* g;
    aicf_node_desc nd;
    int64_t dims[1] = {3};
    aicf_tensor_desc d = tdesc("x", AICF_DTYPE_FLOAT32, 1, dims, NULL, 0);
    const char* yout = "y";
    float x[3], y[3];
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    pbuf gr = {0, 0, 0}, m;
    int i, k;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    fill(x, 3);
    for (i = 0; i < over; i++) names[i] = "x";
    /* builder, inputs: 4097 is over the documented limit */
    g = new_graph();
    aicf_graph_add_input(g, &d);
    nd = ndesc("sum", "Sum", names, over, &yout, 1, NULL, 0);
    CHECK_ERR("builder: 4097 inputs", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "'sum'", "4097");
    CHECK(aicf_graph_num_nodes(g) == 0, "the refused node was not added");
    /* 4096 are accepted by the builder; the planner refuses more than AICF_MAX_STEP_IO */
    nd.num_inputs = AICF_MAX_NODE_IO;
    CHECK_OK("builder: 4096 inputs", aicf_graph_add_node(g, &nd));
    aicf_graph_add_output(g, "y");
    CHECK_ERR("plan: a node of 4096 inputs (AICF_MAX_STEP_IO)", aicf_plan_create(g, &pd, &p), AICF_ERROR_LIMIT, "'sum'",
              "AICF_MAX_STEP_IO");
    aicf_graph_destroy(g);
    /* AICF_MAX_STEP_IO inputs plan and run (Sum of x that many times), one more does not */
    for (k = AICF_MAX_STEP_IO; k <= AICF_MAX_STEP_IO + 1; k++) {
        g = new_graph();
        aicf_graph_add_input(g, &d);
        nd = ndesc("sum", "Sum", names, k, &yout, 1, NULL, 0);
        CHECK_OK("builder: Sum node", aicf_graph_add_node(g, &nd));
        aicf_graph_add_output(g, "y");
        if (k == AICF_MAX_STEP_IO) {
            CHECK_OK("a node of AICF_MAX_STEP_IO inputs plans and runs", plan_run(g, x, sizeof x, y, sizeof y));
            for (i = 0; i < 3; i++) {
                float acc = 0.0f;
                int j;
                for (j = 0; j < AICF_MAX_STEP_IO; j++) acc += x[i];
                CHECK(fabsf(y[i] - acc) <= 1e-5f * (1.0f + fabsf(acc)), "Sum of %d: y[%d] = %g, expected %g",
                      AICF_MAX_STEP_IO, i, y[i], acc);
            }
        } else {
            CHECK_ERR("plan: a node of AICF_MAX_STEP_IO + 1 inputs", aicf_plan_create(g, &pd, &p), AICF_ERROR_LIMIT,
                      "'sum'", "AICF_MAX_STEP_IO (64)");
        }
        aicf_graph_destroy(g);
    }
    /* builder, outputs: Split into 4097 */
    for (i = 0; i < over; i++) {
        snprintf(store + (size_t)i * 16, 16, "s%d", i);
        names[i] = store + (size_t)i * 16;
    }
    g = new_graph();
    aicf_graph_add_input(g, &d);
    {
        const char* xin = "x";
        nd = ndesc("split", "Split", &xin, 1, names, over, NULL, 0);
        CHECK_ERR("builder: 4097 outputs", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "'split'", "4097");
        nd.num_outputs = AICF_MAX_NODE_IO;
        CHECK_OK("builder: 4096 outputs", aicf_graph_add_node(g, &nd));
    }
    aicf_graph_destroy(g);
    /* reader: a Sum of 4097 inputs; of 4096 */
    for (k = 0; k < 2; k++) {
        int n = k == 0 ? over : AICF_MAX_NODE_IO;
        const char** xs = (const char**)malloc(sizeof(char*) * (size_t)n);
        for (i = 0; i < n; i++) xs[i] = "x";
        memset(&gr, 0, sizeof gr);
        pb_node(&gr, "sum", "Sum", xs, n, &yout, 1, NULL, 0);
        pb_vi(&gr, 11, "x", 1, dims);
        pb_vi(&gr, 12, "y", 1, dims);
        m = pb_model(&gr);
        if (k == 0) {
            CHECK_ERR("onnx: 4097 inputs", load(&m, &g), AICF_ERROR_LIMIT, "'sum'", "AICF_MAX_NODE_IO");
        } else {
            CHECK_OK("onnx: 4096 inputs", load(&m, &g));
            if (g)
                CHECK_ERR("plan of the file's 4096-input node (AICF_MAX_STEP_IO)", aicf_plan_create(g, &pd, &p),
                          AICF_ERROR_LIMIT, "'sum'", "AICF_MAX_STEP_IO");
        }
        aicf_graph_destroy(g);
        free(m.p);
        free(xs);
    }
    free(names);
    free(store);
}

/* ==== AICF_MAX_ATTR_ELEMS ==== */
static void test_attr_elems(void) {
    const size_t lim = (size_t)AICF_MAX_ATTR_ELEMS;
    float* f = (float*)malloc((lim + 1) * sizeof(float));
    int64_t* iv;
    aicf_graph* g;
    aicf_attr a;
    aicf_node_desc nd;
    const char* out = "c";
    pbuf gr = {0, 0, 0}, m;
    size_t i;
    int ok;
    if (!f) {
        skip("AICF_MAX_ATTR_ELEMS", "no memory for 2^24 + 1 floats");
        return;
    }
    fill(f, lim + 1);
    /* builder */
    memset(&a, 0, sizeof a);
    a.name = "value_floats";
    a.type = AICF_ATTR_FLOATS;
    a.floats = f;
    a.count = (int)(lim + 1);
    g = new_graph();
    nd = ndesc("const", "Constant", NULL, 0, &out, 1, &a, 1);
    CHECK_ERR("builder: 2^24 + 1 floats", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "'value_floats'", "16777217");
    a.count = (int)lim;
    CHECK_OK("builder: 2^24 floats", aicf_graph_add_node(g, &nd));
    CHECK_OK("add_output", aicf_graph_add_output(g, "c"));
    {
        float* c = (float*)malloc(lim * sizeof(float));
        CHECK_OK("a Constant of 2^24 floats plans (folded) and runs", plan_run(g, NULL, 0, c, lim * sizeof(float)));
        CHECK(memcmp(c, f, lim * sizeof(float)) == 0, "the folded constant equals the attribute");
        free(c);
    }
    aicf_graph_destroy(g);
    iv = (int64_t*)malloc((lim + 1) * sizeof(int64_t));
    if (iv) {
        for (i = 0; i <= lim; i++) iv[i] = (int64_t)(rnd() % 7);
        memset(&a, 0, sizeof a);
        a.name = "value_ints";
        a.type = AICF_ATTR_INTS;
        a.ints = iv;
        a.count = (int)(lim + 1);
        g = new_graph();
        nd = ndesc("const", "Constant", NULL, 0, &out, 1, &a, 1);
        CHECK_ERR("builder: 2^24 + 1 ints", aicf_graph_add_node(g, &nd), AICF_ERROR_LIMIT, "'value_ints'", "16777217");
        aicf_graph_destroy(g);
        free(iv);
    }
    /* reader: packed floats of 2^24 + 1, then of 2^24 */
    for (ok = 0; ok < 2; ok++) {
        pbuf at = {0, 0, 0};
        size_t n = ok ? lim : lim + 1;
        memset(&gr, 0, sizeof gr);
        pb_str(&at, 1, "value_floats");
        pb_bytes(&at, 7, f, n * sizeof(float));
        pb_vint(&at, 20, 6);
        pb_node(&gr, "const", "Constant", NULL, 0, &out, 1, &at, 1);
        {
            int64_t dims[1];
            dims[0] = (int64_t)n;
            pb_vi(&gr, 12, "c", 1, dims);
        }
        m = pb_model(&gr);
        if (!ok) {
            CHECK_ERR("onnx: 2^24 + 1 floats", load(&m, &g), AICF_ERROR_LIMIT, "'value_floats'", "AICF_MAX_ATTR_ELEMS");
        } else {
            CHECK_OK("onnx: 2^24 floats", load(&m, &g));
        }
        aicf_graph_destroy(g);
        free(m.p);
    }
    free(f);
}

/* an allocator that refuses blocks over 1 GiB (so that a 2^40-byte arena fails cleanly whatever
   the machine's overcommit policy) */
static void* cap_alloc(size_t n, void* u) {
    (void)u;
    return n > ((size_t)1 << 30) ? NULL : malloc(n);
}
static void cap_free(void* p, void* u) {
    (void)u;
    free(p);
}

/* ==== AICF_MAX_TENSOR_BYTES ==== */
static void test_tensor_bytes(void) {
    const int64_t at_lim = (int64_t)1 << 38; /* float32: 2^40 bytes */
    int64_t over[1], exact[1], shp[1];
    aicf_graph* g;
    aicf_tensor_desc d;
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    pbuf gr, m;
    aicf_context* saved = g_ctx;
    aicf_context* cctx = NULL;
    aicf_context_desc cd;
    float one[1] = {0.75f};
    over[0] = at_lim + 1;
    exact[0] = at_lim;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    /* builder: input and constant just over; the check comes before the data is looked at */
    g = new_graph();
    d = tdesc("big", AICF_DTYPE_FLOAT32, 1, over, NULL, 0);
    CHECK_ERR("builder: input of 2^40 + 4 bytes", aicf_graph_add_input(g, &d), AICF_ERROR_LIMIT, "'big'",
              "AICF_MAX_TENSOR_BYTES");
    CHECK_ERR("builder: constant of 2^40 + 4 bytes", aicf_graph_add_constant(g, &d), AICF_ERROR_LIMIT, "'big'");
    /* an inferred tensor over the limit: Expand of a scalar to [2^38 + 1] */
    d = tdesc("s", AICF_DTYPE_FLOAT32, 1, (int64_t[]){1}, NULL, 0);
    aicf_graph_add_input(g, &d);
    shp[0] = at_lim + 1;
    d = tdesc("shape", AICF_DTYPE_INT64, 1, (int64_t[]){1}, shp, sizeof shp);
    CHECK_OK("shape constant", aicf_graph_add_constant(g, &d));
    {
        const char* in[2] = {"s", "shape"};
        const char* out = "wide";
        aicf_node_desc nd = ndesc("expand", "Expand", in, 2, &out, 1, NULL, 0);
        CHECK_OK("Expand node", aicf_graph_add_node(g, &nd));
        aicf_graph_add_output(g, "wide");
        CHECK_ERR("plan: Expand to 2^40 + 4 bytes", aicf_plan_create(g, &pd, &p), AICF_ERROR_LIMIT, "'expand'", "'wide'",
                  "1099511627776");
    }
    aicf_graph_destroy(g);
    /* exactly 2^40 bytes: accepted and planned; the exec's 2^41-byte arena is refused by the
       context's allocator: AICF_ERROR_OUT_OF_MEMORY, not a crash */
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = cap_alloc;
    cd.allocator.free = cap_free;
    aicf_context_create(&cd, &cctx);
    g_ctx = cctx;
    g = new_graph();
    d = tdesc("big", AICF_DTYPE_FLOAT32, 1, exact, NULL, 0);
    CHECK_OK("builder: input of exactly 2^40 bytes", aicf_graph_add_input(g, &d));
    {
        aicf_tensor_info ti;
        CHECK(aicf_graph_input_info(g, 0, &ti) == AICF_SUCCESS && ti.bytes == ((size_t)1 << 40), "input info: %zu bytes",
              ti.bytes);
    }
    CHECK_OK("Relu node", add1(g, "act", "Relu", "big", "y"));
    aicf_graph_add_output(g, "y");
    CHECK_OK("plan of a 2^40-byte input", aicf_plan_create(g, &pd, &p));
    if (p) {
        aicf_plan_stats st;
        aicf_plan_stats_get(p, &st);
        CHECK(st.arena_bytes >= ((size_t)1 << 40), "arena %zu bytes", st.arena_bytes);
        CHECK_ERR("exec of a 2^40-byte input", aicf_exec_create(p, NULL, &e), AICF_ERROR_OUT_OF_MEMORY, "arena");
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
        p = NULL;
    }
    aicf_graph_destroy(g);
    g_ctx = saved;
    aicf_context_destroy(cctx);
    /* reader: an input just over, an initializer just over, an input of exactly 2^40 bytes */
    m = pb_relu_model("big", "act", 1, over);
    CHECK_ERR("onnx: input of 2^40 + 4 bytes", load(&m, &g), AICF_ERROR_LIMIT, "'big'", "AICF_MAX_TENSOR_BYTES");
    free(m.p);
    memset(&gr, 0, sizeof gr);
    {
        pbuf t = {0, 0, 0};
        pb_vint(&t, 1, over[0]);
        pb_vint(&t, 2, 1);
        pb_str(&t, 8, "w");
        pb_bytes(&t, 9, one, sizeof one);
        pb_msg(&gr, 5, &t);
        pb_node1(&gr, "act", "Relu", "w", "y");
        pb_vi(&gr, 12, "y", 1, over);
        m = pb_model(&gr);
        CHECK_ERR("onnx: initializer of 2^40 + 4 bytes", load(&m, &g), AICF_ERROR_LIMIT, "'w'", "AICF_MAX_TENSOR_BYTES");
        free(m.p);
    }
    m = pb_relu_model("big", "act", 1, exact);
    CHECK_OK("onnx: input of exactly 2^40 bytes", load(&m, &g));
    aicf_graph_destroy(g);
    free(m.p);
}

/* ==== AICF_MAX_SUBGRAPH_DEPTH ==== */
/* Builder: a self-contained branch graph (the public builder has no outer references): level
   `depth` holds constant c and Neg(c) -> v; every level above holds its own true condition and
   an If whose then_branch is the level below and whose else_branch a leaf Identity(c). Returns
   the graph of `levels` nested levels (1 = a leaf), or NULL. */
static aicf_graph* nested_branch(int levels, const float* c, int n, aicf_result* r) {
    aicf_graph* g = new_graph();
    int64_t dims[1];
    aicf_tensor_desc d;
    char vname[32];
    dims[0] = n;
    *r = AICF_SUCCESS;
    snprintf(vname, sizeof vname, "v%d", levels);
    d = tdesc("c", AICF_DTYPE_FLOAT32, 1, dims, c, (size_t)n * 4);
    if ((*r = aicf_graph_add_constant(g, &d)) != AICF_SUCCESS) goto fail;
    if (levels == 1) {
        if ((*r = add1(g, "neg", "Neg", "c", vname)) != AICF_SUCCESS) goto fail;
    } else {
        unsigned char t = 1;
        aicf_graph *then_g, *else_g;
        aicf_attr at[2];
        const char* in = "cond";
        const char* out = vname;
        aicf_node_desc nd;
        d = tdesc("cond", AICF_DTYPE_BOOL, 0, NULL, &t, 1);
        if ((*r = aicf_graph_add_constant(g, &d)) != AICF_SUCCESS) goto fail;
        then_g = nested_branch(levels - 1, c, n, r);
        if (!then_g) goto fail;
        else_g = new_graph();
        d = tdesc("c", AICF_DTYPE_FLOAT32, 1, dims, c, (size_t)n * 4);
        aicf_graph_add_constant(else_g, &d);
        add1(else_g, "id", "Identity", "c", "e");
        aicf_graph_add_output(else_g, "e");
        memset(at, 0, sizeof at);
        at[0].name = "then_branch";
        at[0].type = AICF_ATTR_GRAPH;
        at[0].g = then_g;
        at[1].name = "else_branch";
        at[1].type = AICF_ATTR_GRAPH;
        at[1].g = else_g;
        nd = ndesc("if", "If", &in, 1, &out, 1, at, 2);
        *r = aicf_graph_add_node(g, &nd);
        if (*r != AICF_SUCCESS) { /* the branches stay with the caller */
            aicf_graph_destroy(then_g);
            aicf_graph_destroy(else_g);
            goto fail;
        }
    }
    if ((*r = aicf_graph_add_output(g, vname)) != AICF_SUCCESS) goto fail;
    return g;
fail:
    aicf_graph_destroy(g);
    return NULL;
}

/* Reader: main graph input x [n], initializer cond (true); an If chain `levels` deep whose
   innermost then_branch is Neg(x) (outer references to x and cond). */
static void pb_if_body(pbuf* gr, int level, int levels, int n) {
    int64_t dims[1];
    char out[32];
    dims[0] = n;
    snprintf(out, sizeof out, "v%d", level);
    if (level == levels) {
        pb_node1(gr, "neg", "Neg", "x", out);
    } else {
        pbuf at[2], tg = {0, 0, 0}, eg = {0, 0, 0};
        const char* in = "cond";
        const char* o = out;
        char inner[32], ename[32];
        memset(at, 0, sizeof at);
        pb_if_body(&tg, level + 1, levels, n);
        snprintf(inner, sizeof inner, "v%d", level + 1);
        pb_str(&tg, 2, "then");
        pb_vi(&tg, 12, inner, 1, dims);
        snprintf(ename, sizeof ename, "e%d", level);
        pb_node1(&eg, "id", "Identity", "x", ename);
        pb_str(&eg, 2, "else");
        pb_vi(&eg, 12, ename, 1, dims);
        pb_str(&at[0], 1, "then_branch");
        pb_msg(&at[0], 6, &tg);
        pb_vint(&at[0], 20, 5);
        pb_str(&at[1], 1, "else_branch");
        pb_msg(&at[1], 6, &eg);
        pb_vint(&at[1], 20, 5);
        pb_node(gr, "if", "If", &in, 1, &o, 1, at, 2);
    }
}
static pbuf pb_nested_if(int depth, int n) {
    pbuf gr = {0, 0, 0}, t = {0, 0, 0};
    int64_t dims[1];
    unsigned char one = 1;
    dims[0] = n;
    pb_vint(&t, 2, 9); /* BOOL scalar */
    pb_str(&t, 8, "cond");
    pb_bytes(&t, 9, &one, 1);
    pb_msg(&gr, 5, &t);
    pb_if_body(&gr, 0, depth, n); /* output v0; `depth` If levels, each a subgraph level */
    pb_vi(&gr, 11, "x", 1, dims);
    pb_vi(&gr, 12, "v0", 1, dims);
    return pb_model(&gr);
}

static void test_subgraph_depth(void) {
    float c[6], y[6], x[6];
    aicf_graph *g, *sub;
    aicf_result r;
    int levels, i, ok;
    fill(c, 6);
    fill(x, 6);
    /* builder: a main graph whose If carries `levels` nested subgraph levels */
    for (levels = AICF_MAX_SUBGRAPH_DEPTH; levels <= AICF_MAX_SUBGRAPH_DEPTH + 1; levels++) {
        unsigned char t = 1;
        aicf_tensor_desc d = tdesc("cond", AICF_DTYPE_BOOL, 0, NULL, &t, 1);
        aicf_attr at[2];
        aicf_graph* else_g;
        const char* in = "cond";
        const char* out = "y";
        aicf_node_desc nd;
        int64_t dims[1] = {6};
        g = new_graph();
        aicf_graph_add_constant(g, &d);
        sub = nested_branch(levels, c, 6, &r);
        CHECK(sub != NULL, "builder: a branch of %d levels on its own: %s", levels, aicf_last_error(g_ctx));
        else_g = new_graph();
        d = tdesc("c", AICF_DTYPE_FLOAT32, 1, dims, c, sizeof c);
        aicf_graph_add_constant(else_g, &d);
        add1(else_g, "id", "Identity", "c", "e");
        aicf_graph_add_output(else_g, "e");
        memset(at, 0, sizeof at);
        at[0].name = "then_branch";
        at[0].type = AICF_ATTR_GRAPH;
        at[0].g = sub;
        at[1].name = "else_branch";
        at[1].type = AICF_ATTR_GRAPH;
        at[1].g = else_g;
        nd = ndesc("top_if", "If", &in, 1, &out, 1, at, 2);
        r = aicf_graph_add_node(g, &nd);
        if (levels > AICF_MAX_SUBGRAPH_DEPTH) {
            CHECK_ERR("builder: 9 levels of subgraphs", r, AICF_ERROR_LIMIT, "'top_if'", "AICF_MAX_SUBGRAPH_DEPTH");
            aicf_graph_destroy(sub); /* a refused node leaves its subgraphs with the caller */
            aicf_graph_destroy(else_g);
        } else {
            CHECK_OK("builder: 8 levels of subgraphs", r);
            aicf_graph_add_output(g, "y");
            CHECK_OK("builder: 8 levels plan (every If inlined) and run", plan_run(g, NULL, 0, y, sizeof y));
            for (ok = 1, i = 0; i < 6; i++) ok &= y[i] == -c[i];
            CHECK(ok, "builder: 8 levels: y = -c");
        }
        aicf_graph_destroy(g);
    }
    /* reader */
    for (levels = AICF_MAX_SUBGRAPH_DEPTH; levels <= AICF_MAX_SUBGRAPH_DEPTH + 1; levels++) {
        pbuf m = pb_nested_if(levels, 6);
        r = load(&m, &g);
        if (levels > AICF_MAX_SUBGRAPH_DEPTH) {
            CHECK_ERR("onnx: 9 levels of subgraphs", r, AICF_ERROR_LIMIT, "AICF_MAX_SUBGRAPH_DEPTH", "then_branch");
        } else {
            CHECK_OK("onnx: 8 levels of subgraphs", r);
            if (g) {
                CHECK_OK("onnx: 8 levels plan and run", plan_run(g, x, sizeof x, y, sizeof y));
                for (ok = 1, i = 0; i < 6; i++) ok &= y[i] == -x[i];
                CHECK(ok, "onnx: 8 levels: y = -x");
            }
        }
        aicf_graph_destroy(g);
        free(m.p);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void) {
    const char* seed = getenv("AICF_SEED");
    const char* big = getenv("AICF_LIMITS_BIG");
    aicf_context_desc cd;
    static const struct {
        const char* name;
        void (*fn)(void);
    } T[] = {{"AICF_MAX_RANK", test_rank},
             {"AICF_MAX_NAME", test_name},
             {"AICF_MAX_NODES", test_nodes},
             {"AICF_MAX_TENSORS", test_tensors},
             {"AICF_MAX_NODE_IO", test_node_io},
             {"AICF_MAX_ATTR_ELEMS", test_attr_elems},
             {"AICF_MAX_TENSOR_BYTES", test_tensor_bytes},
             {"AICF_MAX_SUBGRAPH_DEPTH", test_subgraph_depth}};
    size_t i;
    g_rng = seed ? (uint64_t)strtoull(seed, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    if (!g_rng) g_rng = 1;
    g_verbose = getenv("AICF_TEST_VERBOSE") != NULL;
    g_big = !(big && strcmp(big, "0") == 0);
    printf("test_limits: seed %llu%s\n", (unsigned long long)g_rng, g_big ? "" : " (AICF_LIMITS_BIG=0)");
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &g_ctx) != AICF_SUCCESS) return 2;
    for (i = 0; i < sizeof T / sizeof T[0]; i++) {
        int f0 = g_fail;
        double t0 = now_s();
        T[i].fn();
        printf("%-4s %s (%.1fs)\n", g_fail == f0 ? "ok" : "FAIL", T[i].name, now_s() - t0);
        fflush(stdout);
    }
    aicf_context_destroy(g_ctx);
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
