#!/usr/bin/env python3
"""Derives the constants of shangmi-zuc's S-box circuits (src/sbox.rs) from the S-box
tables of the ZUC specification (3GPP "Document 2: ZUC Specification" v1.6, section 3.4.2)
and checks every derived circuit exhaustively against those tables.

S0: the nibble decomposition used by Intel's intel-ipsec-mb (three 4-bit functions P1, P2,
P3 in a Feistel-like network, then a rotation by 5); the P tables are checked here.
S1: affine-equivalent to inversion in GF(2^8) (the ZUC specification's design notes); the
script finds the field polynomial and the affine map, then an isomorphism into the tower
field GF(16)[y]/(y^2 + y + lambda), GF(16) = GF(2)[z]/(z^4 + z + 1), where inversion is a
short circuit. Output: Rust constants (row i lists the input bits whose XOR gives bit i).
"""

S0 = bytes.fromhex("""
3E725B47CAE0003304D15498 09B96DCB7B1BF932AF9D6AA5B82DFC1D08530390
4D4E8499E4CED991DDB685488B296EACCDC1F81E734369C6B5BDFD396320D438
767DB2A7CFED57C5F32CBB142106559BE3EF5E314F7F5AA40D8251495FBA581C
4A16D517A892241F8CFFD8AE2E01D3AD3B4BDA46EBC9DE9A8F87D73A806F2FC8
B1B437F70A22132 87CCC3C89C7C39656 07BF7EF00B2B975235417961A64C10FE
BC2695888AB0A3FBC01894F2E1E5E95DD0DC1166645CEC594275 12F5749CAA23
0E86ABBE2A02E767E644A26CC2939FF1F6FA36D250689E6271153DD640C4E20F
8E83776B25053F0C30EA70B7A1E8A9658D271ADB81B3A0F4457A19DFEE783460
""".replace(" ", "").replace("\n", ""))
S1 = bytes.fromhex("""
55C263713BC847869F3CDA5B29AAFD778CC5940CA61A1300E3A8167240F9F842
442668968 1D9453E1076C6A78B3943E13AB5562AC06DB30522 66BFDC0BFA6248
DD201106 36C9C1CFF62752BB69F5D4877F844CD29C57A4BC4F9ADFFED68D7AEB
2B53D85CA11417FB23D57D306773080 9EEB7703F61B2198E4EE54B938F5DDBA9
ADF1AE2ECB0DFCF42D466E1D97E8D1E94D37A5755E839EAB829DB91CE0CD4989
01B6BD5824A25F387899159050B895E4D091C7CEED0FB46FA0CCF0024A79C3DE
A3EFEA51E66B18EC1B2C80F774E7FF215A6A541E41319235C433070ABA7E0E34
88B1987CF33D606C7BCAD31F326504286 4BE859B2F598AD7B025ACAF1203E2F2
""".replace(" ", "").replace("\n", ""))
assert len(S0) == 256 and len(S1) == 256
assert sorted(S0) == list(range(256)) and sorted(S1) == list(range(256))

# --- S0 -------------------------------------------------------------------------------
P1 = [0x9, 0xF, 0x0, 0xE, 0xF, 0xF, 0x2, 0xA, 0x0, 0x4, 0x0, 0xC, 0x7, 0x5, 0x3, 0x9]
P2 = [0x8, 0xD, 0x6, 0x5, 0x7, 0x0, 0xC, 0x4, 0xB, 0x1, 0xE, 0xA, 0xF, 0x3, 0x9, 0x2]
P3 = [0x2, 0x6, 0xA, 0x6, 0x0, 0xD, 0xA, 0xF, 0x3, 0x3, 0xD, 0x5, 0x0, 0x9, 0xC, 0xD]

def rotl8(x, n):
    return ((x << n) | (x >> (8 - n))) & 0xFF

def s0_nibbles(x):
    hi, lo = x >> 4, x & 15
    t1 = P1[lo] ^ hi
    t2 = P2[t1] ^ lo
    t3 = P3[t2] ^ t1
    return rotl8((t3 << 4) | t2, 5)

assert all(s0_nibbles(x) == S0[x] for x in range(256)), "S0 decomposition"

def anf(f, nbits=4):
    """Algebraic normal form: for each output bit, a mask over the 16 monomials."""
    out = []
    for b in range(nbits):
        coef = [(f[x] >> b) & 1 for x in range(16)]
        for i in range(4):
            for x in range(16):
                if x & (1 << i):
                    coef[x] ^= coef[x ^ (1 << i)]
        out.append(sum(c << m for m, c in enumerate(coef)))
    return out

def eval_anf(rows, x):
    y = 0
    for b, row in enumerate(rows):
        v = 0
        for m in range(16):
            if (row >> m) & 1 and (x & m) == m:
                v ^= 1
        y |= v << b
    return y

for P in (P1, P2, P3):
    assert all(eval_anf(anf(P), x) == P[x] for x in range(16))

# --- S1 -------------------------------------------------------------------------------
def gmul(a, b, poly, n=8):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a >> n:
            a ^= poly
    return r

def ginv(a, poly, n=8):
    if a == 0:
        return 0
    r = 1
    for _ in range((1 << n) - 2):
        r = gmul(r, a, poly, n)
    return r

def is_linear(f):
    return all(f[a ^ b] == f[a] ^ f[b] for a in range(256) for b in range(256))

def rows_of(f, nbits=8):
    """Rows of a linear map given as a function on ints: row i = mask of inputs for bit i."""
    return [sum(((f(1 << j) >> i) & 1) << j for j in range(nbits)) for i in range(nbits)]

def apply_rows(rows, x):
    return sum((bin(rows[i] & x).count("1") & 1) << i for i in range(len(rows)))

C1 = S1[0]
found = None
for poly in range(0x100, 0x200):
    if not poly & 1:
        continue
    inv = [ginv(x, poly) for x in range(256)]
    if sorted(inv) != list(range(256)):
        continue  # not a field
    pre = [0] * 256
    for x in range(256):
        pre[inv[x]] = S1[x] ^ C1
    if is_linear(pre):
        found = (poly, inv, pre)
        break
assert found, "S1 is not affine-equivalent to inversion"
POLY, INV_P, A_MAP = found
A_ROWS = rows_of(lambda v: A_MAP[v])

# Tower field T = GF(16)[y]/(y^2 + y + LAMBDA), byte = a_h << 4 | a_l.
def m16(a, b):
    return gmul(a, b, 0b10011, 4)

def inv16(a):
    return ginv(a, 0b10011, 4)

LAMBDA = next(l for l in range(1, 16) if all(m16(t, t) ^ t ^ l for t in range(16)))

def tmul(a, b):
    ah, al, bh, bl = a >> 4, a & 15, b >> 4, b & 15
    hh = m16(ah, bh)
    return ((hh ^ m16(ah, bl) ^ m16(al, bh)) << 4) | (m16(LAMBDA, hh) ^ m16(al, bl))

def tinv(a):
    ah, al = a >> 4, a & 15
    d = m16(LAMBDA, m16(ah, ah)) ^ m16(ah, al) ^ m16(al, al)
    e = inv16(d)
    return (m16(ah, e) << 4) | m16(ah ^ al, e)

for a in range(1, 256):
    assert tmul(a, tinv(a)) == 1

def field_pow(mul, a, k):
    r = 1
    for _ in range(k):
        r = mul(r, a)
    return r

def isomorphism(mul):
    """The field isomorphism from S1's field (polynomial basis mod POLY) into the field
    whose product is `mul`: x maps to the first root of POLY there (bit k of an element to
    that root's k-th power). Returns the map, its inverse as a table, and the root."""
    def poly_at(b):
        acc = 0
        for k in range(9):
            if (POLY >> k) & 1:
                acc ^= field_pow(mul, b, k)
        return acc
    root = next(b for b in range(2, 256) if poly_at(b) == 0)
    cols = [field_pow(mul, root, k) for k in range(8)]
    def iso(x):
        r = 0
        for k in range(8):
            if (x >> k) & 1:
                r ^= cols[k]
        return r
    inverse = [0] * 256
    for x in range(256):
        inverse[iso(x)] = x
    return iso, inverse, root

# phi: F_poly -> T, linear: bit k of x maps to beta^k (beta a root of POLY in T).
phi, PHI_INV, beta = isomorphism(tmul)
assert all(phi(gmul(a, b, POLY)) == tmul(phi(a), phi(b)) for a in range(256) for b in range(0, 256, 7))

IN_ROWS = rows_of(phi)
OUT_ROWS = rows_of(lambda v: A_MAP[PHI_INV[v]])
for x in range(256):
    assert apply_rows(OUT_ROWS, tinv(apply_rows(IN_ROWS, x))) ^ C1 == S1[x]

# The GF(16) pieces of tinv as 4-bit functions.
INV16_ANF = anf([inv16(t) for t in range(16)])
LSQ_ROWS = rows_of(lambda t: m16(LAMBDA, m16(t, t)), 4)  # lambda * t^2 is linear
SQ_ROWS = rows_of(lambda t: m16(t, t), 4)

def hexrows(rows, w=2):
    return "[" + ", ".join(f"0x{r:0{w}x}" for r in rows) + "]"

print(f"// S1's field polynomial 0x{POLY:03x}, affine constant 0x{C1:02x}, lambda {LAMBDA}, beta 0x{beta:02x}")
print(f"const S1_IN_ROWS: [u8; 8] = {hexrows(IN_ROWS)};")
print(f"const S1_OUT_ROWS: [u8; 8] = {hexrows(OUT_ROWS)};")
print(f"const S1_CONST: u8 = 0x{C1:02x};")
print(f"const LAMBDA_SQ_ROWS: [u8; 4] = {hexrows(LSQ_ROWS)};")
print(f"const SQ_ROWS: [u8; 4] = {hexrows(SQ_ROWS)};")
print(f"const INV16_ANF: [u16; 4] = {hexrows(INV16_ANF, 4)};")
for name, P in (("P1", P1), ("P2", P2), ("P3", P3)):
    print(f"const {name}_ANF: [u16; 4] = {hexrows(anf(P), 4)};")
print("// all checks passed")

# --- GFNI (x86): S1 through the AES field ----------------------------------------------
# GF2P8AFFINEQB computes, per byte x, bit i = parity(M.byte[7 - i] & x) ^ c_i, and
# GF2P8AFFINEINVQB does the same on x^-1 in GF(2^8) mod 0x11B. With phi the isomorphism
# from S1's field into the AES field: S1(x) = (A . phi^-1) . inv_AES(phi(x)) + 0x55.
AES = 0x11B
phi_aes, PHI_AES_INV, _ = isomorphism(lambda a, b: gmul(a, b, AES))
INV_AES = [ginv(x, AES) for x in range(256)]

def gfni_qword(rows):
    """The 64-bit matrix operand for rows (row i = input mask of output bit i)."""
    return sum(rows[i] << (8 * (7 - i)) for i in range(8))

def gfni_affine(q, x, c):
    y = 0
    for i in range(8):
        row = (q >> (8 * (7 - i))) & 0xFF
        y |= (bin(row & x).count("1") & 1) << i
    return y ^ c

PRE = gfni_qword(rows_of(phi_aes))
POST = gfni_qword(rows_of(lambda v: A_MAP[PHI_AES_INV[v]]))
for x in range(256):
    assert gfni_affine(POST, INV_AES[gfni_affine(PRE, x, 0)], 0) ^ C1 == S1[x]
# S0's final rotation left by 5 as a GFNI matrix.
ROT5 = gfni_qword(rows_of(lambda v: rotl8(v, 5)))
print(f"const GFNI_S1_PRE: u64 = 0x{PRE:016x};")
print(f"const GFNI_S1_POST: u64 = 0x{POST:016x};")
print(f"const GFNI_ROTL5: u64 = 0x{ROT5:016x};")
print("// GFNI checks passed")

# --- AES-NI (x86): S1 through AESENCLAST -----------------------------------------------
# AESENCLAST(s, k) = ShiftRows(SubBytes(s)) ^ k with SubBytes(y) = A_aes . inv_AES(y) + 0x63,
# so with phi as above, S1(x) = L(SubBytes(phi(x)) ^ 0x63) ^ 0x55, L = (A . phi^-1) . A_aes^-1.
# The input is permuted by the inverse of ShiftRows first, so every byte ends where it
# started; phi and L (with 0x55 folded in) run as pairs of 16-entry nibble tables (pshufb).
AES_SBOX = [0] * 256
for x in range(256):
    v = INV_AES[x]
    y = 0
    for i in range(8):
        bit = ((v >> i) ^ (v >> ((i + 4) % 8)) ^ (v >> ((i + 5) % 8)) ^ (v >> ((i + 6) % 8)) ^ (v >> ((i + 7) % 8))) & 1
        y |= bit << i
    AES_SBOX[x] = y ^ 0x63
assert AES_SBOX[0] == 0x63 and AES_SBOX[1] == 0x7C and AES_SBOX[0x53] == 0xED
A_AES_INV = [0] * 256
for v in range(256):
    A_AES_INV[AES_SBOX[INV_AES[v]] ^ 0x63] = v  # A_aes(v') = SubBytes(...) ^ 0x63
# A_AES_INV maps A_aes(v) back to v when indexed by A_aes(v).
def L(v):
    return A_MAP[PHI_AES_INV[A_AES_INV[v]]]
def nibble_tables(f, const=0):
    lo = [f(n) ^ const for n in range(16)]
    hi = [f(n << 4) for n in range(16)]
    return lo, hi
PHI_LO, PHI_HI = nibble_tables(phi_aes)
L_LO, L_HI = nibble_tables(L, C1)
# The inverse ShiftRows permutation as a pshufb index: in'[r + 4((c + r) % 4)] = x[r + 4c].
ISR = [0] * 16
for r in range(4):
    for c in range(4):
        ISR[r + 4 * ((c + r) % 4)] = r + 4 * c
def shift_rows(s):
    return [s[(j % 4) + 4 * (((j // 4) + (j % 4)) % 4)] for j in range(16)]
import random
for _ in range(50):
    xs = [random.randrange(256) for _ in range(16)]
    y = [PHI_LO[b & 15] ^ PHI_HI[b >> 4] for b in xs]
    y = [y[ISR[j]] for j in range(16)]
    y = shift_rows([AES_SBOX[b] for b in y])
    y = [b ^ 0x63 for b in y]
    y = [L_LO[b & 15] ^ L_HI[b >> 4] for b in y]
    assert y == [S1[b] for b in xs]
# S0's last step, rotl8(t3 << 4 | t2, 5), as two nibble tables ORed.
R2 = [rotl8(t, 5) for t in range(16)]
R3 = [rotl8(t << 4, 5) for t in range(16)]
for x in range(256):
    hi, lo = x >> 4, x & 15
    t1 = P1[lo] ^ hi
    t2 = P2[t1] ^ lo
    t3 = P3[t2] ^ t1
    assert R2[t2] | R3[t3] == S0[x]
def arr(t):
    return "[" + ", ".join(f"0x{v:02x}" for v in t) + "]"
for name, t in (("PHI_LO", PHI_LO), ("PHI_HI", PHI_HI), ("L_LO", L_LO), ("L_HI", L_HI),
                ("INV_SHIFT_ROWS", ISR), ("ROT_T2", R2), ("ROT_T3", R3)):
    print(f"const {name}: [u8; 16] = {arr(t)};")
print("// AES-NI checks passed")
