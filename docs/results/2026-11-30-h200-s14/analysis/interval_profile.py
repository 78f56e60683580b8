# Aggregate rate over time assuming each CTA streams uniformly from first data to loop end
# (the fixed-rate model of sessions 9-13), with start / end deficits against its peak.
# Usage: python3 interval_profile.py TIMELINE.json
import json,os,sys
f=sys.argv[1]; d=json.load(open(f)); t0=d['t0_ns']; tb=d['tile_bytes']
rows=[r for r in d['decode'] if r[0]]
bins=[0.0]*200
for r in rows:
    a=(r[2]-t0)/1e3; b=(r[3]-t0)/1e3; by=r[6]*tb
    rate=by/(b-a)  # bytes per us
    for i in range(200):
        lo,hi=i*0.5,(i+1)*0.5
        ov=max(0,min(hi,b)-max(lo,a))
        bins[i]+=rate*ov
tot=sum(bins)
print('total MB %.1f'%(tot/1e6))
for i in range(0,200):
    if bins[i]>0: print('%5.1f %6.2f TB/s'%(i*0.5, bins[i]/0.5/1e6))
peak=max(bins)
end=max((r[3]-t0)/1e3 for r in rows)
firstmed=sorted((r[2]-t0)/1e3 for r in rows)[len(rows)//2]
print('peak %.2f, end %.1f, ideal duration at peak %.1f us'%(peak/0.5/1e6, end, tot/(peak/0.5)))
# deficit after the peak is first reached
i0=next(i for i,b in enumerate(bins) if b>0.98*peak)
i1=max(i for i,b in enumerate(bins) if b>0.98*peak)
dstart=sum((peak-b)/peak*0.5 for b in bins[:i0] if True)
dend=sum((peak-b)/peak*0.5 for b in bins[i1+1:int(end/0.5)+1])
print('start deficit (from 0) %.2f us, end deficit %.2f us, peak window %.1f-%.1f'%(dstart,dend,i0*0.5,i1*0.5))
