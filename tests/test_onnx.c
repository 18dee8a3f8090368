/* test_onnx: unit tests of the ONNX reader (src/50_onnx.c).
   Hand-made ModelProto/TensorProto byte strings (encoded here, independently of the reader) and
   mutations of a real model: every error path checks the result code AND the message text, and
   nothing may crash (build with -fsanitize=address,undefined). Also round-trips
   aicf_tensor_write_pb / aicf_tensor_read_pb on fresh random data.

   Real data: $AICF_TEST_DATA (default ../shared/data relative to the working directory, i.e.
   run from the repository root); tests that need it print SKIP when it is missing.
   Seed: from the time, printed; AICF_TEST_SEED=N repeats a run.
   Prints one line per test and "N passed, N failed"; exits 1 on a failure. */
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail;
static uint64_t g_rng;
static char g_tmp[512];  /* temporary directory */
static char g_data[512]; /* test data directory */

static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static void report(const char* name, int ok, const char* detail)
{
    if (ok) {
        g_pass++;
        printf("PASS %s\n", name);
    } else {
        g_fail++;
        printf("FAIL %s: %s\n", name, detail ? detail : "");
    }
    fflush(stdout);
}

/* ---- a protobuf encoder (for building test inputs) ---- */
typedef struct buf {
    unsigned char* p;
    size_t n, cap;
} buf;

static void b_put(buf* b, const void* d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char*)realloc(b->p, cap);
        if (!b->p) {
            fprintf(stderr, "test_onnx: out of memory\n");
            exit(2);
        }
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void b_byte(buf* b, unsigned c)
{
    unsigned char x = (unsigned char)c;
    b_put(b, &x, 1);
}
static void b_varint(buf* b, uint64_t v)
{
    do {
        unsigned c = (unsigned)(v & 0x7f);
        v >>= 7;
        b_byte(b, c | (v ? 0x80u : 0u));
    } while (v);
}
static void b_key(buf* b, int field, int wt) { b_varint(b, ((uint64_t)field << 3) | (uint64_t)wt); }
static void b_vint(buf* b, int field, int64_t v)
{
    b_key(b, field, 0);
    b_varint(b, (uint64_t)v);
}
static void b_bytes(buf* b, int field, const void* d, size_t n)
{
    b_key(b, field, 2);
    b_varint(b, n);
    b_put(b, d, n);
}
static void b_str(buf* b, int field, const char* s) { b_bytes(b, field, s, strlen(s)); }
static void b_msg(buf* b, int field, buf* sub) /* appends and frees sub */
{
    b_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof(*sub));
}
static void b_f32(buf* b, int field, float f)
{
    unsigned char x[4];
    memcpy(x, &f, 4);
    b_key(b, field, 5);
    b_put(b, x, 4);
}
static void b_packed_f32(buf* b, int field, const float* v, size_t n)
{
    b_bytes(b, field, v, n * 4); /* little-endian host */
}
static void b_packed_f64(buf* b, int field, const double* v, size_t n) { b_bytes(b, field, v, n * 8); }
static void b_packed_varints(buf* b, int field, const int64_t* v, size_t n)
{
    buf s = {0, 0, 0};
    size_t i;
    for (i = 0; i < n; ++i) b_varint(&s, (uint64_t)v[i]);
    b_msg(b, field, &s);
}

/* TensorShape/ValueInfo helpers */
static void vi_tensor(buf* out, int field, const char* name, int elem_type, int rank, const int64_t* dims,
                      const char* const* params)
{
    buf vi = {0, 0, 0}, tp = {0, 0, 0}, tt = {0, 0, 0}, sh = {0, 0, 0};
    int i;
    b_str(&vi, 1, name);
    b_vint(&tt, 1, elem_type);
    for (i = 0; i < rank; ++i) {
        buf d = {0, 0, 0};
        if (params && params[i]) {
            if (params[i][0]) b_str(&d, 2, params[i]); /* "" = neither value nor param */
        } else {
            b_vint(&d, 1, dims[i]);
        }
        b_msg(&sh, 1, &d);
    }
    b_msg(&tt, 2, &sh);
    b_msg(&tp, 1, &tt);
    b_msg(&vi, 2, &tp);
    b_msg(out, field, &vi);
}

/* ---- the hand-made model, with optional defects ---- */
typedef struct mopts {
    int w_raw_bytes;        /* W's raw_data bytes (48 is right) */
    int w_rank;             /* W's rank (2) */
    int64_t w_dims[12];     /* W's dims ({4,3}) */
    const char* relu_op;    /* op type of node 2 ("Relu") */
    const char* add_domain; /* domain of node 1 (none) */
    int op_type_varint;     /* node 0's op_type sent with wire type 0 */
    int x_rank;             /* rank of input x (2) */
    int64_t x_dim1;         /* dim_value of x's axis 1 (4) */
    int perm_mode;          /* node 3's perm: 0 packed, 1 unpacked, 2 11-byte varint, 3 packed cut short */
    int if_node;            /* append an If node with a GRAPH attribute */
    int sparse;             /* add a sparse_initializer */
    int group;              /* a group (wire type 3) field inside the GraphProto */
    int nul_name;           /* node 0's name contains a NUL */
    int long_name;          /* node 0's name is AICF_MAX_NAME + 1 bytes */
    int w_external;         /* W's data external: 1 "weights file", 2 "../x", 3 "/abs" */
    const char* ext_location;
    int string_init;        /* add a STRING initializer */
    int typed_mismatch;     /* S0 (INT64) carries float_data */
    int64_t opset;          /* default-domain opset version (17) */
} mopts;

static void mopts_default(mopts* o)
{
    memset(o, 0, sizeof(*o));
    o->w_raw_bytes = 48;
    o->w_rank = 2;
    o->w_dims[0] = 4;
    o->w_dims[1] = 3;
    o->relu_op = "Relu";
    o->x_rank = 2;
    o->x_dim1 = 4;
    o->opset = 17;
}

static float w_value(int i) { return 0.5f * (float)i - 2.0f; }

static void node(buf* g, const char* name, const char* op, const char* const* in, int n_in, const char* const* out,
                 int n_out, buf* attrs, int n_attrs, const char* domain)
{
    buf nb = {0, 0, 0};
    int i;
    for (i = 0; i < n_in; ++i) b_str(&nb, 1, in[i]);
    for (i = 0; i < n_out; ++i) b_str(&nb, 2, out[i]);
    if (name) b_str(&nb, 3, name);
    if (op) b_str(&nb, 4, op);
    for (i = 0; i < n_attrs; ++i) b_msg(&nb, 5, &attrs[i]);
    if (domain) b_str(&nb, 7, domain);
    b_msg(g, 1, &nb);
}

static buf make_model(const mopts* o)
{
    buf m = {0, 0, 0}, g = {0, 0, 0}, ops = {0, 0, 0}, t = {0, 0, 0};
    buf at[4];
    int i;
    memset(at, 0, sizeof(at));
    b_vint(&m, 1, 8); /* ir_version */
    b_str(&ops, 1, "");
    b_vint(&ops, 2, o->opset);
    b_msg(&m, 8, &ops);
    /* nodes */
    {
        const char* in0[2] = {"x", "W"};
        const char* out0[1] = {"y"};
        buf nb = {0, 0, 0};
        b_str(&nb, 1, in0[0]);
        b_str(&nb, 1, in0[1]);
        b_str(&nb, 2, out0[0]);
        if (o->nul_name) {
            b_bytes(&nb, 3, "m\0m", 3);
        } else if (o->long_name) {
            char* s = (char*)malloc(AICF_MAX_NAME + 2);
            memset(s, 'n', AICF_MAX_NAME + 1);
            s[AICF_MAX_NAME + 1] = 0;
            b_str(&nb, 3, s);
            free(s);
        } else {
            b_str(&nb, 3, "mm");
        }
        if (o->op_type_varint) b_vint(&nb, 4, 7);
        else b_str(&nb, 4, "MatMul");
        b_msg(&g, 1, &nb);
    }
    {
        const char* in[2] = {"y", "B"};
        const char* out[1] = {"z"};
        node(&g, "add", "Add", in, 2, out, 1, NULL, 0, o->add_domain);
    }
    {
        const char* in[1] = {"z"};
        const char* out[1] = {"r"};
        node(&g, "relu", o->relu_op, in, 1, out, 1, NULL, 0, NULL);
    }
    {
        const char* in[1] = {"r"};
        const char* out[1] = {"t"};
        int64_t perm[2] = {1, 0};
        b_str(&at[0], 1, "perm");
        b_vint(&at[0], 20, 7); /* INTS */
        if (o->perm_mode == 0) {
            b_packed_varints(&at[0], 8, perm, 2);
        } else if (o->perm_mode == 1) {
            b_vint(&at[0], 8, 1);
            b_vint(&at[0], 8, 0);
        } else if (o->perm_mode == 2) {
            b_key(&at[0], 8, 0);
            for (i = 0; i < 10; ++i) b_byte(&at[0], 0xff);
            b_byte(&at[0], 0x01); /* 11 bytes */
        } else {
            unsigned char bad[3] = {0x01, 0x80, 0x80}; /* 1, then a varint that never ends */
            b_bytes(&at[0], 8, bad, 3);
        }
        node(&g, "tr", "Transpose", in, 1, out, 1, at, 1, NULL);
    }
    {
        const char* in[1] = {"t"};
        const char* out[1] = {"u"};
        const char* tags[2] = {"a", "b"};
        b_str(&at[0], 1, "alpha");
        b_vint(&at[0], 20, 1);
        b_f32(&at[0], 2, 0.25f);
        b_str(&at[1], 1, "note");
        b_vint(&at[1], 20, 3);
        b_str(&at[1], 4, "hi");
        b_str(&at[2], 1, "tags");
        b_vint(&at[2], 20, 8);
        b_str(&at[2], 9, tags[0]);
        b_str(&at[2], 9, tags[1]);
        b_str(&at[3], 1, "scales");
        b_vint(&at[3], 20, 6);
        b_f32(&at[3], 7, 1.5f); /* unpacked floats */
        b_f32(&at[3], 7, -3.0f);
        node(&g, "lr", "LeakyRelu", in, 1, out, 1, at, 4, NULL);
    }
    {
        const char* out[1] = {"k"};
        buf tt = {0, 0, 0};
        int64_t v[2] = {7, -9};
        b_str(&at[0], 1, "value");
        b_vint(&at[0], 20, 4);
        b_vint(&tt, 1, 2);
        b_vint(&tt, 2, 7); /* INT64 */
        b_packed_varints(&tt, 7, v, 2);
        b_msg(&at[0], 5, &tt);
        node(&g, "c", "Constant", NULL, 0, out, 1, at, 1, NULL);
    }
    {
        const char* in[2] = {"u", "k"};
        const char* out[1] = {"v"};
        node(&g, "rs", "Reshape", in, 2, out, 1, NULL, 0, NULL);
    }
    if (o->if_node) {
        const char* in[1] = {"v"};
        const char* out[1] = {"w"};
        buf sub = {0, 0, 0};
        b_str(&sub, 2, "then");
        b_str(&at[0], 1, "then_branch");
        b_vint(&at[0], 20, 5);
        b_msg(&at[0], 6, &sub);
        node(&g, "cond", "If", in, 1, out, 1, at, 1, NULL);
    }
    b_str(&g, 2, "test_graph");
    /* initializers */
    for (i = 0; i < o->w_rank; ++i) b_vint(&t, 1, o->w_dims[i]);
    b_vint(&t, 2, 1);
    b_str(&t, 8, "W");
    if (o->w_external) {
        buf e = {0, 0, 0};
        b_str(&e, 1, "location");
        b_str(&e, 2, o->ext_location);
        b_msg(&t, 13, &e);
        b_str(&e, 1, "offset");
        b_str(&e, 2, "8");
        b_msg(&t, 13, &e);
        b_str(&e, 1, "length");
        b_str(&e, 2, "48");
        b_msg(&t, 13, &e);
        b_vint(&t, 14, 1);
    } else {
        float w[16];
        for (i = 0; i < 16; ++i) w[i] = w_value(i);
        b_bytes(&t, 9, w, (size_t)o->w_raw_bytes);
    }
    b_msg(&g, 5, &t);
    {
        float bv[3] = {1.0f, 2.0f, 3.0f};
        b_vint(&t, 1, 3);
        b_vint(&t, 2, 1);
        b_str(&t, 8, "B");
        b_packed_f32(&t, 4, bv, 3);
        b_msg(&g, 5, &t);
    }
    {
        int64_t h[2] = {0x3c00, 0xc000}; /* float16 1.0, -2.0 */
        b_vint(&t, 1, 2);
        b_vint(&t, 2, 10);
        b_str(&t, 8, "H");
        b_packed_varints(&t, 5, h, 2);
        b_msg(&g, 5, &t);
    }
    {
        b_vint(&t, 1, 3);
        b_vint(&t, 2, 3); /* INT8, unpacked int32_data */
        b_vint(&t, 5, -128);
        b_vint(&t, 5, 5);
        b_vint(&t, 5, 127);
        b_str(&t, 8, "I8");
        b_msg(&g, 5, &t);
    }
    {
        int64_t v[2] = {1, 0};
        b_vint(&t, 1, 2);
        b_vint(&t, 2, 9); /* BOOL */
        b_packed_varints(&t, 5, v, 2);
        b_str(&t, 8, "BL");
        b_msg(&g, 5, &t);
    }
    {
        double d[2] = {1.5, -2.25};
        b_vint(&t, 1, 2);
        b_vint(&t, 2, 11);
        b_packed_f64(&t, 10, d, 2);
        b_str(&t, 8, "D");
        b_msg(&g, 5, &t);
    }
    {
        int64_t u[2] = {4000000000LL, 1};
        b_vint(&t, 1, 2);
        b_vint(&t, 2, 12); /* UINT32 */
        b_packed_varints(&t, 11, u, 2);
        b_str(&t, 8, "U32");
        b_msg(&g, 5, &t);
    }
    {
        b_vint(&t, 2, 7); /* INT64 scalar */
        if (o->typed_mismatch) b_f32(&t, 4, 1.0f);
        else b_vint(&t, 7, -5);
        b_str(&t, 8, "S0");
        b_msg(&g, 5, &t);
    }
    {
        b_vint(&t, 1, 0);
        b_vint(&t, 1, 3);
        b_vint(&t, 2, 1); /* FLOAT [0,3], no data */
        b_str(&t, 8, "E");
        b_msg(&g, 5, &t);
    }
    if (o->string_init) {
        b_vint(&t, 1, 1);
        b_vint(&t, 2, 8);
        b_str(&t, 6, "hello");
        b_str(&t, 8, "STR");
        b_msg(&g, 5, &t);
    }
    if (o->sparse) {
        buf sp = {0, 0, 0};
        b_vint(&sp, 3, 4);
        b_msg(&g, 15, &sp);
    }
    if (o->group) {
        b_key(&g, 99, 3);
        b_key(&g, 99, 4);
    }
    /* inputs: x, W (an initializer's default: not a graph input), q [?,2] */
    {
        int64_t dims[12];
        const char* params[12];
        for (i = 0; i < 12; ++i) {
            dims[i] = 2;
            params[i] = NULL;
        }
        params[0] = "batch";
        dims[1] = o->x_dim1;
        vi_tensor(&g, 11, "x", 1, o->x_rank, dims, params);
        dims[0] = 4;
        dims[1] = 3;
        vi_tensor(&g, 11, "W", 1, 2, dims, NULL);
        params[0] = "";
        vi_tensor(&g, 11, "q", 1, 2, dims, params);
    }
    {
        buf vo = {0, 0, 0};
        b_str(&vo, 1, o->if_node ? "w" : "v");
        b_msg(&g, 12, &vo);
    }
    b_msg(&m, 7, &g);
    return m;
}

/* ---- helpers ---- */
static aicf_context* g_ctx;

static int contains(const char* hay, const char* needle) { return !needle || strstr(hay, needle) != NULL; }

/* Loads bytes; checks the code and up to two message fragments. */
static void expect_load(const char* name, const buf* b, aicf_result want, const char* frag1, const char* frag2)
{
    aicf_graph* g = NULL;
    aicf_result r = aicf_graph_load_onnx_memory(g_ctx, b->p, b->n, NULL, &g);
    char detail[1400];
    int ok = r == want && (want == AICF_SUCCESS ? g != NULL : g == NULL);
    if (ok && want != AICF_SUCCESS)
        ok = contains(aicf_last_error(g_ctx), frag1) && contains(aicf_last_error(g_ctx), frag2);
    snprintf(detail, sizeof(detail), "got %s (%d), want %s; message: %s; expected text: '%s' '%s'",
             aicf_result_str(r), (int)r, aicf_result_str(want), r ? aicf_last_error(g_ctx) : "", frag1 ? frag1 : "",
             frag2 ? frag2 : "");
    report(name, ok, detail);
    if (!ok && r != AICF_SUCCESS) printf("     message: %s\n", aicf_last_error(g_ctx));
    aicf_graph_destroy(g);
}

static void expect_model(const char* name, const mopts* o, aicf_result want, const char* f1, const char* f2)
{
    buf b = make_model(o);
    expect_load(name, &b, want, f1, f2);
    free(b.p);
}

static const aicf__tensor* find_t(const aicf_graph* g, const char* name)
{
    int t = aicf__graph_find(g, name);
    return t >= 0 ? &g->tensors[t] : NULL;
}

static int write_file(const char* path, const void* d, size_t n)
{
    FILE* f = fopen(path, "wb");
    int ok;
    if (!f) return 0;
    ok = fwrite(d, 1, n, f) == n;
    return (fclose(f) == 0) && ok;
}

static unsigned char* read_file(const char* path, size_t* n)
{
    FILE* f = fopen(path, "rb");
    unsigned char* p;
    long sz;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = (unsigned char*)malloc((size_t)sz + 1);
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return p;
}

/* ---- tests ---- */
static void test_valid_model(void)
{
    mopts o;
    buf b;
    aicf_graph* g = NULL;
    aicf_result r;
    char detail[1400] = "";
    int ok = 1;
    const aicf__tensor* t;
    const char* names[1] = {"batch"};
    int64_t values[1] = {3};
    aicf_onnx_desc desc;
    mopts_default(&o);
    b = make_model(&o);
    memset(&desc, 0, sizeof(desc));
    desc.num_dims = 1;
    desc.dim_names = names;
    desc.dim_values = values;
    r = aicf_graph_load_onnx_memory(g_ctx, b.p, b.n, &desc, &g);
    if (r != AICF_SUCCESS) {
        snprintf(detail, sizeof(detail), "load failed: %s", aicf_last_error(g_ctx));
        report("valid hand-made model loads", 0, detail);
        free(b.p);
        return;
    }
    /* the caller's buffer is not kept */
    memset(b.p, 0xA5, b.n);
    free(b.p);
#define REQ(c, msg)                                                                                    \
    do {                                                                                               \
        if (ok && !(c)) {                                                                              \
            ok = 0;                                                                                    \
            snprintf(detail, sizeof(detail), "%s", msg);                                               \
        }                                                                                              \
    } while (0)
    REQ(g->opset == 17, "opset is not 17");
    REQ(aicf_graph_num_inputs(g) == 2, "expected 2 graph inputs (x, q): W is an initializer");
    REQ(aicf_graph_num_outputs(g) == 1, "expected 1 output");
    REQ(aicf_graph_num_nodes(g) == 7, "expected 7 nodes");
    if (ok) {
        aicf_tensor_info ti;
        aicf_graph_input_info(g, 0, &ti);
        REQ(!strcmp(ti.name, "x") && ti.rank == 2 && ti.dims[0] == 3 && ti.dims[1] == 4,
            "input x is not [batch=3,4]");
        REQ(g->tensors[g->inputs[0]].dim_param[0] && !strcmp(g->tensors[g->inputs[0]].dim_param[0], "batch"),
            "x's dim_param[0] is not 'batch'");
        aicf_graph_input_info(g, 1, &ti);
        REQ(!strcmp(ti.name, "q") && ti.rank == 2 && ti.dims[0] == -1 && ti.dims[1] == 3, "input q is not [?,3]");
        REQ(g->tensors[g->inputs[1]].dim_param[0] && !strcmp(g->tensors[g->inputs[1]].dim_param[0], "unk__q_0"),
            "q's unnamed dim is not 'unk__q_0'");
    }
    t = find_t(g, "W");
    REQ(t && (t->flags & AICF__T_CONST) && t->dtype == AICF_DTYPE_FLOAT32 && t->data_bytes == 48, "W header");
    if (ok) {
        int i;
        const float* w = (const float*)t->data;
        int inside = (const unsigned char*)t->data >= (const unsigned char*)g->file_data &&
                     (const unsigned char*)t->data < (const unsigned char*)g->file_data + g->file_size;
        for (i = 0; i < 12; ++i) REQ(w[i] == w_value(i), "W values differ");
        REQ(t->owns_data == !((uintptr_t)t->data % 4 == 0 && inside), "W borrow rule (aligned raw_data is borrowed)");
    }
    t = find_t(g, "B");
    REQ(t && t->data_bytes == 12 && ((const float*)t->data)[0] == 1.0f && ((const float*)t->data)[2] == 3.0f,
        "B (packed float_data)");
    t = find_t(g, "H");
    REQ(t && t->dtype == AICF_DTYPE_FLOAT16 && t->data_bytes == 4 && ((const uint16_t*)t->data)[0] == 0x3c00 &&
            ((const uint16_t*)t->data)[1] == 0xc000,
        "H (float16 in int32_data)");
    t = find_t(g, "I8");
    REQ(t && t->data_bytes == 3 && ((const int8_t*)t->data)[0] == -128 && ((const int8_t*)t->data)[1] == 5 &&
            ((const int8_t*)t->data)[2] == 127,
        "I8 (unpacked int32_data)");
    t = find_t(g, "BL");
    REQ(t && t->data_bytes == 2 && ((const uint8_t*)t->data)[0] == 1 && ((const uint8_t*)t->data)[1] == 0, "BL (bool)");
    t = find_t(g, "D");
    REQ(t && t->data_bytes == 16 && ((const double*)t->data)[1] == -2.25, "D (double_data)");
    t = find_t(g, "U32");
    REQ(t && t->data_bytes == 8 && ((const uint32_t*)t->data)[0] == 4000000000u, "U32 (uint64_data)");
    t = find_t(g, "S0");
    REQ(t && t->shape.rank == 0 && t->data_bytes == 8 && ((const int64_t*)t->data)[0] == -5, "S0 (int64 scalar)");
    t = find_t(g, "E");
    REQ(t && t->shape.rank == 2 && t->shape.d[0] == 0 && t->data_bytes == 0, "E (empty)");
    if (ok) {
        const aicf__node* n3 = &g->nodes[3];
        const aicf__node* n4 = &g->nodes[4];
        const aicf__node* n5 = &g->nodes[5];
        const int64_t* perm = NULL;
        REQ(!strcmp(g->nodes[0].name, "mm") && !strcmp(g->nodes[0].op_type, "MatMul"), "node 0");
        REQ(aicf__attr_ints(n3, "perm", &perm) == 2 && perm[0] == 1 && perm[1] == 0, "perm INTS");
        REQ(aicf__attr_f(n4, "alpha", 0) == 0.25f, "alpha FLOAT");
        REQ(!strcmp(aicf__attr_s(n4, "note", ""), "hi"), "note STRING");
        REQ(aicf__attr(n4, "tags") && aicf__attr(n4, "tags")->count == 2 &&
                !strcmp(aicf__attr(n4, "tags")->strings[1], "b"),
            "tags STRINGS");
        REQ(aicf__attr(n4, "scales") && aicf__attr(n4, "scales")->count == 2 &&
                aicf__attr(n4, "scales")->floats[1] == -3.0f,
            "scales FLOATS (unpacked)");
        REQ(aicf__attr(n5, "value") && aicf__attr(n5, "value")->tensor >= 0, "value TENSOR");
        if (ok) {
            const aicf__tensor* vt = &g->tensors[aicf__attr(n5, "value")->tensor];
            REQ(vt->dtype == AICF_DTYPE_INT64 && vt->shape.rank == 1 && vt->shape.d[0] == 2 &&
                    ((const int64_t*)vt->data)[0] == 7 && ((const int64_t*)vt->data)[1] == -9,
                "value tensor contents");
        }
    }
    report("valid hand-made model loads (dims, bindings, typed fields, attributes, caller buffer not kept)", ok, detail);
    aicf_graph_destroy(g);
    /* the same through a file (mmap path), unpacked perm */
    {
        char path[600];
        mopts_default(&o);
        o.perm_mode = 1;
        b = make_model(&o);
        snprintf(path, sizeof(path), "%s/aicf_test_onnx_%llu.onnx", g_tmp, (unsigned long long)(g_rng & 0xffffff));
        ok = write_file(path, b.p, b.n);
        g = NULL;
        r = ok ? aicf_graph_load_onnx(g_ctx, path, NULL, &g) : AICF_ERROR_IO;
        ok = r == AICF_SUCCESS && g && aicf_graph_num_nodes(g) == 7;
        if (ok) {
            const int64_t* perm = NULL;
            ok = aicf__attr_ints(&g->nodes[3], "perm", &perm) == 2 && perm[0] == 1 && perm[1] == 0;
        }
        snprintf(detail, sizeof(detail), "%s", r ? aicf_last_error(g_ctx) : "perm (unpacked) wrong");
        report("valid model loads from a file (unpacked ints)", ok, detail);
        aicf_graph_destroy(g);
        remove(path);
        free(b.p);
    }
}

static void test_truncations_handmade(void)
{
    mopts o;
    buf b;
    size_t cut, bad = 0, first_bad = 0;
    char detail[1400] = "";
    mopts_default(&o);
    b = make_model(&o);
    for (cut = 0; cut < b.n; ++cut) {
        aicf_graph* g = NULL;
        aicf_result r = aicf_graph_load_onnx_memory(g_ctx, b.p, cut, NULL, &g);
        if (r != AICF_ERROR_INVALID_MODEL || g || strncmp(aicf_last_error(g_ctx), "onnx: ", 6) != 0) {
            if (!bad++) {
                first_bad = cut;
                snprintf(detail, sizeof(detail), "cut at %zu of %zu: %s: %s", first_bad, b.n, aicf_result_str(r),
                         r ? aicf_last_error(g_ctx) : "loaded");
            }
            aicf_graph_destroy(g);
        }
    }
    {
        char name[128];
        snprintf(name, sizeof(name), "hand-made model truncated at each of %zu offsets -> INVALID_MODEL", b.n);
        report(name, bad == 0, detail);
    }
    free(b.p);
}

static void test_real_model(void)
{
    char path[1100], tpath[600], detail[1400] = "";
    size_t n, i, bad = 0, tried = 0;
    unsigned char* d;
    snprintf(path, sizeof(path), "%s/models/mnist/model.onnx", g_data);
    d = read_file(path, &n);
    if (!d) {
        printf("SKIP real model truncations: %s not found (set AICF_TEST_DATA)\n", path);
        return;
    }
    /* truncations: the first and last 64 bytes and 400 random offsets */
    for (i = 0; i < 64 + 64 + 400; ++i) {
        size_t cut = i < 64 ? i : i < 128 ? n - 1 - (i - 64) : (size_t)(rnd() % n);
        aicf_graph* g = NULL;
        aicf_result r = aicf_graph_load_onnx_memory(g_ctx, d, cut, NULL, &g);
        tried++;
        if (r != AICF_ERROR_INVALID_MODEL || g || strncmp(aicf_last_error(g_ctx), "onnx: ", 6) != 0) {
            if (!bad++)
                snprintf(detail, sizeof(detail), "cut at %zu of %zu: %s: %s", cut, n, aicf_result_str(r),
                         r ? aicf_last_error(g_ctx) : "loaded");
            aicf_graph_destroy(g);
        }
    }
    report("mnist truncated at 528 offsets -> INVALID_MODEL naming the field", bad == 0, detail);
    /* the full model loads; a truncated file through the file API (mmap) fails cleanly */
    {
        aicf_graph* g = NULL;
        aicf_result r = aicf_graph_load_onnx(g_ctx, path, NULL, &g);
        snprintf(detail, sizeof(detail), "%s", r ? aicf_last_error(g_ctx) : "");
        report("mnist loads from its file", r == AICF_SUCCESS && g && aicf_graph_num_nodes(g) == 12, detail);
        aicf_graph_destroy(g);
    }
    snprintf(tpath, sizeof(tpath), "%s/aicf_test_onnx_trunc_%llu.onnx", g_tmp, (unsigned long long)(g_rng & 0xffffff));
    bad = 0;
    for (i = 0; i < 20; ++i) {
        size_t cut = (size_t)(rnd() % n);
        aicf_graph* g = NULL;
        aicf_result r;
        if (!write_file(tpath, d, cut)) break;
        r = aicf_graph_load_onnx(g_ctx, tpath, NULL, &g);
        if (r != AICF_ERROR_INVALID_MODEL || g) {
            if (!bad++) snprintf(detail, sizeof(detail), "cut %zu: %s", cut, aicf_result_str(r));
            aicf_graph_destroy(g);
        }
    }
    remove(tpath);
    report("truncated mnist files (file API) -> INVALID_MODEL", bad == 0 && i == 20, detail);
    /* random byte mutations: any result, but never a crash, and errors carry a message */
    bad = 0;
    {
        unsigned char* m = (unsigned char*)malloc(n);
        int k, nok = 0;
        for (k = 0; k < 300; ++k) {
            aicf_graph* g = NULL;
            aicf_result r;
            int j, nm = 1 + (int)(rnd() % 4);
            memcpy(m, d, n);
            for (j = 0; j < nm; ++j) m[rnd() % n] = (unsigned char)rnd();
            r = aicf_graph_load_onnx_memory(g_ctx, m, n, NULL, &g);
            if (r == AICF_SUCCESS) nok++;
            else if (strncmp(aicf_last_error(g_ctx), "onnx: ", 6) != 0 && !bad++)
                snprintf(detail, sizeof(detail), "mutation %d: %s: message '%s' does not start with 'onnx: '", k,
                         aicf_result_str(r), aicf_last_error(g_ctx));
            aicf_graph_destroy(g);
        }
        free(m);
        printf("     (%d of 300 mutated models still loaded)\n", nok);
    }
    report("300 random byte mutations of mnist: no crash, every error has an onnx: message", bad == 0, detail);
    free(d);
}

static void test_errors(void)
{
    mopts o;
    buf b;

    /* a length prefix past the end: node 0's name ("mm", length 2) claims 0x70 bytes */
    mopts_default(&o);
    b = make_model(&o);
    {
        size_t i;
        for (i = 0; i + 3 < b.n; ++i)
            if (b.p[i] == 0x1a && b.p[i + 1] == 2 && b.p[i + 2] == 'm' && b.p[i + 3] == 'm') {
                b.p[i + 1] = 0x70;
                break;
            }
    }
    expect_load("length prefix past the end of the enclosing message", &b, AICF_ERROR_INVALID_MODEL,
                "GraphProto.node[0] (NodeProto.name)", "runs past the end");
    free(b.p);

    /* the graph's own length prefix past the end of the file */
    mopts_default(&o);
    b = make_model(&o);
    b.n -= 5;
    expect_load("graph length past the end of the file", &b, AICF_ERROR_INVALID_MODEL, "ModelProto (ModelProto.graph)",
                "runs past the end");
    free(b.p);

    mopts_default(&o);
    o.perm_mode = 2;
    expect_model("overlong (11-byte) varint", &o, AICF_ERROR_INVALID_MODEL,
                 "GraphProto.node[3].attribute[0] (AttributeProto.ints)", "overlong varint");
    mopts_default(&o);
    o.perm_mode = 3;
    expect_model("packed ints ending in a truncated varint", &o, AICF_ERROR_INVALID_MODEL,
                 "GraphProto.node[3].attribute[0] (AttributeProto.ints)", "truncated varint at byte");
    mopts_default(&o);
    o.op_type_varint = 1;
    expect_model("wrong wire type for a known field (op_type as varint)", &o, AICF_ERROR_INVALID_MODEL,
                 "GraphProto.node[0] (NodeProto.op_type)", "wire type 0 (varint)");
    mopts_default(&o);
    o.group = 1;
    expect_model("group wire type", &o, AICF_ERROR_INVALID_MODEL, "GraphProto (GraphProto.field 99)", "group");
    mopts_default(&o);
    o.w_raw_bytes = 44;
    expect_model("raw_data size does not match dims", &o, AICF_ERROR_INVALID_MODEL,
                 "GraphProto.initializer[0]: tensor 'W'", "raw_data has 44 bytes but dims [4,3] of FLOAT need 48");
    mopts_default(&o);
    o.w_dims[0] = -4;
    expect_model("negative dim in an initializer", &o, AICF_ERROR_INVALID_MODEL, "initializer[0]: tensor 'W'",
                 "dims[0] is negative (-4)");
    mopts_default(&o);
    o.x_dim1 = -4;
    expect_model("negative dim_value in an input", &o, AICF_ERROR_INVALID_MODEL,
                 "GraphProto.input[0].type.tensor_type.shape.dim[1] (TensorShapeProto.Dimension.dim_value)",
                 "negative");
    mopts_default(&o);
    o.w_rank = 9;
    {
        int i;
        for (i = 0; i < 9; ++i) o.w_dims[i] = 1;
    }
    o.w_raw_bytes = 4;
    expect_model("initializer of rank 9 > AICF_MAX_RANK", &o, AICF_ERROR_LIMIT, "tensor 'W'", "rank 9 exceeds AICF_MAX_RANK");
    mopts_default(&o);
    o.x_rank = 9;
    expect_model("input of rank 9 > AICF_MAX_RANK", &o, AICF_ERROR_LIMIT, "input 'x'", "rank 9 exceeds");
    mopts_default(&o);
    o.opset = 0;
    expect_model("opset version 0", &o, AICF_ERROR_INVALID_MODEL, "ModelProto.opset_import[0]", "opset version 0");
    mopts_default(&o);
    o.opset = 5000;
    expect_model("opset version 5000 (the builder refuses it)", &o, AICF_ERROR_INVALID_MODEL, "opset_import", "5000");
    mopts_default(&o);
    o.relu_op = "FooBar";
    expect_model("unknown op type", &o, AICF_ERROR_UNSUPPORTED, "node 2 'relu' (FooBar)", "unsupported op type");
    mopts_default(&o);
    o.add_domain = "com.microsoft";
    expect_model("node in domain com.microsoft", &o, AICF_ERROR_UNSUPPORTED, "node 1 'add' (Add)",
                 "domain 'com.microsoft'");
    mopts_default(&o);
    o.add_domain = "ai.onnx";
    expect_model("node in domain ai.onnx (the default) loads", &o, AICF_SUCCESS, NULL, NULL);
    mopts_default(&o);
    o.if_node = 1; /* subgraphs are read (tests/test_if.c covers them); an empty then_branch loads */
    expect_model("subgraph attribute", &o, AICF_SUCCESS, NULL, NULL);
    mopts_default(&o);
    o.sparse = 1;
    expect_model("sparse initializer", &o, AICF_ERROR_UNSUPPORTED, "GraphProto (GraphProto.sparse_initializer)",
                 "not supported");
    mopts_default(&o);
    o.string_init = 1;
    expect_model("STRING initializer", &o, AICF_ERROR_UNSUPPORTED, "tensor 'STR'", "STRING is not supported");
    mopts_default(&o);
    o.typed_mismatch = 1;
    expect_model("float_data in an INT64 tensor", &o, AICF_ERROR_INVALID_MODEL, "tensor 'S0'",
                 "float_data is given for data_type INT64");
    mopts_default(&o);
    o.nul_name = 1;
    expect_model("NUL byte in a node name", &o, AICF_ERROR_INVALID_MODEL, "GraphProto.node[0] (NodeProto.name)",
                 "NUL byte");
    mopts_default(&o);
    o.long_name = 1;
    expect_model("node name longer than AICF_MAX_NAME", &o, AICF_ERROR_LIMIT, "(NodeProto.name)", "AICF_MAX_NAME");
    mopts_default(&o);
    o.w_external = 1;
    o.ext_location = "w.bin";
    expect_model("external data from memory", &o, AICF_ERROR_UNSUPPORTED, "tensor 'W'", "aicf_graph_load_onnx");

    /* hand-made byte strings */
    {
        buf m = {0, 0, 0};
        expect_load("empty buffer", &m, AICF_ERROR_INVALID_MODEL, "ModelProto", "no graph");
        b_byte(&m, 0x08);
        b_byte(&m, 0x80);
        expect_load("truncated varint in ModelProto.ir_version", &m, AICF_ERROR_INVALID_MODEL,
                    "ModelProto (ModelProto.ir_version)", "truncated varint at byte 1");
        m.n = 0;
        b_byte(&m, 0x00);
        expect_load("field number 0", &m, AICF_ERROR_INVALID_MODEL, "ModelProto", "invalid field number 0");
        m.n = 0;
        b_byte(&m, 0x0e); /* field 1, wire type 6 */
        expect_load("invalid wire type 6", &m, AICF_ERROR_INVALID_MODEL, "ModelProto", "invalid wire type 6");
        m.n = 0;
        b_key(&m, 3, 1);
        b_byte(&m, 1);
        b_byte(&m, 2);
        expect_load("truncated fixed64", &m, AICF_ERROR_INVALID_MODEL, "(ModelProto.producer_version)", "wire type 1");
        m.n = 0;
        b_key(&m, 50, 1);
        b_byte(&m, 1);
        expect_load("truncated fixed64 in an unknown field", &m, AICF_ERROR_INVALID_MODEL, "ModelProto.field 50",
                    "truncated fixed64");
        m.n = 0;
        {
            buf g2 = {0, 0, 0};
            b_vint(&m, 1, 8);
            b_msg(&m, 7, &g2);
        }
        expect_load("IR 8 model without opset_import", &m, AICF_ERROR_INVALID_MODEL, "ModelProto", "opset_import");
        free(m.p);
    }
    /* missing file */
    {
        char path[600];
        aicf_graph* g = NULL;
        aicf_result r;
        snprintf(path, sizeof(path), "%s/aicf_no_such_dir_%llu/model.onnx", g_tmp, (unsigned long long)rnd());
        r = aicf_graph_load_onnx(g_ctx, path, NULL, &g);
        report("missing file -> AICF_ERROR_IO naming the path",
               r == AICF_ERROR_IO && !g && contains(aicf_last_error(g_ctx), path), aicf_last_error(g_ctx));
    }
    /* bad bindings */
    {
        const char* names[1] = {"batch"};
        int64_t values[1] = {0};
        aicf_onnx_desc desc;
        aicf_graph* g = NULL;
        aicf_result r;
        mopts_default(&o);
        b = make_model(&o);
        memset(&desc, 0, sizeof(desc));
        desc.num_dims = 1;
        desc.dim_names = names;
        desc.dim_values = values;
        r = aicf_graph_load_onnx_memory(g_ctx, b.p, b.n, &desc, &g);
        report("dim binding batch=0 is rejected", r != AICF_SUCCESS && !g && contains(aicf_last_error(g_ctx), "batch"),
               aicf_last_error(g_ctx));
        free(b.p);
    }
}

static void test_external(void)
{
    char mpath[700], dpath[700], loc[128], detail[1400] = "";
    unsigned char data[56];
    float w[12];
    mopts o;
    buf b;
    aicf_graph* g = NULL;
    aicf_result r;
    int i, ok;
    unsigned long long id = (unsigned long long)(rnd() & 0xffffff);
    snprintf(loc, sizeof(loc), "aicf_test_ext_%llu.bin", id);
    snprintf(mpath, sizeof(mpath), "%s/aicf_test_ext_%llu.onnx", g_tmp, id);
    snprintf(dpath, sizeof(dpath), "%s/%s", g_tmp, loc);
    for (i = 0; i < 12; ++i) w[i] = (float)(rnd() % 1000) / 7.0f + 1.0f;
    memset(data, 0x11, 8);
    memcpy(data + 8, w, 48);
    mopts_default(&o);
    o.w_external = 1;
    o.ext_location = loc;
    b = make_model(&o);
    ok = write_file(mpath, b.p, b.n) && write_file(dpath, data, 56);
    r = ok ? aicf_graph_load_onnx(g_ctx, mpath, NULL, &g) : AICF_ERROR_IO;
    ok = r == AICF_SUCCESS && g;
    if (ok) {
        const aicf__tensor* t = find_t(g, "W");
        ok = t && t->data_bytes == 48 && memcmp(t->data, w, 48) == 0;
    }
    snprintf(detail, sizeof(detail), "%s", r ? aicf_last_error(g_ctx) : "W's values differ");
    report("external data (location, offset, length) is read", ok, detail);
    aicf_graph_destroy(g);
    free(b.p);
    /* length mismatch: the data file is too short */
    write_file(dpath, data, 40);
    g = NULL;
    r = aicf_graph_load_onnx(g_ctx, mpath, NULL, &g);
    report("external data file too short -> INVALID_MODEL",
           r == AICF_ERROR_INVALID_MODEL && !g && contains(aicf_last_error(g_ctx), "tensor 'W'"), aicf_last_error(g_ctx));
    aicf_graph_destroy(g);
    remove(dpath);
    {
        const char* bad[3] = {"../etc/passwd", "/etc/passwd", "a/../../b.bin"};
        const char* frag[3] = {"'..'", "absolute", "'..'"};
        for (i = 0; i < 3; ++i) {
            char name[128];
            o.ext_location = bad[i];
            b = make_model(&o);
            write_file(mpath, b.p, b.n);
            g = NULL;
            r = aicf_graph_load_onnx(g_ctx, mpath, NULL, &g);
            snprintf(name, sizeof(name), "external data location '%s' is rejected", bad[i]);
            report(name, r == AICF_ERROR_INVALID_MODEL && !g && contains(aicf_last_error(g_ctx), frag[i]),
                   aicf_last_error(g_ctx));
            aicf_graph_destroy(g);
            free(b.p);
        }
    }
    remove(mpath);
}

/* ---- TensorProto files ---- */
static void fill_random(aicf_dtype dt, void* data, size_t n_elems)
{
    size_t i, es = aicf_dtype_size(dt);
    unsigned char* p = (unsigned char*)data;
    for (i = 0; i < n_elems; ++i) {
        uint64_t v = rnd();
        if (dt == AICF_DTYPE_BOOL) {
            p[i] = (unsigned char)(v & 1);
        } else if (dt == AICF_DTYPE_FLOAT32) {
            float f = (float)((double)(v % 2000001) / 1000.0 - 1000.0);
            memcpy(p + i * 4, &f, 4);
        } else if (dt == AICF_DTYPE_FLOAT64) {
            double f = (double)(int64_t)(v >> 11) * 1e-9;
            memcpy(p + i * 8, &f, 8);
        } else {
            memcpy(p + i * es, &v, es);
        }
    }
}

static void test_pb_roundtrip(void)
{
    static const aicf_dtype dts[] = {AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT16, AICF_DTYPE_BFLOAT16, AICF_DTYPE_FLOAT64,
                                     AICF_DTYPE_INT8,    AICF_DTYPE_UINT8,   AICF_DTYPE_INT16,    AICF_DTYPE_UINT16,
                                     AICF_DTYPE_INT32,   AICF_DTYPE_UINT32,  AICF_DTYPE_INT64,    AICF_DTYPE_UINT64,
                                     AICF_DTYPE_BOOL};
    char path[600], detail[1400] = "";
    int k, bad = 0, count = 0;
    snprintf(path, sizeof(path), "%s/aicf_test_onnx_%llu.pb", g_tmp, (unsigned long long)(rnd() & 0xffffff));
    for (k = 0; k < (int)(sizeof(dts) / sizeof(dts[0])) * 3; ++k) {
        aicf_host_tensor t, u;
        aicf_dtype dt = dts[k % (int)(sizeof(dts) / sizeof(dts[0]))];
        size_t n = 1;
        int i;
        char name[64];
        aicf_result r;
        memset(&t, 0, sizeof(t));
        t.dtype = dt;
        t.rank = (int)(rnd() % 5);
        for (i = 0; i < t.rank; ++i) {
            t.dims[i] = (int64_t)(1 + rnd() % 6);
            n *= (size_t)t.dims[i];
        }
        if (k == 5 && t.rank > 0) { /* an empty tensor */
            t.dims[0] = 0;
            n = 0;
        }
        snprintf(name, sizeof(name), "t%d_%s", k, aicf_dtype_name(dt));
        t.name = k % 7 == 3 ? NULL : name;
        t.bytes = n * aicf_dtype_size(dt);
        t.data = malloc(t.bytes + 1);
        fill_random(dt, t.data, n);
        r = aicf_tensor_write_pb(g_ctx, path, &t);
        if (r == AICF_SUCCESS) r = aicf_tensor_read_pb(g_ctx, path, &u);
        count++;
        if (r != AICF_SUCCESS || u.dtype != dt || u.rank != t.rank || u.bytes != t.bytes ||
            (t.bytes && memcmp(u.data, t.data, t.bytes) != 0) || strcmp(u.name, t.name ? t.name : "") != 0 ||
            (t.rank && memcmp(u.dims, t.dims, (size_t)t.rank * sizeof(int64_t)) != 0)) {
            if (!bad++)
                snprintf(detail, sizeof(detail), "%s rank %d: %s", name, t.rank, r ? aicf_last_error(g_ctx) : "differs");
        }
        if (r == AICF_SUCCESS) aicf_host_tensor_free(g_ctx, &u);
        free(t.data);
    }
    {
        char nm[128];
        snprintf(nm, sizeof(nm), "write_pb/read_pb round trip of %d random tensors (13 dtypes, ranks 0..4)", count);
        report(nm, bad == 0, detail);
    }
    /* a truncated .pb at every offset fails */
    {
        aicf_host_tensor t, u;
        float v[6];
        int64_t dims[2] = {2, 3};
        unsigned char* d;
        size_t n, cut;
        int i;
        memset(&t, 0, sizeof(t));
        t.name = (char*)"input_0";
        t.dtype = AICF_DTYPE_FLOAT32;
        t.rank = 2;
        t.dims[0] = dims[0];
        t.dims[1] = dims[1];
        for (i = 0; i < 6; ++i) v[i] = (float)(rnd() % 100) + 0.5f;
        t.data = v;
        t.bytes = 24;
        bad = 0;
        if (aicf_tensor_write_pb(g_ctx, path, &t) != AICF_SUCCESS || !(d = read_file(path, &n))) {
            report("truncated .pb files", 0, aicf_last_error(g_ctx));
        } else {
            for (cut = 0; cut < n; ++cut) {
                aicf_result r = aicf_tensor_read_pb_memory(g_ctx, d, cut, &u);
                if (r != AICF_ERROR_INVALID_MODEL || u.data || u.name) {
                    if (!bad++) snprintf(detail, sizeof(detail), "cut %zu: %s", cut, aicf_result_str(r));
                    if (!r) aicf_host_tensor_free(g_ctx, &u);
                }
            }
            report("TensorProto truncated at every offset -> INVALID_MODEL", bad == 0, detail);
            free(d);
        }
    }
    remove(path);
    /* typed fields of a hand-made TensorProto */
    {
        buf b = {0, 0, 0};
        aicf_host_tensor u;
        aicf_result r;
        int64_t h[3] = {0x3c00, 0x7bff, 0x8001};
        b_vint(&b, 1, 3);
        b_vint(&b, 2, 16); /* BFLOAT16 */
        b_packed_varints(&b, 5, h, 3);
        b_str(&b, 8, "bf");
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: bfloat16 in int32_data",
               r == AICF_SUCCESS && u.dtype == AICF_DTYPE_BFLOAT16 && u.bytes == 6 && ((uint16_t*)u.data)[1] == 0x7bff &&
                   ((uint16_t*)u.data)[2] == 0x8001 && !strcmp(u.name, "bf"),
               aicf_last_error(g_ctx));
        if (!r) aicf_host_tensor_free(g_ctx, &u);
        b.n = 0;
        b_vint(&b, 1, 2);
        b_vint(&b, 2, 3); /* INT8 */
        b_vint(&b, 5, 1);
        b_vint(&b, 5, 300);
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: int32_data value 300 in an INT8 tensor -> INVALID_MODEL",
               r == AICF_ERROR_INVALID_MODEL && contains(aicf_last_error(g_ctx), "int32_data[1] = 300"),
               aicf_last_error(g_ctx));
        b.n = 0;
        b_vint(&b, 1, 2);
        b_vint(&b, 2, 1);
        b_f32(&b, 4, 1.0f);
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: 1 float_data value for dims [2] -> INVALID_MODEL",
               r == AICF_ERROR_INVALID_MODEL && contains(aicf_last_error(g_ctx), "float_data has 1 values but dims [2] need 2"),
               aicf_last_error(g_ctx));
        b.n = 0;
        b_vint(&b, 1, (int64_t)1 << 62);
        b_vint(&b, 1, (int64_t)1 << 62);
        b_vint(&b, 2, 1);
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: dims whose element count overflows -> LIMIT",
               r == AICF_ERROR_LIMIT && contains(aicf_last_error(g_ctx), "overflows"), aicf_last_error(g_ctx));
        b.n = 0;
        b_vint(&b, 1, 2);
        b_vint(&b, 2, 14); /* COMPLEX64 */
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: COMPLEX64 -> UNSUPPORTED",
               r == AICF_ERROR_UNSUPPORTED && contains(aicf_last_error(g_ctx), "COMPLEX64"), aicf_last_error(g_ctx));
        b.n = 0;
        b_vint(&b, 1, 2);
        b_vint(&b, 2, 1);
        b_bytes(&b, 9, "12345678", 8);
        b_f32(&b, 4, 1.0f);
        r = aicf_tensor_read_pb_memory(g_ctx, b.p, b.n, &u);
        report("read_pb: raw_data and float_data both given -> INVALID_MODEL",
               r == AICF_ERROR_INVALID_MODEL && contains(aicf_last_error(g_ctx), "both raw_data and float_data"),
               aicf_last_error(g_ctx));
        free(b.p);
    }
    /* a real test-data file */
    {
        char p2[1100];
        aicf_host_tensor u;
        aicf_result r;
        snprintf(p2, sizeof(p2), "%s/models/mnist/test_data_set_0/input_0.pb", g_data);
        r = aicf_tensor_read_pb(g_ctx, p2, &u);
        if (r == AICF_ERROR_IO) {
            printf("SKIP read_pb of mnist input_0.pb: %s\n", aicf_last_error(g_ctx));
        } else {
            int ok = r == AICF_SUCCESS && u.dtype == AICF_DTYPE_FLOAT32 && u.rank == 4 && u.dims[0] == 1 &&
                     u.dims[1] == 1 && u.dims[2] == 28 && u.dims[3] == 28 && u.bytes == 28 * 28 * 4;
            if (ok) {
                size_t i, nz = 0;
                for (i = 0; i < 28 * 28; ++i) nz += ((float*)u.data)[i] != 0.0f;
                ok = nz > 10;
            }
            report("read_pb of mnist input_0.pb: FLOAT [1,1,28,28]", ok, aicf_last_error(g_ctx));
            if (!r) aicf_host_tensor_free(g_ctx, &u);
        }
    }
    /* write_pb argument checks */
    {
        aicf_host_tensor t;
        float v[2] = {1, 2};
        memset(&t, 0, sizeof(t));
        t.dtype = AICF_DTYPE_FLOAT32;
        t.rank = 1;
        t.dims[0] = 3;
        t.data = v;
        t.bytes = 8;
        report("write_pb: bytes that do not match dims -> INVALID_ARGUMENT",
               aicf_tensor_write_pb(g_ctx, path, &t) == AICF_ERROR_INVALID_ARGUMENT &&
                   contains(aicf_last_error(g_ctx), "need 12"),
               aicf_last_error(g_ctx));
        t.dims[0] = 2;
        report("write_pb: unwritable path -> IO",
               aicf_tensor_write_pb(g_ctx, "/nonexistent_dir_aicf/x.pb", &t) == AICF_ERROR_IO, aicf_last_error(g_ctx));
        report("read_pb: missing file -> IO", aicf_tensor_read_pb(g_ctx, "/nonexistent_dir_aicf/x.pb", &t) == AICF_ERROR_IO,
               aicf_last_error(g_ctx));
    }
}

static void test_fuzz_handmade(void)
{
    mopts o;
    buf b;
    unsigned char* m;
    int k, bad = 0, nok = 0;
    char detail[1400] = "";
    mopts_default(&o);
    b = make_model(&o);
    m = (unsigned char*)malloc(b.n);
    for (k = 0; k < 3000; ++k) {
        aicf_graph* g = NULL;
        aicf_result r;
        int j, nm = 1 + (int)(rnd() % 3);
        size_t n = b.n;
        memcpy(m, b.p, b.n);
        for (j = 0; j < nm; ++j) m[rnd() % b.n] = (unsigned char)(rnd() % 3 ? rnd() : rnd() % 4);
        if (rnd() % 4 == 0) n = (size_t)(rnd() % b.n);
        r = aicf_graph_load_onnx_memory(g_ctx, m, n, NULL, &g);
        if (r == AICF_SUCCESS) nok++;
        else if ((strncmp(aicf_last_error(g_ctx), "onnx: ", 6) != 0 && !contains(aicf_last_error(g_ctx), "out of memory")) ||
                 g) {
            if (!bad++)
                snprintf(detail, sizeof(detail), "mutation %d: %s: '%s'", k, aicf_result_str(r), aicf_last_error(g_ctx));
        }
        aicf_graph_destroy(g);
    }
    printf("     (%d of 3000 mutated models still loaded)\n", nok);
    report("3000 random mutations of the hand-made model: no crash, every error has an onnx: message", bad == 0, detail);
    free(m);
    free(b.p);
}

int main(void)
{
    aicf_context_desc cd;
    const char* env;
    uint64_t seed;
    env = getenv("AICF_TEST_SEED");
    seed = env ? (uint64_t)strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
    if (!seed) seed = 1;
    g_rng = seed;
    printf("test_onnx: seed %llu (AICF_TEST_SEED=%llu repeats it)\n", (unsigned long long)seed, (unsigned long long)seed);
    env = getenv("TMPDIR");
    snprintf(g_tmp, sizeof(g_tmp), "%s", env && *env ? env : "/tmp");
    env = getenv("AICF_TEST_DATA");
    snprintf(g_data, sizeof(g_data), "%s", env && *env ? env : "../shared/data");
    memset(&cd, 0, sizeof(cd));
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &g_ctx) != AICF_SUCCESS) {
        printf("FAIL aicf_context_create\n0 passed, 1 failed\n");
        return 1;
    }
    test_valid_model();
    test_errors();
    test_external();
    test_truncations_handmade();
    test_real_model();
    test_pb_roundtrip();
    test_fuzz_handmade();
    aicf_context_destroy(g_ctx);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
