#!/usr/bin/env python3
"""Turns bench/run.sh's JSON lines into Markdown tables, with the targets of
../shared/docs/workloads.md marked met / not met.

    python3 bench/table.py --peers peers.jsonl [--models models.jsonl] [--gemm gemm.jsonl]
                           [--plan plan.jsonl] [--meta meta.json] [--gpu gpu.txt] [--out table.md]

peers.jsonl   one object per workload from peers.py --aicf (eager_us, cudagraph_us,
              inductor_cg_us, aicf_median_us, aicf_relerr, aicf_nodes, ...)
models.jsonl  one `aicf bench --json` object per model and precision (or {"error": ...})
gemm.jsonl    one bench/gemm_direct --json object per size and precision
plan.jsonl    one `aicf bench --json` object per plan creation of light_resnet50 (a fresh process
              each: plan_ms and its phases)
--variants DIR  the same run's per-workload variants (DIR/autotune.jsonl, persistent.jsonl, gelu_tanh.jsonl,
              pdl.jsonl, staged.jsonl: `aicf bench --json` lines with a "workload" key) beside
              the default plan's time from peers.jsonl
Missing or empty files leave their section out. Standard library only.
"""
import argparse
import json
import math
import os
import sys

# aicf / best peer, from workloads.md
RATIO_TARGET = {"mlp_b1": 0.30, "mlp_b256": 0.30, "enc_b1_s128": 0.30, "resnet18_b1": 0.30,
                "enc_b32_s128": 0.40, "resnet18_b32": 0.40}
RELERR_TARGET = 1e-2   # against the float32 reference, fp16 policy
HOST_TARGET_US = 3.0   # host time per aicf_exec_launch
GEMM_TARGET = 0.97     # aicf throughput / the direct cuBLASLt call
PLAN_TARGET_MS = 200.0 # plan creation of light_resnet50 without autotuning
PEERS = (("eager_us", "eager"), ("cudagraph_us", "cudagraph"), ("inductor_cg_us", "inductor+cg"))


def read_jsonl(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as ex:
                rows.append({"error": f"{path}:{n}: unreadable JSON line ({ex})"})
    return rows


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def us(v, digits=1):
    return f"{v:.{digits}f}" if num(v) else "-"


def oneline(s, n):
    """s on one line, at most n characters (for a Markdown cell or list item)."""
    s = " ".join(str(s).split()).replace("|", "/")
    return s if len(s) <= n else s[:n - 1] + "…"


def mark(ok):
    return "met" if ok else "**not met**"


def peers_table(rows):
    out = ["## Side by side with PyTorch (peers.py, median µs per call, CUDA events, fp16)", "",
           "| workload | eager | cudagraph | inductor+cg | aicf | aicf/best | target | aicf rel err "
           "| met | aicf wall | aicf host | graph nodes (kernels) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for r in rows:
        w = r.get("workload", "?")
        peers = {k: r[k] for k, _ in PEERS if num(r.get(k))}
        best = min(peers.values()) if peers else None
        a = r.get("aicf_median_us")
        ratio = a / best if num(a) and best else None
        tgt = RATIO_TARGET.get(w)
        rel = r.get("aicf_relerr")
        if "aicf_error" in r:
            met = "error"
        elif ratio is None or tgt is None:
            met = "-"
        else:
            ok_ratio = ratio <= tgt
            ok_rel = num(rel) and rel <= RELERR_TARGET
            met = mark(ok_ratio and ok_rel)
            if not ok_rel:
                met += " (rel err)"
            elif not ok_ratio:
                met += " (speed)"
            verdicts.append((w, ok_ratio and ok_rel))
        nodes = r.get("aicf_nodes")
        knodes = r.get("aicf_kernel_nodes")
        nodes_s = f"{nodes} ({knodes})" if num(nodes) else "-"
        rel_s = f"{rel:.1e}" if num(rel) else (oneline(rel, 40) if rel is not None else "-")
        out.append(f"| {w} | {us(r.get('eager_us'))} | {us(r.get('cudagraph_us'))} | {us(r.get('inductor_cg_us'))} "
                   f"| {us(a)} | {us(ratio, 2)} | {'≤ %.2f' % tgt if tgt else '-'} | {rel_s} | {met} "
                   f"| {us(r.get('aicf_wall_median_us'))} | {us(r.get('aicf_host_us'), 2)} | {nodes_s} |")
    errs = [(r.get("workload", "?"), r["aicf_error"]) for r in rows if "aicf_error" in r]
    if errs:
        out += ["", "aicf errors:", ""] + [f"- {w}: `{oneline(e, 200)}`" for w, e in errs]
    out += ["", "aicf = median GPU time of a replay from CUDA events (as the peers); aicf wall = launch + "
            "wait on the host clock; aicf host = host time of one aicf_exec_launch; best = the fastest peer "
            "measured. Target: aicf/best at or under the ratio and rel err ≤ 1e-2."]
    n_met = sum(ok for _, ok in verdicts)
    out += ["", f"Workload targets met: {n_met} of {len(verdicts)}."]
    return out


def host_lines(peer_rows, model_rows):
    vals = [(r.get("workload", "?"), r["aicf_host_us"]) for r in peer_rows if num(r.get("aicf_host_us"))]
    vals += [(f"{os.path.basename(os.path.dirname(r.get('model', '')))} {r.get('precision', '')}", r["host_us"])
             for r in model_rows if r.get("backend") == "cuda" and num(r.get("host_us"))]
    if not vals:
        return []
    worst = max(vals, key=lambda x: x[1])
    n_ok = sum(v <= HOST_TARGET_US for _, v in vals)
    return ["## Host time per launch", "",
            f"Target ≤ {HOST_TARGET_US:.0f} µs per aicf_exec_launch (median, primary context current): "
            f"{n_ok} of {len(vals)} runs meet it ({mark(n_ok == len(vals))}); largest {worst[1]:.2f} µs ({worst[0]}), "
            f"median over runs {sorted(v for _, v in vals)[len(vals) // 2]:.2f} µs."]


def models_table(rows):
    out = ["## The repository's model set (build/aicf bench, batch 1)", "",
           "| model | precision | median µs (events) | p99 µs | wall median µs | host µs | host µs, ctx push/pop "
           "| graph nodes (kernels) | steps | plan ms |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        name = os.path.basename(os.path.dirname(r.get("model", ""))) or r.get("model", "?")
        if "error" in r:
            out.append(f"| {name} | {r.get('precision', '')} | error: `{oneline(r['error'], 150)}` | | | | | | | |")
            continue
        out.append(f"| {name} | {r.get('precision')} | {us(r.get('median_us'))} | {us(r.get('p99_us'))} "
                   f"| {us(r.get('wall_median_us'))} | {us(r.get('host_us'), 2)} | {us(r.get('wall_host_us'), 2)} "
                   f"| {r.get('nodes')} ({r.get('kernel_nodes')}) | {r.get('steps')} | {us(r.get('plan_ms'))} |")
    return out


def gemm_table(rows):
    out = ["## Large GEMMs: aicf against the same cuBLASLt call made directly (bench/gemm_direct)", "",
           "| GEMM | precision | aicf µs | direct µs | aicf TFLOP/s | direct TFLOP/s | direct/aicf | target "
           "| outputs | graph nodes (kernels) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| error: `{oneline(r['error'], 150)}` | | | | | | | | | |")
            continue
        one = r.get("one_gemm")
        ratio = r.get("ratio")
        if one:
            tgt = f"≥ {GEMM_TARGET:.2f}: {mark(num(ratio) and ratio >= GEMM_TARGET)}"
        else:
            tgt = "- (graph holds the boundary casts)"
        outs = "identical" if r.get("identical") else f"max diff {r.get('max_abs_diff')}"
        if r.get("nan"):
            outs += f", {r['nan']} NaN"
        out.append(f"| {r.get('gemm')} | {r.get('precision')} | {us(r.get('aicf_us'))} | {us(r.get('direct_us'))} "
                   f"| {us(r.get('aicf_tflops'))} | {us(r.get('direct_tflops'))} | {us(ratio, 4)} | {tgt} | {outs} "
                   f"| {r.get('graph_nodes')} ({r.get('kernel_nodes')}) |")
    return out


def plan_table(rows):
    """Plan creation of light_resnet50 (no autotuning), every run and its phases; the target is
    met when every run is within it."""
    out = ["## Plan creation: onnx_light/light_resnet50, no autotuning, a fresh process each (target ≤ "
           f"{PLAN_TARGET_MS:.0f} ms)", "",
           "| precision | plan ms (model load + aicf_plan_create) | folding ms | scratch + memory + kernel choice ms "
           "| cuBLASLt queries (ms) | cuBLASLt setup on the helper thread ms (waited) | CUDA init before it ms | target |",
           "|---|---|---|---|---|---|---|---|"]
    for prec in ("fp32", "tf32", "fp16"):
        rs = [r for r in rows if r.get("precision") == prec and num(r.get("plan_ms"))]
        if not rs:
            continue
        ms = [r["plan_ms"] for r in rs]
        cell = lambda k: " / ".join(us(r.get(k), 1) for r in rs)
        q = " / ".join(f"{r.get('plan_lt_queries', '?')} ({us(r.get('plan_lt_ms'), 1)})" for r in rs)
        su = " / ".join(f"{us(r.get('plan_lt_setup_ms'), 1)} ({us(r.get('plan_lt_setup_wait_ms'), 1)})" for r in rs)
        out.append(f"| {prec} | {' / '.join(us(v, 1) for v in ms)} | {cell('plan_fold_ms')} | {cell('plan_select_ms')} "
                   f"| {q} | {su} | {cell('device_init_ms')} | ≤ {PLAN_TARGET_MS:.0f}: {mark(max(ms) <= PLAN_TARGET_MS)} |")
    return out if len(out) > 4 else []


VARIANTS = (("autotune", "autotune", "policy autotune = 1 (kernel choices timed at plan creation; plan ms includes the timing)"),
            ("persistent", "persistent", "policy persistent = 1 (batch-1 Linear layers in one launch)"),
            ("pdl", "PDL", "AICF_EXEC_PDL (programmatic dependent launch)"),
            ("gelu_tanh", "gelu_tanh", "policy gelu_tanh = 1 (enc: the erf-form Gelus in their tanh form inside cuBLASLt's GEMMs, "
             "at most 4.7e-4 apart)"),
            ("staged", "host I/O", "inputs and outputs staged through pinned host memory by the graph"))


def variants_table(peers, vdir):
    """aicf's median per workload under each variant of the same run, beside the default plan's."""
    base = {r.get("workload"): r for r in peers if r.get("workload")}
    cols = []
    for file, head, what in VARIANTS:
        rows = {r.get("workload"): r for r in read_jsonl(os.path.join(vdir, file + ".jsonl")) if r.get("workload")}
        if rows:
            cols.append((head, what, rows))
    if not cols or not base:
        return []
    out = ["## Variants of the plan (same run, median µs per call, fp16)", "",
           "| workload | default | " + " | ".join(f"{h}" for h, _, _ in cols) + " |",
           "|---|---|" + "---|" * len(cols)]
    for wl, b in base.items():
        cells = []
        for head, _, rows in cols:
            r = rows.get(wl, {})
            v = r.get("median_us")
            cell = us(v, 2)
            if head == "autotune" and num(r.get("plan_ms")):
                cell += f" (plan {r['plan_ms']:.0f} ms)"
            cells.append(cell)
        out.append(f"| {wl} | {us(b.get('aicf_median_us'), 2)} | " + " | ".join(cells) + " |")
    out += [""] + [f"- {h}: {w}" for h, w, _ in cols]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers")
    ap.add_argument("--models")
    ap.add_argument("--gemm")
    ap.add_argument("--plan")
    ap.add_argument("--meta")
    ap.add_argument("--gpu")
    ap.add_argument("--out")
    ap.add_argument("--variants")
    a = ap.parse_args()
    peers, models, gemm, plan = read_jsonl(a.peers), read_jsonl(a.models), read_jsonl(a.gemm), read_jsonl(a.plan)
    lines = ["# aicf benchmark", ""]
    if a.meta and os.path.exists(a.meta):
        try:
            m = json.load(open(a.meta))
            lines += [f"Run {m.get('date')}, commit {m.get('commit')} ({m.get('dirty_files')} files changed), "
                      f"{m.get('iters')} timed calls each" + (", torch.compile skipped" if m.get("no_compile") else "") + "."]
        except ValueError:
            pass
    if a.gpu and os.path.exists(a.gpu):
        lines += ["", "```"] + open(a.gpu).read().strip().splitlines() + ["```"]
    for rows, fn in ((peers, peers_table), (models, models_table), (gemm, gemm_table), (plan, plan_table)):
        if rows:
            lines += [""] + fn(rows)
    if a.variants and peers:
        v = variants_table(peers, a.variants)
        if v:
            lines += [""] + v
    h = host_lines(peers, models)
    if h:
        lines += [""] + h
    if not (peers or models or gemm or plan):
        lines += ["No results (every input file missing or empty)."]
    text = "\n".join(lines) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
