//! A seeded generator for tests and examples: reproducible keys, nonces and messages. Not
//! random (a 64-bit LCG, Knuth's MMIX constants), never for real keys.

/// The generator; the field is the seed, then the state.
pub struct Lcg(pub u64);

impl shangmi_sm9::rand_core::TryRng for Lcg {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Ok(self.0 ^ (self.0 >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for b in dst {
            *b = (self.try_next_u64()? >> 56) as u8;
        }
        Ok(())
    }
}

impl shangmi_sm9::rand_core::TryCryptoRng for Lcg {}
