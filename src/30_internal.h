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
#define AICF__T_KEEP_F32 0x10u /* a float32 constant stored float32 in a float16 plan too (the
                                  LayerNorm fold's column terms: aicf__fuse_ln_prologue) */

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

#define AICF__NODE_FUSED_MAX 16
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
    int trans_b;      /* plan pass (aicf__absorb_transposes), MatMul only: input 1 is read with its
                         last two axes swapped, a Transpose absorbed: that node's index + 1;
                         0 = as ONNX */
    int fused[AICF__NODE_FUSED_MAX]; /* plan passes (aicf__fuse_attention, aicf__attention_views): the nodes this
                         Attention node replaced (the K Transpose, the Q K^T MatMul, the scale, the
                         mask Add, the Softmax; the P V MatMul is this node), then the layout nodes
                         absorbed into its addressing */
    int n_fused;
    struct aicf__views* views; /* aicf__attention_views: Q, K, V and output 0 read / written as
                                  strided views of other tensors; NULL = as the node's tensors */
} aicf__node;

/* A strided view: the node's operand (its logical tensor, rank r <= 4, last axis contiguous)
   stored inside tensor `base`: element (i0, .., ir-1) at base + off + sum_k ik * st[k]. */
typedef struct aicf__view {
    int base;          /* -1: the operand is its own contiguous tensor */
    int64_t off;       /* elements */
    int64_t st[4];     /* elements, per axis of the operand; st[r-1] = 1 */
} aicf__view;
typedef struct aicf__views {
    aicf__view v[4];   /* Attention: Q, K, V, output 0 */
} aicf__views;

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
    int chunk;     /* CUDA weights: 0 = stored as in the graph; CG > 0 = a conv weight [M, C, KH, KW]
                      stored [C/CG][M][KH*KW][CG] for the patch conv kernel (set by its lowering,
                      permuted at upload: aicf__weights_chunked; plan files: layout=chunkCG) */
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

/* aicf__step.choice_src */
enum { AICF__CHOICE_FROM_RULE = 0, AICF__CHOICE_FROM_PIN = 1, AICF__CHOICE_FROM_TUNE = 2, AICF__CHOICE_TRYING = 3 };
#define AICF__TUNE_MAX AICF_MAX_TUNED /* candidates of one step: a Conv's direct, tensor-core K splits 0..6,
                                         AICF_AUTOTUNE_CUBLASLT_ALGOS cuBLASLt results and the rules' lowering */

/* one autotuning candidate of a step and its measured time */
struct aicf__tuned {
    int choice, lt;            /* aicf_kernel_choice and cuBLASLt heuristic result */
    int64_t ns;                /* device time of one run of the step, nanoseconds */
};

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
    /* the kernel choice the step was lowered with (CUDA): AICF_CHOICE_RULE lets the policy's
       rules decide; any other value must take, else the lowering fails (AICF__CHOICE_TRYING:
       with AICF_ERROR_UNSUPPORTED and no message, for autotuning to skip the candidate) */
    int choice;                /* aicf_kernel_choice */
    int choice_lt;             /* cuBLASLt heuristic result its matmuls take (0 = the first) */
    int choice_src;            /* AICF__CHOICE_FROM_* */
    int n_tuned;               /* autotune: candidates timed (0 = not tuned) */
    struct aicf__tuned tuned[AICF__TUNE_MAX];
    /* prologue (aicf__fuse_ln_prologue, 70_plan.c): a MatMul step that runs the
       LayerNormalization producing its input 0 first. pro = that node + 1 (0 = none; it is the
       main node's fused[0] too); in[0] is the LayerNorm's X, in[pro_in] its Scale and
       in[pro_in + 1] its B (-1 absent); CUDA plans: in[1] is W' = float16(Scale (.) W), a plan
       constant, and in[pro_in + 2], in[pro_in + 3] the column terms c1 = sum_k W'[k, n] and
       c2 = B W (float32 constants); out[1] is the LayerNorm's output when anything else reads it
       (the residual), else -1 */
    int pro, pro_in;
    /* epilogue LayerNorm (aicf__fuse_ln_epilogue, 70_plan.c): a MatMul step whose output, after
       its chain (the bias, the residual), goes through the LayerNormalization that was its only
       reader. post = that node + 1 (0 = none; it is in the main node's fused[] too);
       in[post_in] is the LayerNorm's Scale and in[post_in + 1] its B (-1 absent); out[0] is
       the LayerNorm's output (the pre-normalisation sum is never stored) */
    int post, post_in;
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
    struct aicf__saved_choices* saved_choices; /* during aicf_plan_load only: the file's per-step
                                                  kernel choices and autotune times (no timing) */
    /* how long planning took (aicf_plan_stats; measured, never in a plan file) */
    double create_ms, fold_ms, select_ms;
    int lt_queries;                /* cuBLASLt heuristic queries made */
    double lt_query_ms;            /* host time inside them */
    /* during planning only (CUDA): cuBLASLt's answers by query, aicf__cuda_matmul_plan */
    void* lt_cache;
    int lt_cache_n, lt_cache_cap;
    /* cuBLASLt's first-use setup on a helper thread (aicf__cuda_lt_hint, 80_cuda.c) */
    void* lt_warm;                 /* the running helper, NULL once joined or when none */
    int lt_warm_decided;           /* 1: started, or found not needed, for this plan */
    double lt_fold_bytes;          /* constants the plan copies and folds (aicf__fold_bytes) */
    double lt_warm_ms;             /* the helper's query time */
    double lt_warm_wait_ms;        /* time the plan waited for it */
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
    int is_ptx;              /* 1: PTX text (NUL-terminated, size includes the NUL); 2: an
                                architecture-specific cubin (sm_XYa: wgmma, TMA), loaded on
                                compute capability X.Y only; 0: a cubin for sm_XY */
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
   aicf__cuo_persist); *n_kernels receives how many were made and *sync_bytes the extent of
   their regions in the exec's sync region (aicf__cuda_sync_ptr: epoch words, hand-off buffers). */
aicf_result aicf__cuda_persist(aicf_plan* p, int* n_kernels, size_t* sync_bytes);
/* After every other CUDA pass: marks the launches that go programmatically after the previous
   kernel (aicf__cuo_op.pdl; the plan's `pdl=1`, a "launch: programmatic" line per step in
   explain). Returns how many. Nothing with policy.no_pdl or before compute capability 9.0. */
int aicf__cuda_pdl(aicf_plan* p, int cc_major);

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
/* Device address of the exec's sync region (zeroed at exec creation: the persistent kernels'
   epoch words and hand-off buffers; 0 if the plan has no persistent kernel). */
uint64_t aicf__cuda_sync_ptr(aicf__cuda_emitter* em);
/* Adds a kernel node (after the previously emitted work) launching table kernel
   `kernel_index` with one by-value argument of args_size bytes (copied). pdl: the plan made this
   launch programmatic (aicf__cuda_pdl): after another generated kernel, on a driver with the
   edge API, the edge is a programmatic one (as for every kernel under AICF_EXEC_PDL). */
aicf_result aicf__cuda_emit_kernel(aicf__cuda_emitter* em, int kernel_index, const unsigned grid[3],
                                   const unsigned block[3], unsigned shared_bytes,
                                   const void* args, size_t args_size, int pdl);
/* A TMA tensor map (CUtensorMap, 128 bytes) to encode at exec creation, once the tensor's
   address is known: the plan keeps this request in the kernel's argument bytes where the map
   goes, and aicf__cuda_emit_step replaces it by the map (cuTensorMapEncodeTiled: 2-D float16,
   no interleave, L2 promotion 128 bytes, out-of-bounds elements read as zero). */
#define AICF__TMAP_MAGIC 0x50414d54u /* "TMAP" */
typedef struct aicf__tmap_req {
    uint32_t magic;   /* AICF__TMAP_MAGIC */
    uint32_t swizzle; /* CUtensorMapSwizzle: 1 32-byte, 2 64-byte, 3 128-byte */
    uint32_t box[2];  /* elements copied per instruction along dims[0] and dims[1] */
    uint64_t dims[2]; /* elements; dims[0] contiguous */
    uint64_t stride1; /* bytes from one dims[1] index to the next (a multiple of 16) */
} aicf__tmap_req;
/* Encodes request rq for the tensor at device address addr into out (128 bytes). Errors: the
   driver lacks cuTensorMapEncodeTiled (before CUDA 12.0), or refuses the request (the message
   names the step, its kernel and the request). */
aicf_result aicf__cuda_encode_tmap(aicf__cuda_emitter* em, const aicf__tmap_req* rq, uint64_t addr, void* out);
/* 1 when the device the context plans for can run the Hopper GEMM (templates/gemm_tc.cu.j2
   aicf_gemm_wg_*): compute capability 9.0 (its sm_90a image), a driver with
   cuTensorMapEncodeTiled, and table kernel k with an image for the device. */
int aicf__cuda_wg_ok(aicf_context* ctx, int k);
/* Clusters (cx x cy CTAs, the kernel's __cluster_dims__) of table kernel k the device holds at
   once with `threads` threads and `smem` bytes of dynamic shared memory a CTA, or -1 where it
   cannot be known (80_cuda.c). */
int aicf__cuda_cluster_cap(aicf_context* ctx, int k, unsigned threads, unsigned smem, unsigned cx, unsigned cy);
/* 1 when the Hopper GEMM with a LayerNorm folded in (aicf_gemm_wg_f16_64xBN_ln, src/81_cuda_ops.c
   aicf__cuo_lower_ln_fold) can run Y [M, N] = LayerNorm(X [M, K]) W on the device p plans for:
   float16 storage, 128 <= M <= 256, K and N multiples of 8, every slab of K resident in shared
   memory, the kernel in the table with an image for the device (aicf__cuda_wg_ok). */
int aicf__cuda_ln_fold_ok(const aicf_plan* p, int64_t M, int64_t N, int64_t K);
/* 1 when the GEMM with the LayerNorm that follows it (aicf_gemm_wsln_f16_64xBN_cCS,
   src/81_cuda_ops.c aicf__cuo_lower_ln_epi) can run Y [M, N] = LayerNorm_rows(A [M, K] B + ...)
   on the device p plans for: float16 storage, N one of the split widths (aicf__ln_epi_split), K a
   multiple of 8, clusters of the 64-row blocks filling at least half the SMs, the kernel in the
   table with an image for the device. */
int aicf__cuda_ln_epi_ok(const aicf_plan* p, int64_t M, int64_t N, int64_t K);
/* Adds a device-to-device copy of `bytes`. */
aicf_result aicf__cuda_emit_copy(aicf__cuda_emitter* em, uint64_t dst, uint64_t src, size_t bytes);

/* A (batched, strided) matrix product D = alpha * op(A) op(B) + beta * C (+ bias, + act) in
   row-major terms: op(A) is [M,K], op(B) is [K,N], C and D are [M,N] with leading dimension ldc
   = ldd. Element types follow `dtype` (AICF_DTYPE_FLOAT32 or FLOAT16) for A, B, C, D, bias. */
/* Made zeroed (memset) before its fields are set: plan-time keys compare whole descriptors
   (aicf__lt_key of 80_cuda.c). */
#define AICF__MM_ACT_RELU 1      /* max(x, 0) */
#define AICF__MM_ACT_GELU_TANH 2 /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): ONNX Gelu with
                                    approximate = "tanh" (Hendrycks & Gimpel, "Gaussian Error Linear
                                    Units", 2016), cuBLASLt's CUBLASLT_EPILOGUE_GELU */
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
    int act;                     /* the activation after bias and C: 0 none, AICF__MM_ACT_RELU,
                                    AICF__MM_ACT_GELU_TANH (cuBLASLt's GELU epilogue) */
    int out_f32;                 /* 1: C and D float32 while A and B are `dtype` float16 (a conv's
                                    product for aicf_conv2d_tc_reduce_f16; no bias, no activation) */
    int reserved;                /* 0 (keeps the descriptor's bytes, saved in plan files, defined) */
    uint64_t a, b, c, d, bias_ptr; /* device addresses, filled at emit time (c may be 0 if beta == 0) */
} aicf__matmul_desc;

/* Plan time: asks cuBLASLt for an algorithm for `d` (addresses ignored); stores an opaque
   record in *algo (aicf__malloc'd, freed with aicf__free) and writes a reason like
   "cuBLASLt heuristic #0 of 8, workspace 0 B". Takes heuristic result `lt_index` (0 = the
   first); si is the asking step (a loaded plan's algorithms are matched by step and
   descriptor). AICF_ERROR_UNSUPPORTED when cuBLASLt is not loaded, has no algorithm or fewer
   than lt_index + 1 (the caller then picks a generated kernel, or refuses a pinned choice). */
aicf_result aicf__cuda_matmul_plan(aicf_plan* p, int si, const aicf__matmul_desc* d, int lt_index, void** algo,
                                   char* reason, size_t reason_cap);
/* Plan time: cuBLASLt's one-time setup on a helper thread (80_cuda.c). aicf__cuda_lt_hint looks
   at node `node` of g (the caller's graph before shape inference, then p->g node by node as
   shapes are inferred): when the node will likely ask cuBLASLt (aicf__cuda_lt_likely), the
   plan has host work to overlap (p->lt_fold_bytes) and cuBLASLt has not set itself up for the
   plan's type on this context, it starts that setup on a helper thread. aicf__cuda_lt_join
   waits for the helper (no-op without one); called before the plan's first cuBLASLt query and
   before the plan is returned or destroyed. */
void aicf__cuda_lt_hint(aicf_plan* p, const aicf_graph* g, int node);
void aicf__cuda_lt_join(aicf_plan* p);
/* 1 when node `node` of g will most likely be lowered to a cuBLASLt GEMM under the policy
   (82_cuda_conv.c, beside the Conv rule it mirrors). */
int aicf__cuda_lt_likely(const aicf_graph* g, const aicf_policy* pol, int node);
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
    int n_results;               /* heuristic results it was chosen from */
    int index;                   /* which of them (0 = the first) */
} aicf__algo_rec;

/* One recorded algorithm and the matmul descriptor it was recorded for (as the step's op
   program holds it: address fields carry the operand alignments, aicf__cuda_matmul_plan's
   input). aicf__cuda_matmul_plan reuses `rec` for an identical descriptor, after
   cublasLtMatmulAlgoCheck accepts it; a refusal is noted in `refused` and the step falls back
   as if cuBLASLt had no algorithm (the plan then differs from the file and is refused). */
typedef struct aicf__saved_algo {
    int step;                    /* the step that recorded it */
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

/* A plan file's `choice` / `tuned` lines: per step, the choice and the autotune record. */
typedef struct aicf__saved_choice {
    int step;
    int choice, lt, src;         /* src: AICF__CHOICE_FROM_PIN or _TUNE */
    int n_tuned;
    struct aicf__tuned tuned[AICF__TUNE_MAX];
} aicf__saved_choice;

typedef struct aicf__saved_choices {
    aicf__saved_choice* v;
    int n;
} aicf__saved_choices;

/* aicf_plan_create, with `saved` (may be NULL) lent to the CUDA backend while it plans. */
aicf_result aicf__plan_create_ex(aicf_graph* graph, const aicf_plan_desc* desc, aicf__saved_algos* saved,
                                 aicf__saved_choices* choices, aicf_plan** out);
/* CUDA autotuning (80_cuda.c), on a plan whose steps are lowered and memory placed: every
   Conv, Gemm and MatMul step with choice_src RULE is lowered and timed under each candidate
   choice on scratch device memory (the plan's weights, random activations); the fastest is left
   in st->choice (choice_src TUNE) with every candidate's time in st->tuned. *tunable: how many
   steps had two or more candidates: their lowerings were replaced by the candidates', so the
   caller then lowers and places the plan again (also where none was tuned). */
aicf_result aicf__cuda_tune(aicf_plan* p, int* tunable);
/* FNV-1a of step si's lowered program (launches, arguments, patches, cuBLASLt records); 0 if none:
   two candidates with the same hash run the same launches */
uint64_t aicf__cuda_step_hash(const aicf_plan* p, int si);
/* "direct", "im2col_gemm", ... for an aicf_kernel_choice; "rule" for 0, "?" out of range */
const char* aicf__choice_name(int choice);

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
    int patch_tensor[AICF__CUDA_VIEW_MAX_PATCH];     /* tensor, or -2: the step's arena scratch, -3: the exec's sync region */
    uint64_t patch_add[AICF__CUDA_VIEW_MAX_PATCH];   /* bytes added to the tensor's address */
    int patch_tmap[AICF__CUDA_VIEW_MAX_PATCH];       /* 1: a TMA tensor map of that address (128
                                                        bytes, encoded from the aicf__tmap_req
                                                        in args), 0: the address (8 bytes) */
    uint64_t copy_bytes;         /* copy */
    int algo;                    /* matmul: index of its algorithm record in the step */
    int pdl;                     /* kernel: 1 launched programmatically after the previous kernel */
    int prefetch;                /* kernel: 1 reads constants before its griddepcontrol.wait (the
                                    weights of the GEMV and the small-M tensor-core GEMM,
                                    AICF__GEMV_B_CONST) */
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
