#!/usr/bin/env python3
"""Cross-checks aicf's ONNX reader against the `onnx` Python package.

For every model under $AICF_TEST_DATA/models (recursive *.onnx; default ../shared/data relative
to the repository root) and every model.onnx of the ONNX node tests (the tarball
$AICF_TEST_DATA/onnx-node-1.23.1.tar.gz, extracted into build/onnx-node once), this prints the
canonical summary that tests/onnx_dump.c prints, computed independently with onnx's protobuf
parser and onnx.numpy_helper.to_array, and diffs the two.

A model is
  PASS  when aicf loads it and both summaries are identical;
  SKIP  when aicf rejects it with AICF_ERROR_UNSUPPORTED *and* this script finds an independent
        reason why aicf cannot represent it (an op outside AICF__OPS, a non-default domain, a
        subgraph or other unsupported attribute, a non-tensor or shapeless input, a data type
        aicf lacks, a sparse initializer...);
        when the only reasons are op types outside AICF__OPS (or another domain), the parser is
        still cross-checked on a copy with those ops renamed to Identity (re-serialised by onnx),
        and a mismatch there is a FAIL;
  FAIL  otherwise (different summaries, any other error, an UNSUPPORTED with no reason found
        here, or a model loaded although it has such a reason).

usage: tests/onnx_crosscheck.py [--dump build/onnx_dump] [--verbose] [--only SUBSTRING]
Prints one line per model and finally "N passed, N failed, N skipped"; exits 1 on a failure.
"""
import argparse
import difflib
import math
import os
import re
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the element types aicf has (aicf_dtype): TensorProto.DataType numbers
AICF_DTYPES = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}
MAX_RANK = 8


def aicf_ops():
    """The op types aicf knows, read from AICF__OPS in src/30_internal.h."""
    text = open(os.path.join(ROOT, "src", "30_internal.h")).read()
    m = re.search(r"#define AICF__OPS\(X\)(.*?)\n\s*\n", text, re.S)
    if not m:
        sys.exit("onnx_crosscheck: cannot find AICF__OPS in src/30_internal.h")
    body = m.group(1).replace("\\\n", " ")
    return set(re.findall(r"X\((\w+)\)", body))


def esc(s):
    """The string escaping of onnx_dump: bytes outside 0x20..0x7e, '"' and '\\' as \\xHH."""
    if isinstance(s, str):
        s = s.encode("utf-8")
    out = []
    for b in s:
        if 0x20 <= b < 0x7F and b not in (0x22, 0x5C):
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return '"' + "".join(out) + '"'


def fmt_float(f):
    f = float(np.float32(f))
    if math.isnan(f):
        return "nan"
    return "%.9g" % f


def fnv1a64(data):
    h = 0xCBF29CE484222325
    mask = 0xFFFFFFFFFFFFFFFF
    prime = 0x100000001B3
    for b in memoryview(data).cast("B"):
        h = ((h ^ b) * prime) & mask
    return h


def dtype_name(dt):
    return onnx.TensorProto.DataType.Name(dt)


def tensor_summary(t):
    arr = numpy_helper.to_array(t)
    if arr.dtype.byteorder == ">":
        arr = arr.byteswap().view(arr.dtype.newbyteorder("<"))
    data = np.ascontiguousarray(arr).tobytes()
    dims = ",".join(str(d) for d in t.dims)
    return "%s [%s] %016x" % (dtype_name(t.data_type), dims, fnv1a64(data))


def attr_summary(a, depth=0):
    """The text after the attribute's name; a GRAPH attribute continues on the following lines
    (returned as a list: the first line's tail, the subgraph's lines, the closing brace)."""
    t = a.type
    if t == onnx.AttributeProto.FLOAT:
        return "FLOAT " + fmt_float(a.f)
    if t == onnx.AttributeProto.INT:
        return "INT %d" % a.i
    if t == onnx.AttributeProto.STRING:
        return "STRING " + esc(a.s)
    if t == onnx.AttributeProto.FLOATS:
        return "FLOATS [" + ",".join(fmt_float(x) for x in a.floats) + "]"
    if t == onnx.AttributeProto.INTS:
        return "INTS [" + ",".join(str(x) for x in a.ints) + "]"
    if t == onnx.AttributeProto.STRINGS:
        return "STRINGS [" + ",".join(esc(x) for x in a.strings) + "]"
    if t == onnx.AttributeProto.TENSOR:
        return "TENSOR " + tensor_summary(a.t)
    if t == onnx.AttributeProto.GRAPH:
        return ["GRAPH {"] + graph_summary(a.g, depth + 1) + [" " * (4 * depth) + "  }"]
    return "TYPE%d" % t


def dims_summary(vi, tt):
    dims = []
    for i, d in enumerate(tt.shape.dim):
        which = d.WhichOneof("value")
        if which == "dim_value":
            dims.append(str(d.dim_value))
        elif which == "dim_param" and d.dim_param:
            dims.append(d.dim_param)
        else:
            dims.append("unk__%s_%d" % (vi.name, i))
    return "[%s]" % ",".join(dims)


def outer_refs(g):
    """Names a subgraph reads from enclosing graphs, in order of first use: node inputs in node
    order, then graph outputs (the order in which aicf's builder creates outer references)."""
    defined = {t.name for t in g.initializer} | {vi.name for vi in g.input}
    outer = []
    for n in g.node:
        for x in n.input:
            if x and x not in defined and x not in outer:
                outer.append(x)
        defined.update(x for x in n.output if x)
    for vi in g.output:
        if vi.name and vi.name not in defined and vi.name not in outer:
            outer.append(vi.name)
    return outer


def graph_summary(g, depth=0):
    """Lines of one graph; a subgraph (depth > 0) is indented by 4 spaces per level, has no opset
    line, lenient inputs (UNDEFINED / "?" where the type or shape is open) and outer lines."""
    ind = " " * (4 * depth)
    lines = []
    init_names = {t.name for t in g.initializer}
    for vi in g.input:
        if vi.name in init_names:
            continue
        tt = vi.type.tensor_type
        if depth == 0:
            lines.append("input %s %s %s" % (esc(vi.name), dtype_name(tt.elem_type), dims_summary(vi, tt)))
            continue
        is_tensor = vi.type.WhichOneof("value") == "tensor_type"
        dt = tt.elem_type if is_tensor and tt.elem_type in AICF_DTYPES else 0
        shape = dims_summary(vi, tt) if is_tensor and tt.HasField("shape") and len(tt.shape.dim) <= MAX_RANK else "?"
        lines.append("%sinput %s %s %s" % (ind, esc(vi.name), dtype_name(dt), shape))
    if depth > 0:
        for x in outer_refs(g):
            lines.append("%souter %s" % (ind, esc(x)))
    for vi in g.output:
        lines.append("%soutput %s" % (ind, esc(vi.name)))
    for t in sorted(g.initializer, key=lambda t: t.name.encode("utf-8")):
        lines.append("%sconst %s %s" % (ind, esc(t.name), tensor_summary(t)))
    for i, n in enumerate(g.node):
        lines.append("%snode %d %s %s in=[%s] out=[%s]" % (
            ind, i, esc(n.name), n.op_type, ",".join(esc(x) for x in n.input), ",".join(esc(x) for x in n.output)))
        for a in n.attribute:
            s = attr_summary(a, depth)
            if isinstance(s, list):
                lines.append("%s  attr %s %s" % (ind, esc(a.name), s[0]))
                lines.extend(s[1:])
            else:
                lines.append("%s  attr %s %s" % (ind, esc(a.name), s))
    return lines


def summary(model):
    opset = 0
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            opset = o.version
    return ["opset %d" % opset] + graph_summary(model.graph)


MAX_SUBGRAPH_DEPTH = 8  # AICF_MAX_SUBGRAPH_DEPTH


def unsupported_reasons(model, ops):
    """Independent list of reasons why aicf cannot represent this model."""
    return graph_reasons(model.graph, ops, 0)


def graph_reasons(g, ops, depth):
    """Reasons in one graph and, recursively, its subgraphs (whose inputs may be untyped or
    shapeless: Loop/Scan bodies load and are refused at plan time)."""
    r = []
    A = onnx.AttributeProto
    if depth > MAX_SUBGRAPH_DEPTH:
        r.append("subgraphs nested deeper than %d" % MAX_SUBGRAPH_DEPTH)
        return r
    if len(g.sparse_initializer):
        r.append("sparse initializer")
    for t in g.initializer:
        if t.data_type not in AICF_DTYPES:
            r.append("initializer %s of type %s" % (t.name, dtype_name(t.data_type)))
        if t.HasField("segment"):
            r.append("segmented tensor")
    init_names = {t.name for t in g.initializer}
    for vi in g.input:
        if vi.name in init_names or depth > 0:
            continue
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type":
            r.append("input %s is %s" % (vi.name, kind))
            continue
        tt = vi.type.tensor_type
        if tt.elem_type not in AICF_DTYPES:
            r.append("input %s of type %s" % (vi.name, dtype_name(tt.elem_type)))
        if not tt.HasField("shape"):
            r.append("input %s has no shape" % vi.name)
    for i, n in enumerate(g.node):
        if n.domain not in ("", "ai.onnx"):
            r.append("op: node %d domain %s" % (i, n.domain))
        if n.op_type not in ops:
            r.append("op: %s" % n.op_type)
        for a in n.attribute:
            if a.ref_attr_name:
                r.append("attribute reference")
            if a.type == A.GRAPH:
                r.extend(graph_reasons(a.g, ops, depth + 1))
            elif a.type == A.GRAPHS:
                r.append("attribute type GRAPHS in %s" % n.op_type)
            elif a.type in (A.TENSORS, A.SPARSE_TENSOR, A.SPARSE_TENSORS, A.TYPE_PROTO, A.TYPE_PROTOS):
                r.append("attribute type %s" % A.AttributeType.Name(a.type))
            elif a.type == A.TENSOR and a.t.data_type not in AICF_DTYPES:
                r.append("tensor attribute of type %s" % dtype_name(a.t.data_type))
    return r


def parse_one(lines):
    """(summary lines, None) or (None, error) from the output of one model."""
    for line in lines:
        if line.startswith("!error "):
            return None, line[7:]
    return [l for l in lines if l], None


def renamed_copy(model, ops):
    """A copy with every op aicf lacks (or in another domain) renamed to Identity."""
    m = onnx.ModelProto()
    m.CopyFrom(model)

    def rename(g):
        for n in g.node:
            if n.op_type not in ops or n.domain not in ("", "ai.onnx"):
                n.op_type = "Identity"
                n.domain = ""
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    rename(a.g)
    rename(m.graph)
    return m


def run_dump(dump, paths):
    """Runs onnx_dump on a batch of models; returns {path: (lines or None, error or None)}."""
    p = subprocess.run([dump] + paths + ([paths[0]] if len(paths) == 1 else []),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    chunks = {}
    cur = None
    for line in p.stdout.decode("utf-8", "replace").split("\n"):
        if line.startswith("== ") and line[3:] in paths:
            cur = line[3:]
            chunks[cur] = []
        elif cur is not None:
            chunks[cur].append(line)
    if p.returncode == 0 and all(pth in chunks for pth in paths):
        return {pth: parse_one(chunks[pth]) for pth in paths}
    # a crash mid-batch: run each model alone to find the one at fault
    res = {}
    for pth in paths:
        q = subprocess.run([dump, pth], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        if q.returncode in (0, 1, 2):
            res[pth] = parse_one(q.stdout.decode("utf-8", "replace").split("\n"))
            if q.returncode != 0 and res[pth][1] is None:
                res[pth] = (None, "onnx_dump exited with %d: %s" % (q.returncode, q.stderr.decode()[-300:]))
        else:
            res[pth] = (None, "onnx_dump crashed (exit %d): %s" % (
                q.returncode, q.stderr.decode("utf-8", "replace")[-500:]))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", default=os.environ.get("AICF_ONNX_DUMP", os.path.join(ROOT, "build", "onnx_dump")))
    ap.add_argument("--verbose", "-v", action="store_true", help="print the diff of every failure in full")
    ap.add_argument("--only", default=None, help="only models whose path contains this")
    args = ap.parse_args()

    data = os.environ.get("AICF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data"))
    data = os.path.abspath(data)
    if not os.path.isdir(data):
        print("onnx_crosscheck: test data not found at %s (set AICF_TEST_DATA); nothing checked" % data)
        return 1
    if not os.path.exists(args.dump):
        print("onnx_crosscheck: %s does not exist (build tests/onnx_dump.c first, or pass --dump)" % args.dump)
        return 1

    models = []
    mdir = os.path.join(data, "models")
    for dp, dn, fn in os.walk(mdir):
        dn.sort()
        for f in sorted(fn):
            if f.endswith(".onnx"):
                models.append(os.path.join(dp, f))
    tarball = os.path.join(data, "onnx-node-1.23.1.tar.gz")
    node_dir = os.path.join(ROOT, "build", "onnx-node")
    if os.path.exists(tarball):
        if not os.path.isdir(os.path.join(node_dir, "node")):
            os.makedirs(node_dir, exist_ok=True)
            with tarfile.open(tarball) as tf:
                try:
                    tf.extractall(node_dir, filter="data")
                except TypeError:
                    tf.extractall(node_dir)
        for dp, dn, fn in os.walk(node_dir):
            dn.sort()
            if "model.onnx" in fn:
                models.append(os.path.join(dp, "model.onnx"))
    else:
        print("onnx_crosscheck: %s not found: node tests not checked" % tarball)
    if args.only:
        models = [m for m in models if args.only in m]
    ops = aicf_ops()

    npass = nfail = nskip = 0
    n_renamed = 0
    # a folder of this run's own: concurrent runs (several engineers, one build tree) must not
    # remove each other's renamed copies
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    tmpdir = tempfile.mkdtemp(prefix="onnx-crosscheck-", dir=os.path.join(ROOT, "build"))
    batch = 100

    def compare(rel, model, lines, tag=""):
        try:
            want = summary(model)
        except Exception as e:  # noqa: BLE001
            return "summary from onnx failed%s: %s" % (tag, e)
        if want == lines:
            return None
        diff = list(difflib.unified_diff(want, lines, "onnx", "aicf", lineterm="", n=1))
        return "summaries differ%s\n" % tag + "\n".join("    " + d for d in (diff if args.verbose else diff[:12]))

    for b0 in range(0, len(models), batch):
        paths = models[b0:b0 + batch]
        got = run_dump(args.dump, paths)
        loaded = {}
        verdict = {}
        renamed = {}
        for k, pth in enumerate(paths):
            try:
                model = onnx.load(pth)
                reasons = unsupported_reasons(model, ops)
            except Exception as e:  # noqa: BLE001
                verdict[pth] = ("FAIL", "the onnx package cannot load it: %s" % e)
                continue
            loaded[pth] = model
            lines, err = got[pth]
            if err is not None:
                if err.startswith("AICF_ERROR_UNSUPPORTED:"):
                    if reasons:
                        verdict[pth] = ("SKIP", err[len("AICF_ERROR_UNSUPPORTED: "):])
                        if all(x.startswith("op: ") for x in reasons):
                            rp = os.path.join(tmpdir, "m%d.onnx" % k)
                            onnx.save(renamed_copy(model, ops), rp)
                            renamed[pth] = rp
                    else:
                        verdict[pth] = ("FAIL", "aicf says unsupported but no reason is known: %s" % err)
                else:
                    verdict[pth] = ("FAIL", err)
                continue
            if reasons:
                verdict[pth] = ("FAIL", "aicf loaded it although: %s" % "; ".join(reasons[:3]))
                continue
            e = compare(pth, model, lines)
            verdict[pth] = ("FAIL", e) if e else ("PASS", "%d nodes" % len(model.graph.node))
        # models skipped only for their op types: cross-check the parser with those ops renamed
        if renamed:
            got2 = run_dump(args.dump, list(renamed.values()))
            for pth, rp in renamed.items():
                lines, err = got2[rp]
                n_renamed += 1
                if err is not None:
                    if err.startswith("AICF_ERROR_UNSUPPORTED:"):
                        verdict[pth] = ("SKIP", verdict[pth][1] + "; with ops renamed: " + err[24:])
                    else:
                        verdict[pth] = ("FAIL", "with unknown ops renamed to Identity: %s" % err)
                else:
                    e = compare(pth, onnx.load(rp), lines, " (unknown ops renamed to Identity)")
                    if e:
                        verdict[pth] = ("FAIL", e)
                    else:
                        verdict[pth] = ("SKIP", verdict[pth][1] + " (parser cross-checked with it renamed: ok)")
                os.remove(rp)
        for pth in paths:
            rel = os.path.relpath(pth, data) if pth.startswith(data) else os.path.relpath(pth, ROOT)
            v, why = verdict[pth]
            print("%s %s: %s" % (v, rel, why))
            if v == "PASS":
                npass += 1
            elif v == "SKIP":
                nskip += 1
            else:
                nfail += 1
        sys.stdout.flush()
    try:
        os.rmdir(tmpdir)
    except OSError:
        pass
    print("%d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
