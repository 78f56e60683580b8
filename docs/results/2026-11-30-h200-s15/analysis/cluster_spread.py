"""Session 15: loop-end spread inside each cluster vs across clusters, and the last CTA's
epilogue events per cluster (timeline files of a FF_TILE_STAMPS=1 or default build).
usage: python3 cluster_spread.py DIR/timeline-W2-b8-8k-p16.json 4"""
import json, statistics as st, sys

d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
recs = d["decode"]
dep = min(r[1] for r in recs if r[1] > 0)
within, cmax = [], []
for c in range(len(recs) // n):
    le = [(r[3] - dep) / 1e3 for r in recs[c * n:(c + 1) * n]]
    within.append(max(le) - min(le))
    cmax.append(max(le))
print("within-cluster loop-end spread: median %.1f max %.1f us" % (st.median(within), max(within)))
print("cluster's last loop end: min %.1f median %.1f max %.1f us" % (min(cmax), st.median(cmax), max(cmax)))
# words: 3 loop end, 8 merge done, 9 cluster met, 10 remote done, 4 exit
for c in sorted(range(len(cmax)), key=lambda c: cmax[c])[-5:]:
    last = max(recs[c * n:(c + 1) * n], key=lambda r: r[3])
    print("cluster %d: from its last loop end, merge %.2f met %.2f remote %.2f exit %.2f us"
          % (c, *[(last[k] - last[3]) / 1e3 for k in (8, 9, 10, 4)]))
