# Per-tile stamps (call d's build, words 16.. of each decode record): when each of the first 12
# tiles ended after the grid's first dependency met, and first data / dep / entry per CTA.
# Usage: python3 tiles_start.py TIMELINE.json
import json, sys
d = json.load(open(sys.argv[1])); t0 = d['t0_ns']
rows = [r for r in d['decode'] if r[2]]
us = lambda x: (x - t0) / 1e3
dep = min(us(r[1]) for r in rows)
print('dep', round(dep, 1))
for t in range(12):
    v = sorted(us(r[16 + t]) - dep for r in rows)
    print('  tile %2d done after dep: min %.1f p10 %.1f med %.1f p90 %.1f max %.1f' % (t, v[0], v[len(v) // 10], v[len(v) // 2], v[9 * len(v) // 10], v[-1]))
for name, i in [('first landed', 2), ('dep per CTA', 1), ('entry per CTA', 0)]:
    v = sorted(us(r[i]) - dep for r in rows)
    print('  %-13s min %.1f med %.1f max %.1f' % (name, v[0], v[len(v) // 2], v[-1]))
