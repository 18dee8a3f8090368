/* onnx_dump: loads ONNX models with aicf and prints a canonical text summary of the graph that
   the loader built, for comparison with tests/onnx_crosscheck.py (which prints the same summary
   from the `onnx` Python package).

   usage: onnx_dump MODEL.onnx [MODEL2.onnx ...]

   Format (one model):
     opset N
     input "NAME" DTYPE [d0,d1,...]          graph inputs (not initializers), in order; a
                                             symbolic dim prints as its dim_param
     output "NAME"                           graph outputs, in order
     const "NAME" DTYPE [dims] FNV           initializers sorted by name (byte order); FNV is the
                                             FNV-1a-64 of the dense little-endian bytes
     node I "NAME" OP_TYPE in=["a","",...] out=[...]     every node, in order
       attr "NAME" TYPE VALUE                every attribute, in order: FLOAT %.9g, INT, STRING
                                             "...", FLOATS/INTS/STRINGS [...], TENSOR DTYPE [dims] FNV,
                                             GRAPH { then the subgraph's summary, indented by 4
                                             more spaces, then "  }" at the attribute's indent
   A subgraph's summary has no opset line; its inputs print "?" for an unknown shape (and
   UNDEFINED for an unknown or unsupported type), and after them come its outer references,
   in order of first use (node inputs in node order, then graph outputs):
     outer "NAME"
   Strings are printed in double quotes with bytes outside 0x20..0x7e, '"' and '\' as \xHH.
   With several models each summary is preceded by "== PATH". A model that fails to load
   prints "!error RESULT_NAME: MESSAGE". Exit status (one model): 0 loaded, 2 the load failed
   with AICF_ERROR_UNSUPPORTED, 1 any other failure. */
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static const char* dump_dtype(int dt)
{
    static const char* const names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
                                        "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
                                        "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
    if (dt >= 0 && dt < (int)(sizeof(names) / sizeof(names[0]))) return names[dt];
    return "?";
}

static void dump_str(const char* s)
{
    const unsigned char* p = (const unsigned char*)(s ? s : "");
    putchar('"');
    for (; *p; ++p) {
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') putchar(*p);
        else printf("\\x%02x", *p);
    }
    putchar('"');
}

static void dump_float(float f)
{
    if (isnan(f)) printf("nan");
    else printf("%.9g", (double)f);
}

static uint64_t dump_fnv(const void* data, size_t n)
{
    const unsigned char* p = (const unsigned char*)data;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void dump_tensor_value(const aicf__tensor* t)
{
    int i;
    printf("%s [", dump_dtype((int)t->dtype));
    for (i = 0; i < t->shape.rank; ++i) printf("%s%lld", i ? "," : "", (long long)t->shape.d[i]);
    printf("] %016llx", (unsigned long long)dump_fnv(t->data, t->data_bytes));
}

static const char* tensor_name(const aicf_graph* g, int t) { return t < 0 ? "" : g->tensors[t].name; }

static int cmp_const(const void* a, const void* b, const aicf_graph* g)
{
    return strcmp(g->tensors[*(const int*)a].name, g->tensors[*(const int*)b].name);
}

/* insertion sort with a context (qsort has none in C99) */
static void sort_consts(int* idx, int n, const aicf_graph* g)
{
    int i, j;
    for (i = 1; i < n; ++i) {
        int v = idx[i];
        for (j = i; j > 0 && cmp_const(&idx[j - 1], &v, g) > 0; --j) idx[j] = idx[j - 1];
        idx[j] = v;
    }
}

static void dump_graph(const aicf_graph* g, int depth)
{
    int i, j, n_consts = 0;
    int* consts;
    char* is_attr_tensor;
    char ind[64];
    int w = depth * 4 < (int)sizeof(ind) - 1 ? depth * 4 : (int)sizeof(ind) - 1;
    memset(ind, ' ', (size_t)w);
    ind[w] = 0;
    if (depth == 0) printf("opset %lld\n", (long long)g->opset);
    for (i = 0; i < g->n_inputs; ++i) {
        const aicf__tensor* t = &g->tensors[g->inputs[i]];
        printf("%sinput ", ind);
        dump_str(t->name);
        printf(" %s ", dump_dtype((int)t->dtype));
        if (t->shape.rank < 0) {
            printf("?\n");
            continue;
        }
        putchar('[');
        for (j = 0; j < t->shape.rank; ++j) {
            if (j) putchar(',');
            if (t->shape.d[j] >= 0) printf("%lld", (long long)t->shape.d[j]);
            else printf("%s", t->dim_param[j] ? t->dim_param[j] : "?");
        }
        printf("]\n");
    }
    for (i = 0; i < g->n_tensors && depth > 0; ++i)
        if (g->tensors[i].flags & AICF__T_OUTER) {
            printf("%souter ", ind);
            dump_str(g->tensors[i].name);
            putchar('\n');
        }
    for (i = 0; i < g->n_outputs; ++i) {
        printf("%soutput ", ind);
        dump_str(g->tensors[g->outputs[i]].name);
        putchar('\n');
    }
    /* constants, without the ones that hold TENSOR attributes */
    is_attr_tensor = (char*)calloc((size_t)g->n_tensors + 1, 1);
    consts = (int*)malloc(((size_t)g->n_tensors + 1) * sizeof(int));
    if (!is_attr_tensor || !consts) {
        fprintf(stderr, "onnx_dump: out of memory\n");
        exit(1);
    }
    for (i = 0; i < g->n_nodes; ++i)
        for (j = 0; j < g->nodes[i].n_attrs; ++j)
            if (g->nodes[i].attrs[j].type == AICF_ATTR_TENSOR && g->nodes[i].attrs[j].tensor >= 0)
                is_attr_tensor[g->nodes[i].attrs[j].tensor] = 1;
    for (i = 0; i < g->n_tensors; ++i)
        if ((g->tensors[i].flags & AICF__T_CONST) && !is_attr_tensor[i]) consts[n_consts++] = i;
    sort_consts(consts, n_consts, g);
    for (i = 0; i < n_consts; ++i) {
        printf("%sconst ", ind);
        dump_str(g->tensors[consts[i]].name);
        putchar(' ');
        dump_tensor_value(&g->tensors[consts[i]]);
        putchar('\n');
    }
    free(consts);
    free(is_attr_tensor);
    for (i = 0; i < g->n_nodes; ++i) {
        const aicf__node* n = &g->nodes[i];
        printf("%snode %d ", ind, i);
        dump_str(n->name);
        printf(" %s in=[", n->op_type);
        for (j = 0; j < n->n_in; ++j) {
            if (j) putchar(',');
            dump_str(tensor_name(g, n->in[j]));
        }
        printf("] out=[");
        for (j = 0; j < n->n_out; ++j) {
            if (j) putchar(',');
            dump_str(tensor_name(g, n->out[j]));
        }
        printf("]\n");
        for (j = 0; j < n->n_attrs; ++j) {
            const aicf__attrv* a = &n->attrs[j];
            int k;
            printf("%s  attr ", ind);
            dump_str(a->name);
            switch (a->type) {
            case AICF_ATTR_FLOAT:
                printf(" FLOAT ");
                dump_float(a->f);
                break;
            case AICF_ATTR_INT: printf(" INT %lld", (long long)a->i); break;
            case AICF_ATTR_STRING:
                printf(" STRING ");
                dump_str(a->s);
                break;
            case AICF_ATTR_FLOATS:
                printf(" FLOATS [");
                for (k = 0; k < a->count; ++k) {
                    if (k) putchar(',');
                    dump_float(a->floats[k]);
                }
                putchar(']');
                break;
            case AICF_ATTR_INTS:
                printf(" INTS [");
                for (k = 0; k < a->count; ++k) printf("%s%lld", k ? "," : "", (long long)a->ints[k]);
                putchar(']');
                break;
            case AICF_ATTR_STRINGS:
                printf(" STRINGS [");
                for (k = 0; k < a->count; ++k) {
                    if (k) putchar(',');
                    dump_str(a->strings[k]);
                }
                putchar(']');
                break;
            case AICF_ATTR_TENSOR:
                printf(" TENSOR ");
                if (a->tensor >= 0) dump_tensor_value(&g->tensors[a->tensor]);
                else printf("?");
                break;
            case AICF_ATTR_GRAPH:
                printf(" GRAPH {\n");
                if (a->g) dump_graph(a->g, depth + 1);
                printf("%s  }", ind);
                break;
            default: printf(" TYPE%d", (int)a->type); break;
            }
            putchar('\n');
        }
    }
}

static const char* result_name(aicf_result r)
{
    switch (r) {
#define DUMP_RESULT_NAME(name, value, text) case name: return #name;
        AICF_RESULTS(DUMP_RESULT_NAME)
#undef DUMP_RESULT_NAME
    default: return "?";
    }
}

int main(int argc, char** argv)
{
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    aicf_result r;
    int i, status = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: onnx_dump MODEL.onnx [MODEL2.onnx ...]\n");
        return 1;
    }
    memset(&cd, 0, sizeof(cd));
    cd.flags = AICF_CONTEXT_NO_CUDA;
    r = aicf_context_create(&cd, &ctx);
    if (r != AICF_SUCCESS) {
        fprintf(stderr, "onnx_dump: aicf_context_create: %s\n", aicf_result_str(r));
        return 1;
    }
    for (i = 1; i < argc; ++i) {
        aicf_graph* g = NULL;
        if (argc > 2) printf("== %s\n", argv[i]);
        r = aicf_graph_load_onnx(ctx, argv[i], NULL, &g);
        if (r != AICF_SUCCESS) {
            printf("!error %s: %s\n", result_name(r), aicf_last_error(ctx));
            if (argc == 2) status = r == AICF_ERROR_UNSUPPORTED ? 2 : 1;
        } else {
            dump_graph(g, 0);
            aicf_graph_destroy(g);
        }
        fflush(stdout);
    }
    aicf_context_destroy(ctx);
    return status;
}
