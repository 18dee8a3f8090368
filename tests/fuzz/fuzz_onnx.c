/* libFuzzer target: the ONNX ModelProto reader, then plan + run on the CPU.

   The input is an ONNX file. aicf_graph_load_onnx_memory reads it; when it loads, every
   symbolic dim of every graph input is bound to a small value (1..3, from the dim's name),
   small integer inputs become constants, aicf_plan_create plans it on the CPU backend and, when
   aicf_plan_stats_get / the estimated work stay under the limits of fuzz_common.h, it runs twice
   with deterministic random inputs. 1 input in 16 also fails one allocation (fault injection).

     clang -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_onnx.c -o build/fuzz/fuzz_onnx -lm -ldl
     gcc tests/fuzz/fuzz_onnx.c tests/fuzz/replay_main.c -o replay_onnx -lm -ldl   (corpus replay) */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE /* CPU only: the CUDA kernel table is not needed */
#include "../../aicf.h"
#include "fuzz_common.h"

static void fz_bind_dims(aicf_graph* g) {
    int i, j;
    for (i = 0; i < g->n_inputs; i++) {
        const aicf__tensor* t = &g->tensors[g->inputs[i]];
        for (j = 0; j < t->shape.rank && j < AICF_MAX_RANK; j++)
            if (t->dim_param[j] && t->shape.d[j] < 0) {
                const char* nm = t->dim_param[j];
                int64_t v = 1 + (int64_t)(fz_hash((const uint8_t*)nm, strlen(nm)) % 3u);
                aicf_result r = aicf_graph_bind_dim(g, nm, v);
                if (r != AICF_SUCCESS && r != AICF_ERROR_OUT_OF_MEMORY) fz_fail("aicf_graph_bind_dim", nm);
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_heap heap;
    fz_rng rng;
    aicf_context* ctx;
    aicf_graph* g = NULL;
    aicf_result r;
    uint64_t h = fz_hash(data, size);
    int i;
    ctx = fz_context(&heap, h, 1);
    if (!ctx) return 0;
    rng.s = h;
    r = aicf_graph_load_onnx_memory(ctx, data, size, NULL, &g);
    fz_check_err(ctx, r, "aicf_graph_load_onnx_memory");
    if (r == AICF_SUCCESS) {
        if (!g) fz_fail("aicf_graph_load_onnx_memory", "success without a graph");
        for (i = 0; i < aicf_graph_num_inputs(g); i++) {
            aicf_tensor_info ti;
            if (aicf_graph_input_info(g, i, &ti) != AICF_SUCCESS || !ti.name || ti.rank < 0 || ti.rank > AICF_MAX_RANK)
                fz_fail("aicf_graph_input_info", "bad info");
        }
        for (i = 0; i < aicf_graph_num_outputs(g); i++) {
            aicf_tensor_info ti;
            if (aicf_graph_output_info(g, i, &ti) != AICF_SUCCESS || !ti.name) fz_fail("aicf_graph_output_info", "bad info");
        }
        fz_bind_dims(g);
        fz_bind_small_int_inputs(g, &rng);
        fz_run_plan(ctx, g, &rng);
        aicf_graph_destroy(g);
    } else if (g) {
        fz_fail("aicf_graph_load_onnx_memory", "error but *out is not NULL");
    }
    fz_context_done(ctx, &heap);
    return 0;
}
