/* gemvp_timeline: where the time of the persistent GEMV kernel (aicf_gemvp_*, templates/ewchain.cu.j2)
   goes, from inside it.

     build/gemvp_timeline MODEL.onnx BATCH     (make bench-build; MODEL a chain of Linear layers
                                               with one float32 input whose first dim is `batch`,
                                               e.g. peers.py's mlp.onnx)

   Plans MODEL at float16 with the policy's `persistent`, sets the kernel's probe flag (layer 0's
   flags 0x10000: a diagnostic switch the planner never sets), replays 40 times and prints, every
   10th replay, the %globaltimer stamps (ns) that thread 0 of the first and of the last block
   wrote into the exec's sync region, from the first block's entry:
     0 entry, 1 arguments in shared memory, 2 start done (weight copies issued, operands read),
     then per layer l: 3+4l its A staged (hand-off seen), 4+4l weights landed (barrier),
     5+4l sums and epilogue done, 6+4l end-of-layer barrier;
   and the SM clock over the first block's span (clock64 against %globaltimer). Reads the
   exec's internals (the sync region), so it is a development tool, not an API example. */
#define AICF_IMPLEMENTATION
#include "../aicf.h"
int main(int argc, char** argv) {
    aicf_context* ctx = NULL;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    const char* names[1] = {"batch"};
    int64_t vals[1];
    aicf_onnx_desc od;
    aicf_plan_desc pd;
    float* in;
    size_t n_in;
    int s, it, found = 0, i, nl = 1;
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.onnx BATCH\n", argv[0]);
        return 2;
    }
    vals[0] = atoi(argv[2]);
    od.num_dims = 1, od.dim_names = names, od.dim_values = vals;
    if (aicf_context_create(NULL, &ctx) != AICF_SUCCESS || aicf_graph_load_onnx(ctx, argv[1], &od, &g) != AICF_SUCCESS) {
        printf("load: %s\n", aicf_last_error(ctx));
        return 1;
    }
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CUDA;
    pd.policy.precision = AICF_PRECISION_FP16;
    pd.policy.persistent = 1;
    if (aicf_plan_create(g, &pd, &p) != AICF_SUCCESS) { printf("plan: %s\n", aicf_last_error(ctx)); return 1; }
    for (s = 0; s < p->n_steps; s++)
        if (!strncmp(p->steps[s].kernel, "aicf_gemvp_", 11)) {
            aicf__cuo_op* op = aicf__cuo_prog_ops((aicf__cuo_prog*)p->steps[s].backend);
            aicf__k_gemvp a;
            memcpy(&a, op->args, sizeof a);
            a.l[0].flags |= 0x10000;
            memcpy(op->args, &a, sizeof a);
            printf("step %d %s grid %u smem %u layers %d\n", s, p->steps[s].kernel, op->grid[0], op->shared_bytes, a.n_layers);
            found = 1;
            nl = a.n_layers;
        }
    if (!found) {
        printf("%s: the plan has no persistent GEMV launch (aicf_gemvp_*)\n", argv[1]);
        return 1;
    }
    if (aicf_exec_create(p, NULL, &e) != AICF_SUCCESS) {
        printf("exec: %s\n", aicf_last_error(ctx));
        return 1;
    }
    n_in = (size_t)aicf__shape_numel(&p->g->tensors[p->in_boundary[0]].shape); /* the float32 input */
    in = (float*)malloc(n_in * sizeof(float));
    for (i = 0; i < (int)n_in; i++) in[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (it = 0; it < 40; it++) {
        uint64_t st[80];
        aicf__cuda_exec* x = (aicf__cuda_exec*)e->backend;
        struct aicf__cuda* cu = ctx->cuda;
        if (aicf_exec_set_input(e, 0, in, n_in * sizeof(float)) != AICF_SUCCESS || aicf_exec_run(e) != AICF_SUCCESS) {
            printf("run: %s\n", aicf_last_error(ctx));
            return 1;
        }
        if (it % 10 != 9) continue;
        aicf__cuda_push(ctx, cu);
        cu->api.cuMemcpyDtoHAsync(st, x->sync + 64, sizeof st, x->stream);
        cu->api.cuStreamSynchronize(x->stream);
        aicf__cuda_pop(cu);
        printf("replay %d (ns from block 0 entry)\n  first:", it);
        for (i = 0; i < 3 + 4 * nl; i++) printf(" %lld", (long long)(st[i] - st[0]));
        printf("\n  SM clock between the first block's entry and its last stamp: %.0f MHz",
               (double)(st[39] - st[38]) * 1e3 / (double)(st[6 + 4 * (nl - 1)] - st[0]));
        printf("\n  last: ");
        for (i = 0; i < 3 + 4 * nl; i++) printf(" %lld", (long long)(st[40 + i] - st[0]));
        printf("\n");
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    free(in);
    return 0;
}
