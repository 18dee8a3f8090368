/* ONNX backend node tests through aicf's public API.

     node_tests DIR [--backend cpu|cuda] [--precision fp32|tf32|fp16] [--filter SUBSTR]
                    [--report FILE] [--verbose]

   DIR holds test_NAME/model.onnx with test_data_set_0/{input,output}_K.pb (ONNX's layout). Every
   case runs in a child process (a crash or a hang is a failure of that case, not of the run).
   Comparison as the ONNX runner does it: |got - ref| <= atol + rtol * |ref| with rtol 1e-3,
   atol 1e-7 for float32 (looser under tf32/fp16), exact for integer and bool outputs; NaN must
   match NaN. Inputs that are not float32 are bound as constants at plan time (they feed shapes
   or are folded on the host). A case aicf rejects with AICF_ERROR_UNSUPPORTED is a skip, with
   aicf's message as the reason; any other error is a failure.
   The report lists every case with its status and reason, then per op type passed / failed /
   skipped, then `N passed, N failed, N skipped`. */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#include "../aicf.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXIO 32

static aicf_backend g_backend = AICF_BACKEND_CPU;
static aicf_precision g_precision = AICF_PRECISION_FP32;

/* Runs one case; writes "STATUS\tOP\tREASON" into buf. STATUS: PASS, FAIL, SKIP. */
static void run_case(const char* dir, char* buf, size_t cap) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_host_tensor ins[MAXIO];
    int n_ins = 0, i, k;
    char path[8192], op[128];
    aicf_result r;
    aicf_plan_desc pd;
    double rtol = g_precision == AICF_PRECISION_FP16 ? 1e-2 : g_precision == AICF_PRECISION_TF32 ? 5e-3 : 1e-3;
    double atol = g_precision == AICF_PRECISION_FP32 ? 1e-7 : 1e-3;
    memset(&cd, 0, sizeof cd);
    if (g_backend == AICF_BACKEND_CPU) cd.flags = AICF_CONTEXT_NO_CUDA;
    snprintf(op, sizeof op, "?");
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) {
        snprintf(buf, cap, "FAIL\t?\tcontext");
        return;
    }
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    r = aicf_graph_load_onnx(ctx, path, NULL, &g);
    if (r != AICF_SUCCESS) {
        /* the loader's message names the op type as "(OpType)": use it for the per-op report */
        const char* msg = aicf_last_error(ctx);
        const char* lp = strstr(msg, "' (");
        const char* rp = lp ? strchr(lp + 3, ')') : NULL;
        if (lp && rp && rp - (lp + 3) < (long)sizeof op) snprintf(op, sizeof op, "%.*s", (int)(rp - (lp + 3)), lp + 3);
        snprintf(buf, cap, "%s\t%s\tload: %s: %s", r == AICF_ERROR_UNSUPPORTED ? "SKIP" : "FAIL", op,
                 aicf_result_str(r), msg);
        goto done;
    }
    if (g->n_nodes > 0) snprintf(op, sizeof op, "%s", g->nodes[0].op_type);
    if (g->n_nodes > 1) snprintf(op, sizeof op, "(%d-node graph)", g->n_nodes);
    /* inputs: read all, bind symbolic dims from their shapes, bind non-float ones as constants */
    for (k = 0; k < MAXIO; k++) {
        FILE* f;
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, k);
        if (!(f = fopen(path, "rb"))) break;
        fclose(f);
        r = aicf_tensor_read_pb(ctx, path, &ins[n_ins]);
        if (r != AICF_SUCCESS) {
            snprintf(buf, cap, "%s\t%s\tinput %d: %s", r == AICF_ERROR_UNSUPPORTED ? "SKIP" : "FAIL", op, k,
                     aicf_last_error(ctx));
            goto done;
        }
        n_ins++;
    }
    if (n_ins != g->n_inputs) {
        /* optional inputs given as "" in the data set are not graph inputs here */
        snprintf(buf, cap, "SKIP\t%s\tdata set has %d inputs, graph has %d (optional/sequence inputs)", op, n_ins,
                 g->n_inputs);
        goto done;
    }
    {
        int in_t[MAXIO];
        for (i = 0; i < n_ins; i++) in_t[i] = g->inputs[i];
        for (i = 0; i < n_ins; i++) {
            aicf__tensor* t = &g->tensors[in_t[i]];
            if (t->shape.rank != ins[i].rank) {
                snprintf(buf, cap, "FAIL\t%s\tinput %d '%s': rank %d in the data set, %d in the model", op, i, t->name,
                         ins[i].rank, t->shape.rank);
                goto done;
            }
            for (k = 0; k < t->shape.rank; k++)
                if (t->dim_param[k] && t->shape.d[k] < 0) aicf_graph_bind_dim(g, t->dim_param[k], ins[i].dims[k] ? ins[i].dims[k] : 1);
            for (k = 0; k < t->shape.rank; k++) t->shape.d[k] = ins[i].dims[k]; /* the data set is authoritative */
            t->shape_known = 1;
        }
        for (i = 0; i < n_ins; i++) {
            aicf__tensor* t = &g->tensors[in_t[i]];
            if (ins[i].dtype != t->dtype) {
                snprintf(buf, cap, "FAIL\t%s\tinput %d '%s': dtype %s in the data set, %s in the model", op, i, t->name,
                         aicf_dtype_name(ins[i].dtype), aicf_dtype_name(t->dtype));
                goto done;
            }
            if (t->dtype != AICF_DTYPE_FLOAT32) {
                r = aicf_graph_bind_input_value(g, t->name, ins[i].data, ins[i].bytes);
                if (r != AICF_SUCCESS) {
                    snprintf(buf, cap, "FAIL\t%s\tbind input %d: %s", op, i, aicf_last_error(ctx));
                    goto done;
                }
            }
        }
    }
    memset(&pd, 0, sizeof pd);
    pd.backend = g_backend;
    pd.policy.precision = g_precision;
    r = aicf_plan_create(g, &pd, &p);
    if (r != AICF_SUCCESS) {
        snprintf(buf, cap, "%s\t%s\tplan: %s: %s", r == AICF_ERROR_UNSUPPORTED ? "SKIP" : "FAIL", op,
                 aicf_result_str(r), aicf_last_error(ctx));
        goto done;
    }
    r = aicf_exec_create(p, NULL, &e);
    if (r != AICF_SUCCESS) {
        snprintf(buf, cap, "%s\t%s\texec: %s: %s", r == AICF_ERROR_UNSUPPORTED ? "SKIP" : "FAIL", op, aicf_result_str(r),
                 aicf_last_error(ctx));
        goto done;
    }
    for (i = 0; i < aicf_plan_num_inputs(p); i++) {
        aicf_tensor_info ti;
        int j, found = -1;
        aicf_plan_input_info(p, i, &ti);
        for (j = 0; j < n_ins; j++)
            if (ins[j].name && strcmp(ins[j].name, ti.name) == 0) found = j;
        if (found < 0) found = i;
        r = aicf_exec_set_input(e, i, ins[found].data, ins[found].bytes);
        if (r != AICF_SUCCESS) {
            snprintf(buf, cap, "FAIL\t%s\tset input %d: %s", op, i, aicf_last_error(ctx));
            goto done;
        }
    }
    r = aicf_exec_run(e);
    if (r != AICF_SUCCESS) {
        snprintf(buf, cap, "FAIL\t%s\trun: %s: %s", op, aicf_result_str(r), aicf_last_error(ctx));
        goto done;
    }
    for (i = 0; i < aicf_plan_num_outputs(p); i++) {
        aicf_host_tensor ref;
        aicf_tensor_info ti;
        void* got;
        size_t n, j, es;
        int bad = 0;
        double worst = 0;
        size_t worst_at = 0;
        aicf_plan_output_info(p, i, &ti);
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, i);
        r = aicf_tensor_read_pb(ctx, path, &ref);
        if (r != AICF_SUCCESS) {
            snprintf(buf, cap, "%s\t%s\toutput %d reference: %s", r == AICF_ERROR_UNSUPPORTED ? "SKIP" : "FAIL", op, i,
                     aicf_last_error(ctx));
            goto done;
        }
        if (ref.dtype != ti.dtype || ref.bytes != ti.bytes || ref.rank != ti.rank) {
            snprintf(buf, cap, "FAIL\t%s\toutput %d '%s': got %s rank %d %zu B, expected %s rank %d %zu B", op, i, ti.name,
                     aicf_dtype_name(ti.dtype), ti.rank, ti.bytes, aicf_dtype_name(ref.dtype), ref.rank, ref.bytes);
            aicf_host_tensor_free(ctx, &ref);
            goto done;
        }
        got = malloc(ti.bytes ? ti.bytes : 1);
        r = aicf_exec_get_output(e, i, got, ti.bytes);
        es = aicf_dtype_size(ti.dtype);
        n = es ? ti.bytes / es : 0;
        for (j = 0; r == AICF_SUCCESS && j < n; j++) {
            if (ti.dtype == AICF_DTYPE_FLOAT32 || ti.dtype == AICF_DTYPE_FLOAT16) {
                /* float16 compares by value: NaN payloads differ between correct converters */
                double a = ti.dtype == AICF_DTYPE_FLOAT32 ? ((float*)got)[j] : aicf__f16_to_f32(((uint16_t*)got)[j]);
                double b = ti.dtype == AICF_DTYPE_FLOAT32 ? ((float*)ref.data)[j] : aicf__f16_to_f32(((uint16_t*)ref.data)[j]);
                if (isnan(a) || isnan(b)) {
                    if (isnan(a) != isnan(b)) {
                        bad = 1;
                        worst_at = j;
                        break;
                    }
                    continue;
                }
                if (isinf(b) || isinf(a)) {
                    if (a != b) {
                        bad = 1;
                        worst_at = j;
                        break;
                    }
                    continue;
                }
                if (fabs(a - b) > atol + rtol * fabs(b)) {
                    bad = 1;
                    if (fabs(a - b) > worst) {
                        worst = fabs(a - b);
                        worst_at = j;
                    }
                }
            } else if (memcmp((char*)got + j * es, (char*)ref.data + j * es, es) != 0) {
                bad = 1;
                worst_at = j;
                break;
            }
        }
        if (r != AICF_SUCCESS) {
            snprintf(buf, cap, "FAIL\t%s\tget output %d: %s", op, i, aicf_last_error(ctx));
        } else if (bad) {
            if (ti.dtype == AICF_DTYPE_FLOAT32)
                snprintf(buf, cap, "FAIL\t%s\toutput %d '%s' element %zu: got %.9g, expected %.9g", op, i, ti.name,
                         worst_at, ((float*)got)[worst_at], ((float*)ref.data)[worst_at]);
            else
                snprintf(buf, cap, "FAIL\t%s\toutput %d '%s' (%s) element %zu differs", op, i, ti.name,
                         aicf_dtype_name(ti.dtype), worst_at);
        }
        free(got);
        aicf_host_tensor_free(ctx, &ref);
        if (r != AICF_SUCCESS || bad) goto done;
    }
    snprintf(buf, cap, "PASS\t%s\t", op);
done:
    for (i = 0; i < n_ins; i++) aicf_host_tensor_free(ctx, &ins[i]);
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
}

typedef struct opstat {
    char op[128];
    int pass, fail, skip;
} opstat;

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
    const char* root = NULL;
    const char* filter = NULL;
    const char* report_path = NULL;
    int verbose = 0, no_fork = 0, i, n = 0, cap = 4096, pass = 0, fail = 0, skip = 0, nops = 0;
    char** names;
    DIR* d;
    struct dirent* de;
    FILE* rep = NULL;
    opstat* ops = (opstat*)calloc(4096, sizeof(opstat));
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            i++;
            g_backend = strcmp(argv[i], "cuda") == 0 ? AICF_BACKEND_CUDA : AICF_BACKEND_CPU;
        } else if (strcmp(argv[i], "--precision") == 0 && i + 1 < argc) {
            i++;
            g_precision = strcmp(argv[i], "fp16") == 0   ? AICF_PRECISION_FP16
                          : strcmp(argv[i], "tf32") == 0 ? AICF_PRECISION_TF32
                                                         : AICF_PRECISION_FP32;
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
            report_path = argv[++i];
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "--no-fork") == 0) {
            no_fork = 1; /* one process: the CUDA driver initialises once (no crash isolation) */
        } else if (argv[i][0] != '-' && !root) {
            root = argv[i];
        } else {
            fprintf(stderr, "usage: node_tests DIR [--backend cpu|cuda] [--precision P] [--filter S] [--report F]\n");
            return 2;
        }
    }
    if (!root) {
        fprintf(stderr, "usage: node_tests DIR [--backend cpu|cuda] [--filter S] [--report F]\n");
        return 2;
    }
    d = opendir(root);
    if (!d) {
        fprintf(stderr, "node_tests: cannot open %s\n", root);
        printf("0 passed, 1 failed, 0 skipped\n");
        return 1;
    }
    names = (char**)malloc(sizeof(char*) * (size_t)cap);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "test_", 5) != 0) continue;
        if (filter && !strstr(de->d_name, filter)) continue;
        if (n == cap) {
            cap *= 2;
            names = (char**)realloc(names, sizeof(char*) * (size_t)cap);
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char*), cmp_str);
    if (report_path) rep = fopen(report_path, "w");
    for (i = 0; i < n; i++) {
        char dir[4096], res[2048];
        int fds[2], status = 0, j;
        pid_t pid;
        ssize_t got = 0, k;
        char *st, *op, *why;
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        memset(res, 0, sizeof res);
        fflush(stdout);
        if (no_fork) {
            run_case(dir, res, sizeof res);
            goto classify;
        }
        if (pipe(fds) != 0) return 1;
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            alarm(120);
            run_case(dir, res, sizeof res);
            k = write(fds[1], res, strlen(res));
            (void)k;
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        while ((k = read(fds[0], res + got, sizeof res - 1 - (size_t)got)) > 0) got += k;
        close(fds[0]);
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            snprintf(res, sizeof res, "FAIL\t?\tcrashed or timed out (%s %d)", WIFSIGNALED(status) ? "signal" : "exit",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    classify:
        st = res;
        op = strchr(st, '\t');
        if (op) *op++ = 0;
        else op = (char*)"?";
        why = strchr(op, '\t');
        if (why) *why++ = 0;
        else why = (char*)"";
        if (strcmp(st, "PASS") == 0) pass++;
        else if (strcmp(st, "SKIP") == 0) skip++;
        else fail++;
        for (j = 0; j < nops; j++)
            if (strcmp(ops[j].op, op) == 0) break;
        if (j == nops && nops < 4096) snprintf(ops[nops++].op, sizeof ops[0].op, "%s", op);
        if (j < 4096) {
            if (strcmp(st, "PASS") == 0) ops[j].pass++;
            else if (strcmp(st, "SKIP") == 0) ops[j].skip++;
            else ops[j].fail++;
        }
        if (rep) fprintf(rep, "%-4s %-60s %-20s %s\n", st, names[i], op, why);
        if (strcmp(st, "FAIL") == 0 || verbose) printf("%s %s [%s] %s\n", st, names[i], op, why);
    }
    if (rep) {
        fprintf(rep, "\nper op type (single-node cases by op; multi-node cases grouped):\n");
        for (i = 0; i < nops; i++)
            fprintf(rep, "  %-28s %4d passed %4d failed %4d skipped\n", ops[i].op, ops[i].pass, ops[i].fail,
                    ops[i].skip);
        fprintf(rep, "%d passed, %d failed, %d skipped\n", pass, fail, skip);
        fclose(rep);
    }
    for (i = 0; i < n; i++) free(names[i]);
    free(names);
    free(ops);
    printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
    return fail ? 1 : 0;
}
