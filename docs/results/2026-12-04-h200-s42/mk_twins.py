"""Session 42: from a sweep file (gen_sweep.py output), write (1) the bf16 twins of its f16 rows
(fi_decode_tc has no f16 modules here) and (2) the rows fi_decode_tc has prebuilt modules for
(bf16 Q with bf16 K/V at d64/128/256, or e4m3/e5m2 K/V at d128).
usage: python3 mk_twins.py sweep.toml twins.toml peers.toml"""
import re
import sys

src, twins_out, peers_out = sys.argv[1:4]
blocks = [b for b in open(src).read().split("[[workload]]") if b.strip()]
def field(b, k):
    m = re.search(r"^%s = (.*)$" % k, b, re.M)
    return m.group(1).strip().strip('"') if m else None
def fi_ok(b):
    d, dt = int(field(b, "head_dim")), field(b, "dtype")
    return dt == "bf16" or (d == 128 and dt in ("bf16-q/e4m3-kv", "bf16-q/e5m2-kv"))
twins, peers = [], []
for b in blocks:
    dt = field(b, "dtype")
    if dt.startswith("f16"):
        t = b.replace('dtype = "%s"' % dt, 'dtype = "%s"' % dt.replace("f16", "bf16"))
        name = field(b, "name")
        t = t.replace(name, "T" + name[1:].replace("f16", "bf16"))
        twins.append(t)
    if fi_ok(b):
        peers.append(b)
open(twins_out, "w").write("# bf16 twins of the f16 rows of %s\n" % src + "".join("[[workload]]" + t for t in twins))
open(peers_out, "w").write("# rows of %s with fi_decode_tc modules\n" % src + "".join("[[workload]]" + p for p in peers))
print(len(blocks), "rows,", len(twins), "twins,", len(peers), "peer rows")
