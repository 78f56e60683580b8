# Tile completions per 2 us window for the fast SMs (rate > 1.12x median), the SMs holding one
# CTA and the rest, from a tile-stamp timeline (FF_TILE_STAMPS=1 build). Relative units.
# Usage: python3 sm_tail.py timeline-W2-b8-8k-p16.json
import json,sys,collections
fn=sys.argv[1]
d=json.load(open(fn)); ev=d['events']; I={e:i for i,e in enumerate(ev)}
tb=d['tile_bytes']; t0=d['t0_ns']
per=collections.defaultdict(list)
for ci,c in enumerate(d['decode']): per[c[I['sm_id']]].append(ci)
rate={}
for sm,cs in per.items():
    if len(cs)!=2: continue
    C=[d['decode'][i] for i in cs]
    b=sum(c[I['tiles']] for c in C)*tb
    rate[sm]=b/(max(c[I['loop_end']] for c in C)-min(c[I['first_data']] for c in C))
med=sorted(rate.values())[len(rate)//2]
fast={s for s,r in rate.items() if r>1.12*med}
print('fast SMs',sorted(fast))
# tile completion stamps: per CTA list of times (ns)
ends=collections.defaultdict(list)
for ci,st in enumerate(d['tile_stamps']):
    sm=d['decode'][ci][I['sm_id']]
    grp='fast' if sm in fast else ('slow' if sm in rate else 'single')
    for x in st:
        if x: ends[grp].append((x-t0)/1000)
fast_end=max(d['decode'][ci][I['loop_end']] for ci in range(len(d['decode'])) if d['decode'][ci][I['sm_id']] in fast)
fe=(fast_end-t0)/1000
allend=max(ends['slow'])
print('fast SMs last loop end %.1f us, slow last %.1f'%(fe,allend))
# rate of slow SMs tiles per us in windows
import math
lo=int(min(ends['slow'])); hi=int(allend)+1
for w0 in range(lo,hi,2):
    n={g:sum(1 for x in ends[g] if w0<=x<w0+2) for g in ends}
    print('%5d-%5d'%(w0,w0+2),' '.join('%s %.2f'%(g,n[g]*tb/2e-6/1e12) for g in sorted(n)),'(relative)')
