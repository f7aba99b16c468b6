//! Generators the integration tests share.

/// `TryRng` for a generator that only fills (the tests never ask for whole words), with
/// `fill` as its `try_fill_bytes`, and `TryCryptoRng`.
macro_rules! fill_only_rng {
    (impl$(<$g:ident: $bound:path>)? for $t:ty, $error:ty, |$self:ident, $dst:ident| $fill:expr) => {
        impl$(<$g: $bound>)? rand_core::TryRng for $t {
            type Error = $error;

            fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
                unimplemented!()
            }

            fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
                unimplemented!()
            }

            fn try_fill_bytes(&mut $self, $dst: &mut [u8]) -> Result<(), Self::Error> {
                $fill
            }
        }

        impl$(<$g: $bound>)? rand_core::TryCryptoRng for $t {}
    };
}

/// A generator that always fails.
pub struct Failing;

fill_only_rng!(impl for Failing, core::fmt::Error, |self, _dst| Err(core::fmt::Error));

/// A generator whose fills `fill` makes: the tests script their own bytes with it.
pub struct Filler<F>(pub F);

fill_only_rng!(impl<F: FnMut(&mut [u8])> for Filler<F>, core::convert::Infallible, |self, dst| {
    (self.0)(dst);
    Ok(())
});
