//! SM4 rows: ECB through the `cipher` traits, CBC through sm4-modes' `Sm4CbcEnc`/`Sm4CbcDec`
//! (the serial chain and the batched decryption a user of the crate gets), `sm4-cbc-enc-many16`
//! (16 buffers of the column's size at once through `cbc_encrypt_many_in_place`) and the
//! fused counter mode.

use shangmi_sm4::cipher::{BlockModeDecrypt, BlockModeEncrypt, InnerIvInit};
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt},
};
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, cbc_encrypt_many_in_place};

use super::{Row, sm4_on};

const IV: [u8; 16] = [0x24; 16];

/// The buffer as whole blocks (the table only passes multiples of the block size).
fn blocks(buf: &mut [u8]) -> &mut [Block<Sm4>] {
    Block::<Sm4>::slice_as_chunks_mut(buf).0
}

/// The SM4 rows with the cipher on `engine`, which the caller checked is available.
pub fn rows(engine: Backend) -> Vec<Row> {
    let sm4 = sm4_on(engine);
    let cbc_many = sm4.clone();
    let (ecb_enc, ecb_dec, cbc_enc, cbc_dec, ctr) =
        (sm4.clone(), sm4.clone(), sm4.clone(), sm4.clone(), sm4);
    vec![
        Row::new("sm4-ecb-enc", 16, move |buf| {
            ecb_enc.encrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-ecb-dec", 16, move |buf| {
            ecb_dec.decrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-cbc-enc", 16, move |buf| {
            Sm4CbcEnc::inner_iv_init(cbc_enc.clone(), &IV.into()).encrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-cbc-dec", 16, move |buf| {
            Sm4CbcDec::inner_iv_init(cbc_dec.clone(), &IV.into()).decrypt_blocks(blocks(buf))
        }),
        Row::new("sm4-cbc-enc-many16", 16, {
            let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); 16];
            let ivs: Vec<[u8; 16]> = (0..16u8).map(|i| [i; 16]).collect();
            move |buf| {
                let mut refs: Vec<&mut [u8]> = bufs
                    .iter_mut()
                    .map(|b| {
                        b.resize(buf.len(), 0);
                        b.as_mut_slice()
                    })
                    .collect();
                cbc_encrypt_many_in_place(&cbc_many, &ivs, &mut refs).expect("whole blocks");
            }
        })
        .copies(16),
        Row::new("sm4-ctr", 1, move |buf| {
            ctr.apply_ctr(CtrFlavor::Be128, &mut IV.clone(), buf)
        }),
    ]
}
