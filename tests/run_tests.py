#!/usr/bin/env python3
"""aicf test runner: runs a suite and ends with the line `N passed, N failed`.

    tests/run_tests.py --suite cpu          CPU suite (CI): unit tests, codegen, ONNX reader
                                            cross-check, models and ONNX node tests on the CPU,
                                            then `make fuzz-replay` (fuzz corpora + regressions,
                                            ASan+UBSan) and `make test-asan` (unit + node tests
                                            built with ASan+UBSan) and `make test-tsan` (threads
                                            under ThreadSanitizer), counted like the others;
                                            AICF_TEST_HARDENING=0 leaves those three out (skipped)
    tests/run_tests.py --suite gpu          GPU suite: kernels vs CPU reference, models and node
                                            tests on CUDA at fp32 / tf32 / fp16, replay determinism
    tests/run_tests.py --suite conformance  ONNX node tests only, with the per-op report

Test data: $AICF_TEST_DATA (default ../shared/data from the repository root). When it is missing
the data-driven tests are reported as skipped, loudly, never as passed.
"""
import argparse, glob, json, os, re, subprocess, sys, tarfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--suite", choices=["cpu", "gpu", "conformance"], default="cpu")
ap.add_argument("--build", default="build")
ap.add_argument("--filter", default="")
ap.add_argument("--verbose", "-v", action="store_true")
args = ap.parse_args()
B = os.path.join(ROOT, args.build) if not os.path.isabs(args.build) else args.build
DATA = os.environ.get("AICF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data"))
MODELS = os.path.join(DATA, "models")

totals = {"passed": 0, "failed": 0, "skipped": 0}
failures = []
TAIL = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?")


def record(name, status, detail=""):
    totals[status] += 1
    if status == "failed":
        failures.append(name)
    if status != "passed" or args.verbose:
        print(f"  {status.upper():7s} {name}" + (f"  -- {detail}" if detail else ""), flush=True)


def run(cmd, timeout=1800, env=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
        out = p.stdout + p.stderr
        return p.returncode, out, time.time() - t0
    except subprocess.TimeoutExpired as ex:
        return 124, f"timeout after {timeout}s\n{ex.stdout or ''}", time.time() - t0


def run_counted(name, cmd, timeout=1800, env=None):
    """Runs a program that prints its own `N passed, N failed[, N skipped]` line; adds its counts."""
    if args.filter and args.filter not in name:
        return
    rc, out, dt = run(cmd, timeout, env)
    m = None
    for line in out.splitlines():
        mm = TAIL.search(line)
        if mm:
            m = mm
    if m is None:
        print(out[-3000:])
        record(name, "failed", f"no result line (exit {rc})")
        return
    p, f, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    totals["passed"] += p
    totals["failed"] += f
    totals["skipped"] += s
    if f or rc != 0:
        print(out[-6000:])
        fails = [ln for ln in out.splitlines() if ln.startswith("FAIL") or ln.startswith("seed") or " seed " in ln[:40]]
        if fails:  # the failing checks themselves, wherever they stand in the output
            print("\n".join(fails[:60]))
        if not f:
            totals["failed"] += 1
        failures.append(name)
    print(f"{name}: {p} passed, {f} failed" + (f", {s} skipped" if s else "") + f"  ({dt:.1f}s)", flush=True)
    if args.verbose:
        print(out)


def pb_shape(path):
    import onnx
    t = onnx.load_tensor(path)
    return t.name, list(t.dims)


def dims_for(model, dataset):
    """Binds the model's symbolic input dims from the data set's input shapes."""
    import onnx
    m = onnx.load(model, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    binds = {}
    for k, inp in enumerate(inputs):
        f = os.path.join(dataset, f"input_{k}.pb")
        if not os.path.exists(f):
            continue
        _, shape = pb_shape(f)
        for d, v in zip(inp.type.tensor_type.shape.dim, shape):
            if d.dim_param:
                binds[d.dim_param] = v
    out = []
    for k, v in sorted(binds.items()):
        out += ["--dim", f"{k}={v}"]
    return out


def binds_for(model, dataset):
    """--bind NAME=FILE.pb for the data set's integer and bool inputs (what `aicf run --check`
    binds: inputs that steer shapes or an If)."""
    import onnx
    m = onnx.load(model, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    floats = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}
    out = []
    for k, inp in enumerate(inputs):
        f = os.path.join(dataset, f"input_{k}.pb")
        if os.path.exists(f) and inp.type.tensor_type.elem_type not in floats:
            out += ["--bind", f"{inp.name}={f}"]
    return out


# (model folder, must pass in this scope); models beyond the supported op set report
# their unsupported op as a skip, never as a pass
MODEL_SETS = [("mnist", True), ("mlp_policy", True), ("encoder_tiny", False), ("mobilenet_v3_small", False),
              ("ppocr_cls", False), ("silero_vad_op18_ifless", False)]


def fp16_out_of_range(model, input_args):
    """Asks `aicf range` (CPU reference) whether this input's activations fit float16 storage;
    returns the reason when they do not (then a float16 mismatch is a property of the data)."""
    import json
    rc, out, _ = run([os.path.join(B, "aicf"), "range", model, "--json"] + input_args, 600)
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            if not r["float16"]:
                return (f"activations outside float16's range on this input (CPU reference: largest |x| "
                        f"{r['largest']:.3g} in '{r['largest_tensor']}', smallest per-tensor max |x| "
                        f"{r['smallest_max']:.3g} in '{r['smallest_max_tensor']}')")
    return None


def model_tests(backend, precisions):
    aicf = os.path.join(B, "aicf")
    if not os.path.isdir(MODELS):
        print(f"test data not found at {DATA} (set AICF_TEST_DATA): model tests SKIPPED")
        totals["skipped"] += 1
        return
    for prec in precisions:
        for name, required in MODEL_SETS:
            model = os.path.join(MODELS, name, "model.onnx")
            for ds in sorted(glob.glob(os.path.join(MODELS, name, "test_data_set_*"))):
                tname = f"model {name}/{os.path.basename(ds)} {backend} {prec}"
                if args.filter and args.filter not in tname:
                    continue
                cmd = [aicf, "run", model, "--backend", backend, "--precision", prec, "--check", ds] + dims_for(model, ds)
                # silero's expected 'output' (a scalar near 0.0012) came from ONNX Runtime's float32 Sigmoid,
                # measured 3.8e-5 away from a float64 evaluation (aicf: 1.1e-6); tests/test_if.c checks it
                # against the float64 values at 1e-5
                if name.startswith("silero") and prec == "fp32":
                    cmd += ["--tol", "5e-5"]
                rc, out, dt = run(cmd, 600)
                errs = re.findall(r"rel err ([0-9.e+-]+)", out)
                detail = f"rel err {max(float(e) for e in errs):.2e}" if errs else out.strip().splitlines()[-1:] 
                if rc == 0:
                    record(tname, "passed")
                    print(f"  ok      {tname}: {detail} ({dt:.1f}s)", flush=True)
                elif not required and "unsupported" in out.lower() and rc == 1:
                    record(tname, "skipped", out.strip().splitlines()[-1][:200])
                elif rc == 2 and prec == "fp16" and fp16_out_of_range(model, ["--check", ds] + dims_for(model, ds)):
                    record(tname, "skipped", fp16_out_of_range(model, ["--check", ds] + dims_for(model, ds)))
                else:
                    record(tname, "failed", out.strip()[-600:])
        for f in sorted(glob.glob(os.path.join(MODELS, "onnx_light", "*.onnx"))):
            base = f[:-5]
            tname = f"model onnx_light/{os.path.basename(base)} {backend} {prec}"
            if args.filter and args.filter not in tname:
                continue
            cmd = [aicf, "run", f, "--backend", backend, "--precision", prec, "--input-arange", "--expect",
                   base + "_output_0.pb"]
            rc, out, dt = run(cmd, 900)
            errs = re.findall(r"rel err ([0-9.e+-]+)", out)
            if rc == 0:
                record(tname, "passed")
                print(f"  ok      {tname}: rel err {max(float(e) for e in errs):.2e} ({dt:.1f}s)", flush=True)
            elif rc == 2 and prec == "fp16" and fp16_out_of_range(f, ["--input-arange"]):
                record(tname, "skipped", fp16_out_of_range(f, ["--input-arange"]))
            else:
                record(tname, "failed", out.strip()[-600:])


def autotune_tests():
    """GPU: the onnx_light models planned with policy.autotune (every Conv / Gemm / MatMul step
    timed under each kernel choice, the fastest kept) against their expected outputs, at fp32
    and fp16; then one tuned plan saved and run again from the file (no timing on load)."""
    import tempfile
    aicf = os.path.join(B, "aicf")
    files = sorted(glob.glob(os.path.join(MODELS, "onnx_light", "*.onnx")))
    if not files:
        print("onnx_light models not found: autotune tests SKIPPED")
        totals["skipped"] += 1
        return
    for prec in ["fp32", "fp16"]:
        for f in files:
            base = f[:-5]
            tname = f"autotune onnx_light/{os.path.basename(base)} cuda {prec}"
            if args.filter and args.filter not in tname:
                continue
            rc, out, dt = run([aicf, "run", f, "--backend", "cuda", "--precision", prec, "--autotune", "--input-arange",
                               "--expect", base + "_output_0.pb"], 900)
            errs = re.findall(r"rel err ([0-9.e+-]+)", out)
            if rc == 0:
                record(tname, "passed")
                print(f"  ok      {tname}: rel err {max(float(e) for e in errs):.2e} ({dt:.1f}s incl. tuning)", flush=True)
            elif rc == 2 and prec == "fp16" and fp16_out_of_range(f, ["--input-arange"]):
                record(tname, "skipped", fp16_out_of_range(f, ["--input-arange"]))
            else:
                record(tname, "failed", out.strip()[-600:])
    # densenet121 at fp16 (light_resnet50's activations leave float16's range on this input):
    # tensor-core convs, Concat views, cuBLASLt
    f = os.path.join(MODELS, "onnx_light", "light_densenet121.onnx")
    tname = "autotune light_densenet121 fp16: plan --save, run --plan"
    if os.path.exists(f) and (not args.filter or args.filter in tname):
        with tempfile.TemporaryDirectory() as td:
            pf = os.path.join(td, "densenet.plan")
            rc1, out1, _ = run([aicf, "plan", f, "--backend", "cuda", "--precision", "fp16", "--autotune", "--save", pf], 900)
            rc2, out2, dt = run([aicf, "run", f, "--plan", pf, "--input-arange", "--expect", f[:-5] + "_output_0.pb"], 900)
            tuned = open(pf).read().count("from=autotune") if os.path.exists(pf) else 0
            if rc1 == 0 and rc2 == 0 and tuned > 0:
                record(tname, "passed")
                print(f"  ok      {tname}: {tuned} steps autotuned, loaded and run ({dt:.1f}s)", flush=True)
            else:
                record(tname, "failed", (out1 + out2).strip()[-600:] + f" ({tuned} tuned steps)")


def memory_tests():
    """The memory plan's target (issue 4): arena <= 1.05 x its lower bound (the largest total of
    tensors alive at one step) on every model of the data set, planned for the CPU and for CUDA at
    fp32 and fp16 (CUDA through the fake driver, build/fakecuda: planning needs no GPU)."""
    aicf = os.path.join(B, "aicf")
    fake = os.path.join(B, "fakecuda")
    if not os.path.isdir(MODELS):
        record("memory plans", "skipped", f"{MODELS} not found")
        return
    cases = []
    for name, _ in MODEL_SETS:
        model = os.path.join(MODELS, name, "model.onnx")
        sets = sorted(glob.glob(os.path.join(MODELS, name, "test_data_set_*")))
        if os.path.exists(model) and sets:
            cases.append((name, model, dims_for(model, sets[0]) + binds_for(model, sets[0])))
    for f in sorted(glob.glob(os.path.join(MODELS, "onnx_light", "*.onnx"))):
        cases.append(("onnx_light/" + os.path.basename(f)[:-5], f, []))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = fake + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    for name, model, dims in cases:
        for backend, prec in (("cpu", "fp32"), ("cuda", "fp32"), ("cuda", "fp16")):
            tname = f"memory plan {name} {backend} {prec}"
            if args.filter and args.filter not in tname:
                continue
            rc, out, dt = run([aicf, "plan", model, "--backend", backend, "--precision", prec] + dims, 600, env=env)
            m = re.search(r"arena: (\d+) bytes \(lower bound (\d+) bytes", out)
            if rc != 0 and "unsupported" in out.lower():
                record(tname, "skipped", out.strip().splitlines()[-1][:200])
            elif rc != 0 or not m:
                record(tname, "failed", out.strip()[-400:])
            elif int(m.group(1)) > 1.05 * int(m.group(2)):
                record(tname, "failed", f"arena {m.group(1)} bytes > 1.05 x lower bound {m.group(2)}")
            else:
                record(tname, "passed")
                print(f"  ok      {tname}: arena {int(m.group(1))} bytes, ratio "
                      f"{int(m.group(1)) / max(1, int(m.group(2))):.3f} ({dt:.1f}s)", flush=True)


def cli_tests(backend):
    """build/aicf bench and profile on mnist: well-formed JSON, one time per plan step, the
    profile's sum consistent with the benchmark's replay time, the outputs still correct."""
    aicf = os.path.join(B, "aicf")
    model = os.path.join(MODELS, "mnist", "model.onnx")
    ds = os.path.join(MODELS, "mnist", "test_data_set_0")
    if not os.path.exists(model):
        record(f"cli {backend}", "skipped", f"{model} not found")
        return
    inp = ["--input", os.path.join(ds, "input_0.pb")]
    name = f"cli profile/bench mnist {backend}"
    if args.filter and args.filter not in name:
        return
    rc1, out1, _ = run([aicf, "profile", model, "--backend", backend, "--iters", "30", "--json"] + inp, 600)
    rc2, out2, _ = run([aicf, "bench", model, "--backend", backend, "--iters", "30", "--json"] + inp, 600)
    rc3, out3, _ = run([aicf, "plan", model, "--backend", backend], 600)
    try:
        prof = json.loads([l for l in out1.splitlines() if l.startswith("{")][-1])
        bench = json.loads([l for l in out2.splitlines() if l.startswith("{")][-1])
        nsteps = len(re.findall(r"^step +\d+ ", out3, re.M))
        us = [st["us"] for st in prof["steps"]]
        problems = []
        if rc1 or rc2 or rc3:
            problems.append(f"exit status profile {rc1}, bench {rc2}, plan {rc3}")
        if len(us) != nsteps or nsteps < 5:
            problems.append(f"{len(us)} step times for {nsteps} plan steps")
        if any(not (u >= 0.0) for u in us) or abs(sum(us) - prof["total_us"]) > 0.01 * len(us) + 0.05:
            problems.append(f"step times {us[:5]}... do not add up to total_us {prof['total_us']}")
        if [st["step"] for st in prof["steps"]] != list(range(len(us))):
            problems.append("steps not numbered 0..n-1")
        if bench["io"] != ("device" if backend == "cuda" else "host"):
            problems.append(f"bench io {bench['io']}")
        # the profile adds an event node per step; its sum must still be of the replay's order
        if not (0.2 * bench["median_us"] <= prof["total_us"] <= 3.0 * bench["median_us"] + 30.0 * len(us)):
            problems.append(f"profile sum {prof['total_us']:.1f} us vs bench median {bench['median_us']:.1f} us")
    except Exception as ex:  # malformed output is a failure, with what was printed
        problems = [f"{ex!r}: {out1[-300:]} {out2[-300:]}"]
    if problems:
        record(name, "failed", "; ".join(problems))
    else:
        record(name, "passed")
        print(f"  ok      {name}: {len(us)} steps, profile sum {prof['total_us']:.1f} us, bench median "
              f"{bench['median_us']:.1f} us ({bench['io']} io)", flush=True)


def bench_table_tests():
    """bench/table.py (the benchmark's report) on made-up results: each target marked met or not
    met as the numbers say (no GPU needed)."""
    import tempfile
    name = "bench table marks"
    if args.filter and args.filter not in name:
        return
    with tempfile.TemporaryDirectory() as td:
        peers = os.path.join(td, "peers.jsonl")
        plan = os.path.join(td, "plan.jsonl")
        with open(peers, "w") as f:
            f.write(json.dumps({"workload": "mlp_b1", "eager_us": 190.0, "cudagraph_us": 25.0, "aicf_median_us": 7.0,
                                "aicf_relerr": 5e-4, "aicf_host_us": 1.9}) + "\n")
            f.write(json.dumps({"workload": "resnet18_b1", "eager_us": 1700.0, "cudagraph_us": 470.0,
                                "aicf_median_us": 226.0, "aicf_relerr": 4e-4, "aicf_host_us": 1.3}) + "\n")
        with open(plan, "w") as f:
            for prec, ms in (("fp32", 130.0), ("fp32", 140.0), ("fp16", 60.0), ("fp16", 201.0)):
                setup = {"plan_lt_setup_ms": 95.0, "plan_lt_setup_wait_ms": 12.0} if prec == "fp32" else {}
                f.write(json.dumps({"plan_model": "light_resnet50", "precision": prec, "plan_ms": ms, "plan_fold_ms": 50.0,
                                    "plan_select_ms": 70.0, "plan_lt_queries": 20, "plan_lt_ms": 69.0,
                                    "device_init_ms": 250.0, **setup}) + "\n")
        with open(os.path.join(td, "gelu_tanh.jsonl"), "w") as f:  # a variant of the same run, beside the default plan
            f.write(json.dumps({"workload": "resnet18_b1", "median_us": 211.5}) + "\n")
        rc, out, _ = run([sys.executable, "bench/table.py", "--peers", peers, "--plan", plan, "--variants", td], 60)
    lines = out.splitlines()
    row = lambda key: next((l for l in lines if l.startswith("| " + key + " ")), "")
    want = [("mlp_b1", "| met |"), ("resnet18_b1", "| **not met** (speed) |"), ("fp32", "≤ 200: met"), ("fp16", "≤ 200: **not met**"),
            ("fp32", "| 95.0 (12.0) / 95.0 (12.0) |"), ("fp16", "| - (-) / - (-) |")]
    bad = [f"{k}: '{row(k)}' lacks '{m}'" for k, m in want if m not in row(k)]
    # the variants' table (after the targets table, whose rows name the same workloads)
    vi = next((i for i, l in enumerate(lines) if l.startswith("## Variants of the plan")), len(lines))
    vrow = lambda key: next((l for l in lines[vi:] if l.startswith("| " + key + " ")), "")
    for k, m in (("workload", "| default | gelu_tanh |"), ("resnet18_b1", "| 226.00 | 211.50 |"), ("mlp_b1", "| 7.00 | - |")):
        if m not in vrow(k):
            bad.append(f"variants {k}: '{vrow(k)}' lacks '{m}'")
    if "- gelu_tanh: policy gelu_tanh = 1" not in out:
        bad.append("no gelu_tanh variant legend")
    if rc != 0 or bad:
        record(name, "failed", f"exit {rc}; " + "; ".join(bad) + " " + out[-300:])
    else:
        record(name, "passed")


def bench_ab_tests():
    """bench/ab.sh (A against B, rounds alternated) on the CPU backend: the same binary twice on
    mnist and mlp_policy gives a time for each side and round and identical outputs; a model that
    cannot be planned is a FAIL with exit status 1 and aicf's message; bad arguments exit 2."""
    import shutil
    import tempfile
    name = "bench ab.sh"
    if args.filter and args.filter not in name:
        return
    aicf = os.path.join(B, "aicf")
    mnist = os.path.join(MODELS, "mnist", "model.onnx")
    mlp = os.path.join(MODELS, "mlp_policy", "model.onnx")
    if not (os.path.exists(mnist) and os.path.exists(mlp)):
        record(name, "skipped", "mnist / mlp_policy not found")
        return
    problems = []
    with tempfile.TemporaryDirectory() as td:
        copy = os.path.join(td, "aicf_b")
        shutil.copy(aicf, copy)
        common = ["bash", "bench/ab.sh", "--rounds", "2", "--iters", "5", "--backend", "cpu", "--precision", "fp32"]
        rc, out, _ = run(common + ["--out", os.path.join(td, "o1"), aicf, copy, mnist, mlp + ":batch=3"], 300)
        rounds = re.findall(r"^round (\d) +(\S+) +A +([0-9.]+) us +B +([0-9.]+) us$", out, re.M)
        if rc != 0 or len(rounds) != 4:
            problems.append(f"exit {rc}, {len(rounds)} of 4 round lines")
        summary = [l for l in out.splitlines() if l.startswith(mnist) or l.startswith(mlp + ":batch=3")]
        if len(summary) != 2 or any(not l.rstrip().endswith("identical") for l in summary):
            problems.append(f"summary lines {summary}")
        rc2, out2, _ = run(common + ["--out", os.path.join(td, "o2"), aicf, copy, mlp], 300)
        if rc2 != 1 or "FAIL" not in out2 or "not bound" not in out2:
            problems.append(f"unbound model: exit {rc2} (want 1), FAIL and aicf's message expected: {out2[-300:]}")
        rc3, out3, _ = run(["bash", "bench/ab.sh", "--rounds", "0", aicf, copy, mnist], 60)
        rc4, out4, _ = run(["bash", "bench/ab.sh", aicf, os.path.join(td, "missing"), mnist], 60)
        if rc3 != 2 or rc4 != 2:
            problems.append(f"bad arguments: exit {rc3}, {rc4} (want 2)")
    if problems:
        record(name, "failed", "; ".join(problems) + " " + out[-300:])
    else:
        record(name, "passed")
        print(f"  ok      {name}: 4 alternated runs, outputs identical; failures and bad arguments reported", flush=True)


def bench_devrun_tests():
    """bench/devrun.sh (the GPU machine's side of bench/devpack.sh) without a GPU: a pack of one
    probe program (xz, as devpack makes it) is unpacked into build/, a cmd job runs it and its
    output comes back in cmd-1.txt, a failing job makes exit 1 with its status in devrun.txt, a
    job over DEVRUN_TIMEOUT is cut and said so; an unknown job exits 2 before anything runs, a
    corrupt pack exits 1 saying so. Also the usage errors of bench/devpack.sh (exit 2, before any
    build) and bench/run.sh --no-build without its binaries (exit 1 naming the missing one)."""
    import io
    import shutil
    import lzma
    import tempfile
    name = "bench devrun.sh"
    if args.filter and args.filter not in name:
        return
    probe = f"devrun_probe_{os.getpid()}"
    dest = os.path.join(ROOT, "build", probe)
    problems = []
    out = ""
    with tempfile.TemporaryDirectory() as td:
        pack = os.path.join(td, "pack")
        os.makedirs(pack)
        body = b"#!/bin/sh\necho probe-ran-$1\n"
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w") as t:
            info = tarfile.TarInfo("./" + probe)
            info.size, info.mode = len(body), 0o755
            t.addfile(info, io.BytesIO(body))
        with open(os.path.join(pack, "bins.tar.xz"), "wb") as f:
            f.write(lzma.compress(raw.getvalue()))
        env = dict(os.environ, DEVDATA=pack, OUT=os.path.join(td, "out"), DEVRUN_TIMEOUT="5")
        try:
            rc, out, _ = run(["bash", "bench/devrun.sh", f"cmd=build/{probe} 42", "cmd=false", "cmd=sleep 30"], 120, env=env)
            log = open(os.path.join(td, "out", "devrun.txt")).read() if os.path.exists(os.path.join(td, "out", "devrun.txt")) else ""
            got = open(os.path.join(td, "out", "cmd-1.txt")).read() if os.path.exists(os.path.join(td, "out", "cmd-1.txt")) else ""
            if rc != 1:
                problems.append(f"exit {rc} (want 1: one job failed)")
            if f"unpacked into build/: {probe}" not in log:
                problems.append("no 'unpacked' line naming the probe")
            if "probe-ran-42" not in got:
                problems.append(f"cmd-1.txt {got!r}")
            if "cmd false: exit 1" not in log or "cmd sleep 30: exit 124 (timed out after 5 s)" not in log:
                problems.append("the failing and the timed-out job's lines")
            if "done: 3 job(s), 2 not exiting 0" not in log:
                problems.append("the summary line")
            rc2, out2, _ = run(["bash", "bench/devrun.sh", "cmd=true", "bogus"], 60, env=env)
            if rc2 != 2 or "unknown job 'bogus'" not in out2:
                problems.append(f"unknown job: exit {rc2} (want 2) {out2[-200:]}")
            with open(os.path.join(pack, "bins.tar.xz"), "wb") as f:
                f.write(b"not xz")
            rc3, out3, _ = run(["bash", "bench/devrun.sh", "cmd=true"], 60, env=env)
            if rc3 != 1 or f"unpacking {pack}/bins.tar.xz failed" not in out3:
                problems.append(f"corrupt pack: exit {rc3} (want 1) {out3[-200:]}")
            # bench/devpack.sh's usage errors, found before it builds anything
            rc4, out4, _ = run(["bash", "bench/devpack.sh", "--bogus"], 60)
            rc5, out5, _ = run(["bash", "bench/devpack.sh", "--base", "no-such-commit-xyz"], 60)
            if rc4 != 2 or "unknown argument '--bogus'" not in out4 or rc5 != 2 or "--base no-such-commit-xyz: no such commit" not in out5:
                problems.append(f"devpack usage: exit {rc4}, {rc5} (want 2, 2) {out4[-150:]} {out5[-150:]}")
            # bench/run.sh --no-build where build/ lacks the binaries: exit 1 naming the first
            # (a copy of the script in a tree of its own, so this build's binaries do not count)
            os.makedirs(os.path.join(td, "tree", "bench"))
            shutil.copy(os.path.join(ROOT, "bench", "run.sh"), os.path.join(td, "tree", "bench", "run.sh"))
            rc6, out6, _ = run(["bash", os.path.join(td, "tree", "bench", "run.sh"), "--no-build"], 60)
            if rc6 != 1 or "--no-build, but build/aicf is missing or not executable" not in out6:
                problems.append(f"run.sh --no-build without binaries: exit {rc6} (want 1) {out6[-200:]}")
        finally:
            if os.path.exists(dest):
                os.remove(dest)
    if problems:
        record(name, "failed", "; ".join(problems) + " " + out[-400:])
    else:
        record(name, "passed")
        print(f"  ok      {name}: a pack unpacked and run, a failing and a timed-out job reported, bad usage exit 2, "
              "a corrupt pack exit 1; devpack.sh's and run.sh --no-build's errors", flush=True)


def node_tests(backend, extra=()):
    tar = os.path.join(DATA, "onnx-node-1.23.1.tar.gz")
    dest = os.path.join(B, "onnx-node")
    if not os.path.exists(tar):
        print(f"{tar} not found: node tests SKIPPED")
        totals["skipped"] += 1
        return
    if not os.path.isdir(os.path.join(dest, "node")):
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(tar) as t:
            t.extractall(dest)
    root = os.path.join(dest, "node") if os.path.isdir(os.path.join(dest, "node")) else dest
    report = os.path.join(B, f"conformance-{backend}.txt")
    run_counted(f"ONNX node tests ({backend})",
                [os.path.join(B, "node_tests"), root, "--backend", backend, "--report", report] + list(extra), 3000)
    print(f"  per-op report: {report}")


def unit_tests(names):
    # the fake driver of this build directory (test_cuda_fake, test_errors, ...), unless given
    env = dict(os.environ)
    env.setdefault("AICF_FAKE_CUDA", os.path.join(B, "fakecuda", "libcuda.so.1"))
    for n in names:
        exe = os.path.join(B, n)
        if not os.path.exists(exe):
            record(n, "failed", "not built")
            continue
        run_counted(n, [exe], env=env)


def hardening():
    """The sanitizer parts of the CPU suite (docs/hardening.md, mk/hardening.mk): each make target
    builds its own ASan+UBSan binaries under BUILD/asan and ends with `N passed, N failed`."""
    names = ["make fuzz-replay (fuzz corpora + regressions, ASan+UBSan)",
             "make test-asan (CPU unit tests + ONNX node tests, ASan+UBSan)",
             "make test-tsan (8 threads on one context, ThreadSanitizer)"]
    if os.environ.get("AICF_TEST_HARDENING", "1") == "0":
        for n in names:
            record(n, "skipped", "AICF_TEST_HARDENING=0")
        return
    make = ["make", "-s", "--no-print-directory", f"B={args.build}"]
    run_counted(names[0], make + ["fuzz-replay"], 3600)
    run_counted(names[1], make + ["test-asan"], 3600)
    run_counted(names[2], make + ["test-tsan"], 1800)


def extract_node_tests():
    """Extracts the ONNX node tests once into build/onnx-node (test_ops reads them too)."""
    tar = os.path.join(DATA, "onnx-node-1.23.1.tar.gz")
    dest = os.path.join(B, "onnx-node")
    if os.path.exists(tar) and not os.path.isdir(os.path.join(dest, "node")):
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(tar) as t:
            t.extractall(dest)


t0 = time.time()
extract_node_tests()
if args.suite == "cpu":
    unit_tests(sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(ROOT, "tests", "test_*.c"))
                      if "gpu" not in os.path.basename(p)))
    # the device lowering of every op case of the GPU suite, planned and built into a CUDA graph on
    # the fake driver (nothing runs; tests/test_gpu_kernels.c --plan-only)
    run_counted("test_gpu_kernels --plan-only (fake driver)",
                [os.path.join(B, "test_gpu_kernels"), "--plan-only", "--driver", os.path.join(B, "fakecuda", "libcuda.so.1")])
    if os.path.exists(os.path.join(ROOT, "tests", "test_codegen.py")):
        run_counted("codegen", [sys.executable, "tests/test_codegen.py"])
    if os.path.exists(os.path.join(ROOT, "tests", "onnx_crosscheck.py")):
        run_counted("ONNX reader cross-check vs the onnx package", [sys.executable, "tests/onnx_crosscheck.py",
                                                                   "--dump", os.path.join(B, "onnx_dump")], 1800)
    model_tests("cpu", ["fp32"])
    memory_tests()
    bench_table_tests()
    bench_ab_tests()
    bench_devrun_tests()
    cli_tests("cpu")
    node_tests("cpu")
    hardening()
elif args.suite == "gpu":
    unit_tests(sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(ROOT, "tests", "test_gpu*.c"))))
    model_tests("cuda", ["fp32", "tf32", "fp16"])
    autotune_tests()
    cli_tests("cuda")
    node_tests("cuda", ["--no-fork"])
else:
    node_tests("cpu")

print(f"\nsuite {args.suite}: {totals['skipped']} skipped (each with its reason above or in the report), "
      f"{time.time() - t0:.0f}s")
if failures:
    print("failed: " + ", ".join(failures[:50]))
print(f"{totals['passed']} passed, {totals['failed']} failed")
sys.exit(1 if totals["failed"] else 0)
