#!/usr/bin/env python3
"""Compare `ferroflash bench --plan-only` logs of two builds; write the workloads whose plan
differs (model estimate aside) as a workloads file.
Usage: plandiff.py LOG_DIR_A LOG_DIR_B OUT_TOML WORKLOAD_TOML..."""
import glob, os, re, sys

def plans(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "*.log"))):
        for line in open(f, errors="replace"):
            m = re.match(r"(\S+)\s+(paged p\d+(?: hnd)?)\s+plan: (.*)$", line.rstrip())
            if m:
                note = re.sub(r", model [\d.]+ us$", "", m.group(3))
                model = re.search(r"model ([\d.]+) us$", m.group(3))
                out[(m.group(1), m.group(2))] = (note, model.group(1) if model else "?")
    return out

a, b = plans(sys.argv[1]), plans(sys.argv[2])
diff = sorted(k for k in a if k in b and a[k][0] != b[k][0])
print(f"{len(a)} / {len(b)} cases planned; {len(diff)} differ")
for k in diff:
    print(f"{k[0]} {k[1]}\n  A: {a[k][0]}, model {a[k][1]} us\n  B: {b[k][0]}, model {b[k][1]} us")
names = {k[0] for k in diff}
blocks = []
for f in sys.argv[4:]:
    for blk in open(f).read().split("[[workload]]")[1:]:
        m = re.search(r'name\s*=\s*"([^"]+)"', blk)
        if m and m.group(1) in names:
            blocks.append("[[workload]]" + blk.split("\n\n# ")[0].rstrip() + "\n")
            names.discard(m.group(1))
if names:
    print("not found in the files:", sorted(names))
open(sys.argv[3], "w").write("\n".join(blocks))
