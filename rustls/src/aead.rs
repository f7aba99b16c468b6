//! TLS 1.3 record protection with SM4-GCM and SM4-CCM (RFC 8998 §3.1; both with a 12-byte
//! nonce and a 16-byte tag). Records are sealed and opened in place in the buffer rustls
//! hands over (one allocation per outgoing record, which rustls' API makes; none for incoming
//! ones), on `shangmi-sm4-modes`' fused engines.

use core::marker::PhantomData;
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter, MessageEncrypter,
    Nonce, OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload, Tls13AeadAlgorithm,
    UnsupportedOperationError, make_tls13_aad,
};
use rustls::{ConnectionTrafficSecrets, ContentType, ProtocolVersion};
use shangmi_sm4_modes::aead::consts::{U12, U16};
use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
use shangmi_sm4_modes::{Sm4Ccm, Sm4Gcm};

/// Tag length of both SM4 AEADs in TLS (RFC 8998 §3.1).
const TAG_LEN: usize = 16;

/// SM4-GCM for TLS_SM4_GCM_SM3.
pub static SM4_GCM: Sm4Aead<Sm4Gcm> = Sm4Aead(PhantomData);
/// SM4-CCM (16-byte tag) for TLS_SM4_CCM_SM3.
pub static SM4_CCM: Sm4Aead<Sm4Ccm> = Sm4Aead(PhantomData);

/// rustls' view of an SM4 AEAD: `A` is [`Sm4Gcm`] or [`Sm4Ccm`].
pub struct Sm4Aead<A>(PhantomData<fn() -> A>);

impl<A> core::fmt::Debug for Sm4Aead<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(core::any::type_name::<A>())
    }
}

/// The AEADs this module can drive: 16-byte key, 12-byte nonce, 16-byte tag.
pub trait RecordAead:
    AeadInOut<NonceSize = U12, TagSize = U16> + KeyInit + Send + Sync + 'static
{
}
impl RecordAead for Sm4Gcm {}
impl RecordAead for Sm4Ccm {}

impl<A: RecordAead> Tls13AeadAlgorithm for Sm4Aead<A> {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(RecordCipher::<A>::new(&key, iv))
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(RecordCipher::<A>::new(&key, iv))
    }

    fn key_len(&self) -> usize {
        16
    }

    fn extract_keys(
        &self,
        _key: AeadKey,
        _iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        // rustls 0.23's `ConnectionTrafficSecrets` (for kTLS) has no SM4 variants.
        Err(UnsupportedOperationError)
    }
}

/// One direction's record key and static IV.
struct RecordCipher<A> {
    aead: A,
    iv: Iv,
}

impl<A: RecordAead> RecordCipher<A> {
    fn new(key: &AeadKey, iv: Iv) -> Self {
        // rustls derives `key_len()` = 16 bytes for these suites.
        let key = key.as_ref();
        let aead = <A as KeyInit>::new_from_slice(key)
            .unwrap_or_else(|_| unreachable!("rustls derives 16-byte keys for SM4 suites"));
        Self { aead, iv }
    }
}

impl<A: RecordAead> MessageEncrypter for RecordCipher<A> {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, rustls::Error> {
        let total_len = self.encrypted_payload_len(msg.payload.len());
        let mut payload = PrefixedPayload::with_capacity(total_len);
        payload.extend_from_chunks(&msg.payload);
        payload.extend_from_slice(&msg.typ.to_array());
        let text_len = msg.payload.len() + 1;
        payload.extend_from_slice(&[0; TAG_LEN]);

        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(total_len);
        let (text, tag_out) = payload.as_mut().split_at_mut(text_len);
        let tag = self
            .aead
            .encrypt_inout_detached(&nonce.into(), &aad, text.into())
            .map_err(|_| rustls::Error::EncryptError)?;
        tag_out.copy_from_slice(&tag);
        Ok(OutboundOpaqueMessage::new(
            ContentType::ApplicationData,
            ProtocolVersion::TLSv1_2,
            payload,
        ))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

impl<A: RecordAead> MessageDecrypter for RecordCipher<A> {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, rustls::Error> {
        let payload = &mut msg.payload;
        let Some(text_len) = payload.len().checked_sub(TAG_LEN) else {
            return Err(rustls::Error::DecryptError);
        };
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(payload.len());
        let (text, tag) = payload.split_at_mut(text_len);
        let tag: [u8; TAG_LEN] = (&*tag)
            .try_into()
            .map_err(|_| rustls::Error::DecryptError)?;
        self.aead
            .decrypt_inout_detached(&nonce.into(), &aad, text.into(), &tag.into())
            .map_err(|_| rustls::Error::DecryptError)?;
        payload.truncate(text_len);
        msg.into_tls13_unpadded_message()
    }
}
