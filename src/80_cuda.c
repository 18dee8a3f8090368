/* >>cuda ===================================================================================
   The CUDA backend: driver API and cuBLASLt loaded at run time, kernel images, memory, and the
   one CUDA graph an exec replays.

   Loading (IREE's pattern). libcuda is dlopen'ed (ctx->driver_path, default "libcuda.so.1",
   "nvcuda.dll" on Windows); only cuGetProcAddress_v2 (or, for drivers before 12.0,
   cuGetProcAddress) is looked up with dlsym. Every other entry point is resolved through it from
   the one table AICF__CUDA_API below, at the ABI version written next to it, into a struct of
   function pointers inside struct aicf__cuda (one per context; no globals). The driver types
   are re-declared here with an aicf__ prefix (values and layouts copied from cuda.h 13.0 and
   checked against the real header by tests/test_cuda_fake.c), so aicf builds with no CUDA
   headers installed. cuBLASLt is loaded the same way (ctx->cublaslt_path, else
   libcublasLt.so.13, .so.12, .so); its absence is not an error: GEMMs then use generated
   kernels.

   Contexts. aicf uses the device's primary context (cuDevicePrimaryCtxRetain), pushed around
   every piece of work and popped afterwards, so any thread may call and the caller's own
   current context is left as it was. The per-replay calls (set_input, launch, wait,
   get_output, benchmark) first ask cuCtxGetCurrent and skip the push/pop pair when the primary
   context is already current on the calling thread, as it is in a thread that uses the CUDA
   runtime on that device. A stream passed in aicf_exec_desc.stream must belong to that primary
   context (the CUDA runtime's streams do).

   Kernel images. At exec creation, the modules the plan's steps use are loaded, each once per
   exec (not cached per context: an exec owns everything it made, and no lock is needed).
   The image for a module is chosen by aicf__cuda_choose_image: the cubin of exactly the
   device's sm_XY, else the cubin of the same major with the highest lower minor, else the PTX
   of the highest compute_XY not above the device (JIT-compiled by the driver), else
   AICF_ERROR_NO_KERNEL naming the device's compute capability and the embedded targets. A
   cubin the driver refuses falls back to the PTX when there is one.

   Graph. An exec is one CUDA graph, a chain: copy-in memcpy nodes (pinned staging -> arena),
   every step's nodes (aicf__cuda_emit_step, 81_cuda_ops.c), copy-out memcpy nodes (arena ->
   pinned staging); with AICF_EXEC_DEVICE_IO there are no copy nodes. cuBLASLt calls are
   captured on a private stream into a child graph node. The graph is instantiated once;
   aicf_exec_launch is one cuGraphLaunch.

   Thread safety: aicf__cuda_init may race on one context (a small atomic state machine makes
   the first caller load, the others wait). Execs are independent; one exec must not be used
   from two threads at once.

   Benchmark (aicf_exec_benchmark, at the end of this section). Each replay is bracketed by two
   CUDA events recorded on the exec's stream, as PyTorch's torch.cuda.Event timing does:
   record(start), aicf_exec_launch, record(end), cuEventSynchronize(end), cuEventElapsedTime.
   Replays are serialised (the next starts after the previous end event completed). The host
   time of the launch call is read from the host clock (aicf__now_us, >>core). */

#if !defined(AICF_NO_CUDA)

#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>
#  define AICF__CUDAAPI __stdcall
#else
#  include <dlfcn.h>
#  include <sched.h>
#  define AICF__CUDAAPI
#endif

/* snprintf for messages: truncation is accepted (through vsnprintf, so that the compiler's
   -Wformat-truncation, which depends on the optimisation level, has nothing to say). */
static void aicf__cu_fmt(char* buf, size_t cap, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void aicf__cu_fmt(char* buf, size_t cap, const char* fmt, ...) {
    va_list ap;
    if (!cap) return;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

/* ---- dynamic loading ---- */
#if defined(_WIN32)
static void* aicf__cu_dl_open(const char* path, char* err, size_t cap) {
    HMODULE h = LoadLibraryA(path);
    if (!h) aicf__cu_fmt(err, cap, "LoadLibrary error %lu", (unsigned long)GetLastError());
    return (void*)h;
}
static void* aicf__cu_dl_sym(void* h, const char* name) {
    FARPROC f = GetProcAddress((HMODULE)h, name);
    void* p;
    memcpy(&p, &f, sizeof p);
    return p;
}
static void aicf__cu_dl_close(void* h) {
    if (h) FreeLibrary((HMODULE)h);
}
static void aicf__cu_yield(void) { SwitchToThread(); }
#else
static void* aicf__cu_dl_open(const char* path, char* err, size_t cap) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        aicf__cu_fmt(err, cap, "%s", e ? e : "unknown error");
    }
    return h;
}
static void* aicf__cu_dl_sym(void* h, const char* name) { return dlsym(h, name); }
static void aicf__cu_dl_close(void* h) {
    if (h) dlclose(h);
}
static void aicf__cu_yield(void) { sched_yield(); }
#endif

/* ---- atomics for the once-per-context initialisation ---- */
#if defined(__GNUC__) || defined(__clang__)
#  define AICF__CAS_INT(p, o, n) __sync_bool_compare_and_swap((p), (o), (n))
#  define AICF__LOAD_INT(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#  define AICF__STORE_INT(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#elif defined(_MSC_VER)
#  define AICF__CAS_INT(p, o, n) (InterlockedCompareExchange((volatile long*)(p), (n), (o)) == (o))
#  define AICF__LOAD_INT(p) ((int)InterlockedCompareExchange((volatile long*)(p), 0, 0))
#  define AICF__STORE_INT(p, v) ((void)InterlockedExchange((volatile long*)(p), (v)))
#else
#  define AICF__CAS_INT(p, o, n) (*(p) == (o) ? (*(p) = (n), 1) : 0)
#  define AICF__LOAD_INT(p) (*(p))
#  define AICF__STORE_INT(p, v) ((void)(*(p) = (v)))
#endif

/* ---- CUDA driver types, re-declared (cuda.h 13.0; checked in tests/test_cuda_fake.c) ---- */
typedef int aicf__CUresult;                     /* enum cudaError_enum */
typedef int aicf__CUdevice;                     /* CUdevice_v1 */
typedef unsigned long long aicf__CUdeviceptr;   /* CUdeviceptr_v2 */
typedef struct aicf__CUctx_st* aicf__CUcontext;
typedef struct aicf__CUmod_st* aicf__CUmodule;
typedef struct aicf__CUfunc_st* aicf__CUfunction;
typedef struct aicf__CUstream_st* aicf__CUstream;
typedef struct aicf__CUgraph_st* aicf__CUgraph;
typedef struct aicf__CUgraphNode_st* aicf__CUgraphNode;
typedef struct aicf__CUgraphExec_st* aicf__CUgraphExec;
typedef struct aicf__CUevent_st* aicf__CUevent;
typedef struct aicf__CUarray_st* aicf__CUarray;
typedef int aicf__CUjit_option;                 /* enum CUjit_option_enum */
typedef int aicf__CUdevice_attribute;
typedef int aicf__CUfunction_attribute;
typedef int aicf__CUstreamCaptureMode;
typedef int aicf__CUgraphNodeType;
typedef int aicf__CUmemorytype;
typedef int aicf__CUdriverProcAddressQueryResult;
typedef unsigned long long aicf__cuuint64_t;

#define AICF__CUDA_SUCCESS 0
#define AICF__CUDA_ERROR_INVALID_VALUE 1
#define AICF__CUDA_ERROR_OUT_OF_MEMORY 2
#define AICF__CUDA_ERROR_NOT_INITIALIZED 3
#define AICF__CUDA_ERROR_STUB_LIBRARY 34
#define AICF__CUDA_ERROR_NO_DEVICE 100
#define AICF__CUDA_ERROR_INVALID_DEVICE 101
#define AICF__CUDA_ERROR_INVALID_IMAGE 200
#define AICF__CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define AICF__CUDA_ERROR_INVALID_PTX 218
#define AICF__CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define AICF__CUDA_ERROR_NOT_FOUND 500

#define AICF__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define AICF__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define AICF__CU_STREAM_NON_BLOCKING 0x1
#define AICF__CU_EVENT_DEFAULT 0x0
#define AICF__CU_STREAM_CAPTURE_MODE_RELAXED 2
#define AICF__CU_MEMHOSTALLOC_PORTABLE 0x01
#define AICF__CU_MEMORYTYPE_HOST 0x01
#define AICF__CU_MEMORYTYPE_DEVICE 0x02
#define AICF__CU_GRAPH_NODE_TYPE_KERNEL 0
#define AICF__CU_GET_PROC_ADDRESS_DEFAULT 0
#define AICF__CU_JIT_INFO_LOG_BUFFER 3
#define AICF__CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define AICF__CU_JIT_ERROR_LOG_BUFFER 5
#define AICF__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

typedef struct aicf__CUDA_KERNEL_NODE_PARAMS { /* CUDA_KERNEL_NODE_PARAMS_v1 */
    aicf__CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void** kernelParams;
    void** extra;
} aicf__CUDA_KERNEL_NODE_PARAMS;

typedef struct aicf__CUDA_MEMCPY3D { /* CUDA_MEMCPY3D_v2 */
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    aicf__CUmemorytype srcMemoryType;
    const void* srcHost;
    aicf__CUdeviceptr srcDevice;
    aicf__CUarray srcArray;
    void* reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    aicf__CUmemorytype dstMemoryType;
    void* dstHost;
    aicf__CUdeviceptr dstDevice;
    aicf__CUarray dstArray;
    void* reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} aicf__CUDA_MEMCPY3D;

/* The driver entry points aicf uses: (name, ABI version for cuGetProcAddress, parameters). */
#define AICF__CUDA_API(X)                                                                         \
    X(cuGetErrorName, 6000, (aicf__CUresult, const char**))                                       \
    X(cuGetErrorString, 6000, (aicf__CUresult, const char**))                                     \
    X(cuInit, 2000, (unsigned int))                                                               \
    X(cuDriverGetVersion, 2020, (int*))                                                           \
    X(cuDeviceGetCount, 2000, (int*))                                                             \
    X(cuDeviceGet, 2000, (aicf__CUdevice*, int))                                                  \
    X(cuDeviceGetName, 2000, (char*, int, aicf__CUdevice))                                        \
    X(cuDeviceGetAttribute, 2000, (int*, aicf__CUdevice_attribute, aicf__CUdevice))               \
    X(cuDeviceTotalMem, 3020, (size_t*, aicf__CUdevice))                                          \
    X(cuDevicePrimaryCtxRetain, 7000, (aicf__CUcontext*, aicf__CUdevice))                         \
    X(cuDevicePrimaryCtxRelease, 11000, (aicf__CUdevice))                                         \
    X(cuCtxPushCurrent, 4000, (aicf__CUcontext))                                                  \
    X(cuCtxPopCurrent, 4000, (aicf__CUcontext*))                                                  \
    X(cuCtxGetCurrent, 4000, (aicf__CUcontext*))                                                  \
    X(cuMemAlloc, 3020, (aicf__CUdeviceptr*, size_t))                                             \
    X(cuMemFree, 3020, (aicf__CUdeviceptr))                                                       \
    X(cuMemHostAlloc, 2020, (void**, size_t, unsigned int))                                       \
    X(cuMemFreeHost, 2000, (void*))                                                               \
    X(cuMemcpyHtoD, 3020, (aicf__CUdeviceptr, const void*, size_t))                               \
    X(cuMemcpyHtoDAsync, 3020, (aicf__CUdeviceptr, const void*, size_t, aicf__CUstream))          \
    X(cuMemcpyDtoHAsync, 3020, (void*, aicf__CUdeviceptr, size_t, aicf__CUstream))                \
    X(cuMemcpyDtoDAsync, 3020, (aicf__CUdeviceptr, aicf__CUdeviceptr, size_t, aicf__CUstream))    \
    X(cuModuleLoadDataEx, 2010,                                                                   \
      (aicf__CUmodule*, const void*, unsigned int, aicf__CUjit_option*, void**))                  \
    X(cuModuleUnload, 2000, (aicf__CUmodule))                                                     \
    X(cuModuleGetFunction, 2000, (aicf__CUfunction*, aicf__CUmodule, const char*))                \
    X(cuFuncSetAttribute, 9000, (aicf__CUfunction, aicf__CUfunction_attribute, int))              \
    X(cuStreamCreate, 2000, (aicf__CUstream*, unsigned int))                                      \
    X(cuStreamDestroy, 4000, (aicf__CUstream))                                                    \
    X(cuStreamSynchronize, 2000, (aicf__CUstream))                                                \
    X(cuEventCreate, 2000, (aicf__CUevent*, unsigned int))                                        \
    X(cuEventRecord, 2000, (aicf__CUevent, aicf__CUstream))                                       \
    X(cuEventSynchronize, 2000, (aicf__CUevent))                                                  \
    X(cuEventElapsedTime, 2000, (float*, aicf__CUevent, aicf__CUevent))                           \
    X(cuEventDestroy, 4000, (aicf__CUevent))                                                      \
    X(cuStreamBeginCapture, 10010, (aicf__CUstream, aicf__CUstreamCaptureMode))                   \
    X(cuStreamEndCapture, 10000, (aicf__CUstream, aicf__CUgraph*))                                \
    X(cuGraphCreate, 10000, (aicf__CUgraph*, unsigned int))                                       \
    X(cuGraphDestroy, 10000, (aicf__CUgraph))                                                     \
    X(cuGraphAddKernelNode, 10000,                                                                \
      (aicf__CUgraphNode*, aicf__CUgraph, const aicf__CUgraphNode*, size_t,                       \
       const aicf__CUDA_KERNEL_NODE_PARAMS*))                                                     \
    X(cuGraphAddMemcpyNode, 10000,                                                                \
      (aicf__CUgraphNode*, aicf__CUgraph, const aicf__CUgraphNode*, size_t,                       \
       const aicf__CUDA_MEMCPY3D*, aicf__CUcontext))                                              \
    X(cuGraphAddChildGraphNode, 10000,                                                            \
      (aicf__CUgraphNode*, aicf__CUgraph, const aicf__CUgraphNode*, size_t, aicf__CUgraph))       \
    X(cuGraphAddEmptyNode, 10000, (aicf__CUgraphNode*, aicf__CUgraph, const aicf__CUgraphNode*, size_t)) \
    X(cuGraphAddEventRecordNode, 11010,                                                           \
      (aicf__CUgraphNode*, aicf__CUgraph, const aicf__CUgraphNode*, size_t, aicf__CUevent))       \
    X(cuGraphGetNodes, 10000, (aicf__CUgraph, aicf__CUgraphNode*, size_t*))                       \
    X(cuGraphNodeGetType, 10000, (aicf__CUgraphNode, aicf__CUgraphNodeType*))                     \
    X(cuGraphInstantiateWithFlags, 11040, (aicf__CUgraphExec*, aicf__CUgraph, unsigned long long)) \
    X(cuGraphExecDestroy, 10000, (aicf__CUgraphExec))                                             \
    X(cuGraphLaunch, 10000, (aicf__CUgraphExec, aicf__CUstream))

/* CUgraphEdgeData (cuda.h 12.3+) and the optional cuGraphAddDependencies of ABI 12030 (with edge
   data), resolved when the driver has it: programmatic dependent launch between kernel nodes. */
typedef struct aicf__CUgraphEdgeData {
    unsigned char from_port, to_port, type, reserved[5];
} aicf__CUgraphEdgeData;
#define AICF__CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC 1
#define AICF__CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC 1
typedef aicf__CUresult(AICF__CUDAAPI* aicf__PFN_cuGraphAddDependencies_v12030)(aicf__CUgraph, const aicf__CUgraphNode*,
                                                                               const aicf__CUgraphNode*,
                                                                               const aicf__CUgraphEdgeData*, size_t);
/* cuTensorMapEncodeTiled (cuda.h 12.0+; enums as int, cuuint32_t/cuuint64_t as uint32_t/uint64_t),
   resolved when the driver has it: the TMA tensor maps of the Hopper GEMM. */
typedef aicf__CUresult(AICF__CUDAAPI* aicf__PFN_cuTensorMapEncodeTiled_v12000)(void*, int, uint32_t, void*, const uint64_t*,
                                                                              const uint64_t*, const uint32_t*, const uint32_t*,
                                                                              int, int, int, int);
#define AICF__CU_TENSOR_MAP_DATA_TYPE_FLOAT16 6
/* CUlaunchConfig (cuda.h 11.8+) and the optional cuOccupancyMaxActiveClusters of ABI 11070:
   how many thread block clusters of a kernel the device holds at once (aicf__cuda_cluster_cap). */
typedef struct aicf__CUlaunchConfig {
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    aicf__CUstream hStream;
    void* attrs; /* CUlaunchAttribute*: none given (the kernels fix their cluster shape with __cluster_dims__) */
    unsigned int numAttrs;
} aicf__CUlaunchConfig;
typedef aicf__CUresult(AICF__CUDAAPI* aicf__PFN_cuOccupancyMaxActiveClusters_v11070)(int*, aicf__CUfunction, const aicf__CUlaunchConfig*);
#define AICF__CU_TENSOR_MAP_L2_PROMOTION_L2_128B 2

typedef struct aicf__cuda_api {
#define AICF__CUDA_API_FIELD(name, version, params) aicf__CUresult(AICF__CUDAAPI* name) params;
    AICF__CUDA_API(AICF__CUDA_API_FIELD)
#undef AICF__CUDA_API_FIELD
} aicf__cuda_api;

typedef aicf__CUresult(AICF__CUDAAPI* aicf__PFN_cuGetProcAddress_v2)(const char*, void**, int, aicf__cuuint64_t,
                                                                     aicf__CUdriverProcAddressQueryResult*);
typedef aicf__CUresult(AICF__CUDAAPI* aicf__PFN_cuGetProcAddress)(const char*, void**, int, aicf__cuuint64_t);

/* ---- cuBLASLt types, re-declared (cublasLt.h / library_types.h 13.0) ---- */
typedef int aicf__cublasStatus_t;
#define AICF__CUBLAS_STATUS_SUCCESS 0
#define AICF__CUDA_R_32F 0
#define AICF__CUDA_R_16F 2
#define AICF__CUBLAS_COMPUTE_32F 68
#define AICF__CUBLAS_COMPUTE_32F_FAST_TF32 77
#define AICF__CUBLAS_OP_N 0
#define AICF__CUBLAS_OP_T 1
#define AICF__CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT 5
#define AICF__CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET 6
#define AICF__CUBLASLT_MATMUL_DESC_TRANSA 3
#define AICF__CUBLASLT_MATMUL_DESC_TRANSB 4
#define AICF__CUBLASLT_MATMUL_DESC_EPILOGUE 7
#define AICF__CUBLASLT_MATMUL_DESC_BIAS_POINTER 8
#define AICF__CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE 26
#define AICF__CUBLASLT_EPILOGUE_DEFAULT 1
#define AICF__CUBLASLT_EPILOGUE_RELU 2
#define AICF__CUBLASLT_EPILOGUE_BIAS 4
#define AICF__CUBLASLT_EPILOGUE_RELU_BIAS 6
#define AICF__CUBLASLT_EPILOGUE_GELU 32      /* the tanh form (CUBLASLT_EPILOGUE_GELU) */
#define AICF__CUBLASLT_EPILOGUE_GELU_BIAS 36 /* GELU | BIAS */
#define AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1
#define AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES 5
#define AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES 6
#define AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES 7
#define AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES 8

typedef struct aicf__cublasLtMatmulAlgo_t {
    uint64_t data[8];
} aicf__cublasLtMatmulAlgo_t;

typedef struct aicf__cublasLtMatmulHeuristicResult_t {
    aicf__cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    aicf__cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} aicf__cublasLtMatmulHeuristicResult_t;

/* Handles and descriptors are pointers to opaque structs: void* here. Enum parameters are int. */
#define AICF__CUBLASLT_API(X)                                                                     \
    X(aicf__cublasStatus_t, cublasLtCreate, (void**))                                             \
    X(aicf__cublasStatus_t, cublasLtDestroy, (void*))                                             \
    X(size_t, cublasLtGetVersion, (void))                                                         \
    X(aicf__cublasStatus_t, cublasLtMatmulDescCreate, (void**, int, int))                         \
    X(aicf__cublasStatus_t, cublasLtMatmulDescDestroy, (void*))                                   \
    X(aicf__cublasStatus_t, cublasLtMatmulDescSetAttribute, (void*, int, const void*, size_t))    \
    X(aicf__cublasStatus_t, cublasLtMatrixLayoutCreate, (void**, int, uint64_t, uint64_t, int64_t)) \
    X(aicf__cublasStatus_t, cublasLtMatrixLayoutDestroy, (void*))                                 \
    X(aicf__cublasStatus_t, cublasLtMatrixLayoutSetAttribute, (void*, int, const void*, size_t))  \
    X(aicf__cublasStatus_t, cublasLtMatmulPreferenceCreate, (void**))                             \
    X(aicf__cublasStatus_t, cublasLtMatmulPreferenceDestroy, (void*))                             \
    X(aicf__cublasStatus_t, cublasLtMatmulPreferenceSetAttribute, (void*, int, const void*, size_t)) \
    X(aicf__cublasStatus_t, cublasLtMatmulAlgoGetHeuristic,                                       \
      (void*, void*, void*, void*, void*, void*, void*, int, aicf__cublasLtMatmulHeuristicResult_t*, int*)) \
    X(aicf__cublasStatus_t, cublasLtMatmulAlgoCheck,                                              \
      (void*, void*, void*, void*, void*, void*, const aicf__cublasLtMatmulAlgo_t*,               \
       aicf__cublasLtMatmulHeuristicResult_t*))                                                   \
    X(aicf__cublasStatus_t, cublasLtMatmul,                                                       \
      (void*, void*, const void*, const void*, void*, const void*, void*, const void*, const void*, \
       void*, void*, void*, const aicf__cublasLtMatmulAlgo_t*, void*, size_t, aicf__CUstream))

typedef struct aicf__cublaslt_api {
#define AICF__CUBLASLT_API_FIELD(ret, name, params) ret(AICF__CUDAAPI* name) params;
    AICF__CUBLASLT_API(AICF__CUBLASLT_API_FIELD)
#undef AICF__CUBLASLT_API_FIELD
    const char*(AICF__CUDAAPI* cublasLtGetStatusName)(aicf__cublasStatus_t); /* optional */
} aicf__cublaslt_api;

/* ---- the kernel table ---- */
/* Where the table comes from: AICF_KERNEL_TABLE_FILE (a header path, e.g. a test's own table),
   else kernels_gen/aicf_kernels.h next to aicf.h, unless AICF_NO_KERNEL_TABLE (an empty table:
   every kernel lookup fails and plans use cuBLASLt or fail with AICF_ERROR_NO_KERNEL), or unless
   the table was already included above (AICF__KT_NUM_KERNELS defined, as `make dist` does). */
#if defined(AICF_KERNEL_TABLE_FILE) && !defined(AICF__KT_NUM_KERNELS)
#  include AICF_KERNEL_TABLE_FILE
#elif defined(AICF_NO_KERNEL_TABLE) && !defined(AICF__KT_NUM_KERNELS)
#  define AICF__KT_NVRTC_VERSION "none"
#  define AICF__KT_TARGETS ""
#  define AICF__KT_NUM_MODULES 0
#  define AICF__KT_NUM_IMAGES 0
#  define AICF__KT_NUM_KERNELS 0
static const aicf__kt_module aicf__kt_modules[1] = {{"", ""}};
static const aicf__kt_image aicf__kt_images[1] = {{0, 0, 0, NULL, 0}};
static const aicf__kt_kernel aicf__kt_kernels[1] = {{"", 0, "", "", "", 0}};
#elif !defined(AICF__KT_NUM_KERNELS)
#  include "kernels_gen/aicf_kernels.h"
#endif

/* ---- per-context state ----
   Fields after `ready` are valid when ready == 1; 81_cuda_ops.c may read cc_major, cc_minor,
   sm_count and max_smem_optin (through p->ctx->cuda). */
struct aicf__cuda {
    int ready;             /* 1: driver, device and primary context usable */
    aicf_result status;    /* result of the initialisation */
    char init_error[768];  /* its message when ready == 0 */
    void* libcuda;
    aicf__cuda_api api;
    int driver_version;
    aicf__CUdevice device;
    aicf__CUcontext pctx;  /* the device's primary context (retained) */
    int pctx_retained;
    int cc_major, cc_minor;
    int sm_count;
    int max_smem_optin;    /* bytes of shared memory per block with opt-in */
    /* programmatic dependent launch: the driver's cuGraphAddDependencies with edge data (NULL
       before CUDA 12.3) and a device whose images carry griddepcontrol.wait (cc >= 9.0) */
    aicf__PFN_cuGraphAddDependencies_v12030 add_deps_v12030;
    aicf__PFN_cuTensorMapEncodeTiled_v12000 tmap_encode; /* NULL before CUDA 12.0 */
    aicf__PFN_cuOccupancyMaxActiveClusters_v11070 occ_clusters; /* NULL before CUDA 11.8 */
    int pdl;
    /* plan-time occupancy queries (aicf__cuda_cluster_cap): the modules they loaded (freed with
       the context) and their answers, under probe_lock (a spin lock: plans may be made on several
       threads of one context) */
    int probe_lock;
    struct aicf__cuda_exec* probe;
    int n_caps;
    struct {
        int k, cap;
        unsigned threads, smem;
    } caps[32];
    char name[256];
    size_t total_memory;
    /* cuBLASLt (optional) */
    void* liblt;
    aicf__cublaslt_api lt;
    void* lt_handle;       /* cublasLtHandle_t, NULL when cuBLASLt is unavailable */
    size_t lt_version;
    char lt_path[512];     /* what was loaded */
    char lt_error[512];    /* why cuBLASLt is unavailable */
    int lt_warm[3];        /* cuBLASLt's first-use setup per float32 / TF32 / float16 query:
                              0 not made, 1 a helper is making it, 2 made (aicf__cuda_lt_hint) */
};

/* Plan-level backend data (p->backend). */
#define AICF__CUDA_SYNC_BYTES 256u /* the least sync-region allocation */

typedef struct aicf__cuda_plan_data {
    size_t workspace_bytes; /* largest cuBLASLt workspace any algorithm of the plan needs */
    int persistent;         /* persistent kernels (81_cuda_ops.c aicf__cuo_persist): the exec
                               allocates and zeroes their sync region */
    size_t sync_bytes;      /* their sync regions' extent (epoch words, hand-off buffers) */
} aicf__cuda_plan_data;

/* The cuBLASLt algorithm a plan recorded (the opaque *algo of aicf__cuda_matmul_plan). Plain
   data with no pointers: it may be copied bytewise (81_cuda_ops.c keeps a copy in its step
   block), saved and loaded; its allocation is sizeof rounded up to 16 bytes. */
typedef struct aicf__cuda_algo {
    aicf__cublasLtMatmulAlgo_t algo; /* the 8 x uint64 blob, heuristic result #0 */
    size_t workspace_bytes;
    size_t cublaslt_version;         /* cublasLtGetVersion() when recorded */
    unsigned align_a, align_b, align_c, align_d; /* pointer alignment (bytes) the search assumed */
    int n_results;                   /* heuristic results returned */
    int index;                       /* which of them `algo` is (0 = the first) */
} aicf__cuda_algo;

/* Per-exec state (e->backend). */
typedef struct aicf__cuda_exec {
    aicf__CUstream stream;
    int owns_stream;
    aicf__CUstream capture_stream; /* for cuBLASLt capture during the build; then destroyed */
    aicf__CUdeviceptr arena, weights, workspace;
    size_t arena_bytes, weights_bytes, workspace_bytes;
    aicf__CUdeviceptr sync;        /* plan data's sync_bytes (>= AICF__CUDA_SYNC_BYTES), zeroed: persistent kernels' epoch words, hand-off buffers */
    unsigned char* staging;        /* pinned host memory: inputs then outputs */
    size_t staging_bytes;
    size_t* in_off;                /* per input: offset in staging */
    size_t* out_off;
    aicf__CUmodule* modules;       /* AICF__KT_NUM_MODULES entries, NULL until loaded */
    aicf__CUfunction* functions;   /* AICF__KT_NUM_KERNELS entries, NULL until looked up */
    aicf__CUgraph graph;
    aicf__CUgraphExec graph_exec;
    int graph_nodes, kernel_nodes;
    int programmatic_edges; /* kernel -> kernel edges of type PROGRAMMATIC */
    int in_flight;                 /* launched and not yet waited for */
    aicf__CUevent* prof_ev;        /* AICF_EXEC_PROFILE: n_steps + 1 events, before step 0 and after each */
    int n_prof_ev;
} aicf__cuda_exec;

struct aicf__cuda_emitter {
    aicf_context* ctx;
    struct aicf__cuda* cu;
    aicf_plan* plan;
    aicf__cuda_exec* x;
    aicf__CUgraph graph;
    aicf__CUgraphNode last; /* the previous node: every new node depends on it */
    int has_last;
    int last_is_kernel;     /* last is a generated kernel's node (aicf__cuda_emit_kernel) */
    int pdl;                /* join consecutive generated kernels with programmatic edges */
    int step;               /* step being emitted, -1 outside steps (for messages) */
};

/* ---- errors ---- */
static void aicf__cu_names(const struct aicf__cuda* cu, aicf__CUresult r, const char** name, const char** str) {
    *name = NULL;
    *str = NULL;
    if (cu && cu->api.cuGetErrorName) cu->api.cuGetErrorName(r, name);
    if (cu && cu->api.cuGetErrorString) cu->api.cuGetErrorString(r, str);
    if (!*name) *name = "unknown CUresult";
    if (!*str) *str = "no description";
}

/* Records "<fn> failed: CUDA_ERROR_X (text)[: what]" and returns code (AICF_ERROR_CUDA unless
   given). */
static aicf_result aicf__cu_fail(aicf_context* ctx, const struct aicf__cuda* cu, aicf_result code,
                                 aicf__CUresult r, const char* fn, const char* what) {
    const char *name, *str;
    aicf__cu_names(cu, r, &name, &str);
    return aicf__err(ctx, code, "%s failed: %s (%s)%s%s", fn, name, str, what && what[0] ? ": " : "",
                     what ? what : "");
}

static const char* aicf__cublas_status_name(const struct aicf__cuda* cu, aicf__cublasStatus_t s, char* buf, size_t cap) {
    const char* n = cu->lt.cublasLtGetStatusName ? cu->lt.cublasLtGetStatusName(s) : NULL;
    if (n) return n;
    aicf__cu_fmt(buf, cap, "cublasStatus_t %d", s);
    return buf;
}

static aicf_result aicf__lt_fail(aicf_context* ctx, const struct aicf__cuda* cu, aicf__cublasStatus_t s,
                                 const char* fn, const char* what) {
    char buf[48];
    return aicf__err(ctx, AICF_ERROR_CUBLAS, "%s failed: %s%s%s", fn, aicf__cublas_status_name(cu, s, buf, sizeof buf),
                     what && what[0] ? ": " : "", what ? what : "");
}

/* ---- context current-ness ---- */
static aicf_result aicf__cuda_push(aicf_context* ctx, struct aicf__cuda* cu) {
    aicf__CUresult r = cu->api.cuCtxPushCurrent(cu->pctx);
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuCtxPushCurrent", "primary context");
    return AICF_SUCCESS;
}

static void aicf__cuda_pop(struct aicf__cuda* cu) {
    aicf__CUcontext c;
    cu->api.cuCtxPopCurrent(&c);
}

/* The per-replay form: pushes the primary context only when it is not current on this thread
   already (one cuCtxGetCurrent instead of a cuCtxPushCurrent/cuCtxPopCurrent pair per call).
   *pushed tells aicf__cuda_leave whether to pop. */
static aicf_result aicf__cuda_enter(aicf_context* ctx, struct aicf__cuda* cu, int* pushed) {
    aicf__CUcontext cur = NULL;
    aicf_result res;
    *pushed = 0;
    if (cu->api.cuCtxGetCurrent(&cur) == AICF__CUDA_SUCCESS && cur && cur == cu->pctx) return AICF_SUCCESS;
    res = aicf__cuda_push(ctx, cu);
    *pushed = res == AICF_SUCCESS;
    return res;
}

static void aicf__cuda_leave(struct aicf__cuda* cu, int pushed) {
    if (pushed) aicf__cuda_pop(cu);
}

/* ---- the image choice (pure: tested on the CPU) ---- */

/* Returns the index in images[0..n_images) of the image to load for `module` on a device of
   compute capability cc_major.cc_minor, or -1 if none fits:
     1. the cubin of exactly sm_XY (or sm_XYa, an architecture-specific one: wgmma, TMA);
     2. else the cubin of the same major with the highest minor below the device's (never an
        sm_XYa cubin: it runs on X.Y alone);
     3. else the PTX of the highest compute_XY not above the device's (driver JIT).
   allow_cubin = 0 skips 1 and 2 (used when the driver refused the chosen cubin). */
static int aicf__cuda_choose_image(int cc_major, int cc_minor, const aicf__kt_image* images, int n_images,
                                   int module, int allow_cubin) {
    int dev = cc_major * 10 + cc_minor;
    int i, best = -1;
    if (allow_cubin) {
        for (i = 0; i < n_images; ++i)
            if (images[i].module == module && images[i].is_ptx != 1 && images[i].sm == dev) return i;
        for (i = 0; i < n_images; ++i) {
            const aicf__kt_image* im = &images[i];
            if (im->module != module || im->is_ptx) continue;
            if (im->sm / 10 == cc_major && im->sm < dev && (best < 0 || im->sm > images[best].sm)) best = i;
        }
        if (best >= 0) return best;
    }
    for (i = 0; i < n_images; ++i) {
        const aicf__kt_image* im = &images[i];
        if (im->module != module || im->is_ptx != 1) continue;
        if (im->sm <= dev && (best < 0 || im->sm > images[best].sm)) best = i;
    }
    return best;
}

/* Writes the targets embedded for `module`, e.g. "sm_80 sm_86 sm_90 compute_90". */
static const char* aicf__cuda_targets_str(const aicf__kt_image* images, int n_images, int module, char* buf, size_t cap) {
    size_t len = 0;
    int i;
    if (cap == 0) return buf;
    buf[0] = '\0';
    for (i = 0; i < n_images; ++i) {
        int w;
        if (images[i].module != module) continue;
        w = snprintf(buf + len, cap - len, "%s%s_%d%s", len ? " " : "", images[i].is_ptx == 1 ? "compute" : "sm", images[i].sm,
                     images[i].is_ptx == 2 ? "a" : "");
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
    if (len == 0) aicf__cu_fmt(buf, cap, "(none)");
    return buf;
}

/* The message of a failed choice: "module 'm': device compute capability 7.5 has no kernel image:
   embedded targets sm_80 sm_90 compute_90". */
static aicf_result aicf__cuda_no_image(aicf_context* ctx, int cc_major, int cc_minor, const aicf__kt_image* images,
                                       int n_images, int module, const char* module_name) {
    char targets[512];
    aicf__cuda_targets_str(images, n_images, module, targets, sizeof targets);
    return aicf__err(ctx, AICF_ERROR_NO_KERNEL,
                     "module '%s': device compute capability %d.%d has no kernel image: embedded targets %s",
                     module_name ? module_name : "?", cc_major, cc_minor, targets);
}

int aicf__cuda_kernel_find(const char* name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < AICF__KT_NUM_KERNELS; ++i)
        if (aicf__kt_kernels[i].name && strcmp(aicf__kt_kernels[i].name, name) == 0) return i;
    return -1;
}

/* The table's identity for plan files (declared in >>internal). */
uint64_t aicf__cuda_table_fingerprint(const char** nvrtc, int* n_modules, int* n_kernels) {
    uint64_t h = aicf__fnv1a_str(aicf__fnv1a_str(AICF__FNV_BASIS, AICF__KT_NVRTC_VERSION), AICF__KT_TARGETS);
    int i;
    for (i = 0; i < AICF__KT_NUM_MODULES; ++i)
        h = aicf__fnv1a_str(aicf__fnv1a_str(h, aicf__kt_modules[i].name), aicf__kt_modules[i].source_hash);
    for (i = 0; i < AICF__KT_NUM_KERNELS; ++i) {
        const aicf__kt_kernel* k = &aicf__kt_kernels[i];
        int32_t v[2];
        v[0] = k->module;
        v[1] = (int32_t)k->block;
        h = aicf__fnv1a_str(aicf__fnv1a_str(aicf__fnv1a_str(aicf__fnv1a_str(h, k->name), k->op), k->dtype), k->params);
        h = aicf__fnv1a(h, v, sizeof v);
    }
    if (nvrtc) *nvrtc = AICF__KT_NVRTC_VERSION;
    if (n_modules) *n_modules = AICF__KT_NUM_MODULES;
    if (n_kernels) *n_kernels = AICF__KT_NUM_KERNELS;
    return h;
}

/* ---- initialisation ---- */
static aicf_result aicf__cuda_init_fail(struct aicf__cuda* cu, aicf_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static aicf_result aicf__cuda_init_fail(struct aicf__cuda* cu, aicf_result code, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cu->init_error, sizeof cu->init_error, fmt, ap);
    va_end(ap);
    cu->status = code;
    return code;
}

static aicf_result aicf__cuda_init_fail_cu(struct aicf__cuda* cu, aicf_result code, aicf__CUresult r, const char* fn,
                                           const char* what) {
    const char *name, *str;
    aicf__cu_names(cu, r, &name, &str);
    return aicf__cuda_init_fail(cu, code, "%s failed: %s (%s)%s%s", fn, name, str, what && what[0] ? ": " : "",
                                what ? what : "");
}

static void aicf__cuda_load_cublaslt(aicf_context* ctx, struct aicf__cuda* cu) {
    static const char* const defaults[] = {
#if defined(_WIN32)
        "cublasLt64_13.dll", "cublasLt64_12.dll",
#else
        "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
        "/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcublasLt.so.12",
#endif
    };
    char err[512], tried[512];
    size_t tlen = 0;
    int i, n = (int)(sizeof defaults / sizeof defaults[0]);
    void* h = NULL;
    void* sym;
    aicf__cublasStatus_t s;
    tried[0] = '\0';
    err[0] = '\0';
    if (ctx->cublaslt_path[0]) {
        h = aicf__cu_dl_open(ctx->cublaslt_path, err, sizeof err);
        if (h) aicf__cu_fmt(cu->lt_path, sizeof cu->lt_path, "%s", ctx->cublaslt_path);
        else aicf__cu_fmt(tried, sizeof tried, "%.250s (%.250s)", ctx->cublaslt_path, err);
    } else {
        for (i = 0; i < n && !h; ++i) {
            h = aicf__cu_dl_open(defaults[i], err, sizeof err);
            if (h) aicf__cu_fmt(cu->lt_path, sizeof cu->lt_path, "%s", defaults[i]);
            else if (tlen < sizeof tried) {
                int w = snprintf(tried + tlen, sizeof tried - tlen, "%s%s", tlen ? ", " : "", defaults[i]);
                if (w > 0) tlen += (size_t)w;
            }
        }
    }
    if (!h) {
        aicf__cu_fmt(cu->lt_error, sizeof cu->lt_error, "cuBLASLt not found (tried %.480s)", tried);
        return;
    }
    cu->liblt = h;
#define AICF__CUBLASLT_RESOLVE(ret, name, params)                                                 \
    sym = aicf__cu_dl_sym(h, #name);                                                                 \
    if (!sym) {                                                                                   \
        aicf__cu_fmt(cu->lt_error, sizeof cu->lt_error, "%.400s lacks %s", cu->lt_path, #name);           \
        goto fail;                                                                                \
    }                                                                                             \
    memcpy(&cu->lt.name, &sym, sizeof sym);
    AICF__CUBLASLT_API(AICF__CUBLASLT_RESOLVE)
#undef AICF__CUBLASLT_RESOLVE
    sym = aicf__cu_dl_sym(h, "cublasLtGetStatusName");
    if (sym) memcpy(&cu->lt.cublasLtGetStatusName, &sym, sizeof sym);
    cu->lt_version = cu->lt.cublasLtGetVersion();
    if (aicf__cuda_push(ctx, cu) != AICF_SUCCESS) {
        aicf__cu_fmt(cu->lt_error, sizeof cu->lt_error, "%.500s", AICF__ERRBUF(ctx));
        goto fail;
    }
    s = cu->lt.cublasLtCreate(&cu->lt_handle);
    aicf__cuda_pop(cu);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        char buf[48];
        aicf__cu_fmt(cu->lt_error, sizeof cu->lt_error, "%.400s: cublasLtCreate failed: %.60s", cu->lt_path,
                 aicf__cublas_status_name(cu, s, buf, sizeof buf));
        cu->lt_handle = NULL;
        goto fail;
    }
    return;
fail:
    aicf__cu_dl_close(cu->liblt);
    cu->liblt = NULL;
    cu->lt_handle = NULL;
    cu->lt_version = 0;
    memset(&cu->lt, 0, sizeof cu->lt);
}

static void aicf__cuda_exec_free(aicf_context* ctx, struct aicf__cuda* cu, struct aicf__cuda_exec* x);

/* Releases what a (possibly partial) initialisation made; keeps init_error and status. */
static void aicf__cuda_release(aicf_context* ctx, struct aicf__cuda* cu) {
    if (cu->probe && cu->pctx_retained && aicf__cuda_push(ctx, cu) == AICF_SUCCESS) {
        aicf__cuda_exec_free(ctx, cu, cu->probe);
        aicf__cuda_pop(cu);
    }
    cu->probe = NULL;
    if (cu->lt_handle && cu->pctx_retained && aicf__cuda_push(ctx, cu) == AICF_SUCCESS) {
        cu->lt.cublasLtDestroy(cu->lt_handle);
        aicf__cuda_pop(cu);
    }
    cu->lt_handle = NULL;
    aicf__cu_dl_close(cu->liblt);
    cu->liblt = NULL;
    if (cu->pctx_retained) cu->api.cuDevicePrimaryCtxRelease(cu->device);
    cu->pctx_retained = 0;
    aicf__cu_dl_close(cu->libcuda);
    cu->libcuda = NULL;
    memset(&cu->api, 0, sizeof cu->api);
    memset(&cu->lt, 0, sizeof cu->lt);
    cu->ready = 0;
}

/* An optional driver entry point of ABI `version` through cuGetProcAddress(_v2); NULL if the
   driver lacks it. */
static void* aicf__cuda_optional_proc(aicf__PFN_cuGetProcAddress_v2 gpa2, aicf__PFN_cuGetProcAddress gpa1, const char* name,
                                      int version) {
    void* p = NULL;
    aicf__CUdriverProcAddressQueryResult q = 0;
    aicf__CUresult r = gpa2 ? gpa2(name, &p, version, AICF__CU_GET_PROC_ADDRESS_DEFAULT, &q)
                            : gpa1(name, &p, version, AICF__CU_GET_PROC_ADDRESS_DEFAULT);
    return r == AICF__CUDA_SUCCESS ? p : NULL;
}

static aicf_result aicf__cuda_load(aicf_context* ctx, struct aicf__cuda* cu) {
    const char* path = ctx->driver_path[0] ? ctx->driver_path : "libcuda.so.1";
    char err[512];
    void* sym;
    aicf__PFN_cuGetProcAddress_v2 gpa2 = NULL;
    aicf__PFN_cuGetProcAddress gpa1 = NULL;
    aicf__CUresult r;
    int count = 0, v = 0;
#if defined(_WIN32)
    if (strcmp(path, "libcuda.so.1") == 0) path = "nvcuda.dll";
#endif
    cu->libcuda = aicf__cu_dl_open(path, err, sizeof err);
    if (!cu->libcuda) return aicf__cuda_init_fail(cu, AICF_ERROR_NO_DEVICE, "CUDA driver %s not found (dlopen: %s)", path, err);
    sym = aicf__cu_dl_sym(cu->libcuda, "cuGetProcAddress_v2");
    if (sym) memcpy(&gpa2, &sym, sizeof sym);
    else {
        sym = aicf__cu_dl_sym(cu->libcuda, "cuGetProcAddress");
        if (sym) memcpy(&gpa1, &sym, sizeof sym);
    }
    if (!gpa2 && !gpa1)
        return aicf__cuda_init_fail(cu, AICF_ERROR_NO_DEVICE,
                                    "CUDA driver %s exports neither cuGetProcAddress_v2 nor cuGetProcAddress (driver older than CUDA 11.3)",
                                    path);
#define AICF__CUDA_RESOLVE(name, version, params)                                                 \
    {                                                                                             \
        void* p_ = NULL;                                                                          \
        aicf__CUdriverProcAddressQueryResult q_ = 0;                                              \
        r = gpa2 ? gpa2(#name, &p_, version, AICF__CU_GET_PROC_ADDRESS_DEFAULT, &q_)              \
                 : gpa1(#name, &p_, version, AICF__CU_GET_PROC_ADDRESS_DEFAULT);                  \
        if (r != AICF__CUDA_SUCCESS || !p_)                                                       \
            return aicf__cuda_init_fail(cu, AICF_ERROR_NO_DEVICE,                                 \
                                        "CUDA driver %s lacks %s (ABI of CUDA %d.%d; cuGetProcAddress returned %d, status %d)", \
                                        path, #name, (version) / 1000, ((version) % 1000) / 10, r, q_); \
        memcpy(&cu->api.name, &p_, sizeof p_);                                                    \
    }
    AICF__CUDA_API(AICF__CUDA_RESOLVE)
#undef AICF__CUDA_RESOLVE
    { /* optional entry points: NULL when the driver lacks them */
        void* p_ = aicf__cuda_optional_proc(gpa2, gpa1, "cuGraphAddDependencies", 12030); /* edges with data (PDL) */
        memcpy(&cu->add_deps_v12030, &p_, sizeof p_);
        p_ = aicf__cuda_optional_proc(gpa2, gpa1, "cuTensorMapEncodeTiled", 12000); /* TMA tensor maps (the Hopper GEMM) */
        memcpy(&cu->tmap_encode, &p_, sizeof p_);
        p_ = aicf__cuda_optional_proc(gpa2, gpa1, "cuOccupancyMaxActiveClusters", 11070); /* clusters co-resident */
        memcpy(&cu->occ_clusters, &p_, sizeof p_);
    }
    r = cu->api.cuInit(0);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_NO_DEVICE, r, "cuInit", path);
    r = cu->api.cuDriverGetVersion(&v);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_CUDA, r, "cuDriverGetVersion", NULL);
    cu->driver_version = v;
    r = cu->api.cuDeviceGetCount(&count);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_NO_DEVICE, r, "cuDeviceGetCount", NULL);
    if (count <= 0) return aicf__cuda_init_fail(cu, AICF_ERROR_NO_DEVICE, "no CUDA device (cuDeviceGetCount returned 0)");
    if (ctx->device_ordinal < 0 || ctx->device_ordinal >= count)
        return aicf__cuda_init_fail(cu, AICF_ERROR_NO_DEVICE, "device_ordinal %d out of range: %d CUDA device(s)",
                                    ctx->device_ordinal, count);
    r = cu->api.cuDeviceGet(&cu->device, ctx->device_ordinal);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_NO_DEVICE, r, "cuDeviceGet", NULL);
    r = cu->api.cuDeviceGetAttribute(&cu->cc_major, AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu->device);
    if (r == AICF__CUDA_SUCCESS)
        r = cu->api.cuDeviceGetAttribute(&cu->cc_minor, AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu->device);
    if (r == AICF__CUDA_SUCCESS)
        r = cu->api.cuDeviceGetAttribute(&cu->sm_count, AICF__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu->device);
    if (r == AICF__CUDA_SUCCESS)
        r = cu->api.cuDeviceGetAttribute(&cu->max_smem_optin, AICF__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                         cu->device);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_CUDA, r, "cuDeviceGetAttribute", NULL);
    cu->pdl = cu->add_deps_v12030 != NULL && cu->cc_major >= 9;
    r = cu->api.cuDeviceGetName(cu->name, (int)sizeof cu->name, cu->device);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_CUDA, r, "cuDeviceGetName", NULL);
    cu->name[sizeof cu->name - 1] = '\0';
    r = cu->api.cuDeviceTotalMem(&cu->total_memory, cu->device);
    if (r != AICF__CUDA_SUCCESS) return aicf__cuda_init_fail_cu(cu, AICF_ERROR_CUDA, r, "cuDeviceTotalMem", NULL);
    r = cu->api.cuDevicePrimaryCtxRetain(&cu->pctx, cu->device);
    if (r != AICF__CUDA_SUCCESS)
        return aicf__cuda_init_fail_cu(cu, AICF_ERROR_NO_DEVICE, r, "cuDevicePrimaryCtxRetain", cu->name);
    cu->pctx_retained = 1;
    aicf__cuda_load_cublaslt(ctx, cu);
    cu->ready = 1;
    cu->status = AICF_SUCCESS;
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_init(aicf_context* ctx) {
    struct aicf__cuda* cu;
    aicf_result r;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (ctx->flags & AICF_CONTEXT_NO_CUDA)
        return aicf__err(ctx, AICF_ERROR_NO_DEVICE, "CUDA disabled by AICF_CONTEXT_NO_CUDA");
    /* cuda_tried: 0 = never, 1 = being loaded by some thread, 2 = done (cuda_status holds the result) */
    if (!AICF__CAS_INT(&ctx->cuda_tried, 0, 1)) {
        while (AICF__LOAD_INT(&ctx->cuda_tried) != 2) aicf__cu_yield();
        if (ctx->cuda_status == AICF_SUCCESS) return AICF_SUCCESS;
        if (ctx->cuda) return aicf__err(ctx, ctx->cuda_status, "%s", ctx->cuda->init_error);
        return aicf__err(ctx, ctx->cuda_status, "CUDA initialisation failed earlier: %s", aicf_result_str(ctx->cuda_status));
    }
    cu = (struct aicf__cuda*)aicf__calloc(ctx, 1, sizeof *cu);
    if (!cu) {
        ctx->cuda_status = AICF_ERROR_OUT_OF_MEMORY;
        AICF__STORE_INT(&ctx->cuda_tried, 2);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "out of memory initialising CUDA");
    }
    r = aicf__cuda_load(ctx, cu);
    if (r != AICF_SUCCESS) {
        /* keep cu (ready == 0) for its message; release what was made */
        aicf__cuda_release(ctx, cu);
        cu->status = r;
    }
    ctx->cuda = cu;
    ctx->cuda_status = r;
    AICF__STORE_INT(&ctx->cuda_tried, 2);
    if (r != AICF_SUCCESS) return aicf__err(ctx, r, "%s", cu->init_error);
    return AICF_SUCCESS;
}

void aicf__cuda_shutdown(aicf_context* ctx) {
    if (!ctx || !ctx->cuda) return;
    aicf__cuda_release(ctx, ctx->cuda);
    aicf__free(ctx, ctx->cuda);
    ctx->cuda = NULL;
    ctx->cuda_tried = 0;
    ctx->cuda_status = AICF_SUCCESS;
}

/* The ready CUDA state of a context, or NULL with an error recorded. */
static struct aicf__cuda* aicf__cuda_ready(aicf_context* ctx, aicf_result* res) {
    *res = aicf__cuda_init(ctx);
    if (*res != AICF_SUCCESS) return NULL;
    if (!ctx->cuda || !ctx->cuda->ready) {
        *res = aicf__err(ctx, AICF_ERROR_NO_DEVICE, "CUDA is not initialised");
        return NULL;
    }
    return ctx->cuda;
}

aicf_result aicf__cuda_device_info(aicf_context* ctx, aicf_device_info* out) {
    struct aicf__cuda* cu;
    aicf_result r;
    if (!ctx || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    cu = aicf__cuda_ready(ctx, &r);
    if (!cu) return r;
    out->cuda_available = 1;
    aicf__cu_fmt(out->name, sizeof out->name, "%s", cu->name);
    out->cc_major = cu->cc_major;
    out->cc_minor = cu->cc_minor;
    out->total_memory = (uint64_t)cu->total_memory;
    out->driver_version = cu->driver_version;
    out->cublaslt_available = cu->lt_handle ? 1 : 0;
    out->cublaslt_version = cu->lt_handle ? cu->lt_version : 0;
    return AICF_SUCCESS;
}

/* ---- plan ---- */
aicf_result aicf__cuda_plan(aicf_plan* p) {
    struct aicf__cuda* cu;
    aicf__cuda_plan_data* pd;
    aicf_result r;
    int si;
    if (!p || !p->ctx) return AICF_ERROR_INVALID_ARGUMENT;
    cu = aicf__cuda_ready(p->ctx, &r);
    if (!cu) return r;
    if (!p->backend) {
        pd = (aicf__cuda_plan_data*)aicf__calloc(p->ctx, 1, sizeof *pd);
        if (!pd) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
        p->backend = pd;
    }
    if (p->g && p->loc)
        for (si = 0; si < p->g->n_tensors; ++si) p->loc[si].chunk = 0; /* the lowerings below set what they use */
    for (si = 0; si < p->n_steps; ++si) {
        r = aicf__cuda_select_step(p, si);
        if (r != AICF_SUCCESS) return r;
    }
    r = aicf__cuda_persist(p, &((aicf__cuda_plan_data*)p->backend)->persistent, &((aicf__cuda_plan_data*)p->backend)->sync_bytes);
    if (r != AICF_SUCCESS) return r;
    aicf__cuda_pdl(p, cu->cc_major);
    for (si = 0; si < p->n_steps; ++si) {
        aicf__step* st = &p->steps[si];
        if (st->kernel_index >= AICF__KT_NUM_KERNELS)
            return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "step %d: kernel_index %d out of range (%d kernels)", si,
                             st->kernel_index, AICF__KT_NUM_KERNELS);
        if (st->kernel_index >= 0) {
            int m = aicf__kt_kernels[st->kernel_index].module;
            if (aicf__cuda_choose_image(cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, m, 1) < 0) {
                const aicf__node* n = (p->g && st->node >= 0 && st->node < p->g->n_nodes) ? &p->g->nodes[st->node] : NULL;
                char msg[AICF__ERR_CAP];
                aicf__cuda_no_image(p->ctx, cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, m,
                                    aicf__kt_modules[m].name);
                aicf__cu_fmt(msg, sizeof msg, "%s", AICF__ERRBUF(p->ctx));
                return aicf__err(p->ctx, AICF_ERROR_NO_KERNEL, "node %d '%s' (%s): kernel %s: %s", st->node,
                                 n && n->name ? n->name : "", n && n->op_type ? n->op_type : "step",
                                 aicf__kt_kernels[st->kernel_index].name, msg);
            }
        }
    }
    return AICF_SUCCESS;
}

void aicf__cuda_plan_free(aicf_plan* p) {
    int si;
    if (!p) return;
    for (si = 0; si < p->n_steps; ++si) {
        aicf__free(p->ctx, p->steps[si].backend);
        p->steps[si].backend = NULL;
    }
    aicf__free(p->ctx, p->backend);
    p->backend = NULL;
}

/* ---- cuBLASLt ---- */
#define AICF__CUDA_DEFAULT_WORKSPACE ((size_t)32 << 20)

/* Largest power of two <= 256 dividing `bytes` (256 for 0). */
static unsigned aicf__cu_align_of(uint64_t bytes) {
    unsigned a = 256;
    if (bytes == 0) return a;
    while (a > 1 && (bytes % a) != 0) a >>= 1;
    return a;
}

static aicf_result aicf__cu_matmul_check(aicf_context* ctx, const aicf__matmul_desc* d, const char* who) {
    int64_t rows_a, cols_a, rows_b, cols_b;
    if (d->dtype != AICF_DTYPE_FLOAT32 && d->dtype != AICF_DTYPE_FLOAT16)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: dtype %s not supported by the cuBLASLt path", who,
                         aicf_dtype_name(d->dtype));
    if (d->act < 0 || d->act > AICF__MM_ACT_GELU_TANH)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: activation code %d (0 none, 1 ReLU, 2 GELU tanh form)", who, d->act);
    if (d->out_f32 && (d->dtype != AICF_DTYPE_FLOAT16 || d->bias || d->act))
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: a float32 product needs float16 operands and no bias or activation epilogue", who);
    if (d->M <= 0 || d->N <= 0 || d->K <= 0 || d->batch <= 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: M=%lld N=%lld K=%lld batch=%lld must be positive", who,
                         (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch);
    rows_a = d->trans_a ? d->K : d->M; /* stored row-major */
    cols_a = d->trans_a ? d->M : d->K;
    rows_b = d->trans_b ? d->N : d->K;
    cols_b = d->trans_b ? d->K : d->N;
    (void)rows_a;
    (void)rows_b;
    if (d->lda < cols_a || d->ldb < cols_b || d->ldc < d->N)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "%s: leading dimensions lda=%lld ldb=%lld ldc=%lld smaller than rows of %lld, %lld, %lld elements", who,
                         (long long)d->lda, (long long)d->ldb, (long long)d->ldc, (long long)cols_a, (long long)cols_b,
                         (long long)d->N);
    if (d->stride_a < 0 || d->stride_b < 0 || d->stride_c < 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: negative batch stride", who);
    return AICF_SUCCESS;
}

/* The cuBLASLt objects of one matmul (column-major view: D^T = op(B)^T op(A)^T). */
typedef struct aicf__lt_objs {
    void* desc;
    void* la; /* cuBLASLt's A = our B */
    void* lb; /* cuBLASLt's B = our A */
    void* lc;
    void* ld;
} aicf__lt_objs;

static void aicf__lt_objs_free(struct aicf__cuda* cu, aicf__lt_objs* o) {
    if (o->desc) cu->lt.cublasLtMatmulDescDestroy(o->desc);
    if (o->la) cu->lt.cublasLtMatrixLayoutDestroy(o->la);
    if (o->lb) cu->lt.cublasLtMatrixLayoutDestroy(o->lb);
    if (o->lc) cu->lt.cublasLtMatrixLayoutDestroy(o->lc);
    if (o->ld) cu->lt.cublasLtMatrixLayoutDestroy(o->ld);
    memset(o, 0, sizeof *o);
}

static aicf_result aicf__lt_layout(aicf_context* ctx, struct aicf__cuda* cu, void** out, int dtype, int64_t rows,
                                   int64_t cols, int64_t ld, int64_t batch, int64_t stride, const char* which) {
    aicf__cublasStatus_t s = cu->lt.cublasLtMatrixLayoutCreate(out, dtype, (uint64_t)rows, (uint64_t)cols, ld);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        *out = NULL;
        return aicf__lt_fail(ctx, cu, s, "cublasLtMatrixLayoutCreate", which);
    }
    if (batch > 1) {
        int32_t b = (int32_t)batch;
        s = cu->lt.cublasLtMatrixLayoutSetAttribute(*out, AICF__CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b);
        if (s == AICF__CUBLAS_STATUS_SUCCESS)
            s = cu->lt.cublasLtMatrixLayoutSetAttribute(*out, AICF__CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                        sizeof stride);
        if (s != AICF__CUBLAS_STATUS_SUCCESS) return aicf__lt_fail(ctx, cu, s, "cublasLtMatrixLayoutSetAttribute", which);
    }
    return AICF_SUCCESS;
}

/* Batch stride of D: stride_c when C is strided, else M * ldc (D never broadcasts). */
static int64_t aicf__cu_matmul_stride_d(const aicf__matmul_desc* d) {
    return d->stride_c ? d->stride_c : d->M * d->ldc;
}

static aicf_result aicf__lt_build(aicf_context* ctx, struct aicf__cuda* cu, const aicf__matmul_desc* d, aicf__lt_objs* o) {
    int dt = d->dtype == AICF_DTYPE_FLOAT16 ? AICF__CUDA_R_16F : AICF__CUDA_R_32F;
    int dto = d->out_f32 ? AICF__CUDA_R_32F : dt; /* C and D */
    int compute = (d->dtype == AICF_DTYPE_FLOAT32 && d->tf32) ? AICF__CUBLAS_COMPUTE_32F_FAST_TF32 : AICF__CUBLAS_COMPUTE_32F;
    int32_t ta = d->trans_b ? AICF__CUBLAS_OP_T : AICF__CUBLAS_OP_N; /* cuBLASLt's A is our B */
    int32_t tb = d->trans_a ? AICF__CUBLAS_OP_T : AICF__CUBLAS_OP_N;
    uint32_t epi = AICF__CUBLASLT_EPILOGUE_DEFAULT;
    aicf__cublasStatus_t s;
    aicf_result r;
    memset(o, 0, sizeof *o);
    if (d->act == AICF__MM_ACT_RELU) epi = d->bias ? AICF__CUBLASLT_EPILOGUE_RELU_BIAS : AICF__CUBLASLT_EPILOGUE_RELU;
    else if (d->act == AICF__MM_ACT_GELU_TANH) epi = d->bias ? AICF__CUBLASLT_EPILOGUE_GELU_BIAS : AICF__CUBLASLT_EPILOGUE_GELU;
    else if (d->bias) epi = AICF__CUBLASLT_EPILOGUE_BIAS;
    s = cu->lt.cublasLtMatmulDescCreate(&o->desc, compute, AICF__CUDA_R_32F);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        o->desc = NULL;
        return aicf__lt_fail(ctx, cu, s, "cublasLtMatmulDescCreate", NULL);
    }
    s = cu->lt.cublasLtMatmulDescSetAttribute(o->desc, AICF__CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulDescSetAttribute(o->desc, AICF__CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s == AICF__CUBLAS_STATUS_SUCCESS && epi != AICF__CUBLASLT_EPILOGUE_DEFAULT)
        s = cu->lt.cublasLtMatmulDescSetAttribute(o->desc, AICF__CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
    if (s == AICF__CUBLAS_STATUS_SUCCESS && d->bias) {
        int32_t bt = dt;
        s = cu->lt.cublasLtMatmulDescSetAttribute(o->desc, AICF__CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt);
        if (s == AICF__CUBLAS_STATUS_SUCCESS && d->bias_ptr) {
            void* bp = (void*)(uintptr_t)d->bias_ptr;
            s = cu->lt.cublasLtMatmulDescSetAttribute(o->desc, AICF__CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp);
        }
    }
    if (s != AICF__CUBLAS_STATUS_SUCCESS) return aicf__lt_fail(ctx, cu, s, "cublasLtMatmulDescSetAttribute", NULL);
    /* column-major: our row-major X[r, c] (ld) is X^T[c, r] with the same ld */
    r = aicf__lt_layout(ctx, cu, &o->la, dt, d->trans_b ? d->K : d->N, d->trans_b ? d->N : d->K, d->ldb, d->batch,
                        d->stride_b, "B");
    if (r == AICF_SUCCESS)
        r = aicf__lt_layout(ctx, cu, &o->lb, dt, d->trans_a ? d->M : d->K, d->trans_a ? d->K : d->M, d->lda, d->batch,
                            d->stride_a, "A");
    if (r == AICF_SUCCESS) r = aicf__lt_layout(ctx, cu, &o->lc, dto, d->N, d->M, d->ldc, d->batch, d->stride_c, "C");
    if (r == AICF_SUCCESS)
        r = aicf__lt_layout(ctx, cu, &o->ld, dto, d->N, d->M, d->ldc, d->batch, aicf__cu_matmul_stride_d(d), "D");
    return r;
}

/* Alignment (bytes) the algorithm may assume for one operand: 256 for the planner's arena and
   weights offsets, narrowed by the batch stride and, when nonzero at plan time, by the operand's
   address field taken as a byte offset. */
static unsigned aicf__cu_operand_align(uint64_t addr, int64_t stride, int64_t batch, size_t esize) {
    unsigned a = aicf__cu_align_of(addr);
    if (batch > 1) {
        unsigned s = aicf__cu_align_of((uint64_t)stride * (uint64_t)esize);
        if (s < a) a = s;
    }
    return a;
}

/* aicf_plan_load (>>plan_io): the plan file's algorithm for descriptor d. Returns 0 when the
   file recorded none for d, 1 with res[0] and *nres set when it did and cuBLASLt accepts it
   (same cuBLASLt version and alignments, workspace within the limit,
   cublasLtMatmulAlgoCheck succeeds for this descriptor), -1 when it is refused: the reason is
   kept in the record for the loader's message and recorded as the error. */
static int aicf__cu_saved_algo(aicf_context* ctx, struct aicf__cuda* cu, aicf_plan* p, int si, const aicf__matmul_desc* d,
                               const aicf__lt_objs* o, const unsigned al[4], uint64_t ws_limit,
                               aicf__cublasLtMatmulHeuristicResult_t* res, int* nres, int* index) {
    aicf__saved_algo* sa = NULL;
    aicf__cublasLtMatmulHeuristicResult_t chk;
    aicf__cublasStatus_t s;
    char buf[48];
    int i;
    for (i = 0; i < p->saved_algos->n && !sa; i++)
        if (p->saved_algos->v[i].step == si && memcmp(&p->saved_algos->v[i].desc, d, sizeof *d) == 0) sa = &p->saved_algos->v[i];
    if (!sa) return 0;
    if (sa->rec.cublaslt_version != (uint64_t)cu->lt_version)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "it was recorded with cuBLASLt %llu, loaded is %llu",
                     (unsigned long long)sa->rec.cublaslt_version, (unsigned long long)cu->lt_version);
    else if (memcmp(sa->rec.align, al, sizeof sa->rec.align) != 0)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "it assumes operand alignments %u/%u/%u/%u B, this plan gives %u/%u/%u/%u B",
                     sa->rec.align[0], sa->rec.align[1], sa->rec.align[2], sa->rec.align[3], al[0], al[1], al[2], al[3]);
    else if (sa->rec.workspace_bytes > ws_limit)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "it needs %llu B of workspace, the policy allows %llu B",
                     (unsigned long long)sa->rec.workspace_bytes, (unsigned long long)ws_limit);
    else if (sa->rec.n_results < 1 || sa->rec.n_results > 8 || sa->rec.index < 0 || sa->rec.index >= sa->rec.n_results)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "heuristic result %d of %d is not within 1..8 results", sa->rec.index,
                     sa->rec.n_results);
    if (sa->refused[0]) goto refused;
    memset(res, 0, sizeof *res);
    memset(&chk, 0, sizeof chk);
    memcpy(res->algo.data, sa->rec.blob, sizeof res->algo.data);
    s = cu->lt.cublasLtMatmulAlgoCheck(cu->lt_handle, o->desc, o->la, o->lb, o->lc, o->ld, &res->algo, &chk);
    if (s != AICF__CUBLAS_STATUS_SUCCESS)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "cublasLtMatmulAlgoCheck refuses it: %s",
                     aicf__cublas_status_name(cu, s, buf, sizeof buf));
    else if ((uint64_t)chk.workspaceSize > sa->rec.workspace_bytes)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "cublasLtMatmulAlgoCheck says it needs %llu B of workspace, the file records %llu B",
                     (unsigned long long)chk.workspaceSize, (unsigned long long)sa->rec.workspace_bytes);
    if (sa->refused[0]) goto refused;
    res->workspaceSize = (size_t)sa->rec.workspace_bytes;
    *nres = sa->rec.n_results;
    *index = sa->rec.index;
    sa->used++;
    return 1;
refused:
    aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "matmul M=%lld N=%lld K=%lld batch=%lld: the plan file's cuBLASLt algorithm (line %d) is refused: %s",
              (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch, sa->line, sa->refused);
    return -1;
}

/* cuBLASLt's heuristic answer depends only on the query: the descriptor without its addresses,
   the operands' alignments and the workspace limit. A plan asks once per distinct query and keeps
   the answers while it plans (p->lt_cache; freed when aicf__plan_create_ex ends): the 53
   convolutions of light_resnet50 at float32 are 20 distinct GEMMs (H100, CUDA 13, first plan of
   a process: 83-114 ms of queries -> 70-72 ms; most of the rest is cuBLASLt's one-time setup
   inside its first queries, as the next plan's 20 queries take 0.6-1.1 ms: docs/benchmarks.md).
   Autotuning's re-plan and its candidates ask again for free. */
typedef struct aicf__lt_answer {
    aicf__matmul_desc key; /* addresses zero */
    unsigned al[4];
    uint64_t ws_limit;
    aicf__cublasLtMatmulHeuristicResult_t res[8];
    int nres;
} aicf__lt_answer;

/* The query's key: the descriptor with its address fields zeroed (at plan time they hold byte
   offsets, whose only effect, the alignment, is part of the key apart). Descriptors are made
   zeroed (memset) before their fields are set, so whole structs compare with memcmp, and a field
   added to aicf__matmul_desc joins the key by itself. */
static aicf__matmul_desc aicf__lt_key(const aicf__matmul_desc* d) {
    aicf__matmul_desc k = *d;
    k.a = k.b = k.c = k.d = k.bias_ptr = 0;
    return k;
}

/* Tests only (tests/test_fusion.c): 1 asks cuBLASLt every time, to compare the plans. */
static int aicf__lt_cache_off = 0;

static const aicf__lt_answer* aicf__lt_asked(const aicf_plan* p, const aicf__matmul_desc* key, const unsigned* al, uint64_t ws) {
    const aicf__lt_answer* v = (const aicf__lt_answer*)p->lt_cache;
    int i;
    for (i = 0; !aicf__lt_cache_off && i < p->lt_cache_n; i++)
        if (memcmp(&v[i].key, key, sizeof *key) == 0 && memcmp(v[i].al, al, sizeof v[i].al) == 0 && v[i].ws_limit == ws) return &v[i];
    return NULL;
}

/* Keeps an answer; out of memory only loses the saving. */
static void aicf__lt_remember(aicf_plan* p, const aicf__matmul_desc* key, const unsigned* al, uint64_t ws,
                              const aicf__cublasLtMatmulHeuristicResult_t* res, int nres) {
    aicf__lt_answer* a;
    if (p->lt_cache_n == p->lt_cache_cap) {
        int cap = p->lt_cache_cap ? 2 * p->lt_cache_cap : 16;
        void* nv = aicf__realloc(p->ctx, p->lt_cache, (size_t)p->lt_cache_cap * sizeof(aicf__lt_answer), (size_t)cap * sizeof(aicf__lt_answer));
        if (!nv) return;
        p->lt_cache = nv;
        p->lt_cache_cap = cap;
    }
    a = &((aicf__lt_answer*)p->lt_cache)[p->lt_cache_n++];
    memset(a, 0, sizeof *a);
    a->key = *key;
    memcpy(a->al, al, sizeof a->al);
    a->ws_limit = ws;
    memcpy(a->res, res, sizeof a->res);
    a->nres = nres;
}

/* One heuristic query: a preference with the workspace limit and the operands' alignments
   (al[] in our roles: A, B, C, D; cuBLASLt's A is our B), up to 8 results into res[]. On a
   failure before the query, *failed names the cuBLASLt call (the query's own status is returned
   with *failed NULL). */
static aicf__cublasStatus_t aicf__lt_ask(struct aicf__cuda* cu, const aicf__lt_objs* o, const unsigned* al, uint64_t ws_limit,
                                         aicf__cublasLtMatmulHeuristicResult_t* res, int* nres, const char** failed) {
    void* pref = NULL;
    aicf__cublasStatus_t s;
    *nres = 0;
    *failed = NULL;
    s = cu->lt.cublasLtMatmulPreferenceCreate(&pref);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        *failed = "cublasLtMatmulPreferenceCreate";
        return s;
    }
    s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_limit, sizeof ws_limit);
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al[1], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al[0], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al[2], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al[3], sizeof(uint32_t));
    if (s != AICF__CUBLAS_STATUS_SUCCESS) *failed = "cublasLtMatmulPreferenceSetAttribute";
    else s = cu->lt.cublasLtMatmulAlgoGetHeuristic(cu->lt_handle, o->desc, o->la, o->lb, o->lc, o->ld, pref, 8, res, nres);
    cu->lt.cublasLtMatmulPreferenceDestroy(pref);
    return s;
}

/* ---- cuBLASLt's first-use setup, overlapped with shape inference and folding ----
   The first heuristic query of a process for a storage type costs cuBLASLt's own setup, about
   90-110 ms of host time on an H100 machine with CUDA 13 (the next queries, of any shape, take
   0.03-0.1 ms: docs/benchmarks.md), which was half of planning light_resnet50 at float32. It
   is host work that depends on nothing the plan computes, so the plan starts it early: at the
   first node that will likely ask cuBLASLt (aicf__cuda_lt_likely, 82_cuda_conv.c), judged by
   the plan's first look at the graph (70_plan.c, before shape inference) or, failing that, by
   shape inference as it reaches the node, a helper thread makes one query of a 512 x 512 x 512
   GEMM with a bias epilogue at the plan's storage type and compute mode, while this thread goes
   on folding; the plan waits for the helper before its own first query (aicf__cuda_lt_join) and
   in every case before aicf_plan_create returns, so no thread outlives the call. Once per
   context and type (cu->lt_warm[]); off with AICF_CONTEXT_NO_THREADS, where the build has no
   threads (AICF_NO_THREADS, or no thread-local storage, which keeps error messages apart) and
   when the thread cannot be started. A wrong guess costs at most the setup's time, which the
   plan's first query would have paid anyway had it come. Nothing of the helper's query enters
   the plan: answers depend on the query alone. */
/* The least host work (bytes of constants to copy and fold) worth a helper: with less there is
   nothing to overlap, and the plan's own first query after the helper's may still cost 13-57 ms
   for an odd shape (an H100 machine, CUDA 13: a [1 x 256] x [256 x 10] float32 query 64-116 ms
   alone, 13-16 ms after a 512^3 one; a 3136 x 256 x 576 one 0.6-0.8 ms after it). */
#define AICF__LT_WARM_MIN_BYTES (16.0 * 1024.0 * 1024.0)
/* Tests only (tests/test_fusion.c): the threshold in use. */
static double aicf__lt_warm_min_bytes = AICF__LT_WARM_MIN_BYTES;
#if !defined(AICF_NO_THREADS) && defined(AICF__TLS) && (defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER))
#  define AICF__THREADS 1
#  if !defined(_WIN32)
#    include <pthread.h>
#  endif
#endif

struct aicf__lt_warm {
    aicf_context* ctx;
    struct aicf__cuda* cu;
    int kind;         /* index into cu->lt_warm: 0 float32, 1 TF32, 2 float16 */
    uint64_t ws_limit;
    double ms;        /* the query's host time, helper side */
#if defined(AICF__THREADS)
#  if defined(_WIN32)
    HANDLE th;
#  else
    pthread_t th;
#  endif
#endif
};

#if defined(AICF__THREADS)
static void aicf__lt_warm_run(struct aicf__lt_warm* w) {
    struct aicf__cuda* cu = w->cu;
    aicf__matmul_desc d;
    aicf__lt_objs o;
    aicf__cublasLtMatmulHeuristicResult_t res[8];
    unsigned al[4] = {256u, 256u, 256u, 256u};
    const char* fn = NULL;
    int nres = 0;
    double t0 = aicf__now_us();
    memset(&d, 0, sizeof d);
    d.M = d.N = d.K = 512;
    d.lda = d.ldb = d.ldc = 512;
    d.batch = 1;
    d.alpha = 1.0f;
    d.dtype = w->kind == 2 ? AICF_DTYPE_FLOAT16 : AICF_DTYPE_FLOAT32;
    d.tf32 = w->kind == 1;
    d.bias = 1;
    /* messages this thread's failures write stay in its own thread-local slots */
    if (aicf__cuda_push(w->ctx, cu) == AICF_SUCCESS) {
        if (aicf__lt_build(w->ctx, cu, &d, &o) == AICF_SUCCESS) (void)aicf__lt_ask(cu, &o, al, w->ws_limit, res, &nres, &fn);
        aicf__lt_objs_free(cu, &o);
        aicf__cuda_pop(cu);
    }
    w->ms = (aicf__now_us() - t0) * 1e-3;
    AICF__STORE_INT(&cu->lt_warm[w->kind], 2);
}
#  if defined(_WIN32)
static DWORD WINAPI aicf__lt_warm_main(LPVOID arg) {
    aicf__lt_warm_run((struct aicf__lt_warm*)arg);
    return 0;
}
#  else
static void* aicf__lt_warm_main(void* arg) {
    aicf__lt_warm_run((struct aicf__lt_warm*)arg);
    return NULL;
}
#  endif
#endif

void aicf__cuda_lt_hint(aicf_plan* p, const aicf_graph* g, int node) {
#if defined(AICF__THREADS)
    struct aicf__cuda* cu;
    struct aicf__lt_warm* w;
    int kind, ok;
    if (p->lt_warm || p->lt_warm_decided || p->target != AICF_BACKEND_CUDA) return;
    cu = p->ctx->cuda;
    if (!cu || !AICF__LOAD_INT(&cu->ready) || !cu->lt_handle || (p->ctx->flags & AICF_CONTEXT_NO_THREADS) ||
        p->lt_fold_bytes < aicf__lt_warm_min_bytes) {
        p->lt_warm_decided = 1;
        return;
    }
    kind = p->policy.precision == AICF_PRECISION_FP16 ? 2 : p->policy.precision == AICF_PRECISION_TF32 ? 1 : 0;
    if (AICF__LOAD_INT(&cu->lt_warm[kind]) != 0) { /* warm, or another plan is warming it */
        p->lt_warm_decided = 1;
        return;
    }
    if (!aicf__cuda_lt_likely(g, &p->policy, node)) return;
    p->lt_warm_decided = 1;
    if (!AICF__CAS_INT(&cu->lt_warm[kind], 0, 1)) return;
    w = (struct aicf__lt_warm*)aicf__calloc(p->ctx, 1, sizeof *w);
    if (!w) {
        AICF__STORE_INT(&cu->lt_warm[kind], 0);
        return;
    }
    w->ctx = p->ctx;
    w->cu = cu;
    w->kind = kind;
    w->ws_limit = p->policy.workspace_limit ? (uint64_t)p->policy.workspace_limit : (uint64_t)AICF__CUDA_DEFAULT_WORKSPACE;
#  if defined(_WIN32)
    w->th = CreateThread(NULL, 0, aicf__lt_warm_main, w, 0, NULL);
    ok = w->th != NULL;
#  else
    ok = pthread_create(&w->th, NULL, aicf__lt_warm_main, w) == 0;
#  endif
    if (!ok) { /* no helper: the plan's first query pays the setup, as without this */
        AICF__STORE_INT(&cu->lt_warm[kind], 0);
        aicf__free(p->ctx, w);
        return;
    }
    p->lt_warm = w;
#else
    AICF__UNUSED(p);
    AICF__UNUSED(g);
    AICF__UNUSED(node);
    AICF__UNUSED(aicf__lt_warm_min_bytes);
#endif
}

void aicf__cuda_lt_join(aicf_plan* p) {
    struct aicf__lt_warm* w = p ? (struct aicf__lt_warm*)p->lt_warm : NULL;
    double t0;
    if (!w) return;
    t0 = aicf__now_us();
#if defined(AICF__THREADS)
#  if defined(_WIN32)
    WaitForSingleObject(w->th, INFINITE);
    CloseHandle(w->th);
#  else
    pthread_join(w->th, NULL);
#  endif
#endif
    p->lt_warm_wait_ms += (aicf__now_us() - t0) * 1e-3;
    p->lt_warm_ms = w->ms;
    p->lt_warm = NULL;
    aicf__free(p->ctx, w);
}

aicf_result aicf__cuda_matmul_plan(aicf_plan* p, int si, const aicf__matmul_desc* d, int lt_index, void** algo, char* reason,
                                   size_t reason_cap) {
    aicf_context* ctx;
    struct aicf__cuda* cu;
    aicf__cuda_algo* rec;
    aicf__lt_objs o;
    aicf__cublasLtMatmulHeuristicResult_t res[8];
    aicf__matmul_desc key;
    const aicf__lt_answer* asked;
    const char* fn = NULL;
    double tq;
    int nres = 0, pick = 0, index = 0;
    uint64_t ws_limit;
    size_t es;
    aicf__cublasStatus_t s;
    aicf_result r;
    unsigned al[4];
    if (!p || !p->ctx || !d || !algo) return AICF_ERROR_INVALID_ARGUMENT;
    ctx = p->ctx;
    *algo = NULL;
    aicf__cuda_lt_join(p); /* cuBLASLt's setup, if a helper is making it (one query at a time) */
    cu = aicf__cuda_ready(ctx, &r);
    if (!cu) return r;
    if (!cu->lt_handle) return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "matmul: %s", cu->lt_error[0] ? cu->lt_error : "cuBLASLt not loaded");
    r = aicf__cu_matmul_check(ctx, d, "matmul");
    if (r != AICF_SUCCESS) return r;
    es = d->dtype == AICF_DTYPE_FLOAT16 ? 2 : 4;
    ws_limit = p->policy.workspace_limit ? (uint64_t)p->policy.workspace_limit : (uint64_t)AICF__CUDA_DEFAULT_WORKSPACE;
    al[0] = aicf__cu_operand_align(d->a, d->stride_a, d->batch, es);
    al[1] = aicf__cu_operand_align(d->b, d->stride_b, d->batch, es);
    /* no C: the launch passes D's address as C (aicf__cuda_emit_matmul), so C has D's alignment
       (a D that is a view into a Concat's output may be aligned to less than 256 bytes) */
    al[2] = aicf__cu_operand_align(d->c ? d->c : d->d, d->stride_c, d->batch, d->out_f32 ? 4 : es);
    al[3] = aicf__cu_operand_align(d->d, aicf__cu_matmul_stride_d(d), d->batch, d->out_f32 ? 4 : es);
    r = aicf__cuda_push(ctx, cu);
    if (r != AICF_SUCCESS) return r;
    r = aicf__lt_build(ctx, cu, d, &o);
    if (r != AICF_SUCCESS) goto done;
    if (p->saved_algos) { /* a plan file being loaded: its algorithm, checked, not searched */
        int k = aicf__cu_saved_algo(ctx, cu, p, si, d, &o, al, ws_limit, res, &nres, &index);
        if (k > 0) goto chosen;
        if (k < 0) {
            r = AICF_ERROR_PLAN_MISMATCH;
            goto done;
        }
    }
    key = aicf__lt_key(d);
    if ((asked = aicf__lt_asked(p, &key, al, ws_limit)) != NULL) {
        memcpy(res, asked->res, sizeof res);
        nres = asked->nres;
        s = AICF__CUBLAS_STATUS_SUCCESS;
        goto answered;
    }
    memset(res, 0, sizeof res);
    p->lt_queries++;
    tq = aicf__now_us();
    s = aicf__lt_ask(cu, &o, al, ws_limit, res, &nres, &fn);
    p->lt_query_ms += (aicf__now_us() - tq) * 1e-3;
    if (fn) {
        r = aicf__lt_fail(ctx, cu, s, fn, NULL);
        goto done;
    }
    if (s == AICF__CUBLAS_STATUS_SUCCESS && nres > 0) aicf__lt_remember(p, &key, al, ws_limit, res, nres);
answered:
    if (s != AICF__CUBLAS_STATUS_SUCCESS || nres <= 0) {
        char buf[48];
        r = aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                      "matmul M=%lld N=%lld K=%lld batch=%lld %s: cuBLASLt has no algorithm (cublasLtMatmulAlgoGetHeuristic: %s, %d results)",
                      (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch, aicf_dtype_name(d->dtype),
                      aicf__cublas_status_name(cu, s, buf, sizeof buf), nres);
        goto done;
    }
    if (lt_index < 0 || lt_index >= nres) {
        r = aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "matmul M=%lld N=%lld K=%lld batch=%lld %s: cuBLASLt heuristic result #%d asked for, "
                      "cuBLASLt returned %d", (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch,
                      aicf_dtype_name(d->dtype), lt_index, nres);
        goto done;
    }
    pick = index = lt_index;
chosen:
    /* rounded up to 16 bytes: callers may copy the record in 16-byte units */
    rec = (aicf__cuda_algo*)aicf__calloc(ctx, 1, (sizeof *rec + 15u) & ~(size_t)15u);
    if (!rec) {
        r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "matmul: out of memory");
        goto done;
    }
    rec->algo = res[pick].algo;
    rec->workspace_bytes = res[pick].workspaceSize;
    rec->cublaslt_version = cu->lt_version;
    rec->align_a = al[0];
    rec->align_b = al[1];
    rec->align_c = al[2];
    rec->align_d = al[3];
    rec->n_results = nres;
    rec->index = index;
    *algo = rec;
    if (p->backend) {
        aicf__cuda_plan_data* pd = (aicf__cuda_plan_data*)p->backend;
        if (rec->workspace_bytes > pd->workspace_bytes) pd->workspace_bytes = rec->workspace_bytes;
    }
    if (reason && reason_cap)
        aicf__cu_fmt(reason, reason_cap, "cuBLASLt heuristic #%d of %d, workspace %llu B, align %u B", index, nres,
                 (unsigned long long)rec->workspace_bytes, AICF__MIN(AICF__MIN(al[0], al[1]), AICF__MIN(al[2], al[3])));
    r = AICF_SUCCESS;
done:
    aicf__lt_objs_free(cu, &o);
    aicf__cuda_pop(cu);
    return r;
}

/* ---- the emitter ---- */
static aicf_result aicf__em_chain(aicf__cuda_emitter* em, aicf__CUgraphNode node) {
    em->last = node;
    em->has_last = 1;
    em->last_is_kernel = 0; /* aicf__cuda_emit_kernel sets it after this */
    em->x->graph_nodes++;
    return AICF_SUCCESS;
}

uint64_t aicf__cuda_tensor_ptr(aicf__cuda_emitter* em, int t) {
    const aicf_plan* p;
    int hops;
    if (!em || !em->plan || !em->plan->g || !em->plan->loc) return 0;
    p = em->plan;
    for (hops = 0; hops <= p->g->n_tensors; ++hops) {
        const aicf__loc* l;
        if (t < 0 || t >= p->g->n_tensors) return 0;
        l = &p->loc[t];
        if (l->space == AICF__SPACE_ARENA) {
            if (l->offset > em->x->arena_bytes || l->bytes > em->x->arena_bytes - l->offset || !em->x->arena) return 0;
            return (uint64_t)em->x->arena + l->offset;
        }
        if (l->space == AICF__SPACE_WEIGHTS) {
            if (l->offset > em->x->weights_bytes || l->bytes > em->x->weights_bytes - l->offset || !em->x->weights) return 0;
            return (uint64_t)em->x->weights + l->offset;
        }
        if (l->alias_of < 0) return 0;
        t = l->alias_of;
    }
    return 0;
}

uint64_t aicf__cuda_sync_ptr(aicf__cuda_emitter* em) { return em && em->x ? (uint64_t)em->x->sync : 0; }

uint64_t aicf__cuda_scratch_ptr(aicf__cuda_emitter* em) {
    const aicf__step* st;
    if (!em || !em->plan || !em->x || !em->x->arena || em->step < 0 || em->step >= em->plan->n_steps) return 0;
    st = &em->plan->steps[em->step];
    if (!st->scratch_bytes || st->scratch_offset > em->x->arena_bytes ||
        st->scratch_bytes > em->x->arena_bytes - st->scratch_offset)
        return 0;
    return (uint64_t)em->x->arena + st->scratch_offset;
}

/* "step 3 (node 12 'conv1', Conv)" or "graph build" into buf. */
static const char* aicf__em_where(const aicf__cuda_emitter* em, char* buf, size_t cap) {
    const aicf_plan* p = em->plan;
    if (em->step >= 0 && p && em->step < p->n_steps) {
        const aicf__step* st = &p->steps[em->step];
        const aicf__node* n = (p->g && st->node >= 0 && st->node < p->g->n_nodes) ? &p->g->nodes[st->node] : NULL;
        if (n) aicf__cu_fmt(buf, cap, "step %d (node %d '%s', %s)", em->step, st->node, n->name ? n->name : "", n->op_type ? n->op_type : "");
        else aicf__cu_fmt(buf, cap, "step %d", em->step);
    } else {
        aicf__cu_fmt(buf, cap, "graph build");
    }
    return buf;
}

/* Loads the module of table kernel k (once per exec) and finds its function. */
static aicf_result aicf__em_function(aicf__cuda_emitter* em, int k, aicf__CUfunction* out) {
    aicf__cuda_exec* x = em->x;
    struct aicf__cuda* cu = em->cu;
    aicf_context* ctx = em->ctx;
    int m = aicf__kt_kernels[k].module;
    aicf__CUresult r;
    char where[400], what[1200];
    if (x->functions[k]) {
        *out = x->functions[k];
        return AICF_SUCCESS;
    }
    if (m < 0 || m >= AICF__KT_NUM_MODULES)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "kernel table: kernel '%s' names module %d of %d", aicf__kt_kernels[k].name, m,
                         AICF__KT_NUM_MODULES);
    if (!x->modules[m]) {
        int idx = aicf__cuda_choose_image(cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, m, 1);
        char log[2048];
        aicf__CUjit_option opts[2];
        void* vals[2];
        if (idx < 0) {
            char msg[AICF__ERR_CAP];
            aicf__cuda_no_image(ctx, cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, m, aicf__kt_modules[m].name);
            aicf__cu_fmt(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
            return aicf__err(ctx, AICF_ERROR_NO_KERNEL, "%s: kernel '%s': %s", aicf__em_where(em, where, sizeof where),
                             aicf__kt_kernels[k].name, msg);
        }
        for (;;) {
            const aicf__kt_image* im = &aicf__kt_images[idx];
            log[0] = '\0';
            opts[0] = AICF__CU_JIT_ERROR_LOG_BUFFER;
            vals[0] = log;
            opts[1] = AICF__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
            vals[1] = (void*)(uintptr_t)sizeof log;
            r = cu->api.cuModuleLoadDataEx(&x->modules[m], im->data, 2, opts, vals);
            if (r == AICF__CUDA_SUCCESS) break;
            x->modules[m] = NULL;
            log[sizeof log - 1] = '\0';
            if (!im->is_ptx && (r == AICF__CUDA_ERROR_NO_BINARY_FOR_GPU || r == AICF__CUDA_ERROR_INVALID_IMAGE)) {
                int alt = aicf__cuda_choose_image(cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, m, 0);
                if (alt >= 0) {
                    idx = alt;
                    continue;
                }
            }
            aicf__cu_fmt(what, sizeof what, "module '%s' %s_%d for device %d.%d (%s)%s%s", aicf__kt_modules[m].name,
                     im->is_ptx ? "compute" : "sm", im->sm, cu->cc_major, cu->cc_minor, aicf__em_where(em, where, sizeof where),
                     log[0] ? "; JIT log: " : "", log);
            if (im->is_ptx && r == AICF__CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
                const char *name, *str;
                aicf__cu_names(cu, r, &name, &str);
                return aicf__err(ctx, AICF_ERROR_NO_KERNEL,
                                 "cuModuleLoadDataEx failed: %s: %s: the PTX of NVRTC %s is newer than driver %d.%d accepts",
                                 name, what, AICF__KT_NVRTC_VERSION, cu->driver_version / 1000, (cu->driver_version % 1000) / 10);
            }
            return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuModuleLoadDataEx", what);
        }
    }
    r = cu->api.cuModuleGetFunction(&x->functions[k], x->modules[m], aicf__kt_kernels[k].name);
    if (r != AICF__CUDA_SUCCESS) {
        x->functions[k] = NULL;
        aicf__cu_fmt(what, sizeof what, "kernel '%s' in module '%s'", aicf__kt_kernels[k].name, aicf__kt_modules[m].name);
        return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuModuleGetFunction", what);
    }
    *out = x->functions[k];
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_encode_tmap(aicf__cuda_emitter* em, const aicf__tmap_req* rq, uint64_t addr, void* out) {
    uint64_t dims[2], strides[1];
    uint32_t box[2], es[2] = {1u, 1u};
    uint64_t buf[24]; /* the map is written 64-byte aligned (CUtensorMap's alignment), then copied */
    void* map = (void*)(((uintptr_t)buf + 63u) & ~(uintptr_t)63u);
    aicf__CUresult r;
    char where[400], what[700];
    if (rq->magic != AICF__TMAP_MAGIC)
        return aicf__err(em->ctx, AICF_ERROR_STATE, "aicf_exec_create: %s: a tensor map request is damaged (magic 0x%08x)",
                         aicf__em_where(em, where, sizeof where), (unsigned)rq->magic);
    aicf__cu_fmt(what, sizeof what, "%s: 2-D float16 tensor map at 0x%llx, dims %llu x %llu, row stride %llu bytes, box %u x %u, swizzle %u",
                 aicf__em_where(em, where, sizeof where), (unsigned long long)addr, (unsigned long long)rq->dims[0],
                 (unsigned long long)rq->dims[1], (unsigned long long)rq->stride1, rq->box[0], rq->box[1], rq->swizzle);
    if (!em->cu->tmap_encode)
        return aicf__err(em->ctx, AICF_ERROR_NO_DEVICE, "aicf_exec_create: %s: the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12.0+)",
                         what);
    dims[0] = rq->dims[0];
    dims[1] = rq->dims[1];
    strides[0] = rq->stride1;
    box[0] = rq->box[0];
    box[1] = rq->box[1];
    memset(map, 0, 128);
    r = em->cu->tmap_encode(map, AICF__CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2u, (void*)(uintptr_t)addr, dims, strides, box, es, 0,
                            (int)rq->swizzle, AICF__CU_TENSOR_MAP_L2_PROMOTION_L2_128B, 0);
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(em->ctx, em->cu, AICF_ERROR_CUDA, r, "cuTensorMapEncodeTiled", what);
    memcpy(out, map, 128);
    return AICF_SUCCESS;
}

int aicf__cuda_wg_ok(aicf_context* ctx, int k) {
    struct aicf__cuda* cu = ctx ? ctx->cuda : NULL;
    if (!cu || !cu->ready || cu->cc_major != 9 || cu->cc_minor != 0 || !cu->tmap_encode) return 0;
    if (k < 0 || k >= AICF__KT_NUM_KERNELS) return 0;
    return aicf__cuda_choose_image(cu->cc_major, cu->cc_minor, aicf__kt_images, AICF__KT_NUM_IMAGES, aicf__kt_kernels[k].module, 1) >= 0;
}

/* An exec holding only the kernel table's module and function slots (filled on demand by
   aicf__em_function), for launches and queries made at plan time (the autotuner's trial
   launches, aicf__cuda_cluster_cap); NULL when out of memory. Freed by aicf__cuda_exec_free. */
static aicf__cuda_exec* aicf__cuda_kernel_exec_new(aicf_context* ctx) {
    aicf__cuda_exec* x = (aicf__cuda_exec*)aicf__calloc(ctx, 1, sizeof *x);
    if (!x) return NULL;
    x->modules = (aicf__CUmodule*)aicf__calloc(ctx, AICF__KT_NUM_MODULES > 0 ? (size_t)AICF__KT_NUM_MODULES : 1u, sizeof(aicf__CUmodule));
    x->functions = (aicf__CUfunction*)aicf__calloc(ctx, AICF__KT_NUM_KERNELS > 0 ? (size_t)AICF__KT_NUM_KERNELS : 1u, sizeof(aicf__CUfunction));
    if (!x->modules || !x->functions) {
        aicf__free(ctx, x->modules);
        aicf__free(ctx, x->functions);
        aicf__free(ctx, x);
        return NULL;
    }
    return x;
}

/* How many clusters of table kernel k the device holds at once, launched with `threads` threads
   and `smem` bytes of dynamic shared memory a CTA: cuOccupancyMaxActiveClusters (CUDA 11.8+) on
   the kernel itself, whose cluster shape its __cluster_dims__ fixes (cx x cy CTAs; the query's
   grid is one cluster). The CTAs of a cluster share a GPC, so this can be less than sm_count /
   (cx cy): at one CTA an SM an H100 of 132 SMs holds 30 clusters of 4 (120 CTAs), not 33
   (docs/benchmarks.md, session 43). The kernel's module is loaded once per context for the
   query (kept in cu->probe until the context goes) and each answer is kept. Returns -1 where it
   cannot be known (no device, a driver without the entry point, a failed load or query): the
   caller keeps its own bound then. Thread-safe. */
int aicf__cuda_cluster_cap(aicf_context* ctx, int k, unsigned threads, unsigned smem, unsigned cx, unsigned cy) {
    struct aicf__cuda* cu = ctx ? ctx->cuda : NULL;
    aicf__cuda_emitter em;
    aicf__CUfunction fn = NULL;
    aicf__CUlaunchConfig cfg;
    char saved[AICF__ERR_CAP];
    int i, n = -1;
    if (!cu || !cu->ready || !cu->occ_clusters || k < 0 || k >= AICF__KT_NUM_KERNELS || cx < 1 || cy < 1 || threads < 1) return -1;
    while (!AICF__CAS_INT(&cu->probe_lock, 0, 1)) aicf__cu_yield();
    for (i = 0; i < cu->n_caps; i++)
        if (cu->caps[i].k == k && cu->caps[i].threads == threads && cu->caps[i].smem == smem) {
            n = cu->caps[i].cap;
            AICF__STORE_INT(&cu->probe_lock, 0);
            return n;
        }
    memcpy(saved, AICF__ERRBUF(ctx), sizeof saved); /* a failed query is not an error of the plan */
    if (!cu->probe) cu->probe = aicf__cuda_kernel_exec_new(ctx);
    if (cu->probe && aicf__cuda_push(ctx, cu) == AICF_SUCCESS) {
        memset(&em, 0, sizeof em);
        em.ctx = ctx, em.cu = cu, em.x = cu->probe, em.step = -1;
        if (aicf__em_function(&em, k, &fn) == AICF_SUCCESS &&
            (smem <= 48u * 1024u ||
             cu->api.cuFuncSetAttribute(fn, AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem) == AICF__CUDA_SUCCESS)) {
            memset(&cfg, 0, sizeof cfg);
            cfg.gridDimX = cx, cfg.gridDimY = cy, cfg.gridDimZ = 1;
            cfg.blockDimX = threads, cfg.blockDimY = 1, cfg.blockDimZ = 1;
            cfg.sharedMemBytes = smem;
            if (cu->occ_clusters(&n, fn, &cfg) != AICF__CUDA_SUCCESS || n < 0) n = -1;
        }
        aicf__cuda_pop(cu);
    }
    memcpy(AICF__ERRBUF(ctx), saved, sizeof saved);
    if (n >= 0 && cu->n_caps < (int)(sizeof cu->caps / sizeof cu->caps[0])) {
        cu->caps[cu->n_caps].k = k, cu->caps[cu->n_caps].threads = threads, cu->caps[cu->n_caps].smem = smem;
        cu->caps[cu->n_caps++].cap = n;
    }
    AICF__STORE_INT(&cu->probe_lock, 0);
    return n;
}

aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3], const unsigned block[3],
                                   unsigned shared_bytes, const void* args, size_t args_size, int pdl) {
    aicf__CUDA_KERNEL_NODE_PARAMS kp;
    aicf__CUfunction fn = NULL;
    aicf__CUgraphNode node;
    aicf__CUresult r;
    aicf_result res;
    union {
        uint64_t u[512];
        double d;
        void* p;
    } argbuf; /* 4 KiB, the classic kernel parameter limit; 16-byte alignment is not needed
                 beyond 8 for the struct ABI used by the templates */
    void* params[1];
    char where[400], what[600];
    if (!em || !grid || !block) return AICF_ERROR_INVALID_ARGUMENT;
    if (kernel_index < 0 || kernel_index >= AICF__KT_NUM_KERNELS)
        return aicf__err(em->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: kernel index %d out of range (%d kernels in the table)",
                         aicf__em_where(em, where, sizeof where), kernel_index, AICF__KT_NUM_KERNELS);
    if (args_size > sizeof argbuf || (args_size && !args))
        return aicf__err(em->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: kernel '%s': argument block of %zu bytes (limit %zu)",
                         aicf__em_where(em, where, sizeof where), aicf__kt_kernels[kernel_index].name, args_size, sizeof argbuf);
    if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2] ||
        (uint64_t)block[0] * block[1] * block[2] > 1024u)
        return aicf__err(em->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: kernel '%s': invalid launch grid [%u,%u,%u] block [%u,%u,%u]",
                         aicf__em_where(em, where, sizeof where), aicf__kt_kernels[kernel_index].name, grid[0], grid[1], grid[2],
                         block[0], block[1], block[2]);
    res = aicf__em_function(em, kernel_index, &fn);
    if (res != AICF_SUCCESS) return res;
    /* Dynamic shared memory plus the kernel's static shared memory over 48 KB needs the opt-in
       attribute. The table's kernels with dynamic shared memory keep at most 8 KB static, so it is
       set from 40 KB on, to the most the device allows beside 8 KB static (one value for every
       node of the function: a later node never lowers what an earlier one needed), or else to
       exactly this launch's bytes. */
    if (shared_bytes > 40u * 1024u) {
        int most = em->cu->max_smem_optin - 8 * 1024;
        r = AICF__CUDA_SUCCESS + 1;
        if (most > (int)shared_bytes) r = em->cu->api.cuFuncSetAttribute(fn, AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, most);
        if (r != AICF__CUDA_SUCCESS) r = em->cu->api.cuFuncSetAttribute(fn, AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes);
        if (r != AICF__CUDA_SUCCESS) {
            aicf__cu_fmt(what, sizeof what, "%s: kernel '%s' dynamic shared memory %u bytes (device opt-in limit %d)",
                     aicf__em_where(em, where, sizeof where), aicf__kt_kernels[kernel_index].name, shared_bytes, em->cu->max_smem_optin);
            return aicf__cu_fail(em->ctx, em->cu, AICF_ERROR_CUDA, r, "cuFuncSetAttribute", what);
        }
    }
    memset(&argbuf, 0, sizeof argbuf);
    if (args_size) memcpy(&argbuf, args, args_size);
    params[0] = &argbuf;
    memset(&kp, 0, sizeof kp);
    kp.func = fn;
    kp.gridDimX = grid[0];
    kp.gridDimY = grid[1];
    kp.gridDimZ = grid[2];
    kp.blockDimX = block[0];
    kp.blockDimY = block[1];
    kp.blockDimZ = block[2];
    kp.sharedMemBytes = shared_bytes;
    kp.kernelParams = args_size ? params : NULL;
    kp.extra = NULL;
    /* After another generated kernel, where the plan made this launch programmatic (pdl) or the
       exec asked for it everywhere (AICF_EXEC_PDL): a programmatic edge from its programmatic port. This node
       may then be launched once every block of the previous kernel has issued
       griddepcontrol.launch_dependents (the GEMV, right after its wait) or exited (every other
       kernel: templates/pdl.inc.j2); its kernel waits for the previous grid to complete before it
       touches memory a kernel may write, so what overlaps is the launch latency, the memory flush
       and what comes before the wait (the GEMV's weight prefetch).
       (The launch-order port, which fires as soon as the blocks have begun, let chains of
       waiting kernels pile up: resnet18 batch 1 went from 254 to 346 us on the H100.)
       Otherwise a full dependency. */
    if ((em->pdl || (pdl && em->cu->pdl)) && em->has_last && em->last_is_kernel) {
        aicf__CUgraphEdgeData ed;
        r = em->cu->api.cuGraphAddKernelNode(&node, em->graph, NULL, 0u, &kp);
        if (r == AICF__CUDA_SUCCESS) {
            memset(&ed, 0, sizeof ed);
            ed.from_port = AICF__CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
            ed.type = AICF__CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
            r = em->cu->add_deps_v12030(em->graph, &em->last, &node, &ed, 1u);
            if (r != AICF__CUDA_SUCCESS) {
                aicf__cu_fmt(what, sizeof what, "%s: programmatic edge into kernel '%s'", aicf__em_where(em, where, sizeof where),
                             aicf__kt_kernels[kernel_index].name);
                return aicf__cu_fail(em->ctx, em->cu, AICF_ERROR_CUDA, r, "cuGraphAddDependencies", what);
            }
            em->x->programmatic_edges++;
        }
    } else {
        r = em->cu->api.cuGraphAddKernelNode(&node, em->graph, em->has_last ? &em->last : NULL, em->has_last ? 1u : 0u, &kp);
    }
    if (r != AICF__CUDA_SUCCESS) {
        aicf__cu_fmt(what, sizeof what, "%s: kernel '%s' grid [%u,%u,%u] block [%u,%u,%u] shared %u B", aicf__em_where(em, where, sizeof where),
                 aicf__kt_kernels[kernel_index].name, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes);
        return aicf__cu_fail(em->ctx, em->cu, AICF_ERROR_CUDA, r, "cuGraphAddKernelNode", what);
    }
    em->x->kernel_nodes++;
    aicf__em_chain(em, node);
    em->last_is_kernel = 1;
    return AICF_SUCCESS;
}

/* A 1-D memcpy node; src_host/dst_host non-NULL select host memory. */
static aicf_result aicf__em_memcpy(aicf__cuda_emitter* em, aicf__CUdeviceptr dst, void* dst_host, aicf__CUdeviceptr src,
                                   const void* src_host, size_t bytes, const char* what) {
    aicf__CUDA_MEMCPY3D c;
    aicf__CUgraphNode node;
    aicf__CUresult r;
    if (bytes == 0) return AICF_SUCCESS;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = src_host ? AICF__CU_MEMORYTYPE_HOST : AICF__CU_MEMORYTYPE_DEVICE;
    c.srcHost = src_host;
    c.srcDevice = src_host ? 0 : src;
    c.srcPitch = bytes;
    c.srcHeight = 1;
    c.dstMemoryType = dst_host ? AICF__CU_MEMORYTYPE_HOST : AICF__CU_MEMORYTYPE_DEVICE;
    c.dstHost = dst_host;
    c.dstDevice = dst_host ? 0 : dst;
    c.dstPitch = bytes;
    c.dstHeight = 1;
    c.WidthInBytes = bytes;
    c.Height = 1;
    c.Depth = 1;
    r = em->cu->api.cuGraphAddMemcpyNode(&node, em->graph, em->has_last ? &em->last : NULL, em->has_last ? 1u : 0u, &c, em->cu->pctx);
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(em->ctx, em->cu, AICF_ERROR_CUDA, r, "cuGraphAddMemcpyNode", what);
    return aicf__em_chain(em, node);
}

aicf_result aicf__cuda_emit_copy(aicf__cuda_emitter* em, uint64_t dst, uint64_t src, size_t bytes) {
    char where[400], what[600];
    if (!em) return AICF_ERROR_INVALID_ARGUMENT;
    if (bytes == 0) return AICF_SUCCESS;
    aicf__em_where(em, where, sizeof where);
    if (!dst || !src) return aicf__err(em->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: copy of %zu bytes with a null address", where, bytes);
    aicf__cu_fmt(what, sizeof what, "%s: device copy of %zu bytes", where, bytes);
    return aicf__em_memcpy(em, (aicf__CUdeviceptr)dst, NULL, (aicf__CUdeviceptr)src, NULL, bytes, what);
}

/* Counts the kernel nodes of a captured graph. */
static int aicf__cu_count_kernels(struct aicf__cuda* cu, aicf_context* ctx, aicf__CUgraph g) {
    size_t n = 0, i;
    int k = 0;
    aicf__CUgraphNode* nodes;
    if (cu->api.cuGraphGetNodes(g, NULL, &n) != AICF__CUDA_SUCCESS || n == 0) return 0;
    nodes = (aicf__CUgraphNode*)aicf__calloc(ctx, n, sizeof *nodes);
    if (!nodes) return 0;
    if (cu->api.cuGraphGetNodes(g, nodes, &n) == AICF__CUDA_SUCCESS) {
        for (i = 0; i < n; ++i) {
            aicf__CUgraphNodeType t = -1;
            if (cu->api.cuGraphNodeGetType(nodes[i], &t) == AICF__CUDA_SUCCESS && t == AICF__CU_GRAPH_NODE_TYPE_KERNEL) k++;
        }
    }
    aicf__free(ctx, nodes);
    return k;
}

aicf_result aicf__cuda_emit_matmul(aicf__cuda_emitter* em, const aicf__matmul_desc* d, const void* algo) {
    const aicf__cuda_algo* rec = (const aicf__cuda_algo*)algo;
    struct aicf__cuda* cu;
    aicf_context* ctx;
    aicf__lt_objs o;
    aicf__CUgraph child = NULL;
    aicf__CUgraphNode node;
    aicf__CUresult r;
    aicf__cublasStatus_t s;
    aicf_result res;
    char where[400], what[600];
    uint64_t cptr;
    if (!em || !d || !rec) return AICF_ERROR_INVALID_ARGUMENT;
    cu = em->cu;
    ctx = em->ctx;
    aicf__em_where(em, where, sizeof where);
    if (!cu->lt_handle)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: matmul: %s", where, cu->lt_error[0] ? cu->lt_error : "cuBLASLt not loaded");
    if (rec->cublaslt_version != cu->lt_version)
        return aicf__err(ctx, AICF_ERROR_CUBLAS, "%s: the plan's cuBLASLt algorithm was recorded with cuBLASLt %llu, loaded is %llu", where,
                         (unsigned long long)rec->cublaslt_version, (unsigned long long)cu->lt_version);
    res = aicf__cu_matmul_check(ctx, d, where);
    if (res != AICF_SUCCESS) return res;
    if (!d->a || !d->b || !d->d || (d->bias && !d->bias_ptr) || (d->beta != 0.0f && !d->c))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: matmul: null operand address (A %s, B %s, C %s, D %s, bias %s)", where,
                         d->a ? "ok" : "null", d->b ? "ok" : "null", d->c ? "ok" : (d->beta != 0.0f ? "null with beta != 0" : "unused"),
                         d->d ? "ok" : "null", d->bias ? (d->bias_ptr ? "ok" : "null") : "unused");
    cptr = d->c ? d->c : d->d;
    if ((d->a % rec->align_a) || (d->b % rec->align_b) || (cptr % rec->align_c) || (d->d % rec->align_d))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "%s: matmul: operand addresses A 0x%llx B 0x%llx C 0x%llx D 0x%llx break the alignment %u/%u/%u/%u B the plan's cuBLASLt algorithm assumed",
                         where, (unsigned long long)d->a, (unsigned long long)d->b, (unsigned long long)cptr, (unsigned long long)d->d,
                         rec->align_a, rec->align_b, rec->align_c, rec->align_d);
    if (rec->workspace_bytes > em->x->workspace_bytes)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "%s: matmul: algorithm needs %zu B of workspace, the exec has %zu B (algorithm recorded by another plan?)", where,
                         rec->workspace_bytes, em->x->workspace_bytes);
    if (!em->x->capture_stream) {
        r = cu->api.cuStreamCreate(&em->x->capture_stream, AICF__CU_STREAM_NON_BLOCKING);
        if (r != AICF__CUDA_SUCCESS) {
            em->x->capture_stream = NULL;
            return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuStreamCreate", "capture stream");
        }
    }
    res = aicf__lt_build(ctx, cu, d, &o);
    if (res != AICF_SUCCESS) {
        aicf__lt_objs_free(cu, &o);
        return res;
    }
    r = cu->api.cuStreamBeginCapture(em->x->capture_stream, AICF__CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r != AICF__CUDA_SUCCESS) {
        aicf__lt_objs_free(cu, &o);
        return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuStreamBeginCapture", where);
    }
    s = cu->lt.cublasLtMatmul(cu->lt_handle, o.desc, &d->alpha, (const void*)(uintptr_t)d->b, o.la, (const void*)(uintptr_t)d->a, o.lb,
                              &d->beta, (const void*)(uintptr_t)cptr, o.lc, (void*)(uintptr_t)d->d, o.ld, &rec->algo,
                              rec->workspace_bytes ? (void*)(uintptr_t)em->x->workspace : NULL, rec->workspace_bytes,
                              em->x->capture_stream);
    r = cu->api.cuStreamEndCapture(em->x->capture_stream, &child);
    aicf__lt_objs_free(cu, &o);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        if (r == AICF__CUDA_SUCCESS && child) cu->api.cuGraphDestroy(child);
        aicf__cu_fmt(what, sizeof what, "%s: M=%lld N=%lld K=%lld batch=%lld %s", where, (long long)d->M, (long long)d->N, (long long)d->K,
                 (long long)d->batch, aicf_dtype_name(d->dtype));
        return aicf__lt_fail(ctx, cu, s, "cublasLtMatmul (stream capture)", what);
    }
    if (r != AICF__CUDA_SUCCESS || !child) {
        if (r == AICF__CUDA_SUCCESS) r = AICF__CUDA_ERROR_INVALID_VALUE;
        return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuStreamEndCapture", where);
    }
    r = cu->api.cuGraphAddChildGraphNode(&node, em->graph, em->has_last ? &em->last : NULL, em->has_last ? 1u : 0u, child);
    if (r == AICF__CUDA_SUCCESS) em->x->kernel_nodes += aicf__cu_count_kernels(cu, ctx, child);
    cu->api.cuGraphDestroy(child); /* the child node holds its own copy */
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuGraphAddChildGraphNode", where);
    return aicf__em_chain(em, node);
}

/* ---- exec ---- */
typedef aicf_result (*aicf__cuda_emit_fn)(aicf__cuda_emitter* em, aicf_plan* p, int si);

/* Frees everything of x (safe on a partially built one). The context must be current. */
static void aicf__cuda_exec_free(aicf_context* ctx, struct aicf__cuda* cu, aicf__cuda_exec* x) {
    int i;
    if (!x) return;
    if (x->in_flight && x->stream) cu->api.cuStreamSynchronize(x->stream);
    if (x->graph_exec) cu->api.cuGraphExecDestroy(x->graph_exec);
    if (x->graph) cu->api.cuGraphDestroy(x->graph);
    if (x->modules)
        for (i = 0; i < AICF__KT_NUM_MODULES; ++i)
            if (x->modules[i]) cu->api.cuModuleUnload(x->modules[i]);
    if (x->arena) cu->api.cuMemFree(x->arena);
    if (x->weights) cu->api.cuMemFree(x->weights);
    if (x->workspace) cu->api.cuMemFree(x->workspace);
    if (x->sync) cu->api.cuMemFree(x->sync);
    if (x->staging) cu->api.cuMemFreeHost(x->staging);
    if (x->prof_ev)
        for (i = 0; i < x->n_prof_ev; ++i)
            if (x->prof_ev[i]) cu->api.cuEventDestroy(x->prof_ev[i]);
    aicf__free(ctx, x->prof_ev);
    if (x->capture_stream) cu->api.cuStreamDestroy(x->capture_stream);
    if (x->stream && x->owns_stream) cu->api.cuStreamDestroy(x->stream);
    aicf__free(ctx, x->modules);
    aicf__free(ctx, x->functions);
    aicf__free(ctx, x->in_off);
    aicf__free(ctx, x->out_off);
    aicf__free(ctx, x);
}

static aicf_result aicf__cuda_alloc(aicf_context* ctx, struct aicf__cuda* cu, aicf__CUdeviceptr* out, size_t bytes, const char* what) {
    aicf__CUresult r;
    char msg[512];
    *out = 0;
    if (bytes == 0) return AICF_SUCCESS;
    r = cu->api.cuMemAlloc(out, bytes);
    if (r == AICF__CUDA_SUCCESS) return AICF_SUCCESS;
    *out = 0;
    aicf__cu_fmt(msg, sizeof msg, "%.100s of %zu bytes on %.255s (%zu bytes total)", what, bytes, cu->name, cu->total_memory);
    return aicf__cu_fail(ctx, cu, r == AICF__CUDA_ERROR_OUT_OF_MEMORY ? AICF_ERROR_DEVICE_OUT_OF_MEMORY : AICF_ERROR_CUDA, r, "cuMemAlloc",
                         msg);
}

static const char* aicf__cu_tname(const aicf_plan* p, int t) {
    if (p->g && t >= 0 && t < p->g->n_tensors && p->g->tensors[t].name) return p->g->tensors[t].name;
    return "";
}

/* Uploads the constants that live in the weights space, converting float32 <-> float16 where
   the storage dtype asks. */
/* A conv weight [M, C, KH*KW] of es-byte elements into the patch conv kernel's layout (loc.chunk
   = cg, templates/conv_tc.cu.j2 aicf_conv2d_tcp): [C/cg][M][KH*KW][cg], i.e. element
   (m, c, tap) moves to ((c / cg * M + m) * KHW + tap) * cg + c % cg. C % cg == 0. */
static void aicf__weights_chunked(const void* src, void* dst, int64_t M, int64_t C, int64_t KHW, int64_t cg, size_t es) {
    int64_t m, c, tap;
    const unsigned char* s = (const unsigned char*)src;
    unsigned char* d = (unsigned char*)dst;
    for (m = 0; m < M; m++)
        for (c = 0; c < C; c++)
            for (tap = 0; tap < KHW; tap++)
                memcpy(d + (size_t)(((c / cg * M + m) * KHW + tap) * cg + c % cg) * es, s + (size_t)((m * C + c) * KHW + tap) * es, es);
}

/* Uploads constant t (loc.chunk > 0): converted to the storage type, then chunk-ordered. */
static aicf_result aicf__cuda_upload_chunked(aicf_context* ctx, struct aicf__cuda* cu, const aicf_plan* p, int t, aicf__cuda_exec* x,
                                             const char* what) {
    const aicf__loc* l = &p->loc[t];
    const aicf__tensor* tt = &p->g->tensors[t];
    int64_t numel = aicf__shape_numel(&tt->shape), M = tt->shape.rank >= 3 ? tt->shape.d[0] : 0,
            C = tt->shape.rank >= 3 ? tt->shape.d[1] : 0, KHW;
    size_t es = aicf_dtype_size(l->sdtype), i;
    unsigned char *plain = NULL, *perm = NULL;
    aicf__CUresult r;
    aicf_result res = AICF_SUCCESS;
    if (M <= 0 || C <= 0 || numel <= 0 || numel % (M * C) || C % l->chunk || (size_t)numel * es != l->bytes ||
        (size_t)numel * aicf_dtype_size(tt->dtype) != tt->data_bytes ||
        !(l->sdtype == tt->dtype || (tt->dtype == AICF_DTYPE_FLOAT32 && l->sdtype == AICF_DTYPE_FLOAT16)))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "plan: constant %d '%s': layout chunk%d needs a conv weight [M, C, ...] with C %% %d == 0 (float16 storage)", t,
                         aicf__cu_tname(p, t), l->chunk, l->chunk);
    KHW = numel / (M * C);
    perm = (unsigned char*)aicf__malloc(ctx, l->bytes);
    if (l->sdtype != tt->dtype) plain = (unsigned char*)aicf__malloc(ctx, l->bytes);
    if (!perm || (l->sdtype != tt->dtype && !plain)) {
        aicf__free(ctx, perm);
        aicf__free(ctx, plain);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "out of memory %s", what);
    }
    if (plain)
        for (i = 0; i < (size_t)numel; ++i) {
            float f;
            uint16_t h;
            memcpy(&f, (const unsigned char*)tt->data + i * 4, 4);
            h = aicf__f32_to_f16(f);
            memcpy(plain + i * 2, &h, 2);
        }
    aicf__weights_chunked(plain ? plain : (const unsigned char*)tt->data, perm, M, C, KHW, l->chunk, es);
    r = cu->api.cuMemcpyHtoD(x->weights + l->offset, perm, l->bytes);
    if (r != AICF__CUDA_SUCCESS) res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", what);
    aicf__free(ctx, perm);
    aicf__free(ctx, plain);
    return res;
}

static aicf_result aicf__cuda_upload_weights(aicf_context* ctx, struct aicf__cuda* cu, const aicf_plan* p, aicf__cuda_exec* x) {
    int t;
    unsigned char* chunk = NULL;
    const size_t chunk_bytes = (size_t)1 << 20;
    aicf_result res = AICF_SUCCESS;
    char what[600];
    if (!p->g || !p->loc) return AICF_SUCCESS;
    for (t = 0; t < p->g->n_tensors && res == AICF_SUCCESS; ++t) {
        const aicf__loc* l = &p->loc[t];
        const aicf__tensor* tt = &p->g->tensors[t];
        aicf__CUresult r;
        int ok = 1;
        int64_t numel;
        if (l->space != AICF__SPACE_WEIGHTS || l->alias_of >= 0) continue;
        if (l->offset > x->weights_bytes || l->bytes > x->weights_bytes - l->offset) {
            res = aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: constant %d '%s': weights range [%zu, +%zu) outside %zu bytes", t,
                            aicf__cu_tname(p, t), l->offset, l->bytes, x->weights_bytes);
            break;
        }
        if (l->bytes == 0) continue;
        if (!tt->data) {
            res = aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: constant %d '%s' in the weights space has no data", t, aicf__cu_tname(p, t));
            break;
        }
        aicf__cu_fmt(what, sizeof what, "uploading constant %d '%s' (%zu bytes)", t, aicf__cu_tname(p, t), l->bytes);
        if (l->chunk > 0) {
            res = aicf__cuda_upload_chunked(ctx, cu, p, t, x, what);
            continue;
        }
        numel = aicf__shape_numel(&tt->shape);
        if (l->sdtype == tt->dtype || l->sdtype == AICF_DTYPE_INVALID) {
            if (tt->data_bytes != l->bytes) {
                res = aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: constant %d '%s': %zu bytes of data, %zu bytes of storage", t,
                                aicf__cu_tname(p, t), tt->data_bytes, l->bytes);
                break;
            }
            r = cu->api.cuMemcpyHtoD(x->weights + l->offset, tt->data, l->bytes);
            if (r != AICF__CUDA_SUCCESS) res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", what);
            continue;
        }
        if (!((tt->dtype == AICF_DTYPE_FLOAT32 && l->sdtype == AICF_DTYPE_FLOAT16) ||
              (tt->dtype == AICF_DTYPE_FLOAT16 && l->sdtype == AICF_DTYPE_FLOAT32))) {
            res = aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "plan: constant %d '%s': no conversion from %s to storage %s", t, aicf__cu_tname(p, t),
                            aicf_dtype_name(tt->dtype), aicf_dtype_name(l->sdtype));
            break;
        }
        if (numel < 0 || (size_t)numel * aicf_dtype_size(tt->dtype) != tt->data_bytes ||
            (size_t)numel * aicf_dtype_size(l->sdtype) != l->bytes)
            ok = 0;
        if (!ok) {
            res = aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: constant %d '%s': %zu bytes of %s data and %zu bytes of %s storage disagree",
                            t, aicf__cu_tname(p, t), tt->data_bytes, aicf_dtype_name(tt->dtype), l->bytes, aicf_dtype_name(l->sdtype));
            break;
        }
        if (!chunk) {
            chunk = (unsigned char*)aicf__malloc(ctx, chunk_bytes);
            if (!chunk) {
                res = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "out of memory %s", what);
                break;
            }
        }
        {
            size_t es_dst = aicf_dtype_size(l->sdtype), per = chunk_bytes / 4, done = 0, n = (size_t)numel;
            while (done < n && res == AICF_SUCCESS) {
                size_t k = AICF__MIN(per, n - done), i;
                if (l->sdtype == AICF_DTYPE_FLOAT16) {
                    const float* src = (const float*)tt->data + done;
                    uint16_t* dst = (uint16_t*)chunk;
                    for (i = 0; i < k; ++i) {
                        float f;
                        memcpy(&f, src + i, 4);
                        dst[i] = aicf__f32_to_f16(f);
                    }
                } else {
                    const uint16_t* src = (const uint16_t*)tt->data + done;
                    float* dst = (float*)chunk;
                    for (i = 0; i < k; ++i) {
                        uint16_t h;
                        memcpy(&h, src + i, 2);
                        dst[i] = aicf__f16_to_f32(h);
                    }
                }
                r = cu->api.cuMemcpyHtoD(x->weights + l->offset + done * es_dst, chunk, k * es_dst);
                if (r != AICF__CUDA_SUCCESS) res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", what);
                done += k;
            }
        }
    }
    aicf__free(ctx, chunk);
    return res;
}

/* Checks the boundary tensor of input/output i and returns its arena range. */
static aicf_result aicf__cuda_boundary(aicf_context* ctx, const aicf_plan* p, int is_out, int i, size_t* bytes) {
    int t = is_out ? (p->out_boundary ? p->out_boundary[i] : p->out_tensor[i]) : (p->in_boundary ? p->in_boundary[i] : p->in_tensor[i]);
    int hops = 0;
    const aicf__loc* l;
    if (!p->g || !p->loc || t < 0 || t >= p->g->n_tensors)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: %s %d: boundary tensor %d out of range", is_out ? "output" : "input", i, t);
    l = &p->loc[t];
    while (l->space == AICF__SPACE_NONE && l->alias_of >= 0 && l->alias_of < p->g->n_tensors && hops++ < p->g->n_tensors) l = &p->loc[l->alias_of];
    if (l->space == AICF__SPACE_NONE || (!is_out && l->space != AICF__SPACE_ARENA))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "plan: %s %d '%s' has no %s storage", is_out ? "output" : "input", i,
                         aicf__cu_tname(p, t), is_out ? "device" : "arena");
    *bytes = l->bytes;
    return AICF_SUCCESS;
}

static int aicf__cu_bnd_tensor(const aicf_plan* p, int is_out, int i) {
    return is_out ? (p->out_boundary ? p->out_boundary[i] : p->out_tensor[i]) : (p->in_boundary ? p->in_boundary[i] : p->in_tensor[i]);
}

static aicf_result aicf__cuda_exec_build(aicf_exec* e, struct aicf__cuda* cu, aicf__cuda_exec* x, aicf__cuda_emit_fn emit) {
    aicf_context* ctx = e->ctx;
    aicf_plan* p = e->plan;
    aicf__cuda_emitter em;
    aicf__CUresult r;
    aicf_result res;
    int i, device_io = (e->desc.flags & AICF_EXEC_DEVICE_IO) ? 1 : 0;
    size_t off = 0, ws = 0;
    char what[600];
    /* stream */
    if (e->desc.stream) {
        x->stream = (aicf__CUstream)e->desc.stream;
        x->owns_stream = 0;
    } else {
        r = cu->api.cuStreamCreate(&x->stream, AICF__CU_STREAM_NON_BLOCKING);
        if (r != AICF__CUDA_SUCCESS) {
            x->stream = NULL;
            return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuStreamCreate", "exec stream");
        }
        x->owns_stream = 1;
    }
    /* device memory */
    x->arena_bytes = p->arena_bytes;
    x->weights_bytes = p->weights_bytes;
    if (p->backend) ws = ((const aicf__cuda_plan_data*)p->backend)->workspace_bytes;
    x->workspace_bytes = ws;
    res = aicf__cuda_alloc(ctx, cu, &x->arena, x->arena_bytes, "activation arena");
    if (res == AICF_SUCCESS) res = aicf__cuda_alloc(ctx, cu, &x->weights, x->weights_bytes, "weights");
    if (res == AICF_SUCCESS) res = aicf__cuda_alloc(ctx, cu, &x->workspace, x->workspace_bytes, "cuBLASLt workspace");
    if (res == AICF_SUCCESS && p->backend && ((const aicf__cuda_plan_data*)p->backend)->persistent > 0) {
        static const uint32_t zero[1024] = {0}; /* the region is zeroed 4 KB at a time (a few KB per persistent launch) */
        size_t sb = ((const aicf__cuda_plan_data*)p->backend)->sync_bytes, at;
        if (sb < AICF__CUDA_SYNC_BYTES) sb = AICF__CUDA_SYNC_BYTES;
        res = aicf__cuda_alloc(ctx, cu, &x->sync, sb, "sync region of the persistent kernels (epoch words, hand-off buffers)");
        for (at = 0; res == AICF_SUCCESS && at < sb; at += sizeof zero) {
            r = cu->api.cuMemcpyHtoD(x->sync + at, zero, sb - at < sizeof zero ? sb - at : sizeof zero);
            if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", "zeroing the sync region");
        }
    }
    if (res != AICF_SUCCESS) return res;
    res = aicf__cuda_upload_weights(ctx, cu, p, x);
    if (res != AICF_SUCCESS) return res;
    /* pinned staging for every input and output */
    x->in_off = (size_t*)aicf__calloc(ctx, (size_t)(p->n_in > 0 ? p->n_in : 1), sizeof(size_t));
    x->out_off = (size_t*)aicf__calloc(ctx, (size_t)(p->n_out > 0 ? p->n_out : 1), sizeof(size_t));
    x->modules = (aicf__CUmodule*)aicf__calloc(ctx, AICF__KT_NUM_MODULES > 0 ? (size_t)AICF__KT_NUM_MODULES : 1u, sizeof(aicf__CUmodule));
    x->functions = (aicf__CUfunction*)aicf__calloc(ctx, AICF__KT_NUM_KERNELS > 0 ? (size_t)AICF__KT_NUM_KERNELS : 1u, sizeof(aicf__CUfunction));
    if (!x->in_off || !x->out_off || !x->modules || !x->functions) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory");
    for (i = 0; i < p->n_in + p->n_out; ++i) {
        int is_out = i >= p->n_in, k = is_out ? i - p->n_in : i;
        if (device_io) break; /* no staging: inputs and outputs stay on the device */
        size_t bytes = 0;
        /* an output folded to a constant at plan time is served from the host (aicf_exec_get_output) */
        if (is_out && (p->g->tensors[aicf__cu_bnd_tensor(p, 1, k)].flags & AICF__T_CONST)) continue;
        res = aicf__cuda_boundary(ctx, p, is_out, k, &bytes);
        if (res != AICF_SUCCESS) return res;
        if (is_out) x->out_off[k] = off;
        else x->in_off[k] = off;
        if (bytes > SIZE_MAX - 255u || !aicf__add_size(off, (bytes + 255u) & ~(size_t)255u, &off))
            return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_exec_create: staging size overflows");
    }
    x->staging_bytes = off;
    if (off) {
        void* h = NULL;
        r = cu->api.cuMemHostAlloc(&h, off, AICF__CU_MEMHOSTALLOC_PORTABLE);
        if (r != AICF__CUDA_SUCCESS) {
            aicf__cu_fmt(what, sizeof what, "pinned staging buffers of %zu bytes", off);
            return aicf__cu_fail(ctx, cu, r == AICF__CUDA_ERROR_OUT_OF_MEMORY ? AICF_ERROR_OUT_OF_MEMORY : AICF_ERROR_CUDA, r, "cuMemHostAlloc", what);
        }
        x->staging = (unsigned char*)h;
        memset(x->staging, 0, off); /* an input never set copies zeros, not stale host memory */
    }
    /* the graph: a chain */
    r = cu->api.cuGraphCreate(&x->graph, 0);
    if (r != AICF__CUDA_SUCCESS) {
        x->graph = NULL;
        return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuGraphCreate", NULL);
    }
    memset(&em, 0, sizeof em);
    em.ctx = ctx;
    em.cu = cu;
    em.plan = p;
    em.x = x;
    em.graph = x->graph;
    em.step = -1;
    em.pdl = cu->pdl && (e->desc.flags & AICF_EXEC_PDL) != 0;
    if (!device_io) {
        for (i = 0; i < p->n_in; ++i) {
            size_t bytes = 0;
            int t = aicf__cu_bnd_tensor(p, 0, i);
            aicf__cuda_boundary(ctx, p, 0, i, &bytes);
            aicf__cu_fmt(what, sizeof what, "copy-in of input %d '%s' (%zu bytes)", i, aicf__cu_tname(p, t), bytes);
            res = aicf__em_memcpy(&em, (aicf__CUdeviceptr)aicf__cuda_tensor_ptr(&em, t), NULL, 0, x->staging + x->in_off[i], bytes, what);
            if (res != AICF_SUCCESS) return res;
        }
    }
    if (e->desc.flags & AICF_EXEC_PROFILE) {
        x->prof_ev = (aicf__CUevent*)aicf__calloc(ctx, (size_t)p->n_steps + 1u, sizeof(aicf__CUevent));
        if (!x->prof_ev) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory");
        x->n_prof_ev = p->n_steps + 1;
        for (i = 0; i < x->n_prof_ev; ++i) {
            r = cu->api.cuEventCreate(&x->prof_ev[i], AICF__CU_EVENT_DEFAULT);
            if (r != AICF__CUDA_SUCCESS) {
                x->prof_ev[i] = NULL;
                return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuEventCreate", "AICF_EXEC_PROFILE timing events");
            }
        }
    }
    for (i = 0; i <= p->n_steps; ++i) {
        if (x->prof_ev) { /* the event before step i (after step i - 1) */
            aicf__CUgraphNode node;
            r = cu->api.cuGraphAddEventRecordNode(&node, x->graph, em.has_last ? &em.last : NULL, em.has_last ? 1u : 0u,
                                                  x->prof_ev[i]);
            if (r != AICF__CUDA_SUCCESS) {
                aicf__cu_fmt(what, sizeof what, "AICF_EXEC_PROFILE event before step %d", i);
                return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuGraphAddEventRecordNode", what);
            }
            aicf__em_chain(&em, node);
        }
        if (i == p->n_steps) break;
        em.step = i;
        res = emit(&em, p, i);
        if (res != AICF_SUCCESS) return res;
    }
    em.step = -1;
    if (!device_io) {
        for (i = 0; i < p->n_out; ++i) {
            size_t bytes = 0;
            int t = aicf__cu_bnd_tensor(p, 1, i);
            if (p->g->tensors[t].flags & AICF__T_CONST) continue;
            aicf__cuda_boundary(ctx, p, 1, i, &bytes);
            aicf__cu_fmt(what, sizeof what, "copy-out of output %d '%s' (%zu bytes)", i, aicf__cu_tname(p, t), bytes);
            res = aicf__em_memcpy(&em, 0, x->staging + x->out_off[i], (aicf__CUdeviceptr)aicf__cuda_tensor_ptr(&em, t), NULL, bytes, what);
            if (res != AICF_SUCCESS) return res;
        }
    }
    if (!em.has_last) { /* an empty plan still gets a launchable graph */
        aicf__CUgraphNode node;
        r = cu->api.cuGraphAddEmptyNode(&node, x->graph, NULL, 0);
        if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuGraphAddEmptyNode", NULL);
        aicf__em_chain(&em, node);
    }
    if (x->capture_stream) {
        cu->api.cuStreamDestroy(x->capture_stream);
        x->capture_stream = NULL;
    }
    r = cu->api.cuGraphInstantiateWithFlags(&x->graph_exec, x->graph, 0);
    if (r != AICF__CUDA_SUCCESS) {
        x->graph_exec = NULL;
        aicf__cu_fmt(what, sizeof what, "graph of %d nodes (%d kernel nodes)", x->graph_nodes, x->kernel_nodes);
        return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuGraphInstantiateWithFlags", what);
    }
    return AICF_SUCCESS;
}

/* aicf__cuda_exec_create with the step emitter as a parameter (tests pass their own). */
static aicf_result aicf__cuda_exec_create_with(aicf_exec* e, aicf__cuda_emit_fn emit) {
    struct aicf__cuda* cu;
    aicf__cuda_exec* x;
    aicf_result res;
    if (!e || !e->ctx || !e->plan || !emit) return AICF_ERROR_INVALID_ARGUMENT;
    cu = aicf__cuda_ready(e->ctx, &res);
    if (!cu) return res;
    if (e->plan->n_in < 0 || e->plan->n_out < 0 || (e->plan->n_in && !e->plan->in_tensor) || (e->plan->n_out && !e->plan->out_tensor))
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_create: plan has inconsistent inputs/outputs");
    x = (aicf__cuda_exec*)aicf__calloc(e->ctx, 1, sizeof *x);
    if (!x) return aicf__err(e->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory");
    res = aicf__cuda_push(e->ctx, cu);
    if (res != AICF_SUCCESS) {
        aicf__free(e->ctx, x);
        return res;
    }
    res = aicf__cuda_exec_build(e, cu, x, emit);
    if (res != AICF_SUCCESS) {
        aicf__cuda_exec_free(e->ctx, cu, x);
        aicf__cuda_pop(cu);
        return res;
    }
    aicf__cuda_pop(cu);
    e->backend = x;
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_create(aicf_exec* e) { return aicf__cuda_exec_create_with(e, aicf__cuda_emit_step); }

void aicf__cuda_exec_destroy(aicf_exec* e) {
    struct aicf__cuda* cu;
    aicf__cuda_exec* x;
    if (!e || !e->backend) return;
    x = (aicf__cuda_exec*)e->backend;
    cu = e->ctx ? e->ctx->cuda : NULL;
    e->backend = NULL;
    if (!cu || !cu->ready) return; /* cannot happen: an exec holds a ready context */
    if (aicf__cuda_push(e->ctx, cu) != AICF_SUCCESS) {
        aicf__cuda_exec_free(e->ctx, cu, x); /* best effort without a current context */
        return;
    }
    aicf__cuda_exec_free(e->ctx, cu, x);
    aicf__cuda_pop(cu);
}

static aicf__cuda_exec* aicf__cuda_x(aicf_exec* e, struct aicf__cuda** cu, const char* who) {
    if (!e || !e->backend || !e->ctx || !e->ctx->cuda || !e->ctx->cuda->ready) {
        if (e && e->ctx) aicf__err(e->ctx, AICF_ERROR_STATE, "%s: exec has no CUDA state", who);
        return NULL;
    }
    *cu = e->ctx->cuda;
    return (aicf__cuda_exec*)e->backend;
}

/* Waits for a launched graph before host staging is touched. Context must be current. */
static aicf_result aicf__cuda_settle(aicf_exec* e, struct aicf__cuda* cu, aicf__cuda_exec* x) {
    aicf__CUresult r;
    if (!x->in_flight) return AICF_SUCCESS;
    r = cu->api.cuStreamSynchronize(x->stream);
    x->in_flight = 0;
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, "cuStreamSynchronize", "waiting for the exec's graph");
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_set_input(aicf_exec* e, int index, const void* data, size_t bytes, int device) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_set_input");
    aicf__cuda_emitter em;
    aicf_result res;
    aicf__CUresult r = AICF__CUDA_SUCCESS;
    size_t need = 0;
    int t, pushed = 0;
    const char* fn = "";
    if (!x) return AICF_ERROR_STATE;
    if (index < 0 || index >= e->plan->n_in)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_set_input: index %d out of range (%d inputs)", index, e->plan->n_in);
    res = aicf__cuda_boundary(e->ctx, e->plan, 0, index, &need);
    if (res != AICF_SUCCESS) return res;
    t = aicf__cu_bnd_tensor(e->plan, 0, index);
    if (bytes != need)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_set_input: input %d '%s' takes %zu bytes, got %zu", index,
                         aicf__cu_tname(e->plan, t), need, bytes);
    if (bytes && !data) return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_set_input: input %d: data is NULL", index);
    if (bytes == 0) return AICF_SUCCESS;
    memset(&em, 0, sizeof em);
    em.plan = e->plan;
    em.x = x;
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    if (!(e->desc.flags & AICF_EXEC_DEVICE_IO)) {
        /* into pinned staging; the graph's copy-in node moves it */
        res = aicf__cuda_settle(e, cu, x);
        if (res == AICF_SUCCESS) {
            if (device) {
                fn = "cuMemcpyDtoHAsync";
                r = cu->api.cuMemcpyDtoHAsync(x->staging + x->in_off[index], (aicf__CUdeviceptr)(uintptr_t)data, bytes, x->stream);
            } else {
                memcpy(x->staging + x->in_off[index], data, bytes);
            }
        }
    } else {
        aicf__CUdeviceptr dst = (aicf__CUdeviceptr)aicf__cuda_tensor_ptr(&em, t);
        if (device) {
            fn = "cuMemcpyDtoDAsync";
            r = cu->api.cuMemcpyDtoDAsync(dst, (aicf__CUdeviceptr)(uintptr_t)data, bytes, x->stream);
        } else {
            fn = "cuMemcpyHtoDAsync"; /* from pageable memory: returns once the source is consumed */
            r = cu->api.cuMemcpyHtoDAsync(dst, data, bytes, x->stream);
        }
    }
    aicf__cuda_leave(cu, pushed);
    if (res != AICF_SUCCESS) return res;
    if (r != AICF__CUDA_SUCCESS) {
        char what[300];
        aicf__cu_fmt(what, sizeof what, "input %d '%s' (%zu bytes)", index, aicf__cu_tname(e->plan, t), bytes);
        return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, fn, what);
    }
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_launch(aicf_exec* e) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_launch");
    aicf__CUresult r;
    aicf_result res;
    int pushed = 0;
    if (!x) return AICF_ERROR_STATE;
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    r = cu->api.cuGraphLaunch(x->graph_exec, x->stream);
    aicf__cuda_leave(cu, pushed);
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, "cuGraphLaunch", NULL);
    x->in_flight = 1;
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_wait(aicf_exec* e) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_wait");
    aicf__CUresult r;
    aicf_result res;
    int pushed = 0;
    if (!x) return AICF_ERROR_STATE;
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    r = cu->api.cuStreamSynchronize(x->stream);
    aicf__cuda_leave(cu, pushed);
    x->in_flight = 0;
    if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, "cuStreamSynchronize", "waiting for the exec's graph");
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_get_output(aicf_exec* e, int index, void* data, size_t bytes) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_get_output");
    aicf__cuda_emitter em;
    aicf_result res;
    aicf__CUresult r = AICF__CUDA_SUCCESS;
    size_t need = 0;
    int t, pushed = 0;
    const char* fn = "cuStreamSynchronize";
    if (!x) return AICF_ERROR_STATE;
    if (index < 0 || index >= e->plan->n_out)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_get_output: index %d out of range (%d outputs)", index, e->plan->n_out);
    res = aicf__cuda_boundary(e->ctx, e->plan, 1, index, &need);
    if (res != AICF_SUCCESS) return res;
    t = aicf__cu_bnd_tensor(e->plan, 1, index);
    if (bytes != need)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_get_output: output %d '%s' has %zu bytes, buffer is %zu", index,
                         aicf__cu_tname(e->plan, t), need, bytes);
    if (bytes && !data) return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_get_output: output %d: data is NULL", index);
    if (bytes == 0) return AICF_SUCCESS;
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    res = aicf__cuda_settle(e, cu, x);
    if (res == AICF_SUCCESS) {
        if (!(e->desc.flags & AICF_EXEC_DEVICE_IO)) {
            memcpy(data, x->staging + x->out_off[index], bytes);
        } else {
            memset(&em, 0, sizeof em);
            em.plan = e->plan;
            em.x = x;
            fn = "cuMemcpyDtoHAsync";
            r = cu->api.cuMemcpyDtoHAsync(data, (aicf__CUdeviceptr)aicf__cuda_tensor_ptr(&em, t), bytes, x->stream);
            if (r == AICF__CUDA_SUCCESS) {
                fn = "cuStreamSynchronize";
                r = cu->api.cuStreamSynchronize(x->stream);
            }
        }
    }
    aicf__cuda_leave(cu, pushed);
    if (res != AICF_SUCCESS) return res;
    if (r != AICF__CUDA_SUCCESS) {
        char what[300];
        aicf__cu_fmt(what, sizeof what, "output %d '%s' (%zu bytes)", index, aicf__cu_tname(e->plan, t), bytes);
        return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, fn, what);
    }
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_device_ptr(aicf_exec* e, int tensor, uint64_t* out) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_device_ptr");
    aicf__cuda_emitter em;
    if (!out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = 0;
    if (!x) return AICF_ERROR_STATE;
    memset(&em, 0, sizeof em);
    em.plan = e->plan;
    em.x = x;
    *out = aicf__cuda_tensor_ptr(&em, tensor);
    if (!*out)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "tensor %d '%s' has no device storage", tensor, aicf__cu_tname(e->plan, tensor));
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_exec_stats(const aicf_exec* e, aicf_exec_stats* out) {
    const aicf__cuda_exec* x;
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    x = (const aicf__cuda_exec*)e->backend;
    if (!x) return AICF_ERROR_STATE;
    out->graph_nodes = x->graph_nodes;
    out->kernel_nodes = x->kernel_nodes;
    out->programmatic_edges = x->programmatic_edges;
    out->device_bytes = x->arena_bytes + x->weights_bytes + x->workspace_bytes + x->staging_bytes;
    return AICF_SUCCESS;
}

/* aicf_exec_benchmark on CUDA: warmup + iters replays, each between two events on the exec's
   stream; the launch goes through aicf__cuda_exec_launch (what aicf_exec_launch costs). */
static aicf_result aicf__cuda_exec_benchmark(aicf_exec* e, int warmup, int iters, float* gpu_us, float* host_launch_us) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_benchmark");
    aicf__CUevent ev[2] = {NULL, NULL};
    aicf__CUresult r = AICF__CUDA_SUCCESS;
    const char* fn = "";
    aicf_result res;
    int pushed = 0, i = 0, n = warmup + iters;
    if (!x) return AICF_ERROR_STATE;
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    res = aicf__cuda_settle(e, cu, x);
    if (res == AICF_SUCCESS) {
        fn = "cuEventCreate";
        r = cu->api.cuEventCreate(&ev[0], AICF__CU_EVENT_DEFAULT);
        if (r != AICF__CUDA_SUCCESS) ev[0] = NULL;
        else if ((r = cu->api.cuEventCreate(&ev[1], AICF__CU_EVENT_DEFAULT)) != AICF__CUDA_SUCCESS) ev[1] = NULL;
    }
    for (i = 0; res == AICF_SUCCESS && r == AICF__CUDA_SUCCESS && i < n; ++i) {
        double t0, t1;
        float ms = 0.0f;
        fn = "cuEventRecord";
        if ((r = cu->api.cuEventRecord(ev[0], x->stream)) != AICF__CUDA_SUCCESS) break;
        t0 = aicf__now_us();
        res = aicf__cuda_exec_launch(e);
        t1 = aicf__now_us();
        if (res != AICF_SUCCESS) break;
        if ((r = cu->api.cuEventRecord(ev[1], x->stream)) != AICF__CUDA_SUCCESS) break;
        fn = "cuEventSynchronize";
        if ((r = cu->api.cuEventSynchronize(ev[1])) != AICF__CUDA_SUCCESS) break;
        x->in_flight = 0; /* the end event follows the graph on the stream */
        fn = "cuEventElapsedTime";
        if ((r = cu->api.cuEventElapsedTime(&ms, ev[0], ev[1])) != AICF__CUDA_SUCCESS) break;
        if (i >= warmup) {
            if (gpu_us) gpu_us[i - warmup] = ms * 1000.0f;
            if (host_launch_us) host_launch_us[i - warmup] = (float)(t1 - t0);
        }
    }
    if (ev[0]) cu->api.cuEventDestroy(ev[0]);
    if (ev[1]) cu->api.cuEventDestroy(ev[1]);
    aicf__cuda_leave(cu, pushed);
    if (res != AICF_SUCCESS) return res; /* its message is set */
    if (r != AICF__CUDA_SUCCESS) {
        char what[96];
        if (ev[0] && ev[1]) aicf__cu_fmt(what, sizeof what, "aicf_exec_benchmark, replay %d of %d", i + 1, n);
        else aicf__cu_fmt(what, sizeof what, "aicf_exec_benchmark, timing events");
        return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, fn, what);
    }
    return AICF_SUCCESS;
}

/* aicf_exec_profile on CUDA: the graph's own events (AICF_EXEC_PROFILE) give each step's time
   per replay into t[iters * n_steps]; the caller takes the medians. */
static aicf_result aicf__cuda_exec_profile(aicf_exec* e, int warmup, int iters, float* t) {
    struct aicf__cuda* cu = NULL;
    aicf__cuda_exec* x = aicf__cuda_x(e, &cu, "aicf_exec_profile");
    aicf__CUresult r = AICF__CUDA_SUCCESS;
    const char* fn = "";
    aicf_result res;
    int pushed = 0, i = 0, s = 0, n = warmup + iters, ns;
    if (!x) return AICF_ERROR_STATE;
    ns = e->plan->n_steps;
    if (!x->prof_ev || x->n_prof_ev != ns + 1)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_profile: the exec was created without AICF_EXEC_PROFILE");
    res = aicf__cuda_enter(e->ctx, cu, &pushed);
    if (res != AICF_SUCCESS) return res;
    res = aicf__cuda_settle(e, cu, x);
    for (i = 0; res == AICF_SUCCESS && i < n; ++i) {
        res = aicf__cuda_exec_launch(e);
        if (res != AICF_SUCCESS) break;
        fn = "cuStreamSynchronize";
        if ((r = cu->api.cuStreamSynchronize(x->stream)) != AICF__CUDA_SUCCESS) break;
        x->in_flight = 0;
        if (i < warmup) continue;
        fn = "cuEventElapsedTime";
        for (s = 0; s < ns; ++s) {
            float ms = 0.0f;
            if ((r = cu->api.cuEventElapsedTime(&ms, x->prof_ev[s], x->prof_ev[s + 1])) != AICF__CUDA_SUCCESS) break;
            t[(size_t)(i - warmup) * (size_t)ns + (size_t)s] = ms * 1000.0f;
        }
        if (r != AICF__CUDA_SUCCESS) break;
    }
    aicf__cuda_leave(cu, pushed);
    if (res != AICF_SUCCESS) return res;
    if (r != AICF__CUDA_SUCCESS) {
        char what[96];
        aicf__cu_fmt(what, sizeof what, "aicf_exec_profile, replay %d of %d, step %d", i + 1, n, s);
        return aicf__cu_fail(e->ctx, cu, AICF_ERROR_CUDA, r, fn, what);
    }
    return AICF_SUCCESS;
}

/* ---- autotuning (policy.autotune) ----
   Each Conv, Gemm and MatMul step that is not pinned is lowered under every candidate choice
   (aicf__tune_cands) and timed alone: the step's launches, AICF__TUNE_REPS copies chained in one
   CUDA graph (so a candidate of several launches pays for its extra nodes, as in the exec's
   graph), launched once to warm up and AICF__TUNE_RUNS times between two events; the median
   over the copies is the candidate's time. The memory is the plan's: its arena layout (with
   each candidate's scratch after it), its weights uploaded as the exec would, the arena filled
   with random float16 values in [-1, 1) (read as float32 they are finite and small too). A
   candidate that does not apply (aicf_plan_create's pinned-choice check, here silent) is
   skipped, and so is one whose lowered program equals a candidate's already timed
   (aicf__cuda_step_hash: a K split equal to the rule's, a cuBLASLt algorithm listed twice); the
   fastest of those timed wins, the first listed on a tie. */
#define AICF__TUNE_REPS 8
#define AICF__TUNE_RUNS 5

typedef struct aicf__tune_cand {
    int choice, lt;
} aicf__tune_cand;

static int aicf__tune_cands(const aicf_plan* p, int si, aicf__tune_cand* c) {
    const aicf__step* st = &p->steps[si];
    int n = 0, k, op;
    if (st->kind != AICF__STEP_NODE || st->node < 0 || st->node >= p->g->n_nodes || st->choice_src != AICF__CHOICE_FROM_RULE) return 0;
    op = (int)p->g->nodes[st->node].op;
    if (op == (int)AICF__OP_Conv) {
        c[n].choice = AICF_CHOICE_DIRECT, c[n++].lt = 0;
        for (k = 0; k <= 6; k++) c[n].choice = AICF_CHOICE_IMPLICIT_GEMM_TC, c[n++].lt = k; /* the rule's split, then 1..32 */
        for (k = 0; k < AICF_AUTOTUNE_CUBLASLT_ALGOS; k++) c[n].choice = AICF_CHOICE_IM2COL_GEMM, c[n++].lt = k;
    } else if (op == (int)AICF__OP_Gemm || op == (int)AICF__OP_MatMul) {
        c[n].choice = AICF_CHOICE_GENERATED, c[n++].lt = 0;
        for (k = 0; k < AICF_AUTOTUNE_CUBLASLT_ALGOS; k++) c[n].choice = AICF_CHOICE_CUBLASLT, c[n++].lt = k;
    }
    /* last, the rules' own lowering: timed only where it differs from every candidate above (a
       pinned choice may lower differently: implicit_gemm_tc takes the rows kernel wherever it fits,
       AUTO only where its blocks fill the device), so tuning never drops what the rules would run */
    if (n > 0) c[n].choice = AICF_CHOICE_RULE, c[n++].lt = 0;
    return n;
}
typedef char aicf__tune_check_max[9 + AICF_AUTOTUNE_CUBLASLT_ALGOS <= AICF__TUNE_MAX ? 1 : -1];

static int aicf__tune_cmp_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return x < y ? -1 : x > y;
}

/* Times step si as lowered now (see above) into *ns. */
static aicf_result aicf__tune_time(aicf_context* ctx, struct aicf__cuda* cu, aicf_plan* p, int si, aicf__cuda_exec* x,
                                   aicf__CUevent ev[2], int64_t* ns) {
    aicf__cuda_emitter em;
    aicf__CUgraph graph = NULL;
    aicf__CUgraphExec ge = NULL;
    aicf__CUresult r;
    aicf_result res = AICF_SUCCESS;
    const char* fn = "cuGraphCreate";
    float ms[AICF__TUNE_RUNS];
    int k;
    char what[160];
    *ns = 0;
    r = cu->api.cuGraphCreate(&graph, 0);
    if (r != AICF__CUDA_SUCCESS) {
        graph = NULL;
        goto cuda_fail;
    }
    memset(&em, 0, sizeof em);
    em.ctx = ctx;
    em.cu = cu;
    em.plan = p;
    em.x = x;
    em.graph = graph;
    em.step = si;
    for (k = 0; k < AICF__TUNE_REPS && res == AICF_SUCCESS; k++) res = aicf__cuda_emit_step(&em, p, si);
    if (res != AICF_SUCCESS || !em.has_last) goto done; /* nothing launched: 0 ns */
    fn = "cuGraphInstantiateWithFlags";
    if ((r = cu->api.cuGraphInstantiateWithFlags(&ge, graph, 0)) != AICF__CUDA_SUCCESS) {
        ge = NULL;
        goto cuda_fail;
    }
    fn = "cuGraphLaunch";
    if ((r = cu->api.cuGraphLaunch(ge, x->stream)) != AICF__CUDA_SUCCESS) goto cuda_fail;
    for (k = 0; k < AICF__TUNE_RUNS; k++) {
        fn = "cuEventRecord";
        if ((r = cu->api.cuEventRecord(ev[0], x->stream)) != AICF__CUDA_SUCCESS) goto cuda_fail;
        fn = "cuGraphLaunch";
        if ((r = cu->api.cuGraphLaunch(ge, x->stream)) != AICF__CUDA_SUCCESS) goto cuda_fail;
        fn = "cuEventRecord";
        if ((r = cu->api.cuEventRecord(ev[1], x->stream)) != AICF__CUDA_SUCCESS) goto cuda_fail;
        fn = "cuEventSynchronize";
        if ((r = cu->api.cuEventSynchronize(ev[1])) != AICF__CUDA_SUCCESS) goto cuda_fail;
        fn = "cuEventElapsedTime";
        if ((r = cu->api.cuEventElapsedTime(&ms[k], ev[0], ev[1])) != AICF__CUDA_SUCCESS) goto cuda_fail;
    }
    qsort(ms, AICF__TUNE_RUNS, sizeof ms[0], aicf__tune_cmp_float);
    *ns = (int64_t)((double)ms[AICF__TUNE_RUNS / 2] * 1e6 / AICF__TUNE_REPS + 0.5);
    goto done;
cuda_fail:
    aicf__cu_fmt(what, sizeof what, "autotuning step %d (%s)", si, p->steps[si].kernel);
    res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, fn, what);
done:
    if (ge) cu->api.cuGraphExecDestroy(ge);
    if (graph) cu->api.cuGraphDestroy(graph);
    return res;
}

aicf_result aicf__cuda_tune(aicf_plan* p, int* tunable) {
    aicf_context* ctx;
    struct aicf__cuda* cu;
    aicf__cuda_exec* x = NULL;
    aicf__CUevent ev[2] = {NULL, NULL};
    aicf__CUresult r;
    aicf_result res;
    size_t base, max_scratch = 0, total, off;
    uint16_t* fill = NULL;
    const size_t fill_n = (size_t)1 << 19; /* 1 MiB of float16 */
    uint32_t rng = 0x9e3779b9u;
    int si, k, n_tunable = 0;
    char saved[AICF__ERR_CAP];
    if (tunable) *tunable = 0;
    if (!p || !p->ctx || !p->g || !tunable) return AICF_ERROR_INVALID_ARGUMENT;
    ctx = p->ctx;
    cu = aicf__cuda_ready(ctx, &res);
    if (!cu) return res;
    base = (p->arena_bytes + 255u) & ~(size_t)255u;
    /* pass 1: the candidates' scratch, to size the arena */
    for (si = 0; si < p->n_steps; si++) {
        aicf__tune_cand c[AICF__TUNE_MAX];
        aicf__step* st = &p->steps[si];
        int n = aicf__tune_cands(p, si, c);
        n_tunable += n > 1;
        for (k = 0; k < n; k++) {
            size_t b = 0;
            st->choice = c[k].choice;
            st->choice_lt = c[k].lt;
            st->choice_src = AICF__CHOICE_TRYING;
            res = aicf__cuda_step_scratch(p, si, &b);
            st->choice = AICF_CHOICE_RULE, st->choice_lt = 0, st->choice_src = AICF__CHOICE_FROM_RULE;
            if (res != AICF_SUCCESS) return res;
            if (b > max_scratch) max_scratch = b;
        }
    }
    *tunable = n_tunable;
    if (n_tunable == 0) return AICF_SUCCESS;
    if (!aicf__add_size(base, (max_scratch + 255u) & ~(size_t)255u, &total))
        return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_plan_create: autotuning: arena and scratch exceed the address space");
    x = aicf__cuda_kernel_exec_new(ctx);
    fill = (uint16_t*)aicf__malloc(ctx, fill_n * sizeof *fill);
    if (!x || !fill) {
        aicf__free(ctx, fill);
        if (x) aicf__cuda_exec_free(ctx, cu, x); /* nothing loaded yet: no driver call */
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: autotuning: out of memory");
    }
    res = aicf__cuda_push(ctx, cu);
    if (res != AICF_SUCCESS) {
        aicf__free(ctx, fill);
        aicf__free(ctx, x->modules);
        aicf__free(ctx, x->functions);
        aicf__free(ctx, x);
        return res;
    }
    for (k = 0; k < (int)fill_n; k++) { /* float16 in [-1, 1): sign, exponent 0..14, mantissa */
        rng = rng * 1664525u + 1013904223u;
        fill[k] = (uint16_t)(((rng >> 16) & 0x8000u) | ((((rng >> 10) % 15u) << 10)) | (rng & 0x3ffu));
    }
    x->arena_bytes = total;
    x->weights_bytes = p->weights_bytes;
    x->workspace_bytes = p->policy.workspace_limit ? p->policy.workspace_limit : AICF__CUDA_DEFAULT_WORKSPACE;
    r = cu->api.cuStreamCreate(&x->stream, AICF__CU_STREAM_NON_BLOCKING);
    if (r != AICF__CUDA_SUCCESS) {
        x->stream = NULL;
        res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuStreamCreate", "autotuning stream");
    } else {
        x->owns_stream = 1;
    }
    if (res == AICF_SUCCESS) res = aicf__cuda_alloc(ctx, cu, &x->arena, x->arena_bytes, "autotuning arena");
    if (res == AICF_SUCCESS) res = aicf__cuda_alloc(ctx, cu, &x->weights, x->weights_bytes, "autotuning weights");
    if (res == AICF_SUCCESS) res = aicf__cuda_alloc(ctx, cu, &x->workspace, x->workspace_bytes, "autotuning cuBLASLt workspace");
    if (res == AICF_SUCCESS) res = aicf__cuda_upload_weights(ctx, cu, p, x);
    for (off = 0; res == AICF_SUCCESS && off < x->arena_bytes; off += fill_n * sizeof *fill) {
        size_t n = AICF__MIN(fill_n * sizeof *fill, x->arena_bytes - off);
        if ((r = cu->api.cuMemcpyHtoD(x->arena + off, fill, n)) != AICF__CUDA_SUCCESS)
            res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", "autotuning: filling the arena");
    }
    for (k = 0; k < 2 && res == AICF_SUCCESS; k++)
        if ((r = cu->api.cuEventCreate(&ev[k], AICF__CU_EVENT_DEFAULT)) != AICF__CUDA_SUCCESS) {
            ev[k] = NULL;
            res = aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuEventCreate", "autotuning timing events");
        }
    /* pass 2: lower and time each candidate */
    for (si = 0; si < p->n_steps && res == AICF_SUCCESS; si++) {
        aicf__tune_cand c[AICF__TUNE_MAX];
        aicf__step* st = &p->steps[si];
        size_t keep_bytes = st->scratch_bytes, keep_off = st->scratch_offset;
        int n = aicf__tune_cands(p, si, c), best = -1, n_t = 0;
        struct aicf__tuned t[AICF__TUNE_MAX];
        uint64_t hash[AICF__TUNE_MAX];
        if (n < 2) continue;
        for (k = 0; k < n && res == AICF_SUCCESS; k++) {
            size_t b = 0;
            aicf_result lr;
            st->choice = c[k].choice;
            st->choice_lt = c[k].lt;
            st->choice_src = AICF__CHOICE_TRYING;
            res = aicf__cuda_step_scratch(p, si, &b);
            if (res != AICF_SUCCESS) break;
            st->scratch_bytes = b;
            st->scratch_offset = b ? base : 0;
            aicf__free(ctx, st->backend);
            st->backend = NULL;
            memcpy(saved, AICF__ERRBUF(ctx), sizeof saved);
            lr = aicf__cuda_select_step(p, si);
            if (lr == AICF_ERROR_UNSUPPORTED) { /* the candidate does not apply to this step */
                memcpy(AICF__ERRBUF(ctx), saved, sizeof saved);
                continue;
            }
            if (lr != AICF_SUCCESS) {
                res = lr;
                break;
            }
            { /* the same launches as a candidate already timed (a K split equal to the rule's,
                 cuBLASLt returning one algorithm twice): not timed again */
                uint64_t h = aicf__cuda_step_hash(p, si);
                int j, dup = 0;
                for (j = 0; j < n_t; j++) dup |= hash[j] == h;
                if (dup) continue;
                hash[n_t] = h;
            }
            t[n_t].choice = c[k].choice;
            t[n_t].lt = c[k].lt;
            res = aicf__tune_time(ctx, cu, p, si, x, ev, &t[n_t].ns);
            if (res != AICF_SUCCESS) break;
            if (best < 0 || t[n_t].ns < t[best].ns) best = n_t;
            n_t++;
        }
        aicf__free(ctx, st->backend);
        st->backend = NULL;
        st->scratch_bytes = keep_bytes;
        st->scratch_offset = keep_off;
        st->choice = AICF_CHOICE_RULE, st->choice_lt = 0, st->choice_src = AICF__CHOICE_FROM_RULE;
        if (res == AICF_SUCCESS && n_t >= 2) {
            st->choice = t[best].choice;
            st->choice_lt = t[best].lt;
            st->choice_src = AICF__CHOICE_FROM_TUNE;
            st->n_tuned = n_t;
            memcpy(st->tuned, t, sizeof(t[0]) * (size_t)n_t);
        }
    }
    for (k = 0; k < 2; k++)
        if (ev[k]) cu->api.cuEventDestroy(ev[k]);
    if (x->stream) cu->api.cuStreamSynchronize(x->stream);
    aicf__cuda_exec_free(ctx, cu, x);
    aicf__free(ctx, fill);
    aicf__cuda_pop(cu);
    if (res != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        aicf__cu_fmt(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
        return aicf__err(ctx, res, "aicf_plan_create: autotuning (policy.autotune): %s", msg);
    }
    return res;
}

#else /* AICF_NO_CUDA: the backend compiled out; every entry reports it */

struct aicf__cuda {
    int ready;
};
struct aicf__cuda_emitter {
    int unused;
};

aicf_result aicf__cuda_init(aicf_context* ctx) {
    return aicf__err(ctx, AICF_ERROR_NO_DEVICE, "CUDA backend compiled out (AICF_NO_CUDA)");
}
void aicf__cuda_shutdown(aicf_context* ctx) { AICF__UNUSED(ctx); }
aicf_result aicf__cuda_device_info(aicf_context* ctx, aicf_device_info* out) {
    if (out) memset(out, 0, sizeof *out);
    return aicf__cuda_init(ctx);
}
aicf_result aicf__cuda_plan(aicf_plan* p) { return aicf__cuda_init(p ? p->ctx : NULL); }
aicf_result aicf__cuda_tune(aicf_plan* p, int* tunable) {
    if (tunable) *tunable = 0;
    return aicf__cuda_init(p ? p->ctx : NULL);
}
void aicf__cuda_plan_free(aicf_plan* p) { AICF__UNUSED(p); }
aicf_result aicf__cuda_exec_create(aicf_exec* e) { return aicf__cuda_init(e ? e->ctx : NULL); }
void aicf__cuda_exec_destroy(aicf_exec* e) { AICF__UNUSED(e); }
aicf_result aicf__cuda_exec_set_input(aicf_exec* e, int index, const void* data, size_t bytes, int device) {
    AICF__UNUSED(index); AICF__UNUSED(data); AICF__UNUSED(bytes); AICF__UNUSED(device);
    return aicf__cuda_init(e ? e->ctx : NULL);
}
aicf_result aicf__cuda_exec_launch(aicf_exec* e) { return aicf__cuda_init(e ? e->ctx : NULL); }
aicf_result aicf__cuda_exec_wait(aicf_exec* e) { return aicf__cuda_init(e ? e->ctx : NULL); }
aicf_result aicf__cuda_exec_get_output(aicf_exec* e, int index, void* data, size_t bytes) {
    AICF__UNUSED(index); AICF__UNUSED(data); AICF__UNUSED(bytes);
    return aicf__cuda_init(e ? e->ctx : NULL);
}
aicf_result aicf__cuda_exec_device_ptr(aicf_exec* e, int tensor, uint64_t* out) {
    AICF__UNUSED(tensor);
    if (out) *out = 0;
    return aicf__cuda_init(e ? e->ctx : NULL);
}
aicf_result aicf__cuda_exec_stats(const aicf_exec* e, aicf_exec_stats* out) {
    AICF__UNUSED(e);
    if (out) memset(out, 0, sizeof *out);
    return AICF_ERROR_NO_DEVICE;
}
uint64_t aicf__cuda_tensor_ptr(aicf__cuda_emitter* em, int t) { AICF__UNUSED(em); AICF__UNUSED(t); return 0; }
aicf_result aicf__cuda_encode_tmap(aicf__cuda_emitter* em, const aicf__tmap_req* rq, uint64_t addr, void* out) {
    AICF__UNUSED(em); AICF__UNUSED(rq); AICF__UNUSED(addr); AICF__UNUSED(out);
    return AICF_ERROR_NO_DEVICE;
}
int aicf__cuda_wg_ok(aicf_context* ctx, int k) { AICF__UNUSED(ctx); AICF__UNUSED(k); return 0; }
int aicf__cuda_cluster_cap(aicf_context* ctx, int k, unsigned threads, unsigned smem, unsigned cx, unsigned cy) {
    AICF__UNUSED(ctx); AICF__UNUSED(k); AICF__UNUSED(threads); AICF__UNUSED(smem); AICF__UNUSED(cx); AICF__UNUSED(cy);
    return -1;
}
uint64_t aicf__cuda_scratch_ptr(aicf__cuda_emitter* em) { AICF__UNUSED(em); return 0; }
uint64_t aicf__cuda_sync_ptr(aicf__cuda_emitter* em) { AICF__UNUSED(em); return 0; }
aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3], const unsigned block[3],
                                   unsigned shared_bytes, const void* args, size_t args_size, int pdl) {
    AICF__UNUSED(em); AICF__UNUSED(kernel_index); AICF__UNUSED(grid); AICF__UNUSED(block);
    AICF__UNUSED(shared_bytes); AICF__UNUSED(args); AICF__UNUSED(args_size); AICF__UNUSED(pdl);
    return AICF_ERROR_NO_DEVICE;
}
aicf_result aicf__cuda_emit_copy(aicf__cuda_emitter* em, uint64_t dst, uint64_t src, size_t bytes) {
    AICF__UNUSED(em); AICF__UNUSED(dst); AICF__UNUSED(src); AICF__UNUSED(bytes);
    return AICF_ERROR_NO_DEVICE;
}
aicf_result aicf__cuda_matmul_plan(aicf_plan* p, int si, const aicf__matmul_desc* d, int lt_index, void** algo, char* reason,
                                   size_t reason_cap) {
    AICF__UNUSED(si); AICF__UNUSED(d); AICF__UNUSED(lt_index); AICF__UNUSED(reason); AICF__UNUSED(reason_cap);
    if (algo) *algo = NULL;
    return aicf__cuda_init(p ? p->ctx : NULL);
}
aicf_result aicf__cuda_emit_matmul(aicf__cuda_emitter* em, const aicf__matmul_desc* d, const void* algo) {
    AICF__UNUSED(em); AICF__UNUSED(d); AICF__UNUSED(algo);
    return AICF_ERROR_NO_DEVICE;
}
int aicf__cuda_kernel_find(const char* name) { AICF__UNUSED(name); return -1; }
void aicf__cuda_lt_hint(aicf_plan* p, const aicf_graph* g, int node) { AICF__UNUSED(p); AICF__UNUSED(g); AICF__UNUSED(node); }
void aicf__cuda_lt_join(aicf_plan* p) { AICF__UNUSED(p); }
uint64_t aicf__cuda_table_fingerprint(const char** nvrtc, int* n_modules, int* n_kernels) {
    /* as an empty table (AICF_NO_KERNEL_TABLE) would have it */
    if (nvrtc) *nvrtc = "none";
    if (n_modules) *n_modules = 0;
    if (n_kernels) *n_kernels = 0;
    return aicf__fnv1a_str(aicf__fnv1a_str(AICF__FNV_BASIS, "none"), "");
}
static aicf_result aicf__cuda_exec_benchmark(aicf_exec* e, int warmup, int iters, float* gpu_us, float* host_launch_us) {
    AICF__UNUSED(warmup); AICF__UNUSED(iters); AICF__UNUSED(gpu_us); AICF__UNUSED(host_launch_us);
    return aicf__cuda_init(e ? e->ctx : NULL);
}

static aicf_result aicf__cuda_exec_profile(aicf_exec* e, int warmup, int iters, float* t) {
    AICF__UNUSED(warmup); AICF__UNUSED(iters); AICF__UNUSED(t);
    return aicf__cuda_init(e ? e->ctx : NULL);
}

#endif /* AICF_NO_CUDA */

/* ---- aicf_exec_benchmark (both backends) ---- */
aicf_result aicf_exec_benchmark(aicf_exec* e, int warmup, int iters, float* gpu_us, float* host_launch_us) {
    int i;
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (warmup < 0 || iters < 1 || (long long)warmup + (long long)iters > 0x7fffffffLL)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "aicf_exec_benchmark: warmup %d must be >= 0, iters %d >= 1, and their sum fit an int", warmup, iters);
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_benchmark(e, warmup, iters, gpu_us, host_launch_us);
    for (i = 0; i < warmup + iters; ++i) { /* CPU: a launch is the whole run, synchronous */
        double t0 = aicf__now_us(), t1;
        aicf_result r = aicf_exec_launch(e);
        t1 = aicf__now_us();
        if (r != AICF_SUCCESS) return r;
        if (i >= warmup) {
            if (gpu_us) gpu_us[i - warmup] = (float)(t1 - t0);
            if (host_launch_us) host_launch_us[i - warmup] = (float)(t1 - t0);
        }
    }
    return AICF_SUCCESS;
}

static int aicf__cmp_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return x < y ? -1 : x > y;
}

/* ---- aicf_exec_profile (both backends) ---- */
aicf_result aicf_exec_profile(aicf_exec* e, int warmup, int iters, float* step_us, int num_steps) {
    float *t, *col;
    size_t ns, k;
    int i, s;
    aicf_result r = AICF_SUCCESS;
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (!step_us || warmup < 0 || iters < 1 || (long long)warmup + (long long)iters > 0x7fffffffLL)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "aicf_exec_profile: step_us %s, warmup %d must be >= 0, iters %d >= 1, and their sum fit an int",
                         step_us ? "given" : "NULL", warmup, iters);
    if (num_steps != e->plan->n_steps)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_profile: num_steps %d, the plan has %d steps", num_steps,
                         e->plan->n_steps);
    if (num_steps == 0) return AICF_SUCCESS;
    ns = (size_t)num_steps;
    if ((size_t)iters > ((size_t)-1 / sizeof(float) - ns) / ns)
        return aicf__err(e->ctx, AICF_ERROR_LIMIT, "aicf_exec_profile: %d x %d samples overflow", iters, num_steps);
    t = (float*)aicf__malloc(e->ctx, ((size_t)iters * ns + (size_t)iters) * sizeof(float));
    if (!t) return aicf__err(e->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_profile: out of memory for %d x %d samples", iters, num_steps);
    col = t + (size_t)iters * ns;
    if (e->plan->target == AICF_BACKEND_CUDA) {
        r = aicf__cuda_exec_profile(e, warmup, iters, t);
    } else {
        for (i = 0; r == AICF_SUCCESS && i < warmup + iters; ++i)
            for (s = 0; r == AICF_SUCCESS && s < num_steps; ++s) {
                double t0 = aicf__now_us();
                r = aicf__cpu_exec_step(e, s);
                if (i >= warmup) t[(size_t)(i - warmup) * ns + (size_t)s] = (float)(aicf__now_us() - t0);
            }
    }
    if (r == AICF_SUCCESS)
        for (k = 0; k < ns; ++k) {
            for (i = 0; i < iters; ++i) col[i] = t[(size_t)i * ns + k];
            qsort(col, (size_t)iters, sizeof(float), aicf__cmp_float);
            step_us[k] = col[iters / 2];
        }
    aicf__free(e->ctx, t);
    return r;
}
