//! A plain table-based ZUC-128 (3GPP "Document 2: ZUC Specification" v1.6): the negative
//! control of `constant_time.rs`, whose S-box lookups memcheck must report.

// S0 and S1 of the ZUC specification, section 3.4.2 (shared with the circuits' unit test).
#[path = "sbox_tables.rs"]
mod sbox_tables;
use sbox_tables::{S0_TABLE, S1_TABLE};

fn rot31(x: u32, k: u32) -> u32 {
    ((x << k) | (x >> (31 - k))) & 0x7fff_ffff
}

fn add31(a: u32, b: u32) -> u32 {
    let c = a.wrapping_add(b);
    (c & 0x7fff_ffff) + (c >> 31)
}

fn sbox(x: u32) -> u32 {
    let b = x.to_be_bytes();
    u32::from_be_bytes([
        S0_TABLE[b[0] as usize],
        S1_TABLE[b[1] as usize],
        S0_TABLE[b[2] as usize],
        S1_TABLE[b[3] as usize],
    ])
}

/// `n` key words of ZUC-128.
pub fn keystream(key: &[u8; 16], iv: &[u8; 16], n: usize) -> Vec<u32> {
    const D: [u32; 16] = [
        0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4,
        0x1af1, 0x5e26, 0x3c4d, 0x789a, 0x47ac,
    ];
    let mut s: Vec<u32> = (0..16)
        .map(|i| (u32::from(key[i]) << 23) | (D[i] << 8) | u32::from(iv[i]))
        .collect();
    let (mut r1, mut r2) = (0u32, 0u32);
    let step = |s: &mut Vec<u32>, init: bool, r1: &mut u32, r2: &mut u32| -> u32 {
        let x0 = ((s[15] & 0x7fff_8000) << 1) | (s[14] & 0xffff);
        let x1 = (s[11] << 16) | (s[9] >> 15);
        let x2 = (s[7] << 16) | (s[5] >> 15);
        let x3 = (s[2] << 16) | (s[0] >> 15);
        let w = (x0 ^ *r1).wrapping_add(*r2);
        let w1 = r1.wrapping_add(x1);
        let w2 = *r2 ^ x2;
        let u = (w1 << 16) | (w2 >> 16);
        let v = (w2 << 16) | (w1 >> 16);
        let l1 = u ^ u.rotate_left(2) ^ u.rotate_left(10) ^ u.rotate_left(18) ^ u.rotate_left(24);
        let l2 = v ^ v.rotate_left(8) ^ v.rotate_left(14) ^ v.rotate_left(22) ^ v.rotate_left(30);
        *r1 = sbox(l1);
        *r2 = sbox(l2);
        let mut f = s[0];
        for (cell, k) in [(0, 8), (4, 20), (10, 21), (13, 17), (15, 15)] {
            f = add31(f, rot31(s[cell], k));
        }
        if init {
            f = add31(f, w >> 1);
        }
        if f == 0 {
            f = 0x7fff_ffff;
        }
        s.remove(0);
        s.push(f);
        w ^ x3
    };
    for _ in 0..32 {
        step(&mut s, true, &mut r1, &mut r2);
    }
    step(&mut s, false, &mut r1, &mut r2);
    (0..n)
        .map(|_| step(&mut s, false, &mut r1, &mut r2))
        .collect()
}
