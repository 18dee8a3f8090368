/* Regression (found by fuzz_graph, input regressions/graph/bind-dim-after-bind-input-value):
   aicf_graph_bind_dim after aicf_graph_bind_input_value re-shapes the now-constant tensor
   (its dim_param is still set) without resizing its data: the plan then reads past the data.
   Expected: bind_dim leaves constants alone or is rejected (AICF_ERROR_STATE / SHAPE); plan and
   get_output never read more than the bound value's bytes.
     gcc -std=c99 -g -fsanitize=address tests/fuzz/regressions/api/bind_dim_after_bind_input_value.c -lm -ldl
   Exits 0 when aicf handles it (an error at some step, or 4 bytes of output). */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../../../aicf.h"
#include <stdio.h>

int main(void) {
    aicf_context_desc cd;
    aicf_context* ctx;
    aicf_graph* g;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    aicf_tensor_desc x;
    aicf_tensor_info ti;
    int64_t dims[1] = {-1};
    const char* params[1] = {"K"};
    float one = 1.0f, out[16];
    aicf_result r;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    aicf_context_create(&cd, &ctx);
    aicf_graph_create(ctx, &g);
    memset(&x, 0, sizeof x);
    x.name = "x";
    x.dtype = AICF_DTYPE_FLOAT32;
    x.rank = 1;
    x.dims = dims;
    x.dim_params = params;
    aicf_graph_add_input(g, &x);
    aicf_graph_bind_dim(g, "K", 1);
    r = aicf_graph_bind_input_value(g, "x", &one, sizeof one); /* x is now a 4-byte constant */
    printf("bind_input_value: %s\n", aicf_result_str(r));
    aicf_graph_add_output(g, "x");
    r = aicf_graph_bind_dim(g, "K", 3); /* re-shapes the constant to [3] (12 bytes) */
    printf("bind_dim K=3: %s\n", aicf_result_str(r));
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    printf("plan_create: %s %s\n", aicf_result_str(r), r ? aicf_last_error(ctx) : "");
    if (r == AICF_SUCCESS) {
        aicf_plan_output_info(p, 0, &ti);
        printf("output 0: %zu bytes\n", ti.bytes);
        if (aicf_exec_create(p, NULL, &e) == AICF_SUCCESS && aicf_exec_run(e) == AICF_SUCCESS && ti.bytes <= sizeof out)
            aicf_exec_get_output(e, 0, out, ti.bytes); /* ASan: heap-buffer-overflow READ of size 12 */
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    return 0;
}
