//! DRBG rows: generate throughput of the GM/T 0105-2021 generators (one SM3 output or one
//! SM4 block per request, as the standard limits) and of CTR_DRBG with SM4 in the
//! SP 800-90A mode (`drbg-sm4-sp800`, 65,536-byte requests), each reseeding from the
//! operating system.

use getrandom::SysRng;
use shangmi_drbg::rand_core::{Rng, UnwrapErr};
use shangmi_drbg::{
    AutoReseed, CtrDrbg, Drbg, NoClock, Sm3HashDrbg, Sm3HmacDrbg, Sm4CtrDrbg, Sp800_90a, StdClock,
};
use shangmi_sm4::Sm4;

use super::Row;

/// A row filling the buffer from DRBG `D` seeded by the operating system.
fn row<D: Drbg + 'static>(name: &'static str, clock: D::Clock) -> Row {
    let mut rng = AutoReseed::<D, _>::new(UnwrapErr(SysRng), b"shangmi speed", clock)
        .expect("an infallible source, valid inputs and a clock for the GM profiles");
    Row::new(name, 1, move |buf| rng.fill_bytes(buf))
}

/// The DRBG rows.
pub fn rows() -> Vec<Row> {
    vec![
        row::<Sm3HashDrbg<StdClock>>("drbg-sm3-hash", StdClock::new()),
        row::<Sm3HmacDrbg<StdClock>>("drbg-sm3-hmac", StdClock::new()),
        row::<Sm4CtrDrbg<StdClock>>("drbg-sm4-ctr", StdClock::new()),
        row::<CtrDrbg<Sm4, Sp800_90a, NoClock>>("drbg-sm4-sp800", NoClock),
    ]
}
