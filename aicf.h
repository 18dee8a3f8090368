/* aicf.h — run neural networks inside real-time C and C++ programs on NVIDIA GPUs.

   Header-only, single file. In exactly ONE C or C++ file:

       #define AICF_IMPLEMENTATION
       #include "aicf.h"

   and include "aicf.h" without the define everywhere else. Link with -ldl -lm. There is no
   link-time CUDA dependency: libcuda.so.1 and libcublasLt are loaded at run time with dlopen;
   without them the CPU reference backend still works. The generated kernel table is included
   from "kernels_gen/aicf_kernels.h" next to this file (`make dist` writes one header with the
   table inlined, for vendoring a single file).

   WHAT IT DOES
   ============
       ONNX file / C graph builder
             |  load, validate                       aicf_graph: what to compute
             v
       aicf_plan_create: infer shapes, fold constants and Shape ops, fold BatchNormalization
       into Conv, drop dead nodes, alias Reshape-like ops (and Split outputs / Concat inputs as
       views where they are contiguous pieces), plan memory (one arena, lifetimes, greedy
       placements then a bounded local search), pick a kernel for every step and record why
             |                                       aicf_plan: how, fixed ahead of time
             v
       aicf_exec_create: device buffers + ONE CUDA graph (copy-in, kernels, cuBLASLt calls,
       copy-out), instantiated once            aicf_exec
             |
             v  aicf_exec_run: one cuGraphLaunch + wait. No allocation, no decision.

   The CPU reference executor runs the same plan in plain C with float32 arithmetic. It is the
   oracle the GPU kernels are tested against and the fallback where no NVIDIA driver exists.

   STEP BY STEP
   ============
       aicf_context* ctx;   aicf_context_create(NULL, &ctx);          // NULL desc = defaults
       aicf_graph* g;       aicf_graph_load_onnx(ctx, "model.onnx", NULL, &g);
       aicf_graph_bind_dim(g, "batch", 1);                           // symbolic dims
       aicf_plan_desc pd = {0};                                       // zero = defaults
       pd.backend = AICF_BACKEND_DEFAULT;                             // CUDA, else error...
       pd.policy.allow_cpu_fallback = 1;                              // ...or the CPU reference
       pd.policy.precision = AICF_PRECISION_FP16;                     // fp32 / tf32 / fp16
       aicf_plan* plan;     aicf_plan_create(g, &pd, &plan);
       aicf_graph_destroy(g);                                         // the plan keeps a copy
       aicf_exec* ex;       aicf_exec_create(plan, NULL, &ex);
       for (;;) {                                                     // every frame / tick
           aicf_exec_set_input(ex, 0, obs, sizeof obs);               // host memory, float32
           aicf_exec_run(ex);                                         // one graph launch
           aicf_exec_get_output(ex, 0, act, sizeof act);
       }
       aicf_exec_destroy(ex); aicf_plan_destroy(plan); aicf_context_destroy(ctx);

   Graphs can also be built in C: aicf_graph_add_input / _add_constant / _add_node (an ONNX
   operator with named inputs, outputs and attributes) / _add_output. Every create function
   takes a desc struct in which zero means default.

   ERROR REPORTING
   ===============
   Every fallible function returns an aicf_result (0 = AICF_SUCCESS, errors negative, see
   AICF_RESULTS). aicf_result_str() describes a code; aicf_last_error(ctx) gives the message of
   the last failure on that context, naming the node, tensor or field, e.g.
       node 12 'attn.qkv' (MatMul): input 1 shape [256,64] does not match [64,128]
       onnx: GraphProto.node[3] (NodeProto.attribute[0]): truncated varint at byte 812
   A failed call leaves the context usable and the caller's data untouched. aicf never aborts
   the host process on bad input, and treats model files as untrusted (bounds-checked protobuf
   reading, overflow-checked sizes, the limits below).

   LIMITS (AICF_MAX_*)
   ===================
   rank 8; 4096-byte names; 2^20 nodes; 2^21 tensors; 4096 inputs/outputs per node in a graph,
   64 per node the planner runs (AICF_MAX_STEP_IO); 2^24 elements per attribute; 2^40 bytes per
   tensor; 8 levels of nested subgraphs (AICF_MAX_SUBGRAPH_DEPTH). Beyond them:
   AICF_ERROR_LIMIT, naming the node, tensor or field.

   PRECISION AND DETERMINISM
   =========================
   fp32: float32 storage and arithmetic. tf32: GEMMs on TF32 tensor cores. fp16: weights and
   activations stored as IEEE binary16, arithmetic and accumulation in float32; inputs and
   outputs stay float32 at the API (cast steps at the boundary). The same plan gives bitwise-
   identical outputs from replay to replay on the same GPU and driver: no atomics in reductions,
   one fixed cuBLASLt algorithm per GEMM chosen at plan time.

   THREAD SAFETY
   =============
   One context may be shared by any number of threads. The rule, function by function:
   - aicf_result_str, aicf_dtype_name, aicf_dtype_size, aicf_policy_format, aicf_policy_parse:
     stateless, callable from any thread at any time.
   - aicf_context_create: any thread. aicf_context_destroy: only once nothing else of that
     context is in use on any thread (destroy execs, then plans, then graphs, then the context).
   - aicf_last_error(ctx): the message of the calling thread's last failed call on ctx ("" if it
     has none), kept per thread (four contexts per thread; a fifth reuses the oldest slot): a
     failure on another thread never changes or garbles it. Built by a compiler without
     thread-local storage (not GCC, Clang, MSVC, C11 or C++11), the message is one per context.
   - Graph building (aicf_graph_*), aicf_graph_load_onnx*, aicf_tensor_*_pb*: any thread; a
     graph must not be changed by two threads at once, nor read while another changes it.
     Several threads may read one graph at once (plan it, query it).
   - aicf_plan_create, aicf_plan_load*: any thread, also several at once on one graph.
     A plan is read-only once made: its queries, aicf_plan_format, aicf_plan_save*, explain
     and DOT, and aicf_exec_create may be called from several threads at once on one plan.
   - An exec belongs to one thread at a time: aicf_exec_* on one exec must not overlap; distinct
     execs (of one plan or of several) run concurrently, each on its own stream. A stream given
     in aicf_exec_desc must belong to the device's primary context.
   - aicf_context_device_info and the CUDA driver's loading: any thread; the driver is loaded
     once per context however many threads ask first.
   - The context's allocator (aicf_context_desc.allocator) is called from every thread that
     uses the context, possibly at the same time: it must be thread-safe.

   PROFILING
   =========
   aicf_plan_num_steps / aicf_plan_step_info give each step's op, node, kernel and reason.
   An exec created with AICF_EXEC_PROFILE carries a CUDA event-record node before the first
   step and after every step; aicf_exec_profile(ex, warmup, iters, step_us, n) replays it and
   writes each step's median time in microseconds (CPU plans: wall clock per step). Event
   nodes cost a little per step, so time without AICF_EXEC_PROFILE (aicf_exec_benchmark) for
   the total. AICF_EXEC_DEVICE_IO leaves inputs and outputs in device memory and skips the
   host staging copies, as a caller that produces them on the GPU would.
   `build/aicf profile MODEL.onnx [--top N]` prints the table.
   AICF_EXEC_PDL (sm_90+, CUDA 12.3+ driver) joins consecutive generated kernels with
   programmatic edges: each is launched while its predecessor runs and waits for it before
   touching memory. Same results; measured (docs/benchmarks.md) it saves ~0.3 us per edge on
   chains of small kernels and loses on convolution-heavy graphs, hence opt-in.
   aicf_exec_stats.programmatic_edges counts the edges it made.
   Batch-1 Linear layers (Gemm, transB, M <= 8) run on generated GEMV kernels; one next to a
   float32 <-> float16 boundary Cast joins it in one launch (aicf_gemvp_*). The policy key
   `persistent = 1` joins consecutive such layers into one launch with grid barriers between
   them: same results, but measured slower on an H100 (docs/benchmarks.md), hence opt-in.

   CONFIGURATION MACROS
   ====================
   AICF_IMPLEMENTATION   compile the implementation in this translation unit
   AICF_STATIC           make the public functions static
   AICF_API              override the linkage of the public functions
   AICF_ASSERT(c)        override assert (internal invariants only; input is never asserted)
   AICF_NO_KERNEL_TABLE  build without the generated kernel table (CUDA plans can then use
                         only cuBLASLt; anything else is AICF_ERROR_NO_KERNEL)
   AICF_KERNEL_TABLE_FILE "path"  include this kernel table instead of kernels_gen/aicf_kernels.h
   AICF_NO_CUDA          compile the CUDA backend out: no dlopen, every CUDA entry point
                         returns AICF_ERROR_NO_DEVICE
   Memory goes through aicf_context_desc.allocator (default malloc/realloc/free).

   KERNELS
   =======
   Kernels are generated at build time (codegen/ renders the templates/ directory with Jinja2 and
   compiles them with NVRTC into cubins for sm_80, sm_86, sm_89, sm_90 plus PTX for the newest).
   At run time aicf picks the cubin of the device's SM, else the same major with a lower minor,
   else the PTX, else fails with AICF_ERROR_NO_KERNEL naming the device's compute capability and
   the embedded targets. `make kernels SM="80 90"` regenerates the table for other targets.

   aicf DOES NOT
   =============
   - compile anything at run time (no NVRTC in your process);
   - allocate, branch on shapes or query heuristics on the replay path;
   - keep process-global state (everything hangs off an aicf_context);
   - train, or run ops outside its op list (AICF__OPS): unsupported ops are reported at load
     time with the node, op type and reason.

   LICENSE: MIT (see the repository).
*/
/* >>api ==================================================================================== */
#ifndef AICF_H_INCLUDED
#define AICF_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifndef AICF_API
#  ifdef AICF_STATIC
#    define AICF_API static
#  else
#    define AICF_API extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Documented hard limits (bad input beyond them is an AICF_ERROR_LIMIT, never a crash). */
#define AICF_MAX_RANK 8                       /* tensor rank                               */
#define AICF_MAX_NAME 4096                    /* bytes in a node/tensor/attribute name     */
#define AICF_MAX_NODES (1 << 20)              /* nodes in one graph                        */
#define AICF_MAX_TENSORS (1 << 21)            /* tensors in one graph                      */
#define AICF_MAX_NODE_IO 4096                 /* inputs or outputs of one node             */
#define AICF_MAX_STEP_IO 64                   /* inputs or outputs of a node that is planned
                                                 (run as one step): the planner's limit      */
#ifndef AICF_MAX_SUBGRAPH_DEPTH
#  define AICF_MAX_SUBGRAPH_DEPTH 8           /* graphs nested in GRAPH attributes         */
#endif
#define AICF_MAX_ATTR_ELEMS (1 << 24)         /* elements in one ints/floats attribute     */
#define AICF_MAX_TENSOR_BYTES ((uint64_t)1 << 40) /* bytes in one tensor                    */

/* Result codes: 0 is success, every error is negative. aicf_result_str() describes one;
   aicf_last_error() gives the message of the last failed call on a context, which names the
   node, tensor or field at fault. */
#define AICF_RESULTS(X)                                                                           \
    X(AICF_SUCCESS, 0, "success")                                                                 \
    X(AICF_ERROR_INVALID_ARGUMENT, -1, "invalid argument")                                        \
    X(AICF_ERROR_OUT_OF_MEMORY, -2, "out of memory")                                              \
    X(AICF_ERROR_IO, -3, "file could not be read or written")                                     \
    X(AICF_ERROR_INVALID_MODEL, -4, "malformed or inconsistent model")                            \
    X(AICF_ERROR_UNSUPPORTED, -5, "unsupported op, attribute or data type")                       \
    X(AICF_ERROR_SHAPE, -6, "shape mismatch or unbound dimension")                                \
    X(AICF_ERROR_NOT_FOUND, -7, "name not found")                                                 \
    X(AICF_ERROR_LIMIT, -8, "a documented limit was exceeded")                                    \
    X(AICF_ERROR_NO_DEVICE, -9, "no CUDA driver or no CUDA device")                               \
    X(AICF_ERROR_NO_KERNEL, -10, "no kernel image for this device")                               \
    X(AICF_ERROR_CUDA, -11, "CUDA driver call failed")                                            \
    X(AICF_ERROR_CUBLAS, -12, "cuBLASLt call failed")                                             \
    X(AICF_ERROR_DEVICE_OUT_OF_MEMORY, -13, "out of device memory")                               \
    X(AICF_ERROR_STATE, -14, "call not valid in the object's current state")                      \
    X(AICF_ERROR_PLAN_MISMATCH, -15, "saved plan does not match this model, kernel table, device or library")

typedef enum aicf_result {
#define AICF__RESULT_ENUM(name, value, text) name = value,
    AICF_RESULTS(AICF__RESULT_ENUM)
#undef AICF__RESULT_ENUM
    AICF_RESULT_FORCE_32 = 0x7fffffff
} aicf_result;

/* Element types: the numbering of ONNX TensorProto.DataType. */
typedef enum aicf_dtype {
    AICF_DTYPE_INVALID = 0,
    AICF_DTYPE_FLOAT32 = 1,
    AICF_DTYPE_UINT8 = 2,
    AICF_DTYPE_INT8 = 3,
    AICF_DTYPE_UINT16 = 4,
    AICF_DTYPE_INT16 = 5,
    AICF_DTYPE_INT32 = 6,
    AICF_DTYPE_INT64 = 7,
    AICF_DTYPE_STRING = 8,
    AICF_DTYPE_BOOL = 9,
    AICF_DTYPE_FLOAT16 = 10,
    AICF_DTYPE_FLOAT64 = 11,
    AICF_DTYPE_UINT32 = 12,
    AICF_DTYPE_UINT64 = 13,
    AICF_DTYPE_BFLOAT16 = 16
} aicf_dtype;

/* Attribute types: the numbering of ONNX AttributeProto.AttributeType. */
typedef enum aicf_attr_type {
    AICF_ATTR_INVALID = 0,
    AICF_ATTR_FLOAT = 1,
    AICF_ATTR_INT = 2,
    AICF_ATTR_STRING = 3,
    AICF_ATTR_TENSOR = 4,
    AICF_ATTR_GRAPH = 5,
    AICF_ATTR_FLOATS = 6,
    AICF_ATTR_INTS = 7,
    AICF_ATTR_STRINGS = 8
} aicf_attr_type;

typedef enum aicf_backend {
    AICF_BACKEND_DEFAULT = 0, /* CUDA if a device is usable, else the CPU reference if the
                                 policy allows CPU fallback, else AICF_ERROR_NO_DEVICE */
    AICF_BACKEND_CPU = 1,     /* the CPU reference executor: plain C, float32 arithmetic */
    AICF_BACKEND_CUDA = 2     /* one CUDA graph of generated kernels and cuBLASLt calls */
} aicf_backend;

typedef enum aicf_precision {
    AICF_PRECISION_DEFAULT = 0, /* = FP32 */
    AICF_PRECISION_FP32 = 1,    /* float32 storage and arithmetic */
    AICF_PRECISION_TF32 = 2,    /* float32 storage; Gemm, MatMul and im2col convolutions on TF32
                                   tensor cores (operands rounded to 10 mantissa bits) */
    AICF_PRECISION_FP16 = 3     /* float16 storage of weights and activations, float32 accumulation */
} aicf_precision;

typedef struct aicf_context aicf_context;
typedef struct aicf_graph aicf_graph;
typedef struct aicf_plan aicf_plan;
typedef struct aicf_exec aicf_exec;

/* Allocator override; zero = malloc/realloc/free. realloc may be NULL (then alloc+copy+free). */
typedef struct aicf_allocator {
    void* (*alloc)(size_t bytes, void* user);
    void* (*realloc)(void* ptr, size_t old_bytes, size_t new_bytes, void* user);
    void (*free)(void* ptr, void* user);
    void* user;
} aicf_allocator;

#define AICF_CONTEXT_NO_CUDA 0x1u /* never load libcuda: CPU reference only */

typedef struct aicf_context_desc {
    aicf_allocator allocator;
    uint32_t flags;               /* AICF_CONTEXT_* */
    int device_ordinal;           /* CUDA device index, default 0 */
    const char* cuda_driver_path; /* default "libcuda.so.1" */
    const char* cublaslt_path;    /* default: tries libcublasLt.so.13, .so.12, .so */
} aicf_context_desc;

/* Information about the CUDA device of a context (valid when cuda_available is 1). */
typedef struct aicf_device_info {
    int cuda_available;      /* 1 if a driver and device were found */
    char name[256];          /* device name */
    int cc_major, cc_minor;  /* compute capability */
    uint64_t total_memory;   /* bytes */
    int driver_version;      /* as cuDriverGetVersion, e.g. 13000 */
    int cublaslt_available;  /* 1 if libcublasLt was loaded */
    size_t cublaslt_version; /* as cublasLtGetVersion */
} aicf_device_info;

/* A tensor as the user describes it: name, element type, shape, and (for constants) data.
   dims[i] == -1 marks a symbolic dimension, named by dim_params[i] (bound later with
   aicf_graph_bind_dim). data is row-major, tightly packed; data_bytes must equal the element
   count times the element size. */
typedef struct aicf_tensor_desc {
    const char* name;
    aicf_dtype dtype;
    int rank;                        /* 0..AICF_MAX_RANK */
    const int64_t* dims;             /* rank entries (may be NULL when rank == 0) */
    const char* const* dim_params;   /* optional; names of symbolic dims */
    const void* data;                /* constants only */
    size_t data_bytes;
    int borrow;                      /* 1: keep a pointer to data (must outlive the graph);
                                        0: copy it */
} aicf_tensor_desc;

/* One attribute of a node, named and typed as in ONNX. */
typedef struct aicf_attr {
    const char* name;
    aicf_attr_type type;
    int64_t i;                      /* INT */
    float f;                        /* FLOAT */
    const char* s;                  /* STRING (NUL-terminated) */
    const int64_t* ints;            /* INTS: count entries */
    const float* floats;            /* FLOATS: count entries */
    const char* const* strings;     /* STRINGS: count entries */
    int count;
    const aicf_tensor_desc* t;      /* TENSOR (data is copied) */
    aicf_graph* g;                  /* GRAPH: ownership passes to the node */
} aicf_attr;

/* One node: an ONNX operator with named inputs and outputs. An empty input name ("") marks an
   omitted optional input. domain NULL or "" is the default ONNX domain. */
typedef struct aicf_node_desc {
    const char* name;
    const char* op_type;
    const char* domain;
    const char* const* inputs;
    int num_inputs;
    const char* const* outputs;
    int num_outputs;
    const aicf_attr* attrs;
    int num_attrs;
} aicf_node_desc;

/* Shape and type of a graph input or output. */
typedef struct aicf_tensor_info {
    const char* name;        /* owned by the graph/plan */
    aicf_dtype dtype;
    int rank;
    int64_t dims[AICF_MAX_RANK]; /* -1 where symbolic and unbound */
    size_t bytes;            /* 0 while a dimension is unbound */
} aicf_tensor_info;

/* A host tensor read from or written to an ONNX TensorProto (.pb) file. */
typedef struct aicf_host_tensor {
    char* name;
    aicf_dtype dtype;
    int rank;
    int64_t dims[AICF_MAX_RANK];
    void* data;    /* row-major, tightly packed, owned (free with aicf_host_tensor_free) */
    size_t bytes;
} aicf_host_tensor;

typedef struct aicf_onnx_desc {
    int num_dims;                     /* bindings of symbolic dims, e.g. {"batch", 1} */
    const char* const* dim_names;
    const int64_t* dim_values;
} aicf_onnx_desc;

/* Kernel preference for convolutions (CUDA backend). AUTO lets the planner's cost model pick
   per node; the others force one lowering for every Conv it applies to (grouped and
   depthwise convolutions, and shapes a lowering cannot take, keep the other; the plan's reason
   says so). */
typedef enum aicf_conv_algo {
    AICF_CONV_AUTO = 0,
    AICF_CONV_DIRECT = 1,        /* the generated implicit-GEMM kernel (CUDA cores) */
    AICF_CONV_IM2COL_GEMM = 2,   /* im2col into the arena + cuBLASLt GEMM (tensor cores) */
    AICF_CONV_IMPLICIT_GEMM_TC = 3 /* float16 storage: the generated implicit GEMM on tensor cores
                                    with bias, residual Add and ReLU in its epilogue */
} aicf_conv_algo;

/* Kernel preference for Gemm and MatMul (CUDA backend). AUTO: a Gemm with transB = 1 and
   M <= 8 (the batch-1 Linear layer, bound by reading the weights) on the generated GEMV kernel
   with its epilogue inside, everything else on cuBLASLt (the generated tiled GEMM without it). */
typedef enum aicf_matmul_algo {
    AICF_MATMUL_AUTO = 0,
    AICF_MATMUL_CUBLASLT = 1, /* cuBLASLt for every GEMM (heuristic algorithm, recorded in the plan) */
    AICF_MATMUL_GENERATED = 2 /* generated kernels only: the GEMV where it applies, else the tiled GEMM */
} aicf_matmul_algo;

typedef struct aicf_policy {
    aicf_precision precision;
    int allow_cpu_fallback; /* backend DEFAULT may fall back to the CPU reference */
    size_t workspace_limit; /* bytes of cuBLASLt workspace, 0 = 32 MiB */
    int no_fusion;          /* 1: every node is its own step (the fusion passes are off) */
    aicf_conv_algo conv_algo;
    aicf_matmul_algo matmul_algo;
    int persistent;         /* CUDA, 1: consecutive small-M GEMM steps (batch-1 Linear layers) join
                               one persistent launch with a grid barrier between layers. 0 (the
                               default): a GEMM joins only the boundary Casts beside it, no
                               barrier: on an H100 a grid barrier (~1.3 us) plus the layer's
                               L2 round trip cost about what a separate launch does, and the
                               reference MLP measured 21.9 us joined vs 16.0 us separate */
} aicf_policy;

typedef struct aicf_plan_desc {
    aicf_backend backend;
    aicf_policy policy;
} aicf_plan_desc;

typedef struct aicf_plan_stats {
    int num_steps;            /* steps that run a kernel */
    int num_nodes;            /* graph nodes after folding */
    size_t arena_bytes;       /* activations arena */
    size_t arena_lower_bound; /* largest total of tensors alive at one step */
    size_t weights_bytes;     /* weights in the storage precision */
    aicf_backend backend;
    aicf_precision precision;
} aicf_plan_stats;

#define AICF_EXEC_DEVICE_IO 0x1u /* inputs/outputs stay on the device: no copy nodes in the graph */
#define AICF_EXEC_PROFILE 0x2u   /* CUDA: one timing event after every step, for aicf_exec_profile
                                    (adds an event-record node per step to every replay) */
#define AICF_EXEC_PDL 0x4u       /* CUDA: programmatic dependent launch. On devices of compute
                                    capability >= 9.0 with a driver of CUDA >= 12.3, consecutive
                                    generated kernels are joined by programmatic edges: the next
                                    one is launched while the previous one runs and waits for it
                                    before touching memory (same results, less launch latency).
                                    Off by default: measured on the H100 (docs/benchmarks.md) it
                                    saves 1.6 us on a 6-kernel MLP but costs 58 us on ResNet-18 at
                                    batch 1 (early-resident convolution blocks). Without it every
                                    node waits for its predecessor to finish before it launches */

typedef struct aicf_exec_desc {
    uint32_t flags; /* AICF_EXEC_* */
    void* stream;   /* CUstream to run on; NULL = the exec creates its own */
} aicf_exec_desc;

typedef struct aicf_exec_stats {
    int graph_nodes;     /* nodes of the instantiated CUDA graph (0 on the CPU backend) */
    int kernel_nodes;    /* kernel launches per replay, counting those inside the cuBLASLt
                            child graphs (so it can exceed graph_nodes) */
    size_t device_bytes; /* arena + weights + workspace + staging */
    int programmatic_edges; /* kernel-to-kernel edges with programmatic dependent launch (0
                               without AICF_EXEC_PDL, before compute capability 9.0 or CUDA 12.3) */
} aicf_exec_stats;

/* --- results and errors --- */
AICF_API const char* aicf_result_str(aicf_result result);
AICF_API const char* aicf_dtype_name(aicf_dtype dtype);
AICF_API size_t aicf_dtype_size(aicf_dtype dtype); /* bytes per element, 0 if not fixed */

/* --- context ---
   Thread safety (the full rule per function: the manual's THREAD SAFETY): a context may be shared
   by any number of threads; aicf_context_destroy only once nothing of it is in use. The allocator
   must be thread-safe. aicf_last_error(ctx) gives the calling thread's last failure on ctx (""
   if none): per thread, so other threads' failures never change it. */
AICF_API aicf_result aicf_context_create(const aicf_context_desc* desc, aicf_context** out);
AICF_API void aicf_context_destroy(aicf_context* ctx);
AICF_API const char* aicf_last_error(const aicf_context* ctx);
/* Loads the CUDA driver (once) and reports the device. AICF_ERROR_NO_DEVICE (with the reason in
   aicf_last_error) when no driver or device is usable; the CPU backend still works. */
AICF_API aicf_result aicf_context_device_info(aicf_context* ctx, aicf_device_info* out);

/* --- graph building --- */
AICF_API aicf_result aicf_graph_create(aicf_context* ctx, aicf_graph** out);
AICF_API void aicf_graph_destroy(aicf_graph* graph);
AICF_API aicf_result aicf_graph_set_opset(aicf_graph* graph, const char* domain, int64_t version);
AICF_API aicf_result aicf_graph_add_input(aicf_graph* graph, const aicf_tensor_desc* desc);
AICF_API aicf_result aicf_graph_add_constant(aicf_graph* graph, const aicf_tensor_desc* desc);
AICF_API aicf_result aicf_graph_add_node(aicf_graph* graph, const aicf_node_desc* desc);
AICF_API aicf_result aicf_graph_add_output(aicf_graph* graph, const char* name);
/* Binds a symbolic dimension (e.g. "batch") to a value for every tensor that uses it. */
AICF_API aicf_result aicf_graph_bind_dim(aicf_graph* graph, const char* dim_param, int64_t value);
/* Turns graph input `name` into a constant with the given value (for inputs that only feed
   shapes or control decisions). The data is copied. */
AICF_API aicf_result aicf_graph_bind_input_value(aicf_graph* graph, const char* name,
                                                 const void* data, size_t bytes);
AICF_API int aicf_graph_num_inputs(const aicf_graph* graph);
AICF_API int aicf_graph_num_outputs(const aicf_graph* graph);
AICF_API int aicf_graph_num_nodes(const aicf_graph* graph);
AICF_API aicf_result aicf_graph_input_info(const aicf_graph* graph, int index, aicf_tensor_info* out);
AICF_API aicf_result aicf_graph_output_info(const aicf_graph* graph, int index, aicf_tensor_info* out);

/* --- ONNX ---
   Loads an ONNX ModelProto. The file is read once into memory owned by the graph;
   initializers stored as raw_data are used in place. Errors: AICF_ERROR_IO,
   AICF_ERROR_INVALID_MODEL (malformed protobuf, naming the field), AICF_ERROR_UNSUPPORTED
   (naming node, op type and reason), AICF_ERROR_LIMIT. */
AICF_API aicf_result aicf_graph_load_onnx(aicf_context* ctx, const char* path,
                                          const aicf_onnx_desc* desc, aicf_graph** out);
AICF_API aicf_result aicf_graph_load_onnx_memory(aicf_context* ctx, const void* data, size_t size,
                                                 const aicf_onnx_desc* desc, aicf_graph** out);
/* Reads / writes one serialized ONNX TensorProto (the .pb files of ONNX test data sets). */
AICF_API aicf_result aicf_tensor_read_pb(aicf_context* ctx, const char* path, aicf_host_tensor* out);
AICF_API aicf_result aicf_tensor_read_pb_memory(aicf_context* ctx, const void* data, size_t size,
                                                aicf_host_tensor* out);
AICF_API aicf_result aicf_tensor_write_pb(aicf_context* ctx, const char* path, const aicf_host_tensor* t);
AICF_API void aicf_host_tensor_free(aicf_context* ctx, aicf_host_tensor* t);

/* --- plan ---
   Infers shapes, folds constants and BatchNormalization, plans memory and picks a kernel for
   every step. The plan copies what it needs: the graph may be destroyed afterwards. */
AICF_API aicf_result aicf_plan_create(aicf_graph* graph, const aicf_plan_desc* desc, aicf_plan** out);
AICF_API void aicf_plan_destroy(aicf_plan* plan);
AICF_API aicf_result aicf_plan_stats_get(const aicf_plan* plan, aicf_plan_stats* out);
/* Writes the human-readable plan (one line per step, then arena totals) into buf (always
   NUL-terminated when cap > 0); *needed receives the full length + 1. */
AICF_API aicf_result aicf_plan_format(const aicf_plan* plan, char* buf, size_t cap, size_t* needed);
AICF_API int aicf_plan_num_inputs(const aicf_plan* plan);
/* Steps of the plan, numbered as aicf_plan_explain numbers them (0 .. n-1); -1 for NULL. */
AICF_API int aicf_plan_num_steps(const aicf_plan* plan);
typedef struct aicf_step_info {
    const char* op_type;   /* the step's main node's op type; "Cast" for a cast at the API boundary */
    const char* node_name; /* the main node's name ("" for a boundary cast) */
    const char* kernel;    /* the kernel chosen, as aicf_plan_format prints it */
    const char* reason;    /* why (aicf_plan_explain's decision line) */
    int num_fused;         /* elementwise nodes fused into the step */
} aicf_step_info;
/* Describes step `step` (0 .. aicf_plan_num_steps - 1); the strings live as long as the plan.
   AICF_ERROR_INVALID_ARGUMENT for NULL or a step out of range. */
AICF_API aicf_result aicf_plan_step_info(const aicf_plan* plan, int step, aicf_step_info* out);
AICF_API int aicf_plan_num_outputs(const aicf_plan* plan);
AICF_API aicf_result aicf_plan_input_info(const aicf_plan* plan, int index, aicf_tensor_info* out);
AICF_API aicf_result aicf_plan_output_info(const aicf_plan* plan, int index, aicf_tensor_info* out);
AICF_API int aicf_plan_find_input(const aicf_plan* plan, const char* name);  /* -1 if none */
AICF_API int aicf_plan_find_output(const aicf_plan* plan, const char* name); /* -1 if none */

/* --- the policy as text ---------------------------------------------------------------------
   One `key = value` per line; `#` starts a comment; blank lines are ignored; every key is
   optional and an absent key keeps its default (the zero of aicf_policy):
       precision = default | fp32 | tf32 | fp16
       allow_cpu_fallback = 0 | 1          (also true/false, yes/no, on/off)
       workspace_limit = BYTES             (cuBLASLt workspace; 0 = 32 MiB; a unit B, KiB, MiB,
                                            GiB or K, M, G may follow the digits)
       no_fusion = 0 | 1
       conv_algo = auto | direct | im2col_gemm | implicit_gemm_tc
       matmul_algo = auto | cublaslt | generated
       persistent = 0 | 1                  (CUDA: small-M GEMM layers in one launch, grid barriers)
   aicf_policy_format writes every key (booleans as 0/1, the limit in bytes) after one comment
   line, so parse(format(p)) == p for every valid policy. Writes into buf (NUL-terminated when
   cap > 0); *needed receives the full length + 1. AICF_ERROR_INVALID_ARGUMENT when an enum is
   out of range.
   aicf_policy_parse reads `len` bytes of text (no NUL needed) into *out, which is only written
   on success. Errors, with a message on ctx (which may be NULL) naming the line, key and value:
   AICF_ERROR_INVALID_ARGUMENT for an unknown key, a key given twice, a bad value, a line without
   '=', a NUL byte or a line longer than 4096 bytes; AICF_ERROR_LIMIT for more than 1 MiB.
   aicf_policy_save / aicf_policy_load write / read that text as a file (AICF_ERROR_IO when the
   file cannot be written or read; the load's parse errors name the path). */
AICF_API aicf_result aicf_policy_format(const aicf_policy* policy, char* buf, size_t cap, size_t* needed);
AICF_API aicf_result aicf_policy_parse(aicf_context* ctx, const char* text, size_t len, aicf_policy* out);
AICF_API aicf_result aicf_policy_save(aicf_context* ctx, const aicf_policy* policy, const char* path);
AICF_API aicf_result aicf_policy_load(aicf_context* ctx, const char* path, aicf_policy* out);

/* --- plan files ------------------------------------------------------------------------------
   A plan file is text (docs/plan_format.md): format "aicf-plan 1", the kernel table's
   fingerprint, the backend, on CUDA the device (name, SM) and cuBLASLt version, the graph's
   fingerprint (ops, names, attributes, shapes, dtypes, dim bindings and constant bytes, as given
   to aicf_plan_create), the policy, every tensor's storage, and per step the node, the fused
   nodes, the kernel, launch dimensions, reason and, on CUDA, the op program: each launch's
   kernel, dimensions, argument bytes and address patches, and each cuBLASLt algorithm (the
   8 x 64-bit blob, workspace, cuBLASLt version, alignments assumed). The same graph, policy,
   kernel table and device give a byte-identical file.
   aicf_plan_serialize writes it into buf (NUL-terminated when cap > 0; *needed = length + 1);
   aicf_plan_save writes it to a file (AICF_ERROR_IO).
   aicf_plan_load / aicf_plan_load_memory make the plan of `graph` that the file describes,
   without re-deciding: the header must match (format, kernel table, device and SM, cuBLASLt
   version, the graph's fingerprint), then the plan is made with the file's policy and with the
   file's cuBLASLt algorithms in place of the heuristic (each accepted by
   cublasLtMatmulAlgoCheck), and must serialise to exactly the file's bytes. The GPU program is
   always aicf's own, never bytes from the file. Errors, with a message naming the line:
   AICF_ERROR_PLAN_MISMATCH (another format version, kernel table, device/SM, cuBLASLt version or
   graph, or a line that differs from the plan rebuilt from the file: the message quotes both),
   AICF_ERROR_INVALID_MODEL (not a plan file, truncated, malformed header, policy or algorithm
   lines), AICF_ERROR_IO, AICF_ERROR_LIMIT (more than 1 GiB), and the errors of
   aicf_plan_create. The file is untrusted input: parsing is bounded and overflow-checked. */
AICF_API aicf_result aicf_plan_serialize(const aicf_plan* plan, char* buf, size_t cap, size_t* needed);
AICF_API aicf_result aicf_plan_save(const aicf_plan* plan, const char* path);
AICF_API aicf_result aicf_plan_load(aicf_graph* graph, const char* path, aicf_plan** out);
AICF_API aicf_result aicf_plan_load_memory(aicf_graph* graph, const void* data, size_t size, aicf_plan** out);

/* --- explain and DOT -------------------------------------------------------------------------
   aicf_plan_explain: per step its index, main node (op, name), the fused nodes in order (with
   their operands), each output (shape, storage type, place), the kernel and launch dimensions,
   on CUDA every launch of the step (kernels, copies, cuBLASLt matmuls with M/N/K, the
   algorithm's rank among the heuristic's results, workspace and alignments), and the decision
   with its reason (which names the alternatives the lowering weighed: vec4 or scalar, cuBLASLt
   or the generated GEMM, direct, im2col or tensor-core implicit-GEMM convolution, ...); then
   the memory totals (arena against its lower bound, weights, scratch, cuBLASLt workspace).
   aicf_plan_dot: the plan as a Graphviz digraph: one box per step (op, node name, kernel),
   inputs and outputs as ellipses, an edge per arena tensor from the step writing it to each
   step reading it (labelled name and shape; weights are not drawn), and every fused step as a
   `subgraph cluster_N` holding its main node and its fused nodes, chained by dashed edges.
   Both write into buf like aicf_plan_format (NUL-terminated when cap > 0; *needed = length + 1). */
AICF_API aicf_result aicf_plan_explain(const aicf_plan* plan, char* buf, size_t cap, size_t* needed);
AICF_API aicf_result aicf_plan_dot(const aicf_plan* plan, char* buf, size_t cap, size_t* needed);

/* --- exec ---
   Creates the executor of a plan: on CUDA, device buffers and one instantiated CUDA graph; on
   the CPU, a host arena. The plan must outlive the exec. Inputs and outputs are in the graph's
   declared dtype whatever the precision. */
AICF_API aicf_result aicf_exec_create(aicf_plan* plan, const aicf_exec_desc* desc, aicf_exec** out);
AICF_API void aicf_exec_destroy(aicf_exec* exec);
/* Copies `bytes` (must equal the input's size) of host data into input `index`. */
AICF_API aicf_result aicf_exec_set_input(aicf_exec* exec, int index, const void* data, size_t bytes);
/* Copies from device memory (a CUdeviceptr) into input `index`, ordered on the exec's stream. */
AICF_API aicf_result aicf_exec_set_input_device(aicf_exec* exec, int index, uint64_t device_ptr, size_t bytes);
/* Runs the plan once (one cuGraphLaunch on CUDA) and waits for it. */
AICF_API aicf_result aicf_exec_run(aicf_exec* exec);
/* Launches without waiting (CUDA); aicf_exec_wait waits. On the CPU, launch runs synchronously. */
AICF_API aicf_result aicf_exec_launch(aicf_exec* exec);
AICF_API aicf_result aicf_exec_wait(aicf_exec* exec);
AICF_API aicf_result aicf_exec_get_output(aicf_exec* exec, int index, void* data, size_t bytes);
/* Device address of input/output `index` inside the arena (CUDA backend only). */
AICF_API aicf_result aicf_exec_input_device_ptr(aicf_exec* exec, int index, uint64_t* out);
AICF_API aicf_result aicf_exec_output_device_ptr(aicf_exec* exec, int index, uint64_t* out);
AICF_API aicf_result aicf_exec_stats_get(const aicf_exec* exec, aicf_exec_stats* out);

/* --- benchmark ---
   Runs `warmup` untimed replays, then `iters` timed ones, one after the other (each replay ends
   before the next starts), and writes per replay, in microseconds:
     gpu_us[i]          CUDA: the time between two CUDA events recorded on the exec's stream just
                        before and just after the replay's cuGraphLaunch (cuEventElapsedTime,
                        resolution about 0.5 us): the graph's time on the GPU, without the host's
                        wake-up from a synchronisation. This is how PyTorch's peers are timed
                        (torch.cuda.Event around each call). CPU backend: the wall-clock time of
                        the run (the launch is the whole run there).
     host_launch_us[i]  the host time of the aicf_exec_launch call (CPU: the run, as gpu_us). On
                        CUDA the device's primary context is made current for the duration of the
                        benchmark, so this is the launch cost of a thread where it is current (a
                        thread using the CUDA runtime); a thread with no or another current
                        context pays a cuCtxPushCurrent/cuCtxPopCurrent pair more per launch.
   Each array holds `iters` floats; either may be NULL. Inputs are left as they are (set them
   first); outputs afterwards are those of the last replay. A launch still in flight is waited
   for first. Errors: AICF_ERROR_INVALID_ARGUMENT (warmup < 0, iters < 1), AICF_ERROR_CUDA naming
   the failing driver call and the replay. */
AICF_API aicf_result aicf_exec_benchmark(aicf_exec* exec, int warmup, int iters, float* gpu_us,
                                         float* host_launch_us);
/* Per-step profile: `warmup` untimed replays, then `iters` timed ones; step_us[s] receives the
   median over the timed replays of step s's time in microseconds, for s = 0 .. num_steps-1
   (num_steps must equal aicf_plan_num_steps; steps numbered as in aicf_plan_explain).
     CUDA: the exec must have been created with AICF_EXEC_PROFILE. Its graph records a CUDA event
     before the first step (after the copy-in nodes) and after every step; step s's time is
     cuEventElapsedTime between the events that bracket it (resolution about 0.5 us), so it
     includes the step's share of the graph's per-node scheduling, and a step that launches
     nothing (a reshape in place) shows about 0. The sum over steps is the replay's time less
     the copy nodes; each event node adds about a microsecond to the replay.
     CPU: the wall-clock time of each step of the reference executor.
   Inputs are left as they are (set them first). Errors: AICF_ERROR_INVALID_ARGUMENT (NULL
   step_us, warmup < 0, iters < 1, num_steps not the plan's), AICF_ERROR_STATE (a CUDA exec
   created without AICF_EXEC_PROFILE), AICF_ERROR_OUT_OF_MEMORY, AICF_ERROR_CUDA. */
AICF_API aicf_result aicf_exec_profile(aicf_exec* exec, int warmup, int iters, float* step_us, int num_steps);

#ifdef __cplusplus
}
#endif
#endif /* AICF_H_INCLUDED */
#if defined(AICF_IMPLEMENTATION) && !defined(AICF__IMPLEMENTATION_DONE)
#define AICF__IMPLEMENTATION_DONE
/* >>internal =============================================================================== */
/* Everything below is the implementation: compiled where AICF_IMPLEMENTATION is defined.     */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#ifndef AICF_ASSERT
#  include <assert.h>
#  define AICF_ASSERT(c) assert(c)
#endif

#define AICF__UNUSED(x) ((void)(x))
#define AICF__MIN(a, b) ((a) < (b) ? (a) : (b))
#define AICF__MAX(a, b) ((a) > (b) ? (a) : (b))

/* The operators aicf knows, as (ONNX op_type). Every entry has shape inference and a CPU
   reference implementation; AICF__OP_COUNT is the number of entries. */
#define AICF__OPS(X)                                                                             \
    X(Conv) X(Gemm) X(MatMul)                                                                    \
    X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Sum) X(Max) X(Min)                                      \
    X(Relu) X(Tanh) X(Sigmoid) X(Exp) X(Log) X(Sqrt) X(Neg) X(Abs) X(Reciprocal) X(Erf)         \
    X(LeakyRelu) X(Elu) X(HardSigmoid) X(HardSwish) X(Clip) X(Identity) X(Dropout)              \
    X(MaxPool) X(AveragePool) X(GlobalAveragePool) X(BatchNormalization) X(LRN)                  \
    X(Concat) X(Reshape) X(Flatten) X(Transpose) X(Unsqueeze) X(Squeeze) X(Softmax)              \
    X(Constant) X(ConstantOfShape) X(Shape) X(Cast)                                              \
    X(Gather) X(GatherElements) X(GatherND) X(Slice) X(Split) X(Pad) X(Tile) X(Expand) X(Where)  \
    X(Range) X(Trilu) X(Size) X(CastLike) X(OneHot) X(CumSum) X(DepthToSpace) X(SpaceToDepth)     \
    X(ScatterND) X(ScatterElements) X(Scatter) X(TopK) X(NonZero)                                \
    X(Equal) X(Less) X(Greater) X(LessOrEqual) X(GreaterOrEqual) X(Not) X(And) X(Or) X(Xor)       \
    X(IsNaN) X(IsInf) X(Mod) X(PRelu) X(Mean)                                                    \
    X(ReduceMean) X(ReduceSum) X(ReduceMax) X(ReduceMin) X(ReduceProd) X(ReduceL1) X(ReduceL2)    \
    X(ReduceLogSum) X(ReduceLogSumExp) X(ReduceSumSquare) X(ArgMax) X(ArgMin)                    \
    X(Floor) X(Ceil) X(Round) X(Sign) X(Softplus) X(Softsign) X(Selu) X(Celu) X(ThresholdedRelu)  \
    X(Sin) X(Cos) X(Tan) X(Asin) X(Acos) X(Atan) X(Sinh) X(Cosh) X(Asinh) X(Acosh) X(Atanh)      \
    X(Gelu) X(Mish) X(Shrink) X(Swish)                                                           \
    X(LayerNormalization) X(RMSNormalization) X(InstanceNormalization) X(GroupNormalization)     \
    X(LpNormalization) X(MeanVarianceNormalization) X(LogSoftmax) X(Hardmax) X(GlobalMaxPool)    \
    X(Einsum) X(Resize) X(Upsample) X(ConvTranspose)                                             \
    X(CumProd) X(BitShift) X(BitwiseAnd) X(BitwiseOr) X(BitwiseXor) X(BitwiseNot) X(EyeLike)     \
    X(If) X(Loop) X(Scan)                                                                        \
    X(Compress) X(ReverseSequence) X(CenterCropPad) X(LpPool) X(Attention) X(RotaryEmbedding)

typedef enum aicf__op {
    AICF__OP_UNKNOWN = 0,
#define AICF__OP_ENUM(name) AICF__OP_##name,
    AICF__OPS(AICF__OP_ENUM)
#undef AICF__OP_ENUM
    AICF__OP_COUNT
} aicf__op;

/* ---- context ---- */
struct aicf__cuda; /* CUDA driver state (>>cuda) */

struct aicf_context {
    aicf_allocator alloc;
    uint32_t flags;
    int device_ordinal;
    char driver_path[512];
    char cublaslt_path[512];
    char last_error[1024];   /* the message buffer where no thread-local storage exists (AICF__TLS) */
    unsigned long serial;    /* tells apart contexts that reuse one address (the per-thread messages) */
    struct aicf__cuda* cuda; /* NULL until first use */
    int cuda_tried;
    aicf_result cuda_status; /* result of the first initialisation attempt */
};

/* Allocation through the context's allocator. aicf__calloc zeroes; counts are overflow-checked. */
void* aicf__malloc(aicf_context* ctx, size_t bytes);
void* aicf__calloc(aicf_context* ctx, size_t count, size_t size);
void* aicf__realloc(aicf_context* ctx, void* p, size_t old_bytes, size_t new_bytes);
void aicf__free(aicf_context* ctx, void* p);
char* aicf__strdup(aicf_context* ctx, const char* s);
/* Overflow-checked size arithmetic: return 0 on overflow, else 1 and *out. */
int aicf__mul_size(size_t a, size_t b, size_t* out);
int aicf__add_size(size_t a, size_t b, size_t* out);

/* The last-error message is kept per thread and per context: AICF__ERRBUF(ctx) is the calling
   thread's buffer (AICF__ERR_CAP bytes) for ctx, so one thread's failure never garbles the message
   another is reading. Without thread-local storage (a compiler other than GCC, Clang, MSVC or
   C11/C++11) it is the context's own buffer, as the manual says. */
#define AICF__ERR_CAP 1024
char* aicf__errbuf(const aicf_context* ctx);
#define AICF__ERRBUF(ctx) aicf__errbuf(ctx)

/* Records the error message (printf-style) on the context and returns `code`. Use as
   `return aicf__err(ctx, AICF_ERROR_SHAPE, "node %d '%s' (%s): ...", ...);` */
aicf_result aicf__err(aicf_context* ctx, aicf_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- graph ---- */
#define AICF__T_INPUT 0x1u  /* graph input */
#define AICF__T_OUTPUT 0x2u /* graph output */
#define AICF__T_CONST 0x4u  /* has constant data */

typedef struct aicf__shape {
    int rank;
    int64_t d[AICF_MAX_RANK];
} aicf__shape;

typedef struct aicf__tensor {
    char* name;
    aicf_dtype dtype;
    aicf__shape shape;                 /* d[i] == -1: symbolic, unbound */
    char* dim_param[AICF_MAX_RANK];    /* names of symbolic dims, or NULL */
    uint32_t flags;                    /* AICF__T_* */
    int shape_known;                   /* 1 once shape and dtype are known */
    void* data;                        /* constant value on the host (AICF__T_CONST) */
    size_t data_bytes;
    int owns_data;                     /* 1: free data with the graph */
    int producer;                      /* index of the producing node, -1 if none */
} aicf__tensor;

typedef struct aicf__attrv {
    char* name;
    aicf_attr_type type;
    int64_t i;
    float f;
    char* s;          /* STRING */
    int64_t* ints;    /* INTS */
    float* floats;    /* FLOATS */
    char** strings;   /* STRINGS */
    int count;
    int tensor;       /* TENSOR: index of an unnamed constant tensor in the graph, else -1 */
    aicf_graph* g;    /* GRAPH: owned subgraph */
} aicf__attrv;

typedef struct aicf__node {
    char* name;
    char* op_type;
    char* domain;
    aicf__op op;
    int* in;          /* tensor indices; -1 = omitted optional input */
    int n_in;
    int* out;         /* tensor indices; -1 = omitted optional output */
    int n_out;
    aicf__attrv* attrs;
    int n_attrs;
    int removed;      /* 1 once folded away by a plan pass */
} aicf__node;

typedef struct aicf__dim_binding {
    char* name;
    int64_t value;
} aicf__dim_binding;

struct aicf_graph {
    aicf_context* ctx;
    aicf__tensor* tensors;
    int n_tensors, cap_tensors;
    aicf__node* nodes;
    int n_nodes, cap_nodes;
    int* inputs;              /* tensor indices of graph inputs (without initializers) */
    int n_inputs, cap_inputs;
    int* outputs;
    int n_outputs, cap_outputs;
    int64_t opset;            /* default-domain opset version (0 = unknown: latest) */
    aicf__dim_binding* dims;
    int n_dims, cap_dims;
    int* name_index;          /* open-addressing hash: tensor index + 1, 0 = empty */
    int name_index_cap;
    void* file_data;          /* model bytes owned by the graph (borrowed initializers point here) */
    size_t file_size;
    int file_is_mmap;
    int is_subgraph;          /* 1: being built as a GRAPH attribute (aicf__graph_set_subgraph) */
};

/* Finds a tensor by name (-1 if none). */
int aicf__graph_find(const aicf_graph* g, const char* name);
/* Adds a tensor with no data and unknown shape; returns its index or -1 (error recorded). */
/* A new tensor named `name` (may be ""); its index, or -1 (out of memory) or -2 (a documented
   limit: AICF_MAX_NAME, AICF_MAX_TENSORS) with the message recorded; aicf__new_tensor_err maps
   that to its result code. */
int aicf__graph_new_tensor(aicf_graph* g, const char* name);
aicf_result aicf__new_tensor_err(int t);
/* Takes ownership of a memory block that borrowed constants may point into: freed with the
   graph by aicf__free, or by munmap when is_mmap is 1. */
void aicf__graph_adopt_file(aicf_graph* g, void* data, size_t size, int is_mmap);

/* Attribute lookup on a node: return the value, or `def` when the attribute is absent. */
const aicf__attrv* aicf__attr(const aicf__node* n, const char* name);
int64_t aicf__attr_i(const aicf__node* n, const char* name, int64_t def);
float aicf__attr_f(const aicf__node* n, const char* name, float def);
const char* aicf__attr_s(const aicf__node* n, const char* name, const char* def);
/* INTS attribute: returns its count (and *vals), or -1 when absent. */
int aicf__attr_ints(const aicf__node* n, const char* name, const int64_t** vals);

aicf__op aicf__op_from_name(const char* op_type);
const char* aicf__op_name(aicf__op op);

/* Element count of a shape (1 for rank 0); -1 if a dim is unknown or on overflow. */
int64_t aicf__shape_numel(const aicf__shape* s);
/* Byte size of a fully known shape and dtype; 0 with *ok = 0 on overflow, unknown dims or
   more than AICF_MAX_TENSOR_BYTES. */
size_t aicf__shape_bytes(const aicf__shape* s, aicf_dtype dt, int* ok);
/* Writes "[1,3,224,224]" into buf. */
const char* aicf__shape_str(const aicf__shape* s, char* buf, size_t cap);

/* ---- ops (>>ops): shape inference and the CPU reference ----
   aicf__op_infer validates node `ni`'s attributes and input shapes (all inputs have
   shape_known) and sets the dtype and shape of its outputs (shape_known = 1). Errors name the
   node: "node %d '%s' (%s): ...". It may read the data of constant inputs (e.g. Reshape's
   shape).
   aicf__cpu_run computes node `ni` on the host: in[i] points to input i's data (NULL where the
   input is omitted), out[i] to output i's buffer, each row-major and tightly packed with the
   shapes and dtypes recorded in the graph. Output buffers never overlap inputs, except that for
   aliasing ops (aicf__op_is_alias) out[0] may equal in[0]. */
aicf_result aicf__op_infer(aicf_graph* g, int ni);
aicf_result aicf__cpu_run(aicf_graph* g, int ni, const void* const* in, void* const* out);
/* 1 for ops whose output 0 is input 0's bytes unchanged (Reshape, Flatten, Squeeze, Unsqueeze,
   Identity, Dropout in inference). */
int aicf__op_is_alias(aicf__op op);

/* ---- plan (>>plan) ---- */
typedef enum aicf__space {
    AICF__SPACE_NONE = 0,
    AICF__SPACE_ARENA = 1,   /* activations, inputs and outputs */
    AICF__SPACE_WEIGHTS = 2  /* constants, in the storage precision */
} aicf__space;

typedef struct aicf__loc {
    aicf__space space;
    size_t offset; /* bytes from the start of the space */
    size_t bytes;  /* in the storage dtype */
    aicf_dtype sdtype; /* storage dtype on the backend (FLOAT16 for float tensors under fp16) */
    int alias_of;  /* tensor whose storage this one shares (aliasing ops, Split views), or -1 */
    size_t alias_add; /* bytes into alias_of's storage where this one starts (Split views), else 0 */
} aicf__loc;

typedef enum aicf__step_kind {
    AICF__STEP_NODE = 0, /* runs graph node `node` */
    AICF__STEP_CAST = 1  /* converts tensor in[0] into out[0] (storage dtype change at the
                            boundary of a reduced-precision plan) */
} aicf__step_kind;

#define AICF__STEP_MAX_IO AICF_MAX_STEP_IO

/* ---- fusion: a step's epilogue ----
   The fusion pass (>>plan, aicf__fuse) lets a step absorb the chain of elementwise nodes that
   consume its output 0 one after another: output 0 becomes v_k = e_k(... e_1(main(x)) ...),
   stored once, and the intermediate tensors are never materialised. Each e_i is an absorbed
   graph node: a unary op (its alpha/beta fixed at plan time, as aicf__cpu_run would use them)
   or a two-input arithmetic op (Add Sub Mul Div Pow Max Min PRelu) whose other input, the
   operand, broadcasts to output 0's shape (ONNX multidirectional broadcasting) and is produced
   before the main node. All tensors involved are float32 in the graph. The step's out[0] is
   the last absorbed node's output; in[] stays the main node's inputs. */
#define AICF__EPI_MAX 8

typedef struct aicf__epi {
    int node;          /* the absorbed graph node (op and attributes) */
    aicf__op op;       /* its op */
    int operand;       /* binary ops: the other input's tensor; -1 for unary ops */
    int operand_left;  /* 1: the operand is the left input (Sub(o, v)); 0: the right (Sub(v, o)) */
    float alpha, beta; /* unary parameters (aicf__op_unary_params) */
} aicf__epi;

/* Whether node ni of g can be absorbed as an epilogue op: 1 for a float32 unary op (then
   alpha and beta hold its parameters; Clip's min/max must be plan-time constants), 2 for a
   float32 two-input Add Sub Mul Div Pow Max Min PRelu (opset >= 7 broadcasting), 0 otherwise. */
int aicf__op_epilogue_kind(aicf_graph* g, int ni, float* alpha, float* beta);
/* The elementwise math exactly as the CPU reference computes it (float32). PRelu: a = X, b = slope. */
float aicf__op_epi_unary(aicf__op op, float x, float alpha, float beta);
float aicf__op_epi_binary(aicf__op op, float a, float b);
/* Applies epi[0..n_epi) in place to y (float32, shape ys); operands[k] is the data of
   epi[k].operand (broadcast to ys), NULL for unary ops. */
aicf_result aicf__cpu_epilogue(const aicf_graph* g, const aicf__epi* epi, int n_epi, float* y, const aicf__shape* ys,
                               const void* const* operands);

typedef struct aicf__step {
    aicf__step_kind kind;
    int node;                  /* node index in plan->g, or -1 */
    int in[AICF__STEP_MAX_IO]; /* tensor indices (-1 = omitted); for NODE: the node's inputs */
    int n_in;
    int out[AICF__STEP_MAX_IO];
    int n_out;
    /* chosen by the backend */
    char kernel[96];           /* kernel name, "cublasLt:..." or "cpu:<Op>" */
    int kernel_index;          /* index into the generated kernel table, -1 if none */
    unsigned grid[3], block[3];
    unsigned shared_bytes;
    char reason[192];          /* why this kernel */
    void* backend;             /* backend-owned per-step data (freed by the backend) */
    /* fusion (aicf__fuse) */
    aicf__epi epi[AICF__EPI_MAX]; /* elementwise nodes applied to output 0, in order */
    int n_epi;
    int epi_native;            /* backend: leading epilogue ops done inside the main kernel */
    /* arena scratch of the step (e.g. a Conv's im2col buffer): the bytes are stated by the
       backend before the memory plan (aicf__cuda_step_scratch), which places them as one more
       interval living during this step only; 0 = none */
    size_t scratch_bytes;
    size_t scratch_offset;     /* bytes from the arena's start, valid when scratch_bytes > 0 */
} aicf__step;

struct aicf_plan {
    aicf_context* ctx;
    aicf_graph* g;             /* owned copy of the graph after folding */
    aicf_backend target;       /* AICF_BACKEND_CPU or AICF_BACKEND_CUDA */
    aicf_policy policy;
    aicf__step* steps;
    int n_steps;
    aicf__loc* loc;            /* per tensor of g */
    size_t arena_bytes;
    size_t arena_lower_bound;
    int mem_order;             /* how the arena was placed: 2 x order (AICF__MEM_* of 70_plan.c) + fit
                                  (0 lowest offset, 1 best fit) */
    size_t weights_bytes;
    int* in_tensor;            /* graph inputs (tensor index in g), plan order */
    int n_in;
    int* out_tensor;           /* graph outputs */
    int n_out;
    /* for fp16 plans: tensor in the arena holding the float32 copy of each input/output at
       the API boundary (the cast steps convert), else the same as in_tensor/out_tensor */
    int* in_boundary;
    int* out_boundary;
    void* backend;             /* backend-owned plan data */
    /* plan files (>>plan_io) */
    aicf_backend requested;    /* desc.backend as the caller gave it */
    uint64_t model_fingerprint; /* aicf__graph_fingerprint of the caller's graph */
    struct aicf__saved_algos* saved_algos; /* during aicf_plan_load only: the file's cuBLASLt
                                              algorithms (aicf__cuda_matmul_plan uses them) */
};

/* ---- exec ---- */
struct aicf_exec {
    aicf_context* ctx;
    aicf_plan* plan;
    aicf_exec_desc desc;
    unsigned char* host_arena; /* CPU backend */
    unsigned char* host_weights;
    void* backend;             /* CUDA backend state */
};

/* ---- CUDA backend (>>cuda) ----
   aicf__cuda_init: loads the driver (and cuBLASLt) once per context; returns AICF_SUCCESS or
   AICF_ERROR_NO_DEVICE with a message.
   aicf__cuda_plan: chooses the kernel of every step of `p` (fills kernel, kernel_index, grid,
   block, shared_bytes, reason, backend); errors name the step's node.
   aicf__cuda_exec_*: implement the exec functions for the CUDA backend. */
aicf_result aicf__cuda_init(aicf_context* ctx);
void aicf__cuda_shutdown(aicf_context* ctx);
aicf_result aicf__cuda_device_info(aicf_context* ctx, aicf_device_info* out);
aicf_result aicf__cuda_plan(aicf_plan* p);
void aicf__cuda_plan_free(aicf_plan* p);
aicf_result aicf__cuda_exec_create(aicf_exec* e);
void aicf__cuda_exec_destroy(aicf_exec* e);
aicf_result aicf__cuda_exec_set_input(aicf_exec* e, int index, const void* data, size_t bytes, int device);
aicf_result aicf__cuda_exec_launch(aicf_exec* e);
aicf_result aicf__cuda_exec_wait(aicf_exec* e);
aicf_result aicf__cuda_exec_get_output(aicf_exec* e, int index, void* data, size_t bytes);
aicf_result aicf__cuda_exec_device_ptr(aicf_exec* e, int tensor, uint64_t* out);
aicf_result aicf__cuda_exec_stats(const aicf_exec* e, aicf_exec_stats* out);
aicf_result aicf__cpu_exec_step(aicf_exec* e, int s); /* one step of the CPU reference executor */

/* ---- float16 conversion (IEEE binary16, round to nearest even) ---- */
uint16_t aicf__f32_to_f16(float f);
float aicf__f16_to_f32(uint16_t h);

/* ---- the generated kernel table (kernels_gen/aicf_kernels.h, made by codegen/) ----
   The generated file defines, with these types:
     #define AICF__KT_NVRTC_VERSION "13.0"      NVRTC that compiled the table
     #define AICF__KT_TARGETS "sm_80 sm_86 sm_89 sm_90 compute_90"
     static const aicf__kt_module aicf__kt_modules[];   AICF__KT_NUM_MODULES entries
     static const aicf__kt_image  aicf__kt_images[];    AICF__KT_NUM_IMAGES entries
     static const aicf__kt_kernel aicf__kt_kernels[];   AICF__KT_NUM_KERNELS entries
   (each array has at least one element; the counts say how many are real). */
typedef struct aicf__kt_module {
    const char* name;        /* template-derived module name, e.g. "elementwise_f32" */
    const char* source_hash; /* sha256 of the rendered CUDA source */
} aicf__kt_module;

typedef struct aicf__kt_image {
    int module;              /* index into aicf__kt_modules */
    int sm;                  /* 80, 86, 89, 90...: cubin for sm_XX, or PTX for compute_XX */
    int is_ptx;              /* 1: PTX text (NUL-terminated, size includes the NUL) */
    const unsigned char* data;
    size_t size;
} aicf__kt_image;

typedef struct aicf__kt_kernel {
    const char* name;        /* extern "C" __global__ function name */
    int module;
    const char* op;          /* what it computes, e.g. "unary", "conv2d", "gemm" */
    const char* dtype;       /* "f32" or "f16" (storage) */
    const char* params;      /* variant parameters, "key=value;key=value" (sorted keys) */
    unsigned block;          /* threads per block the kernel was written for (launch bounds) */
} aicf__kt_kernel;

/* ---- CUDA backend, second half (>>cuda_ops, src/81_cuda_ops.c): op lowering ----
   80_cuda.c owns the driver, cuBLASLt, memory, modules and the CUDA graph; 81_cuda_ops.c owns
   what each step becomes: kernel choice, launch dimensions and kernel arguments.

   Kernel ABI: every generated kernel takes exactly one parameter, a struct passed by value,
   whose layout is declared in its template and mirrored in 81_cuda_ops.c. Device addresses are
   uint64_t fields. */

/* Called by aicf__cuda_plan for every step: fills kernel, kernel_index, grid, block,
   shared_bytes and reason, and may keep op data in step->backend (allocated with aicf__malloc;
   freed by aicf__cuda_plan_free with aicf__free). Errors name the node. */
aicf_result aicf__cuda_select_step(aicf_plan* p, int si);

/* Called by aicf__cuda_plan after every step is selected: joins runs of consecutive small-M
   GEMM steps (and the boundary Casts around them) into persistent kernels (81_cuda_ops.c
   aicf__cuo_persist); *n_kernels receives how many were made (each needs the exec's barrier
   word, aicf__cuda_sync_ptr). */
aicf_result aicf__cuda_persist(aicf_plan* p, int* n_kernels);

/* Called by aicf_plan_create for every step BEFORE the memory plan (CUDA backend; tensor
   storage and dtypes are known, arena offsets are not): the bytes of arena scratch the step's
   lowering will use (a Conv lowered to im2col + GEMM: its column buffer), else 0. The choice it
   is based on depends only on the policy, shapes, storage types and whether cuBLASLt is
   loaded, so aicf__cuda_select_step makes the same one. */
aicf_result aicf__cuda_step_scratch(aicf_plan* p, int si, size_t* bytes);

typedef struct aicf__cuda_emitter aicf__cuda_emitter; /* defined in 80_cuda.c */

/* Called by aicf__cuda_exec_create for every step, in order: adds the step's work to the
   graph through the emit functions below. */
aicf_result aicf__cuda_emit_step(aicf__cuda_emitter* em, aicf_plan* p, int si);

/* Provided by 80_cuda.c to 81_cuda_ops.c: */
/* Device address of tensor t's storage (arena or weights); 0 if it has none. */
uint64_t aicf__cuda_tensor_ptr(aicf__cuda_emitter* em, int t);
/* Device address of the arena scratch of the step being emitted (arena + scratch_offset); 0 if
   the step has none. */
uint64_t aicf__cuda_scratch_ptr(aicf__cuda_emitter* em);
/* Device address of the exec's barrier word (zeroed at exec creation; 0 if the plan has no
   persistent kernel). */
uint64_t aicf__cuda_sync_ptr(aicf__cuda_emitter* em);
/* Adds a kernel node (after the previously emitted work) launching table kernel
   `kernel_index` with one by-value argument of args_size bytes (copied). */
aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3],
                                   const unsigned block[3], unsigned shared_bytes,
                                   const void* args, size_t args_size);
/* Adds a device-to-device copy of `bytes`. */
aicf_result aicf__cuda_emit_copy(aicf__cuda_emitter* em, uint64_t dst, uint64_t src, size_t bytes);

/* A (batched, strided) matrix product D = alpha * op(A) op(B) + beta * C (+ bias, + act) in
   row-major terms: op(A) is [M,K], op(B) is [K,N], C and D are [M,N] with leading dimension ldc
   = ldd. Element types follow `dtype` (AICF_DTYPE_FLOAT32 or FLOAT16) for A, B, C, D, bias. */
typedef struct aicf__matmul_desc {
    int trans_a, trans_b;        /* 1: A is stored [K,M] (resp. B [N,K]) */
    int64_t M, N, K;
    int64_t lda, ldb, ldc;       /* row-major leading dimensions in elements */
    int64_t batch;               /* 1 for a single product */
    int64_t stride_a, stride_b, stride_c; /* elements between batches (0 = broadcast) */
    float alpha, beta;
    aicf_dtype dtype;
    int tf32;                    /* 1: float32 inputs on TF32 tensor cores */
    int bias;                    /* 1: add bias[N] (row broadcast) */
    int relu;                    /* 1: ReLU epilogue */
    uint64_t a, b, c, d, bias_ptr; /* device addresses, filled at emit time (c may be 0 if beta == 0) */
} aicf__matmul_desc;

/* Plan time: asks cuBLASLt for an algorithm for `d` (addresses ignored); stores an opaque
   record in *algo (aicf__malloc'd, freed with aicf__free) and writes a reason like
   "cuBLASLt heuristic #0 of 8, workspace 0 B". AICF_ERROR_UNSUPPORTED when cuBLASLt is not
   loaded or has no algorithm (the caller then picks a generated kernel). */
aicf_result aicf__cuda_matmul_plan(aicf_plan* p, const aicf__matmul_desc* d, void** algo,
                                   char* reason, size_t reason_cap);
/* Exec time: adds the cuBLASLt call (captured into a child graph with the exec's workspace). */
aicf_result aicf__cuda_emit_matmul(aicf__cuda_emitter* em, const aicf__matmul_desc* d, const void* algo);
/* Finds a kernel of the table by name; -1 if absent. */
int aicf__cuda_kernel_find(const char* name);

/* ---- plan files, explain, DOT (>>plan_io, src/75_plan_io.c) ----
   A plan file records every decision of a plan as text (docs/plan_format.md). aicf_plan_load
   never turns file bytes into a GPU program: it checks the header against this build, device
   and graph, re-plans with the file's policy through aicf__plan_create_ex, where the cuBLASLt
   algorithms come from the file (checked by cublasLtMatmulAlgoCheck) instead of the heuristic,
   serialises the new plan and requires it to equal the file. */
#define AICF__FNV_BASIS 0xcbf29ce484222325ull
/* FNV-1a (64-bit) of n bytes, continuing from h (start with AICF__FNV_BASIS). */
uint64_t aicf__fnv1a(uint64_t h, const void* data, size_t n);
/* The same over a NUL-terminated string including its NUL (NULL hashes as one 0xff byte). */
uint64_t aicf__fnv1a_str(uint64_t h, const char* s);
/* Fingerprint of a graph as the caller built it: ops, names, attributes (subgraphs included),
   shapes, dtypes, symbolic-dim bindings and constant bytes; no pointers, so deterministic. */
uint64_t aicf__graph_fingerprint(const aicf_graph* g);

/* A cuBLASLt algorithm as a plan file records it (plain data; see aicf__cuda_algo). */
typedef struct aicf__algo_rec {
    uint64_t blob[8];            /* cublasLtMatmulAlgo_t */
    uint64_t workspace_bytes;
    uint64_t cublaslt_version;   /* cublasLtGetVersion() of the plan that chose it */
    unsigned align[4];           /* A, B, C, D pointer alignment (bytes) assumed */
    int n_results;               /* heuristic results it was chosen from (#0 of n) */
} aicf__algo_rec;

/* One recorded algorithm and the matmul descriptor it was recorded for (as the step's op
   program holds it: address fields carry the operand alignments, aicf__cuda_matmul_plan's
   input). aicf__cuda_matmul_plan reuses `rec` for an identical descriptor, after
   cublasLtMatmulAlgoCheck accepts it; a refusal is noted in `refused` and the step falls back
   as if cuBLASLt had no algorithm (the plan then differs from the file and is refused). */
typedef struct aicf__saved_algo {
    aicf__matmul_desc desc;
    aicf__algo_rec rec;
    int line;                    /* of the plan file */
    int used;                    /* times aicf__cuda_matmul_plan took it */
    char refused[320];           /* why it was not taken ("" if it was, or never asked for) */
} aicf__saved_algo;

typedef struct aicf__saved_algos {
    aicf__saved_algo* v;
    int n;
} aicf__saved_algos;

/* aicf_plan_create, with `saved` (may be NULL) lent to the CUDA backend while it plans. */
aicf_result aicf__plan_create_ex(aicf_graph* graph, const aicf_plan_desc* desc, aicf__saved_algos* saved,
                                 aicf_plan** out);

/* Provided by 80_cuda.c: the identity of the generated kernel table (FNV-1a over
   AICF__KT_NVRTC_VERSION, AICF__KT_TARGETS, every module's name and source hash, and every
   kernel's name, module, op, dtype, params and block); the NVRTC version and counts. An
   AICF_NO_CUDA build reports the empty table. */
uint64_t aicf__cuda_table_fingerprint(const char** nvrtc, int* n_modules, int* n_kernels);

/* Provided by 81_cuda_ops.c: step si's op program (step->backend on CUDA) as plain data. */
#define AICF__CUDA_VIEW_MAX_PATCH 40
typedef struct aicf__cuda_op_view {
    int kind;                    /* 1 kernel, 2 device-to-device copy, 3 cuBLASLt matmul */
    int kernel_index;            /* kernel: index in the table */
    const char* kernel_name;     /* kernel: its name ("" otherwise) */
    unsigned grid[3], block[3], shared_bytes;
    uint32_t args_size;          /* kernel: argument struct bytes; matmul: aicf__matmul_desc */
    const unsigned char* args;   /* args_size bytes, device addresses not yet patched (zero or
                                    the plan-time value) */
    int n_patch;                 /* device addresses patched in at exec creation */
    uint32_t patch_field[AICF__CUDA_VIEW_MAX_PATCH]; /* byte offset in args (copies: 0 = destination, then source) */
    int patch_tensor[AICF__CUDA_VIEW_MAX_PATCH];     /* tensor, or -2: the step's arena scratch, -3: the exec's barrier word */
    uint64_t patch_add[AICF__CUDA_VIEW_MAX_PATCH];   /* bytes added to the tensor's address */
    uint64_t copy_bytes;         /* copy */
    int algo;                    /* matmul: index of its algorithm record in the step */
} aicf__cuda_op_view;
/* Number of ops of step si's program (0: none, e.g. an alias or a CPU plan); *n_algo receives
   the number of cuBLASLt algorithm records. */
int aicf__cuda_step_ops(const aicf_plan* p, int si, int* n_algo);
/* Op k (0 <= k < aicf__cuda_step_ops) and algorithm record k (0 <= k < *n_algo). */
void aicf__cuda_step_op(const aicf_plan* p, int si, int k, aicf__cuda_op_view* v);
void aicf__cuda_step_algo(const aicf_plan* p, int si, int k, aicf__algo_rec* a);

/* ---- subgraphs (GRAPH attributes: If's then_branch/else_branch, Loop's and Scan's body) ----
   A subgraph is an aicf_graph owned by its node's attribute (aicf__attrv.g). Its nodes may read
   names of enclosing graphs: while a graph is marked as a subgraph, aicf_graph_add_node and
   aicf_graph_add_output turn a name not defined locally into an "outer reference" tensor
   (AICF__T_OUTER: no data, unknown shape) resolved by name when the plan inlines the subgraph.
   Subgraph inputs whose type or shape the ONNX file leaves open have dtype AICF_DTYPE_INVALID
   and/or shape.rank -1 (only Loop/Scan bodies have inputs; the planner rejects those).
   Nesting deeper than AICF_MAX_SUBGRAPH_DEPTH graphs is AICF_ERROR_LIMIT (loader and builder).
   The planner resolves an If whose condition is a constant at plan time by inlining the chosen
   branch (>>plan); Loop and Scan are AICF_ERROR_UNSUPPORTED at plan time. */
#define AICF__T_OUTER 0x8u            /* subgraph tensor naming a value of an enclosing graph */
/* Marks g as a subgraph under construction (on = 1): undefined names become outer references. */
void aicf__graph_set_subgraph(aicf_graph* g, int on);
/* Levels of GRAPH attributes below g (0: none); stops counting past `limit`. */
int aicf__graph_nesting(const aicf_graph* g, int limit);
/* >>core =================================================================================== */

#if !defined(_WIN32)
#  include <sys/mman.h>
#endif

const char* aicf_result_str(aicf_result result) {
    switch (result) {
#define AICF__RESULT_CASE(name, value, text) case name: return text;
        AICF_RESULTS(AICF__RESULT_CASE)
#undef AICF__RESULT_CASE
    default: return "unknown result code";
    }
}

const char* aicf_dtype_name(aicf_dtype dtype) {
    switch (dtype) {
    case AICF_DTYPE_FLOAT32: return "float32";
    case AICF_DTYPE_UINT8: return "uint8";
    case AICF_DTYPE_INT8: return "int8";
    case AICF_DTYPE_UINT16: return "uint16";
    case AICF_DTYPE_INT16: return "int16";
    case AICF_DTYPE_INT32: return "int32";
    case AICF_DTYPE_INT64: return "int64";
    case AICF_DTYPE_STRING: return "string";
    case AICF_DTYPE_BOOL: return "bool";
    case AICF_DTYPE_FLOAT16: return "float16";
    case AICF_DTYPE_FLOAT64: return "float64";
    case AICF_DTYPE_UINT32: return "uint32";
    case AICF_DTYPE_UINT64: return "uint64";
    case AICF_DTYPE_BFLOAT16: return "bfloat16";
    default: return "invalid";
    }
}

size_t aicf_dtype_size(aicf_dtype dtype) {
    switch (dtype) {
    case AICF_DTYPE_FLOAT32: case AICF_DTYPE_INT32: case AICF_DTYPE_UINT32: return 4;
    case AICF_DTYPE_UINT8: case AICF_DTYPE_INT8: case AICF_DTYPE_BOOL: return 1;
    case AICF_DTYPE_UINT16: case AICF_DTYPE_INT16: case AICF_DTYPE_FLOAT16:
    case AICF_DTYPE_BFLOAT16: return 2;
    case AICF_DTYPE_INT64: case AICF_DTYPE_FLOAT64: case AICF_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* ---- allocation ---- */
int aicf__mul_size(size_t a, size_t b, size_t* out) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

int aicf__add_size(size_t a, size_t b, size_t* out) {
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

void* aicf__malloc(aicf_context* ctx, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (ctx && ctx->alloc.alloc) return ctx->alloc.alloc(bytes, ctx->alloc.user);
    return malloc(bytes);
}

void* aicf__calloc(aicf_context* ctx, size_t count, size_t size) {
    size_t bytes;
    void* p;
    if (!aicf__mul_size(count, size, &bytes)) return NULL;
    p = aicf__malloc(ctx, bytes);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

void* aicf__realloc(aicf_context* ctx, void* p, size_t old_bytes, size_t new_bytes) {
    void* q;
    if (new_bytes == 0) new_bytes = 1;
    if (!ctx || !ctx->alloc.alloc) return realloc(p, new_bytes);
    if (ctx->alloc.realloc) return ctx->alloc.realloc(p, old_bytes, new_bytes, ctx->alloc.user);
    q = aicf__malloc(ctx, new_bytes);
    if (!q) return NULL;
    if (p) {
        memcpy(q, p, AICF__MIN(old_bytes, new_bytes));
        aicf__free(ctx, p);
    }
    return q;
}

void aicf__free(aicf_context* ctx, void* p) {
    if (!p) return;
    if (ctx && ctx->alloc.alloc) {
        if (ctx->alloc.free) ctx->alloc.free(p, ctx->alloc.user);
        return;
    }
    free(p);
}

char* aicf__strdup(aicf_context* ctx, const char* s) {
    size_t n;
    char* d;
    if (!s) s = "";
    n = strlen(s);
    d = (char*)aicf__malloc(ctx, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

/* Grows an array of `elem` bytes so that it holds at least `need` entries. */
static int aicf__grow(aicf_context* ctx, void** arr, int* cap, int need, size_t elem) {
    int ncap;
    size_t old_bytes, new_bytes;
    void* p;
    if (need <= *cap) return 1;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > INT32_MAX / 2) return 0;
        ncap *= 2;
    }
    if (!aicf__mul_size((size_t)*cap, elem, &old_bytes) || !aicf__mul_size((size_t)ncap, elem, &new_bytes))
        return 0;
    p = aicf__realloc(ctx, *arr, old_bytes, new_bytes);
    if (!p) return 0;
    memset((char*)p + old_bytes, 0, new_bytes - old_bytes);
    *arr = p;
    *cap = ncap;
    return 1;
}

/* ---- per-thread last-error messages ----
   Each thread keeps AICF__ERR_SLOTS buffers, each tagged with a context (address and serial); a
   thread working with more contexts than that reuses its oldest slot. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#  define AICF__TLS thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#  define AICF__TLS _Thread_local
#elif defined(__GNUC__) || defined(__clang__)
#  define AICF__TLS __thread
#elif defined(_MSC_VER)
#  define AICF__TLS __declspec(thread)
#endif
#ifdef AICF__TLS
#  define AICF__ERR_SLOTS 4
typedef struct aicf__err_slot {
    const aicf_context* ctx;
    unsigned long serial;
    char msg[AICF__ERR_CAP];
} aicf__err_slot;
static AICF__TLS aicf__err_slot aicf__tls_err[AICF__ERR_SLOTS];
static AICF__TLS int aicf__tls_err_next;
static unsigned long aicf__ctx_serial;

static unsigned long aicf__next_serial(void) {
#  if defined(__GNUC__) || defined(__clang__)
    return __atomic_add_fetch(&aicf__ctx_serial, 1ul, __ATOMIC_RELAXED);
#  else
    return ++aicf__ctx_serial; /* MSVC: contexts are made by one thread at a time in practice */
#  endif
}

/* The calling thread's slot for ctx, or NULL. */
static char* aicf__errslot_find(const aicf_context* ctx) {
    int i;
    for (i = 0; i < AICF__ERR_SLOTS; i++)
        if (aicf__tls_err[i].ctx == ctx && aicf__tls_err[i].serial == ctx->serial) return aicf__tls_err[i].msg;
    return NULL;
}

char* aicf__errbuf(const aicf_context* ctx) {
    char* m = aicf__errslot_find(ctx);
    aicf__err_slot* s;
    if (m) return m;
    s = &aicf__tls_err[aicf__tls_err_next];
    aicf__tls_err_next = (aicf__tls_err_next + 1) % AICF__ERR_SLOTS;
    s->ctx = ctx;
    s->serial = ctx->serial;
    s->msg[0] = '\0';
    return s->msg;
}
#else
static unsigned long aicf__next_serial(void) { return 0; }
char* aicf__errbuf(const aicf_context* ctx) { return (char*)ctx->last_error; }
#endif

aicf_result aicf__err(aicf_context* ctx, aicf_result code, const char* fmt, ...) {
    va_list ap;
    if (!ctx) return code;
    va_start(ap, fmt);
    vsnprintf(AICF__ERRBUF(ctx), AICF__ERR_CAP, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- float16 (IEEE 754 binary16), round to nearest even ---- */
uint16_t aicf__f32_to_f16(float f) {
    uint32_t x, sign, mant;
    int32_t exp;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xff);
    mant = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u)); /* inf / nan */
    exp = exp - 127 + 15;
    if (exp >= 0x1f) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
    if (exp <= 0) {
        uint32_t shift, half, rest, m;
        if (exp < -10) return (uint16_t)sign; /* underflow -> signed zero */
        m = mant | 0x800000u;
        shift = (uint32_t)(14 - exp);
        half = 1u << (shift - 1);
        rest = m & ((1u << shift) - 1u);
        m >>= shift;
        if (rest > half || (rest == half && (m & 1u))) m++;
        return (uint16_t)(sign | m);
    } else {
        uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* may carry into exponent: ok */
        return (uint16_t)h;
    }
}

float aicf__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    float f;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                exp--;
            }
            mant &= 0x3ffu;
            x = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    memcpy(&f, &x, 4);
    return f;
}

/* ---- context ---- */
aicf_result aicf_context_create(const aicf_context_desc* desc, aicf_context** out) {
    aicf_context_desc d;
    aicf_context* ctx;
    if (!out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.allocator.alloc && !d.allocator.free) return AICF_ERROR_INVALID_ARGUMENT;
    if (d.allocator.alloc) ctx = (aicf_context*)d.allocator.alloc(sizeof *ctx, d.allocator.user);
    else ctx = (aicf_context*)malloc(sizeof *ctx);
    if (!ctx) return AICF_ERROR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = d.allocator;
    ctx->flags = d.flags;
    ctx->device_ordinal = d.device_ordinal;
    snprintf(ctx->driver_path, sizeof ctx->driver_path, "%s",
             d.cuda_driver_path ? d.cuda_driver_path : "libcuda.so.1");
    snprintf(ctx->cublaslt_path, sizeof ctx->cublaslt_path, "%s", d.cublaslt_path ? d.cublaslt_path : "");
    ctx->cuda_status = AICF_SUCCESS;
    ctx->serial = aicf__next_serial();
    *out = ctx;
    return AICF_SUCCESS;
}

void aicf_context_destroy(aicf_context* ctx) {
    if (!ctx) return;
    aicf__cuda_shutdown(ctx);
    aicf__free(ctx, ctx);
}

const char* aicf_last_error(const aicf_context* ctx) {
    if (!ctx) return "no context";
#ifdef AICF__TLS
    {   /* a thread that never failed on ctx gets "" without taking a slot */
        const char* m = aicf__errslot_find(ctx);
        return m ? m : "";
    }
#else
    return ctx->last_error;
#endif
}

aicf_result aicf_context_device_info(aicf_context* ctx, aicf_device_info* out) {
    aicf_result r;
    if (!ctx || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (ctx->flags & AICF_CONTEXT_NO_CUDA)
        return aicf__err(ctx, AICF_ERROR_NO_DEVICE, "aicf_context_device_info: CUDA disabled by AICF_CONTEXT_NO_CUDA");
    r = aicf__cuda_init(ctx);
    if (r != AICF_SUCCESS) return r;
    return aicf__cuda_device_info(ctx, out);
}

/* ---- names ---- */
static const char* const aicf__op_names[AICF__OP_COUNT] = {
    "(unknown)",
#define AICF__OP_NAME(name) #name,
    AICF__OPS(AICF__OP_NAME)
#undef AICF__OP_NAME
};

aicf__op aicf__op_from_name(const char* op_type) {
    int i;
    if (!op_type) return AICF__OP_UNKNOWN;
    for (i = 1; i < AICF__OP_COUNT; i++)
        if (strcmp(aicf__op_names[i], op_type) == 0) return (aicf__op)i;
    return AICF__OP_UNKNOWN;
}

const char* aicf__op_name(aicf__op op) {
    if ((int)op < 0 || op >= AICF__OP_COUNT) return "(invalid)";
    return aicf__op_names[op];
}

int64_t aicf__shape_numel(const aicf__shape* s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s->rank; i++) {
        if (s->d[i] < 0) return -1;
        if (s->d[i] != 0 && n > INT64_MAX / s->d[i]) return -1;
        n *= s->d[i];
    }
    return n;
}

const char* aicf__shape_str(const aicf__shape* s, char* buf, size_t cap) {
    size_t used = 0;
    int i;
    if (cap == 0) return buf;
    buf[0] = 0;
    used += (size_t)snprintf(buf + used, cap - used, "[");
    for (i = 0; i < s->rank && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ",%lld" : "%lld", (long long)s->d[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
    return buf;
}

/* ---- attributes ---- */
const aicf__attrv* aicf__attr(const aicf__node* n, const char* name) {
    int i;
    for (i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

int64_t aicf__attr_i(const aicf__node* n, const char* name, int64_t def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a) return def;
    if (a->type == AICF_ATTR_INT) return a->i;
    if (a->type == AICF_ATTR_FLOAT) return (int64_t)a->f;
    return def;
}

float aicf__attr_f(const aicf__node* n, const char* name, float def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a) return def;
    if (a->type == AICF_ATTR_FLOAT) return a->f;
    if (a->type == AICF_ATTR_INT) return (float)a->i;
    return def;
}

const char* aicf__attr_s(const aicf__node* n, const char* name, const char* def) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a || a->type != AICF_ATTR_STRING) return def;
    return a->s;
}

int aicf__attr_ints(const aicf__node* n, const char* name, const int64_t** vals) {
    const aicf__attrv* a = aicf__attr(n, name);
    if (!a || a->type != AICF_ATTR_INTS) return -1;
    if (vals) *vals = a->ints;
    return a->count;
}

/* ---- graph ---- */
static uint64_t aicf__hash_str(const char* s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ull;
    }
    return h;
}

static int aicf__index_rebuild(aicf_graph* g, int cap) {
    int* idx = (int*)aicf__calloc(g->ctx, (size_t)cap, sizeof(int));
    int i;
    if (!idx) return 0;
    aicf__free(g->ctx, g->name_index);
    g->name_index = idx;
    g->name_index_cap = cap;
    for (i = 0; i < g->n_tensors; i++) {
        uint64_t h;
        if (!g->tensors[i].name || !g->tensors[i].name[0]) continue;
        h = aicf__hash_str(g->tensors[i].name) & (uint64_t)(cap - 1);
        while (idx[h]) h = (h + 1) & (uint64_t)(cap - 1);
        idx[h] = i + 1;
    }
    return 1;
}

int aicf__graph_find(const aicf_graph* g, const char* name) {
    uint64_t h;
    if (!name || !name[0] || !g->name_index_cap) return -1;
    h = aicf__hash_str(name) & (uint64_t)(g->name_index_cap - 1);
    while (g->name_index[h]) {
        int t = g->name_index[h] - 1;
        if (strcmp(g->tensors[t].name, name) == 0) return t;
        h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
    }
    return -1;
}

int aicf__graph_new_tensor(aicf_graph* g, const char* name) {
    aicf__tensor* t;
    if (!name) name = "";
    if (strlen(name) > AICF_MAX_NAME) {
        aicf__err(g->ctx, AICF_ERROR_LIMIT, "tensor name of %zu bytes: longer than AICF_MAX_NAME (%d bytes)",
                  strlen(name), AICF_MAX_NAME);
        return -2;
    }
    if (g->n_tensors >= AICF_MAX_TENSORS) {
        aicf__err(g->ctx, AICF_ERROR_LIMIT, "tensor '%s': graph has more than AICF_MAX_TENSORS (%d) tensors",
                  name, AICF_MAX_TENSORS);
        return -2;
    }
    if (!aicf__grow(g->ctx, (void**)&g->tensors, &g->cap_tensors, g->n_tensors + 1, sizeof(aicf__tensor))) {
        aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
        return -1;
    }
    t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = aicf__strdup(g->ctx, name);
    if (!t->name) {
        aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
        return -1;
    }
    t->producer = -1;
    g->n_tensors++;
    if (name[0]) {
        if ((g->n_tensors + 1) * 2 > g->name_index_cap) {
            int cap = g->name_index_cap ? g->name_index_cap * 2 : 64;
            while ((g->n_tensors + 1) * 2 > cap) cap *= 2;
            if (!aicf__index_rebuild(g, cap)) {
                g->n_tensors--;
                aicf__free(g->ctx, t->name);
                aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", name);
                return -1;
            }
        } else {
            uint64_t h = aicf__hash_str(name) & (uint64_t)(g->name_index_cap - 1);
            while (g->name_index[h]) h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
            g->name_index[h] = g->n_tensors;
        }
    }
    return g->n_tensors - 1;
}

aicf_result aicf__new_tensor_err(int t) { return t == -2 ? AICF_ERROR_LIMIT : AICF_ERROR_OUT_OF_MEMORY; }

/* Removes the tensors added since the graph had n0 (none of them referenced yet), newest first.
   Linear-probing deletion in the reverse order of insertion restores the index exactly (a rebuild
   re-inserts in index order, so the newest are still the last inserted); nothing is allocated. */
static void aicf__graph_drop_tensors(aicf_graph* g, int n0) {
    while (g->n_tensors > n0) {
        int t = g->n_tensors - 1;
        aicf__tensor* tt = &g->tensors[t];
        if (tt->name && tt->name[0] && g->name_index_cap) {
            uint64_t h = aicf__hash_str(tt->name) & (uint64_t)(g->name_index_cap - 1);
            while (g->name_index[h] && g->name_index[h] != t + 1) h = (h + 1) & (uint64_t)(g->name_index_cap - 1);
            g->name_index[h] = 0;
        }
        aicf__free(g->ctx, tt->name);
        memset(tt, 0, sizeof *tt);
        g->n_tensors--;
    }
}

void aicf__graph_adopt_file(aicf_graph* g, void* data, size_t size, int is_mmap) {
    g->file_data = data;
    g->file_size = size;
    g->file_is_mmap = is_mmap;
}

aicf_result aicf_graph_create(aicf_context* ctx, aicf_graph** out) {
    aicf_graph* g;
    if (!ctx || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    g = (aicf_graph*)aicf__calloc(ctx, 1, sizeof *g);
    if (!g) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_create: out of memory");
    g->ctx = ctx;
    *out = g;
    return AICF_SUCCESS;
}

static void aicf__attr_free(aicf_context* ctx, aicf__attrv* a) {
    int j;
    aicf__free(ctx, a->name);
    aicf__free(ctx, a->s);
    aicf__free(ctx, a->ints);
    aicf__free(ctx, a->floats);
    if (a->strings) {
        for (j = 0; j < a->count; j++) aicf__free(ctx, a->strings[j]);
        aicf__free(ctx, a->strings);
    }
    if (a->g) aicf_graph_destroy(a->g);
}

static void aicf__node_free(aicf_context* ctx, aicf__node* n) {
    int i;
    aicf__free(ctx, n->name);
    aicf__free(ctx, n->op_type);
    aicf__free(ctx, n->domain);
    aicf__free(ctx, n->in);
    aicf__free(ctx, n->out);
    for (i = 0; i < n->n_attrs; i++) aicf__attr_free(ctx, &n->attrs[i]);
    aicf__free(ctx, n->attrs);
}

void aicf_graph_destroy(aicf_graph* g) {
    aicf_context* ctx;
    int i, j;
    if (!g) return;
    ctx = g->ctx;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        aicf__free(ctx, t->name);
        for (j = 0; j < AICF_MAX_RANK; j++) aicf__free(ctx, t->dim_param[j]);
        if (t->owns_data) aicf__free(ctx, t->data);
    }
    for (i = 0; i < g->n_nodes; i++) aicf__node_free(ctx, &g->nodes[i]);
    for (i = 0; i < g->n_dims; i++) aicf__free(ctx, g->dims[i].name);
    aicf__free(ctx, g->tensors);
    aicf__free(ctx, g->nodes);
    aicf__free(ctx, g->inputs);
    aicf__free(ctx, g->outputs);
    aicf__free(ctx, g->dims);
    aicf__free(ctx, g->name_index);
    if (g->file_data) {
#if !defined(_WIN32)
        if (g->file_is_mmap) munmap(g->file_data, g->file_size);
        else
#endif
            aicf__free(ctx, g->file_data);
    }
    aicf__free(ctx, g);
}

aicf_result aicf_graph_set_opset(aicf_graph* g, const char* domain, int64_t version) {
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    if (version < 1 || version > 1000)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_set_opset: version %lld out of range",
                         (long long)version);
    if (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0) g->opset = version;
    return AICF_SUCCESS;
}

/* Validates a tensor desc and fills a new tensor with its type and shape. */
static aicf_result aicf__tensor_from_desc(aicf_graph* g, const aicf_tensor_desc* d, const char* what, int* out_t) {
    aicf_context* ctx = g->ctx;
    int t, i;
    aicf__tensor* tt;
    *out_t = -1;
    if (!d || !d->name || !d->name[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: tensor name is empty", what);
    if (d->rank < 0 || d->rank > AICF_MAX_RANK)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: tensor '%s': rank %d outside 0..%d", what, d->name, d->rank,
                         AICF_MAX_RANK);
    if (d->rank > 0 && !d->dims)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': dims is NULL for rank %d", what,
                         d->name, d->rank);
    if (aicf_dtype_size(d->dtype) == 0)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: tensor '%s': data type %s (%d) is not supported", what,
                         d->name, aicf_dtype_name(d->dtype), (int)d->dtype);
    for (i = 0; i < d->rank; i++)
        if (d->dims[i] < -1 || (d->dims[i] == -1 && !(d->dim_params && d->dim_params[i] && d->dim_params[i][0])))
            return aicf__err(ctx, AICF_ERROR_SHAPE, "%s: tensor '%s': dims[%d] = %lld is invalid", what, d->name, i,
                             (long long)d->dims[i]);
    if (aicf__graph_find(g, d->name) >= 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: tensor '%s' is already defined", what, d->name);
    t = aicf__graph_new_tensor(g, d->name);
    if (t < 0) return aicf__new_tensor_err(t);
    tt = &g->tensors[t];
    tt->dtype = d->dtype;
    tt->shape.rank = d->rank;
    for (i = 0; i < d->rank; i++) {
        tt->shape.d[i] = d->dims[i];
        if (d->dim_params && d->dim_params[i] && d->dim_params[i][0]) {
            int k;
            tt->shape.d[i] = -1;
            tt->dim_param[i] = aicf__strdup(ctx, d->dim_params[i]);
            if (!tt->dim_param[i]) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            for (k = 0; k < g->n_dims; k++)
                if (strcmp(g->dims[k].name, d->dim_params[i]) == 0) tt->shape.d[i] = g->dims[k].value;
        }
    }
    tt->shape_known = aicf__shape_numel(&tt->shape) >= 0;
    *out_t = t;
    return AICF_SUCCESS;
}

size_t aicf__shape_bytes(const aicf__shape* s, aicf_dtype dt, int* ok) {
    int64_t n = aicf__shape_numel(s);
    size_t bytes;
    *ok = 0;
    if (n < 0) return 0;
    if (!aicf__mul_size((size_t)n, aicf_dtype_size(dt), &bytes)) return 0;
    if ((uint64_t)bytes > AICF_MAX_TENSOR_BYTES) return 0;
    *ok = 1;
    return bytes;
}

/* Removes tensor t's slot from the name index without allocating (backward-shift deletion for
   linear probing: later entries of the same cluster move up so lookups still find them). */
static void aicf__index_remove(aicf_graph* g, int t) {
    uint64_t mask, i, j, k;
    if (!g->name_index_cap || !g->tensors[t].name || !g->tensors[t].name[0]) return;
    mask = (uint64_t)(g->name_index_cap - 1);
    i = aicf__hash_str(g->tensors[t].name) & mask;
    while (g->name_index[i] && g->name_index[i] != t + 1) i = (i + 1) & mask;
    if (!g->name_index[i]) return;
    g->name_index[i] = 0;
    j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!g->name_index[j]) break;
        k = aicf__hash_str(g->tensors[g->name_index[j] - 1].name) & mask;
        /* the entry at j may stay if its home slot k lies cyclically in (i, j] */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
        g->name_index[i] = g->name_index[j];
        g->name_index[j] = 0;
        i = j;
    }
}

/* Removes the most recently added tensor (nothing refers to it yet). Never allocates. */
static void aicf__pop_tensor(aicf_graph* g) {
    aicf__tensor* t = &g->tensors[g->n_tensors - 1];
    int j;
    aicf__index_remove(g, g->n_tensors - 1);
    aicf__free(g->ctx, t->name);
    for (j = 0; j < AICF_MAX_RANK; j++) aicf__free(g->ctx, t->dim_param[j]);
    if (t->owns_data) aicf__free(g->ctx, t->data);
    memset(t, 0, sizeof *t);
    g->n_tensors--;
}

aicf_result aicf_graph_add_input(aicf_graph* g, const aicf_tensor_desc* d) {
    aicf_result r;
    int t;
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__tensor_from_desc(g, d, "aicf_graph_add_input", &t);
    if (r != AICF_SUCCESS) return r;
    {
        int ok = 1, k, symbolic = 0;
        for (k = 0; k < g->tensors[t].shape.rank; k++) symbolic |= g->tensors[t].shape.d[k] < 0;
        if (!symbolic) aicf__shape_bytes(&g->tensors[t].shape, g->tensors[t].dtype, &ok);
        if (!ok) {
            aicf__pop_tensor(g);
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_input: tensor '%s': size exceeds AICF_MAX_TENSOR_BYTES",
                             d->name);
        }
    }
    if (!aicf__grow(g->ctx, (void**)&g->inputs, &g->cap_inputs, g->n_inputs + 1, sizeof(int)))
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_input: out of memory");
    g->tensors[t].flags |= AICF__T_INPUT;
    g->inputs[g->n_inputs++] = t;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_constant(aicf_graph* g, const aicf_tensor_desc* d) {
    aicf_result r;
    int t, ok, i;
    size_t bytes;
    aicf__tensor* tt;
    if (!g) return AICF_ERROR_INVALID_ARGUMENT;
    if (d && d->dim_params)
        for (i = 0; i < d->rank; i++)
            if (d->dim_params[i] && d->dim_params[i][0])
                return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_add_constant: tensor '%s': dims[%d] is symbolic",
                                 d->name ? d->name : "", i);
    if (d && d->dims)
        for (i = 0; i < d->rank; i++)
            if (d->dims[i] < 0)
                return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_add_constant: tensor '%s': dims[%d] = %lld is negative",
                                 d->name ? d->name : "", i, (long long)d->dims[i]);
    r = aicf__tensor_from_desc(g, d, "aicf_graph_add_constant", &t);
    if (r != AICF_SUCCESS) return r;
    tt = &g->tensors[t];
    bytes = aicf__shape_bytes(&tt->shape, tt->dtype, &ok);
    if (!ok) {
        aicf__pop_tensor(g);
        return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_constant: tensor '%s': size overflows the tensor limit",
                         d->name);
    }
    if (d->data_bytes != bytes || (bytes && !d->data)) {
        aicf__pop_tensor(g);
        return aicf__err(g->ctx, AICF_ERROR_INVALID_MODEL,
                         "aicf_graph_add_constant: tensor '%s': data_bytes %zu does not match shape (%zu bytes)",
                         d->name, d->data_bytes, bytes);
    }
    tt->flags |= AICF__T_CONST;
    tt->data_bytes = bytes;
    if (d->borrow) {
        tt->data = (void*)d->data;
        tt->owns_data = 0;
    } else {
        tt->data = aicf__malloc(g->ctx, bytes);
        if (!tt->data) { /* the graph stays as it was: the tensor is not added */
            tt->flags &= ~AICF__T_CONST;
            tt->data_bytes = 0;
            aicf__pop_tensor(g);
            return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_constant: tensor '%s': out of memory (%zu bytes)",
                             d->name, bytes);
        }
        if (bytes) memcpy(tt->data, d->data, bytes);
        tt->owns_data = 1;
    }
    tt->shape_known = 1;
    return AICF_SUCCESS;
}

/* ---- subgraphs ---- */
void aicf__graph_set_subgraph(aicf_graph* g, int on) {
    if (g) g->is_subgraph = on ? 1 : 0;
}

/* Levels of GRAPH attributes below g, or limit + 1 once deeper than `limit`; -1 if `forbidden`
   (a graph about to own g) occurs in g's tree, which would make ownership a cycle. */
static int aicf__graph_nesting_ex(const aicf_graph* g, int limit, const aicf_graph* forbidden) {
    int i, j, best = 0;
    if (g == forbidden) return -1;
    for (i = 0; i < g->n_nodes; i++)
        for (j = 0; j < g->nodes[i].n_attrs; j++) {
            const aicf__attrv* a = &g->nodes[i].attrs[j];
            int d;
            if (a->type != AICF_ATTR_GRAPH || !a->g) continue;
            if (limit <= 0) return a->g == forbidden ? -1 : 1;
            d = aicf__graph_nesting_ex(a->g, limit - 1, forbidden);
            if (d < 0) return -1;
            if (d + 1 > best) best = d + 1;
            if (best > limit) return best;
        }
    return best;
}

int aicf__graph_nesting(const aicf_graph* g, int limit) { return g ? aicf__graph_nesting_ex(g, limit, NULL) : 0; }

/* 1 if sub is already the graph of one of g's attributes. */
static int aicf__graph_attached(const aicf_graph* g, const aicf_graph* sub) {
    int i, j;
    for (i = 0; i < g->n_nodes; i++)
        for (j = 0; j < g->nodes[i].n_attrs; j++)
            if (g->nodes[i].attrs[j].type == AICF_ATTR_GRAPH && g->nodes[i].attrs[j].g == sub) return 1;
    return 0;
}

/* Adds an outer reference (AICF__T_OUTER) named `name` to subgraph g; -1 on error (recorded). */
static int aicf__graph_outer_ref(aicf_graph* g, const char* name) {
    int t = aicf__graph_new_tensor(g, name);
    if (t >= 0) g->tensors[t].flags = AICF__T_OUTER;
    return t;
}

/* Frees a node that failed to be added: the graphs of its GRAPH attributes stay the caller's. */
static void aicf__node_free_keep_graphs(aicf_context* ctx, aicf__node* n) {
    int i;
    for (i = 0; i < n->n_attrs; i++) n->attrs[i].g = NULL;
    aicf__node_free(ctx, n);
}

/* Copies one attribute into node storage. */
static aicf_result aicf__attr_copy(aicf_graph* g, const aicf_node_desc* nd, int ni, const aicf_attr* a, aicf__attrv* v) {
    aicf_context* ctx = g->ctx;
    int j;
    memset(v, 0, sizeof *v);
    v->tensor = -1;
    if (!a->name || !a->name[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): attribute with empty name", ni,
                         nd->name ? nd->name : "", nd->op_type);
    if (strlen(a->name) > AICF_MAX_NAME)
        return aicf__err(ctx, AICF_ERROR_LIMIT,
                         "node %d '%s' (%s): attribute name of %zu bytes is longer than AICF_MAX_NAME (%d bytes)", ni,
                         nd->name ? nd->name : "", nd->op_type, strlen(a->name), AICF_MAX_NAME);
    v->name = aicf__strdup(ctx, a->name);
    if (!v->name) return AICF_ERROR_OUT_OF_MEMORY;
    v->type = a->type;
    switch (a->type) {
    case AICF_ATTR_FLOAT: v->f = a->f; break;
    case AICF_ATTR_INT: v->i = a->i; break;
    case AICF_ATTR_STRING:
        v->s = aicf__strdup(ctx, a->s ? a->s : "");
        if (!v->s) return AICF_ERROR_OUT_OF_MEMORY;
        break;
    case AICF_ATTR_INTS:
    case AICF_ATTR_FLOATS:
    case AICF_ATTR_STRINGS:
        if (a->count < 0 || a->count > AICF_MAX_ATTR_ELEMS)
            return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): attribute '%s' has %d elements (limit %d)", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name, a->count, AICF_MAX_ATTR_ELEMS);
        v->count = a->count;
        if (a->count > 0 && ((a->type == AICF_ATTR_INTS && !a->ints) || (a->type == AICF_ATTR_FLOATS && !a->floats) ||
                             (a->type == AICF_ATTR_STRINGS && !a->strings)))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' has no values", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        if (a->type == AICF_ATTR_INTS) {
            v->ints = (int64_t*)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(int64_t));
            if (!v->ints) return AICF_ERROR_OUT_OF_MEMORY;
            if (a->count) memcpy(v->ints, a->ints, (size_t)a->count * sizeof(int64_t));
        } else if (a->type == AICF_ATTR_FLOATS) {
            v->floats = (float*)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(float));
            if (!v->floats) return AICF_ERROR_OUT_OF_MEMORY;
            if (a->count) memcpy(v->floats, a->floats, (size_t)a->count * sizeof(float));
        } else {
            v->strings = (char**)aicf__calloc(ctx, (size_t)a->count + 1, sizeof(char*));
            if (!v->strings) return AICF_ERROR_OUT_OF_MEMORY;
            for (j = 0; j < a->count; j++) {
                v->strings[j] = aicf__strdup(ctx, a->strings[j]);
                if (!v->strings[j]) return AICF_ERROR_OUT_OF_MEMORY;
            }
        }
        break;
    case AICF_ATTR_TENSOR: {
        aicf_tensor_desc td;
        char nm[64];
        aicf_result r;
        int save_n;
        if (!a->t)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' has no tensor", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        td = *a->t;
        /* unnamed internal constant: give it a name no ONNX tensor can collide with */
        snprintf(nm, sizeof nm, "\x01" "attr%d.%d", ni, g->n_tensors);
        td.name = nm;
        td.borrow = 0;
        save_n = g->n_tensors;
        r = aicf_graph_add_constant(g, &td);
        if (r != AICF_SUCCESS) {
            char msg[AICF__ERR_CAP];
            snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
            return aicf__err(ctx, r, "node %d '%s' (%s): attribute '%s': %s", ni, nd->name ? nd->name : "",
                             nd->op_type, a->name, msg);
        }
        v->tensor = save_n;
        break;
    }
    case AICF_ATTR_GRAPH: {
        int depth;
        if (!a->g)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): attribute '%s' (GRAPH) has no graph",
                             ni, nd->name ? nd->name : "", nd->op_type, a->name);
        if (a->g->ctx != ctx)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "node %d '%s' (%s): attribute '%s': the subgraph belongs to another context", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        depth = aicf__graph_nesting_ex(a->g, AICF_MAX_SUBGRAPH_DEPTH - 1, g);
        if (depth < 0 || aicf__graph_attached(g, a->g))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "node %d '%s' (%s): attribute '%s': the subgraph is this graph, contains it or is already "
                             "attached to it (a subgraph belongs to exactly one attribute)", ni,
                             nd->name ? nd->name : "", nd->op_type, a->name);
        if (depth + 1 > AICF_MAX_SUBGRAPH_DEPTH)
            return aicf__err(ctx, AICF_ERROR_LIMIT,
                             "node %d '%s' (%s): attribute '%s': subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH "
                             "(%d) deep", ni, nd->name ? nd->name : "", nd->op_type, a->name, AICF_MAX_SUBGRAPH_DEPTH);
        v->g = a->g;
        break;
    }
    default:
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): attribute '%s' has unsupported type %d", ni,
                         nd->name ? nd->name : "", nd->op_type, a->name, (int)a->type);
    }
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_node(aicf_graph* g, const aicf_node_desc* nd) {
    aicf_context* ctx;
    aicf__node* n;
    int ni, i, n0;
    const char* nm;
    aicf_result r;
    if (!g || !nd) return AICF_ERROR_INVALID_ARGUMENT;
    ctx = g->ctx;
    ni = g->n_nodes;
    nm = nd->name ? nd->name : "";
    if (!nd->op_type || !nd->op_type[0])
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s': op_type is empty", ni, nm);
    if (nd->domain && nd->domain[0] && strcmp(nd->domain, "ai.onnx") != 0)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): operator domain '%s' is not supported", ni,
                         nm, nd->op_type, nd->domain);
    if (aicf__op_from_name(nd->op_type) == AICF__OP_UNKNOWN)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "node %d '%s' (%s): unsupported op type", ni, nm, nd->op_type);
    if (nd->num_inputs > AICF_MAX_NODE_IO || nd->num_outputs > AICF_MAX_NODE_IO)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): %d inputs and %d outputs exceed AICF_MAX_NODE_IO (%d)",
                         ni, nm, nd->op_type, nd->num_inputs, nd->num_outputs, AICF_MAX_NODE_IO);
    if (nd->num_inputs < 0 || nd->num_outputs < 1 || (nd->num_inputs && !nd->inputs) || !nd->outputs)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): invalid input/output counts (%d, %d)", ni,
                         nm, nd->op_type, nd->num_inputs, nd->num_outputs);
    if (strlen(nm) > AICF_MAX_NAME)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d: name longer than AICF_MAX_NAME", ni);
    if (g->n_nodes >= AICF_MAX_NODES)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): more than AICF_MAX_NODES nodes", ni, nm, nd->op_type);
    /* inputs must exist already (topological order, as ONNX requires); in a subgraph, a name
       not defined locally is an outer reference (created below, once the node is accepted) */
    for (i = 0; i < nd->num_inputs; i++) {
        const char* in = nd->inputs[i];
        int j;
        if (!in || !in[0]) continue;
        if (aicf__graph_find(g, in) >= 0) continue;
        if (!g->is_subgraph)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): input %d '%s' is not defined before use",
                             ni, nm, nd->op_type, i, in);
        for (j = 0; j < nd->num_outputs; j++)
            if (nd->outputs && nd->outputs[j] && strcmp(nd->outputs[j], in) == 0)
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): input %d '%s' is its own output",
                                 ni, nm, nd->op_type, i, in);
    }
    for (i = 0; i < nd->num_outputs; i++) {
        const char* o = nd->outputs[i];
        int j;
        if (!o || !o[0]) continue;
        if (aicf__graph_find(g, o) >= 0)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): output %d '%s' is already defined", ni,
                             nm, nd->op_type, i, o);
        for (j = 0; j < i; j++)
            if (nd->outputs[j] && strcmp(nd->outputs[j], o) == 0)
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): output '%s' appears twice", ni, nm,
                                 nd->op_type, o);
    }
    if (!aicf__grow(ctx, (void**)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(aicf__node)))
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
    n = &g->nodes[ni];
    memset(n, 0, sizeof *n);
    n->op = aicf__op_from_name(nd->op_type);
    n->name = aicf__strdup(ctx, nm);
    n->op_type = aicf__strdup(ctx, nd->op_type);
    n->domain = aicf__strdup(ctx, nd->domain ? nd->domain : "");
    n->in = (int*)aicf__calloc(ctx, (size_t)nd->num_inputs + 1, sizeof(int));
    n->out = (int*)aicf__calloc(ctx, (size_t)nd->num_outputs, sizeof(int));
    n->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)nd->num_attrs + 1, sizeof(aicf__attrv));
    if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attrs) {
        aicf__node_free(ctx, n);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
    }
    if (nd->num_attrs < 0 || (nd->num_attrs && !nd->attrs)) {
        aicf__node_free(ctx, n);
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "node %d '%s' (%s): invalid attribute list", ni, nm, nd->op_type);
    }
    for (i = 0; i < nd->num_attrs; i++) {
        int j;
        for (j = 0; j < i; j++)
            if (nd->attrs[i].name && nd->attrs[j].name && strcmp(nd->attrs[i].name, nd->attrs[j].name) == 0) {
                n->n_attrs = i;
                aicf__node_free_keep_graphs(ctx, n);
                return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (%s): attribute '%s' appears twice", ni,
                                 nm, nd->op_type, nd->attrs[i].name);
            }
        for (j = 0; j < i && nd->attrs[i].type == AICF_ATTR_GRAPH && nd->attrs[i].g; j++)
            if (nd->attrs[j].type == AICF_ATTR_GRAPH && nd->attrs[j].g == nd->attrs[i].g) {
                n->n_attrs = i;
                aicf__node_free_keep_graphs(ctx, n);
                return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT,
                                 "node %d '%s' (%s): attributes '%s' and '%s' give the same subgraph", ni, nm,
                                 nd->op_type, nd->attrs[j].name ? nd->attrs[j].name : "",
                                 nd->attrs[i].name ? nd->attrs[i].name : "");
            }
        r = aicf__attr_copy(g, nd, ni, &nd->attrs[i], &n->attrs[i]);
        n->n_attrs = i + 1;
        if (r != AICF_SUCCESS) {
            aicf__node_free_keep_graphs(ctx, n); /* a failed node leaves every subgraph with the caller */
            if (r == AICF_ERROR_OUT_OF_MEMORY)
                return aicf__err(ctx, r, "node %d '%s' (%s): out of memory", ni, nm, nd->op_type);
            return r;
        }
    }
    n0 = g->n_tensors; /* a failure below removes the outer references and outputs it added */
    for (i = 0; i < nd->num_inputs && g->is_subgraph; i++)
        if (nd->inputs[i] && nd->inputs[i][0] && aicf__graph_find(g, nd->inputs[i]) < 0) {
            int t = aicf__graph_outer_ref(g, nd->inputs[i]);
            if (t < 0) {
                aicf__node_free_keep_graphs(ctx, n);
                aicf__graph_drop_tensors(g, n0);
                return aicf__new_tensor_err(t);
            }
        }
    n->n_in = nd->num_inputs;
    for (i = 0; i < nd->num_inputs; i++)
        n->in[i] = (nd->inputs[i] && nd->inputs[i][0]) ? aicf__graph_find(g, nd->inputs[i]) : -1;
    n->n_out = nd->num_outputs;
    for (i = 0; i < nd->num_outputs; i++) {
        int t;
        if (!nd->outputs[i] || !nd->outputs[i][0]) {
            n->out[i] = -1;
            continue;
        }
        t = aicf__graph_new_tensor(g, nd->outputs[i]);
        if (t < 0) {
            n->n_out = i;
            aicf__node_free_keep_graphs(ctx, n);
            aicf__graph_drop_tensors(g, n0);
            return aicf__new_tensor_err(t);
        }
        g->tensors[t].producer = ni;
        n->out[i] = t;
    }
    g->n_nodes++;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_add_output(aicf_graph* g, const char* name) {
    int t, i;
    if (!g || !name) return AICF_ERROR_INVALID_ARGUMENT;
    t = aicf__graph_find(g, name);
    if (t < 0 && g->is_subgraph && name[0]) {
        if (strlen(name) > AICF_MAX_NAME)
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "aicf_graph_add_output: name longer than AICF_MAX_NAME");
        t = aicf__graph_outer_ref(g, name); /* a subgraph may return a value of an enclosing graph */
        if (t < 0) return aicf__new_tensor_err(t);
    }
    if (t < 0) return aicf__err(g->ctx, AICF_ERROR_NOT_FOUND, "aicf_graph_add_output: tensor '%s' is not defined", name);
    for (i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t)
            return aicf__err(g->ctx, AICF_ERROR_INVALID_MODEL, "aicf_graph_add_output: '%s' is already an output", name);
    if (!aicf__grow(g->ctx, (void**)&g->outputs, &g->cap_outputs, g->n_outputs + 1, sizeof(int)))
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_add_output: out of memory");
    g->tensors[t].flags |= AICF__T_OUTPUT;
    g->outputs[g->n_outputs++] = t;
    return AICF_SUCCESS;
}

aicf_result aicf_graph_bind_dim(aicf_graph* g, const char* dim_param, int64_t value) {
    int i, j, k;
    if (!g || !dim_param || !dim_param[0]) return AICF_ERROR_INVALID_ARGUMENT;
    if (value < 1 || value > ((int64_t)1 << 40))
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_bind_dim: '%s' = %lld is out of range",
                         dim_param, (long long)value);
    for (k = 0; k < g->n_dims; k++)
        if (strcmp(g->dims[k].name, dim_param) == 0) break;
    if (k == g->n_dims) {
        if (!aicf__grow(g->ctx, (void**)&g->dims, &g->cap_dims, g->n_dims + 1, sizeof(aicf__dim_binding)))
            return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_dim: out of memory");
        g->dims[k].name = aicf__strdup(g->ctx, dim_param);
        if (!g->dims[k].name) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_dim: out of memory");
        g->n_dims++;
    }
    g->dims[k].value = value;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        if (t->flags & AICF__T_CONST) continue; /* a bound input value keeps the shape it was bound with */
        for (j = 0; j < t->shape.rank; j++)
            if (t->dim_param[j] && strcmp(t->dim_param[j], dim_param) == 0) t->shape.d[j] = value;
        if (t->flags & AICF__T_INPUT) t->shape_known = aicf__shape_numel(&t->shape) >= 0;
    }
    return AICF_SUCCESS;
}

aicf_result aicf_graph_bind_input_value(aicf_graph* g, const char* name, const void* data, size_t bytes) {
    int t, i, ok;
    size_t need;
    aicf__tensor* tt;
    if (!g || !name || (bytes && !data)) return AICF_ERROR_INVALID_ARGUMENT;
    t = aicf__graph_find(g, name);
    if (t < 0 || !(g->tensors[t].flags & AICF__T_INPUT))
        return aicf__err(g->ctx, AICF_ERROR_NOT_FOUND, "aicf_graph_bind_input_value: '%s' is not a graph input", name);
    tt = &g->tensors[t];
    need = aicf__shape_bytes(&tt->shape, tt->dtype, &ok);
    if (!ok) {
        char b[128];
        return aicf__err(g->ctx, AICF_ERROR_SHAPE, "aicf_graph_bind_input_value: input '%s' has unbound shape %s", name,
                         aicf__shape_str(&tt->shape, b, sizeof b));
    }
    if (need != bytes)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT,
                         "aicf_graph_bind_input_value: input '%s' needs %zu bytes, got %zu", name, need, bytes);
    tt->data = aicf__malloc(g->ctx, bytes);
    if (!tt->data) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_bind_input_value: out of memory");
    if (bytes) memcpy(tt->data, data, bytes);
    tt->owns_data = 1;
    tt->data_bytes = bytes;
    tt->flags = (tt->flags & ~AICF__T_INPUT) | AICF__T_CONST;
    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == t) {
            memmove(&g->inputs[i], &g->inputs[i + 1], (size_t)(g->n_inputs - i - 1) * sizeof(int));
            g->n_inputs--;
            break;
        }
    return AICF_SUCCESS;
}

int aicf_graph_num_inputs(const aicf_graph* g) { return g ? g->n_inputs : 0; }
int aicf_graph_num_outputs(const aicf_graph* g) { return g ? g->n_outputs : 0; }
int aicf_graph_num_nodes(const aicf_graph* g) { return g ? g->n_nodes : 0; }

static void aicf__tensor_info(const aicf__tensor* t, aicf_tensor_info* out) {
    int i, ok;
    memset(out, 0, sizeof *out);
    out->name = t->name;
    out->dtype = t->dtype;
    out->rank = t->shape.rank;
    for (i = 0; i < t->shape.rank; i++) out->dims[i] = t->shape.d[i];
    out->bytes = aicf__shape_bytes(&t->shape, t->dtype, &ok);
}

aicf_result aicf_graph_input_info(const aicf_graph* g, int index, aicf_tensor_info* out) {
    if (!g || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= g->n_inputs)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_input_info: index %d out of range (%d inputs)",
                         index, g->n_inputs);
    aicf__tensor_info(&g->tensors[g->inputs[index]], out);
    return AICF_SUCCESS;
}

aicf_result aicf_graph_output_info(const aicf_graph* g, int index, aicf_tensor_info* out) {
    if (!g || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= g->n_outputs)
        return aicf__err(g->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_output_info: index %d out of range (%d outputs)",
                         index, g->n_outputs);
    aicf__tensor_info(&g->tensors[g->outputs[index]], out);
    return AICF_SUCCESS;
}
/* >>onnx =================================================================================== */
/* The ONNX reader: a bounds-checked protobuf wire-format decoder (no protobuf library) and the
   translation of a ModelProto into the public graph builder, plus TensorProto (.pb) files.

   Wire format (https://protobuf.dev/programming-guides/encoding/): every field is a varint key
   (field_number << 3 | wire_type) followed by a varint (wire type 0), 8 little-endian bytes (1),
   a varint length and that many bytes (2), or 4 little-endian bytes (5). Groups (3, 4) and the
   wire types 6 and 7 are errors; unknown fields are skipped. Varints are at most 10 bytes.
   Field numbers are those of onnx/onnx.proto (IR version 10+). Every byte range is checked
   against its enclosing message; errors name the message path, the field and the byte offset:
       onnx: GraphProto.node[12].attribute[3] (AttributeProto.ints): truncated varint at byte 81234
   The reader assumes a little-endian host (raw_data is little-endian).
   GRAPH attributes (If's branches, Loop's and Scan's body) are read recursively into subgraphs
   owned by the node's attribute, at most AICF_MAX_SUBGRAPH_DEPTH levels deep (AICF_ERROR_LIMIT
   beyond); a subgraph's nodes may read names of enclosing graphs (outer references), its inputs
   may leave type and shape open, and errors inside it name the path through the attributes:
       onnx: GraphProto.node[3].attribute[0].g.node[5]: node 5 'x' (Foo): unsupported op type */

#include <errno.h>
#include <limits.h>
#if !defined(AICF_NO_MMAP) && (defined(__unix__) || defined(__APPLE__))
#  define AICF__ONNX_MMAP 1
#  include <fcntl.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#  include <unistd.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define AICF__ONNX_FMT(a, b) __attribute__((format(printf, a, b)))
#else
#  define AICF__ONNX_FMT(a, b)
#endif

/* ---- message definitions (field number, wire type, repeated scalar that may be packed) ---- */
#define AICF__PB_VARINT 0
#define AICF__PB_I64 1
#define AICF__PB_LEN 2
#define AICF__PB_I32 5

typedef struct aicf__pb_fdef {
    uint32_t num;
    int wt;       /* expected wire type */
    int packable; /* 1: repeated scalar, also accepted packed (wire type 2) */
    const char* name;
} aicf__pb_fdef;

typedef struct aicf__pb_mdef {
    const char* name;
    const aicf__pb_fdef* fields;
    int n_fields;
} aicf__pb_mdef;

#define AICF__PB_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const aicf__pb_fdef aicf__pbf_model[] = {
    {1, 0, 0, "ir_version"}, {2, 2, 0, "producer_name"}, {3, 2, 0, "producer_version"},
    {4, 2, 0, "domain"}, {5, 0, 0, "model_version"}, {6, 2, 0, "doc_string"}, {7, 2, 0, "graph"},
    {8, 2, 0, "opset_import"}, {14, 2, 0, "metadata_props"}, {20, 2, 0, "training_info"},
    {25, 2, 0, "functions"}, {26, 2, 0, "configuration"}};
static const aicf__pb_fdef aicf__pbf_opset[] = {{1, 2, 0, "domain"}, {2, 0, 0, "version"}};
static const aicf__pb_fdef aicf__pbf_graph[] = {
    {1, 2, 0, "node"}, {2, 2, 0, "name"}, {5, 2, 0, "initializer"}, {10, 2, 0, "doc_string"},
    {11, 2, 0, "input"}, {12, 2, 0, "output"}, {13, 2, 0, "value_info"},
    {14, 2, 0, "quantization_annotation"}, {15, 2, 0, "sparse_initializer"},
    {16, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_node[] = {
    {1, 2, 0, "input"}, {2, 2, 0, "output"}, {3, 2, 0, "name"}, {4, 2, 0, "op_type"},
    {5, 2, 0, "attribute"}, {6, 2, 0, "doc_string"}, {7, 2, 0, "domain"}, {8, 2, 0, "overload"},
    {9, 2, 0, "metadata_props"}, {10, 2, 0, "device_configurations"}};
static const aicf__pb_fdef aicf__pbf_attr[] = {
    {1, 2, 0, "name"}, {2, 5, 0, "f"}, {3, 0, 0, "i"}, {4, 2, 0, "s"}, {5, 2, 0, "t"},
    {6, 2, 0, "g"}, {7, 5, 1, "floats"}, {8, 0, 1, "ints"}, {9, 2, 0, "strings"},
    {10, 2, 0, "tensors"}, {11, 2, 0, "graphs"}, {13, 2, 0, "doc_string"}, {14, 2, 0, "tp"},
    {15, 2, 0, "type_protos"}, {20, 0, 0, "type"}, {21, 2, 0, "ref_attr_name"},
    {22, 2, 0, "sparse_tensor"}, {23, 2, 0, "sparse_tensors"}};
static const aicf__pb_fdef aicf__pbf_tensor[] = {
    {1, 0, 1, "dims"}, {2, 0, 0, "data_type"}, {3, 2, 0, "segment"}, {4, 5, 1, "float_data"},
    {5, 0, 1, "int32_data"}, {6, 2, 0, "string_data"}, {7, 0, 1, "int64_data"}, {8, 2, 0, "name"},
    {9, 2, 0, "raw_data"}, {10, 1, 1, "double_data"}, {11, 0, 1, "uint64_data"},
    {12, 2, 0, "doc_string"}, {13, 2, 0, "external_data"}, {14, 0, 0, "data_location"},
    {16, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_entry[] = {{1, 2, 0, "key"}, {2, 2, 0, "value"}};
static const aicf__pb_fdef aicf__pbf_vi[] = {
    {1, 2, 0, "name"}, {2, 2, 0, "type"}, {3, 2, 0, "doc_string"}, {4, 2, 0, "metadata_props"}};
static const aicf__pb_fdef aicf__pbf_type[] = {
    {1, 2, 0, "tensor_type"}, {4, 2, 0, "sequence_type"}, {5, 2, 0, "map_type"},
    {6, 2, 0, "denotation"}, {7, 2, 0, "opaque_type"}, {8, 2, 0, "sparse_tensor_type"},
    {9, 2, 0, "optional_type"}};
static const aicf__pb_fdef aicf__pbf_type_tensor[] = {{1, 0, 0, "elem_type"}, {2, 2, 0, "shape"}};
static const aicf__pb_fdef aicf__pbf_shape[] = {{1, 2, 0, "dim"}};
static const aicf__pb_fdef aicf__pbf_dim[] = {
    {1, 0, 0, "dim_value"}, {2, 2, 0, "dim_param"}, {3, 2, 0, "denotation"}};

static const aicf__pb_mdef aicf__pbm_model = {"ModelProto", aicf__pbf_model, AICF__PB_N(aicf__pbf_model)};
static const aicf__pb_mdef aicf__pbm_opset = {"OperatorSetIdProto", aicf__pbf_opset, AICF__PB_N(aicf__pbf_opset)};
static const aicf__pb_mdef aicf__pbm_graph = {"GraphProto", aicf__pbf_graph, AICF__PB_N(aicf__pbf_graph)};
static const aicf__pb_mdef aicf__pbm_node = {"NodeProto", aicf__pbf_node, AICF__PB_N(aicf__pbf_node)};
static const aicf__pb_mdef aicf__pbm_attr = {"AttributeProto", aicf__pbf_attr, AICF__PB_N(aicf__pbf_attr)};
static const aicf__pb_mdef aicf__pbm_tensor = {"TensorProto", aicf__pbf_tensor, AICF__PB_N(aicf__pbf_tensor)};
static const aicf__pb_mdef aicf__pbm_entry = {"StringStringEntryProto", aicf__pbf_entry, AICF__PB_N(aicf__pbf_entry)};
static const aicf__pb_mdef aicf__pbm_vi = {"ValueInfoProto", aicf__pbf_vi, AICF__PB_N(aicf__pbf_vi)};
static const aicf__pb_mdef aicf__pbm_type = {"TypeProto", aicf__pbf_type, AICF__PB_N(aicf__pbf_type)};
static const aicf__pb_mdef aicf__pbm_type_tensor = {"TypeProto.Tensor", aicf__pbf_type_tensor, AICF__PB_N(aicf__pbf_type_tensor)};
static const aicf__pb_mdef aicf__pbm_shape = {"TensorShapeProto", aicf__pbf_shape, AICF__PB_N(aicf__pbf_shape)};
static const aicf__pb_mdef aicf__pbm_dim = {"TensorShapeProto.Dimension", aicf__pbf_dim, AICF__PB_N(aicf__pbf_dim)};

static const char* const aicf__pb_wt_name[8] = {"varint", "fixed64", "length-delimited", "group start",
                                                "group end", "fixed32", "invalid", "invalid"};

/* ---- reader state ---- */
typedef struct aicf__onnx_tmp {
    struct aicf__onnx_tmp* next;
    uint64_t pad; /* keeps the payload 16-byte aligned on 64-bit hosts */
} aicf__onnx_tmp;

typedef struct aicf__onnx {
    aicf_context* ctx;
    const unsigned char* buf; /* the whole file */
    size_t size;
    const char* dir;          /* directory of the file, for external data; NULL: not allowed */
    char path[768];           /* message path, e.g. "GraphProto.node[12].attribute[3]" */
    size_t path_len;
    const char* msg;          /* message type being read */
    char field[48];           /* field being read ("" while reading a key) */
    aicf__onnx_tmp* tmp;      /* temporary allocations, freed per item */
    int depth;                /* subgraph nesting of the graph being read (0: the model's graph) */
    int64_t opset;            /* default-domain opset of the model (subgraphs inherit it) */
} aicf__onnx;

typedef struct aicf__pb {
    size_t pos, end; /* absolute byte offsets into aicf__onnx.buf */
} aicf__pb;

typedef struct aicf__pbf {
    uint32_t num;
    int wt;
    uint64_t v;        /* VARINT / I64 / I32 value */
    size_t off, len;   /* LEN payload */
    size_t at;         /* offset of the key */
    const aicf__pb_fdef* def;
} aicf__pbf;

static void aicf__onnx_set_path(aicf__onnx* o, const char* root)
{
    size_t n = strlen(root);
    if (n >= sizeof(o->path)) n = sizeof(o->path) - 1;
    memcpy(o->path, root, n);
    o->path[n] = 0;
    o->path_len = n;
}

static size_t aicf__onnx_push(aicf__onnx* o, const char* fmt, ...) AICF__ONNX_FMT(2, 3);
static size_t aicf__onnx_push(aicf__onnx* o, const char* fmt, ...)
{
    size_t old = o->path_len;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->path + old, sizeof(o->path) - old, fmt, ap);
    va_end(ap);
    o->path_len = strlen(o->path);
    return old;
}

static void aicf__onnx_pop(aicf__onnx* o, size_t old)
{
    o->path_len = old;
    o->path[old] = 0;
}

/* Error at the current path and field: "onnx: PATH (Message.field): TEXT". */
static aicf_result aicf__onnx_ferr(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_ferr(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return aicf__err(o->ctx, code, "onnx: %s (%s%s%s): %s", o->path, o->msg ? o->msg : "?",
                     o->field[0] ? "." : "", o->field, text);
}

/* Error at the current path: "onnx: PATH: TEXT". */
static aicf_result aicf__onnx_err(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_err(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return aicf__err(o->ctx, code, "onnx: %s: %s", o->path, text);
}

/* Error about a node: "onnx: node ..." in the model's graph, "onnx: PATH: node ..." inside a
   subgraph (whose node indices are local to it). */
static aicf_result aicf__onnx_nerr(aicf__onnx* o, aicf_result code, const char* fmt, ...) AICF__ONNX_FMT(3, 4);
static aicf_result aicf__onnx_nerr(aicf__onnx* o, aicf_result code, const char* fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (o->depth > 0) return aicf__err(o->ctx, code, "onnx: %s: %s", o->path, text);
    return aicf__err(o->ctx, code, "onnx: %s", text);
}

static aicf_result aicf__onnx_oom(aicf__onnx* o, size_t bytes)
{
    return aicf__onnx_err(o, AICF_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", bytes);
}

/* Temporary allocation, freed by aicf__onnx_tmp_free (records the error on failure). */
static void* aicf__onnx_alloc(aicf__onnx* o, size_t bytes)
{
    size_t total;
    aicf__onnx_tmp* t;
    if (!aicf__add_size(sizeof(aicf__onnx_tmp), bytes ? bytes : 1, &total)) {
        aicf__onnx_oom(o, bytes);
        return NULL;
    }
    t = (aicf__onnx_tmp*)aicf__malloc(o->ctx, total);
    if (!t) {
        aicf__onnx_oom(o, bytes);
        return NULL;
    }
    t->next = o->tmp;
    o->tmp = t;
    return (void*)(t + 1);
}

static void* aicf__onnx_alloc_n(aicf__onnx* o, size_t count, size_t size)
{
    size_t bytes;
    if (!aicf__mul_size(count, size, &bytes)) {
        aicf__onnx_oom(o, (size_t)-1);
        return NULL;
    }
    return aicf__onnx_alloc(o, bytes);
}

static void aicf__onnx_tmp_free(aicf__onnx* o)
{
    while (o->tmp) {
        aicf__onnx_tmp* next = o->tmp->next;
        aicf__free(o->ctx, o->tmp);
        o->tmp = next;
    }
}

/* ---- wire format ---- */

/* Decodes a varint at *pos (< end). Returns 0 (ok), 1 (truncated) or 2 (longer than 10 bytes
   or over 64 bits). */
static int aicf__pb_varint(const unsigned char* b, size_t* pos, size_t end, uint64_t* out)
{
    uint64_t v = 0;
    size_t p = *pos;
    int i;
    for (i = 0; i < 10; ++i) {
        unsigned c;
        if (p >= end) return 1;
        c = b[p++];
        if (i == 9 && c > 1) return 2;
        v |= (uint64_t)(c & 0x7fu) << (7 * i);
        if (!(c & 0x80u)) {
            *pos = p;
            *out = v;
            return 0;
        }
    }
    return 2;
}

static aicf_result aicf__pb_varint_err(aicf__onnx* o, int e, size_t at)
{
    if (e == 1) return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "truncated varint at byte %zu", at);
    return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                           "overlong varint (more than 10 bytes or over 64 bits) at byte %zu", at);
}

static uint64_t aicf__pb_le(const unsigned char* p, int n)
{
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/* Reads the next field of message r (described by m). Returns 1 with the field in *f, 0 at the
   end of the message, or a negative aicf_result (error recorded). */
static int aicf__pb_next(aicf__onnx* o, aicf__pb* r, const aicf__pb_mdef* m, aicf__pbf* f)
{
    uint64_t key, len;
    size_t at;
    int e, i;
    const aicf__pb_fdef* def = NULL;
    if (r->pos >= r->end) return 0;
    o->msg = m->name;
    o->field[0] = 0;
    at = r->pos;
    e = aicf__pb_varint(o->buf, &r->pos, r->end, &key);
    if (e) return (int)aicf__pb_varint_err(o, e, at);
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffffu)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "invalid field number %llu at byte %zu",
                                    (unsigned long long)(key >> 3), at);
    f->num = (uint32_t)(key >> 3);
    f->wt = (int)(key & 7u);
    f->at = at;
    f->v = 0;
    f->off = f->len = 0;
    for (i = 0; i < m->n_fields; ++i)
        if (m->fields[i].num == f->num) def = &m->fields[i];
    f->def = def;
    if (def) snprintf(o->field, sizeof(o->field), "%s", def->name);
    else snprintf(o->field, sizeof(o->field), "field %u", (unsigned)f->num);
    if (f->wt == 3 || f->wt == 4)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "group (wire type %d) at byte %zu is not supported",
                                    f->wt, at);
    if (f->wt == 6 || f->wt == 7)
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "invalid wire type %d at byte %zu", f->wt, at);
    if (def && f->wt != def->wt && !(def->packable && f->wt == AICF__PB_LEN))
        return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "wire type %d (%s) at byte %zu, expected %d (%s)",
                                    f->wt, aicf__pb_wt_name[f->wt], at, def->wt, aicf__pb_wt_name[def->wt]);
    switch (f->wt) {
    case AICF__PB_VARINT:
        at = r->pos;
        e = aicf__pb_varint(o->buf, &r->pos, r->end, &f->v);
        if (e) return (int)aicf__pb_varint_err(o, e, at);
        break;
    case AICF__PB_I64:
    case AICF__PB_I32: {
        int n = f->wt == AICF__PB_I64 ? 8 : 4;
        if (r->end - r->pos < (size_t)n)
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "truncated %s at byte %zu",
                                        aicf__pb_wt_name[f->wt], r->pos);
        f->v = aicf__pb_le(o->buf + r->pos, n);
        r->pos += (size_t)n;
        break;
    }
    default: /* AICF__PB_LEN */
        at = r->pos;
        e = aicf__pb_varint(o->buf, &r->pos, r->end, &len);
        if (e) return (int)aicf__pb_varint_err(o, e, at);
        if (len > (uint64_t)(r->end - r->pos))
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                                        "length %llu at byte %zu runs past the end of the enclosing message "
                                        "(%zu bytes left, message ends at byte %zu)",
                                        (unsigned long long)len, at, r->end - r->pos, r->end);
        f->off = r->pos;
        f->len = (size_t)len;
        r->pos += (size_t)len;
        break;
    }
    return 1;
}

/* Iterates the values of one occurrence of a repeated scalar field, packed or not. */
typedef struct aicf__pb_it {
    size_t pos, end;
    int wt;          /* element wire type */
    int single;      /* 1: one unpacked value pending, 2: done */
    uint64_t v;
    const char* msg; /* for errors */
    const char* fname;
} aicf__pb_it;

static void aicf__pb_it_init(aicf__onnx* o, aicf__pb_it* it, const aicf__pbf* f)
{
    it->msg = o->msg;
    it->fname = f->def ? f->def->name : "";
    if (f->wt == AICF__PB_LEN) {
        it->pos = f->off;
        it->end = f->off + f->len;
        it->wt = f->def ? f->def->wt : AICF__PB_VARINT;
        it->single = 0;
        it->v = 0;
    } else {
        it->pos = it->end = 0;
        it->wt = f->wt;
        it->single = 1;
        it->v = f->v;
    }
}

/* 1: value in *v; 0: no more values; negative aicf_result: error recorded. */
static int aicf__pb_it_next(aicf__onnx* o, aicf__pb_it* it, uint64_t* v)
{
    int e;
    size_t at;
    if (it->single) {
        if (it->single == 2) return 0;
        it->single = 2;
        *v = it->v;
        return 1;
    }
    if (it->pos >= it->end) return 0;
    at = it->pos;
    if (it->wt == AICF__PB_VARINT) {
        e = aicf__pb_varint(o->buf, &it->pos, it->end, v);
        if (e) {
            o->msg = it->msg;
            snprintf(o->field, sizeof(o->field), "%s", it->fname);
            return (int)aicf__pb_varint_err(o, e, at);
        }
        return 1;
    } else {
        int n = it->wt == AICF__PB_I64 ? 8 : 4;
        if (it->end - it->pos < (size_t)n) {
            o->msg = it->msg;
            snprintf(o->field, sizeof(o->field), "%s", it->fname);
            return (int)aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL,
                                        "packed %s data ends with a partial value at byte %zu",
                                        aicf__pb_wt_name[it->wt], at);
        }
        *v = aicf__pb_le(o->buf + it->pos, n);
        it->pos += (size_t)n;
        return 1;
    }
}

/* Number of values in one occurrence of a repeated scalar field (validates them). */
static aicf_result aicf__pb_count(aicf__onnx* o, const aicf__pbf* f, size_t* count)
{
    aicf__pb_it it;
    uint64_t v = 0;
    int rc;
    aicf__pb_it_init(o, &it, f);
    while ((rc = aicf__pb_it_next(o, &it, &v)) > 0) ++*count;
    return (aicf_result)rc;
}

/* Copies a length-delimited field into a NUL-terminated temporary string. is_name: at most
   AICF_MAX_NAME bytes (else AICF_ERROR_LIMIT). A NUL byte inside is AICF_ERROR_INVALID_MODEL. */
static aicf_result aicf__onnx_str(aicf__onnx* o, const aicf__pbf* f, int is_name, char** out)
{
    const unsigned char* nul;
    char* s;
    *out = NULL;
    nul = (const unsigned char*)memchr(o->buf + f->off, 0, f->len);
    if (nul)
        return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "string contains a NUL byte at byte %zu",
                               (size_t)(nul - o->buf));
    if (is_name && f->len > AICF_MAX_NAME)
        return aicf__onnx_ferr(o, AICF_ERROR_LIMIT, "name of %zu bytes at byte %zu exceeds AICF_MAX_NAME (%d)",
                               f->len, f->off, AICF_MAX_NAME);
    s = (char*)aicf__onnx_alloc(o, f->len + 1);
    if (!s) return AICF_ERROR_OUT_OF_MEMORY;
    memcpy(s, o->buf + f->off, f->len);
    s[f->len] = 0;
    *out = s;
    return AICF_SUCCESS;
}

static int aicf__pb_str_eq(const aicf__onnx* o, const aicf__pbf* f, const char* s)
{
    size_t n = strlen(s);
    return f->len == n && memcmp(o->buf + f->off, s, n) == 0;
}

/* ---- data types ---- */
static const char* aicf__onnx_dtype_name(int64_t dt)
{
    static const char* const names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
                                        "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
                                        "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                        "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                        "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
                                        "FLOAT8E8M0", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2"};
    if (dt >= 0 && dt < (int64_t)(sizeof(names) / sizeof(names[0]))) return names[dt];
    return "unknown";
}

/* Bytes per element of the data types aicf supports, 0 otherwise. */
static size_t aicf__onnx_dtype_size(int64_t dt)
{
    switch (dt) {
    case AICF_DTYPE_FLOAT32: case AICF_DTYPE_INT32: case AICF_DTYPE_UINT32: return 4;
    case AICF_DTYPE_UINT8: case AICF_DTYPE_INT8: case AICF_DTYPE_BOOL: return 1;
    case AICF_DTYPE_UINT16: case AICF_DTYPE_INT16: case AICF_DTYPE_FLOAT16: case AICF_DTYPE_BFLOAT16: return 2;
    case AICF_DTYPE_INT64: case AICF_DTYPE_FLOAT64: case AICF_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* Checks an element type: AICF_ERROR_INVALID_MODEL for UNDEFINED, AICF_ERROR_UNSUPPORTED for
   types aicf does not handle. `what` names the tensor in the message. */
static aicf_result aicf__onnx_check_dtype(aicf__onnx* o, int64_t dt, const char* field, const char* what)
{
    if (dt == 0)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "%s: %s is missing (UNDEFINED)", what, field);
    if (!aicf__onnx_dtype_size(dt))
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: %s %lld (%s) is not supported", what, field,
                              (long long)dt, aicf__onnx_dtype_name(dt));
    return AICF_SUCCESS;
}

static const char* aicf__onnx_dims_str(const int64_t* d, size_t n, char* buf, size_t cap)
{
    size_t i, len = 0;
    if (cap == 0) return buf;
    buf[0] = 0;
    len += (size_t)snprintf(buf, cap, "[");
    for (i = 0; i < n && len < cap; ++i)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? "," : "", (long long)d[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
    return buf;
}

/* ---- TensorProto ---- */
typedef struct aicf__onnx_tp {
    size_t off, len;                 /* the message */
    int64_t data_type;
    size_t n_dims;                   /* dims seen (may exceed AICF_MAX_RANK: checked later) */
    int64_t dims[AICF_MAX_RANK];
    char* name;                      /* temporary; "" if absent */
    int has_raw;
    size_t raw_off, raw_len;
    size_t n_float, n_int32, n_string, n_int64, n_double, n_uint64;
    int64_t data_location;
    int has_segment;
    char* ext_location;              /* external_data "location", or NULL */
    char* ext_offset;                /* "offset", or NULL */
    char* ext_length;                /* "length", or NULL */
    /* filled by aicf__onnx_tensor_check */
    size_t esize, numel, bytes;
} aicf__onnx_tp;

static aicf_result aicf__onnx_entry(aicf__onnx* o, const aicf__pbf* f, char** key, char** value)
{
    aicf__pb r;
    aicf__pbf e;
    int rc;
    *key = *value = NULL;
    r.pos = f->off;
    r.end = f->off + f->len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_entry, &e)) > 0) {
        aicf_result res = AICF_SUCCESS;
        if (e.num == 1) res = aicf__onnx_str(o, &e, 0, key);
        else if (e.num == 2) res = aicf__onnx_str(o, &e, 0, value);
        if (res) return res;
    }
    return (aicf_result)rc;
}

/* Structural pass over a TensorProto: records everything but the typed values. */
static aicf_result aicf__onnx_tensor_scan(aicf__onnx* o, size_t off, size_t len, aicf__onnx_tp* tp)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t n_ext = 0;
    memset(tp, 0, sizeof(*tp));
    tp->off = off;
    tp->len = len;
    tp->name = (char*)"";
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_tensor, &f)) > 0) {
        aicf_result res = AICF_SUCCESS;
        switch (f.num) {
        case 1: {
            aicf__pb_it it;
            uint64_t v = 0;
            int k;
            aicf__pb_it_init(o, &it, &f);
            while ((k = aicf__pb_it_next(o, &it, &v)) > 0) {
                if (tp->n_dims < AICF_MAX_RANK) tp->dims[tp->n_dims] = (int64_t)v;
                tp->n_dims++;
            }
            if (k < 0) return (aicf_result)k;
            break;
        }
        case 2: tp->data_type = (int64_t)f.v; break;
        case 3: tp->has_segment = 1; break;
        case 4: res = aicf__pb_count(o, &f, &tp->n_float); break;
        case 5: res = aicf__pb_count(o, &f, &tp->n_int32); break;
        case 6: tp->n_string++; break;
        case 7: res = aicf__pb_count(o, &f, &tp->n_int64); break;
        case 8: res = aicf__onnx_str(o, &f, 1, &tp->name); break;
        case 9:
            tp->has_raw = 1;
            tp->raw_off = f.off;
            tp->raw_len = f.len;
            break;
        case 10: res = aicf__pb_count(o, &f, &tp->n_double); break;
        case 11: res = aicf__pb_count(o, &f, &tp->n_uint64); break;
        case 13: {
            char *key, *value;
            size_t old = aicf__onnx_push(o, ".external_data[%zu]", n_ext++);
            res = aicf__onnx_entry(o, &f, &key, &value);
            if (!res && key) {
                if (!strcmp(key, "location")) tp->ext_location = value;
                else if (!strcmp(key, "offset")) tp->ext_offset = value;
                else if (!strcmp(key, "length")) tp->ext_length = value;
            }
            aicf__onnx_pop(o, old);
            break;
        }
        case 14: tp->data_location = (int64_t)f.v; break;
        default: break;
        }
        if (res) return res;
    }
    return (aicf_result)rc;
}

/* Validates the scanned header: segment, rank, dims, data type, sizes. */
static aicf_result aicf__onnx_tensor_check(aicf__onnx* o, aicf__onnx_tp* tp)
{
    size_t i, numel = 1, bytes;
    char what[96];
    snprintf(what, sizeof(what), "tensor '%.64s'", tp->name);
    if (tp->has_segment)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: segment (a chunk of a larger tensor) is not supported", what);
    if (tp->n_dims > AICF_MAX_RANK)
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: rank %zu exceeds AICF_MAX_RANK (%d)", what, tp->n_dims,
                              AICF_MAX_RANK);
    for (i = 0; i < tp->n_dims; ++i)
        if (tp->dims[i] < 0)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "%s: dims[%zu] is negative (%lld)", what, i,
                                  (long long)tp->dims[i]);
    if (tp->data_type == AICF_DTYPE_STRING || (tp->data_type == 0 && tp->n_string))
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: data_type STRING is not supported", what);
    {
        aicf_result res = aicf__onnx_check_dtype(o, tp->data_type, "data_type", what);
        if (res) return res;
    }
    for (i = 0; i < tp->n_dims; ++i)
        if ((uint64_t)tp->dims[i] > (uint64_t)SIZE_MAX || !aicf__mul_size(numel, (size_t)tp->dims[i], &numel)) {
            char ds[160];
            return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: the element count of dims %s overflows", what,
                                  aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)));
        }
    tp->esize = aicf__onnx_dtype_size(tp->data_type);
    if (!aicf__mul_size(numel, tp->esize, &bytes) || (uint64_t)bytes > AICF_MAX_TENSOR_BYTES) {
        char ds[160];
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: dims %s of %s exceed AICF_MAX_TENSOR_BYTES", what,
                              aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)),
                              aicf__onnx_dtype_name(tp->data_type));
    }
    tp->numel = numel;
    tp->bytes = bytes;
    return AICF_SUCCESS;
}

static int aicf__onnx_parse_u64(const char* s, uint64_t* out)
{
    uint64_t v = 0;
    if (!s || !*s) return 0;
    for (; *s; ++s) {
        unsigned d;
        if (*s < '0' || *s > '9') return 0;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* Reads external data (data_location EXTERNAL) into a temporary buffer. */
static aicf_result aicf__onnx_external(aicf__onnx* o, aicf__onnx_tp* tp, const void** data)
{
    const char* loc = tp->ext_location;
    const char* p;
    char* full;
    size_t dlen, llen, full_len;
    uint64_t offset = 0, length = 0;
    long fsize;
    FILE* fp;
    void* buf;
    if (!o->dir)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED,
                              "tensor '%.64s': external data (data_location EXTERNAL) needs the model's file "
                              "path: load it with aicf_graph_load_onnx", tp->name);
    if (!loc || !*loc)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external_data has no \"location\"",
                              tp->name);
    if (loc[0] == '/' || loc[0] == '\\' ||
        (((loc[0] >= 'a' && loc[0] <= 'z') || (loc[0] >= 'A' && loc[0] <= 'Z')) && loc[1] == ':'))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data location '%.200s' is an absolute path", tp->name, loc);
    for (p = loc; *p;) {
        const char* q = p;
        while (*q && *q != '/' && *q != '\\') ++q;
        if (q - p == 2 && p[0] == '.' && p[1] == '.')
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                                  "tensor '%.64s': external data location '%.200s' contains '..'", tp->name, loc);
        p = *q ? q + 1 : q;
    }
    if (tp->ext_offset && !aicf__onnx_parse_u64(tp->ext_offset, &offset))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external data offset '%.40s' is not a number",
                              tp->name, tp->ext_offset);
    if (tp->ext_length && !aicf__onnx_parse_u64(tp->ext_length, &length))
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': external data length '%.40s' is not a number",
                              tp->name, tp->ext_length);
    if (tp->ext_length && length != (uint64_t)tp->bytes)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data length %llu does not match its dims (%zu bytes)",
                              tp->name, (unsigned long long)length, tp->bytes);
    dlen = strlen(o->dir);
    llen = strlen(loc);
    full_len = dlen + llen + 2;
    full = (char*)aicf__onnx_alloc(o, full_len);
    if (!full) return AICF_ERROR_OUT_OF_MEMORY;
    memcpy(full, o->dir, dlen);
    full[dlen] = '/';
    memcpy(full + dlen + 1, loc, llen + 1);
    fp = fopen(full, "rb");
    if (!fp)
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot open external data file '%.300s': %s",
                              tp->name, full, strerror(errno));
    if (fseek(fp, 0, SEEK_END) != 0 || (fsize = ftell(fp)) < 0) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot seek in '%.300s'", tp->name, full);
    }
    if (offset > (uint64_t)fsize || (uint64_t)fsize - offset < (uint64_t)tp->bytes ||
        (!tp->ext_length && (uint64_t)fsize - offset != (uint64_t)tp->bytes)) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                              "tensor '%.64s': external data file '%.300s' has %ld bytes; the tensor needs %zu at "
                              "offset %llu", tp->name, full, fsize, tp->bytes, (unsigned long long)offset);
    }
    buf = aicf__onnx_alloc(o, tp->bytes);
    if (!buf) {
        fclose(fp);
        return AICF_ERROR_OUT_OF_MEMORY;
    }
    if (fseek(fp, (long)offset, SEEK_SET) != 0 || fread(buf, 1, tp->bytes, fp) != tp->bytes) {
        fclose(fp);
        return aicf__onnx_err(o, AICF_ERROR_IO, "tensor '%.64s': cannot read %zu bytes from '%.300s'", tp->name,
                              tp->bytes, full);
    }
    fclose(fp);
    *data = buf;
    return AICF_SUCCESS;
}

/* Produces the dense, row-major, little-endian bytes (tp->bytes) of a checked tensor. *data
   points into the model bytes (*in_model = 1: raw_data) or into a temporary buffer. */
static aicf_result aicf__onnx_tensor_data(aicf__onnx* o, aicf__onnx_tp* tp, const void** data, int* in_model)
{
    static const char* const fname[12] = {"", "", "", "", "float_data", "int32_data", "string_data",
                                          "int64_data", "", "", "double_data", "uint64_data"};
    size_t counts[12];
    int want, i;
    unsigned char* dst;
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t k = 0;
    int64_t dt = tp->data_type;
    memset(counts, 0, sizeof(counts));
    counts[4] = tp->n_float;
    counts[5] = tp->n_int32;
    counts[6] = tp->n_string;
    counts[7] = tp->n_int64;
    counts[10] = tp->n_double;
    counts[11] = tp->n_uint64;
    *data = NULL;
    *in_model = 0;
    if (tp->data_location == 1) { /* EXTERNAL */
        if (tp->has_raw)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': raw_data is given with data_location EXTERNAL", tp->name);
        for (i = 4; i < 12; ++i)
            if (counts[i])
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s is given with data_location EXTERNAL",
                                      tp->name, fname[i]);
        return aicf__onnx_external(o, tp, data);
    }
    if (tp->data_location != 0)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': data_location %lld is not DEFAULT (0) or EXTERNAL (1)",
                              tp->name, (long long)tp->data_location);
    if (tp->has_raw) {
        char ds[160];
        for (i = 4; i < 12; ++i)
            if (counts[i])
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': both raw_data and %s are given",
                                      tp->name, fname[i]);
        if (tp->raw_len != tp->bytes)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL,
                                  "tensor '%.64s': raw_data has %zu bytes but dims %s of %s need %zu", tp->name,
                                  tp->raw_len, aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)),
                                  aicf__onnx_dtype_name(dt), tp->bytes);
        *data = o->buf + tp->raw_off;
        *in_model = 1;
        return AICF_SUCCESS;
    }
    switch (dt) {
    case AICF_DTYPE_FLOAT32: want = 4; break;
    case AICF_DTYPE_INT64: want = 7; break;
    case AICF_DTYPE_FLOAT64: want = 10; break;
    case AICF_DTYPE_UINT32: case AICF_DTYPE_UINT64: want = 11; break;
    default: want = 5; break; /* INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16 */
    }
    for (i = 4; i < 12; ++i)
        if (counts[i] && i != want)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s is given for data_type %s (expected %s)",
                                  tp->name, fname[i], aicf__onnx_dtype_name(dt), fname[want]);
    if (counts[want] != tp->numel) {
        char ds[160];
        if (counts[want] == 0)
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': no data (neither raw_data nor %s) for dims %s",
                                  tp->name, fname[want], aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)));
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': %s has %zu values but dims %s need %zu",
                              tp->name, fname[want], counts[want],
                              aicf__onnx_dims_str(tp->dims, tp->n_dims, ds, sizeof(ds)), tp->numel);
    }
    dst = (unsigned char*)aicf__onnx_alloc(o, tp->bytes);
    if (!dst) return AICF_ERROR_OUT_OF_MEMORY;
    r.pos = tp->off;
    r.end = tp->off + tp->len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_tensor, &f)) > 0) {
        aicf__pb_it it;
        uint64_t v = 0;
        int e;
        if ((int)f.num != want) continue;
        aicf__pb_it_init(o, &it, &f);
        while ((e = aicf__pb_it_next(o, &it, &v)) > 0) {
            unsigned char* q = dst + k * tp->esize;
            if (k >= tp->numel) /* cannot happen: counted before */
                return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': too many values", tp->name);
            if (want == 5) {
                int32_t x = (int32_t)(uint32_t)v; /* protobuf int32: low 32 bits */
                int64_t lo = 0, hi = 0;
                switch (dt) {
                case AICF_DTYPE_INT8: lo = -128; hi = 127; break;
                case AICF_DTYPE_UINT8: lo = 0; hi = 255; break;
                case AICF_DTYPE_INT16: lo = -32768; hi = 32767; break;
                case AICF_DTYPE_UINT16: lo = 0; hi = 65535; break;
                case AICF_DTYPE_FLOAT16: case AICF_DTYPE_BFLOAT16: lo = -32768; hi = 65535; break;
                case AICF_DTYPE_BOOL: lo = INT32_MIN; hi = INT32_MAX; break;
                default: lo = INT32_MIN; hi = INT32_MAX; break;
                }
                if ((int64_t)x < lo || (int64_t)x > hi)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': int32_data[%zu] = %ld is out of range for %s",
                                          tp->name, k, (long)x, aicf__onnx_dtype_name(dt));
                if (tp->esize == 4) {
                    memcpy(q, &x, 4);
                } else if (tp->esize == 2) {
                    uint16_t h = (uint16_t)(uint32_t)x;
                    memcpy(q, &h, 2);
                } else {
                    *q = dt == AICF_DTYPE_BOOL ? (unsigned char)(x != 0) : (unsigned char)(uint32_t)x;
                }
            } else if (want == 4) {
                uint32_t b = (uint32_t)v;
                memcpy(q, &b, 4);
            } else if (want == 11 && dt == AICF_DTYPE_UINT32) {
                uint32_t b;
                if (v > 0xffffffffu)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "tensor '%.64s': uint64_data[%zu] = %llu is out of range for UINT32",
                                          tp->name, k, (unsigned long long)v);
                b = (uint32_t)v;
                memcpy(q, &b, 4);
            } else { /* int64_data, double_data, uint64_data (UINT64): 8 bytes */
                memcpy(q, &v, 8);
            }
            ++k;
        }
        if (e < 0) return (aicf_result)e;
    }
    if (rc < 0) return (aicf_result)rc;
    *data = dst;
    return AICF_SUCCESS;
}

/* Scan + check + data of the TensorProto at [off, off+len). */
static aicf_result aicf__onnx_tensor(aicf__onnx* o, size_t off, size_t len, aicf__onnx_tp* tp, const void** data,
                                     int* in_model)
{
    aicf_result res = aicf__onnx_tensor_scan(o, off, len, tp);
    if (!res) res = aicf__onnx_tensor_check(o, tp);
    if (!res) res = aicf__onnx_tensor_data(o, tp, data, in_model);
    return res;
}

/* ---- ValueInfoProto ---- */
typedef struct aicf__onnx_vi {
    char* name;                      /* temporary; NULL if absent */
    int type_kind;                   /* TypeProto field set: 1 tensor_type, 4 sequence_type, ... 0 none */
    int64_t elem_type;
    int has_shape;
    size_t n_dims;                   /* may exceed AICF_MAX_RANK */
    int64_t dims[AICF_MAX_RANK];     /* -1: symbolic or unknown */
    char* dim_params[AICF_MAX_RANK]; /* NULL where none */
} aicf__onnx_vi;

static aicf_result aicf__onnx_shape(aicf__onnx* o, const aicf__pbf* sf, aicf__onnx_vi* vi)
{
    aicf__pb r, rd;
    aicf__pbf f, g;
    int rc;
    r.pos = sf->off;
    r.end = sf->off + sf->len;
    vi->has_shape = 1;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_shape, &f)) > 0) {
        size_t old, k;
        int64_t value = -1;
        char* param = NULL;
        if (f.num != 1) continue;
        k = vi->n_dims++;
        old = aicf__onnx_push(o, ".dim[%zu]", k);
        rd.pos = f.off;
        rd.end = f.off + f.len;
        while ((rc = aicf__pb_next(o, &rd, &aicf__pbm_dim, &g)) > 0) {
            if (g.num == 1) { /* oneof: the last one given wins */
                value = (int64_t)g.v;
                param = NULL;
                if (value < 0)
                    return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "dim_value %lld is negative", (long long)value);
            } else if (g.num == 2) {
                aicf_result res = aicf__onnx_str(o, &g, 1, &param);
                if (res) return res;
                value = -1;
            }
        }
        if (rc < 0) return (aicf_result)rc;
        if (k < AICF_MAX_RANK) {
            vi->dims[k] = value;
            vi->dim_params[k] = (param && param[0]) ? param : NULL;
        }
        aicf__onnx_pop(o, old);
    }
    return (aicf_result)rc;
}

static aicf_result aicf__onnx_value_info(aicf__onnx* o, size_t off, size_t len, aicf__onnx_vi* vi)
{
    aicf__pb r, rt, rtt;
    aicf__pbf f, t, u;
    int rc;
    memset(vi, 0, sizeof(*vi));
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_vi, &f)) > 0) {
        if (f.num == 1) {
            aicf_result res = aicf__onnx_str(o, &f, 1, &vi->name);
            if (res) return res;
        } else if (f.num == 2) {
            size_t old = aicf__onnx_push(o, ".type");
            rt.pos = f.off;
            rt.end = f.off + f.len;
            while ((rc = aicf__pb_next(o, &rt, &aicf__pbm_type, &t)) > 0) {
                size_t old2;
                if (t.num == 6) continue; /* denotation */
                vi->type_kind = (int)t.num;
                if (t.num != 1) continue;
                old2 = aicf__onnx_push(o, ".tensor_type");
                rtt.pos = t.off;
                rtt.end = t.off + t.len;
                while ((rc = aicf__pb_next(o, &rtt, &aicf__pbm_type_tensor, &u)) > 0) {
                    if (u.num == 1) {
                        vi->elem_type = (int64_t)u.v;
                    } else if (u.num == 2) {
                        size_t old3 = aicf__onnx_push(o, ".shape");
                        aicf_result res;
                        vi->n_dims = 0;
                        res = aicf__onnx_shape(o, &u, vi);
                        if (res) return res;
                        aicf__onnx_pop(o, old3);
                    }
                }
                if (rc < 0) return (aicf_result)rc;
                aicf__onnx_pop(o, old2);
            }
            if (rc < 0) return (aicf_result)rc;
            aicf__onnx_pop(o, old);
        }
    }
    return (aicf_result)rc;
}

static const char* aicf__onnx_type_kind_name(int kind)
{
    switch (kind) {
    case 0: return "no type";
    case 1: return "tensor_type";
    case 4: return "sequence_type";
    case 5: return "map_type";
    case 7: return "opaque_type";
    case 8: return "sparse_tensor_type";
    case 9: return "optional_type";
    default: return "unknown type";
    }
}

/* ---- graph building ---- */

/* A builder error: keeps the builder's message and adds the ONNX location in front. */
static aicf_result aicf__onnx_wrap(aicf__onnx* o, aicf_result rc, const char* what)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", aicf_last_error(o->ctx));
    return aicf__err(o->ctx, rc, "onnx: %s %s: %s", o->path, what, msg);
}

static aicf_result aicf__onnx_initializer(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_tp tp;
    const void* data;
    int in_model;
    aicf_tensor_desc d;
    aicf_result res;
    char what[AICF_MAX_NAME + 32];
    static const unsigned char empty[1] = {0};
    res = aicf__onnx_tensor(o, off, len, &tp, &data, &in_model);
    if (res) return res;
    if (!tp.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "initializer has no name");
    memset(&d, 0, sizeof(d));
    d.name = tp.name;
    d.dtype = (aicf_dtype)tp.data_type;
    d.rank = (int)tp.n_dims;
    d.dims = tp.dims;
    d.data = tp.bytes ? data : (const void*)empty;
    d.data_bytes = tp.bytes;
    d.borrow = tp.bytes && in_model && ((uintptr_t)data % tp.esize) == 0;
    res = aicf_graph_add_constant(g, &d);
    if (res) {
        snprintf(what, sizeof(what), "initializer '%s'", tp.name);
        return aicf__onnx_wrap(o, res, what);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__onnx_input(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_vi vi;
    aicf_tensor_desc d;
    const char* params[AICF_MAX_RANK];
    aicf_result res;
    size_t i;
    int t;
    char what[AICF_MAX_NAME + 32];
    res = aicf__onnx_value_info(o, off, len, &vi);
    if (res) return res;
    if (!vi.name || !vi.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph input has no name");
    t = aicf__graph_find(g, vi.name);
    if (t >= 0 && (g->tensors[t].flags & AICF__T_CONST)) return AICF_SUCCESS; /* an initializer's default */
    snprintf(what, sizeof(what), "input '%s'", vi.name);
    if (vi.type_kind != 1)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s: only tensor inputs are supported (this one has %s)",
                              what, aicf__onnx_type_kind_name(vi.type_kind));
    res = aicf__onnx_check_dtype(o, vi.elem_type, "elem_type", what);
    if (res) return res;
    if (!vi.has_shape)
        return aicf__onnx_err(o, AICF_ERROR_UNSUPPORTED, "%s has no shape (unknown rank)", what);
    if (vi.n_dims > AICF_MAX_RANK)
        return aicf__onnx_err(o, AICF_ERROR_LIMIT, "%s: rank %zu exceeds AICF_MAX_RANK (%d)", what, vi.n_dims,
                              AICF_MAX_RANK);
    for (i = 0; i < vi.n_dims; ++i) {
        params[i] = vi.dim_params[i];
        if (vi.dims[i] < 0 && !params[i]) { /* neither dim_value nor dim_param */
            size_t n = strlen(vi.name) + 32;
            char* s = (char*)aicf__onnx_alloc(o, n);
            if (!s) return AICF_ERROR_OUT_OF_MEMORY;
            snprintf(s, n, "unk__%s_%zu", vi.name, i);
            params[i] = s;
        }
        if (!params[i] && vi.dims[i] < 0) return AICF_ERROR_INVALID_MODEL; /* unreachable */
    }
    memset(&d, 0, sizeof(d));
    d.name = vi.name;
    d.dtype = (aicf_dtype)vi.elem_type;
    d.rank = (int)vi.n_dims;
    d.dims = vi.dims;
    d.dim_params = params;
    res = aicf_graph_add_input(g, &d);
    if (res) return aicf__onnx_wrap(o, res, what);
    return AICF_SUCCESS;
}

static const char* aicf__onnx_attr_type_name(int64_t t)
{
    static const char* const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                        "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                        "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    if (t >= 0 && t < (int64_t)(sizeof(names) / sizeof(names[0]))) return names[t];
    return "unknown";
}

static aicf_result aicf__onnx_graph(aicf__onnx* o, aicf_graph* g, size_t graph_off, size_t graph_len);

typedef struct aicf__onnx_nodectx {
    int index;
    const char* name;
    const char* op_type;
} aicf__onnx_nodectx;

static aicf_result aicf__onnx_attr(aicf__onnx* o, const aicf__onnx_nodectx* nc, size_t off, size_t len, aicf_attr* a)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    int64_t type = 0;
    int has[24];
    size_t n_floats = 0, n_ints = 0, n_strings = 0;
    size_t t_off = 0, t_len = 0, s_off = 0, s_len = 0, g_off = 0, g_len = 0;
    uint64_t fbits = 0, ival = 0;
    aicf_result res;
    memset(has, 0, sizeof(has));
    memset(a, 0, sizeof(*a));
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_attr, &f)) > 0) {
        res = AICF_SUCCESS;
        if (f.num < 24) has[f.num]++;
        switch (f.num) {
        case 1: res = aicf__onnx_str(o, &f, 1, (char**)&a->name); break;
        case 2: fbits = f.v; break;
        case 3: ival = f.v; break;
        case 4: s_off = f.off; s_len = f.len; break;
        case 5: t_off = f.off; t_len = f.len; break;
        case 6: g_off = f.off; g_len = f.len; break;
        case 7: res = aicf__pb_count(o, &f, &n_floats); break;
        case 8: res = aicf__pb_count(o, &f, &n_ints); break;
        case 9: n_strings++; break;
        case 20: type = (int64_t)f.v; break;
        default: break;
        }
        if (res) return res;
    }
    if (rc < 0) return (aicf_result)rc;
    if (!a->name || !a->name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute has no name");
    if (has[21])
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (%s): attribute '%s' is a reference (ref_attr_name), which is only "
                         "valid inside functions and not supported", nc->index, nc->name, nc->op_type, a->name);
    if (type == 0) { /* IR version 1 had no type: infer it from the field that is set */
        if (has[2]) type = 1;
        else if (has[3]) type = 2;
        else if (has[4]) type = 3;
        else if (has[5]) type = 4;
        else if (has[6]) type = 5;
        else if (has[7]) type = 6;
        else if (has[8]) type = 7;
        else if (has[9]) type = 8;
        else if (has[10]) type = 9;
        else if (has[11]) type = 10;
        else
            return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' has no type and no value", a->name);
    }
    a->type = (aicf_attr_type)type;
    switch (type) {
    case 1: {
        uint32_t b = (uint32_t)fbits;
        memcpy(&a->f, &b, 4);
        break;
    }
    case 2: a->i = (int64_t)ival; break;
    case 3: {
        aicf__pbf sf;
        memset(&sf, 0, sizeof(sf));
        sf.off = s_off;
        sf.len = s_len;
        o->msg = "AttributeProto";
        snprintf(o->field, sizeof(o->field), "s");
        res = aicf__onnx_str(o, &sf, 0, (char**)&a->s);
        if (res) return res;
        break;
    }
    case 4: {
        aicf__onnx_tp* tp = (aicf__onnx_tp*)aicf__onnx_alloc(o, sizeof(aicf__onnx_tp));
        aicf_tensor_desc* td = (aicf_tensor_desc*)aicf__onnx_alloc(o, sizeof(aicf_tensor_desc));
        const void* data;
        int in_model;
        size_t old;
        static const unsigned char empty[1] = {0};
        if (!tp || !td) return AICF_ERROR_OUT_OF_MEMORY;
        if (!has[5]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' of type TENSOR has no t", a->name);
        old = aicf__onnx_push(o, ".t");
        res = aicf__onnx_tensor(o, t_off, t_len, tp, &data, &in_model);
        if (res) return res;
        aicf__onnx_pop(o, old);
        memset(td, 0, sizeof(*td));
        td->name = NULL;
        td->dtype = (aicf_dtype)tp->data_type;
        td->rank = (int)tp->n_dims;
        td->dims = tp->dims;
        td->data = tp->bytes ? data : (const void*)empty;
        td->data_bytes = tp->bytes;
        td->borrow = 0;
        a->t = td;
        break;
    }
    case 5: {
        aicf_graph* sg = NULL;
        size_t old;
        if (!has[6]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' of type GRAPH has no g", a->name);
        if (o->depth + 1 > AICF_MAX_SUBGRAPH_DEPTH)
            return aicf__onnx_err(o, AICF_ERROR_LIMIT,
                                  "attribute '%s': subgraphs nested more than AICF_MAX_SUBGRAPH_DEPTH (%d) deep",
                                  a->name, AICF_MAX_SUBGRAPH_DEPTH);
        res = aicf_graph_create(o->ctx, &sg);
        if (res) return res;
        aicf__graph_set_subgraph(sg, 1);
        sg->opset = o->opset;
        old = aicf__onnx_push(o, ".g");
        o->depth++;
        res = aicf__onnx_graph(o, sg, g_off, g_len);
        o->depth--;
        if (res) {
            aicf_graph_destroy(sg);
            return res;
        }
        aicf__onnx_pop(o, old);
        a->g = sg; /* owned by the caller until the node takes it */
        break;
    }
    case 10:
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                               "node %d '%s' (%s): attribute '%s' of type GRAPHS is not supported", nc->index,
                               nc->name, nc->op_type, a->name);
    case 6:
    case 7:
    case 8: {
        size_t n = type == 6 ? n_floats : type == 7 ? n_ints : n_strings;
        size_t k = 0;
        int fieldnum = type == 6 ? 7 : type == 7 ? 8 : 9;
        if (n > (size_t)AICF_MAX_ATTR_ELEMS)
            return aicf__onnx_err(o, AICF_ERROR_LIMIT, "attribute '%s' has %zu values, more than AICF_MAX_ATTR_ELEMS (%d)",
                                  a->name, n, AICF_MAX_ATTR_ELEMS);
        if (type == 6) a->floats = (const float*)aicf__onnx_alloc_n(o, n, sizeof(float));
        else if (type == 7) a->ints = (const int64_t*)aicf__onnx_alloc_n(o, n, sizeof(int64_t));
        else a->strings = (const char* const*)aicf__onnx_alloc_n(o, n, sizeof(char*));
        if (!a->floats && !a->ints && !a->strings) return AICF_ERROR_OUT_OF_MEMORY;
        r.pos = off;
        r.end = off + len;
        while ((rc = aicf__pb_next(o, &r, &aicf__pbm_attr, &f)) > 0) {
            if ((int)f.num != fieldnum) continue;
            if (type == 8) {
                char* s;
                res = aicf__onnx_str(o, &f, 0, &s);
                if (res) return res;
                if (k < n) ((char**)a->strings)[k++] = s;
            } else {
                aicf__pb_it it;
                uint64_t v = 0;
                int e;
                aicf__pb_it_init(o, &it, &f);
                while ((e = aicf__pb_it_next(o, &it, &v)) > 0) {
                    if (k >= n) break;
                    if (type == 6) {
                        uint32_t b = (uint32_t)v;
                        memcpy((float*)a->floats + k, &b, 4);
                    } else {
                        ((int64_t*)a->ints)[k] = (int64_t)v;
                    }
                    ++k;
                }
                if (e < 0) return (aicf_result)e;
            }
        }
        if (rc < 0) return (aicf_result)rc;
        a->count = (int)n;
        break;
    }
    default:
        if (type >= 9 && type <= 14)
            return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                             "node %d '%s' (%s): attribute '%s' of type %s is not supported", nc->index,
                             nc->name, nc->op_type, a->name, aicf__onnx_attr_type_name(type));
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "attribute '%s' has an invalid type %lld", a->name,
                              (long long)type);
    }
    return AICF_SUCCESS;
}

/* Destroys the subgraphs of attributes that no node took. */
static void aicf__onnx_drop_graphs(aicf_attr* attrs, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (attrs[i].type == AICF_ATTR_GRAPH && attrs[i].g) {
            aicf_graph_destroy(attrs[i].g);
            attrs[i].g = NULL;
        }
}

static aicf_result aicf__onnx_node(aicf__onnx* o, aicf_graph* g, int index, size_t off, size_t len)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    size_t n_in = 0, n_out = 0, n_attr = 0, k_in = 0, k_out = 0, k_attr = 0;
    char *name = NULL, *op_type = NULL, *domain = NULL;
    const char** inputs;
    const char** outputs;
    aicf_attr* attrs;
    aicf_node_desc nd;
    aicf__onnx_nodectx nc;
    aicf_result res;
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_node, &f)) > 0) {
        res = AICF_SUCCESS;
        switch (f.num) {
        case 1: n_in++; break;
        case 2: n_out++; break;
        case 3: res = aicf__onnx_str(o, &f, 1, &name); break;
        case 4: res = aicf__onnx_str(o, &f, 1, &op_type); break;
        case 5: n_attr++; break;
        case 7: res = aicf__onnx_str(o, &f, 1, &domain); break;
        default: break;
        }
        if (res) return res;
    }
    if (rc < 0) return (aicf_result)rc;
    if (!name) name = (char*)"";
    if (!op_type || !op_type[0])
        return aicf__onnx_nerr(o, AICF_ERROR_INVALID_MODEL, "node %d '%s': op_type is missing", index, name);
    if (domain && domain[0] && strcmp(domain, "ai.onnx") != 0)
        return aicf__onnx_nerr(o, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (%s): domain '%s' is not supported (only the default ONNX domain)",
                         index, name, op_type, domain);
    if (n_in > AICF_MAX_NODE_IO || n_out > AICF_MAX_NODE_IO)
        return aicf__onnx_nerr(o, AICF_ERROR_LIMIT, "node %d '%s' (%s): %zu inputs and %zu outputs exceed AICF_MAX_NODE_IO (%d)",
                         index, name, op_type, n_in, n_out, AICF_MAX_NODE_IO);
    if (n_attr > (size_t)AICF_MAX_NODE_IO * 16)
        return aicf__onnx_nerr(o, AICF_ERROR_LIMIT, "node %d '%s' (%s): %zu attributes are too many", index, name,
                         op_type, n_attr);
    inputs = (const char**)aicf__onnx_alloc_n(o, n_in, sizeof(char*));
    outputs = (const char**)aicf__onnx_alloc_n(o, n_out, sizeof(char*));
    attrs = (aicf_attr*)aicf__onnx_alloc_n(o, n_attr, sizeof(aicf_attr));
    if (!inputs || !outputs || !attrs) return AICF_ERROR_OUT_OF_MEMORY;
    nc.index = index;
    nc.name = name;
    nc.op_type = op_type;
    r.pos = off;
    r.end = off + len;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_node, &f)) > 0) {
        char* s;
        res = AICF_SUCCESS;
        if (f.num == 1 || f.num == 2) {
            res = aicf__onnx_str(o, &f, 1, &s);
            if (!res) {
                if (f.num == 1) inputs[k_in++] = s;
                else outputs[k_out++] = s;
            }
        } else if (f.num == 5) {
            size_t old = aicf__onnx_push(o, ".attribute[%zu]", k_attr);
            res = aicf__onnx_attr(o, &nc, f.off, f.len, &attrs[k_attr]);
            if (!res) {
                k_attr++;
                aicf__onnx_pop(o, old);
            }
        }
        if (res) {
            aicf__onnx_drop_graphs(attrs, k_attr);
            return res;
        }
    }
    if (rc < 0) {
        aicf__onnx_drop_graphs(attrs, k_attr);
        return (aicf_result)rc;
    }
    memset(&nd, 0, sizeof(nd));
    nd.name = name;
    nd.op_type = op_type;
    nd.domain = NULL;
    nd.inputs = inputs;
    nd.num_inputs = (int)n_in;
    nd.outputs = outputs;
    nd.num_outputs = (int)n_out;
    nd.attrs = attrs;
    nd.num_attrs = (int)n_attr;
    res = aicf_graph_add_node(g, &nd);
    if (res) {
        char msg[1024], tag[48];
        snprintf(msg, sizeof(msg), "%s", aicf_last_error(o->ctx));
        snprintf(tag, sizeof(tag), "node %d ", index);
        aicf__onnx_drop_graphs(attrs, k_attr); /* a failed add_node leaves them with us */
        if (strstr(msg, tag) && strstr(msg, op_type)) return aicf__onnx_nerr(o, res, "%s", msg);
        return aicf__onnx_nerr(o, res, "node %d '%s' (%s): %s", index, name, op_type, msg);
    }
    return AICF_SUCCESS;
}

typedef struct aicf__onnx_range {
    size_t off, len;
} aicf__onnx_range;

/* Subgraph input: like a graph input, but the type and shape may be left open (Loop and Scan
   bodies): dtype AICF_DTYPE_INVALID when not a tensor of a supported type, rank -1 when the
   shape is absent. */
static aicf_result aicf__onnx_sub_input(aicf__onnx* o, aicf_graph* g, size_t off, size_t len)
{
    aicf__onnx_vi vi;
    aicf_result res;
    aicf__tensor* tt;
    size_t i;
    int t;
    res = aicf__onnx_value_info(o, off, len, &vi);
    if (res) return res;
    if (!vi.name || !vi.name[0]) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph input has no name");
    t = aicf__graph_find(g, vi.name);
    if (t >= 0 && (g->tensors[t].flags & AICF__T_CONST)) return AICF_SUCCESS; /* an initializer's default */
    if (t >= 0) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "input '%s' is already defined", vi.name);
    t = aicf__graph_new_tensor(g, vi.name);
    if (t < 0 || !aicf__grow(g->ctx, (void**)&g->inputs, &g->cap_inputs, g->n_inputs + 1, sizeof(int))) {
        char what[AICF_MAX_NAME + 32];
        snprintf(what, sizeof(what), "input '%s'", vi.name);
        return aicf__onnx_wrap(o, t < 0 ? aicf__new_tensor_err(t) : AICF_ERROR_OUT_OF_MEMORY, what);
    }
    tt = &g->tensors[t];
    tt->flags = AICF__T_INPUT;
    if (vi.type_kind == 1 && aicf__onnx_dtype_size(vi.elem_type)) tt->dtype = (aicf_dtype)vi.elem_type;
    tt->shape.rank = -1;
    if (vi.type_kind == 1 && vi.has_shape && vi.n_dims <= AICF_MAX_RANK) {
        tt->shape.rank = (int)vi.n_dims;
        for (i = 0; i < vi.n_dims; ++i) {
            tt->shape.d[i] = vi.dims[i];
            if (vi.dims[i] < 0) {
                char unk[AICF_MAX_NAME + 48];
                const char* param = vi.dim_params[i];
                if (!param) {
                    snprintf(unk, sizeof(unk), "unk__%s_%zu", vi.name, i);
                    param = unk;
                }
                tt->dim_param[i] = aicf__strdup(g->ctx, param);
                if (!tt->dim_param[i]) return aicf__onnx_oom(o, strlen(param) + 1);
            }
        }
    }
    tt->shape_known = tt->shape.rank >= 0 && tt->dtype != AICF_DTYPE_INVALID && aicf__shape_numel(&tt->shape) >= 0;
    g->inputs[g->n_inputs++] = t;
    return AICF_SUCCESS;
}

/* Reads the GraphProto at [graph_off, graph_off + graph_len) into g: initializers, value_info
   (validated only), inputs, nodes, outputs, in that order. o->path names the GraphProto. Inside
   a subgraph (o->depth > 0) g is marked as one: names of enclosing graphs become outer
   references. Temporary allocations made here are freed here; the caller's are kept. */
static aicf_result aicf__onnx_graph(aicf__onnx* o, aicf_graph* g, size_t graph_off, size_t graph_len)
{
    aicf__pb r;
    aicf__pbf f;
    int rc = 0;
    size_t counts[5] = {0, 0, 0, 0, 0}; /* node, initializer, input, output, value_info */
    size_t fill[5] = {0, 0, 0, 0, 0};
    aicf__onnx_range* ranges[5];
    aicf__onnx_range* all = NULL;
    size_t total, at, i;
    int kind_i;
    aicf_result res = AICF_SUCCESS;
    aicf__onnx_tmp* outer = o->tmp; /* the caller's temporaries (the node being read) */
    o->tmp = NULL;
    memset(ranges, 0, sizeof(ranges));
    for (i = 0; i < 2 && !res; ++i) {
        r.pos = graph_off;
        r.end = graph_off + graph_len;
        while ((rc = aicf__pb_next(o, &r, &aicf__pbm_graph, &f)) > 0) {
            int kind = -1;
            switch (f.num) {
            case 1: kind = 0; break;
            case 5: kind = 1; break;
            case 11: kind = 2; break;
            case 12: kind = 3; break;
            case 13: kind = 4; break;
            case 15:
                res = aicf__onnx_ferr(o, AICF_ERROR_UNSUPPORTED, "sparse initializers are not supported (byte %zu)", f.at);
                break;
            default: break;
            }
            if (res) break;
            if (kind < 0) continue;
            if (i == 0) {
                counts[kind]++;
            } else {
                ranges[kind][fill[kind]].off = f.off;
                ranges[kind][fill[kind]].len = f.len;
                fill[kind]++;
            }
        }
        if (!res && rc < 0) res = (aicf_result)rc;
        if (res) break;
        if (i == 0) {
            if (counts[0] > (size_t)AICF_MAX_NODES) {
                res = aicf__onnx_err(o, AICF_ERROR_LIMIT, "%zu nodes exceed AICF_MAX_NODES (%d)", counts[0], AICF_MAX_NODES);
                break;
            }
            if (counts[1] > (size_t)AICF_MAX_TENSORS || counts[2] > (size_t)AICF_MAX_TENSORS ||
                counts[3] > (size_t)AICF_MAX_TENSORS || counts[4] > (size_t)AICF_MAX_TENSORS) {
                res = aicf__onnx_err(o, AICF_ERROR_LIMIT, "more than AICF_MAX_TENSORS (%d) initializers, inputs, outputs or value_infos",
                                     AICF_MAX_TENSORS);
                break;
            }
            total = counts[0] + counts[1] + counts[2] + counts[3] + counts[4];
            all = (aicf__onnx_range*)aicf__onnx_alloc_n(o, total, sizeof(aicf__onnx_range));
            if (!all) {
                res = AICF_ERROR_OUT_OF_MEMORY;
                break;
            }
            at = 0;
            for (kind_i = 0; kind_i < 5; ++kind_i) {
                ranges[kind_i] = all + at;
                at += counts[kind_i];
            }
        }
    }
    if (!res) {
        /* the ranges live in the temporary list: detach them so per-item frees keep them */
        aicf__onnx_tmp* keep = o->tmp;
        o->tmp = NULL;
        for (i = 0; i < counts[1] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".initializer[%zu]", i);
            res = aicf__onnx_initializer(o, g, ranges[1][i].off, ranges[1][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[4] && !res; ++i) { /* value_info: validated, not used */
            aicf__onnx_vi vi;
            size_t old = aicf__onnx_push(o, ".value_info[%zu]", i);
            res = aicf__onnx_value_info(o, ranges[4][i].off, ranges[4][i].len, &vi);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[2] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".input[%zu]", i);
            if (o->depth > 0) res = aicf__onnx_sub_input(o, g, ranges[2][i].off, ranges[2][i].len);
            else res = aicf__onnx_input(o, g, ranges[2][i].off, ranges[2][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[0] && !res; ++i) {
            size_t old = aicf__onnx_push(o, ".node[%zu]", i);
            res = aicf__onnx_node(o, g, (int)i, ranges[0][i].off, ranges[0][i].len);
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        for (i = 0; i < counts[3] && !res; ++i) {
            aicf__onnx_vi vi;
            size_t old = aicf__onnx_push(o, ".output[%zu]", i);
            res = aicf__onnx_value_info(o, ranges[3][i].off, ranges[3][i].len, &vi);
            if (!res && (!vi.name || !vi.name[0]))
                res = aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "graph output has no name");
            if (!res) {
                res = aicf_graph_add_output(g, vi.name);
                if (res) {
                    char what[AICF_MAX_NAME + 32];
                    snprintf(what, sizeof(what), "output '%s'", vi.name);
                    res = aicf__onnx_wrap(o, res, what);
                }
            }
            if (!res) aicf__onnx_pop(o, old);
            aicf__onnx_tmp_free(o);
        }
        o->tmp = keep;
    }
    aicf__onnx_tmp_free(o);
    o->tmp = outer;
    return res;
}

static aicf_result aicf__onnx_build(aicf__onnx* o, aicf_graph* g, const aicf_onnx_desc* desc)
{
    aicf__pb r;
    aicf__pbf f;
    int rc;
    int64_t ir_version = 0, opset = -1;
    size_t n_opsets = 0, graph_off = 0, graph_len = 0;
    int have_graph = 0;
    aicf_result res = AICF_SUCCESS;

    /* ModelProto */
    aicf__onnx_set_path(o, "ModelProto");
    r.pos = 0;
    r.end = o->size;
    while ((rc = aicf__pb_next(o, &r, &aicf__pbm_model, &f)) > 0) {
        if (f.num == 1) {
            ir_version = (int64_t)f.v;
        } else if (f.num == 7) {
            if (have_graph) return aicf__onnx_ferr(o, AICF_ERROR_INVALID_MODEL, "graph is given twice (byte %zu)", f.at);
            have_graph = 1;
            graph_off = f.off;
            graph_len = f.len;
        } else if (f.num == 8) {
            aicf__pb ro;
            aicf__pbf fo;
            int is_default = 1;
            int64_t version = 0;
            size_t old = aicf__onnx_push(o, ".opset_import[%zu]", n_opsets++);
            ro.pos = f.off;
            ro.end = f.off + f.len;
            while ((rc = aicf__pb_next(o, &ro, &aicf__pbm_opset, &fo)) > 0) {
                if (fo.num == 1) is_default = aicf__pb_str_eq(o, &fo, "") || aicf__pb_str_eq(o, &fo, "ai.onnx");
                else if (fo.num == 2) version = (int64_t)fo.v;
            }
            if (rc < 0) return (aicf_result)rc;
            if (is_default) {
                if (opset >= 0)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "the default ONNX domain is imported twice");
                if (version < 1)
                    return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "opset version %lld of the default domain is invalid",
                                          (long long)version);
                opset = version;
            }
            aicf__onnx_pop(o, old);
        }
    }
    if (rc < 0) return (aicf_result)rc;
    if (!have_graph) return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "no graph (field 7)");
    if (n_opsets == 0 && ir_version >= 3)
        return aicf__onnx_err(o, AICF_ERROR_INVALID_MODEL, "opset_import is empty (required since IR version 3; ir_version is %lld)",
                              (long long)ir_version);
    if (opset >= 0) {
        res = aicf_graph_set_opset(g, "", opset);
        if (res) return aicf__onnx_wrap(o, AICF_ERROR_INVALID_MODEL, "opset_import");
    }

    o->opset = opset >= 0 ? opset : 0;
    aicf__onnx_set_path(o, "GraphProto");
    res = aicf__onnx_graph(o, g, graph_off, graph_len);
    if (res) return res;

    /* bindings of symbolic dims */
    if (desc && desc->num_dims) {
        int k;
        if (desc->num_dims < 0 || !desc->dim_names || !desc->dim_values)
            return aicf__err(o->ctx, AICF_ERROR_INVALID_ARGUMENT,
                             "aicf_onnx_desc: num_dims is %d but dim_names/dim_values are not given", desc->num_dims);
        for (k = 0; k < desc->num_dims; ++k) {
            if (!desc->dim_names[k])
                return aicf__err(o->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_onnx_desc: dim_names[%d] is NULL", k);
            res = aicf_graph_bind_dim(g, desc->dim_names[k], desc->dim_values[k]);
            if (res) return res;
        }
    }
    return AICF_SUCCESS;
}

/* ---- files ---- */

/* Reads a whole file: mapped read-only when allow_mmap and POSIX (*is_mmap = 1), else into a
   buffer from aicf__malloc. */
static aicf_result aicf__onnx_read_file(aicf_context* ctx, const char* fn, const char* path, int allow_mmap,
                                        void** data, size_t* size, int* is_mmap)
{
    FILE* fp;
    unsigned char* buf = NULL;
    size_t cap = 0, len = 0;
    *data = NULL;
    *size = 0;
    *is_mmap = 0;
#if defined(AICF__ONNX_MMAP)
    if (allow_mmap) {
        struct stat st;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%s': %s", fn, path, strerror(errno));
        if (fstat(fd, &st) != 0) {
            int e = errno;
            close(fd);
            return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot stat '%s': %s", fn, path, strerror(e));
        }
        if (!S_ISREG(st.st_mode)) {
            close(fd);
            return aicf__err(ctx, AICF_ERROR_IO, "%s: '%s' is not a regular file", fn, path);
        }
        if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
            close(fd);
            return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%s' is too large to map", fn, path);
        }
        if (st.st_size > 0) {
            void* p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                close(fd);
                *data = p;
                *size = (size_t)st.st_size;
                *is_mmap = 1;
                return AICF_SUCCESS;
            }
        }
        close(fd); /* empty file or mmap failed: read it */
    }
#else
    AICF__UNUSED(allow_mmap);
#endif
    fp = fopen(path, "rb");
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%s': %s", fn, path, strerror(errno));
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char* nb;
            if (ncap < cap) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%s' is too large", fn, path);
            }
            nb = (unsigned char*)aicf__realloc(ctx, buf, cap, ncap);
            if (!nb) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%s'", fn, path);
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        fclose(fp);
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "%s: error reading '%s'", fn, path);
    }
    fclose(fp);
    *data = buf;
    *size = len;
    return AICF_SUCCESS;
}

static void aicf__onnx_release_file(aicf_context* ctx, void* data, size_t size, int is_mmap)
{
#if defined(AICF__ONNX_MMAP)
    if (is_mmap) {
        munmap(data, size);
        return;
    }
#else
    AICF__UNUSED(is_mmap);
#endif
    AICF__UNUSED(size);
    aicf__free(ctx, data);
}

/* The directory part of path ("." if none), allocated with aicf__malloc. */
static char* aicf__onnx_dirname(aicf_context* ctx, const char* path)
{
    const char* slash = strrchr(path, '/');
    size_t n;
    char* d;
#if defined(_WIN32)
    {
        const char* bs = strrchr(path, '\\');
        if (bs && (!slash || bs > slash)) slash = bs;
    }
#endif
    if (!slash) return aicf__strdup(ctx, ".");
    n = (size_t)(slash - path);
    if (n == 0) n = 1; /* "/model.onnx" */
    d = (char*)aicf__malloc(ctx, n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

/* raw_data and the dense arrays are little-endian: other hosts are refused, not misread. */
static aicf_result aicf__onnx_check_host(aicf_context* ctx, const char* fn)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    if (b != 1) return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "%s: big-endian hosts are not supported", fn);
    return AICF_SUCCESS;
}

static aicf_result aicf__onnx_load(aicf_context* ctx, void* data, size_t size, int is_mmap, const char* dir,
                                   const aicf_onnx_desc* desc, aicf_graph** out)
{
    aicf_graph* g = NULL;
    aicf__onnx o;
    aicf_result res = aicf__onnx_check_host(ctx, "aicf_graph_load_onnx");
    if (!res) res = aicf_graph_create(ctx, &g);
    if (res) {
        aicf__onnx_release_file(ctx, data, size, is_mmap);
        return res;
    }
    aicf__graph_adopt_file(g, data, size, is_mmap);
    memset(&o, 0, sizeof(o));
    o.ctx = ctx;
    o.buf = (const unsigned char*)data;
    o.size = size;
    o.dir = dir;
    res = aicf__onnx_build(&o, g, desc);
    aicf__onnx_tmp_free(&o);
    if (res) {
        aicf_graph_destroy(g);
        return res;
    }
    *out = g;
    return AICF_SUCCESS;
}

AICF_API aicf_result aicf_graph_load_onnx(aicf_context* ctx, const char* path, const aicf_onnx_desc* desc,
                                          aicf_graph** out)
{
    void* data;
    size_t size;
    int is_mmap;
    char* dir;
    aicf_result res;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) *out = NULL;
    if (!path || !out)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_load_onnx: path and out must not be NULL");
    res = aicf__onnx_read_file(ctx, "aicf_graph_load_onnx", path, 1, &data, &size, &is_mmap);
    if (res) return res;
    dir = aicf__onnx_dirname(ctx, path);
    if (!dir) {
        aicf__onnx_release_file(ctx, data, size, is_mmap);
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_load_onnx: out of memory");
    }
    res = aicf__onnx_load(ctx, data, size, is_mmap, dir, desc, out);
    aicf__free(ctx, dir);
    return res;
}

AICF_API aicf_result aicf_graph_load_onnx_memory(aicf_context* ctx, const void* data, size_t size,
                                                 const aicf_onnx_desc* desc, aicf_graph** out)
{
    void* copy;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) *out = NULL;
    if (!out || (!data && size))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_graph_load_onnx_memory: data and out must not be NULL");
    copy = aicf__malloc(ctx, size ? size : 1);
    if (!copy) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_graph_load_onnx_memory: out of memory (%zu bytes)", size);
    if (size) memcpy(copy, data, size);
    return aicf__onnx_load(ctx, copy, size, 0, NULL, desc, out);
}

/* ---- TensorProto files ---- */
static aicf_result aicf__onnx_read_tensor(aicf_context* ctx, const void* data, size_t size, const char* dir,
                                          aicf_host_tensor* out)
{
    aicf__onnx o;
    aicf__onnx_tp tp;
    const void* dense;
    int in_model;
    aicf_result res = aicf__onnx_check_host(ctx, "aicf_tensor_read_pb");
    if (res) return res;
    memset(&o, 0, sizeof(o));
    o.ctx = ctx;
    o.buf = (const unsigned char*)data;
    o.size = size;
    o.dir = dir;
    aicf__onnx_set_path(&o, "TensorProto");
    res = aicf__onnx_tensor(&o, 0, size, &tp, &dense, &in_model);
    if (!res) {
        size_t i, nlen = strlen(tp.name);
        out->name = (char*)aicf__malloc(ctx, nlen + 1);
        out->data = aicf__malloc(ctx, tp.bytes ? tp.bytes : 1);
        if (!out->name || !out->data) {
            aicf__free(ctx, out->name);
            aicf__free(ctx, out->data);
            memset(out, 0, sizeof(*out));
            res = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "onnx: TensorProto: out of memory (%zu bytes)", tp.bytes);
        } else {
            memcpy(out->name, tp.name, nlen + 1);
            if (tp.bytes) memcpy(out->data, dense, tp.bytes);
            out->bytes = tp.bytes;
            out->dtype = (aicf_dtype)tp.data_type;
            out->rank = (int)tp.n_dims;
            for (i = 0; i < tp.n_dims; ++i) out->dims[i] = tp.dims[i];
        }
    }
    aicf__onnx_tmp_free(&o);
    return res;
}

AICF_API aicf_result aicf_tensor_read_pb(aicf_context* ctx, const char* path, aicf_host_tensor* out)
{
    void* data;
    size_t size;
    int is_mmap;
    char* dir;
    aicf_result res;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) memset(out, 0, sizeof(*out));
    if (!path || !out) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_read_pb: path and out must not be NULL");
    res = aicf__onnx_read_file(ctx, "aicf_tensor_read_pb", path, 0, &data, &size, &is_mmap);
    if (res) return res;
    dir = aicf__onnx_dirname(ctx, path);
    if (!dir) res = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_tensor_read_pb: out of memory");
    else res = aicf__onnx_read_tensor(ctx, data, size, dir, out);
    aicf__free(ctx, dir);
    aicf__onnx_release_file(ctx, data, size, is_mmap);
    return res;
}

AICF_API aicf_result aicf_tensor_read_pb_memory(aicf_context* ctx, const void* data, size_t size, aicf_host_tensor* out)
{
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (out) memset(out, 0, sizeof(*out));
    if (!out || (!data && size))
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_read_pb_memory: data and out must not be NULL");
    return aicf__onnx_read_tensor(ctx, size ? data : (const void*)"", size, NULL, out);
}

static size_t aicf__pb_put_varint(unsigned char* p, uint64_t v)
{
    size_t n = 0;
    do {
        unsigned char c = (unsigned char)(v & 0x7fu);
        v >>= 7;
        if (v) c |= 0x80u;
        if (p) p[n] = c;
        ++n;
    } while (v);
    return n;
}

AICF_API aicf_result aicf_tensor_write_pb(aicf_context* ctx, const char* path, const aicf_host_tensor* t)
{
    size_t esize, numel = 1, need = 0, nlen, pos = 0, n = 0;
    unsigned char* buf;
    FILE* fp;
    int i, ok;
    if (!ctx) return AICF_ERROR_INVALID_ARGUMENT;
    if (!path || !t) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: path and t must not be NULL");
    if (aicf__onnx_check_host(ctx, "aicf_tensor_write_pb")) return AICF_ERROR_UNSUPPORTED;
    esize = aicf__onnx_dtype_size(t->dtype);
    if (!esize)
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED, "aicf_tensor_write_pb: dtype %d (%s) is not supported", (int)t->dtype,
                         aicf__onnx_dtype_name(t->dtype));
    if (t->rank < 0 || t->rank > AICF_MAX_RANK)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: rank %d is outside 0..%d", t->rank, AICF_MAX_RANK);
    for (i = 0; i < t->rank; ++i) {
        if (t->dims[i] < 0 || (uint64_t)t->dims[i] > (uint64_t)SIZE_MAX ||
            !aicf__mul_size(numel, (size_t)t->dims[i], &numel))
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: dims[%d] = %lld is invalid", i,
                             (long long)t->dims[i]);
    }
    if (!aicf__mul_size(numel, esize, &n))
        return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_tensor_write_pb: the size of the dims overflows");
    if (n != t->bytes)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: bytes is %zu, the dims and dtype need %zu",
                         t->bytes, n);
    if (t->bytes && !t->data) return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_tensor_write_pb: data is NULL");
    nlen = t->name ? strlen(t->name) : 0;
    for (i = 0; i < t->rank; ++i) need += 1 + aicf__pb_put_varint(NULL, (uint64_t)t->dims[i]);
    need += 1 + aicf__pb_put_varint(NULL, (uint64_t)t->dtype);
    if (nlen) need += 1 + aicf__pb_put_varint(NULL, nlen) + nlen;
    if (!aicf__add_size(need, 1 + aicf__pb_put_varint(NULL, t->bytes), &need) || !aicf__add_size(need, t->bytes, &need))
        return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_tensor_write_pb: tensor too large");
    buf = (unsigned char*)aicf__malloc(ctx, need);
    if (!buf) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_tensor_write_pb: out of memory (%zu bytes)", need);
    for (i = 0; i < t->rank; ++i) {
        buf[pos++] = 0x08; /* dims = 1, varint */
        pos += aicf__pb_put_varint(buf + pos, (uint64_t)t->dims[i]);
    }
    buf[pos++] = 0x10; /* data_type = 2, varint */
    pos += aicf__pb_put_varint(buf + pos, (uint64_t)t->dtype);
    if (nlen) {
        buf[pos++] = 0x42; /* name = 8, length-delimited */
        pos += aicf__pb_put_varint(buf + pos, nlen);
        memcpy(buf + pos, t->name, nlen);
        pos += nlen;
    }
    buf[pos++] = 0x4a; /* raw_data = 9, length-delimited */
    pos += aicf__pb_put_varint(buf + pos, t->bytes);
    if (t->bytes) memcpy(buf + pos, t->data, t->bytes);
    pos += t->bytes;
    fp = fopen(path, "wb");
    if (!fp) {
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "aicf_tensor_write_pb: cannot create '%s': %s", path, strerror(errno));
    }
    ok = fwrite(buf, 1, pos, fp) == pos;
    ok = (fclose(fp) == 0) && ok;
    aicf__free(ctx, buf);
    if (!ok) return aicf__err(ctx, AICF_ERROR_IO, "aicf_tensor_write_pb: error writing '%s'", path);
    return AICF_SUCCESS;
}

AICF_API void aicf_host_tensor_free(aicf_context* ctx, aicf_host_tensor* t)
{
    if (!ctx || !t) return;
    if (t->name) aicf__free(ctx, t->name);
    if (t->data) aicf__free(ctx, t->data);
    memset(t, 0, sizeof(*t));
}
/* >>ops ===================================================================================== */
/* Shape inference (aicf__op_infer) and the CPU reference (aicf__cpu_run) of every op in
   AICF__OPS, with the semantics of the ONNX operator specification
   (https://github.com/onnx/onnx/blob/main/docs/Operators.md) at the graph's default-domain
   opset (g->opset, 0 = latest).

   Data types: the math ops compute in float32 (long sums - reductions, normalizations, Einsum,
   Resize - accumulate in double and round once). FLOAT32 is accepted everywhere. Integer types
   also where shape arithmetic and exported graphs need them, computed exactly in int64
   (wrapping): Add, Sub, Mul, Div, Max, Min, Sum, Pow, Mod, Neg, Abs, Sign, Relu, Clip, CumSum,
   CumProd, ReduceSum/Prod/Max/Min, ArgMax/ArgMin, Range, the comparisons and the bitwise ops.
   The ops that only move, select or compare elements (Identity, Reshape, Flatten, Squeeze,
   Unsqueeze, Concat, Transpose, Gather*, Scatter*, Slice, Split, Pad, Tile, Expand, Where,
   Trilu, DepthToSpace, SpaceToDepth, OneHot, Equal, Shape, Size, Constant, ConstantOfShape, Cast,
   CastLike, NonZero, TopK; Max/Min also on float16/bfloat16/float64) take every fixed-size type
   (float32/64, float16, bfloat16, int8..int64, uint8..uint64, bool). Anything else is
   AICF_ERROR_UNSUPPORTED naming the node, input and dtype. Index inputs (Gather indices, Slice
   starts/ends/axes/steps, Pad pads, Reduce axes, ...) may be int32 or int64; negative indices
   count from the end; an index out of range is AICF_ERROR_INVALID_MODEL when it is a constant,
   AICF_ERROR_INVALID_ARGUMENT at run time. Comparisons produce BOOL (1 byte).

   Inputs that decide an output shape (Reshape's shape, Slice's starts, Pad's pads, Resize's
   scales/sizes, Range's bounds, OneHot's depth, Tile's repeats, Expand's shape, Split's split,
   TopK's K, the axes of the Reduce ops, Squeeze and Unsqueeze, NonZero's input) must be constants at plan
   time; otherwise AICF_ERROR_UNSUPPORTED "input N 'name' must be a constant at plan time".

   The CPU reference is plain C written for obviousness, not speed: deterministic, no allocation
   per element, outputs row-major and tightly packed. Conv, ConvTranspose and the pools work on
   1-D, 2-D and 3-D NCHW data (spatial dims normalised to three, leading ones of size 1). Inputs
   at addresses not aligned to their element size (constants borrowed from a model file) are
   copied to aligned memory for the call.

   Where ONNX leaves a result open, aicf chooses (as ONNX Runtime unless noted):
   - integer Add/Sub/Mul wrap (two's complement); Div truncates toward zero; an integer
     division or Mod by zero fails the run with AICF_ERROR_INVALID_ARGUMENT;
   - Cast float -> integer truncates toward zero and saturates to the type's range, NaN -> 0;
     integer narrowing wraps (as numpy); float64 -> float16 rounds once, to nearest even;
     float -> bfloat16 rounds to nearest even;
   - Max/Min propagate NaN (as numpy); a pooling window that covers no input element (only
     possible with dilations) gives -FLT_MAX (MaxPool) or 0 (AveragePool);
   - pools with ceil_mode drop a last window that would start in the right padding, and
     count_include_pad divides by the window elements inside the explicitly padded input;
   - Slice clamps as the operator text says (starts to [0, n] / [0, n-1] for negative steps);
   - Pad with negative pads crops first, then pads the cropped tensor (reflect/edge/wrap read
     the cropped tensor);
   - Reduce* with empty axes and noop_with_empty_axes = 1 is the identity for every op (the
     text of the spec; the Python reference squares for ReduceSumSquare);
   - Split without sizes: ceil(n / outputs) per output and a smaller last one (the reference);
   - Resize follows the ONNX reference: separable, one axis at a time in the order of `axes`,
     in double; Resize-10 and Upsample use asymmetric coordinates and nearest floor (ceil when
     downsampling, as ONNX Runtime);
   - TopK orders equal values by index (lowest first); sorted = 0 gives the same order;
   - Einsum accepts any equation numpy does (the implicit output orders labels by ASCII). */

#define AICF__OP_OPSET_LATEST ((int64_t)1 << 30) /* g->opset == 0: every "before opset N" rule is off */
#define AICF__OP_TRY(expr)                                                                       \
    do {                                                                                         \
        aicf_result aicf__op_r_ = (expr);                                                        \
        if (aicf__op_r_ != AICF_SUCCESS) return aicf__op_r_;                                     \
    } while (0)
/* Largest kernel/stride/dilation/pad/size value accepted: keeps (kernel - 1) * dilation + pads
   well inside int64. */
#define AICF__OP_MAX_WINDOW ((int64_t)1 << 30)

#if defined(__GNUC__) || defined(__clang__)
#  define AICF__OP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define AICF__OP_PRINTF(a, b)
#endif

/* Per-node working context. */
typedef struct aicf__opc {
    aicf_graph* g;
    aicf_context* ctx;
    aicf__node* n;
    int ni;
    int64_t opset;
} aicf__opc;

static void aicf__opc_init(aicf__opc* c, aicf_graph* g, int ni) {
    c->g = g;
    c->ctx = g->ctx;
    c->n = &g->nodes[ni];
    c->ni = ni;
    c->opset = g->opset > 0 ? g->opset : AICF__OP_OPSET_LATEST;
}

static aicf_result aicf__op_err(const aicf__opc* c, aicf_result code, const char* fmt, ...) AICF__OP_PRINTF(3, 4);
static aicf_result aicf__op_err(const aicf__opc* c, aicf_result code, const char* fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return aicf__err(c->ctx, code, "node %d '%.200s' (%.64s): %s", c->ni,
                     c->n->name ? c->n->name : "", c->n->op_type ? c->n->op_type : "?", msg);
}

/* ---- inputs, outputs ---- */

/* Number of inputs up to the last present one (trailing omitted optional inputs dropped). */
static int aicf__op_nin(const aicf__node* n) {
    int k = n->n_in;
    while (k > 0 && n->in[k - 1] < 0) k--;
    return k;
}

static int aicf__op_nout(const aicf__node* n) {
    int k = n->n_out;
    while (k > 0 && n->out[k - 1] < 0) k--;
    return k;
}

static aicf__tensor* aicf__op_in(const aicf__opc* c, int i) {
    if (i < 0 || i >= c->n->n_in || c->n->in[i] < 0) return NULL;
    return &c->g->tensors[c->n->in[i]];
}

static aicf__tensor* aicf__op_out(const aicf__opc* c, int i) {
    if (i < 0 || i >= c->n->n_out || c->n->out[i] < 0) return NULL;
    return &c->g->tensors[c->n->out[i]];
}

static const char* aicf__op_in_name(const aicf__opc* c, int i) {
    const aicf__tensor* t = aicf__op_in(c, i);
    return t && t->name ? t->name : "";
}

static const char* aicf__op_out_name(const aicf__opc* c, int i) {
    const aicf__tensor* t = aicf__op_out(c, i);
    return t && t->name ? t->name : "";
}

static const char* aicf__op_sstr(const aicf__shape* s, char* buf, size_t cap) {
    return aicf__shape_str(s, buf, cap);
}

/* Checks the input/output counts and that every present input has a known, bound shape. */
static aicf_result aicf__op_check_io(const aicf__opc* c, int min_in, int max_in, int min_out, int max_out) {
    int nin = aicf__op_nin(c->n), nout = aicf__op_nout(c->n), i, k;
    if (nin < min_in || nin > max_in) {
        if (min_in == max_in && c->opset == AICF__OP_OPSET_LATEST)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d (latest opset)", nin, min_in);
        if (min_in == max_in)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d at opset %lld", nin, min_in,
                              (long long)c->opset);
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d inputs; expected %d to %d", nin, min_in, max_in);
    }
    if (nout < min_out || nout > max_out)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has %d outputs; expected %d to %d", nout, min_out, max_out);
    for (i = 0; i < min_in; i++)
        if (c->n->in[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required input %d is omitted", i);
    for (i = 0; i < min_out; i++)
        if (c->n->out[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required output %d is omitted", i);
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        if (!t) continue;
        if (!t->shape_known)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' has no known shape", i, t->name ? t->name : "");
        if (t->shape.rank < 0 || t->shape.rank > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' has rank %d (limit %d)", i, t->name ? t->name : "",
                              t->shape.rank, AICF_MAX_RANK);
        for (k = 0; k < t->shape.rank; k++)
            if (t->shape.d[k] < 0)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' has unbound dimension %d ('%.100s')", i,
                                  t->name ? t->name : "", k, t->dim_param[k] ? t->dim_param[k] : "?");
    }
    return AICF_SUCCESS;
}

/* Records output i's dtype and shape (nothing when the output is omitted). */
static aicf_result aicf__op_set_out(const aicf__opc* c, int i, aicf_dtype dt, const aicf__shape* s) {
    aicf__tensor* t = aicf__op_out(c, i);
    int64_t ne;
    size_t esz = aicf_dtype_size(dt);
    char buf[160];
    if (!t) return AICF_SUCCESS;
    ne = aicf__shape_numel(s);
    if (s->rank > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output %d '%.200s' would have rank %d (limit %d)", i,
                          aicf__op_out_name(c, i), s->rank, AICF_MAX_RANK);
    if (ne < 0 || esz == 0 || (uint64_t)ne > AICF_MAX_TENSOR_BYTES / esz)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output %d '%.200s' shape %s exceeds %llu bytes", i,
                          aicf__op_out_name(c, i), aicf__op_sstr(s, buf, sizeof buf),
                          (unsigned long long)AICF_MAX_TENSOR_BYTES);
    t->dtype = dt;
    t->shape = *s;
    t->shape_known = 1;
    return AICF_SUCCESS;
}

/* ---- data types ---- */
#define AICF__OP_DTM(dt) (1u << (unsigned)(dt))
#define AICF__OP_DTM_F32 AICF__OP_DTM(AICF_DTYPE_FLOAT32)
#define AICF__OP_DTM_INT (AICF__OP_DTM(AICF_DTYPE_INT64) | AICF__OP_DTM(AICF_DTYPE_INT32))
static int aicf__op_dt_in(aicf_dtype dt, unsigned mask) {
    return (int)dt > 0 && (int)dt < 32 && (mask & AICF__OP_DTM(dt)) != 0;
}

/* Every fixed-size type, for the ops that only move, compare or index elements. */
#define AICF__OP_DTM_SINT                                                                         \
    (AICF__OP_DTM(AICF_DTYPE_INT8) | AICF__OP_DTM(AICF_DTYPE_INT16) | AICF__OP_DTM(AICF_DTYPE_INT32) |   \
     AICF__OP_DTM(AICF_DTYPE_INT64))
#define AICF__OP_DTM_UINT                                                                         \
    (AICF__OP_DTM(AICF_DTYPE_UINT8) | AICF__OP_DTM(AICF_DTYPE_UINT16) | AICF__OP_DTM(AICF_DTYPE_UINT32) | \
     AICF__OP_DTM(AICF_DTYPE_UINT64))
#define AICF__OP_DTM_INTS (AICF__OP_DTM_SINT | AICF__OP_DTM_UINT)
#define AICF__OP_DTM_FLOATS                                                                       \
    (AICF__OP_DTM_F32 | AICF__OP_DTM(AICF_DTYPE_FLOAT64) | AICF__OP_DTM(AICF_DTYPE_FLOAT16) |           \
     AICF__OP_DTM(AICF_DTYPE_BFLOAT16))
#define AICF__OP_DTM_NUM (AICF__OP_DTM_FLOATS | AICF__OP_DTM_INTS)
#define AICF__OP_DTM_ALL (AICF__OP_DTM_NUM | AICF__OP_DTM(AICF_DTYPE_BOOL))

static int aicf__op_dt_isfloat(aicf_dtype dt) { return aicf__op_dt_in(dt, AICF__OP_DTM_FLOATS); }

static float aicf__op_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* float32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN */
static uint16_t aicf__op_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static uint16_t aicf__op_f64_to_f16(double v);
static int64_t aicf__op_f2i(double v, int64_t lo, int64_t hi);
static int64_t aicf__op_int_limit(aicf_dtype dt, int high);
static void aicf__op_copy_el(void* dst, int64_t di, const void* src, int64_t si, size_t esz);

/* Element i of a tensor of any fixed-size type, as double (uint64/int64 beyond 2^53 round). */
static double aicf__op_getd(aicf_dtype dt, const void* p, int64_t i) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: return ((const float*)p)[i];
    case AICF_DTYPE_FLOAT64: return ((const double*)p)[i];
    case AICF_DTYPE_FLOAT16: return aicf__f16_to_f32(((const uint16_t*)p)[i]);
    case AICF_DTYPE_BFLOAT16: return aicf__op_bf16_to_f32(((const uint16_t*)p)[i]);
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8: return ((const uint8_t*)p)[i];
    case AICF_DTYPE_INT16: return ((const int16_t*)p)[i];
    case AICF_DTYPE_UINT16: return ((const uint16_t*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_UINT32: return ((const uint32_t*)p)[i];
    case AICF_DTYPE_INT64: return (double)((const int64_t*)p)[i];
    case AICF_DTYPE_UINT64: return (double)((const uint64_t*)p)[i];
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i] != 0;
    default: return 0.0;
    }
}

/* Element i as int64: integers exactly (uint64 as its two's complement bits), floats truncated
   toward zero and saturated. */
static int64_t aicf__op_geti(aicf_dtype dt, const void* p, int64_t i) {
    switch (dt) {
    case AICF_DTYPE_INT8: return ((const int8_t*)p)[i];
    case AICF_DTYPE_UINT8: return ((const uint8_t*)p)[i];
    case AICF_DTYPE_INT16: return ((const int16_t*)p)[i];
    case AICF_DTYPE_UINT16: return ((const uint16_t*)p)[i];
    case AICF_DTYPE_INT32: return ((const int32_t*)p)[i];
    case AICF_DTYPE_UINT32: return ((const uint32_t*)p)[i];
    case AICF_DTYPE_INT64: return ((const int64_t*)p)[i];
    case AICF_DTYPE_UINT64: return (int64_t)((const uint64_t*)p)[i];
    case AICF_DTYPE_BOOL: return ((const uint8_t*)p)[i] != 0;
    default: return aicf__op_f2i(aicf__op_getd(dt, p, i), INT64_MIN, INT64_MAX);
    }
}

/* Stores an int64 into element i; integer types wrap (two's complement). */
static void aicf__op_seti(aicf_dtype dt, void* p, int64_t i, int64_t v) {
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case AICF_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)(uint8_t)u; break;
    case AICF_DTYPE_UINT8: ((uint8_t*)p)[i] = (uint8_t)u; break;
    case AICF_DTYPE_INT16: ((int16_t*)p)[i] = (int16_t)(uint16_t)u; break;
    case AICF_DTYPE_UINT16: ((uint16_t*)p)[i] = (uint16_t)u; break;
    case AICF_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)(uint32_t)u; break;
    case AICF_DTYPE_UINT32: ((uint32_t*)p)[i] = (uint32_t)u; break;
    case AICF_DTYPE_INT64: ((int64_t*)p)[i] = v; break;
    case AICF_DTYPE_UINT64: ((uint64_t*)p)[i] = u; break;
    case AICF_DTYPE_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0); break;
    case AICF_DTYPE_FLOAT32: ((float*)p)[i] = (float)v; break;
    case AICF_DTYPE_FLOAT64: ((double*)p)[i] = (double)v; break;
    case AICF_DTYPE_FLOAT16: ((uint16_t*)p)[i] = aicf__op_f64_to_f16((double)v); break;
    case AICF_DTYPE_BFLOAT16: ((uint16_t*)p)[i] = aicf__op_f32_to_bf16((float)v); break;
    default: break;
    }
}

/* Stores a double into element i (float types round; integer types truncate and saturate). */
static void aicf__op_setd(aicf_dtype dt, void* p, int64_t i, double v) {
    switch (dt) {
    case AICF_DTYPE_FLOAT32: ((float*)p)[i] = (float)v; break;
    case AICF_DTYPE_FLOAT64: ((double*)p)[i] = v; break;
    case AICF_DTYPE_FLOAT16: ((uint16_t*)p)[i] = aicf__op_f64_to_f16(v); break;
    case AICF_DTYPE_BFLOAT16: ((uint16_t*)p)[i] = aicf__op_f32_to_bf16((float)v); break;
    case AICF_DTYPE_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != 0.0); break;
    case AICF_DTYPE_INT8: ((int8_t*)p)[i] = (int8_t)aicf__op_f2i(v, -128, 127); break;
    case AICF_DTYPE_UINT8: ((uint8_t*)p)[i] = (uint8_t)aicf__op_f2i(v, 0, 255); break;
    case AICF_DTYPE_INT16: ((int16_t*)p)[i] = (int16_t)aicf__op_f2i(v, -32768, 32767); break;
    case AICF_DTYPE_UINT16: ((uint16_t*)p)[i] = (uint16_t)aicf__op_f2i(v, 0, 65535); break;
    case AICF_DTYPE_INT32: ((int32_t*)p)[i] = (int32_t)aicf__op_f2i(v, INT32_MIN, INT32_MAX); break;
    case AICF_DTYPE_UINT32: ((uint32_t*)p)[i] = (uint32_t)aicf__op_f2i(v, 0, (int64_t)UINT32_MAX); break;
    case AICF_DTYPE_INT64: ((int64_t*)p)[i] = aicf__op_f2i(v, INT64_MIN, INT64_MAX); break;
    case AICF_DTYPE_UINT64:
        ((uint64_t*)p)[i] = v != v || v <= 0.0 ? 0u : (v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v);
        break;
    default: break;
    }
}

static const char* aicf__op_dtm_str(unsigned mask, char* buf, size_t cap) {
    int dt;
    size_t len = 0;
    buf[0] = 0;
    for (dt = 1; dt < 32; dt++) {
        if (!(mask & AICF__OP_DTM(dt))) continue;
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "", aicf_dtype_name((aicf_dtype)dt));
        if (len >= cap) break;
    }
    return buf;
}

static aicf_result aicf__op_check_dt(const aicf__opc* c, int i, unsigned mask) {
    const aicf__tensor* t = aicf__op_in(c, i);
    char buf[160];
    if (!t || aicf__op_dt_in(t->dtype, mask)) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' has data type %s, which is not supported here (supported: %s)",
                      i, aicf__op_in_name(c, i), aicf_dtype_name(t->dtype), aicf__op_dtm_str(mask, buf, sizeof buf));
}

/* Input i must have the same dtype as input j. */
static aicf_result aicf__op_same_dt(const aicf__opc* c, int i, int j) {
    const aicf__tensor* a = aicf__op_in(c, i);
    const aicf__tensor* b = aicf__op_in(c, j);
    if (!a || !b || a->dtype == b->dtype) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' has data type %s but input %d '%.200s' has %s", i,
                      aicf__op_in_name(c, i), aicf_dtype_name(a->dtype), j, aicf__op_in_name(c, j),
                      aicf_dtype_name(b->dtype));
}

/* ---- attributes (type-checked) ---- */
static aicf_result aicf__op_attr_type(const aicf__opc* c, const aicf__attrv* a, aicf_attr_type want, const char* tname) {
    if (a->type == want) return AICF_SUCCESS;
    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' must be of type %s", a->name ? a->name : "", tname);
}

static aicf_result aicf__op_ai(const aicf__opc* c, const char* name, int64_t def, int64_t* v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INT, "INT"));
    *v = a->i;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_af(const aicf__opc* c, const char* name, float def, float* v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_FLOAT, "FLOAT"));
    *v = a->f;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_as(const aicf__opc* c, const char* name, const char* def, const char** v) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *v = def;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_STRING, "STRING"));
    *v = a->s ? a->s : "";
    return AICF_SUCCESS;
}

/* INTS attribute: *count = -1 when absent. */
static aicf_result aicf__op_aints(const aicf__opc* c, const char* name, const int64_t** vals, int* count) {
    const aicf__attrv* a = aicf__attr(c->n, name);
    *vals = NULL;
    *count = -1;
    if (!a) return AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INTS, "INTS"));
    *vals = a->ints;
    *count = a->count;
    return AICF_SUCCESS;
}

/* Reads constant input i, an int64 (or int32) tensor of rank 0 or 1 with at most `cap` values, into vals.
   `what` names the input in the message ("shape", "axes"). */
static aicf_result aicf__op_const_ints(const aicf__opc* c, int i, const char* what, int64_t* vals, int cap, int* count) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t ne, k;
    size_t esz;
    *count = -1;
    if (!t) return AICF_SUCCESS;
    if (!(t->flags & AICF__T_CONST) || (!t->data && aicf__shape_numel(&t->shape) != 0))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    if (t->dtype != AICF_DTYPE_INT64 && t->dtype != AICF_DTYPE_INT32)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be int64 or int32, not %s", i,
                          aicf__op_in_name(c, i), what, aicf_dtype_name(t->dtype));
    if (t->shape.rank > 1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be 1-D, has rank %d", i,
                          aicf__op_in_name(c, i), what, t->shape.rank);
    ne = aicf__shape_numel(&t->shape);
    if (ne < 0 || ne > cap)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i,
                          aicf__op_in_name(c, i), what, (long long)ne, cap);
    esz = aicf_dtype_size(t->dtype);
    if (t->data_bytes < (size_t)ne * esz)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds %zu bytes, needs %zu", i,
                          aicf__op_in_name(c, i), what, t->data_bytes, (size_t)ne * esz);
    for (k = 0; k < ne; k++) {
        if (esz == 8) {
            memcpy(&vals[k], (const unsigned char*)t->data + k * 8, 8);
        } else {
            int32_t v32;
            memcpy(&v32, (const unsigned char*)t->data + k * 4, 4);
            vals[k] = v32;
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* Normalises axis `a` of a rank-r tensor to [0, r); error when outside [-r, r). */
static aicf_result aicf__op_axis(const aicf__opc* c, const char* what, int64_t a, int r, int* out) {
    *out = 0;
    if (a < -(int64_t)r || a >= (int64_t)r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s %lld is out of range for rank %d", what, (long long)a, r);
    *out = (int)(a < 0 ? a + r : a);
    return AICF_SUCCESS;
}

static int64_t aicf__op_prod(const int64_t* d, int from, int to) {
    int64_t p = 1;
    int i;
    for (i = from; i < to; i++) p *= d[i];
    return p;
}

static void aicf__op_shape_set(aicf__shape* s, int rank, const int64_t* d) {
    int i;
    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (i = 0; i < rank; i++) s->d[i] = d[i];
}

/* Element count of a (validated) shape as size_t. */
static size_t aicf__op_numel(const aicf__shape* s) {
    int64_t n = aicf__shape_numel(s);
    return n < 0 ? 0 : (size_t)n;
}

static size_t aicf__op_tbytes(const aicf__tensor* t) {
    return aicf__op_numel(&t->shape) * aicf_dtype_size(t->dtype);
}

/* ---- broadcasting ---- */

/* Multidirectional (numpy) broadcast of a and b into out; 0 when incompatible. */
static int aicf__op_bcast2(const aicf__shape* a, const aicf__shape* b, aicf__shape* out) {
    int r = AICF__MAX(a->rank, b->rank), i;
    aicf__shape o;
    memset(&o, 0, sizeof o);
    o.rank = r;
    for (i = 0; i < r; i++) {
        int ia = a->rank - r + i, ib = b->rank - r + i;
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        if (da == db || db == 1) o.d[i] = da;
        else if (da == 1) o.d[i] = db;
        else return 0;
    }
    *out = o;
    return 1;
}

/* Element strides of `in` read as the (broadcast) shape `out`: 0 along broadcast dims. */
static void aicf__op_bcast_strides(const aicf__shape* in, const aicf__shape* out, int64_t* st) {
    int i, r = out->rank;
    int64_t s = 1;
    for (i = r - 1; i >= 0; i--) {
        int ii = in->rank - r + i;
        if (ii < 0 || in->d[ii] == 1) st[i] = 0;
        else st[i] = s;
        if (ii >= 0) s *= in->d[ii];
    }
}

/* Odometer over the leading rank-1 dims of a shape, tracking offsets into up to 3 operands. */
typedef struct aicf__op_iter {
    int r;               /* rank - 1 outer dims */
    int64_t idx[AICF_MAX_RANK];
    const int64_t* dims;
    const int64_t* st[3];
    int64_t off[3];
    int nop;
} aicf__op_iter;

static void aicf__op_iter_init(aicf__op_iter* it, const aicf__shape* s, int nop, const int64_t* st0, const int64_t* st1,
                            const int64_t* st2) {
    memset(it, 0, sizeof *it);
    it->r = s->rank > 0 ? s->rank - 1 : 0;
    it->dims = s->d;
    it->nop = nop;
    it->st[0] = st0;
    it->st[1] = st1;
    it->st[2] = st2;
}

static void aicf__op_iter_next(aicf__op_iter* it) {
    int d, k;
    for (d = it->r - 1; d >= 0; d--) {
        it->idx[d]++;
        for (k = 0; k < it->nop; k++) it->off[k] += it->st[k][d];
        if (it->idx[d] < it->dims[d]) return;
        for (k = 0; k < it->nop; k++) it->off[k] -= it->st[k][d] * it->dims[d];
        it->idx[d] = 0;
    }
}

/* Element odometer over a shape, tracking offsets into up to 3 operands. */
typedef struct aicf__op_ix {
    int r;
    int n;
    const int64_t* d;
    int64_t idx[AICF_MAX_RANK];
    int64_t st[3][AICF_MAX_RANK];
    int64_t off[3];
} aicf__op_ix;

static void aicf__op_ix_init(aicf__op_ix* it, const aicf__shape* s, int n) {
    memset(it, 0, sizeof *it);
    it->r = s->rank;
    it->n = n;
    it->d = s->d;
}

static void aicf__op_ix_next(aicf__op_ix* it) {
    int k, j;
    for (k = it->r - 1; k >= 0; k--) {
        for (j = 0; j < it->n; j++) it->off[j] += it->st[j][k];
        if (++it->idx[k] < it->d[k]) return;
        for (j = 0; j < it->n; j++) it->off[j] -= it->st[j][k] * it->d[k];
        it->idx[k] = 0;
    }
}

/* Row-major element strides of a shape. */
static void aicf__op_strides(const aicf__shape* s, int64_t* st) {
    int i;
    int64_t m = 1;
    for (i = s->rank - 1; i >= 0; i--) {
        st[i] = m;
        m *= s->d[i];
    }
}

/* ============================================================================================
   Elementwise ops
   ============================================================================================ */

/* log(1 + e^x) without overflow */
static float aicf__op_softplus(float x) {
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
}

static float aicf__op_unary_f(aicf__op op, float x, float alpha, float beta) {
    switch (op) {
    case AICF__OP_Relu: return x < 0.0f ? 0.0f : x;
    case AICF__OP_Tanh: return tanhf(x);
    case AICF__OP_Sigmoid:
        if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
        else {
            float e = expf(x);
            return e / (1.0f + e);
        }
    case AICF__OP_Exp: return expf(x);
    case AICF__OP_Log: return logf(x);
    case AICF__OP_Sqrt: return sqrtf(x);
    case AICF__OP_Neg: return -x;
    case AICF__OP_Abs: return fabsf(x);
    case AICF__OP_Reciprocal: return 1.0f / x;
    case AICF__OP_Erf: return erff(x);
    case AICF__OP_LeakyRelu: return x < 0.0f ? alpha * x : x;
    case AICF__OP_Elu: return x < 0.0f ? alpha * expm1f(x) : x;
    case AICF__OP_HardSigmoid: {
        float v = alpha * x + beta;
        return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case AICF__OP_HardSwish: {
        float v = x * (1.0f / 6.0f) + 0.5f;
        v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
        return x * v;
    }
    case AICF__OP_Clip: {
        float v = x < alpha ? alpha : x; /* NaN stays NaN */
        return v > beta ? beta : v;
    }
    case AICF__OP_Floor: return floorf(x);
    case AICF__OP_Ceil: return ceilf(x);
    case AICF__OP_Round: return rintf(x); /* halves to even (the default rounding mode) */
    case AICF__OP_Sign: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
    case AICF__OP_Softplus: return aicf__op_softplus(x);
    case AICF__OP_Softsign: return x / (1.0f + fabsf(x));
    case AICF__OP_Selu: return x > 0.0f ? beta * x : beta * alpha * expm1f(x);
    case AICF__OP_Celu: return (x > 0.0f ? x : 0.0f) + (x < 0.0f ? alpha * expm1f(x / alpha) : 0.0f);
    case AICF__OP_ThresholdedRelu: return x > alpha ? x : 0.0f;
    case AICF__OP_Sin: return sinf(x);
    case AICF__OP_Cos: return cosf(x);
    case AICF__OP_Tan: return tanf(x);
    case AICF__OP_Asin: return asinf(x);
    case AICF__OP_Acos: return acosf(x);
    case AICF__OP_Atan: return atanf(x);
    case AICF__OP_Sinh: return sinhf(x);
    case AICF__OP_Cosh: return coshf(x);
    case AICF__OP_Asinh: return asinhf(x);
    case AICF__OP_Acosh: return acoshf(x);
    case AICF__OP_Atanh: return atanhf(x);
    case AICF__OP_Gelu:
        if (alpha != 0.0f) { /* approximate = "tanh" */
            float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
            return 0.5f * x * (1.0f + tanhf(u));
        }
        return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case AICF__OP_Mish: return x * tanhf(aicf__op_softplus(x));
    case AICF__OP_Shrink: return x < -alpha ? x + beta : (x > alpha ? x - beta : 0.0f);
    case AICF__OP_Swish: return x * aicf__op_unary_f(AICF__OP_Sigmoid, alpha * x, 0.0f, 0.0f);
    default: return x;
    }
}

/* alpha/beta of the parametrised unary ops (Clip: min/max from the attributes of opset < 11). */
static aicf_result aicf__op_unary_params(const aicf__opc* c, float* alpha, float* beta) {
    *alpha = 0.0f;
    *beta = 0.0f;
    switch (c->n->op) {
    case AICF__OP_LeakyRelu: return aicf__op_af(c, "alpha", 0.01f, alpha);
    case AICF__OP_Elu: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_HardSigmoid:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 0.2f, alpha));
        return aicf__op_af(c, "beta", 0.5f, beta);
    case AICF__OP_Clip:
        if (c->opset < 11) {
            AICF__OP_TRY(aicf__op_af(c, "min", -3.402823466e+38f, alpha));
            return aicf__op_af(c, "max", 3.402823466e+38f, beta);
        }
        *alpha = -INFINITY;
        *beta = INFINITY;
        return AICF_SUCCESS;
    case AICF__OP_Selu:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 1.67326319217681884765625f, alpha));
        return aicf__op_af(c, "gamma", 1.05070102214813232421875f, beta);
    case AICF__OP_Celu:
        AICF__OP_TRY(aicf__op_af(c, "alpha", 1.0f, alpha));
        if (*alpha == 0.0f) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'alpha' must not be 0");
        return AICF_SUCCESS;
    case AICF__OP_ThresholdedRelu: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_Swish: return aicf__op_af(c, "alpha", 1.0f, alpha);
    case AICF__OP_Shrink:
        AICF__OP_TRY(aicf__op_af(c, "lambd", 0.5f, alpha));
        return aicf__op_af(c, "bias", 0.0f, beta);
    case AICF__OP_Gelu: {
        const char* ap;
        AICF__OP_TRY(aicf__op_as(c, "approximate", "none", &ap));
        if (!strcmp(ap, "tanh")) *alpha = 1.0f;
        else if (strcmp(ap, "none") != 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'approximate' is '%.40s'; expected none or tanh", ap);
        return AICF_SUCCESS;
    }
    default: return AICF_SUCCESS;
    }
}

/* Unary ops that also take signed integers (computed exactly in int64). */
static int aicf__op_unary_int_ok(aicf__op op) {
    return op == AICF__OP_Neg || op == AICF__OP_Abs || op == AICF__OP_Sign || op == AICF__OP_Relu;
}

static aicf_result aicf__op_infer_unary(const aicf__opc* c) {
    const aicf__tensor* x;
    float a, b;
    int max_in = 1;
    if (c->n->op == AICF__OP_Clip && c->opset >= 11) max_in = 3;
    AICF__OP_TRY(aicf__op_check_io(c, 1, max_in, 1, 1));
    if (c->n->op == AICF__OP_Clip && c->opset >= 11)
        AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32 | AICF__OP_DTM_INTS));
    else
        AICF__OP_TRY(aicf__op_check_dt(c, 0, aicf__op_unary_int_ok(c->n->op) ? AICF__OP_DTM_F32 | AICF__OP_DTM_SINT : AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_unary_params(c, &a, &b));
    if (c->n->op == AICF__OP_Clip) {
        int i;
        for (i = 1; i < 3; i++) {
            const aicf__tensor* t = aicf__op_in(c, i);
            if (!t) continue;
            AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
            if (aicf__shape_numel(&t->shape) != 1) {
                char buf[160];
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) must be a scalar, has shape %s", i,
                                  aicf__op_in_name(c, i), i == 1 ? "min" : "max",
                                  aicf__op_sstr(&t->shape, buf, sizeof buf));
            }
        }
    }
    x = aicf__op_in(c, 0);
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_unary(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    size_t n = aicf__op_numel(&x->shape), i;
    const float* xp = (const float*)in[0];
    float* yp = (float*)out[0];
    float a, b;
    aicf__op op = c->n->op;
    AICF__OP_TRY(aicf__op_unary_params(c, &a, &b));
    if (x->dtype != AICF_DTYPE_FLOAT32) { /* integers: Neg, Abs, Sign, Relu (signed), Clip */
        int64_t lo = aicf__op_int_limit(x->dtype, 0), hi = aicf__op_int_limit(x->dtype, 1);
        int uns = x->dtype == AICF_DTYPE_UINT64;
        if (op == AICF__OP_Clip) {
            if (aicf__op_in(c, 1) && in[1]) lo = aicf__op_geti(x->dtype, in[1], 0);
            if (aicf__op_in(c, 2) && in[2]) hi = aicf__op_geti(x->dtype, in[2], 0);
        }
        for (i = 0; i < n; i++) {
            int64_t v = aicf__op_geti(x->dtype, in[0], (int64_t)i), r;
            switch (op) {
            case AICF__OP_Clip:
                r = (uns ? (uint64_t)v < (uint64_t)lo : v < lo) ? lo : v;
                r = (uns ? (uint64_t)r > (uint64_t)hi : r > hi) ? hi : r;
                break;
            case AICF__OP_Neg: r = (int64_t)(0 - (uint64_t)v); break;
            case AICF__OP_Abs: r = v < 0 ? (int64_t)(0 - (uint64_t)v) : v; break;
            case AICF__OP_Sign: r = v > 0 ? 1 : (v < 0 ? -1 : 0); break;
            default: r = v < 0 ? 0 : v; break;
            }
            aicf__op_seti(x->dtype, out[0], (int64_t)i, r);
        }
        return AICF_SUCCESS;
    }
    if (op == AICF__OP_Clip && c->opset >= 11) {
        if (aicf__op_in(c, 1) && in[1]) memcpy(&a, in[1], sizeof(float));
        if (aicf__op_in(c, 2) && in[2]) memcpy(&b, in[2], sizeof(float));
    }
    for (i = 0; i < n; i++) yp[i] = aicf__op_unary_f(op, xp[i], a, b);
    return AICF_SUCCESS;
}

/* ---- binary and variadic ops with broadcasting ---- */

static int aicf__op_is_variadic(aicf__op op) {
    return op == AICF__OP_Sum || op == AICF__OP_Max || op == AICF__OP_Min || op == AICF__OP_Mean;
}

/* Shape of input i as it takes part in the broadcast: before opset 7, Add/Sub/Mul/Div/Pow
   broadcast only with broadcast=1, aligning B at `axis` (default: the trailing dims). */
static aicf_result aicf__op_bin_in_shape(const aicf__opc* c, int i, aicf__shape* s) {
    const aicf__tensor* t = aicf__op_in(c, i);
    *s = t->shape;
    if (c->opset < 7 && !aicf__op_is_variadic(c->n->op) && i == 1) {
        const aicf__tensor* a = aicf__op_in(c, 0);
        int64_t bc, axis;
        char b1[160], b2[160];
        AICF__OP_TRY(aicf__op_ai(c, "broadcast", 0, &bc));
        if (!bc) {
            int k, same = a->shape.rank == t->shape.rank;
            for (k = 0; same && k < a->shape.rank; k++) same = a->shape.d[k] == t->shape.d[k];
            if (!same)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 shape %s differs from input 0 shape %s and broadcast=0",
                                  aicf__op_sstr(&t->shape, b1, sizeof b1), aicf__op_sstr(&a->shape, b2, sizeof b2));
            return AICF_SUCCESS;
        }
        if (aicf__attr(c->n, "axis")) {
            int ax, k;
            AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
            if (t->shape.rank > a->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 has rank %d > input 0 rank %d", t->shape.rank, a->shape.rank);
            AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, a->shape.rank, &ax));
            if (ax + t->shape.rank > a->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 shape %s does not fit input 0 shape %s at axis %d",
                                  aicf__op_sstr(&t->shape, b1, sizeof b1), aicf__op_sstr(&a->shape, b2, sizeof b2), ax);
            memset(s, 0, sizeof *s);
            s->rank = a->shape.rank;
            for (k = 0; k < s->rank; k++) s->d[k] = 1;
            for (k = 0; k < t->shape.rank; k++) s->d[ax + k] = t->shape.d[k];
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_binary(const aicf__opc* c) {
    aicf__op op = c->n->op;
    int nin, i;
    unsigned mask = AICF__OP_DTM_F32;
    aicf__shape o, s;
    char b1[160], b2[160];
    if (aicf__op_is_variadic(op)) AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    nin = aicf__op_nin(c->n);
    if (op == AICF__OP_Pow) mask = AICF__OP_DTM_F32 | AICF__OP_DTM_INT; /* the exponent may have another type */
    else if (op != AICF__OP_Mean) mask = AICF__OP_DTM_F32 | AICF__OP_DTM_INTS;
    if (op == AICF__OP_Max || op == AICF__OP_Min) mask |= AICF__OP_DTM_FLOATS; /* exact selections */
    for (i = 0; i < nin; i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        if (op == AICF__OP_Pow && i == 1) {
            AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32 | AICF__OP_DTM_INTS | AICF__OP_DTM(AICF_DTYPE_FLOAT64)));
            continue;
        }
        AICF__OP_TRY(aicf__op_check_dt(c, i, mask));
        AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    }
    o = aicf__op_in(c, 0)->shape;
    for (i = 1; i < nin; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        if (!aicf__op_bcast2(&o, &s, &o))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s cannot be broadcast with %s", i,
                              aicf__op_in_name(c, i), aicf__op_sstr(&s, b1, sizeof b1), aicf__op_sstr(&o, b2, sizeof b2));
    }
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static float aicf__op_bin_f(aicf__op op, float a, float b) {
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum:
    case AICF__OP_Mean: return a + b;
    case AICF__OP_Sub: return a - b;
    case AICF__OP_Mul: return a * b;
    case AICF__OP_Div: return a / b;
    case AICF__OP_Pow: return powf(a, b);
    case AICF__OP_Max:
        if (a != a || b != b) return a + b; /* NaN propagates, as numpy.maximum */
        return a > b ? a : b;
    case AICF__OP_Min:
        if (a != a || b != b) return a + b;
        return a < b ? a : b;
    default: return 0.0f;
    }
}

/* ---- epilogues of fused steps (aicf__fuse in >>plan) ---- */

int aicf__op_epilogue_kind(aicf_graph* g, int ni, float* alpha, float* beta) {
    aicf__opc c;
    const aicf__node* n;
    int i;
    *alpha = *beta = 0.0f;
    if (!g || ni < 0 || ni >= g->n_nodes) return 0;
    aicf__opc_init(&c, g, ni);
    n = c.n;
    if (n->removed || n->n_out < 1 || n->out[0] < 0) return 0;
    for (i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0) return 0;
    if (g->tensors[n->out[0]].dtype != AICF_DTYPE_FLOAT32) return 0;
    for (i = 0; i < n->n_in; i++)
        if (n->in[i] < 0 || g->tensors[n->in[i]].dtype != AICF_DTYPE_FLOAT32) {
            if (!(n->op == AICF__OP_Clip && i > 0 && n->in[i] < 0)) return 0;
        }
    switch (n->op) {
    case AICF__OP_Add: case AICF__OP_Sub: case AICF__OP_Mul: case AICF__OP_Div: case AICF__OP_Pow:
    case AICF__OP_Max: case AICF__OP_Min:
        /* before opset 7 the second input broadcast only with broadcast=1 and an axis */
        if (n->n_in != 2 || (c.opset < 7 && aicf__attr(n, "broadcast"))) return 0;
        return 2;
    case AICF__OP_PRelu: return n->n_in == 2 ? 2 : 0;
    case AICF__OP_Clip:
        if (aicf__op_unary_params(&c, alpha, beta) != AICF_SUCCESS) return 0;
        if (c.opset >= 11) { /* min/max inputs: only as plan-time constants */
            for (i = 1; i < n->n_in && i < 3; i++) {
                const aicf__tensor* t = n->in[i] >= 0 ? &g->tensors[n->in[i]] : NULL;
                if (!t) continue;
                if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes != sizeof(float)) return 0;
                memcpy(i == 1 ? alpha : beta, t->data, sizeof(float));
            }
        }
        return n->n_in <= 3 ? 1 : 0;
    case AICF__OP_Relu: case AICF__OP_Tanh: case AICF__OP_Sigmoid: case AICF__OP_Exp: case AICF__OP_Log:
    case AICF__OP_Sqrt: case AICF__OP_Neg: case AICF__OP_Abs: case AICF__OP_Reciprocal: case AICF__OP_Erf:
    case AICF__OP_LeakyRelu: case AICF__OP_Elu: case AICF__OP_HardSigmoid: case AICF__OP_HardSwish:
    case AICF__OP_Floor: case AICF__OP_Ceil: case AICF__OP_Round: case AICF__OP_Sign: case AICF__OP_Softplus:
    case AICF__OP_Softsign: case AICF__OP_Selu: case AICF__OP_Celu: case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin: case AICF__OP_Cos: case AICF__OP_Tan: case AICF__OP_Asin: case AICF__OP_Acos:
    case AICF__OP_Atan: case AICF__OP_Sinh: case AICF__OP_Cosh: case AICF__OP_Asinh: case AICF__OP_Acosh:
    case AICF__OP_Atanh: case AICF__OP_Gelu: case AICF__OP_Mish: case AICF__OP_Shrink: case AICF__OP_Swish:
        if (n->n_in != 1) return 0;
        return aicf__op_unary_params(&c, alpha, beta) == AICF_SUCCESS ? 1 : 0;
    default: return 0;
    }
}

float aicf__op_epi_unary(aicf__op op, float x, float alpha, float beta) { return aicf__op_unary_f(op, x, alpha, beta); }

float aicf__op_epi_binary(aicf__op op, float a, float b) {
    if (op == AICF__OP_PRelu) return a < 0.0f ? b * a : a; /* a: X, b: slope (as aicf__op_run_prelu) */
    return aicf__op_bin_f(op, a, b);
}

aicf_result aicf__cpu_epilogue(const aicf_graph* g, const aicf__epi* epi, int n_epi, float* y, const aicf__shape* ys,
                               const void* const* operands) {
    int64_t n = aicf__shape_numel(ys), e;
    int k;
    if (n < 0) return AICF_ERROR_SHAPE;
    for (k = 0; k < n_epi; k++) {
        const aicf__epi* ep = &epi[k];
        if (ep->operand < 0) {
            for (e = 0; e < n; e++) y[e] = aicf__op_unary_f(ep->op, y[e], ep->alpha, ep->beta);
        } else {
            const unsigned char* o = (const unsigned char*)operands[k]; /* may be unaligned (borrowed file data) */
            float ov;
            aicf__op_ix it;
            if (!o) return AICF_ERROR_INVALID_ARGUMENT;
            aicf__op_ix_init(&it, ys, 1);
            aicf__op_bcast_strides(&g->tensors[ep->operand].shape, ys, it.st[0]);
            if (ep->operand_left)
                for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
                    memcpy(&ov, o + (size_t)it.off[0] * sizeof(float), sizeof ov);
                    y[e] = aicf__op_epi_binary(ep->op, ov, y[e]);
                }
            else
                for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
                    memcpy(&ov, o + (size_t)it.off[0] * sizeof(float), sizeof ov);
                    y[e] = aicf__op_epi_binary(ep->op, y[e], ov);
                }
        }
    }
    return AICF_SUCCESS;
}

/* Integer arithmetic wraps (two's complement) like ONNX Runtime and numpy; Div truncates.
   uint64 values travel as their bits: Div, Max and Min compare them unsigned. */
static int64_t aicf__op_bin_i(aicf__op op, aicf_dtype dt, int64_t a, int64_t b) {
    if (dt == AICF_DTYPE_UINT64 && (op == AICF__OP_Div || op == AICF__OP_Max || op == AICF__OP_Min)) {
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
        if (op == AICF__OP_Div) return ub ? (int64_t)(ua / ub) : 0;
        return (op == AICF__OP_Max) == (ua > ub) ? a : b;
    }
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum: return (int64_t)((uint64_t)a + (uint64_t)b);
    case AICF__OP_Sub: return (int64_t)((uint64_t)a - (uint64_t)b);
    case AICF__OP_Mul: return (int64_t)((uint64_t)a * (uint64_t)b);
    case AICF__OP_Div:
        if (b == -1) return (int64_t)(0 - (uint64_t)a);
        return b ? a / b : 0; /* division by zero is rejected before */
    case AICF__OP_Max: return a > b ? a : b;
    case AICF__OP_Min: return a < b ? a : b;
    default: return 0;
    }
}


/* y = op(a, b) over shape os, with a and b read through broadcast strides. */
static void aicf__op_bin_apply(aicf__op op, aicf_dtype dt, const void* a, const int64_t* sta, const void* b,
                            const int64_t* stb, void* y, const aicf__shape* os) {
    int64_t n = aicf__shape_numel(os), inner = os->rank > 0 ? os->d[os->rank - 1] : 1, rows, r, j;
    int64_t ia = os->rank > 0 ? sta[os->rank - 1] : 0, ib = os->rank > 0 ? stb[os->rank - 1] : 0;
    aicf__op_iter it;
    if (n <= 0) return;
    rows = n / inner;
    aicf__op_iter_init(&it, os, 2, sta, stb, NULL);
    for (r = 0; r < rows; r++) {
        int64_t oa = it.off[0], ob = it.off[1], oy = r * inner;
        if (dt == AICF_DTYPE_FLOAT32) {
            const float* ap = (const float*)a;
            const float* bp = (const float*)b;
            float* yp = (float*)y;
            for (j = 0; j < inner; j++) yp[oy + j] = aicf__op_bin_f(op, ap[oa + j * ia], bp[ob + j * ib]);
        } else if (aicf__op_dt_isfloat(dt)) { /* Max/Min of float16/bfloat16/float64: exact */
            for (j = 0; j < inner; j++) {
                double x = aicf__op_getd(dt, a, oa + j * ia), z = aicf__op_getd(dt, b, ob + j * ib);
                int pick_b = x != x ? 0 : (z != z ? 1 : (op == AICF__OP_Max ? z > x : z < x));
                aicf__op_copy_el(y, oy + j, pick_b ? b : a, pick_b ? ob + j * ib : oa + j * ia, aicf_dtype_size(dt));
            }
        } else {
            for (j = 0; j < inner; j++)
                aicf__op_seti(dt, y, oy + j, aicf__op_bin_i(op, dt, aicf__op_geti(dt, a, oa + j * ia), aicf__op_geti(dt, b, ob + j * ib)));
        }
        aicf__op_iter_next(&it);
    }
}

/* Pow with an integer base or an exponent of another type: integer ** integer is exact (by
   squaring, wrapping; a negative exponent truncates 1 / a^-b toward zero); otherwise pow in
   double, converted to the base's type (truncation for integers, as numpy's astype). */
static aicf_result aicf__op_run_pow_mixed(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype, et = aicf__op_in(c, 1)->dtype;
    int64_t n = aicf__shape_numel(&y->shape), e;
    aicf__op_ix it;
    aicf__shape sa, sb;
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 0, &sa));
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 1, &sb));
    aicf__op_ix_init(&it, &y->shape, 2);
    aicf__op_bcast_strides(&sa, &y->shape, it.st[0]);
    aicf__op_bcast_strides(&sb, &y->shape, it.st[1]);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (!aicf__op_dt_isfloat(dt) && !aicf__op_dt_isfloat(et)) {
            int64_t a = aicf__op_geti(dt, in[0], it.off[0]), b = aicf__op_geti(et, in[1], it.off[1]);
            uint64_t r = 1, base = (uint64_t)a;
            if (b < 0) {
                r = a == 1 ? 1 : (a == -1 ? (b % 2 ? (uint64_t)-1 : 1) : 0);
            } else {
                while (b) {
                    if (b & 1) r *= base;
                    base *= base;
                    b >>= 1;
                }
            }
            aicf__op_seti(dt, out[0], e, (int64_t)r);
        } else {
            aicf__op_setd(dt, out[0], e, pow(aicf__op_getd(dt, in[0], it.off[0]), aicf__op_getd(et, in[1], it.off[1])));
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_binary(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf__op op = c->n->op;
    aicf_dtype dt = y->dtype;
    int nin = aicf__op_nin(c->n), i;
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK];
    aicf__shape sa, sb;
    if (op == AICF__OP_Pow && (dt != AICF_DTYPE_FLOAT32 || aicf__op_in(c, 1)->dtype != AICF_DTYPE_FLOAT32))
        return aicf__op_run_pow_mixed(c, in, out);
    if (op == AICF__OP_Div && !aicf__op_dt_isfloat(dt)) {
        const aicf__tensor* bt = aicf__op_in(c, 1);
        int64_t k, nb = aicf__shape_numel(&bt->shape);
        for (k = 0; k < nb; k++)
            if (aicf__op_geti(dt, in[1], k) == 0)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "integer division by zero (input 1 '%.200s' element %lld)",
                                  aicf__op_in_name(c, 1), (long long)k);
    }
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 0, &sa));
    aicf__op_bcast_strides(&sa, &y->shape, sta);
    if (nin == 1) {
        /* one-input Sum/Max/Min/Mean: a copy */
        memcpy(out[0], in[0], aicf__op_tbytes(y));
        return AICF_SUCCESS;
    }
    AICF__OP_TRY(aicf__op_bin_in_shape(c, 1, &sb));
    aicf__op_bcast_strides(&sb, &y->shape, stb);
    aicf__op_bin_apply(op, dt, in[0], sta, in[1], stb, out[0], &y->shape);
    /* Sum/Max/Min of more inputs: fold each into the output in place */
    for (i = 2; i < nin; i++) {
        aicf__op_shape_set(&sa, y->shape.rank, y->shape.d);
        aicf__op_bcast_strides(&sa, &y->shape, sta);
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &sb));
        aicf__op_bcast_strides(&sb, &y->shape, stb);
        aicf__op_bin_apply(op, dt, out[0], sta, in[i], stb, out[0], &y->shape);
    }
    if (op == AICF__OP_Mean) {
        size_t n = aicf__op_numel(&y->shape), k;
        for (k = 0; k < n; k++) ((float*)out[0])[k] /= (float)nin;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   MatMul, Gemm
   ============================================================================================ */

/* MatMul geometry (numpy matmul): batch dims broadcast, 1-D operands promoted and dropped. */
typedef struct aicf__op_mm {
    int64_t M, N, K;
    aicf__shape batch;                  /* broadcast batch shape */
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK]; /* matrix strides per batch dim */
    aicf__shape out;
} aicf__op_mm;

static aicf_result aicf__op_mm_make(const aicf__opc* c, aicf__op_mm* m) {
    const aicf__tensor* a = aicf__op_in(c, 0);
    const aicf__tensor* b = aicf__op_in(c, 1);
    int ra = a->shape.rank, rb = b->shape.rank, k;
    int64_t kb;
    aicf__shape ba, bb;
    char b1[160], b2[160];
    memset(m, 0, sizeof *m);
    if (ra < 1 || rb < 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' is a scalar; MatMul needs rank >= 1", ra < 1 ? 0 : 1,
                          aicf__op_in_name(c, ra < 1 ? 0 : 1));
    m->M = ra >= 2 ? a->shape.d[ra - 2] : 1;
    m->K = a->shape.d[ra - 1];
    kb = rb >= 2 ? b->shape.d[rb - 2] : b->shape.d[0];
    m->N = rb >= 2 ? b->shape.d[rb - 1] : 1;
    if (kb != m->K)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' shape %s does not match input 0 shape %s (K = %lld vs %lld)",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&b->shape, b1, sizeof b1),
                          aicf__op_sstr(&a->shape, b2, sizeof b2), (long long)kb, (long long)m->K);
    aicf__op_shape_set(&ba, ra >= 2 ? ra - 2 : 0, a->shape.d);
    aicf__op_shape_set(&bb, rb >= 2 ? rb - 2 : 0, b->shape.d);
    if (!aicf__op_bcast2(&ba, &bb, &m->batch))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "batch dims of input 0 %s and input 1 %s cannot be broadcast",
                          aicf__op_sstr(&a->shape, b1, sizeof b1), aicf__op_sstr(&b->shape, b2, sizeof b2));
    aicf__op_bcast_strides(&ba, &m->batch, m->sta);
    aicf__op_bcast_strides(&bb, &m->batch, m->stb);
    for (k = 0; k < m->batch.rank; k++) {
        m->sta[k] *= m->M * m->K;
        m->stb[k] *= m->K * m->N;
    }
    m->out = m->batch;
    if (ra >= 2) m->out.d[m->out.rank++] = m->M;
    if (rb >= 2) m->out.d[m->out.rank++] = m->N;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_matmul(const aicf__opc* c) {
    aicf__op_mm m;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_mm_make(c, &m));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &m.out);
}

/* y[M,N] = A[M,K] B[K,N] with row-major leading dims; float32 accumulation in k order. */
static void aicf__op_gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t sam, int64_t sak, const float* B,
                           int64_t sbk, int64_t sbn, float* Y) {
    int64_t i, j, k;
    for (i = 0; i < M; i++) {
        float* y = Y + i * N;
        for (j = 0; j < N; j++) y[j] = 0.0f;
        for (k = 0; k < K; k++) {
            float av = A[i * sam + k * sak];
            const float* b = B + k * sbk;
            for (j = 0; j < N; j++) y[j] += av * b[j * sbn];
        }
    }
}

static aicf_result aicf__op_run_matmul(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_mm m;
    int64_t nb, bi, k;
    int64_t idx[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_mm_make(c, &m));
    nb = aicf__shape_numel(&m.batch);
    memset(idx, 0, sizeof idx);
    for (bi = 0; bi < nb; bi++) {
        int64_t oa = 0, ob = 0;
        for (k = 0; k < m.batch.rank; k++) {
            oa += idx[k] * m.sta[k];
            ob += idx[k] * m.stb[k];
        }
        aicf__op_gemm_f32(m.M, m.N, m.K, (const float*)in[0] + oa, m.K, 1, (const float*)in[1] + ob, m.N, 1,
                       (float*)out[0] + bi * m.M * m.N);
        for (k = m.batch.rank - 1; k >= 0; k--) {
            if (++idx[k] < m.batch.d[k]) break;
            idx[k] = 0;
        }
    }
    return AICF_SUCCESS;
}

typedef struct aicf__op_gemm {
    int64_t M, N, K, ta, tb;
    float alpha, beta;
    int64_t stc[2]; /* strides of C read as [M,N] */
    int has_c;
} aicf__op_gemm;

static aicf_result aicf__op_gemm_make(const aicf__opc* c, aicf__op_gemm* m) {
    const aicf__tensor* a = aicf__op_in(c, 0);
    const aicf__tensor* b = aicf__op_in(c, 1);
    const aicf__tensor* ct = aicf__op_in(c, 2);
    int64_t kb;
    char b1[160], b2[160];
    memset(m, 0, sizeof *m);
    AICF__OP_TRY(aicf__op_ai(c, "transA", 0, &m->ta));
    AICF__OP_TRY(aicf__op_ai(c, "transB", 0, &m->tb));
    AICF__OP_TRY(aicf__op_af(c, "alpha", 1.0f, &m->alpha));
    AICF__OP_TRY(aicf__op_af(c, "beta", 1.0f, &m->beta));
    if (a->shape.rank != 2 || b->shape.rank != 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "inputs A and B must be 2-D, have shapes %s and %s",
                          aicf__op_sstr(&a->shape, b1, sizeof b1), aicf__op_sstr(&b->shape, b2, sizeof b2));
    m->M = m->ta ? a->shape.d[1] : a->shape.d[0];
    m->K = m->ta ? a->shape.d[0] : a->shape.d[1];
    kb = m->tb ? b->shape.d[1] : b->shape.d[0];
    m->N = m->tb ? b->shape.d[0] : b->shape.d[1];
    if (kb != m->K)
        return aicf__op_err(c, AICF_ERROR_SHAPE,
                          "input 1 '%.200s' shape %s does not match input 0 shape %s (K = %lld vs %lld, transA=%d transB=%d)",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&b->shape, b1, sizeof b1),
                          aicf__op_sstr(&a->shape, b2, sizeof b2), (long long)kb, (long long)m->K, (int)m->ta, (int)m->tb);
    if (ct) {
        aicf__shape mn;
        int i;
        int64_t d[2];
        d[0] = m->M;
        d[1] = m->N;
        aicf__op_shape_set(&mn, 2, d);
        if (ct->shape.rank > 2)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (C) shape %s cannot be broadcast to [%lld,%lld]",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&ct->shape, b1, sizeof b1), (long long)m->M,
                              (long long)m->N);
        for (i = 0; i < ct->shape.rank; i++) {
            int64_t want = mn.d[2 - ct->shape.rank + i], have = ct->shape.d[i];
            if (have != want && have != 1)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (C) shape %s cannot be broadcast to [%lld,%lld]",
                                  aicf__op_in_name(c, 2), aicf__op_sstr(&ct->shape, b1, sizeof b1), (long long)m->M,
                                  (long long)m->N);
        }
        aicf__op_bcast_strides(&ct->shape, &mn, m->stc);
        m->has_c = 1;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gemm(const aicf__opc* c) {
    aicf__op_gemm m;
    aicf__shape o;
    int64_t d[2];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_gemm_make(c, &m));
    d[0] = m.M;
    d[1] = m.N;
    aicf__op_shape_set(&o, 2, d);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_gemm(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_gemm m;
    const float* A = (const float*)in[0];
    const float* B = (const float*)in[1];
    const float* C = (const float*)in[2];
    float* Y = (float*)out[0];
    int64_t i, j;
    AICF__OP_TRY(aicf__op_gemm_make(c, &m));
    /* A[M,K] element (i,k): transA ? A[k*M + i] : A[i*K + k]; likewise B */
    aicf__op_gemm_f32(m.M, m.N, m.K, A, m.ta ? 1 : m.K, m.ta ? m.M : 1, B, m.tb ? 1 : m.N, m.tb ? m.K : 1, Y);
    for (i = 0; i < m.M; i++)
        for (j = 0; j < m.N; j++) {
            float v = m.alpha * Y[i * m.N + j];
            if (m.has_c && m.beta != 0.0f && C) v += m.beta * C[i * m.stc[0] + j * m.stc[1]];
            Y[i * m.N + j] = v;
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Conv and pooling: sliding windows over 1-3 spatial dims
   ============================================================================================ */

typedef struct aicf__op_win {
    int nsp;                    /* spatial dims of the data (1..3) */
    int64_t N, C;
    /* normalised to 3 spatial dims; the leading 3 - nsp have size 1 */
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
} aicf__op_win;

/* Reads auto_pad/pads/strides/dilations (and ceil_mode for pools) and computes the output
   size of every spatial dim. kshape: nsp kernel dims. */
static aicf_result aicf__op_win_make(const aicf__opc* c, const aicf__shape* x, const int64_t* kshape, int is_pool, aicf__op_win* w) {
    int nsp = x->rank - 2, i, o, cnt;
    const int64_t* v;
    const char* ap;
    int64_t ceil_mode = 0;
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > 3)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->rank);
    w->nsp = nsp;
    w->N = x->d[0];
    w->C = x->d[1];
    for (i = 0; i < 3; i++) {
        w->in[i] = w->out[i] = w->k[i] = w->s[i] = w->d[i] = 1;
        w->pb[i] = w->pe[i] = 0;
    }
    o = 3 - nsp;
    for (i = 0; i < nsp; i++) {
        if (kshape[i] < 1 || kshape[i] > AICF__OP_MAX_WINDOW)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "kernel_shape[%d] = %lld is out of range", i, (long long)kshape[i]);
        w->in[o + i] = x->d[2 + i];
        w->k[o + i] = kshape[i];
    }
    AICF__OP_TRY(aicf__op_aints(c, "strides", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'strides' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < nsp; i++) {
            if (v[i] < 1 || v[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "strides[%d] = %lld is out of range", i, (long long)v[i]);
            w->s[o + i] = v[i];
        }
    }
    AICF__OP_TRY(aicf__op_aints(c, "dilations", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'dilations' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < nsp; i++) {
            if (v[i] < 1 || v[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "dilations[%d] = %lld is out of range", i, (long long)v[i]);
            w->d[o + i] = v[i];
        }
    }
    AICF__OP_TRY(aicf__op_as(c, "auto_pad", "NOTSET", &ap));
    if (is_pool) AICF__OP_TRY(aicf__op_ai(c, "ceil_mode", 0, &ceil_mode));
    if (!strcmp(ap, "NOTSET") || !ap[0]) {
        AICF__OP_TRY(aicf__op_aints(c, "pads", &v, &cnt));
        if (cnt >= 0) {
            if (cnt != 2 * nsp)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'pads' has %d values; expected %d", cnt, 2 * nsp);
            for (i = 0; i < 2 * nsp; i++)
                if (v[i] < 0 || v[i] > AICF__OP_MAX_WINDOW)
                    return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads[%d] = %lld is out of range", i, (long long)v[i]);
            for (i = 0; i < nsp; i++) {
                w->pb[o + i] = v[i];
                w->pe[o + i] = v[nsp + i];
            }
        }
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1, padded = w->in[i] + w->pb[i] + w->pe[i];
            if (padded < dk)
                return aicf__op_err(c, AICF_ERROR_SHAPE,
                                  "kernel extent %lld (kernel %lld, dilation %lld) exceeds the padded input size %lld of spatial dim %d",
                                  (long long)dk, (long long)w->k[i], (long long)w->d[i], (long long)padded, i - o);
            if (is_pool && (w->pb[i] >= dk || w->pe[i] >= dk))
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads of spatial dim %d (%lld, %lld) must be smaller than the kernel extent %lld",
                                  i - o, (long long)w->pb[i], (long long)w->pe[i], (long long)dk);
            if (ceil_mode) {
                w->out[i] = (padded - dk + w->s[i] - 1) / w->s[i] + 1;
                /* the last window must start inside the input or the left padding */
                if ((w->out[i] - 1) * w->s[i] >= w->in[i] + w->pb[i]) w->out[i]--;
            } else {
                w->out[i] = (padded - dk) / w->s[i] + 1;
            }
        }
    } else if (!strcmp(ap, "VALID")) {
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1;
            if (w->in[i] < dk)
                return aicf__op_err(c, AICF_ERROR_SHAPE,
                                  "kernel extent %lld (kernel %lld, dilation %lld) exceeds the input size %lld of spatial dim %d (auto_pad VALID)",
                                  (long long)dk, (long long)w->k[i], (long long)w->d[i], (long long)w->in[i], i - o);
            w->out[i] = (w->in[i] - dk) / w->s[i] + 1;
        }
    } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        int upper = !strcmp(ap, "SAME_UPPER");
        for (i = o; i < 3; i++) {
            int64_t dk = (w->k[i] - 1) * w->d[i] + 1, total;
            w->out[i] = (w->in[i] + w->s[i] - 1) / w->s[i];
            total = (w->out[i] - 1) * w->s[i] + dk - w->in[i];
            if (total < 0) total = 0;
            w->pb[i] = upper ? total / 2 : total - total / 2;
            w->pe[i] = total - w->pb[i];
        }
    } else {
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'auto_pad' is '%.40s'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    }
    return AICF_SUCCESS;
}

static void aicf__op_win_out_shape(const aicf__op_win* w, int64_t C_out, aicf__shape* s) {
    int i;
    memset(s, 0, sizeof *s);
    s->rank = w->nsp + 2;
    s->d[0] = w->N;
    s->d[1] = C_out;
    for (i = 0; i < w->nsp; i++) s->d[2 + i] = w->out[3 - w->nsp + i];
}

/* Output positions o in [*lo, *hi) with 0 <= o*s + off < n_in. */
static void aicf__op_vrange(int64_t n_out, int64_t s, int64_t off, int64_t n_in, int64_t* lo, int64_t* hi) {
    int64_t l = 0, h;
    if (off < 0) l = (-off + s - 1) / s;
    h = n_in - 1 - off < 0 ? 0 : (n_in - 1 - off) / s + 1;
    if (h > n_out) h = n_out;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

static aicf_result aicf__op_conv_make(const aicf__opc* c, aicf__op_win* w, int64_t* group, int64_t* M) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* wt = aicf__op_in(c, 1);
    const aicf__tensor* b = aicf__op_in(c, 2);
    const int64_t* ks;
    int cnt, i;
    char b1[160], b2[160];
    if (x->shape.rank < 3 || x->shape.rank > 5)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    if (wt->shape.rank != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (W) shape %s has a different rank than input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&wt->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_ai(c, "group", 1, group));
    *M = wt->shape.d[0];
    if (*group < 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'group' = %lld must be >= 1", (long long)*group);
    if (x->shape.d[1] % *group != 0 || wt->shape.d[1] * *group != x->shape.d[1])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has %lld channels but W shape %s with group %lld expects %lld",
                          (long long)x->shape.d[1], aicf__op_sstr(&wt->shape, b1, sizeof b1), (long long)*group,
                          (long long)(wt->shape.d[1] * *group));
    if (*M % *group != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "W has %lld output channels, not a multiple of group %lld", (long long)*M,
                          (long long)*group);
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &ks, &cnt));
    if (cnt >= 0) {
        if (cnt != x->shape.rank - 2)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, x->shape.rank - 2);
        for (i = 0; i < cnt; i++)
            if (ks[i] != wt->shape.d[2 + i])
                return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'kernel_shape' does not match W shape %s",
                                  aicf__op_sstr(&wt->shape, b1, sizeof b1));
    }
    if (b && (b->shape.rank != 1 || b->shape.d[0] != *M))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (B) shape %s must be [%lld]", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&b->shape, b1, sizeof b1), (long long)*M);
    return aicf__op_win_make(c, &x->shape, wt->shape.d + 2, 0, w);
}

static aicf_result aicf__op_infer_conv(const aicf__opc* c) {
    aicf__op_win w;
    int64_t group, M;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_conv_make(c, &w, &group, &M));
    aicf__op_win_out_shape(&w, M, &o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_conv(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_win w;
    int64_t group, M, Cg, Mg, n, m, ci, kd, kh, kw, od, oh, ow, IS, OS, KS;
    const float* X = (const float*)in[0];
    const float* W = (const float*)in[1];
    const float* B = (const float*)in[2];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_conv_make(c, &w, &group, &M));
    Cg = w.C / group;
    Mg = M / group;
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    KS = w.k[0] * w.k[1] * w.k[2];
    for (n = 0; n < w.N; n++)
        for (m = 0; m < M; m++) {
            float* yp = Y + (n * M + m) * OS;
            int64_t g = m / Mg, i;
            float bias = B ? B[m] : 0.0f;
            for (i = 0; i < OS; i++) yp[i] = bias;
            for (ci = 0; ci < Cg; ci++) {
                const float* xp = X + (n * w.C + g * Cg + ci) * IS;
                const float* wp = W + (m * Cg + ci) * KS;
                for (kd = 0; kd < w.k[0]; kd++)
                    for (kh = 0; kh < w.k[1]; kh++)
                        for (kw = 0; kw < w.k[2]; kw++) {
                            float wv = wp[(kd * w.k[1] + kh) * w.k[2] + kw];
                            int64_t offd = kd * w.d[0] - w.pb[0], offh = kh * w.d[1] - w.pb[1], offw = kw * w.d[2] - w.pb[2];
                            int64_t d0, d1, h0, h1, w0, w1;
                            aicf__op_vrange(w.out[0], w.s[0], offd, w.in[0], &d0, &d1);
                            aicf__op_vrange(w.out[1], w.s[1], offh, w.in[1], &h0, &h1);
                            aicf__op_vrange(w.out[2], w.s[2], offw, w.in[2], &w0, &w1);
                            for (od = d0; od < d1; od++)
                                for (oh = h0; oh < h1; oh++) {
                                    const float* xr = xp + ((od * w.s[0] + offd) * w.in[1] + oh * w.s[1] + offh) * w.in[2];
                                    float* yr = yp + (od * w.out[1] + oh) * w.out[2];
                                    for (ow = w0; ow < w1; ow++) yr[ow] += wv * xr[ow * w.s[2] + offw];
                                }
                        }
            }
        }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_pool_make(const aicf__opc* c, aicf__op_win* w, int64_t* count_include_pad) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const int64_t* ks;
    int cnt;
    *count_include_pad = 0;
    if (x->shape.rank < 3 || x->shape.rank > 5)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &ks, &cnt));
    if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'kernel_shape' is missing");
    if (cnt != x->shape.rank - 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, x->shape.rank - 2);
    if (c->n->op == AICF__OP_LpPool) {
        int64_t p;
        AICF__OP_TRY(aicf__op_ai(c, "p", 2, &p));
        if (p < 1 || p > 64) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'p' = %lld is out of range", (long long)p);
    } else if (c->n->op == AICF__OP_MaxPool) {
        int64_t so;
        AICF__OP_TRY(aicf__op_ai(c, "storage_order", 0, &so));
        if (so != 0) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'storage_order' = %lld (column major) is not supported", (long long)so);
        if (aicf__op_out(c, 1))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "output 1 '%.200s' (Indices) is not supported", aicf__op_out_name(c, 1));
    } else {
        AICF__OP_TRY(aicf__op_ai(c, "count_include_pad", 0, count_include_pad));
    }
    return aicf__op_win_make(c, &x->shape, ks, 1, w);
}

static aicf_result aicf__op_infer_pool(const aicf__opc* c) {
    aicf__op_win w;
    int64_t cip;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, c->n->op == AICF__OP_MaxPool ? 2 : 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_pool_make(c, &w, &cip));
    aicf__op_win_out_shape(&w, w.C, &o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_pool(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_win w;
    int64_t cip, nc, od, oh, ow, kd, kh, kw, IS, OS, p = 2;
    int is_max = c->n->op == AICF__OP_MaxPool, is_lp = c->n->op == AICF__OP_LpPool;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_pool_make(c, &w, &cip));
    if (is_lp) AICF__OP_TRY(aicf__op_ai(c, "p", 2, &p));
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    for (nc = 0; nc < w.N * w.C; nc++) {
        const float* xp = X + nc * IS;
        float* yp = Y + nc * OS;
        for (od = 0; od < w.out[0]; od++)
            for (oh = 0; oh < w.out[1]; oh++)
                for (ow = 0; ow < w.out[2]; ow++) {
                    float acc = is_max ? -3.402823466e+38f : 0.0f;
                    int64_t n_valid = 0, n_padded = 0;
                    for (kd = 0; kd < w.k[0]; kd++) {
                        int64_t pd = od * w.s[0] - w.pb[0] + kd * w.d[0];
                        for (kh = 0; kh < w.k[1]; kh++) {
                            int64_t ph = oh * w.s[1] - w.pb[1] + kh * w.d[1];
                            for (kw = 0; kw < w.k[2]; kw++) {
                                int64_t pw = ow * w.s[2] - w.pb[2] + kw * w.d[2];
                                /* inside the explicitly padded input (the ceil_mode overhang is not) */
                                if (pd < w.in[0] + w.pe[0] && ph < w.in[1] + w.pe[1] && pw < w.in[2] + w.pe[2]) n_padded++;
                                if (pd >= 0 && pd < w.in[0] && ph >= 0 && ph < w.in[1] && pw >= 0 && pw < w.in[2]) {
                                    float v = xp[(pd * w.in[1] + ph) * w.in[2] + pw];
                                    n_valid++;
                                    if (is_max) {
                                        if (v > acc || v != v) acc = v;
                                        if (acc != acc) goto done; /* NaN propagates */
                                    } else if (is_lp) {
                                        acc += p == 1 ? fabsf(v) : (p == 2 ? v * v : powf(fabsf(v), (float)p));
                                    } else {
                                        acc += v;
                                    }
                                }
                            }
                        }
                    }
                done:
                    if (is_lp) {
                        acc = p == 1 ? acc : (p == 2 ? sqrtf(acc) : powf(acc, 1.0f / (float)p));
                    } else if (!is_max) {
                        int64_t cnt = cip ? n_padded : n_valid;
                        acc = cnt > 0 ? acc / (float)cnt : 0.0f;
                    }
                    yp[(od * w.out[1] + oh) * w.out[2] + ow] = acc;
                }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gap(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    x = aicf__op_in(c, 0);
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    o = x->shape;
    for (i = 2; i < o.rank; i++) o.d[i] = 1;
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_gap(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t NC = x->shape.d[0] * x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), i, j;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    for (i = 0; i < NC; i++) {
        float s = 0.0f;
        for (j = 0; j < S; j++) s += X[i * S + j];
        Y[i] = S > 0 ? s / (float)S : NAN;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   BatchNormalization, LRN, Softmax
   ============================================================================================ */

/* BatchNormalization in inference mode. *per_act: 1 when (spatial = 0, opset < 9) the
   parameters have one value per activation (C x D1 x ...), else one per channel. */
static aicf_result aicf__op_bn_make(const aicf__opc* c, float* eps, int* per_act) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t spatial = 1, tm = 0, want;
    int i;
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    if (c->opset >= 14) AICF__OP_TRY(aicf__op_ai(c, "training_mode", 0, &tm));
    if (tm) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "training_mode = %lld is not supported (inference only)", (long long)tm);
    if (c->opset < 9) AICF__OP_TRY(aicf__op_ai(c, "spatial", 1, &spatial));
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    *per_act = spatial == 0;
    want = *per_act ? aicf__op_prod(x->shape.d, 1, x->shape.rank) : x->shape.d[1];
    for (i = 1; i < 5; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        static const char* const names[5] = {"X", "scale", "B", "input_mean", "input_var"};
        char b1[160];
        if (aicf__shape_numel(&p->shape) != want || (!*per_act && p->shape.rank != 1))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) shape %s does not match %lld %s", i,
                              aicf__op_in_name(c, i), names[i], aicf__op_sstr(&p->shape, b1, sizeof b1), (long long)want,
                              *per_act ? "activations (spatial = 0)" : "channels");
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_bn(const aicf__opc* c) {
    float eps;
    int per_act, i;
    AICF__OP_TRY(aicf__op_check_io(c, 5, 5, 1, 5));
    for (i = 0; i < 5; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    for (i = 1; i < c->n->n_out; i++)
        if (aicf__op_out(c, i))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "output %d '%.200s' is only produced in training mode (not supported)",
                              i, aicf__op_out_name(c, i));
    AICF__OP_TRY(aicf__op_bn_make(c, &eps, &per_act));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_bn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* sc = (const float*)in[1];
    const float* bb = (const float*)in[2];
    const float* mean = (const float*)in[3];
    const float* var = (const float*)in[4];
    float* Y = (float*)out[0];
    float eps;
    int per_act;
    int64_t N = x->shape.d[0], C = x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, ch, s;
    AICF__OP_TRY(aicf__op_bn_make(c, &eps, &per_act));
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++)
            for (s = 0; s < S; s++) {
                int64_t p = per_act ? ch * S + s : ch, e = (n * C + ch) * S + s;
                Y[e] = (X[e] - mean[p]) / sqrtf(var[p] + eps) * sc[p] + bb[p];
            }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_lrn_make(const aicf__opc* c, int64_t* size, float* alpha, float* beta, float* bias) {
    const aicf__attrv* a = aicf__attr(c->n, "size");
    if (!a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'size' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "size", 0, size));
    if (*size < 1 || *size > AICF__OP_MAX_WINDOW)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'size' = %lld must be >= 1", (long long)*size);
    AICF__OP_TRY(aicf__op_af(c, "alpha", 1e-4f, alpha));
    AICF__OP_TRY(aicf__op_af(c, "beta", 0.75f, beta));
    return aicf__op_af(c, "bias", 1.0f, bias);
}

static aicf_result aicf__op_infer_lrn(const aicf__opc* c) {
    int64_t size;
    float a, b, bias;
    const aicf__tensor* x;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_lrn_make(c, &size, &a, &b, &bias));
    x = aicf__op_in(c, 0);
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

/* y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta */
static aicf_result aicf__op_run_lrn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    int64_t size, N = x->shape.d[0], C = x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, ch, s, j;
    float alpha, beta, bias;
    AICF__OP_TRY(aicf__op_lrn_make(c, &size, &alpha, &beta, &bias));
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++) {
            int64_t lo = ch - (size - 1) / 2, hi = ch + size / 2; /* size/2 = ceil((size-1)/2) */
            if (lo < 0) lo = 0;
            if (hi > C - 1) hi = C - 1;
            for (s = 0; s < S; s++) {
                float sq = 0.0f;
                for (j = lo; j <= hi; j++) {
                    float v = X[(n * C + j) * S + s];
                    sq += v * v;
                }
                Y[(n * C + ch) * S + s] = X[(n * C + ch) * S + s] / powf(bias + alpha / (float)size * sq, beta);
            }
        }
    return AICF_SUCCESS;
}

/* Softmax as [outer, A, inner]: before opset 13 the input is coerced to 2-D at `axis`
   (default 1); from 13 it runs along one axis (default -1). */
static aicf_result aicf__op_softmax_make(const aicf__opc* c, int64_t* outer, int64_t* A, int64_t* inner) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    int ax, r = x->shape.rank;
    AICF__OP_TRY(aicf__op_ai(c, "axis", c->opset < 13 ? 1 : -1, &axis));
    if (r < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar; expected rank >= 1", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, r, &ax));
    *outer = aicf__op_prod(x->shape.d, 0, ax);
    if (c->opset < 13) {
        *A = aicf__op_prod(x->shape.d, ax, r);
        *inner = 1;
    } else {
        *A = x->shape.d[ax];
        *inner = aicf__op_prod(x->shape.d, ax + 1, r);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_softmax(const aicf__opc* c) {
    int64_t o, a, i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_softmax_make(c, &o, &a, &i));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_softmax(const aicf__opc* c, const void* const* in, void* const* out) {
    int64_t outer, A, inner, o, i, a;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_softmax_make(c, &outer, &A, &inner));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float* x = X + o * A * inner + i;
            float* y = Y + o * A * inner + i;
            float mx = -INFINITY, sum = 0.0f;
            for (a = 0; a < A; a++)
                if (x[a * inner] > mx || x[a * inner] != x[a * inner]) mx = x[a * inner];
            for (a = 0; a < A; a++) {
                y[a * inner] = expf(x[a * inner] - mx);
                sum += y[a * inner];
            }
            for (a = 0; a < A; a++) y[a * inner] /= sum;
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Data movement: Concat, Transpose, and the aliasing ops
   ============================================================================================ */

static aicf_result aicf__op_infer_concat(const aicf__opc* c) {
    const aicf__tensor* x0;
    int nin, i, k, ax;
    int64_t axis;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    nin = aicf__op_nin(c->n);
    for (i = 0; i < nin; i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_ALL));
        AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    }
    if (c->opset >= 4 && !aicf__attr(c->n, "axis"))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'axis' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    x0 = aicf__op_in(c, 0);
    if (x0->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x0->shape.rank, &ax));
    o = x0->shape;
    for (i = 1; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        int ok = t->shape.rank == o.rank;
        for (k = 0; ok && k < o.rank; k++)
            if (k != ax && t->shape.d[k] != o.d[k]) ok = 0;
        if (!ok)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s does not match input 0 shape %s outside axis %d",
                              i, aicf__op_in_name(c, i), aicf__op_sstr(&t->shape, b1, sizeof b1),
                              aicf__op_sstr(&x0->shape, b2, sizeof b2), ax);
        o.d[ax] += t->shape.d[ax];
    }
    return aicf__op_set_out(c, 0, x0->dtype, &o);
}

static aicf_result aicf__op_run_concat(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    int nin = aicf__op_nin(c->n), i, ax;
    int64_t axis, outer, inner, o;
    size_t esz = aicf_dtype_size(y->dtype), yrow, pos;
    unsigned char* Y = (unsigned char*)out[0];
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, y->shape.rank, &ax));
    outer = aicf__op_prod(y->shape.d, 0, ax);
    inner = aicf__op_prod(y->shape.d, ax + 1, y->shape.rank);
    yrow = (size_t)(y->shape.d[ax] * inner) * esz;
    pos = 0;
    for (i = 0; i < nin; i++) {
        size_t row = (size_t)(aicf__op_in(c, i)->shape.d[ax] * inner) * esz;
        const unsigned char* X = (const unsigned char*)in[i];
        if (row && !(outer == 1 && X == Y + pos)) /* an input the plan placed in the output (a view): nothing to move */
            for (o = 0; o < outer; o++) memcpy(Y + (size_t)o * yrow + pos, X + (size_t)o * row, row);
        pos += row;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_transpose_perm(const aicf__opc* c, int* perm) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const int64_t* p;
    int cnt, i, r = x->shape.rank, seen[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_aints(c, "perm", &p, &cnt));
    if (cnt < 0) {
        for (i = 0; i < r; i++) perm[i] = r - 1 - i;
        return AICF_SUCCESS;
    }
    if (cnt != r) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' has %d values; input 0 has rank %d", cnt, r);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < r; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "attribute 'perm' entry", p[i], r, &a));
        if (seen[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' repeats axis %d", a);
        seen[a] = 1;
        perm[i] = a;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_transpose(const aicf__opc* c) {
    const aicf__tensor* x;
    int perm[AICF_MAX_RANK], i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_transpose_perm(c, perm));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    o.rank = x->shape.rank;
    for (i = 0; i < o.rank; i++) o.d[i] = x->shape.d[perm[i]];
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_transpose(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int perm[AICF_MAX_RANK], i, r = x->shape.rank;
    int64_t xst[AICF_MAX_RANK], st[AICF_MAX_RANK], n = aicf__shape_numel(&y->shape), e, inner, j, si;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_iter it;
    AICF__OP_TRY(aicf__op_transpose_perm(c, perm));
    if (n <= 0) return AICF_SUCCESS;
    if (r == 0) {
        memcpy(out[0], in[0], esz);
        return AICF_SUCCESS;
    }
    xst[r - 1] = 1;
    for (i = r - 2; i >= 0; i--) xst[i] = xst[i + 1] * x->shape.d[i + 1];
    for (i = 0; i < r; i++) st[i] = xst[perm[i]]; /* input stride of output dim i */
    inner = y->shape.d[r - 1];
    si = st[r - 1];
    aicf__op_iter_init(&it, &y->shape, 1, st, NULL, NULL);
    for (e = 0; e < n; e += inner) {
        int64_t base = it.off[0];
        if (esz == 4) {
            const uint32_t* X = (const uint32_t*)in[0];
            uint32_t* Y = (uint32_t*)out[0];
            for (j = 0; j < inner; j++) Y[e + j] = X[base + j * si];
        } else {
            const unsigned char* X = (const unsigned char*)in[0];
            unsigned char* Y = (unsigned char*)out[0];
            for (j = 0; j < inner; j++) memcpy(Y + (size_t)(e + j) * esz, X + (size_t)(base + j * si) * esz, esz);
        }
        aicf__op_iter_next(&it);
    }
    return AICF_SUCCESS;
}

/* Reshape's target shape (from input 1, or attribute 'shape' before opset 5). */
static aicf_result aicf__op_reshape_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK], allowzero = 0, known = 1, total = aicf__shape_numel(&x->shape);
    int cnt, i, neg = -1;
    char b1[160], b2[160];
    if (c->opset < 5) {
        const int64_t* v;
        AICF__OP_TRY(aicf__op_aints(c, "shape", &v, &cnt));
        if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'shape' is missing");
        if (cnt > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'shape' has %d values (rank limit %d)", cnt, AICF_MAX_RANK);
        for (i = 0; i < cnt; i++) sh[i] = v[i];
    } else {
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
        if (c->opset >= 14) AICF__OP_TRY(aicf__op_ai(c, "allowzero", 0, &allowzero));
    }
    memset(o, 0, sizeof *o);
    o->rank = cnt;
    for (i = 0; i < cnt; i++) {
        int64_t d = sh[i];
        if (d == -1) {
            if (neg >= 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has more than one -1");
            neg = i;
            continue;
        }
        if (d < -1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is invalid", i, (long long)d);
        if (d == 0 && !allowzero) {
            if (i >= x->shape.rank)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "shape[%d] = 0 copies a dimension that input 0 (rank %d) lacks", i,
                                  x->shape.rank);
            d = x->shape.d[i];
        }
        o->d[i] = d;
        if (d != 0 && known > INT64_MAX / d) return aicf__op_err(c, AICF_ERROR_LIMIT, "shape overflows");
        known *= d;
    }
    if (neg >= 0) {
        if (allowzero && known == 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has both -1 and 0 with allowzero = 1");
        if (known == 0 || total % known != 0) {
            o->d[neg] = -1;
            return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot reshape input 0 shape %s (%lld elements) to %s",
                              aicf__op_sstr(&x->shape, b1, sizeof b1), (long long)total, aicf__op_sstr(o, b2, sizeof b2));
        }
        o->d[neg] = total / known;
        known = total;
    }
    if (known != total) {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot reshape input 0 shape %s (%lld elements) to %s (%lld elements)",
                          aicf__op_sstr(&x->shape, b1, sizeof b1), (long long)total, aicf__op_sstr(o, b2, sizeof b2),
                          (long long)known);
    }
    return AICF_SUCCESS;
}

/* Unsqueeze/Squeeze axes: attribute before opset 13, (constant, optional for Squeeze) input 1 from 13. */
static aicf_result aicf__op_sq_axes(const aicf__opc* c, int64_t* axes, int* cnt) {
    if (c->opset < 13) {
        const int64_t* v;
        int i;
        AICF__OP_TRY(aicf__op_aints(c, "axes", &v, cnt));
        if (*cnt > AICF_MAX_RANK)
            return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'axes' has %d values (rank limit %d)", *cnt, AICF_MAX_RANK);
        for (i = 0; i < *cnt; i++) axes[i] = v[i];
        return AICF_SUCCESS;
    }
    return aicf__op_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, cnt);
}

static aicf_result aicf__op_unsqueeze_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i, r, k, mark[AICF_MAX_RANK];
    AICF__OP_TRY(aicf__op_sq_axes(c, axes, &cnt));
    if (cnt < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required axes are missing");
    r = x->shape.rank + cnt;
    if (r > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", r, AICF_MAX_RANK);
    memset(mark, 0, sizeof mark);
    for (i = 0; i < cnt; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        if (mark[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axes repeat axis %d", a);
        mark[a] = 1;
    }
    memset(o, 0, sizeof *o);
    o->rank = r;
    for (i = 0, k = 0; i < r; i++) o->d[i] = mark[i] ? 1 : x->shape.d[k++];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_squeeze_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i, r = x->shape.rank, mark[AICF_MAX_RANK];
    char b1[160];
    AICF__OP_TRY(aicf__op_sq_axes(c, axes, &cnt));
    memset(mark, 0, sizeof mark);
    if (cnt < 0) {
        for (i = 0; i < r; i++) mark[i] = x->shape.d[i] == 1;
    } else {
        for (i = 0; i < cnt; i++) {
            int a;
            AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
            if (x->shape.d[a] != 1)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot squeeze axis %d of input 0 shape %s (size is not 1)", a,
                                  aicf__op_sstr(&x->shape, b1, sizeof b1));
            mark[a] = 1;
        }
    }
    memset(o, 0, sizeof *o);
    for (i = 0; i < r; i++)
        if (!mark[i]) o->d[o->rank++] = x->shape.d[i];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_flatten_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    int r = x->shape.rank, ax;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 1, &axis));
    if (axis < -(int64_t)r || axis > (int64_t)r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' %lld is out of range for rank %d", (long long)axis, r);
    ax = (int)(axis < 0 ? axis + r : axis);
    memset(o, 0, sizeof *o);
    o->rank = 2;
    o->d[0] = aicf__op_prod(x->shape.d, 0, ax);
    o->d[1] = aicf__op_prod(x->shape.d, ax, r);
    return AICF_SUCCESS;
}

/* Dropout in inference: checks training_mode (constant input from opset 12). */
static aicf_result aicf__op_dropout_check(const aicf__opc* c) {
    const aicf__tensor* tm = aicf__op_in(c, 2);
    const aicf__tensor* ratio = aicf__op_in(c, 1);
    if (ratio) {
        AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32 | AICF__OP_DTM(AICF_DTYPE_FLOAT64) | AICF__OP_DTM(AICF_DTYPE_FLOAT16)));
        if (aicf__shape_numel(&ratio->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (ratio) must be a scalar", aicf__op_in_name(c, 1));
    }
    if (tm) {
        unsigned char v = 0;
        if (tm->dtype != AICF_DTYPE_BOOL || aicf__shape_numel(&tm->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 2 '%.200s' (training_mode) must be a bool scalar",
                              aicf__op_in_name(c, 2));
        if (!(tm->flags & AICF__T_CONST) || !tm->data || tm->data_bytes < 1)
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 2 '%.200s' must be a constant at plan time (it gives training_mode)",
                              aicf__op_in_name(c, 2));
        memcpy(&v, tm->data, 1);
        if (v) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "training_mode = true is not supported (inference only)");
    }
    return AICF_SUCCESS;
}

/* Dtype of Dropout's mask: BOOL from opset 10, the data type before. */
static aicf_dtype aicf__op_dropout_mask_dt(const aicf__opc* c) {
    return c->opset >= 10 ? AICF_DTYPE_BOOL : aicf__op_in(c, 0)->dtype;
}

static aicf_result aicf__op_infer_alias(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    aicf__op op = c->n->op;
    switch (op) {
    case AICF__OP_Reshape: AICF__OP_TRY(aicf__op_check_io(c, c->opset < 5 ? 1 : 2, c->opset < 5 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Unsqueeze: AICF__OP_TRY(aicf__op_check_io(c, c->opset < 13 ? 1 : 2, c->opset < 13 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Squeeze: AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset < 13 ? 1 : 2, 1, 1)); break;
    case AICF__OP_Dropout: AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset < 12 ? 1 : 3, 1, 2)); break;
    default: AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1)); break;
    }
    AICF__OP_TRY(aicf__op_check_dt(c, 0, op == AICF__OP_Dropout ? AICF__OP_DTM_F32 : AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    switch (op) {
    case AICF__OP_Reshape: AICF__OP_TRY(aicf__op_reshape_shape(c, &o)); break;
    case AICF__OP_Unsqueeze: AICF__OP_TRY(aicf__op_unsqueeze_shape(c, &o)); break;
    case AICF__OP_Squeeze: AICF__OP_TRY(aicf__op_squeeze_shape(c, &o)); break;
    case AICF__OP_Flatten: AICF__OP_TRY(aicf__op_flatten_shape(c, &o)); break;
    case AICF__OP_Dropout:
        AICF__OP_TRY(aicf__op_dropout_check(c));
        o = x->shape;
        AICF__OP_TRY(aicf__op_set_out(c, 1, aicf__op_dropout_mask_dt(c), &o));
        break;
    default: o = x->shape; break;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_alias(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    size_t bytes = aicf__op_tbytes(x);
    if (out[0] != in[0] && bytes) memcpy(out[0], in[0], bytes);
    if (c->n->op == AICF__OP_Dropout && aicf__op_out(c, 1) && out[1]) {
        size_t n = aicf__op_numel(&x->shape), i;
        aicf_dtype mdt = aicf__op_out(c, 1)->dtype;
        if (mdt == AICF_DTYPE_BOOL) memset(out[1], 1, n);
        else
            for (i = 0; i < n; i++) ((float*)out[1])[i] = 1.0f;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Constant, ConstantOfShape, Shape, Cast
   ============================================================================================ */

/* The value of a Constant node: dtype, shape and bytes. */
typedef struct aicf__op_cval {
    aicf_dtype dt;
    aicf__shape shape;
    const void* data;
    size_t bytes;
    int64_t ival; /* storage for value_int */
    float fval;   /* storage for value_float */
} aicf__op_cval;

/* Reads a TENSOR attribute (an unnamed constant of the graph). */
static aicf_result aicf__op_tensor_attr(const aicf__opc* c, const aicf__attrv* a, const aicf__tensor** out) {
    const aicf__tensor* t;
    size_t need;
    *out = NULL;
    if (a->type != AICF_ATTR_TENSOR)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' must be of type TENSOR", a->name ? a->name : "");
    if (a->tensor < 0 || a->tensor >= c->g->n_tensors)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' has no tensor", a->name ? a->name : "");
    t = &c->g->tensors[a->tensor];
    if (!aicf__op_dt_in(t->dtype, AICF__OP_DTM_ALL))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute '%.100s' has data type %s, which is not supported",
                          a->name ? a->name : "", aicf_dtype_name(t->dtype));
    need = aicf__op_tbytes(t);
    if (aicf__shape_numel(&t->shape) < 0 || (need && (!t->data || t->data_bytes < need)))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%.100s' holds %zu bytes of data, needs %zu",
                          a->name ? a->name : "", t->data ? t->data_bytes : (size_t)0, need);
    *out = t;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_constant_value(const aicf__opc* c, aicf__op_cval* v) {
    static const char* const unsupported[3] = {"sparse_value", "value_string", "value_strings"};
    const aicf__attrv* a;
    int i, found = 0;
    memset(v, 0, sizeof *v);
    for (i = 0; i < 3; i++)
        if (aicf__attr(c->n, unsupported[i]))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute '%s' is not supported", unsupported[i]);
    if ((a = aicf__attr(c->n, "value")) != NULL) {
        const aicf__tensor* t = NULL;
        AICF__OP_TRY(aicf__op_tensor_attr(c, a, &t));
        v->dt = t->dtype;
        v->shape = t->shape;
        v->data = t->data;
        v->bytes = aicf__op_tbytes(t);
        found++;
    }
    if ((a = aicf__attr(c->n, "value_float")) != NULL) {
        AICF__OP_TRY(aicf__op_af(c, "value_float", 0.0f, &v->fval));
        v->dt = AICF_DTYPE_FLOAT32;
        memset(&v->shape, 0, sizeof v->shape);
        v->data = &v->fval;
        v->bytes = 4;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_int")) != NULL) {
        AICF__OP_TRY(aicf__op_ai(c, "value_int", 0, &v->ival));
        v->dt = AICF_DTYPE_INT64;
        memset(&v->shape, 0, sizeof v->shape);
        v->data = &v->ival;
        v->bytes = 8;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_floats")) != NULL) {
        AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_FLOATS, "FLOATS"));
        v->dt = AICF_DTYPE_FLOAT32;
        memset(&v->shape, 0, sizeof v->shape);
        v->shape.rank = 1;
        v->shape.d[0] = a->count;
        v->data = a->floats;
        v->bytes = (size_t)a->count * 4;
        found++;
    }
    if ((a = aicf__attr(c->n, "value_ints")) != NULL) {
        AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INTS, "INTS"));
        v->dt = AICF_DTYPE_INT64;
        memset(&v->shape, 0, sizeof v->shape);
        v->shape.rank = 1;
        v->shape.d[0] = a->count;
        v->data = a->ints;
        v->bytes = (size_t)a->count * 8;
        found++;
    }
    if (found != 1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "needs exactly one of the attributes value, value_float(s), value_int(s); has %d",
                          found);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_constant(const aicf__opc* c) {
    aicf__op_cval v;
    AICF__OP_TRY(aicf__op_check_io(c, 0, 0, 1, 1));
    AICF__OP_TRY(aicf__op_constant_value(c, &v));
    return aicf__op_set_out(c, 0, v.dt, &v.shape);
}

static aicf_result aicf__op_run_constant(const aicf__opc* c, void* const* out) {
    aicf__op_cval v;
    AICF__OP_TRY(aicf__op_constant_value(c, &v));
    if (v.bytes) memcpy(out[0], v.data, v.bytes);
    return AICF_SUCCESS;
}

/* ConstantOfShape's fill value: attribute 'value' (one element), default float32 0. */
static aicf_result aicf__op_cos_value(const aicf__opc* c, aicf_dtype* dt, const void** val) {
    static const float zero = 0.0f;
    const aicf__attrv* a = aicf__attr(c->n, "value");
    *dt = AICF_DTYPE_FLOAT32;
    *val = &zero;
    if (a) {
        const aicf__tensor* t = NULL;
        AICF__OP_TRY(aicf__op_tensor_attr(c, a, &t));
        if (aicf__shape_numel(&t->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'value' must hold one element");
        *dt = t->dtype;
        *val = t->data;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_cos(const aicf__opc* c) {
    int64_t sh[AICF_MAX_RANK];
    int cnt, i;
    aicf_dtype dt;
    const void* val;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_const_ints(c, 0, "shape", sh, AICF_MAX_RANK, &cnt));
    for (i = 0; i < cnt; i++)
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
    AICF__OP_TRY(aicf__op_cos_value(c, &dt, &val));
    aicf__op_shape_set(&o, cnt, sh);
    return aicf__op_set_out(c, 0, dt, &o);
}

static aicf_result aicf__op_run_cos(const aicf__opc* c, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt;
    const void* val;
    size_t n = aicf__op_numel(&y->shape), esz, i;
    AICF__OP_TRY(aicf__op_cos_value(c, &dt, &val));
    esz = aicf_dtype_size(dt);
    if (esz == 4 && (uintptr_t)out[0] % 4 == 0) { /* float32 and int32 fills: one store per element */
        uint32_t v, *o = (uint32_t*)out[0];
        memcpy(&v, val, 4);
        for (i = 0; i < n; i++) o[i] = v;
    } else {
        for (i = 0; i < n; i++) memcpy((unsigned char*)out[0] + i * esz, val, esz);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_shape_range(const aicf__opc* c, int64_t* start, int64_t* end) {
    int64_t r = aicf__op_in(c, 0)->shape.rank;
    *start = 0;
    *end = r;
    if (c->opset >= 15) {
        AICF__OP_TRY(aicf__op_ai(c, "start", 0, start));
        AICF__OP_TRY(aicf__op_ai(c, "end", r, end));
        if (*start < 0) *start += r;
        if (*end < 0) *end += r;
        *start = *start < 0 ? 0 : (*start > r ? r : *start);
        *end = *end < 0 ? 0 : (*end > r ? r : *end);
        if (*end < *start) *end = *start;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_shape(const aicf__opc* c) {
    int64_t s, e;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_shape_range(c, &s, &e));
    memset(&o, 0, sizeof o);
    o.rank = 1;
    o.d[0] = e - s;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_shape(const aicf__opc* c, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t s, e, i;
    AICF__OP_TRY(aicf__op_shape_range(c, &s, &e));
    for (i = s; i < e; i++) ((int64_t*)out[0])[i - s] = x->shape.d[i];
    return AICF_SUCCESS;
}

static aicf_result aicf__op_cast_to(const aicf__opc* c, aicf_dtype* to) {
    const aicf__attrv* a = aicf__attr(c->n, "to");
    if (!a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'to' is missing");
    if (a->type == AICF_ATTR_STRING) { /* Cast-1: the type name */
        static const char* const names[8] = {"FLOAT", "DOUBLE", "FLOAT16", "INT32", "INT64", "INT8", "UINT8", "BOOL"};
        static const aicf_dtype types[8] = {AICF_DTYPE_FLOAT32, AICF_DTYPE_FLOAT64, AICF_DTYPE_FLOAT16, AICF_DTYPE_INT32,
                                            AICF_DTYPE_INT64,   AICF_DTYPE_INT8,    AICF_DTYPE_UINT8,   AICF_DTYPE_BOOL};
        int i;
        for (i = 0; i < 8; i++)
            if (a->s && !strcmp(a->s, names[i])) {
                *to = types[i];
                return AICF_SUCCESS;
            }
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'to' = '%.40s' is not a supported type", a->s ? a->s : "");
    }
    AICF__OP_TRY(aicf__op_attr_type(c, a, AICF_ATTR_INT, "INT"));
    if (a->i <= 0 || a->i >= 32 || !aicf__op_dt_in((aicf_dtype)a->i, AICF__OP_DTM_ALL)) {
        char buf[200];
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'to' = %lld (%s) is not supported (supported: %s)", (long long)a->i,
                          a->i > 0 && a->i < 32 ? aicf_dtype_name((aicf_dtype)a->i) : "?",
                          aicf__op_dtm_str(AICF__OP_DTM_ALL, buf, sizeof buf));
    }
    *to = (aicf_dtype)a->i;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_cast(const aicf__opc* c) {
    aicf_dtype to = AICF_DTYPE_INVALID;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_cast_to(c, &to));
    return aicf__op_set_out(c, 0, to, &aicf__op_in(c, 0)->shape);
}

/* float64 -> float16 (IEEE binary16) with a single rounding to nearest even; converting
   through float32 would round twice. Scaling by powers of two keeps every step exact. */
static uint16_t aicf__op_f64_to_f16(double v) {
    uint16_t sign = (uint16_t)(v < 0.0 || (v == 0.0 && 1.0 / v < 0.0) ? 0x8000u : 0u);
    double a = fabs(v), q;
    int e;
    if (v != v) return 0x7e00u;
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504: infinity */
    if (a < 6.103515625e-05) {                            /* below 2^-14: subnormal (or zero) */
        q = rint(a * 16777216.0);                         /* units of 2^-24 */
        return (uint16_t)(sign | (uint16_t)q);            /* q == 1024 is the smallest normal */
    }
    (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    e -= 1;             /* a = m * 2^e, m in [1, 2) */
    q = rint((ldexp(a, -e) - 1.0) * 1024.0);
    if (q >= 1024.0) {
        q = 0.0;
        e++;
    }
    if (e + 15 >= 31) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)q);
}

/* float -> integer: truncation toward zero, saturated to the type's range; NaN -> 0. */
static int64_t aicf__op_f2i(double v, int64_t lo, int64_t hi) {
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

static aicf_result aicf__op_run_cast(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype from = x->dtype, to = aicf__op_out(c, 0)->dtype;
    int64_t n = aicf__shape_numel(&x->shape), i;
    int via_double = aicf__op_dt_isfloat(from) || (from == AICF_DTYPE_UINT64 && aicf__op_dt_isfloat(to));
    if (from == to) {
        if (n > 0) memcpy(out[0], in[0], (size_t)n * aicf_dtype_size(from));
        return AICF_SUCCESS;
    }
    for (i = 0; i < n; i++) {
        if (via_double) aicf__op_setd(to, out[0], i, aicf__op_getd(from, in[0], i));
        else aicf__op_seti(to, out[0], i, aicf__op_geti(from, in[0], i));
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Broadcasting over up to three operands (comparisons, logic, Where, Mod, PRelu)
   ============================================================================================ */

/* Broadcast shape of inputs 0..n-1 (multidirectional; before opset 7 input 1 follows the
   legacy broadcast/axis attributes). */
static aicf_result aicf__op_bcast_in(const aicf__opc* c, int n, aicf__shape* o) {
    int i;
    aicf__shape s;
    char b1[160], b2[160];
    *o = aicf__op_in(c, 0)->shape;
    for (i = 1; i < n; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        if (!aicf__op_bcast2(o, &s, o))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s cannot be broadcast with %s", i,
                              aicf__op_in_name(c, i), aicf__op_sstr(&s, b1, sizeof b1), aicf__op_sstr(o, b2, sizeof b2));
    }
    return AICF_SUCCESS;
}

/* Iterator over output shape `o` with the broadcast strides of inputs 0..n-1. */
static aicf_result aicf__op_bcast_iter(const aicf__opc* c, int n, const aicf__shape* o, aicf__op_ix* it) {
    int i;
    aicf__shape s;
    aicf__op_ix_init(it, o, n);
    for (i = 0; i < n; i++) {
        AICF__OP_TRY(aicf__op_bin_in_shape(c, i, &s));
        aicf__op_bcast_strides(&s, o, it->st[i]);
    }
    return AICF_SUCCESS;
}

static int aicf__op_is_cmp(aicf__op op) {
    return op == AICF__OP_Equal || op == AICF__OP_Less || op == AICF__OP_Greater || op == AICF__OP_LessOrEqual ||
           op == AICF__OP_GreaterOrEqual;
}

/* Equal, Less, Greater, LessOrEqual, GreaterOrEqual (any numeric type, Equal also bool) and
   And, Or, Xor (bool): bool output of the broadcast shape. */
static aicf_result aicf__op_infer_compare(const aicf__opc* c) {
    aicf__op op = c->n->op;
    unsigned mask = op == AICF__OP_Equal ? AICF__OP_DTM_ALL : (aicf__op_is_cmp(op) ? AICF__OP_DTM_NUM : AICF__OP_DTM(AICF_DTYPE_BOOL));
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, mask));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, AICF_DTYPE_BOOL, &o);
}

/* -1, 0, 1 for a < b, a == b, a > b; 2 when unordered (NaN). */
static int aicf__op_cmp3(aicf_dtype dt, const void* a, int64_t ia, const void* b, int64_t ib) {
    if (aicf__op_dt_isfloat(dt)) {
        double x = aicf__op_getd(dt, a, ia), y = aicf__op_getd(dt, b, ib);
        if (x != x || y != y) return 2;
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (dt == AICF_DTYPE_UINT64) {
        uint64_t x = ((const uint64_t*)a)[ia], y = ((const uint64_t*)b)[ib];
        return x < y ? -1 : (x > y ? 1 : 0);
    } else {
        int64_t x = aicf__op_geti(dt, a, ia), y = aicf__op_geti(dt, b, ib);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
}

static aicf_result aicf__op_run_compare(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = aicf__op_in(c, 0)->dtype;
    aicf__op op = c->n->op;
    aicf__op_ix it;
    int64_t n = aicf__shape_numel(&y->shape), e;
    uint8_t* Y = (uint8_t*)out[0];
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int r = 0, v;
        if (aicf__op_is_cmp(op)) r = aicf__op_cmp3(dt, in[0], it.off[0], in[1], it.off[1]);
        switch (op) {
        case AICF__OP_Equal: v = r == 0; break;
        case AICF__OP_Less: v = r == -1; break;
        case AICF__OP_Greater: v = r == 1; break;
        case AICF__OP_LessOrEqual: v = r == -1 || r == 0; break;
        case AICF__OP_GreaterOrEqual: v = r == 1 || r == 0; break;
        default: {
            int a = ((const uint8_t*)in[0])[it.off[0]] != 0, b = ((const uint8_t*)in[1])[it.off[1]] != 0;
            v = op == AICF__OP_And ? (a && b) : (op == AICF__OP_Or ? (a || b) : (a != b));
            break;
        }
        }
        Y[e] = (uint8_t)v;
    }
    return AICF_SUCCESS;
}

/* Not, IsNaN, IsInf: elementwise predicates with a bool output. */
static aicf_result aicf__op_infer_pred(const aicf__opc* c) {
    const aicf__tensor* x;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, c->n->op == AICF__OP_Not ? AICF__OP_DTM(AICF_DTYPE_BOOL) : AICF__OP_DTM_FLOATS));
    x = aicf__op_in(c, 0);
    return aicf__op_set_out(c, 0, AICF_DTYPE_BOOL, &x->shape);
}

static aicf_result aicf__op_run_pred(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e, neg = 1, pos = 1;
    uint8_t* Y = (uint8_t*)out[0];
    if (c->n->op == AICF__OP_IsInf) {
        AICF__OP_TRY(aicf__op_ai(c, "detect_negative", 1, &neg));
        AICF__OP_TRY(aicf__op_ai(c, "detect_positive", 1, &pos));
    }
    for (e = 0; e < n; e++) {
        if (c->n->op == AICF__OP_Not) {
            Y[e] = (uint8_t)(((const uint8_t*)in[0])[e] == 0);
        } else {
            double v = aicf__op_getd(x->dtype, in[0], e);
            if (c->n->op == AICF__OP_IsNaN) Y[e] = (uint8_t)(v != v);
            else Y[e] = (uint8_t)((pos && v == INFINITY) || (neg && v == -INFINITY));
        }
    }
    return AICF_SUCCESS;
}

/* Where(condition, X, Y): three-way broadcast, any element type. */
static aicf_result aicf__op_infer_where(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM(AICF_DTYPE_BOOL)));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 1));
    AICF__OP_TRY(aicf__op_bcast_in(c, 3, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 1)->dtype, &o);
}

static aicf_result aicf__op_run_where(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    size_t esz = aicf_dtype_size(y->dtype);
    int64_t n = aicf__shape_numel(&y->shape), e;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_bcast_iter(c, 3, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int pick = ((const uint8_t*)in[0])[it.off[0]] ? 1 : 2;
        memcpy((unsigned char*)out[0] + (size_t)e * esz, (const unsigned char*)in[pick] + (size_t)it.off[pick] * esz, esz);
    }
    return AICF_SUCCESS;
}

/* Mod: fmod = 0: the remainder takes the divisor's sign (numpy.mod, Python's %); fmod = 1: the
   dividend's (C fmod). Integer types are exact; float types compute in double. */
static aicf_result aicf__op_infer_mod(const aicf__opc* c) {
    aicf__shape o;
    int64_t fm;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    AICF__OP_TRY(aicf__op_ai(c, "fmod", 0, &fm));
    if (fm != 0 && fm != 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'fmod' = %lld must be 0 or 1", (long long)fm);
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_mod(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype;
    int64_t n = aicf__shape_numel(&y->shape), e, fm;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_ai(c, "fmod", 0, &fm));
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (aicf__op_dt_isfloat(dt)) {
            double a = aicf__op_getd(dt, in[0], it.off[0]), b = aicf__op_getd(dt, in[1], it.off[1]), r = fmod(a, b);
            if (!fm && b != 0.0) { /* numpy's divmod adjustment */
                if (r != 0.0) {
                    if ((b < 0.0) != (r < 0.0)) r += b;
                } else {
                    r = copysign(0.0, b);
                }
            }
            aicf__op_setd(dt, out[0], e, r);
        } else if (dt == AICF_DTYPE_UINT64) {
            uint64_t a = ((const uint64_t*)in[0])[it.off[0]], b = ((const uint64_t*)in[1])[it.off[1]];
            if (!b) goto divzero;
            ((uint64_t*)out[0])[e] = a % b;
        } else {
            int64_t a = aicf__op_geti(dt, in[0], it.off[0]), b = aicf__op_geti(dt, in[1], it.off[1]), r;
            if (!b) goto divzero;
            r = b == -1 ? 0 : a % b;
            if (!fm && r != 0 && ((r < 0) != (b < 0))) r += b;
            aicf__op_seti(dt, out[0], e, r);
        }
    }
    return AICF_SUCCESS;
divzero:
    return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "integer modulo by zero (input 1 '%.200s')", aicf__op_in_name(c, 1));
}

/* PRelu: slope broadcast (numpy rules) to the shape of X. */
static aicf_result aicf__op_infer_prelu(const aicf__opc* c) {
    const aicf__tensor* x;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    x = aicf__op_in(c, 0);
    if (!aicf__op_bcast2(&x->shape, &aicf__op_in(c, 1)->shape, &o) || o.rank != x->shape.rank ||
        memcmp(o.d, x->shape.d, sizeof(int64_t) * (size_t)o.rank) != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (slope) shape %s does not broadcast to input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&aicf__op_in(c, 1)->shape, b1, sizeof b1),
                          aicf__op_sstr(&x->shape, b2, sizeof b2));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

static aicf_result aicf__op_run_prelu(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e;
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    float* Y = (float*)out[0];
    aicf__op_ix it;
    aicf__op_ix_init(&it, &x->shape, 1);
    aicf__op_bcast_strides(&aicf__op_in(c, 1)->shape, &x->shape, it.st[0]);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) Y[e] = X[e] < 0.0f ? S[it.off[0]] * X[e] : X[e];
    return AICF_SUCCESS;
}

/* BitShift, BitwiseAnd/Or/Xor (integer types): broadcast, exact. BitShift on signed types
   (opset 26): LEFT wraps, RIGHT is arithmetic; a shift outside [0, bits) gives 0 (RIGHT of a
   negative value: -1). */
static aicf_result aicf__op_infer_bitwise(const aicf__opc* c) {
    aicf__shape o;
    unsigned mask = c->n->op == AICF__OP_BitShift && c->opset < 26 ? AICF__OP_DTM_UINT : AICF__OP_DTM_INTS;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_same_dt(c, 1, 0));
    if (c->n->op == AICF__OP_BitShift) {
        const char* dir;
        if (!aicf__attr(c->n, "direction")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'direction' is missing");
        AICF__OP_TRY(aicf__op_as(c, "direction", "", &dir));
        if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'direction' is '%.40s'; expected LEFT or RIGHT", dir);
    }
    AICF__OP_TRY(aicf__op_bcast_in(c, 2, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_bitwise(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    aicf_dtype dt = y->dtype;
    aicf__op op = c->n->op;
    int64_t n = aicf__shape_numel(&y->shape), e, bits = (int64_t)aicf_dtype_size(dt) * 8;
    int left = 0;
    aicf__op_ix it;
    if (op == AICF__OP_BitShift) {
        const char* dir;
        AICF__OP_TRY(aicf__op_as(c, "direction", "", &dir));
        left = !strcmp(dir, "LEFT");
    }
    AICF__OP_TRY(aicf__op_bcast_iter(c, 2, &y->shape, &it));
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        uint64_t a = (uint64_t)aicf__op_geti(dt, in[0], it.off[0]), b = (uint64_t)aicf__op_geti(dt, in[1], it.off[1]), r;
        int sgn = aicf__op_dt_in(dt, AICF__OP_DTM_SINT), neg = sgn && (int64_t)a < 0;
        switch (op) {
        case AICF__OP_BitShift:
            if ((sgn && (int64_t)b < 0) || b >= (uint64_t)bits) r = !left && neg ? (uint64_t)-1 : 0;
            else if (left) r = a << b;
            else r = neg ? ~(~a >> b) : a >> b; /* arithmetic shift of the sign-extended value */
            break;
        case AICF__OP_BitwiseAnd: r = a & b; break;
        case AICF__OP_BitwiseOr: r = a | b; break;
        default: r = a ^ b; break;
        }
        aicf__op_seti(dt, out[0], e, (int64_t)r);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_bitnot(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e;
    for (e = 0; e < n; e++) aicf__op_seti(x->dtype, out[0], e, (int64_t)~(uint64_t)aicf__op_geti(x->dtype, in[0], e));
    return AICF_SUCCESS;
}

/* EyeLike: ones on the k-th diagonal of a 2-D shape, in attribute dtype (default: the input's). */
static aicf_result aicf__op_infer_eyelike(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t dt;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    if (x->shape.rank != 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must be 2-D, has rank %d", aicf__op_in_name(c, 0), x->shape.rank);
    AICF__OP_TRY(aicf__op_ai(c, "dtype", (int64_t)x->dtype, &dt));
    if (dt <= 0 || dt >= 32 || !aicf__op_dt_in((aicf_dtype)dt, AICF__OP_DTM_ALL))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'dtype' = %lld is not supported", (long long)dt);
    return aicf__op_set_out(c, 0, (aicf_dtype)dt, &x->shape);
}

static aicf_result aicf__op_run_eyelike(const aicf__opc* c, void* const* out) {
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t k, i, j, M = y->shape.d[0], N = y->shape.d[1];
    AICF__OP_TRY(aicf__op_ai(c, "k", 0, &k));
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) aicf__op_seti(y->dtype, out[0], i * N + j, k >= -N - M && k <= N + M && j - i == k);
    return AICF_SUCCESS;
}

/* ============================================================================================
   Indexing and data movement: Gather*, Slice, Split, Pad, Tile, Expand, Trilu, Range, Size,
   OneHot, CumSum, DepthToSpace, SpaceToDepth, Scatter*, TopK, NonZero
   ============================================================================================ */

/* Reads index element j of input i (int32/int64) and wraps negatives into [0, dim); *ok = 0
   when it lies outside [-dim, dim). */
static int64_t aicf__op_index(const aicf__tensor* t, const void* p, int64_t j, int64_t dim, int* ok) {
    int64_t v = aicf__op_geti(t->dtype, p, j);
    *ok = v >= -dim && v < dim;
    return v < 0 ? v + dim : v;
}

/* Checks every index of input i against dim (at plan time when the input is a constant). */
static aicf_result aicf__op_check_indices(const aicf__opc* c, int i, const void* data, int64_t dim, const char* what) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t n = aicf__shape_numel(&t->shape), j;
    int ok;
    if (!data) {
        if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes < aicf__op_tbytes(t)) return AICF_SUCCESS;
        data = t->data;
    }
    for (j = 0; j < n; j++) {
        unsigned char tmp[8]; /* constants borrowed from a model file may be unaligned */
        int64_t v;
        memcpy(tmp, (const unsigned char*)data + (size_t)j * aicf_dtype_size(t->dtype), aicf_dtype_size(t->dtype));
        v = aicf__op_geti(t->dtype, tmp, 0);
        ok = v >= -dim && v < dim;
        if (!ok)
            return aicf__op_err(c, data == t->data ? AICF_ERROR_INVALID_MODEL : AICF_ERROR_INVALID_ARGUMENT,
                              "input %d '%.200s' element %lld = %lld is out of range [%lld, %lld] (%s)", i,
                              aicf__op_in_name(c, i), (long long)j, (long long)v, (long long)-dim, (long long)(dim - 1), what);
    }
    return AICF_SUCCESS;
}

/* Constant scalar input i as double and int64 (`what` names it in messages). */
static aicf_result aicf__op_const_scalar(const aicf__opc* c, int i, const char* what, double* dv, int64_t* iv) {
    const aicf__tensor* t = aicf__op_in(c, i);
    char b1[160];
    if (!t) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d (%s) is omitted", i, what);
    if (aicf__shape_numel(&t->shape) != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) must hold one value, has shape %s", i,
                          aicf__op_in_name(c, i), what, aicf__op_sstr(&t->shape, b1, sizeof b1));
    if (!(t->flags & AICF__T_CONST) || !t->data || t->data_bytes < aicf_dtype_size(t->dtype))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    {
        unsigned char tmp[8];
        memcpy(tmp, t->data, aicf_dtype_size(t->dtype)); /* borrowed data may be unaligned */
        if (dv) *dv = aicf__op_getd(t->dtype, tmp, 0);
        if (iv) *iv = aicf__op_geti(t->dtype, tmp, 0);
    }
    return AICF_SUCCESS;
}

static void aicf__op_copy_el(void* dst, int64_t di, const void* src, int64_t si, size_t esz) {
    memcpy((unsigned char*)dst + (size_t)di * esz, (const unsigned char*)src + (size_t)si * esz, esz);
}

/* ---- Gather ---- */
static aicf_result aicf__op_gather_axis(const aicf__opc* c, int* ax) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar; expected rank >= 1", aicf__op_in_name(c, 0));
    return aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax);
}

static aicf_result aicf__op_infer_gather(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int ax, i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    if (x->shape.rank - 1 + idx->shape.rank > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", x->shape.rank - 1 + idx->shape.rank, AICF_MAX_RANK);
    memset(&o, 0, sizeof o);
    for (i = 0; i < ax; i++) o.d[o.rank++] = x->shape.d[i];
    for (i = 0; i < idx->shape.rank; i++) o.d[o.rank++] = idx->shape.d[i];
    for (i = ax + 1; i < x->shape.rank; i++) o.d[o.rank++] = x->shape.d[i];
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_gather(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok;
    int64_t outer, A, inner, ni, o, j;
    size_t esz = aicf_dtype_size(x->dtype), row;
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    ni = aicf__shape_numel(&idx->shape);
    row = (size_t)inner * esz;
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], A, "indices"));
    for (o = 0; o < outer; o++)
        for (j = 0; j < ni; j++) {
            int64_t k = aicf__op_index(idx, in[1], j, A, &ok);
            memcpy((unsigned char*)out[0] + (size_t)(o * ni + j) * row, (const unsigned char*)in[0] + (size_t)(o * A + k) * row, row);
        }
    return AICF_SUCCESS;
}

/* ---- GatherElements ---- */
static aicf_result aicf__op_infer_gather_el(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int ax, i;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    for (i = 0; i < x->shape.rank; i++)
        if (idx->shape.rank != x->shape.rank || (i != ax && idx->shape.d[i] > x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) shape %s does not fit input 0 shape %s",
                              aicf__op_in_name(c, 1), aicf__op_sstr(&idx->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &idx->shape);
}

static aicf_result aicf__op_run_gather_el(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok, k;
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&idx->shape), e;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], x->shape.d[ax], "indices"));
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &idx->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++)
            off += (k == ax ? aicf__op_index(idx, in[1], e, x->shape.d[ax], &ok) : it.idx[k]) * xst[k];
        aicf__op_copy_el(out[0], e, in[0], off, esz);
    }
    return AICF_SUCCESS;
}

/* ---- GatherND ---- */
static aicf_result aicf__op_gnd_make(const aicf__opc* c, int64_t* b, int64_t* k) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int q = idx->shape.rank, r = x->shape.rank, i;
    AICF__OP_TRY(aicf__op_ai(c, "batch_dims", 0, b));
    if (q < 1 || r < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "inputs must have rank >= 1");
    *k = idx->shape.d[q - 1];
    if (*b < 0 || *b >= q || *b >= r)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'batch_dims' = %lld is out of range", (long long)*b);
    if (*k < 1 || *k > r - *b)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' last dimension %lld must be in [1, %lld]", aicf__op_in_name(c, 1),
                          (long long)*k, (long long)(r - *b));
    for (i = 0; i < *b; i++)
        if (x->shape.d[i] != idx->shape.d[i])
            return aicf__op_err(c, AICF_ERROR_SHAPE, "batch dimension %d differs between data (%lld) and indices (%lld)", i,
                              (long long)x->shape.d[i], (long long)idx->shape.d[i]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gather_nd(const aicf__opc* c) {
    const aicf__tensor *x, *idx;
    int64_t b, k;
    int i;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_gnd_make(c, &b, &k));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    memset(&o, 0, sizeof o);
    for (i = 0; i < idx->shape.rank - 1; i++) o.d[o.rank++] = idx->shape.d[i];
    for (i = (int)(b + k); i < x->shape.rank; i++) {
        if (o.rank >= AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank exceeds the limit %d", AICF_MAX_RANK);
        o.d[o.rank++] = x->shape.d[i];
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_gather_nd(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int64_t b, k, xst[AICF_MAX_RANK], nt, t, j, slice, nb, per_batch;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_gnd_make(c, &b, &k));
    aicf__op_strides(&x->shape, xst);
    nt = aicf__op_prod(idx->shape.d, 0, idx->shape.rank - 1); /* index tuples */
    nb = aicf__op_prod(idx->shape.d, 0, (int)b);
    per_batch = nb ? nt / nb : 0;
    slice = aicf__op_prod(x->shape.d, (int)(b + k), x->shape.rank);
    for (t = 0; t < nt; t++) {
        int64_t off = (per_batch ? t / per_batch : 0) * (b > 0 ? xst[b - 1] : 0);
        for (j = 0; j < k; j++) {
            int64_t dim = x->shape.d[b + j];
            int64_t v = aicf__op_geti(idx->dtype, in[1], t * k + j);
            if (v < -dim || v >= dim)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "input 1 '%.200s' element %lld = %lld is out of range [%lld, %lld]",
                                  aicf__op_in_name(c, 1), (long long)(t * k + j), (long long)v, (long long)-dim, (long long)(dim - 1));
            off += (v < 0 ? v + dim : v) * xst[b + j];
        }
        if (slice) memcpy((unsigned char*)out[0] + (size_t)(t * slice) * esz, (const unsigned char*)in[0] + (size_t)off * esz, (size_t)slice * esz);
    }
    return AICF_SUCCESS;
}

/* ---- Slice ---- */
typedef struct aicf__op_sl {
    int64_t start[AICF_MAX_RANK], step[AICF_MAX_RANK];
    aicf__shape o;
} aicf__op_sl;

/* Reads an INTS attribute into vals (at most AICF_MAX_RANK). */
static aicf_result aicf__op_aints_r(const aicf__opc* c, const char* name, int64_t* vals, int* cnt) {
    const int64_t* v;
    int i;
    AICF__OP_TRY(aicf__op_aints(c, name, &v, cnt));
    if (*cnt > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values (rank limit %d)", name, *cnt, AICF_MAX_RANK);
    for (i = 0; i < *cnt; i++) vals[i] = v[i];
    return AICF_SUCCESS;
}

static int64_t aicf__op_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static aicf_result aicf__op_slice_make(const aicf__opc* c, aicf__op_sl* s) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t st[AICF_MAX_RANK], en[AICF_MAX_RANK], ax[AICF_MAX_RANK], sp[AICF_MAX_RANK];
    int ns, ne, na = -1, np = -1, i, r = x->shape.rank, used[AICF_MAX_RANK];
    memset(s, 0, sizeof *s);
    if (c->opset < 10) {
        AICF__OP_TRY(aicf__op_aints_r(c, "starts", st, &ns));
        AICF__OP_TRY(aicf__op_aints_r(c, "ends", en, &ne));
        AICF__OP_TRY(aicf__op_aints_r(c, "axes", ax, &na));
        if (ns < 0 || ne < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attributes 'starts' and 'ends' are missing");
    } else {
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "starts", st, AICF_MAX_RANK, &ns));
        AICF__OP_TRY(aicf__op_const_ints(c, 2, "ends", en, AICF_MAX_RANK, &ne));
        AICF__OP_TRY(aicf__op_const_ints(c, 3, "axes", ax, AICF_MAX_RANK, &na));
        AICF__OP_TRY(aicf__op_const_ints(c, 4, "steps", sp, AICF_MAX_RANK, &np));
    }
    if (ns != ne || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "starts, ends, axes and steps have different lengths (%d, %d, %d, %d)", ns, ne, na, np);
    s->o = x->shape;
    for (i = 0; i < r; i++) {
        s->start[i] = 0;
        s->step[i] = 1;
        used[i] = 0;
    }
    for (i = 0; i < ns; i++) {
        int a;
        int64_t n, b, e, step = np >= 0 ? sp[i] : 1, len;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", na >= 0 ? ax[i] : i, r, &a));
        if (used[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        if (step == 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "steps[%d] is 0", i);
        if (step < -INT64_MAX) step = -INT64_MAX;
        n = x->shape.d[a];
        b = st[i];
        e = en[i];
        if (b < 0) b += n;
        if (e < 0) e += n;
        if (n == 0) {
            b = 0;
            len = 0;
        } else if (step > 0) {
            b = aicf__op_clamp(b, 0, n);
            e = aicf__op_clamp(e, 0, n);
            len = e > b ? (e - b - 1) / step + 1 : 0;
        } else {
            b = aicf__op_clamp(b, 0, n - 1);
            e = aicf__op_clamp(e, -1, n - 1);
            len = b > e ? (b - e - 1) / -step + 1 : 0;
        }
        s->start[a] = b;
        s->step[a] = step;
        s->o.d[a] = len;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_slice(const aicf__opc* c) {
    aicf__op_sl s;
    int i;
    if (c->opset < 10) AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 3, 5, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    for (i = 1; i < 5; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_slice_make(c, &s));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &s.o);
}

static aicf_result aicf__op_run_slice(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_sl s;
    int64_t xst[AICF_MAX_RANK], n, e, base = 0;
    int k;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_slice_make(c, &s));
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &s.o, 1);
    for (k = 0; k < x->shape.rank; k++) {
        base += s.start[k] * xst[k];
        it.st[0][k] = s.step[k] * xst[k];
    }
    n = aicf__shape_numel(&s.o);
    it.off[0] = base;
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) aicf__op_copy_el(out[0], e, in[0], it.off[0], esz);
    return AICF_SUCCESS;
}

/* ---- Split ---- */
typedef struct aicf__op_split {
    int ax;
    int n;                   /* outputs */
    int64_t dim;
    const int64_t* attr;     /* 'split' attribute, or */
    const aicf__tensor* t;   /* 'split' input, or neither: equal parts of `chunk` */
    int64_t chunk;
} aicf__op_split;

static int64_t aicf__op_split_size(const aicf__op_split* s, int k) {
    if (s->attr) return s->attr[k];
    if (s->t) {
        if (s->t->dtype == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, (const unsigned char*)s->t->data + (size_t)k * 4, 4);
            return v;
        } else {
            int64_t v;
            memcpy(&v, (const unsigned char*)s->t->data + (size_t)k * 8, 8);
            return v;
        }
    }
    return k == s->n - 1 ? s->dim - s->chunk * (s->n - 1) : s->chunk;
}

static aicf_result aicf__op_split_make(const aicf__opc* c, aicf__op_split* s) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis, num = 0, sum = 0;
    int cnt = -1, k;
    memset(s, 0, sizeof *s);
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, &s->ax));
    s->n = c->n->n_out;
    s->dim = x->shape.d[s->ax];
    if (c->opset >= 18) AICF__OP_TRY(aicf__op_ai(c, "num_outputs", 0, &num));
    if (c->opset < 13 && aicf__attr(c->n, "split")) {
        AICF__OP_TRY(aicf__op_aints(c, "split", &s->attr, &cnt));
    } else if (aicf__op_in(c, 1)) {
        const aicf__tensor* t = aicf__op_in(c, 1);
        int64_t ne = aicf__shape_numel(&t->shape);
        if (!(t->flags & AICF__T_CONST) || (!t->data && ne > 0))
            return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 1 '%.200s' must be a constant at plan time (it gives the split)",
                              aicf__op_in_name(c, 1));
        if (t->shape.rank > 1 || t->data_bytes < aicf__op_tbytes(t))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 1 '%.200s' (split) must be a 1-D int64 tensor", aicf__op_in_name(c, 1));
        s->t = t;
        cnt = (int)ne;
    }
    if (cnt >= 0 && num)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "has both a 'split' input and attribute 'num_outputs'");
    if (num && num != s->n)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'num_outputs' = %lld but the node has %d outputs", (long long)num, s->n);
    if (cnt >= 0) {
        if (cnt != s->n)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, s->n);
        for (k = 0; k < s->n; k++) {
            int64_t v = aicf__op_split_size(s, k);
            if (v < 0 || v > s->dim) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "split[%d] = %lld is invalid", k, (long long)v);
            sum += v;
        }
        if (sum != s->dim)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "split sums to %lld but axis %d has size %lld", (long long)sum, s->ax, (long long)s->dim);
    } else {
        /* equal parts; when the size does not divide, ceil(dim / n) each and a smaller last one */
        s->chunk = s->dim / s->n + (s->dim % s->n != 0);
        if (s->dim - s->chunk * (s->n - 1) < 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "cannot split axis %d of size %lld into %d parts", s->ax, (long long)s->dim, s->n);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_split(const aicf__opc* c) {
    aicf__op_split s;
    const aicf__tensor* x;
    int k;
    AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset >= 13 || c->opset < 2 ? 2 : 1, 1, AICF_MAX_NODE_IO));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_split_make(c, &s));
    x = aicf__op_in(c, 0);
    for (k = 0; k < s.n; k++) {
        aicf__shape o = x->shape;
        o.d[s.ax] = aicf__op_split_size(&s, k);
        AICF__OP_TRY(aicf__op_set_out(c, k, x->dtype, &o));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_run_split(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_split s;
    int k;
    int64_t outer, inner, pos = 0, o;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_split_make(c, &s));
    outer = aicf__op_prod(x->shape.d, 0, s.ax);
    inner = aicf__op_prod(x->shape.d, s.ax + 1, x->shape.rank);
    for (k = 0; k < s.n; k++) {
        int64_t sk = aicf__op_split_size(&s, k);
        size_t row = (size_t)(sk * inner) * esz;
        if (out[k] && row)
            for (o = 0; o < outer; o++)
                memcpy((unsigned char*)out[k] + (size_t)o * row, (const unsigned char*)in[0] + (size_t)((o * s.dim + pos) * inner) * esz, row);
        pos += sk;
    }
    return AICF_SUCCESS;
}

/* ---- Pad ---- */
enum { AICF__PAD_CONSTANT = 0, AICF__PAD_REFLECT = 1, AICF__PAD_EDGE = 2, AICF__PAD_WRAP = 3 };

typedef struct aicf__op_pad {
    int mode;
    int64_t pb[AICF_MAX_RANK], pe[AICF_MAX_RANK];
    aicf__shape o;
    double value; /* constant before opset 11 (attribute 'value') */
} aicf__op_pad;

static aicf_result aicf__op_pad_make(const aicf__opc* c, aicf__op_pad* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t pads[2 * AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int np = -1, na = -1, r = x->shape.rank, i, used[AICF_MAX_RANK];
    const char* mode;
    char b1[160];
    memset(p, 0, sizeof *p);
    AICF__OP_TRY(aicf__op_as(c, "mode", "constant", &mode));
    if (!strcmp(mode, "constant")) p->mode = AICF__PAD_CONSTANT;
    else if (!strcmp(mode, "reflect")) p->mode = AICF__PAD_REFLECT;
    else if (!strcmp(mode, "edge")) p->mode = AICF__PAD_EDGE;
    else if (!strcmp(mode, "wrap") && c->opset >= 19) p->mode = AICF__PAD_WRAP;
    else return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected constant, reflect, edge or wrap (opset >= 19)", mode);
    if (c->opset < 11) {
        const int64_t* v;
        float f;
        const char* an = c->opset < 2 ? "paddings" : "pads";
        AICF__OP_TRY(aicf__op_aints(c, an, &v, &np));
        if (np < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute '%s' is missing", an);
        if (np > 2 * AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values", an, np);
        for (i = 0; i < np; i++) pads[i] = v[i];
        AICF__OP_TRY(aicf__op_af(c, "value", 0.0f, &f));
        p->value = f;
    } else {
        const aicf__tensor* cv = aicf__op_in(c, 2);
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "pads", pads, 2 * AICF_MAX_RANK, &np));
        if (c->opset >= 18) AICF__OP_TRY(aicf__op_const_ints(c, 3, "axes", axes, AICF_MAX_RANK, &na));
        if (cv && aicf__shape_numel(&cv->shape) != 1)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (constant_value) must hold one value, has shape %s",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&cv->shape, b1, sizeof b1));
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if (np != 2 * na)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "pads has %d values; expected %d (2 per axis)", np, 2 * na);
    memset(used, 0, sizeof used);
    p->o = x->shape;
    for (i = 0; i < na; i++) {
        int a;
        int64_t b = pads[i], e = pads[na + i], n;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        if (used[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        n = x->shape.d[a];
        if (b < -n || e < -n || b > AICF__OP_MAX_WINDOW || e > AICF__OP_MAX_WINDOW || n + b + e < 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "pads (%lld, %lld) are invalid for axis %d of size %lld", (long long)b,
                              (long long)e, a, (long long)n);
        if (p->mode != AICF__PAD_CONSTANT && (b > 0 || e > 0) && n + (b < 0 ? b : 0) + (e < 0 ? e : 0) <= 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "mode '%s' cannot pad axis %d: it has no elements", mode, a);
        p->pb[a] = b;
        p->pe[a] = e;
        p->o.d[a] = n + b + e;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_pad(const aicf__opc* c) {
    aicf__op_pad p;
    if (c->opset < 11) AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 2, c->opset >= 18 ? 4 : 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    AICF__OP_TRY(aicf__op_check_dt(c, 3, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_pad_make(c, &p));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &p.o);
}

/* Index into an axis of n elements for position i (outside [0, n) for the padding). */
static int64_t aicf__op_pad_index(int mode, int64_t i, int64_t n) {
    int64_t m;
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case AICF__PAD_EDGE: return i < 0 ? 0 : n - 1;
    case AICF__PAD_WRAP:
        m = i % n;
        return m < 0 ? m + n : m;
    case AICF__PAD_REFLECT:
        if (n == 1) return 0;
        m = i % (2 * (n - 1));
        if (m < 0) m += 2 * (n - 1);
        return m >= n ? 2 * (n - 1) - m : m;
    default: return -1;
    }
}

static aicf_result aicf__op_run_pad(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_pad p;
    int64_t xst[AICF_MAX_RANK], lo[AICF_MAX_RANK], cn[AICF_MAX_RANK], n, e;
    int k, r = x->shape.rank;
    size_t esz = aicf_dtype_size(x->dtype);
    unsigned char val[8];
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_pad_make(c, &p));
    memset(val, 0, sizeof val);
    if (c->opset < 11) aicf__op_setd(x->dtype, val, 0, p.value);
    else if (aicf__op_in(c, 2) && in[2]) memcpy(val, in[2], esz);
    aicf__op_strides(&x->shape, xst);
    /* negative pads crop first; the cropped input is then padded */
    for (k = 0; k < r; k++) {
        lo[k] = p.pb[k] < 0 ? -p.pb[k] : 0;
        cn[k] = x->shape.d[k] - lo[k] - (p.pe[k] < 0 ? -p.pe[k] : 0);
    }
    n = aicf__shape_numel(&p.o);
    aicf__op_ix_init(&it, &p.o, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        int inside = 1;
        for (k = 0; k < r && inside; k++) {
            int64_t i = it.idx[k] - (p.pb[k] > 0 ? p.pb[k] : 0);
            i = aicf__op_pad_index(p.mode, i, cn[k]);
            if (i < 0) inside = 0;
            else off += (lo[k] + i) * xst[k];
        }
        if (inside) aicf__op_copy_el(out[0], e, in[0], off, esz);
        else memcpy((unsigned char*)out[0] + (size_t)e * esz, val, esz);
    }
    return AICF_SUCCESS;
}

/* ---- Tile, Expand ---- */
static aicf_result aicf__op_tile_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t rep[AICF_MAX_RANK];
    int cnt, i;
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "repeats", rep, AICF_MAX_RANK, &cnt));
    if (cnt != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "repeats has %d values; input 0 has rank %d", cnt, x->shape.rank);
    *o = x->shape;
    for (i = 0; i < cnt; i++) {
        if (rep[i] < 0 || (x->shape.d[i] && rep[i] > INT64_MAX / x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "repeats[%d] = %lld is invalid", i, (long long)rep[i]);
        o->d[i] = x->shape.d[i] * rep[i];
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_expand_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK];
    int cnt, i;
    aicf__shape s;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
    for (i = 0; i < cnt; i++)
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
    aicf__op_shape_set(&s, cnt, sh);
    if (!aicf__op_bcast2(&x->shape, &s, o))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 shape %s cannot be broadcast to %s", aicf__op_sstr(&x->shape, b1, sizeof b1),
                          aicf__op_sstr(&s, b2, sizeof b2));
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_tile_expand(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    if (c->n->op == AICF__OP_Tile) AICF__OP_TRY(aicf__op_tile_shape(c, &o));
    else AICF__OP_TRY(aicf__op_expand_shape(c, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_tile_expand(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t n = aicf__shape_numel(&y->shape), e, xst[AICF_MAX_RANK];
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    int k;
    if (c->n->op == AICF__OP_Expand) {
        aicf__op_ix_init(&it, &y->shape, 1);
        aicf__op_bcast_strides(&x->shape, &y->shape, it.st[0]);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) aicf__op_copy_el(out[0], e, in[0], it.off[0], esz);
        return AICF_SUCCESS;
    }
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &y->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++) off += (it.idx[k] % x->shape.d[k]) * xst[k];
        aicf__op_copy_el(out[0], e, in[0], off, esz);
    }
    return AICF_SUCCESS;
}

/* ---- Trilu ---- */
static aicf_result aicf__op_infer_trilu(const aicf__opc* c) {
    const aicf__tensor* x;
    const aicf__tensor* k;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_INT64)));
    x = aicf__op_in(c, 0);
    k = aicf__op_in(c, 1);
    if (x->shape.rank < 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected >= 2", aicf__op_in_name(c, 0), x->shape.rank);
    if (k && aicf__shape_numel(&k->shape) != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (k) must be a scalar", aicf__op_in_name(c, 1));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_trilu(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t upper, k = 0, M = x->shape.d[x->shape.rank - 2], N = x->shape.d[x->shape.rank - 1], B, b, i, j;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_ai(c, "upper", 1, &upper));
    if (aicf__op_in(c, 1) && in[1]) memcpy(&k, in[1], 8);
    k = aicf__op_clamp(k, -(M + N), M + N); /* j - i lies in (-M, N): keeps the comparison exact */
    B = aicf__op_prod(x->shape.d, 0, x->shape.rank - 2);
    for (b = 0; b < B; b++)
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                int64_t e = (b * M + i) * N + j;
                int keep = upper ? j - i >= k : j - i <= k;
                if (keep) aicf__op_copy_el(out[0], e, in[0], e, esz);
                else memset((unsigned char*)out[0] + (size_t)e * esz, 0, esz);
            }
    return AICF_SUCCESS;
}

/* ---- Range ---- */
static aicf_result aicf__op_range_len(const aicf__opc* c, int64_t* len) {
    const aicf__tensor* t = aicf__op_in(c, 0);
    double ds, dl, dd;
    int64_t is, il, id;
    AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", &ds, &is));
    AICF__OP_TRY(aicf__op_const_scalar(c, 1, "limit", &dl, &il));
    AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", &dd, &id));
    if (aicf__op_dt_isfloat(t->dtype)) {
        double n;
        if (dd == 0.0 || dd != dd || ds != ds || dl != dl || isinf(ds) || isinf(dl))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "start %g, limit %g, delta %g give no finite range", ds, dl, dd);
        n = ceil((dl - ds) / dd);
        if (n > 9.0e15) return aicf__op_err(c, AICF_ERROR_LIMIT, "range of %g elements is too long", n);
        *len = n > 0 ? (int64_t)n : 0;
    } else {
        uint64_t diff, ad;
        if (id == 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "delta is 0");
        if ((id > 0 && il <= is) || (id < 0 && il >= is)) {
            *len = 0;
            return AICF_SUCCESS;
        }
        diff = id > 0 ? (uint64_t)il - (uint64_t)is : (uint64_t)is - (uint64_t)il;
        ad = id > 0 ? (uint64_t)id : 0 - (uint64_t)id;
        diff = diff / ad + (diff % ad != 0);
        if (diff > (uint64_t)INT64_MAX) return aicf__op_err(c, AICF_ERROR_LIMIT, "range is too long");
        *len = (int64_t)diff;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_range(const aicf__opc* c) {
    int64_t n = 0;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    for (i = 1; i < 3; i++) AICF__OP_TRY(aicf__op_same_dt(c, i, 0));
    AICF__OP_TRY(aicf__op_range_len(c, &n));
    memset(&o, 0, sizeof o);
    o.rank = 1;
    o.d[0] = n;
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

static aicf_result aicf__op_run_range(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf_dtype dt = aicf__op_in(c, 0)->dtype;
    int64_t n = aicf__op_out(c, 0)->shape.d[0], i;
    (void)in;
    if (aicf__op_dt_isfloat(dt)) {
        double s, d;
        AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", &s, NULL));
        AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", &d, NULL));
        for (i = 0; i < n; i++) aicf__op_setd(dt, out[0], i, s + (double)i * d);
    } else {
        int64_t s, d;
        AICF__OP_TRY(aicf__op_const_scalar(c, 0, "start", NULL, &s));
        AICF__OP_TRY(aicf__op_const_scalar(c, 2, "delta", NULL, &d));
        for (i = 0; i < n; i++) aicf__op_seti(dt, out[0], i, (int64_t)((uint64_t)s + (uint64_t)i * (uint64_t)d));
    }
    return AICF_SUCCESS;
}

/* ---- Size, CastLike ---- */
static aicf_result aicf__op_infer_size(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    memset(&o, 0, sizeof o);
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_infer_castlike(const aicf__opc* c) {
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_ALL));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 1)->dtype, &aicf__op_in(c, 0)->shape);
}

/* ---- OneHot ---- */
static aicf_result aicf__op_onehot_make(const aicf__opc* c, int* ax, int64_t* depth) {
    const aicf__tensor* idx = aicf__op_in(c, 0);
    const aicf__tensor* v = aicf__op_in(c, 2);
    int64_t axis;
    double dd;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, idx->shape.rank + 1, ax));
    AICF__OP_TRY(aicf__op_const_scalar(c, 1, "depth", &dd, depth));
    if (dd < 1.0 || dd > (double)AICF__OP_MAX_WINDOW)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "depth %g is out of range", dd);
    if (aicf__shape_numel(&v->shape) != 2 || v->shape.rank != 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (values) must have shape [2]", aicf__op_in_name(c, 2));
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_onehot(const aicf__opc* c) {
    const aicf__tensor* idx;
    int ax, i;
    int64_t depth;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_ALL));
    idx = aicf__op_in(c, 0);
    if (idx->shape.rank + 1 > AICF_MAX_RANK)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "output rank %d exceeds the limit %d", idx->shape.rank + 1, AICF_MAX_RANK);
    AICF__OP_TRY(aicf__op_onehot_make(c, &ax, &depth));
    memset(&o, 0, sizeof o);
    for (i = 0; i < ax; i++) o.d[o.rank++] = idx->shape.d[i];
    o.d[o.rank++] = depth;
    for (i = ax; i < idx->shape.rank; i++) o.d[o.rank++] = idx->shape.d[i];
    return aicf__op_set_out(c, 0, aicf__op_in(c, 2)->dtype, &o);
}

static aicf_result aicf__op_run_onehot(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* idx = aicf__op_in(c, 0);
    size_t esz = aicf_dtype_size(aicf__op_in(c, 2)->dtype);
    int ax;
    int64_t depth, outer, inner, o, d, i;
    AICF__OP_TRY(aicf__op_onehot_make(c, &ax, &depth));
    outer = aicf__op_prod(idx->shape.d, 0, ax);
    inner = aicf__op_prod(idx->shape.d, ax, idx->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t v = aicf__op_geti(idx->dtype, in[0], o * inner + i);
            if (v < 0) v += depth;
            for (d = 0; d < depth; d++) aicf__op_copy_el(out[0], (o * depth + d) * inner + i, in[2], v == d ? 1 : 0, esz);
        }
    return AICF_SUCCESS;
}

/* ---- CumSum ---- */
static aicf_result aicf__op_cumsum_axis(const aicf__opc* c, const void* axis_data, int* ax) {
    const aicf__tensor* t = aicf__op_in(c, 1);
    unsigned char tmp[8];
    if (aicf__shape_numel(&t->shape) != 1 || t->shape.rank > 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (axis) must be a scalar", aicf__op_in_name(c, 1));
    if (!axis_data) {
        if (!(t->flags & AICF__T_CONST) || !t->data) {
            *ax = -1;
            return AICF_SUCCESS; /* known at run time */
        }
        axis_data = t->data;
    }
    memcpy(tmp, axis_data, aicf_dtype_size(t->dtype));
    return aicf__op_axis(c, "axis", aicf__op_geti(t->dtype, tmp, 0), aicf__op_in(c, 0)->shape.rank, ax);
}

static aicf_result aicf__op_infer_cumsum(const aicf__opc* c) {
    int ax;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    if (aicf__op_in(c, 0)->shape.rank < 1)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_cumsum_axis(c, NULL, &ax));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_cumsum(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype dt = x->dtype;
    int ax, fl = aicf__op_dt_isfloat(dt), prod = c->n->op == AICF__OP_CumProd;
    int64_t excl, rev, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_cumsum_axis(c, in[1], &ax));
    AICF__OP_TRY(aicf__op_ai(c, "exclusive", 0, &excl));
    AICF__OP_TRY(aicf__op_ai(c, "reverse", 0, &rev));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double sd = prod ? 1.0 : 0.0;
            uint64_t si = prod ? 1u : 0u;
            for (a = 0; a < A; a++) {
                int64_t e = (o * A + (rev ? A - 1 - a : a)) * inner + i;
                if (fl) {
                    double v = aicf__op_getd(dt, in[0], e);
                    if (!excl) sd = prod ? sd * v : sd + v;
                    aicf__op_setd(dt, out[0], e, sd);
                    if (excl) sd = prod ? sd * v : sd + v;
                    if (dt == AICF_DTYPE_FLOAT32) sd = (float)sd; /* a float32 running value */
                } else {
                    uint64_t v = (uint64_t)aicf__op_geti(dt, in[0], e);
                    if (!excl) si = prod ? si * v : si + v;
                    aicf__op_seti(dt, out[0], e, (int64_t)si);
                    if (excl) si = prod ? si * v : si + v;
                }
            }
        }
    return AICF_SUCCESS;
}

/* ---- DepthToSpace, SpaceToDepth ---- */
static aicf_result aicf__op_d2s_make(const aicf__opc* c, int64_t* b, int* crd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const char* mode = "DCR";
    char b1[160];
    int d2s = c->n->op == AICF__OP_DepthToSpace;
    *crd = 0;
    if (!aicf__attr(c->n, "blocksize")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'blocksize' is missing");
    AICF__OP_TRY(aicf__op_ai(c, "blocksize", 0, b));
    if (*b < 1 || *b > 65536) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'blocksize' = %lld is invalid", (long long)*b);
    AICF__OP_TRY(aicf__op_as(c, "mode", "DCR", &mode));
    if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected DCR or CRD", mode);
    *crd = !strcmp(mode, "CRD");
    if (x->shape.rank != 4)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' shape %s is not 4-D (NCHW)", aicf__op_in_name(c, 0),
                          aicf__op_sstr(&x->shape, b1, sizeof b1));
    if (d2s ? x->shape.d[1] % (*b * *b) != 0 : (x->shape.d[2] % *b != 0 || x->shape.d[3] % *b != 0))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 shape %s is not divisible by blocksize %lld", aicf__op_sstr(&x->shape, b1, sizeof b1),
                          (long long)*b);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_d2s(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t b;
    int crd;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_d2s_make(c, &b, &crd));
    x = aicf__op_in(c, 0);
    o = x->shape;
    if (c->n->op == AICF__OP_DepthToSpace) {
        o.d[1] /= b * b;
        o.d[2] *= b;
        o.d[3] *= b;
    } else {
        o.d[1] *= b * b;
        o.d[2] /= b;
        o.d[3] /= b;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_d2s(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t b, n, ch, h, w, Cy = y->shape.d[1], Hy = y->shape.d[2], Wy = y->shape.d[3];
    int64_t Cx = x->shape.d[1], Hx = x->shape.d[2], Wx = x->shape.d[3], e = 0;
    int crd, d2s = c->n->op == AICF__OP_DepthToSpace;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_d2s_make(c, &b, &crd));
    for (n = 0; n < y->shape.d[0]; n++)
        for (ch = 0; ch < Cy; ch++)
            for (h = 0; h < Hy; h++)
                for (w = 0; w < Wy; w++, e++) {
                    int64_t xc, xh, xw;
                    if (d2s) {
                        int64_t bh = h % b, bw = w % b;
                        xc = crd ? ch * b * b + bh * b + bw : (bh * b + bw) * Cy + ch;
                        xh = h / b;
                        xw = w / b;
                    } else {
                        /* DCR: channel (bh * b + bw) * C + c; CRD: c * b * b + bh * b + bw */
                        int64_t blk = crd ? ch % (b * b) : ch / Cx, cc = crd ? ch / (b * b) : ch % Cx;
                        xc = cc;
                        xh = h * b + blk / b;
                        xw = w * b + blk % b;
                    }
                    aicf__op_copy_el(out[0], e, in[0], ((n * Cx + xc) * Hx + xh) * Wx + xw, esz);
                }
    return AICF_SUCCESS;
}

/* ---- ScatterND, ScatterElements (and Scatter, opset 9-10) ---- */
enum { AICF__RED_NONE = 0, AICF__RED_ADD = 1, AICF__RED_MUL = 2, AICF__RED_MAX = 3, AICF__RED_MIN = 4 };

static aicf_result aicf__op_scatter_red(const aicf__opc* c, int* red) {
    const char* r;
    AICF__OP_TRY(aicf__op_as(c, "reduction", "none", &r));
    if (!strcmp(r, "none")) *red = AICF__RED_NONE;
    else if (!strcmp(r, "add")) *red = AICF__RED_ADD;
    else if (!strcmp(r, "mul")) *red = AICF__RED_MUL;
    else if (!strcmp(r, "max")) *red = AICF__RED_MAX;
    else if (!strcmp(r, "min")) *red = AICF__RED_MIN;
    else return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'reduction' is '%.40s'; expected none, add, mul, max or min", r);
    return AICF_SUCCESS;
}

/* dst[di] = reduce(dst[di], src[si]) */
static void aicf__op_scatter_el(aicf_dtype dt, int red, void* dst, int64_t di, const void* src, int64_t si) {
    size_t esz = aicf_dtype_size(dt);
    if (red == AICF__RED_NONE) {
        aicf__op_copy_el(dst, di, src, si, esz);
    } else if (aicf__op_dt_isfloat(dt)) {
        double a = aicf__op_getd(dt, dst, di), b = aicf__op_getd(dt, src, si);
        double r = red == AICF__RED_ADD ? a + b : red == AICF__RED_MUL ? a * b : red == AICF__RED_MAX ? (a > b ? a : b) : (a < b ? a : b);
        aicf__op_setd(dt, dst, di, dt == AICF_DTYPE_FLOAT32 ? (double)(float)r : r);
    } else {
        int64_t a = aicf__op_geti(dt, dst, di), b = aicf__op_geti(dt, src, si), r;
        if (red == AICF__RED_ADD) r = (int64_t)((uint64_t)a + (uint64_t)b);
        else if (red == AICF__RED_MUL) r = (int64_t)((uint64_t)a * (uint64_t)b);
        else if (dt == AICF_DTYPE_UINT64) r = (red == AICF__RED_MAX) == ((uint64_t)a > (uint64_t)b) ? a : b;
        else r = red == AICF__RED_MAX ? (a > b ? a : b) : (a < b ? a : b);
        aicf__op_seti(dt, dst, di, r);
    }
}

static aicf_result aicf__op_infer_scatter_nd(const aicf__opc* c) {
    const aicf__tensor *x, *idx, *u;
    int q, i, red, ok;
    int64_t k;
    aicf__shape want;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    u = aicf__op_in(c, 2);
    q = idx->shape.rank;
    if (q < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) is a scalar", aicf__op_in_name(c, 1));
    k = idx->shape.d[q - 1];
    if (k < 1 || k > x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' last dimension %lld must be in [1, %d]", aicf__op_in_name(c, 1),
                          (long long)k, x->shape.rank);
    memset(&want, 0, sizeof want);
    for (i = 0; i < q - 1; i++) want.d[want.rank++] = idx->shape.d[i];
    for (i = (int)k; i < x->shape.rank && want.rank < AICF_MAX_RANK; i++) want.d[want.rank++] = x->shape.d[i];
    ok = want.rank == u->shape.rank;
    for (i = 0; ok && i < want.rank; i++) ok = want.d[i] == u->shape.d[i];
    if (!ok)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (updates) shape %s; expected %s", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&u->shape, b1, sizeof b1), aicf__op_sstr(&want, b2, sizeof b2));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_scatter_nd(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int red;
    int64_t k = idx->shape.d[idx->shape.rank - 1], xst[AICF_MAX_RANK], nt, t, j, slice, s;
    AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    aicf__op_strides(&x->shape, xst);
    nt = aicf__op_prod(idx->shape.d, 0, idx->shape.rank - 1);
    slice = aicf__op_prod(x->shape.d, (int)k, x->shape.rank);
    memcpy(out[0], in[0], aicf__op_tbytes(x));
    for (t = 0; t < nt; t++) {
        int64_t off = 0;
        for (j = 0; j < k; j++) {
            int64_t dim = x->shape.d[j], v = aicf__op_geti(idx->dtype, in[1], t * k + j);
            if (v < -dim || v >= dim)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "input 1 '%.200s' element %lld = %lld is out of range [%lld, %lld]",
                                  aicf__op_in_name(c, 1), (long long)(t * k + j), (long long)v, (long long)-dim, (long long)(dim - 1));
            off += (v < 0 ? v + dim : v) * xst[j];
        }
        for (s = 0; s < slice; s++) aicf__op_scatter_el(x->dtype, red, out[0], off + s, in[2], t * slice + s);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_scatter_el(const aicf__opc* c) {
    const aicf__tensor *x, *idx, *u;
    int ax, i, red = 0;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_same_dt(c, 2, 0));
    if (c->n->op == AICF__OP_ScatterElements) AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    x = aicf__op_in(c, 0);
    idx = aicf__op_in(c, 1);
    u = aicf__op_in(c, 2);
    for (i = 0; i < idx->shape.rank; i++)
        if (u->shape.rank != idx->shape.rank || u->shape.d[i] != idx->shape.d[i])
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (updates) shape %s differs from indices shape %s",
                              aicf__op_in_name(c, 2), aicf__op_sstr(&u->shape, b1, sizeof b1), aicf__op_sstr(&idx->shape, b2, sizeof b2));
    for (i = 0; i < x->shape.rank; i++)
        if (idx->shape.rank != x->shape.rank || (i != ax && idx->shape.d[i] > x->shape.d[i]))
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (indices) shape %s does not fit input 0 shape %s",
                              aicf__op_in_name(c, 1), aicf__op_sstr(&idx->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, NULL, x->shape.d[ax], "indices"));
    return aicf__op_set_out(c, 0, x->dtype, &x->shape);
}

static aicf_result aicf__op_run_scatter_el(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* idx = aicf__op_in(c, 1);
    int ax, ok, k, red = 0;
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&idx->shape), e;
    aicf__op_ix it;
    if (c->n->op == AICF__OP_ScatterElements) AICF__OP_TRY(aicf__op_scatter_red(c, &red));
    AICF__OP_TRY(aicf__op_gather_axis(c, &ax));
    AICF__OP_TRY(aicf__op_check_indices(c, 1, in[1], x->shape.d[ax], "indices"));
    aicf__op_strides(&x->shape, xst);
    memcpy(out[0], in[0], aicf__op_tbytes(x));
    aicf__op_ix_init(&it, &idx->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        for (k = 0; k < x->shape.rank; k++)
            off += (k == ax ? aicf__op_index(idx, in[1], e, x->shape.d[ax], &ok) : it.idx[k]) * xst[k];
        aicf__op_scatter_el(x->dtype, red, out[0], off, in[2], e);
    }
    return AICF_SUCCESS;
}

/* ---- TopK ---- */
static aicf_result aicf__op_topk_make(const aicf__opc* c, int* ax, int64_t* k) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    if (c->opset < 10) {
        if (!aicf__attr(c->n, "k")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'k' is missing");
        AICF__OP_TRY(aicf__op_ai(c, "k", 0, k));
    } else {
        int64_t v[1];
        int cnt;
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "K", v, 1, &cnt));
        if (cnt != 1) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 1 '%.200s' (K) must hold one value", aicf__op_in_name(c, 1));
        *k = v[0];
    }
    if (*k < 0 || *k > x->shape.d[*ax])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "k = %lld is out of range for axis %d of size %lld", (long long)*k, *ax,
                          (long long)x->shape.d[*ax]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_topk(const aicf__opc* c) {
    int ax;
    int64_t k;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, c->opset < 10 ? 1 : 2, c->opset < 10 ? 1 : 2, 2, 2));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_topk_make(c, &ax, &k));
    o = aicf__op_in(c, 0)->shape;
    o.d[ax] = k;
    AICF__OP_TRY(aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o));
    return aicf__op_set_out(c, 1, AICF_DTYPE_INT64, &o);
}

/* a before b in the TopK order: larger (or smaller) values first, then lower indices */
static int aicf__op_topk_before(double va, int64_t ia, double vb, int64_t ib, int largest) {
    if (va != vb) return largest ? va > vb : va < vb;
    return ia < ib;
}

static aicf_result aicf__op_run_topk(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int ax;
    int64_t k, largest, outer, A, inner, o, i, a, j, *idx, *tmp;
    double* val;
    AICF__OP_TRY(aicf__op_topk_make(c, &ax, &k));
    AICF__OP_TRY(aicf__op_ai(c, "largest", 1, &largest));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    if (k == 0 || A == 0) return AICF_SUCCESS;
    idx = (int64_t*)aicf__calloc(c->ctx, (size_t)A * 2, sizeof(int64_t));
    val = (double*)aicf__calloc(c->ctx, (size_t)A, sizeof(double));
    if (!idx || !val) {
        aicf__free(c->ctx, idx);
        aicf__free(c->ctx, val);
        return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    tmp = idx + A;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t w;
            for (a = 0; a < A; a++) {
                val[a] = aicf__op_getd(x->dtype, in[0], (o * A + a) * inner + i);
                idx[a] = a;
            }
            /* bottom-up merge sort of idx (stable) */
            for (w = 1; w < A; w *= 2) {
                for (j = 0; j < A; j += 2 * w) {
                    int64_t l = j, m = j + w < A ? j + w : A, r = j + 2 * w < A ? j + 2 * w : A, p = l, q = m, t = l;
                    while (p < m || q < r) {
                        if (q >= r || (p < m && !aicf__op_topk_before(val[idx[q]], idx[q], val[idx[p]], idx[p], (int)largest)))
                            tmp[t++] = idx[p++];
                        else
                            tmp[t++] = idx[q++];
                    }
                }
                memcpy(idx, tmp, (size_t)A * sizeof(int64_t));
            }
            for (a = 0; a < k; a++) {
                int64_t e = (o * k + a) * inner + i;
                aicf__op_copy_el(out[0], e, in[0], (o * A + idx[a]) * inner + i, aicf_dtype_size(x->dtype));
                if (out[1]) ((int64_t*)out[1])[e] = idx[a];
            }
        }
    aicf__free(c->ctx, idx);
    aicf__free(c->ctx, val);
    return AICF_SUCCESS;
}

/* ---- NonZero (its output shape depends on the values: constant input only) ---- */
static int aicf__op_nz(aicf_dtype dt, const void* p, int64_t i) {
    if (aicf__op_dt_isfloat(dt)) return aicf__op_getd(dt, p, i) != 0.0;
    return aicf__op_geti(dt, p, i) != 0;
}

static aicf_result aicf__op_infer_nonzero(const aicf__opc* c) {
    const aicf__tensor* x;
    int64_t n, e, nnz = 0;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    x = aicf__op_in(c, 0);
    n = aicf__shape_numel(&x->shape);
    if (!(x->flags & AICF__T_CONST) || (n > 0 && (!x->data || x->data_bytes < aicf__op_tbytes(x))))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED,
                          "input 0 '%.200s' must be a constant at plan time (NonZero's output shape depends on its values)",
                          aicf__op_in_name(c, 0));
    for (e = 0; e < n; e++) {
        unsigned char tmp[8];
        memcpy(tmp, (const unsigned char*)x->data + (size_t)e * aicf_dtype_size(x->dtype), aicf_dtype_size(x->dtype));
        nnz += aicf__op_nz(x->dtype, tmp, 0);
    }
    memset(&o, 0, sizeof o);
    o.rank = 2;
    o.d[0] = x->shape.rank > 0 ? x->shape.rank : 1;
    o.d[1] = nnz;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_nonzero(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t n = aicf__shape_numel(&x->shape), e, nnz = y->shape.d[1], j = 0;
    int k, r = x->shape.rank;
    aicf__op_ix it;
    aicf__op_ix_init(&it, &x->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        if (!aicf__op_nz(x->dtype, in[0], e)) continue;
        if (j >= nnz) return aicf__op_err(c, AICF_ERROR_STATE, "input 0 changed after planning");
        if (r == 0) ((int64_t*)out[0])[j] = 0;
        for (k = 0; k < r; k++) ((int64_t*)out[0])[k * nnz + j] = it.idx[k];
        j++;
    }
    return AICF_SUCCESS;
}

/* ---- Compress (constant condition), ReverseSequence, CenterCropPad ---- */
static aicf_result aicf__op_compress_make(const aicf__opc* c, int* ax, int64_t* n_sel) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cond = aicf__op_in(c, 1);
    int64_t axis, nc = aicf__shape_numel(&cond->shape), i, lim;
    *ax = -1;
    *n_sel = 0;
    if (cond->shape.rank != 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (condition) must be 1-D", aicf__op_in_name(c, 1));
    if (!(cond->flags & AICF__T_CONST) || (nc > 0 && (!cond->data || cond->data_bytes < (size_t)nc)))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED,
                          "input 1 '%.200s' must be a constant at plan time (Compress's output shape depends on it)", aicf__op_in_name(c, 1));
    if (aicf__attr(c->n, "axis")) {
        int a;
        AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
        AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, &a));
        *ax = a;
    }
    lim = *ax >= 0 ? x->shape.d[*ax] : aicf__shape_numel(&x->shape);
    if (nc > lim)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 (condition) has %lld values for %lld elements", (long long)nc, (long long)lim);
    for (i = 0; i < nc; i++) *n_sel += ((const unsigned char*)cond->data)[i] != 0;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_compress(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax;
    int64_t ns;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_BOOL)));
    AICF__OP_TRY(aicf__op_compress_make(c, &ax, &ns));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    if (ax < 0) {
        o.rank = 1;
        o.d[0] = ns;
    } else {
        o = x->shape;
        o.d[ax] = ns;
    }
    return aicf__op_set_out(c, 0, x->dtype, &o);
}

static aicf_result aicf__op_run_compress(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cond = aicf__op_in(c, 1);
    const unsigned char* cd = (const unsigned char*)in[1];
    int ax;
    int64_t ns, nc = aicf__shape_numel(&cond->shape), outer, A, inner, o, i, j = 0;
    size_t esz = aicf_dtype_size(x->dtype);
    AICF__OP_TRY(aicf__op_compress_make(c, &ax, &ns));
    if (ax < 0) {
        for (i = 0; i < nc; i++)
            if (cd[i]) aicf__op_copy_el(out[0], j++, in[0], i, esz);
        return AICF_SUCCESS;
    }
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0, j = 0; i < nc; i++)
            if (cd[i]) {
                memcpy((unsigned char*)out[0] + (size_t)((o * ns + j) * inner) * esz, (const unsigned char*)in[0] + (size_t)((o * A + i) * inner) * esz,
                       (size_t)inner * esz);
                j++;
            }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_revseq_make(const aicf__opc* c, int* bax, int* tax) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* sl = aicf__op_in(c, 1);
    int64_t b, t;
    AICF__OP_TRY(aicf__op_ai(c, "batch_axis", 1, &b));
    AICF__OP_TRY(aicf__op_ai(c, "time_axis", 0, &t));
    if (x->shape.rank < 2) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must have rank >= 2", aicf__op_in_name(c, 0));
    if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attributes batch_axis = %lld and time_axis = %lld must be 0 and 1", (long long)b,
                          (long long)t);
    *bax = (int)b;
    *tax = (int)t;
    if (sl->shape.rank != 1 || sl->shape.d[0] != x->shape.d[b])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (sequence_lens) must have shape [%lld]", aicf__op_in_name(c, 1),
                          (long long)x->shape.d[b]);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_revseq(const aicf__opc* c) {
    int b, t;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM(AICF_DTYPE_INT64)));
    AICF__OP_TRY(aicf__op_revseq_make(c, &b, &t));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_revseq(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int b, t;
    int64_t T, B, inner, bi, ti;
    size_t esz = aicf_dtype_size(x->dtype), row;
    AICF__OP_TRY(aicf__op_revseq_make(c, &b, &t));
    T = x->shape.d[t];
    B = x->shape.d[b];
    inner = aicf__op_prod(x->shape.d, 2, x->shape.rank);
    row = (size_t)inner * esz;
    for (bi = 0; bi < B; bi++) {
        int64_t len = ((const int64_t*)in[1])[bi];
        if (len < 0 || len > T)
            return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "sequence_lens[%lld] = %lld is out of range [0, %lld]", (long long)bi,
                              (long long)len, (long long)T);
        for (ti = 0; ti < T; ti++) {
            int64_t src = ti < len ? len - 1 - ti : ti;
            int64_t de = t == 0 ? ti * B + bi : bi * T + ti, se = t == 0 ? src * B + bi : bi * T + src;
            if (row) memcpy((unsigned char*)out[0] + (size_t)de * row, (const unsigned char*)in[0] + (size_t)se * row, row);
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_ccp_shape(const aicf__opc* c, aicf__shape* o) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t sh[AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int cnt, na, i;
    AICF__OP_TRY(aicf__op_const_ints(c, 1, "shape", sh, AICF_MAX_RANK, &cnt));
    AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &na));
    if (na < 0) {
        na = x->shape.rank;
        for (i = 0; i < na; i++) axes[i] = i;
    }
    if (cnt != na) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape has %d values for %d axes", cnt, na);
    *o = x->shape;
    for (i = 0; i < na; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], x->shape.rank, &a));
        if (sh[i] < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "shape[%d] = %lld is negative", i, (long long)sh[i]);
        o->d[a] = sh[i];
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_ccp(const aicf__opc* c) {
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_ALL));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_INT));
    AICF__OP_TRY(aicf__op_ccp_shape(c, &o));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &o);
}

/* Centred crop (start floor((n - m) / 2)) or zero pad (the input starts at floor((m - n) / 2)). */
static aicf_result aicf__op_run_ccp(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* y = aicf__op_out(c, 0);
    int64_t xst[AICF_MAX_RANK], n = aicf__shape_numel(&y->shape), e;
    int k, r = x->shape.rank;
    size_t esz = aicf_dtype_size(x->dtype);
    aicf__op_ix it;
    aicf__op_strides(&x->shape, xst);
    aicf__op_ix_init(&it, &y->shape, 0);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        int64_t off = 0;
        int inside = 1;
        for (k = 0; k < r && inside; k++) {
            int64_t xn = x->shape.d[k], yn = y->shape.d[k], i = it.idx[k];
            i += xn >= yn ? (xn - yn) / 2 : -((yn - xn) / 2);
            if (i < 0 || i >= xn) inside = 0;
            else off += i * xst[k];
        }
        if (inside) aicf__op_copy_el(out[0], e, in[0], off, esz);
        else memset((unsigned char*)out[0] + (size_t)e * esz, 0, esz);
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Reductions (Reduce*, ArgMax, ArgMin) and normalizations
   ============================================================================================ */

typedef struct aicf__op_red {
    int mark[AICF_MAX_RANK]; /* 1: reduced axis */
    int noop;                /* empty axes with noop_with_empty_axes = 1: the identity */
    int64_t keepdims;
    aicf__shape o;           /* output shape */
    aicf__shape k;           /* output shape with the reduced axes kept as 1 */
} aicf__op_red;

/* Axes: attribute before opset 18 (13 for ReduceSum), constant input 1 from then on; absent or
   empty = every axis, unless noop_with_empty_axes = 1 (then the op is the identity). */
static aicf_result aicf__op_reduce_make(const aicf__opc* c, aicf__op_red* rd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK], noop = 0;
    int cnt = -1, i, r = x->shape.rank;
    int input_form = c->opset >= (c->n->op == AICF__OP_ReduceSum ? 13 : 18);
    memset(rd, 0, sizeof *rd);
    AICF__OP_TRY(aicf__op_ai(c, "keepdims", 1, &rd->keepdims));
    if (input_form) {
        AICF__OP_TRY(aicf__op_ai(c, "noop_with_empty_axes", 0, &noop));
        AICF__OP_TRY(aicf__op_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, &cnt));
    } else {
        AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &cnt));
    }
    if (cnt <= 0) {
        for (i = 0; i < r; i++) rd->mark[i] = !noop;
        rd->noop = noop != 0;
    } else {
        for (i = 0; i < cnt; i++) {
            int a;
            AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
            if (rd->mark[a]) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
            rd->mark[a] = 1;
        }
    }
    rd->k = x->shape;
    memset(&rd->o, 0, sizeof rd->o);
    for (i = 0; i < r; i++) {
        if (rd->mark[i]) rd->k.d[i] = 1;
        if (!rd->mark[i] || rd->keepdims) rd->o.d[rd->o.rank++] = rd->k.d[i];
    }
    return AICF_SUCCESS;
}

/* Lowest (high = 0) or highest value of an integer type (uint64's highest as its bits). */
static int64_t aicf__op_int_limit(aicf_dtype dt, int high) {
    switch (dt) {
    case AICF_DTYPE_BOOL: return high;
    case AICF_DTYPE_INT8: return high ? 127 : -128;
    case AICF_DTYPE_UINT8: return high ? 255 : 0;
    case AICF_DTYPE_INT16: return high ? 32767 : -32768;
    case AICF_DTYPE_UINT16: return high ? 65535 : 0;
    case AICF_DTYPE_INT32: return high ? INT32_MAX : INT32_MIN;
    case AICF_DTYPE_UINT32: return high ? (int64_t)UINT32_MAX : 0;
    case AICF_DTYPE_UINT64: return high ? -1 : 0;
    default: return high ? INT64_MAX : INT64_MIN;
    }
}

static int aicf__op_reduce_int_ok(aicf__op op) {
    return op == AICF__OP_ReduceSum || op == AICF__OP_ReduceProd || op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin;
}

static aicf_result aicf__op_infer_reduce(const aicf__opc* c) {
    aicf__op_red rd;
    aicf__op op = c->n->op;
    unsigned mask = AICF__OP_DTM_F32;
    if (aicf__op_reduce_int_ok(op)) mask |= AICF__OP_DTM_INTS;
    if (op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin) mask |= AICF__OP_DTM(AICF_DTYPE_BOOL);
    AICF__OP_TRY(aicf__op_check_io(c, 1, c->opset >= (op == AICF__OP_ReduceSum ? 13 : 18) ? 2 : 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, mask));
    AICF__OP_TRY(aicf__op_reduce_make(c, &rd));
    return aicf__op_set_out(c, 0, aicf__op_in(c, 0)->dtype, &rd.o);
}

/* Iterator over the input with the offsets of the output element each input element reduces into. */
static void aicf__op_reduce_iter(const aicf__shape* xs, const aicf__op_red* rd, aicf__op_ix* it) {
    int64_t kst[AICF_MAX_RANK];
    int i;
    aicf__op_strides(&rd->k, kst);
    aicf__op_ix_init(it, xs, 1);
    for (i = 0; i < xs->rank; i++) it->st[0][i] = rd->mark[i] ? 0 : kst[i];
}

/* Float reductions accumulate in double; integer Sum/Prod/Max/Min are exact in int64 (wrapping). */
static aicf_result aicf__op_run_reduce(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf_dtype dt = x->dtype;
    aicf__op op = c->n->op;
    aicf__op_red rd;
    aicf__op_ix it;
    int64_t n, no, e, cnt;
    double* acc;
    double* mx = NULL;
    int isint = !aicf__op_dt_isfloat(dt);
    AICF__OP_TRY(aicf__op_reduce_make(c, &rd));
    n = aicf__shape_numel(&x->shape);
    if (rd.noop) { /* "the output tensor is equivalent to the input", for every Reduce op (as ONNX Runtime) */
        if (n > 0) memcpy(out[0], in[0], aicf__op_tbytes(x));
        return AICF_SUCCESS;
    }
    no = aicf__shape_numel(&rd.o);
    cnt = no ? n / no : 0;
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1) * (op == AICF__OP_ReduceLogSumExp ? 2 : 1), sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    if (op == AICF__OP_ReduceLogSumExp) mx = acc + no;
    if (isint) {
        int64_t* ia = (int64_t*)acc; /* same size as double */
        int uns = dt == AICF_DTYPE_UINT64;
        for (e = 0; e < no; e++)
            ia[e] = op == AICF__OP_ReduceProd  ? 1
                    : op == AICF__OP_ReduceMax ? (uns ? 0 : INT64_MIN)
                    : op == AICF__OP_ReduceMin ? (uns ? -1 : INT64_MAX)
                                               : 0;
        aicf__op_reduce_iter(&x->shape, &rd, &it);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
            int64_t v = aicf__op_geti(dt, in[0], e), *a = &ia[it.off[0]];
            if (op == AICF__OP_ReduceSum) *a = (int64_t)((uint64_t)*a + (uint64_t)v);
            else if (op == AICF__OP_ReduceProd) *a = (int64_t)((uint64_t)*a * (uint64_t)v);
            else if (op == AICF__OP_ReduceMax ? (uns ? (uint64_t)v > (uint64_t)*a : v > *a) : (uns ? (uint64_t)v < (uint64_t)*a : v < *a))
                *a = v;
        }
        for (e = 0; e < no; e++) {
            if (cnt == 0 && (op == AICF__OP_ReduceMax || op == AICF__OP_ReduceMin)) /* empty: the type's lowest / highest */
                ia[e] = aicf__op_int_limit(dt, op == AICF__OP_ReduceMin);
            aicf__op_seti(dt, out[0], e, ia[e]);
        }
        aicf__free(c->ctx, acc);
        return AICF_SUCCESS;
    }
    for (e = 0; e < no; e++) {
        acc[e] = op == AICF__OP_ReduceProd ? 1.0 : op == AICF__OP_ReduceMax ? -INFINITY : op == AICF__OP_ReduceMin ? INFINITY : 0.0;
        if (mx) mx[e] = -INFINITY;
    }
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        double v = aicf__op_getd(dt, in[0], e), *a = &acc[it.off[0]];
        switch (op) {
        case AICF__OP_ReduceSum:
        case AICF__OP_ReduceMean:
        case AICF__OP_ReduceLogSum: *a += v; break;
        case AICF__OP_ReduceProd: *a *= v; break;
        case AICF__OP_ReduceMax:
            if ((v > *a || v != v) && *a == *a) *a = v;
            break;
        case AICF__OP_ReduceMin:
            if ((v < *a || v != v) && *a == *a) *a = v;
            break;
        case AICF__OP_ReduceL1: *a += fabs(v); break;
        case AICF__OP_ReduceL2:
        case AICF__OP_ReduceSumSquare: *a += v * v; break;
        case AICF__OP_ReduceLogSumExp:
            if (v > mx[it.off[0]] || v != v) mx[it.off[0]] = v;
            break;
        default: break;
        }
    }
    if (op == AICF__OP_ReduceLogSumExp) {
        aicf__op_reduce_iter(&x->shape, &rd, &it);
        for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
            double m = mx[it.off[0]];
            if (!isinf(m)) acc[it.off[0]] += exp(aicf__op_getd(dt, in[0], e) - m);
        }
    }
    for (e = 0; e < no; e++) {
        double v = acc[e];
        switch (op) {
        case AICF__OP_ReduceMean: v = v / (double)cnt; break;
        case AICF__OP_ReduceL2: v = sqrt(v); break;
        case AICF__OP_ReduceLogSum: v = log(v); break;
        case AICF__OP_ReduceLogSumExp: v = isinf(mx[e]) || mx[e] != mx[e] ? mx[e] : mx[e] + log(v); break;
        default: break;
        }
        aicf__op_setd(dt, out[0], e, v);
    }
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- ArgMax, ArgMin ---- */
static aicf_result aicf__op_arg_make(const aicf__opc* c, int* ax, int64_t* keep, int64_t* last) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", 0, &axis));
    AICF__OP_TRY(aicf__op_ai(c, "keepdims", 1, keep));
    AICF__OP_TRY(aicf__op_ai(c, "select_last_index", 0, last));
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    if (x->shape.d[*ax] == 0) return aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d has no elements", *ax);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_arg(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax, i;
    int64_t keep, last;
    aicf__shape o;
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_NUM));
    AICF__OP_TRY(aicf__op_arg_make(c, &ax, &keep, &last));
    x = aicf__op_in(c, 0);
    memset(&o, 0, sizeof o);
    for (i = 0; i < x->shape.rank; i++)
        if (i != ax) o.d[o.rank++] = x->shape.d[i];
        else if (keep) o.d[o.rank++] = 1;
    return aicf__op_set_out(c, 0, AICF_DTYPE_INT64, &o);
}

static aicf_result aicf__op_run_arg(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int ax, is_max = c->n->op == AICF__OP_ArgMax;
    int64_t keep, last, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_arg_make(c, &ax, &keep, &last));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            int64_t best = 0;
            for (a = 1; a < A; a++) {
                int r = aicf__op_cmp3(x->dtype, in[0], (o * A + a) * inner + i, in[0], (o * A + best) * inner + i);
                if ((is_max ? r == 1 : r == -1) || (last && r == 0)) best = a;
            }
            ((int64_t*)out[0])[o * inner + i] = best;
        }
    return AICF_SUCCESS;
}

/* ---- LayerNormalization, RMSNormalization ---- */
static aicf_result aicf__op_ln_make(const aicf__opc* c, int* ax, float* eps) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis, stash;
    int i;
    aicf__shape o;
    char b1[160], b2[160];
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    AICF__OP_TRY(aicf__op_ai(c, "stash_type", 1, &stash));
    if (stash != 1) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' = %lld is not supported (only 1, float32)", (long long)stash);
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    AICF__OP_TRY(aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax));
    for (i = 1; i < 3; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        if (!p) continue;
        if (!aicf__op_bcast2(&x->shape, &p->shape, &o) || memcmp(o.d, x->shape.d, sizeof(int64_t) * (size_t)x->shape.rank) != 0 ||
            o.rank != x->shape.rank)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' (%s) shape %s does not broadcast to input 0 shape %s", i,
                              aicf__op_in_name(c, i), i == 1 ? "scale" : "B", aicf__op_sstr(&p->shape, b1, sizeof b1),
                              aicf__op_sstr(&x->shape, b2, sizeof b2));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_ln(const aicf__opc* c) {
    const aicf__tensor* x;
    int ax, i, rms = c->n->op == AICF__OP_RMSNormalization;
    float eps;
    aicf__shape ms;
    AICF__OP_TRY(aicf__op_check_io(c, 2, rms ? 2 : 3, 1, rms ? 1 : 3));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_ln_make(c, &ax, &eps));
    x = aicf__op_in(c, 0);
    ms = x->shape;
    for (i = ax; i < ms.rank; i++) ms.d[i] = 1;
    AICF__OP_TRY(aicf__op_set_out(c, 1, AICF_DTYPE_FLOAT32, &ms));
    AICF__OP_TRY(aicf__op_set_out(c, 2, AICF_DTYPE_FLOAT32, &ms));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &x->shape);
}

/* Statistics in double; y = (x - mean) * inv_std * scale + B (RMS: x * inv_rms * scale). */
static aicf_result aicf__op_run_ln(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    const float* B = aicf__op_in(c, 2) ? (const float*)in[2] : NULL;
    float* Y = (float*)out[0];
    int ax, rms = c->n->op == AICF__OP_RMSNormalization;
    float eps;
    int64_t rows, cols, r, j, e = 0;
    aicf__op_ix it;
    AICF__OP_TRY(aicf__op_ln_make(c, &ax, &eps));
    rows = aicf__op_prod(x->shape.d, 0, ax);
    cols = aicf__op_prod(x->shape.d, ax, x->shape.rank);
    aicf__op_ix_init(&it, &x->shape, 2);
    aicf__op_bcast_strides(&aicf__op_in(c, 1)->shape, &x->shape, it.st[0]);
    if (B) aicf__op_bcast_strides(&aicf__op_in(c, 2)->shape, &x->shape, it.st[1]);
    for (r = 0; r < rows; r++) {
        const float* xr = X + r * cols;
        double mean = 0.0, var = 0.0, inv;
        for (j = 0; j < cols; j++) mean += xr[j];
        mean = cols ? mean / (double)cols : 0.0;
        if (rms) {
            for (j = 0; j < cols; j++) var += (double)xr[j] * xr[j];
            mean = 0.0;
        } else {
            for (j = 0; j < cols; j++) var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
        }
        var = cols ? var / (double)cols : 0.0;
        inv = 1.0 / sqrt(var + (double)eps);
        for (j = 0; j < cols; j++, e++, aicf__op_ix_next(&it))
            Y[e] = (float)(((double)xr[j] - mean) * inv * S[it.off[0]] + (B ? B[it.off[1]] : 0.0f));
        if (!rms && aicf__op_out(c, 1) && out[1]) ((float*)out[1])[r] = (float)mean;
        if (!rms && aicf__op_out(c, 2) && out[2]) ((float*)out[2])[r] = (float)inv;
    }
    return AICF_SUCCESS;
}

/* ---- InstanceNormalization, GroupNormalization ---- */
static aicf_result aicf__op_gn_make(const aicf__opc* c, int64_t* groups, int* per_group, float* eps) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int i;
    int64_t want, stash = 1;
    char b1[160];
    AICF__OP_TRY(aicf__op_af(c, "epsilon", 1e-5f, eps));
    if (x->shape.rank < 2)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' has rank %d; expected N x C x D1 x ... (rank >= 2)", aicf__op_in_name(c, 0),
                          x->shape.rank);
    *per_group = 0;
    if (c->n->op == AICF__OP_InstanceNormalization) {
        *groups = x->shape.d[1];
    } else {
        if (!aicf__attr(c->n, "num_groups")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'num_groups' is missing");
        AICF__OP_TRY(aicf__op_ai(c, "num_groups", 0, groups));
        AICF__OP_TRY(aicf__op_ai(c, "stash_type", 1, &stash));
        if (stash != 1) return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' = %lld is not supported (only 1, float32)", (long long)stash);
        if (*groups < 1 || x->shape.d[1] % *groups != 0)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'num_groups' = %lld does not divide the %lld channels", (long long)*groups,
                              (long long)x->shape.d[1]);
        *per_group = c->opset < 21; /* GroupNormalization-18: scale and bias per group */
    }
    want = *per_group ? *groups : x->shape.d[1];
    for (i = 1; i < 3; i++) {
        const aicf__tensor* p = aicf__op_in(c, i);
        if (p->shape.rank != 1 || p->shape.d[0] != want)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input %d '%.200s' shape %s must be [%lld]", i, aicf__op_in_name(c, i),
                              aicf__op_sstr(&p->shape, b1, sizeof b1), (long long)want);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_gn(const aicf__opc* c) {
    int64_t g;
    int pg, i;
    float eps;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 3, 1, 1));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_gn_make(c, &g, &pg, &eps));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_gn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    const float* S = (const float*)in[1];
    const float* B = (const float*)in[2];
    float* Y = (float*)out[0];
    int64_t G, N = x->shape.d[0], C = x->shape.d[1], sp = aicf__op_prod(x->shape.d, 2, x->shape.rank), n, g, j, cg;
    int pg;
    float eps;
    AICF__OP_TRY(aicf__op_gn_make(c, &G, &pg, &eps));
    cg = C / G;
    for (n = 0; n < N; n++)
        for (g = 0; g < G; g++) {
            const float* xr = X + (n * C + g * cg) * sp;
            float* yr = Y + (n * C + g * cg) * sp;
            int64_t m = cg * sp;
            double mean = 0.0, var = 0.0, inv;
            for (j = 0; j < m; j++) mean += xr[j];
            mean = m ? mean / (double)m : 0.0;
            for (j = 0; j < m; j++) var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
            var = m ? var / (double)m : 0.0;
            inv = 1.0 / sqrt(var + (double)eps);
            for (j = 0; j < m; j++) {
                int64_t ch = pg ? g : g * cg + j / (sp ? sp : 1);
                yr[j] = (float)(((double)xr[j] - mean) * inv * S[ch] + B[ch]);
            }
        }
    return AICF_SUCCESS;
}

/* ---- LpNormalization, MeanVarianceNormalization ---- */
static aicf_result aicf__op_infer_f32_same(const aicf__opc* c) {
    AICF__OP_TRY(aicf__op_check_io(c, 1, 1, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_lpn_make(const aicf__opc* c, int* ax, int64_t* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axis;
    AICF__OP_TRY(aicf__op_ai(c, "axis", -1, &axis));
    AICF__OP_TRY(aicf__op_ai(c, "p", 2, p));
    if (*p != 1 && *p != 2) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'p' = %lld must be 1 or 2", (long long)*p);
    if (x->shape.rank < 1) return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' is a scalar", aicf__op_in_name(c, 0));
    return aicf__op_axis(c, "attribute 'axis'", axis, x->shape.rank, ax);
}

static aicf_result aicf__op_infer_lpn(const aicf__opc* c) {
    int ax;
    int64_t p;
    AICF__OP_TRY(aicf__op_infer_f32_same(c));
    return aicf__op_lpn_make(c, &ax, &p);
}

static aicf_result aicf__op_run_lpn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    int ax;
    int64_t p, outer, A, inner, o, i, a;
    AICF__OP_TRY(aicf__op_lpn_make(c, &ax, &p));
    outer = aicf__op_prod(x->shape.d, 0, ax);
    A = x->shape.d[ax];
    inner = aicf__op_prod(x->shape.d, ax + 1, x->shape.rank);
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double s = 0.0;
            for (a = 0; a < A; a++) {
                double v = X[(o * A + a) * inner + i];
                s += p == 1 ? fabs(v) : v * v;
            }
            if (p == 2) s = sqrt(s);
            for (a = 0; a < A; a++) Y[(o * A + a) * inner + i] = s == 0.0 ? 0.0f : (float)(X[(o * A + a) * inner + i] / s);
        }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_mvn_make(const aicf__opc* c, aicf__op_red* rd) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t axes[AICF_MAX_RANK];
    int cnt, i;
    memset(rd, 0, sizeof *rd);
    AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &cnt));
    if (cnt < 0) {
        if (x->shape.rank != 4)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has rank %d; the default axes [0,2,3] need rank 4", x->shape.rank);
        cnt = 3;
        axes[0] = 0;
        axes[1] = 2;
        axes[2] = 3;
    }
    for (i = 0; i < cnt; i++) {
        int a;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], x->shape.rank, &a));
        rd->mark[a] = 1;
    }
    rd->k = x->shape;
    for (i = 0; i < x->shape.rank; i++)
        if (rd->mark[i]) rd->k.d[i] = 1;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_mvn(const aicf__opc* c) {
    aicf__op_red rd;
    AICF__OP_TRY(aicf__op_infer_f32_same(c));
    return aicf__op_mvn_make(c, &rd);
}

/* (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), as the ONNX function body */
static aicf_result aicf__op_run_mvn(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    aicf__op_red rd;
    aicf__op_ix it;
    int64_t n = aicf__shape_numel(&x->shape), no, e, cnt;
    double* acc;
    AICF__OP_TRY(aicf__op_mvn_make(c, &rd));
    no = aicf__shape_numel(&rd.k);
    cnt = no ? n / no : 1;
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1) * 2, sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        acc[it.off[0]] += X[e];
        acc[no + it.off[0]] += (double)X[e] * X[e];
    }
    aicf__op_reduce_iter(&x->shape, &rd, &it);
    for (e = 0; e < n; e++, aicf__op_ix_next(&it)) {
        double m = acc[it.off[0]] / (double)cnt, sq = acc[no + it.off[0]] / (double)cnt;
        double var = sq - m * m;
        Y[e] = (float)((X[e] - m) / (sqrt(var > 0.0 ? var : 0.0) + 1e-9));
    }
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- LogSoftmax, Hardmax (Softmax's axis rules) ---- */
static aicf_result aicf__op_run_logsoftmax(const aicf__opc* c, const void* const* in, void* const* out) {
    int64_t outer, A, inner, o, i, a;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    AICF__OP_TRY(aicf__op_softmax_make(c, &outer, &A, &inner));
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float* x = X + o * A * inner + i;
            float* y = Y + o * A * inner + i;
            double mx = -INFINITY, sum = 0.0, lse;
            int64_t best = 0;
            for (a = 0; a < A; a++)
                if (x[a * inner] > mx) {
                    mx = x[a * inner];
                    best = a;
                }
            if (c->n->op == AICF__OP_Hardmax) {
                for (a = 0; a < A; a++) y[a * inner] = a == best ? 1.0f : 0.0f;
                continue;
            }
            for (a = 0; a < A; a++) sum += exp((double)x[a * inner] - mx);
            lse = mx + log(sum);
            for (a = 0; a < A; a++) y[a * inner] = (float)((double)x[a * inner] - lse);
        }
    return AICF_SUCCESS;
}

/* ---- GlobalMaxPool ---- */
static aicf_result aicf__op_run_gmp(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    int64_t NC = x->shape.d[0] * x->shape.d[1], S = aicf__op_prod(x->shape.d, 2, x->shape.rank), i, j;
    const float* X = (const float*)in[0];
    float* Y = (float*)out[0];
    for (i = 0; i < NC; i++) {
        float m = -INFINITY;
        for (j = 0; j < S; j++)
            if (X[i * S + j] > m || X[i * S + j] != X[i * S + j]) {
                m = X[i * S + j];
                if (m != m) break;
            }
        Y[i] = m;
    }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Einsum, Resize (and Upsample), ConvTranspose
   ============================================================================================ */

/* Einsum: any equation numpy accepts on float32 operands (explicit or implicit output,
   repeated labels as diagonals, '...' broadcast), computed by visiting every combination of
   label values once: cost = product of all label sizes. */
#define AICF__OP_EIN_MAX_IN 8
#define AICF__OP_EIN_LABELS (52 + AICF_MAX_RANK) /* a-z, A-Z, then the ellipsis dims */

typedef struct aicf__op_ein {
    int nin;
    int in_lab[AICF__OP_EIN_MAX_IN][AICF_MAX_RANK]; /* label of each dim of each input */
    int out_lab[AICF_MAX_RANK];
    int nout;                                        /* output rank */
    int64_t size[AICF__OP_EIN_LABELS];               /* -1 = label unused */
    int n_ell;                                       /* ellipsis dims */
} aicf__op_ein;

static int aicf__op_ein_label(char ch) {
    if (ch >= 'a' && ch <= 'z') return ch - 'a';
    if (ch >= 'A' && ch <= 'Z') return 26 + (ch - 'A');
    return -1;
}

/* Parses one term ("ab...c") into labels, expanding '...' into n_ell dims (or, when
   n_ell < 0, into as many as rank - letters). Returns the dim count or -1. */
static int aicf__op_ein_term(const char* s, size_t len, int rank, int n_ell, int* lab, int* ell_here) {
    size_t i;
    int letters = 0, n = 0, k, has_ell = 0;
    for (i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (has_ell || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.') return -1;
            has_ell = 1;
            i += 2;
        } else if (aicf__op_ein_label(s[i]) >= 0) {
            letters++;
        } else if (s[i] != ' ') {
            return -1;
        }
    }
    if (n_ell < 0) n_ell = has_ell ? rank - letters : 0;
    if (n_ell < 0 || (rank >= 0 && letters + (has_ell ? n_ell : 0) != rank)) return -1;
    if (letters + (has_ell ? n_ell : 0) > AICF_MAX_RANK) return -1;
    for (i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (k = 0; k < n_ell; k++) lab[n++] = 52 + (AICF_MAX_RANK - n_ell) + k; /* right-aligned */
            i += 2;
        } else if (aicf__op_ein_label(s[i]) >= 0) {
            lab[n++] = aicf__op_ein_label(s[i]);
        }
    }
    *ell_here = has_ell ? n_ell : -1;
    return n;
}

static aicf_result aicf__op_ein_make(const aicf__opc* c, aicf__op_ein* e) {
    const char* eq;
    const char* arrow;
    const char* p;
    int i, k, count[AICF__OP_EIN_LABELS], ell_max = 0, ell_in[AICF__OP_EIN_MAX_IN];
    memset(e, 0, sizeof *e);
    if (!aicf__attr(c->n, "equation")) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'equation' is missing");
    AICF__OP_TRY(aicf__op_as(c, "equation", "", &eq));
    e->nin = aicf__op_nin(c->n);
    if (e->nin > AICF__OP_EIN_MAX_IN)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "Einsum '%.100s' with %d operands is not supported (limit %d)", eq, e->nin,
                          AICF__OP_EIN_MAX_IN);
    for (i = 0; i < AICF__OP_EIN_LABELS; i++) {
        e->size[i] = -1;
        count[i] = 0;
    }
    arrow = strstr(eq, "->");
    p = eq;
    for (i = 0; i < e->nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        const char* end = strchr(p, ',');
        size_t len;
        int n, ell;
        if (!end || (arrow && end > arrow)) end = arrow ? arrow : p + strlen(p);
        len = (size_t)(end - p);
        n = aicf__op_ein_term(p, len, t->shape.rank, -1, e->in_lab[i], &ell);
        if (n < 0)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': term %d does not match input %d of rank %d", eq, i, i,
                              t->shape.rank);
        ell_in[i] = ell;
        if (ell > ell_max) ell_max = ell;
        p = end;
        if (i + 1 < e->nin) {
            if (*p != ',')
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s' has fewer terms than the %d inputs", eq, e->nin);
            p++;
        }
    }
    if (*p == ',' || (!arrow && *p))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s' has more terms than the %d inputs", eq, e->nin);
    e->n_ell = ell_max;
    /* label sizes; ellipsis dims broadcast (size 1 stretches) */
    for (i = 0; i < e->nin; i++) {
        const aicf__tensor* t = aicf__op_in(c, i);
        for (k = 0; k < t->shape.rank; k++) {
            int l = e->in_lab[i][k];
            int64_t d = t->shape.d[k];
            count[l]++;
            if (e->size[l] < 0 || (l >= 52 && e->size[l] == 1)) e->size[l] = d;
            else if (e->size[l] != d && !(l >= 52 && d == 1))
                return aicf__op_err(c, AICF_ERROR_SHAPE, "equation '%.100s': label '%c' has sizes %lld and %lld", eq,
                                  l < 26 ? 'a' + l : (l < 52 ? 'A' + (l - 26) : '.'), (long long)e->size[l], (long long)d);
        }
        (void)ell_in[i];
    }
    if (arrow) {
        int ell;
        const char* o = arrow + 2;
        e->nout = aicf__op_ein_term(o, strlen(o), -1, ell_max, e->out_lab, &ell);
        if (e->nout < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': invalid output term", eq);
        for (k = 0; k < e->nout; k++) {
            int j, l = e->out_lab[k];
            if (e->size[l] < 0)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': output label '%c' is not in any input", eq,
                                  l < 26 ? 'a' + l : 'A' + (l - 26));
            for (j = 0; j < k; j++)
                if (e->out_lab[j] == l) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "equation '%.100s': output label repeats", eq);
        }
    } else {
        /* implicit: ellipsis dims, then the labels used once, in alphabetical (ASCII) order */
        static const int ascii_order[52] = {26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                                            44, 45, 46, 47, 48, 49, 50, 51, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                            10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};
        e->nout = 0;
        for (k = 0; k < ell_max; k++) e->out_lab[e->nout++] = 52 + (AICF_MAX_RANK - ell_max) + k;
        for (k = 0; k < 52; k++)
            if (count[ascii_order[k]] == 1) {
                if (e->nout >= AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "equation '%.100s': output rank too large", eq);
                e->out_lab[e->nout++] = ascii_order[k];
            }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_einsum(const aicf__opc* c) {
    aicf__op_ein e;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 1, AICF_MAX_NODE_IO, 1, 1));
    for (i = 0; i < aicf__op_nin(c->n); i++) {
        if (!aicf__op_in(c, i)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    }
    AICF__OP_TRY(aicf__op_ein_make(c, &e));
    memset(&o, 0, sizeof o);
    o.rank = e.nout;
    for (i = 0; i < e.nout; i++) o.d[i] = e.size[e.out_lab[i]];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_einsum(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_ein e;
    int labs[AICF__OP_EIN_LABELS], nl = 0, i, k, j;
    int64_t st[AICF__OP_EIN_MAX_IN + 1][AICF__OP_EIN_LABELS], off[AICF__OP_EIN_MAX_IN + 1], idx[AICF__OP_EIN_LABELS];
    int64_t total = 1, t, no;
    double* acc;
    AICF__OP_TRY(aicf__op_ein_make(c, &e));
    memset(st, 0, sizeof st);
    memset(off, 0, sizeof off);
    memset(idx, 0, sizeof idx);
    for (i = 0; i < AICF__OP_EIN_LABELS; i++)
        if (e.size[i] >= 0) {
            labs[nl++] = i;
            if (e.size[i] == 0) total = 0;
            else if (total > INT64_MAX / e.size[i]) return aicf__op_err(c, AICF_ERROR_LIMIT, "iteration space overflows");
            else total *= e.size[i];
        }
    /* strides per label (summed when a label repeats: the diagonal) */
    for (i = 0; i < e.nin; i++) {
        const aicf__tensor* tt = aicf__op_in(c, i);
        int64_t xs[AICF_MAX_RANK];
        aicf__op_strides(&tt->shape, xs);
        for (k = 0; k < tt->shape.rank; k++)
            if (tt->shape.d[k] != 1 || e.size[e.in_lab[i][k]] == 1) st[i][e.in_lab[i][k]] += xs[k];
    }
    {
        int64_t m = 1;
        for (k = e.nout - 1; k >= 0; k--) {
            st[e.nin][e.out_lab[k]] = m;
            m *= e.size[e.out_lab[k]];
        }
        no = m;
    }
    acc = (double*)aicf__calloc(c->ctx, (size_t)(no ? no : 1), sizeof(double));
    if (!acc) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (t = 0; t < total; t++) {
        double v = 1.0;
        for (i = 0; i < e.nin; i++) v *= ((const float*)in[i])[off[i]];
        acc[off[e.nin]] += v;
        for (k = nl - 1; k >= 0; k--) {
            int l = labs[k];
            for (j = 0; j <= e.nin; j++) off[j] += st[j][l];
            if (++idx[l] < e.size[l]) break;
            for (j = 0; j <= e.nin; j++) off[j] -= st[j][l] * e.size[l];
            idx[l] = 0;
        }
    }
    for (t = 0; t < no; t++) ((float*)out[0])[t] = (float)acc[t];
    aicf__free(c->ctx, acc);
    return AICF_SUCCESS;
}

/* ---- Resize, Upsample ----
   Follows the ONNX reference: separable, one axis at a time in the order of `axes`, in double;
   every mode computes taps (neighbour indices and weights) per output position. */
enum { AICF__RS_NEAREST = 0, AICF__RS_LINEAR = 1, AICF__RS_CUBIC = 2 };
enum {
    AICF__RS_HALF_PIXEL = 0, AICF__RS_HALF_PIXEL_SYM, AICF__RS_PYTORCH_HALF_PIXEL, AICF__RS_ALIGN_CORNERS, AICF__RS_ASYMMETRIC,
    AICF__RS_TF_CROP
};
enum { AICF__RS_PREFER_FLOOR = 0, AICF__RS_PREFER_CEIL, AICF__RS_FLOOR, AICF__RS_CEIL, AICF__RS_SIMPLE };

typedef struct aicf__op_rs {
    int mode, ctm, nearest, antialias, exclude_outside;
    double cubic_a, extrap;
    double scale[AICF_MAX_RANK], roi_s[AICF_MAX_RANK], roi_e[AICF_MAX_RANK];
    int64_t out[AICF_MAX_RANK];
    int order[AICF_MAX_RANK], n_order;
    int has_roi;
} aicf__op_rs;

static int aicf__op_pick(const char* s, const char* const* names, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* Constant float input i (any float type) into vals; *count = -1 when omitted, 0 when empty. */
static aicf_result aicf__op_const_floats(const aicf__opc* c, int i, const char* what, double* vals, int cap, int* count) {
    const aicf__tensor* t = aicf__op_in(c, i);
    int64_t ne, k;
    size_t esz;
    *count = -1;
    if (!t) return AICF_SUCCESS;
    ne = aicf__shape_numel(&t->shape);
    if (!aicf__op_dt_isfloat(t->dtype))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) must be a float tensor, not %s", i, aicf__op_in_name(c, i),
                          what, aicf_dtype_name(t->dtype));
    if (ne > 0 && (!(t->flags & AICF__T_CONST) || !t->data))
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' must be a constant at plan time (it gives the %s)", i,
                          aicf__op_in_name(c, i), what);
    if (ne < 0 || ne > cap)
        return aicf__op_err(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, aicf__op_in_name(c, i), what,
                          (long long)ne, cap);
    esz = aicf_dtype_size(t->dtype);
    if (ne > 0 && t->data_bytes < (size_t)ne * esz)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, aicf__op_in_name(c, i), what);
    for (k = 0; k < ne; k++) {
        unsigned char tmp[8];
        memcpy(tmp, (const unsigned char*)t->data + (size_t)k * esz, esz);
        vals[k] = aicf__op_getd(t->dtype, tmp, 0);
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

static aicf_result aicf__op_resize_make(const aicf__opc* c, aicf__op_rs* rs) {
    static const char* const modes[3] = {"nearest", "linear", "cubic"};
    static const char* const ctms[6] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_crop_and_resize"};
    static const char* const nms[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    static const char* const pols[3] = {"stretch", "not_larger", "not_smaller"};
    const aicf__tensor* x = aicf__op_in(c, 0);
    int r = x->shape.rank, i, ns = -1, nz = -1, nroi = -1, na = -1, pol = 0, legacy;
    double sc[AICF_MAX_RANK], roi[2 * AICF_MAX_RANK];
    int64_t sz[AICF_MAX_RANK], axes[AICF_MAX_RANK], v;
    const char* s;
    float f;
    memset(rs, 0, sizeof *rs);
    legacy = c->n->op == AICF__OP_Upsample || c->opset < 11;
    AICF__OP_TRY(aicf__op_as(c, "mode", "nearest", &s));
    rs->mode = aicf__op_pick(s, modes, 3);
    if (legacy && !strcmp(s, "bilinear")) rs->mode = AICF__RS_LINEAR; /* Upsample-7 spelling */
    if (rs->mode < 0 || (legacy && rs->mode == AICF__RS_CUBIC))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'; expected nearest, linear%s", s, legacy ? "" : " or cubic");
    if (legacy) {
        rs->ctm = AICF__RS_ASYMMETRIC;
        rs->nearest = AICF__RS_SIMPLE;
    } else {
        AICF__OP_TRY(aicf__op_as(c, "coordinate_transformation_mode", "half_pixel", &s));
        rs->ctm = aicf__op_pick(s, ctms, 6);
        if (rs->ctm < 0 || (rs->ctm == AICF__RS_HALF_PIXEL_SYM && c->opset < 19))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'coordinate_transformation_mode' is '%.40s', which is not valid at this opset", s);
        AICF__OP_TRY(aicf__op_as(c, "nearest_mode", "round_prefer_floor", &s));
        rs->nearest = aicf__op_pick(s, nms, 4);
        if (rs->nearest < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'nearest_mode' is '%.40s'", s);
        AICF__OP_TRY(aicf__op_af(c, "cubic_coeff_a", -0.75f, &f));
        rs->cubic_a = f;
        AICF__OP_TRY(aicf__op_af(c, "extrapolation_value", 0.0f, &f));
        rs->extrap = f;
        AICF__OP_TRY(aicf__op_ai(c, "exclude_outside", 0, &v));
        rs->exclude_outside = v != 0;
        if (c->opset >= 18) {
            AICF__OP_TRY(aicf__op_ai(c, "antialias", 0, &v));
            rs->antialias = v != 0 && rs->mode != AICF__RS_NEAREST;
            AICF__OP_TRY(aicf__op_as(c, "keep_aspect_ratio_policy", "stretch", &s));
            pol = aicf__op_pick(s, pols, 3);
            if (pol < 0) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'keep_aspect_ratio_policy' is '%.40s'", s);
            AICF__OP_TRY(aicf__op_aints_r(c, "axes", axes, &na));
        }
    }
    if (c->n->op == AICF__OP_Upsample && c->opset < 9) {
        const aicf__attrv* a = aicf__attr(c->n, "scales");
        if (!a || a->type != AICF_ATTR_FLOATS) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "required attribute 'scales' (FLOATS) is missing");
        if (a->count > AICF_MAX_RANK) return aicf__op_err(c, AICF_ERROR_LIMIT, "attribute 'scales' has %d values", a->count);
        ns = a->count;
        for (i = 0; i < ns; i++) sc[i] = a->floats[i];
    } else if (legacy) {
        AICF__OP_TRY(aicf__op_const_floats(c, 1, "scales", sc, AICF_MAX_RANK, &ns));
    } else {
        AICF__OP_TRY(aicf__op_const_floats(c, 2, "scales", sc, AICF_MAX_RANK, &ns));
        if (aicf__op_in(c, 3)) {
            int cnt;
            AICF__OP_TRY(aicf__op_const_ints(c, 3, "sizes", sz, AICF_MAX_RANK, &cnt));
            nz = cnt;
        }
        if (rs->ctm == AICF__RS_TF_CROP) AICF__OP_TRY(aicf__op_const_floats(c, 1, "roi", roi, 2 * AICF_MAX_RANK, &nroi));
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if ((ns > 0) == (nz > 0))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "needs exactly one of the inputs scales and sizes (non-empty)");
    if ((ns > 0 && ns != na) || (nz > 0 && nz != na))
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s has %d values; expected %d", ns > 0 ? "scales" : "sizes", ns > 0 ? ns : nz, na);
    if (nroi >= 0 && nroi != 2 * na && rs->ctm == AICF__RS_TF_CROP)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "roi has %d values; expected %d", nroi, 2 * na);
    for (i = 0; i < r; i++) {
        rs->scale[i] = 1.0;
        rs->out[i] = x->shape.d[i];
        rs->roi_s[i] = 0.0;
        rs->roi_e[i] = 1.0;
    }
    rs->has_roi = rs->ctm == AICF__RS_TF_CROP;
    rs->n_order = na;
    for (i = 0; i < na; i++) {
        int a, j;
        AICF__OP_TRY(aicf__op_axis(c, "axes entry", axes[i], r, &a));
        for (j = 0; j < i; j++)
            if (rs->order[j] == a) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        rs->order[i] = a;
        if (rs->has_roi && nroi > 0) {
            rs->roi_s[a] = roi[i];
            rs->roi_e[a] = roi[na + i];
        }
        if (ns > 0) {
            double o = sc[i] * (double)x->shape.d[a];
            if (!(sc[i] > 0.0) || o > 9.0e15) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "scales[%d] = %g is invalid", i, sc[i]);
            rs->scale[a] = sc[i];
            rs->out[a] = (int64_t)o;
        } else {
            if (sz[i] < 0 || sz[i] > AICF__OP_MAX_WINDOW)
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "sizes[%d] = %lld is invalid", i, (long long)sz[i]);
            if (x->shape.d[a] == 0) return aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", a);
            rs->out[a] = sz[i];
            rs->scale[a] = (double)sz[i] / (double)x->shape.d[a];
        }
    }
    if (nz > 0 && pol != 0) {
        double s1 = pol == 1 ? INFINITY : 0.0;
        for (i = 0; i < na; i++) {
            int a = rs->order[i];
            s1 = pol == 1 ? (rs->scale[a] < s1 ? rs->scale[a] : s1) : (rs->scale[a] > s1 ? rs->scale[a] : s1);
        }
        for (i = 0; i < na; i++) {
            int a = rs->order[i];
            rs->scale[a] = s1;
            rs->out[a] = (int64_t)(s1 * (double)x->shape.d[a] + 0.5);
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_resize(const aicf__opc* c) {
    aicf__op_rs rs;
    aicf__shape o;
    int i;
    if (c->n->op == AICF__OP_Upsample) AICF__OP_TRY(aicf__op_check_io(c, c->opset < 9 ? 1 : 2, c->opset < 9 ? 1 : 2, 1, 1));
    else if (c->opset < 11) AICF__OP_TRY(aicf__op_check_io(c, 2, 2, 1, 1));
    else AICF__OP_TRY(aicf__op_check_io(c, 1, 4, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_resize_make(c, &rs));
    o = aicf__op_in(c, 0)->shape;
    for (i = 0; i < o.rank; i++) o.d[i] = rs.out[i];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

static double aicf__op_cubic_w(double x, double A) {
    x = fabs(x);
    if (x <= 1.0) return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    if (x < 2.0) return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
    return 0.0;
}

/* Tap count of an axis (depends on the mode and, with antialias, on the scale). */
static int64_t aicf__op_rs_ntaps(const aicf__op_rs* rs, double scale) {
    double s = scale < 1.0 ? scale : 1.0;
    if (rs->mode == AICF__RS_NEAREST) return 2;
    if (!rs->antialias) return rs->mode == AICF__RS_LINEAR ? 2 : 4;
    if (rs->mode == AICF__RS_LINEAR) return 2 - 2 * (int64_t)(floor(-1.0 / s) + 1.0);
    return 2 - 2 * (int64_t)(floor(-2.0 / s) + 1.0);
}

/* Taps of output position o along an axis: n indices (clamped) and weights; 1 if extrapolated. */
static int aicf__op_rs_taps(const aicf__op_rs* rs, int axis, int64_t in, int64_t o, int64_t n, int64_t* idx, double* w) {
    double scale = rs->scale[axis], ow = scale * (double)in, x, ratio, xp, frac, sum = 0.0;
    int64_t outi = rs->out[axis], xi, p, off, k, pad = (n + 1) / 2;
    switch (rs->ctm) {
    case AICF__RS_ALIGN_CORNERS: x = ow == 1.0 ? 0.0 : (double)o * (double)(in - 1) / (ow - 1.0); break;
    case AICF__RS_ASYMMETRIC: x = (double)o / scale; break;
    case AICF__RS_TF_CROP: {
        double s0 = rs->roi_s[axis], s1 = rs->roi_e[axis];
        x = ow == 1.0 ? (s1 - s0) * (double)(in - 1) / 2.0 : (double)o * (s1 - s0) * (double)(in - 1) / (ow - 1.0);
        x += s0 * (double)(in - 1);
        if (x < 0.0 || x > (double)(in - 1)) return 1;
        break;
    }
    case AICF__RS_PYTORCH_HALF_PIXEL: x = ow == 1.0 ? -0.5 : ((double)o + 0.5) / scale - 0.5; break;
    case AICF__RS_HALF_PIXEL_SYM: {
        double adj = (double)outi / ow, center = (double)in / 2.0;
        x = center * (1.0 - adj) + ((double)o + 0.5) / scale - 0.5;
        break;
    }
    default: x = ((double)o + 0.5) / scale - 0.5; break;
    }
    xi = (int64_t)floor(x);
    ratio = x == (double)xi ? 1.0 : x - (double)xi;
    /* weights */
    if (rs->mode == AICF__RS_NEAREST) {
        int nm = rs->nearest, second;
        if (nm == AICF__RS_SIMPLE) nm = scale < 1.0 ? AICF__RS_CEIL : AICF__RS_FLOOR;
        if (ratio == 1.0) second = 1;
        else if (nm == AICF__RS_PREFER_FLOOR) second = ratio > 0.5;
        else if (nm == AICF__RS_PREFER_CEIL) second = ratio >= 0.5;
        else second = nm == AICF__RS_CEIL;
        w[0] = second ? 0.0 : 1.0;
        w[1] = second ? 1.0 : 0.0;
    } else if (!rs->antialias) {
        if (rs->mode == AICF__RS_LINEAR) {
            w[0] = 1.0 - ratio;
            w[1] = ratio;
        } else {
            double A = rs->cubic_a;
            w[0] = ((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A;
            w[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
            w[2] = ((A + 2) * (1 - ratio) - (A + 3)) * (1 - ratio) * (1 - ratio) + 1;
            w[3] = ((A * ((1 - ratio) + 1) - 5 * A) * ((1 - ratio) + 1) + 8 * A) * ((1 - ratio) + 1) - 4 * A;
        }
    } else {
        double s = scale < 1.0 ? scale : 1.0;
        int64_t start = -(n / 2) + 1;
        for (k = 0; k < n; k++) {
            double a = ((double)(start + k) - ratio) * s;
            if (rs->mode == AICF__RS_LINEAR) {
                double v = 1.0 - fabs(a);
                w[k] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
            } else {
                w[k] = aicf__op_cubic_w(a, rs->cubic_a);
            }
            sum += w[k];
        }
        for (k = 0; k < n; k++) w[k] /= sum;
    }
    /* neighbours: the n nearest indices of the edge-padded axis, ties to the lower */
    xp = x + (double)pad;
    p = (int64_t)floor(xp);
    frac = xp - (double)p;
    if (n % 2 == 0) off = frac == 0.0 ? -(n / 2) : -(n / 2) + 1;
    else off = frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1;
    for (k = 0; k < n; k++) idx[k] = p + off + k - pad;
    if (rs->exclude_outside) {
        sum = 0.0;
        for (k = 0; k < n; k++) {
            if (idx[k] < 0 || idx[k] >= in) w[k] = 0.0;
            sum += w[k];
        }
        if (sum != 0.0)
            for (k = 0; k < n; k++) w[k] /= sum;
    }
    for (k = 0; k < n; k++) idx[k] = aicf__op_clamp(idx[k], 0, in - 1);
    return 0;
}

static aicf_result aicf__op_run_resize(const aicf__opc* c, const void* const* in, void* const* out) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    aicf__op_rs rs;
    aicf__shape cur = x->shape;
    int64_t n = aicf__shape_numel(&x->shape), e;
    double* buf;
    int s;
    aicf_result res = AICF_SUCCESS;
    AICF__OP_TRY(aicf__op_resize_make(c, &rs));
    buf = (double*)aicf__malloc(c->ctx, (size_t)(n ? n : 1) * sizeof(double));
    if (!buf) return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    for (e = 0; e < n; e++) buf[e] = ((const float*)in[0])[e];
    for (s = 0; s < rs.n_order; s++) {
        int a = rs.order[s];
        int64_t din = cur.d[a], dout = rs.out[a], ntap, outer, inner, o, i, k, nn;
        size_t cnt;
        int64_t* idx;
        double *w, *nb;
        unsigned char* ext;
        if (fabs(rs.scale[a] - 1.0) <= 1e-9 && dout == din &&
            (!rs.has_roi || (fabs(rs.roi_s[a]) <= 1e-9 && fabs(rs.roi_e[a] - 1.0) <= 1e-9)))
            continue; /* identity along this axis */
        ntap = aicf__op_rs_ntaps(&rs, rs.scale[a]);
        if (ntap < 1 || ntap > AICF__OP_MAX_WINDOW || (dout && !aicf__mul_size((size_t)dout, (size_t)ntap, &cnt))) {
            res = aicf__op_err(c, AICF_ERROR_LIMIT, "too many interpolation taps");
            break;
        }
        cnt = (size_t)(dout ? dout : 1) * (size_t)ntap;
        idx = (int64_t*)aicf__malloc(c->ctx, cnt * sizeof(int64_t));
        w = (double*)aicf__malloc(c->ctx, cnt * sizeof(double));
        ext = (unsigned char*)aicf__calloc(c->ctx, (size_t)(dout ? dout : 1), 1);
        outer = aicf__op_prod(cur.d, 0, a);
        inner = aicf__op_prod(cur.d, a + 1, cur.rank);
        nn = outer * dout * inner;
        nb = (double*)aicf__malloc(c->ctx, (size_t)(nn ? nn : 1) * sizeof(double));
        if (!idx || !w || !ext || !nb) {
            aicf__free(c->ctx, idx);
            aicf__free(c->ctx, w);
            aicf__free(c->ctx, ext);
            aicf__free(c->ctx, nb);
            res = aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        if (din == 0 && dout > 0) {
            res = aicf__op_err(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", a);
        } else {
            for (o = 0; o < dout; o++) ext[o] = (unsigned char)aicf__op_rs_taps(&rs, a, din, o, ntap, idx + o * ntap, w + o * ntap);
            for (i = 0; i < outer; i++)
                for (o = 0; o < dout; o++) {
                    double* dst = nb + (i * dout + o) * inner;
                    const double* src = buf + i * din * inner;
                    int64_t j;
                    if (ext[o]) {
                        for (j = 0; j < inner; j++) dst[j] = rs.extrap;
                        continue;
                    }
                    for (j = 0; j < inner; j++) dst[j] = 0.0;
                    for (k = 0; k < ntap; k++) {
                        double wk = w[o * ntap + k];
                        const double* sr = src + idx[o * ntap + k] * inner;
                        if (wk == 0.0) continue;
                        for (j = 0; j < inner; j++) dst[j] += wk * sr[j];
                    }
                }
        }
        aicf__free(c->ctx, idx);
        aicf__free(c->ctx, w);
        aicf__free(c->ctx, ext);
        aicf__free(c->ctx, buf);
        buf = nb;
        cur.d[a] = dout;
        if (res != AICF_SUCCESS) break;
    }
    if (res == AICF_SUCCESS) {
        n = aicf__shape_numel(&cur);
        for (e = 0; e < n; e++) ((float*)out[0])[e] = (float)buf[e];
    }
    aicf__free(c->ctx, buf);
    return res;
}

/* ---- Attention (opset 23-25): scaled dot-product attention with masks, KV cache, GQA ----
   As the ONNX reference: scores = (Q * sqrt(scale)) (K * sqrt(scale))^T, softcap, + bias
   (attn_mask, causal, sliding window, nonpad_kv_seqlen), softmax (a fully masked row gives 0),
   Y = P V. Sums in double. */
typedef struct aicf__op_att {
    int r3;                                   /* 3-D inputs [B, S, heads * size] */
    int64_t B, qH, kvH, qS, kvS, P, T, D, Dv; /* P: past length, T = P + kvS */
    float s;                                  /* sqrt(scale), rounded to float32 */
    float softcap;
    int64_t causal, mode, left, right;
} aicf__op_att;

static aicf_result aicf__op_att_make(const aicf__opc* c, aicf__op_att* a) {
    const aicf__tensor* q = aicf__op_in(c, 0);
    const aicf__tensor* k = aicf__op_in(c, 1);
    const aicf__tensor* v = aicf__op_in(c, 2);
    const aicf__tensor* m = aicf__op_in(c, 3);
    const aicf__tensor* pk = aicf__op_in(c, 4);
    const aicf__tensor* pv = aicf__op_in(c, 5);
    const aicf__tensor* np = aicf__op_in(c, 6);
    int r = q->shape.rank, i;
    float sc;
    char b1[160], b2[160], b3[160];
    memset(a, 0, sizeof *a);
    if ((r != 3 && r != 4) || k->shape.rank != r || v->shape.rank != r)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "Q, K, V shapes %s, %s, %s must all be 3-D or all 4-D", aicf__op_sstr(&q->shape, b1, sizeof b1),
                          aicf__op_sstr(&k->shape, b2, sizeof b2), aicf__op_sstr(&v->shape, b3, sizeof b3));
    a->r3 = r == 3;
    a->B = q->shape.d[0];
    if (a->r3) {
        AICF__OP_TRY(aicf__op_ai(c, "q_num_heads", 0, &a->qH));
        AICF__OP_TRY(aicf__op_ai(c, "kv_num_heads", 0, &a->kvH));
        if (a->qH < 1 || a->kvH < 1)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "3-D inputs need attributes q_num_heads and kv_num_heads >= 1");
        if (q->shape.d[2] % a->qH || k->shape.d[2] % a->kvH || v->shape.d[2] % a->kvH)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "hidden sizes of Q %s, K %s, V %s are not multiples of the head counts %lld, %lld",
                              aicf__op_sstr(&q->shape, b1, sizeof b1), aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), (long long)a->qH, (long long)a->kvH);
        a->qS = q->shape.d[1];
        a->kvS = k->shape.d[1];
        a->D = q->shape.d[2] / a->qH;
        a->Dv = v->shape.d[2] / a->kvH;
        if (k->shape.d[2] / a->kvH != a->D || v->shape.d[1] != a->kvS)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "K %s and V %s do not match Q %s", aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), aicf__op_sstr(&q->shape, b1, sizeof b1));
    } else {
        if (c->opset >= 25 && (aicf__attr(c->n, "q_num_heads") || aicf__attr(c->n, "kv_num_heads")))
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "q_num_heads and kv_num_heads must not be given for 4-D inputs");
        a->qH = q->shape.d[1];
        a->kvH = k->shape.d[1];
        a->qS = q->shape.d[2];
        a->kvS = k->shape.d[2];
        a->D = q->shape.d[3];
        a->Dv = v->shape.d[3];
        if (k->shape.d[3] != a->D || v->shape.d[1] != a->kvH || v->shape.d[2] != a->kvS)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "K %s and V %s do not match Q %s", aicf__op_sstr(&k->shape, b2, sizeof b2),
                              aicf__op_sstr(&v->shape, b3, sizeof b3), aicf__op_sstr(&q->shape, b1, sizeof b1));
    }
    if (k->shape.d[0] != a->B || v->shape.d[0] != a->B)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "Q, K and V have different batch sizes");
    if (a->kvH < 1 || a->qH % a->kvH != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "%lld query heads are not a multiple of %lld key/value heads", (long long)a->qH,
                          (long long)a->kvH);
    if (!pk != !pv) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "past_key and past_value must be given together");
    if (pk) {
        if (pk->shape.rank != 4 || pv->shape.rank != 4 || pk->shape.d[0] != a->B || pk->shape.d[1] != a->kvH || pk->shape.d[3] != a->D ||
            pv->shape.d[0] != a->B || pv->shape.d[1] != a->kvH || pv->shape.d[2] != pk->shape.d[2] || pv->shape.d[3] != a->Dv)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "past_key %s / past_value %s must be [%lld,%lld,P,%lld] / [%lld,%lld,P,%lld]",
                              aicf__op_sstr(&pk->shape, b1, sizeof b1), aicf__op_sstr(&pv->shape, b2, sizeof b2), (long long)a->B,
                              (long long)a->kvH, (long long)a->D, (long long)a->B, (long long)a->kvH, (long long)a->Dv);
        a->P = pk->shape.d[2];
    }
    a->T = a->P + a->kvS;
    if (np) {
        if (pk) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "nonpad_kv_seqlen cannot be combined with past_key");
        if (np->dtype != AICF_DTYPE_INT64 || np->shape.rank != 1 || np->shape.d[0] != a->B)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 6 '%.200s' (nonpad_kv_seqlen) must be int64 [%lld]", aicf__op_in_name(c, 6), (long long)a->B);
    }
    if (m) {
        int64_t want[4];
        want[0] = a->B;
        want[1] = a->qH;
        want[2] = a->qS;
        want[3] = a->T;
        if (m->dtype != AICF_DTYPE_BOOL && m->dtype != q->dtype)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "input 3 '%.200s' (attn_mask) must be bool or %s", aicf__op_in_name(c, 3),
                              aicf_dtype_name(q->dtype));
        if (m->shape.rank < 1 || m->shape.rank > 4 || m->shape.d[m->shape.rank - 1] > a->T)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "input 3 '%.200s' (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                              aicf__op_in_name(c, 3), aicf__op_sstr(&m->shape, b1, sizeof b1), (long long)a->B, (long long)a->qH,
                              (long long)a->qS, (long long)a->T);
        for (i = 0; i < m->shape.rank - 1; i++) {
            int64_t d = m->shape.d[i], w = want[4 - m->shape.rank + i];
            if (d != 1 && d != w)
                return aicf__op_err(c, AICF_ERROR_SHAPE, "input 3 '%.200s' (attn_mask) shape %s does not broadcast to [%lld,%lld,%lld,%lld]",
                                  aicf__op_in_name(c, 3), aicf__op_sstr(&m->shape, b1, sizeof b1), (long long)a->B, (long long)a->qH,
                                  (long long)a->qS, (long long)a->T);
        }
    }
    AICF__OP_TRY(aicf__op_af(c, "scale", (float)(1.0 / sqrt((double)(a->D > 0 ? a->D : 1))), &sc));
    if (!aicf__attr(c->n, "scale")) sc = (float)(1.0 / sqrt((double)(a->D > 0 ? a->D : 1)));
    if (!(sc >= 0.0f)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'scale' = %g must not be negative", (double)sc);
    a->s = (float)sqrt((double)sc);
    AICF__OP_TRY(aicf__op_af(c, "softcap", 0.0f, &a->softcap));
    AICF__OP_TRY(aicf__op_ai(c, "is_causal", 0, &a->causal));
    AICF__OP_TRY(aicf__op_ai(c, "qk_matmul_output_mode", 0, &a->mode));
    AICF__OP_TRY(aicf__op_ai(c, "left_window_size", -1, &a->left));
    AICF__OP_TRY(aicf__op_ai(c, "right_window_size", -1, &a->right));
    if (a->mode < 0 || a->mode > 3)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'qk_matmul_output_mode' = %lld must be 0 to 3", (long long)a->mode);
    if (a->left < -1 || a->right < -1)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "window sizes (%lld, %lld) must be -1 or >= 0", (long long)a->left, (long long)a->right);
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_attention(const aicf__opc* c) {
    aicf__op_att a;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 7, 1, 4));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 4, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 5, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_att_make(c, &a));
    memset(&o, 0, sizeof o);
    if (a.r3) {
        o.rank = 3;
        o.d[0] = a.B;
        o.d[1] = a.qS;
        o.d[2] = a.qH * a.Dv;
    } else {
        o.rank = 4;
        o.d[0] = a.B;
        o.d[1] = a.qH;
        o.d[2] = a.qS;
        o.d[3] = a.Dv;
    }
    AICF__OP_TRY(aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o));
    o.rank = 4;
    o.d[0] = a.B;
    o.d[1] = a.kvH;
    o.d[2] = a.T;
    o.d[3] = a.D;
    AICF__OP_TRY(aicf__op_set_out(c, 1, AICF_DTYPE_FLOAT32, &o));
    o.d[3] = a.Dv;
    AICF__OP_TRY(aicf__op_set_out(c, 2, AICF_DTYPE_FLOAT32, &o));
    o.d[1] = a.qH;
    o.d[2] = a.qS;
    o.d[3] = a.T;
    return aicf__op_set_out(c, 3, AICF_DTYPE_FLOAT32, &o);
}

static aicf_result aicf__op_run_attention(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_att a;
    const float* Q = (const float*)in[0];
    const float* K = (const float*)in[1];
    const float* V = (const float*)in[2];
    const aicf__tensor* mt = aicf__op_in(c, 3);
    const float* PK = aicf__op_in(c, 4) ? (const float*)in[4] : NULL;
    const float* PV = aicf__op_in(c, 5) ? (const float*)in[5] : NULL;
    const int64_t* NP = aicf__op_in(c, 6) ? (const int64_t*)in[6] : NULL;
    float* Y = (float*)out[0];
    float* PKo = aicf__op_out(c, 1) ? (float*)out[1] : NULL;
    float* PVo = aicf__op_out(c, 2) ? (float*)out[2] : NULL;
    float* QK = aicf__op_out(c, 3) ? (float*)out[3] : NULL;
    int64_t b, h, i, j, d, grp, mst[4], mdim[4];
    double *x, *bias;
    float *kbuf, *vbuf; /* present key / value of one batch, [kvH, T, D] and [kvH, T, Dv] */
    int mr = mt ? mt->shape.rank : 0, k;
    AICF__OP_TRY(aicf__op_att_make(c, &a));
    grp = a.qH / a.kvH;
    if (NP)
        for (b = 0; b < a.B; b++)
            if (NP[b] < 0 || NP[b] > a.T)
                return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "nonpad_kv_seqlen[%lld] = %lld is out of range [0, %lld]", (long long)b,
                                  (long long)NP[b], (long long)a.T);
    /* broadcast strides of the mask over [B, qH, qS, T] (its last dim may be shorter: padded) */
    for (k = 0; k < 4; k++) {
        mst[k] = 0;
        mdim[k] = 1;
    }
    if (mt) {
        int64_t st = 1;
        for (k = mr - 1; k >= 0; k--) {
            mdim[4 - mr + k] = mt->shape.d[k];
            mst[4 - mr + k] = mt->shape.d[k] == 1 && k != mr - 1 ? 0 : st;
            st *= mt->shape.d[k];
        }
    }
    x = (double*)aicf__malloc(c->ctx, (size_t)(a.T + 1) * 2 * sizeof(double));
    kbuf = (float*)aicf__malloc(c->ctx, (size_t)(a.kvH * a.T * (a.D + a.Dv) + 1) * sizeof(float));
    if (!x || !kbuf) {
        aicf__free(c->ctx, x);
        aicf__free(c->ctx, kbuf);
        return aicf__op_err(c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    bias = x + a.T + 1;
    vbuf = kbuf + a.kvH * a.T * a.D;
    for (b = 0; b < a.B; b++) {
        /* present key / value: past then new, in [kvH, T, size] */
        for (h = 0; h < a.kvH; h++)
            for (j = 0; j < a.T; j++) {
                for (d = 0; d < a.D; d++) {
                    float kv;
                    if (j < a.P) kv = PK[((b * a.kvH + h) * a.P + j) * a.D + d];
                    else if (a.r3) kv = K[(b * a.kvS + (j - a.P)) * a.kvH * a.D + h * a.D + d];
                    else kv = K[((b * a.kvH + h) * a.kvS + (j - a.P)) * a.D + d];
                    kbuf[(h * a.T + j) * a.D + d] = kv;
                }
                for (d = 0; d < a.Dv; d++) {
                    float vv;
                    if (j < a.P) vv = PV[((b * a.kvH + h) * a.P + j) * a.Dv + d];
                    else if (a.r3) vv = V[(b * a.kvS + (j - a.P)) * a.kvH * a.Dv + h * a.Dv + d];
                    else vv = V[((b * a.kvH + h) * a.kvS + (j - a.P)) * a.Dv + d];
                    vbuf[(h * a.T + j) * a.Dv + d] = vv;
                }
            }
        if (PKo) memcpy(PKo + b * a.kvH * a.T * a.D, kbuf, (size_t)(a.kvH * a.T * a.D) * sizeof(float));
        if (PVo) memcpy(PVo + b * a.kvH * a.T * a.Dv, vbuf, (size_t)(a.kvH * a.T * a.Dv) * sizeof(float));
        for (h = 0; h < a.qH; h++) {
            int64_t kh = h / grp, off = NP && !PK ? NP[b] - a.qS : a.P;
            for (i = 0; i < a.qS; i++) {
                double mx = -INFINITY, bmx = -INFINITY, sum = 0.0;
                for (j = 0; j < a.T; j++) {
                    double dot = 0.0, bj = 0.0;
                    const float* kr = kbuf + (kh * a.T + j) * a.D;
                    for (d = 0; d < a.D; d++) {
                        float qv = a.r3 ? Q[(b * a.qS + i) * a.qH * a.D + h * a.D + d] : Q[((b * a.qH + h) * a.qS + i) * a.D + d];
                        dot += (double)(float)(qv * a.s) * (double)(float)(kr[d] * a.s);
                    }
                    if (a.softcap > 0.0f) dot = a.softcap * tanh(dot / a.softcap);
                    if (mt) {
                        if (j >= mdim[3]) {
                            bj = -INFINITY; /* the mask is padded with False / -inf */
                        } else {
                            int64_t mo = b * (mdim[0] == 1 ? 0 : mst[0]) + h * (mdim[1] == 1 ? 0 : mst[1]) + i * (mdim[2] == 1 ? 0 : mst[2]) + j * mst[3];
                            if (mt->dtype == AICF_DTYPE_BOOL) bj = ((const uint8_t*)in[3])[mo] ? 0.0 : -INFINITY;
                            else bj = ((const float*)in[3])[mo];
                        }
                    }
                    if (a.causal && j > i + off) bj = -INFINITY;
                    if (a.left >= 0 && (i + off) - j > a.left) bj = -INFINITY;
                    if (a.right >= 0 && j - (i + off) > a.right) bj = -INFINITY;
                    if (NP && j >= NP[b]) bj = -INFINITY;
                    bias[j] = bj;
                    if (bj > bmx) bmx = bj;
                    x[j] = dot + bj;
                    if (QK && a.mode <= 1) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)dot;
                    if (QK && a.mode == 2) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)(dot + bj);
                    if (x[j] > mx) mx = x[j];
                }
                /* softmax; a row with no attendable key (all of its bias -inf) gives 0 */
                for (j = 0; j < a.T; j++) {
                    x[j] = mx == -INFINITY || bmx == -INFINITY ? 0.0 : exp(x[j] - mx);
                    sum += x[j];
                }
                for (j = 0; j < a.T; j++) {
                    x[j] = sum > 0.0 ? (double)(float)(x[j] / sum) : 0.0;
                    if (QK && a.mode == 3) QK[((b * a.qH + h) * a.qS + i) * a.T + j] = (float)x[j];
                }
                for (d = 0; d < a.Dv; d++) {
                    double acc = 0.0;
                    for (j = 0; j < a.T; j++) acc += x[j] * vbuf[(kh * a.T + j) * a.Dv + d];
                    if (a.r3) Y[(b * a.qS + i) * a.qH * a.Dv + h * a.Dv + d] = (float)acc;
                    else Y[((b * a.qH + h) * a.qS + i) * a.Dv + d] = (float)acc;
                }
            }
        }
    }
    (void)bias;
    aicf__free(c->ctx, x);
    aicf__free(c->ctx, kbuf);
    return AICF_SUCCESS;
}

/* ---- RotaryEmbedding (opset 23) ---- */
typedef struct aicf__op_rope {
    int r3;
    int64_t B, H, S, hd, rd, npos; /* npos: rows of the caches when position_ids index them, else 0 */
    int64_t inter;
} aicf__op_rope;

static aicf_result aicf__op_rope_make(const aicf__opc* c, aicf__op_rope* p) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* cs = aicf__op_in(c, 1);
    const aicf__tensor* sn = aicf__op_in(c, 2);
    const aicf__tensor* pid = aicf__op_in(c, 3);
    int64_t nh, rd;
    char b1[160], b2[160];
    memset(p, 0, sizeof *p);
    AICF__OP_TRY(aicf__op_ai(c, "interleaved", 0, &p->inter));
    AICF__OP_TRY(aicf__op_ai(c, "num_heads", 0, &nh));
    AICF__OP_TRY(aicf__op_ai(c, "rotary_embedding_dim", 0, &rd));
    if (x->shape.rank == 4) {
        p->B = x->shape.d[0];
        p->H = x->shape.d[1];
        p->S = x->shape.d[2];
        p->hd = x->shape.d[3];
    } else if (x->shape.rank == 3) {
        p->r3 = 1;
        if (nh < 1 || x->shape.d[2] % nh)
            return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "3-D input needs attribute num_heads dividing its hidden size %lld",
                              (long long)x->shape.d[2]);
        p->B = x->shape.d[0];
        p->S = x->shape.d[1];
        p->H = nh;
        p->hd = x->shape.d[2] / nh;
    } else {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 '%.200s' must be 3-D or 4-D", aicf__op_in_name(c, 0));
    }
    p->rd = rd ? rd : p->hd;
    if (p->rd < 2 || p->rd > p->hd || p->rd % 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "rotary_embedding_dim %lld must be even and at most the head size %lld", (long long)p->rd,
                          (long long)p->hd);
    if (cs->shape.rank != sn->shape.rank || memcmp(cs->shape.d, sn->shape.d, sizeof(int64_t) * (size_t)cs->shape.rank) != 0)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "cos_cache %s and sin_cache %s differ", aicf__op_sstr(&cs->shape, b1, sizeof b1),
                          aicf__op_sstr(&sn->shape, b2, sizeof b2));
    if (pid) {
        if (pid->shape.rank != 2 || pid->shape.d[0] != p->B || pid->shape.d[1] != p->S || cs->shape.rank != 2 || cs->shape.d[1] != p->rd / 2)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "with position_ids [%lld,%lld] the caches must be [positions,%lld], are %s", (long long)p->B,
                              (long long)p->S, (long long)(p->rd / 2), aicf__op_sstr(&cs->shape, b1, sizeof b1));
        p->npos = cs->shape.d[0];
    } else if (cs->shape.rank != 3 || cs->shape.d[0] != p->B || cs->shape.d[1] != p->S || cs->shape.d[2] != p->rd / 2) {
        return aicf__op_err(c, AICF_ERROR_SHAPE, "without position_ids the caches must be [%lld,%lld,%lld], are %s", (long long)p->B, (long long)p->S,
                          (long long)(p->rd / 2), aicf__op_sstr(&cs->shape, b1, sizeof b1));
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_rope(const aicf__opc* c) {
    aicf__op_rope p;
    AICF__OP_TRY(aicf__op_check_io(c, 3, 4, 1, 1));
    AICF__OP_TRY(aicf__op_check_dt(c, 0, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 1, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 2, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_check_dt(c, 3, AICF__OP_DTM(AICF_DTYPE_INT64)));
    AICF__OP_TRY(aicf__op_rope_make(c, &p));
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &aicf__op_in(c, 0)->shape);
}

static aicf_result aicf__op_run_rope(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_rope p;
    const float* X = (const float*)in[0];
    const float* CS = (const float*)in[1];
    const float* SN = (const float*)in[2];
    const int64_t* PID = aicf__op_in(c, 3) ? (const int64_t*)in[3] : NULL;
    float* Y = (float*)out[0];
    int64_t b, s, h, k, half;
    AICF__OP_TRY(aicf__op_rope_make(c, &p));
    half = p.rd / 2;
    for (b = 0; b < p.B; b++)
        for (s = 0; s < p.S; s++) {
            int64_t row = b * p.S + s;
            if (PID) {
                row = PID[b * p.S + s];
                if (row < 0 || row >= p.npos)
                    return aicf__op_err(c, AICF_ERROR_INVALID_ARGUMENT, "position_ids[%lld,%lld] = %lld is out of range [0, %lld)", (long long)b,
                                      (long long)s, (long long)row, (long long)p.npos);
            }
            for (h = 0; h < p.H; h++) {
                int64_t base = p.r3 ? (b * p.S + s) * p.H * p.hd + h * p.hd : ((b * p.H + h) * p.S + s) * p.hd;
                const float* x = X + base;
                float* y = Y + base;
                for (k = 0; k < half; k++) {
                    float cv = CS[row * half + k], sv = SN[row * half + k];
                    int64_t i1 = p.inter ? 2 * k : k, i2 = p.inter ? 2 * k + 1 : k + half;
                    float x1 = x[i1], x2 = x[i2];
                    y[i1] = cv * x1 - sv * x2;
                    y[i2] = sv * x1 + cv * x2;
                }
                for (k = p.rd; k < p.hd; k++) y[k] = x[k];
            }
        }
    return AICF_SUCCESS;
}

/* ---- ConvTranspose ---- */
typedef struct aicf__op_ct {
    int nsp;
    int64_t N, C, M, group;
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3];
} aicf__op_ct;

static int64_t aicf__op_floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

static aicf_result aicf__op_ct_make(const aicf__opc* c, aicf__op_ct* w) {
    const aicf__tensor* x = aicf__op_in(c, 0);
    const aicf__tensor* wt = aicf__op_in(c, 1);
    const aicf__tensor* b = aicf__op_in(c, 2);
    int nsp = x->shape.rank - 2, i, o, cnt;
    int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, op[3] = {0, 0, 0}, pads[6] = {0, 0, 0, 0, 0, 0}, os[AICF_MAX_RANK];
    const int64_t* v;
    const char* ap;
    char b1[160], b2[160];
    int n_os = -1;
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > 3)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' has rank %d; supported: 3 to 5 (1-D to 3-D NCHW)",
                          aicf__op_in_name(c, 0), x->shape.rank);
    if (wt->shape.rank != x->shape.rank)
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 1 '%.200s' (W) shape %s has a different rank than input 0 shape %s",
                          aicf__op_in_name(c, 1), aicf__op_sstr(&wt->shape, b1, sizeof b1), aicf__op_sstr(&x->shape, b2, sizeof b2));
    AICF__OP_TRY(aicf__op_ai(c, "group", 1, &w->group));
    if (w->group < 1 || x->shape.d[1] % w->group != 0 || wt->shape.d[0] != x->shape.d[1])
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 0 has %lld channels but W shape %s with group %lld expects W[0] = C",
                          (long long)x->shape.d[1], aicf__op_sstr(&wt->shape, b1, sizeof b1), (long long)w->group);
    w->nsp = nsp;
    w->N = x->shape.d[0];
    w->C = x->shape.d[1];
    w->M = wt->shape.d[1] * w->group;
    if (b && (b->shape.rank != 1 || b->shape.d[0] != w->M))
        return aicf__op_err(c, AICF_ERROR_SHAPE, "input 2 '%.200s' (B) shape %s must be [%lld]", aicf__op_in_name(c, 2),
                          aicf__op_sstr(&b->shape, b1, sizeof b1), (long long)w->M);
#define AICF__OP_CT_ATTR(name, arr, n, lo)                                                                              \
    AICF__OP_TRY(aicf__op_aints(c, name, &v, &cnt));                                                                    \
    if (cnt >= 0) {                                                                                                     \
        if (cnt != (n)) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute '%s' has %d values; expected %d", name, cnt, (n)); \
        for (i = 0; i < cnt; i++) {                                                                                     \
            if (v[i] < (lo) || v[i] > AICF__OP_MAX_WINDOW)                                                              \
                return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "%s[%d] = %lld is out of range", name, i, (long long)v[i]); \
            arr[i] = v[i];                                                                                              \
        }                                                                                                               \
    }
    AICF__OP_CT_ATTR("strides", st, nsp, 1)
    AICF__OP_CT_ATTR("dilations", dl, nsp, 1)
    AICF__OP_CT_ATTR("output_padding", op, nsp, 0)
    AICF__OP_CT_ATTR("pads", pads, 2 * nsp, 0)
#undef AICF__OP_CT_ATTR
    AICF__OP_TRY(aicf__op_aints(c, "kernel_shape", &v, &cnt));
    if (cnt >= 0) {
        if (cnt != nsp) return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values; expected %d", cnt, nsp);
        for (i = 0; i < cnt; i++)
            if (v[i] != wt->shape.d[2 + i])
                return aicf__op_err(c, AICF_ERROR_SHAPE, "attribute 'kernel_shape' does not match W shape %s", aicf__op_sstr(&wt->shape, b1, sizeof b1));
    }
    AICF__OP_TRY(aicf__op_aints_r(c, "output_shape", os, &n_os));
    if (n_os >= 0 && n_os != nsp && n_os != nsp + 2)
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'output_shape' has %d values; expected %d", n_os, nsp);
    AICF__OP_TRY(aicf__op_as(c, "auto_pad", "NOTSET", &ap));
    if (strcmp(ap, "NOTSET") && strcmp(ap, "SAME_UPPER") && strcmp(ap, "SAME_LOWER") && strcmp(ap, "VALID") && ap[0])
        return aicf__op_err(c, AICF_ERROR_INVALID_MODEL, "attribute 'auto_pad' is '%.40s'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    o = 3 - nsp;
    for (i = 0; i < 3; i++) w->in[i] = w->out[i] = w->k[i] = w->s[i] = w->d[i] = 1;
    for (i = 0; i < nsp; i++) {
        int64_t in = x->shape.d[2 + i], k = wt->shape.d[2 + i], dk = (k - 1) * dl[i] + 1, full, out;
        full = st[i] * (in - 1) + op[i] + dk;
        w->in[o + i] = in;
        w->k[o + i] = k;
        w->s[o + i] = st[i];
        w->d[o + i] = dl[i];
        if (n_os >= 0 || !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            int64_t total;
            out = n_os >= 0 ? os[n_os - nsp + i] : in * st[i];
            total = full - out;
            w->pb[o + i] = !strcmp(ap, "SAME_UPPER") ? aicf__op_floordiv2(total) : total - aicf__op_floordiv2(total);
        } else if (!strcmp(ap, "VALID")) {
            out = full;
        } else {
            out = full - pads[i] - pads[nsp + i];
            w->pb[o + i] = pads[i];
        }
        if (out < 0 || out > AICF__OP_MAX_WINDOW)
            return aicf__op_err(c, AICF_ERROR_SHAPE, "output size %lld of spatial dim %d is invalid", (long long)out, i);
        w->out[o + i] = out;
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__op_infer_convt(const aicf__opc* c) {
    aicf__op_ct w;
    aicf__shape o;
    int i;
    AICF__OP_TRY(aicf__op_check_io(c, 2, 3, 1, 1));
    for (i = 0; i < 3; i++) AICF__OP_TRY(aicf__op_check_dt(c, i, AICF__OP_DTM_F32));
    AICF__OP_TRY(aicf__op_ct_make(c, &w));
    memset(&o, 0, sizeof o);
    o.rank = w.nsp + 2;
    o.d[0] = w.N;
    o.d[1] = w.M;
    for (i = 0; i < w.nsp; i++) o.d[2 + i] = w.out[3 - w.nsp + i];
    return aicf__op_set_out(c, 0, AICF_DTYPE_FLOAT32, &o);
}

/* Y[n, m, o] = B[m] + sum over c (of m's group), kernel position k and input position i with
   o = i * stride + k * dilation - pad_begin of X[n, c, i] * W[c, m % (M/group), k]. */
static aicf_result aicf__op_run_convt(const aicf__opc* c, const void* const* in, void* const* out) {
    aicf__op_ct w;
    const float* X = (const float*)in[0];
    const float* W = (const float*)in[1];
    const float* B = aicf__op_in(c, 2) ? (const float*)in[2] : NULL;
    float* Y = (float*)out[0];
    int64_t n, m, ci, Cg, Mg, IS, OS, KS, i0, i1, i2, k0, k1, k2, j;
    AICF__OP_TRY(aicf__op_ct_make(c, &w));
    Cg = w.C / w.group;
    Mg = w.M / w.group;
    IS = w.in[0] * w.in[1] * w.in[2];
    OS = w.out[0] * w.out[1] * w.out[2];
    KS = w.k[0] * w.k[1] * w.k[2];
    for (n = 0; n < w.N; n++)
        for (m = 0; m < w.M; m++) {
            float* yp = Y + (n * w.M + m) * OS;
            int64_t g = m / Mg, ml = m % Mg;
            for (j = 0; j < OS; j++) yp[j] = B ? B[m] : 0.0f;
            for (ci = 0; ci < Cg; ci++) {
                const float* xp = X + (n * w.C + g * Cg + ci) * IS;
                const float* wp = W + ((g * Cg + ci) * Mg + ml) * KS;
                for (i0 = 0; i0 < w.in[0]; i0++)
                    for (k0 = 0; k0 < w.k[0]; k0++) {
                        int64_t o0 = i0 * w.s[0] + k0 * w.d[0] - w.pb[0];
                        if (o0 < 0 || o0 >= w.out[0]) continue;
                        for (i1 = 0; i1 < w.in[1]; i1++)
                            for (k1 = 0; k1 < w.k[1]; k1++) {
                                int64_t o1 = i1 * w.s[1] + k1 * w.d[1] - w.pb[1];
                                if (o1 < 0 || o1 >= w.out[1]) continue;
                                for (i2 = 0; i2 < w.in[2]; i2++) {
                                    float xv = xp[(i0 * w.in[1] + i1) * w.in[2] + i2];
                                    for (k2 = 0; k2 < w.k[2]; k2++) {
                                        int64_t o2 = i2 * w.s[2] + k2 * w.d[2] - w.pb[2];
                                        if (o2 < 0 || o2 >= w.out[2]) continue;
                                        yp[(o0 * w.out[1] + o1) * w.out[2] + o2] += xv * wp[(k0 * w.k[1] + k1) * w.k[2] + k2];
                                    }
                                }
                            }
                    }
            }
        }
    return AICF_SUCCESS;
}

/* ============================================================================================
   Entry points
   ============================================================================================ */

int aicf__op_is_alias(aicf__op op) {
    return op == AICF__OP_Reshape || op == AICF__OP_Flatten || op == AICF__OP_Squeeze || op == AICF__OP_Unsqueeze ||
           op == AICF__OP_Identity || op == AICF__OP_Dropout;
}

static aicf_result aicf__op_check_node(const aicf__opc* c) {
    const char* dom = c->n->domain;
    if (dom && dom[0] && strcmp(dom, "ai.onnx") != 0)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "domain '%.100s' is not supported", dom);
    if (c->n->op <= AICF__OP_UNKNOWN || c->n->op >= AICF__OP_COUNT)
        return aicf__op_err(c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    return AICF_SUCCESS;
}

aicf_result aicf__op_infer(aicf_graph* g, int ni) {
    aicf__opc c;
    if (!g || ni < 0 || ni >= g->n_nodes) return AICF_ERROR_INVALID_ARGUMENT;
    aicf__opc_init(&c, g, ni);
    AICF__OP_TRY(aicf__op_check_node(&c));
    switch (c.n->op) {
    case AICF__OP_Conv: return aicf__op_infer_conv(&c);
    case AICF__OP_Gemm: return aicf__op_infer_gemm(&c);
    case AICF__OP_MatMul: return aicf__op_infer_matmul(&c);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min: return aicf__op_infer_binary(&c);
    case AICF__OP_Relu:
    case AICF__OP_Tanh:
    case AICF__OP_Sigmoid:
    case AICF__OP_Exp:
    case AICF__OP_Log:
    case AICF__OP_Sqrt:
    case AICF__OP_Neg:
    case AICF__OP_Abs:
    case AICF__OP_Reciprocal:
    case AICF__OP_Erf:
    case AICF__OP_LeakyRelu:
    case AICF__OP_Elu:
    case AICF__OP_HardSigmoid:
    case AICF__OP_HardSwish:
    case AICF__OP_Clip: return aicf__op_infer_unary(&c);
    case AICF__OP_Identity:
    case AICF__OP_Dropout:
    case AICF__OP_Reshape:
    case AICF__OP_Flatten:
    case AICF__OP_Unsqueeze:
    case AICF__OP_Squeeze: return aicf__op_infer_alias(&c);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__op_infer_pool(&c);
    case AICF__OP_GlobalAveragePool: return aicf__op_infer_gap(&c);
    case AICF__OP_BatchNormalization: return aicf__op_infer_bn(&c);
    case AICF__OP_LRN: return aicf__op_infer_lrn(&c);
    case AICF__OP_Concat: return aicf__op_infer_concat(&c);
    case AICF__OP_Transpose: return aicf__op_infer_transpose(&c);
    case AICF__OP_Softmax: return aicf__op_infer_softmax(&c);
    case AICF__OP_Constant: return aicf__op_infer_constant(&c);
    case AICF__OP_ConstantOfShape: return aicf__op_infer_cos(&c);
    case AICF__OP_Shape: return aicf__op_infer_shape(&c);
    case AICF__OP_Cast: return aicf__op_infer_cast(&c);
    case AICF__OP_Gather: return aicf__op_infer_gather(&c);
    case AICF__OP_GatherElements: return aicf__op_infer_gather_el(&c);
    case AICF__OP_GatherND: return aicf__op_infer_gather_nd(&c);
    case AICF__OP_Slice: return aicf__op_infer_slice(&c);
    case AICF__OP_Split: return aicf__op_infer_split(&c);
    case AICF__OP_Pad: return aicf__op_infer_pad(&c);
    case AICF__OP_Tile:
    case AICF__OP_Expand: return aicf__op_infer_tile_expand(&c);
    case AICF__OP_Where: return aicf__op_infer_where(&c);
    case AICF__OP_Range: return aicf__op_infer_range(&c);
    case AICF__OP_Trilu: return aicf__op_infer_trilu(&c);
    case AICF__OP_Size: return aicf__op_infer_size(&c);
    case AICF__OP_CastLike: return aicf__op_infer_castlike(&c);
    case AICF__OP_OneHot: return aicf__op_infer_onehot(&c);
    case AICF__OP_CumSum:
    case AICF__OP_CumProd: return aicf__op_infer_cumsum(&c);
    case AICF__OP_BitShift:
    case AICF__OP_BitwiseAnd:
    case AICF__OP_BitwiseOr:
    case AICF__OP_BitwiseXor: return aicf__op_infer_bitwise(&c);
    case AICF__OP_BitwiseNot:
        AICF__OP_TRY(aicf__op_check_io(&c, 1, 1, 1, 1));
        AICF__OP_TRY(aicf__op_check_dt(&c, 0, AICF__OP_DTM_INTS));
        return aicf__op_set_out(&c, 0, aicf__op_in(&c, 0)->dtype, &aicf__op_in(&c, 0)->shape);
    case AICF__OP_EyeLike: return aicf__op_infer_eyelike(&c);
    case AICF__OP_Compress: return aicf__op_infer_compress(&c);
    case AICF__OP_ReverseSequence: return aicf__op_infer_revseq(&c);
    case AICF__OP_CenterCropPad: return aicf__op_infer_ccp(&c);
    case AICF__OP_LpPool: return aicf__op_infer_pool(&c);
    case AICF__OP_Attention: return aicf__op_infer_attention(&c);
    case AICF__OP_RotaryEmbedding: return aicf__op_infer_rope(&c);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__op_infer_d2s(&c);
    case AICF__OP_ScatterND: return aicf__op_infer_scatter_nd(&c);
    case AICF__OP_ScatterElements:
    case AICF__OP_Scatter: return aicf__op_infer_scatter_el(&c);
    case AICF__OP_TopK: return aicf__op_infer_topk(&c);
    case AICF__OP_NonZero: return aicf__op_infer_nonzero(&c);
    case AICF__OP_Equal:
    case AICF__OP_Less:
    case AICF__OP_Greater:
    case AICF__OP_LessOrEqual:
    case AICF__OP_GreaterOrEqual:
    case AICF__OP_And:
    case AICF__OP_Or:
    case AICF__OP_Xor: return aicf__op_infer_compare(&c);
    case AICF__OP_Not:
    case AICF__OP_IsNaN:
    case AICF__OP_IsInf: return aicf__op_infer_pred(&c);
    case AICF__OP_Mod: return aicf__op_infer_mod(&c);
    case AICF__OP_PRelu: return aicf__op_infer_prelu(&c);
    case AICF__OP_Mean: return aicf__op_infer_binary(&c);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare: return aicf__op_infer_reduce(&c);
    case AICF__OP_ArgMax:
    case AICF__OP_ArgMin: return aicf__op_infer_arg(&c);
    case AICF__OP_Floor:
    case AICF__OP_Ceil:
    case AICF__OP_Round:
    case AICF__OP_Sign:
    case AICF__OP_Softplus:
    case AICF__OP_Softsign:
    case AICF__OP_Selu:
    case AICF__OP_Celu:
    case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin:
    case AICF__OP_Cos:
    case AICF__OP_Tan:
    case AICF__OP_Asin:
    case AICF__OP_Acos:
    case AICF__OP_Atan:
    case AICF__OP_Sinh:
    case AICF__OP_Cosh:
    case AICF__OP_Asinh:
    case AICF__OP_Acosh:
    case AICF__OP_Atanh:
    case AICF__OP_Gelu:
    case AICF__OP_Mish:
    case AICF__OP_Shrink:
    case AICF__OP_Swish: return aicf__op_infer_unary(&c);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization: return aicf__op_infer_ln(&c);
    case AICF__OP_InstanceNormalization:
    case AICF__OP_GroupNormalization: return aicf__op_infer_gn(&c);
    case AICF__OP_LpNormalization: return aicf__op_infer_lpn(&c);
    case AICF__OP_MeanVarianceNormalization: return aicf__op_infer_mvn(&c);
    case AICF__OP_LogSoftmax:
    case AICF__OP_Hardmax: return aicf__op_infer_softmax(&c);
    case AICF__OP_GlobalMaxPool: return aicf__op_infer_gap(&c);
    case AICF__OP_Einsum: return aicf__op_infer_einsum(&c);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__op_infer_resize(&c);
    case AICF__OP_ConvTranspose: return aicf__op_infer_convt(&c);
    default: return aicf__op_err(&c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    }
}

static aicf_result aicf__op_cpu_dispatch(const aicf__opc* c, const void* const* in, void* const* out);

/* Inputs may point into a model file (borrowed raw_data) at any byte offset: those not aligned
   to their element size are copied into an aligned temporary for the call. */
aicf_result aicf__cpu_run(aicf_graph* g, int ni, const void* const* in, void* const* out) {
    aicf__opc c;
    int i, nin;
    const void* local[8];
    const void** ins = local;
    void** tmp = NULL;
    aicf_result r;
    if (!g || ni < 0 || ni >= g->n_nodes || (!in && g->nodes[ni].n_in > 0) || (!out && g->nodes[ni].n_out > 0))
        return AICF_ERROR_INVALID_ARGUMENT;
    aicf__opc_init(&c, g, ni);
    AICF__OP_TRY(aicf__op_check_node(&c));
    nin = c.n->n_in;
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(&c, i);
        if (t && !in[i] && aicf__op_tbytes(t) > 0 && c.n->op != AICF__OP_Shape && c.n->op != AICF__OP_Size)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no data for input %d '%.200s'", i, aicf__op_in_name(&c, i));
    }
    for (i = 0; i < c.n->n_out; i++) {
        const aicf__tensor* t = aicf__op_out(&c, i);
        if (t && !t->shape_known)
            return aicf__op_err(&c, AICF_ERROR_STATE, "output %d '%.200s' has no inferred shape", i, aicf__op_out_name(&c, i));
        if (t && !out[i] && aicf__op_tbytes(t) > 0)
            return aicf__op_err(&c, AICF_ERROR_INVALID_ARGUMENT, "no buffer for output %d '%.200s'", i, aicf__op_out_name(&c, i));
    }
    if (!aicf__op_out(&c, 0) && c.n->op != AICF__OP_Split)
        return aicf__op_err(&c, AICF_ERROR_INVALID_MODEL, "required output 0 is omitted");
    {
        /* nothing to compute when every output is empty */
        int any = c.n->op == AICF__OP_Dropout;
        for (i = 0; i < c.n->n_out && !any; i++)
            if (aicf__op_out(&c, i) && aicf__op_tbytes(aicf__op_out(&c, i)) > 0) any = 1;
        if (!any) return AICF_SUCCESS;
    }
    /* ins has at least 8 entries, NULL past n_in: the ops may look at optional inputs beyond
       the node's input count */
    memset((void*)local, 0, sizeof local);
    if (nin > 8) {
        ins = (const void**)aicf__calloc(c.ctx, (size_t)nin, sizeof(void*));
        if (!ins) return aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (i = 0; i < nin; i++) {
        const aicf__tensor* t = aicf__op_in(&c, i);
        size_t esz = t ? aicf_dtype_size(t->dtype) : 0;
        ins[i] = in[i];
        if (in[i] && esz > 1 && ((uintptr_t)in[i] % esz) != 0) {
            size_t bytes = aicf__op_tbytes(t);
            if (!tmp) {
                tmp = (void**)aicf__calloc(c.ctx, (size_t)nin, sizeof(void*));
                if (!tmp) {
                    r = aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory");
                    goto done;
                }
            }
            tmp[i] = aicf__malloc(c.ctx, bytes);
            if (!tmp[i]) {
                r = aicf__op_err(&c, AICF_ERROR_OUT_OF_MEMORY, "out of memory aligning input %d", i);
                goto done;
            }
            memcpy(tmp[i], in[i], bytes);
            ins[i] = tmp[i];
        }
    }
    r = aicf__op_cpu_dispatch(&c, ins, out);
done:
    if (tmp) {
        for (i = 0; i < nin; i++) aicf__free(c.ctx, tmp[i]);
        aicf__free(c.ctx, tmp);
    }
    if (ins != local) aicf__free(c.ctx, (void*)ins);
    return r;
}

static aicf_result aicf__op_cpu_dispatch(const aicf__opc* cc, const void* const* in, void* const* out) {
    aicf__opc c = *cc;
    switch (c.n->op) {
    case AICF__OP_Conv: return aicf__op_run_conv(&c, in, out);
    case AICF__OP_Gemm: return aicf__op_run_gemm(&c, in, out);
    case AICF__OP_MatMul: return aicf__op_run_matmul(&c, in, out);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min: return aicf__op_run_binary(&c, in, out);
    case AICF__OP_Relu:
    case AICF__OP_Tanh:
    case AICF__OP_Sigmoid:
    case AICF__OP_Exp:
    case AICF__OP_Log:
    case AICF__OP_Sqrt:
    case AICF__OP_Neg:
    case AICF__OP_Abs:
    case AICF__OP_Reciprocal:
    case AICF__OP_Erf:
    case AICF__OP_LeakyRelu:
    case AICF__OP_Elu:
    case AICF__OP_HardSigmoid:
    case AICF__OP_HardSwish:
    case AICF__OP_Clip: return aicf__op_run_unary(&c, in, out);
    case AICF__OP_Identity:
    case AICF__OP_Dropout:
    case AICF__OP_Reshape:
    case AICF__OP_Flatten:
    case AICF__OP_Unsqueeze:
    case AICF__OP_Squeeze: return aicf__op_run_alias(&c, in, out);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__op_run_pool(&c, in, out);
    case AICF__OP_GlobalAveragePool: return aicf__op_run_gap(&c, in, out);
    case AICF__OP_BatchNormalization: return aicf__op_run_bn(&c, in, out);
    case AICF__OP_LRN: return aicf__op_run_lrn(&c, in, out);
    case AICF__OP_Concat: return aicf__op_run_concat(&c, in, out);
    case AICF__OP_Transpose: return aicf__op_run_transpose(&c, in, out);
    case AICF__OP_Softmax: return aicf__op_run_softmax(&c, in, out);
    case AICF__OP_Constant: return aicf__op_run_constant(&c, out);
    case AICF__OP_ConstantOfShape: return aicf__op_run_cos(&c, out);
    case AICF__OP_Shape: return aicf__op_run_shape(&c, out);
    case AICF__OP_Cast:
    case AICF__OP_CastLike: return aicf__op_run_cast(&c, in, out);
    case AICF__OP_Gather: return aicf__op_run_gather(&c, in, out);
    case AICF__OP_GatherElements: return aicf__op_run_gather_el(&c, in, out);
    case AICF__OP_GatherND: return aicf__op_run_gather_nd(&c, in, out);
    case AICF__OP_Slice: return aicf__op_run_slice(&c, in, out);
    case AICF__OP_Split: return aicf__op_run_split(&c, in, out);
    case AICF__OP_Pad: return aicf__op_run_pad(&c, in, out);
    case AICF__OP_Tile:
    case AICF__OP_Expand: return aicf__op_run_tile_expand(&c, in, out);
    case AICF__OP_Where: return aicf__op_run_where(&c, in, out);
    case AICF__OP_Range: return aicf__op_run_range(&c, in, out);
    case AICF__OP_Trilu: return aicf__op_run_trilu(&c, in, out);
    case AICF__OP_Size:
        ((int64_t*)out[0])[0] = aicf__shape_numel(&aicf__op_in(&c, 0)->shape);
        return AICF_SUCCESS;
    case AICF__OP_OneHot: return aicf__op_run_onehot(&c, in, out);
    case AICF__OP_CumSum:
    case AICF__OP_CumProd: return aicf__op_run_cumsum(&c, in, out);
    case AICF__OP_BitShift:
    case AICF__OP_BitwiseAnd:
    case AICF__OP_BitwiseOr:
    case AICF__OP_BitwiseXor: return aicf__op_run_bitwise(&c, in, out);
    case AICF__OP_BitwiseNot: return aicf__op_run_bitnot(&c, in, out);
    case AICF__OP_EyeLike: return aicf__op_run_eyelike(&c, out);
    case AICF__OP_Compress: return aicf__op_run_compress(&c, in, out);
    case AICF__OP_ReverseSequence: return aicf__op_run_revseq(&c, in, out);
    case AICF__OP_CenterCropPad: return aicf__op_run_ccp(&c, in, out);
    case AICF__OP_LpPool: return aicf__op_run_pool(&c, in, out);
    case AICF__OP_Attention: return aicf__op_run_attention(&c, in, out);
    case AICF__OP_RotaryEmbedding: return aicf__op_run_rope(&c, in, out);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__op_run_d2s(&c, in, out);
    case AICF__OP_ScatterND: return aicf__op_run_scatter_nd(&c, in, out);
    case AICF__OP_ScatterElements:
    case AICF__OP_Scatter: return aicf__op_run_scatter_el(&c, in, out);
    case AICF__OP_TopK: return aicf__op_run_topk(&c, in, out);
    case AICF__OP_NonZero: return aicf__op_run_nonzero(&c, in, out);
    case AICF__OP_Equal:
    case AICF__OP_Less:
    case AICF__OP_Greater:
    case AICF__OP_LessOrEqual:
    case AICF__OP_GreaterOrEqual:
    case AICF__OP_And:
    case AICF__OP_Or:
    case AICF__OP_Xor: return aicf__op_run_compare(&c, in, out);
    case AICF__OP_Not:
    case AICF__OP_IsNaN:
    case AICF__OP_IsInf: return aicf__op_run_pred(&c, in, out);
    case AICF__OP_Mod: return aicf__op_run_mod(&c, in, out);
    case AICF__OP_PRelu: return aicf__op_run_prelu(&c, in, out);
    case AICF__OP_Mean: return aicf__op_run_binary(&c, in, out);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare: return aicf__op_run_reduce(&c, in, out);
    case AICF__OP_ArgMax:
    case AICF__OP_ArgMin: return aicf__op_run_arg(&c, in, out);
    case AICF__OP_Floor:
    case AICF__OP_Ceil:
    case AICF__OP_Round:
    case AICF__OP_Sign:
    case AICF__OP_Softplus:
    case AICF__OP_Softsign:
    case AICF__OP_Selu:
    case AICF__OP_Celu:
    case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin:
    case AICF__OP_Cos:
    case AICF__OP_Tan:
    case AICF__OP_Asin:
    case AICF__OP_Acos:
    case AICF__OP_Atan:
    case AICF__OP_Sinh:
    case AICF__OP_Cosh:
    case AICF__OP_Asinh:
    case AICF__OP_Acosh:
    case AICF__OP_Atanh:
    case AICF__OP_Gelu:
    case AICF__OP_Mish:
    case AICF__OP_Shrink:
    case AICF__OP_Swish: return aicf__op_run_unary(&c, in, out);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization: return aicf__op_run_ln(&c, in, out);
    case AICF__OP_InstanceNormalization:
    case AICF__OP_GroupNormalization: return aicf__op_run_gn(&c, in, out);
    case AICF__OP_LpNormalization: return aicf__op_run_lpn(&c, in, out);
    case AICF__OP_MeanVarianceNormalization: return aicf__op_run_mvn(&c, in, out);
    case AICF__OP_LogSoftmax:
    case AICF__OP_Hardmax: return aicf__op_run_logsoftmax(&c, in, out);
    case AICF__OP_GlobalMaxPool: return aicf__op_run_gmp(&c, in, out);
    case AICF__OP_Einsum: return aicf__op_run_einsum(&c, in, out);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__op_run_resize(&c, in, out);
    case AICF__OP_ConvTranspose: return aicf__op_run_convt(&c, in, out);
    default: return aicf__op_err(&c, AICF_ERROR_UNSUPPORTED, "op type is not supported");
    }
}
/* >>plan =================================================================================== */
/* aicf_plan_create runs these passes on a private copy of the graph:
     1. bind check: every graph input has a fully known shape;
     2. shape inference in node order (ONNX graphs are topologically sorted; the builder
        enforces it), folding every node whose inputs are all constants (and Shape, whose
        value is known once shapes are) by running its CPU reference at plan time; an If whose
        condition is then a constant is replaced by the nodes of the branch it selects, which
        inference reaches next (aicf__inline_if); Loop and Scan are refused;
     3. BatchNormalization folded into the Conv that feeds it;
     4. dead node elimination;
     5. steps in node order; for float16 storage, cast steps at the input/output boundary;
     6. aliasing: Reshape-like ops share their input's storage;
     7. memory plan: one arena, offsets by greedy-by-size placement over tensor lifetimes
        (Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference", 2020);
        weights in their own buffer;
     8. a kernel for every step, chosen by the backend, with the reason. */

#define AICF__ALIGN 256u

static size_t aicf__align_up(size_t x) { return (x + (AICF__ALIGN - 1)) & ~(size_t)(AICF__ALIGN - 1); }

static aicf_result aicf__graph_clone(const aicf_graph* src, aicf_graph** out);

/* Deep copy of attribute sa into a (strings, arrays, subgraphs); `tensor` is the index of a
   TENSOR attribute's constant in the destination graph. Returns AICF_SUCCESS or
   AICF_ERROR_OUT_OF_MEMORY (a is left freeable either way). */
static aicf_result aicf__attr_clone(aicf_context* ctx, const aicf__attrv* sa, aicf__attrv* a, int tensor) {
    int k;
    memset(a, 0, sizeof *a);
    a->type = sa->type;
    a->i = sa->i;
    a->f = sa->f;
    a->count = sa->count;
    a->tensor = tensor;
    a->name = aicf__strdup(ctx, sa->name);
    if (!a->name) return AICF_ERROR_OUT_OF_MEMORY;
    if (sa->s && !(a->s = aicf__strdup(ctx, sa->s))) return AICF_ERROR_OUT_OF_MEMORY;
    if (sa->ints) {
        a->ints = (int64_t*)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(int64_t));
        if (!a->ints) return AICF_ERROR_OUT_OF_MEMORY;
        memcpy(a->ints, sa->ints, (size_t)sa->count * sizeof(int64_t));
    }
    if (sa->floats) {
        a->floats = (float*)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(float));
        if (!a->floats) return AICF_ERROR_OUT_OF_MEMORY;
        memcpy(a->floats, sa->floats, (size_t)sa->count * sizeof(float));
    }
    if (sa->strings) {
        a->strings = (char**)aicf__calloc(ctx, (size_t)sa->count + 1, sizeof(char*));
        if (!a->strings) return AICF_ERROR_OUT_OF_MEMORY;
        for (k = 0; k < sa->count; k++)
            if (!(a->strings[k] = aicf__strdup(ctx, sa->strings[k]))) return AICF_ERROR_OUT_OF_MEMORY;
    }
    if (sa->type == AICF_ATTR_GRAPH && sa->g && aicf__graph_clone(sa->g, &a->g) != AICF_SUCCESS)
        return AICF_ERROR_OUT_OF_MEMORY;
    return AICF_SUCCESS;
}

/* Deep copy of a graph (constants and subgraph attributes copied). */
static aicf_result aicf__graph_clone(const aicf_graph* src, aicf_graph** out) {
    aicf_context* ctx = src->ctx;
    aicf_graph* g;
    int i, j;
    aicf_result r = aicf_graph_create(ctx, &g);
    if (r != AICF_SUCCESS) return r;
    g->opset = src->opset;
    g->is_subgraph = src->is_subgraph;
#define AICF__CLONE_ARR(field, n, cap, type)                                                       \
    if (src->n) {                                                                                  \
        g->field = (type*)aicf__calloc(ctx, (size_t)src->n, sizeof(type));                         \
        if (!g->field) goto oom;                                                                   \
        memcpy(g->field, src->field, (size_t)src->n * sizeof(type));                               \
        g->n = g->cap = src->n;                                                                    \
    }
    AICF__CLONE_ARR(inputs, n_inputs, cap_inputs, int)
    AICF__CLONE_ARR(outputs, n_outputs, cap_outputs, int)
#undef AICF__CLONE_ARR
    g->tensors = (aicf__tensor*)aicf__calloc(ctx, (size_t)src->n_tensors + 1, sizeof(aicf__tensor));
    if (!g->tensors) goto oom;
    g->cap_tensors = src->n_tensors + 1;
    for (i = 0; i < src->n_tensors; i++) {
        const aicf__tensor* s = &src->tensors[i];
        aicf__tensor* t = &g->tensors[i];
        *t = *s;
        t->name = NULL;
        t->data = NULL;
        t->owns_data = 0;
        for (j = 0; j < AICF_MAX_RANK; j++) t->dim_param[j] = NULL;
        g->n_tensors = i + 1;
        t->name = aicf__strdup(ctx, s->name);
        if (!t->name) goto oom;
        for (j = 0; j < AICF_MAX_RANK; j++)
            if (s->dim_param[j]) {
                t->dim_param[j] = aicf__strdup(ctx, s->dim_param[j]);
                if (!t->dim_param[j]) goto oom;
            }
        if (s->data) {
            t->data = aicf__malloc(ctx, s->data_bytes);
            if (!t->data) goto oom;
            if (s->data_bytes) memcpy(t->data, s->data, s->data_bytes);
            t->owns_data = 1;
        }
    }
    if (src->name_index_cap && !aicf__index_rebuild(g, src->name_index_cap)) goto oom;
    g->nodes = (aicf__node*)aicf__calloc(ctx, (size_t)src->n_nodes + 1, sizeof(aicf__node));
    if (!g->nodes) goto oom;
    g->cap_nodes = src->n_nodes + 1;
    for (i = 0; i < src->n_nodes; i++) {
        const aicf__node* s = &src->nodes[i];
        aicf__node* n = &g->nodes[i];
        memset(n, 0, sizeof *n);
        g->n_nodes = i + 1;
        n->op = s->op;
        n->removed = s->removed;
        n->name = aicf__strdup(ctx, s->name);
        n->op_type = aicf__strdup(ctx, s->op_type);
        n->domain = aicf__strdup(ctx, s->domain);
        n->in = (int*)aicf__calloc(ctx, (size_t)s->n_in + 1, sizeof(int));
        n->out = (int*)aicf__calloc(ctx, (size_t)s->n_out + 1, sizeof(int));
        n->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)s->n_attrs + 1, sizeof(aicf__attrv));
        if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attrs) goto oom;
        n->n_in = s->n_in;
        n->n_out = s->n_out;
        if (s->n_in) memcpy(n->in, s->in, (size_t)s->n_in * sizeof(int));
        memcpy(n->out, s->out, (size_t)s->n_out * sizeof(int));
        for (j = 0; j < s->n_attrs; j++) {
            n->n_attrs = j + 1;
            if (aicf__attr_clone(ctx, &s->attrs[j], &n->attrs[j], s->attrs[j].tensor) != AICF_SUCCESS) goto oom;
        }
    }
    *out = g;
    return AICF_SUCCESS;
oom:
    aicf_graph_destroy(g);
    return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory copying the graph");
}

/* Marks node ni's outputs constant by running its CPU reference on constant inputs. */
static aicf_result aicf__fold_node(aicf_graph* g, int ni) {
    aicf__node* n = &g->nodes[ni];
    const void* in[AICF_MAX_NODE_IO];
    void* outp[AICF_MAX_NODE_IO];
    aicf_result r;
    int i;
    if (n->n_in > AICF_MAX_NODE_IO || n->n_out > AICF_MAX_NODE_IO) return AICF_ERROR_LIMIT;
    memset((void*)in, 0, sizeof in);
    memset(outp, 0, sizeof outp);
    for (i = 0; i < n->n_in; i++) in[i] = n->in[i] >= 0 ? g->tensors[n->in[i]].data : NULL;
    for (i = 0; i < n->n_out; i++) {
        aicf__tensor* t;
        int ok;
        size_t bytes;
        outp[i] = NULL;
        if (n->out[i] < 0) continue;
        t = &g->tensors[n->out[i]];
        bytes = aicf__shape_bytes(&t->shape, t->dtype, &ok);
        if (!ok)
            return aicf__err(g->ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): output '%s' is too large to fold", ni,
                             n->name, n->op_type, t->name);
        t->data = aicf__malloc(g->ctx, bytes);
        if (!t->data) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (%s): out of memory folding",
                                       ni, n->name, n->op_type);
        t->owns_data = 1;
        t->data_bytes = bytes;
        outp[i] = t->data;
    }
    r = aicf__cpu_run(g, ni, in, outp);
    if (r != AICF_SUCCESS) return r;
    for (i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0) g->tensors[n->out[i]].flags |= AICF__T_CONST;
    n->removed = 1;
    return AICF_SUCCESS;
}

static int aicf__is_const(const aicf_graph* g, int t) { return t >= 0 && (g->tensors[t].flags & AICF__T_CONST); }

/* Number of live nodes reading tensor t, plus one if it is a graph output. */
static int aicf__use_count(const aicf_graph* g, int t) {
    int i, j, c = 0;
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        if (n->removed) continue;
        for (j = 0; j < n->n_in; j++) c += n->in[j] == t;
    }
    for (i = 0; i < g->n_outputs; i++) c += g->outputs[i] == t;
    return c;
}

/* Adds a new owned float32 constant (copy of `vals`) with the shape of tensor `like`. */
static int aicf__new_const_f32(aicf_graph* g, const char* name, const aicf__shape* shape, const float* vals, size_t n) {
    int t = aicf__graph_new_tensor(g, name);
    aicf__tensor* tt;
    if (t < 0) return -1;
    tt = &g->tensors[t];
    tt->dtype = AICF_DTYPE_FLOAT32;
    tt->shape = *shape;
    tt->shape_known = 1;
    tt->flags = AICF__T_CONST;
    tt->data = aicf__malloc(g->ctx, n * sizeof(float) + 1);
    if (!tt->data) return -1;
    memcpy(tt->data, vals, n * sizeof(float));
    tt->owns_data = 1;
    tt->data_bytes = n * sizeof(float);
    return t;
}

/* Folds BatchNormalization(Conv(x, W, B)) into Conv(x, W', B'):
   W'[o] = W[o] * s[o], B'[o] = (B[o] - mean[o]) * s[o] + beta[o], s = scale / sqrt(var + eps). */
static aicf_result aicf__fold_batchnorm(aicf_graph* g, int* folded) {
    int bi;
    *folded = 0;
    for (bi = 0; bi < g->n_nodes; bi++) {
        aicf__node* bn = &g->nodes[bi];
        aicf__node* cv;
        int ci, k, cout, oc;
        int64_t per_oc;
        float eps;
        const float *W, *B = NULL, *sc, *be, *mu, *var;
        float *nw = NULL, *nb = NULL;
        aicf__shape bshape;
        char nm[96];
        int tw, tb;
        if (bn->removed || bn->op != AICF__OP_BatchNormalization || bn->n_in < 5 || bn->n_out < 1) continue;
        if (bn->n_out > 1) {
            int extra = 0;
            for (k = 1; k < bn->n_out; k++) extra |= bn->out[k] >= 0;
            if (extra) continue;
        }
        if (bn->in[0] < 0 || g->tensors[bn->in[0]].producer < 0) continue;
        ci = g->tensors[bn->in[0]].producer;
        cv = &g->nodes[ci];
        if (cv->removed || cv->op != AICF__OP_Conv || cv->n_in < 2) continue;
        if (aicf__use_count(g, bn->in[0]) != 1 || (g->tensors[bn->in[0]].flags & AICF__T_OUTPUT)) continue;
        if (!aicf__is_const(g, cv->in[1]) || (cv->n_in > 2 && cv->in[2] >= 0 && !aicf__is_const(g, cv->in[2]))) continue;
        for (k = 1; k < 5; k++)
            if (!aicf__is_const(g, bn->in[k]) || g->tensors[bn->in[k]].dtype != AICF_DTYPE_FLOAT32) break;
        if (k < 5) continue;
        if (g->tensors[cv->in[1]].dtype != AICF_DTYPE_FLOAT32) continue;
        cout = (int)g->tensors[cv->in[1]].shape.d[0];
        for (k = 1; k < 5; k++)
            if (aicf__shape_numel(&g->tensors[bn->in[k]].shape) != cout) break;
        if (k < 5) continue;
        per_oc = aicf__shape_numel(&g->tensors[cv->in[1]].shape) / (cout ? cout : 1);
        eps = aicf__attr_f(bn, "epsilon", 1e-5f);
        W = (const float*)g->tensors[cv->in[1]].data;
        if (cv->n_in > 2 && cv->in[2] >= 0) B = (const float*)g->tensors[cv->in[2]].data;
        sc = (const float*)g->tensors[bn->in[1]].data;
        be = (const float*)g->tensors[bn->in[2]].data;
        mu = (const float*)g->tensors[bn->in[3]].data;
        var = (const float*)g->tensors[bn->in[4]].data;
        nw = (float*)aicf__malloc(g->ctx, (size_t)(per_oc * cout) * sizeof(float));
        nb = (float*)aicf__malloc(g->ctx, (size_t)cout * sizeof(float));
        if (!nw || !nb) {
            aicf__free(g->ctx, nw);
            aicf__free(g->ctx, nb);
            return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
        }
        for (oc = 0; oc < cout; oc++) {
            float s = sc[oc] / sqrtf(var[oc] + eps);
            int64_t e;
            for (e = 0; e < per_oc; e++) nw[oc * per_oc + e] = W[oc * per_oc + e] * s;
            nb[oc] = ((B ? B[oc] : 0.0f) - mu[oc]) * s + be[oc];
        }
        snprintf(nm, sizeof nm, "\x01" "bnfold%d.W", bi);
        tw = aicf__new_const_f32(g, nm, &g->tensors[cv->in[1]].shape, nw, (size_t)(per_oc * cout));
        bshape.rank = 1;
        bshape.d[0] = cout;
        snprintf(nm, sizeof nm, "\x01" "bnfold%d.B", bi);
        tb = tw < 0 ? -1 : aicf__new_const_f32(g, nm, &bshape, nb, (size_t)cout);
        aicf__free(g->ctx, nw);
        aicf__free(g->ctx, nb);
        if (tw < 0 || tb < 0) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
        cv = &g->nodes[ci]; /* tensors array may have moved, nodes did not, but be explicit */
        bn = &g->nodes[bi];
        if (cv->n_in < 3) {
            int* nin = (int*)aicf__realloc(g->ctx, cv->in, (size_t)(cv->n_in + 1) * sizeof(int), 4 * sizeof(int));
            if (!nin) return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "BatchNormalization folding: out of memory");
            cv->in = nin;
            cv->n_in = 3;
        }
        cv->in[1] = tw;
        cv->in[2] = tb;
        /* the Conv now produces the BatchNormalization's output */
        g->tensors[cv->out[0]].producer = -1;
        cv->out[0] = bn->out[0];
        g->tensors[bn->out[0]].producer = ci;
        bn->removed = 1;
        (*folded)++;
    }
    return AICF_SUCCESS;
}

/* Removes nodes none of whose outputs reach a graph output. */
static void aicf__dead_nodes(aicf_graph* g) {
    unsigned char* live = (unsigned char*)aicf__calloc(g->ctx, (size_t)g->n_tensors + 1, 1);
    int i, j;
    if (!live) return; /* keep everything: correct, only slower */
    for (i = 0; i < g->n_outputs; i++) live[g->outputs[i]] = 1;
    for (i = g->n_nodes - 1; i >= 0; i--) {
        aicf__node* n = &g->nodes[i];
        int any = 0;
        if (n->removed) continue;
        for (j = 0; j < n->n_out; j++) any |= n->out[j] >= 0 && live[n->out[j]];
        if (!any) {
            n->removed = 1;
            continue;
        }
        for (j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0) live[n->in[j]] = 1;
    }
    aicf__free(g->ctx, live);
}

/* Optional trailing outputs nobody reads (Dropout's mask, BatchNormalization's running
   statistics, MaxPool's indices) are dropped, so no backend has to produce them. */
static void aicf__drop_unused_outputs(aicf_graph* g) {
    int i, j;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        if (n->removed || (n->op != AICF__OP_Dropout && n->op != AICF__OP_BatchNormalization && n->op != AICF__OP_MaxPool))
            continue;
        for (j = 1; j < n->n_out; j++)
            if (n->out[j] >= 0 && aicf__use_count(g, n->out[j]) == 0) {
                g->tensors[n->out[j]].producer = -1;
                n->out[j] = -1;
            }
    }
}

/* ---- control flow: an If whose condition is known at plan time is inlined ----
   When shape inference reaches an If node whose condition is a constant (a bound input, or
   folded from one), the chosen branch's nodes are copied into the plan's graph right after the
   If: branch-local tensors get fresh names "<If name>/<then|else>/<name>", outer references
   become the enclosing graph's tensors of that name, branch initializers new constants, and one
   Identity per If output (an alias: no copy) makes the branch's outputs the If's. Inference then
   continues over the copied nodes, so constant folding, nested Ifs and every later pass see an
   ordinary graph. Loop and Scan bodies are not inlined: AICF_ERROR_UNSUPPORTED. */

/* "<prefix>/<name>" (an internal name's \x01 mark stays in front), made unique among g's tensors
   with "#k" when unique is set; a name over AICF_MAX_NAME falls back to "<prefix>/#<index>". */
static char* aicf__inline_name(aicf_graph* g, const char* prefix, const char* name, int index, int unique) {
    size_t cap = strlen(prefix) + strlen(name) + 48;
    char* s = (char*)aicf__malloc(g->ctx, cap);
    int k;
    if (!s) return NULL;
    for (k = 0;; k++) {
        const char* mark = name[0] == '\x01' ? "\x01" : "";
        const char* base = name[0] == '\x01' ? name + 1 : name;
        if (strlen(prefix) + strlen(base) + 16 > AICF_MAX_NAME) snprintf(s, cap, "%s%.2000s/#%d", mark, prefix, index);
        else snprintf(s, cap, "%s%s/%s", mark, prefix, base);
        if (k) {
            size_t len = strlen(s);
            snprintf(s + len, cap - len, "#%d", k);
        }
        if (!unique || aicf__graph_find(g, s) < 0) return s;
    }
}

/* In subgraph s, a copy of a graph nested (through `between`, innermost last) in branch b,
   renames the outer references to b's local tensors to the names those got in the plan's
   graph g (map: b's tensor index -> g's). A name that a graph in `between` defines itself is
   that graph's, not b's, and stays. */
static aicf_result aicf__inline_rename_outer(aicf_graph* s, const aicf_graph* b, const int* map, const aicf_graph* g,
                                             const aicf_graph** between, int n_between, int ni, const char* ifname) {
    aicf_context* ctx = g->ctx;
    int i, j, k, changed = 0;
    for (i = 0; i < s->n_tensors; i++) {
        aicf__tensor* t = &s->tensors[i];
        const char* nn;
        char* dup;
        int bt;
        if (!(t->flags & AICF__T_OUTER)) continue;
        for (k = 0; k < n_between; k++) {
            int x = aicf__graph_find(between[k], t->name);
            if (x >= 0 && !(between[k]->tensors[x].flags & AICF__T_OUTER)) break;
        }
        if (k < n_between) continue;
        bt = aicf__graph_find(b, t->name);
        if (bt < 0 || (b->tensors[bt].flags & AICF__T_OUTER) || map[bt] < 0) continue;
        nn = g->tensors[map[bt]].name;
        if (strcmp(nn, t->name) == 0) continue;
        if (aicf__graph_find(s, nn) >= 0)
            return aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                             "node %d '%s' (If): a nested subgraph already has a tensor named '%s', the name its outer "
                             "reference '%s' gets when the branch is inlined", ni, ifname, nn, t->name);
        dup = aicf__strdup(ctx, nn);
        if (!dup) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining", ni, ifname);
        aicf__free(ctx, t->name);
        t->name = dup;
        changed = 1;
    }
    if (changed && !aicf__index_rebuild(s, s->name_index_cap))
        return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining", ni, ifname);
    for (i = 0; i < s->n_nodes; i++)
        for (j = 0; j < s->nodes[i].n_attrs; j++) {
            aicf__attrv* a = &s->nodes[i].attrs[j];
            aicf_result r;
            if (a->type != AICF_ATTR_GRAPH || !a->g) continue;
            if (n_between + 1 > AICF_MAX_SUBGRAPH_DEPTH + 1)
                return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (If): subgraphs nested more than "
                                 "AICF_MAX_SUBGRAPH_DEPTH (%d) deep", ni, ifname, AICF_MAX_SUBGRAPH_DEPTH);
            between[n_between] = s;
            r = aicf__inline_rename_outer(a->g, b, map, g, between, n_between + 1, ni, ifname);
            if (r != AICF_SUCCESS) return r;
        }
    return AICF_SUCCESS;
}

/* Replaces If node ni (its condition a constant) by the nodes of the branch it selects. */
static aicf_result aicf__inline_if(aicf_graph* g, int ni) {
    aicf_context* ctx = g->ctx;
    const aicf__node* n = &g->nodes[ni];
    const aicf__tensor* ct;
    const aicf__attrv* br;
    const aicf_graph* b;
    const char* which;
    const char* ifname = n->name;
    char* prefix = NULL;
    char shp[160];
    int take, i, j, k = 0, n_new, n_id = 0, bt;
    int* map = NULL;
    aicf__node* nn = NULL;
    const aicf_graph* between[AICF_MAX_SUBGRAPH_DEPTH + 2];
    aicf_result r = AICF_SUCCESS;
    if (n->n_in != 1 || n->in[0] < 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): takes one input, the condition (has %d)", ni,
                         ifname, n->n_in);
    ct = &g->tensors[n->in[0]];
    if (!(ct->flags & AICF__T_CONST))
        return aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                         "node %d '%s' (If): condition '%s' is not known at plan time (bind the inputs it depends on "
                         "with aicf_graph_bind_input_value)", ni, ifname, ct->name);
    if (ct->dtype != AICF_DTYPE_BOOL)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): condition '%s' has data type %s, not bool", ni,
                         ifname, ct->name, aicf_dtype_name(ct->dtype));
    if (aicf__shape_numel(&ct->shape) != 1 || !ct->data || ct->data_bytes < 1)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): condition '%s' has shape %s, not one element",
                         ni, ifname, ct->name, aicf__shape_str(&ct->shape, shp, sizeof shp));
    take = ((const unsigned char*)ct->data)[0] != 0;
    which = take ? "then_branch" : "else_branch";
    br = aicf__attr(n, which);
    if (!br || br->type != AICF_ATTR_GRAPH || !br->g)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): the condition is %s but attribute '%s' (a "
                         "GRAPH) is missing", ni, ifname, take ? "true" : "false", which);
    b = br->g;
    if (b->n_inputs)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): %s declares %d inputs; If branches take none",
                         ni, ifname, which, b->n_inputs);
    if (b->n_outputs != n->n_out)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "node %d '%s' (If): %s has %d outputs, the node %d", ni, ifname,
                         which, b->n_outputs, n->n_out);
    for (j = 0; j < n->n_out; j++) n_id += n->out[j] >= 0;
    n_new = b->n_nodes + n_id;
    if (n_new > AICF_MAX_NODES - g->n_nodes)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (If): inlining %s makes more than AICF_MAX_NODES (%d) "
                         "nodes", ni, ifname, which, AICF_MAX_NODES);
    {
        char pre[64];
        const char* base = ifname;
        size_t cap;
        if (!base[0]) {
            snprintf(pre, sizeof pre, "If@%d", ni);
            base = pre;
        }
        cap = strlen(base) + 16;
        prefix = (char*)aicf__malloc(ctx, cap);
        map = (int*)aicf__malloc(ctx, ((size_t)b->n_tensors + 1) * sizeof(int));
        nn = (aicf__node*)aicf__calloc(ctx, (size_t)n_new + 1, sizeof(aicf__node));
        if (!prefix || !map || !nn) goto oom;
        snprintf(prefix, cap, "%s/%s", base, take ? "then" : "else");
    }
    /* tensors: outer references resolve by name, the rest are copied under fresh names */
    for (bt = 0; bt < b->n_tensors; bt++) {
        const aicf__tensor* s = &b->tensors[bt];
        aicf__tensor* tt;
        char* nm;
        int t;
        map[bt] = -1;
        if (s->flags & AICF__T_OUTER) {
            t = aicf__graph_find(g, s->name);
            if (t < 0) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                              "node %d '%s' (If): %s reads '%s', which no enclosing graph defines", ni, ifname, which,
                              s->name);
                goto fail;
            }
            if (g->tensors[t].producer > ni) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                              "node %d '%s' (If): %s reads '%s', which node %d computes after the If", ni, ifname, which,
                              s->name, g->tensors[t].producer);
                goto fail;
            }
            map[bt] = t;
            continue;
        }
        nm = aicf__inline_name(g, prefix, s->name, bt, 1);
        if (!nm) goto oom;
        t = aicf__graph_new_tensor(g, nm);
        aicf__free(ctx, nm);
        if (t < 0) {
            r = aicf__new_tensor_err(t);
            goto fail;
        }
        tt = &g->tensors[t];
        if (s->flags & AICF__T_CONST) {
            tt->dtype = s->dtype;
            tt->shape = s->shape;
            tt->shape_known = 1;
            tt->flags = AICF__T_CONST;
            tt->data = aicf__malloc(ctx, s->data_bytes ? s->data_bytes : 1);
            if (!tt->data) goto oom;
            if (s->data_bytes) memcpy(tt->data, s->data, s->data_bytes);
            tt->owns_data = 1;
            tt->data_bytes = s->data_bytes;
        }
        map[bt] = t;
    }
    /* the branch's nodes, then one Identity per used output */
    for (i = 0; i < b->n_nodes; i++) {
        const aicf__node* s = &b->nodes[i];
        aicf__node* d = &nn[k++]; /* counted from here on: freed on failure */
        d->op = s->op;
        d->name = aicf__inline_name(g, prefix, s->name, i, 0);
        d->op_type = aicf__strdup(ctx, s->op_type);
        d->domain = aicf__strdup(ctx, s->domain);
        d->in = (int*)aicf__calloc(ctx, (size_t)s->n_in + 1, sizeof(int));
        d->out = (int*)aicf__calloc(ctx, (size_t)s->n_out + 1, sizeof(int));
        d->attrs = (aicf__attrv*)aicf__calloc(ctx, (size_t)s->n_attrs + 1, sizeof(aicf__attrv));
        if (!d->name || !d->op_type || !d->domain || !d->in || !d->out || !d->attrs) goto oom;
        d->n_in = s->n_in;
        d->n_out = s->n_out;
        for (j = 0; j < s->n_in; j++) d->in[j] = s->in[j] >= 0 ? map[s->in[j]] : -1;
        for (j = 0; j < s->n_out; j++) d->out[j] = s->out[j] >= 0 ? map[s->out[j]] : -1;
        for (j = 0; j < s->n_attrs; j++) {
            const aicf__attrv* sa = &s->attrs[j];
            d->n_attrs = j + 1;
            if (aicf__attr_clone(ctx, sa, &d->attrs[j], sa->tensor >= 0 ? map[sa->tensor] : -1) != AICF_SUCCESS)
                goto oom;
            if (d->attrs[j].g) {
                r = aicf__inline_rename_outer(d->attrs[j].g, b, map, g, between, 0, ni, ifname);
                if (r != AICF_SUCCESS) goto fail;
            }
        }
    }
    for (j = 0; j < n->n_out; j++) {
        aicf__node* d;
        char tag[32];
        if (n->out[j] < 0) continue;
        d = &nn[k++];
        snprintf(tag, sizeof tag, "output:%d", j);
        d->op = AICF__OP_Identity;
        d->name = aicf__inline_name(g, prefix, tag, j, 0);
        d->op_type = aicf__strdup(ctx, "Identity");
        d->domain = aicf__strdup(ctx, "");
        d->in = (int*)aicf__calloc(ctx, 2, sizeof(int));
        d->out = (int*)aicf__calloc(ctx, 2, sizeof(int));
        d->attrs = (aicf__attrv*)aicf__calloc(ctx, 1, sizeof(aicf__attrv));
        if (!d->name || !d->op_type || !d->domain || !d->in || !d->out || !d->attrs) goto oom;
        d->n_in = d->n_out = 1;
        d->in[0] = map[b->outputs[j]];
        d->out[0] = n->out[j];
    }
    /* splice the new nodes in after the If; later nodes move up by n_new */
    if (!aicf__grow(ctx, (void**)&g->nodes, &g->cap_nodes, g->n_nodes + n_new, sizeof(aicf__node))) goto oom;
    memmove(&g->nodes[ni + 1 + n_new], &g->nodes[ni + 1], (size_t)(g->n_nodes - ni - 1) * sizeof(aicf__node));
    memcpy(&g->nodes[ni + 1], nn, (size_t)n_new * sizeof(aicf__node));
    g->n_nodes += n_new;
    for (i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].producer > ni) g->tensors[i].producer += n_new;
    for (i = ni + 1; i <= ni + n_new; i++)
        for (j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0) g->tensors[g->nodes[i].out[j]].producer = i;
    g->nodes[ni].removed = 1;
    aicf__free(ctx, nn);
    aicf__free(ctx, map);
    aicf__free(ctx, prefix);
    return AICF_SUCCESS;
oom:
    r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "node %d '%s' (If): out of memory inlining %s", ni, ifname, which);
fail:
    if (nn)
        for (i = 0; i < k; i++) aicf__node_free(ctx, &nn[i]);
    aicf__free(ctx, nn);
    aicf__free(ctx, map);
    aicf__free(ctx, prefix);
    return r;
}

static aicf_result aicf__plan_push_step(aicf_plan* p, int* cap, const aicf__step* s) {
    if (!aicf__grow(p->ctx, (void**)&p->steps, cap, p->n_steps + 1, sizeof(aicf__step)))
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    p->steps[p->n_steps++] = *s;
    return AICF_SUCCESS;
}

/* Whether tensor t is an API boundary tensor of the plan (input or output, either side of a cast). */
static int aicf__is_boundary(const aicf_plan* p, int t) {
    int i;
    for (i = 0; i < p->n_in; i++)
        if (p->in_tensor[i] == t || (p->in_boundary && p->in_boundary[i] == t)) return 1;
    for (i = 0; i < p->n_out; i++)
        if (p->out_tensor[i] == t || (p->out_boundary && p->out_boundary[i] == t)) return 1;
    return 0;
}

/* Storage root of a tensor (follows aliases). */
static int aicf__root(const aicf_plan* p, int t) {
    while (p->loc[t].alias_of >= 0) t = p->loc[t].alias_of;
    return t;
}

typedef struct aicf__interval {
    int t;          /* tensor, or n_tensors + s for the scratch of step s */
    int first, last;
    size_t bytes;
    size_t offset;  /* assigned */
    size_t breadth; /* the largest total alive at one step of [first, last] (greedy by breadth) */
} aicf__interval;

/* The placement orders tried (aicf__plan_memory keeps the smallest arena; ties: the lower number). */
enum {
    AICF__MEM_BY_SIZE = 0,
    AICF__MEM_BY_BREADTH = 1,
    AICF__MEM_BY_BIRTH = 2,
    AICF__MEM_BY_DURATION = 3,
    AICF__MEM_BY_AREA = 4,
    AICF__MEM_ORDERS = 5
};
#define AICF__MEM_SEARCH_WORK 4.0e7 /* interval pairs the local search may compare (about 40 ms) */
static const char* const aicf__mem_order_names[AICF__MEM_ORDERS + 1] = {
    "greedy by size", "greedy by breadth", "first fit in birth order", "longest-lived first", "largest size x lifetime first",
    "local search from the best order"};

static int aicf__interval_tie(const aicf__interval* x, const aicf__interval* y) {
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->t - y->t;
}
/* size descending (Pisarchyk & Lee's greedy by size) */
static int aicf__interval_cmp_size(const void* a, const void* b) {
    return aicf__interval_tie((const aicf__interval*)a, (const aicf__interval*)b);
}
/* the heaviest step the tensor is alive at first, then size (greedy by breadth, same paper) */
static int aicf__interval_cmp_breadth(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
    return aicf__interval_tie(x, y);
}
/* in the order the tensors come alive, larger first among those born at one step */
static int aicf__interval_cmp_birth(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return aicf__interval_tie(x, y);
}

/* longest lifetime first (the buffers that constrain every step they span), then size */
static int aicf__interval_cmp_duration(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    if (x->last - x->first != y->last - y->first) return x->last - x->first > y->last - y->first ? -1 : 1;
    return aicf__interval_tie(x, y);
}
/* bytes x steps alive, largest first */
static int aicf__interval_cmp_area(const void* a, const void* b) {
    const aicf__interval* x = (const aicf__interval*)a;
    const aicf__interval* y = (const aicf__interval*)b;
    double ax = (double)x->bytes * (double)(x->last - x->first + 1), ay = (double)y->bytes * (double)(y->last - y->first + 1);
    if (ax != ay) return ax > ay ? -1 : 1;
    return aicf__interval_tie(x, y);
}

/* Places iv[0..n) in that order, each where it overlaps (in time) no placed interval: at the
   lowest such offset (best_fit 0), or in the smallest gap between placed intervals that holds it,
   else at the top (best_fit 1). Returns the arena size. placed[] is scratch of n pointers. */
static size_t aicf__place(aicf__interval* iv, int n, aicf__interval** placed, int best_fit) {
    size_t arena = 0;
    int i, j;
    for (i = 0; i < n; i++) {
        /* collect placed intervals overlapping in time, sorted by offset (insertion) */
        int np = 0, k;
        size_t off = 0, best = (size_t)-1, best_gap = (size_t)-1;
        for (j = 0; j < i; j++) {
            aicf__interval* q = &iv[j];
            if (q->last < iv[i].first || q->first > iv[i].last) continue;
            k = np++;
            while (k > 0 && placed[k - 1]->offset > q->offset) {
                placed[k] = placed[k - 1];
                k--;
            }
            placed[k] = q;
        }
        for (k = 0; k < np; k++) {
            size_t qo = placed[k]->offset, qe = qo + placed[k]->bytes;
            if (qo >= off + iv[i].bytes) { /* fits in the gap [off, qo) */
                if (!best_fit) break;
                if (qo - off < best_gap) {
                    best_gap = qo - off;
                    best = off;
                }
            }
            if (qe > off) off = qe;
        }
        if (best_fit && best != (size_t)-1) off = best;
        iv[i].offset = off;
        if (off + iv[i].bytes > arena) arena = off + iv[i].bytes;
    }
    return arena;
}

/* Offset assignment over lifetimes; fills loc[].offset for roots and steps[].scratch_offset for
   the steps' scratch (an interval [s, s]). The greedy placements of Pisarchyk & Lee ("Efficient
   Memory Management for Deep Neural Net Inference", 2020) by size and by breadth, a first fit in
   birth order, longest-lived first and largest size x lifetime first, each at the lowest free
   offset and into the smallest gap that holds it (best fit), are tried until one reaches the
   lower bound; the smallest arena wins (ties: the earlier; deterministic: the same model and
   policy give the same offsets), and the plan records which it was. */
static aicf_result aicf__plan_memory(aicf_plan* p) {
    aicf_graph* g = p->g;
    int nt = g->n_tensors, i, j, k, s, nroots = 0, order, fit, best_order = 0;
    size_t niv = (size_t)nt + (size_t)p->n_steps + 1;
    int* first = (int*)aicf__malloc(p->ctx, (size_t)nt * sizeof(int));
    int* last = (int*)aicf__malloc(p->ctx, (size_t)nt * sizeof(int));
    aicf__interval* iv = (aicf__interval*)aicf__calloc(p->ctx, niv, sizeof(aicf__interval));
    aicf__interval* best = (aicf__interval*)aicf__calloc(p->ctx, niv, sizeof(aicf__interval));
    aicf__interval** placed = (aicf__interval**)aicf__calloc(p->ctx, niv, sizeof(aicf__interval*));
    size_t* live = (size_t*)aicf__calloc(p->ctx, (size_t)p->n_steps + 2, sizeof(size_t));
    size_t arena = (size_t)-1, lower = 0;
    if (!first || !last || !iv || !best || !placed || !live) {
        aicf__free(p->ctx, first);
        aicf__free(p->ctx, last);
        aicf__free(p->ctx, iv);
        aicf__free(p->ctx, best);
        aicf__free(p->ctx, placed);
        aicf__free(p->ctx, live);
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory planning memory");
    }
    for (i = 0; i < nt; i++) {
        first[i] = INT32_MAX;
        last[i] = -2;
    }
    /* lifetimes of storage roots: inputs live from before step 0, outputs to after the last */
    /* inputs stay intact for the whole replay: an exec may be run again without setting them */
    for (i = 0; i < p->n_in; i++) {
        int r = aicf__root(p, p->in_boundary[i]);
        first[r] = -1;
        last[r] = p->n_steps;
    }
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j], r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
        for (j = 0; j < st->n_out; j++) {
            int t = st->out[j], r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
        for (j = 0; j < st->n_epi; j++) { /* epilogue operands are read by this step */
            int t = st->epi[j].operand, r;
            if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) continue;
            r = aicf__root(p, t);
            if (first[r] > s) first[r] = s;
            if (last[r] < s) last[r] = s;
        }
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i], r;
        if (p->loc[t].space != AICF__SPACE_ARENA) continue;
        r = aicf__root(p, t);
        if (first[r] == INT32_MAX) first[r] = -1;
        last[r] = p->n_steps;
        /* CUDA: the output Cast at the API boundary may run inside the kernel of the step that
           produces its input (a persistent kernel, aicf__cuda_persist): the float32 output then
           lives from that step on, apart from what the step reads */
        if (p->target == AICF_BACKEND_CUDA && p->out_tensor[i] != t && p->loc[p->out_tensor[i]].space == AICF__SPACE_ARENA) {
            int src = aicf__root(p, p->out_tensor[i]);
            if (first[src] >= 0 && first[src] < first[r]) first[r] = first[src];
        }
    }
    for (i = 0; i < nt; i++) {
        if (p->loc[i].space != AICF__SPACE_ARENA || p->loc[i].alias_of >= 0 || last[i] < -1) continue;
        iv[nroots].t = i;
        iv[nroots].first = first[i];
        iv[nroots].last = last[i];
        iv[nroots].bytes = aicf__align_up(p->loc[i].bytes);
        nroots++;
    }
    for (s = 0; s < p->n_steps; s++) { /* backend scratch: alive during its step only */
        if (!p->steps[s].scratch_bytes) continue;
        iv[nroots].t = nt + s;
        iv[nroots].first = iv[nroots].last = s;
        iv[nroots].bytes = aicf__align_up(p->steps[s].scratch_bytes);
        nroots++;
    }
    /* live[s + 1]: the total alive at step s (s = -1 .. n_steps); the lower bound is its maximum */
    for (i = 0; i < nroots; i++)
        for (s = iv[i].first; s <= iv[i].last; s++) live[s + 1] += iv[i].bytes;
    for (s = -1; s <= p->n_steps; s++)
        if (live[s + 1] > lower) lower = live[s + 1];
    for (i = 0; i < nroots; i++) {
        iv[i].breadth = 0;
        for (s = iv[i].first; s <= iv[i].last; s++)
            if (live[s + 1] > iv[i].breadth) iv[i].breadth = live[s + 1];
    }
    for (order = 0; order < AICF__MEM_ORDERS; order++) {
        size_t a;
        static int (*const cmp[AICF__MEM_ORDERS])(const void*, const void*) = {
            aicf__interval_cmp_size, aicf__interval_cmp_breadth, aicf__interval_cmp_birth, aicf__interval_cmp_duration,
            aicf__interval_cmp_area};
        qsort(iv, (size_t)nroots, sizeof *iv, cmp[order]);
        for (fit = 0; fit < 2 && arena > lower; fit++) {
            a = aicf__place(iv, nroots, placed, fit);
            if ((order == 0 && fit == 0) || a < arena) {
                arena = a;
                best_order = 2 * order + fit;
                memcpy(best, iv, sizeof(aicf__interval) * (size_t)nroots);
            }
        }
        if (arena <= lower) break; /* optimal */
    }
    /* Still above the bound: a local search from the best placement. Each interval in turn is
       moved to the front of the order and everything placed again; a smaller arena is kept and
       the search restarts from it. Bounded by AICF__MEM_SEARCH_WORK interval
       pairs compared in total (tens of milliseconds), deterministic. */
    if (arena > lower && nroots > 1) {
        double work = 0.0, per = (double)nroots * (double)nroots;
        int fit_best = best_order % 2, improved = 1;
        while (improved && work + per <= AICF__MEM_SEARCH_WORK) {
            improved = 0;
            for (k = 0; k < nroots && work + per <= AICF__MEM_SEARCH_WORK; k++) {
                size_t a;
                aicf__interval moved;
                if (k == 0) continue;
                memcpy(iv, best, sizeof(aicf__interval) * (size_t)nroots);
                moved = iv[k];
                memmove(iv + 1, iv, sizeof(aicf__interval) * (size_t)k);
                iv[0] = moved;
                a = aicf__place(iv, nroots, placed, fit_best);
                work += per;
                if (a < arena) {
                    arena = a;
                    memcpy(best, iv, sizeof(aicf__interval) * (size_t)nroots);
                    best_order = 2 * AICF__MEM_ORDERS + fit_best; /* searched */
                    improved = 1;
                    break;
                }
            }
            if (arena <= lower) break;
        }
    }
    for (i = 0; i < nroots; i++) {
        if (best[i].t < nt) p->loc[best[i].t].offset = best[i].offset;
        else p->steps[best[i].t - nt].scratch_offset = best[i].offset;
    }
    p->mem_order = best_order;
    /* aliases take their root's offset, plus the view offsets along the way */
    for (i = 0; i < nt; i++)
        if (p->loc[i].space == AICF__SPACE_ARENA && p->loc[i].alias_of >= 0) {
            size_t add = 0;
            int t = i;
            while (p->loc[t].alias_of >= 0) {
                add += p->loc[t].alias_add;
                t = p->loc[t].alias_of;
            }
            p->loc[i].offset = p->loc[t].offset + add;
        }
    p->arena_bytes = arena;
    p->arena_lower_bound = lower;
    aicf__free(p->ctx, first);
    aicf__free(p->ctx, last);
    aicf__free(p->ctx, iv);
    aicf__free(p->ctx, best);
    aicf__free(p->ctx, placed);
    aicf__free(p->ctx, live);
    return AICF_SUCCESS;
}

static int aicf__is_float(aicf_dtype dt) { return dt == AICF_DTYPE_FLOAT32; }

/* Adds a boundary tensor (float32, same shape) for tensor t under a reduced-precision plan. */
static int aicf__boundary_tensor(aicf_plan* p, int t, const char* tag) {
    char nm[AICF_MAX_NAME + 16];
    int b;
    aicf__tensor* bt;
    snprintf(nm, sizeof nm, "\x01%s:%s", tag, p->g->tensors[t].name);
    b = aicf__graph_new_tensor(p->g, nm);
    if (b < 0) return -1;
    bt = &p->g->tensors[b];
    bt->dtype = p->g->tensors[t].dtype;
    bt->shape = p->g->tensors[t].shape;
    bt->shape_known = 1;
    return b;
}

void aicf_plan_destroy(aicf_plan* p) {
    int i;
    if (!p) return;
    if (p->target == AICF_BACKEND_CUDA) aicf__cuda_plan_free(p);
    for (i = 0; i < p->n_steps; i++) aicf__free(p->ctx, p->steps[i].backend);
    aicf__free(p->ctx, p->steps);
    aicf__free(p->ctx, p->loc);
    aicf__free(p->ctx, p->in_tensor);
    aicf__free(p->ctx, p->out_tensor);
    aicf__free(p->ctx, p->in_boundary);
    aicf__free(p->ctx, p->out_boundary);
    if (p->g) aicf_graph_destroy(p->g);
    aicf__free(p->ctx, p);
}

static const char* aicf__precision_name(aicf_precision pr) {
    switch (pr) {
    case AICF_PRECISION_TF32: return "tf32";
    case AICF_PRECISION_FP16: return "fp16";
    default: return "fp32";
    }
}

/* ---- fusion: elementwise epilogues ----
   aicf__fuse_chain extends step st (main node st->node, not yet absorbed) along its output 0:
   while that tensor is read by exactly one live node, is not a graph output, and that node is
   an epilogue op (aicf__op_epilogue_kind) whose output has the same shape, whose other input
   (binary ops) is produced before the main node, the consumer is absorbed: recorded in
   st->epi, marked in absorbed[], and st->out[0] becomes its output. Absorbed nodes keep their
   place in the graph (explain and the plan file name them) but run inside the main step. */
typedef struct aicf__fuse_info {
    int* uses;      /* per tensor: reads by live nodes (+1 for a graph output) */
    int* reader;    /* per tensor: the last live node reading it */
    int* producer;  /* per tensor: the live node writing it, -1 if none */
    int* absorbed;  /* per node: the main node that absorbed it, -1 */
} aicf__fuse_info;

static void aicf__fuse_info_free(aicf_context* ctx, aicf__fuse_info* fi) {
    aicf__free(ctx, fi->uses);
    aicf__free(ctx, fi->reader);
    aicf__free(ctx, fi->producer);
    aicf__free(ctx, fi->absorbed);
}

static aicf_result aicf__fuse_info_make(aicf_graph* g, aicf__fuse_info* fi) {
    int i, j, nt = g->n_tensors;
    memset(fi, 0, sizeof *fi);
    fi->uses = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->reader = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->producer = (int*)aicf__calloc(g->ctx, (size_t)nt + 1, sizeof(int));
    fi->absorbed = (int*)aicf__calloc(g->ctx, (size_t)g->n_nodes + 1, sizeof(int));
    if (!fi->uses || !fi->reader || !fi->producer || !fi->absorbed) {
        aicf__fuse_info_free(g->ctx, fi);
        return aicf__err(g->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory (fusion)");
    }
    for (i = 0; i < nt; i++) fi->producer[i] = fi->reader[i] = -1;
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        fi->absorbed[i] = -1;
        if (n->removed) continue;
        for (j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0) {
                fi->uses[n->in[j]]++;
                fi->reader[n->in[j]] = i;
            }
        for (j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0) fi->producer[n->out[j]] = i;
    }
    for (i = 0; i < g->n_outputs; i++) fi->uses[g->outputs[i]] += 1 << 20; /* never absorbed */
    return AICF_SUCCESS;
}

static int aicf__same_shape(const aicf__shape* a, const aicf__shape* b) {
    return a->rank == b->rank && memcmp(a->d, b->d, sizeof(int64_t) * (size_t)a->rank) == 0;
}

static void aicf__fuse_chain(aicf_graph* g, aicf__fuse_info* fi, aicf__step* st) {
    const aicf__node* m = &g->nodes[st->node];
    int i, cur;
    if (aicf__op_is_alias(m->op) || m->n_out < 1 || st->out[0] < 0) return;
    for (i = 1; i < st->n_out; i++)
        if (st->out[i] >= 0) return; /* one result only (Split, TopK... keep their outputs) */
    cur = st->out[0];
    if (g->tensors[cur].dtype != AICF_DTYPE_FLOAT32 || aicf__shape_numel(&g->tensors[cur].shape) <= 0) return;
    while (st->n_epi < AICF__EPI_MAX) {
        int ci = fi->reader[cur], kind, operand = -1, left = 0;
        const aicf__node* c;
        float alpha, beta;
        aicf__epi* e;
        if (fi->uses[cur] != 1 || ci < 0 || ci <= st->node) return;
        c = &g->nodes[ci];
        kind = aicf__op_epilogue_kind(g, ci, &alpha, &beta);
        if (kind == 0 || c->out[0] < 0 || !aicf__same_shape(&g->tensors[c->out[0]].shape, &g->tensors[cur].shape)) return;
        if (kind == 1) {
            if (c->in[0] != cur) return;
        } else {
            if (c->in[0] == cur && c->in[1] != cur) {
                operand = c->in[1];
            } else if (c->in[1] == cur && c->in[0] != cur && c->op != AICF__OP_PRelu) {
                operand = c->in[0];
                left = 1;
            } else {
                return;
            }
            /* the operand must exist when the main node runs */
            if (fi->producer[operand] >= st->node) return;
            if (!g->tensors[operand].shape_known || g->tensors[operand].shape.rank > g->tensors[cur].shape.rank) return;
        }
        e = &st->epi[st->n_epi++];
        e->node = ci;
        e->op = c->op;
        e->operand = operand;
        e->operand_left = left;
        e->alpha = alpha;
        e->beta = beta;
        fi->absorbed[ci] = st->node;
        cur = c->out[0];
        st->out[0] = cur;
    }
}

aicf_result aicf_plan_create(aicf_graph* graph, const aicf_plan_desc* desc, aicf_plan** out) {
    return aicf__plan_create_ex(graph, desc, NULL, out);
}

aicf_result aicf__plan_create_ex(aicf_graph* graph, const aicf_plan_desc* desc, aicf__saved_algos* saved,
                                 aicf_plan** out) {
    aicf_context* ctx;
    aicf_plan_desc d;
    aicf_plan* p;
    aicf_graph* g;
    aicf_result r;
    int i, j, stepcap = 0, folded;
    int fp16;
    aicf__fuse_info fuse;
    char fallback_reason[256];
    if (!graph || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    ctx = graph->ctx;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.policy.precision == AICF_PRECISION_DEFAULT) d.policy.precision = AICF_PRECISION_FP32;
    if ((int)d.policy.precision < 0 || d.policy.precision > AICF_PRECISION_FP16)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.precision %d is not valid",
                         (int)d.policy.precision);
    if ((int)d.policy.conv_algo < 0 || d.policy.conv_algo > AICF_CONV_IMPLICIT_GEMM_TC)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.conv_algo %d is not valid",
                         (int)d.policy.conv_algo);
    if ((int)d.policy.matmul_algo < 0 || d.policy.matmul_algo > AICF_MATMUL_GENERATED)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: policy.matmul_algo %d is not valid",
                         (int)d.policy.matmul_algo);
    if ((int)d.backend < 0 || d.backend > AICF_BACKEND_CUDA)
        return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_create: backend %d is not valid", (int)d.backend);
    fallback_reason[0] = 0;
    /* every input needs a known shape, within the size limit */
    for (i = 0; i < graph->n_inputs; i++) {
        const aicf__tensor* t = &graph->tensors[graph->inputs[i]];
        int ok = 1;
        for (j = 0; j < t->shape.rank; j++)
            if (t->shape.d[j] < 0)
                return aicf__err(ctx, AICF_ERROR_SHAPE,
                                 "aicf_plan_create: input '%s' dimension %d '%s' is not bound (aicf_graph_bind_dim)",
                                 t->name, j, t->dim_param[j] ? t->dim_param[j] : "?");
        aicf__shape_bytes(&t->shape, t->dtype, &ok);
        if (!ok)
            return aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_plan_create: input '%s': size exceeds AICF_MAX_TENSOR_BYTES",
                             t->name);
    }
    if (graph->n_outputs == 0)
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "aicf_plan_create: the graph has no outputs");
    for (i = 0; i < graph->n_tensors; i++)
        if (graph->tensors[i].flags & AICF__T_OUTER)
            return aicf__err(ctx, AICF_ERROR_INVALID_MODEL,
                             "aicf_plan_create: tensor '%s' is an outer reference (a subgraph's), but this graph has no "
                             "enclosing graph", graph->tensors[i].name);
    /* backend choice */
    if (d.backend == AICF_BACKEND_DEFAULT || d.backend == AICF_BACKEND_CUDA) {
        r = (ctx->flags & AICF_CONTEXT_NO_CUDA)
                ? aicf__err(ctx, AICF_ERROR_NO_DEVICE, "CUDA disabled by AICF_CONTEXT_NO_CUDA")
                : aicf__cuda_init(ctx);
        if (r != AICF_SUCCESS) {
            if (d.backend == AICF_BACKEND_CUDA || !d.policy.allow_cpu_fallback) {
                char msg[AICF__ERR_CAP];
                snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
                return aicf__err(ctx, r, "aicf_plan_create: CUDA backend unavailable: %s%s", msg,
                                 d.backend == AICF_BACKEND_DEFAULT ? " (set policy.allow_cpu_fallback to use the CPU reference)" : "");
            }
            snprintf(fallback_reason, sizeof fallback_reason, "CPU fallback: %.200s", AICF__ERRBUF(ctx));
            d.backend = AICF_BACKEND_CPU;
        } else {
            d.backend = AICF_BACKEND_CUDA;
        }
    }
    p = (aicf_plan*)aicf__calloc(ctx, 1, sizeof *p);
    if (!p) return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    p->ctx = ctx;
    p->target = d.backend;
    p->policy = d.policy;
    p->requested = desc ? desc->backend : AICF_BACKEND_DEFAULT; /* plan files (>>plan_io) */
    p->model_fingerprint = aicf__graph_fingerprint(graph);
    p->saved_algos = saved;
    r = aicf__graph_clone(graph, &p->g);
    if (r != AICF_SUCCESS) goto fail;
    g = p->g;
    aicf__drop_unused_outputs(g);
    /* shape inference + constant folding; an If with a constant condition is replaced by its
       branch's nodes, which the loop reaches next */
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        int all_const = 1;
        if (n->removed) continue;
        if (n->op == AICF__OP_If) {
            r = aicf__inline_if(g, i);
            if (r != AICF_SUCCESS) goto fail;
            aicf__drop_unused_outputs(g);
            continue;
        }
        if (n->op == AICF__OP_Loop || n->op == AICF__OP_Scan) {
            r = aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                          "node %d '%s' (%s): %s is not supported: a plan has no loops (only an If whose condition is "
                          "known at plan time is resolved, by inlining its branch)", i, n->name, n->op_type, n->op_type);
            goto fail;
        }
        for (j = 0; j < n->n_in; j++) {
            int t = n->in[j];
            if (t < 0) continue;
            if (!g->tensors[t].shape_known) {
                r = aicf__err(ctx, AICF_ERROR_SHAPE, "node %d '%s' (%s): input %d '%s' has no known shape", i, n->name,
                              n->op_type, j, g->tensors[t].name);
                goto fail;
            }
            if (!(g->tensors[t].flags & AICF__T_CONST)) all_const = 0;
        }
        r = aicf__op_infer(g, i);
        if (r != AICF_SUCCESS) goto fail;
        if (all_const || n->op == AICF__OP_Shape || n->op == AICF__OP_Size) {
            r = aicf__fold_node(g, i);
            if (r != AICF_SUCCESS) goto fail;
        }
    }
    r = aicf__fold_batchnorm(g, &folded);
    if (r != AICF_SUCCESS) goto fail;
    aicf__dead_nodes(g);
    /* inputs / outputs */
    p->n_in = g->n_inputs;
    p->n_out = g->n_outputs;
    p->in_tensor = (int*)aicf__calloc(ctx, (size_t)p->n_in + 1, sizeof(int));
    p->in_boundary = (int*)aicf__calloc(ctx, (size_t)p->n_in + 1, sizeof(int));
    p->out_tensor = (int*)aicf__calloc(ctx, (size_t)p->n_out + 1, sizeof(int));
    p->out_boundary = (int*)aicf__calloc(ctx, (size_t)p->n_out + 1, sizeof(int));
    if (!p->in_tensor || !p->in_boundary || !p->out_tensor || !p->out_boundary) goto oom;
    fp16 = p->target == AICF_BACKEND_CUDA && p->policy.precision == AICF_PRECISION_FP16;
    {
        /* boundary tensors first (they are new tensors), then the loc array */
        for (i = 0; i < p->n_in; i++) {
            int t = g->inputs[i];
            p->in_tensor[i] = t;
            p->in_boundary[i] = t;
            if (fp16 && aicf__is_float(g->tensors[t].dtype)) {
                int b = aicf__boundary_tensor(p, t, "in");
                if (b < 0) goto oom;
                p->in_boundary[i] = b;
            }
        }
        for (i = 0; i < p->n_out; i++) {
            int t = g->outputs[i];
            p->out_tensor[i] = t;
            p->out_boundary[i] = t;
            if (fp16 && aicf__is_float(g->tensors[t].dtype) && !aicf__is_const(g, t)) {
                int b = aicf__boundary_tensor(p, t, "out");
                if (b < 0) goto oom;
                p->out_boundary[i] = b;
            }
        }
    }
    /* steps */
    for (i = 0; i < p->n_in; i++)
        if (p->in_boundary[i] != p->in_tensor[i]) {
            aicf__step st;
            memset(&st, 0, sizeof st);
            st.kind = AICF__STEP_CAST;
            st.node = -1;
            st.n_in = st.n_out = 1;
            st.in[0] = p->in_boundary[i];
            st.out[0] = p->in_tensor[i];
            st.kernel_index = -1;
            if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) goto fail;
        }
    if ((r = aicf__fuse_info_make(g, &fuse)) != AICF_SUCCESS) goto fail;
    for (i = 0; i < g->n_nodes; i++) {
        aicf__node* n = &g->nodes[i];
        aicf__step st;
        if (n->removed || fuse.absorbed[i] >= 0) continue;
        if (n->n_in > AICF__STEP_MAX_IO || n->n_out > AICF__STEP_MAX_IO) {
            aicf__fuse_info_free(ctx, &fuse);
            r = aicf__err(ctx, AICF_ERROR_LIMIT, "node %d '%s' (%s): %d inputs and %d outputs: a step has at most "
                          "AICF_MAX_STEP_IO (%d)", i, n->name, n->op_type, n->n_in, n->n_out, AICF__STEP_MAX_IO);
            goto fail;
        }
        memset(&st, 0, sizeof st);
        st.kind = AICF__STEP_NODE;
        st.node = i;
        st.n_in = n->n_in;
        st.n_out = n->n_out;
        for (j = 0; j < n->n_in; j++) st.in[j] = n->in[j];
        for (j = 0; j < n->n_out; j++) st.out[j] = n->out[j];
        st.kernel_index = -1;
        if (!p->policy.no_fusion) aicf__fuse_chain(g, &fuse, &st);
        if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) {
            aicf__fuse_info_free(ctx, &fuse);
            goto fail;
        }
    }
    aicf__fuse_info_free(ctx, &fuse);
    for (i = 0; i < p->n_out; i++)
        if (p->out_boundary[i] != p->out_tensor[i]) {
            aicf__step st;
            memset(&st, 0, sizeof st);
            st.kind = AICF__STEP_CAST;
            st.node = -1;
            st.n_in = st.n_out = 1;
            st.in[0] = p->out_tensor[i];
            st.out[0] = p->out_boundary[i];
            st.kernel_index = -1;
            if ((r = aicf__plan_push_step(p, &stepcap, &st)) != AICF_SUCCESS) goto fail;
        }
    /* storage of every tensor */
    p->loc = (aicf__loc*)aicf__calloc(ctx, (size_t)g->n_tensors + 1, sizeof(aicf__loc));
    if (!p->loc) goto oom;
    for (i = 0; i < g->n_tensors; i++) {
        aicf__tensor* t = &g->tensors[i];
        aicf__loc* l = &p->loc[i];
        int ok;
        l->alias_of = -1;
        l->sdtype = t->dtype;
        if (fp16 && t->dtype == AICF_DTYPE_FLOAT32) l->sdtype = AICF_DTYPE_FLOAT16;
        if (!t->shape_known) continue;
        l->bytes = aicf__shape_bytes(&t->shape, l->sdtype, &ok);
        if (!ok) {
            r = aicf__err(ctx, AICF_ERROR_LIMIT, "tensor '%s': size exceeds AICF_MAX_TENSOR_BYTES", t->name);
            goto fail;
        }
    }
    /* the API boundary keeps the graph's dtype */
    for (i = 0; i < p->n_in; i++) {
        int b = p->in_boundary[i], ok;
        p->loc[b].sdtype = g->tensors[b].dtype;
        p->loc[b].bytes = aicf__shape_bytes(&g->tensors[b].shape, g->tensors[b].dtype, &ok);
    }
    for (i = 0; i < p->n_out; i++) {
        int b = p->out_boundary[i], ok;
        p->loc[b].sdtype = g->tensors[b].dtype;
        p->loc[b].bytes = aicf__shape_bytes(&g->tensors[b].shape, g->tensors[b].dtype, &ok);
    }
    /* which tensors the steps touch decide their space */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            if (t < 0) continue;
            p->loc[t].space = aicf__is_const(g, t) ? AICF__SPACE_WEIGHTS : AICF__SPACE_ARENA;
        }
        for (j = 0; j < st->n_out; j++)
            if (st->out[j] >= 0) p->loc[st->out[j]].space = AICF__SPACE_ARENA;
        for (j = 0; j < st->n_epi; j++) {
            int t = st->epi[j].operand;
            if (t >= 0) p->loc[t].space = aicf__is_const(g, t) ? AICF__SPACE_WEIGHTS : AICF__SPACE_ARENA;
        }
    }
    for (i = 0; i < p->n_in; i++) p->loc[p->in_boundary[i]].space = AICF__SPACE_ARENA;
    for (i = 0; i < p->n_out; i++)
        if (!aicf__is_const(g, p->out_boundary[i])) p->loc[p->out_boundary[i]].space = AICF__SPACE_ARENA;
    /* aliasing ops share their input's storage */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        aicf__node* n;
        int src, dst;
        if (st->kind != AICF__STEP_NODE) continue;
        n = &g->nodes[st->node];
        if (!aicf__op_is_alias(n->op) || st->n_in < 1 || st->in[0] < 0 || st->out[0] < 0) continue;
        src = st->in[0];
        dst = st->out[0];
        if (p->loc[src].space != AICF__SPACE_ARENA || p->loc[src].bytes != p->loc[dst].bytes ||
            p->loc[src].sdtype != p->loc[dst].sdtype)
            continue;
        p->loc[dst].alias_of = src;
    }
    /* Split on the device along an axis with only 1s before it (the outermost non-unit one):
       each output is a contiguous piece of the input, so it becomes a view into the input's
       storage (no copy; the input lives as long as any view). The CPU reference keeps its copies. */
    if (p->target == AICF_BACKEND_CUDA)
        for (i = 0; i < p->n_steps; i++) {
            aicf__step* st = &p->steps[i];
            const aicf__node* n;
            const aicf__shape* xs;
            int x, ax, k, ok = 1;
            size_t pos = 0;
            /* (a fused epilogue would run in place on output 0, inside the input's storage) */
            if (st->kind != AICF__STEP_NODE || st->n_in < 1 || st->in[0] < 0 || st->n_epi > 0) continue;
            n = &g->nodes[st->node];
            if (n->op != AICF__OP_Split) continue;
            x = st->in[0];
            xs = &g->tensors[x].shape;
            if (p->loc[x].space != AICF__SPACE_ARENA || !g->tensors[x].shape_known || xs->rank < 1) continue;
            ax = (int)aicf__attr_i(n, "axis", 0);
            if (ax < 0) ax += xs->rank;
            if (ax < 0 || ax >= xs->rank) continue;
            for (k = 0; k < ax; k++)
                if (xs->d[k] != 1) ok = 0;
            for (k = 0; k < st->n_out && ok; k++) { /* outputs in order: consecutive pieces, like the input's storage */
                int y = st->out[k];
                if (y < 0 || p->loc[y].space != AICF__SPACE_ARENA || p->loc[y].sdtype != p->loc[x].sdtype ||
                    p->loc[y].alias_of >= 0)
                    ok = 0;
                else if ((pos += p->loc[y].bytes) > p->loc[x].bytes)
                    ok = 0;
            }
            if (!ok || pos != p->loc[x].bytes) continue;
            for (k = 0, pos = 0; k < st->n_out; k++) {
                p->loc[st->out[k]].alias_of = x;
                p->loc[st->out[k]].alias_add = pos;
                pos += p->loc[st->out[k]].bytes;
            }
        }
    /* Concat along an axis with only 1s before it: each input is a contiguous piece of the
       output, so its producer writes straight into the output's storage (the inputs become views
       of it, the Concat copies nothing). DenseNet's chains concat(concat(...), new) then share one
       buffer per block. An input qualifies once (a tensor is a view of one root), when it is a
       root written by a step (not a graph input or output, not a constant) and appears once; the
       Concat must have no fused epilogue (it would run in place over its inputs' storage). */
    for (i = 0; i < p->n_steps; i++) {
        aicf__step* st = &p->steps[i];
        const aicf__node* n;
        const aicf__shape* ys;
        int y, ax, k, j, ok = 1;
        size_t pos = 0;
        if (st->kind != AICF__STEP_NODE || st->n_out < 1 || st->out[0] < 0 || st->n_epi > 0 || st->n_in < 1) continue;
        n = &g->nodes[st->node];
        if (n->op != AICF__OP_Concat) continue;
        y = st->out[0];
        ys = &g->tensors[y].shape;
        if (p->loc[y].space != AICF__SPACE_ARENA || p->loc[y].alias_of >= 0 || !g->tensors[y].shape_known || ys->rank < 1 ||
            aicf__is_boundary(p, y))
            continue;
        ax = (int)aicf__attr_i(n, "axis", 1);
        if (ax < 0) ax += ys->rank;
        if (ax < 0 || ax >= ys->rank) continue;
        for (k = 0; k < ax; k++)
            if (ys->d[k] != 1) ok = 0;
        for (k = 0; k < st->n_in && ok; k++) {
            int t = st->in[k];
            if (t < 0 || t == y || p->loc[t].space != AICF__SPACE_ARENA || p->loc[t].alias_of >= 0 ||
                p->loc[t].sdtype != p->loc[y].sdtype || aicf__is_boundary(p, t) || aicf__is_const(g, t)) {
                ok = 0;
                break;
            }
            for (j = 0; j < k; j++)
                if (st->in[j] == t) ok = 0;
            if ((pos += p->loc[t].bytes) > p->loc[y].bytes) ok = 0;
        }
        if (!ok || pos != p->loc[y].bytes) continue;
        for (k = 0, pos = 0; k < st->n_in; k++) {
            p->loc[st->in[k]].alias_of = y;
            p->loc[st->in[k]].alias_add = pos;
            pos += p->loc[st->in[k]].bytes;
        }
    }
    /* weights */
    {
        size_t off = 0;
        for (i = 0; i < g->n_tensors; i++) {
            if (p->loc[i].space != AICF__SPACE_WEIGHTS) continue;
            p->loc[i].offset = off;
            if (!aicf__add_size(off, aicf__align_up(p->loc[i].bytes), &off)) {
                r = aicf__err(ctx, AICF_ERROR_LIMIT, "aicf_plan_create: weights exceed the address space");
                goto fail;
            }
        }
        p->weights_bytes = off;
    }
    /* the backend's per-step scratch (a Conv's im2col buffer), placed by the memory plan */
    if (p->target == AICF_BACKEND_CUDA)
        for (i = 0; i < p->n_steps; i++)
            if ((r = aicf__cuda_step_scratch(p, i, &p->steps[i].scratch_bytes)) != AICF_SUCCESS) goto fail;
    r = aicf__plan_memory(p);
    if (r != AICF_SUCCESS) goto fail;
    /* kernels */
    if (p->target == AICF_BACKEND_CUDA) {
        r = aicf__cuda_plan(p);
        if (r != AICF_SUCCESS) goto fail;
    } else {
        for (i = 0; i < p->n_steps; i++) {
            aicf__step* st = &p->steps[i];
            snprintf(st->kernel, sizeof st->kernel, "cpu:%s",
                     st->kind == AICF__STEP_CAST ? "Cast" : g->nodes[st->node].op_type);
            snprintf(st->reason, sizeof st->reason, "%.190s",
                     fallback_reason[0] ? fallback_reason : "CPU reference executor (float32)");
        }
    }
    p->saved_algos = NULL; /* lent by aicf_plan_load for planning only */
    *out = p;
    return AICF_SUCCESS;
oom:
    r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
fail:
    aicf_plan_destroy(p);
    return r;
}

aicf_result aicf_plan_stats_get(const aicf_plan* p, aicf_plan_stats* out) {
    int i, live = 0;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        if (st->kind == AICF__STEP_NODE && st->out[0] >= 0 && p->loc[st->out[0]].alias_of >= 0) continue;
        out->num_steps++;
    }
    for (i = 0; i < p->g->n_nodes; i++) live += !p->g->nodes[i].removed;
    out->num_nodes = live;
    out->arena_bytes = p->arena_bytes;
    out->arena_lower_bound = p->arena_lower_bound;
    out->weights_bytes = p->weights_bytes;
    out->backend = p->target;
    out->precision = p->policy.precision;
    return AICF_SUCCESS;
}

/* Appends printf-style text to a growing buffer (measures when it would overflow). */
typedef struct aicf__sbuf {
    char* buf;
    size_t cap, len;
} aicf__sbuf;

static void aicf__sbuf_printf(aicf__sbuf* b, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void aicf__sbuf_printf(aicf__sbuf* b, const char* fmt, ...) {
    va_list ap;
    int n;
    char* dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) b->len += (size_t)n;
}

static const char* aicf__tname(const aicf_graph* g, int t) {
    const char* n = g->tensors[t].name;
    return n[0] == '\x01' ? n + 1 : n;
}

aicf_result aicf_plan_format(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_plan_stats stats;
    int i, j;
    char sh[160];
    if (!p) return AICF_ERROR_INVALID_ARGUMENT;
    b.buf = buf;
    b.cap = buf ? cap : 0;
    b.len = 0;
    if (buf && cap) buf[0] = 0;
    aicf_plan_stats_get(p, &stats);
    aicf__sbuf_printf(&b, "plan: backend %s, precision %s, %d nodes, %d steps\n",
                      p->target == AICF_BACKEND_CUDA ? "cuda" : "cpu", aicf__precision_name(p->policy.precision),
                      stats.num_nodes, stats.num_steps);
    for (i = 0; i < p->n_in; i++)
        aicf__sbuf_printf(&b, "input  %d '%s' %s %s @arena+%zu (%zu B)\n", i, aicf__tname(p->g, p->in_tensor[i]),
                          aicf_dtype_name(p->g->tensors[p->in_tensor[i]].dtype),
                          aicf__shape_str(&p->g->tensors[p->in_tensor[i]].shape, sh, sizeof sh),
                          p->loc[p->in_boundary[i]].offset, p->loc[p->in_boundary[i]].bytes);
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        const char* op = st->kind == AICF__STEP_CAST ? "Cast(boundary)" : p->g->nodes[st->node].op_type;
        aicf__sbuf_printf(&b, "step %3d  %-18s %-28s", i, op, st->kernel);
        if (st->block[0])
            aicf__sbuf_printf(&b, " grid(%u,%u,%u) block(%u,%u,%u)", st->grid[0], st->grid[1], st->grid[2], st->block[0],
                              st->block[1], st->block[2]);
        if (st->kind == AICF__STEP_NODE) aicf__sbuf_printf(&b, " node '%s'", p->g->nodes[st->node].name);
        aicf__sbuf_printf(&b, "\n          in:");
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            const aicf__loc* l;
            if (t < 0) {
                aicf__sbuf_printf(&b, " -");
                continue;
            }
            l = &p->loc[t];
            aicf__sbuf_printf(&b, " %s%s@%s+%zu(%zuB)", aicf__tname(p->g, t),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh),
                              l->space == AICF__SPACE_WEIGHTS ? "weights" : "arena", l->offset, l->bytes);
        }
        aicf__sbuf_printf(&b, "\n          out:");
        for (j = 0; j < st->n_out; j++) {
            int t = st->out[j];
            if (t < 0) {
                aicf__sbuf_printf(&b, " -");
                continue;
            }
            aicf__sbuf_printf(&b, " %s%s@arena+%zu(%zuB)%s", aicf__tname(p->g, t),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh), p->loc[t].offset, p->loc[t].bytes,
                              p->loc[t].alias_of >= 0 ? " (alias of input)" : "");
        }
        if (st->n_epi > 0) {
            aicf__sbuf_printf(&b, "\n          fused:");
            for (j = 0; j < st->n_epi; j++) {
                const aicf__epi* ep = &st->epi[j];
                aicf__sbuf_printf(&b, " %s '%s'", p->g->nodes[ep->node].op_type, p->g->nodes[ep->node].name);
                if (ep->operand >= 0)
                    aicf__sbuf_printf(&b, "(%s%s%s)", ep->operand_left ? "" : "v, ", aicf__tname(p->g, ep->operand),
                                      ep->operand_left ? ", v" : "");
            }
            if (st->epi_native) aicf__sbuf_printf(&b, " [first %d inside the main kernel]", st->epi_native);
        }
        aicf__sbuf_printf(&b, "\n          why: %s\n", st->reason);
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i];
        if (aicf__is_const(p->g, t))
            aicf__sbuf_printf(&b, "output %d '%s' %s (constant, folded at plan time)\n", i,
                              aicf__tname(p->g, p->out_tensor[i]), aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh));
        else
            aicf__sbuf_printf(&b, "output %d '%s' %s @arena+%zu (%zu B)\n", i, aicf__tname(p->g, p->out_tensor[i]),
                              aicf__shape_str(&p->g->tensors[t].shape, sh, sizeof sh), p->loc[t].offset, p->loc[t].bytes);
    }
    aicf__sbuf_printf(&b, "arena: %zu bytes (lower bound %zu bytes, ratio %.3f); weights: %zu bytes\n", p->arena_bytes,
                      p->arena_lower_bound,
                      p->arena_lower_bound ? (double)p->arena_bytes / (double)p->arena_lower_bound : 1.0,
                      p->weights_bytes);
    if (needed) *needed = b.len + 1;
    if (buf && cap && b.len >= cap) buf[cap - 1] = 0;
    return AICF_SUCCESS;
}

int aicf_plan_num_inputs(const aicf_plan* p) { return p ? p->n_in : 0; }
int aicf_plan_num_outputs(const aicf_plan* p) { return p ? p->n_out : 0; }
int aicf_plan_num_steps(const aicf_plan* p) { return p ? p->n_steps : -1; }

aicf_result aicf_plan_step_info(const aicf_plan* p, int step, aicf_step_info* out) {
    const aicf__step* st;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (step < 0 || step >= p->n_steps)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_step_info: step %d out of range (%d steps)", step, p->n_steps);
    st = &p->steps[step];
    if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < p->g->n_nodes) {
        out->op_type = p->g->nodes[st->node].op_type ? p->g->nodes[st->node].op_type : "";
        out->node_name = p->g->nodes[st->node].name ? p->g->nodes[st->node].name : "";
    } else {
        out->op_type = "Cast";
        out->node_name = "";
    }
    out->kernel = st->kernel;
    out->reason = st->reason;
    out->num_fused = st->n_epi;
    return AICF_SUCCESS;
}

aicf_result aicf_plan_input_info(const aicf_plan* p, int index, aicf_tensor_info* out) {
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= p->n_in)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_input_info: index %d out of range (%d inputs)",
                         index, p->n_in);
    aicf__tensor_info(&p->g->tensors[p->in_tensor[index]], out);
    return AICF_SUCCESS;
}

aicf_result aicf_plan_output_info(const aicf_plan* p, int index, aicf_tensor_info* out) {
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= p->n_out)
        return aicf__err(p->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_plan_output_info: index %d out of range (%d outputs)",
                         index, p->n_out);
    aicf__tensor_info(&p->g->tensors[p->out_tensor[index]], out);
    return AICF_SUCCESS;
}

int aicf_plan_find_input(const aicf_plan* p, const char* name) {
    int i;
    if (!p || !name) return -1;
    for (i = 0; i < p->n_in; i++)
        if (strcmp(p->g->tensors[p->in_tensor[i]].name, name) == 0) return i;
    return -1;
}

int aicf_plan_find_output(const aicf_plan* p, const char* name) {
    int i;
    if (!p || !name) return -1;
    for (i = 0; i < p->n_out; i++)
        if (strcmp(p->g->tensors[p->out_tensor[i]].name, name) == 0) return i;
    return -1;
}

/* >>exec =================================================================================== */

aicf_result aicf_exec_create(aicf_plan* p, const aicf_exec_desc* desc, aicf_exec** out) {
    aicf_exec* e;
    aicf_result r;
    if (!p || !out) return AICF_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    e = (aicf_exec*)aicf__calloc(p->ctx, 1, sizeof *e);
    if (!e) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory");
    e->ctx = p->ctx;
    e->plan = p;
    if (desc) e->desc = *desc;
    if (p->target == AICF_BACKEND_CUDA) {
        r = aicf__cuda_exec_create(e);
        if (r != AICF_SUCCESS) {
            aicf__free(p->ctx, e);
            return r;
        }
    } else {
        e->host_arena = (unsigned char*)aicf__malloc(p->ctx, p->arena_bytes ? p->arena_bytes : 1);
        if (!e->host_arena) {
            aicf__free(p->ctx, e);
            return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_exec_create: out of memory (arena of %zu bytes)",
                             p->arena_bytes);
        }
        /* poison: a read of memory nothing wrote shows up as NaN, not as a plausible number */
        memset(e->host_arena, 0xff, p->arena_bytes ? p->arena_bytes : 1);
    }
    *out = e;
    return AICF_SUCCESS;
}

void aicf_exec_destroy(aicf_exec* e) {
    if (!e) return;
    if (e->plan->target == AICF_BACKEND_CUDA) aicf__cuda_exec_destroy(e);
    aicf__free(e->ctx, e->host_arena);
    aicf__free(e->ctx, e);
}

static aicf_result aicf__exec_io_check(aicf_exec* e, int index, size_t bytes, int is_input, const char* fn) {
    const aicf_plan* p = e->plan;
    int n = is_input ? p->n_in : p->n_out;
    int t;
    size_t need;
    int ok;
    if (index < 0 || index >= n)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: index %d out of range (%d %s)", fn, index, n,
                         is_input ? "inputs" : "outputs");
    t = is_input ? p->in_tensor[index] : p->out_tensor[index];
    need = aicf__shape_bytes(&p->g->tensors[t].shape, p->g->tensors[t].dtype, &ok);
    if (bytes != need)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: %s %d '%s' has %zu bytes, got %zu", fn,
                         is_input ? "input" : "output", index, p->g->tensors[t].name, need, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_set_input(aicf_exec* e, int index, const void* data, size_t bytes) {
    aicf_result r;
    if (!e || (!data && bytes)) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 1, "aicf_exec_set_input");
    if (r != AICF_SUCCESS) return r;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_set_input(e, index, data, bytes, 0);
    memcpy(e->host_arena + e->plan->loc[e->plan->in_boundary[index]].offset, data, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_set_input_device(aicf_exec* e, int index, uint64_t device_ptr, size_t bytes) {
    aicf_result r;
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 1, "aicf_exec_set_input_device");
    if (r != AICF_SUCCESS) return r;
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_set_input_device: the plan runs on the CPU backend");
    return aicf__cuda_exec_set_input(e, index, (const void*)(uintptr_t)device_ptr, bytes, 1);
}

/* One step of the CPU reference executor. */
aicf_result aicf__cpu_exec_step(aicf_exec* e, int s) {
    aicf_plan* p = e->plan;
    aicf_graph* g = p->g;
    const void* in[AICF__STEP_MAX_IO];
    void* outp[AICF__STEP_MAX_IO];
    int j;
    {
        const aicf__step* st = &p->steps[s];
        aicf_result r;
        for (j = 0; j < AICF__STEP_MAX_IO; j++) in[j] = outp[j] = NULL;
        if (st->kind != AICF__STEP_NODE)
            return aicf__err(e->ctx, AICF_ERROR_STATE, "step %d: cast steps do not run on the CPU backend", s);
        for (j = 0; j < st->n_in; j++) {
            int t = st->in[j];
            if (t < 0) in[j] = NULL;
            else if (p->loc[t].space == AICF__SPACE_WEIGHTS) in[j] = g->tensors[t].data;
            else in[j] = e->host_arena + p->loc[t].offset;
        }
        for (j = 0; j < st->n_out; j++) outp[j] = st->out[j] >= 0 ? e->host_arena + p->loc[st->out[j]].offset : NULL;
        r = aicf__cpu_run(g, st->node, in, outp);
        if (r != AICF_SUCCESS) return r;
        if (st->n_epi > 0) { /* fused elementwise nodes, in place on output 0 */
            const void* opnd[AICF__EPI_MAX];
            for (j = 0; j < st->n_epi; j++) {
                int t = st->epi[j].operand;
                opnd[j] = t < 0 ? NULL
                                : (p->loc[t].space == AICF__SPACE_WEIGHTS ? g->tensors[t].data
                                                                         : (const void*)(e->host_arena + p->loc[t].offset));
            }
            r = aicf__cpu_epilogue(g, st->epi, st->n_epi, (float*)outp[0], &g->tensors[st->out[0]].shape, opnd);
            if (r != AICF_SUCCESS)
                return aicf__err(e->ctx, r, "step %d (node '%s'): epilogue failed", s, g->nodes[st->node].name);
        }
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cpu_exec_run(aicf_exec* e) {
    int s;
    for (s = 0; s < e->plan->n_steps; s++) {
        aicf_result r = aicf__cpu_exec_step(e, s);
        if (r != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

aicf_result aicf_exec_launch(aicf_exec* e) {
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_launch(e);
    return aicf__cpu_exec_run(e);
}

aicf_result aicf_exec_wait(aicf_exec* e) {
    if (!e) return AICF_ERROR_INVALID_ARGUMENT;
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_wait(e);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_run(aicf_exec* e) {
    aicf_result r = aicf_exec_launch(e);
    if (r != AICF_SUCCESS) return r;
    return aicf_exec_wait(e);
}

aicf_result aicf_exec_get_output(aicf_exec* e, int index, void* data, size_t bytes) {
    aicf_result r;
    int t;
    if (!e || (!data && bytes)) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__exec_io_check(e, index, bytes, 0, "aicf_exec_get_output");
    if (r != AICF_SUCCESS) return r;
    t = e->plan->out_boundary[index];
    if (aicf__is_const(e->plan->g, t)) {
        memcpy(data, e->plan->g->tensors[t].data, bytes);
        return AICF_SUCCESS;
    }
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_get_output(e, index, data, bytes);
    memcpy(data, e->host_arena + e->plan->loc[t].offset, bytes);
    return AICF_SUCCESS;
}

aicf_result aicf_exec_input_device_ptr(aicf_exec* e, int index, uint64_t* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= e->plan->n_in)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_input_device_ptr: index %d out of range", index);
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_input_device_ptr: the plan runs on the CPU backend");
    return aicf__cuda_exec_device_ptr(e, e->plan->in_boundary[index], out);
}

aicf_result aicf_exec_output_device_ptr(aicf_exec* e, int index, uint64_t* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    if (index < 0 || index >= e->plan->n_out)
        return aicf__err(e->ctx, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_output_device_ptr: index %d out of range", index);
    if (e->plan->target != AICF_BACKEND_CUDA)
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_output_device_ptr: the plan runs on the CPU backend");
    if (aicf__is_const(e->plan->g, e->plan->out_boundary[index]))
        return aicf__err(e->ctx, AICF_ERROR_STATE, "aicf_exec_output_device_ptr: output %d is a constant folded at plan time",
                         index);
    return aicf__cuda_exec_device_ptr(e, e->plan->out_boundary[index], out);
}

aicf_result aicf_exec_stats_get(const aicf_exec* e, aicf_exec_stats* out) {
    if (!e || !out) return AICF_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (e->plan->target == AICF_BACKEND_CUDA) return aicf__cuda_exec_stats(e, out);
    return AICF_SUCCESS;
}
/* >>plan_io ================================================================================ */
/* The plan as text: the policy format (aicf_policy_format / _parse), plan files
   (aicf_plan_serialize / _save / _load), aicf_plan_explain and aicf_plan_dot.
   docs/plan_format.md describes the file line by line.

   Writing: every line is printed from the plan's own fields in a fixed order with fixed
   formats: no pointers, no timestamps, no padding bytes, so the same graph, policy, kernel table
   and device give the same bytes.

   Loading never turns file bytes into a program. aicf_plan_load checks the header (format,
   kernel table, backend, device and cuBLASLt version, the graph's fingerprint), reads the
   policy and the cuBLASLt algorithms, re-plans through aicf__plan_create_ex with those
   algorithms lent to the CUDA backend (which checks each with cublasLtMatmulAlgoCheck instead
   of running the heuristic), serialises the result and compares it with the file line by line:
   the first difference is AICF_ERROR_PLAN_MISMATCH naming the line. Every number is parsed with
   bounds and overflow checks; a malformed file is AICF_ERROR_INVALID_MODEL naming the line. */

#define AICF__IO_MAGIC "aicf-plan 1"
#define AICF__IO_MAX_FILE ((size_t)1 << 30)      /* bytes of a plan file */
#define AICF__IO_MAX_LINE ((size_t)1 << 16)      /* bytes of one plan-file line */
#define AICF__IO_MAX_POLICY ((size_t)1 << 20)    /* bytes of a policy text */
#define AICF__IO_MAX_POLICY_LINE ((size_t)4096)  /* bytes of one policy line */

/* ---- hashing ---- */
uint64_t aicf__fnv1a(uint64_t h, const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

uint64_t aicf__fnv1a_str(uint64_t h, const char* s) {
    static const unsigned char none = 0xff;
    return s ? aicf__fnv1a(h, s, strlen(s) + 1) : aicf__fnv1a(h, &none, 1);
}

/* a 64-bit value, little-endian whatever the host */
static uint64_t aicf__io_h64(uint64_t h, uint64_t v) {
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return aicf__fnv1a(h, b, 8);
}

/* Bulk hash of constant data: XXH64 (seed 0), about ten times faster than FNV-1a byte by byte. */
#define AICF__XP1 11400714785074694791ull
#define AICF__XP2 14029467366897019727ull
#define AICF__XP3 1609587929392839161ull
#define AICF__XP4 9650029242287828579ull
#define AICF__XP5 2870177450012600261ull

static uint64_t aicf__io_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t aicf__io_rd64(const unsigned char* p) {
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

static uint64_t aicf__io_xround(uint64_t acc, uint64_t in) {
    acc += in * AICF__XP2;
    return aicf__io_rotl(acc, 31) * AICF__XP1;
}

static uint64_t aicf__io_xmerge(uint64_t h, uint64_t v) {
    h ^= aicf__io_xround(0, v);
    return h * AICF__XP1 + AICF__XP4;
}

static uint64_t aicf__io_xxh64(const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    const unsigned char* end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = AICF__XP1 + AICF__XP2, v2 = AICF__XP2, v3 = 0, v4 = (uint64_t)0 - AICF__XP1;
        const unsigned char* limit = end - 32;
        do {
            v1 = aicf__io_xround(v1, aicf__io_rd64(p));
            v2 = aicf__io_xround(v2, aicf__io_rd64(p + 8));
            v3 = aicf__io_xround(v3, aicf__io_rd64(p + 16));
            v4 = aicf__io_xround(v4, aicf__io_rd64(p + 24));
            p += 32;
        } while (p <= limit);
        h = aicf__io_rotl(v1, 1) + aicf__io_rotl(v2, 7) + aicf__io_rotl(v3, 12) + aicf__io_rotl(v4, 18);
        h = aicf__io_xmerge(h, v1);
        h = aicf__io_xmerge(h, v2);
        h = aicf__io_xmerge(h, v3);
        h = aicf__io_xmerge(h, v4);
    } else {
        h = AICF__XP5;
    }
    h += (uint64_t)n;
    while (end - p >= 8) {
        h ^= aicf__io_xround(0, aicf__io_rd64(p));
        h = aicf__io_rotl(h, 27) * AICF__XP1 + AICF__XP4;
        p += 8;
    }
    if (end - p >= 4) {
        uint64_t w = (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24);
        h ^= w * AICF__XP1;
        h = aicf__io_rotl(h, 23) * AICF__XP2 + AICF__XP3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p * AICF__XP5;
        h = aicf__io_rotl(h, 11) * AICF__XP1;
        p++;
    }
    h ^= h >> 33;
    h *= AICF__XP2;
    h ^= h >> 29;
    h *= AICF__XP3;
    h ^= h >> 32;
    return h;
}

static uint64_t aicf__io_fp_graph(uint64_t h, const aicf_graph* g, int depth) {
    int i, j, k;
    h = aicf__io_h64(h, 0x6169636667726170ull); /* "aicfgrap": a graph begins */
    h = aicf__io_h64(h, (uint64_t)g->opset);
    h = aicf__io_h64(h, (uint64_t)g->is_subgraph);
    h = aicf__io_h64(h, (uint64_t)g->n_tensors);
    for (i = 0; i < g->n_tensors; i++) {
        const aicf__tensor* t = &g->tensors[i];
        h = aicf__fnv1a_str(h, t->name);
        h = aicf__io_h64(h, (uint64_t)t->dtype);
        h = aicf__io_h64(h, (uint64_t)(int64_t)t->shape.rank);
        for (j = 0; j < t->shape.rank && j < AICF_MAX_RANK; j++) {
            h = aicf__io_h64(h, (uint64_t)t->shape.d[j]);
            h = aicf__fnv1a_str(h, t->dim_param[j]);
        }
        h = aicf__io_h64(h, (uint64_t)t->flags);
        h = aicf__io_h64(h, (uint64_t)t->shape_known);
        if (t->data) {
            h = aicf__io_h64(h, (uint64_t)t->data_bytes);
            h = aicf__io_h64(h, aicf__io_xxh64(t->data, t->data_bytes));
        } else {
            h = aicf__io_h64(h, ~(uint64_t)0);
        }
    }
    h = aicf__io_h64(h, (uint64_t)g->n_nodes);
    for (i = 0; i < g->n_nodes; i++) {
        const aicf__node* n = &g->nodes[i];
        h = aicf__fnv1a_str(h, n->name);
        h = aicf__fnv1a_str(h, n->op_type);
        h = aicf__fnv1a_str(h, n->domain);
        h = aicf__io_h64(h, (uint64_t)n->removed);
        h = aicf__io_h64(h, (uint64_t)n->n_in);
        for (j = 0; j < n->n_in; j++) h = aicf__io_h64(h, (uint64_t)(int64_t)n->in[j]);
        h = aicf__io_h64(h, (uint64_t)n->n_out);
        for (j = 0; j < n->n_out; j++) h = aicf__io_h64(h, (uint64_t)(int64_t)n->out[j]);
        h = aicf__io_h64(h, (uint64_t)n->n_attrs);
        for (j = 0; j < n->n_attrs; j++) {
            const aicf__attrv* a = &n->attrs[j];
            uint32_t fb;
            memcpy(&fb, &a->f, sizeof fb);
            h = aicf__fnv1a_str(h, a->name);
            h = aicf__io_h64(h, (uint64_t)a->type);
            h = aicf__io_h64(h, (uint64_t)a->i);
            h = aicf__io_h64(h, (uint64_t)fb);
            h = aicf__fnv1a_str(h, a->s);
            h = aicf__io_h64(h, (uint64_t)(int64_t)a->count);
            h = aicf__io_h64(h, (uint64_t)(int64_t)a->tensor);
            for (k = 0; a->ints && k < a->count; k++) h = aicf__io_h64(h, (uint64_t)a->ints[k]);
            for (k = 0; a->floats && k < a->count; k++) {
                memcpy(&fb, &a->floats[k], sizeof fb);
                h = aicf__io_h64(h, (uint64_t)fb);
            }
            for (k = 0; a->strings && k < a->count; k++) h = aicf__fnv1a_str(h, a->strings[k]);
            if (a->g && depth <= AICF_MAX_SUBGRAPH_DEPTH) h = aicf__io_fp_graph(h, a->g, depth + 1);
            else h = aicf__io_h64(h, a->g ? 1u : 0u);
        }
    }
    h = aicf__io_h64(h, (uint64_t)g->n_inputs);
    for (i = 0; i < g->n_inputs; i++) h = aicf__io_h64(h, (uint64_t)(int64_t)g->inputs[i]);
    h = aicf__io_h64(h, (uint64_t)g->n_outputs);
    for (i = 0; i < g->n_outputs; i++) h = aicf__io_h64(h, (uint64_t)(int64_t)g->outputs[i]);
    h = aicf__io_h64(h, (uint64_t)g->n_dims);
    for (i = 0; i < g->n_dims; i++) {
        h = aicf__fnv1a_str(h, g->dims[i].name);
        h = aicf__io_h64(h, (uint64_t)g->dims[i].value);
    }
    return h;
}

uint64_t aicf__graph_fingerprint(const aicf_graph* g) {
    return g ? aicf__io_fp_graph(AICF__FNV_BASIS, g, 0) : 0;
}

/* ---- text helpers ---- */

/* Appends n raw bytes (the counterpart of aicf__sbuf_printf: measures past the capacity). */
static void aicf__sbuf_put(aicf__sbuf* b, const char* s, size_t n) {
    if (b->len < b->cap) {
        size_t room = b->cap - b->len - 1, k = n < room ? n : room;
        if (k) memcpy(b->buf + b->len, s, k);
        b->buf[b->len + k] = 0;
    }
    b->len += n;
}

static void aicf__sbuf_init(aicf__sbuf* b, char* buf, size_t cap) {
    b->buf = buf;
    b->cap = buf ? cap : 0;
    b->len = 0;
    if (buf && cap) buf[0] = 0;
}

/* s as a quoted string: bytes below 0x20, 0x7f, '"' and '\' escaped (\" \\ \xHH); bytes of
   UTF-8 sequences are written as they are. */
static void aicf__io_qstr(aicf__sbuf* b, const char* s) {
    const unsigned char* p = (const unsigned char*)(s ? s : "");
    const unsigned char* run = p;
    aicf__sbuf_put(b, "\"", 1);
    for (; *p; p++) {
        char esc[8];
        if (*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\') continue;
        aicf__sbuf_put(b, (const char*)run, (size_t)(p - run));
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            aicf__sbuf_put(b, esc, 2);
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)*p);
            aicf__sbuf_put(b, esc, 4);
        }
        run = p + 1;
    }
    aicf__sbuf_put(b, (const char*)run, (size_t)(p - run));
    aicf__sbuf_put(b, "\"", 1);
}

static void aicf__io_hex(aicf__sbuf* b, const unsigned char* d, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char chunk[128];
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        chunk[k++] = digits[d[i] >> 4];
        chunk[k++] = digits[d[i] & 15];
        if (k == sizeof chunk) {
            aicf__sbuf_put(b, chunk, k);
            k = 0;
        }
    }
    aicf__sbuf_put(b, chunk, k);
}

/* Untrusted text for a message: at most `max` bytes, non-printable bytes as '?'. */
static const char* aicf__io_show(const char* s, size_t n, size_t max, char* out, size_t cap) {
    size_t i, k = 0;
    if (cap == 0) return out;
    for (i = 0; i < n && k + 4 < cap && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (i < n && k + 4 < cap) {
        out[k++] = '.';
        out[k++] = '.';
        out[k++] = '.';
    }
    out[k] = 0;
    return out;
}

/* Strict number parsers: the whole span, digits only, no sign, overflow-checked. */
static int aicf__io_dec(const char* s, size_t n, uint64_t max, uint64_t* out) {
    uint64_t v = 0;
    size_t i;
    if (n == 0 || n > 20) return 0;
    if (n > 1 && s[0] == '0') return 0; /* one spelling per number */
    for (i = 0; i < n; i++) {
        unsigned d;
        if (s[i] < '0' || s[i] > '9') return 0;
        d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (v > max) return 0;
    *out = v;
    return 1;
}

static int aicf__io_hexdigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Exactly 2 * n lowercase hex digits into n bytes. */
static int aicf__io_unhex(const char* s, size_t len, unsigned char* out, size_t n) {
    size_t i;
    if (len != 2 * n) return 0;
    for (i = 0; i < n; i++) {
        int hi = aicf__io_hexdigit(s[2 * i]), lo = aicf__io_hexdigit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return 0;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    return 1;
}

/* A 64-bit value as exactly 16 lowercase hex digits. */
static int aicf__io_hex64(const char* s, size_t len, uint64_t* out) {
    unsigned char b[8];
    int i;
    if (!aicf__io_unhex(s, len, b, 8)) return 0;
    *out = 0;
    for (i = 0; i < 8; i++) *out = (*out << 8) | b[i];
    return 1;
}

/* Reads a whole file of at most `max` bytes into an aicf__malloc'd buffer (+1 byte, NUL). */
static aicf_result aicf__io_read(aicf_context* ctx, const char* fn, const char* path, size_t max, char** data, size_t* size) {
    FILE* fp;
    char* buf = NULL;
    size_t cap = 0, len = 0;
    *data = NULL;
    *size = 0;
    fp = fopen(path, "rb");
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot open '%.600s': %s", fn, path, strerror(errno));
    for (;;) {
        size_t got;
        if (len + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char* nb;
            if (cap > max) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%.600s' is larger than %zu bytes", fn, path, max);
            }
            nb = (char*)aicf__realloc(ctx, buf, cap, ncap + 1);
            if (!nb) {
                fclose(fp);
                aicf__free(ctx, buf);
                return aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%.600s'", fn, path);
            }
            buf = nb;
            cap = ncap + 1;
        }
        got = fread(buf + len, 1, cap - 1 - len, fp);
        len += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        fclose(fp);
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_IO, "%s: error reading '%.600s'", fn, path);
    }
    fclose(fp);
    if (len > max) {
        aicf__free(ctx, buf);
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: '%.600s' is larger than %zu bytes", fn, path, max);
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return AICF_SUCCESS;
}

static aicf_result aicf__io_write(aicf_context* ctx, const char* fn, const char* path, const char* data, size_t size) {
    FILE* fp = fopen(path, "wb");
    int bad;
    if (!fp) return aicf__err(ctx, AICF_ERROR_IO, "%s: cannot create '%.600s': %s", fn, path, strerror(errno));
    bad = size && fwrite(data, 1, size, fp) != size;
    if (fclose(fp) != 0) bad = 1;
    if (bad) return aicf__err(ctx, AICF_ERROR_IO, "%s: error writing '%.600s'", fn, path);
    return AICF_SUCCESS;
}

/* Formats into a fresh aicf__malloc'd, NUL-terminated buffer with a (buf, cap, needed) writer. */
typedef aicf_result (*aicf__io_writer)(const aicf_plan* p, char* buf, size_t cap, size_t* needed);

static aicf_result aicf__io_render(const aicf_plan* p, aicf__io_writer w, char** out, size_t* len) {
    size_t need = 0, need2 = 0;
    aicf_result r;
    char* buf;
    *out = NULL;
    *len = 0;
    if ((r = w(p, NULL, 0, &need)) != AICF_SUCCESS) return r;
    buf = (char*)aicf__malloc(p->ctx, need);
    if (!buf) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "out of memory formatting the plan (%zu bytes)", need);
    if ((r = w(p, buf, need, &need2)) != AICF_SUCCESS || need2 != need) {
        aicf__free(p->ctx, buf);
        return r != AICF_SUCCESS ? r : aicf__err(p->ctx, AICF_ERROR_STATE, "the plan text changed between two passes");
    }
    *out = buf;
    *len = need - 1;
    return AICF_SUCCESS;
}

/* ---- policy text ---- */
static const char* const aicf__io_precisions[4] = {"default", "fp32", "tf32", "fp16"};
static const char* const aicf__io_conv_algos[4] = {"auto", "direct", "im2col_gemm", "implicit_gemm_tc"};
static const char* const aicf__io_matmul_algos[3] = {"auto", "cublaslt", "generated"};

enum {
    AICF__POL_PRECISION = 0,
    AICF__POL_FALLBACK,
    AICF__POL_WORKSPACE,
    AICF__POL_NO_FUSION,
    AICF__POL_CONV,
    AICF__POL_MATMUL,
    AICF__POL_PERSISTENT,
    AICF__POL_COUNT
};
static const char* const aicf__io_policy_keys[AICF__POL_COUNT] = {
    "precision", "allow_cpu_fallback", "workspace_limit", "no_fusion", "conv_algo", "matmul_algo", "persistent"};

/* The policy's lines, each `prefix` key = value. INVALID_ARGUMENT for an enum out of range. */
static aicf_result aicf__policy_write(aicf__sbuf* b, const aicf_policy* pol, const char* prefix) {
    if ((int)pol->precision < 0 || (int)pol->precision > 3 || (int)pol->conv_algo < 0 || (int)pol->conv_algo > 3 ||
        (int)pol->matmul_algo < 0 || (int)pol->matmul_algo > 2)
        return AICF_ERROR_INVALID_ARGUMENT;
    aicf__sbuf_printf(b, "%sprecision = %s\n", prefix, aicf__io_precisions[pol->precision]);
    aicf__sbuf_printf(b, "%sallow_cpu_fallback = %d\n", prefix, pol->allow_cpu_fallback ? 1 : 0);
    aicf__sbuf_printf(b, "%sworkspace_limit = %llu\n", prefix, (unsigned long long)pol->workspace_limit);
    aicf__sbuf_printf(b, "%sno_fusion = %d\n", prefix, pol->no_fusion ? 1 : 0);
    aicf__sbuf_printf(b, "%sconv_algo = %s\n", prefix, aicf__io_conv_algos[pol->conv_algo]);
    aicf__sbuf_printf(b, "%smatmul_algo = %s\n", prefix, aicf__io_matmul_algos[pol->matmul_algo]);
    aicf__sbuf_printf(b, "%spersistent = %d\n", prefix, pol->persistent ? 1 : 0);
    return AICF_SUCCESS;
}

aicf_result aicf_policy_format(const aicf_policy* policy, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_result r;
    if (needed) *needed = 0;
    if (!policy) return AICF_ERROR_INVALID_ARGUMENT;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "# aicf policy (aicf_policy_parse): absent keys keep their defaults\n");
    r = aicf__policy_write(&b, policy, "");
    if (r != AICF_SUCCESS) {
        if (buf && cap) buf[0] = 0;
        return r;
    }
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

static int aicf__io_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static int aicf__io_word(const char* s, size_t n, const char* w) { return strlen(w) == n && memcmp(s, w, n) == 0; }

/* One line of policy text (n bytes, no '\n') into *pol; `seen` tracks keys given. Errors are
   `code` with "fn: line N: ..." naming the key and value. */
static aicf_result aicf__policy_line(aicf_context* ctx, const char* fn, aicf_result code, int line, const char* s, size_t n,
                                     aicf_policy* pol, unsigned* seen) {
    const char *eq, *k, *v;
    size_t kn, vn, i;
    int key = -1;
    char show[96], show2[96];
    for (i = 0; i < n; i++) {
        if (s[i] == '#') break;
        if (s[i] == 0) return aicf__err(ctx, code, "%s: line %d: NUL byte", fn, line);
    }
    n = i;
    while (n && aicf__io_space(s[n - 1])) n--;
    while (n && aicf__io_space(*s)) s++, n--;
    if (n == 0) return AICF_SUCCESS;
    eq = (const char*)memchr(s, '=', n);
    if (!eq) return aicf__err(ctx, code, "%s: line %d: expected 'key = value', got '%s'", fn, line, aicf__io_show(s, n, 60, show, sizeof show));
    k = s;
    kn = (size_t)(eq - s);
    while (kn && aicf__io_space(k[kn - 1])) kn--;
    v = eq + 1;
    vn = n - (size_t)(v - s);
    while (vn && aicf__io_space(*v)) v++, vn--;
    if (kn == 0) return aicf__err(ctx, code, "%s: line %d: no key before '='", fn, line);
    for (i = 0; i < AICF__POL_COUNT; i++)
        if (aicf__io_word(k, kn, aicf__io_policy_keys[i])) key = (int)i;
    if (key < 0)
        return aicf__err(ctx, code,
                         "%s: line %d: unknown key '%s' (keys: precision, allow_cpu_fallback, workspace_limit, no_fusion, conv_algo, "
                         "matmul_algo, persistent)", fn, line, aicf__io_show(k, kn, 60, show, sizeof show));
    if (*seen & (1u << key)) return aicf__err(ctx, code, "%s: line %d: key '%s' given twice", fn, line, aicf__io_policy_keys[key]);
    *seen |= 1u << key;
    if (vn == 0) return aicf__err(ctx, code, "%s: line %d: key '%s' has no value", fn, line, aicf__io_policy_keys[key]);
    aicf__io_show(v, vn, 60, show2, sizeof show2);
    switch (key) {
    case AICF__POL_PRECISION:
        for (i = 0; i < 4; i++)
            if (aicf__io_word(v, vn, aicf__io_precisions[i])) {
                pol->precision = (aicf_precision)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'precision': value '%s' is not one of default, fp32, tf32, fp16", fn, line, show2);
    case AICF__POL_CONV:
        for (i = 0; i < 4; i++)
            if (aicf__io_word(v, vn, aicf__io_conv_algos[i])) {
                pol->conv_algo = (aicf_conv_algo)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'conv_algo': value '%s' is not one of auto, direct, im2col_gemm, implicit_gemm_tc", fn, line, show2);
    case AICF__POL_MATMUL:
        for (i = 0; i < 3; i++)
            if (aicf__io_word(v, vn, aicf__io_matmul_algos[i])) {
                pol->matmul_algo = (aicf_matmul_algo)i;
                return AICF_SUCCESS;
            }
        return aicf__err(ctx, code, "%s: line %d: key 'matmul_algo': value '%s' is not one of auto, cublaslt, generated", fn, line,
                         show2);
    case AICF__POL_FALLBACK:
    case AICF__POL_PERSISTENT:
    case AICF__POL_NO_FUSION: {
        int b = -1;
        if (aicf__io_word(v, vn, "1") || aicf__io_word(v, vn, "true") || aicf__io_word(v, vn, "yes") || aicf__io_word(v, vn, "on")) b = 1;
        if (aicf__io_word(v, vn, "0") || aicf__io_word(v, vn, "false") || aicf__io_word(v, vn, "no") || aicf__io_word(v, vn, "off")) b = 0;
        if (b < 0)
            return aicf__err(ctx, code, "%s: line %d: key '%s': value '%s' is not 0, 1, true, false, yes, no, on or off", fn, line,
                             aicf__io_policy_keys[key], show2);
        if (key == AICF__POL_FALLBACK) pol->allow_cpu_fallback = b;
        else if (key == AICF__POL_PERSISTENT) pol->persistent = b;
        else pol->no_fusion = b;
        return AICF_SUCCESS;
    }
    default: { /* workspace_limit: bytes, optionally with a unit B, KiB, MiB, GiB (or K, M, G) */
        size_t dn = 0, un;
        const char* u;
        uint64_t val, mul = 1;
        while (vn > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9') v++, vn--; /* leading zeros */
        while (dn < vn && v[dn] >= '0' && v[dn] <= '9') dn++;
        u = v + dn;
        un = vn - dn;
        while (un && aicf__io_space(*u)) u++, un--;
        if (un == 0 || aicf__io_word(u, un, "B")) mul = 1;
        else if (aicf__io_word(u, un, "K") || aicf__io_word(u, un, "KiB")) mul = (uint64_t)1 << 10;
        else if (aicf__io_word(u, un, "M") || aicf__io_word(u, un, "MiB")) mul = (uint64_t)1 << 20;
        else if (aicf__io_word(u, un, "G") || aicf__io_word(u, un, "GiB")) mul = (uint64_t)1 << 30;
        else dn = 0;
        if (dn == 0 || !aicf__io_dec(v, dn, (uint64_t)SIZE_MAX, &val) || val > (uint64_t)SIZE_MAX / mul)
            return aicf__err(ctx, code,
                             "%s: line %d: key 'workspace_limit': value '%s' is not a byte count (digits, optionally B, KiB, MiB or "
                             "GiB) that fits size_t", fn, line, show2);
        pol->workspace_limit = (size_t)(val * mul);
        return AICF_SUCCESS;
    }
    }
}

static aicf_result aicf__policy_parse(aicf_context* ctx, const char* fn, const char* text, size_t len, aicf_policy* out) {
    aicf_policy pol;
    unsigned seen = 0;
    size_t pos = 0;
    int line = 0;
    memset(&pol, 0, sizeof pol);
    if (len > AICF__IO_MAX_POLICY)
        return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: %zu bytes of policy text, more than %zu", fn, len, AICF__IO_MAX_POLICY);
    while (pos < len) {
        const char* nl = (const char*)memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        aicf_result r;
        line++;
        if (n > AICF__IO_MAX_POLICY_LINE)
            return aicf__err(ctx, AICF_ERROR_INVALID_ARGUMENT, "%s: line %d is longer than %zu bytes", fn, line,
                             AICF__IO_MAX_POLICY_LINE);
        r = aicf__policy_line(ctx, fn, AICF_ERROR_INVALID_ARGUMENT, line, text + pos, n, &pol, &seen);
        if (r != AICF_SUCCESS) return r;
        pos += n + (nl ? 1 : 0);
    }
    *out = pol;
    return AICF_SUCCESS;
}

aicf_result aicf_policy_parse(aicf_context* ctx, const char* text, size_t len, aicf_policy* out) {
    if (!out || (!text && len)) return AICF_ERROR_INVALID_ARGUMENT;
    return aicf__policy_parse(ctx, "aicf_policy_parse", text ? text : "", len, out);
}

aicf_result aicf_policy_save(aicf_context* ctx, const aicf_policy* policy, const char* path) {
    char buf[1024];
    size_t need = 0;
    aicf_result r;
    if (!ctx || !policy || !path) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf_policy_format(policy, buf, sizeof buf, &need);
    if (r != AICF_SUCCESS)
        return aicf__err(ctx, r, "aicf_policy_save: the policy has an enum value out of range (precision %d, conv_algo %d, matmul_algo %d)",
                         (int)policy->precision, (int)policy->conv_algo, (int)policy->matmul_algo);
    if (need > sizeof buf) return aicf__err(ctx, AICF_ERROR_STATE, "aicf_policy_save: policy text of %zu bytes", need);
    return aicf__io_write(ctx, "aicf_policy_save", path, buf, need - 1);
}

aicf_result aicf_policy_load(aicf_context* ctx, const char* path, aicf_policy* out) {
    char* data = NULL;
    size_t size = 0;
    aicf_result r;
    if (!ctx || !path || !out) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_read(ctx, "aicf_policy_load", path, AICF__IO_MAX_POLICY, &data, &size);
    if (r != AICF_SUCCESS) return r;
    r = aicf__policy_parse(ctx, "aicf_policy_load", data, size, out);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
        r = aicf__err(ctx, r, "%.300s: %s", path, msg);
    }
    aicf__free(ctx, data);
    return r;
}

/* ---- plan files: the header lines ---- */
static const char* aicf__io_backend_name(aicf_backend b) {
    return b == AICF_BACKEND_CPU ? "cpu" : b == AICF_BACKEND_CUDA ? "cuda" : "default";
}

static void aicf__io_line_table(aicf__sbuf* b) {
    const char* nvrtc = "";
    int nm = 0, nk = 0;
    uint64_t fp = aicf__cuda_table_fingerprint(&nvrtc, &nm, &nk);
    aicf__sbuf_printf(b, "kernel_table fingerprint=%016llx nvrtc=", (unsigned long long)fp);
    aicf__io_qstr(b, nvrtc);
    aicf__sbuf_printf(b, " modules=%d kernels=%d\n", nm, nk);
}

static void aicf__io_line_backend(aicf__sbuf* b, aicf_backend requested, aicf_backend target) {
    aicf__sbuf_printf(b, "backend requested=%s target=%s\n", aicf__io_backend_name(requested), aicf__io_backend_name(target));
}

/* "device cpu", or the CUDA device and the cuBLASLt line (both need the device). */
static aicf_result aicf__io_line_device(aicf_context* ctx, aicf_backend target, aicf__sbuf* dev, aicf__sbuf* lt) {
    aicf_device_info di;
    aicf_result r;
    if (target != AICF_BACKEND_CUDA) {
        aicf__sbuf_printf(dev, "device cpu\n");
        return AICF_SUCCESS;
    }
    r = aicf_context_device_info(ctx, &di);
    if (r != AICF_SUCCESS) return r;
    aicf__sbuf_printf(dev, "device sm=%d name=", di.cc_major * 10 + di.cc_minor);
    aicf__io_qstr(dev, di.name);
    aicf__sbuf_put(dev, "\n", 1);
    if (di.cublaslt_available) aicf__sbuf_printf(lt, "cublaslt version=%llu\n", (unsigned long long)di.cublaslt_version);
    else aicf__sbuf_printf(lt, "cublaslt none\n");
    return AICF_SUCCESS;
}

static void aicf__io_line_model(aicf__sbuf* b, uint64_t fp) {
    aicf__sbuf_printf(b, "model fingerprint=%016llx\n", (unsigned long long)fp);
}

static const char* aicf__io_space_name(aicf__space s) {
    return s == AICF__SPACE_ARENA ? "arena" : s == AICF__SPACE_WEIGHTS ? "weights" : "none";
}

static const char* aicf__io_shape(const aicf__shape* s, char* buf, size_t cap) {
    if (s->rank < 0 || s->rank > AICF_MAX_RANK) {
        snprintf(buf, cap, "[?]");
        return buf;
    }
    return aicf__shape_str(s, buf, cap);
}

static void aicf__io_patches(aicf__sbuf* b, const aicf__cuda_op_view* v) {
    int k;
    aicf__sbuf_printf(b, " patch=");
    if (v->n_patch == 0) aicf__sbuf_put(b, "-", 1);
    for (k = 0; k < v->n_patch && k < AICF__CUDA_VIEW_MAX_PATCH; k++) {
        if (v->patch_tensor[k] == -2)
            aicf__sbuf_printf(b, "%s%u:scratch+%llu", k ? "," : "", v->patch_field[k], (unsigned long long)v->patch_add[k]);
        else if (v->patch_tensor[k] == -3)
            aicf__sbuf_printf(b, "%s%u:sync+%llu", k ? "," : "", v->patch_field[k], (unsigned long long)v->patch_add[k]);
        else
            aicf__sbuf_printf(b, "%s%u:%d+%llu", k ? "," : "", v->patch_field[k], v->patch_tensor[k],
                              (unsigned long long)v->patch_add[k]);
    }
}

aicf_result aicf_plan_serialize(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    const aicf_graph* g;
    aicf_result r;
    int i, j, k, live = 0;
    char sh[200];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "%s\n", AICF__IO_MAGIC);
    aicf__sbuf_printf(&b, "# aicf plan (docs/plan_format.md): aicf_plan_load re-plans with this policy and these cuBLASLt "
                          "algorithms and refuses any difference\n");
    aicf__io_line_table(&b);
    aicf__io_line_backend(&b, p->requested, p->target);
    {
        char dbuf[600], lbuf[64];
        aicf__sbuf dev, lt;
        aicf__sbuf_init(&dev, dbuf, sizeof dbuf);
        aicf__sbuf_init(&lt, lbuf, sizeof lbuf);
        r = aicf__io_line_device(p->ctx, p->target, &dev, &lt);
        if (r != AICF_SUCCESS) {
            if (buf && cap) buf[0] = 0;
            return r;
        }
        aicf__sbuf_put(&b, dbuf, strlen(dbuf));
        aicf__sbuf_put(&b, lbuf, strlen(lbuf));
    }
    aicf__io_line_model(&b, p->model_fingerprint);
    r = aicf__policy_write(&b, &p->policy, "policy ");
    if (r != AICF_SUCCESS) {
        if (buf && cap) buf[0] = 0;
        return aicf__err(p->ctx, r, "aicf_plan_serialize: the plan's policy has an enum value out of range");
    }
    for (i = 0; i < g->n_nodes; i++) live += !g->nodes[i].removed;
    aicf__sbuf_printf(&b, "plan nodes=%d live_nodes=%d tensors=%d steps=%d inputs=%d outputs=%d\n", g->n_nodes, live, g->n_tensors,
                      p->n_steps, p->n_in, p->n_out);
    for (i = 0; i < p->n_in; i++) aicf__sbuf_printf(&b, "input %d tensor=%d boundary=%d\n", i, p->in_tensor[i], p->in_boundary[i]);
    for (i = 0; i < p->n_out; i++) aicf__sbuf_printf(&b, "output %d tensor=%d boundary=%d\n", i, p->out_tensor[i], p->out_boundary[i]);
    /* storage: every tensor that has some */
    for (i = 0; i < g->n_tensors; i++) {
        const aicf__loc* l = &p->loc[i];
        const aicf__tensor* t = &g->tensors[i];
        if (l->space == AICF__SPACE_NONE) continue;
        aicf__sbuf_printf(&b, "tensor %d name=", i);
        aicf__io_qstr(&b, t->name);
        aicf__sbuf_printf(&b, " dtype=%s shape=%s space=%s offset=%zu bytes=%zu storage=%s alias=%d\n", aicf_dtype_name(t->dtype),
                          aicf__io_shape(&t->shape, sh, sizeof sh), aicf__io_space_name(l->space), l->offset, l->bytes,
                          aicf_dtype_name(l->sdtype), l->alias_of);
    }
    /* steps */
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        int n_ops, n_algo = 0;
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes) {
            const aicf__node* n = &g->nodes[st->node];
            aicf__sbuf_printf(&b, "step %d kind=node node=%d op=", i, st->node);
            aicf__io_qstr(&b, n->op_type);
            aicf__sbuf_put(&b, " name=", 6);
            aicf__io_qstr(&b, n->name);
        } else {
            aicf__sbuf_printf(&b, "step %d kind=cast", i);
        }
        aicf__sbuf_put(&b, " kernel=", 8);
        aicf__io_qstr(&b, st->kernel);
        aicf__sbuf_printf(&b, " grid=%u,%u,%u block=%u,%u,%u shared=%u scratch=%zu@%zu epi_native=%d\n", st->grid[0], st->grid[1],
                          st->grid[2], st->block[0], st->block[1], st->block[2], st->shared_bytes, st->scratch_bytes,
                          st->scratch_bytes ? st->scratch_offset : (size_t)0, st->epi_native);
        aicf__sbuf_put(&b, "  in", 4);
        for (j = 0; j < st->n_in; j++) aicf__sbuf_printf(&b, " %d", st->in[j]);
        aicf__sbuf_put(&b, "\n  out", 6);
        for (j = 0; j < st->n_out; j++) aicf__sbuf_printf(&b, " %d", st->out[j]);
        aicf__sbuf_put(&b, "\n", 1);
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            const aicf__epi* e = &st->epi[j];
            const aicf__node* en = (e->node >= 0 && e->node < g->n_nodes) ? &g->nodes[e->node] : NULL;
            aicf__sbuf_printf(&b, "  fused %d node=%d op=", j, e->node);
            aicf__io_qstr(&b, en ? en->op_type : "?");
            aicf__sbuf_put(&b, " name=", 6);
            aicf__io_qstr(&b, en ? en->name : "?");
            aicf__sbuf_printf(&b, " operand=%d left=%d alpha=%.9g beta=%.9g\n", e->operand, e->operand_left, (double)e->alpha,
                              (double)e->beta);
        }
        aicf__sbuf_put(&b, "  reason ", 9);
        aicf__io_qstr(&b, st->reason);
        aicf__sbuf_put(&b, "\n", 1);
        n_ops = aicf__cuda_step_ops(p, i, &n_algo);
        for (k = 0; k < n_ops; k++) {
            aicf__cuda_op_view v;
            aicf__cuda_step_op(p, i, k, &v);
            if (v.kind == 1) {
                aicf__sbuf_printf(&b, "  op %d kernel name=", k);
                aicf__io_qstr(&b, v.kernel_name);
                aicf__sbuf_printf(&b, " grid=%u,%u,%u block=%u,%u,%u shared=%u args=", v.grid[0], v.grid[1], v.grid[2], v.block[0],
                                  v.block[1], v.block[2], v.shared_bytes);
                aicf__io_hex(&b, v.args, v.args_size);
            } else if (v.kind == 2) {
                aicf__sbuf_printf(&b, "  op %d copy bytes=%llu", k, (unsigned long long)v.copy_bytes);
            } else {
                aicf__sbuf_printf(&b, "  op %d matmul algo=%d args=", k, v.algo);
                aicf__io_hex(&b, v.args, v.args_size);
            }
            aicf__io_patches(&b, &v);
            aicf__sbuf_put(&b, "\n", 1);
        }
        for (k = 0; k < n_algo; k++) {
            aicf__algo_rec a;
            int w;
            aicf__cuda_step_algo(p, i, k, &a);
            aicf__sbuf_printf(&b, "  algo %d blob=", k);
            for (w = 0; w < 8; w++) aicf__sbuf_printf(&b, "%s%016llx", w ? "," : "", (unsigned long long)a.blob[w]);
            aicf__sbuf_printf(&b, " workspace=%llu cublaslt=%llu align=%u,%u,%u,%u results=%d\n", (unsigned long long)a.workspace_bytes,
                              (unsigned long long)a.cublaslt_version, a.align[0], a.align[1], a.align[2], a.align[3], a.n_results);
        }
    }
    aicf__sbuf_printf(&b, "memory arena=%zu lower_bound=%zu weights=%zu order=%d\n", p->arena_bytes, p->arena_lower_bound,
                      p->weights_bytes, p->mem_order);
    aicf__sbuf_printf(&b, "end\n");
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

aicf_result aicf_plan_save(const aicf_plan* p, const char* path) {
    char* text = NULL;
    size_t len = 0;
    aicf_result r;
    if (!p || !path) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_render(p, aicf_plan_serialize, &text, &len);
    if (r != AICF_SUCCESS) return r;
    r = aicf__io_write(p->ctx, "aicf_plan_save", path, text, len);
    aicf__free(p->ctx, text);
    return r;
}

/* ---- plan files: loading ---- */

/* The next line of data[0..size) from *pos (without its '\n'); 0 at the end. */
static int aicf__io_next(const char* data, size_t size, size_t* pos, const char** line, size_t* n) {
    const char* nl;
    if (*pos >= size) return 0;
    *line = data + *pos;
    nl = (const char*)memchr(*line, '\n', size - *pos);
    *n = nl ? (size_t)(nl - *line) : size - *pos;
    *pos += *n + (nl ? 1 : 0);
    return 1;
}

static int aicf__io_starts(const char* s, size_t n, const char* prefix) {
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* Value of token `key=` on a line of space-separated tokens (quoted values skipped whole).
   Returns 1 with *v, *vn (the raw value), 0 if absent. */
static int aicf__io_field(const char* s, size_t n, const char* key, const char** v, size_t* vn) {
    size_t i = 0, kl = strlen(key);
    while (i < n) {
        size_t start, j;
        while (i < n && s[i] == ' ') i++;
        start = i;
        j = i;
        while (j < n && s[j] != ' ' && s[j] != '=') j++;
        if (j < n && s[j] == '=') {
            size_t vs = j + 1, ve = vs;
            if (ve < n && s[ve] == '"') {
                ve++;
                while (ve < n && s[ve] != '"') ve += (s[ve] == '\\' && ve + 1 < n) ? 2 : 1;
                if (ve < n) ve++;
            }
            while (ve < n && s[ve] != ' ') ve++;
            if (j - start == kl && memcmp(s + start, key, kl) == 0) {
                *v = s + vs;
                *vn = ve - vs;
                return 1;
            }
            i = ve;
        } else {
            i = j;
        }
    }
    return 0;
}

/* Comma-separated list of exactly `count` decimal numbers <= max. */
static int aicf__io_dec_list(const char* s, size_t n, int count, uint64_t max, uint64_t* out) {
    int k;
    for (k = 0; k < count; k++) {
        const char* c = k + 1 < count ? (const char*)memchr(s, ',', n) : NULL;
        size_t len = c ? (size_t)(c - s) : n;
        if (k + 1 < count && !c) return 0;
        if (!aicf__io_dec(s, len, max, &out[k])) return 0;
        if (c) {
            n -= len + 1;
            s = c + 1;
        }
    }
    return 1;
}

typedef struct aicf__io_mm { /* a matmul op line: its step, algorithm index and descriptor */
    int step, algo, line;
    aicf__matmul_desc desc;
} aicf__io_mm;

typedef struct aicf__io_al { /* an algo line */
    int step, index, line;
    aicf__algo_rec rec;
} aicf__io_al;

typedef struct aicf__io_state {
    aicf_context* ctx;
    const char* fn;
    aicf__io_mm* mm;
    int n_mm, cap_mm;
    aicf__io_al* al;
    int n_al, cap_al;
} aicf__io_state;

static aicf_result aicf__io_bad(aicf__io_state* L, int line, const char* what, const char* s, size_t n) {
    char show[160];
    return aicf__err(L->ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: %s: '%s'", L->fn, line, what,
                     aicf__io_show(s, n, 120, show, sizeof show));
}

/* "  op K matmul algo=A args=HEX ..." */
static aicf_result aicf__io_parse_mm(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    const char *v;
    size_t vn;
    uint64_t a;
    aicf__io_mm* m;
    if (step < 0) return aicf__io_bad(L, line, "an op line before the first step", s, n);
    if (!aicf__grow(L->ctx, (void**)&L->mm, &L->cap_mm, L->n_mm + 1, sizeof *L->mm))
        return aicf__err(L->ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->fn);
    m = &L->mm[L->n_mm];
    memset(m, 0, sizeof *m);
    m->step = step;
    m->line = line;
    if (!aicf__io_field(s, n, "algo", &v, &vn) || !aicf__io_dec(v, vn, 1000, &a))
        return aicf__io_bad(L, line, "a matmul op needs algo=N", s, n);
    m->algo = (int)a;
    if (!aicf__io_field(s, n, "args", &v, &vn) || !aicf__io_unhex(v, vn, (unsigned char*)&m->desc, sizeof m->desc))
        return aicf__io_bad(L, line, "a matmul op needs args= with the descriptor's bytes in hex", s, n);
    L->n_mm++;
    return AICF_SUCCESS;
}

/* "  algo K blob=X,..(8) workspace=N cublaslt=N align=a,b,c,d results=N" */
static aicf_result aicf__io_parse_algo(aicf__io_state* L, int line, int step, const char* s, size_t n) {
    const char *v;
    size_t vn;
    uint64_t x, al[4];
    aicf__io_al* a;
    int w;
    if (step < 0) return aicf__io_bad(L, line, "an algo line before the first step", s, n);
    if (!aicf__grow(L->ctx, (void**)&L->al, &L->cap_al, L->n_al + 1, sizeof *L->al))
        return aicf__err(L->ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->fn);
    a = &L->al[L->n_al];
    memset(a, 0, sizeof *a);
    a->step = step;
    a->line = line;
    {
        size_t p = 7; /* "  algo " */
        size_t e = p;
        while (e < n && s[e] != ' ') e++;
        if (!aicf__io_dec(s + p, e - p, 1000, &x)) return aicf__io_bad(L, line, "an algo line needs its index", s, n);
        a->index = (int)x;
    }
    if (!aicf__io_field(s, n, "blob", &v, &vn) || vn != 8 * 16 + 7)
        return aicf__io_bad(L, line, "an algo line needs blob= with 8 comma-separated 16-digit hex words", s, n);
    for (w = 0; w < 8; w++)
        if (!aicf__io_hex64(v + 17 * w, 16, &a->rec.blob[w]) || (w < 7 && v[17 * w + 16] != ','))
            return aicf__io_bad(L, line, "an algo line needs blob= with 8 comma-separated 16-digit hex words", s, n);
    if (!aicf__io_field(s, n, "workspace", &v, &vn) || !aicf__io_dec(v, vn, (uint64_t)SIZE_MAX, &a->rec.workspace_bytes))
        return aicf__io_bad(L, line, "an algo line needs workspace=BYTES", s, n);
    if (!aicf__io_field(s, n, "cublaslt", &v, &vn) || !aicf__io_dec(v, vn, UINT64_MAX, &a->rec.cublaslt_version))
        return aicf__io_bad(L, line, "an algo line needs cublaslt=VERSION", s, n);
    if (!aicf__io_field(s, n, "align", &v, &vn) || !aicf__io_dec_list(v, vn, 4, 256, al))
        return aicf__io_bad(L, line, "an algo line needs align=A,B,C,D (bytes, at most 256)", s, n);
    for (w = 0; w < 4; w++) a->rec.align[w] = (unsigned)al[w];
    if (!aicf__io_field(s, n, "results", &v, &vn) || !aicf__io_dec(v, vn, 1000, &x))
        return aicf__io_bad(L, line, "an algo line needs results=N", s, n);
    a->rec.n_results = (int)x;
    L->n_al++;
    return AICF_SUCCESS;
}

/* Compares the file with the rebuilt plan's text: the first differing line, or 0 if equal. */
static int aicf__io_first_diff(const char* a, size_t an, const char* b, size_t bn, const char** la, size_t* lan, const char** lb,
                               size_t* lbn) {
    size_t pa = 0, pb = 0;
    int line = 0;
    for (;;) {
        int ha = aicf__io_next(a, an, &pa, la, lan), hb = aicf__io_next(b, bn, &pb, lb, lbn);
        line++;
        if (!ha && !hb) return (an == bn) ? 0 : line; /* only a final '\n' differs */
        if (!ha) *la = NULL, *lan = 0;
        if (!hb) *lb = NULL, *lbn = 0;
        if (!ha || !hb || *lan != *lbn || memcmp(*la, *lb, *lan) != 0) return line;
    }
}

static aicf_result aicf__io_load(aicf_graph* graph, const char* fn, const char* data, size_t size, aicf_plan** out) {
    aicf_context* ctx = graph->ctx;
    aicf__io_state L;
    aicf__saved_algos saved;
    aicf_plan* p = NULL;
    aicf_plan_desc pd;
    aicf_policy pol;
    aicf_result r = AICF_SUCCESS;
    aicf_backend requested = AICF_BACKEND_DEFAULT, target = AICF_BACKEND_CPU;
    const char *line, *hdr[5] = {NULL, NULL, NULL, NULL, NULL};
    size_t pos = 0, n, hdr_n[5] = {0, 0, 0, 0, 0};
    int ln = 0, hdr_ln[5] = {0, 0, 0, 0, 0}, step = -1, in_header = 1, i, j;
    unsigned seen = 0;
    char show[160], show2[160];
    static const char* const keys[5] = {"kernel_table ", "backend ", "device ", "cublaslt ", "model "};
    enum { H_TABLE, H_BACKEND, H_DEVICE, H_CUBLASLT, H_MODEL };
    memset(&L, 0, sizeof L);
    memset(&saved, 0, sizeof saved);
    memset(&pol, 0, sizeof pol);
    L.ctx = ctx;
    L.fn = fn;
    if (size > AICF__IO_MAX_FILE) return aicf__err(ctx, AICF_ERROR_LIMIT, "%s: %zu bytes, more than %zu", fn, size, AICF__IO_MAX_FILE);
    /* format */
    if (!aicf__io_next(data, size, &pos, &line, &n))
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: empty file: not an aicf plan", fn);
    ln = 1;
    if (!(n == strlen(AICF__IO_MAGIC) && memcmp(line, AICF__IO_MAGIC, n) == 0)) {
        if (aicf__io_starts(line, n, "aicf-plan "))
            return aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line 1: plan file format '%s'; this library reads and writes '%s'", fn,
                             aicf__io_show(line, n, 60, show, sizeof show), AICF__IO_MAGIC);
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line 1: '%s' is not an aicf plan header (expected '%s')", fn,
                         aicf__io_show(line, n, 60, show, sizeof show), AICF__IO_MAGIC);
    }
    /* complete? */
    if (size < 5 || memcmp(data + size - 5, "\nend\n", 5) != 0) {
        size_t p2 = 0, lastn = 0;
        const char* last = data;
        int lines = 0;
        while (aicf__io_next(data, size, &p2, &line, &n)) {
            last = line;
            lastn = n;
            lines++;
        }
        return aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: the file does not end with the line 'end' (truncated?): last line '%s'",
                         fn, lines, aicf__io_show(last, lastn, 80, show, sizeof show));
    }
    /* one pass over the lines: header, policy, cuBLASLt records */
    while (aicf__io_next(data, size, &pos, &line, &n)) {
        ln++;
        if (n > AICF__IO_MAX_LINE) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d is longer than %zu bytes", fn, ln, AICF__IO_MAX_LINE);
            goto done;
        }
        if (memchr(line, 0, n)) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: NUL byte", fn, ln);
            goto done;
        }
        if (in_header) {
            if (aicf__io_starts(line, n, "plan ")) {
                in_header = 0;
                continue;
            }
            if (aicf__io_starts(line, n, "policy ")) {
                r = aicf__policy_line(ctx, fn, AICF_ERROR_INVALID_MODEL, ln, line + 7, n - 7, &pol, &seen);
                if (r != AICF_SUCCESS) goto done;
                continue;
            }
            for (i = 0; i < 5; i++)
                if (!hdr[i] && aicf__io_starts(line, n, keys[i])) {
                    hdr[i] = line;
                    hdr_n[i] = n;
                    hdr_ln[i] = ln;
                    break;
                }
            continue;
        }
        if (aicf__io_starts(line, n, "step ")) {
            size_t e = 5;
            uint64_t v;
            while (e < n && line[e] != ' ') e++;
            if (!aicf__io_dec(line + 5, e - 5, (uint64_t)INT32_MAX, &v)) {
                r = aicf__io_bad(&L, ln, "a step line needs its index", line, n);
                goto done;
            }
            step = (int)v;
        } else if (aicf__io_starts(line, n, "  op ")) {
            const char* sp = (const char*)memchr(line + 5, ' ', n - 5);
            if (sp && aicf__io_starts(sp, n - (size_t)(sp - line), " matmul ")) {
                r = aicf__io_parse_mm(&L, ln, step, line, n);
                if (r != AICF_SUCCESS) goto done;
            }
        } else if (aicf__io_starts(line, n, "  algo ")) {
            r = aicf__io_parse_algo(&L, ln, step, line, n);
            if (r != AICF_SUCCESS) goto done;
        }
    }
    for (i = 0; i < 5; i++)
        if (!hdr[i] && !(i == H_CUBLASLT)) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: no '%.*s' line before the 'plan' line", fn, (int)strlen(keys[i]) - 1,
                          keys[i]);
            goto done;
        }
    if (in_header) {
        r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: no 'plan' line: not a complete plan file", fn);
        goto done;
    }
    /* the kernel table this build has */
    {
        char tb[256];
        aicf__sbuf b;
        aicf__sbuf_init(&b, tb, sizeof tb);
        aicf__io_line_table(&b);
        if (strlen(tb) != hdr_n[H_TABLE] + 1 || memcmp(tb, hdr[H_TABLE], hdr_n[H_TABLE]) != 0) {
            tb[strlen(tb) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the kernel table differs (regenerated kernels or another aicf build): the file has '%s', this "
                          "build '%s'", fn, hdr_ln[H_TABLE], aicf__io_show(hdr[H_TABLE], hdr_n[H_TABLE], 140, show, sizeof show), tb);
            goto done;
        }
    }
    /* backend */
    {
        static const aicf_backend req[3] = {AICF_BACKEND_DEFAULT, AICF_BACKEND_CPU, AICF_BACKEND_CUDA};
        int found = 0;
        for (i = 0; i < 3 && !found; i++)
            for (j = 1; j < 3 && !found; j++) {
                char bb[96];
                aicf__sbuf b;
                aicf__sbuf_init(&b, bb, sizeof bb);
                aicf__io_line_backend(&b, req[i], req[j]);
                if (strlen(bb) == hdr_n[H_BACKEND] + 1 && memcmp(bb, hdr[H_BACKEND], hdr_n[H_BACKEND]) == 0) {
                    requested = req[i];
                    target = req[j];
                    found = 1;
                }
            }
        if (!found || (requested == AICF_BACKEND_CPU && target != AICF_BACKEND_CPU) ||
            (requested == AICF_BACKEND_CUDA && target != AICF_BACKEND_CUDA)) {
            r = aicf__io_bad(&L, hdr_ln[H_BACKEND], "expected 'backend requested=default|cpu|cuda target=cpu|cuda'", hdr[H_BACKEND],
                             hdr_n[H_BACKEND]);
            goto done;
        }
    }
    /* device and cuBLASLt */
    if (target == AICF_BACKEND_CUDA) {
        char dbuf[600], lbuf[64];
        aicf__sbuf dev, lt;
        aicf__sbuf_init(&dev, dbuf, sizeof dbuf);
        aicf__sbuf_init(&lt, lbuf, sizeof lbuf);
        r = aicf__io_line_device(ctx, target, &dev, &lt);
        if (r != AICF_SUCCESS) {
            char msg[AICF__ERR_CAP];
            snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line %d: the plan is for the CUDA device '%s', but this context has none: %.400s",
                          fn, hdr_ln[H_DEVICE], aicf__io_show(hdr[H_DEVICE], hdr_n[H_DEVICE], 120, show, sizeof show), msg);
            goto done;
        }
        if (strlen(dbuf) != hdr_n[H_DEVICE] + 1 || memcmp(dbuf, hdr[H_DEVICE], hdr_n[H_DEVICE]) != 0) {
            dbuf[strlen(dbuf) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the plan was made for another device or SM: the file has '%s', this device is '%s'", fn,
                          hdr_ln[H_DEVICE], aicf__io_show(hdr[H_DEVICE], hdr_n[H_DEVICE], 140, show, sizeof show),
                          aicf__io_show(dbuf, strlen(dbuf), 140, show2, sizeof show2));
            goto done;
        }
        if (!hdr[H_CUBLASLT]) {
            r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: a CUDA plan needs a 'cublaslt' line before the 'plan' line", fn);
            goto done;
        }
        if (strlen(lbuf) != hdr_n[H_CUBLASLT] + 1 || memcmp(lbuf, hdr[H_CUBLASLT], hdr_n[H_CUBLASLT]) != 0) {
            lbuf[strlen(lbuf) - 1] = 0;
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "%s: line %d: the plan was made with another cuBLASLt: the file has '%s', here '%s'",
                          fn, hdr_ln[H_CUBLASLT], aicf__io_show(hdr[H_CUBLASLT], hdr_n[H_CUBLASLT], 100, show, sizeof show), lbuf);
            goto done;
        }
    } else if (!aicf__io_word(hdr[H_DEVICE], hdr_n[H_DEVICE], "device cpu")) {
        r = aicf__io_bad(&L, hdr_ln[H_DEVICE], "a CPU plan's device line is 'device cpu'", hdr[H_DEVICE], hdr_n[H_DEVICE]);
        goto done;
    }
    /* the graph */
    {
        char mb[64];
        aicf__sbuf b;
        uint64_t fp = aicf__graph_fingerprint(graph);
        aicf__sbuf_init(&b, mb, sizeof mb);
        aicf__io_line_model(&b, fp);
        if (strlen(mb) != hdr_n[H_MODEL] + 1 || memcmp(mb, hdr[H_MODEL], hdr_n[H_MODEL]) != 0) {
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d: the graph is not the one the plan was made for (another model, other weights, other dim "
                          "bindings or bound inputs): the file has '%s', this graph 'model fingerprint=%016llx'", fn, hdr_ln[H_MODEL],
                          aicf__io_show(hdr[H_MODEL], hdr_n[H_MODEL], 80, show, sizeof show), (unsigned long long)fp);
            goto done;
        }
    }
    /* the recorded cuBLASLt algorithms, each with its descriptor */
    if (L.n_mm > 0) {
        saved.v = (aicf__saved_algo*)aicf__calloc(ctx, (size_t)L.n_mm, sizeof *saved.v);
        if (!saved.v) {
            r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
            goto done;
        }
        for (i = 0; i < L.n_mm; i++) {
            const aicf__io_al* a = NULL;
            for (j = 0; j < L.n_al && !a; j++)
                if (L.al[j].step == L.mm[i].step && L.al[j].index == L.mm[i].algo) a = &L.al[j];
            if (!a) {
                r = aicf__err(ctx, AICF_ERROR_INVALID_MODEL, "%s: line %d: the matmul uses algorithm %d, which step %d does not record", fn,
                              L.mm[i].line, L.mm[i].algo, L.mm[i].step);
                goto done;
            }
            saved.v[saved.n].desc = L.mm[i].desc;
            saved.v[saved.n].rec = a->rec;
            saved.v[saved.n].line = a->line;
            saved.n++;
        }
    }
    /* re-plan with the file's policy and algorithms */
    memset(&pd, 0, sizeof pd);
    pd.backend = requested;
    pd.policy = pol;
    r = aicf__plan_create_ex(graph, &pd, saved.n ? &saved : NULL, &p);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(ctx));
        r = aicf__err(ctx, r, "%s: planning with the file's policy failed: %.900s", fn, msg);
        goto done;
    }
    /* the rebuilt plan must be the file */
    {
        char* text = NULL;
        size_t len = 0;
        const char *la = NULL, *lb = NULL;
        size_t lan = 0, lbn = 0;
        int d;
        r = aicf__io_render(p, aicf_plan_serialize, &text, &len);
        if (r != AICF_SUCCESS) goto done;
        d = aicf__io_first_diff(data, size, text, len, &la, &lan, &lb, &lbn);
        if (d) {
            char note[400];
            note[0] = 0;
            for (i = 0; i < saved.n; i++)
                if (saved.v[i].refused[0]) {
                    snprintf(note, sizeof note, "; the cuBLASLt algorithm of line %d was refused: %.300s", saved.v[i].line,
                             saved.v[i].refused);
                    break;
                }
            r = aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH,
                          "%s: line %d differs from the plan rebuilt from the file's policy and cuBLASLt algorithms on this graph, build "
                          "and device: the file has '%s', the rebuilt plan '%s'%s",
                          fn, d, la ? aicf__io_show(la, lan, 150, show, sizeof show) : "(end of file)",
                          lb ? aicf__io_show(lb, lbn, 150, show2, sizeof show2) : "(end of plan)", note);
        }
        aicf__free(ctx, text);
    }
done:
    aicf__free(ctx, L.mm);
    aicf__free(ctx, L.al);
    aicf__free(ctx, saved.v);
    if (r != AICF_SUCCESS) {
        aicf_plan_destroy(p);
        return r;
    }
    *out = p;
    return AICF_SUCCESS;
}

aicf_result aicf_plan_load_memory(aicf_graph* graph, const void* data, size_t size, aicf_plan** out) {
    if (out) *out = NULL;
    if (!graph || !out || (!data && size)) return AICF_ERROR_INVALID_ARGUMENT;
    return aicf__io_load(graph, "aicf_plan_load_memory", data ? (const char*)data : "", size, out);
}

aicf_result aicf_plan_load(aicf_graph* graph, const char* path, aicf_plan** out) {
    char* data = NULL;
    size_t size = 0;
    aicf_result r;
    if (out) *out = NULL;
    if (!graph || !path || !out) return AICF_ERROR_INVALID_ARGUMENT;
    r = aicf__io_read(graph->ctx, "aicf_plan_load", path, AICF__IO_MAX_FILE, &data, &size);
    if (r != AICF_SUCCESS) return r;
    r = aicf__io_load(graph, "aicf_plan_load", data, size, out);
    if (r != AICF_SUCCESS) {
        char msg[AICF__ERR_CAP];
        snprintf(msg, sizeof msg, "%s", AICF__ERRBUF(graph->ctx));
        aicf__err(graph->ctx, r, "%.200s: %s", path, msg);
    }
    aicf__free(graph->ctx, data);
    return r;
}

/* ---- explain ---- */
static const char* aicf__io_bytes(double v, char* buf, size_t cap) {
    if (v >= 1073741824.0) snprintf(buf, cap, "%.1f GiB", v / 1073741824.0);
    else if (v >= 1048576.0) snprintf(buf, cap, "%.1f MiB", v / 1048576.0);
    else if (v >= 1024.0) snprintf(buf, cap, "%.1f KiB", v / 1024.0);
    else snprintf(buf, cap, "%.0f B", v);
    return buf;
}

static void aicf__io_tensor_brief(aicf__sbuf* b, const aicf_plan* p, int t) {
    char sh[200];
    const aicf__tensor* tt = &p->g->tensors[t];
    const aicf__loc* l = &p->loc[t];
    aicf__sbuf_printf(b, "'%s' %s %s", aicf__tname(p->g, t), aicf__io_shape(&tt->shape, sh, sizeof sh), aicf_dtype_name(l->sdtype));
    if (l->space != AICF__SPACE_NONE) aicf__sbuf_printf(b, " @%s+%zu (%zu B)", aicf__io_space_name(l->space), l->offset, l->bytes);
    if (l->alias_of >= 0) aicf__sbuf_printf(b, " alias of '%s'", aicf__tname(p->g, l->alias_of));
}

aicf_result aicf_plan_explain(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    aicf_plan_stats stats;
    const aicf_graph* g;
    int i, j, k;
    size_t scratch = 0;
    uint64_t ws = 0;
    char t1[32], t2[32];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    aicf__sbuf_init(&b, buf, cap);
    aicf_plan_stats_get(p, &stats);
    aicf__sbuf_printf(&b, "plan: backend %s (requested %s), precision %s, %d nodes, %d steps\n", aicf__io_backend_name(p->target),
                      aicf__io_backend_name(p->requested), aicf__precision_name(p->policy.precision), stats.num_nodes, stats.num_steps);
    aicf__sbuf_printf(&b, "policy: fusion %s%s, conv_algo %s, matmul_algo %s, cuBLASLt workspace limit %s, CPU fallback %s\n",
                      p->policy.no_fusion ? "off" : "on", p->policy.persistent ? " (persistent GEMM layers)" : "", aicf__io_conv_algos[(unsigned)p->policy.conv_algo % 4u],
                      aicf__io_matmul_algos[(unsigned)p->policy.matmul_algo % 3u],
                      p->policy.workspace_limit ? aicf__io_bytes((double)p->policy.workspace_limit, t1, sizeof t1) : "32 MiB (default)",
                      p->policy.allow_cpu_fallback ? "allowed" : "not allowed");
    if (p->target == AICF_BACKEND_CUDA) {
        aicf_device_info di;
        if (aicf_context_device_info(p->ctx, &di) == AICF_SUCCESS) {
            aicf__sbuf_printf(&b, "device: %s, sm_%d%d, ", di.name, di.cc_major, di.cc_minor);
            if (di.cublaslt_available) aicf__sbuf_printf(&b, "cuBLASLt %llu\n", (unsigned long long)di.cublaslt_version);
            else aicf__sbuf_printf(&b, "no cuBLASLt (GEMMs on generated kernels)\n");
        }
    }
    for (i = 0; i < p->n_in; i++) {
        aicf__sbuf_printf(&b, "input %d: ", i);
        aicf__io_tensor_brief(&b, p, p->in_boundary[i]);
        aicf__sbuf_put(&b, "\n", 1);
    }
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        int n_ops, n_algo = 0;
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes)
            aicf__sbuf_printf(&b, "step %d: %s '%s' (node %d)\n", i, g->nodes[st->node].op_type, g->nodes[st->node].name, st->node);
        else
            aicf__sbuf_printf(&b, "step %d: Cast at the API boundary (float32 <-> storage type)\n", i);
        if (st->n_epi > 0) {
            aicf__sbuf_printf(&b, "  fused nodes (%d, applied to the result in order):", st->n_epi);
            for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
                const aicf__epi* e = &st->epi[j];
                aicf__sbuf_printf(&b, "%s %s '%s'", j ? ";" : "", g->nodes[e->node].op_type, g->nodes[e->node].name);
                if (e->operand >= 0) aicf__sbuf_printf(&b, " with '%s'%s", aicf__tname(g, e->operand), e->operand_left ? " (left)" : "");
            }
            if (st->epi_native) aicf__sbuf_printf(&b, "; the first %d inside the main kernel", st->epi_native);
            aicf__sbuf_put(&b, "\n", 1);
        }
        for (j = 0; j < st->n_out; j++) {
            if (st->out[j] < 0) continue;
            aicf__sbuf_printf(&b, "  output %d: ", j);
            aicf__io_tensor_brief(&b, p, st->out[j]);
            aicf__sbuf_put(&b, "\n", 1);
        }
        aicf__sbuf_printf(&b, "  kernel: %s", st->kernel);
        if (st->block[0])
            aicf__sbuf_printf(&b, " grid(%u,%u,%u) block(%u,%u,%u) shared %u B", st->grid[0], st->grid[1], st->grid[2], st->block[0],
                              st->block[1], st->block[2], st->shared_bytes);
        if (st->scratch_bytes) {
            aicf__sbuf_printf(&b, ", arena scratch %s at +%zu", aicf__io_bytes((double)st->scratch_bytes, t1, sizeof t1), st->scratch_offset);
            scratch += st->scratch_bytes;
        }
        aicf__sbuf_put(&b, "\n", 1);
        n_ops = aicf__cuda_step_ops(p, i, &n_algo);
        if (n_ops > 1 || n_algo > 0)
            for (k = 0; k < n_ops; k++) {
                aicf__cuda_op_view v;
                aicf__cuda_step_op(p, i, k, &v);
                if (v.kind == 1) {
                    aicf__sbuf_printf(&b, "    launch %d: %s grid(%u,%u,%u) block(%u,%u,%u)", k + 1, v.kernel_name, v.grid[0], v.grid[1],
                                      v.grid[2], v.block[0], v.block[1], v.block[2]);
                    if (v.shared_bytes) aicf__sbuf_printf(&b, " shared %u B", v.shared_bytes);
                } else if (v.kind == 2) {
                    aicf__sbuf_printf(&b, "    launch %d: device-to-device copy of %s", k + 1,
                                      aicf__io_bytes((double)v.copy_bytes, t1, sizeof t1));
                } else {
                    aicf__matmul_desc md;
                    aicf__algo_rec a;
                    memset(&md, 0, sizeof md);
                    if (v.args_size == sizeof md) memcpy(&md, v.args, sizeof md);
                    aicf__cuda_step_algo(p, i, v.algo, &a);
                    aicf__sbuf_printf(&b,
                                      "    launch %d: cuBLASLt matmul M=%lld N=%lld K=%lld batch=%lld %s%s%s%s, algorithm #0 of %d "
                                      "heuristic results, workspace %s, alignments A/B/C/D %u/%u/%u/%u B",
                                      k + 1, (long long)md.M, (long long)md.N, (long long)md.K, (long long)md.batch,
                                      aicf_dtype_name(md.dtype), md.tf32 ? " tf32" : "", md.bias ? " +bias" : "", md.relu ? " relu" : "",
                                      a.n_results, aicf__io_bytes((double)a.workspace_bytes, t2, sizeof t2), a.align[0], a.align[1],
                                      a.align[2], a.align[3]);
                    if (a.workspace_bytes > ws) ws = a.workspace_bytes;
                }
                aicf__sbuf_put(&b, "\n", 1);
            }
        aicf__sbuf_printf(&b, "  why: %s\n", st->reason);
    }
    for (i = 0; i < p->n_out; i++) {
        aicf__sbuf_printf(&b, "output %d: ", i);
        if (aicf__is_const(g, p->out_boundary[i])) aicf__sbuf_printf(&b, "'%s' (a constant, folded at plan time)", aicf__tname(g, p->out_tensor[i]));
        else aicf__io_tensor_brief(&b, p, p->out_boundary[i]);
        aicf__sbuf_put(&b, "\n", 1);
    }
    aicf__sbuf_printf(&b, "memory: arena %zu B (%s), lower bound %zu B (ratio %.3f, %s, %s), weights %zu B (%s)", p->arena_bytes,
                      aicf__io_bytes((double)p->arena_bytes, t1, sizeof t1), p->arena_lower_bound,
                      p->arena_lower_bound ? (double)p->arena_bytes / (double)p->arena_lower_bound : 1.0,
                      p->mem_order >= 0 && p->mem_order / 2 <= AICF__MEM_ORDERS ? aicf__mem_order_names[p->mem_order / 2] : "?",
                      p->mem_order % 2 ? "best fit" : "lowest offset", p->weights_bytes,
                      aicf__io_bytes((double)p->weights_bytes, t2, sizeof t2));
    if (scratch) aicf__sbuf_printf(&b, "; step scratch %s in the arena", aicf__io_bytes((double)scratch, t1, sizeof t1));
    if (ws) aicf__sbuf_printf(&b, "; cuBLASLt workspace %s", aicf__io_bytes((double)ws, t1, sizeof t1));
    aicf__sbuf_put(&b, "\n", 1);
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}

/* ---- Graphviz DOT ---- */

/* s inside a DOT quoted string: '"' and '\' escaped, control bytes dropped. */
static void aicf__io_dotstr(aicf__sbuf* b, const char* s) {
    const unsigned char* p = (const unsigned char*)(s ? s : "");
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2];
            e[0] = '\\';
            e[1] = (char)*p;
            aicf__sbuf_put(b, e, 2);
        } else if (*p >= 0x20 && *p != 0x7f) {
            aicf__sbuf_put(b, (const char*)p, 1);
        }
    }
}

/* DOT node of the value tensor t: "in3", "s4" or "s4_2" (the last fused node), or NULL. */
static void aicf__io_dot_src(const aicf_plan* p, const int* prod, int t, char* id, size_t cap) {
    int s = t >= 0 ? prod[t] : -1;
    id[0] = 0;
    if (s <= -2) snprintf(id, cap, "in%d", -s - 2);
    else if (s >= 0 && p->steps[s].n_epi > 0 && p->steps[s].out[0] == t) snprintf(id, cap, "s%d_%d", s, p->steps[s].n_epi);
    else if (s >= 0) snprintf(id, cap, "s%d", s);
}

static void aicf__io_dot_edge(aicf__sbuf* b, const aicf_plan* p, const int* prod, int t, const char* to) {
    char from[32], sh[200];
    if (t < 0 || p->loc[t].space != AICF__SPACE_ARENA) return; /* weights and constants: not drawn */
    aicf__io_dot_src(p, prod, t, from, sizeof from);
    if (!from[0]) return;
    aicf__sbuf_printf(b, "  %s -> %s [label=\"", from, to);
    aicf__io_dotstr(b, aicf__tname(p->g, t));
    aicf__sbuf_printf(b, "\\n%s\"];\n", aicf__io_shape(&p->g->tensors[t].shape, sh, sizeof sh));
}

aicf_result aicf_plan_dot(const aicf_plan* p, char* buf, size_t cap, size_t* needed) {
    aicf__sbuf b;
    const aicf_graph* g;
    int *prod, i, j;
    char sh[200], id[32];
    if (needed) *needed = 0;
    if (!p || !p->g || !p->loc) return AICF_ERROR_INVALID_ARGUMENT;
    g = p->g;
    prod = (int*)aicf__malloc(p->ctx, ((size_t)g->n_tensors + 1) * sizeof(int));
    if (!prod) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_dot: out of memory");
    for (i = 0; i < g->n_tensors; i++) prod[i] = -1;
    for (i = 0; i < p->n_in; i++) prod[p->in_boundary[i]] = -2 - i; /* the caller writes it */
    for (i = 0; i < p->n_steps; i++)
        for (j = 0; j < p->steps[i].n_out; j++)
            if (p->steps[i].out[j] >= 0) prod[p->steps[i].out[j]] = i;
    aicf__sbuf_init(&b, buf, cap);
    aicf__sbuf_printf(&b, "digraph aicf_plan {\n  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10];\n"
                          "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
                          "  edge [fontname=\"Helvetica\", fontsize=8];\n");
    for (i = 0; i < p->n_in; i++) {
        int t = p->in_boundary[i];
        aicf__sbuf_printf(&b, "  in%d [shape=ellipse, label=\"input %d\\n", i, i);
        aicf__io_dotstr(&b, aicf__tname(g, t));
        aicf__sbuf_printf(&b, "\\n%s %s\"];\n", aicf_dtype_name(g->tensors[t].dtype), aicf__io_shape(&g->tensors[t].shape, sh, sizeof sh));
    }
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        const char* ind = st->n_epi > 0 ? "    " : "  ";
        if (st->n_epi > 0) aicf__sbuf_printf(&b, "  subgraph cluster_%d {\n    label=\"step %d: fused\";\n    style=dashed;\n", i, i);
        aicf__sbuf_printf(&b, "%ss%d [label=\"%d: ", ind, i, i);
        if (st->kind == AICF__STEP_NODE && st->node >= 0 && st->node < g->n_nodes) {
            aicf__io_dotstr(&b, g->nodes[st->node].op_type);
            aicf__sbuf_put(&b, "\\n", 2);
            aicf__io_dotstr(&b, g->nodes[st->node].name);
        } else {
            aicf__sbuf_put(&b, "Cast (boundary)", 15);
        }
        aicf__sbuf_put(&b, "\\n", 2);
        aicf__io_dotstr(&b, st->kernel);
        /* steps that launch nothing (an alias of their input, an empty output) are dotted */
        aicf__sbuf_printf(&b, "\"%s];\n", (strcmp(st->kernel, "alias") == 0 || strcmp(st->kernel, "empty") == 0) ? ", style=\"rounded,dotted\"" : "");
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            const aicf__node* en = &g->nodes[st->epi[j].node];
            aicf__sbuf_printf(&b, "    s%d_%d [label=\"", i, j + 1);
            aicf__io_dotstr(&b, en->op_type);
            aicf__sbuf_put(&b, "\\n", 2);
            aicf__io_dotstr(&b, en->name);
            if (j) aicf__sbuf_printf(&b, "\"];\n    s%d_%d -> s%d_%d [style=dashed];\n", i, j, i, j + 1);
            else aicf__sbuf_printf(&b, "\"];\n    s%d -> s%d_1 [style=dashed];\n", i, i);
        }
        if (st->n_epi > 0) aicf__sbuf_printf(&b, "  }\n");
    }
    /* data edges: after every node exists */
    for (i = 0; i < p->n_steps; i++) {
        const aicf__step* st = &p->steps[i];
        snprintf(id, sizeof id, "s%d", i);
        for (j = 0; j < st->n_in; j++) aicf__io_dot_edge(&b, p, prod, st->in[j], id);
        for (j = 0; j < st->n_epi && j < AICF__EPI_MAX; j++) {
            snprintf(id, sizeof id, "s%d_%d", i, j + 1);
            aicf__io_dot_edge(&b, p, prod, st->epi[j].operand, id);
        }
    }
    for (i = 0; i < p->n_out; i++) {
        int t = p->out_boundary[i];
        aicf__sbuf_printf(&b, "  out%d [shape=ellipse, label=\"output %d\\n", i, i);
        aicf__io_dotstr(&b, aicf__tname(g, p->out_tensor[i]));
        aicf__sbuf_printf(&b, "\\n%s\"];\n", aicf__io_shape(&g->tensors[t].shape, sh, sizeof sh));
        snprintf(id, sizeof id, "out%d", i);
        aicf__io_dot_edge(&b, p, prod, t, id);
    }
    aicf__sbuf_printf(&b, "}\n");
    aicf__free(p->ctx, prod);
    if (needed) *needed = b.len + 1;
    return AICF_SUCCESS;
}
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
   time of the launch call is read from the host clock below. */

/* ---- host clock (benchmark) ----
   Microseconds from a monotonic clock: QueryPerformanceCounter on Windows, clock_gettime
   (CLOCK_MONOTONIC) where <time.h> declares it (POSIX feature macros, or C++); in strict ISO C
   without them, gettimeofday (microsecond resolution, not monotonic). */
#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>
static double aicf__now_us(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1e6 / (double)f.QuadPart;
}
#else
#  include <time.h>
#  if defined(CLOCK_MONOTONIC)
static double aicf__now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
#  else
#    include <sys/time.h>
static double aicf__now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}
#  endif
#endif

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
    int pdl;
    char name[256];
    size_t total_memory;
    /* cuBLASLt (optional) */
    void* liblt;
    aicf__cublaslt_api lt;
    void* lt_handle;       /* cublasLtHandle_t, NULL when cuBLASLt is unavailable */
    size_t lt_version;
    char lt_path[512];     /* what was loaded */
    char lt_error[512];    /* why cuBLASLt is unavailable */
};

/* Plan-level backend data (p->backend). */
#define AICF__CUDA_SYNC_BYTES 256u /* the exec's barrier-word allocation */

typedef struct aicf__cuda_plan_data {
    size_t workspace_bytes; /* largest cuBLASLt workspace any algorithm of the plan needs */
    int persistent;         /* persistent kernels (81_cuda_ops.c aicf__cuo_persist): the exec
                               allocates and zeroes their barrier word */
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
} aicf__cuda_algo;

/* Per-exec state (e->backend). */
typedef struct aicf__cuda_exec {
    aicf__CUstream stream;
    int owns_stream;
    aicf__CUstream capture_stream; /* for cuBLASLt capture during the build; then destroyed */
    aicf__CUdeviceptr arena, weights, workspace;
    size_t arena_bytes, weights_bytes, workspace_bytes;
    aicf__CUdeviceptr sync;        /* AICF__CUDA_SYNC_BYTES, zeroed: persistent kernels' barrier word */
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
     1. the cubin of exactly sm_XY;
     2. else the cubin of the same major with the highest minor below the device's;
     3. else the PTX of the highest compute_XY not above the device's (driver JIT).
   allow_cubin = 0 skips 1 and 2 (used when the driver refused the chosen cubin). */
static int aicf__cuda_choose_image(int cc_major, int cc_minor, const aicf__kt_image* images, int n_images,
                                   int module, int allow_cubin) {
    int dev = cc_major * 10 + cc_minor;
    int i, best = -1;
    if (allow_cubin) {
        for (i = 0; i < n_images; ++i)
            if (images[i].module == module && !images[i].is_ptx && images[i].sm == dev) return i;
        for (i = 0; i < n_images; ++i) {
            const aicf__kt_image* im = &images[i];
            if (im->module != module || im->is_ptx) continue;
            if (im->sm / 10 == cc_major && im->sm < dev && (best < 0 || im->sm > images[best].sm)) best = i;
        }
        if (best >= 0) return best;
    }
    for (i = 0; i < n_images; ++i) {
        const aicf__kt_image* im = &images[i];
        if (im->module != module || !im->is_ptx) continue;
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
        w = snprintf(buf + len, cap - len, "%s%s_%d", len ? " " : "", images[i].is_ptx ? "compute" : "sm", images[i].sm);
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

/* Releases what a (possibly partial) initialisation made; keeps init_error and status. */
static void aicf__cuda_release(aicf_context* ctx, struct aicf__cuda* cu) {
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
    { /* optional: edges with data (programmatic dependent launch) */
        void* p_ = NULL;
        aicf__CUdriverProcAddressQueryResult q_ = 0;
        r = gpa2 ? gpa2("cuGraphAddDependencies", &p_, 12030, AICF__CU_GET_PROC_ADDRESS_DEFAULT, &q_)
                 : gpa1("cuGraphAddDependencies", &p_, 12030, AICF__CU_GET_PROC_ADDRESS_DEFAULT);
        if (r == AICF__CUDA_SUCCESS && p_) memcpy(&cu->add_deps_v12030, &p_, sizeof p_);
        else cu->add_deps_v12030 = NULL;
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
    for (si = 0; si < p->n_steps; ++si) {
        r = aicf__cuda_select_step(p, si);
        if (r != AICF_SUCCESS) return r;
    }
    r = aicf__cuda_persist(p, &((aicf__cuda_plan_data*)p->backend)->persistent);
    if (r != AICF_SUCCESS) return r;
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
    int compute = (d->dtype == AICF_DTYPE_FLOAT32 && d->tf32) ? AICF__CUBLAS_COMPUTE_32F_FAST_TF32 : AICF__CUBLAS_COMPUTE_32F;
    int32_t ta = d->trans_b ? AICF__CUBLAS_OP_T : AICF__CUBLAS_OP_N; /* cuBLASLt's A is our B */
    int32_t tb = d->trans_a ? AICF__CUBLAS_OP_T : AICF__CUBLAS_OP_N;
    uint32_t epi = AICF__CUBLASLT_EPILOGUE_DEFAULT;
    aicf__cublasStatus_t s;
    aicf_result r;
    memset(o, 0, sizeof *o);
    if (d->bias && d->relu) epi = AICF__CUBLASLT_EPILOGUE_RELU_BIAS;
    else if (d->bias) epi = AICF__CUBLASLT_EPILOGUE_BIAS;
    else if (d->relu) epi = AICF__CUBLASLT_EPILOGUE_RELU;
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
    if (r == AICF_SUCCESS) r = aicf__lt_layout(ctx, cu, &o->lc, dt, d->N, d->M, d->ldc, d->batch, d->stride_c, "C");
    if (r == AICF_SUCCESS)
        r = aicf__lt_layout(ctx, cu, &o->ld, dt, d->N, d->M, d->ldc, d->batch, aicf__cu_matmul_stride_d(d), "D");
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
static int aicf__cu_saved_algo(aicf_context* ctx, struct aicf__cuda* cu, aicf_plan* p, const aicf__matmul_desc* d,
                               const aicf__lt_objs* o, const unsigned al[4], uint64_t ws_limit,
                               aicf__cublasLtMatmulHeuristicResult_t* res, int* nres) {
    aicf__saved_algo* sa = NULL;
    aicf__cublasLtMatmulHeuristicResult_t chk;
    aicf__cublasStatus_t s;
    char buf[48];
    int i;
    for (i = 0; i < p->saved_algos->n && !sa; i++)
        if (memcmp(&p->saved_algos->v[i].desc, d, sizeof *d) == 0) sa = &p->saved_algos->v[i];
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
    else if (sa->rec.n_results < 1 || sa->rec.n_results > 8)
        aicf__cu_fmt(sa->refused, sizeof sa->refused, "heuristic result count %d is not 1..8", sa->rec.n_results);
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
    sa->used++;
    return 1;
refused:
    aicf__err(ctx, AICF_ERROR_PLAN_MISMATCH, "matmul M=%lld N=%lld K=%lld batch=%lld: the plan file's cuBLASLt algorithm (line %d) is refused: %s",
              (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch, sa->line, sa->refused);
    return -1;
}

aicf_result aicf__cuda_matmul_plan(aicf_plan* p, const aicf__matmul_desc* d, void** algo, char* reason, size_t reason_cap) {
    aicf_context* ctx;
    struct aicf__cuda* cu;
    aicf__cuda_algo* rec;
    aicf__lt_objs o;
    void* pref = NULL;
    aicf__cublasLtMatmulHeuristicResult_t res[8];
    int nres = 0;
    uint64_t ws_limit;
    size_t es;
    aicf__cublasStatus_t s;
    aicf_result r;
    unsigned al[4];
    if (!p || !p->ctx || !d || !algo) return AICF_ERROR_INVALID_ARGUMENT;
    ctx = p->ctx;
    *algo = NULL;
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
    al[2] = aicf__cu_operand_align(d->c ? d->c : d->d, d->stride_c, d->batch, es);
    al[3] = aicf__cu_operand_align(d->d, aicf__cu_matmul_stride_d(d), d->batch, es);
    r = aicf__cuda_push(ctx, cu);
    if (r != AICF_SUCCESS) return r;
    r = aicf__lt_build(ctx, cu, d, &o);
    if (r != AICF_SUCCESS) goto done;
    if (p->saved_algos) { /* a plan file being loaded: its algorithm, checked, not searched */
        int k = aicf__cu_saved_algo(ctx, cu, p, d, &o, al, ws_limit, res, &nres);
        if (k > 0) goto chosen;
        if (k < 0) {
            r = AICF_ERROR_PLAN_MISMATCH;
            goto done;
        }
    }
    s = cu->lt.cublasLtMatmulPreferenceCreate(&pref);
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        pref = NULL;
        r = aicf__lt_fail(ctx, cu, s, "cublasLtMatmulPreferenceCreate", NULL);
        goto done;
    }
    s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_limit, sizeof ws_limit);
    /* operand roles are swapped: cuBLASLt's A is our B */
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al[1], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al[0], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al[2], sizeof(uint32_t));
    if (s == AICF__CUBLAS_STATUS_SUCCESS)
        s = cu->lt.cublasLtMatmulPreferenceSetAttribute(pref, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al[3], sizeof(uint32_t));
    if (s != AICF__CUBLAS_STATUS_SUCCESS) {
        r = aicf__lt_fail(ctx, cu, s, "cublasLtMatmulPreferenceSetAttribute", NULL);
        goto done;
    }
    memset(res, 0, sizeof res);
    s = cu->lt.cublasLtMatmulAlgoGetHeuristic(cu->lt_handle, o.desc, o.la, o.lb, o.lc, o.ld, pref, 8, res, &nres);
    if (s != AICF__CUBLAS_STATUS_SUCCESS || nres <= 0) {
        char buf[48];
        r = aicf__err(ctx, AICF_ERROR_UNSUPPORTED,
                      "matmul M=%lld N=%lld K=%lld batch=%lld %s: cuBLASLt has no algorithm (cublasLtMatmulAlgoGetHeuristic: %s, %d results)",
                      (long long)d->M, (long long)d->N, (long long)d->K, (long long)d->batch, aicf_dtype_name(d->dtype),
                      aicf__cublas_status_name(cu, s, buf, sizeof buf), nres);
        goto done;
    }
chosen:
    /* rounded up to 16 bytes: callers may copy the record in 16-byte units */
    rec = (aicf__cuda_algo*)aicf__calloc(ctx, 1, (sizeof *rec + 15u) & ~(size_t)15u);
    if (!rec) {
        r = aicf__err(ctx, AICF_ERROR_OUT_OF_MEMORY, "matmul: out of memory");
        goto done;
    }
    rec->algo = res[0].algo;
    rec->workspace_bytes = res[0].workspaceSize;
    rec->cublaslt_version = cu->lt_version;
    rec->align_a = al[0];
    rec->align_b = al[1];
    rec->align_c = al[2];
    rec->align_d = al[3];
    rec->n_results = nres;
    *algo = rec;
    if (p->backend) {
        aicf__cuda_plan_data* pd = (aicf__cuda_plan_data*)p->backend;
        if (rec->workspace_bytes > pd->workspace_bytes) pd->workspace_bytes = rec->workspace_bytes;
    }
    if (reason && reason_cap)
        aicf__cu_fmt(reason, reason_cap, "cuBLASLt heuristic #0 of %d, workspace %llu B, align %u B", nres,
                 (unsigned long long)rec->workspace_bytes, AICF__MIN(AICF__MIN(al[0], al[1]), AICF__MIN(al[2], al[3])));
    r = AICF_SUCCESS;
done:
    if (pref) cu->lt.cublasLtMatmulPreferenceDestroy(pref);
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

aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3], const unsigned block[3],
                                   unsigned shared_bytes, const void* args, size_t args_size) {
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
    if (shared_bytes > 48u * 1024u) {
        r = em->cu->api.cuFuncSetAttribute(fn, AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes);
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
    /* After another generated kernel: a programmatic edge from its programmatic port. This node
       may then be launched once every block of the previous kernel has passed its own wait and
       issued griddepcontrol.launch_dependents (templates/pdl.inc.j2); its kernel waits for the
       previous grid to complete before it touches memory, so only the launch latency overlaps.
       (The launch-order port, which fires as soon as the blocks have begun, let chains of
       waiting kernels pile up: resnet18 batch 1 went from 254 to 346 us on the H100.)
       Otherwise a full dependency. */
    if (em->pdl && em->has_last && em->last_is_kernel) {
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
        static const uint32_t zero[AICF__CUDA_SYNC_BYTES / 4] = {0};
        res = aicf__cuda_alloc(ctx, cu, &x->sync, AICF__CUDA_SYNC_BYTES, "barrier word of the persistent kernels");
        if (res == AICF_SUCCESS) {
            r = cu->api.cuMemcpyHtoD(x->sync, zero, sizeof zero);
            if (r != AICF__CUDA_SUCCESS) return aicf__cu_fail(ctx, cu, AICF_ERROR_CUDA, r, "cuMemcpyHtoD", "zeroing the barrier word");
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
uint64_t aicf__cuda_scratch_ptr(aicf__cuda_emitter* em) { AICF__UNUSED(em); return 0; }
uint64_t aicf__cuda_sync_ptr(aicf__cuda_emitter* em) { AICF__UNUSED(em); return 0; }
aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3], const unsigned block[3],
                                   unsigned shared_bytes, const void* args, size_t args_size) {
    AICF__UNUSED(em); AICF__UNUSED(kernel_index); AICF__UNUSED(grid); AICF__UNUSED(block);
    AICF__UNUSED(shared_bytes); AICF__UNUSED(args); AICF__UNUSED(args_size);
    return AICF_ERROR_NO_DEVICE;
}
aicf_result aicf__cuda_emit_copy(aicf__cuda_emitter* em, uint64_t dst, uint64_t src, size_t bytes) {
    AICF__UNUSED(em); AICF__UNUSED(dst); AICF__UNUSED(src); AICF__UNUSED(bytes);
    return AICF_ERROR_NO_DEVICE;
}
aicf_result aicf__cuda_matmul_plan(aicf_plan* p, const aicf__matmul_desc* d, void** algo, char* reason, size_t reason_cap) {
    AICF__UNUSED(d); AICF__UNUSED(reason); AICF__UNUSED(reason_cap);
    if (algo) *algo = NULL;
    return aicf__cuda_init(p ? p->ctx : NULL);
}
aicf_result aicf__cuda_emit_matmul(aicf__cuda_emitter* em, const aicf__matmul_desc* d, const void* algo) {
    AICF__UNUSED(em); AICF__UNUSED(d); AICF__UNUSED(algo);
    return AICF_ERROR_NO_DEVICE;
}
int aicf__cuda_kernel_find(const char* name) { AICF__UNUSED(name); return -1; }
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
/* >>cuda_ops ================================================================================= */
/* The op lowering of the CUDA backend: what every plan step becomes on the GPU.

   aicf__cuda_select_step (plan time) decides everything: which generated kernel variant (or
   cuBLASLt algorithm, or device-to-device copy) runs, its launch dimensions, and its argument
   struct with every field filled except the device addresses, which are recorded as "patches"
   (tensor index + byte offset). The result is one flat block in step->backend (no nested
   allocations: cuBLASLt algorithm records are copied into it, see aicf__cuo_prog).
   aicf__cuda_emit_step (exec creation) only resolves the addresses and hands each launch to
   the emit functions of 80_cuda.c. Nothing is decided at run time.

   Kernel ABI: each generated kernel takes one struct by value. The aicf__k_* structs below
   mirror the structs of templates/{unary,binary,conv,gemm,pool,softmax,layout,index,reduce,norm,
   resize}.cu.j2 field for field (uint64_t device addresses, int64_t sizes and strides, float scalars; 8-byte aligned,
   no implicit padding). Kernel names are those of codegen/variants.py.

   Assumption recorded here: the arena and weight buffers start on 256-byte boundaries
   (cuMemAlloc gives at least that), so the alignment of a tensor's address is the alignment of
   its plan offset; the 4-wide variants are chosen from it. */

#define AICF__CUO_MAX_OPS 64     /* launches (kernels, copies, GEMMs) of one step */
#define AICF__CUO_MAX_PATCH 40   /* device addresses in one launch (a persistent GEMV chain: 6 x (A, B, D, 3 operands) + the barrier) */
#define AICF__CUO_ARGS_WORDS 266 /* 2128 bytes: largest argument struct (aicf__k_gemvp) */
#define AICF__CUO_MAX_ALGO 2     /* cuBLASLt algorithm records of one step */
#define AICF__CUO_MAX_GRID ((int64_t)1 << 20) /* blocks of a grid-stride launch */
#define AICF__CUO_BLOCK 256u     /* threads per block of every op kernel (variants.py) */

/* ---- kernel argument structs (mirrors of the templates) ---- */
typedef struct aicf__k_unary {
    uint64_t x, y;
    int64_t n;
    float alpha, beta;
} aicf__k_unary;

typedef struct aicf__k_cast {
    uint64_t x, y;
    int64_t n;
} aicf__k_cast;

typedef struct aicf__k_binflat {
    uint64_t a, b, y;
    int64_t n, sa, sb;
} aicf__k_binflat;

typedef struct aicf__k_binbc {
    uint64_t a, b, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sa[AICF_MAX_RANK], sb[AICF_MAX_RANK];
} aicf__k_binbc;

typedef struct aicf__k_conv2d {
    uint64_t x, w, bias, y;
    int64_t N, C, H, W, M, OH, OW, KH, KW, group;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t relu;
} aicf__k_conv2d;

typedef struct aicf__k_batchnorm {
    uint64_t x, scale, bias, mean, var, y;
    int64_t N, C, HW, per_act;
    float epsilon, pad_;
} aicf__k_batchnorm;

typedef struct aicf__k_gemm {
    uint64_t a, b, c, d;
    int64_t M, N, K, lda, ldb, ldd, trans_a, trans_b, batch;
    int64_t stride_a, stride_b, stride_c, stride_d, c_rs, c_cs, relu;
    float alpha, beta;
} aicf__k_gemm;

typedef struct aicf__k_pool2d {
    uint64_t x, y;
    int64_t NC, H, W, OH, OW, KH, KW, pad_h, pad_w, pad_h_end, pad_w_end;
    int64_t stride_h, stride_w, dil_h, dil_w, count_include_pad;
} aicf__k_pool2d;

typedef struct aicf__k_rowmean {
    uint64_t x, y;
    int64_t rows, n;
} aicf__k_rowmean;

typedef struct aicf__k_lrn {
    uint64_t x, y;
    int64_t N, C, HW, size;
    float alpha, beta, bias, pad_;
} aicf__k_lrn;

typedef struct aicf__k_softmax {
    uint64_t x, y;
    int64_t outer, n, inner;
} aicf__k_softmax;

typedef struct aicf__k_permute {
    uint64_t x, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sx[AICF_MAX_RANK];
} aicf__k_permute;

typedef struct aicf__k_transpose2d {
    uint64_t x, y;
    int64_t batch, rows, cols;
} aicf__k_transpose2d;

typedef struct aicf__k_copy2d {
    uint64_t x, y;
    int64_t rows, cols, ldx, ldy;
} aicf__k_copy2d;

typedef struct aicf__k_gather {
    uint64_t x, idx, y;
    int64_t outer, A, inner, ni;
} aicf__k_gather;

typedef struct aicf__k_where {
    uint64_t c, a, b, y;
    int64_t n, rank;
    int64_t shape[AICF_MAX_RANK], sc[AICF_MAX_RANK], sa[AICF_MAX_RANK], sb[AICF_MAX_RANK];
} aicf__k_where;

typedef struct aicf__k_pad {
    uint64_t x, y;
    int64_t n, rank, mode;
    float value, pad_;
    int64_t shape[AICF_MAX_RANK], cn[AICF_MAX_RANK], pb[AICF_MAX_RANK], sx[AICF_MAX_RANK];
} aicf__k_pad;

typedef struct aicf__k_reduce {
    uint64_t x, y;
    int64_t nout, nred, ko, kr, op; /* op: 1 Sum, 2 Mean, 3 Max, 4 Min, 5 Prod, 6 L1, 7 L2, 8 SumSquare, 9 LogSum, 10 LogSumExp */
    int64_t oshape[AICF_MAX_RANK], ostr[AICF_MAX_RANK], rshape[AICF_MAX_RANK], rstr[AICF_MAX_RANK];
} aicf__k_reduce;

typedef struct aicf__k_norm {
    uint64_t x, scale, bias, y, mean, inv;
    int64_t rows, cols, G, div, s_row, s_col, b_row, b_col, rms;
    float epsilon, pad_;
} aicf__k_norm;

typedef struct aicf__k_resize {
    uint64_t x, y;
    int64_t outer, H, W, OH, OW, mode, ctm, nearest, exclude_outside, ident_h, ident_w;
    double scale_h, scale_w, roi_h0, roi_h1, roi_w0, roi_w1;
    float extrapolation, pad_;
} aicf__k_resize;

/* Sizes the templates assert too (static_assert in each .cu.j2): a layout change on one side
   only fails to compile. */
typedef char aicf__k_check_unary[sizeof(aicf__k_unary) == 32 ? 1 : -1];
typedef char aicf__k_check_cast[sizeof(aicf__k_cast) == 24 ? 1 : -1];
typedef char aicf__k_check_binflat[sizeof(aicf__k_binflat) == 48 ? 1 : -1];
typedef char aicf__k_check_binbc[sizeof(aicf__k_binbc) == 232 ? 1 : -1];
typedef char aicf__k_check_conv[sizeof(aicf__k_conv2d) == 168 ? 1 : -1];
typedef char aicf__k_check_bn[sizeof(aicf__k_batchnorm) == 88 ? 1 : -1];
typedef char aicf__k_check_gemm[sizeof(aicf__k_gemm) == 168 ? 1 : -1];
typedef char aicf__k_check_pool[sizeof(aicf__k_pool2d) == 144 ? 1 : -1];
typedef char aicf__k_check_rowmean[sizeof(aicf__k_rowmean) == 32 ? 1 : -1];
typedef char aicf__k_check_lrn[sizeof(aicf__k_lrn) == 64 ? 1 : -1];
typedef char aicf__k_check_softmax[sizeof(aicf__k_softmax) == 40 ? 1 : -1];
typedef char aicf__k_check_perm[sizeof(aicf__k_permute) == 160 ? 1 : -1];
typedef char aicf__k_check_tr2d[sizeof(aicf__k_transpose2d) == 40 ? 1 : -1];
typedef char aicf__k_check_copy2d[sizeof(aicf__k_copy2d) == 48 ? 1 : -1];
typedef char aicf__k_check_gather[sizeof(aicf__k_gather) == 56 ? 1 : -1];
typedef char aicf__k_check_where[sizeof(aicf__k_where) == 304 ? 1 : -1];
typedef char aicf__k_check_pad[sizeof(aicf__k_pad) == 304 ? 1 : -1];
typedef char aicf__k_check_reduce[sizeof(aicf__k_reduce) == 312 ? 1 : -1];
typedef char aicf__k_check_norm[sizeof(aicf__k_norm) == 128 ? 1 : -1];
typedef char aicf__k_check_resize[sizeof(aicf__k_resize) == 160 ? 1 : -1];
typedef char aicf__k_check_args_fit[sizeof(aicf__k_reduce) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
typedef char aicf__k_check_args[sizeof(aicf__matmul_desc) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];

/* templates/ewchain.cu.j2: fused elementwise chains */
#define AICF__EW_MAX_OPS 9
typedef struct aicf__k_ew_src {
    uint64_t p;
    int64_t mode, a, b; /* 0 FULL, 1 SCALAR, 2 INNER (i % a), 3 MIDDLE ((i / b) % a), 4 GENERAL */
    int64_t st[4];
} aicf__k_ew_src;
typedef struct aicf__k_ew_op {
    int32_t code, left;
    float alpha, beta;
    aicf__k_ew_src src;
} aicf__k_ew_op;
typedef struct aicf__k_ewchain {
    uint64_t y;
    int64_t n;
    int64_t dims[4];
    aicf__k_ew_src x;
    int32_t n_ops, pad_;
    aicf__k_ew_op ops[AICF__EW_MAX_OPS];
} aicf__k_ewchain;
typedef char aicf__k_check_ewchain[sizeof(aicf__k_ewchain) == 840 ? 1 : -1];
typedef char aicf__k_check_ewchain_fit[sizeof(aicf__k_ewchain) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
/* templates/ewchain.cu.j2: small-M GEMM with the chain as its epilogue */
typedef struct aicf__k_gemv {
    aicf__k_ewchain e; /* e.y = D [M, N]; e.n = M * N; e.dims, e.ops: the epilogue */
    uint64_t a, b;     /* A [M, K], B [N, K] */
    int64_t M, N, K, lda, ldb;
    float alpha;
    int32_t flags;     /* float16: AICF__GEMVP_A_F32 (A stored float32), AICF__GEMVP_D_F32 (D float32) */
} aicf__k_gemv;
typedef char aicf__k_check_gemv[sizeof(aicf__k_gemv) == 904 ? 1 : -1];
typedef char aicf__k_check_gemv_fit[sizeof(aicf__k_gemv) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];
#define AICF__CUO_GEMV_MAX_M 8 /* rows of A up to which Gemm goes to the GEMV kernels */
/* templates/ewchain.cu.j2: consecutive GEMV steps as one persistent kernel (aicf__cuo_persist) */
#define AICF__GEMVP_MAX_LAYERS 6
#define AICF__GEMVP_MAX_OPS 3
#define AICF__GEMVP_BLOCK 256u /* 8 warps */
enum { AICF__GEMVP_A_F32 = 1, AICF__GEMVP_D_F32 = 2, AICF__GEMVP_PREFETCH = 4 };
typedef struct aicf__k_gemvp_layer {
    uint64_t a, b, y;
    int64_t M, N, K, lda, ldb;
    int64_t dims[4];
    float alpha;
    int32_t n_ops, flags, pad_;
    aicf__k_ew_op ops[AICF__GEMVP_MAX_OPS];
} aicf__k_gemvp_layer;
typedef struct aicf__k_gemvp {
    uint64_t bar; /* the barrier word (AICF__CUO_SYNC) */
    int32_t n_layers, pad_;
    aicf__k_gemvp_layer l[AICF__GEMVP_MAX_LAYERS];
} aicf__k_gemvp;
typedef char aicf__k_check_gemvp_layer[sizeof(aicf__k_gemvp_layer) == 352 ? 1 : -1];
typedef char aicf__k_check_gemvp[sizeof(aicf__k_gemvp) == 2128 ? 1 : -1];
typedef char aicf__k_check_gemvp_fit[sizeof(aicf__k_gemvp) <= AICF__CUO_ARGS_WORDS * 8 ? 1 : -1];

/* ---- the per-step program kept in step->backend ---- */
enum { AICF__CUO_KERNEL = 1, AICF__CUO_COPY = 2, AICF__CUO_MATMUL = 3 };

typedef struct aicf__cuo_fix {
    uint32_t field; /* byte offset of a uint64_t device address inside args */
    int tensor;     /* tensor whose address goes there, or AICF__CUO_SCRATCH */
    uint64_t add;   /* bytes added to that address */
} aicf__cuo_fix;

/* aicf__cuo_fix.tensor naming the step's arena scratch (aicf__step.scratch_offset) */
#define AICF__CUO_SCRATCH (-2)
/* aicf__cuo_fix.tensor naming the exec's barrier word (a persistent kernel's grid barrier) */
#define AICF__CUO_SYNC (-3)

typedef struct aicf__cuo_op {
    int kind;                /* AICF__CUO_* */
    int kernel_index;        /* KERNEL: index in the kernel table */
    unsigned grid[3], block[3], shared_bytes;
    uint32_t args_size;      /* KERNEL: bytes of the argument struct */
    int n_patch;
    int algo;                /* MATMUL: index into aicf__cuo_prog.algo */
    uint64_t copy_bytes;     /* COPY: bytes; patch[0] is the destination, patch[1] the source */
    aicf__cuo_fix patch[AICF__CUO_MAX_PATCH];
    uint64_t args[AICF__CUO_ARGS_WORDS]; /* KERNEL: argument struct; MATMUL: aicf__matmul_desc */
} aicf__cuo_op;

/* The record aicf__cuda_matmul_plan returns is plain data (aicf__cuda_algo of 80_cuda.c: the
   8 x u64 cuBLASLt blob, workspace size, cuBLASLt version, alignments), so it is copied into
   the step's block and the original freed: step->backend stays one allocation. */
#if !defined(AICF_NO_CUDA)
#  define AICF__CUO_ALGO_SIZE sizeof(aicf__cuda_algo)
#else
#  define AICF__CUO_ALGO_SIZE ((size_t)16)
#endif
#define AICF__CUO_ALGO_BYTES ((AICF__CUO_ALGO_SIZE + 15u) & ~(size_t)15u) /* one slot */

/* step->backend: this header, then n_ops aicf__cuo_op, then n_algo algorithm records, in one
   aicf__malloc block (freed by aicf__cuda_plan_free with aicf__free). */
typedef struct aicf__cuo_prog {
    int n_ops;
    int n_algo;
} aicf__cuo_prog;

#define AICF__CUO_HDR ((sizeof(aicf__cuo_prog) + 15u) & ~(size_t)15u)

static void* aicf__cuo_prog_algo(aicf__cuo_prog* pr, int k) {
    return (unsigned char*)pr + AICF__CUO_HDR + (size_t)pr->n_ops * sizeof(aicf__cuo_op) + (size_t)k * AICF__CUO_ALGO_BYTES;
}

static aicf__cuo_op* aicf__cuo_prog_ops(aicf__cuo_prog* pr) {
    return (aicf__cuo_op*)(void*)((unsigned char*)pr + AICF__CUO_HDR);
}

/* ---- the lowering context of one step ---- */
typedef struct aicf__cuo {
    aicf_plan* p;
    aicf_context* ctx;
    aicf_graph* g;
    int si;
    aicf__step* st;
    const aicf__node* nd; /* NULL for CAST steps */
    int f16;              /* the step's float tensors are stored as float16 */
    size_t es;            /* bytes per element of that storage */
    aicf__cuo_op* ops;    /* AICF__CUO_MAX_OPS scratch entries */
    int n_ops;
    void* algo[AICF__CUO_MAX_ALGO];
    int n_algo;
    char kernel[96];      /* step name when not a table kernel ("cublasLt:matmul", "memcpy") */
    char first_name[96];  /* name of the first table kernel launched */
    char reason[192];
} aicf__cuo;

static aicf_result aicf__cuo_fail(aicf__cuo* c, aicf_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static aicf_result aicf__cuo_fail(aicf__cuo* c, aicf_result code, const char* fmt, ...) {
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->nd)
        return aicf__err(c->ctx, code, "aicf_plan_create: node %d '%.200s' (%.64s): %s", c->st->node,
                         c->nd->name ? c->nd->name : "", c->nd->op_type ? c->nd->op_type : "?", msg);
    return aicf__err(c->ctx, code, "aicf_plan_create: step %d (boundary Cast): %s", c->si, msg);
}

static void aicf__cuo_reason(aicf__cuo* c, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void aicf__cuo_reason(aicf__cuo* c, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

/* Input i of the step (-1 when absent or omitted). */
static int aicf__cuo_in(const aicf__cuo* c, int i) {
    return i >= 0 && i < c->st->n_in ? c->st->in[i] : -1;
}

static int aicf__cuo_out(const aicf__cuo* c, int i) {
    return i >= 0 && i < c->st->n_out ? c->st->out[i] : -1;
}

static const aicf__shape* aicf__cuo_shape(const aicf__cuo* c, int t) {
    return &c->g->tensors[t].shape;
}

static int64_t aicf__cuo_numel(const aicf__cuo* c, int t) {
    return aicf__shape_numel(&c->g->tensors[t].shape);
}

static int64_t aicf__cuo_prod(const aicf__shape* s, int from, int to) {
    int64_t r = 1;
    int i;
    for (i = from; i < to; i++) r *= s->d[i];
    return r;
}

static const char* aicf__cuo_sstr(const aicf__shape* s, char* buf, size_t cap) {
    return aicf__shape_str(s, buf, cap);
}

/* Checks that tensor t (input or output `what` of the step) is stored as float32 or float16
   and, for the first tensor checked, fixes the step's storage type; later ones must match. */
static aicf_result aicf__cuo_float(aicf__cuo* c, int t, const char* what, int first) {
    aicf_dtype dt = c->p->loc[t].sdtype;
    const char* name = c->g->tensors[t].name ? c->g->tensors[t].name : "";
    if (dt != AICF_DTYPE_FLOAT32 && dt != AICF_DTYPE_FLOAT16)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "%s '%.200s' has element type %s; the device kernels handle float32 and float16 only",
                              what, name, aicf_dtype_name(dt));
    if (first) {
        c->f16 = dt == AICF_DTYPE_FLOAT16;
        c->es = c->f16 ? 2 : 4;
    } else if ((dt == AICF_DTYPE_FLOAT16) != c->f16) {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "%s '%.200s' is stored as %s but the step computes in %s storage",
                              what, name, aicf_dtype_name(dt), c->f16 ? "float16" : "float32");
    }
    return AICF_SUCCESS;
}

/* Checks inputs [0, n_in) that are present and output 0 (the usual case). */
static aicf_result aicf__cuo_floats(aicf__cuo* c, int n_in) {
    int i;
    aicf_result r;
    char what[32];
    if ((r = aicf__cuo_float(c, aicf__cuo_out(c, 0), "output 0", 1)) != AICF_SUCCESS) return r;
    for (i = 0; i < n_in; i++) {
        int t = aicf__cuo_in(c, i);
        if (t < 0) continue;
        snprintf(what, sizeof what, "input %d", i);
        if ((r = aicf__cuo_float(c, t, what, 0)) != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

/* Alignment in bytes (a power of two, at most 256) of tensor t's device address + add. */
static uint64_t aicf__cuo_align(const aicf__cuo* c, int t, uint64_t add) {
    int guard = 0;
    uint64_t a;
    while (c->p->loc[t].alias_of >= 0 && guard++ < 64) { /* views start alias_add bytes into their root */
        add += c->p->loc[t].alias_add;
        t = c->p->loc[t].alias_of;
    }
    if (c->p->loc[t].space == AICF__SPACE_NONE) return 1;
    a = (uint64_t)c->p->loc[t].offset + add;
    if (a == 0) return 256;
    a &= ~a + 1;
    return a > 256 ? 256 : a;
}

/* ---- building the op list ---- */

static aicf_result aicf__cuo_push(aicf__cuo* c, int kind, aicf__cuo_op** out) {
    aicf__cuo_op* op = NULL;
    if (c->n_ops >= AICF__CUO_MAX_OPS)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "needs more than %d device launches", AICF__CUO_MAX_OPS);
    op = &c->ops[c->n_ops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->kernel_index = -1;
    op->algo = -1;
    *out = op;
    return AICF_SUCCESS;
}

static void aicf__cuo_patch(aicf__cuo_op* op, size_t field, int tensor, uint64_t add) {
    aicf__cuo_fix* pt;
    AICF_ASSERT(op->n_patch < AICF__CUO_MAX_PATCH);
    pt = &op->patch[op->n_patch++];
    pt->field = (uint32_t)field;
    pt->tensor = tensor;
    pt->add = add;
}

/* 1-D launch over `work` items (grid-stride kernels). */
static void aicf__cuo_dims1(int64_t work, unsigned grid[3], unsigned block[3]) {
    int64_t b = (work + (int64_t)AICF__CUO_BLOCK - 1) / (int64_t)AICF__CUO_BLOCK;
    if (b < 1) b = 1;
    if (b > AICF__CUO_MAX_GRID) b = AICF__CUO_MAX_GRID;
    grid[0] = (unsigned)b;
    grid[1] = grid[2] = 1;
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
}

/* Adds a launch of table kernel `name` with the argument struct `args`. */
static aicf_result aicf__cuo_kernel(aicf__cuo* c, const char* name, const void* args, size_t size, const unsigned grid[3],
                                    const unsigned block[3], unsigned shared, aicf__cuo_op** out) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    int k = aicf__cuda_kernel_find(name);
    if (k < 0)
        return aicf__cuo_fail(c, AICF_ERROR_NO_KERNEL,
                              "kernel '%s' is not in the generated kernel table (regenerate kernels_gen with codegen/gen.py)", name);
    AICF_ASSERT(size <= sizeof op->args);
    if ((r = aicf__cuo_push(c, AICF__CUO_KERNEL, &op)) != AICF_SUCCESS) return r;
    if (!c->first_name[0]) snprintf(c->first_name, sizeof c->first_name, "%s", name);
    op->kernel_index = k;
    memcpy(op->grid, grid, sizeof op->grid);
    memcpy(op->block, block, sizeof op->block);
    op->shared_bytes = shared;
    op->args_size = (uint32_t)size;
    memcpy(op->args, args, size);
    *out = op;
    return AICF_SUCCESS;
}

/* Adds a device-to-device copy of `bytes` from tensor src (+ src_add) to dst (+ dst_add). */
static aicf_result aicf__cuo_copy(aicf__cuo* c, int dst, uint64_t dst_add, int src, uint64_t src_add, uint64_t bytes) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    if (bytes == 0) return AICF_SUCCESS;
    if ((r = aicf__cuo_push(c, AICF__CUO_COPY, &op)) != AICF_SUCCESS) return r;
    op->copy_bytes = bytes;
    aicf__cuo_patch(op, 0, dst, dst_add);
    aicf__cuo_patch(op, 0, src, src_add);
    return AICF_SUCCESS;
}

/* ---- elementwise: unary ---- */

static const char* aicf__cuo_dtn(const aicf__cuo* c) { return c->f16 ? "f16" : "f32"; }

/* Whether the 4-wide variant applies to n elements at these tensors (+ byte offsets). */
static int aicf__cuo_vec4(const aicf__cuo* c, int64_t n, const int* ts, const uint64_t* adds, int count) {
    int i;
    if (n % 4 != 0) return 0;
    for (i = 0; i < count; i++)
        if (ts[i] >= 0 && aicf__cuo_align(c, ts[i], adds ? adds[i] : 0) < 4 * c->es) return 0;
    return 1;
}

static aicf_result aicf__cuo_unary_launch(aicf__cuo* c, const char* fn, int x, int y, float alpha, float beta) {
    aicf__k_unary a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    int ts[2];
    int vec;
    char name[96];
    aicf_result r;
    int64_t n = aicf__cuo_numel(c, y);
    ts[0] = x;
    ts[1] = y;
    vec = aicf__cuo_vec4(c, n, ts, NULL, 2) ? 4 : 1;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.alpha = alpha;
    a.beta = beta;
    snprintf(name, sizeof name, "aicf_unary_%s_%s_v%d", fn, aicf__cuo_dtn(c), vec);
    aicf__cuo_dims1(n / vec, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_unary, x), x, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_unary, y), y, 0);
    if (vec == 4)
        aicf__cuo_reason(c, "vec4: %lld elements divisible by 4, %u-byte aligned", (long long)n, (unsigned)(4 * c->es));
    else
        aicf__cuo_reason(c, "scalar: %lld elements%s", (long long)n,
                         n % 4 ? " not divisible by 4" : ", addresses not aligned for vec4");
    return AICF_SUCCESS;
}

/* The value of a scalar constant input (Clip min/max). */
static aicf_result aicf__cuo_const_scalar(aicf__cuo* c, int i, const char* what, float* v) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    if (!(tt->flags & AICF__T_CONST) || !tt->data)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (tt->dtype == AICF_DTYPE_FLOAT32 && tt->data_bytes >= 4) memcpy(v, tt->data, 4);
    else if (tt->dtype == AICF_DTYPE_FLOAT16 && tt->data_bytes >= 2) {
        uint16_t h;
        memcpy(&h, tt->data, 2);
        *v = aicf__f16_to_f32(h);
    } else if (tt->dtype == AICF_DTYPE_FLOAT64 && tt->data_bytes >= 8) {
        double d;
        memcpy(&d, tt->data, 8);
        *v = (float)d;
    } else {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s", i,
                              tt->name ? tt->name : "", what, aicf_dtype_name(tt->dtype));
    }
    return AICF_SUCCESS;
}

static int64_t aicf__cuo_opset(const aicf__cuo* c) {
    return c->g->opset > 0 ? c->g->opset : ((int64_t)1 << 30);
}

static aicf_result aicf__cuo_lower_unary(aicf__cuo* c) {
    const aicf__node* n = c->nd;
    float alpha = 0.0f, beta = 0.0f;
    const char* fn = "relu";
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    switch (n->op) {
    case AICF__OP_Relu: fn = "relu"; break;
    case AICF__OP_Tanh: fn = "tanh"; break;
    case AICF__OP_Sigmoid: fn = "sigmoid"; break;
    case AICF__OP_Exp: fn = "exp"; break;
    case AICF__OP_Log: fn = "log"; break;
    case AICF__OP_Sqrt: fn = "sqrt"; break;
    case AICF__OP_Neg: fn = "neg"; break;
    case AICF__OP_Abs: fn = "abs"; break;
    case AICF__OP_Reciprocal: fn = "reciprocal"; break;
    case AICF__OP_Erf: fn = "erf"; break;
    case AICF__OP_LeakyRelu:
        fn = "leaky_relu";
        alpha = aicf__attr_f(n, "alpha", 0.01f);
        break;
    case AICF__OP_Elu:
        fn = "elu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_HardSigmoid:
        fn = "hard_sigmoid";
        alpha = aicf__attr_f(n, "alpha", 0.2f);
        beta = aicf__attr_f(n, "beta", 0.5f);
        break;
    case AICF__OP_HardSwish:
        fn = "hard_swish";
        alpha = 1.0f / 6.0f;
        beta = 0.5f;
        break;
    case AICF__OP_Clip:
        fn = "clip";
        if (aicf__cuo_opset(c) < 11) {
            alpha = aicf__attr_f(n, "min", -3.402823466e+38f);
            beta = aicf__attr_f(n, "max", 3.402823466e+38f);
        } else {
            alpha = -INFINITY;
            beta = INFINITY;
            if ((r = aicf__cuo_const_scalar(c, 1, "min", &alpha)) != AICF_SUCCESS) return r;
            if ((r = aicf__cuo_const_scalar(c, 2, "max", &beta)) != AICF_SUCCESS) return r;
        }
        break;
    case AICF__OP_Floor: fn = "floor"; break;
    case AICF__OP_Ceil: fn = "ceil"; break;
    case AICF__OP_Round: fn = "round"; break;
    case AICF__OP_Sign: fn = "sign"; break;
    case AICF__OP_Softplus: fn = "softplus"; break;
    case AICF__OP_Softsign: fn = "softsign"; break;
    case AICF__OP_Selu:
        fn = "selu";
        alpha = aicf__attr_f(n, "alpha", 1.67326319217681884765625f);
        beta = aicf__attr_f(n, "gamma", 1.05070102214813232421875f);
        break;
    case AICF__OP_Celu:
        fn = "celu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_ThresholdedRelu:
        fn = "thresholded_relu";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    case AICF__OP_Sin: fn = "sin"; break;
    case AICF__OP_Cos: fn = "cos"; break;
    case AICF__OP_Tan: fn = "tan"; break;
    case AICF__OP_Asin: fn = "asin"; break;
    case AICF__OP_Acos: fn = "acos"; break;
    case AICF__OP_Atan: fn = "atan"; break;
    case AICF__OP_Sinh: fn = "sinh"; break;
    case AICF__OP_Cosh: fn = "cosh"; break;
    case AICF__OP_Asinh: fn = "asinh"; break;
    case AICF__OP_Acosh: fn = "acosh"; break;
    case AICF__OP_Atanh: fn = "atanh"; break;
    case AICF__OP_Gelu: {
        const char* ap = aicf__attr_s(n, "approximate", "none");
        if (!strcmp(ap, "tanh")) fn = "gelu_tanh";
        else if (!strcmp(ap, "none")) fn = "gelu";
        else return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'approximate' is '%.40s'; expected none or tanh", ap);
        break;
    }
    case AICF__OP_Mish: fn = "mish"; break;
    case AICF__OP_Shrink:
        fn = "shrink";
        alpha = aicf__attr_f(n, "lambd", 0.5f);
        beta = aicf__attr_f(n, "bias", 0.0f);
        break;
    case AICF__OP_Swish:
        fn = "swish";
        alpha = aicf__attr_f(n, "alpha", 1.0f);
        break;
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "not a unary op");
    }
    return aicf__cuo_unary_launch(c, fn, aicf__cuo_in(c, 0), aicf__cuo_out(c, 0), alpha, beta);
}

/* ---- elementwise: binary with broadcasting ---- */

/* Element strides of a tensor of shape `in` read as the broadcast shape `out` (0 on
   broadcast dims), as numpy aligns them (trailing dims). */
static void aicf__cuo_bstrides(const aicf__shape* in, const aicf__shape* out, int64_t* st) {
    int i, r = out->rank;
    int64_t s = 1;
    for (i = r - 1; i >= 0; i--) {
        int ii = in->rank - r + i;
        st[i] = (ii < 0 || in->d[ii] == 1) ? 0 : s;
        if (ii >= 0) s *= in->d[ii];
    }
}

/* Drops size-1 dims and merges neighbours that are contiguous for every operand. st[k] points
   to k stride arrays (rank entries each), rewritten in place; returns the new rank. */
static int aicf__cuo_collapse(int64_t* shape, int rank, int64_t** st, int k) {
    int i, j, o = 0;
    for (i = 0; i < rank; i++) {
        if (shape[i] == 1) continue;
        if (o > 0) {
            int merge = 1;
            for (j = 0; j < k; j++)
                if (st[j][o - 1] != st[j][i] * shape[i]) merge = 0;
            if (merge) {
                shape[o - 1] *= shape[i];
                for (j = 0; j < k; j++) st[j][o - 1] = st[j][i];
                continue;
            }
        }
        shape[o] = shape[i];
        for (j = 0; j < k; j++) st[j][o] = st[j][i];
        o++;
    }
    return o;
}

/* y = fn(a, b) over y's shape sy; a and b have shapes sa, sb (broadcast to sy). y may be a or b
   (same shape: each element read then written by one thread). */
static aicf_result aicf__cuo_binary(aicf__cuo* c, const char* fn, int ta, const aicf__shape* sa, int tb,
                                    const aicf__shape* sb, int ty, const aicf__shape* sy) {
    int64_t n = aicf__shape_numel(sy), na = aicf__shape_numel(sa), nb = aicf__shape_numel(sb);
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], b1[160];
    aicf_result r;
    if ((na == n || na == 1) && (nb == n || nb == 1)) {
        aicf__k_binflat a;
        int ts[3];
        int vec;
        memset(&a, 0, sizeof a);
        a.n = n;
        a.sa = na == n ? 1 : 0;
        a.sb = nb == n ? 1 : 0;
        if (n == 1) a.sa = a.sb = 1;
        ts[0] = a.sa ? ta : -1;
        ts[1] = a.sb ? tb : -1;
        ts[2] = ty;
        vec = aicf__cuo_vec4(c, n, ts, NULL, 3) ? 4 : 1;
        snprintf(name, sizeof name, "aicf_binary_%s_%s_flat_v%d", fn, aicf__cuo_dtn(c), vec);
        aicf__cuo_dims1(n / vec, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, a), ta, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, b), tb, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binflat, y), ty, 0);
        aicf__cuo_reason(c, "flat%s: %lld elements%s%s%s", vec == 4 ? " vec4" : "", (long long)n,
                         vec == 4 ? " divisible by 4, aligned" : (n % 4 ? " (not divisible by 4)" : " (unaligned for vec4)"),
                         !a.sa ? ", A is one element" : "", !a.sb ? ", B is one element" : "");
    } else {
        aicf__k_binbc a;
        int64_t* st[2];
        int rank;
        memset(&a, 0, sizeof a);
        aicf__cuo_bstrides(sa, sy, a.sa);
        aicf__cuo_bstrides(sb, sy, a.sb);
        memcpy(a.shape, sy->d, sizeof(int64_t) * (size_t)sy->rank);
        st[0] = a.sa;
        st[1] = a.sb;
        rank = aicf__cuo_collapse(a.shape, sy->rank, st, 2);
        if (rank == 0) {
            rank = 1;
            a.shape[0] = 1;
            a.sa[0] = a.sb[0] = 0;
        }
        a.rank = rank;
        a.n = n;
        snprintf(name, sizeof name, "aicf_binary_%s_%s_bcast", fn, aicf__cuo_dtn(c));
        aicf__cuo_dims1(n, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, a), ta, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, b), tb, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_binbc, y), ty, 0);
        aicf__cuo_reason(c, "broadcast: output %s collapsed to rank %d with per-input strides",
                         aicf__cuo_sstr(sy, b1, sizeof b1), rank);
    }
    return AICF_SUCCESS;
}

/* Shape of input i as it takes part in the broadcast (before opset 7, Add/Sub/Mul/Div/Pow
   align B at `axis` when broadcast = 1), as the CPU reference does. */
static void aicf__cuo_bin_shape(const aicf__cuo* c, int i, aicf__shape* s) {
    const aicf__node* n = c->nd;
    *s = *aicf__cuo_shape(c, aicf__cuo_in(c, i));
    if (aicf__cuo_opset(c) < 7 && i == 1 &&
        (n->op == AICF__OP_Add || n->op == AICF__OP_Sub || n->op == AICF__OP_Mul || n->op == AICF__OP_Div || n->op == AICF__OP_Pow) &&
        aicf__attr_i(n, "broadcast", 0) && aicf__attr(n, "axis")) {
        const aicf__shape* a = aicf__cuo_shape(c, aicf__cuo_in(c, 0));
        int64_t axis = aicf__attr_i(n, "axis", 0);
        aicf__shape t = *s;
        int k;
        if (axis < 0) axis += a->rank;
        if (axis < 0 || axis + t.rank > a->rank) return; /* rejected by shape inference */
        memset(s, 0, sizeof *s);
        s->rank = a->rank;
        for (k = 0; k < s->rank; k++) s->d[k] = 1;
        for (k = 0; k < t.rank; k++) s->d[axis + k] = t.d[k];
    }
}

static const char* aicf__cuo_binfn(aicf__op op) {
    switch (op) {
    case AICF__OP_Add:
    case AICF__OP_Sum:
    case AICF__OP_Mean: return "add";
    case AICF__OP_PRelu: return "prelu";
    case AICF__OP_Sub: return "sub";
    case AICF__OP_Mul: return "mul";
    case AICF__OP_Div: return "div";
    case AICF__OP_Pow: return "pow";
    case AICF__OP_Max: return "max";
    case AICF__OP_Min: return "min";
    default: return NULL;
    }
}

static aicf_result aicf__cuo_lower_binary(aicf__cuo* c) {
    const char* fn = aicf__cuo_binfn(c->nd->op);
    int nin = c->st->n_in, y = aicf__cuo_out(c, 0), i;
    aicf__shape sa, sb;
    const aicf__shape* sy = aicf__cuo_shape(c, y);
    aicf_result r;
    char keep[192];
    while (nin > 0 && aicf__cuo_in(c, nin - 1) < 0) nin--;
    if ((r = aicf__cuo_floats(c, nin)) != AICF_SUCCESS) return r;
    for (i = 0; i < nin; i++)
        if (aicf__cuo_in(c, i) < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
    if (nin == 1) { /* Sum/Max/Min of one input: a copy */
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "one input: device-to-device copy");
        return aicf__cuo_copy(c, y, 0, aicf__cuo_in(c, 0), 0, c->p->loc[y].bytes);
    }
    aicf__cuo_bin_shape(c, 0, &sa);
    aicf__cuo_bin_shape(c, 1, &sb);
    if ((r = aicf__cuo_binary(c, fn, aicf__cuo_in(c, 0), &sa, aicf__cuo_in(c, 1), &sb, y, sy)) != AICF_SUCCESS) return r;
    memcpy(keep, c->reason, sizeof keep);
    /* Sum/Max/Min of n > 2 inputs: y = fn(y, input k) in input order */
    for (i = 2; i < nin; i++) {
        aicf__cuo_bin_shape(c, i, &sb);
        if ((r = aicf__cuo_binary(c, fn, y, sy, aicf__cuo_in(c, i), &sb, y, sy)) != AICF_SUCCESS) return r;
    }
    if (nin > 2) aicf__cuo_reason(c, "%d inputs as a chain of %d binary kernels; first: %.140s", nin, nin - 1, keep);
    if (c->nd->op == AICF__OP_Mean) { /* the sum, then divided by the input count (as the CPU reference) */
        memcpy(keep, c->reason, sizeof keep);
        if ((r = aicf__cuo_unary_launch(c, "divs", y, y, (float)nin, 0.0f)) != AICF_SUCCESS) return r;
        aicf__cuo_reason(c, "sum of %d inputs, then divided by %d; first: %.130s", nin, nin, keep);
    }
    return AICF_SUCCESS;
}

/* ---- data movement: permute (Transpose, broadcast copies), Concat, Cast ---- */

/* y (shape[rank], row-major) = x read with element strides sx[] (any strides, 0 to broadcast,
   negative to walk backwards from the byte offset add_x; rank up to 2 * AICF_MAX_RANK before
   size-1 dims are dropped and neighbours merged, AICF_MAX_RANK after).
   Picks: a copy when the collapsed view is the identity, the tiled 2-D transpose when it is a
   (batched) matrix transpose, else the generic permute kernel. add_x/add_y: byte offsets. */
static aicf_result aicf__cuo_permute(aicf__cuo* c, int x, uint64_t add_x, int y, uint64_t add_y, const int64_t* shape_in,
                                     int rank_in, const int64_t* sx_in) {
    int64_t shape[2 * AICF_MAX_RANK], sx[2 * AICF_MAX_RANK], n = 1; /* views up to twice the rank (Tile) */
    int64_t* st[1];
    int rank, i;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    for (i = 0; i < rank_in; i++) {
        shape[i] = shape_in[i];
        sx[i] = sx_in[i];
        n *= shape[i];
    }
    if (n == 0) return AICF_SUCCESS;
    st[0] = sx;
    rank = aicf__cuo_collapse(shape, rank_in, st, 1);
    if (rank > AICF_MAX_RANK)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "the strided copy needs %d dimensions after merging (limit %d)", rank,
                              AICF_MAX_RANK);
    if (rank == 0 || (rank == 1 && sx[0] == 1)) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "the permutation keeps memory order: device-to-device copy");
        return aicf__cuo_copy(c, y, add_y, x, add_x, (uint64_t)n * c->es);
    }
    /* [B,] R x C -> C x R: output dims (..., C, R) read with strides (..., 1, C) */
    if ((rank == 2 && sx[1] == shape[0] && sx[0] == 1) ||
        (rank == 3 && sx[1] == 1 && sx[2] == shape[1] && sx[0] == shape[1] * shape[2])) {
        aicf__k_transpose2d a;
        int64_t rows = shape[rank - 1], cols = shape[rank - 2], batch = rank == 3 ? shape[0] : 1;
        if (rows >= 8 && cols >= 8 && (cols + 31) / 32 <= 0x7fffffff && (rows + 31) / 32 <= 65535) {
            memset(&a, 0, sizeof a);
            a.batch = batch;
            a.rows = rows;
            a.cols = cols;
            grid[0] = (unsigned)((cols + 31) / 32);
            grid[1] = (unsigned)((rows + 31) / 32);
            grid[2] = (unsigned)AICF__MIN(batch, 65535);
            block[0] = 32;
            block[1] = 8;
            block[2] = 1;
            snprintf(name, sizeof name, "aicf_transpose2d_%s", aicf__cuo_dtn(c));
            if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
            aicf__cuo_patch(op, offsetof(aicf__k_transpose2d, x), x, add_x);
            aicf__cuo_patch(op, offsetof(aicf__k_transpose2d, y), y, add_y);
            aicf__cuo_reason(c, "tiled 32x32 transpose: collapses to %lld x [%lld,%lld] -> [%lld,%lld]", (long long)batch,
                             (long long)rows, (long long)cols, (long long)cols, (long long)rows);
            return AICF_SUCCESS;
        }
    }
    {
        aicf__k_permute a;
        int64_t vw = 16 / (int64_t)c->es; /* elements per 16-byte group */
        int vec = sx[rank - 1] == 1 && shape[rank - 1] % vw == 0 && aicf__cuo_align(c, x, add_x) >= 16 &&
                  aicf__cuo_align(c, y, add_y) >= 16;
        for (i = 0; i < rank - 1 && vec; i++)
            if (sx[i] % vw != 0) vec = 0;
        memset(&a, 0, sizeof a);
        a.n = vec ? n / vw : n;
        a.rank = rank;
        for (i = 0; i < rank; i++) {
            a.shape[i] = shape[i] / (vec && i == rank - 1 ? vw : 1);
            a.sx[i] = vec && i < rank - 1 ? sx[i] / vw : sx[i];
        }
        if (vec) snprintf(name, sizeof name, "aicf_permute_%s_v%lld", aicf__cuo_dtn(c), (long long)vw);
        else snprintf(name, sizeof name, "aicf_permute_%s", aicf__cuo_dtn(c));
        aicf__cuo_dims1(a.n, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_permute, x), x, add_x);
        aicf__cuo_patch(op, offsetof(aicf__k_permute, y), y, add_y);
        aicf__cuo_reason(c, "strided gather: %lld elements over %d collapsed dims%s", (long long)n, rank,
                         vec ? ", 16-byte groups (innermost dim contiguous)" : "");
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_transpose(aicf__cuo* c) {
    const aicf__shape* xs;
    int64_t xst[AICF_MAX_RANK], sx[AICF_MAX_RANK], shape[AICF_MAX_RANK];
    const int64_t* pv = NULL;
    int perm[AICF_MAX_RANK], r, i, cnt;
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    xs = aicf__cuo_shape(c, aicf__cuo_in(c, 0));
    r = xs->rank;
    cnt = aicf__attr_ints(c->nd, "perm", &pv);
    for (i = 0; i < r; i++) {
        int64_t a = cnt == r ? pv[i] : r - 1 - i;
        if (a < 0) a += r;
        if (a < 0 || a >= r) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'perm' entry %d is out of range", i);
        perm[i] = (int)a;
    }
    if (r == 0) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "rank 0: device-to-device copy");
        return aicf__cuo_copy(c, aicf__cuo_out(c, 0), 0, aicf__cuo_in(c, 0), 0, c->es);
    }
    xst[r - 1] = 1;
    for (i = r - 2; i >= 0; i--) xst[i] = xst[i + 1] * xs->d[i + 1];
    for (i = 0; i < r; i++) {
        sx[i] = xst[perm[i]];
        shape[i] = xs->d[perm[i]];
    }
    return aicf__cuo_permute(c, aicf__cuo_in(c, 0), 0, aicf__cuo_out(c, 0), 0, shape, r, sx);
}

static aicf_result aicf__cuo_lower_concat(aicf__cuo* c) {
    int y = aicf__cuo_out(c, 0), nin = c->st->n_in, i, ax, launches = 0, vec4 = 0;
    const aicf__shape* ys = aicf__cuo_shape(c, y);
    int64_t axis = aicf__attr_i(c->nd, "axis", 1), outer, inner, ycols, pos = 0;
    aicf_result r;
    while (nin > 0 && aicf__cuo_in(c, nin - 1) < 0) nin--;
    if ((r = aicf__cuo_floats(c, nin)) != AICF_SUCCESS) return r;
    if (ys->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output is a scalar");
    if (axis < 0) axis += ys->rank;
    if (axis < 0 || axis >= ys->rank) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' is out of range");
    ax = (int)axis;
    outer = aicf__cuo_prod(ys, 0, ax);
    inner = aicf__cuo_prod(ys, ax + 1, ys->rank);
    ycols = ys->d[ax] * inner;
    if (nin > 0 && aicf__cuo_in(c, 0) >= 0 && c->p->loc[aicf__cuo_in(c, 0)].alias_of == y) { /* the memory plan made views */
        for (i = 0; i < nin; i++)
            if (aicf__cuo_in(c, i) < 0 || c->p->loc[aicf__cuo_in(c, i)].alias_of != y)
                return aicf__cuo_fail(c, AICF_ERROR_STATE, "input %d is not the view of the output the memory plan recorded", i);
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "%d inputs are views into the output's storage (concat along axis %d, only 1s before it): their "
                            "producers wrote in place, no copy",
                         nin, ax);
        return AICF_SUCCESS;
    }
    for (i = 0; i < nin; i++) {
        int x = aicf__cuo_in(c, i);
        int64_t cols;
        if (x < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
        cols = aicf__cuo_shape(c, x)->d[ax] * inner;
        if (cols > 0 && outer > 0) {
            if (outer == 1) {
                if ((r = aicf__cuo_copy(c, y, (uint64_t)pos * c->es, x, 0, (uint64_t)cols * c->es)) != AICF_SUCCESS) return r;
            } else {
                aicf__k_copy2d a;
                unsigned grid[3], block[3];
                aicf__cuo_op* op = NULL;
                char name[96];
                int v = cols % 4 == 0 && ycols % 4 == 0 && aicf__cuo_align(c, x, 0) >= 4 * c->es &&
                                aicf__cuo_align(c, y, (uint64_t)pos * c->es) >= 4 * c->es
                            ? 4
                            : 1;
                memset(&a, 0, sizeof a);
                a.rows = outer;
                a.cols = cols;
                a.ldx = cols;
                a.ldy = ycols;
                snprintf(name, sizeof name, "aicf_copy2d_%s_v%d", aicf__cuo_dtn(c), v);
                aicf__cuo_dims1(outer * cols / v, grid, block);
                if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, x), x, 0);
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, y), y, (uint64_t)pos * c->es);
                if (v == 4) vec4++;
            }
            launches++;
        }
        pos += cols;
    }
    if (outer == 1) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "%d inputs, outer size 1: one device-to-device copy each", launches);
    } else {
        aicf__cuo_reason(c, "%d strided 2-D copies (%lld rows each), %d of them vec4", launches, (long long)outer, vec4);
    }
    return AICF_SUCCESS;
}

/* Converts tensor x (storage sdx) into y (storage sdy) elementwise. */
static aicf_result aicf__cuo_convert(aicf__cuo* c, int x, int y) {
    aicf_dtype sx = c->p->loc[x].sdtype, sy = c->p->loc[y].sdtype;
    int64_t n = aicf__cuo_numel(c, y);
    int fx = sx == AICF_DTYPE_FLOAT32 || sx == AICF_DTYPE_FLOAT16, fy = sy == AICF_DTYPE_FLOAT32 || sy == AICF_DTYPE_FLOAT16;
    if (sx == sy) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "same storage type (%s): device-to-device copy", aicf_dtype_name(sx));
        return aicf__cuo_copy(c, y, 0, x, 0, c->p->loc[y].bytes);
    }
    if (!fx || !fy)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "conversion %s -> %s is not supported on the device (float32 <-> float16 only)",
                              aicf_dtype_name(sx), aicf_dtype_name(sy));
    {
        aicf__k_cast a;
        unsigned grid[3], block[3];
        aicf__cuo_op* op = NULL;
        char name[96];
        const char* src = sx == AICF_DTYPE_FLOAT16 ? "f16" : "f32";
        const char* dst = sy == AICF_DTYPE_FLOAT16 ? "f16" : "f32";
        int v = n % 4 == 0 && aicf__cuo_align(c, x, 0) >= 4 * aicf_dtype_size(sx) &&
                        aicf__cuo_align(c, y, 0) >= 4 * aicf_dtype_size(sy)
                    ? 4
                    : 1;
        aicf_result r;
        memset(&a, 0, sizeof a);
        a.n = n;
        snprintf(name, sizeof name, "aicf_cast_%s_%s_v%d", src, dst, v);
        aicf__cuo_dims1(n / v, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_cast, x), x, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_cast, y), y, 0);
        aicf__cuo_reason(c, "%s -> %s, %lld elements%s", src, dst, (long long)n, v == 4 ? ", vec4" : "");
    }
    return AICF_SUCCESS;
}

/* Identity, Dropout, Reshape, Flatten, Squeeze, Unsqueeze. */
static aicf_result aicf__cuo_lower_alias(aicf__cuo* c) {
    int x = aicf__cuo_in(c, 0), y = aicf__cuo_out(c, 0);
    if (c->nd->op == AICF__OP_Dropout && aicf__cuo_out(c, 1) >= 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "output 1 '%.200s' (mask) is not produced on the device",
                              c->g->tensors[aicf__cuo_out(c, 1)].name ? c->g->tensors[aicf__cuo_out(c, 1)].name : "");
    if (c->p->loc[y].alias_of >= 0) {
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "output aliases input storage");
        return AICF_SUCCESS;
    }
    if (c->p->loc[x].sdtype != c->p->loc[y].sdtype || c->p->loc[x].bytes != c->p->loc[y].bytes)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "output storage (%s, %zu bytes) differs from input storage (%s, %zu bytes)",
                              aicf_dtype_name(c->p->loc[y].sdtype), c->p->loc[y].bytes, aicf_dtype_name(c->p->loc[x].sdtype),
                              c->p->loc[x].bytes);
    snprintf(c->kernel, sizeof c->kernel, "memcpy");
    aicf__cuo_reason(c, "output has its own storage (input in %s): device-to-device copy",
                     c->p->loc[x].space == AICF__SPACE_WEIGHTS ? "weights" : "arena");
    return aicf__cuo_copy(c, y, 0, x, 0, c->p->loc[y].bytes);
}

/* ---- GEMM: cuBLASLt or the generated tiled kernel ---- */

/* Asks cuBLASLt for an algorithm. *slot = the record's index, or -1 when the caller must use a
   generated kernel (why[] then says why). Only out-of-memory is an error. */
static aicf_result aicf__cuo_mm_plan(aicf__cuo* c, const aicf__matmul_desc* md, int* slot, char* why, size_t cap) {
    void* algo = NULL;
    aicf_result r;
    char saved[AICF__ERR_CAP];
    *slot = -1;
    why[0] = 0;
    if (c->n_algo >= AICF__CUO_MAX_ALGO) {
        snprintf(why, cap, "more than %d cuBLASLt algorithms in one step", AICF__CUO_MAX_ALGO);
        return AICF_SUCCESS;
    }
    memcpy(saved, AICF__ERRBUF(c->ctx), sizeof saved);
    r = aicf__cuda_matmul_plan(c->p, md, &algo, why, cap);
    if (r == AICF_SUCCESS) {
        c->algo[c->n_algo] = algo;
        *slot = c->n_algo++;
        return AICF_SUCCESS;
    }
    if (algo) aicf__free(c->ctx, algo);
    if (r == AICF_ERROR_OUT_OF_MEMORY) return r;
    snprintf(why, cap, "%.150s", AICF__ERRBUF(c->ctx)[0] ? AICF__ERRBUF(c->ctx) : aicf_result_str(r));
    memcpy(AICF__ERRBUF(c->ctx), saved, sizeof saved); /* falling back is not an error */
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_mm_push(aicf__cuo* c, const aicf__matmul_desc* md, int slot, int ta, uint64_t oa, int tb,
                                     uint64_t ob, int tc, uint64_t oc, int td, uint64_t od, int tbias) {
    aicf__cuo_op* op = NULL;
    aicf_result r;
    if ((r = aicf__cuo_push(c, AICF__CUO_MATMUL, &op)) != AICF_SUCCESS) return r;
    op->algo = slot;
    op->args_size = (uint32_t)sizeof *md;
    memcpy(op->args, md, sizeof *md);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, a), ta, oa);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, b), tb, ob);
    aicf__cuo_patch(op, offsetof(aicf__matmul_desc, d), td, od);
    if (tc >= 0) aicf__cuo_patch(op, offsetof(aicf__matmul_desc, c), tc, oc);
    if (tbias >= 0) aicf__cuo_patch(op, offsetof(aicf__matmul_desc, bias_ptr), tbias, 0);
    snprintf(c->kernel, sizeof c->kernel, "cublasLt:matmul");
    return AICF_SUCCESS;
}

/* Launches the generated GEMM for args g (addresses patched from the tensors + byte offsets).
   *variant receives "t64" or "t16". */
static aicf_result aicf__cuo_gemm_kernel(aicf__cuo* c, const aicf__k_gemm* g, int ta, uint64_t oa, int tb, uint64_t ob,
                                         int tc, uint64_t oc, int td, uint64_t od, const char** variant) {
    int64_t t64 = ((g->M + 63) / 64) * ((g->N + 63) / 64) * g->batch;
    int use64 = t64 >= 128 || (g->M + 15) / 16 > 65535;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    int64_t tile = use64 ? 64 : 16;
    if ((g->M + tile - 1) / tile > 65535 || (g->N + tile - 1) / tile > 0x7fffffff)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "GEMM M = %lld N = %lld exceeds the generated kernel's grid", (long long)g->M,
                              (long long)g->N);
    grid[0] = (unsigned)((g->N + tile - 1) / tile);
    grid[1] = (unsigned)((g->M + tile - 1) / tile);
    grid[2] = (unsigned)AICF__MIN(g->batch, 65535);
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    *variant = use64 ? "t64" : "t16";
    snprintf(name, sizeof name, "aicf_gemm_%s_%s", *variant, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, g, sizeof *g, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, a), ta, oa);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, b), tb, ob);
    aicf__cuo_patch(op, offsetof(aicf__k_gemm, d), td, od);
    if (tc >= 0) aicf__cuo_patch(op, offsetof(aicf__k_gemm, c), tc, oc);
    return AICF_SUCCESS;
}

static void aicf__cuo_mm_desc(aicf__cuo* c, aicf__matmul_desc* md) {
    memset(md, 0, sizeof *md);
    md->batch = 1;
    md->alpha = 1.0f;
    md->dtype = c->f16 ? AICF_DTYPE_FLOAT16 : AICF_DTYPE_FLOAT32;
    /* the tf32 policy puts GEMMs (Gemm, MatMul) on TF32 tensor cores; convolutions lowered to
       GEMMs set it themselves (src/82_cuda_conv.c) */
    md->tf32 = !c->f16 && c->p->policy.precision == AICF_PRECISION_TF32 && c->nd &&
               (c->nd->op == AICF__OP_Gemm || c->nd->op == AICF__OP_MatMul);
}

/* Plan time: cuBLASLt's search reads the address fields as byte offsets to decide the alignment
   it may assume; give it each operand's alignment (a power of two, itself that aligned). */
static void aicf__cuo_mm_align(const aicf__cuo* c, aicf__matmul_desc* md, int ta, int tb, int tc, int td) {
    md->a = ta >= 0 ? aicf__cuo_align(c, ta, 0) : 0;
    md->b = tb >= 0 ? aicf__cuo_align(c, tb, 0) : 0;
    md->c = tc >= 0 ? aicf__cuo_align(c, tc, 0) : 0;
    md->d = td >= 0 ? aicf__cuo_align(c, td, 0) : 0;
}

static void aicf__cuo_gemm_from_desc(const aicf__matmul_desc* md, aicf__k_gemm* g) {
    memset(g, 0, sizeof *g);
    g->M = md->M;
    g->N = md->N;
    g->K = md->K;
    g->lda = md->lda;
    g->ldb = md->ldb;
    g->ldd = md->ldc;
    g->trans_a = md->trans_a;
    g->trans_b = md->trans_b;
    g->batch = md->batch;
    g->stride_a = md->stride_a;
    g->stride_b = md->stride_b;
    g->stride_c = md->stride_c;
    g->stride_d = md->stride_c;
    g->alpha = md->alpha;
    g->beta = md->beta;
    g->relu = md->relu;
}

/* cuBLASLt epilogue fusion: how many leading epilogue ops of the step the matmul itself can do:
   first a Mul or Div by a constant scalar (into alpha), then Adds of a row-broadcast vector [N] (the bias epilogue) or of a tensor shaped like the output
   (beta = 1 with C), then one Relu (D = relu(A B + C + bias)). Fills *bias_t / *c_t (-1 if
   unused) and md->bias / beta / relu. Additions commute, so the order of the Adds is free; a
   Relu ends the run. */
static int aicf__cuo_mm_epi(const aicf__cuo* c, aicf__matmul_desc* md, int Y, int* bias_t, int* c_t) {
    int k = 0, relu = 0;
    const aicf__step* st = c->st;
    int64_t ny = aicf__cuo_numel(c, Y);
    *bias_t = *c_t = -1;
    while (k < st->n_epi && !relu) {
        const aicf__epi* e = &st->epi[k];
        /* a leading scale by a plan-time constant scalar (attention's 1/sqrt(d)) goes into alpha */
        if (k == 0 && md->beta == 0.0f && !md->bias && /* nothing else the scale would have to cover */
            (e->op == AICF__OP_Mul || (e->op == AICF__OP_Div && !e->operand_left)) && e->operand >= 0) {
            const aicf__tensor* t = &c->g->tensors[e->operand];
            float v;
            if ((t->flags & AICF__T_CONST) && t->data && t->dtype == AICF_DTYPE_FLOAT32 && t->data_bytes == sizeof(float)) {
                memcpy(&v, t->data, sizeof v);
                if (e->op == AICF__OP_Mul) md->alpha *= v;
                else md->alpha /= v;
                k++;
                continue;
            }
            break;
        }
        if (e->op == AICF__OP_Add && e->operand >= 0) {
            const aicf__shape* os = aicf__cuo_shape(c, e->operand);
            int64_t no = aicf__shape_numel(os);
            int row = os->rank >= 1 && os->d[os->rank - 1] == md->N && no == md->N;
            if (row && !md->bias && *bias_t < 0) {
                *bias_t = e->operand;
                md->bias = 1;
                k++;
                continue;
            }
            if (no == ny && aicf__same_shape(os, aicf__cuo_shape(c, Y)) && md->beta == 0.0f && *c_t < 0) {
                *c_t = e->operand;
                md->beta = 1.0f;
                k++;
                continue;
            }
            break;
        }
        if (e->op == AICF__OP_Relu && !md->relu) {
            md->relu = 1;
            relu = 1;
            k++;
            continue;
        }
        break;
    }
    return k;
}

static aicf_result aicf__cuo_lower_gemv(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y);

static aicf_result aicf__cuo_lower_gemm(aicf__cuo* c) {
    const aicf__node* n = c->nd;
    int A = aicf__cuo_in(c, 0), B = aicf__cuo_in(c, 1), C = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), slot = -1;
    const aicf__shape* as = aicf__cuo_shape(c, A);
    const aicf__shape* bs = aicf__cuo_shape(c, B);
    int64_t ta = aicf__attr_i(n, "transA", 0), tb = aicf__attr_i(n, "transB", 0);
    float alpha = aicf__attr_f(n, "alpha", 1.0f), beta = aicf__attr_f(n, "beta", 1.0f);
    int64_t cm = 1, cn = 1, c_rs = 0, c_cs = 0;
    int has_c, mode = 0; /* cuBLASLt C term: 0 none, 1 C is [M,N], 2 bias epilogue, 3 broadcast copy */
    aicf__matmul_desc md;
    char why[192];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (as->rank != 2 || bs->rank != 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "inputs A and B must be 2-D");
    aicf__cuo_mm_desc(c, &md);
    md.trans_a = ta != 0;
    md.trans_b = tb != 0;
    md.M = ta ? as->d[1] : as->d[0];
    md.K = ta ? as->d[0] : as->d[1];
    md.N = tb ? bs->d[0] : bs->d[1];
    md.lda = as->d[1];
    md.ldb = bs->d[1];
    md.ldc = md.N;
    md.alpha = alpha;
    has_c = C >= 0 && beta != 0.0f;
    if (has_c) {
        const aicf__shape* cs = aicf__cuo_shape(c, C);
        if (cs->rank > 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 2 (C) has rank %d", cs->rank);
        if (cs->rank == 2) cm = cs->d[0];
        if (cs->rank >= 1) cn = cs->d[cs->rank - 1];
        c_rs = cm == 1 ? 0 : cn;
        c_cs = cn == 1 ? 0 : 1;
        if (cm == md.M && cn == md.N) mode = 1;
        else if (cm == 1 && cn == md.N && beta == 1.0f) mode = 2;
        else mode = 3;
        if (mode == 1 || mode == 3) md.beta = beta;
        if (mode == 2) md.bias = 1;
    }
    if (c->p->policy.matmul_algo != AICF_MATMUL_CUBLASLT) {
        r = aicf__cuo_lower_gemv(c, &md, A, B, has_c ? C : -1, beta, Y);
        if (r != AICF_ERROR_UNSUPPORTED) return r;
    }
    {
        aicf__matmul_desc plain = md;
        int n_native = 0, ebias = -1, ec = -1;
        if (mode != 3 && c->p->policy.matmul_algo != AICF_MATMUL_GENERATED) n_native = aicf__cuo_mm_epi(c, &md, Y, &ebias, &ec);
        aicf__cuo_mm_align(c, &md, A, B, mode == 1 ? C : (mode == 3 ? Y : ec), Y);
        if (md.K > 0 && c->p->policy.matmul_algo != AICF_MATMUL_GENERATED) {
            if ((r = aicf__cuo_mm_plan(c, &md, &slot, why, sizeof why)) != AICF_SUCCESS) return r;
        } else {
            snprintf(why, sizeof why, md.K > 0 ? "policy: generated GEMM" : "K = 0");
        }
        if (slot < 0 && n_native > 0) { /* the generated kernel: no epilogue inside */
            md = plain;
            n_native = 0;
            ebias = ec = -1;
        }
        if (slot >= 0 && n_native > 0) {
            c->st->epi_native = n_native;
            if ((r = aicf__cuo_mm_push(c, &md, slot, A, 0, B, 0, mode == 1 ? C : ec, 0, Y, 0,
                                       mode == 2 ? C : ebias)) != AICF_SUCCESS)
                return r;
            aicf__cuo_reason(c, "%.100s; M=%lld N=%lld K=%lld%s; epilogue inside cuBLASLt:%s%s%s", why, (long long)md.M,
                             (long long)md.N, (long long)md.K, mode == 2 ? ", C as bias" : "", ebias >= 0 ? " bias" : "",
                             ec >= 0 ? " residual (beta C)" : "", md.relu ? " relu" : "");
            return AICF_SUCCESS;
        }
    }
    if (slot >= 0) {
        if (mode == 3) { /* C broadcast into Y, then Y = alpha A B + beta Y */
            int64_t shape[2], sx[2];
            shape[0] = md.M;
            shape[1] = md.N;
            sx[0] = c_rs;
            sx[1] = c_cs;
            if ((r = aicf__cuo_permute(c, C, 0, Y, 0, shape, 2, sx)) != AICF_SUCCESS) return r;
        }
        if ((r = aicf__cuo_mm_push(c, &md, slot, A, 0, B, 0, mode == 1 ? C : (mode == 3 ? Y : -1), 0, Y, 0,
                                   mode == 2 ? C : -1)) != AICF_SUCCESS)
            return r;
        aicf__cuo_reason(c, "%.110s; M=%lld N=%lld K=%lld%s", why, (long long)md.M, (long long)md.N, (long long)md.K,
                         mode == 2 ? ", C as bias epilogue" : (mode == 3 ? ", C broadcast-copied into Y first" : ""));
    } else {
        aicf__k_gemm g;
        const char* v;
        aicf__cuo_gemm_from_desc(&md, &g);
        g.beta = has_c ? beta : 0.0f;
        g.c_rs = c_rs;
        g.c_cs = c_cs;
        if ((r = aicf__cuo_gemm_kernel(c, &g, A, 0, B, 0, has_c ? C : -1, 0, Y, 0, &v)) != AICF_SUCCESS) return r;
        aicf__cuo_reason(c, "generated %s GEMM M=%lld N=%lld K=%lld%s (cuBLASLt: %.80s)", v, (long long)md.M, (long long)md.N,
                         (long long)md.K, has_c ? ", C strided" : "", why);
    }
    return AICF_SUCCESS;
}

/* MatMul (numpy semantics): one GEMM when B has no batch (A's batch folds into M), else a
   strided-batched GEMM over the innermost collapsed batch dim, repeated over the outer ones. */
static aicf_result aicf__cuo_lower_matmul(aicf__cuo* c) {
    int A = aicf__cuo_in(c, 0), B = aicf__cuo_in(c, 1), Y = aicf__cuo_out(c, 0), slot = -1, i, R, k;
    const aicf__shape* as = aicf__cuo_shape(c, A);
    const aicf__shape* bs = aicf__cuo_shape(c, B);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int ra = as->rank, rb = bs->rank;
    int64_t M, N, K, nbB, nrep = 1, inner_count = 1, sa_in = 0, sb_in = 0;
    aicf__shape ba, bb, ob;
    int64_t sta[AICF_MAX_RANK], stb[AICF_MAX_RANK], std_[AICF_MAX_RANK], shape[AICF_MAX_RANK];
    int64_t* st[3];
    int64_t idx[AICF_MAX_RANK];
    aicf__matmul_desc md;
    char why[192];
    const char* v = "";
    int mm_bias = -1, mm_c = -1;
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 2)) != AICF_SUCCESS) return r;
    if (ra < 1 || rb < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "MatMul needs inputs of rank >= 1");
    M = ra >= 2 ? as->d[ra - 2] : 1;
    K = as->d[ra - 1];
    N = rb >= 2 ? bs->d[rb - 1] : 1;
    memset(&ba, 0, sizeof ba);
    memset(&bb, 0, sizeof bb);
    memset(&ob, 0, sizeof ob);
    ba.rank = ra >= 2 ? ra - 2 : 0;
    for (i = 0; i < ba.rank; i++) ba.d[i] = as->d[i];
    bb.rank = rb >= 2 ? rb - 2 : 0;
    for (i = 0; i < bb.rank; i++) bb.d[i] = bs->d[i];
    ob.rank = ys->rank - (ra >= 2) - (rb >= 2);
    if (ob.rank < 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output rank %d does not fit the inputs", ys->rank);
    for (i = 0; i < ob.rank; i++) ob.d[i] = ys->d[i];
    nbB = aicf__shape_numel(&bb);
    aicf__cuo_mm_desc(c, &md);
    md.N = N;
    md.K = K;
    md.lda = K;
    md.ldb = N;
    md.ldc = N;
    R = 0;
    if (nbB == 1) { /* fold A's batch into M */
        md.M = M * aicf__shape_numel(&ob);
    } else {
        aicf__cuo_bstrides(&ba, &ob, sta);
        aicf__cuo_bstrides(&bb, &ob, stb);
        {
            int64_t s = M * N;
            for (i = ob.rank - 1; i >= 0; i--) {
                std_[i] = s;
                s *= ob.d[i];
            }
        }
        for (i = 0; i < ob.rank; i++) {
            sta[i] *= M * K;
            stb[i] *= K * N;
            shape[i] = ob.d[i];
        }
        st[0] = sta;
        st[1] = stb;
        st[2] = std_;
        R = aicf__cuo_collapse(shape, ob.rank, st, 3);
        md.M = M;
        if (R > 0) {
            inner_count = shape[R - 1];
            sa_in = sta[R - 1];
            sb_in = stb[R - 1];
            for (i = 0; i < R - 1; i++) nrep *= shape[i];
        }
        if (nrep > AICF__CUO_MAX_OPS)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                                  "batch broadcasting needs %lld separate GEMMs (limit %d)", (long long)nrep, AICF__CUO_MAX_OPS);
        md.batch = inner_count;
        md.stride_a = sa_in;
        md.stride_b = sb_in;
        md.stride_c = M * N;
    }
    aicf__cuo_mm_align(c, &md, A, B, -1, Y);
    memset(idx, 0, sizeof idx);
    for (k = 0; k < nrep; k++) { /* the alignment must hold for every repetition */
        uint64_t oa = 0, obb = 0, od = 0, al;
        for (i = 0; i < R - 1; i++) {
            oa += (uint64_t)(idx[i] * sta[i]);
            obb += (uint64_t)(idx[i] * stb[i]);
            od += (uint64_t)(idx[i] * std_[i]);
        }
        if ((al = aicf__cuo_align(c, A, oa * c->es)) < md.a) md.a = al;
        if ((al = aicf__cuo_align(c, B, obb * c->es)) < md.b) md.b = al;
        if ((al = aicf__cuo_align(c, Y, od * c->es)) < md.d) md.d = al;
        for (i = R - 2; i >= 0; i--) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    {
        aicf__matmul_desc plain = md;
        int n_native = 0;
        if (nrep == 1 && c->p->policy.matmul_algo != AICF_MATMUL_GENERATED) {
            n_native = aicf__cuo_mm_epi(c, &md, Y, &mm_bias, &mm_c);
            if (mm_c >= 0) md.c = aicf__cuo_align(c, mm_c, 0);
        }
        if (K > 0 && c->p->policy.matmul_algo != AICF_MATMUL_GENERATED) {
            if ((r = aicf__cuo_mm_plan(c, &md, &slot, why, sizeof why)) != AICF_SUCCESS) return r;
        } else {
            snprintf(why, sizeof why, K > 0 ? "policy: generated GEMM" : "K = 0");
        }
        if (slot < 0 || n_native == 0) {
            if (n_native) md = plain;
            n_native = 0;
            mm_bias = mm_c = -1;
        }
        c->st->epi_native = n_native;
    }
    memset(idx, 0, sizeof idx);
    for (k = 0; k < nrep; k++) {
        uint64_t oa = 0, obb = 0, od = 0;
        for (i = 0; i < R - 1; i++) {
            oa += (uint64_t)(idx[i] * sta[i]);
            obb += (uint64_t)(idx[i] * stb[i]);
            od += (uint64_t)(idx[i] * std_[i]);
        }
        oa *= c->es;
        obb *= c->es;
        od *= c->es;
        if (slot >= 0) {
            if ((r = aicf__cuo_mm_push(c, &md, slot, A, oa, B, obb, mm_c, 0, Y, od, mm_bias)) != AICF_SUCCESS) return r;
        } else {
            aicf__k_gemm g;
            aicf__cuo_gemm_from_desc(&md, &g);
            g.beta = 0.0f;
            if ((r = aicf__cuo_gemm_kernel(c, &g, A, oa, B, obb, -1, 0, Y, od, &v)) != AICF_SUCCESS) return r;
        }
        for (i = R - 2; i >= 0; i--) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    if (slot >= 0)
        aicf__cuo_reason(c, "%.100s; M=%lld N=%lld K=%lld batch=%lld%s%s%s%s", why, (long long)md.M, (long long)N, (long long)K,
                         (long long)md.batch, nbB == 1 && ob.rank > 0 ? " (batch folded into M)" : "",
                         mm_bias >= 0 ? "; cuBLASLt epilogue: bias" : "", mm_c >= 0 ? ", residual (beta C)" : "",
                         md.relu ? ", relu" : "");
    else
        aicf__cuo_reason(c, "generated %s GEMM M=%lld N=%lld K=%lld batch=%lld x%lld (cuBLASLt: %.70s)", v, (long long)md.M,
                         (long long)N, (long long)K, (long long)md.batch, (long long)nrep, why);
    return AICF_SUCCESS;
}

/* ---- sliding windows: Conv, MaxPool, AveragePool (1-D as 2-D with H = 1) ---- */

typedef struct aicf__cuo_win {
    int64_t N, C, H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, phe, pwe;
} aicf__cuo_win;

/* Geometry of x -> y with kernel dims k[nsp], as the ONNX attributes (auto_pad, pads, strides,
   dilations) give it; y's spatial size is already inferred. */
static aicf_result aicf__cuo_window(aicf__cuo* c, const aicf__shape* x, const aicf__shape* y, const int64_t* k,
                                    aicf__cuo_win* w) {
    int nsp = x->rank - 2, i, cnt;
    int64_t in[2], out[2], kk[2], s[2], d[2], pb[2], pe[2];
    const int64_t* v = NULL;
    const char* ap = aicf__attr_s(c->nd, "auto_pad", "NOTSET");
    if (nsp == 3)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "3-D (rank 5) data is not supported on the device yet");
    if (nsp < 1 || nsp > 2 || y->rank != x->rank)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input rank %d is not supported on the device (1-D or 2-D NCHW)",
                              x->rank);
    for (i = 0; i < 2; i++) {
        in[i] = out[i] = kk[i] = s[i] = d[i] = 1;
        pb[i] = pe[i] = 0;
    }
    for (i = 0; i < nsp; i++) {
        in[2 - nsp + i] = x->d[2 + i];
        out[2 - nsp + i] = y->d[2 + i];
        kk[2 - nsp + i] = k[i];
    }
    cnt = aicf__attr_ints(c->nd, "strides", &v);
    if (cnt == nsp)
        for (i = 0; i < nsp; i++) s[2 - nsp + i] = v[i];
    cnt = aicf__attr_ints(c->nd, "dilations", &v);
    if (cnt == nsp)
        for (i = 0; i < nsp; i++) d[2 - nsp + i] = v[i];
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
        for (i = 2 - nsp; i < 2; i++) {
            int64_t dk = (kk[i] - 1) * d[i] + 1, total = (out[i] - 1) * s[i] + dk - in[i];
            if (total < 0) total = 0;
            pb[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            pe[i] = total - pb[i];
        }
    } else if (strcmp(ap, "VALID") != 0) {
        cnt = aicf__attr_ints(c->nd, "pads", &v);
        if (cnt == 2 * nsp)
            for (i = 0; i < nsp; i++) {
                pb[2 - nsp + i] = v[i];
                pe[2 - nsp + i] = v[nsp + i];
            }
    }
    w->N = x->d[0];
    w->C = x->d[1];
    w->H = in[0];
    w->W = in[1];
    w->OH = out[0];
    w->OW = out[1];
    w->KH = kk[0];
    w->KW = kk[1];
    w->sh = s[0];
    w->sw = s[1];
    w->dh = d[0];
    w->dw = d[1];
    w->ph = pb[0];
    w->pw = pb[1];
    w->phe = pe[0];
    w->pwe = pe[1];
    /* the kernels index rows and columns with 32-bit ints */
    if (w->H > 0x3fffffff || w->W > 0x3fffffff || w->OH * w->sh > 0x3fffffff || w->OW * w->sw > 0x3fffffff ||
        (w->KH - 1) * w->dh > 0x3fffffff || (w->KW - 1) * w->dw > 0x3fffffff)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "spatial sizes beyond 2^30 are not supported on the device");
    return AICF_SUCCESS;
}

/* src/82_cuda_conv.c: Conv as (im2col +) cuBLASLt GEMM when policy.conv_algo or its cost model
   picks it (*done = 1); otherwise why[] says why not. */
static aicf_result aicf__cuc_lower_gemm(aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, char* why,
                                        size_t cap, int* done);

static aicf_result aicf__cuo_lower_conv(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), done = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ws = aicf__cuo_shape(c, Wt);
    int64_t group = aicf__attr_i(c->nd, "group", 1), M, Cg, Mg, Kg, NP;
    aicf__cuo_win w;
    aicf__k_conv2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], why[192];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (xs->rank == 5) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "3-D convolution is not supported on the device yet");
    if ((r = aicf__cuo_window(c, xs, aicf__cuo_shape(c, Y), ws->d + 2, &w)) != AICF_SUCCESS) return r;
    M = ws->d[0];
    if (group < 1 || w.C % group || M % group) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "group %lld does not divide C and M", (long long)group);
    Cg = w.C / group;
    Mg = M / group;
    Kg = Cg * w.KH * w.KW;
    NP = w.N * w.OH * w.OW;
    memset(&a, 0, sizeof a);
    a.N = w.N;
    a.C = w.C;
    a.H = w.H;
    a.W = w.W;
    a.M = M;
    a.OH = w.OH;
    a.OW = w.OW;
    a.KH = w.KH;
    a.KW = w.KW;
    a.group = group;
    a.pad_h = w.ph;
    a.pad_w = w.pw;
    a.stride_h = w.sh;
    a.stride_w = w.sw;
    a.dil_h = w.dh;
    a.dil_w = w.dw;
    /* im2col + cuBLASLt GEMM, or the input itself as the GEMM's B for a pointwise conv */
    if ((r = aicf__cuc_lower_gemm(c, &w, M, group, why, sizeof why, &done)) != AICF_SUCCESS || done) return r;
    if (Mg >= 16 && Kg >= 16 && NP >= 64 && group <= 65535 && (Mg + 63) / 64 <= 65535 && (NP + 63) / 64 <= 0x7fffffff) {
        grid[0] = (unsigned)((NP + 63) / 64);
        grid[1] = (unsigned)((Mg + 63) / 64);
        grid[2] = (unsigned)group;
        block[0] = AICF__CUO_BLOCK;
        block[1] = block[2] = 1;
        snprintf(name, sizeof name, "aicf_conv2d_igemm_%s", aicf__cuo_dtn(c));
        aicf__cuo_reason(c, "implicit GEMM 64x64x16: M=%lld N=%lld K=%lld per group, %lld groups (%.100s)", (long long)Mg,
                         (long long)NP, (long long)Kg, (long long)group, why);
    } else {
        aicf__cuo_dims1(w.N * M * w.OH * w.OW, grid, block);
        snprintf(name, sizeof name, "aicf_conv2d_direct_%s", aicf__cuo_dtn(c));
        aicf__cuo_reason(c, "direct conv (one thread per output): %lld channels/group, K=%lld per output (%.100s)", (long long)Mg,
                         (long long)Kg, why);
    }
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d, bias), Bi, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, y), Y, 0);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_pool(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), cnt;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const int64_t* ks = NULL;
    int is_max = c->nd->op == AICF__OP_MaxPool;
    aicf__cuo_win w;
    aicf__k_pool2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (is_max && aicf__cuo_out(c, 1) >= 0)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "output 1 (Indices) is not supported");
    cnt = aicf__attr_ints(c->nd, "kernel_shape", &ks);
    if (cnt != xs->rank - 2) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'kernel_shape' has %d values", cnt);
    if ((r = aicf__cuo_window(c, xs, aicf__cuo_shape(c, Y), ks, &w)) != AICF_SUCCESS) return r;
    memset(&a, 0, sizeof a);
    a.NC = w.N * w.C;
    a.H = w.H;
    a.W = w.W;
    a.OH = w.OH;
    a.OW = w.OW;
    a.KH = w.KH;
    a.KW = w.KW;
    a.pad_h = w.ph;
    a.pad_w = w.pw;
    a.pad_h_end = w.phe;
    a.pad_w_end = w.pwe;
    a.stride_h = w.sh;
    a.stride_w = w.sw;
    a.dil_h = w.dh;
    a.dil_w = w.dw;
    a.count_include_pad = is_max ? 0 : aicf__attr_i(c->nd, "count_include_pad", 0) != 0;
    snprintf(name, sizeof name, "aicf_%s_%s", is_max ? "maxpool2d" : "avgpool2d", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.NC * a.OH * a.OW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_pool2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_pool2d, y), Y, 0);
    aicf__cuo_reason(c, "one thread per output, window %lldx%lld stride %lldx%lld%s", (long long)w.KH, (long long)w.KW,
                     (long long)w.sh, (long long)w.sw, xs->rank == 3 ? " (1-D as 2-D with H = 1)" : "");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_gap(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_rowmean a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    memset(&a, 0, sizeof a);
    a.rows = xs->d[0] * xs->d[1];
    a.n = aicf__cuo_prod(xs, 2, xs->rank);
    if (a.n == 0) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "empty spatial extent (the mean is NaN)");
    /* rows of <= 1024: a warp per row, 8 per block (templates/pool.cu.j2 decides by the same n) */
    grid[0] = (unsigned)AICF__MIN(a.n <= 1024 ? (a.rows + 7) / 8 : a.rows, AICF__CUO_MAX_GRID);
    grid[1] = grid[2] = 1;
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    snprintf(name, sizeof name, "aicf_rowmean_%s", aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_rowmean, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_rowmean, y), Y, 0);
    aicf__cuo_reason(c, a.n <= 1024 ? "one warp per (n,c): %lld rows of %lld, fixed butterfly reduction"
                                    : "one block per (n,c): %lld rows of %lld, fixed tree reduction",
                     (long long)a.rows, (long long)a.n);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_bn(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_batchnorm a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    static const size_t fields[4] = {offsetof(aicf__k_batchnorm, scale), offsetof(aicf__k_batchnorm, bias),
                                     offsetof(aicf__k_batchnorm, mean), offsetof(aicf__k_batchnorm, var)};
    if ((r = aicf__cuo_floats(c, 5)) != AICF_SUCCESS) return r;
    for (i = 1; i < c->st->n_out; i++)
        if (aicf__cuo_out(c, i) >= 0) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "training-mode outputs are not supported");
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    for (i = 1; i < 5; i++)
        if (aicf__cuo_in(c, i) < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d is omitted", i);
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.HW = aicf__cuo_prod(xs, 2, xs->rank);
    a.per_act = aicf__cuo_opset(c) < 9 && aicf__attr_i(c->nd, "spatial", 1) == 0;
    a.epsilon = aicf__attr_f(c->nd, "epsilon", 1e-5f);
    snprintf(name, sizeof name, "aicf_batchnorm_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.C * a.HW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_batchnorm, x), X, 0);
    for (i = 0; i < 4; i++) aicf__cuo_patch(op, fields[i], aicf__cuo_in(c, i + 1), 0);
    aicf__cuo_patch(op, offsetof(aicf__k_batchnorm, y), Y, 0);
    aicf__cuo_reason(c, "standalone per-%s affine (not folded into a Conv)", a.per_act ? "activation" : "channel");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_lrn(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_lrn a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", xs->rank);
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.HW = aicf__cuo_prod(xs, 2, xs->rank);
    a.size = aicf__attr_i(c->nd, "size", 1);
    if (a.size < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'size' must be >= 1");
    a.alpha = aicf__attr_f(c->nd, "alpha", 1e-4f);
    a.beta = aicf__attr_f(c->nd, "beta", 0.75f);
    a.bias = aicf__attr_f(c->nd, "bias", 1.0f);
    snprintf(name, sizeof name, "aicf_lrn_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.C * a.HW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_lrn, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_lrn, y), Y, 0);
    aicf__cuo_reason(c, "one thread per element, window of %lld channels", (long long)a.size);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_softmax(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), rank;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t axis = aicf__attr_i(c->nd, "axis", aicf__cuo_opset(c) < 13 ? 1 : -1);
    aicf__k_softmax a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    const char* v;
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    rank = xs->rank;
    if (rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'axis' is out of range");
    memset(&a, 0, sizeof a);
    a.outer = aicf__cuo_prod(xs, 0, (int)axis);
    if (aicf__cuo_opset(c) < 13) {
        a.n = aicf__cuo_prod(xs, (int)axis, rank);
        a.inner = 1;
    } else {
        a.n = xs->d[axis];
        a.inner = aicf__cuo_prod(xs, (int)axis + 1, rank);
    }
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.inner > 1) {
        v = "strided";
        aicf__cuo_dims1(a.outer * a.inner, grid, block);
        aicf__cuo_reason(c, "inner size %lld > 1: one thread per column of %lld", (long long)a.inner, (long long)a.n);
    } else if (a.n <= 1024) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.outer + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "rows of %lld <= 1024: one warp per row, %lld rows", (long long)a.n, (long long)a.outer);
    } else {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.outer, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "rows of %lld > 1024: one block per row, %lld rows", (long long)a.n, (long long)a.outer);
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_%s_%s_%s", c->nd->op == AICF__OP_LogSoftmax ? "logsoftmax" : "softmax", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_softmax, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_softmax, y), Y, 0);
    return AICF_SUCCESS;
}

/* ---- helpers for the ops whose parameters come from constant inputs ---- */

/* Constant integer input i (int32 or int64) into vals[cap]; *count = -1 when the input is absent. */
static aicf_result aicf__cuo_const_ints(aicf__cuo* c, int i, const char* what, int64_t* vals, int cap, int* count) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    int64_t ne, k;
    size_t es;
    *count = -1;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    ne = aicf__shape_numel(&tt->shape);
    if (tt->dtype != AICF_DTYPE_INT64 && tt->dtype != AICF_DTYPE_INT32)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s; expected int32 or int64", i,
                              tt->name ? tt->name : "", what, aicf_dtype_name(tt->dtype));
    if (ne > 0 && (!(tt->flags & AICF__T_CONST) || !tt->data))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (ne < 0 || ne > cap)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, tt->name ? tt->name : "",
                              what, (long long)ne, cap);
    es = aicf_dtype_size(tt->dtype);
    if (tt->data_bytes < (size_t)ne * es)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, tt->name ? tt->name : "",
                              what);
    for (k = 0; k < ne; k++) {
        if (tt->dtype == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, (const unsigned char*)tt->data + (size_t)k * 4, 4);
            vals[k] = v;
        } else {
            memcpy(&vals[k], (const unsigned char*)tt->data + (size_t)k * 8, 8);
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* Constant float input i (float32, float16 or float64) into vals[cap]; *count = -1 when absent. */
static aicf_result aicf__cuo_const_floats(aicf__cuo* c, int i, const char* what, double* vals, int cap, int* count) {
    int t = aicf__cuo_in(c, i);
    const aicf__tensor* tt;
    int64_t ne, k;
    size_t es;
    *count = -1;
    if (t < 0) return AICF_SUCCESS;
    tt = &c->g->tensors[t];
    ne = aicf__shape_numel(&tt->shape);
    if (tt->dtype != AICF_DTYPE_FLOAT32 && tt->dtype != AICF_DTYPE_FLOAT16 && tt->dtype != AICF_DTYPE_FLOAT64)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d '%.200s' (%s) has element type %s", i, tt->name ? tt->name : "",
                              what, aicf_dtype_name(tt->dtype));
    if (ne > 0 && (!(tt->flags & AICF__T_CONST) || !tt->data))
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED,
                              "input %d '%.200s' (%s) is computed at run time; the device lowering needs it constant", i,
                              tt->name ? tt->name : "", what);
    if (ne < 0 || ne > cap)
        return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "input %d '%.200s' (%s) has %lld values (limit %d)", i, tt->name ? tt->name : "",
                              what, (long long)ne, cap);
    es = aicf_dtype_size(tt->dtype);
    if (tt->data_bytes < (size_t)ne * es)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input %d '%.200s' (%s) holds too few bytes", i, tt->name ? tt->name : "",
                              what);
    for (k = 0; k < ne; k++) {
        const unsigned char* src = (const unsigned char*)tt->data + (size_t)k * es;
        if (tt->dtype == AICF_DTYPE_FLOAT32) {
            float f;
            memcpy(&f, src, 4);
            vals[k] = f;
        } else if (tt->dtype == AICF_DTYPE_FLOAT16) {
            uint16_t h;
            memcpy(&h, src, 2);
            vals[k] = aicf__f16_to_f32(h);
        } else {
            memcpy(&vals[k], src, 8);
        }
    }
    *count = (int)ne;
    return AICF_SUCCESS;
}

/* INTS attribute `name` into vals[cap]; *count = -1 when absent. */
static aicf_result aicf__cuo_attr_ints(aicf__cuo* c, const char* name, int64_t* vals, int cap, int* count) {
    const int64_t* v = NULL;
    int n = aicf__attr_ints(c->nd, name, &v), k;
    *count = n;
    if (n < 0) return AICF_SUCCESS;
    if (n > cap) return aicf__cuo_fail(c, AICF_ERROR_LIMIT, "attribute '%s' has %d values (limit %d)", name, n, cap);
    for (k = 0; k < n; k++) vals[k] = v[k];
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_axis(aicf__cuo* c, const char* what, int64_t a, int rank, int* out) {
    *out = 0;
    if (a < 0) a += rank;
    if (a < 0 || a >= rank)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "%s %lld is out of range for rank %d", what, (long long)(a < 0 ? a - rank : a),
                              rank);
    *out = (int)a;
    return AICF_SUCCESS;
}

/* Row-major element strides of a shape. */
static void aicf__cuo_strides(const aicf__shape* s, int64_t* st) {
    int i;
    int64_t m = 1;
    for (i = s->rank - 1; i >= 0; i--) {
        st[i] = m;
        m *= s->d[i];
    }
}

static int64_t aicf__cuo_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* ---- data movement as strided copies: Slice, Split, Tile, Expand, DepthToSpace, SpaceToDepth ---- */

static aicf_result aicf__cuo_lower_slice(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), i, r, ns, ne, na = -1, np = -1;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t st[AICF_MAX_RANK], en[AICF_MAX_RANK], ax[AICF_MAX_RANK], sp[AICF_MAX_RANK];
    int64_t start[AICF_MAX_RANK], step[AICF_MAX_RANK], xst[AICF_MAX_RANK], sx[AICF_MAX_RANK], base = 0;
    int used[AICF_MAX_RANK];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (aicf__cuo_opset(c) < 10) {
        if ((res = aicf__cuo_attr_ints(c, "starts", st, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_attr_ints(c, "ends", en, AICF_MAX_RANK, &ne)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_attr_ints(c, "axes", ax, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_const_ints(c, 1, "starts", st, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 2, "ends", en, AICF_MAX_RANK, &ne)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 3, "axes", ax, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 4, "steps", sp, AICF_MAX_RANK, &np)) != AICF_SUCCESS) return res;
    }
    if (ns < 0 || ns != ne || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "starts, ends, axes and steps have different lengths (%d, %d, %d, %d)", ns,
                              ne, na, np);
    for (i = 0; i < r; i++) {
        start[i] = 0;
        step[i] = 1;
        used[i] = 0;
    }
    for (i = 0; i < ns; i++) {
        int a;
        int64_t n, b, stp = np >= 0 ? sp[i] : 1;
        if ((res = aicf__cuo_axis(c, "axes entry", na >= 0 ? ax[i] : i, r, &a)) != AICF_SUCCESS) return res;
        if (used[a]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        used[a] = 1;
        if (stp == 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "steps[%d] is 0", i);
        if (stp < -INT64_MAX) stp = -INT64_MAX;
        n = xs->d[a];
        b = st[i];
        if (b < 0) b += n;
        if (n == 0) b = 0;
        else if (stp > 0) b = aicf__cuo_clamp(b, 0, n);
        else b = aicf__cuo_clamp(b, 0, n - 1);
        start[a] = b;
        step[a] = stp;
    }
    aicf__cuo_strides(xs, xst);
    for (i = 0; i < r; i++) {
        base += start[i] * xst[i];
        sx[i] = step[i] * xst[i];
    }
    return aicf__cuo_permute(c, X, (uint64_t)base * c->es, Y, 0, ys->d, r, sx);
}

/* Size of Split output k (the 'split' attribute before opset 13, the constant input 1, or equal
   parts of ceil(dim / n) with a smaller last one), as the CPU reference. */
static aicf_result aicf__cuo_split_sizes(aicf__cuo* c, int64_t dim, int n, int64_t* sizes) {
    int cnt = -1, k;
    int64_t sum = 0;
    if (aicf__cuo_opset(c) < 13 && aicf__attr(c->nd, "split")) {
        const int64_t* v = NULL;
        cnt = aicf__attr_ints(c->nd, "split", &v);
        if (cnt != n) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, n);
        for (k = 0; k < n; k++) sizes[k] = v[k];
    } else if (aicf__cuo_in(c, 1) >= 0) {
        aicf_result r = aicf__cuo_const_ints(c, 1, "split", sizes, n, &cnt);
        if (r != AICF_SUCCESS) return r;
        if (cnt != n) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split has %d values for %d outputs", cnt, n);
    }
    if (cnt >= 0) {
        for (k = 0; k < n; k++) {
            if (sizes[k] < 0 || sizes[k] > dim)
                return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "split[%d] = %lld is invalid", k, (long long)sizes[k]);
            sum += sizes[k];
        }
        if (sum != dim) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "split sums to %lld, the axis has %lld", (long long)sum, (long long)dim);
    } else {
        int64_t chunk = dim / n + (dim % n != 0);
        for (k = 0; k < n; k++) sizes[k] = k == n - 1 ? dim - chunk * (n - 1) : chunk;
        if (sizes[n - 1] < 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "cannot split %lld into %d parts", (long long)dim, n);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_split(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), n = c->st->n_out, k, ax = 0, copies = 0, strided = 0, vec4 = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t sizes[AICF__STEP_MAX_IO], outer, inner, dim, pos = 0;
    char what[32];
    aicf_result r;
    if ((r = aicf__cuo_float(c, X, "input 0", 1)) != AICF_SUCCESS) return r;
    for (k = 0; k < n; k++) {
        if (aicf__cuo_out(c, k) < 0) continue;
        snprintf(what, sizeof what, "output %d", k);
        if ((r = aicf__cuo_float(c, aicf__cuo_out(c, k), what, 0)) != AICF_SUCCESS) return r;
    }
    if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", 0), xs->rank, &ax)) != AICF_SUCCESS) return r;
    if (n < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "has no outputs");
    dim = xs->d[ax];
    if ((r = aicf__cuo_split_sizes(c, dim, n, sizes)) != AICF_SUCCESS) return r;
    if (aicf__cuo_out(c, 0) >= 0 && c->p->loc[aicf__cuo_out(c, 0)].alias_of == X) { /* the memory plan made views */
        for (k = 0; k < n; k++)
            if (aicf__cuo_out(c, k) < 0 || c->p->loc[aicf__cuo_out(c, k)].alias_of != X ||
                aicf__cuo_numel(c, aicf__cuo_out(c, k)) != sizes[k] * aicf__cuo_prod(xs, ax + 1, xs->rank))
                return aicf__cuo_fail(c, AICF_ERROR_STATE, "output %d is not the view of the input the memory plan recorded", k);
        snprintf(c->kernel, sizeof c->kernel, "alias");
        aicf__cuo_reason(c, "%d outputs are views into the input's storage (split along axis %d, only 1s before it): no copy", n,
                         ax);
        return AICF_SUCCESS;
    }
    outer = aicf__cuo_prod(xs, 0, ax);
    inner = aicf__cuo_prod(xs, ax + 1, xs->rank);
    for (k = 0; k < n; k++) {
        int Y = aicf__cuo_out(c, k);
        int64_t cols = sizes[k] * inner;
        if (Y >= 0 && cols > 0 && outer > 0) {
            if (aicf__cuo_numel(c, Y) != outer * cols)
                return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output %d has %lld elements, the split gives %lld", k,
                                      (long long)aicf__cuo_numel(c, Y), (long long)(outer * cols));
            if (outer == 1) {
                if ((r = aicf__cuo_copy(c, Y, 0, X, (uint64_t)(pos * inner) * c->es, (uint64_t)cols * c->es)) != AICF_SUCCESS) return r;
                copies++;
            } else {
                aicf__k_copy2d a;
                unsigned grid[3], block[3];
                aicf__cuo_op* op = NULL;
                char name[96];
                uint64_t xoff = (uint64_t)(pos * inner) * c->es;
                int v = cols % 4 == 0 && (dim * inner) % 4 == 0 && aicf__cuo_align(c, X, xoff) >= 4 * c->es &&
                                aicf__cuo_align(c, Y, 0) >= 4 * c->es
                            ? 4
                            : 1;
                memset(&a, 0, sizeof a);
                a.rows = outer;
                a.cols = cols;
                a.ldx = dim * inner;
                a.ldy = cols;
                snprintf(name, sizeof name, "aicf_copy2d_%s_v%d", aicf__cuo_dtn(c), v);
                aicf__cuo_dims1(outer * cols / v, grid, block);
                if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, x), X, xoff);
                aicf__cuo_patch(op, offsetof(aicf__k_copy2d, y), Y, 0);
                strided++;
                if (v == 4) vec4++;
            }
        }
        pos += sizes[k];
    }
    if (strided == 0) {
        snprintf(c->kernel, sizeof c->kernel, copies ? "memcpy" : "empty");
        aicf__cuo_reason(c, "%d outputs along axis %d, outer size %lld: %d device-to-device copies", n, ax, (long long)outer, copies);
    } else {
        aicf__cuo_reason(c, "%d outputs along axis %d: %d strided 2-D copies (%lld rows each), %d of them vec4", n, ax, strided,
                         (long long)outer, vec4);
    }
    return AICF_SUCCESS;
}

/* Tile: output dim k (d_k * rep_k) read as [rep_k, d_k] with strides [0, stride_k]. */
static aicf_result aicf__cuo_lower_tile(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), cnt, i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t rep[AICF_MAX_RANK], xst[AICF_MAX_RANK], shape[2 * AICF_MAX_RANK], sx[2 * AICF_MAX_RANK];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_const_ints(c, 1, "repeats", rep, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return r;
    if (cnt != xs->rank)
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "repeats has %d values; input 0 has rank %d", cnt, xs->rank);
    aicf__cuo_strides(xs, xst);
    for (i = 0; i < xs->rank; i++) {
        shape[2 * i] = rep[i];
        sx[2 * i] = 0;
        shape[2 * i + 1] = xs->d[i];
        sx[2 * i + 1] = xst[i];
    }
    return aicf__cuo_permute(c, X, 0, Y, 0, shape, 2 * xs->rank, sx);
}

static aicf_result aicf__cuo_lower_expand(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0);
    int64_t sx[AICF_MAX_RANK];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    aicf__cuo_bstrides(aicf__cuo_shape(c, X), aicf__cuo_shape(c, Y), sx);
    return aicf__cuo_permute(c, X, 0, Y, 0, aicf__cuo_shape(c, Y)->d, aicf__cuo_shape(c, Y)->rank, sx);
}

/* DepthToSpace / SpaceToDepth: a permutation of a rank-6 view of NCHW. */
static aicf_result aicf__cuo_lower_d2s(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), crd;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t b = aicf__attr_i(c->nd, "blocksize", 0), Cx, Hx, Wx, Cy, shape[6], sx[6];
    const char* mode = aicf__attr_s(c->nd, "mode", "DCR");
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (xs->rank != 4 || ys->rank != 4 || b < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "expects 4-D NCHW and blocksize >= 1");
    crd = !strcmp(mode, "CRD");
    Cx = xs->d[1];
    Hx = xs->d[2];
    Wx = xs->d[3];
    Cy = ys->d[1];
    shape[0] = xs->d[0];
    sx[0] = Cx * Hx * Wx;
    if (c->nd->op == AICF__OP_DepthToSpace) { /* y viewed [N, Cy, Hx, b, Wx, b] */
        shape[1] = Cy;
        shape[2] = Hx;
        shape[3] = b;
        shape[4] = Wx;
        shape[5] = b;
        sx[1] = crd ? b * b * Hx * Wx : Hx * Wx;
        sx[2] = Wx;
        sx[3] = crd ? b * Hx * Wx : b * Cy * Hx * Wx;
        sx[4] = 1;
        sx[5] = crd ? Hx * Wx : Cy * Hx * Wx;
    } else { /* y viewed [N, b, b, Cx, Hy, Wy] (DCR) or [N, Cx, b, b, Hy, Wy] (CRD) */
        int ib = crd ? 2 : 1, ic = crd ? 1 : 3;
        shape[ib] = b;
        sx[ib] = Wx;
        shape[ib + 1] = b;
        sx[ib + 1] = 1;
        shape[ic] = Cx;
        sx[ic] = Hx * Wx;
        shape[4] = ys->d[2];
        sx[4] = b * Wx;
        shape[5] = ys->d[3];
        sx[5] = b;
    }
    return aicf__cuo_permute(c, X, 0, Y, 0, shape, 6, sx);
}

/* ---- Gather, Where, Pad ---- */

static aicf_result aicf__cuo_lower_gather(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), I = aicf__cuo_in(c, 1), Y = aicf__cuo_out(c, 0), ax;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__tensor* it;
    aicf_dtype idt;
    int64_t outer, A, inner, ni;
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return r;
    if (I < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 1 (indices) is omitted");
    if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
    if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", 0), xs->rank, &ax)) != AICF_SUCCESS) return r;
    it = &c->g->tensors[I];
    idt = c->p->loc[I].sdtype;
    if (idt != AICF_DTYPE_INT64 && idt != AICF_DTYPE_INT32)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input 1 '%.200s' (indices) has element type %s; the device kernel takes int32 or int64",
                              it->name ? it->name : "", aicf_dtype_name(idt));
    outer = aicf__cuo_prod(xs, 0, ax);
    A = xs->d[ax];
    inner = aicf__cuo_prod(xs, ax + 1, xs->rank);
    ni = aicf__shape_numel(&it->shape);
    if ((it->flags & AICF__T_CONST) && it->data && ni == 1) { /* one constant index: a strided copy */
        int64_t k, shape[2], sx[2];
        if (idt == AICF_DTYPE_INT32) {
            int32_t v;
            memcpy(&v, it->data, 4);
            k = v;
        } else {
            memcpy(&k, it->data, 8);
        }
        if (k < 0) k += A;
        if (k < 0 || k >= A) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "index %lld is out of range [0, %lld)", (long long)k, (long long)A);
        shape[0] = outer;
        shape[1] = inner;
        sx[0] = A * inner;
        sx[1] = 1;
        if ((r = aicf__cuo_permute(c, X, (uint64_t)(k * inner) * c->es, Y, 0, shape, 2, sx)) != AICF_SUCCESS) return r;
        {
            char keep[192];
            memcpy(keep, c->reason, sizeof keep);
            aicf__cuo_reason(c, "one constant index %lld on axis %d: %.150s", (long long)k, ax, keep);
        }
        return AICF_SUCCESS;
    }
    if (c->p->loc[I].space != AICF__SPACE_WEIGHTS && c->p->loc[I].space != AICF__SPACE_ARENA && c->p->loc[I].alias_of < 0)
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "input 1 '%.200s' (indices) has no device storage", it->name ? it->name : "");
    {
        aicf__k_gather a;
        unsigned grid[3], block[3];
        aicf__cuo_op* op = NULL;
        char name[96];
        memset(&a, 0, sizeof a);
        a.outer = outer;
        a.A = A;
        a.inner = inner;
        a.ni = ni;
        snprintf(name, sizeof name, "aicf_gather_%s_%s", aicf__cuo_dtn(c), idt == AICF_DTYPE_INT32 ? "i32" : "i64");
        aicf__cuo_dims1(outer * ni * inner, grid, block);
        if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        aicf__cuo_patch(op, offsetof(aicf__k_gather, x), X, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_gather, idx), I, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_gather, y), Y, 0);
        aicf__cuo_reason(c, "%lld %s indices (%s) on axis %d, rows of %lld, one thread per element", (long long)ni,
                         idt == AICF_DTYPE_INT32 ? "int32" : "int64", (it->flags & AICF__T_CONST) ? "constant, in the weights" : "computed, in the arena",
                         ax, (long long)inner);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_where(aicf__cuo* c) {
    int C = aicf__cuo_in(c, 0), A = aicf__cuo_in(c, 1), B = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), rank;
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    const aicf__tensor* ct;
    aicf__k_where a;
    int64_t* st[3];
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], b1[160];
    aicf_result r;
    if (C < 0 || A < 0 || B < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "needs 3 inputs");
    if ((r = aicf__cuo_float(c, Y, "output 0", 1)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_float(c, A, "input 1", 0)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_float(c, B, "input 2", 0)) != AICF_SUCCESS) return r;
    ct = &c->g->tensors[C];
    if (c->p->loc[C].sdtype != AICF_DTYPE_BOOL)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input 0 '%.200s' (condition) has element type %s; expected bool",
                              ct->name ? ct->name : "", aicf_dtype_name(c->p->loc[C].sdtype));
    if ((ct->flags & AICF__T_CONST) && ct->data) { /* a constant condition that picks one side everywhere: a broadcast copy */
        int64_t n = aicf__shape_numel(&ct->shape), k, ones = 0, sx[AICF_MAX_RANK];
        for (k = 0; k < n; k++) ones += ((const unsigned char*)ct->data)[k] != 0;
        if (n > 0 && (ones == 0 || ones == n)) {
            int src = ones ? A : B;
            char keep[192];
            aicf__cuo_bstrides(aicf__cuo_shape(c, src), ys, sx);
            if ((r = aicf__cuo_permute(c, src, 0, Y, 0, ys->d, ys->rank, sx)) != AICF_SUCCESS) return r;
            memcpy(keep, c->reason, sizeof keep);
            aicf__cuo_reason(c, "constant condition all %s: input %d broadcast (%.140s)", ones ? "true" : "false", ones ? 1 : 2, keep);
            return AICF_SUCCESS;
        }
    }
    memset(&a, 0, sizeof a);
    aicf__cuo_bstrides(&ct->shape, ys, a.sc);
    aicf__cuo_bstrides(aicf__cuo_shape(c, A), ys, a.sa);
    aicf__cuo_bstrides(aicf__cuo_shape(c, B), ys, a.sb);
    memcpy(a.shape, ys->d, sizeof(int64_t) * (size_t)ys->rank);
    st[0] = a.sc;
    st[1] = a.sa;
    st[2] = a.sb;
    rank = aicf__cuo_collapse(a.shape, ys->rank, st, 3);
    if (rank == 0) {
        rank = 1;
        a.shape[0] = 1;
        a.sc[0] = a.sa[0] = a.sb[0] = 0;
    }
    a.rank = rank;
    a.n = aicf__shape_numel(ys);
    snprintf(name, sizeof name, "aicf_where_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.n, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_where, c), C, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, a), A, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, b), B, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_where, y), Y, 0);
    aicf__cuo_reason(c, "%s condition, output %s collapsed to rank %d with per-input strides",
                     (ct->flags & AICF__T_CONST) ? "constant" : "computed", aicf__cuo_sstr(ys, b1, sizeof b1), rank);
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_pad(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), np = -1, na = -1, r, i, mode, used[AICF_MAX_RANK], any = 0;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t pads[2 * AICF_MAX_RANK], axes[AICF_MAX_RANK], pb[AICF_MAX_RANK], pe[AICF_MAX_RANK], xst[AICF_MAX_RANK], base = 0;
    const char* ms = aicf__attr_s(c->nd, "mode", "constant");
    float value = 0.0f;
    aicf__k_pad a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (!strcmp(ms, "constant")) mode = 0;
    else if (!strcmp(ms, "reflect")) mode = 1;
    else if (!strcmp(ms, "edge")) mode = 2;
    else if (!strcmp(ms, "wrap") && aicf__cuo_opset(c) >= 19) mode = 3;
    else return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'mode' is '%.40s'", ms);
    if (aicf__cuo_opset(c) < 11) {
        if ((res = aicf__cuo_attr_ints(c, aicf__cuo_opset(c) < 2 ? "paddings" : "pads", pads, 2 * AICF_MAX_RANK, &np)) != AICF_SUCCESS)
            return res;
        value = aicf__attr_f(c->nd, "value", 0.0f);
    } else {
        if ((res = aicf__cuo_const_ints(c, 1, "pads", pads, 2 * AICF_MAX_RANK, &np)) != AICF_SUCCESS) return res;
        if (aicf__cuo_opset(c) >= 18 && (res = aicf__cuo_const_ints(c, 3, "axes", axes, AICF_MAX_RANK, &na)) != AICF_SUCCESS)
            return res;
        if ((res = aicf__cuo_const_scalar(c, 2, "constant_value", &value)) != AICF_SUCCESS) return res;
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if (np != 2 * na) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "pads has %d values; expected %d", np, 2 * na);
    for (i = 0; i < r; i++) {
        pb[i] = pe[i] = 0;
        used[i] = 0;
    }
    for (i = 0; i < na; i++) {
        int ax;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &ax)) != AICF_SUCCESS) return res;
        if (used[ax]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", ax);
        used[ax] = 1;
        pb[ax] = pads[i];
        pe[ax] = pads[na + i];
        if (pb[ax] || pe[ax]) any = 1;
    }
    if (!any || r == 0) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "no padding: device-to-device copy");
        return aicf__cuo_copy(c, Y, 0, X, 0, c->p->loc[Y].bytes);
    }
    aicf__cuo_strides(xs, xst);
    memset(&a, 0, sizeof a);
    for (i = 0; i < r; i++) {
        int64_t lo = pb[i] < 0 ? -pb[i] : 0;
        a.shape[i] = ys->d[i];
        a.cn[i] = xs->d[i] - lo - (pe[i] < 0 ? -pe[i] : 0);
        a.pb[i] = pb[i] > 0 ? pb[i] : 0;
        a.sx[i] = xst[i];
        base += lo * xst[i];
        if (a.cn[i] < 0 || (mode != 0 && a.cn[i] == 0 && a.shape[i] > 0))
            return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "pads crop axis %d below zero elements", i);
    }
    a.n = aicf__shape_numel(ys);
    a.rank = r;
    a.mode = mode;
    a.value = value;
    snprintf(name, sizeof name, "aicf_pad_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.n, grid, block);
    if ((res = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return res;
    aicf__cuo_patch(op, offsetof(aicf__k_pad, x), X, (uint64_t)base * c->es);
    aicf__cuo_patch(op, offsetof(aicf__k_pad, y), Y, 0);
    aicf__cuo_reason(c, "mode %s, one thread per output element over rank %d", ms, r);
    return AICF_SUCCESS;
}

/* ---- reductions ---- */

/* y = fn over the axes marked in mark[] of x (kept dims and reduced dims merged separately);
   fn is one of the names below, in the order of the template's AICF_RED_* codes (from 1). */
static const char* const aicf__cuo_red_fns[10] = {"sum", "mean", "max", "min", "prod", "l1", "l2", "sumsquare", "logsum", "logsumexp"};

static aicf_result aicf__cuo_reduce(aicf__cuo* c, const char* fn, int X, int Y, const int* mark) {
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    int64_t xst[AICF_MAX_RANK];
    int64_t* st[1];
    aicf__k_reduce a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    const char* v;
    int i, ko = 0, kr = 0, contiguous;
    aicf_result r;
    aicf__cuo_strides(xs, xst);
    memset(&a, 0, sizeof a);
    for (i = 0; i < 10; i++)
        if (!strcmp(fn, aicf__cuo_red_fns[i])) a.op = i + 1;
    if (!a.op) return aicf__cuo_fail(c, AICF_ERROR_STATE, "unknown reduction '%s'", fn);
    a.nout = a.nred = 1;
    for (i = 0; i < xs->rank; i++) {
        if (mark[i]) {
            a.rshape[kr] = xs->d[i];
            a.rstr[kr++] = xst[i];
            a.nred *= xs->d[i];
        } else {
            a.oshape[ko] = xs->d[i];
            a.ostr[ko++] = xst[i];
            a.nout *= xs->d[i];
        }
    }
    st[0] = a.ostr;
    a.ko = aicf__cuo_collapse(a.oshape, ko, st, 1);
    st[0] = a.rstr;
    a.kr = aicf__cuo_collapse(a.rshape, kr, st, 1);
    if (a.nred == 0) { /* the collapse drops nothing of size 0; keep the loop bounds at 0 */
        a.kr = 0;
    }
    contiguous = a.kr == 0 || (a.kr == 1 && a.rstr[0] == 1);
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.nred >= 2048 && a.nout <= 2048) {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.nout, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld outputs of %lld elements: one block per output, fixed tree", (long long)a.nout, (long long)a.nred);
    } else if (a.nred >= 64 && contiguous) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.nout + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld outputs of %lld contiguous elements: one warp per output", (long long)a.nout, (long long)a.nred);
    } else {
        v = "thread";
        aicf__cuo_dims1(a.nout, grid, block);
        aicf__cuo_reason(c, "%lld outputs of %lld elements (%s): one thread per output", (long long)a.nout, (long long)a.nred,
                         contiguous ? "contiguous" : "strided");
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_reduce_%s_%s", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_reduce, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_reduce, y), Y, 0);
    {
        char keep[192];
        memcpy(keep, c->reason, sizeof keep);
        aicf__cuo_reason(c, "%s: %.170s", fn, keep);
    }
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_reduce(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), mark[AICF_MAX_RANK], cnt = -1, i, r;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__op op = c->nd->op;
    int64_t axes[AICF_MAX_RANK], noop = 0;
    const char* fn;
    aicf_result res;
    switch (op) {
    case AICF__OP_ReduceSum: fn = "sum"; break;
    case AICF__OP_ReduceMean: fn = "mean"; break;
    case AICF__OP_ReduceMax:
    case AICF__OP_GlobalMaxPool: fn = "max"; break;
    case AICF__OP_ReduceMin: fn = "min"; break;
    case AICF__OP_ReduceProd: fn = "prod"; break;
    case AICF__OP_ReduceL1: fn = "l1"; break;
    case AICF__OP_ReduceL2: fn = "l2"; break;
    case AICF__OP_ReduceSumSquare: fn = "sumsquare"; break;
    case AICF__OP_ReduceLogSum: fn = "logsum"; break;
    case AICF__OP_ReduceLogSumExp: fn = "logsumexp"; break;
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "not a reduction");
    }
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (op == AICF__OP_GlobalMaxPool) {
        if (r < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected >= 2", r);
        for (i = 0; i < r; i++) mark[i] = i >= 2;
        return aicf__cuo_reduce(c, fn, X, Y, mark);
    }
    if (aicf__cuo_opset(c) >= (op == AICF__OP_ReduceSum ? 13 : 18)) {
        noop = aicf__attr_i(c->nd, "noop_with_empty_axes", 0);
        if ((res = aicf__cuo_const_ints(c, 1, "axes", axes, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_attr_ints(c, "axes", axes, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return res;
    }
    for (i = 0; i < r; i++) mark[i] = cnt <= 0 ? !noop : 0;
    for (i = 0; i < cnt; i++) {
        int a;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &a)) != AICF_SUCCESS) return res;
        if (mark[a]) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "axis %d appears twice in axes", a);
        mark[a] = 1;
    }
    return aicf__cuo_reduce(c, fn, X, Y, mark);
}

/* ---- normalizations ---- */

/* Index pattern of a LayerNormalization parameter (scale or B) of shape ps over x [rows, cols]
   (axis ax): index = r * row + (j / div) * col. */
static aicf_result aicf__cuo_ln_param(aicf__cuo* c, int i, const aicf__shape* ps, const aicf__shape* xs, int ax, int64_t cols,
                                      int64_t* row, int64_t* col, int64_t* div) {
    int64_t st[AICF_MAX_RANK], shape[AICF_MAX_RANK], xst[AICF_MAX_RANK];
    int64_t* sp[1];
    int k, n = 0, lead = 0, full = 1;
    char b1[160], b2[160];
    aicf__cuo_bstrides(ps, xs, st);
    aicf__cuo_strides(xs, xst);
    for (k = 0; k < xs->rank; k++) {
        if (k < ax && st[k] != 0 && xs->d[k] > 1) lead = 1;
        if (xs->d[k] > 1 && st[k] != xst[k]) full = 0;
    }
    if (lead) { /* the parameter varies along the rows: only a full-shape parameter is supported */
        if (!full)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s broadcasts to input 0 shape %s in a pattern the device kernel does not index",
                                  i, aicf__cuo_sstr(ps, b1, sizeof b1), aicf__cuo_sstr(xs, b2, sizeof b2));
        *row = cols;
        *col = 1;
        *div = 1;
        return AICF_SUCCESS;
    }
    for (k = ax; k < xs->rank; k++) {
        shape[n] = xs->d[k];
        st[n] = st[k];
        n++;
    }
    sp[0] = st;
    n = aicf__cuo_collapse(shape, n, sp, 1);
    *row = 0;
    *div = 1;
    if (n == 0) *col = 0;
    else if (n == 1) *col = st[0] ? 1 : 0;
    else if (n == 2 && st[0] == 1 && st[1] == 0) {
        *col = 1;
        *div = shape[1];
    } else {
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s broadcasts to input 0 shape %s in a pattern the device kernel does not index",
                              i, aicf__cuo_sstr(ps, b1, sizeof b1), aicf__cuo_sstr(xs, b2, sizeof b2));
    }
    if (*col == 1 && n == 1 && st[0] != 1)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input %d shape %s is not contiguous over the normalized axes", i,
                              aicf__cuo_sstr(ps, b1, sizeof b1));
    return AICF_SUCCESS;
}

static aicf_result aicf__cuo_lower_norm(aicf__cuo* c) {
    aicf__op op = c->nd->op;
    int X = aicf__cuo_in(c, 0), S = aicf__cuo_in(c, 1), B = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0);
    int Mo = aicf__cuo_out(c, 1), Io = aicf__cuo_out(c, 2), ax = 0, i;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    aicf__k_norm a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op_ = NULL;
    char name[96];
    const char* v;
    aicf_result r;
    if (op == AICF__OP_RMSNormalization) B = -1;
    if (op != AICF__OP_LayerNormalization) Mo = Io = -1;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    if (Mo >= 0 && (r = aicf__cuo_float(c, Mo, "output 1 (Mean)", 0)) != AICF_SUCCESS) return r;
    if (Io >= 0 && (r = aicf__cuo_float(c, Io, "output 2 (InvStdDev)", 0)) != AICF_SUCCESS) return r;
    if (S < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 1 (scale) is omitted");
    memset(&a, 0, sizeof a);
    a.epsilon = aicf__attr_f(c->nd, "epsilon", 1e-5f);
    a.div = 1;
    if (op == AICF__OP_LayerNormalization || op == AICF__OP_RMSNormalization) {
        if (xs->rank < 1) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 is a scalar");
        if (aicf__attr_i(c->nd, "stash_type", 1) != 1)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' must be 1 (float32 statistics)");
        if ((r = aicf__cuo_axis(c, "attribute 'axis'", aicf__attr_i(c->nd, "axis", -1), xs->rank, &ax)) != AICF_SUCCESS) return r;
        a.rows = aicf__cuo_prod(xs, 0, ax);
        a.cols = aicf__cuo_prod(xs, ax, xs->rank);
        a.G = a.rows > 0 ? a.rows : 1;
        a.rms = op == AICF__OP_RMSNormalization;
        if ((r = aicf__cuo_ln_param(c, 1, aicf__cuo_shape(c, S), xs, ax, a.cols, &a.s_row, &a.s_col, &a.div)) != AICF_SUCCESS) return r;
        if (B >= 0) {
            int64_t bdiv = 1;
            if ((r = aicf__cuo_ln_param(c, 2, aicf__cuo_shape(c, B), xs, ax, a.cols, &a.b_row, &a.b_col, &bdiv)) != AICF_SUCCESS) return r;
            if (bdiv != a.div && a.b_col && a.s_col)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "scale and B broadcast over the normalized axes differently");
            if (a.b_col && !a.s_col) a.div = bdiv;
        }
    } else {
        int64_t C, sp, G;
        if (xs->rank < 2) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d; expected N x C x ...", xs->rank);
        if (B < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "input 2 (B) is omitted");
        C = xs->d[1];
        sp = aicf__cuo_prod(xs, 2, xs->rank);
        if (op == AICF__OP_InstanceNormalization) {
            G = C;
            a.s_row = a.b_row = 1;
        } else {
            G = aicf__attr_i(c->nd, "num_groups", 0);
            if (aicf__attr_i(c->nd, "stash_type", 1) != 1)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "attribute 'stash_type' must be 1 (float32 statistics)");
            if (G < 1 || C % G) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "attribute 'num_groups' = %lld does not divide %lld channels",
                                                      (long long)G, (long long)C);
            if (aicf__cuo_opset(c) < 21) { /* GroupNormalization-18: scale and bias per group */
                a.s_row = a.b_row = 1;
            } else { /* per channel: channel = g * C/G + j / spatial */
                a.s_row = a.b_row = C / G;
                a.s_col = a.b_col = 1;
                a.div = sp > 0 ? sp : 1;
            }
        }
        for (i = 1; i < 3; i++) {
            const aicf__shape* ps = aicf__cuo_shape(c, aicf__cuo_in(c, i));
            int64_t want = a.s_col || op == AICF__OP_InstanceNormalization ? C : G;
            if (ps->rank != 1 || ps->d[0] != want)
                return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input %d must have shape [%lld]", i, (long long)want);
        }
        a.G = G;
        a.rows = xs->d[0] * G;
        a.cols = (C / G) * sp;
    }
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    grid[1] = grid[2] = 1;
    if (a.cols <= 1024) {
        v = "warp";
        grid[0] = (unsigned)AICF__MIN((a.rows + 7) / 8, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld rows of %lld: one warp per row, float32 two-pass statistics", (long long)a.rows, (long long)a.cols);
    } else {
        v = "block";
        grid[0] = (unsigned)AICF__MIN(a.rows, AICF__CUO_MAX_GRID);
        aicf__cuo_reason(c, "%lld rows of %lld: one block per row, float32 two-pass statistics", (long long)a.rows, (long long)a.cols);
    }
    if (grid[0] == 0) grid[0] = 1;
    snprintf(name, sizeof name, "aicf_norm_%s_%s", v, aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op_)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, x), X, 0);
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, scale), S, 0);
    if (B >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, bias), B, 0);
    aicf__cuo_patch(op_, offsetof(aicf__k_norm, y), Y, 0);
    if (Mo >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, mean), Mo, 0);
    if (Io >= 0) aicf__cuo_patch(op_, offsetof(aicf__k_norm, inv), Io, 0);
    return AICF_SUCCESS;
}

/* ---- Resize / Upsample (nearest, linear; the last two axes) ---- */

static int aicf__cuo_pick(const char* s, const char* const* names, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static aicf_result aicf__cuo_lower_resize(aicf__cuo* c) {
    static const char* const ctms[6] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_crop_and_resize"};
    static const char* const nms[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    static const char* const pols[3] = {"stretch", "not_larger", "not_smaller"};
    int X = aicf__cuo_in(c, 0), Y = aicf__cuo_out(c, 0), r, i, ns = -1, nz = -1, nroi = -1, na = -1, pol = 0, legacy, has_roi;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    double sc[AICF_MAX_RANK], roi[2 * AICF_MAX_RANK], scale[AICF_MAX_RANK], rs[AICF_MAX_RANK], re[AICF_MAX_RANK];
    int64_t sz[AICF_MAX_RANK], axes[AICF_MAX_RANK];
    int ident[AICF_MAX_RANK], order[AICF_MAX_RANK];
    const char* s;
    aicf__k_resize a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result res;
    if ((res = aicf__cuo_floats(c, 1)) != AICF_SUCCESS) return res;
    r = xs->rank;
    if (r < 1 || ys->rank != r) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "input 0 has rank %d", r);
    memset(&a, 0, sizeof a);
    legacy = c->nd->op == AICF__OP_Upsample || aicf__cuo_opset(c) < 11;
    s = aicf__attr_s(c->nd, "mode", "nearest");
    if (!strcmp(s, "nearest")) a.mode = 0;
    else if (!strcmp(s, "linear") || (legacy && !strcmp(s, "bilinear"))) a.mode = 1;
    else return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "mode '%.40s' is not supported on the device (nearest, linear)", s);
    if (legacy) {
        a.ctm = 4;
        a.nearest = 4;
    } else {
        s = aicf__attr_s(c->nd, "coordinate_transformation_mode", "half_pixel");
        a.ctm = aicf__cuo_pick(s, ctms, 6);
        if (a.ctm < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'coordinate_transformation_mode' is '%.40s'", s);
        s = aicf__attr_s(c->nd, "nearest_mode", "round_prefer_floor");
        a.nearest = aicf__cuo_pick(s, nms, 4);
        if (a.nearest < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'nearest_mode' is '%.40s'", s);
        a.extrapolation = aicf__attr_f(c->nd, "extrapolation_value", 0.0f);
        a.exclude_outside = aicf__attr_i(c->nd, "exclude_outside", 0) != 0;
        if (aicf__cuo_opset(c) >= 18) {
            if (aicf__attr_i(c->nd, "antialias", 0) != 0 && a.mode != 0)
                return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "antialias is not supported on the device");
            s = aicf__attr_s(c->nd, "keep_aspect_ratio_policy", "stretch");
            pol = aicf__cuo_pick(s, pols, 3);
            if (pol < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'keep_aspect_ratio_policy' is '%.40s'", s);
            if ((res = aicf__cuo_attr_ints(c, "axes", axes, AICF_MAX_RANK, &na)) != AICF_SUCCESS) return res;
        }
    }
    if (c->nd->op == AICF__OP_Upsample && aicf__cuo_opset(c) < 9) {
        const aicf__attrv* at = aicf__attr(c->nd, "scales");
        if (!at || at->type != AICF_ATTR_FLOATS || at->count > AICF_MAX_RANK)
            return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute 'scales' is missing or too long");
        ns = at->count;
        for (i = 0; i < ns; i++) sc[i] = at->floats[i];
    } else if (legacy) {
        if ((res = aicf__cuo_const_floats(c, 1, "scales", sc, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
    } else {
        if ((res = aicf__cuo_const_floats(c, 2, "scales", sc, AICF_MAX_RANK, &ns)) != AICF_SUCCESS) return res;
        if ((res = aicf__cuo_const_ints(c, 3, "sizes", sz, AICF_MAX_RANK, &nz)) != AICF_SUCCESS) return res;
        if (a.ctm == 5 && (res = aicf__cuo_const_floats(c, 1, "roi", roi, 2 * AICF_MAX_RANK, &nroi)) != AICF_SUCCESS) return res;
    }
    if (na < 0) {
        na = r;
        for (i = 0; i < r; i++) axes[i] = i;
    }
    if ((ns > 0) == (nz > 0) || (ns > 0 && ns != na) || (nz > 0 && nz != na) || (nroi >= 0 && nroi != 2 * na))
        return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "scales / sizes / roi do not match %d axes", na);
    has_roi = a.ctm == 5;
    for (i = 0; i < r; i++) {
        scale[i] = 1.0;
        rs[i] = 0.0;
        re[i] = 1.0;
    }
    for (i = 0; i < na; i++) {
        int ax;
        if ((res = aicf__cuo_axis(c, "axes entry", axes[i], r, &ax)) != AICF_SUCCESS) return res;
        order[i] = ax;
        if (has_roi && nroi > 0) {
            rs[ax] = roi[i];
            re[ax] = roi[na + i];
        }
        if (ns > 0) scale[ax] = sc[i];
        else if (xs->d[ax] > 0) scale[ax] = (double)sz[i] / (double)xs->d[ax];
    }
    if (nz > 0 && pol != 0) {
        double s1 = pol == 1 ? INFINITY : 0.0;
        for (i = 0; i < na; i++) s1 = pol == 1 ? (scale[order[i]] < s1 ? scale[order[i]] : s1) : (scale[order[i]] > s1 ? scale[order[i]] : s1);
        for (i = 0; i < na; i++) scale[order[i]] = s1;
    }
    for (i = 0; i < r; i++) {
        ident[i] = fabs(scale[i] - 1.0) <= 1e-9 && ys->d[i] == xs->d[i] && (!has_roi || (fabs(rs[i]) <= 1e-9 && fabs(re[i] - 1.0) <= 1e-9));
        if (!ident[i] && i < r - 2)
            return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "resizes axis %d; the device kernel resizes the last two axes only", i);
        if (!ident[i] && xs->d[i] == 0) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "axis %d of input 0 is empty", i);
    }
    a.outer = r >= 2 ? aicf__cuo_prod(xs, 0, r - 2) : 1;
    a.H = r >= 2 ? xs->d[r - 2] : 1;
    a.W = xs->d[r - 1];
    a.OH = r >= 2 ? ys->d[r - 2] : 1;
    a.OW = ys->d[r - 1];
    a.ident_h = r >= 2 ? ident[r - 2] : 1;
    a.ident_w = ident[r - 1];
    a.scale_h = r >= 2 ? scale[r - 2] : 1.0;
    a.scale_w = scale[r - 1];
    a.roi_h0 = r >= 2 ? rs[r - 2] : 0.0;
    a.roi_h1 = r >= 2 ? re[r - 2] : 1.0;
    a.roi_w0 = rs[r - 1];
    a.roi_w1 = re[r - 1];
    if (a.ident_h && a.ident_w) {
        snprintf(c->kernel, sizeof c->kernel, "memcpy");
        aicf__cuo_reason(c, "every axis keeps its size and scale 1: device-to-device copy");
        return aicf__cuo_copy(c, Y, 0, X, 0, c->p->loc[Y].bytes);
    }
    snprintf(name, sizeof name, "aicf_resize2d_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.outer * a.OH * a.OW, grid, block);
    if ((res = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return res;
    aicf__cuo_patch(op, offsetof(aicf__k_resize, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_resize, y), Y, 0);
    aicf__cuo_reason(c, "%s, %s: [%lld,%lld] -> [%lld,%lld] x %lld, one thread per output", a.mode ? "linear" : "nearest",
                     legacy ? "asymmetric (Upsample)" : ctms[a.ctm], (long long)a.H, (long long)a.W, (long long)a.OH, (long long)a.OW,
                     (long long)a.outer);
    return AICF_SUCCESS;
}

/* ---- ConvTranspose (1-D as 2-D with H = 1) ---- */

static int64_t aicf__cuo_floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

static aicf_result aicf__cuo_lower_convt(aicf__cuo* c) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), nsp, i, n_os, cnt;
    const aicf__shape* xs = aicf__cuo_shape(c, X);
    const aicf__shape* ws = aicf__cuo_shape(c, Wt);
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    int64_t st[2] = {1, 1}, dl[2] = {1, 1}, op_[2] = {0, 0}, pads[4] = {0, 0, 0, 0}, os[AICF_MAX_RANK], v8[AICF_MAX_RANK];
    int64_t in[2] = {1, 1}, out[2] = {1, 1}, k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pb[2] = {0, 0};
    int64_t group = aicf__attr_i(c->nd, "group", 1);
    const char* ap = aicf__attr_s(c->nd, "auto_pad", "NOTSET");
    aicf__k_conv2d a;
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96];
    aicf_result r;
    if ((r = aicf__cuo_floats(c, 3)) != AICF_SUCCESS) return r;
    nsp = xs->rank - 2;
    if (nsp < 1 || nsp > 2 || ws->rank != xs->rank || ys->rank != xs->rank)
        return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "input rank %d is not supported on the device (1-D or 2-D NCHW)", xs->rank);
    if (group < 1 || xs->d[1] % group || ws->d[0] != xs->d[1])
        return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "group %lld does not fit C = %lld and W", (long long)group, (long long)xs->d[1]);
#define AICF__CUO_CT_ATTR(nm, arr, n)                                                                                  \
    if ((r = aicf__cuo_attr_ints(c, nm, v8, AICF_MAX_RANK, &cnt)) != AICF_SUCCESS) return r;                          \
    if (cnt >= 0) {                                                                                                    \
        if (cnt != (n)) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "attribute '%s' has %d values", nm, cnt);  \
        for (i = 0; i < cnt; i++) arr[i] = v8[i];                                                                      \
    }
    AICF__CUO_CT_ATTR("strides", st, nsp)
    AICF__CUO_CT_ATTR("dilations", dl, nsp)
    AICF__CUO_CT_ATTR("output_padding", op_, nsp)
    AICF__CUO_CT_ATTR("pads", pads, 2 * nsp)
#undef AICF__CUO_CT_ATTR
    if ((r = aicf__cuo_attr_ints(c, "output_shape", os, AICF_MAX_RANK, &n_os)) != AICF_SUCCESS) return r;
    for (i = 0; i < nsp; i++) {
        int o = 2 - nsp + i;
        int64_t dk = (ws->d[2 + i] - 1) * dl[i] + 1, full = st[i] * (xs->d[2 + i] - 1) + op_[i] + dk;
        in[o] = xs->d[2 + i];
        out[o] = ys->d[2 + i];
        k[o] = ws->d[2 + i];
        s[o] = st[i];
        d[o] = dl[i];
        if (n_os >= 0 || !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            int64_t total = full - out[o];
            pb[o] = !strcmp(ap, "SAME_UPPER") ? aicf__cuo_floordiv2(total) : total - aicf__cuo_floordiv2(total);
        } else if (!strcmp(ap, "VALID")) {
            pb[o] = 0;
        } else {
            pb[o] = pads[i];
        }
        if (s[o] < 1 || d[o] < 1) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "strides and dilations must be >= 1");
    }
    memset(&a, 0, sizeof a);
    a.N = xs->d[0];
    a.C = xs->d[1];
    a.H = in[0];
    a.W = in[1];
    a.M = ys->d[1];
    a.OH = out[0];
    a.OW = out[1];
    a.KH = k[0];
    a.KW = k[1];
    a.group = group;
    a.pad_h = pb[0];
    a.pad_w = pb[1];
    a.stride_h = s[0];
    a.stride_w = s[1];
    a.dil_h = d[0];
    a.dil_w = d[1];
    if (a.M != ws->d[1] * group) return aicf__cuo_fail(c, AICF_ERROR_SHAPE, "output channels %lld != W[1] * group", (long long)a.M);
    snprintf(name, sizeof name, "aicf_convtranspose2d_%s", aicf__cuo_dtn(c));
    aicf__cuo_dims1(a.N * a.M * a.OH * a.OW, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d, bias), Bi, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d, y), Y, 0);
    aicf__cuo_reason(c, "gather form, one thread per output: %lld x %lld taps x %lld channels/group, stride %lldx%lld%s", (long long)a.KH,
                     (long long)a.KW, (long long)(a.C / group), (long long)a.stride_h, (long long)a.stride_w,
                     nsp == 1 ? " (1-D as 2-D with H = 1)" : "");
    return AICF_SUCCESS;
}

/* ---- fused elementwise chains (a step's epilogue; templates/ewchain.cu.j2) ---- */

typedef struct aicf__cuo_ewop {
    aicf__op op;     /* unary or binary op */
    int operand;     /* binary: the other input's tensor, else -1 */
    int left;        /* 1: operand op v */
    float alpha, beta;
} aicf__cuo_ewop;

/* The kernel's op code (AICF_FN_* of elementwise_fns.inc.j2, or AICF_EW_* >= 101) for op, and
   the parameters the kernel function takes (HardSwish: 1/6 and 1/2; Gelu tanh: its own code). */
static int aicf__cuo_ew_code(aicf__op op, float* alpha, float* beta) {
    switch (op) {
    case AICF__OP_Relu: return 1;
    case AICF__OP_Tanh: return 2;
    case AICF__OP_Sigmoid: return 3;
    case AICF__OP_Exp: return 4;
    case AICF__OP_Log: return 5;
    case AICF__OP_Sqrt: return 6;
    case AICF__OP_Neg: return 7;
    case AICF__OP_Abs: return 8;
    case AICF__OP_Reciprocal: return 9;
    case AICF__OP_Erf: return 10;
    case AICF__OP_LeakyRelu: return 11;
    case AICF__OP_Elu: return 12;
    case AICF__OP_HardSigmoid: return 13;
    case AICF__OP_HardSwish:
        *alpha = 1.0f / 6.0f;
        *beta = 0.5f;
        return 14;
    case AICF__OP_Clip: return 15;
    case AICF__OP_Floor: return 16;
    case AICF__OP_Ceil: return 17;
    case AICF__OP_Round: return 18;
    case AICF__OP_Sign: return 19;
    case AICF__OP_Softplus: return 20;
    case AICF__OP_Softsign: return 21;
    case AICF__OP_Selu: return 22;
    case AICF__OP_Celu: return 23;
    case AICF__OP_ThresholdedRelu: return 24;
    case AICF__OP_Sin: return 25;
    case AICF__OP_Cos: return 26;
    case AICF__OP_Tan: return 27;
    case AICF__OP_Asin: return 28;
    case AICF__OP_Acos: return 29;
    case AICF__OP_Atan: return 30;
    case AICF__OP_Sinh: return 31;
    case AICF__OP_Cosh: return 32;
    case AICF__OP_Asinh: return 33;
    case AICF__OP_Acosh: return 34;
    case AICF__OP_Atanh: return 35;
    case AICF__OP_Gelu: return *alpha != 0.0f ? 37 : 36;
    case AICF__OP_Mish: return 38;
    case AICF__OP_Shrink: return 39;
    case AICF__OP_Swish: return 40;
    case AICF__OP_Add: return 101;
    case AICF__OP_Sub: return 102;
    case AICF__OP_Mul: return 103;
    case AICF__OP_Div: return 104;
    case AICF__OP_Pow: return 105;
    case AICF__OP_Max: return 106;
    case AICF__OP_Min: return 107;
    case AICF__OP_PRelu: return 108;
    default: return 0;
    }
}

static const char* const aicf__cuo_ew_mode_names[5] = {"full", "scalar", "inner", "middle", "strided"};

/* Whether tensor t is a float32 scalar constant within 1e-6 (relative) of want. */
static int aicf__cuo_is_scalar(const aicf__cuo* c, int t, double want) {
    const aicf__tensor* tt;
    float v;
    if (t < 0) return 0;
    tt = &c->g->tensors[t];
    if (!(tt->flags & AICF__T_CONST) || !tt->data || tt->dtype != AICF_DTYPE_FLOAT32 || tt->data_bytes != sizeof(float)) return 0;
    memcpy(&v, tt->data, sizeof v);
    return fabs((double)v - want) <= 1e-6 * fabs(want);
}

/* GELU as ONNX exporters write it before opset 20 (torch.nn.functional.gelu):
       Div(x, sqrt 2) or Mul(x, 1/sqrt 2) -> Erf -> Add 1 -> Mul by x -> Mul 0.5 (the two Muls in
       either order, x on either side)
   at the head of a chain whose input is x: replaced in ops by one Gelu (AICF_FN_GELU,
   0.5 x (1 + erf(x / sqrt 2)), the same function; Hendrycks & Gimpel, arXiv:1606.08415).
   Returns the new op count (n_ops when nothing matched). */
static int aicf__cuo_fold_gelu(const aicf__cuo* c, int x, aicf__cuo_ewop* ops, int n_ops) {
    int k, mx, mh;
    if (n_ops < 5 || x < 0) return n_ops;
    if (!((ops[0].op == AICF__OP_Div && !ops[0].left && aicf__cuo_is_scalar(c, ops[0].operand, 1.4142135623730951)) ||
          (ops[0].op == AICF__OP_Mul && aicf__cuo_is_scalar(c, ops[0].operand, 0.7071067811865476))))
        return n_ops;
    if (ops[1].op != AICF__OP_Erf || ops[2].op != AICF__OP_Add || !aicf__cuo_is_scalar(c, ops[2].operand, 1.0)) return n_ops;
    mx = ops[3].op == AICF__OP_Mul && ops[3].operand == x ? 3 : (ops[4].op == AICF__OP_Mul && ops[4].operand == x ? 4 : -1);
    mh = mx == 3 ? 4 : 3;
    if (mx < 0 || ops[mh].op != AICF__OP_Mul || !aicf__cuo_is_scalar(c, ops[mh].operand, 0.5)) return n_ops;
    ops[0].op = AICF__OP_Gelu;
    ops[0].operand = -1;
    ops[0].left = 0;
    ops[0].alpha = 0.0f; /* approximate = "none" */
    ops[0].beta = 0.0f;
    for (k = 5; k < n_ops; k++) ops[k - 4] = ops[k];
    return n_ops - 4;
}

/* Fills the chain descriptor *a for y = ops[n-1](... ops[0](x)) over y's shape (everything but
   the addresses, which the caller patches: y, x, and ops_out[k].operand for each binary op).
   ops_out receives the ops as folded (GELU), *vec whether 4 elements per thread are allowed.
   AICF_ERROR_UNSUPPORTED when the broadcasts do not fold to 4 dimensions or an op has no code. */
static aicf_result aicf__cuo_ewchain_desc(aicf__cuo* c, int x, int y, const aicf__cuo_ewop* ops_in, int n_in, aicf__k_ewchain* out,
                                          aicf__cuo_ewop* ops_out, int* vec_out, char* modes, size_t modes_cap) {
    aicf__k_ewchain a;
    const aicf__shape* ys = aicf__cuo_shape(c, y);
    int64_t shape[AICF_MAX_RANK], stv[AICF__EW_MAX_OPS + 1][AICF_MAX_RANK], cst[4];
    int64_t* st[AICF__EW_MAX_OPS + 1];
    int src_t[AICF__EW_MAX_OPS + 1];
    aicf__k_ew_src* src_d[AICF__EW_MAX_OPS + 1];
    int n_src = 0, rank, k, j, vec, n_ops = n_in;
    size_t ml = 0;
    int64_t n = aicf__cuo_numel(c, y);
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    if (n_in < 0 || n_in > AICF__EW_MAX_OPS) return AICF_ERROR_UNSUPPORTED;
    memcpy(ops, ops_in, sizeof(aicf__cuo_ewop) * (size_t)n_in);
    n_ops = aicf__cuo_fold_gelu(c, x, ops, n_in);
    memset(&a, 0, sizeof a);
    a.n = n;
    a.n_ops = n_ops;
    src_t[n_src] = x;
    src_d[n_src++] = &a.x;
    for (k = 0; k < n_ops; k++) {
        float al = ops[k].alpha, be = ops[k].beta;
        int code = aicf__cuo_ew_code(ops[k].op, &al, &be);
        if (!code || (code > 100) != (ops[k].operand >= 0)) return AICF_ERROR_UNSUPPORTED;
        a.ops[k].code = code;
        a.ops[k].left = ops[k].left;
        a.ops[k].alpha = al;
        a.ops[k].beta = be;
        if (ops[k].operand >= 0) {
            src_t[n_src] = ops[k].operand;
            src_d[n_src++] = &a.ops[k].src;
        }
    }
    for (j = 0; j < n_src; j++) {
        const aicf__shape* ss = aicf__cuo_shape(c, src_t[j]);
        if (ss->rank > ys->rank) return AICF_ERROR_UNSUPPORTED;
        aicf__cuo_bstrides(ss, ys, stv[j]);
        st[j] = stv[j];
    }
    memcpy(shape, ys->d, sizeof(int64_t) * (size_t)ys->rank);
    rank = aicf__cuo_collapse(shape, ys->rank, st, n_src);
    if (rank > 4) return AICF_ERROR_UNSUPPORTED;
    /* dims right-aligned in 4, contiguous strides of the output */
    for (k = 0; k < 4; k++) a.dims[k] = 1;
    for (k = 0; k < rank; k++) a.dims[4 - rank + k] = shape[k];
    cst[3] = 1;
    for (k = 2; k >= 0; k--) cst[k] = cst[k + 1] * a.dims[k + 1];
    for (j = 0; j < n_src; j++) {
        aicf__k_ew_src* d = src_d[j];
        int64_t s4[4];
        int lo = 4, hi = -1, full = 1, zero = 1, contig = 1;
        for (k = 0; k < 4; k++) s4[k] = k < 4 - rank ? 0 : st[j][k - (4 - rank)];
        for (k = 0; k < 4; k++) {
            if (a.dims[k] == 1) s4[k] = 0;
            if (s4[k] != cst[k] && a.dims[k] > 1) full = 0;
            if (s4[k] != 0) {
                zero = 0;
                if (k < lo) lo = k;
                if (k > hi) hi = k;
            }
        }
        /* the present dims form one block [lo, hi], contiguous in the source */
        if (!zero) {
            int64_t e = 1;
            for (k = hi; k >= lo; k--) {
                if (a.dims[k] > 1 && s4[k] != e) contig = 0;
                e *= a.dims[k];
            }
        }
        memcpy(d->st, s4, sizeof s4);
        if (full) d->mode = 0;
        else if (zero) d->mode = 1;
        else if (contig && hi == 3) {
            d->mode = 2;
            d->a = 1;
            for (k = lo; k <= 3; k++) d->a *= a.dims[k];
        } else if (contig) {
            d->mode = 3;
            d->a = d->b = 1;
            for (k = lo; k <= hi; k++) d->a *= a.dims[k];
            for (k = hi + 1; k < 4; k++) d->b *= a.dims[k];
        } else {
            d->mode = 4;
        }
        ml += (size_t)snprintf(modes + ml, ml < modes_cap ? modes_cap - ml : 0, "%s%s", j ? "," : "",
                               aicf__cuo_ew_mode_names[d->mode]);
        if (ml >= modes_cap) ml = modes_cap - 1;
    }
    /* 4 elements per thread where every source allows it (templates/ewchain.cu.j2 aicf_ew_readv) */
    vec = n % 4 == 0 && aicf__cuo_align(c, y, 0) >= 4 * c->es;
    for (j = 0; j < n_src && vec; j++) {
        const aicf__k_ew_src* d = src_d[j];
        uint64_t al = aicf__cuo_align(c, src_t[j], 0);
        if ((d->mode == 0 && al < 4 * c->es) || (d->mode == 2 && (d->a % 4 != 0 || al < 4 * c->es)) || (d->mode == 3 && d->b % 4 != 0))
            vec = 0;
    }
    *out = a;
    memcpy(ops_out, ops, sizeof(aicf__cuo_ewop) * (size_t)n_ops);
    *vec_out = vec;
    return AICF_SUCCESS;
}

/* Patches the addresses of a chain descriptor that starts `base` bytes into op's arguments: y,
   x (if x >= 0) and each binary op's operand (ops as aicf__cuo_ewchain_desc returned them). */
static void aicf__cuo_patch_chain(aicf__cuo_op* op, size_t base, int y, int x, const aicf__cuo_ewop* ops, int n_ops) {
    int k;
    aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, y), y, 0);
    if (x >= 0) aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, x), x, 0);
    for (k = 0; k < n_ops; k++)
        if (ops[k].operand >= 0)
            aicf__cuo_patch(op, base + offsetof(aicf__k_ewchain, ops) + (size_t)k * sizeof(aicf__k_ew_op) + offsetof(aicf__k_ew_op, src),
                            ops[k].operand, 0);
}

/* Adds one ewchain launch: y = ops[n-1](... ops[0](x)) over y's shape, x and the operands read
   through broadcast descriptors (x may be y: in place). AICF_ERROR_UNSUPPORTED without adding
   anything when the broadcasts do not fold to 4 dimensions. */
static aicf_result aicf__cuo_ewchain(aicf__cuo* c, int x, int y, const aicf__cuo_ewop* ops_in, int n_in) {
    aicf__k_ewchain a;
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    unsigned grid[3], block[3];
    aicf__cuo_op* op = NULL;
    char name[96], modes[64];
    int n_ops, vec;
    int64_t n = aicf__cuo_numel(c, y);
    aicf_result r;
    modes[0] = 0;
    if (n_in < 1) return AICF_ERROR_UNSUPPORTED;
    if ((r = aicf__cuo_ewchain_desc(c, x, y, ops_in, n_in, &a, ops, &vec, modes, sizeof modes)) != AICF_SUCCESS) return r;
    n_ops = a.n_ops;
    snprintf(name, sizeof name, "aicf_ewchain_%s%s", aicf__cuo_dtn(c), vec ? "_v4" : "");
    aicf__cuo_dims1(vec ? n / 4 : n, grid, block);
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch_chain(op, 0, y, x, ops, n_ops);
    aicf__cuo_reason(c, "fused chain of %d elementwise ops in one pass over %lld elements%s%s (sources: %s)", n_in,
                     (long long)n, vec ? ", 4 per thread" : "", n_ops < n_in ? "; Div Erf Add Mul Mul as one Gelu" : "", modes);
    return AICF_SUCCESS;
}

/* Checks the storage of a chain's tensors (all float32 or all float16, like output 0). */
static aicf_result aicf__cuo_ew_storage(aicf__cuo* c, const aicf__cuo_ewop* ops, int n_ops, int x) {
    aicf_result r;
    int k;
    if ((r = aicf__cuo_float(c, aicf__cuo_out(c, 0), "output 0", 1)) != AICF_SUCCESS) return r;
    if (x >= 0 && (r = aicf__cuo_float(c, x, "chain input", 0)) != AICF_SUCCESS) return r;
    for (k = 0; k < n_ops; k++)
        if (ops[k].operand >= 0 && (r = aicf__cuo_float(c, ops[k].operand, "epilogue operand", 0)) != AICF_SUCCESS) return r;
    return AICF_SUCCESS;
}

/* The step's epilogue ops from index `from` as chain ops. */
static int aicf__cuo_epi_ops(const aicf__cuo* c, int from, aicf__cuo_ewop* ops) {
    int k, n = 0;
    for (k = from; k < c->st->n_epi; k++, n++) {
        const aicf__epi* e = &c->st->epi[k];
        ops[n].op = e->op;
        ops[n].operand = e->operand;
        ops[n].left = e->operand_left;
        ops[n].alpha = e->alpha;
        ops[n].beta = e->beta;
    }
    return n;
}

/* Gemm at small M (the batch-1 Linear layer): Y [M, N] = epilogue(alpha A B^T + C) on the
   generated GEMV kernels (templates/ewchain.cu.j2 aicf_gemv_*), with C (beta = 1) and every
   fused epilogue op of the step applied in the kernel. Applies when A is not transposed, B is
   (ONNX transB = 1: the weights [N, K], each output column one contiguous row), M <= 8, and the
   epilogue fits one chain. At these M a GEMM does 2 M flops per weight read: it is bound by
   reading B once, which one warp per column in 16-byte pieces does at full width, and the
   epilogue costs no launch of its own. Returns AICF_ERROR_UNSUPPORTED (nothing added) when it
   does not apply. */
static aicf_result aicf__cuo_lower_gemv(aicf__cuo* c, const aicf__matmul_desc* md, int A, int B, int C, float beta, int Y) {
    aicf__cuo_ewop in[AICF__EW_MAX_OPS], ops[AICF__EW_MAX_OPS];
    aicf__k_gemv g;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    char name[96], modes[64];
    int n_in = 0, chain_vec, vec, mt, k, e = (int)(16 / c->es);
    aicf_result r;
    if (!md->trans_b || md->trans_a || md->batch != 1 || md->M < 1 || md->M > AICF__CUO_GEMV_MAX_M || md->N < 1 || md->K < 1)
        return AICF_ERROR_UNSUPPORTED;
    if (C >= 0) {
        if (beta != 1.0f) return AICF_ERROR_UNSUPPORTED;
        in[n_in].op = AICF__OP_Add;
        in[n_in].operand = C;
        in[n_in].left = 0;
        in[n_in].alpha = in[n_in].beta = 0.0f;
        n_in++;
    }
    if (n_in + c->st->n_epi > AICF__EW_MAX_OPS) return AICF_ERROR_UNSUPPORTED;
    n_in += aicf__cuo_epi_ops(c, 0, in + n_in);
    for (k = 0; k < n_in; k++) /* operands stored like the output (else the general path reports it) */
        if (in[k].operand >= 0 && c->p->loc[in[k].operand].sdtype != c->p->loc[Y].sdtype) return AICF_ERROR_UNSUPPORTED;
    memset(&g, 0, sizeof g);
    modes[0] = 0;
    if ((r = aicf__cuo_ewchain_desc(c, Y, Y, in, n_in, &g.e, ops, &chain_vec, modes, sizeof modes)) != AICF_SUCCESS) return r;
    (void)chain_vec; /* one element per lane: the chain's 4-wide layout does not apply */
    g.M = md->M;
    g.N = md->N;
    g.K = md->K;
    g.lda = md->lda;
    g.ldb = md->ldb;
    g.alpha = md->alpha;
    for (mt = 1; mt < md->M; mt *= 2) {}
    vec = md->K % e == 0 && md->lda % e == 0 && md->ldb % e == 0 && aicf__cuo_align(c, A, 0) >= 16 && aicf__cuo_align(c, B, 0) >= 16;
    snprintf(name, sizeof name, "aicf_gemv_%s_m%d%s", aicf__cuo_dtn(c), mt, vec ? "_v" : "");
    block[0] = 128; /* 4 warps: 4 output columns per block */
    block[1] = block[2] = 1;
    if ((md->N + 3) / 4 > 0x7fffffff) return AICF_ERROR_UNSUPPORTED;
    grid[0] = (unsigned)((md->N + 3) / 4);
    grid[1] = grid[2] = 1;
    if ((r = aicf__cuo_kernel(c, name, &g, sizeof g, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch_chain(op, offsetof(aicf__k_gemv, e), Y, -1, ops, g.e.n_ops); /* e.x is not read */
    aicf__cuo_patch(op, offsetof(aicf__k_gemv, a), A, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_gemv, b), B, 0);
    c->st->epi_native = c->st->n_epi;
    aicf__cuo_reason(c, "small-M GEMM M=%lld N=%lld K=%lld (transB, M <= %d): GEMV, a warp per column%s; "
                        "epilogue inside: %s%d fused ops (%s)",
                     (long long)md->M, (long long)md->N, (long long)md->K, AICF__CUO_GEMV_MAX_M,
                     vec ? ", 16-byte loads" : ", element loads (K, ld or address not 16-byte aligned)",
                     C >= 0 ? "C, " : "", c->st->n_epi, modes);
    return AICF_SUCCESS;
}

/* The remaining epilogue (after the main kernel wrote output 0): one chain kernel in place on
   output 0; when the broadcasts do not fold, one kernel per op, in place. */
static aicf_result aicf__cuo_lower_epilogue(aicf__cuo* c) {
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    int y = aicf__cuo_out(c, 0), n, k;
    char why[192];
    aicf_result r;
    if (c->st->epi_native >= c->st->n_epi) return AICF_SUCCESS;
    n = aicf__cuo_epi_ops(c, c->st->epi_native, ops);
    snprintf(why, sizeof why, "%s", c->reason);
    if ((r = aicf__cuo_ew_storage(c, ops, n, -1)) != AICF_SUCCESS) return r;
    r = aicf__cuo_ewchain(c, y, y, ops, n);
    if (r == AICF_ERROR_UNSUPPORTED) { /* op by op, in place, with the general kernels */
        static const char* const fns[41] = {
            "relu", "tanh", "sigmoid", "exp", "log", "sqrt", "neg", "abs", "reciprocal", "erf", "leaky_relu", "elu",
            "hard_sigmoid", "hard_swish", "clip", "floor", "ceil", "round", "sign", "softplus", "softsign", "selu", "celu",
            "thresholded_relu", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
            "gelu", "gelu_tanh", "mish", "shrink", "swish", "divs"}; /* AICF_FN_* 1..41 (codegen/variants.py UNARY_FNS) */
        for (k = 0; k < n; k++) {
            const aicf__node* en = &c->g->nodes[c->st->epi[c->st->epi_native + k].node];
            if (ops[k].operand < 0) {
                float al = ops[k].alpha, be = ops[k].beta;
                int code = aicf__cuo_ew_code(ops[k].op, &al, &be);
                if (code < 1 || code > 41)
                    return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "epilogue op %s has no device kernel", en->op_type);
                r = aicf__cuo_unary_launch(c, fns[code - 1], y, y, al, be);
            } else {
                const aicf__shape* ys = aicf__cuo_shape(c, y);
                const aicf__shape* os = aicf__cuo_shape(c, ops[k].operand);
                const char* fn = aicf__cuo_binfn(ops[k].op);
                if (!fn) return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "epilogue op %s has no device kernel", en->op_type);
                r = ops[k].left ? aicf__cuo_binary(c, fn, ops[k].operand, os, y, ys, y, ys)
                                : aicf__cuo_binary(c, fn, y, ys, ops[k].operand, os, y, ys);
            }
            if (r != AICF_SUCCESS) return r;
        }
        snprintf(c->reason, sizeof c->reason, "%.120s; epilogue: %d ops one kernel each (broadcast over > 4 dims)", why, n);
        return AICF_SUCCESS;
    }
    if (r != AICF_SUCCESS) return r;
    snprintf(c->reason, sizeof c->reason, "%.125s; then %d fused elementwise ops in one in-place pass", why, n);
    return AICF_SUCCESS;
}

/* A step whose main node is itself elementwise: the whole chain in one kernel. Returns
   AICF_ERROR_UNSUPPORTED (nothing added) when it cannot. */
static aicf_result aicf__cuo_lower_chain(aicf__cuo* c) {
    aicf__cuo_ewop ops[AICF__EW_MAX_OPS];
    float alpha, beta;
    int kind = aicf__op_epilogue_kind(c->g, c->st->node, &alpha, &beta), n;
    aicf_result r;
    if (kind == 0 || c->st->n_epi + 1 > AICF__EW_MAX_OPS) return AICF_ERROR_UNSUPPORTED;
    ops[0].op = c->nd->op;
    ops[0].operand = kind == 2 ? aicf__cuo_in(c, 1) : -1;
    ops[0].left = 0;
    ops[0].alpha = alpha;
    ops[0].beta = beta;
    n = 1 + aicf__cuo_epi_ops(c, 0, ops + 1);
    if ((r = aicf__cuo_ew_storage(c, ops, n, aicf__cuo_in(c, 0))) != AICF_SUCCESS) return r;
    r = aicf__cuo_ewchain(c, aicf__cuo_in(c, 0), aicf__cuo_out(c, 0), ops, n);
    if (r == AICF_SUCCESS) c->st->epi_native = c->st->n_epi;
    return r;
}

/* ---- entry points ---- */

static aicf_result aicf__cuo_lower_node(aicf__cuo* c) {
    int y = aicf__cuo_out(c, 0);
    aicf__op op = c->nd->op;
    if (y < 0) return aicf__cuo_fail(c, AICF_ERROR_INVALID_MODEL, "output 0 is omitted");
    if (aicf__op_is_alias(op)) return aicf__cuo_lower_alias(c);
    if (aicf__cuo_numel(c, y) == 0 && op != AICF__OP_Split) { /* Split: the other outputs may not be empty */
        snprintf(c->kernel, sizeof c->kernel, "empty");
        aicf__cuo_reason(c, "output has 0 elements: nothing to run");
        return AICF_SUCCESS;
    }
    switch (op) {
    case AICF__OP_Relu:
    case AICF__OP_Tanh:
    case AICF__OP_Sigmoid:
    case AICF__OP_Exp:
    case AICF__OP_Log:
    case AICF__OP_Sqrt:
    case AICF__OP_Neg:
    case AICF__OP_Abs:
    case AICF__OP_Reciprocal:
    case AICF__OP_Erf:
    case AICF__OP_LeakyRelu:
    case AICF__OP_Elu:
    case AICF__OP_HardSigmoid:
    case AICF__OP_HardSwish:
    case AICF__OP_Clip:
    case AICF__OP_Floor:
    case AICF__OP_Ceil:
    case AICF__OP_Round:
    case AICF__OP_Sign:
    case AICF__OP_Softplus:
    case AICF__OP_Softsign:
    case AICF__OP_Selu:
    case AICF__OP_Celu:
    case AICF__OP_ThresholdedRelu:
    case AICF__OP_Sin:
    case AICF__OP_Cos:
    case AICF__OP_Tan:
    case AICF__OP_Asin:
    case AICF__OP_Acos:
    case AICF__OP_Atan:
    case AICF__OP_Sinh:
    case AICF__OP_Cosh:
    case AICF__OP_Asinh:
    case AICF__OP_Acosh:
    case AICF__OP_Atanh:
    case AICF__OP_Gelu:
    case AICF__OP_Mish:
    case AICF__OP_Shrink:
    case AICF__OP_Swish: return aicf__cuo_lower_unary(c);
    case AICF__OP_Add:
    case AICF__OP_Sub:
    case AICF__OP_Mul:
    case AICF__OP_Div:
    case AICF__OP_Pow:
    case AICF__OP_Sum:
    case AICF__OP_Max:
    case AICF__OP_Min:
    case AICF__OP_Mean:
    case AICF__OP_PRelu: return aicf__cuo_lower_binary(c);
    case AICF__OP_Conv: return aicf__cuo_lower_conv(c);
    case AICF__OP_Gemm: return aicf__cuo_lower_gemm(c);
    case AICF__OP_MatMul: return aicf__cuo_lower_matmul(c);
    case AICF__OP_MaxPool:
    case AICF__OP_AveragePool: return aicf__cuo_lower_pool(c);
    case AICF__OP_GlobalAveragePool: return aicf__cuo_lower_gap(c);
    case AICF__OP_BatchNormalization: return aicf__cuo_lower_bn(c);
    case AICF__OP_LRN: return aicf__cuo_lower_lrn(c);
    case AICF__OP_Softmax:
    case AICF__OP_LogSoftmax: return aicf__cuo_lower_softmax(c);
    case AICF__OP_Gather: return aicf__cuo_lower_gather(c);
    case AICF__OP_Slice: return aicf__cuo_lower_slice(c);
    case AICF__OP_Split: return aicf__cuo_lower_split(c);
    case AICF__OP_Pad: return aicf__cuo_lower_pad(c);
    case AICF__OP_Tile: return aicf__cuo_lower_tile(c);
    case AICF__OP_Expand: return aicf__cuo_lower_expand(c);
    case AICF__OP_Where: return aicf__cuo_lower_where(c);
    case AICF__OP_DepthToSpace:
    case AICF__OP_SpaceToDepth: return aicf__cuo_lower_d2s(c);
    case AICF__OP_ReduceMean:
    case AICF__OP_ReduceSum:
    case AICF__OP_ReduceMax:
    case AICF__OP_ReduceMin:
    case AICF__OP_ReduceProd:
    case AICF__OP_ReduceL1:
    case AICF__OP_ReduceL2:
    case AICF__OP_ReduceLogSum:
    case AICF__OP_ReduceLogSumExp:
    case AICF__OP_ReduceSumSquare:
    case AICF__OP_GlobalMaxPool: return aicf__cuo_lower_reduce(c);
    case AICF__OP_LayerNormalization:
    case AICF__OP_RMSNormalization:
    case AICF__OP_GroupNormalization:
    case AICF__OP_InstanceNormalization: return aicf__cuo_lower_norm(c);
    case AICF__OP_Resize:
    case AICF__OP_Upsample: return aicf__cuo_lower_resize(c);
    case AICF__OP_ConvTranspose: return aicf__cuo_lower_convt(c);
    case AICF__OP_Transpose: return aicf__cuo_lower_transpose(c);
    case AICF__OP_Concat: return aicf__cuo_lower_concat(c);
    case AICF__OP_Cast: return aicf__cuo_convert(c, aicf__cuo_in(c, 0), y);
    case AICF__OP_Constant:
    case AICF__OP_ConstantOfShape:
    case AICF__OP_Shape:
        return aicf__cuo_fail(c, AICF_ERROR_STATE, "should have been folded into a constant at plan time");
    default: return aicf__cuo_fail(c, AICF_ERROR_UNSUPPORTED, "op type has no device lowering");
    }
}

/* ---- persistent chains of GEMV steps (after every step is lowered) ----
   A run of consecutive steps that each lowered to one vectorised GEMV launch (aicf_gemv_*_v:
   batch-1 Linear layers) becomes one launch of aicf_gemvp_*: the same layers, in step order,
   with a grid-wide barrier between them (templates/ewchain.cu.j2). At batch 1 each Linear layer
   as its own graph node costs ~2.5 us on an H100 (launch and dependency, measured), a barrier a
   fraction of that, and the next layer's weights stream in while the barrier waits. A float32 ->
   float16 Cast step right before the run whose output only the first layer reads, and a float16
   -> float32 Cast step right after it that alone reads the last layer's output (the API boundary
   casts of a float16 plan) are absorbed too: the first layer reads float32 and rounds to float16
   as the Cast did, the last one stores float32 after rounding to float16; the Cast's float16
   tensor is then never written. Results are those of the separate launches, bit for bit.

   Conditions, each checked: the layers' weights B are constants of the plan (read through the
   non-coherent path and prefetched before a barrier); every epilogue operand is a constant or
   produced before the run (read with plain loads: nothing in the launch writes it); the
   epilogue has at most AICF__GEMVP_MAX_OPS ops; at most AICF__GEMVP_MAX_LAYERS layers per
   launch and AICF__CUO_MAX_PATCH addresses. The grid is at most one block per SM of the plan's
   device, so every block is resident and the barrier cannot deadlock; the exec's barrier word
   (AICF__CUO_SYNC) is zeroed at exec creation. Off with the policy's no_fusion.

   Runs of more than one layer only with the policy's `persistent`: measured on an H100 (mlp_b1,
   docs/benchmarks.md), a grid barrier costs ~1.3 us and each layer's activations one more L2
   round trip, together about what a separate launch costs; the joined MLP took 21.9 us against
   16.0 us as separate launches. By default a run is one GEMV and the boundary Casts beside it,
   folded into the GEMV launch itself (aicf__cuo_fold_casts: no barrier, no persistent kernel). */

/* The tensor patched at `field` of op, or -1. */
static int aicf__cuo_patched(const aicf__cuo_op* op, size_t field, uint64_t* add) {
    int k;
    for (k = 0; k < op->n_patch; k++)
        if (op->patch[k].field == (uint32_t)field) {
            if (add) *add = op->patch[k].add;
            return op->patch[k].tensor;
        }
    return -1;
}

/* The only op of step si when it is one launch of a table kernel whose name begins with prefix. */
static const aicf__cuo_op* aicf__cuo_sole(const aicf_plan* p, int si, const char* prefix) {
    const aicf__step* st = &p->steps[si];
    aicf__cuo_prog* pr = (aicf__cuo_prog*)st->backend;
    const aicf__cuo_op* op;
    if (!pr || pr->n_ops != 1 || pr->n_algo != 0 || strncmp(st->kernel, prefix, strlen(prefix)) != 0) return NULL;
    op = aicf__cuo_prog_ops(pr);
    return op->kind == AICF__CUO_KERNEL ? op : NULL;
}

/* How many times tensor t is read: step inputs, epilogue operands, and plan outputs at the API
   boundary (counted as many). */
static int aicf__cuo_reads(const aicf_plan* p, int t) {
    int s, i, n = 0;
    for (s = 0; s < p->n_steps; s++) {
        const aicf__step* st = &p->steps[s];
        for (i = 0; i < st->n_in; i++) n += st->in[i] == t;
        for (i = 0; i < st->n_epi; i++) n += st->epi[i].operand == t;
    }
    for (i = 0; i < p->n_out; i++) /* the API reads the boundary tensors (aicf_exec_get_output, device pointers) */
        if (p->out_boundary[i] == t) n += 1000;
    return n;
}

/* Whether tensors a and b occupy disjoint bytes (views resolved to their root's space). */
static int aicf__cuo_disjoint(const aicf_plan* p, int a, int b) {
    uint64_t oa = 0, ob = 0;
    int ra = a, rb = b, guard = 0;
    while (ra >= 0 && p->loc[ra].alias_of >= 0 && guard++ < 64) oa += p->loc[ra].alias_add, ra = p->loc[ra].alias_of;
    guard = 0;
    while (rb >= 0 && p->loc[rb].alias_of >= 0 && guard++ < 64) ob += p->loc[rb].alias_add, rb = p->loc[rb].alias_of;
    if (ra < 0 || rb < 0) return 0;
    if (p->loc[ra].space != p->loc[rb].space) return 1;
    oa += p->loc[ra].offset, ob += p->loc[rb].offset;
    return oa + p->loc[a].bytes <= ob || ob + p->loc[b].bytes <= oa;
}

/* Step si as layer L of a chain of storage dtype f16 (-1: not fixed yet); *mt its row tile.
   Returns 0 when it does not qualify. */
static int aicf__cuo_gemvp_layer(const aicf_plan* p, int si, int* f16, int* mt, aicf__k_gemvp_layer* L, int* patch_t, uint32_t* patch_f,
                                 uint64_t* patch_a, int* n_patch) {
    const aicf__step* st = &p->steps[si];
    const aicf__cuo_op* op = aicf__cuo_sole(p, si, "aicf_gemv_");
    aicf__k_gemv g;
    size_t len = strlen(st->kernel), so = offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, ops);
    int k, lf16, lmt, t_a, t_b, t_y;
    uint64_t add_a = 0, add_b = 0, add_y = 0;
    if (!op || len < 3 || strcmp(st->kernel + len - 2, "_v") != 0 || op->args_size != sizeof g) return 0;
    if (strncmp(st->kernel, "aicf_gemv_f16_m", 15) == 0) lf16 = 1;
    else if (strncmp(st->kernel, "aicf_gemv_f32_m", 15) == 0) lf16 = 0;
    else return 0;
    if (*f16 >= 0 && lf16 != *f16) return 0;
    memcpy(&g, op->args, sizeof g);
    if (g.e.n_ops > AICF__GEMVP_MAX_OPS || g.M < 1 || g.M > AICF__CUO_GEMV_MAX_M) return 0;
    t_a = aicf__cuo_patched(op, offsetof(aicf__k_gemv, a), &add_a);
    t_b = aicf__cuo_patched(op, offsetof(aicf__k_gemv, b), &add_b);
    t_y = aicf__cuo_patched(op, offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y), &add_y);
    if (t_a < 0 || t_b < 0 || t_y < 0 || p->loc[aicf__root(p, t_b)].space != AICF__SPACE_WEIGHTS) return 0;
    if (*n_patch + 3 + g.e.n_ops + 1 > AICF__CUO_MAX_PATCH) return 0;
    for (lmt = 1; lmt < g.M; lmt *= 2) {}
    memset(L, 0, sizeof *L);
    L->M = g.M, L->N = g.N, L->K = g.K, L->lda = g.lda, L->ldb = g.ldb, L->alpha = g.alpha;
    memcpy(L->dims, g.e.dims, sizeof L->dims);
    L->n_ops = g.e.n_ops;
    L->flags = AICF__GEMVP_PREFETCH;
    for (k = 0; k < g.e.n_ops; k++) L->ops[k] = g.e.ops[k];
    /* the patches, renumbered into the layer (the caller adds the layer's offset) */
    patch_t[*n_patch] = t_a, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, a), patch_a[(*n_patch)++] = add_a;
    patch_t[*n_patch] = t_b, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, b), patch_a[(*n_patch)++] = add_b;
    patch_t[*n_patch] = t_y, patch_f[*n_patch] = (uint32_t)offsetof(aicf__k_gemvp_layer, y), patch_a[(*n_patch)++] = add_y;
    for (k = 0; k < op->n_patch; k++) {
        const aicf__cuo_fix* f = &op->patch[k];
        size_t rel;
        if (f->field < so || f->field >= offsetof(aicf__k_gemv, e) + sizeof(aicf__k_ewchain)) continue; /* a, b, e.y: above */
        rel = f->field - so;
        if (rel % sizeof(aicf__k_ew_op) != offsetof(aicf__k_ew_op, src) || rel / sizeof(aicf__k_ew_op) >= (size_t)g.e.n_ops) return 0;
        if (f->tensor < 0) return 0;
        patch_t[*n_patch] = f->tensor;
        patch_f[*n_patch] = (uint32_t)(offsetof(aicf__k_gemvp_layer, ops) + rel);
        patch_a[(*n_patch)++] = f->add;
    }
    *f16 = lf16;
    if (lmt > *mt) *mt = lmt;
    return 1;
}

static aicf_result aicf__cuo_persist_run(aicf_plan* p, int lead, int first, int n_layers, int trail, const aicf__k_gemvp* args,
                                         int mt, int f16, const int* patch_t, const uint32_t* patch_f, const uint64_t* patch_a,
                                         int n_patch) {
    aicf__cuo c;
    aicf__cuo_op* op = NULL;
    aicf__cuo_prog* pr;
    unsigned grid[3], block[3];
    int64_t items = 1, blocks;
    int sm = 1, k, s0 = lead >= 0 ? lead : first, s1 = trail >= 0 ? trail : first + n_layers - 1, si;
    char name[64];
    aicf_result r;
    memset(&c, 0, sizeof c);
    c.p = p, c.ctx = p->ctx, c.g = p->g, c.si = s0, c.st = &p->steps[s0];
    c.ops = (aicf__cuo_op*)aicf__malloc(p->ctx, sizeof(aicf__cuo_op));
    if (!c.ops) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    if (p->ctx->cuda && p->ctx->cuda->ready && p->ctx->cuda->sm_count > 0) sm = p->ctx->cuda->sm_count;
    for (k = 0; k < n_layers; k++) {
        int64_t it = args->l[k].N * ((args->l[k].M + mt - 1) / mt);
        if (it > items) items = it;
    }
    blocks = (items + AICF__GEMVP_BLOCK / 32 - 1) / (AICF__GEMVP_BLOCK / 32);
    if (blocks > sm) blocks = sm;
    grid[0] = (unsigned)blocks, grid[1] = grid[2] = 1;
    block[0] = AICF__GEMVP_BLOCK, block[1] = block[2] = 1;
    snprintf(name, sizeof name, "aicf_gemvp_%s_m%d", f16 ? "f16" : "f32", mt);
    if (aicf__cuda_kernel_find(name) < 0) { /* a table without it: keep the separate launches (no error recorded) */
        aicf__free(p->ctx, c.ops);
        return AICF_ERROR_UNSUPPORTED;
    }
    r = aicf__cuo_kernel(&c, name, args, sizeof *args, grid, block, 0, &op);
    if (r != AICF_SUCCESS || !op) {
        aicf__free(p->ctx, c.ops);
        return r == AICF_SUCCESS ? AICF_ERROR_UNSUPPORTED : r;
    }
    aicf__cuo_patch(op, offsetof(aicf__k_gemvp, bar), AICF__CUO_SYNC, 0);
    for (k = 0; k < n_patch; k++) aicf__cuo_patch(op, patch_f[k], patch_t[k], patch_a[k]);
    pr = (aicf__cuo_prog*)aicf__calloc(p->ctx, 1, AICF__CUO_HDR + sizeof(aicf__cuo_op));
    if (!pr) {
        aicf__free(p->ctx, c.ops);
        return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    }
    pr->n_ops = 1;
    memcpy(aicf__cuo_prog_ops(pr), op, sizeof *op);
    for (si = s0; si <= s1; si++) {
        aicf__step* st = &p->steps[si];
        aicf__free(p->ctx, st->backend);
        st->backend = NULL;
        st->kernel_index = -1;
        memset(st->grid, 0, sizeof st->grid);
        memset(st->block, 0, sizeof st->block);
        st->shared_bytes = 0;
        if (si != s0) {
            snprintf(st->kernel, sizeof st->kernel, "persistent");
            if (si == lead || si == trail)
                snprintf(st->reason, sizeof st->reason, "runs inside step %d's persistent kernel %s: Cast absorbed, its float16 tensor not written",
                         s0, name);
            else
                snprintf(st->reason, sizeof st->reason, "runs inside step %d's persistent kernel %s: layer %d of %d%s", s0, name,
                         si - first + 1, n_layers, si > first ? ", after a grid barrier" : "");
        }
    }
    {
        aicf__step* st = &p->steps[s0];
        st->backend = pr;
        st->kernel_index = op->kernel_index;
        memcpy(st->grid, grid, sizeof grid);
        memcpy(st->block, block, sizeof block);
        snprintf(st->kernel, sizeof st->kernel, "%s", name);
        snprintf(st->reason, sizeof st->reason,
                 "persistent: steps %d..%d (%d GEMV layer%s%s%s) in one launch, a grid barrier between layers, "
                 "%lld blocks (<= 1 per SM of %d)", s0, s1, n_layers, n_layers > 1 ? "s" : "", lead >= 0 ? ", input Cast" : "",
                 trail >= 0 ? ", output Cast" : "",
                 (long long)blocks, sm);
    }
    aicf__free(p->ctx, c.ops);
    return AICF_SUCCESS;
}

/* A single GEMV step with the boundary Cast before it (lead >= 0) and/or after it (trail >= 0):
   the GEMV reads the Cast's float32 input (tensor a, + a_add) and/or writes the float32 output
   (tensor d, + d_add) itself (aicf_gemv flags, the Casts' rounding kept); the Cast steps launch
   nothing. The conditions are those of a persistent run's (aicf__cuda_persist). */
static void aicf__cuo_fold_casts(aicf_plan* p, int lead, int gemv, int trail, int a, uint64_t a_add, int d, uint64_t d_add) {
    aicf__step* st = &p->steps[gemv];
    aicf__cuo_op* op = aicf__cuo_prog_ops((aicf__cuo_prog*)st->backend);
    aicf__k_gemv g;
    int k, si;
    char extra[64];
    memcpy(&g, op->args, sizeof g);
    for (k = 0; k < op->n_patch; k++) {
        if (lead >= 0 && op->patch[k].field == offsetof(aicf__k_gemv, a)) op->patch[k].tensor = a, op->patch[k].add = a_add;
        if (trail >= 0 && op->patch[k].field == offsetof(aicf__k_gemv, e) + offsetof(aicf__k_ewchain, y))
            op->patch[k].tensor = d, op->patch[k].add = d_add;
    }
    if (lead >= 0) g.flags |= AICF__GEMVP_A_F32;
    if (trail >= 0) g.flags |= AICF__GEMVP_D_F32;
    memcpy(op->args, &g, sizeof g);
    for (si = lead >= 0 ? lead : gemv; si <= (trail >= 0 ? trail : gemv); si++) {
        aicf__step* cs = &p->steps[si];
        if (si == gemv) continue;
        aicf__free(p->ctx, cs->backend);
        cs->backend = NULL;
        cs->kernel_index = -1;
        memset(cs->grid, 0, sizeof cs->grid);
        memset(cs->block, 0, sizeof cs->block);
        cs->shared_bytes = 0;
        snprintf(cs->kernel, sizeof cs->kernel, "absorbed");
        snprintf(cs->reason, sizeof cs->reason, "Cast absorbed into step %d's GEMV (%s): its float16 tensor is not written", gemv,
                 si == lead ? "reads the float32 input" : "writes the float32 output");
    }
    snprintf(extra, sizeof extra, "; boundary Cast%s absorbed (%s%s%s)", lead >= 0 && trail >= 0 ? "s" : "",
             lead >= 0 ? "float32 A" : "", lead >= 0 && trail >= 0 ? ", " : "", trail >= 0 ? "float32 D" : "");
    { /* the original reason, shortened where needed so the note fits */
        char why[sizeof st->reason];
        int keep = (int)(sizeof why - 1 - strlen(extra));
        snprintf(why, sizeof why, "%.*s%s", keep, st->reason, extra);
        memcpy(st->reason, why, sizeof why);
    }
}

aicf_result aicf__cuda_persist(aicf_plan* p, int* n_kernels) {
    int s = 0;
    *n_kernels = 0;
    if (p->policy.no_fusion) return AICF_SUCCESS;
    while (s < p->n_steps) {
        aicf__k_gemvp args;
        aicf__k_gemvp_layer L;
        int patch_t[AICF__CUO_MAX_PATCH], n_patch = 0, f16 = -1, mt = 1, n = 0, lead = -1, trail = -1, first, k, pbase;
        uint32_t patch_f[AICF__CUO_MAX_PATCH];
        uint64_t patch_a[AICF__CUO_MAX_PATCH];
        const aicf__cuo_op* cast;
        aicf_result r;
        memset(&args, 0, sizeof args);
        first = s;
        /* an input Cast f32 -> f16 right before */
        cast = aicf__cuo_sole(p, s, "aicf_cast_f32_f16");
        if (cast && s + 1 < p->n_steps) first = s + 1;
        while (first + n < p->n_steps && n < (p->policy.persistent ? AICF__GEMVP_MAX_LAYERS : 1)) {
            pbase = n_patch;
            if (!aicf__cuo_gemvp_layer(p, first + n, &f16, &mt, &L, patch_t, patch_f, patch_a, &n_patch)) break;
            for (k = pbase; k < n_patch; k++) patch_f[k] += (uint32_t)(offsetof(aicf__k_gemvp, l) + (size_t)n * sizeof L);
            args.l[n++] = L;
        }
        if (n == 0) {
            s++;
            continue;
        }
        /* the operands: constants or produced before the run (no layer of it writes them) */
        for (k = 0; k < n_patch; k++) {
            int j, root = aicf__root(p, patch_t[k]);
            size_t rel = (patch_f[k] - offsetof(aicf__k_gemvp, l)) % sizeof L;
            if (rel < offsetof(aicf__k_gemvp_layer, ops)) continue;
            for (j = 0; j < n; j++)
                if (aicf__root(p, p->steps[first + j].out[0]) == root) break;
            if (j < n) { /* cut the run before the layer that reads it */
                int layer = (int)((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L);
                if (layer < n) n = layer;
            }
        }
        if (n == 0) {
            s = first + 1;
            continue;
        }
        /* drop the patches of layers cut away */
        {
            int w = 0;
            for (k = 0; k < n_patch; k++)
                if ((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L < (size_t)n) {
                    patch_t[w] = patch_t[k], patch_f[w] = patch_f[k], patch_a[w] = patch_a[k];
                    w++;
                }
            n_patch = w;
        }
        args.n_layers = n;
        if (cast && first == s + 1 && f16 == 1) { /* absorb the input Cast */
            uint64_t add_x = 0, add_y = 0;
            int x = aicf__cuo_patched(cast, offsetof(aicf__k_cast, x), &add_x), y = aicf__cuo_patched(cast, offsetof(aicf__k_cast, y), &add_y);
            aicf__cuo cc;
            memset(&cc, 0, sizeof cc);
            cc.p = p;
            /* layer 0 then reads x while it writes its output: the memory plan kept them apart only
               if x was still live (it need not be: the Cast was x's last reader) */
            if (x >= 0 && y >= 0 && add_x == 0 && add_y == 0 && patch_t[0] == y && patch_a[0] == 0 && aicf__cuo_reads(p, y) == 1 &&
                aicf__cuo_align(&cc, x, add_x) >= 16 && args.l[0].lda % 4 == 0 && aicf__cuo_disjoint(p, x, p->steps[first].out[0])) {
                patch_t[0] = x, patch_a[0] = add_x;
                args.l[0].flags |= AICF__GEMVP_A_F32;
                lead = s;
            }
        }
        if (f16 == 1 && first + n < p->n_steps) { /* absorb the output Cast */
            const aicf__cuo_op* oc = aicf__cuo_sole(p, first + n, "aicf_cast_f16_f32");
            uint64_t add_x = 0, add_y = 0, add_d = 0;
            int x = oc ? aicf__cuo_patched(oc, offsetof(aicf__k_cast, x), &add_x) : -1;
            int y = oc ? aicf__cuo_patched(oc, offsetof(aicf__k_cast, y), &add_y) : -1;
            int d = -1, kd = -1;
            for (k = 0; k < n_patch; k++)
                if (patch_f[k] == offsetof(aicf__k_gemvp, l) + (size_t)(n - 1) * sizeof L + offsetof(aicf__k_gemvp_layer, y)) kd = k;
            if (kd >= 0) d = patch_t[kd], add_d = patch_a[kd];
            int apart = y >= 0;
            /* the last layer then writes y while it reads its inputs: apart only if the memory plan
               placed them so (y is born after the layer's step, its inputs may die there) */
            for (k = 0; k < n_patch && apart; k++)
                if ((patch_f[k] - offsetof(aicf__k_gemvp, l)) / sizeof L == (size_t)(n - 1) && k != kd)
                    apart = aicf__cuo_disjoint(p, y, patch_t[k]);
            if (x >= 0 && y >= 0 && apart && d == x && add_x == 0 && add_y == 0 && add_d == 0 && aicf__cuo_reads(p, x) == 1) {
                patch_t[kd] = y, patch_a[kd] = add_y;
                args.l[n - 1].flags |= AICF__GEMVP_D_F32;
                trail = first + n;
            }
        }
        if (n + (lead >= 0) + (trail >= 0) < 2) {
            s = first + n;
            continue;
        }
        if (n == 1 && !p->policy.persistent) { /* no barrier needed: the GEMV kernel itself reads/writes float32 */
            aicf__cuo_fold_casts(p, lead, first, trail, patch_t[0], patch_a[0], trail >= 0 ? patch_t[2] : -1, trail >= 0 ? patch_a[2] : 0);
            s = (trail >= 0 ? trail : first) + 1;
            continue;
        }
        r = aicf__cuo_persist_run(p, lead, first, n, trail, &args, mt, f16, patch_t, patch_f, patch_a, n_patch);
        if (r != AICF_SUCCESS && r != AICF_ERROR_UNSUPPORTED) return r;
        if (r == AICF_SUCCESS) (*n_kernels)++;
        s = (trail >= 0 ? trail : first + n - 1) + 1;
    }
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_select_step(aicf_plan* p, int si) {
    aicf__cuo c;
    aicf__step* st;
    aicf_result r;
    int i, first = -1;
    if (!p || !p->ctx || !p->g || !p->loc || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    memset(&c, 0, sizeof c);
    c.p = p;
    c.ctx = p->ctx;
    c.g = p->g;
    c.si = si;
    c.st = st;
    c.es = 4;
    st->kernel[0] = 0;
    st->reason[0] = 0;
    st->kernel_index = -1;
    st->shared_bytes = 0;
    for (i = 0; i < 3; i++) st->grid[i] = st->block[i] = 0;
    if (st->kind == AICF__STEP_NODE) {
        if (st->node < 0 || st->node >= p->g->n_nodes) return AICF_ERROR_INVALID_ARGUMENT;
        c.nd = &p->g->nodes[st->node];
    }
    c.ops = (aicf__cuo_op*)aicf__malloc(p->ctx, sizeof(aicf__cuo_op) * AICF__CUO_MAX_OPS);
    if (!c.ops) return aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
    if (st->kind == AICF__STEP_CAST) {
        if (st->n_in < 1 || st->n_out < 1 || st->in[0] < 0 || st->out[0] < 0) r = AICF_ERROR_INVALID_ARGUMENT;
        else r = aicf__cuo_convert(&c, st->in[0], st->out[0]);
    } else if (st->n_epi > 0) {
        /* a fused step: an elementwise main node and its epilogue in one chain kernel, else the
           main node's own lowering followed by the epilogue in place */
        st->epi_native = 0;
        r = aicf__cuo_lower_chain(&c);
        if (r == AICF_ERROR_UNSUPPORTED) {
            c.n_ops = 0;
            c.first_name[0] = 0;
            c.reason[0] = 0;
            st->epi_native = 0;
            r = aicf__cuo_lower_node(&c);
            if (r == AICF_SUCCESS) r = aicf__cuo_lower_epilogue(&c);
        }
    } else {
        r = aicf__cuo_lower_node(&c);
    }
    if (r == AICF_SUCCESS) {
        size_t bytes = AICF__CUO_HDR + (size_t)c.n_ops * sizeof(aicf__cuo_op) + (size_t)c.n_algo * AICF__CUO_ALGO_BYTES;
        aicf__cuo_prog* pr = NULL;
        if (c.n_ops > 0) {
            pr = (aicf__cuo_prog*)aicf__calloc(p->ctx, 1, bytes);
            if (!pr) r = aicf__err(p->ctx, AICF_ERROR_OUT_OF_MEMORY, "aicf_plan_create: out of memory");
        }
        if (pr) {
            pr->n_ops = c.n_ops;
            pr->n_algo = c.n_algo;
            memcpy(aicf__cuo_prog_ops(pr), c.ops, (size_t)c.n_ops * sizeof(aicf__cuo_op));
            for (i = 0; i < c.n_algo; i++)
                if (c.algo[i]) memcpy(aicf__cuo_prog_algo(pr, i), c.algo[i], AICF__CUO_ALGO_SIZE);
            st->backend = pr;
        }
    }
    for (i = 0; i < c.n_algo; i++) aicf__free(p->ctx, c.algo[i]);
    if (r == AICF_SUCCESS) {
        for (i = 0; i < c.n_ops; i++)
            if (c.ops[i].kind == AICF__CUO_KERNEL) {
                first = i;
                break;
            }
        if (c.kernel[0] || first < 0) {
            snprintf(st->kernel, sizeof st->kernel, "%s", c.kernel[0] ? c.kernel : "none");
        } else {
            const aicf__cuo_op* op = &c.ops[first];
            st->kernel_index = op->kernel_index;
            memcpy(st->grid, op->grid, sizeof st->grid);
            memcpy(st->block, op->block, sizeof st->block);
            st->shared_bytes = op->shared_bytes;
            snprintf(st->kernel, sizeof st->kernel, "%s", c.first_name);
        }
        if (c.n_ops > 1) {
            size_t len = strlen(c.reason);
            snprintf(c.reason + len, sizeof c.reason - len, " [%d launches]", c.n_ops);
        }
        snprintf(st->reason, sizeof st->reason, "%s", c.reason);
    }
    aicf__free(p->ctx, c.ops);
    return r;
}

aicf_result aicf__cuda_emit_step(aicf__cuda_emitter* em, aicf_plan* p, int si) {
    aicf__step* st;
    aicf__cuo_prog* pr;
    aicf__cuo_op* ops;
    int i, k;
    if (!em || !p || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    pr = (aicf__cuo_prog*)st->backend;
    if (!pr) return AICF_SUCCESS; /* alias, empty */
    ops = aicf__cuo_prog_ops(pr);
    for (i = 0; i < pr->n_ops; i++) {
        const aicf__cuo_op* op = &ops[i];
        uint64_t args[AICF__CUO_ARGS_WORDS];
        uint64_t addr[AICF__CUO_MAX_PATCH];
        aicf_result r;
        for (k = 0; k < op->n_patch; k++) {
            uint64_t base = op->patch[k].tensor == AICF__CUO_SCRATCH ? aicf__cuda_scratch_ptr(em)
                            : op->patch[k].tensor == AICF__CUO_SYNC  ? aicf__cuda_sync_ptr(em)
                                                                     : aicf__cuda_tensor_ptr(em, op->patch[k].tensor);
            if (!base && op->patch[k].tensor == AICF__CUO_SCRATCH)
                return aicf__err(p->ctx, AICF_ERROR_STATE,
                                 "aicf_exec_create: step %d (%s): its %llu bytes of arena scratch at offset %llu are not in the arena",
                                 si, st->kernel, (unsigned long long)st->scratch_bytes, (unsigned long long)st->scratch_offset);
            if (!base && op->patch[k].tensor == AICF__CUO_SYNC)
                return aicf__err(p->ctx, AICF_ERROR_STATE, "aicf_exec_create: step %d (%s): the exec has no barrier word", si, st->kernel);
            if (!base) {
                const aicf__tensor* t = &p->g->tensors[op->patch[k].tensor];
                return aicf__err(p->ctx, AICF_ERROR_STATE, "aicf_exec_create: step %d (%s): tensor '%.200s' has no device storage",
                                 si, st->kernel, t->name ? t->name : "");
            }
            addr[k] = base + op->patch[k].add;
        }
        if (op->kind == AICF__CUO_COPY) {
            r = aicf__cuda_emit_copy(em, addr[0], addr[1], (size_t)op->copy_bytes);
        } else {
            memcpy(args, op->args, sizeof args);
            for (k = 0; k < op->n_patch; k++) memcpy((unsigned char*)args + op->patch[k].field, &addr[k], sizeof(uint64_t));
            if (op->kind == AICF__CUO_KERNEL)
                r = aicf__cuda_emit_kernel(em, op->kernel_index, op->grid, op->block, op->shared_bytes, args, op->args_size);
            else
                r = aicf__cuda_emit_matmul(em, (const aicf__matmul_desc*)(const void*)args, aicf__cuo_prog_algo(pr, op->algo));
        }
        if (r != AICF_SUCCESS) return r;
    }
    return AICF_SUCCESS;
}

/* ---- the op program as plain data, for plan files and explain (>>plan_io) ---- */
typedef char aicf__cuo_check_view[AICF__CUO_MAX_PATCH <= AICF__CUDA_VIEW_MAX_PATCH ? 1 : -1]; /* aicf__cuda_op_view's arrays */

int aicf__cuda_step_ops(const aicf_plan* p, int si, int* n_algo) {
    const aicf__cuo_prog* pr;
    if (n_algo) *n_algo = 0;
    if (!p || p->target != AICF_BACKEND_CUDA || si < 0 || si >= p->n_steps || !p->steps[si].backend) return 0;
    pr = (const aicf__cuo_prog*)p->steps[si].backend;
    if (n_algo) *n_algo = pr->n_algo;
    return pr->n_ops;
}

void aicf__cuda_step_op(const aicf_plan* p, int si, int k, aicf__cuda_op_view* v) {
    aicf__cuo_prog* pr;
    const aicf__cuo_op* op;
    int i;
    memset(v, 0, sizeof *v);
    v->kernel_index = v->algo = -1;
    v->kernel_name = "";
    if (k < 0 || k >= aicf__cuda_step_ops(p, si, NULL)) return;
    pr = (aicf__cuo_prog*)p->steps[si].backend;
    op = &aicf__cuo_prog_ops(pr)[k];
    v->kind = op->kind;
    v->kernel_index = op->kernel_index;
#if !defined(AICF_NO_CUDA)
    if (op->kind == AICF__CUO_KERNEL && op->kernel_index >= 0 && op->kernel_index < AICF__KT_NUM_KERNELS)
        v->kernel_name = aicf__kt_kernels[op->kernel_index].name;
#endif
    memcpy(v->grid, op->grid, sizeof v->grid);
    memcpy(v->block, op->block, sizeof v->block);
    v->shared_bytes = op->shared_bytes;
    v->args_size = op->kind == AICF__CUO_COPY ? 0 : op->args_size;
    v->args = (const unsigned char*)op->args;
    v->n_patch = op->n_patch;
    for (i = 0; i < op->n_patch && i < AICF__CUO_MAX_PATCH; i++) {
        v->patch_field[i] = op->patch[i].field;
        v->patch_tensor[i] = op->patch[i].tensor;
        v->patch_add[i] = op->patch[i].add;
    }
    v->copy_bytes = op->copy_bytes;
    v->algo = op->kind == AICF__CUO_MATMUL ? op->algo : -1;
}

void aicf__cuda_step_algo(const aicf_plan* p, int si, int k, aicf__algo_rec* a) {
    int n_algo = 0;
    memset(a, 0, sizeof *a);
    aicf__cuda_step_ops(p, si, &n_algo);
    if (k < 0 || k >= n_algo) return;
#if !defined(AICF_NO_CUDA)
    {
        const aicf__cuda_algo* rec = (const aicf__cuda_algo*)aicf__cuo_prog_algo((aicf__cuo_prog*)p->steps[si].backend, k);
        memcpy(a->blob, rec->algo.data, sizeof a->blob);
        a->workspace_bytes = (uint64_t)rec->workspace_bytes;
        a->cublaslt_version = (uint64_t)rec->cublaslt_version;
        a->align[0] = rec->align_a;
        a->align[1] = rec->align_b;
        a->align[2] = rec->align_c;
        a->align[3] = rec->align_d;
        a->n_results = rec->n_results;
    }
#endif
}
/* >>cuda_conv ================================================================================ */
/* Conv on tensor cores: im2col into arena scratch + one strided-batched cuBLASLt GEMM.

   For a 2-D Conv with group == 1 (1-D convs are 2-D with H = 1), per image n:
       col_n [K = C*KH*KW, P = OH*OW]   templates/im2col.cu.j2 (aicf_im2col_f32 / _f16),
                                        zero where the window reads padding;
       Y_n   [M = Cout, P] = W [M, K] x col_n [K, P]
   and Y_n is exactly image n of Y in NCHW. All N images are one strided-batched cuBLASLt
   matmul: A = W read as [M, K] (stride_a 0: shared by every image), B = col (stride K*P),
   D = Y (stride M*P). A pointwise conv (1x1, stride 1, no padding) needs no im2col: col_n is
   x_n as stored (stride C*H*W). The Conv's bias B[M] is added afterwards by one broadcast add
   (aicf__cuc_bias; the fused elementwise epilogue is to take it over).

   Element types: float16 storage runs on fp16 tensor cores with float32 accumulation (compute
   type CUBLAS_COMPUTE_32F, as every aicf GEMM); float32 storage stays float32 arithmetic
   (cuBLASLt's SIMT SGEMM), except under AICF_PRECISION_TF32, which puts these GEMMs on TF32
   tensor cores like Gemm and MatMul.

   The column buffer (N*K*P elements of the storage type) is not an allocation of its own: the
   planner asks aicf__cuda_step_scratch for each step's need before the memory plan, which
   places it in the arena as an interval living during that step only (aicf__step.scratch_bytes,
   scratch_offset), and the kernel and GEMM name it with the patch tensor AICF__CUO_SCRATCH,
   resolved at exec creation by aicf__cuda_scratch_ptr. Both calls decide through the same
   function (aicf__cuc_choose) from the same inputs, so the scratch exists exactly when the
   lowering uses it; only when cuBLASLt then finds no algorithm for the shape does the step fall
   back to the generated kernel and leave its scratch unused (the reason says so).

   Float16 storage has a third lowering, the generated implicit GEMM on tensor cores
   (templates/conv_tc.cu.j2, aicf_conv2d_tc_f16): the same GEMM with B gathered from x while each
   tile is loaded (no column buffer), and the Conv's bias, a residual Add of a tensor shaped like
   Y and a ReLU applied in its epilogue (aicf__step.epi_native counts the fused ops it took).
   When the output tiles would not fill the device (fewer tiles than SMs), K is split across
   blocks: each writes float32 partial sums to the step's scratch, and aicf_conv2d_tc_reduce_f16
   adds them in a fixed order and applies the epilogue (deterministic, no atomics).

   Choice (policy.conv_algo): DIRECT always keeps the generated kernels of aicf__cuo_lower_conv;
   IMPLICIT_GEMM_TC takes the tensor-core kernel wherever it applies (float16 storage, group 1,
   index limits); AUTO takes it for every float16 group-1 conv too (it needs no buffer, fuses the
   epilogue and, unlike cuBLASLt's per-image batch, tiles N*OH*OW across images);
   IM2COL_GEMM takes this path wherever it applies (group 1, cuBLASLt loaded, index limits);
   AUTO takes it for every pointwise conv (no copy to pay for) and, for the others, by the cost
   model of aicf__cuc_choose. Grouped and depthwise convs stay on the generated kernels. */

/* templates/im2col.cu.j2: aicf_im2col_args */
typedef struct aicf__k_im2col {
    uint64_t x, col;
    int64_t N, C, H, W, OH, OW, KH, KW;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t tp_log2;
} aicf__k_im2col;
typedef char aicf__k_check_im2col[sizeof(aicf__k_im2col) == 136 ? 1 : -1];

/* templates/conv_tc.cu.j2: aicf_conv2d_tc_args */
typedef struct aicf__k_conv2d_tc {
    uint64_t x, w, bias, res, y, ws;
    int64_t N, C, H, W, M, OH, OW, KH, KW;
    int64_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t relu, splits, k_per_split, vec_w, vec_y;
} aicf__k_conv2d_tc;
typedef char aicf__k_check_conv2d_tc[sizeof(aicf__k_conv2d_tc) == 208 ? 1 : -1];

/* the tensor-core kernel's tile (templates/conv_tc.cu.j2: BM = 64 or 128 output channels by 64
   columns by 32 of K) and split-K bounds */
#define AICF__CUC_TC_BN 64
#define AICF__CUC_TC_BK 32
#define AICF__CUC_TC_MAX_SPLITS 32
#ifndef AICF__CUC_TC_MIN_KTILES
#  define AICF__CUC_TC_MIN_KTILES 4 /* K tiles per split at least */
#endif
#ifndef AICF__CUC_TC_WAVES
#  define AICF__CUC_TC_WAVES 2 /* split K while the tiles are fewer than this many blocks per SM */
#endif

/* AUTO's cost model (aicf__cuc_choose). */
#define AICF__CUC_AUTO_MIN_K 64                   /* GEMM depth C*KH*KW */
#define AICF__CUC_AUTO_MIN_M 32                   /* output channels */
#define AICF__CUC_AUTO_MAX_SCRATCH ((size_t)1 << 30) /* bytes of column buffer */

typedef struct aicf__cuc_choice {
    int tc;            /* 1: the tensor-core implicit GEMM (aicf_conv2d_tc_f16) */
    int64_t splits;    /* tc: K splits (1 = none); k_per_split: K per split, a multiple of 32 */
    int64_t k_per_split;
    int64_t bm;        /* tc: output channels per block (64 or 128) */
    int gemm;          /* 1: lower to cuBLASLt (the caller still needs an algorithm) */
    int im2col;        /* 1: through the column buffer; 0: B is x itself (pointwise) */
    int64_t M, N, K;   /* the GEMM per image: M = Cout, N = P = OH*OW, K = C*KH*KW */
    int64_t batch;     /* images */
    size_t scratch;    /* bytes of the column buffer (0 without im2col) */
    char why[160];     /* the rule that decided */
    int sm_count;      /* tc: the SMs the split-K rule assumed */
    char est[64];      /* AUTO: what the generated kernel would do instead */
} aicf__cuc_choice;

/* "7.2 MiB" */
static const char* aicf__cuc_bytes(double b, char* buf, size_t cap) {
    if (b >= 1073741824.0) snprintf(buf, cap, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1048576.0) snprintf(buf, cap, "%.1f MiB", b / 1048576.0);
    else if (b >= 1024.0) snprintf(buf, cap, "%.1f KiB", b / 1024.0);
    else snprintf(buf, cap, "%.0f B", b);
    return buf;
}

/* Whether cuBLASLt is loaded on the plan's context. */
static int aicf__cuc_have_lt(const aicf__cuo* c) {
#if !defined(AICF_NO_CUDA)
    return c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->lt_handle != NULL;
#else
    AICF__UNUSED(c);
    return 0;
#endif
}

/* Whether the tensor-core implicit GEMM takes this (group 1) conv: NULL and *ch filled (tc, M/N/K,
   bm, splits, scratch, why) if so, else why not. Tile: BM = 128 output channels per block when
   M >= 128 (each gathered element of x then feeds twice the MMAs), else 64. Split-K: with
   T = ceil(M/BM) * ceil(N*OH*OW/64) output tiles fewer than 2 blocks per SM (AICF__CUC_TC_WAVES;
   measured on resnet18 at batch 1, 8 and 32: 2 and 4 beat 1 by 8-20%, 2 and 4 alike), K is
   cut into ceil(2 * SMs / T) splits (at most 32, each at least 4 K-tiles of 32); the float32
   partial sums take
   splits * M * N*OH*OW * 4 bytes of scratch (at most 1 GiB, else no split). The SM count is the
   context's device's (aicf_device_info.sm_count); a plan is made for one device. */
static const char* aicf__cuc_tc_fit(const aicf__cuo* c, const aicf__cuo_win* w, int64_t M, aicf__cuc_choice* ch) {
    const int64_t lim = (int64_t)1 << 31, sp = (int64_t)1 << 28;
    int64_t K = w->C * w->KH * w->KW, P = w->OH * w->OW, NP = w->N * P, tiles, ktiles, splits = 1, kt = 0, sm = 132;
    size_t ws = 0;
    int64_t bm = M >= 128 ? 128 : 64;
    if (c->es != 2) return "not for fp32 storage";
    if (aicf__cuda_kernel_find(bm == 128 ? "aicf_conv2d_tc_f16_m128_vw" : "aicf_conv2d_tc_f16_m64_vw") < 0 ||
        aicf__cuda_kernel_find(bm == 128 ? "aicf_conv2d_tc_f16_m128" : "aicf_conv2d_tc_f16_m64") < 0 ||
        aicf__cuda_kernel_find("aicf_conv2d_tc_reduce_f16") < 0)
        return "aicf_conv2d_tc_f16_* not in the kernel table";
    if (M <= 0 || K <= 0 || NP <= 0) return "empty GEMM";
    if (w->C * w->H * w->W >= lim || K >= lim || M >= lim || P >= lim || (NP + 63) / 64 >= lim || (M + 63) / 64 > 65535 ||
        w->H >= sp || w->W >= sp || w->OH >= sp || w->OW >= sp || (w->KH - 1) * w->dh >= sp || (w->KW - 1) * w->dw >= sp ||
        w->OH * w->sh >= sp || w->OW * w->sw >= sp || w->ph >= sp || w->pw >= sp ||
        w->C * w->H * w->W + (w->KH - 1) * w->dh * w->W + (w->KW - 1) * w->dw >= lim)
        return "sizes beyond the kernel's 32-bit offsets";
#if !defined(AICF_NO_CUDA)
    if (c->ctx->cuda && c->ctx->cuda->ready && c->ctx->cuda->sm_count > 0) sm = c->ctx->cuda->sm_count;
#endif
    tiles = ((M + bm - 1) / bm) * ((NP + AICF__CUC_TC_BN - 1) / AICF__CUC_TC_BN);
    ktiles = (K + AICF__CUC_TC_BK - 1) / AICF__CUC_TC_BK;
    if (tiles < AICF__CUC_TC_WAVES * sm && ktiles >= 2 * AICF__CUC_TC_MIN_KTILES) {
        splits = (AICF__CUC_TC_WAVES * sm + tiles - 1) / tiles;
        if (splits > ktiles / AICF__CUC_TC_MIN_KTILES) splits = ktiles / AICF__CUC_TC_MIN_KTILES;
        if (splits > AICF__CUC_TC_MAX_SPLITS) splits = AICF__CUC_TC_MAX_SPLITS;
    }
    if (splits > 1) {
        kt = (ktiles + splits - 1) / splits;
        splits = (ktiles + kt - 1) / kt; /* no empty split */
        if (!aicf__mul_size((size_t)splits, (size_t)M, &ws) || !aicf__mul_size(ws, (size_t)NP, &ws) ||
            !aicf__mul_size(ws, 4, &ws) || ws > AICF__CUC_AUTO_MAX_SCRATCH)
            splits = 1;
    }
    if (splits <= 1) {
        splits = 1;
        kt = ktiles;
        ws = 0;
    }
    ch->tc = 1;
    ch->bm = bm;
    ch->M = M;
    ch->N = NP;
    ch->K = K;
    ch->batch = w->N;
    ch->splits = splits;
    ch->k_per_split = kt * AICF__CUC_TC_BK;
    ch->scratch = ws;
    ch->sm_count = (int)sm;
    snprintf(ch->why, sizeof ch->why, "%s", c->p->policy.conv_algo == AICF_CONV_IMPLICIT_GEMM_TC ? "conv_algo IMPLICIT_GEMM_TC"
                                                                                                   : "AUTO: float16, group 1");
    return NULL;
}

/* Decides between the GEMM lowering and the generated kernels for the window w (from
   aicf__cuo_window), M output channels and `group`. Depends only on the policy, the shapes, the
   storage type (c->es, set by aicf__cuo_floats) and whether cuBLASLt is loaded: the memory plan's
   pre-pass and the lowering get the same answer.

   AUTO's cost model, for a conv that needs im2col. The generated implicit-GEMM kernel computes
   64 x 64 output tiles with float32 FMAs on CUDA cores (an H100 has 67 TFLOP/s of those, against
   495 TF32 and 990 fp16 on tensor cores, and a 64x64x16 SIMT tile reaches a fraction of it).
   im2col + GEMM adds a round trip of the column buffer through memory: K*P*N elements written
   and read once, against 2*M*K*P*N flops of GEMM, so its cost per flop falls as 1/M (for
   M = 32 at fp16, 2 bytes per 32 flops: at 3 TB/s that traffic takes about as long as the
   same flops at the ~50 TFLOP/s the generated kernel cannot reach). K bounds the other side:
   the tensor-core kernels step K in slices of 32 to 64; a GEMM with K < 64 is dominated by its
   prologue and by storing Y, which the direct kernel does equally well in one pass with no
   buffer. Hence: GEMM when K >= 64 and M >= 32 (resnet-style 3x3 layers and 7x7 stems pass;
   MNIST-size convs, K = 25 or M = 16, stay direct), and while the buffer is at most 1 GiB. */
static void aicf__cuc_choose(const aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, aicf__cuc_choice* ch) {
    aicf_conv_algo algo = c->p->policy.conv_algo;
    int pointwise = w->KH == 1 && w->KW == 1 && w->sh == 1 && w->sw == 1 && w->ph == 0 && w->pw == 0 && w->phe == 0 &&
                    w->pwe == 0 && w->OH == w->H && w->OW == w->W;
    const char* forced = algo == AICF_CONV_IM2COL_GEMM ? "conv_algo IM2COL_GEMM does not apply: " : "";
    size_t el = 0, bytes = 0;
    char b1[32];
    memset(ch, 0, sizeof *ch);
    ch->M = M;
    ch->N = w->OH * w->OW;
    ch->K = w->C * w->KH * w->KW;
    ch->batch = w->N;
    if (algo == AICF_CONV_DIRECT) {
        snprintf(ch->why, sizeof ch->why, "conv_algo DIRECT");
        return;
    }
    if (group != 1) {
        snprintf(ch->why, sizeof ch->why, "%sgrouped (group %lld): no GEMM lowering",
                 algo == AICF_CONV_IMPLICIT_GEMM_TC ? "conv_algo IMPLICIT_GEMM_TC does not apply: " : forced, (long long)group);
        return;
    }
    if (algo == AICF_CONV_AUTO || algo == AICF_CONV_IMPLICIT_GEMM_TC) {
        const char* no = aicf__cuc_tc_fit(c, w, M, ch);
        if (!no) return;
        if (algo == AICF_CONV_IMPLICIT_GEMM_TC) {
            snprintf(ch->why, sizeof ch->why, "IMPLICIT_GEMM_TC: %s", no);
            return;
        }
    }
    if (!aicf__cuc_have_lt(c)) {
        snprintf(ch->why, sizeof ch->why, "%scuBLASLt not loaded", forced);
        return;
    }
    if (ch->M <= 0 || ch->N <= 0 || ch->K <= 0 || ch->batch <= 0) {
        snprintf(ch->why, sizeof ch->why, "%sempty GEMM (M=%lld N=%lld K=%lld)", forced, (long long)ch->M, (long long)ch->N,
                 (long long)ch->K);
        return;
    }
    /* the im2col kernel's 32-bit row and column indices; cuBLASLt's int32 batch count */
    if (ch->batch > 0x7fffffff || ch->N > 0x7fffffff || ch->K > 0x7fffffff / ch->batch) {
        snprintf(ch->why, sizeof ch->why, "%sN*K = %lld x %lld or P = %lld beyond 2^31", forced, (long long)ch->batch,
                 (long long)ch->K, (long long)ch->N);
        return;
    }
    if (!pointwise) {
        if (!aicf__mul_size((size_t)ch->K, (size_t)ch->N, &el) || !aicf__mul_size(el, (size_t)ch->batch, &el) ||
            !aicf__mul_size(el, c->es, &bytes) || (uint64_t)bytes > AICF_MAX_TENSOR_BYTES) {
            snprintf(ch->why, sizeof ch->why, "%sthe im2col buffer exceeds AICF_MAX_TENSOR_BYTES", forced);
            return;
        }
    }
    ch->im2col = !pointwise;
    ch->scratch = bytes;
    if (algo == AICF_CONV_IM2COL_GEMM) {
        ch->gemm = 1;
        snprintf(ch->why, sizeof ch->why, "conv_algo IM2COL_GEMM");
        return;
    }
    if (pointwise) {
        ch->gemm = 1;
        snprintf(ch->why, sizeof ch->why, "AUTO: pointwise, x is the GEMM's B as stored");
        return;
    }
    if (ch->K < AICF__CUC_AUTO_MIN_K || ch->M < AICF__CUC_AUTO_MIN_M) {
        snprintf(ch->why, sizeof ch->why, "AUTO: K=%lld M=%lld, im2col pays from K>=%d and M>=%d", (long long)ch->K,
                 (long long)ch->M, AICF__CUC_AUTO_MIN_K, AICF__CUC_AUTO_MIN_M);
        ch->im2col = 0;
        ch->scratch = 0;
        return;
    }
    if (bytes > AICF__CUC_AUTO_MAX_SCRATCH) {
        snprintf(ch->why, sizeof ch->why, "AUTO: im2col buffer %s > 1 GiB", aicf__cuc_bytes((double)bytes, b1, sizeof b1));
        ch->im2col = 0;
        ch->scratch = 0;
        return;
    }
    ch->gemm = 1;
    snprintf(ch->why, sizeof ch->why, "AUTO K>=%d M>=%d", AICF__CUC_AUTO_MIN_K, AICF__CUC_AUTO_MIN_M);
    snprintf(ch->est, sizeof ch->est, "direct: %lld blocks x %.1fM FMA on CUDA cores",
             (long long)(((ch->M + 63) / 64) * ((ch->N * ch->batch + 63) / 64)), 64.0 * 64.0 * (double)ch->K / 1e6);
}

/* The Conv's bias B[M] added in place to Y [N, M, P] after the GEMM: one broadcast add. Kept
   apart so that the fused elementwise epilogue can replace it. */
static aicf_result aicf__cuc_bias(aicf__cuo* c, int Y, int Bi, int64_t N, int64_t M, int64_t P) {
    aicf__shape ys3, bs3;
    memset(&ys3, 0, sizeof ys3);
    memset(&bs3, 0, sizeof bs3);
    ys3.rank = bs3.rank = 3;
    ys3.d[0] = N;
    ys3.d[1] = M;
    ys3.d[2] = P;
    bs3.d[0] = 1;
    bs3.d[1] = M;
    bs3.d[2] = 1;
    return aicf__cuo_binary(c, "add", Y, &ys3, Bi, &bs3, Y, &ys3);
}

/* The im2col launch: x (tensor X) into the step's scratch, layout of templates/im2col.cu.j2. */
static aicf_result aicf__cuc_im2col(aicf__cuo* c, const aicf__cuo_win* w, int X) {
    aicf__k_im2col a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    int64_t P = w->OH * w->OW, NK = w->N * w->C * w->KH * w->KW, rows, tp = 1;
    int tp_log2 = 0;
    char name[64];
    aicf_result r;
    while (tp < P && tp < (int64_t)AICF__CUO_BLOCK) {
        tp <<= 1;
        tp_log2++;
    }
    rows = (int64_t)AICF__CUO_BLOCK / tp;
    memset(&a, 0, sizeof a);
    a.N = w->N;
    a.C = w->C;
    a.H = w->H;
    a.W = w->W;
    a.OH = w->OH;
    a.OW = w->OW;
    a.KH = w->KH;
    a.KW = w->KW;
    a.pad_h = w->ph;
    a.pad_w = w->pw;
    a.stride_h = w->sh;
    a.stride_w = w->sw;
    a.dil_h = w->dh;
    a.dil_w = w->dw;
    a.tp_log2 = tp_log2;
    grid[0] = (unsigned)((P + tp - 1) / tp);
    grid[1] = (unsigned)AICF__MIN((NK + rows - 1) / rows, (int64_t)65535);
    grid[2] = 1;
    block[0] = AICF__CUO_BLOCK;
    block[1] = block[2] = 1;
    snprintf(name, sizeof name, "aicf_im2col_%s", aicf__cuo_dtn(c));
    if ((r = aicf__cuo_kernel(c, name, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_im2col, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_im2col, col), AICF__CUO_SCRATCH, 0);
    return AICF_SUCCESS;
}

/* The tensor-core implicit GEMM (ch from aicf__cuc_tc_fit): absorbs the leading epilogue ops it
   can (one Add of a float16 tensor shaped like Y, then a Relu; aicf__step.epi_native), then one
   launch, plus the split-K reduction when ch->splits > 1. */
static aicf_result aicf__cuc_lower_tc(aicf__cuo* c, const aicf__cuo_win* w, const aicf__cuc_choice* ch) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), res = -1, relu = 0,
        k = 0;
    const aicf__shape* ys = aicf__cuo_shape(c, Y);
    aicf__k_conv2d_tc a;
    aicf__cuo_op* op = NULL;
    unsigned grid[3], block[3];
    char b1[32], split[96], kname[48];
    aicf_result r;
    while (k < c->st->n_epi && !relu) {
        const aicf__epi* e = &c->st->epi[k];
        if (e->op == AICF__OP_Add && e->operand >= 0 && res < 0 && aicf__same_shape(aicf__cuo_shape(c, e->operand), ys) &&
            c->p->loc[e->operand].sdtype == AICF_DTYPE_FLOAT16) {
            res = e->operand;
            k++;
            continue;
        }
        if (e->op == AICF__OP_Relu) {
            relu = 1;
            k++;
            continue;
        }
        break;
    }
    if (ch->splits > 1 && c->st->scratch_bytes < ch->scratch)
        return aicf__cuo_fail(c, AICF_ERROR_STATE,
                              "the memory plan reserved %llu bytes of scratch; split-K needs %llu (the planner did not ask "
                              "aicf__cuda_step_scratch)",
                              (unsigned long long)c->st->scratch_bytes, (unsigned long long)ch->scratch);
    memset(&a, 0, sizeof a);
    a.N = w->N;
    a.C = w->C;
    a.H = w->H;
    a.W = w->W;
    a.M = ch->M;
    a.OH = w->OH;
    a.OW = w->OW;
    a.KH = w->KH;
    a.KW = w->KW;
    a.pad_h = w->ph;
    a.pad_w = w->pw;
    a.stride_h = w->sh;
    a.stride_w = w->sw;
    a.dil_h = w->dh;
    a.dil_w = w->dw;
    a.relu = relu;
    a.splits = ch->splits;
    a.k_per_split = ch->k_per_split;
    a.vec_w = ch->K % 8 == 0 && aicf__cuo_align(c, Wt, 0) >= 16;
    a.vec_y = (w->OH * w->OW) % 2 == 0 && aicf__cuo_align(c, Y, 0) >= 4 && (res < 0 || aicf__cuo_align(c, res, 0) >= 4);
    grid[0] = (unsigned)((ch->N + AICF__CUC_TC_BN - 1) / AICF__CUC_TC_BN);
    grid[1] = (unsigned)((ch->M + ch->bm - 1) / ch->bm);
    grid[2] = (unsigned)ch->splits;
    block[0] = (unsigned)(2 * ch->bm);
    block[1] = block[2] = 1;
    snprintf(kname, sizeof kname, "aicf_conv2d_tc_f16_m%d%s", (int)ch->bm, a.vec_w ? "_vw" : "");
    if ((r = aicf__cuo_kernel(c, kname, &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, x), X, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, w), Wt, 0);
    if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, bias), Bi, 0);
    if (res >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, res), res, 0);
    aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, y), Y, 0);
    split[0] = 0;
    if (ch->splits > 1) {
        aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, ws), AICF__CUO_SCRATCH, 0);
        aicf__cuo_dims1(ch->M * ch->N, grid, block);
        if ((r = aicf__cuo_kernel(c, "aicf_conv2d_tc_reduce_f16", &a, sizeof a, grid, block, 0, &op)) != AICF_SUCCESS) return r;
        if (Bi >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, bias), Bi, 0);
        if (res >= 0) aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, res), res, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, y), Y, 0);
        aicf__cuo_patch(op, offsetof(aicf__k_conv2d_tc, ws), AICF__CUO_SCRATCH, 0);
        snprintf(split, sizeof split, "; split-K %lldx%lld (%d SMs, %s)", (long long)ch->splits, (long long)ch->k_per_split,
                 ch->sm_count, aicf__cuc_bytes((double)ch->scratch, b1, sizeof b1));
    }
    c->st->epi_native = k;
    aicf__cuo_reason(c, "tensor-core implicit GEMM %dx64x32 M=%lld N=%lld K=%lld (%s)%s; epilogue %s%s%s%s",
                     (int)ch->bm, (long long)ch->M, (long long)ch->N, (long long)ch->K, ch->why, split, Bi >= 0 ? "bias" : "-",
                     res >= 0 ? "+res" : "", relu ? "+relu" : "", a.vec_y ? "" : "; 2-byte stores");
    return AICF_SUCCESS;
}

static aicf_result aicf__cuc_lower_gemm(aicf__cuo* c, const aicf__cuo_win* w, int64_t M, int64_t group, char* why,
                                        size_t cap, int* done) {
    int X = aicf__cuo_in(c, 0), Wt = aicf__cuo_in(c, 1), Bi = aicf__cuo_in(c, 2), Y = aicf__cuo_out(c, 0), slot = -1;
    aicf__cuc_choice ch;
    aicf__matmul_desc md;
    char lt_why[192], b1[32], alg[40];
    const char* arith;
    int h0 = 0, hn = 0;
    aicf_result r;
    *done = 0;
    aicf__cuc_choose(c, w, M, group, &ch);
    if (ch.tc) {
        if ((r = aicf__cuc_lower_tc(c, w, &ch)) != AICF_SUCCESS) return r;
        *done = 1;
        return AICF_SUCCESS;
    }
    if (!ch.gemm) {
        snprintf(why, cap, "%s", ch.why);
        return AICF_SUCCESS;
    }
    if (ch.im2col && c->st->scratch_bytes < ch.scratch)
        return aicf__cuo_fail(c, AICF_ERROR_STATE,
                              "the memory plan reserved %llu bytes of scratch; the im2col buffer needs %llu (the planner "
                              "did not ask aicf__cuda_step_scratch)",
                              (unsigned long long)c->st->scratch_bytes, (unsigned long long)ch.scratch);
    aicf__cuo_mm_desc(c, &md);
    md.tf32 = !c->f16 && c->p->policy.precision == AICF_PRECISION_TF32;
    md.M = ch.M;
    md.N = ch.N;
    md.K = ch.K;
    md.lda = ch.K;
    md.ldb = ch.N;
    md.ldc = ch.N;
    md.batch = ch.batch;
    md.stride_a = 0;
    md.stride_b = ch.K * ch.N;
    md.stride_c = ch.M * ch.N;
    aicf__cuo_mm_align(c, &md, Wt, ch.im2col ? -1 : X, -1, Y);
    if (ch.im2col) md.b = 256; /* the scratch offset is a multiple of the arena's 256-byte alignment */
    if ((r = aicf__cuo_mm_plan(c, &md, &slot, lt_why, sizeof lt_why)) != AICF_SUCCESS) return r;
    if (slot < 0) {
        snprintf(why, cap, "%.40s; %scuBLASLt: %.90s", ch.why, ch.im2col ? "scratch unused, " : "", lt_why);
        return AICF_SUCCESS;
    }
    if (ch.im2col && (r = aicf__cuc_im2col(c, w, X)) != AICF_SUCCESS) return r;
    if ((r = aicf__cuo_mm_push(c, &md, slot, Wt, 0, ch.im2col ? AICF__CUO_SCRATCH : X, 0, -1, 0, Y, 0, -1)) != AICF_SUCCESS)
        return r;
    if (Bi >= 0 && (r = aicf__cuc_bias(c, Y, Bi, ch.batch, ch.M, ch.N)) != AICF_SUCCESS) return r;
    /* the reason fits aicf__step.reason (192) with select_step's " [N launches]"; the most
       telling part first (a fused epilogue keeps only the first 110 characters) */
    arith = c->f16 ? "fp16 tensor cores" : (md.tf32 ? "TF32 tensor cores" : "fp32 SIMT");
    if (sscanf(lt_why, "cuBLASLt heuristic #%d of %d", &h0, &hn) == 2) snprintf(alg, sizeof alg, "alg #%d/%d", h0, hn);
    else snprintf(alg, sizeof alg, "%.30s", lt_why);
    if (ch.im2col) {
        snprintf(c->kernel, sizeof c->kernel, "im2col+cublasLt:matmul");
        aicf__cuo_reason(c, "im2col+cuBLASLt M=%lld N=%lld K=%lld batch=%lld (%s); %.40s%s; col %s @arena+%llu; %s%s%s",
                         (long long)ch.M, (long long)ch.N, (long long)ch.K, (long long)ch.batch, arith, ch.why,
                         Bi >= 0 ? "; +bias kernel" : "", aicf__cuc_bytes((double)ch.scratch, b1, sizeof b1),
                         (unsigned long long)c->st->scratch_offset, alg, ch.est[0] ? "; " : "", ch.est);
    } else {
        aicf__cuo_reason(c, "1x1 conv as GEMM, no im2col: M=%lld N=%lld K=%lld batch=%lld (%s); %.50s%s; %s",
                         (long long)ch.M, (long long)ch.N, (long long)ch.K, (long long)ch.batch, arith, ch.why,
                         Bi >= 0 ? "; +bias kernel" : "", alg);
    }
    *done = 1;
    return AICF_SUCCESS;
}

aicf_result aicf__cuda_step_scratch(aicf_plan* p, int si, size_t* bytes) {
    aicf__cuo c;
    aicf__cuo_win w;
    aicf__cuc_choice ch;
    const aicf__shape* ws;
    char saved[AICF__ERR_CAP];
    int X, Wt, Y;
    int64_t group;
    aicf__step* st;
    if (!bytes) return AICF_ERROR_INVALID_ARGUMENT;
    *bytes = 0;
    if (!p || !p->ctx || !p->g || !p->loc || si < 0 || si >= p->n_steps) return AICF_ERROR_INVALID_ARGUMENT;
    st = &p->steps[si];
    if (st->kind != AICF__STEP_NODE || st->node < 0 || st->node >= p->g->n_nodes) return AICF_SUCCESS;
    if (p->g->nodes[st->node].op != AICF__OP_Conv) return AICF_SUCCESS;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.ctx = p->ctx;
    c.g = p->g;
    c.si = si;
    c.st = st;
    c.nd = &p->g->nodes[st->node];
    c.es = 4;
    X = aicf__cuo_in(&c, 0);
    Wt = aicf__cuo_in(&c, 1);
    Y = aicf__cuo_out(&c, 0);
    if (X < 0 || Wt < 0 || Y < 0 || aicf__cuo_numel(&c, Y) <= 0) return AICF_SUCCESS;
    ws = aicf__cuo_shape(&c, Wt);
    if (ws->rank < 3) return AICF_SUCCESS;
    group = aicf__attr_i(c.nd, "group", 1);
    /* the same checks as aicf__cuo_lower_conv; a step that fails them gets no scratch and its
       lowering reports the error, so a message written here is not kept */
    memcpy(saved, AICF__ERRBUF(p->ctx), sizeof saved);
    if (aicf__cuo_floats(&c, 3) != AICF_SUCCESS || aicf__cuo_shape(&c, X)->rank == 5 ||
        aicf__cuo_window(&c, aicf__cuo_shape(&c, X), aicf__cuo_shape(&c, Y), ws->d + 2, &w) != AICF_SUCCESS ||
        group < 1 || w.C % group || ws->d[0] % group) {
        memcpy(AICF__ERRBUF(p->ctx), saved, sizeof saved);
        return AICF_SUCCESS;
    }
    aicf__cuc_choose(&c, &w, ws->d[0], group, &ch);
    if ((ch.gemm && ch.im2col) || (ch.tc && ch.splits > 1)) *bytes = ch.scratch;
    return AICF_SUCCESS;
}
#endif /* AICF_IMPLEMENTATION */
