import json, sys, statistics as st, collections
D = json.load(open(sys.argv[1]))["decode"]; n=int(sys.argv[2]); thr=float(sys.argv[3])
dur=[(x[3]-x[2])/1000 for x in D]
cnt=collections.Counter(x[5] for x in D)
print("CTAs per SM histogram", collections.Counter(cnt.values()))
fast=[i for i,d in enumerate(dur) if d<thr]
print("fast CTAs", len(fast), "SMs with count", collections.Counter(cnt[D[i][5]] for i in fast))
cl=collections.Counter(i//n for i in fast)
print("fast per cluster", sorted(collections.Counter(cl.values()).items()))
# tiles per CTA
print("tiles", collections.Counter(x[6] for x in D))
# SMs hosting 1 CTA: durations
print("dur on SMs with 1 CTA", sorted("%.0f"%dur[i] for i in range(len(D)) if cnt[D[i][5]]==1))
