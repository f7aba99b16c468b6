//! serde for the public values: `VerifyingKey` as SPKI DER (id-ecPublicKey + SM2; any form
//! read back, with the default identifier), `Signature` as its fixed 64 bytes — binary
//! formats get bytes, human-readable ones hex (`serdect`), as RustCrypto's key types do.

use crate::dsa::{Signature, VerifyingKey};
use crate::keys::{AlgorithmForm, public_key_from_spki_der, public_key_to_spki_der};
use serdect::serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser};

impl Serialize for VerifyingKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let der = public_key_to_spki_der(self.public_key(), AlgorithmForm::EcPublicKey)
            .map_err(ser::Error::custom)?;
        serdect::slice::serialize_hex_upper_or_bin(&der.as_bytes(), serializer)
    }
}

impl<'de> Deserialize<'de> for VerifyingKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let der = serdect::slice::deserialize_hex_or_bin_vec(deserializer)?;
        let public = public_key_from_spki_der(&der).map_err(de::Error::custom)?;
        Ok(VerifyingKey::new(&public))
    }
}

impl Serialize for Signature {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serdect::array::serialize_hex_upper_or_bin(&self.to_bytes(), serializer)
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut bytes = [0u8; 64];
        serdect::array::deserialize_hex_or_bin(&mut bytes, deserializer)?;
        Signature::from_bytes(&bytes).map_err(de::Error::custom)
    }
}
