"""Session 42: join `ferroflash bench` logs with the peers' raw.jsonl (fi_decode_tc) by
workload name. usage: python3 side_by_side.py raw.jsonl bench1.log [bench2.log ...]"""
import json
import sys

fi = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("ms"):
        fi[j["workload"]] = j["ms"] * 1000
ours = {}
for f in sys.argv[2:]:
    for line in open(f):
        p = line.split()
        if len(p) > 10 and p[1] == "paged" and p[0][0] in "RT":
            note = line.split(None, 10)[10].strip()
            ours[p[0]] = (float(p[3]), float(p[6]), note)
print("%-46s %8s %8s %7s %6s  %s" % ("shape", "ours us", "FI us", "FI/ours", "%read", "plan"))
slower = []
for k in sorted(ours):
    if k in fi:
        us, pr, note = ours[k]
        print("%-46s %8.1f %8.1f %7.2f %6.1f  %s" % (k, us, fi[k], fi[k] / us, pr, note[:110]))
        if fi[k] < us:
            slower.append(k)
print("slower than FI:", slower)
print("ours only (no FI module or FI failed):")
for k in sorted(ours):
    if k not in fi:
        us, pr, note = ours[k]
        print("  %-46s %6.1f us %6.1f%%  %s" % (k, us, pr, note[:100]))
