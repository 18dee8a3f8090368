/* >>ops ===================================================================================== */
/* Shape inference (aicf__op_infer) and the CPU reference (aicf__cpu_run) of every op in
   AICF__OPS, with the semantics of the ONNX operator specification
   (https://github.com/onnx/onnx/blob/main/docs/Operators.md) at the graph's default-domain
   opset (g->opset, 0 = latest).

   Data types: the math ops compute in float32 (long sums - reductions, normalizations, Einsum,
   Resize - accumulate in double and round once). FLOAT32 is accepted everywhere. Integer types
   also where shape arithmetic and exported graphs need them, computed exactly in int64
   (wrapping): Add, Sub, Mul, Div, Max, Min, Sum, Pow, Mod, Neg, Abs, Sign, Relu, Clip, CumSum,
   CumProd, ReduceSum/Prod/Max/Min, ArgMax/ArgMin, Range, the comparisons and the bitwise ops.
   The ops that only move, select or compare elements (Identity, Reshape, Flatten, Squeeze,
   Unsqueeze, Concat, Transpose, Gather*, Scatter*, Slice, Split, Pad, Tile, Expand, Where,
   Trilu, DepthToSpace, SpaceToDepth, OneHot, Equal, Shape, Size, Constant, ConstantOfShape, Cast,
   CastLike, NonZero, TopK; Max/Min also on float16/bfloat16/float64) take every fixed-size type
   (float32/64, float16, bfloat16, int8..int64, uint8..uint64, bool). Anything else is
   AICF_ERROR_UNSUPPORTED naming the node, input and dtype. Index inputs (Gather indices, Slice
   starts/ends/axes/steps, Pad pads, Reduce axes, ...) may be int32 or int64; negative indices
   count from the end; an index out of range is AICF_ERROR_INVALID_MODEL when it is a constant,
   AICF_ERROR_INVALID_ARGUMENT at run time. Comparisons produce BOOL (1 byte).

   Inputs that decide an output shape (Reshape's shape, Slice's starts, Pad's pads, Resize's
   scales/sizes, Range's bounds, OneHot's depth, Tile's repeats, Expand's shape, Split's split,
   TopK's K, the axes of the Reduce ops, Squeeze and Unsqueeze, NonZero's input) must be constants at plan
   time; otherwise AICF_ERROR_UNSUPPORTED "input N 'name' must be a constant at plan time".

   The CPU reference is plain C written for obviousness, not speed: deterministic, no allocation
   per element, outputs row-major and tightly packed. Conv, ConvTranspose and the pools work on
   1-D, 2-D and 3-D NCHW data (spatial dims normalised to three, leading ones of size 1). Inputs
   at addresses not aligned to their element size (constants borrowed from a model file) are
   copied to aligned memory for the call.

   Where ONNX leaves a result open, aicf chooses (as ONNX Runtime unless noted):
   - integer Add/Sub/Mul wrap (two's complement); Div truncates toward zero; an integer
     division or Mod by zero fails the run with AICF_ERROR_INVALID_ARGUMENT;
   - Cast float -> integer truncates toward zero and saturates to the type's range, NaN -> 0;
     integer narrowing wraps (as numpy); float64 -> float16 rounds once, to nearest even;
     float -> bfloat16 rounds to nearest even;
   - Max/Min propagate NaN (as numpy); a pooling window that covers no input element (only
     possible with dilations) gives -FLT_MAX (MaxPool) or 0 (AveragePool);
   - pools with ceil_mode drop a last window that would start in the right padding, and
     count_include_pad divides by the window elements inside the explicitly padded input;
   - Slice clamps as the operator text says (starts to [0, n] / [0, n-1] for negative steps);
   - Pad with negative pads crops first, then pads the cropped tensor (reflect/edge/wrap read
     the cropped tensor);
   - Reduce* with empty axes and noop_with_empty_axes = 1 is the identity for every op (the
     text of the spec; the Python reference squares for ReduceSumSquare);
   - Split without sizes: ceil(n / outputs) per output and a smaller last one (the reference);
   - Resize follows the ONNX reference: separable, one axis at a time in the order of `axes`,
     in double; Resize-10 and Upsample use asymmetric coordinates and nearest floor (ceil when
     downsampling, as ONNX Runtime);
   - TopK orders equal values by index (lowest first); sorted = 0 gives the same order;
   - Einsum accepts any equation numpy does (the implicit output orders labels by ASCII). */

#define AICF__OP_OPSET_LATEST ((int64_t)1 << 30) /* g->opset == 0: every "before opset N" rule is off */
#define AICF__OP_TRY(expr)                                                                       \
    do {                                                                                         \
        aicf_result aicf__op_r_ = (expr);                                                        \
        if (aicf__op_r_ != AICF_SUCCESS) return aicf__op_r_;                                     \
    } while (0)
/* Largest kernel/stride/dilation/pad/size value accepted: keeps (kernel - 1) * dilation + pads
   well inside int64. */
#define AICF__OP_MAX_WINDOW ((int64_t)1 << 30)

#if defined(__GNUC__) || defined(__clang__)
#  define AICF__OP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define AICF__OP_PRINTF(a, b)
#endif

/* Per-node working context. */
typedef struct aicf__opc {
    aicf_graph* g;
    aicf_context* ctx;
    aicf__node* n;
    int ni;
    int64_t opset;
} aicf__opc;

static void aicf__opc_init(aicf__opc* c, aicf_graph* g, int ni) {
    c->g = g;
    c->ctx = g->ctx;
    c->n = &g->nodes[ni];
    c->ni = ni;
    c->opset = g->opset > 0 ? g->opset : AICF__OP_OPSET_LATEST;
}

static aicf_result aicf__op_err(const aicf__opc* c, aicf_result code, const char* fmt, ...) AICF__OP_PRINTF(3, 4);
static aicf_result aicf__op_err(const aicf__opc* c, aicf_result code, const char* fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return aicf__err(c->ctx, code, "node %d '%.200s' (%.64s): %s", c->ni,
                     c->n->name ? c->n->name : "", c->n->op_type ? c->n->op_type : "?", msg);
}

/* ---- inputs, outputs ---- */

/* Number of inputs up to the last present one (trailing omitted optional inputs dropped). */
static int aicf__op_nin(const aicf__node* n) {
    int k = n->n_in;
    while (k > 0 && n->in[k - 1] < 0) k--;
    return k;
}

static int aicf__op_nout(const aicf__node* n) {
    int k = n->n_out;
    while (k > 0 && n->out[k - 1] < 0) k--;
    return k;
}

static aicf__tensor* aicf__op_in(const aicf__opc* c, int i) {
    if (i < 0 || i >= c->n->n_in || c->n->in[i] < 0) return NULL;
    return &c->g->tensors[c->n->in[i]];
}

static aicf__tensor* aicf__op_out(const aicf__opc* c, int i) {
    if (i < 0 || i >= c->n->n_out || c->n->out[i] < 0) return NULL;
    return &c->g->tensors[c->n->out[i]];
}

static const char* aicf__op_in_name(const aicf__opc* c, int i) {
    const aicf__tensor* t = aicf__op_in(c, i);
    return t && t->name ? t->name : "";
}

static const char* aicf__op_out_name(const aicf__opc* c, int i) {
    const aicf__tensor* t = aicf__op_out(c, i);
    return t && t->name ? t->name : "";
}

static const char* aicf__op_sstr(const aicf__shape* s, char* buf, size_t cap) {
    return aicf__shape_str(s, buf, cap);
}

/* Checks the input/output counts and that every present input has a known, bound shape. */
static aicf_result aicf__op_check_io(const aicf__opc* c, int min_in, int max_in, int min_out, int max_out) {
    int nin = aicf__op_nin(c->n), nout = aicf__op_nout(c->n), i, k;
    if (nin < min_in || nin > max_in) {
        if (min_in == max_in && c->opset == AICF__OP_OPSET_LATEST)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d (latest opset)", nin, min_in);
        if (min_in == max_in)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d at opset %lld", nin, min_in,
                              (long long)c->opset);
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d to %d", nin, min_in, max_in);
    }
    if (nout < min_out || nout > max_out)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d outputs; expected %d to %d", nout, min_out, max_out);
    for (i = 0; i < min_in; i++)
        if (c->n->in[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required input %d is omitted", i);
    for (i = 0; i < min_out; i++)
        if (c->n->out[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required output %d is omitted", i);
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        if (!t) continue;
        if (!t->shape_known)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' has no known shape", i, t->name ? t->name : "");
        if (t->shape.rank < 0 || t->shape.rank > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' has rank %d (limit %d)", i, t->name ? t->name : "",
                              t->shape.rank, AICF_MAX_RANK);
        for (k = 0; k < t->shape.rank; k++)
            if (t->shape.d[k] < 0)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' has unbound dimension %d ('%.100s')", i,
                                  t->name ? t->name : "", k, t->dim_param[k] ? t->dim_param[k] : "?");
    }
    return AICF_SUCCESS;
}

/* Records output i's dtype and shape (nothing when the output is omitted). */
static aicf_result aicf__op_set_out(const aicf__opc* c, int i, aicf_dtype dt, const aicf__shape* s) {
    aicf__tensor* t = aicf__op_out(c, i);
    int64_t ne;
    size_t esz = aicf_dtype_size(dt);
    char buf[160];
    if (!t) return AICF_SUCCESS;
    ne = aicf__shape_numel(s);
    if (s->rank > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output %d '%.200s' would have rank %d (limit %d)", i,
                          aicf__op_out_name(c, i), s->rank, AICF_MAX_RANK);
    if (ne < 0 || esz == 0 || (uint64_t)ne > AICF_MAX_TENSOR_BYTES / esz)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output %d '%.200s' shape %s exceeds %llu bytes", i,
                          aicf__op_out_name(c, i), aicf__op_sstr(s, buf, sizeof buf),
                          (unsigned long long)AICF_MAX_TENSOR_BYTES);
    t->dtype = dt;
    t->shape = *s;
    t->shape_known = 1;
    return AICF_SUCCESS;
}

/* ---- data types ---- */
#define AICF__OP_DTM(dt) (1u << (unsigned)(dt))
#define AICF__OP_DTM_F32 AICF__OP_DTM(AICF_DTYPE_FLOAT32)
#define AICF__OP_DTM_INT (AICF__OP_DTM(AICF_DTYPE_INT64) | AICF__OP_DTM(AICF_DTYPE_INT32))
static int aicf__op_dt_in(aicf_dtype dt, unsigned mask) {
    return (int)dt > 0 && (int)dt < 32 && (mask & AICF__OP_DTM(dt)) != 0;
}

/* Every fixed-size type, for the ops that only move, compare or index elements. */
#define AICF__OP_DTM_SINT                                                                         \
    (AICF__OP_DTM(AICF_DTYPE_INT8) | AICF__OP_DTM(AICF_DTYPE_INT16) | AICF__OP_DTM(AICF_DTYPE_INT32) |   \
     AICF__OP_DTM(AICF_DTYPE_INT64))
#define AICF__OP_DTM_UINT                                                                         \
    (AICF__OP_DTM(AICF_DTYPE_UINT8) | AICF__OP_DTM(AICF_DTYPE_UINT16) | AICF__OP_DTM(AICF_DTYPE_UINT32) | \
     AICF__OP_DTM(AICF_DTYPE_UINT64))
#define AICF__OP_DTM_INTS (AICF__OP_DTM_SINT | AICF__OP_DTM_UINT)
#define AICF__OP_DTM_FLOATS                                                                       \
    (AICF__OP_DTM_F32 | AICF__OP_DTM(AICF_DTYPE_FLOAT64) | AICF__OP_DTM(AICF_DTYPE_FLOAT16) |           \
     AICF__OP_DTM(AICF_DTYPE_BFLOAT16))
#define AICF__OP_DTM_NUM (AICF__OP_DTM_FLOATS | AICF__OP_DTM_INTS)
#define AICF__OP_DTM_ALL (AICF__OP_DTM_NUM | AICF__OP_DTM(AICF_DTYPE_BOOL))

static int aicf__op_dt_isfloat(aicf_dtype dt) { return aicf__op_dt_in(dt, AICF__OP_DTM_FLOATS); }

static float aicf__op_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* float32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN */
static uint16_t aicf__op_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static uint16_t aicf__op_f64_to_f16(double v);
static int64_t aicf__op_f2i(double v, int64_t lo, int64_t hi);
static int64_t aicf__op_int_limit(aicf_dtype dt, int high);
static void aicf__op_copy_el(void* dst, int64_t di, const void* src, int64_t si, size_t esz);

/* Element i of a tensor of any fixed-size type, as double (uint64/int64 beyond 2^53 round). */
static double aicf__op_getd(aicf_dtype dt, const void* p, int64_t i) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: return ((const float*)p)[i];
    case AICF_DTYPE_FLOAT64: return ((const double*)p)[i];
    case AICF_DTYPE_FLOAT16: return aicf__f16_to_f32(((const uint16_t*)p)[i]);
    case AICF_DTYPE_BFLOAT16: return aicf__op_bf16_to_f32(((const uint16_t*)p)[i]);
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8: return ((const uint8_t*)p)[i];
    case AICF_DTYPE_INT16: return ((const int16_t*)p)[i];
    case AICF_DTYPE_UINT16: return ((const uint16_t*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_UINT32: return ((const uint32_t*)p)[i];
    case AICF_DTYPE_INT64: return (double)((const int64_t*)p)[i];
    case AICF_DTYPE_UINT64: return (double)((const uint64_t*)p)[i];
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i] != 0;
    default: return 0.0;
    }
}

/* Element i as int64: integers exactly (uint64 as its two's complement bits), floats truncated
   toward zero and saturated. */
static int64_t aicf__op_geti(aicf_dtype dt, const void* p, int64_t i) {
    switch (dt) {
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8: return ((const uint8_t*)p)[i];
    case AICF_DTYPE_INT16: return ((const int16_t*)p)[i];
    case AICF_DTYPE_UINT16: return ((const uint16_t*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_UINT32: return ((const uint32_t*)p)[i];
    case AICF_DTYPE_INT64: return ((const int64_t*)p)[i];
    case AICF_DTYPE_UINT64: return (int64_t)((const uint64_t*)p)[i];
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i] != 0;
    default: return aicf__op_f2i(aicf__op_getd(dt, p, i), INT64_MIN, INT64_MAX);
    }
}

/* Stores an int64 into element i; integer types wrap (two's complement). */
static void aicf__op_seti(aicf_dtype dt, void* p, int64_t i, int64_t v) {
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case AICF_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)(uint8_t)u; break;
    case AICF_DTYPE_UINT8: ((uint8_t*)p)[i] = (uint8_t)u; break;
    case AICF_DTYPE_INT16: ((int16_t*)p)[i] = (int16_t)(uint16_t)u; break;
    case AICF_DTYPE_UINT16: ((uint16_t*)p)[i] = (uint16_t)u; break;
    case AICF_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)(uint32_t)u; break;
    case AICF_DTYPE_UINT32: ((uint32_t*)p)[i] = (uint32_t)u; break;
    case AICF_DTYPE_INT64: ((int64_t*)p)[i] = v; break;
    case AICF_DTYPE_UINT64: ((uint64_t*)p)[i] = u; break;
    case AICF_DTYPE_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0); break;
    case AICF_DTYPE_FLOAT32: ((float*)p)[i] = (float)v; break;
    case AICF_DTYPE_FLOAT64: ((double*)p)[i] = (double)v; break;
    case AICF_DTYPE_FLOAT16: ((uint16_t*)p)[i] = aicf__op_f64_to_f16((double)v); break;
    case AICF_DTYPE_BFLOAT16: ((uint16_t*)p)[i] = aicf__op_f32_to_bf16((float)v); break;
    default: break;
    }
}

/* Stores a double into element i (float types round; integer types truncate and saturate). */
static void aicf__op_setd(aicf_dtype dt, void* p, int64_t i, double v) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: ((float*)p)[i] = (float)v; break;
    case AICF_DTYPE_FLOAT64: ((double*)p)[i] = v; break;
    case AICF_DTYPE_FLOAT16: ((uint16_t*)p)[i] = aicf__op_f64_to_f16(v); break;
    case AICF_DTYPE_BFLOAT16: ((uint16_t*)p)[i] = aicf__op_f32_to_bf16((float)v); break;
    case AICF_DTYPE_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0.0); break;
    case AICF_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)aicf__op_f2i(v, -128, 127); break;
    case AICF_DTYPE_UINT8: ((uint8_t*)p)[i] = (uint8_t)aicf__op_f2i(v, 0, 255); break;
    case AICF_DTYPE_INT16: ((int16_t*)p)[i] = (int16_t)aicf__op_f2i(v, -32768, 32767); break;
    case AICF_DTYPE_UINT16: ((uint16_t*)p)[i] = (uint16_t)aicf__op_f2i(v, 0, 65535); break;
    case AICF_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)aicf__op_f2i(v, INT32_MIN, INT32_MAX); break;
    case AICF_DTYPE_UINT32: ((uint32_t*)p)[i] = (uint32_t)aicf__op_f2i(v, 0, (int64_t)UINT32_MAX); break;
    case AICF_DTYPE_INT64: ((int64_t*)p)[i] = aicf__op_f2i(v, INT64_MIN, INT64_MAX); break;
    case AICF_DTYPE_UINT64:
        ((uint64_t*)p)[i] = v != v || v <= 0.0 ? 0u : (v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v);
        break;
    default: break;
    }
}

static const char* aicf__op_dtm_str(unsigned mask, char* buf, size_t cap) {
    int dt;
    size_t len = 0;
    buf[0] = 0;
    for (dt = 1; dt < 32; dt++) {
        if (!(mask & AICF__OP_DTM(dt))) continue;
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "", aicf_dtype_name((aicf_dtype)dt));
        if (len >= cap) break;
    }
    return buf;
}

static aicf_result aicf__op_check_dt(const aicf__opc* c, int i, unsigned mask) {
    const aicf__tensor* t = aicf__op_in(c, i);
    char buf[160];
    if (!t || aicf__op_dt_in(t->dtype, mask)) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' has data type %s, which is not supported here (supported: %s)",
                      i, aicf__op_in_name(c, i), aicf_dtype_name(t->dtype), aicf__op_dtm_str(mask, buf, sizeof buf));
}

/* Input i must have the same dtype as input j. */
static aicf_result aicf__op_same_dt(const aicf__opc* c, int i, int j) {
    const aicf__tensor* a = aicf__op_in(c, i);
    const aicf__tensor* b = aicf__op_in(c, j);
    if (!a || !b || a->dtype == b->dtype) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' has data type %s but input %d '%.200s' has %s", i,
                      aicf__op_in_name(c, i), aicf_dtype_name(a->dtype), j, aicf__op_in_name(c, j),
                      aicf_dtype_name(b->dtype));
}

/* ---- attributes (type-checked) ---- */
static aicf_result aicf__op_attr_type(const aicf__opc* c, const aicf__attrv* a, aicf_attr_type want, const char* tname) {
    if (a->type == want) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' must be of type %s", a->name ? a->name : "", tname);
}

static aicf_result aicf__op_ai(const aicf__opc* c, const char* name, int64_t def, int64_t* v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INT, "INT"));
    *v = a->i;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_af(const aicf__opc* c, const char* name, float def, float* v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_FLOAT, "FLOAT"));
    *v = a->f;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_as(const aicf__opc* c, const char* name, const char* def, const char** v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_STRING, "STRING"));
    *v = a->s ? a->s : "";
    return AICF_SUCCESS;
}

/* INTS attribute: *count = -1 when absent. */
static aicf_result aicf__op_aints(const aicf__opc* c, const char* name, const int64_t** vals, int* count) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *vals = NULL;
    *count = -1;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INTS, "INTS"));
    *vals = a->ints;
    *count = a->count;
    return AICF_SUCCESS;
}

/* Reads constant input i, an int64 (or int32) tensor of rank 0 or 1 with at most `cap` values, into vals.
   `what` names the input in the message ("shape", "axes"). */
static aicf_result aicf__op_const_ints(const aicf__opc* c, int i, const char* what, int64_t* vals, int cap, int* count) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t ne, k;
    size_t esz;
    *count = -1;
    if (!t) return AICF_SUCCESS;
    if (!(t->flags & AICF__T_CONST) || (!t->data && aicf__shape_numel(&t->shape) != 0))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    if (t->dtype != AICF_DTYPE_INT64 && t->dtype != AICF_DTYPE_INT32)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be int64 or int32, not %s", i,
                          aicf__op_in_name(c, i), what, aicf_dtype_name(t->dtype));
    if (t->shape.rank > 1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be 1-D, has rank %d", i,
                          aicf__op_in_name(c, i), what, t->shape.rank);
    ne = aicf__shape_numel(&t->shape);
    if (ne < 0 || ne > cap)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i,
                          aicf__op_in_name(c, i), what, (long long)ne, cap);
    esz = aicf_dtype_size(t->dtype);
    if (t->data_bytes < (size_t)ne * esz)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds %zu bytes, needs %zu", i,
                          aicf__op_in_name(c, i), what, t->data_bytes, (size_t)ne * esz);
    for (k = 0; k < ne; k++) {
        if (esz == 8) {
            memcpy(&vals[k], (const unsigned char*)t->data + k * 8, 8);
        } else {
            int32_t v32;
            memcpy(&v32, (const unsigned char*)t->data + k * 4, 4);
            vals[k] = v32;
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* Normalises axis `a` of a rank-r tensor to [0, r); error when outside [-r, r). */
static aicf_result aicf__op_axis(const aicf__opc* c, const char* what, int64_t a, int r, int* out) {
    *out = 0;
    if (a < -(int64_t)r || a >= (int64_t)r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s %lld is out of range for rank %d", what, (long long)a, r);
    *out = (int)(a < 0 ? a + r : a);
    return AICF_SUCCESS;
}

static int64_t aicf__op_prod(const int64_t* d, int from, int to) {
    int64_t p = 1;
    int i;
    for (i = from; i < to; i++) p *= d[i];
    return p;
}

static void aicf__op_shape_set(aicf__shape* s, int rank, const int64_t* d) {
    int i;
    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (i = 0; i < rank; i++) s->d[i] = d[i];
}

/* Element count of a (validated) shape as size_t. */
static size_t aicf__op_numel(const aicf__shape* s) {
    int64_t n = aicf__shape_numel(s);
    return n < 0 ? 0 : (size_t)n;
}

static size_t aicf__op_tbytes(const aicf__tensor* t) {
    return aicf__op_numel(&t->shape) * aicf_dtype_size(t->dtype);
}

/* ---- broadcasting ---- */

/* Multidirectional (numpy) broadcast of a and b into out; 0 when incompatible. */
static int aicf__op_bcast2(const aicf__shape* a, const aicf__shape* b, aicf__shape* out) {
    int r = AICF__MAX(a->rank, b->rank), i;
    aicf__shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        if (da == db || db == 1) o.d[i] = da;
        else if (da == 1) o.d[i] = db;
        else return 0;
    }
    *out = o;
    return 1;
}

/* Element strides of `in` read as the (broadcast) shape `out`: 0 along broadcast dims. */
static void aicf__op_bcast_strides(const aicf__shape* in, const aicf__shape* out, int64_t* st) {
    int i, r = out->rank;
    int64_t s = 1;
    for (i = r - 1; i >= 0; i--) {
        int ii = in->rank - r + i;
        if (ii < 0 || in->d[ii] == 1) st[i] = 0;
        else st[i] = s;
        if (ii >= 0) s *= in->d[ii];
    }
}

/* Odometer over the leading rank-1 dims of a shape, tracking offsets into up to 3 operands. */
typedef struct aicf__op_iter {
    int r;               /* rank - 1 outer dims */
    int64_t idx[AICF_MAX_RANK];
    const int64_t* dims;
    const int64_t* st[3];
    int64_t off[3];
    int nop;
} aicf__op_iter;

static void aicf__op_iter_init(aicf__op_iter* it, const aicf__shape* s, int nop, const int64_t* st0, const int64_t* st1,
                            const int64_t* st2) {
    memset(it, 0, sizeof *it);
    it->r = s->rank > 0 ? s->rank - 1 : 0;
    it->dims = s->d;
    it->nop = nop;
    it->st[0] = st0;
    it->st[1] = st1;
    it->st[2] = st2;
}

static void aicf__op_iter_next(aicf__op_iter* it) {
    int d, k;
    for (d = it->r - 1; d >= 0; d--) {
        it->idx[d]++;
        for (k = 0; k < it->nop; k++) it->off[k] += it->st[k][d];
        if (it->idx[d] < it->dims[d]) return;
        for (k = 0; k < it->nop; k++) it->off[k] -= it->st[k][d] * it->dims[d];
        it->idx[d] = 0;
    }
}

/* Element odometer over a shape, tracking offsets into up to 3 operands. */
typedef struct aicf__op_ix {
    int r;
    int n;
    const int64_t* d;
    int64_t idx[AICF_MAX_RANK];
    int64_t st[3][AICF_MAX_RANK];
    int64_t off[3];
} aicf__op_ix;

static void aicf__op_ix_init(aicf__op_ix* it, const aicf__shape* s, int n) {
    memset(it, 0, sizeof *it);
    it->r = s->rank;
    it->n = n;
    it->d = s->d;
}

static void aicf__op_ix_next(aicf__op_ix* it) {
    int k, j;
    for (k = it->r - 1; k >= 0; k--) {
        for (j = 0; j < it->n; j++) it->off[j] += it->st[j][k];
        if (++it->idx[k] < it->d[k]) return;
        for (j = 0; j < it->n; j++) it->off[j] -= it->st[j][k] * it->d[k];
        it->idx[k] = 0;
    }
}

/* Row-major element strides of a shape. */
static void aicf__op_strides(const aicf__shape* s, int64_t* st) {
    int i;
    int64_t m = 1;
    for (i = s->rank - 1; i >= 0; i--) {
        st[i] = m;
        m *= s->d[i];
    }
}

/* ============================================================================================
   Elementwise ops
   ============================================================================================ */

/* log(1 + e^x) without overflow */
static float aicf__op_softplus(float x) {
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
}

static float aicf__op_unary_f(aicf__op op, float x, float alpha, float beta) {
    switch (op) {
    case AICF__OP_Relu: return x < 0.0f ? 0.0f : x;
    case AICF__OP_Tanh: return tanhf(x);
    case AICF__OP_Sigmoid:
        if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
        else {
            float e = expf(x);
            return e / (1.0f + e);
        }
    case AICF__OP_Exp: return expf(x);
    case AICF__OP_Log: return logf(x);
    case AICF__OP_Sqrt: return sqrtf(x);
    case AICF__OP_Neg: return -x;
    case AICF__OP_Abs: return fabsf(x);
    case AICF__OP_Reciprocal: return 1.0f / x;
    case AICF__OP_Erf: return erff(x);
    case AICF__OP_LeakyRelu: return x < 0.0f ? alpha * x : x;
    case AICF__OP_Elu: return x < 0.0f ? alpha * expm1f(x) : x;
    case AICF__OP_HardSigmoid: {
        float v = alpha * x + beta;
        return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case AICF__OP_HardSwish: {
        float v = x * (1.0f / 6.0f) + 0.5f;
        v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
        return x * v;
    }
    case AICF__OP_Clip: {
        float v = x < alpha ? alpha : x; /* NaN stays NaN */
        return v > beta ? beta : v;
    }
    case AICF__OP_Floor: return floorf(x);
    case AICF__OP_Ceil: return ceilf(x);
    case AICF__OP_Round: return rintf(x); /* halves to even (the default rounding mode) */
    case AICF__OP_Sign: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
    case AICF__OP_Softplus: return aicf__op_softplus(x);
    case AICF__OP_Softsign: return x / (1.0f + fabsf(x));
    case AICF__OP_Selu: return x > 0.0f ? beta * x : beta * alpha * expm1f(x);
    case AICF__OP_Celu: return (x > 0.0f ? x : 0.0f) + (x < 0.0f ? alpha * expm1f(x / alpha) : 0.0f);
    case AICF__OP_ThresholdedRelu: return x > alpha ? x : 0.0f;
    case AICF__OP_Sin: return sinf(x);
    case AICF__OP_Cos: return cosf(x);
    case AICF__OP_Tan: return tanf(x);
    case AICF__OP_Asin: return asinf(x);
    case AICF__OP_Acos: return acosf(x);
    case AICF__OP_Atan: return atanf(x);
    case AICF__OP_Sinh: return sinhf(x);
    case AICF__OP_Cosh: return coshf(x);
    case AICF__OP_Asinh: return asinhf(x);
    case AICF__OP_Acosh: return acoshf(x);
    case AICF__OP_Atanh: return atanhf(x);
    case AICF__OP_Gelu:
        if (alpha != 0.0f) { /* approximate = "tanh" */
            float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
            return 0.5f * x * (1.0f + tanhf(u));
        }
        return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case AICF__OP_Mish: return x * tanhf(aicf__op_softplus(x));
    case AICF__OP_Shrink: return x < -alpha ? x + beta : (x > alpha ? x - beta : 0.0f);
    case AICF__OP_Swish: return x * aicf__op_unary_f(AICF__OP_Sigmoid, alpha * x, 0.0f, 0.0f);
    default: return x;
    }
}

/* alpha/beta of the parametrised unary ops (Clip: min/max from the attributes of opset < 11). */
static aicf_result aicf__op_unary_params(const aicf__opc* c, float* alpha, float* beta) {
    *alpha = 0.0f;
    *beta = 0.0f;
    switch (c->n->op) {
    case AICF__OP_LeakyRelu: return aicf__op_af(c, "alpha", 0.01f, alpha);
    case AICF__OP_Elu: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_HardSigmoid:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 0.2f, alpha));
        return aicf__op_af(c, "beta", 0.5f, beta);
    case AICF__OP_Clip:
        if (c->opset < 11) {
            AICF__OP_TRY(aicf__op_af(c, "min", -3.402823466e+38f, alpha));
            return aicf__op_af(c, "max", 3.402823466e+38f, beta);
        }
        *alpha = -INFINITY;
        *beta = INFINITY;
        return AICF_SUCCESS;
    case AICF__OP_Selu:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 1.67326319217681884765625f, alpha));
        return aicf__op_af(c, "gamma", 1.05070102214813232421875f, beta);
    case AICF__OP_Celu:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 1.0f, alpha));
        if (*alpha == 0.0f) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'alpha' must not be 0");
        return AICF_SUCCESS;
    case AICF__OP_ThresholdedRelu: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_Swish: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_Shrink:
        AICF__OP_TRY(aicf__op_af(c, "lambd", 0.5f, alpha));
        return aicf__op_af(c, "bias", 0.0f, beta);
    case AICF__OP_Gelu: {
        const char* ap;
        AICF__OP_TRY(aicf__op_as(c, "approximate", "none", &ap));
        if (!strcmp(ap, "tanh")) *alpha = 1.0f;
        else if (strcmp(ap, "none") != 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'approximate' is '%.40s'; expected none or tanh", ap);
        return AICF_SUCCESS;
    }
    default: return AICF_SUCCESS;
    }
}

/* Unary ops that also take signed integers (computed exactly in int64). */
static int aicf__op_unary_int_ok(aicf__op op) {
    return op == AICF__OP_Neg || op == AICF__OP_Abs || op == AICF__OP_Sign || op == AICF__OP_Relu;
}

static aicf_result aicf__op_infer_unary(const aicf__opc* c) {
    const aicf__tensor* x;
    float a, b;
    int max_in = 1;
    if (c->n->op == AICF__OP_Clip && c->opset >= 11) max_in = 3;
    AICF__OP_TRY(aicf__op_check_io(c, 1, max_in, 1, 1));
    if (c->n->op == AICF__OP_Clip && c->opset >= 11)
        AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32 | AICF__OP_DTM_INTS));
    else
        AICF__OP_TRY(aicf__op_check_dt(c, 0, aicf__op_unary_int_ok(c->n->op) ? AICF__OP_DTM_F32 | AICF__OP_DTM_SINT : AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_unary_params(c, &a, &b));
    if (c->n->op == AICF__OP_Clip) {
        int i;
        for (i = 1; i < 3; i++) {
            const aicf__tensor* t = aicf__op_in(c, i);
            if (!t) continue;
            AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
            if (aicf__shape_numel(&t->shape) != 1) {
                char buf[160];
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) must be a scalar, has shape %s", i,
                                  aicf__op_in_name(c, i), i == 1 ? "min" : "max",
                                  aicf__op_sstr(&t->shape, buf, sizeof buf));
            }
        }
    }
    x = aicf__op_in(c, 0);
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_unary(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    size_t n = aicf__op_numel(&x->shape), i;
    const float* xp = (const float*)in[0];
    float* yp = (float*)out[0];
    float a, b;
    aicf__op op = c->n->op;
    AICF__OP_TRY(aicf__op_unary_params(c, &a, &b));
    if (x->dtype != AICF_DTYPE_FLOAT32) { /* integers: Neg, Abs, Sign, Relu (signed), Clip */
        int64_t lo = aicf__op_int_limit(x->dtype, 0), hi = aicf__op_int_limit(x->dtype, 1);
        int uns = x->dtype == AICF_DTYPE_UINT64;
        if (op == AICF__OP_Clip) {
            if (aicf__op_in(c, 1) && in[1]) lo = aicf__op_geti(x->dtype, in[1], 0);
            if (aicf__op_in(c, 2) && in[2]) hi = aicf__op_geti(x->dtype, in[2], 0);
        }
        for (i = 0; i < n; i++) {
            int64_t v = aicf__op_geti(x->dtype, in[0], (int64_t)i), r;
            switch (op) {
            case AICF__OP_Clip:
                r = (uns ? (uint64_t)v < (uint64_t)lo : v < lo) ? lo : v;
                r = (uns ? (uint64_t)r > (uint64_t)hi : r > hi) ? hi : r;
                break;
            case AICF__OP_Neg: r = (int64_t)(0 - (uint64_t)v); break;
            case AICF__OP_Abs: r = v < 0 ? (int64_t)(0 - (uint64_t)v) : v; break;
            case AICF__OP_Sign: r = v > 0 ? 1 : (v < 0 ? -1 : 0); break;
            default: r = v < 0 ? 0 : v; break;
            }
            aicf__op_seti(x->dtype, out[0], (int64_t)i, r);
        }
        return AICF_SUCCESS;
    }
    if (op == AICF__OP_Clip && c->opset >= 11) {
        if (aicf__op_in(c, 1) && in[1]) memcpy(&a, in[1], sizeof(float));
        if (aicf__op_in(c, 2) && in[2]) memcpy(&b, in[2], sizeof(float));
    }
    for (i = 0; i < n; i++) yp[i] = aicf__op_unary_f(op, xp[i], a, b);
    return AICF_SUCCESS;
}

/* ---- binary and variadic ops with broadcasting ---- */

static int aicf__op_is_variadic(aicf__op op) {
    return op == AICF__OP_Sum || op == AICF__OP_Max || op == AICF__OP_Min || op == AICF__OP_Mean;
}

/* Shape of input i as it takes part in the broadcast: before opset 7, Add/Sub/Mul/Div/Pow
   broadcast only with broadcast=1, aligning B at `axis` (default: the trailing dims). */
static aicf_result aicf__op_bin_in_shape(const aicf__opc* c, int i, aicf__shape* s) {
    const aicf__tensor* t = aicf__op_in(c, i);
    *s = t->shape;
    if (c->opset < 7 && !aicf__op_is_variadic(c->n->op) && i == 1) {
        const aicf__tensor* a = aicf__op_in(c, 0);
        int64_t bc, axis;
        char b1[160], b2[160];
        AICF__OP_TRY(aicf__op_ai(c, "broadcast", 0, &bc));
        if (!bc) {
            int k, same = a->shape.rank == t->shape.rank;
            for (k = 0; same && k < a->shape.rank; k++) same = a->shape.d[k] == t->shape.d[k];
            if (!same)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 shape %s differs from input 0 shape %s and broadcast=0",
                                  aicf__op_sstr(&t->shape, b1, sizeof b1), aicf__op_sstr(&a->shape, b2, sizeof b2));
            return AICF_SUCCESS;
        }
        if (aicf__attr(c->n, "axis")) {
            int ax, k;
            AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
            if (t->shape.rank > a->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 has rank %d > input 0 rank %d", t->shape.rank, a->shape.rank);
            AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, a->shape.rank, &ax));
            if (ax + t->shape.rank > a->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 shape %s does not fit input 0 shape %s at axis %d",
                                  aicf__op_sstr(&t->shape, b1, sizeof b1), aicf__op_sstr(&a->shape, b2, sizeof b2), ax);
            memset(s, 0, sizeof *s);
            s->rank = a->shape.rank;
            for (k = 0; k < s->rank; k++) s->d[k] = 1;
            for (k = 0; k < t->shape.rank; k++) s->d[ax + k] = t->shape.d[k];
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_binary(const aicf__opc* c) {
    aicf__op op = c->n->op;
    int nin, i;
    unsigned mask = AICF__OP_DTM_F32;
    aicf__shape o, s;
    char b1[160], b2[160];
    if (aicf__op_is_variadic(op)) AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    nin = aicf__op_nin(c->n);
    if (op == AICF__OP_Pow) mask = AICF__OP_DTM_F32 | AICF__OP_DTM_INT; /* the exponent may have another type */
    else if (op != AICF__OP_Mean) mask = AICF__OP_DTM_F32 | AICF__OP_DTM_INTS;
    if (op == AICF__OP_Max || op == AICF__OP_Min) mask |= AICF__OP_DTM_FLOATS; /* exact selections */
    for (i = 0; i < nin; i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        if (op == AICF__OP_Pow && i == 1) {
            AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32 | AICF__OP_DTM_INTS | AICF__OP_DTM(AICF_DTYPE_FLOAT64)));
            continue;
        }
        AICF__OP_TRY(aicf__op_check_dt(c, i, mask));
        AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    }
    o = aicf__op_in(c, 0)->shape;
    for (i = 1; i < nin; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        if (!aicf__op_bcast2(&o, &s, &o))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s cannot be broadcast with %s", i,
                              aicf__op_in_name(c, i), aicf__op_sstr(&s, b1, sizeof b1), aicf__op_sstr(&o, b2, sizeof b2));
    }
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static float aicf__op_bin_f(aicf__op op, float a, float b) {
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum:
    case AICF__OP_Mean: return a + b;
    case AICF__OP_Sub: return a - b;
    case AICF__OP_Mul: return a * b;
    case AICF__OP_Div: return a / b;
    case AICF__OP_Pow: return powf(a, b);
    case AICF__OP_Max:
        if (a != a || b != b) return a + b; /* NaN propagates, as numpy.maximum */
        return a > b ? a : b;
    case AICF__OP_Min:
        if (a != a || b != b) return a + b;
        return a < b ? a : b;
    default: return 0.0f;
    }
}

/* ---- epilogues of fused steps (aicf__fuse in >>plan) ---- */

int aicf__op_epilogue_kind(aicf_graph* g, int ni, float* alpha, float* beta) {
    aicf__opc c;
    const aicf__node* n;
    int i;
    *alpha = *beta = 0.0f;
    if (!g || ni < 0 || ni >= g->n_nodes) return 0;
    aicf__opc_init(&c, g, ni);
    n = c.n;
    if (n->removed || n->n_out < 1 || n->out[0] < 0) return 0;
    for (i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0) return 0;
    if (g->tensors[n->out[0]].dtype != AICF_DTYPE_FLOAT32) return 0;
    for (i = 0; i < n->n_in; i++)
        if (n->in[i] < 0 || g->tensors[n->in[i]].dtype != AICF_DTYPE_FLOAT32) {
            if (!(n->op == AICF__OP_Clip && i > 0 && n->in[i] < 0)) return 0;
        }
    switch (n->op) {
    case AICF__OP_Add: case AICF__OP_Sub: case AICF__OP_Mul: case AICF__OP_Div: case AICF__OP_Pow:
    case AICF__OP_Max: case AICF__OP_Min:
        /* before opset 7 the second input broadcast only with broadcast=1 and an axis */
        if (n->n_in != 2 || (c.opset < 7 && aicf__attr(n, "broadcast"))) return 0;
        return 2;
    case AICF__OP_PRelu: return n->n_in == 2 ? 2 : 0;
    case AICF__OP_Clip:
        if (aicf__op_unary_params(&c, alpha, beta) != AICF_SUCCESS) return 0;
        if (c.opset >= 11) { /* min/max inputs: only as plan-time constants */
            for (i = 1; i < n->n_in && i < 3; i++) {
                const aicf__tensor* t = n->in[i] >= 0 ? &g->tensors[n->in[i]] : NULL;
                if (!t) continue;
                if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes != sizeof(float)) return 0;
                memcpy(i == 1 ? alpha : beta, t->data, sizeof(float));
            }
        }
        return n->n_in <= 3 ? 1 : 0;
    case AICF__OP_Relu: case AICF__OP_Tanh: case AICF__OP_Sigmoid: case AICF__OP_Exp: case AICF__OP_Log:
    case AICF__OP_Sqrt: case AICF__OP_Neg: case AICF__OP_Abs: case AICF__OP_Reciprocal: case AICF__OP_Erf:
    case AICF__OP_LeakyRelu: case AICF__OP_Elu: case AICF__OP_HardSigmoid: case AICF__OP_HardSwish:
    case AICF__OP_Floor: case AICF__OP_Ceil: case AICF__OP_Round: case AICF__OP_Sign: case AICF__OP_Softplus:
    case AICF__OP_Softsign: case AICF__OP_Selu: case AICF__OP_Celu: case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin: case AICF__OP_Cos: case AICF__OP_Tan: case AICF__OP_Asin: case AICF__OP_Acos:
    case AICF__OP_Atan: case AICF__OP_Sinh: case AICF__OP_Cosh: case AICF__OP_Asinh: case AICF__OP_Acosh:
    case AICF__OP_Atanh: case AICF__OP_Gelu: case AICF__OP_Mish: case AICF__OP_Shrink: case AICF__OP_Swish:
        if (n->n_in != 1) return 0;
        return aicf__op_unary_params(&c, alpha, beta) == AICF_SUCCESS ? 1 : 0;
    default: return 0;
    }
}

float aicf__op_epi_unary(aicf__op op, float x, float alpha, float beta) { return aicf__op_unary_f(op, x, alpha, beta); }

float aicf__op_epi_binary(aicf__op op, float a, float b) {
    if (op == AICF__OP_PRelu) return a < 0.0f ? b * a : a; /* a: X, b: slope (as aicf__op_run_prelu) */
    return aicf__op_bin_f(op, a, b);
}

aicf_result aicf__cpu_epilogue(const aicf_graph* g, const aicf__epi* epi, int n_epi, float* y, const aicf__shape* ys,
                               const void* const* operands) {
    int64_t n = aicf__shape_numel(ys), e;
    int k;
    if (n < 0) return AICF_ERROR_SHAPE;
    for (k = 0; k < n_epi; k++) {
        const aicf__epi* ep = &epi[k];
        if (ep->operand < 0) {
            for (e = 0; e < n; e++) y[e] = aicf__op_unary_f(ep->op, y[e], ep->alpha, ep->beta);
        } else {
            const unsigned char* o = (const unsigned char*)operands[k]; /* may be unaligned (borrowed file data) */
            float ov;
            aicf__op_ix it;
            if (!o) return AICF_ERROR_INVALID_ARGUMENT;
            aicf__op_ix_init(&it, ys, 1);
            aicf__op_bcast_strides(&g->tensors[ep->operand].shape, ys, it.st[0]);
            if (ep->operand_left)
                for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
                    memcpy(&ov, o + (size_t)it.off[0] * sizeof(float), sizeof ov);
                    y[e] = aicf__op_epi_binary(ep->op, ov, y[e]);
                }
            else
                for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
                    memcpy(&ov, o + (size_t)it.off[0] * sizeof(float), sizeof ov);
                    y[e] = aicf__op_epi_binary(ep->op, y[e], ov);
                }
        }
    }
    return AICF_SUCCESS;
}

/* Integer arithmetic wraps (two's complement) like ONNX Runtime and numpy; Div truncates.
   uint64 values travel as their bits: Div, Max and Min compare them unsigned. */
static int64_t aicf__op_bin_i(aicf__op op, aicf_dtype dt, int64_t a, int64_t b) {
    if (dt == AICF_DTYPE_UINT64 && (op == AICF__OP_Div || op == AICF__OP_Max || op == AICF__OP_Min)) {
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
        if (op == AICF__OP_Div) return ub ? (int64_t)(ua / ub) : 0;
        return (op == AICF__OP_Max) == (ua > ub) ? a : b;
    }
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum: return (int64_t)((uint64_t)a + (uint64_t)b);
    case AICF__OP_Sub: return (int64_t)((uint64_t)a - (uint64_t)b);
    case AICF__OP_Mul: return (int64_t)((uint64_t)a * (uint64_t)b);
    case AICF__OP_Div:
        if (b == -1) return (int64_t)(0 - (uint64_t)a);
        return b ? a / b : 0; /* division by zero is rejected before */
    case AICF__OP_Max: return a > b ? a : b;
    case AICF__OP_Min: return a < b ? a : b;
    default: return 0;
    }
}


/* y = op(a, b) over shape os, with a and b read through broadcast strides. */
static void aicf__op_bin_apply(aicf__op op, aicf_dtype dt, const void* a, const int64_t* sta, const void* b,
                            const int64_t* stb, void* y, const aicf__shape* os) {
    int64_t n = aicf__shape_numel(os), inner = os->rank > 0 ? os->d[os->rank - 1] : 1, rows, r, j;
    int64_t ia = os->rank > 0 ? sta[os->rank - 1] : 0, ib = os->rank > 0 ? stb[os->rank - 1] : 0;
    aicf__op_iter it;
    if (n <= 0) return;
    rows = n / inner;
    aicf__op_iter_init(&it, os, 2, sta, stb, NULL);
    for (r = 0; r < rows; r++) {
        int64_t oa = it.off[0], ob = it.off[1], oy = r * inner;
        if (dt == AICF_DTYPE_FLOAT32) {
            const float* ap = (const float*)a;
            const float* bp = (const float*)b;
            float* yp = (float*)y;
            for (j = 0; j < inner; j++) yp[oy + j] = aicf__op_bin_f(op, ap[oa + j * ia], bp[ob + j * ib]);
        } else if (aicf__op_dt_isfloat(dt)) { /* Max/Min of float16/bfloat16/float64: exact */
            for (j = 0; j < inner; j++) {
                double x = aicf__op_getd(dt, a, oa + j * ia), z = aicf__op_getd(dt, b, ob + j * ib);
                int pick_b = x != x ? 0 : (z != z ? 1 : (op == AICF__OP_Max ? z > x : z < x));
                aicf__op_copy_el(y, oy + j, pick_b ? b : a, pick_b ? ob + j * ib : oa + j * ia, aicf_dtype_size(dt));
            }
        } else {
            for (j = 0; j < inner; j++)
                aicf__op_seti(dt, y, oy + j, aicf__op_bin_i(op, dt, aicf__op_geti(dt, a, oa + j * ia), aicf__op_geti(dt, b, ob + j * ib)));
        }
        aicf__op_iter_next(&it);
    }
}

/* Pow with an integer base or an exponent of another type: integer ** integer is exact (by
   squaring, wrapping; a negative exponent truncates 1 / a^-b toward zero); otherwise pow in
   double, converted to the base's type (truncation for integers, as numpy's astype). */
static aicf_result aicf__op_run_pow_mixed(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype, et = aicf__op_in(c, 1)->dtype;
    int64_t n = aicf__shape_numel(&y->shape), e;
    aicf__op_ix it;
    aicf__shape sa, sb;
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 0, &sa));
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 1, &sb));
    aicf__op_ix_init(&it, &y->shape, 2);
    aicf__op_bcast_strides(&sa, &y->shape, it.st[0]);
    aicf__op_bcast_strides(&sb, &y->shape, it.st[1]);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (!aicf__op_dt_isfloat(dt) && !aicf__op_dt_isfloat(et)) {
            int64_t a = aicf__op_geti(dt, in[0], it.off[0]), b = aicf__op_geti(et, in[1], it.off[1]);
            uint64_t r = 1, base = (uint64_t)a;
            if (b < 0) {
                r = a == 1 ? 1 : (a == -1 ? (b % 2 ? (uint64_t)-1 : 1) : 0);
            } else {
                while (b) {
                    if (b & 1) r *= base;
                    base *= base;
                    b >>= 1;
                }
            }
            aicf__op_seti(dt, out[0], e, (int64_t)r);
        } else {
            aicf__op_setd(dt, out[0], e, pow(aicf__op_getd(dt, in[0], it.off[0]), aicf__op_getd(et, in[1], it.off[1])));
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_binary(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf__op op = c->n->op;
    aicf_dtype dt = y->dtype;
    int nin = aicf__op_nin(c->n), i;
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK];
    aicf__shape sa, sb;
    if (op == AICF__OP_Pow && (dt != AICF_DTYPE_FLOAT32 || aicf__op_in(c, 1)->dtype != AICF_DTYPE_FLOAT32))
        return aicf__op_run_pow_mixed(c, in, out);
    if (op == AICF__OP_Div && !aicf__op_dt_isfloat(dt)) {
        const aicf__tensor* bt = aicf__op_in(c, 1);
        int64_t k, nb = aicf__shape_numel(&bt->shape);
        for (k = 0; k < nb; k++)
            if (aicf__op_geti(dt, in[1], k) == 0)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "integer division by zero (input 1 '%.200s' element %lld)",
                                  aicf__op_in_name(c, 1), (long long)k);
    }
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 0, &sa));
    aicf__op_bcast_strides(&sa, &y->shape, sta);
    if (nin == 1) {
        /* one-input Sum/Max/Min/Mean: a copy */
        memcpy(out[0], in[0], aicf__op_tbytes(y));
        return AICF_SUCCESS;
    }
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 1, &sb));
    aicf__op_bcast_strides(&sb, &y->shape, stb);
    aicf__op_bin_apply(op, dt, in[0], sta, in[1], stb, out[0], &y->shape);
    /* Sum/Max/Min of more inputs: fold each into the output in place */
    for (i = 2; i < nin; i++) {
        aicf__op_shape_set(&sa, y->shape.rank, y->shape.d);
        aicf__op_bcast_strides(&sa, &y->shape, sta);
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &sb));
        aicf__op_bcast_strides(&sb, &y->shape, stb);
        aicf__op_bin_apply(op, dt, out[0], sta, in[i], stb, out[0], &y->shape);
    }
    if (op == AICF__OP_Mean) {
        size_t n = aicf__op_numel(&y->shape), k;
        for (k = 0; k < n; k++) ((float*)out[0])[k] /= (float)nin;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   MatMul, Gemm
   ============================================================================================ */

/* MatMul geometry (numpy matmul): batch dims broadcast, 1-D operands promoted and dropped. */
typedef struct aicf__op_mm {
    int64_t M, N, K;
    int trans_b;                        /* B stored [..., N, K] (aicf__node.trans_b) */
    aicf__shape batch;                  /* broadcast batch shape */
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK]; /* matrix strides per batch dim */
    aicf__shape out;
} aicf__op_mm;

static aicf_result aicf__op_mm_make(const aicf__opc* c, aicf__op_mm* m) {
    const aicf__tensor* a = aicf__op_in(c, 0);
    const aicf__tensor* b = aicf__op_in(c, 1);
    int ra = a->shape.rank, rb = b->shape.rank, k;
    int64_t kb;
    aicf__shape ba, bb;
    char b1[160], b2[160];
    memset(m, 0, sizeof *m);
    if (ra < 1 || rb < 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' is a scalar; MatMul needs rank >= 1", ra < 1 ? 0 : 1,
                          aicf__op_in_name(c, ra < 1 ? 0 : 1));
    m->M = ra >= 2 ? a->shape.d[ra - 2] : 1;
    m->K = a->shape.d[ra - 1];
    kb = rb >= 2 ? b->shape.d[rb - 2] : b->shape.d[0];
    m->N = rb >= 2 ? b->shape.d[rb - 1] : 1;
    m->trans_b = c->n->trans_b && rb >= 2; /* an absorbed Transpose: B stored [..., N, K] */
    if (m->trans_b) {
        kb = b->shape.d[rb - 1];
        m->N = b->shape.d[rb - 2];
    }
    if (kb != m->K)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' shape %s does not match input 0 shape %s (K = %lld vs %lld)",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&b->shape, b1, sizeof b1),
                          aicf__op_sstr(&a->shape, b2, sizeof b2), (long long)kb, (long long)m->K);
    aicf__op_shape_set(&ba, ra >= 2 ? ra - 2 : 0, a->shape.d);
    aicf__op_shape_set(&bb, rb >= 2 ? rb - 2 : 0, b->shape.d);
    if (!aicf__op_bcast2(&ba, &bb, &m->batch))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "batch dims of input 0 %s and input 1 %s cannot be broadcast",
                          aicf__op_sstr(&a->shape, b1, sizeof b1), aicf__op_sstr(&b->shape, b2, sizeof b2));
    aicf__op_bcast_strides(&ba, &m->batch, m->sta);
    aicf__op_bcast_strides(&bb, &m->batch, m->stb);
    for (k = 0; k < m->batch.rank; k++) {
        m->sta[k] *= m->M * m->K;
        m->stb[k] *= m->K * m->N;
    }
    m->out = m->batch;
    if (ra >= 2) m->out.d[m->out.rank++] = m->M;
    if (rb >= 2) m->out.d[m->out.rank++] = m->N;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_matmul(const aicf__opc* c) {
    aicf__op_mm m;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_mm_make(c, &m));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &m.out);
}

/* y[M,N] = A[M,K] B[K,N] with row-major leading dims; float32 accumulation in k order. */
static void aicf__op_gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t sam, int64_t sak, const float* B,
                           int64_t sbk, int64_t sbn, float* Y) {
    int64_t i, j, k;
    for (i = 0; i < M; i++) {
        float* y = Y + i * N;
        for (j = 0; j < N; j++) y[j] = 0.0f;
        for (k = 0; k < K; k++) {
            float av = A[i * sam + k * sak];
            const float* b = B + k * sbk;
            for (j = 0; j < N; j++) y[j] += av * b[j * sbn];
        }
    }
}

static aicf_result aicf__op_run_matmul(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_mm m;
    int64_t nb, bi, k;
    int64_t idx[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_mm_make(c, &m));
    nb = aicf__shape_numel(&m.batch);
    memset(idx, 0, sizeof idx);
    for (bi = 0; bi < nb; bi++) {
        int64_t oa = 0, ob = 0;
        for (k = 0; k < m.batch.rank; k++) {
            oa += idx[k] * m.sta[k];
            ob += idx[k] * m.stb[k];
        }
        aicf__op_gemm_f32(m.M, m.N, m.K, (const float*)in[0] + oa, m.K, 1, (const float*)in[1] + ob, m.trans_b ? 1 : m.N,
                          m.trans_b ? m.K : 1, (float*)out[0] + bi * m.M * m.N);
        for (k = m.batch.rank - 1; k >= 0; k--) {
            if (++idx[k] < m.batch.d[k]) break;
            idx[k] = 0;
        }
    }
    return AICF_SUCCESS;
}

typedef struct aicf__op_gemm {
    int64_t M, N, K, ta, tb;
    float alpha, beta;
    int64_t stc[2]; /* strides of C read as [M,N] */
    int has_c;
} aicf__op_gemm;

static aicf_result aicf__op_gemm_make(const aicf__opc* c, aicf__op_gemm* m) {
    const aicf__tensor* a = aicf__op_in(c, 0);
    const aicf__tensor* b = aicf__op_in(c, 1);
    const aicf__tensor* ct = aicf__op_in(c, 2);
    int64_t kb;
    char b1[160], b2[160];
    memset(m, 0, sizeof *m);
    AICF__OP_TRY(aicf__op_ai(c, "transA", 0, &m->ta));
    AICF__OP_TRY(aicf__op_ai(c, "transB", 0, &m->tb));
    AICF__OP_TRY(aicf__op_af(c, "alpha", 1.0f, &m->alpha));
    AICF__OP_TRY(aicf__op_af(c, "beta", 1.0f, &m->beta));
    if (a->shape.rank != 2 || b->shape.rank != 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "inputs A and B must be 2-D, have shapes %s and %s",
                          aicf__op_sstr(&a->shape, b1, sizeof b1), aicf__op_sstr(&b->shape, b2, sizeof b2));
    m->M = m->ta ? a->shape.d[1] : a->shape.d[0];
    m->K = m->ta ? a->shape.d[0] : a->shape.d[1];
    kb = m->tb ? b->shape.d[1] : b->shape.d[0];
    m->N = m->tb ? b->shape.d[0] : b->shape.d[1];
    if (kb != m->K)
        return aicf__op_err(c, AICF_ERROR_SHAPE,
                          "input 1 '%.200s' shape %s does not match input 0 shape %s (K = %lld vs %lld, transA=%d transB=%d)",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&b->shape, b1, sizeof b1),
                          aicf__op_sstr(&a->shape, b2, sizeof b2), (long long)kb, (long long)m->K, (int)m->ta, (int)m->tb);
    if (ct) {
        aicf__shape mn;
        int i;
        int64_t d[2];
        d[0] = m->M;
        d[1] = m->N;
        aicf__op_shape_set(&mn, 2, d);
        if (ct->shape.rank > 2)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (C) shape %s cannot be broadcast to [%lld,%lld]",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&ct->shape, b1, sizeof b1), (long long)m->M,
                              (long long)m->N);
        for (i = 0; i < ct->shape.rank; i++) {
            int64_t want = mn.d[2 - ct->shape.rank + i], have = ct->shape.d[i];
            if (have != want && have != 1)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (C) shape %s cannot be broadcast to [%lld,%lld]",
                                  aicf__op_in_name(c, 2), aicf__op_sstr(&ct->shape, b1, sizeof b1), (long long)m->M,
                                  (long long)m->N);
        }
        aicf__op_bcast_strides(&ct->shape, &mn, m->stc);
        m->has_c = 1;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gemm(const aicf__opc* c) {
    aicf__op_gemm m;
    aicf__shape o;
    int64_t d[2];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_gemm_make(c, &m));
    d[0] = m.M;
    d[1] = m.N;
    aicf__op_shape_set(&o, 2, d);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_gemm(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_gemm m;
    const float* A = (const float*)in[0];
    const float* B = (const float*)in[1];
    const float* C = (const float*)in[2];
    float* Y = (float*)out[0];
    int64_t i, j;
    AICF__OP_TRY(aicf__op_gemm_make(c, &m));
    /* A[M,K] element (i,k): transA ? A[k*M + i] : A[i*K + k]; likewise B */
    aicf__op_gemm_f32(m.M, m.N, m.K, A, m.ta ? 1 : m.K, m.ta ? m.M : 1, B, m.tb ? 1 : m.N, m.tb ? m.K : 1, Y);
    for (i = 0; i < m.M; i++)
        for (j = 0; j < m.N; j++) {
            float v = m.alpha * Y[i * m.N + j];
            if (m.has_c && m.beta != 0.0f && C) v += m.beta * C[i * m.stc[0] + j * m.stc[1]];
            Y[i * m.N + j] = v;
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Conv and pooling: sliding windows over 1-3 spatial dims
   ============================================================================================ */

typedef struct aicf__op_win {
    int nsp;                    /* spatial dims of the data (1..3) */
    int64_t N, C;
    /* normalised to 3 spatial dims; the leading 3 - nsp have size 1 */
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
} aicf__op_win;

/* Reads auto_pad/pads/strides/dilations (and ceil_mode for pools) and computes the output
   size of every spatial dim. kshape: nsp kernel dims. */
static aicf_result aicf__op_win_make(const aicf__opc* c, const aicf__shape* x, const int64_t* kshape, int is_pool, aicf__op_win* w) {
    int nsp = x->rank - 2, i, o, cnt;
    const int64_t* v;
    const char* ap;
    int64_t ceil_mode = 0;
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > 3)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->rank);
    w->nsp = nsp;
    w->N = x->d[0];
    w->C = x->d[1];
    for (i = 0; i < 3; i++) {
        w->in[i] = w->out[i] = w->k[i] = w->s[i] = w->d[i] = 1;
        w->pb[i] = w->pe[i] = 0;
    }
    o = 3 - nsp;
    for (i = 0; i < nsp; i++) {
        if (kshape[i] < 1 || kshape[i] > AICF__OP_MAX_WINDOW)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "kernel_shape[%d] = %lld is out of range", i, (long long)kshape[i]);
        w->in[o + i] = x->d[2 + i];
        w->k[o + i] = kshape[i];
    }
    AICF__OP_TRY(aicf__op_aints(c, "strides", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'strides' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < nsp; i++) {
            if (v[i] < 1 || v[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "strides[%d] = %lld is out of range", i, (long long)v[i]);
            w->s[o + i] = v[i];
        }
    }
    AICF__OP_TRY(aicf__op_aints(c, "dilations", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'dilations' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < nsp; i++) {
            if (v[i] < 1 || v[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "dilations[%d] = %lld is out of range", i, (long long)v[i]);
            w->d[o + i] = v[i];
        }
    }
    AICF__OP_TRY(aicf__op_as(c, "auto_pad", "NOTSET", &ap));
    if (is_pool) AICF__OP_TRY(aicf__op_ai(c, "ceil_mode", 0, &ceil_mode));
    if (!strcmp(ap, "NOTSET") || !ap[0]) {
        AICF__OP_TRY(aicf__op_aints(c, "pads", &v, &cnt));
        if (cnt >= 0) {
            if (cnt != 2 * nsp)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'pads' has %d values; expected %d", cnt, 2 * nsp);
            for (i = 0; i < 2 * nsp; i++)
                if (v[i] < 0 || v[i] > AICF__OP_MAX_WINDOW)
                    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads[%d] = %lld is out of range", i, (long long)v[i]);
            for (i = 0; i < nsp; i++) {
                w->pb[o + i] = v[i];
                w->pe[o + i] = v[nsp + i];
            }
        }
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1, padded = w->in[i] + w->pb[i] + w->pe[i];
            if (padded < dk)
                return aicf__op_err(c, AICF_ERROR_SHAPE,
                                  "kernel extent %lld (kernel %lld, dilation %lld) exceeds the padded input size %lld of spatial dim %d",
                                  (long long)dk, (long long)w->k[i], (long long)w->d[i], (long long)padded, i - o);
            if (is_pool && (w->pb[i] >= dk || w->pe[i] >= dk))
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads of spatial dim %d (%lld, %lld) must be smaller than the kernel extent %lld",
                                  i - o, (long long)w->pb[i], (long long)w->pe[i], (long long)dk);
            if (ceil_mode) {
                w->out[i] = (padded - dk + w->s[i] - 1) / w->s[i] + 1;
                /* the last window must start inside the input or the left padding */
                if ((w->out[i] - 1) * w->s[i] >= w->in[i] + w->pb[i]) w->out[i]--;
            } else {
                w->out[i] = (padded - dk) / w->s[i] + 1;
            }
        }
    } else if (!strcmp(ap, "VALID")) {
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1;
            if (w->in[i] < dk)
                return aicf__op_err(c, AICF_ERROR_SHAPE,
                                  "kernel extent %lld (kernel %lld, dilation %lld) exceeds the input size %lld of spatial dim %d (auto_pad VALID)",
                                  (long long)dk, (long long)w->k[i], (long long)w->d[i], (long long)w->in[i], i - o);
            w->out[i] = (w->in[i] - dk) / w->s[i] + 1;
        }
    } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        int upper = !strcmp(ap, "SAME_UPPER");
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1, total;
            w->out[i] = (w->in[i] + w->s[i] - 1) / w->s[i];
            total = (w->out[i] - 1) * w->s[i] + dk - w->in[i];
            if (total < 0) total = 0;
            w->pb[i] = upper ? total / 2 : total - total / 2;
            w->pe[i] = total - w->pb[i];
        }
    } else {
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'auto_pad' is '%.40s'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    }
    return AICF_SUCCESS;
}

static void aicf__op_win_out_shape(const aicf__op_win* w, int64_t C_out, aicf__shape* s) {
    int i;
    memset(s, 0, sizeof *s);
    s->rank = w->nsp + 2;
    s->d[0] = w->N;
    s->d[1] = C_out;
    for (i = 0; i < w->nsp; i++) s->d[2 + i] = w->out[3 - w->nsp + i];
}

/* Output positions o in [*lo, *hi) with 0 <= o*s + off < n_in. */
static void aicf__op_vrange(int64_t n_out, int64_t s, int64_t off, int64_t n_in, int64_t* lo, int64_t* hi) {
    int64_t l = 0, h;
    if (off < 0) l = (-off + s - 1) / s;
    h = n_in - 1 - off < 0 ? 0 : (n_in - 1 - off) / s + 1;
    if (h > n_out) h = n_out;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

static aicf_result aicf__op_conv_make(const aicf__opc* c, aicf__op_win* w, int64_t* group, int64_t* M) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* wt = aicf__op_in(c, 1);
    const aicf__tensor* b = aicf__op_in(c, 2);
    const int64_t* ks;
    int cnt, i;
    char b1[160], b2[160];
    if (x->shape.rank < 3 || x->shape.rank > 5)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    if (wt->shape.rank != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (W) shape %s has a different rank than input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&wt->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_ai(c, "group", 1, group));
    *M = wt->shape.d[0];
    if (*group < 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'group' = %lld must be >= 1", (long long)*group);
    if (x->shape.d[1] % *group != 0 || wt->shape.d[1] * *group != x->shape.d[1])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has %lld channels but W shape %s with group %lld expects %lld",
                          (long long)x->shape.d[1], aicf__op_sstr(&wt->shape, b1, sizeof b1), (long long)*group,
                          (long long)(wt->shape.d[1] * *group));
    if (*M % *group != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "W has %lld output channels, not a multiple of group %lld", (long long)*M,
                          (long long)*group);
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &ks, &cnt));
    if (cnt >= 0) {
        if (cnt != x->shape.rank - 2)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, x->shape.rank - 2);
        for (i = 0; i < cnt; i++)
            if (ks[i] != wt->shape.d[2 + i])
                return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'kernel_shape' does not match W shape %s",
                                  aicf__op_sstr(&wt->shape, b1, sizeof b1));
    }
    if (b && (b->shape.rank != 1 || b->shape.d[0] != *M))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (B) shape %s must be [%lld]", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&b->shape, b1, sizeof b1), (long long)*M);
    return aicf__op_win_make(c, &x->shape, wt->shape.d + 2, 0, w);
}

static aicf_result aicf__op_infer_conv(const aicf__opc* c) {
    aicf__op_win w;
    int64_t group, M;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_conv_make(c, &w, &group, &M));
    aicf__op_win_out_shape(&w, M, &o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_conv(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_win w;
    int64_t group, M, Cg, Mg, n, m, ci, kd, kh, kw, od, oh, ow, IS, OS, KS;
    const float* X = (const float*)in[0];
    const float* W = (const float*)in[1];
    const float* B = (const float*)in[2];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_conv_make(c, &w, &group, &M));
    Cg = w.C / group;
    Mg = M / group;
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    KS = w.k[0] * w.k[1] * w.k[2];
    for (n = 0; n < w.N; n++)
        for (m = 0; m < M; m++) {
            float* yp = Y + (n * M + m) * OS;
            int64_t g = m / Mg, i;
            float bias = B ? B[m] : 0.0f;
            for (i = 0; i < OS; i++) yp[i] = bias;
            for (ci = 0; ci < Cg; ci++) {
                const float* xp = X + (n * w.C + g * Cg + ci) * IS;
                const float* wp = W + (m * Cg + ci) * KS;
                for (kd = 0; kd < w.k[0]; kd++)
                    for (kh = 0; kh < w.k[1]; kh++)
                        for (kw = 0; kw < w.k[2]; kw++) {
                            float wv = wp[(kd * w.k[1] + kh) * w.k[2] + kw];
                            int64_t offd = kd * w.d[0] - w.pb[0], offh = kh * w.d[1] - w.pb[1], offw = kw * w.d[2] - w.pb[2];
                            int64_t d0, d1, h0, h1, w0, w1;
                            aicf__op_vrange(w.out[0], w.s[0], offd, w.in[0], &d0, &d1);
                            aicf__op_vrange(w.out[1], w.s[1], offh, w.in[1], &h0, &h1);
                            aicf__op_vrange(w.out[2], w.s[2], offw, w.in[2], &w0, &w1);
                            for (od = d0; od < d1; od++)
                                for (oh = h0; oh < h1; oh++) {
                                    const float* xr = xp + ((od * w.s[0] + offd) * w.in[1] + oh * w.s[1] + offh) * w.in[2];
                                    float* yr = yp + (od * w.out[1] + oh) * w.out[2];
                                    for (ow = w0; ow < w1; ow++) yr[ow] += wv * xr[ow * w.s[2] + offw];
                                }
                        }
            }
        }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_pool_make(const aicf__opc* c, aicf__op_win* w, int64_t* count_include_pad) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const int64_t* ks;
    int cnt;
    *count_include_pad = 0;
    if (x->shape.rank < 3 || x->shape.rank > 5)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &ks, &cnt));
    if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'kernel_shape' is missing");
    if (cnt != x->shape.rank - 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, x->shape.rank - 2);
    if (c->n->op == AICF__OP_LpPool) {
        int64_t p;
        AICF__OP_TRY(aicf__op_ai(c, "p", 2, &p));
        if (p < 1 || p > 64) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'p' = %lld is out of range", (long long)p);
    } else if (c->n->op == AICF__OP_MaxPool) {
        int64_t so;
        AICF__OP_TRY(aicf__op_ai(c, "storage_order", 0, &so));
        if (so != 0) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'storage_order' = %lld (column major) is not supported", (long long)so);
        if (aicf__op_out(c, 1))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "output 1 '%.200s' (Indices) is not supported", aicf__op_out_name(c, 1));
    } else {
        AICF__OP_TRY(aicf__op_ai(c, "count_include_pad", 0, count_include_pad));
    }
    return aicf__op_win_make(c, &x->shape, ks, 1, w);
}

static aicf_result aicf__op_infer_pool(const aicf__opc* c) {
    aicf__op_win w;
    int64_t cip;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, c->n->op == AICF__OP_MaxPool ? 2 : 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_pool_make(c, &w, &cip));
    aicf__op_win_out_shape(&w, w.C, &o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_pool(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_win w;
    int64_t cip, nc, od, oh, ow, kd, kh, kw, IS, OS, p = 2;
    int is_max = c->n->op == AICF__OP_MaxPool, is_lp = c->n->op == AICF__OP_LpPool;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_pool_make(c, &w, &cip));
    if (is_lp) AICF__OP_TRY(aicf__op_ai(c, "p", 2, &p));
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    for (nc = 0; nc < w.N * w.C; nc++) {
        const float* xp = X + nc * IS;
        float* yp = Y + nc * OS;
        for (od = 0; od < w.out[0]; od++)
            for (oh = 0; oh < w.out[1]; oh++)
                for (ow = 0; ow < w.out[2]; ow++) {
                    float acc = is_max ? -3.402823466e+38f : 0.0f;
                    int64_t n_valid = 0, n_padded = 0;
                    for (kd = 0; kd < w.k[0]; kd++) {
                        int64_t pd = od * w.s[0] - w.pb[0] + kd * w.d[0];
                        for (kh = 0; kh < w.k[1]; kh++) {
                            int64_t ph = oh * w.s[1] - w.pb[1] + kh * w.d[1];
                            for (kw = 0; kw < w.k[2]; kw++) {
                                int64_t pw = ow * w.s[2] - w.pb[2] + kw * w.d[2];
                                /* inside the explicitly padded input (the ceil_mode overhang is not) */
                                if (pd < w.in[0] + w.pe[0] && ph < w.in[1] + w.pe[1] && pw < w.in[2] + w.pe[2]) n_padded++;
                                if (pd >= 0 && pd < w.in[0] && ph >= 0 && ph < w.in[1] && pw >= 0 && pw < w.in[2]) {
                                    float v = xp[(pd * w.in[1] + ph) * w.in[2] + pw];
                                    n_valid++;
                                    if (is_max) {
                                        if (v > acc || v != v) acc = v;
                                        if (acc != acc) goto done; /* NaN propagates */
                                    } else if (is_lp) {
                                        acc += p == 1 ? fabsf(v) : (p == 2 ? v * v : powf(fabsf(v), (float)p));
                                    } else {
                                        acc += v;
                                    }
                                }
                            }
                        }
                    }
                done:
                    if (is_lp) {
                        acc = p == 1 ? acc : (p == 2 ? sqrtf(acc) : powf(acc, 1.0f / (float)p));
                    } else if (!is_max) {
                        int64_t cnt = cip ? n_padded : n_valid;
                        acc = cnt > 0 ? acc / (float)cnt : 0.0f;
                    }
                    yp[(od * w.out[1] + oh) * w.out[2] + ow] = acc;
                }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gap(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    x = aicf__op_in(c, 0);
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    o = x->shape;
    for (i = 2; i < o.rank; i++) o.d[i] = 1;
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_gap(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t NC = x->shape.d[0] * x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), i, j;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    for (i = 0; i < NC; i++) {
        float s = 0.0f;
        for (j = 0; j < S; j++) s += X[i * S + j];
        Y[i] = S > 0 ? s / (float)S : NAN;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   BatchNormalization, LRN, Softmax
   ============================================================================================ */

/* BatchNormalization in inference mode. *per_act: 1 when (spatial = 0, opset < 9) the
   parameters have one value per activation (C x D1 x ...), else one per channel. */
static aicf_result aicf__op_bn_make(const aicf__opc* c, float* eps, int* per_act) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t spatial = 1, tm = 0, want;
    int i;
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    if (c->opset >= 14) AICF__OP_TRY(aicf__op_ai(c, "training_mode", 0, &tm));
    if (tm) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "training_mode = %lld is not supported (inference only)", (long long)tm);
    if (c->opset < 9) AICF__OP_TRY(aicf__op_ai(c, "spatial", 1, &spatial));
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    *per_act = spatial == 0;
    want = *per_act ? aicf__op_prod(x->shape.d, 1, x->shape.rank) : x->shape.d[1];
    for (i = 1; i < 5; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        static const char* const names[5] = {"X", "scale", "B", "input_mean", "input_var"};
        char b1[160];
        if (aicf__shape_numel(&p->shape) != want || (!*per_act && p->shape.rank != 1))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) shape %s does not match %lld %s", i,
                              aicf__op_in_name(c, i), names[i], aicf__op_sstr(&p->shape, b1, sizeof b1), (long long)want,
                              *per_act ? "activations (spatial = 0)" : "channels");
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_bn(const aicf__opc* c) {
    float eps;
    int per_act, i;
    AICF__OP_TRY(aicf__op_check_io(c, 5, 5, 1, 5));
    for (i = 0; i < 5; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    for (i = 1; i < c->n->n_out; i++)
        if (aicf__op_out(c, i))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "output %d '%.200s' is only produced in training mode (not supported)",
                              i, aicf__op_out_name(c, i));
    AICF__OP_TRY(aicf__op_bn_make(c, &eps, &per_act));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_bn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* sc = (const float*)in[1];
    const float* bb = (const float*)in[2];
    const float* mean = (const float*)in[3];
    const float* var = (const float*)in[4];
    float* Y = (float*)out[0];
    float eps;
    int per_act;
    int64_t N = x->shape.d[0], C = x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, ch, s;
    AICF__OP_TRY(aicf__op_bn_make(c, &eps, &per_act));
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++)
            for (s = 0; s < S; s++) {
                int64_t p = per_act ? ch * S + s : ch, e = (n * C + ch) * S + s;
                Y[e] = (X[e] - mean[p]) / sqrtf(var[p] + eps) * sc[p] + bb[p];
            }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_lrn_make(const aicf__opc* c, int64_t* size, float* alpha, float* beta, float* bias) {
    const aicf__attrv* a = aicf__attr(c->n, "size");
    if (!a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'size' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "size", 0, size));
    if (*size < 1 || *size > AICF__OP_MAX_WINDOW)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'size' = %lld must be >= 1", (long long)*size);
    AICF__OP_TRY(aicf__op_af(c, "alpha", 1e-4f, alpha));
    AICF__OP_TRY(aicf__op_af(c, "beta", 0.75f, beta));
    return aicf__op_af(c, "bias", 1.0f, bias);
}

static aicf_result aicf__op_infer_lrn(const aicf__opc* c) {
    int64_t size;
    float a, b, bias;
    const aicf__tensor* x;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_lrn_make(c, &size, &a, &b, &bias));
    x = aicf__op_in(c, 0);
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

/* y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta */
static aicf_result aicf__op_run_lrn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    int64_t size, N = x->shape.d[0], C = x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, ch, s, j;
    float alpha, beta, bias;
    AICF__OP_TRY(aicf__op_lrn_make(c, &size, &alpha, &beta, &bias));
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++) {
            int64_t lo = ch - (size - 1) / 2, hi = ch + size / 2; /* size/2 = ceil((size-1)/2) */
            if (lo < 0) lo = 0;
            if (hi > C - 1) hi = C - 1;
            for (s = 0; s < S; s++) {
                float sq = 0.0f;
                for (j = lo; j <= hi; j++) {
                    float v = X[(n * C + j) * S + s];
                    sq += v * v;
                }
                Y[(n * C + ch) * S + s] = X[(n * C + ch) * S + s] / powf(bias + alpha / (float)size * sq, beta);
            }
        }
    return AICF_SUCCESS;
}

/* Softmax as [outer, A, inner]: before opset 13 the input is coerced to 2-D at `axis`
   (default 1); from 13 it runs along one axis (default -1). */
static aicf_result aicf__op_softmax_make(const aicf__opc* c, int64_t* outer, int64_t* A, int64_t* inner) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    int ax, r = x->shape.rank;
    AICF__OP_TRY(aicf__op_ai(c, "axis", c->opset < 13 ? 1 : -1, &axis));
    if (r < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar; expected rank >= 1", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, r, &ax));
    *outer = aicf__op_prod(x->shape.d, 0, ax);
    if (c->opset < 13) {
        *A = aicf__op_prod(x->shape.d, ax, r);
        *inner = 1;
    } else {
        *A = x->shape.d[ax];
        *inner = aicf__op_prod(x->shape.d, ax + 1, r);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_softmax(const aicf__opc* c) {
    int64_t o, a, i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_softmax_make(c, &o, &a, &i));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_softmax(const aicf__opc* c, const void* const* in, void* const* out) {
    int64_t outer, A, inner, o, i, a;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_softmax_make(c, &outer, &A, &inner));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float* x = X + o * A * inner + i;
            float* y = Y + o * A * inner + i;
            float mx = -INFINITY, sum = 0.0f;
            for (a = 0; a < A; a++)
                if (x[a * inner] > mx || x[a * inner] != x[a * inner]) mx = x[a * inner];
            for (a = 0; a < A; a++) {
                y[a * inner] = expf(x[a * inner] - mx);
                sum += y[a * inner];
            }
            for (a = 0; a < A; a++) y[a * inner] /= sum;
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Data movement: Concat, Transpose, and the aliasing ops
   ============================================================================================ */

static aicf_result aicf__op_infer_concat(const aicf__opc* c) {
    const aicf__tensor* x0;
    int nin, i, k, ax;
    int64_t axis;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    nin = aicf__op_nin(c->n);
    for (i = 0; i < nin; i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_ALL));
        AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    }
    if (c->opset >= 4 && !aicf__attr(c->n, "axis"))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'axis' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    x0 = aicf__op_in(c, 0);
    if (x0->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x0->shape.rank, &ax));
    o = x0->shape;
    for (i = 1; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        int ok = t->shape.rank == o.rank;
        for (k = 0; ok && k < o.rank; k++)
            if (k != ax && t->shape.d[k] != o.d[k]) ok = 0;
        if (!ok)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s does not match input 0 shape %s outside axis %d",
                              i, aicf__op_in_name(c, i), aicf__op_sstr(&t->shape, b1, sizeof b1),
                              aicf__op_sstr(&x0->shape, b2, sizeof b2), ax);
        o.d[ax] += t->shape.d[ax];
    }
    return aicf__op_set_out(c, 0, x0->dtype, &o);
}

static aicf_result aicf__op_run_concat(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    int nin = aicf__op_nin(c->n), i, ax;
    int64_t axis, outer, inner, o;
    size_t esz = aicf_dtype_size(y->dtype), yrow, pos;
    unsigned char* Y = (unsigned char*)out[0];
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, y->shape.rank, &ax));
    outer = aicf__op_prod(y->shape.d, 0, ax);
    inner = aicf__op_prod(y->shape.d, ax + 1, y->shape.rank);
    yrow = (size_t)(y->shape.d[ax] * inner) * esz;
    pos = 0;
    for (i = 0; i < nin; i++) {
        size_t row = (size_t)(aicf__op_in(c, i)->shape.d[ax] * inner) * esz;
        const unsigned char* X = (const unsigned char*)in[i];
        if (row && !(outer == 1 && X == Y + pos)) /* an input the plan placed in the output (a view): nothing to move */
            for (o = 0; o < outer; o++) memcpy(Y + (size_t)o * yrow + pos, X + (size_t)o * row, row);
        pos += row;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_transpose_perm(const aicf__opc* c, int* perm) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const int64_t* p;
    int cnt, i, r = x->shape.rank, seen[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_aints(c, "perm", &p, &cnt));
    if (cnt < 0) {
        for (i = 0; i < r; i++) perm[i] = r - 1 - i;
        return AICF_SUCCESS;
    }
    if (cnt != r) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' has %d values; input 0 has rank %d", cnt, r);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < r; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "attribute 'perm' entry", p[i], r, &a));
        if (seen[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' repeats axis %d", a);
        seen[a] = 1;
        perm[i] = a;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_transpose(const aicf__opc* c) {
    const aicf__tensor* x;
    int perm[AICF_MAX_RANK], i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_transpose_perm(c, perm));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    o.rank = x->shape.rank;
    for (i = 0; i < o.rank; i++) o.d[i] = x->shape.d[perm[i]];
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_transpose(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int perm[AICF_MAX_RANK], i, r = x->shape.rank;
    int64_t xst[AICF_MAX_RANK], st[AICF_MAX_RANK], n = aicf__shape_numel(&y->shape), e, inner, j, si;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_iter it;
    AICF__OP_TRY(aicf__op_transpose_perm(c, perm));
    if (n <= 0) return AICF_SUCCESS;
    if (r == 0) {
        memcpy(out[0], in[0], esz);
        return AICF_SUCCESS;
    }
    xst[r - 1] = 1;
    for (i = r - 2; i >= 0; i--) xst[i] = xst[i + 1] * x->shape.d[i + 1];
    for (i = 0; i < r; i++) st[i] = xst[perm[i]]; /* input stride of output dim i */
    inner = y->shape.d[r - 1];
    si = st[r - 1];
    aicf__op_iter_init(&it, &y->shape, 1, st, NULL, NULL);
    for (e = 0; e < n; e += inner) {
        int64_t base = it.off[0];
        if (esz == 4) {
            const uint32_t* X = (const uint32_t*)in[0];
            uint32_t* Y = (uint32_t*)out[0];
            for (j = 0; j < inner; j++) Y[e + j] = X[base + j * si];
        } else {
            const unsigned char* X = (const unsigned char*)in[0];
            unsigned char* Y = (unsigned char*)out[0];
            for (j = 0; j < inner; j++) memcpy(Y + (size_t)(e + j) * esz, X + (size_t)(base + j * si) * esz, esz);
        }
        aicf__op_iter_next(&it);
    }
    return AICF_SUCCESS;
}

/* Reshape's target shape (from input 1, or attribute 'shape' before opset 5). */
static aicf_result aicf__op_reshape_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK], allowzero = 0, known = 1, total = aicf__shape_numel(&x->shape);
    int cnt, i, neg = -1;
    char b1[160], b2[160];
    if (c->opset < 5) {
        const int64_t* v;
        AICF__OP_TRY(aicf__op_aints(c, "shape", &v, &cnt));
        if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'shape' is missing");
        if (cnt > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'shape' has %d values (rank limit %d)", cnt, AICF_MAX_RANK);
        for (i = 0; i < cnt; i++) sh[i] = v[i];
    } else {
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
        if (c->opset >= 14) AICF__OP_TRY(aicf__op_ai(c, "allowzero", 0, &allowzero));
    }
    memset(o, 0, sizeof *o);
    o->rank = cnt;
    for (i = 0; i < cnt; i++) {
        int64_t d = sh[i];
        if (d == -1) {
            if (neg >= 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has more than one -1");
            neg = i;
            continue;
        }
        if (d < -1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is invalid", i, (long long)d);
        if (d == 0 && !allowzero) {
            if (i >= x->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "shape[%d] = 0 copies a dimension that input 0 (rank %d) lacks", i,
                                  x->shape.rank);
            d = x->shape.d[i];
        }
        o->d[i] = d;
        if (d != 0 && known > INT64_MAX / d) return aicf__op_err(c, AICF_ERROR_LIMIT, "shape overflows");
        known *= d;
    }
    if (neg >= 0) {
        if (allowzero && known == 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has both -1 and 0 with allowzero = 1");
        if (known == 0 || total % known != 0) {
            o->d[neg] = -1;
            return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot reshape input 0 shape %s (%lld elements) to %s",
                              aicf__op_sstr(&x->shape, b1, sizeof b1), (long long)total, aicf__op_sstr(o, b2, sizeof b2));
        }
        o->d[neg] = total / known;
        known = total;
    }
    if (known != total) {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot reshape input 0 shape %s (%lld elements) to %s (%lld elements)",
                          aicf__op_sstr(&x->shape, b1, sizeof b1), (long long)total, aicf__op_sstr(o, b2, sizeof b2),
                          (long long)known);
    }
    return AICF_SUCCESS;
}

/* Unsqueeze/Squeeze axes: attribute before opset 13, (constant, optional for Squeeze) input 1 from 13. */
static aicf_result aicf__op_sq_axes(const aicf__opc* c, int64_t* axes, int* cnt) {
    if (c->opset < 13) {
        const int64_t* v;
        int i;
        AICF__OP_TRY(aicf__op_aints(c, "axes", &v, cnt));
        if (*cnt > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'axes' has %d values (rank limit %d)", *cnt, AICF_MAX_RANK);
        for (i = 0; i < *cnt; i++) axes[i] = v[i];
        return AICF_SUCCESS;
    }
    return aicf__op_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, cnt);
}

static aicf_result aicf__op_unsqueeze_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i, r, k, mark[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_sq_axes(c, axes, &cnt));
    if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required axes are missing");
    r = x->shape.rank + cnt;
    if (r > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", r, AICF_MAX_RANK);
    memset(mark, 0, sizeof mark);
    for (i = 0; i < cnt; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        if (mark[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axes repeat axis %d", a);
        mark[a] = 1;
    }
    memset(o, 0, sizeof *o);
    o->rank = r;
    for (i = 0, k = 0; i < r; i++) o->d[i] = mark[i] ? 1 : x->shape.d[k++];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_squeeze_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i, r = x->shape.rank, mark[AICF_MAX_RANK];
    char b1[160];
    AICF__OP_TRY(aicf__op_sq_axes(c, axes, &cnt));
    memset(mark, 0, sizeof mark);
    if (cnt < 0) {
        for (i = 0; i < r; i++) mark[i] = x->shape.d[i] == 1;
    } else {
        for (i = 0; i < cnt; i++) {
            int a;
            AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
            if (x->shape.d[a] != 1)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot squeeze axis %d of input 0 shape %s (size is not 1)", a,
                                  aicf__op_sstr(&x->shape, b1, sizeof b1));
            mark[a] = 1;
        }
    }
    memset(o, 0, sizeof *o);
    for (i = 0; i < r; i++)
        if (!mark[i]) o->d[o->rank++] = x->shape.d[i];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_flatten_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    int r = x->shape.rank, ax;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    if (axis < -(int64_t)r || axis > (int64_t)r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' %lld is out of range for rank %d", (long long)axis, r);
    ax = (int)(axis < 0 ? axis + r : axis);
    memset(o, 0, sizeof *o);
    o->rank = 2;
    o->d[0] = aicf__op_prod(x->shape.d, 0, ax);
    o->d[1] = aicf__op_prod(x->shape.d, ax, r);
    return AICF_SUCCESS;
}

/* Dropout in inference: checks training_mode (constant input from opset 12). */
static aicf_result aicf__op_dropout_check(const aicf__opc* c) {
    const aicf__tensor* tm = aicf__op_in(c, 2);
    const aicf__tensor* ratio = aicf__op_in(c, 1);
    if (ratio) {
        AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32 | AICF__OP_DTM(AICF_DTYPE_FLOAT64) | AICF__OP_DTM(AICF_DTYPE_FLOAT16)));
        if (aicf__shape_numel(&ratio->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (ratio) must be a scalar", aicf__op_in_name(c, 1));
    }
    if (tm) {
        unsigned char v = 0;
        if (tm->dtype != AICF_DTYPE_BOOL || aicf__shape_numel(&tm->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 2 '%.200s' (training_mode) must be a bool scalar",
                              aicf__op_in_name(c, 2));
        if (!(tm->flags & AICF__T_CONST) || !tm->data || tm->data_bytes < 1)
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 2 '%.200s' must be a constant at plan time (it gives training_mode)",
                              aicf__op_in_name(c, 2));
        memcpy(&v, tm->data, 1);
        if (v) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "training_mode = true is not supported (inference only)");
    }
    return AICF_SUCCESS;
}

/* Dtype of Dropout's mask: BOOL from opset 10, the data type before. */
static aicf_dtype aicf__op_dropout_mask_dt(const aicf__opc* c) {
    return c->opset >= 10 ? AICF_DTYPE_BOOL : aicf__op_in(c, 0)->dtype;
}

static aicf_result aicf__op_infer_alias(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    aicf__op op = c->n->op;
    switch (op) {
    case AICF__OP_Reshape: AICF__OP_TRY(aicf__op_check_io(c, c->opset < 5 ? 1 : 2, c->opset < 5 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Unsqueeze: AICF__OP_TRY(aicf__op_check_io(c, c->opset < 13 ? 1 : 2, c->opset < 13 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Squeeze: AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset < 13 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Dropout: AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset < 12 ? 1 : 3, 1, 2)); break;
    default: AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1)); break;
    }
    AICF__OP_TRY(aicf__op_check_dt(c, 0, op == AICF__OP_Dropout ? AICF__OP_DTM_F32 : AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    switch (op) {
    case AICF__OP_Reshape: AICF__OP_TRY(aicf__op_reshape_shape(c, &o)); break;
    case AICF__OP_Unsqueeze: AICF__OP_TRY(aicf__op_unsqueeze_shape(c, &o)); break;
    case AICF__OP_Squeeze: AICF__OP_TRY(aicf__op_squeeze_shape(c, &o)); break;
    case AICF__OP_Flatten: AICF__OP_TRY(aicf__op_flatten_shape(c, &o)); break;
    case AICF__OP_Dropout:
        AICF__OP_TRY(aicf__op_dropout_check(c));
        o = x->shape;
        AICF__OP_TRY(aicf__op_set_out(c, 1, aicf__op_dropout_mask_dt(c), &o));
        break;
    default: o = x->shape; break;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_alias(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    size_t bytes = aicf__op_tbytes(x);
    if (out[0] != in[0] && bytes) memcpy(out[0], in[0], bytes);
    if (c->n->op == AICF__OP_Dropout && aicf__op_out(c, 1) && out[1]) {
        size_t n = aicf__op_numel(&x->shape), i;
        aicf_dtype mdt = aicf__op_out(c, 1)->dtype;
        if (mdt == AICF_DTYPE_BOOL) memset(out[1], 1, n);
        else
            for (i = 0; i < n; i++) ((float*)out[1])[i] = 1.0f;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Constant, ConstantOfShape, Shape, Cast
   ============================================================================================ */

/* The value of a Constant node: dtype, shape and bytes. */
typedef struct aicf__op_cval {
    aicf_dtype dt;
    aicf__shape shape;
    const void* data;
    size_t bytes;
    int64_t ival; /* storage for value_int */
    float fval;   /* storage for value_float */
} aicf__op_cval;

/* Reads a TENSOR attribute (an unnamed constant of the graph). */
static aicf_result aicf__op_tensor_attr(const aicf__opc* c, const aicf__attrv* a, const aicf__tensor** out) {
    const aicf__tensor* t;
    size_t need;
    *out = NULL;
    if (a->type != AICF_ATTR_TENSOR)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' must be of type TENSOR", a->name ? a->name : "");
    if (a->tensor < 0 || a->tensor >= c->g->n_tensors)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' has no tensor", a->name ? a->name : "");
    t = &c->g->tensors[a->tensor];
    if (!aicf__op_dt_in(t->dtype, AICF__OP_DTM_ALL))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute '%.100s' has data type %s, which is not supported",
                          a->name ? a->name : "", aicf_dtype_name(t->dtype));
    need = aicf__op_tbytes(t);
    if (aicf__shape_numel(&t->shape) < 0 || (need && (!t->data || t->data_bytes < need)))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' holds %zu bytes of data, needs %zu",
                          a->name ? a->name : "", t->data ? t->data_bytes : (size_t)0, need);
    *out = t;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_constant_value(const aicf__opc* c, aicf__op_cval* v) {
    static const char* const unsupported[3] = {"sparse_value", "value_string", "value_strings"};
    const aicf__attrv* a;
    int i, found = 0;
    memset(v, 0, sizeof *v);
    for (i = 0; i < 3; i++)
        if (aicf__attr(c->n, unsupported[i]))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute '%s' is not supported", unsupported[i]);
    if ((a = aicf__attr(c->n, "value")) != NULL) {
        const aicf__tensor* t = NULL;
        AICF__OP_TRY(aicf__op_tensor_attr(c, a, &t));
        v->dt = t->dtype;
        v->shape = t->shape;
        v->data = t->data;
        v->bytes = aicf__op_tbytes(t);
        found++;
    }
    if ((a = aicf__attr(c->n, "value_float")) != NULL) {
        AICF__OP_TRY(aicf__op_af(c, "value_float", 0.0f, &v->fval));
        v->dt = AICF_DTYPE_FLOAT32;
        memset(&v->shape, 0, sizeof v->shape);
        v->data = &v->fval;
        v->bytes = 4;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_int")) != NULL) {
        AICF__OP_TRY(aicf__op_ai(c, "value_int", 0, &v->ival));
        v->dt = AICF_DTYPE_INT64;
        memset(&v->shape, 0, sizeof v->shape);
        v->data = &v->ival;
        v->bytes = 8;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_floats")) != NULL) {
        AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_FLOATS, "FLOATS"));
        v->dt = AICF_DTYPE_FLOAT32;
        memset(&v->shape, 0, sizeof v->shape);
        v->shape.rank = 1;
        v->shape.d[0] = a->count;
        v->data = a->floats;
        v->bytes = (size_t)a->count * 4;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_ints")) != NULL) {
        AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INTS, "INTS"));
        v->dt = AICF_DTYPE_INT64;
        memset(&v->shape, 0, sizeof v->shape);
        v->shape.rank = 1;
        v->shape.d[0] = a->count;
        v->data = a->ints;
        v->bytes = (size_t)a->count * 8;
        found++;
    }
    if (found != 1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "needs exactly one of the attributes value, value_float(s), value_int(s); has %d",
                          found);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_constant(const aicf__opc* c) {
    aicf__op_cval v;
    AICF__OP_TRY(aicf__op_check_io(c, 0, 0, 1, 1));
    AICF__OP_TRY(aicf__op_constant_value(c, &v));
    return aicf__op_set_out(c, 0, v.dt, &v.shape);
}

static aicf_result aicf__op_run_constant(const aicf__opc* c, void* const* out) {
    aicf__op_cval v;
    AICF__OP_TRY(aicf__op_constant_value(c, &v));
    if (v.bytes) memcpy(out[0], v.data, v.bytes);
    return AICF_SUCCESS;
}

/* ConstantOfShape's fill value: attribute 'value' (one element), default float32 0. */
static aicf_result aicf__op_cos_value(const aicf__opc* c, aicf_dtype* dt, const void** val) {
    static const float zero = 0.0f;
    const aicf__attrv* a = aicf__attr(c->n, "value");
    *dt = AICF_DTYPE_FLOAT32;
    *val = &zero;
    if (a) {
        const aicf__tensor* t = NULL;
        AICF__OP_TRY(aicf__op_tensor_attr(c, a, &t));
        if (aicf__shape_numel(&t->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'value' must hold one element");
        *dt = t->dtype;
        *val = t->data;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_cos(const aicf__opc* c) {
    int64_t sh[AICF_MAX_RANK];
    int cnt, i;
    aicf_dtype dt;
    const void* val;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_const_ints(c, 0, "shape", sh, AICF_MAX_RANK, &cnt));
    for (i = 0; i < cnt; i++)
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
    AICF__OP_TRY(aicf__op_cos_value(c, &dt, &val));
    aicf__op_shape_set(&o, cnt, sh);
    return aicf__op_set_out(c, 0, dt, &o);
}

static aicf_result aicf__op_run_cos(const aicf__opc* c, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt;
    const void* val;
    size_t n = aicf__op_numel(&y->shape), esz, i;
    AICF__OP_TRY(aicf__op_cos_value(c, &dt, &val));
    esz = aicf_dtype_size(dt);
    if (esz == 4 && (uintptr_t)out[0] % 4 == 0) { /* float32 and int32 fills: one store per element */
        uint32_t v, *o = (uint32_t*)out[0];
        memcpy(&v, val, 4);
        for (i = 0; i < n; i++) o[i] = v;
    } else {
        for (i = 0; i < n; i++) memcpy((unsigned char*)out[0] + i * esz, val, esz);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_shape_range(const aicf__opc* c, int64_t* start, int64_t* end) {
    int64_t r = aicf__op_in(c, 0)->shape.rank;
    *start = 0;
    *end = r;
    if (c->opset >= 15) {
        AICF__OP_TRY(aicf__op_ai(c, "start", 0, start));
        AICF__OP_TRY(aicf__op_ai(c, "end", r, end));
        if (*start < 0) *start += r;
        if (*end < 0) *end += r;
        *start = *start < 0 ? 0 : (*start > r ? r : *start);
        *end = *end < 0 ? 0 : (*end > r ? r : *end);
        if (*end < *start) *end = *start;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_shape(const aicf__opc* c) {
    int64_t s, e;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_shape_range(c, &s, &e));
    memset(&o, 0, sizeof o);
    o.rank = 1;
    o.d[0] = e - s;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_shape(const aicf__opc* c, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t s, e, i;
    AICF__OP_TRY(aicf__op_shape_range(c, &s, &e));
    for (i = s; i < e; i++) ((int64_t*)out[0])[i - s] = x->shape.d[i];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_cast_to(const aicf__opc* c, aicf_dtype* to) {
    const aicf__attrv* a = aicf__attr(c->n, "to");
    if (!a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'to' is missing");
    if (a->type == AICF_ATTR_STRING) { /* Cast-1: the type name */
        static const char* const names[8] = {"FLOAT", "DOUBLE", "FLOAT16", "INT32", "INT64", "INT8", "UINT8", "BOOL"};
        static const aicf_dtype types[8] = {AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT64, AICF_DTYPE_FLOAT16, AICF_DTYPE_INT32,
                                            AICF_DTYPE_INT64,   AICF_DTYPE_INT8,    AICF_DTYPE_UINT8,   AICF_DTYPE_BOOL};
        int i;
        for (i = 0; i < 8; i++)
            if (a->s && !strcmp(a->s, names[i])) {
                *to = types[i];
                return AICF_SUCCESS;
            }
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'to' = '%.40s' is not a supported type", a->s ? a->s : "");
    }
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INT, "INT"));
    if (a->i <= 0 || a->i >= 32 || !aicf__op_dt_in((aicf_dtype)a->i, AICF__OP_DTM_ALL)) {
        char buf[200];
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'to' = %lld (%s) is not supported (supported: %s)", (long long)a->i,
                          a->i > 0 && a->i < 32 ? aicf_dtype_name((aicf_dtype)a->i) : "?",
                          aicf__op_dtm_str(AICF__OP_DTM_ALL, buf, sizeof buf));
    }
    *to = (aicf_dtype)a->i;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_cast(const aicf__opc* c) {
    aicf_dtype to = AICF_DTYPE_INVALID;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_cast_to(c, &to));
    return aicf__op_set_out(c, 0, to, &aicf__op_in(c, 0)->shape);
}

/* float64 -> float16 (IEEE binary16) with a single rounding to nearest even; converting
   through float32 would round twice. Scaling by powers of two keeps every step exact. */
static uint16_t aicf__op_f64_to_f16(double v) {
    uint16_t sign = (uint16_t)(v < 0.0 || (v == 0.0 && 1.0 / v < 0.0) ? 0x8000u : 0u);
    double a = fabs(v), q;
    int e;
    if (v != v) return 0x7e00u;
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504: infinity */
    if (a < 6.103515625e-05) {                            /* below 2^-14: subnormal (or zero) */
        q = rint(a * 16777216.0);                         /* units of 2^-24 */
        return (uint16_t)(sign | (uint16_t)q);            /* q == 1024 is the smallest normal */
    }
    (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    e -= 1;             /* a = m * 2^e, m in [1, 2) */
    q = rint((ldexp(a, -e) - 1.0) * 1024.0);
    if (q >= 1024.0) {
        q = 0.0;
        e++;
    }
    if (e + 15 >= 31) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)q);
}

/* float -> integer: truncation toward zero, saturated to the type's range; NaN -> 0. */
static int64_t aicf__op_f2i(double v, int64_t lo, int64_t hi) {
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

static aicf_result aicf__op_run_cast(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype from = x->dtype, to = aicf__op_out(c, 0)->dtype;
    int64_t n = aicf__shape_numel(&x->shape), i;
    int via_double = aicf__op_dt_isfloat(from) || (from == AICF_DTYPE_UINT64 && aicf__op_dt_isfloat(to));
    if (from == to) {
        if (n > 0) memcpy(out[0], in[0], (size_t)n * aicf_dtype_size(from));
        return AICF_SUCCESS;
    }
    for (i = 0; i < n; i++) {
        if (via_double) aicf__op_setd(to, out[0], i, aicf__op_getd(from, in[0], i));
        else aicf__op_seti(to, out[0], i, aicf__op_geti(from, in[0], i));
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Broadcasting over up to three operands (comparisons, logic, Where, Mod, PRelu)
   ============================================================================================ */

/* Broadcast shape of inputs 0..n-1 (multidirectional; before opset 7 input 1 follows the
   legacy broadcast/axis attributes). */
static aicf_result aicf__op_bcast_in(const aicf__opc* c, int n, aicf__shape* o) {
    int i;
    aicf__shape s;
    char b1[160], b2[160];
    *o = aicf__op_in(c, 0)->shape;
    for (i = 1; i < n; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        if (!aicf__op_bcast2(o, &s, o))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s cannot be broadcast with %s", i,
                              aicf__op_in_name(c, i), aicf__op_sstr(&s, b1, sizeof b1), aicf__op_sstr(o, b2, sizeof b2));
    }
    return AICF_SUCCESS;
}

/* Iterator over output shape `o` with the broadcast strides of inputs 0..n-1. */
static aicf_result aicf__op_bcast_iter(const aicf__opc* c, int n, const aicf__shape* o, aicf__op_ix* it) {
    int i;
    aicf__shape s;
    aicf__op_ix_init(it, o, n);
    for (i = 0; i < n; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        aicf__op_bcast_strides(&s, o, it->st[i]);
    }
    return AICF_SUCCESS;
}

static int aicf__op_is_cmp(aicf__op op) {
    return op == AICF__OP_Equal || op == AICF__OP_Less || op == AICF__OP_Greater || op == AICF__OP_LessOrEqual ||
           op == AICF__OP_GreaterOrEqual;
}

/* Equal, Less, Greater, LessOrEqual, GreaterOrEqual (any numeric type, Equal also bool) and
   And, Or, Xor (bool): bool output of the broadcast shape. */
static aicf_result aicf__op_infer_compare(const aicf__opc* c) {
    aicf__op op = c->n->op;
    unsigned mask = op == AICF__OP_Equal ? AICF__OP_DTM_ALL : (aicf__op_is_cmp(op) ? AICF__OP_DTM_NUM : AICF__OP_DTM(AICF_DTYPE_BOOL));
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, mask));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, AICF_DTYPE_BOOL, &o);
}

/* -1, 0, 1 for a < b, a == b, a > b; 2 when unordered (NaN). */
static int aicf__op_cmp3(aicf_dtype dt, const void* a, int64_t ia, const void* b, int64_t ib) {
    if (aicf__op_dt_isfloat(dt)) {
        double x = aicf__op_getd(dt, a, ia), y = aicf__op_getd(dt, b, ib);
        if (x != x || y != y) return 2;
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (dt == AICF_DTYPE_UINT64) {
        uint64_t x = ((const uint64_t*)a)[ia], y = ((const uint64_t*)b)[ib];
        return x < y ? -1 : (x > y ? 1 : 0);
    } else {
        int64_t x = aicf__op_geti(dt, a, ia), y = aicf__op_geti(dt, b, ib);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
}

static aicf_result aicf__op_run_compare(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = aicf__op_in(c, 0)->dtype;
    aicf__op op = c->n->op;
    aicf__op_ix it;
    int64_t n = aicf__shape_numel(&y->shape), e;
    uint8_t* Y = (uint8_t*)out[0];
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int r = 0, v;
        if (aicf__op_is_cmp(op)) r = aicf__op_cmp3(dt, in[0], it.off[0], in[1], it.off[1]);
        switch (op) {
        case AICF__OP_Equal: v = r == 0; break;
        case AICF__OP_Less: v = r == -1; break;
        case AICF__OP_Greater: v = r == 1; break;
        case AICF__OP_LessOrEqual: v = r == -1 || r == 0; break;
        case AICF__OP_GreaterOrEqual: v = r == 1 || r == 0; break;
        default: {
            int a = ((const uint8_t*)in[0])[it.off[0]] != 0, b = ((const uint8_t*)in[1])[it.off[1]] != 0;
            v = op == AICF__OP_And ? (a && b) : (op == AICF__OP_Or ? (a || b) : (a != b));
            break;
        }
        }
        Y[e] = (uint8_t)v;
    }
    return AICF_SUCCESS;
}

/* Not, IsNaN, IsInf: elementwise predicates with a bool output. */
static aicf_result aicf__op_infer_pred(const aicf__opc* c) {
    const aicf__tensor* x;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, c->n->op == AICF__OP_Not ? AICF__OP_DTM(AICF_DTYPE_BOOL) : AICF__OP_DTM_FLOATS));
    x = aicf__op_in(c, 0);
    return aicf__op_set_out(c, 0, AICF_DTYPE_BOOL, &x->shape);
}

static aicf_result aicf__op_run_pred(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e, neg = 1, pos = 1;
    uint8_t* Y = (uint8_t*)out[0];
    if (c->n->op == AICF__OP_IsInf) {
        AICF__OP_TRY(aicf__op_ai(c, "detect_negative", 1, &neg));
        AICF__OP_TRY(aicf__op_ai(c, "detect_positive", 1, &pos));
    }
    for (e = 0; e < n; e++) {
        if (c->n->op == AICF__OP_Not) {
            Y[e] = (uint8_t)(((const uint8_t*)in[0])[e] == 0);
        } else {
            double v = aicf__op_getd(x->dtype, in[0], e);
            if (c->n->op == AICF__OP_IsNaN) Y[e] = (uint8_t)(v != v);
            else Y[e] = (uint8_t)((pos && v == INFINITY) || (neg && v == -INFINITY));
        }
    }
    return AICF_SUCCESS;
}

/* Where(condition, X, Y): three-way broadcast, any element type. */
static aicf_result aicf__op_infer_where(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM(AICF_DTYPE_BOOL)));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 1));
    AICF__OP_TRY(aicf__op_bcast_in(c, 3, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 1)->dtype, &o);
}

static aicf_result aicf__op_run_where(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    size_t esz = aicf_dtype_size(y->dtype);
    int64_t n = aicf__shape_numel(&y->shape), e;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_bcast_iter(c, 3, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int pick = ((const uint8_t*)in[0])[it.off[0]] ? 1 : 2;
        memcpy((unsigned char*)out[0] + (size_t)e * esz, (const unsigned char*)in[pick] + (size_t)it.off[pick] * esz, esz);
    }
    return AICF_SUCCESS;
}

/* Mod: fmod = 0: the remainder takes the divisor's sign (numpy.mod, Python's %); fmod = 1: the
   dividend's (C fmod). Integer types are exact; float types compute in double. */
static aicf_result aicf__op_infer_mod(const aicf__opc* c) {
    aicf__shape o;
    int64_t fm;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    AICF__OP_TRY(aicf__op_ai(c, "fmod", 0, &fm));
    if (fm != 0 && fm != 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'fmod' = %lld must be 0 or 1", (long long)fm);
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_mod(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype;
    int64_t n = aicf__shape_numel(&y->shape), e, fm;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_ai(c, "fmod", 0, &fm));
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (aicf__op_dt_isfloat(dt)) {
            double a = aicf__op_getd(dt, in[0], it.off[0]), b = aicf__op_getd(dt, in[1], it.off[1]), r = fmod(a, b);
            if (!fm && b != 0.0) { /* numpy's divmod adjustment */
                if (r != 0.0) {
                    if ((b < 0.0) != (r < 0.0)) r += b;
                } else {
                    r = copysign(0.0, b);
                }
            }
            aicf__op_setd(dt, out[0], e, r);
        } else if (dt == AICF_DTYPE_UINT64) {
            uint64_t a = ((const uint64_t*)in[0])[it.off[0]], b = ((const uint64_t*)in[1])[it.off[1]];
            if (!b) goto divzero;
            ((uint64_t*)out[0])[e] = a % b;
        } else {
            int64_t a = aicf__op_geti(dt, in[0], it.off[0]), b = aicf__op_geti(dt, in[1], it.off[1]), r;
            if (!b) goto divzero;
            r = b == -1 ? 0 : a % b;
            if (!fm && r != 0 && ((r < 0) != (b < 0))) r += b;
            aicf__op_seti(dt, out[0], e, r);
        }
    }
    return AICF_SUCCESS;
divzero:
    return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "integer modulo by zero (input 1 '%.200s')", aicf__op_in_name(c, 1));
}

/* PRelu: slope broadcast (numpy rules) to the shape of X. */
static aicf_result aicf__op_infer_prelu(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    x = aicf__op_in(c, 0);
    if (!aicf__op_bcast2(&x->shape, &aicf__op_in(c, 1)->shape, &o) || o.rank != x->shape.rank ||
        memcmp(o.d, x->shape.d, sizeof(int64_t) * (size_t)o.rank) != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (slope) shape %s does not broadcast to input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&aicf__op_in(c, 1)->shape, b1, sizeof b1),
                          aicf__op_sstr(&x->shape, b2, sizeof b2));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

static aicf_result aicf__op_run_prelu(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e;
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    float* Y = (float*)out[0];
    aicf__op_ix it;
    aicf__op_ix_init(&it, &x->shape, 1);
    aicf__op_bcast_strides(&aicf__op_in(c, 1)->shape, &x->shape, it.st[0]);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) Y[e] = X[e] < 0.0f ? S[it.off[0]] * X[e] : X[e];
    return AICF_SUCCESS;
}

/* BitShift, BitwiseAnd/Or/Xor (integer types): broadcast, exact. BitShift on signed types
   (opset 26): LEFT wraps, RIGHT is arithmetic; a shift outside [0, bits) gives 0 (RIGHT of a
   negative value: -1). */
static aicf_result aicf__op_infer_bitwise(const aicf__opc* c) {
    aicf__shape o;
    unsigned mask = c->n->op == AICF__OP_BitShift && c->opset < 26 ? AICF__OP_DTM_UINT : AICF__OP_DTM_INTS;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    if (c->n->op == AICF__OP_BitShift) {
        const char* dir;
        if (!aicf__attr(c->n, "direction")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'direction' is missing");
        AICF__OP_TRY(aicf__op_as(c, "direction", "", &dir));
        if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'direction' is '%.40s'; expected LEFT or RIGHT", dir);
    }
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_bitwise(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype;
    aicf__op op = c->n->op;
    int64_t n = aicf__shape_numel(&y->shape), e, bits = (int64_t)aicf_dtype_size(dt) * 8;
    int left = 0;
    aicf__op_ix it;
    if (op == AICF__OP_BitShift) {
        const char* dir;
        AICF__OP_TRY(aicf__op_as(c, "direction", "", &dir));
        left = !strcmp(dir, "LEFT");
    }
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        uint64_t a = (uint64_t)aicf__op_geti(dt, in[0], it.off[0]), b = (uint64_t)aicf__op_geti(dt, in[1], it.off[1]), r;
        int sgn = aicf__op_dt_in(dt, AICF__OP_DTM_SINT), neg = sgn && (int64_t)a < 0;
        switch (op) {
        case AICF__OP_BitShift:
            if ((sgn && (int64_t)b < 0) || b >= (uint64_t)bits) r = !left && neg ? (uint64_t)-1 : 0;
            else if (left) r = a << b;
            else r = neg ? ~(~a >> b) : a >> b; /* arithmetic shift of the sign-extended value */
            break;
        case AICF__OP_BitwiseAnd: r = a & b; break;
        case AICF__OP_BitwiseOr: r = a | b; break;
        default: r = a ^ b; break;
        }
        aicf__op_seti(dt, out[0], e, (int64_t)r);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_bitnot(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e;
    for (e = 0; e < n; e++) aicf__op_seti(x->dtype, out[0], e, (int64_t)~(uint64_t)aicf__op_geti(x->dtype, in[0], e));
    return AICF_SUCCESS;
}

/* EyeLike: ones on the k-th diagonal of a 2-D shape, in attribute dtype (default: the input's). */
static aicf_result aicf__op_infer_eyelike(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t dt;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    if (x->shape.rank != 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must be 2-D, has rank %d", aicf__op_in_name(c, 0), x->shape.rank);
    AICF__OP_TRY(aicf__op_ai(c, "dtype", (int64_t)x->dtype, &dt));
    if (dt <= 0 || dt >= 32 || !aicf__op_dt_in((aicf_dtype)dt, AICF__OP_DTM_ALL))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'dtype' = %lld is not supported", (long long)dt);
    return aicf__op_set_out(c, 0, (aicf_dtype)dt, &x->shape);
}

static aicf_result aicf__op_run_eyelike(const aicf__opc* c, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t k, i, j, M = y->shape.d[0], N = y->shape.d[1];
    AICF__OP_TRY(aicf__op_ai(c, "k", 0, &k));
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) aicf__op_seti(y->dtype, out[0], i * N + j, k >= -N - M && k <= N + M && j - i == k);
    return AICF_SUCCESS;
}

/* ============================================================================================
   Indexing and data movement: Gather*, Slice, Split, Pad, Tile, Expand, Trilu, Range, Size,
   OneHot, CumSum, DepthToSpace, SpaceToDepth, Scatter*, TopK, NonZero
   ============================================================================================ */

/* Reads index element j of input i (int32/int64) and wraps negatives into [0, dim); *ok = 0
   when it lies outside [-dim, dim). */
static int64_t aicf__op_index(const aicf__tensor* t, const void* p, int64_t j, int64_t dim, int* ok) {
    int64_t v = aicf__op_geti(t->dtype, p, j);
    *ok = v >= -dim && v < dim;
    return v < 0 ? v + dim : v;
}

/* Checks every index of input i against dim (at plan time when the input is a constant). */
static aicf_result aicf__op_check_indices(const aicf__opc* c, int i, const void* data, int64_t dim, const char* what) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t n = aicf__shape_numel(&t->shape), j;
    int ok;
    if (!data) {
        if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes < aicf__op_tbytes(t)) return AICF_SUCCESS;
        data = t->data;
    }
    for (j = 0; j < n; j++) {
        unsigned char tmp[8]; /* constants borrowed from a model file may be unaligned */
        int64_t v;
        memcpy(tmp, (const unsigned char*)data + (size_t)j * aicf_dtype_size(t->dtype), aicf_dtype_size(t->dtype));
        v = aicf__op_geti(t->dtype, tmp, 0);
        ok = v >= -dim && v < dim;
        if (!ok)
            return aicf__op_err(c, data == t->data ? AICF_ERROR_INVALID_MODEL : AICF_ERROR_INVALID_ARGUMENT,
                              "input %d '%.200s' element %lld = %lld is out of range [%lld, %lld] (%s)", i,
                              aicf__op_in_name(c, i), (long long)j, (long long)v, (long long)-dim, (long long)(dim - 1), what);
    }
    return AICF_SUCCESS;
}

/* Constant scalar input i as double and int64 (`what` names it in messages). */
static aicf_result aicf__op_const_scalar(const aicf__opc* c, int i, const char* what, double* dv, int64_t* iv) {
    const aicf__tensor* t = aicf__op_in(c, i);
    char b1[160];
    if (!t) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d (%s) is omitted", i, what);
    if (aicf__shape_numel(&t->shape) != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) must hold one value, has shape %s", i,
                          aicf__op_in_name(c, i), what, aicf__op_sstr(&t->shape, b1, sizeof b1));
    if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes < aicf_dtype_size(t->dtype))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    {
        unsigned char tmp[8];
        memcpy(tmp, t->data, aicf_dtype_size(t->dtype)); /* borrowed data may be unaligned */
        if (dv) *dv = aicf__op_getd(t->dtype, tmp, 0);
        if (iv) *iv = aicf__op_geti(t->dtype, tmp, 0);
    }
    return AICF_SUCCESS;
}

static void aicf__op_copy_el(void* dst, int64_t di, const void* src, int64_t si, size_t esz) {
    memcpy((unsigned char*)dst + (size_t)di * esz, (const unsigned char*)src + (size_t)si * esz, esz);
}

/* ---- Gather ---- */
static aicf_result aicf__op_gather_axis(const aicf__opc* c, int* ax) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar; expected rank >= 1", aicf__op_in_name(c, 0));
    return aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax);
}

static aicf_result aicf__op_infer_gather(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int ax, i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    if (x->shape.rank - 1 + idx->shape.rank > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", x->shape.rank - 1 + idx->shape.rank, AICF_MAX_RANK);
    memset(&o, 0, sizeof o);
    for (i = 0; i < ax; i++) o.d[o.rank++] = x->shape.d[i];
    for (i = 0; i < idx->shape.rank; i++) o.d[o.rank++] = idx->shape.d[i];
    for (i = ax + 1; i < x->shape.rank; i++) o.d[o.rank++] = x->shape.d[i];
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_gather(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok;
    int64_t outer, A, inner, ni, o, j;
    size_t esz = aicf_dtype_size(x->dtype), row;
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    ni = aicf__shape_numel(&idx->shape);
    row = (size_t)inner * esz;
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], A, "indices"));
    for (o = 0; o < outer; o++)
        for (j = 0; j < ni; j++) {
            int64_t k = aicf__op_index(idx, in[1], j, A, &ok);
            memcpy((unsigned char*)out[0] + (size_t)(o * ni + j) * row, (const unsigned char*)in[0] + (size_t)(o * A + k) * row, row);
        }
    return AICF_SUCCESS;
}

/* ---- GatherElements ---- */
static aicf_result aicf__op_infer_gather_el(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int ax, i;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    for (i = 0; i < x->shape.rank; i++)
        if (idx->shape.rank != x->shape.rank || (i != ax && idx->shape.d[i] > x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) shape %s does not fit input 0 shape %s",
                              aicf__op_in_name(c, 1), aicf__op_sstr(&idx->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &idx->shape);
}

static aicf_result aicf__op_run_gather_el(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok, k;
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&idx->shape), e;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], x->shape.d[ax], "indices"));
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &idx->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++)
            off += (k == ax ? aicf__op_index(idx, in[1], e, x->shape.d[ax], &ok) : it.idx[k]) * xst[k];
        aicf__op_copy_el(out[0], e, in[0], off, esz);
    }
    return AICF_SUCCESS;
}

/* ---- GatherND ---- */
static aicf_result aicf__op_gnd_make(const aicf__opc* c, int64_t* b, int64_t* k) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int q = idx->shape.rank, r = x->shape.rank, i;
    AICF__OP_TRY(aicf__op_ai(c, "batch_dims", 0, b));
    if (q < 1 || r < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "inputs must have rank >= 1");
    *k = idx->shape.d[q - 1];
    if (*b < 0 || *b >= q || *b >= r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'batch_dims' = %lld is out of range", (long long)*b);
    if (*k < 1 || *k > r - *b)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' last dimension %lld must be in [1, %lld]", aicf__op_in_name(c, 1),
                          (long long)*k, (long long)(r - *b));
    for (i = 0; i < *b; i++)
        if (x->shape.d[i] != idx->shape.d[i])
            return aicf__op_err(c, AICF_ERROR_SHAPE, "batch dimension %d differs between data (%lld) and indices (%lld)", i,
                              (long long)x->shape.d[i], (long long)idx->shape.d[i]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gather_nd(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int64_t b, k;
    int i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gnd_make(c, &b, &k));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    memset(&o, 0, sizeof o);
    for (i = 0; i < idx->shape.rank - 1; i++) o.d[o.rank++] = idx->shape.d[i];
    for (i = (int)(b + k); i < x->shape.rank; i++) {
        if (o.rank >= AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank exceeds the limit %d", AICF_MAX_RANK);
        o.d[o.rank++] = x->shape.d[i];
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_gather_nd(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int64_t b, k, xst[AICF_MAX_RANK], nt, t, j, slice, nb, per_batch;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_gnd_make(c, &b, &k));
    aicf__op_strides(&x->shape, xst);
    nt = aicf__op_prod(idx->shape.d, 0, idx->shape.rank - 1); /* index tuples */
    nb = aicf__op_prod(idx->shape.d, 0, (int)b);
    per_batch = nb ? nt / nb : 0;
    slice = aicf__op_prod(x->shape.d, (int)(b + k), x->shape.rank);
    for (t = 0; t < nt; t++) {
        int64_t off = (per_batch ? t / per_batch : 0) * (b > 0 ? xst[b - 1] : 0);
        for (j = 0; j < k; j++) {
            int64_t dim = x->shape.d[b + j];
            int64_t v = aicf__op_geti(idx->dtype, in[1], t * k + j);
            if (v < -dim || v >= dim)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "input 1 '%.200s' element %lld = %lld is out of range [%lld, %lld]",
                                  aicf__op_in_name(c, 1), (long long)(t * k + j), (long long)v, (long long)-dim, (long long)(dim - 1));
            off += (v < 0 ? v + dim : v) * xst[b + j];
        }
        if (slice) memcpy((unsigned char*)out[0] + (size_t)(t * slice) * esz, (const unsigned char*)in[0] + (size_t)off * esz, (size_t)slice * esz);
    }
    return AICF_SUCCESS;
}

/* ---- Slice ---- */
typedef struct aicf__op_sl {
    int64_t start[AICF_MAX_RANK], step[AICF_MAX_RANK];
    aicf__shape o;
} aicf__op_sl;

/* Reads an INTS attribute into vals (at most AICF_MAX_RANK). */
static aicf_result aicf__op_aints_r(const aicf__opc* c, const char* name, int64_t* vals, int* cnt) {
    const int64_t* v;
    int i;
    AICF__OP_TRY(aicf__op_aints(c, name, &v, cnt));
    if (*cnt > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values (rank limit %d)", name, *cnt, AICF_MAX_RANK);
    for (i = 0; i < *cnt; i++) vals[i] = v[i];
    return AICF_SUCCESS;
}

static int64_t aicf__op_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static aicf_result aicf__op_slice_make(const aicf__opc* c, aicf__op_sl* s) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t st[AICF_MAX_RANK], en[AICF_MAX_RANK], ax[AICF_MAX_RANK], sp[AICF_MAX_RANK];
    int ns, ne, na = -1, np = -1, i, r = x->shape.rank, used[AICF_MAX_RANK];
    memset(s, 0, sizeof *s);
    if (c->opset < 10) {
        AICF__OP_TRY(aicf__op_aints_r(c, "starts", st, &ns));
        AICF__OP_TRY(aicf__op_aints_r(c, "ends", en, &ne));
        AICF__OP_TRY(aicf__op_aints_r(c, "axes", ax, &na));
        if (ns < 0 || ne < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attributes 'starts' and 'ends' are missing");
    } else {
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "starts", st, AICF_MAX_RANK, &ns));
        AICF__OP_TRY(aicf__op_const_ints(c, 2, "ends", en, AICF_MAX_RANK, &ne));
        AICF__OP_TRY(aicf__op_const_ints(c, 3, "axes", ax, AICF_MAX_RANK, &na));
        AICF__OP_TRY(aicf__op_const_ints(c, 4, "steps", sp, AICF_MAX_RANK, &np));
    }
    if (ns != ne || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "starts, ends, axes and steps have different lengths (%d, %d, %d, %d)", ns, ne, na, np);
    s->o = x->shape;
    for (i = 0; i < r; i++) {
        s->start[i] = 0;
        s->step[i] = 1;
        used[i] = 0;
    }
    for (i = 0; i < ns; i++) {
        int a;
        int64_t n, b, e, step = np >= 0 ? sp[i] : 1, len;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", na >= 0 ? ax[i] : i, r, &a));
        if (used[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        if (step == 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "steps[%d] is 0", i);
        if (step < -INT64_MAX) step = -INT64_MAX;
        n = x->shape.d[a];
        b = st[i];
        e = en[i];
        if (b < 0) b += n;
        if (e < 0) e += n;
        if (n == 0) {
            b = 0;
            len = 0;
        } else if (step > 0) {
            b = aicf__op_clamp(b, 0, n);
            e = aicf__op_clamp(e, 0, n);
            len = e > b ? (e - b - 1) / step + 1 : 0;
        } else {
            b = aicf__op_clamp(b, 0, n - 1);
            e = aicf__op_clamp(e, -1, n - 1);
            len = b > e ? (b - e - 1) / -step + 1 : 0;
        }
        s->start[a] = b;
        s->step[a] = step;
        s->o.d[a] = len;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_slice(const aicf__opc* c) {
    aicf__op_sl s;
    int i;
    if (c->opset < 10) AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 3, 5, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    for (i = 1; i < 5; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_slice_make(c, &s));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &s.o);
}

static aicf_result aicf__op_run_slice(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_sl s;
    int64_t xst[AICF_MAX_RANK], n, e, base = 0;
    int k;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_slice_make(c, &s));
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &s.o, 1);
    for (k = 0; k < x->shape.rank; k++) {
        base += s.start[k] * xst[k];
        it.st[0][k] = s.step[k] * xst[k];
    }
    n = aicf__shape_numel(&s.o);
    it.off[0] = base;
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) aicf__op_copy_el(out[0], e, in[0], it.off[0], esz);
    return AICF_SUCCESS;
}

/* ---- Split ---- */
typedef struct aicf__op_split {
    int ax;
    int n;                   /* outputs */
    int64_t dim;
    const int64_t* attr;     /* 'split' attribute, or */
    const aicf__tensor* t;   /* 'split' input, or neither: equal parts of `chunk` */
    int64_t chunk;
} aicf__op_split;

static int64_t aicf__op_split_size(const aicf__op_split* s, int k) {
    if (s->attr) return s->attr[k];
    if (s->t) {
        if (s->t->dtype == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, (const unsigned char*)s->t->data + (size_t)k * 4, 4);
            return v;
        } else {
            int64_t v;
            memcpy(&v, (const unsigned char*)s->t->data + (size_t)k * 8, 8);
            return v;
        }
    }
    return k == s->n - 1 ? s->dim - s->chunk * (s->n - 1) : s->chunk;
}

static aicf_result aicf__op_split_make(const aicf__opc* c, aicf__op_split* s) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis, num = 0, sum = 0;
    int cnt = -1, k;
    memset(s, 0, sizeof *s);
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, &s->ax));
    s->n = c->n->n_out;
    s->dim = x->shape.d[s->ax];
    if (c->opset >= 18) AICF__OP_TRY(aicf__op_ai(c, "num_outputs", 0, &num));
    if (c->opset < 13 && aicf__attr(c->n, "split")) {
        AICF__OP_TRY(aicf__op_aints(c, "split", &s->attr, &cnt));
    } else if (aicf__op_in(c, 1)) {
        const aicf__tensor* t = aicf__op_in(c, 1);
        int64_t ne = aicf__shape_numel(&t->shape);
        if (!(t->flags & AICF__T_CONST) || (!t->data && ne > 0))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 1 '%.200s' must be a constant at plan time (it gives the split)",
                              aicf__op_in_name(c, 1));
        if (t->shape.rank > 1 || t->data_bytes < aicf__op_tbytes(t))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 1 '%.200s' (split) must be a 1-D int64 tensor", aicf__op_in_name(c, 1));
        s->t = t;
        cnt = (int)ne;
    }
    if (cnt >= 0 && num)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has both a 'split' input and attribute 'num_outputs'");
    if (num && num != s->n)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'num_outputs' = %lld but the node has %d outputs", (long long)num, s->n);
    if (cnt >= 0) {
        if (cnt != s->n)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, s->n);
        for (k = 0; k < s->n; k++) {
            int64_t v = aicf__op_split_size(s, k);
            if (v < 0 || v > s->dim) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "split[%d] = %lld is invalid", k, (long long)v);
            sum += v;
        }
        if (sum != s->dim)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "split sums to %lld but axis %d has size %lld", (long long)sum, s->ax, (long long)s->dim);
    } else {
        /* equal parts; when the size does not divide, ceil(dim / n) each and a smaller last one */
        s->chunk = s->dim / s->n + (s->dim % s->n != 0);
        if (s->dim - s->chunk * (s->n - 1) < 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot split axis %d of size %lld into %d parts", s->ax, (long long)s->dim, s->n);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_split(const aicf__opc* c) {
    aicf__op_split s;
    const aicf__tensor* x;
    int k;
    AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset >= 13 || c->opset < 2 ? 2 : 1, 1, AICF_MAX_NODE_IO));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_split_make(c, &s));
    x = aicf__op_in(c, 0);
    for (k = 0; k < s.n; k++) {
        aicf__shape o = x->shape;
        o.d[s.ax] = aicf__op_split_size(&s, k);
        AICF__OP_TRY(aicf__op_set_out(c, k, x->dtype, &o));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_split(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_split s;
    int k;
    int64_t outer, inner, pos = 0, o;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_split_make(c, &s));
    outer = aicf__op_prod(x->shape.d, 0, s.ax);
    inner = aicf__op_prod(x->shape.d, s.ax + 1, x->shape.rank);
    for (k = 0; k < s.n; k++) {
        int64_t sk = aicf__op_split_size(&s, k);
        size_t row = (size_t)(sk * inner) * esz;
        if (out[k] && row)
            for (o = 0; o < outer; o++)
                memcpy((unsigned char*)out[k] + (size_t)o * row, (const unsigned char*)in[0] + (size_t)((o * s.dim + pos) * inner) * esz, row);
        pos += sk;
    }
    return AICF_SUCCESS;
}

/* ---- Pad ---- */
enum { AICF__PAD_CONSTANT = 0, AICF__PAD_REFLECT = 1, AICF__PAD_EDGE = 2, AICF__PAD_WRAP = 3 };

typedef struct aicf__op_pad {
    int mode;
    int64_t pb[AICF_MAX_RANK], pe[AICF_MAX_RANK];
    aicf__shape o;
    double value; /* constant before opset 11 (attribute 'value') */
} aicf__op_pad;

static aicf_result aicf__op_pad_make(const aicf__opc* c, aicf__op_pad* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t pads[2 * AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int np = -1, na = -1, r = x->shape.rank, i, used[AICF_MAX_RANK];
    const char* mode;
    char b1[160];
    memset(p, 0, sizeof *p);
    AICF__OP_TRY(aicf__op_as(c, "mode", "constant", &mode));
    if (!strcmp(mode, "constant")) p->mode = AICF__PAD_CONSTANT;
    else if (!strcmp(mode, "reflect")) p->mode = AICF__PAD_REFLECT;
    else if (!strcmp(mode, "edge")) p->mode = AICF__PAD_EDGE;
    else if (!strcmp(mode, "wrap") && c->opset >= 19) p->mode = AICF__PAD_WRAP;
    else return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected constant, reflect, edge or wrap (opset >= 19)", mode);
    if (c->opset < 11) {
        const int64_t* v;
        float f;
        const char* an = c->opset < 2 ? "paddings" : "pads";
        AICF__OP_TRY(aicf__op_aints(c, an, &v, &np));
        if (np < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute '%s' is missing", an);
        if (np > 2 * AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values", an, np);
        for (i = 0; i < np; i++) pads[i] = v[i];
        AICF__OP_TRY(aicf__op_af(c, "value", 0.0f, &f));
        p->value = f;
    } else {
        const aicf__tensor* cv = aicf__op_in(c, 2);
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "pads", pads, 2 * AICF_MAX_RANK, &np));
        if (c->opset >= 18) AICF__OP_TRY(aicf__op_const_ints(c, 3, "axes", axes, AICF_MAX_RANK, &na));
        if (cv && aicf__shape_numel(&cv->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (constant_value) must hold one value, has shape %s",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&cv->shape, b1, sizeof b1));
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if (np != 2 * na)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads has %d values; expected %d (2 per axis)", np, 2 * na);
    memset(used, 0, sizeof used);
    p->o = x->shape;
    for (i = 0; i < na; i++) {
        int a;
        int64_t b = pads[i], e = pads[na + i], n;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        if (used[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        n = x->shape.d[a];
        if (b < -n || e < -n || b > AICF__OP_MAX_WINDOW || e > AICF__OP_MAX_WINDOW || n + b + e < 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "pads (%lld, %lld) are invalid for axis %d of size %lld", (long long)b,
                              (long long)e, a, (long long)n);
        if (p->mode != AICF__PAD_CONSTANT && (b > 0 || e > 0) && n + (b < 0 ? b : 0) + (e < 0 ? e : 0) <= 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "mode '%s' cannot pad axis %d: it has no elements", mode, a);
        p->pb[a] = b;
        p->pe[a] = e;
        p->o.d[a] = n + b + e;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_pad(const aicf__opc* c) {
    aicf__op_pad p;
    if (c->opset < 11) AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 2, c->opset >= 18 ? 4 : 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    AICF__OP_TRY(aicf__op_check_dt(c, 3, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_pad_make(c, &p));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &p.o);
}

/* Index into an axis of n elements for position i (outside [0, n) for the padding). */
static int64_t aicf__op_pad_index(int mode, int64_t i, int64_t n) {
    int64_t m;
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case AICF__PAD_EDGE: return i < 0 ? 0 : n - 1;
    case AICF__PAD_WRAP:
        m = i % n;
        return m < 0 ? m + n : m;
    case AICF__PAD_REFLECT:
        if (n == 1) return 0;
        m = i % (2 * (n - 1));
        if (m < 0) m += 2 * (n - 1);
        return m >= n ? 2 * (n - 1) - m : m;
    default: return -1;
    }
}

static aicf_result aicf__op_run_pad(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_pad p;
    int64_t xst[AICF_MAX_RANK], lo[AICF_MAX_RANK], cn[AICF_MAX_RANK], n, e;
    int k, r = x->shape.rank;
    size_t esz = aicf_dtype_size(x->dtype);
    unsigned char val[8];
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_pad_make(c, &p));
    memset(val, 0, sizeof val);
    if (c->opset < 11) aicf__op_setd(x->dtype, val, 0, p.value);
    else if (aicf__op_in(c, 2) && in[2]) memcpy(val, in[2], esz);
    aicf__op_strides(&x->shape, xst);
    /* negative pads crop first; the cropped input is then padded */
    for (k = 0; k < r; k++) {
        lo[k] = p.pb[k] < 0 ? -p.pb[k] : 0;
        cn[k] = x->shape.d[k] - lo[k] - (p.pe[k] < 0 ? -p.pe[k] : 0);
    }
    n = aicf__shape_numel(&p.o);
    aicf__op_ix_init(&it, &p.o, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        int inside = 1;
        for (k = 0; k < r && inside; k++) {
            int64_t i = it.idx[k] - (p.pb[k] > 0 ? p.pb[k] : 0);
            i = aicf__op_pad_index(p.mode, i, cn[k]);
            if (i < 0) inside = 0;
            else off += (lo[k] + i) * xst[k];
        }
        if (inside) aicf__op_copy_el(out[0], e, in[0], off, esz);
        else memcpy((unsigned char*)out[0] + (size_t)e * esz, val, esz);
    }
    return AICF_SUCCESS;
}

/* ---- Tile, Expand ---- */
static aicf_result aicf__op_tile_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t rep[AICF_MAX_RANK];
    int cnt, i;
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "repeats", rep, AICF_MAX_RANK, &cnt));
    if (cnt != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "repeats has %d values; input 0 has rank %d", cnt, x->shape.rank);
    *o = x->shape;
    for (i = 0; i < cnt; i++) {
        if (rep[i] < 0 || (x->shape.d[i] && rep[i] > INT64_MAX / x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "repeats[%d] = %lld is invalid", i, (long long)rep[i]);
        o->d[i] = x->shape.d[i] * rep[i];
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_expand_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK];
    int cnt, i;
    aicf__shape s;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
    for (i = 0; i < cnt; i++)
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
    aicf__op_shape_set(&s, cnt, sh);
    if (!aicf__op_bcast2(&x->shape, &s, o))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 shape %s cannot be broadcast to %s", aicf__op_sstr(&x->shape, b1, sizeof b1),
                          aicf__op_sstr(&s, b2, sizeof b2));
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_tile_expand(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    if (c->n->op == AICF__OP_Tile) AICF__OP_TRY(aicf__op_tile_shape(c, &o));
    else AICF__OP_TRY(aicf__op_expand_shape(c, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_tile_expand(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t n = aicf__shape_numel(&y->shape), e, xst[AICF_MAX_RANK];
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    int k;
    if (c->n->op == AICF__OP_Expand) {
        aicf__op_ix_init(&it, &y->shape, 1);
        aicf__op_bcast_strides(&x->shape, &y->shape, it.st[0]);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) aicf__op_copy_el(out[0], e, in[0], it.off[0], esz);
        return AICF_SUCCESS;
    }
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &y->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++) off += (it.idx[k] % x->shape.d[k]) * xst[k];
        aicf__op_copy_el(out[0], e, in[0], off, esz);
    }
    return AICF_SUCCESS;
}

/* ---- Trilu ---- */
static aicf_result aicf__op_infer_trilu(const aicf__opc* c) {
    const aicf__tensor* x;
    const aicf__tensor* k;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_INT64)));
    x = aicf__op_in(c, 0);
    k = aicf__op_in(c, 1);
    if (x->shape.rank < 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected >= 2", aicf__op_in_name(c, 0), x->shape.rank);
    if (k && aicf__shape_numel(&k->shape) != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (k) must be a scalar", aicf__op_in_name(c, 1));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_trilu(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t upper, k = 0, M = x->shape.d[x->shape.rank - 2], N = x->shape.d[x->shape.rank - 1], B, b, i, j;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_ai(c, "upper", 1, &upper));
    if (aicf__op_in(c, 1) && in[1]) memcpy(&k, in[1], 8);
    k = aicf__op_clamp(k, -(M + N), M + N); /* j - i lies in (-M, N): keeps the comparison exact */
    B = aicf__op_prod(x->shape.d, 0, x->shape.rank - 2);
    for (b = 0; b < B; b++)
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                int64_t e = (b * M + i) * N + j;
                int keep = upper ? j - i >= k : j - i <= k;
                if (keep) aicf__op_copy_el(out[0], e, in[0], e, esz);
                else memset((unsigned char*)out[0] + (size_t)e * esz, 0, esz);
            }
    return AICF_SUCCESS;
}

/* ---- Range ---- */
static aicf_result aicf__op_range_len(const aicf__opc* c, int64_t* len) {
    const aicf__tensor* t = aicf__op_in(c, 0);
    double ds, dl, dd;
    int64_t is, il, id;
    AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", &ds, &is));
    AICF__OP_TRY(aicf__op_const_scalar(c, 1, "limit", &dl, &il));
    AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", &dd, &id));
    if (aicf__op_dt_isfloat(t->dtype)) {
        double n;
        if (dd == 0.0 || dd != dd || ds != ds || dl != dl || isinf(ds) || isinf(dl))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "start %g, limit %g, delta %g give no finite range", ds, dl, dd);
        n = ceil((dl - ds) / dd);
        if (n > 9.0e15) return aicf__op_err(c, AICF_ERROR_LIMIT, "range of %g elements is too long", n);
        *len = n > 0 ? (int64_t)n : 0;
    } else {
        uint64_t diff, ad;
        if (id == 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "delta is 0");
        if ((id > 0 && il <= is) || (id < 0 && il >= is)) {
            *len = 0;
            return AICF_SUCCESS;
        }
        diff = id > 0 ? (uint64_t)il - (uint64_t)is : (uint64_t)is - (uint64_t)il;
        ad = id > 0 ? (uint64_t)id : 0 - (uint64_t)id;
        diff = diff / ad + (diff % ad != 0);
        if (diff > (uint64_t)INT64_MAX) return aicf__op_err(c, AICF_ERROR_LIMIT, "range is too long");
        *len = (int64_t)diff;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_range(const aicf__opc* c) {
    int64_t n = 0;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    for (i = 1; i < 3; i++) AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    AICF__OP_TRY(aicf__op_range_len(c, &n));
    memset(&o, 0, sizeof o);
    o.rank = 1;
    o.d[0] = n;
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_range(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf_dtype dt = aicf__op_in(c, 0)->dtype;
    int64_t n = aicf__op_out(c, 0)->shape.d[0], i;
    (void)in;
    if (aicf__op_dt_isfloat(dt)) {
        double s, d;
        AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", &s, NULL));
        AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", &d, NULL));
        for (i = 0; i < n; i++) aicf__op_setd(dt, out[0], i, s + (double)i * d);
    } else {
        int64_t s, d;
        AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", NULL, &s));
        AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", NULL, &d));
        for (i = 0; i < n; i++) aicf__op_seti(dt, out[0], i, (int64_t)((uint64_t)s + (uint64_t)i * (uint64_t)d));
    }
    return AICF_SUCCESS;
}

/* ---- Size, CastLike ---- */
static aicf_result aicf__op_infer_size(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    memset(&o, 0, sizeof o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_infer_castlike(const aicf__opc* c) {
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_ALL));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 1)->dtype, &aicf__op_in(c, 0)->shape);
}

/* ---- OneHot ---- */
static aicf_result aicf__op_onehot_make(const aicf__opc* c, int* ax, int64_t* depth) {
    const aicf__tensor* idx = aicf__op_in(c, 0);
    const aicf__tensor* v = aicf__op_in(c, 2);
    int64_t axis;
    double dd;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, idx->shape.rank + 1, ax));
    AICF__OP_TRY(aicf__op_const_scalar(c, 1, "depth", &dd, depth));
    if (dd < 1.0 || dd > (double)AICF__OP_MAX_WINDOW)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "depth %g is out of range", dd);
    if (aicf__shape_numel(&v->shape) != 2 || v->shape.rank != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (values) must have shape [2]", aicf__op_in_name(c, 2));
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_onehot(const aicf__opc* c) {
    const aicf__tensor* idx;
    int ax, i;
    int64_t depth;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_ALL));
    idx = aicf__op_in(c, 0);
    if (idx->shape.rank + 1 > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", idx->shape.rank + 1, AICF_MAX_RANK);
    AICF__OP_TRY(aicf__op_onehot_make(c, &ax, &depth));
    memset(&o, 0, sizeof o);
    for (i = 0; i < ax; i++) o.d[o.rank++] = idx->shape.d[i];
    o.d[o.rank++] = depth;
    for (i = ax; i < idx->shape.rank; i++) o.d[o.rank++] = idx->shape.d[i];
    return aicf__op_set_out(c, 0, aicf__op_in(c, 2)->dtype, &o);
}

static aicf_result aicf__op_run_onehot(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* idx = aicf__op_in(c, 0);
    size_t esz = aicf_dtype_size(aicf__op_in(c, 2)->dtype);
    int ax;
    int64_t depth, outer, inner, o, d, i;
    AICF__OP_TRY(aicf__op_onehot_make(c, &ax, &depth));
    outer = aicf__op_prod(idx->shape.d, 0, ax);
    inner = aicf__op_prod(idx->shape.d, ax, idx->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t v = aicf__op_geti(idx->dtype, in[0], o * inner + i);
            if (v < 0) v += depth;
            for (d = 0; d < depth; d++) aicf__op_copy_el(out[0], (o * depth + d) * inner + i, in[2], v == d ? 1 : 0, esz);
        }
    return AICF_SUCCESS;
}

/* ---- CumSum ---- */
static aicf_result aicf__op_cumsum_axis(const aicf__opc* c, const void* axis_data, int* ax) {
    const aicf__tensor* t = aicf__op_in(c, 1);
    unsigned char tmp[8];
    if (aicf__shape_numel(&t->shape) != 1 || t->shape.rank > 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (axis) must be a scalar", aicf__op_in_name(c, 1));
    if (!axis_data) {
        if (!(t->flags & AICF__T_CONST) || !t->data) {
            *ax = -1;
            return AICF_SUCCESS; /* known at run time */
        }
        axis_data = t->data;
    }
    memcpy(tmp, axis_data, aicf_dtype_size(t->dtype));
    return aicf__op_axis(c, "axis", aicf__op_geti(t->dtype, tmp, 0), aicf__op_in(c, 0)->shape.rank, ax);
}

static aicf_result aicf__op_infer_cumsum(const aicf__opc* c) {
    int ax;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    if (aicf__op_in(c, 0)->shape.rank < 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_cumsum_axis(c, NULL, &ax));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_cumsum(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype dt = x->dtype;
    int ax, fl = aicf__op_dt_isfloat(dt), prod = c->n->op == AICF__OP_CumProd;
    int64_t excl, rev, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_cumsum_axis(c, in[1], &ax));
    AICF__OP_TRY(aicf__op_ai(c, "exclusive", 0, &excl));
    AICF__OP_TRY(aicf__op_ai(c, "reverse", 0, &rev));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double sd = prod ? 1.0 : 0.0;
            uint64_t si = prod ? 1u : 0u;
            for (a = 0; a < A; a++) {
                int64_t e = (o * A + (rev ? A - 1 - a : a)) * inner + i;
                if (fl) {
                    double v = aicf__op_getd(dt, in[0], e);
                    if (!excl) sd = prod ? sd * v : sd + v;
                    aicf__op_setd(dt, out[0], e, sd);
                    if (excl) sd = prod ? sd * v : sd + v;
                    if (dt == AICF_DTYPE_FLOAT32) sd = (float)sd; /* a float32 running value */
                } else {
                    uint64_t v = (uint64_t)aicf__op_geti(dt, in[0], e);
                    if (!excl) si = prod ? si * v : si + v;
                    aicf__op_seti(dt, out[0], e, (int64_t)si);
                    if (excl) si = prod ? si * v : si + v;
                }
            }
        }
    return AICF_SUCCESS;
}

/* ---- DepthToSpace, SpaceToDepth ---- */
static aicf_result aicf__op_d2s_make(const aicf__opc* c, int64_t* b, int* crd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const char* mode = "DCR";
    char b1[160];
    int d2s = c->n->op == AICF__OP_DepthToSpace;
    *crd = 0;
    if (!aicf__attr(c->n, "blocksize")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'blocksize' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "blocksize", 0, b));
    if (*b < 1 || *b > 65536) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'blocksize' = %lld is invalid", (long long)*b);
    AICF__OP_TRY(aicf__op_as(c, "mode", "DCR", &mode));
    if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected DCR or CRD", mode);
    *crd = !strcmp(mode, "CRD");
    if (x->shape.rank != 4)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' shape %s is not 4-D (NCHW)", aicf__op_in_name(c, 0),
                          aicf__op_sstr(&x->shape, b1, sizeof b1));
    if (d2s ? x->shape.d[1] % (*b * *b) != 0 : (x->shape.d[2] % *b != 0 || x->shape.d[3] % *b != 0))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 shape %s is not divisible by blocksize %lld", aicf__op_sstr(&x->shape, b1, sizeof b1),
                          (long long)*b);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_d2s(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t b;
    int crd;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_d2s_make(c, &b, &crd));
    x = aicf__op_in(c, 0);
    o = x->shape;
    if (c->n->op == AICF__OP_DepthToSpace) {
        o.d[1] /= b * b;
        o.d[2] *= b;
        o.d[3] *= b;
    } else {
        o.d[1] *= b * b;
        o.d[2] /= b;
        o.d[3] /= b;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_d2s(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t b, n, ch, h, w, Cy = y->shape.d[1], Hy = y->shape.d[2], Wy = y->shape.d[3];
    int64_t Cx = x->shape.d[1], Hx = x->shape.d[2], Wx = x->shape.d[3], e = 0;
    int crd, d2s = c->n->op == AICF__OP_DepthToSpace;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_d2s_make(c, &b, &crd));
    for (n = 0; n < y->shape.d[0]; n++)
        for (ch = 0; ch < Cy; ch++)
            for (h = 0; h < Hy; h++)
                for (w = 0; w < Wy; w++, e++) {
                    int64_t xc, xh, xw;
                    if (d2s) {
                        int64_t bh = h % b, bw = w % b;
                        xc = crd ? ch * b * b + bh * b + bw : (bh * b + bw) * Cy + ch;
                        xh = h / b;
                        xw = w / b;
                    } else {
                        /* DCR: channel (bh * b + bw) * C + c; CRD: c * b * b + bh * b + bw */
                        int64_t blk = crd ? ch % (b * b) : ch / Cx, cc = crd ? ch / (b * b) : ch % Cx;
                        xc = cc;
                        xh = h * b + blk / b;
                        xw = w * b + blk % b;
                    }
                    aicf__op_copy_el(out[0], e, in[0], ((n * Cx + xc) * Hx + xh) * Wx + xw, esz);
                }
    return AICF_SUCCESS;
}

/* ---- ScatterND, ScatterElements (and Scatter, opset 9-10) ---- */
enum { AICF__RED_NONE = 0, AICF__RED_ADD = 1, AICF__RED_MUL = 2, AICF__RED_MAX = 3, AICF__RED_MIN = 4 };

static aicf_result aicf__op_scatter_red(const aicf__opc* c, int* red) {
    const char* r;
    AICF__OP_TRY(aicf__op_as(c, "reduction", "none", &r));
    if (!strcmp(r, "none")) *red = AICF__RED_NONE;
    else if (!strcmp(r, "add")) *red = AICF__RED_ADD;
    else if (!strcmp(r, "mul")) *red = AICF__RED_MUL;
    else if (!strcmp(r, "max")) *red = AICF__RED_MAX;
    else if (!strcmp(r, "min")) *red = AICF__RED_MIN;
    else return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'reduction' is '%.40s'; expected none, add, mul, max or min", r);
    return AICF_SUCCESS;
}

/* dst[di] = reduce(dst[di], src[si]) */
static void aicf__op_scatter_el(aicf_dtype dt, int red, void* dst, int64_t di, const void* src, int64_t si) {
    size_t esz = aicf_dtype_size(dt);
    if (red == AICF__RED_NONE) {
        aicf__op_copy_el(dst, di, src, si, esz);
    } else if (aicf__op_dt_isfloat(dt)) {
        double a = aicf__op_getd(dt, dst, di), b = aicf__op_getd(dt, src, si);
        double r = red == AICF__RED_ADD ? a + b : red == AICF__RED_MUL ? a * b : red == AICF__RED_MAX ? (a > b ? a : b) : (a < b ? a : b);
        aicf__op_setd(dt, dst, di, dt == AICF_DTYPE_FLOAT32 ? (double)(float)r : r);
    } else {
        int64_t a = aicf__op_geti(dt, dst, di), b = aicf__op_geti(dt, src, si), r;
        if (red == AICF__RED_ADD) r = (int64_t)((uint64_t)a + (uint64_t)b);
        else if (red == AICF__RED_MUL) r = (int64_t)((uint64_t)a * (uint64_t)b);
        else if (dt == AICF_DTYPE_UINT64) r = (red == AICF__RED_MAX) == ((uint64_t)a > (uint64_t)b) ? a : b;
        else r = red == AICF__RED_MAX ? (a > b ? a : b) : (a < b ? a : b);
        aicf__op_seti(dt, dst, di, r);
    }
}

static aicf_result aicf__op_infer_scatter_nd(const aicf__opc* c) {
    const aicf__tensor *x, *idx, *u;
    int q, i, red, ok;
    int64_t k;
    aicf__shape want;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    u = aicf__op_in(c, 2);
    q = idx->shape.rank;
    if (q < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) is a scalar", aicf__op_in_name(c, 1));
    k = idx->shape.d[q - 1];
    if (k < 1 || k > x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' last dimension %lld must be in [1, %d]", aicf__op_in_name(c, 1),
                          (long long)k, x->shape.rank);
    memset(&want, 0, sizeof want);
    for (i = 0; i < q - 1; i++) want.d[want.rank++] = idx->shape.d[i];
    for (i = (int)k; i < x->shape.rank && want.rank < AICF_MAX_RANK; i++) want.d[want.rank++] = x->shape.d[i];
    ok = want.rank == u->shape.rank;
    for (i = 0; ok && i < want.rank; i++) ok = want.d[i] == u->shape.d[i];
    if (!ok)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (updates) shape %s; expected %s", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&u->shape, b1, sizeof b1), aicf__op_sstr(&want, b2, sizeof b2));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_scatter_nd(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int red;
    int64_t k = idx->shape.d[idx->shape.rank - 1], xst[AICF_MAX_RANK], nt, t, j, slice, s;
    AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    aicf__op_strides(&x->shape, xst);
    nt = aicf__op_prod(idx->shape.d, 0, idx->shape.rank - 1);
    slice = aicf__op_prod(x->shape.d, (int)k, x->shape.rank);
    memcpy(out[0], in[0], aicf__op_tbytes(x));
    for (t = 0; t < nt; t++) {
        int64_t off = 0;
        for (j = 0; j < k; j++) {
            int64_t dim = x->shape.d[j], v = aicf__op_geti(idx->dtype, in[1], t * k + j);
            if (v < -dim || v >= dim)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "input 1 '%.200s' element %lld = %lld is out of range [%lld, %lld]",
                                  aicf__op_in_name(c, 1), (long long)(t * k + j), (long long)v, (long long)-dim, (long long)(dim - 1));
            off += (v < 0 ? v + dim : v) * xst[j];
        }
        for (s = 0; s < slice; s++) aicf__op_scatter_el(x->dtype, red, out[0], off + s, in[2], t * slice + s);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_scatter_el(const aicf__opc* c) {
    const aicf__tensor *x, *idx, *u;
    int ax, i, red = 0;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    if (c->n->op == AICF__OP_ScatterElements) AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    u = aicf__op_in(c, 2);
    for (i = 0; i < idx->shape.rank; i++)
        if (u->shape.rank != idx->shape.rank || u->shape.d[i] != idx->shape.d[i])
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (updates) shape %s differs from indices shape %s",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&u->shape, b1, sizeof b1), aicf__op_sstr(&idx->shape, b2, sizeof b2));
    for (i = 0; i < x->shape.rank; i++)
        if (idx->shape.rank != x->shape.rank || (i != ax && idx->shape.d[i] > x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) shape %s does not fit input 0 shape %s",
                              aicf__op_in_name(c, 1), aicf__op_sstr(&idx->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_scatter_el(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok, k, red = 0;
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&idx->shape), e;
    aicf__op_ix it;
    if (c->n->op == AICF__OP_ScatterElements) AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], x->shape.d[ax], "indices"));
    aicf__op_strides(&x->shape, xst);
    memcpy(out[0], in[0], aicf__op_tbytes(x));
    aicf__op_ix_init(&it, &idx->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++)
            off += (k == ax ? aicf__op_index(idx, in[1], e, x->shape.d[ax], &ok) : it.idx[k]) * xst[k];
        aicf__op_scatter_el(x->dtype, red, out[0], off, in[2], e);
    }
    return AICF_SUCCESS;
}

/* ---- TopK ---- */
static aicf_result aicf__op_topk_make(const aicf__opc* c, int* ax, int64_t* k) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    if (c->opset < 10) {
        if (!aicf__attr(c->n, "k")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'k' is missing");
        AICF__OP_TRY(aicf__op_ai(c, "k", 0, k));
    } else {
        int64_t v[1];
        int cnt;
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "K", v, 1, &cnt));
        if (cnt != 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 1 '%.200s' (K) must hold one value", aicf__op_in_name(c, 1));
        *k = v[0];
    }
    if (*k < 0 || *k > x->shape.d[*ax])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "k = %lld is out of range for axis %d of size %lld", (long long)*k, *ax,
                          (long long)x->shape.d[*ax]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_topk(const aicf__opc* c) {
    int ax;
    int64_t k;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, c->opset < 10 ? 1 : 2, c->opset < 10 ? 1 : 2, 2, 2));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_topk_make(c, &ax, &k));
    o = aicf__op_in(c, 0)->shape;
    o.d[ax] = k;
    AICF__OP_TRY(aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o));
    return aicf__op_set_out(c, 1, AICF_DTYPE_INT64, &o);
}

/* a before b in the TopK order: larger (or smaller) values first, then lower indices */
static int aicf__op_topk_before(double va, int64_t ia, double vb, int64_t ib, int largest) {
    if (va != vb) return largest ? va > vb : va < vb;
    return ia < ib;
}

static aicf_result aicf__op_run_topk(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int ax;
    int64_t k, largest, outer, A, inner, o, i, a, j, *idx, *tmp;
    double* val;
    AICF__OP_TRY(aicf__op_topk_make(c, &ax, &k));
    AICF__OP_TRY(aicf__op_ai(c, "largest", 1, &largest));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    if (k == 0 || A == 0) return AICF_SUCCESS;
    idx = (int64_t*)aicf__calloc(c->ctx, (size_t)A * 2, sizeof(int64_t));
    val = (double*)aicf__calloc(c->ctx, (size_t)A, sizeof(double));
    if (!idx || !val) {
        aicf__free(c->ctx, idx);
        aicf__free(c->ctx, val);
        return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    tmp = idx + A;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t w;
            for (a = 0; a < A; a++) {
                val[a] = aicf__op_getd(x->dtype, in[0], (o * A + a) * inner + i);
                idx[a] = a;
            }
            /* bottom-up merge sort of idx (stable) */
            for (w = 1; w < A; w *= 2) {
                for (j = 0; j < A; j += 2 * w) {
                    int64_t l = j, m = j + w < A ? j + w : A, r = j + 2 * w < A ? j + 2 * w : A, p = l, q = m, t = l;
                    while (p < m || q < r) {
                        if (q >= r || (p < m && !aicf__op_topk_before(val[idx[q]], idx[q], val[idx[p]], idx[p], (int)largest)))
                            tmp[t++] = idx[p++];
                        else
                            tmp[t++] = idx[q++];
                    }
                }
                memcpy(idx, tmp, (size_t)A * sizeof(int64_t));
            }
            for (a = 0; a < k; a++) {
                int64_t e = (o * k + a) * inner + i;
                aicf__op_copy_el(out[0], e, in[0], (o * A + idx[a]) * inner + i, aicf_dtype_size(x->dtype));
                if (out[1]) ((int64_t*)out[1])[e] = idx[a];
            }
        }
    aicf__free(c->ctx, idx);
    aicf__free(c->ctx, val);
    return AICF_SUCCESS;
}

/* ---- NonZero (its output shape depends on the values: constant input only) ---- */
static int aicf__op_nz(aicf_dtype dt, const void* p, int64_t i) {
    if (aicf__op_dt_isfloat(dt)) return aicf__op_getd(dt, p, i) != 0.0;
    return aicf__op_geti(dt, p, i) != 0;
}

static aicf_result aicf__op_infer_nonzero(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t n, e, nnz = 0;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    n = aicf__shape_numel(&x->shape);
    if (!(x->flags & AICF__T_CONST) || (n > 0 && (!x->data || x->data_bytes < aicf__op_tbytes(x))))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED,
                          "input 0 '%.200s' must be a constant at plan time (NonZero's output shape depends on its values)",
                          aicf__op_in_name(c, 0));
    for (e = 0; e < n; e++) {
        unsigned char tmp[8];
        memcpy(tmp, (const unsigned char*)x->data + (size_t)e * aicf_dtype_size(x->dtype), aicf_dtype_size(x->dtype));
        nnz += aicf__op_nz(x->dtype, tmp, 0);
    }
    memset(&o, 0, sizeof o);
    o.rank = 2;
    o.d[0] = x->shape.rank > 0 ? x->shape.rank : 1;
    o.d[1] = nnz;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_nonzero(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e, nnz = y->shape.d[1], j = 0;
    int k, r = x->shape.rank;
    aicf__op_ix it;
    aicf__op_ix_init(&it, &x->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (!aicf__op_nz(x->dtype, in[0], e)) continue;
        if (j >= nnz) return aicf__op_err(c, AICF_ERROR_STATE, "input 0 changed after planning");
        if (r == 0) ((int64_t*)out[0])[j] = 0;
        for (k = 0; k < r; k++) ((int64_t*)out[0])[k * nnz + j] = it.idx[k];
        j++;
    }
    return AICF_SUCCESS;
}

/* ---- Compress (constant condition), ReverseSequence, CenterCropPad ---- */
static aicf_result aicf__op_compress_make(const aicf__opc* c, int* ax, int64_t* n_sel) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cond = aicf__op_in(c, 1);
    int64_t axis, nc = aicf__shape_numel(&cond->shape), i, lim;
    *ax = -1;
    *n_sel = 0;
    if (cond->shape.rank != 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (condition) must be 1-D", aicf__op_in_name(c, 1));
    if (!(cond->flags & AICF__T_CONST) || (nc > 0 && (!cond->data || cond->data_bytes < (size_t)nc)))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED,
                          "input 1 '%.200s' must be a constant at plan time (Compress's output shape depends on it)", aicf__op_in_name(c, 1));
    if (aicf__attr(c->n, "axis")) {
        int a;
        AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
        AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, &a));
        *ax = a;
    }
    lim = *ax >= 0 ? x->shape.d[*ax] : aicf__shape_numel(&x->shape);
    if (nc > lim)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 (condition) has %lld values for %lld elements", (long long)nc, (long long)lim);
    for (i = 0; i < nc; i++) *n_sel += ((const unsigned char*)cond->data)[i] != 0;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_compress(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax;
    int64_t ns;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_BOOL)));
    AICF__OP_TRY(aicf__op_compress_make(c, &ax, &ns));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    if (ax < 0) {
        o.rank = 1;
        o.d[0] = ns;
    } else {
        o = x->shape;
        o.d[ax] = ns;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_compress(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cond = aicf__op_in(c, 1);
    const unsigned char* cd = (const unsigned char*)in[1];
    int ax;
    int64_t ns, nc = aicf__shape_numel(&cond->shape), outer, A, inner, o, i, j = 0;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_compress_make(c, &ax, &ns));
    if (ax < 0) {
        for (i = 0; i < nc; i++)
            if (cd[i]) aicf__op_copy_el(out[0], j++, in[0], i, esz);
        return AICF_SUCCESS;
    }
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0, j = 0; i < nc; i++)
            if (cd[i]) {
                memcpy((unsigned char*)out[0] + (size_t)((o * ns + j) * inner) * esz, (const unsigned char*)in[0] + (size_t)((o * A + i) * inner) * esz,
                       (size_t)inner * esz);
                j++;
            }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_revseq_make(const aicf__opc* c, int* bax, int* tax) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* sl = aicf__op_in(c, 1);
    int64_t b, t;
    AICF__OP_TRY(aicf__op_ai(c, "batch_axis", 1, &b));
    AICF__OP_TRY(aicf__op_ai(c, "time_axis", 0, &t));
    if (x->shape.rank < 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must have rank >= 2", aicf__op_in_name(c, 0));
    if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attributes batch_axis = %lld and time_axis = %lld must be 0 and 1", (long long)b,
                          (long long)t);
    *bax = (int)b;
    *tax = (int)t;
    if (sl->shape.rank != 1 || sl->shape.d[0] != x->shape.d[b])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (sequence_lens) must have shape [%lld]", aicf__op_in_name(c, 1),
                          (long long)x->shape.d[b]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_revseq(const aicf__opc* c) {
    int b, t;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_INT64)));
    AICF__OP_TRY(aicf__op_revseq_make(c, &b, &t));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_revseq(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int b, t;
    int64_t T, B, inner, bi, ti;
    size_t esz = aicf_dtype_size(x->dtype), row;
    AICF__OP_TRY(aicf__op_revseq_make(c, &b, &t));
    T = x->shape.d[t];
    B = x->shape.d[b];
    inner = aicf__op_prod(x->shape.d, 2, x->shape.rank);
    row = (size_t)inner * esz;
    for (bi = 0; bi < B; bi++) {
        int64_t len = ((const int64_t*)in[1])[bi];
        if (len < 0 || len > T)
            return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "sequence_lens[%lld] = %lld is out of range [0, %lld]", (long long)bi,
                              (long long)len, (long long)T);
        for (ti = 0; ti < T; ti++) {
            int64_t src = ti < len ? len - 1 - ti : ti;
            int64_t de = t == 0 ? ti * B + bi : bi * T + ti, se = t == 0 ? src * B + bi : bi * T + src;
            if (row) memcpy((unsigned char*)out[0] + (size_t)de * row, (const unsigned char*)in[0] + (size_t)se * row, row);
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_ccp_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int cnt, na, i;
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
    AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &na));
    if (na < 0) {
        na = x->shape.rank;
        for (i = 0; i < na; i++) axes[i] = i;
    }
    if (cnt != na) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has %d values for %d axes", cnt, na);
    *o = x->shape;
    for (i = 0; i < na; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], x->shape.rank, &a));
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
        o->d[a] = sh[i];
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_ccp(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_ccp_shape(c, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

/* Centred crop (start floor((n - m) / 2)) or zero pad (the input starts at floor((m - n) / 2)). */
static aicf_result aicf__op_run_ccp(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&y->shape), e;
    int k, r = x->shape.rank;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &y->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        int inside = 1;
        for (k = 0; k < r && inside; k++) {
            int64_t xn = x->shape.d[k], yn = y->shape.d[k], i = it.idx[k];
            i += xn >= yn ? (xn - yn) / 2 : -((yn - xn) / 2);
            if (i < 0 || i >= xn) inside = 0;
            else off += i * xst[k];
        }
        if (inside) aicf__op_copy_el(out[0], e, in[0], off, esz);
        else memset((unsigned char*)out[0] + (size_t)e * esz, 0, esz);
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Reductions (Reduce*, ArgMax, ArgMin) and normalizations
   ============================================================================================ */

typedef struct aicf__op_red {
    int mark[AICF_MAX_RANK]; /* 1: reduced axis */
    int noop;                /* empty axes with noop_with_empty_axes = 1: the identity */
    int64_t keepdims;
    aicf__shape o;           /* output shape */
    aicf__shape k;           /* output shape with the reduced axes kept as 1 */
} aicf__op_red;

/* Axes: attribute before opset 18 (13 for ReduceSum), constant input 1 from then on; absent or
   empty = every axis, unless noop_with_empty_axes = 1 (then the op is the identity). */
static aicf_result aicf__op_reduce_make(const aicf__opc* c, aicf__op_red* rd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK], noop = 0;
    int cnt = -1, i, r = x->shape.rank;
    int input_form = c->opset >= (c->n->op == AICF__OP_ReduceSum ? 13 : 18);
    memset(rd, 0, sizeof *rd);
    AICF__OP_TRY(aicf__op_ai(c, "keepdims", 1, &rd->keepdims));
    if (input_form) {
        AICF__OP_TRY(aicf__op_ai(c, "noop_with_empty_axes", 0, &noop));
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, &cnt));
    } else {
        AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &cnt));
    }
    if (cnt <= 0) {
        for (i = 0; i < r; i++) rd->mark[i] = !noop;
        rd->noop = noop != 0;
    } else {
        for (i = 0; i < cnt; i++) {
            int a;
            AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
            if (rd->mark[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
            rd->mark[a] = 1;
        }
    }
    rd->k = x->shape;
    memset(&rd->o, 0, sizeof rd->o);
    for (i = 0; i < r; i++) {
        if (rd->mark[i]) rd->k.d[i] = 1;
        if (!rd->mark[i] || rd->keepdims) rd->o.d[rd->o.rank++] = rd->k.d[i];
    }
    return AICF_SUCCESS;
}

/* Lowest (high = 0) or highest value of an integer type (uint64's highest as its bits). */
static int64_t aicf__op_int_limit(aicf_dtype dt, int high) {
    switch (dt) {
    case AICF_DTYPE_BOOL: return high;
    case AICF_DTYPE_INT8: return high ? 127 : -128;
    case AICF_DTYPE_UINT8: return high ? 255 : 0;
    case AICF_DTYPE_INT16: return high ? 32767 : -32768;
    case AICF_DTYPE_UINT16: return high ? 65535 : 0;
    case AICF_DTYPE_INT32: return high ? INT32_MAX : INT32_MIN;
    case AICF_DTYPE_UINT32: return high ? (int64_t)UINT32_MAX : 0;
    case AICF_DTYPE_UINT64: return high ? -1 : 0;
    default: return high ? INT64_MAX : INT64_MIN;
    }
}

static int aicf__op_reduce_int_ok(aicf__op op) {
    return op == AICF__OP_ReduceSum || op == AICF__OP_ReduceProd || op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin;
}

static aicf_result aicf__op_infer_reduce(const aicf__opc* c) {
    aicf__op_red rd;
    aicf__op op = c->n->op;
    unsigned mask = AICF__OP_DTM_F32;
    if (aicf__op_reduce_int_ok(op)) mask |= AICF__OP_DTM_INTS;
    if (op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin) mask |= AICF__OP_DTM(AICF_DTYPE_BOOL);
    AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset >= (op == AICF__OP_ReduceSum ? 13 : 18) ? 2 : 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_reduce_make(c, &rd));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &rd.o);
}

/* Iterator over the input with the offsets of the output element each input element reduces into. */
static void aicf__op_reduce_iter(const aicf__shape* xs, const aicf__op_red* rd, aicf__op_ix* it) {
    int64_t kst[AICF_MAX_RANK];
    int i;
    aicf__op_strides(&rd->k, kst);
    aicf__op_ix_init(it, xs, 1);
    for (i = 0; i < xs->rank; i++) it->st[0][i] = rd->mark[i] ? 0 : kst[i];
}

/* Float reductions accumulate in double; integer Sum/Prod/Max/Min are exact in int64 (wrapping). */
static aicf_result aicf__op_run_reduce(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype dt = x->dtype;
    aicf__op op = c->n->op;
    aicf__op_red rd;
    aicf__op_ix it;
    int64_t n, no, e, cnt;
    double* acc;
    double* mx = NULL;
    int isint = !aicf__op_dt_isfloat(dt);
    AICF__OP_TRY(aicf__op_reduce_make(c, &rd));
    n = aicf__shape_numel(&x->shape);
    if (rd.noop) { /* "the output tensor is equivalent to the input", for every Reduce op (as ONNX Runtime) */
        if (n > 0) memcpy(out[0], in[0], aicf__op_tbytes(x));
        return AICF_SUCCESS;
    }
    no = aicf__shape_numel(&rd.o);
    cnt = no ? n / no : 0;
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1) * (op == AICF__OP_ReduceLogSumExp ? 2 : 1), sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (op == AICF__OP_ReduceLogSumExp) mx = acc + no;
    if (isint) {
        int64_t* ia = (int64_t*)acc; /* same size as double */
        int uns = dt == AICF_DTYPE_UINT64;
        for (e = 0; e < no; e++)
            ia[e] = op == AICF__OP_ReduceProd  ? 1
                    : op == AICF__OP_ReduceMax ? (uns ? 0 : INT64_MIN)
                    : op == AICF__OP_ReduceMin ? (uns ? -1 : INT64_MAX)
                                               : 0;
        aicf__op_reduce_iter(&x->shape, &rd, &it);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
            int64_t v = aicf__op_geti(dt, in[0], e), *a = &ia[it.off[0]];
            if (op == AICF__OP_ReduceSum) *a = (int64_t)((uint64_t)*a + (uint64_t)v);
            else if (op == AICF__OP_ReduceProd) *a = (int64_t)((uint64_t)*a * (uint64_t)v);
            else if (op == AICF__OP_ReduceMax ? (uns ? (uint64_t)v > (uint64_t)*a : v > *a) : (uns ? (uint64_t)v < (uint64_t)*a : v < *a))
                *a = v;
        }
        for (e = 0; e < no; e++) {
            if (cnt == 0 && (op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin)) /* empty: the type's lowest / highest */
                ia[e] = aicf__op_int_limit(dt, op == AICF__OP_ReduceMin);
            aicf__op_seti(dt, out[0], e, ia[e]);
        }
        aicf__free(c->ctx, acc);
        return AICF_SUCCESS;
    }
    for (e = 0; e < no; e++) {
        acc[e] = op == AICF__OP_ReduceProd ? 1.0 : op == AICF__OP_ReduceMax ? -INFINITY : op == AICF__OP_ReduceMin ? INFINITY : 0.0;
        if (mx) mx[e] = -INFINITY;
    }
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        double v = aicf__op_getd(dt, in[0], e), *a = &acc[it.off[0]];
        switch (op) {
        case AICF__OP_ReduceSum:
        case AICF__OP_ReduceMean:
        case AICF__OP_ReduceLogSum: *a += v; break;
        case AICF__OP_ReduceProd: *a *= v; break;
        case AICF__OP_ReduceMax:
            if ((v > *a || v != v) && *a == *a) *a = v;
            break;
        case AICF__OP_ReduceMin:
            if ((v < *a || v != v) && *a == *a) *a = v;
            break;
        case AICF__OP_ReduceL1: *a += fabs(v); break;
        case AICF__OP_ReduceL2:
        case AICF__OP_ReduceSumSquare: *a += v * v; break;
        case AICF__OP_ReduceLogSumExp:
            if (v > mx[it.off[0]] || v != v) mx[it.off[0]] = v;
            break;
        default: break;
        }
    }
    if (op == AICF__OP_ReduceLogSumExp) {
        aicf__op_reduce_iter(&x->shape, &rd, &it);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
            double m = mx[it.off[0]];
            if (!isinf(m)) acc[it.off[0]] += exp(aicf__op_getd(dt, in[0], e) - m);
        }
    }
    for (e = 0; e < no; e++) {
        double v = acc[e];
        switch (op) {
        case AICF__OP_ReduceMean: v = v / (double)cnt; break;
        case AICF__OP_ReduceL2: v = sqrt(v); break;
        case AICF__OP_ReduceLogSum: v = log(v); break;
        case AICF__OP_ReduceLogSumExp: v = isinf(mx[e]) || mx[e] != mx[e] ? mx[e] : mx[e] + log(v); break;
        default: break;
        }
        aicf__op_setd(dt, out[0], e, v);
    }
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- ArgMax, ArgMin ---- */
static aicf_result aicf__op_arg_make(const aicf__opc* c, int* ax, int64_t* keep, int64_t* last) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    AICF__OP_TRY(aicf__op_ai(c, "keepdims", 1, keep));
    AICF__OP_TRY(aicf__op_ai(c, "select_last_index", 0, last));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    if (x->shape.d[*ax] == 0) return aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d has no elements", *ax);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_arg(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax, i;
    int64_t keep, last;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_arg_make(c, &ax, &keep, &last));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    for (i = 0; i < x->shape.rank; i++)
        if (i != ax) o.d[o.rank++] = x->shape.d[i];
        else if (keep) o.d[o.rank++] = 1;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_arg(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int ax, is_max = c->n->op == AICF__OP_ArgMax;
    int64_t keep, last, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_arg_make(c, &ax, &keep, &last));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t best = 0;
            for (a = 1; a < A; a++) {
                int r = aicf__op_cmp3(x->dtype, in[0], (o * A + a) * inner + i, in[0], (o * A + best) * inner + i);
                if ((is_max ? r == 1 : r == -1) || (last && r == 0)) best = a;
            }
            ((int64_t*)out[0])[o * inner + i] = best;
        }
    return AICF_SUCCESS;
}

/* ---- LayerNormalization, RMSNormalization ---- */
static aicf_result aicf__op_ln_make(const aicf__opc* c, int* ax, float* eps) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis, stash;
    int i;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    AICF__OP_TRY(aicf__op_ai(c, "stash_type", 1, &stash));
    if (stash != 1) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' = %lld is not supported (only 1, float32)", (long long)stash);
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    for (i = 1; i < 3; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        if (!p) continue;
        if (!aicf__op_bcast2(&x->shape, &p->shape, &o) || memcmp(o.d, x->shape.d, sizeof(int64_t) * (size_t)x->shape.rank) != 0 ||
            o.rank != x->shape.rank)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) shape %s does not broadcast to input 0 shape %s", i,
                              aicf__op_in_name(c, i), i == 1 ? "scale" : "B", aicf__op_sstr(&p->shape, b1, sizeof b1),
                              aicf__op_sstr(&x->shape, b2, sizeof b2));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_ln(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax, i, rms = c->n->op == AICF__OP_RMSNormalization;
    float eps;
    aicf__shape ms;
    AICF__OP_TRY(aicf__op_check_io(c, 2, rms ? 2 : 3, 1, rms ? 1 : 3));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_ln_make(c, &ax, &eps));
    x = aicf__op_in(c, 0);
    ms = x->shape;
    for (i = ax; i < ms.rank; i++) ms.d[i] = 1;
    AICF__OP_TRY(aicf__op_set_out(c, 1, AICF_DTYPE_FLOAT32, &ms));
    AICF__OP_TRY(aicf__op_set_out(c, 2, AICF_DTYPE_FLOAT32, &ms));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

/* Statistics in double; y = (x - mean) * inv_std * scale + B (RMS: x * inv_rms * scale). */
static aicf_result aicf__op_run_ln(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    const float* B = aicf__op_in(c, 2) ? (const float*)in[2] : NULL;
    float* Y = (float*)out[0];
    int ax, rms = c->n->op == AICF__OP_RMSNormalization;
    float eps;
    int64_t rows, cols, r, j, e = 0;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_ln_make(c, &ax, &eps));
    rows = aicf__op_prod(x->shape.d, 0, ax);
    cols = aicf__op_prod(x->shape.d, ax, x->shape.rank);
    aicf__op_ix_init(&it, &x->shape, 2);
    aicf__op_bcast_strides(&aicf__op_in(c, 1)->shape, &x->shape, it.st[0]);
    if (B) aicf__op_bcast_strides(&aicf__op_in(c, 2)->shape, &x->shape, it.st[1]);
    for (r = 0; r < rows; r++) {
        const float* xr = X + r * cols;
        double mean = 0.0, var = 0.0, inv;
        for (j = 0; j < cols; j++) mean += xr[j];
        mean = cols ? mean / (double)cols : 0.0;
        if (rms) {
            for (j = 0; j < cols; j++) var += (double)xr[j] * xr[j];
            mean = 0.0;
        } else {
            for (j = 0; j < cols; j++) var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
        }
        var = cols ? var / (double)cols : 0.0;
        inv = 1.0 / sqrt(var + (double)eps);
        for (j = 0; j < cols; j++, e++, aicf__op_ix_next(&it))
            Y[e] = (float)(((double)xr[j] - mean) * inv * S[it.off[0]] + (B ? B[it.off[1]] : 0.0f));
        if (!rms && aicf__op_out(c, 1) && out[1]) ((float*)out[1])[r] = (float)mean;
        if (!rms && aicf__op_out(c, 2) && out[2]) ((float*)out[2])[r] = (float)inv;
    }
    return AICF_SUCCESS;
}

/* ---- InstanceNormalization, GroupNormalization ---- */
static aicf_result aicf__op_gn_make(const aicf__opc* c, int64_t* groups, int* per_group, float* eps) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int i;
    int64_t want, stash = 1;
    char b1[160];
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)", aicf__op_in_name(c, 0),
                          x->shape.rank);
    *per_group = 0;
    if (c->n->op == AICF__OP_InstanceNormalization) {
        *groups = x->shape.d[1];
    } else {
        if (!aicf__attr(c->n, "num_groups")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'num_groups' is missing");
        AICF__OP_TRY(aicf__op_ai(c, "num_groups", 0, groups));
        AICF__OP_TRY(aicf__op_ai(c, "stash_type", 1, &stash));
        if (stash != 1) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' = %lld is not supported (only 1, float32)", (long long)stash);
        if (*groups < 1 || x->shape.d[1] % *groups != 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'num_groups' = %lld does not divide the %lld channels", (long long)*groups,
                              (long long)x->shape.d[1]);
        *per_group = c->opset < 21; /* GroupNormalization-18: scale and bias per group */
    }
    want = *per_group ? *groups : x->shape.d[1];
    for (i = 1; i < 3; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        if (p->shape.rank != 1 || p->shape.d[0] != want)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s must be [%lld]", i, aicf__op_in_name(c, i),
                              aicf__op_sstr(&p->shape, b1, sizeof b1), (long long)want);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gn(const aicf__opc* c) {
    int64_t g;
    int pg, i;
    float eps;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_gn_make(c, &g, &pg, &eps));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_gn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    const float* B = (const float*)in[2];
    float* Y = (float*)out[0];
    int64_t G, N = x->shape.d[0], C = x->shape.d[1], sp = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, g, j, cg;
    int pg;
    float eps;
    AICF__OP_TRY(aicf__op_gn_make(c, &G, &pg, &eps));
    cg = C / G;
    for (n = 0; n < N; n++)
        for (g = 0; g < G; g++) {
            const float* xr = X + (n * C + g * cg) * sp;
            float* yr = Y + (n * C + g * cg) * sp;
            int64_t m = cg * sp;
            double mean = 0.0, var = 0.0, inv;
            for (j = 0; j < m; j++) mean += xr[j];
            mean = m ? mean / (double)m : 0.0;
            for (j = 0; j < m; j++) var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
            var = m ? var / (double)m : 0.0;
            inv = 1.0 / sqrt(var + (double)eps);
            for (j = 0; j < m; j++) {
                int64_t ch = pg ? g : g * cg + j / (sp ? sp : 1);
                yr[j] = (float)(((double)xr[j] - mean) * inv * S[ch] + B[ch]);
            }
        }
    return AICF_SUCCESS;
}

/* ---- LpNormalization, MeanVarianceNormalization ---- */
static aicf_result aicf__op_infer_f32_same(const aicf__opc* c) {
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_lpn_make(const aicf__opc* c, int* ax, int64_t* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_ai(c, "p", 2, p));
    if (*p != 1 && *p != 2) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'p' = %lld must be 1 or 2", (long long)*p);
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    return aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax);
}

static aicf_result aicf__op_infer_lpn(const aicf__opc* c) {
    int ax;
    int64_t p;
    AICF__OP_TRY(aicf__op_infer_f32_same(c));
    return aicf__op_lpn_make(c, &ax, &p);
}

static aicf_result aicf__op_run_lpn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    int ax;
    int64_t p, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_lpn_make(c, &ax, &p));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double s = 0.0;
            for (a = 0; a < A; a++) {
                double v = X[(o * A + a) * inner + i];
                s += p == 1 ? fabs(v) : v * v;
            }
            if (p == 2) s = sqrt(s);
            for (a = 0; a < A; a++) Y[(o * A + a) * inner + i] = s == 0.0 ? 0.0f : (float)(X[(o * A + a) * inner + i] / s);
        }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_mvn_make(const aicf__opc* c, aicf__op_red* rd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i;
    memset(rd, 0, sizeof *rd);
    AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &cnt));
    if (cnt < 0) {
        if (x->shape.rank != 4)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has rank %d; the default axes [0,2,3] need rank 4", x->shape.rank);
        cnt = 3;
        axes[0] = 0;
        axes[1] = 2;
        axes[2] = 3;
    }
    for (i = 0; i < cnt; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], x->shape.rank, &a));
        rd->mark[a] = 1;
    }
    rd->k = x->shape;
    for (i = 0; i < x->shape.rank; i++)
        if (rd->mark[i]) rd->k.d[i] = 1;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_mvn(const aicf__opc* c) {
    aicf__op_red rd;
    AICF__OP_TRY(aicf__op_infer_f32_same(c));
    return aicf__op_mvn_make(c, &rd);
}

/* (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), as the ONNX function body */
static aicf_result aicf__op_run_mvn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    aicf__op_red rd;
    aicf__op_ix it;
    int64_t n = aicf__shape_numel(&x->shape), no, e, cnt;
    double* acc;
    AICF__OP_TRY(aicf__op_mvn_make(c, &rd));
    no = aicf__shape_numel(&rd.k);
    cnt = no ? n / no : 1;
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1) * 2, sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        acc[it.off[0]] += X[e];
        acc[no + it.off[0]] += (double)X[e] * X[e];
    }
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        double m = acc[it.off[0]] / (double)cnt, sq = acc[no + it.off[0]] / (double)cnt;
        double var = sq - m * m;
        Y[e] = (float)((X[e] - m) / (sqrt(var > 0.0 ? var : 0.0) + 1e-9));
    }
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- LogSoftmax, Hardmax (Softmax's axis rules) ---- */
static aicf_result aicf__op_run_logsoftmax(const aicf__opc* c, const void* const* in, void* const* out) {
    int64_t outer, A, inner, o, i, a;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_softmax_make(c, &outer, &A, &inner));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float* x = X + o * A * inner + i;
            float* y = Y + o * A * inner + i;
            double mx = -INFINITY, sum = 0.0, lse;
            int64_t best = 0;
            for (a = 0; a < A; a++)
                if (x[a * inner] > mx) {
                    mx = x[a * inner];
                    best = a;
                }
            if (c->n->op == AICF__OP_Hardmax) {
                for (a = 0; a < A; a++) y[a * inner] = a == best ? 1.0f : 0.0f;
                continue;
            }
            for (a = 0; a < A; a++) sum += exp((double)x[a * inner] - mx);
            lse = mx + log(sum);
            for (a = 0; a < A; a++) y[a * inner] = (float)((double)x[a * inner] - lse);
        }
    return AICF_SUCCESS;
}

/* ---- GlobalMaxPool ---- */
static aicf_result aicf__op_run_gmp(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t NC = x->shape.d[0] * x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), i, j;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    for (i = 0; i < NC; i++) {
        float m = -INFINITY;
        for (j = 0; j < S; j++)
            if (X[i * S + j] > m || X[i * S + j] != X[i * S + j]) {
                m = X[i * S + j];
                if (m != m) break;
            }
        Y[i] = m;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Einsum, Resize (and Upsample), ConvTranspose
   ============================================================================================ */

/* Einsum: any equation numpy accepts on float32 operands (explicit or implicit output,
   repeated labels as diagonals, '...' broadcast), computed by visiting every combination of
   label values once: cost = product of all label sizes. */
#define AICF__OP_EIN_MAX_IN 8
#define AICF__OP_EIN_LABELS (52 + AICF_MAX_RANK) /* a-z, A-Z, then the ellipsis dims */

typedef struct aicf__op_ein {
    int nin;
    int in_lab[AICF__OP_EIN_MAX_IN][AICF_MAX_RANK]; /* label of each dim of each input */
    int out_lab[AICF_MAX_RANK];
    int nout;                                        /* output rank */
    int64_t size[AICF__OP_EIN_LABELS];               /* -1 = label unused */
    int n_ell;                                       /* ellipsis dims */
} aicf__op_ein;

static int aicf__op_ein_label(char ch) {
    if (ch >= 'a' && ch <= 'z') return ch - 'a';
    if (ch >= 'A' && ch <= 'Z') return 26 + (ch - 'A');
    return -1;
}

/* Parses one term ("ab...c") into labels, expanding '...' into n_ell dims (or, when
   n_ell < 0, into as many as rank - letters). Returns the dim count or -1. */
static int aicf__op_ein_term(const char* s, size_t len, int rank, int n_ell, int* lab, int* ell_here) {
    size_t i;
    int letters = 0, n = 0, k, has_ell = 0;
    for (i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (has_ell || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.') return -1;
            has_ell = 1;
            i += 2;
        } else if (aicf__op_ein_label(s[i]) >= 0) {
            letters++;
        } else if (s[i] != ' ') {
            return -1;
        }
    }
    if (n_ell < 0) n_ell = has_ell ? rank - letters : 0;
    if (n_ell < 0 || (rank >= 0 && letters + (has_ell ? n_ell : 0) != rank)) return -1;
    if (letters + (has_ell ? n_ell : 0) > AICF_MAX_RANK) return -1;
    for (i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (k = 0; k < n_ell; k++) lab[n++] = 52 + (AICF_MAX_RANK - n_ell) + k; /* right-aligned */
            i += 2;
        } else if (aicf__op_ein_label(s[i]) >= 0) {
            lab[n++] = aicf__op_ein_label(s[i]);
        }
    }
    *ell_here = has_ell ? n_ell : -1;
    return n;
}

static aicf_result aicf__op_ein_make(const aicf__opc* c, aicf__op_ein* e) {
    const char* eq;
    const char* arrow;
    const char* p;
    int i, k, count[AICF__OP_EIN_LABELS], ell_max = 0, ell_in[AICF__OP_EIN_MAX_IN];
    memset(e, 0, sizeof *e);
    if (!aicf__attr(c->n, "equation")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'equation' is missing");
    AICF__OP_TRY(aicf__op_as(c, "equation", "", &eq));
    e->nin = aicf__op_nin(c->n);
    if (e->nin > AICF__OP_EIN_MAX_IN)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "Einsum '%.100s' with %d operands is not supported (limit %d)", eq, e->nin,
                          AICF__OP_EIN_MAX_IN);
    for (i = 0; i < AICF__OP_EIN_LABELS; i++) {
        e->size[i] = -1;
        count[i] = 0;
    }
    arrow = strstr(eq, "->");
    p = eq;
    for (i = 0; i < e->nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        const char* end = strchr(p, ',');
        size_t len;
        int n, ell;
        if (!end || (arrow && end > arrow)) end = arrow ? arrow : p + strlen(p);
        len = (size_t)(end - p);
        n = aicf__op_ein_term(p, len, t->shape.rank, -1, e->in_lab[i], &ell);
        if (n < 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': term %d does not match input %d of rank %d", eq, i, i,
                              t->shape.rank);
        ell_in[i] = ell;
        if (ell > ell_max) ell_max = ell;
        p = end;
        if (i + 1 < e->nin) {
            if (*p != ',')
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s' has fewer terms than the %d inputs", eq, e->nin);
            p++;
        }
    }
    if (*p == ',' || (!arrow && *p))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s' has more terms than the %d inputs", eq, e->nin);
    e->n_ell = ell_max;
    /* label sizes; ellipsis dims broadcast (size 1 stretches) */
    for (i = 0; i < e->nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        for (k = 0; k < t->shape.rank; k++) {
            int l = e->in_lab[i][k];
            int64_t d = t->shape.d[k];
            count[l]++;
            if (e->size[l] < 0 || (l >= 52 && e->size[l] == 1)) e->size[l] = d;
            else if (e->size[l] != d && !(l >= 52 && d == 1))
                return aicf__op_err(c, AICF_ERROR_SHAPE, "equation '%.100s': label '%c' has sizes %lld and %lld", eq,
                                  l < 26 ? 'a' + l : (l < 52 ? 'A' + (l - 26) : '.'), (long long)e->size[l], (long long)d);
        }
        (void)ell_in[i];
    }
    if (arrow) {
        int ell;
        const char* o = arrow + 2;
        e->nout = aicf__op_ein_term(o, strlen(o), -1, ell_max, e->out_lab, &ell);
        if (e->nout < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': invalid output term", eq);
        for (k = 0; k < e->nout; k++) {
            int j, l = e->out_lab[k];
            if (e->size[l] < 0)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': output label '%c' is not in any input", eq,
                                  l < 26 ? 'a' + l : 'A' + (l - 26));
            for (j = 0; j < k; j++)
                if (e->out_lab[j] == l) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': output label repeats", eq);
        }
    } else {
        /* implicit: ellipsis dims, then the labels used once, in alphabetical (ASCII) order */
        static const int ascii_order[52] = {26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                                            44, 45, 46, 47, 48, 49, 50, 51, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                            10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};
        e->nout = 0;
        for (k = 0; k < ell_max; k++) e->out_lab[e->nout++] = 52 + (AICF_MAX_RANK - ell_max) + k;
        for (k = 0; k < 52; k++)
            if (count[ascii_order[k]] == 1) {
                if (e->nout >= AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "equation '%.100s': output rank too large", eq);
                e->out_lab[e->nout++] = ascii_order[k];
            }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_einsum(const aicf__opc* c) {
    aicf__op_ein e;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    for (i = 0; i < aicf__op_nin(c->n); i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    }
    AICF__OP_TRY(aicf__op_ein_make(c, &e));
    memset(&o, 0, sizeof o);
    o.rank = e.nout;
    for (i = 0; i < e.nout; i++) o.d[i] = e.size[e.out_lab[i]];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_einsum(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_ein e;
    int labs[AICF__OP_EIN_LABELS], nl = 0, i, k, j;
    int64_t st[AICF__OP_EIN_MAX_IN + 1][AICF__OP_EIN_LABELS], off[AICF__OP_EIN_MAX_IN + 1], idx[AICF__OP_EIN_LABELS];
    int64_t total = 1, t, no;
    double* acc;
    AICF__OP_TRY(aicf__op_ein_make(c, &e));
    memset(st, 0, sizeof st);
    memset(off, 0, sizeof off);
    memset(idx, 0, sizeof idx);
    for (i = 0; i < AICF__OP_EIN_LABELS; i++)
        if (e.size[i] >= 0) {
            labs[nl++] = i;
            if (e.size[i] == 0) total = 0;
            else if (total > INT64_MAX / e.size[i]) return aicf__op_err(c, AICF_ERROR_LIMIT, "iteration space overflows");
            else total *= e.size[i];
        }
    /* strides per label (summed when a label repeats: the diagonal) */
    for (i = 0; i < e.nin; i++) {
        const aicf__tensor* tt = aicf__op_in(c, i);
        int64_t xs[AICF_MAX_RANK];
        aicf__op_strides(&tt->shape, xs);
        for (k = 0; k < tt->shape.rank; k++)
            if (tt->shape.d[k] != 1 || e.size[e.in_lab[i][k]] == 1) st[i][e.in_lab[i][k]] += xs[k];
    }
    {
        int64_t m = 1;
        for (k = e.nout - 1; k >= 0; k--) {
            st[e.nin][e.out_lab[k]] = m;
            m *= e.size[e.out_lab[k]];
        }
        no = m;
    }
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1), sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (t = 0; t < total; t++) {
        double v = 1.0;
        for (i = 0; i < e.nin; i++) v *= ((const float*)in[i])[off[i]];
        acc[off[e.nin]] += v;
        for (k = nl - 1; k >= 0; k--) {
            int l = labs[k];
            for (j = 0; j <= e.nin; j++) off[j] += st[j][l];
            if (++idx[l] < e.size[l]) break;
            for (j = 0; j <= e.nin; j++) off[j] -= st[j][l] * e.size[l];
            idx[l] = 0;
        }
    }
    for (t = 0; t < no; t++) ((float*)out[0])[t] = (float)acc[t];
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- Resize, Upsample ----
   Follows the ONNX reference: separable, one axis at a time in the order of `axes`, in double;
   every mode computes taps (neighbour indices and weights) per output position. */
enum { AICF__RS_NEAREST = 0, AICF__RS_LINEAR = 1, AICF__RS_CUBIC = 2 };
enum {
    AICF__RS_HALF_PIXEL = 0, AICF__RS_HALF_PIXEL_SYM, AICF__RS_PYTORCH_HALF_PIXEL, AICF__RS_ALIGN_CORNERS, AICF__RS_ASYMMETRIC,
    AICF__RS_TF_CROP
};
enum { AICF__RS_PREFER_FLOOR = 0, AICF__RS_PREFER_CEIL, AICF__RS_FLOOR, AICF__RS_CEIL, AICF__RS_SIMPLE };

typedef struct aicf__op_rs {
    int mode, ctm, nearest, antialias, exclude_outside;
    double cubic_a, extrap;
    double scale[AICF_MAX_RANK], roi_s[AICF_MAX_RANK], roi_e[AICF_MAX_RANK];
    int64_t out[AICF_MAX_RANK];
    int order[AICF_MAX_RANK], n_order;
    int has_roi;
} aicf__op_rs;

static int aicf__op_pick(const char* s, const char* const* names, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* Constant float input i (any float type) into vals; *count = -1 when omitted, 0 when empty. */
static aicf_result aicf__op_const_floats(const aicf__opc* c, int i, const char* what, double* vals, int cap, int* count) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t ne, k;
    size_t esz;
    *count = -1;
    if (!t) return AICF_SUCCESS;
    ne = aicf__shape_numel(&t->shape);
    if (!aicf__op_dt_isfloat(t->dtype))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be a float tensor, not %s", i, aicf__op_in_name(c, i),
                          what, aicf_dtype_name(t->dtype));
    if (ne > 0 && (!(t->flags & AICF__T_CONST) || !t->data))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    if (ne < 0 || ne > cap)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, aicf__op_in_name(c, i), what,
                          (long long)ne, cap);
    esz = aicf_dtype_size(t->dtype);
    if (ne > 0 && t->data_bytes < (size_t)ne * esz)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, aicf__op_in_name(c, i), what);
    for (k = 0; k < ne; k++) {
        unsigned char tmp[8];
        memcpy(tmp, (const unsigned char*)t->data + (size_t)k * esz, esz);
        vals[k] = aicf__op_getd(t->dtype, tmp, 0);
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_resize_make(const aicf__opc* c, aicf__op_rs* rs) {
    static const char* const modes[3] = {"nearest", "linear", "cubic"};
    static const char* const ctms[6] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_crop_and_resize"};
    static const char* const nms[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    static const char* const pols[3] = {"stretch", "not_larger", "not_smaller"};
    const aicf__tensor* x = aicf__op_in(c, 0);
    int r = x->shape.rank, i, ns = -1, nz = -1, nroi = -1, na = -1, pol = 0, legacy;
    double sc[AICF_MAX_RANK], roi[2 * AICF_MAX_RANK];
    int64_t sz[AICF_MAX_RANK], axes[AICF_MAX_RANK], v;
    const char* s;
    float f;
    memset(rs, 0, sizeof *rs);
    legacy = c->n->op == AICF__OP_Upsample || c->opset < 11;
    AICF__OP_TRY(aicf__op_as(c, "mode", "nearest", &s));
    rs->mode = aicf__op_pick(s, modes, 3);
    if (legacy && !strcmp(s, "bilinear")) rs->mode = AICF__RS_LINEAR; /* Upsample-7 spelling */
    if (rs->mode < 0 || (legacy && rs->mode == AICF__RS_CUBIC))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected nearest, linear%s", s, legacy ? "" : " or cubic");
    if (legacy) {
        rs->ctm = AICF__RS_ASYMMETRIC;
        rs->nearest = AICF__RS_SIMPLE;
    } else {
        AICF__OP_TRY(aicf__op_as(c, "coordinate_transformation_mode", "half_pixel", &s));
        rs->ctm = aicf__op_pick(s, ctms, 6);
        if (rs->ctm < 0 || (rs->ctm == AICF__RS_HALF_PIXEL_SYM && c->opset < 19))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'coordinate_transformation_mode' is '%.40s', which is not valid at this opset", s);
        AICF__OP_TRY(aicf__op_as(c, "nearest_mode", "round_prefer_floor", &s));
        rs->nearest = aicf__op_pick(s, nms, 4);
        if (rs->nearest < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'nearest_mode' is '%.40s'", s);
        AICF__OP_TRY(aicf__op_af(c, "cubic_coeff_a", -0.75f, &f));
        rs->cubic_a = f;
        AICF__OP_TRY(aicf__op_af(c, "extrapolation_value", 0.0f, &f));
        rs->extrap = f;
        AICF__OP_TRY(aicf__op_ai(c, "exclude_outside", 0, &v));
        rs->exclude_outside = v != 0;
        if (c->opset >= 18) {
            AICF__OP_TRY(aicf__op_ai(c, "antialias", 0, &v));
            rs->antialias = v != 0 && rs->mode != AICF__RS_NEAREST;
            AICF__OP_TRY(aicf__op_as(c, "keep_aspect_ratio_policy", "stretch", &s));
            pol = aicf__op_pick(s, pols, 3);
            if (pol < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'keep_aspect_ratio_policy' is '%.40s'", s);
            AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &na));
        }
    }
    if (c->n->op == AICF__OP_Upsample && c->opset < 9) {
        const aicf__attrv* a = aicf__attr(c->n, "scales");
        if (!a || a->type != AICF_ATTR_FLOATS) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'scales' (FLOATS) is missing");
        if (a->count > AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'scales' has %d values", a->count);
        ns = a->count;
        for (i = 0; i < ns; i++) sc[i] = a->floats[i];
    } else if (legacy) {
        AICF__OP_TRY(aicf__op_const_floats(c, 1, "scales", sc, AICF_MAX_RANK, &ns));
    } else {
        AICF__OP_TRY(aicf__op_const_floats(c, 2, "scales", sc, AICF_MAX_RANK, &ns));
        if (aicf__op_in(c, 3)) {
            int cnt;
            AICF__OP_TRY(aicf__op_const_ints(c, 3, "sizes", sz, AICF_MAX_RANK, &cnt));
            nz = cnt;
        }
        if (rs->ctm == AICF__RS_TF_CROP) AICF__OP_TRY(aicf__op_const_floats(c, 1, "roi", roi, 2 * AICF_MAX_RANK, &nroi));
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if ((ns > 0) == (nz > 0))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "needs exactly one of the inputs scales and sizes (non-empty)");
    if ((ns > 0 && ns != na) || (nz > 0 && nz != na))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s has %d values; expected %d", ns > 0 ? "scales" : "sizes", ns > 0 ? ns : nz, na);
    if (nroi >= 0 && nroi != 2 * na && rs->ctm == AICF__RS_TF_CROP)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "roi has %d values; expected %d", nroi, 2 * na);
    for (i = 0; i < r; i++) {
        rs->scale[i] = 1.0;
        rs->out[i] = x->shape.d[i];
        rs->roi_s[i] = 0.0;
        rs->roi_e[i] = 1.0;
    }
    rs->has_roi = rs->ctm == AICF__RS_TF_CROP;
    rs->n_order = na;
    for (i = 0; i < na; i++) {
        int a, j;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        for (j = 0; j < i; j++)
            if (rs->order[j] == a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        rs->order[i] = a;
        if (rs->has_roi && nroi > 0) {
            rs->roi_s[a] = roi[i];
            rs->roi_e[a] = roi[na + i];
        }
        if (ns > 0) {
            double o = sc[i] * (double)x->shape.d[a];
            if (!(sc[i] > 0.0) || o > 9.0e15) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "scales[%d] = %g is invalid", i, sc[i]);
            rs->scale[a] = sc[i];
            rs->out[a] = (int64_t)o;
        } else {
            if (sz[i] < 0 || sz[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "sizes[%d] = %lld is invalid", i, (long long)sz[i]);
            if (x->shape.d[a] == 0) return aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", a);
            rs->out[a] = sz[i];
            rs->scale[a] = (double)sz[i] / (double)x->shape.d[a];
        }
    }
    if (nz > 0 && pol != 0) {
        double s1 = pol == 1 ? INFINITY : 0.0;
        for (i = 0; i < na; i++) {
            int a = rs->order[i];
            s1 = pol == 1 ? (rs->scale[a] < s1 ? rs->scale[a] : s1) : (rs->scale[a] > s1 ? rs->scale[a] : s1);
        }
        for (i = 0; i < na; i++) {
            int a = rs->order[i];
            rs->scale[a] = s1;
            rs->out[a] = (int64_t)(s1 * (double)x->shape.d[a] + 0.5);
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_resize(const aicf__opc* c) {
    aicf__op_rs rs;
    aicf__shape o;
    int i;
    if (c->n->op == AICF__OP_Upsample) AICF__OP_TRY(aicf__op_check_io(c, c->opset < 9 ? 1 : 2, c->opset < 9 ? 1 : 2, 1, 1));
    else if (c->opset < 11) AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 1, 4, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_resize_make(c, &rs));
    o = aicf__op_in(c, 0)->shape;
    for (i = 0; i < o.rank; i++) o.d[i] = rs.out[i];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static double aicf__op_cubic_w(double x, double A) {
    x = fabs(x);
    if (x <= 1.0) return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    if (x < 2.0) return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
    return 0.0;
}

/* Tap count of an axis (depends on the mode and, with antialias, on the scale). */
static int64_t aicf__op_rs_ntaps(const aicf__op_rs* rs, double scale) {
    double s = scale < 1.0 ? scale : 1.0;
    if (rs->mode == AICF__RS_NEAREST) return 2;
    if (!rs->antialias) return rs->mode == AICF__RS_LINEAR ? 2 : 4;
    if (rs->mode == AICF__RS_LINEAR) return 2 - 2 * (int64_t)(floor(-1.0 / s) + 1.0);
    return 2 - 2 * (int64_t)(floor(-2.0 / s) + 1.0);
}

/* Taps of output position o along an axis: n indices (clamped) and weights; 1 if extrapolated. */
static int aicf__op_rs_taps(const aicf__op_rs* rs, int axis, int64_t in, int64_t o, int64_t n, int64_t* idx, double* w) {
    double scale = rs->scale[axis], ow = scale * (double)in, x, ratio, xp, frac, sum = 0.0;
    int64_t outi = rs->out[axis], xi, p, off, k, pad = (n + 1) / 2;
    switch (rs->ctm) {
    case AICF__RS_ALIGN_CORNERS: x = ow == 1.0 ? 0.0 : (double)o * (double)(in - 1) / (ow - 1.0); break;
    case AICF__RS_ASYMMETRIC: x = (double)o / scale; break;
    case AICF__RS_TF_CROP: {
        double s0 = rs->roi_s[axis], s1 = rs->roi_e[axis];
        x = ow == 1.0 ? (s1 - s0) * (double)(in - 1) / 2.0 : (double)o * (s1 - s0) * (double)(in - 1) / (ow - 1.0);
        x += s0 * (double)(in - 1);
        if (x < 0.0 || x > (double)(in - 1)) return 1;
        break;
    }
    case AICF__RS_PYTORCH_HALF_PIXEL: x = ow == 1.0 ? -0.5 : ((double)o + 0.5) / scale - 0.5; break;
    case AICF__RS_HALF_PIXEL_SYM: {
        double adj = (double)outi / ow, center = (double)in / 2.0;
        x = center * (1.0 - adj) + ((double)o + 0.5) / scale - 0.5;
        break;
    }
    default: x = ((double)o + 0.5) / scale - 0.5; break;
    }
    xi = (int64_t)floor(x);
    ratio = x == (double)xi ? 1.0 : x - (double)xi;
    /* weights */
    if (rs->mode == AICF__RS_NEAREST) {
        int nm = rs->nearest, second;
        if (nm == AICF__RS_SIMPLE) nm = scale < 1.0 ? AICF__RS_CEIL : AICF__RS_FLOOR;
        if (ratio == 1.0) second = 1;
        else if (nm == AICF__RS_PREFER_FLOOR) second = ratio > 0.5;
        else if (nm == AICF__RS_PREFER_CEIL) second = ratio >= 0.5;
        else second = nm == AICF__RS_CEIL;
        w[0] = second ? 0.0 : 1.0;
        w[1] = second ? 1.0 : 0.0;
    } else if (!rs->antialias) {
        if (rs->mode == AICF__RS_LINEAR) {
            w[0] = 1.0 - ratio;
            w[1] = ratio;
        } else {
            double A = rs->cubic_a;
            w[0] = ((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A;
            w[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
            w[2] = ((A + 2) * (1 - ratio) - (A + 3)) * (1 - ratio) * (1 - ratio) + 1;
            w[3] = ((A * ((1 - ratio) + 1) - 5 * A) * ((1 - ratio) + 1) + 8 * A) * ((1 - ratio) + 1) - 4 * A;
        }
    } else {
        double s = scale < 1.0 ? scale : 1.0;
        int64_t start = -(n / 2) + 1;
        for (k = 0; k < n; k++) {
            double a = ((double)(start + k) - ratio) * s;
            if (rs->mode == AICF__RS_LINEAR) {
                double v = 1.0 - fabs(a);
                w[k] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
            } else {
                w[k] = aicf__op_cubic_w(a, rs->cubic_a);
            }
            sum += w[k];
        }
        for (k = 0; k < n; k++) w[k] /= sum;
    }
    /* neighbours: the n nearest indices of the edge-padded axis, ties to the lower */
    xp = x + (double)pad;
    p = (int64_t)floor(xp);
    frac = xp - (double)p;
    if (n % 2 == 0) off = frac == 0.0 ? -(n / 2) : -(n / 2) + 1;
    else off = frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1;
    for (k = 0; k < n; k++) idx[k] = p + off + k - pad;
    if (rs->exclude_outside) {
        sum = 0.0;
        for (k = 0; k < n; k++) {
            if (idx[k] < 0 || idx[k] >= in) w[k] = 0.0;
            sum += w[k];
        }
        if (sum != 0.0)
            for (k = 0; k < n; k++) w[k] /= sum;
    }
    for (k = 0; k < n; k++) idx[k] = aicf__op_clamp(idx[k], 0, in - 1);
    return 0;
}

static aicf_result aicf__op_run_resize(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_rs rs;
    aicf__shape cur = x->shape;
    int64_t n = aicf__shape_numel(&x->shape), e;
    double* buf;
    int s;
    aicf_result res = AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_resize_make(c, &rs));
    buf = (double*)aicf__malloc(c->ctx, (size_t)(n ? n : 1) * sizeof(double));
    if (!buf) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (e = 0; e < n; e++) buf[e] = ((const float*)in[0])[e];
    for (s = 0; s < rs.n_order; s++) {
        int a = rs.order[s];
        int64_t din = cur.d[a], dout = rs.out[a], ntap, outer, inner, o, i, k, nn;
        size_t cnt;
        int64_t* idx;
        double *w, *nb;
        unsigned char* ext;
        if (fabs(rs.scale[a] - 1.0) <= 1e-9 && dout == din &&
            (!rs.has_roi || (fabs(rs.roi_s[a]) <= 1e-9 && fabs(rs.roi_e[a] - 1.0) <= 1e-9)))
            continue; /* identity along this axis */
        ntap = aicf__op_rs_ntaps(&rs, rs.scale[a]);
        if (ntap < 1 || ntap > AICF__OP_MAX_WINDOW || (dout && !aicf__mul_size((size_t)dout, (size_t)ntap, &cnt))) {
            res = aicf__op_err(c, AICF_ERROR_LIMIT, "too many interpolation taps");
            break;
        }
        cnt = (size_t)(dout ? dout : 1) * (size_t)ntap;
        idx = (int64_t*)aicf__malloc(c->ctx, cnt * sizeof(int64_t));
        w = (double*)aicf__malloc(c->ctx, cnt * sizeof(double));
        ext = (unsigned char*)aicf__calloc(c->ctx, (size_t)(dout ? dout : 1), 1);
        outer = aicf__op_prod(cur.d, 0, a);
        inner = aicf__op_prod(cur.d, a + 1, cur.rank);
        nn = outer * dout * inner;
        nb = (double*)aicf__malloc(c->ctx, (size_t)(nn ? nn : 1) * sizeof(double));
        if (!idx || !w || !ext || !nb) {
            aicf__free(c->ctx, idx);
            aicf__free(c->ctx, w);
            aicf__free(c->ctx, ext);
            aicf__free(c->ctx, nb);
            res = aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        if (din == 0 && dout > 0) {
            res = aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", a);
        } else {
            for (o = 0; o < dout; o++) ext[o] = (unsigned char)aicf__op_rs_taps(&rs, a, din, o, ntap, idx + o * ntap, w + o * ntap);
            for (i = 0; i < outer; i++)
                for (o = 0; o < dout; o++) {
                    double* dst = nb + (i * dout + o) * inner;
                    const double* src = buf + i * din * inner;
                    int64_t j;
                    if (ext[o]) {
                        for (j = 0; j < inner; j++) dst[j] = rs.extrap;
                        continue;
                    }
                    for (j = 0; j < inner; j++) dst[j] = 0.0;
                    for (k = 0; k < ntap; k++) {
                        double wk = w[o * ntap + k];
                        const double* sr = src + idx[o * ntap + k] * inner;
                        if (wk == 0.0) continue;
                        for (j = 0; j < inner; j++) dst[j] += wk * sr[j];
                    }
                }
        }
        aicf__free(c->ctx, idx);
        aicf__free(c->ctx, w);
        aicf__free(c->ctx, ext);
        aicf__free(c->ctx, buf);
        buf = nb;
        cur.d[a] = dout;
        if (res != AICF_SUCCESS) break;
    }
    if (res == AICF_SUCCESS) {
        n = aicf__shape_numel(&cur);
        for (e = 0; e < n; e++) ((float*)out[0])[e] = (float)buf[e];
    }
    aicf__free(c->ctx, buf);
    return res;
}

/* ---- Attention (opset 23-25): scaled dot-product attention with masks, KV cache, GQA ----
   As the ONNX reference: scores = (Q * sqrt(scale)) (K * sqrt(scale))^T, softcap, + bias
   (attn_mask, causal, sliding window, nonpad_kv_seqlen), softmax (a fully masked row gives 0),
   Y = P V. Sums in double. */
typedef struct aicf__op_att {
    int r3;                                   /* 3-D inputs [B, S, heads * size] */
    int64_t B, qH, kvH, qS, kvS, P, T, D, Dv; /* P: past length, T = P + kvS */
    float s;                                  /* sqrt(scale), rounded to float32 */
    float softcap;
    int64_t causal, mode, left, right;
} aicf__op_att;

static aicf_result aicf__op_att_make(const aicf__opc* c, aicf__op_att* a) {
    const aicf__tensor* q = aicf__op_in(c, 0);
    const aicf__tensor* k = aicf__op_in(c, 1);
    const aicf__tensor* v = aicf__op_in(c, 2);
    const aicf__tensor* m = aicf__op_in(c, 3);
    const aicf__tensor* pk = aicf__op_in(c, 4);
    const aicf__tensor* pv = aicf__op_in(c, 5);
    const aicf__tensor* np = aicf__op_in(c, 6);
    int r = q->shape.rank, i;
    float sc;
    char b1[160], b2[160], b3[160];
    memset(a, 0, sizeof *a);
    if ((r != 3 && r != 4) || k->shape.rank != r || v->shape.rank != r)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "Q, K, V shapes %s, %s, %s must all be 3-D or all 4-D", aicf__op_sstr(&q->shape, b1, sizeof b1),
                          aicf__op_sstr(&k->shape, b2, sizeof b2), aicf__op_sstr(&v->shape, b3, sizeof b3));
    a->r3 = r == 3;
    a->B = q->shape.d[0];
    if (a->r3) {
        AICF__OP_TRY(aicf__op_ai(c, "q_num_heads", 0, &a->qH));
        AICF__OP_TRY(aicf__op_ai(c, "kv_num_heads", 0, &a->kvH));
        if (a->qH < 1 || a->kvH < 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "3-D inputs need attributes q_num_heads and kv_num_heads >= 1");
        if (q->shape.d[2] % a->qH || k->shape.d[2] % a->kvH || v->shape.d[2] % a->kvH)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "hidden sizes of Q %s, K %s, V %s are not multiples of the head counts %lld, %lld",
                              aicf__op_sstr(&q->shape, b1, sizeof b1), aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), (long long)a->qH, (long long)a->kvH);
        a->qS = q->shape.d[1];
        a->kvS = k->shape.d[1];
        a->D = q->shape.d[2] / a->qH;
        a->Dv = v->shape.d[2] / a->kvH;
        if (k->shape.d[2] / a->kvH != a->D || v->shape.d[1] != a->kvS)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "K %s and V %s do not match Q %s", aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), aicf__op_sstr(&q->shape, b1, sizeof b1));
    } else {
        if (c->opset >= 25 && (aicf__attr(c->n, "q_num_heads") || aicf__attr(c->n, "kv_num_heads")))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "q_num_heads and kv_num_heads must not be given for 4-D inputs");
        a->qH = q->shape.d[1];
        a->kvH = k->shape.d[1];
        a->qS = q->shape.d[2];
        a->kvS = k->shape.d[2];
        a->D = q->shape.d[3];
        a->Dv = v->shape.d[3];
        if (k->shape.d[3] != a->D || v->shape.d[1] != a->kvH || v->shape.d[2] != a->kvS)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "K %s and V %s do not match Q %s", aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), aicf__op_sstr(&q->shape, b1, sizeof b1));
    }
    if (k->shape.d[0] != a->B || v->shape.d[0] != a->B)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "Q, K and V have different batch sizes");
    if (a->kvH < 1 || a->qH % a->kvH != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "%lld query heads are not a multiple of %lld key/value heads", (long long)a->qH,
                          (long long)a->kvH);
    if (!pk != !pv) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "past_key and past_value must be given together");
    if (pk) {
        if (pk->shape.rank != 4 || pv->shape.rank != 4 || pk->shape.d[0] != a->B || pk->shape.d[1] != a->kvH || pk->shape.d[3] != a->D ||
            pv->shape.d[0] != a->B || pv->shape.d[1] != a->kvH || pv->shape.d[2] != pk->shape.d[2] || pv->shape.d[3] != a->Dv)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "past_key %s / past_value %s must be [%lld,%lld,P,%lld] / [%lld,%lld,P,%lld]",
                              aicf__op_sstr(&pk->shape, b1, sizeof b1), aicf__op_sstr(&pv->shape, b2, sizeof b2), (long long)a->B,
                              (long long)a->kvH, (long long)a->D, (long long)a->B, (long long)a->kvH, (long long)a->Dv);
        a->P = pk->shape.d[2];
    }
    a->T = a->P + a->kvS;
    if (np) {
        if (pk) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "nonpad_kv_seqlen cannot be combined with past_key");
        if (np->dtype != AICF_DTYPE_INT64 || np->shape.rank != 1 || np->shape.d[0] != a->B)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 6 '%.200s' (nonpad_kv_seqlen) must be int64 [%lld]", aicf__op_in_name(c, 6), (long long)a->B);
    }
    if (m) {
        int64_t want[4];
        want[0] = a->B;
        want[1] = a->qH;
        want[2] = a->qS;
        want[3] = a->T;
        if (m->dtype != AICF_DTYPE_BOOL && m->dtype != q->dtype)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 3 '%.200s' (attn_mask) must be bool or %s", aicf__op_in_name(c, 3),
                              aicf_dtype_name(q->dtype));
        if (m->shape.rank < 1 || m->shape.rank > 4 || m->shape.d[m->shape.rank - 1] > a->T)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 3 '%.200s' (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                              aicf__op_in_name(c, 3), aicf__op_sstr(&m->shape, b1, sizeof b1), (long long)a->B, (long long)a->qH,
                              (long long)a->qS, (long long)a->T);
        for (i = 0; i < m->shape.rank - 1; i++) {
            int64_t d = m->shape.d[i], w = want[4 - m->shape.rank + i];
            if (d != 1 && d != w)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 3 '%.200s' (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                                  aicf__op_in_name(c, 3), aicf__op_sstr(&m->shape, b1, sizeof b1), (long long)a->B, (long long)a->qH,
                                  (long long)a->qS, (long long)a->T);
        }
    }
    AICF__OP_TRY(aicf__op_af(c, "scale", (float)(1.0 / sqrt((double)(a->D > 0 ? a->D : 1))), &sc));
    if (!aicf__attr(c->n, "scale")) sc = (float)(1.0 / sqrt((double)(a->D > 0 ? a->D : 1)));
    if (!(sc >= 0.0f)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'scale' = %g must not be negative", (double)sc);
    a->s = (float)sqrt((double)sc);
    AICF__OP_TRY(aicf__op_af(c, "softcap", 0.0f, &a->softcap));
    AICF__OP_TRY(aicf__op_ai(c, "is_causal", 0, &a->causal));
    AICF__OP_TRY(aicf__op_ai(c, "qk_matmul_output_mode", 0, &a->mode));
    AICF__OP_TRY(aicf__op_ai(c, "left_window_size", -1, &a->left));
    AICF__OP_TRY(aicf__op_ai(c, "right_window_size", -1, &a->right));
    if (a->mode < 0 || a->mode > 3)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'qk_matmul_output_mode' = %lld must be 0 to 3", (long long)a->mode);
    if (a->left < -1 || a->right < -1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "window sizes (%lld, %lld) must be -1 or >= 0", (long long)a->left, (long long)a->right);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_attention(const aicf__opc* c) {
    aicf__op_att a;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 7, 1, 4));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 4, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 5, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_att_make(c, &a));
    memset(&o, 0, sizeof o);
    if (a.r3) {
        o.rank = 3;
        o.d[0] = a.B;
        o.d[1] = a.qS;
        o.d[2] = a.qH * a.Dv;
    } else {
        o.rank = 4;
        o.d[0] = a.B;
        o.d[1] = a.qH;
        o.d[2] = a.qS;
        o.d[3] = a.Dv;
    }
    AICF__OP_TRY(aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o));
    o.rank = 4;
    o.d[0] = a.B;
    o.d[1] = a.kvH;
    o.d[2] = a.T;
    o.d[3] = a.D;
    AICF__OP_TRY(aicf__op_set_out(c, 1, AICF_DTYPE_FLOAT32, &o));
    o.d[3] = a.Dv;
    AICF__OP_TRY(aicf__op_set_out(c, 2, AICF_DTYPE_FLOAT32, &o));
    o.d[1] = a.qH;
    o.d[2] = a.qS;
    o.d[3] = a.T;
    return aicf__op_set_out(c, 3, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_attention(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_att a;
    const float* Q = (const float*)in[0];
    const float* K = (const float*)in[1];
    const float* V = (const float*)in[2];
    const aicf__tensor* mt = aicf__op_in(c, 3);
    const float* PK = aicf__op_in(c, 4) ? (const float*)in[4] : NULL;
    const float* PV = aicf__op_in(c, 5) ? (const float*)in[5] : NULL;
    const int64_t* NP = aicf__op_in(c, 6) ? (const int64_t*)in[6] : NULL;
    float* Y = (float*)out[0];
    float* PKo = aicf__op_out(c, 1) ? (float*)out[1] : NULL;
    float* PVo = aicf__op_out(c, 2) ? (float*)out[2] : NULL;
    float* QK = aicf__op_out(c, 3) ? (float*)out[3] : NULL;
    int64_t b, h, i, j, d, grp, mst[4], mdim[4];
    double *x, *bias;
    float *kbuf, *vbuf; /* present key / value of one batch, [kvH, T, D] and [kvH, T, Dv] */
    int mr = mt ? mt->shape.rank : 0, k;
    AICF__OP_TRY(aicf__op_att_make(c, &a));
    grp = a.qH / a.kvH;
    if (NP)
        for (b = 0; b < a.B; b++)
            if (NP[b] < 0 || NP[b] > a.T)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "nonpad_kv_seqlen[%lld] = %lld is out of range [0, %lld]", (long long)b,
                                  (long long)NP[b], (long long)a.T);
    /* broadcast strides of the mask over [B, qH, qS, T] (its last dim may be shorter: padded) */
    for (k = 0; k < 4; k++) {
        mst[k] = 0;
        mdim[k] = 1;
    }
    if (mt) {
        int64_t st = 1;
        for (k = mr - 1; k >= 0; k--) {
            mdim[4 - mr + k] = mt->shape.d[k];
            mst[4 - mr + k] = mt->shape.d[k] == 1 && k != mr - 1 ? 0 : st;
            st *= mt->shape.d[k];
        }
    }
    x = (double*)aicf__malloc(c->ctx, (size_t)(a.T + 1) * 2 * sizeof(double));
    kbuf = (float*)aicf__malloc(c->ctx, (size_t)(a.kvH * a.T * (a.D + a.Dv) + 1) * sizeof(float));
    if (!x || !kbuf) {
        aicf__free(c->ctx, x);
        aicf__free(c->ctx, kbuf);
        return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    bias = x + a.T + 1;
    vbuf = kbuf + a.kvH * a.T * a.D;
    for (b = 0; b < a.B; b++) {
        /* present key / value: past then new, in [kvH, T, size] */
        for (h = 0; h < a.kvH; h++)
            for (j = 0; j < a.T; j++) {
                for (d = 0; d < a.D; d++) {
                    float kv;
                    if (j < a.P) kv = PK[((b * a.kvH + h) * a.P + j) * a.D + d];
                    else if (a.r3) kv = K[(b * a.kvS + (j - a.P)) * a.kvH * a.D + h * a.D + d];
                    else kv = K[((b * a.kvH + h) * a.kvS + (j - a.P)) * a.D + d];
                    kbuf[(h * a.T + j) * a.D + d] = kv;
                }
                for (d = 0; d < a.Dv; d++) {
                    float vv;
                    if (j < a.P) vv = PV[((b * a.kvH + h) * a.P + j) * a.Dv + d];
                    else if (a.r3) vv = V[(b * a.kvS + (j - a.P)) * a.kvH * a.Dv + h * a.Dv + d];
                    else vv = V[((b * a.kvH + h) * a.kvS + (j - a.P)) * a.Dv + d];
                    vbuf[(h * a.T + j) * a.Dv + d] = vv;
                }
            }
        if (PKo) memcpy(PKo + b * a.kvH * a.T * a.D, kbuf, (size_t)(a.kvH * a.T * a.D) * sizeof(float));
        if (PVo) memcpy(PVo + b * a.kvH * a.T * a.Dv, vbuf, (size_t)(a.kvH * a.T * a.Dv) * sizeof(float));
        for (h = 0; h < a.qH; h++) {
            int64_t kh = h / grp, off = NP && !PK ? NP[b] - a.qS : a.P;
            for (i = 0; i < a.qS; i++) {
                double mx = -INFINITY, bmx = -INFINITY, sum = 0.0;
                for (j = 0; j < a.T; j++) {
                    double dot = 0.0, bj = 0.0;
                    const float* kr = kbuf + (kh * a.T + j) * a.D;
                    for (d = 0; d < a.D; d++) {
                        float qv = a.r3 ? Q[(b * a.qS + i) * a.qH * a.D + h * a.D + d] : Q[((b * a.qH + h) * a.qS + i) * a.D + d];
                        dot += (double)(float)(qv * a.s) * (double)(float)(kr[d] * a.s);
                    }
                    if (a.softcap > 0.0f) dot = a.softcap * tanh(dot / a.softcap);
                    if (mt) {
                        if (j >= mdim[3]) {
                            bj = -INFINITY; /* the mask is padded with False / -inf */
                        } else {
                            int64_t mo = b * (mdim[0] == 1 ? 0 : mst[0]) + h * (mdim[1] == 1 ? 0 : mst[1]) + i * (mdim[2] == 1 ? 0 : mst[2]) + j * mst[3];
                            if (mt->dtype == AICF_DTYPE_BOOL) bj = ((const uint8_t*)in[3])[mo] ? 0.0 : -INFINITY;
                            else bj = ((const float*)in[3])[mo];
                        }
                    }
                    if (a.causal && j > i + off) bj = -INFINITY;
                    if (a.left >= 0 && (i + off) - j > a.left) bj = -INFINITY;
                    if (a.right >= 0 && j - (i + off) > a.right) bj = -INFINITY;
                    if (NP && j >= NP[b]) bj = -INFINITY;
                    bias[j] = bj;
                    if (bj > bmx) bmx = bj;
                    x[j] = dot + bj;
                    if (QK && a.mode <= 1) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)dot;
                    if (QK && a.mode == 2) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)(dot + bj);
                    if (x[j] > mx) mx = x[j];
                }
                /* softmax; a row with no attendable key (all of its bias -inf) gives 0 */
                for (j = 0; j < a.T; j++) {
                    x[j] = mx == -INFINITY || bmx == -INFINITY ? 0.0 : exp(x[j] - mx);
                    sum += x[j];
                }
                for (j = 0; j < a.T; j++) {
                    x[j] = sum > 0.0 ? (double)(float)(x[j] / sum) : 0.0;
                    if (QK && a.mode == 3) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)x[j];
                }
                for (d = 0; d < a.Dv; d++) {
                    double acc = 0.0;
                    for (j = 0; j < a.T; j++) acc += x[j] * vbuf[(kh * a.T + j) * a.Dv + d];
                    if (a.r3) Y[(b * a.qS + i) * a.qH * a.Dv + h * a.Dv + d] = (float)acc;
                    else Y[((b * a.qH + h) * a.qS + i) * a.Dv + d] = (float)acc;
                }
            }
        }
    }
    (void)bias;
    aicf__free(c->ctx, x);
    aicf__free(c->ctx, kbuf);
    return AICF_SUCCESS;
}

/* ---- RotaryEmbedding (opset 23) ---- */
typedef struct aicf__op_rope {
    int r3;
    int64_t B, H, S, hd, rd, npos; /* npos: rows of the caches when position_ids index them, else 0 */
    int64_t inter;
} aicf__op_rope;

static aicf_result aicf__op_rope_make(const aicf__opc* c, aicf__op_rope* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cs = aicf__op_in(c, 1);
    const aicf__tensor* sn = aicf__op_in(c, 2);
    const aicf__tensor* pid = aicf__op_in(c, 3);
    int64_t nh, rd;
    char b1[160], b2[160];
    memset(p, 0, sizeof *p);
    AICF__OP_TRY(aicf__op_ai(c, "interleaved", 0, &p->inter));
    AICF__OP_TRY(aicf__op_ai(c, "num_heads", 0, &nh));
    AICF__OP_TRY(aicf__op_ai(c, "rotary_embedding_dim", 0, &rd));
    if (x->shape.rank == 4) {
        p->B = x->shape.d[0];
        p->H = x->shape.d[1];
        p->S = x->shape.d[2];
        p->hd = x->shape.d[3];
    } else if (x->shape.rank == 3) {
        p->r3 = 1;
        if (nh < 1 || x->shape.d[2] % nh)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "3-D input needs attribute num_heads dividing its hidden size %lld",
                              (long long)x->shape.d[2]);
        p->B = x->shape.d[0];
        p->S = x->shape.d[1];
        p->H = nh;
        p->hd = x->shape.d[2] / nh;
    } else {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must be 3-D or 4-D", aicf__op_in_name(c, 0));
    }
    p->rd = rd ? rd : p->hd;
    if (p->rd < 2 || p->rd > p->hd || p->rd % 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "rotary_embedding_dim %lld must be even and at most the head size %lld", (long long)p->rd,
                          (long long)p->hd);
    if (cs->shape.rank != sn->shape.rank || memcmp(cs->shape.d, sn->shape.d, sizeof(int64_t) * (size_t)cs->shape.rank) != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "cos_cache %s and sin_cache %s differ", aicf__op_sstr(&cs->shape, b1, sizeof b1),
                          aicf__op_sstr(&sn->shape, b2, sizeof b2));
    if (pid) {
        if (pid->shape.rank != 2 || pid->shape.d[0] != p->B || pid->shape.d[1] != p->S || cs->shape.rank != 2 || cs->shape.d[1] != p->rd / 2)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "with position_ids [%lld,%lld] the caches must be [positions,%lld], are %s", (long long)p->B,
                              (long long)p->S, (long long)(p->rd / 2), aicf__op_sstr(&cs->shape, b1, sizeof b1));
        p->npos = cs->shape.d[0];
    } else if (cs->shape.rank != 3 || cs->shape.d[0] != p->B || cs->shape.d[1] != p->S || cs->shape.d[2] != p->rd / 2) {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "without position_ids the caches must be [%lld,%lld,%lld], are %s", (long long)p->B, (long long)p->S,
                          (long long)(p->rd / 2), aicf__op_sstr(&cs->shape, b1, sizeof b1));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_rope(const aicf__opc* c) {
    aicf__op_rope p;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 4, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 3, AICF__OP_DTM(AICF_DTYPE_INT64)));
    AICF__OP_TRY(aicf__op_rope_make(c, &p));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_rope(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_rope p;
    const float* X = (const float*)in[0];
    const float* CS = (const float*)in[1];
    const float* SN = (const float*)in[2];
    const int64_t* PID = aicf__op_in(c, 3) ? (const int64_t*)in[3] : NULL;
    float* Y = (float*)out[0];
    int64_t b, s, h, k, half;
    AICF__OP_TRY(aicf__op_rope_make(c, &p));
    half = p.rd / 2;
    for (b = 0; b < p.B; b++)
        for (s = 0; s < p.S; s++) {
            int64_t row = b * p.S + s;
            if (PID) {
                row = PID[b * p.S + s];
                if (row < 0 || row >= p.npos)
                    return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "position_ids[%lld,%lld] = %lld is out of range [0, %lld)", (long long)b,
                                      (long long)s, (long long)row, (long long)p.npos);
            }
            for (h = 0; h < p.H; h++) {
                int64_t base = p.r3 ? (b * p.S + s) * p.H * p.hd + h * p.hd : ((b * p.H + h) * p.S + s) * p.hd;
                const float* x = X + base;
                float* y = Y + base;
                for (k = 0; k < half; k++) {
                    float cv = CS[row * half + k], sv = SN[row * half + k];
                    int64_t i1 = p.inter ? 2 * k : k, i2 = p.inter ? 2 * k + 1 : k + half;
                    float x1 = x[i1], x2 = x[i2];
                    y[i1] = cv * x1 - sv * x2;
                    y[i2] = sv * x1 + cv * x2;
                }
                for (k = p.rd; k < p.hd; k++) y[k] = x[k];
            }
        }
    return AICF_SUCCESS;
}

/* ---- ConvTranspose ---- */
typedef struct aicf__op_ct {
    int nsp;
    int64_t N, C, M, group;
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3];
} aicf__op_ct;

static int64_t aicf__op_floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

static aicf_result aicf__op_ct_make(const aicf__opc* c, aicf__op_ct* w) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* wt = aicf__op_in(c, 1);
    const aicf__tensor* b = aicf__op_in(c, 2);
    int nsp = x->shape.rank - 2, i, o, cnt;
    int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, op[3] = {0, 0, 0}, pads[6] = {0, 0, 0, 0, 0, 0}, os[AICF_MAX_RANK];
    const int64_t* v;
    const char* ap;
    char b1[160], b2[160];
    int n_os = -1;
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > 3)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    if (wt->shape.rank != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (W) shape %s has a different rank than input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&wt->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_ai(c, "group", 1, &w->group));
    if (w->group < 1 || x->shape.d[1] % w->group != 0 || wt->shape.d[0] != x->shape.d[1])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has %lld channels but W shape %s with group %lld expects W[0] = C",
                          (long long)x->shape.d[1], aicf__op_sstr(&wt->shape, b1, sizeof b1), (long long)w->group);
    w->nsp = nsp;
    w->N = x->shape.d[0];
    w->C = x->shape.d[1];
    w->M = wt->shape.d[1] * w->group;
    if (b && (b->shape.rank != 1 || b->shape.d[0] != w->M))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (B) shape %s must be [%lld]", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&b->shape, b1, sizeof b1), (long long)w->M);
#define AICF__OP_CT_ATTR(name, arr, n, lo)                                                                              \
    AICF__OP_TRY(aicf__op_aints(c, name, &v, &cnt));                                                                    \
    if (cnt >= 0) {                                                                                                     \
        if (cnt != (n)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%s' has %d values; expected %d", name, cnt, (n)); \
        for (i = 0; i < cnt; i++) {                                                                                     \
            if (v[i] < (lo) || v[i] > AICF__OP_MAX_WINDOW)                                                              \
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s[%d] = %lld is out of range", name, i, (long long)v[i]); \
            arr[i] = v[i];                                                                                              \
        }                                                                                                               \
    }
    AICF__OP_CT_ATTR("strides", st, nsp, 1)
    AICF__OP_CT_ATTR("dilations", dl, nsp, 1)
    AICF__OP_CT_ATTR("output_padding", op, nsp, 0)
    AICF__OP_CT_ATTR("pads", pads, 2 * nsp, 0)
#undef AICF__OP_CT_ATTR
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < cnt; i++)
            if (v[i] != wt->shape.d[2 + i])
                return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'kernel_shape' does not match W shape %s", aicf__op_sstr(&wt->shape, b1, sizeof b1));
    }
    AICF__OP_TRY(aicf__op_aints_r(c, "output_shape", os, &n_os));
    if (n_os >= 0 && n_os != nsp && n_os != nsp + 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'output_shape' has %d values; expected %d", n_os, nsp);
    AICF__OP_TRY(aicf__op_as(c, "auto_pad", "NOTSET", &ap));
    if (strcmp(ap, "NOTSET") && strcmp(ap, "SAME_UPPER") && strcmp(ap, "SAME_LOWER") && strcmp(ap, "VALID") && ap[0])
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'auto_pad' is '%.40s'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    o = 3 - nsp;
    for (i = 0; i < 3; i++) w->in[i] = w->out[i] = w->k[i] = w->s[i] = w->d[i] = 1;
    for (i = 0; i < nsp; i++) {
        int64_t in = x->shape.d[2 + i], k = wt->shape.d[2 + i], dk = (k - 1) * dl[i] + 1, full, out;
        full = st[i] * (in - 1) + op[i] + dk;
        w->in[o + i] = in;
        w->k[o + i] = k;
        w->s[o + i] = st[i];
        w->d[o + i] = dl[i];
        if (n_os >= 0 || !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            int64_t total;
            out = n_os >= 0 ? os[n_os - nsp + i] : in * st[i];
            total = full - out;
            w->pb[o + i] = !strcmp(ap, "SAME_UPPER") ? aicf__op_floordiv2(total) : total - aicf__op_floordiv2(total);
        } else if (!strcmp(ap, "VALID")) {
            out = full;
        } else {
            out = full - pads[i] - pads[nsp + i];
            w->pb[o + i] = pads[i];
        }
        if (out < 0 || out > AICF__OP_MAX_WINDOW)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "output size %lld of spatial dim %d is invalid", (long long)out, i);
        w->out[o + i] = out;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_convt(const aicf__opc* c) {
    aicf__op_ct w;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_ct_make(c, &w));
    memset(&o, 0, sizeof o);
    o.rank = w.nsp + 2;
    o.d[0] = w.N;
    o.d[1] = w.M;
    for (i = 0; i < w.nsp; i++) o.d[2 + i] = w.out[3 - w.nsp + i];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

/* Y[n, m, o] = B[m] + sum over c (of m's group), kernel position k and input position i with
   o = i * stride + k * dilation - pad_begin of X[n, c, i] * W[c, m % (M/group), k]. */
static aicf_result aicf__op_run_convt(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_ct w;
    const float* X = (const float*)in[0];
    const float* W = (const float*)in[1];
    const float* B = aicf__op_in(c, 2) ? (const float*)in[2] : NULL;
    float* Y = (float*)out[0];
    int64_t n, m, ci, Cg, Mg, IS, OS, KS, i0, i1, i2, k0, k1, k2, j;
    AICF__OP_TRY(aicf__op_ct_make(c, &w));
    Cg = w.C / w.group;
    Mg = w.M / w.group;
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    KS = w.k[0] * w.k[1] * w.k[2];
    for (n = 0; n < w.N; n++)
        for (m = 0; m < w.M; m++) {
            float* yp = Y + (n * w.M + m) * OS;
            int64_t g = m / Mg, ml = m % Mg;
            for (j = 0; j < OS; j++) yp[j] = B ? B[m] : 0.0f;
            for (ci = 0; ci < Cg; ci++) {
                const float* xp = X + (n * w.C + g * Cg + ci) * IS;
                const float* wp = W + ((g * Cg + ci) * Mg + ml) * KS;
                for (i0 = 0; i0 < w.in[0]; i0++)
                    for (k0 = 0; k0 < w.k[0]; k0++) {
                        int64_t o0 = i0 * w.s[0] + k0 * w.d[0] - w.pb[0];
                        if (o0 < 0 || o0 >= w.out[0]) continue;
                        for (i1 = 0; i1 < w.in[1]; i1++)
                            for (k1 = 0; k1 < w.k[1]; k1++) {
                                int64_t o1 = i1 * w.s[1] + k1 * w.d[1] - w.pb[1];
                                if (o1 < 0 || o1 >= w.out[1]) continue;
                                for (i2 = 0; i2 < w.in[2]; i2++) {
                                    float xv = xp[(i0 * w.in[1] + i1) * w.in[2] + i2];
                                    for (k2 = 0; k2 < w.k[2]; k2++) {
                                        int64_t o2 = i2 * w.s[2] + k2 * w.d[2] - w.pb[2];
                                        if (o2 < 0 || o2 >= w.out[2]) continue;
                                        yp[(o0 * w.out[1] + o1) * w.out[2] + o2] += xv * wp[(k0 * w.k[1] + k1) * w.k[2] + k2];
                                    }
                                }
                            }
                    }
            }
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Entry points
   ============================================================================================ */

int aicf__op_is_alias(aicf__op op) {
    return op == AICF__OP_Reshape || op == AICF__OP_Flatten || op == AICF__OP_Squeeze || op == AICF__OP_Unsqueeze ||
           op == AICF__OP_Identity || op == AICF__OP_Dropout;
}

static aicf_result aicf__op_check_node(const aicf__opc* c) {
    const char* dom = c->n->domain;
    if (dom && dom[0] && strcmp(dom, "ai.onnx") != 0)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "domain '%.100s' is not supported", dom);
    if (c->n->op <= AICF__OP_UNKNOWN || c->n->op >= AICF__OP_COUNT)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    return AICF_SUCCESS;
}

aicf_result aicf__op_infer(aicf_graph* g, int ni) {
    aicf__opc c;
    if (!g || ni < 0 || ni >= g->n_nodes) return AICF_ERROR_INVALID_ARGUMENT;
    aicf__opc_init(&c, g, ni);
    AICF__OP_TRY(aicf__op_check_node(&c));
    switch (c.n->op) {
    case AICF__OP_Conv: return aicf__op_infer_conv(&c);
    case AICF__OP_Gemm: return aicf__op_infer_gemm(&c);
    case AICF__OP_MatMul: return aicf__op_infer_matmul(&c);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min: return aicf__op_infer_binary(&c);
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
    case AICF__OP_Clip: return aicf__op_infer_unary(&c);
    case AICF__OP_Identity:
    case AICF__OP_Dropout:
    case AICF__OP_Reshape:
    case AICF__OP_Flatten:
    case AICF__OP_Unsqueeze:
    case AICF__OP_Squeeze: return aicf__op_infer_alias(&c);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__op_infer_pool(&c);
    case AICF__OP_GlobalAveragePool: return aicf__op_infer_gap(&c);
    case AICF__OP_BatchNormalization: return aicf__op_infer_bn(&c);
    case AICF__OP_LRN: return aicf__op_infer_lrn(&c);
    case AICF__OP_Concat: return aicf__op_infer_concat(&c);
    case AICF__OP_Transpose: return aicf__op_infer_transpose(&c);
    case AICF__OP_Softmax: return aicf__op_infer_softmax(&c);
    case AICF__OP_Constant: return aicf__op_infer_constant(&c);
    case AICF__OP_ConstantOfShape: return aicf__op_infer_cos(&c);
    case AICF__OP_Shape: return aicf__op_infer_shape(&c);
    case AICF__OP_Cast: return aicf__op_infer_cast(&c);
    case AICF__OP_Gather: return aicf__op_infer_gather(&c);
    case AICF__OP_GatherElements: return aicf__op_infer_gather_el(&c);
    case AICF__OP_GatherND: return aicf__op_infer_gather_nd(&c);
    case AICF__OP_Slice: return aicf__op_infer_slice(&c);
    case AICF__OP_Split: return aicf__op_infer_split(&c);
    case AICF__OP_Pad: return aicf__op_infer_pad(&c);
    case AICF__OP_Tile:
    case AICF__OP_Expand: return aicf__op_infer_tile_expand(&c);
    case AICF__OP_Where: return aicf__op_infer_where(&c);
    case AICF__OP_Range: return aicf__op_infer_range(&c);
    case AICF__OP_Trilu: return aicf__op_infer_trilu(&c);
    case AICF__OP_Size: return aicf__op_infer_size(&c);
    case AICF__OP_CastLike: return aicf__op_infer_castlike(&c);
    case AICF__OP_OneHot: return aicf__op_infer_onehot(&c);
    case AICF__OP_CumSum:
    case AICF__OP_CumProd: return aicf__op_infer_cumsum(&c);
    case AICF__OP_BitShift:
    case AICF__OP_BitwiseAnd:
    case AICF__OP_BitwiseOr:
    case AICF__OP_BitwiseXor: return aicf__op_infer_bitwise(&c);
    case AICF__OP_BitwiseNot:
        AICF__OP_TRY(aicf__op_check_io(&c, 1, 1, 1, 1));
        AICF__OP_TRY(aicf__op_check_dt(&c, 0, AICF__OP_DTM_INTS));
        return aicf__op_set_out(&c, 0, aicf__op_in(&c, 0)->dtype, &aicf__op_in(&c, 0)->shape);
    case AICF__OP_EyeLike: return aicf__op_infer_eyelike(&c);
    case AICF__OP_Compress: return aicf__op_infer_compress(&c);
    case AICF__OP_ReverseSequence: return aicf__op_infer_revseq(&c);
    case AICF__OP_CenterCropPad: return aicf__op_infer_ccp(&c);
    case AICF__OP_LpPool: return aicf__op_infer_pool(&c);
    case AICF__OP_Attention: return aicf__op_infer_attention(&c);
    case AICF__OP_RotaryEmbedding: return aicf__op_infer_rope(&c);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__op_infer_d2s(&c);
    case AICF__OP_ScatterND: return aicf__op_infer_scatter_nd(&c);
    case AICF__OP_ScatterElements:
    case AICF__OP_Scatter: return aicf__op_infer_scatter_el(&c);
    case AICF__OP_TopK: return aicf__op_infer_topk(&c);
    case AICF__OP_NonZero: return aicf__op_infer_nonzero(&c);
    case AICF__OP_Equal:
    case AICF__OP_Less:
    case AICF__OP_Greater:
    case AICF__OP_LessOrEqual:
    case AICF__OP_GreaterOrEqual:
    case AICF__OP_And:
    case AICF__OP_Or:
    case AICF__OP_Xor: return aicf__op_infer_compare(&c);
    case AICF__OP_Not:
    case AICF__OP_IsNaN:
    case AICF__OP_IsInf: return aicf__op_infer_pred(&c);
    case AICF__OP_Mod: return aicf__op_infer_mod(&c);
    case AICF__OP_PRelu: return aicf__op_infer_prelu(&c);
    case AICF__OP_Mean: return aicf__op_infer_binary(&c);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare: return aicf__op_infer_reduce(&c);
    case AICF__OP_ArgMax:
    case AICF__OP_ArgMin: return aicf__op_infer_arg(&c);
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
    case AICF__OP_Swish: return aicf__op_infer_unary(&c);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization: return aicf__op_infer_ln(&c);
    case AICF__OP_InstanceNormalization:
    case AICF__OP_GroupNormalization: return aicf__op_infer_gn(&c);
    case AICF__OP_LpNormalization: return aicf__op_infer_lpn(&c);
    case AICF__OP_MeanVarianceNormalization: return aicf__op_infer_mvn(&c);
    case AICF__OP_LogSoftmax:
    case AICF__OP_Hardmax: return aicf__op_infer_softmax(&c);
    case AICF__OP_GlobalMaxPool: return aicf__op_infer_gap(&c);
    case AICF__OP_Einsum: return aicf__op_infer_einsum(&c);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__op_infer_resize(&c);
    case AICF__OP_ConvTranspose: return aicf__op_infer_convt(&c);
    default: return aicf__op_err(&c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    }
}

static aicf_result aicf__op_cpu_dispatch(const aicf__opc* c, const void* const* in, void* const* out);

/* Inputs may point into a model file (borrowed raw_data) at any byte offset: those not aligned
   to their element size are copied into an aligned temporary for the call. */
aicf_result aicf__cpu_run(aicf_graph* g, int ni, const void* const* in, void* const* out) {
    aicf__opc c;
    int i, nin;
    const void* local[8];
    const void** ins = local;
    void** tmp = NULL;
    aicf_result r;
    if (!g || ni < 0 || ni >= g->n_nodes || (!in && g->nodes[ni].n_in > 0) || (!out && g->nodes[ni].n_out > 0))
        return AICF_ERROR_INVALID_ARGUMENT;
    aicf__opc_init(&c, g, ni);
    AICF__OP_TRY(aicf__op_check_node(&c));
    nin = c.n->n_in;
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(&c, i);
        if (t && !in[i] && aicf__op_tbytes(t) > 0 && c.n->op != AICF__OP_Shape && c.n->op != AICF__OP_Size)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no data for input %d '%.200s'", i, aicf__op_in_name(&c, i));
    }
    for (i = 0; i < c.n->n_out; i++) {
        const aicf__tensor* t = aicf__op_out(&c, i);
        if (t && !t->shape_known)
            return aicf__op_err(&c, AICF_ERROR_STATE, "output %d '%.200s' has no inferred shape", i, aicf__op_out_name(&c, i));
        if (t && !out[i] && aicf__op_tbytes(t) > 0)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no buffer for output %d '%.200s'", i, aicf__op_out_name(&c, i));
    }
    if (!aicf__op_out(&c, 0) && c.n->op != AICF__OP_Split)
        return aicf__op_err(&c, AICF_ERROR_INVALID_MODEL, "required output 0 is omitted");
    {
        /* nothing to compute when every output is empty */
        int any = c.n->op == AICF__OP_Dropout;
        for (i = 0; i < c.n->n_out && !any; i++)
            if (aicf__op_out(&c, i) && aicf__op_tbytes(aicf__op_out(&c, i)) > 0) any = 1;
        if (!any) return AICF_SUCCESS;
    }
    /* ins has at least 8 entries, NULL past n_in: the ops may look at optional inputs beyond
       the node's input count */
    memset((void*)local, 0, sizeof local);
    if (nin > 8) {
        ins = (const void**)aicf__calloc(c.ctx, (size_t)nin, sizeof(void*));
        if (!ins) return aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(&c, i);
        size_t esz = t ? aicf_dtype_size(t->dtype) : 0;
        ins[i] = in[i];
        if (in[i] && esz > 1 && ((uintptr_t)in[i] % esz) != 0) {
            size_t bytes = aicf__op_tbytes(t);
            if (!tmp) {
                tmp = (void**)aicf__calloc(c.ctx, (size_t)nin, sizeof(void*));
                if (!tmp) {
                    r = aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
                    goto done;
                }
            }
            tmp[i] = aicf__malloc(c.ctx, bytes);
            if (!tmp[i]) {
                r = aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory aligning input %d", i);
                goto done;
            }
            memcpy(tmp[i], in[i], bytes);
            ins[i] = tmp[i];
        }
    }
    r = aicf__op_cpu_dispatch(&c, ins, out);
done:
    if (tmp) {
        for (i = 0; i < nin; i++) aicf__free(c.ctx, tmp[i]);
        aicf__free(c.ctx, tmp);
    }
    if (ins != local) aicf__free(c.ctx, (void*)ins);
    return r;
}

static aicf_result aicf__op_cpu_dispatch(const aicf__opc* cc, const void* const* in, void* const* out) {
    aicf__opc c = *cc;
    switch (c.n->op) {
    case AICF__OP_Conv: return aicf__op_run_conv(&c, in, out);
    case AICF__OP_Gemm: return aicf__op_run_gemm(&c, in, out);
    case AICF__OP_MatMul: return aicf__op_run_matmul(&c, in, out);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min: return aicf__op_run_binary(&c, in, out);
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
    case AICF__OP_Clip: return aicf__op_run_unary(&c, in, out);
    case AICF__OP_Identity:
    case AICF__OP_Dropout:
    case AICF__OP_Reshape:
    case AICF__OP_Flatten:
    case AICF__OP_Unsqueeze:
    case AICF__OP_Squeeze: return aicf__op_run_alias(&c, in, out);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__op_run_pool(&c, in, out);
    case AICF__OP_GlobalAveragePool: return aicf__op_run_gap(&c, in, out);
    case AICF__OP_BatchNormalization: return aicf__op_run_bn(&c, in, out);
    case AICF__OP_LRN: return aicf__op_run_lrn(&c, in, out);
    case AICF__OP_Concat: return aicf__op_run_concat(&c, in, out);
    case AICF__OP_Transpose: return aicf__op_run_transpose(&c, in, out);
    case AICF__OP_Softmax: return aicf__op_run_softmax(&c, in, out);
    case AICF__OP_Constant: return aicf__op_run_constant(&c, out);
    case AICF__OP_ConstantOfShape: return aicf__op_run_cos(&c, out);
    case AICF__OP_Shape: return aicf__op_run_shape(&c, out);
    case AICF__OP_Cast:
    case AICF__OP_CastLike: return aicf__op_run_cast(&c, in, out);
    case AICF__OP_Gather: return aicf__op_run_gather(&c, in, out);
    case AICF__OP_GatherElements: return aicf__op_run_gather_el(&c, in, out);
    case AICF__OP_GatherND: return aicf__op_run_gather_nd(&c, in, out);
    case AICF__OP_Slice: return aicf__op_run_slice(&c, in, out);
    case AICF__OP_Split: return aicf__op_run_split(&c, in, out);
    case AICF__OP_Pad: return aicf__op_run_pad(&c, in, out);
    case AICF__OP_Tile:
    case AICF__OP_Expand: return aicf__op_run_tile_expand(&c, in, out);
    case AICF__OP_Where: return aicf__op_run_where(&c, in, out);
    case AICF__OP_Range: return aicf__op_run_range(&c, in, out);
    case AICF__OP_Trilu: return aicf__op_run_trilu(&c, in, out);
    case AICF__OP_Size:
        ((int64_t*)out[0])[0] = aicf__shape_numel(&aicf__op_in(&c, 0)->shape);
        return AICF_SUCCESS;
    case AICF__OP_OneHot: return aicf__op_run_onehot(&c, in, out);
    case AICF__OP_CumSum:
    case AICF__OP_CumProd: return aicf__op_run_cumsum(&c, in, out);
    case AICF__OP_BitShift:
    case AICF__OP_BitwiseAnd:
    case AICF__OP_BitwiseOr:
    case AICF__OP_BitwiseXor: return aicf__op_run_bitwise(&c, in, out);
    case AICF__OP_BitwiseNot: return aicf__op_run_bitnot(&c, in, out);
    case AICF__OP_EyeLike: return aicf__op_run_eyelike(&c, out);
    case AICF__OP_Compress: return aicf__op_run_compress(&c, in, out);
    case AICF__OP_ReverseSequence: return aicf__op_run_revseq(&c, in, out);
    case AICF__OP_CenterCropPad: return aicf__op_run_ccp(&c, in, out);
    case AICF__OP_LpPool: return aicf__op_run_pool(&c, in, out);
    case AICF__OP_Attention: return aicf__op_run_attention(&c, in, out);
    case AICF__OP_RotaryEmbedding: return aicf__op_run_rope(&c, in, out);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__op_run_d2s(&c, in, out);
    case AICF__OP_ScatterND: return aicf__op_run_scatter_nd(&c, in, out);
    case AICF__OP_ScatterElements:
    case AICF__OP_Scatter: return aicf__op_run_scatter_el(&c, in, out);
    case AICF__OP_TopK: return aicf__op_run_topk(&c, in, out);
    case AICF__OP_NonZero: return aicf__op_run_nonzero(&c, in, out);
    case AICF__OP_Equal:
    case AICF__OP_Less:
    case AICF__OP_Greater:
    case AICF__OP_LessOrEqual:
    case AICF__OP_GreaterOrEqual:
    case AICF__OP_And:
    case AICF__OP_Or:
    case AICF__OP_Xor: return aicf__op_run_compare(&c, in, out);
    case AICF__OP_Not:
    case AICF__OP_IsNaN:
    case AICF__OP_IsInf: return aicf__op_run_pred(&c, in, out);
    case AICF__OP_Mod: return aicf__op_run_mod(&c, in, out);
    case AICF__OP_PRelu: return aicf__op_run_prelu(&c, in, out);
    case AICF__OP_Mean: return aicf__op_run_binary(&c, in, out);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare: return aicf__op_run_reduce(&c, in, out);
    case AICF__OP_ArgMax:
    case AICF__OP_ArgMin: return aicf__op_run_arg(&c, in, out);
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
    case AICF__OP_Swish: return aicf__op_run_unary(&c, in, out);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization: return aicf__op_run_ln(&c, in, out);
    case AICF__OP_InstanceNormalization:
    case AICF__OP_GroupNormalization: return aicf__op_run_gn(&c, in, out);
    case AICF__OP_LpNormalization: return aicf__op_run_lpn(&c, in, out);
    case AICF__OP_MeanVarianceNormalization: return aicf__op_run_mvn(&c, in, out);
    case AICF__OP_LogSoftmax:
    case AICF__OP_Hardmax: return aicf__op_run_logsoftmax(&c, in, out);
    case AICF__OP_GlobalMaxPool: return aicf__op_run_gmp(&c, in, out);
    case AICF__OP_Einsum: return aicf__op_run_einsum(&c, in, out);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__op_run_resize(&c, in, out);
    case AICF__OP_ConvTranspose: return aicf__op_run_convt(&c, in, out);
    default: return aicf__op_err(&c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    }
}
