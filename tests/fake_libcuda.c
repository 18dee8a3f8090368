/* fake_libcuda.c: a fault-injecting stand-in for libcuda.so.1, for the CPU tests of aicf's CUDA
   backend (tests/test_cuda_fake.c). Build: cc -std=c99 -shared -fPIC tests/fake_libcuda.c -o
   build/fakecuda/libcuda.so.1

   It exports cuGetProcAddress_v2 (and cuGetProcAddress) like the real driver and nothing else of
   the driver API, so everything aicf uses must go through the versioned lookup. Device memory is
   host memory (a CUdeviceptr is a host address), graphs are node lists replayed in insertion
   order by cuGraphLaunch: memcpy nodes copy, child graph nodes recurse, kernel nodes of the known
   test kernel "aicf_test_axpy" are emulated (out[i] = alpha * x[i] + y[i]), other kernel nodes are
   only counted. Streams are synchronous.

   Control (the test dlopens the same file and looks these up):
     fakecuda_reset()                      forget rules and counters (not objects)
     fakecuda_fail(fn, code, nth)          call number nth (1-based) of fn returns code; nth 0:
                                           every call; fn NULL clears the rule
     fakecuda_missing(name)                cuGetProcAddress does not find `name`
     fakecuda_keep_args(prefix, bytes)     keep the first `bytes` of the argument of the kernel nodes
                                           whose name starts with prefix (the last one added);
     fakecuda_kept_args(&n)                those bytes, n = such nodes added since keep_args
     fakecuda_set_tmap(on)                 on: cuGetProcAddress finds cuTensorMapEncodeTiled (off by
                                           default: without it aicf plans no Hopper GEMM, so the
                                           tests of the other GEMM paths see a 9.0 device as before)
     fakecuda_set_clusters(size, n)        cuGetProcAddress finds cuOccupancyMaxActiveClusters
                                           (not before the first call), which answers n for
                                           clusters of `size` CTAs (-1: 132 / size, the answer
                                           for sizes never set); size 0: not found again
     fakecuda_cluster_query(out[3])        the last such query's threads a CTA, dynamic shared
                                           bytes and cluster size
     fakecuda_set_device(count, major, minor)
     fakecuda_live()                       objects alive (allocations, streams, graphs, modules,
                                           execs, retained primary contexts)
     fakecuda_ctx_depth()                  pushes minus pops of the current context
     fakecuda_calls(fn)                    calls of fn since the reset
     fakecuda_last_module()                the image given to the last successful
                                           cuModuleLoadDataEx
     fakecuda_kernels_run()                emulated/counted kernel nodes executed
     fakecuda_programmatic_edges()         edges added by cuGraphAddDependencies (ABI 12030) with
                                           type PROGRAMMATIC since the reset (each checked: both
                                           ends kernel nodes of the graph, from_port
                                           PROGRAMMATIC or LAUNCH_ORDER, to_port and reserved 0)
     fakecuda_programmatic_port()          from_port of the last such edge (1 PROGRAMMATIC, 2
                                           LAUNCH_ORDER; -1 none since the reset)
     fakecuda_set_current(on)              on: the primary context is current on the thread
                                           before any push (as the CUDA runtime leaves it)
     fakecuda_set_node_us(us)              device time per executed graph node: cuGraphLaunch
                                           advances a fake device clock by (nodes run) x us,
                                           cuEventRecord stamps the clock, cuEventElapsedTime
                                           returns the difference
     fakecuda_set_mem(total)               device memory of `total` bytes (0: the default, 80
                                           GiB): cuDeviceTotalMem reports it and cuMemAlloc
                                           returns CUDA_ERROR_OUT_OF_MEMORY for a request that
                                           would bring the bytes allocated through it past it
     fakecuda_mem_used()                   bytes allocated by cuMemAlloc and not yet freed
     fakecuda_set_alloc_align(bytes)       cuMemAlloc returns addresses aligned to `bytes` (a
                                           power of two; the real driver gives at least 256);
                                           0: whatever malloc gives (the default)
   It also exports a fake cuBLASLt (point aicf_context_desc.cublaslt_path at this same file):
   every cublasLt* entry point aicf resolves, version 130000, handles/descriptors/layouts/
   preferences counted in fakecuda_lt_live(). cublasLtMatmulAlgoGetHeuristic returns
   fakecuda_lt_set_results(n) algorithms (default 1, workspace 0). cublasLtMatmul, called
   during stream capture, computes nothing (the captured child graph is empty), so the output
   of a GEMM step on this fake is not the product.
     fakecuda_lt_fail(fn, status, nth)     call number nth (1-based; 0: every call) of cuBLASLt
                                           entry point fn returns cublasStatus_t `status`;
                                           fn NULL clears the rule
     fakecuda_lt_set_results(n)            algorithms the heuristic returns (0: none)
     fakecuda_lt_live()                    cuBLASLt objects alive
     fakecuda_lt_calls(fn)                 calls of cuBLASLt entry point fn since the last
                                           fakecuda_lt_fail
     fakecuda_lt_epilogues(out, cap)       the CUBLASLT_MATMUL_DESC_EPILOGUE values set since the
                                           last fakecuda_lt_fail, in order (returns how many;
                                           the first cap written to out)
   This is a test double: its state is process-global by design. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FK_EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

typedef struct fk_kparams {
    void* func;
    unsigned gx, gy, gz, bx, by, bz, smem;
    void** kernelParams;
    void** extra;
} fk_kparams;

typedef struct fk_memcpy3d {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    void* srcArray;
    void* reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    void* dstArray;
    void* reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} fk_memcpy3d;

/* ---- state ---- */
#define FK_MAX_FN 96
static struct {
    int count, major, minor;
    char fail_fn[64];
    int fail_code, fail_nth;
    char missing[64];
    long live;
    int ctx_depth;
    const void* last_module;
    long kernels_run;
    long pdl_edges;
    int pdl_port; /* from_port of the last programmatic edge */
    int tmap;     /* cuGetProcAddress finds cuTensorMapEncodeTiled (fakecuda_set_tmap) */
    struct {
        char name[48];
        long calls;
    } fn[FK_MAX_FN];
    int n_fn;
} F = {1, 9, 0, "", 0, 0, "", 0, 0, NULL, 0, 0, 0, 0, {{"", 0}}, 0};

static int fk(const char* name) {
    int i;
    for (i = 0; i < F.n_fn; ++i)
        if (strcmp(F.fn[i].name, name) == 0) break;
    if (i == F.n_fn && F.n_fn < FK_MAX_FN) {
        snprintf(F.fn[i].name, sizeof F.fn[i].name, "%s", name);
        F.fn[i].calls = 0;
        F.n_fn++;
    }
    if (i < F.n_fn) F.fn[i].calls++;
    if (F.fail_fn[0] && strcmp(F.fail_fn, name) == 0) {
        if (F.fail_nth == 0 || (i < F.n_fn && F.fn[i].calls == F.fail_nth)) return F.fail_code;
    }
    return 0;
}
#define FK(name)                                                                                  \
    do {                                                                                          \
        int fk_r_ = fk(name);                                                                     \
        if (fk_r_) return fk_r_;                                                                  \
    } while (0)

FK_EXPORT void fakecuda_reset(void) {
    F.fail_fn[0] = '\0';
    F.missing[0] = '\0';
    F.n_fn = 0;
    F.kernels_run = 0;
    F.pdl_edges = 0;
    F.pdl_port = -1;
}
FK_EXPORT void fakecuda_fail(const char* fn, int code, int nth) {
    snprintf(F.fail_fn, sizeof F.fail_fn, "%s", fn ? fn : "");
    F.fail_code = code;
    F.fail_nth = nth;
}
FK_EXPORT void fakecuda_missing(const char* name) { snprintf(F.missing, sizeof F.missing, "%s", name ? name : ""); }
FK_EXPORT void fakecuda_set_tmap(int on) { F.tmap = on != 0; }
FK_EXPORT void fakecuda_set_device(int count, int major, int minor) {
    F.count = count;
    F.major = major;
    F.minor = minor;
}
FK_EXPORT long fakecuda_live(void) { return F.live; }
FK_EXPORT int fakecuda_ctx_depth(void) { return F.ctx_depth; }
FK_EXPORT long fakecuda_calls(const char* name) {
    int i;
    for (i = 0; i < F.n_fn; ++i)
        if (strcmp(F.fn[i].name, name) == 0) return F.fn[i].calls;
    return 0;
}
FK_EXPORT const void* fakecuda_last_module(void) { return F.last_module; }
FK_EXPORT long fakecuda_kernels_run(void) { return F.kernels_run; }
FK_EXPORT long fakecuda_programmatic_edges(void) { return F.pdl_edges; }
FK_EXPORT int fakecuda_programmatic_port(void) { return F.pdl_port; }

/* the current-context and device-clock state (kept apart from F, whose initializer is fixed) */
static struct {
    int base_current; /* the primary context is current below the pushes */
    double node_us;   /* device microseconds per executed graph node */
    double clock_us;  /* the fake device clock */
} FE;
FK_EXPORT void fakecuda_set_current(int on) { FE.base_current = on; }
FK_EXPORT void fakecuda_set_node_us(double us) { FE.node_us = us; }

/* per-kernel device time: a kernel node whose name starts with a registered prefix takes that
   many microseconds instead of node_us (the first prefix registered that matches); NULL clears.
   fakecuda_capture_kernel(name): the next stream capture's graph holds one kernel node of that
   name (what a captured library call, e.g. cublasLtMatmul, launched) */
static struct {
    char prefix[16][64];
    double us[16];
    int n;
    char cap[64];
    char names[32][64];
    int n_names;
} FT;
FK_EXPORT void fakecuda_set_kernel_us(const char* prefix, double us) {
    int i;
    if (!prefix) {
        FT.n = 0;
        return;
    }
    for (i = 0; i < FT.n; i++)
        if (strcmp(FT.prefix[i], prefix) == 0) break;
    if (i == 16) return;
    snprintf(FT.prefix[i], sizeof FT.prefix[i], "%s", prefix);
    FT.us[i] = us;
    if (i == FT.n) FT.n++;
}
FK_EXPORT void fakecuda_capture_kernel(const char* name) { snprintf(FT.cap, sizeof FT.cap, "%s", name ? name : ""); }
static double fk_kernel_us(const char* name) {
    int i;
    for (i = 0; name && i < FT.n; i++)
        if (strncmp(name, FT.prefix[i], strlen(FT.prefix[i])) == 0) return FT.us[i];
    return FE.node_us;
}

/* ---- errors ---- */
static const struct {
    int code;
    const char *name, *text;
} fk_errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};
static CUresult cuGetErrorName(CUresult e, const char** s) {
    size_t i;
    for (i = 0; i < sizeof fk_errors / sizeof fk_errors[0]; ++i)
        if (fk_errors[i].code == e) {
            *s = fk_errors[i].name;
            return 0;
        }
    *s = NULL;
    return 1;
}
static CUresult cuGetErrorString(CUresult e, const char** s) {
    size_t i;
    for (i = 0; i < sizeof fk_errors / sizeof fk_errors[0]; ++i)
        if (fk_errors[i].code == e) {
            *s = fk_errors[i].text;
            return 0;
        }
    *s = NULL;
    return 1;
}

/* ---- device, context ---- */
static int fk_ctx_obj;
static CUresult cuInit(unsigned flags) {
    (void)flags;
    FK("cuInit");
    return 0;
}
static CUresult cuDriverGetVersion(int* v) {
    FK("cuDriverGetVersion");
    *v = 13000;
    return 0;
}
static CUresult cuDeviceGetCount(int* n) {
    FK("cuDeviceGetCount");
    *n = F.count;
    return 0;
}
static CUresult cuDeviceGet(int* d, int ordinal) {
    FK("cuDeviceGet");
    if (ordinal < 0 || ordinal >= F.count) return 101;
    *d = ordinal;
    return 0;
}
static CUresult cuDeviceGetName(char* name, int len, int dev) {
    FK("cuDeviceGetName");
    snprintf(name, (size_t)len, "Fake GPU %d (cc %d.%d)", dev, F.major, F.minor);
    return 0;
}
static CUresult cuDeviceGetAttribute(int* v, int attr, int dev) {
    (void)dev;
    FK("cuDeviceGetAttribute");
    switch (attr) {
    case 75: *v = F.major; break;
    case 76: *v = F.minor; break;
    case 16: *v = 132; break;
    case 97: *v = 232448; break;
    default: *v = 0; break;
    }
    return 0;
}
/* device memory accounting for fakecuda_set_mem (blocks beyond FK_MEM_BLOCKS are not tracked) */
#define FK_MEM_BLOCKS 4096
static struct {
    size_t total; /* 0: unlimited (reported as 80 GiB) */
    size_t used;
    struct {
        void* p;
        size_t n;
    } blk[FK_MEM_BLOCKS];
} FM;
static size_t fk_alloc_align;
FK_EXPORT void fakecuda_set_mem(size_t total) { FM.total = total; }
FK_EXPORT void fakecuda_set_alloc_align(size_t bytes) { fk_alloc_align = bytes; }
FK_EXPORT size_t fakecuda_mem_used(void) { return FM.used; }
static void fk_mem_track(void* p, size_t n) {
    int i;
    for (i = 0; i < FK_MEM_BLOCKS; ++i)
        if (!FM.blk[i].p) {
            FM.blk[i].p = p;
            FM.blk[i].n = n;
            FM.used += n;
            return;
        }
}
static void fk_mem_untrack(void* p) {
    int i;
    for (i = 0; i < FK_MEM_BLOCKS; ++i)
        if (p && FM.blk[i].p == p) {
            FM.used -= FM.blk[i].n;
            FM.blk[i].p = NULL;
            return;
        }
}
static CUresult cuDeviceTotalMem(size_t* b, int dev) {
    (void)dev;
    FK("cuDeviceTotalMem");
    *b = FM.total ? FM.total : (size_t)80 << 30;
    return 0;
}
static CUresult cuDevicePrimaryCtxRetain(void** c, int dev) {
    (void)dev;
    FK("cuDevicePrimaryCtxRetain");
    *c = &fk_ctx_obj;
    F.live++;
    return 0;
}
static CUresult cuDevicePrimaryCtxRelease(int dev) {
    (void)dev;
    FK("cuDevicePrimaryCtxRelease");
    F.live--;
    return 0;
}
static CUresult cuCtxPushCurrent(void* c) {
    FK("cuCtxPushCurrent");
    if (c != &fk_ctx_obj) return 201;
    F.ctx_depth++;
    return 0;
}
static CUresult cuCtxPopCurrent(void** c) {
    FK("cuCtxPopCurrent");
    if (F.ctx_depth <= 0) return 201;
    F.ctx_depth--;
    if (c) *c = &fk_ctx_obj;
    return 0;
}
static CUresult cuCtxGetCurrent(void** c) {
    FK("cuCtxGetCurrent");
    *c = (F.ctx_depth > 0 || FE.base_current) ? (void*)&fk_ctx_obj : NULL;
    return 0;
}

/* ---- memory ---- */
static CUresult cuMemAlloc(CUdeviceptr* p, size_t n) {
    void* m;
    FK("cuMemAlloc");
    if (F.ctx_depth <= 0) return 201;
    if (FM.total && (n > FM.total || FM.used > FM.total - n)) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    if (fk_alloc_align) {
        if (posix_memalign(&m, fk_alloc_align, n ? n : 1) != 0) return 2;
    } else {
        m = malloc(n ? n : 1);
    }
    if (!m) return 2;
    memset(m, 0xA5, n); /* garbage, like real device memory */
    *p = (CUdeviceptr)(uintptr_t)m;
    fk_mem_track(m, n);
    F.live++;
    return 0;
}
static CUresult cuMemFree(CUdeviceptr p) {
    FK("cuMemFree");
    fk_mem_untrack((void*)(uintptr_t)p);
    free((void*)(uintptr_t)p);
    F.live--;
    return 0;
}
static CUresult cuMemHostAlloc(void** p, size_t n, unsigned flags) {
    (void)flags;
    FK("cuMemHostAlloc");
    *p = malloc(n ? n : 1);
    if (!*p) return 2;
    F.live++;
    return 0;
}
static CUresult cuMemFreeHost(void* p) {
    FK("cuMemFreeHost");
    free(p);
    F.live--;
    return 0;
}
static CUresult cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) {
    FK("cuMemcpyHtoD");
    memcpy((void*)(uintptr_t)d, s, n);
    return 0;
}
static CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, void* st) {
    (void)st;
    FK("cuMemcpyHtoDAsync");
    memcpy((void*)(uintptr_t)d, s, n);
    return 0;
}
static CUresult cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, void* st) {
    (void)st;
    FK("cuMemcpyDtoHAsync");
    memcpy(d, (const void*)(uintptr_t)s, n);
    return 0;
}
static CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) {
    (void)st;
    FK("cuMemcpyDtoDAsync");
    memmove((void*)(uintptr_t)d, (const void*)(uintptr_t)s, n);
    return 0;
}

/* ---- modules: an image is accepted unless it starts with "BADCUBIN" (no binary for this GPU)
   or "JITFAIL" (PTX error, with a log); a function is found if its name occurs in the image ---- */
typedef struct fk_module {
    const char* image;
    char fn_names[16][96];
    int n_fn;
} fk_module;

static CUresult cuModuleLoadDataEx(void** m, const void* image, unsigned n, int* opts, void** vals) {
    const char* s = (const char*)image;
    fk_module* mod;
    unsigned i;
    FK("cuModuleLoadDataEx");
    if (strncmp(s, "BADCUBIN", 8) == 0) return 209;
    if (strncmp(s, "JITFAIL", 7) == 0) {
        char* log = NULL;
        size_t cap = 0;
        for (i = 0; i < n; ++i) {
            if (opts[i] == 5) log = (char*)vals[i];
            if (opts[i] == 6) cap = (size_t)(uintptr_t)vals[i];
        }
        if (log && cap) snprintf(log, cap, "ptxas fatal   : fake JIT failure in line 3");
        return 218;
    }
    mod = (fk_module*)calloc(1, sizeof *mod);
    if (!mod) return 2;
    mod->image = s;
    F.last_module = image;
    F.live++;
    *m = mod;
    return 0;
}
static CUresult cuModuleUnload(void* m) {
    FK("cuModuleUnload");
    free(m);
    F.live--;
    return 0;
}
/* 1 if `name` (with its NUL) is in the image: PTX text, or a 64-bit ELF cubin searched up to the
   end of its section header table (an sm_XYa module has no PTX, so the 9.0 device loads cubins) */
static int fk_image_has(const char* image, const char* name) {
    const unsigned char* u = (const unsigned char*)image;
    size_t n, len = strlen(name) + 1, i;
    uint64_t shoff;
    if (memcmp(u, "\177ELF", 4) != 0 || u[4] != 2) return strstr(image, name) != NULL;
    memcpy(&shoff, u + 0x28, 8);
    n = (size_t)shoff + (size_t)(u[0x3a] | u[0x3b] << 8) * (size_t)(u[0x3c] | u[0x3d] << 8);
    for (i = 0; i + len <= n; i++)
        if (u[i] == (unsigned char)name[0] && memcmp(u + i, name, len) == 0) return 1;
    return 0;
}
static CUresult cuModuleGetFunction(void** f, void* m, const char* name) {
    fk_module* mod = (fk_module*)m;
    FK("cuModuleGetFunction");
    if (!fk_image_has(mod->image, name) || mod->n_fn >= 16) return 500;
    snprintf(mod->fn_names[mod->n_fn], sizeof mod->fn_names[0], "%s", name);
    *f = mod->fn_names[mod->n_fn++];
    return 0;
}
/* cuOccupancyMaxActiveClusters (found only after fakecuda_set_clusters): the clusters of
   gridDim x*y*z CTAs (the query's grid is one cluster) set for that size, else 132 / size; the
   last query's block, shared memory and size are kept for fakecuda_cluster_query */
typedef struct fk_launch_config {
    unsigned gx, gy, gz, bx, by, bz, smem;
    void* stream;
    void* attrs;
    unsigned n_attrs;
} fk_launch_config;
static struct {
    int on;
    int n[17];     /* -1: 132 / size */
    unsigned last[3]; /* threads, shared bytes, cluster size of the last query */
} FO;
FK_EXPORT void fakecuda_set_clusters(int size, int n) {
    int i;
    if (size == 0) {
        FO.on = 0;
        return;
    }
    if (!FO.on)
        for (i = 0; i < 17; i++) FO.n[i] = -1;
    FO.on = 1;
    if (size >= 1 && size <= 16) FO.n[size] = n;
}
FK_EXPORT void fakecuda_cluster_query(unsigned out[3]) { memcpy(out, FO.last, sizeof FO.last); }
static CUresult cuOccupancyMaxActiveClusters(int* n, void* f, const fk_launch_config* c) {
    unsigned size;
    FK("cuOccupancyMaxActiveClusters");
    if (!n || !f || !c || c->n_attrs != 0 || c->gx < 1 || c->gy < 1 || c->gz < 1) return 1; /* CUDA_ERROR_INVALID_VALUE */
    size = c->gx * c->gy * c->gz;
    if (size > 16) return 912; /* CUDA_ERROR_INVALID_CLUSTER_SIZE */
    FO.last[0] = c->bx * c->by * c->bz, FO.last[1] = c->smem, FO.last[2] = size;
    *n = FO.n[size] >= 0 ? FO.n[size] : 132 / (int)size;
    return 0;
}
static CUresult cuFuncSetAttribute(void* f, int attr, int v) {
    (void)f;
    (void)attr;
    (void)v;
    FK("cuFuncSetAttribute");
    return 0;
}

/* ---- streams ---- */
static CUresult cuStreamCreate(void** s, unsigned flags) {
    (void)flags;
    FK("cuStreamCreate");
    *s = malloc(8);
    F.live++;
    return 0;
}
static CUresult cuStreamDestroy(void* s) {
    FK("cuStreamDestroy");
    free(s);
    F.live--;
    return 0;
}
static CUresult cuStreamSynchronize(void* s) {
    (void)s;
    FK("cuStreamSynchronize");
    return 0;
}

/* ---- events: stamps of the fake device clock (streams are synchronous) ---- */
typedef struct fk_event {
    double t_us;
    int recorded;
} fk_event;
static CUresult cuEventCreate(void** ev, unsigned flags) {
    fk_event* e;
    FK("cuEventCreate");
    if (flags & 0x2) return 1; /* CU_EVENT_DISABLE_TIMING is not for timing: aicf must not pass it */
    e = (fk_event*)calloc(1, sizeof *e);
    if (!e) return 2;
    F.live++;
    *ev = e;
    return 0;
}
static CUresult cuEventRecord(void* ev, void* s) {
    (void)s;
    FK("cuEventRecord");
    if (F.ctx_depth <= 0 && !FE.base_current) return 201; /* needs a current context */
    ((fk_event*)ev)->t_us = FE.clock_us;
    ((fk_event*)ev)->recorded = 1;
    return 0;
}
static CUresult cuEventSynchronize(void* ev) {
    (void)ev; /* streams are synchronous: a recorded event is complete, so is an unrecorded one */
    FK("cuEventSynchronize");
    return 0;
}
static CUresult cuEventElapsedTime(float* ms, void* a, void* b) {
    const fk_event *ea = (const fk_event*)a, *eb = (const fk_event*)b;
    FK("cuEventElapsedTime");
    if (!ea->recorded || !eb->recorded) return 400;
    *ms = (float)((eb->t_us - ea->t_us) / 1000.0);
    return 0;
}
static CUresult cuEventDestroy(void* ev) {
    FK("cuEventDestroy");
    free(ev);
    F.live--;
    return 0;
}

/* ---- graphs ---- */
typedef struct fk_graph fk_graph;
typedef struct fk_node {
    int type; /* 0 kernel, 1 memcpy, 4 child graph, 5 empty, 7 event record (CUDA's numbers) */
    void* event;
    const char* kname;
    unsigned char args[64];
    fk_memcpy3d cp;
    fk_graph* child;
} fk_node;
struct fk_graph {
    fk_node* nodes[512];
    int n;
};

static fk_graph* fk_graph_new(void) {
    fk_graph* g = (fk_graph*)calloc(1, sizeof *g);
    if (g) F.live++;
    return g;
}
static void fk_graph_free(fk_graph* g) {
    int i;
    if (!g) return;
    for (i = 0; i < g->n; ++i) {
        fk_graph_free(g->nodes[i]->child);
        free(g->nodes[i]);
    }
    free(g);
    F.live--;
}
static fk_graph* fk_graph_clone(const fk_graph* g) {
    fk_graph* c = fk_graph_new();
    int i;
    if (!c) return NULL;
    for (i = 0; i < g->n; ++i) {
        c->nodes[i] = (fk_node*)malloc(sizeof(fk_node));
        *c->nodes[i] = *g->nodes[i];
        if (g->nodes[i]->child) c->nodes[i]->child = fk_graph_clone(g->nodes[i]->child);
    }
    c->n = g->n;
    return c;
}
static CUresult fk_add(fk_node** out, fk_graph* g, void* const* deps, size_t n, fk_node* node) {
    size_t i;
    int j, found;
    if (g->n >= 512) return 2;
    for (i = 0; i < n; ++i) { /* every dependency must be a node of this graph */
        found = 0;
        for (j = 0; j < g->n; ++j)
            if ((void*)g->nodes[j] == deps[i]) found = 1;
        if (!found) return 1;
    }
    g->nodes[g->n++] = node;
    *out = node;
    return 0;
}
static CUresult cuGraphCreate(void** g, unsigned flags) {
    (void)flags;
    FK("cuGraphCreate");
    *g = fk_graph_new();
    return 0;
}
static CUresult cuGraphDestroy(void* g) {
    FK("cuGraphDestroy");
    fk_graph_free((fk_graph*)g);
    return 0;
}
/* fakecuda_keep_args(prefix, bytes): the first `bytes` (<= 4096) of the argument of each kernel
   node added whose kernel name starts with prefix are kept (the last one; NULL prefix: none);
   fakecuda_kept_args(&n) returns them and the number of such nodes since the call */
static struct {
    char prefix[64];
    unsigned char args[4096];
    size_t bytes;
    int kept;
} FA;
FK_EXPORT void fakecuda_keep_args(const char* prefix, size_t bytes) {
    snprintf(FA.prefix, sizeof FA.prefix, "%s", prefix ? prefix : "");
    FA.bytes = bytes < sizeof FA.args ? bytes : sizeof FA.args;
    FA.kept = 0;
    memset(FA.args, 0, sizeof FA.args);
}
FK_EXPORT const unsigned char* fakecuda_kept_args(int* n) {
    if (n) *n = FA.kept;
    return FA.args;
}
static CUresult cuGraphAddKernelNode(void** out, void* g, void* const* deps, size_t n, const fk_kparams* p) {
    fk_node* node;
    CUresult r;
    FK("cuGraphAddKernelNode");
    if (!p->func || !p->gx || !p->bx) return 1;
    node = (fk_node*)calloc(1, sizeof *node);
    node->type = 0;
    node->kname = (const char*)p->func;
    if (strcmp(node->kname, "aicf_test_axpy") == 0) memcpy(node->args, p->kernelParams[0], 40);
    if (FA.prefix[0] && strncmp(node->kname, FA.prefix, strlen(FA.prefix)) == 0) { /* fakecuda_keep_args */
        memcpy(FA.args, p->kernelParams[0], FA.bytes);
        FA.kept++;
    }
    r = fk_add((fk_node**)out, (fk_graph*)g, deps, n, node);
    if (r) free(node);
    return r;
}
static CUresult cuGraphAddMemcpyNode(void** out, void* g, void* const* deps, size_t n, const fk_memcpy3d* c, void* ctx) {
    fk_node* node;
    CUresult r;
    FK("cuGraphAddMemcpyNode");
    if (ctx != &fk_ctx_obj || !c->WidthInBytes || c->Height != 1 || c->Depth != 1) return 1;
    if ((c->srcMemoryType == 1 && !c->srcHost) || (c->srcMemoryType == 2 && !c->srcDevice)) return 1;
    if ((c->dstMemoryType == 1 && !c->dstHost) || (c->dstMemoryType == 2 && !c->dstDevice)) return 1;
    node = (fk_node*)calloc(1, sizeof *node);
    node->type = 1;
    node->cp = *c;
    r = fk_add((fk_node**)out, (fk_graph*)g, deps, n, node);
    if (r) free(node);
    return r;
}
static CUresult cuGraphAddChildGraphNode(void** out, void* g, void* const* deps, size_t n, void* child) {
    fk_node* node;
    CUresult r;
    FK("cuGraphAddChildGraphNode");
    node = (fk_node*)calloc(1, sizeof *node);
    node->type = 4;
    node->child = fk_graph_clone((fk_graph*)child);
    r = fk_add((fk_node**)out, (fk_graph*)g, deps, n, node);
    if (r) {
        fk_graph_free(node->child);
        free(node);
    }
    return r;
}
static CUresult cuGraphAddEmptyNode(void** out, void* g, void* const* deps, size_t n) {
    fk_node* node;
    CUresult r;
    FK("cuGraphAddEmptyNode");
    node = (fk_node*)calloc(1, sizeof *node);
    node->type = 5;
    r = fk_add((fk_node**)out, (fk_graph*)g, deps, n, node);
    if (r) free(node);
    return r;
}
static CUresult cuGraphAddEventRecordNode(void** out, void* g, void* const* deps, size_t n, void* ev) {
    fk_node* node;
    CUresult r;
    FK("cuGraphAddEventRecordNode");
    if (!ev) return 1;
    node = (fk_node*)calloc(1, sizeof *node);
    node->type = 7;
    node->event = ev;
    r = fk_add((fk_node**)out, (fk_graph*)g, deps, n, node);
    if (r) free(node);
    return r;
}
/* cuTensorMapEncodeTiled (ABI 12000): checks what the real driver documents for aicf's use (2-D
   float16, no interleave, 16-byte aligned address, row stride a multiple of 16, box dims 1..256,
   the box's contiguous bytes a multiple of 16 and within the swizzle span, element strides 1)
   and writes a readable map: u64 words 0 address, 1-2 dims, 3 row stride, 4 box (low, high),
   5 swizzle | dtype << 8 | l2 promotion << 16 | oob fill << 24, 6 "FKTM", the rest zero. */
static CUresult cuTensorMapEncodeTiled(void* map, int dtype, uint32_t rank, void* addr, const uint64_t* dims, const uint64_t* strides,
                                       const uint32_t* box, const uint32_t* estr, int interleave, int swizzle, int l2, int oob) {
    uint64_t w[16];
    uint32_t span;
    FK("cuTensorMapEncodeTiled");
    if (!map || rank != 2 || dtype != 6 || !dims || !strides || !box || !estr || interleave != 0) return 1;
    if (((uintptr_t)addr & 15u) || ((uintptr_t)map & 63u)) return 1;
    if (dims[0] < 1 || dims[1] < 1 || dims[0] > 0xffffffffull || dims[1] > 0xffffffffull) return 1;
    if (strides[0] % 16 || strides[0] < dims[0] * 2 || strides[0] >= (1ull << 40)) return 1;
    if (box[0] < 1 || box[0] > 256 || box[1] < 1 || box[1] > 256 || (box[0] * 2) % 16 || estr[0] != 1 || estr[1] != 1) return 1;
    span = swizzle == 1 ? 32u : swizzle == 2 ? 64u : swizzle == 3 ? 128u : 0u;
    if (swizzle < 0 || swizzle > 3 || (span && box[0] * 2 > span)) return 1;
    memset(w, 0, sizeof w);
    w[0] = (uint64_t)(uintptr_t)addr;
    w[1] = dims[0];
    w[2] = dims[1];
    w[3] = strides[0];
    w[4] = (uint64_t)box[0] | (uint64_t)box[1] << 32;
    w[5] = (uint64_t)(unsigned)swizzle | (uint64_t)(unsigned)dtype << 8 | (uint64_t)(unsigned)l2 << 16 | (uint64_t)(unsigned)oob << 24;
    w[6] = 0x4d544b46u; /* "FKTM" */
    memcpy(map, w, sizeof w);
    return 0;
}

/* cuGraphAddDependencies of ABI 12030 (CUgraphEdgeData: from_port, to_port, type, reserved[5]).
   Nodes run in insertion order here, so an edge only has to be valid. */
static CUresult cuGraphAddDependencies(void* g, void* const* from, void* const* to, const unsigned char* edata, size_t n) {
    fk_graph* gr = (fk_graph*)g;
    size_t i;
    int j, k;
    FK("cuGraphAddDependencies");
    for (i = 0; i < n; ++i) {
        const unsigned char* e = edata ? edata + 8 * i : NULL;
        fk_node *a = NULL, *b = NULL;
        for (j = 0; j < gr->n; ++j) {
            if ((void*)gr->nodes[j] == from[i]) a = gr->nodes[j];
            if ((void*)gr->nodes[j] == to[i]) b = gr->nodes[j];
        }
        if (!a || !b || a == b) return 1;
        if (e) {
            if (e[1] != 0 || e[2] > 1 || e[0] > 2) return 1;
            for (k = 3; k < 8; ++k)
                if (e[k]) return 1;
            if (e[2] == 1) { /* programmatic: kernel to kernel, from a programmatic or launch-order port */
                if (a->type != 0 || b->type != 0 || e[0] == 0) return 1;
                F.pdl_edges++;
                F.pdl_port = e[0];
            }
        }
    }
    return 0;
}
static CUresult cuGraphGetNodes(void* g, void** nodes, size_t* n) {
    fk_graph* gr = (fk_graph*)g;
    int i;
    FK("cuGraphGetNodes");
    if (nodes)
        for (i = 0; i < gr->n && (size_t)i < *n; ++i) nodes[i] = gr->nodes[i];
    *n = (size_t)gr->n;
    return 0;
}
static CUresult cuGraphNodeGetType(void* node, int* t) {
    FK("cuGraphNodeGetType");
    *t = ((fk_node*)node)->type;
    return 0;
}
static CUresult cuGraphInstantiateWithFlags(void** e, void* g, unsigned long long flags) {
    (void)flags;
    FK("cuGraphInstantiateWithFlags");
    *e = fk_graph_clone((fk_graph*)g);
    return 0;
}
static CUresult cuGraphExecDestroy(void* e) {
    FK("cuGraphExecDestroy");
    fk_graph_free((fk_graph*)e);
    return 0;
}
static void fk_run(const fk_graph* g) {
    int i;
    for (i = 0; i < g->n; ++i) {
        const fk_node* nd = g->nodes[i];
        if (nd->type == 7) { /* an event record: stamps the clock, takes no time */
            ((fk_event*)nd->event)->t_us = FE.clock_us;
            ((fk_event*)nd->event)->recorded = 1;
            continue;
        }
        if (nd->type != 4) FE.clock_us += nd->type == 0 ? fk_kernel_us(nd->kname) : FE.node_us; /* device time of a leaf node */
        if (nd->type == 1) {
            void* d = nd->cp.dstMemoryType == 1 ? nd->cp.dstHost : (void*)(uintptr_t)nd->cp.dstDevice;
            const void* s = nd->cp.srcMemoryType == 1 ? nd->cp.srcHost : (const void*)(uintptr_t)nd->cp.srcDevice;
            memmove(d, s, nd->cp.WidthInBytes);
        } else if (nd->type == 4) {
            fk_run(nd->child);
        } else if (nd->type == 0) {
            F.kernels_run++;
            if (strcmp(nd->kname, "aicf_test_axpy") == 0) {
                uint64_t x, y, o, n, k;
                float a;
                memcpy(&x, nd->args, 8);
                memcpy(&y, nd->args + 8, 8);
                memcpy(&o, nd->args + 16, 8);
                memcpy(&n, nd->args + 24, 8);
                memcpy(&a, nd->args + 32, 4);
                for (k = 0; k < n; ++k)
                    ((float*)(uintptr_t)o)[k] = a * ((const float*)(uintptr_t)x)[k] + ((const float*)(uintptr_t)y)[k];
            }
        }
    }
}
static CUresult cuGraphLaunch(void* e, void* s) {
    (void)s;
    FK("cuGraphLaunch");
    fk_run((const fk_graph*)e);
    return 0;
}
static CUresult cuStreamBeginCapture(void* s, int mode) {
    (void)s;
    (void)mode;
    FK("cuStreamBeginCapture");
    return 0;
}
static CUresult cuStreamEndCapture(void* s, void** g) {
    (void)s;
    fk_graph* cg;
    FK("cuStreamEndCapture");
    *g = cg = fk_graph_new();
    if (cg && FT.cap[0]) { /* the captured kernel, its name interned (nodes keep a pointer) */
        int i;
        fk_node* node = (fk_node*)calloc(1, sizeof *node);
        for (i = 0; i < FT.n_names && strcmp(FT.names[i], FT.cap) != 0; i++) {
        }
        if (i == FT.n_names && i < 32) snprintf(FT.names[FT.n_names++], sizeof FT.names[0], "%s", FT.cap);
        if (node && i < 32) {
            node->type = 0;
            node->kname = FT.names[i];
            cg->nodes[cg->n++] = node;
        } else {
            free(node);
        }
        FT.cap[0] = 0;
    }
    return 0;
}

/* ---- the versioned lookup ---- */
#define FK_TABLE(X)                                                                               \
    X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount)     \
    X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                 \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxPushCurrent)                  \
    X(cuCtxPopCurrent) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost)              \
    X(cuMemcpyHtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)                \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncSetAttribute)          \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamBeginCapture)           \
    X(cuStreamEndCapture) X(cuGraphCreate) X(cuGraphDestroy) X(cuGraphAddKernelNode)              \
    X(cuGraphAddMemcpyNode) X(cuGraphAddChildGraphNode) X(cuGraphAddEmptyNode) X(cuGraphGetNodes) \
    X(cuGraphNodeGetType) X(cuGraphInstantiateWithFlags) X(cuGraphExecDestroy) X(cuGraphLaunch)   \
    X(cuCtxGetCurrent) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)                    \
    X(cuEventElapsedTime) X(cuEventDestroy) X(cuGraphAddEventRecordNode) X(cuGraphAddDependencies) X(cuTensorMapEncodeTiled) \
    X(cuOccupancyMaxActiveClusters)

FK_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
    (void)version;
    (void)flags;
    *pfn = NULL;
    if (status) *status = 1;
    if (F.missing[0] && strcmp(F.missing, symbol) == 0) return 500;
    if (!F.tmap && strcmp(symbol, "cuTensorMapEncodeTiled") == 0) return 500;
    if (!FO.on && strcmp(symbol, "cuOccupancyMaxActiveClusters") == 0) return 500;
#define FK_LOOKUP(name)                                                                           \
    if (strcmp(symbol, #name) == 0) {                                                             \
        __typeof__(&name) f_ = name;                                                              \
        memcpy(pfn, &f_, sizeof f_);                                                              \
        if (status) *status = 0;                                                                  \
        return 0;                                                                                 \
    }
    FK_TABLE(FK_LOOKUP)
#undef FK_LOOKUP
    return 500;
}

FK_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, unsigned long long flags) {
    return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

/* ---- a fake cuBLASLt (exported under the real names: dlopen this file as the cuBLASLt
   library). Plan-time calls behave; cublasLtMatmul computes nothing. ---- */
typedef int fk_lt_status;
typedef struct fk_lt_algo {
    uint64_t data[8];
} fk_lt_algo;
typedef struct fk_lt_heur {
    fk_lt_algo algo;
    size_t workspaceSize;
    fk_lt_status state;
    float wavesCount;
    int reserved[4];
} fk_lt_heur;
static struct {
    char fail_fn[64];
    int fail_status, fail_nth;
    int results_set, results; /* results_set 0: the default, 1 result */
    long live;
    struct {
        char name[48];
        long calls;
    } fn[24];
    int n_fn;
} FL;
static int fk_lt_handle_obj;

static fk_lt_status fk_lt(const char* name) {
    int i;
    for (i = 0; i < FL.n_fn; ++i)
        if (strcmp(FL.fn[i].name, name) == 0) break;
    if (i == FL.n_fn && FL.n_fn < 24) {
        snprintf(FL.fn[i].name, sizeof FL.fn[i].name, "%s", name);
        FL.fn[i].calls = 0;
        FL.n_fn++;
    }
    if (i < FL.n_fn) FL.fn[i].calls++;
    if (FL.fail_fn[0] && strcmp(FL.fail_fn, name) == 0 &&
        (FL.fail_nth == 0 || (i < FL.n_fn && FL.fn[i].calls == FL.fail_nth)))
        return FL.fail_status;
    return 0;
}
#define FKL(name)                                                                                 \
    do {                                                                                          \
        fk_lt_status fkl_s_ = fk_lt(name);                                                        \
        if (fkl_s_) return fkl_s_;                                                                \
    } while (0)

static uint32_t fk_lt_epi[64]; /* CUBLASLT_MATMUL_DESC_EPILOGUE values set (fakecuda_lt_epilogues) */
static int fk_lt_n_epi;
FK_EXPORT void fakecuda_lt_fail(const char* fn, int status, int nth) {
    fk_lt_n_epi = 0;
    snprintf(FL.fail_fn, sizeof FL.fail_fn, "%s", fn ? fn : "");
    FL.fail_status = status;
    FL.fail_nth = nth;
    FL.n_fn = 0;
}
FK_EXPORT void fakecuda_lt_set_results(int n) {
    FL.results_set = 1;
    FL.results = n;
}
FK_EXPORT long fakecuda_lt_live(void) { return FL.live; }
FK_EXPORT long fakecuda_lt_calls(const char* name) {
    int i;
    for (i = 0; i < FL.n_fn; ++i)
        if (strcmp(FL.fn[i].name, name) == 0) return FL.fn[i].calls;
    return 0;
}

static void* fk_lt_obj(void) {
    void* o = calloc(1, 64);
    if (o) FL.live++;
    return o;
}
static fk_lt_status fk_lt_free(void* o) {
    if (!o) return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    free(o);
    FL.live--;
    return 0;
}

FK_EXPORT fk_lt_status cublasLtCreate(void** h) {
    FKL("cublasLtCreate");
    *h = &fk_lt_handle_obj;
    FL.live++;
    return 0;
}
FK_EXPORT fk_lt_status cublasLtDestroy(void* h) {
    FKL("cublasLtDestroy");
    if (h != &fk_lt_handle_obj) return 7;
    FL.live--;
    return 0;
}
FK_EXPORT size_t cublasLtGetVersion(void) { return 130000; }
FK_EXPORT const char* cublasLtGetStatusName(fk_lt_status s) {
    switch (s) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return NULL;
    }
}
FK_EXPORT fk_lt_status cublasLtMatmulDescCreate(void** d, int compute, int scale) {
    (void)compute;
    (void)scale;
    FKL("cublasLtMatmulDescCreate");
    *d = fk_lt_obj();
    return *d ? 0 : 3;
}
FK_EXPORT fk_lt_status cublasLtMatmulDescDestroy(void* d) {
    FKL("cublasLtMatmulDescDestroy");
    return fk_lt_free(d);
}
FK_EXPORT int fakecuda_lt_epilogues(uint32_t* out, int cap) {
    int i;
    for (i = 0; i < fk_lt_n_epi && i < cap && i < 64; i++) out[i] = fk_lt_epi[i];
    return fk_lt_n_epi;
}
FK_EXPORT fk_lt_status cublasLtMatmulDescSetAttribute(void* d, int attr, const void* v, size_t n) {
    FKL("cublasLtMatmulDescSetAttribute");
    if (attr == 7 && v && n == sizeof(uint32_t)) { /* CUBLASLT_MATMUL_DESC_EPILOGUE */
        if (fk_lt_n_epi < 64) memcpy(&fk_lt_epi[fk_lt_n_epi], v, sizeof(uint32_t));
        fk_lt_n_epi++;
    }
    return d && v && n ? 0 : 7;
}
FK_EXPORT fk_lt_status cublasLtMatrixLayoutCreate(void** l, int dtype, uint64_t rows, uint64_t cols, int64_t ld) {
    (void)dtype;
    FKL("cublasLtMatrixLayoutCreate");
    if (!rows || !cols || ld < 1) return 7;
    *l = fk_lt_obj();
    return *l ? 0 : 3;
}
FK_EXPORT fk_lt_status cublasLtMatrixLayoutDestroy(void* l) {
    FKL("cublasLtMatrixLayoutDestroy");
    return fk_lt_free(l);
}
FK_EXPORT fk_lt_status cublasLtMatrixLayoutSetAttribute(void* l, int attr, const void* v, size_t n) {
    (void)attr;
    FKL("cublasLtMatrixLayoutSetAttribute");
    return l && v && n ? 0 : 7;
}
FK_EXPORT fk_lt_status cublasLtMatmulPreferenceCreate(void** p) {
    FKL("cublasLtMatmulPreferenceCreate");
    *p = fk_lt_obj();
    return *p ? 0 : 3;
}
FK_EXPORT fk_lt_status cublasLtMatmulPreferenceDestroy(void* p) {
    FKL("cublasLtMatmulPreferenceDestroy");
    return fk_lt_free(p);
}
FK_EXPORT fk_lt_status cublasLtMatmulPreferenceSetAttribute(void* p, int attr, const void* v, size_t n) {
    (void)attr;
    FKL("cublasLtMatmulPreferenceSetAttribute");
    return p && v && n ? 0 : 7;
}
FK_EXPORT fk_lt_status cublasLtMatmulAlgoGetHeuristic(void* h, void* desc, void* la, void* lb, void* lc, void* ld, void* pref,
                                                     int want, fk_lt_heur* res, int* n) {
    int i, have = FL.results_set ? FL.results : 1;
    FKL("cublasLtMatmulAlgoGetHeuristic");
    if (h != &fk_lt_handle_obj || !desc || !la || !lb || !lc || !ld || !pref || !res || !n) return 7;
    *n = have < want ? have : want;
    for (i = 0; i < *n; ++i) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].algo.data[0] = 7000u + (unsigned)i;
        res[i].wavesCount = 1.0f;
    }
    return *n > 0 ? 0 : 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
}
FK_EXPORT fk_lt_status cublasLtMatmulAlgoCheck(void* h, void* desc, void* la, void* lb, void* lc, void* ld, const fk_lt_algo* algo,
                                              fk_lt_heur* res) {
    FKL("cublasLtMatmulAlgoCheck");
    if (h != &fk_lt_handle_obj || !desc || !la || !lb || !lc || !ld || !algo || !res) return 7;
    memset(res, 0, sizeof *res);
    res->algo = *algo;
    res->wavesCount = 1.0f;
    return algo->data[0] >= 7000u ? 0 : 15;
}
FK_EXPORT fk_lt_status cublasLtMatmul(void* h, void* desc, const void* alpha, const void* a, void* la, const void* b, void* lb,
                                      const void* beta, const void* c, void* lc, void* d, void* ld, const fk_lt_algo* algo,
                                      void* ws, size_t wsb, void* stream) {
    (void)c;
    (void)ws;
    (void)wsb;
    (void)stream;
    FKL("cublasLtMatmul");
    if (h != &fk_lt_handle_obj || !desc || !alpha || !a || !la || !b || !lb || !beta || !lc || !d || !ld || !algo) return 7;
    return 0;
}
