# Per-CTA tile rate from a `ferroflash bench --timeline` file: (loop end - first data) / tiles,
# the start (first data - dependency), and the end (exit - loop end), in us.
import json, sys, statistics as st
for fn in sys.argv[1:]:
    d = json.load(open(fn)); D = d["decode"]
    t0 = min(x[0] for x in D)
    us = lambda v: (v - t0) / 1000
    rate = [(us(x[3]) - us(x[2])) / max(x[6] - 1, 1) for x in D if x[6] > 1]
    start = [us(x[2]) - us(x[1]) for x in D]
    end = [us(x[4]) - us(x[3]) for x in D]
    life = [us(x[4]) - us(x[0]) for x in D]
    tiles = [x[6] for x in D]
    q = lambda v: "%.2f/%.2f/%.2f" % (min(v), st.median(v), max(v))
    print("%s: %d CTAs, tiles %s; us per tile after the first %s; dep->first data %s; loop end->exit %s; life %s; grid end %.1f"
          % (d["workload"][:24], len(D), q(tiles), q(rate), q(start), q(end), q(life), max(us(x[4]) for x in D)))
