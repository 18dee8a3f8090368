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
#define AICF_CONTEXT_NO_THREADS 0x2u /* never start a helper thread. Without it, aicf_plan_create on
                                        CUDA, for a graph with at least 16 MiB of constants to copy
                                        and fold, may run cuBLASLt's one-time setup (~0.1 s of host
                                        time on the first query of a storage type) on a helper
                                        thread while it folds the graph; the helper is always
                                        joined before the call returns. Compiling with
                                        AICF_NO_THREADS removes the helper (and the need for
                                        -pthread) */

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
    AICF_CONV_IM2COL_GEMM = 2,   /* im2col into the arena + cuBLASLt GEMM (tensor cores); at float16
                                    with several images and N*P % 8 == 0 one GEMM over all the
                                    images' columns (float32 product, then bias, residual Add and
                                    ReLU in the kernel that writes NCHW), which AUTO also takes
                                    for convs with K >= 512 and few output tiles */
    AICF_CONV_IMPLICIT_GEMM_TC = 3 /* float16 storage: the generated implicit GEMM on tensor cores
                                    with bias, residual Add and ReLU in its epilogue */
} aicf_conv_algo;

/* Kernel preference for Gemm and MatMul (CUDA backend). AUTO: a Gemm with transB = 1 and
   M <= 8 (the batch-1 Linear layer, bound by reading the weights) on the generated GEMV kernel
   with its epilogue inside, everything else on cuBLASLt; where cuBLASLt is not loaded, or its
   epilogue would leave part of the step's chain (a Tanh, a Sigmoid, an erf-form Gelu) to a
   launch of its own, on a
   compute capability 9.0 device (H100, H200) the Hopper GEMM (wgmma + TMA, float16, epilogue
   inside) for 128 <= M <= 256 at most two waves of 64 x 32 tiles; where cuBLASLt is not
   loaded, the Hopper GEMM's warp-specialised persistent form for M >= 1024 (B [K, N]; the
   epilogue at most two Adds and a Relu or erf-form Gelu), which AUTO also takes with cuBLASLt
   loaded where the step's epilogue holds an erf-form
   Gelu (cuBLASLt's GELU epilogue is the tanh form) or the GEMM is at most 4 GFLOP (2 M N K: a
   cuBLASLt launch takes no programmatic edge, which at that size costs more than its faster
   kernel saves), and its 128 x 128 tiles fill a wave; else, or where cuBLASLt has
   no algorithm, the generated tensor-core GEMM (float16, with the step's whole epilogue inside:
   the small-M kernel where its tiles fit one wave, else the pipelined one), else the generated
   tiled GEMM. */
typedef enum aicf_matmul_algo {
    AICF_MATMUL_AUTO = 0,
    AICF_MATMUL_CUBLASLT = 1, /* cuBLASLt for every GEMM (heuristic algorithm, recorded in the plan) */
    AICF_MATMUL_GENERATED = 2 /* generated kernels only: the GEMV where it applies, else on compute
                                 capability 9.0 the Hopper GEMMs where AUTO without cuBLASLt takes
                                 them, else the tensor-core GEMM (float16, K and N multiples of 8,
                                 aligned), else the tiled GEMM (the portable kernels, sm_80 on) */
} aicf_matmul_algo;

/* A step's kernel family, as a pin in the policy or a decision of autotuning names it (CUDA
   backend). RULE: the policy's conv_algo / matmul_algo rule and cost model decide. The Conv
   choices are those of aicf_conv_algo, the Gemm / MatMul ones those of aicf_matmul_algo, but
   for one step only, and a choice that cannot take the step is an error instead of falling back. */
typedef enum aicf_kernel_choice {
    AICF_CHOICE_RULE = 0,
    AICF_CHOICE_DIRECT = 1,           /* Conv: the generated implicit-GEMM kernels (CUDA cores) */
    AICF_CHOICE_IM2COL_GEMM = 2,      /* Conv: (im2col +) cuBLASLt GEMM */
    AICF_CHOICE_IMPLICIT_GEMM_TC = 3, /* Conv: the generated tensor-core implicit GEMM (float16) */
    AICF_CHOICE_CUBLASLT = 4,         /* Gemm, MatMul: cuBLASLt */
    AICF_CHOICE_GENERATED = 5         /* Gemm, MatMul: the generated GEMV (M <= 8), tensor-core or tiled GEMM */
} aicf_kernel_choice;

#define AICF_MAX_PINS 16      /* pins in one policy */
#define AICF_PIN_NODE_CAP 128 /* bytes of a pinned node's name, NUL included */

/* Pins one node's step to a kernel family: that step is lowered with `kernel` whatever the
   policy's rules say, and only that step changes. `node` is the ONNX node name of a Conv, Gemm
   or MatMul (the step's main node); "" marks an unused slot. `variant` refines the choice
   (0 = as the rules would, for every choice): for IM2COL_GEMM and CUBLASLT, which of
   cuBLASLt's heuristic results to take (0..7, 0 = the first); for IMPLICIT_GEMM_TC, the K split:
   2^(variant-1) parts (1..6: 1 to 32 splits, each with its float32 partial sums in the step's
   scratch and one reduction launch); 0 for DIRECT and GENERATED. */
typedef struct aicf_pin {
    char node[AICF_PIN_NODE_CAP];
    aicf_kernel_choice kernel;
    int variant;
} aicf_pin;

typedef struct aicf_policy {
    aicf_precision precision;
    int allow_cpu_fallback; /* backend DEFAULT may fall back to the CPU reference */
    size_t workspace_limit; /* bytes of cuBLASLt workspace, 0 = 32 MiB */
    int no_fusion;          /* 1: every node is its own step (the fusion passes are off) */
    aicf_conv_algo conv_algo;
    aicf_matmul_algo matmul_algo;
    int persistent;         /* CUDA, 1: a chain of consecutive small-M GEMM steps (batch-1 Linear
                               layers, each reading the previous one's output) joins one
                               persistent launch: every layer's weights staged in shared memory
                               at launch, the layers handed off through tagged words (no grid
                               barrier). 0 (the default): a GEMM joins only the boundary Casts
                               beside it. On an H100 the reference MLP took 13.3-13.5 us joined
                               vs 13.8-14.0 us separate at batch 1, twice as long at batch 8
                               (docs/benchmarks.md) */
    int autotune;           /* CUDA, 1: every Conv, Gemm and MatMul step that is not pinned is
                               timed on the device at plan creation under each kernel choice
                               that applies (the generated kernels, the tensor-core conv with
                               each K split, cuBLASLt with its first
                               AICF_AUTOTUNE_CUBLASLT_ALGOS heuristic results, and the rules'
                               own lowering where it differs from all of those) and takes the
                               fastest; the plan records every candidate's measured time
                               (aicf_plan_explain, plan files). A saved plan loads with those
                               decisions without timing again. Ignored on the CPU backend */
    int no_pdl;             /* CUDA, 1: no launch of the plan is programmatic. 0 (the default): on
                               compute capability 9.0+, every kernel launch right after another
                               kernel launch goes by a programmatic edge (the plan's `pdl=1`,
                               aicf_step_info.pdl_launches): it is launched as the previous
                               kernel's blocks exit (right after their start for a GEMV, whose
                               dependent may prefetch constant weights) and waits for it before
                               touching memory. Same results; measured (docs/benchmarks.md) the
                               reference MLP at batch 1 10.9-11.0 us against 14.1-14.3 (H100),
                               ResNet-18 at batch 1 180 against 190 (H200). cuBLASLt's launches
                               take full edges */
    int gelu_tanh;          /* CUDA, 1: a Gelu with approximate = "none" (the erf form, which
                               exporters write for torch.nn.GELU()) may be computed in its tanh
                               form, x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), where that
                               puts it inside cuBLASLt's GEMM (CUBLASLT_EPILOGUE_GELU_BIAS)
                               instead of a separate pass over the GEMM's output. The two forms
                               differ by at most 4.7e-4 (absolute, at x = -2.70; Hendrycks &
                               Gimpel, "Gaussian Error Linear Units", 2016, section 2); like
                               ONNX Runtime's enable_gelu_approximation, off by default. A Gelu
                               with approximate = "tanh" is fused so whatever this says. The
                               explain text names every Gelu taken this way. The CPU reference
                               always computes the erf form */
    aicf_pin pins[AICF_MAX_PINS]; /* per-node kernel pins (see aicf_pin) */
} aicf_policy;

#define AICF_AUTOTUNE_CUBLASLT_ALGOS 4 /* cuBLASLt heuristic results autotuning times per step */
#define AICF_MAX_TUNED 13 /* candidates one step may list (aicf_step_info): a Conv's direct, 7 tensor-core K
                             splits, AICF_AUTOTUNE_CUBLASLT_ALGOS cuBLASLt results, the rules' own lowering */

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
    /* What planning cost: host wall time in ms of the aicf_plan_create (or aicf_plan_load) call
       that made the plan, measured then (not saved in plan files). */
    double create_ms;         /* the whole call */
    double create_fold_ms;    /* of it: shape inference, constant and BatchNormalization folding */
    double create_select_ms;  /* of it: per-step scratch, memory plan and kernel choice (CUDA:
                                 the cuBLASLt heuristic queries; autotuning's timed runs) */
    int lt_heuristic_queries; /* cublasLtMatmulAlgoGetHeuristic calls made for the plan (a plan
                                 asks once per distinct GEMM: same shape, layout, epilogue and
                                 alignments get the same answer) */
    double lt_heuristic_ms;   /* of create_select_ms: the time inside those calls */
    double lt_setup_ms;       /* cuBLASLt's one-time setup query made by this plan on a helper
                                 thread, overlapping shape inference and folding (0: none; see
                                 AICF_CONTEXT_NO_THREADS) */
    double lt_setup_wait_ms;  /* of create_ms: the time the plan waited for that helper */
} aicf_plan_stats;

#define AICF_EXEC_DEVICE_IO 0x1u /* inputs/outputs stay on the device: no copy nodes in the graph */
#define AICF_EXEC_PROFILE 0x2u   /* CUDA: one timing event after every step, for aicf_exec_profile
                                    (adds an event-record node per step to every replay) */
#define AICF_EXEC_PDL 0x4u       /* CUDA: programmatic dependent launch everywhere. On devices of
                                    compute capability >= 9.0 with a driver of CUDA >= 12.3, all
                                    consecutive generated kernels are joined by programmatic
                                    edges, whatever the plan decided (aicf_policy.no_pdl): the
                                    next one may be launched before the previous one finishes
                                    and waits for it before touching memory (same results). The
                                    plan's default makes the same edges; this flag is for
                                    plans made with no_pdl = 1. Without it only the launches the
                                    plan made programmatic are; every other node waits for its
                                    predecessor to finish before it launches */

typedef struct aicf_exec_desc {
    uint32_t flags; /* AICF_EXEC_* */
    void* stream;   /* CUstream to run on; NULL = the exec creates its own */
} aicf_exec_desc;

typedef struct aicf_exec_stats {
    int graph_nodes;     /* nodes of the instantiated CUDA graph (0 on the CPU backend) */
    int kernel_nodes;    /* kernel launches per replay, counting those inside the cuBLASLt
                            child graphs (so it can exceed graph_nodes) */
    size_t device_bytes; /* arena + weights + workspace + staging */
    int programmatic_edges; /* kernel-to-kernel edges with programmatic dependent launch: the
                               plan's programmatic launches, or every kernel edge with
                               AICF_EXEC_PDL (0 before compute capability 9.0 or CUDA 12.3) */
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
    aicf_kernel_choice choice; /* CUDA Conv/Gemm/MatMul: the choice the step was held to, RULE if
                                  the policy's rules picked (see `reason`; with num_tuned > 0,
                                  autotuning measured the rules' own lowering fastest) */
    int variant;           /* that choice's variant (aicf_pin.variant) */
    int pinned;            /* 1: the choice is a pin of the policy */
    int num_tuned;         /* autotune: candidates timed for this step (0: not tuned) */
    float tuned_us[AICF_MAX_TUNED]; /* their device times, microseconds, in the order explain lists them */
    aicf_kernel_choice tuned_choice[AICF_MAX_TUNED]; /* RULE: the rules' own lowering */
    int tuned_variant[AICF_MAX_TUNED];
    int pdl_launches;      /* CUDA: the step's launches that go by a programmatic edge after the
                              previous kernel (aicf_policy.no_pdl) */
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
       persistent = 0 | 1                  (CUDA: a chain of small-M GEMM layers in one launch)
       autotune = 0 | 1                    (CUDA: time the kernel choices of each Conv, Gemm and
                                            MatMul step at plan creation, keep the fastest)
       no_pdl = 0 | 1                      (CUDA: 1 makes no launch programmatic)
       pin = CHOICE[/K] NODE               (may repeat, one per node: step of node NODE, the rest
                                            of the line, takes CHOICE = direct | im2col_gemm |
                                            implicit_gemm_tc | cublaslt | generated; /K is the
                                            pin's variant: cuBLASLt's heuristic result K, or for
                                            implicit_gemm_tc 2^(K-1) K splits; NODE may not
                                            hold '#', tabs or control bytes)
   aicf_policy_format writes every key (booleans as 0/1, the limit in bytes) after one comment
   line, then one `pin` line per used pin slot, so parse(format(p)) == p for every valid policy
   (pins come back in slot order, packed from slot 0). Writes into buf (NUL-terminated when
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
