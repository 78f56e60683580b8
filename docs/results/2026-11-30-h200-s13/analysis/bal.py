import json, sys, statistics as st
D = json.load(open(sys.argv[1]))["decode"]; n=int(sys.argv[2])
t0=min(x[1] for x in D); us=lambda v:(v-t0)/1000
ends=[];cur=[]
for i in range(0,len(D),n):
    C=D[i:i+n]
    f=[us(x[2]) for x in C]; l=[us(x[3]) for x in C]; w=[x[6] for x in C]
    r=[wi/(li-fi) for wi,fi,li in zip(w,f,l)]
    T=(sum(w)+sum(ri*fi for ri,fi in zip(r,f)))/sum(r)
    ends.append(T); cur.append(max(l))
print("current cluster end max %.1f median %.1f; balanced-in-cluster end max %.1f median %.1f" % (max(cur), st.median(cur), max(ends), st.median(ends)))
# global balance
f=[us(x[2]) for x in D]; l=[us(x[3]) for x in D]; w=[x[6] for x in D]
r=[wi/(li-fi) for wi,fi,li in zip(w,f,l)]
print("global balanced end %.1f" % ((sum(w)+sum(ri*fi for ri,fi in zip(r,f)))/sum(r)))
