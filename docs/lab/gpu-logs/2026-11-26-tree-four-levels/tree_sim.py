import random
def local_levels(P, begin, end):
    levels=[]; stride=1
    while stride < P:
        nodes=[]
        p=(begin+2*stride-1)//(2*stride)*(2*stride)
        while p+stride < P:
            if min(p+2*stride,P) > end: break
            nodes.append(p); p+=2*stride
        if nodes: levels.append((stride,nodes))
        stride*=2
    return levels
def old(P,begin,end):
    v={p:('v',p) for p in range(begin,end)}
    for stride,nodes in local_levels(P,begin,end):
        for x in nodes: v[x]=(v[x],v[x+stride])
    return v
def new(P,begin,end,K=4):
    v={p:('v',p) for p in range(begin,end)}
    levels=local_levels(P,begin,end); i=0
    while i < len(levels):
        stride=levels[i][0]; grp=[]
        while len(grp)<K and i<len(levels) and levels[i][0]==stride<<len(grp):
            nodes=levels[i][1]; grp.append((nodes[0]-begin,len(nodes))); i+=1
        L=len(grp); packages=end-begin
        def is_node(l,y):
            sp=2*(stride<<l); off=y-grp[l][0]
            return off>=0 and off%sp==0 and off//sp<grp[l][1]
        newv=dict(v)
        for op in range(grp[0][1]):
            x=grp[0][0]+op*2*stride
            if any(is_node(l,x-(stride<<l)) for l in range(L)): continue
            leaves=1<<L
            val=[v.get(begin+x+j*stride) if x+j*stride<packages else 0 for j in range(leaves)]
            for l in range(L):
                half=1<<l
                for j in range(0,leaves,2*half):
                    if is_node(l,x+j*stride): val[j]=(val[j],val[j+half])
            newv[begin+x]=val[0]
        v=newv
    return v
random.seed(1)
bad=0
for trial in range(3000):
    P=random.randint(1,600)
    b=random.randint(0,P-1); e=random.randint(b+1,P)
    if random.random()<0.3: b,e=0,P
    o=old(P,b,e); n=new(P,b,e)
    # compare the values at the cover nodes (maximal local nodes) — positions never absorbed
    absorbed=set()
    for stride,nodes in local_levels(P,b,e):
        for x in nodes: absorbed.add(x+stride)
    for p in range(b,e):
        if p not in absorbed and o[p]!=n[p]:
            bad+=1; print("mismatch",P,b,e,p); break
print("bad",bad)
