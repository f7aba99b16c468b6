//! Agreeing on a key with SM2: plain ECDH (as TLS 1.3's `curveSM2` does) and the GB/T
//! 32918.3 key exchange with its confirmation values, between two parties in one process.
//!
//! `cargo run --example sm2_key_exchange`

use getrandom::SysRng;
use hmac::{Hmac, KeyInit, Mac};
use shangmi_sm2::elliptic_curve::Generate;
use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::{Peer, SecretKey, Sm3, ecdh};

fn main() -> Result<(), Box<dyn core::error::Error>> {
    // Long-term keys (in practice loaded from PEM, see the sm2_sign example).
    let alice = SecretKey::try_generate_from_rng(&mut SysRng)?;
    let bob = SecretKey::try_generate_from_rng(&mut SysRng)?;

    // ECDH: x(d_A·Q_B) = x(d_B·Q_A). Never use it as a key directly: derive one.
    let shared = ecdh::diffie_hellman(&alice, &bob.public_key());
    assert_eq!(
        shared.as_bytes(),
        ecdh::diffie_hellman(&bob, &alice.public_key()).as_bytes()
    );
    let mut kdf = <Hmac<Sm3> as KeyInit>::new_from_slice(b"example ECDH salt")?;
    kdf.update(shared.as_bytes());
    println!(
        "ECDH-derived key: {}",
        hex::encode(&kdf.finalize().into_bytes()[..16])
    );

    // GB/T 32918.3: each side makes an ephemeral key and sends its public half.
    let (alice_id, bob_id) = (
        b"alice@example.com".as_slice(),
        b"bob@example.com".as_slice(),
    );
    let a = KeyExchange::new(&mut SysRng, Role::Initiator, &alice, alice_id)?;
    let b = KeyExchange::new(&mut SysRng, Role::Responder, &bob, bob_id)?;
    let (r_a, r_b) = (a.ephemeral_public(), b.ephemeral_public());

    // Bob receives R_A, derives the key and sends R_B with his confirmation S_B.
    let mut key_b = [0u8; 16];
    let alice_public = alice.public_key();
    let alice_seen = Peer::new(&alice_public, alice_id, &r_a);
    let confirm_b = b.finish(alice_seen, &mut key_b)?;
    // Alice receives R_B and S_B, derives the key, checks S_B and sends S_A.
    let mut key_a = [0u8; 16];
    let bob_public = bob.public_key();
    let bob_seen = Peer::new(&bob_public, bob_id, &r_b);
    let confirm_a = a.finish(bob_seen, &mut key_a)?;
    confirm_a.verify(confirm_b.to_send())?;
    // Bob checks S_A.
    confirm_b.verify(confirm_a.to_send())?;

    assert_eq!(key_a, key_b);
    println!(
        "key exchange:     {} (both sides, confirmed)",
        hex::encode(key_a)
    );
    Ok(())
}
