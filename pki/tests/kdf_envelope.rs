//! The SM3 KDF against published outputs, and SM2EnvelopedKey round trips and refusals.
#![allow(clippy::unwrap_used, clippy::cloned_ref_to_slice_refs)]

use hex_literal::hex;
use shangmi_pki::envelope;
use shangmi_pki::generate_key;
use shangmi_pki::kdf::sm3_kdf;

/// emmansun/gmsm @ d2057224 sm3/sm3_test.go TestKdf / TestKdfOldCase (via
/// ../shared/vectors/gmsm/sm3.json): z, length, key.
#[test]
fn kdf_gmsm_vectors() {
    let z = b"emmansun";
    let k48 = hex!(
        "708993ef1388a0ae4245a19bb6c02554c632633e356ddb989beb804fda96cfd4"
        "7eba4fa460e7b277bc6b4ce4d07ed493"
    );
    assert_eq!(sm3_kdf(z, 16), k48[..16]);
    assert_eq!(sm3_kdf(z, 32), k48[..32]);
    assert_eq!(sm3_kdf(z, 48), k48);
    // case 5: z is the ASCII hex of case 3's key, twice; 121 bytes out
    let hex48 = hex::encode(k48);
    let z5 = format!("{hex48}{hex48}");
    assert_eq!(
        sm3_kdf(z5.as_bytes(), 121),
        hex!(
            "49cf14649f324a07e0d5bb2a00f7f05d5f5bdd6d14dff028e071327ec031104590eddb18f98b763e"
            "18bf382ff7c3875f30277f3179baebd795e7853fa643fdf280d8d7b81a2ab7829f615e132ab376d3"
            "2194cd315908d27090e1180ce442d9be99322523db5bfac40ac5acb03550f5c93e5b01b1d71f2630"
            "86"
        )
    );
    assert_eq!(
        sm3_kdf(
            &hex!(
                "64d20d27d0632957f8028c1e024f6b02edf23102a566c932ae8bd613a8e865fe"
                "58d225eca784ae300a81a2d48281a828e1cedf11c4219099840265375077bf78"
            ),
            19
        ),
        hex!("006e30dae231b071dfad8aa379e90264491603")
    );
    assert!(sm3_kdf(z, 0).is_empty());
}

#[test]
fn envelope_round_trip() {
    let recipient = generate_key().unwrap();
    let wrapped_key = generate_key().unwrap();
    let der = envelope::wrap(&recipient.public_key(), &wrapped_key).unwrap();
    assert_eq!(
        envelope::public_key(&der).unwrap(),
        wrapped_key.public_key()
    );
    let back = envelope::unwrap(&recipient, &der).unwrap();
    assert_eq!(back.to_bytes(), wrapped_key.to_bytes());
    // another recipient key cannot open it
    let other = generate_key().unwrap();
    assert!(envelope::unwrap(&other, &der).is_err());
    // every truncation and every single-byte change is refused or yields the same key, never a panic
    for n in 0..der.len() {
        assert!(envelope::unwrap(&recipient, &der[..n]).is_err());
    }
    for i in 0..der.len() {
        let mut d = der.clone();
        d[i] ^= 0x40;
        if let Ok(k) = envelope::unwrap(&recipient, &d) {
            assert_eq!(k.to_bytes(), wrapped_key.to_bytes(), "byte {i}");
        }
    }
    let mut trailing = der.clone();
    trailing.push(0);
    assert!(envelope::unwrap(&recipient, &trailing).is_err());
}
