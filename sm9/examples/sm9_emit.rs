//! Writes signatures and ciphertexts made by this crate for fixed seeds, one per line, for
//! checking by hand against another implementation (the reverse direction of
//! `tests/gmsm_differential.rs`):
//! `cargo run -p shangmi-sm9 --example sm9_emit > ours.txt`.
//!
//! Lines: `sign <master public DER> <id> <msg> <signature DER>` and
//! `enc <master DER> <id> <msg> <ciphertext DER>` (hex), enc types 0, 1, 2 in turn.

use shangmi_sm9::{BlockMode, CiphertextForm, EncryptMasterKey, SignMasterKey};

#[path = "../tests/support/lcg.rs"]
mod lcg;
use lcg::Lcg;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() -> Result<(), shangmi_sm9::Error> {
    let mut rng = Lcg(2026);
    for i in 0..6usize {
        let kgc = SignMasterKey::random(&mut rng)?;
        let id = format!("user{i}@example.com");
        let msg = vec![i as u8; 3 + 17 * i];
        let sig = kgc.extract(id.as_bytes())?.sign_with_rng(&mut rng, &msg)?;
        let pk = kgc.public_key().to_der();
        println!(
            "sign {} {} {} {}",
            hex(&pk),
            hex(id.as_bytes()),
            hex(&msg),
            hex(&sig.to_der())
        );
    }
    for i in 0..6usize {
        let kgc = EncryptMasterKey::random(&mut rng)?;
        let id = format!("user{i}@example.com");
        let msg = vec![0x40 + i as u8; 1 + 13 * i];
        let ct = match i % 3 {
            0 => kgc
                .public_key()
                .encrypt_der(&mut rng, id.as_bytes(), &msg)?,
            1 => kgc.public_key().encrypt_sm4(
                &mut rng,
                id.as_bytes(),
                &msg,
                BlockMode::Ecb,
                CiphertextForm::Der,
            )?,
            _ => kgc.public_key().encrypt_sm4(
                &mut rng,
                id.as_bytes(),
                &msg,
                BlockMode::Cbc,
                CiphertextForm::Der,
            )?,
        };
        println!(
            "enc {} {} {} {}",
            hex(&kgc.to_der()),
            hex(id.as_bytes()),
            hex(&msg),
            hex(&ct)
        );
    }
    Ok(())
}
