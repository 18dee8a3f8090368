/* Regression (found by fuzz_graph with fault injection, input
   regressions/graph/pop-tensor-index-rebuild-oom): aicf__pop_tensor (40_core.c) ignores the
   result of aicf__index_rebuild. When that allocation fails, the name index still holds the
   popped tensor's slot, whose name is now NULL; the next lookup of a name hashing there
   (aicf__graph_find) calls strcmp(NULL, name): SIGSEGV (UBSan: null pointer passed as argument
   1 of strcmp). If a tensor is added in the slot later, the stale entry maps the old name to it.
   Expected: popping a tensor never allocates (clear the slot / rebuild in place), or
   aicf__graph_find skips slots without a name.
     gcc -std=c99 -g -fsanitize=address,undefined tests/fuzz/regressions/api/pop_tensor_index_rebuild_oom.c -lm -ldl
   Exits 0 when aicf survives. */
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../../../aicf.h"
#include <stdio.h>
#include <stdlib.h>

/* when armed, fail the second 256-byte allocation (the 64-slot name index): the first one
   is aicf__graph_new_tensor creating the index, the second aicf__pop_tensor rebuilding it */
static int g_fail_index_alloc;

static void* my_alloc(size_t bytes, void* user) {
    (void)user;
    if (g_fail_index_alloc && bytes == 64 * sizeof(int) && ++g_fail_index_alloc == 3) {
        g_fail_index_alloc = 0;
        return NULL;
    }
    return malloc(bytes);
}
static void my_free(void* p, void* user) {
    (void)user;
    free(p);
}

int main(void) {
    aicf_context_desc cd;
    aicf_context* ctx;
    aicf_graph* g;
    aicf_tensor_desc c;
    int64_t dims[1] = {2};
    float data[2] = {1.0f, 2.0f};
    aicf_result r;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = my_alloc;
    cd.allocator.free = my_free;
    aicf_context_create(&cd, &ctx);
    aicf_graph_create(ctx, &g);
    memset(&c, 0, sizeof c);
    c.name = "c";
    c.dtype = AICF_DTYPE_FLOAT32;
    c.rank = 1;
    c.dims = dims;
    c.data = data;
    c.data_bytes = 4; /* wrong size: add_constant adds the tensor, then pops it */
    g_fail_index_alloc = 1; /* ... and the index rebuild in aicf__pop_tensor fails */
    r = aicf_graph_add_constant(g, &c);
    printf("add_constant (bad data_bytes, index rebuild OOM): %s\n", aicf_result_str(r));
    r = aicf_graph_add_output(g, "c"); /* aicf__graph_find("c") -> strcmp(NULL, "c") */
    printf("add_output c: %s (%s)\n", aicf_result_str(r), aicf_last_error(ctx));
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    return 0;
}
