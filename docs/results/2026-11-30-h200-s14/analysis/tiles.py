# Call d files (per-tile stamps at words 16.. of each 80-word record): consumed bandwidth per
# microsecond from the first dependency met, the steady (20-80%) rate and the start / end lags.
# Usage: python3 tiles.py TIMELINE.json
import json,sys,os
f=sys.argv[1]; d=json.load(open(f)); t0=d['t0_ns']; tb=d['tile_bytes']
rows=[r for r in d['decode'] if r[2] and len(r)>=80]
us=lambda x:(x-t0)/1e3
dep=min(us(r[1]) for r in rows if r[1])
ev=[]
for r in rows:
    n=r[6]
    for t in range(min(n,64)):
        if r[16+t]: ev.append(us(r[16+t]))
ev.sort()
print(os.path.basename(f), 'CTAs',len(rows),'tiles stamped',len(ev),'dep %.1f first %.1f last %.1f'%(dep,ev[0],ev[-1]))
B=1.0
bins={}
for e in ev: bins[int(e/B)]=bins.get(int(e/B),0)+1
lo,hi=int(ev[0]/B),int(ev[-1]/B)
print(' consumed TB/s per us from dep:', ' '.join('%.1f'%(bins.get(k,0)*tb/B/1e6) for k in range(int(dep),hi+1)))
# cumulative: time to consume 10%,50%,90%,100%
N=len(ev)
print(' time of 1%%/5%%/10%%/50%%/90%%/99%%/100%% tiles: %s'%(' '.join('%.1f'%ev[min(N-1,int(q*N))] for q in (0.01,0.05,.1,.5,.9,.99,1.0))))
# steady rate between 20% and 80%
a,b=ev[int(.2*N)],ev[int(.8*N)]
rate=0.6*N*tb/(b-a)/1e6
print(' steady (20-80%%) %.2f TB/s; ideal end from dep at steady: %.1f; lost start %.1f us, lost end %.1f us'%(rate, dep+N*tb/rate/1e6, a-dep-0.2*N*tb/rate/1e6, ev[-1]-b-0.2*N*tb/rate/1e6))
