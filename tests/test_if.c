/* test_if: subgraphs (GRAPH attributes) and the ONNX If resolved at plan time.

   - If built through the C API (branch subgraphs marked with aicf__graph_set_subgraph): both
     branches, branch initializers, TENSOR attributes inside a branch, a branch output that is an
     outer value, outputs consumed after the If; a nested If whose inner branches read values of
     both enclosing graphs; the condition computed from a bound int64 input (Equal, as exporters
     write it);
   - the same through hand-made ONNX files (an independent protobuf encoder below), including a
     chain of AICF_MAX_SUBGRAPH_DEPTH nested Ifs (loads, plans and runs) and one level more
     (AICF_ERROR_LIMIT);
   - errors, each checked by code and message: condition unknown at plan time, missing branch,
     outer reference nobody defines, output count, non-bool condition, Loop/Scan, nesting limit
     and ownership rules of the builder;
   - Silero VAD (real weights, If on the sample rate) on the CPU against both test data sets.

   Every result is compared with an independent host computation on fresh random inputs.
   Seed: from the time, printed; AICF_TEST_SEED=N repeats a run. Test data: $AICF_TEST_DATA
   (default ../shared/data); the Silero test prints SKIP when it is missing.
   Prints one line per check and "N passed, N failed"; exits 1 on a failure. */
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail;
static uint64_t g_rng;
static aicf_context* g_ctx;

static void check(int ok, const char* name, const char* detail) {
    if (ok) {
        g_pass++;
        printf("PASS %s\n", name);
    } else {
        g_fail++;
        printf("FAIL %s%s%s\n", name, detail ? ": " : "", detail ? detail : "");
    }
    fflush(stdout);
}

static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* uniform in [-2, 2), never exactly 0 */
static float frnd(void) {
    float f = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 4.0 - 2.0);
    return f == 0.0f ? 0.5f : f;
}

/* Expects `r` == want and, for errors, the last error to contain `frag` (may be NULL). */
static void expect(aicf_result r, aicf_result want, const char* frag, const char* name) {
    char detail[1400];
    int ok = r == want && (want == AICF_SUCCESS || !frag || strstr(aicf_last_error(g_ctx), frag));
    snprintf(detail, sizeof detail, "got %s (%s), want %s with \"%s\"", aicf_result_str(r),
             r == AICF_SUCCESS ? "" : aicf_last_error(g_ctx), aicf_result_str(want), frag ? frag : "");
    check(ok, name, ok ? NULL : detail);
}

/* ---- C API helpers ---- */
static aicf_graph* new_graph(int subgraph) {
    aicf_graph* g = NULL;
    if (aicf_graph_create(g_ctx, &g) != AICF_SUCCESS) {
        fprintf(stderr, "test_if: aicf_graph_create failed\n");
        exit(2);
    }
    if (subgraph) aicf__graph_set_subgraph(g, 1);
    return g;
}

static aicf_result add_input(aicf_graph* g, const char* name, aicf_dtype dt, int rank, const int64_t* dims) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = dt;
    d.rank = rank;
    d.dims = dims;
    return aicf_graph_add_input(g, &d);
}

static aicf_result add_const(aicf_graph* g, const char* name, aicf_dtype dt, int rank, const int64_t* dims,
                             const void* data, size_t bytes) {
    aicf_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.dtype = dt;
    d.rank = rank;
    d.dims = dims;
    d.data = data;
    d.data_bytes = bytes;
    return aicf_graph_add_constant(g, &d);
}

/* Splits "a,b,,c" into names ("" = omitted); returns the count. */
static int split(const char* s, char buf[][64], const char** out) {
    int n = 0;
    if (!s || !s[0]) return 0;
    for (;;) {
        const char* c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        memcpy(buf[n], s, len);
        buf[n][len] = 0;
        out[n] = buf[n];
        n++;
        if (!c) return n;
        s = c + 1;
    }
}

static aicf_result add_node(aicf_graph* g, const char* name, const char* op, const char* ins, const char* outs,
                            const aicf_attr* attrs, int n_attrs) {
    char ib[8][64], ob[8][64];
    const char* in[8];
    const char* out[8];
    aicf_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = name;
    nd.op_type = op;
    nd.num_inputs = split(ins, ib, in);
    nd.inputs = in;
    nd.num_outputs = split(outs, ob, out);
    nd.outputs = out;
    nd.attrs = attrs;
    nd.num_attrs = n_attrs;
    return aicf_graph_add_node(g, &nd);
}

static aicf_attr graph_attr(const char* name, aicf_graph* sub) {
    aicf_attr a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = AICF_ATTR_GRAPH;
    a.g = sub;
    return a;
}

/* Adds If(cond) -> outs with the given branches (either may be NULL). */
static aicf_result add_if(aicf_graph* g, const char* name, const char* cond, const char* outs, aicf_graph* then_g,
                          aicf_graph* else_g) {
    aicf_attr at[2];
    int n = 0;
    if (then_g) at[n++] = graph_attr("then_branch", then_g);
    if (else_g) at[n++] = graph_attr("else_branch", else_g);
    return add_node(g, name, "If", cond, outs, at, n);
}

/* Plans g on the CPU; returns the plan or NULL (result in *r). */
static aicf_plan* plan_cpu(aicf_graph* g, aicf_result* r) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    *r = aicf_plan_create(g, &pd, &p);
    return *r == AICF_SUCCESS ? p : NULL;
}

/* Runs plan p with the given float inputs (by name) and reads output `out_name`. */
static aicf_result run_plan(aicf_plan* p, int n_in, const char* const* in_names, const float* const* in_data,
                            const size_t* in_bytes, const char* out_name, float* out, size_t out_bytes) {
    aicf_exec* e = NULL;
    aicf_result r = aicf_exec_create(p, NULL, &e);
    int i;
    for (i = 0; r == AICF_SUCCESS && i < n_in; i++) {
        int k = aicf_plan_find_input(p, in_names[i]);
        r = k < 0 ? AICF_ERROR_NOT_FOUND : aicf_exec_set_input(e, k, in_data[i], in_bytes[i]);
    }
    if (r == AICF_SUCCESS) r = aicf_exec_run(e);
    if (r == AICF_SUCCESS) {
        int k = aicf_plan_find_output(p, out_name);
        r = k < 0 ? AICF_ERROR_NOT_FOUND : aicf_exec_get_output(e, k, out, out_bytes);
    }
    aicf_exec_destroy(e);
    return r;
}

static double max_rel(const float* got, const float* want, int n) {
    double m = 0;
    int i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]) / (fabs((double)want[i]) > 1e-3 ? fabs((double)want[i]) : 1e-3);
        if (!(d <= m)) m = d; /* NaN propagates */
    }
    return m;
}

static int plan_text_has(const aicf_plan* p, const char* frag) {
    size_t need = 0;
    char* buf;
    int has;
    aicf_plan_format(p, NULL, 0, &need);
    buf = (char*)malloc(need + 1);
    if (!buf) return 0;
    aicf_plan_format(p, buf, need + 1, NULL);
    has = strstr(buf, frag) != NULL;
    free(buf);
    return has;
}

/* ---- 1. If through the C API ----
   main: x [2,3], flag bool [], K [3] constant
     then: Wt [2,3] (branch initializer); m = x*Wt; tout = m + K; outputs (tout, x)
     else: s = x - K; eout = -s; c2 = Constant(T [2,3]); outputs (eout, c2)
     y0, y1 = If(flag); z = y0 + y1; outputs z, y0, y1 */
static aicf_graph* build_basic(const float* K, const float* Wt, const float* T) {
    static const int64_t d23[2] = {2, 3}, d3[1] = {3};
    aicf_graph* g = new_graph(0);
    aicf_graph* th = new_graph(1);
    aicf_graph* el = new_graph(1);
    aicf_tensor_desc td;
    aicf_attr va;
    aicf_result r = AICF_SUCCESS;
    r = r ? r : add_input(g, "x", AICF_DTYPE_FLOAT32, 2, d23);
    r = r ? r : add_input(g, "flag", AICF_DTYPE_BOOL, 0, NULL);
    r = r ? r : add_const(g, "K", AICF_DTYPE_FLOAT32, 1, d3, K, 3 * sizeof(float));
    r = r ? r : add_const(th, "Wt", AICF_DTYPE_FLOAT32, 2, d23, Wt, 6 * sizeof(float));
    r = r ? r : add_node(th, "mul", "Mul", "x,Wt", "m", NULL, 0);
    r = r ? r : add_node(th, "add", "Add", "m,K", "tout", NULL, 0);
    r = r ? r : aicf_graph_add_output(th, "tout");
    r = r ? r : aicf_graph_add_output(th, "x");
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.rank = 2;
    td.dims = d23;
    td.data = T;
    td.data_bytes = 6 * sizeof(float);
    memset(&va, 0, sizeof va);
    va.name = "value";
    va.type = AICF_ATTR_TENSOR;
    va.t = &td;
    r = r ? r : add_node(el, "sub", "Sub", "x,K", "s", NULL, 0);
    r = r ? r : add_node(el, "neg", "Neg", "s", "eout", NULL, 0);
    r = r ? r : add_node(el, "cst", "Constant", "", "c2", &va, 1);
    r = r ? r : aicf_graph_add_output(el, "eout");
    r = r ? r : aicf_graph_add_output(el, "c2");
    r = r ? r : add_if(g, "if1", "flag", "y0,y1", th, el);
    r = r ? r : add_node(g, "sum", "Add", "y0,y1", "z", NULL, 0);
    r = r ? r : aicf_graph_add_output(g, "z");
    r = r ? r : aicf_graph_add_output(g, "y0");
    r = r ? r : aicf_graph_add_output(g, "y1");
    if (r != AICF_SUCCESS) {
        printf("FAIL build_basic: %s: %s\n", aicf_result_str(r), aicf_last_error(g_ctx));
        exit(1);
    }
    return g;
}

static void test_capi_basic(void) {
    float K[3], Wt[6], T[6], x[6], z[6], y0[6], y1[6], wz[6], wy0[6], wy1[6];
    int flag, i;
    for (i = 0; i < 3; i++) K[i] = frnd();
    for (i = 0; i < 6; i++) {
        Wt[i] = frnd();
        T[i] = frnd();
        x[i] = frnd();
    }
    for (flag = 1; flag >= 0; flag--) {
        aicf_graph* g = build_basic(K, Wt, T);
        unsigned char fv = (unsigned char)flag;
        aicf_result r;
        aicf_plan* p;
        const char* names[1] = {"x"};
        const float* data[1] = {x};
        size_t bytes[1] = {sizeof x};
        char nm[400];
        r = aicf_graph_bind_input_value(g, "flag", &fv, 1);
        if (r == AICF_SUCCESS) {
            p = plan_cpu(g, &r);
        } else {
            p = NULL;
        }
        snprintf(nm, sizeof nm, "C API If, %s branch: plans", flag ? "then" : "else");
        expect(r, AICF_SUCCESS, NULL, nm);
        aicf_graph_destroy(g); /* the plan owns copies of everything */
        if (!p) continue;
        for (i = 0; i < 6; i++) {
            if (flag) {
                wy0[i] = x[i] * Wt[i] + K[i % 3];
                wy1[i] = x[i];
            } else {
                wy0[i] = -(x[i] - K[i % 3]);
                wy1[i] = T[i];
            }
            wz[i] = wy0[i] + wy1[i];
        }
        r = run_plan(p, 1, names, data, bytes, "z", z, sizeof z);
        if (r == AICF_SUCCESS) r = run_plan(p, 1, names, data, bytes, "y0", y0, sizeof y0);
        if (r == AICF_SUCCESS) r = run_plan(p, 1, names, data, bytes, "y1", y1, sizeof y1);
        snprintf(nm, sizeof nm, "C API If, %s branch: runs", flag ? "then" : "else");
        expect(r, AICF_SUCCESS, NULL, nm);
        if (r == AICF_SUCCESS) {
            char d[160];
            double e = max_rel(z, wz, 6);
            if (max_rel(y0, wy0, 6) > e) e = max_rel(y0, wy0, 6);
            if (max_rel(y1, wy1, 6) > e) e = max_rel(y1, wy1, 6);
            snprintf(d, sizeof d, "max rel err %.3g", e);
            snprintf(nm, sizeof nm, "C API If, %s branch: z, y0, y1 match the host (%s)", flag ? "then" : "else", d);
            check(e <= 1e-6, nm, d);
        }
        snprintf(nm, sizeof nm, "C API If, %s branch: the plan holds the inlined nodes 'if1/%s/...' only",
                 flag ? "then" : "else", flag ? "then" : "else");
        check(plan_text_has(p, flag ? "if1/then/" : "if1/else/") && !plan_text_has(p, flag ? "if1/else/" : "if1/then/"),
              nm, NULL);
        aicf_plan_destroy(p);
    }
}

/* ---- 2. nested If and a condition computed from a bound int64 input ----
   main: x [4], a bool [], b int64 [1]
     then: m = x*x; ic = Equal(b, seven); r = If(ic) [
               then: q = m + x (m: one level out, x: two levels out)
               else: q2 = m - x ]
           outputs r
     else: n = -x; outputs n
   y = If(a); w = y * x; outputs w */
static aicf_graph* build_nested(void) {
    static const int64_t d4[1] = {4}, d1[1] = {1};
    static const int64_t seven[1] = {7};
    aicf_graph* g = new_graph(0);
    aicf_graph* th = new_graph(1);
    aicf_graph* el = new_graph(1);
    aicf_graph* ith = new_graph(1);
    aicf_graph* iel = new_graph(1);
    aicf_result r = AICF_SUCCESS;
    r = r ? r : add_input(g, "x", AICF_DTYPE_FLOAT32, 1, d4);
    r = r ? r : add_input(g, "a", AICF_DTYPE_BOOL, 0, NULL);
    r = r ? r : add_input(g, "b", AICF_DTYPE_INT64, 1, d1);
    r = r ? r : add_node(ith, "iadd", "Add", "m,x", "q", NULL, 0);
    r = r ? r : aicf_graph_add_output(ith, "q");
    r = r ? r : add_node(iel, "isub", "Sub", "m,x", "q2", NULL, 0);
    r = r ? r : aicf_graph_add_output(iel, "q2");
    r = r ? r : add_const(th, "seven", AICF_DTYPE_INT64, 1, d1, seven, sizeof seven);
    r = r ? r : add_node(th, "sq", "Mul", "x,x", "m", NULL, 0);
    r = r ? r : add_node(th, "eq", "Equal", "b,seven", "ic", NULL, 0);
    r = r ? r : add_node(th, "sq1", "Squeeze", "ic", "ics", NULL, 0);
    r = r ? r : add_if(th, "inner", "ics", "r", ith, iel);
    r = r ? r : aicf_graph_add_output(th, "r");
    r = r ? r : add_node(el, "neg", "Neg", "x", "n", NULL, 0);
    r = r ? r : aicf_graph_add_output(el, "n");
    r = r ? r : add_if(g, "outer", "a", "y", th, el);
    r = r ? r : add_node(g, "mul", "Mul", "y,x", "w", NULL, 0);
    r = r ? r : aicf_graph_add_output(g, "w");
    if (r != AICF_SUCCESS) {
        printf("FAIL build_nested: %s: %s\n", aicf_result_str(r), aicf_last_error(g_ctx));
        exit(1);
    }
    return g;
}

static void test_capi_nested(void) {
    float x[4], w[4], ww[4];
    int a, bi, i;
    for (i = 0; i < 4; i++) x[i] = frnd();
    for (a = 0; a < 2; a++)
        for (bi = 0; bi < 2; bi++) {
            aicf_graph* g = build_nested();
            unsigned char av = (unsigned char)a;
            int64_t b = bi ? 7 : 3 + (int64_t)(rnd() % 3); /* 3..5: not 7 */
            aicf_result r;
            aicf_plan* p = NULL;
            const char* names[1] = {"x"};
            const float* data[1] = {x};
            size_t bytes[1] = {sizeof x};
            char nm[200], d[120];
            r = aicf_graph_bind_input_value(g, "a", &av, 1);
            if (r == AICF_SUCCESS) r = aicf_graph_bind_input_value(g, "b", &b, sizeof b);
            if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
            aicf_graph_destroy(g);
            snprintf(nm, sizeof nm, "nested If (a=%d, b=%lld): plans", a, (long long)b);
            expect(r, AICF_SUCCESS, NULL, nm);
            if (!p) continue;
            for (i = 0; i < 4; i++) {
                float y = a ? (b == 7 ? x[i] * x[i] + x[i] : x[i] * x[i] - x[i]) : -x[i];
                ww[i] = y * x[i];
            }
            r = run_plan(p, 1, names, data, bytes, "w", w, sizeof w);
            snprintf(d, sizeof d, "%s, max rel err %.3g", aicf_result_str(r), r == AICF_SUCCESS ? max_rel(w, ww, 4) : -1.0);
            snprintf(nm, sizeof nm, "nested If (a=%d, b=%lld): matches the host", a, (long long)b);
            check(r == AICF_SUCCESS && max_rel(w, ww, 4) <= 1e-6, nm, d);
            if (a) {
                snprintf(nm, sizeof nm, "nested If (a=1, b=%lld): the inner branch is inlined as 'outer/then/inner/<branch>/...'",
                         (long long)b);
                check(plan_text_has(p, b == 7 ? "outer/then/inner/then/" : "outer/then/inner/else/"), nm, NULL);
            }
            aicf_plan_destroy(p);
        }
}

/* ---- 3. errors of the planner ---- */
static void test_plan_errors(void) {
    static const int64_t d4[1] = {4};
    aicf_result r;
    aicf_plan* p;
    /* condition not bound */
    {
        float K[3] = {1, 2, 3}, Wt[6] = {1, 2, 3, 4, 5, 6}, T[6] = {1, 1, 1, 1, 1, 1};
        aicf_graph* g = build_basic(K, Wt, T);
        p = plan_cpu(g, &r);
        expect(r, AICF_ERROR_UNSUPPORTED,
               "node 0 'if1' (If): condition 'flag' is not known at plan time (bind the inputs it depends on with "
               "aicf_graph_bind_input_value)", "If: unbound condition input is AICF_ERROR_UNSUPPORTED with the reason");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
    /* condition computed from a float input: not a constant */
    {
        aicf_graph* g = new_graph(0);
        aicf_graph* th = new_graph(1);
        aicf_graph* el = new_graph(1);
        r = add_input(g, "x", AICF_DTYPE_FLOAT32, 1, d4);
        r = r ? r : add_node(g, "rs", "ReduceSum", "x", "s", NULL, 0);
        r = r ? r : add_node(g, "zero", "Sub", "s,s", "z", NULL, 0);
        r = r ? r : add_node(g, "gt", "Greater", "s,z", "pos", NULL, 0);
        r = r ? r : add_node(th, "n1", "Neg", "x", "a", NULL, 0);
        r = r ? r : aicf_graph_add_output(th, "a");
        r = r ? r : add_node(el, "n2", "Abs", "x", "b", NULL, 0);
        r = r ? r : aicf_graph_add_output(el, "b");
        r = r ? r : add_if(g, "choose", "pos", "y", th, el);
        r = r ? r : aicf_graph_add_output(g, "y");
        expect(r, AICF_SUCCESS, NULL, "If on a computed condition: builds");
        p = plan_cpu(g, &r);
        expect(r, AICF_ERROR_UNSUPPORTED, "node 3 'choose' (If): condition 'pos' is not known at plan time",
               "If: condition computed from a float input is AICF_ERROR_UNSUPPORTED naming it");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
    /* branch errors: missing else_branch, unknown outer name, output count, non-bool condition */
    {
        static const struct {
            int flag_dtype_int;
            int val;
            int variant; /* 0 missing else, 1 outer name undefined, 2 two outputs, 3 int64 condition */
            aicf_result want;
            const char* frag;
            const char* name;
        } cases[] = {
            {0, 0, 0, AICF_ERROR_INVALID_MODEL, "the condition is false but attribute 'else_branch' (a GRAPH) is missing",
             "If without else_branch taken false: AICF_ERROR_INVALID_MODEL"},
            {0, 1, 1, AICF_ERROR_INVALID_MODEL, "then_branch reads 'nowhere', which no enclosing graph defines",
             "If branch reading an undefined outer name: AICF_ERROR_INVALID_MODEL"},
            {0, 1, 2, AICF_ERROR_INVALID_MODEL, "then_branch has 2 outputs, the node 1",
             "If branch with the wrong output count: AICF_ERROR_INVALID_MODEL"},
            {1, 1, 3, AICF_ERROR_INVALID_MODEL, "condition 'c' has data type int64, not bool",
             "If on an int64 condition: AICF_ERROR_INVALID_MODEL"},
        };
        size_t k;
        for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            aicf_graph* g = new_graph(0);
            aicf_graph* th = new_graph(1);
            unsigned char bv = (unsigned char)cases[k].val;
            int64_t iv = cases[k].val;
            r = add_input(g, "x", AICF_DTYPE_FLOAT32, 1, d4);
            r = r ? r : add_input(g, "c", cases[k].flag_dtype_int ? AICF_DTYPE_INT64 : AICF_DTYPE_BOOL, 0, NULL);
            r = r ? r : add_node(th, "n", "Neg", cases[k].variant == 1 ? "nowhere" : "x", "t", NULL, 0);
            r = r ? r : aicf_graph_add_output(th, "t");
            if (cases[k].variant == 2) r = r ? r : aicf_graph_add_output(th, "x");
            r = r ? r : add_if(g, "iff", "c", "y", th, NULL);
            r = r ? r : aicf_graph_add_output(g, "y");
            if (cases[k].flag_dtype_int) r = r ? r : aicf_graph_bind_input_value(g, "c", &iv, sizeof iv);
            else r = r ? r : aicf_graph_bind_input_value(g, "c", &bv, 1);
            if (r != AICF_SUCCESS) {
                expect(r, AICF_SUCCESS, NULL, cases[k].name);
                aicf_graph_destroy(g);
                continue;
            }
            p = plan_cpu(g, &r);
            expect(r, cases[k].want, cases[k].frag, cases[k].name);
            aicf_plan_destroy(p);
            aicf_graph_destroy(g);
        }
    }
    /* Loop and Scan: read, then refused at plan time */
    {
        static const char* const ops[2] = {"Loop", "Scan"};
        int k;
        for (k = 0; k < 2; k++) {
            static const int64_t d1[1] = {1};
            aicf_graph* g = new_graph(0);
            aicf_graph* body = new_graph(1);
            aicf_attr at[2];
            int64_t n = 3;
            char nm[120], frag[160];
            r = add_input(g, "x", AICF_DTYPE_FLOAT32, 1, d4);
            r = r ? r : add_const(g, "trips", AICF_DTYPE_INT64, 1, d1, &n, sizeof n);
            if (k == 0) {
                r = r ? r : add_input(body, "i", AICF_DTYPE_INT64, 1, d1);
                r = r ? r : add_input(body, "cin", AICF_DTYPE_BOOL, 1, d1);
            }
            r = r ? r : add_input(body, "v", AICF_DTYPE_FLOAT32, 1, d4);
            if (k == 0) r = r ? r : add_node(body, "cid", "Identity", "cin", "cout", NULL, 0);
            r = r ? r : add_node(body, "acc", "Add", "v,x", "vout", NULL, 0);
            if (k == 0) r = r ? r : aicf_graph_add_output(body, "cout");
            r = r ? r : aicf_graph_add_output(body, "vout");
            at[0] = graph_attr("body", body);
            memset(&at[1], 0, sizeof at[1]);
            at[1].name = "num_scan_inputs";
            at[1].type = AICF_ATTR_INT;
            at[1].i = 0;
            r = r ? r : add_node(g, "loop", ops[k], k == 0 ? "trips,,x" : "x", "y", at, k == 0 ? 1 : 2);
            r = r ? r : aicf_graph_add_output(g, "y");
            snprintf(nm, sizeof nm, "%s with a body subgraph: builds", ops[k]);
            expect(r, AICF_SUCCESS, NULL, nm);
            p = plan_cpu(g, &r);
            snprintf(nm, sizeof nm, "%s: plan is AICF_ERROR_UNSUPPORTED with the reason", ops[k]);
            snprintf(frag, sizeof frag, "node 0 'loop' (%s): %s is not supported: a plan has no loops", ops[k], ops[k]);
            expect(r, AICF_ERROR_UNSUPPORTED, frag, nm);
            aicf_plan_destroy(p);
            aicf_graph_destroy(g);
        }
    }
    /* outer references in a graph that is planned on its own */
    {
        aicf_graph* g = new_graph(1);
        r = add_node(g, "n", "Neg", "elsewhere", "y", NULL, 0);
        r = r ? r : aicf_graph_add_output(g, "y");
        expect(r, AICF_SUCCESS, NULL, "subgraph builder: an undefined name becomes an outer reference");
        check(aicf__graph_find(g, "elsewhere") >= 0 && (g->tensors[aicf__graph_find(g, "elsewhere")].flags & AICF__T_OUTER),
              "subgraph builder: the outer reference is flagged AICF__T_OUTER", NULL);
        p = plan_cpu(g, &r);
        expect(r, AICF_ERROR_INVALID_MODEL, "tensor 'elsewhere' is an outer reference",
               "planning a graph with outer references: AICF_ERROR_INVALID_MODEL");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
    /* without the subgraph mark an undefined name stays an error */
    {
        aicf_graph* g = new_graph(0);
        r = add_node(g, "n", "Neg", "elsewhere", "y", NULL, 0);
        expect(r, AICF_ERROR_INVALID_MODEL, "input 0 'elsewhere' is not defined before use",
               "graph builder: an undefined input outside a subgraph is AICF_ERROR_INVALID_MODEL");
        aicf_graph_destroy(g);
    }
}

/* ---- 4. builder rules: nesting limit and ownership ---- */
static void test_builder_rules(void) {
    aicf_graph* chain = NULL;
    aicf_result r = AICF_SUCCESS;
    int level;
    static const int64_t d1[1] = {1};
    /* a chain of subgraphs: the graph of level L holds an If whose then_branch is level L-1, so
       L levels of subgraphs lie below it */
    for (level = 0; level <= AICF_MAX_SUBGRAPH_DEPTH + 1; level++) {
        aicf_graph* up = new_graph(1);
        char nm[160];
        r = add_node(up, "n", "Neg", "x", "t", NULL, 0);
        r = r ? r : aicf_graph_add_output(up, "t");
        if (chain) {
            r = r ? r : add_if(up, "if", "c", "u", chain, NULL);
        }
        if (level <= AICF_MAX_SUBGRAPH_DEPTH) {
            snprintf(nm, sizeof nm, "builder: %d levels of subgraphs below a graph are accepted", level);
            expect(r, AICF_SUCCESS, NULL, nm);
            if (r != AICF_SUCCESS) {
                aicf_graph_destroy(up);
                return;
            }
        } else {
            expect(r, AICF_ERROR_LIMIT, "subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH (8) deep",
                   "builder: one level more than AICF_MAX_SUBGRAPH_DEPTH is AICF_ERROR_LIMIT");
            /* the failed add_node left the chain with us */
            aicf_graph_destroy(up);
            aicf_graph_destroy(chain);
            chain = NULL;
            break;
        }
        chain = up;
    }
    aicf_graph_destroy(chain);
    /* ownership */
    {
        aicf_graph* g = new_graph(0);
        aicf_graph* s = new_graph(1);
        aicf_graph* s2;
        aicf_attr at[2];
        r = add_input(g, "c", AICF_DTYPE_BOOL, 1, d1);
        r = r ? r : add_node(s, "n", "Neg", "v", "w", NULL, 0);
        at[0] = graph_attr("then_branch", s);
        at[1] = graph_attr("else_branch", s);
        r = r ? r : add_node(g, "if", "If", "c", "y", at, 2);
        expect(r, AICF_ERROR_INVALID_ARGUMENT, "attributes 'then_branch' and 'else_branch' give the same subgraph",
               "builder: one subgraph in two attributes is AICF_ERROR_INVALID_ARGUMENT");
        /* s is still ours: attach it properly, then try to attach it again and to itself */
        r = add_if(g, "if", "c", "y", s, NULL);
        expect(r, AICF_SUCCESS, NULL, "builder: the subgraph of a failed add_node is still the caller's");
        r = add_if(g, "if2", "c", "y2", s, NULL);
        expect(r, AICF_ERROR_INVALID_ARGUMENT, "already attached",
               "builder: a subgraph attached twice is AICF_ERROR_INVALID_ARGUMENT");
        r = add_if(g, "if3", "c", "y3", g, NULL);
        expect(r, AICF_ERROR_INVALID_ARGUMENT, "the subgraph is this graph",
               "builder: a graph as its own subgraph is AICF_ERROR_INVALID_ARGUMENT");
        /* a cycle: s2 is attached to a node of s; attaching g... s would own g */
        s2 = new_graph(1);
        r = add_node(s2, "n", "Neg", "v", "w", NULL, 0);
        r = r ? r : add_if(s, "ifs", "c", "z", s2, NULL);
        expect(r, AICF_SUCCESS, NULL, "builder: a subgraph gains a nested subgraph");
        r = add_if(s2, "cyc", "c", "q", g, NULL);
        expect(r, AICF_ERROR_INVALID_ARGUMENT, "contains it",
               "builder: attaching an ancestor (an ownership cycle) is AICF_ERROR_INVALID_ARGUMENT");
        aicf_graph_destroy(g); /* frees s and s2 once */
        check(1, "builder: destroying the graph frees its subgraphs once (no crash)", NULL);
    }
}

/* ---- hand-made ONNX files (an independent protobuf encoder) ---- */
typedef struct pbuf {
    unsigned char* p;
    size_t n, cap;
} pbuf;

static void pb_put(pbuf* b, const void* d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char*)realloc(b->p, cap);
        if (!b->p) exit(2);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void pb_varint(pbuf* b, uint64_t v) {
    do {
        unsigned char c = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) c |= 0x80;
        pb_put(b, &c, 1);
    } while (v);
}
static void pb_key(pbuf* b, int field, int wt) { pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wt); }
static void pb_int(pbuf* b, int field, int64_t v) {
    pb_key(b, field, 0);
    pb_varint(b, (uint64_t)v);
}
static void pb_bytes(pbuf* b, int field, const void* d, size_t n) {
    pb_key(b, field, 2);
    pb_varint(b, n);
    pb_put(b, d, n);
}
static void pb_str(pbuf* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
/* appends m as a length-delimited field and empties m */
static void pb_msg(pbuf* b, int field, pbuf* m) {
    pb_bytes(b, field, m->p, m->n);
    free(m->p);
    memset(m, 0, sizeof *m);
}

/* TensorProto: dims, data_type, name, raw_data */
static void pb_tensor(pbuf* b, int field, const char* name, int dtype, int rank, const int64_t* dims, const void* raw,
                      size_t bytes) {
    pbuf t = {0, 0, 0};
    int i;
    for (i = 0; i < rank; i++) pb_int(&t, 1, dims[i]);
    pb_int(&t, 2, dtype);
    if (name) pb_str(&t, 8, name);
    pb_bytes(&t, 9, raw, bytes);
    pb_msg(b, field, &t);
}

/* ValueInfoProto with a tensor type (rank < 0: no shape) */
static void pb_value_info(pbuf* b, int field, const char* name, int dtype, int rank, const int64_t* dims) {
    pbuf vi = {0, 0, 0}, tp = {0, 0, 0}, tt = {0, 0, 0}, sh = {0, 0, 0};
    int i;
    pb_str(&vi, 1, name);
    pb_int(&tt, 1, dtype);
    if (rank >= 0) {
        for (i = 0; i < rank; i++) {
            pbuf dm = {0, 0, 0};
            pb_int(&dm, 1, dims[i]);
            pb_msg(&sh, 1, &dm);
        }
        pb_msg(&tt, 2, &sh);
    }
    pb_msg(&tp, 1, &tt);
    pb_msg(&vi, 2, &tp);
    pb_msg(b, field, &vi);
}

/* NodeProto into GraphProto g; attrs are AttributeProto buffers (consumed) */
static void pb_node(pbuf* g, const char* name, const char* op, const char* ins, const char* outs, pbuf* attrs,
                    int n_attrs) {
    pbuf nb = {0, 0, 0};
    char ib[8][64], ob[8][64];
    const char* in[8];
    const char* out[8];
    int i, n_in = split(ins, ib, in), n_out = split(outs, ob, out);
    for (i = 0; i < n_in; i++) pb_str(&nb, 1, in[i]);
    for (i = 0; i < n_out; i++) pb_str(&nb, 2, out[i]);
    pb_str(&nb, 3, name);
    pb_str(&nb, 4, op);
    for (i = 0; i < n_attrs; i++) pb_msg(&nb, 5, &attrs[i]);
    pb_msg(g, 1, &nb);
}

/* AttributeProto of type GRAPH holding the GraphProto sub (consumed) */
static void pb_graph_attr(pbuf* a, const char* name, pbuf* sub) {
    pb_str(a, 1, name);
    pb_int(a, 20, 5);
    pb_msg(a, 6, sub);
}

static pbuf pb_model(pbuf* graph, int opset) {
    pbuf m = {0, 0, 0}, ops = {0, 0, 0};
    pb_int(&m, 1, 8);
    pb_str(&ops, 1, "");
    pb_int(&ops, 2, opset);
    pb_msg(&m, 8, &ops);
    pb_msg(&m, 7, graph);
    return m;
}

/* ONNX model: x [5] float, sr int64 [1]; cond = Equal(sr, 16000) squeezed;
     then: W [5] initializer; h = x*W; k = If(flag2) [then: o = h + x; else: o2 = h - x]; out k
     else: e = Relu(x); out e
   y = If(cond); z = y + x; outputs z. flag2 is a main-graph bool input. */
static pbuf make_if_model(const float* W) {
    static const int64_t d5[1] = {5}, d1[1] = {1};
    const int64_t k16000[1] = {16000};
    pbuf g = {0, 0, 0}, th = {0, 0, 0}, el = {0, 0, 0}, ith = {0, 0, 0}, iel = {0, 0, 0}, a[2];
    memset(a, 0, sizeof a);
    /* inner branches */
    pb_node(&ith, "iadd", "Add", "h,x", "o", NULL, 0);
    pb_str(&ith, 2, "inner_then");
    pb_value_info(&ith, 12, "o", 1, -1, NULL);
    pb_node(&iel, "isub", "Sub", "h,x", "o2", NULL, 0);
    pb_str(&iel, 2, "inner_else");
    pb_value_info(&iel, 12, "o2", 1, -1, NULL);
    /* then branch */
    pb_node(&th, "mulw", "Mul", "x,W", "h", NULL, 0);
    pb_graph_attr(&a[0], "then_branch", &ith);
    pb_graph_attr(&a[1], "else_branch", &iel);
    pb_node(&th, "inner", "If", "flag2", "k", a, 2);
    pb_str(&th, 2, "then");
    pb_tensor(&th, 5, "W", 1, 1, d5, W, 5 * sizeof(float));
    pb_value_info(&th, 12, "k", 1, 1, d5);
    /* else branch */
    pb_node(&el, "relu", "Relu", "x", "e", NULL, 0);
    pb_str(&el, 2, "else");
    pb_value_info(&el, 12, "e", 1, 1, d5);
    /* main graph */
    pb_node(&g, "eq", "Equal", "sr,k16000", "c1", NULL, 0);
    pb_node(&g, "sq", "Squeeze", "c1", "cond", NULL, 0);
    pb_graph_attr(&a[0], "then_branch", &th);
    pb_graph_attr(&a[1], "else_branch", &el);
    pb_node(&g, "choose", "If", "cond", "y", a, 2);
    pb_node(&g, "fin", "Add", "y,x", "z", NULL, 0);
    pb_str(&g, 2, "main");
    pb_tensor(&g, 5, "k16000", 7, 1, d1, k16000, sizeof k16000);
    pb_value_info(&g, 11, "x", 1, 1, d5);
    pb_value_info(&g, 11, "sr", 7, 1, d1);
    pb_value_info(&g, 11, "flag2", 9, 0, NULL);
    pb_value_info(&g, 12, "z", 1, 1, d5);
    return pb_model(&g, 17);
}

static void test_onnx_if(void) {
    float W[5], x[5], z[5], wz[5];
    int i, srk, f2;
    for (i = 0; i < 5; i++) {
        W[i] = frnd();
        x[i] = frnd();
    }
    for (srk = 0; srk < 2; srk++)
        for (f2 = 0; f2 < 2; f2++) {
            pbuf m = make_if_model(W);
            aicf_graph* g = NULL;
            aicf_plan* p = NULL;
            int64_t sr = srk ? 16000 : 8000;
            unsigned char fv = (unsigned char)f2;
            const char* names[1] = {"x"};
            const float* data[1] = {x};
            size_t bytes[1] = {sizeof x};
            char nm[200], d[160];
            aicf_result r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &g);
            free(m.p);
            snprintf(nm, sizeof nm, "ONNX If (sr=%lld, flag2=%d): loads", (long long)sr, f2);
            expect(r, AICF_SUCCESS, NULL, nm);
            if (r != AICF_SUCCESS) continue;
            if (srk == 0 && f2 == 0) {
                const aicf__node* n = &g->nodes[2];
                const aicf__attrv* tb = aicf__attr(n, "then_branch");
                int ok = n->op == AICF__OP_If && tb && tb->type == AICF_ATTR_GRAPH && tb->g && tb->g->n_nodes == 2 &&
                         tb->g->n_outputs == 1 && aicf__graph_find(tb->g, "W") >= 0 &&
                         (tb->g->tensors[aicf__graph_find(tb->g, "W")].flags & AICF__T_CONST) &&
                         aicf__graph_find(tb->g, "x") >= 0 &&
                         (tb->g->tensors[aicf__graph_find(tb->g, "x")].flags & AICF__T_OUTER) &&
                         aicf__graph_find(tb->g, "flag2") >= 0 && tb->g->opset == 17;
                check(ok, "ONNX If: then_branch read as a subgraph (initializer W, outer x and flag2, opset 17)", NULL);
            }
            r = aicf_graph_bind_input_value(g, "sr", &sr, sizeof sr);
            if (r == AICF_SUCCESS) r = aicf_graph_bind_input_value(g, "flag2", &fv, 1);
            if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
            aicf_graph_destroy(g);
            snprintf(nm, sizeof nm, "ONNX If (sr=%lld, flag2=%d): plans", (long long)sr, f2);
            expect(r, AICF_SUCCESS, NULL, nm);
            if (!p) continue;
            for (i = 0; i < 5; i++) {
                float y;
                if (sr == 16000) y = f2 ? x[i] * W[i] + x[i] : x[i] * W[i] - x[i];
                else y = x[i] > 0 ? x[i] : 0.0f;
                wz[i] = y + x[i];
            }
            r = run_plan(p, 1, names, data, bytes, "z", z, sizeof z);
            snprintf(d, sizeof d, "%s, max rel err %.3g", aicf_result_str(r), r == AICF_SUCCESS ? max_rel(z, wz, 5) : -1.0);
            snprintf(nm, sizeof nm, "ONNX If (sr=%lld, flag2=%d): matches the host", (long long)sr, f2);
            check(r == AICF_SUCCESS && max_rel(z, wz, 5) <= 1e-6, nm, d);
            aicf_plan_destroy(p);
        }
    /* the condition unknown: sr not bound */
    {
        pbuf m = make_if_model(W);
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_result r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &g);
        free(m.p);
        if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
        expect(r, AICF_ERROR_UNSUPPORTED,
               "node 2 'choose' (If): condition 'cond' is not known at plan time (bind the inputs it depends on with "
               "aicf_graph_bind_input_value)",
               "ONNX If with sr unbound: AICF_ERROR_UNSUPPORTED naming the node and condition");
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
}

/* A chain of `depth` nested Ifs on main input c: level L's then_branch holds the If of level
   L+1, the innermost then_branch computes x + x (x from the main graph); every else_branch is
   Neg(x). */
static pbuf make_chain(int depth) {
    static const int64_t d3[1] = {3};
    pbuf inner = {0, 0, 0};
    int level;
    pb_node(&inner, "dbl", "Add", "x,x", "o0", NULL, 0);
    pb_str(&inner, 2, "innermost");
    pb_value_info(&inner, 12, "o0", 1, -1, NULL);
    for (level = 1; level <= depth; level++) {
        pbuf up = {0, 0, 0}, el = {0, 0, 0}, a[2];
        char out[32], eo[32], nm[32];
        memset(a, 0, sizeof a);
        snprintf(out, sizeof out, "o%d", level);
        snprintf(eo, sizeof eo, "e%d", level);
        snprintf(nm, sizeof nm, "if%d", level);
        pb_node(&el, "neg", "Neg", "x", eo, NULL, 0);
        pb_value_info(&el, 12, eo, 1, -1, NULL);
        pb_graph_attr(&a[0], "then_branch", &inner);
        pb_graph_attr(&a[1], "else_branch", &el);
        pb_node(&up, nm, "If", "c", level == depth ? "y" : out, a, 2);
        if (level < depth) pb_value_info(&up, 12, out, 1, -1, NULL);
        inner = up;
    }
    pb_str(&inner, 2, "main");
    pb_value_info(&inner, 11, "x", 1, 1, d3);
    pb_value_info(&inner, 11, "c", 9, 0, NULL);
    pb_value_info(&inner, 12, "y", 1, 1, d3);
    return pb_model(&inner, 18);
}

static void test_onnx_depth(void) {
    float x[3], y[3], wy[3];
    int i, cv;
    for (i = 0; i < 3; i++) x[i] = frnd();
    for (cv = 0; cv < 2; cv++) {
        pbuf m = make_chain(AICF_MAX_SUBGRAPH_DEPTH);
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        unsigned char c = (unsigned char)cv;
        const char* names[1] = {"x"};
        const float* data[1] = {x};
        size_t bytes[1] = {sizeof x};
        char nm[200], d[1400];
        aicf_result r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &g);
        free(m.p);
        snprintf(nm, sizeof nm, "ONNX: %d nested Ifs (AICF_MAX_SUBGRAPH_DEPTH) load", AICF_MAX_SUBGRAPH_DEPTH);
        if (cv == 0) expect(r, AICF_SUCCESS, NULL, nm);
        if (r != AICF_SUCCESS) continue;
        r = aicf_graph_bind_input_value(g, "c", &c, 1);
        if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
        aicf_graph_destroy(g);
        for (i = 0; i < 3; i++) wy[i] = cv ? x[i] + x[i] : -x[i];
        if (p) r = run_plan(p, 1, names, data, bytes, "y", y, sizeof y);
        snprintf(d, sizeof d, "%s %s", aicf_result_str(r), r == AICF_SUCCESS ? "" : aicf_last_error(g_ctx));
        snprintf(nm, sizeof nm, "ONNX: %d nested Ifs with c=%d plan, run and match the host", AICF_MAX_SUBGRAPH_DEPTH, cv);
        check(r == AICF_SUCCESS && max_rel(y, wy, 3) <= 1e-6, nm, d);
        aicf_plan_destroy(p);
    }
    {
        pbuf m = make_chain(AICF_MAX_SUBGRAPH_DEPTH + 1);
        aicf_graph* g = NULL;
        aicf_result r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &g);
        free(m.p);
        expect(r, AICF_ERROR_LIMIT, "subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH (8) deep",
               "ONNX: one nested If more than AICF_MAX_SUBGRAPH_DEPTH is AICF_ERROR_LIMIT");
        check(r != AICF_SUCCESS && strstr(aicf_last_error(g_ctx), ".g.node[0].attribute[0]") != NULL,
              "ONNX: the nesting error names the path through the subgraphs", aicf_last_error(g_ctx));
        aicf_graph_destroy(g);
    }
    /* a GRAPH attribute without its g, and an unknown op inside a branch */
    {
        static const int64_t d3[1] = {3};
        pbuf g = {0, 0, 0}, a = {0, 0, 0}, sub = {0, 0, 0}, m;
        aicf_graph* gr = NULL;
        aicf_result r;
        pb_str(&a, 1, "then_branch");
        pb_int(&a, 20, 5);
        pb_node(&g, "bad", "If", "c", "y", &a, 1);
        pb_value_info(&g, 11, "x", 1, 1, d3);
        pb_value_info(&g, 11, "c", 9, 0, NULL);
        pb_value_info(&g, 12, "y", 1, 1, d3);
        m = pb_model(&g, 18);
        r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &gr);
        free(m.p);
        expect(r, AICF_ERROR_INVALID_MODEL, "attribute 'then_branch' of type GRAPH has no g",
               "ONNX: a GRAPH attribute without g is AICF_ERROR_INVALID_MODEL");
        aicf_graph_destroy(gr);
        gr = NULL;
        pb_node(&sub, "mystery", "NoSuchOp", "x", "t", NULL, 0);
        pb_value_info(&sub, 12, "t", 1, -1, NULL);
        pb_graph_attr(&a, "then_branch", &sub);
        pb_node(&g, "iff", "If", "c", "y", &a, 1);
        pb_value_info(&g, 11, "x", 1, 1, d3);
        pb_value_info(&g, 11, "c", 9, 0, NULL);
        pb_value_info(&g, 12, "y", 1, 1, d3);
        m = pb_model(&g, 18);
        r = aicf_graph_load_onnx_memory(g_ctx, m.p, m.n, NULL, &gr);
        free(m.p);
        expect(r, AICF_ERROR_UNSUPPORTED,
               "onnx: GraphProto.node[0].attribute[0].g.node[0]: node 0 'mystery' (NoSuchOp): unsupported op type",
               "ONNX: an unknown op inside a branch is AICF_ERROR_UNSUPPORTED with the subgraph path");
        aicf_graph_destroy(gr);
    }
}

/* ---- 5. Silero VAD ---- */
static int read_pb(const char* path, aicf_host_tensor* t) { return aicf_tensor_read_pb(g_ctx, path, t) == AICF_SUCCESS; }

static double rel_l2(const float* got, const float* ref, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = (double)got[i] - (double)ref[i];
        num += d * d;
        den += (double)ref[i] * (double)ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void test_silero(void) {
    /* `output` of each data set evaluated in float64 (onnx.reference.ReferenceEvaluator on the
       model with every float tensor cast to float64): an independent check of the scalar, whose
       stored ONNX Runtime value differs from it by 6.5e-6 (set 0) and 3.8e-5 (set 1) */
    static const double out_f64[2] = {0.0022574815243088099, 0.0011903788275767547};
    const char* root = getenv("AICF_TEST_DATA");
    char dir[1024], path[1200];
    int ds;
    if (!root) root = "../shared/data";
    snprintf(dir, sizeof dir, "%s/models/silero_vad_op18_ifless", root);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    {
        FILE* f = fopen(path, "rb");
        if (!f) {
            printf("SKIP silero_vad: %s not found (set AICF_TEST_DATA)\n", path);
            return;
        }
        fclose(f);
    }
    for (ds = 0; ds < 2; ds++) {
        static const char* const dim_names[2] = {"batch", "sequence"};
        static const int64_t dim_values[2] = {1, 512};
        aicf_onnx_desc od;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        aicf_exec* e = NULL;
        aicf_host_tensor in[3], ref[2];
        float out0[1], out1[256];
        char nm[400], d[64];
        int k, ok = 1;
        aicf_result r;
        memset(in, 0, sizeof in);
        memset(ref, 0, sizeof ref);
        for (k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s/test_data_set_%d/input_%d.pb", dir, ds, k);
            ok &= read_pb(path, &in[k]);
        }
        for (k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/test_data_set_%d/output_%d.pb", dir, ds, k);
            ok &= read_pb(path, &ref[k]);
        }
        snprintf(nm, sizeof nm, "silero_vad data set %d: test data readable", ds);
        check(ok && in[1].dtype == AICF_DTYPE_INT64 && ref[0].bytes == sizeof out0 && ref[1].bytes == sizeof out1, nm,
              aicf_last_error(g_ctx));
        if (!ok || ref[0].bytes != sizeof out0 || ref[1].bytes != sizeof out1) goto next;
        memset(&od, 0, sizeof od);
        od.num_dims = 2;
        od.dim_names = dim_names;
        od.dim_values = dim_values;
        snprintf(path, sizeof path, "%s/model.onnx", dir);
        r = aicf_graph_load_onnx(g_ctx, path, &od, &g);
        if (r == AICF_SUCCESS && ds == 0) {
            p = plan_cpu(g, &r);
            expect(r, AICF_ERROR_UNSUPPORTED, "(If): condition 'eq_2' is not known at plan time",
                   "silero_vad with sr unbound: AICF_ERROR_UNSUPPORTED naming the If's condition");
            aicf_plan_destroy(p);
            p = NULL;
            r = AICF_SUCCESS;
        }
        if (r == AICF_SUCCESS) r = aicf_graph_bind_input_value(g, "sr", in[1].data, in[1].bytes);
        if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
        snprintf(nm, sizeof nm, "silero_vad data set %d: loads and plans with sr bound (%lld)", ds,
                 (long long)*(const int64_t*)in[1].data);
        expect(r, AICF_SUCCESS, NULL, nm);
        if (!p) goto next;
        r = aicf_exec_create(p, NULL, &e);
        if (r == AICF_SUCCESS) r = aicf_exec_set_input(e, aicf_plan_find_input(p, "input"), in[0].data, in[0].bytes);
        if (r == AICF_SUCCESS) r = aicf_exec_set_input(e, aicf_plan_find_input(p, "state"), in[2].data, in[2].bytes);
        if (r == AICF_SUCCESS) r = aicf_exec_run(e);
        if (r == AICF_SUCCESS) r = aicf_exec_get_output(e, aicf_plan_find_output(p, "output"), out0, sizeof out0);
        if (r == AICF_SUCCESS) r = aicf_exec_get_output(e, aicf_plan_find_output(p, "stateN"), out1, sizeof out1);
        snprintf(nm, sizeof nm, "silero_vad data set %d: runs on the CPU", ds);
        expect(r, AICF_SUCCESS, NULL, nm);
        if (r == AICF_SUCCESS) {
            double e_state = rel_l2(out1, (const float*)ref[1].data, 256);
            double e_f64 = fabs((double)out0[0] - out_f64[ds]) / out_f64[ds];
            double e_ort = rel_l2(out0, (const float*)ref[0].data, 1);
            snprintf(d, sizeof d, "rel err %.3g", e_state);
            snprintf(nm, sizeof nm, "silero_vad data set %d: stateN vs the data set, %s <= 1e-5", ds, d);
            check(e_state <= 1e-5, nm, d);
            snprintf(d, sizeof d, "rel err %.3g", e_f64);
            snprintf(nm, sizeof nm, "silero_vad data set %d: output vs its float64 evaluation, %s <= 1e-5", ds, d);
            check(e_f64 <= 1e-5, nm, d);
            /* the stored value is ONNX Runtime's float32 result, itself up to 3.8e-5 from float64 */
            snprintf(d, sizeof d, "rel err %.3g", e_ort);
            snprintf(nm, sizeof nm, "silero_vad data set %d: output vs the data set (ONNX Runtime), %s <= %g", ds, d,
                     ds == 0 ? 1e-5 : 5e-5);
            check(e_ort <= (ds == 0 ? 1e-5 : 5e-5), nm, d);
        }
    next:
        aicf_exec_destroy(e);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
        for (k = 0; k < 3; k++) aicf_host_tensor_free(g_ctx, &in[k]);
        for (k = 0; k < 2; k++) aicf_host_tensor_free(g_ctx, &ref[k]);
    }
    /* sr = 8000 selects the other branch (the 8 kHz network: 256 samples) */
    {
        static const char* const dim_names[2] = {"batch", "sequence"};
        static const int64_t dim_values[2] = {1, 256};
        aicf_onnx_desc od;
        aicf_graph* g = NULL;
        aicf_plan* p = NULL;
        int64_t sr = 8000;
        aicf_result r;
        memset(&od, 0, sizeof od);
        od.num_dims = 2;
        od.dim_names = dim_names;
        od.dim_values = dim_values;
        snprintf(path, sizeof path, "%s/model.onnx", dir);
        r = aicf_graph_load_onnx(g_ctx, path, &od, &g);
        if (r == AICF_SUCCESS) r = aicf_graph_bind_input_value(g, "sr", &sr, sizeof sr);
        if (r == AICF_SUCCESS) p = plan_cpu(g, &r);
        expect(r, AICF_SUCCESS, NULL, "silero_vad with sr = 8000 plans (the else_branch)");
        if (p)
            check(plan_text_has(p, "node_cond__1/else/") && !plan_text_has(p, "node_cond__1/then/"),
                  "silero_vad with sr = 8000: the plan holds the else_branch's nodes", NULL);
        aicf_plan_destroy(p);
        aicf_graph_destroy(g);
    }
}

int main(void) {
    aicf_context_desc cd;
    const char* seed = getenv("AICF_TEST_SEED");
    g_rng = seed ? (uint64_t)strtoull(seed, NULL, 10) : (uint64_t)time(NULL);
    if (!g_rng) g_rng = 88172645463325252ull;
    printf("test_if: seed %llu (AICF_TEST_SEED to repeat)\n", (unsigned long long)g_rng);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    if (aicf_context_create(&cd, &g_ctx) != AICF_SUCCESS) {
        printf("FAIL context\n0 passed, 1 failed\n");
        return 1;
    }
    test_capi_basic();
    test_capi_nested();
    test_plan_errors();
    test_builder_rules();
    test_onnx_if();
    test_onnx_depth();
    test_silero();
    aicf_context_destroy(g_ctx);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
