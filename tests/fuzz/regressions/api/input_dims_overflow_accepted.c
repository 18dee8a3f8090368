/* Regression (found by fuzz_graph, input regressions/graph/info-dims-overflow-input-accepted):
   a graph input whose dims overflow the element count ([2^40, 2^40, 1] float32) is accepted by
   aicf_graph_add_input and, when no node reads it (here it is also the graph output), by
   aicf_plan_create; aicf_plan_input_info / _output_info then report the full dims with
   bytes = 0, and aicf_exec_set_input accepts 0 bytes for it. Expected: AICF_ERROR_LIMIT
   ("exceeds AICF_MAX_TENSOR_BYTES") from aicf_graph_add_input or aicf_plan_create, as
   aicf_graph_add_constant and the ONNX reader already do.
     gcc -std=c99 -g tests/fuzz/regressions/api/input_dims_overflow_accepted.c -lm -ldl && ./a.out
   Exits 1 while the plan is accepted. */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../../../aicf.h"
#include <stdio.h>

int main(void) {
    aicf_context_desc cd;
    aicf_context* ctx;
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_tensor_desc x;
    aicf_tensor_info ti;
    int64_t dims[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 1};
    aicf_result r;
    int bad = 0;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    aicf_context_create(&cd, &ctx);
    aicf_graph_create(ctx, &g);
    memset(&x, 0, sizeof x);
    x.name = "x";
    x.dtype = AICF_DTYPE_FLOAT32;
    x.rank = 3;
    x.dims = dims;
    r = aicf_graph_add_input(g, &x);
    printf("add_input [2^40,2^40,1]: %s %s\n", aicf_result_str(r), r ? aicf_last_error(ctx) : "");
    if (r == AICF_SUCCESS) {
        aicf_graph_add_output(g, "x");
        memset(&pd, 0, sizeof pd);
        pd.backend = AICF_BACKEND_CPU;
        r = aicf_plan_create(g, &pd, &p);
        printf("plan_create: %s %s\n", aicf_result_str(r), r ? aicf_last_error(ctx) : "");
        if (r == AICF_SUCCESS) {
            aicf_plan_input_info(p, 0, &ti);
            printf("input 0: rank %d dims [%lld,%lld,%lld] bytes %zu\n", ti.rank, (long long)ti.dims[0],
                   (long long)ti.dims[1], (long long)ti.dims[2], ti.bytes);
            bad = 1;
        }
    }
    printf(bad ? "FAIL: accepted\n" : "ok\n");
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    return bad;
}
