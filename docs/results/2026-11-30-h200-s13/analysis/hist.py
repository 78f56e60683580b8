import json, sys, statistics as st, collections
D = json.load(open(sys.argv[1]))["decode"]
dur=[(x[3]-x[2])/1000 for x in D]
h=collections.Counter(int(d) for d in dur)
print(sorted(h.items()))
sm={}
for x,dd in zip(D,dur): sm.setdefault(x[5],[]).append(dd)
print(sorted(["%d:%.0f"%(k,st.mean(v)) for k,v in sm.items()], key=lambda s: float(s.split(':')[1]))[:40])
