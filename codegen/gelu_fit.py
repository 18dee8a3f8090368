#!/usr/bin/env python3
"""The float16 GELU's erfc fit (templates/elementwise_fns.inc.j2 aicf_gelu_erfc16): fit and exhaustive check.

  python3 codegen/gelu_fit.py            check the template's coefficients over every float16
  python3 codegen/gelu_fit.py --fit DEG  fit a polynomial of degree DEG and print its coefficients

The kernel computes, in float32, for a float16 input x:
    t = 1 / (1 + |x| / (2 sqrt 2))                        (rcp.approx.ftz)
    q = t * 2^(P(t) - 1 - x^2 log2(e) / 2)  = erfc(|x| / sqrt 2) / 2   (ex2.approx.ftz)
    GELU(x) = x * (x >= 0 ? 1 - q : q)
with P evaluated by Horner's rule in fused multiply-adds, its constant term less 1 in the template
and in --fit's output (the halving folded into the exponent). The form is Press et al., Numerical
Recipes in C, 2nd ed. (1992), section 6.2 ("erfcc"), in log2 units. --fit finds P's coefficients
by iteratively reweighted least squares on the relative error of erfc over z = |x| / sqrt 2 in
[0, 9.5] (past it GELU is x or 0 in float16), rounds them to float32 and reports the largest
relative error in float64.

The check emulates the kernel's float32 arithmetic (each operation rounded to float32; a fused
multiply-add rounded once; the approximate reciprocal and exponential taken as correctly
rounded) over all 63488 finite float16 inputs and compares the float16 results with GELU
computed in float64 and rounded to float16. Needs numpy.
"""

import math
import os
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "templates", "elementwise_fns.inc.j2")


def template_coefficients(path=TEMPLATE):
    """The kernel's coefficients, constant term first (P's, its constant term less 1), as the
    template's Horner chain gives them."""
    src = open(path).read()
    body = src[src.index("aicf_gelu_erfc16(float x)"):]
    body = body[:body.index("\n}\n")]
    first = re.search(r"float p = fmaf\(t, ([-0-9.e]+)f, ([-0-9.e]+)f\);", body)
    rest = re.findall(r"p = fmaf\(t, p, ([-0-9.e]+)f\);", body)
    if not first or not rest:
        raise ValueError("%s: aicf_gelu_erfc16's Horner chain not found" % path)
    high_first = [float(first.group(1)), float(first.group(2))] + [float(v) for v in rest]
    return high_first[::-1]


def _r(v):
    return np.asarray(v, dtype=np.float64).astype(np.float32).astype(np.float64)


def _fma(a, b, c):
    return _r(np.float64(a) * np.float64(b) + np.float64(c))


def emulate(x, coef):
    """The kernel's float32 arithmetic on float64 arrays holding float16 values; coef as the
    kernel has them (constant term first, P's less 1)."""
    t = _r(1.0 / _fma(np.abs(x), _r(0.35355339059327376), 1.0))
    p = _r(coef[-1]) + 0.0 * x
    for c in coef[-2::-1]:
        p = _fma(t, p, _r(c))
    q = _r(t * _r(np.exp2(_fma(_r(x * x), _r(-0.72134752044448170), p))))
    return _r(x * np.where(x >= 0, _r(1.0 - q), q))


def check(coef):
    """(inputs, results one unit off, largest distance in float16 units) over every finite float16."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float64)
    x = x[np.isfinite(x)]
    ref = np.array([0.5 * v * math.erfc(-v / math.sqrt(2.0)) for v in x]).astype(np.float16)
    with np.errstate(invalid="ignore", over="ignore"):
        got = emulate(x, coef).astype(np.float16)

    def key(h):  # float16 bits to an integer line (sign-magnitude to two's complement)
        b = h.view(np.int16).astype(np.int64)
        return np.where(b < 0, -(b & 0x7FFF), b)

    d = np.abs(key(ref) - key(got))
    return len(x), int((d > 0).sum()), int(d.max())


def fit(deg):
    l2e = 1.0 / math.log(2.0)
    z = np.linspace(0.0, 9.5, 40001)
    t = 1.0 / (1.0 + 0.5 * z)
    y = (np.log(np.array([math.erfc(v) for v in z]) / t) + z * z) * l2e
    P = np.polynomial.polynomial
    w = np.ones_like(t)
    for _ in range(200):
        c = P.polyfit(t, y, deg, w=w)
        e = np.abs(P.polyval(t, c) - y)
        w = w * (1.0 + e / e.max()) ** 1.5
        w /= w.mean()
    c = _r(c)
    err = float(np.abs(np.exp2(P.polyval(t, c) - y) - 1.0).max())
    c[0] = _r(c[0] - 1.0)  # the halving folded into the constant term, as the kernel has it
    return c, err


def main(argv):
    if len(argv) == 3 and argv[1] == "--fit":
        c, err = fit(int(argv[2]))
        print("the kernel's coefficients (constant term first, P's less 1):", ", ".join(repr(float(np.float32(v))) for v in c))
        print("largest relative error of erfc (float64):", err)
        n, off, worst = check(list(c))
        print("float16 inputs %d: %d results one or more units off, largest %d" % (n, off, worst))
        return 0
    if len(argv) != 1:
        print(__doc__)
        return 2
    n, off, worst = check(template_coefficients())
    print("float16 inputs %d: %d results off the correctly rounded GELU, largest %d unit(s)" % (n, off, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
