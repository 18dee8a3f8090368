"""The kernel variants aicf generates: read by codegen/gen.py (format: docs/kernels.md).

MODULES is a list of dicts, one per rendered CUDA source (= one NVRTC compilation per target):
  {"name": module name (C identifier, unique),
   "template": file name in templates/,
   "context": {Jinja variables for the template},
   "kernels": [{"name": extern "C" __global__ function in the module (unique across modules),
                "op": what it computes, "dtype": storage type ("f32", "f16"),
                "params": {variant parameters; packed "key=value;..." with sorted keys},
                "block": threads per block it was written for (its launch bounds)}, ...]}
"""

MODULES = []

for _dtype in ("f16", "f32"):
    MODULES.append({
        "name": "sample_axpy_" + _dtype,
        "template": "sample_axpy.cu.j2",
        "context": {"dtype": _dtype},
        "kernels": [{"name": "aicf_sample_axpy_" + _dtype, "op": "axpy", "dtype": _dtype,
                     "params": {"vec": 1}, "block": 256}],
    })


# ---- the op kernels of src/81_cuda_ops.c (templates/{unary,binary,conv,gemm,pool,softmax,layout,
#      index,reduce,norm,resize}.cu.j2)
# 81_cuda_ops.c finds these kernels by name (aicf__cuda_kernel_find) and chooses among the
# variants at plan time; tests/test_gpu_kernels.c runs every one of them against the CPU
# reference. The argument structs are declared in each template and mirrored in 81_cuda_ops.c.
DTYPES = ("f32", "f16")
UNARY_FNS = ("relu", "tanh", "sigmoid", "exp", "log", "sqrt", "neg", "abs", "reciprocal", "erf",
             "leaky_relu", "elu", "hard_sigmoid", "hard_swish", "clip",
             "floor", "ceil", "round", "sign", "softplus", "softsign", "selu", "celu", "thresholded_relu",
             "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
             "gelu", "gelu_tanh", "mish", "shrink", "swish", "divs")
BINARY_FNS = ("add", "sub", "mul", "div", "pow", "max", "min", "prelu")
REDUCE_FNS = ("sum", "mean", "max", "min", "prod", "l1", "l2", "sumsquare", "logsum", "logsumexp")


def _k(name, op, dtype, params, block=256):
    return {"name": name, "op": op, "dtype": dtype, "params": params, "block": block}


# float16 unary ops with an 8-wide variant (16-byte accesses): those that run alone over large
# tensors in the reference workloads (the encoder's GELU after its cuBLASLt GEMM)
UNARY_V8 = ("gelu",)


def _unary():
    ks = []
    for dt in DTYPES:
        for fn in UNARY_FNS:
            for vec in (1, 4, 8) if dt == "f16" and fn in UNARY_V8 else (1, 4):
                ks.append(_k("aicf_unary_%s_%s_v%d" % (fn, dt, vec), "unary", dt, {"fn": fn, "vec": vec}))
    for src, dst in (("f32", "f16"), ("f16", "f32")):
        for vec in (1, 4, 8):
            ks.append(_k("aicf_cast_%s_%s_v%d" % (src, dst, vec), "cast", src, {"src": src, "dst": dst, "vec": vec}))
    return ks


def _binary():
    ks = []
    for dt in DTYPES:
        for fn in BINARY_FNS:
            for vec in (1, 4):
                ks.append(_k("aicf_binary_%s_%s_flat_v%d" % (fn, dt, vec), "binary", dt,
                             {"fn": fn, "variant": "flat", "vec": vec}))
            ks.append(_k("aicf_binary_%s_%s_bcast" % (fn, dt), "binary", dt, {"fn": fn, "variant": "bcast"}))
    return ks


def _conv():
    ks = []
    for dt in DTYPES:
        ks.append(_k("aicf_conv2d_direct_%s" % dt, "conv2d", dt, {"variant": "direct"}))
        ks.append(_k("aicf_conv2d_igemm_%s" % dt, "conv2d", dt, {"variant": "igemm", "tile": "64x64x16"}))
        ks.append(_k("aicf_batchnorm_%s" % dt, "batchnorm", dt, {}))
        ks.append(_k("aicf_convtranspose2d_%s" % dt, "convtranspose2d", dt, {"variant": "direct"}))
    return ks


def _conv_tc():
    # Conv as an implicit GEMM on float16 tensor cores (src/82_cuda_conv.c), and its split-K
    # reduction; float16 storage only (mma.sync.m16n8k16, sm_80 and later)
    # BM output channels per block (2 x BM threads), vw: 16-byte weight loads (K % 8 == 0)
    ks = [_k("aicf_conv2d_tc_f16_m%d%s" % (bm, "_vw" if vw else ""), "conv2d_tc", "f16",
             {"variant": "tc", "bm": bm, "vw": vw, "tile": "%dx64x32" % bm}, block=2 * bm)
          for bm in (64, 128) for vw in (0, 1)]
    # tcp: the input patch staged channels-last in shared memory, 3x3 taps in chunks of 8
    # channels (the template takes other tap counts and chunk sizes; 1x1 in chunks of 16 was
    # measured slower than the gathering kernel: docs/benchmarks.md)
    ks += [_k("aicf_conv2d_tcp_f16_m%d_k%dc%d" % (bm, khw, cg), "conv2d_tc", "f16",
              {"variant": "tcp", "bm": bm, "khw": khw, "cg": cg, "tile": "%dx64x%d" % (bm, khw * cg)}, block=2 * bm)
           for bm in (64, 128) for khw, cg in ((9, 8),)]
    # tcr: 3x3 stride-1 pad-1 convs, whole input rows copied by cp.async (VB-byte pieces) and
    # transposed to a channels-last patch in shared memory, chunks of 16 channels, 8 warps; vb: bytes
    # per copy (16: W % 8 == 0, 8: W % 4 == 0, 4: W even)
    ks += [_k("aicf_conv2d_tcr_f16_m%d_v%d" % (bm, vb), "conv2d_tc", "f16",
              {"variant": "tcr", "bm": bm, "vb": vb, "tile": "%dx%dx144" % (bm, 224 if bm == 64 else 112)}, block=256)
           for bm in (64, 128) for vb in (4, 8, 16)]
    # tcs: small K (C*KH*KW <= 256, the image models' first conv), the weights resident in
    # shared memory, output tiles of 128 pixels looped over, B read from a per-tile input patch
    ks.append(_k("aicf_conv2d_tcs_f16_m64", "conv2d_tc", "f16", {"variant": "tcs", "bm": 64, "tile": "64x128xK"}, block=256))
    return ks + [_k("aicf_conv2d_tc_reduce_f16", "conv2d_tc", "f16", {"variant": "reduce"}),
                 _k("aicf_conv2d_tc_reduce_f16_v4", "conv2d_tc", "f16", {"variant": "reduce4"})]


def _attention():
    # scaled dot-product attention in one launch (src/81_cuda_ops.c aicf__cuo_lower_attention):
    # any shape (one warp per query row), and float16 tensor cores for head sizes 32, 64, 128
    return ([_k("aicf_attention_%s" % dt, "attention", dt, {"variant": "warp"}, block=128) for dt in DTYPES] +
            [_k("aicf_attention_tc_f16_d%d" % hd, "attention", "f16", {"variant": "tc", "hd": hd, "tile": "64x64"}, block=128)
             for hd in (32, 64, 128)])


def _im2col():
    # Conv as im2col + cuBLASLt GEMM (src/82_cuda_conv.c): the column buffer, copied as stored
    # NKP: per image (one strided-batched GEMM); KNP: the images side by side (one GEMM over N*P
    # columns, float16 only: its float32 product goes through aicf_conv2d_tc_reduce_f16)
    return ([_k("aicf_im2col_%s" % dt, "im2col", dt, {"layout": "NKP"}) for dt in DTYPES] +
            [_k("aicf_im2col_knp_f16", "im2col", "f16", {"layout": "KNP"})])


def _gemm():
    ks = []
    for dt in DTYPES:
        ks.append(_k("aicf_gemm_t64_%s" % dt, "gemm", dt, {"variant": "t64", "tile": "64x64x16"}))
        ks.append(_k("aicf_gemm_t16_%s" % dt, "gemm", dt, {"variant": "t16", "tile": "16x16x16"}))
    return ks


def _gemm_tc():
    # GEMM on float16 tensor cores with the step's elementwise chain as epilogue
    # (src/81_cuda_ops.c aicf__cuo_lower_gemm_tc): BM x BN blocks of WM x WN warps, ST cp.async
    # stages of K 32, kw: warps slicing each step's K (64 x 64: 8 warps in two slices, for the
    # small grids of batch 1); tb: B stored [N, K] (Gemm transB = 1) or [K, N] (MatMul weights)
    return [_k("aicf_gemm_tc_f16_m%dn%d%s" % (bm, bn, "_tb" if tb else ""), "gemm_tc", "f16",
               {"bm": bm, "bn": bn, "wm": wm, "wn": wn, "kw": kw, "st": st, "tb": tb, "tile": "%dx%dx32" % (bm, bn)},
               block=(bm // wm) * (bn // wn) * kw * 32)
            for bm, bn, wm, wn, kw, st in ((128, 128, 64, 32, 1, 4), (64, 64, 32, 32, 2, 4)) for tb in (0, 1)] + [
        # the small-M kernels: NK groups of NN warps over K slices of the whole K, each warp a
        # BN / NN column strip of the block's BM x BN tile (src/81_cuda_ops.c
        # aicf__cuo_lower_gemm_tcs picks the tile)
        _k("aicf_gemm_tc_f16_s%dx%d%s" % (bm, bn, "_tb" if tb else ""), "gemm_tc", "f16",
           {"bm": bm, "bn": bn, "nk": nk, "nn": nn, "tb": tb, "small": 1, "tile": "%dx%dxK" % (bm, bn)}, block=nk * nn * 32)
        for bm, bn, nk, nn in ((16, 32, 8, 2), (16, 64, 4, 4), (32, 32, 8, 2), (32, 64, 4, 4)) for tb in (0, 1)]


def _gemm_wg():
    # the Hopper GEMM (wgmma + TMA; sm_90a only): 64 x BN tiles of one warpgroup, K in 64-wide
    # slabs by TMA, split over a cluster of KS CTAs (src/81_cuda_ops.c aicf__cuo_lower_gemm_wg)
    return [_k("aicf_gemm_wg_f16_64x%d%s%s" % (bn, "_tb" if tb else "", "_k%d" % ks if ks > 1 else ""), "gemm_wg", "f16",
               {"bm": 64, "bn": bn, "tb": tb, "ks": ks, "tile": "64x%dx64" % bn}, block=128)
            for bn in (16, 32) for tb in (0, 1) for ks in (1, 4)] + [
        # the same with a LayerNormalization folded in: the rows' statistics from the resident
        # slabs, W' = gamma W and the column terms made at plan time (src/81_cuda_ops.c
        # aicf__cuo_lower_ln_fold)
        _k("aicf_gemm_wg_f16_64x%d_ln" % bn, "gemm_wg", "f16", {"bm": 64, "bn": bn, "tb": 0, "ks": 1, "ln": 1, "tile": "64x%dxK" % bn},
           block=256)
        for bn in (16, 32)] + [
        # the warp-specialised persistent GEMM for thousands of rows: 128 x BN tiles, B [K, N]
        # (src/81_cuda_ops.c aicf__cuo_lower_gemm_ws)
        _k("aicf_gemm_ws_f16_128x%d" % bn, "gemm_ws", "f16", {"bm": 128, "bn": bn, "tile": "128x%dx64" % bn}, block=384)
        for bn in (128, 192)] + [
        # the same structure over whole rows with the LayerNorm that follows the GEMM: a cluster of
        # CS CTAs a 64-row block, N = CS x BN (src/81_cuda_ops.c aicf__cuo_lower_ln_epi); _y32: Y
        # stored float32 from registers (the boundary Cast after the step absorbed,
        # aicf__cuo_fold_ew_cast)
        _k("aicf_gemm_wsln_f16_64x%d_c%d%s" % (bn, cs, "_y32" if y32 else ""), "gemm_wsln", "f16",
           {"bm": 64, "bn": bn, "cs": cs, "y32": y32, "tile": "64x%dx64" % bn}, block=256)
        for bn, cs in ((128, 2), (192, 2), (192, 4)) for y32 in (0, 1)]


def _pool():
    ks = []
    for dt in DTYPES:
        ks.append(_k("aicf_maxpool2d_%s" % dt, "maxpool2d", dt, {}))
        ks.append(_k("aicf_maxpool3x3_%s" % dt, "maxpool3x3", dt, {}))
        if dt == "f16":  # resnet's stem pool: 3x3 stride 2, two outputs a lane (src/81_cuda_ops.c)
            ks.append(_k("aicf_maxpool3x3s2_f16", "maxpool3x3s2", dt, {}))
        ks.append(_k("aicf_avgpool2d_%s" % dt, "avgpool2d", dt, {}))
        ks.append(_k("aicf_rowmean_%s" % dt, "rowmean", dt, {}))
        ks.append(_k("aicf_lrn_%s" % dt, "lrn", dt, {}))
    return ks


def _softmax():
    ks = []
    for dt in DTYPES:
        for v in ("block", "warp", "strided"):
            ks.append(_k("aicf_softmax_%s_%s" % (v, dt), "softmax", dt, {"variant": v}))
            ks.append(_k("aicf_logsoftmax_%s_%s" % (v, dt), "logsoftmax", dt, {"variant": v}))
    return ks


def _layout():
    ks = []
    for dt in DTYPES:
        ks.append(_k("aicf_permute_%s" % dt, "permute", dt, {}))
        # 16-byte elements: the innermost dimension kept contiguous (src/81_cuda_ops.c aicf__cuo_permute)
        vw = 4 if dt == "f32" else 8
        ks.append(_k("aicf_permute_%s_v%d" % (dt, vw), "permute", dt, {"vec": vw}))
        ks.append(_k("aicf_transpose2d_%s" % dt, "transpose2d", dt, {"tile": "32x32"}))
        for vec in (1, 4):
            ks.append(_k("aicf_copy2d_%s_v%d" % (dt, vec), "copy2d", dt, {"vec": vec}))
    return ks


def _index():
    ks = []
    for dt in DTYPES:
        for ix in ("i32", "i64"):
            ks.append(_k("aicf_gather_%s_%s" % (dt, ix), "gather", dt, {"index": ix}))
        ks.append(_k("aicf_where_%s" % dt, "where", dt, {}))
        ks.append(_k("aicf_pad_%s" % dt, "pad", dt, {}))
    return ks


def _reduce():
    # the function is a runtime argument (uniform switch): one kernel per variant serves all ten
    ks = []
    for dt in DTYPES:
        for v in ("thread", "warp", "block"):
            ks.append(_k("aicf_reduce_%s_%s" % (v, dt), "reduce", dt, {"fns": "+".join(REDUCE_FNS), "variant": v}))
    return ks


def _norm():
    ks = []
    for dt in DTYPES:
        for v in ("warp", "block"):
            ks.append(_k("aicf_norm_%s_%s" % (v, dt), "norm", dt, {"variant": v}))
        for ng in (2, 3, 4, 6, 8):  # rows of up to 128 * ng columns held in registers (384: 3, 768: 6)
            ks.append(_k("aicf_norm_rowreg%d_%s" % (ng, dt), "norm", dt, {"variant": "rowreg", "ng": ng}))
    return ks


def _resize():
    return [_k("aicf_resize2d_%s" % dt, "resize2d", dt, {"modes": "nearest+linear"}) for dt in DTYPES]


MODULES += [
    {"name": "unary", "template": "unary.cu.j2", "context": {}, "kernels": _unary()},
    {"name": "binary", "template": "binary.cu.j2", "context": {}, "kernels": _binary()},
    {"name": "conv", "template": "conv.cu.j2", "context": {}, "kernels": _conv()},
    {"name": "gemm", "template": "gemm.cu.j2", "context": {}, "kernels": _gemm()},
    {"name": "im2col", "template": "im2col.cu.j2", "context": {}, "kernels": _im2col()},
    {"name": "conv_tc", "template": "conv_tc.cu.j2", "context": {}, "kernels": _conv_tc()},
    {"name": "gemm_tc", "template": "gemm_tc.cu.j2", "context": {}, "kernels": _gemm_tc()},
    # the same template's Hopper body: wgmma and TMA exist on sm_90a only (an architecture-specific
    # cubin, loaded on compute capability 9.0 alone; other devices keep gemm_tc and cuBLASLt)
    {"name": "gemm_wg", "template": "gemm_tc.cu.j2", "context": {"wg": 1}, "targets": ["sm_90a"], "kernels": _gemm_wg()},
    {"name": "pool", "template": "pool.cu.j2", "context": {}, "kernels": _pool()},
    {"name": "softmax", "template": "softmax.cu.j2", "context": {}, "kernels": _softmax()},
    {"name": "attention", "template": "attention.cu.j2", "context": {}, "kernels": _attention()},
    {"name": "layout", "template": "layout.cu.j2", "context": {}, "kernels": _layout()},
    {"name": "index", "template": "index.cu.j2", "context": {}, "kernels": _index()},
    {"name": "reduce", "template": "reduce.cu.j2", "context": {}, "kernels": _reduce()},
    {"name": "norm", "template": "norm.cu.j2", "context": {}, "kernels": _norm()},
    {"name": "resize", "template": "resize.cu.j2", "context": {}, "kernels": _resize()},
    # fused elementwise chains: the epilogues of fused steps (src/81_cuda_ops.c aicf__cuo_ewchain)
    {"name": "ewchain", "template": "ewchain.cu.j2", "context": {},
     "kernels": [_k("aicf_ewchain_%s%s" % (dt, "_v4" if vec == 4 else ""), "ewchain", dt, {"max_ops": 9, "vec": vec})
                 for dt in DTYPES for vec in (1, 4)] +
                # small-M GEMMs (batch-1 Linear layers) with the chain as epilogue (aicf__cuo_lower_gemv)
                [_k("aicf_gemv_%s_m%d%s" % (dt, mt, "_v" if vec else ""), "gemv", dt, {"mt": mt, "vec": vec}, block=128)
                 for dt in DTYPES for mt in (1, 2, 4, 8) for vec in (0, 1)] +
                # persistent chains of them: consecutive GEMV steps in one launch (aicf__cuo_persist)
                [_k("aicf_gemvp_%s_m%d" % (dt, mt), "gemvp", dt, {"mt": mt}, block=256)
                 for dt in DTYPES for mt in (1, 2, 4, 8)]},
]
