/* tests/test_nocuda.c: the header built with AICF_NO_CUDA (src/00_manual.h: the CUDA backend
   compiled out), as a user who vendors aicf for CPU only builds it. Checks:
     - it compiles and links (this file is the program; the Makefile's header checks compile it
       also as C++ and with clang);
     - aicf_context_device_info and a CUDA plan fail with AICF_ERROR_NO_DEVICE and a message
       saying the backend was compiled out, and the default backend with the CPU fallback allowed
       gets a plan;
     - the CPU backend works: Relu(a + b) * c over fresh random data matches the same float32
       arithmetic done here, element for element;
     - the plan file records the empty kernel table (nvrtc="none" modules=0 kernels=0).
   Fresh random data every run (seed printed; AICF_SEED=N repeats it). Ends with
   "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#define AICF_NO_CUDA
#include "../aicf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pass, g_fail;
static uint64_t g_rng;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static float rndf(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0) * 4.0f - 2.0f;
}

/* y = Relu(a + b) * c, all [3, 37] float32 */
static aicf_graph* build(aicf_context* ctx) {
    static const int64_t dims[2] = {3, 37};
    static const char* names[3] = {"a", "b", "c"};
    const char *add_in[2] = {"a", "b"}, *add_out[1] = {"s"}, *relu_in[1] = {"s"}, *relu_out[1] = {"r"}, *mul_in[2] = {"r", "c"},
               *mul_out[1] = {"y"};
    aicf_graph* g = NULL;
    aicf_tensor_desc d;
    aicf_node_desc nd;
    int i;
    if (aicf_graph_create(ctx, &g) != AICF_SUCCESS) return NULL;
    aicf_graph_set_opset(g, "", 17);
    for (i = 0; i < 3; i++) {
        memset(&d, 0, sizeof d);
        d.name = names[i];
        d.dtype = AICF_DTYPE_FLOAT32;
        d.rank = 2;
        d.dims = dims;
        aicf_graph_add_input(g, &d);
    }
    memset(&nd, 0, sizeof nd);
    nd.name = "add", nd.op_type = "Add", nd.inputs = add_in, nd.num_inputs = 2, nd.outputs = add_out, nd.num_outputs = 1;
    aicf_graph_add_node(g, &nd);
    nd.name = "relu", nd.op_type = "Relu", nd.inputs = relu_in, nd.num_inputs = 1, nd.outputs = relu_out;
    aicf_graph_add_node(g, &nd);
    nd.name = "mul", nd.op_type = "Mul", nd.inputs = mul_in, nd.num_inputs = 2, nd.outputs = mul_out;
    aicf_graph_add_node(g, &nd);
    if (aicf_graph_add_output(g, "y") != AICF_SUCCESS) {
        aicf_graph_destroy(g);
        return NULL;
    }
    return g;
}

int main(void) {
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    aicf_device_info di;
    aicf_graph* g;
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_result r;
    float in[3][3 * 37], want[3 * 37], got[3 * 37];
    const char* names[3] = {"a", "b", "c"};
    const char* seed_env = getenv("AICF_SEED");
    int i, k, bad = 0;
    g_rng = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) ^ 0x9e3779b97f4a7c15ull;
    if (!g_rng) g_rng = 1;
    printf("seed %llu (AICF_SEED=%llu repeats this run)\n", (unsigned long long)g_rng, (unsigned long long)g_rng);
    memset(&cd, 0, sizeof cd);
    r = aicf_context_create(&cd, &ctx);
    CHECK(r == AICF_SUCCESS && ctx, "context: %s", aicf_result_str(r));
    if (!ctx) goto end;
    r = aicf_context_device_info(ctx, &di);
    CHECK(r == AICF_ERROR_NO_DEVICE && strstr(aicf_last_error(ctx), "compiled out") != NULL, "device info: %s (%s)", aicf_result_str(r),
          aicf_last_error(ctx));
    g = build(ctx);
    CHECK(g != NULL, "graph: %s", aicf_last_error(ctx));
    if (!g) goto end;
    /* CUDA: refused, with the reason */
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_ERROR_NO_DEVICE && !p && strstr(aicf_last_error(ctx), "compiled out") != NULL, "CUDA plan: %s (%s)",
          aicf_result_str(r), aicf_last_error(ctx));
    aicf_plan_destroy(p);
    p = NULL;
    /* the default backend with the CPU fallback allowed: a CPU plan */
    pd.backend = AICF_BACKEND_DEFAULT;
    pd.policy.allow_cpu_fallback = 1;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS && p, "default-backend plan with CPU fallback: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
    aicf_plan_destroy(p);
    p = NULL;
    /* CPU: runs, against the same arithmetic here */
    pd.backend = AICF_BACKEND_CPU;
    pd.policy.allow_cpu_fallback = 0;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS && p, "CPU plan: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
    if (p) {
        size_t need = 0;
        char* txt;
        for (k = 0; k < 3; k++)
            for (i = 0; i < 3 * 37; i++) in[k][i] = rndf();
        for (i = 0; i < 3 * 37; i++) {
            float s = in[0][i] + in[1][i];
            want[i] = (s > 0.0f ? s : 0.0f) * in[2][i];
        }
        r = aicf_exec_create(p, NULL, &e);
        CHECK(r == AICF_SUCCESS, "exec: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
        for (k = 0; k < 3 && r == AICF_SUCCESS; k++) r = aicf_exec_set_input(e, aicf_plan_find_input(p, names[k]), in[k], sizeof in[k]);
        if (r == AICF_SUCCESS) r = aicf_exec_run(e);
        if (r == AICF_SUCCESS) r = aicf_exec_get_output(e, 0, got, sizeof got);
        CHECK(r == AICF_SUCCESS, "run: %s (%s)", aicf_result_str(r), aicf_last_error(ctx));
        for (i = 0; i < 3 * 37 && r == AICF_SUCCESS; i++) bad += memcmp(&got[i], &want[i], sizeof got[i]) != 0;
        CHECK(r == AICF_SUCCESS && bad == 0, "Relu(a + b) * c: %d of %d elements differ from the same float32 arithmetic", bad, 3 * 37);
        aicf_exec_destroy(e);
        aicf_plan_serialize(p, NULL, 0, &need);
        txt = (char*)malloc(need + 1);
        r = txt ? aicf_plan_serialize(p, txt, need + 1, NULL) : AICF_ERROR_OUT_OF_MEMORY;
        CHECK(r == AICF_SUCCESS && strstr(txt, "nvrtc=\"none\" modules=0 kernels=0") != NULL, "plan file's kernel table: %.300s",
              r == AICF_SUCCESS ? txt : aicf_result_str(r));
        free(txt);
        aicf_plan_destroy(p);
    }
    aicf_graph_destroy(g);
end:
    aicf_context_destroy(ctx);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
