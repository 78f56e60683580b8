# Calls b-c files (quarter stamps at words 11-13): per-CTA us per tile in each quarter of its
# tiles, grouped by end rank, and an aggregate rate from the quarter intervals.
# Usage: python3 quarters.py TIMELINE.json
import json,sys
f=sys.argv[1]; d=json.load(open(f)); t0=d['t0_ns']; tb=d['tile_bytes']
rows=[r for r in d['decode'] if r[2] and r[11] and r[13]]
print(f, len(rows), 'CTAs with stamps; tiles', sorted(set(r[6] for r in rows)))
us=lambda x:(x-t0)/1e3
# base time: min dep
dep=min(us(r[1]) for r in rows if r[1])
recs=[]
for r in rows:
    n=r[6]; pts=[us(r[2]),us(r[11]),us(r[12]),us(r[13]),us(r[3])]
    tiles=[n//4-1, n//2-n//4, 3*n//4-n//2, n-3*n//4]  # first stamp is after tile 0 landed, not done
    rates=[(pts[i+1]-pts[i])/tiles[i] for i in range(4)]
    recs.append((pts,rates,r[5]))
recs.sort(key=lambda x:x[0][4])
N=len(recs)
fast=[x for x in recs if x[0][4] < sorted(y[0][4] for y in recs)[N//5]]
print('end of fastest 20%%: %.1f-%.1f'%(fast[0][0][4],fast[-1][0][4]))
import statistics as st
def grp(name,g):
    print('%-22s n=%3d  us/tile Q1 %.3f Q2 %.3f Q3 %.3f Q4 %.3f | times q1 %.1f half %.1f 3q %.1f end %.1f'%((name,len(g))+tuple(st.median(x[1][i] for x in g) for i in range(4))+tuple(st.median(x[0][i] for x in g) for i in range(1,5))))
grp('fastest 20%',fast)
sl=recs[N//5:]
for a,b in [(0.2,0.4),(0.4,0.6),(0.6,0.8),(0.8,0.9),(0.9,1.0)]:
    grp('end rank %.0f-%.0f%%'%(a*100,b*100), recs[int(a*N):int(b*N)])
# aggregate rate over time from quarter intervals
bins={}
for pts,rates,sm in recs:
    for i in range(4):
        a,b=pts[i],pts[i+1]; r=tb/rates[i]  # bytes/us
        t=a
        while t<b:
            k=int(t); ov=min(b,k+1)-t; bins[k]=bins.get(k,0)+r*ov; t=k+1
print('aggregate TB/s per 2 us:', ' '.join('%d:%.2f'%(k,(bins.get(k,0)+bins.get(k+1,0))/2e6) for k in range(int(min(bins)),int(max(bins))+1,2)))
