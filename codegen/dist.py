#!/usr/bin/env python3
"""Writes the single distributable header: dist/aicf.h = aicf.h with the line
`#include "kernels_gen/aicf_kernels.h"` (any preprocessor spacing, e.g. `#  include`) replaced by that file's contents, so a user vendors one
file (no kernels_gen/ directory, no include path).

  python3 codegen/dist.py [--header aicf.h] [--kernels|--table kernels_gen/aicf_kernels.h] [--out dist/aicf.h]

Errors (exit status 1): the include line is missing or appears more than once, or a file cannot
be read. The output is written only when its content changes. A table generated without NVRTC
(empty) gives a warning: that dist header has no GPU kernels.
"""

import argparse
import os
import re
import sys

INCLUDE_LINE = '#include "kernels_gen/aicf_kernels.h"'
# the line, allowing preprocessor spacing ("#  include") and a trailing comment
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"kernels_gen/aicf_kernels\.h"\s*(//.*|/\*.*\*/\s*)?$')


def main(argv=None):
    ap = argparse.ArgumentParser(description="aicf: make the single-file distributable header")
    ap.add_argument("--header", default="aicf.h", help="the concatenated library header (make aicf.h)")
    ap.add_argument("--kernels", "--table", dest="kernels", default=os.path.join("kernels_gen", "aicf_kernels.h"),
                    help="the generated kernel table")
    ap.add_argument("--out", default=os.path.join("dist", "aicf.h"))
    a = ap.parse_args(argv)

    def fail(msg):
        sys.stderr.write("dist: error: %s\n" % msg)
        return 1

    try:
        with open(a.header, "rb") as f:
            header = f.read().decode("utf-8")
        with open(a.kernels, "rb") as f:
            kernels = f.read().decode("utf-8")
    except (IOError, OSError) as e:
        return fail("%s (run `make aicf.h kernels` first)" % e)
    lines = header.split("\n")
    hits = [i for i, ln in enumerate(lines) if INCLUDE_RE.match(ln)]
    if not hits:
        return fail("%s has no line `%s`: nothing to inline" % (a.header, INCLUDE_LINE))
    if len(hits) > 1:
        return fail("%s has the line `%s` %d times (lines %s); expected exactly once"
                    % (a.header, INCLUDE_LINE, len(hits), ", ".join(str(i + 1) for i in hits)))
    if "#define AICF__KT_NUM_KERNELS 0\n" in kernels:
        sys.stderr.write("dist: warning: %s is an EMPTY kernel table (generated without NVRTC): "
                         "%s will have no GPU kernels\n" % (a.kernels, a.out))
    if not kernels.endswith("\n"):
        kernels += "\n"
    i = hits[0]
    body = ("/* >>kernels: inlined kernels_gen/aicf_kernels.h by codegen/dist.py */\n" + kernels
            + "/* end of kernels_gen/aicf_kernels.h */")
    lines[i] = body
    out = "\n".join(lines).encode("utf-8")
    try:
        with open(a.out, "rb") as f:
            if f.read() == out:
                print("dist: %s unchanged" % a.out)
                return 0
    except (IOError, OSError):
        pass
    d = os.path.dirname(a.out)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = a.out + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, a.out)
    print("dist: wrote %s (%d bytes)" % (a.out, len(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
