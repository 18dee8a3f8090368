/* >>onnx =================================================================================== */
/* The ONNX reader: a bounds-checked protobuf wire-format decoder (no protobuf library) and the
   translation of a ModelProto into the public graph builder, plus TensorProto (.pb) files.

   Wire format (https://protobuf.dev/programming-guides/encoding/): every field is a varint key
   (field_number << 3 | wire_type) followed by a varint (wire type 0), 8 little-endian bytes (1),
   a varint length and that many bytes (2), or 4 little-endian bytes (5). Groups (3, 4) and the
   wire types 6 and 7 are errors; unknown fields are skipped. Varints are at most 10 bytes.
   Field numbers are those of onnx/onnx.proto (IR version 10+). Every byte range is checked
   against its enclosing message; errors name the message path, the field and the byte offset:
       onnx: GraphProto.node[12].attribute[3] (AttributeProto.ints): truncated varint at byte 81234
   The reader assumes a little-endian host (raw_data is little-endian).
   GRAPH attributes (If's branches, Loop's and Scan's body) are read recursively into subgraphs
   owned by the node's attribute, at most AICF_MAX_SUBGRAPH_DEPTH levels deep (AICF_ERROR_LIMIT
   beyond); a subgraph's nodes may read names of enclosing graphs (outer references), its inputs
   may leave type and shape open, and errors inside it name the path through the attributes:
       onnx: GraphProto.node[3].attribute[0].g.node[5]: node 5 'x' (Foo): unsupported op type */

#include <errno.h>
#include <limits.h>
#if !defined(AICF_NO_MMAP) && (defined(__unix__) || defined(__APPLE__))
#  define AICF__ONNX_MMAP 1
#  include <fcntl.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#  include <unistd.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define AICF__ONNX_FMT(a, b) __attribute__((format(printf, a, b)))
#else
#  define AICF__ONNX_FMT(a, b)
#endif

/* ---- message definitions (field number, wire type, repeated scalar that may be packed) ---- */
#define AICF__PB_VARINT 0
#define AICF__PB_I64 1
#define AICF__PB_LEN 2
#define AICF__PB_I32 5

typedef struct aicf__pb_fdef {
    uint32_t num;
    int wt;       /* expected wire type */
    int packable; /* 1: repeated scalar, also accepted packed (wire type 2) */
    const char* name;
} aicf__pb_fdef;

typedef struct aicf__pb_mdef {
    const char* name;
    const aicf__pb_fdef* fields;
    int n_fields;
} aicf__pb_mdef;

#define AICF__PB_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const aicf__pb_fdef aicf__pbf_model[] = {
    {1, 0, 0, "ir_version"}, {2, 2, 0, "producer_name"}, {3, 2, 0, "producer_version"},
    {4, 2, 0, "domain"}, {5, 0, 0, "model_version"}, {6, 2, 0, "doc_string"}, {7, 2, 0, "graph"},
    {8, 2, 0, "opset_import"}, {14, 2, 0, "metadata_props"}, {20, 2, 0, "training_info"},
    {25, 2, 0, "functions"}, {26, 2, 0, "configuration"}};
static const aicf__pb_fdef aicf__pbf_opset[] = {{1, 2, 0, "domain"}, {2, 0, 0, "version"}};
static const aicf__pb_fdef aicf__pbf_graph[] = {
    {1, 2, 0, "node"}, {2, 2, 0, "name"}, {5, 2, 0, "initializer"}, {10, 2, 0, "doc_string"},
    {11, 2, 0, "input"}, {12, 2, 0, "output"}, {13, 2, 0, "value_info"},
    {14, 2, 0, "quantization_annotation"}, {15, 2, 0, "sparse_initializer"},
    {16, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_node[] = {
    {1, 2, 0, "input"}, {2, 2, 0, "output"}, {3, 2, 0, "name"}, {4, 2, 0, "op_type"},
    {5, 2, 0, "attribute"}, {6, 2, 0, "doc_string"}, {7, 2, 0, "domain"}, {8, 2, 0, "overload"},
    {9, 2, 0, "metadata_props"}, {10, 2, 0, "device_configurations"}};
static const aicf__pb_fdef aicf__pbf_attr[] = {
    {1, 2, 0, "name"}, {2, 5, 0, "f"}, {3, 0, 0, "i"}, {4, 2, 0, "s"}, {5, 2, 0, "t"},
    {6, 2, 0, "g"}, {7, 5, 1, "floats"}, {8, 0, 1, "ints"}, {9, 2, 0, "strings"},
    {10, 2, 0, "tensors"}, {11, 2, 0, "graphs"}, {13, 2, 0, "doc_string"}, {14, 2, 0, "tp"},
    {15, 2, 0, "type_protos"}, {20, 0, 0, "type"}, {21, 2, 0, "ref_attr_name"},
    {22, 2, 0, "sparse_tensor"}, {23, 2, 0, "sparse_tensors"}};
static const aicf__pb_fdef aicf__pbf_tensor[] = {
    {1, 0, 1, "dims"}, {2, 0, 0, "data_type"}, {3, 2, 0, "segment"}, {4, 5, 1, "float_data"},
    {5, 0, 1, "int32_data"}, {6, 2, 0, "string_data"}, {7, 0, 1, "int64_data"}, {8, 2, 0, "name"},
    {9, 2, 0, "raw_data"}, {10, 1, 1, "double_data"}, {11, 0, 1, "uint64_data"},
    {12, 2, 0, "doc_string"}, {13, 2, 0, "external_data"}, {14, 0, 0, "data_location"},
    {16, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_entry[] = {{1, 2, 0, "key"}, {2, 2, 0, "value"}};
static const aicf__pb_fdef aicf__pbf_vi[] = {
    {1, 2, 0, "name"}, {2, 2, 0, "type"}, {3, 2, 0, "doc_string"}, {4, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_type[] = {
    {1, 2, 0, "tensor_type"}, {4, 2, 0, "sequence_type"}, {5, 2, 0, "map_type"},
    {6, 2, 0, "denotation"}, {7, 2, 0, "opaque_type"}, {8, 2, 0, "sparse_tensor_type"},
    {9, 2, 0, "optional_type"}};
static const aicf__pb_fdef aicf__pbf_type_tensor[] = {{1, 0, 0, "elem_type"}, {2, 2, 0, "shape"}};
static const aicf__pb_fdef aicf__pbf_shape[] = {{1, 2, 0, "dim"}};
static const aicf__pb_fdef aicf__pbf_dim[] = {
    {1, 0, 0, "dim_value"}, {2, 2, 0, "dim_param"}, {3, 2, 0, "denotation"}};

static const aicf__pb_mdef aicf__pbm_model = {"ModelProto", aicf__pbf_model, AICF__PB_N(aicf__pbf_model)};
static const aicf__pb_mdef aicf__pbm_opset = {"OperatorSetIdProto", aicf__pbf_opset, AICF__PB_N(aicf__pbf_opset)};
static const aicf__pb_mdef aicf__pbm_graph = {"GraphProto", aicf__pbf_graph, AICF__PB_N(aicf__pbf_graph)};
static const aicf__pb_mdef aicf__pbm_node = {"NodeProto", aicf__pbf_node, AICF__PB_N(aicf__pbf_node)};
static const aicf__pb_mdef aicf__pbm_attr = {"AttributeProto", aicf__pbf_attr, AICF__PB_N(aicf__pbf_attr)};
static const aicf__pb_mdef aicf__pbm_tensor = {"TensorProto", aicf__pbf_tensor, AICF__PB_N(aicf__pbf_tensor)};
static const aicf__pb_mdef aicf__pbm_entry = {"StringStringEntryProto", aicf__pbf_entry, AICF__PB_N(aicf__pbf_entry)};
static const aicf__pb_mdef aicf__pbm_vi = {"ValueInfoProto", aicf__pbf_vi, AICF__PB_N(aicf__pbf_vi)};
static const aicf__pb_mdef aicf__pbm_type = {"TypeProto", aicf__pbf_type, AICF__PB_N(aicf__pbf_type)};
static const aicf__pb_mdef aicf__pbm_type_tensor = {"TypeProto.Tensor", aicf__pbf_type_tensor, AICF__PB_N(aicf__pbf_type_tensor)};
static const aicf__pb_mdef aicf__pbm_shape = {"TensorShapeProto", aicf__pbf_shape, AICF__PB_N(aicf__pbf_shape)};
static const aicf__pb_mdef aicf__pbm_dim = {"TensorShapeProto.Dimension", aicf__pbf_dim, AICF__PB_N(aicf__pbf_dim)};

static const char* const aicf__pb_wt_name[8] = {"varint", "fixed64", "length-delimited", "group start",
                                                "group end", "fixed32", "invalid", "invalid"};

/* ---- reader state ---- */
typedef struct aicf__onnx_tmp {
    struct aicf__onnx_tmp* next;
    uint64_t pad; /* keeps the payload 16-byte aligned on 64-bit hosts */
} aicf__onnx_tmp;

typedef struct aicf__onnx {
    aicf_context* ctx;
    const unsigned char* buf; /* the whole file */
    size_t size;
    const char* dir;          /* directory of the file, for external data; NULL: not allowed */
    char path[768];           /* message path, e.g. "GraphProto.node[12].attribute[3]" */
    size_t path_len;
    const char* msg;          /* message type being read */
    char field[48];           /* field being read ("" while reading a key) */
    aicf__onnx_tmp* tmp;      /* temporary allocations, freed per item */
    int depth;                /* subgraph nesting of the graph being read (0: the model's graph) */
    int64_t opset;            /* default-domain opset of the model (subgraphs inherit it) */
} aicf__onnx;

typedef struct aicf__pb {
    size_t pos, end; /* absolute byte offsets into aicf__onnx.buf */
} aicf__pb;

typedef struct aicf__pbf {
    uint32_t num;
    int wt;
    uint64_t v;        /* VARINT / I64 / I32 value */
    size_t off, len;   /* LEN payload */
    size_t at;         /* offset of the key */
    const aicf__pb_fdef* def;
} aicf__pbf;

static void aicf__onnx_set_path(aicf__onnx* o, const char* root)
{
    size_t n = strlen(root);
    if (n >= sizeof(o->path)) n = sizeof(o->path) - 1;
    memcpy(o->path, root, n);
    o->path[n] = 0;
    o->path_len = n;
}

static size_t aicf__onnx_push(aicf__onnx* o, const char* fmt, ...) AICF__ONNX_FMT(2, 3);
static size_t aicf__onnx_push(aicf__onnx* o, const char* fmt, ...)
{
    size_t old = o->path_len;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->path + old, sizeof(o->path) - old, fmt, ap);
    va_end(ap);
    o->path_len = strlen(o->path);
    return old;
}

static void aicf__onnx_pop(aicf__onnx* o, size_t old)
{
    o->path_len = old;
    o->path[old] = 0;
}

/* Error at the current path and field: "onnx: PATH (Message.field): TEXT". */
static aicf_result aicf__onnx_ferr(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_ferr(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return aicf__err(o->ctx, code, "onnx: %s (%s%s%s): %s", o->path, o->msg ? o->msg : "?",
                     o->field[0] ? "." : "", o->field, text);
}

/* Error at the current path: "onnx: PATH: TEXT". */
static aicf_result aicf__onnx_err(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_err(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return aicf__err(o->ctx, code, "onnx: %s: %s", o->path, text);
}

/* Error about a node: "onnx: node ..." in the model's graph, "onnx: PATH: node ..." inside a
   subgraph (whose node indices are local to it). */
static aicf_result aicf__onnx_nerr(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_nerr(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (o->depth > 0) return aicf__err(o->ctx, code, "onnx: %s: %s", o->path, text);
    return aicf__err(o->ctx, code, "onnx: %s", text);
}

static aicf_result aicf__onnx_oom(aicf__onnx* o, size_t bytes)
{
    return aicf__onnx_err(o, AICF_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", bytes);
}

/* Temporary allocation, freed by aicf__onnx_tmp_free (records the error on failure). */
static void* aicf__onnx_alloc(aicf__onnx* o, size_t bytes)
{
    size_t total;
    aicf__onnx_tmp* t;
    if (!aicf__add_size(sizeof(aicf__onnx_tmp), bytes ? bytes : 1, &total)) {
        aicf__onnx_oom(o, bytes);
        return NULL;
    }
    t = (aicf__onnx_tmp*)aicf__malloc(o->ctx, total);
    if (!t) {
        aicf__onnx_oom(o, bytes);
        return NULL;
    }
    t->next = o->tmp;
    o->tmp = t;
    return (void*)(t + 1);
}

static void* aicf__onnx_alloc_n(aicf__onnx* o, size_t count, size_t size)
{
    size_t bytes;
    if (!aicf__mul_size(count, size, &bytes)) {
        aicf__onnx_oom(o, (size_t)-1);
        return NULL;
    }
    return aicf__onnx_alloc(o, bytes);
}

static void aicf__onnx_tmp_free(aicf__onnx* o)
{
    while (o->tmp) {
        aicf__onnx_tmp* next = o->tmp->next;
        aicf__free(o->ctx, o->tmp);
        o->tmp = next;
    }
}

/* ---- wire format ---- */

/* Decodes a varint at *pos (< end). Returns 0 (ok), 1 (truncated) or 2 (longer than 10 bytes
   or over 64 bits). */
static int aicf__pb_varint(const unsigned char* b, size_t* pos, size_t end, uint64_t* out)
{
    uint64_t v = 0;
    size_t p = *pos;
    int i;
    for (i = 0; i < 10; ++i) {
        unsigned c;
        if (p >= end) return 1;
        c = b[p++];
        if (i == 9 && c > 1) return 2;
        v |= (uint64_t)(c & 0x7fu) << (7 * i);
        if (!(c & 0x80u)) {
            *pos = p;
            *out = v;
            return 0;
        }
    }
    return 2;
}

static aicf_result aicf__pb_varint_err(aicf__onnx* o, int e, size_t at)
{
    if (e == 1) return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "truncated varint at byte %zu", at);
    return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                           "overlong varint (more than 10 bytes or over 64 bits) at byte %zu", at);
}

static uint64_t aicf__pb_le(const unsigned char* p, int n)
{
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/* Reads the next field of message r (described by m). Returns 1 with the field in *f, 0 at the
   end of the message, or a negative aicf_result (error recorded). */
static int aicf__pb_next(aicf__onnx* o, aicf__pb* r, const aicf__pb_mdef* m, aicf__pbf* f)
{
    uint64_t key, len;
    size_t at;
    int e, i;
    const aicf__pb_fdef* def = NULL;
    if (r->pos >= r->end) return 0;
    o->msg = m->name;
    o->field[0] = 0;
    at = r->pos;
    e = aicf__pb_varint(o->buf, &r->pos, r->end, &key);
    if (e) return (int)aicf__pb_varint_err(o, e, at);
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffffu)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "invalid field number %llu at byte %zu",
                                    (unsigned long long)(key >> 3), at);
    f->num = (uint32_t)(key >> 3);
    f->wt = (int)(key & 7u);
    f->at = at;
    f->v = 0;
    f->off = f->len = 0;
    for (i = 0; i < m->n_fields; ++i)
        if (m->fields[i].num == f->num) def = &m->fields[i];
    f->def = def;
    if (def) snprintf(o->field, sizeof(o->field), "%s", def->name);
    else snprintf(o->field, sizeof(o->field), "field %u", (unsigned)f->num);
    if (f->wt == 3 || f->wt == 4)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "group (wire type %d) at byte %zu is not supported",
                                    f->wt, at);
    if (f->wt == 6 || f->wt == 7)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "invalid wire type %d at byte %zu", f->wt, at);
    if (def && f->wt != def->wt && !(def->packable && f->wt == AICF__PB_LEN))
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "wire type %d (%s) at byte %zu, expected %d (%s)",
                                    f->wt, aicf__pb_wt_name[f->wt], at, def->wt, aicf__pb_wt_name[def->wt]);
    switch (f->wt) {
    case AICF__PB_VARINT:
        at = r->pos;
        e = aicf__pb_varint(o->buf, &r->pos, r->end, &f->v);
        if (e) return (int)aicf__pb_varint_err(o, e, at);
        break;
    case AICF__PB_I64:
    case AICF__PB_I32: {
        int n = f->wt == AICF__PB_I64 ? 8 : 4;
        if (r->end - r->pos < (size_t)n)
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "truncated %s at byte %zu",
                                        aicf__pb_wt_name[f->wt], r->pos);
        f->v = aicf__pb_le(o->buf + r->pos, n);
        r->pos += (size_t)n;
        break;
    }
    default: /* AICF__PB_LEN */
        at = r->pos;
        e = aicf__pb_varint(o->buf, &r->pos, r->end, &len);
        if (e) return (int)aicf__pb_varint_err(o, e, at);
        if (len > (uint64_t)(r->end - r->pos))
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                                        "length %llu at byte %zu runs past the end of the enclosing message "
                                        "(%zu bytes left, message ends at byte %zu)",
                                        (unsigned long long)len, at, r->end - r->pos, r->end);
        f->off = r->pos;
        f->len = (size_t)len;
        r->pos += (size_t)len;
        break;
    }
    return 1;
}

/* Iterates the values of one occurrence of a repeated scalar field, packed or not. */
typedef struct aicf__pb_it {
    size_t pos, end;
    int wt;          /* element wire type */
    int single;      /* 1: one unpacked value pending, 2: done */
    uint64_t v;
    const char* msg; /* for errors */
    const char* fname;
} aicf__pb_it;

static void aicf__pb_it_init(aicf__onnx* o, aicf__pb_it* it, const aicf__pbf* f)
{
    it->msg = o->msg;
    it->fname = f->def ? f->def->name : "";
    if (f->wt == AICF__PB_LEN) {
        it->pos = f->off;
        it->end = f->off + f->len;
        it->wt = f->def ? f->def->wt : AICF__PB_VARINT;
        it->single = 0;
        it->v = 0;
    } else {
        it->pos = it->end = 0;
        it->wt = f->wt;
        it->single = 1;
        it->v = f->v;
    }
}

/* 1: value in *v; 0: no more values; negative aicf_result: error recorded. */
static int aicf__pb_it_next(aicf__onnx* o, aicf__pb_it* it, uint64_t* v)
{
    int e;
    size_t at;
    if (it->single) {
        if (it->single == 2) return 0;
        it->single = 2;
        *v = it->v;
        return 1;
    }
    if (it->pos >= it->end) return 0;
    at = it->pos;
    if (it->wt == AICF__PB_VARINT) {
        e = aicf__pb_varint(o->buf, &it->pos, it->end, v);
        if (e) {
            o->msg = it->msg;
            snprintf(o->field, sizeof(o->field), "%s", it->fname);
            return (int)aicf__pb_varint_err(o, e, at);
        }
        return 1;
    } else {
        int n = it->wt == AICF__PB_I64 ? 8 : 4;
        if (it->end - it->pos < (size_t)n) {
            o->msg = it->msg;
            snprintf(o->field, sizeof(o->field), "%s", it->fname);
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                                        "packed %s data ends with a partial value at byte %zu",
                                        aicf__pb_wt_name[it->wt], at);
        }
        *v = aicf__pb_le(o->buf + it->pos, n);
        it->pos += (size_t)n;
        return 1;
    }
}

/* Number of values in one occurrence of a repeated scalar field (validates them). */
static aicf_result aicf__pb_count(aicf__onnx* o, const aicf__pbf* f, size_t* count)
{
    aicf__pb_it it;
    uint64_t v = 0;
    int rc;
    aicf__pb_it_init(o, &it, f);
    while ((rc = aicf__pb_it_next(o, &it, &v)) > 0) ++*count;
    return (aicf_result)rc;
}

/* Copies a length-delimited field into a NUL-terminated temporary string. is_name: at most
   AICF_MAX_NAME bytes (else AICF_ERROR_LIMIT). A NUL byte inside is AICF_ERROR_INVALID_MODEL. */
static aicf_result aicf__onnx_str(aicf__onnx* o, const aicf__pbf* f, int is_name, char** out)
{
    const unsigned char* nul;
    char* s;
    *out = NULL;
    nul = (const unsigned char*)memchr(o->buf + f->off, 0, f->len);
    if (nul)
        return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "string contains a NUL byte at byte %zu",
                               (size_t)(nul - o->buf));
    if (is_name && f->len > AICF_MAX_NAME)
        return aicf__onnx_ferr(o, AICF_ERROR_LIMIT, "name of %zu bytes at byte %zu exceeds AICF_MAX_NAME (%d)",
                               f->len, f->off, AICF_MAX_NAME);
    s = (char*)aicf__onnx_alloc(o, f->len + 1);
    if (!s) return AICF_ERROR_OUT_OF_MEMORY;
    memcpy(s, o->buf + f->off, f->len);
    s[f->len] = 0;
    *out = s;
    return AICF_SUCCESS;
}

static int aicf__pb_str_eq(const aicf__onnx* o, const aicf__pbf* f, const char* s)
{
    size_t n = strlen(s);
    return f->len == n && memcmp(o->buf + f->off, s, n) == 0;
}

/* ---- data types ---- */
static const char* aicf__onnx_dtype_name(int64_t dt)
{
    static const char* const names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
                                        "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
                                        "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                        "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                        "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
                                        "FLOAT8E8M0", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2"};
    if (dt >= 0 && dt < (int64_t)(sizeof(names) / sizeof(names[0]))) return names[dt];
    return "unknown";
}

/* Bytes per element of the data types aicf supports, 0 otherwise. */
static size_t aicf__onnx_dtype_size(int64_t dt)
{
    switch (dt) {
    case AICF_DTYPE_FLOAT32: case AICF_DTYPE_INT32: case AICF_DTYPE_UINT32: return 4;
    case AICF_DTYPE_UINT8: case AICF_DTYPE_INT8: case AICF_DTYPE_BOOL: return 1;
    case AICF_DTYPE_UINT16: case AICF_DTYPE_INT16: case AICF_DTYPE_FLOAT16: case AICF_DTYPE_BFLOAT16: return 2;
    case AICF_DTYPE_INT64: case AICF_DTYPE_FLOAT64: case AICF_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* Checks an element type: AICF_ERROR_INVALID_MODEL for UNDEFINED, AICF_ERROR_UNSUPPORTED for
   types aicf does not handle. `what` names the tensor in the message. */
static aicf_result aicf__onnx_check_dtype(aicf__onnx* o, int64_t dt, const char* field, const char* what)
{
    if (dt == 0)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "%s: %s is missing (UNDEFINED)", what, field);
    if (!aicf__onnx_dtype_size(dt))
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: %s %lld (%s) is not supported", what, field,
                              (long long)dt, aicf__onnx_dtype_name(dt));
    return AICF_SUCCESS;
}

static const char* aicf__onnx_dims_str(const int64_t* d, size_t n, char* buf, size_t cap)
{
    size_t i, len = 0;
    if (cap == 0) return buf;
    buf[0] = 0;
    len += (size_t)snprintf(buf, cap, "[");
    for (i = 0; i < n && len < cap; ++i)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? "," : "", (long long)d[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
    return buf;
}

/* ---- TensorProto ---- */
typedef struct aicf__onnx_tp {
    size_t off, len;                 /* the message */
    int64_t data_type;
    size_t n_dims;                   /* dims seen (may exceed AICF_MAX_RANK: checked later) */
    int64_t dims[AICF_MAX_RANK];
    char* name;                      /* temporary; "" if absent */
    int has_raw;
    size_t raw_off, raw_len;
    size_t n_float, n_int32, n_string, n_int64, n_double, n_uint64;
    int64_t data_location;
    int has_segment;
    char* ext_location;              /* external_data "location", or NULL */
    char* ext_offset;                /* "offset", or NULL */
    char* ext_length;                /* "length", or NULL */
    /* filled by aicf__onnx_tensor_check */
    size_t esize, numel, bytes;
} aicf__onnx_tp;

static aicf_result aicf__onnx_entry(aicf__onnx* o, const aicf__pbf* f, char** key, char** value)
{
    aicf__pb r;
    aicf__pbf e;
    int rc;
    *key = *value = NULL;
    r.pos = f->off;
    r.end = f->off + f->len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_entry, &e)) > 0) {
        aicf_result res = AICF_SUCCESS;
        if (e.num == 1) res = aicf__onnx_str(o, &e, 0, key);
        else if (e.num == 2) res = aicf__onnx_str(o, &e, 0, value);
        if (res) return res;
    }
    return (aicf_result)rc;
}

/* Structural pass over a TensorProto: records everything but the typed values. */
static aicf_result aicf__onnx_tensor_scan(aicf__onnx* o, size_t off, size_t len, aicf__onnx_tp* tp)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t n_ext = 0;
    memset(tp, 0, sizeof(*tp));
    tp->off = off;
    tp->len = len;
    tp->name = (char*)"";
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_tensor, &f)) > 0) {
        aicf_result res = AICF_SUCCESS;
        switch (f.num) {
        case 1: {
            aicf__pb_it it;
            uint64_t v = 0;
            int k;
            aicf__pb_it_init(o, &it, &f);
            while ((k = aicf__pb_it_next(o, &it, &v)) > 0) {
                if (tp->n_dims < AICF_MAX_RANK) tp->dims[tp->n_dims] = (int64_t)v;
                tp->n_dims++;
            }
            if (k < 0) return (aicf_result)k;
            break;
        }
        case 2: tp->data_type = (int64_t)f.v; break;
        case 3: tp->has_segment = 1; break;
        case 4: res = aicf__pb_count(o, &f, &tp->n_float); break;
        case 5: res = aicf__pb_count(o, &f, &tp->n_int32); break;
        case 6: tp->n_string++; break;
        case 7: res = aicf__pb_count(o, &f, &tp->n_int64); break;
        case 8: res = aicf__onnx_str(o, &f, 1, &tp->name); break;
        case 9:
            tp->has_raw = 1;
            tp->raw_off = f.off;
            tp->raw_len = f.len;
            break;
        case 10: res = aicf__pb_count(o, &f, &tp->n_double); break;
        case 11: res = aicf__pb_count(o, &f, &tp->n_uint64); break;
        case 13: {
            char *key, *value;
            size_t old = aicf__onnx_push(o, ".external_data[%zu]", n_ext++);
            res = aicf__onnx_entry(o, &f, &key, &value);
            if (!res && key) {
                if (!strcmp(key, "location")) tp->ext_location = value;
                else if (!strcmp(key, "offset")) tp->ext_offset = value;
                else if (!strcmp(key, "length")) tp->ext_length = value;
            }
            aicf__onnx_pop(o, old);
            break;
        }
        case 14: tp->data_location = (int64_t)f.v; break;
        default: break;
        }
        if (res) return res;
    }
    return (aicf_result)rc;
}

/* Validates the scanned header: segment, rank, dims, data type, sizes. */
static aicf_result aicf__onnx_tensor_check(aicf__onnx* o, aicf__onnx_tp* tp)
{
    size_t i, numel = 1, bytes;
    char what[96];
    snprintf(what, sizeof(what), "tensor '%.64s'", tp->name);
    if (tp->has_segment)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: segment (a chunk of a larger tensor) is not supported", what);
    if (tp->n_dims > AICF_MAX_RANK)
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: rank %zu exceeds AICF_MAX_RANK (%d)", what, tp->n_dims,
                              AICF_MAX_RANK);
    for (i = 0; i < tp->n_dims; ++i)
        if (tp->dims[i] < 0)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "%s: dims[%zu] is negative (%lld)", what, i,
                                  (long long)tp->dims[i]);
    if (tp->data_type == AICF_DTYPE_STRING || (tp->data_type == 0 && tp->n_string))
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: data_type STRING is not supported", what);
    {
        aicf_result res = aicf__onnx_check_dtype(o, tp->data_type, "data_type", what);
        if (res) return res;
    }
    for (i = 0; i < tp->n_dims; ++i)
        if ((uint64_t)tp->dims[i] > (uint64_t)SIZE_MAX || !aicf__mul_size(numel, (size_t)tp->dims[i], &numel)) {
            char ds[160];
            return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: the element count of dims %s overflows", what,
                                  aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)));
        }
    tp->esize = aicf__onnx_dtype_size(tp->data_type);
    if (!aicf__mul_size(numel, tp->esize, &bytes) || (uint64_t)bytes > AICF_MAX_TENSOR_BYTES) {
        char ds[160];
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: dims %s of %s exceed AICF_MAX_TENSOR_BYTES", what,
                              aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)),
                              aicf__onnx_dtype_name(tp->data_type));
    }
    tp->numel = numel;
    tp->bytes = bytes;
    return AICF_SUCCESS;
}

static int aicf__onnx_parse_u64(const char* s, uint64_t* out)
{
    uint64_t v = 0;
    if (!s || !*s) return 0;
    for (; *s; ++s) {
        unsigned d;
        if (*s < '0' || *s > '9') return 0;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* Reads external data (data_location EXTERNAL) into a temporary buffer. */
static aicf_result aicf__onnx_external(aicf__onnx* o, aicf__onnx_tp* tp, const void** data)
{
    const char* loc = tp->ext_location;
    const char* p;
    char* full;
    size_t dlen, llen, full_len;
    uint64_t offset = 0, length = 0;
    long fsize;
    FILE* fp;
    void* buf;
    if (!o->dir)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED,
                              "tensor '%.64s': external data (data_location EXTERNAL) needs the model's file "
                              "path: load it with aicf_graph_load_onnx", tp->name);
    if (!loc || !*loc)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external_data has no \"location\"",
                              tp->name);
    if (loc[0] == '/' || loc[0] == '\\' ||
        (((loc[0] >= 'a' && loc[0] <= 'z') || (loc[0] >= 'A' && loc[0] <= 'Z')) && loc[1] == ':'))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data location '%.200s' is an absolute path", tp->name, loc);
    for (p = loc; *p;) {
        const char* q = p;
        while (*q && *q != '/' && *q != '\\') ++q;
        if (q - p == 2 && p[0] == '.' && p[1] == '.')
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                                  "tensor '%.64s': external data location '%.200s' contains '..'", tp->name, loc);
        p = *q ? q + 1 : q;
    }
    if (tp->ext_offset && !aicf__onnx_parse_u64(tp->ext_offset, &offset))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external data offset '%.40s' is not a number",
                              tp->name, tp->ext_offset);
    if (tp->ext_length && !aicf__onnx_parse_u64(tp->ext_length, &length))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external data length '%.40s' is not a number",
                              tp->name, tp->ext_length);
    if (tp->ext_length && length != (uint64_t)tp->bytes)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data length %llu does not match its dims (%zu bytes)",
                              tp->name, (unsigned long long)length, tp->bytes);
    dlen = strlen(o->dir);
    llen = strlen(loc);
    full_len = dlen + llen + 2;
    full = (char*)aicf__onnx_alloc(o, full_len);
    if (!full) return AICF_ERROR_OUT_OF_MEMORY;
    memcpy(full, o->dir, dlen);
    full[dlen] = '/';
    memcpy(full + dlen + 1, loc, llen + 1);
    fp = fopen(full, "rb");
    if (!fp)
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot open external data file '%.300s': %s",
                              tp->name, full, strerror(errno));
    if (fseek(fp, 0, SEEK_END) != 0 || (fsize = ftell(fp)) < 0) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot seek in '%.300s'", tp->name, full);
    }
    if (offset > (uint64_t)fsize || (uint64_t)fsize - offset < (uint64_t)tp->bytes ||
        (!tp->ext_length && (uint64_t)fsize - offset != (uint64_t)tp->bytes)) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data file '%.300s' has %ld bytes; the tensor needs %zu at "
                              "offset %llu", tp->name, full, fsize, tp->bytes, (unsigned long long)offset);
    }
    buf = aicf__onnx_alloc(o, tp->bytes);
    if (!buf) {
        fclose(fp);
        return AICF_ERROR_OUT_OF_MEMORY;
    }
    if (fseek(fp, (long)offset, SEEK_SET) != 0 || fread(buf, 1, tp->bytes, fp) != tp->bytes) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot read %zu bytes from '%.300s'", tp->name,
                              tp->bytes, full);
    }
    fclose(fp);
    *data = buf;
    return AICF_SUCCESS;
}

/* Produces the dense, row-major, little-endian bytes (tp->bytes) of a checked tensor. *data
   points into the model bytes (*in_model = 1: raw_data) or into a temporary buffer. */
static aicf_result aicf__onnx_tensor_data(aicf__onnx* o, aicf__onnx_tp* tp, const void** data, int* in_model)
{
    static const char* const fname[12] = {"", "", "", "", "float_data", "int32_data", "string_data",
                                          "int64_data", "", "", "double_data", "uint64_data"};
    size_t counts[12];
    int want, i;
    unsigned char* dst;
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t k = 0;
    int64_t dt = tp->data_type;
    memset(counts, 0, sizeof(counts));
    counts[4] = tp->n_float;
    counts[5] = tp->n_int32;
    counts[6] = tp->n_string;
    counts[7] = tp->n_int64;
    counts[10] = tp->n_double;
    counts[11] = tp->n_uint64;
    *data = NULL;
    *in_model = 0;
    if (tp->data_location == 1) { /* EXTERNAL */
        if (tp->has_raw)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': raw_data is given with data_location EXTERNAL", tp->name);
        for (i = 4; i < 12; ++i)
            if (counts[i])
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s is given with data_location EXTERNAL",
                                      tp->name, fname[i]);
        return aicf__onnx_external(o, tp, data);
    }
    if (tp->data_location != 0)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': data_location %lld is not DEFAULT (0) or EXTERNAL (1)",
                              tp->name, (long long)tp->data_location);
    if (tp->has_raw) {
        char ds[160];
        for (i = 4; i < 12; ++i)
            if (counts[i])
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': both raw_data and %s are given",
                                      tp->name, fname[i]);
        if (tp->raw_len != tp->bytes)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                                  "tensor '%.64s': raw_data has %zu bytes but dims %s of %s need %zu", tp->name,
                                  tp->raw_len, aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)),
                                  aicf__onnx_dtype_name(dt), tp->bytes);
        *data = o->buf + tp->raw_off;
        *in_model = 1;
        return AICF_SUCCESS;
    }
    switch (dt) {
    case AICF_DTYPE_FLOAT32: want = 4; break;
    case AICF_DTYPE_INT64: want = 7; break;
    case AICF_DTYPE_FLOAT64: want = 10; break;
    case AICF_DTYPE_UINT32: case AICF_DTYPE_UINT64: want = 11; break;
    default: want = 5; break; /* INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16 */
    }
    for (i = 4; i < 12; ++i)
        if (counts[i] && i != want)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s is given for data_type %s (expected %s)",
                                  tp->name, fname[i], aicf__onnx_dtype_name(dt), fname[want]);
    if (counts[want] != tp->numel) {
        char ds[160];
        if (counts[want] == 0)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': no data (neither raw_data nor %s) for dims %s",
                                  tp->name, fname[want], aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)));
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s has %zu values but dims %s need %zu",
                              tp->name, fname[want], counts[want],
                              aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)), tp->numel);
    }
    dst = (unsigned char*)aicf__onnx_alloc(o, tp->bytes);
    if (!dst) return AICF_ERROR_OUT_OF_MEMORY;
    r.pos = tp->off;
    r.end = tp->off + tp->len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_tensor, &f)) > 0) {
        aicf__pb_it it;
        uint64_t v = 0;
        int e;
        if ((int)f.num != want) continue;
        aicf__pb_it_init(o, &it, &f);
        while ((e = aicf__pb_it_next(o, &it, &v)) > 0) {
            unsigned char* q = dst + k * tp->esize;
            if (k >= tp->numel) /* cannot happen: counted before */
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': too many values", tp->name);
            if (want == 5) {
                int32_t x = (int32_t)(uint32_t)v; /* protobuf int32: low 32 bits */
                int64_t lo = 0, hi = 0;
                switch (dt) {
                case AICF_DTYPE_INT8: lo = -128; hi = 127; break;
                case AICF_DTYPE_UINT8: lo = 0; hi = 255; break;
                case AICF_DTYPE_INT16: lo = -32768; hi = 32767; break;
                case AICF_DTYPE_UINT16: lo = 0; hi = 65535; break;
                case AICF_DTYPE_FLOAT16: case AICF_DTYPE_BFLOAT16: lo = -32768; hi = 65535; break;
                case AICF_DTYPE_BOOL: lo = INT32_MIN; hi = INT32_MAX; break;
                default: lo = INT32_MIN; hi = INT32_MAX; break;
                }
                if ((int64_t)x < lo || (int64_t)x > hi)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': int32_data[%zu] = %ld is out of range for %s",
                                          tp->name, k, (long)x, aicf__onnx_dtype_name(dt));
                if (tp->esize == 4) {
                    memcpy(q, &x, 4);
                } else if (tp->esize == 2) {
                    uint16_t h = (uint16_t)(uint32_t)x;
                    memcpy(q, &h, 2);
                } else {
                    *q = dt == AICF_DTYPE_BOOL ? (unsigned char)(x != 0) : (unsigned char)(uint32_t)x;
                }
            } else if (want == 4) {
                uint32_t b = (uint32_t)v;
                memcpy(q, &b, 4);
            } else if (want == 11 && dt == AICF_DTYPE_UINT32) {
                uint32_t b;
                if (v > 0xffffffffu)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': uint64_data[%zu] = %llu is out of range for UINT32",
                                          tp->name, k, (unsigned long long)v);
                b = (uint32_t)v;
                memcpy(q, &b, 4);
            } else { /* int64_data, double_data, uint64_data (UINT64): 8 bytes */
                memcpy(q, &v, 8);
            }
            ++k;
        }
        if (e < 0) return (aicf_result)e;
    }
    if (rc < 0) return (aicf_result)rc;
    *data = dst;
    return AICF_SUCCESS;
}

/* Scan + check + data of the TensorProto at [off, off+len). */
static aicf_result aicf__onnx_tensor(aicf__onnx* o, size_t off, size_t len, aicf__onnx_tp* tp, const void** data,
                                     int* in_model)
{
    aicf_result res = aicf__onnx_tensor_scan(o, off, len, tp);
    if (!res) res = aicf__onnx_tensor_check(o, tp);
    if (!res) res = aicf__onnx_tensor_data(o, tp, data, in_model);
    return res;
}

/* ---- ValueInfoProto ---- */
typedef struct aicf__onnx_vi {
    char* name;                      /* temporary; NULL if absent */
    int type_kind;                   /* TypeProto field set: 1 tensor_type, 4 sequence_type, ... 0 none */
    int64_t elem_type;
    int has_shape;
    size_t n_dims;                   /* may exceed AICF_MAX_RANK */
    int64_t dims[AICF_MAX_RANK];     /* -1: symbolic or unknown */
    char* dim_params[AICF_MAX_RANK]; /* NULL where none */
} aicf__onnx_vi;

static aicf_result aicf__onnx_shape(aicf__onnx* o, const aicf__pbf* sf, aicf__onnx_vi* vi)
{
    aicf__pb r, rd;
    aicf__pbf f, g;
    int rc;
    r.pos = sf->off;
    r.end = sf->off + sf->len;
    vi->has_shape = 1;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_shape, &f)) > 0) {
        size_t old, k;
        int64_t value = -1;
        char* param = NULL;
        if (f.num != 1) continue;
        k = vi->n_dims++;
        old = aicf__onnx_push(o, ".dim[%zu]", k);
        rd.pos = f.off;
        rd.end = f.off + f.len;
        while ((rc = aicf__pb_next(o, &rd, &aicf__pbm_dim, &g)) > 0) {
            if (g.num == 1) { /* oneof: the last one given wins */
                value = (int64_t)g.v;
                param = NULL;
                if (value < 0)
                    return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "dim_value %lld is negative", (long long)value);
            } else if (g.num == 2) {
                aicf_result res = aicf__onnx_str(o, &g, 1, &param);
                if (res) return res;
                value = -1;
            }
        }
        if (rc < 0) return (aicf_result)rc;
        if (k < AICF_MAX_RANK) {
            vi->dims[k] = value;
            vi->dim_params[k] = (param && param[0]) ? param : NULL;
        }
        aicf__onnx_pop(o, old);
    }
    return (aicf_result)rc;
}

static aicf_result aicf__onnx_value_info(aicf__onnx* o, size_t off, size_t len, aicf__onnx_vi* vi)
{
    aicf__pb r, rt, rtt;
    aicf__pbf f, t, u;
    int rc;
    memset(vi, 0, sizeof(*vi));
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_vi, &f)) > 0) {
        if (f.num == 1) {
            aicf_result res = aicf__onnx_str(o, &f, 1, &vi->name);
            if (res) return res;
        } else if (f.num == 2) {
            size_t old = aicf__onnx_push(o, ".type");
            rt.pos = f.off;
            rt.end = f.off + f.len;
            while ((rc = aicf__pb_next(o, &rt, &aicf__pbm_type, &t)) > 0) {
                size_t old2;
                if (t.num == 6) continue; /* denotation */
                vi->type_kind = (int)t.num;
                if (t.num != 1) continue;
                old2 = aicf__onnx_push(o, ".tensor_type");
                rtt.pos = t.off;
                rtt.end = t.off + t.len;
                while ((rc = aicf__pb_next(o, &rtt, &aicf__pbm_type_tensor, &u)) > 0) {
                    if (u.num == 1) {
                        vi->elem_type = (int64_t)u.v;
                    } else if (u.num == 2) {
                        size_t old3 = aicf__onnx_push(o, ".shape");
                        aicf_result res;
                        vi->n_dims = 0;
                        res = aicf__onnx_shape(o, &u, vi);
                        if (res) return res;
                        aicf__onnx_pop(o, old3);
                    }
                }
                if (rc < 0) return (aicf_result)rc;
                aicf__onnx_pop(o, old2);
            }
            if (rc < 0) return (aicf_result)rc;
            aicf__onnx_pop(o, old);
        }
    }
    return (aicf_result)rc;
}

static const char* aicf__onnx_type_kind_name(int kind)
{
    switch (kind) {
    case 0: return "no type";
    case 1: return "tensor_type";
    case 4: return "sequence_type";
    case 5: return "map_type";
    case 7: return "opaque_type";
    case 8: return "sparse_tensor_type";
    case 9: return "optional_type";
    default: return "unknown type";
    }
}

/* ---- graph building ---- */

/* A builder error: keeps the builder's message and adds the ONNX location in front. */
static aicf_result aicf__onnx_wrap(aicf__onnx* o, aicf_result rc, const char* what)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", aicf_last_error(o->ctx));
    return aicf__err(o->ctx, rc, "onnx: %s %s: %s", o->path, what, msg);
}

static aicf_result aicf__onnx_initializer(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_tp tp;
    const void* data;
    int in_model;
    aicf_tensor_desc d;
    aicf_result res;
    char what[AICF_MAX_NAME + 32];
    static const unsigned char empty[1] = {0};
    res = aicf__onnx_tensor(o, off, len, &tp, &data, &in_model);
    if (res) return res;
    if (!tp.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "initializer has no name");
    memset(&d, 0, sizeof(d));
    d.name = tp.name;
    d.dtype = (aicf_dtype)tp.data_type;
    d.rank = (int)tp.n_dims;
    d.dims = tp.dims;
    d.data = tp.bytes ? data : (const void*)empty;
    d.data_bytes = tp.bytes;
    d.borrow = tp.bytes && in_model && ((uintptr_t)data % tp.esize) == 0;
    res = aicf_graph_add_constant(g, &d);
    if (res) {
        snprintf(what, sizeof(what), "initializer '%s'", tp.name);
        return aicf__onnx_wrap(o, res, what);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__onnx_input(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_vi vi;
    aicf_tensor_desc d;
    const char* params[AICF_MAX_RANK];
    aicf_result res;
    size_t i;
    int t;
    char what[AICF_MAX_NAME + 32];
    res = aicf__onnx_value_info(o, off, len, &vi);
    if (res) return res;
    if (!vi.name || !vi.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph input has no name");
    t = aicf__graph_find(g, vi.name);
    if (t >= 0 && (g->tensors[t].flags & AICF__T_CONST)) return AICF_SUCCESS; /* an initializer's default */
    snprintf(what, sizeof(what), "input '%s'", vi.name);
    if (vi.type_kind != 1)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: only tensor inputs are supported (this one has %s)",
                              what, aicf__onnx_type_kind_name(vi.type_kind));
    res = aicf__onnx_check_dtype(o, vi.elem_type, "elem_type", what);
    if (res) return res;
    if (!vi.has_shape)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s has no shape (unknown rank)", what);
    if (vi.n_dims > AICF_MAX_RANK)
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: rank %zu exceeds AICF_MAX_RANK (%d)", what, vi.n_dims,
                              AICF_MAX_RANK);
    for (i = 0; i < vi.n_dims; ++i) {
        params[i] = vi.dim_params[i];
        if (vi.dims[i] < 0 && !params[i]) { /* neither dim_value nor dim_param */
            size_t n = strlen(vi.name) + 32;
            char* s = (char*)aicf__onnx_alloc(o, n);
            if (!s) return AICF_ERROR_OUT_OF_MEMORY;
            snprintf(s, n, "unk__%s_%zu", vi.name, i);
            params[i] = s;
        }
        if (!params[i] && vi.dims[i] < 0) return AICF_ERROR_INVALID_MODEL; /* unreachable */
    }
    memset(&d, 0, sizeof(d));
    d.name = vi.name;
    d.dtype = (aicf_dtype)vi.elem_type;
    d.rank = (int)vi.n_dims;
    d.dims = vi.dims;
    d.dim_params = params;
    res = aicf_graph_add_input(g, &d);
    if (res) return aicf__onnx_wrap(o, res, what);
    return AICF_SUCCESS;
}

static const char* aicf__onnx_attr_type_name(int64_t t)
{
    static const char* const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                        "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                        "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    if (t >= 0 && t < (int64_t)(sizeof(names) / sizeof(names[0]))) return names[t];
    return "unknown";
}

static aicf_result aicf__onnx_graph(aicf__onnx* o, aicf_graph* g, size_t graph_off, size_t graph_len);

typedef struct aicf__onnx_nodectx {
    int index;
    const char* name;
    const char* op_type;
} aicf__onnx_nodectx;

static aicf_result aicf__onnx_attr(aicf__onnx* o, const aicf__onnx_nodectx* nc, size_t off, size_t len, aicf_attr* a)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    int64_t type = 0;
    int has[24];
    size_t n_floats = 0, n_ints = 0, n_strings = 0;
    size_t t_off = 0, t_len = 0, s_off = 0, s_len = 0, g_off = 0, g_len = 0;
    uint64_t fbits = 0, ival = 0;
    aicf_result res;
    memset(has, 0, sizeof(has));
    memset(a, 0, sizeof(*a));
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_attr, &f)) > 0) {
        res = AICF_SUCCESS;
        if (f.num < 24) has[f.num]++;
        switch (f.num) {
        case 1: res = aicf__onnx_str(o, &f, 1, (char**)&a->name); break;
        case 2: fbits = f.v; break;
        case 3: ival = f.v; break;
        case 4: s_off = f.off; s_len = f.len; break;
        case 5: t_off = f.off; t_len = f.len; break;
        case 6: g_off = f.off; g_len = f.len; break;
        case 7: res = aicf__pb_count(o, &f, &n_floats); break;
        case 8: res = aicf__pb_count(o, &f, &n_ints); break;
        case 9: n_strings++; break;
        case 20: type = (int64_t)f.v; break;
        default: break;
        }
        if (res) return res;
    }
    if (rc < 0) return (aicf_result)rc;
    if (!a->name || !a->name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute has no name");
    if (has[21])
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (%s): attribute '%s' is a reference (ref_attr_name), which is only "
                         "valid inside functions and not supported", nc->index, nc->name, nc->op_type, a->name);
    if (type == 0) { /* IR version 1 had no type: infer it from the field that is set */
        if (has[2]) type = 1;
        else if (has[3]) type = 2;
        else if (has[4]) type = 3;
        else if (has[5]) type = 4;
        else if (has[6]) type = 5;
        else if (has[7]) type = 6;
        else if (has[8]) type = 7;
        else if (has[9]) type = 8;
        else if (has[10]) type = 9;
        else if (has[11]) type = 10;
        else
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' has no type and no value", a->name);
    }
    a->type = (aicf_attr_type)type;
    switch (type) {
    case 1: {
        uint32_t b = (uint32_t)fbits;
        memcpy(&a->f, &b, 4);
        break;
    }
    case 2: a->i = (int64_t)ival; break;
    case 3: {
        aicf__pbf sf;
        memset(&sf, 0, sizeof(sf));
        sf.off = s_off;
        sf.len = s_len;
        o->msg = "AttributeProto";
        snprintf(o->field, sizeof(o->field), "s");
        res = aicf__onnx_str(o, &sf, 0, (char**)&a->s);
        if (res) return res;
        break;
    }
    case 4: {
        aicf__onnx_tp* tp = (aicf__onnx_tp*)aicf__onnx_alloc(o, sizeof(aicf__onnx_tp));
        aicf_tensor_desc* td = (aicf_tensor_desc*)aicf__onnx_alloc(o, sizeof(aicf_tensor_desc));
        const void* data;
        int in_model;
        size_t old;
        static const unsigned char empty[1] = {0};
        if (!tp || !td) return AICF_ERROR_OUT_OF_MEMORY;
        if (!has[5]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' of type TENSOR has no t", a->name);
        old = aicf__onnx_push(o, ".t");
        res = aicf__onnx_tensor(o, t_off, t_len, tp, &data, &in_model);
        if (res) return res;
        aicf__onnx_pop(o, old);
        memset(td, 0, sizeof(*td));
        td->name = NULL;
        td->dtype = (aicf_dtype)tp->data_type;
        td->rank = (int)tp->n_dims;
        td->dims = tp->dims;
        td->data = tp->bytes ? data : (const void*)empty;
        td->data_bytes = tp->bytes;
        td->borrow = 0;
        a->t = td;
        break;
    }
    case 5: {
        aicf_graph* sg = NULL;
        size_t old;
        if (!has[6]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' of type GRAPH has no g", a->name);
        if (o->depth + 1 > AICF_MAX_SUBGRAPH_DEPTH)
            return aicf__onnx_err(o, AICF_ERROR_LIMIT,
                                  "attribute '%s': subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH (%d) deep",
                                  a->name, AICF_MAX_SUBGRAPH_DEPTH);
        res = aicf_graph_create(o->ctx, &sg);
        if (res) return res;
        aicf__graph_set_subgraph(sg, 1);
        sg->opset = o->opset;
        old = aicf__onnx_push(o, ".g");
        o->depth++;
        res = aicf__onnx_graph(o, sg, g_off, g_len);
        o->depth--;
        if (res) {
            aicf_graph_destroy(sg);
            return res;
        }
        aicf__onnx_pop(o, old);
        a->g = sg; /* owned by the caller until the node takes it */
        break;
    }
    case 10:
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                               "node %d '%s' (%s): attribute '%s' of type GRAPHS is not supported", nc->index,
                               nc->name, nc->op_type, a->name);
    case 6:
    case 7:
    case 8: {
        size_t n = type == 6 ? n_floats : type == 7 ? n_ints : n_strings;
        size_t k = 0;
        int fieldnum = type == 6 ? 7 : type == 7 ? 8 : 9;
        if (n > (size_t)AICF_MAX_ATTR_ELEMS)
            return aicf__onnx_err(o, AICF_ERROR_LIMIT, "attribute '%s' has %zu values, more than AICF_MAX_ATTR_ELEMS (%d)",
                                  a->name, n, AICF_MAX_ATTR_ELEMS);
        if (type == 6) a->floats = (const float*)aicf__onnx_alloc_n(o, n, sizeof(float));
        else if (type == 7) a->ints = (const int64_t*)aicf__onnx_alloc_n(o, n, sizeof(int64_t));
        else a->strings = (const char* const*)aicf__onnx_alloc_n(o, n, sizeof(char*));
        if (!a->floats && !a->ints && !a->strings) return AICF_ERROR_OUT_OF_MEMORY;
        r.pos = off;
        r.end = off + len;
        while ((rc = aicf__pb_next(o, &r, &aicf__pbm_attr, &f)) > 0) {
            if ((int)f.num != fieldnum) continue;
            if (type == 8) {
                char* s;
                res = aicf__onnx_str(o, &f, 0, &s);
                if (res) return res;
                if (k < n) ((char**)a->strings)[k++] = s;
            } else {
                aicf__pb_it it;
                uint64_t v = 0;
                int e;
                aicf__pb_it_init(o, &it, &f);
                while ((e = aicf__pb_it_next(o, &it, &v)) > 0) {
                    if (k >= n) break;
                    if (type == 6) {
                        uint32_t b = (uint32_t)v;
                        memcpy((float*)a->floats + k, &b, 4);
                    } else {
                        ((int64_t*)a->ints)[k] = (int64_t)v;
                    }
                    ++k;
                }
                if (e < 0) return (aicf_result)e;
            }
        }
        if (rc < 0) return (aicf_result)rc;
        a->count = (int)n;
        break;
    }
    default:
        if (type >= 9 && type <= 14)
            return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                             "node %d '%s' (%s): attribute '%s' of type %s is not supported", nc->index,
                             nc->name, nc->op_type, a->name, aicf__onnx_attr_type_name(type));
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' has an invalid type %lld", a->name,
                              (long long)type);
    }
    return AICF_SUCCESS;
}

/* Destroys the subgraphs of attributes that no node took. */
static void aicf__onnx_drop_graphs(aicf_attr* attrs, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (attrs[i].type == AICF_ATTR_GRAPH && attrs[i].g) {
            aicf_graph_destroy(attrs[i].g);
            attrs[i].g = NULL;
        }
}

static aicf_result aicf__onnx_node(aicf__onnx* o, aicf_graph* g, int index, size_t off, size_t len)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t n_in = 0, n_out = 0, n_attr = 0, k_in = 0, k_out = 0, k_attr = 0;
    char *name = NULL, *op_type = NULL, *domain = NULL;
    const char** inputs;
    const char** outputs;
    aicf_attr* attrs;
    aicf_node_desc nd;
    aicf__onnx_nodectx nc;
    aicf_result res;
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_node, &f)) > 0) {
        res = AICF_SUCCESS;
        switch (f.num) {
        case 1: n_in++; break;
        case 2: n_out++; break;
        case 3: res = aicf__onnx_str(o, &f, 1, &name); break;
        case 4: res = aicf__onnx_str(o, &f, 1, &op_type); break;
        case 5: n_attr++; break;
        case 7: res = aicf__onnx_str(o, &f, 1, &domain); break;
        default: break;
        }
        if (res) return res;
    }
    if (rc < 0) return (aicf_result)rc;
    if (!name) name = (char*)"";
    if (!op_type || !op_type[0])
        return aicf__onnx_nerr(o, AICF_ERROR_INVALID_MODEL, "node %d '%s': op_type is missing", index, name);
    if (domain && domain[0] && strcmp(domain, "ai.onnx") != 0)
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (%s): domain '%s' is not supported (only the default ONNX domain)",
                         index, name, op_type, domain);
    if (n_in > AICF_MAX_NODE_IO || n_out > AICF_MAX_NODE_IO)
        return aicf__onnx_nerr(o, AICF_ERROR_LIMIT, "node %d '%s' (%s): %zu inputs and %zu outputs exceed AICF_MAX_NODE_IO (%d)",
                         index, name, op_type, n_in, n_out, AICF_MAX_NODE_IO);
    if (n_attr > (size_t)AICF_MAX_NODE_IO * 16)
        return aicf__onnx_nerr(o, AICF_ERROR_LIMIT, "node %d '%s' (%s): %zu attributes are too many", index, name,
                         op_type, n_attr);
    inputs = (const char**)aicf__onnx_alloc_n(o, n_in, sizeof(char*));
    outputs = (const char**)aicf__onnx_alloc_n(o, n_out, sizeof(char*));
    attrs = (aicf_attr*)aicf__onnx_alloc_n(o, n_attr, sizeof(aicf_attr));
    if (!inputs || !outputs || !attrs) return AICF_ERROR_OUT_OF_MEMORY;
    nc.index = index;
    nc.name = name;
    nc.op_type = op_type;
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_node, &f)) > 0) {
        char* s;
        res = AICF_SUCCESS;
        if (f.num == 1 || f.num == 2) {
            res = aicf__onnx_str(o, &f, 1, &s);
            if (!res) {
                if (f.num == 1) inputs[k_in++] = s;
                else outputs[k_out++] = s;
            }
        } else if (f.num == 5) {
            size_t old = aicf__onnx_push(o, ".attribute[%zu]", k_attr);
            res = aicf__onnx_attr(o, &nc, f.off, f.len, &attrs[k_attr]);
            if (!res) {
                k_attr++;
                aicf__onnx_pop(o, old);
            }
        }
        if (res) {
            aicf__onnx_drop_graphs(attrs, k_attr);
            return res;
        }
    }
    if (rc < 0) {
        aicf__onnx_drop_graphs(attrs, k_attr);
        return (aicf_result)rc;
    }
    memset(&nd, 0, sizeof(nd));
    nd.name = name;
    nd.op_type = op_type;
    nd.domain = NULL;
    nd.inputs = inputs;
    nd.num_inputs = (int)n_in;
    nd.outputs = outputs;
    nd.num_outputs = (int)n_out;
    nd.attrs = attrs;
    nd.num_attrs = (int)n_attr;
    res = aicf_graph_add_node(g, &nd);
    if (res) {
        char msg[1024], tag[48];
        snprintf(msg, sizeof(msg), "%s", aicf_last_error(o->ctx));
        snprintf(tag, sizeof(tag), "node %d ", index);
        aicf__onnx_drop_graphs(attrs, k_attr); /* a failed add_node leaves them with us */
        if (strstr(msg, tag) && strstr(msg, op_type)) return aicf__onnx_nerr(o, res, "%s", msg);
        return aicf__onnx_nerr(o, res, "node %d '%s' (%s): %s", index, name, op_type, msg);
    }
    return AICF_SUCCESS;
}

typedef struct aicf__onnx_range {
    size_t off, len;
} aicf__onnx_range;

/* Subgraph input: like a graph input, but the type and shape may be left open (Loop and Scan
   bodies): dtype AICF_DTYPE_INVALID when not a tensor of a supported type, rank -1 when the
   shape is absent. */
static aicf_result aicf__onnx_sub_input(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_vi vi;
    aicf_result res;
    aicf__tensor* tt;
    size_t i;
    int t;
    res = aicf__onnx_value_info(o, off, len, &vi);
    if (res) return res;
    if (!vi.name || !vi.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph input has no name");
    t = aicf__graph_find(g, vi.name);
    if (t >= 0 && (g->tensors[t].flags & AICF__T_CONST)) return AICF_SUCCESS; /* an initializer's default */
    if (t >= 0) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "input '%s' is already defined", vi.name);
    t = aicf__graph_new_tensor(g, vi.name);
    if (t < 0 || !aicf__grow(g->ctx, (void**)&g->inputs, &g->cap_inputs, g->n_inputs + 1, sizeof(int))) {
        char what[AICF_MAX_NAME + 32];
        snprintf(what, sizeof(what), "input '%s'", vi.name);
        return aicf__onnx_wrap(o, t < 0 ? aicf__new_tensor_err(t) : AICF_ERROR_OUT_OF_MEMORY, what);
    }
    tt = &g->tensors[t];
    tt->flags = AICF__T_INPUT;
    if (vi.type_kind == 1 && aicf__onnx_dtype_size(vi.elem_type)) tt->dtype = (aicf_dtype)vi.elem_type;
    tt->shape.rank = -1;
    if (vi.type_kind == 1 && vi.has_shape && vi.n_dims <= AICF_MAX_RANK) {
        tt->shape.rank = (int)vi.n_dims;
        for (i = 0; i < vi.n_dims; ++i) {
            tt->shape.d[i] = vi.dims[i];
            if (vi.dims[i] < 0) {
                char unk[AICF_MAX_NAME + 48];
                const char* param = vi.dim_params[i];
                if (!param) {
                    snprintf(unk, sizeof(unk), "unk__%s_%zu", vi.name, i);
                    param = unk;
                }
                tt->dim_param[i] = aicf__strdup(g->ctx, param);
                if (!tt->dim_param[i]) return aicf__onnx_oom(o, strlen(param) + 1);
            }
        }
    }
    tt->shape_known = tt->shape.rank >= 0 && tt->dtype != AICF_DTYPE_INVALID && aicf__shape_numel(&tt->shape) >= 0;
    g->inputs[g->n_inputs++] = t;
    return AICF_SUCCESS;
}

/* Reads the GraphProto at [graph_off, graph_off + graph_len) into g: initializers, value_info
   (validated only), inputs, nodes, outputs, in that order. o->path names the GraphProto. Inside
   a subgraph (o->depth > 0) g is marked as one: names of enclosing graphs become outer
   references. Temporary allocations made here are freed here; the caller's are kept. */
static aicf_result aicf__onnx_graph(aicf__onnx* o, aicf_graph* g, size_t graph_off, size_t graph_len)
{
    aicf__pb r;
    aicf__pbf f;
    int rc = 0;
    size_t counts[5] = {0, 0, 0, 0, 0}; /* node, initializer, input, output, value_info */
    size_t fill[5] = {0, 0, 0, 0, 0};
    aicf__onnx_range* ranges[5];
    aicf__onnx_range* all = NULL;
    size_t total, at, i;
    int kind_i;
    aicf_result res = AICF_SUCCESS;
    aicf__onnx_tmp* outer = o->tmp; /* the caller's temporaries (the node being read) */
    o->tmp = NULL;
    memset(ranges, 0, sizeof(ranges));
    for (i = 0; i < 2 && !res; ++i) {
        r.pos = graph_off;
        r.end = graph_off + graph_len;
        while ((rc = aicf__pb_next(o, &r, &aicf__pbm_graph, &f)) > 0) {
            int kind = -1;
            switch (f.num) {
            case 1: kind = 0; break;
            case 5: kind = 1; break;
            case 11: kind = 2; break;
            case 12: kind = 3; break;
            case 13: kind = 4; break;
            case 15:
                res = aicf__onnx_ferr(o, AICF_ERROR_UNSUPPORTED, "sparse initializers are not supported (byte %zu)", f.at);
                break;
            default: break;
            }
            if (res) break;
            if (kind < 0) continue;
            if (i == 0) {
                counts[kind]++;
            } else {
                ranges[kind][fill[kind]].off = f.off;
                ranges[kind][fill[kind]].len = f.len;
                fill[kind]++;
            }
        }
        if (!res && rc < 0) res = (aicf_result)rc;
        if (res) break;
        if (i == 0) {
            if (counts[0] > (size_t)AICF_MAX_NODES) {
                res = aicf__onnx_err(o, AICF_ERROR_LIMIT, "%zu nodes exceed AICF_MAX_NODES (%d)", counts[0], AICF_MAX_NODES);
                break;
            }
            if (counts[1] > (size_t)AICF_MAX_TENSORS || counts[2] > (size_t)AICF_MAX_TENSORS ||
                counts[3] > (size_t)AICF_MAX_TENSORS || counts[4] > (size_t)AICF_MAX_TENSORS) {
                res = aicf__onnx_err(o, AICF_ERROR_LIMIT, "more than AICF_MAX_TENSORS (%d) initializers, inputs, outputs or value_infos",
                                     AICF_MAX_TENSORS);
                break;
            }
            total = counts[0] + counts[1] + counts[2] + counts[3] + counts[4];
            all = (aicf__onnx_range*)aicf__onnx_alloc_n(o, total, sizeof(aicf__onnx_range));
            if (!all) {
                res = AICF_ERROR_OUT_OF_MEMORY;
                break;
            }
            at = 0;
            for (kind_i = 0; kind_i < 5; ++kind_i) {
                ranges[kind_i] = all + at;
                at += counts[kind_i];
            }
        }
    }
    if (!res) {
        /* the ranges live in the temporary list: detach them so per-item frees keep them */
        aicf__onnx_tmp* keep = o->tmp;
        o->tmp = NULL;
        for (i = 0; i < counts[1] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".initializer[%zu]", i);
            res = aicf__onnx_initializer(o, g, ranges[1][i].off, ranges[1][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[4] && !res; ++i) { /* value_info: validated, not used */
            aicf__onnx_vi vi;
            size_t old = aicf__onnx_push(o, ".value_info[%zu]", i);
            res = aicf__onnx_value_info(o, ranges[4][i].off, ranges[4][i].len, &vi);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[2] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".input[%zu]", i);
            if (o->depth > 0) res = aicf__onnx_sub_input(o, g, ranges[2][i].off, ranges[2][i].len);
            else res = aicf__onnx_input(o, g, ranges[2][i].off, ranges[2][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[0] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".node[%zu]", i);
            res = aicf__onnx_node(o, g, (int)i, ranges[0][i].off, ranges[0][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[3] && !res; ++i) {
            aicf__onnx_vi vi;
            size_t old = aicf__onnx_push(o, ".output[%zu]", i);
            res = aicf__onnx_value_info(o, ranges[3][i].off, ranges[3][i].len, &vi);
            if (!res && (!vi.name || !vi.name[0]))
                res = aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph output has no name");
            if (!res) {
                res = aicf_graph_add_output(g, vi.name);
                if (res) {
                    char what[AICF_MAX_NAME + 32];
                    snprintf(what, sizeof(what), "output '%s'", vi.name);
                    res = aicf__onnx_wrap(o, res, what);
                }
            }
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        o->tmp = keep;
    }
    aicf__onnx_tmp_free(o);
    o->tmp = outer;
    return res;
}

static aicf_result aicf__onnx_build(aicf__onnx* o, aicf_graph* g, const aicf_onnx_desc* desc)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    int64_t ir_version = 0, opset = -1;
    size_t n_opsets = 0, graph_off = 0, graph_len = 0;
    int have_graph = 0;
    aicf_result res = AICF_SUCCESS;

    /* ModelProto */
    aicf__onnx_set_path(o, "ModelProto");
    r.pos = 0;
    r.end = o->size;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_model, &f)) > 0) {
        if (f.num == 1) {
            ir_version = (int64_t)f.v;
        } else if (f.num == 7) {
            if (have_graph) return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "graph is given twice (byte %zu)", f.at);
            have_graph = 1;
            graph_off = f.off;
            graph_len = f.len;
        } else if (f.num == 8) {
            aicf__pb ro;
            aicf__pbf fo;
            int is_default = 1;
            int64_t version = 0;
            size_t old = aicf__onnx_push(o, ".opset_import[%zu]", n_opsets++);
            ro.pos = f.off;
            ro.end = f.off + f.len;
            while ((rc = aicf__pb_next(o, &ro, &aicf__pbm_opset, &fo)) > 0) {
                if (fo.num == 1) is_default = aicf__pb_str_eq(o, &fo, "") || aicf__pb_str_eq(o, &fo, "ai.onnx");
                else if (fo.num == 2) version = (int64_t)fo.v;
            }
            if (rc < 0) return (aicf_result)rc;
            if (is_default) {
                if (opset >= 0)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "the default ONNX domain is imported twice");
                if (version < 1)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "opset version %lld of the default domain is invalid",
                                          (long long)version);
                opset = version;
            }
            aicf__onnx_pop(o, old);
        }
    }
    if (rc < 0) return (aicf_result)rc;
    if (!have_graph) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "no graph (field 7)");
    if (n_opsets == 0 && ir_version >= 3)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "opset_import is empty (required since IR version 3; ir_version is %lld)",
                              (long long)ir_version);
    if (opset >= 0) {
        res = aicf_graph_set_opset(g, "", opset);
        if (res) return aicf__onnx_wrap(o, AICF_ERROR_INVALID_MODEL, "opset_import");
    }

    o->opset = opset >= 0 ? opset : 0;
    aicf__onnx_set_path(o, "GraphProto");
    res = aicf__onnx_graph(o, g, graph_off, graph_len);
    if (res) return res;

    /* bindings of symbolic dims */
    if (desc && desc->num_dims) {
        int k;
        if (desc->num_dims < 0 || !desc->dim_names || !desc->dim_values)
            return aicf__err(o->ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "aicf_onnx_desc: num_dims is %d but dim_names/dim_values are not given", desc->num_dims);
        for (k = 0; k < desc->num_dims; ++k) {
            if (!desc->dim_names[k])
                return aicf__err(o->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_onnx_desc: dim_names[%d] is NULL", k);
            res = aicf_graph_bind_dim(g, desc->dim_names[k], desc->dim_values[k]);
            if (res) return res;
        }
    }
    return AICF_SUCCESS;
}

/* ---- files ---- */

/* Reads a whole file: mapped read-only when allow_mmap and POSIX (*is_mmap = 1), else into a
   buffer from aicf__malloc. */
static aicf_result aicf__onnx_read_file(aicf_context* ctx, const char* fn, const char* path, int allow_mmap,
                                        void** data, size_t* size, int* is_mmap)
{
    FILE* fp;
    unsigned char* buf = NULL;
    size_t cap = 0, len = 0;
    *data = NULL;
    *size = 0;
    *is_mmap = 0;
#if defined(AICF__ONNX_MMAP)
    if (allow_mmap) {
        struct stat st;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%s': %s", fn, path, strerror(errno));
        if (fstat(fd, &st) != 0) {
            int e = errno;
            close(fd);
            return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot stat '%s': %s", fn, path, strerror(e));
        }
        if (!S_ISREG(st.st_mode)) {
            close(fd);
            return aicf__err(ctx, AICF_ERROR_IO, "%s: '%s' is not a regular file", fn, path);
        }
        if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
            close(fd);
            return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%s' is too large to map", fn, path);
        }
        if (st.st_size > 0) {
            void* p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                close(fd);
                *data = p;
                *size = (size_t)st.st_size;
                *is_mmap = 1;
                return AICF_SUCCESS;
            }
        }
        close(fd); /* empty file or mmap failed: read it */
    }
#else
    AICF__UNUSED(allow_mmap);
#endif
    fp = fopen(path, "rb");
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%s': %s", fn, path, strerror(errno));
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char* nb;
            if (ncap < cap) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%s' is too large", fn, path);
            }
            nb = (unsigned char*)aicf__realloc(ctx, buf, cap, ncap);
            if (!nb) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%s'", fn, path);
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        fclose(fp);
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "%s: error reading '%s'", fn, path);
    }
    fclose(fp);
    *data = buf;
    *size = len;
    return AICF_SUCCESS;
}

static void aicf__onnx_release_file(aicf_context* ctx, void* data, size_t size, int is_mmap)
{
#if defined(AICF__ONNX_MMAP)
    if (is_mmap) {
        munmap(data, size);
        return;
    }
#else
    AICF__UNUSED(is_mmap);
#endif
    AICF__UNUSED(size);
    aicf__free(ctx, data);
}

/* The directory part of path ("." if none), allocated with aicf__malloc. */
static char* aicf__onnx_dirname(aicf_context* ctx, const char* path)
{
    const char* slash = strrchr(path, '/');
    size_t n;
    char* d;
#if defined(_WIN32)
    {
        const char* bs = strrchr(path, '\\');
        if (bs && (!slash || bs > slash)) slash = bs;
    }
#endif
    if (!slash) return aicf__strdup(ctx, ".");
    n = (size_t)(slash - path);
    if (n == 0) n = 1; /* "/model.onnx" */
    d = (char*)aicf__malloc(ctx, n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

/* raw_data and the dense arrays are little-endian: other hosts are refused, not misread. */
static aicf_result aicf__onnx_check_host(aicf_context* ctx, const char* fn)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    if (b != 1) return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: big-endian hosts are not supported", fn);
    return AICF_SUCCESS;
}

static aicf_result aicf__onnx_load(aicf_context* ctx, void* data, size_t size, int is_mmap, const char* dir,
                                   const aicf_onnx_desc* desc, aicf_graph** out)
{
    aicf_graph* g = NULL;
    aicf__onnx o;
    aicf_result res = aicf__onnx_check_host(ctx, "aicf_graph_load_onnx");
    if (!res) res = aicf_graph_create(ctx, &g);
    if (res) {
        aicf__onnx_release_file(ctx, data, size, is_mmap);
        return res;
    }
    aicf__graph_adopt_file(g, data, size, is_mmap);
    memset(&o, 0, sizeof(o));
    o.ctx = ctx;
    o.buf = (const unsigned char*)data;
    o.size = size;
    o.dir = dir;
    res = aicf__onnx_build(&o, g, desc);
    aicf__onnx_tmp_free(&o);
    if (res) {
        aicf_graph_destroy(g);
        return res;
    }
    *out = g;
    return AICF_SUCCESS;
}

AICF_API aicf_result aicf_graph_load_onnx(aicf_context* ctx, const char* path, const aicf_onnx_desc* desc,
                                          aicf_graph** out)
{
    void* data;
    size_t size;
    int is_mmap;
    char* dir;
    aicf_result res;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) *out = NULL;
    if (!path || !out)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_load_onnx: path and out must not be NULL");
    res = aicf__onnx_read_file(ctx, "aicf_graph_load_onnx", path, 1, &data, &size, &is_mmap);
    if (res) return res;
    dir = aicf__onnx_dirname(ctx, path);
    if (!dir) {
        aicf__onnx_release_file(ctx, data, size, is_mmap);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_load_onnx: out of memory");
    }
    res = aicf__onnx_load(ctx, data, size, is_mmap, dir, desc, out);
    aicf__free(ctx, dir);
    return res;
}

AICF_API aicf_result aicf_graph_load_onnx_memory(aicf_context* ctx, const void* data, size_t size,
                                                 const aicf_onnx_desc* desc, aicf_graph** out)
{
    void* copy;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) *out = NULL;
    if (!out || (!data && size))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_load_onnx_memory: data and out must not be NULL");
    copy = aicf__malloc(ctx, size ? size : 1);
    if (!copy) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_load_onnx_memory: out of memory (%zu bytes)", size);
    if (size) memcpy(copy, data, size);
    return aicf__onnx_load(ctx, copy, size, 0, NULL, desc, out);
}

/* ---- TensorProto files ---- */
static aicf_result aicf__onnx_read_tensor(aicf_context* ctx, const void* data, size_t size, const char* dir,
                                          aicf_host_tensor* out)
{
    aicf__onnx o;
    aicf__onnx_tp tp;
    const void* dense;
    int in_model;
    aicf_result res = aicf__onnx_check_host(ctx, "aicf_tensor_read_pb");
    if (res) return res;
    memset(&o, 0, sizeof(o));
    o.ctx = ctx;
    o.buf = (const unsigned char*)data;
    o.size = size;
    o.dir = dir;
    aicf__onnx_set_path(&o, "TensorProto");
    res = aicf__onnx_tensor(&o, 0, size, &tp, &dense, &in_model);
    if (!res) {
        size_t i, nlen = strlen(tp.name);
        out->name = (char*)aicf__malloc(ctx, nlen + 1);
        out->data = aicf__malloc(ctx, tp.bytes ? tp.bytes : 1);
        if (!out->name || !out->data) {
            aicf__free(ctx, out->name);
            aicf__free(ctx, out->data);
            memset(out, 0, sizeof(*out));
            res = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "onnx: TensorProto: out of memory (%zu bytes)", tp.bytes);
        } else {
            memcpy(out->name, tp.name, nlen + 1);
            if (tp.bytes) memcpy(out->data, dense, tp.bytes);
            out->bytes = tp.bytes;
            out->dtype = (aicf_dtype)tp.data_type;
            out->rank = (int)tp.n_dims;
            for (i = 0; i < tp.n_dims; ++i) out->dims[i] = tp.dims[i];
        }
    }
    aicf__onnx_tmp_free(&o);
    return res;
}

AICF_API aicf_result aicf_tensor_read_pb(aicf_context* ctx, const char* path, aicf_host_tensor* out)
{
    void* data;
    size_t size;
    int is_mmap;
    char* dir;
    aicf_result res;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) memset(out, 0, sizeof(*out));
    if (!path || !out) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_read_pb: path and out must not be NULL");
    res = aicf__onnx_read_file(ctx, "aicf_tensor_read_pb", path, 0, &data, &size, &is_mmap);
    if (res) return res;
    dir = aicf__onnx_dirname(ctx, path);
    if (!dir) res = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_tensor_read_pb: out of memory");
    else res = aicf__onnx_read_tensor(ctx, data, size, dir, out);
    aicf__free(ctx, dir);
    aicf__onnx_release_file(ctx, data, size, is_mmap);
    return res;
}

AICF_API aicf_result aicf_tensor_read_pb_memory(aicf_context* ctx, const void* data, size_t size, aicf_host_tensor* out)
{
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) memset(out, 0, sizeof(*out));
    if (!out || (!data && size))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_read_pb_memory: data and out must not be NULL");
    return aicf__onnx_read_tensor(ctx, size ? data : (const void*)"", size, NULL, out);
}

static size_t aicf__pb_put_varint(unsigned char* p, uint64_t v)
{
    size_t n = 0;
    do {
        unsigned char c = (unsigned char)(v & 0x7fu);
        v >>= 7;
        if (v) c |= 0x80u;
        if (p) p[n] = c;
        ++n;
    } while (v);
    return n;
}

AICF_API aicf_result aicf_tensor_write_pb(aicf_context* ctx, const char* path, const aicf_host_tensor* t)
{
    size_t esize, numel = 1, need = 0, nlen, pos = 0, n = 0;
    unsigned char* buf;
    FILE* fp;
    int i, ok;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (!path || !t) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: path and t must not be NULL");
    if (aicf__onnx_check_host(ctx, "aicf_tensor_write_pb")) return AICF_ERROR_UNSUPPORTED;
    esize = aicf__onnx_dtype_size(t->dtype);
    if (!esize)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "aicf_tensor_write_pb: dtype %d (%s) is not supported", (int)t->dtype,
                         aicf__onnx_dtype_name(t->dtype));
    if (t->rank < 0 || t->rank > AICF_MAX_RANK)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: rank %d is outside 0..%d", t->rank, AICF_MAX_RANK);
    for (i = 0; i < t->rank; ++i) {
        if (t->dims[i] < 0 || (uint64_t)t->dims[i] > (uint64_t)SIZE_MAX ||
            !aicf__mul_size(numel, (size_t)t->dims[i], &numel))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: dims[%d] = %lld is invalid", i,
                             (long long)t->dims[i]);
    }
    if (!aicf__mul_size(numel, esize, &n))
        return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_tensor_write_pb: the size of the dims overflows");
    if (n != t->bytes)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: bytes is %zu, the dims and dtype need %zu",
                         t->bytes, n);
    if (t->bytes && !t->data) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: data is NULL");
    nlen = t->name ? strlen(t->name) : 0;
    for (i = 0; i < t->rank; ++i) need += 1 + aicf__pb_put_varint(NULL, (uint64_t)t->dims[i]);
    need += 1 + aicf__pb_put_varint(NULL, (uint64_t)t->dtype);
    if (nlen) need += 1 + aicf__pb_put_varint(NULL, nlen) + nlen;
    if (!aicf__add_size(need, 1 + aicf__pb_put_varint(NULL, t->bytes), &need) || !aicf__add_size(need, t->bytes, &need))
        return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_tensor_write_pb: tensor too large");
    buf = (unsigned char*)aicf__malloc(ctx, need);
    if (!buf) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_tensor_write_pb: out of memory (%zu bytes)", need);
    for (i = 0; i < t->rank; ++i) {
        buf[pos++] = 0x08; /* dims = 1, varint */
        pos += aicf__pb_put_varint(buf + pos, (uint64_t)t->dims[i]);
    }
    buf[pos++] = 0x10; /* data_type = 2, varint */
    pos += aicf__pb_put_varint(buf + pos, (uint64_t)t->dtype);
    if (nlen) {
        buf[pos++] = 0x42; /* name = 8, length-delimited */
        pos += aicf__pb_put_varint(buf + pos, nlen);
        memcpy(buf + pos, t->name, nlen);
        pos += nlen;
    }
    buf[pos++] = 0x4a; /* raw_data = 9, length-delimited */
    pos += aicf__pb_put_varint(buf + pos, t->bytes);
    if (t->bytes) memcpy(buf + pos, t->data, t->bytes);
    pos += t->bytes;
    fp = fopen(path, "wb");
    if (!fp) {
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "aicf_tensor_write_pb: cannot create '%s': %s", path, strerror(errno));
    }
    ok = fwrite(buf, 1, pos, fp) == pos;
    ok = (fclose(fp) == 0) && ok;
    aicf__free(ctx, buf);
    if (!ok) return aicf__err(ctx, AICF_ERROR_IO, "aicf_tensor_write_pb: error writing '%s'", path);
    return AICF_SUCCESS;
}

AICF_API void aicf_host_tensor_free(aicf_context* ctx, aicf_host_tensor* t)
{
    if (!ctx || !t) return;
    if (t->name) aicf__free(ctx, t->name);
    if (t->data) aicf__free(ctx, t->data);
    memset(t, 0, sizeof(*t));
}
