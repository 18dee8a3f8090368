"""NVRTC through ctypes, for the build-time kernel generator (codegen/gen.py).

Only the handful of entry points the generator needs are bound: version, supported
architectures, create/compile/destroy a program, its log, PTX and CUBIN. No CUDA headers, no
nvcc, no Python CUDA package: the NVIDIA runtime compiler library alone.

Where the library is looked for, in order:
  1. $AICF_NVRTC (a full path to the library file), if set: then nothing else is tried;
  2. $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda: lib64/, lib/, and on Windows bin/ and
     bin/x64/ (nvrtc64_*.dll);
  3. the dynamic loader's search path: libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so
     (nvrtc64_130_0.dll, nvrtc64_120_0.dll on Windows).

Thread safety: NVRTC programs are independent, and ctypes releases the GIL during the foreign
call, so compile() may be called from several threads at once.
"""

import ctypes
import glob
import os
import re
import struct
import sys

NVRTC_SUCCESS = 0


class NvrtcNotFound(Exception):
    """libnvrtc could not be found or loaded; the message lists what was tried."""


class NvrtcError(Exception):
    """A failed NVRTC call or compilation. .log holds the program log (may be empty)."""

    def __init__(self, message, log=""):
        Exception.__init__(self, message)
        self.log = log


def _candidates():
    """Library paths or loader names to try, in order (see the module docstring)."""
    env = os.environ.get("AICF_NVRTC")
    if env:
        return [env]  # exactly this library, nothing else (also lets tests simulate "none")
    out = []
    win = sys.platform.startswith("win")
    roots = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        v = os.environ.get(var)
        if v and v not in roots:
            roots.append(v)
    if not win and "/usr/local/cuda" not in roots:
        roots.append("/usr/local/cuda")
    for root in roots:
        if win:
            for sub in ("bin", os.path.join("bin", "x64")):
                # newest first: nvrtc64_130_0.dll sorts after nvrtc64_120_0.dll
                out.extend(sorted(glob.glob(os.path.join(root, sub, "nvrtc64_*.dll")), reverse=True))
        else:
            for sub in ("lib64", "lib"):
                for name in ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"):
                    p = os.path.join(root, sub, name)
                    if os.path.exists(p):
                        out.append(p)
    if win:
        out.extend(["nvrtc64_130_0.dll", "nvrtc64_120_0.dll"])
    elif sys.platform == "darwin":
        out.append("libnvrtc.dylib")
    else:
        out.extend(["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"])
    seen = set()
    uniq = []
    for c in out:
        if c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


class Nvrtc(object):
    """A loaded libnvrtc. Raises NvrtcNotFound when none can be loaded."""

    def __init__(self):
        errors = []
        lib = None
        for cand in _candidates():
            try:
                lib = ctypes.CDLL(cand)
                self.path = cand
                break
            except OSError as e:
                errors.append("%s (%s)" % (cand, e))
        if lib is None:
            raise NvrtcNotFound("libnvrtc could not be loaded; tried: " + "; ".join(errors))
        self.lib = lib
        try:
            self._bind()
        except AttributeError as e:
            raise NvrtcNotFound("%s is not a usable libnvrtc: %s" % (self.path, e))
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = "%d.%d" % (major.value, minor.value)
        self.version_tuple = (major.value, minor.value)
        self.supported_sms = self._supported_archs()

    def _bind(self):
        L = self.lib
        c_int_p = ctypes.POINTER(ctypes.c_int)
        c_size_p = ctypes.POINTER(ctypes.c_size_t)
        prog_p = ctypes.POINTER(ctypes.c_void_p)
        sig = {
            "nvrtcGetErrorString": (ctypes.c_char_p, [ctypes.c_int]),
            "nvrtcVersion": (ctypes.c_int, [c_int_p, c_int_p]),
            "nvrtcCreateProgram": (ctypes.c_int, [prog_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                                  ctypes.POINTER(ctypes.c_char_p),
                                                  ctypes.POINTER(ctypes.c_char_p)]),
            "nvrtcDestroyProgram": (ctypes.c_int, [prog_p]),
            "nvrtcCompileProgram": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int,
                                                   ctypes.POINTER(ctypes.c_char_p)]),
            "nvrtcGetProgramLogSize": (ctypes.c_int, [ctypes.c_void_p, c_size_p]),
            "nvrtcGetProgramLog": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
            "nvrtcGetPTXSize": (ctypes.c_int, [ctypes.c_void_p, c_size_p]),
            "nvrtcGetPTX": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
            "nvrtcGetCUBINSize": (ctypes.c_int, [ctypes.c_void_p, c_size_p]),
            "nvrtcGetCUBIN": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        }
        for name in sorted(sig):
            fn = getattr(L, name)
            fn.restype, fn.argtypes = sig[name]
        self.has_arch_query = hasattr(L, "nvrtcGetNumSupportedArchs")
        if self.has_arch_query:
            L.nvrtcGetNumSupportedArchs.restype = ctypes.c_int
            L.nvrtcGetNumSupportedArchs.argtypes = [c_int_p]
            L.nvrtcGetSupportedArchs.restype = ctypes.c_int
            L.nvrtcGetSupportedArchs.argtypes = [c_int_p]

    def _errstr(self, rc):
        s = self.lib.nvrtcGetErrorString(rc)
        return s.decode("ascii", "replace") if s else "NVRTC error %d" % rc

    def _check(self, rc, what, log=""):
        if rc != NVRTC_SUCCESS:
            raise NvrtcError("%s failed: %s (%d)" % (what, self._errstr(rc), rc), log)

    def _supported_archs(self):
        """SM numbers this NVRTC can compile for (e.g. [75, 80, 86, ...]); None if unknown."""
        if not self.has_arch_query:
            return None
        n = ctypes.c_int()
        self._check(self.lib.nvrtcGetNumSupportedArchs(ctypes.byref(n)), "nvrtcGetNumSupportedArchs")
        arr = (ctypes.c_int * max(n.value, 1))()
        self._check(self.lib.nvrtcGetSupportedArchs(arr), "nvrtcGetSupportedArchs")
        return sorted(arr[i] for i in range(n.value))

    def library_identity(self):
        """A string that changes when the library file changes (for cache keys; not written
        into any generated output): file name, size and modification time of the resolved
        library. NVRTC reports only major.minor, so a patch update is caught here."""
        path = self.path
        if os.path.isabs(path) and os.path.exists(path):
            real = os.path.realpath(path)
        else:
            real = _find_loaded(path)
        if real and os.path.exists(real):
            st = os.stat(real)
            return "%s:%d:%d" % (os.path.basename(real), st.st_size, int(st.st_mtime))
        return path

    def build_id(self):
        """The NVRTC build, e.g. "V13.0.88 CL-36424714", read from the header of a probe PTX
        (nvrtcVersion reports only major.minor, and a patch release can change the code it
        generates); None if it cannot be read (callers then use library_identity())."""
        try:
            arch = self.supported_sms[0] if self.supported_sms else 75
            ptx, _ = self.compile('extern "C" __global__ void aicf_probe() {}\n', "aicf_probe.cu",
                                  ["--gpu-architecture=compute_%d" % arch], "ptx")
        except NvrtcError:
            return None
        text = ptx.decode("utf-8", "replace")
        rel = re.search(r"Cuda compilation tools, release [\d.]+, (V[\w.]+)", text)
        cl = re.search(r"Compiler Build ID: (\S+)", text)
        if rel and cl:
            return "%s %s" % (rel.group(1), cl.group(1))
        return None

    def compile(self, source, name, options, want):
        """Compiles `source` (str) as program `name` with `options` (list of str).
        want: "cubin" or "ptx". Returns (binary bytes, log str). PTX is returned with its
        terminating NUL. Raises NvrtcError (with .log) on failure."""
        L = self.lib
        prog = ctypes.c_void_p()
        self._check(L.nvrtcCreateProgram(ctypes.byref(prog), source.encode("utf-8"), name.encode("utf-8"),
                                         0, None, None), "nvrtcCreateProgram")
        try:
            opts = (ctypes.c_char_p * max(len(options), 1))(*[o.encode("utf-8") for o in options])
            rc = L.nvrtcCompileProgram(prog, len(options), opts)
            log = self._log(prog)
            if rc != NVRTC_SUCCESS:
                raise NvrtcError("nvrtcCompileProgram(%s) failed: %s" % (name, self._errstr(rc)), log)
            size = ctypes.c_size_t()
            if want == "cubin":
                self._check(L.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
                buf = ctypes.create_string_buffer(size.value)
                self._check(L.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
            elif want == "ptx":
                self._check(L.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
                buf = ctypes.create_string_buffer(size.value)
                self._check(L.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
            else:
                raise ValueError("want must be 'cubin' or 'ptx'")
            data = buf.raw[:size.value]
            if not data:
                raise NvrtcError("NVRTC returned an empty %s for %s" % (want, name), log)
            return data, log
        finally:
            L.nvrtcDestroyProgram(ctypes.byref(prog))

    def _log(self, prog):
        size = ctypes.c_size_t()
        if self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)) != NVRTC_SUCCESS or size.value <= 1:
            return ""
        buf = ctypes.create_string_buffer(size.value)
        if self.lib.nvrtcGetProgramLog(prog, buf) != NVRTC_SUCCESS:
            return ""
        return buf.value.decode("utf-8", "replace")


def _find_loaded(name):
    """Resolved path of a shared library the process has loaded (Linux: /proc/self/maps)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1] if line.strip() else ""
                if os.path.basename(p).startswith(os.path.basename(name).split(".so")[0] + ".so"):
                    return p
    except (IOError, OSError):
        pass
    return None


# ---- inspecting compiled images -----------------------------------------------------------

def ptx_entries(ptx):
    """{kernel name: maxntid tuple or None} for every .entry in PTX text (bytes or str)."""
    if isinstance(ptx, bytes):
        ptx = ptx.rstrip(b"\0").decode("utf-8", "replace")
    out = {}
    for m in re.finditer(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(", ptx):
        name = m.group(1)
        # directives between the parameter list's ')' and the body's '{'
        close = ptx.find(")", m.end())
        brace = ptx.find("{", close)
        head = ptx[close:brace] if close >= 0 and brace >= 0 else ""
        mt = re.search(r"\.maxntid\s+(\d+)\s*(?:,\s*(\d+))?\s*(?:,\s*(\d+))?", head)
        out[name] = tuple(int(g) for g in mt.groups() if g is not None) if mt else None
    return out


def cubin_entries(cubin):
    """Kernel (entry) names in a CUBIN (ELF): the symbols whose section is `.text.NAME` and
    that have a matching `.nv.info.NAME` section (only kernels carry per-function
    .nv.info sections). Raises ValueError if the data is not a 64-bit little-endian ELF."""
    if len(cubin) < 64 or cubin[:4] != b"\x7fELF" or cubin[4] != 2 or cubin[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF image")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    if shentsize != 64 or shoff + shnum * 64 > len(cubin) or shstrndx >= shnum:
        raise ValueError("malformed ELF section table")
    secs = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", cubin, shoff + i * 64)
        if off + size > len(cubin) and typ != 8:  # 8 = SHT_NOBITS
            raise ValueError("ELF section %d out of bounds" % i)
        secs.append((name, typ, off, size, link, entsize))

    def cstr(tab, at):
        _n, _t, off, size, _l, _e = secs[tab]
        end = cubin.find(b"\0", off + at, off + size)
        if end < 0:
            raise ValueError("unterminated ELF string")
        return cubin[off + at:end].decode("utf-8", "replace")

    names = [cstr(shstrndx, s[0]) for s in secs]
    info = set(n[len(".nv.info."):] for n in names if n.startswith(".nv.info."))
    entries = set()
    for i, (_n, typ, off, size, link, entsize) in enumerate(secs):
        if typ != 2 or entsize != 24:  # SHT_SYMTAB
            continue
        for k in range(size // 24):
            st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", cubin, off + k * 24)
            if st_info & 0xF != 2 or st_shndx == 0 or st_shndx >= len(secs):  # STT_FUNC
                continue
            sym = cstr(link, st_name)
            if names[st_shndx] == ".text." + sym and sym in info:
                entries.add(sym)
    return entries
