/* libFuzzer target: plan files (aicf_plan_load_memory) and policy text (aicf_policy_parse).

   The input is a plan file. Two small graphs are built in code with fixed weights (a Conv /
   pool / Gemm / Softmax network with fusable chains, and an elementwise, broadcasting,
   reshaping, two-output graph); the input is loaded against each on the CPU backend. Invariants:
     - a load that fails returns a result code of aicf_result with a message, *out stays NULL;
     - a load that succeeds gives a plan that serialises to exactly the input bytes (the loader
       refuses every difference) and runs twice with the same outputs;
     - the same bytes as policy text: a parse that succeeds formats to text that parses back to
       the same policy; a parse that fails is AICF_ERROR_INVALID_ARGUMENT or AICF_ERROR_LIMIT;
     - nothing leaks (the context allocator counts), 1 input in 16 fails one allocation.
   The seeds (tests/fuzz/corpus/plan/) are the plan files of both graphs under several policies,
   plus policy texts and a plan with cuBLASLt op/algo lines, written by this file built with
   -DFZ_PLAN_WRITE_SEEDS (a main() that writes them into the directory given):

     clang -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_plan.c -o build/fuzz/fuzz_plan -lm -ldl
     gcc tests/fuzz/fuzz_plan.c tests/fuzz/replay_main.c -o replay_plan -lm -ldl   (corpus replay)
     gcc -DFZ_PLAN_WRITE_SEEDS tests/fuzz/fuzz_plan.c -o write_seeds -lm -ldl && ./write_seeds DIR */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE /* CPU only: the CUDA kernel table is not needed */
#include "../../aicf.h"
#include "fuzz_common.h"

/* every failing call: a result of aicf_result (PLAN_MISMATCH included) with a message */
static void fzp_check_err(aicf_context* ctx, aicf_result r, const char* call) {
    const char* m;
    if (r == AICF_SUCCESS) return;
    if (fz_verbose()) fprintf(stderr, "  %s: %s: %s\n", call, aicf_result_str(r), aicf_last_error(ctx));
    if ((int)r > 0 || (int)r < (int)AICF_ERROR_PLAN_MISMATCH) fz_fail(call, "returned a result code outside aicf_result");
    if (r == AICF_ERROR_INVALID_ARGUMENT) return;
    m = aicf_last_error(ctx);
    if (!m || !m[0] || strlen(m) >= AICF__ERR_CAP) fz_fail(call, "error without a message");
}

/* deterministic weights: the graphs (and so their fingerprints) never change */
static float fzp_w(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 40) / 16777216.0 - 0.5);
}

static int fzp_const(aicf_graph* g, const char* name, int rank, const int64_t* d, uint64_t* s) {
    aicf_tensor_desc t;
    float v[512];
    int64_t n = 1, i;
    for (i = 0; i < rank; i++) n *= d[i];
    if (n > 512) return 0;
    for (i = 0; i < n; i++) v[i] = fzp_w(s);
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = d;
    t.data = v;
    t.data_bytes = (size_t)n * sizeof(float);
    return aicf_graph_add_constant(g, &t) == AICF_SUCCESS;
}

static int fzp_input(aicf_graph* g, const char* name, int rank, const int64_t* d) {
    aicf_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = AICF_DTYPE_FLOAT32;
    t.rank = rank;
    t.dims = d;
    return aicf_graph_add_input(g, &t) == AICF_SUCCESS;
}

static int fzp_node(aicf_graph* g, const char* op, const char* name, const char* a, const char* b, const char* c, const char* y,
                    const aicf_attr* attrs, int n_attrs) {
    aicf_node_desc nd;
    const char* in[3];
    int n = 0;
    if (a) in[n++] = a;
    if (b) in[n++] = b;
    if (c) in[n++] = c;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.inputs = in;
    nd.num_inputs = n;
    nd.outputs = &y;
    nd.num_outputs = 1;
    nd.attrs = attrs;
    nd.num_attrs = n_attrs;
    return aicf_graph_add_node(g, &nd) == AICF_SUCCESS;
}

/* 0: x[1,2,6,6] -> Conv(W[4,2,3,3], B, pads 1) -> Relu -> MaxPool 2 -> Flatten -> Gemm(W2[3,36]^T, C)
      -> Add(bias) -> Tanh -> Softmax
   1: a[2,3,4] + b[4] -> * c[1,3,1] -> Abs -> Sqrt -> Reshape [6,4] -> Transpose; and Concat(c - a, a) */
static aicf_graph* fzp_graph(aicf_context* ctx, int which) {
    aicf_graph* g = NULL;
    uint64_t s = 0x5eedull + (uint64_t)which;
    int ok;
    if (aicf_graph_create(ctx, &g) != AICF_SUCCESS) return NULL;
    ok = aicf_graph_set_opset(g, "", 17) == AICF_SUCCESS;
    if (which == 0) {
        static const int64_t x[4] = {1, 2, 6, 6}, w[4] = {4, 2, 3, 3}, b[1] = {4}, w2[2] = {3, 36}, c2[1] = {3}, bias[1] = {3};
        static const int64_t pads[4] = {1, 1, 1, 1}, k2[2] = {2, 2};
        aicf_attr a[2];
        memset(a, 0, sizeof a);
        ok = ok && fzp_input(g, "x", 4, x) && fzp_const(g, "W", 4, w, &s) && fzp_const(g, "B", 1, b, &s) &&
             fzp_const(g, "W2", 2, w2, &s) && fzp_const(g, "C2", 1, c2, &s) && fzp_const(g, "bias", 1, bias, &s);
        a[0].name = "pads";
        a[0].type = AICF_ATTR_INTS;
        a[0].ints = pads;
        a[0].count = 4;
        ok = ok && fzp_node(g, "Conv", "conv", "x", "W", "B", "c", a, 1) && fzp_node(g, "Relu", "relu", "c", NULL, NULL, "r", NULL, 0);
        a[0].name = "kernel_shape";
        a[0].ints = k2;
        a[0].count = 2;
        a[1] = a[0];
        a[1].name = "strides";
        ok = ok && fzp_node(g, "MaxPool", "pool", "r", NULL, NULL, "p", a, 2) &&
             fzp_node(g, "Flatten", "flat", "p", NULL, NULL, "f", NULL, 0);
        memset(a, 0, sizeof a);
        a[0].name = "transB";
        a[0].type = AICF_ATTR_INT;
        a[0].i = 1;
        ok = ok && fzp_node(g, "Gemm", "fc", "f", "W2", "C2", "h", a, 1) && fzp_node(g, "Add", "add", "h", "bias", NULL, "h2", NULL, 0) &&
             fzp_node(g, "Tanh", "tanh", "h2", NULL, NULL, "t", NULL, 0) && fzp_node(g, "Softmax", "softmax", "t", NULL, NULL, "y", NULL, 0) &&
             aicf_graph_add_output(g, "y") == AICF_SUCCESS;
    } else {
        static const int64_t a3[3] = {2, 3, 4}, c3[3] = {1, 3, 1}, b1[1] = {4}, two[1] = {2}, perm[2] = {1, 0};
        static const int64_t shape[2] = {6, 4};
        aicf_tensor_desc t;
        aicf_attr at;
        memset(&at, 0, sizeof at);
        memset(&t, 0, sizeof t);
        t.name = "shape";
        t.dtype = AICF_DTYPE_INT64;
        t.rank = 1;
        t.dims = two;
        t.data = shape;
        t.data_bytes = sizeof shape;
        ok = ok && fzp_input(g, "a", 3, a3) && fzp_input(g, "c", 3, c3) && fzp_const(g, "b", 1, b1, &s) &&
             aicf_graph_add_constant(g, &t) == AICF_SUCCESS && fzp_node(g, "Add", "add", "a", "b", NULL, "t1", NULL, 0) &&
             fzp_node(g, "Mul", "mul", "t1", "c", NULL, "t2", NULL, 0) && fzp_node(g, "Abs", "abs", "t2", NULL, NULL, "t3", NULL, 0) &&
             fzp_node(g, "Sqrt", "sqrt", "t3", NULL, NULL, "t4", NULL, 0) &&
             fzp_node(g, "Reshape", "reshape", "t4", "shape", NULL, "t5", NULL, 0);
        at.name = "perm";
        at.type = AICF_ATTR_INTS;
        at.ints = perm;
        at.count = 2;
        ok = ok && fzp_node(g, "Transpose", "transpose", "t5", NULL, NULL, "y1", &at, 1) &&
             fzp_node(g, "Sub", "sub", "c", "a", NULL, "u", NULL, 0);
        at.name = "axis";
        at.type = AICF_ATTR_INT;
        at.i = 0;
        ok = ok && fzp_node(g, "Concat", "concat", "u", "a", NULL, "y2", &at, 1) && aicf_graph_add_output(g, "y1") == AICF_SUCCESS &&
             aicf_graph_add_output(g, "y2") == AICF_SUCCESS;
    }
    if (!ok) {
        aicf_graph_destroy(g);
        return NULL;
    }
    return g;
}

/* the loaded plan: its text is the input, it runs twice with the same outputs */
static void fzp_check_loaded(aicf_context* ctx, aicf_plan* p, const uint8_t* data, size_t size, fz_rng* rng) {
    size_t need = 0;
    char* text;
    aicf_exec* e = NULL;
    void* outs[2][8];
    size_t ob[8];
    int i, run, n_out;
    if (aicf_plan_serialize(p, NULL, 0, &need) != AICF_SUCCESS || need != size + 1) fz_fail("aicf_plan_load_memory", "loaded plan's text has another length");
    text = (char*)malloc(need);
    if (!text) return;
    if (aicf_plan_serialize(p, text, need, NULL) != AICF_SUCCESS || memcmp(text, data, size) != 0)
        fz_fail("aicf_plan_load_memory", "loaded a plan whose text differs from the file");
    free(text);
    memset(outs, 0, sizeof outs);
    n_out = aicf_plan_num_outputs(p);
    if (n_out > 8 || aicf_exec_create(p, NULL, &e) != AICF_SUCCESS) return;
    for (run = 0; run < 2; run++) {
        for (i = 0; run == 0 && i < aicf_plan_num_inputs(p); i++) {
            aicf_tensor_info ti;
            void* buf;
            aicf_plan_input_info(p, i, &ti);
            buf = malloc(ti.bytes ? ti.bytes : 1);
            if (!buf) goto done;
            fz_fill(rng, ti.dtype, buf, ti.bytes);
            if (aicf_exec_set_input(e, i, buf, ti.bytes) != AICF_SUCCESS) fz_fail("aicf_exec_set_input", aicf_last_error(ctx));
            free(buf);
        }
        fzp_check_err(ctx, aicf_exec_run(e), "aicf_exec_run");
        for (i = 0; i < n_out; i++) {
            aicf_tensor_info ti;
            aicf_plan_output_info(p, i, &ti);
            ob[i] = ti.bytes;
            outs[run][i] = malloc(ti.bytes ? ti.bytes : 1);
            if (!outs[run][i]) goto done;
            if (aicf_exec_get_output(e, i, outs[run][i], ti.bytes) != AICF_SUCCESS) fz_fail("aicf_exec_get_output", aicf_last_error(ctx));
            fz_consume(outs[run][i], ti.bytes);
        }
    }
    for (i = 0; i < n_out; i++)
        if (memcmp(outs[0][i], outs[1][i], ob[i]) != 0) fz_fail("loaded plan", "two runs differ");
done:
    for (i = 0; i < 8; i++) {
        free(outs[0][i]);
        free(outs[1][i]);
    }
    aicf_exec_destroy(e);
}

static void fzp_policy(aicf_context* ctx, const uint8_t* data, size_t size) {
    aicf_policy p, q;
    char buf[1024];
    aicf_result r = aicf_policy_parse(ctx, (const char*)data, size, &p);
    fzp_check_err(ctx, r, "aicf_policy_parse");
    if (r != AICF_SUCCESS) {
        if (r != AICF_ERROR_INVALID_ARGUMENT && r != AICF_ERROR_LIMIT) fz_fail("aicf_policy_parse", "unexpected result");
        return;
    }
    if (aicf_policy_format(&p, buf, sizeof buf, NULL) != AICF_SUCCESS) fz_fail("aicf_policy_format", "a parsed policy does not format");
    if (aicf_policy_parse(ctx, buf, strlen(buf), &q) != AICF_SUCCESS) fz_fail("aicf_policy_parse", "formatted text does not parse");
    if (p.precision != q.precision || p.allow_cpu_fallback != q.allow_cpu_fallback || p.workspace_limit != q.workspace_limit ||
        p.no_fusion != q.no_fusion || p.conv_algo != q.conv_algo || p.matmul_algo != q.matmul_algo)
        fz_fail("aicf_policy_format", "parse(format(p)) != p");
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_heap heap;
    fz_rng rng;
    aicf_context* ctx;
    uint64_t h = fz_hash(data, size);
    int which;
    ctx = fz_context(&heap, h, 1);
    if (!ctx) return 0;
    rng.s = h;
    fzp_policy(ctx, data, size);
    for (which = 0; which < 2; which++) {
        aicf_graph* g;
        aicf_plan* p = (aicf_plan*)(uintptr_t)1;
        aicf_result r;
        heap.fail_at = 0; /* graphs are built whole; the injected failure hits the load */
        g = fzp_graph(ctx, which);
        if (!g) continue;
        fz_arm(&heap);
        r = aicf_plan_load_memory(g, data, size, &p);
        heap.fail_at = 0;
        fzp_check_err(ctx, r, "aicf_plan_load_memory");
        if (r == AICF_SUCCESS) {
            if (!p) fz_fail("aicf_plan_load_memory", "success without a plan");
            fzp_check_loaded(ctx, p, data, size, &rng);
            aicf_plan_destroy(p);
        } else if (p) {
            fz_fail("aicf_plan_load_memory", "error but *out is not NULL");
        }
        aicf_graph_destroy(g);
    }
    fz_context_done(ctx, &heap);
    return 0;
}

#if defined(FZ_PLAN_WRITE_SEEDS)
/* Writes the seeds: plan files of both graphs under several policies, the same with cuBLASLt
   op/algo lines spliced into a step, and policy texts. */
static void fzp_write(const char* dir, const char* name, const char* text, size_t n) {
    char path[1024];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
    printf("%s (%zu bytes)\n", path, n);
}

int main(int argc, char** argv) {
    static const char* const policies[3] = {"", "no_fusion = 1\n", "precision = fp16\nallow_cpu_fallback = 1\nworkspace_limit = 1 MiB\n"};
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    int which, k;
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return 1;
    for (which = 0; which < 2; which++)
        for (k = 0; k < 3; k++) {
            aicf_graph* g = fzp_graph(ctx, which);
            aicf_plan_desc pd;
            aicf_plan* p = NULL;
            char name[64], *text;
            size_t need = 0;
            memset(&pd, 0, sizeof pd);
            pd.backend = k == 2 ? AICF_BACKEND_DEFAULT : AICF_BACKEND_CPU;
            if (!g || aicf_policy_parse(ctx, policies[k], strlen(policies[k]), &pd.policy) != AICF_SUCCESS ||
                aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) {
                fprintf(stderr, "graph %d policy %d: %s\n", which, k, aicf_last_error(ctx));
                return 1;
            }
            aicf_plan_serialize(p, NULL, 0, &need);
            text = (char*)malloc(need + 1024);
            aicf_plan_serialize(p, text, need, NULL);
            snprintf(name, sizeof name, "seed-graph%d-policy%d.plan", which, k);
            fzp_write(argv[1], name, text, need - 1);
            if (k == 0) { /* a matmul op and its algorithm record in step 1 (parsed, then refused) */
                const char* at = strstr(text, "\nstep 1 ");
                const char* re = at ? strstr(at, "\n  reason ") : NULL;
                if (re) {
                    char* out = (char*)malloc(need + 1024);
                    size_t off = (size_t)(re - text), o = 0;
                    int i;
                    memcpy(out, text, off);
                    o = off;
                    o += (size_t)sprintf(out + o, "\n  op 0 matmul algo=0 args=");
                    for (i = 0; i < (int)sizeof(aicf__matmul_desc); i++) o += (size_t)sprintf(out + o, "%02x", (unsigned)(i == 16 ? 4 : 0));
                    o += (size_t)sprintf(out + o, " patch=112:0+0\n  algo 0 blob=");
                    for (i = 0; i < 8; i++) o += (size_t)sprintf(out + o, "%s%016llx", i ? "," : "", (unsigned long long)(i + 1));
                    o += (size_t)sprintf(out + o, " workspace=1024 cublaslt=130100 align=256,256,16,256 results=4");
                    memcpy(out + o, re, need - 1 - off);
                    o += need - 1 - off;
                    snprintf(name, sizeof name, "seed-graph%d-algo.plan", which);
                    fzp_write(argv[1], name, out, o);
                    free(out);
                }
            }
            free(text);
            aicf_plan_destroy(p);
            aicf_graph_destroy(g);
        }
    {
        char buf[1024];
        aicf_policy pol;
        memset(&pol, 0, sizeof pol);
        pol.precision = AICF_PRECISION_TF32;
        pol.conv_algo = AICF_CONV_IM2COL_GEMM;
        pol.matmul_algo = AICF_MATMUL_CUBLASLT;
        pol.workspace_limit = (size_t)64 << 20;
        aicf_policy_format(&pol, buf, sizeof buf, NULL);
        fzp_write(argv[1], "seed-policy-format.txt", buf, strlen(buf));
        strcpy(buf, "# hand written\r\n  precision=fp16 # half\n\tno_fusion = yes\nworkspace_limit = 2 GiB\nconv_algo=direct\n");
        fzp_write(argv[1], "seed-policy-hand.txt", buf, strlen(buf));
    }
    aicf_context_destroy(ctx);
    return 0;
}
#endif
