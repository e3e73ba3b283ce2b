#!/usr/bin/env python3
"""Semantic check of the integer arithmetic and logic lowering (spec chapters
12 and 14) without a Vulkan runtime.

Generates one kernel that computes thousands of cases from immediates and
stores each result to a global, translates it with `pisa spirv`, lets
`spirv-opt -O` turn it into straight-line code on constants, then evaluates
that code (strictly: SPIR-V's undefined cases, such as shifts by the width or
more, are reported) and compares every stored value with a Python model
written from the spec's Semantics pseudo-code.

Run from the repository root: python3 tests/translate/semantics.py
Needs spirv-val, spirv-opt and spirv-dis (SPIRV-Tools) on PATH.
"""
import os, random, re, subprocess, sys, tempfile

random.seed(1)
def M(b): return (1<<b)-1
def sx(v,b):
    v&=M(b); return v-(1<<b) if v>>(b-1) else v
def u(v,b): return v & M(b)
def sat(v,b): return u(max(-(1<<(b-1)), min((1<<(b-1))-1, v)), b)

lines=[]; exp=[]; off=[0]
def st(reg, bits, val, what):
    lines.append(f"  st.global.{bits}b [@out + {off[0]}], {reg};")
    exp.append((bits, u(val,bits), what)); off[0]+=8
def mov(reg,bits,v):
    lines.append(f"  mov.{bits}b {reg}, {hex(u(v,bits))};")
R={16:'%a16 %b16 %c16 %d16'.split(),32:'%a32 %b32 %c32 %d32'.split(),64:'%a64 %b64 %c64 %d64'.split()}
def tdiv(a,b):
    q=abs(a)//abs(b); return q if (a<0)==(b<0) else -q
def trem(a,b): return a - tdiv(a,b)*b

def binop(name, bits, a, b, f, c=None, dstbits=None, srcbits=None):
    sb = srcbits or bits; db = dstbits or bits
    ra, rb, rc, rd = R[sb][0], R[sb][1], R[db][2], R[db][3]
    mov(ra,sb,a); mov(rb,sb,b)
    if c is not None: mov(rc,db,c)
    ops = f"{rd}, {ra}, {rb}" + (f", {rc}" if c is not None else "")
    lines.append(f"  {name} {ops};")
    st(rd, db, f(a,b) if c is None else f(a,b,c), f"{name} {hex(a)} {hex(b)} {c}")

edge = lambda b: [0,1,2,M(b),M(b)-1,1<<(b-1),(1<<(b-1))-1,(1<<(b-1))+1, 0x5a5a5a5a5a5a5a5a&M(b), 0x1234567890abcdef&M(b)]
def vals(b, n=4): return edge(b)+[random.getrandbits(b) for _ in range(n)]
def pairs(b):
    vs=edge(b); ps=[(x,y) for x in vs for y in vs]
    return ps[::7]+[(random.getrandbits(b),random.getrandbits(b)) for _ in range(6)]

for b in (16,32,64):
    for a,c in pairs(b):
        binop(f"iadd.{b}b",b,a,c,lambda x,y:x+y)
        binop(f"iadd.dsat.{b}b",b,a,c,lambda x,y:sat(sx(x,b)+sx(y,b),b))
        binop(f"isub.{b}b",b,a,c,lambda x,y:x-y)
        binop(f"isub.dsat.{b}b",b,a,c,lambda x,y:sat(sx(x,b)-sx(y,b),b))
        binop(f"smin.{b}b",b,a,c,lambda x,y:min(sx(x,b),sx(y,b)))
        binop(f"smax.{b}b",b,a,c,lambda x,y:max(sx(x,b),sx(y,b)))
        binop(f"umin.{b}b",b,a,c,lambda x,y:min(x,y))
        binop(f"umax.{b}b",b,a,c,lambda x,y:max(x,y))
        binop(f"smul.{b}b",b,a,c,lambda x,y:x*y)
        binop(f"umul.{b}b",b,a,c,lambda x,y:x*y)
        if c:
            binop(f"sdiv.{b}b",b,a,c,lambda x,y:tdiv(sx(x,b),sx(y,b)))
            binop(f"sdiv.rem.{b}b",b,a,c,lambda x,y:trem(sx(x,b),sx(y,b)))
            binop(f"udiv.quo.{b}b",b,a,c,lambda x,y:x//y)
            binop(f"udiv.rem.{b}b",b,a,c,lambda x,y:x%y)
        k=random.getrandbits(b)
        binop(f"smad.{b}b",b,a,c,lambda x,y,z:x*y+z,c=k)
        binop(f"umad.{b}b",b,a,c,lambda x,y,z:x*y+z,c=k)
        if b<64:
            binop(f"smul.full.{b}b",b,a,c,lambda x,y:sx(x,b)*sx(y,b),dstbits=2*b,srcbits=b)
            binop(f"umul.full.{b}b",b,a,c,lambda x,y:x*y,dstbits=2*b,srcbits=b)
            k=random.getrandbits(2*b)
            binop(f"smad.full.{b}b",b,a,c,lambda x,y,z:sx(x,b)*sx(y,b)+z,c=k,dstbits=2*b,srcbits=b)
            binop(f"umad.full.{b}b",b,a,c,lambda x,y,z:x*y+z,c=k,dstbits=2*b,srcbits=b)
    for a in vals(b):
        mov(R[b][0],b,a); lines.append(f"  ineg.{b}b {R[b][3]}, {R[b][0]};"); st(R[b][3],b,-a,f"ineg {a}")
        mov(R[b][0],b,a); lines.append(f"  iabs.{b}b {R[b][3]}, {R[b][0]};"); st(R[b][3],b,abs(sx(a,b)),f"iabs {a}")
# uaddc
for a,c in pairs(32):
    for ci in (0,1):
        mov('%a32',32,a); mov('%b32',32,c); mov('%c32',32,ci)
        lines.append("  ucmp.ne.32b %p, %c32, 0;")
        lines.append("  uaddc.ci.co.32b %d32, %q, %a32, %b32, %p;")
        st('%d32',32,a+c+ci,'uaddc.ci.co'); lines.append("  sel.32b %d32, 1, 0, %q;"); st('%d32',32,int(a+c+ci>M(32)),'carry ci.co')
        lines.append("  uaddc.ci.32b %d32, %a32, %b32, %p;"); st('%d32',32,a+c+ci,'uaddc.ci')
    lines.append("  uaddc.co.32b %d32, %q, %a32, %b32;")
    st('%d32',32,a+c,'uaddc.co'); lines.append("  sel.32b %d32, 1, 0, %q;"); st('%d32',32,int(a+c>M(32)),'carry co')
# dp4a
def dp4a(sg, dsat, acc, x, y):
    s1 = sg[0]=='s'; s2 = sg[1]=='s'
    t=0
    for i in range(4):
        xi=(x>>8*i)&255; yi=(y>>8*i)&255
        if s1: xi=sx(xi,8)
        if s2: yi=sx(yi,8)
        t+=xi*yi
    return sat(sx(acc,32)+t,32) if dsat else t+acc
for sg in ('uu','us','su','ss'):
    for dsat in ((False,) if sg=='uu' else (False,True)):
        for acc,x,y in [(0,0x01020304,0x05060708),(0x7fffff00,0xffffffff,0xffffffff),(0x80000010,0x80808080,0x7f7f7f7f),(0x7ffffff0,0x7f7f7f7f,0x7f7f7f7f),(5,0x80ff7f01,0xff80017f)]+[(random.getrandbits(32),random.getrandbits(32),random.getrandbits(32)) for _ in range(4)]:
            mov('%a32',32,acc); mov('%b32',32,x); mov('%c32',32,y)
            lines.append(f"  dp4a.{sg}{'.dsat' if dsat else ''}.32b %d32, %a32, %b32, %c32;")
            st('%d32',32,dp4a(sg,dsat,acc,x,y),f"dp4a {sg} {dsat} {acc:#x} {x:#x} {y:#x}")
# packed arithmetic
def packed(name, n, eb, srcs, f):
    vr = {16:['%pa','%pb','%pc','%pd'], 8:['%qa','%qb','%qc','%qd']}[eb]
    comps='xyzw'
    for j,s in enumerate(srcs):
        for i in range(n): mov(f"{vr[j]}.{comps[i]}", eb, s[i])
    lines.append(f"  {name} {vr[3]}, " + ", ".join(vr[:len(srcs)]) + ";")
    for i in range(n):
        st(f"{vr[3]}.{comps[i]}", eb, f(*[s[i] for s in srcs]), f"{name} elem {i} {[hex(s[i]) for s in srcs]}")
for eb,n in ((16,2),(8,4)):
    b=eb
    for _ in range(12):
        A=[random.choice(edge(b)+[random.getrandbits(b)]) for _ in range(n)]
        B=[random.choice(edge(b)+[random.getrandbits(b)]) for _ in range(n)]
        C=[random.getrandbits(b) for _ in range(n)]
        ty=f"{eb}bx{n}"
        packed(f"iadd.{ty}",n,eb,[A,B],lambda x,y:x+y)
        packed(f"iadd.dsat.{ty}",n,eb,[A,B],lambda x,y:sat(sx(x,b)+sx(y,b),b))
        packed(f"smin.{ty}",n,eb,[A,B],lambda x,y:min(sx(x,b),sx(y,b)))
        packed(f"smax.{ty}",n,eb,[A,B],lambda x,y:max(sx(x,b),sx(y,b)))
        if eb==16:
            packed(f"isub.{ty}",n,eb,[A,B],lambda x,y:x-y)
            packed(f"isub.dsat.{ty}",n,eb,[A,B],lambda x,y:sat(sx(x,b)-sx(y,b),b))
            packed(f"smul.{ty}",n,eb,[A,B],lambda x,y:x*y)
            packed(f"smad.{ty}",n,eb,[A,B,C],lambda x,y,z:x*y+z)
            packed(f"umin.{ty}",n,eb,[A,B],lambda x,y:min(x,y))
            packed(f"umax.{ty}",n,eb,[A,B],lambda x,y:max(x,y))
# shifts
def shift(name,x,s,b):
    s&=63
    if name=='shl': return x<<s if s<b else 0
    if name=='shr': return x>>s if s<b else 0
    return sx(x,b)>>min(s,b-1)
for b in (16,32,64):
    for x in vals(b,2):
        for s in [0,1,b-1,b,b+1,63,64,65,0xffffffc1, random.getrandbits(32)]:
            for nm in ('shl','shr','asr'):
                mov(R[b][0],b,x); mov('%c32',32,s)
                lines.append(f"  {nm}.{b}b {R[b][3]}, {R[b][0]}, %c32;"); st(R[b][3],b,shift(nm,x,s,b),f"{nm}.{b} {x:#x} {s}")
for _ in range(10):
    A=[random.choice(edge(16)) for _ in range(2)]
    s=random.choice([0,1,15,16,17,63,64]) | (random.choice([0,1,15,16,17,63,64])<<16) | (random.getrandbits(32) & 0xffc0ffc0 if random.random()<.5 else 0)
    for nm in ('shl','shr','asr'):
        for i in range(2): mov(f"%pa.{'xy'[i]}",16,A[i])
        mov('%c32',32,s)
        lines.append(f"  {nm}.16bx2 %pd, %pa, %c32;")
        for i in range(2): st(f"%pd.{'xy'[i]}",16,shift(nm,A[i],(s>>16*i),16),f"{nm}.16bx2 {A} {s:#x} elem {i}")
# shf, bfe, bfi
def shf(d,a,b,s):
    num=(a<<32)|b; s&=31
    return ((num<<s)>>32) if d=='l' else (num>>s)
def bfe(signed,x,w,o):
    o&=31; w=min(w&63,32); last=min(o+w,32); w=last-o
    if w==0: return 0
    v=u(x<<(32-last),32)
    return (sx(v,32)>>(32-w)) if signed else v>>(32-w)
def bfi(x,y,w,o):
    o&=31; w=min(w&63,32); w=min(w,32-o)
    mw = (1<<w)-1 if w<32 else M(32)
    m=mw<<o
    return (x & ~m) | ((y<<o)&m)
ws=[0,1,5,8,31,32,33,40,63,64,0xffffffe8]; os_=[0,1,4,8,16,24,28,31,32,33,0xffffffe4]
for _ in range(3):
    x=random.getrandbits(32); y=random.getrandbits(32)
    for s in [0,1,4,31,32,33,63,0xffffffe1]:
        for d in 'lr':
            mov('%a32',32,x); mov('%b32',32,y); mov('%c32',32,s)
            lines.append(f"  shf.{d}.32b %d32, %a32, %b32, %c32;"); st('%d32',32,shf(d,x,y,s),f"shf.{d} {x:#x} {y:#x} {s}")
    for w in ws:
        for o in os_:
            mov('%a32',32,x); mov('%b32',32,w); mov('%c32',32,o)
            lines.append("  ubfe.32b %d32, %a32, %b32, %c32;"); st('%d32',32,bfe(False,x,w,o),f"ubfe {x:#x} {w} {o}")
            lines.append("  sbfe.32b %d32, %a32, %b32, %c32;"); st('%d32',32,bfe(True,x,w,o),f"sbfe {x:#x} {w} {o}")
            mov('%d32',32,y)
            lines.append("  bfi.32b %d32, %a32, %d32, %b32, %c32;")
            st('%d32',32,bfi(x,y,w,o),f"bfi {x:#x} {y:#x} {w} {o}")
# bfn: all operations
A,B,C=random.getrandbits(32),random.getrandbits(32),random.getrandbits(32)
mov('%a32',32,A); mov('%b32',32,B); mov('%c32',32,C)
for t in range(1,255):
    lines.append(f"  bfn.0x{t:02x}.32b %d32, %a32, %b32, %c32;")
    r=0
    for i in range(32):
        idx=((A>>i)&1)|(((B>>i)&1)<<1)|(((C>>i)&1)<<2)
        r|=((t>>idx)&1)<<i
    st('%d32',32,r,f"bfn {t:#x}")
# bfrev cbit fbh fbl
def fbh(x,b):
    if x==0: return M(b)
    for d in range(b):
        if x & (1<<(b-1-d)): return d
def fbl(x,b):
    if x==0: return M(b)
    for d in range(b):
        if x & (1<<d): return d
for b in (16,32):
    for x in vals(b,6)+[1<<k for k in range(0,b,5)]:
        r=R[b]
        mov(r[0],b,x)
        if b==32:
            lines.append(f"  bfrev.32b {r[3]}, {r[0]};"); st(r[3],b,int(f"{x:032b}"[::-1],2),f"bfrev {x:#x}")
        lines.append(f"  cbit.{b}b {r[3]}, {r[0]};"); st(r[3],b,bin(x).count('1'),f"cbit {x:#x}")
        lines.append(f"  fbh.{b}b {r[3]}, {r[0]};"); st(r[3],b,fbh(x,b),f"fbh.{b} {x:#x}")
        lines.append(f"  fbl.{b}b {r[3]}, {r[0]};"); st(r[3],b,fbl(x,b),f"fbl.{b} {x:#x}")

src = f""".version 0.1;
.target 100;
.global .align 8 @out[{off[0]+8}];
.kernel @k() {{
  .reg .16b %a16, %b16, %c16, %d16;
  .reg .32b %a32, %b32, %c32, %d32;
  .reg .64b %a64, %b64, %c64, %d64;
  .reg .v2.16b %pa, %pb, %pc, %pd;
  .reg .v4.8b %qa, %qb, %qc, %qd;
  .pred %p, %q;
""" + "\n".join(lines) + "\n  return;\n}\n"

tmp = tempfile.mkdtemp(prefix="pisa-sem-")
pisa, spv, opt = (os.path.join(tmp, n) for n in ("t.pisa", "t.spv", "to.spv"))
open(pisa, "w").write(src)
subprocess.run(["cargo", "run", "-q", "--", "spirv", pisa, "-o", spv], check=True)
subprocess.run(["spirv-val", "--target-env", "vulkan1.2", spv], check=True)
subprocess.run(["spirv-opt", "-O", spv, "-o", opt], check=True)
dis = subprocess.run(["spirv-dis", "--raw-id", opt], check=True, capture_output=True, text=True).stdout
types={}; val={}; ty_of={}
UB=[]
def W(t): return types[t]
def M(b): return (1<<b)-1
def sx(v,b): v&=M(b); return v-(1<<b) if v>>(b-1) else v
stores=[]
glsl={}
for l in dis.splitlines():
    l=l.split(';')[0].strip()
    if not l: continue
    m=re.match(r'(%\d+) = (\w+)\s*(.*)',l)
    if not m:
        m2=re.match(r'OpStore (%\d+) (%\d+)',l)
        if m2: stores.append(m2[2])
        continue
    r,op,rest=m[1],m[2],m[3].split()
    if op=='OpTypeInt': types[r]=int(rest[0]); continue
    if op=='OpTypeBool': types[r]=1; continue
    if op=='OpTypeStruct': types[r]=('struct',rest); continue
    if op=='OpExtInstImport': continue
    if op in('OpConstant',): val[r]=int(rest[1])&M(W(rest[0])); ty_of[r]=rest[0]; continue
    if op=='OpConstantTrue': val[r]=1; continue
    if op=='OpConstantFalse': val[r]=0; continue
    if op=='OpConstantNull': val[r]=0; continue
    if not op.startswith('Op') or len(rest)<2: continue
    t=rest[0]; args=rest[1:]
    if t not in types: continue
    a=[val.get(x) for x in args if x.startswith('%')]
    try:
        if op=='OpExtInst':
            name=args[1]; xs=[val[x] for x in args[2:]]; b=W(t)
            if name=='FindUMsb': assert b==32; v=(xs[0].bit_length()-1)&M(b)
            elif name=='FindILsb': assert b==32; v=((xs[0]&-xs[0]).bit_length()-1)&M(b)
            elif name=='UMin': v=min(xs)
            elif name=='UMax': v=max(xs)
            elif name=='SMin': v=min(sx(x,b) for x in xs)&M(b)
            elif name=='SMax': v=max(sx(x,b) for x in xs)&M(b)
            else: continue
            val[r]=v; continue
        if any(x is None for x in a): continue
        tb=types[t]
        if isinstance(tb,tuple):
            if op=='OpIAddCarry':
                b=W(tb[1][0]); s=a[0]+a[1]; val[r]=(s&M(b), s>>b)
            continue
        b=tb
        if op=='OpCompositeExtract': val[r]=a[0][int(args[1])]; continue
        opb=None
        if op=='OpIAdd': v=a[0]+a[1]
        elif op=='OpISub': v=a[0]-a[1]
        elif op=='OpIMul': v=a[0]*a[1]
        elif op=='OpUDiv': assert a[1]; v=a[0]//a[1]
        elif op=='OpUMod': assert a[1]; v=a[0]%a[1]
        elif op in('OpSDiv','OpSRem'):
            x,y=sx(a[0],b),sx(a[1],b); assert y!=0
            if y==-1 and x==-(1<<(b-1)): UB.append((r,op)); v=0
            else:
                q=abs(x)//abs(y); q=q if (x<0)==(y<0) else -q
                v=q if op=='OpSDiv' else x-q*y
        elif op=='OpSNegate': v=-a[0]
        elif op=='OpNot': v=~a[0]
        elif op=='OpBitwiseAnd': v=a[0]&a[1]
        elif op=='OpBitwiseOr': v=a[0]|a[1]
        elif op=='OpBitwiseXor': v=a[0]^a[1]
        elif op in('OpShiftLeftLogical','OpShiftRightLogical','OpShiftRightArithmetic'):
            if a[1]>=b: UB.append((r,op,a[1],b)); v=0
            elif op=='OpShiftLeftLogical': v=a[0]<<a[1]
            elif op=='OpShiftRightLogical': v=a[0]>>a[1]
            else: v=sx(a[0],b)>>a[1]
        elif op=='OpSelect': v=a[1] if a[0] else a[2]
        elif op=='OpIEqual': v=int(a[0]==a[1])
        elif op=='OpINotEqual': v=int(a[0]!=a[1])
        elif op=='OpULessThan': v=int(a[0]<a[1])
        elif op=='OpUGreaterThan': v=int(a[0]>a[1])
        elif op=='OpULessThanEqual': v=int(a[0]<=a[1])
        elif op=='OpUGreaterThanEqual': v=int(a[0]>=a[1])
        elif op in('OpSLessThan','OpSGreaterThan','OpSLessThanEqual','OpSGreaterThanEqual'):
            ob=W(ty_of[args[0]]); x,y=sx(a[0],ob),sx(a[1],ob)
            v=int({'OpSLessThan':x<y,'OpSGreaterThan':x>y,'OpSLessThanEqual':x<=y,'OpSGreaterThanEqual':x>=y}[op])
        elif op=='OpLogicalNot': v=1-a[0]
        elif op=='OpLogicalAnd': v=a[0]&a[1]
        elif op=='OpLogicalOr': v=a[0]|a[1]
        elif op in('OpLogicalEqual',): v=int(a[0]==a[1])
        elif op in('OpLogicalNotEqual',): v=int(a[0]!=a[1])
        elif op=='OpUConvert' or op=='OpBitcast': v=a[0]
        elif op=='OpSConvert': v=sx(a[0],W(ty_of[args[0]]))
        elif op=='OpBitFieldUExtract' or op=='OpBitFieldSExtract':
            assert b==32
            base,o,c=a
            if o+c>b: UB.append((r,op,o,c)); v=0
            elif c==0: v=0
            else:
                v=(base>>o)&M(c)
                if op=='OpBitFieldSExtract': v=sx(v,c)
        elif op=='OpBitFieldInsert':
            assert b==32
            base,ins,o,c=a
            if o+c>b: UB.append((r,op,o,c)); v=0
            else:
                m=M(c)<<o; v=(base&~m)|((ins<<o)&m)
        elif op=='OpBitReverse': assert b==32; v=int(f"{a[0]:032b}"[::-1],2)
        elif op=='OpBitCount': assert W(ty_of[args[0]])==32; v=bin(a[0]).count('1')
        else:
            continue
        val[r]=v&M(b); ty_of[r]=t
    except AssertionError:
        UB.append((r,op,'assert',a))
print(len(stores),"stores;", "UB:",UB[:10], len(UB))
bad=0; unk={}
for (bits,v,what),s in zip(exp,stores):
    if s not in val: k=what.split()[0]; unk[k]=unk.get(k,0)+1; continue
    if val[s]!=v:
        bad+=1
        if bad<40: print("MISMATCH",what,"got",hex(val[s]),"want",hex(v))
print("mismatches",bad,"unevaluated",unk)
sys.exit(1 if bad or UB or unk or len(stores) != len(exp) else 0)
