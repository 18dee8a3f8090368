/* Minimal embedding: build a two-layer MLP through the C API, plan it, run it.
   Uses CUDA when a device is present, else the CPU reference (policy.allow_cpu_fallback). */
#define AICF_IMPLEMENTATION
#include "../aicf.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    aicf_context* ctx;
    aicf_graph* g;
    aicf_plan* plan;
    aicf_exec* exec;
    static float w1[4 * 8], b1[8], w2[8 * 2];
    float x[4] = {0.5f, -1.0f, 0.25f, 2.0f}, y[2];
    int64_t xdims[2] = {1, 4}, w1dims[2] = {4, 8}, b1dims[1] = {8}, w2dims[2] = {8, 2};
    int i;
    for (i = 0; i < 32; i++) w1[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
    for (i = 0; i < 8; i++) b1[i] = 0.01f * (float)i;
    for (i = 0; i < 16; i++) w2[i] = (float)((i * 5) % 7) / 7.0f - 0.5f;

    if (aicf_context_create(NULL, &ctx) != AICF_SUCCESS) return 1;
    aicf_graph_create(ctx, &g);
    {
        aicf_tensor_desc in = {"x", AICF_DTYPE_FLOAT32, 2, xdims, NULL, NULL, 0, 0};
        aicf_tensor_desc cw1 = {"w1", AICF_DTYPE_FLOAT32, 2, w1dims, NULL, w1, sizeof w1, 0};
        aicf_tensor_desc cb1 = {"b1", AICF_DTYPE_FLOAT32, 1, b1dims, NULL, b1, sizeof b1, 0};
        aicf_tensor_desc cw2 = {"w2", AICF_DTYPE_FLOAT32, 2, w2dims, NULL, w2, sizeof w2, 0};
        const char* gemm_in[3] = {"x", "w1", "b1"};
        const char* gemm_out[1] = {"h"};
        const char* relu_in[1] = {"h"};
        const char* relu_out[1] = {"hr"};
        const char* mm_in[2] = {"hr", "w2"};
        const char* mm_out[1] = {"y"};
        aicf_node_desc gemm = {"fc1", "Gemm", NULL, gemm_in, 3, gemm_out, 1, NULL, 0};
        aicf_node_desc relu = {"act", "Relu", NULL, relu_in, 1, relu_out, 1, NULL, 0};
        aicf_node_desc mm = {"fc2", "MatMul", NULL, mm_in, 2, mm_out, 1, NULL, 0};
        aicf_graph_add_input(g, &in);
        aicf_graph_add_constant(g, &cw1);
        aicf_graph_add_constant(g, &cb1);
        aicf_graph_add_constant(g, &cw2);
        aicf_graph_add_node(g, &gemm);
        aicf_graph_add_node(g, &relu);
        aicf_graph_add_node(g, &mm);
        if (aicf_graph_add_output(g, "y") != AICF_SUCCESS) {
            fprintf(stderr, "graph: %s\n", aicf_last_error(ctx));
            return 1;
        }
    }
    {
        aicf_plan_desc pd;
        memset(&pd, 0, sizeof pd); /* zero = defaults: fusion on, AUTO kernel choice */
        pd.backend = AICF_BACKEND_DEFAULT;
        pd.policy.precision = AICF_PRECISION_FP32;
        pd.policy.allow_cpu_fallback = 1;
        if (aicf_plan_create(g, &pd, &plan) != AICF_SUCCESS) {
            fprintf(stderr, "plan: %s\n", aicf_last_error(ctx));
            return 1;
        }
    }
    aicf_graph_destroy(g); /* the plan keeps what it needs */
    if (aicf_exec_create(plan, NULL, &exec) != AICF_SUCCESS) {
        fprintf(stderr, "exec: %s\n", aicf_last_error(ctx));
        return 1;
    }
    for (i = 0; i < 3; i++) { /* e.g. once per frame */
        x[0] = 0.5f * (float)i;
        aicf_exec_set_input(exec, 0, x, sizeof x);
        if (aicf_exec_run(exec) != AICF_SUCCESS) {
            fprintf(stderr, "run: %s\n", aicf_last_error(ctx));
            return 1;
        }
        aicf_exec_get_output(exec, 0, y, sizeof y);
        printf("frame %d: y = [%.6f, %.6f]\n", i, y[0], y[1]);
    }
    aicf_exec_destroy(exec);
    aicf_plan_destroy(plan);
    aicf_context_destroy(ctx);
    return 0;
}
