/* aicf command line: run, plan and benchmark ONNX models.

     aicf run MODEL.onnx [--backend cpu|cuda] [--precision fp32|tf32|fp16] [--dim NAME=VALUE]...
              [--bind NAME=FILE.pb]... [--input FILE.pb]... [--input-arange] [--output FILE.pb]...
              [--check DIR]... [--expect FILE.pb]... [--tol REL]
     aicf plan MODEL.onnx [--backend cpu|cuda] [--precision ...] [--dim NAME=VALUE]... [--bind NAME=FILE.pb]...
              [--explain] [--dot FILE.dot] [--save FILE.plan]
     aicf bench MODEL.onnx [--backend cpu|cuda] [--precision ...] [--dim NAME=VALUE]... [--bind NAME=FILE.pb]...
              [--iters N] [--warmup N] [--input FILE.pb]... [--output FILE.pb]... [--io device|host] [--pdl] [--json]
     aicf profile MODEL.onnx [--backend cpu|cuda] [--precision ...] [--dim NAME=VALUE]... [--bind NAME=FILE.pb]...
              [--iters N] [--warmup N] [--input FILE.pb]... [--top N] [--pdl] [--json]
     aicf range MODEL.onnx [--dim NAME=VALUE]... [--bind NAME=FILE.pb]... [--input FILE.pb]... [--check DIR]
              [--input-arange]
     aicf info

   Policy options (run, plan, bench, range): --policy FILE (a policy text file, see
   aicf_policy_parse), then --precision, --no-fusion, --persistent, --autotune, --no-pdl, --gelu-tanh,
   --conv-algo auto|direct|im2col_gemm|implicit_gemm_tc and --matmul-algo auto|cublaslt|generated
   override its keys, and each --pin "CHOICE[/K] NODE" adds a pin (the policy text's `pin` key).
   --gelu-tanh (policy gelu_tanh = 1) lets a Gelu of the erf form run in its tanh form inside
   cuBLASLt's GEMM (at most 4.7e-4 apart; aicf_policy.gelu_tanh).
   --plan FILE.plan (run, plan, bench) loads a saved plan instead of planning: the model, dim
   bindings, kernel table, device and cuBLASLt must be those it was made with (else the error
   names what differs and the exit status is 1); the policy is the file's, so the policy options
   are refused with it. plan --save FILE.plan writes the plan file, --dot FILE.dot the plan as a
   Graphviz graph (fusion groups as clusters), --explain prints per step the fused nodes, the
   launches and why each kernel was chosen instead of the plan summary.

   --bind NAME=FILE.pb turns graph input NAME into a constant holding the tensor in FILE.pb,
   fixed at plan time (aicf_graph_bind_input_value): for inputs that steer shapes or control
   flow, such as the sample rate that selects an If branch. The plan then no longer has that
   input. --check DIR binds the data set's integer and bool inputs the same way (a plan per
   data set), as the ONNX node-test runner does; float inputs stay inputs.

   range runs the model on the CPU reference and reports the largest and smallest per-tensor
   max |x| of its activations: whether this input's values fit float16 storage.
   bench --io device (the default) keeps inputs and outputs in device memory (AICF_EXEC_DEVICE_IO):
   the timed replay is the network's work on a device-resident input, as PyTorch's peers are
   timed; --io host stages them through pinned host memory with copy nodes inside the graph
   (what aicf_exec_set_input / get_output users pay per replay).
   bench and profile --pdl create the exec with AICF_EXEC_PDL: programmatic dependent launch
   between consecutive generated kernels (sm_90+) even where the plan made none (policy
   no_pdl = 1); the plan's default already makes those edges (see docs/benchmarks.md).
   profile times every step of the plan (aicf_exec_profile: CUDA events between steps) and prints
   them in plan order with their share, then the --top N (default 10) steps by time.
   --check DIR compares with an ONNX test_data_set folder (input_K.pb, output_K.pb) and prints
   the max absolute and relative error per output; relative error = ||got - ref|| / ||ref||.
   Exit status: 0 on success, 1 on an error, 2 when a check exceeds --tol (default 1e-5 at fp32,
   5e-3 at tf32, 1e-2 at fp16). */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 64

typedef struct opts {
    const char* cmd;
    const char* model;
    aicf_backend backend;
    aicf_precision precision;
    const char* dim_names[MAXN];
    int64_t dim_values[MAXN];
    int n_dims;
    const char* bind_names[MAXN]; /* --bind NAME=FILE.pb (names malloc'd) */
    const char* bind_files[MAXN];
    int n_binds;
    const char* inputs[MAXN];
    int n_inputs;
    const char* outputs[MAXN];
    int n_outputs;
    const char* checks[MAXN];
    int n_checks;
    const char* expects[MAXN];
    int n_expects;
    int input_arange;
    int iters, warmup, json;
    double tol;
    /* policy and plan files */
    const char* policy_file; /* --policy */
    int no_fusion;           /* --no-fusion */
    int persistent;          /* --persistent */
    int autotune;            /* --autotune */
    int no_pdl;              /* --no-pdl */
    int gelu_tanh;           /* --gelu-tanh */
    const char* pins[16];    /* --pin, as the policy text's `pin = ...` value */
    int n_pins;
    int conv_algo;           /* --conv-algo, -1 = not given */
    int matmul_algo;         /* --matmul-algo, -1 = not given */
    int no_cublaslt;         /* --no-cublaslt: the context does not load cuBLASLt */
    const char* plan_file;   /* --plan: load instead of planning */
    const char* save_file;   /* plan --save */
    const char* dot_file;    /* plan --dot */
    int explain;             /* plan --explain */
    int io_host;             /* bench --io host: staged through pinned memory */
    int pdl;                 /* bench, profile --pdl: AICF_EXEC_PDL (programmatic dependent launch) */
    int top;                 /* profile --top N */
} opts;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int usage(void) {
    fprintf(stderr,
            "usage: aicf run MODEL.onnx [--backend cpu|cuda] [--precision fp32|tf32|fp16] [--dim NAME=VALUE]...\n"
            "                [--bind NAME=FILE.pb]... [--input FILE.pb]... [--input-arange] [--output FILE.pb]...\n"
            "                [--check DIR]... [--expect FILE.pb]... [--tol REL]\n"
            "       aicf plan MODEL.onnx [--backend cpu|cuda] [--precision ...] [--dim NAME=VALUE]... [--bind NAME=FILE.pb]...\n"
            "                [--explain] [--dot FILE.dot] [--save FILE.plan]\n"
            "       aicf bench MODEL.onnx [--backend ...] [--precision ...] [--dim NAME=VALUE]... [--bind NAME=FILE.pb]...\n"
            "                [--iters N] [--warmup N] [--input FILE.pb]... [--output FILE.pb]... [--io device|host]\n"
            "                [--pdl] [--json]\n"
            "       aicf profile MODEL.onnx [--backend ...] [--precision ...] [--dim NAME=VALUE]... [--iters N]\n"
            "                [--warmup N] [--input FILE.pb]... [--top N] [--pdl] [--json]\n"
            "       aicf range MODEL.onnx [--dim NAME=VALUE]... [--bind NAME=FILE.pb]... [--input FILE.pb]... [--check DIR]\n"
            "                [--input-arange] [--json]\n"
            "       aicf info\n"
            "  policy (run, plan, bench, range): [--policy FILE] [--precision ...] [--no-fusion] [--persistent] [--autotune]\n"
            "                [--no-pdl] [--gelu-tanh] [--pin \"CHOICE[/K] NODE\"]...\n"
            "                [--conv-algo auto|direct|im2col_gemm|implicit_gemm_tc] [--matmul-algo auto|cublaslt|generated]\n"
            "  --no-cublaslt        do not load cuBLASLt (plans as a deployment without it: the generated GEMMs)\n"
            "  --plan FILE.plan     (run, plan, bench) load a saved plan instead of planning; refused, with the\n"
            "                       reason, when the model, bindings, kernel table, device or cuBLASLt differ\n"
            "  --bind NAME=FILE.pb  graph input NAME becomes a constant with the tensor in FILE.pb, fixed at plan\n"
            "                       time (inputs that steer shapes or an If); --check DIR binds the data set's\n"
            "                       integer and bool inputs that way (one plan per data set)\n");
    return 1;
}

static int parse(int argc, char** argv, opts* o) {
    int i;
    memset(o, 0, sizeof *o);
    o->iters = 1000;
    o->warmup = -1;
    o->tol = -1;
    o->conv_algo = -1;
    o->matmul_algo = -1;
    if (argc < 2) return 0;
    o->cmd = argv[1];
    for (i = 2; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE                                                                                 \
    if (!v) {                                                                                      \
        fprintf(stderr, "aicf: %s needs a value\n", a);                                           \
        return 0;                                                                                  \
    }                                                                                              \
    i++;
#define PUSH(arr, n)                                                                               \
    if (o->n >= MAXN) {                                                                            \
        fprintf(stderr, "aicf: too many %s\n", a);                                                \
        return 0;                                                                                  \
    }                                                                                              \
    o->arr[o->n++] = v;
        if (strcmp(a, "--backend") == 0) {
            NEED_VALUE
            if (strcmp(v, "cpu") == 0) o->backend = AICF_BACKEND_CPU;
            else if (strcmp(v, "cuda") == 0) o->backend = AICF_BACKEND_CUDA;
            else if (strcmp(v, "auto") == 0) o->backend = AICF_BACKEND_DEFAULT;
            else {
                fprintf(stderr, "aicf: --backend must be cpu, cuda or auto, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--precision") == 0) {
            NEED_VALUE
            if (strcmp(v, "fp32") == 0) o->precision = AICF_PRECISION_FP32;
            else if (strcmp(v, "tf32") == 0) o->precision = AICF_PRECISION_TF32;
            else if (strcmp(v, "fp16") == 0) o->precision = AICF_PRECISION_FP16;
            else {
                fprintf(stderr, "aicf: --precision must be fp32, tf32 or fp16, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--dim") == 0) {
            const char* eq;
            char* end;
            NEED_VALUE
            eq = strchr(v, '=');
            if (!eq || eq == v || o->n_dims >= MAXN) {
                fprintf(stderr, "aicf: --dim expects NAME=VALUE, got '%s'\n", v);
                return 0;
            }
            {
                size_t len = (size_t)(eq - v);
                char* name = (char*)malloc(len + 1);
                memcpy(name, v, len);
                name[len] = 0;
                o->dim_names[o->n_dims] = name;
            }
            o->dim_values[o->n_dims] = strtoll(eq + 1, &end, 10);
            if (*end || o->dim_values[o->n_dims] < 1) {
                fprintf(stderr, "aicf: --dim %s: value must be a positive integer\n", v);
                return 0;
            }
            o->n_dims++;
        } else if (strcmp(a, "--bind") == 0) {
            const char* eq;
            NEED_VALUE
            eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1] || o->n_binds >= MAXN) {
                fprintf(stderr, "aicf: --bind expects NAME=FILE.pb, got '%s'\n", v);
                return 0;
            }
            {
                size_t len = (size_t)(eq - v);
                char* name = (char*)malloc(len + 1);
                memcpy(name, v, len);
                name[len] = 0;
                o->bind_names[o->n_binds] = name;
                o->bind_files[o->n_binds] = eq + 1;
                o->n_binds++;
            }
        } else if (strcmp(a, "--input") == 0) {
            NEED_VALUE
            PUSH(inputs, n_inputs)
        } else if (strcmp(a, "--output") == 0) {
            NEED_VALUE
            PUSH(outputs, n_outputs)
        } else if (strcmp(a, "--check") == 0) {
            NEED_VALUE
            PUSH(checks, n_checks)
        } else if (strcmp(a, "--expect") == 0) {
            NEED_VALUE
            PUSH(expects, n_expects)
        } else if (strcmp(a, "--input-arange") == 0) {
            o->input_arange = 1;
        } else if (strcmp(a, "--iters") == 0) {
            NEED_VALUE
            o->iters = atoi(v);
            if (o->iters < 1) {
                fprintf(stderr, "aicf: --iters must be >= 1\n");
                return 0;
            }
        } else if (strcmp(a, "--warmup") == 0) {
            NEED_VALUE
            o->warmup = atoi(v);
        } else if (strcmp(a, "--tol") == 0) {
            NEED_VALUE
            o->tol = atof(v);
        } else if (strcmp(a, "--policy") == 0) {
            NEED_VALUE
            o->policy_file = v;
        } else if (strcmp(a, "--no-fusion") == 0) {
            o->no_fusion = 1;
        } else if (strcmp(a, "--persistent") == 0) {
            o->persistent = 1;
        } else if (strcmp(a, "--autotune") == 0) {
            o->autotune = 1;
        } else if (strcmp(a, "--no-pdl") == 0) {
            o->no_pdl = 1;
        } else if (strcmp(a, "--gelu-tanh") == 0) {
            o->gelu_tanh = 1;
        } else if (strcmp(a, "--pin") == 0) {
            NEED_VALUE
            if (o->n_pins >= 16) {
                fprintf(stderr, "aicf: at most 16 --pin options\n");
                return 0;
            }
            o->pins[o->n_pins++] = v;
        } else if (strcmp(a, "--conv-algo") == 0) {
            NEED_VALUE
            if (strcmp(v, "auto") == 0) o->conv_algo = AICF_CONV_AUTO;
            else if (strcmp(v, "direct") == 0) o->conv_algo = AICF_CONV_DIRECT;
            else if (strcmp(v, "im2col_gemm") == 0) o->conv_algo = AICF_CONV_IM2COL_GEMM;
            else if (strcmp(v, "implicit_gemm_tc") == 0) o->conv_algo = AICF_CONV_IMPLICIT_GEMM_TC;
            else {
                fprintf(stderr, "aicf: --conv-algo must be auto, direct, im2col_gemm or implicit_gemm_tc, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--no-cublaslt") == 0) {
            o->no_cublaslt = 1;
        } else if (strcmp(a, "--matmul-algo") == 0) {
            NEED_VALUE
            if (strcmp(v, "auto") == 0) o->matmul_algo = AICF_MATMUL_AUTO;
            else if (strcmp(v, "cublaslt") == 0) o->matmul_algo = AICF_MATMUL_CUBLASLT;
            else if (strcmp(v, "generated") == 0) o->matmul_algo = AICF_MATMUL_GENERATED;
            else {
                fprintf(stderr, "aicf: --matmul-algo must be auto, cublaslt or generated, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--plan") == 0) {
            NEED_VALUE
            o->plan_file = v;
        } else if (strcmp(a, "--save") == 0) {
            NEED_VALUE
            o->save_file = v;
        } else if (strcmp(a, "--dot") == 0) {
            NEED_VALUE
            o->dot_file = v;
        } else if (strcmp(a, "--explain") == 0) {
            o->explain = 1;
        } else if (strcmp(a, "--io") == 0) {
            NEED_VALUE
            if (strcmp(v, "host") == 0) o->io_host = 1;
            else if (strcmp(v, "device") == 0) o->io_host = 0;
            else {
                fprintf(stderr, "aicf: --io takes device or host, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--pdl") == 0) {
            o->pdl = 1;
        } else if (strcmp(a, "--top") == 0) {
            NEED_VALUE
            o->top = atoi(v);
            if (o->top < 1) {
                fprintf(stderr, "aicf: --top takes a count >= 1, not '%s'\n", v);
                return 0;
            }
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "aicf: unknown option '%s'\n", a);
            return 0;
        } else if (!o->model) {
            o->model = a;
        } else {
            fprintf(stderr, "aicf: unexpected argument '%s'\n", a);
            return 0;
        }
    }
    if ((o->save_file || o->dot_file || o->explain) && strcmp(o->cmd, "plan") != 0) {
        fprintf(stderr, "aicf: --save, --dot and --explain belong to the plan command\n");
        return 0;
    }
    if (o->plan_file && (o->policy_file || o->precision || o->no_fusion || o->persistent || o->autotune || o->no_pdl || o->gelu_tanh || o->n_pins ||
                         o->conv_algo >= 0 || o->matmul_algo >= 0)) {
        fprintf(stderr, "aicf: --plan takes the policy from the plan file; drop --policy, --precision, --no-fusion, --persistent, "
                        "--autotune, --no-pdl, --gelu-tanh, --pin, --conv-algo and --matmul-algo\n");
        return 0;
    }
    if (o->plan_file && strcmp(o->cmd, "range") == 0) {
        fprintf(stderr, "aicf: range plans on the CPU reference itself; --plan does not apply\n");
        return 0;
    }
    if (o->warmup < 0) o->warmup = o->iters / 10 > 10 ? o->iters / 10 : 10;
    return 1;
}

static int fail(aicf_context* ctx, aicf_result r, const char* what) {
    fprintf(stderr, "aicf: %s: %s: %s\n", what, aicf_result_str(r), ctx ? aicf_last_error(ctx) : "");
    return 1;
}

/* Index of graph input `name`, -1 if it is not one (any more). */
static int graph_input_index(const aicf_graph* g, const char* name) {
    int i;
    for (i = 0; i < aicf_graph_num_inputs(g); i++) {
        aicf_tensor_info ti;
        if (aicf_graph_input_info(g, i, &ti) == AICF_SUCCESS && strcmp(ti.name, name) == 0) return i;
    }
    return -1;
}

/* Makes graph input `name` a constant holding the tensor of a .pb file. */
static int bind_file(aicf_context* ctx, aicf_graph* g, const char* name, const char* path) {
    aicf_tensor_info ti;
    aicf_host_tensor ht;
    aicf_result r;
    int k = graph_input_index(g, name);
    if (k < 0) {
        fprintf(stderr, "aicf: --bind %s: the model has no input '%s'\n", path, name);
        return 1;
    }
    aicf_graph_input_info(g, k, &ti);
    r = aicf_tensor_read_pb(ctx, path, &ht);
    if (r != AICF_SUCCESS) return fail(ctx, r, path);
    if (ht.dtype != ti.dtype) {
        fprintf(stderr, "aicf: %s: tensor %s does not match input '%s' (%s)\n", path, aicf_dtype_name(ht.dtype), name,
                aicf_dtype_name(ti.dtype));
        aicf_host_tensor_free(ctx, &ht);
        return 1;
    }
    r = aicf_graph_bind_input_value(g, name, ht.data, ht.bytes);
    aicf_host_tensor_free(ctx, &ht);
    if (r != AICF_SUCCESS) return fail(ctx, r, "bind");
    return 0;
}

static int is_float_dtype(aicf_dtype dt) {
    return dt == AICF_DTYPE_FLOAT32 || dt == AICF_DTYPE_FLOAT16 || dt == AICF_DTYPE_FLOAT64 || dt == AICF_DTYPE_BFLOAT16;
}

static int file_exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* The data set file of input `name`, model position k: the input_J.pb named `name`, else
   input_K.pb. */
static void data_set_file(aicf_context* ctx, const char* dir, const char* name, int k, char* path, size_t cap) {
    int j;
    for (j = 0; j < MAXN; j++) {
        aicf_host_tensor t;
        int same;
        snprintf(path, cap, "%s/input_%d.pb", dir, j);
        if (!file_exists(path)) break;
        if (aicf_tensor_read_pb(ctx, path, &t) != AICF_SUCCESS) continue;
        same = t.name && strcmp(t.name, name) == 0;
        aicf_host_tensor_free(ctx, &t);
        if (same) return;
    }
    snprintf(path, cap, "%s/input_%d.pb", dir, k);
}

/* Loads the model, applies --bind (and, with check_dir, binds the data set's non-float inputs)
   and makes the plan. pos (optional) receives, per plan input, its position among the model's
   inputs (for input_K.pb). */
/* CUDA initialisation on the context, once (make_plan_ex): ms, -1 not tried, -2 no device */
static double g_device_init_ms = -1.0;

static int make_plan_ex(aicf_context* ctx, const opts* o, const char* check_dir, aicf_plan** plan, double* plan_ms,
                        int* pos) {
    aicf_graph* g = NULL;
    aicf_onnx_desc od;
    aicf_plan_desc pd;
    aicf_result r;
    double t0;
    char* names0[MAXN];
    aicf_dtype dt0[MAXN];
    int n0, i, k, rc = 0;
    memset(&od, 0, sizeof od);
    od.num_dims = o->n_dims;
    od.dim_names = o->dim_names;
    od.dim_values = o->dim_values;
    if (o->backend != AICF_BACKEND_CPU && g_device_init_ms == -1.0) {
        /* the driver, the primary context and cuBLASLt load once per context, on first use: timed
           apart, so that the plan time is what every later plan on this context costs */
        aicf_device_info info;
        double ti0 = now_us();
        if (aicf_context_device_info(ctx, &info) == AICF_SUCCESS) g_device_init_ms = (now_us() - ti0) / 1e3;
        else g_device_init_ms = -2.0; /* no device: aicf_plan_create reports it or falls back */
    }
    t0 = now_us();
    r = aicf_graph_load_onnx(ctx, o->model, &od, &g);
    if (r != AICF_SUCCESS) return fail(ctx, r, o->model);
    n0 = aicf_graph_num_inputs(g);
    if (n0 > MAXN) n0 = MAXN;
    for (k = 0; k < n0; k++) {
        aicf_tensor_info ti;
        aicf_graph_input_info(g, k, &ti);
        names0[k] = strdup(ti.name);
        dt0[k] = ti.dtype;
    }
    for (i = 0; !rc && i < o->n_binds; i++) rc = bind_file(ctx, g, o->bind_names[i], o->bind_files[i]);
    for (k = 0; !rc && check_dir && k < n0; k++) {
        char path[4096];
        if (is_float_dtype(dt0[k]) || graph_input_index(g, names0[k]) < 0) continue;
        data_set_file(ctx, check_dir, names0[k], k, path, sizeof path);
        if (file_exists(path)) rc = bind_file(ctx, g, names0[k], path);
    }
    if (!rc && o->plan_file) { /* a saved plan: checked against this model, build and device */
        r = aicf_plan_load(g, o->plan_file, plan);
        if (plan_ms) *plan_ms = (now_us() - t0) / 1e3;
        if (r != AICF_SUCCESS) rc = fail(ctx, r, "--plan");
    } else if (!rc) {
        memset(&pd, 0, sizeof pd);
        if (o->policy_file && (r = aicf_policy_load(ctx, o->policy_file, &pd.policy)) != AICF_SUCCESS) {
            aicf_graph_destroy(g);
            for (k = 0; k < n0; k++) free(names0[k]);
            return fail(ctx, r, "--policy");
        }
        pd.backend = o->backend;
        if (o->precision) pd.policy.precision = o->precision;
        if (o->no_fusion) pd.policy.no_fusion = 1;
        if (o->persistent) pd.policy.persistent = 1;
        if (o->no_pdl) pd.policy.no_pdl = 1;
        if (o->gelu_tanh) pd.policy.gelu_tanh = 1;
        if (o->autotune) pd.policy.autotune = 1;
        for (k = 0; k < o->n_pins && !rc; k++) { /* each through the policy parser, into the next free slot */
            char text[4200];
            aicf_policy one;
            int slot;
            snprintf(text, sizeof text, "pin = %s\n", o->pins[k]);
            if ((r = aicf_policy_parse(ctx, text, strlen(text), &one)) != AICF_SUCCESS) {
                rc = fail(ctx, r, "--pin");
                break;
            }
            for (slot = 0; slot < AICF_MAX_PINS && pd.policy.pins[slot].node[0]; slot++) {
            }
            if (slot == AICF_MAX_PINS) {
                fprintf(stderr, "aicf: --pin '%s': the policy already has %d pins\n", o->pins[k], AICF_MAX_PINS);
                rc = 1;
                break;
            }
            pd.policy.pins[slot] = one.pins[0];
        }
        if (rc) {
            aicf_graph_destroy(g);
            for (k = 0; k < n0; k++) free(names0[k]);
            return rc;
        }
        if (o->conv_algo >= 0) pd.policy.conv_algo = (aicf_conv_algo)o->conv_algo;
        if (o->matmul_algo >= 0) pd.policy.matmul_algo = (aicf_matmul_algo)o->matmul_algo;
        if (o->backend == AICF_BACKEND_DEFAULT) pd.policy.allow_cpu_fallback = 1;
        r = aicf_plan_create(g, &pd, plan);
        if (plan_ms) *plan_ms = (now_us() - t0) / 1e3;
        if (r != AICF_SUCCESS) {
            rc = fail(ctx, r, "plan");
            if (strstr(aicf_last_error(ctx), "is not known at plan time"))
                fprintf(stderr, "aicf: give the inputs the condition depends on with --bind NAME=FILE.pb\n");
        }
    }
    for (i = 0; !rc && pos && i < aicf_plan_num_inputs(*plan); i++) {
        aicf_tensor_info ti;
        aicf_plan_input_info(*plan, i, &ti);
        pos[i] = i;
        for (k = 0; k < n0; k++)
            if (strcmp(names0[k], ti.name) == 0) pos[i] = k;
    }
    aicf_graph_destroy(g);
    for (k = 0; k < n0; k++) free(names0[k]);
    return rc;
}

static int make_plan(aicf_context* ctx, const opts* o, aicf_plan** plan, double* plan_ms) {
    return make_plan_ex(ctx, o, NULL, plan, plan_ms, NULL);
}

/* --tol, else by the plan's precision: 1e-5 at fp32, 5e-3 at tf32, 1e-2 at fp16. TF32 rounds
   both GEMM operands to 10 mantissa bits (unit roundoff 2^-11 = 4.9e-4) in every Gemm, MatMul
   and im2col convolution; through the reference models' tens of layers that measured 1.0e-3
   (mobilenet_v3_small) and 1.4e-3 (ppocr_cls) on an H100. */
static double tol_for(const opts* o, const aicf_plan* p) {
    aicf_plan_stats ps;
    if (o->tol >= 0) return o->tol;
    aicf_plan_stats_get(p, &ps);
    return ps.precision == AICF_PRECISION_FP16 ? 1e-2 : ps.precision == AICF_PRECISION_TF32 ? 5e-3 : 1e-5;
}

/* The data set's input files for the plan's inputs (files[i] NULL where absent); returns the
   count. Free with free_files. */
static int data_set_files(const char* dir, const aicf_plan* p, const int* pos, const char** files) {
    int i, n = aicf_plan_num_inputs(p);
    if (n > MAXN) n = MAXN;
    for (i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/input_%d.pb", dir, pos[i]);
        files[i] = file_exists(path) ? strdup(path) : NULL;
    }
    return n;
}

static void free_files(const char** files, int n) {
    int i;
    for (i = 0; i < n; i++) free((void*)files[i]);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static float frand(void) { /* xorshift64*, uniform in [-1, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* Fills input `i` from a .pb file (by name, else by position), arange(n)/n, or random data. */
static int set_inputs(aicf_context* ctx, aicf_exec* e, aicf_plan* p, const opts* o, const char* const* files, int nfiles) {
    int i, k;
    for (i = 0; i < aicf_plan_num_inputs(p); i++) {
        aicf_tensor_info ti;
        aicf_host_tensor ht;
        aicf_result r;
        int used = -1;
        aicf_plan_input_info(p, i, &ti);
        memset(&ht, 0, sizeof ht);
        for (k = 0; k < nfiles && used < 0; k++) {
            aicf_host_tensor t2;
            if (!files[k] || aicf_tensor_read_pb(ctx, files[k], &t2) != AICF_SUCCESS) continue;
            if (t2.name && strcmp(t2.name, ti.name) == 0) {
                ht = t2;
                used = k;
            } else {
                aicf_host_tensor_free(ctx, &t2);
            }
        }
        if (used < 0 && i < nfiles && files[i]) {
            r = aicf_tensor_read_pb(ctx, files[i], &ht);
            if (r != AICF_SUCCESS) return fail(ctx, r, files[i]);
            used = i;
        }
        if (used >= 0) {
            if (ht.dtype != ti.dtype || ht.bytes != ti.bytes) {
                fprintf(stderr, "aicf: %s: tensor %s of %zu bytes does not match input '%s' (%s, %zu bytes)\n",
                        files[used], aicf_dtype_name(ht.dtype), ht.bytes, ti.name, aicf_dtype_name(ti.dtype), ti.bytes);
                aicf_host_tensor_free(ctx, &ht);
                return 1;
            }
            r = aicf_exec_set_input(e, i, ht.data, ht.bytes);
            aicf_host_tensor_free(ctx, &ht);
        } else {
            size_t n = ti.bytes / (aicf_dtype_size(ti.dtype) ? aicf_dtype_size(ti.dtype) : 1), j;
            void* buf = malloc(ti.bytes ? ti.bytes : 1);
            if (!buf) return 1;
            for (j = 0; j < n; j++) {
                if (ti.dtype == AICF_DTYPE_FLOAT32)
                    ((float*)buf)[j] = o->input_arange ? (float)j / (float)n : frand();
                else if (ti.dtype == AICF_DTYPE_INT64)
                    ((int64_t*)buf)[j] = (int64_t)j;
                else
                    memset(buf, 1, ti.bytes);
            }
            r = aicf_exec_set_input(e, i, buf, ti.bytes);
            free(buf);
        }
        if (r != AICF_SUCCESS) return fail(ctx, r, "set input");
    }
    return 0;
}

static int write_outputs(aicf_context* ctx, aicf_exec* e, aicf_plan* p, const opts* o) {
    int i;
    for (i = 0; i < o->n_outputs && i < aicf_plan_num_outputs(p); i++) {
        aicf_tensor_info ti;
        aicf_host_tensor ht;
        aicf_result r;
        aicf_plan_output_info(p, i, &ti);
        memset(&ht, 0, sizeof ht);
        ht.name = (char*)ti.name;
        ht.dtype = ti.dtype;
        ht.rank = ti.rank;
        memcpy(ht.dims, ti.dims, sizeof ht.dims);
        ht.bytes = ti.bytes;
        ht.data = malloc(ti.bytes ? ti.bytes : 1);
        r = aicf_exec_get_output(e, i, ht.data, ht.bytes);
        if (r == AICF_SUCCESS) r = aicf_tensor_write_pb(ctx, o->outputs[i], &ht);
        free(ht.data);
        if (r != AICF_SUCCESS) return fail(ctx, r, o->outputs[i]);
    }
    return 0;
}

/* Compares output i with a reference tensor; returns 0 ok, 2 over tolerance, 1 error. */
static int compare(aicf_context* ctx, aicf_exec* e, aicf_plan* p, int i, const char* ref_path, double tol, const char* label) {
    aicf_tensor_info ti;
    aicf_host_tensor ref;
    aicf_result r;
    void* got;
    size_t n, j;
    double maxabs = 0, num = 0, den = 0, rel;
    int nan = 0;
    aicf_plan_output_info(p, i, &ti);
    r = aicf_tensor_read_pb(ctx, ref_path, &ref);
    if (r != AICF_SUCCESS) return fail(ctx, r, ref_path);
    if (ref.bytes != ti.bytes || ref.dtype != ti.dtype) {
        fprintf(stderr, "aicf: %s: reference is %s/%zu bytes, output '%s' is %s/%zu bytes\n", ref_path,
                aicf_dtype_name(ref.dtype), ref.bytes, ti.name, aicf_dtype_name(ti.dtype), ti.bytes);
        aicf_host_tensor_free(ctx, &ref);
        return 1;
    }
    got = malloc(ti.bytes ? ti.bytes : 1);
    r = aicf_exec_get_output(e, i, got, ti.bytes);
    if (r != AICF_SUCCESS) {
        free(got);
        aicf_host_tensor_free(ctx, &ref);
        return fail(ctx, r, "get output");
    }
    n = ti.bytes / aicf_dtype_size(ti.dtype);
    for (j = 0; j < n; j++) {
        double a, b;
        if (ti.dtype == AICF_DTYPE_FLOAT32) {
            a = ((float*)got)[j];
            b = ((float*)ref.data)[j];
        } else if (ti.dtype == AICF_DTYPE_INT64) {
            a = (double)((int64_t*)got)[j];
            b = (double)((int64_t*)ref.data)[j];
        } else {
            a = memcmp((char*)got + j * aicf_dtype_size(ti.dtype), (char*)ref.data + j * aicf_dtype_size(ti.dtype),
                       aicf_dtype_size(ti.dtype)) != 0;
            b = 0;
        }
        if (a != a || b != b) {
            nan += (a != a) != (b != b);
            continue;
        }
        if (fabs(a - b) > maxabs) maxabs = fabs(a - b);
        num += (a - b) * (a - b);
        den += b * b;
    }
    rel = den > 0 ? sqrt(num / den) : sqrt(num);
    printf("%s output %d '%s': max abs err %.3e, rel err %.3e%s\n", label, i, ti.name, maxabs, rel,
           nan ? " (NaN mismatch)" : "");
    free(got);
    aicf_host_tensor_free(ctx, &ref);
    return (nan || !(rel <= tol)) ? 2 : 0;
}

static int cmd_run(aicf_context* ctx, const opts* o) {
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    int rc = 0, c, i;
    if (o->n_checks == 0) {
        if (make_plan(ctx, o, &p, NULL)) return 1;
        r = aicf_exec_create(p, NULL, &e);
        if (r != AICF_SUCCESS) {
            aicf_plan_destroy(p);
            return fail(ctx, r, "exec");
        }
        rc = set_inputs(ctx, e, p, o, o->inputs, o->n_inputs);
        if (!rc && (r = aicf_exec_run(e)) != AICF_SUCCESS) rc = fail(ctx, r, "run");
        for (i = 0; !rc && i < o->n_expects; i++) {
            int k = compare(ctx, e, p, i, o->expects[i], tol_for(o, p), o->model);
            if (k > rc) rc = k;
        }
        if (!rc) rc = write_outputs(ctx, e, p, o);
        if (!rc && o->n_expects == 0) {
            for (i = 0; i < aicf_plan_num_outputs(p); i++) {
                aicf_tensor_info ti;
                aicf_plan_output_info(p, i, &ti);
                printf("output %d '%s' %s [", i, ti.name, aicf_dtype_name(ti.dtype));
                for (c = 0; c < ti.rank; c++) printf(c ? ",%lld" : "%lld", (long long)ti.dims[c]);
                printf("]\n");
            }
        }
    }
    /* one plan per data set: its integer and bool inputs are bound as constants */
    for (c = 0; c < o->n_checks && rc != 1; c++) {
        const char* files[MAXN];
        int nf, pos[MAXN];
        if (make_plan_ex(ctx, o, o->checks[c], &p, NULL, pos)) return 1;
        r = aicf_exec_create(p, NULL, &e);
        if (r != AICF_SUCCESS) {
            aicf_plan_destroy(p);
            return fail(ctx, r, "exec");
        }
        nf = data_set_files(o->checks[c], p, pos, files);
        rc = set_inputs(ctx, e, p, o, files, nf);
        free_files(files, nf);
        if (rc) break;
        if ((r = aicf_exec_run(e)) != AICF_SUCCESS) {
            rc = fail(ctx, r, "run");
            break;
        }
        for (i = 0; i < aicf_plan_num_outputs(p); i++) {
            char path[4096];
            int k2;
            snprintf(path, sizeof path, "%s/output_%d.pb", o->checks[c], i);
            k2 = compare(ctx, e, p, i, path, tol_for(o, p), o->checks[c]);
            if (k2 > rc) rc = k2;
        }
        if (rc == 0 && c == o->n_checks - 1) rc = write_outputs(ctx, e, p, o);
        if (c < o->n_checks - 1) {
            aicf_exec_destroy(e);
            aicf_plan_destroy(p);
            e = NULL;
            p = NULL;
        }
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return rc;
}

/* One of the plan's text forms (aicf_plan_format, _explain, _dot) in a malloc'd string. */
static char* plan_text(const aicf_plan* p, aicf_result (*fn)(const aicf_plan*, char*, size_t, size_t*)) {
    size_t need = 0;
    char* buf;
    if (fn(p, NULL, 0, &need) != AICF_SUCCESS || need == 0) return NULL;
    buf = (char*)malloc(need);
    if (buf && fn(p, buf, need, NULL) != AICF_SUCCESS) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int cmd_plan(aicf_context* ctx, const opts* o) {
    aicf_plan* p = NULL;
    aicf_result r;
    char* buf;
    double ms;
    int rc = 0;
    if (make_plan(ctx, o, &p, &ms)) return 1;
    buf = plan_text(p, o->explain ? aicf_plan_explain : aicf_plan_format);
    if (buf) fputs(buf, stdout);
    free(buf);
    if (o->dot_file) {
        FILE* f;
        buf = plan_text(p, aicf_plan_dot);
        f = buf ? fopen(o->dot_file, "wb") : NULL;
        if (!f || fputs(buf, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "aicf: --dot: cannot write '%s'\n", o->dot_file);
            rc = 1;
        } else {
            printf("plan graph written to %s (Graphviz: dot -Tsvg %s -o plan.svg)\n", o->dot_file, o->dot_file);
        }
        free(buf);
    }
    if (o->save_file) {
        if ((r = aicf_plan_save(p, o->save_file)) != AICF_SUCCESS) rc = fail(ctx, r, "--save");
        else printf("plan saved to %s\n", o->save_file);
    }
    printf("plan %s in %.1f ms (model load + %s)", o->plan_file ? "loaded" : "created", ms,
           o->plan_file ? "plan file check and re-plan" : "plan");
    if (g_device_init_ms >= 0)
        printf("; CUDA driver, context and cuBLASLt initialised before it in %.1f ms", g_device_init_ms);
    printf("\n");
    {
        aicf_plan_stats ps;
        aicf_plan_stats_get(p, &ps);
        printf("of it %s: %.1f ms (folding %.1f, scratch + memory + kernel choice %.1f, of which %d cuBLASLt heuristic "
               "queries %.1f)", o->plan_file ? "aicf_plan_load's re-plan" : "aicf_plan_create", ps.create_ms, ps.create_fold_ms,
               ps.create_select_ms, ps.lt_heuristic_queries, ps.lt_heuristic_ms);
        if (ps.lt_setup_ms > 0)
            printf("; cuBLASLt's one-time setup %.1f ms on a helper thread during folding, waited for %.1f ms", ps.lt_setup_ms,
                   ps.lt_setup_wait_ms);
        printf("\n");
    }
    aicf_plan_destroy(p);
    return rc;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Median and p99 of n samples (sorted in place). */
static void bench_stats(double* v, int n, double* med, double* p99) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    *med = v[n / 2];
    *p99 = v[(int)((double)(n - 1) * 0.99)];
}

/* bench: two timings of the same replays.
   1. aicf_exec_benchmark: GPU time of each replay from CUDA events around the launch (what
      peers.py's PyTorch peers report, so median_us / p99_us compare with them), and the host
      time of each aicf_exec_launch call (host_us; the primary context is current there).
   2. the wall clock of aicf_exec_launch + aicf_exec_wait from this thread, which has no current
      CUDA context (wall_median_us / wall_p99_us: what a caller waits, including the wake-up
      from cuStreamSynchronize; wall_host_us: the launch call alone, with its context push/pop).
   On the CPU backend both are wall-clock times of the run. */
static int cmd_bench(aicf_context* ctx, const opts* o) {
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    aicf_exec_stats es;
    aicf_plan_stats ps;
    double *t, *h, *g, *gh, plan_ms, med, p99, hmed, hp99, gmed, gp99, ghmed, ghp99;
    float* f;
    int i, rc, cuda;
    aicf_exec_desc ed;
    if (make_plan(ctx, o, &p, &plan_ms)) return 1;
    memset(&ed, 0, sizeof ed);
    aicf_plan_stats_get(p, &ps);
    cuda = ps.backend == AICF_BACKEND_CUDA;
    if (cuda && !o->io_host) ed.flags |= AICF_EXEC_DEVICE_IO;
    if (o->pdl) ed.flags |= AICF_EXEC_PDL;
    r = aicf_exec_create(p, &ed, &e);
    if (r != AICF_SUCCESS) {
        aicf_plan_destroy(p);
        return fail(ctx, r, "exec");
    }
    rc = set_inputs(ctx, e, p, o, o->inputs, o->n_inputs);
    t = (double*)malloc(sizeof(double) * (size_t)o->iters);
    h = (double*)malloc(sizeof(double) * (size_t)o->iters);
    g = (double*)malloc(sizeof(double) * (size_t)o->iters);
    gh = (double*)malloc(sizeof(double) * (size_t)o->iters);
    f = (float*)malloc(sizeof(float) * 2 * (size_t)o->iters);
    if (!rc && (!t || !h || !g || !gh || !f)) {
        fprintf(stderr, "aicf: bench: out of memory for %d samples\n", o->iters);
        rc = 1;
    }
    /* 1. events (its warmup also warms the wall-clock loop) */
    if (!rc && (r = aicf_exec_benchmark(e, o->warmup, o->iters, f, f + o->iters)) != AICF_SUCCESS) rc = fail(ctx, r, "benchmark");
    for (i = 0; !rc && i < o->iters; i++) {
        g[i] = f[i];
        gh[i] = f[o->iters + i];
    }
    /* 2. wall clock */
    for (i = 0; !rc && i < o->iters; i++) {
        double t0 = now_us(), t1;
        if ((r = aicf_exec_launch(e)) != AICF_SUCCESS) {
            rc = fail(ctx, r, "launch");
            break;
        }
        t1 = now_us();
        if ((r = aicf_exec_wait(e)) != AICF_SUCCESS) {
            rc = fail(ctx, r, "wait");
            break;
        }
        t[i] = now_us() - t0;
        h[i] = t1 - t0;
    }
    if (!rc) {
        bench_stats(t, o->iters, &med, &p99);
        bench_stats(h, o->iters, &hmed, &hp99);
        bench_stats(g, o->iters, &gmed, &gp99);
        bench_stats(gh, o->iters, &ghmed, &ghp99);
        aicf_exec_stats_get(e, &es);
        aicf_plan_stats_get(p, &ps);
        rc = write_outputs(ctx, e, p, o);
        if (o->json)
            printf("{\"model\": \"%s\", \"backend\": \"%s\", \"precision\": \"%s\", \"iters\": %d, \"timing\": \"%s\", \"io\": \"%s\", "
                   "\"median_us\": %.2f, \"p99_us\": %.2f, \"host_us\": %.2f, \"host_p99_us\": %.2f, "
                   "\"wall_median_us\": %.2f, \"wall_p99_us\": %.2f, \"wall_host_us\": %.2f, "
                   "\"nodes\": %d, \"kernel_nodes\": %d, \"programmatic_edges\": %d, \"steps\": %d, \"arena_bytes\": %zu, "
                   "\"plan_ms\": %.1f, \"plan_create_ms\": %.1f, \"plan_fold_ms\": %.1f, \"plan_select_ms\": %.1f, \"plan_lt_queries\": %d, \"plan_lt_ms\": %.1f, "
                   "\"plan_lt_setup_ms\": %.1f, \"plan_lt_setup_wait_ms\": %.1f, \"device_init_ms\": %.1f}\n",
                   o->model, cuda ? "cuda" : "cpu",
                   ps.precision == AICF_PRECISION_FP16 ? "fp16" : ps.precision == AICF_PRECISION_TF32 ? "tf32" : "fp32",
                   o->iters, cuda ? "cuda_events" : "wall_clock", !cuda ? "host" : o->io_host ? "host" : "device", gmed, gp99, ghmed, ghp99, med, p99, hmed, es.graph_nodes,
                   es.kernel_nodes, es.programmatic_edges, ps.num_steps, ps.arena_bytes, plan_ms, ps.create_ms, ps.create_fold_ms,
                   ps.create_select_ms, ps.lt_heuristic_queries, ps.lt_heuristic_ms, ps.lt_setup_ms, ps.lt_setup_wait_ms,
                   g_device_init_ms > 0 ? g_device_init_ms : 0.0);
        else if (cuda)
            printf("%s: median %.2f us, p99 %.2f us per replay (GPU, CUDA events, %s); wall clock %.2f us median, %.2f p99 "
                   "(launch + wait); host %.2f us per launch (context current), %.2f (context pushed and popped); "
                   "%d graph nodes (%d kernels, %d programmatic edges), %d steps; plan %.1f ms\n",
                   o->model, gmed, gp99,
                   o->io_host ? "inputs and outputs staged through pinned host memory by the graph"
                              : "inputs and outputs in device memory",
                   med, p99, ghmed, hmed, es.graph_nodes, es.kernel_nodes, es.programmatic_edges, ps.num_steps, plan_ms);
        else
            printf("%s: median %.2f us, p99 %.2f us per run (CPU, wall clock); %d steps; plan %.1f ms\n", o->model, gmed, gp99,
                   ps.num_steps, plan_ms);
    }
    free(t);
    free(h);
    free(g);
    free(gh);
    free(f);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return rc;
}

/* profile: every step's time (aicf_exec_profile), in plan order, then the slowest steps. On CUDA
   the exec keeps inputs and outputs on the device (as bench does by default) and records an
   event after every step. */
typedef struct prof_row {
    int step;
    float us;
} prof_row;
static int cmp_prof(const void* a, const void* b) {
    const prof_row *x = (const prof_row*)a, *y = (const prof_row*)b;
    return x->us > y->us ? -1 : x->us < y->us ? 1 : x->step - y->step;
}
static void json_str(const char* s) {
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
        else putchar(*s);
    }
    putchar('"');
}
static int cmd_profile(aicf_context* ctx, const opts* o) {
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_exec_desc ed;
    aicf_plan_stats ps;
    aicf_result r;
    double plan_ms, total = 0.0, cum = 0.0;
    float* us = NULL;
    prof_row* rows = NULL;
    int i, n, rc = 0, cuda, top = o->top > 0 ? o->top : 10;
    if (make_plan(ctx, o, &p, &plan_ms)) return 1;
    aicf_plan_stats_get(p, &ps);
    cuda = ps.backend == AICF_BACKEND_CUDA;
    memset(&ed, 0, sizeof ed);
    if (cuda) ed.flags = AICF_EXEC_DEVICE_IO | AICF_EXEC_PROFILE;
    if (o->pdl) ed.flags |= AICF_EXEC_PDL;
    if ((r = aicf_exec_create(p, &ed, &e)) != AICF_SUCCESS) {
        aicf_plan_destroy(p);
        return fail(ctx, r, "exec");
    }
    rc = set_inputs(ctx, e, p, o, o->inputs, o->n_inputs);
    n = aicf_plan_num_steps(p);
    us = (float*)calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    rows = (prof_row*)calloc((size_t)(n > 0 ? n : 1), sizeof(prof_row));
    if (!rc && (!us || !rows)) {
        fprintf(stderr, "aicf: profile: out of memory\n");
        rc = 1;
    }
    if (!rc && (r = aicf_exec_profile(e, o->warmup, o->iters, us, n)) != AICF_SUCCESS) rc = fail(ctx, r, "profile");
    if (!rc) {
        for (i = 0; i < n; i++) {
            total += us[i];
            rows[i].step = i;
            rows[i].us = us[i];
        }
        if (o->json) {
            printf("{\"model\": ");
            json_str(o->model);
            printf(", \"backend\": \"%s\", \"iters\": %d, \"total_us\": %.2f, \"steps\": [", cuda ? "cuda" : "cpu", o->iters, total);
            for (i = 0; i < n; i++) {
                aicf_step_info si;
                aicf_plan_step_info(p, i, &si);
                printf("%s{\"step\": %d, \"us\": %.2f, \"op\": ", i ? ", " : "", i, us[i]);
                json_str(si.op_type);
                printf(", \"node\": ");
                json_str(si.node_name);
                printf(", \"kernel\": ");
                json_str(si.kernel);
                printf(", \"fused\": %d}", si.num_fused);
            }
            printf("]}\n");
        } else {
            printf("%s: %d steps, median per step over %d replays (%s), sum %.1f us\n", o->model, n, o->iters,
                   cuda ? "GPU time between CUDA events recorded after each step" : "CPU wall clock", total);
            printf("step        us      %%   cum %%  op                   kernel                         node\n");
            for (i = 0; i < n; i++) {
                aicf_step_info si;
                aicf_plan_step_info(p, i, &si);
                cum += us[i];
                printf("%4d %9.2f %6.1f %6.1f  %-20.20s %-30.30s %s%s\n", i, us[i], total > 0 ? 100.0 * us[i] / total : 0.0,
                       total > 0 ? 100.0 * cum / total : 0.0, si.op_type, si.kernel, si.node_name, si.num_fused ? " (+fused)" : "");
            }
            qsort(rows, (size_t)n, sizeof *rows, cmp_prof);
            printf("slowest %d:\n", top < n ? top : n);
            for (i = 0; i < n && i < top; i++) {
                aicf_step_info si;
                aicf_plan_step_info(p, rows[i].step, &si);
                printf("  step %4d %9.2f us %5.1f%%  %s '%s'  %s\n", rows[i].step, rows[i].us,
                       total > 0 ? 100.0 * rows[i].us / total : 0.0, si.op_type, si.node_name, si.kernel);
            }
        }
    }
    free(us);
    free(rows);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return rc;
}

/* Runs the plan on the CPU reference and reports the range of every activation: whether the
   model's values on this input fit float16 storage (normal range 6.1e-5 .. 65504). */
static int cmd_range(aicf_context* ctx, opts* o) {
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    int rc, s, j, hi_t = -1, lo_t = -1;
    double hi = 0, lo = 1e300;
    const char* files[MAXN];
    int nf = 0, pos[MAXN];
    o->backend = AICF_BACKEND_CPU;
    if (make_plan_ex(ctx, o, o->n_checks > 0 ? o->checks[0] : NULL, &p, NULL, pos)) return 1;
    if ((r = aicf_exec_create(p, NULL, &e)) != AICF_SUCCESS) {
        aicf_plan_destroy(p);
        return fail(ctx, r, "exec");
    }
    if (o->n_checks > 0) nf = data_set_files(o->checks[0], p, pos, files);
    rc = nf ? set_inputs(ctx, e, p, o, files, nf) : set_inputs(ctx, e, p, o, o->inputs, o->n_inputs);
    free_files(files, nf);
    if (!rc && (r = aicf_exec_run(e)) != AICF_SUCCESS) rc = fail(ctx, r, "run");
    for (s = 0; !rc && s < p->n_steps; s++)
        for (j = 0; j < p->steps[s].n_out; j++) {
            int t = p->steps[s].out[j];
            const float* v;
            size_t n, i;
            double m = 0;
            if (t < 0 || p->g->tensors[t].dtype != AICF_DTYPE_FLOAT32 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            v = (const float*)(e->host_arena + p->loc[t].offset);
            n = p->loc[t].bytes / sizeof(float);
            for (i = 0; i < n; i++)
                if (fabs((double)v[i]) > m) m = fabs((double)v[i]);
            if (m > hi) hi = m, hi_t = t;
            if (m < lo) lo = m, lo_t = t;
        }
    if (!rc && hi_t >= 0) {
        const char* verdict = hi > 65504.0 ? "exceeds float16 (max 65504)"
                              : lo < 6.103515625e-05 ? "falls below float16's normal range (6.1e-5)" : "fits float16";
        if (o->json)
            printf("{\"model\": \"%s\", \"largest\": %.6g, \"largest_tensor\": \"%s\", \"smallest_max\": %.6g, "
                   "\"smallest_max_tensor\": \"%s\", \"float16\": %s}\n",
                   o->model, hi, p->g->tensors[hi_t].name, lo, p->g->tensors[lo_t].name,
                   (hi > 65504.0 || lo < 6.103515625e-05) ? "false" : "true");
        else
            printf("%s: largest |x| %.4g in '%s'; smallest per-tensor max |x| %.4g in '%s': %s\n", o->model, hi,
                   p->g->tensors[hi_t].name, lo, p->g->tensors[lo_t].name, verdict);
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return rc;
}

static int cmd_info(aicf_context* ctx) {
    aicf_device_info di;
    aicf_result r = aicf_context_device_info(ctx, &di);
    if (r != AICF_SUCCESS) {
        printf("CUDA: not available: %s (%s)\n", aicf_result_str(r), aicf_last_error(ctx));
        return 0;
    }
    printf("CUDA device: %s, compute capability %d.%d, %.1f GiB, driver %d, cuBLASLt %s (%zu)\n", di.name, di.cc_major,
           di.cc_minor, (double)di.total_memory / (1024.0 * 1024.0 * 1024.0), di.driver_version,
           di.cublaslt_available ? "yes" : "no", di.cublaslt_version);
    return 0;
}

int main(int argc, char** argv) {
    opts o;
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    int rc;
    if (!parse(argc, argv, &o)) return usage();
    memset(&cd, 0, sizeof cd);
    if (o.backend == AICF_BACKEND_CPU || strcmp(o.cmd, "range") == 0) cd.flags |= AICF_CONTEXT_NO_CUDA;
    if (o.no_cublaslt) cd.cublaslt_path = "/nonexistent/aicf --no-cublaslt/libcublasLt.so"; /* found nowhere: not loaded */
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        fprintf(stderr, "aicf: cannot create a context\n");
        return 1;
    }
    if (strcmp(o.cmd, "info") == 0) rc = cmd_info(ctx);
    else if (!o.model) rc = usage();
    else if (strcmp(o.cmd, "run") == 0) rc = cmd_run(ctx, &o);
    else if (strcmp(o.cmd, "plan") == 0) rc = cmd_plan(ctx, &o);
    else if (strcmp(o.cmd, "bench") == 0) rc = cmd_bench(ctx, &o);
    else if (strcmp(o.cmd, "profile") == 0) rc = cmd_profile(ctx, &o);
    else if (strcmp(o.cmd, "range") == 0) rc = cmd_range(ctx, &o);
    else rc = usage();
    aicf_context_destroy(ctx);
    for (argc = 0; argc < o.n_dims; argc++) free((void*)o.dim_names[argc]);
    for (argc = 0; argc < o.n_binds; argc++) free((void*)o.bind_names[argc]);
    return rc;
}
