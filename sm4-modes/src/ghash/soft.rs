//! Portable, constant-time POLYVAL multiplication: carry-less products from integer
//! multiplications of operands with 3-bit holes (BearSSL's `ghash_ctmul` technique, Thomas
//! Pornin), Karatsuba from 32×32 up to 128×128 bits, and the Montgomery reduction of RFC 8452
//! with shifts in place of the multiplication by the constant 0xc2…

/// Carry-less 32×32 → 64-bit product. Each operand is split into four classes of bits
/// (positions ≡ k mod 4); a product of two classes sums at most eight ones per column, which
/// fits the four-bit spacing, so no carry reaches the next bit of the same class.
#[inline(always)]
fn bmul32(x: u32, y: u32) -> u64 {
    const M: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    let (x, y) = (u64::from(x), u64::from(y));
    let xs = [x & M[0], x & M[1], x & M[2], x & M[3]];
    let ys = [y & M[0], y & M[1], y & M[2], y & M[3]];
    let mut z = 0;
    for (k, m) in M.iter().enumerate() {
        // Class k of the product: classes i and j with i + j ≡ k (mod 4).
        let mut acc = 0u64;
        for (i, xi) in xs.iter().enumerate() {
            acc ^= xi.wrapping_mul(ys[(k + 4 - i) % 4]);
        }
        z |= acc & m;
    }
    z
}

/// Carry-less 64×64 → 128-bit product (Karatsuba over [`bmul32`]).
#[inline(always)]
fn bmul64(x: u64, y: u64) -> u128 {
    let (x0, x1) = (x as u32, (x >> 32) as u32);
    let (y0, y1) = (y as u32, (y >> 32) as u32);
    let lo = bmul32(x0, y0);
    let hi = bmul32(x1, y1);
    let mid = bmul32(x0 ^ x1, y0 ^ y1) ^ lo ^ hi;
    u128::from(lo) ^ (u128::from(mid) << 32) ^ (u128::from(hi) << 64)
}

/// The product x^64·L0·(x^63 + x^62 + x^57), i.e. the carry-less product of a 64-bit word
/// with the reduction constant 0xc2 << 56, as shifts.
#[inline(always)]
fn times_poly(l0: u64) -> u128 {
    let l = u128::from(l0);
    (l << 63) ^ (l << 62) ^ (l << 57)
}

/// POLYVAL's dot(a, b) = a·b·x^-128 mod x^128 + x^127 + x^126 + x^121 + 1 (RFC 8452 §3),
/// on little-endian 128-bit integers.
pub(super) fn dot(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = bmul64(a0, b0);
    let hi = bmul64(a1, b1);
    let mid = bmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    let lo = lo ^ (mid << 64);
    let hi = hi ^ (mid >> 64);
    // Two Montgomery steps of 64 bits each (see `reduce` in the CLMUL engine).
    let lo = lo.rotate_left(64) ^ times_poly(lo as u64);
    let lo = lo.rotate_left(64) ^ times_poly(lo as u64);
    lo ^ hi
}

/// Absorbs `data` (whole blocks) into `acc`: acc = dot(acc ⊕ X, H) per block. `REV` reads the
/// blocks big-endian (GHASH's order) instead of little-endian (POLYVAL's).
pub(super) fn update<const REV: bool>(h: u128, mut acc: u128, data: &[u8]) -> u128 {
    let (blocks, _) = data.as_chunks::<16>();
    for b in blocks {
        let x = if REV {
            u128::from_be_bytes(*b)
        } else {
            u128::from_le_bytes(*b)
        };
        acc = dot(acc ^ x, h);
    }
    acc
}
