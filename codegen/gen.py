#!/usr/bin/env python3
"""aicf build-time kernel generator: templates/*.cu.j2 -> NVRTC -> kernels_gen/aicf_kernels.h.

  python3 codegen/gen.py --sm "80 86 89 90" --ptx 90 --out kernels_gen --cache build/kcache
                         [--allow-no-nvrtc] [--jobs N] [--variants codegen/variants.py]
                         [--templates templates]

Reads MODULES from codegen/variants.py (the format is described in docs/kernels.md and checked
by load_variants below), renders each module's template with Jinja2, compiles the source with
NVRTC once per target (a CUBIN per --sm, PTX per --ptx), checks that every kernel the variant
list names is an entry of every image, and writes

  <out>/aicf_kernels.h   the C table that aicf.h includes under its implementation
                         (types in src/30_internal.h, "the generated kernel table")
  <out>/manifest.json    NVRTC version and options, targets, hashes of sources and binaries,
                         per-kernel metadata

Each file is written only when its content changes. Output is deterministic: sorted order,
no timestamps, no absolute paths; two runs give byte-identical files.

Binaries are cached in --cache under sha256(source, options, NVRTC build, target), so a rebuild
with unchanged inputs compiles nothing. The rendered sources are also written there
(<cache>/src/<module>.cu) so NVRTC's error lines can be looked up.

Exit status: 0 on success, 1 on any error (the message names the module, template, target or
kernel at fault), 2 on bad usage.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import runpy
import struct
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import nvrtc  # noqa: E402  (codegen/nvrtc.py)

# NVRTC options common to every target. IEEE-accurate float32 (no --use_fast_math): results
# must match the CPU reference to ~1e-6; FMA contraction is allowed (1 rounding instead of 2).
# No include paths: templates need no headers (halves are converted with inline PTX).
COMMON_OPTIONS = [
    "-std=c++17",
    "-default-device",
    "--fmad=true",
    "--ftz=false",
    "--prec-div=true",
    "--prec-sqrt=true",
]

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PARAM_VALUE = re.compile(r"^[A-Za-z0-9_.+\-]*$")
MODULE_KEYS = ("context", "kernels", "name", "template")
MODULE_OPTIONAL_KEYS = ("targets",)  # architecture-specific cubin targets ("sm_90a"): module_targets
KERNEL_KEYS = ("block", "dtype", "name", "op", "params")
RESERVED_CONTEXT = ("aicf_kernels", "aicf_module")


class GenError(Exception):
    """An error the generator reports and exits on (exit status 1)."""


def warn(msg):
    sys.stderr.write("codegen: warning: %s\n" % msg)


# ---- variants --------------------------------------------------------------------------------

def format_param(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float, str)):
        return str(v) if not isinstance(v, float) else repr(v)
    raise TypeError(type(v).__name__)


def pack_params(params):
    """{"vec": 4, "fn": "relu"} -> "fn=relu;vec=4" (sorted keys)."""
    return ";".join("%s=%s" % (k, format_param(params[k])) for k in sorted(params))


def load_variants(path, templates_dir):
    """Loads and validates MODULES from `path`. Returns a list of normalised module dicts,
    sorted by name. Raises GenError naming the module / kernel / field at fault."""
    try:
        ns = runpy.run_path(path)
    except Exception as e:  # the file is code: report anything it raises
        raise GenError("%s: %s: %s" % (rel(path), type(e).__name__, e))
    if "MODULES" not in ns:
        raise GenError("%s does not define MODULES" % rel(path))
    mods = ns["MODULES"]
    if not isinstance(mods, (list, tuple)):
        raise GenError("%s: MODULES must be a list of dicts" % rel(path))
    out = []
    seen_mod = {}
    seen_kernel = {}
    for mi, m in enumerate(mods):
        where = "%s: MODULES[%d]" % (rel(path), mi)
        if not isinstance(m, dict):
            raise GenError("%s: must be a dict" % where)
        if isinstance(m.get("name"), str):
            where += " '%s'" % m["name"]
        extra = sorted(set(m) - set(MODULE_KEYS) - set(MODULE_OPTIONAL_KEYS))
        missing = sorted(set(MODULE_KEYS) - set(m))
        if extra or missing:
            raise GenError("%s: keys must be exactly %s, optionally %s (missing %s, unknown %s)"
                           % (where, list(MODULE_KEYS), list(MODULE_OPTIONAL_KEYS), missing, extra))
        if "targets" in m and (not isinstance(m["targets"], (list, tuple)) or not m["targets"] or
                               not all(isinstance(t, str) and re.match(r"^sm_\d{2,3}a$", t) for t in m["targets"])):
            raise GenError("%s: targets must be a non-empty list of architecture-specific cubin targets (\"sm_90a\"), not %r"
                           % (where, m["targets"]))
        name = m["name"]
        if not isinstance(name, str) or not IDENT.match(name):
            raise GenError("%s: name %r must be a C identifier" % (where, name))
        if name in seen_mod:
            raise GenError("%s: module name '%s' already used by MODULES[%d]" % (where, name, seen_mod[name]))
        seen_mod[name] = mi
        tmpl = m["template"]
        if not isinstance(tmpl, str) or "/" in tmpl or "\\" in tmpl or not tmpl.endswith(".cu.j2"):
            raise GenError("%s: template %r must be a file name in templates/ ending in .cu.j2" % (where, tmpl))
        if not os.path.isfile(os.path.join(templates_dir, tmpl)):
            raise GenError("%s: template '%s' not found in %s" % (where, tmpl, rel(templates_dir)))
        ctx = m["context"]
        if not isinstance(ctx, dict) or not all(isinstance(k, str) and IDENT.match(k) for k in ctx):
            raise GenError("%s: context must be a dict with identifier keys" % where)
        clash = sorted(set(ctx) & set(RESERVED_CONTEXT))
        if clash:
            raise GenError("%s: context keys %s are reserved (the generator provides them)" % (where, clash))
        kernels = m["kernels"]
        if not isinstance(kernels, (list, tuple)) or not kernels:
            raise GenError("%s: kernels must be a non-empty list" % where)
        norm = []
        for ki, k in enumerate(kernels):
            kwhere = "%s kernels[%d]" % (where, ki)
            if not isinstance(k, dict):
                raise GenError("%s: must be a dict" % kwhere)
            if isinstance(k.get("name"), str):
                kwhere += " '%s'" % k["name"]
            extra = sorted(set(k) - set(KERNEL_KEYS))
            missing = sorted(set(KERNEL_KEYS) - set(k))
            if extra or missing:
                raise GenError("%s: keys must be exactly %s (missing %s, unknown %s)"
                               % (kwhere, list(KERNEL_KEYS), missing, extra))
            kname = k["name"]
            if not isinstance(kname, str) or not IDENT.match(kname):
                raise GenError("%s: name %r must be a C identifier" % (kwhere, kname))
            if kname in seen_kernel:
                raise GenError("%s: kernel name '%s' already listed in module '%s'"
                               % (kwhere, kname, seen_kernel[kname]))
            seen_kernel[kname] = name
            for f in ("op", "dtype"):
                if not isinstance(k[f], str) or not IDENT.match(k[f]):
                    raise GenError("%s: %s %r must be a non-empty identifier string" % (kwhere, f, k[f]))
            params = k["params"]
            if not isinstance(params, dict):
                raise GenError("%s: params must be a dict" % kwhere)
            for pk in sorted(params):
                pv = params[pk]
                if not isinstance(pk, str) or not IDENT.match(pk):
                    raise GenError("%s: params key %r must be an identifier" % (kwhere, pk))
                try:
                    s = format_param(pv)
                except TypeError:
                    raise GenError("%s: params['%s'] has type %s (use int, float, bool or str)"
                                   % (kwhere, pk, type(pv).__name__))
                if not PARAM_VALUE.match(s):
                    raise GenError("%s: params['%s'] = %r may only use [A-Za-z0-9_.+-]" % (kwhere, pk, s))
            block = k["block"]
            if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= 1024:
                raise GenError("%s: block %r must be an int in 1..1024 (threads per block)" % (kwhere, block))
            norm.append({"name": kname, "op": k["op"], "dtype": k["dtype"], "params": dict(params),
                         "params_str": pack_params(params), "block": block})
        nm = {"name": name, "template": tmpl, "context": ctx, "kernels": norm}
        if "targets" in m:
            nm["targets"] = list(m["targets"])
        out.append(nm)
    out.sort(key=lambda m: m["name"])
    return out


def sorted_deep(v):
    """Dicts (at any depth) re-built with sorted keys, so template iteration is sorted."""
    if isinstance(v, dict):
        return dict((k, sorted_deep(v[k])) for k in sorted(v))
    if isinstance(v, (list, tuple)):
        return [sorted_deep(x) for x in v]
    return v


def render_all(modules, templates_dir):
    """Adds m["source"] (the rendered CUDA source) to every module."""
    try:
        import jinja2
    except ImportError:
        raise GenError("Jinja2 is not installed: pip install -r codegen/requirements.txt")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates_dir),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True, autoescape=False)

    def fail(msg):
        """{{ fail("message") }} in a template stops generation with that message."""
        raise jinja2.TemplateRuntimeError(msg)

    env.globals["fail"] = fail
    for m in modules:
        ctx = sorted_deep(m["context"])
        ctx["aicf_module"] = m["name"]
        ctx["aicf_kernels"] = [sorted_deep(dict((k, kk[k]) for k in KERNEL_KEYS)) for kk in m["kernels"]]
        try:
            src = env.get_template(m["template"]).render(**ctx)
        except jinja2.TemplateError as e:
            line = getattr(e, "lineno", None)
            raise GenError("module '%s': rendering template '%s'%s failed: %s: %s"
                           % (m["name"], m["template"], " line %d" % line if line else "",
                              type(e).__name__, e))
        if not src.endswith("\n"):
            src += "\n"
        m["source"] = src
        m["source_sha256"] = hashlib.sha256(src.encode("utf-8")).hexdigest()


# ---- targets and compilation ---------------------------------------------------------------

def parse_sms(text, what):
    sms = []
    for tok in re.split(r"[\s,;]+", (text or "").strip()):
        if not tok:
            continue
        t = tok.lower()
        for pre in ("sm_", "compute_"):
            if t.startswith(pre):
                t = t[len(pre):]
        if not re.match(r"^\d{2,3}$", t):
            raise GenError("%s: '%s' is not an SM number (e.g. 80, 86, 90)" % (what, tok))
        if int(t) not in sms:
            sms.append(int(t))
    return sorted(sms)


def targets_of(sms, ptx):
    """[("sm_80", "cubin", 80), ..., ("compute_90", "ptx", 90)] in table order."""
    return [("sm_%d" % s, "cubin", s) for s in sms] + [("compute_%d" % s, "ptx", s) for s in ptx]


def module_targets(m, targets):
    """The targets module m is compiled for: its own "targets" (architecture-specific cubins such
    as "sm_90a", for kernels that use instructions of one architecture only: wgmma, TMA) or the
    table's. An "sm_XYa" cubin loads on compute capability X.Y only (src/80_cuda.c
    aicf__cuda_choose_image)."""
    own = m.get("targets")
    if not own:
        return targets
    out = []
    for t in own:
        mt = re.match(r"^sm_(\d{2,3})a$", t)
        if not mt:
            raise GenError("module '%s': target '%s' is not an architecture-specific cubin target (sm_XYa)" % (m["name"], t))
        out.append((t, "cubin", int(mt.group(1))))
    return out


def image_kind_code(target, kind):
    """aicf__kt_image.is_ptx: 0 cubin, 1 PTX, 2 architecture-specific cubin (sm_XYa)."""
    return 1 if kind == "ptx" else (2 if target.endswith("a") else 0)


def cache_key(source, options, build, target):
    h = hashlib.sha256()
    h.update(json.dumps({"build": build, "options": options, "source": source, "target": target},
                        sort_keys=True).encode("utf-8"))
    return h.hexdigest()


def write_atomic(path, data):
    tmp = "%s.tmp%d.%d" % (path, os.getpid(), threading.get_ident())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_if_changed(path, data):
    """Writes bytes `data` to `path` unless it already holds exactly them. Returns True if written."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except (IOError, OSError):
        pass
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    write_atomic(path, data)
    return True


def check_image(m, target, kind, data):
    """Every kernel listed for module m must be an entry of the image. Returns a list of error
    strings (empty when fine); unlisted entries give a warning."""
    errs = []
    listed = [k["name"] for k in m["kernels"]]
    try:
        if kind == "ptx":
            if not data.endswith(b"\0"):
                return ["module '%s', %s: PTX is not NUL-terminated" % (m["name"], target)]
            ents = nvrtc.ptx_entries(data)
            found = set(ents)
        else:
            ents = None
            found = nvrtc.cubin_entries(data)
    except ValueError as e:
        return ["module '%s', %s: cannot read the image: %s" % (m["name"], target, e)]
    missing = [n for n in listed if n not in found]
    if missing:
        errs.append("module '%s' (template %s), %s: kernel%s %s listed in the variants but not "
                    "found in the compiled image (entries found: %s). Each kernel must be an "
                    "extern \"C\" __global__ function of the module."
                    % (m["name"], m["template"], target, "s" if len(missing) > 1 else "",
                       ", ".join(missing), ", ".join(sorted(found)) or "none"))
    unlisted = sorted(found - set(listed))
    if unlisted:
        warn("module '%s', %s: entries not listed in the variants (dead weight in the table): %s"
             % (m["name"], target, ", ".join(unlisted)))
    if ents:
        for k in m["kernels"]:
            nt = ents.get(k["name"])
            if nt is not None:
                threads = 1
                for d in nt:
                    threads *= d
                if threads != k["block"]:
                    errs.append("module '%s', kernel '%s': __launch_bounds__ gives %s threads per block "
                                "but the variant says block=%d" % (m["name"], k["name"],
                                                                   "x".join(map(str, nt)), k["block"]))
    return errs


def compile_all(modules, targets, nv, build, cache_dir, jobs):
    """Fills m["images"] = [{target, kind, sm, data}] for every module. Returns (compiled, cached)."""
    src_dir = os.path.join(cache_dir, "src")
    os.makedirs(src_dir, exist_ok=True)
    for m in modules:
        write_if_changed(os.path.join(src_dir, m["name"] + ".cu"), m["source"].encode("utf-8"))
    work = []
    cached = 0
    results = {}
    for m in modules:
        for target, kind, sm in module_targets(m, targets):
            opts = ["--gpu-architecture=" + target] + COMMON_OPTIONS
            key = cache_key(m["source"], opts, build, target)
            path = os.path.join(cache_dir, "%s.%s" % (key, kind))
            data = None
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    data = f.read()
                # a damaged entry (not an ELF / not NUL-terminated PTX) is recompiled
                if data and (data[:4] == b"\x7fELF" if kind == "cubin" else data.endswith(b"\0")):
                    cached += 1
                    log = ""
                    if os.path.isfile(path + ".log"):  # warnings stay visible on cached builds
                        with open(path + ".log", "rb") as f:
                            log = f.read().decode("utf-8", "replace")
                    results[(m["name"], target)] = (data, log)
                else:
                    data = None
            if data is None:
                work.append((m, target, kind, opts, path))

    def run(item):
        m, target, kind, opts, path = item
        try:
            data, log = nv.compile(m["source"], m["name"] + ".cu", opts, kind)
        except nvrtc.NvrtcError as e:
            return item, None, e.log, str(e)
        if log.strip():
            write_atomic(path + ".log", log.encode("utf-8"))
        write_atomic(path, data)
        return item, data, log, None

    failures = []
    if work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for item, data, log, err in pool.map(run, work):  # map keeps input order
                m, target = item[0], item[1]
                if err:
                    failures.append((m, target, err, log))
                else:
                    results[(m["name"], target)] = (data, log)
    if failures:
        by = {}
        for m, target, err, log in failures:
            by.setdefault((m["name"], m["template"], err.split(":")[-1].strip(), log), []).append(target)
        lines = []
        for (name, tmpl, err, log), tgts in sorted(by.items()):
            lines.append("module '%s' (template %s) failed to compile for %s: %s\n"
                         "  rendered source: %s\n%s"
                         % (name, tmpl, " ".join(tgts), err,
                            rel(os.path.join(src_dir, name + ".cu")),
                            "".join("  | " + ln + "\n" for ln in log.rstrip().splitlines())))
        raise GenError("NVRTC compilation failed\n" + "".join(lines).rstrip())
    # compiler warnings, once per module and distinct log
    shown = set()
    for m in modules:
        for target, _kind, _sm in module_targets(m, targets):
            log = results[(m["name"], target)][1].strip()
            if log and (m["name"], log) not in shown:
                shown.add((m["name"], log))
                warn("module '%s' (template %s), NVRTC log for %s:\n%s"
                     % (m["name"], m["template"], target, "".join("  | " + ln + "\n" for ln in log.splitlines()).rstrip()))
    errs = []
    for m in modules:
        m["images"] = []
        for target, kind, sm in module_targets(m, targets):
            data = results[(m["name"], target)][0]
            errs.extend(check_image(m, target, kind, data))
            m["images"].append({"target": target, "kind": kind, "sm": sm, "data": data,
                                "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
    if errs:
        raise GenError("\n".join(errs))
    return len(work), cached


# ---- output ----------------------------------------------------------------------------------

# Decimal, 20 bytes a line: 40% smaller than 0xNN (the table can be tens of MB; compilers parse
# it token by token), and never a string literal (MSVC caps literals at 64 KB).
DEC = ["%d," % i for i in range(256)]


def c_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= o < 127 and ch != "?":  # '?' escaped to keep trigraphs out
            out.append(ch)
        else:
            for b in ch.encode("utf-8"):
                out.append("\\%03o" % b)
    out.append('"')
    return "".join(out)


def c_words(data):
    """Little-endian 64-bit words, 4 a line, zero-padded to a multiple of 8 bytes."""
    data = data + b"\0" * (-len(data) % 8)
    words = struct.unpack("<%dQ" % (len(data) // 8), data)
    lines = []
    for i in range(0, len(words), 4):
        lines.append("".join("0x%016xull," % x for x in words[i:i + 4]) + "\n")
    return "".join(lines)


def c_bytes(data):
    lines = []
    for i in range(0, len(data), 20):
        lines.append("".join(DEC[b] for b in data[i:i + 20]) + "\n")
    return "".join(lines)


def manifest_of(modules, targets, nv_version, nv_build, note=None):
    man = {
        "format": 1,
        "generator": "codegen/gen.py",
        "nvrtc_version": nv_version,
        "nvrtc_build": nv_build,
        "options": list(COMMON_OPTIONS),
        "targets": [t for t, _k, _s in targets],
        "modules": [],
    }
    if note:
        man["note"] = note
    for m in modules:
        man["modules"].append({
            "name": m["name"],
            "template": m["template"],
            "source_sha256": m["source_sha256"],
            "images": [{"target": im["target"], "sha256": im["sha256"], "size": im["size"]}
                       for im in m["images"]],
            "kernels": [{"name": k["name"], "op": k["op"], "dtype": k["dtype"], "params": k["params"],
                         "params_str": k["params_str"], "block": k["block"]} for k in m["kernels"]],
        })
    man["table_sha256"] = hashlib.sha256(json.dumps(man, sort_keys=True).encode("utf-8")).hexdigest()
    return man


def header_of(modules, targets, nv_version, nv_build, table_hash, note=None, pack="bytes"):
    tstr = " ".join(t for t, _k, _s in targets)
    kernels = []
    for mi, m in enumerate(modules):
        for k in m["kernels"]:
            kernels.append((k["name"], mi, k))
    kernels.sort(key=lambda x: x[0].encode("utf-8"))  # strcmp order: lookup may bisect
    images = []
    for mi, m in enumerate(modules):
        for im in m["images"]:
            images.append((mi, im))
    o = []
    w = o.append
    w("/* aicf_kernels.h: the generated kernel table of aicf (see docs/kernels.md).\n")
    w("   Generated by codegen/gen.py from codegen/variants.py and the templates in templates/:\n")
    w("   do not edit.\n")
    w("   kernels_gen/manifest.json lists the hashes of every source and binary.\n")
    if note:
        w("   %s\n" % note)
    w("   NVRTC %s (%s); options: %s */\n" % (nv_version or "none", nv_build or "none", " ".join(COMMON_OPTIONS)))
    if pack == "u64":
        w("/* Images are stored as little-endian 64-bit words (--pack u64: an eighth of the tokens of a\n"
          "   byte array, so compilers parse the table several times faster; 8-byte aligned). The\n"
          "   bytes are right on little-endian hosts only, which is every host CUDA supports. */\n")
    w("#ifndef AICF__KERNELS_GEN_H\n#define AICF__KERNELS_GEN_H\n\n")
    w("#define AICF__KT_NVRTC_VERSION %s\n" % c_str(nv_version))
    w("#define AICF__KT_TARGETS %s\n" % c_str(tstr))
    w("#define AICF__KT_TABLE_HASH %s /* sha256 of the manifest's content */\n" % c_str(table_hash))
    w("#define AICF__KT_NUM_MODULES %d\n" % len(modules))
    w("#define AICF__KT_NUM_IMAGES %d\n" % len(images))
    w("#define AICF__KT_NUM_KERNELS %d\n\n" % len(kernels))
    for ii, (mi, im) in enumerate(images):
        w("/* image %d: module %d '%s', %s %s, %d bytes, sha256 %s */\n"
          % (ii, mi, modules[mi]["name"], im["target"], "PTX (NUL-terminated)" if im["kind"] == "ptx" else "CUBIN",
             im["size"], im["sha256"]))
        if pack == "u64":
            w("static const unsigned long long aicf__kt_bin_%d[%d] = {\n" % (ii, (im["size"] + 7) // 8))
            w(c_words(im["data"]))
        else:
            w("static const unsigned char aicf__kt_bin_%d[%d] = {\n" % (ii, im["size"]))
            w(c_bytes(im["data"]))
        w("};\n\n")
    w("static const aicf__kt_module aicf__kt_modules[%d] = {\n" % max(1, len(modules)))
    for mi, m in enumerate(modules):
        w("    { %s, %s }, /* %d */\n" % (c_str(m["name"]), c_str(m["source_sha256"]), mi))
    if not modules:
        w("    { 0, 0 } /* none */\n")
    w("};\n\n")
    w("static const aicf__kt_image aicf__kt_images[%d] = {\n" % max(1, len(images)))
    for ii, (mi, im) in enumerate(images):
        w("    { %d, %d, %d, %saicf__kt_bin_%d, %d }, /* %d: %s %s */\n"
          % (mi, im["sm"], image_kind_code(im["target"], im["kind"]), "(const unsigned char*)" if pack == "u64" else "",
             ii, im["size"], ii, modules[mi]["name"], im["target"]))
    if not images:
        w("    { 0, 0, 0, 0, 0 } /* none */\n")
    w("};\n\n")
    w("/* sorted by name (strcmp order) */\n")
    w("static const aicf__kt_kernel aicf__kt_kernels[%d] = {\n" % max(1, len(kernels)))
    for ki, (name, mi, k) in enumerate(kernels):
        w("    { %s, %d, %s, %s, %s, %du }, /* %d */\n"
          % (c_str(name), mi, c_str(k["op"]), c_str(k["dtype"]), c_str(k["params_str"]), k["block"], ki))
    if not kernels:
        w("    { 0, 0, 0, 0, 0, 0u } /* none */\n")
    w("};\n\n#endif /* AICF__KERNELS_GEN_H */\n")
    return "".join(o)


def emit(out_dir, modules, targets, nv_version, nv_build, note=None, pack="bytes"):
    man = manifest_of(modules, targets, nv_version, nv_build, note)
    hdr = header_of(modules, targets, nv_version, nv_build, man["table_sha256"], note, pack)
    wrote = []
    hpath = os.path.join(out_dir, "aicf_kernels.h")
    mpath = os.path.join(out_dir, "manifest.json")
    if write_if_changed(hpath, hdr.encode("utf-8")):
        wrote.append(rel(hpath))
    if write_if_changed(mpath, (json.dumps(man, indent=1, sort_keys=True) + "\n").encode("utf-8")):
        wrote.append(rel(mpath))
    return hpath, wrote


def rel(p):
    """p relative to the working directory when below it (for messages)."""
    try:
        r = os.path.relpath(p)
        return p if r.startswith("..") else r
    except ValueError:
        return p


# ---- main ------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="aicf kernel generator: templates -> NVRTC -> C table")
    ap.add_argument("--sm", default="80 86 89 90", help='SM targets for CUBINs, e.g. "80 86 89 90"')
    ap.add_argument("--ptx", default="90", help='SM targets for PTX (JIT fallback), e.g. "90"; "" for none')
    ap.add_argument("--out", default="kernels_gen", help="output directory")
    ap.add_argument("--cache", default=os.path.join("build", "kcache"), help="compile cache directory")
    ap.add_argument("--jobs", type=int, default=2, help="parallel NVRTC compilations (default 2)")
    ap.add_argument("--allow-no-nvrtc", action="store_true",
                    help="if libnvrtc cannot be loaded, write an empty table (CPU-only builds)")
    ap.add_argument("--pack", choices=("bytes", "u64"), default="bytes",
                    help="C type of the image arrays: unsigned char (default) or little-endian "
                         "unsigned long long words (parses several times faster)")
    ap.add_argument("--variants", default=os.path.join(HERE, "variants.py"), help="variant list")
    ap.add_argument("--templates", default=os.path.join(ROOT, "templates"), help="template directory")
    a = ap.parse_args(argv)
    try:
        sms = parse_sms(a.sm, "--sm")
        ptx = parse_sms(a.ptx, "--ptx")
        targets = targets_of(sms, ptx)
        if not targets:
            raise GenError("no targets: give --sm and/or --ptx")
        modules = load_variants(a.variants, a.templates)
        render_all(modules, a.templates)
        try:
            nv = nvrtc.Nvrtc()
        except nvrtc.NvrtcNotFound as e:
            if not a.allow_no_nvrtc:
                raise GenError("%s\n  Install the CUDA toolkit's NVRTC (or set CUDA_HOME / AICF_NVRTC), or "
                               "pass --allow-no-nvrtc to build a CPU-only library with an empty "
                               "kernel table." % e)
            warn("%s" % e)
            warn("--allow-no-nvrtc: writing an EMPTY kernel table; the CUDA backend will have no "
                 "generated kernels (%d modules rendered and checked, none compiled)" % len(modules))
            hpath, wrote = emit(a.out, [], [], "", "", note="EMPTY TABLE: generated without NVRTC (--allow-no-nvrtc).")
            print("aicf codegen: no NVRTC, empty table: compiled 0, cached 0; %s"
                  % ("wrote " + ", ".join(wrote) if wrote else "outputs unchanged"))
            return 0
        if nv.supported_sms is not None:
            bad = [t for t, _k, s in targets if s not in nv.supported_sms]
            if bad:
                raise GenError("NVRTC %s cannot compile for %s; it supports SM %s"
                               % (nv.version, " ".join(bad), " ".join(map(str, nv.supported_sms))))
        build = nv.build_id()
        key_build = "%s %s" % (nv.version, build or nv.library_identity())
        compiled, cached = compile_all(modules, targets, nv, key_build, a.cache, a.jobs)
        hpath, wrote = emit(a.out, modules, targets, nv.version, build or "unknown", pack=a.pack)
        nk = sum(len(m["kernels"]) for m in modules)
        print("aicf codegen: %d modules, %d kernels, targets %s, NVRTC %s: compiled %d, cached %d; %s"
              % (len(modules), nk, " ".join(t for t, _k, _s in targets), nv.version, compiled, cached,
                 "wrote " + ", ".join(wrote) if wrote else "outputs unchanged"))
        return 0
    except GenError as e:
        sys.stderr.write("codegen: error: %s\n" % e)
        return 1
    except (IOError, OSError) as e:
        sys.stderr.write("codegen: error: %s\n" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
