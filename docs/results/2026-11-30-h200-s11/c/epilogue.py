#!/usr/bin/env python3
"""Epilogue of a cluster-mode decode call from a `ferroflash bench --timeline` JSON (session 11):
per CTA, loop end -> in-CTA merge done -> first cluster barrier (against the cluster's last
merge) -> remote reads done -> exit. Usage: epilogue.py TIMELINE.json CLUSTER_SIZE"""
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); D = d["decode"]
t0 = min(x[1] for x in D)
us = lambda v: (v - t0) / 1000
def q(v):
    v = sorted(v); return "/".join("%.2f" % v[int(p * (len(v) - 1))] for p in (0, 0.5, 1))
print("merge_done - loop_end (min/median/max us)", q([us(x[8]) - us(x[3]) for x in D]))
a, b, c = [], [], []
for i in range(0, len(D), n):
    C = D[i:i + n]; last = max(us(x[8]) for x in C)
    for x in C:
        a.append(us(x[9]) - last); b.append(us(x[10]) - us(x[9])); c.append(us(x[4]) - us(x[10]))
print("cluster_met - cluster's last merge_done", q(a))
print("remote_done - cluster_met", q(b))
print("exit - remote_done", q(c))
