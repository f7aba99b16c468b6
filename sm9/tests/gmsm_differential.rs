//! Differential test against emmansun/gmsm v0.44.0: `tests/data/gmsm_sm9.txt` holds its
//! outputs for seeded random inputs (written by `benches/peers/gmsm_vectors/sm9.go`, see there):
//! master keys, user keys and ciphertexts in gmsm's DER forms, its signatures and KEM
//! keys, SM4-ECB/CBC ciphertexts. We must parse every key, extract the same user keys from the same master keys,
//! verify its signatures, decrypt its ciphertexts (raw and DER) and decapsulate its keys.
#![allow(clippy::unwrap_used)]

use shangmi_sm9::{
    EncryptMasterKey, EncryptMasterPublicKey, EncryptPrivateKey, SignMasterKey,
    SignMasterPublicKey, Signature, SigningKey, hid,
};

const DATA: &str = include_str!("data/gmsm_sm9.txt");

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        Vec::new()
    } else {
        hex::decode(s).unwrap()
    }
}

/// The keys of a `sign` or `enc` line (fields 1–4: master key, master public key, ID, user
/// key, all gmsm's): the master's public key and our extraction for the ID equal gmsm's,
/// and our DER of the same keys is byte-identical to gmsm's. Gives (public, id, user).
macro_rules! keys {
    ($f:expr, $master:ty, $public:ty, $user:ty) => {{
        let f = &$f;
        let master = <$master>::from_der(&unhex(f[1])).unwrap();
        let public = <$public>::from_der(&unhex(f[2])).unwrap();
        assert_eq!(master.public_key().to_bytes(), public.to_bytes());
        let id = unhex(f[3]);
        let user = <$user>::from_der(&unhex(f[4]), &public).unwrap();
        let ours = master.extract(&id).unwrap();
        assert_eq!(ours.to_uncompressed(), user.to_uncompressed());
        assert_eq!(hex::encode(master.to_der()), f[1]);
        assert_eq!(hex::encode(public.to_der()), f[2]);
        assert_eq!(hex::encode(ours.to_der()), f[4]);
        (public, id, user)
    }};
}

#[test]
fn gmsm_outputs() {
    let (mut signs, mut encs, mut kems, mut sm4s) = (0, 0, 0, 0);
    for line in DATA.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "sign" => {
                let (public, id, _) = keys!(f, SignMasterKey, SignMasterPublicKey, SigningKey);
                let msg = unhex(f[5]);
                let sig = Signature::from_der(&unhex(f[6])).unwrap();
                assert_eq!(hex::encode(sig.to_der()), f[6]);
                public.verify(&id, hid::SIGN, &msg, &sig).unwrap();
                let mut other = msg.clone();
                other.push(1);
                assert!(public.verify(&id, hid::SIGN, &other, &sig).is_err());
                signs += 1;
            }
            "enc" => {
                let (_, id, user) = keys!(
                    f,
                    EncryptMasterKey,
                    EncryptMasterPublicKey,
                    EncryptPrivateKey
                );
                let msg = unhex(f[5]);
                assert_eq!(user.decrypt(&id, &unhex(f[6])).unwrap(), msg);
                assert_eq!(user.decrypt_der(&id, &unhex(f[7])).unwrap(), msg);
                encs += 1;
            }
            "kem" => {
                let master = EncryptMasterKey::from_der(&unhex(f[1])).unwrap();
                let id = unhex(f[2]);
                let klen: usize = f[3].parse().unwrap();
                let key = unhex(f[4]);
                assert_eq!(key.len(), klen);
                let c = unhex(f[5]);
                // 04 || x || y (sm9.WrapKey's raw form).
                assert_eq!((c.len(), c[0]), (65, 4));
                let user = master.extract(&id).unwrap();
                let mut ours = vec![0u8; klen];
                user.decapsulate(&id, &c, &mut ours).unwrap();
                assert_eq!(ours, key);
                kems += 1;
            }
            "sm4" => {
                let master = EncryptMasterKey::from_der(&unhex(f[1])).unwrap();
                let id = unhex(f[2]);
                let user = master.extract(&id).unwrap();
                assert_eq!(user.decrypt_der(&id, &unhex(f[4])).unwrap(), unhex(f[3]));
                sm4s += 1;
            }
            other => panic!("unknown line kind {other}"),
        }
    }
    assert_eq!((signs, encs, kems, sm4s), (8, 8, 4, 6));
}
