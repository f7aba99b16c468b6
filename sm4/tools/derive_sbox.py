#!/usr/bin/env python3
"""Derives the constants of shangmi-sm4's S-box engines from first principles.

SM4's S-box is S(x) = A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod x^8+x^7+x^6+x^5+x^4+x^2+1
(Liu, Ji, Hu et al., "Analysis of the SMS4 block cipher", ACISP 2007); this script checks
that against the GB/T 32907 table, then derives
  * the GFNI affine matrices (Intel layout) through a field isomorphism into the AES field,
  * the AES-NI nibble tables (pre and post AESENCLAST),
  * the tower-field GF((2^4)^2) input/output maps of the bitsliced soft engine
    (lambda = w^3 + 1; the cheapest generator by XOR count),
  * the algebraic normal form of the GF(2^4) inverse used by the soft engine.
Run: python3 sm4/tools/derive_sbox.py  (every derivation asserts itself exhaustively).
"""
# Derives the SM4 S-box decompositions used by the engines.
# The S-box table of GB/T 32907-2016 §6.2.
SBOX = [214, 144, 233, 254, 204, 225, 61, 183, 22, 182, 20, 194, 40, 251, 44, 5, 43, 103, 154, 118, 42, 190, 4, 195, 170, 68, 19, 38, 73, 134, 6, 153, 156, 66, 80, 244, 145, 239, 152, 122, 51, 84, 11, 67, 237, 207, 172, 98, 228, 179, 28, 169, 201, 8, 232, 149, 128, 223, 148, 250, 117, 143, 63, 166, 71, 7, 167, 252, 243, 115, 23, 186, 131, 89, 60, 25, 230, 133, 79, 168, 104, 107, 129, 178, 113, 100, 218, 139, 248, 235, 15, 75, 112, 86, 157, 53, 30, 36, 14, 94, 99, 88, 209, 162, 37, 34, 124, 59, 1, 33, 120, 135, 212, 0, 70, 87, 159, 211, 39, 82, 76, 54, 2, 231, 160, 196, 200, 158, 234, 191, 138, 210, 64, 199, 56, 181, 163, 247, 242, 206, 249, 97, 21, 161, 224, 174, 93, 164, 155, 52, 26, 85, 173, 147, 50, 48, 245, 140, 177, 227, 29, 246, 226, 46, 130, 102, 202, 96, 192, 41, 35, 171, 13, 83, 78, 111, 213, 219, 55, 69, 222, 253, 142, 47, 3, 255, 106, 114, 109, 108, 91, 81, 141, 27, 175, 146, 187, 221, 188, 127, 17, 217, 92, 65, 31, 16, 90, 216, 10, 193, 49, 136, 165, 205, 123, 189, 45, 116, 208, 18, 184, 229, 180, 176, 137, 105, 151, 74, 12, 150, 119, 126, 101, 185, 241, 9, 197, 110, 198, 132, 24, 240, 125, 236, 58, 220, 77, 32, 121, 238, 95, 62, 215, 203, 57, 72]
sb = SBOX
def gmul(a,b,poly):
    r=0
    while b:
        if b&1: r^=a
        b>>=1; a<<=1
        if a&0x100: a^=poly
    return r
def ginv(a,poly):
    if a==0: return 0
    for b in range(1,256):
        if gmul(a,b,poly)==1: return b
def mv(rows,x): return sum(((bin(rows[i]&x).count('1')&1)<<i) for i in range(8))
def mat_from_fn(f): # rows[i] mask: output bit i depends on input bits
    cols=[f(1<<j) for j in range(8)]
    return [sum(((cols[j]>>i)&1)<<j for j in range(8)) for i in range(8)]
def mmul(A,B): return mat_from_fn(lambda x: mv(A,mv(B,x)))
def minv(A):
    tbl={mv(A,x):x for x in range(256)}; assert len(tbl)==256
    return mat_from_fn(lambda y: tbl[y])
A=[((0xa7<<i)|(0xa7>>(8-i)))&0xff for i in range(8)]
C=0xd3
inv1f5=[ginv(a,0x1f5) for a in range(256)]
assert all(mv(A,inv1f5[mv(A,x)^C])^C==sb[x] for x in range(256))
# isomorphism SM4 field -> AES field: x -> beta
def pw(b,e,poly):
    r=1
    for _ in range(e): r=gmul(r,b,poly)
    return r
def is_root(b,poly_src,poly_dst):
    s=0
    for i in range(9):
        if (poly_src>>i)&1: s^=pw(b,i,poly_dst)
    return s==0
beta=[b for b in range(2,256) if is_root(b,0x1f5,0x11b)][0]
def Tf(x):
    r=0
    for i in range(8):
        if (x>>i)&1: r^=pw(beta,i,0x11b)
    return r
T=mat_from_fn(Tf); Ti=minv(T)
inv11b=[ginv(a,0x11b) for a in range(256)]
# check isomorphism
assert all(Tf(inv1f5[x])==inv11b[Tf(x)] for x in range(256))
M1=mmul(T,A); c1=mv(T,C)
M2=mmul(A,Ti); c2=C
def gfni_q(rows): return sum(rows[i]<<(8*(7-i)) for i in range(8))
assert all(mv(M2,inv11b[mv(M1,x)^c1])^c2==sb[x] for x in range(256))
print("GFNI pre  matrix %#018x const %#04x"%(gfni_q(M1),c1))
print("GFNI post matrix %#018x const %#04x"%(gfni_q(M2),c2))
# AES-NI
aes_sbox=[mv([((0xf1<<i)|(0xf1>>(8-i)))&0xff for i in range(8)], inv11b[x])^0x63 for x in range(256)]
assert aes_sbox[0]==0x63 and aes_sbox[1]==0x7c and aes_sbox[0x53]==0xed
Aaes=[((0xf1<<i)|(0xf1>>(8-i)))&0xff for i in range(8)]
Mout=mmul(mmul(A,Ti),minv(Aaes)); cout=mv(Mout,0x63)^C
assert all(mv(Mout,aes_sbox[mv(M1,x)^c1])^cout==sb[x] for x in range(256))
def nib(rows,c):
    lo=[mv(rows,i) for i in range(16)]; hi=[mv(rows,i<<4)^c for i in range(16)]
    return lo,hi
for name,(rows,c) in (("AESNI pre",(M1,c1)),("AESNI post",(Mout,cout))):
    lo,hi=nib(rows,c)
    print(name,"lo",", ".join("%#04x"%v for v in lo)); print(name,"hi",", ".join("%#04x"%v for v in hi))
# tower field GF(16)=GF2[w]/(w^4+w+1); GF(256)=GF16[Y]/(Y^2+Y+lam)
def m16(a,b):
    r=0
    for i in range(4):
        if (b>>i)&1: r^=a<<i
    for i in (6,5,4):
        if (r>>i)&1: r^=0b10011<<(i-4)
    return r
def inv16(a): return [b for b in range(16) if m16(a,b)==1][0] if a else 0
best=None
for lam in range(1,16):
    if any(m16(y,y)^y^lam==0 for y in range(16)): continue  # reducible
    def tmul(a,b):
        a1,a0,b1,b0=a>>4,a&15,b>>4,b&15
        h=m16(a1,b1)
        return ((h^m16(a1,b0)^m16(a0,b1))<<4)|(m16(h,lam)^m16(a0,b0))
    def tpw(b,e):
        r=1
        for _ in range(e): r=tmul(r,b)
        return r
    for g in range(2,256):
        s=0
        for i in range(9):
            if (0x1f5>>i)&1: s^=tpw(g,i)
        if s: continue
        def Pf(x,g=g,tpw=tpw):
            r=0
            for i in range(8):
                if (x>>i)&1: r^=tpw(g,i)
            return r
        P=mat_from_fn(Pf)
        try: Pi=minv(P)
        except AssertionError: continue
        top=mmul(P,A); bot=mmul(A,Pi)
        lamrows=mat_from_fn(lambda x: m16(x&15,lam))
        cost=sum(bin(r).count('1')-1 for r in top)+sum(bin(r).count('1')-1 for r in bot)+sum(max(0,bin(r&15).count('1')-1) for r in lamrows[:4])
        if best is None or cost<best[0]:
            best=(cost,lam,g,top,mv(P,C),bot,tmul)
cost,lam,g,top,ctop,bot,tmul=best
def tinv(a):
    a1,a0=a>>4,a&15
    d=m16(m16(a1,a1),lam)^m16(a1,a0)^m16(a0,a0)
    di=inv16(d)
    return (m16(a1,di)<<4)|m16(a0^a1,di)
assert all(tmul(a,tinv(a))==1 for a in range(1,256))
assert all(mv(bot,tinv(mv(top,x)^ctop))^C==sb[x] for x in range(256))
print("tower lam",lam,"gamma",hex(g),"cost",cost)
print("top rows",", ".join("%#04x"%r for r in top),"const %#04x"%ctop)
print("bot rows",", ".join("%#04x"%r for r in bot),"const %#04x"%C)

# Algebraic normal form of the GF(2^4) inverse (poly basis, w^4 + w + 1).
inv4=[0]+[[b for b in range(16) if m16(a,b)==1][0] for a in range(1,16)]
for bit in range(4):
    coef=[(inv4[x]>>bit)&1 for x in range(16)]
    for i in range(4):
        for x in range(16):
            if x>>i&1: coef[x]^=coef[x^(1<<i)]
    terms=[x for x in range(16) if coef[x]]
    print("inv16 bit",bit,"=",' ^ '.join(''.join('x%d'%i for i in range(4) if t>>i&1) or '1' for t in terms))
