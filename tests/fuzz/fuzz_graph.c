/* libFuzzer target: sequences of graph-building calls decoded from the input bytes, then plan +
   run on the CPU.

   Each command starts with one byte (value % 8): 0 add_input, 1 add_constant, 2-4 add_node (op
   type drawn from aicf's op list, plus unknown / empty / foreign-domain ones; 0-4 inputs,
   sometimes up to 20; 1-2 outputs; 0-3 attributes named as the ops read them, of every attribute
   type, with small, boundary and absurd values), 5 add_output, 6 bind_dim, 7 set_opset or
   bind_input_value. Shapes are mostly small (1..4) with zeros, symbolic dims ("N", "M", "K",
   "B"), negative, 2^31, 2^40 and INT64_MAX mixed in; rank is 0..4, sometimes up to 9. At the end
   every symbolic dim is bound to a small value, small integer inputs become constants, and the
   graph is planned on the CPU and run when the work is bounded (fuzz_common.h). 1 input in 16
   also fails one allocation. GRAPH attributes carry small subgraphs (fz_subgraph: outer
   references, nested If up to depth 10, the same graph given twice); on a failed add_node the
   subgraphs stay with the caller and are destroyed here. */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../aicf.h"
#include "fuzz_common.h"

#define FZ_MAX_CMDS 96
#define FZ_MAX_NAMES 160
#define FZ_MAX_BUFS 64

typedef struct fz_in {
    const uint8_t* d;
    size_t n, pos;
} fz_in;

static unsigned fz_u8(fz_in* in) { return in->pos < in->n ? in->d[in->pos++] : 0u; }

static const char* const fz_op_names[] = {
#define FZ_OP_NAME(name) #name,
    AICF__OPS(FZ_OP_NAME)
#undef FZ_OP_NAME
    "NoSuchOp", "", "Relu"};
#define FZ_N_OPS ((int)(sizeof fz_op_names / sizeof fz_op_names[0]))

static const char* const fz_attr_names[] = {
    "axis", "alpha", "beta", "shape", "axes", "value", "value_int", "value_float", "value_ints", "value_floats",
    "value_string", "value_strings", "size", "min", "max", "kernel_shape", "strides", "pads", "dilations", "group",
    "auto_pad", "ceil_mode", "count_include_pad", "storage_order", "perm", "to", "transA", "transB", "epsilon",
    "training_mode", "spatial", "bias", "allowzero", "keepdims", "start", "end", "broadcast", "gamma", "momentum",
    "sparse_value", "lambd", "fmod", "channels", "scale", "unknown_attr", "then_branch", "else_branch", "body"};
#define FZ_N_ATTR_NAMES ((int)(sizeof fz_attr_names / sizeof fz_attr_names[0]))

static const char* const fz_dim_names[4] = {"N", "M", "K", "B"};

static const aicf_dtype fz_dtypes[16] = {
    AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT32,
    AICF_DTYPE_INT64,   AICF_DTYPE_INT64,   AICF_DTYPE_INT64,   AICF_DTYPE_INT32,   AICF_DTYPE_BOOL,
    AICF_DTYPE_FLOAT16, AICF_DTYPE_FLOAT64, AICF_DTYPE_UINT8,   AICF_DTYPE_INT8,    AICF_DTYPE_STRING,
    (aicf_dtype)99};

typedef struct fz_state {
    fz_in in;
    fz_rng rng;
    aicf_graph* g;
    char names[FZ_MAX_NAMES][16];
    int n_names;
    int next_name;
    void* bufs[FZ_MAX_BUFS]; /* constant data (borrowed data must outlive the graph) */
    int n_bufs;
    int bound_value;         /* an aicf_graph_bind_input_value succeeded */
} fz_state;

/* known (regressions/graph/bind-dim-after-bind-input-value): bind_dim after bind_input_value
   re-shapes the constant without its data; AICF_FUZZ_ALLOW_KNOWN skips those bind_dim calls */
static int fz_may_bind_dim(const fz_state* s) { return !(AICF_FUZZ_ALLOW_KNOWN && s->bound_value); }

static int64_t fz_dim(fz_state* s, const char** param) {
    unsigned b = fz_u8(&s->in);
    static const int64_t special[8] = {0, -2, (int64_t)1 << 20, (int64_t)1 << 31, INT64_MAX, (int64_t)1 << 40, 65536, -1};
    *param = NULL;
    switch (b >> 5) {
    case 0: case 1: case 2: case 3: case 4: return 1 + (int64_t)(b & 3u);
    case 5: return (int64_t)(b & 7u);
    case 6: *param = fz_dim_names[b & 3u]; return -1;
    default: return special[b & 7u];
    }
}

static int fz_rank(fz_state* s) {
    unsigned r = fz_u8(&s->in);
    return r < 220 ? (int)(r % 5u) : (int)(r % 10u);
}

static int64_t fz_smallint(fz_state* s) {
    unsigned b = fz_u8(&s->in);
    static const int64_t special[8] = {INT64_MIN, INT64_MAX, (int64_t)1 << 31, -((int64_t)1 << 31), 1000000, -1000, 255, 65536};
    if (b < 240) return (int64_t)(b % 12u) - 3; /* -3..8 */
    return special[b & 7u];
}

static float fz_float(fz_state* s) {
    static const float v[16] = {0.0f, 1.0f, 0.5f, -1.0f, 1e-5f, 2.0f, 0.1f, -0.5f, 3.0f, 6.0f, 1e30f, -1e30f, 0.2f,
                                1.0f, 0.0f, 0.0f};
    unsigned b = fz_u8(&s->in);
    if (b == 255) return (float)NAN;
    if (b == 254) return (float)INFINITY;
    return v[b & 15u];
}

static const char* fz_pick_name(fz_state* s) {
    unsigned b = fz_u8(&s->in);
    if (s->n_names == 0 || b < 12) return b < 6 ? "" : "undefined_tensor";
    return s->names[b % (unsigned)s->n_names];
}

/* A fresh tensor name in buf; fz_commit_name adds it to the pool once aicf accepted it (so
   later commands mostly refer to tensors that exist). */
static const char* fz_new_name(fz_state* s, char* buf) {
    snprintf(buf, 16, "t%d", s->next_name++);
    return buf;
}

static void fz_commit_name(fz_state* s, const char* name) {
    if (s->n_names >= FZ_MAX_NAMES || !name || !name[0] || strlen(name) >= sizeof s->names[0]) return;
    snprintf(s->names[s->n_names++], sizeof s->names[0], "%s", name);
}

/* Builds a tensor description with data (for constants / TENSOR attributes). Returns 0 when the
   data buffer could not be allocated. dims/params must have AICF_MAX_RANK + 1 entries. */
static int fz_tensor_desc(fz_state* s, aicf_tensor_desc* d, int64_t* dims, const char** params, int with_data,
                          int small) {
    int i, ok = 1;
    size_t n = 1, es, bytes = 0;
    memset(d, 0, sizeof *d);
    d->dtype = fz_dtypes[fz_u8(&s->in) & 15u];
    d->rank = small ? (int)(fz_u8(&s->in) % 3u) : fz_rank(s);
    if (d->rank > AICF_MAX_RANK + 1) d->rank = AICF_MAX_RANK + 1;
    for (i = 0; i < d->rank; i++) {
        dims[i] = fz_dim(s, &params[i]);
        if (dims[i] < 0 || !aicf__mul_size(n, (size_t)dims[i], &n)) ok = 0;
    }
    d->dims = dims;
    d->dim_params = params;
    if (!with_data) return 1;
    for (i = 0; i < d->rank; i++) params[i] = NULL; /* constants cannot be symbolic (mostly) */
    if (fz_u8(&s->in) == 200) params[0] = "N";
    es = aicf_dtype_size(d->dtype);
    if (ok && es && aicf__mul_size(n, es, &bytes) && bytes <= ((size_t)1 << 20)) {
        unsigned adj = fz_u8(&s->in);
        unsigned char* buf;
        if (s->n_bufs >= FZ_MAX_BUFS) return 0;
        buf = (unsigned char*)malloc(bytes + 8);
        if (!buf) return 0;
        s->bufs[s->n_bufs++] = buf;
        if (d->dtype == AICF_DTYPE_INT64 || d->dtype == AICF_DTYPE_INT32) {
            size_t k, cnt = bytes / es;
            for (k = 0; k < cnt; k++) {
                int64_t v = fz_smallint(s);
                if (es == 8) memcpy(buf + 8 * k, &v, 8);
                else {
                    int32_t v32 = (int32_t)v;
                    memcpy(buf + 4 * k, &v32, 4);
                }
            }
        } else {
            fz_fill(&s->rng, d->dtype, buf, bytes);
        }
        memset(buf + bytes, 0x5a, 8);
        d->data = buf;
        d->data_bytes = bytes;
        if (adj == 201) d->data_bytes = bytes + 4; /* mismatching sizes (within the buffer) */
        if (adj == 202 && bytes) d->data_bytes = bytes - 1;
        if (adj == 203) d->data = NULL;
        d->borrow = (int)(adj & 1u);
    } else {
        static const unsigned char tiny[16] = {0};
        d->data = tiny; /* size cannot match: must be rejected without reading past 16 bytes */
        d->data_bytes = sizeof tiny;
    }
    return 1;
}

static void fz_cmd_input(fz_state* s, int constant) {
    aicf_tensor_desc d;
    int64_t dims[AICF_MAX_RANK + 1];
    const char* params[AICF_MAX_RANK + 1];
    unsigned nb = fz_u8(&s->in);
    char nbuf[16];
    const char* name;
    aicf_result r;
    if (!fz_tensor_desc(s, &d, dims, params, constant, 0)) return;
    name = nb < 8 ? fz_pick_name(s) : fz_new_name(s, nbuf); /* sometimes a duplicate or empty name */
    d.name = nb == 7 ? NULL : name;
    r = constant ? aicf_graph_add_constant(s->g, &d) : aicf_graph_add_input(s->g, &d);
    fz_check_err(s->g->ctx, r, constant ? "aicf_graph_add_constant" : "aicf_graph_add_input");
    if (r == AICF_SUCCESS && name == nbuf) fz_commit_name(s, nbuf);
}

/* A subgraph for a GRAPH attribute: one node (Identity / Relu / Neg of a name of the enclosing
   graphs, which becomes an outer reference, or an If on such a name with nested branches, up to
   depth 10: past AICF_MAX_SUBGRAPH_DEPTH) and one output. NULL if it could not be made. */
static aicf_graph* fz_subgraph(fz_state* s, int depth) {
    static const char* const ops[4] = {"Identity", "Relu", "Neg", "If"};
    aicf_graph* sg = NULL;
    aicf_node_desc nd;
    aicf_attr attrs[2];
    const char* in[1];
    const char* out[1];
    char oname[32];
    unsigned b = fz_u8(&s->in);
    int n_graphs = 0, i;
    aicf_result r;
    if (aicf_graph_create(s->g->ctx, &sg) != AICF_SUCCESS) return NULL;
    aicf__graph_set_subgraph(sg, 1);
    memset(&nd, 0, sizeof nd);
    memset(attrs, 0, sizeof attrs);
    snprintf(oname, sizeof oname, "sg%d_out", depth);
    in[0] = fz_pick_name(s);
    out[0] = oname;
    nd.op_type = ops[b & 3u];
    nd.inputs = in;
    nd.num_inputs = 1;
    nd.outputs = out;
    nd.num_outputs = 1;
    if ((b & 3u) == 3u && depth < 10) {
        attrs[0].name = "then_branch";
        attrs[0].type = AICF_ATTR_GRAPH;
        attrs[0].g = fz_subgraph(s, depth + 1);
        attrs[1].name = "else_branch";
        attrs[1].type = AICF_ATTR_GRAPH;
        attrs[1].g = (b & 4u) ? attrs[0].g : fz_subgraph(s, 100); /* the same graph twice: rejected */
        n_graphs = 2;
        nd.attrs = attrs;
        nd.num_attrs = 2;
    } else if ((b & 3u) == 3u) {
        nd.op_type = "Identity";
    }
    r = aicf_graph_add_node(sg, &nd);
    fz_check_err(s->g->ctx, r, "aicf_graph_add_node (subgraph)");
    if (r != AICF_SUCCESS) /* a failed node leaves its subgraphs with the caller */
        for (i = 0; i < n_graphs; i++)
            if (attrs[i].g && (i == 0 || attrs[i].g != attrs[0].g)) aicf_graph_destroy(attrs[i].g);
    if (!(b & 8u)) {
        r = aicf_graph_add_output(sg, oname);
        fz_check_err(s->g->ctx, r, "aicf_graph_add_output (subgraph)");
    }
    return sg;
}

static void fz_cmd_node(fz_state* s) {
    const char* inputs[20];
    const char* outputs[3];
    char obuf[3][16];
    aicf_attr attrs[4];
    int64_t ints[4][9];
    float floats[4][9];
    const char* strs[4][3];
    aicf_tensor_desc tds[4];
    int64_t tdims[4][AICF_MAX_RANK + 1];
    const char* tparams[4][AICF_MAX_RANK + 1];
    static const char* const svals[8] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "", "FLOAT", "foo", "INT"};
    aicf_node_desc nd;
    unsigned op = fz_u8(&s->in) % (unsigned)FZ_N_OPS, b;
    int i, k, n_in, n_out, n_attrs;
    aicf_result r;
    memset(&nd, 0, sizeof nd);
    memset(attrs, 0, sizeof attrs);
    nd.op_type = fz_op_names[op];
    if (op == (unsigned)FZ_N_OPS - 1) nd.domain = "com.microsoft";
    b = fz_u8(&s->in);
    n_in = b < 224 ? (int)(b % 6u) : (int)(b % 21u);
    for (i = 0; i < n_in; i++) inputs[i] = fz_pick_name(s);
    b = fz_u8(&s->in);
    n_out = b < 250 ? 1 + (int)(b % 2u) : (int)(b % 4u);
    for (i = 0; i < n_out; i++) {
        unsigned c = fz_u8(&s->in);
        outputs[i] = c < 4 ? fz_pick_name(s) : fz_new_name(s, obuf[i]);
    }
    n_attrs = (int)(fz_u8(&s->in) % 4u);
    for (i = 0; i < n_attrs; i++) {
        aicf_attr* a = &attrs[i];
        unsigned t = fz_u8(&s->in);
        a->name = fz_attr_names[fz_u8(&s->in) % (unsigned)FZ_N_ATTR_NAMES];
        switch (t % 10u) {
        case 0: case 1: a->type = AICF_ATTR_INT; a->i = fz_smallint(s); break;
        case 2: case 3:
            a->type = AICF_ATTR_INTS;
            a->count = (int)(fz_u8(&s->in) % 9u);
            for (k = 0; k < a->count; k++) ints[i][k] = fz_smallint(s);
            a->ints = ints[i];
            if (t == 252) a->count = -1;
            if (t == 242) a->ints = NULL;
            break;
        case 4: a->type = AICF_ATTR_FLOAT; a->f = fz_float(s); break;
        case 5:
            a->type = AICF_ATTR_FLOATS;
            a->count = (int)(fz_u8(&s->in) % 9u);
            for (k = 0; k < a->count; k++) floats[i][k] = fz_float(s);
            a->floats = floats[i];
            break;
        case 6: a->type = AICF_ATTR_STRING; a->s = svals[fz_u8(&s->in) & 7u]; break;
        case 7:
            a->type = AICF_ATTR_TENSOR;
            if (fz_tensor_desc(s, &tds[i], tdims[i], tparams[i], 1, 1)) a->t = &tds[i];
            break;
        case 8:
            a->type = AICF_ATTR_STRINGS;
            a->count = (int)(fz_u8(&s->in) % 4u);
            for (k = 0; k < a->count; k++) strs[i][k] = svals[fz_u8(&s->in) & 7u];
            a->strings = strs[i];
            break;
        default:
            if (t & 2u) {
                a->type = AICF_ATTR_GRAPH;
                a->g = (t & 4u) && i > 0 && attrs[0].type == AICF_ATTR_GRAPH ? attrs[0].g : fz_subgraph(s, 1);
            } else {
                a->type = (aicf_attr_type)(t & 1u ? 0 : 99);
            }
            break;
        }
    }
    nd.name = (fz_u8(&s->in) & 1u) ? "node" : NULL;
    nd.inputs = inputs;
    nd.num_inputs = n_in;
    nd.outputs = outputs;
    nd.num_outputs = n_out;
    nd.attrs = attrs;
    nd.num_attrs = n_attrs;
    r = aicf_graph_add_node(s->g, &nd);
    fz_check_err(s->g->ctx, r, "aicf_graph_add_node");
    if (r != AICF_SUCCESS) /* the subgraphs stay ours: destroy each distinct one */
        for (i = 0; i < n_attrs; i++)
            if (attrs[i].type == AICF_ATTR_GRAPH && attrs[i].g) {
                for (k = 0; k < i; k++)
                    if (attrs[k].type == AICF_ATTR_GRAPH && attrs[k].g == attrs[i].g) break;
                if (k == i) aicf_graph_destroy(attrs[i].g);
            }
    if (r == AICF_SUCCESS)
        for (i = 0; i < n_out; i++)
            if (outputs[i] == obuf[i]) fz_commit_name(s, obuf[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_heap heap;
    aicf_context* ctx;
    fz_state* s;
    aicf_result r;
    uint64_t h = fz_hash(data, size);
    int cmd, i;
    s = (fz_state*)calloc(1, sizeof *s);
    if (!s) return 0;
    ctx = fz_context(&heap, h, 1);
    /* known (regressions/graph/pop-tensor-index-rebuild-oom): an allocation failure inside
       aicf__pop_tensor corrupts the name index; AICF_FUZZ_ALLOW_KNOWN injects failures only
       from planning on */
    if (AICF_FUZZ_ALLOW_KNOWN) heap.fail_at = 0;
    if (!ctx) {
        free(s);
        return 0;
    }
    s->in.d = data;
    s->in.n = size;
    s->rng.s = h;
    r = aicf_graph_create(ctx, &s->g);
    if (r != AICF_SUCCESS) goto out;
    for (cmd = 0; cmd < FZ_MAX_CMDS && s->in.pos < s->in.n; cmd++) {
        unsigned c = fz_u8(&s->in);
        switch (c % 8u) {
        case 0: fz_cmd_input(s, 0); break;
        case 1: fz_cmd_input(s, 1); break;
        case 2: case 3: case 4: fz_cmd_node(s); break;
        case 5: {
            const char* nm = fz_pick_name(s);
            r = aicf_graph_add_output(s->g, nm);
            fz_check_err(ctx, r, "aicf_graph_add_output");
            break;
        }
        case 6: {
            const char* nm = fz_dim_names[fz_u8(&s->in) & 3u];
            int64_t v = fz_smallint(s);
            if (!fz_may_bind_dim(s)) break;
            r = aicf_graph_bind_dim(s->g, nm, v);
            fz_check_err(ctx, r, "aicf_graph_bind_dim");
            break;
        }
        default:
            if (c & 8u) {
                static const int64_t versions[16] = {1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18, 21, 0, 100000};
                unsigned v = fz_u8(&s->in);
                r = aicf_graph_set_opset(s->g, (v & 16u) ? "ai.onnx" : (v & 32u) ? "com.x" : "", versions[v & 15u]);
                fz_check_err(ctx, r, "aicf_graph_set_opset");
            } else {
                unsigned char buf[64];
                size_t nb = fz_u8(&s->in) % 65u;
                const char* nm = fz_pick_name(s);
                fz_fill(&s->rng, AICF_DTYPE_UINT8, buf, nb);
                r = aicf_graph_bind_input_value(s->g, nm, buf, nb);
                fz_check_err(ctx, r, "aicf_graph_bind_input_value");
                if (r == AICF_SUCCESS) s->bound_value = 1;
            }
            break;
        }
    }
    /* invariants of the built graph */
    for (i = 0; i < aicf_graph_num_inputs(s->g); i++) {
        aicf_tensor_info ti;
        if (aicf_graph_input_info(s->g, i, &ti) != AICF_SUCCESS || !ti.name) fz_fail("aicf_graph_input_info", "bad info");
    }
    if (aicf_graph_num_outputs(s->g) == 0 && s->n_names > 0) (void)aicf_graph_add_output(s->g, s->names[s->n_names - 1]);
    for (i = 0; i < 4 && fz_may_bind_dim(s); i++) (void)aicf_graph_bind_dim(s->g, fz_dim_names[i], 1 + i % 3);
    fz_bind_small_int_inputs(s->g, &s->rng);
    if (AICF_FUZZ_ALLOW_KNOWN) fz_arm(&heap);
    fz_run_plan(ctx, s->g, &s->rng);
    aicf_graph_destroy(s->g);
out:
    fz_context_done(ctx, &heap);
    for (i = 0; i < s->n_bufs; i++) free(s->bufs[i]);
    free(s);
    return 0;
}
