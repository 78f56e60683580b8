import json, sys, statistics as st
d = json.load(open(sys.argv[1])); n = int(sys.argv[2]); D = d["decode"]
t0 = min(x[1] for x in D)
us = lambda v: (v - t0) / 1000
first=[us(x[2]) for x in D]; loop=[us(x[3]) for x in D]
print("first min/med/max %.1f %.1f %.1f  loop %.1f %.1f %.1f mean %.1f" % (min(first), st.median(first), max(first), min(loop), st.median(loop), max(loop), st.mean(loop)))
dur=[l-f for l,f in zip(loop,first)]
print("dur min/med/max %.1f %.1f %.1f" % (min(dur), st.median(dur), max(dur)))
# correlation first vs loop
mf, ml = st.mean(first), st.mean(loop)
cov = sum((a-mf)*(b-ml) for a,b in zip(first,loop))/len(D)
print("corr(first,loop) %.2f" % (cov/(st.pstdev(first)*st.pstdev(loop))))
# per cluster
gap=[]; 
for i in range(0,len(D),n):
    C=loop[i:i+n]; gap.append(max(C)-st.mean(C))
print("cluster max-mean loop: med %.2f max %.2f" % (st.median(gap), max(gap)))
cm=[max(loop[i:i+n]) for i in range(0,len(D),n)]
print("cluster max loop: min/med/max %.1f %.1f %.1f mean %.1f" % (min(cm), st.median(cm), max(cm), st.mean(cm)))
# per sm rate
sm={}
for x,dd in zip(D,dur): sm.setdefault(x[5],[]).append(dd)
r=sorted((st.mean(v),k) for k,v in sm.items())
print("per-SM mean dur: fastest %s slowest %s" % (["%.1f/%d"%a for a in r[:5]], ["%.1f/%d"%a for a in r[-5:]]))
