/* Shared helpers of the aicf fuzz targets (tests/fuzz/fuzz_*.c). Included after aicf.h with
   AICF_IMPLEMENTATION defined: the helpers read the plan's internals to bound the work per input.

   What every target gets from here:
   - fz_heap: a context allocator that caps the live bytes (FZ_HEAP_LIMIT), checks that realloc's
     old_bytes matches the block, counts allocations, optionally fails the Nth one (fault
     injection, decided from the input's hash so a file always replays the same way), and lets
     the target check that nothing is left when the context is gone (a leak).
   - fz_rng: splitmix64 seeded from the input bytes (deterministic per input).
   - fz_run_plan: plan on the CPU, refuse work above FZ_MAX_ARENA / FZ_MAX_COST, create the exec,
     fill inputs with deterministic random values, run twice, read every output (the bytes are
     consumed so valgrind sees uninitialised output), check the two runs agree bit for bit.
   A violated invariant calls fz_fail(), which prints a message and aborts: the fuzzer and the
   replayer report it as a crash. Errors returned by aicf (bad input) are never a failure. */
#ifndef AICF_FUZZ_COMMON_H
#define AICF_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define FZ_FN static __attribute__((unused))
#else
#  define FZ_FN static
#endif

#ifndef FZ_HEAP_LIMIT
#  define FZ_HEAP_LIMIT ((size_t)64 << 20) /* live bytes through the context allocator */
#endif
#ifndef FZ_MAX_ARENA
#  define FZ_MAX_ARENA ((size_t)8 << 20) /* arena + weights of a plan we execute */
#endif
/* AICF_FUZZ_ALLOW_KNOWN=1 (make fuzz FUZZ_DEFS=-DAICF_FUZZ_ALLOW_KNOWN=1) lets a fuzzing campaign go
   past bugs already reported (each has a file in tests/fuzz/regressions/); the replayer is built
   strict, so those regressions fail until the bug is fixed. */
#ifndef AICF_FUZZ_ALLOW_KNOWN
#  define AICF_FUZZ_ALLOW_KNOWN 0
#endif
#ifndef FZ_CHECK_INPUT_PERSIST
#  define FZ_CHECK_INPUT_PERSIST 1 /* the second run reuses the first run's set_input (inputs
                                      stay valid across runs since d44caf8); 0: set them again */
#endif
#ifndef FZ_MAX_COST
#  define FZ_MAX_COST 2.0e7 /* estimated element operations of one run */
#endif

FZ_FN void fz_fail(const char* what, const char* detail) {
    fprintf(stderr, "aicf fuzz invariant violated: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    fflush(stderr);
    abort();
}

/* ---- deterministic randomness ---- */
typedef struct fz_rng {
    uint64_t s;
} fz_rng;

FZ_FN uint64_t fz_next(fz_rng* r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

FZ_FN uint64_t fz_hash(const uint8_t* d, size_t n) {
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
    return h;
}

/* ---- the capped, checking allocator ---- */
typedef struct fz_heap {
    size_t live, peak, limit;
    unsigned long n_allocs;
    unsigned long fail_at; /* 1-based allocation number to fail; 0 = never */
    unsigned long inject;  /* fault injection offset from fz_context (0 = none); fz_arm re-bases it */
    int refused;           /* an allocation was refused (limit or injected) */
} fz_heap;

#define FZ_HDR 16 /* keeps the user block 16-byte aligned */

FZ_FN void* fz_alloc(size_t bytes, void* user) {
    fz_heap* h = (fz_heap*)user;
    unsigned char* p;
    h->n_allocs++;
    if (h->fail_at && h->n_allocs == h->fail_at) {
        h->refused = 1;
        return NULL;
    }
    if (bytes > h->limit || h->live > h->limit - bytes) {
        h->refused = 1;
        return NULL;
    }
    p = (unsigned char*)malloc(bytes + FZ_HDR);
    if (!p) {
        h->refused = 1;
        return NULL;
    }
    memcpy(p, &bytes, sizeof bytes);
    h->live += bytes;
    if (h->live > h->peak) h->peak = h->live;
    return p + FZ_HDR;
}

FZ_FN void fz_free(void* ptr, void* user) {
    fz_heap* h = (fz_heap*)user;
    size_t bytes;
    if (!ptr) return;
    memcpy(&bytes, (unsigned char*)ptr - FZ_HDR, sizeof bytes);
    if (bytes > h->live) fz_fail("allocator", "free of more bytes than are live (double free?)");
    h->live -= bytes;
    free((unsigned char*)ptr - FZ_HDR);
}

FZ_FN void* fz_realloc(void* ptr, size_t old_bytes, size_t new_bytes, void* user) {
    void* q;
    if (ptr) {
        size_t bytes;
        memcpy(&bytes, (unsigned char*)ptr - FZ_HDR, sizeof bytes);
        if (old_bytes > bytes) {
            char msg[160];
            snprintf(msg, sizeof msg, "realloc old_bytes %zu exceeds the block's %zu bytes", old_bytes, bytes);
            fz_fail("allocator", msg);
        }
    }
    q = fz_alloc(new_bytes, user);
    if (!q) return NULL;
    if (ptr) {
        memcpy(q, ptr, old_bytes < new_bytes ? old_bytes : new_bytes);
        fz_free(ptr, user);
    }
    return q;
}

/* Creates a CPU-only context on `h`. Fault injection: when the input hash says so (1 in 16
   inputs), allocation number 2 + hash % 200 fails. */
FZ_FN aicf_context* fz_context(fz_heap* h, uint64_t hash, int inject) {
    aicf_context_desc cd;
    aicf_context* ctx = NULL;
    memset(h, 0, sizeof *h);
    h->limit = FZ_HEAP_LIMIT;
    if (inject && (hash & 15u) == 7u) h->inject = 2 + (unsigned long)((hash >> 8) % 200u);
    h->fail_at = h->inject;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    cd.allocator.alloc = fz_alloc;
    cd.allocator.realloc = fz_realloc;
    cd.allocator.free = fz_free;
    cd.allocator.user = h;
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    return ctx;
}

/* Re-bases the injected failure on the allocations from now on (to inject only in a later phase). */
FZ_FN void fz_arm(fz_heap* h) {
    if (h->inject) h->fail_at = h->n_allocs + h->inject;
}

FZ_FN void fz_context_done(aicf_context* ctx, fz_heap* h) {
    aicf_context_destroy(ctx);
    if (h->live != 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "%zu bytes still allocated after aicf_context_destroy", h->live);
        fz_fail("leak", msg);
    }
}

/* AICF_FUZZ_VERBOSE=1 prints every error aicf returns and what ran (for writing seeds). */
FZ_FN int fz_verbose(void) {
    static int v = -1;
    if (v < 0) v = getenv("AICF_FUZZ_VERBOSE") != NULL;
    return v;
}

/* Every call that returns an error must leave a message. */
FZ_FN void fz_check_err(aicf_context* ctx, aicf_result r, const char* call) {
    const char* m;
    if (r == AICF_SUCCESS) return;
    if (fz_verbose()) fprintf(stderr, "  %s: %s: %s\n", call, aicf_result_str(r), aicf_last_error(ctx));
    if ((int)r > 0 || (int)r < (int)AICF_ERROR_PLAN_MISMATCH) fz_fail(call, "returned a result code outside aicf_result");
    if (r == AICF_ERROR_INVALID_ARGUMENT) return; /* argument checks may return without a message */
    m = aicf_last_error(ctx);
    if (!m || !m[0] || strlen(m) >= AICF__ERR_CAP) fz_fail(call, "error without a message");
}

/* Keeps the compiler from dropping reads of output bytes; valgrind reports uninitialised ones. */
static volatile unsigned fz_sink;
FZ_FN void fz_consume(const void* p, size_t n) {
    const unsigned char* b = (const unsigned char*)p;
    unsigned s = 0;
    size_t i;
    for (i = 0; i < n; i++) s = s * 31u + b[i];
    if (s == 0x5eed1234u) fz_sink++;
}

/* ---- work bound: estimated element operations of one CPU run of plan p ---- */
FZ_FN double fz_numel(const aicf_graph* g, int t) {
    int64_t n;
    if (t < 0 || t >= g->n_tensors || !g->tensors[t].shape_known) return 0;
    n = aicf__shape_numel(&g->tensors[t].shape);
    return n < 0 ? 0 : (double)n;
}

FZ_FN double fz_plan_cost(const aicf_plan* p) {
    const aicf_graph* g = p->g;
    double cost = 0;
    int i, j;
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        double out = 0, extra = 0;
        for (j = 0; j < st->n_in; j++) cost += fz_numel(g, st->in[j]);
        for (j = 0; j < st->n_out; j++) out += fz_numel(g, st->out[j]);
        cost += out;
        if (st->kind == AICF__STEP_NODE && st->node >= 0) {
            const aicf__node* n = &g->nodes[st->node];
            const aicf__tensor* a = (n->n_in > 0 && n->in[0] >= 0) ? &g->tensors[n->in[0]] : NULL;
            const aicf__tensor* b = (n->n_in > 1 && n->in[1] >= 0) ? &g->tensors[n->in[1]] : NULL;
            switch (n->op) {
            case AICF__OP_Conv:
                if (b && b->shape.rank > 0 && b->shape.d[0] > 0) extra = out * (fz_numel(g, n->in[1]) / (double)b->shape.d[0]);
                break;
            case AICF__OP_MatMul:
            case AICF__OP_Gemm:
                if (a) {
                    int64_t k = 1;
                    for (j = 0; j < a->shape.rank; j++)
                        if (a->shape.d[j] > k) k = a->shape.d[j];
                    extra = out * (double)k;
                }
                break;
            case AICF__OP_MaxPool:
            case AICF__OP_AveragePool: {
                const int64_t* ks = NULL;
                int nk = aicf__attr_ints(n, "kernel_shape", &ks);
                double prod = 1;
                for (j = 0; j < nk; j++) prod *= ks[j] > 0 ? (double)ks[j] : 1.0;
                extra = out * prod;
                break;
            }
            case AICF__OP_LRN:
                extra = out * (double)(aicf__attr_i(n, "size", 1) > 0 ? aicf__attr_i(n, "size", 1) : 1);
                break;
            default: break;
            }
        }
        cost += extra;
    }
    return cost;
}

/* Fills `bytes` of input data of dtype dt with deterministic values that are valid for it. */
FZ_FN void fz_fill(fz_rng* r, aicf_dtype dt, void* data, size_t bytes) {
    size_t i, n;
    unsigned char* b = (unsigned char*)data;
    switch (dt) {
    case AICF_DTYPE_FLOAT32:
        n = bytes / 4;
        for (i = 0; i < n; i++) {
            uint64_t x = fz_next(r);
            float f = (float)((double)(x >> 11) / 9007199254740992.0 * 4.0 - 2.0);
            if ((x & 255u) == 0) f = (x & 256u) ? 1e30f : -0.0f;
            memcpy(b + 4 * i, &f, 4);
        }
        break;
    case AICF_DTYPE_FLOAT64:
        n = bytes / 8;
        for (i = 0; i < n; i++) {
            double f = (double)(fz_next(r) >> 11) / 9007199254740992.0 * 4.0 - 2.0;
            memcpy(b + 8 * i, &f, 8);
        }
        break;
    case AICF_DTYPE_FLOAT16:
        n = bytes / 2;
        for (i = 0; i < n; i++) {
            uint16_t h = aicf__f32_to_f16((float)((double)(fz_next(r) >> 11) / 9007199254740992.0 * 4.0 - 2.0));
            memcpy(b + 2 * i, &h, 2);
        }
        break;
    case AICF_DTYPE_INT64:
        n = bytes / 8;
        for (i = 0; i < n; i++) {
            int64_t v = (int64_t)(fz_next(r) % 7) - 2;
            memcpy(b + 8 * i, &v, 8);
        }
        break;
    case AICF_DTYPE_INT32:
        n = bytes / 4;
        for (i = 0; i < n; i++) {
            int32_t v = (int32_t)(fz_next(r) % 7) - 2;
            memcpy(b + 4 * i, &v, 4);
        }
        break;
    case AICF_DTYPE_BOOL:
        for (i = 0; i < bytes; i++) b[i] = (unsigned char)(fz_next(r) & 1u);
        break;
    default:
        for (i = 0; i < bytes; i++) b[i] = (unsigned char)fz_next(r);
        break;
    }
}

/* Graph inputs of an integer or bool dtype with at most 16 elements are turned into constants
   (as node_tests does with non-float inputs: they usually feed shapes, axes or indices). */
FZ_FN void fz_bind_small_int_inputs(aicf_graph* g, fz_rng* r) {
    int i;
    for (i = aicf_graph_num_inputs(g) - 1; i >= 0; i--) {
        aicf_tensor_info ti;
        unsigned char buf[16 * 8];
        if (aicf_graph_input_info(g, i, &ti) != AICF_SUCCESS) continue;
        if (ti.dtype != AICF_DTYPE_INT64 && ti.dtype != AICF_DTYPE_INT32 && ti.dtype != AICF_DTYPE_BOOL) continue;
        if (ti.bytes > sizeof buf) continue;
        fz_fill(r, ti.dtype, buf, ti.bytes);
        (void)aicf_graph_bind_input_value(g, ti.name, buf, ti.bytes);
    }
}

/* A plan's input/output info must be complete: name, rank 0..8, known dims, bytes matching. */
FZ_FN void fz_check_info(aicf_result r, const aicf_tensor_info* ti, const char* call) {
    int j, ok = r == AICF_SUCCESS && ti->name && ti->rank >= 0 && ti->rank <= AICF_MAX_RANK;
    size_t n = 1;
    char msg[256];
    for (j = 0; ok && j < ti->rank; j++)
        if (ti->dims[j] < 0 || !aicf__mul_size(n, (size_t)ti->dims[j], &n)) ok = 0;
    if (ok && (!aicf__mul_size(n, aicf_dtype_size(ti->dtype), &n) || n != ti->bytes)) ok = 0;
    if (ok) return;
    /* known: a graph input no node reads, with dims whose element count overflows, is accepted
       by aicf_plan_create and reported with bytes 0 (regressions/graph/info-dims-overflow-*) */
    if (AICF_FUZZ_ALLOW_KNOWN && r == AICF_SUCCESS && ti->bytes == 0) return;
    snprintf(msg, sizeof msg, "result %d, '%s' dtype %d rank %d dims [%lld,%lld,...] bytes %zu (element count %zu)", (int)r,
             ti->name ? ti->name : "(null)", (int)ti->dtype, ti->rank, ti->rank > 0 ? (long long)ti->dims[0] : 0LL,
             ti->rank > 1 ? (long long)ti->dims[1] : 0LL, ti->bytes, n);
    fz_fail(call, msg);
}

/* Plans g on the CPU and, when the work is small enough, runs it. Returns 1 if it ran. */
FZ_FN int fz_run_plan(aicf_context* ctx, aicf_graph* g, fz_rng* rng) {
    aicf_plan_desc pd;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_stats st;
    aicf_result r;
    int i, n_in, n_out, run, ran = 0;
    void* outs[2][64];
    void* ins[64];
    size_t out_bytes[64], in_bytes[64];
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    memset(outs, 0, sizeof outs);
    memset(ins, 0, sizeof ins);
    r = aicf_plan_create(g, &pd, &p);
    fz_check_err(ctx, r, "aicf_plan_create");
    if (r != AICF_SUCCESS) return 0;
    if (aicf_plan_stats_get(p, &st) != AICF_SUCCESS) fz_fail("aicf_plan_stats_get", "failed on a valid plan");
    if (st.arena_bytes < st.arena_lower_bound) fz_fail("aicf_plan_stats_get", "arena_bytes below arena_lower_bound");
    {
        char small[24], *big;
        size_t need = 0;
        if (aicf_plan_format(p, small, sizeof small, &need) != AICF_SUCCESS) fz_fail("aicf_plan_format", "failed");
        if (strlen(small) >= sizeof small) fz_fail("aicf_plan_format", "not NUL-terminated");
        if (need > 0 && need < (size_t)16 << 20) {
            big = (char*)malloc(need);
            if (big) {
                size_t need2 = 0;
                if (aicf_plan_format(p, big, need, &need2) != AICF_SUCCESS || need2 != need || strlen(big) + 1 != need)
                    fz_fail("aicf_plan_format", "length does not match *needed");
                free(big);
            }
        }
    }
    n_in = aicf_plan_num_inputs(p);
    n_out = aicf_plan_num_outputs(p);
    for (i = 0; i < n_in; i++) {
        aicf_tensor_info ti;
        fz_check_info(aicf_plan_input_info(p, i, &ti), &ti, "aicf_plan_input_info");
        if (aicf_plan_find_input(p, ti.name) < 0) fz_fail("aicf_plan_find_input", ti.name);
    }
    for (i = 0; i < n_out; i++) {
        aicf_tensor_info ti;
        fz_check_info(aicf_plan_output_info(p, i, &ti), &ti, "aicf_plan_output_info");
        if (aicf_plan_find_output(p, ti.name) < 0) fz_fail("aicf_plan_find_output", ti.name);
    }
    if (st.arena_bytes > FZ_MAX_ARENA || st.weights_bytes > FZ_MAX_ARENA || n_out > 64 ||
        fz_plan_cost(p) > FZ_MAX_COST)
        goto done;
    r = aicf_exec_create(p, NULL, &e);
    fz_check_err(ctx, r, "aicf_exec_create");
    if (r != AICF_SUCCESS) goto done;
    for (i = 0; i < n_in && i < 64; i++) {
        aicf_tensor_info ti;
        aicf_plan_input_info(p, i, &ti);
        in_bytes[i] = ti.bytes;
        ins[i] = calloc(1, ti.bytes + 1); /* +1: the wrong-size probe below */
        if (!ins[i]) goto done;
        fz_fill(rng, ti.dtype, ins[i], ti.bytes);
    }
    if (n_in > 64) goto done;
    if (aicf_exec_set_input(e, n_in, NULL, 0) == AICF_SUCCESS) fz_fail("aicf_exec_set_input", "accepted a bad index");
    for (run = 0; run < 2; run++) {
        /* Inputs are set once: a second run without aicf_exec_set_input must give the same
           outputs (the plan keeps input bytes alive for the whole run; before d44caf8 a run
           consumed its inputs: regressions/api/input_consumed_by_run.c). */
        if (run == 0 || !FZ_CHECK_INPUT_PERSIST)
            for (i = 0; i < n_in; i++) {
                if (n_in && aicf_exec_set_input(e, i, ins[i], in_bytes[i] + 1) == AICF_SUCCESS)
                    fz_fail("aicf_exec_set_input", "accepted a wrong size");
                r = aicf_exec_set_input(e, i, ins[i], in_bytes[i]);
                if (r != AICF_SUCCESS) fz_fail("aicf_exec_set_input", aicf_last_error(ctx));
            }
        r = aicf_exec_run(e);
        fz_check_err(ctx, r, "aicf_exec_run");
        if (r != AICF_SUCCESS) goto done;
        for (i = 0; i < n_out; i++) {
            aicf_tensor_info ti;
            aicf_plan_output_info(p, i, &ti);
            out_bytes[i] = ti.bytes;
            outs[run][i] = malloc(ti.bytes ? ti.bytes : 1);
            if (!outs[run][i]) goto done;
            r = aicf_exec_get_output(e, i, outs[run][i], ti.bytes);
            if (r != AICF_SUCCESS) fz_fail("aicf_exec_get_output", aicf_last_error(ctx));
            fz_consume(outs[run][i], ti.bytes);
        }
    }
    for (i = 0; i < n_out; i++)
        if (memcmp(outs[0][i], outs[1][i], out_bytes[i]) != 0) {
            aicf_tensor_info ti;
            aicf_plan_output_info(p, i, &ti);
            fz_fail("two runs of one exec with the same inputs differ in output", ti.name);
        }
    ran = 1;
    if (fz_verbose()) fprintf(stderr, "  ran: %d steps, arena %zu B, weights %zu B\n", st.num_steps, st.arena_bytes, st.weights_bytes);
done:
    for (i = 0; i < 64; i++) {
        free(outs[0][i]);
        free(outs[1][i]);
        free(ins[i]);
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    return ran;
}

#endif
