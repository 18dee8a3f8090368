/* >>plan_io ================================================================================ */
/* The plan as text: the policy format (aicf_policy_format / _parse), plan files
   (aicf_plan_serialize / _save / _load), aicf_plan_explain and aicf_plan_dot.
   docs/plan_format.md describes the file line by line.

   Writing: every line is printed from the plan's own fields in a fixed order with fixed
   formats: no pointers, no timestamps, no padding bytes, so the same graph, policy, kernel table
   and device give the same bytes.

   Loading never turns file bytes into a program. aicf_plan_load checks the header (format,
   kernel table, backend, device and cuBLASLt version, the graph's fingerprint), reads the
   policy and the cuBLASLt algorithms, re-plans through aicf__plan_create_ex with those
   algorithms lent to the CUDA backend (which checks each with cublasLtMatmulAlgoCheck instead
   of running the heuristic), serialises the result and compares it with the file line by line:
   the first difference is AICF_ERROR_PLAN_MISMATCH naming the line. Every number is parsed with
   bounds and overflow checks; a malformed file is AICF_ERROR_INVALID_MODEL naming the line. */

#define AICF__IO_MAGIC "aicf-plan 1"
#define AICF__IO_MAX_FILE ((size_t)1 << 30)      /* bytes of a plan file */
#define AICF__IO_MAX_LINE ((size_t)1 << 16)      /* bytes of one plan-file line */
#define AICF__IO_MAX_POLICY ((size_t)1 << 20)    /* bytes of a policy text */
#define AICF__IO_MAX_POLICY_LINE ((size_t)4096)  /* bytes of one policy line */

/* ---- hashing ---- */
uint64_t aicf__fnv1a(uint64_t h, const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t aicf__fnv1a_str(uint64_t h, const char* s) {
    static const unsigned char none = 0xff;
    return s ? aicf__fnv1a(h, s, strlen(s) + 1) : aicf__fnv1a(h, &none, 1);
}

/* a 64-bit value, little-endian whatever the host */
static uint64_t aicf__io_h64(uint64_t h, uint64_t v) {
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return aicf__fnv1a(h, b, 8);
}

/* Bulk hash of constant data: XXH64 (seed 0), about ten times faster than FNV-1a byte by byte. */
#define AICF__XP1 11400714785074694791ull
#define AICF__XP2 14029467366897019727ull
#define AICF__XP3 1609587929392839161ull
#define AICF__XP4 9650029242287828579ull
#define AICF__XP5 2870177450012600261ull

static uint64_t aicf__io_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t aicf__io_rd64(const unsigned char* p) {
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

static uint64_t aicf__io_xround(uint64_t acc, uint64_t in) {
    acc += in * AICF__XP2;
    return aicf__io_rotl(acc, 31) * AICF__XP1;
}

static uint64_t aicf__io_xmerge(uint64_t h, uint64_t v) {
    h ^= aicf__io_xround(0, v);
    return h * AICF__XP1 + AICF__XP4;
}

static uint64_t aicf__io_xxh64(const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    const unsigned char* end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = AICF__XP1 + AICF__XP2, v2 = AICF__XP2, v3 = 0, v4 = (uint64_t)0 - AICF__XP1;
        const unsigned char* limit = end - 32;
        do {
            v1 = aicf__io_xround(v1, aicf__io_rd64(p));
            v2 = aicf__io_xround(v2, aicf__io_rd64(p + 8));
            v3 = aicf__io_xround(v3, aicf__io_rd64(p + 16));
            v4 = aicf__io_xround(v4, aicf__io_rd64(p + 24));
            p += 32;
        } while (p <= limit);
        h = aicf__io_rotl(v1, 1) + aicf__io_rotl(v2, 7) + aicf__io_rotl(v3, 12) + aicf__io_rotl(v4, 18);
        h = aicf__io_xmerge(h, v1);
        h = aicf__io_xmerge(h, v2);
        h = aicf__io_xmerge(h, v3);
        h = aicf__io_xmerge(h, v4);
    } else {
        h = AICF__XP5;
    }
    h += (uint64_t)n;
    while (end - p >= 8) {
        h ^= aicf__io_xround(0, aicf__io_rd64(p));
        h = aicf__io_rotl(h, 27) * AICF__XP1 + AICF__XP4;
        p += 8;
    }
    if (end - p >= 4) {
        uint64_t w = (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24);
        h ^= w * AICF__XP1;
        h = aicf__io_rotl(h, 23) * AICF__XP2 + AICF__XP3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p * AICF__XP5;
        h = aicf__io_rotl(h, 11) * AICF__XP1;
        p++;
    }
    h ^= h >> 33;
    h *= AICF__XP2;
    h ^= h >> 29;
    h *= AICF__XP3;
    h ^= h >> 32;
    return h;
}

static uint64_t aicf__io_fp_graph(uint64_t h, const aicf_graph* g, int depth) {
    int i, j, k;
    h = aicf__io_h64(h, 0x6169636667726170ull); /* "aicfgrap": a graph begins */
    h = aicf__io_h64(h, (uint64_t)g->opset);
    h = aicf__io_h64(h, (uint64_t)g->is_subgraph);
    h = aicf__io_h64(h, (uint64_t)g->n_tensors);
    for (i = 0; i < g->n_tensors; i++) {
        const aicf__tensor* t = &g->tensors[i];
        h = aicf__fnv1a_str(h, t->name);
        h = aicf__io_h64(h, (uint64_t)t->dtype);
        h = aicf__io_h64(h, (uint64_t)(int64_t)t->shape.rank);
        for (j = 0; j < t->shape.rank && j < AICF_MAX_RANK; j++) {
            h = aicf__io_h64(h, (uint64_t)t->shape.d[j]);
            h = aicf__fnv1a_str(h, t->dim_param[j]);
        }
        h = aicf__io_h64(h, (uint64_t)t->flags);
        h = aicf__io_h64(h, (uint64_t)t->shape_known);
        if (t->data) {
            h = aicf__io_h64(h, (uint64_t)t->data_bytes);
            h = aicf__io_h64(h, aicf__io_xxh64(t->data, t->data_bytes));
        } else {
            h = aicf__io_h64(h, ~(uint64_t)0);
        }
    }
    h = aicf__io_h64(h, (uint64_t)g->n_nodes);
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        h = aicf__fnv1a_str(h, n->name);
        h = aicf__fnv1a_str(h, n->op_type);
        h = aicf__fnv1a_str(h, n->domain);
        h = aicf__io_h64(h, (uint64_t)n->removed);
        h = aicf__io_h64(h, (uint64_t)n->n_in);
        for (j = 0; j < n->n_in; j++) h = aicf__io_h64(h, (uint64_t)(int64_t)n->in[j]);
        h = aicf__io_h64(h, (uint64_t)n->n_out);
        for (j = 0; j < n->n_out; j++) h = aicf__io_h64(h, (uint64_t)(int64_t)n->out[j]);
        h = aicf__io_h64(h, (uint64_t)n->n_attrs);
        for (j = 0; j < n->n_attrs; j++) {
            const aicf__attrv* a = &n->attrs[j];
            uint32_t fb;
            memcpy(&fb, &a->f, sizeof fb);
            h = aicf__fnv1a_str(h, a->name);
            h = aicf__io_h64(h, (uint64_t)a->type);
            h = aicf__io_h64(h, (uint64_t)a->i);
            h = aicf__io_h64(h, (uint64_t)fb);
            h = aicf__fnv1a_str(h, a->s);
            h = aicf__io_h64(h, (uint64_t)(int64_t)a->count);
            h = aicf__io_h64(h, (uint64_t)(int64_t)a->tensor);
            for (k = 0; a->ints && k < a->count; k++) h = aicf__io_h64(h, (uint64_t)a->ints[k]);
            for (k = 0; a->floats && k < a->count; k++) {
                memcpy(&fb, &a->floats[k], sizeof fb);
                h = aicf__io_h64(h, (uint64_t)fb);
            }
            for (k = 0; a->strings && k < a->count; k++) h = aicf__fnv1a_str(h, a->strings[k]);
            if (a->g && depth <= AICF_MAX_SUBGRAPH_DEPTH) h = aicf__io_fp_graph(h, a->g, depth + 1);
            else h = aicf__io_h64(h, a->g ? 1u : 0u);
        }
    }
    h = aicf__io_h64(h, (uint64_t)g->n_inputs);
    for (i = 0; i < g->n_inputs; i++) h = aicf__io_h64(h, (uint64_t)(int64_t)g->inputs[i]);
    h = aicf__io_h64(h, (uint64_t)g->n_outputs);
    for (i = 0; i < g->n_outputs; i++) h = aicf__io_h64(h, (uint64_t)(int64_t)g->outputs[i]);
    h = aicf__io_h64(h, (uint64_t)g->n_dims);
    for (i = 0; i < g->n_dims; i++) {
        h = aicf__fnv1a_str(h, g->dims[i].name);
        h = aicf__io_h64(h, (uint64_t)g->dims[i].value);
    }
    return h;
}

uint64_t aicf__graph_fingerprint(const aicf_graph* g) {
    return g ? aicf__io_fp_graph(AICF__FNV_BASIS, g, 0) : 0;
}

/* ---- text helpers ---- */

/* Appends n raw bytes (the counterpart of aicf__sbuf_printf: measures past the capacity). */
static void aicf__sbuf_put(aicf__sbuf* b, const char* s, size_t n) {
    if (b->len < b->cap) {
        size_t room = b->cap - b->len - 1, k = n < room ? n : room;
        if (k) memcpy(b->buf + b->len, s, k);
        b->buf[b->len + k] = 0;
    }
    b->len += n;
}

static void aicf__sbuf_init(aicf__sbuf* b, char* buf, size_t cap) {
    b->buf = buf;
    b->cap = buf ? cap : 0;
    b->len = 0;
    if (buf && cap) buf[0] = 0;
}

/* s as a quoted string: bytes below 0x20, 0x7f, '"' and '\' escaped (\" \\ \xHH); bytes of
   UTF-8 sequences are written as they are. */
static void aicf__io_qstr(aicf__sbuf* b, const char* s) {
    const unsigned char* p = (const unsigned char*)(s ? s : "");
    const unsigned char* run = p;
    aicf__sbuf_put(b, "\"", 1);
    for (; *p; p++) {
        char esc[8];
        if (*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\') continue;
        aicf__sbuf_put(b, (const char*)run, (size_t)(p - run));
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            aicf__sbuf_put(b, esc, 2);
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)*p);
            aicf__sbuf_put(b, esc, 4);
        }
        run = p + 1;
    }
    aicf__sbuf_put(b, (const char*)run, (size_t)(p - run));
    aicf__sbuf_put(b, "\"", 1);
}

static void aicf__io_hex(aicf__sbuf* b, const unsigned char* d, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char chunk[128];
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        chunk[k++] = digits[d[i] >> 4];
        chunk[k++] = digits[d[i] & 15];
        if (k == sizeof chunk) {
            aicf__sbuf_put(b, chunk, k);
            k = 0;
        }
    }
    aicf__sbuf_put(b, chunk, k);
}

/* Untrusted text for a message: at most `max` bytes, non-printable bytes as '?'. */
static const char* aicf__io_show(const char* s, size_t n, size_t max, char* out, size_t cap) {
    size_t i, k = 0;
    if (cap == 0) return out;
    for (i = 0; i < n && k + 4 < cap && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (i < n && k + 4 < cap) {
        out[k++] = '.';
        out[k++] = '.';
        out[k++] = '.';
    }
    out[k] = 0;
    return out;
}

/* Strict number parsers: the whole span, digits only, no sign, overflow-checked. */
static int aicf__io_dec(const char* s, size_t n, uint64_t max, uint64_t* out) {
    uint64_t v = 0;
    size_t i;
    if (n == 0 || n > 20) return 0;
    if (n > 1 && s[0] == '0') return 0; /* one spelling per number */
    for (i = 0; i < n; i++) {
        unsigned d;
        if (s[i] < '0' || s[i] > '9') return 0;
        d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (v > max) return 0;
    *out = v;
    return 1;
}

static int aicf__io_hexdigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Exactly 2 * n lowercase hex digits into n bytes. */
static int aicf__io_unhex(const char* s, size_t len, unsigned char* out, size_t n) {
    size_t i;
    if (len != 2 * n) return 0;
    for (i = 0; i < n; i++) {
        int hi = aicf__io_hexdigit(s[2 * i]), lo = aicf__io_hexdigit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return 0;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    return 1;
}

/* A 64-bit value as exactly 16 lowercase hex digits. */
static int aicf__io_hex64(const char* s, size_t len, uint64_t* out) {
    unsigned char b[8];
    int i;
    if (!aicf__io_unhex(s, len, b, 8)) return 0;
    *out = 0;
    for (i = 0; i < 8; i++) *out = (*out << 8) | b[i];
    return 1;
}

/* Reads a whole file of at most `max` bytes into an aicf__malloc'd buffer (+1 byte, NUL). */
static aicf_result aicf__io_read(aicf_context* ctx, const char* fn, const char* path, size_t max, char** data, size_t* size) {
    FILE* fp;
    char* buf = NULL;
    size_t cap = 0, len = 0;
    *data = NULL;
    *size = 0;
    fp = fopen(path, "rb");
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%.600s': %s", fn, path, strerror(errno));
    for (;;) {
        size_t got;
        if (len + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char* nb;
            if (cap > max) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%.600s' is larger than %zu bytes", fn, path, max);
            }
            nb = (char*)aicf__realloc(ctx, buf, cap, ncap + 1);
            if (!nb) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%.600s'", fn, path);
            }
            buf = nb;
            cap = ncap + 1;
        }
        got = fread(buf + len, 1, cap - 1 - len, fp);
        len += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        fclose(fp);
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "%s: error reading '%.600s'", fn, path);
    }
    fclose(fp);
    if (len > max) {
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%.600s' is larger than %zu bytes", fn, path, max);
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return AICF_SUCCESS;
}

static aicf_result aicf__io_write(aicf_context* ctx, const char* fn, const char* path, const char* data, size_t size) {
    FILE* fp = fopen(path, "wb");
    int bad;
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot create '%.600s': %s", fn, path, strerror(errno));
    bad = size && fwrite(data, 1, size, fp) != size;
    if (fclose(fp) != 0) bad = 1;
    if (bad) return aicf__err(ctx, AICF_ERROR_IO, "%s: error writing '%.600s'", fn, path);
    return AICF_SUCCESS;
}

/* Formats into a fresh aicf__malloc'd, NUL-terminated buffer with a (buf, cap, needed) writer. */
typedef aicf_result (*aicf__io_writer)(const aicf_plan* p, char* buf, size_t cap, size_t* needed);

static aicf_result aicf__io_render(const aicf_plan* p, aicf__io_writer w, char** out, size_t* len) {
    size_t need = 0, need2 = 0;
    aicf_result r;
    char* buf;
    *out = NULL;
    *len = 0;
    if ((r = w(p, NULL, 0, &need)) != AICF_SUCCESS) return r;
    buf = (char*)aicf__malloc(p->ctx, need);
    if (!buf) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "out of memory formatting the plan (%zu bytes)", need);
    if ((r = w(p, buf, need, &need2)) != AICF_SUCCESS || need2 != need) {
        aicf__free(p->ctx, buf);
        return r != AICF_SUCCESS ? r : aicf__err(p->ctx, AICF_ERROR_STATE, "the plan text changed between two passes");
    }
    *out = buf;
    *len = need - 1;
    return AICF_SUCCESS;
}

/* ---- policy text ---- */
static const char* const aicf__io_precisions[4] = {"default", "fp32", "tf32", "fp16"};
static const char* const aicf__io_conv_algos[4] = {"auto", "direct", "im2col_gemm", "implicit_gemm_tc"};
static const char* const aicf__io_matmul_algos[3] = {"auto", "cublaslt", "generated"};

enum {
    AICF__POL_PRECISION = 0,
    AICF__POL_FALLBACK,
    AICF__POL_WORKSPACE,
    AICF__POL_NO_FUSION,
    AICF__POL_CONV,
    AICF__POL_MATMUL,
    AICF__POL_PERSISTENT,
    AICF__POL_AUTOTUNE,
    AICF__POL_NO_PDL,
    AICF__POL_GELU_TANH,
    AICF__POL_PIN,
    AICF__POL_COUNT
};
static const char* const aicf__io_policy_keys[AICF__POL_COUNT] = {
    "precision", "allow_cpu_fallback", "workspace_limit", "no_fusion", "conv_algo", "matmul_algo", "persistent", "autotune", "no_pdl", "gelu_tanh", "pin"};

/* Whether a pinned node's name survives a `pin` line: no '#', control bytes, or blanks at
   either end (the line's comment and trimming rules). */
static int aicf__io_pin_name_ok(const char* s) {
    size_t n = strlen(s), i;
    if (n == 0 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t') return 0;
    for (i = 0; i < n; i++)
        if (s[i] == '#' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
    return 1;
}

/* The policy's lines, each `prefix` key = value. INVALID_ARGUMENT for an enum out of range or a
   pin that cannot be written (a choice out of range, a node name a line cannot carry). */
static aicf_result aicf__policy_write(aicf__sbuf* b, const aicf_policy* pol, const char* prefix) {
    int i;
    if ((int)pol->precision < 0 || (int)pol->precision > 3 || (int)pol->conv_algo < 0 || (int)pol->conv_algo > 3 ||
        (int)pol->matmul_algo < 0 || (int)pol->matmul_algo > 2)
        return AICF_ERROR_INVALID_ARGUMENT;
    for (i = 0; i < AICF_MAX_PINS; i++) {
        const aicf_pin* pin = &pol->pins[i];
        if (!memchr(pin->node, 0, sizeof pin->node)) return AICF_ERROR_INVALID_ARGUMENT;
        if (!pin->node[0]) continue;
        if ((int)pin->kernel < AICF_CHOICE_DIRECT || (int)pin->kernel > AICF_CHOICE_GENERATED || pin->variant < 0 ||
            pin->variant > aicf__choice_max_variant((int)pin->kernel) || !aicf__io_pin_name_ok(pin->node))
            return AICF_ERROR_INVALID_ARGUMENT;
    }
    aicf__sbuf_printf(b, "%sprecision = %s\n", prefix, aicf__io_precisions[pol->precision]);
    aicf__sbuf_printf(b, "%sallow_cpu_fallback = %d\n", prefix, pol->allow_cpu_fallback ? 1 : 0);
    aicf__sbuf_printf(b, "%sworkspace_limit = %llu\n", prefix, (unsigned long long)pol->workspace_limit);
    aicf__sbuf_printf(b, "%sno_fusion = %d\n", prefix, pol->no_fusion ? 1 : 0);
    aicf__sbuf_printf(b, "%sconv_algo = %s\n", prefix, aicf__io_conv_algos[pol->conv_algo]);
    aicf__sbuf_printf(b, "%smatmul_algo = %s\n", prefix, aicf__io_matmul_algos[pol->matmul_algo]);
    aicf__sbuf_printf(b, "%spersistent = %d\n", prefix, pol->persistent ? 1 : 0);
    aicf__sbuf_printf(b, "%sautotune = %d\n", prefix, pol->autotune ? 1 : 0);
    aicf__sbuf_printf(b, "%sno_pdl = %d\n", prefix, pol->no_pdl ? 1 : 0);
    aicf__sbuf_printf(b, "%sgelu_tanh = %d\n", prefix, pol->gelu_tanh ? 1 : 0);
    for (i = 0; i < AICF_MAX_PINS; i++) {
        const aicf_pin* pin = &pol->pins[i];
        if (!pin->node[0]) continue;
        aicf__sbuf_printf(b, "%spin = %s", prefix, aicf__choice_name((int)pin->kernel));
        if (pin->variant) aicf__sbuf_printf(b, "/%d", pin->variant);
        aicf__sbuf_printf(b, " %s\n", pin->node);
    }
    return AICF_SUCCESS;
}

aicf_result aicf_policy_format(const aicf_policy* policy, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_result r;
    if (needed) *needed = 0;
    if (!policy) return AICF_ERROR_INVALID_ARGUMENT;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "# aicf policy (aicf_policy_parse): absent keys keep their defaults\n");
    r = aicf__policy_write(&b, policy, "");
    if (r != AICF_SUCCESS) {
        if (buf && cap) buf[0] = 0;
        return r;
    }
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

static int aicf__io_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static int aicf__io_word(const char* s, size_t n, const char* w) { return strlen(w) == n && memcmp(s, w, n) == 0; }

/* One line of policy text (n bytes, no '\n') into *pol; `seen` tracks keys given. Errors are
   `code` with "fn: line N: ..." naming the key and value. */
static aicf_result aicf__policy_line(aicf_context* ctx, const char* fn, aicf_result code, int line, const char* s, size_t n,
                                     aicf_policy* pol, unsigned* seen) {
    const char *eq, *k, *v;
    size_t kn, vn, i;
    int key = -1;
    char show[96], show2[96];
    for (i = 0; i < n; i++) {
        if (s[i] == '#') break;
        if (s[i] == 0) return aicf__err(ctx, code, "%s: line %d: NUL byte", fn, line);
    }
    n = i;
    while (n && aicf__io_space(s[n - 1])) n--;
    while (n && aicf__io_space(*s)) s++, n--;
    if (n == 0) return AICF_SUCCESS;
    eq = (const char*)memchr(s, '=', n);
    if (!eq) return aicf__err(ctx, code, "%s: line %d: expected 'key = value', got '%s'", fn, line, aicf__io_show(s, n, 60, show, sizeof show));
    k = s;
    kn = (size_t)(eq - s);
    while (kn && aicf__io_space(k[kn - 1])) kn--;
    v = eq + 1;
    vn = n - (size_t)(v - s);
    while (vn && aicf__io_space(*v)) v++, vn--;
    if (kn == 0) return aicf__err(ctx, code, "%s: line %d: no key before '='", fn, line);
    for (i = 0; i < AICF__POL_COUNT; i++)
        if (aicf__io_word(k, kn, aicf__io_policy_keys[i])) key = (int)i;
    if (key < 0)
        return aicf__err(ctx, code,
                         "%s: line %d: unknown key '%s' (keys: precision, allow_cpu_fallback, workspace_limit, no_fusion, conv_algo, "
                         "matmul_algo, persistent, autotune, no_pdl, gelu_tanh, pin)", fn, line, aicf__io_show(k, kn, 60, show, sizeof show));
    if (key != AICF__POL_PIN && (*seen & (1u << key)))
        return aicf__err(ctx, code, "%s: line %d: key '%s' given twice", fn, line, aicf__io_policy_keys[key]);
    *seen |= 1u << key;
    if (vn == 0) return aicf__err(ctx, code, "%s: line %d: key '%s' has no value", fn, line, aicf__io_policy_keys[key]);
    aicf__io_show(v, vn, 60, show2, sizeof show2);
    switch (key) {
    case AICF__POL_PRECISION:
        for (i = 0; i < 4; i++)
            if (aicf__io_word(v, vn, aicf__io_precisions[i])) {
                pol->precision = (aicf_precision)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'precision': value '%s' is not one of default, fp32, tf32, fp16", fn, line, show2);
    case AICF__POL_CONV:
        for (i = 0; i < 4; i++)
            if (aicf__io_word(v, vn, aicf__io_conv_algos[i])) {
                pol->conv_algo = (aicf_conv_algo)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'conv_algo': value '%s' is not one of auto, direct, im2col_gemm, implicit_gemm_tc", fn, line, show2);
    case AICF__POL_MATMUL:
        for (i = 0; i < 3; i++)
            if (aicf__io_word(v, vn, aicf__io_matmul_algos[i])) {
                pol->matmul_algo = (aicf_matmul_algo)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'matmul_algo': value '%s' is not one of auto, cublaslt, generated", fn, line,
                         show2);
    case AICF__POL_PIN: { /* CHOICE[/K] NODE */
        size_t cn = 0, j;
        int choice = -1, lt = 0, slot = -1;
        aicf_pin* pin;
        while (cn < vn && v[cn] != ' ' && v[cn] != '\t' && v[cn] != '/') cn++;
        for (i = 1; i <= AICF_CHOICE_GENERATED; i++)
            if (aicf__io_word(v, cn, aicf__choice_name((int)i))) choice = (int)i;
        if (choice < 0)
            return aicf__err(ctx, code, "%s: line %d: key 'pin': '%s' does not start with a choice (direct, im2col_gemm, implicit_gemm_tc, "
                             "cublaslt, generated)", fn, line, show2);
        if (cn < vn && v[cn] == '/') {
            size_t d0 = ++cn;
            uint64_t x = 0;
            while (cn < vn && v[cn] >= '0' && v[cn] <= '9') cn++;
            if (cn == d0 || aicf__choice_max_variant(choice) == 0 ||
                !aicf__io_dec(v + d0, cn - d0, (uint64_t)aicf__choice_max_variant(choice), &x))
                return aicf__err(ctx, code, "%s: line %d: key 'pin': in '%s', /K follows only im2col_gemm or cublaslt (cuBLASLt "
                                 "heuristic result 0..7) and implicit_gemm_tc (2^(K-1) K splits, 1..6)", fn, line, show2);
            lt = (int)x;
        }
        if (cn < vn && v[cn] != ' ' && v[cn] != '\t')
            return aicf__err(ctx, code, "%s: line %d: key 'pin': '%s' is not 'CHOICE[/K] NODE'", fn, line, show2);
        while (cn < vn && aicf__io_space(v[cn])) cn++;
        if (cn == vn) return aicf__err(ctx, code, "%s: line %d: key 'pin': '%s' names no node (pin = CHOICE[/K] NODE)", fn, line, show2);
        if (vn - cn >= AICF_PIN_NODE_CAP)
            return aicf__err(ctx, code, "%s: line %d: key 'pin': node name of %zu bytes (at most %d)", fn, line, vn - cn, AICF_PIN_NODE_CAP - 1);
        for (j = cn; j < vn; j++)
            if ((unsigned char)v[j] < 0x20 || v[j] == 0x7f) /* a name a pin line could not carry back (tab, control bytes) */
                return aicf__err(ctx, code, "%s: line %d: key 'pin': the node name holds control byte 0x%02x", fn, line, (unsigned)(unsigned char)v[j]);
        for (j = 0; j < AICF_MAX_PINS; j++) {
            const char* nm = pol->pins[j].node;
            if (!nm[0]) {
                if (slot < 0) slot = (int)j;
                continue;
            }
            if (strlen(nm) == vn - cn && memcmp(nm, v + cn, vn - cn) == 0)
                return aicf__err(ctx, code, "%s: line %d: key 'pin': node '%s' is pinned twice", fn, line, nm);
        }
        if (slot < 0) return aicf__err(ctx, code, "%s: line %d: key 'pin': more than %d pins", fn, line, AICF_MAX_PINS);
        pin = &pol->pins[slot];
        memcpy(pin->node, v + cn, vn - cn);
        pin->node[vn - cn] = 0;
        pin->kernel = (aicf_kernel_choice)choice;
        pin->variant = lt;
        return AICF_SUCCESS;
    }
    case AICF__POL_FALLBACK:
    case AICF__POL_PERSISTENT:
    case AICF__POL_AUTOTUNE:
    case AICF__POL_NO_PDL:
    case AICF__POL_GELU_TANH:
    case AICF__POL_NO_FUSION: {
        int b = -1;
        if (aicf__io_word(v, vn, "1") || aicf__io_word(v, vn, "true") || aicf__io_word(v, vn, "yes") || aicf__io_word(v, vn, "on")) b = 1;
        if (aicf__io_word(v, vn, "0") || aicf__io_word(v, vn, "false") || aicf__io_word(v, vn, "no") || aicf__io_word(v, vn, "off")) b = 0;
        if (b < 0)
            return aicf__err(ctx, code, "%s: line %d: key '%s': value '%s' is not 0, 1, true, false, yes, no, on or off", fn, line,
                             aicf__io_policy_keys[key], show2);
        if (key == AICF__POL_FALLBACK) pol->allow_cpu_fallback = b;
        else if (key == AICF__POL_PERSISTENT) pol->persistent = b;
        else if (key == AICF__POL_AUTOTUNE) pol->autotune = b;
        else if (key == AICF__POL_NO_PDL) pol->no_pdl = b;
        else if (key == AICF__POL_GELU_TANH) pol->gelu_tanh = b;
        else pol->no_fusion = b;
        return AICF_SUCCESS;
    }
    default: { /* workspace_limit: bytes, optionally with a unit B, KiB, MiB, GiB (or K, M, G) */
        size_t dn = 0, un;
        const char* u;
        uint64_t val, mul = 1;
        while (vn > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9') v++, vn--; /* leading zeros */
        while (dn < vn && v[dn] >= '0' && v[dn] <= '9') dn++;
        u = v + dn;
        un = vn - dn;
        while (un && aicf__io_space(*u)) u++, un--;
        if (un == 0 || aicf__io_word(u, un, "B")) mul = 1;
        else if (aicf__io_word(u, un, "K") || aicf__io_word(u, un, "KiB")) mul = (uint64_t)1 << 10;
        else if (aicf__io_word(u, un, "M") || aicf__io_word(u, un, "MiB")) mul = (uint64_t)1 << 20;
        else if (aicf__io_word(u, un, "G") || aicf__io_word(u, un, "GiB")) mul = (uint64_t)1 << 30;
        else dn = 0;
        if (dn == 0 || !aicf__io_dec(v, dn, (uint64_t)SIZE_MAX, &val) || val > (uint64_t)SIZE_MAX / mul)
            return aicf__err(ctx, code,
                             "%s: line %d: key 'workspace_limit': value '%s' is not a byte count (digits, optionally B, KiB, MiB or "
                             "GiB) that fits size_t", fn, line, show2);
        pol->workspace_limit = (size_t)(val * mul);
        return AICF_SUCCESS;
    }
    }
}

static aicf_result aicf__policy_parse(aicf_context* ctx, const char* fn, const char* text, size_t len, aicf_policy* out) {
    aicf_policy pol;
    unsigned seen = 0;
    size_t pos = 0;
    int line = 0;
    memset(&pol, 0, sizeof pol);
    if (len > AICF__IO_MAX_POLICY)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: %zu bytes of policy text, more than %zu", fn, len, AICF__IO_MAX_POLICY);
    while (pos < len) {
        const char* nl = (const char*)memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        aicf_result r;
        line++;
        if (n > AICF__IO_MAX_POLICY_LINE)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: line %d is longer than %zu bytes", fn, line,
                             AICF__IO_MAX_POLICY_LINE);
        r = aicf__policy_line(ctx, fn, AICF_ERROR_INVALID_ARGUMENT, line, text + pos, n, &pol, &seen);
        if (r != AICF_SUCCESS) return r;
        pos += n + (nl ? 1 : 0);
    }
    *out = pol;
    return AICF_SUCCESS;
}

aicf_result aicf_policy_parse(aicf_context* ctx, const char* text, size_t len, aicf_policy* out) {
    if (!out || (!text && len)) return AICF_ERROR_INVALID_ARGUMENT;
    return aicf__policy_parse(ctx, "aicf_policy_parse", text ? text : "", len, out);
}

aicf_result aicf_policy_save(aicf_context* ctx, const aicf_policy* policy, const char* path) {
    char buf[1024 + AICF_MAX_PINS * (AICF_PIN_NODE_CAP + 32)];
    size_t need = 0;
    aicf_result r;
    if (!ctx || !policy || !path) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf_policy_format(policy, buf, sizeof buf, &need);
    if (r != AICF_SUCCESS)
        return aicf__err(ctx, r, "aicf_policy_save: the policy has an enum value out of range (precision %d, conv_algo %d, matmul_algo %d) "
                         "or a pin that a policy line cannot carry (a choice out of range, variant outside 0..7, a node name "
                         "with '#', control bytes or blanks at either end)",
                         (int)policy->precision, (int)policy->conv_algo, (int)policy->matmul_algo);
    if (need > sizeof buf) return aicf__err(ctx, AICF_ERROR_STATE, "aicf_policy_save: policy text of %zu bytes", need);
    return aicf__io_write(ctx, "aicf_policy_save", path, buf, need - 1);
}

aicf_result aicf_policy_load(aicf_context* ctx, const char* path, aicf_policy* out) {
    char* data = NULL;
    size_t size = 0;
    aicf_result r;
    if (!ctx || !path || !out) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_read(ctx, "aicf_policy_load", path, AICF__IO_MAX_POLICY, &data, &size);
    if (r != AICF_SUCCESS) return r;
    r = aicf__policy_parse(ctx, "aicf_policy_load", data, size, out);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
        r = aicf__err(ctx, r, "%.300s: %s", path, msg);
    }
    aicf__free(ctx, data);
    return r;
}

/* ---- plan files: the header lines ---- */
static const char* aicf__io_backend_name(aicf_backend b) {
    return b == AICF_BACKEND_CPU ? "cpu" : b == AICF_BACKEND_CUDA ? "cuda" : "default";
}

static void aicf__io_line_table(aicf__sbuf* b) {
    const char* nvrtc = "";
    int nm = 0, nk = 0;
    uint64_t fp = aicf__cuda_table_fingerprint(&nvrtc, &nm, &nk);
    aicf__sbuf_printf(b, "kernel_table fingerprint=%016llx nvrtc=", (unsigned long long)fp);
    aicf__io_qstr(b, nvrtc);
    aicf__sbuf_printf(b, " modules=%d kernels=%d\n", nm, nk);
}

static void aicf__io_line_backend(aicf__sbuf* b, aicf_backend requested, aicf_backend target) {
    aicf__sbuf_printf(b, "backend requested=%s target=%s\n", aicf__io_backend_name(requested), aicf__io_backend_name(target));
}

/* "device cpu", or the CUDA device and the cuBLASLt line (both need the device). */
static aicf_result aicf__io_line_device(aicf_context* ctx, aicf_backend target, aicf__sbuf* dev, aicf__sbuf* lt) {
    aicf_device_info di;
    aicf_result r;
    if (target != AICF_BACKEND_CUDA) {
        aicf__sbuf_printf(dev, "device cpu\n");
        return AICF_SUCCESS;
    }
    r = aicf_context_device_info(ctx, &di);
    if (r != AICF_SUCCESS) return r;
    aicf__sbuf_printf(dev, "device sm=%d name=", di.cc_major * 10 + di.cc_minor);
    aicf__io_qstr(dev, di.name);
    aicf__sbuf_put(dev, "\n", 1);
    if (di.cublaslt_available) aicf__sbuf_printf(lt, "cublaslt version=%llu\n", (unsigned long long)di.cublaslt_version);
    else aicf__sbuf_printf(lt, "cublaslt none\n");
    return AICF_SUCCESS;
}

static void aicf__io_line_model(aicf__sbuf* b, uint64_t fp) {
    aicf__sbuf_printf(b, "model fingerprint=%016llx\n", (unsigned long long)fp);
}

static const char* aicf__io_space_name(aicf__space s) {
    return s == AICF__SPACE_ARENA ? "arena" : s == AICF__SPACE_WEIGHTS ? "weights" : "none";
}

static const char* aicf__io_shape(const aicf__shape* s, char* buf, size_t cap) {
    if (s->rank < 0 || s->rank > AICF_MAX_RANK) {
        snprintf(buf, cap, "[?]");
        return buf;
    }
    return aicf__shape_str(s, buf, cap);
}

static void aicf__io_patches(aicf__sbuf* b, const aicf__cuda_op_view* v) {
    int k;
    aicf__sbuf_printf(b, " patch=");
    if (v->n_patch == 0) aicf__sbuf_put(b, "-", 1);
    for (k = 0; k < v->n_patch && k < AICF__CUDA_VIEW_MAX_PATCH; k++) {
        if (v->patch_tensor[k] == -2)
            aicf__sbuf_printf(b, "%s%u:scratch+%llu", k ? "," : "", v->patch_field[k], (unsigned long long)v->patch_add[k]);
        else if (v->patch_tensor[k] == -3)
            aicf__sbuf_printf(b, "%s%u:sync+%llu", k ? "," : "", v->patch_field[k], (unsigned long long)v->patch_add[k]);
        else
            aicf__sbuf_printf(b, "%s%u:%s%d+%llu", k ? "," : "", v->patch_field[k], v->patch_tmap[k] ? "tmap:" : "", v->patch_tensor[k],
                              (unsigned long long)v->patch_add[k]);
    }
}

/* " direct=12.345" (microseconds, from nanoseconds: exact) or " cublaslt/2=..." */
static void aicf__io_tuned(aicf__sbuf* b, const struct aicf__tuned* t) {
    int64_t ns = t->ns < 0 ? 0 : t->ns;
    aicf__sbuf_printf(b, " %s", aicf__choice_name(t->choice));
    if (t->lt) aicf__sbuf_printf(b, "/%d", t->lt);
    aicf__sbuf_printf(b, "=%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

aicf_result aicf_plan_serialize(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    const aicf_graph* g;
    aicf_result r;
    int i, j, k, live = 0;
    char sh[200];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "%s\n", AICF__IO_MAGIC);
    aicf__sbuf_printf(&b, "# aicf plan (docs/plan_format.md): aicf_plan_load re-plans with this policy and these cuBLASLt "
                          "algorithms and refuses any difference\n");
    aicf__io_line_table(&b);
    aicf__io_line_backend(&b, p->requested, p->target);
    {
        char dbuf[600], lbuf[64];
        aicf__sbuf dev, lt;
        aicf__sbuf_init(&dev, dbuf, sizeof dbuf);
        aicf__sbuf_init(&lt, lbuf, sizeof lbuf);
        r = aicf__io_line_device(p->ctx, p->target, &dev, &lt);
        if (r != AICF_SUCCESS) {
            if (buf && cap) buf[0] = 0;
            return r;
        }
        aicf__sbuf_put(&b, dbuf, strlen(dbuf));
        aicf__sbuf_put(&b, lbuf, strlen(lbuf));
    }
    aicf__io_line_model(&b, p->model_fingerprint);
    r = aicf__policy_write(&b, &p->policy, "policy ");
    if (r != AICF_SUCCESS) {
        if (buf && cap) buf[0] = 0;
        return aicf__err(p->ctx, r, "aicf_plan_serialize: the plan's policy has an enum value out of range");
    }
    for (i = 0; i < g->n_nodes; i++) live += !g->nodes[i].removed;
    aicf__sbuf_printf(&b, "plan nodes=%d live_nodes=%d tensors=%d steps=%d inputs=%d outputs=%d\n", g->n_nodes, live, g->n_tensors,
                      p->n_steps, p->n_in, p->n_out);
    for (i = 0; i < p->n_in; i++) aicf__sbuf_printf(&b, "input %d tensor=%d boundary=%d\n", i, p->in_tensor[i], p->in_boundary[i]);
    for (i = 0; i < p->n_out; i++) aicf__sbuf_printf(&b, "output %d tensor=%d boundary=%d\n", i, p->out_tensor[i], p->out_boundary[i]);
    /* storage: every tensor that has some */
    for (i = 0; i < g->n_tensors; i++) {
        const aicf__loc* l = &p->loc[i];
        const aicf__tensor* t = &g->tensors[i];
        if (l->space == AICF__SPACE_NONE) continue;
        aicf__sbuf_printf(&b, "tensor %d name=", i);
        aicf__io_qstr(&b, t->name);
        aicf__sbuf_printf(&b, " dtype=%s shape=%s space=%s offset=%zu bytes=%zu storage=%s alias=%d", aicf_dtype_name(t->dtype),
                          aicf__io_shape(&t->shape, sh, sizeof sh), aicf__io_space_name(l->space), l->offset, l->bytes,
                          aicf_dtype_name(l->sdtype), l->alias_of);
        if (l->chunk) aicf__sbuf_printf(&b, " layout=chunk%d", l->chunk);
        aicf__sbuf_printf(&b, "\n");
    }
    /* steps */
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        int n_ops, n_algo = 0;
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes) {
            const aicf__node* n = &g->nodes[st->node];
            aicf__sbuf_printf(&b, "step %d kind=node node=%d op=", i, st->node);
            aicf__io_qstr(&b, n->op_type);
            aicf__sbuf_put(&b, " name=", 6);
            aicf__io_qstr(&b, n->name);
        } else {
            aicf__sbuf_printf(&b, "step %d kind=cast", i);
        }
        aicf__sbuf_put(&b, " kernel=", 8);
        aicf__io_qstr(&b, st->kernel);
        aicf__sbuf_printf(&b, " grid=%u,%u,%u block=%u,%u,%u shared=%u scratch=%zu@%zu epi_native=%d\n", st->grid[0], st->grid[1],
                          st->grid[2], st->block[0], st->block[1], st->block[2], st->shared_bytes, st->scratch_bytes,
                          st->scratch_bytes ? st->scratch_offset : (size_t)0, st->epi_native);
        aicf__sbuf_put(&b, "  in", 4);
        for (j = 0; j < st->n_in; j++) aicf__sbuf_printf(&b, " %d", st->in[j]);
        aicf__sbuf_put(&b, "\n  out", 6);
        for (j = 0; j < st->n_out; j++) aicf__sbuf_printf(&b, " %d", st->out[j]);
        aicf__sbuf_put(&b, "\n", 1);
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            const aicf__epi* e = &st->epi[j];
            const aicf__node* en = (e->node >= 0 && e->node < g->n_nodes) ? &g->nodes[e->node] : NULL;
            aicf__sbuf_printf(&b, "  fused %d node=%d op=", j, e->node);
            aicf__io_qstr(&b, en ? en->op_type : "?");
            aicf__sbuf_put(&b, " name=", 6);
            aicf__io_qstr(&b, en ? en->name : "?");
            aicf__sbuf_printf(&b, " operand=%d left=%d alpha=%.9g beta=%.9g\n", e->operand, e->operand_left, (double)e->alpha,
                              (double)e->beta);
            if (en) { /* a Gelu made from the exported GELU (aicf__fuse_gelu): the nodes it replaced */
                int f;
                for (f = 0; f < en->n_fused && f < AICF__NODE_FUSED_MAX; f++) {
                    int fn = en->fused[f];
                    const aicf__node* rn = fn >= 0 && fn < g->n_nodes ? &g->nodes[fn] : NULL;
                    aicf__sbuf_printf(&b, "    replaced %d node=%d op=", f, fn);
                    aicf__io_qstr(&b, rn ? rn->op_type : "?");
                    aicf__sbuf_put(&b, " name=", 6);
                    aicf__io_qstr(&b, rn ? rn->name : "?");
                    aicf__sbuf_put(&b, "\n", 1);
                }
            }
        }
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes && g->nodes[st->node].trans_b > 0 &&
            g->nodes[st->node].trans_b <= g->n_nodes) {
            const aicf__node* tn = &g->nodes[g->nodes[st->node].trans_b - 1];
            aicf__sbuf_printf(&b, "  absorbed input=1 node=%d op=", g->nodes[st->node].trans_b - 1);
            aicf__io_qstr(&b, tn->op_type);
            aicf__sbuf_put(&b, " name=", 6);
            aicf__io_qstr(&b, tn->name);
            aicf__sbuf_put(&b, "\n", 1);
        }
        if (st->kind == AICF__STEP_NODE && st->pro > 0) aicf__sbuf_printf(&b, "  prologue node=%d in=%d\n", st->pro - 1, st->pro_in);
        if (st->kind == AICF__STEP_NODE && st->post > 0) aicf__sbuf_printf(&b, "  epilogue-layernorm node=%d in=%d\n", st->post - 1, st->post_in);
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes)
            for (j = 0; j < g->nodes[st->node].n_fused && j < AICF__NODE_FUSED_MAX; j++) {
                int fn = g->nodes[st->node].fused[j];
                const aicf__node* en = fn >= 0 && fn < g->n_nodes ? &g->nodes[fn] : NULL;
                aicf__sbuf_printf(&b, "  replaced %d node=%d op=", j, fn);
                aicf__io_qstr(&b, en ? en->op_type : "?");
                aicf__sbuf_put(&b, " name=", 6);
                aicf__io_qstr(&b, en ? en->name : "?");
                aicf__sbuf_put(&b, "\n", 1);
            }
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes && g->nodes[st->node].views)
            for (j = 0; j < 4; j++) {
                const aicf__view* v = &g->nodes[st->node].views->v[j];
                if (v->base >= 0)
                    aicf__sbuf_printf(&b, "  view %s base=%d off=%lld strides=%lld,%lld,%lld,%lld\n", j < 3 ? (j == 0 ? "q" : j == 1 ? "k" : "v") : "out",
                                      v->base, (long long)v->off, (long long)v->st[0], (long long)v->st[1], (long long)v->st[2],
                                      (long long)v->st[3]);
            }
        aicf__sbuf_put(&b, "  reason ", 9);
        aicf__io_qstr(&b, st->reason);
        aicf__sbuf_put(&b, "\n", 1);
        if (st->choice != AICF_CHOICE_RULE || st->choice_src == AICF__CHOICE_FROM_TUNE) {
            aicf__sbuf_printf(&b, "  choice kernel=%s lt=%d from=%s\n", aicf__choice_name(st->choice), st->choice_lt,
                              st->choice_src == AICF__CHOICE_FROM_PIN ? "pin" : "autotune");
            if (st->n_tuned > 0) {
                aicf__sbuf_put(&b, "  tuned", 7);
                for (j = 0; j < st->n_tuned && j < AICF__TUNE_MAX; j++)
                    aicf__io_tuned(&b, &st->tuned[j]);
                aicf__sbuf_put(&b, "\n", 1);
            }
        }
        n_ops = aicf__cuda_step_ops(p, i, &n_algo);
        for (k = 0; k < n_ops; k++) {
            aicf__cuda_op_view v;
            aicf__cuda_step_op(p, i, k, &v);
            if (v.kind == 1) {
                aicf__sbuf_printf(&b, "  op %d kernel name=", k);
                aicf__io_qstr(&b, v.kernel_name);
                aicf__sbuf_printf(&b, " grid=%u,%u,%u block=%u,%u,%u shared=%u args=", v.grid[0], v.grid[1], v.grid[2], v.block[0],
                                  v.block[1], v.block[2], v.shared_bytes);
                aicf__io_hex(&b, v.args, v.args_size);
                if (v.pdl) aicf__sbuf_put(&b, " pdl=1", 6);
            } else if (v.kind == 2) {
                aicf__sbuf_printf(&b, "  op %d copy bytes=%llu", k, (unsigned long long)v.copy_bytes);
            } else {
                aicf__sbuf_printf(&b, "  op %d matmul algo=%d args=", k, v.algo);
                aicf__io_hex(&b, v.args, v.args_size);
            }
            aicf__io_patches(&b, &v);
            aicf__sbuf_put(&b, "\n", 1);
        }
        for (k = 0; k < n_algo; k++) {
            aicf__algo_rec a;
            int w;
            aicf__cuda_step_algo(p, i, k, &a);
            aicf__sbuf_printf(&b, "  algo %d blob=", k);
            for (w = 0; w < 8; w++) aicf__sbuf_printf(&b, "%s%016llx", w ? "," : "", (unsigned long long)a.blob[w]);
            aicf__sbuf_printf(&b, " workspace=%llu cublaslt=%llu align=%u,%u,%u,%u results=%d index=%d\n",
                              (unsigned long long)a.workspace_bytes, (unsigned long long)a.cublaslt_version, a.align[0], a.align[1],
                              a.align[2], a.align[3], a.n_results, a.index);
        }
    }
    aicf__sbuf_printf(&b, "memory arena=%zu lower_bound=%zu weights=%zu order=%d\n", p->arena_bytes, p->arena_lower_bound,
                      p->weights_bytes, p->mem_order);
    aicf__sbuf_printf(&b, "end\n");
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

aicf_result aicf_plan_save(const aicf_plan* p, const char* path) {
    char* text = NULL;
    size_t len = 0;
    aicf_result r;
    if (!p || !path) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_render(p, aicf_plan_serialize, &text, &len);
    if (r != AICF_SUCCESS) return r;
    r = aicf__io_write(p->ctx, "aicf_plan_save", path, text, len);
    aicf__free(p->ctx, text);
    return r;
}

/* ---- plan files: loading ---- */

/* The next line of data[0..size) from *pos (without its '\n'); 0 at the end. */
static int aicf__io_next(const char* data, size_t size, size_t* pos, const char** line, size_t* n) {
    const char* nl;
    if (*pos >= size) return 0;
    *line = data + *pos;
    nl = (const char*)memchr(*line, '\n', size - *pos);
    *n = nl ? (size_t)(nl - *line) : size - *pos;
    *pos += *n + (nl ? 1 : 0);
    return 1;
}

static int aicf__io_starts(const char* s, size_t n, const char* prefix) {
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* Value of token `key=` on a line of space-separated tokens (quoted values skipped whole).
   Returns 1 with *v, *vn (the raw value), 0 if absent. */
static int aicf__io_field(const char* s, size_t n, const char* key, const char** v, size_t* vn) {
    size_t i = 0, kl = strlen(key);
    while (i < n) {
        size_t start, j;
        while (i < n && s[i] == ' ') i++;
        start = i;
        j = i;
        while (j < n && s[j] != ' ' && s[j] != '=') j++;
        if (j < n && s[j] == '=') {
            size_t vs = j + 1, ve = vs;
            if (ve < n && s[ve] == '"') {
                ve++;
                while (ve < n && s[ve] != '"') ve += (s[ve] == '\\' && ve + 1 < n) ? 2 : 1;
                if (ve < n) ve++;
            }
            while (ve < n && s[ve] != ' ') ve++;
            if (j - start == kl && memcmp(s + start, key, kl) == 0) {
                *v = s + vs;
                *vn = ve - vs;
                return 1;
            }
            i = ve;
        } else {
            i = j;
        }
    }
    return 0;
}

/* Comma-separated list of exactly `count` decimal numbers <= max. */
static int aicf__io_dec_list(const char* s, size_t n, int count, uint64_t max, uint64_t* out) {
    int k;
    for (k = 0; k < count; k++) {
        const char* c = k + 1 < count ? (const char*)memchr(s, ',', n) : NULL;
        size_t len = c ? (size_t)(c - s) : n;
        if (k + 1 < count && !c) return 0;
        if (!aicf__io_dec(s, len, max, &out[k])) return 0;
        if (c) {
            n -= len + 1;
            s = c + 1;
        }
    }
    return 1;
}

typedef struct aicf__io_mm { /* a matmul op line: its step, algorithm index and descriptor */
    int step, algo, line;
    aicf__matmul_desc desc;
} aicf__io_mm;

typedef struct aicf__io_al { /* an algo line */
    int step, index, line;
    aicf__algo_rec rec;
} aicf__io_al;

typedef struct aicf__io_state {
    aicf_context* ctx;
    const char* fn;
    aicf__io_mm* mm;
    int n_mm, cap_mm;
    aicf__io_al* al;
    int n_al, cap_al;
    aicf__saved_choice* ch;
    int n_ch, cap_ch;
} aicf__io_state;

static aicf_result aicf__io_bad(aicf__io_state* L, int line, const char* what, const char* s, size_t n) {
    char show[160];
    return aicf__err(L->ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: %s: '%s'", L->fn, line, what,
                     aicf__io_show(s, n, 120, show, sizeof show));
}

/* "  op K matmul algo=A args=HEX ..." */
static aicf_result aicf__io_parse_mm(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    const char *v;
    size_t vn;
    uint64_t a;
    aicf__io_mm* m;
    if (step < 0) return aicf__io_bad(L, line, "an op line before the first step", s, n);
    if (!aicf__grow(L->ctx, (void**)&L->mm, &L->cap_mm, L->n_mm + 1, sizeof *L->mm))
        return aicf__err(L->ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->fn);
    m = &L->mm[L->n_mm];
    memset(m, 0, sizeof *m);
    m->step = step;
    m->line = line;
    if (!aicf__io_field(s, n, "algo", &v, &vn) || !aicf__io_dec(v, vn, 1000, &a))
        return aicf__io_bad(L, line, "a matmul op needs algo=N", s, n);
    m->algo = (int)a;
    if (!aicf__io_field(s, n, "args", &v, &vn) || !aicf__io_unhex(v, vn, (unsigned char*)&m->desc, sizeof m->desc))
        return aicf__io_bad(L, line, "a matmul op needs args= with the descriptor's bytes in hex", s, n);
    L->n_mm++;
    return AICF_SUCCESS;
}

/* "  algo K blob=X,..(8) workspace=N cublaslt=N align=a,b,c,d results=N" */
static aicf_result aicf__io_parse_algo(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    const char *v;
    size_t vn;
    uint64_t x, al[4];
    aicf__io_al* a;
    int w;
    if (step < 0) return aicf__io_bad(L, line, "an algo line before the first step", s, n);
    if (!aicf__grow(L->ctx, (void**)&L->al, &L->cap_al, L->n_al + 1, sizeof *L->al))
        return aicf__err(L->ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->fn);
    a = &L->al[L->n_al];
    memset(a, 0, sizeof *a);
    a->step = step;
    a->line = line;
    {
        size_t p = 7; /* "  algo " */
        size_t e = p;
        while (e < n && s[e] != ' ') e++;
        if (!aicf__io_dec(s + p, e - p, 1000, &x)) return aicf__io_bad(L, line, "an algo line needs its index", s, n);
        a->index = (int)x;
    }
    if (!aicf__io_field(s, n, "blob", &v, &vn) || vn != 8 * 16 + 7)
        return aicf__io_bad(L, line, "an algo line needs blob= with 8 comma-separated 16-digit hex words", s, n);
    for (w = 0; w < 8; w++)
        if (!aicf__io_hex64(v + 17 * w, 16, &a->rec.blob[w]) || (w < 7 && v[17 * w + 16] != ','))
            return aicf__io_bad(L, line, "an algo line needs blob= with 8 comma-separated 16-digit hex words", s, n);
    if (!aicf__io_field(s, n, "workspace", &v, &vn) || !aicf__io_dec(v, vn, (uint64_t)SIZE_MAX, &a->rec.workspace_bytes))
        return aicf__io_bad(L, line, "an algo line needs workspace=BYTES", s, n);
    if (!aicf__io_field(s, n, "cublaslt", &v, &vn) || !aicf__io_dec(v, vn, UINT64_MAX, &a->rec.cublaslt_version))
        return aicf__io_bad(L, line, "an algo line needs cublaslt=VERSION", s, n);
    if (!aicf__io_field(s, n, "align", &v, &vn) || !aicf__io_dec_list(v, vn, 4, 256, al))
        return aicf__io_bad(L, line, "an algo line needs align=A,B,C,D (bytes, at most 256)", s, n);
    for (w = 0; w < 4; w++) a->rec.align[w] = (unsigned)al[w];
    if (!aicf__io_field(s, n, "results", &v, &vn) || !aicf__io_dec(v, vn, 1000, &x))
        return aicf__io_bad(L, line, "an algo line needs results=N", s, n);
    a->rec.n_results = (int)x;
    if (!aicf__io_field(s, n, "index", &v, &vn) || !aicf__io_dec(v, vn, 7, &x))
        return aicf__io_bad(L, line, "an algo line needs index=K (the heuristic result taken, 0..7)", s, n);
    a->rec.index = (int)x;
    L->n_al++;
    return AICF_SUCCESS;
}

/* "NAME" or "NAME/K" of s[0..n) into a choice and cuBLASLt result; 0 if malformed. */
static int aicf__io_choice(const char* s, size_t n, int* choice, int* lt) {
    size_t cn = 0;
    uint64_t x = 0;
    int i;
    while (cn < n && s[cn] != '/') cn++;
    *choice = -1;
    for (i = AICF_CHOICE_RULE; i <= AICF_CHOICE_GENERATED; i++) /* "rule": an autotuned step whose rules' lowering was fastest */
        if (aicf__io_word(s, cn, aicf__choice_name(i))) *choice = i;
    if (*choice < 0) return 0;
    *lt = 0;
    if (cn < n && (cn + 1 == n || !aicf__io_dec(s + cn + 1, n - cn - 1, 7, &x))) return 0;
    *lt = (int)x;
    return 1;
}

/* "  choice kernel=NAME lt=K from=pin|autotune" */
static aicf_result aicf__io_parse_choice(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    const char* v;
    size_t vn;
    uint64_t x;
    aicf__saved_choice* c;
    int lt;
    if (step < 0) return aicf__io_bad(L, line, "a choice line before the first step", s, n);
    if (L->n_ch > 0 && L->ch[L->n_ch - 1].step == step) return aicf__io_bad(L, line, "a second choice line for one step", s, n);
    if (!aicf__grow(L->ctx, (void**)&L->ch, &L->cap_ch, L->n_ch + 1, sizeof *L->ch))
        return aicf__err(L->ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->fn);
    c = &L->ch[L->n_ch];
    memset(c, 0, sizeof *c);
    c->step = step;
    if (!aicf__io_field(s, n, "kernel", &v, &vn) || !aicf__io_choice(v, vn, &c->choice, &lt) || lt != 0)
        return aicf__io_bad(L, line, "a choice line needs kernel=rule|direct|im2col_gemm|implicit_gemm_tc|cublaslt|generated", s, n);
    if (!aicf__io_field(s, n, "lt", &v, &vn) || !aicf__io_dec(v, vn, 7, &x))
        return aicf__io_bad(L, line, "a choice line needs lt=K (0..7)", s, n);
    c->lt = (int)x;
    if (!aicf__io_field(s, n, "from", &v, &vn) || !(aicf__io_word(v, vn, "pin") || aicf__io_word(v, vn, "autotune")))
        return aicf__io_bad(L, line, "a choice line needs from=pin or from=autotune", s, n);
    c->src = aicf__io_word(v, vn, "pin") ? AICF__CHOICE_FROM_PIN : AICF__CHOICE_FROM_TUNE;
    L->n_ch++;
    return AICF_SUCCESS;
}

/* "  tuned NAME[/K]=US.FFF ..." after the step's choice line */
static aicf_result aicf__io_parse_tuned(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    aicf__saved_choice* c = L->n_ch > 0 ? &L->ch[L->n_ch - 1] : NULL;
    size_t i = 7; /* "  tuned" */
    if (!c || c->step != step || c->src != AICF__CHOICE_FROM_TUNE || c->n_tuned > 0)
        return aicf__io_bad(L, line, "a tuned line belongs after its step's 'choice ... from=autotune' line, once", s, n);
    while (i < n) {
        size_t k0, eq, e, dot;
        uint64_t us = 0, frac = 0;
        struct aicf__tuned* t;
        while (i < n && s[i] == ' ') i++;
        if (i >= n) break;
        k0 = i;
        while (i < n && s[i] != ' ') i++;
        e = i;
        eq = k0;
        while (eq < e && s[eq] != '=') eq++;
        dot = eq;
        while (dot < e && s[dot] != '.') dot++;
        if (c->n_tuned >= AICF__TUNE_MAX) return aicf__io_bad(L, line, "more candidates than a step times", s, n);
        t = &c->tuned[c->n_tuned];
        if (eq == e || dot == e || e - dot != 4 || !aicf__io_choice(s + k0, eq - k0, &t->choice, &t->lt) ||
            !aicf__io_dec(s + eq + 1, dot - eq - 1, (uint64_t)1 << 40, &us))
            return aicf__io_bad(L, line, "a tuned line lists NAME[/K]=MICROSECONDS with three decimals", s, n);
        for (k0 = dot + 1; k0 < e; k0++) { /* the three decimals (leading zeros are their spelling) */
            if (s[k0] < '0' || s[k0] > '9') return aicf__io_bad(L, line, "a tuned line lists NAME[/K]=MICROSECONDS with three decimals", s, n);
            frac = frac * 10 + (uint64_t)(s[k0] - '0');
        }
        t->ns = (int64_t)(us * 1000 + frac);
        c->n_tuned++;
    }
    if (c->n_tuned == 0) return aicf__io_bad(L, line, "a tuned line lists no candidate", s, n);
    return AICF_SUCCESS;
}

/* Compares the file with the rebuilt plan's text: the first differing line, or 0 if equal. */
static int aicf__io_first_diff(const char* a, size_t an, const char* b, size_t bn, const char** la, size_t* lan, const char** lb,
                               size_t* lbn) {
    size_t pa = 0, pb = 0;
    int line = 0;
    for (;;) {
        int ha = aicf__io_next(a, an, &pa, la, lan), hb = aicf__io_next(b, bn, &pb, lb, lbn);
        line++;
        if (!ha && !hb) return (an == bn) ? 0 : line; /* only a final '\n' differs */
        if (!ha) *la = NULL, *lan = 0;
        if (!hb) *lb = NULL, *lbn = 0;
        if (!ha || !hb || *lan != *lbn || memcmp(*la, *lb, *lan) != 0) return line;
    }
}

static aicf_result aicf__io_load(aicf_graph* graph, const char* fn, const char* data, size_t size, aicf_plan** out) {
    aicf_context* ctx = graph->ctx;
    aicf__io_state L;
    aicf__saved_algos saved;
    aicf__saved_choices choices;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_policy pol;
    aicf_result r = AICF_SUCCESS;
    aicf_backend requested = AICF_BACKEND_DEFAULT, target = AICF_BACKEND_CPU;
    const char *line, *hdr[5] = {NULL, NULL, NULL, NULL, NULL};
    size_t pos = 0, n, hdr_n[5] = {0, 0, 0, 0, 0};
    int ln = 0, hdr_ln[5] = {0, 0, 0, 0, 0}, step = -1, in_header = 1, i, j;
    unsigned seen = 0;
    char show[160], show2[160];
    static const char* const keys[5] = {"kernel_table ", "backend ", "device ", "cublaslt ", "model "};
    enum { H_TABLE, H_BACKEND, H_DEVICE, H_CUBLASLT, H_MODEL };
    memset(&L, 0, sizeof L);
    memset(&saved, 0, sizeof saved);
    memset(&pol, 0, sizeof pol);
    L.ctx = ctx;
    L.fn = fn;
    if (size > AICF__IO_MAX_FILE) return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: %zu bytes, more than %zu", fn, size, AICF__IO_MAX_FILE);
    /* format */
    if (!aicf__io_next(data, size, &pos, &line, &n))
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: empty file: not an aicf plan", fn);
    ln = 1;
    if (!(n == strlen(AICF__IO_MAGIC) && memcmp(line, AICF__IO_MAGIC, n) == 0)) {
        if (aicf__io_starts(line, n, "aicf-plan "))
            return aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line 1: plan file format '%s'; this library reads and writes '%s'", fn,
                             aicf__io_show(line, n, 60, show, sizeof show), AICF__IO_MAGIC);
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line 1: '%s' is not an aicf plan header (expected '%s')", fn,
                         aicf__io_show(line, n, 60, show, sizeof show), AICF__IO_MAGIC);
    }
    /* complete? */
    if (size < 5 || memcmp(data + size - 5, "\nend\n", 5) != 0) {
        size_t p2 = 0, lastn = 0;
        const char* last = data;
        int lines = 0;
        while (aicf__io_next(data, size, &p2, &line, &n)) {
            last = line;
            lastn = n;
            lines++;
        }
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: the file does not end with the line 'end' (truncated?): last line '%s'",
                         fn, lines, aicf__io_show(last, lastn, 80, show, sizeof show));
    }
    /* one pass over the lines: header, policy, cuBLASLt records */
    while (aicf__io_next(data, size, &pos, &line, &n)) {
        ln++;
        if (n > AICF__IO_MAX_LINE) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d is longer than %zu bytes", fn, ln, AICF__IO_MAX_LINE);
            goto done;
        }
        if (memchr(line, 0, n)) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: NUL byte", fn, ln);
            goto done;
        }
        if (in_header) {
            if (aicf__io_starts(line, n, "plan ")) {
                in_header = 0;
                continue;
            }
            if (aicf__io_starts(line, n, "policy ")) {
                r = aicf__policy_line(ctx, fn, AICF_ERROR_INVALID_MODEL, ln, line + 7, n - 7, &pol, &seen);
                if (r != AICF_SUCCESS) goto done;
                continue;
            }
            for (i = 0; i < 5; i++)
                if (!hdr[i] && aicf__io_starts(line, n, keys[i])) {
                    hdr[i] = line;
                    hdr_n[i] = n;
                    hdr_ln[i] = ln;
                    break;
                }
            continue;
        }
        if (aicf__io_starts(line, n, "step ")) {
            size_t e = 5;
            uint64_t v;
            while (e < n && line[e] != ' ') e++;
            if (!aicf__io_dec(line + 5, e - 5, (uint64_t)INT32_MAX, &v)) {
                r = aicf__io_bad(&L, ln, "a step line needs its index", line, n);
                goto done;
            }
            step = (int)v;
        } else if (aicf__io_starts(line, n, "  op ")) {
            const char* sp = (const char*)memchr(line + 5, ' ', n - 5);
            if (sp && aicf__io_starts(sp, n - (size_t)(sp - line), " matmul ")) {
                r = aicf__io_parse_mm(&L, ln, step, line, n);
                if (r != AICF_SUCCESS) goto done;
            }
        } else if (aicf__io_starts(line, n, "  algo ")) {
            r = aicf__io_parse_algo(&L, ln, step, line, n);
            if (r != AICF_SUCCESS) goto done;
        } else if (aicf__io_starts(line, n, "  choice ")) {
            r = aicf__io_parse_choice(&L, ln, step, line, n);
            if (r != AICF_SUCCESS) goto done;
        } else if (aicf__io_starts(line, n, "  tuned ")) {
            r = aicf__io_parse_tuned(&L, ln, step, line, n);
            if (r != AICF_SUCCESS) goto done;
        }
    }
    for (i = 0; i < 5; i++)
        if (!hdr[i] && !(i == H_CUBLASLT)) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: no '%.*s' line before the 'plan' line", fn, (int)strlen(keys[i]) - 1,
                          keys[i]);
            goto done;
        }
    if (in_header) {
        r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: no 'plan' line: not a complete plan file", fn);
        goto done;
    }
    /* the kernel table this build has */
    {
        char tb[256];
        aicf__sbuf b;
        aicf__sbuf_init(&b, tb, sizeof tb);
        aicf__io_line_table(&b);
        if (strlen(tb) != hdr_n[H_TABLE] + 1 || memcmp(tb, hdr[H_TABLE], hdr_n[H_TABLE]) != 0) {
            tb[strlen(tb) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the kernel table differs (regenerated kernels or another aicf build): the file has '%s', this "
                          "build '%s'", fn, hdr_ln[H_TABLE], aicf__io_show(hdr[H_TABLE], hdr_n[H_TABLE], 140, show, sizeof show), tb);
            goto done;
        }
    }
    /* backend */
    {
        static const aicf_backend req[3] = {AICF_BACKEND_DEFAULT, AICF_BACKEND_CPU, AICF_BACKEND_CUDA};
        int found = 0;
        for (i = 0; i < 3 && !found; i++)
            for (j = 1; j < 3 && !found; j++) {
                char bb[96];
                aicf__sbuf b;
                aicf__sbuf_init(&b, bb, sizeof bb);
                aicf__io_line_backend(&b, req[i], req[j]);
                if (strlen(bb) == hdr_n[H_BACKEND] + 1 && memcmp(bb, hdr[H_BACKEND], hdr_n[H_BACKEND]) == 0) {
                    requested = req[i];
                    target = req[j];
                    found = 1;
                }
            }
        if (!found || (requested == AICF_BACKEND_CPU && target != AICF_BACKEND_CPU) ||
            (requested == AICF_BACKEND_CUDA && target != AICF_BACKEND_CUDA)) {
            r = aicf__io_bad(&L, hdr_ln[H_BACKEND], "expected 'backend requested=default|cpu|cuda target=cpu|cuda'", hdr[H_BACKEND],
                             hdr_n[H_BACKEND]);
            goto done;
        }
    }
    /* device and cuBLASLt */
    if (target == AICF_BACKEND_CUDA) {
        char dbuf[600], lbuf[64];
        aicf__sbuf dev, lt;
        aicf__sbuf_init(&dev, dbuf, sizeof dbuf);
        aicf__sbuf_init(&lt, lbuf, sizeof lbuf);
        r = aicf__io_line_device(ctx, target, &dev, &lt);
        if (r != AICF_SUCCESS) {
            char msg[AICF__ERR_CAP];
            snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line %d: the plan is for the CUDA device '%s', but this context has none: %.400s",
                          fn, hdr_ln[H_DEVICE], aicf__io_show(hdr[H_DEVICE], hdr_n[H_DEVICE], 120, show, sizeof show), msg);
            goto done;
        }
        if (strlen(dbuf) != hdr_n[H_DEVICE] + 1 || memcmp(dbuf, hdr[H_DEVICE], hdr_n[H_DEVICE]) != 0) {
            dbuf[strlen(dbuf) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the plan was made for another device or SM: the file has '%s', this device is '%s'", fn,
                          hdr_ln[H_DEVICE], aicf__io_show(hdr[H_DEVICE], hdr_n[H_DEVICE], 140, show, sizeof show),
                          aicf__io_show(dbuf, strlen(dbuf), 140, show2, sizeof show2));
            goto done;
        }
        if (!hdr[H_CUBLASLT]) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: a CUDA plan needs a 'cublaslt' line before the 'plan' line", fn);
            goto done;
        }
        if (strlen(lbuf) != hdr_n[H_CUBLASLT] + 1 || memcmp(lbuf, hdr[H_CUBLASLT], hdr_n[H_CUBLASLT]) != 0) {
            lbuf[strlen(lbuf) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line %d: the plan was made with another cuBLASLt: the file has '%s', here '%s'",
                          fn, hdr_ln[H_CUBLASLT], aicf__io_show(hdr[H_CUBLASLT], hdr_n[H_CUBLASLT], 100, show, sizeof show), lbuf);
            goto done;
        }
    } else if (!aicf__io_word(hdr[H_DEVICE], hdr_n[H_DEVICE], "device cpu")) {
        r = aicf__io_bad(&L, hdr_ln[H_DEVICE], "a CPU plan's device line is 'device cpu'", hdr[H_DEVICE], hdr_n[H_DEVICE]);
        goto done;
    }
    /* the graph */
    {
        char mb[64];
        aicf__sbuf b;
        uint64_t fp = aicf__graph_fingerprint(graph);
        aicf__sbuf_init(&b, mb, sizeof mb);
        aicf__io_line_model(&b, fp);
        if (strlen(mb) != hdr_n[H_MODEL] + 1 || memcmp(mb, hdr[H_MODEL], hdr_n[H_MODEL]) != 0) {
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the graph is not the one the plan was made for (another model, other weights, other dim "
                          "bindings or bound inputs): the file has '%s', this graph 'model fingerprint=%016llx'", fn, hdr_ln[H_MODEL],
                          aicf__io_show(hdr[H_MODEL], hdr_n[H_MODEL], 80, show, sizeof show), (unsigned long long)fp);
            goto done;
        }
    }
    /* the recorded cuBLASLt algorithms, each with its descriptor */
    if (L.n_mm > 0) {
        saved.v = (aicf__saved_algo*)aicf__calloc(ctx, (size_t)L.n_mm, sizeof *saved.v);
        if (!saved.v) {
            r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
            goto done;
        }
        for (i = 0; i < L.n_mm; i++) {
            const aicf__io_al* a = NULL;
            for (j = 0; j < L.n_al && !a; j++)
                if (L.al[j].step == L.mm[i].step && L.al[j].index == L.mm[i].algo) a = &L.al[j];
            if (!a) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: the matmul uses algorithm %d, which step %d does not record", fn,
                              L.mm[i].line, L.mm[i].algo, L.mm[i].step);
                goto done;
            }
            saved.v[saved.n].step = L.mm[i].step;
            saved.v[saved.n].desc = L.mm[i].desc;
            saved.v[saved.n].rec = a->rec;
            saved.v[saved.n].line = a->line;
            saved.n++;
        }
    }
    /* re-plan with the file's policy and algorithms */
    memset(&pd, 0, sizeof pd);
    pd.backend = requested;
    pd.policy = pol;
    choices.v = L.ch;
    choices.n = L.n_ch;
    r = aicf__plan_create_ex(graph, &pd, saved.n ? &saved : NULL, &choices, &p);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
        r = aicf__err(ctx, r, "%s: planning with the file's policy failed: %.900s", fn, msg);
        goto done;
    }
    /* the rebuilt plan must be the file */
    {
        char* text = NULL;
        size_t len = 0;
        const char *la = NULL, *lb = NULL;
        size_t lan = 0, lbn = 0;
        int d;
        r = aicf__io_render(p, aicf_plan_serialize, &text, &len);
        if (r != AICF_SUCCESS) goto done;
        d = aicf__io_first_diff(data, size, text, len, &la, &lan, &lb, &lbn);
        if (d) {
            char note[400];
            note[0] = 0;
            for (i = 0; i < saved.n; i++)
                if (saved.v[i].refused[0]) {
                    snprintf(note, sizeof note, "; the cuBLASLt algorithm of line %d was refused: %.300s", saved.v[i].line,
                             saved.v[i].refused);
                    break;
                }
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d differs from the plan rebuilt from the file's policy and cuBLASLt algorithms on this graph, build "
                          "and device: the file has '%s', the rebuilt plan '%s'%s",
                          fn, d, la ? aicf__io_show(la, lan, 150, show, sizeof show) : "(end of file)",
                          lb ? aicf__io_show(lb, lbn, 150, show2, sizeof show2) : "(end of plan)", note);
        }
        aicf__free(ctx, text);
    }
done:
    aicf__free(ctx, L.mm);
    aicf__free(ctx, L.al);
    aicf__free(ctx, L.ch);
    aicf__free(ctx, saved.v);
    if (r != AICF_SUCCESS) {
        aicf_plan_destroy(p);
        return r;
    }
    *out = p;
    return AICF_SUCCESS;
}

aicf_result aicf_plan_load_memory(aicf_graph* graph, const void* data, size_t size, aicf_plan** out) {
    if (out) *out = NULL;
    if (!graph || !out || (!data && size)) return AICF_ERROR_INVALID_ARGUMENT;
    return aicf__io_load(graph, "aicf_plan_load_memory", data ? (const char*)data : "", size, out);
}

aicf_result aicf_plan_load(aicf_graph* graph, const char* path, aicf_plan** out) {
    char* data = NULL;
    size_t size = 0;
    aicf_result r;
    if (out) *out = NULL;
    if (!graph || !path || !out) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_read(graph->ctx, "aicf_plan_load", path, AICF__IO_MAX_FILE, &data, &size);
    if (r != AICF_SUCCESS) return r;
    r = aicf__io_load(graph, "aicf_plan_load", data, size, out);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(graph->ctx));
        aicf__err(graph->ctx, r, "%.200s: %s", path, msg);
    }
    aicf__free(graph->ctx, data);
    return r;
}

/* ---- explain ---- */
static const char* aicf__io_bytes(double v, char* buf, size_t cap) {
    if (v >= 1073741824.0) snprintf(buf, cap, "%.1f GiB", v / 1073741824.0);
    else if (v >= 1048576.0) snprintf(buf, cap, "%.1f MiB", v / 1048576.0);
    else if (v >= 1024.0) snprintf(buf, cap, "%.1f KiB", v / 1024.0);
    else snprintf(buf, cap, "%.0f B", v);
    return buf;
}

static void aicf__io_tensor_brief(aicf__sbuf* b, const aicf_plan* p, int t) {
    char sh[200];
    const aicf__tensor* tt = &p->g->tensors[t];
    const aicf__loc* l = &p->loc[t];
    aicf__sbuf_printf(b, "'%s' %s %s", aicf__tname(p->g, t), aicf__io_shape(&tt->shape, sh, sizeof sh), aicf_dtype_name(l->sdtype));
    if (l->space != AICF__SPACE_NONE) aicf__sbuf_printf(b, " @%s+%zu (%zu B)", aicf__io_space_name(l->space), l->offset, l->bytes);
    if (l->alias_of >= 0) aicf__sbuf_printf(b, " alias of '%s'", aicf__tname(p->g, l->alias_of));
}

aicf_result aicf_plan_explain(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_plan_stats stats;
    const aicf_graph* g;
    int i, j, k;
    size_t scratch = 0;
    uint64_t ws = 0;
    char t1[32], t2[32];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    aicf__sbuf_init(&b, buf, cap);
    aicf_plan_stats_get(p, &stats);
    aicf__sbuf_printf(&b, "plan: backend %s (requested %s), precision %s, %d nodes, %d steps\n", aicf__io_backend_name(p->target),
                      aicf__io_backend_name(p->requested), aicf__precision_name(p->policy.precision), stats.num_nodes, stats.num_steps);
    {
        int n_pins = 0;
        for (i = 0; i < AICF_MAX_PINS; i++) n_pins += p->policy.pins[i].node[0] != 0;
        aicf__sbuf_printf(&b, "policy: fusion %s%s, conv_algo %s, matmul_algo %s, cuBLASLt workspace limit %s, CPU fallback %s, autotune %s, "
                          "%d pinned nodes%s%s\n",
                          p->policy.no_fusion ? "off" : "on", p->policy.persistent ? " (persistent GEMM layers)" : "",
                          aicf__io_conv_algos[(unsigned)p->policy.conv_algo % 4u], aicf__io_matmul_algos[(unsigned)p->policy.matmul_algo % 3u],
                          p->policy.workspace_limit ? aicf__io_bytes((double)p->policy.workspace_limit, t1, sizeof t1) : "32 MiB (default)",
                          p->policy.allow_cpu_fallback ? "allowed" : "not allowed",
                          !p->policy.autotune ? "off" : (p->target == AICF_BACKEND_CUDA ? "on" : "on (no effect on the CPU backend)"), n_pins,
                          p->policy.no_pdl ? ", no programmatic launches" : "",
                          p->policy.gelu_tanh ? ", Gelu's erf form may run as its tanh form (gelu_tanh)" : "");
    }
    if (p->target == AICF_BACKEND_CUDA) {
        aicf_device_info di;
        if (aicf_context_device_info(p->ctx, &di) == AICF_SUCCESS) {
            aicf__sbuf_printf(&b, "device: %s, sm_%d%d, ", di.name, di.cc_major, di.cc_minor);
            if (di.cublaslt_available) aicf__sbuf_printf(&b, "cuBLASLt %llu\n", (unsigned long long)di.cublaslt_version);
            else aicf__sbuf_printf(&b, "no cuBLASLt (GEMMs on generated kernels)\n");
        }
    }
    for (i = 0; i < p->n_in; i++) {
        aicf__sbuf_printf(&b, "input %d: ", i);
        aicf__io_tensor_brief(&b, p, p->in_boundary[i]);
        aicf__sbuf_put(&b, "\n", 1);
    }
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        int n_ops, n_algo = 0;
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes)
            aicf__sbuf_printf(&b, "step %d: %s '%s' (node %d)\n", i, g->nodes[st->node].op_type, g->nodes[st->node].name, st->node);
        else
            aicf__sbuf_printf(&b, "step %d: Cast at the API boundary (float32 <-> storage type)\n", i);
        if (st->n_epi > 0) {
            aicf__sbuf_printf(&b, "  fused nodes (%d, applied to the result in order):", st->n_epi);
            for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
                const aicf__epi* e = &st->epi[j];
                aicf__sbuf_printf(&b, "%s %s '%s'", j ? ";" : "", g->nodes[e->node].op_type, g->nodes[e->node].name);
                if (e->operand >= 0) aicf__sbuf_printf(&b, " with '%s'%s", aicf__tname(g, e->operand), e->operand_left ? " (left)" : "");
                aicf__gelu_replaced(&b, g, e->node);
            }
            if (st->epi_native) aicf__sbuf_printf(&b, "; the first %d inside the main kernel", st->epi_native);
            aicf__sbuf_put(&b, "\n", 1);
        }
        if (st->kind == AICF__STEP_NODE && st->pro > 0 && st->pro <= g->n_nodes) {
            const aicf__node* ln = &g->nodes[st->pro - 1];
            aicf__sbuf_printf(&b, "  prologue: LayerNormalization '%s' (node %d) absorbed, run first on input 0 '%s' (epsilon %.9g)%s; %s\n",
                              ln->name, st->pro - 1, aicf__tname(g, st->in[0]), (double)aicf__attr_f(ln, "epsilon", 1e-5f),
                              st->n_out > 1 && st->out[1] >= 0 ? ", its output kept as output 1 for its other readers" : ", its output not stored",
                              p->target == AICF_BACKEND_CUDA ? "folded into the GEMM: W' = Scale (.) W and the column terms c1, c2 are plan "
                                                                "constants, the rows' mean and rstd come from the GEMM's resident slabs"
                                                              : "the CPU reference runs it, then the MatMul, as the unfused plan does");
        }
        if (st->kind == AICF__STEP_NODE && st->post > 0 && st->post <= g->n_nodes) {
            const aicf__node* ln = &g->nodes[st->post - 1];
            aicf__sbuf_printf(&b, "  epilogue: LayerNormalization '%s' (node %d) fused after the chain (epsilon %.9g), writing '%s'; the sum it "
                              "normalises is never stored; %s\n",
                              ln->name, st->post - 1, (double)aicf__attr_f(ln, "epsilon", 1e-5f), aicf__tname(g, st->out[0]),
                              p->target == AICF_BACKEND_CUDA ? "one kernel: clusters of CTAs own whole rows and merge the rows' statistics "
                                                                "in distributed shared memory"
                                                              : "the CPU reference runs it in place after the MatMul, as the unfused plan does");
        }
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes && g->nodes[st->node].op == AICF__OP_Gelu &&
            g->nodes[st->node].n_fused > 0) {
            aicf__sbuf_printf(&b, "  Gelu");
            aicf__gelu_replaced(&b, g, st->node);
            aicf__sbuf_put(&b, "\n", 1);
        }
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes && g->nodes[st->node].n_fused > 0 &&
            g->nodes[st->node].op == AICF__OP_Attention) {
            const aicf__node* an = &g->nodes[st->node];
            aicf__sbuf_printf(&b, "  attention fused (one step, the scores never stored), replacing:");
            for (j = 0; j < an->n_fused && j < AICF__NODE_FUSED_MAX; j++)
                aicf__sbuf_printf(&b, "%s %s '%s'", j ? ";" : "", g->nodes[an->fused[j]].op_type, g->nodes[an->fused[j]].name);
            aicf__sbuf_printf(&b, "; and MatMul '%s' (this step); scale %.9g%s\n", an->name, (double)aicf__attr_f(an, "scale", 0.0f),
                              an->n_in > 3 && an->in[3] >= 0 ? ", mask added" : "");
            for (j = 0; an->views && j < 4; j++) {
                const aicf__view* v = &an->views->v[j];
                if (v->base < 0) continue;
                aicf__sbuf_printf(&b, "  %s %s as a strided view of '%s' (offset %lld, strides %lld,%lld,%lld,%lld elements): its layout "
                                  "nodes absorbed, not run\n", j == 0 ? "Q" : j == 1 ? "K" : j == 2 ? "V" : "output",
                                  j < 3 ? "read" : "written", aicf__tname(g, v->base), (long long)v->off, (long long)v->st[0],
                                  (long long)v->st[1], (long long)v->st[2], (long long)v->st[3]);
            }
        }
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes && g->nodes[st->node].trans_b > 0 &&
            g->nodes[st->node].trans_b <= g->n_nodes)
            aicf__sbuf_printf(&b, "  input 1 read with its last two axes swapped: Transpose '%s' (node %d) absorbed, not run\n",
                              g->nodes[g->nodes[st->node].trans_b - 1].name, g->nodes[st->node].trans_b - 1);
        for (j = 0; j < st->n_out; j++) {
            if (st->out[j] < 0) continue;
            aicf__sbuf_printf(&b, "  output %d: ", j);
            aicf__io_tensor_brief(&b, p, st->out[j]);
            aicf__sbuf_put(&b, "\n", 1);
        }
        aicf__sbuf_printf(&b, "  kernel: %s", st->kernel);
        if (st->block[0])
            aicf__sbuf_printf(&b, " grid(%u,%u,%u) block(%u,%u,%u) shared %u B", st->grid[0], st->grid[1], st->grid[2], st->block[0],
                              st->block[1], st->block[2], st->shared_bytes);
        if (st->scratch_bytes) {
            aicf__sbuf_printf(&b, ", arena scratch %s at +%zu", aicf__io_bytes((double)st->scratch_bytes, t1, sizeof t1), st->scratch_offset);
            scratch += st->scratch_bytes;
        }
        aicf__sbuf_put(&b, "\n", 1);
        n_ops = aicf__cuda_step_ops(p, i, &n_algo);
        if (n_ops > 1 || n_algo > 0)
            for (k = 0; k < n_ops; k++) {
                aicf__cuda_op_view v;
                aicf__cuda_step_op(p, i, k, &v);
                if (v.kind == 1) {
                    aicf__sbuf_printf(&b, "    launch %d: %s grid(%u,%u,%u) block(%u,%u,%u)", k + 1, v.kernel_name, v.grid[0], v.grid[1],
                                      v.grid[2], v.block[0], v.block[1], v.block[2]);
                    if (v.shared_bytes) aicf__sbuf_printf(&b, " shared %u B", v.shared_bytes);
                } else if (v.kind == 2) {
                    aicf__sbuf_printf(&b, "    launch %d: device-to-device copy of %s", k + 1,
                                      aicf__io_bytes((double)v.copy_bytes, t1, sizeof t1));
                } else {
                    aicf__matmul_desc md;
                    aicf__algo_rec a;
                    memset(&md, 0, sizeof md);
                    if (v.args_size == sizeof md) memcpy(&md, v.args, sizeof md);
                    aicf__cuda_step_algo(p, i, v.algo, &a);
                    aicf__sbuf_printf(&b,
                                      "    launch %d: cuBLASLt matmul M=%lld N=%lld K=%lld batch=%lld %s%s%s%s%s, algorithm #%d of %d "
                                      "heuristic results, workspace %s, alignments A/B/C/D %u/%u/%u/%u B",
                                      k + 1, (long long)md.M, (long long)md.N, (long long)md.K, (long long)md.batch,
                                      aicf_dtype_name(md.dtype), md.out_f32 ? " -> float32" : "", md.tf32 ? " tf32" : "", md.bias ? " +bias" : "",
                                      md.act == AICF__MM_ACT_RELU ? " relu" : (md.act == AICF__MM_ACT_GELU_TANH ? " gelu (tanh form)" : ""),
                                      a.index, a.n_results, aicf__io_bytes((double)a.workspace_bytes, t2, sizeof t2), a.align[0], a.align[1],
                                      a.align[2], a.align[3]);
                    if (a.workspace_bytes > ws) ws = a.workspace_bytes;
                }
                aicf__sbuf_put(&b, "\n", 1);
            }
        aicf__sbuf_printf(&b, "  why: %s\n", st->reason);
        for (k = 0; k < n_ops; k++) { /* programmatic launches (src/81_cuda_ops.c aicf__cuda_pdl) */
            aicf__cuda_op_view v;
            aicf__cuda_step_op(p, i, k, &v);
            if (!v.pdl) continue;
            if (k > 0) {
                aicf__sbuf_printf(&b, "  launch %d: programmatic (PDL) after launch %d", k + 1, k);
            } else {
                for (j = i - 1; j > 0 && aicf__cuda_step_ops(p, j, NULL) == 0; j--) {}
                aicf__sbuf_printf(&b, "  launch: programmatic (PDL) after step %d's kernel", j);
            }
            if (v.prefetch) {
                aicf__sbuf_printf(&b, ": the kernel fetches its constant weights before griddepcontrol.wait, so its launch and weight "
                                  "reads overlap that kernel (policy no_pdl = 1 turns it off)\n");
                continue;
            }
            aicf__sbuf_printf(&b, ": it waits (griddepcontrol.wait) before it touches memory, so its launch overlaps that kernel's tail "
                              "and memory flush (policy no_pdl = 1 turns it off)\n");
        }
        if (st->choice != AICF_CHOICE_RULE || st->choice_src == AICF__CHOICE_FROM_TUNE) {
            aicf__sbuf_printf(&b, "  choice: %s%s%.0d (%s)", aicf__choice_name(st->choice), st->choice_lt ? "/" : "", st->choice_lt,
                              st->choice_src == AICF__CHOICE_FROM_PIN ? "pinned by the policy" : "autotuned: fastest measured");
            if (st->n_tuned > 0) {
                aicf__sbuf_printf(&b, "; candidates, device time per run in us:");
                for (j = 0; j < st->n_tuned && j < AICF__TUNE_MAX; j++) aicf__io_tuned(&b, &st->tuned[j]);
            }
            aicf__sbuf_put(&b, "\n", 1);
        }
    }
    for (i = 0; i < p->n_out; i++) {
        aicf__sbuf_printf(&b, "output %d: ", i);
        if (aicf__is_const(g, p->out_boundary[i])) aicf__sbuf_printf(&b, "'%s' (a constant, folded at plan time)", aicf__tname(g, p->out_tensor[i]));
        else aicf__io_tensor_brief(&b, p, p->out_boundary[i]);
        aicf__sbuf_put(&b, "\n", 1);
    }
    aicf__sbuf_printf(&b, "memory: arena %zu B (%s), lower bound %zu B (ratio %.3f, %s, %s), weights %zu B (%s)", p->arena_bytes,
                      aicf__io_bytes((double)p->arena_bytes, t1, sizeof t1), p->arena_lower_bound,
                      p->arena_lower_bound ? (double)p->arena_bytes / (double)p->arena_lower_bound : 1.0,
                      p->mem_order >= 0 && p->mem_order / 2 <= AICF__MEM_ORDERS ? aicf__mem_order_names[p->mem_order / 2] : "?",
                      p->mem_order % 2 ? "best fit" : "lowest offset", p->weights_bytes,
                      aicf__io_bytes((double)p->weights_bytes, t2, sizeof t2));
    if (scratch) aicf__sbuf_printf(&b, "; step scratch %s in the arena", aicf__io_bytes((double)scratch, t1, sizeof t1));
    if (ws) aicf__sbuf_printf(&b, "; cuBLASLt workspace %s", aicf__io_bytes((double)ws, t1, sizeof t1));
    aicf__sbuf_put(&b, "\n", 1);
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

/* ---- Graphviz DOT ---- */

/* s inside a DOT quoted string: '"' and '\' escaped, control bytes dropped. */
static void aicf__io_dotstr(aicf__sbuf* b, const char* s) {
    const unsigned char* p = (const unsigned char*)(s ? s : "");
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2];
            e[0] = '\\';
            e[1] = (char)*p;
            aicf__sbuf_put(b, e, 2);
        } else if (*p >= 0x20 && *p != 0x7f) {
            aicf__sbuf_put(b, (const char*)p, 1);
        }
    }
}

/* DOT node of the value tensor t: "in3", "s4" or "s4_2" (the last fused node), or NULL. */
static void aicf__io_dot_src(const aicf_plan* p, const int* prod, int t, char* id, size_t cap) {
    int s = t >= 0 ? prod[t] : -1;
    id[0] = 0;
    if (s <= -2) snprintf(id, cap, "in%d", -s - 2);
    else if (s >= 0 && p->steps[s].n_epi > 0 && p->steps[s].out[0] == t) snprintf(id, cap, "s%d_%d", s, p->steps[s].n_epi);
    else if (s >= 0) snprintf(id, cap, "s%d", s);
}

static void aicf__io_dot_edge(aicf__sbuf* b, const aicf_plan* p, const int* prod, int t, const char* to) {
    char from[32], sh[200];
    if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) return; /* weights and constants: not drawn */
    aicf__io_dot_src(p, prod, t, from, sizeof from);
    if (!from[0]) return;
    aicf__sbuf_printf(b, "  %s -> %s [label=\"", from, to);
    aicf__io_dotstr(b, aicf__tname(p->g, t));
    aicf__sbuf_printf(b, "\\n%s\"];\n", aicf__io_shape(&p->g->tensors[t].shape, sh, sizeof sh));
}

aicf_result aicf_plan_dot(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    const aicf_graph* g;
    int *prod, i, j;
    char sh[200], id[32];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    prod = (int*)aicf__malloc(p->ctx, ((size_t)g->n_tensors + 1) * sizeof(int));
    if (!prod) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_dot: out of memory");
    for (i = 0; i < g->n_tensors; i++) prod[i] = -1;
    for (i = 0; i < p->n_in; i++) prod[p->in_boundary[i]] = -2 - i; /* the caller writes it */
    for (i = 0; i < p->n_steps; i++)
        for (j = 0; j < p->steps[i].n_out; j++)
            if (p->steps[i].out[j] >= 0) prod[p->steps[i].out[j]] = i;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "digraph aicf_plan {\n  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10];\n"
                          "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
                          "  edge [fontname=\"Helvetica\", fontsize=8];\n");
    for (i = 0; i < p->n_in; i++) {
        int t = p->in_boundary[i];
        aicf__sbuf_printf(&b, "  in%d [shape=ellipse, label=\"input %d\\n", i, i);
        aicf__io_dotstr(&b, aicf__tname(g, t));
        aicf__sbuf_printf(&b, "\\n%s %s\"];\n", aicf_dtype_name(g->tensors[t].dtype), aicf__io_shape(&g->tensors[t].shape, sh, sizeof sh));
    }
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        int nf = st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes ? g->nodes[st->node].n_fused : 0;
        const char* ind = st->n_epi > 0 || nf > 0 ? "    " : "  ";
        if (st->n_epi > 0 || nf > 0) aicf__sbuf_printf(&b, "  subgraph cluster_%d {\n    label=\"step %d: fused\";\n    style=dashed;\n", i, i);
        /* nodes an Attention node replaced (aicf__fuse_attention): a dashed chain into the step */
        for (j = 0; j < nf && j < AICF__NODE_FUSED_MAX; j++) {
            const aicf__node* en = &g->nodes[g->nodes[st->node].fused[j]];
            aicf__sbuf_printf(&b, "    s%d_r%d [label=\"", i, j);
            aicf__io_dotstr(&b, en->op_type);
            aicf__sbuf_put(&b, "\\n", 2);
            aicf__io_dotstr(&b, en->name);
            aicf__sbuf_printf(&b, "\", style=\"rounded,dashed\"];\n");
            if (j) aicf__sbuf_printf(&b, "    s%d_r%d -> s%d_r%d [style=dashed];\n", i, j - 1, i, j);
        }
        if (nf > 0) aicf__sbuf_printf(&b, "    s%d_r%d -> s%d [style=dashed];\n", i, (nf > AICF__NODE_FUSED_MAX ? AICF__NODE_FUSED_MAX : nf) - 1, i);
        aicf__sbuf_printf(&b, "%ss%d [label=\"%d: ", ind, i, i);
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes) {
            aicf__io_dotstr(&b, g->nodes[st->node].op_type);
            aicf__sbuf_put(&b, "\\n", 2);
            aicf__io_dotstr(&b, g->nodes[st->node].name);
        } else {
            aicf__sbuf_put(&b, "Cast (boundary)", 15);
        }
        aicf__sbuf_put(&b, "\\n", 2);
        aicf__io_dotstr(&b, st->kernel);
        /* steps that launch nothing (an alias of their input, an empty output) are dotted */
        aicf__sbuf_printf(&b, "\"%s];\n", (strcmp(st->kernel, "alias") == 0 || strcmp(st->kernel, "empty") == 0) ? ", style=\"rounded,dotted\"" : "");
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            const aicf__node* en = &g->nodes[st->epi[j].node];
            aicf__sbuf_printf(&b, "    s%d_%d [label=\"", i, j + 1);
            aicf__io_dotstr(&b, en->op_type);
            aicf__sbuf_put(&b, "\\n", 2);
            aicf__io_dotstr(&b, en->name);
            if (j) aicf__sbuf_printf(&b, "\"];\n    s%d_%d -> s%d_%d [style=dashed];\n", i, j, i, j + 1);
            else aicf__sbuf_printf(&b, "\"];\n    s%d -> s%d_1 [style=dashed];\n", i, i);
        }
        if (st->n_epi > 0 || nf > 0) aicf__sbuf_printf(&b, "  }\n");
    }
    /* data edges: after every node exists */
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        snprintf(id, sizeof id, "s%d", i);
        for (j = 0; j < st->n_in; j++) aicf__io_dot_edge(&b, p, prod, st->in[j], id);
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            snprintf(id, sizeof id, "s%d_%d", i, j + 1);
            aicf__io_dot_edge(&b, p, prod, st->epi[j].operand, id);
        }
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i];
        aicf__sbuf_printf(&b, "  out%d [shape=ellipse, label=\"output %d\\n", i, i);
        aicf__io_dotstr(&b, aicf__tname(g, p->out_tensor[i]));
        aicf__sbuf_printf(&b, "\\n%s\"];\n", aicf__io_shape(&g->tensors[t].shape, sh, sizeof sh));
        snprintf(id, sizeof id, "out%d", i);
        aicf__io_dot_edge(&b, p, prod, t, id);
    }
    aicf__sbuf_printf(&b, "}\n");
    aicf__free(p->ctx, prod);
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}
