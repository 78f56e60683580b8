import json, sys, statistics as st
D = json.load(open(sys.argv[1]))["decode"]; n=int(sys.argv[2])
t0=min(x[1] for x in D); us=lambda v:(v-t0)/1000
a=[];b=[];c=[];e=[]
for i in range(0,len(D),n):
    C=D[i:i+n]; L=max(C,key=lambda x:x[3])
    a.append(us(L[8])-us(L[3]))           # last CTA: merge_done - loop_end
    b.append(max(us(x[4]) for x in C)-us(L[3]))  # cluster's last exit - last loop end
    c.append(us(L[9])-us(L[8]))
    e.append(us(L[10])-us(L[9]))
q=lambda v:"%.2f/%.2f/%.2f"%(min(v),st.median(v),max(v))
print("last CTA merge_done-loop_end",q(a),"| cluster last exit - last loop end",q(b),"| last CTA met-merged",q(c),"remote-met",q(e))
