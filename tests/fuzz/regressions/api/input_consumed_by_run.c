/* Finding (fuzz harness, first run of fuzz_graph on the seed corpus): a run consumes its inputs.
   The planner reuses an input's arena bytes once the input is dead (here y = Relu(MatMul(x, W))
   lands on x's offset 0), so a second aicf_exec_run without aicf_exec_set_input computes on the
   previous output: run 1 gives y, run 2 gives Relu(y W'), silently. Neither 10_api.h nor the
   manual says inputs must be set again before every run. Expected: either inputs stay valid
   across runs (the planner keeps input ranges live for the whole plan) or the API documents
   that a run consumes its inputs (and, ideally, aicf_exec_run fails with AICF_ERROR_STATE when
   an input was not set since the last run).
     gcc -std=c99 -g tests/fuzz/regressions/api/input_consumed_by_run.c -lm -ldl && ./a.out
   Exits 1 while the two runs differ. */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../../../aicf.h"
#include <stdio.h>

int main(void) {
    aicf_context_desc cd;
    aicf_context* ctx;
    aicf_graph* g;
    aicf_plan* p;
    aicf_exec* e;
    aicf_plan_desc pd;
    aicf_tensor_desc x, w;
    aicf_node_desc n;
    int64_t xd[2] = {2, 4}, wd[2] = {4, 3};
    float wv[12], xv[8], y[2][6];
    const char* mm_in[2] = {"x", "W"};
    const char* mm_out[1] = {"h"};
    const char* relu_out[1] = {"y"};
    int i, run, differ = 0;
    for (i = 0; i < 12; i++) wv[i] = (float)i / 10.0f;
    for (i = 0; i < 8; i++) xv[i] = (float)(i - 3);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    aicf_context_create(&cd, &ctx);
    aicf_graph_create(ctx, &g);
    memset(&x, 0, sizeof x);
    x.name = "x";
    x.dtype = AICF_DTYPE_FLOAT32;
    x.rank = 2;
    x.dims = xd;
    aicf_graph_add_input(g, &x);
    w = x;
    w.name = "W";
    w.dims = wd;
    w.data = wv;
    w.data_bytes = sizeof wv;
    aicf_graph_add_constant(g, &w);
    memset(&n, 0, sizeof n);
    n.op_type = "MatMul";
    n.inputs = mm_in;
    n.num_inputs = 2;
    n.outputs = mm_out;
    n.num_outputs = 1;
    aicf_graph_add_node(g, &n);
    n.op_type = "Relu";
    n.inputs = mm_out;
    n.num_inputs = 1;
    n.outputs = relu_out;
    aicf_graph_add_node(g, &n);
    aicf_graph_add_output(g, "y");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS || aicf_exec_create(p, NULL, &e) != AICF_SUCCESS) {
        printf("setup failed: %s\n", aicf_last_error(ctx));
        return 2;
    }
    aicf_exec_set_input(e, 0, xv, sizeof xv); /* once */
    for (run = 0; run < 2; run++) {
        aicf_exec_run(e);
        aicf_exec_get_output(e, 0, y[run], sizeof y[run]);
        printf("run %d:", run + 1);
        for (i = 0; i < 6; i++) printf(" %g", y[run][i]);
        printf("\n");
    }
    differ = memcmp(y[0], y[1], sizeof y[0]) != 0;
    printf(differ ? "FAIL: the second run without set_input computed on clobbered input\n" : "ok\n");
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    return differ;
}
