/* >>core =================================================================================== */

#if !defined(_WIN32)
#  include <sys/mman.h>
#endif

/* ---- host clock (plan creation times, benchmark) ----
   Microseconds from a monotonic clock: QueryPerformanceCounter on Windows, clock_gettime
   (CLOCK_MONOTONIC) where <time.h> declares it (POSIX feature macros, or C++); in strict ISO C
   without them, gettimeofday (microsecond resolution, not monotonic). */
#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>
static double aicf__now_us(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1e6 / (double)f.QuadPart;
}
#else
#  include <time.h>
#  if defined(CLOCK_MONOTONIC)
static double aicf__now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
#  else
#    include <sys/time.h>
static double aicf__now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}
#  endif
#endif

const char* aicf_result_str(aicf_result result) {
    switch (result) {
#define AICF__RESULT_CASE(name, value, text) case name: return text;
        AICF_RESULTS(AICF__RESULT_CASE)
#undef AICF__RESULT_CASE
    default: return "unknown result code";
    }
}

const char* aicf_dtype_name(aicf_dtype dtype) {
    switch (dtype) {
    case AICF_DTYPE_FLOAT32: return "float32";
    case AICF_DTYPE_UINT8: return "uint8";
    case AICF_DTYPE_INT8: return "int8";
    case AICF_DTYPE_UINT16: return "uint16";
    case AICF_DTYPE_INT16: return "int16";
    case AICF_DTYPE_INT32: return "int32";
    case AICF_DTYPE_INT64: return "int64";
    case AICF_DTYPE_STRING: return "string";
    case AICF_DTYPE_BOOL: return "bool";
    case AICF_DTYPE_FLOAT16: return "float16";
    case AICF_DTYPE_FLOAT64: return "float64";
    case AICF_DTYPE_UINT32: return "uint32";
    case AICF_DTYPE_UINT64: return "uint64";
    case AICF_DTYPE_BFLOAT16: return "bfloat16";
    default: return "invalid";
    }
}

size_t aicf_dtype_size(aicf_dtype dtype) {
    switch (dtype) {
    case AICF_DTYPE_FLOAT32: case AICF_DTYPE_INT32: case AICF_DTYPE_UINT32: return 4;
    case AICF_DTYPE_UINT8: case AICF_DTYPE_INT8: case AICF_DTYPE_BOOL: return 1;
    case AICF_DTYPE_UINT16: case AICF_DTYPE_INT16: case AICF_DTYPE_FLOAT16:
    case AICF_DTYPE_BFLOAT16: return 2;
    case AICF_DTYPE_INT64: case AICF_DTYPE_FLOAT64: case AICF_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* ---- allocation ---- */
int aicf__mul_size(size_t a, size_t b, size_t* out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

int aicf__add_size(size_t a, size_t b, size_t* out) {
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

void* aicf__malloc(aicf_context* ctx, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (ctx && ctx->alloc.alloc) return ctx->alloc.alloc(bytes, ctx->alloc.user);
    return malloc(bytes);
}

void* aicf__calloc(aicf_context* ctx, size_t count, size_t size) {
    size_t bytes;
    void* p;
    if (!aicf__mul_size(count, size, &bytes)) return NULL;
    p = aicf__malloc(ctx, bytes);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

void* aicf__realloc(aicf_context* ctx, void* p, size_t old_bytes, size_t new_bytes) {
    void* q;
    if (new_bytes == 0) new_bytes = 1;
    if (!ctx || !ctx->alloc.alloc) return realloc(p, new_bytes);
    if (ctx->alloc.realloc) return ctx->alloc.realloc(p, old_bytes, new_bytes, ctx->alloc.user);
    q = aicf__malloc(ctx, new_bytes);
    if (!q) return NULL;
    if (p) {
        memcpy(q, p, AICF__MIN(old_bytes, new_bytes));
        aicf__free(ctx, p);
    }
    return q;
}

void aicf__free(aicf_context* ctx, void* p) {
    if (!p) return;
    if (ctx && ctx->alloc.alloc) {
        if (ctx->alloc.free) ctx->alloc.free(p, ctx->alloc.user);
        return;
    }
    free(p);
}

char* aicf__strdup(aicf_context* ctx, const char* s) {
    size_t n;
    char* d;
    if (!s) s = "";
    n = strlen(s);
    d = (char*)aicf__malloc(ctx, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

/* Grows an array of `elem` bytes so that it holds at least `need` entries. */
static int aicf__grow(aicf_context* ctx, void** arr, int* cap, int need, size_t elem) {
    int ncap;
    size_t old_bytes, new_bytes;
    void* p;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > INT32_MAX / 2) return 0;
        ncap *= 2;
    }
    if (!aicf__mul_size((size_t)*cap, elem, &old_bytes) || !aicf__mul_size((size_t)ncap, elem, &new_bytes))
        return 0;
    p = aicf__realloc(ctx, *arr, old_bytes, new_bytes);
    if (!p) return 0;
    memset((char*)p + old_bytes, 0, new_bytes - old_bytes);
    *arr = p;
    *cap = ncap;
    return 1;
}

/* ---- per-thread last-error messages ----
   Each thread keeps AICF__ERR_SLOTS buffers, each tagged with a context (address and serial); a
   thread working with more contexts than that reuses its oldest slot. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#  define AICF__TLS thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#  define AICF__TLS _Thread_local
#elif defined(__GNUC__) || defined(__clang__)
#  define AICF__TLS __thread
#elif defined(_MSC_VER)
#  define AICF__TLS __declspec(thread)
#endif
#ifdef AICF__TLS
#  define AICF__ERR_SLOTS 4
typedef struct aicf__err_slot {
    const aicf_context* ctx;
    unsigned long serial;
    char msg[AICF__ERR_CAP];
} aicf__err_slot;
static AICF__TLS aicf__err_slot aicf__tls_err[AICF__ERR_SLOTS];
static AICF__TLS int aicf__tls_err_next;
static unsigned long aicf__ctx_serial;

static unsigned long aicf__next_serial(void) {
#  if defined(__GNUC__) || defined(__clang__)
    return __atomic_add_fetch(&aicf__ctx_serial, 1ul, __ATOMIC_RELAXED);
#  else
    return ++aicf__ctx_serial; /* MSVC: contexts are made by one thread at a time in practice */
#  endif
}

/* The calling thread's slot for ctx, or NULL. */
static char* aicf__errslot_find(const aicf_context* ctx) {
    int i;
    for (i = 0; i < AICF__ERR_SLOTS; i++)
        if (aicf__tls_err[i].ctx == ctx && aicf__tls_err[i].serial == ctx->serial) return aicf__tls_err[i].msg;
    return NULL;
}

char* aicf__errbuf(const aicf_context* ctx) {
    char* m = aicf__errslot_find(ctx);
    aicf__err_slot* s;
    if (m) return m;
    s = &aicf__tls_err[aicf__tls_err_next];
    aicf__tls_err_next = (aicf__tls_err_next + 1) % AICF__ERR_SLOTS;
    s->ctx = ctx;
    s->serial = ctx->serial;
    s->msg[0] = '\0';
    return s->msg;
}
#else
static unsigned long aicf__next_serial(void) { return 0; }
char* aicf__errbuf(const aicf_context* ctx) { return (char*)ctx->last_error; }
#endif

aicf_result aicf__err(aicf_context* ctx, aicf_result code, const char* fmt, ...) {
    va_list ap;
    if (!ctx) return code;
    va_start(ap, fmt);
    vsnprintf(AICF__ERRBUF(ctx), AICF__ERR_CAP, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- float16 (IEEE 754 binary16), round to nearest even ---- */
uint16_t aicf__f32_to_f16(float f) {
    uint32_t x, sign, mant;
    int32_t exp;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xff);
    mant = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u)); /* inf / nan */
    exp = exp - 127 + 15;
    if (exp >= 0x1f) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
    if (exp <= 0) {
        uint32_t shift, half, rest, m;
        if (exp < -10) return (uint16_t)sign; /* underflow -> signed zero */
        m = mant | 0x800000u;
        shift = (uint32_t)(14 - exp);
        half = 1u << (shift - 1);
        rest = m & ((1u << shift) - 1u);
        m >>= shift;
        if (rest > half || (rest == half && (m & 1u))) m++;
        return (uint16_t)(sign | m);
    } else {
        uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* may carry into exponent: ok */
        return (uint16_t)h;
    }
}

float aicf__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    float f;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                exp--;
            }
            mant &= 0x3ffu;
            x = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    memcpy(&f, &x, 4);
    return f;
}

/* ---- context ---- */
aicf_result aicf_context_create(const aicf_context_desc* desc, aicf_context** out) {
    aicf_context_desc d;
    aicf_context* ctx;
    if (!out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.allocator.alloc && !d.allocator.free) return AICF_ERROR_INVALID_ARGUMENT;
    if (d.allocator.alloc) ctx = (aicf_context*)d.allocator.alloc(sizeof *ctx, d.allocator.user);
    else ctx = (aicf_context*)malloc(sizeof *ctx);
    if (!ctx) return AICF_ERROR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = d.allocator;
    ctx->flags = d.flags;
    ctx->device_ordinal = d.device_ordinal;
    snprintf(ctx->driver_path, sizeof ctx->driver_path, "%s",
             d.cuda_driver_path ? d.cuda_driver_path : "libcuda.so.1");
    snprintf(ctx->cublaslt_path, sizeof ctx->cublaslt_path, "%s", d.cublaslt_path ? d.cublaslt_path : "");
    ctx->cuda_status = AICF_SUCCESS;
    ctx->serial = aicf__next_serial();
    *out = ctx;
    return AICF_SUCCESS;
}

void aicf_context_destroy(aicf_context* ctx) {
    if (!ctx) return;
    aicf__cuda_shutdown(ctx);
    aicf__free(ctx, ctx);
}

const char* aicf_last_error(const aicf_context* ctx) {
    if (!ctx) return "no context";
#ifdef AICF__TLS
    {   /* a thread that never failed on ctx gets "" without taking a slot */
        const char* m = aicf__errslot_find(ctx);
        return m ? m : "";
    }
#else
    return ctx->last_error;
#endif
}

aicf_result aicf_context_device_info(aicf_context* ctx, aicf_device_info* out) {
    aicf_result r;
    if (!ctx || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (ctx->flags & AICF_CONTEXT_NO_CUDA)
        return aicf__err(ctx, AICF_ERROR_NO_DEVICE, "aicf_context_device_info: CUDA disabled by AICF_CONTEXT_NO_CUDA");
    r = aicf__cuda_init(ctx);
    if (r != AICF_SUCCESS) return r;
    return aicf__cuda_device_info(ctx, out);
}

/* ---- names ---- */
static const char* const aicf__op_names[AICF__OP_COUNT] = {
    "(unknown)",
#define AICF__OP_NAME(name) #name,
    AICF__OPS(AICF__OP_NAME)
#undef AICF__OP_NAME
};

aicf__op aicf__op_from_name(const char* op_type) {
    int i;
    if (!op_type) return AICF__OP_UNKNOWN;
    for (i = 1; i < AICF__OP_COUNT; i++)
        if (strcmp(aicf__op_names[i], op_type) == 0) return (aicf__op)i;
    return AICF__OP_UNKNOWN;
}

const char* aicf__op_name(aicf__op op) {
    if ((int)op < 0 || op >= AICF__OP_COUNT) return "(invalid)";
    return aicf__op_names[op];
}

int64_t aicf__shape_numel(const aicf__shape* s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s->rank; i++) {
        if (s->d[i] < 0) return -1;
        if (s->d[i] != 0 && n > INT64_MAX / s->d[i]) return -1;
        n *= s->d[i];
    }
    return n;
}

const char* aicf__shape_str(const aicf__shape* s, char* buf, size_t cap) {
    size_t used = 0;
    int i;
    if (cap == 0) return buf;
    buf[0] = 0;
    used += (size_t)snprintf(buf + used, cap - used, "[");
    for (i = 0; i < s->rank && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ",%lld" : "%lld", (long long)s->d[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
    return buf;
}

/* ---- attributes ---- */
const aicf__attrv* aicf__attr(const aicf__node* n, const char* name) {
    int i;
    for (i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

int64_t aicf__attr_i(const aicf__node* n, const char* name, int64_t def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a) return def;
    if (a->type == AICF_ATTR_INT) return a->i;
    if (a->type == AICF_ATTR_FLOAT) return (int64_t)a->f;
    return def;
}

float aicf__attr_f(const aicf__node* n, const char* name, float def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a) return def;
    if (a->type == AICF_ATTR_FLOAT) return a->f;
    if (a->type == AICF_ATTR_INT) return (float)a->i;
    return def;
}

const char* aicf__attr_s(const aicf__node* n, const char* name, const char* def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a || a->type != AICF_ATTR_STRING) return def;
    return a->s;
}

int aicf__attr_ints(const aicf__node* n, const char* name, const int64_t** vals) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a || a->type != AICF_ATTR_INTS) return -1;
    if (vals) *vals = a->ints;
    return a->count;
}

/* ---- graph ---- */
static uint64_t aicf__hash_str(const char* s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ull;
    }
    return h;
}

static int aicf__index_rebuild(aicf_graph* g, int cap) {
    int* idx = (int*)aicf__calloc(g->ctx, (size_t)cap, sizeof(int));
    int i;
    if (!idx) return 0;
    aicf__free(g->ctx, g->name_index);
    g->name_index = idx;
    g->name_index_cap = cap;
    for (i = 0; i < g->n_tensors; i++) {
        uint64_t h;
        if (!g->tensors[i].name || !g->tensors[i].name[0]) continue;
        h = aicf__hash_str(g->tensors[i].name) & (uint64_t)(cap - 1);
        while (idx[h]) h = (h + 1) & (uint64_t)(cap - 1);
        idx[h] = i + 1;
    }
    return 1;
}

int aicf__graph_find(const aicf_graph* g, const char* name) {
    uint64_t h;
    if (!name || !name[0] || !g->name_index_cap) return -1;
    h = aicf__hash_str(name) & (uint64_t)(g->name_index_cap - 1);
    while (g->name_index[h]) {
        int t = g->name_index[h] - 1;
        if (strcmp(g->tensors[t].name, name) == 0) return t;
        h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
    }
    return -1;
}

int aicf__graph_new_tensor(aicf_graph* g, const char* name) {
    aicf__tensor* t;
    if (!name) name = "";
    if (strlen(name) > AICF_MAX_NAME) {
        aicf__err(g->ctx, AICF_ERROR_LIMIT, "tensor name of %zu bytes: longer than AICF_MAX_NAME (%d bytes)",
                  strlen(name), AICF_MAX_NAME);
        return -2;
    }
    if (g->n_tensors >= AICF_MAX_TENSORS) {
        aicf__err(g->ctx, AICF_ERROR_LIMIT, "tensor '%s': graph has more than AICF_MAX_TENSORS (%d) tensors",
                  name, AICF_MAX_TENSORS);
        return -2;
    }
    if (!aicf__grow(g->ctx, (void**)&g->tensors, &g->cap_tensors, g->n_tensors + 1, sizeof(aicf__tensor))) {
        aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
        return -1;
    }
    t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = aicf__strdup(g->ctx, name);
    if (!t->name) {
        aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
        return -1;
    }
    t->producer = -1;
    g->n_tensors++;
    if (name[0]) {
        if ((g->n_tensors + 1) * 2 > g->name_index_cap) {
            int cap = g->name_index_cap ? g->name_index_cap * 2 : 64;
            while ((g->n_tensors + 1) * 2 > cap) cap *= 2;
            if (!aicf__index_rebuild(g, cap)) {
                g->n_tensors--;
                aicf__free(g->ctx, t->name);
                aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
                return -1;
            }
        } else {
            uint64_t h = aicf__hash_str(name) & (uint64_t)(g->name_index_cap - 1);
            while (g->name_index[h]) h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
            g->name_index[h] = g->n_tensors;
        }
    }
    return g->n_tensors - 1;
}

aicf_result aicf__new_tensor_err(int t) { return t == -2 ? AICF_ERROR_LIMIT : AICF_ERROR_OUT_OF_MEMORY; }

/* Removes the tensors added since the graph had n0 (none of them referenced yet), newest first.
   Linear-probing deletion in the reverse order of insertion restores the index exactly (a rebuild
   re-inserts in index order, so the newest are still the last inserted); nothing is allocated. */
static void aicf__graph_drop_tensors(aicf_graph* g, int n0) {
    while (g->n_tensors > n0) {
        int t = g->n_tensors - 1;
        aicf__tensor* tt = &g->tensors[t];
        if (tt->name && tt->name[0] && g->name_index_cap) {
            uint64_t h = aicf__hash_str(tt->name) & (uint64_t)(g->name_index_cap - 1);
            while (g->name_index[h] && g->name_index[h] != t + 1) h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
            g->name_index[h] = 0;
        }
        aicf__free(g->ctx, tt->name);
        memset(tt, 0, sizeof *tt);
        g->n_tensors--;
    }
}

void aicf__graph_adopt_file(aicf_graph* g, void* data, size_t size, int is_mmap) {
    g->file_data = data;
    g->file_size = size;
    g->file_is_mmap = is_mmap;
}

aicf_result aicf_graph_create(aicf_context* ctx, aicf_graph** out) {
    aicf_graph* g;
    if (!ctx || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    g = (aicf_graph*)aicf__calloc(ctx, 1, sizeof *g);
    if (!g) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_create: out of memory");
    g->ctx = ctx;
    *out = g;
    return AICF_SUCCESS;
}

static void aicf__attr_free(aicf_context* ctx, aicf__attrv* a) {
    int j;
    aicf__free(ctx, a->name);
    aicf__free(ctx, a->s);
    aicf__free(ctx, a->ints);
    aicf__free(ctx, a->floats);
    if (a->strings) {
        for (j = 0; j < a->count; j++) aicf__free(ctx, a->strings[j]);
        aicf__free(ctx, a->strings);
    }
    if (a->g) aicf_graph_destroy(a->g);
}

static void aicf__node_free(aicf_context* ctx, aicf__node* n) {
    int i;
    aicf__free(ctx, n->name);
    aicf__free(ctx, n->op_type);
    aicf__free(ctx, n->domain);
    aicf__free(ctx, n->in);
    aicf__free(ctx, n->out);
    for (i = 0; i < n->n_attrs; i++) aicf__attr_free(ctx, &n->attrs[i]);
    aicf__free(ctx, n->attrs);
    aicf__free(ctx, n->views);
}

void aicf_graph_destroy(aicf_graph* g) {
    aicf_context* ctx;
    int i, j;
    if (!g) return;
    ctx = g->ctx;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        aicf__free(ctx, t->name);
        for (j = 0; j < AICF_MAX_RANK; j++) aicf__free(ctx, t->dim_param[j]);
        if (t->owns_data) aicf__free(ctx, t->data);
    }
    for (i = 0; i < g->n_nodes; i++) aicf__node_free(ctx, &g->nodes[i]);
    for (i = 0; i < g->n_dims; i++) aicf__free(ctx, g->dims[i].name);
    aicf__free(ctx, g->tensors);
    aicf__free(ctx, g->nodes);
    aicf__free(ctx, g->inputs);
    aicf__free(ctx, g->outputs);
    aicf__free(ctx, g->dims);
    aicf__free(ctx, g->name_index);
    if (g->file_data) {
#if !defined(_WIN32)
        if (g->file_is_mmap) munmap(g->file_data, g->file_size);
        else
#endif
            aicf__free(ctx, g->file_data);
    }
    aicf__free(ctx, g);
}

aicf_result aicf_graph_set_opset(aicf_graph* g, const char* domain, int64_t version) {
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    if (version < 1 || version > 1000)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_set_opset: version %lld out of range",
                         (long long)version);
    if (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0) g->opset = version;
    return AICF_SUCCESS;
}

/* Validates a tensor desc and fills a new tensor with its type and shape. */
static aicf_result aicf__tensor_from_desc(aicf_graph* g, const aicf_tensor_desc* d, const char* what, int* out_t) {
    aicf_context* ctx = g->ctx;
    int t, i;
    aicf__tensor* tt;
    *out_t = -1;
    if (!d || !d->name || !d->name[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: tensor name is empty", what);
    if (d->rank < 0 || d->rank > AICF_MAX_RANK)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: tensor '%s': rank %d outside 0..%d", what, d->name, d->rank,
                         AICF_MAX_RANK);
    if (d->rank > 0 && !d->dims)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': dims is NULL for rank %d", what,
                         d->name, d->rank);
    if (aicf_dtype_size(d->dtype) == 0)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: tensor '%s': data type %s (%d) is not supported", what,
                         d->name, aicf_dtype_name(d->dtype), (int)d->dtype);
    for (i = 0; i < d->rank; i++)
        if (d->dims[i] < -1 || (d->dims[i] == -1 && !(d->dim_params && d->dim_params[i] && d->dim_params[i][0])))
            return aicf__err(ctx, AICF_ERROR_SHAPE, "%s: tensor '%s': dims[%d] = %lld is invalid", what, d->name, i,
                             (long long)d->dims[i]);
    if (aicf__graph_find(g, d->name) >= 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: tensor '%s' is already defined", what, d->name);
    t = aicf__graph_new_tensor(g, d->name);
    if (t < 0) return aicf__new_tensor_err(t);
    tt = &g->tensors[t];
    tt->dtype = d->dtype;
    tt->shape.rank = d->rank;
    for (i = 0; i < d->rank; i++) {
        tt->shape.d[i] = d->dims[i];
        if (d->dim_params && d->dim_params[i] && d->dim_params[i][0]) {
            int k;
            tt->shape.d[i] = -1;
            tt->dim_param[i] = aicf__strdup(ctx, d->dim_params[i]);
            if (!tt->dim_param[i]) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            for (k = 0; k < g->n_dims; k++)
                if (strcmp(g->dims[k].name, d->dim_params[i]) == 0) tt->shape.d[i] = g->dims[k].value;
        }
    }
    tt->shape_known = aicf__shape_numel(&tt->shape) >= 0;
    *out_t = t;
    return AICF_SUCCESS;
}

size_t aicf__shape_bytes(const aicf__shape* s, aicf_dtype dt, int* ok) {
    int64_t n = aicf__shape_numel(s);
    size_t bytes;
    *ok = 0;
    if (n < 0) return 0;
    if (!aicf__mul_size((size_t)n, aicf_dtype_size(dt), &bytes)) return 0;
    if ((uint64_t)bytes > AICF_MAX_TENSOR_BYTES) return 0;
    *ok = 1;
    return bytes;
}

/* Removes tensor t's slot from the name index without allocating (backward-shift deletion for
   linear probing: later entries of the same cluster move up so lookups still find them). */
static void aicf__index_remove(aicf_graph* g, int t) {
    uint64_t mask, i, j, k;
    if (!g->name_index_cap || !g->tensors[t].name || !g->tensors[t].name[0]) return;
    mask = (uint64_t)(g->name_index_cap - 1);
    i = aicf__hash_str(g->tensors[t].name) & mask;
    while (g->name_index[i] && g->name_index[i] != t + 1) i = (i + 1) & mask;
    if (!g->name_index[i]) return;
    g->name_index[i] = 0;
    j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!g->name_index[j]) break;
        k = aicf__hash_str(g->tensors[g->name_index[j] - 1].name) & mask;
        /* the entry at j may stay if its home slot k lies cyclically in (i, j] */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
        g->name_index[i] = g->name_index[j];
        g->name_index[j] = 0;
        i = j;
    }
}

/* Removes the most recently added tensor (nothing refers to it yet). Never allocates. */
static void aicf__pop_tensor(aicf_graph* g) {
    aicf__tensor* t = &g->tensors[g->n_tensors - 1];
    int j;
    aicf__index_remove(g, g->n_tensors - 1);
    aicf__free(g->ctx, t->name);
    for (j = 0; j < AICF_MAX_RANK; j++) aicf__free(g->ctx, t->dim_param[j]);
    if (t->owns_data) aicf__free(g->ctx, t->data);
    memset(t, 0, sizeof *t);
    g->n_tensors--;
}

aicf_result aicf_graph_add_input(aicf_graph* g, const aicf_tensor_desc* d) {
    aicf_result r;
    int t;
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__tensor_from_desc(g, d, "aicf_graph_add_input", &t);
    if (r != AICF_SUCCESS) return r;
    {
        int ok = 1, k, symbolic = 0;
        for (k = 0; k < g->tensors[t].shape.rank; k++) symbolic |= g->tensors[t].shape.d[k] < 0;
        if (!symbolic) aicf__shape_bytes(&g->tensors[t].shape, g->tensors[t].dtype, &ok);
        if (!ok) {
            aicf__pop_tensor(g);
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_input: tensor '%s': size exceeds AICF_MAX_TENSOR_BYTES",
                             d->name);
        }
    }
    if (!aicf__grow(g->ctx, (void**)&g->inputs, &g->cap_inputs, g->n_inputs + 1, sizeof(int)))
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_input: out of memory");
    g->tensors[t].flags |= AICF__T_INPUT;
    g->inputs[g->n_inputs++] = t;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_constant(aicf_graph* g, const aicf_tensor_desc* d) {
    aicf_result r;
    int t, ok, i;
    size_t bytes;
    aicf__tensor* tt;
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    if (d && d->dim_params)
        for (i = 0; i < d->rank; i++)
            if (d->dim_params[i] && d->dim_params[i][0])
                return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_add_constant: tensor '%s': dims[%d] is symbolic",
                                 d->name ? d->name : "", i);
    if (d && d->dims)
        for (i = 0; i < d->rank; i++)
            if (d->dims[i] < 0)
                return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_add_constant: tensor '%s': dims[%d] = %lld is negative",
                                 d->name ? d->name : "", i, (long long)d->dims[i]);
    r = aicf__tensor_from_desc(g, d, "aicf_graph_add_constant", &t);
    if (r != AICF_SUCCESS) return r;
    tt = &g->tensors[t];
    bytes = aicf__shape_bytes(&tt->shape, tt->dtype, &ok);
    if (!ok) {
        aicf__pop_tensor(g);
        return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_constant: tensor '%s': size overflows the tensor limit",
                         d->name);
    }
    if (d->data_bytes != bytes || (bytes && !d->data)) {
        aicf__pop_tensor(g);
        return aicf__err(g->ctx, AICF_ERROR_INVALID_MODEL,
                         "aicf_graph_add_constant: tensor '%s': data_bytes %zu does not match shape (%zu bytes)",
                         d->name, d->data_bytes, bytes);
    }
    tt->flags |= AICF__T_CONST;
    tt->data_bytes = bytes;
    if (d->borrow) {
        tt->data = (void*)d->data;
        tt->owns_data = 0;
    } else {
        tt->data = aicf__malloc(g->ctx, bytes);
        if (!tt->data) { /* the graph stays as it was: the tensor is not added */
            tt->flags &= ~AICF__T_CONST;
            tt->data_bytes = 0;
            aicf__pop_tensor(g);
            return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_constant: tensor '%s': out of memory (%zu bytes)",
                             d->name, bytes);
        }
        if (bytes) memcpy(tt->data, d->data, bytes);
        tt->owns_data = 1;
    }
    tt->shape_known = 1;
    return AICF_SUCCESS;
}

/* ---- subgraphs ---- */
void aicf__graph_set_subgraph(aicf_graph* g, int on) {
    if (g) g->is_subgraph = on ? 1 : 0;
}

/* Levels of GRAPH attributes below g, or limit + 1 once deeper than `limit`; -1 if `forbidden`
   (a graph about to own g) occurs in g's tree, which would make ownership a cycle. */
static int aicf__graph_nesting_ex(const aicf_graph* g, int limit, const aicf_graph* forbidden) {
    int i, j, best = 0;
    if (g == forbidden) return -1;
    for (i = 0; i < g->n_nodes; i++)
        for (j = 0; j < g->nodes[i].n_attrs; j++) {
            const aicf__attrv* a = &g->nodes[i].attrs[j];
            int d;
            if (a->type != AICF_ATTR_GRAPH || !a->g) continue;
            if (limit <= 0) return a->g == forbidden ? -1 : 1;
            d = aicf__graph_nesting_ex(a->g, limit - 1, forbidden);
            if (d < 0) return -1;
            if (d + 1 > best) best = d + 1;
            if (best > limit) return best;
        }
    return best;
}

int aicf__graph_nesting(const aicf_graph* g, int limit) { return g ? aicf__graph_nesting_ex(g, limit, NULL) : 0; }

/* 1 if sub is already the graph of one of g's attributes. */
static int aicf__graph_attached(const aicf_graph* g, const aicf_graph* sub) {
    int i, j;
    for (i = 0; i < g->n_nodes; i++)
        for (j = 0; j < g->nodes[i].n_attrs; j++)
            if (g->nodes[i].attrs[j].type == AICF_ATTR_GRAPH && g->nodes[i].attrs[j].g == sub) return 1;
    return 0;
}

/* Adds an outer reference (AICF__T_OUTER) named `name` to subgraph g; -1 on error (recorded). */
static int aicf__graph_outer_ref(aicf_graph* g, const char* name) {
    int t = aicf__graph_new_tensor(g, name);
    if (t >= 0) g->tensors[t].flags = AICF__T_OUTER;
    return t;
}

/* Frees a node that failed to be added: the graphs of its GRAPH attributes stay the caller's. */
static void aicf__node_free_keep_graphs(aicf_context* ctx, aicf__node* n) {
    int i;
    for (i = 0; i < n->n_attrs; i++) n->attrs[i].g = NULL;
    aicf__node_free(ctx, n);
}

/* Copies one attribute into node storage. */
static aicf_result aicf__attr_copy(aicf_graph* g, const aicf_node_desc* nd, int ni, const aicf_attr* a, aicf__attrv* v) {
    aicf_context* ctx = g->ctx;
    int j;
    memset(v, 0, sizeof *v);
    v->tensor = -1;
    if (!a->name || !a->name[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): attribute with empty name", ni,
                         nd->name ? nd->name : "", nd->op_type);
    if (strlen(a->name) > AICF_MAX_NAME)
        return aicf__err(ctx, AICF_ERROR_LIMIT,
                         "node %d '%s' (%s): attribute name of %zu bytes is longer than AICF_MAX_NAME (%d bytes)", ni,
                         nd->name ? nd->name : "", nd->op_type, strlen(a->name), AICF_MAX_NAME);
    v->name = aicf__strdup(ctx, a->name);
    if (!v->name) return AICF_ERROR_OUT_OF_MEMORY;
    v->type = a->type;
    switch (a->type) {
    case AICF_ATTR_FLOAT: v->f = a->f; break;
    case AICF_ATTR_INT: v->i = a->i; break;
    case AICF_ATTR_STRING:
        v->s = aicf__strdup(ctx, a->s ? a->s : "");
        if (!v->s) return AICF_ERROR_OUT_OF_MEMORY;
        break;
    case AICF_ATTR_INTS:
    case AICF_ATTR_FLOATS:
    case AICF_ATTR_STRINGS:
        if (a->count < 0 || a->count > AICF_MAX_ATTR_ELEMS)
            return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): attribute '%s' has %d elements (limit %d)", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name, a->count, AICF_MAX_ATTR_ELEMS);
        v->count = a->count;
        if (a->count > 0 && ((a->type == AICF_ATTR_INTS && !a->ints) || (a->type == AICF_ATTR_FLOATS && !a->floats) ||
                             (a->type == AICF_ATTR_STRINGS && !a->strings)))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' has no values", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        if (a->type == AICF_ATTR_INTS) {
            v->ints = (int64_t*)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(int64_t));
            if (!v->ints) return AICF_ERROR_OUT_OF_MEMORY;
            if (a->count) memcpy(v->ints, a->ints, (size_t)a->count * sizeof(int64_t));
        } else if (a->type == AICF_ATTR_FLOATS) {
            v->floats = (float*)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(float));
            if (!v->floats) return AICF_ERROR_OUT_OF_MEMORY;
            if (a->count) memcpy(v->floats, a->floats, (size_t)a->count * sizeof(float));
        } else {
            v->strings = (char**)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(char*));
            if (!v->strings) return AICF_ERROR_OUT_OF_MEMORY;
            for (j = 0; j < a->count; j++) {
                v->strings[j] = aicf__strdup(ctx, a->strings[j]);
                if (!v->strings[j]) return AICF_ERROR_OUT_OF_MEMORY;
            }
        }
        break;
    case AICF_ATTR_TENSOR: {
        aicf_tensor_desc td;
        char nm[64];
        aicf_result r;
        int save_n;
        if (!a->t)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' has no tensor", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        td = *a->t;
        /* unnamed internal constant: give it a name no ONNX tensor can collide with */
        snprintf(nm, sizeof nm, "\x01" "attr%d.%d", ni, g->n_tensors);
        td.name = nm;
        td.borrow = 0;
        save_n = g->n_tensors;
        r = aicf_graph_add_constant(g, &td);
        if (r != AICF_SUCCESS) {
            char msg[AICF__ERR_CAP];
            snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
            return aicf__err(ctx, r, "node %d '%s' (%s): attribute '%s': %s", ni, nd->name ? nd->name : "",
                             nd->op_type, a->name, msg);
        }
        v->tensor = save_n;
        break;
    }
    case AICF_ATTR_GRAPH: {
        int depth;
        if (!a->g)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' (GRAPH) has no graph",
                             ni, nd->name ? nd->name : "", nd->op_type, a->name);
        if (a->g->ctx != ctx)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "node %d '%s' (%s): attribute '%s': the subgraph belongs to another context", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        depth = aicf__graph_nesting_ex(a->g, AICF_MAX_SUBGRAPH_DEPTH - 1, g);
        if (depth < 0 || aicf__graph_attached(g, a->g))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "node %d '%s' (%s): attribute '%s': the subgraph is this graph, contains it or is already "
                             "attached to it (a subgraph belongs to exactly one attribute)", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        if (depth + 1 > AICF_MAX_SUBGRAPH_DEPTH)
            return aicf__err(ctx, AICF_ERROR_LIMIT,
                             "node %d '%s' (%s): attribute '%s': subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH "
                             "(%d) deep", ni, nd->name ? nd->name : "", nd->op_type, a->name, AICF_MAX_SUBGRAPH_DEPTH);
        v->g = a->g;
        break;
    }
    default:
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): attribute '%s' has unsupported type %d", ni,
                         nd->name ? nd->name : "", nd->op_type, a->name, (int)a->type);
    }
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_node(aicf_graph* g, const aicf_node_desc* nd) {
    aicf_context* ctx;
    aicf__node* n;
    int ni, i, n0;
    const char* nm;
    aicf_result r;
    if (!g || !nd) return AICF_ERROR_INVALID_ARGUMENT;
    ctx = g->ctx;
    ni = g->n_nodes;
    nm = nd->name ? nd->name : "";
    if (!nd->op_type || !nd->op_type[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s': op_type is empty", ni, nm);
    if (nd->domain && nd->domain[0] && strcmp(nd->domain, "ai.onnx") != 0)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): operator domain '%s' is not supported", ni,
                         nm, nd->op_type, nd->domain);
    if (aicf__op_from_name(nd->op_type) == AICF__OP_UNKNOWN)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): unsupported op type", ni, nm, nd->op_type);
    if (nd->num_inputs > AICF_MAX_NODE_IO || nd->num_outputs > AICF_MAX_NODE_IO)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): %d inputs and %d outputs exceed AICF_MAX_NODE_IO (%d)",
                         ni, nm, nd->op_type, nd->num_inputs, nd->num_outputs, AICF_MAX_NODE_IO);
    if (nd->num_inputs < 0 || nd->num_outputs < 1 || (nd->num_inputs && !nd->inputs) || !nd->outputs)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): invalid input/output counts (%d, %d)", ni,
                         nm, nd->op_type, nd->num_inputs, nd->num_outputs);
    if (strlen(nm) > AICF_MAX_NAME)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d: name longer than AICF_MAX_NAME", ni);
    if (g->n_nodes >= AICF_MAX_NODES)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): more than AICF_MAX_NODES nodes", ni, nm, nd->op_type);
    /* inputs must exist already (topological order, as ONNX requires); in a subgraph, a name
       not defined locally is an outer reference (created below, once the node is accepted) */
    for (i = 0; i < nd->num_inputs; i++) {
        const char* in = nd->inputs[i];
        int j;
        if (!in || !in[0]) continue;
        if (aicf__graph_find(g, in) >= 0) continue;
        if (!g->is_subgraph)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): input %d '%s' is not defined before use",
                             ni, nm, nd->op_type, i, in);
        for (j = 0; j < nd->num_outputs; j++)
            if (nd->outputs && nd->outputs[j] && strcmp(nd->outputs[j], in) == 0)
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): input %d '%s' is its own output",
                                 ni, nm, nd->op_type, i, in);
    }
    for (i = 0; i < nd->num_outputs; i++) {
        const char* o = nd->outputs[i];
        int j;
        if (!o || !o[0]) continue;
        if (aicf__graph_find(g, o) >= 0)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): output %d '%s' is already defined", ni,
                             nm, nd->op_type, i, o);
        for (j = 0; j < i; j++)
            if (nd->outputs[j] && strcmp(nd->outputs[j], o) == 0)
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): output '%s' appears twice", ni, nm,
                                 nd->op_type, o);
    }
    if (!aicf__grow(ctx, (void**)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(aicf__node)))
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
    n = &g->nodes[ni];
    memset(n, 0, sizeof *n);
    n->op = aicf__op_from_name(nd->op_type);
    n->name = aicf__strdup(ctx, nm);
    n->op_type = aicf__strdup(ctx, nd->op_type);
    n->domain = aicf__strdup(ctx, nd->domain ? nd->domain : "");
    n->in = (int*)aicf__calloc(ctx, (size_t)nd->num_inputs + 1, sizeof(int));
    n->out = (int*)aicf__calloc(ctx, (size_t)nd->num_outputs, sizeof(int));
    n->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)nd->num_attrs + 1, sizeof(aicf__attrv));
    if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attrs) {
        aicf__node_free(ctx, n);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
    }
    if (nd->num_attrs < 0 || (nd->num_attrs && !nd->attrs)) {
        aicf__node_free(ctx, n);
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): invalid attribute list", ni, nm, nd->op_type);
    }
    for (i = 0; i < nd->num_attrs; i++) {
        int j;
        for (j = 0; j < i; j++)
            if (nd->attrs[i].name && nd->attrs[j].name && strcmp(nd->attrs[i].name, nd->attrs[j].name) == 0) {
                n->n_attrs = i;
                aicf__node_free_keep_graphs(ctx, n);
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): attribute '%s' appears twice", ni,
                                 nm, nd->op_type, nd->attrs[i].name);
            }
        for (j = 0; j < i && nd->attrs[i].type == AICF_ATTR_GRAPH && nd->attrs[i].g; j++)
            if (nd->attrs[j].type == AICF_ATTR_GRAPH && nd->attrs[j].g == nd->attrs[i].g) {
                n->n_attrs = i;
                aicf__node_free_keep_graphs(ctx, n);
                return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                                 "node %d '%s' (%s): attributes '%s' and '%s' give the same subgraph", ni, nm,
                                 nd->op_type, nd->attrs[j].name ? nd->attrs[j].name : "",
                                 nd->attrs[i].name ? nd->attrs[i].name : "");
            }
        r = aicf__attr_copy(g, nd, ni, &nd->attrs[i], &n->attrs[i]);
        n->n_attrs = i + 1;
        if (r != AICF_SUCCESS) {
            aicf__node_free_keep_graphs(ctx, n); /* a failed node leaves every subgraph with the caller */
            if (r == AICF_ERROR_OUT_OF_MEMORY)
                return aicf__err(ctx, r, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
            return r;
        }
    }
    n0 = g->n_tensors; /* a failure below removes the outer references and outputs it added */
    for (i = 0; i < nd->num_inputs && g->is_subgraph; i++)
        if (nd->inputs[i] && nd->inputs[i][0] && aicf__graph_find(g, nd->inputs[i]) < 0) {
            int t = aicf__graph_outer_ref(g, nd->inputs[i]);
            if (t < 0) {
                aicf__node_free_keep_graphs(ctx, n);
                aicf__graph_drop_tensors(g, n0);
                return aicf__new_tensor_err(t);
            }
        }
    n->n_in = nd->num_inputs;
    for (i = 0; i < nd->num_inputs; i++)
        n->in[i] = (nd->inputs[i] && nd->inputs[i][0]) ? aicf__graph_find(g, nd->inputs[i]) : -1;
    n->n_out = nd->num_outputs;
    for (i = 0; i < nd->num_outputs; i++) {
        int t;
        if (!nd->outputs[i] || !nd->outputs[i][0]) {
            n->out[i] = -1;
            continue;
        }
        t = aicf__graph_new_tensor(g, nd->outputs[i]);
        if (t < 0) {
            n->n_out = i;
            aicf__node_free_keep_graphs(ctx, n);
            aicf__graph_drop_tensors(g, n0);
            return aicf__new_tensor_err(t);
        }
        g->tensors[t].producer = ni;
        n->out[i] = t;
    }
    g->n_nodes++;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_output(aicf_graph* g, const char* name) {
    int t, i;
    if (!g || !name) return AICF_ERROR_INVALID_ARGUMENT;
    t = aicf__graph_find(g, name);
    if (t < 0 && g->is_subgraph && name[0]) {
        if (strlen(name) > AICF_MAX_NAME)
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_output: name longer than AICF_MAX_NAME");
        t = aicf__graph_outer_ref(g, name); /* a subgraph may return a value of an enclosing graph */
        if (t < 0) return aicf__new_tensor_err(t);
    }
    if (t < 0) return aicf__err(g->ctx, AICF_ERROR_NOT_FOUND, "aicf_graph_add_output: tensor '%s' is not defined", name);
    for (i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t)
            return aicf__err(g->ctx, AICF_ERROR_INVALID_MODEL, "aicf_graph_add_output: '%s' is already an output", name);
    if (!aicf__grow(g->ctx, (void**)&g->outputs, &g->cap_outputs, g->n_outputs + 1, sizeof(int)))
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_output: out of memory");
    g->tensors[t].flags |= AICF__T_OUTPUT;
    g->outputs[g->n_outputs++] = t;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_bind_dim(aicf_graph* g, const char* dim_param, int64_t value) {
    int i, j, k;
    if (!g || !dim_param || !dim_param[0]) return AICF_ERROR_INVALID_ARGUMENT;
    if (value < 1 || value > ((int64_t)1 << 40))
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_bind_dim: '%s' = %lld is out of range",
                         dim_param, (long long)value);
    for (k = 0; k < g->n_dims; k++)
        if (strcmp(g->dims[k].name, dim_param) == 0) break;
    if (k == g->n_dims) {
        if (!aicf__grow(g->ctx, (void**)&g->dims, &g->cap_dims, g->n_dims + 1, sizeof(aicf__dim_binding)))
            return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_dim: out of memory");
        g->dims[k].name = aicf__strdup(g->ctx, dim_param);
        if (!g->dims[k].name) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_dim: out of memory");
        g->n_dims++;
    }
    g->dims[k].value = value;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        if (t->flags & AICF__T_CONST) continue; /* a bound input value keeps the shape it was bound with */
        for (j = 0; j < t->shape.rank; j++)
            if (t->dim_param[j] && strcmp(t->dim_param[j], dim_param) == 0) t->shape.d[j] = value;
        if (t->flags & AICF__T_INPUT) t->shape_known = aicf__shape_numel(&t->shape) >= 0;
    }
    return AICF_SUCCESS;
}

aicf_result aicf_graph_bind_input_value(aicf_graph* g, const char* name, const void* data, size_t bytes) {
    int t, i, ok;
    size_t need;
    aicf__tensor* tt;
    if (!g || !name || (bytes && !data)) return AICF_ERROR_INVALID_ARGUMENT;
    t = aicf__graph_find(g, name);
    if (t < 0 || !(g->tensors[t].flags & AICF__T_INPUT))
        return aicf__err(g->ctx, AICF_ERROR_NOT_FOUND, "aicf_graph_bind_input_value: '%s' is not a graph input", name);
    tt = &g->tensors[t];
    need = aicf__shape_bytes(&tt->shape, tt->dtype, &ok);
    if (!ok) {
        char b[128];
        return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_bind_input_value: input '%s' has unbound shape %s", name,
                         aicf__shape_str(&tt->shape, b, sizeof b));
    }
    if (need != bytes)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "aicf_graph_bind_input_value: input '%s' needs %zu bytes, got %zu", name, need, bytes);
    tt->data = aicf__malloc(g->ctx, bytes);
    if (!tt->data) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_input_value: out of memory");
    if (bytes) memcpy(tt->data, data, bytes);
    tt->owns_data = 1;
    tt->data_bytes = bytes;
    tt->flags = (tt->flags & ~AICF__T_INPUT) | AICF__T_CONST;
    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == t) {
            memmove(&g->inputs[i], &g->inputs[i + 1], (size_t)(g->n_inputs - i - 1) * sizeof(int));
            g->n_inputs--;
            break;
        }
    return AICF_SUCCESS;
}

int aicf_graph_num_inputs(const aicf_graph* g) { return g ? g->n_inputs : 0; }
int aicf_graph_num_outputs(const aicf_graph* g) { return g ? g->n_outputs : 0; }
int aicf_graph_num_nodes(const aicf_graph* g) { return g ? g->n_nodes : 0; }

static void aicf__tensor_info(const aicf__tensor* t, aicf_tensor_info* out) {
    int i, ok;
    memset(out, 0, sizeof *out);
    out->name = t->name;
    out->dtype = t->dtype;
    out->rank = t->shape.rank;
    for (i = 0; i < t->shape.rank; i++) out->dims[i] = t->shape.d[i];
    out->bytes = aicf__shape_bytes(&t->shape, t->dtype, &ok);
}

aicf_result aicf_graph_input_info(const aicf_graph* g, int index, aicf_tensor_info* out) {
    if (!g || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= g->n_inputs)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_input_info: index %d out of range (%d inputs)",
                         index, g->n_inputs);
    aicf__tensor_info(&g->tensors[g->inputs[index]], out);
    return AICF_SUCCESS;
}

aicf_result aicf_graph_output_info(const aicf_graph* g, int index, aicf_tensor_info* out) {
    if (!g || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= g->n_outputs)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_output_info: index %d out of range (%d outputs)",
                         index, g->n_outputs);
    aicf__tensor_info(&g->tensors[g->outputs[index]], out);
    return AICF_SUCCESS;
}
