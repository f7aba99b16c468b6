//! The `zeroize` feature: `Zeroize::zeroize` (which `Drop` calls) wipes every private key
//! type, checked through its encoding.
#![cfg(feature = "zeroize")]

use shangmi_sm9::zeroize::{Zeroize, ZeroizeOnDrop};
use shangmi_sm9::{EncryptMasterKey, EncryptPrivateKey, SignMasterKey, SigningKey};

fn on_drop<T: ZeroizeOnDrop>(_: &T) {}

#[test]
fn keys_are_wiped() {
    let ks = [0x5a; 32];
    let mut master = SignMasterKey::from_bytes(&ks).expect("master key");
    let mut user: SigningKey = master.extract(b"Alice").expect("extract");
    on_drop(&master);
    on_drop(&user);
    assert_ne!(master.to_bytes(), [0; 32]);
    assert_ne!(user.to_uncompressed()[1..], [0; 64]);
    master.zeroize();
    user.zeroize();
    assert_eq!(master.to_bytes(), [0; 32]);
    assert_eq!(user.to_uncompressed()[1..], [0; 64]);

    let mut emaster = EncryptMasterKey::from_bytes(&ks).expect("master key");
    let mut euser: EncryptPrivateKey = emaster.extract(b"Bob").expect("extract");
    on_drop(&emaster);
    on_drop(&euser);
    assert_ne!(euser.to_uncompressed()[1..], [0; 128]);
    emaster.zeroize();
    euser.zeroize();
    assert_eq!(emaster.to_bytes(), [0; 32]);
    assert_eq!(euser.to_uncompressed()[1..], [0; 128]);
}
