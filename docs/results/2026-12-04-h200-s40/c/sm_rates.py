# Per-SM read rate (bytes of the two CTAs of an SM over first data -> last loop end) from
# `ferroflash bench --timeline` files, and its correlation between workloads; then the first
# two files' rates side by side by SM id. Usage: python3 sm_rates.py timeline-A.json timeline-B.json ...
import json,sys,collections,os
def rates(fn):
    d=json.load(open(fn)); ev=d['events']; I={e:i for i,e in enumerate(ev)}
    tb=d['tile_bytes']; per=collections.defaultdict(list)
    for c in d['decode']:
        per[c[I['sm_id']]].append(c)
    out={}
    for sm,cs in per.items():
        if len(cs)!=2: continue
        b=sum(c[I['tiles']] for c in cs)*tb
        t0=min(c[I['first_data']] for c in cs); t1=max(c[I['loop_end']] for c in cs)
        out[sm]=b/(t1-t0)
    return out
import itertools
names=sys.argv[1:]
R={n:rates(n) for n in names}
import statistics as st
for a,b in itertools.combinations(names,2):
    common=sorted(set(R[a])&set(R[b]))
    x=[R[a][s] for s in common]; y=[R[b][s] for s in common]
    mx,my=st.mean(x),st.mean(y)
    cov=sum((i-mx)*(j-my) for i,j in zip(x,y)); vx=sum((i-mx)**2 for i in x); vy=sum((j-my)**2 for j in y)
    print(os.path.basename(a)[9:12],os.path.basename(b)[9:12],len(common),'corr %.2f'%(cov/(vx*vy)**.5), 'cv %.3f %.3f'%(st.pstdev(x)/mx, st.pstdev(y)/my))
print()
a=R[names[0]]; b=R[names[1]]
for sm in sorted(a):
    print(sm, '%.1f'%a[sm], '%.1f'%b.get(sm,0), end=' | ')
    if sm%6==5: print()
