//! SM9 key exchange (GM/T 0044-2016 part 3; GB/T 38635.2-2020), with the optional key
//! confirmation values SB (0x82) and SA (0x83).

use crate::enc::{EncryptPrivateKey, ct_eq};
use crate::error::Error;
use crate::field::Fn;
use crate::hash::{kdf, sm3};
use crate::hid;
use crate::pairing::pairing_prepared;
use crate::points::{g1_from_bytes, g1_to_bytes, random_scalar};
use crate::tower::Fp12;
use rand_core::TryCryptoRng;

/// One side of an SM9 key exchange. The initiator A calls [`KeyExchange::init`], then
/// [`KeyExchange::confirm_responder`]; the responder B calls [`KeyExchange::respond`],
/// then (with confirmation) [`KeyExchange::confirm_initiator`]. Both users' keys come from
/// the same encryption master key with hid 0x02 ([`hid::KEY_EXCHANGE`]).
pub struct KeyExchange<'a> {
    key: &'a EncryptPrivateKey,
    own_id: &'a [u8],
    peer_id: &'a [u8],
    initiator: bool,
    r: Option<Fn>,
    own_r: [u8; 64],
    peer_r: [u8; 64],
    g: [Fp12; 3],
    done: bool,
}

impl<'a> KeyExchange<'a> {
    /// The initiator A with its key, its identity and B's identity.
    pub fn initiator(key: &'a EncryptPrivateKey, own_id: &'a [u8], peer_id: &'a [u8]) -> Self {
        Self::new(key, own_id, peer_id, true)
    }

    /// The responder B with its key, its identity and A's identity.
    pub fn responder(key: &'a EncryptPrivateKey, own_id: &'a [u8], peer_id: &'a [u8]) -> Self {
        Self::new(key, own_id, peer_id, false)
    }

    fn new(key: &'a EncryptPrivateKey, own_id: &'a [u8], peer_id: &'a [u8], init: bool) -> Self {
        Self {
            key,
            own_id,
            peer_id,
            initiator: init,
            r: None,
            own_r: [0; 64],
            peer_r: [0; 64],
            g: [Fp12::ONE; 3],
            done: false,
        }
    }

    /// r·Q_peer with Q_peer = H1(ID_peer || 0x02)·P1 + Ppub-e.
    fn ephemeral(&mut self, r: Fn) -> Result<[u8; 64], Error> {
        let master = &self.key.master;
        // r·Q is the identity exactly when Q is (r ∈ [1, N-1]): `InvalidKey` below.
        let q = master.user_point_unchecked(self.peer_id, hid::KEY_EXCHANGE);
        let p = master
            .user_mul(&q, &r)
            .to_affine()
            .ok_or(Error::InvalidKey)?;
        self.own_r = g1_to_bytes(&p);
        self.r = Some(r);
        Ok(self.own_r)
    }

    /// A1-A4: the initiator's RA (64 bytes x || y) to send to B.
    pub fn init<R: TryCryptoRng + ?Sized>(&mut self, rng: &mut R) -> Result<[u8; 64], Error> {
        if !self.initiator || self.r.is_some() {
            return Err(Error::InvalidArgument);
        }
        let r = random_scalar(rng)?;
        self.ephemeral(r)
    }

    /// Test hook: A1-A4 with a fixed rA.
    #[doc(hidden)]
    pub fn init_with_fixed_r(&mut self, r: &[u8; 32]) -> Result<[u8; 64], Error> {
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        self.ephemeral(r)
    }

    /// (ID_A, ID_B, R_A, R_B) in the standard's order.
    fn transcript(&self) -> ([&[u8]; 2], [&[u8; 64]; 2]) {
        if self.initiator {
            ([self.own_id, self.peer_id], [&self.own_r, &self.peer_r])
        } else {
            ([self.peer_id, self.own_id], [&self.peer_r, &self.own_r])
        }
    }

    fn shared_key(&self, out: &mut [u8]) {
        let ([ida, idb], [ra, rb]) = self.transcript();
        let (g1, g2, g3) = (
            self.g[0].to_bytes(),
            self.g[1].to_bytes(),
            self.g[2].to_bytes(),
        );
        kdf(&[ida, idb, ra, rb, &g1, &g2, &g3], out);
    }

    fn confirmation(&self, prefix: u8) -> [u8; 32] {
        let ([ida, idb], [ra, rb]) = self.transcript();
        let inner = sm3(&[
            &self.g[1].to_bytes(),
            &self.g[2].to_bytes(),
            ida,
            idb,
            ra,
            rb,
        ]);
        sm3(&[&[prefix], &self.g[0].to_bytes(), &inner])
    }

    /// B1-B7: checks RA, computes RB, the shared key (into `key_out`) and SB; returns
    /// (RB, SB). Send SB only if key confirmation is wanted.
    pub fn respond<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
        ra: &[u8],
        key_out: &mut [u8],
    ) -> Result<([u8; 64], [u8; 32]), Error> {
        let r = random_scalar(rng)?;
        self.respond_with_r(r, ra, key_out)
    }

    /// Test hook: B1-B7 with a fixed rB.
    #[doc(hidden)]
    pub fn respond_with_fixed_r(
        &mut self,
        r: &[u8; 32],
        ra: &[u8],
        key_out: &mut [u8],
    ) -> Result<([u8; 64], [u8; 32]), Error> {
        let r = Fn::from_bytes_nonzero(r).ok_or(Error::InvalidArgument)?;
        self.respond_with_r(r, ra, key_out)
    }

    fn respond_with_r(
        &mut self,
        r: Fn,
        ra: &[u8],
        key_out: &mut [u8],
    ) -> Result<([u8; 64], [u8; 32]), Error> {
        if self.initiator || self.r.is_some() || key_out.is_empty() {
            return Err(Error::InvalidArgument);
        }
        let pa = g1_from_bytes(ra)?;
        self.peer_r = g1_to_bytes(&pa);
        let rb = self.ephemeral(r)?;
        let rl = r.to_limbs();
        let g1 = pairing_prepared(&pa, &self.key.prep);
        let g2 = self.key.master.g.pow(&rl);
        let g3 = crate::pairing::gt_pow(&g1, &rl);
        self.g = [g1, g2, g3];
        self.shared_key(key_out);
        Ok((rb, self.confirmation(0x82)))
    }

    /// A5-A8: checks RB and (if given) SB, computes the shared key into `key_out` and
    /// returns SA for B's optional confirmation.
    pub fn confirm_responder(
        &mut self,
        rb: &[u8],
        sb: Option<&[u8]>,
        key_out: &mut [u8],
    ) -> Result<[u8; 32], Error> {
        let r = match self.r {
            Some(r) if self.initiator && !self.done => r,
            _ => return Err(Error::InvalidArgument),
        };
        if key_out.is_empty() {
            return Err(Error::InvalidArgument);
        }
        let pb = g1_from_bytes(rb)?;
        self.peer_r = g1_to_bytes(&pb);
        let rl = r.to_limbs();
        let g1 = self.key.master.g.pow(&rl);
        let g2 = pairing_prepared(&pb, &self.key.prep);
        let g3 = crate::pairing::gt_pow(&g2, &rl);
        self.g = [g1, g2, g3];
        if let Some(sb) = sb
            && !ct_eq(sb, &self.confirmation(0x82))
        {
            return Err(Error::KeyConfirmation);
        }
        self.done = true;
        self.shared_key(key_out);
        Ok(self.confirmation(0x83))
    }

    /// B8 (optional): checks the initiator's SA.
    pub fn confirm_initiator(&self, sa: &[u8]) -> Result<(), Error> {
        if self.initiator || self.r.is_none() {
            return Err(Error::InvalidArgument);
        }
        if ct_eq(sa, &self.confirmation(0x83)) {
            Ok(())
        } else {
            Err(Error::KeyConfirmation)
        }
    }
}

impl core::fmt::Debug for KeyExchange<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyExchange")
            .field("initiator", &self.initiator)
            .finish_non_exhaustive()
    }
}
