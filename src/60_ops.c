/* >>ops ===================================================================================== */
/* Shape inference (aicf__op_infer) and the CPU reference (aicf__cpu_run) of every op in
   AICF__OPS, with the semantics of the ONNX operator specification
   (https://github.com/onnx/onnx/blob/main/docs/Operators.md) at the graph's default-domain
   opset (g->opset, 0 = latest).

   Data types: the math ops compute in float32. FLOAT32 is accepted everywhere; INT64/INT32
   also where shape arithmetic needs them (Add, Sub, Mul, Div, Max, Min, Sum, Concat,
   Transpose); the byte-moving ops (Identity, Reshape, Flatten, Squeeze, Unsqueeze), Shape,
   Constant, ConstantOfShape and Cast accept FLOAT32, FLOAT64, FLOAT16, INT32, INT64, INT8,
   UINT8 and BOOL. Anything else is AICF_ERROR_UNSUPPORTED naming the node, input and dtype.

   The CPU reference is plain C with float32 arithmetic, written for obviousness, not speed:
   deterministic, no allocation per element, outputs row-major and tightly packed. Conv and
   the pools work on 1-D, 2-D and 3-D NCHW data (spatial dims normalised to three, leading
   ones of size 1). Inputs at addresses not aligned to their element size (constants borrowed
   from a model file) are copied to aligned memory for the call.

   Where ONNX leaves a result open, aicf chooses (as ONNX Runtime unless noted):
   - integer Add/Sub/Mul wrap (two's complement); Div truncates toward zero; an integer
     division by zero fails the run with AICF_ERROR_INVALID_ARGUMENT;
   - Cast float -> integer truncates toward zero and saturates to the type's range, NaN -> 0;
     integer narrowing wraps (as numpy); float64 -> float16 rounds once, to nearest even;
   - Max/Min propagate NaN (as numpy); a pooling window that covers no input element (only
     possible with dilations) gives -FLT_MAX (MaxPool) or 0 (AveragePool);
   - pools with ceil_mode drop a last window that would start in the right padding, and
     count_include_pad divides by the window elements inside the explicitly padded input. */

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
#define AICF__OP_DTM_SHAPE (AICF__OP_DTM_F32 | AICF__OP_DTM_INT)
#define AICF__OP_DTM_ANY                                                                            \
    (AICF__OP_DTM_SHAPE | AICF__OP_DTM(AICF_DTYPE_FLOAT64) | AICF__OP_DTM(AICF_DTYPE_FLOAT16) |          \
     AICF__OP_DTM(AICF_DTYPE_INT8) | AICF__OP_DTM(AICF_DTYPE_UINT8) | AICF__OP_DTM(AICF_DTYPE_BOOL))

static int aicf__op_dt_in(aicf_dtype dt, unsigned mask) {
    return (int)dt > 0 && (int)dt < 32 && (mask & AICF__OP_DTM(dt)) != 0;
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

/* Reads constant input i, an int64 tensor of rank 0 or 1 with at most `cap` values, into vals.
   `what` names the input in the message ("shape", "axes"). */
static aicf_result aicf__op_const_ints(const aicf__opc* c, int i, const char* what, int64_t* vals, int cap, int* count) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t ne, k;
    *count = -1;
    if (!t) return AICF_SUCCESS;
    if (!(t->flags & AICF__T_CONST) || (!t->data && aicf__shape_numel(&t->shape) != 0))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    if (t->dtype != AICF_DTYPE_INT64)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be int64, not %s", i,
                          aicf__op_in_name(c, i), what, aicf_dtype_name(t->dtype));
    if (t->shape.rank > 1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be 1-D, has rank %d", i,
                          aicf__op_in_name(c, i), what, t->shape.rank);
    ne = aicf__shape_numel(&t->shape);
    if (ne < 0 || ne > cap)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i,
                          aicf__op_in_name(c, i), what, (long long)ne, cap);
    if (t->data_bytes < (size_t)ne * sizeof(int64_t))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds %zu bytes, needs %zu", i,
                          aicf__op_in_name(c, i), what, t->data_bytes, (size_t)ne * sizeof(int64_t));
    for (k = 0; k < ne; k++) memcpy(&vals[k], (const unsigned char*)t->data + k * 8, 8);
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

/* ============================================================================================
   Elementwise ops
   ============================================================================================ */

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
    default: return AICF_SUCCESS;
    }
}

static aicf_result aicf__op_infer_unary(const aicf__opc* c) {
    const aicf__tensor* x;
    float a, b;
    int max_in = 1;
    if (c->n->op == AICF__OP_Clip && c->opset >= 11) max_in = 3;
    AICF__OP_TRY(aicf__op_check_io(c, 1, max_in, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
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
    if (op == AICF__OP_Clip && c->opset >= 11) {
        if (aicf__op_in(c, 1) && in[1]) memcpy(&a, in[1], sizeof(float));
        if (aicf__op_in(c, 2) && in[2]) memcpy(&b, in[2], sizeof(float));
    }
    for (i = 0; i < n; i++) yp[i] = aicf__op_unary_f(op, xp[i], a, b);
    return AICF_SUCCESS;
}

/* ---- binary and variadic ops with broadcasting ---- */

static int aicf__op_is_variadic(aicf__op op) {
    return op == AICF__OP_Sum || op == AICF__OP_Max || op == AICF__OP_Min;
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
    if (op != AICF__OP_Pow) mask |= AICF__OP_DTM_INT;
    nin = aicf__op_nin(c->n);
    for (i = 0; i < nin; i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
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
    case AICF__OP_Sum: return a + b;
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

/* Integer arithmetic wraps (two's complement) like ONNX Runtime and numpy; Div truncates. */
static int64_t aicf__op_bin_i(aicf__op op, int64_t a, int64_t b) {
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

static int64_t aicf__op_ld_int(aicf_dtype dt, const void* p, int64_t i) {
    if (dt == AICF_DTYPE_INT32) return ((const int32_t*)p)[i];
    return ((const int64_t*)p)[i];
}

static void aicf__op_st_int(aicf_dtype dt, void* p, int64_t i, int64_t v) {
    if (dt == AICF_DTYPE_INT32) ((int32_t*)p)[i] = (int32_t)(uint32_t)(uint64_t)v;
    else ((int64_t*)p)[i] = v;
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
        } else {
            for (j = 0; j < inner; j++)
                aicf__op_st_int(dt, y, oy + j, aicf__op_bin_i(op, aicf__op_ld_int(dt, a, oa + j * ia), aicf__op_ld_int(dt, b, ob + j * ib)));
        }
        aicf__op_iter_next(&it);
    }
}

static aicf_result aicf__op_run_binary(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf__op op = c->n->op;
    aicf_dtype dt = y->dtype;
    int nin = aicf__op_nin(c->n), i;
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK];
    aicf__shape sa, sb;
    if (op == AICF__OP_Div && dt != AICF_DTYPE_FLOAT32) {
        const aicf__tensor* bt = aicf__op_in(c, 1);
        int64_t k, nb = aicf__shape_numel(&bt->shape);
        for (k = 0; k < nb; k++)
            if (aicf__op_ld_int(dt, in[1], k) == 0)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "integer division by zero (input 1 '%.200s' element %lld)",
                                  aicf__op_in_name(c, 1), (long long)k);
    }
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 0, &sa));
    aicf__op_bcast_strides(&sa, &y->shape, sta);
    if (nin == 1) {
        /* one-input Sum/Max/Min: a copy */
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
    return AICF_SUCCESS;
}

/* ============================================================================================
   MatMul, Gemm
   ============================================================================================ */

/* MatMul geometry (numpy matmul): batch dims broadcast, 1-D operands promoted and dropped. */
typedef struct aicf__op_mm {
    int64_t M, N, K;
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
        aicf__op_gemm_f32(m.M, m.N, m.K, (const float*)in[0] + oa, m.K, 1, (const float*)in[1] + ob, m.N, 1,
                       (float*)out[0] + bi * m.M * m.N);
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
    if (c->n->op == AICF__OP_MaxPool) {
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
    int64_t cip, nc, od, oh, ow, kd, kh, kw, IS, OS;
    int is_max = c->n->op == AICF__OP_MaxPool;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_pool_make(c, &w, &cip));
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
                                    } else {
                                        acc += v;
                                    }
                                }
                            }
                        }
                    }
                done:
                    if (!is_max) {
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
        AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_SHAPE));
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
        if (row)
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
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_SHAPE));
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
    AICF__OP_TRY(aicf__op_check_dt(c, 0, op == AICF__OP_Dropout ? AICF__OP_DTM_F32 : AICF__OP_DTM_ANY));
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
    if (!aicf__op_dt_in(t->dtype, AICF__OP_DTM_ANY))
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
    for (i = 0; i < n; i++) memcpy((unsigned char*)out[0] + i * esz, val, esz);
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
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ANY));
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
    if (a->i <= 0 || a->i >= 32 || !aicf__op_dt_in((aicf_dtype)a->i, AICF__OP_DTM_ANY)) {
        char buf[160];
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'to' = %lld (%s) is not supported (supported: %s)", (long long)a->i,
                          a->i > 0 && a->i < 32 ? aicf_dtype_name((aicf_dtype)a->i) : "?",
                          aicf__op_dtm_str(AICF__OP_DTM_ANY, buf, sizeof buf));
    }
    *to = (aicf_dtype)a->i;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_cast(const aicf__opc* c) {
    aicf_dtype to = AICF_DTYPE_INVALID;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ANY));
    AICF__OP_TRY(aicf__op_cast_to(c, &to));
    return aicf__op_set_out(c, 0, to, &aicf__op_in(c, 0)->shape);
}

static int aicf__op_dt_is_float(aicf_dtype dt) {
    return dt == AICF_DTYPE_FLOAT32 || dt == AICF_DTYPE_FLOAT64 || dt == AICF_DTYPE_FLOAT16;
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

static double aicf__op_ld_f64(aicf_dtype dt, const void* p, size_t i) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: return ((const float*)p)[i];
    case AICF_DTYPE_FLOAT64: return ((const double*)p)[i];
    case AICF_DTYPE_FLOAT16: return aicf__f16_to_f32(((const uint16_t*)p)[i]);
    default: return 0.0;
    }
}

static int64_t aicf__op_ld_i64(aicf_dtype dt, const void* p, size_t i) {
    switch (dt) {
    case AICF_DTYPE_INT64: return ((const int64_t*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8: return ((const uint8_t*)p)[i];
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i] != 0;
    default: return 0;
    }
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
    size_t n = aicf__op_numel(&x->shape), i;
    void* y = out[0];
    if (from == to) {
        if (n) memcpy(y, in[0], n * aicf_dtype_size(from));
        return AICF_SUCCESS;
    }
    for (i = 0; i < n; i++) {
        if (aicf__op_dt_is_float(from)) {
            double v = aicf__op_ld_f64(from, in[0], i);
            switch (to) {
            case AICF_DTYPE_FLOAT32: ((float*)y)[i] = (float)v; break;
            case AICF_DTYPE_FLOAT64: ((double*)y)[i] = v; break;
            case AICF_DTYPE_FLOAT16: ((uint16_t*)y)[i] = aicf__op_f64_to_f16(v); break;
            case AICF_DTYPE_INT64: ((int64_t*)y)[i] = aicf__op_f2i(v, INT64_MIN, INT64_MAX); break;
            case AICF_DTYPE_INT32: ((int32_t*)y)[i] = (int32_t)aicf__op_f2i(v, INT32_MIN, INT32_MAX); break;
            case AICF_DTYPE_INT8: ((int8_t*)y)[i] = (int8_t)aicf__op_f2i(v, -128, 127); break;
            case AICF_DTYPE_UINT8: ((uint8_t*)y)[i] = (uint8_t)aicf__op_f2i(v, 0, 255); break;
            case AICF_DTYPE_BOOL: ((uint8_t*)y)[i] = (uint8_t)(v != 0.0); break;
            default: break;
            }
        } else {
            int64_t v = aicf__op_ld_i64(from, in[0], i);
            switch (to) {
            case AICF_DTYPE_FLOAT32: ((float*)y)[i] = (float)v; break;
            case AICF_DTYPE_FLOAT64: ((double*)y)[i] = (double)v; break;
            case AICF_DTYPE_FLOAT16: ((uint16_t*)y)[i] = aicf__op_f64_to_f16((double)v); break;
            /* integer narrowing wraps (two's complement), as numpy's astype */
            case AICF_DTYPE_INT64: ((int64_t*)y)[i] = v; break;
            case AICF_DTYPE_INT32: ((int32_t*)y)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
            case AICF_DTYPE_INT8: ((int8_t*)y)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
            case AICF_DTYPE_UINT8: ((uint8_t*)y)[i] = (uint8_t)(uint64_t)v; break;
            case AICF_DTYPE_BOOL: ((uint8_t*)y)[i] = (uint8_t)(v != 0); break;
            default: break;
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
        if (t && !in[i] && aicf__op_tbytes(t) > 0 && c.n->op != AICF__OP_Shape)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no data for input %d '%.200s'", i, aicf__op_in_name(&c, i));
    }
    for (i = 0; i < c.n->n_out; i++) {
        const aicf__tensor* t = aicf__op_out(&c, i);
        if (t && !t->shape_known)
            return aicf__op_err(&c, AICF_ERROR_STATE, "output %d '%.200s' has no inferred shape", i, aicf__op_out_name(&c, i));
        if (t && !out[i] && aicf__op_tbytes(t) > 0)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no buffer for output %d '%.200s'", i, aicf__op_out_name(&c, i));
    }
    if (!aicf__op_out(&c, 0)) return aicf__op_err(&c, AICF_ERROR_INVALID_MODEL, "required output 0 is omitted");
    if (aicf__op_tbytes(aicf__op_out(&c, 0)) == 0 && c.n->op != AICF__OP_Dropout) return AICF_SUCCESS;
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
    case AICF__OP_Cast: return aicf__op_run_cast(&c, in, out);
    default: return aicf__op_err(&c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    }
}
