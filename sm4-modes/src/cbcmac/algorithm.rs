//! The MAC algorithms of GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) over SM4, each the CBC
//! chain H_i = E_K(H_i−1 ⊕ D_i) with its own initial and output transformations.
//! Algorithm 5 (CMAC) is [`Sm4Cmac`](crate::Sm4Cmac).

use core::marker::PhantomData;

use cipher::{
    Array, Block, BlockCipherDecrypt, BlockCipherEncrypt,
    array::ArraySize,
    consts::{U16, U32},
    typenum::{IsLessOrEqual, NonZero, True},
};
use shangmi_sm4::Sm4;

use super::Padding;
use super::padding::{Padding1, Padding2, Padding3, Padding4};

/// A MAC algorithm of GB/T 15852.1-2020 over SM4: its keys, initial transformation and
/// output transformation. Sealed.
pub trait Algorithm: sealed::Sealed + Clone + 'static {
    /// The algorithm's name, as `AlgorithmName` shows it.
    const NAME: &'static str;
    /// The key: 16 bytes (K), or 32 for two-key algorithms (K ‖ K′).
    type KeySize: ArraySize;
    /// The tag length in bytes.
    type OutputSize: ArraySize;
    /// Which padding methods the algorithm takes ([`Padding::BIT`]s).
    #[doc(hidden)]
    const PADDINGS: u8;
    /// The ciphers the key schedule makes, each by `sm4`.
    #[doc(hidden)]
    fn new<E>(
        key: &Array<u8, Self::KeySize>,
        sm4: &impl Fn(&Block<Sm4>) -> Result<Sm4, E>,
    ) -> Result<Self, E>;
    /// H_0.
    #[doc(hidden)]
    fn initial_state(&self) -> Block<Sm4> {
        Block::<Sm4>::default()
    }
    /// The cipher of the CBC chain.
    #[doc(hidden)]
    fn chain_cipher(&self) -> &Sm4;
    /// Absorbs `blocks`; `first` says whether the first of them is the message's first.
    #[doc(hidden)]
    fn chain(&self, state: &mut Block<Sm4>, blocks: &[Block<Sm4>], _first: bool) {
        self.chain_cipher().cbc_chain(state, blocks);
    }
    /// The final block `last` (after padding) and the output transformation.
    #[doc(hidden)]
    fn finish(
        &self,
        state: Block<Sm4>,
        last: &Block<Sm4>,
        first: bool,
        padded: bool,
    ) -> Array<u8, Self::OutputSize>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::CbcMac1 {}
    impl Sealed for super::Emac {}
    impl Sealed for super::AnsiRetailMac {}
    impl Sealed for super::MacDes {}
    impl Sealed for super::Lmac {}
    impl<T> Sealed for super::TrCbc<T> {}
    impl Sealed for super::Cbcr {}
}

/// Padding methods 1, 2 and 3.
const PAD_123: u8 = Padding1::BIT | Padding2::BIT | Padding3::BIT;

/// The two 16-byte halves of a 32-byte key, as ciphers made by `sm4`.
fn two_keys<E>(
    key: &Array<u8, U32>,
    sm4: &impl Fn(&Block<Sm4>) -> Result<Sm4, E>,
) -> Result<(Sm4, Sm4), E> {
    let (k, k2) = key.split_ref::<U16>();
    Ok((sm4(k)?, sm4(k2)?))
}

fn encrypted(cipher: &Sm4, mut b: Block<Sm4>) -> Block<Sm4> {
    cipher.encrypt_block(&mut b);
    b
}

/// The last block through the chain (the common `finish` before the output step).
fn absorb_last<A: Algorithm>(
    a: &A,
    mut state: Block<Sm4>,
    last: &Block<Sm4>,
    first: bool,
) -> Block<Sm4> {
    a.chain(&mut state, core::slice::from_ref(last), first);
    state
}

/// The algorithms: each one's struct, then its `impl Algorithm` written from its name, key
/// and tag sizes, padding methods, key schedule (`new(key, sm4)`: the key and the cipher
/// maker), the field holding the chain's cipher and the methods it overrides. Static
/// dispatch as before: the macro only writes the lines every impl repeated.
macro_rules! algorithms {
    ($(
        $s:item
        impl$(<$g:ident>)? for $ty:ty $(where [$($w:tt)*])?:
            $name:literal, $ks:ty => $os:ty, $pads:path {
            new($key:ident, $sm4:ident) $new:block
            chain $f:tt;
            $($method:item)*
        }
    )*) => {$(
        $s

        impl$(<$g>)? Algorithm for $ty $(where $($w)*)? {
            const NAME: &'static str = $name;
            type KeySize = $ks;
            type OutputSize = $os;
            const PADDINGS: u8 = $pads;
            fn new<E>(
                $key: &Array<u8, $ks>,
                $sm4: &impl Fn(&Block<Sm4>) -> Result<Sm4, E>,
            ) -> Result<Self, E> $new
            fn chain_cipher(&self) -> &Sm4 {
                &self.$f
            }
            $($method)*
        }
    )*};
}

algorithms! {
    /// MAC algorithm 1, CBC-MAC: G = H_q.
    #[derive(Clone, Debug)]
    pub struct CbcMac1(Sm4);
    impl for CbcMac1: "CBC-MAC", U16 => U16, PAD_123 {
        new(key, sm4) { Ok(CbcMac1(sm4(key)?)) }
        chain 0;
        fn finish(&self, state: Block<Sm4>, last: &Block<Sm4>, first: bool, _: bool) -> Block<Sm4> {
            absorb_last(self, state, last, first)
        }
    }

    /// MAC algorithm 2, EMAC: G = E_K′(H_q).
    #[derive(Clone, Debug)]
    pub struct Emac(Sm4, Sm4);
    impl for Emac: "EMAC", U32 => U16, PAD_123 {
        new(key, sm4) { two_keys(key, sm4).map(|(k, k2)| Emac(k, k2)) }
        chain 0;
        fn finish(&self, state: Block<Sm4>, last: &Block<Sm4>, first: bool, _: bool) -> Block<Sm4> {
            encrypted(&self.1, absorb_last(self, state, last, first))
        }
    }

    /// MAC algorithm 3, ANSI retail MAC (ARMAC): G = E_K(D_K′(H_q)).
    #[derive(Clone, Debug)]
    pub struct AnsiRetailMac(Sm4, Sm4);
    impl for AnsiRetailMac: "ANSI retail MAC", U32 => U16, PAD_123 {
        new(key, sm4) { two_keys(key, sm4).map(|(k, k2)| AnsiRetailMac(k, k2)) }
        chain 0;
        fn finish(&self, state: Block<Sm4>, last: &Block<Sm4>, first: bool, _: bool) -> Block<Sm4> {
            let mut h = absorb_last(self, state, last, first);
            self.1.decrypt_block(&mut h);
            encrypted(&self.0, h)
        }
    }

    /// MAC algorithm 4, MacDES: H_1 = E_K″(E_K(D_1)), G = E_K′(H_q), where K″ is K′ with
    /// every other nibble complemented (K′ ⊕ F0F0…F0, the derivation of the standard's
    /// example).
    #[derive(Clone, Debug)]
    pub struct MacDes {
        k: Sm4,
        k2: Sm4,
        k3: Sm4,
    }
    impl for MacDes: "MacDES", U32 => U16, PAD_123 {
        new(key, sm4) {
            let (k, k2) = two_keys(key, sm4)?;
            let mut k3 = Block::<Sm4>::default();
            for (d, s) in k3.iter_mut().zip(&key[16..]) {
                *d = s ^ 0xf0;
            }
            let k3 = sm4(&k3)?;
            Ok(MacDes { k, k2, k3 })
        }
        chain k;
        fn chain(&self, state: &mut Block<Sm4>, mut blocks: &[Block<Sm4>], first: bool) {
            if first && let Some((d1, rest)) = blocks.split_first() {
                // H_0 = 0, so H_1 = E_K″(E_K(D_1)).
                *state = encrypted(&self.k3, encrypted(&self.k, *d1));
                blocks = rest;
            }
            self.k.cbc_chain(state, blocks);
        }
        fn finish(&self, state: Block<Sm4>, last: &Block<Sm4>, first: bool, _: bool) -> Block<Sm4> {
            encrypted(&self.k2, absorb_last(self, state, last, first))
        }
    }

    /// MAC algorithm 6, LMAC: K1 = E_K(0…01), K2 = E_K(0…02); the chain runs under K1 up
    /// to the last block, and G = E_K2(H_q−1 ⊕ D_q).
    #[derive(Clone, Debug)]
    pub struct Lmac(Sm4, Sm4);
    impl for Lmac: "LMAC", U16 => U16, PAD_123 {
        new(key, sm4) {
            let k = sm4(key)?;
            let derived = |n: u8| {
                let mut b = Block::<Sm4>::default();
                b[15] = n;
                sm4(&encrypted(&k, b))
            };
            Ok(Lmac(derived(1)?, derived(2)?))
        }
        chain 0;
        fn finish(&self, mut state: Block<Sm4>, last: &Block<Sm4>, _: bool, _: bool) -> Block<Sm4> {
            xor(&mut state, last);
            encrypted(&self.1, state)
        }
    }

    /// MAC algorithm 7, TrCBC (Dutta, Nandi and Paul, "Another look at CBC-MAC", 2011)
    /// with a `T`-byte tag (1 to 16; the standard's examples take 8): G = the first T bytes
    /// of H_q for a message of whole blocks, the last T bytes when padding method 4 added
    /// bits.
    #[derive(Clone, Debug)]
    pub struct TrCbc<T>(Sm4, PhantomData<T>);
    impl<T> for TrCbc<T>
    where [T: ArraySize + NonZero + IsLessOrEqual<U16, Output = True> + 'static]:
        "TrCBC", U16 => T, Padding4::BIT {
        new(key, sm4) { Ok(TrCbc(sm4(key)?, PhantomData)) }
        chain 0;
        fn finish(&self, h: Block<Sm4>, last: &Block<Sm4>, first: bool, pad: bool) -> Array<u8, T> {
            let h = absorb_last(self, h, last, first);
            // Which end is public: whether the message length is a multiple of 16.
            let at = if pad { 16 - T::USIZE } else { 0 };
            Array::try_from(&h[at..at + T::USIZE]).unwrap_or_default()
        }
    }

    /// MAC algorithm 8, CBCR (Zhang, Wu, Wang et al., "CBCR: CBC MAC with rotating
    /// transformations", 2011): H_0 = E_K(0); the last step is G = E_K(X) with
    /// X = H_q−1 ⊕ D_q shifted one bit left (its top bit dropped) when padding method 4
    /// added bits and rotated one bit right otherwise — as the standard's examples and gmsm
    /// compute them.
    #[derive(Clone, Debug)]
    pub struct Cbcr(Sm4);
    impl for Cbcr: "CBCR", U16 => U16, Padding4::BIT {
        new(key, sm4) { Ok(Cbcr(sm4(key)?)) }
        chain 0;
        fn initial_state(&self) -> Block<Sm4> {
            encrypted(&self.0, Block::<Sm4>::default())
        }
        fn finish(&self, h: Block<Sm4>, last: &Block<Sm4>, _: bool, padded: bool) -> Block<Sm4> {
            let mut x = u128::from_be_bytes(h.into());
            x ^= u128::from_be_bytes((*last).into());
            let x = if padded { x << 1 } else { x.rotate_right(1) };
            encrypted(&self.0, x.to_be_bytes().into())
        }
    }
}

fn xor(a: &mut Block<Sm4>, b: &Block<Sm4>) {
    for (a, b) in a.iter_mut().zip(b.iter()) {
        *a ^= b;
    }
}

/// Compile-time check that algorithm `A` takes padding `P` (a misuse fails to build).
pub(super) struct Takes<A, P>(PhantomData<(A, P)>);

impl<A: Algorithm, P: Padding> Takes<A, P> {
    pub(super) const OK: () = assert!(
        A::PADDINGS & P::BIT != 0,
        "this GB/T 15852.1 MAC algorithm does not take this padding method"
    );
}
