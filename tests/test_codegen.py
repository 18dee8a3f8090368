#!/usr/bin/env python3
"""Tests of the build-time kernel generator (codegen/gen.py, codegen/nvrtc.py, codegen/dist.py).

  python3 tests/test_codegen.py [-k SUBSTRING] [--keep]

Self-contained: the tests write their own template and variant list into a temporary directory
(they do not depend on the contents of templates/ or codegen/variants.py), except
test_repo_variants, which generates the repository's own variant list for sm_80 + compute_90.
Most tests need NVRTC; without it they are reported as skipped, with the reason.
The GPU test runs the generated kernels through the CUDA driver (libcuda via ctypes) when a
device is present, and reports "skipped" with the reason otherwise.
Ends with a line `N passed, N failed`; exit status 1 if any test failed.
"""

import ctypes
import hashlib
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "codegen", "gen.py")
DIST = os.path.join(ROOT, "codegen", "dist.py")
sys.path.insert(0, os.path.join(ROOT, "codegen"))
import nvrtc  # noqa: E402

TESTS = []
TMP = None
SM_ARGS = ["--sm", "80 90", "--ptx", "90"]


class Skip(Exception):
    pass


NVRTC_MISSING = None  # reason, when libnvrtc cannot be loaded (set in main)


def need_nvrtc():
    if NVRTC_MISSING:
        raise Skip("needs NVRTC, which cannot be loaded (see above)")


def test(fn):
    TESTS.append(fn)
    return fn


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def tmpdir(name):
    d = os.path.join(TMP, name)
    os.makedirs(d)
    return d


def run(cmd, env_extra=None, cwd=None):
    env = dict(os.environ)
    if env_extra:
        env.update(env_extra)
    p = subprocess.run(cmd, cwd=cwd or ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def gen(out, cache, variants, templates, extra=None, env_extra=None, sm_args=None):
    cmd = [sys.executable, GEN] + (sm_args or SM_ARGS) + ["--out", out, "--cache", cache,
                                                          "--variants", variants, "--templates", templates]
    return run(cmd + (extra or []), env_extra)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# A test template of our own: out[i] = alpha * x[i] + y[i], f32 or f16 storage, one by-value
# struct parameter (the kernel ABI), half conversions through inline PTX.
T_AXPY = r'''{#- test template -#}
typedef unsigned long long u64;
struct t_args { u64 x, y, out, n; float alpha; unsigned pad; };
{% if dtype == "f16" %}
typedef unsigned short st;
static __device__ __forceinline__ float ld(const st* p, u64 i) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(p[i])); return f; }
static __device__ __forceinline__ void sto(st* p, u64 i, float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); p[i] = h; }
{% else %}
typedef float st;
static __device__ __forceinline__ float ld(const st* p, u64 i) { return p[i]; }
static __device__ __forceinline__ void sto(st* p, u64 i, float f) { p[i] = f; }
{% endif %}
{% for k in aicf_kernels %}
extern "C" __global__ void __launch_bounds__({{ launch_bounds }}) {{ k.name }}(t_args a)
{
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (u64)gridDim.x * blockDim.x)
        sto((st*)a.out, i, a.alpha * ld((const st*)a.x, i) + ld((const st*)a.y, i));
}
{% endfor %}
{% for name in extra_kernels %}
extern "C" __global__ void {{ name }}(t_args a) { }
{% endfor %}
'''

T_VARIANTS = r'''
MODULES = []
for dt in ("f32", "f16"):
    MODULES.append({"name": "t_axpy_" + dt, "template": "t_axpy.cu.j2",
                    "context": {"dtype": dt, "launch_bounds": 256, "extra_kernels": []},
                    "kernels": [{"name": "t_axpy_" + dt, "op": "axpy", "dtype": dt,
                                 "params": {"vec": 1, "fn": "axpy", "fast": False}, "block": 256}]})
'''


def project(name, variants=T_VARIANTS, template=T_AXPY, tname="t_axpy.cu.j2"):
    """A temp directory with templates/<tname> and variants.py; returns (variants, templates)."""
    d = tmpdir(name)
    tdir = os.path.join(d, "templates")
    os.makedirs(tdir)
    with open(os.path.join(tdir, tname), "w") as f:
        f.write(template)
    v = os.path.join(d, "variants.py")
    with open(v, "w") as f:
        f.write(variants)
    return v, tdir


def counts(stdout):
    m = re.search(r"compiled (\d+), cached (\d+)", stdout)
    check(m, "no 'compiled N, cached M' in the output: %r" % stdout)
    return int(m.group(1)), int(m.group(2))


# ---- compiling the generated header --------------------------------------------------------

def kt_types_header(d):
    """Extracts the aicf__kt_* struct definitions from src/30_internal.h into d/kt_types.h."""
    src = read(os.path.join(ROOT, "src", "30_internal.h")).decode("utf-8")
    parts = []
    for name in ("module", "image", "kernel"):
        m = re.search(r"typedef struct aicf__kt_%s \{.*?\} aicf__kt_%s;" % (name, name), src, re.S)
        check(m, "src/30_internal.h has no aicf__kt_%s definition" % name)
        parts.append(m.group(0))
    p = os.path.join(d, "kt_types.h")
    with open(p, "w") as f:
        f.write("#include <stddef.h>\n" + "\n\n".join(parts) + "\n")
    return p


# Dumps the table: prints every entry and writes every image to <dir>/img_<i>.bin. Returns 1 if
# the kernels are not sorted by name or a count does not fit its array.
DUMP_C = r'''
#include <stdio.h>
#include <string.h>
#include "kt_types.h"
#include "aicf_kernels.h"

int main(int argc, char** argv)
{
    int i;
    char path[4096];
    if (argc < 2) return 2;
    if ((int)(sizeof(aicf__kt_modules) / sizeof(aicf__kt_modules[0])) < AICF__KT_NUM_MODULES ||
        (int)(sizeof(aicf__kt_images) / sizeof(aicf__kt_images[0])) < AICF__KT_NUM_IMAGES ||
        (int)(sizeof(aicf__kt_kernels) / sizeof(aicf__kt_kernels[0])) < AICF__KT_NUM_KERNELS)
        return 3;
    printf("nvrtc %s\ntargets %s\nhash %s\n", AICF__KT_NVRTC_VERSION, AICF__KT_TARGETS, AICF__KT_TABLE_HASH);
    for (i = 0; i < AICF__KT_NUM_MODULES; i++)
        printf("module %d %s %s\n", i, aicf__kt_modules[i].name, aicf__kt_modules[i].source_hash);
    for (i = 0; i < AICF__KT_NUM_IMAGES; i++) {
        const aicf__kt_image* im = &aicf__kt_images[i];
        FILE* f;
        printf("image %d %d %d %d %lu\n", i, im->module, im->sm, im->is_ptx, (unsigned long)im->size);
        snprintf(path, sizeof path, "%s/img_%d.bin", argv[1], i);
        f = fopen(path, "wb");
        if (!f || fwrite(im->data, 1, im->size, f) != im->size) return 4;
        fclose(f);
    }
    for (i = 0; i < AICF__KT_NUM_KERNELS; i++) {
        const aicf__kt_kernel* k = &aicf__kt_kernels[i];
        printf("kernel %s %d %s %s [%s] %u\n", k->name, k->module, k->op, k->dtype, k->params, k->block);
        if (i > 0 && strcmp(aicf__kt_kernels[i - 1].name, k->name) >= 0) return 5;
    }
    return 0;
}
'''

COMPILERS = [("gcc", "c", "-std=c99"), ("g++", "c++", "-std=c++17"),
             ("clang", "c", "-std=c99"), ("clang++", "c++", "-std=c++17")]


def compile_and_dump(name, out_dir, compilers=COMPILERS):
    """Compiles DUMP_C against out_dir/aicf_kernels.h with every available compiler
    (-Wall -Wextra -Werror -pedantic), runs the first binary, and returns (stdout, images dir)."""
    d = tmpdir(name)
    kt_types_header(d)
    csrc = os.path.join(d, "dump.c")
    with open(csrc, "w") as f:
        f.write(DUMP_C)
    exe = None
    built = 0
    for cc, lang, std in compilers:
        if not shutil.which(cc):
            continue
        out = os.path.join(d, "dump_" + cc.replace("+", "p"))
        rc, so, se = run([cc, "-x", lang, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", d,
                          "-I", out_dir, csrc, "-o", out])
        check(rc == 0, "%s %s failed on the generated header:\n%s" % (cc, std, se[-4000:]))
        built += 1
        exe = exe or out
    check(built > 0, "no C compiler found")
    imgs = os.path.join(d, "images")
    os.makedirs(imgs)
    rc, so, se = run([exe, imgs])
    check(rc == 0, "the table dump program failed with status %d: %s" % (rc, se))
    return so, imgs


def verify_table_against_manifest(out_dir, name):
    """The C view of the table (compiled and run) must agree with manifest.json, byte for byte."""
    man = json.loads(read(os.path.join(out_dir, "manifest.json")).decode("utf-8"))
    so, imgs = compile_and_dump(name, out_dir)
    lines = so.splitlines()
    check(lines[0] == "nvrtc " + man["nvrtc_version"], "NVRTC version line %r vs manifest %r"
          % (lines[0], man["nvrtc_version"]))
    check(lines[1] == ("targets " + " ".join(man["targets"])).rstrip(), "targets %r vs %r" % (lines[1], man["targets"]))
    check(lines[2] == "hash " + man["table_sha256"], "table hash differs from the manifest")
    mods = [ln.split() for ln in lines if ln.startswith("module ")]
    check(len(mods) == len(man["modules"]), "module count")
    for (_, idx, mname, h), mm in zip(mods, man["modules"]):
        check(mname == mm["name"] and h == mm["source_sha256"], "module %s: name or hash differs" % idx)
    expected_imgs = []
    for mi, mm in enumerate(man["modules"]):
        for im in mm["images"]:
            expected_imgs.append((mi, im))
    imgl = [ln.split() for ln in lines if ln.startswith("image ")]
    check(len(imgl) == len(expected_imgs), "image count %d vs manifest %d" % (len(imgl), len(expected_imgs)))
    for (_, i, mod, sm, is_ptx, size), (mi, im) in zip(imgl, expected_imgs):
        data = read(os.path.join(imgs, "img_%s.bin" % i))
        tgt = ("compute_" if is_ptx == "1" else "sm_") + sm + ("a" if is_ptx == "2" else "")  # 2: sm_XYa (module targets)
        check(int(mod) == mi and tgt == im["target"] and int(size) == im["size"] == len(data),
              "image %s: (%s, %s, %s bytes) vs manifest (%d, %s, %d)" % (i, mod, tgt, size, mi, im["target"], im["size"]))
        check(hashlib.sha256(data).hexdigest() == im["sha256"], "image %s: sha256 differs from the manifest" % i)
        names = set(k["name"] for k in man["modules"][mi]["kernels"])
        if is_ptx == "1":
            check(data.endswith(b"\0") and data.count(b"\0") == 1, "image %s: PTX must end in its only NUL" % i)
            found = set(nvrtc.ptx_entries(data))
        else:
            found = nvrtc.cubin_entries(data)
            check(data[18] == 0xBE, "image %s: ELF machine is not EM_CUDA" % i)
        check(names <= found, "image %s: kernels %s missing" % (i, sorted(names - found)))
    kl = [ln for ln in lines if ln.startswith("kernel ")]
    mk = []
    for mi, mm in enumerate(man["modules"]):
        for k in mm["kernels"]:
            mk.append("kernel %s %d %s %s [%s] %d" % (k["name"], mi, k["op"], k["dtype"], k["params_str"], k["block"]))
    check(kl == sorted(mk, key=lambda s: s.split()[1].encode()), "kernel table differs from the manifest:\n%s\n%s" % (kl, mk))
    return man, imgs


# ---- tests -----------------------------------------------------------------------------------

@test
def test_cached_rebuild_is_identical():
    need_nvrtc()
    v, t = project("p_cache")
    cache = os.path.join(TMP, "cache_a")
    o1, o2 = os.path.join(TMP, "out_a1"), os.path.join(TMP, "out_a2")
    rc, so, se = gen(o1, cache, v, t)
    check(rc == 0, "gen failed: %s" % se)
    check(counts(so) == (6, 0), "first run: expected compiled 6, cached 0: %s" % so)
    rc, so, se = gen(o2, cache, v, t)
    check(rc == 0, "gen failed: %s" % se)
    check(counts(so) == (0, 6), "second run: expected compiled 0, cached 6: %s" % so)
    for f in ("aicf_kernels.h", "manifest.json"):
        check(read(os.path.join(o1, f)) == read(os.path.join(o2, f)), "%s differs between runs" % f)
    # one more target: only the new target compiles
    rc, so, se = gen(o2, cache, v, t, sm_args=["--sm", "80 86 90", "--ptx", "90"])
    check(rc == 0 and counts(so) == (2, 6), "adding sm_86: expected compiled 2, cached 6: %s %s" % (so, se))


@test
def test_uncached_rebuild_is_identical():
    """NVRTC output is deterministic: two fresh caches give byte-identical outputs."""
    need_nvrtc()
    v, t = project("p_det")
    outs = []
    for i in range(2):
        o = os.path.join(TMP, "out_det%d" % i)
        rc, so, se = gen(o, os.path.join(TMP, "cache_det%d" % i), v, t)
        check(rc == 0 and counts(so) == (6, 0), "run %d: %s %s" % (i, so, se))
        outs.append(o)
    for f in ("aicf_kernels.h", "manifest.json"):
        check(read(os.path.join(outs[0], f)) == read(os.path.join(outs[1], f)), "%s differs without cache" % f)
    h = read(os.path.join(outs[0], "aicf_kernels.h")).decode()
    for bad in (TMP, ROOT, os.path.expanduser("~")):
        check(bad not in h and bad not in read(os.path.join(outs[0], "manifest.json")).decode(),
              "an absolute path (%s) leaked into the output" % bad)
    check(re.search(r"20\d\d-\d\d-\d\d", h) is None, "a date leaked into the header")


@test
def test_damaged_cache_entry_recompiled():
    need_nvrtc()
    v, t = project("p_damage")
    c = os.path.join(TMP, "cache_dmg")
    o1, o2 = os.path.join(TMP, "out_dmg1"), os.path.join(TMP, "out_dmg2")
    rc, so, se = gen(o1, c, v, t)
    check(rc == 0, se)
    entries = sorted(f for f in os.listdir(c) if f.endswith(".cubin"))
    with open(os.path.join(c, entries[0]), "wb") as f:
        f.write(b"garbage")
    rc, so, se = gen(o2, c, v, t)
    check(rc == 0 and counts(so) == (1, 5), "a damaged entry must be recompiled: %s %s" % (so, se))
    check(read(os.path.join(o1, "aicf_kernels.h")) == read(os.path.join(o2, "aicf_kernels.h")), "output differs")


@test
def test_warnings_survive_the_cache():
    need_nvrtc()
    warn_t = T_AXPY.replace("{\n    for (u64 i", "{\n    int unused_var_here;\n    for (u64 i")
    check(warn_t != T_AXPY, "test template changed: update this test")
    v, t = project("p_warn", template=warn_t)
    c = os.path.join(TMP, "cache_warn")
    for i in range(2):
        rc, so, se = gen(os.path.join(TMP, "out_warn"), c, v, t)
        check(rc == 0 and "unused_var_here" in se and "warning" in se,
              "run %d: the NVRTC warning is not shown: %r" % (i, se))


@test
def test_unchanged_output_not_rewritten():
    need_nvrtc()
    v, t = project("p_mtime")
    o, c = os.path.join(TMP, "out_mt"), os.path.join(TMP, "cache_mt")
    rc, so, se = gen(o, c, v, t)
    check(rc == 0, se)
    hp = os.path.join(o, "aicf_kernels.h")
    os.utime(hp, (1000000000, 1000000000))
    rc, so, se = gen(o, c, v, t)
    check(rc == 0 and "outputs unchanged" in so, "second run should report outputs unchanged: %s" % so)
    check(int(os.stat(hp).st_mtime) == 1000000000, "unchanged header was rewritten (mtime moved)")


@test
def test_header_compiles_and_matches_manifest():
    need_nvrtc()
    v, t = project("p_cc")
    o = os.path.join(TMP, "out_cc")
    rc, so, se = gen(o, os.path.join(TMP, "cache_cc"), v, t)
    check(rc == 0, se)
    man, _ = verify_table_against_manifest(o, "cc")
    check(man["targets"] == ["sm_80", "sm_90", "compute_90"], "targets %r" % man["targets"])
    k = man["modules"][0]["kernels"][0]
    check(k["params_str"] == "fast=0;fn=axpy;vec=1", "params packing: %r" % k["params_str"])
    h = read(os.path.join(o, "aicf_kernels.h")).decode()
    for opt in ("--use_fast_math", "-use_fast_math", "--ftz=true"):
        check(opt not in h and opt not in json.dumps(man), "fast-math option %s in use" % opt)
    check(man["nvrtc_version"] == nvrtc.Nvrtc().version, "manifest NVRTC version")


@test
def test_pack_u64():
    """--pack u64 stores the same bytes as 64-bit little-endian words; same manifest."""
    need_nvrtc()
    v, t = project("p_u64")
    c = os.path.join(TMP, "cache_u64")
    ob, ow = os.path.join(TMP, "out_u64_bytes"), os.path.join(TMP, "out_u64")
    rc, so, se = gen(ob, c, v, t)
    check(rc == 0, se)
    rc, so, se = gen(ow, c, v, t, extra=["--pack", "u64"])
    check(rc == 0 and counts(so) == (0, 6), "u64 run: %s %s" % (so, se))
    check(read(os.path.join(ob, "manifest.json")) == read(os.path.join(ow, "manifest.json")),
          "the manifest must not depend on --pack")
    check("static const unsigned long long aicf__kt_bin_0[" in read(os.path.join(ow, "aicf_kernels.h")).decode(),
          "--pack u64 did not emit 64-bit words")
    verify_table_against_manifest(ow, "u64")


@test
def test_gelu_f16_fit_exhaustive():
    """The float16 GELU's erfc fit in templates/elementwise_fns.inc.j2, emulated in float32 over
    every finite float16 input (codegen/gelu_fit.py): at most 400 results (0.6%) one unit off the
    correctly rounded GELU, none further; a coefficient perturbed by 1e-4 relative is caught."""
    try:
        import gelu_fit
    except ImportError as e:  # numpy
        raise Skip("codegen/gelu_fit.py needs numpy: %s" % e)
    coef = gelu_fit.template_coefficients()
    check(len(coef) == 6, "expected a degree-5 polynomial in the template, got %d coefficients" % len(coef))
    n, off, worst = gelu_fit.check(coef)
    check(n == 63488, "finite float16 inputs: %d" % n)
    check(off <= 400 and worst <= 1, "%d results off, largest %d units" % (off, worst))
    bad = list(coef)
    bad[4] *= 1.0 + 1e-4
    n, off_bad, worst_bad = gelu_fit.check(bad)
    check(off_bad > 4 * max(off, 8), "a perturbed coefficient went unnoticed: %d off" % off_bad)


@test
def test_empty_table_without_nvrtc():
    v, t = project("p_empty")
    o = os.path.join(TMP, "out_empty")
    env = {"AICF_NVRTC": os.path.join(TMP, "no_such_dir", "libnvrtc.so")}
    rc, so, se = gen(o, os.path.join(TMP, "cache_empty"), v, t, env_extra=env)
    check(rc == 1, "without --allow-no-nvrtc a missing NVRTC must fail (rc %d)" % rc)
    check("libnvrtc could not be loaded" in se and "--allow-no-nvrtc" in se, "unclear error: %s" % se)
    check(not os.path.exists(os.path.join(o, "aicf_kernels.h")), "a header was written despite the error")
    rc, so, se = gen(o, os.path.join(TMP, "cache_empty"), v, t, extra=["--allow-no-nvrtc"], env_extra=env)
    check(rc == 0, "--allow-no-nvrtc failed: %s" % se)
    check("warning" in se and "EMPTY" in se, "no warning on stderr: %r" % se)
    h = read(os.path.join(o, "aicf_kernels.h")).decode()
    for line in ("#define AICF__KT_NUM_KERNELS 0", "#define AICF__KT_NUM_IMAGES 0",
                 "#define AICF__KT_NUM_MODULES 0", '#define AICF__KT_TARGETS ""'):
        check(line in h, "empty header lacks %r" % line)
    so, _ = compile_and_dump("empty", o)
    check(so.splitlines()[1] == "targets " and "kernel " not in so, "dump of the empty table: %r" % so)


@test
def test_missing_kernel_fails_loudly():
    need_nvrtc()
    bad = T_VARIANTS + '\nMODULES[0]["kernels"].append({"name": "t_not_there", "op": "x", "dtype": "f32", "params": {}, "block": 256})\n'
    # the template does not emit it (it emits one function per listed kernel otherwise)
    tmpl = T_AXPY.replace("{% for k in aicf_kernels %}", "{% for k in aicf_kernels if k.name != 't_not_there' %}")
    check(tmpl != T_AXPY, "test template changed: update this test")
    v, t = project("p_missing", variants=bad, template=tmpl)
    o = os.path.join(TMP, "out_missing")
    rc, so, se = gen(o, os.path.join(TMP, "cache_missing"), v, t)
    check(rc == 1, "a variant naming a missing kernel must fail (rc %d)" % rc)
    check("t_not_there" in se and "t_axpy_f32" in se and "not found" in se, "unclear error: %s" % se)
    check(not os.path.exists(os.path.join(o, "aicf_kernels.h")), "a header was written despite the error")
    # also when the binaries come from the cache
    rc, so, se = gen(o, os.path.join(TMP, "cache_missing"), v, t)
    check(rc == 1 and "t_not_there" in se, "cached build accepted a missing kernel: %s" % se)


@test
def test_unlisted_kernel_warns():
    need_nvrtc()
    extra = T_VARIANTS.replace('"extra_kernels": []', '"extra_kernels": ["t_stray"]')
    v, t = project("p_stray", variants=extra)
    rc, so, se = gen(os.path.join(TMP, "out_stray"), os.path.join(TMP, "cache_stray"), v, t)
    check(rc == 0 and "t_stray" in se and "warning" in se, "no warning for an unlisted entry: %s" % se)


@test
def test_compile_error_reports_module_and_log():
    need_nvrtc()
    broken = T_AXPY.replace("a.alpha *", "a.alpha * undefined_thing *")
    v, t = project("p_broken", template=broken)
    rc, so, se = gen(os.path.join(TMP, "out_broken"), os.path.join(TMP, "cache_broken"), v, t)
    check(rc == 1, "compile error must fail")
    check("module 't_axpy_f32'" in se and "undefined_thing" in se and "t_axpy_f32.cu(" in se,
          "error lacks the module name or NVRTC log: %s" % se)
    check(se.count("module 't_axpy_f32'") == 1, "the same log should be printed once per module: %s" % se)


@test
def test_template_errors():
    v, t = project("p_undef", template=T_AXPY.replace("{{ k.name }}", "{{ k.name }}{{ no_such_var }}"))
    rc, so, se = gen(os.path.join(TMP, "out_undef"), os.path.join(TMP, "cache_undef"), v, t)
    check(rc == 1 and "no_such_var" in se and "t_axpy.cu.j2" in se and "module 't_axpy_" in se,
          "undefined template variable not reported clearly: %s" % se)
    v, t = project("p_fail", template='{{ fail("dtype " ~ dtype ~ " not supported") }}')
    rc, so, se = gen(os.path.join(TMP, "out_fail"), os.path.join(TMP, "cache_fail"), v, t)
    check(rc == 1 and "dtype f16 not supported" in se, "fail() not reported: %s" % se)


@test
def test_bad_variants_rejected():
    cases = [
        ('MODULES[1]["kernels"][0]["name"] = "t_axpy_f32"', "already listed"),
        ('MODULES[0]["kernels"][0]["blok"] = 256', "unknown ['blok']"),
        ('MODULES[0]["kernels"][0]["block"] = 0', "block 0"),
        ('MODULES[0]["kernels"][0]["params"]["fn"] = "a;b"', "params['fn']"),
        ('MODULES[0]["template"] = "nope.cu.j2"', "'nope.cu.j2' not found"),
        ('MODULES[1]["name"] = "t_axpy_f32"', "already used"),
        ('MODULES[0]["context"]["aicf_kernels"] = 1', "reserved"),
        ('MODULES = 3', "MODULES must be a list"),
        ('MODULES[0]["targets"] = ["sm_90"]', "architecture-specific cubin targets"),
        ('MODULES[0]["targets"] = []', "architecture-specific cubin targets"),
    ]
    for i, (edit, needle) in enumerate(cases):
        v, t = project("p_bad%d" % i, variants=T_VARIANTS + "\n" + edit + "\n")
        rc, so, se = gen(os.path.join(TMP, "out_bad%d" % i), os.path.join(TMP, "cache_bad"), v, t)
        check(rc == 1 and needle in se, "%s: expected an error containing %r, got rc %d: %s" % (edit, needle, rc, se))
    if NVRTC_MISSING:
        return
    v, t = project("p_badsm")
    rc, so, se = gen(os.path.join(TMP, "out_badsm"), os.path.join(TMP, "cache_bad"), v, t,
                     sm_args=["--sm", "35", "--ptx", ""])
    check(rc == 1 and "sm_35" in se, "an unsupported SM must be refused by name: %s" % se)


@test
def test_launch_bounds_mismatch():
    need_nvrtc()
    v, t = project("p_lb", variants=T_VARIANTS.replace('"launch_bounds": 256', '"launch_bounds": 128'))
    rc, so, se = gen(os.path.join(TMP, "out_lb"), os.path.join(TMP, "cache_lb"), v, t)
    check(rc == 1 and "__launch_bounds__" in se and "block=256" in se, "launch bounds mismatch not caught: %s" % se)


@test
def test_dist():
    d = tmpdir("dist")
    kern = os.path.join(d, "aicf_kernels.h")
    with open(kern, "w") as f:
        f.write("#define AICF__KT_NUM_KERNELS 1\nstatic const int table_marker = 42;\n")
    hdr = os.path.join(d, "aicf.h")
    with open(hdr, "w") as f:
        f.write('/* top */\n#if defined(AICF_IMPLEMENTATION)\n#  include "kernels_gen/aicf_kernels.h" /* table */\n#endif\n')
    out = os.path.join(d, "dist", "aicf.h")
    cmd = [sys.executable, DIST, "--header", hdr, "--kernels", kern, "--out", out]
    rc, so, se = run(cmd)
    check(rc == 0, "dist failed: %s" % se)
    txt = read(out).decode()
    check("table_marker = 42" in txt and '#include "kernels_gen' not in txt, "include not inlined: %r" % txt)
    check(txt.startswith("/* top */\n#if defined(AICF_IMPLEMENTATION)\n") and txt.endswith("#endif\n"),
          "surrounding lines changed: %r" % txt)
    with open(hdr, "w") as f:
        f.write("/* no include here */\n")
    rc, so, se = run(cmd)
    check(rc == 1 and "has no line" in se, "a header without the include line must fail: %s" % se)
    with open(hdr, "w") as f:
        f.write('#include "kernels_gen/aicf_kernels.h"\n# include "kernels_gen/aicf_kernels.h"\n'
                '/* #include "kernels_gen/aicf_kernels.h" is in a comment here */\n')
    rc, so, se = run(cmd)
    check(rc == 1 and "2 times" in se, "a doubled include line must fail: %s" % se)


@test
def test_repo_variants():
    """The repository's own variant list renders, compiles (sm_80 + compute_90) and packs
    deterministically: build/kcache (possibly warm) vs a fresh cache give identical bytes."""
    need_nvrtc()
    v = os.path.join(ROOT, "codegen", "variants.py")
    t = os.path.join(ROOT, "templates")
    args = ["--sm", "80", "--ptx", "90"]
    oa, ob = os.path.join(TMP, "out_repo_a"), os.path.join(TMP, "out_repo_b")
    # --pack u64: the table is large and compiles ~10x faster so (test_pack_u64 checks the form)
    rc, so, se = gen(oa, os.path.join(ROOT, "build", "kcache"), v, t, sm_args=args, extra=["--pack", "u64"])
    check(rc == 0, "the repository's variants fail to generate:\n%s" % se)
    rc, so, se = gen(ob, os.path.join(TMP, "cache_repo"), v, t, sm_args=args, extra=["--pack", "u64"])
    check(rc == 0, "fresh-cache run failed:\n%s" % se)
    for f in ("aicf_kernels.h", "manifest.json"):
        check(read(os.path.join(oa, f)) == read(os.path.join(ob, f)), "repo %s differs between cache and no cache" % f)
    verify_table_against_manifest(oa, "repo")


# ---- GPU: run the generated kernels through the driver ---------------------------------------

class Cuda(object):
    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise Skip("no CUDA driver (libcuda.so.1: %s)" % e)
        L = self.lib
        rc = L.cuInit(0)
        if rc != 0:
            raise Skip("cuInit failed with %d (no usable device)" % rc)
        n = ctypes.c_int()
        self.ok(L.cuDeviceGetCount(ctypes.byref(n)), "cuDeviceGetCount")
        if n.value == 0:
            raise Skip("no CUDA device")
        self.dev = ctypes.c_int()
        self.ok(L.cuDeviceGet(ctypes.byref(self.dev), 0), "cuDeviceGet")
        ma, mi = ctypes.c_int(), ctypes.c_int()
        self.ok(L.cuDeviceGetAttribute(ctypes.byref(ma), 75, self.dev), "cuDeviceGetAttribute")
        self.ok(L.cuDeviceGetAttribute(ctypes.byref(mi), 76, self.dev), "cuDeviceGetAttribute")
        self.cc = (ma.value, mi.value)
        self.ctx = ctypes.c_void_p()
        self.ok(L.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), self.dev), "cuDevicePrimaryCtxRetain")
        self.ok(L.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        L.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        L.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        L.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        L.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        L.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        L.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        L.cuModuleUnload.argtypes = [ctypes.c_void_p]
        L.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p,
                                                                                ctypes.c_void_p, ctypes.c_void_p]

    def ok(self, rc, what):
        if rc != 0:
            raise AssertionError("%s failed with CUDA error %d" % (what, rc))

    def close(self):
        self.lib.cuDevicePrimaryCtxRelease_v2(self.dev)


def pick_image(images, cc):
    """The run-time rule (docs/kernels.md): exact SM cubin, else same major with the highest
    lower minor, else PTX for an SM <= the device's, else None."""
    dev = cc[0] * 10 + cc[1]
    cub = [im for im in images if not im["is_ptx"]]
    for im in cub:
        if im["sm"] == dev:
            return im
    same = sorted([im for im in cub if im["sm"] // 10 == cc[0] and im["sm"] < dev], key=lambda im: im["sm"])
    if same:
        return same[-1]
    ptx = sorted([im for im in images if im["is_ptx"] and im["sm"] <= dev], key=lambda im: im["sm"])
    return ptx[-1] if ptx else None


def f16_round(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def f32_round(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


@test
def test_gpu_kernels_run():
    need_nvrtc()
    cu = Cuda()
    try:
        v, t = project("p_gpu")
        o = os.path.join(TMP, "out_gpu")
        rc, so, se = gen(o, os.path.join(TMP, "cache_gpu"), v, t)
        check(rc == 0, se)
        man, imgs = verify_table_against_manifest(o, "gpu")
        seed = int(time.time() * 1000) & 0xFFFFFFFF
        print("    seed %d, device compute capability %d.%d" % (seed, cu.cc[0], cu.cc[1]))
        rng = random.Random(seed)
        idx = 0
        ran = 0
        for mi, mm in enumerate(man["modules"]):
            images = []
            for im in mm["images"]:
                images.append({"sm": int(im["target"].split("_")[1]), "is_ptx": im["target"].startswith("compute_"),
                               "data": read(os.path.join(imgs, "img_%d.bin" % idx)), "target": im["target"]})
                idx += 1
            chosen = pick_image(images, cu.cc)
            check(chosen is not None, "no image for compute capability %d.%d among %s"
                  % (cu.cc[0], cu.cc[1], [im["target"] for im in images]))
            # the chosen image, and the PTX (JIT) as well
            for im in [chosen] + [x for x in images if x["is_ptx"] and x is not chosen and x["sm"] <= cu.cc[0] * 10 + cu.cc[1]]:
                for k in mm["kernels"]:
                    run_axpy(cu, im, k, rng)
                    ran += 1
        check(ran >= 2, "ran %d kernels" % ran)
    finally:
        cu.close()


@test
def test_gpu_repo_images_load():
    """Every image of the repository's table that this device can use loads through the
    driver, every listed kernel is found in it, and can launch with its declared block size
    (registers and shared memory permitting)."""
    need_nvrtc()
    cu = Cuda()
    try:
        dev = cu.cc[0] * 10 + cu.cc[1]
        o = os.path.join(TMP, "out_repo_gpu")
        rc, so, se = gen(o, os.path.join(ROOT, "build", "kcache"), os.path.join(ROOT, "codegen", "variants.py"),
                         os.path.join(ROOT, "templates"), sm_args=["--sm", str(dev), "--ptx", str(dev)],
                         extra=["--pack", "u64"])
        check(rc == 0, "generation failed:\n%s" % se)
        man, imgs = verify_table_against_manifest(o, "repo_gpu")
        L = cu.lib
        L.cuFuncGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p]
        idx = loaded = kernels = 0
        for mm in man["modules"]:
            for im in mm["images"]:
                data = read(os.path.join(imgs, "img_%d.bin" % idx))
                idx += 1
                if im["target"].endswith("a") and im["target"] != "sm_%da" % dev:
                    continue  # an architecture-specific cubin (sm_90a) loads on its own compute capability only
                mod = ctypes.c_void_p()
                buf = ctypes.create_string_buffer(data, len(data))
                cu.ok(L.cuModuleLoadData(ctypes.byref(mod), buf), "cuModuleLoadData(%s %s)" % (mm["name"], im["target"]))
                loaded += 1
                try:
                    for k in mm["kernels"]:
                        fn = ctypes.c_void_p()
                        cu.ok(L.cuModuleGetFunction(ctypes.byref(fn), mod, k["name"].encode()),
                              "cuModuleGetFunction(%s in %s %s)" % (k["name"], mm["name"], im["target"]))
                        mt = ctypes.c_int()
                        cu.ok(L.cuFuncGetAttribute(ctypes.byref(mt), 0, fn), "cuFuncGetAttribute")
                        check(mt.value >= k["block"], "%s (%s): at most %d threads per block, variant says %d"
                              % (k["name"], im["target"], mt.value, k["block"]))
                        kernels += 1
                finally:
                    L.cuModuleUnload(mod)
        print("    %d images loaded, %d kernels found" % (loaded, kernels))
    finally:
        cu.close()


def run_axpy(cu, im, k, rng):
    L = cu.lib
    mod = ctypes.c_void_p()
    buf = ctypes.create_string_buffer(im["data"], len(im["data"]))
    cu.ok(L.cuModuleLoadData(ctypes.byref(mod), buf), "cuModuleLoadData(%s)" % im["target"])
    try:
        fn = ctypes.c_void_p()
        cu.ok(L.cuModuleGetFunction(ctypes.byref(fn), mod, k["name"].encode()), "cuModuleGetFunction(%s)" % k["name"])
        n = rng.randint(50000, 150000)
        guard = 64
        half = k["dtype"] == "f16"
        fmt, es = ("e", 2) if half else ("f", 4)
        rnd = f16_round if half else f32_round
        xs = [rnd(rng.choice((-1, 1)) * rng.uniform(0.01, 4.0)) for _ in range(n)]
        ys = [rnd(rng.choice((-1, 1)) * rng.uniform(0.01, 4.0)) for _ in range(n)]
        alpha = f32_round(rng.uniform(0.25, 3.0))
        pattern = struct.pack("<" + fmt * guard, *([rnd(-7.5)] * guard))
        bx = struct.pack("<%d%s" % (n, fmt), *xs)
        by = struct.pack("<%d%s" % (n, fmt), *ys)
        ptrs = []
        for _ in range(3):
            p = ctypes.c_uint64()
            cu.ok(L.cuMemAlloc_v2(ctypes.byref(p), (n + guard) * es), "cuMemAlloc")
            ptrs.append(p.value)
        try:
            for p, data in zip(ptrs, (bx, by, b"\0" * (n * es))):
                cu.ok(L.cuMemcpyHtoD_v2(p, data + pattern, len(data) + len(pattern)), "cuMemcpyHtoD")
            args = ctypes.create_string_buffer(struct.pack("<QQQQfI", ptrs[0], ptrs[1], ptrs[2], n, alpha, 0), 40)
            params = (ctypes.c_void_p * 1)(ctypes.cast(args, ctypes.c_void_p))
            grid = 37  # fewer threads than elements: exercises the grid-stride loop
            cu.ok(L.cuLaunchKernel(fn, grid, 1, 1, k["block"], 1, 1, 0, None, params, None), "cuLaunchKernel")
            cu.ok(L.cuCtxSynchronize(), "cuCtxSynchronize")
            got = ctypes.create_string_buffer((n + guard) * es)
            cu.ok(L.cuMemcpyDtoH_v2(got, ptrs[2], (n + guard) * es), "cuMemcpyDtoH")
        finally:
            for p in ptrs:
                L.cuMemFree_v2(p)
        raw = got.raw
        check(raw[n * es:] == pattern, "%s %s: guard bytes after the output were overwritten" % (im["target"], k["name"]))
        out = struct.unpack("<%d%s" % (n, fmt), raw[:n * es])
        worst = 0.0
        for i in range(n):
            ref = rnd(f32_round(alpha * xs[i] + ys[i]))
            g = out[i]
            check(g == g, "%s %s: NaN at %d" % (im["target"], k["name"], i))
            err = abs(g - ref) / max(abs(ref), 1e-3)
            worst = max(worst, err)
            tol = 1e-3 if half else 1e-6
            check(err <= tol, "%s %s: element %d: got %r, expected %r (x %r, y %r, alpha %r)"
                  % (im["target"], k["name"], i, g, ref, xs[i], ys[i], alpha))
        print("    %s %s: n=%d, max rel err %.2e" % (im["target"], k["name"], n, worst))
    finally:
        L.cuModuleUnload(mod)


# ---- runner ----------------------------------------------------------------------------------

def main():
    global TMP
    args = sys.argv[1:]
    keep = "--keep" in args
    flt = None
    if "-k" in args:
        flt = args[args.index("-k") + 1]
    TMP = tempfile.mkdtemp(prefix="aicf_codegen_test_")
    global NVRTC_MISSING
    try:
        nvrtc.Nvrtc()
    except nvrtc.NvrtcNotFound as e:
        NVRTC_MISSING = str(e)
        print("NVRTC not available: the tests that compile are skipped (%s)" % e)
    passed = failed = skipped = 0
    try:
        for fn in TESTS:
            if flt and flt not in fn.__name__:
                continue
            t0 = time.time()
            try:
                fn()
                passed += 1
                print("PASS %s (%.1f s)" % (fn.__name__, time.time() - t0))
            except Skip as e:
                skipped += 1
                print("SKIP %s: %s" % (fn.__name__, e))
            except Exception as e:
                failed += 1
                print("FAIL %s: %s" % (fn.__name__, e))
                if not isinstance(e, AssertionError):
                    traceback.print_exc()
            sys.stdout.flush()
    finally:
        if keep or failed:
            print("temporary files kept in %s" % TMP)
        else:
            shutil.rmtree(TMP, ignore_errors=True)
    if skipped:
        print("%d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
