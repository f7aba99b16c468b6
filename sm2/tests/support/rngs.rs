//! Generators the integration tests share.

/// A generator that always fails.
pub struct Failing;

impl rand_core::TryRng for Failing {
    type Error = core::fmt::Error;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        unimplemented!()
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        unimplemented!()
    }

    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        Err(core::fmt::Error)
    }
}

impl rand_core::TryCryptoRng for Failing {}

/// A generator whose fills `fill` makes: the tests script their own bytes with it.
pub struct Filler<F>(pub F);

impl<F: FnMut(&mut [u8])> rand_core::TryRng for Filler<F> {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        unimplemented!()
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        unimplemented!()
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        (self.0)(dst);
        Ok(())
    }
}

impl<F: FnMut(&mut [u8])> rand_core::TryCryptoRng for Filler<F> {}
